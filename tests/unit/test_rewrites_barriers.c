/* merge_barriers (issue 13): a `__syncthreads();` between two stretches of a kernel whose
 * shared-memory accesses do not conflict (no array written on one side is touched on the
 * other) and that write no other memory is removed, so staged tile fills issue their loads
 * together. Kernels as people write them -- a halo stencil that fills its up/down rows, its
 * left/right columns and its centre tile in three stages; a one-tile product that fills A's
 * tile and B's tile in two; a block scalar loaded by one thread beside a tile -- must apply,
 * compile with nvcc, and in the block emulator (emu_block.h, one batched program) give the
 * original's outputs bit for bit under the forward, reverse and shuffled thread orders.
 * A barrier the rule keeps, removed by hand, must be caught by the same check. What it must
 * refuse names the construct and line: no top-level barrier, a tile read across the barrier,
 * other memory written on one side and accessed on the other, a shared array passed on, a
 * call it cannot read, a barrier inside a loop, a tile read before the barrier and written after
 * it, a function calling one with a barrier, two `extern __shared__` names of the same memory, a
 * macro naming a shared array, a __shared__ variable at file scope. */
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
    return rwf_setup("rewrites-barriers");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char kernels[] =
    "#define TS 16\n"                                                                              /* 1 */
    "__global__ void halo_tiles(const float *img, float *lap, float *grad, int w, int h)\n"
    "{\n"
    "    __shared__ float up[TS][TS];\n"
    "    __shared__ float down[TS][TS];\n"
    "    __shared__ float left[TS][TS], right[TS][TS];\n"
    "    __shared__ float mid[TS][TS];\n"
    "    int tx = threadIdx.x, ty = threadIdx.y;\n"
    "    int x0 = blockIdx.x * TS, y0 = blockIdx.y * TS, x = x0 + tx, y = y0 + ty;\n"
    "    up[ty][tx] = img[max(y0 - 1, 0) * w + x];\n"                                            /* 10 */
    "    down[ty][tx] = img[min(y0 + TS, h - 1) * w + x];\n"
    "    __syncthreads();\n"
    "    left[ty][tx] = img[y * w + max(x0 - 1, 0)];\n"
    "    if (x0 + TS < w)\n"
    "        right[ty][tx] = img[y * w + x0 + TS];\n"
    "    else\n"
    "        right[ty][tx] = img[y * w + w - 1];\n"
    "    __syncthreads();\n"
    "    mid[ty][tx] = img[y * w + x];\n"
    "    __syncthreads();\n"                                                                       /* 20 */
    "    float c = mid[ty][tx];\n"
    "    float n = ty > 0 ? mid[ty - 1][tx] : up[ty][tx];\n"
    "    float s = ty < TS - 1 ? mid[ty + 1][tx] : down[ty][tx];\n"
    "    float wv = tx > 0 ? mid[ty][tx - 1] : left[ty][tx];\n"
    "    float e = tx < TS - 1 ? mid[ty][tx + 1] : right[ty][tx];\n"
    "    lap[y * w + x] = n + s + wv + e - 4.0f * c;\n"
    "    grad[y * w + x] = (e - wv) * (e - wv) + (s - n) * (s - n);\n"
    "}\n"
    "__global__ void tile_product(const float *a, const float *b, float *c, int n)\n"
    "{\n"                                                                                          /* 30 */
    "    __shared__ float as[16][16];\n"
    "    __shared__ float bs[16][16];\n"
    "    int tx = threadIdx.x, ty = threadIdx.y;\n"
    "    int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;\n"
    "    as[ty][tx] = a[row * 16 + tx];\n"
    "    __syncthreads();\n"
    "    bs[ty][tx] = b[ty * n + col];\n"
    "    __syncthreads();\n"
    "    float acc = 0.0f;\n"
    "    for (int k = 0; k < 16; k++)\n"                                                          /* 40 */
    "        acc += as[ty][k] * bs[k][tx];\n"
    "    c[row * n + col] = acc;\n"
    "}\n"
    "__global__ void flip_bias(const float *x, const float *bias, float *y, int n)\n"
    "{\n"
    "    __shared__ float s_bias;\n"
    "    __shared__ float tile[128];\n"
    "    int t = threadIdx.x;\n"
    "    int g = blockIdx.x * blockDim.x + t;\n"
    "    float keep[2];\n"                                                                         /* 50 */
    "    keep[0] = g < n ? x[g] : 0.0f;\n"
    "    if (t == 0)\n"
    "        s_bias = bias[blockIdx.x];\n"
    "    __syncthreads();\n"
    "    tile[t] = keep[0];\n"
    "    __syncthreads();\n"
    "    if (g < n)\n"
    "        y[g] = tile[blockDim.x - 1 - t] * 2.0f + s_bias;\n"
    "}\n";

