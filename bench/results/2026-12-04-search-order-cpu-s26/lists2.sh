#!/usr/bin/env bash
# usage: lists2.sh HKLS BUDGET OUTFILE: each kernel's list where its first proposal leads (0.5 of the baseline)
hkls=$1; budget=$2; out=$3; shift 3
root=/work/wt-order
lat=$root/bench/results/2026-12-04-h200-session25/wild-latest.md
: > "$out"
one() { # id file kernel spec cls
  local first
  first=$("$hkls" rewrites "$2" --kernel "$3" --spec "$4" --proposals 1 --class "$5" --device 132,64 2>/dev/null | sed -n 's/^  1: \(.*\)  \[1\]$/\1/p')
  echo "== $1 ($5; leader: ${first:-none})" >> "$out"
  "$hkls" rewrites "$2" --kernel "$3" --spec "$4" --proposals "$budget" --class "$5" --device 132,64 ${first:+--time "$first=0.5"} 2>/dev/null | tail -n +2 >> "$out"
}
for spec in $root/bench/wild/specs/*.bench.json; do
  id=$(basename "$spec" .bench.json)
  k=$(sed -n 's/^ *"kernel": *"\([^"]*\)".*/\1/p' "$spec" | head -n 1)
  cls=$(awk -F'|' -v id="$id" '$2 ~ " "id" " {gsub(/ /,"",$3); print $3}' "$lat")
  one "$id" "$root/bench/wild/src/$id.cu" "$k" "$spec" "${cls:-unknown}"
done
for p in stencil2d:memory-bound rmsnorm:latency-bound; do
  id=${p%%:*}; cls=${p#*:}
  one "$id" "$root/bench/kernels/$id.cu" "$id" "$root/bench/kernels/$id.bench.json" "$cls"
done
