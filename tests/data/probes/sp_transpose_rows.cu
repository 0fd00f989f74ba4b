// Probe: the naive transpose with tile-size macros: a block of TILE x ROWS threads covers a
// TILE x TILE tile, each thread copying TILE / ROWS elements down its column of the tile
// straight from global to global (no shared memory); square, the size a parameter.
#define TILE 32
#define ROWS 8

__global__ void sp_transpose_rows(float *odata, const float *idata, int width)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int r = 0; r < TILE; r += ROWS)
        odata[x * width + (y + r)] = idata[(y + r) * width + x];
}
