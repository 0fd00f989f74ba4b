// register_threshold: the k nearest of n 2-D points a query, a max-heap in local arrays
// whose root every point is compared with (the sample of sm90-register-threshold).
__device__ void sift(float *v, int *id, int k)
{
    int p = 0;
    for (;;) {
        int c = 2 * p + 1;
        if (c >= k)
            break;
        if (c + 1 < k && v[c + 1] > v[c])
            c++;
        if (v[p] >= v[c])
            break;
        float tv = v[p]; v[p] = v[c]; v[c] = tv;
        int ti = id[p]; id[p] = id[c]; id[c] = ti;
        p = c;
    }
}
__global__ void nearest_k(int n, int m, int k, const float *q, const float *ref, float *dist, int *idx)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= m)
        return;
    float top[32];
    int at[32];
    for (int j = 0; j < k; j++) {
        top[j] = 3.0e38f;
        at[j] = -1;
    }
    const float qx = q[2 * t], qy = q[2 * t + 1];
    for (int i = 0; i < n; i++) {
        const float dx = ref[2 * i] - qx, dy = ref[2 * i + 1] - qy;
        const float d = dx * dx + dy * dy;
        if (d < top[0]) {
            top[0] = d;
            at[0] = i;
            sift(top, at, k);
        }
    }
    for (int j = 0; j < k; j++) {
        dist[t * k + j] = top[j];
        idx[t * k + j] = at[j];
    }
}
