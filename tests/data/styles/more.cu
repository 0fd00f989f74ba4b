// More classes as people spell them (issue 13 item 4, session 38): our own code.
#include <cuda_fp16.h>

// Half-precision GELU with a per-column bias: the bias added in half (__hadd), the erf GELU
// in float, out of place, one element per thread.
__global__ void gelu_bias_hadd(const __half *in, const __half *bias, __half *out, int rows, int cols)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < rows * cols) {
        __half h = __hadd(in[idx], bias[idx % cols]);
        float x = __half2float(h);
        out[idx] = __float2half(0.5f * x * (1.0f + erff(x * 0.70710678f)));
    }
}

// Adam over four streams (param, grad, first and second moments), weight decay folded into
// the gradient, the bias corrections from the step count with powf.
__global__ void adam_powf(float *param, const float *grad, float *exp_avg, float *exp_avg_sq,
                          float lr, float beta1, float beta2, float eps, float weight_decay,
                          int step, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float g = grad[i] + weight_decay * param[i];
    float m = beta1 * exp_avg[i] + (1.0f - beta1) * g;
    float v = beta2 * exp_avg_sq[i] + (1.0f - beta2) * g * g;
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
    float bc1 = 1.0f - powf(beta1, (float)step);
    float bc2 = 1.0f - powf(beta2, (float)step);
    float denom = sqrtf(v / bc2) + eps;
    param[i] = param[i] - (lr / bc1) * m / denom;
}

// 1D convolution with its mask in __constant__ memory, zero outside the signal.
#define MASK_WIDTH 7
__constant__ float d_mask[MASK_WIDTH];

__global__ void conv1d_const(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int start = i - MASK_WIDTH / 2;
    if (i < n) {
        float acc = 0.0f;
        for (int j = 0; j < MASK_WIDTH; ++j) {
            int p = start + j;
            if (p >= 0 && p < n)
                acc += in[p] * d_mask[j];
        }
        out[i] = acc;
    }
}

// Naive softmax in two kernels, a thread per row. Kernel 1: the row maximum.
__global__ void softmax_row_max(const float *x, float *row_max, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float m = -3.402823466e38f;
        for (int c = 0; c < cols; ++c)
            m = fmaxf(m, x[r * cols + c]);
        row_max[r] = m;
    }
}

// Kernel 2: exponentials written out and summed, then each divided by the sum.
__global__ void softmax_exp_div(const float *x, const float *row_max, float *y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float sum = 0.0f;
        for (int c = 0; c < cols; ++c) {
            float e = expf(x[r * cols + c] - row_max[r]);
            y[r * cols + c] = e;
            sum += e;
        }
        for (int c = 0; c < cols; ++c)
            y[r * cols + c] /= sum;
    }
}

// Weighted bincount with integer weights, the bin through a temporary, the pointer-plus
// atomic.
__global__ void bincount_weighted_int(const int *idx, const int *w, int *out, int n)
{
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    if (tid >= n)
        return;
    int b = idx[tid];
    atomicAdd(out + b, w[tid]);
}
