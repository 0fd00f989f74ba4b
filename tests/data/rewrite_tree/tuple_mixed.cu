// Three shared-memory trees in one interleaved (doubling) loop (session 46): per block a
// sum (`x = x + y`), a maximum (fmaxf) and an integer minimum (min), each array combined
// with itself alone under `t % (2 * s) == 0`; the block size is a macro, each thread
// loads one element (0, -inf and INT_MAX past the end). block_reduce rewrites the loop as
// one warp-shuffle tree per array (tests: test_rewrites_block_tree, test_rewrites_emu_tree).
#include <limits.h>
#include <math.h>
#define NT 128
__global__ void block_summary(const float *v, const int *k, float *sum, float *top, int *low, int n)
{
    __shared__ float ps[NT];
    __shared__ float pm[NT];
    __shared__ int pk[NT];
    const unsigned t = threadIdx.x;
    const int g = blockIdx.x * NT + t;
    ps[t] = g < n ? v[g] : 0.0f;
    pm[t] = g < n ? v[g] : -INFINITY;
    pk[t] = g < n ? k[g] : INT_MAX;
    __syncthreads();
    for (unsigned s = 1; s < NT; s *= 2) {
        if (t % (2 * s) == 0) {
            ps[t] = ps[t] + ps[t + s];
            pm[t] = fmaxf(pm[t], pm[t + s]);
            pk[t] = min(pk[t], pk[t + s]);
        }
        __syncthreads();
    }
    if (t == 0) {
        sum[blockIdx.x] = ps[0];
        top[blockIdx.x] = pm[0];
        low[blockIdx.x] = pk[0];
    }
}
