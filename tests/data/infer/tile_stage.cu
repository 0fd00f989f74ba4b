// Points staged through shared memory a tile at a time: the last tile is cut at m
// (end = min(m, k + TILE) - k), so every subscript of the tile, the remainder loop's that
// starts at end & ~3 too, stays below TILE whatever m is. A tile indexed by m itself
// (tile[m - k - 1]) can leave the array.
#define TILE 256

__global__ void nearest(const float *pts, int n, const float *ref, int m, float *best)
{
    __shared__ float tile[TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float p = i < n ? pts[i] : 0.0f;
    float d = 1e30f;
    for (int k = 0; k < m; k += TILE) {
        int end = min(m, k + TILE) - k;
        for (int j = threadIdx.x; j < end; j += blockDim.x)
            tile[j] = ref[k + j];
        __syncthreads();
        int body = end & ~3; /* four at a time, then the rest */
        for (int j = 0; j < body; j += 4)
            d = fminf(fminf(d, fabsf(tile[j] - p)), fminf(fabsf(tile[j + 1] - p),
                      fminf(fabsf(tile[j + 2] - p), fabsf(tile[j + 3] - p))));
        for (int j = body; j < end; j++)
            d = fminf(d, fabsf(tile[j] - p));
        __syncthreads();
    }
    if (i < n)
        best[i] = d;
}

__global__ void nearest_tail(const float *pts, int n, const float *ref, int m, float *best)
{
    __shared__ float tile[TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float p = i < n ? pts[i] : 0.0f;
    float d = 1e30f;
    for (int k = 0; k < m; k += TILE) {
        int end = min(m, k + TILE) - k;
        for (int j = threadIdx.x; j < end; j += blockDim.x)
            tile[j] = ref[k + j];
        __syncthreads();
        for (int j = 0; j < end; j++)
            d = fminf(d, fabsf(tile[(j + m) % TILE] - p) + tile[m - k - 1]);
        __syncthreads();
    }
    if (i < n)
        best[i] = d;
}
