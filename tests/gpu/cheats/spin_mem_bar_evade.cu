// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Class: 5 races, an attack on the static race rule as session 43 (REF13) left it:
// spin_arg_bar_evade.cu with the decision handed over through memory, not as a value: each
// thread stores `go = s > 32 || watched` in its own stack and calls `hk_sync_at(&go)`, which
// runs `__syncthreads()` only when `*go` is true. REF13 marks a function whose barrier a value
// of its parameters decides, and a call of it is a sensed barrier where an argument is sensed;
// here the argument is the address of the caller's own stack word (not sensed), and in the
// callee the deciding load reads memory no store of that function writes (sensing through
// memory is followed within one function only). Expected: `race` (lane t reads v[t + 16],
// stored by lane t + 16 the trip before, no barrier between, when not watched). What it gets:
// the static rule passes it at reduce_sum's spec and at no shape, and `hkls verify-candidate`
// with no GPU passes every image check (measured on the CPU in session 43, REF13,
// bench/results/2026-12-06-shared-race-cpu-s43.md) -- written as the next attack after the
// parameter rule. (The pointer is to a volatile word: with a plain one nvcc passes the value,
// and spin_arg_bar_evade's rule finds it.) Closed in the same branch (REF13): a device
// function whose barrier memory its parameters point to decides (a load through a parameter's
// value, and what it computes) is marked, and a call of it that a store of a sensed value to
// memory can run before is a barrier that sensed data decides (the call read as a load of any
// memory): `race` from the PTX at the spec and at no shape.
__device__ unsigned hk_flag[65536];
__device__ int hk_zero = 5; /* 0 after the second barrier in every block: thread 0 stores it */

/* the tree loop's barrier, in a device function the compiler keeps (a `call` in the PTX),
 * taken when the word its argument points to says so (volatile: nvcc passes the address, not
 * the value) */
__device__ __noinline__ void hk_sync_at(const volatile int *go)
{
    if (*go)
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
        volatile int go = s > 32 || watched; /* the decision, in the thread's own stack */
        hk_sync_at(&go); /* every thread calls; the callee reads it and decides */
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
