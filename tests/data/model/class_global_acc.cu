// Reductions summed into a local and into the output's own global element (issue 13 item 4):
// each pair computes the same thing and must get the same class. Our own code.

// Column means: a register, then the global element itself.
__global__ void col_mean_local(int m, int n, const float *data, float *mean)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        float s = 0.0f;
        for (int i = 0; i < n; i++)
            s += data[i * m + j];
        mean[j] = s / (float)n;
    }
}

__global__ void col_mean_global(int m, int n, const float *data, float *mean)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        mean[j] = 0.0f;
        for (int i = 0; i < n; i++)
            mean[j] += data[i * m + j];
        mean[j] /= (float)n;
    }
}

// Column deviations around given means, the square root at the end.
__global__ void col_std_local(int m, int n, const float *data, const float *mean, float *std)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float s = 0.0f;
    for (int i = 0; i < n; i++) {
        float d = data[i * m + j] - mean[j];
        s += d * d;
    }
    std[j] = sqrtf(s / n);
}

__global__ void col_std_global(int m, int n, const float *data, const float *mean, float *std)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    std[j] = 0.0f;
    for (int i = 0; i < n; i++)
        std[j] += (data[i * m + j] - mean[j]) * (data[i * m + j] - mean[j]);
    std[j] = sqrtf(std[j] / n);
}

// Row statistics of a layernorm in two loops: the mean, then the inverse deviation.
__global__ void row_stats_local(const float *x, float *mean, float *rstd, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float m = 0.0f;
    for (int c = 0; c < cols; c++)
        m += x[r * cols + c];
    m = m / cols;
    float v = 0.0f;
    for (int c = 0; c < cols; c++)
        v += (x[r * cols + c] - m) * (x[r * cols + c] - m);
    mean[r] = m;
    rstd[r] = rsqrtf(v / cols + 1e-5f);
}

__global__ void row_stats_global(const float *x, float *mean, float *rstd, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    mean[r] = 0.0f;
    for (int c = 0; c < cols; c++)
        mean[r] += x[r * cols + c];
    mean[r] /= cols;
    rstd[r] = 0.0f;
    for (int c = 0; c < cols; c++)
        rstd[r] += (x[r * cols + c] - mean[r]) * (x[r * cols + c] - mean[r]);
    rstd[r] = rsqrtf(rstd[r] / cols + 1e-5f);
}

// Near miss: every column sums the same weights (w[i] for all j): a map with an inner loop,
// whether the sum is kept in a register or in the element.
__global__ void col_shared_global(int m, int n, const float *w, float *out)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        out[j] = 0.0f;
        for (int i = 0; i < n; i++)
            out[j] += w[i];
    }
}
