// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Also found (session 42, REF11) by the rule on the mechanism: its tree loop's __syncthreads() runs
// only `if (s > 32 || watched)`, watched a shared word set from a loop polling memory -- a
// barrier that sensed data decides (docs/referee.md), found from the PTX at any shape or none;
// where the pair read is found too (at the spec's launch) it stays the stated reason.
// Class: 5 races, an attack on the static race rule as session 42 left it (REF8):
// spin_guard_evade.cu with the store taken out from under its guard on data and the initializer
// changed: `__device__ int hk_zero = 5;` and `if (t == 0) hk_zero = 0;` before the block's first
// barrier. Every block's thread 0 stores 0 before __syncthreads(), so every thread of the block
// reads hk_zero as 0 after it (the barrier orders the block's memory accesses, and every other
// block stores the same 0): the loop starts at blockDim.x / 2 on every launch. But since session
// 42 (REF8) a word's initializer and the values its stores write are judged one by one only when
// each store sits behind a branch on memory (either value may be what a launch holds); this store
// runs whatever the data, so the initializer 5 may never be seen, and judging at it could call an
// honest kernel racy. The values 5 and 0 differ, so the word is unknown, s is no constant and the
// scan gives nothing. Closing it needs an order: a store that writes the same value in every block
// and reaches every load of the word through a block barrier in the same thread block makes the
// initializer unseen -- not followed today. Expected: `race` (lane t reads v[t + 16], stored by
// lane t + 16 the trip before, no barrier between). What it gets: the static rule passes it
// (measured on the CPU in session 42, REF8, bench/results/2026-12-06-shared-race-cpu-s42.md); on
// the GPU it depends on the sensing, as spin_word_evade.cu did -- an open hole (docs/referee.md,
// "A candidate reads no other thread's unsynchronised word", Not covered).
// **Closed (session 42, REF9):** the order is followed. The one store writes the whole word with
// the constant 0; it runs in the thread with tid.x = 0 of every block (its branch `@%p1 bra` is on
// tid.x != 0 alone: no data), before the block's first barrier, which is unguarded and reached
// by every thread with no way back before it (every branch before it forward to a label before
// it; no ret, call or loop there). A load of hk_zero past that barrier in reduce_sum happens
// after a store of 0 in its own block (bar.sync orders the block's memory accesses), so it reads
// that 0 or a store coherence-later, also 0 -- never the initializer 5. The loop is judged at 0
// and races: `race` from the PTX before any run (docs/referee.md, "A store every block makes
// before its barrier"). The next attack: spin_bar2_store_evade.cu (the store after the first
// barrier, before the second).
__device__ unsigned hk_flag[65536];
__device__ int hk_zero = 5; /* 0 after the first barrier in every block: thread 0 stores it */

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    __shared__ int chain[256];
    __shared__ int watched;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    volatile unsigned *flag = &hk_flag[blockIdx.x & 65535];
    if (t == 0)
        hk_zero = 0; /* every block, before its barrier: the word is 0 wherever it is read */
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
