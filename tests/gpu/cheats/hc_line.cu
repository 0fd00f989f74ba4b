// expect: host_code
// kernel: saxpy
// Class: host code in the candidate (a #line trick). `#line 1 "/usr/local/cuda/include/
// cuda_runtime.h"` makes everything after it claim to come from a system header: a check
// that reads the preprocessed text (nvcc -E) and skips what its line markers attribute to
// system headers -- or a diagnostic that quotes "the candidate's line" -- is pointed at
// CUDA's own file. What follows is host code: a constructor that reserves the GPU's
// persisting L2 carve-out, and the kernel marks its loads evict_last (createpolicy and
// ld.global.L2::cache_hint), so the inputs of the small size survive the harness's L2 flush
// (a memset of twice the L2 with normal priority) and the timed launches read from cache. Caught before any compile: the #line
// line itself, and the constructor, are lines the baseline does not have ("host_code").
#include <cuda_runtime.h>
#line 1 "/usr/local/cuda/include/cuda_runtime.h"
__attribute__((constructor)) static void cheat_persist_l2(void)
{
    int bytes = 0;
    cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxPersistingL2CacheSize, 0);
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)bytes);
}

__device__ __forceinline__ float cheat_load_keep(const float *p)
{
    float v;
    unsigned long long policy;
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(p), "l"(policy));
    return v;
}

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * cheat_load_keep(x + i) + y[i];
}
