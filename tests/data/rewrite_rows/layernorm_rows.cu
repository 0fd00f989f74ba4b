// Row normalization, one thread per row, for the warp_rows precision test
// (test_rewrites_emu_rows.c, issue 13): the shape of a naive layernorm found in the wild
// (a declaration before the guard, `if (row < rows) { ... }`, a row pointer, a mean loop,
// a second loop over the deviations for the variance, a normalize loop, per-row stores),
// written for this project.

// Two passes: the variance sums squared deviations from the mean already computed.
__global__ void norm_two_pass(float *y, float *row_mean, float *row_inv_sd, const float *src,
                              const float *gain, const float *shift, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    const float tiny = 1e-5f;
    if (row < rows) {
        const float *v = src + row * cols;
        float total = 0.0f;
        for (int j = 0; j < cols; j++) {
            total += v[j];
        }
        const float mu = total / cols;
        float dev2 = 0.0f;
        for (int j = 0; j < cols; j++) {
            const float d = v[j] - mu;
            dev2 += d * d;
        }
        const float inv_sd = 1.0f / sqrtf(dev2 / cols + tiny);
        float *dst = y + row * cols;
        for (int j = 0; j < cols; j++) {
            dst[j] = (v[j] - mu) * inv_sd * gain[j] + shift[j];
        }
        row_mean[row] = mu;
        row_inv_sd[row] = inv_sd;
    }
}

// One pass: variance as E[x^2] - E[x]^2, which cancels when the mean is large against the
// spread. A different (less accurate) formula, not a reordering of norm_two_pass's.
__global__ void norm_one_pass(float *y, float *row_mean, float *row_inv_sd, const float *src,
                              const float *gain, const float *shift, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    const float tiny = 1e-5f;
    if (row < rows) {
        const float *v = src + row * cols;
        float total = 0.0f, total2 = 0.0f;
        for (int j = 0; j < cols; j++) {
            total += v[j];
            total2 += v[j] * v[j];
        }
        const float mu = total / cols;
        const float inv_sd = 1.0f / sqrtf(total2 / cols - mu * mu + tiny);
        float *dst = y + row * cols;
        for (int j = 0; j < cols; j++) {
            dst[j] = (v[j] - mu) * inv_sd * gain[j] + shift[j];
        }
        row_mean[row] = mu;
        row_inv_sd[row] = inv_sd;
    }
}
