// A 2D convolution whose mask the program copies into __constant__ memory: the spec
// names the mask (25 floats, from MASK_WIDTH) and the harness fills it like an input.
#define MASK_WIDTH 5
#define MASK_RADIUS (MASK_WIDTH / 2)

__constant__ float d_mask[MASK_WIDTH * MASK_WIDTH];
// A table with its values in the declaration: the kernel image carries them.
__constant__ float weights[3] = { 0.25f, 0.5f, 0.25f };
/* __constant__ float commented_out[7]; is not a declaration */

__device__ float tap(int r, int c)
{
    return d_mask[r * MASK_WIDTH + c];
}

__global__ void conv2d(const float *in, float *out, int rows, int cols)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cols || y >= rows)
        return;
    float acc = 0.0f;
    for (int r = 0; r < MASK_WIDTH; r++)
        for (int c = 0; c < MASK_WIDTH; c++) {
            int yy = min(max(y + r - MASK_RADIUS, 0), rows - 1);
            int xx = min(max(x + c - MASK_RADIUS, 0), cols - 1);
            acc += tap(r, c) * in[yy * cols + xx];
        }
    out[y * cols + x] = acc * weights[1];
}

void run(const float *h_mask, const float *in, float *out, int rows, int cols)
{
    cudaMemcpyToSymbol(d_mask, h_mask, MASK_WIDTH * MASK_WIDTH * sizeof(float));
    dim3 block(16, 16);
    dim3 grid((cols + 15) / 16, (rows + 15) / 16);
    conv2d<<<grid, block>>>(in, out, rows, cols);
}
