// One partial sum per block: each thread adds two inputs, then a shared-memory tree. Two
// loads per thread and a tree behind barriers: few bytes in flight per SM.
__global__ void block_partials(const float *in, float *out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    float v = 0.0f;
    if (i < n)
        v = in[i];
    if (n > i + blockDim.x)
        v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}
