// Naive SAXPY: one element per thread.
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

void launch_saxpy(int n, float a, const float *x, float *y, cudaStream_t s)
{
    int block = 128;
    int grid = (n + block - 1) / block;
    saxpy<<<grid, block, 0, s>>>(n, a, x, y);
}
