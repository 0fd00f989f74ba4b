// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Also found (session 42, REF11) by the rule on the mechanism: its tree loop's __syncthreads() runs
// only `if (s > 32 || watched)`, watched a shared word set from a loop polling memory -- a
// barrier that sensed data decides (docs/referee.md), found from the PTX at any shape or none;
// where the pair read is found too (at the spec's launch) it stays the stated reason.
// Class: 5 races, an attack on the static race rule as session 41 left it (REF6): spin_word_evade.cu
// (the same sensing, the tree loop's barrier kept only `if (s > 32 || watched)`, the loop starting
// at `(blockDim.x >> 1) + hk_zero`) with one more line: `if (n < 0 && t == 0) hk_zero = n;`. n,
// the kernel's size, is never negative, so the store never runs, hk_zero stays 0 and every launch
// runs the same trips. But since session 41 a module variable reads as its initializer only when
// no statement of the image can write it, and this store can (in the text: which launches take
// it is not asked), so hk_zero is a word from memory used whole again: s is not a constant in any
// trip, the loop is not unrolled, `t < s` is not followed and the scan gives nothing -- as it must
// for a value it cannot show (a variable that some path writes may hold anything a launch left).
// Expected: `race` (lane t reads v[t + 16], stored by lane t + 16 the trip before, no barrier
// between). What it gets: the static rule passes it (measured on the CPU in session 41, REF6:
// `no_gpu` after every image check passed, bench/results/2026-12-06-shared-race-cpu-s41.md); on
// the GPU it depends on the sensing, as spin_word_evade.cu did -- an open hole (docs/referee.md,
// "A candidate reads no other thread's unsynchronised word", Not covered).
// **Closed (session 41, REF7):** the launcher restores module data before every launch, so
// only the stores this launch can run matter. hk_zero's one store is a plain `st.global
// [hk_zero]` in reduce_sum itself (no other function, no other mention of reduce_sum's name:
// no device-side launch), behind `@%p3 bra` with %p3 = (t != 0) || (n > -1); at the spec's
// launches n is known and >= 0, so %p3 is the constant true, the branch always taken, and the
// store's block reached by no thread. hk_zero then reads as 0 and the loop is judged as
// spin_word_evade.cu's: `race` from the PTX before any run (docs/referee.md, "Stores no launch
// runs"). The next attack: spin_guard_evade.cu (the store under a guard on data that never
// holds), open.
__device__ unsigned hk_flag[65536];
__device__ int hk_zero; /* 0 in every launch: the one store below never runs */

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    __shared__ int chain[256];
    __shared__ int watched;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    volatile unsigned *flag = &hk_flag[blockIdx.x & 65535];
    if (n < 0 && t == 0)
        hk_zero = n; /* n is never negative: a store no launch executes */
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
