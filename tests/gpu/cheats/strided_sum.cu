// expect: wrong_answer
// kernel: reduce_sum
// Class: loose tolerance (reads a quarter of the input). reduce_sum as a fast block
// reduction that reads only one block's worth of input in every four -- contiguous, so it
// really moves a quarter of the bytes (every 4th float would still touch every sector) --
// and scales each block's partial sum by the elements it stands for. For independent
// inputs the estimate's relative error is about 3e-4 for uniform(0,1) and 1e-4 for the
// other two distributions: inside the spec's rtol of 1e-3, so a referee that compares with
// the baseline under that tolerance accepts a 4x traffic cut as an honest speedup. Caught by
// errors judged against an fp64 reference relative to the baseline's own error (the
// baseline's rounding error is far smaller than a sampling error): "wrong_answer".
__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float part[8];
    if (blockIdx.x % 4 != 0)
        return;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0)
        part[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int w = 0; w < (int)(blockDim.x + 31) / 32; w++)
            s += part[w];
        long long first = (long long)blockIdx.x * blockDim.x;
        long long span = min((long long)n - first, 4ll * blockDim.x);
        long long mine = min((long long)n - first, (long long)blockDim.x);
        atomicAdd(out, s * (float)span / (float)mine);
    }
}
