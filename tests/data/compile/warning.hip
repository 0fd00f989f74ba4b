#include <hip/hip_runtime.h>
// Compiles, with front-end warnings only.
__global__ void warned(float *p, int n)
{
    int never_used = 7;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = 1.0f;
}
