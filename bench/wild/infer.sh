#!/usr/bin/env bash
# Spec inference on the wild suite, CPU only (issue 14): `hkls spec` on every wrapper,
# each classified as sure (no "check:" doubt), doubt (inferred, but one-click optimize
# would refuse it) or invalid (no spec that the engine's parser accepts), and compared with
# the hand-written spec in specs/ where the two can be put side by side.
#
#   bench/wild/infer.sh [ID...]
#
# Environment:
#   HKLS   the hkls binary (default ./build/hkls)
#   SRC    the wrappers' folder (default bench/wild/src, written by extract.sh)
#   OUT    where the inferred specs and hkls's messages go (default a new temporary folder)
#
# The comparison binds the inferred spec's size variables to the hand spec's sizes through
# the integer arguments both pass (an inferred size variable that is an argument's value
# takes the value the hand spec passes there) or a shared name, then evaluates both at
# every hand size set:
#   roles  every pointer's kind (input/output/inout) equals the hand spec's: =, else the
#          names that differ: ~name an inout where the hand spec has an output (safe: only
#          the inputs-unchanged check is lost), !name any other difference (wrong)
#   count  per buffer, inferred against hand: = all equal, >in an input larger (safe),
#          >out an output larger (its baseline would fail as unwritten), < some smaller
#          (under-allocates: wrong), ? variables could not be bound
#   grid   threads launched (grid x block), inferred against hand: >= covers at least as
#          many threads, >=out fewer but at least one per element of the hand spec's largest
#          output (the hand grid over-launches), < fewer (wrong unless the kernel loops over
#          the rest), ? unbound
#   targs  template arguments equal (=), differ (the inferred ones), - none
# An invalid or doubtful spec is still compared when hkls wrote one.
# Exit status: 0; 2 when hkls or the sources are missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
hkls=${HKLS:-$root/build/hkls}
case $hkls in /*) ;; *) hkls=$PWD/$hkls ;; esac
src=${SRC:-$here/src}
[ -x "$hkls" ] || { echo "infer.sh: no hkls at $hkls (set HKLS)" >&2; exit 2; }
[ -d "$src" ] || { echo "infer.sh: $src is missing: run bench/wild/extract.sh first" >&2; exit 2; }
src=$(cd "$src" && pwd)
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/wild-infer.XXXXXX")}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)

if [ $# -gt 0 ]; then ids=("$@"); else
    ids=(); for s in "$here"/specs/*.bench.json; do ids+=("$(basename "$s" .bench.json)"); done
fi
kernel_of() { sed -n 's/^ *"kernel": *"\([^"]*\)".*/\1/p' "$1" | head -n 1; }

for id in "${ids[@]}"; do
    kernel=$(kernel_of "$here/specs/$id.bench.json")
    # -o inside OUT: the spec's "source" then names the wrapper by an absolute path
    "$hkls" spec "$src/$id.cu" --kernel "$kernel" -o "$out/$id.bench.json" --force \
        > /dev/null 2> "$out/$id.log"
    echo $? > "$out/$id.rc"
done

python3 - "$here/specs" "$out" "${ids[@]}" <<'EOF'
import json, keyword, os, re, sys

specs, out, ids = sys.argv[1], sys.argv[2], sys.argv[3:]

