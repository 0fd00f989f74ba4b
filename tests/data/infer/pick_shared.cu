// Furthest point sampling: each step picks the point farthest from those picked, through a
// block-wide argmax in shared memory, and reads the picked point again. Its index is a
// value read back from shared memory; every value stored there is a point index below n
// (or 0), so dataset's count is b * n * 3 from the index math. Two spellings (mmcv's, with
// moved pointers and a reduction loop; and subscripts with the batch's offset, part of the
// reduction unrolled), and one whose shared array also takes values loaded from memory:
// no bound, its count stays a guess.
#include <cuda_runtime.h>

__device__ void keep_max(float *dists, int *dists_i, int a, int b)
{
    float d1 = dists[a], d2 = dists[b];
    int i2 = dists_i[b];
    dists[a] = fmaxf(d1, d2);
    dists_i[a] = d2 > d1 ? i2 : dists_i[a];
}

template <unsigned int block_size>
__global__ void pick_local(int b, int n, int m, const float *__restrict__ dataset, float *__restrict__ temp,
                           int *__restrict__ idxs)
{
    if (m <= 0)
        return;
    __shared__ float dists[block_size];
    __shared__ int dists_i[block_size];
    int batch_index = blockIdx.x;
    dataset += batch_index * n * 3;
    temp += batch_index * n;
    idxs += batch_index * m;
    int tid = threadIdx.x;
    int old = 0;
    if (threadIdx.x == 0)
        idxs[0] = old;
    __syncthreads();
    for (int j = 1; j < m; j++) {
        int besti = 0;
        float best = -1;
        float x1 = dataset[old * 3 + 0], y1 = dataset[old * 3 + 1], z1 = dataset[old * 3 + 2];
        for (int k = tid; k < n; k += block_size) {
            float x2 = dataset[k * 3 + 0], y2 = dataset[k * 3 + 1], z2 = dataset[k * 3 + 2];
            float d = (x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1) + (z2 - z1) * (z2 - z1);
            float d2 = min(d, temp[k]);
            temp[k] = d2;
            besti = d2 > best ? k : besti;
            best = d2 > best ? d2 : best;
        }
        dists[tid] = best;
        dists_i[tid] = besti;
        __syncthreads();
        for (int s = block_size / 2; s > 0; s >>= 1) {
            if (tid < s)
                keep_max(dists, dists_i, tid, tid + s);
            __syncthreads();
        }
        old = dists_i[0];
        if (tid == 0)
            idxs[j] = old;
    }
}

template <unsigned int block_size>
__global__ void pick_offsets(int b, int n, int m, const float *__restrict__ points, float *__restrict__ near,
                             int *__restrict__ picked)
{
    __shared__ float dists[block_size];
    __shared__ int dists_i[block_size];
    int last = 0;
    for (int j = 1; j < m; j++) {
        int at = (blockIdx.x * n + last) * 3;
        float x1 = points[at], y1 = points[at + 1], z1 = points[at + 2];
        int besti = 0;
        float best = -1;
        for (int k = threadIdx.x; k < n; k += block_size) {
            int q = (blockIdx.x * n + k) * 3;
            float d = (points[q] - x1) * (points[q] - x1) + (points[q + 1] - y1) * (points[q + 1] - y1) +
                      (points[q + 2] - z1) * (points[q + 2] - z1);
            float d2 = fminf(d, near[blockIdx.x * n + k]);
            near[blockIdx.x * n + k] = d2;
            besti = d2 > best ? k : besti;
            best = fmaxf(d2, best);
        }
        dists[threadIdx.x] = best;
        dists_i[threadIdx.x] = besti;
        __syncthreads();
        if (block_size >= 256 && threadIdx.x < 128)
            keep_max(dists, dists_i, threadIdx.x, threadIdx.x + 128);
        __syncthreads();
        for (int s = 64; s > 0; s >>= 1) {
            if (threadIdx.x < s)
                keep_max(dists, dists_i, threadIdx.x, threadIdx.x + s);
            __syncthreads();
        }
        last = dists_i[0];
        if (threadIdx.x == 0)
            picked[blockIdx.x * m + j] = last;
        __syncthreads();
    }
}

// dists_i also takes a value loaded from start[]: nothing bounds what the pick reads
template <unsigned int block_size>
__global__ void pick_loaded(int b, int n, int m, const float *__restrict__ dataset, const int *__restrict__ start,
                            float *__restrict__ temp, int *__restrict__ idxs)
{
    __shared__ float dists[block_size];
    __shared__ int dists_i[block_size];
    dataset += blockIdx.x * n * 3;
    temp += blockIdx.x * n;
    if (threadIdx.x == 0)
        dists_i[0] = start[blockIdx.x];
    __syncthreads();
    int old = dists_i[0];
    for (int j = 1; j < m; j++) {
        float x1 = dataset[old * 3];
        int besti = 0;
        float best = -1;
        for (int k = threadIdx.x; k < n; k += block_size) {
            float d = (dataset[k * 3] - x1) * (dataset[k * 3] - x1);
            float d2 = min(d, temp[k]);
            temp[k] = d2;
            besti = d2 > best ? k : besti;
            best = d2 > best ? d2 : best;
        }
        dists[threadIdx.x] = best;
        dists_i[threadIdx.x] = besti;
        __syncthreads();
        for (int s = block_size / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s)
                keep_max(dists, dists_i, threadIdx.x, threadIdx.x + s);
            __syncthreads();
        }
        old = dists_i[0];
        if (threadIdx.x == 0)
            idxs[blockIdx.x * m + j] = old;
    }
}

void sample(int b, int n, int m, const float *dataset, const int *start, float *temp, int *idxs)
{
    pick_local<256><<<b, 256>>>(b, n, m, dataset, temp, idxs);
    pick_offsets<256><<<b, 256>>>(b, n, m, dataset, temp, idxs);
    pick_loaded<256><<<b, 256>>>(b, n, m, dataset, start, temp, idxs);
}
