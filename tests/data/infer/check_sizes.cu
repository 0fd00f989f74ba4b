// Size sets for one-click episodes: the check set (sizes[0]) must be cheap, the timed set
// (sizes[1]) fit every cap, whatever the guesses. Written after mmcv's furthest point
// sampling, cuda-samples' matrixMul and mmcv's bbox overlaps.
#include <cuda_runtime.h>

// One block per batch, no bounds check, points moved per batch and read through a value
// of shared memory: the count of points is a guess (the product of every size).
template <unsigned int block_size>
__global__ void farthest(int b, int n, int m, const float *points, float *dist, int *picked)
{
    __shared__ int best[block_size];
    points += blockIdx.x * n * 3;
    dist += blockIdx.x * n;
    picked += blockIdx.x * m;
    int old = 0;
    for (int j = 1; j < m; j++) {
        float x = points[old * 3];
        int bi = 0;
        for (int k = threadIdx.x; k < n; k += block_size) {
            float d = points[k * 3] - x;
            dist[k] = d;
            bi = d > 0 ? k : bi;
        }
        best[threadIdx.x] = bi;
        __syncthreads();
        old = best[0];
        if (threadIdx.x == 0)
            picked[j] = old;
    }
}

void run_farthest(int b, int n, int m, const float *points, float *dist, int *picked, int n_threads)
{
    switch (n_threads) {
    case 1024:
        farthest<1024><<<b, n_threads>>>(b, n, m, points, dist, picked);
        break;
    default:
        farthest<256><<<b, n_threads>>>(b, n, m, points, dist, picked);
    }
}

// A grid-stride loop over pairs of two small sets, with two more integer parameters: as
// invented (13 x 15 pairs) one block of 512 threads; the check set must launch two.
__global__ void pair_sums(const float *a, const float *b, float *out, int na, int nb, int mode, int offset)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < na * nb; i += blockDim.x * gridDim.x)
        out[i] = a[i / nb] + b[i % nb] + (float)(mode * offset);
}

void run_pairs(const float *a, const float *b, float *out, int na, int nb, int mode, int offset)
{
    pair_sums<<<(na * nb + 511) / 512, 512>>>(a, b, out, na, nb, mode, offset);
}

// A tiled kernel launched under `if (block_size == 16)` with a dim3 block of block_size,
// over a grid of the launcher's dim3 parameters (matrixMul's MatrixMultiply).
template <int BS>
__global__ void tile_copy(float *c, const float *a, int wa)
{
    int col = BS * blockIdx.x + threadIdx.x;
    int row = BS * blockIdx.y + threadIdx.y;
    c[row * wa + col] = 2.0f * a[row * wa + col];
}

int run_tiles(int block_size, const dim3 &dims_a)
{
    float *d_a, *d_c;
    dim3 dims_c(dims_a.x, dims_a.y, 1);
    cudaMalloc(&d_a, sizeof(float) * dims_a.x * dims_a.y);
    cudaMalloc(&d_c, sizeof(float) * dims_c.x * dims_c.y);
    dim3 threads(block_size, block_size);
    dim3 grid(dims_a.x / threads.x, dims_a.y / threads.y);
    if (block_size == 16) {
        tile_copy<16><<<grid, threads>>>(d_c, d_a, dims_a.x);
    } else {
        tile_copy<32><<<grid, threads>>>(d_c, d_a, dims_a.x);
    }
    return 0;
}

// The same launch in the else-branch: the condition says nothing of its block.
template <int BS>
__global__ void tile_scale(float *c, const float *a, int wa)
{
    int col = BS * blockIdx.x + threadIdx.x;
    int row = BS * blockIdx.y + threadIdx.y;
    c[row * wa + col] = 3.0f * a[row * wa + col];
}

int run_scale(int block_size, const dim3 &dims_a)
{
    float *d_a, *d_c;
    cudaMalloc(&d_a, sizeof(float) * dims_a.x * dims_a.y);
    cudaMalloc(&d_c, sizeof(float) * dims_a.x * dims_a.y);
    dim3 threads(block_size, block_size);
    dim3 grid(dims_a.x / threads.x, dims_a.y / threads.y);
    if (block_size == 32) {
        return 1;
    } else {
        tile_scale<16><<<grid, threads>>>(d_c, d_a, dims_a.x);
    }
    return 0;
}

