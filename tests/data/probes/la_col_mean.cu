// Probe: the mean of each column of an n x m data matrix (one thread per column j), the sum
// kept in the output element, float, int indices.
__global__ void la_col_mean(int m, int n, float float_n, const float *data, float *mean)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        mean[j] = 0.0f;
        for (int i = 0; i < n; i++)
            mean[j] += data[i * m + j];
        mean[j] /= float_n;
    }
}
