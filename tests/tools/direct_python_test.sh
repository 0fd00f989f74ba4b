#!/usr/bin/env bash
# ./hk test's direct_python: when python3 on PATH is a shim (a script that runs the real
# interpreter, as pyenv's does), it gives a folder whose python3 is a link to that
# interpreter, with the same prefix; when the link would give another prefix, python3 is
# the interpreter itself, or there is none, it gives nothing. Exits 77 (skipped) without
# python3.
set -eu
hk=$1
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
real=$(python3 -c 'import sys; print(sys.executable)')
prefix=$(python3 -c 'import sys; print(sys.prefix)')
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
eval "$(sed -n '/^direct_python() {/,/^}/p' "$hk")"
type direct_python >/dev/null 2>&1 || fail "no direct_python in $hk"

# a shim: a script on PATH that runs the interpreter
mkdir -p "$t/shims"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$real" > "$t/shims/python3"
chmod +x "$t/shims/python3"
dir=$(PATH="$t/shims:$PATH" direct_python "$t/direct") || fail "a shim was not resolved"
[ "$dir" = "$t/direct" ] || fail "folder $dir, want $t/direct"
[ -L "$dir/python3" ] || fail "$dir/python3 is not a link"
[ "$(readlink -f "$dir/python3")" = "$(readlink -f "$real")" ] || fail "$dir/python3 -> $(readlink -f "$dir/python3"), want $real"
[ "$("$dir/python3" -c 'import sys; print(sys.prefix)')" = "$prefix" ] || fail "the link's prefix differs from $prefix"
# run again: the link is replaced, not nested
PATH="$t/shims:$PATH" direct_python "$t/direct" >/dev/null || fail "a second run failed"
[ ! -e "$t/direct/python3/python3" ] || fail "the second run nested a link"

# an interpreter that finds another prefix when run through a link (a virtual environment
# whose pyvenv.cfg lies next to it): nothing, and no link left
mkdir -p "$t/venv/bin" "$t/vshims"
cat > "$t/venv/bin/python3" <<FAKE
#!/bin/sh
case "\$*" in
  *executable*) echo "$t/venv/bin/python3" ;;
  *prefix*) if [ "\$0" = "$t/venv/bin/python3" ]; then echo "$t/venv"; else echo /base; fi ;;
esac
FAKE
chmod +x "$t/venv/bin/python3"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$t/venv/bin/python3" > "$t/vshims/python3"
chmod +x "$t/vshims/python3"
if PATH="$t/vshims:$PATH" direct_python "$t/vdirect" >/dev/null; then fail "a link with another prefix was kept"; fi
[ ! -e "$t/vdirect/python3" ] || fail "the link with another prefix was left in place"

# python3 on PATH is the interpreter (through a link): nothing to do
mkdir -p "$t/plain"
ln -s "$real" "$t/plain/python3"
if PATH="$t/plain:$PATH" direct_python "$t/none" >/dev/null; then fail "the interpreter itself was taken for a shim"; fi
[ ! -e "$t/none" ] || fail "a folder was made for the interpreter itself"

# no python3 at all
mkdir -p "$t/empty"
if PATH="$t/empty" direct_python "$t/none2" >/dev/null 2>&1; then fail "no python3, yet a folder"; fi
echo "direct_python: ok"
