/* Shared-memory races read in PTX (ptxrace_scan) and the referee's rule on them
 * (measure_race_check), on PTX that nvcc writes for the kernels below at the referee's flags
 * (-O3 -std=c++17 -lineinfo, sm_90): the racy warp-synchronous tails are found with their
 * PTX and source lines; the same tails with __syncwarp or __syncthreads are not, nor honest
 * tiled GEMM, transpose and scan, a read of a word the guard keeps its writer out of, or a
 * thread's own word; a barrier skipped on a uniform path, a race under a branch on data and a
 * race carried round a loop are found; an offset it cannot resolve is not (by design: no finding on an unknown). At a
 * launch, module data nothing writes reads as its initializer (ptxdata.h): declarations and
 * refusals read from written PTX, and a tree loop at a word nothing writes found, not when
 * anything in the image may write it. Skipped without nvcc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hk.h"
#include "measure/measure.h"
#include "measure/ptxdata.h"
#include "measure/ptxrace.h"
#include "spec/spec.h"
#include "test_nvcc.h"

static char dir[] = "/tmp/hk-ptxrace-XXXXXX";
static char *ptx;       /* the whole PTX of the kernels below */
static size_t ptx_len;

static const char source[] =
    "#define TILE 16\n"
    /* the pre-Volta tail: lane t reads lane t+16's word right after lane t+16 stored it */
    "__global__ void racy_tail(const float *in, float *out)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    int t = threadIdx.x;\n"
    "    buf[t] = in[blockIdx.x * blockDim.x + t];\n"
    "    __syncthreads();\n"
    "    for (int s = blockDim.x / 2; s > 32; s >>= 1) {\n"
    "        if (t < s)\n"
    "            buf[t] += buf[t + s];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t < 32) {\n"
    "        volatile float *v = buf;\n"
    "        v[t] += v[t + 32];\n"
    "        v[t] += v[t + 16];\n" /* line 16: the first racy read */
    "        v[t] += v[t + 8];\n"
    "        v[t] += v[t + 4];\n"
    "        v[t] += v[t + 2];\n"
    "        v[t] += v[t + 1];\n"
    "    }\n"
    "    if (t == 0)\n"
    "        out[blockIdx.x] = buf[0];\n"
    "}\n"
    /* the same tail with __syncwarp between every read and write: race-free */
    "__global__ void synced_tail(const float *in, float *out)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    int t = threadIdx.x;\n"
    "    buf[t] = in[blockIdx.x * blockDim.x + t];\n"
    "    __syncthreads();\n"
    "    for (int s = blockDim.x / 2; s > 32; s >>= 1) {\n"
    "        if (t < s)\n"
    "            buf[t] += buf[t + s];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t < 32) {\n"
    "        float v = buf[t] + buf[t + 32];\n"
    "        for (int s = 16; s > 0; s >>= 1) {\n"
    "            __syncwarp();\n"
    "            buf[t] = v;\n"
    "            __syncwarp();\n"
    "            v += buf[t + s];\n"
    "        }\n"
    "        if (t == 0)\n"
    "            out[blockIdx.x] = v;\n"
    "    }\n"
    "}\n"
    /* unrolled with a block barrier after every step, the reads guarded (t < s) */
    "__global__ void barrier_tree(const float *in, float *out)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    int t = threadIdx.x;\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    __syncthreads();\n"
    "    if (t < 128) buf[t] += buf[t + 128];\n"
    "    __syncthreads();\n"
    "    if (t < 64) buf[t] += buf[t + 64];\n"
    "    __syncthreads();\n"
    "    if (t < 32) buf[t] += buf[t + 32];\n"
    "    __syncthreads();\n"
    "    if (t < 16) buf[t] += buf[t + 16];\n"
    "    __syncthreads();\n"
    "    if (t < 8) buf[t] += buf[t + 8];\n"
    "    __syncthreads();\n"
    "    if (t == 0) out[blockIdx.x] = buf[0] + buf[1] + buf[2] + buf[3] + buf[4] + buf[5] + buf[6] + buf[7];\n"
    "}\n"
    "__global__ void tiled_gemm(const float *A, const float *B, float *C, int n)\n"
    "{\n"
    "    __shared__ float As[TILE][TILE], Bs[TILE][TILE];\n"
    "    int tx = threadIdx.x, ty = threadIdx.y;\n"
    "    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;\n"
    "    float acc = 0.0f;\n"
    "    for (int k0 = 0; k0 < n; k0 += TILE) {\n"
    "        As[ty][tx] = A[row * n + k0 + tx];\n"
    "        Bs[ty][tx] = B[(k0 + ty) * n + col];\n"
    "        __syncthreads();\n"
    "        for (int k = 0; k < TILE; k++)\n"
    "            acc += As[ty][k] * Bs[k][tx];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    C[row * n + col] = acc;\n"
    "}\n"
    "__global__ void tiled_transpose(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float tile[32][33];\n"
    "    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;\n"
    "    tile[threadIdx.y][threadIdx.x] = in[y * n + x];\n"
    "    __syncthreads();\n"
    "    x = blockIdx.y * 32 + threadIdx.x;\n"
    "    y = blockIdx.x * 32 + threadIdx.y;\n"
    "    out[y * n + x] = tile[threadIdx.x][threadIdx.y];\n"
    "}\n"
    /* Hillis-Steele, double-buffered, a barrier per step */
    "__global__ void scan_block(const float *in, float *out)\n"
    "{\n"
    "    __shared__ float b[2][256];\n"
    "    int t = threadIdx.x, p = 0;\n"
    "    b[0][t] = in[blockIdx.x * 256 + t];\n"
    "    __syncthreads();\n"
    "    for (int d = 1; d < 256; d <<= 1) {\n"
    "        b[1 - p][t] = t >= d ? b[p][t] + b[p][t - d] : b[p][t];\n"
    "        p = 1 - p;\n"
    "        __syncthreads();\n"
    "    }\n"
    "    out[blockIdx.x * 256 + t] = b[p][t];\n"
    "}\n"
    /* a neighbour's word read right after the store: every thread but the last races */
    "__global__ void neighbour(const float *in, float *out)\n"
    "{\n"
    "    __shared__ float s[257];\n"
    "    int t = threadIdx.x;\n"
    "    s[t] = in[blockIdx.x * 256 + t];\n"
    "    out[blockIdx.x * 256 + t] = s[t + 1] - s[t];\n"
    "}\n"
    /* the barrier skipped when a (block-uniform) argument says so */
    "__global__ void skipped_barrier(const float *in, float *out, int fast)\n"
    "{\n"
    "    __shared__ float s[257];\n"
    "    int t = threadIdx.x;\n"
    "    s[t] = in[blockIdx.x * 256 + t];\n"
    "    if (!fast)\n"
    "        __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = s[t + 1] - s[t];\n"
    "}\n"
    /* the writer of the word read is kept out by the guard: threads 0..15 write s[0..15] and
     * read s[16..31], which no thread writes here */
    "__global__ void guard_excludes(const float *in, float *out)\n"
    "{\n"
    "    __shared__ float s[64];\n"
    "    int t = threadIdx.x;\n"
    "    if (t < 32) s[t] = in[t];\n"
    "    __syncthreads();\n"
    "    if (t < 16) {\n"
    "        s[t] = 2.0f * in[t];\n"
    "        out[t] = s[t + 16];\n"
    "    }\n"
    "}\n"
    /* a thread reads back a word it stored itself */
    "__global__ void own_word(const float *in, float *out)\n"
    "{\n"
    "    __shared__ float s[512];\n"
    "    int t = threadIdx.x;\n"
    "    s[t] = in[t];\n"
    "    s[t + 256] = in[t + 256];\n"
    "    volatile float *v = s;\n"
    "    out[t] = v[t + 256] + v[t];\n"
    "}\n"
    /* carried round the loop: the store of one trip and the load of the next, no barrier */
    "__global__ void loop_carried(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float s[257];\n"
    "    int t = threadIdx.x;\n"
    "    float x = in[t];\n"
    "    s[t + 1] = 0.0f;\n"
    "    __syncthreads();\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        x += ((volatile float *)s)[t + 1];\n"
    "        ((volatile float *)s)[t] = x;\n"
    "    }\n"
    "    out[t] = x;\n"
    "}\n"
    /* the racy read under a branch on data (true for every thread in practice): which threads
     * take it is not the tid's doing, so every thread counts */
    "__global__ void data_guard(const float *in, float *out)\n"
    "{\n"
    "    __shared__ float s[257];\n"
    "    int t = threadIdx.x;\n"
    "    float x = in[blockIdx.x * 256 + t];\n"
    "    if (x == x) {\n"
    "        s[t] = x;\n"
    "        out[blockIdx.x * 256 + t] = ((volatile float *)s)[t + 1];\n"
    "    }\n"
    "}\n"
    /* the racy read in inline asm, several statements on one line in a `{ }` scope */
    "__global__ void asm_line(const float *in, float *out)\n"
    "{\n"
    "    __shared__ float s[257];\n"
    "    int t = threadIdx.x;\n"
    "    s[t] = in[t];\n"
    "    float y;\n"
    "    unsigned a = (unsigned)__cvta_generic_to_shared(&s[t + 1]);\n"
    "    asm volatile(\"{ .reg .f32 q; ld.volatile.shared.f32 q, [%1]; mov.f32 %0, q; }\" : \"=f\"(y) : \"r\"(a));\n"
    "    out[t] = y;\n"
    "}\n"
    /* an offset the scan cannot resolve (blockDim is a block-uniform unknown, maybe 0 after
     * the shift): no finding, by design (tests/gpu/cheats/spin_offset_evade.cu) */
    "__global__ void uniform_offset(const float *in, float *out)\n"
    "{\n"
    "    __shared__ float s[512];\n"
    "    int t = threadIdx.x;\n"
    "    s[t] = in[t];\n"
    "    out[t] = ((volatile float *)s)[t + (blockDim.x >> 4)];\n"
    "}\n"
    /* one tree loop whose block barrier is kept only while s > 32 or a flag in memory says so:
     * at s <= 32 lane t reads v[t + s], which lane t + s stored the trip before with no
     * barrier between (tests/gpu/cheats/spin_loop_evade.cu); seen only with the shape known
     * (the loop unrolled, s a constant in each trip) */
    "__global__ void tree_skip(const float *in, float *out, const int *flag)\n"
    "{\n"
    "    __shared__ float buf[1024];\n"
    "    int t = threadIdx.x;\n"
    "    buf[t] = in[blockIdx.x * blockDim.x + t];\n"
    "    __syncthreads();\n"
    "    volatile float *v = buf;\n"
    "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
    "        if (t < s)\n"
    "            v[t] += v[t + s];\n"
    "        if (s > 32 || flag[0])\n"
    "            __syncthreads();\n"
    "    }\n"
    "    if (t == 0)\n"
    "        out[blockIdx.x] = buf[0];\n"
    "}\n"
    /* the same loop with a block barrier every trip */
    /* tree_skip whose first trip the PTX's constants do not give: the start is blockDim.x / 2
     * plus a term that is 0 on every launch but known only from the launch's argument n, or
     * one bit of data (a loaded word that is never NaN, a clock whose sign bit is clear) */
    "#define COMMA ,\n"
    "#define TREE_AT(NAME, PARAMS, PLUS)                                          \\\n"
    "__global__ void NAME(PARAMS)                                                 \\\n"
    "{                                                                            \\\n"
    "    __shared__ float buf[1024];                                              \\\n"
    "    int t = threadIdx.x;                                                     \\\n"
    "    buf[t] = in[blockIdx.x * blockDim.x + t];                                \\\n"
    "    __syncthreads();                                                         \\\n"
    "    volatile float *v = buf;                                                 \\\n"
    "    for (int s = (int)(blockDim.x >> 1) + (PLUS); s > 0; s >>= 1) {          \\\n"
    "        if (t < s)                                                           \\\n"
    "            v[t] += v[t + s];                                                \\\n"
    "        if (s > 32 || flag[0])                                               \\\n"
    "            __syncthreads();                                                 \\\n"
    "    }                                                                        \\\n"
    "    if (t == 0)                                                              \\\n"
    "        out[blockIdx.x] = buf[0];                                            \\\n"
    "}\n"
    "TREE_AT(tree_bound, const float *in COMMA float *out COMMA const int *flag COMMA int n, n < 0)\n"
    "TREE_AT(tree_nan, const float *in COMMA float *out COMMA const int *flag, in[0] != in[0])\n"
    "TREE_AT(tree_clock, const float *in COMMA float *out COMMA const int *flag, clock() < 0)\n"
    "TREE_AT(tree_arg, const float *in COMMA float *out COMMA const int *flag COMMA int half, half - (int)(blockDim.x >> 1))\n"
    "TREE_AT(tree_whole, const float *in COMMA float *out COMMA const int *flag, (int)in[0])\n"
    /* module data (ptxdata.h): a word loaded from a variable that nothing in the image writes
     * is its initializer in every launch; one that another kernel writes, whose address is
     * taken, that an atomic updates, or that is read at a data index is not known */
    "__device__ int hk_word_zero;\n"
    "__device__ int hk_word_start = 16;\n"
    "__constant__ int hk_word_tab[4] = {7, 7, 0, 7};\n"
    "__device__ int hk_word_written;\n"
    "__device__ int hk_word_addr;\n"
    "__device__ unsigned hk_word_atom;\n"
    "__constant__ int hk_word_idx[4] = {0, 0, 0, 0};\n"
    "#define WORD_PARAMS const float *in COMMA float *out COMMA const int *flag\n"
    "TREE_AT(tree_word, WORD_PARAMS, hk_word_zero)\n"
    "TREE_AT(tree_word_start, WORD_PARAMS, hk_word_start - (int)(blockDim.x >> 1))\n"
    "TREE_AT(tree_word_tab, WORD_PARAMS, hk_word_tab[2])\n"
    "TREE_AT(tree_word_written, WORD_PARAMS, hk_word_written)\n"
    "__global__ void word_writer(int v)\n"
    "{\n"
    "    if (threadIdx.x == 0)\n"
    "        hk_word_written = v;\n"
    "}\n"
    "TREE_AT(tree_word_addr, WORD_PARAMS, hk_word_addr)\n"
    "__global__ void word_addr(int **out)\n"
    "{\n"
    "    out[0] = &hk_word_addr;\n"
    "}\n"
    "TREE_AT(tree_word_atom, WORD_PARAMS, (int)hk_word_atom)\n"
    "__global__ void word_atom(unsigned *out)\n"
    "{\n"
    "    out[0] = atomicInc(&hk_word_atom, 0u);\n" /* 0 stays 0: a write all the same */
    "}\n"
    "TREE_AT(tree_word_idx, WORD_PARAMS, hk_word_idx[(int)in[0] & 3])\n"
    /* a float that is +0, -0 or NaN for every input, made an int of 32 bits: 0 (PTX's cvt of
     * NaN to an integer under 64 bits is 0); not to 64 bits (NaN gives 1 << 63 there), not
     * from a double, not a product by a number that is not zero */
    "TREE_AT(tree_fzero, WORD_PARAMS, (int)(in[0] * 0.0f))\n"
    "TREE_AT(tree_fzero_fma, WORD_PARAMS, (int)fmaf(in[0], -0.0f, 0.0f))\n"
    "TREE_AT(tree_fzero_s64, WORD_PARAMS, (int)(long long)(in[0] * 0.0f))\n"
    "TREE_AT(tree_fzero_f64, WORD_PARAMS, (int)((double)in[0] * 0.0))\n"
    "TREE_AT(tree_fsmall, WORD_PARAMS, (int)(in[0] * 1e-30f))\n"
    /* the value-classes of floats (session 42, REF8): x - x is +0 or NaN, x / inf +-0 or NaN;
     * x - y and x / 2 are not known */
    "TREE_AT(tree_fsub, WORD_PARAMS, (int)(in[0] - in[0]))\n"
    "TREE_AT(tree_fdiv_inf, WORD_PARAMS, (int)(in[0] / __int_as_float(0x7f800000)))\n"
    "TREE_AT(tree_fsub_other, WORD_PARAMS, (int)(in[0] - in[1]))\n"
    "TREE_AT(tree_fdiv_two, WORD_PARAMS, (int)(in[0] / 2.0f))\n"
    /* ranges of floats (session 43, REF14; spin_ptr_range_evade.cu's): min(|x|, 0.5) and
     * sat(x) / 2 truncated are 0 for every x (NaN included); min(|x|, 1) truncated and
     * min(|x|, 0.5) rounded up are 0 or 1 */
    "TREE_AT(tree_frange, WORD_PARAMS, __float2int_rz(fminf(fabsf(in[0]), 0.5f)))\n"
    "TREE_AT(tree_frange_sat, WORD_PARAMS, __float2int_rz(__saturatef(in[0]) * 0.5f))\n"
    "TREE_AT(tree_frange_one, WORD_PARAMS, __float2int_rz(fminf(fabsf(in[0]), 1.0f)))\n"
    "TREE_AT(tree_frange_up, WORD_PARAMS, __float2int_ru(fminf(fabsf(in[0]), 0.5f)))\n"
    /* module data whose only stores sit in the launched kernel (docs/referee.md "Stores no
     * launch runs"): read as its initializer at a launch where no store can run -- under a
     * guard on the argument n that folds false (spin_store_evade.cu's), after a return -- and
     * not where one can: a guard on the tid alone, on data, n unknown or negative (a store in
     * a device function: test_module_data_stores's text) */
    "#define TREE_STORE(NAME, VAR, STMT)                                          \\\n"
    "__global__ void NAME(const float *in, float *out, const int *flag, int n)    \\\n"
    "{                                                                            \\\n"
    "    __shared__ float buf[1024];                                              \\\n"
    "    int t = threadIdx.x;                                                     \\\n"
    "    STMT;                                                                    \\\n"
    "    buf[t] = in[blockIdx.x * blockDim.x + t];                                \\\n"
    "    __syncthreads();                                                         \\\n"
    "    volatile float *v = buf;                                                 \\\n"
    "    for (int s = (int)(blockDim.x >> 1) + VAR; s > 0; s >>= 1) {             \\\n"
    "        if (t < s)                                                           \\\n"
    "            v[t] += v[t + s];                                                \\\n"
    "        if (s > 32 || flag[0])                                               \\\n"
    "            __syncthreads();                                                 \\\n"
    "    }                                                                        \\\n"
    "    if (t == 0)                                                              \\\n"
    "        out[blockIdx.x] = buf[0];                                            \\\n"
    "}\n"
    "__device__ int hk_st_dead, hk_st_big, hk_st_tid, hk_st_data;\n"
    "TREE_STORE(tree_store_dead, hk_st_dead, if (n < 0 && t == 0) hk_st_dead = n)\n"
    "TREE_STORE(tree_store_big, hk_st_big, if (n > 4096 && t == 0) hk_st_big = n)\n"
    "TREE_STORE(tree_store_tid, hk_st_tid, if (t == 0) hk_st_tid = n)\n"
    "TREE_STORE(tree_store_data, hk_st_data, if (in[0] < 0.0f && t == 0) hk_st_data = n)\n"
    /* stores of a few values (session 42, REF8): behind a branch on data, the word is its
     * initializer or what a store writes, each judged (spin_guard_evade.cu's `hk_zero = 1`
     * under `in[0] != in[0]`: at 0 it races); a store with no data guard only when it writes
     * the initializer again; none of the values racing (a start below 1: no trip), a value
     * from data, or part of the word: nothing */
    "__device__ int hk_st_guard, hk_st_same, hk_st_neg = -1000, hk_st_loaded, hk_st_half;\n"
    "TREE_STORE(tree_store_guard, hk_st_guard, if (t == 0 && in[0] != in[0]) hk_st_guard = 1)\n"
    "TREE_STORE(tree_store_same, hk_st_same, if (t == 0) hk_st_same = 0)\n"
    "TREE_STORE(tree_store_neg, hk_st_neg, if (t == 0 && in[0] != in[0]) hk_st_neg = -2000)\n"
    "TREE_STORE(tree_store_loaded, hk_st_loaded,\n"
    "           if (t == 0 && in[0] != in[0]) hk_st_loaded = (int)in[1])\n"
    "TREE_STORE(tree_store_half, hk_st_half,\n"
    "           if (t == 0 && in[0] != in[0]) ((short *)&hk_st_half)[1] = 1)\n"
    /* a store every block makes before its barrier (session 42, REF9; spin_tid_store_evade.cu):
     * PRE before the block's first barrier BAR, POST after it; the word read in the loop */
    "#define TREE_COVER(NAME, VAR, PRE, BAR, POST)                                \\\n"
    "__global__ void NAME(const float *in, float *out, const int *flag, int n)    \\\n"
    "{                                                                            \\\n"
    "    __shared__ float buf[1024];                                              \\\n"
    "    int t = threadIdx.x;                                                     \\\n"
    "    PRE;                                                                     \\\n"
    "    buf[t] = in[blockIdx.x * blockDim.x + t];                                \\\n"
    "    BAR;                                                                     \\\n"
    "    POST;                                                                    \\\n"
    "    volatile float *v = buf;                                                 \\\n"
    "    for (int s = (int)(blockDim.x >> 1) + VAR; s > 0; s >>= 1) {             \\\n"
    "        if (t < s)                                                           \\\n"
    "            v[t] += v[t + s];                                                \\\n"
    "        if (s > 32 || flag[0])                                               \\\n"
    "            __syncthreads();                                                 \\\n"
    "    }                                                                        \\\n"
    "    if (t == 0)                                                              \\\n"
    "        out[blockIdx.x] = buf[0];                                            \\\n"
    "}\n"
    "__device__ int hk_cv = 5, hk_cv_neg, hk_cv_loaded = 5, hk_cv_late = 5, hk_cv_blocks = 5;\n"
    "__device__ int hk_cv_dguard, hk_cv_bar = 5, hk_cv_t1 = 5, hk_cv_early = 5, hk_cv_nc = 5;\n"
    "__device__ int hk_cv_late_n, hk_cv_t1n;\n"
    "TREE_COVER(tree_cover, hk_cv, if (t == 0) hk_cv = 0, __syncthreads(), (void)0)\n"
    "TREE_COVER(tree_cover_neg, hk_cv_neg, if (t == 0) hk_cv_neg = -1000, __syncthreads(), (void)0)\n"
    "TREE_COVER(tree_cover_loaded, hk_cv_loaded, if (t == 0) hk_cv_loaded = (int)in[1],\n"
    "           __syncthreads(), (void)0)\n"
    "TREE_COVER(tree_cover_late, hk_cv_late, (void)0, __syncthreads(), if (t == 0) hk_cv_late = 0)\n"
    "TREE_COVER(tree_cover_late_n, hk_cv_late_n, (void)0, __syncthreads(),\n"
    "           if (t == 0) hk_cv_late_n = n)\n"
    "TREE_COVER(tree_cover_blocks, hk_cv_blocks,\n"
    "           if (t == 0) hk_cv_blocks = 0; if (t == 1 && blockIdx.x == 3) hk_cv_blocks = -1000,\n"
    "           __syncthreads(), (void)0)\n"
    "TREE_COVER(tree_cover_dguard, hk_cv_dguard, if (t == 0 && in[0] < 0.0f) hk_cv_dguard = -1000,\n"
    "           __syncthreads(), (void)0)\n"
    "TREE_COVER(tree_cover_bar, hk_cv_bar, if (t == 0) hk_cv_bar = 0, if (flag[1]) __syncthreads(),\n"
    "           (void)0)\n"
    "TREE_COVER(tree_cover_t1, hk_cv_t1, if (t == 1) hk_cv_t1 = 0, __syncthreads(), (void)0)\n"
    "TREE_COVER(tree_cover_t1n, hk_cv_t1n, if (t == 1) hk_cv_t1n = n, __syncthreads(), (void)0)\n"
    "TREE_COVER(tree_cover_early, e, if (t == 0) hk_cv_early = 0; int e = hk_cv_early,\n"
    "           __syncthreads(), (void)0)\n"
    "TREE_COVER(tree_cover_nc, __ldg(&hk_cv_nc), if (t == 0) hk_cv_nc = 0, __syncthreads(), (void)0)\n"
    /* the store between the block's first and second barriers (session 42, REF10;
     * spin_bar2_store_evade.cu): MID between them, the word read past the second */
    "#define TREE_COVER2(NAME, VAR, MID)                                          \\\n"
    "__global__ void NAME(const float *in, float *out, const int *flag, int n)    \\\n"
    "{                                                                            \\\n"
    "    __shared__ float buf[1024];                                              \\\n"
    "    int t = threadIdx.x;                                                     \\\n"
    "    buf[t] = in[blockIdx.x * blockDim.x + t];                                \\\n"
    "    __syncthreads();                                                         \\\n"
    "    MID;                                                                     \\\n"
    "    __syncthreads();                                                         \\\n"
    "    volatile float *v = buf;                                                 \\\n"
    "    for (int s = (int)(blockDim.x >> 1) + VAR; s > 0; s >>= 1) {             \\\n"
    "        if (t < s)                                                           \\\n"
    "            v[t] += v[t + s];                                                \\\n"
    "        if (s > 32 || flag[0])                                               \\\n"
    "            __syncthreads();                                                 \\\n"
    "    }                                                                        \\\n"
    "    if (t == 0)                                                              \\\n"
    "        out[blockIdx.x] = buf[0];                                            \\\n"
    "}\n"
    "__device__ int hk_c2 = 5, hk_c2_mid = 5, hk_c2_blk = 5, hk_c2_bar = 5, hk_c2_t1 = 5;\n"
    "TREE_COVER2(tree_cover2, hk_c2,\n"
    "            if (t == 0) { int k = 0; for (int j = 0; j < flag[3]; j++) k += flag[j + 4];\n"
    "                          hk_c2 = 0; out[1] = (float)k; }\n"
    "            else if (t == 224) { while (((volatile int *)flag)[2] == 0) { } })\n"
    "TREE_COVER2(tree_cover2_mid, hk_c2_mid, if (t == 0) hk_c2_mid = 0; out[2 + t] = hk_c2_mid)\n"
    "TREE_COVER2(tree_cover2_blk, hk_c2_blk, if (t == 0 && blockIdx.x != 3) hk_c2_blk = 0)\n"
    "TREE_COVER2(tree_cover2_bar, hk_c2_bar,\n"
    "            for (int j = 0; j < n; j++) __syncthreads(); if (t == 0) hk_c2_bar = 0)\n"
    "TREE_COVER2(tree_cover2_t1, hk_c2_t1, if (t == 1) hk_c2_t1 = 0)\n"
    /* the same start with the barrier kept every trip: race-free at every value */
    "__global__ void tree_bound_synced(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[1024];\n"
    "    int t = threadIdx.x;\n"
    "    buf[t] = in[blockIdx.x * blockDim.x + t];\n"
    "    __syncthreads();\n"
    "    for (int s = (int)(blockDim.x >> 1) + (n < 0) + (in[1] != in[1]); s > 0; s >>= 1) {\n"
    "        if (t < s)\n"
    "            buf[t] += buf[t + s];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t == 0)\n"
    "        out[blockIdx.x] = buf[0];\n"
    "}\n"
    "__global__ void tree_synced(const float *in, float *out)\n"
    "{\n"
    "    __shared__ float buf[1024];\n"
    "    int t = threadIdx.x;\n"
    "    buf[t] = in[blockIdx.x * blockDim.x + t];\n"
    "    __syncthreads();\n"
    "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
    "        if (t < s)\n"
    "            buf[t] += buf[t + s];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (t == 0)\n"
    "        out[blockIdx.x] = buf[0];\n"
    "}\n"
    /* a block barrier while s > 32, __syncwarp below (only warp 0 works there): race-free, and
     * only the trips told apart show it (the trip of s = 64 ends with a block barrier, that of
     * s = 32 with a warp one: a reading that merged the trips would pair v[t + 64] with the
     * store of a trip that ends with __syncwarp only) */
    "__global__ void tree_warp(const float *in, float *out)\n"
    "{\n"
    "    __shared__ float buf[1024];\n"
    "    int t = threadIdx.x;\n"
    "    buf[t] = in[blockIdx.x * blockDim.x + t];\n"
    "    __syncthreads();\n"
    "    volatile float *v = buf;\n"
    "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
    "        if (t < s)\n"
    "            v[t] += v[t + s];\n"
    "        if (s > 32)\n"
    "            __syncthreads();\n"
    "        else\n"
    "            __syncwarp();\n"
    "    }\n"
    "    if (t == 0)\n"
    "        out[blockIdx.x] = buf[0];\n"
    "}\n";

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    if (access(NVCC, X_OK) != 0)
        return 0; /* the tests say skipped */
    char src[600], out[600], cmd[2048];
    snprintf(src, sizeof src, "%s/k.cu", dir);
    snprintf(out, sizeof out, "%s/k.ptx", dir);
    FILE *f = fopen(src, "w");
    if (!f)
        return -1;
    fputs(source, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s -ptx -arch=sm_90 -O3 -std=c++17 -lineinfo -o %s %s >/dev/null 2>&1",
             NVCC, out, src);
    if (system(cmd) != 0)
        return -1;
    f = fopen(out, "r");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    ptx = malloc((size_t)n + 1);
    if (!ptx || fread(ptx, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        return -1;
    }
    fclose(f);
    ptx[n] = '\0';
    ptx_len = (size_t)n;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(ptx);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The PTX of one kernel: the module's header, its entry (the one whose mangled name holds
 * name), and the .file lines. New string. */
