// expect: race|launch_state
// kernel: reduce_sum
// Class: state carried from launch to launch (a __device__ count of finished blocks), aimed
// at the sanitizer pass at the timed size (session 31, docs/sanitizer.md "by the problem
// size"): that pass is one run-mode launch in a fresh process, where the timing loop launches
// the kernel tens of times in one. reduce_sum as a shared-memory tree whose last warp keeps
// __syncwarp between its steps while no launch of the process has finished yet, and drops it
// (the racy pre-Volta idiom of race_warp_sync.cu, right on the H200 nearly always) once one
// has: every block counts itself into a __device__ counter when it is done, and a block that
// starts with the counter at a whole grid or more is in a later launch. Within the first
// launch no block can see a whole grid counted (its own count is missing), so under
// compute-sanitizer, at either size, every block takes the safe path; every timed launch
// raced. No clock is read, no output is wrong. Session 31 (H100): accepted, the open hole.
// Session 32: the launcher restores the image's writable globals (read from its ELF symbol
// table) before every launch it makes, timed ones included, so the counter is 0 at the start
// of every launch and the racy path is never taken; and a candidate's checked run-mode
// process compares the globals after each launch with their bytes at load: the counter is
// left at a whole grid, so the first launch (a priming launch at the other size) fails it,
// "launch_state" naming hk_blocks_done (docs/referee.md, "Every launch starts from the same
// device state").
// Session 39: its racy tail (lane t reads v[t + 16] right after lane t + 16 stored it, no
// __syncwarp) is in the image whether or not it is taken, and the referee reads it in the
// PTX before any run (measure_race_check, docs/referee.md): "race" now comes first; the
// reason above stays what rejects the same state trick with a race-free payload.
__device__ unsigned int hk_blocks_done;

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    __shared__ bool later;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0)
        later = *(volatile unsigned int *)&hk_blocks_done >= gridDim.x;
    buf[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t < 32) {
        volatile float *v = buf;
        if (later) {
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
    if (t == 0) {
        atomicAdd(out, buf[0]);
        atomicAdd(&hk_blocks_done, 1u);
    }
}
