// Probe: correlation's last kernel on normalized data, corr[j1][j2] = sum_i d[i][j1] * d[i][j2]
// for j2 > j1, mirrored, 1 on the diagonal; one thread per j1 looping over j2 (as covariance
// does). Float, size_t row offsets.
__global__ void la_corr_corr(int m, int n, const float *data, float *corr)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 >= m)
        return;
    corr[(size_t)j1 * m + j1] = 1.0f;
    for (int j2 = j1 + 1; j2 < m; j2++) {
        float acc = 0.0f;
        for (int i = 0; i < n; i++)
            acc += data[(size_t)i * m + j1] * data[(size_t)i * m + j2];
        corr[(size_t)j1 * m + j2] = acc;
        corr[(size_t)j2 * m + j1] = acc;
    }
}