static char *one_kernel(const char *name)
{
    if (!ptx)
        skip();
    char key[128];
    snprintf(key, sizeof key, "%zu%s", strlen(name), name); /* _Z<len><name> */
    const char *e = ptx;
    for (;;) {
        e = strstr(e, ".entry ");
        assert_non_null(e);
        const char *nl = strchr(e, '\n');
        if (strstr(e, key) && strstr(e, key) < nl)
            break;
        e = nl;
    }
    while (e > ptx && e[-1] != '\n')
        e--;
    const char *end = strstr(e, "\n}\n");
    assert_non_null(end);
    end += 3;
    const char *first = strstr(ptx, ".visible");
    const char *files = strstr(ptx, "\t.file");
    assert_non_null(first);
    assert_non_null(files);
    const char *files_end = strstr(files, ".section");
    if (!files_end)
        files_end = ptx + ptx_len;
    size_t h = (size_t)(first - ptx), b = (size_t)(end - e), fl = (size_t)(files_end - files);
    char *t = malloc(h + b + fl + 1);
    assert_non_null(t);
    memcpy(t, ptx, h);
    memcpy(t + h, e, b);
    memcpy(t + h + b, files, fl);
    t[h + b + fl] = '\0';
    return t;
}

static ptxrace_result scan_kernel(const char *name)
{
    char *t = one_kernel(name);
    ptxrace_result r;
    assert_int_equal(ptxrace_scan(t, strlen(t), &r), HK_OK);
    free(t);
    assert_int_equal(r.functions, 1);
    assert_int_equal(r.skipped, 0);
    return r;
}

static ptxrace_result scan_kernel_at(const char *name, long x)
{
    char *t = one_kernel(name);
    ptxrace_result r;
    long shape[3] = {x, 1, 1};
    assert_int_equal(ptxrace_scan_shape(t, strlen(t), shape, &r), HK_OK);
    free(t);
    assert_int_equal(r.functions, 1);
    assert_int_equal(r.skipped, 0);
    return r;
}

/* At a block shape: blockDim a constant, so an offset made from it is one (found, or not
 * when it is 0 there), and a tree loop is judged trip by trip (the barrier it skips found;
 * one kept every trip, or a warp barrier where only one warp works, not). */
static void test_at_a_shape(void **state)
{
    (void)state;
    /* blockDim.x >> 4: 16 at 256 threads, a race; 0 at 8, the thread's own word */
    ptxrace_result r = scan_kernel_at("uniform_offset", 256);
    assert_true(r.found);
    assert_int_equal(r.k, 16);
    r = scan_kernel_at("uniform_offset", 8);
    assert_false(r.found);
    r = scan_kernel("uniform_offset"); /* no shape: unresolved, no finding */
    assert_false(r.found);
    /* the tree loop that skips its barrier below s = 64: the first trip without one is
     * s = 16 after s = 32 (k = 16), at 256 threads as at 1024 */
    long shapes[] = {256, 1024, 64};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        r = scan_kernel_at("tree_skip", shapes[i]);
        if (!r.found)
            fail_msg("tree_skip at %ld threads: no finding", shapes[i]);
        assert_int_equal(r.k, 16);
        assert_non_null(strstr(r.ld_text, "ld.volatile.shared.f32"));
        assert_null(strstr(r.ld_text, "$")); /* quoted as in the PTX, not as unrolled */
        assert_int_equal(r.ld_src, r.st_src); /* v[t] += v[t + s]: one source line */
    }
    r = scan_kernel("tree_skip");
    assert_false(r.found);
    /* the shape is the launched kernel's alone: another entry is judged at no shape */
    char *t = one_kernel("tree_skip");
    long s256[3] = {256, 1, 1};
    assert_int_equal(ptxrace_scan_entry_shape(t, strlen(t), s256, "_Z9tree_skipPKfPfPKi", &r),
                     HK_OK);
    assert_true(r.found);
    assert_int_equal(ptxrace_scan_entry_shape(t, strlen(t), s256, "_Z9tree_warpPKfPf", &r), HK_OK);
    assert_false(r.found);
    free(t);
    const char *honest[] = {"tree_synced", "tree_warp", "barrier_tree", "synced_tail",
                            "tiled_gemm", "tiled_transpose", "scan_block", "guard_excludes",
                            "own_word"};
    long all[] = {32, 64, 128, 256, 512, 1024};
    for (size_t i = 0; i < sizeof honest / sizeof *honest; i++)
        for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
            r = scan_kernel_at(honest[i], all[k]);
            if (r.found)
                fail_msg("%s at %ld threads: a race at PTX line %ld (%s) after %ld (%s)",
                         honest[i], all[k], r.ld_line, r.ld_text, r.st_line, r.st_text);
        }
}

static ptxrace_result scan_kernel_launch(const char *name, long x, int nargs, int known_at,
                                         int64_t value)
{
    char *t = one_kernel(name);
    ptxrace_result r;
    ptxrace_launch l;
    memset(&l, 0, sizeof l);
    l.shape[0] = x;
    l.shape[1] = l.shape[2] = 1;
    l.nargs = nargs;
    if (known_at >= 0) {
        l.known[known_at] = true;
        l.arg[known_at] = value;
    }
    assert_int_equal(ptxrace_scan_launch(t, strlen(t), &l, NULL, &r), HK_OK);
    free(t);
    assert_int_equal(r.functions, 1);
    assert_int_equal(r.skipped, 0);
    return r;
}

/* At a launch: a scalar argument's value is known (its ld.param a constant), so a loop bound
 * made from it is decided; a value that depends on data through one bit (a predicate, a sign
 * bit) is judged at each of its values; a word used whole stays unknown. */
static void test_at_a_launch(void **state)
{
    (void)state;
    /* (n < 0) with n = 1 << 24 (the 4th parameter): the tree's trips decided, the skipped
     * barrier found; n unknown (a uniform unknown's sign bit): judged at 0 and 1, found too */
    ptxrace_result r = scan_kernel_launch("tree_bound", 256, 4, 3, 1 << 24);
    assert_true(r.found);
    assert_int_equal(r.k, 16);
    r = scan_kernel_launch("tree_bound", 256, 4, 3, -5); /* n < 0: starts at 129 */
    assert_true(r.found);
    r = scan_kernel("tree_bound"); /* no shape: nothing */
    assert_false(r.found);
    /* the tree starts at the argument half itself: known (128), the trips are decided and
     * the skipped barrier found; not known, a value used whole: nothing */
    r = scan_kernel_launch("tree_arg", 256, 4, 3, 128);
    assert_true(r.found);
    assert_int_equal(r.k, 16);
    r = scan_kernel_launch("tree_arg", 256, 4, -1, 0);
    assert_false(r.found);
    r = scan_kernel_launch("tree_arg", 256, 4, 3, 16); /* from 16 down: no barrier, k = 8 */
    assert_true(r.found);
    assert_int_equal(r.k, 8);
    /* one bit of data: in[0] != in[0] (a predicate, selp), clock() < 0 (a sign bit) */
    const char *bit[] = {"tree_nan", "tree_clock"};
    for (size_t i = 0; i < 2; i++) {
        r = scan_kernel_at(bit[i], 256);
        if (!r.found)
            fail_msg("%s at 256 threads: no finding", bit[i]);
        assert_int_equal(r.k, 16);
        r = scan_kernel(bit[i]);
        assert_false(r.found && !r.barrier); /* no pair read at no shape */
        /* the clock's loop bound decides the tree's barrier (a barrier that data decides);
         * a loaded word's does not sense */
        if (r.barrier != (i == 1))
            fail_msg("%s at no shape: barrier finding %d", bit[i], r.barrier);
    }
    /* a word used whole: not bounded, no finding */
    r = scan_kernel_at("tree_whole", 256);
    assert_false(r.found);
    /* the barrier kept: nothing at any value, any shape */
    long all[] = {32, 64, 128, 256, 512, 1024};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
        r = scan_kernel_launch("tree_bound_synced", all[k], 3, 2, 1000);
        assert_false(r.found);
        r = scan_kernel_launch("tree_bound_synced", all[k], 3, 2, -1);
        assert_false(r.found);
    }
    /* the referee's launches: the spec's scalar arguments at each size set */
    static const char spec_text[] =
        "{\"kernel\": \"k\", \"source\": \"k.cu\", \"sizes\": [{\"n\": 1000}, {\"n\": 77}],\n"
        " \"args\": [{\"name\": \"in\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},\n"
        "  {\"name\": \"n\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n - 1\"},\n"
        "  {\"name\": \"o\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"n\"},\n"
        "  {\"name\": \"a\", \"kind\": \"scalar\", \"dtype\": \"float\", \"value\": \"2\"}],\n"
        " \"launch\": {\"grid\": \"n\", \"block\": 128}}\n";
    spec *sp = NULL;
    spec_diags d;
    memset(&d, 0, sizeof d);
    char sp_path[600];
    snprintf(sp_path, sizeof sp_path, "%s/k.bench.json", dir);
    int prc = spec_parse(spec_text, strlen(spec_text), sp_path, &sp, &d);
    for (size_t i = 0; i < d.n; i++)
        print_message("spec: %s: %s\n", d.items[i].path, d.items[i].message);
    assert_int_equal(prc, HK_OK);
    spec_diags_free(&d);
    measure_shapes sh;
    measure_launch_shapes(sp, NULL, &sh);
    assert_int_equal(sh.n, 2); /* one shape, two launches */
    assert_int_equal(sh.nargs, 4);
    assert_true(sh.arg_known[0][1]);
    assert_int_equal(sh.arg[0][1], 999);
    assert_int_equal(sh.arg[1][1], 76);
    assert_false(sh.arg_known[0][0]); /* a buffer */
    assert_false(sh.arg_known[0][2]); /* a buffer */
    assert_false(sh.arg_known[0][3]); /* a float */
    spec_free(sp);
}

/* The PTX of several kernels (one_kernel's header and .file lines, each entry in turn). New
 * string. */
static char *some_kernels(const char *const *names, int n)
{
    char *all = NULL;
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        char *t = one_kernel(names[i]);
        const char *e = strstr(t, ".visible .entry");
        const char *f = strstr(t, "\t.file");
        assert_non_null(e);
        assert_non_null(f);
        size_t head = (size_t)(e - t), body = (size_t)(f - e), tail = strlen(f);
        char *q = realloc(all, len + (i ? 0 : head) + body + (i == n - 1 ? tail : 0) + 1);
        assert_non_null(q);
        all = q;
        if (!i) {
            memcpy(all, t, head);
            len = head;
        }
        memcpy(all + len, e, body);
        len += body;
        if (i == n - 1) {
            memcpy(all + len, f, tail);
            len += tail;
        }
        all[len] = '\0';
        free(t);
    }
    return all;
}

/* kernels[0] of the text of kernels (n) judged at x threads as a harness-form launch with no
 * argument known; module data read unless data is false; filled: a name the launcher writes
 * (NULL: none). */
static ptxrace_result scan_data(const char *const *kernels, int n, long x, bool data,
                                const char *filled)
{
    char *t = some_kernels(kernels, n);
    ptxrace_launch l;
    memset(&l, 0, sizeof l);
    l.shape[0] = x;
    l.shape[1] = l.shape[2] = 1;
    l.module_data = data;
    if (filled) {
        snprintf(l.filled[0], sizeof l.filled[0], "%s", filled);
        l.nfilled = 1;
    }
    char entry[128];
    snprintf(entry, sizeof entry, "_Z%zu%sPKfPfPKi", strlen(kernels[0]), kernels[0]);
    ptxrace_result r;
    assert_int_equal(ptxrace_scan_launch(t, strlen(t), &l, entry, &r), HK_OK);
    free(t);
    assert_int_equal(r.functions, n);
    assert_int_equal(r.skipped, 0);
    return r;
}

/* Module data that nothing writes (ptxdata.h), read from PTX text written here: declarations
 * with and without initializers, every kind of mention that makes a variable unknown. */
static void test_module_data_text(void **state)
{
    (void)state;
    static const char text[] =
        ".version 8.8\n.target sm_90\n.address_size 64\n"
        "// .global .u32 commented;  (a comment declares nothing)\n"
        ".global .align 4 .u32 zero;\n"
        ".global .align 4 .u32 seven = 7;\n"
        ".const .align 4 .b8 bytes[8] = {1, 2, 3, 4, 255, 255, 255, 127};\n"
        ".global .align 8 .s64 wide[2] = {-3, 0x10};\n"
        ".global .align 4 .u32 stored;\n"
        ".global .align 4 .u32 addr;\n"
        ".global .align 4 .u32 addrld[2] = {4, 9};\n"
        ".global .align 4 .u32 addrst;\n"
        ".global .align 4 .u32 addrcvta;\n"
        ".global .align 4 .u32 addresc;\n"
        ".global .align 4 .u32 addradd;\n"
        ".global .align 4 .u32 atom;\n"
        ".global .align 4 .u32 twice;\n"
        ".global .align 4 .u32 twice;\n"
        ".extern .global .align 4 .u32 ext;\n"
        ".global .attribute(.managed) .align 4 .u32 managed;\n"
        ".global .align 8 .u64 ptr = generic(seven);\n" /* seven's address taken: unknown */
        ".global .align 4 .u32 short_init[4] = {1, 2};\n" /* the rest zero */
        ".global .align 4 .u32 long_init[2] = {1, 2, 3};\n"
        ".global .align 4 .u32 vecread;\n"
        ".global .align 4 .u32 filled_by_host = 3;\n"
        ".const .align 4 .u32 inasm = 5;\n"
        "/* .global .u32 blockcomment; */\n"
        ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
        "\t.reg .b32 %r<9>;\n\t.reg .b64 %rd<14>;\n"
        "\tld.global.u32 %r1, [zero];\n"
        "\tld.global.u32 %r2, [seven];\n"
        "\tld.const.u32 %r3, [bytes+4];\n"
        "\tst.global.u32 [stored+0], %r1;\n"
        "\tmov.u64 %rd1, addr;\n" /* (REF18) its register read by nothing: known */
        "\tmov.u64 %rd5, addrld;\n\tadd.s64 %rd6, %rd5, 4;\n\tld.global.nc.u32 %r8, [%rd6+0];\n"
        "\tmov.u64 %rd7, addrst;\n\tadd.s64 %rd8, 0, %rd7;\n\tst.global.u32 [%rd8], %r1;\n"
        "\tmov.b64 %rd9, addrcvta;\n\tcvta.to.global.u64 %rd10, %rd9;\n"
        "\tred.global.add.u32 [%rd10], 1;\n"
        "\tmov.u64 %rd11, addresc;\n\tst.global.u64 [%rd2], %rd11;\n" /* the address stored */
        "\tmov.u64 %rd12, addradd;\n\tadd.s64 %rd13, %rd12, %rd12;\n" /* two of it added */
        "\tld.global.u32 %r8, [%rd13];\n"
        "\tatom.global.add.u32 %r4, [atom], 1;\n"
        "\tld.global.v2.u32 {%r5, %r6}, [vecread];\n"
        "$L_1: @%p1 ld.global.u32 %r7, [inasm]; // the wrong space: read as nothing\n"
        "\t{ .reg .b32 t; ld.const.u32 t, [inasm+0]; }\n"
        "\tret;\n}\n";
    const char *filled[] = {"filled_by_host"};
    ptxdata *d = NULL;
    assert_int_equal(ptxdata_read(text, strlen(text), filled, 1, &d), HK_OK);
    int64_t v = -1;
    assert_true(ptxdata_load(d, "zero", 0, false, 4, false, &v));
    assert_int_equal(v, 0);
    assert_true(ptxdata_load(d, "seven", 0, false, 4, false, &v) == false); /* address taken */
    assert_true(ptxdata_load(d, "bytes", 4, true, 4, false, &v));
    assert_int_equal(v, 0x7fffffff);
    assert_true(ptxdata_load(d, "bytes", 4, true, 2, true, &v));
    assert_int_equal(v, -1); /* 0xffff sign-extended */
    assert_true(ptxdata_load(d, "bytes", 0, true, 1, false, &v));
    assert_int_equal(v, 1);
    assert_true(ptxdata_load(d, "bytes", 1, true, 2, false, &v));
    assert_int_equal(v, 0x0302);
    assert_false(ptxdata_load(d, "bytes", 6, true, 4, false, &v)); /* past its end */
    assert_false(ptxdata_load(d, "bytes", -1, true, 1, false, &v));
    assert_false(ptxdata_load(d, "bytes", 0, false, 4, false, &v)); /* .const read as .global */
    assert_true(ptxdata_load(d, "wide", 0, false, 8, true, &v));
    assert_int_equal(v, -3);
    assert_true(ptxdata_load(d, "wide", 8, false, 4, false, &v));
    assert_int_equal(v, 16);
    assert_true(ptxdata_load(d, "inasm", 0, true, 4, false, &v)); /* ld.global of it reads */
    assert_int_equal(v, 5);
    assert_true(ptxdata_load(d, "short_init", 4, false, 4, false, &v));
    assert_int_equal(v, 2);
    assert_true(ptxdata_load(d, "short_init", 12, false, 4, false, &v));
    assert_int_equal(v, 0);
    assert_true(ptxdata_load(d, "addr", 0, false, 4, false, &v)); /* (REF18) */
    assert_int_equal(v, 0);
    assert_true(ptxdata_load(d, "addrld", 4, false, 4, false, &v));
    assert_int_equal(v, 9);
    const char *unknown[] = {"stored", "atom", "twice", "ext", "managed", "long_init",
                             "vecread", "filled_by_host", "commented", "blockcomment", "ptr",
                             "addrst", "addrcvta", "addresc", "addradd"};
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++)
        if (ptxdata_load(d, unknown[i], 0, false, 4, false, &v))
            fail_msg("%s read as known (%lld)", unknown[i], (long long)v);
    long defined = 0, known = 0;
    ptxdata_counts(d, &defined, &known);
    assert_int_equal(defined, 21); /* twice once; no commented ones */
    assert_int_equal(known, 8); /* zero, bytes, wide, inasm, short_init, addr, addrld; ptr (its one
                                 * element an address) */
    assert_false(ptxdata_load(d, "ptr", 0, false, 8, false, &v));
    ptxdata_free(d);
    /* without the mentions' walk every written one would read as its initializer: the walk
     * is what refuses them (a text whose only store is in a second function) */
    static const char later[] =
        ".global .align 4 .u32 w;\n"
        ".visible .entry a()\n{\n\t.reg .b32 %r<2>;\n\tld.global.u32 %r1, [w];\n\tret;\n}\n"
        ".visible .entry b()\n{\n\tst.global.u32 [w], 1;\n\tret;\n}\n";
    assert_int_equal(ptxdata_read(later, strlen(later), NULL, 0, &d), HK_OK);
    assert_false(ptxdata_load(d, "w", 0, false, 4, false, &v));
    ptxdata_free(d);
    assert_int_equal(ptxdata_read(later, strstr(later, ".visible .entry b") - later, NULL, 0, &d),
                     HK_OK);
    assert_true(ptxdata_load(d, "w", 0, false, 4, false, &v)); /* without b: nothing writes it */
    ptxdata_free(d);
    /* a preprocessor line could store to wz under a name pasted together: nothing known past
     * one (the text never spells wz but in its declaration and its load) */
    static const char macro[] =
        ".global .align 4 .u32 wz;\n"
        ".visible .entry a()\n{\n\t.reg .b32 %r<2>;\n\tld.global.u32 %r1, [wz];\n"
        "#define CAT(a, b) a##b\n\tst.global.u32 [CAT(w, z)], 1;\n\tret;\n}\n";
    assert_int_equal(ptxdata_read(macro, strlen(macro), NULL, 0, &d), HK_OK);
    assert_false(ptxdata_load(d, "wz", 0, false, 4, false, &v));
    ptxdata_free(d);
}

/* Module data at a launch: a tree loop starting at blockDim.x / 2 plus a word nothing writes
 * (spin_word_evade.cu's) is decided and its skipped barrier found; with the word written by
 * another kernel, its address taken, updated by an atomic, read at a data index, filled by
 * the launcher, or module data not known, nothing. */
static void test_module_data(void **state)
{
    (void)state;
    const char *word[] = {"tree_word"};
    ptxrace_result r = scan_data(word, 1, 256, true, NULL);
    assert_true(r.found);
    assert_int_equal(r.k, 16);
    assert_int_equal(r.data_loads, 1); /* ld.global.u32 %r, [hk_word_zero] */
    r = scan_data(word, 1, 1024, true, NULL);
    assert_true(r.found);
    assert_int_equal(r.k, 16);
    r = scan_data(word, 1, 256, false, NULL); /* not a harness-form launch: unknown */
    assert_false(r.found);
    assert_int_equal(r.data_loads, 0);
    r = scan_data(word, 1, 256, true, "hk_word_zero"); /* the launcher fills it */
    assert_false(r.found);
    /* the initializer's value: the tree starts at 16 (k = 8), at any block */
    const char *start[] = {"tree_word_start"};
    r = scan_data(start, 1, 256, true, NULL);
    assert_true(r.found);
    assert_int_equal(r.k, 8);
    r = scan_data(start, 1, 1024, true, NULL);
    assert_true(r.found);
    assert_int_equal(r.k, 8);
    const char *tab[] = {"tree_word_tab"}; /* a __constant__ element at a constant index: 0 */
    r = scan_data(tab, 1, 256, true, NULL);
    assert_true(r.found);
    assert_int_equal(r.k, 16);
    /* each written form: found alone (nothing in that text writes it), not with its writer */
    const char *pairs[][2] = {{"tree_word_written", "word_writer"},
                              {"tree_word_addr", "word_addr"},
                              {"tree_word_atom", "word_atom"}};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        r = scan_data(pairs[i], 1, 256, true, NULL);
        if (!r.found)
            fail_msg("%s alone at 256 threads: no finding", pairs[i][0]);
        r = scan_data(pairs[i], 2, 256, true, NULL);
        if (r.found)
            fail_msg("%s with %s: a finding (the word is written)", pairs[i][0], pairs[i][1]);
    }
    /* hk_word_idx[(int)in[0] & 3]: its address taken (until REF17 unknown); since REF17 the
     * four entries at the index's range [0, 3] are all 0: the start is known */
    const char *idx[] = {"tree_word_idx"};
    r = scan_data(idx, 1, 256, true, NULL);
    assert_true(r.found);
    assert_int_equal(r.k, 16);
    /* the referee's launches: a harness-form spec reads module data, less its constants */
    static const char spec_text[] =
        "{\"kernel\": \"k\", \"source\": \"k.cu\", \"sizes\": [{\"n\": 1000}, {\"n\": 77}],\n"
        " \"args\": [{\"name\": \"in\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},\n"
        "  {\"name\": \"o\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"n\"}],\n"
        " \"constants\": [{\"name\": \"mask\", \"dtype\": \"float\", \"count\": 9},\n"
        "   {\"name\": \"ns::lut\", \"dtype\": \"int\", \"count\": 4}],\n"
        " \"launch\": {\"grid\": \"n\", \"block\": 128}}\n";
    spec *sp = NULL;
    spec_diags d;
    memset(&d, 0, sizeof d);
    char sp_path[600];
    snprintf(sp_path, sizeof sp_path, "%s/k2.bench.json", dir);
    int prc = spec_parse(spec_text, strlen(spec_text), sp_path, &sp, &d);
    for (size_t i = 0; i < d.n; i++)
        print_message("spec: %s: %s\n", d.items[i].path, d.items[i].message);
    assert_int_equal(prc, HK_OK);
    spec_diags_free(&d);
    measure_shapes sh;
    measure_launch_shapes(sp, NULL, &sh);
    assert_true(sh.module_data);
    assert_int_equal(sh.nfilled, 2);
    assert_string_equal(sh.filled[0], "mask");
    assert_string_equal(sh.filled[1], "_ZN2ns3lutE");
    ptxrace_launch l;
    memset(&l, 0, sizeof l);
    measure_module_data(&sh, &l);
    assert_true(l.module_data);
    assert_int_equal(l.nfilled, 2);
    assert_string_equal(l.filled[1], "_ZN2ns3lutE");
    measure_launch_shapes(NULL, (const long long[]){256, 1, 1}, &sh); /* no spec: not known */
    assert_false(sh.module_data);
    spec_free(sp);
}

