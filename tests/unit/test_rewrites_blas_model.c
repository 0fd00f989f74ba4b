/* blas_substitution from the kernel model's class (issue 13): GEMMs and GEMVs spelled as
 * people write them (unsigned or size_t indices, rows from .x or .y, alpha/beta or none,
 * a k loop accumulating into C, column-major with a transposed operand) become the
 * library call whose operands, transposes, m/n/k and leading dimensions follow from the
 * class; a size only the launch gives (no guard) is the launch's grid x block when the
 * thread index maps the grid exactly; what the call would get wrong (a guard skipping part
 * of C, a second output, a sum not starting at 0, an int matrix, a launch that does not map
 * rows exactly) is refused with its line. One emitted file is compiled with nvcc -c when
 * the toolkit is there (no GPU runs anything here); the unguarded NT's substitution is
 * emulated on the CPU against the naive kernel (emu_block.h, a cuBLAS stand-in). */
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
    return rwf_setup("blas_model");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* The maintainers' spelling: unsigned indices, x indexing rows, C = alpha*tmp + beta*C. */
static const char sg_unsigned[] =
    "__global__ void sg(const float *A, const float *B, float *C, unsigned M, unsigned N, unsigned K,\n"
    "                   float alpha, float beta)\n"
    "{\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    unsigned j = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (i < M && j < N) {\n"
    "        float tmp = 0;\n"
    "        for (unsigned k = 0; k < K; ++k)\n"
    "            tmp += A[i * K + k] * B[k * N + j];\n"
    "        C[i * N + j] = alpha * tmp + beta * C[i * N + j];\n"
    "    }\n"
    "}\n";

/* size_t indices, rows from .y, an early return, no alpha or beta. */
static const char sg_size_t[] =
    "__global__ void st(float *C, const float *A, const float *B, size_t M, size_t N, size_t K)\n"
    "{\n"
    "    size_t r = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    size_t c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (r >= M || c >= N)\n"
    "        return;\n"
    "    float acc = 0.0f;\n"
    "    for (size_t k = 0; k < K; k++)\n"
    "        acc = fmaf(A[r * K + k], B[k * N + c], acc);\n"
    "    C[r * N + c] = acc;\n"
    "}\n";

/* alpha and beta as PolyBench writes them: C scaled first, then accumulated in the k loop. */
static const char sg_kloop[] =
    "#define NI 512\n#define NJ 256\n#define NK 128\n#define ALPHA 32412.0f\n#define BETA 2123.0f\n"
    "__global__ void gemm_kernel(float *a, float *b, float *c)\n"
    "{\n"
    "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if ((i < NI) && (j < NJ)) {\n"
    "        c[i * NJ + j] *= BETA;\n"
    "        int k;\n"
    "        for (k = 0; k < NK; k++)\n"
    "            c[i * NJ + j] += ALPHA * a[i * NK + k] * b[k * NJ + j];\n"
    "    }\n"
    "}\n";

/* C += A*B in the k loop, nothing before: beta 1. */
static const char sg_accumulate[] =
    "__global__ void acc(const float *A, const float *B, float *C, int n)\n"
    "{\n"
    "    int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n && j < n)\n"
    "        for (int k = 0; k < n; k++)\n"
    "            C[i * n + j] += A[i * n + k] * B[k * n + j];\n"
    "}\n";

/* Parboil's NT: column-major, B transposed (with the guard that makes M and N known). */
static const char sg_nt[] =
    "__global__ void nt(const float *A, int lda, const float *B, int ldb, float *C, int ldc, int k,\n"
    "                   float alpha, float beta, int M, int N)\n"
    "{\n"
    "    float c = 0.0f;\n"
    "    int m = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int n = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (m < M && n < N) {\n"
    "        for (int i = 0; i < k; ++i) {\n"
    "            float a = A[m + i * lda];\n"
    "            float b = B[n + i * ldb];\n"
    "            c += a * b;\n"
    "        }\n"
    "        C[m + n * ldc] = C[m + n * ldc] * beta + alpha * c;\n"
    "    }\n"
    "}\n";

/* Parboil's NT as Parboil ships it: no guard at all, the launch grid alone decides M and
 * N (issue 13); its launcher comes after it. */
#define NT_GRID_KERNEL                                                                            \
    "__global__ void ntg(const float *A, int lda, const float *B, int ldb, float *C, int ldc, int k,\n" \
    "                    float alpha, float beta)\n"                                           \
    "{\n"                                                                                    \
    "    float c = 0.0f;\n"                                                                  \
    "    int m = blockIdx.x * blockDim.x + threadIdx.x;\n"                                   \
    "    int n = blockIdx.y * blockDim.y + threadIdx.y;\n"                                   \
    "    for (int i = 0; i < k; ++i) {\n"                                                    \
    "        float a = A[m + i * lda];\n"                                                    \
    "        float b = B[n + i * ldb];\n"                                                    \
    "        c += a * b;\n"                                                                  \
    "    }\n"                                                                                \
    "    C[m + n * ldc] = C[m + n * ldc] * beta + alpha * c;\n"                              \
    "}\n"
static const char sg_nt_grid[] =
    NT_GRID_KERNEL
    "void run_ntg(int m, int n, int k, const float *A, const float *B, float *C)\n"
    "{\n"
    "    dim3 grid(m / 16, n / 16), threads(16, 16);\n"
    "    ntg<<<grid, threads>>>(A, m, B, n, C, m, k, 1.0f, 0.0f);\n"
    "}\n";

/* Two rows per thread, unguarded: M is the grid's x threads times 2. */
static const char sg_rows2_grid[] =
    "__global__ void r2(const float *A, int lda, const float *B, int ldb, float *C, int ldc, int k)\n"
    "{\n"
    "    int m0 = (blockIdx.x * blockDim.x + threadIdx.x) * 2;\n"
    "    int n = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    for (int r = 0; r < 2; r++) {\n"
    "        float c = 0.0f;\n"
    "        for (int i = 0; i < k; ++i)\n"
    "            c += A[m0 + r + i * lda] * B[n + i * ldb];\n"
    "        C[m0 + r + n * ldc] = c;\n"
    "    }\n"
    "}\n";

