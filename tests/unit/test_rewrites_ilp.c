/* ilp_accumulators (issue 13): thread-strided sum loops written as others write them --
 * mmcv's SyncBN mean and variance (a block per channel, a block-stride for, `/` and `%`
 * declarations, a __shared__ slot; template input, float and double), SHOC's reduce (a
 * while loop over a grid-stride held in a local, a volatile pointer slot, the type behind
 * an #ifdef), register sums (fmaf over a grid-stride, `s = e + s` in double with a
 * parameter stride and the counter read after the loop, `-=` with `<=`, two loops) and
 * cuda-samples' reduce6 (a second sum under `if (nIsPow2 || i + blockSize < n)`) --
 * must apply, compile with nvcc and, in the block emulator (emu_block.h), equal the
 * original within a float sum's tolerance at 2, 4 and 8 partial sums, on trip counts that
 * are zero, smaller than the threads and not multiples of K; a remainder loop or a lane
 * dropped must differ. Kernels it must refuse say the construct and line. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_ilp.h"

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
    return rwf_setup("rewrites-ilp");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char kernels[] =
    "#define THREADS 512\n"
    "template <typename T>\n"
    "__global__ void bn_mean(const T *input, float *mean, int num, int channels, int spatial)\n"
    "{\n"
    "    __shared__ float buffer[THREADS];\n"
    "    int tid = threadIdx.x;\n"
    "    int c = blockIdx.x;\n"
    "    buffer[tid] = 0;\n"
    "    for (int i = tid; i < num * spatial; i += blockDim.x) {\n"
    "        int n = i / spatial;\n"
    "        int s = i % spatial;\n"
    "        buffer[tid] += input[(n * channels + c) * spatial + s];\n"
    "    }\n"
    "    __syncthreads();\n"
    "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
    "        if (tid < s)\n"
    "            buffer[tid] += buffer[tid + s];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (tid == 0)\n"
    "        mean[c] = buffer[0] / (num * spatial);\n"
    "}\n"
    "template <typename T>\n"
    "__global__ void bn_var(const T *input, const float *mean, float *var, int num, int channels, int spatial)\n"
    "{\n"
    "    __shared__ float buffer[THREADS];\n"
    "    int tid = threadIdx.x;\n"
    "    int c = blockIdx.x;\n"
    "    buffer[tid] = 0;\n"
    "    for (int i = tid; i < num * spatial; i += blockDim.x) {\n"
    "        int index = (i / spatial) * channels * spatial + c * spatial + i % spatial;\n"
    "        float td = input[index] - mean[c];\n"
    "        buffer[tid] += td * td;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
    "        if (tid < s)\n"
    "            buffer[tid] += buffer[tid + s];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (tid == 0)\n"
    "        var[c] = buffer[0] / (num * spatial);\n"
    "}\n"
    "template <class T, int blockSize>\n"
    "__global__ void shoc_reduce(const T *g_idata, T *g_odata, const unsigned int n)\n"
    "{\n"
    "    extern __shared__ unsigned char s_raw[];\n"
    "    const unsigned int tid = threadIdx.x;\n"
    "    unsigned int i = (blockIdx.x * (blockDim.x * 2)) + tid;\n"
    "    const unsigned int gridSize = blockDim.x * 2 * gridDim.x;\n"
    "#ifdef HK_TEST_OLD_ARCH\n"
    "    extern volatile __shared__ float sdata[];\n"
    "#else\n"
    "    volatile T *sdata = reinterpret_cast<T *>(s_raw);\n"
    "#endif\n"
    "    sdata[tid] = 0.0f;\n"
    "    while (i < n)\n"
    "    {\n"
    "        sdata[tid] += g_idata[i] + g_idata[i + blockSize];\n"
    "        i += gridSize;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
    "        if (tid < s)\n"
    "            sdata[tid] += sdata[tid + s];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (tid == 0)\n"
    "        g_odata[blockIdx.x] = sdata[0];\n"
    "}\n"
    "__global__ void dot_fma(const float *x, const float *y, float *out, int n)\n"
    "{\n"
    "    float acc = 0.0f;\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        acc = fmaf(x[i], y[i], acc);\n"
    "    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;\n"
    "}\n"
    "__global__ void sumsq_double(const double *x, double *out, int n, int stride)\n"
    "{\n"
    "    const int t = threadIdx.x + blockIdx.x * blockDim.x;\n"
    "    double s = 1.0;\n"
    "    int i = t;\n"
    "    while (i < n) {\n"
    "        const double v = x[i];\n"
    "        s = v * v + s;\n"
    "        i = i + stride;\n"
    "    }\n"
    "    out[t] = s + i;\n"
    "}\n"
    "__global__ void neg_sum(const float *x, float *out, int n)\n"
    "{\n"
    "    float acc = 100.0f;\n"
    "    for (int i = threadIdx.x; i <= n - 1; i += blockDim.x)\n"
    "        acc -= x[i] * 0.5f;\n"
    "    out[threadIdx.x] = acc;\n"
    "}\n"
    "__global__ void two_loops(const float *x, const float *y, float *out, int n)\n"
    "{\n"
    "    float a = 0.0f, b = 0.0f;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        a = a + x[i] * 2.0f;\n"
    "    for (int j = threadIdx.x; j < n; j += blockDim.x)\n"
    "        b += y[j];\n"
    "    out[threadIdx.x] = a - b;\n"
    "}\n"
    "template <unsigned int blockSize, bool nIsPow2>\n"
    "__global__ void reduce6(const float *g_idata, float *g_odata, unsigned int n)\n"
    "{\n"
    "    extern __shared__ unsigned char smem[];\n"
    "    float *sdata = reinterpret_cast<float *>(smem);\n"
    "    unsigned int tid = threadIdx.x;\n"
    "    unsigned int gridSize = blockSize * 2 * gridDim.x;\n"
    "    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;\n"
    "    float mySum = 0;\n"
    "    while (i < n) {\n"
    "        mySum += g_idata[i];\n"
    "        // ensure we don't read out of bounds\n"
    "        if (nIsPow2 || i + blockSize < n)\n"
    "            mySum += g_idata[i + blockSize];\n"
    "        i += gridSize;\n"
    "    }\n"
    "    sdata[tid] = mySum;\n"
    "    __syncthreads();\n"
    "    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
    "        if (tid < s)\n"
    "            sdata[tid] = mySum = mySum + sdata[tid + s];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (tid == 0)\n"
    "        g_odata[blockIdx.x] = mySum;\n"
    "}\n";

static const char *const applying[] = {"bn_mean", "bn_var", "shoc_reduce", "dot_fma", "sumsq_double",
                                       "neg_sum", "two_loops", "reduce6"};

/* One case per kernel: the original and the rewrite on the same data and launch, several
 * sizes (zero trips, fewer elements than threads, counts not a multiple of 2, 4 or 8),
 * two block sizes, the three thread orders. */
