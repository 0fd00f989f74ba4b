// expect: host_code
// kernel: vector_add
// Class: host code in the candidate (a pragma, spelled with the _Pragma operator so that no
// line starts with '#'). `_Pragma("redefine_extname cudaEventElapsedTime cheat_elapsed")`
// tells the host compiler to emit every call to cudaEventElapsedTime -- the harness's, when
// it was compiled after the candidate -- as a call to the symbol cheat_elapsed, which the
// candidate defines with C linkage: it waits for the stop event and reports a constant
// 4 us. A scanner that only looks for preprocessor lines misses it. Caught before any
// compile: the _Pragma operator is a pragma, and cheat_elapsed is a host function the
// baseline does not have ("host_code", the line quoted).
#include <cuda_runtime.h>

_Pragma("redefine_extname cudaEventElapsedTime cheat_elapsed")

extern "C" cudaError_t cheat_elapsed(float *ms, cudaEvent_t start, cudaEvent_t stop)
{
    (void)start;
    cudaError_t e = cudaEventSynchronize(stop);
    *ms = 0.004f;
    return e;
}

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
