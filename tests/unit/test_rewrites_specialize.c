/* specialize_constants (issue 13): integer scalar parameters that every launch passes as
 * one literal become constants in a copy of the body taken for exactly those values.
 * Written as others write them -- a CUDA_1D_KERNEL_LOOP window sum with a runtime kernel
 * size, `continue` bounds and a scale factor (mmcv's CARAFE), a 2-D pooling window with a
 * mode flag, an unsigned stride used only as a divisor, a while loop with dynamic shared
 * memory and its count passed through a constexpr, static __shared__ tiles (declared once,
 * before the test) -- each must apply, compile with nvcc
 * and, in the block emulator (emu_block.h), leave exactly the original's memory both with
 * the launches' values (the copy) and with others (the original path). A bench spec's
 * literal decides; a spec's size expression does not. What it must refuse names the
 * construct and line. Where bench/wild/src is extracted, mmcv's CARAFE is rewritten from
 * its spec and emulated at kernel sizes 5 and 3, and Rodinia's hotspot at pyramid heights 2,
 * 1 and 3. */
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
    return rwf_setup("rewrites-specialize");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char kernels[] =
    "#define LOOP_1D(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "template <typename T>\n"
    "__global__ void upsample_window(const int nthreads, const T *feat, const T *mask, T *out,\n"
    "                                const int kernel_size, const int scale, const int width, const int height)\n"
    "{\n"
    "    LOOP_1D(index, nthreads) {\n"
    "        int pw = index % width, ph = (index / width) % height, n = index / width / height;\n"
    "        int dw = width / scale, dh = height / scale;\n"
    "        int start_w = pw / scale - (kernel_size - 1) / 2, end_w = start_w + kernel_size;\n"
    "        int start_h = ph / scale - (kernel_size - 1) / 2, end_h = start_h + kernel_size;\n"
    "        T acc = 0;\n"
    "        for (int iy = start_h; iy < end_h; iy++)\n"
    "            for (int ix = start_w; ix < end_w; ix++) {\n"
    "                if (iy < 0 || iy > dh - 1 || ix < 0 || ix > dw - 1)\n"
    "                    continue;\n"
    "                int mc = (iy - start_h) * kernel_size + (ix - start_w);\n"
    "                acc += feat[(n * dh + iy) * dw + ix] * mask[((n * kernel_size * kernel_size + mc) * height + ph) * width + pw];\n"
    "            }\n"
    "        out[index] = acc;\n"
    "    }\n"
    "}\n"
    "__global__ void pool2d(const float *x, float *y, int h, int w, int kh, int kw, bool average)\n"
    "{\n"
    "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (r >= h - kh + 1 || c >= w - kw + 1)\n"
    "        return;\n"
    "    float best = average ? 0.0f : -1e30f;\n"
    "    for (int i = 0; i < kh; ++i)\n"
    "        for (int j = 0; j < kw; ++j) {\n"
    "            float v = x[(r + i) * w + c + j];\n"
    "            if (average) best += v; else best = fmaxf(best, v);\n"
    "        }\n"
    "    y[r * (w - kw + 1) + c] = average ? best / (kh * kw) : best;\n"
    "}\n"
    "__global__ void strided_pick(const int *x, int *y, unsigned n, unsigned stride)\n"
    "{\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    y[i] = x[(i / stride) * stride] + (int)(i % stride);\n"
    "}\n"
    "__global__ void taps_shared(const float *x, float *y, int n, int taps)\n"
    "{\n"
    "    extern __shared__ float tile[];\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    tile[threadIdx.x] = i < n ? x[i] : 0.0f;\n"
    "    __syncthreads();\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    float s = 0.0f;\n"
    "    int t = 0;\n"
    "    while (t < taps) {\n"
    "        int k = (int)threadIdx.x - t;\n"
    "        s += k >= 0 ? tile[k] : x[i - t >= 0 ? i - t : 0];\n"
    "        t++;\n"
    "    }\n"
    "    y[i] = s;\n"
    "}\n"
    "#define TILE 64\n"
    "__global__ void tile_taps(const float *x, float *y, int n, int radius)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    __shared__ float tile[TILE + 8], edge[2];\n"
    "    tile[threadIdx.x] = i < n ? x[i] : 0.0f;\n"
    "    if (2 > threadIdx.x) edge[threadIdx.x] = (float)radius;\n"
    "    __syncthreads();\n"
    "    if (i >= n) return;\n"
    "    float s = edge[0];\n"
    "    for (int d = -radius; d <= radius; d++) {\n"
    "        int j = (int)threadIdx.x + d;\n"
    "        s += j >= 0 && (int)blockDim.x > j ? tile[j] : 0.5f;\n"
    "    }\n"
    "    y[i] = s;\n"
    "}\n"
    "void run_all(const float *f, const float *m, float *o, const int *xi, int *yi, int nt, int w, int h, int n)\n"
    "{\n"
    "    upsample_window<float><<<(nt + 127) / 128, 128>>>(nt, f, m, o, 5, 2, w, h);\n"
    "    pool2d<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(f, o, h, w, 3, 3, false);\n"
    "    strided_pick<<<(n + 63) / 64, 64>>>(xi, yi, n, 4u);\n"
    "    strided_pick<<<(n + 255) / 256, 256>>>(xi, yi + n, n, 4u);\n"
    "    constexpr int n_taps = 4;\n"
    "    taps_shared<<<(n + 63) / 64, 64, 64 * sizeof(float)>>>(f, o, n, n_taps);\n"
    "    tile_taps<<<(n + 63) / 64, 64>>>(f, o, n, 2);\n"
    "}\n";

