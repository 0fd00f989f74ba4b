// Sum reduction: every thread adds its element to the result with an atomic (naive).
__global__ void reduce_sum(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, in[i]);
}

void launch_reduce_sum(const float *in, float *out, int n)
{
    reduce_sum<<<(n + 255) / 256, 256>>>(in, out, n);
}
