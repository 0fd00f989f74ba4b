// One thread per row, three passes over the row (max, sum of exponentials, write).
__global__ void softmax(const float *x, float *y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const float *row = x + (size_t)r * cols;
    float m = -INFINITY;
    for (int c = 0; c < cols; c++)
        m = fmaxf(m, row[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
        s += expf(row[c] - m);
    for (int c = 0; c < cols; c++)
        y[(size_t)r * cols + c] = expf(row[c] - m) / s;
}
