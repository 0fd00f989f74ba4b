// one thread per row, a loop over the row's columns writing its own elements (covariance)
__global__ void covar(int m, int n, const float *data, float *cov)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            float s = 0.0f;
            for (int i = 0; i < n; i++)
                s += data[i * m + j1] * data[i * m + j2];
            cov[j1 * m + j2] = s;
            cov[j2 * m + j1] = s;
        }
    }
}
