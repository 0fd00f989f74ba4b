#!/bin/sh
# Runs one headless-Neovim case of test_init.lua against a built hkls, in a throw-away
# workspace with Neovim's XDG folders pointed inside it, so the user's config, plugins
# and shada never take part. Fails (never skips) when nvim is missing: setup installs it.
# Usage: run.sh HKLS CASE FIXTURE    (NVIM=... to use another nvim)
set -u
if [ $# -ne 3 ]; then
    echo "usage: $0 HKLS CASE FIXTURE" >&2
    exit 2
fi
hkls=$1
case_name=$2
fixture=$3
here=$(cd "$(dirname "$0")" && pwd)
nvim=${NVIM:-nvim}

if ! command -v "$nvim" >/dev/null 2>&1; then
    echo "FAIL: '$nvim' not found; install Neovim >= 0.7 (apt-get install neovim)" >&2
    exit 1
fi
ver=$("$nvim" --version | sed -n '1s/^NVIM v\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
set -- $ver
if [ -z "$ver" ] || [ "$1" -eq 0 ] && [ "$2" -lt 7 ]; then
    echo "FAIL: Neovim >= 0.7 needed, found: $("$nvim" --version | head -1)" >&2
    exit 1
fi
if [ ! -x "$hkls" ]; then
    echo "FAIL: hkls not built: $hkls" >&2
    exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hk-nvim.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/ws" "$tmp/xdg/config" "$tmp/xdg/data" "$tmp/xdg/state" "$tmp/xdg/cache"
cp "$fixture" "$tmp/ws/" || exit 2

export XDG_CONFIG_HOME="$tmp/xdg/config" XDG_DATA_HOME="$tmp/xdg/data"
export XDG_STATE_HOME="$tmp/xdg/state" XDG_CACHE_HOME="$tmp/xdg/cache"
export HK_HKLS="$hkls" HK_WORK="$tmp" HK_CASE="$case_name"
export HK_FILE="$tmp/ws/$(basename "$fixture")"

# The Lua side waits at most ~90 s per compile; this bounds a hung editor or server.
timeout -k 5 300 "$nvim" --headless -n -i NONE -u "$here/test_init.lua" </dev/null
rc=$?
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
