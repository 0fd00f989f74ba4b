// Probe: three dependent passes per column in double, one thread per column of an n x m
// matrix: the mean, the standard deviation around it, then the count of elements more than
// two deviations from the mean (outliers), as a z-score screen computes them.
__global__ void la_col_zscore3(const double *data, double *sd, int *outliers, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        double mu = 0.0;
        for (int i = 0; i < n; i++)
            mu += data[(size_t)i * m + j];
        mu /= n;
        double v = 0.0;
        for (int i = 0; i < n; i++) {
            double d = data[(size_t)i * m + j] - mu;
            v += d * d;
        }
        double s = sqrt(v / n);
        int k = 0;
        for (int i = 0; i < n; i++)
            if (fabs(data[(size_t)i * m + j] - mu) > 2.0 * s)
                k += 1;
        sd[j] = s;
        outliers[j] = k;
    }
}
