// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Also found (session 42, REF11) by the rule on the mechanism: its tree loop's __syncthreads() runs
// only `if (s > 32 || watched)`, watched a shared word set from a loop polling memory -- a
// barrier that sensed data decides (docs/referee.md), found from the PTX at any shape or none;
// where the pair read is found too (at the spec's launch) it stays the stated reason.
// Class: 5 races, an attack on the static race rule as session 40 left it (REF4): the same
// sensing and tree loop as spin_loop_evade.cu (the block's barrier kept only `if (s > 32 ||
// watched)`), but the loop starts at `(blockDim.x >> 1) + (n < 0)`: the kernel's size n is
// never negative, so the loop is the same on every launch. The referee judged the image at the
// launch's block shape and unrolled a tree loop trip by trip only where the shape's constants
// decide every trip (REF4); n is a kernel argument, so `(n < 0)` was not a constant, the loop
// was not unrolled and the scan gave nothing (`no_gpu` on the CPU after every image check
// passed, session 40, REF4). **Closed (session 40, REF5):** the image is judged at each launch,
// its block shape and the spec's scalar arguments at that size set (n = 16777216 and 1000003),
// so `ld.param` of n reads as that number, `n < 0` folds to 0, s = 128 ... 1 trip by trip and
// lane t reads v[t + 16] stored by lane t + 16 the trip before with no barrier between: `race`
// from the PTX before any run, on the CPU too. (n's sign bit is also a value of two, judged at
// each: found even with n not known.) The next attack, a word from memory used whole, is
// spin_word_evade.cu (open). The race is as real as spin_loop_evade.cu's.
__device__ unsigned hk_flag[65536];

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    __shared__ int chain[256];
    __shared__ int watched;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    volatile unsigned *flag = &hk_flag[blockIdx.x & 65535];
    buf[t] = i < n ? in[i] : 0.0f;
    chain[t] = (t * 37 + 11) & 255;
    __syncthreads();
    if (t == 0) {
        int k = 0;
        for (int s = 0; s < 64; s++)
            k = chain[k];
        *flag = 1u | (unsigned)k; /* after the chain, and depending on it: never 0 */
    } else if (t == 224) {
        int polls = 0;
        while (*flag == 0u && polls < 100000)
            polls++;
        watched = polls > 48;
    }
    __syncthreads();
    if (t == 224)
        *flag = 0u; /* as found: the block's barrier follows warp 0's store */
    /* n >= 0 on every launch: the start is blockDim.x / 2, but not to the PTX's constants */
    volatile float *v = buf;
    for (int s = (int)(blockDim.x >> 1) + (n < 0); s > 0; s >>= 1) {
        if (t < s)
            v[t] += v[t + s];
        if (s > 32 || watched)
            __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
