// Rewrite fixture for rw_readonly_loads: a gather (nested subscripts), a dereference,
// a written pointer, and a read-only pointer that a launch aliases with a written one.
#include <cuda_runtime.h>

__global__ void gather(const float *table, const int *idx, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = table[idx[i]] * 2.0f;
}

__global__ void scale_by(const float *s, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = out[i] * *s;
}

__global__ void in_place(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] * x[i];
}

__global__ void shift(const float *a, float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n)
        b[i] = a[i - 1];
}

void launch(float *p, int *ix, int n)
{
    gather<<<(n + 255) / 256, 256>>>(p, ix, p + n, n);
    scale_by<<<(n + 255) / 256, 256>>>(p, p + n, n);
    in_place<<<(n + 255) / 256, 256>>>(p, n);
    shift<<<(n + 255) / 256, 256>>>(p, p, n);
}
