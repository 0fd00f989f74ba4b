// Transposes as people spell them (issue 13 item 4): our own code.
#define TILE_DIM 32
#define BLOCK_ROWS 8

// Separate in/out index variables, one element per thread.
__global__ void transpose_inout(float *odata, const float *idata, int width, int height)
{
    unsigned int xIndex = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int yIndex = blockIdx.y * blockDim.y + threadIdx.y;
    if (xIndex < width && yIndex < height) {
        unsigned int index_in = xIndex + width * yIndex;
        unsigned int index_out = yIndex + height * xIndex;
        odata[index_out] = idata[index_in];
    }
}

// Tile-size macros, each thread copying TILE_DIM / BLOCK_ROWS elements.
__global__ void transpose_macro_rows(float *odata, const float *idata, int width, int height)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int r = 0; r < TILE_DIM; r += BLOCK_ROWS)
        if (x < width && y + r < height)
            odata[x * height + (y + r)] = idata[(y + r) * width + x];
}

// y indexes the input column.
__global__ void transpose_yx(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[c * rows + r] = in[r * cols + c];
}
