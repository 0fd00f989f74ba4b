// expect: race|local_state
// kernel: reduce_sum
// judged from the PTX: race
// Class: 5 races, an attack on the static race rule as session 43 left it, written by REF13:
// spin_call_evade.cu (thread 224's polling loop in a `__noinline__` function, its count deciding
// the tree loop's barrier) with the call made through a function pointer kept in a module
// variable (`hk_fp = hk_polls`): nvcc loads the pointer and writes an indirect `call
// (retval0), %rd11, (param0), prototype_0;`. The rule knew what a call senses by the callee's
// name; through a register it knew nothing, so the returned count was data; and the call before
// the second barrier stops the store order (an indirect call is never quiet), so hk_zero stays 5
// or 0 and the pair read is not found. Expected: `race` (the pair read, when not watched).
// Measured on the CPU (bench/results/2026-12-06-shared-race-cpu-s43.md, REF13): the static rule
// passed it at the spec and at no shape; closed in the same branch: an indirect call does what
// any function of the module judged does (the union of their sensing), so `watched` is sensed
// and the tree loop's barrier it decides is found at the spec and at no shape. The referee's
// local-memory check comes first and rejects it as `local_state` (a call through a pointer:
// frames the scrub before each launch does not cover), so that is the verdict before any run.
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

/* the polling function's address, in a module variable: the call goes through a register */
__device__ int (*hk_fp)(volatile unsigned *) = hk_polls;

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
        watched = hk_fp(flag) > 48 || k < 0; /* thread 0 slowed per access, as under a tool */
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
