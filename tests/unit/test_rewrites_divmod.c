/* fast_divmod (issue 13): `/` and `%` by a divisor invariant over the kernel, written as
 * others write them -- mmcv's CUDA_1D_KERNEL_LOOP splitting its flat index into four
 * coordinates, an explicit grid-stride loop over a local `hw = h * w` with the remainder
 * spelled `rest - (rest / w) * w`, a guarded thread with an inner loop over dividends of
 * either sign, a dividend shifted below zero by a parameter, unsigned, and int divided by
 * an unsigned divisor (C's unsigned arithmetic) -- must apply, compile with nvcc and, in
 * the block emulator (emu_block.h), give exactly the original's outputs for divisors of
 * both signs and every size up to INT_MAX and INT_MIN. The helpers themselves, compiled as
 * host code, must equal `/` and `%` on edge and random pairs and compute the reference
 * magic numbers for every divisor up to 2^20 and random ones. What it must refuse (a
 * constant divisor, one division per thread, a 64-bit dividend, a divisor written in the
 * loop or passed by reference, only float division, a cast dividend, a goto, an #if in the
 * body) names the construct and line. Where bench/wild/src is extracted, mmcv's roi_align,
 * bbox_overlaps, carafe, tin_shift, deform_im2col, psamask and sigmoid focal loss are
 * rewritten and compiled, and tin_shift and sigmoid focal loss emulated exactly equal. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_divmod.h"

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
    return rwf_setup("rewrites-divmod");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static const char kernels[] =
    "#define CUDA_1D_KERNEL_LOOP(i, n) \\\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)\n"
    "\n"
    "__global__ void pool_coords(const float *in, float *out, int nthreads, int pooled_w, int pooled_h, int channels)\n"
    "{\n"
    "    CUDA_1D_KERNEL_LOOP(index, nthreads) {\n"
    "        int pw = index % pooled_w;\n"
    "        int ph = (index / pooled_w) % pooled_h;\n"
    "        int c = (index / pooled_w / pooled_h) % channels;\n"
    "        int n = index / pooled_w / pooled_h / channels;\n"
    "        out[index] = in[index] + pw + 10 * ph + 100 * c + 1000 * n;\n"
    "    }\n"
    "}\n"
    "\n"
    "__global__ void nchw_split(const float *x, float *y, int total, int h, int w)\n"
    "{\n"
    "    const int hw = h * w;\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += blockDim.x * gridDim.x) {\n"
    "        int plane = i / hw;\n"
    "        int rest = i - plane * hw;\n"
    "        int row = rest / w;\n"
    "        int col = rest - (rest / w) * w;\n"
    "        y[i] = x[i] * 2.0f + plane + row * 0.5f + col * 0.25f;\n"
    "    }\n"
    "}\n"
    "\n"
    "__global__ void guarded_rows(const int *idx, float *out, int n, int k, int w)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        for (int j = 0; j < k; j++) {\n"
    "            int e = idx[i] + j;\n"
    "            out[i * k + j] = (float)(e / w) + 0.001f * (float)(e % w);\n"
    "        }\n"
    "    }\n"
    "}\n"
    "\n"
    "__global__ void shifted(const float *in, float *out, int n, int off, int d)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int v = i - off;\n"
    "        int q = v / d, r = v % d;\n"
    "        out[i] = in[i] + q * 3 + r;\n"
    "    }\n"
    "}\n"
    "\n"
    "__global__ void unsigned_split(const float *in, float *out, unsigned n, unsigned w)\n"
    "{\n"
    "    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        unsigned col = i % w, row = i / w;\n"
    "        out[i] = in[i] + (float)col + 1000.0f * (float)row;\n"
    "    }\n"
    "}\n"
    "\n"
    "__global__ void mixed_split(float *out, int n, unsigned w, int base)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int v = i + base;\n"
    "        out[i] = (float)(v / w) + 0.5f * (float)(v % w);\n"
    "    }\n"
    "}\n";

static const char *const applying[] = {"pool_coords", "nchw_split", "guarded_rows", "shifted", "unsigned_split",
                                       "mixed_split"};

/* Each kernel applies and its text compiles. */
static void applies_and_compiles(void **state)
{
    (void)state;
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        char *cand = emu_rewrite(kernels, applying[i], "fast_divmod", NULL);
        char tag[64];
        snprintf(tag, sizeof tag, "divmod_%s", applying[i]);
        rwf_nvcc_compiles(cand, tag);
        free(cand);
    }
}

