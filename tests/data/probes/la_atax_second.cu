// Probe: the second half of the atax pair, y = A^T tmp, one thread per column, the sum kept
// in y[j] in global memory, int indices.
__global__ void la_atax_second(const float *A, const float *tmp, float *y, int nx, int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        y[j] = 0;
        for (int i = 0; i < nx; i++)
            y[j] += A[i * ny + j] * tmp[i];
    }
}
