// The output pointer is advanced to the thread's row before it is written through [0]:
// its subscripts alone would say one element.
__global__ void row_sum(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    in += r * cols;
    out += r;
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
        s += in[c];
    out[0] = s;
}
