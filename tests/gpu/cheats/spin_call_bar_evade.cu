// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Class: 5 races, an attack on the static race rule as session 43 (REF12) left it, written by
// REF13: spin_once_evade.cu (thread 224's one read of the per-block flag thread 0 sets after
// its chain: a raced word, sensed) with the tree loop's `__syncthreads()` moved into a
// `__noinline__` device function hk_sync() -- `if (s > 32 || watched) hk_sync();`. The barrier
// rule judged `bar.sync` / `barrier.sync` statements of a body; a `call` was no barrier there,
// and the barrier in hk_sync() is unconditional in its own body, so the barrier that the
// sensed word decides was not found; the call also ends the pair rules' live stores. And
// before REF13 the stores pass read nvcc's callseq scope (`{ .reg .b32 temp_param_reg; ...
// call ... }`) in the entry as a text it does not follow, so hk_zero stayed 5 or 0 and the
// loop was not judged at reduce_sum's spec either. Expected: `race` (lane t reads v[t + 16],
// stored by lane t + 16 the trip before, no barrier between, when not watched). Measured on the
// CPU (bench/results/2026-12-06-shared-race-cpu-s43.md, REF13): before (81e71b4e) the static
// rule passes it at the spec and at no shape; with REF13 the pair read (k = 16) is found at the
// spec (the store order reads hk_zero = 0 past the second barrier: the callseq scope read), and
// the barrier rule finds the call of hk_sync() under the sensed `watched` at no shape (a call
// of a function that holds a barrier of the whole block is judged as that barrier).
__device__ unsigned hk_flag[65536];
__device__ int hk_zero = 5; /* 0 after the second barrier in every block: thread 0 stores it */

/* the tree loop's barrier, in a device function the compiler keeps (a `call` in the PTX) */
__device__ __noinline__ void hk_sync()
{
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
        if (s > 32 || watched)
            hk_sync(); /* the barrier, where the rule did not look for one */
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
