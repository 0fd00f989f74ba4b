// Histogram spellings the privatized-histogram rewrite must recognize, and near-misses.
#define NBINS 64

// weighted float histogram, bin from a modulo by a #define, pointer-plus form
__global__ void weighted_hist(const int *key, const float *w, float *hist, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    atomicAdd(hist + key[i] % NBINS, w[i]);
}

// runtime bin count: the rewrite guesses, out-of-range bins go to global memory
__global__ void hist_runtime(const unsigned int *v, unsigned int *bins, int nbins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[v[i] % nbins], 1u);
}

// near-miss: every element goes to one bin (that is a reduction)
__global__ void one_bin(const unsigned char *d, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[0], (unsigned int)d[i]);
}

// near-miss: the bin comes from a local computed beforehand
__global__ void hist_local(const float *x, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = (int)(x[i] * 16.0f);
        atomicAdd(&bins[b], 1u);
    }
}

// near-miss: the bin's temporary is also the value added (the bin is not the temporary's
// expression alone there), and no bin count is known
__global__ void hist_local_value(const int *x, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = x[i];
        atomicAdd(&bins[b], (unsigned int)b);
    }
}
