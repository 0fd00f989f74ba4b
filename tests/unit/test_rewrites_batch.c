/* load_batching run, not only compiled: a histogram256 like cuda-samples' (a grid-stride
 * loop through the UMUL/UMAD macros, one word per trip into four shared atomics of a
 * per-warp sub-histogram, 240-style fixed grid), mmcv's tin_shift inner loop (a
 * `continue` under a shift, loads and stores through indices computed in the body), the
 * same copy batched at its outer loop (a nested loop in the body), a float recurrence
 * (the order of its terms decides the bits) and a gather through a loaded index array,
 * against their rewrites at K = 2, 4 and 8 in the block emulator (emu_block.h): sizes that
 * are not a multiple of K times the stride, smaller than the stride, and empty; every
 * output must be bit-identical (the rewrite keeps each thread's elements and their
 * order). A rewrite whose bodies all read the first trip's value must differ. Kernels it
 * must not take are refused with the construct and its line; the wild suite's
 * cs_histogram256 and mmcv_tin_shift_fwd, rewritten, compile with nvcc -arch=sm_90. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "rw_fixture.h"
#include "emu_block.h"
#include "emu_batch.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-batch");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* PAIR(T, what, nout, ...): the launch (a statement using NS:: for the namespace and out
 * for a buffer of nout T, zeroed) on the original and on the rewrite under the three
 * thread orders; the outputs must be bit-identical. */
static const char helpers[] =
    "#define PAIR(T, what, nout, ...)                                                \\\n"
    "    for (int s = 0; s < 3; s++) {                                               \\\n"
    "        emu::schedule = s;                                                      \\\n"
    "        emu::buf<T> o_out(nout), c_out(nout);                                   \\\n"
    "        o_out.set(T(0));                                                        \\\n"
    "        c_out.set(T(0));                                                        \\\n"
    "        { namespace NS = orig; auto &out = o_out; __VA_ARGS__; }                \\\n"
    "        { namespace NS = cand; auto &out = c_out; __VA_ARGS__; }                \\\n"
    "        if (!emu::expect(what, o_out, c_out))                                   \\\n"
    "            printf(\"  (schedule %d)\\n\", s);                                   \\\n"
    "    }\n";

static emu_batch batch;

static const char hist[] =
    "typedef unsigned int uint;\n"
    "#define UMUL(a, b) ((a) * (b))\n"
    "#define UMAD(a, b, c) (UMUL((a), (b)) + (c))\n"
    "#define WARPS 2\n"
    "inline __device__ void addByte(uint *h, uint d) { atomicAdd(h + d, 1); }\n"
    "inline __device__ void addWord(uint *h, uint d)\n"
    "{\n"
    "    addByte(h, (d >> 0) & 0xFFU);\n"
    "    addByte(h, (d >> 8) & 0xFFU);\n"
    "    addByte(h, (d >> 16) & 0xFFU);\n"
    "    addByte(h, (d >> 24) & 0xFFU);\n"
    "}\n"
    "__global__ void hist(uint *partial, uint *data, uint count)\n"
    "{\n"
    "    __shared__ uint s[WARPS * 256];\n"
    "    uint *w = s + (threadIdx.x >> 5) * 256;\n"
    "    for (uint i = threadIdx.x; i < WARPS * 256; i += blockDim.x)\n"
    "        s[i] = 0;\n"
    "    __syncthreads();\n"
    "    for (uint pos = UMAD(blockIdx.x, blockDim.x, threadIdx.x); pos < count; pos += UMUL(blockDim.x, gridDim.x)) {\n"
    "        uint d = data[pos];\n"
    "        addWord(w, d);\n"
    "    }\n"
    "    __syncthreads();\n"
    "    for (uint bin = threadIdx.x; bin < 256; bin += blockDim.x) {\n"
    "        uint sum = 0;\n"
    "        for (uint i = 0; i < WARPS; i++)\n"
    "            sum += s[bin + i * 256];\n"
    "        partial[blockIdx.x * 256 + bin] = sum;\n"
    "    }\n"
    "}\n";

/* 5 blocks of 64 (stride 320): empty, below the stride, K * stride exactly, ragged */
static const char hist_drv[] =
    "for (unsigned n : {0u, 7u, 300u, 2560u, 2561u, 3001u}) {\n"
    "    emu::buf<unsigned> d(n + 1);\n"
    "    d.fill_mod((int)n, 4294967291LL);\n"
    "    PAIR(unsigned, \"hist\", 5 * 256, emu::launch(dim3(5), dim3(64), 0, [&] { NS::hist(out, d, n); }));\n"
    "}\n";

/* mmcv's tin_shift: the outer loop a statement macro, the inner one batched */
static const char tshift[] =
    "#define CUDA_1D_KERNEL_LOOP(i, n) \\\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "template <typename T>\n"
    "__global__ void tshift(const int nthreads, const T *input, const int *shift, T *output, const int t_size,\n"
    "                       const int hw_size, const int channels)\n"
    "{\n"
    "  CUDA_1D_KERNEL_LOOP(index, nthreads) {\n"
    "    const int hw_index = index % hw_size;\n"
    "    const int j = (index / hw_size) % channels;\n"
    "    const int n_index = index / hw_size / channels;\n"
    "    int t_shift = shift[n_index * channels + j];\n"
    "    int offset = n_index * t_size * hw_size * channels + hw_size * j + hw_index;\n"
    "    for (int i = 0; i < t_size; i++) {\n"
    "      int now_t = i + t_shift;\n"
    "      int data_id = i * hw_size * channels + offset;\n"
    "      if (now_t < 0 || now_t >= t_size) {\n"
    "        continue;\n"
    "      }\n"
    "      int out_id = now_t * hw_size * channels + offset;\n"
    "      output[out_id] = input[data_id];\n"
    "    }\n"
    "  }\n"
    "}\n"
    "template __global__ void tshift<float>(const int, const float *, const int *, float *, const int, const int,\n"
    "                                       const int);\n";

