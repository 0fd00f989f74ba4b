/* The algorithm rewrites run, not only compiled (issue 13, "measure, don't trust"): each
 * kernel of the rewrite tests and its rewrite (through the registry's driver) run on the
 * CPU in the block emulator (emu_block.h) on the same inputs -- ragged sizes, several
 * blocks, three thread orders, the rewrite also on another block and a smaller grid -- and
 * every output must match: exactly for integers, within a relative tolerance for float
 * sums whose order changed. Broken rewrites (a barrier dropped, a tail cut short, a thread
 * leaving before a barrier) must fail, so the check cannot pass vacuously. */
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

#include "rw_fixture.h"
#include "emu_block.h"
#include "emu_batch.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-emu");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* C++ the drivers share (before main): one launch shape per kind of kernel, run on the
 * original and on the rewrite with the same inputs. The rewrite runs with the original's
 * launch (schedule FORWARD), on blocks of 80 (a partial warp; REVERSE) and on a grid of 3
 * blocks (SHUFFLED): its kernels accept any launch that covers the data, and the search
 * launches them on the skill's SM-multiple grid (search.c: "its body works with any block
 * and grid"; the model paths of warp_reduce and privatized_histogram kept a one-element-
 * per-thread body as it was and dropped elements on a smaller grid until rwp_over_any_grid:
 * bincount, bc, hist_p, max_k and dot here showed it). */
static const char helpers[] =
    "#define BOTH(...) [&](auto a, auto b, auto r, long n) { orig::__VA_ARGS__; }, \\\n"
    "                  [&](auto a, auto b, auto r, long n) { cand::__VA_ARGS__; }\n"
    "static dim3 cand_grid(int s, dim3 g) { return s == 2 ? dim3(3, g.y > 2 ? 2 : g.y) : g; }\n"
    "static dim3 cand_block(int s, dim3 b) { return s == 1 ? dim3(80, 1) : b; }\n"
    /* a reduction of n elements (inputs a, b) into r[0] */
    "template <class In, class Out, class F, class G>\n"
    "static void reduce_case(const char *what, F ko, G kc, Out init, double rtol)\n"
    "{\n"
    "    for (long n : {1L, 37L, 256L, 1000L, 2049L})\n"
    "        for (int s = 0; s < 3; s++) {\n"
    "            emu::schedule = s;\n"
    "            emu::buf<In> a(n), b(n);\n"
    "            a.fill((int)n + s);\n"
    "            b.fill((int)n + 7);\n"
    "            emu::buf<Out> ro(1), rc(1);\n"
    "            ro.set(init);\n"
    "            rc.set(init);\n"
    "            dim3 g((unsigned)((n + 255) / 256)), blk(256);\n"
    "            emu::launch(g, blk, 0, [&] { ko(a.ptr(), b.ptr(), ro.ptr(), n); });\n"
    "            emu::launch(cand_grid(s, g), cand_block(s, blk), 0, [&] { kc(a.ptr(), b.ptr(), rc.ptr(), n); });\n"
    "            if (!emu::expect(what, ro, rc, rtol, 100.0 * n))\n"
    "                printf(\"  (n=%ld schedule %d)\\n\", n, s);\n"
    "        }\n"
    "}\n"
    /* a histogram of n keys in [0, range) (weights w) into nbins bins */
    "template <class Key, class Bin, class F, class G>\n"
    "static void hist_case(const char *what, F ko, G kc, int nbins, long range, double rtol)\n"
    "{\n"
    "    for (long n : {1L, 300L, 1000L, 4099L})\n"
    "        for (int s = 0; s < 3; s++) {\n"
    "            emu::schedule = s;\n"
    "            emu::buf<Key> key(n);\n"
    "            key.fill_mod((int)n + s, range);\n"
    "            emu::buf<float> w(n);\n"
    "            w.fill(s);\n"
    "            emu::buf<Bin> ho(nbins), hc(nbins);\n"
    "            ho.fill_mod(3, 5);\n"
    "            hc.fill_mod(3, 5);\n"
    "            dim3 g((unsigned)((n + 255) / 256)), blk(256);\n"
    "            emu::launch(g, blk, 0, [&] { ko(key.ptr(), w.ptr(), ho.ptr(), n); });\n"
    "            emu::launch(cand_grid(s, g), cand_block(s, blk), 0, [&] { kc(key.ptr(), w.ptr(), hc.ptr(), n); });\n"
    "            if (!emu::expect(what, ho, hc, rtol, 10.0 * n))\n"
    "                printf(\"  (n=%ld schedule %d)\\n\", n, s);\n"
    "        }\n"
    "}\n"
    /* a W x H transpose (in W wide, out H wide); the original on blocks ob, a grid that
     * covers W x H (whole tiles of 32 when whole32: the original has no guard) */
    "template <class T, class F, class G>\n"
    "static void transpose_case(const char *what, F ko, G kc, dim3 ob, bool whole32)\n"
    "{\n"
    "    static const int sizes[][2] = {{32, 32}, {64, 96}, {33, 17}, {70, 45}, {1, 40}};\n"
    "    for (int z = 0; z < (whole32 ? 2 : 5); z++)\n"
    "        for (int s = 0; s < 3; s++) {\n"
    "            emu::schedule = s;\n"
    "            const int W = sizes[z][0], H = sizes[z][1];\n"
    "            emu::buf<T> in((size_t)W * H), oo((size_t)W * H), oc((size_t)W * H);\n"
    "            in.fill(W + s);\n"
    "            oo.fill(99);\n"
    "            oc.fill(99);\n"
    "            unsigned sx = whole32 ? 32 : ob.x, sy = whole32 ? 32 : ob.y;\n"
    "            dim3 g((W + sx - 1) / sx, (H + sy - 1) / sy);\n"
    "            emu::launch(g, ob, 0, [&] { ko(in.ptr(), oo.ptr(), (T *)0, (long)W * 65536 + H); });\n"
    "            dim3 cb = s == 1 ? dim3(32, 8) : ob;\n"
    "            emu::launch(cand_grid(s, g), cb, 0, [&] { kc(in.ptr(), oc.ptr(), (T *)0, (long)W * 65536 + H); });\n"
    "            if (!emu::expect(what, oo, oc))\n"
    "                printf(\"  (%d x %d schedule %d)\\n\", W, H, s);\n"
    "        }\n"
    "}\n"
    "#define W_H int(n >> 16), int(n & 65535)\n"
    /* the same W x H transpose by a kernel whose threads each walk one coordinate by a loop
     * (a 1-D grid over the other, H threads, or W when threads_over_w); ragged sizes, a
     * coordinate shorter than a tile and one of a kmeans-like feature count */
    "template <class T, class F, class G>\n"
    "static void transpose_loop_case(const char *what, F ko, G kc, bool threads_over_w)\n"
    "{\n"
    "    static const int sizes[][2] = {{32, 32}, {64, 96}, {33, 17}, {70, 45}, {1, 40}, {34, 300}};\n"
    "    for (int z = 0; z < 6; z++)\n"
    "        for (int s = 0; s < 3; s++) {\n"
    "            emu::schedule = s;\n"
    "            const int W = sizes[z][0], H = sizes[z][1];\n"
    "            emu::buf<T> in((size_t)W * H), oo((size_t)W * H), oc((size_t)W * H);\n"
    "            in.fill(W + s);\n"
    "            oo.fill(99);\n"
    "            oc.fill(99);\n"
    "            const int threads = threads_over_w ? W : H;\n"
    "            dim3 g((threads + 127) / 128), ob(128);\n"
    "            emu::launch(g, ob, 0, [&] { ko(in.ptr(), oo.ptr(), (T *)0, (long)W * 65536 + H); });\n"
    "            dim3 cb = s == 1 ? dim3(32, 8) : ob;\n"
    "            emu::launch(cand_grid(s, g), cb, 0, [&] { kc(in.ptr(), oc.ptr(), (T *)0, (long)W * 65536 + H); });\n"
    "            if (!emu::expect(what, oo, oc))\n"
    "                printf(\"  (%d x %d schedule %d)\\n\", W, H, s);\n"
    "        }\n"
    "}\n";

