// Naive thread-per-row kernel: each thread sums one row, so a warp's loads are a row apart.
__global__ void sum_rows(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
        s += in[(long)r * cols + c];
    out[r] = s;
}
