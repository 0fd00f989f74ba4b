/* blas_substitution for GEMV kernels that do more than one product into one vector (issue
 * 13, session 49): two products into two outputs in one kernel (mvt: x1 += A y1 by rows
 * and x2 += A^T y2 by columns, one call each), and an epilogue after the product
 * (gemver's x = x + beta A^T y + z: the gemv, then an axpy of z). The emitted host
 * functions are checked as text, built with nvcc -c where the toolkit is, and emulated on
 * the CPU against the kernel (emu_block.h, with a cuBLAS stand-in for gemv, scal and
 * axpy); a call made wrong on purpose must differ. What the calls would get wrong is
 * refused with its line: a product reading another's output, a conditional or partial
 * second output, other rows, an epilogue inside the sum's loop, at another element, under
 * a condition, reading another output, or with a factor the host cannot evaluate, and any
 * epilogue of a GEMM. */
#include "analysis/analysis.h"
#include "core/buf.h"
#include "core/hk.h"
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
    return rwf_setup("blas_outputs");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* mvt as PolyBench's GPU port writes it: both sums in one loop, added to the old x1, x2. */
#define MVT_KERNEL                                                                                           \
    "__global__ void mvt(int n, const float *A, const float *y1, const float *y2, float *x1, float *x2)\n"  \
    "{\n"                                                                                                    \
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                                                   \
    "    if (i < n) {\n"                                                                                     \
    "        float s1 = 0.0f, s2 = 0.0f;\n"                                                                  \
    "        for (int j = 0; j < n; j++) {\n"                                                                \
    "            s1 += A[i * n + j] * y1[j];\n"                                                              \
    "            s2 += A[j * n + i] * y2[j];\n"                                                              \
    "        }\n"                                                                                            \
    "        x1[i] += s1;\n"                                                                                 \
    "        x2[i] += s2;\n"                                                                                 \
    "    }\n"                                                                                                \
    "}\n"

/* Two loops, two matrices, an early return, alpha and beta on the first output and beta 0
 * on the second; unsigned sizes, m rows of n. */
#define TWO_LOOPS_KERNEL                                                                                    \
    "__global__ void tl(const float *A, const float *B, const float *x, const float *z, float *y1,\n"       \
    "                   float *y2, unsigned m, unsigned n, float alpha, float beta)\n"                      \
    "{\n"                                                                                                   \
    "    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;\n"                                             \
    "    if (r >= m)\n"                                                                                     \
    "        return;\n"                                                                                     \
    "    float s1 = 0.0f;\n"                                                                                \
    "    for (unsigned c = 0; c < n; c++)\n"                                                                \
    "        s1 += A[r * n + c] * x[c];\n"                                                                  \
    "    float s2 = 0.0f;\n"                                                                                \
    "    for (unsigned c = 0; c < n; c++)\n"                                                                \
    "        s2 += B[c * m + r] * z[c];\n"                                                                  \
    "    y1[r] = alpha * s1 + beta * y1[r];\n"                                                              \
    "    y2[r] = 0.5f * s2;\n"                                                                              \
    "}\n"

/* gemver's x step: the sum kept in x[i] itself, then z added. */
#define GEMVER_X_KERNEL                                                                                     \
    "__global__ void gx(int n, float beta, const float *A, const float *y, const float *z, float *x)\n"    \
    "{\n"                                                                                                   \
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                                                  \
    "    if (i < n) {\n"                                                                                    \
    "        for (int j = 0; j < n; j++)\n"                                                                 \
    "            x[i] += beta * A[j * n + i] * y[j];\n"                                                     \
    "        x[i] += z[i];\n"                                                                               \
    "    }\n"                                                                                               \
    "}\n"

/* A local sum stored, then y = y + s*w written out in full; double, rows of n. */
#define STORE_THEN_ADD_KERNEL                                                                               \
    "__global__ void sa(const double *A, const double *x, const double *w, double *y, int m, int n,\n"     \
    "                   double s)\n"                                                                        \
    "{\n"                                                                                                   \
    "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"                                                  \
    "    if (r >= m)\n"                                                                                     \
    "        return;\n"                                                                                     \
    "    double t = 0.0;\n"                                                                                 \
    "    for (int c = 0; c < n; c++)\n"                                                                     \
    "        t += A[r * n + c] * x[c];\n"                                                                   \
    "    y[r] = t;\n"                                                                                       \
    "    y[r] = y[r] + s * w[r];\n"                                                                         \
    "}\n"

