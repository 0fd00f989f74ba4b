#!/usr/bin/env bash
# The styles table (issue 13 item 4): for each of our own kernels in tests/data/styles/, the
# kernel model's class and whether the rewrite(s) its class should get apply, with the first
# refusal. CPU only: `hkls rewrites --json` per kernel.
#   tests/data/styles/table.sh            (HKLS=path/to/hkls, default ./build/hkls)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
hkls=${HKLS:-$here/../../../build/hkls}
command -v jq >/dev/null || { echo "table.sh: needs jq" >&2; exit 2; }
# file kernel spelling expected-rewrites (space separated, first that applies counts)
rows=(
"gemm.cu|gemm_xrows_unsigned|x rows, unsigned, local acc, alpha/beta|blas_substitution tiled_gemm"
"gemm.cu|gemm_yrows_int|y rows, int, local acc, alpha/beta|blas_substitution tiled_gemm"
"gemm.cu|gemm_kloop_global|beta prescale, k loop into c[i*NJ+j], macros|blas_substitution tiled_gemm"
"gemm.cu|gemm_kloop_global_sizet|beta prescale, k loop into global, size_t|blas_substitution tiled_gemm"
"gemm.cu|syrk_kloop_global|rank-k, beta prescale, k loop into global|blas_substitution tiled_gemm"
"gemm.cu|syrk_local|rank-k, local fmaf acc, early return|blas_substitution tiled_gemm"
"gemv.cu|gemv_rows_global|row per thread, tmp[i] += in the loop|warp_rows blas_substitution"
"gemv.cu|gemv_rows_local|row per thread, local acc, unsigned|warp_rows blas_substitution"
"gemv.cu|gemv_rows_macro|row per thread, N macro, alpha/beta, early return|warp_rows blas_substitution"
"gemv.cu|gemv_cols_global|column per thread, y[j] += in the loop|coalesced_columns split_k_columns blas_substitution"
"transpose.cu|transpose_inout|index_in/index_out, unsigned|tiled_transpose"
"transpose.cu|transpose_macro_rows|TILE_DIM/BLOCK_ROWS macros, row loop|tiled_transpose"
"transpose.cu|transpose_yx|r from x, c from y|tiled_transpose"
"histogram.cu|bincount_template|template<T>, atomicAdd(&bins[in[i]], 1)|privatized_histogram histogram_lane_replicas"
"histogram.cu|bincount_stride|grid-stride, size_t, % nbins|privatized_histogram histogram_lane_replicas"
"histogram.cu|bincount_weighted|weighted, bin in a temporary, atomicAdd(out + b, w)|privatized_histogram histogram_lane_replicas"
"stencil.cu|stencil1d_radius|RADIUS macro, offset loop|stencil_window stencil_tile_1d"
"stencil.cu|heat2d|5 explicit terms, i from y|stencil_window"
"stencil.cu|conv2d_nine_terms|3x3 as 9 terms, scalar weights, i from x|stencil_window"
"stencil.cu|conv2d_mask|mask array, two loops, inner guard|stencil_window"
"stencil.cu|conv1d_mask|mask array, mask_len parameter|stencil_window"
"stencil.cu|maxpool3d|3 window loops, fmaxf|stencil_window window_lanes window_warp"
"reduce.cu|column_mean|std pass 1: mean[j] += in the loop|coalesced_columns split_k_columns"
"reduce.cu|column_std|std pass 2: sqrt of a column sum in global|coalesced_columns split_k_columns"
"reduce.cu|row_sum|row per thread, local acc|warp_rows"
"reduce.cu|ln_stats|layernorm kernel 1: row mean and rstd|warp_rows online_layernorm"
"reduce.cu|ln_apply|layernorm kernel 2: normalize|vectorize coarsen"
"misc.cu|scan_bank_conflicts|up/down sweep in shared memory|shared_padding"
"misc.cu|adam|optimizer, 4 streams|vectorize coarsen"
"misc.cu|gelu_bias_half|__half, bias by column, grid-stride|vectorize coarsen"
"more.cu|gelu_bias_hadd|__half, __hadd bias, erf GELU, out of place|vectorize coarsen"
"more.cu|adam_powf|4 streams, weight decay, powf bias correction, size_t|vectorize coarsen"
"more.cu|conv1d_const|mask in __constant__, MASK_WIDTH macro, temp index|stencil_window"
"more.cu|softmax_row_max|softmax kernel 1: row max, fmaxf|warp_rows"
"more.cu|softmax_exp_div|softmax kernel 2: exp written, summed, divided|warp_rows"
"more.cu|bincount_weighted_int|int weights, bin in a temporary, atomicAdd(out + b, w)|privatized_histogram histogram_lane_replicas"
)
echo "| file | kernel | spelling | class (near) | expected rewrites | applies | refusals of the others |"
echo "|---|---|---|---|---|---|---|"
ok=0 all=0 n=0
for r in "${rows[@]}"; do
    IFS='|' read -r f k sp exp <<<"$r"
    spec=(); [ -f "$here/${k}.bench.json" ] && spec=(--spec "$here/${k}.bench.json")
    n=$((n+1))
    j=$("$hkls" rewrites "$here/$f" --kernel "$k" "${spec[@]}" --device 132,64 --json 2>/dev/null) || { echo "| $f | $k | $sp | (error) | $exp | - | - |"; continue; }
    cls=$(jq -r '.class // "none"' <<<"$j"); near=$(jq -r '.near // empty' <<<"$j")
    [ "$cls" = none ] && [ -n "$near" ] && cls="none (near $near)"
    if [ "$exp" = - ]; then echo "| $f | $k | $sp | $cls | (the registry has no rewrite for this class) | - | - |"; continue; fi
    got="" why="" miss=0
    for w in $exp; do
        a=$(jq -r --arg w "$w" '.rewrites[] | select(.name==$w) | .applies' <<<"$j")
        if [ "$a" = true ]; then got="${got:+$got, }$w"; continue; fi
        miss=1
        why="${why:+$why; }$w: $(jq -r --arg w "$w" '.rewrites[] | select(.name==$w) | "\(.construct // "") line \(.line // "-"): \(.reason // "")"' <<<"$j" | cut -c1-140)"
    done
    [ -n "$got" ] && ok=$((ok+1)); [ $miss = 0 ] && all=$((all+1))
    echo "| $f | $k | $sp | $cls | $exp | ${got:-no} | ${why//|/\\|} |"
done
echo; echo "$n kernels: $ok get at least one rewrite their class should get, $all get every one listed"