static const char *const applying[] = {"upsample_window", "pool2d", "strided_pick", "taps_shared", "tile_taps"};

static const char inst[] = "\ntemplate __global__ void upsample_window<float>(const int, const float *, const float *, "
                           "float *, const int, const int, const int, const int);\n";

/* Each applies and compiles with nvcc; the description names each value and its gain. */
static void applies_and_compiles(void **state)
{
    (void)state;
    static const char *const said[] = {
        "kernel_size = 5 (every launch site; a loop bound at line 12), scale = 2 (every launch site; a divisor at line 8)",
        "kh = 3 (every launch site; a branch at line 26), kw = 3 (every launch site; a branch at line 26), "
        "average = 0 (every launch site; a branch at line 32)",
        "stride = 4 (every launch site; a divisor at line 41)",
        "taps = 4 (every launch site; a loop condition at line 53)",
        "radius = 2 (every launch site; a loop bound at line 70)",
    };
    fixture fx;
    load_text(kernels, &fx);
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, applying[i])};
        rw_result r;
        assert_int_equal(rw_apply_named("specialize_constants", &ctx, NULL, &r, NULL), HK_OK);
        if (!r.applicable || !strstr(r.description, said[i]))
            print_message("%s: %s\n", applying[i], r.description);
        assert_true(r.applicable);
        assert_non_null(strstr(r.description, said[i]));
        rwf_nvcc_compiles_with(&r, inst, "specialize", applying[i]);
        rw_result_free(&r);
    }
    unload(&fx);
}

