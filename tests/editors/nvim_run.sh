#!/bin/sh
# Runs nvim_flow.lua in headless Neovim against a built hkls, in a throw-away workspace with
# Neovim's XDG folders inside it (no user config, plugins or shada take part).
# Usage: nvim_run.sh HKLS     (NVIM=... for another nvim; HK_EDITOR_REAL_GPU=1 on a GPU)
set -u
if [ $# -ne 1 ]; then
    echo "usage: $0 HKLS" >&2
    exit 2
fi
hkls=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
nvim=${NVIM:-nvim}
if ! command -v "$nvim" >/dev/null 2>&1; then
    echo "FAIL: '$nvim' not found; install Neovim >= 0.7.2 (apt-get install neovim)" >&2
    exit 1
fi
if [ ! -x "$hkls" ]; then
    echo "FAIL: hkls not built: $hkls" >&2
    exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hk-nvim-flow.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/ws" "$tmp/xdg/config" "$tmp/xdg/data" "$tmp/xdg/state" "$tmp/xdg/cache"
cp "$repo/bench/kernels/saxpy.cu" "$tmp/ws/" || exit 2
cp "$repo/bench/kernels/saxpy.bench.json" "$tmp/ws/saxpy.bench.json" || exit 2
cp "$repo/bench/kernels/saxpy.bench.json" "$tmp/ws/saxpy.saxpy.bench.json" || exit 2
# kernels with no spec next to them (issue 14): inferred and run; a draft that is refused
mkdir -p "$tmp/ws/nospec" || exit 2
cp "$repo/bench/kernels/saxpy.cu" "$repo/tests/data/infer/const_offsets.cu" "$tmp/ws/nospec/" || exit 2
export HK_NOSPEC_DIR="$tmp/ws/nospec"
export XDG_CONFIG_HOME="$tmp/xdg/config" XDG_DATA_HOME="$tmp/xdg/data"
export XDG_STATE_HOME="$tmp/xdg/state" XDG_CACHE_HOME="$tmp/xdg/cache"
export HK_HKLS="$hkls" HK_WORK="$tmp" HK_FILE="$tmp/ws/saxpy.cu" HK_PLUGIN="$repo/editors/nvim"
cd "$tmp/ws" || exit 2
# The flow in English, whatever the caller's locale (its checks read the server's English).
timeout -k 5 1500 env -u LC_ALL -u LC_MESSAGES LANG=C "$nvim" --headless -n -i NONE -u "$here/nvim_flow.lua" </dev/null
rc=$?
# The plugin's own words (nvim_lang.lua): English under LANG=C, byte for byte as before;
# Chinese under LANG=zh_CN.UTF-8; Chinese under LANG=C with setup{language='zh-CN'}, from
# the server too (initialize's locale).
if [ $rc -eq 0 ]; then
    for run in "en C -" "zh-CN zh_CN.UTF-8 -" "zh-CN C zh-CN"; do
        set -- $run
        echo "---- nvim_lang.lua: expect $1 with LANG=$2, setup{language=$3}" >&2
        opt=
        [ "$3" != - ] && opt=$3
        HK_EXPECT=$1 HK_LANG_OPTION=$opt timeout -k 5 120 env -u LC_ALL -u LC_MESSAGES LANG=$2 \
            "$nvim" --headless -n -i NONE -u "$here/nvim_lang.lua" </dev/null
        rc=$?
        [ $rc -eq 0 ] || break
    done
fi
if [ $rc -ne 0 ]; then
    echo "nvim exited with $rc (1: a check failed, 2: could not run, 124: timed out)" >&2
    for f in "$tmp/hkls.log" "$tmp/xdg/cache/nvim/lsp.log"; do
        if [ -s "$f" ]; then
            echo "---- last lines of $f" >&2
            tail -n 40 "$f" >&2
        fi
    done
fi
exit $rc
