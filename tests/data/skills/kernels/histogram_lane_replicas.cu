// Byte histogram counted with one global atomic per element: lane replicas of the bins in
// shared memory (or a privatized shared histogram) take the atomics off global memory.
__global__ void byte_histogram(const unsigned char *__restrict__ bytes, unsigned int *counts, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    atomicAdd(&counts[bytes[i]], 1u);
}
