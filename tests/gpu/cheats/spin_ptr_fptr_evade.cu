// expect: race|local_state
// kernel: reduce_sum
// Class: 5 races, an attack on the static race rule as session 43 (REF13) left it:
// spin_ptr_call_evade.cu (thread 224's one volatile read of the per-block flag through a
// pointer handed over in shared memory; thread 0's chain in a `__noinline__` function) with
// thread 0's call made through a function pointer kept in a module variable (`hk_chain_fp =
// hk_chain`). REF13 closed spin_ptr_call_evade through the store order: a call of a function
// read before the kernel with no barrier in it (hk_chain) no longer ends it. An indirect call
// is never quiet (it may reach any function whose address the module takes), so the call
// before the second barrier stops the store order again, hk_zero is 5 or 0 for all the rule
// follows, and the loop is not judged; the flag read through a loaded pointer is no raced word
// (its address is data), and an indirect call senses only what some function of the module
// senses (none here: hk_chain reads shared memory alone). Expected: `race` (the pair read, lane
// t reads v[t + 16] stored by lane t + 16 the trip before, when not watched). What it gets: the
// static race rule passes it at reduce_sum's spec and at no shape (measured on the CPU in
// session 43, REF13, bench/results/2026-12-06-shared-race-cpu-s43.md), but the local-memory
// check, which comes before it, rejects it as `local_state` before any run (a call through a
// pointer: frames the scrub before each launch does not cover; `hkls verify-candidate` with
// no GPU). For the race rule it stays open (docs/referee.md, "A barrier that data decides",
// Not covered): closing it there needs a pointer followed through the shared word it was
// stored to, or an indirect call whose possible targets (the functions whose address the
// module takes) are all quiet let through the store order.
__device__ unsigned hk_flag[65536];
__device__ int hk_zero = 5; /* 0 after the second barrier in every block: thread 0 stores it */

/* thread 0's chain of 64 dependent shared loads, in a device function the compiler keeps (a
 * `call` in the PTX before the second barrier) */
__device__ __noinline__ int hk_chain(const int *chain, int k, int steps)
{
    for (int s = 0; s < steps; s++)
        k = chain[k];
    return k;
}

/* hk_chain's address, in a module variable: thread 0 calls it through a register */
__device__ int (*hk_chain_fp)(const int *, int, int) = hk_chain;

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
        int k = hk_chain_fp(chain, 0, 64);
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
