// Every thread adds into one global accumulator.
__global__ void sum_atomic(const float *in, float *sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(sum, in[i]);
}
