// For each query point, the two nearest reference points (distance and index, ties to the
// lower index): each thread walks every reference point of its query in one dependent
// chain, keeping a strict-< cascade of two slots.
__global__ void two_nearest_idx(const float *query, const float *ref, float *dist, int *which, int n, int m)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float qx = query[2 * i], qy = query[2 * i + 1];
        float b1 = 3.0e38f, b2 = 3.0e38f;
        int w1 = -1, w2 = -1;
        for (int k = 0; k < m; k++) {
            float dx = qx - ref[2 * k], dy = qy - ref[2 * k + 1];
            float d = dx * dx + dy * dy;
            if (d < b1) {
                b2 = b1;
                w2 = w1;
                b1 = d;
                w1 = k;
            } else if (d < b2) {
                b2 = d;
                w2 = k;
            }
        }
        dist[2 * i] = b1;
        dist[2 * i + 1] = b2;
        which[2 * i] = w1;
        which[2 * i + 1] = w2;
    }
}
