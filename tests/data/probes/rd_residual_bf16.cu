// Probe: residual add in bfloat16, out = a + b element by element through float,
// unsigned index with an if-guard.
#include <cuda_bf16.h>
__global__ void rd_residual_bf16(__nv_bfloat16 *out, const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                                 unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __float2bfloat16(__bfloat162float(a[i]) + __bfloat162float(b[i]));
}
