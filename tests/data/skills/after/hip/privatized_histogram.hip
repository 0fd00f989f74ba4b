// After privatized_histogram on gfx9: 256 bins in LDS per workgroup (ds_add_u32), merged once.
#include <hip/hip_runtime.h>
__global__ void histogram(const unsigned char *data, unsigned int *hist, int n)
{
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b])
            atomicAdd(&hist[b], local[b]);
}
