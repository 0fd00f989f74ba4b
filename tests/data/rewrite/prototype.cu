// Rewrite fixture: a kernel declared before it is defined. Adding const to a parameter of
// the definition would make it a different function from the prototype; restrict is fine.
#include <cuda_runtime.h>

__global__ void scale(float *in, float *out, int n);

void launch_scale(float *in, float *out, int n)
{
    scale<<<(n + 255) / 256, 256>>>(in, out, n);
}

__global__ void scale(float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
}
