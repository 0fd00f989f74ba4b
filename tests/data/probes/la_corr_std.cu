// Probe: correlation's second kernel, the standard deviation of each column of an n x m data
// matrix around its given mean, one thread per column j, the sum in a local, a floor on
// tiny deviations (as correlation codes keep a zero column from dividing by zero). Float.
__global__ void la_corr_std(int m, int n, float float_n, float eps, const float *data, const float *mean,
                            float *stddev)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        float s = 0.0f;
        for (int i = 0; i < n; i++) {
            float d = data[i * m + j] - mean[j];
            s += d * d;
        }
        s = sqrtf(s / float_n);
        stddev[j] = s <= eps ? 1.0f : s;
    }
}
