/* rw_blas_substitution: the suite's SGEMM, batched SGEMM and SGEMV become cuBLAS calls with
 * the right operands for row-major data; the rewritten files and the benchmark program in
 * host-call mode compile and link with nvcc -lcublas (one program with the GRID host call
 * compiled with -cubin only); refusals name their reason; the
 * search proposes the substitution (with -lcublas) when a skill asks for it. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "measure/harness.h"
#include "rewrites/rewrite.h"
#include "search/search.h"
#include "search/skillplan.h"
#include "spec/spec.h"
#include "skills/skills.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_nvcc.h"
#define BENCH HK_SOURCE_DIR "/bench/kernels"

#include "rw_fixture.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("blas");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* Substitutes kernel name of file path; the new text (malloc'd) in *out. */
static void substitute(const char *path, const char *name, int math, bool hip, char **out)
{
    fixture fx;
    load_path(path, &fx);
    rw_result r;
    assert_int_equal(rw_blas_substitution(fx.text, fx.len, fx.m, kernel(&fx, name), math, hip, &r), HK_OK);
    if (!r.applicable)
        fail_msg("%s", r.description);
    print_message("%s\n", r.description);
    *out = strdup(r.text);
    assert_non_null(*out);
    rw_result_free(&r);
    unload(&fx);
}

static void has(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("missing `%s` in:\n%s", want, text);
}