static const char helpers[] =
    "static void bn_mean_case(void)\n"
    "{\n"
    "    static const int sz[][3] = {{1, 1, 1}, {1, 2, 7}, {3, 4, 37}, {5, 3, 129}, {2, 2, 1001}};\n"
    "    for (int z = 0; z < 5; z++)\n"
    "        for (int bl = 0; bl < 2; bl++) {\n"
    "            emu::schedule = (z + bl) % 3;\n"
    "            const int num = sz[z][0], ch = sz[z][1], sp = sz[z][2];\n"
    "            const dim3 g(ch), b(bl ? 128 : 32);\n"
    "            const size_t total = (size_t)num * ch * sp;\n"
    "            emu::buf<float> in(total), mo(ch), mc(ch);\n"
    "            in.fill(z + 1);\n"
    "            emu::launch(g, b, 0, [&] { orig::bn_mean<float>(in, mo, num, ch, sp); });\n"
    "            emu::launch(g, b, 0, [&] { cand::bn_mean<float>(in, mc, num, ch, sp); });\n"
    "            emu::expect(\"bn_mean<float>\", mo, mc, 1e-5, 10.0);\n"
    "            emu::buf<double> ind(total);\n"
    "            ind.fill(z + 7);\n"
    "            emu::launch(g, b, 0, [&] { orig::bn_mean<double>(ind, mo, num, ch, sp); });\n"
    "            emu::launch(g, b, 0, [&] { cand::bn_mean<double>(ind, mc, num, ch, sp); });\n"
    "            emu::expect(\"bn_mean<double>\", mo, mc, 1e-5, 10.0);\n"
    "        }\n"
    "}\n"
    "static void bn_var_case(void)\n"
    "{\n"
    "    static const int sz[][3] = {{1, 1, 1}, {1, 2, 7}, {3, 4, 37}, {5, 3, 129}, {2, 2, 1001}};\n"
    "    for (int z = 0; z < 5; z++)\n"
    "        for (int bl = 0; bl < 2; bl++) {\n"
    "            emu::schedule = (z + bl + 1) % 3;\n"
    "            const int num = sz[z][0], ch = sz[z][1], sp = sz[z][2];\n"
    "            const dim3 g(ch), b(bl ? 256 : 64);\n"
    "            emu::buf<float> in((size_t)num * ch * sp), mean(ch), vo(ch), vc(ch);\n"
    "            in.fill(z + 2);\n"
    "            mean.fill(z + 3);\n"
    "            emu::launch(g, b, 0, [&] { orig::bn_var<float>(in, mean, vo, num, ch, sp); });\n"
    "            emu::launch(g, b, 0, [&] { cand::bn_var<float>(in, mean, vc, num, ch, sp); });\n"
    "            emu::expect(\"bn_var\", vo, vc, 1e-5, 100.0);\n"
    "        }\n"
    "}\n"
    "template <class T>\n"
    "static void shoc_one(const char *what, double rtol)\n"
    "{\n"
    "    static const unsigned sizes[] = {0, 5, 64, 1000, 4099};\n"
    "    for (int z = 0; z < 5; z++)\n"
    "        for (int bl = 0; bl < 2; bl++) {\n"
    "            emu::schedule = (z + bl) % 3;\n"
    "            const unsigned n = sizes[z];\n"
    "            const unsigned blocks = bl ? 3 : 2;\n"
    "            emu::buf<T> in(n + 64), oo(blocks), oc(blocks);\n"
    "            in.fill(z + 5);\n"
    "            emu::launch(dim3(blocks), dim3(64), 64 * sizeof(T), [&] { orig::shoc_reduce<T, 64>(in, oo, n); });\n"
    "            emu::launch(dim3(blocks), dim3(64), 64 * sizeof(T), [&] { cand::shoc_reduce<T, 64>(in, oc, n); });\n"
    "            emu::expect(what, oo, oc, rtol, 20.0 * (n + 1));\n"
    "        }\n"
    "}\n"
    "static void shoc_reduce_case(void)\n"
    "{\n"
    "    shoc_one<float>(\"shoc_reduce<float>\", 1e-6);\n"
    "    shoc_one<double>(\"shoc_reduce<double>\", 1e-13);\n"
    "}\n"
    "static void dot_fma_case(void)\n"
    "{\n"
    "    static const int sizes[] = {0, 1, 100, 1001, 4099};\n"
    "    for (int z = 0; z < 5; z++)\n"
    "        for (int l = 0; l < 2; l++) {\n"
    "            emu::schedule = (z + l) % 3;\n"
    "            const int n = sizes[z];\n"
    "            const dim3 g(l ? 5 : 2), b(l ? 32 : 64);\n"
    "            emu::buf<float> x(n + 1), y(n + 1), oo(g.x * b.x), oc(g.x * b.x);\n"
    "            x.fill(z + 1);\n"
    "            y.fill(z + 2);\n"
    "            emu::launch(g, b, 0, [&] { orig::dot_fma(x, y, oo, n); });\n"
    "            emu::launch(g, b, 0, [&] { cand::dot_fma(x, y, oc, n); });\n"
    "            emu::expect(\"dot_fma\", oo, oc, 1e-5, 100.0 * (n + 1));\n"
    "        }\n"
    "}\n"
    "static void sumsq_double_case(void)\n"
    "{\n"
    "    static const int sizes[] = {0, 3, 100, 1001, 4099};\n"
    "    for (int z = 0; z < 5; z++)\n"
    "        for (int l = 0; l < 2; l++) {\n"
    "            emu::schedule = (z + l) % 3;\n"
    "            const int n = sizes[z];\n"
    "            const dim3 g(l ? 3 : 1), b(l ? 32 : 64);\n"
    "            const int stride = l ? 3 * 32 : 64;\n"
    "            emu::buf<double> x(n + 1), oo(g.x * b.x), oc(g.x * b.x);\n"
    "            x.fill(z + 4);\n"
    "            emu::launch(g, b, 0, [&] { orig::sumsq_double(x, oo, n, stride); });\n"
    "            emu::launch(g, b, 0, [&] { cand::sumsq_double(x, oc, n, stride); });\n"
    "            emu::expect(\"sumsq_double\", oo, oc, 1e-13, 100.0 * (n + 1));\n"
    "        }\n"
    "}\n"
    "static void neg_sum_case(void)\n"
    "{\n"
    "    static const int sizes[] = {0, 7, 64, 333, 2049};\n"
    "    for (int z = 0; z < 5; z++) {\n"
    "        emu::schedule = z % 3;\n"
    "        const int n = sizes[z];\n"
    "        emu::buf<float> x(n + 1), oo(64), oc(64);\n"
    "        x.fill(z + 9);\n"
    "        emu::launch(dim3(1), dim3(64), 0, [&] { orig::neg_sum(x, oo, n); });\n"
    "        emu::launch(dim3(1), dim3(64), 0, [&] { cand::neg_sum(x, oc, n); });\n"
    "        emu::expect(\"neg_sum\", oo, oc, 1e-5, 100.0 + 10.0 * n);\n"
    "    }\n"
    "}\n"
    "static void two_loops_case(void)\n"
    "{\n"
    "    static const int sizes[] = {0, 7, 64, 333, 2049};\n"
    "    for (int z = 0; z < 5; z++) {\n"
    "        emu::schedule = (z + 2) % 3;\n"
    "        const int n = sizes[z];\n"
    "        emu::buf<float> x(n + 1), y(n + 1), oo(96), oc(96);\n"
    "        x.fill(z + 3);\n"
    "        y.fill(z + 4);\n"
    "        emu::launch(dim3(1), dim3(96), 0, [&] { orig::two_loops(x, y, oo, n); });\n"
    "        emu::launch(dim3(1), dim3(96), 0, [&] { cand::two_loops(x, y, oc, n); });\n"
    "        emu::expect(\"two_loops\", oo, oc, 1e-5, 30.0 * (n + 1));\n"
    "    }\n"
    "}\n"
    "static void reduce6_case(void)\n"
    "{\n"
    "    static const unsigned sizes[] = {0, 5, 64, 1000, 4099};\n"
    "    for (int z = 0; z < 5; z++) {\n"
    "        emu::schedule = z % 3;\n"
    "        const unsigned n = sizes[z];\n"
    "        emu::buf<float> in(n + 64), oo(3), oc(3);\n"
    "        in.fill(z + 11);\n"
    "        emu::launch(dim3(3), dim3(32), 32 * sizeof(float), [&] { orig::reduce6<32, false>(in, oo, n); });\n"
    "        emu::launch(dim3(3), dim3(32), 32 * sizeof(float), [&] { cand::reduce6<32, false>(in, oc, n); });\n"
    "        emu::expect(\"reduce6<32, false>\", oo, oc, 1e-6, 20.0 * (n + 1));\n"
    "        emu::launch(dim3(3), dim3(32), 32 * sizeof(float), [&] { orig::reduce6<32, true>(in, oo, n & ~63u); });\n"
    "        emu::launch(dim3(3), dim3(32), 32 * sizeof(float), [&] { cand::reduce6<32, true>(in, oc, n & ~63u); });\n"
    "        emu::expect(\"reduce6<32, true>\", oo, oc, 1e-6, 20.0 * (n + 1));\n"
    "    }\n"
    "}\n";

