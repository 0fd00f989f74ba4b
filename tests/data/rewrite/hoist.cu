// Rewrite fixture: declarations between the index and the bounds check. Those that do not
// involve the index and are never changed in the body are hoisted above the loop.
#include <cuda_runtime.h>

__global__ void scale_rows(const float *in, float *out, int rows, int cols, float s)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long total = (long)rows * cols;
    const float k = s * 0.5f;
    if (i >= total)
        return;
    out[i] = in[i] * k;
}

// acc carries from one element to the next if hoisted: must be refused
__global__ void running(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    if (i < n) {
        acc += in[i];
        out[i] = acc;
    }
}