/* The shape: the test on the parameters, shadows of their declared types, the body twice. */
static void emitted_shape(void **state)
{
    (void)state;
    char *c = emu_rewrite(kernels, "upsample_window", "specialize_constants", NULL);
    assert_non_null(strstr(c, "{\n    if (kernel_size == 5 && scale == 2) {\n"));
    assert_non_null(strstr(c, "        const int kernel_size = 5;\n        const int scale = 2;\n        {\n"
                              "    LOOP_1D(index, nthreads) {"));
    assert_non_null(strstr(c, "    } else {\n    LOOP_1D(index, nthreads) {"));
    free(c);
    c = emu_rewrite(kernels, "strided_pick", "specialize_constants", NULL);
    assert_non_null(strstr(c, "    if (stride == 4) {\n"));
    assert_non_null(strstr(c, "        unsigned stride = 4;\n"));
    assert_null(strstr(c, "n == "));   /* the launches pass n as a variable */
    free(c);
    c = emu_rewrite(kernels, "tile_taps", "specialize_constants", NULL);
    assert_non_null(strstr(c, "{\n    __shared__ float tile[TILE + 8], edge[2];\n    if (radius == 2) {\n"));
    assert_non_null(strstr(c, "    /* __shared__ tile: declared before the test */\n"));
    assert_null(strstr(strstr(c, "if (radius == 2)"), "__shared__ float"));
    free(c);
    c = emu_rewrite(kernels, "pool2d", "specialize_constants", NULL);
    assert_non_null(strstr(c, "    if (kh == 3 && kw == 3 && average == 0) {\n"));
    assert_non_null(strstr(c, "        bool average = 0;\n"));
    free(c);
}

/* Original and rewrite under the same launches: the launches' values (the copy runs) and
 * others (the original path runs), bit for bit. */
static const char helpers[] =
    "static void upsample_case(int ks, int sc)\n"
    "{\n"
    "    const int w = 22, h = 14, n = 2, nt = n * w * h;\n"
    "    emu::buf<float> f(n * (w / sc) * (h / sc) + 1), m(n * ks * ks * w * h + 1), oo(nt + 1), oc(nt + 1);\n"
    "    f.fill(ks + 1);\n"
    "    m.fill(sc + 2);\n"
    "    oo.set(7.0f);\n"
    "    oc.set(7.0f);\n"
    "    emu::launch(dim3(3), dim3(64), 0, [&] { orig::upsample_window<float>(nt, f, m, oo, ks, sc, w, h); });\n"
    "    emu::launch(dim3(3), dim3(64), 0, [&] { cand::upsample_window<float>(nt, f, m, oc, ks, sc, w, h); });\n"
    "    emu::expect(\"upsample_window\", oo, oc);\n"
    "}\n"
    "static void pool_case(int kh, int kw, bool avg)\n"
    "{\n"
    "    const int w = 37, h = 21;\n"
    "    emu::buf<float> x(w * h + 1), yo(w * h + 1), yc(w * h + 1);\n"
    "    x.fill(kh * 7 + kw);\n"
    "    yo.set(7.0f);\n"
    "    yc.set(7.0f);\n"
    "    dim3 g((w + 15) / 16, (h + 15) / 16), b(16, 16);\n"
    "    emu::launch(g, b, 0, [&] { orig::pool2d(x, yo, h, w, kh, kw, avg); });\n"
    "    emu::launch(g, b, 0, [&] { cand::pool2d(x, yc, h, w, kh, kw, avg); });\n"
    "    emu::expect(\"pool2d\", yo, yc);\n"
    "}\n"
    "static void pick_case(unsigned stride)\n"
    "{\n"
    "    const unsigned n = 300;\n"
    "    emu::buf<int> x(n + 1), yo(n + 1), yc(n + 1);\n"
    "    x.fill_mod(stride, 1000);\n"
    "    yo.set(-1);\n"
    "    yc.set(-1);\n"
    "    emu::launch(dim3(5), dim3(64), 0, [&] { orig::strided_pick(x, yo, n, stride); });\n"
    "    emu::launch(dim3(5), dim3(64), 0, [&] { cand::strided_pick(x, yc, n, stride); });\n"
    "    emu::expect(\"strided_pick\", yo, yc);\n"
    "}\n"
    "static void taps_case(int taps)\n"
    "{\n"
    "    const int n = 200;\n"
    "    emu::buf<float> x(n + 1), yo(n + 1), yc(n + 1);\n"
    "    x.fill(taps);\n"
    "    yo.set(7.0f);\n"
    "    yc.set(7.0f);\n"
    "    emu::launch(dim3(4), dim3(64), 64 * sizeof(float), [&] { orig::taps_shared(x, yo, n, taps); });\n"
    "    emu::launch(dim3(4), dim3(64), 64 * sizeof(float), [&] { cand::taps_shared(x, yc, n, taps); });\n"
    "    emu::expect(\"taps_shared\", yo, yc);\n"
    "}\n"
    "static void tile_case(int radius)\n"
    "{\n"
    "    const int n = 300;\n"
    "    emu::buf<float> x(n + 1), yo(n + 1), yc(n + 1);\n"
    "    x.fill(radius + 3);\n"
    "    yo.set(7.0f);\n"
    "    yc.set(7.0f);\n"
    "    emu::launch(dim3(5), dim3(64), 0, [&] { orig::tile_taps(x, yo, n, radius); });\n"
    "    emu::launch(dim3(5), dim3(64), 0, [&] { cand::tile_taps(x, yc, n, radius); });\n"
    "    emu::expect(\"tile_taps\", yo, yc);\n"
    "}\n";