static char *substitute(const char *text, const char *name)
{
    fixture fx;
    load_text(text, &fx);
    rw_result r;
    assert_int_equal(rw_blas_substitution(fx.text, fx.len, fx.m, kernel(&fx, name), 0, false, &r), HK_OK);
    if (!r.applicable)
        fail_msg("%s: %s", name, r.description);
    char *out = strdup(r.text);
    assert_non_null(out);
    rw_result_free(&r);
    unload(&fx);
    return out;
}

static void has(const char *text, const char *want)
{
    if (!strstr(text, want)) {
        const char *h = strstr(text, "static void hk_host_");
        print_message("%s\n", h ? h : text);
        fail_msg("missing `%s`", want);
    }
}

/* The calls each output gets: operands, op, sizes, alpha and beta, the epilogue's axpy. */
static void test_calls_emitted(void **state)
{
    (void)state;
    char *t = substitute(MVT_KERNEL, "mvt");
    /* x1 by rows (op T), x2 by columns (op N), each its own call, beta 1 (x += sum) */
    has(t, "hk_st = cublasSgemv(hk_h, CUBLAS_OP_T, (int)hk_n, (int)hk_m, &hk_alpha, A, (int)(n), y1, (int)(1),\n"
           "                   &hk_beta, x1, (int)(1));");
    has(t, "    if (hk_st == CUBLAS_STATUS_SUCCESS) {   // the kernel's next output, x2: its own call\n"
           "        const float hk_alpha = (float)(1), hk_beta = (float)(1);\n");
    has(t, "            hk_st = cublasSgemv(hk_h, CUBLAS_OP_N, (int)hk_m, (int)hk_n, &hk_alpha, A, (int)(n), y2, "
           "(int)(1),\n                       &hk_beta, x2, (int)(1));");
    free(t);

    t = substitute(TWO_LOOPS_KERNEL, "tl");
    has(t, "const float hk_alpha = (float)(alpha), hk_beta = (float)(beta);");
    has(t, "cublasSgemv(hk_h, CUBLAS_OP_T, (int)hk_n, (int)hk_m, &hk_alpha, A, (int)(n), x, (int)(1),\n"
           "                   &hk_beta, y1, (int)(1));");
    has(t, "        const float hk_alpha = (float)(0.5), hk_beta = (float)(0);\n");
    /* B read as B[c*m + r]: column-major m x n, lda m */
    has(t, "cublasSgemv(hk_h, CUBLAS_OP_N, (int)hk_m, (int)hk_n, &hk_alpha, B, (int)(m), z, (int)(1),\n"
           "                       &hk_beta, y2, (int)(1));");
    free(t);

    t = substitute(GEMVER_X_KERNEL, "gx");
    has(t, "const float hk_alpha = (float)(beta), hk_beta = (float)(1);");
    has(t, "    if (hk_st == CUBLAS_STATUS_SUCCESS) {   // the epilogue after the product: y += s * z\n"
           "        const float hk_s = (float)(1);\n"
           "        hk_st = cublasSaxpy(hk_h, (int)hk_m, &hk_s, z, (int)(1), x, (int)(1));\n");
    free(t);

    t = substitute(STORE_THEN_ADD_KERNEL, "sa");
    has(t, "const double hk_alpha = (double)(1), hk_beta = (double)(0);");
    has(t, "const double hk_s = (double)(s);\n"
           "        hk_st = cublasDaxpy(hk_h, (int)hk_m, &hk_s, w, (int)(1), y, (int)(1));");
    free(t);
    assert_int_equal(hk_alloc_live(), 0);
}

/* The four substitutions in one translation unit build with nvcc -c (host code and all). */
static void test_emitted_compiles(void **state)
{
    (void)state;
    if (access(NVCC, X_OK) != 0) {
        print_message("skipped: no nvcc at %s\n", NVCC);
        return;
    }
    static const char *const srcs[][2] = {
        {MVT_KERNEL, "mvt"}, {TWO_LOOPS_KERNEL, "tl"}, {GEMVER_X_KERNEL, "gx"}, {STORE_THEN_ADD_KERNEL, "sa"}};
    char path[700], cmd[3000];
    struct hk_buf inc;
    hk_buf_init(&inc, 4096);
    for (size_t i = 0; i < HK_ARRAY_LEN(srcs); i++) {
        char *t = substitute(srcs[i][0], srcs[i][1]);
        snprintf(path, sizeof path, "%s/%s.cu", tmpdir, srcs[i][1]);
        rwf_write_file(path, t);
        free(t);
        assert_int_equal(hk_buf_printf(&inc, "#include \"%s.cu\"\n", srcs[i][1]), HK_OK);
    }
    snprintf(path, sizeof path, "%s/main.cu", tmpdir);
    rwf_write_file(path, inc.data);
    hk_buf_free(&inc);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' -arch=sm_90 -std=c++17 -c -o main.o main.cu > main.log 2>&1 || "
             "{ cat main.log; exit 1; }", tmpdir, NVCC);
    print_message("%s\n", cmd);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "nm -C '%s/main.o' | grep -q cublasDaxpy && nm -C '%s/main.o' | grep -q cublasSgemv",
             tmpdir, tmpdir);
    assert_int_equal(system(cmd), 0);
}

