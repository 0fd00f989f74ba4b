// After warp_row_tree: one warp per row, lane l takes columns l, l + 32, ...; the row's sum
// through __shfl_xor_sync (every lane gets it), no shared memory and no barrier.
__global__ void row_sumsq(float *out, const float *in, int rows, int cols)
{
    const unsigned lane = threadIdx.x & 31u, rows_per_block = blockDim.x >> 5;
    for (unsigned r = blockIdx.x * rows_per_block + (threadIdx.x >> 5); r < (unsigned)rows;
         r += gridDim.x * rows_per_block) {
        const float *row = in + (size_t)r * cols;
        float s = 0.0f;
        for (int c = lane; c < cols; c += 32)
            s += row[c] * row[c];
        for (int o = 16; o > 0; o >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, o);
        if (lane == 0)
            out[r] = s;
    }
}
