#include <hip/hip_runtime.h>
// Many live values and LDS: the compiler's own occupancy estimate drops below the cap,
// which cross-checks cc_occupancy_for on gfx906 and gfx90a.
__global__ void wide(const float *in, float *out, int n)
{
    __shared__ float tile[4096];
    float acc[96];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
#pragma unroll
    for (int k = 0; k < 96; k++)
        acc[k] = in[(i + k * 977) % n];
#pragma unroll
    for (int r = 0; r < 4; r++) {
#pragma unroll
        for (int k = 0; k < 96; k++)
            acc[k] = acc[k] * acc[(k + r + 1) % 96] + acc[(k * 7 + r) % 96];
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 96; k++)
        s += acc[k] * (float)(k + 1);
    tile[threadIdx.x % 4096] = s;
    __syncthreads();
    out[i] = tile[(threadIdx.x + 1) % 4096];
}
