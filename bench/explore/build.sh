#!/bin/sh
# Builds bench/explore/variants.cu with the engine's current rewrites of the suite kernels:
# the rewrite tests write them (HK_RWP_DUMP_DIR, HK_RWH_GPU_DIR), this script renames their
# kernels so they can sit beside the hand-written variants, then compiles one program.
#   bench/explore/build.sh [BUILD_DIR] [OUT_DIR]    (defaults: build, carry)
# Run OUT_DIR/variants [rope|stencil|hist|reduce] on the GPU machine (HK_WARM=1: back to back).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
mkdir -p "${2:-$here/carry}"
out=$(cd "${2:-$here/carry}" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
dump=$(mktemp -d)
trap 'rm -rf "$dump"' EXIT

for t in pattern table grid2d; do
    HK_RWP_DUMP_DIR=$dump "$build/tests/test_engine_rewrite_$t" >"$dump/$t.log" 2>&1 ||
        { cat "$dump/$t.log"; echo "test_engine_rewrite_$t failed" >&2; exit 1; }
done
HK_RWH_GPU_DIR=$dump "$build/tests/test_engine_rewrite_hist" >"$dump/hist.log" 2>&1 ||
    { cat "$dump/hist.log"; echo "test_engine_rewrite_hist failed" >&2; exit 1; }

cp "$dump/histogram_rw.cu" "$out/histogram_rw.cu"
cp "$dump/reduce_sum.reduce.cu" "$out/reduce_sum.reduce.cu"
cp "$dump/dot.reduce.cu" "$out/dot.reduce.cu"
sed 's/#pragma unroll 4/#pragma unroll 8/; s/reduce_sum/reduce_sum_u8/g' \
    "$dump/reduce_sum.reduce.cu" > "$out/reduce_sum_u8.cu"
sed 's/rope_forward/rope_engine/g' "$dump/rope_grid_stride.invariant_table.cu" > "$out/rope_engine.cu"
sed 's/rope_forward/rope_engine_r/g; s/const float \*x, float \*out/const float *__restrict__ x, float *__restrict__ out/' \
    "$dump/rope_grid_stride.invariant_table.cu" > "$out/rope_engine_r.cu"
sed 's/stencil2d/stencil_engine/g' "$dump/stencil2d.grid_stride_2d.cu" > "$out/stencil_engine.cu"
HK_REWRITE_MEM_OUT=$dump/mem "$build/tests/test_engine_rewrite_mem" >"$dump/mem.log" 2>&1 ||
    { cat "$dump/mem.log"; echo "test_engine_rewrite_mem failed" >&2; exit 1; }
sed 's/rope_forward/rope_engine_vec/g' "$dump/mem/rope_forward__table_vec4.cu" > "$out/rope_engine_vec.cu"

"$nvcc" -O3 -arch=sm_90 -std=c++17 \
    "-DHK_HIST_RW=\"$out/histogram_rw.cu\"" \
    "-DHK_REDUCE_RW=\"$out/reduce_sum.reduce.cu\"" "-DHK_REDUCE_U8=\"$out/reduce_sum_u8.cu\"" \
    "-DHK_DOT_RW=\"$out/dot.reduce.cu\"" \
    "-DHK_ROPE_RW=\"$out/rope_engine.cu\"" "-DHK_ROPE_RW_R=\"$out/rope_engine_r.cu\"" \
    "-DHK_STENCIL_RW=\"$out/stencil_engine.cu\"" "-DHK_ROPE_VEC=\"$out/rope_engine_vec.cu\"" \
    -o "$out/variants" "$here/bench/explore/variants.cu"
echo "built $out/variants"