static const char *const applying[] = {"halo_tiles", "tile_product", "flip_bias"};
static const char *const said[] = {
    "kernel halo_tiles: 2 of 3 __syncthreads() removed (lines 12, 18) (the first between up, down and left, right)",
    "kernel tile_product: 1 of 2 __syncthreads() removed (line 36) (the first between as and bs)",
    "kernel flip_bias: 1 of 2 __syncthreads() removed (line 54) (the first between s_bias and tile)",
};

static void applies_and_compiles(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, applying[i])};
        rw_result r;
        assert_int_equal(rw_apply_named("merge_barriers", &ctx, NULL, &r, NULL), HK_OK);
        if (!r.applicable || !strstr(r.description, said[i]))
            print_message("%s: %s\n", applying[i], r.description);
        assert_true(r.applicable);
        assert_non_null(strstr(r.description, said[i]));
        rwf_nvcc_compiles_with(&r, "", "barriers", applying[i]);
        rw_result_free(&r);
    }
    unload(&fx);
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* The shape: only the kernel's removed barriers become comments, on their own lines; the
 * barrier before the compute stays; the other kernels are untouched. */
static void emitted_shape(void **state)
{
    (void)state;
    char *c = emu_rewrite(kernels, "halo_tiles", "merge_barriers", NULL);
    assert_int_equal(count(c, "/* hk merge_barriers: no barrier needed here */"), 2);
    assert_int_equal(count(c, "__syncthreads();"), count(kernels, "__syncthreads();") - 2);
    assert_non_null(strstr(c, "    mid[ty][tx] = img[y * w + x];\n    __syncthreads();\n"));
    assert_non_null(strstr(c, "        right[ty][tx] = img[y * w + w - 1];\n"
                              "    /* hk merge_barriers: no barrier needed here */\n"));
    assert_non_null(strstr(c, "    as[ty][tx] = a[row * 16 + tx];\n    __syncthreads();\n"));
    free(c);
}

/* Each case: the original and the rewrite under the forward, reverse and shuffled thread
 * orders, outputs compared bit for bit. */
