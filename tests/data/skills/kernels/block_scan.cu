// An inclusive scan of each block's elements: Hillis-Steele passes over two shared buffers,
// one barrier per pass.
__global__ void block_scan(const int *in, int *out, int n)
{
    extern __shared__ int buf[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int po = 0, pi = 1;
    buf[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int s = 1; s < blockDim.x; s <<= 1) {
        po = 1 - po;
        pi = 1 - po;
        if (t >= s)
            buf[po * blockDim.x + t] = buf[pi * blockDim.x + t] + buf[pi * blockDim.x + t - s];
        else
            buf[po * blockDim.x + t] = buf[pi * blockDim.x + t];
        __syncthreads();
    }
    if (i < n)
        out[i] = buf[po * blockDim.x + t];
}
