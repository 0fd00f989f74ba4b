// Probe: a 256-bin histogram of bytes, a grid-stride loop over size_t positions, the bin
// counter bumped in global memory.
__global__ void rd_hist256_bytes(const unsigned char *data, size_t len, unsigned int *bins)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t pos = blockIdx.x * (size_t)blockDim.x + threadIdx.x; pos < len; pos += stride) {
        unsigned int b = data[pos];
        atomicAdd(bins + b, 1u);
    }
}
