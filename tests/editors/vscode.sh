#!/bin/sh
# The VS Code extension's ctest steps, run in editors/vscode:
#   vscode.sh package OUTDIR   npm ci when node_modules is missing or older than the lock,
#                              type-check + bundle, package OUTDIR/hyperkernel.vsix offline
#                              without any of vsce's y/N prompts, and check what the .vsix
#                              holds (the bundle, the manifest, the Apache-2.0 LICENSE,
#                              package.nls*.json and l10n/: the zh-CN words of issue 14).
#                              With HK_CACHE_DIR (./hk test sets it for both passes), a
#                              package that passed is kept there under the hash of what it
#                              is made of (every file of the extension but node_modules and
#                              out, the installed lock, node's and npm's versions); the
#                              same inputs later in the run (the ASan pass) take it from
#                              there instead of building it again, and the .vsix is checked
#                              all the same.
#   vscode.sh test HKLS        the node tests (settings, and the flow against the real hkls)
set -u
here=$(cd "$(dirname "$0")" && pwd)
ext=$(cd "$here/../../editors/vscode" && pwd)
cd "$ext" || exit 2
for t in node npm; do
    command -v $t >/dev/null 2>&1 || { echo "FAIL: $t not found (Node >= 18 and npm are needed)" >&2; exit 1; }