/* The running test's emulated programs (emu_batch.h): queued by emulate(), built together
 * and checked, each on its own, by emu_batch_run at the test's end. */
static emu_batch batch;
#define emulate(tag, src, cand, driver, want) emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, want)

/* Each kernel applies at 4 (the default), 2 and 8 partial sums; every default text and
 * bn_var's others compile with explicit instantiations of the templates. */
static void applies_and_compiles(void **state)
{
    (void)state;
    static const int lanes[] = {0, 2, 8};
    static const char inst[] =
        "\ntemplate __global__ void bn_mean<float>(const float *, float *, int, int, int);\n"
        "template __global__ void bn_mean<double>(const double *, float *, int, int, int);\n"
        "template __global__ void bn_var<float>(const float *, const float *, float *, int, int, int);\n"
        "template __global__ void shoc_reduce<float, 256>(const float *, float *, const unsigned int);\n"
        "template __global__ void shoc_reduce<double, 256>(const double *, double *, const unsigned int);\n"
        "template __global__ void reduce6<256, false>(const float *, float *, unsigned int);\n";
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++)
        for (size_t l = 0; l < HK_ARRAY_LEN(lanes); l++) {
            int params[RW_MAX_PARAMS] = {lanes[l]};
            char *cand = emu_rewrite(kernels, applying[i], "ilp_accumulators", params);
            assert_non_null(strstr(cand, "hk_ilp1"));
            assert_true((strstr(cand, "hk_ilp7") != NULL) == (lanes[l] == 8));
            if (l == 0 || i == 1) {
                char tag[64], *full = malloc(strlen(cand) + sizeof inst);
                assert_non_null(full);
                snprintf(full, strlen(cand) + sizeof inst, "%s%s", cand, inst);
                snprintf(tag, sizeof tag, "ilp_%s_%d", applying[i], lanes[l]);
                rwf_nvcc_compiles(full, tag);
                free(full);
            }
            free(cand);
        }
}

