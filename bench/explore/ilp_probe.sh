#!/usr/bin/env bash
# Times the wild SyncBN mean/var and SHOC reduce kernels on a GPU as extracted and as
# ilp_accumulators leaves them (K = 4, `hkls rewrites --emit`'s default), with
# ilp_probe.cu at the wild specs' largest size and launch; each rewrite's outputs are
# compared with the extracted kernel's. Needs bench/wild/src (extract.sh), nvcc and a GPU;
# HKLS (default ./build/hkls) writes the rewritten texts next to the sources first.
#
#   HKLS=/tmp/b/hkls bench/explore/ilp_probe.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src=$root/bench/wild/src
hkls=${HKLS:-$root/build/hkls}
out=${OUT:-/tmp/ilp_probe}
mkdir -p "$out"
kinds=(mmcv_sync_bn_mean:0 mmcv_sync_bn_var:1 shoc_reduce:2)
for kv in "${kinds[@]}"; do
    id=${kv%%:*} kind=${kv##*:}
    spec=$root/bench/wild/specs/$id.bench.json
    kernel=$(sed -n 's/^ *"kernel": *"\([^"]*\)".*/\1/p' "$spec" | head -n 1)
    [ -x "$hkls" ] && "$hkls" rewrites "$src/$id.cu" --kernel "$kernel" --spec "$spec" \
        --emit ilp_accumulators > "$out/${id}_ilp.cu"
    for v in "" _ilp; do
        f=$src/$id.cu
        [ -n "$v" ] && f=$out/${id}_ilp.cu
        nvcc -O3 -arch=sm_90 -std=c++17 -w -DKIND=$kind -DKFILE="\"$f\"" \
            -o "$out/$id$v" "$here/ilp_probe.cu" > "$out/$id$v.log" 2>&1 &
    done
done
wait
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null
for kv in "${kinds[@]}"; do
    id=${kv%%:*}
    for v in "" _ilp; do
        if [ ! -x "$out/$id$v" ]; then echo "$id$v: no build"; cat "$out/$id$v.log"; continue; fi
        printf '%-24s ' "$id${v:-_orig}"
        "$out/$id$v" "$out/$id$v.bin" "$out/$id.bin"
    done
done