/* the same copy with its outer loop written out: the outer loop (its shift load) is batched */
static const char tshift_outer[] =
    "__global__ void tshift2(int nthreads, const float *input, const int *shift, float *output, int t_size, int hw)\n"
    "{\n"
    "    for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < nthreads; index += blockDim.x * gridDim.x) {\n"
    "        int n = index / hw;\n"
    "        int t_shift = shift[n];\n"
    "        int offset = n * t_size * hw + index % hw;\n"
    "        for (int i = 0; i < t_size; i++) {\n"
    "            int now_t = i + t_shift;\n"
    "            if (now_t < 0 || now_t >= t_size)\n"
    "                continue;\n"
    "            output[now_t * hw + offset] = input[i * hw + offset];\n"
    "        }\n"
    "    }\n"
    "}\n";

/* batch 3, channels 4, hw 5 (60 columns) over t_size 1, 3, 5, 8 and 9; shifts in [-3, 3] */
static const char tshift_drv[] =
    "for (int t : {1, 3, 5, 8, 9}) {\n"
    "    const int B = 3, C = 4, HW = 5, n = B * C * HW;\n"
    "    emu::buf<float> in(n * t);\n"
    "    in.fill(t);\n"
    "    emu::buf<int> sh(B * C);\n"
    "    sh.fill_mod(t, 7);\n"
    "    for (int j = 0; j < B * C; j++) sh[j] -= 3;\n"
    "    PAIR(float, \"tshift\", n * t, emu::launch(dim3(2), dim3(32), 0, [&] { NS::tshift<float>(n, in, sh, out, t, HW, C); }));\n"
    "}\n";

static const char tshift_outer_drv[] =
    "for (int t : {1, 4, 7}) {\n"
    "    const int B = 6, HW = 11, n = B * HW;\n"
    "    emu::buf<float> in(n * t);\n"
    "    in.fill(t + 1);\n"
    "    emu::buf<int> sh(B);\n"
    "    sh.fill_mod(t, 5);\n"
    "    for (int j = 0; j < B; j++) sh[j] -= 2;\n"
    "    PAIR(float, \"tshift2\", n * t, emu::launch(dim3(2), dim3(8), 0, [&] { NS::tshift2(n, in, sh, out, t, HW); }));\n"
    "}\n";

/* a float recurrence: bit-identical only when every thread keeps its order */
static const char recur[] =
    "__global__ void recur(const float *x, float *out, int n)\n"
    "{\n"
    "    float acc = 0.0f;\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        float v = x[i];\n"
    "        acc = acc * 0.75f + v * v;\n"
    "    }\n"
    "    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;\n"
    "}\n";

static const char recur_drv[] =
    "for (int n : {0, 50, 96, 1000, 1283}) {\n"
    "    emu::buf<float> x(n + 1);\n"
    "    x.fill(n);\n"
    "    PAIR(float, \"recur\", 3 * 32, emu::launch(dim3(3), dim3(32), 0, [&] { NS::recur(x, out, n); }));\n"
    "}\n";

/* a gather through a loaded index array (both loads batched) */
static const char gather[] =
    "__global__ void gather(const int *idx, const float *table, float *out, int n)\n"
    "{\n"
    "    for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += gridDim.x * blockDim.x) {\n"
    "        float v = table[idx[i]];\n"
    "        out[i] = v * 2.0f + table[i % 17];\n"
    "    }\n"
    "}\n";

static const char gather_drv[] =
    "for (int n : {5, 64, 333}) {\n"
    "    emu::buf<int> idx(n);\n"
    "    idx.fill_mod(n, 97);\n"
    "    emu::buf<float> t(97);\n"
    "    t.fill(3);\n"
    "    PAIR(float, \"gather\", n, emu::launch(dim3(2), dim3(32), 0, [&] { NS::gather(idx, t, out, n); }));\n"
    "}\n";

/* A row sweep of our own, kept in shared memory between barriers: each step takes the least
 * of three neighbours of the row plus a cost read from global memory under a guard that
 * shrinks with the step (a pyramid: the block's edges go stale), a line continuation in
 * the guard, a `break` at a given step (last), the block's own halo. The cost loads of K
 * steps are issued first, under their guards; the break ends the preload and the loop. */
static const char sweep[] =
    "#define TB 64\n"
    "#define WITHIN(v, lo, hi) ((v) >= (lo) && (v) <= (hi))\n"
    "#define LEAST(a, b) ((a) < (b) ? (a) : (b))\n"
    "__global__ void sweep(const int *cost, const int *init, int *out, int n, int steps, int halo, int last)\n"
    "{\n"
    "    __shared__ int cur[TB];\n"
    "    __shared__ int nxt[TB];\n"
    "    int t = threadIdx.x;\n"
    "    int inner = TB - 2 * steps;\n"
    "    int x = blockIdx.x * inner - halo + t;\n"
    "    bool inside = x >= 0 && x < n;\n"
    "    cur[t] = inside ? init[x] : 1 << 20;\n"
    "    __syncthreads();\n"
    "    bool done = false;\n"
    "    for (int s = 0; s < steps; s++) {\n"
    "        done = false;\n"
    "        if (WITHIN(t, s + 1, TB - s - 2) && \\\n"
    "            inside) {\n"
    "            int lo = LEAST(cur[t - 1], LEAST(cur[t], cur[t + 1]));\n"
    "            int at = n * s + x;\n"
    "            nxt[t] = lo + cost[at];\n"
    "            done = true;\n"
    "        }\n"
    "        __syncthreads();\n"
    "        if (s == last)\n"
    "            break;\n"
    "        if (done)\n"
    "            cur[t] = nxt[t];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (done && t >= steps && t < TB - steps)\n"
    "        out[x] = nxt[t];\n"
    "}\n";

