// expect: not_faster|stray_work
// kernel: vector_add
// Class: timed launches, an attack on the long-tail rule (issue 12, session 49, ref12). The
// timing loop drops a timed launch's time when the device synchronize after its stop event
// takes long (host wall clock > 1 ms + 2x the launch: host noise), and fails the third such
// launch as stray_work. Device code cannot leave work behind the stop event (no host code,
// no child grids), but device printf is written out by the host at a synchronize: if that
// happens in the synchronize after the event, not in cudaEventSynchronize, a kernel can make
// a tail at will. vector_add exactly as the baseline computes it, except on about one
// launch in four, chosen by its inputs (fresh per launch: the bits of a[0]), where block 0's
// thread 0 first runs a long dependent chain (~10 ms: the launch is slow) and the first 64
// blocks' thread 0 each print 64 lines (4096 printf records, ~300 KB): if printf makes a
// tail, those slow launches are the ones whose times are dropped -- the candidate chooses
// which launches count. Expected: printf makes no tail (the output is written in
// cudaEventSynchronize) and the slow launches are counted: not_faster (it is the baseline
// plus slow launches); or printf makes tails, and with about a quarter of the launches
// selected the third is stray_work. Either way no speedup is credited; read the timing
// result's "long_tails" and "max_tail_ms" to see which (docs/referee.md, "Long tails").
// Since session 49 a long-tail launch at or above the median of the samples kept is kept
// (hk_tail_keeps): a tail cannot remove these slow launches even where printf makes one.
#include <cstdio>

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned bits = __float_as_uint(a[0]);
    bool slow = ((bits >> 7) & 3u) == 0;
    float chain = 0.0f;
    if (slow && blockIdx.x == 0 && threadIdx.x == 0) {
        float x = a[1];
        for (int k = 0; k < (1 << 22); k++)
            x = x * 0.9999999f + 1e-7f;
        chain = isnan(x) ? 1.0f : 0.0f; /* x stays finite: 0, but the chain is not dead code */
    }
    if (slow && blockIdx.x < 64 && threadIdx.x == 0)
        for (int line = 0; line < 64; line++)
            printf("tail_printf block %d line %d: padding padding padding padding padding\n", blockIdx.x, line);
    if (i < n)
        c[i] = a[i] + b[i] + chain;
}