/* text (NUL-ended) judged at x threads as a harness-form launch of entry, the fourth argument
 * n known unless n_known is false */
static ptxrace_result scan_store_text(const char *text, const char *entry, long x, bool n_known,
                                      int64_t n)
{
    ptxrace_launch l;
    memset(&l, 0, sizeof l);
    l.shape[0] = x;
    l.shape[1] = l.shape[2] = 1;
    l.module_data = true;
    l.nargs = 4;
    l.known[3] = n_known;
    l.arg[3] = n;
    ptxrace_result r;
    assert_int_equal(ptxrace_scan_launch(text, strlen(text), &l, entry, &r), HK_OK);
    return r;
}

/* kernel (a TREE_STORE) alone, at x threads and n */
static ptxrace_result scan_store(const char *kernel, long x, bool n_known, int64_t n)
{
    char *t = one_kernel(kernel);
    char entry[128];
    snprintf(entry, sizeof entry, "_Z%zu%sPKfPfPKii", strlen(kernel), kernel);
    ptxrace_result r = scan_store_text(t, entry, x, n_known, n);
    free(t);
    return r;
}

/* A copy of text with the first `what` replaced by `with` (which must be there). New. */
static char *text_edit(const char *text, const char *what, const char *with)
{
    const char *at = strstr(text, what);
    assert_non_null(at);
    size_t h = (size_t)(at - text), wl = strlen(what), nl = strlen(with);
    char *t = malloc(strlen(text) - wl + nl + 1);
    assert_non_null(t);
    memcpy(t, text, h);
    memcpy(t + h, with, nl);
    strcpy(t + h + nl, at + wl);
    return t;
}

/* Module data whose only stores are the launched kernel's, none of which runs at this launch
 * (docs/referee.md "Stores no launch runs"): spin_store_evade.cu's word. */
static void test_module_data_stores(void **state)
{
    (void)state;
    ptxrace_result r = scan_store("tree_store_dead", 256, true, 1000);
    assert_true(r.found); /* n >= 0: the store never runs, the word is 0 */
    assert_int_equal(r.k, 16);
    assert_int_equal(r.data_loads, 1);
    r = scan_store("tree_store_dead", 1024, true, 0);
    assert_true(r.found);
    r = scan_store("tree_store_dead", 256, false, 0); /* n not known: the guard not decided */
    assert_false(r.found);
    assert_int_equal(r.data_loads, 0);
    r = scan_store("tree_store_dead", 256, true, -5); /* the store runs at this launch */
    assert_false(r.found);
    r = scan_store("tree_store_big", 256, true, 1000);
    assert_true(r.found);
    r = scan_store("tree_store_big", 256, true, 5000);
    assert_false(r.found);
    /* a value from data, part of the word, none of the values racing: not judged (session
     * 42); tree_store_tid (stored n in thread 0 before the barrier, 0 never seen past it):
     * test_module_data_cover */
    const char *never[] = {"tree_store_loaded", "tree_store_half", "tree_store_neg"};
    for (size_t i = 0; i < sizeof never / sizeof *never; i++) {
        r = scan_store(never[i], 256, true, 1000);
        if (r.found)
            fail_msg("%s: a finding (its word's values unknown, or none racing)", never[i]);
        if (r.data_loads != (strcmp(never[i], "tree_store_neg") ? 0 : 1))
            fail_msg("%s: %ld loads read as module data", never[i], r.data_loads);
    }
    /* stores of a few values behind a branch on data: judged at each (0 races) */
    const char *few[] = {"tree_store_data", "tree_store_guard", "tree_store_same"};
    for (size_t i = 0; i < sizeof few / sizeof *few; i++) {
        r = scan_store(few[i], 256, true, 1000);
        if (!r.found || r.k != 16 || r.data_loads != 1)
            fail_msg("%s: found %d, k %ld, %ld data loads", few[i], r.found, r.k, r.data_loads);
    }
    r = scan_store("tree_store_data", 256, false, 0); /* n not known: what it stores unknown */
    assert_false(r.found);
    /* the same text, read otherwise than ptxdata reads it, or its kernel named elsewhere (a
     * device-side launch): nothing allowed */
    char *t = one_kernel("tree_store_dead");
    const char *entry = "_Z15tree_store_deadPKfPfPKii";
    r = scan_store_text(t, entry, 256, true, 1000);
    assert_true(r.found);
    const char *st = strstr(t, "st.global.u32 \t[hk_st_dead]");
    if (!st)
        st = strstr(t, "[hk_st_dead]");
    assert_non_null(st);
    while (st > t && st[-1] != '\n')
        st--;
    char stline[256];
    size_t sl = (size_t)(strchr(st, '\n') - st);
    assert_true(sl < sizeof stline);
    memcpy(stline, st, sl);
    stline[sl] = '\0';
    const char *guard = strstr(t, "@%p"); /* the first guard: `@%pN bra ...` */
    assert_non_null(guard);
    char gname[16];
    size_t gl = strcspn(guard, " \t");
    assert_true(gl < sizeof gname);
    memcpy(gname, guard, gl);
    gname[gl] = '\0';
    char with[512];
    struct {
        const char *what, *with, *why;
    } edits[4];
    snprintf(with, sizeof with, "%s\n\tmov.u64 %%rd99, %s;", stline, entry);
    edits[0].what = stline, edits[0].with = with, edits[0].why = "the kernel's address taken";
    edits[1].what = "ld.param", edits[1].with = "/* */ ld.param", edits[1].why = "a block comment";
    char with2[64];
    snprintf(with2, sizeof with2, "%s\n\t", gname);
    edits[2].what = guard == NULL ? "" : gname, edits[2].with = with2,
    edits[2].why = "a guard on its own line";
    /* (REF13) a nested scope whose register can be the body's (the guard's predicate, which
     * the body writes): read as one, the scope's own unwritten register would take the body's
     * value -- odd */
    char with3[400];
    snprintf(with3, sizeof with3, "{\n\t.reg .pred %s;\n%s\n\t}", gname + 1, stline);
    edits[3].what = stline, edits[3].with = with3, edits[3].why = "a nested scope (shadowing)";
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
        char *e = text_edit(t, edits[i].what, edits[i].with);
        r = scan_store_text(e, entry, 256, true, 1000);
        if (r.found)
            fail_msg("%s: a finding", edits[i].why);
        free(e);
    }
    /* (REF13) a nested scope that declares nothing, or a register no other declaration can be
     * (nvcc's callseq: `.reg .b32 temp_param_reg;`), one on a line of its own, a declaration
     * and a `{` on one line (odd): read as the body's own statements, found the same */
    const char *scopes[] = {"{\n%s\n\t}", "{\n\t.reg .b32 temp_param_reg;\n%s\n\t}",
                            "{ .reg .b32 temp_param_reg;\n%s\n\t}"};
    for (size_t i = 0; i < sizeof scopes / sizeof *scopes; i++) {
        char with4[400];
        snprintf(with4, sizeof with4, scopes[i], stline);
        char *e = text_edit(t, stline, with4);
        r = scan_store_text(e, entry, 256, true, 1000);
        if (r.found != (i < 2))
            fail_msg("nested scope %zu: found %d", i, r.found);
        free(e);
    }
    /* the store under its own guard, a constant false at this launch, in place of the branch
     * around it: found the same */
    {
        const char *gl0 = guard;
        while (gl0 > t && gl0[-1] != '\n')
            gl0--;
        char gline[256];
        size_t gll = (size_t)(strchr(gl0, '\n') - gl0) + 1;
        assert_true(gll < sizeof gline);
        memcpy(gline, gl0, gll);
        gline[gll] = '\0';
        assert_non_null(strstr(gline, "bra"));
        char *e = text_edit(t, gline, "");
        snprintf(with, sizeof with, "\t@!%s %s", gname + 1, stline + 1);
        char *e2 = text_edit(e, stline, with);
        r = scan_store_text(e2, entry, 256, true, 1000);
        assert_true(r.found);
        assert_int_equal(r.k, 16);
        r = scan_store_text(e2, entry, 256, true, -1); /* there it runs */
        assert_false(r.found);
        free(e);
        free(e2);
    }
    free(t);
    /* tree_cover_t1n's store runs in thread 1 whatever the data (the word 0 or n): a reading
     * that missed it would call the word 0 -- here a block comment that ptxas skips but a
     * line-by-line reading would take as `ret;` before the store, and the store past the cut
     * of an over-long line (tree_store_tid's store, in thread 0, was used up to session 42's
     * REF9, which reads that word as n past the barrier: test_module_data_cover) */
    t = one_kernel("tree_cover_t1n");
    entry = "_Z14tree_cover_t1nPKfPfPKii";
    r = scan_store_text(t, entry, 256, true, 1000);
    assert_false(r.found);
    st = strstr(t, "[hk_cv_t1n]");
    assert_non_null(st);
    while (st > t && st[-1] != '\n')
        st--;
    sl = (size_t)(strchr(st, '\n') - st);
    assert_true(sl < sizeof stline);
    memcpy(stline, st, sl);
    stline[sl] = '\0';
    snprintf(with, sizeof with, "\tmov.u32 %%r99, /*;\n\tret;\n\tmov.u32 %%r98, */ 0;\n%s", stline);
    char *e = text_edit(t, stline, with);
    r = scan_store_text(e, entry, 256, true, 1000);
    assert_false(r.found);
    free(e);
    char *pad = malloc(6000 + sl + 1);
    assert_non_null(pad);
    memset(pad, ' ', 6000);
    memcpy(pad, "\tmov.u32 %r99, 0;", 17);
    memcpy(pad + 6000, stline, sl + 1);
    e = text_edit(t, stline, pad);
    r = scan_store_text(e, entry, 256, true, 1000);
    assert_false(r.found);
    free(e);
    free(pad);
    free(t);
    /* ptxdata alone: stores in one entry are noted with it; in a device function, two
     * entries, or with the entry named elsewhere, not */
    static const char text[] =
        ".global .align 4 .u32 one;\n.global .align 4 .u32 two;\n.global .align 4 .u32 fn;\n"
        ".global .align 4 .u32 named;\n"
        ".func f()\n{\n\tst.global.u32 [fn], 1;\n\tret;\n}\n"
        ".visible .entry a(\n\t.param .u32 a_param_0\n)\n{\n\tst.global.u32 [one+4], 1;\n"
        "\tst.global.u32 [one], 2;\n\tst.global.u32 [two], 1;\n\tret;\n}\n"
        ".visible .entry b()\n{\n\tst.global.u32 [two], 1;\n\tst.global.u32 [named], 1;\n"
        "\tmov.u64 %rd1, b;\n\tret;\n}\n";
    ptxdata *d = NULL;
    assert_int_equal(ptxdata_read(text, strlen(text), NULL, 0, &d), HK_OK);
    int found = 0;
    for (long k = 0; k < ptxdata_names(d); k++) {
        const char *name, *ent;
        long nst;
        if (!ptxdata_stored(d, k, &name, &ent, &nst))
            continue;
        found++;
        assert_string_equal(name, "one");
        assert_string_equal(ent, "a");
        assert_int_equal(nst, 2);
    }
    assert_int_equal(found, 1);
    int64_t v = -1;
    assert_false(ptxdata_load(d, "one", 0, false, 4, false, &v));
    ptxdata_allow(d, "one");
    assert_true(ptxdata_load(d, "one", 0, false, 4, false, &v));
    assert_int_equal(v, 0);
    ptxdata_allow(d, "two"); /* not one of them: stays unknown */
    assert_false(ptxdata_load(d, "two", 0, false, 4, false, &v));
    long defined = 0, known = 0;
    ptxdata_counts(d, &defined, &known);
    assert_int_equal(defined, 4); /* the functions not counted */
    ptxdata_free(d);
    /* values of a few (ptxdata_allow_values): the initializer and each value stored, read at
     * the load's offset and width; all of them only where every one may be seen, else only
     * when they are one value */
    static const char few_text[] =
        ".global .align 4 .u32 w = 5;\n.global .align 4 .u32 z;\n"
        ".visible .entry a()\n{\n\tst.global.u32 [w], 7;\n\tst.global.u32 [z], 0;\n\tret;\n}\n";
    int64_t vals[8];
    assert_int_equal(ptxdata_read(few_text, strlen(few_text), NULL, 0, &d), HK_OK);
    assert_int_equal(ptxdata_load_values(d, "w", 0, false, 4, false, vals, 8), 0);
    size_t size = 0;
    assert_true(ptxdata_size(d, "w", &size));
    assert_int_equal(size, 4);
    ptxdata_allow_values(d, "w", (const int64_t[]){7, 0x10000}, 2, false);
    assert_int_equal(ptxdata_load_values(d, "w", 0, false, 4, false, vals, 8), 0);
    ptxdata_allow_values(d, "z", (const int64_t[]){0}, 1, false);
    assert_int_equal(ptxdata_load_values(d, "z", 0, false, 4, false, vals, 8), 1);
    assert_int_equal(vals[0], 0);
    assert_false(ptxdata_load(d, "z", 0, false, 4, false, &v)); /* one value, not allowed */
    ptxdata_free(d);
    assert_int_equal(ptxdata_read(few_text, strlen(few_text), NULL, 0, &d), HK_OK);
    ptxdata_allow_values(d, "w", (const int64_t[]){7, 0x10000, 5}, 3, true);
    assert_int_equal(ptxdata_load_values(d, "w", 0, false, 4, false, vals, 8), 3);
    assert_int_equal(vals[0], 5); /* the initializer first */
    assert_int_equal(vals[1], 7);
    assert_int_equal(vals[2], 0x10000);
    assert_int_equal(ptxdata_load_values(d, "w", 2, false, 2, false, vals, 8), 2); /* 0, 1 */
    assert_int_equal(vals[0], 0);
    assert_int_equal(vals[1], 1);
    assert_int_equal(ptxdata_load_values(d, "w", 0, false, 4, false, vals, 2), 0); /* cap */
    assert_int_equal(ptxdata_load_values(d, "w", 2, false, 4, false, vals, 8), 0); /* past */
    ptxdata_free(d);
}

/* The kernel's entry name as nvcc mangles a TREE_STORE / TREE_COVER kernel. */
static const char *tree_entry(const char *kernel, char *buf, size_t cap)
{
    snprintf(buf, cap, "_Z%zu%sPKfPfPKii", strlen(kernel), kernel);
    return buf;
}

/* A store every block makes before its barrier (docs/referee.md, the paragraph of that name;
 * spin_tid_store_evade.cu): the word reads as the stored value past the barrier, the
 * initializer unseen; not where the store may not run in a block, runs after the barrier,
 * another store writes another value, the barrier is under a branch, the load comes before
 * the barrier or goes through the read-only path. */
static void test_module_data_cover(void **state)
{
    (void)state;
    struct {
        const char *kernel;
        bool found;
        long k, data;
    } cases[] = {
        {"tree_cover", true, 16, 1},         /* the cheat's shape: 5 unseen, 0 races */
        {"tree_cover_neg", false, 0, 1},     /* read -1000: no trip, nothing races */
        {"tree_store_tid", true, 0, 1},      /* n = 1000 stored: s from 1128, races */
        {"tree_store_same", true, 16, 1},    /* 0 over 0 */
        {"tree_cover_loaded", false, 0, 0},  /* a loaded value */
        /* after the barrier: 5 may be read, so the cover rule says nothing; but thread 0's
         * store races with the other threads' loads of the word (no barrier between), and
         * the loop those loads bound holds a barrier: a barrier a raced word decides (REF12) */
        {"tree_cover_late", true, 0, 0},
        {"tree_cover_late_n", true, 0, 0},   /* the same, 0 or n */
        {"tree_cover_blocks", false, 0, 0},  /* block 3 stores -1000 too (one selp) */
        {"tree_cover_dguard", true, 16, 1},  /* under data: the initializer 0 may be read */
        /* the barrier under a branch on data: where flag[1] is 0 thread 0's store and the
         * loop's loads share a barrier interval -- a race on the word, deciding the loop's
         * barrier (REF12) */
        {"tree_cover_bar", true, 0, 0},
        {"tree_cover_t1", false, 0, 0},      /* thread 1 only: tid.x = 0 skips it */
        {"tree_cover_t1n", false, 0, 0},     /* the same, of n */
        /* a load before the barrier too (nvcc stores a register of two writes: not a
         * constant), by every thread while thread 0 stores: a raced word (REF12) */
        {"tree_cover_early", true, 0, 0},
        {"tree_cover_nc", false, 0, 0},      /* __ldg: its address taken, nothing read */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ptxrace_result r = scan_store(cases[i].kernel, 256, true, 1000);
        /* found as a barrier a raced word decides: the word's load is the reason */
        bool late = !strncmp(cases[i].kernel, "tree_cover_late", 15) ||
                    !strcmp(cases[i].kernel, "tree_cover_bar") ||
                    !strcmp(cases[i].kernel, "tree_cover_early");
        if (r.found != cases[i].found || (cases[i].k && r.k != cases[i].k) ||
            r.data_loads != cases[i].data || (r.found && r.barrier != late) ||
            (late && !strstr(r.ld_text, "hk_cv_")))
            fail_msg("%s: found %d (want %d), k %ld, %ld data loads (want %ld)", cases[i].kernel,
                     r.found, cases[i].found, r.k, r.data_loads, cases[i].data);
    }
    /* the store's own guard, in place of the branch around it: thread 1 only (not found), and
     * every thread but 1 (thread 0 among them: found) */
    char *t = one_kernel("tree_cover_t1");
    char entry[128];
    tree_entry("tree_cover_t1", entry, sizeof entry);
    const char *st = strstr(t, "[hk_cv_t1]");
    assert_non_null(st);
    while (st > t && st[-1] != '\n')
        st--;
    char stline[256];
    size_t sl = (size_t)(strchr(st, '\n') - st);
    assert_true(sl < sizeof stline);
    memcpy(stline, st, sl);
    stline[sl] = '\0';
    const char *g = strstr(t, "@%p");
    assert_non_null(g);
    assert_true(g < st);
    const char *gl0 = g;
    while (gl0 > t && gl0[-1] != '\n')
        gl0--;
    char gline[256], gname[16];
    size_t gll = (size_t)(strchr(gl0, '\n') - gl0) + 1;
    assert_true(gll < sizeof gline);
    memcpy(gline, gl0, gll);
    gline[gll] = '\0';
    assert_non_null(strstr(gline, "bra"));
    size_t gn = strcspn(g, " \t");
    assert_true(gn < sizeof gname);
    memcpy(gname, g, gn);
    gname[gn] = '\0';
    char *e = text_edit(t, gline, "");
    char with[300];
    snprintf(with, sizeof with, "\t@!%s %s", gname + 1, stline + 1); /* runs where t == 1 */
    char *e2 = text_edit(e, stline, with);
    ptxrace_result r = scan_store_text(e2, entry, 256, true, 1000);
    assert_false(r.found);
    assert_int_equal(r.data_loads, 0);
    free(e2);
    snprintf(with, sizeof with, "\t%s %s", gname, stline + 1); /* runs where t != 1 */
    e2 = text_edit(e, stline, with);
    r = scan_store_text(e2, entry, 256, true, 1000);
    assert_true(r.found);
    assert_int_equal(r.k, 16);
    assert_int_equal(r.data_loads, 1);
    free(e2);
    free(e);
    free(t);
    /* tree_cover's text edited: found as it is; not with the load through the read-only path
     * (`.nc`), moved before the barrier, the barrier under a guard, a second store of
     * another value, or thread 0 returning before its store */
    t = one_kernel("tree_cover");
    tree_entry("tree_cover", entry, sizeof entry);
    r = scan_store_text(t, entry, 256, true, 1000);
    assert_true(r.found);
    const char *ld = strstr(t, "ld.global.u32");
    assert_non_null(ld);
    assert_non_null(strstr(ld, "[hk_cv]"));
    const char *l0 = ld;
    while (l0 > t && l0[-1] != '\n')
        l0--;
    char ldline[256];
    size_t ll = (size_t)(strchr(l0, '\n') - l0) + 1;
    assert_true(ll < sizeof ldline);
    memcpy(ldline, l0, ll);
    ldline[ll] = '\0';
    assert_non_null(strstr(ldline, "[hk_cv]"));
    const char *qual[] = {"ld.global.nc.u32", "ld.global.ca.u32", "ld.global.L1::evict_last.u32"};
    for (size_t i = 0; i < sizeof qual / sizeof *qual; i++) {
        e = text_edit(t, "ld.global.u32", qual[i]);
        r = scan_store_text(e, entry, 256, true, 1000);
        if (r.found || r.data_loads)
            fail_msg("%s: found %d, %ld data loads", qual[i], r.found, r.data_loads);
        free(e);
    }
    e = text_edit(t, "ld.global.u32", "ld.volatile.global.u32");
    r = scan_store_text(e, entry, 256, true, 1000);
    assert_true(r.found);
    free(e);
    e = text_edit(t, ldline, "");
    snprintf(with, sizeof with, "%s\tbar.sync", ldline);
    e2 = text_edit(e, "\tbar.sync", with);
    r = scan_store_text(e2, entry, 256, true, 1000);
    /* no pair read (the word not read as a value); but the load, moved before the barrier,
     * shares a barrier interval with thread 0's store: a raced word deciding the tree loop's
     * barrier (REF12) */
    assert_true(r.found && r.barrier);
    assert_non_null(strstr(r.ld_text, "[hk_cv]"));
    assert_int_equal(r.data_loads, 0);
    free(e2);
    free(e);
    e = text_edit(t, "\tbar.sync", "\t@%p1 bar.sync");
    r = scan_store_text(e, entry, 256, true, 1000);
    /* the barrier under a guard: a guarded barrier still ends a barrier interval for the
     * raced-word rule (REF12), as it does for the pair reads */
    assert_false(r.found);
    assert_int_equal(r.data_loads, 0);
    free(e);
    /* a second store, of -1000 in block 3 only: the word 0 or -1000 (nvcc makes
     * tree_cover_blocks one store of a selp behind a branch on tid.x and ctaid.x) */
    const char *st0 = strstr(t, "[hk_cv]");
    assert_non_null(st0);
    assert_true(st0 < ld);
    while (st0 > t && st0[-1] != '\n')
        st0--;
    sl = (size_t)(strchr(st0, '\n') - st0);
    assert_true(sl < sizeof stline);
    memcpy(stline, st0, sl);
    stline[sl] = '\0';
    snprintf(with, sizeof with,
             "%s\n\tmov.u32 %%r98, %%ctaid.x;\n\tsetp.eq.s32 %%p9, %%r98, 3;\n"
             "\t@%%p9 st.global.u32 [hk_cv], -1000;", stline);
    e = text_edit(t, stline, with);
    r = scan_store_text(e, entry, 256, true, 1000);
    assert_false(r.found);
    assert_int_equal(r.data_loads, 0);
    free(e);
    e = text_edit(t, "\t@%p1 bra", "\t@!%p1 ret;\n\t@%p1 bra"); /* thread 0 leaves first */
    r = scan_store_text(e, entry, 256, true, 1000);
    assert_false(r.found);
    assert_int_equal(r.data_loads, 0);
    free(e);
    free(t);
    /* ptxdata alone: the one value past the line in the entry holding the stores, else as
     * ptxdata_load_values */
    static const char text[] =
        ".global .align 4 .u32 w = 5;\n"
        ".visible .entry a()\n{\n\tst.global.u32 [w], 0;\n\tret;\n}\n";
    ptxdata *d = NULL;
    int64_t v[4];
    assert_int_equal(ptxdata_read(text, strlen(text), NULL, 0, &d), HK_OK);
    ptxdata_allow_values(d, "w", (const int64_t[]){0}, 1, false);
    ptxdata_allow_cover(d, "w", 10, 0x10000);
    assert_int_equal(ptxdata_load_values_at(d, "w", 0, false, 4, false, "a", 11, v, 4), 1);
    assert_int_equal(v[0], 0x10000);
    assert_int_equal(ptxdata_load_values_at(d, "w", 2, false, 2, false, "a", 11, v, 4), 1);
    assert_int_equal(v[0], 1);
    assert_int_equal(ptxdata_load_values_at(d, "w", 0, false, 4, false, "a", 10, v, 4), 0);
    assert_int_equal(ptxdata_load_values_at(d, "w", 0, false, 4, false, "b", 11, v, 4), 0);
    assert_int_equal(ptxdata_load_values_at(d, "w", 0, false, 4, false, NULL, 11, v, 4), 0);
    assert_int_equal(ptxdata_load_values_at(d, "w", 0, true, 4, false, "a", 11, v, 4), 0);
    ptxdata_free(d);
}

/* A store every block makes before a later barrier (session 42, REF10;
 * spin_bar2_store_evade.cu): the store between the first and second barriers, read past the
 * second. nvcc's PTX: the cheat's shape found (thread 0's store after a loop on data, another
 * thread's loop before it in the text); a load between the barriers not read; a store that
 * block 3 skips, a barrier in a loop before it, thread 1's: not judged. Written PTX: each
 * condition of store_cover on its own. */
