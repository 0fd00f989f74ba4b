/* split_k_columns (issue 13): thread-per-column sums down the rows, written several ways
 * (int, unsigned and size_t indices; a guard block, an early return, a grid-stride loop; a
 * register accumulator, memory `+=` and `-=`, fmaf, `s = s + x`; PolyBench's covariance mean
 * with its offset index; a bound held in a local), must apply, compile with nvcc and, run in the block emulator
 * (emu_block.h) under several blocks and grids, equal the original within a float sum's
 * tolerance; a broken combine must differ. Kernels it must refuse say the construct and
 * line: a row index from threads, a bound that depends on the column, a maximum, a second
 * write in the loop, no bound, a thread per row, a barrier, the counter read after the loop,
 * a parameter changed, a declaration reading what only the finishing thread sets. Session
 * 46: the rows walked by two nested counted loops (llm.c's `for b` / `for t`; a triangle
 * whose inner start is the outer counter) apply, the inner loop sliced; refused: the outer
 * counter written inside, a statement beside the inner loop, the outer counter read after,
 * three levels. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_splitk.h"

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
    return rwf_setup("rewrites-splitk");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* Every kernel takes (m rows, n columns, A, x, y): the emulated driver runs them alike. */
static const char kernels[] =
    "#define DATA_TYPE float\n"
    "__global__ void atax2(int m, int n, const float *A, const float *x, float *y)\n"
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = 0;\n"
    "        for (int i = 0; i < m; i++)\n"
    "            s += A[i * n + j] * x[i];\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void col_return(int m, int n, const float *A, const float *x, float *y)\n"
    "{\n"
    "    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j >= (unsigned)n)\n"
    "        return;\n"
    "    for (int i = 0; i < m; ++i) {\n"
    "        float a = A[i * n + j];\n"
    "        if (x[i] > 0.5f)\n"
    "            y[j] += a * x[i];\n"
    "        else\n"
    "            y[j] -= a;\n"
    "    }\n"
    "}\n"
    "__global__ void col_fma(int m, int n, const float *A, const float *x, float *y)\n"
    "{\n"
    "    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    const float alpha = 1.5f;\n"
    "    if (j < (size_t)n) {\n"
    "        float xs = 0.25f;\n"
    "        float s = y[j];\n"
    "        for (size_t i = 0; i < (size_t)m; i += 1)\n"
    "            s = fmaf(A[i * n + j], x[i] + xs, s);\n"
    "        y[j] = alpha * s;\n"
    "    }\n"
    "}\n"
    "__global__ void col_stride(int m, int n, const float *A, const float *x, float *y)\n"
    "{\n"
    "    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += blockDim.x * gridDim.x) {\n"
    "        double s = 1.0;\n"
    "        for (int i = 0; i < m; i++)\n"
    "            s = s + (double)A[i * n + j];\n"
    "        y[j] = (float)s;\n"
    "    }\n"
    "}\n"
    "__global__ void col_mean(int m, int n, const float *A, const float *x, DATA_TYPE *y)\n"
    "{\n"
    "    int i, j;\n"
    "    j = blockIdx.x * blockDim.x + threadIdx.x + 1;\n"
    "    if ((j >= 1) && (j < (n + 1))) {\n"
    "        y[j] = 0.0;\n"
    "        for (i = 1; i < (m + 1); i++) {\n"
    "            y[j] += A[i * (n + 1) + j];\n"
    "        }\n"
    "        y[j] /= (DATA_TYPE)m;\n"
    "    }\n"
    "}\n"
    "__global__ void col_local_bound(int m, int n, const float *A, const float *x, float *y)\n"
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    const int cols = n, rows = m;\n"
    "    if (j >= cols)\n"
    "        return;\n"
    "    float s = 0.0f;\n"
    "    for (int i = 0; i < rows; i++)\n"
    "        s += A[i * cols + j] * x[i];\n"
    "    y[j] = s;\n"
    "}\n"
    /* session 46: the rows walked by two nested loops (llm.c's batch and time) */
    "__global__ void col_nested(int m, int n, const float *A, const float *x, float *y)\n"
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        double s = 0.0;\n"
    "        for (int b = 0; b < m / 3; b++) {\n"
    "            for (int t = 0; t < 3; t++) {\n"
    "                s += A[b * 3 * n + t * n + j];\n"
    "            }\n"
    "        }\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void col_tri(int m, int n, const float *A, const float *x, float *y)\n"
    "{\n"
    "    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j >= (unsigned)n)\n"
    "        return;\n"
    "    double s = 0.0;\n"   /* m * m / 2 terms: a float sum's reassociation would pass the
                               * tolerance of m terms */
    "    for (int r = 0; r < m; r += 1)\n"
    "        for (int i = r; i < m; ++i)\n"
    "            s += A[i * n + j] * x[r];\n"
    "    y[j] = (float)s;\n"
    "}\n";