/* What the emitted text holds: one setup per divisor before the loop, the short form where
 * the dividend is a non-negative counter or a remainder of one, the signed form for a
 * quotient's quotient, unsigned arithmetic where C has it, literals and floats untouched. */
static void emitted_shape(void **state)
{
    (void)state;
    char *c = emu_rewrite(kernels, "pool_coords", "fast_divmod", NULL);
    assert_non_null(strstr(c, "    const hk_fdiv hk_fd0 = hk_fdiv_make_s(pooled_w);\n"
                              "    const hk_fdiv hk_fd1 = hk_fdiv_make_s(pooled_h);\n"
                              "    const hk_fdiv hk_fd2 = hk_fdiv_make_s(channels);\n"
                              "    CUDA_1D_KERNEL_LOOP(index, nthreads) {\n"));
    assert_non_null(strstr(c, "        int pw = hk_fdiv_r_nn(index, hk_fd0);\n"));
    assert_non_null(strstr(c, "        int ph = hk_fdiv_r_s((hk_fdiv_q_nn(index, hk_fd0)), hk_fd1);\n"));
    assert_non_null(strstr(c, "        int n = hk_fdiv_q_s(hk_fdiv_q_s(hk_fdiv_q_nn(index, hk_fd0), hk_fd1), hk_fd2);\n"));
    assert_non_null(strstr(c, "struct hk_fdiv {"));
    free(c);
    c = emu_rewrite(kernels, "nchw_split", "fast_divmod", NULL);
    assert_non_null(strstr(c, "    const int hw = h * w;\n    const hk_fdiv hk_fd0 = hk_fdiv_make_s(hw);\n"));
    assert_non_null(strstr(c, "        int col = rest - (hk_fdiv_q_s(rest, hk_fd1)) * w;\n"));
    free(c);
    c = emu_rewrite(kernels, "guarded_rows", "fast_divmod", NULL);
    assert_non_null(strstr(c, "(float)(hk_fdiv_q_s(e, hk_fd0)) + 0.001f * (float)(hk_fdiv_r_s(e, hk_fd0));"));
    free(c);
    /* a counter written in the body is not proved non-negative: the signed form */
    static const char stepped[] =
        "__global__ void stepped(float *out, int n, int w)\n"
        "{\n"
        "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
        "        out[i] = (float)(i % w);\n"
        "        i += 0;\n"
        "    }\n"
        "}\n";
    c = emu_rewrite(stepped, "stepped", "fast_divmod", NULL);
    assert_non_null(strstr(c, "out[i] = (float)(hk_fdiv_r_s(i, hk_fd0));"));
    free(c);
    c = emu_rewrite(kernels, "unsigned_split", "fast_divmod", NULL);
    assert_non_null(strstr(c, "unsigned col = hk_fdiv_r_u(i, hk_fd0), row = hk_fdiv_q_u(i, hk_fd0);"));
    free(c);
    c = emu_rewrite(kernels, "mixed_split", "fast_divmod", NULL);
    assert_non_null(strstr(c, "hk_fdiv_make_u(w)"));
    assert_non_null(strstr(c, "(float)(hk_fdiv_q_u(v, hk_fd0))"));
    free(c);

    fixture fx;
    load_text(kernels, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "pool_coords")};
    rw_result r;
    assert_int_equal(rw_apply_named("fast_divmod", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.description, "`pooled_w` (line 7), `pooled_h` (line 8), `channels` (line 9)"));
    /* applied twice: the second sees the first's magic numbers */
    fixture again;
    load_text(r.text, &again);
    rw_context ctx2 = {.text = again.text, .len = again.len, .m = again.m, .kernel = kernel(&again, "pool_coords")};
    rw_result r2;
    rw_refusal why;
    assert_int_equal(rw_apply_named("fast_divmod", &ctx2, NULL, &r2, &why), HK_OK);
    assert_false(r2.applicable);
    assert_non_null(strstr(r2.description, "magic numbers already"));
    rw_result_free(&r2);
    unload(&again);
    rw_result_free(&r);
    unload(&fx);
}

