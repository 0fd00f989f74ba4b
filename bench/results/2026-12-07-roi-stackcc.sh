#!/usr/bin/env bash
# Session 49 (roi): does every stack X + specialize_constants of a wild kernel compile? CPU only.
# For each rewrite X that applies to the kernel (`hkls rewrites --json`, with --device 132,64),
# `--emit X+specialize_constants` (specialize_constants on X's re-modelled output, as the
# search's stack), the template kernel instantiated at the spec's arguments, then
# `nvcc -arch=sm_90 -cubin -Xptxas -v` with the spec's compile_flags. One line per stack:
# ok with ptxas' register count, FAIL with nvcc's first error, or why it was not stacked.
#
#   bench/results/2026-12-07-roi-stackcc.sh HKLS OUT ID...
set -uo pipefail
hkls=${1:?usage: $0 HKLS OUT ID...}; out=${2:?usage: $0 HKLS OUT ID...}; shift 2
wild=$(cd "$(dirname "$0")/../wild" && pwd)
command -v jq >/dev/null || { echo "needs jq" >&2; exit 2; }
mkdir -p "$out"
fails=0
for id in "$@"; do
    spec=$wild/specs/$id.bench.json; k=$(jq -r .kernel "$spec")
    targs=$(jq -r '(.template_args // []) | map(tostring) | join(", ")' "$spec")
    mapfile -t flags < <(jq -r '(.compile_flags // [])[]' "$spec")
    base=(rewrites "$wild/src/$id.cu" --kernel "$k" --spec "$spec" --device 132,64)
    for a in $("$hkls" "${base[@]}" --json 2>/dev/null |
               jq -r '.rewrites[] | select(.applies and .name != "specialize_constants" and .name != "set_tunable") | .name'); do
        f=$out/$id.$a+sc.cu
        if ! "$hkls" "${base[@]}" --emit "$a+specialize_constants" > "$f" 2> "$f.err"; then
            echo "$id $a+specialize_constants: not stacked: $(head -c 160 "$f.err")"; continue
        fi
        [ -n "$targs" ] && printf '\nstatic void *hk_compile_check_inst = (void *)&%s<%s>;\n' "$k" "$targs" >> "$f"
        if nvcc -arch=sm_90 -cubin -w -Xptxas -v "${flags[@]}" -o "${f%.cu}.cubin" "$f" > "$f.nvcc" 2>&1; then
            echo "$id $a+specialize_constants: ok, $(grep -o 'Used [0-9]* registers' "$f.nvcc" | head -n 1)"
        else
            fails=$((fails + 1))
            echo "$id $a+specialize_constants: FAIL $(grep -m1 error "$f.nvcc" | cut -c1-160)"
        fi
    done
done
[ "$fails" -eq 0 ]
