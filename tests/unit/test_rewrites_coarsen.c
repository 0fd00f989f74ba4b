/* coarsen (issue 13): the same elementwise computation, y = a * x + y, written as others
 * write it -- an if-guard, an early return, a grid-stride for, a loop macro (mmcv's
 * CUDA_1D_KERNEL_LOOP), temporaries over unsigned coordinates, a size_t index, a 2-D grid
 * flattened (Rodinia's nn), a per-element loop with a return inside it, pointers moved in a
 * grid-stride loop (mmcv's gather_points), a block-stride loop per channel with a store by
 * thread 0 after it (mmcv's SyncBN output); the guarded ones go on a grid-stride loop
 * first, the others take virtual blocks -- must apply at 2, 4 and 8 elements per thread,
 * compile with nvcc and, in the block emulator (emu_block.h), leave exactly the original's
 * memory under the grid divided by K (the launch kept for the block-stride loop), at sizes
 * that are zero, smaller than a block and not multiples of K or of the block. A kernel
 * without a bounds check applies only with a spec whose grid K divides. Kernels it must
 * refuse name the construct and line. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "spec/spec.h"

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
    return rwf_setup("rewrites-coarsen");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char kernels[] =
    "#define KERNEL_LOOP(i, n) \\\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "__global__ void axpy_if(const float *x, float *y, float a, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        y[i] = a * x[i] + y[i];\n"
    "    }\n"
    "}\n"
    "__global__ void axpy_return(const float *x, float *y, float a, int n)\n"
    "{\n"
    "    const int i = threadIdx.x + blockDim.x * blockIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    y[i] = a * x[i] + y[i];\n"
    "}\n"
    "__global__ void axpy_grid_stride(const float *x, float *y, float a, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n"
    "__global__ void axpy_macro(const float *x, float *y, float a, int n)\n"
    "{\n"
    "    KERNEL_LOOP(index, n) {\n"
    "        if (x[index] == 0.0f)\n"
    "            continue;\n"
    "        y[index] = a * x[index] + y[index];\n"
    "    }\n"
    "}\n"
    "__global__ void axpy_temps(const float *x, float *y, float a, unsigned int n)\n"
    "{\n"
    "    unsigned int tid = threadIdx.x;\n"
    "    unsigned int bid = blockIdx.x;\n"
    "    unsigned int i = bid * blockDim.x + tid;\n"
    "    if (i < n) {\n"
    "        float xv = x[i];\n"
    "        float yv = y[i];\n"
    "        y[i] = a * xv + yv;\n"
    "    }\n"
    "}\n"
    "__global__ void axpy_size_t(const float *x, float *y, float a, size_t n)\n"
    "{\n"
    "    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n"
    "struct pt { float lat, lng; };\n"
    "__global__ void dist_2d(const pt *p, float *d, int n, float lat, float lng)\n"
    "{\n"
    "    int g = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;\n"
    "    const pt *q = p + g;\n"
    "    if (g < n) {\n"
    "        float *o = d + g;\n"
    "        *o = sqrtf((lat - q->lat) * (lat - q->lat) + (lng - q->lng) * (lng - q->lng));\n"
    "    }\n"
    "}\n"
    "__global__ void clamp3(const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    float s = 0.0f;\n"
    "    for (int k = 0; k < 3; k++) {\n"
    "        if (x[3 * i + k] < -9.0f)\n"
    "            return;\n"
    "        s += x[3 * i + k];\n"
    "    }\n"
    "    y[i] = s;\n"
    "}\n"
    "template <typename T>\n"
    "__global__ void gather(int b, int c, int n, int m, const T *points, const int *idx, T *out)\n"
    "{\n"
    "    int bs = blockIdx.z;\n"
    "    int ci = blockIdx.y;\n"
    "    KERNEL_LOOP(pt, m) {\n"
    "        if (bs >= b || ci >= c) return;\n"
    "        out += bs * c * m + ci * m + pt;\n"
    "        idx += bs * m + pt;\n"
    "        points += bs * c * n + ci * n;\n"
    "        out[0] = points[idx[0]];\n"
    "    }\n"
    "}\n"
    "__global__ void bn_output(const float *in, const float *mean, float *out, float *stdv, int num, int ch, int sp)\n"
    "{\n"
    "    int tid = threadIdx.x;\n"
    "    int c = blockIdx.x;\n"
    "    float mv = mean[c];\n"
    "    for (int i = tid; i < num * sp; i += blockDim.x) {\n"
    "        int index = (i / sp) * ch * sp + c * sp + i % sp;\n"
    "        out[index] = (in[index] - mv) * 0.5f;\n"
    "    }\n"
    "    if (tid == 0)\n"
    "        stdv[c] = mv * 2.0f;\n"
    "}\n";

static const char *const applying[] = {"axpy_if", "axpy_return", "axpy_grid_stride", "axpy_macro", "axpy_temps",
                                       "axpy_size_t", "dist_2d", "clamp3", "gather", "bn_output"};

/* One case per kernel: the original under its grid, the rewrite under that grid divided by
 * K (rounded up) along x, on several sizes and two blocks. */