static int call_divmod(const fixture *fx, size_t k, rw_result *r)
{
    rw_context ctx = {.text = fx->text, .len = fx->len, .m = fx->m, .kernel = k};
    return rw_apply_named("fast_divmod", &ctx, NULL, r, NULL);
}

/* Out of memory anywhere: HK_ENOMEM and nothing left allocated. */
static void survives_allocation_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "pool_coords"), call_divmod);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "shifted"), call_divmod);
    unload(&fx);
}

static const char refused[] =
    "__global__ void constant_div(const float *in, float *out, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        out[i] = in[i] * (float)(i % 32);\n"
    "}\n"
    "__global__ void one_per_thread(const float *in, float *out, int n, int w)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = in[i] + (float)(i % w);\n"
    "}\n"
    "__global__ void wide_index(const float *in, float *out, size_t n, int w)\n"
    "{\n"
    "    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        out[i] = in[i] + (float)(i % w);\n"
    "}\n"
    "__global__ void moving_divisor(const float *in, float *out, int n, int w)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        w = w + 1;\n"
    "        out[i] = in[i] + (float)(i % w);\n"
    "    }\n"
    "}\n"
    "__global__ void float_div(const float *in, float *out, int n, float s)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        out[i] = in[i] / s;\n"
    "}\n"
    "__device__ void bump(int &x) { x++; }\n"
    "__global__ void by_reference(const float *in, float *out, int n, int w)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        bump(w);\n"
    "        out[i] = in[i] + (float)(i / w);\n"
    "    }\n"
    "}\n"
    "__global__ void cast_dividend(const float *in, float *out, int n, int w)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        out[i] = in[i] + (float)((long long)i % w);\n"
    "}\n"
    "__global__ void jumps(const float *in, float *out, int n, int w)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        if (in[i] < 0.0f)\n"
    "            goto done;\n"
    "        out[i] = in[i] + (float)(i % w);\n"
    "    }\n"
    "done:\n"
    "    return;\n"
    "}\n"
    "__global__ void branches(const float *in, float *out, int n, int w)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "#if USE_PLUS\n"
    "        out[i] = in[i] + (float)(i % w);\n"
    "#else\n"
    "        out[i] = in[i] - (float)(i % w);\n"
    "#endif\n"
    "    }\n"
    "}\n"
    "__global__ void cast_chain(float *out, int n, int w)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n"
    "        int j = i + 1;\n"
    "        out[i] = (float)((long long)i * j / w);\n"
    "    }\n"
    "}\n";

static const rwf_refusal refusals[] = {
    {"constant_div", "division", 4, "`32` is a constant"},
    {"one_per_thread", "division", 10, "outside loops only"},
    {"wide_index", "division", 15, "64-bit"},
    {"moving_divisor", "division", 21, "`w` (line 20)"},
    {"float_div", "kernel body", 25, "no integer division by a runtime value"},
    {"by_reference", "division", 34, "`w` (line 33)"},
    {"cast_dividend", "division", 40, "not a plain operand"},
    {"jumps", "goto", 46, "cross the divisors' setup"},
    {"branches", "preprocessor conditional", 55, "both branches"},
    {"cast_chain", "division", 66, "not a plain operand"},
};

/* Each refuses through the registry with its construct and line, and the driver says the
 * same. */
static void refusals_name_construct_and_line(void **state)
{
    (void)state;
    rwf_expect_refusals(refused, "fast_divmod", refusals, HK_ARRAY_LEN(refusals));
}

/* The emulated cases: every kernel against its rewrite, over divisors of both signs and
 * the edges of int, dividends below zero, unsigned values past INT_MAX. */
