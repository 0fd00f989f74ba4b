// Rewrite fixture for rw_unroll: loops with variable and constant trip counts, nested
// loops (only the innermost gets the pragma), one that has a pragma already, one that is
// not first on its line, and a kernel without loops.
#include <cuda_runtime.h>

#define TAPS 8
constexpr int WIDTH = 4;

__global__ void dot_rows(const float *a, const float *x, float *y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
        s += a[(long)r * cols + c] * x[c];
    y[r] = s;
}

__global__ void fir(const float *x, const float *h, float *y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n - TAPS; i += gridDim.x * blockDim.x) {
        float s = 0.0f;
        for (int t = 0; t < TAPS; ++t)
            s += h[t] * x[i + t];
        y[i] = s;
    }
}

template <int R>
__global__ void box(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 2 * R * WIDTH)
        return;
    float s = 0.0f;
    for (int j = 0; j < 2 * R * WIDTH; j += WIDTH) { s += x[i + j]; }
    if (n > 0) for (int j = 0; j < R; j++) s -= x[i + j];
    y[i] = s;
}

__global__ void pragma_already(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
#pragma unroll 2
    for (int j = 0; j < 16; j++)
        s += x[(i + j) % n];
    if (i < n)
        y[i] = s;
}

__global__ void no_loop(float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 1.0f;
}

template __global__ void box<3>(const float *, float *, int);
