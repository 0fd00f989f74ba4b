// Transpose spellings the tiled-transpose rewrite must recognize, and near-misses it must not.
#include <cstddef>

// early return, other names, W/H as the bounds, index written x + y * W
__global__ void t_early(const double *src, double *dst, int W, int H)
{
    const int x = threadIdx.x + blockIdx.x * blockDim.x;
    const int y = threadIdx.y + blockDim.y * blockIdx.y;
    if (x >= W || y >= H)
        return;
    dst[(size_t)x * H + y] = src[x + (size_t)y * W];
}

// bounds in the other order and written `n > i`, a block around the copy
__global__ void t_block(const int *a, int *b, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (rows > r && c < cols) {
        b[c * rows + r] = a[r * cols + c];
    }
}

// near-miss: a 2D copy, not a transpose
__global__ void copy2d(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h)
        out[y * w + x] = in[y * w + x];
}

// near-miss: the write uses the wrong stride (W instead of H)
__global__ void t_wrong_stride(const float *in, float *out, int W, int H)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < W && y < H)
        out[x * W + y] = in[y * W + x];
}

// near-miss: 1D kernel
__global__ void t_1d(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
