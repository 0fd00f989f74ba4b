// After fast_math: special-function-unit intrinsics.
__global__ void gelu_like(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float t = 0.79788456f * (v + 0.044715f * v * v * v);
        float th = 1.0f - __fdividef(2.0f, __expf(2.0f * t) + 1.0f);
        y[i] = 0.5f * v * (1.0f + th) + __fdividef(__sinf(v), __expf(v));
    }
}
