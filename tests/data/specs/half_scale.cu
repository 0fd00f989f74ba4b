// Test kernel (half precision): out = in * scale + bias, with a half scalar.
#include <cuda_fp16.h>
__global__ void half_scale(const __half *in, __half *out, __half scale, float bias, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __hadd(__hmul(in[i], scale), __float2half(bias));
}
