// Probe: a naive rectangular transpose written with separate input and output index
// variables (the in-coordinates named from the thread, the out-coordinates swapped), block
// sizes as macros, unsigned arithmetic.
#define BLOCK_DIM_X 16
#define BLOCK_DIM_Y 16

__global__ void sp_transpose_idx(const float *in, float *out, unsigned rows, unsigned cols)
{
    unsigned xIndex = blockIdx.x * BLOCK_DIM_X + threadIdx.x;
    unsigned yIndex = blockIdx.y * BLOCK_DIM_Y + threadIdx.y;
    if (xIndex < cols && yIndex < rows) {
        unsigned index_in = yIndex * cols + xIndex;
        unsigned index_out = xIndex * rows + yIndex;
        out[index_out] = in[index_in];
    }
}
