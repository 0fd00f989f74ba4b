// For each query point (one per thread) the nearest of m reference points, brute force:
// every thread of a block reads the same ref[3 * k ...] in the same iteration, each warp
// its own load of it, before a compare-and-swap that depends on the load.
__global__ void nearest(const float *query, const float *ref, float *dist, int *idx, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float qx = query[3 * i], qy = query[3 * i + 1], qz = query[3 * i + 2];
    float best = 1e30f;
    int besti = 0;
    for (int k = 0; k < m; k++) {
        float x = ref[3 * k], y = ref[3 * k + 1], z = ref[3 * k + 2];
        float d = (qx - x) * (qx - x) + (qy - y) * (qy - y) + (qz - z) * (qz - z);
        if (d < best) {
            best = d;
            besti = k;
        }
    }
    dist[i] = best;
    idx[i] = besti;
}
