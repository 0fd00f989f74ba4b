// Kernels that session 38's rewrites refuse (issue 14), one construct each: their reasons, said
// in zh-CN by hkls rewrites, must hold no English sentence (test_cli_rewrites s38_refusals_zh).
// grid_stride_2d, uniform_tiles, coalesced_columns, coarsen, ilp_accumulators, block_reduce, staged_gather.
__global__ void add_rows_band(const float *a, float *b, int R, int C)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= 1 && r < R - 1 && c < C)
        b[r * C + c] = a[(r - 1) * C + c] + a[(r + 1) * C + c];
}

__global__ void row_means_2d(const float *a, float *b, int R, int C)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < R && c < C) {
        float s = 0.0f;
        for (int k = 0; k < C; k++)
            s += a[r * C + k];
        b[r * C + c] = s / C;
    }
}

__global__ void scale_shfl(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        v += __shfl_down_sync(0xffffffffu, v, 1);
        y[i] = v;
    }
}

__global__ void strided_dot(const float *x, const float *w, float *out, int n)
{
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        acc += x[i] * w[i];
        acc *= 0.5f;
    }
    atomicAdd(out, acc);
}

__global__ void block_sum_warp_sync(const float *x, float *out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

__global__ void nearest_point(const float *px, float *qx, float *best, int n, int m)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float b = 1e30f;
        for (int j = 0; j < m; j++) {
            float d = px[i] - qx[j];
            qx[j] = d;
            b = fminf(b, d * d);
        }
        best[i] = b;
    }
}

__global__ void col_sums_two(const float *a, float *out, float *out2, int rows, int cols)
{
    __shared__ float s[256];
    float acc = 0.0f, acc2 = 0.0f;
    for (int i = threadIdx.x; i < rows; i += blockDim.x) {
        acc += a[i * cols + blockIdx.x];
        acc2 += a[i * cols + blockIdx.x] * 2.0f;
    }
    s[threadIdx.x] = acc + acc2;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k)
            s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = s[0];
}

__global__ void gather_rows_sync(const float *tab, const int *idx, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        out[blockIdx.y * n + i] = tab[blockIdx.y * 64 + idx[i]];
        __syncthreads();
    }
}
