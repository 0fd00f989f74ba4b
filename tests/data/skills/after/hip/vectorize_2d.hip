// After vectorize_2d on gfx9: four consecutive columns of a row per thread, global_load_dwordx4
// (C a multiple of 4, rows 16-byte aligned).
#include <hip/hip_runtime.h>
__global__ void ln_normalize(float *__restrict__ out, const float *__restrict__ inp, const float *mean,
                             const float *rstd, const float *gamma, const float *beta, int N, int C)
{
    int c4 = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c4 < C / 4) {
        float m = mean[r], s = rstd[r];
        float4 x = reinterpret_cast<const float4 *>(inp + (size_t)r * C)[c4];
        float4 g = reinterpret_cast<const float4 *>(gamma)[c4];
        float4 b = reinterpret_cast<const float4 *>(beta)[c4];
        float4 y;
        y.x = (x.x - m) * s * g.x + b.x;
        y.y = (x.y - m) * s * g.y + b.y;
        y.z = (x.z - m) * s * g.z + b.z;
        y.w = (x.w - m) * s * g.w + b.w;
        reinterpret_cast<float4 *>(out + (size_t)r * C)[c4] = y;
    }
}
