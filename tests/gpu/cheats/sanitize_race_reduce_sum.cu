// expect: race
// reduce_sum as a block tree in shared memory whose last six steps are warp-synchronous on
// volatile shared memory without __syncwarp(): the pre-Volta idiom, a data race since
// Volta's independent thread scheduling. In practice it gives right answers (50 of 50
// runs on an H200), so only compute-sanitizer racecheck sees it (a "Warning: Race reported",
// exit status 86); it is many times faster than the naive atomics, so its claim is over 2x.
// Session 39: its racy tail is also read in the PTX before any run (measure_race_check:
// lane t loads v[t + 16] right after lane t + 16 stored it, no __syncwarp), so `race` now
// comes from the static rule and the sanitizer stage is not reached; race.cu and
// race_first_sync.cu (a loop-variable offset the rule cannot resolve) still reach racecheck.
__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t < 32) {
        volatile float *v = buf;
        v[t] += v[t + 32];
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
