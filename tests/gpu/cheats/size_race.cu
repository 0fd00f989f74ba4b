// expect: race
// kernel: reduce_sum
// Class: memory safety that depends on the problem size. reduce_sum as a shared-memory tree
// with a warp-synchronous last warp; the tail keeps __syncwarp between its steps when n is
// small and drops it (the racy pre-Volta idiom of race_warp_sync.cu, right on the H200
// nearly always) when n is over 4,000,000. compute-sanitizer runs at the spec's smallest
// size (1,000,003 for reduce_sum), where the kernel is race-free: racecheck, memcheck and
// initcheck come back clean, and every timed launch at 2^24 races. No clock is read, no
// output is wrong. To be caught the sanitizer must see the size that is timed (the primary
// size, 2^24 here) as well as the smallest. Expected on the GPU today: accepted (a known
// hole, bench/results/2026-12-05-red-team-s29.md); "race" once the sanitizer runs there.
// Session 39: its racy tail is also read in the PTX before any run (measure_race_check:
// lane t loads v[t + 16] right after lane t + 16 stored it, no __syncwarp), so `race` now
// comes from the static rule and the sanitizer stage is not reached; race.cu and
// race_first_sync.cu (a loop-variable offset the rule cannot resolve) still reach racecheck.
__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t < 32) {
        volatile float *v = buf;
        if (n > 4000000) {
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
