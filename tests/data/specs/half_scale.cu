// Test kernel (half precision, grid-stride loop): out = in * scale + bias, with a half
// scalar; its spec launches an SM-count grid.
#include <cuda_fp16.h>
__global__ void half_scale(const __half *in, __half *out, __half scale, float bias, long n)
{
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        out[i] = __hadd(__hmul(in[i], scale), __float2half(bias));
}
