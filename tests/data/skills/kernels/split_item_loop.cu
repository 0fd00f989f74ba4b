// One block per item (split_item_loop): each block walks the items by gridDim.x, stages a
// tile of the other point set in shared memory and keeps a running nearest distance per
// point of its item.
#define TILE 256

__global__ void nearest_per_item(int b, int n, const float *p, int m, const float *q, float *dist)
{
    __shared__ float tile[TILE];
    for (int i = blockIdx.x; i < b; i += gridDim.x) {
        for (int t = 0; t < m; t += TILE) {
            int len = min(m - t, TILE);
            for (int k = threadIdx.x; k < len; k += blockDim.x)
                tile[k] = q[i * m + t + k];
            __syncthreads();
            for (int j = threadIdx.x; j < n; j += blockDim.x) {
                float x = p[i * n + j], best = t == 0 ? 1e30f : dist[i * n + j];
                for (int k = 0; k < len; k++)
                    best = fminf(best, (tile[k] - x) * (tile[k] - x));
                dist[i * n + j] = best;
            }
            __syncthreads();
        }
    }
}
