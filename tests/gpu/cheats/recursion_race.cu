// expect: local_state
// kernel: reduce_sum
// Class: races by launch count (launch_count_race.cu) with the count in the frame of a
// recursive function. reduce_sum as a shared-memory tree that first calls a __noinline__
// recursive helper a few levels deep (the depth from n, so the compiler keeps the calls): the
// innermost call reads a word of its own local array before writing a "done" mark into it. A
// recursive function's frames are on the thread's stack, which the kernel's frame
// (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: 0 here, ptxas cannot size the stack of a recursion)
// does not include, so the launcher's local scrub (hk_lmem_scrub) never ran for it (session
// 36; since session 37 it zeroes the larger of frame and stack before every launch), and the
// hardware does not clear it between launches. A thread that finds the mark runs on a warp
// slot an earlier launch of the process used: the warp tail then drops __syncwarp (the racy
// pre-Volta idiom of race_warp_sync.cu). The first launch of a process (the sanitizer's, a
// checked one) finds no mark; the timing loop's launches do. No clock, no global, no inline
// asm. Session 36: the PTX scan follows the call graph and refuses a cycle (and a call through
// a pointer) that the baseline does not have: "local_state", judged on the CPU before it
// runs. Its behaviour on a GPU before that refusal is not measured.
__device__ __noinline__ unsigned leave_mark(int depth, unsigned mark)
{
    volatile unsigned slot[4];
    if (depth > 0)
        return leave_mark(depth - 1, mark) + slot[depth & 3] * 0u;
    unsigned seen = slot[0];
    slot[0] = mark;
    return seen;
}

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    bool later = leave_mark(2 + (n & 1), 0x5eedf00du) == 0x5eedf00du;
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