def ceil_div(a, b):
    return -(-a // b)

def ev(text, env):
    """A spec expression (docs/bench-spec.md "Expressions") in Python: / and % of
    integers truncate as in C. None when a name is unbound."""
    if isinstance(text, (int, float)):
        return text
    t = re.sub(r'(?<![/])/(?![/])', '//', str(text))
    # a size named as a Python keyword (Rodinia's `in`) is renamed on both sides
    kw = lambda n: "_kw_" + n if keyword.iskeyword(n) else n
    t = re.sub(r'[A-Za-z_][A-Za-z_0-9]*', lambda m: kw(m.group(0)), t)
    try:
        return eval(t, {"__builtins__": {}, "ceil_div": ceil_div, "min": min, "max": max},
                    {kw(n): v for n, v in env.items()})
    except Exception:
        return None

def dims(v):
    return v if isinstance(v, list) else [v]

def threads(sp, env):
    l = sp.get("launch", {})
    block = [ev(b, env) for b in dims(l.get("block", 1))]
    if None in block:
        return None
    genv = dict(env)
    genv.update({"block_x": block[0], "block_y": block[1] if len(block) > 1 else 1,
                 "block_z": block[2] if len(block) > 2 else 1, "sm_count": 132})
    grid = [ev(g, genv) for g in dims(l.get("grid", 1))]
    if None in grid:
        return None
    n = 1
    for x in block + grid:
        n *= x
    return n

def hand_env(sp, sizes):
    env = dict(sizes)
    return env

def bind(inf, hand, henv):
    """Inferred size variables from the hand spec's argument values at henv."""
    names = set()
    for s in inf.get("sizes", []):
        names |= set(s)
    env = {}
    hargs = {a.get("name"): a for a in hand.get("args", [])}
    for i, a in enumerate(inf.get("args", [])):
        if a.get("kind") != "scalar" or not isinstance(a.get("value"), str):
            continue
        v = a["value"].strip()
        if v not in names:
            continue
        h = hargs.get(a.get("name"))
        if h is None and i < len(hand.get("args", [])):
            h = hand["args"][i]
        if h is not None and h.get("kind") == "scalar":
            x = ev(h.get("value"), henv)
            # a size variable is at least 1: a hand value of 0 (a mode flag) binds nothing
            if isinstance(x, int) and x >= 1:
                env[v] = x
    for n in names:
        if n not in env and n in henv:
            env[n] = henv[n]
    # an inferred value that is a product of size variables (nthreads = num_ * h * w) binds
    # its one unbound factor when the hand's value is a multiple of the bound ones
    for i, a in enumerate(inf.get("args", [])):
        if a.get("kind") != "scalar" or not isinstance(a.get("value"), str):
            continue
        factors = [f.strip() for f in a["value"].replace("(", "").replace(")", "").split("*")]
        if len(factors) < 2 or not all(f in names for f in factors):
            continue
        free = [f for f in factors if f not in env]
        h = hargs.get(a.get("name"))
        if h is None and i < len(hand.get("args", [])):
            h = hand["args"][i]
        if len(free) != 1 or h is None or h.get("kind") != "scalar":
            continue
        x, rest = ev(h.get("value"), henv), 1
        for f in factors:
            rest *= env[f] if f in env else 1
        if isinstance(x, int) and x >= 1 and x % rest == 0:
            env[free[0]] = x // rest
    return env if names <= set(env) else None

def compare(inf, hand):
    roles = []
    for a, b in zip(inf.get("args", []), hand.get("args", [])):
        ka, kb = a.get("kind"), b.get("kind")
        if ka == "scalar" or ka == kb:
            continue
        # inout for an output only weakens the input check: safe (~); anything else is wrong (!)
        roles.append(("~" if (ka, kb) == ("inout", "output") else "!") + str(a.get("name")))
    if len(inf.get("args", [])) != len(hand.get("args", [])):
        roles = ["!arity"]
    count, grid, over = "=", ">=", set()
    for hs in hand.get("sizes", []):
        henv = dict(hs)
        env = bind(inf, hand, henv)
        if env is None:
            count = grid = "?"
            break
        for a, b in zip(inf.get("args", []), hand.get("args", [])):
            if a.get("kind") == "scalar":
                continue
            x, y = ev(a.get("count", 1), env), ev(b.get("count", 1), henv)
            if x is None or y is None:
                count = "?"
            elif x < y:
                count = "<"
            elif x > y:
                over.add("out" if b.get("kind") != "input" else "in")
        ti, th = threads(inf, env), threads(hand, henv)
        # fewer threads than the hand spec launches, but at least one per element of its
        # largest output (the hand grid over-launches: Rodinia nn's 65535-wide rows, or a
        # smaller block over one block per row): >=out, not wrong by this column
        outs = [ev(b.get("count", 1), henv) for b in hand.get("args", []) if b.get("kind") in ("output", "inout")]
        most = max([o for o in outs if isinstance(o, int)] or [0])
        if ti is None or th is None:
            grid = "?"
        elif ti < th and grid != "?":
            grid = ">=out" if most and ti >= most and grid != "<" else "<"
    if count == "=" and over:
        count = ">" + "+".join(sorted(over))
    ht, it = hand.get("template_args"), inf.get("template_args")
    if not ht and not it:
        targs = "-"
    elif [str(x) for x in (ht or [])] == [str(x) for x in (it or [])]:
        targs = "="
    else:
        targs = ",".join(str(x) for x in (it or [])) or "none"
    return " ".join(roles) or "=", count, grid, targs

rows, totals = [], {"sure": 0, "doubt": 0, "invalid": 0}
for id in ids:
    rc = int(open(os.path.join(out, id + ".rc")).read().strip() or 2)
    log = open(os.path.join(out, id + ".log"), errors="replace").read().splitlines()
    doubts = [l.split("check: ", 1)[1] for l in log if l.startswith("hkls spec: check: ")]
    path = os.path.join(out, id + ".bench.json")
    cls = "invalid" if rc != 0 else "doubt" if doubts else "sure"
    totals[cls] += 1
    roles = count = grid = targs = ""
    if rc == 0 and os.path.exists(path):
        roles, count, grid, targs = compare(json.load(open(path)),
                                            json.load(open(os.path.join(specs, id + ".bench.json"))))
    why = doubts[0] if doubts else ([l for l in log if l.startswith("hkls spec: ")] or [""])[-1]
    why = why.replace("hkls spec: ", "")
    if cls == "sure":
        why = ""
    rows.append((id, cls, len(doubts), roles, count, grid, targs, why[:110]))

print("| id | spec | doubts | roles | count | grid | targs | first doubt or error |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(str(x).replace("|", "/") for x in r) + " |")
n = len(rows)
wrong_sure = [r[0] for r in rows if r[1] == "sure" and (r[4] == "<" or r[5] == "<" or "!" in r[3] or r[6] not in ("=", "-"))]
print()
print(f"{n} kernels: {totals['sure']} sure, {totals['doubt']} with a doubt, {totals['invalid']} invalid; "
      f"sure but wrong against the hand spec (a role !, count <, grid <, targs): {len(wrong_sure)}"
      + (f" ({', '.join(wrong_sure)})" if wrong_sure else ""))

# What each size set costs: the bytes of every buffer (one-click runs the check set,
# sizes[0], for 15 combinations plus an fp64 shadow, per candidate: it must be cheap; the
# timed set, sizes[1], should move past 4x the L2), the blocks launched, and the buffers
# whose counts are guesses (notes "count of X guessed", doubts "guessed ...").
def dtype_bytes(dt):
    dt = str(dt)
    if "64" in dt or dt == "double":
        return 8
    if "16" in dt or dt in ("half", "bf16", "fp16", "__half"):
        return 2
    if dt in ("int8", "uint8", "char", "bool"):
        return 1
    return 4

def blocks(sp, env):
    l = sp.get("launch", {})
    block = [ev(b, env) for b in dims(l.get("block", 1))]
    if None in block:
        return None
    genv = dict(env)
    genv.update({"block_x": block[0], "block_y": block[1] if len(block) > 1 else 1,
                 "block_z": block[2] if len(block) > 2 else 1, "sm_count": 132})
    g = [ev(x, genv) for x in dims(l.get("grid", 1))]
    if None in g:
        return None
    n = 1
    for x in g:
        n *= x
    return n

def mb(x):
    return "?" if x is None else f"{x / 1e6:.3g}"

print()
print("| id | sizes[0] | MB at [0] | blocks at [0] | sizes[1] | MB at [1] | largest buffer at [1] | guessed counts |")
print("|---|---|---|---|---|---|---|---|")
big0, big1 = [], []
for id in ids:
    path = os.path.join(out, id + ".bench.json")
    if not os.path.exists(path):
        continue
    sp = json.load(open(path))
    notes = sp.get("inferred", [])
    log = open(os.path.join(out, id + ".log"), errors="replace").read()
    guessed = [a["name"] for a in sp.get("args", []) if a.get("kind") != "scalar" and
               (f"count of {a['name']} guessed" in log or f"{a['name']} is used through another pointer" in log or
                f"how many elements {a['name']} has" in log)]
    cells, tot = [], []
    largest = None
    for k, env in enumerate(sp.get("sizes", [])[:2]):
        t = 0
        for a in sp.get("args", []):
            if a.get("kind") == "scalar":
                continue
            c = ev(a.get("count", 1), env)
            if c is None:
                t = None
                break
            b = c * dtype_bytes(a.get("dtype"))
            t += b
            if k == 1 and (largest is None or b > largest[1]):
                largest = (a["name"], b)
        tot.append(t)
        cells.append((",".join(f"{n}={v}" for n, v in env.items()), mb(t), blocks(sp, env)))
    while len(cells) < 2:
        cells.append(("", "?", None)); tot.append(None)
    if tot[0] is not None and tot[0] > 64e6:
        big0.append(id)
    if tot[1] is not None and tot[1] > 4e9:
        big1.append(id)
    print(f"| {id} | {cells[0][0]} | {cells[0][1]} | {cells[0][2]} | {cells[1][0]} | {cells[1][1]} | "
          + (f"{largest[0]} {mb(largest[1])}" if largest else "") + f" | {' '.join(guessed)} |")
print()
print(f"check sets (sizes[0]) past 64 MB: {len(big0)}" + (f" ({', '.join(big0)})" if big0 else "")
      + f"; timed sets (sizes[1]) past 4 GB: {len(big1)}" + (f" ({', '.join(big1)})" if big1 else ""))
print(f"inferred specs and hkls messages: {out}")
EOF
