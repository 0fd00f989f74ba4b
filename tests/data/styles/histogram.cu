// Histograms as people spell them (issue 13 item 4): our own code.

// Templated global-atomic bincount, one element per thread.
template <typename T>
__global__ void bincount_template(const T *input, int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[input[i]], 1);
}

// Unsigned bins, grid-stride, a bin count parameter.
__global__ void bincount_stride(const unsigned char *data, unsigned int *hist, size_t n, int nbins)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&hist[data[i] % nbins], 1u);
}

// Weighted, the bin through a temporary.
__global__ void bincount_weighted(const int *idx, const float *w, float *out, int n)
{
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    if (tid >= n)
        return;
    int b = idx[tid];
    atomicAdd(out + b, w[tid]);
}
