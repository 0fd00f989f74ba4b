// Scans, optimizers and half-precision activations as people spell them (issue 13 item 4).
#include <cuda_fp16.h>
#define SCAN_BLOCK 512

// Work-efficient block scan with bank conflicts (up-sweep, down-sweep), exclusive.
__global__ void scan_bank_conflicts(const float *in, float *out, int n)
{
    __shared__ float temp[2 * SCAN_BLOCK];
    int thid = threadIdx.x;
    int base = blockIdx.x * 2 * SCAN_BLOCK;
    int offset = 1;
    temp[2 * thid] = (base + 2 * thid < n) ? in[base + 2 * thid] : 0.0f;
    temp[2 * thid + 1] = (base + 2 * thid + 1 < n) ? in[base + 2 * thid + 1] : 0.0f;
    for (int d = SCAN_BLOCK; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (thid == 0)
        temp[2 * SCAN_BLOCK - 1] = 0;
    for (int d = 1; d < 2 * SCAN_BLOCK; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            float t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();
    if (base + 2 * thid < n)
        out[base + 2 * thid] = temp[2 * thid];
    if (base + 2 * thid + 1 < n)
        out[base + 2 * thid + 1] = temp[2 * thid + 1];
}

// Adam, one parameter per thread.
__global__ void adam(float *p, const float *g, float *m, float *v, int n, float lr, float b1,
                     float b2, float eps, float bc1, float bc2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float gi = g[i];
        float mi = b1 * m[i] + (1.0f - b1) * gi;
        float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        p[i] -= lr * (mi / bc1) / (sqrtf(vi / bc2) + eps);
    }
}

// Half-precision GELU with a per-column bias, grid-stride.
__global__ void gelu_bias_half(__half *x, const __half *bias, int n, int cols)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float v = __half2float(x[i]) + __half2float(bias[i % cols]);
        float g = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        x[i] = __float2half(g);
    }
}
