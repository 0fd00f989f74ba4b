// double_narrowing's result on kernels/double_narrowing.cu: the best distances in float,
// the literal written (float)1e40 (+inf): FSETP compares, no F2F.F64.F32 nor DSETP.
__global__ void two_nearest(const float *query, const float *ref, float *dist, int *idx, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float qx = query[2 * i], qy = query[2 * i + 1];
    float near1 = (float)1e40, near2 = (float)1e40;
    int k1 = 0, k2 = 0;
    for (int k = 0; k < m; k++) {
        float dx = qx - ref[2 * k], dy = qy - ref[2 * k + 1];
        float d = dx * dx + dy * dy;
        if (d < near1) {
            near2 = near1;
            k2 = k1;
            near1 = d;
            k1 = k;
        } else if (d < near2) {
            near2 = d;
            k2 = k;
        }
    }
    dist[2 * i] = near1;
    dist[2 * i + 1] = near2;
    idx[2 * i] = k1;
    idx[2 * i + 1] = k2;
}
