// A thread per column sums into y[j] in memory on every iteration (PolyBench's atax form).
__global__ void column_sums(int rows, int cols, const float *A, const float *x, float *y)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < cols) {
        for (int i = 0; i < rows; i++)
            y[j] += A[i * cols + j] * x[i];
    }
}