/* rows of 1..1000 cells, 1..7 steps, the break at the last step, earlier or never */
static const char sweep_drv[] =
    "for (int n : {1, 37, 200, 1000})\n"
    "    for (int steps : {1, 3, 7})\n"
    "        for (int last : {steps - 1, steps / 2, steps + 5}) {\n"
    "            emu::buf<int> cost(n * steps + 1), init(n + 1);\n"
    "            cost.fill_mod(n + steps, 10);\n"
    "            init.fill_mod(n, 10);\n"
    "            int inner = 64 - 2 * steps;\n"
    "            int grid = (n + inner - 1) / inner;\n"
    "            PAIR(int, \"sweep\", n, emu::launch(dim3(grid), dim3(64), 0, [&] {\n"
    "                NS::sweep(cost, init, out, n, steps, steps, last); }));\n"
    "        }\n";

/* a barrier loop whose load is a declaration at its top: staged through shared memory */
static const char staged[] =
    "__global__ void staged(const float *x, float *out, int rounds)\n"
    "{\n"
    "    __shared__ float tile[32];\n"
    "    float acc = 0.0f;\n"
    "    int t = threadIdx.x;\n"
    "    for (int r = 0; r < rounds; r++) {\n"
    "        float v = x[(r * gridDim.x + blockIdx.x) * 32 + t];\n"
    "        tile[t] = v * 0.5f;\n"
    "        __syncthreads();\n"
    "        acc = acc * 0.75f + tile[31 - t];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    out[blockIdx.x * 32 + t] = acc;\n"
    "}\n";

static const char staged_drv[] =
    "for (int rounds : {0, 1, 5, 9}) {\n"
    "    emu::buf<float> x(3 * 32 * rounds + 1);\n"
    "    x.fill(rounds);\n"
    "    PAIR(float, \"staged\", 3 * 32, emu::launch(dim3(3), dim3(32), 0, [&] { NS::staged(x, out, rounds); }));\n"
    "}\n";

/* a guarded declaration that loads, in a barrier loop stepping by 2: the load goes ahead
 * under its guard, the declaration stays in the body and takes the slot */
static const char relax[] =
    "__global__ void relax(const float *w, float *out, int n, int rounds)\n"
    "{\n"
    "    __shared__ float row[32];\n"
    "    int t = threadIdx.x;\n"
    "    int g = blockIdx.x * 32 + t;\n"
    "    row[t] = 0.0f;\n"
    "    __syncthreads();\n"
    "    for (int r = 0; r < rounds; r += 2) {\n"
    "        float keep = row[(t + 1) % 32];\n"
    "        if (g < n && r % 3 != 1) {\n"
    "            float c = w[r * n + g];\n"
    "            keep = keep * 0.5f + c;\n"
    "        }\n"
    "        __syncthreads();\n"
    "        row[t] = keep;\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (g < n)\n"
    "        out[g] = row[t];\n"
    "}\n";

static const char relax_drv[] =
    "for (int n : {1, 31, 70})\n"
    "    for (int rounds : {0, 1, 4, 7, 12}) {\n"
    "        emu::buf<float> w(rounds * n + 1);\n"
    "        w.fill(n + rounds);\n"
    "        PAIR(float, \"relax\", n, emu::launch(dim3((n + 31) / 32), dim3(32), 0, [&] {\n"
    "            NS::relax(w, out, n, rounds); }));\n"
    "    }\n";

/* issue 13: pointers moved in place before the loop (cuda-samples' convolutionSeparable,
 * `d_Src += baseY * pitch + baseX;`): src stays a read-only buffer, its loads are batched
 * from the moved pointer; dst moved twice (`dst = dst + e;`, `dst++;`) and stored through */
static const char moved[] =
    "__global__ void moved(float *dst, float *src, int w, int pitch)\n"
    "{\n"
    "    const int y = blockIdx.x;\n"
    "    src += y * pitch + threadIdx.x;\n"
    "    dst = dst + y * pitch;\n"
    "    dst++;\n"
    "    float acc = 0.0f;\n"
    "    for (int i = 0; i < w; i++) {\n"
    "        float v = src[i * blockDim.x];\n"
    "        acc = acc * 0.5f + v;\n"
    "        dst[i * blockDim.x + threadIdx.x] = acc;\n"
    "    }\n"
    "}\n";

static const char moved_drv[] =
    "for (int w : {0, 1, 3, 4, 9}) {\n"
    "    const int pitch = w * 32;\n"
    "    emu::buf<float> src(3 * pitch + 1);\n"
    "    src.fill(w + 2);\n"
    "    PAIR(float, \"moved\", 3 * pitch + 1, emu::launch(dim3(3), dim3(32), 0, [&] { NS::moved(out, src, w, pitch); }));\n"
    "}\n";

