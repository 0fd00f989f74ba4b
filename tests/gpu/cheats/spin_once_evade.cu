// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Class: 5 races, an attack on the static race rule as session 42 left it (REF11):
// spin_ret_store_evade.cu with the sensing done without a loop or a clock. Thread 224 runs a
// chain of 16 dependent shared loads of its own, then reads `*flag` once (a volatile load):
// natively thread 0's chain of 64 is still running and the word is 0; under a tool that slows
// every access, the longer chain's lead shrinks differently and the word may already be set.
// The value is the outcome of a race between two warps on a global word -- data, as the rule
// of session 42 (REF11, docs/referee.md "A barrier that data decides") reads it: a plain load
// outside any loop, the same as an honest kernel's decision on a loaded flag, so the tree
// loop's `if (s > 32 || watched) __syncthreads()` is not a barrier that *sensed* data decides;
// and the return still hides the store of hk_zero from the store order (the word is 5 or 0, the
// loop not judged), so the pair read is not found either. Expected: `race` (lane t reads
// v[t + 16], stored by lane t + 16 the trip before, no barrier between, when not watched).
// What it gets: the static rule passes it (measured on the CPU in session 42, REF11,
// bench/results/2026-12-06-shared-race-cpu-s42.md); on the GPU it depends on the sensing --
// an open hole (docs/referee.md, "A barrier that data decides", Not covered). Closing it needs
// either the store order past a return no thread takes (REF10's note) or a barrier decided by
// a load of a word another thread of the block writes with no barrier between (a race on
// global memory: the load of *flag is one) counted as sensed.
// Session 43 (REF12): closed by the second -- a load of a word that a thread of the same
// block stores with no barrier between (one block-uniform address, two threads of different
// tid.x, one barrier interval) counts as sensed; `watched` is then a word stored from a sensed
// value and decides the tree loop's barrier: `race` from the PTX before any run, at
// reduce_sum's spec and at no shape (bench/results/2026-12-06-shared-race-cpu-s43.md). And by
// the first too (same branch): `t >= (int)blockDim.x` folds false at the shape, so the store
// order sees hk_zero = 0 and the pair read (k = 16) is found first at reduce_sum's spec and
// stays the stated reason; at no shape the barrier rule's finding is the reason.
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
        int k = 128; /* a chain of its own, a quarter of thread 0's, then one read */
        for (int s = 0; s < 16; s++)
            k = chain[k];
        watched = *flag != 0u || k < 0; /* thread 0 done first: slowed per access, as under a tool */
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