/* What the emitted text holds: the partial sums in the accumulator's type (the declared
 * one behind an #ifdef when the declarations disagree: its own), the lanes' elements, the
 * remainder with the original's header, one combine in the sum's order; the description
 * says it reassociates; the launch is the kernel's own. */
static void emitted_shape(void **state)
{
    (void)state;
    char *c = emu_rewrite(kernels, "bn_mean", "ilp_accumulators", NULL);
    assert_non_null(strstr(c, "float hk_ilp0 = 0, hk_ilp1 = 0, hk_ilp2 = 0, hk_ilp3 = 0;"));
    assert_non_null(strstr(c, "int i = tid;\n"));
    assert_non_null(strstr(c, "for (; (long long)(i) + 3 * (long long)(blockDim.x) < (num * spatial); "
                              "i += 4 * blockDim.x) {"));
    assert_non_null(strstr(c, "int n = (i + 2 * blockDim.x) / spatial;"));
    assert_non_null(strstr(c, "hk_ilp3 += input[(n * channels + c) * spatial + s];"));
    assert_non_null(strstr(c, "for (; i < num * spatial; i += blockDim.x) {"));
    assert_non_null(strstr(c, "buffer[tid] += hk_ilp0 + hk_ilp1 + hk_ilp2 + hk_ilp3;"));
    free(c);
    c = emu_rewrite(kernels, "shoc_reduce", "ilp_accumulators", NULL);
    assert_non_null(strstr(c, "decltype(+(sdata[tid])) hk_ilp0 = 0"));
    assert_non_null(strstr(c, "hk_ilp1 += g_idata[(i + gridSize)] + g_idata[(i + gridSize) + blockSize];"));
    assert_non_null(strstr(c, "for (; i < n; i += gridSize) {"));
    free(c);
    c = emu_rewrite(kernels, "sumsq_double", "ilp_accumulators", NULL);
    assert_non_null(strstr(c, "double hk_ilp0 = 0"));
    assert_non_null(strstr(c, "hk_ilp2 = v * v + hk_ilp2;"));
    assert_non_null(strstr(c, "i += 4 * stride) {"));
    assert_non_null(strstr(c, "s = (hk_ilp0 + hk_ilp1 + hk_ilp2 + hk_ilp3) + s;"));
    free(c);
    c = emu_rewrite(kernels, "dot_fma", "ilp_accumulators", NULL);
    assert_non_null(strstr(c, "hk_ilp1 = fmaf(x[(i + (blockDim.x * gridDim.x))], y[(i + (blockDim.x * gridDim.x))], "
                              "hk_ilp1);"));
    free(c);
    c = emu_rewrite(kernels, "reduce6", "ilp_accumulators", NULL);
    assert_non_null(strstr(c, "if (nIsPow2 || (i + 3 * gridSize) + blockSize < n)\n"));
    assert_non_null(strstr(c, "hk_ilp3 += g_idata[(i + 3 * gridSize) + blockSize];"));
    assert_non_null(strstr(c, "mySum += hk_ilp0 + hk_ilp1 + hk_ilp2 + hk_ilp3;"));
    free(c);
    c = emu_rewrite(kernels, "two_loops", "ilp_accumulators", NULL);
    assert_non_null(strstr(c, "a += hk_ilp0 + hk_ilp1"));
    assert_non_null(strstr(c, "b += hk_ilp0 + hk_ilp1"));
    free(c);

    fixture fx;
    load_text(kernels, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "bn_var")};
    rw_result r;
    assert_int_equal(rw_apply_named("ilp_accumulators", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.description, "reassociates"));
    assert_true(r.keeps_launch);
    rw_result_free(&r);
    assert_non_null(strstr(rw_find("ilp_accumulators")->summary, "reassociates"));
    /* once is enough: its own partial sums are not split again */
    c = emu_rewrite(kernels, "bn_var", "ilp_accumulators", NULL);
    fixture fc;
    load_text(c, &fc);
    rw_context cc = {.text = fc.text, .len = fc.len, .m = fc.m, .kernel = kernel(&fc, "bn_var")};
    rw_refusal why;
    assert_int_equal(rw_applies(rw_find("ilp_accumulators"), &cc, NULL, &why), HK_OK);
    assert_non_null(strstr(why.reason, "partial sums of this rewrite already"));
    unload(&fc);
    free(c);
    unload(&fx);
}

