// A thread per column sums down the rows (PolyBench's bicg/atax second kernel): coalesced,
// but only as many threads as columns.
__global__ void column_products(int rows, int cols, const float *A, const float *r, float *s)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < cols) {
        float acc = 0.0f;
        for (int i = 0; i < rows; i++)
            acc += A[i * cols + j] * r[i];
        s[j] = acc;
    }
}