/* The running test's emulated programs (emu_batch.h): queued by emulate(), built together
 * and checked, each on its own, by emu_batch_run at the test's end. */
static emu_batch batch;
#define emulate(tag, cand, driver, want) emu_batch_add_pair(&batch, tag, kernels, cand, helpers, driver, want)

static void emulated_equal(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    static const char *const drivers[] = {
        "upsample_case(5, 2); upsample_case(3, 2); upsample_case(5, 1); upsample_case(1, 3);",
        "pool_case(3, 3, false); pool_case(3, 3, true); pool_case(2, 5, false); pool_case(1, 1, true);",
        "pick_case(4u); pick_case(3u); pick_case(1u); pick_case(7u);",
        "taps_case(4); taps_case(1); taps_case(9);",
        "tile_case(2); tile_case(0); tile_case(5);",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        char *cand = emu_rewrite(kernels, applying[i], "specialize_constants", NULL);
        emulate(applying[i], cand, drivers[i], EMU_OK);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* The check can fail: a shadow of the wrong value, a test that lets another value in. */
static void broken_differs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(kernels, "upsample_window", "specialize_constants", NULL);
    char *broken = emu_replaced(cand, "const int kernel_size = 5;", "const int kernel_size = 3;");
    emulate("broken_value", broken, "upsample_case(5, 2);", EMU_DIFFERS);
    free(broken);
    free(cand);
    cand = emu_rewrite(kernels, "strided_pick", "specialize_constants", NULL);
    broken = emu_replaced(cand, "if (stride == 4)", "if (stride >= 1)");
    emulate("broken_test", broken, "pick_case(3u);", EMU_DIFFERS);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

static const char refused[] =
    "__global__ void no_launch(const float *x, float *y, int n, int k)\n"                        /* 1 */
    "{\n"
    "    for (int i = 0; i < k; i++) y[i] = x[i];\n"
    "}\n"
    "__global__ void variable(const float *x, float *y, int k)\n"                                /* 5 */
    "{\n"
    "    for (int i = 0; i < k; i++) y[i] = x[i];\n"
    "}\n"
    "__global__ void differing(const float *x, float *y, int k)\n"
    "{\n"                                                                                         /* 10 */
    "    for (int i = 0; i < k; i++) y[i] = x[i];\n"
    "}\n"
    "__global__ void written(const float *x, float *y, int k)\n"
    "{\n"
    "    k += 1;\n"                                                                               /* 15 */
    "    for (int i = 0; i < k; i++) y[i] = x[i];\n"
    "}\n"
    "__global__ void plain_use(const float *x, float *y, int n, int off)\n"
    "{\n"
    "    if (n > (int)threadIdx.x) y[threadIdx.x] = x[threadIdx.x] + off;\n"                                                /* 20 */
    "}\n"
    "__global__ void static_shared(const float *x, float *y, int k)\n"
    "{\n"
    "    { __shared__ float s[64];\n"
    "    s[threadIdx.x] = x[threadIdx.x];\n"                                                      /* 25 */
    "    for (int i = 0; i < k; i++) y[i] = s[i]; }\n"
    "}\n"
    "__global__ void with_goto(const float *x, float *y, int k)\n"
    "{\n"
    "    for (int i = 0; i < k; i++) { if (x[i] < 0) goto done; y[i] = x[i]; }\n"                /* 30 */
    "done:\n"
    "    return;\n"
    "}\n"
    "__global__ void with_asm(const float *x, float *y, int k)\n"
    "{\n"                                                                                         /* 35 */
    "    for (int i = 0; i < k; i++) y[i] = x[i];\n"
    "    asm volatile(\"membar.gl;\");\n"
    "}\n"
    "__global__ void float_only(const float *x, float *y, float s)\n"
    "{\n"                                                                                         /* 40 */
    "    for (int i = 0; i < 4; i++) y[i] = x[i] * s;\n"
    "}\n"
    "#ifdef WIDE\n"
    "#define TAPS 8\n"                                                                            /* 44 */
    "#else\n"
    "#define TAPS 4\n"
    "#endif\n"
    "__global__ void two_defs(const float *x, float *y, int k)\n"
    "{\n"
    "    for (int i = 0; i < k; i++) y[i] = x[i];\n"                                              /* 50 */
    "}\n"
    "__global__ void local_size(const float *x, float *y, int k)\n"
    "{\n"
    "    constexpr int T = 32;\n"
    "    __shared__ float s[T];\n"                                                                 /* 55 */
    "    s[threadIdx.x % T] = x[0];\n"
    "    for (int i = 0; i < k; i++) y[i] = s[i];\n"
    "}\n"
    "__global__ void local_type(const float *x, float *y, int k)\n"
    "{\n"                                                                                         /* 60 */
    "    struct pair { float a, b; };\n"
    "    __shared__ pair s[32];\n"
    "    s[threadIdx.x % 32].a = x[0];\n"
    "    for (int i = 0; i < k; i++) y[i] = s[i].a;\n"
    "}\n"                                                                                         /* 65 */
    "void launch_them(const float *x, float *y, int k)\n"
    "{\n"
    "    variable<<<1, 32>>>(x, y, k);\n"                                                         /* 45 */
    "    differing<<<1, 32>>>(x, y, 3);\n"
    "    differing<<<1, 32>>>(x, y, 4);\n"
    "    written<<<1, 32>>>(x, y, 3);\n"
    "    plain_use<<<1, 32>>>(x, y, k, 3);\n"
    "    static_shared<<<1, 32>>>(x, y, 3);\n"                                                    /* 50 */
    "    with_goto<<<1, 32>>>(x, y, 3);\n"
    "    with_asm<<<1, 32>>>(x, y, 3);\n"
    "    float_only<<<1, 32>>>(x, y, 2.0f);\n"
    "    two_defs<<<1, 32>>>(x, y, TAPS);\n"
    "    local_size<<<1, 32>>>(x, y, 3);\n"
    "    local_type<<<1, 32>>>(x, y, 3);\n"
    "}\n";

static const rwf_refusal refusals[] = {
    {"no_launch", "parameter", 1, "no spec and no launch site of the kernel"},
    {"variable", "parameter", 5, "passes `k`, not a literal or a constant defined once"},
    {"differing", "parameter", 9, "not the same value as the others"},
    {"written", "parameter", 15, "the kernel writes it"},
    {"plain_use", "parameter", 20, "off: every launch site gives it 3, but no loop bound, branch or divisor"},
    {"static_shared", "__shared__ array", 24, "inside a nested block"},
    {"with_goto", "label", 30, "function scope"},
    {"with_asm", "inline assembly", 37, "labels twice"},
    {"float_only", "parameter list", 39, "no integer scalar parameter"},
    {"two_defs", "parameter", 48, "passes `TAPS`, not a literal or a constant defined once"},
    {"local_size", "__shared__ array", 55, "`T` at line 54 comes before it"},
    {"local_type", "__shared__ array", 62, "`pair` at line 61 comes before it"},
};

static void refusals_name_construct_and_line(void **state)
{
    (void)state;
    rwf_expect_refusals(refused, "specialize_constants", refusals, HK_ARRAY_LEN(refusals));
}

/* With a bench spec: a literal value applies (the spec wins over the launch site's), a size
 * expression refuses, a float scalar is never specialized. */
static void spec_value_decides(void **state)
{
    (void)state;
    static const char *const values[] = {"7", "kh", "2"};
    fixture fx;
    load_text(kernels, &fx);
    for (size_t i = 0; i < HK_ARRAY_LEN(values); i++) {
        char text[1400];
        snprintf(text, sizeof text,
                 "{\"name\": \"s\", \"source\": \"s.cu\", \"kernel\": \"pool2d\","
                 " \"sizes\": [{\"h\": 64, \"w\": 64, \"kh\": 3}, {\"h\": 33, \"w\": 17, \"kh\": 3}],"
                 " \"args\": [{\"name\": \"x\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"h * w\"},"
                 " {\"name\": \"y\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"h * w\"},"
                 " {\"name\": \"h\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"h\"},"
                 " {\"name\": \"w\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"w\"},"
                 " {\"name\": \"kh\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"%s\"},"
                 " {\"name\": \"kw\", \"kind\": \"scalar\", \"dtype\": \"%s\", \"value\": %s},"
                 " {\"name\": \"average\", \"kind\": \"scalar\", \"dtype\": \"uint8\", \"value\": 1}],"
                 " \"launch\": {\"grid\": [\"ceil_div(w, 16)\", \"ceil_div(h, 16)\"], \"block\": [16, 16]}}",
                 values[i], i == 2 ? "float" : "int", i == 2 ? "2.0" : "3");
        spec *sp = NULL;
        spec_diags diags = {0};
        int rc = spec_parse(text, strlen(text), NULL, &sp, &diags);
        for (size_t d = 0; rc && d < diags.n; d++)
            print_message("spec: %s: %s\n", diags.items[d].path, diags.items[d].message);
        assert_int_equal(rc, HK_OK);
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "pool2d"), .spec = sp};
        rw_result r;
        assert_int_equal(rw_apply_named("specialize_constants", &ctx, NULL, &r, NULL), HK_OK);
        if (!r.applicable)
            print_message("%s\n", r.description);
        assert_true(r.applicable);
        if (i == 0)
            assert_non_null(strstr(r.text, "if (kh == 7 && kw == 3 && average == 1) {"));
        else if (i == 1)
            assert_non_null(strstr(r.text, "if (kw == 3 && average == 1) {"));
        else
            assert_non_null(strstr(r.text, "if (kh == 2 && average == 1) {"));
        rw_result_free(&r);
        spec_diags_free(&diags);
        spec_free(sp);
    }
    unload(&fx);
}

