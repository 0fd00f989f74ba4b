// Row-wise kernels (one thread per row) the online softmax / layernorm rewrites must
// recognize in other spellings, and near-misses they must not.
#include <math.h>
#include <float.h>

// softmax: element reads through the matrix, fmaxf(x, m) order, __expf, a reciprocal
__global__ void softmax_direct(const float *logits, float *probs, int n_rows, int n_cols)
{
    int row = threadIdx.x + blockIdx.x * blockDim.x;
    if (row < n_rows) {
        float mx = -FLT_MAX;
        for (int j = 0; j < n_cols; ++j)
            mx = fmaxf(logits[(size_t)row * n_cols + j], mx);
        float sum = 0.0f;
        for (int j = 0; j < n_cols; ++j)
            sum += __expf(logits[(size_t)row * n_cols + j] - mx);
        float inv = 1.0f / sum;
        for (int j = 0; j < n_cols; ++j)
            probs[(size_t)row * n_cols + j] = __expf(logits[(size_t)row * n_cols + j] - mx) * inv;
    }
}

// softmax: the maximum as a guarded assignment in braces, written `m < x` (llm.c's spelling
// of the max, issue 13), through a row pointer
__global__ void softmax_guarded(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float best = -INFINITY;
        for (int j = 0; j < cols; j++) {
            if (best < in[r * cols + j]) {
                best = in[r * cols + j];
            }
        }
        float total = 0.0f;
        for (int j = 0; j < cols; j++)
            total += expf(in[r * cols + j] - best);
        for (int j = 0; j < cols; j++)
            out[r * cols + j] = expf(in[r * cols + j] - best) / total;
    }
}

// near-miss: log-softmax (the write is not exp(x - m) / s)
__global__ void log_softmax(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const float *x = in + (size_t)r * cols;
    float *y = out + (size_t)r * cols;
    float m = -INFINITY;
    for (int c = 0; c < cols; c++)
        m = fmaxf(m, x[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
        s += expf(x[c] - m);
    for (int c = 0; c < cols; c++)
        y[c] = x[c] - m - logf(s);
}

// layernorm without affine parameters, rsqrtf, a literal epsilon, `mean = mean / cols`
__global__ void layernorm_plain(const float *x, float *y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const float *xr = &x[r * cols];
    float *yr = y + r * cols;
    float mean = 0.0f;
    for (int c = 0; c < cols; c++)
        mean += xr[c];
    mean = mean / cols;
    float var = 0.0f;
    for (int c = 0; c < cols; c++)
        var += (xr[c] - mean) * (xr[c] - mean);
    var /= cols;
    float rstd = rsqrtf(var + 1e-5f);
    for (int c = 0; c < cols; c++)
        yr[c] = (xr[c] - mean) * rstd;
}

// layernorm with gamma first in the product
__global__ void layernorm_gamma_first(const float *in, const float *w, const float *b, float *out,
                                      float eps, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        const float *x = in + (size_t)r * cols;
        float mu = 0.0f;
        for (int c = 0; c < cols; c++)
            mu += x[c];
        mu /= cols;
        float v = 0.0f;
        for (int c = 0; c < cols; c++)
            v += (x[c] - mu) * (x[c] - mu);
        v /= cols;
        float inv = 1.0f / sqrtf(v + eps);
        for (int c = 0; c < cols; c++)
            out[(size_t)r * cols + c] = w[c] * (x[c] - mu) * inv + b[c];
    }
}

// near-miss: RMSNorm (no mean subtracted)
__global__ void rmsnorm_like(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const float *x = in + (size_t)r * cols;
    float ss = 0.0f;
    for (int c = 0; c < cols; c++)
        ss += x[c] * x[c];
    float inv = rsqrtf(ss / cols + 1e-6f);
    for (int c = 0; c < cols; c++)
        out[(size_t)r * cols + c] = x[c] * inv;
}

// near-miss: double precision softmax
__global__ void softmax_double(const double *in, double *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const double *x = in + (size_t)r * cols;
    double *y = out + (size_t)r * cols;
    double m = -INFINITY;
    for (int c = 0; c < cols; c++)
        m = fmax(m, x[c]);
    double s = 0.0;
    for (int c = 0; c < cols; c++)
        s += exp(x[c] - m);
    for (int c = 0; c < cols; c++)
        y[c] = exp(x[c] - m) / s;
}
