// Batched SGEMM C[b] = A[b] * B[b] for `batch` row-major M x K and K x N matrices stored back
// to back, one thread per output element, z of the grid over the batch (naive).
__global__ void batched_gemm(const float *A, const float *B, float *C, int batch, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int b = blockIdx.z;
    if (b < batch && row < M && col < N) {
        const float *a = A + (size_t)b * M * K;
        const float *bm = B + (size_t)b * K * N;
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += a[(size_t)row * K + k] * bm[(size_t)k * N + col];
        C[(size_t)b * M * N + (size_t)row * N + col] = acc;
    }
}

void launch_batched_gemm(const float *A, const float *B, float *C, int batch, int M, int N, int K)
{
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16, batch);
    batched_gemm<<<grid, block>>>(A, B, C, batch, M, N, K);
}
