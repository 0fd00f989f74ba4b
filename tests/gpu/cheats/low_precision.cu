// expect: wrong_answer
// kernel: layernorm
// layernorm computed in half precision: faster to move, but outside fp32 tolerance.
#include <cuda_fp16.h>
#include <math.h>
__global__ void layernorm(const float *in, const float *gamma, const float *beta, float *out,
                          int rows, int cols, float eps)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const float *x = in + (size_t)r * cols;
    __half mean = __float2half(0.0f);
    for (int c = 0; c < cols; c++)
        mean = __hadd(mean, __float2half(x[c] / cols));
    float m = __half2float(mean);
    float var = 0.0f;
    for (int c = 0; c < cols; c++)
        var += (x[c] - m) * (x[c] - m);
    var /= cols;
    __half inv = __float2half(1.0f / sqrtf(var + eps));
    for (int c = 0; c < cols; c++) {
        __half v = __hmul(__float2half(x[c] - m), inv);
        out[(size_t)r * cols + c] = __half2float(v) * gamma[c] + beta[c];
    }
}
