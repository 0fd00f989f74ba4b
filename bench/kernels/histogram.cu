// 256-bin histogram of bytes, one global atomic per element (naive).
__global__ void histogram(const unsigned char *data, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[data[i]], 1u);
}

void launch_histogram(const unsigned char *data, unsigned int *bins, int n)
{
    histogram<<<(n + 255) / 256, 256>>>(data, bins, n);
}
