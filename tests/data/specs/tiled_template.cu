// Test kernel (templated): each block sums TILE-wide chunks of a row into out[row];
// the grid is 2D and the block size is a template parameter.
template <int TILE, typename T>
__global__ void row_sum(const T *in, T *out, int rows, int cols)
{
    __shared__ T part[TILE];
    int row = blockIdx.y;
    T acc = 0;
    for (int c = threadIdx.x; c < cols; c += TILE)
        acc += in[(size_t)row * cols + c];
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int s = TILE / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0 && blockIdx.x == 0)
        out[row] = part[0];
}
