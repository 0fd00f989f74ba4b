// Naive SGEMV, y = A * x, row-major, one thread per row.
__global__ void sgemv(const float *A, const float *x, float *y, int M, int N)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M) {
        float acc = 0.0f;
        for (int k = 0; k < N; k++)
            acc += A[row * N + k] * x[k];
        y[row] = acc;
    }
}
