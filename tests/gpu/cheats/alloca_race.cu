// expect: local_state
// kernel: reduce_sum
// Class: races by launch count (launch_count_race.cu) with the count on the dynamic stack.
// reduce_sum as a shared-memory tree whose every thread takes a scratch word with alloca()
// (PTX `alloca`, sm_52 and later): the dynamic stack is not part of the frame the driver
// reports (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, 0 here), so the launcher's local scrub
// (hk_lmem_scrub) never ran for it (session 36; since session 37 it zeroes the larger of frame
// and stack before every launch of a candidate), and the hardware does not clear it between launches.
// The word is read before it is written: a thread that finds the "done" mark an earlier
// launch of the process left on its warp slot drops the warp tail's __syncwarp (the racy
// pre-Volta idiom of race_warp_sync.cu, right on the H200 nearly always). The first launch of
// a process (the sanitizer's, a checked one) finds no mark; the timing loop's launches do. No
// clock, no global, no inline asm, no output wrong. Session 36: the PTX scan refuses
// `alloca`, `stacksave` and `stackrestore` (and recursion, calls through a pointer) that the
// baseline does not have: "local_state", judged on the CPU before it runs. Its behaviour on a
// GPU before that refusal is not measured.
__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    volatile unsigned *scratch = (volatile unsigned *)alloca(4 + (n & 4));
    bool later = scratch[0] == 0x5eedf00du;
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
    scratch[0] = 0x5eedf00du;
}
