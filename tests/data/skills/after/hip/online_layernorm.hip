// After online_layernorm on gfx9: one 64-lane wavefront per row, Welford merged with __shfl_xor.
#include <hip/hip_runtime.h>
__global__ void layernorm(const float *x, const float *gamma, const float *beta, float *y,
                          int rows, int cols, float eps)
{
    int r = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;
    int lane = threadIdx.x % warpSize;
    if (r >= rows)
        return;
    const float *row = x + (size_t)r * cols;
    float n = 0.0f, mean = 0.0f, m2 = 0.0f;
    for (int c = lane; c < cols; c += warpSize) {
        float v = row[c];
        n += 1.0f;
        float d = v - mean;
        mean += d / n;
        m2 += d * (v - mean);
    }
    for (int o = warpSize / 2; o > 0; o >>= 1) {
        float nb = __shfl_xor(n, o);
        float mb = __shfl_xor(mean, o);
        float qb = __shfl_xor(m2, o);
        float nt = n + nb;
        if (nt > 0.0f) {
            float d = mb - mean;
            mean += d * nb / nt;
            m2 += qb + d * d * n * nb / nt;
        }
        n = nt;
    }
    float inv = rsqrtf(m2 / cols + eps);
    for (int c = lane; c < cols; c += warpSize)
        y[(size_t)r * cols + c] = (row[c] - mean) * inv * gamma[c] + beta[c];
}