static int call_ilp(const fixture *fx, size_t k, rw_result *r)
{
    return rw_ilp_accumulators(fx->text, fx->len, fx->m, k, 4, r);
}

/* Out of memory anywhere: HK_ENOMEM and nothing left allocated. */
static void survives_allocation_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "bn_var"), call_ilp);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "shoc_reduce"), call_ilp);
    unload(&fx);
}

static const char refused[] =
    "__device__ float f(float v) { return v * 2.0f; }\n"                          /* 1 */
    "__global__ void two_writes(const float *x, float *y, float *out, int n)\n"
    "{\n"
    "    float s = 0;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"                     /* 5 */
    "        s += x[i];\n"
    "        y[i] = 0.0f;\n"
    "    }\n"
    "    out[threadIdx.x] = s;\n"
    "}\n"                                                                            /* 10 */
    "__global__ void reads_acc(const float *x, float *out, int n)\n"
    "{\n"
    "    float s = 0;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"
    "        float t = x[i] * s;\n"                                                 /* 15 */
    "        s += t;\n"
    "    }\n"
    "    out[threadIdx.x] = s;\n"
    "}\n"
    "__global__ void self_add(const float *x, float *out, int n)\n"                /* 20 */
    "{\n"
    "    float s = 0;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        s += x[i] + s;\n"
    "    out[threadIdx.x] = s;\n"                                                   /* 25 */
    "}\n"
    "__global__ void stride_load(const float *x, const int *step, float *out, int n)\n"
    "{\n"
    "    float s = 0;\n"
    "    for (int i = threadIdx.x; i < n; i += step[0])\n"                          /* 30 */
    "        s += x[i];\n"
    "    out[threadIdx.x] = s;\n"
    "}\n"
    "__global__ void geometric(const float *x, float *out, int n)\n"
    "{\n"                                                                            /* 35 */
    "    float s = 0;\n"
    "    for (int i = threadIdx.x + 1; i < n; i *= 2)\n"
    "        s += x[i];\n"
    "    out[threadIdx.x] = s;\n"
    "}\n"                                                                            /* 40 */
    "__global__ void local_stride(const float *x, float *out, int n)\n"
    "{\n"
    "    float s = 0;\n"
    "    int i = threadIdx.x;\n"
    "    while (i < n) {\n"                                                         /* 45 */
    "        int st = blockDim.x + (i & 1);\n"
    "        s += x[i];\n"
    "        i += st;\n"
    "    }\n"
    "    out[threadIdx.x] = s;\n"                                                   /* 50 */
    "}\n"
    "__global__ void early_exit(const float *x, float *out, int n)\n"
    "{\n"
    "    float s = 0;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"                     /* 55 */
    "        s += x[i];\n"
    "        break;\n"
    "    }\n"
    "    out[threadIdx.x] = s;\n"
    "}\n"                                                                            /* 60 */
    "__global__ void atomics(const float *x, float *out, int n)\n"
    "{\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        atomicAdd(out, x[i]);\n"
    "}\n"                                                                            /* 65 */
    "__global__ void barrier(const float *x, float *out, int n)\n"
    "{\n"
    "    __shared__ float buf[256];\n"
    "    buf[threadIdx.x] = 0;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) {\n"                     /* 70 */
    "        buf[threadIdx.x] += x[i];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    out[threadIdx.x] = buf[threadIdx.x];\n"
    "}\n"                                                                            /* 75 */
    "__global__ void product(const float *x, float *out, int n)\n"
    "{\n"
    "    float s = 1;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        s *= x[i];\n"                                                          /* 80 */
    "    out[threadIdx.x] = s;\n"
    "}\n"
    "__global__ void device_call(const float *x, float *out, int n)\n"
    "{\n"
    "    float s = 0;\n"                                                            /* 85 */
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        s += f(x[i]);\n"
    "    out[threadIdx.x] = s;\n"
    "}\n"
    "__global__ void serial(const float *x, float *out, int n)\n"                  /* 90 */
    "{\n"
    "    float s = 0;\n"
    "    for (int k = 0; k < n; k++)\n"
    "        s += x[k];\n"
    "    out[threadIdx.x] = s;\n"                                                   /* 95 */
    "}\n"
    "__global__ void per_element(const float *x, float *y, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i] += x[i];\n"                                                       /* 100 */
    "}\n"
    "__global__ void branch(const float *x, float *out, int n)\n"
    "{\n"
    "    float s = 0;\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x)\n"                       /* 105 */
    "        if (x[i] > 0.0f) s += x[i]; else s -= x[i];\n"
    "    out[threadIdx.x] = s;\n"
    "}\n";