static const char helpers[] =
    "static int K = 4;\n"
    "static unsigned div_up(unsigned a, unsigned b) { return (a + b - 1) / b; }\n"
    "#define AXPY_CASE(name, T)                                                              \\\n"
    "    static void name##_case(void)                                                      \\\n"
    "    {                                                                                  \\\n"
    "        static const int sizes[] = {0, 1, 37, 1000, 4099};                            \\\n"
    "        for (int z = 0; z < 5; z++)                                                   \\\n"
    "            for (int bl = 0; bl < 2; bl++) {                                          \\\n"
    "                emu::schedule = (z + bl) % 3;                                          \\\n"
    "                const int n = sizes[z];                                               \\\n"
    "                const unsigned b = bl ? 64 : 32, g = n ? div_up(n, b) : 1;            \\\n"
    "                emu::buf<float> x(n + 1), yo(n + 1), yc(n + 1);                        \\\n"
    "                x.fill(z + 1);                                                        \\\n"
    "                yo.fill(z + 2);                                                       \\\n"
    "                yc.fill(z + 2);                                                       \\\n"
    "                emu::launch(dim3(g), dim3(b), 0, [&] { orig::name(x, yo, 1.5f, (T)n); }); \\\n"
    "                emu::launch(dim3(div_up(g, K)), dim3(b), 0, [&] { cand::name(x, yc, 1.5f, (T)n); }); \\\n"
    "                emu::expect(#name, yo, yc);                                           \\\n"
    "            }                                                                          \\\n"
    "    }\n"
    "AXPY_CASE(axpy_if, int)\n"
    "AXPY_CASE(axpy_return, int)\n"
    "AXPY_CASE(axpy_grid_stride, int)\n"
    "AXPY_CASE(axpy_macro, int)\n"
    "AXPY_CASE(axpy_temps, unsigned int)\n"
    "AXPY_CASE(axpy_size_t, size_t)\n"
    "static void dist_2d_case(void)\n"
    "{\n"
    "    static const int sizes[] = {0, 5, 300, 1001};\n"
    "    for (int z = 0; z < 4; z++) {\n"
    "        emu::schedule = z % 3;\n"
    "        const int n = sizes[z];\n"
    "        /* at most 3 blocks along x, the rest along y, as Rodinia splits past 65535 */\n"
    "        const unsigned b = 32, blocks = n ? div_up(n, b) : 1, gx = blocks < 3 ? blocks : 3;\n"
    "        const dim3 g(gx, div_up(blocks, gx)), gc(div_up(gx, K), div_up(blocks, gx));\n"
    "        emu::buf<float> p(2 * n + 2), dof(n + 1), dc(n + 1);\n"
    "        p.fill(z + 3);\n"
    "        dof.set(-1.0f);\n"
    "        dc.set(-1.0f);\n"
    "        emu::launch(g, dim3(b), 0, [&] { orig::dist_2d((orig::pt *)p.ptr(), dof, n, 1.0f, 2.0f); });\n"
    "        emu::launch(gc, dim3(b), 0, [&] { cand::dist_2d((cand::pt *)p.ptr(), dc, n, 1.0f, 2.0f); });\n"
    "        emu::expect(\"dist_2d\", dof, dc);\n"
    "    }\n"
    "}\n"
    "static void clamp3_case(void)\n"
    "{\n"
    "    static const int sizes[] = {0, 3, 100, 1001};\n"
    "    for (int z = 0; z < 4; z++) {\n"
    "        emu::schedule = z % 3;\n"
    "        const int n = sizes[z];\n"
    "        const unsigned b = 32, g = n ? div_up(n, b) : 1;\n"
    "        emu::buf<float> x(3 * n + 3), yo(n + 1), yc(n + 1);\n"
    "        x.fill(z + 4);\n"
    "        yo.set(7.0f);\n"
    "        yc.set(7.0f);\n"
    "        emu::launch(dim3(g), dim3(b), 0, [&] { orig::clamp3(x, yo, n); });\n"
    "        emu::launch(dim3(div_up(g, K)), dim3(b), 0, [&] { cand::clamp3(x, yc, n); });\n"
    "        emu::expect(\"clamp3\", yo, yc);\n"
    "    }\n"
    "}\n"
    "static void gather_case(void)\n"
    "{\n"
    "    static const int sz[][4] = {{1, 1, 5, 1}, {2, 3, 50, 37}, {2, 2, 300, 200}};\n"
    "    for (int z = 0; z < 3; z++) {\n"
    "        emu::schedule = z % 3;\n"
    "        const int b = sz[z][0], c = sz[z][1], n = sz[z][2], m = sz[z][3];\n"
    "        /* one trip per thread in the original, as mmcv launches it; one more block\n"
    "         * along y and z than the sizes: the early return must leave them out */\n"
    "        const unsigned bl = 32, gx = div_up(m, bl);\n"
    "        const dim3 g(gx, c + 1, b + 1), gc(div_up(gx, K), c + 1, b + 1);\n"
    "        emu::buf<float> pts((size_t)b * c * n), oo((size_t)b * c * m), oc((size_t)b * c * m);\n"
    "        emu::buf<int> idx((size_t)b * m);\n"
    "        pts.fill(z + 5);\n"
    "        idx.fill_mod(z + 6, n);\n"
    "        oo.set(-3.0f);\n"
    "        oc.set(-3.0f);\n"
    "        emu::launch(g, dim3(bl), 0, [&] { orig::gather<float>(b, c, n, m, pts, idx, oo); });\n"
    "        emu::launch(gc, dim3(bl), 0, [&] { cand::gather<float>(b, c, n, m, pts, idx, oc); });\n"
    "        emu::expect(\"gather\", oo, oc);\n"
    "    }\n"
    "}\n"
    "static void bn_output_case(void)\n"
    "{\n"
    "    static const int sz[][3] = {{1, 1, 1}, {1, 2, 7}, {3, 4, 37}, {2, 2, 1001}};\n"
    "    for (int z = 0; z < 4; z++) {\n"
    "        emu::schedule = z % 3;\n"
    "        const int num = sz[z][0], ch = sz[z][1], sp = sz[z][2];\n"
    "        const size_t total = (size_t)num * ch * sp;\n"
    "        emu::buf<float> in(total), mean(ch), oo(total), oc(total), so(ch), sc(ch);\n"
    "        in.fill(z + 1);\n"
    "        mean.fill(z + 2);\n"
    "        emu::launch(dim3(ch), dim3(64), 0, [&] { orig::bn_output(in, mean, oo, so, num, ch, sp); });\n"
    "        emu::launch(dim3(ch), dim3(64), 0, [&] { cand::bn_output(in, mean, oc, sc, num, ch, sp); });\n"
    "        emu::expect(\"bn_output\", oo, oc);\n"
    "        emu::expect(\"bn_output std\", so, sc);\n"
    "    }\n"
    "}\n";

