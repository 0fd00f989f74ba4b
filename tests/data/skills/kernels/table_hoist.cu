// For each point (one per thread) the nearest of m lines through the origin, each given by
// its angle: every thread computes the same cosf/sinf of line k in the same iteration.
__global__ void nearest_line(const float *pts, const float *angle, float *dist, int *idx, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = pts[2 * i], y = pts[2 * i + 1];
    float best = 1e30f;
    int besti = 0;
    for (int k = 0; k < m; k++) {
        float a = angle[k];
        float c = cosf(a), s = sinf(a);
        float d = fabsf(x * s - y * c);
        if (d < best) {
            best = d;
            besti = k;
        }
    }
    dist[i] = best;
    idx[i] = besti;
}
