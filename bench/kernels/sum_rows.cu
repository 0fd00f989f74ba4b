// Row sums of a row-major matrix: one thread per row walks its row with scalar loads, so
// the threads of a warp read addresses a row apart (naive, uncoalesced).
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

void launch_sum_rows(const float *in, float *out, int rows, int cols)
{
    sum_rows<<<(rows + 127) / 128, 128>>>(in, out, rows, cols);
}
