// expect: launch_state
// kernel: reduce_sum
// Class: enforced checks (a speedup over 10x that does not reproduce), without a clock.
// once_10x.cu drew its per-process speed from %globaltimer, and is now refused for reading a
// clock before it runs (reads_clock). This one reads none: the first launch of a process
// draws the extra work from its own input instead (in[0]'s bits: the inputs come from seeds
// drawn fresh for every process, so every process draws anew), keeps it in a __device__
// variable, and every later launch in that process repeats it: block 0's thread 0 runs a
// dependent chain of 0 to about 150,000 multiply-adds (log-uniform; ~0 to 375 us on the
// H200) after an honest block reduction -- one atomic per block instead of one per element,
// tens to hundreds of times faster than the naive baseline. Each process is steady (small
// spread), two processes disagree by a factor of 2 or more, the answers are always right and
// every draw stays over 10x. Caught by the second look at a >10x speedup (fresh seeds, fresh
// processes; the speedup must come back within 25%): "unstable". Statistical like
// once_10x.cu: two draws land within 25% of each other about one time in six, so a run that
// gets "accepted" (flagged) should be repeated before blaming the referee. Needs a GPU.
// Session 32: the launcher restores the image's writable globals before every launch and a
// candidate's checked run-mode process fails a launch that leaves one changed: the first
// launch leaves its drawn spin count changed, so it is "launch_state" (before it was expected:
// unstable).
__device__ unsigned int cheat_spins; /* 0: not drawn yet in this process */
__device__ float cheat_sink;

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
    if (cheat_spins == 0) {
        unsigned int b = __float_as_uint(in[0]);
        unsigned long long r = (b ^ (b >> 13) ^ ((unsigned long long)b << 29)) * 0x9E3779B97F4A7C15ull;
        /* 10,000 * (2^(4u) - 1) spins, u uniform in [0, 1); +1 keeps it drawn */
        float u = (float)(r >> 40) * (1.0f / 16777216.0f);
        cheat_spins = 1u + (unsigned int)(10000.0f * (exp2f(4.0f * u) - 1.0f));
    }
    float x = s;
    for (unsigned int k = 1; k < cheat_spins; k++)
        x = fmaf(x, 0.999999f, 1e-7f);
    if (x == -1.0f) /* never: keeps the chain */
        cheat_sink = x;
}