/* The running test's emulated programs (emu_batch.h): queued by emulate(), built together
 * and checked, each on its own, by emu_batch_run at the test's end. */
static emu_batch batch;
#define emulate(tag, src, cand, driver, want) emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, want)

static const char inst[] = "\ntemplate __global__ void gather<float>(int, int, int, int, const float *, const int *, float *);\n";

/* Each kernel applies at 4 (the default), 2 and 8 elements; every default text compiles
 * (nvcc), and the result asks for the grid divided by K unless the loop strides over the
 * block. */
static void applies_and_compiles(void **state)
{
    (void)state;
    static const int ks[] = {0, 2, 8};
    fixture fx;
    load_text(kernels, &fx);
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++)
        for (size_t l = 0; l < HK_ARRAY_LEN(ks); l++) {
            int params[RW_MAX_PARAMS] = {ks[l]};
            rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, applying[i])};
            rw_result r;
            assert_int_equal(rw_apply_named("coarsen", &ctx, params, &r, NULL), HK_OK);
            if (!r.applicable)
                print_message("%s: %s\n", applying[i], r.description);
            assert_true(r.applicable);
            bool block_stride = !strcmp(applying[i], "bn_output");
            assert_int_equal(r.grid_divisor, block_stride ? 0 : (ks[l] ? ks[l] : 4));
            assert_int_equal(r.grid_axis, 0);
            assert_non_null(strstr(r.text, "#pragma unroll"));
            if (l == 0) {
                rwf_nvcc_compiles_with(&r, inst, "coarsen", applying[i]);
            }
            rw_result_free(&r);
        }
    unload(&fx);
}

/* The shapes: one element per thread under a bounds check on a grid-stride loop first;
 * virtual blocks for the others (blockIdx.x and gridDim.x renamed, a return a continue, or
 * a jump out of an inner loop); the loop's own for a strided loop
 * (the macro's header written out, a trip whose copies are all in range without checks
 * between them, moved pointers reset in each copy, a continue kept). */
static void emitted_shape(void **state)
{
    (void)state;
    char *c = emu_rewrite(kernels, "axpy_return", "coarsen", NULL);
    assert_non_null(strstr(c, "for (long long hk_co_i = threadIdx.x + blockDim.x * blockIdx.x; hk_co_i < (n); "));
    assert_non_null(strstr(c, "                int i = (int)hk_co_e;"));
    assert_null(strstr(c, "hk_co_bx"));
    free(c);
    c = emu_rewrite(kernels, "dist_2d", "coarsen", NULL);
    assert_non_null(strstr(c, "const unsigned int hk_co_bx = blockIdx.x * 4u + hk_co_c;"));
    assert_non_null(strstr(c, "blockDim.x * ((gridDim.x * 4u) * blockIdx.y + hk_co_bx)"));
    free(c);
    c = emu_rewrite(kernels, "clamp3", "coarsen", NULL);
    assert_non_null(strstr(c, "if (i >= n) continue;"));
    assert_non_null(strstr(c, "goto hk_co_next;"));
    assert_non_null(strstr(c, "hk_co_next: ;"));
    free(c);
    c = emu_rewrite(kernels, "axpy_grid_stride", "coarsen", NULL);
    assert_non_null(strstr(c, "if (hk_co_i + (long long)3 * (blockDim.x * gridDim.x) < (n)) {"));
    assert_non_null(strstr(c, "if (!(hk_co_e < (n)))\n                    continue;"));
    free(c);
    c = emu_rewrite(kernels, "axpy_macro", "coarsen", NULL);
    assert_null(strstr(c, "KERNEL_LOOP(index"));
    assert_non_null(strstr(c, "int index = (int)hk_co_e;"));
    assert_non_null(strstr(c, "continue;"));
    free(c);
    c = emu_rewrite(kernels, "gather", "coarsen", NULL);
    assert_non_null(strstr(c, "decltype(out) const hk_co_entry_out = out;"));
    assert_non_null(strstr(c, "out = hk_co_entry_out;"));
    assert_non_null(strstr(c, "idx = hk_co_entry_idx;"));
    assert_non_null(strstr(c, "if (bs >= b || ci >= c) continue;"));
    free(c);
    c = emu_rewrite(kernels, "axpy_size_t", "coarsen", NULL);
    assert_non_null(strstr(c, "for (unsigned long long hk_co_i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;"));
    free(c);
    c = emu_rewrite(kernels, "axpy_grid_stride", "coarsen", NULL);
    assert_non_null(strstr(c, "for (long long hk_co_i = blockIdx.x * blockDim.x + threadIdx.x; hk_co_i < (n); "
                              "hk_co_i += (long long)4 * (blockDim.x * gridDim.x))"));
    free(c);
}

