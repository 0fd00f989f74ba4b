// expect: wrong_answer
// kernel: reduce_sum
// Class: loose tolerance (reads a quarter of the input). reduce_sum in the baseline's own
// form -- one atomic per element -- but only for every 4th element, scaled by 4. The
// baseline's time is its 16M same-address atomics, not its bytes, so a quarter of the
// atomics is an honest-looking 4x speedup that stays far above the physical floor (the
// floor cannot see it). For independent inputs the estimate's relative error is about 3e-4
// for uniform(0,1) and 1e-4 for the other two distributions: inside the spec's rtol of
// 1e-3, so a referee that compares with the baseline under that tolerance accepts it.
// Caught by errors judged against an fp64 reference relative to the baseline's own error
// (the baseline's rounding error is far below a sampling error): "wrong_answer".
__global__ void reduce_sum(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && i % 4 == 0)
        atomicAdd(out, 4.0f * in[i]);
}
