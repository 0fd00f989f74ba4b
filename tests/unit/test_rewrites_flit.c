/* float_literals run, not only compiled: a hotspot-like 2D stencil (shared tiles, two time
 * steps between barriers, `2.0*t` in a float update and a `float amb = 80.0;`) and an
 * elementwise float kernel, against their rewrites in the block emulator (emu_block.h),
 * within the hotspot spec's rtol 1e-5 (the rewrite is not exact: FP32 intermediates); a
 * rewrite whose literal changed value (3.0f) must differ. What it must not touch stays:
 * comparisons, stores to double or integer, expressions with a double operand, a call other
 * than float math. The wild rodinia_hotspot, rewritten, compiles with nvcc -arch=sm_90 and
 * its PTX holds no FP64 instruction (the original: 8 cvt.f64.f32 per point and step). */
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
    return rwf_setup("rewrites-flit");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char helpers[] =
    "#define NEAR(T, what, nout, rtol, ...)                                          \\\n"
    "    for (int s = 0; s < 3; s++) {                                               \\\n"
    "        emu::schedule = s;                                                      \\\n"
    "        emu::buf<T> o_out(nout), c_out(nout);                                   \\\n"
    "        o_out.set(T(0));                                                        \\\n"
    "        c_out.set(T(0));                                                        \\\n"
    "        { namespace NS = orig; auto &out = o_out; __VA_ARGS__; }                \\\n"
    "        { namespace NS = cand; auto &out = c_out; __VA_ARGS__; }                \\\n"
    "        if (!emu::expect(what, o_out, c_out, rtol))                             \\\n"
    "            printf(\"  (schedule %d)\\n\", s);                                   \\\n"
    "    }\n";

static emu_batch batch;

/* Rodinia hotspot's shape at 8x8 blocks computing 4x4 (two steps) */
static const char hot[] =
    "#define BS 8\n"
    "__global__ void hot(const float *power, const float *src, float *dst, int cols, int rows, float Cap, float Rx,\n"
    "                    float Ry, float Rz, float step)\n"
    "{\n"
    "    __shared__ float t[BS][BS];\n"
    "    __shared__ float p[BS][BS];\n"
    "    __shared__ float tt[BS][BS];\n"
    "    float amb = 80.0;\n"
    "    float sdc = step / Cap;\n"
    "    float Rx_1 = 1 / Rx, Ry_1 = 1 / Ry, Rz_1 = 1 / Rz;\n"
    "    int tx = threadIdx.x, ty = threadIdx.y;\n"
    "    int small = BS - 4;\n"
    "    int y0 = small * blockIdx.y - 2, x0 = small * blockIdx.x - 2;\n"
    "    int yi = y0 + ty, xi = x0 + tx;\n"
    "    bool in = yi >= 0 && yi < rows && xi >= 0 && xi < cols;\n"
    "    int idx = yi * cols + xi;\n"
    "    int cy = min(max(yi, 0), rows - 1), cx = min(max(xi, 0), cols - 1);\n"
    "    t[ty][tx] = src[cy * cols + cx];\n"
    "    p[ty][tx] = power[cy * cols + cx];\n"
    "    __syncthreads();\n"
    "    int N = ty > 0 ? ty - 1 : ty, S = ty < BS - 1 ? ty + 1 : ty;\n"
    "    int W = tx > 0 ? tx - 1 : tx, E = tx < BS - 1 ? tx + 1 : tx;\n"
    "    bool computed = false;\n"
    "    for (int i = 0; i < 2; i++) {\n"
    "        computed = false;\n"
    "        if (tx >= i + 1 && tx <= BS - i - 2 && ty >= i + 1 && ty <= BS - i - 2 && in) {\n"
    "            computed = true;\n"
    "            tt[ty][tx] = t[ty][tx] + sdc * (p[ty][tx] + (t[S][tx] + t[N][tx] - 2.0 * t[ty][tx]) * Ry_1 +\n"
    "                                           (t[ty][E] + t[ty][W] - 2.0 * t[ty][tx]) * Rx_1 + (amb - t[ty][tx]) * Rz_1);\n"
    "        }\n"
    "        __syncthreads();\n"
    "        if (i == 1)\n"
    "            break;\n"
    "        if (computed)\n"
    "            t[ty][tx] = tt[ty][tx];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (computed)\n"
    "        dst[idx] = tt[ty][tx];\n"
    "}\n";

/* Rodinia's chip constants scaled as hotspot computes them; temperatures 323-343 */
static const char hot_drv[] =
    "for (int r : {9, 13}) {\n"
    "    const int rows = r, cols = r + 3;\n"
    "    emu::buf<float> pw(rows * cols), src(rows * cols);\n"
    "    pw.fill(r);\n"
    "    src.fill(r + 1);\n"
    "    for (int i = 0; i < rows * cols; i++) { pw[i] = 0.0005f + 0.0005f * pw[i]; src[i] = 333.0f + 10.0f * src[i]; }\n"
    "    dim3 g((cols + 3) / 4, (rows + 3) / 4), b(8, 8);\n"
    "    NEAR(float, \"hot\", rows * cols, 1e-5, emu::launch(g, b, 0, [&] {\n"
    "        NS::hot(pw, src, out, cols, rows, 1.66893e-09f, 10.0f, 10.0f, 1310720.0f, 1.45833e-07f); }));\n"
    "}\n";

/* an elementwise update with a non-float literal (0.1) and an exact one */
static const char ew[] =
    "__global__ void ew(const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        float v = x[i];\n"
    "        y[i] = v * 0.1 + 0.5 * v * v - 1.25;\n"
    "    }\n"
    "}\n";

