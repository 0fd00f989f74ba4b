#!/bin/sh
# Builds bench/accuracy/ref64 (the fp64-reference rule on the suite's kernels, see ref64.cu)
# from the fp64 shadows and the engine's rewrites that the unit tests write:
#   bench/accuracy/build.sh [BUILD_DIR] [OUT_DIR]    (defaults: build, carry)
# Run OUT_DIR/ref64 [kernel] on the GPU machine.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
mkdir -p "${2:-$here/carry}"
out=$(cd "${2:-$here/carry}" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p "$out/accuracy"
dump=$out/accuracy

HK_PROMOTE_DUMP_DIR=$dump "$build/tests/test_engine_promote" >"$dump/promote.log" 2>&1 ||
    { cat "$dump/promote.log"; echo "test_engine_promote failed" >&2; exit 1; }
for t in pattern rows; do
    HK_RWP_DUMP_DIR=$dump "$build/tests/test_engine_rewrite_$t" >"$dump/$t.log" 2>&1 ||
        { cat "$dump/$t.log"; echo "test_engine_rewrite_$t failed" >&2; exit 1; }
done

src=$here/bench/accuracy
"$nvcc" -O3 -arch=sm_90 -std=c++17 -use_fast_math -c "$src/fast.cu" -o "$dump/fast.o"
"$nvcc" -O3 -arch=sm_90 -std=c++17 -I"$dump" -c "$src/shadow.cu" -o "$dump/shadow.o"
"$nvcc" -O3 -arch=sm_90 -std=c++17 \
    "-DHK_RW_SOFTMAX=\"$dump/softmax.softmax.cu\"" "-DHK_RW_LAYERNORM=\"$dump/layernorm.layernorm.cu\"" \
    "-DHK_RW_RMSNORM=\"$dump/rmsnorm.warp_rows.cu\"" "-DHK_RW_REDUCE_SUM=\"$dump/reduce_sum.reduce.cu\"" \
    "-DHK_RW_DOT=\"$dump/dot.reduce.cu\"" "-DHK_RW_SUM_ROWS=\"$dump/sum_rows.warp_rows.cu\"" \
    "-DHK_RW_GEMV=\"$dump/gemv.warp_rows.cu\"" \
    -c "$src/ref64.cu" -o "$dump/ref64.o"
"$nvcc" -arch=sm_90 "$dump/ref64.o" "$dump/fast.o" "$dump/shadow.o" -o "$out/ref64"
echo "built $out/ref64"
