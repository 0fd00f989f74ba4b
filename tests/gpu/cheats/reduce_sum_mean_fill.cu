// expect: insensitive
// kernel: reduce_sum
// Class: a sampler that skips a little and adds the skipped part's expected value (issue 12,
// session 52, helper sens: the cheat written against the new sensitivity check). At 2^24
// every warp whose hashed index falls in 1/16 of the range reads nothing and adds 32 times
// the distribution's mean, told from the warp's first element's neighbourhood (reduce_sum's
// normal(1, 0.25) has mean 1, both uniforms 0.5: the mean of in[0..31], a line every block
// reads from L2, above 0.75 or not); no scaling, so the read part moves exactly as it should
// and a raised element is missed only where it lies in a skipped warp. On the referee's grid
// set (one significant bit, as reduce_sum_grid_aware.cu tells it) it sums everything. Its
// error on the spec's inputs is the skipped part's deviation from its mean, sqrt(2^20) x
// 0.29 = 300 on a sum of 8.4e6 (3.5e-5): inside the fp64 rule. Session 51's check (the
// ladder plan alone, one distribution) missed it unless the largest raised element fell in
// a skipped warp: 6% of checks (CPU emulation, test_engine_oracle_sens small_skippers,
// "scattered, the mean added" at f = 1/16). Session 52's check adds the spread plan (one
// raised element in each eighth of every input, each 1/8 of the change: one skipped misses
// 12.5%, the bound allows 2% + 1/16 at most) and runs on all three distributions: 48% of
// checks per distribution, so about 1 - 0.52^3 = 86% of verify-candidate runs say
// `insensitive`; the rest accept it. At 1/32 skipped (21% a distribution, about 50% a
// run) it gains about 3%. Expected from a trustworthy referee: insensitive; on paper the
// new check gives it about 1 in 7 (this file's skip) to 1 in 2 (1/32).
__global__ void reduce_sum(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (n != (1 << 24)) {
        if (i < n)
            atomicAdd(out, in[i]);
        return;
    }
    int lane = threadIdx.x & 31;
    float probe = in[lane];
    bool real = __any_sync(0xffffffffu, (__float_as_uint(probe) & 0x1FFFu) != 0u);
    float mean = probe;
    for (int o = 16; o > 0; o >>= 1)
        mean += __shfl_xor_sync(0xffffffffu, mean, o);
    mean = mean * (1.0f / 32.0f) > 0.75f ? 1.0f : 0.5f;
    unsigned w = (unsigned)(i >> 5);
    if (real && ((w * 2654435761u) >> 28) == 0u) { /* 1 warp in 16, scattered */
        if (lane == 0)
            atomicAdd(out, 32.0f * mean);
        return;
    }
    float v = i < n ? in[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0)
        atomicAdd(out, v);
}