static void test_module_data_cover2(void **state)
{
    (void)state;
    struct {
        const char *kernel;
        bool found;
        long k, data;
    } cases[] = {
        {"tree_cover2", true, 16, 1},      /* the cheat's shape: 5 unseen past the second */
        {"tree_cover2_mid", true, 16, 1},  /* the load between the barriers: not read */
        {"tree_cover2_blk", false, 0, 0},  /* block 3's thread 0 skips it (ctaid: either way) */
        {"tree_cover2_bar", false, 0, 0},  /* a barrier in a loop before it */
        {"tree_cover2_t1", false, 0, 0},   /* thread 1 only */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ptxrace_result r = scan_store(cases[i].kernel, 256, true, 1000);
        if (r.found != cases[i].found || (cases[i].k && r.k != cases[i].k) ||
            r.data_loads != cases[i].data)
            fail_msg("%s: found %d (want %d), k %ld, %ld data loads (want %ld)", cases[i].kernel,
                     r.found, cases[i].found, r.k, r.data_loads, cases[i].data);
    }
    /* written: FIRST the first barrier, MID between it and LAST, the word w (5) read past
     * LAST; data: how many loads read as module data (1: the store covers it, 0: not) */
    static const char head[] =
        ".version 8.8\n.target sm_90\n.address_size 64\n"
        ".global .align 4 .u32 w = 5;\n"
        ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
        "\t.reg .pred %p<9>;\n\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<9>;\n"
        "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd3, %rd1;\n"
        "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r6, %ctaid.x;\n";
    static const char tail[] =
        "\tld.global.u32 %r2, [w];\n\tst.global.u32 [%rd3], %r2;\n\tret;\n}\n";
    /* thread 0's store: its branch on tid.x computed first */
    const char *st0 = "\tsetp.ne.s32 %p1, %r1, 0;\n\t@%p1 bra $L__a;\n"
                      "\tst.global.u32 [w], 0;\n$L__a:\n";
    /* a loop of ctaid.x trips, no barrier in it (on a uniform unknown, not on data: the
     * store after it still runs whatever the data, so only store_cover reads the word) */
    const char *loop = "\tmov.u32 %r7, 0;\n$L__b:\n\tadd.s32 %r7, %r7, 1;\n"
                       "\tsetp.lt.u32 %p2, %r7, %r6;\n\t@%p2 bra $L__b;\n";
    struct {
        const char *what, *first, *mid, *last;
        long data;
    } w[] = {
        {"the store between", "\tbar.sync 0;\n", st0, "\tbar.sync 0;\n", 1},
        {"a loop before it", "\tbar.sync 0;\n", NULL, "\tbar.sync 0;\n", 1},
        {"its guard",
         "\tbar.sync 0;\n", "\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 st.global.u32 [w], 0;\n",
         "\tbar.sync 0;\n", 1},
        {"its guard computed after it",
         "\tbar.sync 0;\n", "\t@%p1 st.global.u32 [w], 0;\n\tsetp.eq.s32 %p1, %r1, 0;\n",
         "\tbar.sync 0;\n", 0},
        {"the branch's predicate computed after it",
         "\tbar.sync 0;\n", "\t@%p1 bra $L__a;\n\tsetp.ne.s32 %p1, %r1, 0;\n"
                            "\tst.global.u32 [w], 0;\n$L__a:\n", "\tbar.sync 0;\n", 0},
        {"a branch on ctaid over it",
         "\tbar.sync 0;\n", "\tsetp.eq.s32 %p3, %r6, 3;\n\t@%p3 bra $L__a;\n"
                            "\tst.global.u32 [w], 0;\n$L__a:\n", "\tbar.sync 0;\n", 0},
        {"a loop back over it",
         "\tbar.sync 0;\n", "\tmov.u32 %r7, 0;\n$L__b:\n\tst.global.u32 [w], 0;\n"
                            "\tadd.s32 %r7, %r7, 1;\n\tsetp.lt.u32 %p2, %r7, %r6;\n"
                            "\t@%p2 bra $L__b;\n", "\tbar.sync 0;\n", 0},
        {"a loop after it", "\tbar.sync 0;\n", NULL, "\tbar.sync 0;\n", 0},
        {"a barrier in a loop before it", "\tbar.sync 0;\n", NULL, "\tbar.sync 0;\n", 0},
        {"a barrier number in a register", "\tbar.sync %r1;\n", st0, "\tbar.sync 0;\n", 0},
        {"the second barrier guarded", "\tbar.sync 0;\n", st0, "\t@%p1 bar.sync 0;\n", 0},
        {"a ret before the barrier",
         "\tbar.sync 0;\n\tsetp.eq.s32 %p4, %r1, 7;\n\t@%p4 ret;\n", st0, "\tbar.sync 0;\n", 0},
        {"a partial barrier before it", "\tbar.sync 0;\n\tbar.arrive 1, 64;\n", st0,
         "\tbar.sync 0;\n", 0},
        /* (REF12; spin_ret_store_evade.cu's `if (t >= blockDim.x) return;`) a branch over both
         * barriers that no thread of the 256 takes (tid.x >= 256: false for every tid.x the
         * block has, a constant at the shape) does not stop the store order; one that threads
         * 128 .. 255 take does */
        {"a branch no thread takes over both",
         "\tmov.u32 %r8, %ntid.x;\n\tsetp.ge.s32 %p5, %r1, %r8;\n\t@%p5 bra $L__z;\n"
         "\tbar.sync 0;\n", st0, "\tbar.sync 0;\n$L__z:\n", 1},
        {"a branch some threads take over both",
         "\tsetp.ge.s32 %p5, %r1, 128;\n\t@%p5 bra $L__z;\n\tbar.sync 0;\n", st0,
         "\tbar.sync 0;\n$L__z:\n", 0},
    };
    char mid[1024];
    for (size_t i = 0; i < sizeof w / sizeof *w; i++) {
        const char *m = w[i].mid;
        if (!strcmp(w[i].what, "a loop before it")) {
            snprintf(mid, sizeof mid, "%s%s", loop, st0);
            m = mid;
        } else if (!strcmp(w[i].what, "a loop after it")) {
            snprintf(mid, sizeof mid, "\tst.global.u32 [w], 0;\n%s", loop);
            m = mid;
        } else if (!strcmp(w[i].what, "a barrier in a loop before it")) {
            snprintf(mid, sizeof mid, "\tmov.u32 %%r7, 0;\n$L__b:\n\tbar.sync 0;\n"
                     "\tadd.s32 %%r7, %%r7, 1;\n\tsetp.lt.u32 %%p2, %%r7, %%r6;\n"
                     "\t@%%p2 bra $L__b;\n%s", st0);
            m = mid;
        }
        size_t len = strlen(head) + strlen(w[i].first) + strlen(m) + strlen(w[i].last) +
                     strlen(tail) + 1;
        char *text = malloc(len);
        assert_non_null(text);
        snprintf(text, len, "%s%s%s%s%s", head, w[i].first, m, w[i].last, tail);
        ptxrace_result r = scan_store_text(text, "k", 256, true, 1000);
        if (r.data_loads != w[i].data)
            fail_msg("%s: %ld data loads (want %ld)", w[i].what, r.data_loads, w[i].data);
        free(text);
    }
}

/* (REF13; spin_ptr_call_evade.cu) the store order past a call: thread 0 calls a device
 * function before its store of w between the two barriers, the call as nvcc writes it (a
 * nested callseq scope, the call over four lines). A function read before the entry that holds
 * no barrier and ends by ret alone does not end the walk (w reads 0 past the second barrier:
 * one data load); one that holds a barrier, a partial one, an exit, a call of one that does,
 * a body after the entry (a prototype before), a .weak one, an indirect call, a callseq
 * scope declaring a register the body writes (shadowing), or a statement left open -- does. */
static void test_module_data_cover_call(void **state)
{
    (void)state;
    static const char head[] =
        ".version 8.8\n.target sm_90\n.address_size 64\n"
        ".global .align 4 .u32 w = 5;\n";
    static const char entry_head[] =
        ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
        "\t.reg .pred %p<9>;\n\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<9>;\n"
        "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd3, %rd1;\n"
        "\tmov.u32 %r1, %tid.x;\n\tbar.sync 0;\n"
        "\tsetp.ne.s32 %p1, %r1, 0;\n\t@%p1 bra $L__a;\n";
    static const char entry_tail[] =
        "\tst.global.u32 [w], 0;\n$L__a:\n\tbar.sync 0;\n"
        "\tld.global.u32 %r2, [w];\n\tst.global.u32 [%rd3], %r2;\n\tret;\n}\n";
    /* a function named NAME of body BODY (its value in %r1) */
#define FN(name, body)                                                                        \
    ".func  (.param .b32 func_retval0) " name "()\n{\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, 7;\n" \
    body "\tst.param.b32 [func_retval0+0], %r1;\n\tret;\n}\n"
    /* nvcc's call of NAME, its value into %r20 */
#define CALL(name)                                                                            \
    "\t{ // callseq 0, 0\n\t.reg .b32 temp_param_reg;\n\t.param .b32 retval0;\n"               \
    "\tcall.uni (retval0), \n\t" name ", \n\t(\n\t);\n"                                          \
    "\tld.param.b32 %r20, [retval0+0];\n\t} // callseq 0\n"
    struct {
        const char *what, *before, *call, *after;
        long data;
    } w[] = {
        {"no call", "", "", "", 1},
        {"a quiet function", FN("f", ""), CALL("f"), "", 1},
        {"two calls (two callseq scopes)", FN("f", ""), CALL("f") CALL("f"), "", 1},
        {"the call on one line", FN("f", ""), "\tcall.uni f;\n", "", 1},
        {"a quiet function calling a quiet one", FN("g", "") FN("f", CALL("g")), CALL("f"), "",
         1},
        {"a warp barrier in it", FN("f", "\tbar.warp.sync -1;\n"), CALL("f"), "", 1},
        {"a barrier in it", FN("f", "\tbar.sync 0;\n"), CALL("f"), "", 0},
        {"a guarded barrier in it", FN("f", "\tsetp.eq.s32 %p1, %r1, 7;\n\t@%p1 bar.sync 0;\n"),
         CALL("f"), "", 0},
        {"a partial barrier in it", FN("f", "\tbar.arrive 1, 64;\n"), CALL("f"), "", 0},
        {"an exit in it", FN("f", "\texit;\n"), CALL("f"), "", 0},
        {"a call of a function with a barrier", FN("g", "\tbar.sync 0;\n") FN("f", CALL("g")),
         CALL("f"), "", 0},
        {"a call of an unknown function", ".extern .func g();\n" FN("f", "\tcall.uni g;\n"),
         CALL("f"), "", 0},
        {"its body after the entry", ".func  (.param .b32 func_retval0) f();\n", CALL("f"),
         FN("f", ""), 0},
        {"a .weak function", ".weak " FN("f", ""), CALL("f"), "", 0},
        {"an indirect call", FN("f", ""),
         "\tmov.u64 %rd5, f;\n\t{\n\t.param .b32 retval0;\n"
         "\tcall (retval0), %rd5, (), prototype_0;\n\t}\n", "", 0},
        {"a callseq declaring a register the body writes", FN("f", ""),
         "\t{\n\t.reg .b32 %r1;\n\t.param .b32 retval0;\n\tcall.uni (retval0), f, ();\n"
         "\tld.param.b32 %r1, [retval0+0];\n\t}\n", "", 0},
        {"a nested scope declaring shared memory", FN("f", ""),
         "\t{\n\t.shared .b32 s;\n\tcall.uni f;\n\t}\n", "", 0},
    };
#undef FN
#undef CALL
    for (size_t i = 0; i < sizeof w / sizeof *w; i++) {
        size_t len = strlen(head) + strlen(w[i].before) + strlen(entry_head) + strlen(w[i].call) +
                     strlen(entry_tail) + strlen(w[i].after) + 1;
        char *text = malloc(len);
        assert_non_null(text);
        snprintf(text, len, "%s%s%s%s%s%s", head, w[i].before, entry_head, w[i].call, entry_tail,
                 w[i].after);
        ptxrace_result r = scan_store_text(text, "k", 256, true, 1000);
        if (r.data_loads != w[i].data)
            fail_msg("%s: %ld data loads (want %ld)", w[i].what, r.data_loads, w[i].data);
        free(text);
    }
}

/* the forms written out (test_float_zero, test_float_range): %f1 a word of data, then a form
 * that makes %r9 */
static const char float_head[] =
    ".version 8.8\n.target sm_90\n.address_size 64\n"
    ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
    "\t.reg .pred %p<9>;\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<9>;\n\t.reg .b64 %rd<9>;\n"
    "\t.shared .align 4 .b8 s[4096];\n"
    "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tld.global.f32 %f1, [%rd2];\n";
/* %r9 the term: lane t stores s[t], then reads s[t + 16 + %r9] with no barrier */
static const char float_tail[] =
    "\tmov.u32 %r1, %tid.x;\n\tshl.b32 %r2, %r1, 2;\n\tmov.u32 %r3, s;\n"
    "\tadd.s32 %r4, %r3, %r2;\n\tst.shared.u32 [%r4], %r1;\n"
    "\tadd.s32 %r10, %r9, 16;\n\tshl.b32 %r11, %r10, 2;\n\tadd.s32 %r12, %r4, %r11;\n"
    "\tld.shared.u32 %r13, [%r12];\n\tst.global.u32 [%rd2], %r13;\n\tret;\n}\n";

/* A float of the values +0, -0, NaN made an int (spin_nan_evade.cu's `(int)(in[0] * 0.0f)`):
 * 0 at every launch, so the tree's start is known; a conversion from a double, or of a
 * product by a number not zero: not known. Since REF17 a conversion to 64 bits is read (a
 * NaN gives 1 << 63 there: the low 32 bits still 0). */
static void test_float_zero(void **state)
{
    (void)state;
    /* tree_fzero_s64, (int)(long long)(x * 0.0f): cvt.rzi.s64.f32 of +-0 or a NaN is 0 or
     * 1 << 63 (the NaN's), whose low 32 bits are 0 both: found since REF17 */
    const char *found[] = {"tree_fzero", "tree_fzero_fma", "tree_fsub", "tree_fdiv_inf",
                           "tree_fzero_s64"};
    for (size_t i = 0; i < sizeof found / sizeof *found; i++) {
        const char *k[] = {found[i]};
        ptxrace_result r = scan_data(k, 1, 256, false, NULL);
        if (!r.found || r.k != 16)
            fail_msg("%s at 256 threads: no finding at k = 16", found[i]);
        r = scan_data(k, 1, 1024, false, NULL);
        if (!r.found)
            fail_msg("%s at 1024 threads: no finding", found[i]);
    }
    const char *not_found[] = {"tree_fzero_f64", "tree_fsmall", "tree_fsub_other",
                               "tree_fdiv_two"};
    for (size_t i = 0; i < sizeof not_found / sizeof *not_found; i++) {
        const char *k[] = {not_found[i]};
        ptxrace_result r = scan_data(k, 1, 256, false, NULL);
        if (r.found)
            fail_msg("%s: a finding (its value is not known)", not_found[i]);
    }
    static const struct {
        const char *mid;
        bool race;
    } forms[] = {
        {"\tmul.rn.ftz.sat.f32 %f2, %f1, 0f80000000;\n\tcvt.rni.u32.f32 %r9, %f2;\n", true},
        {"\tmul.f32 %f2, 0f00000000, %f1;\n\tmov.f32 %f3, %f2;\n\tcvt.rmi.s16.f32 %r9, %f3;\n", true},
        {"\tmul.f32 %f2, %f1, 0f00000000;\n\tfma.rn.f32 %f3, %f1, %f2, %f2;\n"
         "\tcvt.rzi.s32.f32 %r9, %f3;\n", true},
        {"\tmul.f32 %f2, %f1, 0f00000000;\n\tfma.rn.f32 %f3, %f1, %f2, %f1;\n"
         "\tcvt.rzi.s32.f32 %r9, %f3;\n", false}, /* the addend is data */
        {"\tmul.f32 %f2, %f1, 0f00000001;\n\tcvt.rzi.s32.f32 %r9, %f2;\n", false},
        {"\tmul.f32 %f2, %f1, 0f00000000;\n\tcvt.rzi.s64.f32 %r9, %f2;\n", true}, /* REF17 */
        {"\tmul.f32 %f2, %f1, 0f00000000;\n\tcvt.rn.f32.f32 %f3, %f2;\n\tcvt.rzi.s32.f32 %r9, %f3;\n", false},
        {"\tsetp.gt.f32 %p1, %f1, 0f00000000;\n\t@%p1 mul.f32 %f2, %f1, 0f00000000;\n"
         "\tcvt.rzi.s32.f32 %r9, %f2;\n", false}, /* guarded: %f2 may be left unwritten */
        {"\tmul.f32 %f2, %f1, 0f00000000;\n\tmul.f32 %f2, %f1, %f1;\n"
         "\tcvt.rzi.s32.f32 %r9, %f2;\n", false}, /* written twice */
        {"\tmul.f32 %f2, %f1, 0f00000000;\n\tcvt.rzi.s32.f32 %r9, %f2;\n", true},
        /* forms ptxas refuses (types that do not match, no integer rounding): not read */
        {"\tmul.f32 %f2, %f1, 0f00000000;\n\tcvt.rzi.s32.f64 %r9, %f2;\n", false},
        {"\tmul.f32 %f2, %f1, 0f00000000;\n\tmul.f64 %f3, %f1, %f2;\n"
         "\tcvt.rzi.s32.f32 %r9, %f3;\n", false},
        {"\tmul.f32 %f2, %f1, 0f00000000;\n\tcvt.s32.f32 %r9, %f2;\n", false},
        /* the value-classes (session 42): x - x (+0, -0 under .rm, NaN), x / inf, and what
         * IEEE operations make of such values; not x - 1, x + x, x / 0, an approximate
         * quotient, a zero plus data */
        {"\tsub.f32 %f2, %f1, %f1;\n\tcvt.rzi.s32.f32 %r9, %f2;\n", true},
        {"\tsub.rm.ftz.f32 %f2, %f1, %f1;\n\tcvt.rpi.s8.f32 %r9, %f2;\n", true},
        {"\tsub.sat.f32 %f2, %f1, %f1;\n\tcvt.rni.s32.f32 %r9, %f2;\n", true},
        {"\tdiv.rn.f32 %f2, %f1, 0f7F800000;\n\tcvt.rzi.s32.f32 %r9, %f2;\n", true},
        {"\tdiv.rn.f32 %f2, %f1, 0fFF800000;\n\tneg.f32 %f3, %f2;\n\tabs.f32 %f4, %f3;\n"
         "\tcvt.rzi.s32.f32 %r9, %f4;\n", true},
        {"\tmov.f32 %f2, 0f7F800000;\n\tsub.f32 %f3, %f2, %f2;\n\tcvt.rzi.s32.f32 %r9, %f3;\n",
         true}, /* inf - inf: NaN */
        {"\tsub.f32 %f2, %f1, %f1;\n\tmul.f32 %f3, %f2, %f1;\n\tadd.f32 %f4, %f3, %f2;\n"
         "\tcvt.rzi.s32.f32 %r9, %f4;\n", true},
        {"\tsub.f32 %f2, %f1, %f1;\n\tsetp.gt.f32 %p1, %f1, 0f00000000;\n"
         "\tselp.f32 %f3, %f2, 0f80000000, %p1;\n\tcvt.rzi.s32.f32 %r9, %f3;\n", true},
        {"\tsub.f32 %f2, %f1, %f1;\n\tsetp.gt.f32 %p1, %f1, 0f00000000;\n"
         "\tselp.f32 %f3, %f2, 0f3F800000, %p1;\n\tcvt.rzi.s32.f32 %r9, %f3;\n", false},
        {"\tsub.f32 %f2, %f1, 0f3F800000;\n\tcvt.rzi.s32.f32 %r9, %f2;\n", false},
        {"\tadd.f32 %f2, %f1, %f1;\n\tcvt.rzi.s32.f32 %r9, %f2;\n", false},
        {"\tdiv.rn.f32 %f2, %f1, 0f00000000;\n\tcvt.rzi.s32.f32 %r9, %f2;\n", false},
        {"\tdiv.approx.f32 %f2, %f1, 0f7F800000;\n\tcvt.rzi.s32.f32 %r9, %f2;\n", false},
        {"\tdiv.full.f32 %f2, %f1, 0f7F800000;\n\tcvt.rzi.s32.f32 %r9, %f2;\n", false},
        {"\tsub.f32 %f2, %f1, %f1;\n\tadd.f32 %f3, %f2, %f1;\n\tcvt.rzi.s32.f32 %r9, %f3;\n",
         false},
        {"\tsub.f32 %f2, %f1, %f1;\n\tdiv.rn.f32 %f3, %f1, %f2;\n\tcvt.rzi.s32.f32 %r9, %f3;\n",
         false}, /* x / 0: an infinity */
        {"\tsub.f32 %f2, %f1, %f1;\n\tcvt.rzi.s64.f32 %r9, %f2;\n", true}, /* REF17: 0 or
                                                                       * 1 << 63, low 0 */
        /* session 45 review: x - x of a product with no rounding modifier on either may be
         * contracted by ptxas to fma(a, b, -x), the product's rounding error; .rn on either
         * forbids it */
        {"\tmul.f32 %f2, %f1, %f1;\n\tsub.f32 %f3, %f2, %f2;\n\tcvt.rzi.s32.f32 %r9, %f3;\n",
         false},
        {"\tmul.f32 %f2, %f1, %f1;\n\tsub.rn.f32 %f3, %f2, %f2;\n\tcvt.rzi.s32.f32 %r9, %f3;\n",
         true},
        {"\tmul.rn.f32 %f2, %f1, %f1;\n\tsub.f32 %f3, %f2, %f2;\n\tcvt.rzi.s32.f32 %r9, %f3;\n",
         true},
        {"\tmul.f32 %f2, %f1, %f1;\n\tmov.f32 %f4, %f2;\n\tsub.f32 %f3, %f4, %f4;\n"
         "\tcvt.rzi.s32.f32 %r9, %f3;\n", false}, /* a copy of the product */
    };
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        char text[2048];
        snprintf(text, sizeof text, "%s%s%s", float_head, forms[i].mid, float_tail);
        ptxrace_result r;
        assert_int_equal(ptxrace_scan_shape(text, strlen(text), (const long[]){256, 1, 1}, &r), HK_OK);
        if (r.found != forms[i].race)
            fail_msg("form %zu (%s): found %d", i, forms[i].mid, r.found);
        if (r.found && r.k != 16)
            fail_msg("form %zu: k = %ld", i, r.k);
    }
}

/* Ranges of floats (session 43, REF14): a cvt to an integer of a value whose range rounds to
 * one integer (0 also where a NaN can come) is that integer -- min, max, abs, neg, .sat, add,
 * mul, fma, selp carry the range; a range that rounds to two integers, a NaN beside a range
 * that rounds to 1, a bound at infinity, a guarded or twice-written step are not known (a
 * 64-bit integer until REF17: its form below is found since, its low word 0 either way). */
static void test_float_range(void **state)
{
    (void)state;
    const char *found[] = {"tree_frange", "tree_frange_sat"};
    for (size_t i = 0; i < sizeof found / sizeof *found; i++) {
        const char *k[] = {found[i]};
        ptxrace_result r = scan_data(k, 1, 256, false, NULL);
        if (!r.found || r.k != 16)
            fail_msg("%s at 256 threads: no finding at k = 16", found[i]);
    }
    const char *not_found[] = {"tree_frange_one", "tree_frange_up"};
    for (size_t i = 0; i < sizeof not_found / sizeof *not_found; i++) {
        const char *k[] = {not_found[i]};
        ptxrace_result r = scan_data(k, 1, 256, false, NULL);
        if (r.found)
            fail_msg("%s: a finding (its value is 0 or 1)", not_found[i]);
    }
#define MIN_HALF "\tabs.f32 %f2, %f1;\n\tmov.f32 %f3, 0f3F000000;\n\tmin.f32 %f4, %f2, %f3;\n"
    static const struct {
        const char *mid;
        bool race;
    } forms[] = {
        {MIN_HALF "\tcvt.rzi.s32.f32 %r9, %f4;\n", true}, /* nvcc's form of the cheat */
        {"\tmin.f32 %f2, %f1, 0f3F400000;\n\tmax.ftz.f32 %f3, %f2, 0fBF400000;\n"
         "\tcvt.rzi.s16.f32 %r9, %f3;\n", true}, /* [-0.75, 0.75] */
        {"\tadd.sat.f32 %f2, %f1, 0f00000000;\n\tmul.f32 %f3, %f2, 0f3E800000;\n"
         "\tadd.rn.f32 %f4, %f3, 0f3E800000;\n\tcvt.rmi.u32.f32 %r9, %f4;\n", true}, /* [.25, .5] */
        {"\tmax.NaN.f32 %f2, %f1, 0f3F000000;\n\tmin.NaN.f32 %f3, %f2, 0f3F000000;\n"
         "\tcvt.rzi.s32.f32 %r9, %f3;\n", true}, /* 0.5 or NaN: 0 either way */
        {MIN_HALF "\tsetp.gt.f32 %p1, %f1, 0f00000000;\n\tselp.f32 %f5, %f4, 0f3E800000, %p1;\n"
         "\tcvt.rzi.s32.f32 %r9, %f5;\n", true},
        {MIN_HALF "\tfma.rn.f32 %f5, %f4, 0f3F000000, 0f3E800000;\n\tneg.f32 %f6, %f5;\n"
         "\tcvt.rzi.s32.f32 %r9, %f6;\n", true}, /* -[.25, .5] */
        {MIN_HALF "\tsub.f32 %f5, %f4, 0f3F000000;\n\tcvt.rpi.s32.f32 %r9, %f5;\n", true},
        /* not one integer */
        {"\tabs.f32 %f2, %f1;\n\tmin.f32 %f4, %f2, 0f3F800000;\n\tcvt.rzi.s32.f32 %r9, %f4;\n",
         false}, /* [0, 1] */
        {"\tmin.f32 %f4, %f1, 0f3F000000;\n\tcvt.rzi.s32.f32 %r9, %f4;\n", false}, /* no abs */
        {MIN_HALF "\tcvt.rpi.s32.f32 %r9, %f4;\n", false},
        {"\tmax.NaN.f32 %f2, %f1, 0f3F000000;\n\tmin.NaN.f32 %f3, %f2, 0f3F000000;\n"
         "\tcvt.rpi.s32.f32 %r9, %f3;\n", false}, /* 1, or 0 from a NaN */
        {"\tmax.f32 %f2, %f1, 0f3F000000;\n\tmin.f32 %f3, %f2, 0f3F000000;\n"
         "\tcvt.rpi.s32.f32 %r9, %f3;\n", false}, /* the same, a NaN operand read either way */
        {MIN_HALF "\tadd.f32 %f5, %f4, %f4;\n\tcvt.rzi.s32.f32 %r9, %f5;\n", false},
        {MIN_HALF "\tmul.f32 %f5, %f4, 0f7F800000;\n\tcvt.rzi.s32.f32 %r9, %f5;\n", false},
        {MIN_HALF "\tcvt.rzi.s64.f32 %r9, %f4;\n", true}, /* since REF17: 0 or, from a NaN,
                                                          * 1 << 63: low 32 bits 0 */
        {MIN_HALF "\tsetp.gt.f32 %p1, %f1, 0f00000000;\n\t@%p1 min.f32 %f5, %f4, %f3;\n"
         "\tcvt.rzi.s32.f32 %r9, %f5;\n", false}, /* guarded */
        {MIN_HALF "\tmov.f32 %f4, %f1;\n\tcvt.rzi.s32.f32 %r9, %f4;\n", false}, /* twice */
        {"\tabs.f32 %f2, %f1;\n\tmin.xorsign.abs.f32 %f4, %f2, 0f3F000000;\n"
         "\tcvt.rzi.s32.f32 %r9, %f4;\n", false}, /* a form not read */
        {"\tmax.f32 %f2, %f1, 0f43960000;\n\tmin.f32 %f3, %f2, 0f43960000;\n"
         "\tcvt.rzi.u8.f32 %r9, %f3;\n", false}, /* 300 past a u8 */
    };
#undef MIN_HALF
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        char text[2048];
        snprintf(text, sizeof text, "%s%s%s", float_head, forms[i].mid, float_tail);
        ptxrace_result r;
        assert_int_equal(ptxrace_scan_shape(text, strlen(text), (const long[]){256, 1, 1}, &r), HK_OK);
        if (r.found != forms[i].race)
            fail_msg("form %zu (%s): found %d", i, forms[i].mid, r.found);
        if (r.found && r.k != 16)
            fail_msg("form %zu: k = %ld", i, r.k);
    }
}

