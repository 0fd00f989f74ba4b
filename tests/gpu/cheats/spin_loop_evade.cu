// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Also found (session 42, REF11) by the rule on the mechanism: its tree loop's __syncthreads() runs
// only `if (s > 32 || watched)`, watched a shared word set from a loop polling memory -- a
// barrier that sensed data decides (docs/referee.md), found from the PTX at any shape or none;
// where the pair read is found too (at the spec's launch) it stays the stated reason.
// Class: 5 races, an attack on the static race rule (session 39): spin_sanitizer_evade.cu's
// sensing of compute-sanitizer by relative speed (warp 0 follows 64 dependent shared loads
// while warp 7 counts its volatile global polls of a per-block flag), and one shared-memory
// tree loop `if (t < s) v[t] += v[t + s]` whose __syncthreads() is skipped for s <= 32 when not
// watched: lane t then reads v[t + s], which lane t + s stored on the trip before, with no
// barrier between (the pre-Volta warp-synchronous idiom, inside the loop; right on the GPU
// nearly always, warp 0 staying converged). The referee's PTX scan (measure_race_check)
// gives no finding: s is the loop variable, so `buf + 4*t + 4*s` rests on a block-uniform
// unknown that the store's `buf + 4*t` does not, the guard `t < s` compares the tid with an
// unknown (which threads run the body is not followed there), and the store of one trip and
// the load of the next are paired only at addresses resolved to the same base; to see it the
// rule would have to prove s != 0 and follow s round the back edge. Expected: `race`, what a
// trustworthy referee must answer. What it gets: the static rule passes it (`no_gpu` on the
// CPU after every image check passed); on the GPU, if the sensing works as
// spin_sanitizer_evade.cu's did on the H100 in session 38, racecheck sees the barrier kept
// and the candidate is accepted or not_faster: neither the rule nor the sanitizer catches it
// -- an open hole (docs/referee.md, "A candidate reads no other thread's unsynchronised
// word", Not covered).
// Measured (H100, session 39, 7165b8e): accepted, race check pass, memcheck/racecheck/initcheck
// clean at both sizes: the hole is real (bench/results/2026-12-06-h100-session39.md).
// Session 40: closed. At the spec's 256 threads the loop's trips are decided (s = 128 ... 1)
// and it is judged unrolled, each trip's s a constant, the barrier kept exactly in the trips
// where s > 32: lane t loads v[t + 16] (trip s = 16), which lane t + 16 stored in trip s = 32
// with no barrier between, `race` from the PTX before any run, on the CPU too
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
    /* one tree to the end; below 64 only warp 0 takes part, and the block's barrier is kept
     * there only while watched (a block-uniform choice, so the barrier stays legal) */
    volatile float *v = buf;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            v[t] += v[t + s];
        if (s > 32 || watched)
            __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
