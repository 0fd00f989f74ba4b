// Tiled matrix products whose B no allocation sizes: its count comes from the index math,
// through a tile loop whose trip is ceil_div(wA, BS) and a block index scaled by the
// template's BS, which the launch pins to the block (blockIdx.x * BS + threadIdx.x is the
// global thread index). Two spellings of the same product C = A * B, row major, A hA x wA.
#include <cuda_runtime.h>

// cuda-samples' matrixMul: two induction variables, a <= aEnd stepping by the tile.
template <int BS> __global__ void tile_mm_pair(float *C, float *A, float *B, int wA, int wB)
{
    int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    int aBegin = wA * BS * by;
    int aEnd = aBegin + wA - 1;
    int bBegin = BS * bx;
    int bStep = BS * wB;
    float sum = 0;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += BS, b += bStep) {
        __shared__ float As[BS][BS];
        __shared__ float Bs[BS][BS];
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
        for (int k = 0; k < BS; ++k)
            sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    int c = wB * BS * by + BS * bx;
    C[c + wB * ty + tx] = sum;
}

// The same with one tile counter and the row and column spelled out.
template <int BS> __global__ void tile_mm_counter(float *C, float *A, float *B, int wA, int wB)
{
    __shared__ float As[BS][BS];
    __shared__ float Bs[BS][BS];
    int row = blockIdx.y * BS + threadIdx.y;
    int col = blockIdx.x * BS + threadIdx.x;
    float sum = 0;
    for (int t = 0; t < (wA + BS - 1) / BS; ++t) {
        As[threadIdx.y][threadIdx.x] = A[row * wA + t * BS + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * BS + threadIdx.y) * wB + col];
        __syncthreads();
        for (int k = 0; k < BS; ++k)
            sum += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * wB + col] = sum;
}

void product_pair(float *C, float *A, float *B, int hA, int wA, int wB)
{
    dim3 threads(32, 32);
    dim3 grid(wB / threads.x, hA / threads.y);
    tile_mm_pair<32><<<grid, threads>>>(C, A, B, wA, wB);
}

void product_counter(float *C, float *A, float *B, int hA, int wA, int wB)
{
    dim3 threads(32, 32);
    dim3 grid(wB / 32, hA / 32);
    tile_mm_counter<32><<<grid, threads>>>(C, A, B, wA, wB);
}
