// HIP vector add and a templated kernel launched through HIP_KERNEL_NAME.
#include <hip/hip_runtime.h>

#define HIP_BLOCK 256

__global__ void vadd(const float *a, const float *b, float *c, int n)
{
    int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
    if (i < n) c[i] = a[i] + b[i];
}

template <typename T, int UNROLL>
__global__ void vscale(T *x, T s, int n)
{
    int i = (hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x) * UNROLL;
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
        if (i + u < n) x[i + u] *= s;
}

void run(float *a, float *b, float *c, int n, hipStream_t stream)
{
    hipLaunchKernelGGL(vadd, dim3((n + HIP_BLOCK - 1) / HIP_BLOCK), dim3(HIP_BLOCK), 0, stream, a, b, c, n);
    hipLaunchKernelGGL(HIP_KERNEL_NAME(vscale<float, 4>), dim3(n / (HIP_BLOCK * 4) + 1), dim3(HIP_BLOCK), 0, 0, c, 2.0f, n);
}
