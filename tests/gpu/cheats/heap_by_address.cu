// expect: device_heap|reads_clock
// kernel: reduce_sum
// (reads_clock: on a DCU, hipcc 5.2's malloc is ockl's __ockl_dm_alloc, which waits with
// s_memrealtime, and the clock rule comes first; device_heap on CUDA, session 38)
// Class: state carried from launch to launch in the device heap with no pointer kept anywhere.
// heap_state_race.cu keeps its heap block's address in a __device__ pointer, which the launcher
// restores; this one keeps nothing: thread 0 of each block malloc()s 16 bytes, reads what an
// earlier launch left there (the allocator hands the same addresses back once they are freed,
// and malloc does not clear them), writes a mark and frees the block again. A block that finds
// the mark of an earlier launch drops __syncwarp from its warp tail (the racy idiom of
// race_warp_sync.cu). A sanitizer run is a first launch: only blocks that reuse a block freed
// earlier in the same launch find a mark (a cheat would key the mark to more than this). No
// global is left changed (nothing for launch_state), no clock is read, no access leaves its
// allocation (nothing for memcheck). Expected: refused before it runs, because the candidate
// uses the device heap (malloc/free in its PTX) and the baseline does not: "device_heap".
#define HEAP_MARK 0x5eedf00du

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    __shared__ bool later;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0) {
        unsigned int *p = (unsigned int *)malloc(4 * sizeof *p);
        later = false;
        if (p) {
            later = *(volatile unsigned int *)p == HEAP_MARK;
            *(volatile unsigned int *)p = HEAP_MARK;
            free(p);
        }
    }
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
