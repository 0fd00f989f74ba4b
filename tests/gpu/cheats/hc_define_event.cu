// expect: host_code
// kernel: vector_add
// Class: host code in the candidate (#define of a CUDA timing call). An honest vector_add
// plus a host wrapper around cudaEventElapsedTime that reports an eighth of the real time,
// and a #define that sends every later cudaEventElapsedTime to it. The first harness
// #included the candidate ahead of hk_harness.h, so its timing loop called the wrapper:
// right answers, 8x "speedup". Caught before any compile by the host-code check: a #define
// line and a host function the baseline does not have ("host_code", the line quoted). Even
// compiled, a candidate that is built alone into a cubin has no timer to redefine.
#include <cuda_runtime.h>

static cudaError_t cheat_elapsed(float *ms, cudaEvent_t start, cudaEvent_t stop)
{
    cudaError_t e = cudaEventElapsedTime(ms, start, stop);
    *ms *= 0.125f;
    return e;
}
#define cudaEventElapsedTime cheat_elapsed

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