static const char *const applying[] = {"atax2", "col_return", "col_fma", "col_stride", "col_mean",
                                       "col_local_bound", "col_nested", "col_tri"};

/* The original on blocks of 64; the rewrite under four launches: 256 threads (32 columns
 * per block) on ceil(n / 32) blocks, a 2-D block of 32 x 4 on 2 blocks (the columns
 * grid-strided), 64 threads on 1 block, and 5 threads (fewer than the slices) on 3 blocks.
 * y starts at 5 (the sums into memory keep it); A is sized for col_mean's (m + 1) x (n + 1). */
static const char helpers[] =
    "#define BOTH(k) [&](float *a, float *x, float *y, int m, int n) { orig::k(m, n, a, x, y); }, \\\n"
    "                [&](float *a, float *x, float *y, int m, int n) { cand::k(m, n, a, x, y); }\n"
    "template <class F, class G>\n"
    "static void cols_case(const char *what, F ko, G kc)\n"
    "{\n"
    "    static const int sizes[][2] = {{1, 1}, {37, 70}, {100, 33}, {9, 200}};\n"
    "    for (int z = 0; z < 4; z++)\n"
    "        for (int l = 0; l < 4; l++) {\n"
    "            emu::schedule = (z + l) % 3;\n"
    "            const int m = sizes[z][0], n = sizes[z][1];\n"
    "            emu::buf<float> a((size_t)(m + 2) * (n + 2)), x(m + 2), yo(n + 2), yc(n + 2);\n"
    "            a.fill(m + n); x.fill(3 + z); yo.fill(5); yc.fill(5);\n"
    "            emu::launch(dim3((n + 63) / 64), dim3(64), 0, [&] { ko(a.ptr(), x.ptr(), yo.ptr(), m, n); });\n"
    "            dim3 g = l == 0 ? dim3((n + 31) / 32) : l == 1 ? dim3(2) : l == 2 ? dim3(1) : dim3(3);\n"
    "            dim3 b = l == 0 ? dim3(256) : l == 1 ? dim3(32, 4) : l == 2 ? dim3(64) : dim3(5);\n"
    "            emu::launch(g, b, 0, [&] { kc(a.ptr(), x.ptr(), yc.ptr(), m, n); });\n"
    "            if (!emu::expect(what, yo, yc, 1e-5, 4.0 * m))\n"
    "                printf(\"  (%d x %d, launch %d)\\n\", m, n, l);\n"
    "        }\n"
    "}\n";

/* The running test's emulated programs (emu_batch.h): queued by emulate(), built together
 * and checked, each on its own, by emu_batch_run at the test's end. */
static emu_batch batch;
#define emulate(tag, src, cand, driver, want) emu_batch_add_pair(&batch, tag, src, cand, helpers, driver, want)

/* Each kernel applies at the default (8 slices) and at 16 and 2; each kernel's default
 * text and atax2's others compile (the slice count is one literal: one nvcc run each is
 * most of this file's time). */
