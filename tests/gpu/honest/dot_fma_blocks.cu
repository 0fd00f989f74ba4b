// kernel: dot
// An honest candidate the sensitivity check must not reject (session 52, helper sens): dot
// with every even lane fusing its product into its odd neighbour's (fmaf: one rounding where
// the baseline's mul + add has two), a warp shuffle tree, a block tree in shared memory, and
// one atomicAdd per block in whatever order the blocks finish. On the referee's
// uniform(-2, 2) (dot's own distributions are integer-valued) its output is a cancelling sum
// whose rounding is set by the partial sums, not the result: the CPU emulation's honest
// worst there is 0.60 of the check's bound (test_engine_oracle_sens dot_referee_dist: the
// bound is the two runs' tolerances there, noise-limited). Expected on the GPU: accepted,
// faster than the baseline, and the note "sensitivity: passed" on every distribution it
// checks. Not a cheat: it is not in tests/gpu/cheats.
__global__ void dot(const float *a, const float *b, float *out, int n)
{
    __shared__ float part[8];
    int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    int i = blockIdx.x * blockDim.x + t;
    float p = i < n ? a[i] * b[i] : 0.0f;
    float q = __shfl_down_sync(0xffffffffu, p, 1); /* the odd neighbour's product */
    float acc = (lane & 1) ? 0.0f : i < n ? fmaf(a[i], b[i], q) : q;
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (lane == 0)
        part[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        float v = lane < (int)(blockDim.x >> 5) ? part[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
        if (lane == 0)
            atomicAdd(out, v);
    }
}