/* Row-major, rows from .y unguarded, columns guarded: N from the guard, M from the grid. */
static const char sg_half_grid[] =
    "__global__ void hg(const float *A, const float *B, float *C, int N, int K)\n"
    "{\n"
    "    int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (j >= N)\n"
    "        return;\n"
    "    float s = 0.0f;\n"
    "    for (int k = 0; k < K; k++)\n"
    "        s += A[i * K + k] * B[k * N + j];\n"
    "    C[i * N + j] = s;\n"
    "}\n";

static const char dg[] =
    "__global__ void dg(int M, int N, int K, const double *A, const double *B, double *C)\n"
    "{\n"
    "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    if (row < M && col < N) {\n"
    "        double s = 0.0;\n"
    "        for (int k = 0; k < K; k++)\n"
    "            s += A[row * K + k] * B[k * N + col];\n"
    "        C[row * N + col] = s;\n"
    "    }\n"
    "}\n";

/* Two row-per-thread GEMVs: A read by rows (uncoalesced) and by columns. */
static const char gv_rows[] =
    "__global__ void mv_rows(const float *A, const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        float s = 0.0f;\n"
    "        for (int j = 0; j < n; j++)\n"
    "            s += A[i * n + j] * x[j];\n"
    "        y[i] = s;\n"
    "    }\n"
    "}\n";

static const char gv_cols[] =
    "__global__ void mv_cols(const float *A, const float *x, float *y, int m, int n, float a)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < m) {\n"
    "        float s = 0.0f;\n"
    "        for (int j = 0; j < n; j++)\n"
    "            s += A[j * m + i] * x[j];\n"
    "        y[i] = a * s;\n"
    "    }\n"
    "}\n";

/* The rows and the columns again, y zeroed and the sum accumulated in y itself
 * (`y[i] = 0; for (...) y[i] += ...`, PolyBench-style): beta 0, the same calls. */
static const char gv_rows_zeroed[] =
    "__global__ void mv_rows_z(const float *A, const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        y[i] = 0;\n"
    "        for (int j = 0; j < n; j++)\n"
    "            y[i] += A[i * n + j] * x[j];\n"
    "    }\n"
    "}\n";

static const char gv_cols_zeroed[] =
    "__global__ void mv_cols_z(const float *A, const float *x, float *y, int m, int n, float a)\n"
    "{\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= m)\n"
    "        return;\n"
    "    y[i] = 0.0f;\n"
    "    for (int j = 0; j < n; j++)\n"
    "        y[i] += a * A[j * m + i] * x[j];\n"
    "}\n";

/* Row-major C with A, B or C stored the other way (the textual matcher refused these). */
#define LAYOUT(name, a, b, c)                                                                       \
    "__global__ void " name "(int M, int N, int K, const float *A, const float *B, float *C)\n{\n"   \
    "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"                                        \
    "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"                                        \
    "    if (row < M && col < N) {\n        float acc = 0.0f;\n"                                    \
    "        for (int k = 0; k < K; k++)\n            acc += A[" a "] * B[" b "];\n"                 \
    "        C[" c "] = acc;\n    }\n}\n"

/* x read with a step of 2: the call's incx. */
static const char gv_step[] =
    "__global__ void sx(const float *A, const float *x, float *y, int M, int N)\n"
    "{\n    int row = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (row < M) {\n        float acc = 0.0f;\n"
    "        for (int j = 0; j < N; j++)\n            acc += A[row * N + j] * x[2 * j];\n"
    "        y[row] = acc;\n    }\n}\n";

/* Shared-memory tiled GEMMs (the CUDA programming guide's form): the class sees through the
 * tiles to A and B; the launch gives M and N, the tile loop and the k loop K, and the host
 * function checks that the block is the tile. A template tile with pointers walked by the
 * tile loop, C = A * B: */
#define TILED_TEMPLATE_KERNEL                                                                        \
    "template <int BS> __global__ void tt(float *C, float *A, float *B, int wA, int wB)\n"            \
    "{\n"                                                                                           \
    "    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;\n"                \
    "    int first = wA * BS * by, last = first + wA - 1;\n"                                         \
    "    float acc = 0;\n"                                                                          \
    "    for (int a = first, b = BS * bx; a <= last; a += BS, b += BS * wB) {\n"                     \
    "        __shared__ float As[BS][BS];\n"                                                        \
    "        __shared__ float Bs[BS][BS];\n"                                                        \
    "        As[ty][tx] = A[a + wA * ty + tx];\n"                                                   \
    "        Bs[ty][tx] = B[b + wB * ty + tx];\n"                                                   \
    "        __syncthreads();\n"                                                                    \
    "        for (int k = 0; k < BS; ++k)\n"                                                        \
    "            acc += As[ty][k] * Bs[k][tx];\n"                                                   \
    "        __syncthreads();\n"                                                                    \
    "    }\n"                                                                                       \
    "    C[wB * BS * by + BS * bx + wB * ty + tx] = acc;\n"                                          \
    "}\n"
static const char tiled_template[] =
    TILED_TEMPLATE_KERNEL
    "void run_tt(float *C, float *A, float *B, int m, int k, int n)\n"
    "{\n"
    "    dim3 threads(16, 16), grid(n / 16, m / 16);\n"
    "    tt<16><<<grid, threads>>>(C, A, B, k, n);\n"
    "}\n";