static const rwf_refusal refusals[] = {
    {"two_writes", "write", 7, "second write"},
    {"reads_acc", "accumulator", 15, "reads `s`"},
    {"self_add", "accumulator", 24, "to itself"},
    {"stride_load", "stride", 30, "reads memory"},
    {"geometric", "stride", 37, "not `i += stride`"},
    {"local_stride", "stride", 48, "a local of the body"},
    {"early_exit", "early exit", 57, "`break`"},
    {"atomics", "atomic", 64, "atomicAdd"},
    {"barrier", "barrier", 72, "__syncthreads"},
    {"product", "accumulator", 80, "not a sum"},
    {"device_call", "call", 87, "`f(...)`"},
    {"serial", "loop", 93, "strided over the threads"},
    {"per_element", "accumulator", 100, "moves with the counter"},
    {"branch", "condition", 106, "`else`"},
};

/* Each refuses through the registry with its construct and line, and the driver says the
 * same. */
static void refusals_name_construct_and_line(void **state)
{
    (void)state;
    rwf_expect_refusals(refused, "ilp_accumulators", refusals, HK_ARRAY_LEN(refusals));
}

/* Every applying kernel at 4 partial sums, and bn_var and shoc_reduce at 2 and 8, emulated
 * against its original. */
static void emulated_equal(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        static const int lanes[] = {4, 2, 8};
        for (size_t l = 0; l < HK_ARRAY_LEN(lanes); l++) {
            if (l > 0 && strcmp(applying[i], "bn_var") && strcmp(applying[i], "shoc_reduce"))
                continue;
            int params[RW_MAX_PARAMS] = {lanes[l]};
            char *cand = emu_rewrite(kernels, applying[i], "ilp_accumulators", params);
            char driver[200], tag[64];
            snprintf(driver, sizeof driver, "%s_case();", applying[i]);
            snprintf(tag, sizeof tag, "%s_%d", applying[i], lanes[l]);
            emulate(tag, kernels, cand, driver, EMU_OK);
            free(cand);
        }
    }
    emu_batch_run(&batch);
}

