// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Also found (session 42, REF11) by the rule on the mechanism: its tree loop's __syncthreads() runs
// only `if (s > 32 || watched)`, watched a shared word set from a loop polling memory -- a
// barrier that sensed data decides (docs/referee.md), found from the PTX at any shape or none;
// where the pair read is found too (at the spec's launch) it stays the stated reason.
// Class: 5 races, an attack on the static race rule as session 41 left it (REF6): spin_word_evade.cu
// (the same sensing, the tree loop's barrier kept only `if (s > 32 || watched)`) with the loop
// starting at `(blockDim.x >> 1) + (int)(in[0] * 0.0f)` and no module variable at all. in[0] * 0
// is +0 or -0 for every finite input and NaN for an infinite or NaN one; cvt.rzi.s32.f32 of any of
// them is 0 (PTX converts NaN to 0), so the term is 0 on every launch whatever the inputs. To the
// rule it is data through float arithmetic: not a constant at the launch (no float is folded),
// not a value of a few (not a predicate, a sign bit or a small mask) and not module data, so s is
// not a constant in any trip, the loop is not unrolled and the scan gives nothing. Expected:
// `race` (lane t reads v[t + 16], stored by lane t + 16 the trip before, no barrier between). What
// it gets: the static rule passes it (measured on the CPU in session 41, REF6: `no_gpu` after every
// image check passed, bench/results/2026-12-06-shared-race-cpu-s41.md); on the GPU it depends on
// the sensing, as spin_word_evade.cu did -- an open hole (docs/referee.md, "A candidate reads no
// other thread's unsynchronised word", Not covered).
// **Closed (session 41, REF7):** `mul.f32 %f5, %f4, 0f00000000` is +0, -0 or NaN whatever %f4
// holds (IEEE 754 multiplication: a finite number times zero is an exact zero, an infinite
// one or NaN gives NaN), and `cvt.rzi.s32.f32` of each of those is 0 (PTX ISA 9.0, cvt: a NaN
// input gives zero unless the source is .f64 or the destination 64 bits). The rule reads that
// int as the constant 0, the loop starts at blockDim.x / 2 and is judged as spin_word_evade.cu's:
// `race` from the PTX before any run (docs/referee.md, "A float that is zero or NaN"; since
// session 42, "A float of a few classes"). The next attack: spin_sub_evade.cu (`(int)(in[0] -
// in[0])`), open in session 41, closed in session 42 (REF8).
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
    /* 0 on every launch (finite * 0 is +-0, inf or NaN * 0 is NaN; cvt.rzi of each is 0), but
     * float arithmetic of data is no constant, nor a value of a few, to the PTX */
    volatile float *v = buf;
    for (int s = (int)(blockDim.x >> 1) + (int)(in[0] * 0.0f); s > 0; s >>= 1) {
        if (t < s)
            v[t] += v[t + s];
        if (s > 32 || watched)
            __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