/* A macro tile, a tile counter, one-dimensional tiles, alpha and beta. */
#define TILED_FLAT_KERNEL                                                                            \
    "#define TILE 16\n"                                                                              \
    "__global__ void tf(const float *A, const float *B, float *C, int N, int K, float alpha, float beta)\n" \
    "{\n"                                                                                           \
    "    __shared__ float sa[TILE * TILE], sb[TILE * TILE];\n"                                        \
    "    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;\n"         \
    "    float sum = 0.0f;\n"                                                                       \
    "    for (int t = 0; t < K / TILE; t++) {\n"                                                    \
    "        sa[threadIdx.y * TILE + threadIdx.x] = A[row * K + t * TILE + threadIdx.x];\n"          \
    "        sb[threadIdx.y * TILE + threadIdx.x] = B[(t * TILE + threadIdx.y) * N + col];\n"        \
    "        __syncthreads();\n"                                                                    \
    "        for (int k = 0; k < TILE; k++)\n"                                                      \
    "            sum = fmaf(sa[threadIdx.y * TILE + k], sb[k * TILE + threadIdx.x], sum);\n"         \
    "        __syncthreads();\n"                                                                    \
    "    }\n"                                                                                       \
    "    C[row * N + col] = alpha * sum + beta * C[row * N + col];\n"                                \
    "}\n"
static const char tiled_flat[] = TILED_FLAT_KERNEL;

typedef struct {
    const char *text, *kernel;
    bool hip;
    const char *want[6];
} applies;

static const applies cases[] = {
    {sg_unsigned, "sg", false,
     {"hk_alpha = (float)(alpha), hk_beta = (float)(beta)", "hk_m = (long long)(M), hk_n = (long long)(N)",
      "hk_k = (long long)(K)",
      "cublasSgemm(hk_h, CUBLAS_OP_N, CUBLAS_OP_N, (int)hk_n, (int)hk_m, (int)(hk_k > 0 ? hk_k : 0), &hk_alpha,\n"
      "                   B, (int)(N), A, (int)(K), &hk_beta, C, (int)(N));"}},
    {sg_unsigned, "sg", true,
     {"hipblasSgemm(hk_h, HIPBLAS_OP_N, HIPBLAS_OP_N, (int)hk_n, (int)hk_m", "#include <hipblas/hipblas.h>"}},
    {sg_size_t, "st", false,
     {"hk_alpha = (float)(1), hk_beta = (float)(0)", "hk_m = (long long)(M), hk_n = (long long)(N)",
      "B, (int)(N), A, (int)(K), &hk_beta, C, (int)(N));"}},
    {sg_kloop, "gemm_kernel", false,
     /* the model folds the integral float constants to their values */
     {"hk_alpha = (float)(32412), hk_beta = (float)(2123)", "hk_m = (long long)(NI), hk_n = (long long)(NJ)",
      "hk_k = (long long)(NK)", "b, (int)(NJ), a, (int)(NK), &hk_beta, c, (int)(NJ));"}},
    {sg_accumulate, "acc", false,
     {"hk_alpha = (float)(1), hk_beta = (float)(1)", "B, (int)(n), A, (int)(n), &hk_beta, C, (int)(n));"}},
    {sg_nt, "nt", false,
     {"hk_alpha = (float)(alpha), hk_beta = (float)(beta)", "hk_m = (long long)(M), hk_n = (long long)(N)",
      "hk_k = (long long)(k)",
      "cublasSgemm(hk_h, CUBLAS_OP_N, CUBLAS_OP_T, (int)hk_m, (int)hk_n, (int)(hk_k > 0 ? hk_k : 0), &hk_alpha,\n"
      "                   A, (int)(lda), B, (int)(ldb), &hk_beta, C, (int)(ldc));"}},
    {dg, "dg", false,
     {"const double hk_alpha = (double)(1), hk_beta = (double)(0)",
      "cublasDgemm(hk_h, CUBLAS_OP_N, CUBLAS_OP_N, (int)hk_n, (int)hk_m"}},
    {LAYOUT("cm", "k * M + row", "k * N + col", "row * N + col"), "cm", false,
     {"cublasSgemm(hk_h, CUBLAS_OP_N, CUBLAS_OP_T, (int)hk_n, (int)hk_m, (int)(hk_k > 0 ? hk_k : 0), &hk_alpha,\n"
      "                   B, (int)(N), A, (int)(M), &hk_beta, C, (int)(N));"}},
    {LAYOUT("tb", "row * K + k", "col * K + k", "row * N + col"), "tb", false,
     {"cublasSgemm(hk_h, CUBLAS_OP_T, CUBLAS_OP_N, (int)hk_n, (int)hk_m, (int)(hk_k > 0 ? hk_k : 0), &hk_alpha,\n"
      "                   B, (int)(K), A, (int)(K), &hk_beta, C, (int)(N));"}},
    {LAYOUT("cc", "row * K + k", "k * N + col", "col * M + row"), "cc", false,
     {"cublasSgemm(hk_h, CUBLAS_OP_T, CUBLAS_OP_T, (int)hk_m, (int)hk_n, (int)(hk_k > 0 ? hk_k : 0), &hk_alpha,\n"
      "                   A, (int)(K), B, (int)(N), &hk_beta, C, (int)(M));"}},
    {gv_rows, "mv_rows", false,
     {"hk_m = (long long)(n), hk_n = (long long)(n)",
      "cublasSgemv(hk_h, CUBLAS_OP_T, (int)hk_n, (int)hk_m, &hk_alpha, A, (int)(n), x, (int)(1),\n"
      "                   &hk_beta, y, (int)(1));"}},
    {gv_cols, "mv_cols", false,
     {"hk_alpha = (float)(a), hk_beta = (float)(0)", "hk_m = (long long)(m), hk_n = (long long)(n)",
      "cublasSgemv(hk_h, CUBLAS_OP_N, (int)hk_m, (int)hk_n, &hk_alpha, A, (int)(m), x, (int)(1),\n"
      "                   &hk_beta, y, (int)(1));"}},
    {gv_rows_zeroed, "mv_rows_z", false,
     {"hk_alpha = (float)(1), hk_beta = (float)(0)", "hk_m = (long long)(n), hk_n = (long long)(n)",
      "cublasSgemv(hk_h, CUBLAS_OP_T, (int)hk_n, (int)hk_m, &hk_alpha, A, (int)(n), x, (int)(1),\n"
      "                   &hk_beta, y, (int)(1));"}},
    {gv_cols_zeroed, "mv_cols_z", false,
     {"hk_alpha = (float)(a), hk_beta = (float)(0)", "hk_m = (long long)(m), hk_n = (long long)(n)",
      "cublasSgemv(hk_h, CUBLAS_OP_N, (int)hk_m, (int)hk_n, &hk_alpha, A, (int)(m), x, (int)(1),\n"
      "                   &hk_beta, y, (int)(1));"}},
    {gv_step, "sx", false,
     {"cublasSgemv(hk_h, CUBLAS_OP_T, (int)hk_n, (int)hk_m, &hk_alpha, A, (int)(N), x, (int)(2),\n"
      "                   &hk_beta, y, (int)(1));"}},
    /* sizes from the launch: the host function takes the grid and block first */
    {sg_nt_grid, "ntg", false,
     {"#define HK_HOST_CALL_ntg 1\n#define HK_HOST_CALL_GRID_ntg 1\n"
      "static void hk_host_ntg(dim3 hk_grid, dim3 hk_block, const float *A, int lda,",
      "hk_m = (long long)((long long)hk_grid.x * hk_block.x), hk_n = (long long)((long long)hk_grid.y * hk_block.y)",
      "cublasSgemm(hk_h, CUBLAS_OP_N, CUBLAS_OP_T, (int)hk_m, (int)hk_n, (int)(hk_k > 0 ? hk_k : 0), &hk_alpha,\n"
      "                   A, (int)(lda), B, (int)(ldb), &hk_beta, C, (int)(ldc));",
      "hk_host_ntg(dim3(grid), dim3(threads), A, m, B, n, C, m, k, 1.0f, 0.0f);"}},
    {sg_rows2_grid, "r2", false, {"hk_m = (long long)((long long)hk_grid.x * hk_block.x * 2)"}},
    /* tiled: a template host function the launch site calls with the kernel's arguments */
    {tiled_template, "tt", false,
     {"template <int BS>\nstatic void hk_host_tt(dim3 hk_grid, dim3 hk_block, float *C, float *A, float *B, int wA,",
      "    if (hk_block.x != (unsigned)(BS)) {", "    if (hk_block.y != (unsigned)(BS)) {",
      "hk_k = (long long)(BS*(((wA) + (BS) - 1) / (BS)));",
      "cublasSgemm(hk_h, CUBLAS_OP_N, CUBLAS_OP_N, (int)hk_n, (int)hk_m, (int)(hk_k > 0 ? hk_k : 0), &hk_alpha,\n"
      "                   B, (int)(wB), A, (int)(wA), &hk_beta, C, (int)(wB));",
      "hk_host_tt<16>(dim3(grid), dim3(threads), C, A, B, k, n);"}},
    {tiled_flat, "tf", false,
     {"hk_alpha = (float)(alpha), hk_beta = (float)(beta)",
      "hk_m = (long long)((long long)hk_grid.y * hk_block.y), hk_n = (long long)((long long)hk_grid.x * hk_block.x)",
      "hk_k = (long long)(((K) / (TILE))*TILE);", "    if (hk_block.x != (unsigned)(TILE)) {",
      "B, (int)(N), A, (int)(K), &hk_beta, C, (int)(N));"}},
    {sg_half_grid, "hg", false,
     {"hk_m = (long long)((long long)hk_grid.y * hk_block.y), hk_n = (long long)(N)",
      "cublasSgemm(hk_h, CUBLAS_OP_N, CUBLAS_OP_N, (int)hk_n, (int)hk_m, (int)(hk_k > 0 ? hk_k : 0), &hk_alpha,\n"
      "                   B, (int)(N), A, (int)(K), &hk_beta, C, (int)(N));"}},
};