/* A CPU stand-in for the cuBLAS calls a GEMV host function makes, as the cuBLAS
 * documentation defines them: gemv column-major (y = alpha*op(A)*x + beta*y, y not read
 * when beta is 0, lda >= max(1, m) refused otherwise), scal, axpy; cudaMemsetAsync on the
 * host's memory (y = 0 when the sum is empty and beta 0). */
static const char cublas_stand_in[] =
    "typedef struct emu_cublas *cublasHandle_t;\n"
    "typedef int cublasStatus_t;\n"
    "enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_EXECUTION_FAILED = 13 };\n"
    "typedef int cublasOperation_t;\n"
    "enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };\n"
    "enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 1 };\n"
    "static cublasStatus_t cublasCreate(cublasHandle_t *h) { static char one; *h = (cublasHandle_t)&one; return 0; }\n"
    "static cublasStatus_t cublasSetStream(cublasHandle_t, cudaStream_t) { return 0; }\n"
    "static cublasStatus_t cublasSetMathMode(cublasHandle_t, int) { return 0; }\n"
    "static cublasStatus_t cublasSgemv(cublasHandle_t, cublasOperation_t ta, int m, int n, const float *alpha,\n"
    "                                  const float *A, int lda, const float *x, int incx, const float *beta,\n"
    "                                  float *y, int incy)\n"
    "{\n"
    "    if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || incx == 0 || incy == 0)\n"
    "        return CUBLAS_STATUS_INVALID_VALUE;\n"
    "    int ny = ta ? n : m, nx = ta ? m : n;\n"
    "    for (int i = 0; i < ny; i++) {\n"
    "        float s = 0.0f;\n"
    "        for (int j = 0; j < nx; j++)\n"
    "            s += (ta ? A[j + (size_t)i * lda] : A[i + (size_t)j * lda]) * x[(size_t)j * incx];\n"
    "        float *c = &y[(size_t)i * incy];\n"
    "        *c = *alpha * s + (*beta == 0.0f ? 0.0f : *beta * *c);\n"
    "    }\n"
    "    return CUBLAS_STATUS_SUCCESS;\n"
    "}\n"
    "static int emu_memset_async(void *p, int v, size_t n, cudaStream_t)\n"
    "{\n"
    "    for (size_t i = 0; i < n; i++)\n"
    "        ((unsigned char *)p)[i] = (unsigned char)v;\n"
    "    return 0;\n"
    "}\n"
    "#define cudaMemsetAsync emu_memset_async\n"
    "static cublasStatus_t cublasSscal(cublasHandle_t, int n, const float *a, float *x, int incx)\n"
    "{\n"
    "    for (int i = 0; i < n; i++)\n"
    "        x[(size_t)i * incx] *= *a;\n"
    "    return CUBLAS_STATUS_SUCCESS;\n"
    "}\n"
    "static cublasStatus_t cublasSaxpy(cublasHandle_t, int n, const float *a, const float *x, int incx, float *y,\n"
    "                                  int incy)\n"
    "{\n"
    "    for (int i = 0; i < n; i++)\n"
    "        y[(size_t)i * incy] += *a * x[(size_t)i * incx];\n"
    "    return CUBLAS_STATUS_SUCCESS;\n"
    "}\n"
    "#ifndef HK_BLAS_HANDLE";

static emu_batch batch;

/* mvt, the two-loop kernel and gemver's x step against their substitutions on ragged
 * sizes (an empty k loop included); the mvt with its second call's op flipped, the two-loop
 * one with its second call's alpha dropped and gemver's with its axpy's factor 0 must
 * differ. */
