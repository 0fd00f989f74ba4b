// The writable globals a kernel image holds, for test_engine_kglobals: the launcher restores
// exactly the variables a kernel can write (.nv.global and .nv.global.init in a cubin; .data
// and .bss in an AMDGPU code object), whatever the source calls them. Built with
// `nvcc -cubin -arch=sm_90` (and, where hipcc is, `hipcc --genco` with HK_KGLOBALS_HIP).
#ifdef HK_KGLOBALS_HIP
#include <hip/hip_runtime.h>
#endif

namespace stage {
__device__ unsigned int retired;                 // zero-initialised: .nv.global
__device__ float bias[8] = {1, 2, 3, 4, 5, 6, 7, 8}; // initialised: .nv.global.init
}

template <typename T> __device__ T scale = T(2); // a variable template's instance
static __device__ int file_local_hits;           // internal linkage, still writable
__device__ const float weights[4] = {0.5f, 0.25f, 0.125f, 0.0625f}; // const: writable memory
__device__ float *spill;                         // a pointer a kernel may point anywhere

__constant__ float taps[16];                     // __constant__: never restored

__global__ void accumulate(const float *in, float *out, int n)
{
    __shared__ float tile[64];                   // __shared__: not a global
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x % 64] = i < n ? in[i] : 0.0f;
    __syncthreads();
    float v = tile[(threadIdx.x + 1) % 64] * scale<float> + stage::bias[i & 7] +
              weights[i & 3] + taps[i & 15];
    if (i < n) {
        out[i] = v;
        atomicAdd(&file_local_hits, 1);
        if (spill)
            spill[i] = v;
    }
    if (threadIdx.x == 0)
        atomicAdd(&stage::retired, 1u);
}
