// Probe: the textbook 2D convolution: the block's size a TILE_WIDTH macro used in place of
// blockDim, a 2D __constant__ mask M[MASK_WIDTH][MASK_WIDTH], the window's corner at
// MASK_WIDTH / 2 to the upper left, ghost cells (outside the image) skipped.
#define MASK_WIDTH 5
#define TILE_WIDTH 16

__constant__ float M[MASK_WIDTH][MASK_WIDTH];

__global__ void sp_conv2d_tiled(const float *N, float *P, int width, int height)
{
    int col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    int row = blockIdx.y * TILE_WIDTH + threadIdx.y;
    if (row < height && col < width) {
        float pvalue = 0;
        int start_row = row - MASK_WIDTH / 2;
        int start_col = col - MASK_WIDTH / 2;
        for (int j = 0; j < MASK_WIDTH; ++j) {
            for (int k = 0; k < MASK_WIDTH; ++k) {
                int cur_row = start_row + j;
                int cur_col = start_col + k;
                if (cur_row > -1 && cur_row < height && cur_col > -1 && cur_col < width)
                    pvalue += N[cur_row * width + cur_col] * M[j][k];
            }
        }
        P[row * width + col] = pvalue;
    }
}