static const char helpers[] =
    "static const int DIVS[] = {1, -1, 2, 3, -3, 7, 49, -64, 1000003, 2147483647, -2147483647, (int)0x80000000};\n"
    "static void pool_coords_case(void)\n"
    "{\n"
    "    static const int dims[][3] = {{7, 7, 5}, {1, 1, 1}, {3, -2, 4}, {-5, 3, 2}, {64, 1, 3}, {2147483647, 2, 3}};\n"
    "    for (int z = 0; z < 6; z++) {\n"
    "        const int n = 1531;\n"
    "        emu::buf<float> in(n), a(n), b(n);\n"
    "        in.fill(z + 1);\n"
    "        a.set(-7.0f);\n"
    "        b.set(-7.0f);\n"
    "        emu::schedule = z % 3;\n"
    "        const dim3 g(3), blk(64);\n"
    "        emu::launch(g, blk, 0, [&] { orig::pool_coords(in, a, n, dims[z][0], dims[z][1], dims[z][2]); });\n"
    "        emu::launch(g, blk, 0, [&] { cand::pool_coords(in, b, n, dims[z][0], dims[z][1], dims[z][2]); });\n"
    "        emu::expect(\"pool_coords\", a, b);\n"
    "    }\n"
    "}\n"
    "static void nchw_split_case(void)\n"
    "{\n"
    "    static const int dims[][2] = {{5, 7}, {1, 1}, {-3, 4}, {6, -5}, {1, 2147483647}, {32, 32}};\n"
    "    for (int z = 0; z < 6; z++) {\n"
    "        const int n = 2000;\n"
    "        emu::buf<float> x(n), a(n), b(n);\n"
    "        x.fill(z + 3);\n"
    "        a.set(-7.0f);\n"
    "        b.set(-7.0f);\n"
    "        emu::launch(dim3(2), dim3(96), 0, [&] { orig::nchw_split(x, a, n, dims[z][0], dims[z][1]); });\n"
    "        emu::launch(dim3(2), dim3(96), 0, [&] { cand::nchw_split(x, b, n, dims[z][0], dims[z][1]); });\n"
    "        emu::expect(\"nchw_split\", a, b);\n"
    "    }\n"
    "}\n"
    "static void guarded_rows_case(void)\n"
    "{\n"
    "    for (int z = 0; z < 12; z++) {\n"
    "        const int n = 150, k = 9;\n"
    "        emu::buf<int> idx(n);\n"
    "        emu::buf<float> a(n * k), b(n * k);\n"
    "        idx.fill_mod(z + 5, 4000);\n"
    "        for (int t = 0; t < n; t++)\n"
    "            idx[t] = idx[t] - 2000;\n"
    "        idx[0] = 2147483647 - k;\n"
    "        idx[1] = -2147483647;\n"
    "        a.set(-7.0f);\n"
    "        b.set(-7.0f);\n"
    "        emu::launch(dim3(3), dim3(64), 0, [&] { orig::guarded_rows(idx, a, n, k, DIVS[z]); });\n"
    "        emu::launch(dim3(3), dim3(64), 0, [&] { cand::guarded_rows(idx, b, n, k, DIVS[z]); });\n"
    "        emu::expect(\"guarded_rows\", a, b);\n"
    "    }\n"
    "}\n"
    "static void shifted_case(void)\n"
    "{\n"
    "    static const int offs[] = {0, 500, 2147483647, -2147481000};\n"
    "    for (int z = 0; z < 12 * 4; z++) {\n"
    "        const int n = 1200;\n"
    "        emu::buf<float> in(n), a(n), b(n);\n"
    "        in.fill(z);\n"
    "        a.set(-7.0f);\n"
    "        b.set(-7.0f);\n"
    "        emu::launch(dim3(2), dim3(128), 0, [&] { orig::shifted(in, a, n, offs[z % 4], DIVS[z / 4]); });\n"
    "        emu::launch(dim3(2), dim3(128), 0, [&] { cand::shifted(in, b, n, offs[z % 4], DIVS[z / 4]); });\n"
    "        emu::expect(\"shifted\", a, b);\n"
    "    }\n"
    "}\n"
    "static void unsigned_split_case(void)\n"
    "{\n"
    "    static const unsigned ws[] = {1u, 2u, 3u, 7u, 640u, 65537u, 2147483648u, 4294967295u};\n"
    "    for (int z = 0; z < 8; z++) {\n"
    "        const unsigned n = 999;\n"
    "        emu::buf<float> in(n), a(n), b(n);\n"
    "        in.fill(z + 9);\n"
    "        a.set(-7.0f);\n"
    "        b.set(-7.0f);\n"
    "        emu::launch(dim3(2), dim3(64), 0, [&] { orig::unsigned_split(in, a, n, ws[z]); });\n"
    "        emu::launch(dim3(2), dim3(64), 0, [&] { cand::unsigned_split(in, b, n, ws[z]); });\n"
    "        emu::expect(\"unsigned_split\", a, b);\n"
    "    }\n"
    "}\n"
    "static void mixed_split_case(void)\n"
    "{\n"
    "    static const unsigned ws[] = {1u, 3u, 7u, 1000u, 2147483648u, 4294967295u};\n"
    "    static const int bases[] = {0, -500, -2147483647, 2147482000};\n"
    "    for (int z = 0; z < 6 * 4; z++) {\n"
    "        const int n = 1000;\n"
    "        emu::buf<float> a(n), b(n);\n"
    "        a.set(-7.0f);\n"
    "        b.set(-7.0f);\n"
    "        emu::launch(dim3(2), dim3(64), 0, [&] { orig::mixed_split(a, n, ws[z / 4], bases[z % 4]); });\n"
    "        emu::launch(dim3(2), dim3(64), 0, [&] { cand::mixed_split(b, n, ws[z / 4], bases[z % 4]); });\n"
    "        emu::expect(\"mixed_split\", a, b);\n"
    "    }\n"
    "}\n";

