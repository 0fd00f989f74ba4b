// expect: device_heap|reads_clock
// kernel: reduce_sum
// (reads_clock: on a DCU, hipcc 5.2's malloc is ockl's __ockl_dm_alloc, which waits with
// s_memrealtime, and the clock rule comes first; device_heap on CUDA, session 38)
// Class: state carried from launch to launch in device-heap memory, reached through a
// __device__ pointer. launch_count_race.cu keeps its count in a __device__ variable, which
// the launcher now restores before every launch; this one keeps it in a block it malloc()s on
// the device heap (which nothing restores), so only the pointer to it is a global. The first
// launch of a process allocates the block (thread 0 of block 0, published with a fence; the
// other blocks of that launch see a null pointer or a count short of a grid) and every block
// counts itself in when it is done; a later launch finds the pointer and a whole grid
// counted, and drops __syncwarp from its warp tail (the racy idiom of race_warp_sync.cu).
// Every sanitizer run is a first launch: safe. Expected: the pointer is a writable global of
// the image, restored to null before every launch (so every launch allocates anew and takes
// the safe path; the heap block is leaked, 4 bytes a launch) and, in the candidate's checked
// process, left changed by the first launch: "launch_state" naming hk_done_at. Not covered:
// a kernel that finds heap memory without a global pointer (the heap's addresses are not
// its own to guess; a read outside its allocation is memcheck's out_of_bounds).
// Since session 36 it is refused before it runs: the candidate calls malloc and the baseline
// does not ("device_heap", the PTX scan; heap_by_address.cu is the pointerless form). The
// restore above still holds for a baseline that uses the heap itself.
__device__ unsigned int *hk_done_at;

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    __shared__ bool later;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0) {
        unsigned int *p = *(unsigned int *volatile *)&hk_done_at;
        later = p && *(volatile unsigned int *)p >= gridDim.x;
        if (!p && blockIdx.x == 0) {
            p = (unsigned int *)malloc(sizeof *p);
            if (p) {
                *p = 0;
                __threadfence();
                *(unsigned int *volatile *)&hk_done_at = p;
            }
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
    if (t == 0) {
        atomicAdd(out, buf[0]);
        unsigned int *p = *(unsigned int *volatile *)&hk_done_at;
        if (p)
            atomicAdd(p, 1u);
    }
}
