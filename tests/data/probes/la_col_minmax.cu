// Probe: per-column min-max normalisation statistics, one thread per column of an n x m
// matrix: the column's range by a first loop (a minimum and a maximum), then by a second the
// mean of the column scaled to [0, 1] and how many of its elements lie in the upper half.
__global__ void la_col_minmax(const float *data, float *mean01, int *upper, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float lo = data[j];
    float hi = data[j];
    for (int i = 1; i < n; i++) {
        float x = data[(size_t)i * m + j];
        lo = fminf(lo, x);
        hi = fmaxf(hi, x);
    }
    float inv = hi > lo ? 1.0f / (hi - lo) : 0.0f;
    float s = 0.0f;
    int k = 0;
    for (int i = 0; i < n; i++) {
        float z = (data[(size_t)i * m + j] - lo) * inv;
        s += z;
        if (z >= 0.5f)
            k += 1;
    }
    mean01[j] = s / n;
    upper[j] = k;
}