/* The substitution of kernel name in text (must apply); new text malloc'd. */
static char *substitute(const char *text, const char *name, bool hip)
{
    fixture fx;
    load_text(text, &fx);
    rw_result r;
    assert_int_equal(rw_blas_substitution(fx.text, fx.len, fx.m, kernel(&fx, name), 0, hip, &r), HK_OK);
    if (!r.applicable)
        fail_msg("%s: %s", name, r.description);
    char *out = strdup(r.text);
    assert_non_null(out);
    rw_result_free(&r);
    unload(&fx);
    return out;
}

static void test_spellings_apply(void **state)
{
    (void)state;
    for (size_t i = 0; i < HK_ARRAY_LEN(cases); i++) {
        char *t = substitute(cases[i].text, cases[i].kernel, cases[i].hip);
        for (size_t w = 0; w < HK_ARRAY_LEN(cases[i].want) && cases[i].want[w]; w++)
            if (!strstr(t, cases[i].want[w])) {
                /* the host function only: the whole file is over cmocka's message size */
                const char *h = strstr(t, "static void hk_host_");
                print_message("%s\n", h ? h : t);
                fail_msg("%s: missing `%s`", cases[i].kernel, cases[i].want[w]);
            }
        free(t);
    }
    assert_int_equal(hk_alloc_live(), 0);
}

typedef struct {
    const char *text, *kernel, *why;
} refusal;

#define GEMM_HEAD                                                                                  \
    "__global__ void g(const float *A, const float *B, float *C, float *D, int M, int N, int K,\n" \
    "                  const float *pa)\n"                                                         \
    "{\n"                                                                                          \
    "    int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;\n"

#define TILED_HEAD                                                                                  \
    "#define T 16\n"                                                                                 \
    "__global__ void g(const float *A, const float *B, float *C, int M, int N, int K)\n{\n"            \
    "    __shared__ float ta[T][T], tb[T][T];\n"                                                       \
    "    int tx = threadIdx.x, ty = threadIdx.y, i = blockIdx.y * T + ty, j = blockIdx.x * T + tx;\n"  \
    "    float s = 0;\n"

