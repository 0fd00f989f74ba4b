// Timing sizes (spec inference): kernels with no launch site, whose invented sizes must
// grow until the timed set moves well past the L2.

// four sizes, every one launched over: a flat elementwise kernel
__global__ void scale4(const float *x, float *y, int b, int c, int h, int w)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < b * c * h * w)
        y[i] = 2.0f * x[i];
}

// five sizes: a 2-D grid over rows and columns, and a loop each thread repeats
__global__ void smooth5(const float *x, float *y, int n, int c, int h, int w, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n * c || j >= h * w)
        return;
    float v = x[i * h * w + j];
    for (int t = 0; t < iters; t++)
        v = 0.5f * v + 0.25f;
    y[i * h * w + j] = v;
}

// all pairs: every query thread loops over every reference point
__global__ void nearest(const float *q, const float *r, float *best, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float b = 1e30f;
    for (int j = 0; j < m; j++) {
        float d = q[i] - r[j];
        b = fminf(b, d * d);
    }
    best[i] = b;
}

// a gather from a table whose count is only guessed (the product of every size): the
// guess caps the growth, and the size only it holds makes room
__global__ void pick(const float *table, const int *idx, float *out, int rows, int cols, int points, int picks)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (p >= picks || r >= rows)
        return;
    table += r * cols * points;
    idx += r * picks;
    out += r * cols * picks;
    for (int c = 0; c < cols; c++)
        out[c * picks + p] = table[c * points + idx[p]];
}

// each row sums a prefix of its table as long as a buffer says: no index math bounds how far
// it reads, so table's count is a guess (the product of every size)
__global__ void prefix(const float *table, const int *len, float *out, int rows, int cols, int points, int picks)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (p >= picks || r >= rows)
        return;
    table += r * cols * points;
    for (int c = 0; c < cols; c++) {
        float s = 0.0f;
        for (int q = 0; q < len[p]; q++)
            s += table[c * points + q];
        out[(r * cols + c) * picks + p] = s;
    }
}

// a local array a loop over a size fills: the size stays as invented, though the
// output's count holds it with the sizes launched over
__global__ void topk(const float *x, float *out, int n, int k, int m, int s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * m * s)
        return;
    float best[64];
    for (int j = 0; j < k; j++)
        best[j] = x[i * k + j];
    float t = 1.0f;
    for (int j = 0; j < k; j++)
        t += best[j];
    for (int j = 0; j < k; j++)
        out[i * k + j] = best[j] / t;
}

// C = A^T B with leading dimensions: lda, ldb and ldc only stride the matrices and follow
// the extents they stride; k is the loop each thread runs
__global__ void gemm_nt(const float *A, int lda, const float *B, int ldb, float *C, int ldc, int k, int m, int n)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float c = 0.0f;
    for (int i = 0; i < k; i++)
        c += A[row + i * lda] * B[col + i * ldb];
    C[row + col * ldc] = c;
}