static const char helpers[] =
    "static bool halo_case(int w, int h)\n"
    "{\n"
    "    bool ok = true;\n"
    "    for (int s = 0; s < 3; s++) {\n"
    "        emu::schedule = s;\n"
    "        emu::buf<float> img(w * h), lo(w * h), go(w * h), lc(w * h), gc(w * h);\n"
    "        img.fill(w + h);\n"
    "        lo.set(7.0f); go.set(7.0f); lc.set(7.0f); gc.set(7.0f);\n"
    "        emu::launch(dim3(w / 16, h / 16), dim3(16, 16), 0, [&] { orig::halo_tiles(img, lo, go, w, h); });\n"
    "        emu::launch(dim3(w / 16, h / 16), dim3(16, 16), 0, [&] { cand::halo_tiles(img, lc, gc, w, h); });\n"
    "        ok = emu::expect(\"halo lap\", lo, lc) && ok;\n"
    "        ok = emu::expect(\"halo grad\", go, gc) && ok;\n"
    "        if (!ok) { printf(\"  (schedule %d)\\n\", s); break; }\n"
    "    }\n"
    "    return ok;\n"
    "}\n"
    "static bool product_case(int rows, int n)\n"
    "{\n"
    "    bool ok = true;\n"
    "    for (int s = 0; s < 3; s++) {\n"
    "        emu::schedule = s;\n"
    "        emu::buf<float> a(rows * 16), b(16 * n), co(rows * n), cc(rows * n);\n"
    "        a.fill(3); b.fill(4);\n"
    "        co.set(7.0f); cc.set(7.0f);\n"
    "        emu::launch(dim3(n / 16, rows / 16), dim3(16, 16), 0, [&] { orig::tile_product(a, b, co, n); });\n"
    "        emu::launch(dim3(n / 16, rows / 16), dim3(16, 16), 0, [&] { cand::tile_product(a, b, cc, n); });\n"
    "        ok = emu::expect(\"tile_product\", co, cc) && ok;\n"
    "        if (!ok) { printf(\"  (schedule %d)\\n\", s); break; }\n"
    "    }\n"
    "    return ok;\n"
    "}\n"
    "static bool flip_case(int n)\n"
    "{\n"
    "    bool ok = true;\n"
    "    const int g = (n + 127) / 128;\n"
    "    for (int s = 0; s < 3; s++) {\n"
    "        emu::schedule = s;\n"
    "        emu::buf<float> x(n), bias(g), yo(n), yc(n);\n"
    "        x.fill(5); bias.fill(6);\n"
    "        yo.set(7.0f); yc.set(7.0f);\n"
    "        emu::launch(dim3(g), dim3(128), 0, [&] { orig::flip_bias(x, bias, yo, n); });\n"
    "        emu::launch(dim3(g), dim3(128), 0, [&] { cand::flip_bias(x, bias, yc, n); });\n"
    "        ok = emu::expect(\"flip_bias\", yo, yc) && ok;\n"
    "        if (!ok) { printf(\"  (schedule %d)\\n\", s); break; }\n"
    "    }\n"
    "    return ok;\n"
    "}\n";

static const char *const drivers[] = {
    "halo_case(48, 32); halo_case(16, 16); halo_case(32, 64);",
    "product_case(32, 48); product_case(16, 16);",
    "flip_case(300); flip_case(128);",
};

/* srad's two kernels, original and rewritten, one after the other as the benchmark runs them,
 * under the three thread orders. Its halo loads read a row (a column) outside the image before
 * the border blocks overwrite them, as the original does: the image lies inside a padded
 * buffer so that those reads stay in memory the program owns. */