static void test_suite_kernels(void **state)
{
    (void)state;
    char *t;
    substitute(BENCH "/sgemm.cu", "sgemm", 0, false, &t);
    has(t, "#include <cublas_v2.h>");
    has(t, "#define HK_HOST_CALL_sgemm 1");
    has(t, "static void hk_host_sgemm(int M, int N, int K, float alpha, const float *A, const float *B,");
    /* row-major C = A B as column-major C^T = B^T A^T: B first, n before m, ld = row lengths */
    has(t, "cublasSgemm(hk_h, CUBLAS_OP_N, CUBLAS_OP_N, (int)hk_n, (int)hk_m,");
    has(t, "B, (int)(N), A, (int)(K), &hk_beta, C, (int)(N));");
    has(t, "hk_alpha = (float)(alpha), hk_beta = (float)(beta)");
    has(t, "hk_m = (long long)(M), hk_n = (long long)(N)");
    has(t, "hk_k = (long long)(K)");
    has(t, "CUBLAS_DEFAULT_MATH");
    has(t, "cublasSetStream(hk_h, cudaStreamLegacy)");
    has(t, "hk_host_sgemm(M, N, K, alpha, A, B, beta, C);");
    assert_null(strstr(t, "sgemm<<<"));
    has(t, "__global__ void sgemm(");       /* kept, unused */
    free(t);

    substitute(BENCH "/batched_gemm.cu", "batched_gemm", 1, false, &t);
    has(t, "cublasSgemmStridedBatched(hk_h, CUBLAS_OP_N, CUBLAS_OP_N, (int)hk_n, (int)hk_m,");
    /* strides read from the locals a = A + b*M*K, bm = B + b*K*N and C's index */
    has(t, "B, (int)(N), (long long)(K*N), A, (int)(K),\n                   (long long)(M*K), &hk_beta, C, "
           "(int)(N), (long long)(M*N),");
    has(t, "hk_batch = (long long)(batch)");
    has(t, "hk_alpha = (float)(1), hk_beta = (float)(0)");
    has(t, "CUBLAS_TF32_TENSOR_OP_MATH");
    has(t, "hk_host_batched_gemm(A, B, C, batch, M, N, K);");
    free(t);

    substitute(BENCH "/gemv.cu", "gemv", 0, false, &t);
    /* row-major M x N A is the column-major N x M A^T: op T, m = N, n = M, lda = N */
    has(t, "cublasSgemv(hk_h, CUBLAS_OP_T, (int)hk_n, (int)hk_m, &hk_alpha, A, (int)(N), x, (int)(1),");
    has(t, "&hk_beta, y, (int)(1));");
    has(t, "hk_host_gemv(A, x, y, M, N);");
    free(t);

    substitute(BENCH "/sgemm.cu", "sgemm", 0, true, &t);
    has(t, "hipblasSgemm(hk_h, HIPBLAS_OP_N, HIPBLAS_OP_N, (int)hk_n, (int)hk_m,");
    has(t, "hipblasSetStream(hk_h, 0)");
    assert_null(strstr(t, "cublas"));
    free(t);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Which library a substituted version calls, read from its text (the report names it:
 * episode.c skill_credit): cuBLAS or hipBLAS and the routine, for GEMM, batched GEMM and
 * GEMV; none for the kernel before substitution, nor for a name that is only a prefix of the
 * routine called, nor one not called. */
static void test_the_library_is_named(void **state)
{
    (void)state;
    static const struct {
        const char *file, *kernel;
        bool hip;
        const char *lib, *routine;
    } cases[] = {
        {"/sgemm.cu", "sgemm", false, "cuBLAS", "cublasSgemm"},
        {"/batched_gemm.cu", "batched_gemm", false, "cuBLAS", "cublasSgemmStridedBatched"},
        {"/gemv.cu", "gemv", false, "cuBLAS", "cublasSgemv"},
        {"/sgemm.cu", "sgemm", true, "hipBLAS", "hipblasSgemm"},
        {"/gemv.cu", "gemv", true, "hipBLAS", "hipblasSgemv"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[512], *t, routine[64];
        snprintf(path, sizeof path, "%s%s", BENCH, cases[i].file);
        substitute(path, cases[i].kernel, 0, cases[i].hip, &t);
        const char *lib = rw_blas_library_of(t, routine, sizeof routine);
        if (!lib || strcmp(lib, cases[i].lib) || strcmp(routine, cases[i].routine))
            fail_msg("%s%s: %s %s, want %s %s", cases[i].file, cases[i].hip ? " (hip)" : "",
                     lib ? lib : "(none)", routine, cases[i].lib, cases[i].routine);
        free(t);
        /* the kernel as it was calls no library */
        fixture fx;
        load_path(path, &fx);
        assert_null(rw_blas_library_of(fx.text, routine, sizeof routine));
        assert_string_equal(routine, "");
        unload(&fx);
    }
    assert_null(rw_blas_library_of("int cublasSgemmX(int); int y = cublasSgemmX(1);", NULL, 0));
    assert_null(rw_blas_library_of("const char *s = \"cublasSgemm\";", NULL, 0));
    assert_string_equal(rw_blas_library_of("x = my_cublasSgemv(1); hipblasSscal (h, 1);", NULL, 0),
                        "hipBLAS");
    assert_int_equal(hk_alloc_live(), 0);
}

/* Another form of the same GEMM: operands swapped in the product, offsets in the index,
 * alpha only, scalar sizes from #defines. */
static const char other_forms[] =
    "#define LDA 64\n"
    "__global__ void bgemm(float *out, const float *x, const float *w, int batch, int M, int N, float s)\n"
    "{\n"
    "    int b = blockIdx.z;\n"
    "    int c = threadIdx.x + blockIdx.x * blockDim.x;\n"
    "    int r = blockDim.y * blockIdx.y + threadIdx.y;\n"
    "    if (r < M && c < N && b < batch) {\n"
    "        float t = 0.0f;\n"
    "        for (int k = 0; k < LDA; ++k)\n"
    "            t += w[b * LDA * N + k * N + c] * x[b * M * LDA + r * LDA + k];\n"
    "        out[b * M * N + r * N + c] = s * t;\n"
    "    }\n"
    "}\n";

/* Early return, `acc = acc + ...`, beta * C first, __restrict__ pointers, a launcher. */
static const char early_return[] =
    "__global__ void eg(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,\n"
    "                   int M, int N, int K, float a, float b)\n"
    "{\n"
    "    const int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    const int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (row >= M || col >= N)\n"
    "        return;\n"
    "    float s = 0.f;\n"
    "    for (int i = 0; i < K; i++) {\n"
    "        s = s + A[row * K + i] * B[i * N + col];\n"
    "    }\n"
    "    C[row * N + col] = b * C[row * N + col] + s * a;\n"
    "}\n"
    "void run(const float *A, const float *B, float *C, int M, int N, int K)\n"
    "{\n"
    "    dim3 g((N + 15) / 16, (M + 15) / 16), t(16, 16);\n"
    "    eg<<<g, t>>>(A, B, C, M, N, K, 2.0f, 0.5f);\n"
    "    eg<<<g, t, 0, 0>>>(A, B, C, M, N, K, 1.0f, 1.0f);\n"
    "}\n";

static bool have_cuda(void)
{
    if (access(NVCC, X_OK) != 0) {
        print_message("skipped: no nvcc at %s\n", NVCC);
        return false;
    }
    if (access("/usr/local/cuda/lib64/libcublas.so", R_OK) != 0 &&
        access("/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so", R_OK) != 0) {
        print_message("skipped: no libcublas.so in /usr/local/cuda\n");
        return false;
    }
    return true;
}

static void run_ok(const char *cmd)
{
    print_message("%s\n", cmd);
    int rc = system(cmd);
    assert_int_equal(rc, 0);
}

/* gesummv: two matrices against one vector in one row loop, y = alpha*A*x + beta*B*x (the
 * class's GEMV with a second matrix): two gemv calls, the second adding to the first's y. */
static const char two_sums[] =
    "__global__ void gs(int n, double alpha, double beta, const double *A, const double *B,\n"
    "                   const double *x, double *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        double t1 = 0.0, t2 = 0.0;\n"
    "        for (int j = 0; j < n; j++) {\n"
    "            t1 += A[i * n + j] * x[j];\n"
    "            t2 += 2.0 * B[i * n + j] * x[j];\n"
    "        }\n"
    "        y[i] = alpha * t1 + beta * t2;\n"
    "    }\n"
    "}\n"
    "void run_gs(int n, const double *A, const double *B, const double *x, double *y)\n"
    "{\n"
    "    gs<<<(n + 127) / 128, 128>>>(n, 1.5, 0.25, A, B, x, y);\n"
    "}\n";

static const char two_vectors[] =
    "__global__ void tz(int n, const float *A, const float *B, const float *x, const float *z, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        float t1 = 0.f, t2 = 0.f;\n"
    "        for (int j = 0; j < n; j++) {\n"
    "            t1 += A[i * n + j] * x[j];\n"
    "            t2 += B[i * n + j] * z[j];\n"
    "        }\n"
    "        y[i] = t1 + t2;\n"
    "    }\n"
    "}\n";

static void test_other_forms(void **state)
{
    (void)state;
    fixture fx;
    load_text(early_return, &fx);
    rw_result r;
    assert_int_equal(rw_blas_substitution(fx.text, fx.len, fx.m, kernel(&fx, "eg"), 0, false, &r), HK_OK);
    if (!r.applicable)
        fail_msg("%s", r.description);
    has(r.text, "hk_alpha = (float)(a), hk_beta = (float)(b)");
    has(r.text, "B, (int)(N), A, (int)(K), &hk_beta, C, (int)(N));");
    has(r.text, "hk_host_eg(A, B, C, M, N, K, 2.0f, 0.5f);");
    has(r.text, "hk_host_eg(A, B, C, M, N, K, 1.0f, 1.0f);");
    has(r.description, "2 launch sites");
    rw_result_free(&r);
    unload(&fx);

    load_text(other_forms, &fx);
    assert_int_equal(rw_blas_substitution(fx.text, fx.len, fx.m, kernel(&fx, "bgemm"), 0, false, &r), HK_OK);
    if (!r.applicable)
        fail_msg("%s", r.description);
    /* A is x (read along the row), B is w, whatever the product's order */
    has(r.text, "w, (int)(N), (long long)(LDA*N), x, (int)(LDA),\n                   (long long)(M*LDA), &hk_beta, "
                "out, (int)(N), (long long)(M*N),");
    has(r.text, "hk_alpha = (float)(s), hk_beta = (float)(0)");
    rw_result_free(&r);
    unload(&fx);

    load_text(two_sums, &fx);
    assert_int_equal(rw_blas_substitution(fx.text, fx.len, fx.m, kernel(&fx, "gs"), 0, false, &r), HK_OK);
    if (!r.applicable)
        fail_msg("%s", r.description);
    /* y = alpha*A*x (beta 0: the old y does not enter), then y += (2.0*beta)*B*x */
    has(r.text, "const double hk_alpha = (double)(alpha), hk_beta = (double)(0);");
    has(r.text, "const double hk_alpha2 = (double)((2)*(beta));");
    has(r.text, "hk_st = cublasDgemv(hk_h, CUBLAS_OP_T, (int)hk_n, (int)hk_m, &hk_alpha, A, (int)(n), x, (int)(1),\n"
                "                   &hk_beta, y, (int)(1));");
    has(r.text, "if (hk_st == CUBLAS_STATUS_SUCCESS && hk_n > 0) {");
    has(r.text, "hk_st = cublasDgemv(hk_h, CUBLAS_OP_T, (int)(hk_n), (int)(hk_m), &hk_alpha2, B, (int)(n), x, (int)(1),\n"
                "                   &hk_one, y, (int)(1));");
    has(r.text, "hk_host_gs(n, 1.5, 0.25, A, B, x, y);");
    /* y = A x + B z (another vector): the second call reads z */
    fixture fz;
    load_text(two_vectors, &fz);
    rw_result rz;
    assert_int_equal(rw_blas_substitution(fz.text, fz.len, fz.m, kernel(&fz, "tz"), 0, false, &rz), HK_OK);
    if (!rz.applicable)
        fail_msg("%s", rz.description);
    has(rz.text, "const float hk_alpha = (float)(1), hk_beta = (float)(0);");
    has(rz.text, "const float hk_alpha2 = (float)(1);");
    has(rz.text, "hk_st = cublasSgemv(hk_h, CUBLAS_OP_T, (int)(hk_n), (int)(hk_m), &hk_alpha2, B, (int)(n), z, (int)(1),");
    rw_result_free(&rz);
    unload(&fz);
    if (have_cuda()) {
        char path[700], cmd[2000];
        snprintf(path, sizeof path, "%s/two_sums.cu", tmpdir);
        rwf_write_file(path, r.text);
        snprintf(cmd, sizeof cmd, "'%s' -arch=sm_90 -std=c++17 -c -o '%s.o' '%s' > '%s.log' 2>&1 || "
                 "{ cat '%s.log'; exit 1; }", NVCC, path, path, path, path);
        run_ok(cmd);
    }
    rw_result_free(&r);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

typedef struct {
    const char *what, *text, *kernel, *why;
} refusal;

static const refusal refusals[] = {
    {"extra side effect", "__global__ void se(int M, int N, int K, const float *A, const float *B, float *C,\n"
                          "                   int *count)\n"
                          "{\n    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                          "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                          "    if (row < M && col < N) {\n        float acc = 0.0f;\n"
                          "        for (int k = 0; k < K; k++)\n            acc += A[row * K + k] * B[k * N + col];\n"
                          "        C[row * N + col] = acc;\n        atomicAdd(count, 1);\n    }\n}\n",
     "se", "also writes count"},
    {"epilogue that is not alpha/beta", "__global__ void ep(int M, int N, int K, const float *A, const float *B, float *C)\n"
                       "{\n    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                       "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                       "    if (row < M && col < N) {\n        float acc = 0.0f;\n"
                       "        for (int k = 0; k < K; k++)\n            acc += A[row * K + k] * B[k * N + col];\n"
                       "        C[row * N + col] = fmaxf(acc, 0.0f);\n    }\n}\n",
     "ep", "line 9: not quite a gemm: gemm epilogue: the term max($acc0, 0)"},
    {"non-GEMM", "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
                 "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "    if (i < n)\n        y[i] = a * x[i] + y[i];\n}\n",
     "saxpy", "accumulator"},
    {"size from a pointer", "__global__ void sz(const int *dims, const float *A, const float *x, float *y)\n"
                            "{\n    int row = blockIdx.x * blockDim.x + threadIdx.x;\n"
                            "    if (row < dims[0]) {\n        float acc = 0.0f;\n"
                            "        for (int j = 0; j < dims[1]; j++)\n            acc += A[row * dims[1] + j] * x[j];\n"
                            "        y[row] = acc;\n    }\n}\n",
     "sz", "dims"},
    {"half", "#include <cuda_fp16.h>\n"
             "__global__ void hg(int M, int N, int K, const __half *A, const __half *B, float *C)\n"
             "{\n    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
             "    if (row < M && col < N) {\n        float acc = 0.0f;\n"
             "        for (int k = 0; k < K; k++)\n            acc += A[row * K + k] * B[k * N + col];\n"
             "        C[row * N + col] = acc;\n    }\n}\n",
     "hg", "element types __half, __half, float"},
    {"store to an input", "__global__ void si(int M, int N, int K, float *A, const float *B)\n"
                          "{\n    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                          "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                          "    if (row < M && col < N) {\n        float acc = 0.0f;\n"
                          "        for (int k = 0; k < K; k++)\n            acc += A[row * K + k] * B[k * N + col];\n"
                          "        A[row * N + col] = acc;\n    }\n}\n",
     "si", "line 9: A is both read as an operand and written"},
    {"launch on a stream", "__global__ void gv(const float *A, const float *x, float *y, int M, int N)\n"
                           "{\n    int row = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "    if (row < M) {\n        float acc = 0.0f;\n"
                           "        for (int j = 0; j < N; j++)\n            acc += A[row * N + j] * x[j];\n"
                           "        y[row] = acc;\n    }\n}\n"
                           "void run(const float *A, const float *x, float *y, int M, int N, cudaStream_t st)\n"
                           "{\n    gv<<<(M + 127) / 128, 128, 0, st>>>(A, x, y, M, N);\n}\n",
     "gv", "stream st"},
    {"two sums at other indices", "__global__ void tv(int n, const float *A, const float *B, const float *x,\n"
                                  "                   float *y)\n"
                                  "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                  "    if (i < n) {\n        float t1 = 0.f, t2 = 0.f;\n"
                                  "        for (int j = 0; j < n; j++) {\n"
                                  "            t1 += A[i * n + j] * x[j];\n            t2 += B[j * n + i] * x[j];\n"
                                  "        }\n        y[i] = t1 + t2;\n    }\n}\n",
     "tv", "the term $acc1 of y[...] is neither alpha*sum nor beta*y"},
    /* session 48 (rev): the class reads a sum from its first update; these compute another
     * sum (the GEMV ones since the second sum, the GEMM and single-sum ones before it too) */
    {"a gesummv whose second sum skips half its terms",
                "__global__ void gc1(int n, float alpha, float beta, const float *A, const float *B,\n"
                "                   const float *D, const float *x, float *y)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (i < n) {\n"
                "        float t1 = 0.f, t2 = 0.f;\n"
                "        for (int j = 0; j < n; j++) {\n"
                "            t1 += A[i * n + j] * x[j];\n"
                "            if (j < n / 2)\n"
                "                t2 += B[i * n + j] * x[j];\n"
                "        }\n"
                "        y[i] = alpha * t1 + beta * t2;\n"
                "    }\n"
                "}\n",
     "gc1", "B is read under a condition inside the loop of the sum"},
    {"a gesummv whose sums add a second matrix each",
                "__global__ void gc2(int n, float alpha, float beta, const float *A, const float *B,\n"
                "                   const float *D, const float *x, float *y)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (i < n) {\n"
                "        float t1 = 0.f, t2 = 0.f;\n"
                "        for (int j = 0; j < n; j++) {\n"
                "            t1 += A[i * n + j] * x[j];\n"
                "            t2 += B[i * n + j] * x[j];\n"
                "            t1 += A[i * n + j] * x[j];\n"
                "            t2 += D[i * n + j] * x[j];\n"
                "        }\n"
                "        y[i] = alpha * t1 + beta * t2;\n"
                "    }\n"
                "}\n",
     "gc2", "is updated at 2 places"},
    {"a GEMV whose sum skips half its terms",
                "__global__ void gc3(int n, float alpha, float beta, const float *A, const float *B,\n"
                "                   const float *D, const float *x, float *y)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (i < n) {\n"
                "        float t1 = 0.f, t2 = 0.f;\n"
                "        for (int j = 0; j < n; j++) {\n"
                "            if (j < n / 2)\n"
                "                t1 += A[i * n + j] * x[j];\n"
                "        }\n"
                "        y[i] = alpha * t1;\n"
                "    }\n"
                "}\n",
     "gc3", "A is read under a condition inside the loop of the sum t1"},
    {"a GEMV adding each term twice",
                "__global__ void gc4(int n, float alpha, float beta, const float *A, const float *B,\n"
                "                   const float *D, const float *x, float *y)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (i < n) {\n"
                "        float t1 = 0.f, t2 = 0.f;\n"
                "        for (int j = 0; j < n; j++) {\n"
                "            t1 += A[i * n + j] * x[j];\n"
                "            t1 += A[i * n + j] * x[j];\n"
                "        }\n"
                "        y[i] = alpha * t1;\n"
                "    }\n"
                "}\n",
     "gc4", "the sum t1 is updated at 2 places"},
    {"a gesummv whose loop may end early",
                "__global__ void gc5(int n, float alpha, float beta, const float *A, const float *B,\n"
                "                   const float *D, const float *x, float *y)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (i < n) {\n"
                "        float t1 = 0.f, t2 = 0.f;\n"
                "        for (int j = 0; j < n; j++) {\n"
                "            t1 += A[i * n + j] * x[j];\n"
                "            t2 += B[i * n + j] * x[j];\n"
                "            if (t2 > 100.f)\n"
                "                break;\n"
                "        }\n"
                "        y[i] = alpha * t1 + beta * t2;\n"
                "    }\n"
                "}\n",
     "gc5", "'break' in the kernel"},
    {"a GEMM whose sum skips odd k",
                "__global__ void gm1(int M, int N, int K, float alpha, const float *A, const float *B, float *C)\n"
                "{\n"
                "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                "    if (row < M && col < N) {\n"
                "        float acc = 0.0f;\n"
                "        for (int k = 0; k < K; k++) {\n"
                "            if (k % 2 == 0)\n"
                "                acc += A[row * K + k] * B[k * N + col];\n"
                "        }\n"
                "        C[row * N + col] = alpha * acc;\n"
                "    }\n"
                "}\n",
     "gm1", "A is read under a condition inside the loop of the sum acc"},
    {"a GEMM adding each product twice",
                "__global__ void gm2(int M, int N, int K, float alpha, const float *A, const float *B, float *C)\n"
                "{\n"
                "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                "    if (row < M && col < N) {\n"
                "        float acc = 0.0f;\n"
                "        for (int k = 0; k < K; k++) {\n"
                "            acc += A[row * K + k] * B[k * N + col];\n"
                "            acc += A[row * K + k] * B[k * N + col];\n"
                "        }\n"
                "        C[row * N + col] = alpha * acc;\n"
                "    }\n"
                "}\n",
     "gm2", "the sum acc is updated at 2 places"},
};

static void test_refusals(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        fixture fx;
        load_text(refusals[i].text, &fx);
        rw_result r;
        assert_int_equal(rw_blas_substitution(fx.text, fx.len, fx.m, kernel(&fx, refusals[i].kernel), 0, false, &r),
                         HK_OK);
        print_message("%s: %s\n", refusals[i].what, r.description);
        assert_false(r.applicable);
        assert_null(r.text);
        if (!strstr(r.description, refusals[i].why))
            fail_msg("%s: expected `%s` in: %s", refusals[i].what, refusals[i].why, r.description);
        rw_result_free(&r);
        unload(&fx);
    }
    /* TF32 is a cuBLAS mode; math outside 0..1 is a bad argument */
    fixture fx;
    load_path(BENCH "/sgemm.cu", &fx);
    rw_result r;
    assert_int_equal(rw_blas_substitution(fx.text, fx.len, fx.m, kernel(&fx, "sgemm"), 1, true, &r), HK_OK);
    assert_false(r.applicable);
    has(r.description, "TF32");
    rw_result_free(&r);
    assert_int_equal(rw_blas_substitution(fx.text, fx.len, fx.m, kernel(&fx, "sgemm"), 2, false, &r), HK_EINVAL);
    rw_result_free(&r);
    /* a substituted file is not substituted twice */
    char *t;
    substitute(BENCH "/sgemm.cu", "sgemm", 0, false, &t);
    fixture fx2;
    load_text(t, &fx2);
    free(t);
    assert_int_equal(rw_blas_substitution(fx2.text, fx2.len, fx2.m, kernel(&fx2, "sgemm"), 0, false, &r), HK_OK);
    assert_false(r.applicable);
    has(r.description, "already");
    rw_result_free(&r);
    unload(&fx2);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

static int substitute_fp32(const fixture *fx, size_t k, rw_result *r)
{
    return rw_blas_substitution(fx->text, fx->len, fx->m, k, 0, false, r);
}

/* Every allocation failure is HK_ENOMEM with nothing leaked, until the rewrite succeeds. */
static void test_alloc_failures(void **state)
{
    (void)state;
    static const char *const files[][2] = {{BENCH "/sgemm.cu", "sgemm"}, {BENCH "/batched_gemm.cu", "batched_gemm"},
                                           {BENCH "/gemv.cu", "gemv"}};
    for (size_t c = 0; c < 3; c++) {
        fixture fx;
        load_path(files[c][0], &fx);
        size_t k = kernel(&fx, files[c][1]);
        rwf_survives_alloc_failures(&fx, k, substitute_fp32);
        rw_result r;
        assert_int_equal(substitute_fp32(&fx, k, &r), HK_OK);
        assert_true(r.applicable);
        rw_result_free(&r);
        unload(&fx);
    }
    assert_int_equal(hk_alloc_live(), 0);
}

/* The three substituted files in one program (their launchers call the library; the handle
 * helper is defined once), compiled and linked. */
static void test_compiles_and_links(void **state)
{
    (void)state;
    if (!have_cuda())
        return;
    static const char *const k[][2] = {{"sgemm", "sgemm"}, {"batched_gemm", "batched_gemm"}, {"gemv", "gemv"}};
    char path[700], main_cu[700], exe[700], cmd[3000];
    for (size_t i = 0; i < 3; i++) {
        char src[700], *t;
        snprintf(src, sizeof src, BENCH "/%s.cu", k[i][0]);
        substitute(src, k[i][1], i == 1, false, &t);
        snprintf(path, sizeof path, "%s/%s.cu", tmpdir, k[i][0]);
        rwf_write_file(path, t);
        free(t);
    }
    snprintf(main_cu, sizeof main_cu, "%s/main.cu", tmpdir);
    rwf_write_file(main_cu, "#include \"sgemm.cu\"\n#include \"batched_gemm.cu\"\n#include \"gemv.cu\"\n"
                        "int main(int argc, char **argv)\n{\n"
                        "    (void)argv;\n"
                        "    if (argc > 99) {   /* linked, never run here (no GPU) */\n"
                        "        launch_sgemm(1, 1, 1, 1.0f, 0, 0, 0.0f, 0);\n"
                        "        launch_batched_gemm(0, 0, 0, 1, 1, 1, 1);\n"
                        "        launch_gemv(0, 0, 0, 1, 1);\n"
                        "    }\n    return 0;\n}\n");
    snprintf(exe, sizeof exe, "%s/main", tmpdir);
    snprintf(cmd, sizeof cmd, "'%s' -arch=sm_90 -O2 -std=c++17 -o '%s' '%s' -lcublas > '%s/main.log' 2>&1 || "
             "{ cat '%s/main.log'; exit 1; }", NVCC, exe, main_cu, tmpdir, tmpdir);
    run_ok(cmd);
    /* the program refers to the library: the link can fail without it */
    snprintf(cmd, sizeof cmd, "nm -C '%s' | grep -q 'cublasSgemmStridedBatched'", exe);
    run_ok(cmd);
}

/* The benchmark program for the suite's sgemm spec, in host-call mode with the
 * substituted candidate, compiles and links (harness_nvcc_argv puts -lcublas last). */
static void test_harness_program(void **state)
{
    (void)state;
    spec_diags d = {0};
    spec *s = NULL;
    assert_int_equal(spec_load(BENCH "/sgemm.bench.json", &s, &d), HK_OK);
    spec_diags_free(&d);
    char *t, cand[700], prog[700], exe[700], log[700];
    substitute(BENCH "/sgemm.cu", "sgemm", 0, false, &t);
    snprintf(cand, sizeof cand, "%s/cand_sgemm.cu", tmpdir);
    snprintf(prog, sizeof prog, "%s/prog_sgemm.cu", tmpdir);
    snprintf(exe, sizeof exe, "%s/prog_sgemm", tmpdir);
    snprintf(log, sizeof log, "%s/prog_sgemm.log", tmpdir);
    rwf_write_file(cand, t);
    free(t);
    char *gen = NULL;
    assert_int_equal(harness_generate(s, cand, &gen), HK_OK);
    has(gen, "#if defined(HK_HOST_CALL_GRID_sgemm)\n    hk_call_host_launch(hk_host_sgemm,\n"
             "                        dim3((unsigned)st->grid[0], (unsigned)st->grid[1], (unsigned)st->grid[2]),\n"
             "                        dim3((unsigned)st->block[0], (unsigned)st->block[1], (unsigned)st->block[2]),");
    has(gen, "#elif defined(HK_HOST_CALL_sgemm)\n    hk_call_host(hk_host_sgemm,");
    has(gen, "#else\n    hk_launch_kernel(sgemm,");
    hk_free(gen);
    assert_int_equal(harness_write(s, cand, prog), HK_OK);
    const char *extra[] = {"-lcublas", NULL};
    char **argv = NULL;
    assert_int_equal(harness_nvcc_argv(s, NVCC, "sm_90", HK_SOURCE_DIR "/include", extra, prog, exe, &argv), HK_OK);
    size_t n = 0;
    while (argv[n])
        n++;
    assert_string_equal(argv[n - 1], "-lcublas");   /* after the program */
    assert_string_equal(argv[n - 2], prog);
    if (have_cuda()) {
        char cmd[4000];
        size_t l = 0;
        for (size_t i = 0; i < n; i++)
            l += (size_t)snprintf(cmd + l, sizeof cmd - l, "'%s' ", argv[i]);
        snprintf(cmd + l, sizeof cmd - l, "> '%s' 2>&1 || { cat '%s'; exit 1; }", log, log);
        run_ok(cmd);
    }
    harness_argv_free(argv);
    spec_free(s);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Parboil's NT (the wild suite's parboil_sgemm_nt): no guard, the launch grid alone gives
 * M and N. Its benchmark program passes the grid and block it evaluated from the spec to
 * the host function (HK_HOST_CALL_GRID_), and compiles: with -cubin (nvcc's front end checks
 * the whole program, host code included, and builds its device code; 2.3 CPU-s where the
 * linked program took 8.8, issue 14). gcc's pass over the host side and the link with
 * cuBLAS are test_harness_program_tiled_template's, whose program takes the same
 * HK_HOST_CALL_GRID_ path (a template host function besides), and test_harness_program's. */
static void test_harness_program_grid(void **state)
{
    (void)state;
    char src[700], sp[700], cand[700], prog[700], exe[700], log[700];
    snprintf(src, sizeof src, "%s/ntg.cu", tmpdir);
    snprintf(sp, sizeof sp, "%s/ntg.bench.json", tmpdir);
    rwf_write_file(src,
                   "__global__ void ntg(const float *A, int lda, const float *B, int ldb, float *C, int ldc, int k,\n"
                   "                    float alpha, float beta)\n{\n"
                   "    float c = 0.0f;\n"
                   "    int m = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "    int n = blockIdx.y * blockDim.y + threadIdx.y;\n"
                   "    for (int i = 0; i < k; ++i)\n        c += A[m + i * lda] * B[n + i * ldb];\n"
                   "    C[m + n * ldc] = C[m + n * ldc] * beta + alpha * c;\n}\n");
    rwf_write_file(sp,
                   "{\"name\": \"ntg\", \"kernel\": \"ntg\", \"source\": \"ntg.cu\",\n"
                   " \"sizes\": [{\"m\": 256, \"n\": 128, \"k\": 64}, {\"m\": 64, \"n\": 32, \"k\": 17}],\n"
                   " \"args\": [{\"name\": \"A\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"m * k\"},\n"
                   "  {\"name\": \"lda\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"m\"},\n"
                   "  {\"name\": \"B\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n * k\"},\n"
                   "  {\"name\": \"ldb\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"},\n"
                   "  {\"name\": \"C\", \"kind\": \"inout\", \"dtype\": \"float\", \"count\": \"m * n\"},\n"
                   "  {\"name\": \"ldc\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"m\"},\n"
                   "  {\"name\": \"k\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"k\"},\n"
                   "  {\"name\": \"alpha\", \"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 1.0},\n"
                   "  {\"name\": \"beta\", \"kind\": \"scalar\", \"dtype\": \"float\", \"value\": 0.0}],\n"
                   " \"launch\": {\"grid\": [\"m / block_x\", \"n / block_y\"], \"block\": [16, 16]},\n"
                   " \"tolerance\": {\"rtol\": 0.001, \"atol\": 0.001}}\n");
    spec_diags d = {0};
    spec *s = NULL;
    if (spec_load(sp, &s, &d) != HK_OK)
        fail_msg("spec: %s", d.n ? d.items[0].message : "?");
    spec_diags_free(&d);
    char *t;
    substitute(src, "ntg", 0, false, &t);
    has(t, "#define HK_HOST_CALL_GRID_ntg 1");
    snprintf(cand, sizeof cand, "%s/cand_ntg.cu", tmpdir);
    snprintf(prog, sizeof prog, "%s/prog_ntg.cu", tmpdir);
    snprintf(exe, sizeof exe, "%s/prog_ntg.cubin", tmpdir);
    snprintf(log, sizeof log, "%s/prog_ntg.log", tmpdir);
    rwf_write_file(cand, t);
    free(t);
    char *gen = NULL;
    assert_int_equal(harness_generate(s, cand, &gen), HK_OK);
    /* the grid and block the program evaluated from the spec, never a size of the candidate's */
    has(gen, "#if defined(HK_HOST_CALL_GRID_ntg)\n    hk_call_host_launch(hk_host_ntg,\n"
             "                        dim3((unsigned)st->grid[0], (unsigned)st->grid[1], (unsigned)st->grid[2]),\n"
             "                        dim3((unsigned)st->block[0], (unsigned)st->block[1], (unsigned)st->block[2]),\n"
             "                        st->args[0], st->args[1], st->args[2], st->args[3],");
    hk_free(gen);
    assert_int_equal(harness_write(s, cand, prog), HK_OK);
    const char *extra[] = {"-cubin", NULL};
    char **argv = NULL;
    assert_int_equal(harness_nvcc_argv(s, NVCC, "sm_90", HK_SOURCE_DIR "/include", extra, prog, exe, &argv), HK_OK);
    if (have_cuda()) {
        char cmd[4000];
        size_t l = 0;
        for (size_t i = 0; argv[i]; i++)
            l += (size_t)snprintf(cmd + l, sizeof cmd - l, "'%s' ", argv[i]);
        snprintf(cmd + l, sizeof cmd - l, "> '%s' 2>&1 || { cat '%s'; exit 1; }", log, log);
        run_ok(cmd);
    }
    harness_argv_free(argv);
    spec_free(s);
    assert_int_equal(hk_alloc_live(), 0);
}

/* The search proposes the substitution for sgemm when a skill plans it, links it with
 * -lcublas, and a kernel it does not fit gets no structural axis from it. */
static void test_search_proposes(void **state)
{
    (void)state;
    fixture fx;
    load_path(BENCH "/sgemm.cu", &fx);
    static const search_struct st[] = {
        {.skill = "sm90-cublas-gemm", .rewrite = "blas_substitution", .params = {0}},
        {.skill = "sm90-cublas-gemm", .rewrite = "blas_substitution", .params = {1}, .rank = 1},
    };
    search_launch l = {.block = {16, 16, 1}, .sm_count = 132, .structs = st, .n_structs = 2};
    search_budget b = {.max_candidates = 8};
    search *s;
    assert_int_equal(search_new(fx.text, fx.len, fx.m, kernel(&fx, "sgemm"), &l, 7, &b, &s), HK_OK);
    char *axes = search_describe_axes(s);
    assert_non_null(axes);
    print_message("axes: %s\n", axes);
    has(axes, "blas_substitution math=0 (skill sm90-cublas-gemm)");
    has(axes, "blas_substitution math=1");
    hk_free(axes);
    const search_candidate *c;
    assert_int_equal(search_next(s, &c), HK_OK);   /* the baseline */
    assert_null(c->structural);
    assert_null(c->flags[0]);
    assert_int_equal(search_report(s, c->id, SEARCH_OK, 1.0), HK_OK);
    assert_int_equal(search_next(s, &c), HK_OK);
    assert_non_null(c->structural);
    has(c->structural, "blas_substitution math=0");
    assert_string_equal(c->skill, "sm90-cublas-gemm");
    has(c->text, "cublasSgemm(");
    has(c->text, "CUBLAS_DEFAULT_MATH");
    bool lib = false;
    for (size_t i = 0; c->flags[i]; i++)
        lib = lib || !strcmp(c->flags[i], "-lcublas");
    assert_true(lib);
    assert_int_equal(search_report(s, c->id, SEARCH_OK, 0.1), HK_OK);
    /* the rest of the search never times the library call again with a launch, attribute
     * or flag change it ignores */
    for (int i = 0; i < 40; i++) {
        int rc = search_next(s, &c);
        if (rc == HK_ENOENT || rc == HK_ETIMEDOUT)
            break;
        assert_int_equal(rc, HK_OK);
        if (c->structural && strstr(c->structural, "blas_substitution")) {
            assert_string_equal(c->description, c->structural);
            assert_int_equal(c->block[0], 16);
            assert_int_equal(c->block[1], 16);
            assert_false(c->fast_math || c->restrict_ptrs || c->launch_bounds);
        }
        assert_int_equal(search_report(s, c->id, SEARCH_OK, 1.0), HK_OK);
    }
    search_free(s);
    unload(&fx);

    load_path(BENCH "/gemv.cu", &fx);
    search_launch lv = {.block = {128, 1, 1}, .sm_count = 132, .structs = st, .n_structs = 1};
    assert_int_equal(search_new(fx.text, fx.len, fx.m, kernel(&fx, "gemv"), &lv, 7, &b, &s), HK_OK);
    axes = search_describe_axes(s);
    has(axes, "blas_substitution");
    hk_free(axes);
    search_free(s);
    unload(&fx);
    assert_int_equal(hk_alloc_live(), 0);
}

/* The shipped skills plan the substitution for the suite's sgemm (compute-bound: FP32,
 * then TF32) and gemv (memory-bound), and not for saxpy. */
static void test_skills_plan_it(void **state)
{
    (void)state;
    sk_set *set = NULL;
    char err[2048];
    assert_int_equal(sk_load_dir(HK_SOURCE_DIR "/skills", &set, err, sizeof err), HK_OK);
    static const struct {
        const char *file, *skill;
        enum sk_class cls;
        int n_math;
    } cases[] = {{BENCH "/sgemm.cu", "sm90-cublas-gemm", SK_COMPUTE_BOUND, 2},
                 {BENCH "/batched_gemm.cu", "sm90-cublas-gemm", SK_COMPUTE_BOUND, 2},
                 {BENCH "/gemv.cu", "sm90-cublas-gemv", SK_MEMORY_BOUND, 1},
                 {BENCH "/saxpy.cu", NULL, SK_MEMORY_BOUND, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        fixture fx;
        load_path(cases[c].file, &fx);
        skillplan p;
        assert_int_equal(skillplan_build(set, "sm_90", cases[c].cls, NULL, fx.text, fx.len, &p), HK_OK);
        int seen = 0;
        for (size_t i = 0; i < p.n; i++) {
            if (strcmp(p.v[i].rewrite, "blas_substitution"))
                continue;
            assert_non_null(cases[c].skill);
            assert_string_equal(p.v[i].skill, cases[c].skill);
            assert_int_equal(p.v[i].params[0], seen);   /* math 0, then 1 */
            seen++;
        }
        assert_int_equal(seen, cases[c].n_math);
        skillplan_free(&p);
        unload(&fx);
    }
    sk_set_free(set);
    assert_int_equal(hk_alloc_live(), 0);
}

/* A shared-memory tiled template kernel (the wild suite's cs_matrixmul spelling): the host
 * function is a template like the kernel, and the benchmark program calls it with the
 * spec's template arguments and its launch; the program builds and links with cuBLAS. */
static void test_harness_program_tiled_template(void **state)
{
    (void)state;
    char src[700], sp[700], cand[700], prog[700], exe[700], log[700];
    snprintf(src, sizeof src, "%s/tmm.cu", tmpdir);
    snprintf(sp, sizeof sp, "%s/tmm.bench.json", tmpdir);
    rwf_write_file(src,
                   "template <int BS> __global__ void tmm(float *C, float *A, float *B, int wA, int wB)\n{\n"
                   "    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;\n"
                   "    int first = wA * BS * by, last = first + wA - 1;\n"
                   "    float acc = 0;\n"
                   "    for (int a = first, b = BS * bx; a <= last; a += BS, b += BS * wB) {\n"
                   "        __shared__ float As[BS][BS];\n        __shared__ float Bs[BS][BS];\n"
                   "        As[ty][tx] = A[a + wA * ty + tx];\n        Bs[ty][tx] = B[b + wB * ty + tx];\n"
                   "        __syncthreads();\n"
                   "        for (int k = 0; k < BS; ++k)\n            acc += As[ty][k] * Bs[k][tx];\n"
                   "        __syncthreads();\n    }\n"
                   "    C[wB * BS * by + BS * bx + wB * ty + tx] = acc;\n}\n");
    rwf_write_file(sp,
                   "{\"name\": \"tmm\", \"kernel\": \"tmm\", \"source\": \"tmm.cu\", \"template_args\": [16],\n"
                   " \"sizes\": [{\"hA\": 64, \"wA\": 32, \"wB\": 48}, {\"hA\": 32, \"wA\": 48, \"wB\": 16}],\n"
                   " \"args\": [{\"name\": \"C\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"hA * wB\"},\n"
                   "  {\"name\": \"A\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"hA * wA\"},\n"
                   "  {\"name\": \"B\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"wA * wB\"},\n"
                   "  {\"name\": \"wA\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"wA\"},\n"
                   "  {\"name\": \"wB\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"wB\"}],\n"
                   " \"launch\": {\"grid\": [\"wB / 16\", \"hA / 16\"], \"block\": [16, 16]},\n"
                   " \"tolerance\": {\"rtol\": 0.001, \"atol\": 0.001}}\n");
    spec_diags d = {0};
    spec *s = NULL;
    if (spec_load(sp, &s, &d) != HK_OK)
        fail_msg("spec: %s", d.n ? d.items[0].message : "?");
    spec_diags_free(&d);
    char *t;
    substitute(src, "tmm", 0, false, &t);
    has(t, "#define HK_HOST_CALL_GRID_tmm 1\ntemplate <int BS>\nstatic void hk_host_tmm(dim3 hk_grid, dim3 hk_block,");
    snprintf(cand, sizeof cand, "%s/cand_tmm.cu", tmpdir);
    snprintf(prog, sizeof prog, "%s/prog_tmm.cu", tmpdir);
    snprintf(exe, sizeof exe, "%s/prog_tmm", tmpdir);
    snprintf(log, sizeof log, "%s/prog_tmm.log", tmpdir);
    rwf_write_file(cand, t);
    free(t);
    char *gen = NULL;
    assert_int_equal(harness_generate(s, cand, &gen), HK_OK);
    has(gen, "#if defined(HK_HOST_CALL_GRID_tmm)\n    hk_call_host_launch(hk_host_tmm<16>,\n");
    has(gen, "#elif defined(HK_HOST_CALL_tmm)\n    hk_call_host(hk_host_tmm<16>,");
    has(gen, "#else\n    hk_launch_kernel(tmm<16>,");
    hk_free(gen);
    assert_int_equal(harness_write(s, cand, prog), HK_OK);
    const char *extra[] = {"-lcublas", NULL};
    char **argv = NULL;
    assert_int_equal(harness_nvcc_argv(s, NVCC, "sm_90", HK_SOURCE_DIR "/include", extra, prog, exe, &argv), HK_OK);
    if (have_cuda()) {
        char cmd[4000];
        size_t l = 0;
        for (size_t i = 0; argv[i]; i++)
            l += (size_t)snprintf(cmd + l, sizeof cmd - l, "'%s' ", argv[i]);
        snprintf(cmd + l, sizeof cmd - l, "> '%s' 2>&1 || { cat '%s'; exit 1; }", log, log);
        run_ok(cmd);
    }
    harness_argv_free(argv);
    spec_free(s);
    assert_int_equal(hk_alloc_live(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suite_kernels),
        cmocka_unit_test(test_other_forms),
        cmocka_unit_test(test_the_library_is_named),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_harness_program),
        cmocka_unit_test(test_harness_program_grid),
        cmocka_unit_test(test_harness_program_tiled_template),
        cmocka_unit_test(test_search_proposes),
        cmocka_unit_test(test_skills_plan_it),
        cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_compiles_and_links),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
