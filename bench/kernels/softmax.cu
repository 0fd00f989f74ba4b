#include <math.h>
// Row softmax, one thread per row, three passes over the row (naive).
__global__ void softmax(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const float *x = in + (size_t)r * cols;
    float *y = out + (size_t)r * cols;
    float m = -INFINITY;
    for (int c = 0; c < cols; c++)
        m = fmaxf(m, x[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
        s += expf(x[c] - m);
    for (int c = 0; c < cols; c++)
        y[c] = expf(x[c] - m) / s;
}

void launch_softmax(const float *in, float *out, int rows, int cols)
{
    softmax<<<(rows + 127) / 128, 128>>>(in, out, rows, cols);
}