/* issue 13 (session 52): SHOC's stencil2d stages its rows through `ToFlatIdx(row, col,
 * width)`, a __device__ function of the file taking ints by value and touching no memory.
 * Its call was read as one that may write memory, and its whole arguments (lidCol) as names
 * the call may write through a reference: load_batching refused the staging loop. Here the
 * index functions are called in the prefix (through a second one, `gidx_of`), in the load's
 * own statement and in the store's index, with loop-invariant names passed whole. */
static const char flat[] =
    "__device__ int flat_idx(int row, int col, int width)\n"
    "{\n"
    "    return (row + 1) * (width + 2) + (col + 1);\n"
    "}\n"
    "__device__ int gidx_of(int r, int c, int w)\n"
    "{\n"
    "    int t = flat_idx(r, c, w);\n"
    "    return t;\n"
    "}\n"
    "__global__ void flat(float *data, float *out, int rows, int w)\n"
    "{\n"
    "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float acc = 0.0f;\n"
    "    for (int i = 0; i < (rows + 2); i++) {\n"
    "        int g = gidx_of(i - 1, col, w);\n"
    "        acc = acc * 0.5f + data[g] + data[flat_idx(i - 1, col, w) + 1];\n"
    "        out[flat_idx(i - 1, col, w)] = acc;\n"
    "    }\n"
    "}\n";

static const char flat_drv[] =
    "for (int rows : {0, 1, 3, 6, 9}) {\n"
    "    const int w = 70;\n"
    "    const int n = (rows + 3) * (w + 2) + 2;\n"
    "    emu::buf<float> data(n);\n"
    "    data.fill(rows + 5);\n"
    "    PAIR(float, \"flat\", n, emu::launch(dim3(3), dim3(32), 0, [&] { NS::flat(data, out, rows, w); }));\n"
    "}\n";

/* session 52: mmcv carafe's taps shape (our own text): an index function of by-value ints
 * (`loc`, as mmcv's Loc2Index) after a `continue` on the window's bounds, the inner loop's
 * counter and the outer one's passed whole */
static const char taps[] =
    "__device__ inline int loc(const int n, const int c, const int h, const int w, const int cn, const int hh, const int ww)\n"
    "{\n"
    "    int idx = w + (h + (c + n * cn) * hh) * ww;\n"
    "    return idx;\n"
    "}\n"
    "__global__ void taps(const float *x, const float *m, float *y, int r, int hh, int ww)\n"
    "{\n"
    "    int p = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (p >= hh * ww)\n"
    "        return;\n"
    "    int px = p % ww, py = p / ww;\n"
    "    float acc = 0.0f;\n"
    "    for (int iy = py - r; iy <= py + r; iy++) {\n"
    "        for (int ix = px - r; ix <= px + r; ix++) {\n"
    "            if (iy < 0 || iy > hh - 1 || ix < 0 || ix > ww - 1)\n"
    "                continue;\n"
    "            int fi = loc(0, 1, iy, ix, 2, hh, ww);\n"
    "            int mi = loc(0, (iy - py + r) * (2 * r + 1) + ix - px + r, py, px, (2 * r + 1) * (2 * r + 1), hh, ww);\n"
    "            acc += x[fi] * m[mi];\n"
    "        }\n"
    "    }\n"
    "    y[p] = acc;\n"
    "}\n"
;

static const char taps_drv[] =
    "for (int r : {1, 2}) for (int hh : {1, 5}) {\n"
    "    const int ww = 7, np = hh * ww, kk = (2 * r + 1) * (2 * r + 1);\n"
    "    emu::buf<float> x(2 * np), m(kk * np);\n"
    "    x.fill(r + hh);\n"
    "    m.fill(r * 3 + hh);\n"
    "    PAIR(float, \"taps\", np + 8, emu::launch(dim3(2), dim3(32), 0, [&] { NS::taps(x, m, out, r, hh, ww); }));\n"
    "}\n";