static int call_coarsen(const fixture *fx, size_t k, rw_result *r)
{
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k};
    return rw_apply_named("coarsen", &ctx, NULL, r, NULL);
}

/* Out of memory anywhere: HK_ENOMEM and nothing left allocated. */
static void survives_allocation_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "gather"), call_coarsen);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "clamp3"), call_coarsen);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "axpy_if"), call_coarsen);
    unload(&fx);
}

static const char refused[] =
    "__device__ int block_base(void) { return blockIdx.x * blockDim.x; }\n"          /* 1 */
    "__global__ void barrier(const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = x[i];\n"                                                     /* 5 */
    "    __syncthreads();\n"
    "}\n"
    "__global__ void shared_tile(const float *x, float *y, int n)\n"
    "{\n"
    "    __shared__ float t[256];\n"                                                    /* 10 */
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) { t[threadIdx.x] = x[i]; y[i] = t[threadIdx.x]; }\n"
    "}\n"
    "__global__ void shuffle(const float *x, float *y, int n)\n"
    "{\n"                                                                               /* 15 */
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = __shfl_down_sync(0xffffffffu, x[i], 1);\n"
    "}\n"
    "__global__ void compact(const float *x, float *y, int *count, int n)\n"
    "{\n"                                                                               /* 20 */
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n && x[i] > 0.0f) { int slot = atomicAdd(count, 1); y[slot] = x[i]; }\n"
    "}\n"
    "__global__ void neighbour(float *y, int n)\n"
    "{\n"                                                                               /* 25 */
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i + 1 < n) y[i] = y[i + 1] * 0.5f;\n"
    "}\n"
    "__global__ void leaves_loop(const float *x, float *y, int n)\n"
    "{\n"                                                                               /* 30 */
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        if (x[i] < 0.0f) break;\n"
    "        y[i] = x[i];\n"
    "    }\n"
    "}\n"                                                                               /* 35 */
    "__global__ void helper(const float *x, float *y, int n)\n"
    "{\n"
    "    int i = block_base() + threadIdx.x;\n"
    "    y[i] = x[i] + (float)n;\n"
    "}\n"                                                                               /* 40 */
    "__global__ void sum_all(const float *x, float *out, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        out[0] += x[i];\n"
    "}\n"                                                                               /* 45 */
    "__global__ void unguarded(const float *x, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    y[i] = 2.0f * x[i];\n"
    "}\n"                                                                               /* 50 */
    "__global__ void moves_index(const float *x, float *y, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        y[i] = x[i];\n"
    "        i += 1;\n"                                                                 /* 55 */
    "    }\n"
    "}\n"
    "__global__ void flag_after(const float *x, float *y, int *flag, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n" /* 60 */
    "        y[i] = x[i];\n"
    "    if (threadIdx.x == 0) flag[blockIdx.x] = 1;\n"
    "}\n"
    "__global__ void bound_call(const float *x, float *y, int n)\n"
    "{\n"                                                                               /* 65 */
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < block_base() + n; i += blockDim.x * gridDim.x)\n"
    "        y[i] = x[i];\n"
    "}\n"
    "__global__ void return_then_loop(const float *x, float *y, float *z, int n)\n"
    "{\n"                                                                               /* 70 */
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        if (n > 100000) return;\n"
    "        y[i] = x[i];\n"
    "    }\n"
    "    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += blockDim.x * gridDim.x)\n" /* 75 */
    "        z[j] = x[j];\n"
    "}\n"
    "__global__ void return_element(const float *x, float *y, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n" /* 80 */
    "        if ((x[i] < 0.0f)) return;\n"
    "        y[i] = x[i];\n"
    "    }\n"
    "}\n"
    "__global__ void block_exit_divided(const float *x, float *y, float *z, int n)\n"  /* 85 */
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        y[i] = x[i];\n"
    "    for (int j = threadIdx.x; j < n; j += blockDim.x) {\n"
    "        if (x[j] < 0.0f) return;\n"                                               /* 90 */
    "        z[j] = x[j];\n"
    "    }\n"
    "}\n";