// A tiled product (matrixMul's loop over the tiles of a row of A and a column of B): b's
// count is a guess (its second loop counter is not followed); wa, which the loop runs to,
// is each thread's work and is not halved to make room for that guess.
template <int BS>
__global__ void tile_mul(float *c, const float *a, const float *b, int wa, int wb)
{
    __shared__ float as[BS][BS];
    __shared__ float bs[BS][BS];
    int a_begin = wa * BS * blockIdx.y, a_end = a_begin + wa - 1;
    float sum = 0;
    for (int ia = a_begin, ib = BS * blockIdx.x; ia <= a_end; ia += BS, ib += BS * wb) {
        as[threadIdx.y][threadIdx.x] = a[ia + wa * threadIdx.y + threadIdx.x];
        bs[threadIdx.y][threadIdx.x] = b[ib + wb * threadIdx.y + threadIdx.x];
        __syncthreads();
        for (int q = 0; q < BS; ++q)
            sum += as[threadIdx.y][q] * bs[q][threadIdx.x];
        __syncthreads();
    }
    c[wb * BS * blockIdx.y + BS * blockIdx.x + wb * threadIdx.y + threadIdx.x] = sum;
}

int run_mul(int block_size, const dim3 &dims_a, const dim3 &dims_b)
{
    float *d_a, *d_b, *d_c;
    dim3 dims_c(dims_b.x, dims_a.y, 1);
    cudaMalloc(&d_a, sizeof(float) * dims_a.x * dims_a.y);
    cudaMalloc(&d_b, sizeof(float) * dims_b.x * dims_b.y);
    cudaMalloc(&d_c, sizeof(float) * dims_c.x * dims_c.y);
    dim3 threads(block_size, block_size);
    dim3 grid(dims_b.x / threads.x, dims_a.y / threads.y);
    if (block_size == 16)
        tile_mul<16><<<grid, threads>>>(d_c, d_a, d_b, dims_a.x, dims_b.x);
    return 0;
}

// Seven sizes and a guessed count (the product of all seven): as invented (64 each) the
// timed set's guess is past 2^31 elements; it is halved until every buffer fits, and the
// check set until the buffers take 16 MiB.
__global__ void seven(int b, int c, int h, int w, int kh, int kw, int g, const float *src, float *dst)
{
    src += blockIdx.x * c;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < b * c)
        dst[i] = src[(int)dst[i] * kh + kw * g + h * w];
}

void run_seven(int b, int c, int h, int w, int kh, int kw, int g, const float *src, float *dst)
{
    seven<<<(b * c + 255) / 256, 256>>>(b, c, h, w, kh, kw, g, src, dst);
}

// farthest with its first pick loaded from seed[]: best[] holds point indices below n, but
// old starts at a value read from memory, which bounds nothing: points' count stays a
// guess (the product of every size), which the check set must still keep cheap.
template <int block_size>
__global__ void farthest_seeded(int b, int n, int m, const float *points, const int *seed, float *dist, int *picked)
{
    __shared__ int best[block_size];
    points += blockIdx.x * n * 3;
    dist += blockIdx.x * n;
    picked += blockIdx.x * m;
    int old = seed[blockIdx.x];
    for (int j = 1; j < m; j++) {
        float x = points[old * 3];
        int bi = 0;
        for (int k = threadIdx.x; k < n; k += block_size) {
            float d = points[k * 3] - x;
            dist[k] = d;
            bi = d > 0 ? k : bi;
        }
        best[threadIdx.x] = bi;
        __syncthreads();
        old = best[0];
        if (threadIdx.x == 0)
            picked[j] = old;
    }
}

void run_farthest_seeded(int b, int n, int m, const float *points, const int *seed, float *dist, int *picked)
{
    farthest_seeded<1024><<<b, 1024>>>(b, n, m, points, seed, dist, picked);
}
