// After vectorize on gfx9: 16-byte loads and stores (global_load_dwordx4) with a scalar tail.
#include <hip/hip_runtime.h>
__global__ void saxpy(const float *__restrict__ x, float *__restrict__ y, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;
    if (i < n4) {
        float4 xv = reinterpret_cast<const float4 *>(x)[i];
        float4 yv = reinterpret_cast<float4 *>(y)[i];
        yv.x = a * xv.x + yv.x;
        yv.y = a * xv.y + yv.y;
        yv.z = a * xv.z + yv.z;
        yv.w = a * xv.w + yv.w;
        reinterpret_cast<float4 *>(y)[i] = yv;
    }
    if (i == 0)
        for (int k = n4 * 4; k < n; k++)
            y[k] = a * x[k] + y[k];
}