done
deps() {
    if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
        echo "npm ci in $ext" >&2
        # the registry is across a network: a stalled fetch is tried again, twice
        for try in 1 2 3; do
            npm ci --no-audit --no-fund --fetch-retries=4 && break
            [ "$try" = 3 ] && { echo "FAIL: npm ci" >&2; exit 1; }
            echo "npm ci failed (try $try of 3): trying again" >&2
            sleep 5
        done
    fi
}
# The hash of what the package is made of (see the head of this file), on stdout.
inputs_key() {
    { node --version && npm --version &&
      find . \( -path ./node_modules -o -path ./out \) -prune -o -type f ! -name '*.vsix' -print |
        LC_ALL=C sort | xargs -d '\n' sha256sum &&
      sha256sum node_modules/.package-lock.json; } | sha256sum | cut -c1-32
}
case "${1:-}" in
package)
    [ $# -eq 2 ] || { echo "usage: $0 package OUTDIR" >&2; exit 2; }
    mkdir -p "$2" || exit 2
    out=$(cd "$2" && pwd)/hyperkernel.vsix
    deps
    rm -f "$out"
    kept=
    if [ -n "${HK_CACHE_DIR:-}" ]; then
        key=$(inputs_key) || key=
        [ -n "$key" ] && kept=$HK_CACHE_DIR/vscode/$key.vsix
    fi
    if [ -n "$kept" ] && [ -f "$kept" ] && cp "$kept" "$out"; then
        echo "the package of these inputs, built and checked earlier in this run: $kept"
    else
        # vsce runs the manifest's vscode:prepublish (npm run compile: the type check with
        # tsc, then the esbuild bundle) before it packages, and fails when that fails (its
        # log below shows tsc's messages): the one compile of this test.
        # vsce asks "Do you want to continue? [y/N]" on a terminal for a missing repository
        # or LICENSE, and answers yes by itself when its output is not a terminal (as
        # here): so the check is that it warned about neither. The project has no public
        # repository URL yet: --allow-missing-repository (as in `npm run package`) instead
        # of a made-up one.
        log=$(dirname "$out")/vsce-package.log
        npx --no-install vsce package --no-dependencies --allow-missing-repository --out "$out" \
            </dev/null >"$log" 2>&1
        rc=$?
        cat "$log"
        [ $rc -eq 0 ] || { echo "FAIL: vsce package (or its prepublish compile)" >&2; exit 1; }
        grep -q "Executing prepublish script" "$log" ||
            { echo "FAIL: vsce did not run the prepublish compile" >&2; exit 1; }
        if grep -Ei "repository' field is missing|licen[cs]e.* not found|continue\? \[y/N\]" "$log" >&2; then
            echo "FAIL: vsce package would stop at a y/N prompt on a terminal (above)" >&2
            exit 1
        fi
    fi
    # The package must be usable on its own: the bundled client, the manifest with the
    # settings and the UI commands, and no sources or node_modules.
    node -e '
      const { execFileSync } = require("child_process");
      const out = process.argv[1];
      const list = execFileSync("python3", ["-c", "import sys,zipfile; print(\"\\n\".join(zipfile.ZipFile(sys.argv[1]).namelist()))", out]).toString().split("\n");
      // with the zh-CN words (issue 14): the texts of the %key% placeholders, the runtime bundle
      const need = ["extension/package.json", "extension/out/extension.js", "extension/LICENSE.txt",
                    "extension/package.nls.json", "extension/package.nls.zh-cn.json", "extension/l10n/bundle.l10n.zh-cn.json"];
      for (const n of need) if (!list.includes(n)) { console.error("FAIL: the .vsix lacks " + n); process.exit(1); }
      for (const n of list) if (/node_modules|\/src\/|\.ts$|\/test\//.test(n)) { console.error("FAIL: the .vsix holds " + n); process.exit(1); }
      const pkg = JSON.parse(execFileSync("python3", ["-c", "import sys,zipfile; print(zipfile.ZipFile(sys.argv[1]).read(\"extension/package.json\").decode())", out]));
      if (pkg.l10n !== "./l10n") { console.error("FAIL: package.json l10n is " + pkg.l10n); process.exit(1); }
      if (pkg.license !== "Apache-2.0") { console.error("FAIL: package.json license is " + pkg.license); process.exit(1); }
      const lic = execFileSync("python3", ["-c", "import sys,zipfile; print(zipfile.ZipFile(sys.argv[1]).read(\"extension/LICENSE.txt\").decode())", out]).toString();
      if (!/Apache License\s+Version 2\.0/.test(lic)) { console.error("FAIL: extension/LICENSE.txt is not the Apache-2.0 text"); process.exit(1); }
      const cmds = pkg.contributes.commands.map((c) => c.command);
      for (const c of ["hyperkernel.ui.optimize", "hyperkernel.ui.cancel", "hyperkernel.ui.history", "hyperkernel.ui.report", "hyperkernel.ui.episodes"])
        if (!cmds.includes(c)) { console.error("FAIL: command " + c + " missing"); process.exit(1); }
      for (const s of ["serverPath", "defaultTarget", "engines", "budget", "minutes"])
        if (!pkg.contributes.configuration.properties["hyperkernel." + s]) { console.error("FAIL: setting " + s + " missing"); process.exit(1); }
      const js = execFileSync("python3", ["-c", "import sys,zipfile; print(zipfile.ZipFile(sys.argv[1]).read(\"extension/out/extension.js\").decode())", out], { maxBuffer: 64 << 20 }).toString();
      if (/require\(["\x27]vscode-languageclient/.test(js)) { console.error("FAIL: vscode-languageclient is not bundled"); process.exit(1); }
      console.log("ok: " + out + " (" + list.length + " entries)");
    ' "$out" || exit 1
    # kept only once checked (a copy renamed into place: a concurrent reader never sees half)
    if [ -n "$kept" ] && [ ! -f "$kept" ] && mkdir -p "$(dirname "$kept")" &&
        cp "$out" "$kept.$$" && mv -f "$kept.$$" "$kept"; then
        echo "kept for the same inputs later in this run: $kept"
    fi
    ;;
test)
    [ $# -eq 2 ] || { echo "usage: $0 test HKLS" >&2; exit 2; }
    deps
    HKLS=$2 node --test test/*.test.js
    ;;
*)
    echo "usage: $0 package OUTDIR | test HKLS" >&2
    exit 2
    ;;
esac