static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const struct {
        const char *tag, *src, *kernel, *driver;
    } cases[] = {
        {"hist", hist, "hist", hist_drv},
        {"tshift", tshift, "tshift", tshift_drv},
        {"tshift2", tshift_outer, "tshift2", tshift_outer_drv},
        {"recur", recur, "recur", recur_drv},
        {"gather", gather, "gather", gather_drv},
        {"sweep", sweep, "sweep", sweep_drv},
        {"staged", staged, "staged", staged_drv},
        {"relax", relax, "relax", relax_drv},
        {"moved", moved, "moved", moved_drv},
        {"flat", flat, "flat", flat_drv},
        {"taps", taps, "taps", taps_drv},
    };
    static const int Ks[] = {2, 4, 8};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t j = 0; j < sizeof Ks / sizeof Ks[0]; j++) {
            const int p[RW_MAX_PARAMS] = {Ks[j], 0, 0};
            char *cand = emu_rewrite(cases[i].src, cases[i].kernel, "load_batching", p);
            char tag[64];
            snprintf(tag, sizeof tag, "%s_k%d", cases[i].tag, Ks[j]);
            emu_batch_add_pair(&batch, tag, cases[i].src, cand, helpers, cases[i].driver, EMU_OK);
            if (j == 1 && i == 0) {
                /* every body reading the first trip's value: the check must see it */
                char *broken = emu_replaced(cand, "uint d = hk_lb_s_d[hk_lb_k];", "uint d = hk_lb_s_d[0];");
                emu_batch_add_pair(&batch, "hist_broken", cases[i].src, broken, helpers, cases[i].driver,
                                   EMU_DIFFERS);
                free(broken);
            }
            if (j == 1 && !strcmp(cases[i].tag, "sweep")) {
                /* every step reading the first step's costs, and a break that leaves only
                 * the do { } while (0): both must differ */
                char *b1 = emu_replaced(cand, "lo + hk_lb_ld0[hk_lb_k]", "lo + hk_lb_ld0[0]");
                char *b2 = emu_replaced(cand, "hk_lb_brk = true;", "hk_lb_brk = false;");
                emu_batch_add_pair(&batch, "sweep_first", cases[i].src, b1, helpers, cases[i].driver, EMU_DIFFERS);
                emu_batch_add_pair(&batch, "sweep_nobreak", cases[i].src, b2, helpers, cases[i].driver,
                                   EMU_DIFFERS);
                free(b1);
                free(b2);
            }
            if (j == 1 && !strcmp(cases[i].tag, "taps")) {
                /* the preload's mask index on the loop's counter instead of its copy: differs */
                char *b1 = emu_replaced(cand, "+ hk_lb_iv - px + r, py, px,", "+ ix - px + r, py, px,");
                assert_true(strcmp(b1, cand) != 0);
                emu_batch_add_pair(&batch, "taps_counter", cases[i].src, b1, helpers, cases[i].driver,
                                   EMU_DIFFERS);
                free(b1);
            }
            if (j == 1 && !strcmp(cases[i].tag, "flat")) {
                /* the preload calling the index function on the loop's counter instead of its
                 * own copy, or every body reading the first trip's value: both must differ */
                char *b1 = emu_replaced(cand, "int g = gidx_of(hk_lb_iv - 1, col, w);", "int g = gidx_of(i - 1, col, w);");
                char *b2 = emu_replaced(cand, "hk_lb_ld1[hk_lb_k]", "hk_lb_ld1[0]");
                emu_batch_add_pair(&batch, "flat_first_index", cases[i].src, b1, helpers, cases[i].driver,
                                   EMU_DIFFERS);
                emu_batch_add_pair(&batch, "flat_first_value", cases[i].src, b2, helpers, cases[i].driver,
                                   EMU_DIFFERS);
                free(b1);
                free(b2);
            }
            if (j == 1 && !strcmp(cases[i].tag, "moved")) {
                /* the preload without the lane's part of the move, or every body reading
                 * the first trip's value: both must differ */
                char *b1 = emu_replaced(cand, "float v = src[hk_lb_iv * blockDim.x];",
                                        "float v = src[(int)(hk_lb_iv * blockDim.x) - (int)threadIdx.x];");
                char *b2 = emu_replaced(cand, "float v = hk_lb_s_v[hk_lb_k];", "float v = hk_lb_s_v[0];");
                emu_batch_add_pair(&batch, "moved_lane", cases[i].src, b1, helpers, cases[i].driver,
                                   EMU_DIFFERS);
                emu_batch_add_pair(&batch, "moved_first", cases[i].src, b2, helpers, cases[i].driver, EMU_DIFFERS);
                free(b1);
                free(b2);
            }
            free(cand);
        }
    emu_batch_run(&batch);
}

/* The emitted text: the header keeps init and condition, the preload steps its own copy
 * of the counter, the bodies step the counter. */
