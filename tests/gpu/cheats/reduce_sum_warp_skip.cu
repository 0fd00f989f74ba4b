// expect: wrong_answer
// kernel: reduce_sum
// Class: loose tolerance, the baseline's own error widening the comparison (issue 12,
// session 50, helper red). lopsided_sum.cu made faster and safer: at n = 2^24 (the spec's
// primary, timed size) every other warp returns at once, reading nothing; each kept warp
// sums its 32 elements with a shuffle tree and adds twice that with one atomic: 262144
// same-address atomics where the baseline issues 16.7M (64x fewer; atomics bound both) and
// half as many as the same warp-reduction kernel summing every warp, reading half the
// input -- still above reduce_sum's physical floor (64 MB at peak bandwidth), where a block
// reduction skipping half would fall below it. At any other n the baseline's own kernel,
// exact to it (a scalar output is pooled over both sizes). Estimated with
// gen/reduction_skip_error.c (the real oracle_ref64_judge; 12 seed sets of the spec's 6
// seeds x 3 distributions x 2 sizes): mean 0.48 of the fp64 rule's limit, worst 0.71, 12 of
// 12 pass (keeping 1 warp in 4, as lopsided_sum does, passes 9 of 12: mean 0.76); the
// spec's rtol 1e-3 is about 10x looser still (the candidate is ~7e-5 off). Expected from a
// trustworthy referee: wrong_answer; on paper today's rule accepts it. The grid() referee
// set (helper exact, session 50: reduce_sum's inputs drawn from {0, 1}, the baseline exact,
// the floor the limit) catches it: half a sum of 0/1 values is off 1e-4 to 4e-4 relative,
// 100-380x the floor.
__global__ void reduce_sum(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (n != (1 << 24)) {
        if (i < n)
            atomicAdd(out, in[i]);
        return;
    }
    if ((i >> 5) & 1) /* the odd warps (n is a multiple of 32: whole warps) */
        return;
    float v = i < n ? in[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, 2.0f * v);
}
