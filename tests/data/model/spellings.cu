// One computation written several ways (tests/unit/test_model.c): index splits by / and %
// against the flat index, while and do loops against for loops, __device__ helpers against
// their bodies written inline.

// ---- a flat index split into coordinates and put back together ----

__global__ void nchw_flat(const float *x, float *y, int N, int C, int H, int W)
{
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= N * C * H * W)
        return;
    y[index] = 2.0f * x[index];
}

__global__ void nchw_split(const float *x, float *y, int N, int C, int H, int W)
{
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= N * C * H * W)
        return;
    int n = index / (C * H * W);
    int c = (index / (H * W)) % C;
    int h = (index / W) % H;
    int w = index % W;
    y[index] = 2.0f * x[((n * C + c) * H + h) * W + w];
}

__global__ void nchw_chain(const float *x, float *y, int N, int C, int H, int W)
{
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= N * C * H * W)
        return;
    int w = index % W;
    int h = (index / W) % H;
    int c = (index / W / H) % C;
    int n = index / W / H / C;
    y[n * C * H * W + c * H * W + h * W + w] = 2.0f * x[index];
}

// NCHW to NHWC: the split does not put the index back together
__global__ void nchw_to_nhwc(const float *x, float *y, int N, int C, int H, int W)
{
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= N * C * H * W)
        return;
    int w = index % W;
    int h = (index / W) % H;
    int c = (index / W / H) % C;
    int n = index / W / H / C;
    y[((n * H + h) * W + w) * C + c] = x[index];
}

// ---- for, while and do ----

__global__ void scale_for(int n, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = 3.0f * x[i];
}

__global__ void scale_while(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) {
        y[i] = 3.0f * x[i];
        i += blockDim.x * gridDim.x;
    }
}

__global__ void scale_for_checked(int n, const float *x, float *y)
{
    int stride = blockDim.x * gridDim.x;
    int start = blockIdx.x * blockDim.x + threadIdx.x;
    if (start >= n)
        return;
    for (int i = start; i < n; i = i + stride)
        y[i] = 3.0f * x[i];
}

__global__ void scale_do(int n, const float *x, float *y)
{
    int stride = blockDim.x * gridDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    do {
        y[i] = 3.0f * x[i];
        i = i + stride;
    } while (i < n);
}

__global__ void rowsum_for(const float *a, float *out, int rows, int K)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += a[r * K + k];
        out[r] = acc;
    }
}

__global__ void rowsum_while(const float *a, float *out, int rows, int K)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float acc = 0.0f;
        int k = 0;
        while (k < K) {
            acc += a[r * K + k];
            k++;
        }
        out[r] = acc;
    }
}

// a while whose step is not its last statement stays a loop of kind other
__global__ void scan_while_other(const int *next, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) {
        i = next[i];
        out[i] = 1.0f;
    }
}