static const rwf_refusal refusals[] = {
    {"barrier", "__syncthreads", 6, "barrier"},
    {"shared_tile", "__shared__", 10, "shared memory"},
    {"shuffle", "warp intrinsic", 17, "between lanes"},
    {"compact", "atomic", 22, "old value is used"},
    {"neighbour", "access", 27, "other than the one written"},
    {"leaves_loop", "break", 32, "leaves the loop"},
    {"helper", "call", 38, "block_base reads blockIdx"},
    {"sum_all", "store", 44, "does not come from threadIdx.x"},
    {"unguarded", "access", 49, "no bench spec"},
    {"moves_index", "loop index", 55, "changes the loop's index"},
    {"flag_after", "store", 62, "outside the loop"},
    {"bound_call", "loop", 66, "`block_base`"},
    {"return_then_loop", "return", 72, "code after the loop (line 75)"},
    {"return_element", "return", 81, "may differ between the elements"},
    {"block_exit_divided", "return", 90, "another divides the grid"},
};

/* Each refuses through the registry with its construct and line. */
static void refusals_name_construct_and_line(void **state)
{
    (void)state;
    rwf_expect_refusals(refused, "coarsen", refusals, HK_ARRAY_LEN(refusals));
}

/* A kernel without a bounds check applies only under a spec whose grid K divides at every
 * size (SHOC's Triad: n / 128 blocks of 2^k elements), and refuses with the grid that it
 * does not. */
static void unguarded_needs_divisible_grid(void **state)
{
    (void)state;
    static const char src[] = "__global__ void triad(const float *A, const float *B, float *C, float s)\n"
                              "{\n"
                              "    int gid = threadIdx.x + (blockIdx.x * blockDim.x);\n"
                              "    C[gid] = A[gid] + s * B[gid];\n"
                              "}\n";
    static const char *const specs[] = {
        "{\"name\": \"t\", \"source\": \"triad.cu\", \"kernel\": \"triad\", \"sizes\": [{\"n\": 4096}, {\"n\": 1048576}],"
        " \"args\": [{\"name\": \"A\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},"
        " {\"name\": \"B\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},"
        " {\"name\": \"C\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"n\"},"
        " {\"name\": \"s\", \"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 1.75}],"
        " \"launch\": {\"grid\": \"n / block_x\", \"block\": 128}}",
        "{\"name\": \"t\", \"source\": \"triad.cu\", \"kernel\": \"triad\", \"sizes\": [{\"n\": 4096}, {\"n\": 1280}],"
        " \"args\": [{\"name\": \"A\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},"
        " {\"name\": \"B\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},"
        " {\"name\": \"C\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"n\"},"
        " {\"name\": \"s\", \"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 1.75}],"
        " \"launch\": {\"grid\": \"n / block_x\", \"block\": 128}}",
    };
    fixture fx;
    load_text(src, &fx);
    for (size_t i = 0; i < HK_ARRAY_LEN(specs); i++) {
        spec *sp = NULL;
        spec_diags diags = {0};
        int rc = spec_parse(specs[i], strlen(specs[i]), NULL, &sp, &diags);
        if (rc)
            for (size_t d = 0; d < diags.n; d++)
                print_message("spec: %s: %s\n", diags.items[d].path, diags.items[d].message);
        assert_int_equal(rc, HK_OK);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "triad"), .spec = sp};
        rw_result r;
        assert_int_equal(rw_apply_named("coarsen", &ctx, NULL, &r, NULL), HK_OK);
        if (i == 0) {
            assert_true(r.applicable);
            assert_int_equal(r.grid_divisor, 4);
            assert_non_null(strstr(r.description, "no bounds check"));
        } else {
            assert_false(r.applicable);
            assert_non_null(strstr(r.description, "10 blocks at size set 2"));
        }
        rw_result_free(&r);
        spec_diags_free(&diags);
        spec_free(sp);
    }
    unload(&fx);
}

/* Every applying kernel at 4 elements, and axpy_if, axpy_macro, clamp3 and gather at 2
 * and 8, emulated against its original. */
static void emulated_equal(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        static const int ks[] = {4, 2, 8};
        for (size_t l = 0; l < HK_ARRAY_LEN(ks); l++) {
            if (l > 0 && strcmp(applying[i], "axpy_if") && strcmp(applying[i], "axpy_macro") &&
                strcmp(applying[i], "clamp3") && strcmp(applying[i], "gather"))
                continue;
            int params[RW_MAX_PARAMS] = {ks[l]};
            char *cand = emu_rewrite(kernels, applying[i], "coarsen", params);
            char driver[200], tag[64];
            snprintf(driver, sizeof driver, "K = %d; %s_case();", ks[l], applying[i]);
            snprintf(tag, sizeof tag, "%s_%d", applying[i], ks[l]);
            emulate(tag, kernels, cand, driver, EMU_OK);
            free(cand);
        }
    }
    emu_batch_run(&batch);
}

/* The check can fail: virtual blocks that all take the first, copies that take one element
 * twice, a pointer not reset between copies: each must differ. */
