// expect: wrong_answer
// kernel: reduce_sum
// Class: loose tolerance, the baseline's own error widening the comparison (issue 12,
// session 49, ref12). strided_sum.cu only where it pays: at n = 2^24 (the spec's primary,
// timed size) one atomic for every 4th element, scaled by 4 (a quarter of the baseline's
// 16M same-address atomics: an honest-looking 4x, far above the physical floor); at any
// other n the baseline's own kernel, exact to it. The fp64 rule's limit is k = 4 times the
// baseline's RMS error, and the baseline's naive float sum is at its least accurate at 2^24
// on reduce_sum's all-positive distributions (the running sum reaches 8e6-1.7e7, where an
// ulp is 0.5-2): estimated (gen/lopsided_sum_error.c, 6 seeds) 4.5e-5 there, 1.7e-5 at
// 1000003, so the limit is 1.4e-4 pooled (1.8e-4 for the 2^24 runs alone) while a 25% sample
// is 1.35e-4 off at 2^24: 0.70 of the pooled limit, 0.75 judged at 2^24 alone. On the
// spec's distributions this referee still accepts it. Expected: wrong_answer, since session
// 50 from the referee's own grid distribution (docs/accuracy.md, "The exact distribution"):
// grid(0,1.5) gives every input 0 or 1, every float order of the sum is exact there, the
// baseline's error is 0, and where the baseline is exact the limit is the floor (9.5e-7)
// alone, scalars judged per size; the sample is 2.8e-4..4e-4 off in every seed, 300x the
// floor (tests/unit/test_engine_oracle_exact.c, on a CPU emulation; no GPU run yet). A
// variant that recognised the grid's values and summed honestly on them would pass: see
// the README note.
__global__ void reduce_sum(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (n != (1 << 24)) {
        if (i < n)
            atomicAdd(out, in[i]);
        return;
    }
    if (i < n && i % 4 == 0)
        atomicAdd(out, 4.0f * in[i]);
}
