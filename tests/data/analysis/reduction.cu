/* Block reduction with dynamic shared memory and a cudaLaunchKernel launch. */
#define THREADS 512
#define WARPS (THREADS / 32)
#define EPS 1e-6f

__global__ void reduce_sum(const float *in, float *out, unsigned int n)
{
    extern __shared__ float sdata[];
    __shared__ float warp_part[WARPS];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float v = 0.0f;
    if (i < n) v += in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (s > tid)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) {
        warp_part[0] = sdata[0];
        atomicAdd(out, warp_part[0]);
    }
}

float host_reduce(const float *d_in, float *d_out, unsigned int n, cudaStream_t stream)
{
    size_t smem = THREADS * sizeof(float);
    unsigned int blocks = (n + THREADS * 2 - 1) / (THREADS * 2);
    void *args[] = {(void *)&d_in, (void *)&d_out, (void *)&n};
    cudaLaunchKernel((const void *)reduce_sum, dim3(blocks), dim3(THREADS), args, smem, stream);
    float h = 0;
    return h;
}
