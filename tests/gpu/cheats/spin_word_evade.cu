// expect: race
// kernel: reduce_sum
// Class: 5 races, an attack on the static race rule as session 40 left it (REF5): the same
// sensing and tree loop as spin_bound_evade.cu (the block's barrier kept only `if (s > 32 ||
// watched)`), but the loop starts at `(blockDim.x >> 1) + hk_zero`, hk_zero a `__device__ int`
// nothing writes: 0 on every launch, so the loop is the same on every launch. Since session 40
// the referee judges the image at each launch (the block shape and the spec's scalar
// arguments: spin_bound_evade.cu's `n < 0` folds), and a value that depends on data through
// one bit or a few (a predicate, a sign bit) at each of its values (`in[0] != in[0]`,
// `clock() < 0`); a word loaded from memory and used whole is neither: it could be anything,
// so s is not a constant in any trip, the loop is not unrolled, the guard `t < s` is not
// followed and the scan gives nothing -- as it must for a value it cannot show (a false `race`
// on an honest kernel would lose a user's result). The race is as real as spin_loop_evade.cu's
// (lane t reads v[t + s], stored by lane t + s the trip before, at s = 16, 8, 4, 2, 1 with no
// barrier between). Expected: `race`, what a trustworthy referee must answer. What it gets:
// the static rule passes it (`no_gpu` on the CPU after every image check passed: measured,
// session 40, bench/results/2026-12-06-shared-race-cpu-s40.md, REF5); on the GPU, if the
// sensing works as spin_sanitizer_evade.cu's did on the H100 in session 38, racecheck sees the
// barrier kept and the candidate is accepted or not_faster -- an open hole (docs/referee.md,
// "A candidate reads no other thread's unsynchronised word", Not covered).
__device__ unsigned hk_flag[65536];
__device__ int hk_zero; /* never written: 0 in every launch (zero-initialised module data) */

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
    /* hk_zero is 0 on every launch: the start is blockDim.x / 2, but a word from memory used
     * whole is no constant, nor a value of a few, to the PTX */
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
