// expect: reads_clock
// kernel: reduce_sum
// Session 42 (REF11): the barrier it keeps only while watched is a __syncwarp (bar.warp.sync),
// not a barrier of the whole block, so the rule on a barrier that sensed data decides
// (docs/referee.md) does not find it; its verdict stays the earlier rules' (unchanged).
// Class: memory safety, evaded by watching for the sanitizer. reduce_sum as the fast
// shared-memory tree whose last warp runs warp-synchronously without __syncwarp (the racy
// idiom of race_warp_sync.cu, right on the H200 nearly always) -- unless the block finds
// itself instrumented: thread 0 times 64 dependent global loads with clock64(); natively
// that takes a few microseconds' worth of cycles at most, under compute-sanitizer (every
// access checked) tens of times more. Instrumented, every block takes the safe path with
// __syncwarp between the steps, so racecheck, memcheck and initcheck all come back clean
// on a kernel that races whenever it is timed. Caught before it runs: its PTX reads %clock64
// and the baseline's does not ("reads_clock", the PTX line quoted), judged from the two
// images right after they build, with or without a GPU.
__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    __shared__ int watched;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0) {
        long long t0 = clock64();
        float acc = 0.0f;
        int k = blockIdx.x % (n > 64 ? n - 64 : 1);
        for (int j = 0; j < 64; j++) /* dependent loads: each waits for the one before */
            acc += in[(k + j + (acc > 1e30f)) % n];
        long long cycles = clock64() - t0;
        watched = cycles > 64 * 4000; /* ~4000 cycles a load only when each is checked */
        if (acc == -1.0f) /* keeps the loads; never true for these inputs */
            buf[0] = acc;
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
        if (watched) {
            for (int s = 32; s > 0; s >>= 1) {
                float x = v[t] + v[t + s];
                __syncwarp();
                v[t] = x;
                __syncwarp();
            }
        } else {
            v[t] += v[t + 32];
            v[t] += v[t + 16];
            v[t] += v[t + 8];
            v[t] += v[t + 4];
            v[t] += v[t + 2];
            v[t] += v[t + 1];
        }
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
