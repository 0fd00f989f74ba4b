#!/usr/bin/env bash
# Extract the wild suite's pinned kernel files into bench/wild/src/ (ignored by git).
#
#   bench/wild/extract.sh [MIRRORS]
#
# MIRRORS is a folder holding one git checkout or bare git dir per project, named
# either owner+name/repo (what the session's fetch tool writes), owner+name or name
# (a plain clone). Default: /work/.mirror. For every kernel in manifest.json the pinned
# files are read with `git show COMMIT:PATH` (never the work tree, so a clone at any
# branch works as long as it holds the commit) into src/<project>/<path>, and a
# compilable wrapper src/<id>.cu is written next to them (see README.md). Any missing
# mirror, commit or path is an error: nothing is guessed and the script exits non-zero.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mirrors=${1:-/work/.mirror}
[ -d "$mirrors" ] || { echo "extract.sh: no mirror folder $mirrors" >&2; exit 2; }
command -v python3 >/dev/null || { echo "extract.sh: needs python3" >&2; exit 2; }
exec python3 - "$here" "$mirrors" <<'PY'
import json, os, re, subprocess, sys

here, mirrors = sys.argv[1], sys.argv[2]
man = json.load(open(os.path.join(here, "manifest.json")))
src = os.path.join(here, "src")
errors = []

def die(msg):
    print("extract.sh: error: " + msg, file=sys.stderr)
    sys.exit(1)

def git_dir(repo):
    owner, name = repo.split("/")
    for cand in (f"{owner}+{name}/repo", f"{owner}+{name}", name, f"{owner}/{name}"):
        p = os.path.join(mirrors, cand)
        if os.path.isdir(p):
            return p
    die(f"no mirror of {repo} under {mirrors} (tried {owner}+{name}/repo, {owner}+{name}, {name})")

def git(gd, *args):
    return subprocess.run(["git", "--git-dir" if os.path.exists(os.path.join(gd, "HEAD")) else "-C", gd,
                           *args], capture_output=True)

def show(gd, commit, path):
    if git(gd, "cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        die(f"{gd}: pinned commit {commit} is not there (fetch it, or clone the full history)")
    r = git(gd, "show", f"{commit}:{path}")
    if r.returncode != 0:
        die(f"{gd}: cannot read {commit}:{path}: {r.stderr.decode().strip()}")
    return r.stdout.decode("utf-8", errors="surrogateescape")

# 1. every pinned file, exactly as committed
files = {}  # (project, path) -> text
for k in man["kernels"]:
    proj = man["projects"][k["project"]]
    if not re.fullmatch(r"[0-9a-f]{40}", proj["commit"]):
        die(f"{k['id']}: commit of {k['project']} is not 40 hex digits")
    gd = git_dir(proj["repository"])
    # "launchers": host files that launch the kernel, pinned beside it but never inlined
    # (bench/wild/infer.sh: spec inference finds the launch site in a sibling file)
    for path in [k["path"]] + k.get("also", []) + k.get("launchers", []):
        key = (k["project"], path)
        if key in files:
            continue
        text = show(gd, proj["commit"], path)
        files[key] = text
        out = os.path.join(src, k["project"], path)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)

# 2. one wrapper per kernel: the harness copies the kernel file alone into a build
# folder, so a wrapper must not #include anything by a relative path. It inlines the
# pinned headers it includes (or a shim of our own for a framework header) and keeps
# system includes.
def flatten(project, path, shims, seen, depth=0):
    if depth > 16:
        die(f"{project}/{path}: includes nested too deep")
    out = []
    base = os.path.dirname(path)
    for line in files[(project, path)].splitlines():
        m = re.match(r'\s*#\s*include\s*[<"]([^>"]+)[>"]', line)
        if m:
            inc = m.group(1)
            name = os.path.basename(inc)
            hit = None
            for (p, q) in files:
                if p == project and (q == os.path.normpath(os.path.join(base, inc)) or
                                     (os.path.basename(q) == name and inc == name)):
                    hit = q
            if name in shims:
                if name not in seen:
                    seen.add(name)
                    out.append(f"// ---- {inc}: shim written by bench/wild/extract.sh ----")
                    for sl in shims[name]:
                        sm = re.match(r'#include "([^"]+)"', sl)
                        if sm:
                            q = [q for (p, q) in files if p == project and os.path.basename(q) == sm.group(1)]
                            if not q:
                                die(f"shim for {name} needs pinned {sm.group(1)}")
                            # inlined even if an #if branch already holds it (it may be a
                            # dead one): the header's own include guard keeps one copy
                            seen.add(q[0])
                            out.extend(flatten(project, q[0], shims, seen, depth + 1))
                        else:
                            out.append(sl)
                continue
            if hit:
                if hit not in seen:
                    seen.add(hit)
                    out.append(f"// ---- {inc} ({hit}) inlined by bench/wild/extract.sh ----")
                    out.extend(flatten(project, hit, shims, seen, depth + 1))
                continue
        out.append(line)
    return out

for k in man["kernels"]:
    proj = man["projects"][k["project"]]
    shims = man.get("shims", {}).get(k["project"], {})
    body = []
    if "lines" in k:
        lines = files[(k["project"], k["path"])].splitlines()
        for rng in k["lines"]:
            a, b = (int(x) for x in rng.split("-"))
            if not (1 <= a <= b <= len(lines)):
                die(f"{k['id']}: lines {rng} outside {k['path']} ({len(lines)} lines)")
            body.append(f"// ---- {k['path']} lines {rng} ----")
            body.extend(lines[a - 1:b])
    else:
        body = flatten(k["project"], k["path"], shims, {k["path"]})
    text = "\n".join(body)
    if not re.search(r"\b" + re.escape(k["kernel"].split("::")[-1]) + r"\b", text):
        die(f"{k['id']}: kernel {k['kernel']} not found in the extracted text")
    head = [f"// {k['id']}: generated by bench/wild/extract.sh; do not edit.",
            f"// From {proj['repository']} at {proj['commit']} ({proj['licence']}): {k['path']}"]
    head += k.get("prelude", [])
    with open(os.path.join(src, k["id"] + ".cu"), "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n".join(head + body) + "\n")

print(f"extract.sh: {len(files)} pinned files and {len(man['kernels'])} wrappers in {src}")
PY
