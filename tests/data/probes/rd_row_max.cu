// Probe: the maximum of each row of a rows x cols matrix, one thread per row, the running
// maximum kept by a comparison, int indices.
__global__ void rd_row_max(const float *mat, float *rowmax, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float best = mat[r * cols];
        for (int c = 1; c < cols; ++c) {
            float v = mat[r * cols + c];
            if (v > best)
                best = v;
        }
        rowmax[r] = best;
    }
}
