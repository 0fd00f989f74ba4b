// Tiled transpose through shared memory; the +1 column avoids bank conflicts.
constexpr int TILE = 32;
static constexpr int ROWS = 8;
const int UNUSED_CONST = 3;

__global__ void transpose(float *odata, const float *idata, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < height && y + j < width)
            odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

void launch_transpose(float *out, const float *in, int w, int h)
{
    dim3 block(TILE, ROWS);
    dim3 grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
    transpose<<<grid, block>>>(out, in, w, h);
}
