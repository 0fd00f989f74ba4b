// Rewrite fixture (rw_vectorize applies): elementwise kernels in the three shapes the
// rewrite reads, over float, size_t indices, __half, __nv_bfloat16 and int.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// if (i < n) with a block; y is read and written (loaded, then stored)
__global__ void axpy_if(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float xi = x[i];
        y[i] = a * xi + y[i];
    }
}

// early return with a size_t index that the per-element code also uses as a value, and a
// declaration between the index and the check
__global__ void ramp_early(const float *in, float *out, float s, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const float step = 0.5f * s;
    if (i >= n)
        return;
    out[i] = in[i] * s + step * (float)i;
}

// already a grid-stride loop
__global__ void copy_gs(const float *src, float *dst, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        dst[i] = src[i];
}

// half precision: __half2 at width 2, uint2/uint4 carriers at 4 and 8
__global__ void half_add(const __half *a, const __half *b, __half *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = __hadd(a[i], b[i]);
}

// bfloat16: __nv_bfloat162 at width 2
__global__ void bf16_scale(const __nv_bfloat16 *x, __nv_bfloat16 *y, float s, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n)
        y[i] = __float2bfloat16(__bfloat162float(x[i]) * s);
}

// int: int4
__global__ void int_add(const int *a, const int *b, int *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

// out is written only under a condition: its vector must be loaded first, so the lanes
// that do not write keep their old values
__global__ void clamp_store(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (x[i] > 0.0f)
            out[i] = x[i];
    }
}

void launch_all(float *x, float *y, __half *h, __nv_bfloat16 *b, int *k, int n)
{
    axpy_if<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
    ramp_early<<<(n + 255) / 256, 256>>>(x, y, 0.5f, (size_t)n);
    copy_gs<<<132 * 4, 256>>>(x, y, n);
    half_add<<<(n + 255) / 256, 256>>>(h, h + n, h + 2 * n, n);
    bf16_scale<<<(n + 255) / 256, 256>>>(b, b + n, 3.0f, n);
    int_add<<<(n + 255) / 256, 256>>>(k, k + n, k + 2 * n, n);
    clamp_store<<<(n + 255) / 256, 256>>>(x, y, n);
}
