// Probe: covariance of centred data, cov[j1][j2] = sum_i data[i][j1] * data[i][j2] / (n - 1)
// over j2 >= j1, mirrored into cov[j2][j1]; one thread per j1 looping j2 (the loads along
// the thread axis are coalesced, the triangle makes the threads' work uneven). Double.
__global__ void la_covar(int m, int n, const double *data, double *cov)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            double s = 0.0;
            for (int i = 0; i < n; i++)
                s += data[i * m + j1] * data[i * m + j2];
            s /= (n - 1.0);
            cov[j1 * m + j2] = s;
            cov[j2 * m + j1] = s;
        }
    }
}
