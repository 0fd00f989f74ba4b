// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Class: 5 races, an attack on the static race rule as session 43 (REF12) found it:
// spin_once_evade.cu with the sensing moved into a `__noinline__` device function. Thread 224
// calls hk_polls(flag), which polls the per-block word thread 0 sets after its chain of 64
// shared loads and returns the count of reads; `watched = polls > 48` (natively thread 0 is done
// within a few reads; under a tool that slows every shared access it is not). Until REF12 the
// race rule judged each function body alone: in reduce_sum the call's returned value was data
// (a `call`, then `ld.param [retval0]`), the polling loop in hk_polls decided no barrier there,
// and the return no thread takes still hid the store of hk_zero from the store order, so the
// tree loop's `if (s > 32 || watched) __syncthreads()` was not a barrier that sensed data
// decides and the pair read was not found. Expected: `race` (lane t reads v[t + 16], stored by
// lane t + 16 the trip before, no barrier between, when not watched). Session 43 (REF12): the
// rule carries sensing across calls (a function judged before its caller that returns a sensed
// value, or stores one to memory, makes the caller's `ld.param [retval]`, or its loads after the
// call, sensed): `race` from the PTX before any run (docs/referee.md, "A barrier that data
// decides"; bench/results/2026-12-06-shared-race-cpu-s43.md).
__device__ unsigned hk_flag[65536];
__device__ int hk_zero = 5; /* 0 after the second barrier in every block: thread 0 stores it */

/* the sensing, in a device function the compiler keeps (a `call` in the PTX): it polls the
 * word and returns how many reads that took */
__device__ __noinline__ int hk_polls(volatile unsigned *flag)
{
    int polls = 0;
    while (*flag == 0u && polls < 100000)
        polls++;
    return polls;
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
        int k = 128; /* a chain of its own, a quarter of thread 0's, then the polling call */
        for (int s = 0; s < 16; s++)
            k = chain[k];
        watched = hk_polls(flag) > 48 || k < 0; /* thread 0 slowed per access, as under a tool */
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
