// GEMM spellings the tiled-GEMM rewrite must recognize, and near-misses it must not.

// plain C = A * B with leading dimensions, early return, B * A order in the product
__global__ void gemm_ld(const float *A, const float *B, float *C, int M, int N, int K, int lda, int ldb, int ldc)
{
    int c = threadIdx.x + blockIdx.x * blockDim.x;
    int r = threadIdx.y + blockIdx.y * blockDim.y;
    if (r >= M || c >= N)
        return;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
        sum += B[k * ldb + c] * A[r * lda + k];
    C[r * ldc + c] = sum;
}

// double precision with a bias vector in the epilogue
__global__ void dgemm_bias(const double *a, const double *b, const double *bias, double *out, int m, int n, int k)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        double acc = 0.0;
        for (int i = 0; i < k; i++) {
            acc += a[(size_t)row * k + i] * b[(size_t)i * n + col];
        }
        out[(size_t)row * n + col] = acc + bias[col];
    }
}

// near-miss: A is read column-major
__global__ void gemm_at(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += A[k * M + row] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

// near-miss: the epilogue uses a local computed before the loop
__global__ void gemm_local(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += A[row * K + k] * B[k * N + col];
        float scale = 2.0f;
        C[row * N + col] = scale * acc;
    }
}

// no bounds check: the launch alone gives M and N (grid x block along .y and .x)
__global__ void gemm_grid(const float *A, const float *B, float *C, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}

// near-miss: no bounds check, and C's rows come from .x: the launch gives the sizes, but
// not in the orientation the tiled body reads
__global__ void gemm_grid_xrows(const float *A, const float *B, float *C, int N, int K)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[r * K + k] * B[k * N + c];
    C[r * N + c] = acc;
}

// near-miss: no bounds check, and two threads share a row: the grid does not give M
__global__ void gemm_grid_half(const float *A, const float *B, float *C, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[(row / 2) * K + k] * B[k * N + col];
    C[(row / 2) * N + col] = acc;
}

// The k loop summing into C (tiled_gemm's memory form), refused: the scaled element is not
// the one summed into.
__global__ void gemm_mem_other(int n, float beta, const float *a, const float *b, float *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        c[i * n + j] *= beta;
        for (int k = 0; k < n; k++)
            c[i * n + j + 1] += a[i * n + k] * b[k * n + j];
    }
}

// ... C read inside the sum (not a product of two other arrays).
__global__ void gemm_mem_reads_c(int n, const float *a, float *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        for (int k = 0; k < n; k++)
            c[i * n + j] += c[i * n + k] * a[k * n + j];
    }
}

// ... a factor that is a call, not a scalar.
__global__ void gemm_mem_call(int n, float alpha, const float *a, const float *b, float *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        for (int k = 0; k < n; k++)
            c[i * n + j] += expf(alpha) * a[i * n + k] * b[k * n + j];
    }
}

// ... the element summed into moves with k.
__global__ void gemm_mem_moves(int n, const float *a, const float *b, float *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        for (int k = 0; k < n; k++)
            c[i * n + k] += a[i * n + k] * b[k * n + j];
    }
}

// near-misses: an operand read neither row-major nor transposed (a skewed band A[row + k],
// and B[col + k])
__global__ void gemm_a_skew(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += A[row + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

__global__ void gemm_b_skew(const float *A, const float *B, float *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += A[row * K + k] * B[col + k];
        C[row * N + col] = acc;
    }
}

// A uniform factor inside the k loop's product, the sum in a local (a 2mm chain's first
// product): the tiled body sums A * B and scales the sum once.
__global__ void gemm_scaled_local(int ni, int nj, int nk, float alpha, const float *A, const float *B, float *tmp)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < ni && col < nj) {
        float s = 0.0f;
        for (int k = 0; k < nk; k++)
            s += alpha * A[(size_t)row * nk + k] * B[(size_t)k * nj + col];
        tmp[(size_t)row * nj + col] = s;
    }
}

// The factors last, a number and a parameter, double precision.
__global__ void dgemm_scaled_last(const double *a, const double *b, double *c, int m, int n, int k, double w)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && j < n) {
        double acc = 0.0;
        for (int q = 0; q < k; ++q)
            acc += a[i * k + q] * b[q * n + j] * 2.0 * w;
        c[i * n + j] = acc;
    }
}

// A factor the body changes is no uniform factor: refused.
__global__ void gemm_scaled_written(int n, float alpha, const float *a, const float *b, float *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        float acc = 0.0f;
        for (int k = 0; k < n; k++)
            acc += alpha * a[i * n + k] * b[k * n + j];
        alpha = 2.0f;
        c[i * n + j] = acc * alpha;
    }
}