static int call_specialize(const fixture *fx, size_t k, rw_result *r)
{
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k};
    return rw_apply_named("specialize_constants", &ctx, NULL, r, NULL);
}

/* Out of memory anywhere: HK_ENOMEM and nothing left allocated. */
static void survives_allocation_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "upsample_window"), call_specialize);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "pool2d"), call_specialize);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "tile_taps"), call_specialize);
    unload(&fx);
    load_text(refused, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "local_size"), call_specialize);
    unload(&fx);
}

/* The wild kernels' emulations (carafe, hotspot: where bench/wild/src is extracted), built
 * as one program (emu_batch.h: one g++ run, each case run in a process of its own and
 * named when it does not give its want) by wild_emulated, listed after both. */
static emu_batch wild_batch;

static void wild_add(const emu_program *p)
{
    if (!wild_batch.open && !wild_batch.n)
        emu_batch_init(&wild_batch, tmpdir, "wild");
    emu_batch_add(&wild_batch, p, EMU_OK);
}

/* mmcv's CARAFE itself, where bench/wild/src is extracted: rewritten from its spec (kernel
 * size 5, group 1, scale 2) and emulated against the original at those values and at
 * kernel size 3 and 2 groups (the original path). */
static const char carafe_driver[] =
    "static const int cases[][3] = {{5, 1, 2}, {3, 1, 2}, {5, 2, 2}, {5, 1, 1}};\n"
    "for (int z = 0; z < 4; z++) {\n"
    "    const int ks = cases[z][0], g = cases[z][1], sc = cases[z][2];\n"
    "    const int n = 2, c = 4, h = 12, w = 10, nt = n * c * h * w;\n"
    "    emu::buf<float> f(n * c * (h / sc) * (w / sc) + 1), m(n * ks * ks * g * h * w + 1), oo(nt + 1), oc(nt + 1);\n"
    "    f.fill(z + 1);\n"
    "    m.fill(z + 2);\n"
    "    oo.set(7.0f);\n"
    "    oc.set(7.0f);\n"
    "    emu::launch(dim3(5), dim3(64), 0, [&] { orig::carafe_naive_forward_cuda_kernel<float>(nt, f, m, oo, ks, g, sc, c, h, w); });\n"
    "    emu::launch(dim3(5), dim3(64), 0, [&] { cand::carafe_naive_forward_cuda_kernel<float>(nt, f, m, oc, ks, g, sc, c, h, w); });\n"
    "    emu::expect(\"carafe\", oo, oc);\n"
    "}\n";

