#!/usr/bin/env bash
# Session 47 (gen): the linear-algebra generality probes of tests/data/probes, CPU only.
#
#   bench/results/2026-12-07-gen-probes.sh HKLS OUT [--compile]
#
# Per probe (tests/data/probes/<id>.cu with <id>.bench.json, kernel <id>):
#   OUT/<id>.json   `hkls rewrites FILE --kernel ID --spec SPEC --json`
#   OUT/<id>.txt    the same as text (its first line names the model's class)
# and one table row: probe | class | rewrites that apply | the strong rewrites' verdicts
# (blas_substitution, tiled_gemm, warp_rows, coalesced_columns, split_k_columns: "yes" or
# the first 110 characters of the refusal). With --compile, every text that applies is
# emitted (`--emit NAME`; set_tunable left out, as in bench/wild/compile_rewrites.sh) and
# built with `nvcc -arch=sm_90 -cubin`; a summary line counts them.
set -uo pipefail
hkls=${1:?usage: $0 HKLS OUT [--compile]}
out=${2:?usage: $0 HKLS OUT [--compile]}
compile=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$root/tests/data/probes
mkdir -p "$out"
# Which probes and which strong rewrites: PROBE_PREFIX (default la_, the linear algebra),
# STRONG (default this family's list), REASON_CHARS (default 110). The spatial and reduce
# scripts beside this one are this script with theirs.
strong=${STRONG:-"blas_substitution tiled_gemm warp_rows coalesced_columns split_k_columns"}
prefix=${PROBE_PREFIX:-la_}
width=${REASON_CHARS:-110}
echo "| probe | class | rewrites that apply | $(echo $strong | sed 's/ / | /g') |"
echo "|---|---|---|$(for s in $strong; do printf -- "---|"; done)"
texts=0 fails=0
for spec in "$dir"/"$prefix"*.bench.json; do
    id=$(basename "$spec" .bench.json)
    "$hkls" rewrites "$dir/$id.cu" --kernel "$id" --spec "$spec" --json > "$out/$id.json" 2> "$out/$id.err"
    "$hkls" rewrites "$dir/$id.cu" --kernel "$id" --spec "$spec" > "$out/$id.txt" 2>&1
    cls=$(sed -n 's/^kernel [^:]*: class //p' "$out/$id.txt" | head -n 1)
    applies=$(jq -r '[.rewrites[] | select(.applies) | .name] | join(", ")' "$out/$id.json")
    row="| $id | $cls | $applies |"
    for s in $strong; do
        v=$(jq -r --arg s "$s" --argjson w "$width" '.rewrites[] | select(.name == $s) | if .applies then "**yes**" else (.reason | .[0:$w]) end' "$out/$id.json" | tr '|' '/')
        row="$row $v |"
    done
    echo "$row"
    [ "$compile" = --compile ] || continue
    for r in baseline $(jq -r '.rewrites[] | select(.applies and .name != "set_tunable") | .name' "$out/$id.json"); do
        f=$out/$id.$r.cu
        if [ "$r" = baseline ]; then cp "$dir/$id.cu" "$f"
        elif ! "$hkls" rewrites "$dir/$id.cu" --kernel "$id" --spec "$spec" --emit "$r" > "$f" 2> "$out/$id.$r.emit.txt"; then
            echo "COMPILE $id $r: not emitted: $(head -n 1 "$out/$id.$r.emit.txt")"; texts=$((texts + 1)) fails=$((fails + 1)); continue
        fi
        texts=$((texts + 1))
        if ! nvcc -arch=sm_90 -cubin -w -o "$out/$id.$r.cubin" "$f" > "$out/$id.$r.nvcc.txt" 2>&1; then
            fails=$((fails + 1)); echo "COMPILE $id $r: FAIL $(grep -m1 -i error "$out/$id.$r.nvcc.txt")"
        fi
    done
done
[ "$compile" = --compile ] && echo "compiled $texts texts with nvcc -arch=sm_90 -cubin: $fails failed"
exit 0
