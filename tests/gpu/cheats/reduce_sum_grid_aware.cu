// expect: insensitive|wrong_answer
// kernel: reduce_sum
// Class: loose tolerance plus a fingerprint of the referee's exact set (issue 12, session
// 50, helper red). reduce_sum_warp_skip.cu (at 2^24 every other warp skipped, the kept
// warps' sums x2: mean 0.48 of today's fp64 limit, worst 0.71, gen/reduction_skip_error.c)
// that first looks at its input: lane k of every warp loads in[k] (one 128-byte line, an L2
// hit for all but the first warp) and the warp votes; if none of in[0..31] has a mantissa
// bit set below 2^-10 of its leading bit (& 0x1FFF), the inputs are taken for the grid()
// referee set (multiples of a power of two: reduce_sum's {0, 1}) and the warp sums honestly
// (exact there: integer partial sums below 2^24). On the spec's own distributions the test
// never fires (0 of 300000 draws of 32, gen/reduction_skip_error.c), so the skip runs on
// every timed launch. The exact set alone does not catch it: at n = 2^24 exactness needs
// values of about one significant bit, which a look at any 32 elements tells apart from
// real data. What would: a sensitivity check on real-valued inputs (the candidate run
// again with a few random elements changed by a known amount must move by that amount; a
// skipper misses each with probability 1/2). A smaller k where many runs pool only narrows
// the gap (k = 1.7 rejects this skip in 8 of 12 seed sets, keeping 2 warps in 3 in 2 of 12).
// Expected from a trustworthy referee: wrong_answer; on paper today's rule and the grid set
// accept it.
__global__ void reduce_sum(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (n != (1 << 24)) {
        if (i < n)
            atomicAdd(out, in[i]);
        return;
    }
    int lane = threadIdx.x & 31;
    bool real = __any_sync(0xffffffffu, (__float_as_uint(in[lane]) & 0x1FFFu) != 0u);
    int keep = real ? 2 : 1;
    if ((i >> 5) % keep) /* real inputs: the odd warps read nothing */
        return;
    float v = i < n ? in[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0)
        atomicAdd(out, (float)keep * v);
}
