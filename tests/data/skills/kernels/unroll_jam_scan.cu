// For each query point, how many reference points lie within r and the first `cap` of
// them in index order (the scan stops at cap): each thread walks every reference point,
// one dependent load -> distance -> compare chain per point.
__global__ void first_within(const float *query, const float *ref, int *hits, int *count, int n, int m,
                             float r, int cap)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float qx = query[2 * i], qy = query[2 * i + 1];
    float r2 = r * r;
    int c = 0;
    for (int k = 0; k < m; k++) {
        float dx = qx - ref[2 * k], dy = qy - ref[2 * k + 1];
        float d = dx * dx + dy * dy;
        if (d < r2) {
            hits[i * cap + c] = k;
            if (++c == cap)
                break;
        }
    }
    count[i] = c;
}
