// table_hoist's own test kernel: the first of m bands [exp(w) / 2, cap) that holds a point's
// value, written inline under an if-guarded body with a break.
__global__ void first_reached(int n, int m, const float *w, const float *cap, const float *val, int *first)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = val[i];
        int r = m;
        for (int k = 0; k < m; k++) {
            float lim = expf(w[k]) * 0.5f, hi = cap[k];
            if (x >= lim && x < hi) {
                r = k;
                break;
            }
        }
        first[i] = r;
    }
}