static void wild_carafe_emulated(void **state)
{
    (void)state;
    const char *spath = HK_SOURCE_DIR "/bench/wild/specs/mmcv_carafe_naive_fwd.bench.json";
    fixture fx;
    if (!rwf_load_wild("mmcv_carafe_naive_fwd", &fx))
        return;
    assert_false(fx.m->has_errors);
    const char *src = fx.text;
    spec *sp = NULL;
    spec_diags diags = {0};
    assert_int_equal(spec_load(spath, &sp, &diags), HK_OK);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m,
                      .kernel = kernel(&fx, "carafe_naive_forward_cuda_kernel"), .spec = sp};
    rw_result r;
    assert_int_equal(rw_apply_named("specialize_constants", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "if (kernel_size == 5 && group_size == 1 && scale_factor == 2) {"));
    char *full = malloc(r.len + 400);
    assert_non_null(full);
    snprintf(full, r.len + 400, "%s\ntemplate __global__ void carafe_naive_forward_cuda_kernel<float>(const int, "
             "const float *, const float *, float *, const int, const int, const int, const int, const int, const int);\n",
             r.text);
    rwf_nvcc_compiles(full, "specialize_carafe");
    free(full);
    if (emu_available()) {
        /* both texts go in one program: the header's include guard would hide the second */
        char *cand = emu_replaced(r.text, "#ifndef CARAFE_NAIVE_CUDA_KERNEL_CUH", "#ifndef HK_TEST_CANDIDATE_TEXT");
        emu_program p = {.dir = tmpdir, .tag = "carafe", .orig = src, .orig_len = strlen(src), .cand = cand,
                         .cand_len = strlen(cand), .helpers = NULL, .driver = carafe_driver};
        wild_add(&p);
        free(cand);
    }
    rw_result_free(&r);
    spec_diags_free(&diags);
    spec_free(sp);
    unload(&fx);
}