/* The check can fail: without the remainder loop, or with a lane left out of the combine,
 * the sums must differ. */
static void broken_differs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(kernels, "bn_mean", "ilp_accumulators", NULL);
    char *broken = emu_replaced(cand, "for (; i < num * spatial; i += blockDim.x) {",
                                "for (; i < 0; i += blockDim.x) {");
    emulate("broken_remainder", kernels, broken, "bn_mean_case();", EMU_DIFFERS);
    free(broken);
    free(cand);
    cand = emu_rewrite(kernels, "shoc_reduce", "ilp_accumulators", NULL);
    broken = emu_replaced(cand, " + hk_ilp3;", ";");
    emulate("broken_lane", kernels, broken, "shoc_reduce_case();", EMU_DIFFERS);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

/* A stride spelled through a function-like macro of the file (cuda-samples' UMUL) is the
 * stride the kernel model reads; a macro whose value reads memory is still refused. */
static void macro_stride(void **state)
{
    (void)state;
    static const char src[] =
        "#define UMUL(a, b) ((a) * (b))\n"
        "#define UMAD(a, b, c) (UMUL((a), (b)) + (c))\n"
        "#define STEP(p) ((p)[0])\n"
        "__global__ void msum(const float *x, float *out, unsigned n)\n"
        "{\n"
        "    float s = 0.0f;\n"
        "    for (unsigned i = UMAD(blockIdx.x, blockDim.x, threadIdx.x); i < n; i += UMUL(blockDim.x, gridDim.x))\n"
        "        s += x[i];\n"
        "    atomicAdd(out, s);\n"
        "}\n"
        "__global__ void mstep(const float *x, float *out, const unsigned *st, unsigned n)\n"
        "{\n"
        "    float s = 0.0f;\n"
        "    for (unsigned i = threadIdx.x; i < n; i += STEP(st))\n"
        "        s += x[i];\n"
        "    atomicAdd(out, s);\n"
        "}\n";
    const int p[RW_MAX_PARAMS] = {4, 0, 0};
    char *t = emu_rewrite(src, "msum", "ilp_accumulators", p);
    assert_non_null(strstr(t, "i += 4 * (UMUL(blockDim.x, gridDim.x))"));
    assert_non_null(strstr(t, "x[(i + (UMUL(blockDim.x, gridDim.x)))]"));
    free(t);
    static const rwf_refusal cases[] = {{"mstep", "stride", 14, "the stride `STEP(st)` reads memory or calls a function"}};
    rwf_expect_refusals(src, "ilp_accumulators", cases, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(applies_and_compiles),
        cmocka_unit_test(emitted_shape),
        cmocka_unit_test(survives_allocation_failures),
        cmocka_unit_test(refusals_name_construct_and_line),
        cmocka_unit_test(emulated_equal),
        cmocka_unit_test(broken_differs),
        cmocka_unit_test(macro_stride),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