static void broken_differs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(kernels, "dist_2d", "coarsen", NULL);
    char *broken = emu_replaced(cand, "blockIdx.x * 4u + hk_co_c", "blockIdx.x * 4u");
    emulate("broken_blocks", kernels, broken, "dist_2d_case();", EMU_DIFFERS);
    free(broken);
    free(cand);
    cand = emu_rewrite(kernels, "axpy_grid_stride", "coarsen", NULL);
    broken = emu_replaced(cand, "hk_co_i + (long long)hk_co_c *", "hk_co_i + (long long)(hk_co_c / 2) *");
    emulate("broken_trip", kernels, broken, "axpy_grid_stride_case();", EMU_DIFFERS);
    free(broken);
    free(cand);
    cand = emu_rewrite(kernels, "gather", "coarsen", NULL);
    broken = emu_replaced(cand, "out = hk_co_entry_out;", ";");
    /* out then runs past its buffer from the second copy on: a wrong value or a crash */
    emu_program p = {.dir = tmpdir, .tag = "broken_reset", .orig = kernels, .orig_len = strlen(kernels),
                     .cand = broken, .cand_len = strlen(broken), .helpers = helpers, .driver = "gather_case();"};
    static char log[16384];
    int got = emu_run(&p, log, sizeof log);
    assert_true(got == EMU_DIFFERS || got == EMU_CRASHED);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

/* A loop macro defined twice (a header inlined twice under its include guard, as mmcv's
 * extracts are) applies when both definitions spell the same tokens, whatever their
 * spacing; two that differ leave which one the kernel sees to #if: refused. */
static void macro_defined_twice(void **state)
{
    (void)state;
    static const char same[] =
        "#ifndef HELPER\n"
        "#define HELPER\n"
        "#define LOOP(i, n) \\\n"
        "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
        "#endif\n"
        "#ifndef HELPER\n"
        "#define HELPER\n"
        "#define LOOP(i, n)   \\\n"
        "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); \\\n"
        "       i += blockDim.x * gridDim.x)\n"
        "#endif\n"
        "__global__ void scale(const float *x, float *y, int n)\n"
        "{\n"
        "    LOOP(k, n) { y[k] = 2.0f * x[k]; }\n"
        "}\n";
    char *c = emu_rewrite(same, "scale", "coarsen", NULL);
    assert_non_null(strstr(c, "int k = (int)hk_co_e;"));
    free(c);
    char differ[sizeof same + 8];
    snprintf(differ, sizeof differ, "%s", same);
    char *second = strstr(strstr(differ, "#define LOOP") + 1, "#define LOOP");
    assert_non_null(second);
    char *stride = strstr(second, "i < (n)");
    memcpy(stride, "i <=(n)", 7);
    fixture fx;
    load_text(differ, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "scale")};
    rw_result r;
    assert_int_equal(rw_apply_named("coarsen", &ctx, NULL, &r, NULL), HK_OK);
    if (r.applicable || !strstr(r.description, "not one #define"))
        print_message("%s\n", r.description);
    assert_false(r.applicable);
    assert_non_null(strstr(r.description, "not one #define"));
    rw_result_free(&r);
    unload(&fx);
}


/* Early exits per element (issue 13: mmcv's assign_score_withk returns from its
 * CUDA_1D_KERNEL_LOOP when a neighbour index is out of range). In a grid-stride loop the
 * return ends the thread: its later elements are left as they were. Under the grid divided
 * by K each copy is one of the original's threads, so a flag per copy follows it: exact
 * when K divides the spec's grid, refused otherwise. In a block-stride loop (the launch
 * kept) the return stays a return, and code after the loop may follow. */
static const char exits[] =
    "__global__ void pick_until(const float *x, const int *sel, float *y, int n, int lim)\n"   /* 1 */
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        const int s = sel[i];\n"
    "        if (s >= lim)\n"                                                                      /* 5 */
    "            return;\n"
    "        y[i] = 2.0f * x[s] + y[i];\n"
    "    }\n"
    "}\n"
    "__global__ void rows_until(const float *x, float *y, int n, int w)\n"                       /* 10 */
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        float t = 0.0f;\n"
    "        for (int k = 0; k < w; k++) {\n"
    "            if (x[i * w + k] > 29.5f)\n"                                                     /* 15 */
    "                return;\n"
    "            t += x[i * w + k];\n"
    "        }\n"
    "        y[i] = t;\n"
    "    }\n"                                                                                     /* 20 */
    "}\n"
    "__global__ void channel_until(const float *x, float *y, float *done, int sp)\n"
    "{\n"
    "    const int c = blockIdx.x;\n"
    "    for (int i = threadIdx.x; i < sp; i += blockDim.x) {\n"                                 /* 25 */
    "        if (x[c * sp + i] > 35.5f)\n"
    "            return;\n"
    "        y[c * sp + i] = 3.0f * x[c * sp + i];\n"
    "    }\n"
    "    if (threadIdx.x == 0)\n"                                                                 /* 30 */
    "        done[c] = 1.0f;\n"
    "}\n";

/* The grid-stride kernels under a capped grid (several elements per thread, so a return
 * leaves later ones), at ragged sizes, the rewrite under the grid divided by K. */
