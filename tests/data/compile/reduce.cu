// A template kernel with static shared memory, instantiated twice, and a namespaced one.
template <int BLOCK>
__global__ void reduce(const float *in, float *out, int n)
{
    __shared__ float tile[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    tile[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            tile[t] += tile[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = tile[0];
}

namespace hk {
__global__ void fill(float *p, float v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = v;
}
}

template __global__ void reduce<256>(const float *, float *, int);
template __global__ void reduce<1024>(const float *, float *, int);