static void emitted_text(void **state)
{
    (void)state;
    const int p[RW_MAX_PARAMS] = {8, 0, 0};
    char *t = emu_rewrite(hist, "hist", "load_batching", p);
    static const char *const want[] = {
        "for (uint pos = UMAD(blockIdx.x, blockDim.x, threadIdx.x); pos < count;) {",
        "uint hk_lb_s_d[8];",
        "auto hk_lb_iv = pos;",
        "for (int hk_lb_k = 0; hk_lb_k < 8; hk_lb_k++, hk_lb_iv += UMUL(blockDim.x, gridDim.x)) {",
        "if (!(hk_lb_iv < count))",
        "uint d = data[hk_lb_iv];",
        "hk_lb_s_d[hk_lb_k] = d;",
        "if (hk_lb_k > 0 && !(pos < count))",
        "uint d = hk_lb_s_d[hk_lb_k];",
        "addWord(w, d);",
        "} while (0);",
        "pos += UMUL(blockDim.x, gridDim.x);",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++)
        if (!strstr(t, want[i]))
            fail_msg("no `%s` in\n%s", want[i], t);
    /* only the loop that loads: the clearing and merging loops are left alone */
    assert_int_equal((int)(strstr(t, "hk_lb_k") != NULL), 1);
    assert_non_null(strstr(t, "for (uint i = threadIdx.x; i < WARPS * 256; i += blockDim.x)"));
    assert_non_null(strstr(t, "for (uint bin = threadIdx.x; bin < 256; bin += blockDim.x) {"));
    /* cuda-samples' other spelling of UMUL, through __umul24: the same loop */
    char *h24 = emu_replaced(hist, "#define UMUL(a, b) ((a) * (b))", "#define UMUL(a, b) __umul24((a), (b))");
    char *t24 = emu_rewrite(h24, "hist", "load_batching", p);
    assert_non_null(strstr(t24, "hk_lb_iv += UMUL(blockDim.x, gridDim.x)) {"));
    assert_non_null(strstr(t24, "pos += UMUL(blockDim.x, gridDim.x);"));
    free(t24);
    free(h24);
    /* a barrier loop: the guarded load under its guard (the line continuation dropped), the
     * block's declaration before it, the break replayed; the bodies' break leaves all */
    char *w = emu_rewrite(sweep, "sweep", "load_batching", p);
    static const char *const want_sweep[] = {
        "for (int s = 0; s < steps;) {",
        "bool hk_lb_brk = false;",
        "int hk_lb_ld0[8];",
        "if (WITHIN(t, hk_lb_iv + 1, TB - hk_lb_iv - 2) && inside) {",
        "int at = n * hk_lb_iv + x;",
        "hk_lb_ld0[hk_lb_k] = cost[at];",
        "if (hk_lb_iv == last)",
        "nxt[t] = lo + hk_lb_ld0[hk_lb_k];",
        "hk_lb_brk = true;",
        "if (hk_lb_brk)",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want_sweep); i++)
        if (!strstr(w, want_sweep[i]))
            fail_msg("no `%s` in\n%s", want_sweep[i], w);
    /* the neighbours' reads of shared memory stay in the body only */
    assert_null(strstr(w, "int lo = LEAST(cur[t - 1], LEAST(cur[t], cur[t + 1]));\n                        int at"));
    assert_int_equal((int)(strstr(w, "\\") != NULL), 0);
    /* barrier_load_batching (the memory-bound skill's entry) writes the same text */
    char *wb = emu_rewrite(sweep, "sweep", "barrier_load_batching", p);
    assert_string_equal(w, wb);
    free(wb);
    free(w);
    /* session 52: value calls of the file in the prefix, the load and the store's index;
     * the preload calls them on its own copy of the counter, the bodies on the counter */
    const int p4[RW_MAX_PARAMS] = {4, 0, 0};
    char *ft = emu_rewrite(flat, "flat", "load_batching", p4);
    static const char *const want_flat[] = {
        "for (int i = 0; i < (rows + 2);) {",
        "int g = gidx_of(hk_lb_iv - 1, col, w);",
        "hk_lb_s_g[hk_lb_k] = g;",
        "hk_lb_ld0[hk_lb_k] = data[g];",
        "hk_lb_ld1[hk_lb_k] = data[flat_idx(hk_lb_iv - 1, col, w) + 1];",
        "acc = acc * 0.5f + hk_lb_ld0[hk_lb_k] + hk_lb_ld1[hk_lb_k];",
        "out[flat_idx(i - 1, col, w)] = acc;",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want_flat); i++)
        if (!strstr(ft, want_flat[i]))
            fail_msg("no `%s` in\n%s", want_flat[i], ft);
    rwf_nvcc_compiles(ft, "batch_flat_k4");
    free(ft);
    /* a second application finds its own slots */
    fixture fx;
    load_text(t, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "hist")};
    rw_refusal why;
    assert_int_equal(rw_applies(rw_find("load_batching"), &ctx, NULL, &why), HK_OK);
    assert_non_null(strstr(why.reason, "batched loads of this rewrite already"));
    unload(&fx);
    free(t);
}

static const char refused[] =
    "__global__ void barrier(const float *x, float *y, int n)\n"
    "{\n"
    "    __shared__ float s[64];\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        s[threadIdx.x] = x[i];\n"
    "        __syncwarp();\n"
    "        y[i] = s[63 - threadIdx.x];\n"
    "    }\n"
    "}\n"
    "__global__ void brk(const float *x, float *y, int n)\n"
    "{\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        float v = x[i];\n"
    "        if (v < 0)\n"
    "            break;\n"
    "        y[i] = v;\n"
    "    }\n"
    "}\n"
    "__global__ void ret(const float *x, float *y, int n)\n"
    "{\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        float v = x[i];\n"
    "        if (v < 0)\n"
    "            return;\n"
    "        y[i] = v;\n"
    "    }\n"
    "}\n"
    "__global__ void counter(const float *x, float *y, int n)\n"
    "{\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        float v = x[i];\n"
    "        y[i] = v;\n"
    "        i += (v > 0);\n"
    "    }\n"
    "}\n"
    "__global__ void written(float *x, int n)\n"
    "{\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        float v = x[i];\n"
    "        x[i] = v * 2.0f;\n"
    "    }\n"
    "}\n"
    "__global__ void chained(const float *x, float *y, int n)\n"
    "{\n"
    "    int k = 0;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        float v = x[k];\n"
    "        k = (int)v % n;\n"
    "        y[i] = v;\n"
    "    }\n"
    "}\n"
    "__global__ void idx_written(int *idx, const float *t, float *y, int n)\n"
    "{\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        float v = t[idx[i]];\n"
    "        y[i] = v;\n"
    "    }\n"
    "    idx[0] = 0;\n"
    "}\n"
    "__global__ void aliased(const float *x, float *y, int n)\n"
    "{\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        float v = x[i + 1];\n"
    "        y[i] = v;\n"
    "    }\n"
    "}\n"
    "void launch(float *buf, int n) { aliased<<<1, 64>>>(buf, buf, n); }\n"
    "__device__ void bump(int &c) { c++; }\n"
    "__global__ void byref(const float *x, float *y, int n)\n"
    "{\n"
    "    int c = 0;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        float v = x[i + c];\n"
    "        bump(c);\n"
    "        y[i] = v;\n"
    "    }\n"
    "}\n"
    "#define STEP(p) ((p)[0])\n"
    "__global__ void mstep(const float *x, float *y, unsigned *st, unsigned n)\n"
    "{\n"
    "    for (unsigned i = threadIdx.x; i < n; i += STEP(st)) {\n"
    "        float v = x[i];\n"
    "        st[0] += 1;\n"
    "        y[i] = v;\n"
    "    }\n"
    "}\n"
    "__global__ void dbrk(const float *x, float *y, int n)\n"
    "{\n"
    "    __shared__ float s[64];\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        if (s[threadIdx.x] > 0.0f)\n"
    "            break;\n"
    "        y[i] = x[i];\n"
    "    }\n"
    "}\n"
    "__global__ void blockbrk(const float *x, float *y, int n)\n"
    "{\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        y[i] = x[i];\n"
    "        if (i > 40) {\n"
    "            y[i] = 0.0f;\n"
    "            break;\n"
    "        }\n"
    "    }\n"
    "}\n"
    "__global__ void elsel(const float *x, float *y, int n, int m)\n"
    "{\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        if (i < m) {\n"
    "            y[i] = x[i];\n"
    "        } else {\n"
    "            y[i] = 0.0f;\n"
    "        }\n"
    "    }\n"
    "}\n"
    "__global__ void ifmem(const float *x, float *y, int n)\n"
    "{\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        if (y[i] > 0.0f) {\n"
    "            y[i] = x[i];\n"
    "        }\n"
    "    }\n"
    "}\n";

