// After warp_row_tree on gfx9: one wavefront per row, the row's sum through __shfl_xor
// (every lane gets it), no LDS tree and no barrier.
#include <hip/hip_runtime.h>
__global__ void row_sumsq(float *out, const float *in, int rows, int cols)
{
    const unsigned lane = threadIdx.x % warpSize, rows_per_block = blockDim.x / warpSize;
    for (unsigned r = blockIdx.x * rows_per_block + threadIdx.x / warpSize; r < (unsigned)rows;
         r += gridDim.x * rows_per_block) {
        const float *row = in + (size_t)r * cols;
        float s = 0.0f;
        for (int c = lane; c < cols; c += warpSize)
            s += row[c] * row[c];
        for (int o = warpSize / 2; o > 0; o >>= 1)
            s += __shfl_xor(s, o);
        if (lane == 0)
            out[r] = s;
    }
}