static const char exits_helpers[] =
    "static int K = 4;\n"
    "static unsigned div_up(unsigned a, unsigned b) { return (a + b - 1) / b; }\n"
    "static void pick_until_case(void)\n"
    "{\n"
    "    static const int sizes[] = {0, 1, 37, 1000, 4099};\n"
    "    for (int z = 0; z < 5; z++)\n"
    "        for (int gm = 1; gm <= 3; gm++) {\n"
    "            emu::schedule = (z + gm) % 3;\n"
    "            const int n = sizes[z];\n"
    "            const unsigned b = 32, g = K * gm;   /* the spec's grid: K divides it */\n"
    "            emu::buf<float> x(64), yo(n + 1), yc(n + 1);\n"
    "            emu::buf<int> sel(n + 1);\n"
    "            x.fill(z + 1);\n"
    "            sel.fill_mod(z + 2, 43);\n"
    "            yo.fill(z + 3);\n"
    "            yc.fill(z + 3);\n"
    "            emu::launch(dim3(g), dim3(b), 0, [&] { orig::pick_until(x, sel, yo, n, 40); });\n"
    "            emu::launch(dim3(g / K), dim3(b), 0, [&] { cand::pick_until(x, sel, yc, n, 40); });\n"
    "            emu::expect(\"pick_until\", yo, yc);\n"
    "        }\n"
    "}\n"
    "static void rows_until_case(void)\n"
    "{\n"
    "    static const int sizes[] = {0, 3, 100, 1001};\n"
    "    for (int z = 0; z < 4; z++) {\n"
    "        emu::schedule = z % 3;\n"
    "        const int n = sizes[z], w = 3;\n"
    "        const unsigned b = 32, g = 2 * K;\n"
    "        emu::buf<float> x(w * n + w), yo(n + 1), yc(n + 1);\n"
    "        x.fill_mod(z + 4, 31);\n"
    "        yo.set(7.0f);\n"
    "        yc.set(7.0f);\n"
    "        emu::launch(dim3(g), dim3(b), 0, [&] { orig::rows_until(x, yo, n, w); });\n"
    "        emu::launch(dim3(g / K), dim3(b), 0, [&] { cand::rows_until(x, yc, n, w); });\n"
    "        emu::expect(\"rows_until\", yo, yc);\n"
    "    }\n"
    "}\n"
    "static void channel_until_case(void)\n"
    "{\n"
    "    static const int sz[][2] = {{1, 1}, {2, 7}, {4, 37}, {3, 1001}};\n"
    "    for (int z = 0; z < 4; z++) {\n"
    "        emu::schedule = z % 3;\n"
    "        const int ch = sz[z][0], sp = sz[z][1];\n"
    "        emu::buf<float> x((size_t)ch * sp), yo((size_t)ch * sp), yc((size_t)ch * sp), dz(ch), dc(ch);\n"
    "        x.fill_mod(z + 5, 37);\n"
    "        yo.set(-1.0f);\n"
    "        yc.set(-1.0f);\n"
    "        emu::launch(dim3(ch), dim3(64), 0, [&] { orig::channel_until(x, yo, dz, sp); });\n"
    "        emu::launch(dim3(ch), dim3(64), 0, [&] { cand::channel_until(x, yc, dc, sp); });\n"
    "        emu::expect(\"channel_until\", yo, yc);\n"
    "        emu::expect(\"channel_until done\", dz, dc);\n"
    "    }\n"
    "}\n";

/* A spec for the grid-stride kernels of exits: n elements under grid (the x count). */
static spec *exits_spec(const char *kname, const char *grid, int n1, int n2)
{
    char js[1200];
    bool rows = !strcmp(kname, "rows_until");
    snprintf(js, sizeof js,
             "{\"name\": \"e\", \"source\": \"e.cu\", \"kernel\": \"%s\", \"sizes\": [{\"n\": %d}, {\"n\": %d}],"
             " \"args\": [{\"name\": \"x\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"%s\"},"
             "%s"
             " {\"name\": \"y\", \"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"n\"},"
             " {\"name\": \"n\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},"
             " {\"name\": \"%s\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": %d}],"
             " \"launch\": {\"grid\": \"%s\", \"block\": 32}}",
             kname, n1, n2, rows ? "3 * n" : "64",
             rows ? "" : " {\"name\": \"sel\", \"kind\": \"input\", \"dtype\": \"int\", \"count\": \"n\"},",
             rows ? "w" : "lim", rows ? 3 : 40, grid);
    spec *sp = NULL;
    spec_diags diags = {0};
    int rc = spec_parse(js, strlen(js), NULL, &sp, &diags);
    for (size_t d = 0; rc && d < diags.n; d++)
        print_message("spec: %s: %s\n", diags.items[d].path, diags.items[d].message);
    assert_int_equal(rc, HK_OK);
    spec_diags_free(&diags);
    return sp;
}

/* coarsen of kname in exits at K under sp (NULL: none): the result, applicable or not. */
static void exits_coarsen(const char *kname, int K, const spec *sp, rw_result *r)
{
    fixture fx;
    load_text(exits, &fx);
    int params[RW_MAX_PARAMS] = {K};
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname), .spec = sp};
    assert_int_equal(rw_apply_named("coarsen", &ctx, params, r, NULL), HK_OK);
    unload(&fx);
}

/* The new text of an applicable coarsen of kname at K (malloc'd). */
static char *exits_text(const char *kname, int K, const char *grid)
{
    spec *sp = strcmp(kname, "channel_until") ? exits_spec(kname, grid, 1000, 4099) : NULL;
    rw_result r;
    exits_coarsen(kname, K, sp, &r);
    if (!r.applicable)
        print_message("%s: %s\n", kname, r.description);
    assert_true(r.applicable);
    char *t = strdup(r.text);
    assert_non_null(t);
    rw_result_free(&r);
    spec_free(sp);
    return t;
}