static const refusal refusals[] = {
    /* tiled kernels that do not compute C = A * B over the whole K */
    {TILED_HEAD "    for (int t = 0; t < K / T; t += 2) {\n"
                "        ta[ty][tx] = A[i * K + t * T + tx];\n        tb[ty][tx] = B[(t * T + ty) * N + j];\n"
                "        __syncthreads();\n        for (int k = 0; k < T; ++k)\n            s += ta[ty][k] * tb[k][tx];\n"
                "        __syncthreads();\n    }\n    C[i * N + j] = s;\n}\n",
     "g", "line 7: not quite a gemm: the tile loop (line 7) moves A by 2*T per tile, not by the T its tile spans: "
          "tiles are skipped or read twice"},
    {TILED_HEAD "    for (int t = 0; t < K / T; t++) {\n"
                "        ta[ty][tx] = A[i * K + t * T + tx];\n        tb[ty][tx] = B[(t * T + ty) * N + j];\n"
                "        __syncthreads();\n        for (int k = 0; k < T; ++k)\n            s += ta[ty][k] * tb[k][ty];\n"
                "        __syncthreads();\n    }\n    C[i * N + j] = s;\n}\n",
     "g", "line 12: not quite a gemm: tb[$L1*T + threadIdx.y] in the k loop is not the tile's element"},
    {TILED_HEAD "    for (int t = 0; t < K / T; t++) {\n"
                "        ta[ty][tx] = A[i * K + t * T + tx];\n        tb[ty][tx] = B[(t * T + ty) * N + j];\n"
                "        __syncthreads();\n        for (int k = 0; k < T; ++k)\n            s += ta[ty][k] * tb[k][tx];\n"
                "    }\n    C[i * N + j] = s;\n}\n",
     "g", "not quite a gemm: the tile ta is read without __syncthreads() between its fill and its use and before "
          "the next fill"},
    /* bounds-checked (ragged) tiles are not seen through yet */
    {TILED_HEAD "    for (int t = 0; t < (K + T - 1) / T; t++) {\n"
                "        ta[ty][tx] = i < M && t * T + tx < K ? A[i * K + t * T + tx] : 0.0f;\n"
                "        tb[ty][tx] = B[(t * T + ty) * N + j];\n"
                "        __syncthreads();\n        for (int k = 0; k < T; ++k)\n            s += ta[ty][k] * tb[k][tx];\n"
                "        __syncthreads();\n    }\n    C[i * N + j] = s;\n}\n",
     "g", "line 8: not quite a gemm: the tile ta is filled with"},
    /* a guard on the tile's row and column (T*blockIdx + threadIdx), not the global index */
    {TILED_HEAD "    for (int t = 0; t < K / T; t++) {\n"
                "        ta[ty][tx] = A[i * K + t * T + tx];\n        tb[ty][tx] = B[(t * T + ty) * N + j];\n"
                "        __syncthreads();\n        for (int k = 0; k < T; ++k)\n            s += ta[ty][k] * tb[k][tx];\n"
                "        __syncthreads();\n    }\n    if (i < M && j < N)\n        C[i * N + j] = s;\n}\n",
     "g", "line 15: a guard (<) in force at C's write (line 16) is not its row's or column's global index"},
    {GEMM_HEAD "    if (i < M && j < N && j > 3) {\n        float s = 0.0f;\n"
               "        for (int k = 0; k < K; k++)\n            s += A[i * K + k] * B[k * N + j];\n"
               "        C[i * N + j] = s;\n    }\n}\n",
     "g", "line 5: a guard"},
    {GEMM_HEAD "    if (i < M && j < N && i + 1 < M) {\n        float s = 0.0f;\n"
               "        for (int k = 0; k < K; k++)\n            s += A[i * K + k] * B[k * N + j];\n"
               "        C[i * N + j] = s;\n    }\n}\n",
     "g", "line 5: a guard (<)"},
    {GEMM_HEAD "    if (i < M && j < N) {\n        float s = 0.0f;\n"
               "        for (int k = 0; k < K; k++)\n            s += A[i * K + k] * B[k * N + j];\n"
               "        C[i * N + j] = s;\n        D[i * N + j] = s;\n    }\n}\n",
     "g", "also writes D"},
    {GEMM_HEAD "    if (i < M && j < N) {\n        float s = 1.0f;\n"
               "        for (int k = 0; k < K; k++)\n            s += A[i * K + k] * B[k * N + j];\n"
               "        C[i * N + j] = s;\n    }\n}\n",
     "g", "starts from a value other than 0"},
    {GEMM_HEAD "    if (i < M && j < N) {\n        float s = 0.0f;\n"
               "        for (int k = 0; k < K; k++)\n            s += A[i * K + k] * B[k * N + j];\n"
               "        C[i * N + j] = *pa * s;\n    }\n}\n",
     "g", "line 9: not quite a gemm: gemm epilogue: the term $acc0*pa[0] of C[...] is neither alpha*sum"},
    /* unguarded, but the launch does not give M exactly: a block read as 16 threads, an
     * offset row, a non-affine thread index */
    {"__global__ void g(const float *A, const float *B, float *C, int N, int K)\n{\n"
     "    int i = blockIdx.y * 16 + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;\n"
     "    float s = 0.0f;\n"
     "    for (int k = 0; k < K; k++)\n        s += A[i * K + k] * B[k * N + j];\n"
     "    C[i * N + j] = s;\n}\n",
     "g", "line 7: M is not known from the kernel (no guard or loop bounds it) and the launch does not give it "
          "exactly: its index 16*blockIdx.y + threadIdx.y is not the global thread index"},
    {"__global__ void g(const float *A, int lda, const float *B, int ldb, float *C, int ldc, int k)\n{\n"
     "    int m = blockIdx.x * blockDim.x + threadIdx.x, n = blockIdx.y * blockDim.y + threadIdx.y * threadIdx.y;\n"
     "    float c = 0.0f;\n"
     "    for (int i = 0; i < k; ++i)\n        c += A[m + i * lda] * B[n + i * ldb];\n"
     "    C[m + n * ldc] = c;\n}\n",
     "g", "N is not known from the kernel (no guard or loop bounds it) and the launch does not give it exactly: "
          "its index blockDim.y*blockIdx.y + threadIdx.y*threadIdx.y"},
    {"__global__ void g(const float *A, int lda, const float *B, int ldb, float *C, int ldc, int k)\n{\n"
     "    int m0 = (blockIdx.x * blockDim.x + threadIdx.x) * 2, n = blockIdx.y * blockDim.y + threadIdx.y;\n"
     "    for (int r = 0; r < 3; r++) {\n        float c = 0.0f;\n"
     "        for (int i = 0; i < k; ++i)\n            c += A[m0 + r + i * lda] * B[n + i * ldb];\n"
     "        C[m0 + r + n * ldc] = c;\n    }\n}\n",
     "g", "M is not known from the kernel (no guard or loop bounds it) and the launch does not give it exactly"},
    /* y started at 1, or zeroed after the sum: not beta 0 */
    {"__global__ void gz(const float *A, const float *x, float *y, int n)\n{\n"
     "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
     "    if (i < n) {\n        y[i] = 1.0f;\n"
     "        for (int j = 0; j < n; j++)\n            y[i] += A[i * n + j] * x[j];\n    }\n}\n",
     "gz", "line 7: y is written a second time (first at line 5)"},
    {"__global__ void gz(const float *A, const float *x, float *y, int n)\n{\n"
     "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
     "    if (i < n) {\n"
     "        for (int j = 0; j < n; j++)\n            y[i] += A[i * n + j] * x[j];\n        y[i] = 0;\n    }\n}\n",
     "gz", "line 7: y is written a second time (first at line 6)"},
    {"__global__ void ig(const int *A, const int *B, int *C, int M, int N, int K)\n{\n"
     "    int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;\n"
     "    if (i < M && j < N) {\n        int s = 0;\n"
     "        for (int k = 0; k < K; k++)\n            s += A[i * K + k] * B[k * N + j];\n"
     "        C[i * N + j] = s;\n    }\n}\n",
     "ig", "element types int, int, int"},
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
        if (r.applicable || !strstr(r.description, refusals[i].why))
            fail_msg("refusal %zu: want `%s`, got (%s) %s", i, refusals[i].why, r.applicable ? "applies" : "refused",
                     r.description);
        rw_result_free(&r);
        unload(&fx);
    }
    assert_int_equal(hk_alloc_live(), 0);
}

