// One thread per row: mean pass, variance pass, normalize pass.
__global__ void layernorm(const float *x, const float *gamma, const float *beta, float *y,
                          int rows, int cols, float eps)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const float *row = x + (size_t)r * cols;
    float mean = 0.0f;
    for (int c = 0; c < cols; c++)
        mean += row[c];
    mean /= cols;
    float var = 0.0f;
    for (int c = 0; c < cols; c++)
        var += (row[c] - mean) * (row[c] - mean);
    var /= cols;
    float inv = rsqrtf(var + eps);
    for (int c = 0; c < cols; c++)
        y[(size_t)r * cols + c] = (row[c] - mean) * inv * gamma[c] + beta[c];
}
