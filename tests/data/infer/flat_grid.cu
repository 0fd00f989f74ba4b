// The global index of a 2-D grid laid out flat, as Rodinia's nn writes it to pass the grid's
// x limit: blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x. gridDim there
// is no grid-stride loop: the launch's grid must launch every block the bound needs, split
// over x and y in any shape.
#include <cuda_runtime.h>

__global__ void dist(const float2 *p, float *d, int n, float x, float y)
{
    int i = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
    if (i < n)
        d[i] = sqrtf((p[i].x - x) * (p[i].x - x) + (p[i].y - y) * (p[i].y - y));
}

// the same kernel launched on half the blocks it needs (the program's own bug)
__global__ void dist_short(const float2 *p, float *d, int n, float x, float y)
{
    int i = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
    if (i < n)
        d[i] = sqrtf((p[i].x - x) * (p[i].x - x) + (p[i].y - y) * (p[i].y - y));
}

// one partial sum per block, numbered over the grid's shape: no bounds check says which
// grid writes every element of sums
__global__ void block_sums(const float *in, float *sums, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && threadIdx.x == 0)
        sums[blockIdx.y * gridDim.x + blockIdx.x] = in[i];
}

int main()
{
    int n = 1 << 20;
    float2 *p;
    float *d, *sums;
    cudaMalloc(&p, n * sizeof(float2));
    cudaMalloc(&d, n * sizeof(float));
    cudaMalloc(&sums, n / 256 * sizeof(float));
    unsigned long blocks = (n + 255) / 256;
    unsigned long gridY = (blocks + 65534) / 65535;
    unsigned long gridX = (blocks + gridY - 1) / gridY;
    dim3 grid(gridX, gridY);
    dist<<<grid, 256>>>(p, d, n, 0.5f, 0.25f);
    dim3 half(blocks / 4, 2);
    dist_short<<<half, 256>>>(p, d, n, 0.5f, 0.25f);
    dim3 planes(blocks / 2, 2);
    block_sums<<<planes, 256>>>(d, sums, n);
    cudaDeviceSynchronize();
    return 0;
}