/* Ranges of integers (session 43, REF15): a register of 8-32 bits written once, unguarded,
 * carries the range of a cvt of a float range, of an immediate, and through shr/shl by a known
 * amount, and, min, max, add, sub, mul.lo, neg, abs, selp and a cvt between integers; one
 * point is that constant. spin_int_range_evade.cu's `(int)fminf(fabsf(x), 1.0f) >> 1` is 0;
 * two values left by a shift, a possible wrap, an unsigned read of a negative range, a guarded
 * or twice-written step, a shift by a register are not known. */
static void test_int_range(void **state)
{
    (void)state;
#define ONE "\tabs.f32 %f2, %f1;\n\tmin.f32 %f4, %f2, 0f3F800000;\n\tcvt.rzi.s32.f32 %r20, %f4;\n"
#define BIT "\tld.global.u32 %r21, [%rd2];\n\tand.b32 %r22, %r21, 1;\n"
#define NEG ONE "\tneg.s32 %r21, %r20;\n\tsub.s32 %r22, %r21, 2;\n" /* [-3, -2] */
    static const struct {
        const char *mid;
        long k; /* the finding's k, 0: none */
    } forms[] = {
        {ONE "\tshr.s32 %r9, %r20, 1;\n", 16}, /* nvcc's form of the cheat: {0, 1} >> 1 */
        {ONE "\tshr.u32 %r9, %r20, 1;\n", 16},
        {ONE "\tshr.b32 %r9, %r20, 1;\n", 16},
        {BIT "\tshr.u32 %r9, %r22, 1;\n", 16}, /* a mask of data */
        {ONE "\tadd.s32 %r21, %r20, 2;\n\tshr.u32 %r9, %r21, 2;\n", 16}, /* [2, 3] >> 2 */
        {ONE "\tshl.b32 %r21, %r20, 1;\n\tshr.u32 %r9, %r21, 2;\n", 16},
        {ONE "\tmul.lo.s32 %r21, %r20, 3;\n\tshr.u32 %r9, %r21, 2;\n", 16},
        {"\tld.global.u32 %r21, [%rd2];\n\tmin.s32 %r22, %r21, 1;\n\tmax.s32 %r23, %r22, 0;\n"
         "\tshr.u32 %r9, %r23, 1;\n", 16},
        {ONE "\tsetp.gt.f32 %p1, %f1, 0f00000000;\n\tselp.b32 %r21, %r20, 1, %p1;\n"
         "\tshr.u32 %r9, %r21, 1;\n", 16},
        {ONE "\tneg.s32 %r21, %r20;\n\tabs.s32 %r22, %r21;\n\tcvt.u32.s32 %r23, %r22;\n"
         "\tshr.u32 %r9, %r23, 1;\n", 16},
        {NEG "\tshr.s32 %r9, %r22, 2;\n", 15}, /* shr.s of [-3, -2]: -1 (toward -inf) */
        {NEG "\tshr.s32 %r23, %r22, 1;\n\tadd.s32 %r9, %r23, 3;\n", 0}, /* [-2, -1] + 3 */
        /* not one value */
        {ONE "\tmov.b32 %r9, %r20;\n", 0},
        {ONE "\tadd.s32 %r21, %r20, 1;\n\tshr.u32 %r9, %r21, 1;\n", 0}, /* [1, 2] >> 1 */
        {ONE "\tneg.s32 %r21, %r20;\n\tshr.s32 %r9, %r21, 1;\n", 0}, /* [-1, 0] >> 1: -1, 0 */
        {BIT "\tadd.u32 %r23, %r22, 0xFFFFFFFF;\n\tmin.u32 %r9, %r23, 5;\n", 0}, /* wraps to 0 */
        {BIT "\tmul.lo.u32 %r23, %r22, 0x80000001;\n\tshl.b32 %r24, %r23, 1;\n"
         "\tshr.u32 %r9, %r24, 31;\n", 0}, /* the shl could lose a bit */
        /* since REF16 known: the patterns of [-3, -2] share their top 30 bits (ones) */
        {NEG "\tcvt.u32.s32 %r23, %r22;\n\tshr.u32 %r9, %r23, 31;\n", 17}, /* 1 */
        {NEG "\tshr.u32 %r9, %r22, 30;\n", 19}, /* an unsigned read of [-3, -2]: 3 */
        {ONE "\tsetp.gt.f32 %p1, %f1, 0f00000000;\n\t@%p1 add.s32 %r21, %r20, 2;\n"
         "\tshr.u32 %r9, %r21, 2;\n", 0}, /* guarded: its range is not carried */
        {ONE "\tadd.s32 %r21, %r20, 2;\n\tld.global.u32 %r21, [%rd2];\n\tshr.u32 %r9, %r21, 2;\n",
         0}, /* written twice */
        {BIT "\tld.global.u32 %r23, [%rd2+4];\n\tshr.u32 %r9, %r22, %r23;\n", 0},
        {BIT "\tshr.u32 %r9, %r22, 33;\n", 0}, /* past the width: not read */
        {BIT "\tmax.s16x2 %r23, %r22, 0;\n\tmin.s16x2 %r24, %r23, 1;\n\tshr.u32 %r9, %r24, 1;\n",
         0}, /* packed halves: not one integer */
    };
#undef ONE
#undef BIT
#undef NEG
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        char text[2048];
        snprintf(text, sizeof text, "%s%s%s", float_head, forms[i].mid, float_tail);
        ptxrace_result r;
        assert_int_equal(ptxrace_scan_shape(text, strlen(text), (const long[]){256, 1, 1}, &r), HK_OK);
        if (r.found != (forms[i].k != 0))
            fail_msg("form %zu (%s): found %d", i, forms[i].mid, r.found);
        if (r.found && r.k != forms[i].k)
            fail_msg("form %zu: k = %ld (want %ld)", i, r.k, forms[i].k);
    }
}

/* Known bits beside the ranges (session 44, REF16): for each bit of a register the rule
 * follows, known 0, known 1 or unknown -- from constants, the bits a range shares, and/or/xor/
 * not, shifts, cvt (sign extension), selp, add/sub where the carry is known, mul's low zeros;
 * mul.hi, mul.wide, mad.lo, div/rem by a number, popc, clz and 64-bit registers carry ranges.
 * A value whose bits are all known is that constant: spin_int_bits_evade.cu's `& 2` of [0, 1],
 * spin_int_wide_evade.cu's trip through 64 bits, spin_int_mulhi_evade.cu's high word. A mask
 * that keeps a bit of the range, an add whose carry can reach the masked bit, a sign not
 * known, a product past the high word, a guarded write stay unknown. */
static void test_int_bits(void **state)
{
    (void)state;
#define ONE "\tabs.f32 %f2, %f1;\n\tmin.f32 %f4, %f2, 0f3F800000;\n\tcvt.rzi.s32.f32 %r20, %f4;\n"
#define DAT "\tld.global.u32 %r21, [%rd2];\n"
#define BIT DAT "\tand.b32 %r22, %r21, 1;\n"
#define NEG ONE "\tneg.s32 %r21, %r20;\n\tsub.s32 %r22, %r21, 2;\n" /* [-3, -2] */
#define HALF "\tsetp.gt.f32 %p1, %f1, 0f00000000;\n"
    static const struct {
        const char *mid;
        long k; /* the finding's k, 0: none */
    } forms[] = {
        {ONE "\tand.b32 %r9, %r20, 2;\n", 16}, /* nvcc's form of spin_int_bits_evade */
        {ONE "\tcvt.u64.u32 %rd3, %r20;\n\tshl.b64 %rd4, %rd3, 40;\n\tshr.s64 %rd5, %rd4, 41;\n"
         "\tcvt.u32.u64 %r9, %rd5;\n", 16}, /* spin_int_wide_evade */
        {ONE "\tmov.u32 %r21, 2147483647;\n\tmul.hi.u32 %r9, %r20, %r21;\n", 16}, /* mulhi */
        {ONE "\tshr.u32 %r21, %r20, 31;\n\tadd.s32 %r22, %r20, %r21;\n\tand.b32 %r23, %r22, -2;\n"
         "\tsub.s32 %r24, %r20, %r23;\n\tshr.s32 %r9, %r24, 1;\n", 16}, /* nvcc's (v % 2) >> 1 */
        {ONE "\tor.b32 %r21, %r20, 4;\n\tand.b32 %r9, %r21, 2;\n", 16},
        {ONE "\txor.b32 %r21, %r20, 8;\n\tand.b32 %r9, %r21, 6;\n", 16},
        {ONE BIT "\txor.b32 %r23, %r20, %r22;\n\tand.b32 %r9, %r23, 2;\n", 16}, /* two [0, 1] */
        {DAT "\trem.u32 %r9, %r21, 1;\n", 16}, /* any data % 1 */
        {DAT "\trem.u32 %r22, %r21, 4;\n\tshr.u32 %r9, %r22, 2;\n", 16},
        {ONE "\trem.s32 %r21, %r20, 4;\n\tshr.u32 %r9, %r21, 1;\n", 16},
        {DAT "\tor.b32 %r22, %r21, 2;\n\tnot.b32 %r23, %r22;\n\tand.b32 %r9, %r23, 2;\n", 16},
        {DAT "\tpopc.b32 %r22, %r21;\n\tshr.u32 %r9, %r22, 6;\n", 16}, /* [0, 32] */
        {DAT "\tld.global.u64 %rd3, [%rd2];\n\tclz.b64 %r22, %rd3;\n\tshr.u32 %r9, %r22, 7;\n",
         16}, /* [0, 64] */
        {BIT "\tshl.b32 %r23, %r22, 2;\n\tadd.s32 %r24, %r23, %r22;\n\tand.b32 %r9, %r24, 2;\n",
         16}, /* 0 or 5: no carry reaches bit 1 */
        {ONE "\tmul.wide.u32 %rd3, %r20, 65536;\n\tshr.u64 %rd4, %rd3, 17;\n"
         "\tcvt.u32.u64 %r9, %rd4;\n", 16},
        {ONE "\tmad.lo.s32 %r21, %r20, 3, 1;\n\tshr.u32 %r9, %r21, 3;\n", 16}, /* 1 or 4 */
        {BIT "\tdiv.u32 %r9, %r22, 2;\n", 16},
        {ONE "\tsetp.gt.f32 %p2, %f1, 0f00000000;\n\tselp.b32 %r21, 8, 12, %p2;\n"
         "\tor.b32 %r22, %r21, %r20;\n\tand.b32 %r9, %r22, 2;\n", 16}, /* selp: bits both share */
        {NEG "\tcvt.s64.s32 %rd3, %r22;\n\tshr.u64 %rd4, %rd3, 62;\n\tcvt.u32.u64 %r9, %rd4;\n",
         19}, /* sign-extended: the top bits 1, 3 */
        {NEG "\tcvt.u64.u32 %rd3, %r22;\n\tshr.u64 %rd4, %rd3, 31;\n\tcvt.u32.u64 %r9, %rd4;\n",
         17}, /* zero-extended as a u32: 0xFFFFFFFD or E >> 31, 1 */
        {ONE "\tcvt.u64.u32 %rd3, %r20;\n\tshl.b64 %rd4, %rd3, 63;\n\tand.b64 %rd5, %rd4, 1;\n"
         "\tcvt.u32.u64 %r9, %rd5;\n", 16}, /* a shift by 63: the low bits 0 (no range) */
        {"\tsetp.eq.u32 %p1, 1, 1;\n" ONE "\t@%p1 shr.u32 %r9, %r20, 1;\n", 16}, /* guard true */
        {"\tsetp.eq.u32 %p1, 1, 2;\n" ONE "\t@!%p1 and.b32 %r9, %r20, 2;\n", 16},
        /* not one value */
        {ONE "\tand.b32 %r9, %r20, 1;\n", 0}, /* the mask keeps a bit of the range */
        {ONE "\tand.b32 %r9, %r20, 3;\n", 0},
        {ONE "\tadd.s32 %r21, %r20, 1;\n\tand.b32 %r9, %r21, 2;\n", 0}, /* 1 or 2: a carry */
        {ONE BIT "\tadd.s32 %r23, %r20, %r22;\n\tand.b32 %r9, %r23, 2;\n", 0}, /* 0 .. 2 */
        {ONE "\tneg.s32 %r21, %r20;\n\tcvt.s64.s32 %rd3, %r21;\n\tshr.u64 %rd4, %rd3, 63;\n"
         "\tcvt.u32.u64 %r9, %rd4;\n", 0}, /* [-1, 0]: the sign not known */
        {NEG "\tcvt.s64.s32 %rd3, %r22;\n\tand.b64 %rd4, %rd3, 1;\n\tcvt.u32.u64 %r9, %rd4;\n",
         0}, /* -3 or -2: bit 0 differs */
        {DAT "\tand.b32 %r22, %r21, 3;\n\tmul.hi.u32 %r9, %r22, 0x80000000;\n", 0}, /* 0 or 1 */
        {ONE "\tcvt.u64.u32 %rd3, %r20;\n\tshl.b64 %rd4, %rd3, 40;\n\tshr.s64 %rd5, %rd4, 40;\n"
         "\tcvt.u32.u64 %r9, %rd5;\n", 0}, /* the bit kept */
        {ONE "\tneg.s32 %r21, %r20;\n\trem.s32 %r9, %r21, 4;\n", 0}, /* -1 or 0 */
        {ONE "\tcvt.u64.u32 %rd3, %r20;\n\tshl.b64 %rd4, %rd3, 63;\n\tshr.u64 %rd5, %rd4, 63;\n"
         "\tcvt.u32.u64 %r9, %rd5;\n", 0}, /* the bit there and back */
        {DAT "\tpopc.b32 %r22, %r21;\n\tshr.u32 %r9, %r22, 5;\n", 0}, /* 32 >> 5 is 1 */
        {DAT "\trem.u32 %r9, %r21, %r21;\n", 0}, /* a divisor not known */
        /* (REF16) a guarded write: where the guard fails the register is never written */
        {ONE HALF "\t@%p1 shr.u32 %r9, %r20, 1;\n", 0},
        {HALF "\t@%p1 mov.u32 %r9, 0;\n", 0},
        {ONE HALF "\t@%p1 and.b32 %r21, %r20, 2;\n\tmov.u32 %r9, %r21;\n", 0},
        {"\tsetp.eq.u32 %p1, 1, 2;\n" ONE "\t@%p1 shr.u32 %r9, %r20, 1;\n", 0}, /* never runs */
    };
#undef ONE
#undef DAT
#undef BIT
#undef NEG
#undef HALF
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        char text[2048];
        snprintf(text, sizeof text, "%s%s%s", float_head, forms[i].mid, float_tail);
        ptxrace_result r;
        assert_int_equal(ptxrace_scan_shape(text, strlen(text), (const long[]){256, 1, 1}, &r), HK_OK);
        if (r.found != (forms[i].k != 0))
            fail_msg("form %zu (%s): found %d", i, forms[i].mid, r.found);
        if (r.found && r.k != forms[i].k)
            fail_msg("form %zu: k = %ld (want %ld)", i, r.k, forms[i].k);
    }
}

/* One form of a module-data test: head + mid + float_tail scanned at 256 threads with the
 * module's data read; a finding exactly when k, at that k. */
static void module_form(const char *head, size_t i, const char *mid, long k)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s%s", head, mid, float_tail);
    ptxrace_launch l;
    memset(&l, 0, sizeof l);
    l.shape[0] = 256;
    l.shape[1] = l.shape[2] = 1;
    l.module_data = true;
    ptxrace_result r;
    assert_int_equal(ptxrace_scan_launch(text, strlen(text), &l, "k", &r), HK_OK);
    if (r.found != (k != 0))
        fail_msg("form %zu (%s): found %d", i, mid, r.found);
    if (r.found && r.k != k)
        fail_msg("form %zu: k = %ld (want %ld)", i, r.k, k);
}

/* (REF17) Known bits through prmt, lop3, bfe, bfi, brev, shf and mad.hi, and a .const table
 * read at an index of a known range (spin_int_prmt/lop3/bfe/shf/table_evade.cu): each result
 * one constant found; a selector or LUT that keeps a live bit, a field that keeps bit 0, a
 * shift or selector of data, a table whose entries at the index differ, an index that can
 * leave the table stay unknown (a .global table: found since REF18, test_int_ref18). */
static void test_int_ops(void **state)
{
    (void)state;
    /* float_head with three module tables before the entry */
    static const char head[] =
        ".version 8.8\n.target sm_90\n.address_size 64\n"
        ".const .align 4 .b8 tab[16] = {0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 9};\n"
        ".const .align 4 .b8 tab5[16] = {1, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 5};\n"
        ".global .align 4 .b8 gtab[8];\n"
        ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
        "\t.reg .pred %p<9>;\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<9>;\n\t.reg .b64 %rd<9>;\n"
        "\t.shared .align 4 .b8 s[4096];\n"
        "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
        "\tld.global.f32 %f1, [%rd2];\n";
#define ONE "\tabs.f32 %f2, %f1;\n\tmin.f32 %f4, %f2, 0f3F800000;\n\tcvt.rzi.s32.f32 %r20, %f4;\n"
#define DAT "\tld.global.u32 %r21, [%rd2];\n"
#define NEG ONE "\tneg.s32 %r21, %r20;\n\tsub.s32 %r22, %r21, 2;\n" /* [-3, -2] */
#define IDX(t) "\tmul.wide.s32 %rd3, %r20, 4;\n\tmov.u64 %rd4, " t ";\n" \
               "\tadd.s64 %rd5, %rd4, %rd3;\n"
    static const struct {
        const char *mid;
        long k; /* the finding's k, 0: none */
    } forms[] = {
        {ONE "\tmov.b32 %r21, 0;\n\tmov.b32 %r22, 17473;\n\tprmt.b32 %r9, %r20, %r21, %r22;\n",
         16}, /* nvcc's __byte_perm(v, 0, 0x4441) */
        {ONE DAT "\tprmt.b32 %r9, %r20, %r21, 0x1111;\n", 16}, /* v's byte 1 four times */
        {NEG "\tprmt.b32 %r23, %r22, 0, 0xBBBB;\n\tand.b32 %r9, %r23, 3;\n", 19}, /* sign */
        {ONE DAT "\tlop3.b32 %r9, %r20, 2, %r21, 0x40;\n", 16}, /* v & 2 & ~d */
        {ONE "\tlop3.b32 %r9, %r20, %r20, 6, 0x80;\n", 16},
        {ONE DAT "\tlop3.b32 %r22, %r20, %r21, 1, 0xEA;\n\tand.b32 %r9, %r22, 1;\n",
         17}, /* (v & d) | 1 */
        {ONE "\tbfe.u32 %r9, %r20, 1, 4;\n", 16},
        {NEG "\tbfe.s32 %r23, %r22, 2, 30;\n\tand.b32 %r9, %r23, 3;\n", 19}, /* -1 */
        {DAT "\tbfi.b32 %r23, %r21, 0, 4, 8;\n\tand.b32 %r9, %r23, 15;\n", 16},
        {ONE "\tbrev.b32 %r21, %r20;\n\tand.b32 %r9, %r21, 2147483647;\n", 16},
        {ONE "\tmov.b32 %r21, 0;\n\tmov.b32 %r22, 1;\n\tshf.r.wrap.b32 %r9, %r20, %r21, %r22;\n",
         16}, /* nvcc's __funnelshift_r(v, 0, 1) */
        {ONE DAT "\tshf.l.wrap.b32 %r23, %r21, %r20, 32;\n\tand.b32 %r9, %r23, 2;\n", 16},
        {ONE DAT "\tshf.r.clamp.b32 %r23, %r21, %r20, 40;\n\tand.b32 %r9, %r23, 2;\n", 16},
        {ONE "\tmad.hi.u32 %r9, %r20, 2147483647, 0;\n", 16},
        {ONE IDX("tab") "\tld.const.u32 %r9, [%rd5];\n", 16}, /* nvcc's hk_step[v] */
        {ONE IDX("tab5") "\tld.const.u32 %r9, [%rd5+8];\n", 21}, /* entries 2, 3: 5 */
        {ONE "\tcvt.rzi.s64.f32 %rd6, %f4;\n\tshr.u64 %rd7, %rd6, 1;\n"
         "\tcvt.u32.u64 %r9, %rd7;\n", 16}, /* spin_int_ll_evade: [0, 1] or 1 << 63, >> 1 */
        {"\tmul.f32 %f2, %f1, 0f00000000;\n\tcvt.rzi.s64.f32 %rd6, %f2;\n"
         "\tcvt.u32.u64 %r9, %rd6;\n", 16}, /* 0 or the NaN's 1 << 63: the low word 0 */
        /* not one value */
        {ONE "\tprmt.b32 %r9, %r20, 0, 0x4440;\n", 0}, /* byte 0 kept */
        {ONE DAT "\tprmt.b32 %r9, %r20, 0, %r21;\n", 0}, /* a selector of data */
        {ONE "\tprmt.ecl.b32 %r9, %r20, 0, 0x4441;\n", 0}, /* another mode */
        {ONE "\tlop3.b32 %r9, %r20, 2, 0, 0xFC;\n", 0}, /* v | 2: 2 or 3 */
        {ONE DAT "\tlop3.b32 %r9, %r21, 2, 0, 0xC0;\n", 0}, /* d & 2 */
        {ONE "\tbfe.u32 %r9, %r20, 0, 4;\n", 0}, /* bit 0 kept */
        {DAT "\tbfe.u32 %r9, %r21, 30, 8;\n", 0}, /* past the width: not read */
        {ONE "\tbfi.b32 %r9, %r20, 0, 1, 4;\n", 0}, /* 0 or 2 */
        {ONE "\tbrev.b32 %r21, %r20;\n\tshr.u32 %r9, %r21, 31;\n", 0}, /* the bit back at 0 */
        {ONE DAT "\tshf.r.wrap.b32 %r9, %r20, 0, %r21;\n", 0}, /* an amount of data */
        {ONE DAT "\tshf.r.clamp.b32 %r9, %r21, %r20, 0;\n", 0}, /* the data word */
        {ONE "\tmad.hi.u32 %r9, %r20, 2147483647, %r20;\n", 0},
        {ONE IDX("tab") "\tld.const.u32 %r9, [%rd5+8];\n", 0}, /* 7 or 9 */
        {ONE IDX("tab5") "\tld.const.u32 %r9, [%rd5];\n", 0}, /* 1 or 2 */
        {ONE IDX("tab") "\tld.const.u32 %r9, [%rd5+12];\n", 0}, /* past the end */
        {DAT "\tand.b32 %r20, %r21, 7;\n" IDX("tab") "\tld.const.u32 %r9, [%rd5];\n", 0},
        {ONE IDX("gtab") "\tld.global.u32 %r9, [%rd5];\n", 16}, /* (REF18) a .global only
                                                                 * loads read: zeros */
        {DAT IDX("tab") "\tld.const.u32 %r9, [%rd5];\n", 0}, /* an index of data */
        {"\tmul.f32 %f2, %f1, 0f00000000;\n\tcvt.rzi.s64.f32 %rd6, %f2;\n"
         "\tshr.u64 %rd7, %rd6, 63;\n\tcvt.u32.u64 %r9, %rd7;\n", 0}, /* the NaN's bit 63 */
        {ONE "\tcvt.rzi.s64.f32 %rd6, %f4;\n\tcvt.u32.u64 %r9, %rd6;\n", 0}, /* 0 or 1 */
    };
#undef ONE
#undef DAT
#undef NEG
#undef IDX
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
        module_form(head, i, forms[i].mid, forms[i].k);
}

/* (REF18) A `const __device__` table (a .global with an initializer whose address only loads
 * read, in every function of the module), .f64 conversions and ops, sad, mad.wide and an
 * add.cc/addc pair (spin_int_gtab/f64/sad/madw/addc_evade.cu): each result one constant
 * found; a table whose address reaches a store, an atomic, shared memory or another
 * function's store, a carry that can be 1 or follows a label, a value that keeps a live bit
 * stay unknown. (REF19) A double product is read (spin_int_dmul_evade.cu), its host-rounded
 * corners widened where they underflow to 0 or overflow; a local word across a label, from
 * the stores on every way in (spin_int_localjoin_evade.cu): found where each way has a store
 * of a known value written in its own block; a way with data, with no store, a loop's store
 * of data, a value written in another block, a call on one way not. */
