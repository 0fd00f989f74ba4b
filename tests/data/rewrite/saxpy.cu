// Rewrite fixture: the common 1D pattern with `if (i < n) { ... }`.
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}

void launch_saxpy(int n, float a, const float *x, float *y, cudaStream_t s)
{
    saxpy<<<(n + 255) / 256, 256, 0, s>>>(n, a, x, y);
}
