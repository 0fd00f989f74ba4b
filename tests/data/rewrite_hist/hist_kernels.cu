// Histograms for the lane-replica rewrite (rewrite_hist.h): shapes it takes (byte path,
// scalar path, weighted counts) and near-misses with their reasons.
#define NBINS 64

// scalar path: the bin is a modulo by a #define (64 bins inferred)
__global__ void mod_hist(const unsigned int *v, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[v[i] % NBINS], 1u);
}

// byte path with signed bytes: negative bins go to global memory as in the original
__global__ void signed_bytes(const char *data, int *bins, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    atomicAdd(bins + data[i], 1);
}

// 64-bit counters, a computed bin (a guess of 256 bins: 64 KiB of 64-bit replicas, too
// many; 128 bins given fit), pointer-plus form
__global__ void ull_hist(const float *x, unsigned long long *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[(int)(x[i] * 16.0f) & 255], 1ull);
}

// a weighted histogram of bytes: the byte path declares the index for the weight
__global__ void weighted(const unsigned char *d, const unsigned int *w, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[d[i]], w[i]);
}

// near-miss: float counters
__global__ void float_hist(const unsigned char *d, float *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[d[i]], 1.0f);
}

// near-miss: more bins than the replicas can hold (1024 x 32 x 4 bytes)
__global__ void wide_hist(const unsigned int *v, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[v[i] % 1024], 1u);
}

// 200 bins: 25600 bytes of replicas
__global__ void hist200(const unsigned int *v, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[v[i] % 200u], 1u);
}

// near-miss: the bin comes from a local
__global__ void hist_local(const float *x, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = (int)(x[i] * 16.0f);
        atomicAdd(&bins[b], 1u);
    }
}

// scalar path with int counters and a signed weight per element (128 bins inferred)
__global__ void signed_weights(const unsigned int *v, const int *w, int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[v[i] % 128], w[i] - 3);
}

// near-miss: the bin's temporary is also the value added
__global__ void hist_local_value(const int *x, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = x[i];
        atomicAdd(&bins[b], (unsigned int)b);
    }
}
