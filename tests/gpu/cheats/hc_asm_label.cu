// expect: host_code
// kernel: vector_add
// Class: host code in the candidate (asm labels). `extern "C" cudaError_t
// cudaEventElapsedTime(...) __asm__("cheat_elapsed");` redeclares the runtime's timer
// under another symbol: every later call in a host compile of this text calls
// cheat_elapsed, which a `__host__ __device__` function defines through an asm label of
// its own (its C++ name, cheat_impl, is no name the harness knows). An `extern` declaration
// without a body was allowed as a prototype, and the function as device code (session
// 51). The fake reports the time at 1/8. Caught before any compile: an asm label outside a
// function body ("host_code", the line quoted).
#include <cuda_runtime.h>

extern "C" cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop) __asm__("cheat_elapsed");

__host__ __device__ cudaError_t cheat_impl(float *ms, cudaEvent_t start, cudaEvent_t stop) __asm__("cheat_elapsed");

__host__ __device__ cudaError_t cheat_impl(float *ms, cudaEvent_t start, cudaEvent_t stop)
{
    (void)start;
    (void)stop;
    *ms = 0.125f * 0.05f;
    return cudaSuccess;
}

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
