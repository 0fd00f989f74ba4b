// Rewrite fixture (rw_vectorize on strided elements): kernels whose index i owns s
// consecutive elements of each array (p[s * i + k], 0 <= k < s), directly or through an
// alias of the index; then shapes the rewrite must refuse, with the reason.
#include <cuda_runtime.h>
#include <cuda_fp16.h>

// two elements per index, written as 2 * i + k; the pair is swapped (x read, out stored)
__global__ void swap_pairs(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a = x[2 * i], b = x[i * 2 + 1];
        out[2 * i] = b;
        out[1 + 2 * i] = a;
    }
}

// four elements per index through a cast and an alias; y is read and written in place
__global__ void quad_scale(float *y, float s, long n)
{
    long q = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= n)
        return;
    const long base = (long)q * 4;
    y[base] = y[base] * s;
    y[base + 1] = y[base + 1] * s + 1.0f;
    y[(base + 2)] = y[base + 2] - s;
    y[base + 3] = y[base + 3] * (float)q;
}

// complex numbers as (re, im) halves: two elements per index, eight halves in a uint4
__global__ void half_cmul(const __half *a, const __half *b, __half *c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int e = 2 * i;
        float ar = __half2float(a[e]), ai = __half2float(a[e + 1]);
        float br = __half2float(b[e]), bi = __half2float(b[e + 1]);
        c[e] = __float2half(ar * br - ai * bi);
        c[e + 1] = __float2half(ar * bi + ai * br);
    }
}

// --- refused ---

// x with two elements per index, y with one
__global__ void mixed_strides(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[2 * i] + x[2 * i + 1];
}

// element 2 of a two-element index is the next index's
__global__ void past_pair(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i] = x[2 * i] + x[2 * i + 2];
        out[2 * i + 1] = x[2 * i + 1];
    }
}

// out[2 * i] stored twice
__global__ void twice_written(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i] = x[2 * i];
        out[2 * i + 1] = x[2 * i + 1];
        out[2 * i] = out[2 * i + 1] * 2.0f;
    }
}

// out[2 * i + 1] never stored
__global__ void half_written(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[2 * i] = x[2 * i] + x[2 * i + 1];
}

// a store under a condition
__global__ void cond_written(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i] = x[2 * i];
        out[2 * i + 1] = 0.0f;
        if (x[2 * i + 1] > 0.0f)
            out[2 * i + 1] = x[2 * i + 1];
    }
}

// only the even elements are read: a vector would load the odd ones too
__global__ void even_reads(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i] = x[2 * i];
        out[2 * i + 1] = 0.0f;
    }
}

// three elements per index
__global__ void triples(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[3 * i] = x[3 * i];
}

// the alias changes
__global__ void moving_alias(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int e = 2 * i;
        out[e] = x[e];
        e++;
        out[e] = x[e];
    }
}
