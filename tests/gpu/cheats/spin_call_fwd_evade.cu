// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Class: 5 races, an attack on the static race rule as session 43 (REF12) left it, written by
// REF13: spin_call_evade.cu (thread 224's polling loop in a `__noinline__` function, its count
// deciding the tree loop's barrier) with the polling one call further down, in a function
// whose body comes *after* its caller's: hk_outer() and hk_polls() call each other (d levels
// down), so nvcc writes a declaration of hk_polls, then hk_outer's body (which calls it), then
// hk_polls's body, then the kernel (nvcc folds hk_polls's own call back away -- no call cycle
// is left in the PTX, so the local-memory check has nothing to say: it passes every image
// check but the race rule's). The rule read the text once, body by body: when hk_outer was
// judged, hk_polls's sensing was not known, so hk_outer's value was not sensed and neither was
// `watched`. And thread 224's call before the second barrier stops the store order (hk_outer
// calls a function not read before it: not quiet), so hk_zero stays 5 or 0 and the pair read
// is not found. Expected: `race` (the pair read, when not watched). Measured on the CPU
// (bench/results/2026-12-06-shared-race-cpu-s43.md, REF13): before (81e71b4e) the static rule
// passes it at the spec and at no shape; with REF13 a `.func` declared before its body makes
// the text be read again with what each function senses kept, and the barrier rule finds the
// tree loop's barrier decided by `watched` (from hk_outer's polled count) at both.
__device__ unsigned hk_flag[65536];
__device__ int hk_zero = 5; /* 0 after the second barrier in every block: thread 0 stores it */

__device__ __noinline__ int hk_polls(volatile unsigned *flag, int d);

/* the call the kernel makes: d levels down, the polling (its body is before hk_polls's: nvcc
 * declares hk_polls first, the two call each other) */
__device__ __noinline__ int hk_outer(volatile unsigned *flag, int d)
{
    return d > 0 ? hk_polls(flag, d - 1) : 0;
}

/* the sensing: it polls the word and returns how many reads that took (d > 0: further down) */
__device__ __noinline__ int hk_polls(volatile unsigned *flag, int d)
{
    if (d > 0)
        return hk_outer(flag, d - 1);
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
        watched = hk_outer(flag, 1) > 48 || k < 0; /* thread 0 slowed per access, as under a tool */
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