static void applies_and_compiles(void **state)
{
    (void)state;
    static const int slices[] = {0, 16, 2};
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++)
        for (size_t s = 0; s < HK_ARRAY_LEN(slices); s++) {
            int params[RW_MAX_PARAMS] = {slices[s]};
            char *cand = emu_rewrite(kernels, applying[i], "split_k_columns", params);
            assert_non_null(strstr(cand, "__shared__"));
            assert_non_null(strstr(cand, "hk_acc"));
            char tag[64];
            snprintf(tag, sizeof tag, "splitk_%s_%d", applying[i], slices[s]);
            if (s == 0 || i == 0)
                rwf_nvcc_compiles(cand, tag);
            free(cand);
        }
}

/* What the emitted text keeps: the slice's start and step, the epilogue once, the shape of
 * each index type; the description says the rounding changes. */
static void emitted_shape(void **state)
{
    (void)state;
    char *c = emu_rewrite(kernels, "col_mean", "split_k_columns", NULL);
    assert_non_null(strstr(c, "for (i = (1) + hk_slice; i < (m + 1); i += hk_slices)"));
    assert_non_null(strstr(c, "hk_acc += A[i * (n + 1) + j];"));
    assert_non_null(strstr(c, "y[j] += hk_sum;"));
    assert_non_null(strstr(c, "j = (int)(hk_group * hk_cols + hk_col) + (1);"));
    assert_non_null(strstr(c, "__shared__ DATA_TYPE hk_part[1024];"));
    free(c);
    /* two nested row loops: the outer kept, the inner sliced (its start may read the outer
     * counter) */
    c = emu_rewrite(kernels, "col_nested", "split_k_columns", NULL);
    assert_non_null(strstr(c, "for (int b = 0; b < m / 3; b++) {"));
    assert_non_null(strstr(c, "for (int t = (0) + hk_slice; t < 3; t += hk_slices) {"));
    assert_non_null(strstr(c, "hk_acc += A[b * 3 * n + t * n + j];"));
    free(c);
    c = emu_rewrite(kernels, "col_tri", "split_k_columns", NULL);
    assert_non_null(strstr(c, "for (int r = 0; r < m; r += 1)"));
    assert_non_null(strstr(c, "for (int i = (r) + hk_slice; i < m; i += hk_slices)"));
    free(c);
    c = emu_rewrite(kernels, "col_fma", "split_k_columns", NULL);
    assert_non_null(strstr(c, "size_t j = (size_t)(hk_group * hk_cols + hk_col);"));
    assert_non_null(strstr(c, "hk_acc = fmaf(A[i * n + j], x[i] + xs, hk_acc);"));
    assert_non_null(strstr(c, "s += hk_sum;"));
    free(c);

    fixture fx;
    load_text(kernels, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, "atax2")};
    rw_result r;
    assert_int_equal(rw_apply_named("split_k_columns", &ctx, NULL, &r, NULL), HK_OK);
    assert_true(r.applicable);
    assert_non_null(strstr(r.description, "changes float rounding"));
    assert_false(r.keeps_launch);
    assert_false(r.keeps_grid);
    rw_result_free(&r);
    /* the launch it gains under, for hkls rewrites */
    assert_non_null(strstr(rw_find("split_k_columns")->launch, "ceil(columns / 32)"));
    unload(&fx);
}

/* Spellings of the column index: parentheses around a product or the whole formula are
 * read through; around a sum they change it, so it is refused. */
