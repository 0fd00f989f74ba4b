// A tile of xyz2 staged through shared memory, the last tile short: the staging loop's bound
// is a min of the tile and what is left of m, and xyz2's count, 2 * b * m, follows from it
// (the tile counter cancels), not from the tile loop's rounded-up trip. Two spellings:
// mmcv's chamfer distance, and the min taken of what is left.
#include <cuda_runtime.h>

#define TILE 512

__global__ void stage_end(int b, int n, const float *xyz, int m, const float *xyz2, float *result)
{
    __shared__ float buf[TILE * 2];
    for (int i = blockIdx.x; i < b; i += gridDim.x) {
        for (int k2 = 0; k2 < m; k2 += TILE) {
            int end_k = min(m, k2 + TILE) - k2;
            for (int j = threadIdx.x; j < end_k * 2; j += blockDim.x)
                buf[j] = xyz2[(i * m + k2) * 2 + j];
            __syncthreads();
            for (int j = threadIdx.x; j < n; j += blockDim.x) {
                float x1 = xyz[(i * n + j) * 2 + 0];
                float y1 = xyz[(i * n + j) * 2 + 1];
                float best = 1e10f;
                for (int k = 0; k < end_k; k++) {
                    float dx = buf[k * 2] - x1, dy = buf[k * 2 + 1] - y1;
                    best = fminf(best, dx * dx + dy * dy);
                }
                if (k2 == 0 || result[i * n + j] > best)
                    result[i * n + j] = best;
            }
            __syncthreads();
        }
    }
}

__global__ void stage_left(int b, int n, const float *xyz, int m, const float *xyz2, float *result)
{
    __shared__ float buf[TILE * 2];
    for (int i = blockIdx.x; i < b; i += gridDim.x) {
        for (int k2 = 0; k2 < m; k2 += TILE) {
            for (int j = threadIdx.x; j < 2 * min(TILE, m - k2); j += blockDim.x)
                buf[j] = xyz2[2 * (i * m + k2) + j];
            __syncthreads();
            int left = min(TILE, m - k2);
            for (int j = threadIdx.x; j < n; j += blockDim.x) {
                float best = 1e10f;
                for (int k = 0; k < left; k++) {
                    float dx = buf[2 * k] - xyz[2 * (i * n + j)], dy = buf[2 * k + 1] - xyz[2 * (i * n + j) + 1];
                    best = fminf(best, dx * dx + dy * dy);
                }
                if (k2 == 0 || result[i * n + j] > best)
                    result[i * n + j] = best;
            }
            __syncthreads();
        }
    }
}

void nearest(const float *xyz, const float *xyz2, float *result, int batch, int n, int m)
{
    stage_end<<<batch, TILE>>>(batch, n, xyz, m, xyz2, result);
    stage_left<<<batch, TILE>>>(batch, n, xyz, m, xyz2, result);
}