static const char srad_helpers[] =
    "static bool srad_case(int rows, int cols)\n"
    "{\n"
    "    bool ok = true;\n"
    "    const int n = rows * cols, pad = cols + 64;\n"
    "    for (int s = 0; s < 3; s++) {\n"
    "        emu::schedule = s;\n"
    "        emu::buf<float> jo(n + 2 * pad), jc(n + 2 * pad);\n"
    "        jo.fill(11);\n"
    "        for (size_t i = 0; i < jo.size(); i++) jo[i] = 1.0f + 1.7f * (jo[i] < 0 ? -jo[i] : jo[i]) / (1.0f + (jo[i] < 0 ? -jo[i] : jo[i]));\n"
    "        jc.v = jo.v;\n"
    "        emu::buf<float> e[2] = {emu::buf<float>(n), emu::buf<float>(n)}, w[2] = {emu::buf<float>(n), emu::buf<float>(n)},\n"
    "                        no[2] = {emu::buf<float>(n), emu::buf<float>(n)}, so[2] = {emu::buf<float>(n), emu::buf<float>(n)},\n"
    "                        c[2] = {emu::buf<float>(n + 2 * pad), emu::buf<float>(n + 2 * pad)};\n"
    "        for (int v = 0; v < 2; v++) { e[v].set(7.0f); w[v].set(7.0f); no[v].set(7.0f); so[v].set(7.0f); c[v].set(7.0f); }\n"
    "        dim3 grid(cols / 16, rows / 16), block(16, 16);\n"
    "        emu::launch(grid, block, 0, [&] { orig::srad_cuda_1(e[0], w[0], no[0], so[0], jo + pad, c[0] + pad, cols, rows, 0.05f); });\n"
    "        emu::launch(grid, block, 0, [&] { cand::srad_cuda_1(e[1], w[1], no[1], so[1], jc + pad, c[1] + pad, cols, rows, 0.05f); });\n"
    "        ok = emu::expect(\"srad1 E_C\", e[0], e[1]) && emu::expect(\"srad1 W_C\", w[0], w[1]) &&\n"
    "             emu::expect(\"srad1 N_C\", no[0], no[1]) && emu::expect(\"srad1 S_C\", so[0], so[1]) &&\n"
    "             emu::expect(\"srad1 C\", c[0], c[1]) && ok;\n"
    "        emu::launch(grid, block, 0, [&] { orig::srad_cuda_2(e[0], w[0], no[0], so[0], jo + pad, c[0] + pad, cols, rows, 0.5f, 0.05f); });\n"
    "        emu::launch(grid, block, 0, [&] { cand::srad_cuda_2(e[1], w[1], no[1], so[1], jc + pad, c[1] + pad, cols, rows, 0.5f, 0.05f); });\n"
    "        ok = emu::expect(\"srad2 J\", jo, jc) && ok;\n"
    "        if (!ok) { printf(\"  (schedule %d)\\n\", s); break; }\n"
    "    }\n"
    "    return ok;\n"
    "}\n";

static const char srad_driver[] = "srad_case(48, 64); srad_case(32, 32);";

/* The test's emulated programs (emu_batch.h), built in one g++ run; static, as the other
 * batched tests keep theirs (emu_batch_init frees a previous batch's cases). */
static emu_batch batch;

/* One batched program: the three rewrites, and the same three with the barrier the rule
 * keeps (the first one left in the text) removed by hand, which must differ: the check sees
 * a missing barrier. */
static void emulated_equal(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, "barriers");
    char *cands[HK_ARRAY_LEN(applying)], *broken[HK_ARRAY_LEN(applying)];
    char tag[64], btag[HK_ARRAY_LEN(applying)][64];
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        cands[i] = emu_rewrite(kernels, applying[i], "merge_barriers", NULL);
        /* the kernel's first barrier still in the text is the one before its compute */
        const char *k = strstr(cands[i], applying[i]);
        assert_non_null(k);
        const char *b = strstr(k, "__syncthreads();");
        assert_non_null(b);
        broken[i] = strdup(cands[i]);
        assert_non_null(broken[i]);
        memcpy(broken[i] + (b - cands[i]), "                ", strlen("__syncthreads();"));
        snprintf(tag, sizeof tag, "barriers_%s", applying[i]);
        emu_batch_add_pair(&batch, tag, kernels, cands[i], helpers, drivers[i], EMU_OK);
        snprintf(btag[i], sizeof btag[i], "barriers_%s_broken", applying[i]);
        emu_batch_add_pair(&batch, btag[i], kernels, broken[i], helpers, drivers[i], EMU_DIFFERS);
    }
    /* the kernel the rule is for, when the wild suite is extracted here: Rodinia's srad_cuda_1
     * (halo rows, halo columns, centre: two of its four barriers go) and srad_cuda_2 (three
     * of five), on a 64 x 48 image, each output bit for bit */
    char *srad1 = NULL, *srad2 = NULL, *srad12 = NULL, *srad_broken = NULL;
    char *srad = rwf_wild_text("rodinia_srad1", NULL);
    if (srad) {
        srad1 = emu_rewrite(srad, "srad_cuda_1", "merge_barriers", NULL);
        srad2 = emu_rewrite(srad, "srad_cuda_2", "merge_barriers", NULL);
        assert_int_equal(count(srad1, "/* hk merge_barriers: no barrier needed here */"), 2);
        assert_int_equal(count(srad2, "/* hk merge_barriers: no barrier needed here */"), 3);
        srad12 = emu_rewrite(srad1, "srad_cuda_2", "merge_barriers", NULL);
        emu_batch_add_pair(&batch, "barriers_srad", srad, srad12, srad_helpers, srad_driver, EMU_OK);
        /* its centre tile's barrier (the one kept first) removed by hand: seen */
        const char *b = strstr(strstr(srad12, "srad_cuda_1"), "__syncthreads();");
        assert_non_null(b);
        srad_broken = strdup(srad12);
        assert_non_null(srad_broken);
        memcpy(srad_broken + (b - srad12), "                ", strlen("__syncthreads();"));
        emu_batch_add_pair(&batch, "barriers_srad_broken", srad, srad_broken, srad_helpers, srad_driver,
                           EMU_DIFFERS);
    }
    emu_batch_run(&batch);
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        free(cands[i]);
        free(broken[i]);
    }
    free(srad);
    free(srad1);
    free(srad2);
    free(srad12);
    free(srad_broken);
}

