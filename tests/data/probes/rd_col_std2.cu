// Probe: a two-pass standard deviation of each column in one kernel, one thread per column:
// the mean by a first loop over the rows, then the squared deviations by a second.
__global__ void rd_col_std2(const float *data, float *stddev, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float mu = 0.0f;
    for (int i = 0; i < n; i++)
        mu += data[i * m + j];
    mu /= n;
    float v = 0.0f;
    for (int i = 0; i < n; i++) {
        float t = data[i * m + j] - mu;
        v += t * t;
    }
    stddev[j] = sqrtf(v / (n - 1));
}
