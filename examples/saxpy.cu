// SAXPY, y = a * x + y: the README's demo kernel for `hkls optimize`.
//
// Written the way a first version usually is: one thread per element, the block size a
// #define, pointers that may alias as far as the compiler knows. The engine's builtin
// search can tune BLOCK, bound the launch, add __restrict__ and const, and try a
// grid-stride loop -- each candidate is checked against this version's outputs.
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

// Host launcher: the launch site the analysis reads (grid from n and BLOCK).
cudaError_t launch_saxpy(int n, float a, const float *x, float *y, cudaStream_t stream)
{
    int grid = (n + BLOCK - 1) / BLOCK;
    saxpy<<<grid, BLOCK, 0, stream>>>(n, a, x, y);
    return cudaGetLastError();
}
