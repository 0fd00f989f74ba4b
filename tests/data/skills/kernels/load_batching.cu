// cuda-samples' histogram256 shape: a grid-stride loop with one 4-byte load per trip and
// four dependent shared atomics: one load in flight per thread.
__global__ void hist(unsigned *partial, const unsigned *data, unsigned count)
{
    __shared__ unsigned s[256];
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x)
        s[i] = 0;
    __syncthreads();
    for (unsigned pos = blockIdx.x * blockDim.x + threadIdx.x; pos < count; pos += blockDim.x * gridDim.x) {
        unsigned d = data[pos];
        atomicAdd(s + (d & 0xFFU), 1);
        atomicAdd(s + ((d >> 8) & 0xFFU), 1);
        atomicAdd(s + ((d >> 16) & 0xFFU), 1);
        atomicAdd(s + (d >> 24), 1);
    }
    __syncthreads();
    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
        partial[blockIdx.x * 256 + b] = s[b];
}
