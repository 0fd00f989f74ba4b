// expect: race|launch_state
// kernel: dot
// judged from the PTX: race
// Class: timed launches (work on every Nth launch only). dot as a block reduction that counts
// its launches in a __device__ variable and computes only on every 8th one (and the first);
// the launches between add the last computed dot product to out with a single atomic. The
// count advances when the last block of a launch finishes, so all blocks of one launch agree
// on whether it is a working launch. Against a referee that checks only the first launch
// and one run after the timing loop it wins whenever those are working launches; against
// timed launches checked at random (the last always) with rotating inputs, seven launches
// in eight replay the previous input set's product: "wrong_answer". Those seven read none
// of the 128 MB the spec counts, so the median is under the physical floor as well
// ("below_floor", when the referee looks at the time first).
// Session 32: the launcher restores the image's writable globals before every launch and a
// candidate's checked run-mode process fails a launch that leaves one changed: the first
// launch leaves its launch count changed, so it is "launch_state" (before it was expected:
// wrong_answer|below_floor).
// Session 43 (REF12): `race` from the PTX before any run, on the CPU too: every thread reads
// cheat_launch (volatile) at the start, and the last block's thread 0 stores it at the end
// with no barrier between where `work` is false -- a race on a global word, and the value
// decides whether the block runs its __syncthreads() (docs/referee.md, "A barrier that data
// decides"); on the GPU the PTX check comes first, so `race` is what the referee says.
__device__ unsigned int cheat_launch;
__device__ unsigned int cheat_blocks_done;
__device__ float cheat_kept;

__global__ void dot(const float *a, const float *b, float *out, int n)
{
    __shared__ float part[8];
    unsigned int launch = *(volatile unsigned int *)&cheat_launch;
    bool work = launch % 8 == 0;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = work && i < n ? a[i] * b[i] : 0.0f;
    if (work) {
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
        if ((threadIdx.x & 31) == 0)
            part[threadIdx.x >> 5] = v;
        __syncthreads();
    }
    if (threadIdx.x != 0)
        return;
    if (work) {
        float s = 0.0f;
        for (int w = 0; w < (int)(blockDim.x + 31) / 32; w++)
            s += part[w];
        atomicAdd(out, s);
    } else if (blockIdx.x == 0) {
        atomicAdd(out, *(volatile float *)&cheat_kept);
    }
    __threadfence();
    if (atomicAdd(&cheat_blocks_done, 1u) == gridDim.x - 1) {
        if (work)
            cheat_kept = atomicAdd(out, 0.0f);
        cheat_blocks_done = 0;
        __threadfence();
        cheat_launch = launch + 1;
    }
}