/* Emitted files build: the NT, PolyBench and GEMV-by-columns substitutions in one
 * translation unit (the handle helper defined once), nvcc -c; nothing runs (no GPU). */
static void test_emitted_compiles(void **state)
{
    (void)state;
    if (access(NVCC, X_OK) != 0) {
        print_message("skipped: no nvcc at %s\n", NVCC);
        return;
    }
    static const size_t pick[] = {5, 3, 11, 6, 13, 15};   /* nt, gemm_kernel, mv_cols, dg, ntg, tt */
    char path[700], main_cu[700], cmd[3000];
    struct hk_buf inc;
    hk_buf_init(&inc, 4096);
    for (size_t i = 0; i < HK_ARRAY_LEN(pick); i++) {
        char *t = substitute(cases[pick[i]].text, cases[pick[i]].kernel, false);
        snprintf(path, sizeof path, "%s/%s.cu", tmpdir, cases[pick[i]].kernel);
        rwf_write_file(path, t);
        free(t);
        assert_int_equal(hk_buf_printf(&inc, "#include \"%s.cu\"\n", cases[pick[i]].kernel), HK_OK);
    }
    snprintf(main_cu, sizeof main_cu, "%s/main.cu", tmpdir);
    rwf_write_file(main_cu, inc.data);
    hk_buf_free(&inc);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' -arch=sm_90 -std=c++17 -c -o main.o main.cu > main.log 2>&1 || "
             "{ cat main.log; exit 1; }", tmpdir, NVCC);
    print_message("%s\n", cmd);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "nm -C '%s/main.o' | grep -q cublasDgemm", tmpdir);
    assert_int_equal(system(cmd), 0);
}

/* A kernel whose guard bounds M and N keeps the host function it had: the kernel's
 * arguments only, no launch, no HK_HOST_CALL_GRID_. */
static void test_guarded_unchanged(void **state)
{
    (void)state;
    char *t = substitute(sg_nt, "nt", false);
    assert_non_null(strstr(t, "static void hk_host_nt(const float *A, int lda,"));
    assert_null(strstr(t, "HK_HOST_CALL_GRID_"));
    assert_null(strstr(t, "hk_grid"));
    free(t);
    assert_int_equal(hk_alloc_live(), 0);
}

/* A CPU stand-in for the few cuBLAS calls the host function makes, put in front of it in
 * the emulated candidate: cublasSgemm as the cuBLAS documentation defines it (column-major,
 * C = alpha*op(A)*op(B) + beta*C, C not read when beta is 0), refusing leading dimensions
 * the library refuses, so a wrong size or ld shows as a difference, not as a pass. */
static const char cublas_stand_in[] =
    "typedef struct emu_cublas *cublasHandle_t;\n"
    "typedef int cublasStatus_t;\n"
    "enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_INVALID_VALUE = 7 };\n"
    "typedef int cublasOperation_t;\n"
    "enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };\n"
    "enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 1 };\n"
    "static cublasStatus_t cublasCreate(cublasHandle_t *h) { static char one; *h = (cublasHandle_t)&one; return 0; }\n"
    "static cublasStatus_t cublasSetStream(cublasHandle_t, cudaStream_t) { return 0; }\n"
    "static cublasStatus_t cublasSetMathMode(cublasHandle_t, int) { return 0; }\n"
    "static cublasStatus_t cublasSgemm(cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int m, int n,\n"
    "                                  int k, const float *alpha, const float *A, int lda, const float *B, int ldb,\n"
    "                                  const float *beta, float *C, int ldc)\n"
    "{\n"
    "    if (m < 0 || n < 0 || k < 0 || lda < (ta ? (k > 1 ? k : 1) : (m > 1 ? m : 1)) ||\n"
    "        ldb < (tb ? (n > 1 ? n : 1) : (k > 1 ? k : 1)) || ldc < (m > 1 ? m : 1))\n"
    "        return CUBLAS_STATUS_INVALID_VALUE;\n"
    "    for (int j = 0; j < n; j++)\n"
    "        for (int i = 0; i < m; i++) {\n"
    "            float s = 0.0f;\n"
    "            for (int l = 0; l < k; l++)\n"
    "                s += (ta ? A[l + (size_t)i * lda] : A[i + (size_t)l * lda]) *\n"
    "                     (tb ? B[j + (size_t)l * ldb] : B[l + (size_t)j * ldb]);\n"
    "            float *c = &C[i + (size_t)j * ldc];\n"
    "            *c = *alpha * s + (*beta == 0.0f ? 0.0f : *beta * *c);\n"
    "        }\n"
    "    return CUBLAS_STATUS_SUCCESS;\n"
    "}\n"
    "#ifndef HK_BLAS_HANDLE";

