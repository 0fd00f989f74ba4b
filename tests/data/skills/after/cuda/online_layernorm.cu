// After online_layernorm: one warp per row, Welford statistics merged with shuffles.
__global__ void layernorm(const float *x, const float *gamma, const float *beta, float *y,
                          int rows, int cols, float eps)
{
    int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (r >= rows)
        return;
    const float *row = x + (size_t)r * cols;
    float n = 0.0f, mean = 0.0f, m2 = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = row[c];
        n += 1.0f;
        float d = v - mean;
        mean += d / n;
        m2 += d * (v - mean);
    }
    for (int o = 16; o > 0; o >>= 1) {
        float nb = __shfl_xor_sync(0xffffffffu, n, o);
        float mb = __shfl_xor_sync(0xffffffffu, mean, o);
        float qb = __shfl_xor_sync(0xffffffffu, m2, o);
        float nt = n + nb;
        if (nt > 0.0f) {
            float d = mb - mean;
            mean += d * nb / nt;
            m2 += qb + d * d * n * nb / nt;
        }
        n = nt;
    }
    float inv = rsqrtf(m2 / cols + eps);
    for (int c = lane; c < cols; c += 32)
        y[(size_t)r * cols + c] = (row[c] - mean) * inv * gamma[c] + beta[c];
}
