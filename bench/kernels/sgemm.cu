// SGEMM C = alpha * A * B + beta * C, row-major, one thread per output element (naive).
__global__ void sgemm(int M, int N, int K, float alpha, const float *A, const float *B,
                      float beta, float *C)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
        C[(size_t)row * N + col] = alpha * acc + beta * C[(size_t)row * N + col];
    }
}

void launch_sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                  float *C)
{
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    sgemm<<<grid, block>>>(M, N, K, alpha, A, B, beta, C);
}
