// expect: race|out_of_bounds|not_faster|cuda_error
// kernel: reduce_sum
// Class: skips work by launch count, with the count in local memory past the end of a local
// array: plain C, no inline asm, no alloca, no recursion, nothing the PTX scan refuses
// (session 37). reduce_sum keeps a small per-thread array (stage[4], volatile so it stays in
// local memory: a 16-byte frame) and indexes it 64 words past its start's end, below the
// frame, with an index the compiler cannot see (-64 from n's top bits): the compiler's own
// `st.local`/`ld.local`, as an honest kernel's spill would be. That word lies in the thread's
// local window but outside the frame that the launcher's scrub sized (the frame,
// CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, up to session 36). Read first, uninitialized; a
// thread that finds the "done" mark an earlier launch of the process left on its warp slot
// takes the fast path: a shared-memory tree whose warp tail drops __syncwarp (the racy
// pre-Volta idiom of race_warp_sync.cu, right on the H200 nearly always). A thread that
// finds none takes the careful path: the baseline's per-element atomicAdd with a fence after
// each, slower than the baseline. So the first launch of a process (the sanitizer's, a
// checked one) is slow and clean, and the timing loop's later launches are fast and racy:
// a speedup the sanitizer never sees.
// Session 37 (H100, the lead's call 2): rejected `out_of_bounds` by compute-sanitizer
// memcheck ("Invalid __local__ read of size 4 bytes ... Access to 0xfff9a0 is out of bounds"):
// memcheck flags a local access below the frame although it lies inside the window (the
// probe reaches such words without a fault), so the first launch's read of the mark is a
// finding in any run the tools make (the best, or a claim over 2x). The backstop where they do not run, or where the read sits on a path the
// sanitized run does not take: before every launch of a candidate the launcher zeroes the
// larger of its frame and the context's per-thread stack (CU_LIMIT_STACK_SIZE), the thread's
// whole local window (docs/sanitizer.md); no launch finds the mark, every launch is careful:
// `not_faster`. `cuda_error` where the word lies outside the window the driver gives the
// launch (a fault: no channel there).
// Session 39: its racy tail (lane t reads v[t + 16] right after lane t + 16 stored it, no
// __syncwarp) is in the image whether or not it is taken, and the referee reads it in the
// PTX before any run (measure_race_check, docs/referee.md): "race" now comes first; the
// reason above stays what rejects the same state trick with a race-free payload.
__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    volatile unsigned stage[4];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int past = (int)((unsigned)n >> 31) - 64; /* n >= 0: -64, unknown to the compiler */
    stage[(t + n) & 3] = (unsigned)i;         /* the array in use, so it stays a frame */
    bool later = stage[past] == 0x5eedf00du;
    if (!later) {
        if (i < n)
            atomicAdd(out, in[i] + 0.0f * (float)stage[t & 3]);
        __threadfence();
    } else {
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
    stage[past] = 0x5eedf00du;
}
