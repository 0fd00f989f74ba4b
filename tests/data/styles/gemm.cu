// GEMM-class kernels as people spell them (issue 13 item 4): our own code, for `hkls rewrites`
// and the model tests. Each computes C = alpha * A * B + beta * C (or a rank-k update).
#define NI 1024
#define NJ 1024
#define NK 1024

// x indexes rows, unsigned indices, a local accumulator, an alpha/beta epilogue.
__global__ void gemm_xrows_unsigned(unsigned M, unsigned N, unsigned K, float alpha, const float *A,
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

// y indexes rows, int indices, the same epilogue.
__global__ void gemm_yrows_int(int M, int N, int K, float alpha, const float *A, const float *B,
                               float beta, float *C)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; k++)
            sum += A[row * K + k] * B[k * N + col];
        C[row * N + col] = alpha * sum + beta * C[row * N + col];
    }
}

// The k loop accumulates straight into global memory after a beta prescale, sizes as macros.
__global__ void gemm_kloop_global(float alpha, float beta, const float *a, const float *b, float *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < NI) && (j < NJ)) {
        c[i * NJ + j] *= beta;
        for (int k = 0; k < NK; k++)
            c[i * NJ + j] += alpha * a[i * NK + k] * b[k * NJ + j];
    }
}

// The same with size parameters and size_t indices.
__global__ void gemm_kloop_global_sizet(size_t ni, size_t nj, size_t nk, float alpha, float beta,
                                        const float *a, const float *b, float *c)
{
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t i = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        c[i * nj + j] *= beta;
        for (size_t k = 0; k < nk; k++)
            c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
    }
}

// Rank-k update, C = alpha * A * A^T + beta * C (A is N x M), prescale then a k loop into global.
__global__ void syrk_kloop_global(int n, int m, float alpha, float beta, const float *a, float *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < n) && (j < n)) {
        c[i * n + j] *= beta;
        for (int k = 0; k < m; k++)
            c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
    }
}

// Rank-k update with a local accumulator and fmaf.
__global__ void syrk_local(int n, int m, float alpha, float beta, const float *a, float *c)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || j >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < m; ++k)
        acc = fmaf(a[i * m + k], a[j * m + k], acc);
    c[i * n + j] = alpha * acc + beta * c[i * n + j];
}
