// One step of Gaussian elimination: threads past the trailing submatrix of step k return
// at once, so the bounds are n - 1 - k and n - k, and k must stay small for them to be
// positive.
#define TILE 4
__global__ void eliminate(const float *factor, float *mat, int n, int k)
{
    if (threadIdx.x + blockIdx.x * blockDim.x >= n - 1 - k)
        return;
    if (threadIdx.y + blockIdx.y * blockDim.y >= n - k)
        return;
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    mat[n * (r + 1 + k) + c + k] -= factor[n * (r + 1 + k) + k] * mat[n * k + c + k];
}

// Its launcher rounds the grid up with a remainder test.
void run(const float *factor, float *mat, int n)
{
    int tile = TILE, blocks;
    blocks = (n / tile) + (!(n % tile ? 0 : 1));
    dim3 threads(tile, tile);
    dim3 grid(blocks, blocks);
    for (int k = 0; k < n - 1; k++)
        eliminate<<<grid, threads>>>(factor, mat, n, k);
}

// The same step, no launcher.
__global__ void eliminate_alone(const float *factor, float *mat, int n, int k)
{
    if (threadIdx.x + blockIdx.x * blockDim.x >= n - 1 - k)
        return;
    if (threadIdx.y + blockIdx.y * blockDim.y >= n - k)
        return;
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    mat[n * (r + 1 + k) + c + k] -= factor[n * (r + 1 + k) + k] * mat[n * k + c + k];
}