/* Rodinia's hotspot, where bench/wild/src is extracted: its static __shared__ tiles declared
 * once before the test; emulated against the original on 3 x 4 blocks of 16 x 16 at the
 * spec's pyramid (iteration 2, borders 2: the copy) and at 1 and 3 (the original). */
static const char hotspot_driver[] =
    "static const int cases[] = {2, 1, 3};\n"
    "for (int z = 0; z < 3; z++) {\n"
    "    emu::schedule = z;\n"
    "    const int it = cases[z], rows = 37, cols = 29, small = 16 - 2 * it;\n"
    "    const dim3 g((cols + small - 1) / small, (rows + small - 1) / small), b(16, 16);\n"
    "    emu::buf<float> pw(rows * cols), src(rows * cols), dso(rows * cols), dsc(rows * cols);\n"
    "    pw.fill(z + 1);\n"
    "    src.fill(z + 2);\n"
    "    dso.set(7.0f);\n"
    "    dsc.set(7.0f);\n"
    "    emu::launch(g, b, 0, [&] { orig::calculate_temp(it, pw, src, dso, cols, rows, it, it, 1.6e-9f, 10.0f, 10.0f, 1.3e6f, 1.4e-7f, 0.001f); });\n"
    "    emu::launch(g, b, 0, [&] { cand::calculate_temp(it, pw, src, dsc, cols, rows, it, it, 1.6e-9f, 10.0f, 10.0f, 1.3e6f, 1.4e-7f, 0.001f); });\n"
    "    emu::expect(\"hotspot\", dso, dsc);\n"
    "    int written = 0;\n"
    "    for (int q = 0; q < rows * cols; q++)\n"
    "        written += dso[q] != 7.0f;\n"
    "    if (written < rows * cols / 2) {\n"
    "        printf(\"differs: hotspot wrote only %d of %d\\n\", written, rows * cols);\n"
    "        emu::failures++;\n"
    "    }\n"
    "}\n";

