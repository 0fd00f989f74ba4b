// Probe: the first kernel of a two-pass standard deviation -- the mean of a vector, each
// block summing its elements in shared memory (sequential addressing) and adding
// sum / n into the result with one atomicAdd.
__global__ void rd_std_mean(const float *x, float *mean, int n)
{
    extern __shared__ float part[];
    int tid = threadIdx.x;
    int idx = blockIdx.x * blockDim.x + tid;
    part[tid] = idx < n ? x[idx] : 0.0f;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (tid < half)
            part[tid] += part[tid + half];
        __syncthreads();
    }
    if (tid == 0)
        atomicAdd(mean, part[0] / n);
}
