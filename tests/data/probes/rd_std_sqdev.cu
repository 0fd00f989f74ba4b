// Probe: the second kernel of a two-pass standard deviation -- sum of squared deviations
// from the mean computed by the first, a grid-stride loop with fmaf, one atomicAdd per
// thread of its partial sum.
__global__ void rd_std_sqdev(const float *x, const float *mean, float *sqsum, int n)
{
    float mu = mean[0];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float d = x[i] - mu;
        acc = fmaf(d, d, acc);
    }
    atomicAdd(sqsum, acc);
}
