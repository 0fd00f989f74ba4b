// A launcher that tree-sitter loses: `if (grid.x < 1 ...)` reads as a template argument
// list, and the whole function becomes an ERROR with its launches at file scope (as in
// cuda-samples' transpose). Its kernels walk 32 x 32 tiles with 32 x 8 threads, each
// thread four rows apart: the loop's last value is 24 (i < 32 or i <= 31), not 31.
#define TILE 32
#define ROWS 8

__global__ void tiles_lt(float *out, const float *in, int width, int height)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int i = 0; i < TILE; i += ROWS)
        out[(y + i) * width + x] = in[(y + i) * width + x];
}

__global__ void tiles_le(float *out, const float *in, int width, int height)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int i = 0; i <= TILE - 1; i += ROWS)
        out[(y + i) * width + x] = 2 * in[(y + i) * width + x];
}

int main(int argc, char **argv)
{
    int width = 1024, height = 512;
    float *out = 0, *in = 0; /* allocated elsewhere */
    void (*kernel)(float *, const float *, int, int);
    // one grid for every kernel: a tile per block
    dim3 grid(width / TILE, height / TILE), threads(TILE, ROWS);
    if (grid.x < 1 || grid.y < 1)
        return 1;
    for (int k = 0; k < 2; k++) {
        switch (k) {
        case 0:
            kernel = &tiles_lt;
            break;
        case 1:
            kernel = &tiles_le;
            break;
        }
        kernel<<<grid, threads>>>(out, in, width, height);
    }
    return 0;
}
