#include <cuda_bf16.h>
// BF16 AXPY: y = a * x + y with the arithmetic in float, one thread per element with 2-byte
// scalar loads and stores (naive).
__global__ void bf16_axpy(int n, float a, const __nv_bfloat16 *x, __nv_bfloat16 *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = __float2bfloat16(a * __bfloat162float(x[i]) + __bfloat162float(y[i]));
}

void launch_bf16_axpy(int n, float a, const __nv_bfloat16 *x, __nv_bfloat16 *y)
{
    bf16_axpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