static void test_int_ref18(void **state)
{
    (void)state;
    static const char head[] =
        ".version 8.8\n.target sm_90\n.address_size 64\n"
        ".global .align 4 .b8 gt[16] = {0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 48};\n"
        ".global .align 4 .b8 gst[16];\n"
        ".global .align 4 .b8 gsh[16];\n"
        ".global .align 4 .b8 gat[16];\n"
        ".global .align 4 .b8 gfn[16];\n"
        ".func wr()\n{\n\t.reg .b64 %rd<3>;\n\t.reg .b32 %r<3>;\n\tmov.u64 %rd1, gfn;\n"
        "\tadd.s64 %rd2, %rd1, 4;\n\tst.global.u32 [%rd2], 1;\n\tret;\n}\n"
        ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
        "\t.reg .pred %p<9>;\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<9>;\n\t.reg .b64 %rd<9>;\n"
        "\t.reg .f64 %fd<9>;\n\t.reg .b64 %SPL;\n\t.local .align 4 .b8 __local_depot0[16];\n"
        "\tmov.u64 %SPL, __local_depot0;\n"
        "\t.shared .align 8 .b8 s[4096];\n"
        "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
        "\tld.global.f32 %f1, [%rd2];\n";
#define ONE "\tabs.f32 %f2, %f1;\n\tmin.f32 %f4, %f2, 0f3F800000;\n\tcvt.rzi.s32.f32 %r20, %f4;\n"
#define DAT "\tld.global.u32 %r21, [%rd2];\n"
#define IDX(t) "\tmul.wide.s32 %rd3, %r20, 4;\n\tmov.u64 %rd4, " t ";\n" \
               "\tadd.s64 %rd5, %rd4, %rd3;\n"
#define LOC "\tadd.u64 %rd6, %SPL, 0;\n\tadd.u64 %rd7, %SPL, 4;\n"
#define D01 "\tcvt.f64.f32 %fd1, %f1;\n\tabs.f64 %fd2, %fd1;\n" \
            "\tmin.f64 %fd3, %fd2, 0d3FF0000000000000;\n" /* [0, 1] or a NaN's 1.0 */
    static const struct {
        const char *mid;
        long k; /* the finding's k, 0: none */
    } forms[] = {
        {ONE IDX("gt") "\tld.global.nc.u32 %r9, [%rd5];\n", 16}, /* nvcc's hk_gtab[v] */
        {ONE IDX("gt") "\tld.global.u32 %r9, [%rd5+16];\n", 0}, /* past gt: not read */
        {ONE IDX("gst") "\tld.global.nc.u32 %r9, [%rd5];\n", 16}, /* gst's zeros */
        {D01 "\tcvt.rzi.s32.f64 %r20, %fd3;\n\tand.b32 %r9, %r20, 2;\n", 16}, /* spin_int_f64 */
        {D01 "\tcvt.rzi.s64.f64 %rd6, %fd3;\n\tshr.u64 %rd7, %rd6, 1;\n"
         "\tcvt.u32.u64 %r9, %rd7;\n", 16},
        {ONE "\tcvt.rn.f64.s32 %fd1, %r20;\n\tadd.f64 %fd2, %fd1, 0d3FE0000000000000;\n"
         "\tcvt.rzi.u32.f64 %r21, %fd2;\n\tand.b32 %r9, %r21, 6;\n", 16}, /* [0.5, 1.5] */
        {ONE "\tcvt.f64.f32 %fd1, %f4;\n\tneg.f64 %fd2, %fd1;\n\tcvt.rn.f32.f64 %f5, %fd2;\n"
         "\tcvt.rzi.s32.f32 %r21, %f5;\n\tadd.s32 %r22, %r21, 1;\n\tand.b32 %r9, %r22, 2;\n",
         16}, /* -[0, 1] rounded to a float, truncated: [-1, 0], + 1 */
        {"\tmul.f32 %f2, %f1, 0f00000000;\n\tcvt.f64.f32 %fd1, %f2;\n"
         "\tcvt.rzi.s32.f64 %r20, %fd1;\n\tand.b32 %r9, %r20, 2147483647;\n", 16}, /* 0, 1 << 31 */
        {ONE "\tsad.s32 %r21, %r20, 1, 0;\n\tand.b32 %r9, %r21, 2;\n", 16}, /* spin_int_sad */
        {ONE "\tmad.wide.u32 %rd6, %r20, 2, 1;\n\tshr.u64 %rd7, %rd6, 2;\n"
         "\tcvt.u32.u64 %r9, %rd7;\n", 16}, /* spin_int_madw */
        {ONE DAT "\tcvt.u64.u32 %rd6, %r21;\n\tshl.b64 %rd7, %rd6, 3;\n"
         "\tmad.wide.u32 %rd8, %r20, 4, %rd7;\n\tcvt.u32.u64 %r22, %rd8;\n"
         "\tand.b32 %r9, %r22, 3;\n", 16}, /* low zeros: 4v + 8d */
        {ONE "\tadd.cc.u32 %r21, %r20, 0xfffffffe;\n\taddc.u32 %r9, 0, 0;\n",
         16}, /* spin_int_addc */
        {ONE "\tadd.cc.u32 %r21, %r20, 0;\n\taddc.cc.u32 %r22, 0, 0;\n\taddc.u32 %r9, %r22, 0;\n",
         16},
        {ONE LOC "\tand.b32 %r21, %r20, 2;\n\tst.local.u32 [%rd6], %r21;\n"
         "\tst.local.u32 [%rd7], %r20;\n\tld.local.u32 %r9, [%rd6];\n", 16}, /* spin_int_local */
        {ONE LOC "\tst.local.u32 [%SPL+4], %r20;\n\tst.local.u32 [%rd6], 0;\n"
         "\tld.local.u32 %r9, [%SPL];\n", 16},
        {ONE LOC "\tst.local.u32 [%rd6], %r20;\n\tst.local.u32 [%rd6], 0;\n"
         "\tld.local.u32 %r9, [%rd6];\n", 16}, /* the nearer store */
        /* not one value */
        {ONE LOC "\tst.local.u32 [%rd6], 0;\n\tst.local.u32 [%rd6], %r20;\n"
         "\tld.local.u32 %r9, [%rd6];\n", 0},
        {ONE LOC "\tst.local.u32 [%rd6], 0;\nBB_l:\n\tld.local.u32 %r9, [%rd6];\n",
         16}, /* a label between that no branch names: one way in (found since REF19) */
        /* (REF19) across a label: every way in (spin_int_localjoin_evade) */
        {ONE LOC DAT "\tsetp.eq.s32 %p1, %r21, 0;\n\tand.b32 %r22, %r20, 2;\n"
             "\tst.local.u32 [%rd6], %r22;\n\t@%p1 bra BB_j;\n\tmov.u32 %r23, 0;\n"
             "\tst.local.u32 [%rd6], %r23;\nBB_j:\n\tld.local.u32 %r9, [%rd6];\n", 16},
        {ONE LOC DAT "\tsetp.eq.s32 %p1, %r21, 0;\n\t@%p1 bra BB_a;\n\tand.b32 %r22, %r20, 2;\n"
             "\tst.local.u32 [%rd6], %r22;\n\tbra.uni BB_j;\nBB_a:\n\tst.local.u32 [%rd6], 0;\n"
             "BB_j:\n\tld.local.u32 %r9, [%rd6];\n", 16}, /* a store on each arm */
        {ONE LOC DAT "\tsetp.eq.s32 %p1, %r21, 0;\n\tst.local.u32 [%rd6], 0;\n\t@%p1 bra BB_j;\n"
             "\tst.local.u32 [%rd6], %r21;\nBB_j:\n\tld.local.u32 %r9, [%rd6];\n",
         0}, /* data on one way */
        {ONE LOC DAT "\tsetp.eq.s32 %p1, %r21, 0;\n\t@%p1 bra BB_j;\n\tst.local.u32 [%rd6], 0;\n"
             "BB_j:\n\tld.local.u32 %r9, [%rd6];\n", 0}, /* a way with no store */
        {ONE LOC DAT "\tsetp.eq.s32 %p1, %r21, 0;\n\tst.local.u32 [%rd6], 0;\nBB_j:\n"
             "\tld.local.u32 %r9, [%rd6];\n\tst.local.u32 [%rd6], %r21;\n\t@%p1 bra BB_j;\n",
         0}, /* a loop's store of data, back to the load */
        {ONE LOC DAT "\tsetp.eq.s32 %p1, %r21, 0;\n\tand.b32 %r22, %r20, 2;\nBB_b:\n"
             "\tst.local.u32 [%rd6], %r22;\n\t@%p1 bra BB_j;\n\tst.local.u32 [%rd6], 0;\n"
             "BB_j:\n\tld.local.u32 %r9, [%rd6];\n", 0}, /* a value written in another block */
        {ONE LOC DAT "\tsetp.eq.s32 %p1, %r21, 0;\n\tst.local.u32 [%rd6], 0;\n\t@%p1 bra BB_j;\n"
             "\tst.local.u32 [%rd6], 0;\n\tcall.uni wr, ();\nBB_j:\n\tld.local.u32 %r9, [%rd6];\n",
         0}, /* a call on one way */
        {ONE LOC "\tsetp.gt.f32 %p1, %f1, 0f00000000;\n\tst.local.u32 [%rd6], %r20;\n"
         "\t@%p1 st.local.u32 [%rd6], 0;\n\tld.local.u32 %r9, [%rd6];\n", 0}, /* guarded */
        {ONE LOC "\tst.local.u32 [%rd6], 0;\n\tst.local.u32 [%rd2], %r20;\n"
         "\tld.local.u32 %r9, [%rd6];\n", 0}, /* a local store that could be anywhere */
        {ONE LOC "\tst.local.u32 [%rd6], 0;\n\tst.local.u8 [%rd6+1], 1;\n"
         "\tld.local.u32 %r9, [%rd6];\n", 0}, /* a byte of it */
        {ONE LOC "\tst.local.u32 [%rd6], 0;\n\tst.global.u64 [%rd2], %rd6;\n"
         "\tld.local.u32 %r9, [%rd6];\n", 0}, /* its address stored */
        {ONE LOC "\tcvta.local.u64 %rd8, %SPL;\n\tst.local.u32 [%rd6], 0;\n"
         "\tld.local.u32 %r9, [%rd6];\n", 0}, /* a generic pointer into the window */
        {ONE LOC "\tst.local.u32 [%rd6], %r23;\n\tand.b32 %r23, %r20, 2;\n"
         "\tld.local.u32 %r9, [%rd6];\n", 0}, /* its value written after the store */
        {ONE LOC "\tld.local.u32 %r9, [%rd6];\n", 0}, /* no store */
        {ONE LOC "\tst.local.u32 [%rd6], 0;\n\tcall.uni wr, ();\n\tld.local.u32 %r9, [%rd6];\n",
         0}, /* a call between */
        {ONE LOC "\tsetp.gt.f32 %p1, %f1, 0f00000000;\n\t@%p1 mov.u64 %rd8, __local_depot0;\n"
         "\tst.local.u32 [%rd6], 0;\n\tld.local.u32 %r9, [%rd6];\n", 0}, /* a depot address not
                                                                     * followed */
        {ONE IDX("gt") "\tld.global.nc.u32 %r9, [%rd5+8];\n", 0}, /* 16 or 48 */
        {ONE IDX("gst") "\tst.global.u32 [%rd5+4], %r20;\n\tld.global.nc.u32 %r9, [%rd5];\n",
         0}, /* a store through it */
        {ONE IDX("gsh") "\tst.shared.u64 [s], %rd4;\n\tld.global.nc.u32 %r9, [%rd5];\n",
         0}, /* its address handed over */
        {ONE IDX("gat") "\tcvta.to.global.u64 %rd6, %rd4;\n\tatom.global.add.u32 %r22, [%rd6], 1;\n"
         "\tld.global.u32 %r9, [%rd5];\n", 0},
        {ONE IDX("gfn") "\tld.global.u32 %r9, [%rd5];\n", 0}, /* stored by wr */
        {D01 "\tcvt.rzi.s32.f64 %r9, %fd3;\n", 0}, /* 0 or 1 */
        {"\tmul.f32 %f2, %f1, 0f00000000;\n\tcvt.f64.f32 %fd1, %f2;\n"
         "\tcvt.rzi.s32.f64 %r20, %fd1;\n\tshr.u32 %r9, %r20, 31;\n", 0}, /* the NaN's bit */
        {D01 "\tmul.f64 %fd4, %fd3, 0d0000000000000000;\n\tcvt.rzi.s32.f64 %r9, %fd4;\n",
         16}, /* a double product: read since REF19 ([0, 1] * 0, no NaN: 0) */
        {D01 "\tmul.f64 %fd4, %fd3, 0d3FE0000000000000;\n\tcvt.rzi.s32.f64 %r20, %fd4;\n"
             "\tand.b32 %r9, %r20, 1;\n", 16}, /* (REF19) spin_int_dmul: [0, 0.5] */
        {ONE "\tcvt.rn.f64.s32 %fd1, %r20;\n\tmin.f64 %fd2, %fd1, 0d1A70000000000000;\n"
             "\tmul.rp.f64 %fd3, %fd2, 0d1A70000000000000;\n\tcvt.rpi.s32.f64 %r9, %fd3;\n",
         0}, /* (REF19) [0, 2^-600] * 2^-600, rounded up: the least subnormal where v = 1, whose
              * ceiling is 1 (the host's corner product underflows to 0) */
        {D01 "\tmul.f64 %fd4, %fd3, 0d3FF8000000000000;\n\tcvt.rzi.s32.f64 %r20, %fd4;\n"
             "\tand.b32 %r9, %r20, 1;\n", 0}, /* (REF19) [0, 1.5]: 0 or 1 */
        {DAT "\tcvt.rn.f64.u32 %fd1, %r21;\n\tcvt.rzi.u32.f64 %r22, %fd1;\n"
         "\tand.b32 %r9, %r22, 2;\n", 0},
        {ONE "\tsad.s32 %r9, %r20, 1, 0;\n", 0}, /* 1 or 0 */
        {ONE DAT "\tsad.u32 %r22, %r20, %r21, 0;\n\tand.b32 %r9, %r22, 2;\n", 0},
        {ONE "\tmad.wide.u32 %rd6, %r20, 2, 1;\n\tshr.u64 %rd7, %rd6, 1;\n"
         "\tcvt.u32.u64 %r9, %rd7;\n", 0}, /* 0 or 1 */
        {ONE "\tadd.cc.u32 %r21, %r20, 0xffffffff;\n\taddc.u32 %r9, 0, 0;\n", 0}, /* carry v */
        {ONE "\tadd.cc.u32 %r21, %r20, 0xfffffffe;\nBB_c:\n\taddc.u32 %r9, 0, 0;\n",
         0}, /* a label between: another way in */
        {ONE "\tsetp.gt.f32 %p1, %f1, 0f00000000;\n\tadd.cc.u32 %r22, %r21, 1;\n"
         "\t@%p1 add.cc.u32 %r21, %r20, 0xfffffffe;\n\taddc.u32 %r9, 0, 0;\n", 0}, /* guarded */
        {ONE "\tsub.cc.u32 %r21, %r20, 1;\n\taddc.u32 %r9, 0, 0;\n", 0}, /* a borrow */
        /* session 45 review: a 32-bit carry into an addc.s64 of a full-range value (its range
         * wrapped at INT64_MAX + 1 into one constant), a second depot name, a generic store
         * between the local store and its load */
        {ONE "\tcvt.s64.s32 %rd6, %r20;\n\tld.global.s64 %rd7, [%rd2];\n\tmov.u32 %r21, 1;\n"
         "\tadd.cc.u32 %r22, %r21, 0xffffffff;\n\taddc.s64 %rd8, %rd6, %rd7;\n"
         "\tshr.u64 %rd3, %rd8, 63;\n\tcvt.u32.u64 %r9, %rd3;\n", 0},
        {ONE "\tld.global.s64 %rd7, [%rd2];\n\tmov.u64 %rd6, 1;\n"
         "\tadd.cc.u64 %rd8, %rd6, 0;\n\taddc.s64 %rd8, %rd7, 0;\n"
         "\tshr.u64 %rd3, %rd8, 63;\n\tcvt.u32.u64 %r9, %rd3;\n", 0},
        {ONE LOC "\tmov.u64 %rd8, __local_depot0+4;\n\tst.local.u32 [%rd7], 0;\n"
         "\tst.local.u32 [%rd8], %r20;\n\tld.local.u32 %r9, [%rd7];\n", 0},
        {ONE LOC "\tst.local.u32 [%rd6], 0;\n\tld.global.u64 %rd8, [%rd2];\n"
         "\tst.u32 [%rd8], %r20;\n\tld.local.u32 %r9, [%rd6];\n", 0},
        {ONE LOC "\tst.local.u32 [%rd6], 0;\n\tld.global.u64 %rd8, [%rd2];\n"
         "\tatom.add.u32 %r23, [%rd8], %r20;\n\tld.local.u32 %r9, [%rd6];\n", 0},
        {ONE LOC "\tand.b32 %r21, %r20, 2;\n\tst.local.u32 [%rd6], %r21;\n"
         "\tst.global.u32 [%rd2], %r20;\n\tld.local.u32 %r9, [%rd6];\n", 16}, /* a global
                                                                          * store: not local */
    };
#undef ONE
#undef DAT
#undef IDX
#undef LOC
#undef D01
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
        module_form(head, i, forms[i].mid, forms[i].k);
}

/* (REF19) A shared word handed over to the block (spin_int_sword_evade.cu: thread 0 stores
 * `w = trunc(min(|x|, 1)) & 2` before the barrier, every thread reads w after it): found
 * where every write of w is a whole-word st.shared of a value of known bits, one of them
 * thread 0 surely makes before a barrier of the whole block the load follows, and every other
 * write of shared memory stays inside another variable; not found where the load comes
 * before the barrier, the store can be skipped (a guard or a branch on data, a branch over
 * the barrier), another store writes data, the word's address is taken, a shared store can
 * leave its variable or is at an address not read, the body has a call, a cvta to the
 * shared window, a generic store, a cp.async, an atomic on the word, a partial barrier, or
 * the word's name is declared twice or read in part. A store whose value the text writes
 * after the load is read as a first evaluation judged it (found: v & 2; not: data, the word
 * plus 1). A register written on each way into a join (spin_int_merge_evade.cu): found where
 * every write that reaches the read is judged before it and none reads the register itself;
 * data on one way, a loop's counter (directly or through another register), a way with no
 * write, a guarded write, a write after the read not. Also sub.cc / subc and mad.cc / madc
 * chains (spin_int_subc/madc_evade.cu): a borrow or carry known from the operands' ranges
 * found; one that depends on the value, another family's flag, a label between, a guarded
 * producer, a signed high half not. */
static void test_int_ref19(void **state)
{
    (void)state;
    static const char head[] =
        ".version 8.8\n.target sm_90\n.address_size 64\n"
        ".shared .align 4 .u32 w2;\n.global .align 4 .u32 gz = 5;\n"
        ".func wr()\n{\n\tret;\n}\n"
        ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
        "\t.reg .pred %p<9>;\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<9>;\n\t.reg .b64 %rd<9>;\n"
        "\t.reg .b16 %rs<4>;\n"
        "\t.shared .align 4 .b8 s[4096];\n\t.shared .align 4 .u32 w;\n"
        "\t.shared .align 4 .b8 q[1024];\n\t.shared .align 4 .u32 w2;\n"
        "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
        "\tld.global.f32 %f1, [%rd2];\n";
#define ONE "\tabs.f32 %f2, %f1;\n\tmin.f32 %f4, %f2, 0f3F800000;\n\tcvt.rzi.s32.f32 %r20, %f4;\n" \
            "\tand.b32 %r21, %r20, 2;\n\tmov.u32 %r30, %tid.x;\n\tsetp.ne.s32 %p2, %r30, 0;\n"
#define DAT "\tld.global.u32 %r22, [%rd2];\n"
#define T0ST(v) "\t@%p2 bra $L__a;\n\tst.shared.u32 [w], " v ";\n$L__a:\n"
#define BAR "\tbar.sync 0;\n"
#define LD "\tld.shared.u32 %r9, [w];\n"
#define QT "\tmov.u32 %r31, q;\n\tshl.b32 %r32, %r30, 2;\n\tadd.s32 %r33, %r31, %r32;\n"
    static const struct {
        const char *mid;
        long k; /* the finding's k, 0: none */
    } forms[] = {
        {ONE T0ST("%r21") BAR LD, 16}, /* spin_int_sword: nvcc's form */
        {ONE "\t@!%p2 st.shared.u32 [w], %r21;\n" BAR LD, 16}, /* a store under tid == 0 */
        {ONE "\tst.shared.u32 [w], %r21;\n" BAR LD, 16}, /* every thread stores */
        {ONE T0ST("%r21") BAR "\tsetp.eq.s32 %p3, %r30, 5;\n\t@%p3 st.shared.u32 [w], 0;\n" LD,
         16}, /* a second store of 0 after the barrier */
        {ONE T0ST("%r21") BAR LD "\tst.shared.u32 [w], 0;\n", 16}, /* one after the load */
        {ONE T0ST("%r21") BAR LD "\tand.b32 %r26, %r20, 2;\n\tst.shared.u32 [w], %r26;\n",
         16}, /* one whose value the text writes after the load (spin_int_swordlate) */
        {ONE T0ST("%r21") "\tst.shared.u32 [s+4092], %r22;\n" QT "\tst.shared.u32 [%r33], %r20;\n"
             "\tatom.shared.add.u32 %r34, [q+60], 1;\n" BAR LD, 16}, /* other variables' words */
        {ONE T0ST("%r21") BAR "\tld.shared.u32 %r23, [w];\n\tadd.s32 %r9, %r23, 0;\n", 16},
        {ONE T0ST("%r21") "\tmov.u32 %r31, q;\n\tshl.b32 %r32, %r30, 2;\n\tadd.s32 %r33, %r32, %r31;\n"
             "\tst.shared.u32 [%r33], %r20;\n" BAR LD, 16}, /* the base the second operand */
        /* (REF20) another variable's word at a masked index (spin_int_swordand_evade) */
        {ONE T0ST("%r21") "\tshl.b32 %r32, %r30, 2;\n\tand.b32 %r34, %r32, 1020;\n"
             "\tmov.u32 %r31, q;\n\tadd.s32 %r33, %r31, %r34;\n\tst.shared.u32 [%r33], %r20;\n"
             BAR LD, 16},
        {ONE DAT T0ST("%r21") "\tand.b32 %r34, %r22, 1020;\n\tmov.u32 %r31, q;\n"
             "\tadd.s32 %r33, %r34, %r31;\n\tst.shared.u32 [%r33], %r20;\n" BAR LD,
         16}, /* an index of data, masked inside q */
        {ONE DAT T0ST("%r21") "\tand.b32 %r34, %r22, 1023;\n\tmov.u32 %r31, q;\n"
             "\tadd.s32 %r33, %r34, %r31;\n\tst.shared.u32 [%r33], %r20;\n" BAR LD,
         0}, /* 1023 + 4 bytes: past q's end */
        {ONE DAT T0ST("%r21") "\tand.b32 %r34, %r22, 1020;\n\tmov.u32 %r31, q;\n"
             "\tadd.s32 %r33, %r34, %r31;\n\tst.shared.u32 [%r33+4], %r20;\n" BAR LD, 0},
        {ONE DAT T0ST("%r21") "\tand.b32 %r34, %r22, %r30;\n\tmov.u32 %r31, q;\n"
             "\tadd.s32 %r33, %r34, %r31;\n\tst.shared.u32 [%r33], %r20;\n" BAR LD,
         0}, /* a mask not an immediate */
        {ONE DAT T0ST("%r21") "\tand.b32 %r34, %r22, 1020;\n\tmov.u32 %r31, q;\n"
             "\tsub.s32 %r35, 0, %r34;\n\tadd.s32 %r33, %r35, %r31;\n"
             "\tst.shared.u32 [%r33+1020], %r20;\n" BAR LD, 16}, /* q + 1020 - [0, 1020] */
        {ONE DAT T0ST("%r21") "\tand.b32 %r34, %r22, 1020;\n\tmov.u32 %r31, q;\n"
             "\tsub.s32 %r35, 0, %r34;\n\tadd.s32 %r33, %r35, %r31;\n"
             "\tst.shared.u32 [%r33+1016], %r20;\n" BAR LD, 0}, /* q - 4 at the least */
        /* not one value, or not known */
        {ONE LD T0ST("%r21") BAR, 0},                              /* the load first */
        {ONE "\t@%p2 st.shared.u32 [w], %r21;\n" BAR LD, 0}, /* thread 0 does not store */
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\t@%p3 bra $L__a;\n\tst.shared.u32 [w], %r21;\n"
             "$L__a:\n" BAR LD, 0}, /* a branch on data past the store */
        {ONE "\tmov.u32 %r35, %ctaid.x;\n\tsetp.eq.s32 %p3, %r35, 0;\n" T0ST("%r21")
             "\t@%p3 bra $L__b;\n" BAR "$L__b:\n" LD, 0}, /* a branch over the barrier (block 0
                                                       * does not wait: no data decides it) */
        {ONE DAT T0ST("%r21") BAR "\tsetp.eq.s32 %p3, %r30, 5;\n\t@%p3 st.shared.u32 [w], %r22;\n"
             LD, 0}, /* another store of data */
        {ONE T0ST("%r21") BAR LD "\tst.shared.u32 [w], %r24;\n\tmov.u32 %r24, 7;\n",
         0}, /* a store whose value is written after it */
        {ONE T0ST("%r21") BAR LD DAT "\tst.shared.u32 [w], %r22;\n", 0}, /* data, after the load */
        {ONE T0ST("%r21") BAR LD "\tadd.s32 %r26, %r9, 1;\n\tst.shared.u32 [w], %r26;\n",
         0}, /* the word itself plus 1, after the load: 0, 1, 2 ... */
        /* (REF20) a late value made from the word itself: read under a hypothesis that holds */
        {ONE T0ST("%r21") BAR LD "\tshl.b32 %r26, %r9, 1;\n\tor.b32 %r27, %r26, %r9;\n"
             "\tmul.lo.s32 %r28, %r27, 3;\n\tst.shared.u32 [w], %r28;\n", 16}, /* swordloop */
        {ONE T0ST("%r21") BAR LD "\tand.b32 %r26, %r9, 2;\n\tst.shared.u32 [w], %r26;\n", 16},
        {ONE T0ST("%r21") BAR LD "\tor.b32 %r26, %r9, 1;\n\tst.shared.u32 [w], %r26;\n",
         0}, /* 0, then 1: the hypothesis [0, 1] holds, one value does not */
        {ONE T0ST("%r21") BAR LD DAT "\txor.b32 %r26, %r9, %r22;\n\tand.b32 %r27, %r26, 2;\n"
             "\tst.shared.u32 [w], %r27;\n", 0}, /* the word with data: 0 or 2 */
        {ONE T0ST("%r21") BAR LD "\tshl.b32 %r26, %r9, 1;\n\tadd.s32 %r27, %r26, 1;\n"
             "\tst.shared.u32 [w], %r27;\n", 0}, /* 1, 3, 7 ...: no hypothesis holds */
        {ONE T0ST("%r21") "\tmov.u32 %r31, w;\n" BAR LD, 0},        /* its address taken */
        {ONE T0ST("%r21") QT "\tst.shared.u32 [%r33+4], %r20;\n" BAR LD, 0}, /* past q's end */
        {ONE T0ST("%r21") QT "\tst.shared.u32 [%r33+-8], %r20;\n" BAR LD, 0},
        {ONE T0ST("%r21") "\tmov.u32 %r31, q;\n\tshl.b32 %r32, %r30, 2;\n\tsub.s32 %r33, %r32, %r31;\n"
             "\tst.shared.u32 [%r33], %r20;\n" BAR LD, 0}, /* a base subtracted */
        {ONE DAT T0ST("%r21") "\tmov.u32 %r31, q;\n\tadd.s32 %r33, %r31, %r22;\n"
             "\tst.shared.u32 [%r33], %r20;\n" BAR LD, 0}, /* an index of data */
        {ONE T0ST("%r21") "\tcall.uni wr, ();\n" BAR LD, 0},       /* a call */
        {ONE T0ST("%r21") "\tmov.u64 %rd3, s;\n\tcvta.shared.u64 %rd4, %rd3;\n" BAR LD, 0},
        {ONE T0ST("%r21") "\tld.global.u64 %rd3, [%rd2];\n\tst.u32 [%rd3], %r20;\n" BAR LD,
         0}, /* a generic store */
        {ONE T0ST("%r21") "\tmov.u32 %r31, s;\n"
             "\tcp.async.ca.shared.global [%r31], [%rd2], 4;\n" BAR LD, 0},
        {ONE T0ST("%r21") "\tatom.shared.add.u32 %r34, [w], 1;\n" BAR LD, 0},
        {ONE T0ST("%r21") "\tbar.sync 1, 64;\n" LD, 0}, /* a partial barrier only */
        {ONE "\t@%p2 bra $L__a;\n\tst.shared.u32 [w2], %r21;\n$L__a:\n" BAR
             "\tld.shared.u32 %r9, [w2];\n", 0}, /* w2: the module's and the body's */
        {ONE T0ST("%r21") BAR "\tld.shared.u16 %rs1, [w];\n\tcvt.u32.u16 %r9, %rs1;\n",
         0}, /* read in part */
        {ONE T0ST("%r20") BAR LD, 0}, /* 0 or 1 */
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\t@%p3 bra $L__c;\n\tand.b32 %r25, %r20, 2;\n"
             "$L__c:\n" T0ST("%r25") BAR LD, 0}, /* its value maybe never written */
        /* a register written on each way into a join (spin_int_merge_evade.cu) */
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\tand.b32 %r27, %r20, 2;\n\t@%p3 bra $L__m;\n"
             "\tmov.u32 %r27, 0;\n$L__m:\n\tadd.s32 %r9, %r27, 0;\n", 16},
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\t@%p3 bra $L__a;\n\tand.b32 %r27, %r20, 2;\n"
             "\tbra.uni $L__m;\n$L__a:\n\tmov.u32 %r27, 0;\n$L__m:\n\tadd.s32 %r9, %r27, 0;\n",
         16}, /* a write on each arm */
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\tmov.u32 %r27, 0;\n\t@%p3 bra $L__m;\n"
             "\tmov.u32 %r27, %r22;\n$L__m:\n\tadd.s32 %r9, %r27, 0;\n", 0}, /* data on one */
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\tmov.u32 %r27, 0;\n$L__l:\n"
             "\tadd.s32 %r27, %r27, 1;\n\t@%p3 bra $L__l;\n\tadd.s32 %r9, %r27, 0;\n",
         0}, /* a loop's counter */
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\tmov.u32 %r27, 0;\n$L__l:\n"
             "\tadd.s32 %r28, %r27, 1;\n\tmov.u32 %r27, %r28;\n\t@%p3 bra $L__l;\n"
             "\tadd.s32 %r9, %r27, 0;\n", 0}, /* a loop's counter through another register */
        /* (REF20) a merge of a loop whose writes read the register (spin_int_mergeloop_evade) */
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\tsetp.eq.s32 %p4, %r22, 7;\n"
             "\tand.b32 %r27, %r20, 2;\n$L__l:\n\t@%p3 bra $L__s;\n\tshl.b32 %r28, %r27, 2;\n"
             "\tmul.lo.s32 %r29, %r27, 3;\n\tor.b32 %r27, %r28, %r29;\n$L__s:\n"
             "\t@%p4 bra $L__l;\n\tadd.s32 %r9, %r27, 0;\n", 16},
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\tand.b32 %r27, %r20, 2;\n$L__l:\n"
             "\tshl.b32 %r28, %r27, 1;\n\tor.b32 %r27, %r28, 1;\n\t@%p3 bra $L__l;\n"
             "\tadd.s32 %r9, %r27, 0;\n", 0}, /* 0, 1, 3, 7 ...: no hypothesis holds */
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\tand.b32 %r27, %r20, 2;\n$L__l:\n"
             "\txor.b32 %r27, %r27, %r22;\n\t@%p3 bra $L__l;\n\tadd.s32 %r9, %r27, 0;\n",
         0}, /* data in the loop */
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\tsetp.eq.s32 %p4, %r22, 7;\n\t@%p4 bra $L__l;\n"
             "\tand.b32 %r27, %r20, 2;\n$L__l:\n\t@%p3 bra $L__s;\n\tshl.b32 %r28, %r27, 2;\n"
             "\tmul.lo.s32 %r29, %r27, 3;\n\tor.b32 %r27, %r28, %r29;\n$L__s:\n"
             "\t@%p4 bra $L__l;\n\tadd.s32 %r9, %r27, 0;\n", 0}, /* a way in with no write */
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\t@%p3 bra $L__m;\n\tmov.u32 %r27, 0;\n"
             "\tmov.u32 %r27, 0;\n$L__m:\n\tadd.s32 %r9, %r27, 0;\n", 0}, /* a way with none */
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\tmov.u32 %r27, 0;\n\t@%p3 mov.u32 %r27, 5;\n"
             "\tadd.s32 %r9, %r27, 0;\n", 0}, /* a guarded write */
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\tmov.u32 %r27, 0;\n\tadd.s32 %r9, %r27, 0;\n"
             "\tmov.u32 %r27, 0;\n", 0}, /* a write after the read in the text */
        {ONE "\t@%p2 bra $L__g;\n$L__h:\n\t.loc 1 5 1\n\tst.global.u32 [gz], %r21;\n$L__g:\n"
             BAR "\tld.global.u32 %r9, [gz];\n", 16}, /* a module word's store after a label and
                                                     * a .loc (ptxdata read them as one) */
        /* borrows and multiply-add carries (spin_int_subc/madc_evade.cu): v = %r20 in [0, 1] */
        {ONE "\tsub.cc.u32 %r23, %r20, 2;\n\tsubc.u32 %r24, 0, 0;\n\tadd.s32 %r9, %r24, 1;\n",
         16}, /* spin_int_subc: always a borrow, -1 + 1 */
        {ONE "\tsub.cc.u32 %r23, 2, %r20;\n\tsubc.u32 %r9, 0, 0;\n", 16}, /* never one */
        {ONE "\tsub.cc.u32 %r23, %r20, 2;\n\tsubc.cc.u32 %r24, 5, 0;\n\tsubc.u32 %r9, 0, 0;\n",
         16}, /* a chain: 1, then 5 - 0 - 1 borrows nothing */
        {ONE "\tmad.lo.cc.u32 %r23, %r20, 0x80000000, 0x7fffffff;\n"
             "\tmadc.lo.u32 %r9, %r20, 0, 0;\n", 16}, /* spin_int_madc */
        {ONE "\tadd.cc.u32 %r23, 1, 0xffffffff;\n\tmadc.lo.u32 %r24, %r20, 0, 15;\n"
             "\tand.b32 %r9, %r24, 15;\n", 16}, /* a carry of 1 in: 16 */
        {ONE "\tmad.hi.cc.u32 %r23, %r20, 4, 0xffffffff;\n\taddc.u32 %r9, 0, 0;\n",
         16}, /* the high half 0: no carry */
        {ONE "\tsub.cc.u32 %r23, %r20, 1;\n\tsubc.u32 %r9, 0, 0;\n", 0}, /* a borrow when v = 0 */
        {ONE "\tmad.lo.cc.u32 %r23, %r20, 2, 0xfffffffe;\n\taddc.u32 %r9, 0, 0;\n",
         0}, /* a carry when v = 1 */
        {ONE "\tadd.cc.u32 %r23, %r20, 0xfffffffe;\n\tsubc.u32 %r9, 0, 0;\n",
         0}, /* a carry read as a borrow: another family's flag, not read */
        {ONE "\tsub.cc.u32 %r23, %r20, 2;\nBB_s:\n\tsubc.u32 %r24, 0, 0;\n"
             "\tadd.s32 %r9, %r24, 1;\n", 0}, /* a label between */
        {ONE DAT "\tsetp.eq.s32 %p3, %r22, 0;\n\tsub.cc.u32 %r25, 2, %r20;\n"
             "\t@%p3 sub.cc.u32 %r23, %r20, 2;\n\tsubc.u32 %r9, 0, 0;\n", 0}, /* guarded */
        {ONE "\tmad.hi.cc.s32 %r23, %r20, 4, -1;\n\taddc.s32 %r9, 0, 0;\n",
         0}, /* a signed high half: not read */
        {ONE DAT "\tsub.cc.u32 %r23, 2, %r22;\n\tsubc.u32 %r9, 0, 0;\n", 0}, /* of data */
    };
