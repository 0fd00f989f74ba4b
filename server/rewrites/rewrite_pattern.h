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
#include "rewrites/rewrite.h"

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

/* A shared-memory tree reduction over one block (sum, max or min of S[threadIdx.x] into
 * S[0], in any spelling the kernel model reads as one: rewrite_block_tree.c) → warp
 * shuffles and one shared slot per warp leaving the same S[0]; the code before and after
 * the tree, the outputs and the launch are kept. block_reduce's path when warp_reduce
 * refuses. */
int rw_block_tree(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out);
/* The same with key: a (value, index) tree becomes one max of a 64-bit key (the value's
 * order, the slot's tie rank in the halving tree) instead of the transposed shuffles;
 * other trees are as rw_block_tree's. block_reduce's parameter key. */
int rw_block_tree_form(const char *text, size_t len, const an_model *m, size_t kernel, bool key, rw_result *out);
struct spec;
/* rw_block_tree_form with the bench spec sp (NULL: none): a scalar parameter that sp makes
 * equal to the block along x at every size set (rw_spec_block_x_param) is read as
 * blockDim.x, so a tree from `block_size / 2` is the whole block's; otherwise the refusal
 * names that parameter and why it is not the block size. */
int rw_block_tree_spec(const char *text, size_t len, const an_model *m, size_t kernel, bool key,
                       const struct spec *sp, rw_result *out);
/* The reason rw_block_tree gives when the kernel has no tree at all (block_reduce then
 * reports warp_reduce's reason instead). */
#define RW_NO_TREE "no shared-memory tree (a halving or doubling loop combining a __shared__ array with itself)"

/* i = <1D index>; if (i < n) atomicAdd(&hist[BIN], VALUE) on global memory → a per-block
 * shared histogram of `bins` counters (0: inferred -- 256 for a bin read from an 8-bit
 * array, K for `... % K` with K a literal or a constant; else 256), merged with one atomic
 * per non-zero bin per block. A bin outside [0, bins) goes to global memory directly, so a
 * wrong guess costs speed, never correctness. bins * counter size must fit 32 KiB. As in
 * rw_warp_reduce, HK_MAX_BLOCKS (1024) blocks along x do the work, so each block counts
 * many elements before its merge. */
int rw_privatized_histogram(const char *text, size_t len, const an_model *m, size_t kernel,
                            int bins, rw_result *out);

/* ---- the histogram view (used by rw_privatized_histogram and rewrite_hist.c) ---- */

#define RWP_HIST_EXPR 512

/* What rwp_match_histogram proved about `i = <1D index over x>; if (i < bound)
 * atomicAdd(&hist[BIN], VALUE);` (or the early-return form, or `hist + BIN`): strings are
 * the kernel's own token texts, NUL-terminated. */
typedef struct {
    const an_param *hist;            /* borrowed from the model: the histogram parameter */
    char type[RWP_HIST_EXPR];        /* its counter type, canonical: "unsigned int", "int",
                                      * "unsigned long long", "long long", "float", "double" */
    char index[RWP_HIST_EXPR];       /* the index's name */
    char index_type[RWP_HIST_EXPR];  /* its declared type, const dropped ("int", "long") */
    char bound[RWP_HIST_EXPR];       /* the bound it is checked against */
    char bin[RWP_HIST_EXPR];         /* BIN: uses only the index, parameters, tunables */
    char value[RWP_HIST_EXPR];       /* VALUE: free of side effects, does not read hist */
    long bins;                       /* the bin count: given, inferred (256 for an 8-bit
                                      * unsigned array, K for `... % K`), else 256 (guessed) */
    bool given, guessed;             /* bins came from the caller / is a guess */
    const an_param *bytes;           /* borrowed: BIN is exactly `bytes[index]` and bytes
                                      * points to an 8-bit type; else NULL */
    char byte_type[RWP_HIST_EXPR];   /* bytes' element type without qualifiers ("unsigned
                                      * char", "uint8_t", "char", "signed char", "int8_t") */
} rwp_hist;

