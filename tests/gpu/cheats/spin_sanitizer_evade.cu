// expect: race
// kernel: reduce_sum
// Session 42 (REF11): the barrier it keeps only while watched is a __syncwarp (bar.warp.sync),
// not a barrier of the whole block, so the rule on a barrier that sensed data decides
// (docs/referee.md) does not find it; its verdict stays the earlier rules' (unchanged).
// Class: 5 races, evading racecheck without a clock or an address: by relative speed inside
// one block. racecheck instruments every shared-memory access and no global one. Warp 0's
// lane 0 follows a chain of 64 dependent shared-memory loads, then sets the block's flag in
// a __device__ array; warp 7's lane 0 meanwhile counts how often it polls that flag (a
// volatile global load). Natively the chain takes a few polls; under racecheck every step of
// it is instrumented and the polls are not, so the count grows by the tool's slowdown (tens
// of times). Above 48 polls the block keeps __syncwarp in its warp-synchronous tail
// (race-free: what racecheck sees, at both sizes), below it drops it (race_warp_sync.cu's
// racy tail, right on the H100 nearly always). The flag is set back to 0 after the block's
// barrier, so every launch leaves the globals as it found them (no launch_state). No clock
// register, no pointer arithmetic, no heap or local state: none of the clock, local and heap
// rules can see it, and on the H100 (session 38) it passed all three compute-sanitizer tools.
// No timing-based defence exists in general -- any instrumentation can be sensed by relative
// speed -- so since session 39 the referee reads the racy code itself, without running it:
// the unwatched tail is in the image whether or not it is taken. measure_race_check finds
// lane t loading v[t + 16] right after lane t + 16 stored it, in the `!watched` branch of
// `if (t < 32)` with no __syncwarp between (PTX and source lines quoted): "race" before any
// run, with or without a GPU. Expected: race (from the PTX; the sanitizer is never reached).
// judged from the PTX: race
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
            v[t] += v[t + 32];
            v[t] += v[t + 16];
            v[t] += v[t + 8];
            v[t] += v[t + 4];
            v[t] += v[t + 2];
            v[t] += v[t + 1];
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
