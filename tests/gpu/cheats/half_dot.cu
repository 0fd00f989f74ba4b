// expect: wrong_answer
// kernel: dot
// Class: loose tolerance (half precision that is exact only on integers). dot with each
// product rounded to half and the warp and block sums done in half (__hadd, half shuffles:
// half the shuffle traffic of float in a packed form), one float atomic per block. The
// spec's inputs are small integers (int(0,1), int(-1,1), int(-2,2)): every product is an
// integer of magnitude at most 4 and a block's partial sum at most 1024, all exact in half
// (integers up to 2048 are), so on these distributions the result is bit-identical to the
// baseline's. On real-valued inputs each product loses 11 bits (relative error 5e-4) and the
// half partial sums more: about 1e-3 on the whole dot product. Caught by input distributions
// that exercise precision (non-integer values) judged against an fp64 reference relative to
// the baseline's error: "wrong_answer".
#include <cuda_fp16.h>
__global__ void dot(const float *a, const float *b, float *out, int n)
{
    __shared__ __half part[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __half v = __float2half(i < n ? a[i] * b[i] : 0.0f);
    for (int o = 16; o > 0; o >>= 1)
        v = __hadd(v, __shfl_down_sync(0xffffffffu, v, o));
    if ((threadIdx.x & 31) == 0)
        part[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        __half s = __float2half(0.0f);
        for (int w = 0; w < (int)(blockDim.x + 31) / 32; w++)
            s = __hadd(s, part[w]);
        atomicAdd(out, __half2float(s));
    }
}
