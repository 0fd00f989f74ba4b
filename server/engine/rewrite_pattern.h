/* Structural pattern rewrites of one kernel for the built-in engine (issue 5, "Rewrites"):
 * each recognizes a naive kernel shape (tiled transpose, reductions, histograms, row-wise
 * softmax/layernorm, GEMM) from the analysis model and a token scan of the body, and
 * replaces the body -- name, signature and parameter order kept -- by an optimized one.
 * Pure functions on text, any thread (once an_grammar_check has run). */
#ifndef HK_ENGINE_REWRITE_PATTERN_H
#define HK_ENGINE_REWRITE_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/analysis.h"
#include "engine/rewrite.h"

/* Contract shared by every rewrite below (the same as rewrite.h's):
 * text/len is the source that model m (borrowed) was built from; kernel indexes m->funcs
 * and must be an AN_KERNEL. Returns HK_OK with out->applicable true (the whole new source in
 * out->text) or false (out->description says why: a normal outcome); HK_EINVAL for bad
 * arguments (index out of range, not a kernel, span outside the text, tunable out of range);
 * HK_ENOMEM; HK_EPARSE when the rewritten text does not re-analyse cleanly (out is then not
 * applicable, with the reason). out is always initialised; free it with rw_result_free.
 *
 * Thread mapping. The new bodies never assume the launch the spec uses: work is
 * grid-strided (over tiles, rows or elements) and the block size is read from blockDim,
 * with the thread index linearized over x, y, z, so any grid and any block give the same
 * answer as the original kernel gives with a launch that covers its data. Partial warps
 * (block sizes that are not a multiple of 32) shuffle under the mask of the lanes that
 * exist. Work that needs a fixed thread count (the GEMM's register blocking) checks the
 * block at run time and otherwise takes a simple grid-stride path in the same kernel.
 * Tile and bin sizes are `constexpr int HK_...` constants inside the new body, so the
 * analysis lists them as tunables and rw_set_tunable can change them. */

/* out[x * H + y] = in[y * W + x] with x, y from blockIdx/blockDim/threadIdx .x and .y and
 * bounds x < W, y < H (if-block or early-return form) → a shared-memory tile
 * [HK_TILE][HK_TILE + 1] (the padding column keeps the transposed read free of bank
 * conflicts), coalesced reads and writes, every thread of the block looping over the tile
 * (with 256 threads: 8 rows of 32 per step). tile: 8..64, a multiple of 8 (32 is usual). */
int rw_tiled_transpose(const char *text, size_t len, const an_model *m, size_t kernel, int tile,
                       rw_result *out);

/* A reduction into one location, either per-thread atomics
 *     i = <1D index>; if (i < n) atomicAdd(out, EXPR);      (also atomicMax / atomicMin,
 *                                                            `if (cond) atomicAdd(...)`)
 * or a shared-memory tree (`sdata[tid] = i < n ? EXPR : 0; __syncthreads();
 * for (s = blockDim.x / 2; s > 0; s >>= 1) ...; if (tid == 0) atomicAdd(out, sdata[0]);`)
 * → grid-stride accumulation in a register, __shfl_down_sync within each warp, one shared
 * slot per warp, one atomic per block. Only the first HK_MAX_BLOCKS (1024) blocks along x
 * work, the others return at once: the spec's grid (one thread per element) would otherwise
 * cost one atomic per 256 elements. Accumulator types: float, double, int, unsigned,
 * long long, unsigned long long. The order of floating-point additions changes. */
int rw_warp_reduce(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out);

/* i = <1D index>; if (i < n) atomicAdd(&hist[BIN], VALUE) on global memory → a per-block
 * shared histogram of `bins` counters (0: inferred -- 256 for a bin read from an 8-bit
 * array, K for `... % K` with K a literal or a constant; else 256), merged with one atomic
 * per non-zero bin per block. A bin outside [0, bins) goes to global memory directly, so a
 * wrong guess costs speed, never correctness. bins * counter size must fit 32 KiB. As in
 * rw_warp_reduce, HK_MAX_BLOCKS (1024) blocks along x do the work, so each block counts
 * many elements before its merge. */
int rw_privatized_histogram(const char *text, size_t len, const an_model *m, size_t kernel,
                            int bins, rw_result *out);

/* One-thread-per-row float softmax (passes: max, sum of exp(x - max), write exp(x - max) /
 * sum) → one warp per row, rows grid-strided over the warps, one online max/sum pass
 * merged by shuffles, then the write pass; float4 loads and stores when cols % 4 == 0 and
 * the rows are 16-byte aligned (checked at run time). */
int rw_online_softmax(const char *text, size_t len, const an_model *m, size_t kernel,
                      rw_result *out);

/* One-thread-per-row float layernorm (passes: mean, variance of (x - mean), write
 * (x - mean) * rstd [* gamma[c]] [+ beta[c]]) → one warp per row, shuffle sums for the mean
 * and the centred variance (the same two-pass arithmetic, so the result stays as exact),
 * float4 where cols % 4 == 0 and rows are aligned. */
int rw_online_layernorm(const char *text, size_t len, const an_model *m, size_t kernel,
                        rw_result *out);

/* The naive GEMM `row`, `col` from the 2D index, `if (row < M && col < N)`,
 * `acc = 0; for (k = 0; k < K; k++) acc += A[row * LDA + k] * B[k * LDB + col];` and any
 * epilogue statements that use acc, row, col and the parameters → a shared-memory tiled
 * GEMM with register blocking: tiles tile_m x tile_n x tile_k (tile_m, tile_n in
 * {32, 64, 128}; tile_k in {8, 16, 32}); each thread computes an 8x8 (tiles of 128) or 4x4
 * block of outputs, so the tiled path needs (tile_m / TM) * (tile_n / TN) threads per block
 * (HK_THREADS); other block sizes take a grid-stride path over the outputs. Loads are
 * bounds-checked (zero padding), so any M, N, K work; output tiles are grid-strided. The
 * original epilogue is kept verbatim for each output element. float or double. */
int rw_tiled_gemm(const char *text, size_t len, const an_model *m, size_t kernel, int tile_m,
                  int tile_n, int tile_k, rw_result *out);

#endif
