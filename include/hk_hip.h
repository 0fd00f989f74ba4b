/* hk_hip.h: the CUDA names Hyper Kernel's generated code and CUDA-style kernels use, mapped
 * to HIP's, for a build with hipcc (a DCU / AMD GPU). Included by hk_harness.h (the trusted
 * launcher, and the program form of the engine's library substitutions) and, through the
 * CUDA header shims measure.c writes (cuda_runtime.h, cuda_fp16.h, ...), by a candidate's
 * device-only code object: a candidate written in CUDA finds its runtime names, its bf16 type
 * and its *_sync intrinsics here, and nothing of the harness. */
#ifndef HK_HIP_H
#define HK_HIP_H
/* ---- HIP compatibility: the CUDA runtime names this header (and plain-CUDA candidate
 * kernels) use, mapped to their HIP equivalents. Kept to what the harness and CUDA-style kernels need;
 * every name maps one to one (same arguments, same semantics), except where noted.
 * Warp size: nothing in the harness assumes 32; kernels read warpSize, which is 64 on
 * gfx9 (DCU wavefronts). ---- */
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#define HK_HIP 1
/* errors */
#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaGetLastError hipGetLastError
#define cudaPeekAtLastError hipPeekAtLastError
#define cudaGetErrorName hipGetErrorName
#define cudaGetErrorString hipGetErrorString
/* devices and their properties */
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaSetDevice hipSetDevice
#define cudaGetDevice hipGetDevice
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaDeviceReset hipDeviceReset
#define cudaDeviceProp hipDeviceProp_t
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaDeviceAttr hipDeviceAttribute_t
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define cudaDevAttrMaxThreadsPerMultiProcessor hipDeviceAttributeMaxThreadsPerMultiProcessor
#define cudaDevAttrL2CacheSize hipDeviceAttributeL2CacheSize
#define cudaDevAttrComputeCapabilityMajor hipDeviceAttributeComputeCapabilityMajor
#define cudaDevAttrComputeCapabilityMinor hipDeviceAttributeComputeCapabilityMinor
#define cudaDevAttrWarpSize hipDeviceAttributeWarpSize
#define cudaDevAttrMaxThreadsPerBlock hipDeviceAttributeMaxThreadsPerBlock
#define cudaDevAttrMaxSharedMemoryPerBlock hipDeviceAttributeMaxSharedMemoryPerBlock
#define cudaFuncSetAttribute hipFuncSetAttribute
#define cudaFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
/* memory */
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaMallocHost hipHostMalloc
#define cudaFreeHost hipHostFree
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemset hipMemset
#define cudaMemsetAsync hipMemsetAsync
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaMemcpyHostToHost hipMemcpyHostToHost
#define cudaMemcpyDefault hipMemcpyDefault
/* __constant__ symbols (the generated hk_set_constant, a candidate's host code): HIP 5's
 * hipMemcpyToSymbol takes the symbol's address; offset and kind follow as in CUDA */
#define cudaMemcpyToSymbol(symbol, ...) hipMemcpyToSymbol(HIP_SYMBOL(symbol), __VA_ARGS__)
/* streams and events (the timing loop's device events) */
#define cudaStream_t hipStream_t
#define cudaStreamCreate hipStreamCreate
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaEvent_t hipEvent_t
#define cudaEventCreate hipEventCreate
#define cudaEventDestroy hipEventDestroy
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaEventElapsedTime hipEventElapsedTime
/* ---- the kernel language: what CUDA-style kernels use that clang's HIP lacks ---- */
/* 16-bit floats. __half is HIP's own. bfloat16: hip_bf16.h's __hip_bfloat16 where the
 * toolkit has it (ROCm 6+); older ones (ROCm 5.x, Debian's HIP 5.2, DTK) only have
 * hip_bfloat16, a struct with float conversions, given CUDA's conversion names here. */
#if defined(__has_include)
#if __has_include(<hip/hip_bf16.h>)
#include <hip/hip_bf16.h>
#define HK_HIP_BF16_NATIVE 1
#endif
#endif
#ifdef HK_HIP_BF16_NATIVE
typedef __hip_bfloat16 __nv_bfloat16;
#else
#include <hip/hip_bfloat16.h>
typedef hip_bfloat16 __nv_bfloat16;
static inline __host__ __device__ __nv_bfloat16 __float2bfloat16(float f) { return hip_bfloat16(f); }
static inline __host__ __device__ float __bfloat162float(__nv_bfloat16 b) { return (float)b; }
#endif
/* Integer min/max: CUDA's math headers overload them for unsigned and 64-bit integers;
 * clang's HIP headers (15) only for int, float and double, so min(gridDim.x, 256u) is
 * ambiguous there. Templates: where a toolkit has its own overload, the non-template one
 * wins and these are never used. */
#define HK_HIP_MINMAX(T)                                                                    \
    template <typename hk_unused_ = void>                                                  \
    static inline __host__ __device__ T min(T a, T b) { return a < b ? a : b; }            \
    template <typename hk_unused_ = void>                                                  \
    static inline __host__ __device__ T max(T a, T b) { return a > b ? a : b; }
HK_HIP_MINMAX(unsigned int)
HK_HIP_MINMAX(long long)
HK_HIP_MINMAX(unsigned long long)
#undef HK_HIP_MINMAX
/* CUDA's mixed signed/unsigned forms compare as unsigned */
template <typename hk_unused_ = void>
static inline __host__ __device__ unsigned int min(int a, unsigned int b) { return min((unsigned int)a, b); }
template <typename hk_unused_ = void>
static inline __host__ __device__ unsigned int min(unsigned int a, int b) { return min(a, (unsigned int)b); }
template <typename hk_unused_ = void>
static inline __host__ __device__ unsigned int max(int a, unsigned int b) { return max((unsigned int)a, b); }
template <typename hk_unused_ = void>
static inline __host__ __device__ unsigned int max(unsigned int a, int b) { return max(a, (unsigned int)b); }
/* Warp-synchronous intrinsics: HIP before 6.2 has only the unsynchronized forms. A
 * wavefront executes in lockstep, so the mask is dropped (a partial mask is not
 * emulated). The width defaults to warpSize (64) as CUDA's does to its warpSize (32), so
 * a reduction over offsets 16..1 still sums each 32-lane half into lanes 0 and 32. */
#if !defined(HIP_VERSION) || HIP_VERSION < 60200000
#define __shfl_sync(mask, v, ...) __shfl((v), __VA_ARGS__)
#define __shfl_up_sync(mask, v, ...) __shfl_up((v), __VA_ARGS__)
#define __shfl_down_sync(mask, v, ...) __shfl_down((v), __VA_ARGS__)
#define __shfl_xor_sync(mask, v, ...) __shfl_xor((v), __VA_ARGS__)
#define __syncwarp(...) __builtin_amdgcn_wave_barrier()
#endif
#endif /* HK_HIP_H */
