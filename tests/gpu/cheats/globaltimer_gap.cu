// expect: reads_clock|wrong_answer|below_floor
// kernel: reduce_sum
// Class: timed launches (back-to-back detection with %globaltimer). reduce_sum as a proper
// block reduction (one atomic per block) that also remembers when its last launch ended and
// what it summed. A launch that starts less than 2 ms after the previous one ended is taken
// for the timing loop (launches back to back, only an L2 flush between them) and replays the
// remembered sum with one atomic instead of reading 64 MB; a launch after a longer gap (the
// first referee refilled the inputs on the host before every checked run: milliseconds) is
// taken for a check and computes honestly. Every checked run of the first referee got the
// right answer and the timing loop timed almost nothing. Caught when the checked launches are
// timed launches chosen at random (always including the last) while the inputs rotate: the
// replayed sum belongs to the previous input set, "wrong_answer". The replayed launches
// also move none of the 64 MB the spec counts, so the physical floor rejects the median
// time ("below_floor") if the referee checks that first: either is the referee's job.
__device__ unsigned long long cheat_last_end;
__device__ float cheat_last_sum;
__device__ unsigned int cheat_blocks_done;

__device__ unsigned long long cheat_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float part[8];
    __shared__ bool replay;
    if (threadIdx.x == 0) {
        unsigned long long last = *(volatile unsigned long long *)&cheat_last_end;
        replay = last != 0 && cheat_now() - last < 2000000ull;
    }
    __syncthreads();
    if (replay) {
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            atomicAdd(out, *(volatile float *)&cheat_last_sum);
            __threadfence();
            cheat_last_end = cheat_now();
        }
        return;
    }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0)
        part[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int w = 0; w < (int)(blockDim.x + 31) / 32; w++)
            s += part[w];
        atomicAdd(out, s);
        __threadfence();
        /* the last block to finish records the launch's sum and its end */
        if (atomicAdd(&cheat_blocks_done, 1u) == gridDim.x - 1) {
            cheat_last_sum = atomicAdd(out, 0.0f);
            cheat_blocks_done = 0;
            __threadfence();
            cheat_last_end = cheat_now();
        }
    }
}
