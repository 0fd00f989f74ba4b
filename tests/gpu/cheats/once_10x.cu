// expect: reads_clock|unstable
// kernel: reduce_sum
// Class: enforced checks (a speedup over 10x that does not reproduce). reduce_sum as a
// correct block reduction -- one atomic per block instead of one per element, honestly
// tens to hundreds of times faster than the naive baseline -- whose speed is drawn once per
// process: the first launch reads %globaltimer and picks a fixed extra wait between 0 and
// 15 times 25 us (log-uniform), which every later launch in that process repeats. Each
// process is therefore steady (its spread stays small) but two processes disagree, typically
// by a factor of 2 or more, and every draw stays well over 10x. The answers are always
// right. Caught by the second look at a >10x speedup (fresh seeds, baseline and candidate
// timed again in fresh processes), whose speedup must reproduce the first within 25%:
// "unstable". Statistical: two draws land within 25% of each other about one time in six;
// a run that gets "accepted" (flagged) should be repeated before blaming the referee.
__device__ unsigned long long cheat_wait_ns; /* 0: not drawn yet in this process */

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float part[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0)
        part[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x != 0)
        return;
    float s = 0.0f;
    for (int w = 0; w < (int)(blockDim.x + 31) / 32; w++)
        s += part[w];
    atomicAdd(out, s);
    if (blockIdx.x != 0)
        return;
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    if (cheat_wait_ns == 0) {
        unsigned long long r = (t0 ^ (t0 >> 23)) * 0x9E3779B97F4A7C15ull;
        /* 25 us * (2^(4u) - 1), u uniform in [0, 1): 0 to 375 us extra; +1 ns keeps it drawn */
        float u = (float)(r >> 40) * (1.0f / 16777216.0f);
        cheat_wait_ns = 1 + (unsigned long long)(25000.0f * (exp2f(4.0f * u) - 1.0f));
    }
    unsigned long long wait_ns = cheat_wait_ns - 1;
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < wait_ns);
}