static void test_emulated(void **state)
{
    (void)state;
    if (!emu_available()) {
        print_message("skipped: no emulator (g++ and the CUDA headers)\n");
        return;
    }
    emu_batch_init(&batch, tmpdir, __func__);
    static const char src_mvt[] = MVT_KERNEL, src_tl[] = TWO_LOOPS_KERNEL, src_gx[] = GEMVER_X_KERNEL;
    char *sub = substitute(src_mvt, "mvt");
    char *cand = emu_replaced(sub, "#ifndef HK_BLAS_HANDLE", cublas_stand_in);
    free(sub);
    static const char driver_mvt[] =
        "    static const int sizes[] = {1, 5, 37, 130};\n"
        "    for (int s = 0; s < 4; s++) {\n"
        "        const int n = sizes[s];\n"
        "        emu::buf<float> A((size_t)n * n), y1(n), y2(n), o1(n), o2(n), c1(n), c2(n);\n"
        "        A.fill(1 + s);\n"
        "        y1.fill(2 + s);\n"
        "        y2.fill(3 + s);\n"
        "        o1.fill(4 + s);\n"
        "        c1.fill(4 + s);\n"
        "        o2.fill(5 + s);\n"
        "        c2.fill(5 + s);\n"
        "        emu::launch(dim3((n + 31) / 32), dim3(32), 0, [&] { orig::mvt(n, A, y1, y2, o1, o2); });\n"
        "        cand::hk_host_mvt(n, A, y1, y2, c1, c2);\n"
        "        emu::expect(\"mvt x1\", o1, c1, 1e-5, n);\n"
        "        emu::expect(\"mvt x2\", o2, c2, 1e-5, n);\n"
        "    }\n";
    emu_batch_add_pair(&batch, "blas_mvt", src_mvt, cand, NULL, driver_mvt, EMU_OK);
    char *bad = emu_replaced(cand, "CUBLAS_OP_N, (int)hk_m, (int)hk_n, &hk_alpha, A", "CUBLAS_OP_T, (int)hk_m, "
                             "(int)hk_n, &hk_alpha, A");
    emu_batch_add_pair(&batch, "blas_mvt_bad", src_mvt, bad, NULL, driver_mvt, EMU_DIFFERS);
    free(bad);
    free(cand);

    sub = substitute(src_tl, "tl");
    cand = emu_replaced(sub, "#ifndef HK_BLAS_HANDLE", cublas_stand_in);
    free(sub);
    static const char driver_tl[] =
        "    static const unsigned shapes[][2] = {{37, 19}, {64, 1}, {5, 0}, {3, 70}};  // m, n\n"
        "    for (int s = 0; s < 4; s++) {\n"
        "        const unsigned m = shapes[s][0], n = shapes[s][1];\n"
        "        emu::buf<float> A((size_t)m * n + 1), B((size_t)m * n + 1), x(n + 1), z(n + 1), o1(m), o2(m),\n"
        "            c1(m), c2(m);\n"
        "        A.fill(1 + s);\n"
        "        B.fill(2 + s);\n"
        "        x.fill(3 + s);\n"
        "        z.fill(4 + s);\n"
        "        o1.fill(5 + s);\n"
        "        c1.fill(5 + s);\n"
        "        o2.fill(6 + s);\n"
        "        c2.fill(6 + s);\n"
        "        emu::launch(dim3((m + 15) / 16), dim3(16), 0, [&] { orig::tl(A, B, x, z, o1, o2, m, n, 1.5f, "
        "-0.25f); });\n"
        "        cand::hk_host_tl(A, B, x, z, c1, c2, m, n, 1.5f, -0.25f);\n"
        "        emu::expect(\"tl y1\", o1, c1, 1e-5, n + 1);\n"
        "        emu::expect(\"tl y2\", o2, c2, 1e-5, n + 1);\n"
        "    }\n";
    emu_batch_add_pair(&batch, "blas_two_loops", src_tl, cand, NULL, driver_tl, EMU_OK);
    bad = emu_replaced(cand, "hk_alpha = (float)(0.5)", "hk_alpha = (float)(1)");
    emu_batch_add_pair(&batch, "blas_two_loops_bad", src_tl, bad, NULL, driver_tl, EMU_DIFFERS);
    free(bad);
    free(cand);

    sub = substitute(src_gx, "gx");
    cand = emu_replaced(sub, "#ifndef HK_BLAS_HANDLE", cublas_stand_in);
    free(sub);
    static const char driver_gx[] =
        "    static const int sizes[] = {1, 0, 29, 96};\n"
        "    for (int s = 0; s < 4; s++) {\n"
        "        const int n = sizes[s];\n"
        "        emu::buf<float> A((size_t)n * n + 1), y(n + 1), z(n + 1), o(n + 1), c(n + 1);\n"
        "        A.fill(1 + s);\n"
        "        y.fill(2 + s);\n"
        "        z.fill(3 + s);\n"
        "        o.fill(4 + s);\n"
        "        c.fill(4 + s);\n"
        "        emu::launch(dim3((n + 31) / 32 + 1), dim3(32), 0, [&] { orig::gx(n, 0.75f, A, y, z, o); });\n"
        "        cand::hk_host_gx(n, 0.75f, A, y, z, c);\n"
        "        emu::expect(\"gemver x\", o, c, 1e-5, n + 1);\n"
        "    }\n";
    emu_batch_add_pair(&batch, "blas_gemver_x", src_gx, cand, NULL, driver_gx, EMU_OK);
    bad = emu_replaced(cand, "hk_s = (float)(1)", "hk_s = (float)(0)");
    emu_batch_add_pair(&batch, "blas_gemver_x_bad", src_gx, bad, NULL, driver_gx, EMU_DIFFERS);
    free(bad);
    free(cand);
    emu_batch_run(&batch);
    assert_int_equal(hk_alloc_live(), 0);
}

