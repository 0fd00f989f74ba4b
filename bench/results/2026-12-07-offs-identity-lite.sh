#!/usr/bin/env bash
# Session 51 (helper offs): a lighter form of 2026-12-07-fix46-identity.sh (whose --proposals
# runs took ~4 s per call here: 15 of 76 kernels in 9 minutes on the shared 2 cores).
#   bench/results/2026-12-07-offs-identity-lite.sh HKLS OUT
# lite identity: --json (no device, --device 132,64), --emit NAME for every applying rewrite,
# --emit restrict --param add_const=1 (the search's form)
hkls=$1 out=$2 wild=$(cd "$(dirname "$0")/../wild" && pwd)
mkdir -p "$out"
jq -r '.kernels[] | "\(.id) \(.kernel) \(.spec)"' "$wild/manifest.json" | while read -r id kernel spec; do
  for dev in "" 132,64; do
    sfx= devargs=()
    [ -n "$dev" ] && sfx=.dev devargs=(--device "$dev")
    base=(rewrites "$wild/src/$id.cu" --kernel "$kernel" --spec "$wild/$spec" "${devargs[@]}")
    "$hkls" "${base[@]}" --json > "$out/$id$sfx.json" 2> "$out/$id$sfx.stderr.txt"
    for name in $(jq -r '.rewrites[]? | select(.applies) | .name' "$out/$id$sfx.json") restrict_const; do
      if [ $name = restrict_const ]; then args=(--emit restrict --param add_const=1); else args=(--emit $name); fi
      "$hkls" "${base[@]}" "${args[@]}" > "$out/$id.$name$sfx.cu" 2>&1 || echo "rc $?" >> "$out/$id.$name$sfx.cu"
    done
  done
done
