#include <hip/hip_runtime.h>
// A register-hungry kernel capped by amdgpu_num_vgpr so it spills to scratch.
__global__ void __attribute__((amdgpu_num_vgpr(24))) heavy(const float *in, float *out, int n)
{
    float acc[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
#pragma unroll
    for (int k = 0; k < 32; k++)
        acc[k] = in[(i + k * 977) % n];
#pragma unroll
    for (int r = 0; r < 8; r++) {
#pragma unroll
        for (int k = 0; k < 32; k++)
            acc[k] = acc[k] * acc[(k + r + 1) % 32] + acc[(k * 7 + r) % 32];
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 32; k++)
        s += acc[k] * (float)(k + 1);
    out[i] = s;
}
