// Two shared-memory trees in one loop (session 46): per channel of an NCHW tensor the sum
// and the sum of squares, each thread adding straight into its two shared slots in a loop
// strided over the block, then one halving loop combining both arrays, each with itself
// alone; thread 0 writes the mean and the variance. A template T and a block of any power
// of two. block_reduce rewrites the loop as one warp-shuffle tree per array (tests:
// test_rewrites_block_tree, test_rewrites_emu_tree).
template <typename T>
__global__ void chan_stats(const T *x, float *mean, float *var, int n, int c_n, int hw)
{
    __shared__ float s1[1024];
    __shared__ float s2[1024];
    const int tid = threadIdx.x;
    const int c = blockIdx.x;
    s1[tid] = 0.0f;
    s2[tid] = 0.0f;
    for (int i = tid; i < n * hw; i += blockDim.x) {
        const float v = (float)x[(i / hw * c_n + c) * hw + i % hw];
        s1[tid] += v;
        s2[tid] += v * v;
    }
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            s1[tid] += s1[tid + s];
            s2[tid] += s2[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        const float m = s1[0] / (n * hw);
        mean[c] = m;
        var[c] = s2[0] / (n * hw) - m * m;
    }
}