/* The running test's emulated programs (emu_batch.h): queued by emulate(), built together
 * and checked, each on its own, by emu_batch_run at the test's end. */
static emu_batch batch;
#define emulate(tag, src, cand, driver, want) emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, want)

/* Every applying kernel emulated against its original: exactly equal. */
static void emulated_equal(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        char *cand = emu_rewrite(kernels, applying[i], "fast_divmod", NULL);
        char driver[200];
        snprintf(driver, sizeof driver, "%s_case();", applying[i]);
        emulate(applying[i], kernels, cand, driver, EMU_OK);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* The check can fail: the short form (valid for dividends >= 0 only) put where the
 * dividend goes below zero, and a magic number one too small, both differ. */
static void broken_differs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(kernels, "shifted", "fast_divmod", NULL);
    char *broken = emu_replaced(cand, "int q = hk_fdiv_q_s(v, hk_fd0)", "int q = hk_fdiv_q_nn(v, hk_fd0)");
    emulate("broken_sign", kernels, broken, "shifted_case();", EMU_DIFFERS);
    free(broken);
    broken = emu_replaced(cand, "f.m = (unsigned)(q + 1u);", "f.m = (unsigned)q;");
    emulate("broken_magic", kernels, broken, "shifted_case();", EMU_DIFFERS);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

/* The helpers as host code against `/` and `%`: the magic numbers of every divisor up to
 * 2^20, of 2^k - 3 .. 2^k + 3 and of random ones equal the reference computed in 128 bits,
 * and the quotients and remainders of edge and random pairs (int, non-negative int,
 * unsigned) equal C's. */
static const char host_driver[] =
    "#define __device__\n"
    "#define __forceinline__ inline\n"
    "static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }\n"
    "static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }\n"
    "#include \"helpers.h\"\n"
    "#include <climits>\n"
    "#include <cstdio>\n"
    "static unsigned long long rng = 88172645463325252ull;\n"
    "static unsigned next32() { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (unsigned)(rng >> 11); }\n"
    "static long fails = 0, checks = 0;\n"
    "#define CHECK(c, ...) do { checks++; if (!(c) && fails++ < 20) { printf(__VA_ARGS__); printf(\"\\n\"); } } while (0)\n"
    "static void magic(unsigned a) {\n"
    "    if (!a) return;\n"
    "    hk_fdiv f = hk_fdiv_make_u(a);\n"
    "    unsigned s = 0; while (s < 32 && (1ull << s) < a) s++;\n"
    "    unsigned __int128 r = ((unsigned __int128)1 << s) - a;\n"
    "    unsigned long long m = (unsigned long long)((r << 32) / a) + 1;\n"
    "    CHECK(f.s == s && f.m == (unsigned)m && m < (1ull << 32) && f.a == a, \"magic a=%u: m=%u s=%u want m=%llu s=%u\", a, f.m, f.s, m, s);\n"
    "}\n"
    "static void sdiv(int n, int d) {\n"
    "    if (d == 0 || (n == INT_MIN && d == -1)) return;\n"
    "    hk_fdiv f = hk_fdiv_make_s(d);\n"
    "    CHECK(hk_fdiv_q_s(n, f) == n / d && hk_fdiv_r_s(n, f) == n % d, \"s n=%d d=%d: q=%d r=%d\", n, d, hk_fdiv_q_s(n, f), hk_fdiv_r_s(n, f));\n"
    "    if (n >= 0) CHECK(hk_fdiv_q_nn(n, f) == n / d && hk_fdiv_r_nn(n, f) == n % d, \"nn n=%d d=%d: q=%d r=%d\", n, d, hk_fdiv_q_nn(n, f), hk_fdiv_r_nn(n, f));\n"
    "}\n"
    "static void udiv(unsigned n, unsigned d) {\n"
    "    if (!d) return;\n"
    "    hk_fdiv f = hk_fdiv_make_u(d);\n"
    "    CHECK(hk_fdiv_q_u(n, f) == n / d && hk_fdiv_r_u(n, f) == n % d, \"u n=%u d=%u: q=%u r=%u\", n, d, hk_fdiv_q_u(n, f), hk_fdiv_r_u(n, f));\n"
    "}\n"
    "int main() {\n"
    "    for (unsigned a = 1; a <= (1u << 20); a++) magic(a);\n"
    "    for (int k = 0; k < 33; k++) for (int dl = -3; dl <= 3; dl++) { unsigned long long a = (1ull << k) + dl; if (a >= 1 && a <= 0xffffffffull) magic((unsigned)a); }\n"
    "    for (int i = 0; i < 1000000; i++) magic(next32() | 1u), magic(next32() >> (next32() % 32));\n"
    "    int ds[64]; int nd = 0;\n"
    "    const int base[] = {1, 2, 3, 5, 7, 10, 49, 64, 100, 255, 256, 641, 1000, 4096, 65535, 65536, 65537, 1 << 20, 1000003, 1 << 30, (1 << 30) + 1, INT_MAX - 1, INT_MAX};\n"
    "    for (int x : base) { ds[nd++] = x; ds[nd++] = -x; }\n"
    "    ds[nd++] = INT_MIN; ds[nd++] = INT_MIN + 1;\n"
    "    for (int i = 0; i < nd; i++) {\n"
    "        int d = ds[i]; long long ad = d < 0 ? -(long long)d : d;\n"
    "        const long long ns[] = {0, 1, 2, ad - 1, ad, ad + 1, 2 * ad - 1, 2 * ad, INT_MAX, INT_MAX - 1, -1, -ad, -ad + 1, -ad - 1, INT_MIN, INT_MIN + 1, INT_MAX / 2};\n"
    "        for (long long n : ns) if (n >= INT_MIN && n <= INT_MAX) sdiv((int)n, d);\n"
    "        for (int j = 0; j < 10000; j++) sdiv((int)next32(), d), sdiv((int)(next32() >> (next32() % 32)), d);\n"
    "        const unsigned ud = (unsigned)d;\n"
    "        const unsigned uns[] = {0u, 1u, ud - 1, ud, ud + 1, 0xffffffffu, 0x7fffffffu, 0x80000000u};\n"
    "        for (unsigned n : uns) udiv(n, ud);\n"
    "        for (int j = 0; j < 10000; j++) udiv(next32(), ud);\n"
    "    }\n"
    "    for (int j = 0; j < 1000000; j++) {\n"
    "        int d = (int)(next32() >> (next32() % 32)); if (next32() & 1) d = -d;\n"
    "        sdiv((int)(next32() >> (next32() % 32)) * ((next32() & 1) ? 1 : -1), d);\n"
    "        udiv(next32() >> (next32() % 32), next32() >> (next32() % 32));\n"
    "        udiv(next32(), next32());\n"
    "    }\n"
    "    printf(\"%ld checks, %ld failures\\n\", checks, fails);\n"
    "    return fails != 0;\n"
    "}\n";

/* The host driver over helpers (their text): compiled and run, it must find no failure. */
static void host_check(const char *helpers_text)
{
    char path[700], cmd[2400], log[8192];
    snprintf(path, sizeof path, "%s/helpers.h", tmpdir);
    rwf_write_file(path, helpers_text);
    snprintf(path, sizeof path, "%s/divmod_host.cpp", tmpdir);
    rwf_write_file(path, host_driver);
    snprintf(cmd, sizeof cmd, "%s -std=gnu++17 -O2 -Wall -Wextra -Werror -o '%s/divmod_host' '%s' 2>&1 && '%s/divmod_host' 2>&1",
             TEST_CXX, tmpdir, path, tmpdir);
    int st = run_cmd(cmd, log, sizeof log);
    if (st != 0)
        print_message("%s\n", log);
    assert_int_equal(st, 0);
    assert_non_null(strstr(log, " 0 failures"));
}

static void helpers_equal_c_division(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    host_check(rw_fast_divmod_helpers());
    /* the setup's double quotient one above or one below the floor (a division that is not
     * correctly rounded): the integer check still lands on the exact magic number */
    char *off = emu_replaced(rw_fast_divmod_helpers(),
                             "unsigned long long q = (unsigned long long)((double)r * 4294967296.0 / (double)a);",
                             "unsigned long long q = (unsigned long long)(((unsigned __int128)r << 32) / a);\n"
                             "    q = q + (a % 3 == 1) - (a % 3 == 2 && q > 0);");
    host_check(off);
    free(off);
}

/* mmcv's kernels as bench/wild extracted them (skipped where they are not): the rewrite
 * applies to each, its text compiles with nvcc for the spec's float instantiation, and
 * tin_shift (integer coordinates and a shift table) and sigmoid focal loss (the class of
 * each element, with and without weights) emulate exactly equal to the originals on shapes
 * whose sizes are 1, odd, and not multiples of one another. */
static const char tin_shift_helpers[] =
    "static void tin_shift_case(void)\n"
    "{\n"
    "    static const int shapes[][5] = {{2, 4, 6, 35, 2}, {3, 5, 4, 7, 4}, {1, 3, 3, 1, 1}, {2, 2, 8, 13, 8}};\n"
    "    for (int z = 0; z < 4; z++) {\n"
    "        const int N = shapes[z][0], T = shapes[z][1], C = shapes[z][2], HW = shapes[z][3], G = shapes[z][4];\n"
    "        const int n = N * HW * C;\n"
    "        emu::buf<float> in(N * T * C * HW), a(N * T * C * HW), b(N * T * C * HW);\n"
    "        emu::buf<int> shift(N * G);\n"
    "        in.fill(z + 2);\n"
    "        shift.fill_mod(z + 1, 2 * T + 1);\n"
    "        for (int i = 0; i < N * G; i++)\n"
    "            shift[i] = shift[i] - T;\n"
    "        a.set(0.0f);\n"
    "        b.set(0.0f);\n"
    "        emu::schedule = z % 3;\n"
    "        emu::launch(dim3(2), dim3(64), 0, [&] { orig::tin_shift_forward_cuda_kernel<float>(n, in, shift, a, N, C, T, HW, G, C / G); });\n"
    "        emu::launch(dim3(2), dim3(64), 0, [&] { cand::tin_shift_forward_cuda_kernel<float>(n, in, shift, b, N, C, T, HW, G, C / G); });\n"
    "        emu::expect(\"tin_shift\", a, b);\n"
    "    }\n"
    "}\n";
static const char sigmoid_focal_helpers[] =
    "static void sigmoid_focal_case(void)\n"
    "{\n"
    "    static const int shapes[][2] = {{37, 5}, {5, 81}, {64, 1}, {11, 17}};\n"
    "    for (int z = 0; z < 8; z++) {\n"
    "        const int N = shapes[z % 4][0], C = shapes[z % 4][1], n = N * C;\n"
    "        emu::buf<float> in(n), w(C), a(n), b(n);\n"
    "        emu::buf<int64_t> target(N);\n"
    "        in.fill(z + 4);\n"
    "        w.fill(z + 5);\n"
    "        target.fill_mod(z + 3, C);\n"
    "        a.set(-7.0f);\n"
    "        b.set(-7.0f);\n"
    "        const float *wp = z < 4 ? (const float *)nullptr : (const float *)w;\n"
    "        emu::launch(dim3(3), dim3(32), 0, [&] { orig::sigmoid_focal_loss_forward_cuda_kernel<float>(n, in, target, wp, a, 2.0f, 0.25f, C); });\n"
    "        emu::launch(dim3(3), dim3(32), 0, [&] { cand::sigmoid_focal_loss_forward_cuda_kernel<float>(n, in, target, wp, b, 2.0f, 0.25f, C); });\n"
    "        emu::expect(\"sigmoid_focal_loss\", a, b);\n"
    "    }\n"
    "}\n";

static void wild_kernels(void **state)
{
    (void)state;
    static const struct {
        const char *id, *kernel, *helpers, *driver;
    } wild[] = {
        {"mmcv_roi_align_fwd", "roi_align_forward_cuda_kernel", NULL, NULL},
        {"mmcv_bbox_overlaps", "bbox_overlaps_cuda_kernel", NULL, NULL},
        {"mmcv_carafe_naive_fwd", "carafe_naive_forward_cuda_kernel", NULL, NULL},
        {"mmcv_tin_shift_fwd", "tin_shift_forward_cuda_kernel", tin_shift_helpers, "tin_shift_case();"},
        {"mmcv_deform_im2col", "deformable_im2col_gpu_kernel", NULL, NULL},
        {"mmcv_psamask_collect_fwd", "psamask_collect_forward_cuda", NULL, NULL},
        {"mmcv_sigmoid_focal_loss_fwd", "sigmoid_focal_loss_forward_cuda_kernel", sigmoid_focal_helpers,
         "sigmoid_focal_case();"},
    };
    /* the emulated ones in one program (emu_batch.h), each case run alone and named when it
     * does not give its want */
    emu_batch_init(&batch, tmpdir, __func__);
    for (size_t i = 0; i < HK_ARRAY_LEN(wild); i++) {
        char *src = rwf_wild_text(wild[i].id, NULL);
        if (!src)
            continue;
        char *cand = emu_rewrite(src, wild[i].kernel, "fast_divmod", NULL);
        char *probe = NULL;
        size_t n = strlen(cand) + 256;
        assert_non_null(probe = malloc(n));
        snprintf(probe, n, "%s\nvoid hk_instantiate(void) { void *p = (void *)&%s<float>; (void)p; }\n", cand,
                 wild[i].kernel);
        rwf_nvcc_compiles(probe, wild[i].id);
        if (wild[i].driver && emu_available()) {
            /* both texts go into one program: the original's include guards renamed, so the
             * candidate's are not already defined */
            char *g1 = emu_replaced_all(src, "_CUDA_KERNEL_CUH", "_CUDA_KERNEL_CUH_ORIG");
            char *g2 = emu_replaced_all(g1, "COMMON_CUDA_HELPER", "COMMON_CUDA_HELPER_ORIG");
            emu_batch_add_pair(&batch, wild[i].id, g2, cand, wild[i].helpers, wild[i].driver, EMU_OK);
            free(g2);
            free(g1);
        }
        free(probe);
        free(cand);
        free(src);
    }
    if (batch.n)
        emu_batch_run(&batch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(helpers_equal_c_division),
        cmocka_unit_test(applies_and_compiles),
        cmocka_unit_test(emitted_shape),
        cmocka_unit_test(survives_allocation_failures),
        cmocka_unit_test(refusals_name_construct_and_line),
        cmocka_unit_test(emulated_equal),
        cmocka_unit_test(broken_differs),
        cmocka_unit_test(wild_kernels),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
