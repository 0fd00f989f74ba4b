// Rewrite fixture for rw_fast_math: float math calls and divisions in the kernel body, a
// device helper that must stay as it is, double math and integer division that must not
// change, and nested and chained divisions.
#include <cuda_runtime.h>
#include <math.h>

__device__ float act(float v)
{
    return expf(v) / (1.0f + expf(v));
}

__global__ void sigmoid(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 1.0f / (1.0f + expf(-x[i])) + act(x[i]);
}

__global__ void waves(const float *x, float *y, float p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float s, c;
        sincosf(v, &s, &c);
        y[i] = sinf(v) * cosf(v) + powf(fabsf(v), p) + logf(1.0f + v * v) + s * c;
    }
}

__global__ void divisions(const float *x, float *y, int n, float d)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a = x[i];
        int half = n / 2;
        y[i] = a * d / (a + 2.0f) + a / (d / (1.0f + a * a)) + (float)(i / 3) + half;
    }
}

__global__ void doubles(const double *x, double *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = exp(x[i]) / 2.0 + (double)(i / 4);
}

// The C++ overloads on float arguments are the float functions (Parboil's mri-q spells its
// sinf and cosf as sin and cos): taken; on a double argument they are the
// double functions: left.
__global__ void overloads(const float *x, const double *w, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float t = v * 0.5f;
        y[i] = sin(v) * cos(t) + exp(-v) + pow(v, t) + (float)cos(w[i]) + (float)sin(w[i] * 2.0) + log(v * 2);
    }
}
