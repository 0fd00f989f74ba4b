// Rewrite fixture: kernels the grid-stride and restrict rewrites must refuse, each for a
// reason the test checks.
#include <cuda_runtime.h>

// statements after the bounds check run once per thread
__global__ void tail_after(float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 2.0f * y[i];
    if (i == 0)
        y[0] = 1.0f;
}

// synchronizes inside the guarded region
__global__ void syncs(const float *x, float *y, int n)
{
    __shared__ float s[256];
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) {
        s[threadIdx.x] = x[i];
        __syncthreads();
        y[i] = s[255 - threadIdx.x];
    }
}

// the index is not the 1D formula
__global__ void two_d(float *y, int w, int h)
{
    int i = (blockIdx.y * blockDim.y + threadIdx.y) * w + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < w * h)
        y[i] = 0.0f;
}

// already a grid-stride loop
__global__ void strided(const float *x, float *y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = x[i];
}

// a, b alias at the launch; c is read through a copy of the pointer (escapes), a copy
// the grid-stride rewrite hoists above the loop
__global__ void add(float *a, float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float *p = c;
    if (i < n)
        a[i] = a[i] + b[i] + p[i];
}

void launch_add(float *x, float *z, int n)
{
    add<<<(n + 127) / 128, 128>>>(x, x, z, n);
}