static void index_spellings(void **state)
{
    (void)state;
    static const char text[] =
        "__global__ void p1(int m, int n, const float *A, float *y)\n"
        "{\n"
        "    int j = threadIdx.x + (blockIdx.x * blockDim.x);\n"
        "    if (j < n) { float s = 0; for (int i = 0; i < m; i++) s += A[i * n + j]; y[j] = s; }\n"
        "}\n"
        "__global__ void p2(int m, int n, const float *A, float *y)\n"
        "{\n"
        "    unsigned int j = ((blockIdx.x) * (blockDim.x)) + (threadIdx.x);\n"
        "    if (j < n) { float s = 0; for (int i = 0; i < m; i++) s += A[i * n + j]; y[j] = s; }\n"
        "}\n"
        "__global__ void p3(int m, int n, const float *A, float *y)\n"
        "{\n"
        "    int j = blockIdx.x * (blockDim.x + threadIdx.x);\n"
        "    if (j < n) { float s = 0; for (int i = 0; i < m; i++) s += A[i * n + j]; y[j] = s; }\n"
        "}\n";
    static const struct {
        const char *kernel;
        int line;   /* 0: applies */
    } cases[] = {{"p1", 0}, {"p2", 0}, {"p3", 13}};
    fixture fx;
    load_text(text, &fx);
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, cases[i].kernel)};
        rw_refusal why;
        assert_int_equal(rw_applies(rw_find("split_k_columns"), &ctx, NULL, &why), HK_OK);
        if (why.line != cases[i].line)
            print_error("%s: line %d, wanted %d: %s\n", cases[i].kernel, why.line, cases[i].line, why.reason);
        assert_int_equal(why.line, cases[i].line);
    }
    unload(&fx);
}

static int call_splitk(const fixture *fx, size_t k, rw_result *r)
{
    return rw_split_k_columns(fx->text, fx->len, fx->m, k, 8, r);
}

/* Out of memory anywhere: HK_ENOMEM and nothing left allocated. */
static void survives_allocation_failures(void **state)
{
    (void)state;
    fixture fx;
    load_text(kernels, &fx);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "col_mean"), call_splitk);
    rwf_survives_alloc_failures(&fx, kernel(&fx, "col_fma"), call_splitk);
    unload(&fx);
}

