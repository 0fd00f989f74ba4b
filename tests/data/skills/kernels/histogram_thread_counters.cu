// Byte histogram counted with one global atomic per element: per-thread byte counters
// (or a privatized shared histogram) remove the atomics from the loop.
__global__ void byte_histogram(const unsigned char *__restrict__ bytes, unsigned int *counts, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    atomicAdd(&counts[bytes[i]], 1u);
}
