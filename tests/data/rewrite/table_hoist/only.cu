// table_hoist's own test kernel: the first of m thresholds exp(w) / 2 that a point's value
// reaches; the table is read only inside the value the block computes once per element.
__global__ void first_reached(int n, int m, const float *w, const float *val, int *first)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = val[i];
        int r = m;
        for (int k = 0; k < m; k++) {
            float lim = expf(w[k]) * 0.5f;
            if (x >= lim) {
                r = k;
                break;
            }
        }
        first[i] = r;
    }
}
