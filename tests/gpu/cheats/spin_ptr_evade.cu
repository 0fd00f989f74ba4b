// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Class: 5 races, an attack on the static race rule (session 43, REF12, after its raced word):
// spin_once_evade.cu with thread 224's one volatile read of the per-block flag made through a
// pointer thread 0 hands over in a shared word before the first barrier (`seen = flag`). REF12
// counts as sensed a load of a word that a thread of the same block stores with no barrier
// between, where the two addresses are one block-uniform value the scan can name; here the
// store writes through `flag` (hk_flag + 4 * (blockIdx.x & 65535)) and the load through a
// pointer loaded from shared memory -- a value of data, unequal for all the scan knows -- so
// the read is data again, the tree loop's `if (s > 32 || watched) __syncthreads()` is not a
// barrier that sensed data decides, and the return no thread takes still hides the store of
// hk_zero from the store order. Expected: `race` (lane t reads v[t + 16], stored by lane
// t + 16 the trip before, no barrier between, when not watched). What it gets: the static rule
// passes it (measured on the CPU in session 43, REF12,
// bench/results/2026-12-06-shared-race-cpu-s43.md); on the GPU it depends on the sensing -- an
// open hole (docs/referee.md, "A barrier that data decides", Not covered). Closing it needs a
// pointer followed through the shared word it was stored to (a store of a uniform address
// makes the word's later loads that address), or the store order past a return no thread
// takes (REF10's note).
// Session 43 (REF12, the same branch): closed by the second -- a tid.x predicate false (or
// true) for every tid.x the block has is a constant at the shape, so `t >= (int)blockDim.x`
// folds false at reduce_sum's 256 threads, the branch to the final `ret` no longer jumps over
// the barriers for the store order, `hk_zero` is 0 past the second barrier and the tree loop's
// pair read is found: `race` from the PTX before any run (k = 16, PTX 397 after 399). Its
// sensing still passes; tests/gpu/cheats/spin_ptr_call_evade.cu is the next attack.
__device__ unsigned hk_flag[65536];
__device__ int hk_zero = 5; /* 0 after the second barrier in every block: thread 0 stores it */

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    __shared__ int chain[256];
    __shared__ int watched;
    __shared__ volatile unsigned *seen; /* the flag's address, handed over through shared memory */
    int t = threadIdx.x;
    if (t >= (int)blockDim.x) /* no thread of any launch: tid.x < blockDim.x */
        return;
    int i = blockIdx.x * blockDim.x + t;
    volatile unsigned *flag = &hk_flag[blockIdx.x & 65535];
    buf[t] = i < n ? in[i] : 0.0f;
    chain[t] = (t * 37 + 11) & 255;
    if (t == 0)
        seen = flag;
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
        watched = *seen != 0u || k < 0; /* the same word, read through the shared pointer */
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