/* Runs driver on src and cand (with this file's helpers); the emulation must give want. */
/* The running test's emulated programs (emu_batch.h): queued by emulate(), built together
 * and checked, each on its own, by emu_batch_run at the test's end. */
static emu_batch batch;
#define emulate(tag, src, cand, driver, want) emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, want)

/* ------------------------------------------------------------------ reductions */

/* The kernels of tests/data/rewrite_pattern/reduce_variants.cu through warp_reduce (the
 * textual path) and block_reduce. */
static void reduce_variants_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *src = rwf_data_file("rewrite_pattern/reduce_variants.cu");
    static const struct {
        const char *kernel, *rewrite, *driver;
    } cases[] = {
        {"sum_squares", "warp_reduce",
         "reduce_case<float, float>(\"sum_squares\", BOTH(sum_squares(a, r, n)), 0.5f, 1e-4);"},
        {"max_int", "warp_reduce",
         "reduce_case<int, int>(\"max_int\", BOTH(max_int(a, r, (int)n)), -1000000, 0);"},
        {"min_u", "block_reduce",
         "reduce_case<unsigned, unsigned>(\"min_u\", BOTH(min_u(a, r, (int)n)), 4000000000u, 0);"},
        {"count_positive", "warp_reduce",
         "reduce_case<float, unsigned long long>(\"count_positive\", BOTH(count_positive(a, r, (int)n)), 3ull, 0);"},
        {"ddot", "warp_reduce",
         "reduce_case<double, double>(\"ddot\", BOTH(ddot(a, b, r, (int)n)), 0.0, 1e-12);"},
        {"tree_sum", "warp_reduce",
         "reduce_case<float, float>(\"tree_sum\", BOTH(tree_sum(a, r, (int)n)), 0.0f, 1e-4);"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(src, cases[i].kernel, cases[i].rewrite, NULL);
        emulate(cases[i].kernel, src, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    free(src);
    emu_batch_run(&batch);
}

/* the kernels of test_rewrites_reduce_model.c: warp_reduce's model path */
static const char sum_gs[] =
    "__global__ void sum_gs(const float *in, float *out, size_t n)\n"
    "{\n"
    "    const float scale = 1.0f;\n"
    "    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)\n"
    "        atomicAdd(out, in[i] * in[i]);\n"
    "}\n";
static const char sum_w[] =
    "__global__ void sum_w(const double *in, double *out, unsigned int n)\n"
    "{\n"
    "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    double v = 0.0;\n"
    "    while (i < n) {\n"
    "        v = in[i];\n"
    "        if (v > 0.0) atomicAdd(&out[0], v);\n"
    "        i += blockDim.x * gridDim.x;\n"
    "    }\n"
    "}\n";
static const char sum_t[] =
    "template <typename T>\n"
    "__global__ void sum_t(const T *x, T *total, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        atomicAdd(total, x[i]);\n"
    "    }\n"
    "}\n"
    "template __global__ void sum_t<float>(const float *, float *, int);\n";
static const char loss_k[] =
    "#define CUDA_1D_KERNEL_LOOP(i, n) \\\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "__global__ void loss_k(const float *pred, const float *tgt, float *loss, int n)\n"
    "{\n"
    "    CUDA_1D_KERNEL_LOOP(index, n) {\n"
    "        const float d = pred[index] - tgt[index];\n"
    "        atomicAdd(loss + 0, d * d);\n"
    "    }\n"
    "}\n";
static const char max_k[] =
    "__global__ void max_k(const int *v, int *best, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    const int x = v[i] < 0 ? -v[i] : v[i];\n"
    "    atomicMax(best, x);\n"
    "}\n";
static const char dot[] =
    "__global__ void dot(const float *__restrict__ a, const float *__restrict__ b,\n"
    "                    float *__restrict__ r, long n)\n"
    "{\n"
    "    const long tid = (long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (tid < n) {\n"
    "        float v = a[tid] * b[tid];\n"
    "        if (v != 0.0f)\n"
    "            atomicAdd(r, v);\n"
    "    }\n"
    "}\n";
static const char mn[] =
    "__global__ void mn(const unsigned int *a, unsigned int *m, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    do {\n"
    "        atomicMin(&m[0], a[i]);\n"
    "        i += blockDim.x * gridDim.x;\n"
    "    } while (i < n);\n"
    "}\n";

/* session 48: statistics the model names by what is summed (sumsq, mean): the atomic's sum */
static const char sqdev[] =
    "__global__ void sqdev(const float *x, const float *mean, float *sqsum, int n)\n"
    "{\n"
    "    float mu = mean[0];\n"
    "    float acc = 0.0f;\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        float d = x[i] - mu;\n"
    "        acc = fmaf(d, d, acc);\n"
    "    }\n"
    "    atomicAdd(sqsum, acc);\n"
    "}\n";
static const char avg_k[] =
    "__global__ void avg_k(const double *v, double *avg, unsigned n)\n"
    "{\n"
    "    double s = 0;\n"
    "    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        s += v[i];\n"
    "    atomicAdd(&avg[0], s / n);\n"
    "}\n";

static void reduce_model_path_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const struct {
        const char *src, *kernel, *driver;
    } cases[] = {
        {sum_gs, "sum_gs", "reduce_case<float, float>(\"sum_gs\", BOTH(sum_gs(a, r, (size_t)n)), 0.0f, 1e-4);"},
        {sum_w, "sum_w", "reduce_case<double, double>(\"sum_w\", BOTH(sum_w(a, r, (unsigned)n)), 1.0, 1e-12);"},
        {sum_t, "sum_t", "reduce_case<float, float>(\"sum_t\", BOTH(sum_t<float>(a, r, (int)n)), 0.0f, 1e-4);"},
        {loss_k, "loss_k", "reduce_case<float, float>(\"loss_k\", BOTH(loss_k(a, b, r, (int)n)), 0.0f, 1e-4);"},
        {max_k, "max_k", "reduce_case<int, int>(\"max_k\", BOTH(max_k(a, r, (int)n)), 0, 0);"},
        {dot, "dot", "reduce_case<float, float>(\"dot\", BOTH(dot(a, b, r, n)), 0.0f, 1e-4);"},
        {mn, "mn", "reduce_case<unsigned, unsigned>(\"mn\", BOTH(mn(a, r, (int)n)), 4000000000u, 0);"},
        {sqdev, "sqdev", "reduce_case<float, float>(\"sqdev\", BOTH(sqdev(a, b, r, (int)n)), 0.0f, 1e-4);"},
        {avg_k, "avg_k", "reduce_case<double, double>(\"avg_k\", BOTH(avg_k(a, r, (unsigned)n)), 0.0, 1e-12);"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(cases[i].src, cases[i].kernel, "warp_reduce", NULL);
        emulate(cases[i].kernel, cases[i].src, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* The check can fail: a shuffle one lane short, and a thread that leaves before the
 * block's barrier, are caught. */
static void broken_reductions_fail(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(sum_gs, "sum_gs", "warp_reduce", NULL);
    char *off = emu_replaced(cand, "hk_off > 0; hk_off >>= 1", "hk_off > 1; hk_off >>= 1");
    emulate("broken_shuffle", sum_gs, off, "reduce_case<float, float>(\"sum_gs\", BOTH(sum_gs(a, r, (size_t)n)), 0.0f, 1e-4);",
            EMU_DIFFERS);
    free(off);
    char *sync = strstr(cand, "__syncthreads();");
    assert_non_null(sync);
    char *exits = emu_replaced(cand, "__syncthreads();", "if (threadIdx.x == 5) return; __syncthreads();");
    emulate("exit_before_barrier", sum_gs, exits,
            "reduce_case<float, float>(\"sum_gs\", BOTH(sum_gs(a, r, (size_t)n)), 0.0f, 1e-4);", EMU_DIVERGENT);
    free(exits);
    free(cand);
    emu_batch_run(&batch);
}

/* ------------------------------------------------------------------ histograms */

static void histograms_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *src = rwf_data_file("rewrite_pattern/hist_variants.cu");
    char *cand = emu_rewrite(src, "weighted_hist", "privatized_histogram", NULL);
    emulate("weighted_hist", src, cand,
            "hist_case<int, float>(\"weighted_hist\", BOTH(weighted_hist(a, b, r, (int)n)), 64, 1000, 1e-4);",
            EMU_OK);
    free(cand);
    cand = emu_rewrite(src, "hist_runtime", "privatized_histogram", NULL);
    emulate("hist_runtime", src, cand,
            "hist_case<unsigned, unsigned>(\"hist_runtime\", BOTH(hist_runtime(a, r, 300, (int)n)), 300, 100000, 0);\n"
            "hist_case<unsigned, unsigned>(\"hist_runtime\", BOTH(hist_runtime(a, r, 7, (int)n)), 7, 100000, 0);",
            EMU_OK);
    free(cand);
    free(src);
    emu_batch_run(&batch);
}

/* the kernels of test_rewrites_privhist.c: the model path */
static const char bincount[] =
    "template <typename T, int NBINS>\n"
    "__global__ void bincount(const int *in, T *bins, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        atomicAdd(&bins[in[i] % NBINS], (T)1);\n"
    "}\n"
    "template __global__ void bincount<unsigned int, 64>(const int *, unsigned int *, int);\n";
static const char bc[] =
    "#define NB 128\n"
    "template <typename T>\n"
    "__global__ void bc(const T *data, unsigned int *hist, size_t n)\n"
    "{\n"
    "    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        unsigned int bin = (unsigned int)data[i] % NB;\n"
    "        atomicAdd(hist + bin, 1u);\n"
    "    }\n"
    "}\n"
    "template __global__ void bc<int>(const int *, unsigned int *, size_t);\n";
static const char hist_p[] =
    "__global__ void hist_p(const int *in, int *bins, int n, int nbins)\n"
    "{\n"
    "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    const int v = in[i];\n"
    "    const int b = v % nbins;\n"
    "    atomicAdd(&bins[b], 1);\n"
    "}\n";
/* the bin range only in a guard on the bin (a bincount over a parameter range) */
static const char hist_guard[] =
    "template <typename T>\n"
    "__global__ void hist_guard(const T *in, unsigned int *bins, int n, int nbins)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        T v = in[i];\n"
    "        if (v >= 0 && v < nbins)\n"
    "            atomicAdd(&bins[(int)v], 1u);\n"
    "    }\n"
    "}\n"
    "template __global__ void hist_guard<int>(const int *, unsigned int *, int, int);\n";
static const char hist_w[] =
    "__global__ void hist_w(const int *in, const float *w, float *bins, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        atomicAdd(&bins[in[i] % 64], w[i]);\n"
    "}\n";

/* session 48: a byte histogram (its 256 bins the byte's range) on a grid-stride loop */
static const char hist_bytes[] =
    "__global__ void hist_bytes(const unsigned char *data, unsigned int *bins, size_t len)\n"
    "{\n"
    "    size_t stride = (size_t)blockDim.x * gridDim.x;\n"
    "    for (size_t pos = blockIdx.x * (size_t)blockDim.x + threadIdx.x; pos < len; pos += stride) {\n"
    "        unsigned int b = data[pos];\n"
    "        atomicAdd(bins + b, 1u);\n"
    "    }\n"
    "}\n";

/* session 48: a float histogram clamped into its nbins bins (a parameter) */
static const char hist_clamp[] =
    "__global__ void hist_clamp(const float *x, int *hist, int n, int nbins, float lo, float hi)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int b = (int)((x[i] - lo) / (hi - lo) * nbins);\n"
    "        b = min(max(b, 0), nbins - 1);\n"
    "        atomicAdd(&hist[b], 1);\n"
    "    }\n"
    "}\n";

static void histogram_model_path_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const struct {
        const char *src, *kernel, *driver;
    } cases[] = {
        {bincount, "bincount",
         "hist_case<int, unsigned>(\"bincount\", BOTH(bincount<unsigned, 64>(a, r, (int)n)), 64, 5000, 0);"},
        {bc, "bc", "hist_case<int, unsigned>(\"bc\", BOTH(bc<int>(a, r, (size_t)n)), 128, 100000, 0);"},
        {hist_p, "hist_p",
         "hist_case<int, int>(\"hist_p\", BOTH(hist_p(a, r, (int)n, 100)), 100, 100000, 0);\n"
         "hist_case<int, int>(\"hist_p\", BOTH(hist_p(a, r, (int)n, 3000)), 3000, 100000, 0);"},
        {hist_w, "hist_w", "hist_case<int, float>(\"hist_w\", BOTH(hist_w(a, b, r, (int)n)), 64, 1000, 1e-4);"},
        {hist_bytes, "hist_bytes",
         "hist_case<unsigned char, unsigned>(\"hist_bytes\", BOTH(hist_bytes(a, r, (size_t)n)), 256, 256, 0);"},
        /* keys 0..1199 over [100, 1100): bins below 0 and past 99 clamped */
        {hist_clamp, "hist_clamp",
         "hist_case<float, int>(\"hist_clamp\", BOTH(hist_clamp(a, r, (int)n, 100, 100.0f, 1100.0f)), 100, 1200, 0);\n"
         "hist_case<float, int>(\"hist_clamp\", BOTH(hist_clamp(a, r, (int)n, 3000, 100.0f, 1100.0f)), 3000, 1200, 0);"},
        /* keys beyond the range are skipped by the guard; 3000 bins: beyond the shared cap */
        {hist_guard, "hist_guard",
         "hist_case<int, unsigned>(\"hist_guard\", BOTH(hist_guard<int>(a, r, (int)n, 100)), 100, 5000, 0);\n"
         "hist_case<int, unsigned>(\"hist_guard\", BOTH(hist_guard<int>(a, r, (int)n, 3000)), 3000, 5000, 0);"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(cases[i].src, cases[i].kernel, "privatized_histogram", NULL);
        emulate(cases[i].kernel, cases[i].src, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* ------------------------------------------------------------------ transposes */

/* the kernels of test_rewrites_tiles.c: tiled_transpose's model path */
static const char macro_loop[] =
    "#define TILE_W 32\n"
    "#define ROWS 8\n"
    "__global__ void tr(float *odata, float *idata, int width, int height)\n"
    "{\n"
    "    int xIndex = blockIdx.x * TILE_W + threadIdx.x;\n"
    "    int yIndex = blockIdx.y * TILE_W + threadIdx.y;\n"
    "    int index_in = xIndex + width * yIndex;\n"
    "    int index_out = yIndex + height * xIndex;\n"
    "    for (int i = 0; i < TILE_W; i += ROWS)\n"
    "        odata[index_out + i] = idata[index_in + i * width];\n"
    "}\n";
static const char unsigned_temps[] =
    "__global__ void tr(const float *idata, float *odata, unsigned width, unsigned height)\n"
    "{\n"
    "    unsigned c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    unsigned r = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (c < width && r < height) {\n"
    "        const size_t src = (size_t)r * width + c;\n"
    "        const size_t dst = (size_t)c * height + r;\n"
    "        const float v = idata[src];\n"
    "        odata[dst] = v;\n"
    "    }\n"
    "}\n";
static const char templated_early[] =
    "template <typename T>\n"
    "__global__ void tr(T *odata, const T *idata, int width, int height)\n"
    "{\n"
    "    if (blockIdx.x * blockDim.x + threadIdx.x >= width) return;\n"
    "    if (blockIdx.y * blockDim.y + threadIdx.y >= height) return;\n"
    "    odata[(blockIdx.x * blockDim.x + threadIdx.x) * height + blockIdx.y * blockDim.y + threadIdx.y] =\n"
    "        idata[(blockIdx.y * blockDim.y + threadIdx.y) * width + blockIdx.x * blockDim.x + threadIdx.x];\n"
    "}\n"
    "template __global__ void tr<float>(float *, const float *, int, int);\n";

static void transposes_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    int tile[RW_MAX_PARAMS] = {32, 0, 0};
    char *src = rwf_data_file("rewrite_pattern/transpose_variants.cu");
    char *cand = emu_rewrite(src, "t_early", "tiled_transpose", tile);
    emulate("t_early", src, cand,
            "transpose_case<double>(\"t_early\", BOTH(t_early(a, b, W_H)), dim3(16, 16), false);", EMU_OK);
    free(cand);
    cand = emu_rewrite(src, "t_block", "tiled_transpose", tile);
    /* rows x cols in, cols x rows out: W = cols, H = rows */
    emulate("t_block", src, cand,
            "transpose_case<int>(\"t_block\", BOTH(t_block(a, b, int(n & 65535), int(n >> 16))), dim3(32, 4), false);",
            EMU_OK);
    free(cand);
    free(src);
    static const struct {
        const char *tag, *src, *driver;
    } cases[] = {
        {"macro_loop", macro_loop, "transpose_case<float>(\"macro_loop\", BOTH(tr(b, a, W_H)), dim3(32, 8), true);"},
        {"unsigned_temps", unsigned_temps,
         "transpose_case<float>(\"unsigned_temps\", BOTH(tr(a, b, (unsigned)(n >> 16), (unsigned)(n & 65535))), dim3(16, 16), false);"},
        {"templated_early", templated_early,
         "transpose_case<float>(\"templated_early\", BOTH(tr<float>(b, a, W_H)), dim3(32, 32), false);"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cand = emu_rewrite(cases[i].src, "tr", "tiled_transpose", tile);
        emulate(cases[i].tag, cases[i].src, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* A transpose whose threads each walk one coordinate by a loop, on a 1-D grid (Rodinia's
 * kmeans invert_mapping shape, written our own ways): one thread per input row, a thread
 * per column walking the rows (unsigned, early return), a grid-stride loop over rows. */
static const char loop_rows[] =
    "__global__ void tr(float *in, float *out, int W, int H)\n"
    "{\n"
    "    int p = threadIdx.x + blockDim.x * blockIdx.x;\n"
    "    if (p < H) {\n"
    "        for (int f = 0; f < W; f++)\n"
    "            out[p + H * f] = in[p * W + f];\n"
    "    }\n"
    "}\n";
static const char loop_cols[] =
    "__global__ void tr(const double *src, double *dst, unsigned w, unsigned h)\n"
    "{\n"
    "    const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (col >= w) return;\n"
    "    for (unsigned row = 0; row < h; ++row) {\n"
    "        const size_t from = (size_t)row * w + col;\n"
    "        dst[(size_t)col * h + row] = src[from];\n"
    "    }\n"
    "}\n";
static const char loop_grid_stride[] =
    "__global__ void tr(const int *a, int *b, int W, int H)\n"
    "{\n"
    "    for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < H; p += blockDim.x * gridDim.x)\n"
    "        for (int f = 0; f < W; ++f)\n"
    "            b[f * H + p] = a[p * W + f];\n"
    "}\n";

static void transpose_loops_run(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    int tile[RW_MAX_PARAMS] = {32, 0, 0};
    static const struct {
        const char *tag, *src, *driver;
    } cases[] = {
        {"loop_rows", loop_rows, "transpose_loop_case<float>(\"loop_rows\", BOTH(tr(a, b, W_H)), false);"},
        {"loop_cols", loop_cols,
         "transpose_loop_case<double>(\"loop_cols\", BOTH(tr(a, b, (unsigned)(n >> 16), (unsigned)(n & 65535))), true);"},
        {"loop_grid_stride", loop_grid_stride,
         "transpose_loop_case<int>(\"loop_grid_stride\", BOTH(tr(a, b, W_H)), false);"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cand = emu_rewrite(cases[i].src, "tr", "tiled_transpose", tile);
        emulate(cases[i].tag, cases[i].src, cand, cases[i].driver, EMU_OK);
        free(cand);
    }
    /* planted: the edge tiles' write reads the tile untransposed; only the ragged sizes
     * (a partial tile) reach that path, so passing shows they were run */
    char *cand = emu_rewrite(loop_rows, "tr", "tiled_transpose", tile);
    char *broken = emu_replaced(cand, "= hk_tile[hk_tx][hk_ty];", "= hk_tile[hk_ty][hk_tx];");
    emulate("loop_rows_edge_broken", loop_rows, broken, cases[0].driver, EMU_DIFFERS);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

/* The tile's barrier dropped: threads read tile elements other threads have not written. */
static void transpose_without_barrier_fails(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    int tile[RW_MAX_PARAMS] = {32, 0, 0};
    char *cand = emu_rewrite(unsigned_temps, "tr", "tiled_transpose", tile);
    char *broken = emu_replaced(cand, "__syncthreads();", ";");
    emulate("transpose_no_barrier", unsigned_temps, broken,
            "transpose_case<float>(\"unsigned_temps\", BOTH(tr(a, b, (unsigned)(n >> 16), (unsigned)(n & 65535))), dim3(16, 16), false);",
            EMU_DIFFERS);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

/* ------------------------------------------------------------------ GEMM sized by its launch */

/* No bounds check: the grid alone gives M and N (issue 13). The tiled body takes them from
 * the launch too, so under the original's grid it covers exactly the grid's elements: on
 * blocks of 256 (the tiled path, partial tiles at the edges) and of 64 threads on a grid
 * four times larger (the simple path), under each schedule; with one row fewer than the
 * grid's it differs. */
static void gemm_from_grid_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const char src[] =
        "__global__ void gemm_grid(const float *A, const float *B, float *C, int N, int K)\n"
        "{\n"
        "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    float acc = 0.0f;\n"
        "    for (int k = 0; k < K; k++)\n"
        "        acc += A[row * K + k] * B[k * N + col];\n"
        "    C[row * N + col] = acc;\n"
        "}\n";
    static const char driver[] =
        "    static const int shapes[][3] = {{5, 3, 37}, {1, 2, 8}, {8, 4, 70}};   // grid x, grid y, K\n"
        "    for (int z = 0; z < 3; z++)\n"
        "        for (int s = 0; s < 3; s++) {\n"
        "            emu::schedule = s;\n"
        "            const int N = shapes[z][0] * 16, M = shapes[z][1] * 16, K = shapes[z][2];\n"
        "            emu::buf<float> A((size_t)M * K), B((size_t)K * N), co((size_t)M * N + 64), cc((size_t)M * N + 64);\n"
        "            A.fill(z + 1);\n"
        "            B.fill(z + 2);\n"
        "            co.fill(9);\n"
        "            cc.fill(9);\n"
        "            dim3 g(shapes[z][0], shapes[z][1]);\n"
        "            emu::launch(g, dim3(16, 16), 0, [&] { orig::gemm_grid(A, B, co, N, K); });\n"
        "            bool small = s == 1;   // 64 threads a block, the same threads in all\n"
        "            emu::launch(small ? dim3(g.x * 2, g.y * 2) : g, small ? dim3(8, 8) : dim3(16, 16), 0,\n"
        "                        [&] { cand::gemm_grid(A, B, cc, N, K); });\n"
        "            if (!emu::expect(\"gemm_grid\", co, cc, 1e-5, K))\n"
        "                printf(\"  (%d x %d x %d schedule %d)\\n\", M, N, K, s);\n"
        "        }\n";
    char *cand = emu_rewrite(src, "gemm_grid", "tiled_gemm", NULL);
    assert_non_null(strstr(cand, "hk_m = ((long long)gridDim.y * blockDim.y)"));
    emulate("gemm_grid", src, cand, driver, EMU_OK);
    char *bad = emu_replaced(cand, "hk_m = ((long long)gridDim.y * blockDim.y)",
                             "hk_m = ((long long)gridDim.y * blockDim.y - 1)");
    emulate("gemm_grid_bad", src, bad, driver, EMU_DIFFERS);
    free(bad);
    free(cand);
    emu_batch_run(&batch);
}

/* ------------------------------------------------------------------ GEMM with x indexing rows */

/* x indexes C's rows and y its columns, unsigned indices and an alpha/beta epilogue (the
 * naive SGEMM of issue 13's measurement, in our own words): the tiled body reads rows from
 * whichever index A's rows are, so on ragged M x N x K (M, N, K all different), blocks of
 * 256 threads (the tiled path) and of 64 (the simple path) under each schedule it computes
 * the original's C; with its last row (x = M - 1) left out it differs. */
static void gemm_x_rows_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const char src[] =
        "__global__ void gemm_xrows(unsigned M, unsigned N, unsigned K, float alpha, const float *A,\n"
        "                           const float *B, float beta, float *C)\n"
        "{\n"
        "    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    if (x < M && y < N) {\n"
        "        float tmp = 0.0f;\n"
        "        for (unsigned i = 0; i < K; ++i)\n"
        "            tmp += A[x * K + i] * B[i * N + y];\n"
        "        C[x * N + y] = alpha * tmp + beta * C[x * N + y];\n"
        "    }\n"
        "}\n";
    static const char driver[] =
        "    static const unsigned shapes[][3] = {{37, 21, 19}, {70, 66, 9}, {5, 130, 33}};   // M, N, K\n"
        "    for (int z = 0; z < 3; z++)\n"
        "        for (int s = 0; s < 3; s++) {\n"
        "            emu::schedule = s;\n"
        "            const unsigned M = shapes[z][0], N = shapes[z][1], K = shapes[z][2];\n"
        "            emu::buf<float> A((size_t)M * K), B((size_t)K * N), co((size_t)M * N + 64), cc((size_t)M * N + 64);\n"
        "            A.fill(z + 1);\n"
        "            B.fill(z + 2);\n"
        "            co.fill(9);\n"
        "            cc.fill(9);\n"
        "            emu::launch(dim3((M + 15) / 16, (N + 15) / 16), dim3(16, 16), 0,\n"
        "                        [&] { orig::gemm_xrows(M, N, K, 1.5f, A, B, 0.5f, co); });\n"
        "            bool small = s == 1;   // 64 threads a block: the simple path\n"
        "            emu::launch(dim3(3, 2), small ? dim3(8, 8) : dim3(16, 16), 0,\n"
        "                        [&] { cand::gemm_xrows(M, N, K, 1.5f, A, B, 0.5f, cc); });\n"
        "            if (!emu::expect(\"gemm_xrows\", co, cc, 1e-5, K))\n"
        "                printf(\"  (%u x %u x %u schedule %d)\\n\", M, N, K, s);\n"
        "        }\n";
    char *cand = emu_rewrite(src, "gemm_xrows", "tiled_gemm", NULL);
    assert_non_null(strstr(cand, "hk_m = (M), hk_n = (N)"));
    emulate("gemm_xrows", src, cand, driver, EMU_OK);
    char *bad = emu_replaced(cand, "hk_m = (M), hk_n = (N)", "hk_m = (M) - 1, hk_n = (N)");
    emulate("gemm_xrows_bad", src, bad, driver, EMU_DIFFERS);
    free(bad);
    free(cand);
    emu_batch_run(&batch);
}

/* ------------------------------------------------------------------ GEMM summed into C */

/* No accumulator: C's element is scaled by beta, then the k loop adds alpha * A * B into it
 * (PolyBench's spelling, in our own words), with rows from .y; and the same without the
 * scaling, the factor last, rows from .x. The tiled body sums in a register and adds once
 * (alpha factored out: the sum reassociated, within 1e-5 of the original) on ragged
 * M x N x K, tiled and simple paths, three schedules; without its beta scaling it differs. */
static void gemm_in_memory_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const char src[] =
        "__global__ void gemm_mem(int ni, int nj, int nk, float alpha, float beta, const float *a,\n"
        "                         const float *b, float *c)\n"
        "{\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    if ((i < ni) && (j < nj)) {\n"
        "        c[i * nj + j] *= beta;\n"
        "        for (int k = 0; k < nk; k++)\n"
        "            c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];\n"
        "    }\n"
        "}\n"
        "__global__ void gemm_add(size_t ni, size_t nj, size_t nk, float alpha, const float *a, const float *b,\n"
        "                         float *c)\n"
        "{\n"
        "    size_t i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    size_t j = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    if (i < ni && j < nj) {\n"
        "        for (size_t k = 0; k < nk; ++k) {\n"
        "            c[i * nj + j] += a[i * nk + k] * b[k * nj + j] * alpha;\n"
        "        }\n"
        "    }\n"
        "}\n";
    static const char driver[] =
        "    static const int shapes[][3] = {{37, 21, 19}, {70, 66, 9}, {5, 130, 33}};   // M, N, K\n"
        "    for (int z = 0; z < 3; z++)\n"
        "        for (int s = 0; s < 3; s++) {\n"
        "            emu::schedule = s;\n"
        "            const int M = shapes[z][0], N = shapes[z][1], K = shapes[z][2];\n"
        "            emu::buf<float> A((size_t)M * K), B((size_t)K * N), co((size_t)M * N + 64), cc((size_t)M * N + 64);\n"
        "            emu::buf<float> do_((size_t)M * N + 64), dc((size_t)M * N + 64);\n"
        "            A.fill(z + 1);\n"
        "            B.fill(z + 2);\n"
        "            co.fill(9);\n"
        "            cc.fill(9);\n"
        "            do_.fill(10);\n"
        "            dc.fill(10);\n"
        "            bool small = s == 1;   // 64 threads a block: the simple path\n"
        "            emu::launch(dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0,\n"
        "                        [&] { orig::gemm_mem(M, N, K, 1.5f, 0.5f, A, B, co); });\n"
        "            emu::launch(dim3(3, 2), small ? dim3(8, 8) : dim3(16, 16), 0,\n"
        "                        [&] { cand::gemm_mem(M, N, K, 1.5f, 0.5f, A, B, cc); });\n"
        "            emu::launch(dim3((M + 15) / 16, (N + 15) / 16), dim3(16, 16), 0,\n"
        "                        [&] { orig::gemm_add(M, N, K, 0.75f, A, B, do_); });\n"
        "            emu::launch(dim3(2, 3), small ? dim3(8, 8) : dim3(16, 16), 0,\n"
        "                        [&] { cand::gemm_add(M, N, K, 0.75f, A, B, dc); });\n"
        "            if (!emu::expect(\"gemm_mem\", co, cc, 1e-5, K) || !emu::expect(\"gemm_add\", do_, dc, 1e-5, K))\n"
        "                printf(\"  (%d x %d x %d schedule %d)\\n\", M, N, K, s);\n"
        "        }\n";
    char *c1 = emu_rewrite(src, "gemm_mem", "tiled_gemm", NULL);
    assert_non_null(strstr(c1, "c[i * nj + j] *= beta; c[i * nj + j] += alpha * hk_ksum;"));
    char *cand = emu_rewrite(c1, "gemm_add", "tiled_gemm", NULL);
    assert_non_null(strstr(cand, "c[i * nj + j] += alpha * hk_ksum;"));
    emulate("gemm_in_memory", src, cand, driver, EMU_OK);
    char *bad = emu_replaced(cand, "c[i * nj + j] *= beta; c[i * nj + j] += alpha * hk_ksum;",
                             "c[i * nj + j] += alpha * hk_ksum;");
    emulate("gemm_in_memory_bad", src, bad, driver, EMU_DIFFERS);
    free(bad);
    free(cand);
    free(c1);
    emu_batch_run(&batch);
}

/* ------------------------------------------------------------ GEMM, a scaled product */

/* A uniform factor inside the k loop's product, the sum in a local: `s += alpha * A * B`
 * (a 2mm chain's first product, in our own words; session 47's probes), and the factors
 * last on doubles with C read in the epilogue. The tiled body sums A * B and
 * scales the sum once before the epilogue (reassociated: within 1e-5 of the original) on
 * ragged M x N x K, tiled and simple paths, three schedules; without that scaling it
 * differs. */
static void gemm_scaled_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const char src[] =
        "__global__ void mm_scaled(int ni, int nj, int nk, float alpha, const float *A, const float *B,\n"
        "                          float *tmp)\n"
        "{\n"
        "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    if (row < ni && col < nj) {\n"
        "        float s = 0.0f;\n"
        "        for (int k = 0; k < nk; k++)\n"
        "            s += alpha * A[(size_t)row * nk + k] * B[(size_t)k * nj + col];\n"
        "        tmp[(size_t)row * nj + col] = s;\n"
        "    }\n"
        "}\n"
        "__global__ void dmm_scaled(const double *a, const double *b, double *c, int m, int n, int k, double w)\n"
        "{\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    if (i < m && j < n) {\n"
        "        double acc = 0.0;\n"
        "        for (int q = 0; q < k; ++q)\n"
        "            acc += a[i * k + q] * b[q * n + j] * 2.0 * w;\n"
        "        c[i * n + j] = acc + c[i * n + j];\n"
        "    }\n"
        "}\n";
    static const char driver[] =
        "    static const int shapes[][3] = {{37, 21, 19}, {70, 66, 9}, {5, 130, 33}};   // M, N, K\n"
        "    for (int z = 0; z < 3; z++)\n"
        "        for (int s = 0; s < 3; s++) {\n"
        "            emu::schedule = s;\n"
        "            const int M = shapes[z][0], N = shapes[z][1], K = shapes[z][2];\n"
        "            emu::buf<float> A((size_t)M * K), B((size_t)K * N), co((size_t)M * N + 64), cc((size_t)M * N + 64);\n"
        "            emu::buf<double> da((size_t)M * K), db((size_t)K * N), do_((size_t)M * N + 64), dc((size_t)M * N + 64);\n"
        "            A.fill(z + 1);\n"
        "            B.fill(z + 2);\n"
        "            da.fill(z + 3);\n"
        "            db.fill(z + 4);\n"
        "            co.fill(9);\n"
        "            cc.fill(9);\n"
        "            do_.fill(10);\n"
        "            dc.fill(10);\n"
        "            bool small = s == 1;   // 64 threads a block: the simple path\n"
        "            emu::launch(dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0,\n"
        "                        [&] { orig::mm_scaled(M, N, K, 1.5f, A, B, co); });\n"
        "            emu::launch(dim3(3, 2), small ? dim3(8, 8) : dim3(16, 16), 0,\n"
        "                        [&] { cand::mm_scaled(M, N, K, 1.5f, A, B, cc); });\n"
        "            emu::launch(dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0,\n"
        "                        [&] { orig::dmm_scaled(da, db, do_, M, N, K, 0.75); });\n"
        "            emu::launch(dim3(2, 3), small ? dim3(8, 8) : dim3(16, 16), 0,\n"
        "                        [&] { cand::dmm_scaled(da, db, dc, M, N, K, 0.75); });\n"
        "            if (!emu::expect(\"mm_scaled\", co, cc, 1e-5, K) || !emu::expect(\"dmm_scaled\", do_, dc, 1e-5, K))\n"
        "                printf(\"  (%d x %d x %d schedule %d)\\n\", M, N, K, s);\n"
        "        }\n";
    char *c1 = emu_rewrite(src, "mm_scaled", "tiled_gemm", NULL);
    assert_non_null(strstr(c1, "s = alpha * s;"));
    char *cand = emu_rewrite(c1, "dmm_scaled", "tiled_gemm", NULL);
    assert_non_null(strstr(cand, "acc = 2.0 * w * acc;"));
    emulate("gemm_scaled", src, cand, driver, EMU_OK);
    char *bad = emu_replaced(cand, "s = alpha * s;", ";");
    emulate("gemm_scaled_bad", src, bad, driver, EMU_DIFFERS);
    free(bad);
    free(cand);
    free(c1);
    emu_batch_run(&batch);
}

/* ------------------------------------------------------------ GEMM, batched */

/* Batched GEMMs with the batch from blockIdx.z (session 48: tiled_gemm refused them at
 * `int b = blockIdx.z;`): a float one through size_t-offset local pointers, #define
 * dims and an early return (la_batched_gemm_z's spelling), and a double one with the
 * offsets in the indices, parameter sizes and C = alpha*sum + beta*C. The tiled body walks
 * every batch's tiles; emulated on ragged shapes and batch counts, the tiled path (256
 * threads) and the simple one (64), grids smaller and larger than the work, three
 * schedules; with the batch's C pointer off by one matrix it differs. */
static void gemm_batched_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const char src[] =
        "#define BM 19\n"
        "#define BN 37\n"
        "#define BK 23\n"
        "__global__ void bmm_z(const float *A, const float *B, float *C, int batch)\n"
        "{\n"
        "    int b = blockIdx.z;\n"
        "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    if (b >= batch || row >= BM || col >= BN)\n"
        "        return;\n"
        "    const float *Ab = A + (size_t)b * BM * BK;\n"
        "    const float *Bb = B + (size_t)b * BK * BN;\n"
        "    float acc = 0.0f;\n"
        "    for (int k = 0; k < BK; k++)\n"
        "        acc += Ab[row * BK + k] * Bb[k * BN + col];\n"
        "    C[(size_t)b * BM * BN + row * BN + col] = acc;\n"
        "}\n"
        "__global__ void dbmm(int nb, int M, int N, int K, double alpha, double beta, const double *a,\n"
        "                     const double *w, double *c)\n"
        "{\n"
        "    int z = blockIdx.z;\n"
        "    int j = threadIdx.x + blockIdx.x * blockDim.x;\n"
        "    int i = threadIdx.y + blockIdx.y * blockDim.y;\n"
        "    if (i < M && j < N && z < nb) {\n"
        "        double t = 0.0;\n"
        "        for (int q = 0; q < K; ++q)\n"
        "            t += a[z * M * K + i * K + q] * w[z * K * N + q * N + j];\n"
        "        c[z * M * N + i * N + j] = alpha * t + beta * c[z * M * N + i * N + j];\n"
        "    }\n"
        "}\n";
    static const char driver[] =
        "    static const int shapes[][4] = {{3, 70, 66, 9}, {5, 5, 130, 33}, {1, 64, 64, 16}};   // batch, M, N, K\n"
        "    for (int z = 0; z < 3; z++)\n"
        "        for (int s = 0; s < 3; s++) {\n"
        "            emu::schedule = s;\n"
        "            const int nb = shapes[z][0] + 1, M = shapes[z][1], N = shapes[z][2], K = shapes[z][3];\n"
        "            emu::buf<float> A((size_t)nb * BM * BK), B((size_t)nb * BK * BN), co((size_t)nb * BM * BN + 64),\n"
        "                cc((size_t)nb * BM * BN + 64);\n"
        "            emu::buf<double> da((size_t)nb * M * K), dw((size_t)nb * K * N), do_((size_t)nb * M * N + 64),\n"
        "                dc((size_t)nb * M * N + 64);\n"
        "            A.fill(z + 1);\n"
        "            B.fill(z + 2);\n"
        "            da.fill(z + 3);\n"
        "            dw.fill(z + 4);\n"
        "            co.fill(9);\n"
        "            cc.fill(9);\n"
        "            do_.fill(10);\n"
        "            dc.fill(10);\n"
        "            bool small = s == 1;   // 64 threads a block: the simple path\n"
        "            // the batch count passed is one less than the buffers hold: the last stays as filled\n"
        "            emu::launch(dim3((BN + 15) / 16, (BM + 15) / 16, nb), dim3(16, 16), 0,\n"
        "                        [&] { orig::bmm_z(A, B, co, nb - 1); });\n"
        "            emu::launch(dim3(2, 1, z + 1), small ? dim3(8, 8) : dim3(16, 16), 0,\n"
        "                        [&] { cand::bmm_z(A, B, cc, nb - 1); });\n"
        "            emu::launch(dim3((N + 15) / 16, (M + 15) / 16, nb), dim3(16, 16), 0,\n"
        "                        [&] { orig::dbmm(nb - 1, M, N, K, 1.5, 0.25, da, dw, do_); });\n"
        "            emu::launch(dim3(3, 2, 2), small ? dim3(8, 8) : dim3(16, 16), 0,\n"
        "                        [&] { cand::dbmm(nb - 1, M, N, K, 1.5, 0.25, da, dw, dc); });\n"
        "            if (!emu::expect(\"bmm_z\", co, cc, 1e-5, BK) || !emu::expect(\"dbmm\", do_, dc, 1e-5, K))\n"
        "                printf(\"  (%d x %d x %d x %d schedule %d)\\n\", nb, M, N, K, s);\n"
        "        }\n";
    char *c1 = emu_rewrite(src, "bmm_z", "tiled_gemm", NULL);
    assert_non_null(strstr(c1, "hk_zc[(size_t)hk_row * (BN) + hk_col] = hk_sum;"));
    char *cand = emu_rewrite(c1, "dbmm", "tiled_gemm", NULL);
    assert_non_null(strstr(cand, "hk_zc[(size_t)hk_row * (N) + hk_col] = (alpha) * hk_sum + (beta) * "
                                 "hk_zc[(size_t)hk_row * (N) + hk_col];"));
    emulate("gemm_batched", src, cand, driver, EMU_OK);
    char *bad = emu_replaced(cand, "float *const hk_zc = C + hk_z * BM*BN;",
                             "float *const hk_zc = C + (hk_z + 1) * BM*BN;");
    emulate("gemm_batched_bad", src, bad, driver, EMU_DIFFERS);
    free(bad);
    free(cand);
    free(c1);
    emu_batch_run(&batch);
}

/* Session 48's review (rev): the batched tiled body at its edges. Sizes the original's
 * guard rejects whole (M and N both negative, or the batch count and one of M, N negative:
 * `i < M && j < N && z < nb` holds for no thread) must write nothing, yet the simple path's
 * `hk_e < hk_m * hk_n * hk_nb` counted a positive product of negatives and wrote C at
 * negative rows (hk_nb is now 0 unless M and N are positive). And a factor of the store that
 * names the old body's indices (`(double)blockIdx.z * t`: each batch its own factor) is
 * refused: the tiled body has its own grid, so blockIdx.z there is no batch. */
static void gemm_batched_edges(void **state)
{
    (void)state;
    static const char zscaled[] =
        "__global__ void dbz(int nb, int M, int N, int K, const double *a, const double *w, double *c)\n"
        "{\n"
        "    int z = blockIdx.z;\n"
        "    int j = threadIdx.x + blockIdx.x * blockDim.x;\n"
        "    int i = threadIdx.y + blockIdx.y * blockDim.y;\n"
        "    if (i < M && j < N && z < nb) {\n"
        "        double t = 0.0;\n"
        "        for (int q = 0; q < K; ++q)\n"
        "            t += a[z * M * K + i * K + q] * w[z * K * N + q * N + j];\n"
        "        c[z * M * N + i * N + j] = (double)blockIdx.z * t;\n"
        "    }\n"
        "}\n";
    {
        fixture fx;
        load_text(zscaled, &fx);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "dbz")};
        rw_result r;
        rw_refusal why;
        assert_int_equal(rw_apply_named("tiled_gemm", &ctx, NULL, &r, &why), HK_OK);
        print_message("dbz: %s\n", r.description);
        if (r.applicable)
            fail_msg("dbz: tiled_gemm applied with the old body's blockIdx.z in the store:\n%s", r.text);
        assert_non_null(strstr(r.description, "use a local variable"));
        rw_result_free(&r);
        unload(&fx);
    }
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const char src[] =
        "__global__ void dbmm(int nb, int M, int N, int K, double alpha, double beta, const double *a,\n"
        "                     const double *w, double *c)\n"
        "{\n"
        "    int z = blockIdx.z;\n"
        "    int j = threadIdx.x + blockIdx.x * blockDim.x;\n"
        "    int i = threadIdx.y + blockIdx.y * blockDim.y;\n"
        "    if (i < M && j < N && z < nb) {\n"
        "        double t = 0.0;\n"
        "        for (int q = 0; q < K; ++q)\n"
        "            t += a[z * M * K + i * K + q] * w[z * K * N + q * N + j];\n"
        "        c[z * M * N + i * N + j] = alpha * t + beta * c[z * M * N + i * N + j];\n"
        "    }\n"
        "}\n";
    static const char driver[] =
        "    // batch, M, N, K: the guard holds for no thread in the first five\n"
        "    static const int shapes[][4] = {{2, -3, -5, 4}, {-2, -3, 5, 4}, {-2, 3, -5, 4}, {0, 4, 4, 4},\n"
        "                                    {3, 0, 5, 3}, {2, 3, 5, 4}};\n"
        "    const size_t pad = 4096;   // the pointers passed are pad elements into each buffer\n"
        "    for (int z = 0; z < 6; z++)\n"
        "        for (int s = 0; s < 3; s++) {\n"
        "            emu::schedule = s;\n"
        "            const int nb = shapes[z][0], M = shapes[z][1], N = shapes[z][2], K = shapes[z][3];\n"
        "            emu::buf<double> da(2 * pad), dw(2 * pad), do_(2 * pad), dc(2 * pad);\n"
        "            da.fill(z + 3);\n"
        "            dw.fill(z + 4);\n"
        "            do_.fill(10);\n"
        "            dc.fill(10);\n"
        "            bool small = s == 1;   // 64 threads a block: the simple path\n"
        "            emu::launch(dim3(2, 2, 3), dim3(16, 16), 0,\n"
        "                        [&] { orig::dbmm(nb, M, N, K, 1.5, 0.25, da.ptr() + pad, dw.ptr() + pad, do_.ptr() + pad); });\n"
        "            emu::launch(dim3(3, 2, 2), small ? dim3(8, 8) : dim3(16, 16), 0,\n"
        "                        [&] { cand::dbmm(nb, M, N, K, 1.5, 0.25, da.ptr() + pad, dw.ptr() + pad, dc.ptr() + pad); });\n"
        "            if (!emu::expect(\"dbmm_edges\", do_, dc, 1e-12, K))\n"
        "                printf(\"  (%d x %d x %d x %d schedule %d)\\n\", nb, M, N, K, s);\n"
        "        }\n";
    char *cand = emu_rewrite(src, "dbmm", "tiled_gemm", NULL);
    assert_non_null(strstr(cand, "const long long hk_nb = hk_m > 0 && hk_n > 0 ? (long long)(nb) : 0;"));
    emulate("gemm_batched_edges", src, cand, driver, EMU_OK);
    /* the count as it was: the simple path writes C at negative rows */
    char *bad = emu_replaced(cand, "hk_m > 0 && hk_n > 0 ? (long long)(nb) : 0", "(long long)(nb)");
    emulate("gemm_batched_edges_bad", src, bad, driver, EMU_DIFFERS);
    free(bad);
    free(cand);
    emu_batch_run(&batch);
}

/* ------------------------------------------------------------ GEMM, transposed operands */

/* A rank-k update C = alpha * A * A^T + beta * C (A n x m: B is A transposed, read as
 * a[j * m + k]) summed into C after a beta scaling; the same with a local fmaf accumulator;
 * and A^T * B (A read as A[k * M + row]). The tiled bodies fetch a transposed operand's tile
 * along k (coalesced), on ragged sizes, tiled and simple paths, three schedules; with the
 * transposed fetch's leading dimension off by one they differ. */
static void gemm_transposed_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const char src[] =
        "__global__ void syrk_mem(int n, int m, float alpha, float beta, const float *a, float *c)\n"
        "{\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    if ((i < n) && (j < n)) {\n"
        "        c[i * n + j] *= beta;\n"
        "        for (int k = 0; k < m; k++)\n"
        "            c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];\n"
        "    }\n"
        "}\n"
        "__global__ void syrk_fma(int n, int m, float alpha, float beta, const float *a, float *c)\n"
        "{\n"
        "    int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i >= n || j >= n)\n"
        "        return;\n"
        "    float acc = 0.0f;\n"
        "    for (int k = 0; k < m; ++k)\n"
        "        acc = fmaf(a[i * m + k], a[j * m + k], acc);\n"
        "    c[i * n + j] = alpha * acc + beta * c[i * n + j];\n"
        "}\n"
        "__global__ void gemm_tn(const float *A, const float *B, float *C, int M, int N, int K)\n"
        "{\n"
        "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    if (row < M && col < N) {\n"
        "        float acc = 0.0f;\n"
        "        for (int k = 0; k < K; k++)\n"
        "            acc += A[k * M + row] * B[k * N + col];\n"
        "        C[row * N + col] = acc;\n"
        "    }\n"
        "}\n";
    static const char driver[] =
        "    static const int shapes[][3] = {{37, 21, 19}, {70, 66, 9}, {5, 130, 33}};   // M (n), N, K (m)\n"
        "    for (int z = 0; z < 3; z++)\n"
        "        for (int s = 0; s < 3; s++) {\n"
        "            emu::schedule = s;\n"
        "            const int M = shapes[z][0], N = shapes[z][1], K = shapes[z][2];\n"
        "            emu::buf<float> A((size_t)M * K), B((size_t)K * N);\n"
        "            emu::buf<float> so((size_t)M * M + 64), sc((size_t)M * M + 64), fo((size_t)M * M + 64),\n"
        "                fc((size_t)M * M + 64), to((size_t)M * N + 64), tc((size_t)M * N + 64);\n"
        "            A.fill(z + 1);\n"
        "            B.fill(z + 2);\n"
        "            so.fill(9);\n"
        "            sc.fill(9);\n"
        "            fo.fill(8);\n"
        "            fc.fill(8);\n"
        "            bool small = s == 1;   // 64 threads a block: the simple path\n"
        "            dim3 cb = small ? dim3(8, 8) : dim3(16, 16);\n"
        "            emu::launch(dim3((M + 15) / 16, (M + 15) / 16), dim3(16, 16), 0,\n"
        "                        [&] { orig::syrk_mem(M, K, 1.5f, 0.5f, A, so); });\n"
        "            emu::launch(dim3(3, 2), cb, 0, [&] { cand::syrk_mem(M, K, 1.5f, 0.5f, A, sc); });\n"
        "            emu::launch(dim3((M + 15) / 16, (M + 15) / 16), dim3(16, 16), 0,\n"
        "                        [&] { orig::syrk_fma(M, K, 0.75f, 1.25f, A, fo); });\n"
        "            emu::launch(dim3(2, 3), cb, 0, [&] { cand::syrk_fma(M, K, 0.75f, 1.25f, A, fc); });\n"
        "            emu::launch(dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0,\n"
        "                        [&] { orig::gemm_tn(A, B, to, M, N, K); });\n"
        "            emu::launch(dim3(2, 2), cb, 0, [&] { cand::gemm_tn(A, B, tc, M, N, K); });\n"
        "            if (!emu::expect(\"syrk_mem\", so, sc, 1e-5, K) || !emu::expect(\"syrk_fma\", fo, fc, 1e-5, K) ||\n"
        "                !emu::expect(\"gemm_tn\", to, tc, 1e-5, K))\n"
        "                printf(\"  (%d x %d x %d schedule %d)\\n\", M, N, K, s);\n"
        "        }\n";
    char *c1 = emu_rewrite(src, "syrk_mem", "tiled_gemm", NULL);
    assert_non_null(strstr(c1, "a[(size_t)hk_gc * (m) + hk_gk]"));
    char *c2 = emu_rewrite(c1, "syrk_fma", "tiled_gemm", NULL);
    char *cand = emu_rewrite(c2, "gemm_tn", "tiled_gemm", NULL);
    assert_non_null(strstr(cand, "A[(size_t)hk_gk * (M) + hk_gr]"));
    assert_non_null(strstr(cand, "A[(size_t)hk_kk * (M) + row]"));
    emulate("gemm_transposed", src, cand, driver, EMU_OK);
    char *bad = emu_replaced(cand, "a[(size_t)hk_gc * (m) + hk_gk]", "a[(size_t)hk_gc * (m - 1) + hk_gk]");
    emulate("gemm_transposed_bad", src, bad, driver, EMU_DIFFERS);
    free(bad);
    free(cand);
    free(c2);
    free(c1);
    emu_batch_run(&batch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reduce_variants_run),
        cmocka_unit_test(reduce_model_path_runs),
        cmocka_unit_test(broken_reductions_fail),
        cmocka_unit_test(histograms_run),
        cmocka_unit_test(histogram_model_path_runs),
        cmocka_unit_test(transposes_run),
        cmocka_unit_test(transpose_without_barrier_fails),
        cmocka_unit_test(transpose_loops_run),
        cmocka_unit_test(gemm_from_grid_runs),
        cmocka_unit_test(gemm_x_rows_runs),
        cmocka_unit_test(gemm_in_memory_runs),
        cmocka_unit_test(gemm_scaled_runs),
        cmocka_unit_test(gemm_transposed_runs),
        cmocka_unit_test(gemm_batched_runs),
        cmocka_unit_test(gemm_batched_edges),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
