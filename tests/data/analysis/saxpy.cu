// SAXPY: y = a*x + y, one element per thread.
#include <cuda_runtime.h>

#define BLOCK_SIZE 256

__global__ void saxpy(int n, float a, const float *__restrict__ x, float *__restrict__ y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

void run_saxpy(int n, float a, const float *d_x, float *d_y, cudaStream_t stream)
{
    int grid = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    saxpy<<<grid, BLOCK_SIZE, 0, stream>>>(n, a, d_x, d_y);
}

int main(void)
{
    return 0;
}
