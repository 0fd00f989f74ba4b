// A 2x2 box filter over four inputs, each read at four places the block and thread give:
// each count is a max() of four reaches, and the bytes, the sum of every count, pass a
// thousand characters.
#define TILE 16

__global__ void box(const float *a, const float *b, const float *c, const float *d, float *out, int cols, int rows)
{
    int col = TILE * blockIdx.x + threadIdx.x;
    int row = TILE * blockIdx.y + threadIdx.y;
    int at = (cols + 1) * row + col;
    float s = 0.0f;
    s += a[at] + a[at + 1] + a[at + cols + 1] + a[at + cols + 2];
    s += b[at] + b[at + 1] + b[at + cols + 1] + b[at + cols + 2];
    s += c[at] + c[at + 1] + c[at + cols + 1] + c[at + cols + 2];
    s += d[at] + d[at + 1] + d[at + cols + 1] + d[at + cols + 2];
    out[cols * row + col] = s;
}

void run(const float *a, const float *b, const float *c, const float *d, float *out, int cols, int rows)
{
    dim3 grid(cols / TILE, rows / TILE), block(TILE, TILE);
    box<<<grid, block>>>(a, b, c, d, out, cols, rows);
}
