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

/* A point-in-box test in a __device__ template callee that two kernels call (session 40,
 * after mmcv's points_in_boxes): its literals are in a store (`cx += hx / 4.0`) and in
 * comparisons, each a power of two scaling a float (`> hx / 2.0`, `> -hy * 0.5`,
 * `< 0.5 * hy`); first_box's calls deduce T = float from its float pointers, so the callee
 * is rewritten as a copy, inside_hkfl, which first_box calls; count_in keeps inside. */
static const char boxes[] =
    "template <typename T>\n"
    "__device__ inline int inside(const T *p, const T *b)\n"
    "{\n"
    "    T hx = b[2], hy = b[3];\n"
    "    T cx = b[0];\n"
    "    cx += hx / 4.0;\n"
    "    if (fabsf(p[0] - cx) > hx / 2.0)\n"
    "        return 0;\n"
    "    return (p[1] - b[1] > -hy * 0.5) & (p[1] - b[1] < 0.5 * hy);\n"
    "}\n"
    "__global__ void first_box(const float *pts, const float *bx, int *which, int n, int nb)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    int w = -1;\n"
    "    for (int k = 0; k < nb; k++)\n"
    "        if (inside(pts + 2 * i, bx + 4 * k)) {\n"
    "            w = k;\n"
    "            break;\n"
    "        }\n"
    "    which[i] = w;\n"
    "}\n"
    "__global__ void count_in(const float *pts, const float *bx, int *cnt, int n, int nb)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        int c = 0;\n"
    "        for (int k = 0; k < nb; k++)\n"
    "            c += inside(pts + 2 * i, bx + 4 * k);\n"
    "        cnt[i] = c;\n"
    "    }\n"
    "}\n";

/* Points and boxes on a grid of quarters, so that many points lie exactly on an edge (a
 * comparison that moved by one float would change the box found); sizes from 0 up. */
static const char boxes_drv[] =
    "for (int n : {37, 200}) for (int nb : {5, 23}) {\n"
    "    emu::buf<float> pts(2 * n), bx(4 * nb);\n"
    "    for (int j = 0; j < 2 * n; j++) pts[j] = (float)((j * 7 + n) % 29) * 0.25f - 3.5f;\n"
    "    for (int k = 0; k < nb; k++) {\n"
    "        bx[4 * k] = (float)((k * 5) % 11) * 0.5f - 3.0f;\n"
    "        bx[4 * k + 1] = (float)((k * 3) % 13) * 0.5f - 3.0f;\n"
    "        bx[4 * k + 2] = (float)((k * 7) % 9) * 0.5f;\n"
    "        bx[4 * k + 3] = (float)((k * 11) % 10) * 0.75f;\n"
    "    }\n"
    "    PAIR(int, \"first_box\", n + 8, emu::launch(dim3((n + 63) / 64), dim3(64), 0, [&] {\n"
    "        NS::first_box(pts, bx, out, n, nb); }));\n"
    "}\n";

static void emulated_runs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *c3 = emu_rewrite(boxes, "first_box", "float_literals", NULL);
    emu_batch_add_pair(&batch, "boxes", boxes, c3, EMU_PAIR, boxes_drv, EMU_OK);
    /* a comparison whose scale moved: the points on that edge change box */
    char *moved = emu_replaced(c3, "> hx / 2.0f)", "> hx / 2.5f)");
    emu_batch_add_pair(&batch, "boxes_moved", boxes, moved, EMU_PAIR, boxes_drv, EMU_DIFFERS);
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
    free(c3);
    free(moved);
}

/* The callee and comparison rules' text: the copy, the renamed calls, the other kernel's
 * callee untouched; a callee only the kernel calls changed in place; the kernel's template
 * type through its arguments; what the comparison rule leaves. */
static const char callees[] =
    "__device__ float half_of(float a) { float h = a / 2.0 + 1.0; return h; }\n"
    "template <typename T>\n"
    "__device__ T scaled(T a, T s) { T r = a * s * 0.1; return r; }\n"
    "template <typename T>\n"
    "__global__ void tk(const T *x, T *y, int *f, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n)\n"
    "        return;\n"
    "    T v = x[i];\n"
    "    y[i] = half_of(v) + scaled(v, v);\n"
    "    f[i] = (v > x[0] / 2.0) + (v < x[1] * 0.1) + (i < v / 2.0) + (v > 2.0 * x[2]) + (v < x[3] + v / 4.0) +\n"
    "           (v <= 0.25 * x[4]) + (v == (x[5] + 1.0f) / 8.0);\n"
    "}\n"
    "__global__ void other(const double *x, double *y)\n"
    "{\n"
    "    y[0] = scaled(x[0], x[1]);\n"
    "}\n";