static const char refused[] =
    "__global__ void no_bar(const float *x, float *y, int n)\n"                                   /* 1 */
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = x[i];\n"
    "}\n"
    "__global__ void reversed(const float *x, float *y)\n"                                        /* 6 */
    "{\n"
    "    __shared__ float tile[64];\n"
    "    tile[threadIdx.x] = x[threadIdx.x];\n"
    "    __syncthreads();\n"                                                                       /* 10 */
    "    y[threadIdx.x] = tile[63 - threadIdx.x];\n"
    "}\n"
    "__global__ void two_outputs(const float *x, float *y, float *z)\n"                          /* 13 */
    "{\n"
    "    y[threadIdx.x] = x[threadIdx.x] * 2.0f;\n"
    "    __syncthreads();\n"
    "    z[threadIdx.x] = y[63 - threadIdx.x];\n"
    "}\n"
    "__device__ void fill(float *t, const float *x) { t[threadIdx.x] = x[threadIdx.x]; }\n"
    "__global__ void passed_on(const float *x, float *y)\n"                                       /* 20 */
    "{\n"
    "    __shared__ float a[64], b[64];\n"
    "    fill(a, x);\n"
    "    __syncthreads();\n"
    "    b[threadIdx.x] = x[threadIdx.x];\n"
    "    __syncthreads();\n"
    "    y[threadIdx.x] = a[63 - threadIdx.x] + b[threadIdx.x];\n"                                  /* 27 */
    "}\n"
    "__device__ float ext_fn(float v);\n"
    "__global__ void unknown_call(const float *x, float *y)\n"                                    /* 30 */
    "{\n"
    "    __shared__ float a[64], b[64];\n"
    "    a[threadIdx.x] = ext_fn(x[threadIdx.x]);\n"
    "    __syncthreads();\n"
    "    b[threadIdx.x] = x[threadIdx.x];\n"
    "    __syncthreads();\n"
    "    y[threadIdx.x] = a[63 - threadIdx.x] + b[threadIdx.x];\n"                                  /* 37 */
    "}\n"
    "__global__ void looped(const float *x, float *y, int k)\n"                                   /* 39 */
    "{\n"
    "    __shared__ float a[64], b[64];\n"
    "    a[threadIdx.x] = x[threadIdx.x];\n"
    "    __syncthreads();\n"
    "    for (int j = 0; j < k; j++) {\n"
    "        b[threadIdx.x] = a[(threadIdx.x + j) % 64];\n"
    "        __syncthreads();\n"                                                                   /* 46 */
    "    }\n"
    "    y[threadIdx.x] = b[threadIdx.x];\n"
    "}\n"
    "__global__ void war(const float *x, float *y)\n"                                            /* 50 */
    "{\n"
    "    __shared__ float a[64];\n"
    "    float v = a[63 - threadIdx.x];\n"
    "    __syncthreads();\n"
    "    a[threadIdx.x] = x[threadIdx.x] + v;\n"
    "    y[threadIdx.x] = v;\n"
    "}\n"
    "__device__ float pass_barrier(float v) { __syncthreads(); return v; }\n"
    "__device__ float twice(float v) { return 2.0f * pass_barrier(v); }\n"
    "__global__ void nested_call(const float *x, float *y)\n"                                    /* 60 */
    "{\n"
    "    __shared__ float a[64], b[64];\n"
    "    a[threadIdx.x] = twice(x[threadIdx.x]);\n"
    "    __syncthreads();\n"
    "    b[threadIdx.x] = x[threadIdx.x];\n"
    "    __syncthreads();\n"
    "    y[threadIdx.x] = a[63 - threadIdx.x] + b[threadIdx.x];\n"
    "}\n"
    "__global__ void two_extern(const float *x, float *y)\n"                                     /* 69 */
    "{\n"
    "    extern __shared__ float da[];\n"
    "    extern __shared__ float db[];\n"
    "    da[threadIdx.x] = x[threadIdx.x];\n"
    "    __syncthreads();\n"
    "    y[threadIdx.x] = db[63 - threadIdx.x];\n"
    "}\n"
    "#define TILE_OF tile_m\n"                                                                      /* 77 */
    "__global__ void macro_tile(const float *x, float *y)\n"
    "{\n"
    "    __shared__ float tile_m[64];\n"
    "    tile_m[threadIdx.x] = x[threadIdx.x];\n"
    "    __syncthreads();\n"
    "    y[threadIdx.x] = TILE_OF[63 - threadIdx.x];\n"
    "}\n";

