#include <hip/hip_runtime.h>
// Deliberate errors for clang-style diagnostics parsing.
__global__ void broken(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = undeclared_thing * 2.0f;
    p[0] = missing_fn(p);
}
