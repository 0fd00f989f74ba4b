// expect: race
// kernel: reduce_sum
// Class: 5 races, an attack on the static race rule as session 40 left it (REF4): the same
// sensing and tree loop as spin_loop_evade.cu (the block's barrier kept only `if (s > 32 ||
// watched)`), but the loop starts at `(blockDim.x >> 1) + (n < 0)`: the kernel's size n is
// never negative, so the loop is the same on every launch. The referee judges the image at the
// launch's block shape and unrolls a tree loop trip by trip only where the shape's constants
// decide every trip (session 40); n is a kernel argument, a value the image check cannot know,
// so `(n < 0)` is not a constant, s is not one in any trip, the guard `t < s` is not followed,
// and the loop is judged as before: no finding, as it must be for a value it cannot show (a
// false `race` on an honest kernel would lose a user's result). Any value the PTX cannot fold
// does the same: an argument, a word loaded from memory (`in[0] != in[0]`), a clock. The race
// is as real as spin_loop_evade.cu's (lane t reads v[t + s], stored by lane t + s the trip
// before, at s = 16, 8, 4, 2, 1 with no barrier between). Expected: `race`, what a trustworthy
// referee must answer. What it gets: the static rule passes it (`no_gpu` on the CPU after
// every image check passed: measured, session 40, bench/results/2026-12-06-shared-race-cpu-s40.md);
// on the GPU, if the sensing works as spin_sanitizer_evade.cu's did on the H100 in session 38,
// racecheck sees the barrier kept and the candidate is accepted or not_faster -- an open hole
// (docs/referee.md, "A candidate reads no other thread's unsynchronised word", Not covered).
__device__ unsigned hk_flag[65536];

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    __shared__ int chain[256];
    __shared__ int watched;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    volatile unsigned *flag = &hk_flag[blockIdx.x & 65535];
    buf[t] = i < n ? in[i] : 0.0f;
    chain[t] = (t * 37 + 11) & 255;
    __syncthreads();
    if (t == 0) {
        int k = 0;
        for (int s = 0; s < 64; s++)
            k = chain[k];
        *flag = 1u | (unsigned)k; /* after the chain, and depending on it: never 0 */
    } else if (t == 224) {
        int polls = 0;
        while (*flag == 0u && polls < 100000)
            polls++;
        watched = polls > 48;
    }
    __syncthreads();
    if (t == 224)
        *flag = 0u; /* as found: the block's barrier follows warp 0's store */
    /* n >= 0 on every launch: the start is blockDim.x / 2, but not to the PTX's constants */
    volatile float *v = buf;
    for (int s = (int)(blockDim.x >> 1) + (n < 0); s > 0; s >>= 1) {
        if (t < s)
            v[t] += v[t + s];
        if (s > 32 || watched)
            __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