static void refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"barrier", "barrier", 6, "`__syncwarp` in the loop: only a block barrier"},
        {"brk", "early exit", 15, "`break` under a condition the preload cannot replay"},
        {"ret", "early exit", 24, "`return` in the loop"},
        {"counter", "loop", 33, "the body changes its counter `i`"},
        {"written", "memory", 39, "reads memory the kernel may write"},
        {"chained", "write", 47, "`k` is written in the loop"},
        {"idx_written", "memory", 55, "reads memory the kernel may write"},
        {"aliased", "store", 62, "passes `buf` as both y and x"},
        {"byref", "write", 73, "`c` is written in the loop"},
        {"mstep", "stride", 81, "`i += STEP(st)` reads memory or calls a function"},
        {"dbrk", "early exit", 92, "`break` under a condition the preload cannot replay"},
        {"blockbrk", "early exit", 102, "other than as `if (c) break;`"},
        {"elsel", "loop", 108, "loads nothing from a buffer the kernel never writes"},
        {"ifmem", "memory", 119, "reads memory the kernel may write (so no load"},
    };
    rwf_expect_refusals(refused, "load_batching", cases, HK_ARRAY_LEN(cases));
    /* barrier_load_batching takes only a loop with a block barrier: not recur's, nor a loop
     * with a __syncwarp */
    static const rwf_refusal bcases[] = {
        {"recur", "barrier", 4, "no `__syncthreads` in the loop"},
    };
    rwf_expect_refusals(recur, "barrier_load_batching", bcases, HK_ARRAY_LEN(bcases));
    static const rwf_refusal wcases[] = {
        {"barrier", "barrier", 6, "`__syncwarp` in the loop"},
    };
    rwf_expect_refusals(refused, "barrier_load_batching", wcases, HK_ARRAY_LEN(wcases));
    /* issue 13: a pointer moved inside the loop is no read-only buffer of that loop (the
     * preload would read later trips through this trip's pointer) */
    static const char walk[] =
        "__global__ void walk(const float *x, float *y, int n)\n"
        "{\n"
        "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
        "        float v = x[0];\n"
        "        x += blockDim.x;\n"
        "        y[i] = v;\n"
        "    }\n"
        "}\n"
        "__global__ void walk2(const float *x, float *y, int n)\n"
        "{\n"
        "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
        "        y[i] = x[0] * 2.0f;\n"
        "        x += blockDim.x;\n"
        "    }\n"
        "}\n"
        /* review s51 rev3: an element passed whole to a call that takes a reference is
         * written; refw (x moved, so counted read-only since 623e3b9c) was batched to
         * `inc(hk_lb_ld0[hk_lb_k], 1.0f)`, its stores lost; refw2 preloaded x[i] before
         * inc stored it */
        "__device__ void inc(float &v, float a) { v += a; }\n"
        "__global__ void refw(float *x, float *y, int n)\n"
        "{\n"
        "    x += blockIdx.x * n;\n"
        "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
        "        inc(x[i], 1.0f);\n"
        "        y[i] = 2.0f;\n"
        "    }\n"
        "}\n"
        "__global__ void refw2(float *x, float *y, int n)\n"
        "{\n"
        "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
        "        inc((x[i]), 2.0f);\n"
        "        y[i] = x[i];\n"
        "    }\n"
        "}\n";
    static const rwf_refusal mcases[] = {
        {"walk", "write", 4, "`x` is written in the loop"},
        {"walk2", "loop", 11, "loads nothing from a buffer the kernel never writes"},
        {"refw", "loop", 20, "loads nothing from a buffer the kernel never writes"},
        {"refw2", "loop", 27, "loads nothing from a buffer the kernel never writes"},
    };
    rwf_expect_refusals(walk, "load_batching", mcases, HK_ARRAY_LEN(mcases));
    /* session 52: a function of the file is a value call (rwl_value_call) only if its result
     * is a function of its by-value arguments alone; these near misses stay calls that may
     * write memory or read what the loop writes: a __device__ array read (lut), a global
     * scalar read (shift), one spelled through an object-like macro (shm), a reference
     * parameter (take), a pointer parameter (rd), a value function calling lut (vianest),
     * a dereference (deref), a global read after a nested block's local of its name (hidden) */
    static const char vcalls[] =
        "__device__ int tab[64];\n"
        "__device__ int lut(int i) { return tab[i & 63]; }\n"
        "__global__ void vlut(const float *x, float *y, int n)\n"
        "{\n"
        "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
        "        float v = x[lut(i)];\n"
        "        tab[i & 63] = i;\n"
        "        y[i] = v;\n"
        "    }\n"
        "}\n"
        "__device__ int offs;\n"
        "__device__ int shift(int i) { return i + offs; }\n"
        "__global__ void vglob(const float *x, float *y, int n)\n"
        "{\n"
        "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
        "        float v = x[shift(i)];\n"
        "        offs = i;\n"
        "        y[i] = v;\n"
        "    }\n"
        "}\n"
        "#define OFF offs\n"
        "__device__ int shm(int i) { return i + OFF; }\n"
        "__global__ void vmacro(const float *x, float *y, int n)\n"
        "{\n"
        "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
        "        float v = x[shm(i)];\n"
        "        offs = i;\n"
        "        y[i] = v;\n"
        "    }\n"
        "}\n"
        "__device__ int take(int &c, int i) { c++; return c + i; }\n"
        "__global__ void vref(const float *x, float *y, int n)\n"
        "{\n"
        "    int c = 0;\n"
        "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
        "        int j = take(c, i);\n"
        "        y[i] = x[j];\n"
        "    }\n"
        "}\n"
        "__device__ int rd(const int *p, int i) { return p[i]; }\n"
        "__global__ void vptr(const float *x, float *y, int *k, int n)\n"
        "{\n"
        "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
        "        float v = x[rd(k, i)];\n"
        "        k[i] = 0;\n"
        "        y[i] = v;\n"
        "    }\n"
        "}\n"
        "__device__ int vianest(int i) { return lut(i) + 1; }\n"
        "__global__ void vnest(const float *x, float *y, int n)\n"
        "{\n"
        "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
        "        float v = x[vianest(i)];\n"
        "        tab[i & 63] = i;\n"
        "        y[i] = v;\n"
        "    }\n"
        "}\n"
        "__device__ int deref(int i) { int a[2] = {i, i}; return *a; }\n"
        "__global__ void vderef(const float *x, float *y, int n)\n"
        "{\n"
        "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
        "        float v = x[deref(i)];\n"
        "        y[i] = v;\n"
        "    }\n"
        "}\n"
        /* a nested block's local hides the global it reads after the block (the first
         * version took `gsc` for a local: found by this case, not by a GPU) */
        "__device__ int gsc;\n"
        "__device__ int hidden(int i) { if (i > 0) { int gsc = i; i += gsc; } return i + gsc; }\n"
        "__global__ void vhide(const float *x, float *y, int n)\n"
        "{\n"
        "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
        "        float v = x[hidden(i)];\n"
        "        gsc = i;\n"
        "        y[i] = v;\n"
        "    }\n"
        "}\n";
    static const rwf_refusal vcases[] = {
        {"vlut", "call", 6, "`lut(...)` may write memory"},
        {"vglob", "call", 16, "`shift(...)` may write memory"},
        {"vmacro", "call", 26, "`shm(...)` may write memory"},
        {"vref", "call", 36, "`take(...)` may write memory"},
        {"vptr", "call", 44, "`rd(...)` may write memory"},
        {"vnest", "call", 53, "`vianest(...)` may write memory"},
        {"vderef", "call", 62, "`deref(...)` may write memory"},
        {"vhide", "call", 71, "`hidden(...)` may write memory"},
    };
    rwf_expect_refusals(vcalls, "load_batching", vcases, HK_ARRAY_LEN(vcases));
}

