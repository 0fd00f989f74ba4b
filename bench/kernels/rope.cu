#include <math.h>
// RoPE forward: rotate each (even, odd) pair of x[token][head][dim] by the token's angle.
// One thread per pair; the angle is recomputed with powf/sincosf every time (naive).
__global__ void rope_forward(const float *x, float *out, int tokens, int heads, int dim, float base)
{
    long pair = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long pairs = (long)tokens * heads * (dim / 2);
    if (pair >= pairs)
        return;
    int half = dim / 2;
    int j = pair % half;
    long t = pair / ((long)heads * half);
    float inv_freq = 1.0f / powf(base, (2.0f * j) / dim);
    float s, c;
    sincosf((float)t * inv_freq, &s, &c);
    long e = pair * 2;
    float x0 = x[e], x1 = x[e + 1];
    out[e] = x0 * c - x1 * s;
    out[e + 1] = x0 * s + x1 * c;
}

void launch_rope_forward(const float *x, float *out, int tokens, int heads, int dim, float base)
{
    long pairs = (long)tokens * heads * (dim / 2);
    rope_forward<<<(pairs + 255) / 256, 256>>>(x, out, tokens, heads, dim, base);
}
