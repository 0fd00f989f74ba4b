#!/bin/sh
# Runs editors/emacs/test-eglot.el (Emacs + eglot, headless) against a built hkls in a throw-away
# workspace. Exit 77 (skipped) when emacs or eglot is missing: install them with
# `apt-get install emacs-nox elpa-eglot`. Usage: emacs_run.sh HKLS
set -u
[ $# -eq 1 ] || { echo "usage: $0 HKLS" >&2; exit 2; }
hkls=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
emacs=${EMACS:-emacs}
if ! command -v "$emacs" >/dev/null 2>&1; then
    echo "skipped: emacs not installed (apt-get install emacs-nox elpa-eglot)" >&2
    exit 77
fi
if ! "$emacs" --batch -q --eval "(require 'eglot)" >/dev/null 2>&1; then
    echo "skipped: eglot not available to $emacs (apt-get install elpa-eglot)" >&2
    exit 77
fi
[ -x "$hkls" ] || { echo "FAIL: hkls not built: $hkls" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hk-emacs.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/ws" "$tmp/home"
cp "$repo/bench/kernels/saxpy.cu" "$tmp/ws/" || exit 2
cp "$repo/bench/kernels/saxpy.bench.json" "$tmp/ws/saxpy.bench.json" || exit 2
cp "$repo/bench/kernels/saxpy.bench.json" "$tmp/ws/saxpy.saxpy.bench.json" || exit 2
# a kernel with no spec (issue 14): its spec is inferred when Optimize is clicked
cp "$repo/tests/data/infer/axpy_temps.cu" "$tmp/ws/" || exit 2
export HOME="$tmp/home" HK_HKLS="$hkls" HK_WORK="$tmp" HK_FILE="$tmp/ws/saxpy.cu"
export HK_NOSPEC_FILE="$tmp/ws/axpy_temps.cu"
export XDG_CONFIG_HOME="$tmp/home/.config" # the trust check writes the user's trust list
cd "$tmp/ws" || exit 2
timeout -k 5 1500 "$emacs" --batch -q -l "$repo/editors/emacs/test-eglot.el" </dev/null
rc=$?
if [ $rc -ne 0 ] && [ -s "$tmp/hkls.log" ]; then
    echo "---- last lines of $tmp/hkls.log" >&2
    tail -n 40 "$tmp/hkls.log" >&2
fi
exit $rc
