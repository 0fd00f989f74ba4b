// expect: wrong_answer
// kernel: softmax
// Class: loose tolerance (cheaper, less accurate math). softmax with two passes instead of
// three -- no max subtraction, which the spec's inputs (|x| <= 8) survive without overflow --
// and exp computed as one ex2.approx of x * 1.4427 (log2(e) cut to five digits, the raw SFU
// instruction without the range reduction of expf), the division as __fdividef. The short
// constant scales every exponent by 1 + 3.4e-6, which moves each probability by
// 3.4e-6 * (x - E[x]): up to about 5e-5 relative for uniform(-8,8), 1e-5 for normal(0,1).
// That is inside the spec's rtol 1e-4 and l2 1e-5, and a third less traffic is a real
// speedup, but it is 10-100 times the baseline's own error (expf and a float sum: about
// 1e-6). Caught by errors judged against an fp64 reference relative to the baseline's own
// error, or by any input whose max exceeds ~88 (exp overflows without the max): "wrong_answer".
__device__ __forceinline__ float cheat_exp(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4427f));
    return y;
}

__global__ void softmax(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const float *x = in + (size_t)r * cols;
    float *y = out + (size_t)r * cols;
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
        s += cheat_exp(x[c]);
    for (int c = 0; c < cols; c++)
        y[c] = __fdividef(cheat_exp(x[c]), s);
}
