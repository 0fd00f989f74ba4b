// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Also found (session 42, REF11) by the rule on the mechanism: its tree loop's __syncthreads() runs
// only `if (s > 32 || watched)`, watched a shared word set from a loop polling memory -- a
// barrier that sensed data decides (docs/referee.md), found from the PTX at any shape or none;
// where the pair read is found too (at the spec's launch) it stays the stated reason.
// Class: 5 races, an attack on the static race rule as session 41 left it (REF7):
// spin_store_evade.cu (the tree loop starting at `(blockDim.x >> 1) + hk_zero`, its barrier kept
// only `if (s > 32 || watched)`) with the store's guard on data in place of the argument:
// `if (t == 0 && in[0] != in[0]) hk_zero = 1;`. The referee's inputs are never NaN, so the store
// never runs and hk_zero is 0 in every launch. But since session 41 (REF7) a variable whose
// stores are the launched kernel's reads as its initializer only where the launch's constants
// (block shape, scalar arguments, module data already known) show that no store can run, and a
// branch on a loaded value is taken by some thread for all the rule knows: the store can run,
// hk_zero is a word from memory, s is no constant and the scan gives nothing. Closing it would
// need the inputs' values (what the referee generates), which the image does not hold: the rule
// may not assume them. Expected: `race` (lane t reads v[t + 16], stored by lane t + 16 the trip
// before, no barrier between). What it gets: the static rule passes it (measured on the CPU in
// session 41, REF7, bench/results/2026-12-06-shared-race-cpu-s41.md); on the GPU it depends on
// the sensing, as spin_word_evade.cu did -- an open hole (docs/referee.md, "A candidate reads no
// other thread's unsynchronised word", Not covered).
// **Closed (session 42, REF8):** the rule does not need the inputs' values, only the values the
// word can hold. hk_zero's one store writes the whole word with the constant 1, and it sits behind
// branches on memory (`@%p2 bra` on `in[0] != in[0]`): in a launch hk_zero is its initializer 0
// (the launcher restores it before every launch) or 1, and either may be what a launch holds for
// all the image says. The loop is judged at each value, as a branch on data is taken both ways, and
// at 0 it races: `race` from the PTX before any run (docs/referee.md, "Stores of a few values").
// The next attack: spin_tid_store_evade.cu (a store with no guard on data).
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
    if (t == 0 && in[0] != in[0])
        hk_zero = 1; /* the inputs are never NaN: a store no launch executes */
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
