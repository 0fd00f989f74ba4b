#!/usr/bin/env bash
# usage: lists.sh HKLS BUDGET OUTFILE [extra args]
hkls=$1; budget=$2; out=$3; shift 3
root=/work/wt-order
lat=$root/bench/results/2026-12-04-h200-session25/wild-latest.md
: > "$out"
for spec in $root/bench/wild/specs/*.bench.json; do
  id=$(basename "$spec" .bench.json)
  k=$(sed -n 's/^ *"kernel": *"\([^"]*\)".*/\1/p' "$spec" | head -n 1)
  cls=$(awk -F'|' -v id="$id" '$2 ~ " "id" " {gsub(/ /,"",$3); print $3}' "$lat")
  echo "== $id ($cls)" >> "$out"
  "$hkls" rewrites "$root/bench/wild/src/$id.cu" --kernel "$k" --spec "$spec" --proposals "$budget" --class "${cls:-unknown}" --device 132,64 "$@" 2>&1 | tail -n +2 >> "$out"
done
for p in stencil2d:memory-bound rmsnorm:latency-bound; do
  id=${p%%:*}; cls=${p#*:}
  echo "== $id ($cls)" >> "$out"
  "$hkls" rewrites "$root/bench/kernels/$id.cu" --kernel "$id" --spec "$root/bench/kernels/$id.bench.json" --proposals 6 --class "$cls" --device 132,64 "$@" 2>&1 | tail -n +2 >> "$out"
done