/* The emulated programs of the running test (emu_batch.h): queued as the test goes, built
 * in one g++ run and checked at its end, each case in its own process and named when it
 * does not give its want. */
static emu_batch batch;

/* The unguarded NT (the grid alone decides M and N) and its substitution on the same
 * inputs: the naive kernel emulated over the launch, the host function called with that
 * launch; padded leading dimensions, so rows past M must stay as they were. */
static void test_grid_sized_emulated(void **state)
{
    (void)state;
    if (!emu_available()) {
        print_message("skipped: no emulator (g++ and the CUDA headers)\n");
        return;
    }
    emu_batch_init(&batch, tmpdir, __func__);
    static const char src[] = NT_GRID_KERNEL;
    char *sub = substitute(src, "ntg", false);
    char *cand = emu_replaced(sub, "#ifndef HK_BLAS_HANDLE", cublas_stand_in);
    free(sub);
    static const char driver[] =
        "    static const int shapes[][4] = {{3, 2, 37, 16}, {1, 5, 1, 8}, {4, 1, 64, 32}};  // gx, gy, k, block\n"
        "    for (int s = 0; s < 3; s++) {\n"
        "        const int bs = shapes[s][3], M = shapes[s][0] * bs, N = shapes[s][1] * bs, K = shapes[s][2];\n"
        "        const int lda = M + 3, ldb = N + 1, ldc = M + 2;\n"
        "        emu::buf<float> A((size_t)lda * K), B((size_t)ldb * K), co((size_t)ldc * N), cc((size_t)ldc * N);\n"
        "        A.fill(1 + s);\n"
        "        B.fill(2 + s);\n"
        "        co.fill(3 + s);\n"
        "        cc.fill(3 + s);\n"
        "        dim3 g(shapes[s][0], shapes[s][1]), b(bs, bs);\n"
        "        emu::launch(g, b, 0, [&] { orig::ntg(A, lda, B, ldb, co, ldc, K, 1.5f, 0.25f); });\n"
        "        cand::hk_host_ntg(g, b, A, lda, B, ldb, cc, ldc, K, 1.5f, 0.25f);\n"
        "        emu::expect(\"ntg\", co, cc, 1e-5, K);\n"
        "    }\n";
    emu_batch_add_pair(&batch, "blas_ntg", src, cand, NULL, driver, EMU_OK);
    /* the same with M taken from the wrong axis fails: the check sees sizes */
    char *bad = emu_replaced(cand, "hk_grid.x * hk_block.x", "hk_grid.y * hk_block.y");
    emu_batch_add_pair(&batch, "blas_ntg_bad", src, bad, NULL, driver, EMU_DIFFERS);
    free(bad);
    free(cand);
    emu_batch_run(&batch);
    assert_int_equal(hk_alloc_live(), 0);
}

/* The tiled kernels (template and macro tiles, alpha and beta) against their substitution:
 * each kernel emulated block by block with its tiles in __shared__, the host function
 * called with the same launch; a K that stops one tile short must fail the comparison. */
static void test_tiled_emulated(void **state)
{
    (void)state;
    if (!emu_available()) {
        print_message("skipped: no emulator (g++ and the CUDA headers)\n");
        return;
    }
    emu_batch_init(&batch, tmpdir, __func__);
    static const char src_t[] = TILED_TEMPLATE_KERNEL, src_f[] = TILED_FLAT_KERNEL;
    char *sub = substitute(src_t, "tt", false);
    char *cand = emu_replaced(sub, "#ifndef HK_BLAS_HANDLE", cublas_stand_in);
    free(sub);
    static const char driver_t[] =
        "    static const int shapes[][3] = {{3, 2, 48}, {1, 4, 16}, {2, 1, 80}};  // gx, gy, K\n"
        "    for (int s = 0; s < 3; s++) {\n"
        "        const int N = shapes[s][0] * 16, M = shapes[s][1] * 16, K = shapes[s][2];\n"
        "        emu::buf<float> A((size_t)M * K), B((size_t)K * N), co((size_t)M * N), cc((size_t)M * N);\n"
        "        A.fill(1 + s);\n"
        "        B.fill(2 + s);\n"
        "        co.fill(3 + s);\n"
        "        cc.fill(3 + s);\n"
        "        dim3 g(shapes[s][0], shapes[s][1]), b(16, 16);\n"
        "        emu::launch(g, b, 0, [&] { orig::tt<16>(co, A, B, K, N); });\n"
        "        cand::hk_host_tt<16>(g, b, cc, A, B, K, N);\n"
        "        emu::expect(\"tt\", co, cc, 1e-5, K);\n"
        "    }\n";
    emu_batch_add_pair(&batch, "blas_tiled_t", src_t, cand, NULL, driver_t, EMU_OK);
    char *bad = emu_replaced(cand, "hk_k = (long long)(BS*", "hk_k = (long long)(-BS + BS*");
    emu_batch_add_pair(&batch, "blas_tiled_t_bad", src_t, bad, NULL, driver_t, EMU_DIFFERS);
    free(bad);
    free(cand);
    sub = substitute(src_f, "tf", false);
    cand = emu_replaced(sub, "#ifndef HK_BLAS_HANDLE", cublas_stand_in);
    free(sub);
    static const char driver_f[] =
        "    static const int shapes[][3] = {{2, 3, 32}, {1, 1, 16}, {3, 1, 64}};  // gx, gy, K\n"
        "    for (int s = 0; s < 3; s++) {\n"
        "        const int N = shapes[s][0] * 16, M = shapes[s][1] * 16, K = shapes[s][2];\n"
        "        emu::buf<float> A((size_t)M * K), B((size_t)K * N), co((size_t)M * N), cc((size_t)M * N);\n"
        "        A.fill(5 + s);\n"
        "        B.fill(6 + s);\n"
        "        co.fill(7 + s);\n"
        "        cc.fill(7 + s);\n"
        "        dim3 g(shapes[s][0], shapes[s][1]), b(16, 16);\n"
        "        emu::launch(g, b, 0, [&] { orig::tf(A, B, co, N, K, 0.5f, -1.25f); });\n"
        "        cand::hk_host_tf(g, b, A, B, cc, N, K, 0.5f, -1.25f);\n"
        "        emu::expect(\"tf\", co, cc, 1e-5, K);\n"
        "    }\n";
    emu_batch_add_pair(&batch, "blas_tiled_f", src_f, cand, NULL, driver_f, EMU_OK);
    free(cand);
    emu_batch_run(&batch);
    assert_int_equal(hk_alloc_live(), 0);
}