static const char file_scope[] =
    "__shared__ float shared_tile[64];\n"                                                           /* 1 */
    "__global__ void file_shared(const float *x, float *y)\n"
    "{\n"
    "    __shared__ float b[64];\n"
    "    b[threadIdx.x] = x[threadIdx.x];\n"
    "    __syncthreads();\n"
    "    y[threadIdx.x] = b[63 - threadIdx.x] + shared_tile[threadIdx.x];\n"
    "}\n";

static void refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"no_bar", "kernel body", 2, "no `__syncthreads();` statement at the top level"},
        {"reversed", "barrier", 10, "__shared__ `tile` is written on one side and accessed on the other"},
        {"two_outputs", "barrier", 16, "memory other than __shared__ is written on one side (line 15)"},
        {"passed_on", "__shared__ array", 23, "its address is taken or passed on"},
        {"unknown_call", "call", 33, "a call to ext_fn, which the scan cannot read"},
        {"looped", "barrier", 46, "a barrier, warp sync, fence, asm or goto inside a statement"},
        /* read before the barrier, written after it: the readers must be done first */
        {"war", "barrier", 54, "__shared__ `a` is written on one side and accessed on the other"},
        /* a function that calls a function with a barrier */
        {"nested_call", "call", 63, "the function called (or one it calls) synchronizes"},
        /* two names of the same dynamic shared memory */
        {"two_extern", "barrier", 74, "__shared__ `da` is written on one side and accessed on the other"},
        /* a macro that is the shared array under another name */
        {"macro_tile", "macro", 83, "names a __shared__ variable"},
    };
    rwf_expect_refusals(refused, "merge_barriers", cases, HK_ARRAY_LEN(cases));
    static const rwf_refusal fs[] = {
        {"file_shared", "__shared__ array", 1, "declared outside any function"},
    };
    rwf_expect_refusals(file_scope, "merge_barriers", fs, HK_ARRAY_LEN(fs));
}

static int call_merge(const fixture *fx, size_t k, rw_result *r)
{
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k};
    return rw_apply_named("merge_barriers", &ctx, NULL, r, NULL);
}

static void survives_allocation_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "halo_tiles"), call_merge);
    unload(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(applies_and_compiles),
        cmocka_unit_test(emitted_shape),
        cmocka_unit_test(emulated_equal),
        cmocka_unit_test(refusals),
        cmocka_unit_test(survives_allocation_failures),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
