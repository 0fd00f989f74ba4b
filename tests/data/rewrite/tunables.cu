// Rewrite fixture: tunables of each kind -- a #define, a constexpr, and a kernel template
// parameter with a default, a launch site and an explicit instantiation.
#include <cuda_runtime.h>

#define TILE 32
constexpr int UNROLL = 4;

template <int BLOCK = 256>
__global__ void block_sum(const float *in, float *out, int n)
{
    __shared__ float buf[BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[UNROLL];
    for (int u = 0; u < UNROLL; u++)
        acc[u] = (i * UNROLL + u) < n ? in[i * UNROLL + u] : 0.0f;
    buf[threadIdx.x] = acc[0] + acc[1] + acc[2] + acc[3];
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (s > threadIdx.x)  // (`threadIdx.x < s` trips tree-sitter-cuda 0.20.4: parsed as a template)
            buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, buf[0]);
}

template __global__ void block_sum<128>(const float *, float *, int);

__global__ void transpose(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows)
        tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < rows && y < cols)
        out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}

void launch_all(const float *in, float *out, int n, int rows, int cols)
{
    block_sum<256><<<(n / UNROLL + 255) / 256, 256>>>(in, out, n);
    dim3 block(TILE, TILE);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose<<<grid, block>>>(in, out, rows, cols);
}
