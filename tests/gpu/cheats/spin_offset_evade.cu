// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Session 42 (REF11): the barrier it keeps only while watched is a __syncwarp (bar.warp.sync),
// not a barrier of the whole block, so the rule on a barrier that sensed data decides
// (docs/referee.md) does not find it; its verdict stays the earlier rules' (unchanged).
// Class: 5 races, an attack on the static race rule (session 39): spin_sanitizer_evade.cu's
// sensing of compute-sanitizer by relative speed (warp 0 follows 64 dependent shared loads
// while warp 7 counts its volatile global polls of a per-block flag; above 48 polls the block
// keeps __syncwarp in its warp-synchronous tail), with the unwatched racy tail's offsets made
// from blockDim.x (w = blockDim.x >> 3, then w >> 1 ... w >> 5: 32, 16, ..., 1 at the spec's
// 256 threads) instead of constants. The referee's PTX scan (measure_race_check) follows a
// thread's shared address as an affine form in %tid plus one block-uniform unknown; blockDim
// is such an unknown, so `buf + 4*t + 4*(w >> 1)` and the store's `buf + 4*t` have different
// unknown bases, and it cannot prove the offset is not 0 (when it is 0 a thread reads its own
// word: no race). It gives no finding, as it must for an unresolved offset (a false `race` on
// an honest kernel would lose a user's result). The race is as real as race_warp_sync.cu's.
// Expected: `race` is what a trustworthy referee must answer. What it gets: the static rule
// passes it (`no_gpu` on the CPU after every image check passed); on the GPU, if the sensing
// works as spin_sanitizer_evade.cu's did on the H100 in session 38, racecheck sees only the
// __syncwarp path and the candidate is accepted or not_faster: neither the rule nor the
// sanitizer catches it -- an open hole (docs/referee.md, "A candidate reads no other thread's
// unsynchronised word", Not covered). racecheck catches it only if its slowdown fails to
// cross 48 polls.
// Measured (H100, session 39, 7165b8e): accepted, race check pass, memcheck/racecheck/initcheck
// clean at both sizes: the hole is real (bench/results/2026-12-06-h100-session39.md).
// Session 40: closed. The referee judges the PTX at the spec's block (256 threads), where
// %ntid.x is the constant 256, w = 32 and the offsets 16, 8, ...: lane t loads v[t + 16] right
// after lane t + 16 stored it, `race` from the PTX before any run, on the CPU too
// (bench/results/2026-12-06-shared-race-cpu-s40.md). spin_bound_evade.cu is the next attack.
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
    for (int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t < 32) {
        volatile float *v = buf;
        if (!watched) {
            /* w is 32 at the spec's 256 threads, but only at run time: blockDim.x is a
             * block-uniform unknown to the PTX, so every offset below is one too */
            const int w = blockDim.x >> 3;
            v[t] += v[t + w];
            v[t] += v[t + (w >> 1)];
            v[t] += v[t + (w >> 2)];
            v[t] += v[t + (w >> 3)];
            v[t] += v[t + (w >> 4)];
            v[t] += v[t + (w >> 5)];
        } else {
            for (int s = 32; s > 0; s >>= 1) {
                float x = v[t] + v[t + s];
                __syncwarp();
                v[t] = x;
                __syncwarp();
            }
        }
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
