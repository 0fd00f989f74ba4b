// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// **Closed (session 42, REF11):** not by following the return, but by the mechanism the whole
// family shares: the tree loop's __syncthreads() runs only `if (s > 32 || watched)`, and watched
// is a shared word thread 224 stores from a loop polling `*flag` (a volatile load of a word the
// loop does not move). A barrier of the whole block control-dependent on a branch on such a
// sensed value is `race` (docs/referee.md "A barrier that data decides"): found from the PTX at
// reduce_sum's spec and at no shape (barrier PTX 355, kernel.cu 69, decided by the load of
// watched at PTX 349, kernel.cu 68), verify-candidate rejects it `race` on the CPU
// (bench/results/2026-12-06-shared-race-cpu-s42.md, REF11). The return stays outside the store
// order (the word is still not read as 0); the barrier rule does not need it.
// Class: 5 races, an attack on the static race rule as session 42 left it (REF10):
// spin_bar2_store_evade.cu with one line added at the top, `if (t >= (int)blockDim.x) return;`.
// No thread of any launch takes it (tid.x < blockDim.x always), so the kernel computes exactly
// what spin_bar2_store_evade.cu does: every block's thread 0 stores `hk_zero = 0` (the word
// initialised to 5) between the first and the second __syncthreads(), every thread reads 0 after
// the second, and the loop starts at blockDim.x / 2. But nvcc compiles the return as a branch
// from the top of the entry to its final `ret` (`@%p1 bra $L__BB0_19`), over both barriers, and
// the order the rule follows since session 42 (REF10, docs/referee.md "A store every block makes
// before its barrier") needs every barrier up to B executed once by every thread, with no branch
// of the entry over it: this one jumps over them, so no barrier qualifies, the word is 5 or 0 for
// all the rule follows, s is no constant and the scan gives nothing. Closing it needs a branch
// that no thread takes at the launch left out of the order (here its predicate is tid.x >=
// ntid.x, empty at the launch's block shape, computed before it on every way), as the stores
// pass leaves out an edge on a constant. Expected: `race` (lane t reads v[t + 16], stored by lane
// t + 16 the trip before, no barrier between). What it gets: the static rule passes it (measured
// on the CPU in session 42, REF10, bench/results/2026-12-06-shared-race-cpu-s42.md); on the GPU
// it depends on the sensing, as spin_word_evade.cu did -- an open hole (docs/referee.md, "A
// candidate reads no other thread's unsynchronised word", Not covered).
__device__ unsigned hk_flag[65536];
__device__ int hk_zero = 5; /* 0 after the second barrier in every block: thread 0 stores it */

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    __shared__ int chain[256];
    __shared__ int watched;
    int t = threadIdx.x;
    if (t >= (int)blockDim.x) /* no thread of any launch: tid.x < blockDim.x */
        return;
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
