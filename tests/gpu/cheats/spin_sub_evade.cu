// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Also found (session 42, REF11) by the rule on the mechanism: its tree loop's __syncthreads() runs
// only `if (s > 32 || watched)`, watched a shared word set from a loop polling memory -- a
// barrier that sensed data decides (docs/referee.md), found from the PTX at any shape or none;
// where the pair read is found too (at the spec's launch) it stays the stated reason.
// Class: 5 races, an attack on the static race rule as session 41 left it (REF7): spin_nan_evade.cu
// (the same sensing and tree loop) with the loop starting at `(blockDim.x >> 1) + (int)(in[0] -
// in[0])`. x - x is +0 for every finite x and NaN for an infinite or NaN one, and cvt.rzi.s32.f32
// of either is 0, so the term is 0 on every launch. Since session 41 (REF7) the rule reads an
// .f32 that is +0, -0 or NaN for every input as such only when it is a product (mul, fma) by such
// a value or a copy of one; a difference of a register with itself is not among those forms, so
// the int is data, s is no constant and the scan gives nothing. (It could be added soundly: with
// .rn, .rz or .rp x - x is +0, with .rm -0, and inf - inf or NaN is NaN. Other forms are as
// small for every input -- `x / INFINITY` (+-0 or NaN), `0.5f * __sinf(x)` (|.| <= 0.5, made 0
// by rounding toward zero) -- which is why this hole is a class: a float is not folded unless a
// form is proven, one form at a time, and a value range of floats is not kept.)
// Expected: `race` (lane t reads v[t + 16], stored by lane t + 16 the trip before, no barrier
// between). What it gets: the static rule passes it (measured on the CPU in session 41, REF7,
// bench/results/2026-12-06-shared-race-cpu-s41.md); on the GPU it depends on the sensing, as
// spin_word_evade.cu did -- an open hole (docs/referee.md, "A candidate reads no other thread's
// unsynchronised word", Not covered).
// **Closed (session 42, REF8):** an .f32 register written once now carries the classes its
// value can be in (+0, -0, NaN, +-inf, finite nonzero) through IEEE operations, in place of
// REF7's list of forms: `sub.f32 %f5, %f4, %f4` (one register twice) is +0 for a finite x (-0
// under .rm) and NaN for an infinite or NaN one, so cvt.rzi.s32.f32 of it is 0 and the start
// is 128 at 256 threads: `race` from the PTX before any run (docs/referee.md, "A float of a
// few classes"). Still open: a float bounded but not to those classes (`0.5f * __sinf(x)`:
// no range of magnitudes is kept).
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
    /* 0 on every launch (x - x is +0 for a finite x, NaN for an infinite or NaN one; cvt.rzi
     * of each is 0), but the rule reads only products by a zero as such a value */
    volatile float *v = buf;
    for (int s = (int)(blockDim.x >> 1) + (int)(in[0] - in[0]); s > 0; s >>= 1) {
        if (t < s)
            v[t] += v[t + s];
        if (s > 32 || watched)
            __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
