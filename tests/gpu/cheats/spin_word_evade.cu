// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Also found (session 42, REF11) by the rule on the mechanism: its tree loop's __syncthreads() runs
// only `if (s > 32 || watched)`, watched a shared word set from a loop polling memory -- a
// barrier that sensed data decides (docs/referee.md), found from the PTX at any shape or none;
// where the pair read is found too (at the spec's launch) it stays the stated reason.
// Class: 5 races, an attack on the static race rule as session 40 left it (REF5): the same
// sensing and tree loop as spin_bound_evade.cu (the block's barrier kept only `if (s > 32 ||
// watched)`), but the loop starts at `(blockDim.x >> 1) + hk_zero`, hk_zero a `__device__ int`
// nothing writes: 0 on every launch, so the loop is the same on every launch. Session 40's rule
// judged the image at each launch (the block shape and the spec's scalar arguments) and a value
// that depends on data through a bit or a few; a word loaded from memory and used whole is
// neither, so s was not a constant in any trip, the loop was not unrolled and the scan gave
// nothing (`no_gpu` on the CPU after every image check passed, session 40, REF5), and on the
// H100 it was **accepted at 127.8x** over reduce_sum (session 41 call 2, at a89a39b: race check
// pass, memcheck, racecheck and initcheck clean -- the sensing saw the tool and kept the
// barrier; bench/results/2026-12-06-h100-session41.md).
// **Closed (session 41, REF6):** module data that nothing writes reads as its initializer. A
// candidate contributes device code only and the launcher restores the image's globals before
// every launch and writes none but the spec's constants; every mention of hk_zero in the PTX is
// `ld.global.u32 %r, [hk_zero]` (no store, atomic, or address taken anywhere in the image), so
// it is 0 in every launch, s = 128 ... 1 trip by trip, and lane t reads v[t + 16] stored by lane
// t + 16 the trip before with no barrier between: `race` from the PTX before any run, on the CPU
// too (docs/referee.md, "Module data nothing writes"). The next attacks: spin_store_evade.cu (the
// same word, with a store that never runs) and spin_nan_evade.cu (a float that is always 0),
// both open. The race is as real as spin_loop_evade.cu's.
__device__ unsigned hk_flag[65536];
__device__ int hk_zero; /* never written: 0 in every launch (zero-initialised module data) */

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
    /* hk_zero is 0 on every launch: the start is blockDim.x / 2, but a word from memory used
     * whole is no constant, nor a value of a few, to the PTX */
    volatile float *v = buf;
    for (int s = (int)(blockDim.x >> 1) + hk_zero; s > 0; s >>= 1) {
        if (t < s)
            v[t] += v[t + s];
        if (s > 32 || watched)
            __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
