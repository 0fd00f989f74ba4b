// Probe: the second pass of a per-column standard deviation (a feature's std over n samples,
// the mean given by the first pass), one thread per column, the sum kept in the output
// element, then the root and a floor against a zero spread.
#define FLOAT_N 3214.0f
#define EPS 0.1f
__global__ void rd_col_std(int m, int n, const float *data, const float *mean, float *stddev)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        stddev[j] = 0.0f;
        for (int i = 0; i < n; i++)
            stddev[j] += (data[i * m + j] - mean[j]) * (data[i * m + j] - mean[j]);
        stddev[j] /= FLOAT_N;
        stddev[j] = sqrtf(stddev[j]);
        stddev[j] = stddev[j] <= EPS ? 1.0f : stddev[j];
    }
}