/* The wild suite's two kernels the rewrite was made for, rewritten at K = 4 and 8, compile
 * for sm_90 (skipped when bench/wild/src is not extracted). */
static void wild_kernels_compile(void **state)
{
    (void)state;
    static const struct {
        const char *id, *kernel, *inst;
    } ks[] = {
        {"cs_histogram256", "histogram256Kernel", NULL},
        {"mmcv_tin_shift_fwd", "tin_shift_forward_cuda_kernel", NULL},
        {"rodinia_pathfinder", "dynproc_kernel", NULL},
        {"cs_conv_rows", "convolutionRowsKernel", NULL},   /* issue 13: d_Src moved in place */
        {"cs_conv_cols", "convolutionColumnsKernel", NULL},
        /* session 52: ToFlatIdx, a value call; instantiated as the spec's float */
        {"shoc_stencil2d", "StencilKernel",
         "\ntemplate __global__ void StencilKernel<float>(float *, float *, int, int, float, float, float);\n"},
        /* session 52: Loc2Index, a value call, in the taps' inner loop (after its `continue`) */
        {"mmcv_carafe_naive_fwd", "carafe_naive_forward_cuda_kernel",
         "\ntemplate __global__ void carafe_naive_forward_cuda_kernel<float>(const int, const float *, const float *, "
         "float *, const int, const int, const int, const int, const int, const int);\n"},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(ks); i++) {
        fixture fx;
        if (!rwf_load_wild(ks[i].id, &fx))
            continue;
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, ks[i].kernel)};
        for (int K = 4; K <= 8; K += 4) {
            const int p[RW_MAX_PARAMS] = {K, 0, 0};
            rw_result r;
            assert_int_equal(rw_apply_named("load_batching", &ctx, p, &r, NULL), HK_OK);
            if (!r.applicable)
                fail_msg("%s: %s", ks[i].id, r.description);
            assert_non_null(strstr(r.text, "hk: load_batching"));
            char name[160];
            snprintf(name, sizeof name, "%s_k%d", ks[i].id, K);
            rwf_nvcc_compiles_with(&r, ks[i].inst ? ks[i].inst : "", "batch", name);
            rw_result_free(&r);
        }
        unload(&fx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emitted_text),
        cmocka_unit_test(refusals),
        cmocka_unit_test(emulated_runs),
        cmocka_unit_test(wild_kernels_compile),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
