// Two shared-memory trees in one block over two buffers, integers (exact): a row's maximum
// by a halving tree, then the sum of each element's distance below it by an interleaved
// (doubling) tree; the block size is a macro. block_reduce rewrites both trees (tests:
// test_rewrites_block_tree, test_rewrites_emu_tree; session 43).
#include <limits.h>
#define TB 256
__global__ void row_gap(const int *v, int *out, int cols)
{
    __shared__ int big[TB];
    __shared__ int tot[TB];
    const unsigned t = threadIdx.x;
    const int *vr = v + blockIdx.x * cols;
    int m = INT_MIN;
    for (int c = t; c < cols; c += TB)
        m = max(m, vr[c]);
    big[t] = m;
    __syncthreads();
    for (unsigned s = TB / 2; s > 0; s >>= 1) {
        if (s > t)
            big[t] = max(big[t], big[t + s]);
        __syncthreads();
    }
    const int top = big[0];
    int acc = 0;
    for (int c = t; c < cols; c += TB)
        acc += top - vr[c];
    tot[t] = acc;
    __syncthreads();
    for (unsigned s = 1; s < TB; s *= 2) {
        if (t % (2 * s) == 0)
            tot[t] += tot[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = tot[0] * 2 + top;
}
