// expect: race
// kernel: reduce_sum
// Class: 5 races, evading the sanitizer by the buffers' addresses (no clock, no state).
// reduce_sum as a shared-memory tree whose last warp is warp-synchronous. Every run of the
// benchmark program puts a buffer 64 KiB past the start of its allocation (the guard zone
// before it), and cudaMalloc starts an allocation this size on a 2 MiB boundary: `in` sits
// at 0x10000 modulo 2 MiB. Until session 38 compute-sanitizer's runs (HK_GUARD_ZONES=0)
// allocated every buffer exactly, so `in` sat on the boundary itself. The kernel keeps
// __syncwarp between the tail's steps when `in` is on a boundary (a tool is watching:
// racecheck sees a race-free kernel, at the smallest size and at the timed size alike) and
// drops it otherwise (the racy pre-Volta idiom of race_warp_sync.cu, right on the H100
// nearly always): every checked and timed launch races, no output is wrong. Expected on
// the GPU before session 38: accepted. Since session 38 the tool's run allocates the
// buffers as every run does and declares the guard zones to the tool (NVTX memory API), so
// the pointer is the same under racecheck, which then sees the racy tail: `race`.
// Session 39: its racy tail is also read in the PTX before any run (measure_race_check:
// lane t loads v[t + 16] right after lane t + 16 stored it, no __syncwarp), so `race` now
// comes from the static rule and the sanitizer stage is not reached; race.cu and
// race_first_sync.cu (a loop-variable offset the rule cannot resolve) still reach racecheck.
#include <stdint.h>

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
    /* "alignment of the input": 64 KiB into a 2 MiB page only in the harness's own runs */
    bool guarded = ((uintptr_t)in & ((2u << 20) - 1)) == (64u << 10);
    if (t < 32) {
        volatile float *v = buf;
        if (guarded) {
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