static void callee_text(void **state)
{
    (void)state;
    fixture fx;
    load_text(callees, &fx);
    static const char *const targs[] = {"float"};
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "tk"), .template_args = targs,
                      .n_template_args = 1};
    rw_result r;
    assert_int_equal(rw_apply_named("float_literals", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    print_message("%s\n", r.description);
    static const char *const want[] = {
        "__device__ float half_of(float a) { float h = a / 2.0f + 1.0f; return h; }", /* only tk calls it: in place */
        "__device__ T scaled(T a, T s) { T r = a * s * 0.1; return r; }",      /* other() calls it: kept */
        "__device__ T scaled_hkfl(T a, T s) { T r = a * s * 0.1f; return r; }", /* ... and copied for tk */
        "y[i] = half_of(v) + scaled_hkfl(v, v);",
        "y[0] = scaled(x[0], x[1]);",
        "(v > x[0] / 2.0f)",        /* a power of two shrinking a float */
        "(v < x[1] * 0.1)",         /* not a power of two */
        "(i < v / 2.0)",            /* an integer operand: rounds in float past 2^24 */
        "(v > 2.0 * x[2])",         /* a scale that grows */
        "(v < x[3] + v / 4.0)",     /* the scaling is not the whole side */
        "(v <= 0.25f * x[4])",
        "(v == (x[5] + 1.0f) / 8.0f)",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++)
        if (!strstr(r.text, want[i]))
            fail_msg("no `%s` in\n%s", want[i], r.text);
    assert_non_null(strstr(r.description, "in the __device__ functions the kernel calls (half_of, scaled as scaled_hkfl"));
    rwf_nvcc_compiles_with(&r, "\ntemplate __global__ void tk<float>(const float *, float *, int *, int);\n", "flit",
                           "callees");
    rw_result_free(&r);
    /* without template arguments T is not known: only half_of and the comparisons whose
     * names are all float are left, and there are none of those */
    rw_context bare = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "tk")};
    assert_int_equal(rw_apply_named("float_literals", &bare, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.text, "float h = a / 2.0f + 1.0f; return h; }"));
    assert_null(strstr(r.text, "scaled_hkfl"));
    assert_non_null(strstr(r.text, "(v > x[0] / 2.0)"));
    rw_result_free(&r);
    unload(&fx);
    /* the points-in-box kernel: the copy, first_box's call renamed, count_in's kept */
    char *t = emu_rewrite(boxes, "first_box", "float_literals", NULL);
    assert_non_null(strstr(t, "__device__ inline int inside_hkfl(const T *p, const T *b)"));
    assert_non_null(strstr(t, "    cx += hx / 4.0f;\n    if (fabsf(p[0] - cx) > hx / 2.0f)"));
    assert_non_null(strstr(t, "(p[1] - b[1] > -hy * 0.5f) & (p[1] - b[1] < 0.5f * hy)"));
    assert_non_null(strstr(t, "if (inside_hkfl(pts + 2 * i, bx + 4 * k))"));
    assert_non_null(strstr(t, "c += inside(pts + 2 * i, bx + 4 * k);"));
    assert_non_null(strstr(t, "    cx += hx / 4.0;\n    if (fabsf(p[0] - cx) > hx / 2.0)"));
    free(t);
}

/* Literals the compiler converts already, or narrows (one operation of two floats rounded
 * to float is the float operation): nothing to gain, refused. */
static const char narrowed[] =
    "__global__ void consts(const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float acc = 0.0;\n"
    "    float h = 1. - x[i];\n"
    "    float w = x[i] * x[i] / 2.0;\n"
    "    h += 0.5;\n"
    "    if (i < n)\n"
    "        y[i] = (float)0.5 * (acc + h + w);\n"
    "}\n"
    "__global__ void chained(const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float h = 1. - x[i] - x[n];\n"
    "    if (i < n)\n"
    "        y[i] = h;\n"
    "}\n";

static void compiler_narrowed(void **state)
{
    (void)state;
    static const rwf_refusal cases[] = {
        {"consts", "kernel body", 2, "no double literal"},
    };
    rwf_expect_refusals(narrowed, "float_literals", cases, HK_ARRAY_LEN(cases));
    /* two operations in double: the first is not narrowed */
    char *t = emu_rewrite(narrowed, "chained", "float_literals", NULL);
    assert_non_null(strstr(t, "float h = 1.f - x[i] - x[n];"));
    free(t);
}

/* mmcv's points_in_boxes_part: the callee check_pt_in_box3d (its half sizes, `/ 2.0`, in a
 * store and four comparisons) is copied for the part kernel (the all kernel calls it too),
 * and the kernel's PTX holds no FP64 conversion (9 cvt.f64.f32 before). */
static void wild_points_in_boxes(void **state)
{
    (void)state;
    fixture fx;
    if (!rwf_load_wild("mmcv_points_in_boxes_part", &fx))
        return;
    static const char *const targs[] = {"float"};
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m,
                      .kernel = kernel(&fx, "points_in_boxes_part_forward_cuda_kernel"), .template_args = targs,
                      .n_template_args = 1};
    rw_result r;
    assert_int_equal(rw_apply_named("float_literals", &ctx, NULL, &r, NULL), HK_OK);
    if (!r.applicable)
        fail_msg("points_in_boxes: %s", r.description);
    assert_non_null(strstr(r.text, "check_pt_in_box3d_hkfl(pts, boxes + k * 7, local_x, local_y)"));
    assert_non_null(strstr(r.text, "(local_x > -x_size / 2.0f) & (local_x < x_size / 2.0f)"));
    assert_non_null(strstr(r.text, "check_pt_in_box3d(pts, boxes + k * 7, local_x, local_y);"));
    static const rwf_ptx_want no_cvt = {.has = {"points_in_boxes_part_forward"}, .lacks = {"cvt.f64.f32"}};
    char *inst = hk_asprintf("%s\ntemplate __global__ void points_in_boxes_part_forward_cuda_kernel<float>(int, int, "
                             "int, const float *, const float *, int *);\n",
                             r.text);
    assert_non_null(inst);
    /* only the part kernel instantiated: the all kernel (the original callee) is not in the PTX */
    rwf_nvcc_ptx(inst, "flit_points_in_boxes", rwf_ptx_has_lacks, &no_cvt);
    hk_free(inst);
    rw_result_free(&r);
    unload(&fx);
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
        cmocka_unit_test(callee_text),
        cmocka_unit_test(compiler_narrowed),
        cmocka_unit_test(wild_points_in_boxes),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
