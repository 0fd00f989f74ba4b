#!/bin/sh
# Replays on the CPU why the warp_rows candidate of llm.c's layernorm_forward_kernel1 was
# rejected on the H200 (issue 13, docs/accuracy.md "A correct candidate the tolerance rule
# rejects"): the original, the emitted candidate (`hkls rewrites --emit warp_rows`) and a
# double copy of the kernel run in the block emulator (tests/unit/emu_block_rt.hpp) on the
# spec's sizes and default distributions; prints each one's error against the double copy,
# the spec's tolerance rule (candidate vs original) and the fp64 error-ratio rule.
#   bench/accuracy/wild_layernorm1_emu.sh [BUILD_DIR] [OUT_DIR]   (defaults: build, carry)
# Environment: SIZE=0|1|both (default 1: 3001 x 777), DISTS=all|2 (default 2:
# uniform(0,100)), SEEDS=n (default 5). Needs bench/wild/src (bench/wild/extract.sh) and a
# built hkls; about 30 s of CPU per seed at size 1, ten times that at size 0.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
mkdir -p "${2:-$here/carry}/wild_layernorm1"
out=$(cd "${2:-$here/carry}/wild_layernorm1" && pwd)
src=$here/bench/wild/src/llmc_layernorm1.cu
k=layernorm_forward_kernel1
[ -r "$src" ] || { echo "no $src: run bench/wild/extract.sh first" >&2; exit 1; }

kernel_of() { sed -n "/^__global__ void $k(/,/^}/p"; }
kernel_of <"$src" >"$out/orig.cu"
"$build/hkls" rewrites "$src" --kernel $k --emit warp_rows | kernel_of >"$out/cand.cu"
# The fp64 copy: this kernel's only float constructs are the type, f-suffixed literals and
# sqrtf (what promote_fp64 would change here; it has no CLI of its own).
sed -e 's/float/double/g' -e 's/\([0-9]\)f\b/\1/g' -e 's/sqrtf/sqrt/g' "$out/orig.cu" >"$out/ref.cu"
[ -s "$out/orig.cu" ] && [ -s "$out/cand.cu" ] || { echo "kernel or candidate not found" >&2; exit 1; }

{
    echo "#include \"$here/tests/unit/emu_block_rt.hpp\""
    for ns in orig cand ref; do
        echo "namespace $ns {"; cat "$out/$ns.cu"; echo "}"
    done
    cat "$here/bench/accuracy/wild_layernorm1_emu.cpp"
} >"$out/replay.cpp"
g++ -std=gnu++17 -O2 -ffp-contract=off -w -I/usr/local/cuda/include -o "$out/replay" "$out/replay.cpp"
"$out/replay" "${SIZE:-1}" "${DISTS:-2}" "${SEEDS:-5}"
