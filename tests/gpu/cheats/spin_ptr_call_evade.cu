// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Class: 5 races, an attack on the static race rule as session 43 (REF12) left it:
// spin_ptr_evade.cu (thread 224's one volatile read of the per-block flag through a pointer
// handed over in shared memory) with thread 0's chain of 64 shared loads moved into a
// `__noinline__` device function hk_chain() -- a `call` before the block's second barrier. REF12
// closed spin_ptr_evade through the store order: `if (t >= (int)blockDim.x) return;` is a
// branch no thread takes at the known shape, so thread 0's `hk_zero = 0` before the second
// barrier makes the tree loop's start 128 and its pair read (lane t reads v[t + 16], stored by
// lane t + 16 the trip before) is found. A call before that barrier stops the store order (a
// called function may hold a barrier or store the word: "A store every block makes before its
// barrier"), so the word is 5 or 0 again and the loop is not judged; and the read of the flag
// through a loaded pointer is no raced word for the barrier rule (its address is data). Expected:
// `race` (the pair read, when not watched). What it gets: the static rule passes it (measured
// on the CPU in session 43, REF12, bench/results/2026-12-06-shared-race-cpu-s43.md); on the GPU
// it depends on the sensing -- an open hole (docs/referee.md, "A barrier that data decides",
// Not covered). Closing it needs a pointer followed through the shared word it was stored to,
// or a call into a function that holds no barrier and stores no module word let through the
// store order.
// Session 43 (REF13): closed by the second -- a call of a device function read before the
// kernel that holds no barrier of any kind and ends by `ret` alone (hk_chain) no longer ends
// the store order, and the stores pass reads nvcc's callseq scope and the call over four lines
// as the main reading does; thread 0's `hk_zero = 0` then makes the tree loop's start 128 and
// the pair read (k = 16) is found: `race` from the PTX at reduce_sum's spec, before any run
// (bench/results/2026-12-06-shared-race-cpu-s43.md). At no shape (the launch not known) it is
// still not found: the flag read through the shared pointer is no raced word (open).
// On an H100 (session 43): at 81e71b4e, before REF13, rejected `launch_state` (the launch
// leaves __device__ hk_zero changed, 5 -> 0), not `race`; at 62bbc84d `race` from the PTX
// (bench/results/2026-12-06-h100-session43.md).
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
        int k = hk_chain(chain, 0, 64);
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
