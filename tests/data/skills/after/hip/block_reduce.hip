// After block_reduce on gfx9: wavefront shuffles, one atomicAdd per workgroup.
#include <hip/hip_runtime.h>
__global__ void sum_atomic(const float *in, float *sum, int n)
{
    __shared__ float partial[16];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];
    for (int o = warpSize / 2; o > 0; o >>= 1)
        v += __shfl_xor(v, o);
    if (threadIdx.x % warpSize == 0)
        partial[threadIdx.x / warpSize] = v;
    __syncthreads();
    if (threadIdx.x < warpSize) {
        v = threadIdx.x < (blockDim.x + warpSize - 1) / warpSize ? partial[threadIdx.x] : 0.0f;
        for (int o = warpSize / 2; o > 0; o >>= 1)
            v += __shfl_xor(v, o);
        if (threadIdx.x == 0)
            atomicAdd(sum, v);
    }
}
