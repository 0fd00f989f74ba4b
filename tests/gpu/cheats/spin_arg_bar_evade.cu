// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Class: 5 races, an attack on the static race rule as session 43 (REF13) left it:
// spin_call_bar_evade.cu with the decision moved into the called function too --
// `hk_sync_if(s > 32 || watched)`, every thread calls it, and hk_sync_if(w) runs
// `__syncthreads()` only when its argument is true. REF13 judges a call of a function that
// holds a barrier as that barrier in the caller, but this call is unconditional (no sensed
// branch or guard over it), and inside hk_sync_if the barrier's branch is on a parameter --
// no sensed value there, the callee being judged alone. Expected: `race` (lane t reads
// v[t + 16], stored by lane t + 16 the trip before, no barrier between, when not watched).
// What it gets: the static rule passed it at reduce_sum's spec and at no shape (the call in
// every trip ends the pair rules' live stores, though the store order now reads hk_zero = 0)
// -- measured on the CPU in session 43, REF13, bench/results/2026-12-06-shared-race-cpu-s43.md.
// Closed in the same branch: a device function whose barrier of the whole block a value of its
// own parameters decides (a taint from its `ld.param`s, under the same two conditions) is
// marked, and a call of it whose argument (the callseq's `st.param` before the call) is sensed
// is a barrier that sensed data decides in the caller: `race` from the PTX at the spec and at
// no shape, decided by the load of `watched`.
__device__ unsigned hk_flag[65536];
__device__ int hk_zero = 5; /* 0 after the second barrier in every block: thread 0 stores it */

/* the tree loop's barrier, in a device function the compiler keeps (a `call` in the PTX),
 * taken when its argument says so */
__device__ __noinline__ void hk_sync_if(int w)
{
    if (w)
        __syncthreads();
}

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
        hk_sync_if(s > 32 || watched); /* every thread calls; the callee decides */
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
