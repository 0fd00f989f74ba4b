#!/usr/bin/env bash
# What the built-in engine recognises in each wild kernel, on the CPU (no GPU, no compile):
# `hkls rewrites` per kernel, one table row each with the kernel model's class, the
# algorithm-level rewrites (and library calls) that apply, and the first refusal of the
# rewrite that matches the class. Tracks issue 13 between GPU runs: a kernel whose class
# has a rewrite that refuses is where the engine leaves speed on the table.
#
#   bench/wild/rewrites.sh [ID...]
#
# Needs hkls (HKLS, default ./build/hkls), jq, and bench/wild/src/ (extract.sh). DEVICE=SMS,WARPS
# (e.g. 132,64: an H100/H200's SMs and resident warps per SM) passes `--device`, so rewrites
# that weigh the spec's sizes against the device (warp_rows' block form, window_lanes) answer
# as they do in an episode; unset, they answer as with no device known.
# Prints a Markdown table, then the totals. Exit 0, 2 when something is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
hkls=${HKLS:-$root/build/hkls}
command -v jq >/dev/null || { echo "rewrites.sh: needs jq" >&2; exit 2; }
[ -x "$hkls" ] || { echo "rewrites.sh: no hkls at $hkls (set HKLS)" >&2; exit 2; }
[ -d "$here/src" ] || { echo "rewrites.sh: $here/src is missing: run bench/wild/extract.sh first" >&2; exit 2; }
if [ $# -gt 0 ]; then ids=("$@"); else
    ids=(); for s in "$here"/specs/*.bench.json; do ids+=("$(basename "$s" .bench.json)"); done
fi
dev=(); [ -n "${DEVICE:-}" ] && dev=(--device "$DEVICE")
kernel_of() { sed -n 's/^ *"kernel": *"\([^"]*\)".*/\1/p' "$1" | head -n 1; }

# the class's own rewrite(s): the one a kernel of that class should get
declare -A own=([gemm]="blas_substitution tiled_gemm" [gemv]="warp_rows" [transpose]="tiled_transpose" [permutation]="tiled_permute"
    [histogram]="privatized_histogram histogram_lane_replicas" [reduction]="warp_reduce block_reduce coalesced_columns"
    [softmax]="online_softmax" [norm]="online_layernorm" [elementwise]="vectorize coarsen"
    [stencil]="stencil_window" [convolution]="stencil_window" [pooling]="stencil_window window_lanes window_warp")

echo "| kernel | class | algorithm rewrites that apply | structural that apply | the class's rewrite: what stops it |"
echo "|---|---|---|---|---|"
n=0 classed=0 alg=0 own_ok=0 own_n=0
for id in "${ids[@]}"; do
    spec=$here/specs/$id.bench.json
    kernel=$(kernel_of "$spec")
    j=$("$hkls" rewrites "$here/src/$id.cu" --kernel "$kernel" --spec "$spec" "${dev[@]}" --json 2>/dev/null) || {
        echo "| $id | error | - | - | $("$hkls" rewrites "$here/src/$id.cu" --kernel "$kernel" --spec "$spec" 2>&1 >/dev/null | head -n 1) |"
        n=$((n + 1)); continue; }
    cls=$(jq -r '.class' <<< "$j")
    a=$(jq -r '[.rewrites[] | select(.applies and (.kind == "algorithm" or .kind == "library call")) | .name] | join(", ")' <<< "$j")
    s=$(jq -r '[.rewrites[] | select(.applies and (.kind == "structural" or .kind == "hint")) | .name] | join(", ")' <<< "$j")
    stop=-
    if [ -n "${own[$cls]:-}" ]; then
        own_n=$((own_n + 1)) ok=0 stop=
        for r in ${own[$cls]}; do
            if [ "$(jq -r --arg r "$r" '.rewrites[] | select(.name == $r) | .applies' <<< "$j")" = true ]; then
                g=$(jq -r --arg r "$r" '.rewrites[] | select(.name == $r) | .grid // empty' <<< "$j")
                # a window without a divided grid is exact only under the spec's: no gain
                [ -z "$g" ] && [ "$r" = stencil_window ] && g="the spec's grid kept: no bound on the slow axis"
                ok=1 stop="applies ($r${g:+, $g})"; break; fi
            [ -z "$stop" ] && stop="$r: $(jq -r --arg r "$r" '.rewrites[] | select(.name == $r) | .reason' <<< "$j" | cut -c1-110)"
        done
        own_ok=$((own_ok + ok))
    elif [ "$cls" = none ]; then
        stop="near: $(jq -r '.near // "-"' <<< "$j" | cut -c1-110)"
    fi
    n=$((n + 1))
    [ "$cls" != none ] && classed=$((classed + 1))
    [ -n "$a" ] && alg=$((alg + 1))
    echo "| $id | $cls | ${a:--} | ${s:--} | ${stop//|//} |"
done
echo
echo "$n kernels: $classed classified, $alg with an algorithm-level rewrite that applies, $own_ok of $own_n whose class has a rewrite get it"
