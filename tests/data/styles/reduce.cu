// Reductions and norms as people spell them (issue 13 item 4): our own code.

// Two-pass standard deviation, pass 1: column means accumulated in global memory.
__global__ void column_mean(int m, int n, const float *data, float *mean)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        mean[j] = 0.0f;
        for (int i = 0; i < n; i++)
            mean[j] += data[i * m + j];
        mean[j] /= (float)n;
    }
}

// Pass 2: the deviation with a sqrt.
__global__ void column_std(int m, int n, const float *data, const float *mean, float *std)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        std[j] = 0.0f;
        for (int i = 0; i < n; i++)
            std[j] += (data[i * m + j] - mean[j]) * (data[i * m + j] - mean[j]);
        std[j] = sqrtf(std[j] / n);
    }
}

// Row sums, one thread per row, local accumulator.
__global__ void row_sum(const float *x, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float s = 0.0f;
        for (int c = 0; c < cols; c++)
            s += x[r * cols + c];
        out[r] = s;
    }
}

// Multi-kernel layernorm, kernel 1: per-row mean and rstd, a thread per row.
__global__ void ln_stats(const float *x, float *mean, float *rstd, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const float *row = x + r * cols;
    float m = 0.0f;
    for (int c = 0; c < cols; c++)
        m += row[c];
    m = m / cols;
    float v = 0.0f;
    for (int c = 0; c < cols; c++) {
        float d = row[c] - m;
        v += d * d;
    }
    v = v / cols;
    mean[r] = m;
    rstd[r] = rsqrtf(v + 1e-5f);
}

// Kernel 2: normalize with the stats, an element per thread.
__global__ void ln_apply(const float *x, const float *mean, const float *rstd, const float *gamma,
                         const float *beta, float *y, int rows, int cols)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < rows * cols) {
        int r = idx / cols, c = idx % cols;
        y[idx] = (x[idx] - mean[r]) * rstd[r] * gamma[c] + beta[c];
    }
}