static void wild_hotspot_emulated(void **state)
{
    (void)state;
    const char *spath = HK_SOURCE_DIR "/bench/wild/specs/rodinia_hotspot.bench.json";
    fixture fx;
    if (!rwf_load_wild("rodinia_hotspot", &fx))
        return;
    assert_false(fx.m->has_errors);
    const char *src = fx.text;
    spec *sp = NULL;
    spec_diags diags = {0};
    assert_int_equal(spec_load(spath, &sp, &diags), HK_OK);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "calculate_temp"), .spec = sp};
    rw_result r;
    assert_int_equal(rw_apply_named("specialize_constants", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "if (iteration == 2 && border_cols == 2 && border_rows == 2) {"));
    rwf_nvcc_compiles(r.text, "specialize_hotspot");
    if (emu_available()) {
        emu_program p = {.dir = tmpdir, .tag = "hotspot", .orig = src, .orig_len = strlen(src), .cand = r.text,
                         .cand_len = r.len, .helpers = NULL, .driver = hotspot_driver};
        wild_add(&p);
    }
    rw_result_free(&r);
    spec_diags_free(&diags);
    spec_free(sp);
    unload(&fx);
}

/* The wild kernels' emulations queued above (wild_add), built and checked. */
static void wild_emulated(void **state)
{
    (void)state;
    if (wild_batch.open)
        emu_batch_run(&wild_batch);
    else
        print_message("note: no wild kernel emulated here (bench/wild/extract.sh, g++)\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(applies_and_compiles),
        cmocka_unit_test(emitted_shape),
        cmocka_unit_test(emulated_equal),
        cmocka_unit_test(broken_differs),
        cmocka_unit_test(refusals_name_construct_and_line),
        cmocka_unit_test(spec_value_decides),
        cmocka_unit_test(survives_allocation_failures),
        cmocka_unit_test(wild_carafe_emulated),
        cmocka_unit_test(wild_hotspot_emulated),
        cmocka_unit_test(wild_emulated),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
