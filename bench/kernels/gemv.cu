// GEMV y = A * x for a row-major M x N matrix, one thread per row walking its row (naive:
// neighbouring threads read addresses N floats apart, so no load is coalesced).
__global__ void gemv(const float *A, const float *x, float *y, int M, int N)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M) {
        float acc = 0.0f;
        for (int j = 0; j < N; j++)
            acc += A[(size_t)row * N + j] * x[j];
        y[row] = acc;
    }
}

void launch_gemv(const float *A, const float *x, float *y, int M, int N)
{
    gemv<<<(M + 127) / 128, 128>>>(A, x, y, M, N);
}
