#include <math.h>
// Quick GELU (the sigmoid approximation x * sigmoid(1.702 x) used by CLIP):
// out = x / (1 + exp(-1.702 x)), one thread per element, scalar loads (naive).
__global__ void quick_gelu(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        out[i] = v / (1.0f + expf(-1.702f * v));
    }
}

void launch_quick_gelu(const float *x, float *out, int n)
{
    quick_gelu<<<(n + 255) / 256, 256>>>(x, out, n);
}