typedef struct {
    const char *what, *text, *kernel, *why;
} refusal;

#define MVT_HEAD                                                                                             \
    "__global__ void mv(int n, int m, const float *A, const float *y1, const float *y2, float *x1, float *x2)\n" \
    "{\n"                                                                                                    \
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"

#define GX_HEAD                                                                                             \
    "__global__ void gx(int n, float beta, const float *A, const float *y, const float *z, float *x)\n"    \
    "{\n"                                                                                                   \
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                                                  \
    "    if (i < n) {\n"

static const refusal refusals[] = {
    {"a second product reading the first's output",
     MVT_HEAD "    if (i < n) {\n        float s1 = 0.0f, s2 = 0.0f;\n        for (int j = 0; j < n; j++) {\n"
              "            s1 += A[i * n + j] * y1[j];\n            s2 += A[j * n + i] * x1[j];\n        }\n"
              "        x1[i] = s1;\n        x2[i] = s2;\n    }\n}\n",
     "mv", "line 10: x1, which the kernel writes, is read by its product into x2 (line 11)"},
    {"a second output written under a condition",
     MVT_HEAD "    if (i < n) {\n        float s1 = 0.0f, s2 = 0.0f;\n        for (int j = 0; j < n; j++) {\n"
              "            s1 += A[i * n + j] * y1[j];\n            s2 += A[j * n + i] * y2[j];\n        }\n"
              "        x1[i] = s1;\n        if (i % 2 == 0)\n            x2[i] = s2;\n    }\n}\n",
     "mv", "so it may skip part of x2"},
    {"a second output over other rows",
     MVT_HEAD "    if (i >= n)\n        return;\n    float s1 = 0.0f, s2 = 0.0f;\n    for (int j = 0; j < n; j++) {\n"
              "        s1 += A[i * n + j] * y1[j];\n        s2 += A[j * m + i] * y2[j];\n    }\n"
              "    x1[i] = s1;\n    if (i < m)\n        x2[i] = s2;\n}\n",
     "mv", "x2"},
    {"a second output of another element type",
     "__global__ void md(int n, const float *A, const double *B, const float *y1, const double *y2, float *x1,\n"
     "                   double *x2)\n{\n"
     "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
     "    if (i < n) {\n        float s1 = 0.0f;\n        double s2 = 0.0;\n        for (int j = 0; j < n; j++) {\n"
     "            s1 += A[i * n + j] * y1[j];\n            s2 += B[j * n + i] * y2[j];\n        }\n"
     "        x1[i] = s1;\n        x2[i] = s2;\n    }\n}\n",
     "md", "line 13: the product into x2 has other rows (M = n) or another element type than the one into x1 (M = n)"},
    {"a second output that is not a product",
     MVT_HEAD "    if (i < n) {\n        float s1 = 0.0f;\n        for (int j = 0; j < n; j++)\n"
              "            s1 += A[i * n + j] * y1[j];\n        x1[i] = s1;\n        x2[i] = y2[i];\n    }\n}\n",
     "mv", "line 9: the kernel also writes x2, which the library call would not"},
    {"a second product into the matrix the first reads",
     "__global__ void ma(int n, float *A, const float *y1, const float *y2, float *x1)\n{\n"
     "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
     "    if (i < n) {\n        float s1 = 0.0f, s2 = 0.0f;\n        for (int j = 0; j < n; j++) {\n"
     "            s1 += A[i * n + j] * y1[j];\n            s2 += A[j * n + i] * y2[j];\n        }\n"
     "        x1[i] = s1;\n        A[i] = s2;\n    }\n}\n",
     "ma", "A is both read as an operand and written"},
    {"an epilogue reading the other output",
     MVT_HEAD "    if (i < n) {\n        float s1 = 0.0f, s2 = 0.0f;\n        for (int j = 0; j < n; j++) {\n"
              "            s1 += A[i * n + j] * y1[j];\n            s2 += A[j * n + i] * y2[j];\n        }\n"
              "        x1[i] = s1;\n        x2[i] = s2;\n        x1[i] += x2[i];\n    }\n}\n",
     "mv", "x2, which the kernel writes, is read by its product into x1"},
    {"an epilogue under a condition",
     GX_HEAD "        for (int j = 0; j < n; j++)\n            x[i] += beta * A[j * n + i] * y[j];\n"
             "        if (z[i] > 0.0f)\n            x[i] += z[i];\n    }\n}\n",
     "gx", "line 7: a guard (<) in force at x's write (line 8)"},
    {"an epilogue inside the sum's loop",
     GX_HEAD "        for (int j = 0; j < n; j++) {\n            x[i] += beta * A[j * n + i] * y[j];\n"
             "            x[i] += z[i];\n        }\n    }\n}\n",
     "gx", "line 7: x is written a second time (first at line 6)"},
    {"an epilogue before the product",
     GX_HEAD "        x[i] += z[i];\n        for (int j = 0; j < n; j++)\n"
             "            x[i] += beta * A[j * n + i] * y[j];\n    }\n}\n",
     "gx", "line 7: x is written a second time (first at line 5)"},
    {"an epilogue at another element",
     GX_HEAD "        for (int j = 0; j < n; j++)\n            x[i] += beta * A[j * n + i] * y[j];\n"
             "        x[i] += z[i + 1];\n    }\n}\n",
     "gx", "line 7: x is written a second time (first at line 6)"},
    {"an epilogue adding the output to itself",
     GX_HEAD "        for (int j = 0; j < n; j++)\n            x[i] += beta * A[j * n + i] * y[j];\n"
             "        x[i] += x[i];\n    }\n}\n",
     "gx", "line 7: x is written a second time (first at line 6)"},
    {"an epilogue whose factor is the thread's",
     GX_HEAD "        for (int j = 0; j < n; j++)\n            x[i] += beta * A[j * n + i] * y[j];\n"
             "        x[i] += threadIdx.x * z[i];\n    }\n}\n",
     "gx", "line 7: x's value holds"},
    {"two epilogues",
     GX_HEAD "        for (int j = 0; j < n; j++)\n            x[i] += beta * A[j * n + i] * y[j];\n"
             "        x[i] += z[i];\n        x[i] += y[i];\n    }\n}\n",
     "gx", "line 8: x is written a second time (first at line 7)"},
    {"a GEMM with an epilogue (a matrix, no one axpy)",
     "__global__ void ge(const float *A, const float *B, const float *D, float *C, int M, int N, int K)\n{\n"
     "    int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;\n"
     "    if (i < M && j < N) {\n        float s = 0.0f;\n"
     "        for (int k = 0; k < K; k++)\n            s += A[i * K + k] * B[k * N + j];\n"
     "        C[i * N + j] = s;\n        C[i * N + j] += D[i * N + j];\n    }\n}\n",
     "ge", "line 9: C is written a second time (first at line 8)"},
};

static void test_refusals(void **state)
{
    (void)state;
    for (size_t i = 0; i < HK_ARRAY_LEN(refusals); i++) {
        fixture fx;
        load_text(refusals[i].text, &fx);
        rw_result r;
        assert_int_equal(rw_blas_substitution(fx.text, fx.len, fx.m, kernel(&fx, refusals[i].kernel), 0, false, &r),
                         HK_OK);
        print_message("%s: %s\n", refusals[i].what, r.description);
        if (r.applicable || !strstr(r.description, refusals[i].why))
            fail_msg("%s: want `%s`, got (%s) %s", refusals[i].what, refusals[i].why,
                     r.applicable ? "applies" : "refused", r.description);
        rw_result_free(&r);
        unload(&fx);
    }
    assert_int_equal(hk_alloc_live(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calls_emitted),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_emitted_compiles),
        cmocka_unit_test(test_emulated),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
