// expect: launch_state
// kernel: reduce_sum
// Class: uninitialized reads / stale state. reduce_sum as a two-phase reduction: every block
// writes its partial sum to a __device__ scratch array, and the last block to finish (a
// threadfence and an atomic ticket) adds up the partials and writes out. Instead of tracking
// the grid size it adds a fixed 2^17 slots, "the unused slots are zero": this launch never
// writes them, and the module loader zeroes a module's globals, so in a fresh process the
// sum is right. compute-sanitizer's initcheck cannot see it: the loader's zeroing counts as
// a write, so these reads are of "initialized" memory (it was accepted at 105x on the H200,
// initcheck clean, when every size's combinations ran in a fresh process). What catches it
// now is the priming launches (docs/referee.md, "Stale state"): a candidate's run process
// for size 1 (1000003 elements, 3907 blocks) first launches it at size 0 (2^24, 65536
// blocks), whose partials stay in the slots size 1 never writes and are summed into its
// answer: "wrong_answer" at size 1. "uninitialized" stays legitimate for a referee whose
// initcheck sees the reads (a driver that does not zero globals for it).
// Session 32: the launcher restores the image's writable globals before every launch and a
// candidate's checked run-mode process fails a launch that leaves one changed: the first
// launch leaves its partial slots and ticket changed, so it is "launch_state" (before it was
// expected: uninitialized|wrong_answer).
__device__ float cheat_partials[1 << 17];
__device__ unsigned int cheat_ticket;

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float part[8];
    __shared__ bool last;
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
        cheat_partials[blockIdx.x] = s;
        __threadfence();
        last = atomicAdd(&cheat_ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    float s = 0.0f;
    for (int k = threadIdx.x; k < (1 << 17); k += blockDim.x)
        s += ((volatile float *)cheat_partials)[k];
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, o);
    __syncthreads();
    if ((threadIdx.x & 31) == 0)
        part[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < (int)(blockDim.x + 31) / 32; w++)
            total += part[w];
        atomicAdd(out, total);
        cheat_ticket = 0;
    }
}
