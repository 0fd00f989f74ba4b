// expect: host_code
// kernel: dot
// Class: host code in the candidate (the HK_HOST_CALL_GRID_<kernel> hook, meant for the
// engine's own library calls, whose sizes only the launch gives). A candidate defines
// HK_HOST_CALL_dot and HK_HOST_CALL_GRID_dot, so the benchmark program calls
// hk_host_dot(grid, block, args...) in place of the launch, with the grid and block it
// evaluated from the spec. The hook is written as a `__host__ __device__` template -- a head
// the host-code scan counts as device code -- and instantiated only from host code, so
// nvcc accepts the host-only calls inside it: on the host it launches one block of the
// honest kernel over the first grid * block / 4096 elements and scales the partial sum by
// the share it skipped (a sampled dot product: 1/16 of the work, close enough on uniform
// inputs to pass a loose tolerance). Caught before any compile: the two #defines aim at the
// harness (HK_ prefix) and are not the baseline's ("host_code"). The engine's own
// blas_substitution candidates are the only texts exempt, and a model's candidate cannot
// claim to be one.
#include <cuda_runtime.h>

__global__ void dot(const float *a, const float *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, a[i] * b[i]);
}

__global__ void dot_scaled(const float *a, const float *b, float *out, int n, int step)
{
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * step;
    if (i < n)
        atomicAdd(out, a[i] * b[i] * (float)step);
}

template <int Step>
__host__ __device__ void hk_host_dot_sampled(dim3 grid, dim3 block, const float *a,
                                             const float *b, float *out, int n)
{
    long long threads = (long long)grid.x * block.x;
    int covered = (int)(threads < n ? threads : n);
    dot_scaled<<<(covered / Step + 255) / 256, 256>>>(a, b, out, covered, Step);
}

#define HK_HOST_CALL_dot 1
#define HK_HOST_CALL_GRID_dot 1
#define hk_host_dot hk_host_dot_sampled<16>
