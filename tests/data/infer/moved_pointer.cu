// The output pointer is advanced to the thread's row before it is written through [0]:
// its subscripts alone would say one element; with the move put in, rows of them.
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

// Moves the model cannot place: the counts stay doubts.
// A move under a condition: out may point at its start or one row further.
__global__ void maybe_shift(const float *in, float *out, int n, int shift)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (shift)
        out += n;
    out[i] = in[i];
}

// Two moves of the same pointer.
__global__ void twice(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out += i;
    out[0] = in[i];
    out += n;
    out[0] = 2.0f * in[i];
}

// A move in an ordinary loop: each iteration walks further.
__global__ void walk_rows(const float *in, float *out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    for (int r = 0; r < rows; r++) {
        out[c] = in[r * cols + c];
        out += cols;
    }
}
