// Reduction spellings the warp-reduce rewrite must recognize, and near-misses it must not.

// sum of squares, early-return form, long index
__global__ void sum_squares(const float *x, float *result, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    atomicAdd(result, x[i] * x[i]);
}

// integer maximum into out[0]
__global__ void max_int(const int *v, int *out, int n)
{
    int idx = threadIdx.x + blockDim.x * blockIdx.x;
    if (idx < n) {
        atomicMax(&out[0], v[idx]);
    }
}

// unsigned minimum
__global__ void min_u(const unsigned int *v, unsigned int *out, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n)
        atomicMin(out, v[idx]);
}

// conditional count
__global__ void count_positive(const float *x, unsigned long long *count, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        if (x[i] > 0.0f)
            atomicAdd(count, 1ull);
}

// double dot product
__global__ void ddot(const double *a, const double *b, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, a[i] * b[i]);
}

// shared-memory tree with one atomic per block
__global__ void tree_sum(const float *in, float *out, int n)
{
    __shared__ float sdata[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        atomicAdd(out, sdata[0]);
}

// near-miss: per-block partial sums (the output layout depends on the grid)
__global__ void tree_partial(const float *in, float *partial, int n)
{
    __shared__ float sdata[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = sdata[0];
}

// near-miss: the target depends on the index (a scatter)
__global__ void scatter(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&out[i % 4], x[i]);
}

// near-miss: an elementwise kernel
__global__ void scale(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}
