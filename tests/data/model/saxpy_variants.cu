// The same y = a*x + y written several ways (tests/unit/test_model.c).
__global__ void saxpy_if(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

__global__ void saxpy_return(int n, float a, const float *x, float *y)
{
    int i = threadIdx.x + blockDim.x * blockIdx.x;
    if (i >= n)
        return;
    y[i] = a * x[i] + y[i];
}

// The early return in a block with a comment on the if's line (mmcv's assign_score_withk
// writes `if (...) {  // ...` then `return;`): still an exit that guards what follows.
__global__ void saxpy_return_commented(int n, float a, const float *x, float *y)
{
    int i = threadIdx.x + blockDim.x * blockIdx.x;
    if (i >= n) {  // past the end: nothing to do
        /* the last block's spare threads */
        return;
    }
    y[i] = a * x[i] + y[i];
}

__global__ void saxpy_unsigned(unsigned n, float a, const float *x, float *y)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float xi = x[i];
        y[i] += a * xi;
    }
}

__global__ void saxpy_size_t(size_t n, float a, const float *__restrict__ x, float *__restrict__ y)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (n > i)
        y[i] = fmaf(a, x[i], y[i]);
}

__global__ void saxpy_inline(int n, float a, const float *x, float *y)
{
    if (blockIdx.x * blockDim.x + threadIdx.x < n)
        y[blockIdx.x * blockDim.x + threadIdx.x] =
            a * x[blockIdx.x * blockDim.x + threadIdx.x] + y[blockIdx.x * blockDim.x + threadIdx.x];
}

__global__ void saxpy_grid_stride(int n, float a, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

__global__ void saxpy_grid_stride_64(long long n, float a, const float *x, float *y)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += stride)
        y[i] += a * x[i];
}