static const char ew_drv[] =
    "for (int n : {1, 37, 100}) {\n"
    "    emu::buf<float> x(n);\n"
    "    x.fill(n);\n"
    "    NEAR(float, \"ew\", n, 1e-6, emu::launch(dim3(2), dim3(64), 0, [&] { NS::ew(x, out, n); }));\n"
    "}\n";

static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *c1 = emu_rewrite(hot, "hot", "float_literals", NULL);
    emu_batch_add_pair(&batch, "hot", hot, c1, helpers, hot_drv, EMU_OK);
    /* a literal whose value changed: the tolerance must catch it */
    char *broken = emu_replaced(c1, "- 2.0f * t[ty][tx]) * Ry_1", "- 3.0f * t[ty][tx]) * Ry_1");
    emu_batch_add_pair(&batch, "hot_broken", hot, broken, helpers, hot_drv, EMU_DIFFERS);
    char *c2 = emu_rewrite(ew, "ew", "float_literals", NULL);
    emu_batch_add_pair(&batch, "ew", ew, c2, helpers, ew_drv, EMU_OK);
    emu_batch_run(&batch);
    free(c1);
    free(broken);
    free(c2);
}

/* What it writes, and what it leaves. */
static const char mixed[] =
    "__device__ float helper(float a) { return a * 2.0; }\n"
    "__global__ void mixed(const float *x, float *y, double *z, int *w, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    float v = x[i];\n"
    "    double d = v * 3.0;\n"
    "    float a = v * 2.0 + 1.;\n"
    "    float b = v < 0.1 ? v : 0.25 * v;\n"
    "    float c = v * d * 2.0;\n"
    "    float e = helper(v) * 4.0;\n"
    "    z[i] = v * 5.0;\n"
    "    w[i] = v * 0.5;\n"
    "    y[i] = a + b + c + e + 1e-3;\n"
    "}\n";

static void emitted_text(void **state)
{
    (void)state;
    char *t = emu_rewrite(mixed, "mixed", "float_literals", NULL);
    static const char *const want[] = {
        "float a = v * 2.0f + 1.f;",           /* float arithmetic stored to float */
        "float b = v < 0.1 ? v : 0.25f * v;", /* the comparison's literal stays */
        "y[i] = a + b + c + e + 1e-3f;",
        "double d = v * 3.0;",                /* a double target */
        "float c = v * d * 2.0;",             /* a double operand */
        "float e = helper(v) * 4.0;",         /* a call it does not know */
        "z[i] = v * 5.0;",
        "w[i] = v * 0.5;",                    /* an integer target: truncation */
        "return a * 2.0; }",                  /* a device function: not the kernel's body */
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++)
        if (!strstr(t, want[i]))
            fail_msg("no `%s` in\n%s", want[i], t);
    free(t);
    char *h = emu_rewrite(hot, "hot", "float_literals", NULL);
    assert_non_null(strstr(h, "float amb = 80.0f;"));
    assert_non_null(strstr(h, "(t[S][tx] + t[N][tx] - 2.0f * t[ty][tx]) * Ry_1"));
    assert_non_null(strstr(h, "(t[ty][E] + t[ty][W] - 2.0f * t[ty][tx]) * Rx_1"));
    /* a second application finds nothing more */
    fixture fx;
    load_text(h, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "hot")};
    rw_refusal why;
    assert_int_equal(rw_applies(rw_find("float_literals"), &ctx, NULL, &why), HK_OK);
    assert_non_null(strstr(why.reason, "no double literal"));
    unload(&fx);
    free(h);
}

static const char refused[] =
    "__global__ void suffixed(const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = 2.0f * x[i];\n"
    "}\n"
    "__global__ void compare(const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n && x[i] < 0.5)\n"
    "        y[i] = x[i];\n"
    "}\n"
    "__global__ void dbl(const double *x, double *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = 2.0 * x[i];\n"
    "}\n"
    "template <typename T>\n"
    "__global__ void tmpl(const T *x, T *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = 2.0 * x[i];\n"
    "}\n";

static void refusals(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"suffixed", "kernel body", 2, "no double literal"},
        {"compare", "kernel body", 8, "no double literal"},
        {"dbl", "kernel body", 14, "no double literal"},
        {"tmpl", "kernel body", 21, "no double literal"},
    };
    rwf_expect_refusals(refused, "float_literals", cases, HK_ARRAY_LEN(cases));
}

/* The wild rodinia_hotspot, rewritten: compiles for sm_90 and its PTX has no FP64 left. */
static void wild_hotspot(void **state)
{
    (void)state;
    fixture fx;
    if (!rwf_load_wild("rodinia_hotspot", &fx))
        return;
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "calculate_temp")};
    rw_result r;
    assert_int_equal(rw_apply_named("float_literals", &ctx, NULL, &r, NULL), HK_OK);
    if (!r.applicable)
        fail_msg("rodinia_hotspot: %s", r.description);
    assert_non_null(strstr(r.text, "2.0f*temp_on_cuda[ty][tx]"));
    rwf_nvcc_compiles_with(&r, "", "flit", "rodinia_hotspot");
    if (access(NVCC, X_OK) == 0) {
        char src[700], cmd[2000], out[8192];
        snprintf(src, sizeof src, "%s/flit_rodinia_hotspot.cu", tmpdir);
        snprintf(cmd, sizeof cmd, "%s -arch=sm_90 -ptx -o - %s 2>&1 | grep -c 'f64'", NVCC, src);
        run_cmd(cmd, out, sizeof out);
        assert_int_equal(atoi(out), 0);
    }
    rw_result_free(&r);
    unload(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emitted_text),
        cmocka_unit_test(refusals),
        cmocka_unit_test(emulated_runs),
        cmocka_unit_test(wild_hotspot),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
