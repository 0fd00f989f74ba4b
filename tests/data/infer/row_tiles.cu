// 2-D kernels without bounds checks and without a launch: each thread writes one element
// of a matrix row, rows `width` (or `stride + 1`) apart. The grid is the inference's to
// choose along the one size the kernel never reads.
#define SIDE 16 // tile side (the comment is no part of the value)
#define BAND 8  /* rows per block */

__global__ void smooth_tiles(float *out, const float *src, int width, int height)
{
    int col = SIDE * blockIdx.x + threadIdx.x;
    int row = SIDE * blockIdx.y + threadIdx.y;
    float v = src[width * row + col];
    if (blockIdx.y == gridDim.y - 1)
        v += src[width * SIDE * (gridDim.y - 1) + width * (SIDE - 1) + col];
    out[width * row + col] = 0.5f * v;
}

__global__ void nudge_band(float *weights, const float *grad, int stride, int count)
{
    int r = BAND * blockIdx.y + threadIdx.y + 1;
    int c = threadIdx.x + 1;
    weights[(stride + 1) * r + c] += 0.1f * grad[c];
}

__global__ void scale_known_height(float *out, int width, int height)
{
    int col = SIDE * blockIdx.x + threadIdx.x;
    int row = SIDE * blockIdx.y + threadIdx.y;
    out[width * row + col] = (float)height;
}

__global__ void narrow_rows(float *out, int rows, int fill)
{
    out[4 * (SIDE * blockIdx.y + threadIdx.y) + threadIdx.x] = (float)fill;
}

__global__ void sparse_rows(float *out, const float *src, int stride, int count)
{
    int r = BAND * blockIdx.y + threadIdx.y;
    out[stride * r + threadIdx.x] = src[threadIdx.x];
}