#undef ONE
#undef DAT
#undef T0ST
#undef BAR
#undef LD
#undef QT
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
        module_form(head, i, forms[i].mid, forms[i].k);
}

/* (REF20) A double quotient and a double fma (spin_int_ddiv/dfma_evade.cu): [0, 1] / 3 and
 * [0, 1] * 0.5 + 0.25 truncated, 0 for every float (& 1: a NaN's 1 << 31), found, and an
 * .f32 quotient; a divisor whose range holds 0, a quotient of [0, 2] (0 or 1), an fma whose
 * host sum cancels the host-rounded product (the device's is 2^-104, its ceiling 1), a
 * quotient that underflows on the host where the device's .rp gives the least subnormal
 * (ceiling 1), an fma of an unbounded operand not. A .global table chosen by a selp
 * (spin_int_gsel_evade.cu): found where both are tables nothing writes and every entry the
 * index reaches is one value in each; a table whose entries differ, a selp of data, a store
 * through the selp's address (ptxdata's third walk: both tables written), an offset past the
 * end not. */
static void test_int_ref20(void **state)
{
    (void)state;
    static const char head[] =
        ".version 8.8\n.target sm_90\n.address_size 64\n"
        ".global .align 4 .b8 gt[16] = {0, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 48};\n"
        ".global .align 4 .b8 gu[16] = {0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0, 0, 64};\n"
        ".global .align 4 .b8 gv[16] = {0, 0, 0, 0, 1};\n"
        ".global .align 4 .b8 gw[16];\n"
        ".global .align 4 .b8 gx[16];\n"
        ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
        "\t.reg .pred %p<9>;\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<9>;\n\t.reg .b64 %rd<12>;\n"
        "\t.reg .f64 %fd<9>;\n"
        "\t.shared .align 8 .b8 s[4096];\n"
        "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
        "\tld.global.f32 %f1, [%rd2];\n";
#define ONE "\tabs.f32 %f2, %f1;\n\tmin.f32 %f4, %f2, 0f3F800000;\n\tcvt.rzi.s32.f32 %r20, %f4;\n"
#define D01 "\tcvt.f64.f32 %fd1, %f1;\n\tabs.f64 %fd2, %fd1;\n" \
            "\tmin.f64 %fd3, %fd2, 0d3FF0000000000000;\n" /* [0, 1] or a NaN's 1.0 */
#define SEL(a, b) "\tsetp.gt.f32 %p1, %f1, 0f3F000000;\n\tmov.u64 %rd3, " a ";\n" \
                  "\tmov.u64 %rd4, " b ";\n\tselp.b64 %rd5, %rd3, %rd4, %p1;\n" \
                  "\tmul.wide.s32 %rd6, %r20, 4;\n\tadd.s64 %rd7, %rd5, %rd6;\n"
    static const struct {
        const char *mid;
        long k; /* the finding's k, 0: none */
    } forms[] = {
        {D01 "\tdiv.rn.f64 %fd4, %fd3, 0d4008000000000000;\n\tcvt.rzi.s32.f64 %r21, %fd4;\n"
             "\tand.b32 %r9, %r21, 1;\n", 16}, /* spin_int_ddiv: [0, 1/3] */
        {D01 "\tfma.rn.f64 %fd4, %fd3, 0d3FE0000000000000, 0d3FD0000000000000;\n"
             "\tcvt.rzi.s32.f64 %r21, %fd4;\n\tand.b32 %r9, %r21, 1;\n", 16}, /* spin_int_dfma */
        {ONE "\tcvt.rn.f32.s32 %f5, %r20;\n\tdiv.rn.f32 %f6, %f5, 0f40400000;\n"
             "\tcvt.rzi.s32.f32 %r9, %f6;\n", 16}, /* an .f32 quotient: [0, 1/3] */
        {ONE SEL("gt", "gu") "\tld.global.nc.u32 %r9, [%rd7];\n", 16}, /* spin_int_gsel */
        {ONE "\tsetp.gt.f32 %p1, %f1, 0f3F000000;\n\tmov.u64 %rd3, gt;\n\tmov.u64 %rd4, gu;\n"
             "\tmul.wide.s32 %rd6, %r20, 4;\n\tadd.s64 %rd8, %rd6, %rd3;\n"
             "\tadd.s64 %rd9, %rd4, %rd6;\n\tselp.b64 %rd7, %rd8, %rd9, %p1;\n"
             "\tld.global.u32 %r9, [%rd7];\n", 16}, /* the index added before the selp */
        {ONE SEL("gt", "gt") "\tld.global.nc.u32 %r9, [%rd7];\n", 16}, /* one table twice */
        /* not one value, or not known */
        {D01 "\tdiv.rn.f64 %fd4, 0d3FF0000000000000, %fd3;\n\tcvt.rzi.s32.f64 %r21, %fd4;\n"
             "\tand.b32 %r9, %r21, 1;\n", 0}, /* a divisor of [0, 1] */
        {D01 "\tdiv.rn.f64 %fd4, %fd3, 0d3FE0000000000000;\n\tcvt.rzi.s32.f64 %r21, %fd4;\n"
             "\tand.b32 %r9, %r21, 1;\n", 0}, /* [0, 2]: 0, 1 or 2 */
        {"\tfma.rn.f64 %fd4, 0d3FF0000000000001, 0d3FF0000000000001, 0dBFF0000000000002;\n"
         "\tcvt.rpi.s32.f64 %r9, %fd4;\n", 0}, /* 2^-104: the host's product rounds to the
                                                * addend, its sum to 0 */
        {ONE "\tcvt.rn.f64.s32 %fd1, %r20;\n\tmin.f64 %fd2, %fd1, 0d1A70000000000000;\n"
             "\tdiv.rp.f64 %fd3, %fd2, 0d6570000000000000;\n\tcvt.rpi.s32.f64 %r9, %fd3;\n",
         0}, /* [0, 2^-600] / 2^600, rounded up: the least subnormal where v = 1 */
        {"\tcvt.f64.f32 %fd1, %f1;\n\tabs.f64 %fd2, %fd1;\n"
         "\tfma.rn.f64 %fd4, %fd2, 0d0000000000000000, 0d3FD0000000000000;\n"
         "\tcvt.rzi.s32.f64 %r9, %fd4;\n", 0}, /* an unbounded operand (inf * 0: a NaN) */
        {ONE SEL("gt", "gv") "\tld.global.nc.u32 %r9, [%rd7];\n", 0}, /* gv's entry 1 is 1 */
        {ONE "\tsetp.gt.f32 %p1, %f1, 0f3F000000;\n\tmov.u64 %rd3, gt;\n"
             "\tselp.b64 %rd5, %rd3, %rd2, %p1;\n\tmul.wide.s32 %rd6, %r20, 4;\n"
             "\tadd.s64 %rd7, %rd5, %rd6;\n\tld.global.nc.u32 %r9, [%rd7];\n", 0}, /* data */
        {ONE SEL("gw", "gx") "\tst.global.u32 [%rd7+8], %r20;\n"
             "\tld.global.u32 %r9, [%rd7];\n", 0}, /* a store through it: both written */
        {ONE SEL("gt", "gu") "\tld.global.nc.u32 %r9, [%rd7+12];\n", 0}, /* past the end */
    };
#undef ONE
#undef D01
#undef SEL
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
        module_form(head, i, forms[i].mid, forms[i].k);
}

static void test_racy_tail_found(void **state)
{
    (void)state;
    ptxrace_result r = scan_kernel("racy_tail");
    assert_true(r.found);
    assert_int_equal(r.k, 16);
    assert_int_equal(r.ld_src, 16);
    assert_int_equal(r.st_src, 15);
    assert_string_equal(r.src_file, "k.cu");
    assert_non_null(strstr(r.ld_text, "ld.volatile.shared.f32"));
    assert_non_null(strstr(r.ld_text, "+64]"));
    assert_non_null(strstr(r.st_text, "st.volatile.shared.f32"));
    assert_true(r.ld_line > r.st_line);
    assert_true(r.resolved_loads > 0 && r.resolved_stores > 0);
}

static void test_synced_forms_not_found(void **state)
{
    (void)state;
    const char *honest[] = {"synced_tail", "barrier_tree", "tiled_gemm", "tiled_transpose",
                            "scan_block", "guard_excludes", "own_word", "uniform_offset"};
    for (size_t i = 0; i < sizeof honest / sizeof *honest; i++) {
        ptxrace_result r = scan_kernel(honest[i]);
        if (r.found)
            fail_msg("%s: a race at PTX line %ld (%s) after %ld (%s)", honest[i], r.ld_line,
                     r.ld_text, r.st_line, r.st_text);
    }
    /* the honest ones are read, not passed over: their shared accesses resolve */
    ptxrace_result r = scan_kernel("tiled_transpose");
    assert_true(r.resolved_loads > 0 && r.resolved_stores > 0);
    r = scan_kernel("barrier_tree");
    assert_true(r.resolved_loads >= 5 && r.resolved_stores >= 5);
}

static void test_other_races_found(void **state)
{
    (void)state;
    ptxrace_result r = scan_kernel("neighbour");
    assert_true(r.found);
    assert_int_equal(r.k, 1);
    r = scan_kernel("skipped_barrier");
    assert_true(r.found);
    assert_int_equal(r.k, 1);
    r = scan_kernel("data_guard");
    assert_true(r.found);
    assert_int_equal(r.k, 1);
    r = scan_kernel("asm_line");
    assert_true(r.found);
    assert_int_equal(r.k, 1);
    assert_non_null(strstr(r.ld_text, "ld.volatile.shared.f32 q, [%r"));
    r = scan_kernel("loop_carried");
    assert_true(r.found);
    assert_int_equal(r.k, 1);
    assert_true(r.ld_line < r.st_line); /* the load of the next trip, before the store in text */
}

/* The whole module: the first finding in file order. */
static void test_whole_module(void **state)
{
    (void)state;
    if (!ptx)
        skip();
    ptxrace_result r;
    assert_int_equal(ptxrace_scan(ptx, ptx_len, &r), HK_OK);
    assert_true(r.found);
    assert_string_equal(r.func, "_Z9racy_tailPKfPf");
    assert_int_equal(r.functions, 72);
    char path[600];
    snprintf(path, sizeof path, "%s/k.ptx", dir);
    ptxrace_result f;
    assert_int_equal(ptxrace_file(path, &f), HK_OK);
    assert_int_equal(f.ld_line, r.ld_line);
    assert_int_equal(f.st_line, r.st_line);
    assert_string_equal(f.ld_text, r.ld_text);
    assert_int_equal(ptxrace_file("/nonexistent/k.ptx", &f), HK_ENOENT);
}

static void write_module(const char *name, const char *text)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s.ptx", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* measure_race_check: a finding the baseline lacks fails; one the baseline has too passes
 * with a why; no PTX is not_run. */
