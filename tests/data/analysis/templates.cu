// Templates with __launch_bounds__, a default template argument, device helpers.
#include <cuda_fp16.h>

template <typename T>
__device__ __forceinline__ T warp_sum(T v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffff, v, o);
    return v;
}

__host__ __device__ inline float clampf(float v, float lo, float hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

template <int BLOCK, int ITEMS = 4, typename T>
__global__ void __launch_bounds__(BLOCK, 2)
scale_kernel(const T *__restrict__ in, T *__restrict__ out, T s, int n)
{
    T regs[ITEMS];
    int base = (blockIdx.x * BLOCK + threadIdx.x) * ITEMS;
    for (int k = 0; k < ITEMS; k++)
        regs[k] = base + k < n ? in[base + k] : T(0);
    for (int k = 0; k < ITEMS; k++)
        if (base + k < n)
            out[base + k] = regs[k] * s;
}

template <int BLOCK>
void launch_scale(const float *in, float *out, float s, int n, cudaStream_t st)
{
    int grid = (n + BLOCK * 4 - 1) / (BLOCK * 4);
    scale_kernel<BLOCK, 4, float><<<grid, BLOCK, 0, st>>>(in, out, s, n);
}

template void launch_scale<256>(const float *, float *, float, int, cudaStream_t);