static const char refused[] =
    "__global__ void rows_from_threads(int m, int n, const float *A, float *y)\n"   /* 1 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (j < n && i < m)\n"
    "        y[j] += A[i * n + j];\n"
    "}\n"
    "__global__ void triangle(int m, int n, const float *A, float *y)\n"             /* 8 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = 0;\n"
    "        for (int i = 0; i < j; i++)\n"
    "            s += A[i * n + j];\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void col_max(int m, int n, const float *A, float *y)\n"              /* 18 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = -1e30f;\n"
    "        for (int i = 0; i < m; i++)\n"
    "            s = fmaxf(s, A[i * n + j]);\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void two_writes(int m, int n, float *A, float *y)\n"                 /* 28 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = 0;\n"
    "        for (int i = 0; i < m; i++) {\n"
    "            s += A[i * n + j];\n"
    "            A[i * n + j] = 0.0f;\n"
    "        }\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void unguarded(int m, int n, const float *A, float *y)\n"            /* 40 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float s = 0;\n"
    "    for (int i = 0; i < m; i++)\n"
    "        s += A[i * n + j];\n"
    "    y[j] = s;\n"
    "}\n"
    "__global__ void row_sums(int m, int n, const float *A, float *y)\n"             /* 48 */
    "{\n"
    "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (r < m) {\n"
    "        float s = 0;\n"
    "        for (int c = 0; c < n; c++)\n"
    "            s += A[r * n + c];\n"
    "        y[r] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void bound_from_column(int m, int n, const float *A, const int *len, float *y)\n" /* 58 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        int rows = len[j];\n"
    "        float s = 0;\n"
    "        for (int i = 0; i < rows; i++)\n"
    "            s += A[i * n + j];\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void twice_squared(int m, int n, const float *A, float *y)\n"        /* 69 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = 0;\n"
    "        for (int i = 0; i < m; i++)\n"
    "            s = s * 0.5f + A[i * n + j];\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void barrier(int m, int n, const float *A, float *y)\n"              /* 79 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = 0;\n"
    "        for (int i = 0; i < m; i++)\n"
    "            s += A[i * n + j];\n"
    "        __syncthreads();\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void counter_after(int m, int n, const float *A, float *y)\n"        /* 90 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = 0; int i;\n"
    "        for (i = 0; i < m; i++)\n"
    "            s += A[i * n + j];\n"
    "        y[j] = s / i;\n"
    "    }\n"
    "}\n"
    "__global__ void param_write(int m, int n, const float *A, float *y)\n"          /* 100 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = 0;\n"
    "        for (int i = 0; i < m; i++)\n"
    "            s += A[i * n + j];\n"
    "        y[j] = s;\n"
    "        n = 0;\n"
    "    }\n"
    "}\n"
    "__global__ void pre_read(int m, int n, const float *A, float *y)\n"             /* 111 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        y[j] = 1.0f;\n"
    "        float b = y[j];\n"
    "        for (int i = 0; i < m; i++)\n"
    "            y[j] += A[i * n + j] * b;\n"
    "    }\n"
    "}\n"
    "__global__ void window(int m, int n, const float *x, float *y)\n"               /* 121 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j >= 7 && j < n - 7) {\n"
    "        float s = 0;\n"
    "        for (int d = -7; d <= 7; d++)\n"
    "            s += x[j + d];\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void conv(int m, int n, const float *x, const float *k, float *y)\n" /* 131 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = 0;\n"
    "        int start = j - m / 2;\n"
    "        for (int t = 0; t < m; t++)\n"
    "            s += x[start + t] * k[t];\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void nested_counter(int m, int n, const float *A, float *y)\n"         /* 142 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = 0;\n"
    "        for (int b = 0; b < m / 4; b++)\n"
    "            for (int t = 0; t < 4; t++) {\n"
    "                s += A[(b * 4 + t) * n + j];\n"
    "                b += 0;\n"
    "            }\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void nested_outer_stmt(int m, int n, const float *A, const float *x, float *y)\n" /* 155 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = 0;\n"
    "        for (int b = 0; b < m / 4; b++) {\n"
    "            float w = x[b];\n"
    "            for (int t = 0; t < 4; t++)\n"
    "                s += A[(b * 4 + t) * n + j] * w;\n"
    "        }\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void nested_after(int m, int n, const float *A, float *y)\n"           /* 168 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = 0;\n"
    "        int b;\n"
    "        for (b = 0; b < m / 4; b++)\n"
    "            for (int t = 0; t < 4; t++)\n"
    "                s += A[(b * 4 + t) * n + j];\n"
    "        y[j] = s + b;\n"
    "    }\n"
    "}\n"
    "__global__ void nested_three(int m, int n, const float *A, float *y)\n"           /* 180 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = 0;\n"
    "        for (int a = 0; a < 2; a++)\n"
    "            for (int b = 0; b < m / 8; b++)\n"
    "                for (int t = 0; t < 4; t++)\n"
    "                    s += A[((a * (m / 8) + b) * 4 + t) * n + j];\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n"
    /* issue 13: the inner loop's header writes the outer counter (or anything) */
    "__global__ void nested_bound_side(int m, int n, const float *A, float *y)\n" /* 192 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = 0;\n"
    "        for (int b = 0; b < m / 4; b++)\n"
    "            for (int t = 0; t < 4 + (b++) * 0; t++)\n"
    "                s += A[(b * 4 + t) * n + j];\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n"
    "__global__ void nested_start_side(int m, int n, const float *A, float *y)\n" /* 203 */
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j < n) {\n"
    "        float s = 0;\n"
    "        for (int b = 0; b < m / 4; b++)\n"
    "            for (int t = (b += 0); t < 4; t++)\n"
    "                s += A[(b * 4 + t) * n + j];\n"
    "        y[j] = s;\n"
    "    }\n"
    "}\n";

static const rwf_refusal refusals[] = {
    {"rows_from_threads", "thread index", 4, "besides the column index"},
    {"triangle", "loop bound", 13, "depends on the column"},
    {"col_max", "accumulation", 24, "not a plain sum"},
    {"two_writes", "write", 35, "second write"},
    {"unguarded", "bounds check", 43, "no bound"},
    {"row_sums", "loop", 53, "warp_rows"},
    {"bound_from_column", "loop bound", 64, "depends on the column"},
    {"twice_squared", "accumulation", 75, "not a plain sum"},
    {"barrier", "barrier", 86, "__syncthreads"},
    {"counter_after", "statement", 97, "counter"},
    {"param_write", "write", 108, "parameter `n`"},
    {"pre_read", "statement", 116, "finishing thread"},
    {"window", "loop", 126, "sliding window"},
    {"conv", "loop", 137, "sliding window"},
    {"nested_counter", "loop", 150, "changes its counter `b`"},
    {"nested_outer_stmt", "loop", 162, "`for` inside the sum loop"},
    {"nested_after", "statement", 177, "counter `b` after the loop"},
    {"nested_three", "loop", 187, "`for` inside the sum loop"},
    {"nested_bound_side", "loop header", 198, "condition writes"},
    {"nested_start_side", "loop header", 209, "start writes"},
};

/* Each refuses through the registry with its construct and line, and the driver says the
 * same. */
static void refusals_name_construct_and_line(void **state)
{
    (void)state;
    rwf_expect_refusals(refused, "split_k_columns", refusals, HK_ARRAY_LEN(refusals));
}

/* Every applying kernel, emulated against its original under four launches. */
static void emulated_equal(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    for (size_t i = 0; i < HK_ARRAY_LEN(applying); i++) {
        char *cand = emu_rewrite(kernels, applying[i], "split_k_columns", NULL);
        char driver[200];
        snprintf(driver, sizeof driver, "cols_case(\"%s\", BOTH(%s));", applying[i], applying[i]);
        emulate(applying[i], kernels, cand, driver, EMU_OK);
        free(cand);
    }
    emu_batch_run(&batch);
}

/* The check can fail: a combine that skips slice 1's partial, one without the barrier
 * before the partials are read, and two nested row loops both sliced must differ. */
static void broken_combine_differs(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_rewrite(kernels, "atax2", "split_k_columns", NULL);
    char *broken = emu_replaced(cand, "hk_q = 1;", "hk_q = 2;");
    emulate("broken_skip", kernels, broken, "cols_case(\"atax2\", BOTH(atax2));", EMU_DIFFERS);
    free(broken);
    broken = emu_replaced(cand, "hk_part[hk_tid] = hk_acc;\n        __syncthreads();",
                          "hk_part[hk_tid] = hk_acc;\n");
    emulate("broken_barrier", kernels, broken, "cols_case(\"atax2\", BOTH(atax2));", EMU_DIFFERS);
    free(broken);
    free(cand);
    /* two nested row loops: slicing the outer loop too leaves rows out */
    cand = emu_rewrite(kernels, "col_nested", "split_k_columns", NULL);
    broken = emu_replaced(cand, "for (int b = 0; b < m / 3; b++)", "for (int b = hk_slice; b < m / 3; b += hk_slices)");
    emulate("broken_both_sliced", kernels, broken, "cols_case(\"col_nested\", BOTH(col_nested));", EMU_DIFFERS);
    free(broken);
    free(cand);
    emu_batch_run(&batch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(applies_and_compiles),
        cmocka_unit_test(emitted_shape),
        cmocka_unit_test(index_spellings),
        cmocka_unit_test(survives_allocation_failures),
        cmocka_unit_test(refusals_name_construct_and_line),
        cmocka_unit_test(emulated_equal),
        cmocka_unit_test(broken_combine_differs),
        cmocka_unit_test(rwf_nvcc_queued), /* last: the queued compile checks */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
