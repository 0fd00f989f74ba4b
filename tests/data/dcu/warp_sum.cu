// A CUDA-style warp reduction over bf16 inputs, written for NVIDIA (__shfl_down_sync with a
// full mask, __nv_bfloat16 conversions, lanes counted modulo 32): the HIP build must find
// these names through hk_harness.h's compatibility block. On a 64-wide wavefront the
// offsets 16..1 sum each 32-lane half into lanes 0 and 32, and both add their partial
// sum, so the result stays right.
__global__ void warp_sum(const __nv_bfloat16 *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? __bfloat162float(in[i]) : 0.0f;
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    __syncwarp();
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, v);
}
