// expect: host_code
// kernel: vector_add
// Class: host code in the candidate (a _Pragma in a namespace head). hc_pragma.cu's
// `_Pragma("redefine_extname cudaEventElapsedTime cheat_elapsed")`, moved into the head of
// an empty namespace: the scan reads items and preprocessor lines, and a `namespace N ... {`
// head is neither (session 51: no check read its tokens). The renamed symbol is defined by
// a `__host__ __device__` function with C linkage, which the scan took for device code:
// every later call of cudaEventElapsedTime in a host compile of this text calls it and
// reads 4 us. Caught before any compile: the head's _Pragma is a pragma the baseline does
// not have ("host_code", the line quoted); the C-linkage __host__ __device__ function is a
// finding of its own.
#include <cuda_runtime.h>

namespace hk_tuned _Pragma("redefine_extname cudaEventElapsedTime cheat_elapsed") {
}

extern "C" __host__ __device__ cudaError_t cheat_elapsed(float *ms, cudaEvent_t start, cudaEvent_t stop)
{
    (void)start;
    (void)stop;
    *ms = 0.004f;
    return cudaSuccess;
}

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