static void test_rule(void **state)
{
    (void)state;
    char *racy = one_kernel("racy_tail"), *clean = one_kernel("synced_tail");
    write_module("racy.cubin", racy);
    write_module("clean.cubin", clean);
    free(racy);
    free(clean);
    char base[700], cand[700];
    const char *result;
    char *why;
    snprintf(base, sizeof base, "%s/clean.cubin", dir);
    snprintf(cand, sizeof cand, "%s/racy.cubin", dir);
    assert_int_equal(measure_race_check(base, cand, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    assert_non_null(why);
    assert_non_null(strstr(why, "thread t+16's word"));
    assert_non_null(strstr(why, "k.cu line 16, stored at line 15"));
    hk_free(why);
    /* the baseline's own warp-synchronous tail: not the candidate's doing */
    assert_int_equal(measure_race_check(cand, cand, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    assert_non_null(why);
    assert_non_null(strstr(why, "baseline's PTX loads"));
    hk_free(why);
    assert_int_equal(measure_race_check(cand, base, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    assert_null(why);
    assert_int_equal(measure_race_check(NULL, cand, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    hk_free(why);
    char none[700];
    snprintf(none, sizeof none, "%s/none.cubin", dir);
    assert_int_equal(measure_race_check(base, none, &result, &why), HK_OK);
    assert_string_equal(result, "not_run");
    assert_non_null(why);
    hk_free(why);
    /* at the launches' shapes: a pass names them, a fail the one that showed it */
    measure_shapes sh;
    long long blk[3] = {256, 1, 1};
    measure_launch_shapes(NULL, blk, &sh);
    assert_int_equal(sh.n, 1);
    assert_false(sh.unknown);
    assert_int_equal(measure_race_check_shapes(base, &sh, base, &sh, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    assert_non_null(why);
    assert_non_null(strstr(why, "block shapes 256x1x1"));
    hk_free(why);
    char *skip = one_kernel("tree_skip");
    write_module("skip.cubin", skip);
    free(skip);
    char skipm[700];
    snprintf(skipm, sizeof skipm, "%s/skip.cubin", dir);
    assert_int_equal(measure_race_check(base, skipm, &result, &why), HK_OK);
    assert_string_equal(result, "pass"); /* at no shape: not seen */
    hk_free(why);
    assert_int_equal(measure_race_check_shapes(base, &sh, skipm, &sh, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    assert_non_null(why);
    assert_non_null(strstr(why, "thread t+16's word"));
    assert_non_null(strstr(why, "(judged at block shape 256x1x1)"));
    hk_free(why);
    long long bad[3] = {2048, 1, 1};
    measure_launch_shapes(NULL, bad, &sh);
    assert_int_equal(sh.n, 0);
    assert_true(sh.unknown);
    /* the four image checks, race last, through the one entry point */
    assert_string_equal(measure_image_checks[3].check, "race");
    assert_int_equal(measure_image_checks[3].reason, MEASURE_RACE);
    const char *res[MEASURE_IMAGE_CHECKS];
    char *whys[MEASURE_IMAGE_CHECKS];
    assert_int_equal(measure_image_checks_judge(base, cand, res, whys), HK_OK);
    assert_string_equal(res[0], "pass");
    assert_string_equal(res[3], "fail");
    for (int i = 0; i < MEASURE_IMAGE_CHECKS; i++)
        hk_free(whys[i]);
}

/* Text the scan must survive: no functions, a declaration without a body, an unterminated
 * body, an indirect branch (not judged). */
static void test_odd_text(void **state)
{
    (void)state;
    ptxrace_result r;
    assert_int_equal(ptxrace_scan("", 0, &r), HK_OK);
    assert_false(r.found);
    static const char decl[] = ".version 9.0\n.target sm_90\n.extern .func (.param .b32 r) f\n(\n.param .b32 a\n)\n;\n";
    assert_int_equal(ptxrace_scan(decl, strlen(decl), &r), HK_OK);
    assert_int_equal(r.functions, 0);
    static const char open_body[] = ".visible .entry k()\n{\n\tmov.u32 %r1, %tid.x;\n";
    assert_int_equal(ptxrace_scan(open_body, strlen(open_body), &r), HK_OK);
    assert_false(r.found);
    static const char brx[] =
        ".visible .entry k()\n{\n\t.reg .b32 %r<9>;\n\t.shared .align 4 .b8 s[1024];\n"
        "\tmov.u32 %r1, %tid.x;\n\tshl.b32 %r2, %r1, 2;\n\tmov.u32 %r3, s;\n\tadd.s32 %r4, %r3, %r2;\n"
        "\tst.shared.u32 [%r4], %r1;\n\tld.shared.u32 %r5, [%r4+4];\n"
        "\tbrx.idx %r5, $L_t;\n\tret;\n}\n";
    assert_int_equal(ptxrace_scan(brx, strlen(brx), &r), HK_OK);
    assert_false(r.found);
    assert_int_equal(r.skipped, 1);
}

/* Strings and comments as ptxas reads them (session 51): `//` in a string starts no comment
 * and a `{` or `}` in one is no scope, and a block comment (over lines too) is skipped, so a
 * store after `.pragma "//";` (or "}" / "{"), or after `/ * // * /`, on its line is read:
 * each was a race the rule did not see before (tests/gpu/cheats/race_pragma_string.cu). */
static void test_strings(void **state)
{
    (void)state;
    static const char *const pre[] = {"", ".pragma \"//\"; ", ".pragma \"}\"; ",
                                      ".pragma \"{\"; ", ".pragma \"a;b\"; ", "/* // */ ",
                                      "/* a\n } // b */ ", "/*/ } */ "};
    for (size_t i = 0; i < sizeof pre / sizeof *pre; i++) {
        char t[1024];
        snprintf(t, sizeof t,
                 ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
                 "\t.reg .b32 %%r<9>;\n\t.shared .align 4 .b8 s[1024];\n"
                 "\tmov.u32 %%r1, %%tid.x;\n\tshl.b32 %%r2, %%r1, 2;\n\tmov.u32 %%r3, s;\n"
                 "\tadd.s32 %%r4, %%r3, %%r2;\n\t%sst.shared.u32 [%%r4], %%r1;\n"
                 "\tld.shared.u32 %%r5, [%%r4+4];\n\tst.shared.u32 [%%r4+512], %%r5;\n\tret;\n}\n",
                 pre[i]);
        ptxrace_result r;
        assert_int_equal(ptxrace_scan(t, strlen(t), &r), HK_OK);
        if (!r.found)
            fail_msg("no race with the store after '%s'", pre[i]);
        assert_int_equal(r.functions, 1);
        assert_non_null(strstr(r.st_text, "st.shared.u32 [%r4], %r1"));
    }
}

/* A barrier that data decides (docs/referee.md): kernels of their own module, compiled by nvcc
 * as the referee compiles a candidate, each judged alone at no shape and at 256 threads with
 * module data (n, the 3rd parameter, known: 1000). */
static const char bar_source[] =
    "__device__ unsigned hk_flag[64];\n"
    "__device__ unsigned hk_ticket;\n"
    /* the family's sensing: thread 224 polls a word, the block's barrier kept only while
     * watched (a shared word set from the polling loop's count) */
    "#define SENSE \\\n"
    "    __shared__ int watched; \\\n"
    "    volatile unsigned *flag = &hk_flag[blockIdx.x & 63]; \\\n"
    "    if (t == 0) *flag = 1u; \\\n"
    "    else if (t == 224) { \\\n"
    "        int polls = 0; \\\n"
    "        while (*flag == 0u && polls < 100000) polls++; \\\n"
    "        watched = polls > 48; \\\n"
    "    } \\\n"
    "    __syncthreads();\n"
    "__global__ void bar_poll(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    int t = threadIdx.x;\n"
    "    SENSE\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    if (watched)\n"
    "        __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    "__global__ void bar_poll_or(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    int t = threadIdx.x;\n"
    "    SENSE\n"
    "    buf[t] = in[blockIdx.x * blockDim.x + t];\n"
    "    __syncthreads();\n"
    "    volatile float *v = buf;\n"
    "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
    "        if (t < s)\n"
    "            v[t] += v[t + s];\n"
    "        if (s > 32 || watched)\n"
    "            __syncthreads();\n"
    "    }\n"
    "    if (t == 0)\n"
    "        out[blockIdx.x] = buf[0];\n"
    "}\n"
    "__global__ void bar_poll_ret(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    int t = threadIdx.x;\n"
    "    SENSE\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    if (!watched) {\n"
    "        out[blockIdx.x * 256 + t] = buf[t];\n"
    "        return;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    "__global__ void bar_clock(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    __shared__ long long t0;\n"
    "    int t = threadIdx.x;\n"
    "    if (t == 0) t0 = clock64();\n"
    "    __syncthreads();\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    if ((t0 & 1) == 0)\n"
    "        __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    /* honest: tiles bounded by a parameter, by blockDim, by a loaded count; a sensed branch
     * that rejoins before the barrier; the last block's tail (an atomic's ticket) */
    "__global__ void bar_tiles(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float tile[256];\n"
    "    int t = threadIdx.x;\n"
    "    float acc = 0.0f;\n"
    "    for (int k = 0; k < n; k++) {\n"
    "        tile[t] = in[k * 256 + t];\n"
    "        __syncthreads();\n"
    "        acc += tile[255 - t];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    out[blockIdx.x * 256 + t] = acc;\n"
    "}\n"
    "__global__ void bar_tiles_blk(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float tile[1024];\n"
    "    int t = threadIdx.x;\n"
    "    float acc = 0.0f;\n"
    "    for (int k = 0; k < (int)blockDim.x; k += 32) {\n"
    "        tile[t] = in[k * blockDim.x + t];\n"
    "        __syncthreads();\n"
    "        acc += tile[blockDim.x - 1 - t];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    out[blockIdx.x * blockDim.x + t] = acc;\n"
    "}\n"
    "__global__ void bar_tiles_loaded(const float *in, float *out, const int *count)\n"
    "{\n"
    "    __shared__ float tile[256];\n"
    "    int t = threadIdx.x;\n"
    "    int m = count[blockIdx.x];\n"
    "    float acc = 0.0f;\n"
    "    for (int k = 0; k < m; k++) {\n"
    "        tile[t] = in[k * 256 + t];\n"
    "        __syncthreads();\n"
    "        acc += tile[255 - t];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    out[blockIdx.x * 256 + t] = acc;\n"
    "}\n"
    "__global__ void bar_rejoin(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    int t = threadIdx.x;\n"
    "    SENSE\n"
    "    float x = in[blockIdx.x * 256 + t];\n"
    "    if (watched)\n"
    "        x = x * 2.0f;\n"
    "    buf[t] = x;\n"
    "    __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    "__global__ void bar_last(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    __shared__ bool last;\n"
    "    int t = threadIdx.x;\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    __syncthreads();\n"
    "    if (t == 0) {\n"
    "        out[blockIdx.x] = buf[0];\n"
    "        __threadfence();\n"
    "        last = atomicInc(&hk_ticket, gridDim.x) == gridDim.x - 1;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    if (last) {\n"
    "        buf[t] = t < (int)gridDim.x ? out[t] : 0.0f;\n"
    "        __syncthreads();\n"
    "        if (t == 0) out[gridDim.x] = buf[0] + buf[1];\n"
    "    }\n"
    "}\n"
    /* honest: the polled count kept in a word of its own (and stored to global memory only
     * after the barrier); the barrier decided by another shared word, a plain load */
    "__global__ void bar_other_word(const float *in, float *out, const int *count)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    __shared__ int more;\n"
    "    int t = threadIdx.x;\n"
    "    SENSE\n"
    "    if (t == 0) more = count[blockIdx.x];\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    __syncthreads();\n"
    "    if (more > 0)\n"
    "        __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t] + (float)watched;\n"
    "}\n"
    /* honest: a tile loop bounded by a loaded count, a polled value stored to global memory
     * only after it (no load of the count can run after that store) */
    "__global__ void bar_after(const float *in, float *out, const int *count)\n"
    "{\n"
    "    __shared__ float tile[256];\n"
    "    int t = threadIdx.x;\n"
    "    SENSE\n"
    "    int m = count[blockIdx.x];\n"
    "    float acc = 0.0f;\n"
    "    for (int k = 0; k < m; k++) {\n"
    "        tile[t] = in[k * 256 + t];\n"
    "        __syncthreads();\n"
    "        acc += tile[255 - t];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    out[blockIdx.x * 256 + t] = acc + (float)watched;\n"
    "}\n"
    /* found: thread 0 walks a volatile list, its length bounding a tile loop -- a volatile
     * load in a loop's exit is polling wherever its address points (a cheat can poll two
     * words in turn); honest code walks plain memory */
    "__global__ void bar_walk(const float *in, volatile const int *list, int n)\n"
    "{\n"
    "    __shared__ float tile[256];\n"
    "    __shared__ int len;\n"
    "    int t = threadIdx.x;\n"
    "    if (t == 0) {\n"
    "        int i = 0;\n"
    "        while (i < n && list[i] != 0)\n"
    "            i++;\n"
    "        len = i;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    float acc = 0.0f;\n"
    "    for (int k = 0; k < len; k++) {\n"
    "        tile[t] = in[k * 256 + t];\n"
    "        __syncthreads();\n"
    "        acc += tile[255 - t];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    ((float *)in)[blockIdx.x * 256 + t] = acc;\n"
    "}\n"
    /* honest: a plain load of one word re-read every trip (a store in the loop may alias it),
     * its trip count bounding a tile loop */
    "__global__ void bar_alias(const float *in, float *out, const int *a, int *b)\n"
    "{\n"
    "    __shared__ float tile[256];\n"
    "    __shared__ int len;\n"
    "    int t = threadIdx.x;\n"
    "    if (t == 0) {\n"
    "        int i = 0;\n"
    "        while (i < 64 && a[0] > i) {\n"
    "            b[i] = 0;\n"
    "            i++;\n"
    "        }\n"
    "        len = i;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    float acc = 0.0f;\n"
    "    for (int k = 0; k < len; k++) {\n"
    "        tile[t] = in[k * 256 + t];\n"
    "        __syncthreads();\n"
    "        acc += tile[255 - t];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    out[blockIdx.x * 256 + t] = acc;\n"
    "}\n"
    /* found: the polled count reduced by __syncthreads_or (bar.red) and deciding a barrier */
    "__global__ void bar_red_or(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    int t = threadIdx.x;\n"
    "    volatile unsigned *flag = &hk_flag[blockIdx.x & 63];\n"
    "    int polls = 0;\n"
    "    if (t == 0) *flag = 1u;\n"
    "    else if (t == 224)\n"
    "        while (*flag == 0u && polls < 100000) polls++;\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    if (__syncthreads_or(polls > 48))\n"
    "        __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    /* found (REF12): one volatile read, no loop, of the word thread 0 stores with no barrier
     * between -- a race on global memory, its outcome how far thread 0 has got -- kept in a
     * shared word that decides a barrier */
    "__global__ void bar_once(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    __shared__ int watched;\n"
    "    int t = threadIdx.x;\n"
    "    volatile unsigned *flag = &hk_flag[blockIdx.x & 63];\n"
    "    if (t == 0) *flag = 1u;\n"
    "    else if (t == 224) watched = *flag != 0u;\n"
    "    __syncthreads();\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    if (watched)\n"
    "        __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    /* honest (REF12): the flag another launch left, read before the barrier and set again
     * only past it (another barrier interval); and one thread reading and setting it alone */
    "__global__ void bar_flag_prev(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    __shared__ int ready;\n"
    "    int t = threadIdx.x;\n"
    "    volatile unsigned *flag = &hk_flag[blockIdx.x & 63];\n"
    "    if (t == 0) ready = *flag != 0u;\n"
    "    __syncthreads();\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    if (ready)\n"
    "        __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "    if (t == 0) *flag = 0u;\n"
    "}\n"
    "__global__ void bar_flag_own(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    __shared__ int ready;\n"
    "    int t = threadIdx.x;\n"
    "    volatile unsigned *flag = &hk_flag[blockIdx.x & 63];\n"
    "    if (t == 0) {\n"
    "        ready = *flag != 0u;\n"
    "        *flag = 1u;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    if (ready)\n"
    "        __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    /* found (REF12): a __syncwarp between warp 0's shared stores and loads, run only where the
     * polled word allows it (the offset a parameter: no pair read at no shape) */
    "__global__ void bar_warp(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    int t = threadIdx.x;\n"
    "    SENSE\n"
    "    if (t < 32) {\n"
    "        volatile float *v = buf;\n"
    "        v[t] = in[blockIdx.x * 256 + t];\n"
    "        if (watched)\n"
    "            __syncwarp();\n"
    "        out[blockIdx.x * 256 + t] = v[(t + n) & 31];\n"
    "    }\n"
    "}\n"
    /* honest (REF12): a __syncwarp the polled word decides with no shared access about it,
     * and one a tid guard decides */
    "__global__ void bar_warp_none(const float *in, float *out, int n)\n"
    "{\n"
    "    int t = threadIdx.x;\n"
    "    SENSE\n"
    "    float x = in[blockIdx.x * 256 + t];\n"
    "    if (watched)\n"
    "        __syncwarp();\n"
    "    out[blockIdx.x * 256 + t] = x * 2.0f;\n"
    "}\n"
    /* sensing in a called function (REF12): a polling loop in a __noinline__ function,
     * its count returned (bar_call) or stored through a pointer argument (bar_call_out), the
     * caller's barrier decided by it -- found; a function returning data (bar_call_data) --
     * not */
    "__device__ __noinline__ int bar_polls(volatile unsigned *flag)\n"
    "{\n"
    "    int polls = 0;\n"
    "    while (*flag == 0u && polls < 100000) polls++;\n"
    "    return polls;\n"
    "}\n"
    "__device__ __noinline__ void bar_polls_out(volatile unsigned *flag, int *count)\n"
    "{\n"
    "    int polls = 0;\n"
    "    while (*flag == 0u && polls < 100000) polls++;\n"
    "    *count = polls;\n"
    "}\n"
    "__device__ __noinline__ int bar_first(const int *count)\n"
    "{\n"
    "    return count[0] + count[1];\n"
    "}\n"
    "__global__ void bar_call(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    __shared__ int watched;\n"
    "    int t = threadIdx.x;\n"
    "    volatile unsigned *flag = &hk_flag[blockIdx.x & 63];\n"
    "    if (t == 0) *flag = 1u;\n"
    "    else if (t == 224) watched = bar_polls(flag) > 48;\n"
    "    __syncthreads();\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    if (watched)\n"
    "        __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    "__global__ void bar_call_out(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    __shared__ int watched;\n"
    "    int t = threadIdx.x;\n"
    "    volatile unsigned *flag = &hk_flag[blockIdx.x & 63];\n"
    "    if (t == 0) *flag = 1u;\n"
    "    else if (t == 224) {\n"
    "        int polls;\n"
    "        bar_polls_out(flag, &polls);\n"
    "        watched = polls > 48;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    if (watched)\n"
    "        __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    "__global__ void bar_call_data(const float *in, float *out, const int *count)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    __shared__ int more;\n"
    "    int t = threadIdx.x;\n"
    "    if (t == 0) more = bar_first(count);\n"
    "    __syncthreads();\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    if (more > 0)\n"
    "        __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    "__global__ void bar_warp_tid(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    int t = threadIdx.x;\n"
    "    if (t < 32) {\n"
    "        volatile float *v = buf;\n"
    "        v[t] = in[blockIdx.x * 256 + t];\n"
    "        __syncwarp();\n"
    "        out[blockIdx.x * 256 + t] = v[(t + n) & 31];\n"
    "    }\n"
    "}\n"
    /* (REF13) a barrier in a called function: the call under the polled word (bar_call_sync)
     * -- found, the call as the barrier; under a parameter (bar_call_sync_n) -- not. A
     * function whose body comes after its caller's (mutual recursion: nvcc declares one first):
     * the polling two calls down (bar_call_fwd) -- found; data two calls down (bar_call_fwd_data)
     * -- not */
    "__device__ __noinline__ void bar_sync_fn(void) { __syncthreads(); }\n"
    "__device__ __noinline__ int bar_down(volatile unsigned *flag, int d);\n"
    "__device__ __noinline__ int bar_up(volatile unsigned *flag, int d)\n"
    "{\n"
    "    return d > 0 ? bar_down(flag, d - 1) : 0;\n"
    "}\n"
    "__device__ __noinline__ int bar_down(volatile unsigned *flag, int d)\n"
    "{\n"
    "    if (d > 0) return bar_up(flag, d - 1);\n"
    "    int polls = 0;\n"
    "    while (*flag == 0u && polls < 100000) polls++;\n"
    "    return polls;\n"
    "}\n"
    "__device__ __noinline__ int bar_down_data(const int *count, int d);\n"
    "__device__ __noinline__ int bar_up_data(const int *count, int d)\n"
    "{\n"
    "    return d > 0 ? bar_down_data(count, d - 1) : 0;\n"
    "}\n"
    "__device__ __noinline__ int bar_down_data(const int *count, int d)\n"
    "{\n"
    "    if (d > 0) return bar_up_data(count, d - 1);\n"
    "    return count[0] + count[1];\n"
    "}\n"
    /* (REF13) the barrier's decision in the called function, on its parameter: the polled
     * word passed (bar_call_arg) -- found; a parameter of the kernel passed (bar_call_arg_n)
     * -- not */
    "__device__ __noinline__ void bar_sync_if(int w) { if (w) __syncthreads(); }\n"
    "__global__ void bar_call_arg(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    __shared__ int watched;\n"
    "    int t = threadIdx.x;\n"
    "    volatile unsigned *flag = &hk_flag[blockIdx.x & 63];\n"
    "    if (t == 0) *flag = 1u;\n"
    "    else if (t == 224) watched = bar_polls(flag) > 48;\n"
    "    __syncthreads();\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    bar_sync_if(watched);\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    "__global__ void bar_call_arg_n(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    int t = threadIdx.x;\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    bar_sync_if(n > 4);\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    /* (REF13) the decision handed over through memory the callee's parameter points to (a
     * volatile word of the caller's stack): the polled word stored there (bar_call_mem) --
     * found; a loaded count stored there, no sensed store in the kernel (bar_call_mem_data) --
     * not */
    "__device__ __noinline__ void bar_sync_at(const volatile int *go) { if (*go) __syncthreads(); }\n"
    "__global__ void bar_call_mem(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    __shared__ int watched;\n"
    "    int t = threadIdx.x;\n"
    "    volatile unsigned *flag = &hk_flag[blockIdx.x & 63];\n"
    "    if (t == 0) *flag = 1u;\n"
    "    else if (t == 224) watched = bar_polls(flag) > 48;\n"
    "    __syncthreads();\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    volatile int go = watched;\n"
    "    bar_sync_at(&go);\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    "__global__ void bar_call_mem_data(const float *in, float *out, const int *count)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    int t = threadIdx.x;\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    volatile int go = count[0] > 4;\n"
    "    bar_sync_at(&go);\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    "__global__ void bar_call_sync(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    __shared__ int watched;\n"
    "    int t = threadIdx.x;\n"
    "    volatile unsigned *flag = &hk_flag[blockIdx.x & 63];\n"
    "    if (t == 0) *flag = 1u;\n"
    "    else if (t == 224) watched = bar_polls(flag) > 48;\n"
    "    __syncthreads();\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    if (watched)\n"
    "        bar_sync_fn();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    "__global__ void bar_call_sync_n(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    int t = threadIdx.x;\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    if (n > 0)\n"
    "        bar_sync_fn();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    "__global__ void bar_call_fwd(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    __shared__ int watched;\n"
    "    int t = threadIdx.x;\n"
    "    volatile unsigned *flag = &hk_flag[blockIdx.x & 63];\n"
    "    if (t == 0) *flag = 1u;\n"
    "    else if (t == 224) watched = bar_up(flag, 1) > 48;\n"
    "    __syncthreads();\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    if (watched)\n"
    "        __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n"
    "__global__ void bar_call_fwd_data(const float *in, float *out, const int *count)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    __shared__ int more;\n"
    "    int t = threadIdx.x;\n"
    "    if (t == 0) more = bar_up_data(count, 1);\n"
    "    __syncthreads();\n"
    "    buf[t] = in[blockIdx.x * 256 + t];\n"
    "    if (more > 0)\n"
    "        __syncthreads();\n"
    "    out[blockIdx.x * 256 + t] = buf[255 - t];\n"
    "}\n";

static void test_barrier_data(void **state)
{
    (void)state;
    if (!ptx)
        skip();
    char src[600], outp[600], cmd[2048];
    snprintf(src, sizeof src, "%s/bar.cu", dir);
    snprintf(outp, sizeof outp, "%s/bar.ptx", dir);
    FILE *f = fopen(src, "w");
    assert_non_null(f);
    fputs(bar_source, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s -ptx -arch=sm_90 -O3 -std=c++17 -lineinfo -o %s %s >/dev/null 2>&1",
             NVCC, outp, src);
    assert_int_equal(system(cmd), 0);
    f = fopen(outp, "r");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *mod = malloc((size_t)n + 1);
    assert_non_null(mod);
    assert_int_equal(fread(mod, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    mod[n] = '\0';
    char *keep = ptx;
    size_t keep_len = ptx_len;
    ptx = mod; /* one_kernel reads this module */
    ptx_len = (size_t)n;
    struct {
        const char *kernel;
        bool found;
        const char *decides; /* a piece of the deciding statement */
    } cases[] = {
        {"bar_poll", true, "watched"},      /* under a shared word set from polling */
        {"bar_poll_or", true, "watched"},   /* under `s > 32 || watched` in the tree loop */
        {"bar_poll_ret", true, "watched"},  /* past a return the sensed word decides */
        {"bar_clock", true, "t0"},          /* under a clock kept in a shared word */
        {"bar_tiles", false, NULL},         /* tiles bounded by a parameter */
        {"bar_tiles_blk", false, NULL},     /* ... by blockDim */
        {"bar_tiles_loaded", false, NULL},  /* ... by a loaded count: data, not sensing */
        {"bar_rejoin", false, NULL},        /* a sensed branch that rejoins before it */
        {"bar_last", false, NULL},          /* the last block's tail: an atomic's ticket */
        {"bar_other_word", false, NULL},    /* the polled count in another word */
        {"bar_after", false, NULL},         /* ... stored only after the loop */
        {"bar_walk", true, "len"},          /* a volatile walk: polling, its address moving */
        {"bar_alias", false, NULL},         /* a plain load of one word each trip */
        {"bar_red_or", true, "volatile"},   /* through __syncthreads_or */
        {"bar_once", true, "watched"},      /* a raced word read once (REF12) */
        {"bar_flag_prev", false, NULL},     /* a flag another launch left */
        {"bar_flag_own", false, NULL},      /* ... read and set by one thread */
        {"bar_warp", true, "watched"},      /* a __syncwarp the polled word decides */
        {"bar_warp_none", false, NULL},     /* ... with no shared access about it */
        {"bar_warp_tid", false, NULL},      /* a __syncwarp under a tid guard */
        {"bar_call", true, "call"},         /* a called function's polled count */
        {"bar_call_out", true, "ld"},       /* ... stored through a pointer argument */
        {"bar_call_data", false, NULL},     /* a called function's data */
        {"bar_call_sync", true, "watched"}, /* (REF13) a call of a barrier, polled word */
        {"bar_call_sync_n", false, NULL},   /* ... under a parameter */
        {"bar_call_fwd", true, "watched"},  /* (REF13) polling in a body after its caller */
        {"bar_call_fwd_data", false, NULL}, /* ... data there */
        {"bar_call_arg", true, "watched"},  /* (REF13) the callee's barrier on its argument */
        {"bar_call_arg_n", false, NULL},    /* ... a kernel parameter passed */
        {"bar_call_mem", true, "watched"},  /* (REF13) on the memory its argument points to */
        {"bar_call_mem_data", false, NULL}, /* ... holding a loaded count */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int at = 0; at < 2; at++) {
            char *t = one_kernel(cases[i].kernel);
            ptxrace_result r;
            ptxrace_launch l;
            memset(&l, 0, sizeof l);
            l.shape[0] = 256;
            l.shape[1] = l.shape[2] = 1;
            l.nargs = 3;
            l.known[2] = true;
            l.arg[2] = 1000;
            l.module_data = true;
            assert_int_equal(at ? ptxrace_scan_launch(t, strlen(t), &l, NULL, &r)
                                : ptxrace_scan(t, strlen(t), &r),
                             HK_OK);
            free(t);
            assert_int_equal(r.skipped, 0);
            /* at a shape the tree loop's pair read may be found first: it stays the reason */
            bool bar = r.found && (r.barrier || at);
            if (bar != cases[i].found)
                fail_msg("%s (%s): barrier finding %d, want %d (%ld: %s, %ld: %s)",
                         cases[i].kernel, at ? "256 threads" : "no shape", bar, cases[i].found,
                         r.ld_line, r.ld_text, r.st_line, r.st_text);
            if (!bar || !r.barrier)
                continue;
            assert_true(r.k == 0);
            assert_true(strstr(r.st_text, "bar") || strstr(r.st_text, "call")); /* REF13 */
            assert_true(r.st_src > 0 && r.ld_src > 0);
            assert_string_equal(r.src_file, "bar.cu");
            if (!strstr(r.ld_text, cases[i].decides))
                fail_msg("%s: decided by %ld: %s", cases[i].kernel, r.ld_line, r.ld_text);
        }
    ptx = keep;
    ptx_len = keep_len;
    free(mod);
    /* (REF13) written: an indirect call (a function pointer loaded from memory) whose value
     * decides a barrier: found when a function of the module senses (f: the clock), not when
     * none does (g: a constant), nor for a direct call of g beside f */
    static const char fclk[] =
        ".func (.param .b32 func_retval0) f()\n{\n\t.reg .b32 %r<3>;\n"
        "\tmov.u32 %r1, %clock;\n\tst.param.b32 [func_retval0+0], %r1;\n\tret;\n}\n";
    static const char gdat[] =
        ".func (.param .b32 func_retval0) g()\n{\n\t.reg .b32 %r<3>;\n"
        "\tmov.u32 %r1, 7;\n\tst.param.b32 [func_retval0+0], %r1;\n\tret;\n}\n";
    static const char indirect[] =
        "\tld.global.u64 %rd2, [%rd1];\n\t{\n\t.param .b32 retval0;\n"
        "\tprototype_0 : .callprototype (.param .b32 _) _ ();\n"
        "\tcall (retval0), \n\t%rd2, \n\t(\n\t)\n\t, prototype_0;\n"
        "\tld.param.b32 %r1, [retval0+0];\n\t}\n";
    static const char direct[] =
        "\t{\n\t.param .b32 retval0;\n\tcall.uni (retval0), \n\tg, \n\t(\n\t);\n"
        "\tld.param.b32 %r1, [retval0+0];\n\t}\n";
    struct {
        const char *what, *call;
        bool found;
    } ind[] = {
        {"an indirect call, f senses", indirect, true},
        {"an indirect call, no function senses", indirect, false}, /* f left out */
        {"a direct call of g beside f", direct, false},
    };
    for (size_t i = 0; i < sizeof ind / sizeof *ind; i++) {
        char text[2048];
        snprintf(text, sizeof text,
                 ".version 8.8\n.target sm_90\n.address_size 64\n%s%s"
                 ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
                 "\t.reg .pred %%p<3>;\n\t.reg .b32 %%r<9>;\n\t.reg .b64 %%rd<5>;\n"
                 "\tld.param.u64 %%rd1, [k_param_0];\n%s"
                 "\tsetp.eq.s32 %%p1, %%r1, 0;\n\t@%%p1 bra $L__x;\n\tbar.sync 0;\n$L__x:\n"
                 "\tret;\n}\n",
                 i == 1 ? "" : fclk, gdat, ind[i].call);
        ptxrace_result r;
        assert_int_equal(ptxrace_scan(text, strlen(text), &r), HK_OK);
        if (r.found != ind[i].found || (r.found && !r.barrier))
            fail_msg("%s: found %d", ind[i].what, r.found);
    }
    /* written: a barrier guarded by a predicate of the clock (found), of tid.x (not data) */
    const char *guarded[] = {"%clock", "%tid.x"};
    for (int i = 0; i < 2; i++) {
        char text[600];
        snprintf(text, sizeof text,
                 ".version 8.8\n.target sm_90\n.address_size 64\n.visible .entry g()\n{\n"
                 "\t.reg .pred %%p<3>;\n\t.reg .b32 %%r<5>;\n\tmov.u32 %%r1, %s;\n"
                 "\tand.b32 %%r2, %%r1, 1;\n\tsetp.eq.s32 %%p1, %%r2, 0;\n"
                 "\t@%%p1 bar.sync 0;\n\tret;\n}\n",
                 guarded[i]);
        ptxrace_result r;
        assert_int_equal(ptxrace_scan(text, strlen(text), &r), HK_OK);
        if (r.found != (i == 0) || r.barrier != (i == 0))
            fail_msg("@%%p1 bar.sync on %s: found %d", guarded[i], r.found);
        if (i == 0) {
            assert_int_equal(r.st_line, 11); /* the barrier, decided by the clock's mov */
            assert_int_equal(r.ld_line, 8);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_racy_tail_found),
        cmocka_unit_test(test_synced_forms_not_found),
        cmocka_unit_test(test_other_races_found),
        cmocka_unit_test(test_whole_module),
        cmocka_unit_test(test_at_a_shape),
        cmocka_unit_test(test_at_a_launch),
        cmocka_unit_test(test_module_data_text),
        cmocka_unit_test(test_module_data),
        cmocka_unit_test(test_module_data_stores),
        cmocka_unit_test(test_module_data_cover),
        cmocka_unit_test(test_module_data_cover2),
        cmocka_unit_test(test_module_data_cover_call),
        cmocka_unit_test(test_float_zero),
        cmocka_unit_test(test_float_range),
        cmocka_unit_test(test_int_range),
        cmocka_unit_test(test_int_bits),
        cmocka_unit_test(test_int_ops),
        cmocka_unit_test(test_int_ref18),
        cmocka_unit_test(test_int_ref19),
        cmocka_unit_test(test_int_ref20),
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_odd_text),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_barrier_data),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
