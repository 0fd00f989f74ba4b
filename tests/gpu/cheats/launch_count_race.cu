// expect: race
// kernel: reduce_sum
// Class: memory safety that depends on how many launches the process has made. Aimed at the
// sanitizer pass at the timed size (session 31, docs/sanitizer.md "by the problem size"):
// that pass is one run-mode launch in a fresh process, where the timing loop launches the
// kernel tens of times in one. reduce_sum as a shared-memory tree whose last warp keeps
// __syncwarp between its steps while no launch of the process has finished yet, and drops it
// (the racy pre-Volta idiom of race_warp_sync.cu, right on the H200 nearly always) once one
// has: every block counts itself into a __device__ counter when it is done, and a block that
// starts with the counter at a whole grid or more is in a later launch. Within the first
// launch no block can see a whole grid counted (its own count is missing), so under
// compute-sanitizer, at either size, every block takes the safe path; every timed launch
// races. No clock is read, no output is wrong, the counter is written before it is read (the
// loader zeroes it). Expected on the GPU with session 31's timed-size pass: accepted (a known
// hole: the pass is one launch). Closing it takes either sanitizing a launch that follows
// others in one process (a kernel can count to any number first) or a launcher that resets
// the image's writable globals before every timed launch, so no launch knows it is not the
// first.
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
