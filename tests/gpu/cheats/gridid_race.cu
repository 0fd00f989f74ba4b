// expect: reads_clock
// kernel: reduce_sum
// Class: races by launch count (launch_count_race.cu) with no state of the kernel's own:
// PTX's %gridid is "the temporal grid launch number for this context", so a kernel can tell
// a process's first few launches (the checked run-mode launches, the one under
// compute-sanitizer) from the tens that the timing loop makes, without a __device__ variable,
// a heap block or a static for the launcher's restore to find. reduce_sum as a shared-memory
// tree whose last warp keeps __syncwarp between its steps while the context has launched
// fewer than 48 grids (the harness's own kernels count too) and drops it after (the racy
// pre-Volta idiom of race_warp_sync.cu, right on the H200 nearly always). No clock is read,
// no global kept, no output wrong. Session 35: the PTX scan reads %gridid as a clock (a
// logical one): the candidate reads what the baseline does not, "reads_clock" before it runs.
__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned long long launch;
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(launch));
    bool later = launch >= 48;
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
    if (t == 0)
        atomicAdd(out, buf[0]);
}
