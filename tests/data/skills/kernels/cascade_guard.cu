// For each query point, the three nearest reference points (brute force), kept sorted in
// three scalars by an insertion cascade: three compares and branches per candidate where
// one (d < best3) decides all but a few.
__global__ void three_nearest(const float *query, const float *ref, float *dist, int *idx, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float qx = query[2 * i], qy = query[2 * i + 1];
    float best1 = 3.0e38f, best2 = 3.0e38f, best3 = 3.0e38f;
    int k1 = 0, k2 = 0, k3 = 0;
    for (int k = 0; k < m; k++) {
        float dx = qx - ref[2 * k], dy = qy - ref[2 * k + 1];
        float d = dx * dx + dy * dy;
        if (d < best1) {
            best3 = best2;
            k3 = k2;
            best2 = best1;
            k2 = k1;
            best1 = d;
            k1 = k;
        } else if (d < best2) {
            best3 = best2;
            k3 = k2;
            best2 = d;
            k2 = k;
        } else if (d < best3) {
            best3 = d;
            k3 = k;
        }
    }
    dist[3 * i] = best1;
    dist[3 * i + 1] = best2;
    dist[3 * i + 2] = best3;
    idx[3 * i] = k1;
    idx[3 * i + 1] = k2;
    idx[3 * i + 2] = k3;
}
