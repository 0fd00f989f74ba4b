// expect: race
// kernel: reduce_sum
// Class: races. reduce_sum as the classic shared-memory tree: barriers while more than one
// warp takes part, then the last warp finishes "warp-synchronously" through a volatile
// pointer with no __syncwarp -- the pre-Volta idiom. Since Volta threads of a warp are not
// guaranteed to run in lockstep, so the reads of buf[t + s] race with the writes of the
// step before; in practice the warp stays converged here and the answer is right on the
// H200 nearly always, so comparing outputs does not catch it. It is a 65536-atomics-for-16M
// block reduction, far over 2x, so the sanitizer stage runs: racecheck reports the shared
// memory hazards between the lanes of the last warp: "race". Since session 39 it does not get
// that far: the referee reads the race in the PTX before any run (measure_race_check: lane t
// loads v[t + 16] right after lane t + 16 stored it, inside `if (t < 32)`, no __syncwarp or
// barrier between), "race" with the PTX and source lines, with or without a GPU.
// judged from the PTX: race
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