/* Rank-k updates C = alpha * A * A^T + beta * C as people write them (tests/data/styles):
 * the k loop summing into C after a beta scaling, and a local fmaf accumulator with an early
 * return. B is A transposed (a[j * m + k]): one operand op T, the other op N, both A; the
 * stand-in computes what cuBLAS computes, on ragged sizes; with the op flags swapped to N, N
 * it differs. */
static void test_rank_k_emulated(void **state)
{
    (void)state;
    static const char src[] =
        "__global__ void syrk_mem(int n, int m, float alpha, float beta, const float *a, float *c)\n"
        "{\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    if ((i < n) && (j < n)) {\n"
        "        c[i * n + j] *= beta;\n"
        "        for (int k = 0; k < m; k++)\n"
        "            c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];\n"
        "    }\n"
        "}\n"
        "__global__ void syrk_fma(int n, int m, float alpha, float beta, const float *a, float *c)\n"
        "{\n"
        "    int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i >= n || j >= n)\n"
        "        return;\n"
        "    float acc = 0.0f;\n"
        "    for (int k = 0; k < m; ++k)\n"
        "        acc = fmaf(a[i * m + k], a[j * m + k], acc);\n"
        "    c[i * n + j] = alpha * acc + beta * c[i * n + j];\n"
        "}\n";
    static const char call[] =
        "(hk_h, CUBLAS_OP_T, CUBLAS_OP_N, (int)hk_m, (int)hk_n, (int)(hk_k > 0 ? hk_k : 0), &hk_alpha,\n"
        "                   a, (int)(m), a, (int)(m), &hk_beta, c, (int)(n));";
    char *s1 = substitute(src, "syrk_mem", false);
    assert_non_null(strstr(s1, call));
    assert_non_null(strstr(s1, "hk_alpha = (float)(alpha), hk_beta = (float)(beta)"));
    char *s2 = substitute(s1, "syrk_fma", false);
    free(s1);
    assert_non_null(strstr(s2, call));
    if (!emu_available()) {
        free(s2);
        print_message("skipped: no emulator (g++ and the CUDA headers)\n");
        return;
    }
    emu_batch_init(&batch, tmpdir, __func__);
    char *cand = emu_replaced(s2, "#ifndef HK_BLAS_HANDLE", cublas_stand_in);
    free(s2);
    static const char driver[] =
        "    static const int shapes[][2] = {{37, 19}, {16, 64}, {5, 33}};  // n, m\n"
        "    for (int s = 0; s < 3; s++) {\n"
        "        const int n = shapes[s][0], m = shapes[s][1];\n"
        "        emu::buf<float> A((size_t)n * m), co((size_t)n * n), cc((size_t)n * n), fo((size_t)n * n),\n"
        "            fc((size_t)n * n);\n"
        "        A.fill(1 + s);\n"
        "        co.fill(3 + s);\n"
        "        cc.fill(3 + s);\n"
        "        fo.fill(4 + s);\n"
        "        fc.fill(4 + s);\n"
        "        dim3 g((n + 15) / 16, (n + 15) / 16), b(16, 16);\n"
        "        emu::launch(g, b, 0, [&] { orig::syrk_mem(n, m, 1.5f, 0.25f, A, co); });\n"
        "        cand::hk_host_syrk_mem(n, m, 1.5f, 0.25f, A, cc);\n"
        "        emu::launch(g, b, 0, [&] { orig::syrk_fma(n, m, -0.5f, 2.0f, A, fo); });\n"
        "        cand::hk_host_syrk_fma(n, m, -0.5f, 2.0f, A, fc);\n"
        "        emu::expect(\"syrk_mem\", co, cc, 1e-5, m);\n"
        "        emu::expect(\"syrk_fma\", fo, fc, 1e-5, m);\n"
        "    }\n";
    emu_batch_add_pair(&batch, "blas_rank_k", src, cand, NULL, driver, EMU_OK);
    char *bad = emu_replaced_all(cand, "CUBLAS_OP_T, CUBLAS_OP_N, (int)hk_m", "CUBLAS_OP_N, CUBLAS_OP_N, (int)hk_m");
    emu_batch_add_pair(&batch, "blas_rank_k_bad", src, bad, NULL, driver, EMU_DIFFERS);
    free(bad);
    free(cand);
    emu_batch_run(&batch);
    assert_int_equal(hk_alloc_live(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spellings_apply),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_emitted_compiles),
        cmocka_unit_test(test_guarded_unchanged),
        cmocka_unit_test(test_grid_sized_emulated),
        cmocka_unit_test(test_tiled_emulated),
        cmocka_unit_test(test_rank_k_emulated),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