/* Recognizes the global-atomic histogram rw_privatized_histogram rewrites (the same
 * checks, the same reasons). bins: 0 infers, else 1..32768 is taken as given. Returns
 * HK_OK with why[0] == '\0' and out filled when it matched, or HK_OK with the reason in why
 * (why_size bytes; out->hist NULL) when not; HK_EINVAL (bad kernel index, why NULL or
 * why_size 0, bins out of range), HK_ENOMEM. Any thread; out borrows from m. */
int rwp_match_histogram(const char *text, size_t len, const an_model *m, size_t kernel, int bins,
                        rwp_hist *out, char *why, size_t why_size);

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
 * original epilogue is kept verbatim for each output element. float or double. Without the
 * `if` (the launch alone gives M and N), M and N are the launch's gridDim.y * blockDim.y and
 * gridDim.x * blockDim.x when the kernel model's class maps rows to .y and columns to .x
 * exactly (rwp_launch_extent); the result then has keeps_grid (another grid would be
 * another matrix); an unexact mapping is refused with the index named. A batched GEMM
 * (rwp_match_blas's RWP_BLAS_GEMM_BATCHED: the batch index from blockIdx.z under the guard,
 * each matrix a batch stride apart, the one store C = alpha*sum + beta*C) walks every
 * batch's tiles as one grid-stride range, batch slowest, reading each batch's matrices
 * through pointers moved by its strides; the store is rebuilt from that view. */
int rw_tiled_gemm(const char *text, size_t len, const an_model *m, size_t kernel, int tile_m,
                  int tile_n, int tile_k, rw_result *out);

/* ---- the BLAS view of a naive GEMM / GEMV (used by rw_blas_substitution) ---- */

enum rwp_blas_kind {
    RWP_BLAS_GEMM,          /* C = alpha * A * B + beta * C, row from .y, col from .x */
    RWP_BLAS_GEMM_BATCHED,  /* the same per batch index b from .z, matrices `stride` apart */
    RWP_BLAS_GEMV,          /* y = alpha * A * x + beta * y, one thread per row (.x) */
};

#define RWP_EXPR 512

/* What rwp_match_blas proved, as kernel-side expression texts (compact: no spaces, casts to
 * builtin types dropped) in the kernel's parameters. All strings NUL-terminated. */
typedef struct {
    enum rwp_blas_kind kind;
    char type[RWP_EXPR];         /* element type shared by A, B, C and the accumulator */
    const an_param *a, *b, *c;   /* borrowed from the model: A (M x K; GEMV M x N), B (K x N;
                                  * GEMV: x), C (M x N; GEMV: y) -- found from the index
                                  * expressions, never from their position */
    char m[RWP_EXPR], n[RWP_EXPR], k[RWP_EXPR]; /* GEMV: m rows, n the loop bound, k "" */
    char batch[RWP_EXPR];        /* batched: the bound of the z index; else "" */
    char lda[RWP_EXPR], ldb[RWP_EXPR], ldc[RWP_EXPR];    /* GEMV: lda only */
    char stride_a[RWP_EXPR], stride_b[RWP_EXPR], stride_c[RWP_EXPR]; /* batched; "0": shared */
    char alpha[RWP_EXPR], beta[RWP_EXPR];   /* "1" / "0" when the kernel has none */
} rwp_blas;

/* Recognizes the naive GEMM of rw_tiled_gemm (same accumulator and k-loop matcher) in its
 * plain, batched (`int b = blockIdx.z;` in the guard, `const float *a = A + b * M * K;`
 * locals or the offset in the index) and GEMV (1D, `acc += A[row * N + j] * x[j]`) forms,
 * stricter than the tiled rewrite: every index must be row-major with unit stride along
 * its last dimension, and after the loop comes exactly one store
 * `C[row * ldc + col] = [alpha *] acc [+ beta * C[row * ldc + col]];` (GEMV: y[row]) to a
 * third, non-const pointer parameter, so each output is written once and nothing else
 * changes. Returns HK_OK with why[0] == '\0' and out filled when it matched, or HK_OK with
 * the reason in why (why_size bytes) when not; HK_EINVAL (bad kernel index, why NULL),
 * HK_ENOMEM. Element types are reported, not filtered (double matches too). */
int rwp_match_blas(const char *text, size_t len, const an_model *m, size_t kernel, rwp_blas *out,
                   char *why, size_t why_size);

#endif
