// Probe: a block tree sum in shared memory with interleaved addressing (s doubling, the
// active thread tid*2*s: bank conflicts), one partial sum per block.
#define BS 256
__global__ void rd_sum_tree(const float *in, float *partial, int n)
{
    __shared__ float buf[BS];
    int t = threadIdx.x;
    int i = blockIdx.x * BS + t;
    buf[t] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int s = 1; s < BS; s *= 2) {
        int k = 2 * s * t;
        if (k < BS)
            buf[k] += buf[k + s];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = buf[0];
}
