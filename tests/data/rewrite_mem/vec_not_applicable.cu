// Rewrite fixture: kernels rw_vectorize must refuse, each for a reason the test checks.
#include <cuda_runtime.h>

// a neighbour's element of a pointer the kernel writes (of one it only reads, x[i + 1]
// would be read per lane)
__global__ void neighbour(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1)
        y[i] = y[i + 1] - x[i];
}

// a reduction through an atomic
__global__ void reduce(const float *x, float *sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(sum, x[i]);
}

// state carried across elements
__global__ void carried(const float *x, float *y, int n)
{
    float acc = 0.0f;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        acc += x[i];
        y[i] = acc;
    }
}

// x is read after y is written: if the caller passes the same buffer twice, the scalar
// code reads the new value (applies: the vector path is guarded by x != y)
__global__ void maybe_alias(float *x, float *y, float *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 2.0f * z[i];
        z[i] = x[i] + 1.0f;
    }
}

// a 2D index
__global__ void two_d(float *y, int w, int h)
{
    int i = (blockIdx.y * blockDim.y + threadIdx.y) * w + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < w * h)
        y[i] = 0.0f;
}

// continue inside a grid-stride loop
__global__ void skips(const float *x, float *y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        if (x[i] < 0.0f)
            continue;
        y[i] = x[i];
    }
}

// a template element type
template <typename T>
__global__ void templ(const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}

// double has no 4-wide vector type
__global__ void dbl(const double *x, double *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 3.0 * x[i];
}

// nothing written at the thread's index
__global__ void reads_only(const float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        (void)v;
    }
}

template __global__ void templ<float>(const float *, float *, int);

// reads at other indices in a loop per element: a row reduction, not elementwise
__global__ void gemv_rows(const float *A, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s = 0.0f;
        for (int j = 0; j < n; j++)
            s += A[i * n + j] * x[j];
        y[i] = s;
    }
}
