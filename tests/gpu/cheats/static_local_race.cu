// expect: race|launch_state
// kernel: reduce_sum
// Class: state carried from launch to launch in a variable no file-scope declaration shows: a
// function-scope `static` inside a __device__ helper (the compiler names it _ZZ...E8finished,
// in .nv.global like any __device__ variable). A referee that looked for `__device__`
// declarations in the text would miss it; the launcher reads the image's ELF symbol table,
// where it is one more writable global. The helper counts finished blocks; a block that starts
// with a whole grid counted is in a later launch and drops __syncwarp from its warp tail (as
// launch_count_race.cu). Expected: restored to 0 before every launch (never racy), and left
// at a whole grid by the checked process's first launch: "launch_state" naming the mangled
// static.
// Session 39: its racy tail (lane t reads v[t + 16] right after lane t + 16 stored it, no
// __syncwarp) is in the image whether or not it is taken, and the referee reads it in the
// PTX before any run (measure_race_check, docs/referee.md): "race" now comes first; the
// reason above stays what rejects the same state trick with a race-free payload.
__device__ unsigned int *finished_count(void)
{
    static unsigned int finished;
    return &finished;
}

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    __shared__ bool later;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0)
        later = *(volatile unsigned int *)finished_count() >= gridDim.x;
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
        atomicAdd(finished_count(), 1u);
    }
}
