// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Also found (session 42, REF11) by the rule on the mechanism: its tree loop's __syncthreads() runs
// only `if (s > 32 || watched)`, watched a shared word set from a loop polling memory -- a
// barrier that sensed data decides (docs/referee.md), found from the PTX at any shape or none;
// where the pair read is found too (at the spec's launch) it stays the stated reason.
// Class: 5 races, an attack on the static race rule as session 42 left it (REF9):
// spin_tid_store_evade.cu with the store moved past the block's first barrier: thread 0 stores
// `hk_zero = 0` (the word initialised to 5) inside its chain branch, between the first
// __syncthreads() and the second. Every thread reads hk_zero after the second barrier, so it
// reads 0 (the second barrier orders thread 0's store before every load of its block, and every
// other block stores the same 0): the loop starts at blockDim.x / 2 on every launch. But the
// order the rule follows since session 42 (REF9, docs/referee.md "A store every block makes
// before its barrier") is the block's *first* barrier only, with the store on the straight way
// to it; this store lies past that barrier, under the branch `t == 0` that also holds the chain's
// loop, so the initializer 5 is not ruled out, the word is 5 or 0 for all the rule follows, s is
// no constant and the scan gives nothing. Closing it needs the order followed past the first
// barrier (a barrier every thread reaches once, after a region that the store's thread passes
// through, its loops included), not followed today. Expected: `race` (lane t reads v[t + 16],
// stored by lane t + 16 the trip before, no barrier between). What it gets: the static rule
// passes it (measured on the CPU in session 42, REF9, bench/results/2026-12-06-shared-race-cpu-s42.md);
// on the GPU it depends on the sensing, as spin_word_evade.cu did -- an open hole
// (docs/referee.md, "A candidate reads no other thread's unsynchronised word", Not covered).
// **Closed (session 42, REF10):** the order is followed to any barrier of the whole block. The
// second barrier B (`bar.sync 0`, unguarded) has no branch of the entry over it or back over it,
// nor has the first, so every thread executes each once, in text order; before B there is no
// ret, call or partial barrier. The one store of hk_zero writes the constant 0; a thread with
// tid.x = 0 cannot reach B without executing it: from the entry, that thread takes the branch
// `@%p2 bra` (tid.x == 0) to the chain (a predicate of tid.x alone, computed before it on every
// way), falls through the chain to the store, and no branch between the store and B goes back.
// So in every block the store comes before that thread's arrival at B, and a load of hk_zero past
// B in the text comes after the loading thread passed B in the same round: it reads 0 (or a
// store coherence-later, also 0), never 5. The loop is judged at 0 and races: `race` from the PTX
// before any run (docs/referee.md, "A store every block makes before its barrier"). The next
// attack: spin_ret_store_evade.cu (a return no thread takes, jumping over both barriers).
__device__ unsigned hk_flag[65536];
__device__ int hk_zero = 5; /* 0 after the second barrier in every block: thread 0 stores it */

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
        hk_zero = 0; /* every block, between its barriers: 0 wherever it is read below */
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
    /* hk_zero is 0 here in every block: the start is blockDim.x / 2, but the word holds 5 or 0
     * for all the rule follows */
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
