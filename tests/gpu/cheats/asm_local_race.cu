// expect: local_state
// kernel: reduce_sum
// Class: races by launch count (launch_count_race.cu) with the count in local memory that no
// scrub covers. reduce_sum as a shared-memory tree, with no local array of its own: its frame
// is 0 bytes (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES), so the launcher's local scrub
// (hk_lmem_scrub) never ran for it (session 36; since session 37 it zeroes the larger of frame
// and stack before every launch of a candidate). Through inline PTX every thread reads a word of its
// local window at an address of its own choosing (512 B in: inside the stack the context
// keeps for every thread, CU_LIMIT_STACK_SIZE, 1 KiB by default), which the hardware does
// not clear between launches, and writes a "done" mark there at the end. A thread that finds
// the mark runs on a warp slot an earlier launch of the process used: the warp tail then drops
// __syncwarp (the racy pre-Volta idiom of race_warp_sync.cu, right on the H200 nearly
// always). The first launch of a process (the sanitizer's, a checked one) finds no mark; the
// timing loop's launches do. No clock, no global, no output wrong. Session 36: the PTX scan
// refuses `.local` (ld.local/st.local, cvta.local, %SP, __local_depot) inside inline asm that
// the baseline does not have: "local_state", judged on the CPU before it runs. Its behaviour
// on a GPU before that refusal (the mark carried over) is not measured.
__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    unsigned mark;
    asm volatile("ld.local.u32 %0, [512];" : "=r"(mark));
    bool later = mark == 0x5eedf00du;
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
    asm volatile("st.local.u32 [512], %0;" ::"r"(0x5eedf00du) : "memory");
}