/* The grid-stride ones apply with a flag per copy under a spec whose grid K divides at
 * every size (a grid capped at 8 blocks), and refuse, naming the grid, under one that K
 * does not divide, or with no spec; the block-stride one keeps its return and needs none.
 * Every text compiles (nvcc). */
static void early_exit_per_element(void **state)
{
    (void)state;
    static const int ks[] = {2, 4, 8};
    for (size_t l = 0; l < HK_ARRAY_LEN(ks); l++) {
        static const char *const names[] = {"pick_until", "rows_until"};
        for (size_t i = 0; i < HK_ARRAY_LEN(names); i++) {
            spec *sp = exits_spec(names[i], "min(ceil_div(n, block_x), 8)", 1000, 4099);
            rw_result r;
            exits_coarsen(names[i], ks[l], sp, &r);
            if (!r.applicable)
                print_message("%s: %s\n", names[i], r.description);
            assert_true(r.applicable);
            assert_int_equal(r.grid_divisor, ks[l]);
            assert_non_null(strstr(r.text, "hk_co_live[hk_co_c] = false;"));
            assert_non_null(strstr(r.description, "a flag per copy"));
            if (ks[l] == 4)
                rwf_nvcc_compiles_with(&r, "", "coarsen_exit", names[i]);
            rw_result_free(&r);
            spec_free(sp);
            /* 1000 and 4099 elements in blocks of 32: 32 and 129 blocks, 129 odd */
            sp = exits_spec(names[i], "ceil_div(n, block_x)", 1000, 4099);
            exits_coarsen(names[i], ks[l], sp, &r);
            assert_false(r.applicable);
            if (!strstr(r.description, "129 blocks at size set 2"))
                print_message("%s\n", r.description);
            assert_non_null(strstr(r.description, "129 blocks at size set 2"));
            rw_result_free(&r);
            spec_free(sp);
        }
        rw_result r;
        exits_coarsen("channel_until", ks[l], NULL, &r);
        assert_true(r.applicable);
        assert_int_equal(r.grid_divisor, 0);
        assert_null(strstr(r.text, "hk_co_live"));
        assert_non_null(strstr(r.text, "            return;"));
        if (ks[l] == 4)
            rwf_nvcc_compiles_with(&r, "", "coarsen_exit", "channel_until");
        rw_result_free(&r);
    }
    /* the returned flag is per copy, not per thread: the shape */
    char *t = exits_text("rows_until", 4, "min(ceil_div(n, block_x), 8)");
    assert_non_null(strstr(t, "bool hk_co_live[4] = {true, true, true, true};"));
    assert_non_null(strstr(t, "if (!hk_co_live[hk_co_c])\n                    continue;"));
    assert_non_null(strstr(t, "{ hk_co_live[hk_co_c] = false; goto hk_co_next0_1; }"));
    free(t);
}

/* Emulated against the original at K = 2, 4 and 8; then the check fails on purpose: a
 * return that only skips its element (the flag never set), one flag for all copies, a
 * block-stride return turned into a continue. */
static void early_exit_emulated(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const char *const names[] = {"pick_until", "rows_until", "channel_until"};
    static const int ks[] = {2, 4, 8};
    for (size_t i = 0; i < HK_ARRAY_LEN(names); i++)
        for (size_t l = 0; l < HK_ARRAY_LEN(ks); l++) {
            char *cand = exits_text(names[i], ks[l], "min(ceil_div(n, block_x), 8)");
            char driver[200], tag[64];
            snprintf(driver, sizeof driver, "K = %d; %s_case();", ks[l], names[i]);
            snprintf(tag, sizeof tag, "exit_%s_%d", names[i], ks[l]);
            emu_batch_add_pair(&batch, tag, exits, cand, exits_helpers, driver, EMU_OK);
            free(cand);
        }
    char *cand = exits_text("pick_until", 4, "min(ceil_div(n, block_x), 8)");
    char *broken = emu_replaced(cand, "hk_co_live[hk_co_c] = false; ", "");
    emu_batch_add_pair(&batch, "exit_broken_skip", exits, broken, exits_helpers, "pick_until_case();", EMU_DIFFERS);
    free(broken);
    broken = emu_replaced_all(cand, "if (!hk_co_live[hk_co_c])", "if (!hk_co_live[0])");
    emu_batch_add_pair(&batch, "exit_broken_shared", exits, broken, exits_helpers, "pick_until_case();", EMU_DIFFERS);
    free(broken);
    free(cand);
    cand = exits_text("channel_until", 4, NULL);
    /* every return of the text (the other kernels' too: this driver runs channel_until only) */
    broken = emu_replaced_all(cand, "            return;", "            continue;");
    emu_batch_add_pair(&batch, "exit_broken_keep", exits, broken, exits_helpers, "channel_until_case();",
                       EMU_DIFFERS);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(applies_and_compiles),
        cmocka_unit_test(emitted_shape),
        cmocka_unit_test(survives_allocation_failures),
        cmocka_unit_test(refusals_name_construct_and_line),
        cmocka_unit_test(unguarded_needs_divisible_grid),
        cmocka_unit_test(emulated_equal),
        cmocka_unit_test(broken_differs),
        cmocka_unit_test(macro_defined_twice),
        cmocka_unit_test(early_exit_per_element),
        cmocka_unit_test(early_exit_emulated),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
