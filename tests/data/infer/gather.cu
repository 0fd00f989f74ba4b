// out[i] = table[idx[i]]: idx holds indices into table, which random inputs are not.
__global__ void lookup(const float *table, const int *idx, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = idx[i];
        out[i] = table[j];
    }
}

// Bins in shared memory, sized by the kernel itself: the harness allocates none of them.
__global__ void bin_counts(const unsigned char *data, unsigned int *counts, int n)
{
    __shared__ unsigned int bins[256];
    bins[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[data[i]], 1u);
    __syncthreads();
    counts[blockIdx.x * 256 + threadIdx.x] = bins[threadIdx.x];
}

// The same gather through a moved pointer: row = emb + tok[i] * d; no subscript of emb shows
// the token, only the kernel model's index form of row[c] does.
__global__ void embed(float *out, const int *tok, const float *emb, int n, int d)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float *row = emb + tok[i] * d;
        for (int c = 0; c < d; c++)
            out[i * d + c] = row[c];
    }
}
