// GEMM and GEMV spelled several ways, and near misses (tests/unit/test_model_class.c).
#define IDX(r, c, ld) ((r) * (ld) + (c))

// alpha/beta epilogue, unsigned indices, x indexing rows
__global__ void sgemm_unsigned(unsigned M, unsigned N, unsigned K, float alpha, const float *A,
                               const float *B, float beta, float *C)
{
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < M && y < N) {
        float tmp = 0.0f;
        for (unsigned i = 0; i < K; ++i)
            tmp += A[x * K + i] * B[i * N + y];
        C[x * N + y] = alpha * tmp + beta * C[x * N + y];
    }
}

// the same with size_t, fmaf, a macro and an early return
__global__ void sgemm_size_t(int M, int N, int K, float alpha, const float *A, const float *B,
                             float beta, float *C)
{
    size_t row = threadIdx.x + (size_t)blockIdx.x * blockDim.x;
    size_t col = threadIdx.y + (size_t)blockIdx.y * blockDim.y;
    if (row >= M || col >= N)
        return;
    float acc = 0;
    for (int k = 0; k < K; k++)
        acc = fmaf(A[IDX(row, k, K)], B[IDX(k, col, N)], acc);
    C[IDX(row, col, N)] = alpha * acc + beta * C[IDX(row, col, N)];
}

// the epilogue as a k loop over c[i*NJ+j], after c *= beta
__global__ void gemm_kloop(int NI, int NJ, int NK, float alpha, float beta, const float *a,
                           const float *b, float *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < NI && j < NJ) {
        c[i * NJ + j] *= beta;
        for (int k = 0; k < NK; k++)
            c[i * NJ + j] += alpha * a[i * NK + k] * b[k * NJ + j];
    }
}

// batched through blockIdx.z, B transposed (B[j,k]), no alpha or beta
__global__ void gemm_batched_nt(const float *A, const float *B, float *C, int M, int N, int K)
{
    int bz = blockIdx.z;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < M && c < N) {
        float s = 0;
        for (int k = 0; k < K; ++k)
            s += A[bz * M * K + r * K + k] * B[bz * N * K + c * K + k];
        C[bz * M * N + r * N + c] = s;
    }
}

// column-major, cuBLAS style leading dimensions
__global__ void gemm_colmajor(int m, int n, int k, const float *A, int lda, const float *B,
                              int ldb, float *C, int ldc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && j < n) {
        float s = 0.0f;
        for (int p = 0; p < k; p++)
            s += A[i + p * lda] * B[p + j * ldb];
        C[i + j * ldc] = s;
    }
}

// near miss: the k loop reads A[i*K + k*k]
__global__ void gemm_bad_index(int M, int N, int K, const float *A, const float *B, float *C)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M && j < N) {
        float s = 0.0f;
        for (int k = 0; k < K; k++)
            s += A[i * K + k * k] * B[k * N + j];
        C[i * N + j] = s;
    }
}

// near miss: the epilogue takes the square of the sum
__global__ void gemm_bad_epilogue(int M, int N, int K, const float *A, const float *B, float *C)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M && j < N) {
        float s = 0.0f;
        for (int k = 0; k < K; k++)
            s += A[i * K + k] * B[k * N + j];
        C[i * N + j] = s * s;
    }
}

// GEMV by rows, a row pointer
__global__ void gemv_rows_ptr(const float *A, const float *x, float *y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        const float *a = A + (size_t)r * cols;
        float s = 0.f;
        for (int c = 0; c < cols; ++c)
            s += a[c] * x[c];
        y[r] = s;
    }
}

// GEMV by rows, inline index, alpha/beta, unsigned
__global__ void gemv_rows_ab(unsigned rows, unsigned cols, float alpha, const float *A,
                             const float *x, float beta, float *y)
{
    unsigned r = threadIdx.x + blockDim.x * blockIdx.x;
    if (r >= rows)
        return;
    float s = 0.f;
    for (unsigned c = 0; c < cols; c++)
        s = fmaf(A[r * cols + c], x[c], s);
    y[r] = alpha * s + beta * y[r];
}

// GEMV by columns (A^T x): A[j*cols + i], coalesced
__global__ void gemv_cols(const float *A, const float *x, float *y, int rows, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < cols) {
        float s = 0.f;
        for (int j = 0; j < rows; j++)
            s += A[j * cols + i] * x[j];
        y[i] = s;
    }
}

// GEMV with two matrices against one vector in one row loop (gesummv):
// y = alpha * A x + beta * B x
__global__ void gemv_two_sums(int n, double alpha, double beta, const double *A, const double *B,
                              const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double t1 = 0.0, t2 = 0.0;
        for (int j = 0; j < n; j++) {
            t1 += A[i * n + j] * x[j];
            t2 += B[i * n + j] * x[j];
        }
        y[i] = alpha * t1 + beta * t2;
    }
}

// the same by columns, the sums added unscaled and the old y kept
__global__ void gemv_two_sums_cols(const float *A, const float *B, const float *x, float *y, int rows,
                                   int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) {
        float s = 0.f, u = 0.f;
        for (int r = 0; r < rows; r++) {
            s += A[r * cols + c] * x[r];
            u += B[r * cols + c] * x[r];
        }
        y[c] = s + u + y[c];
    }
}

// the second sum reads another vector: y = A x + B z, still two GEMVs of one shape
__global__ void gemv_two_vectors(int n, const float *A, const float *B, const float *x,
                                 const float *z, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t1 = 0.f, t2 = 0.f;
        for (int j = 0; j < n; j++) {
            t1 += A[i * n + j] * x[j];
            t2 += B[i * n + j] * z[j];
        }
        y[i] = t1 + t2;
    }
}

// near miss: B is read transposed (B[j][i]), not at A's index
__global__ void gemv_two_layouts(int n, const float *A, const float *B, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t1 = 0.f, t2 = 0.f;
        for (int j = 0; j < n; j++) {
            t1 += A[i * n + j] * x[j];
            t2 += B[j * n + i] * x[j];
        }
        y[i] = t1 + t2;
    }
}
