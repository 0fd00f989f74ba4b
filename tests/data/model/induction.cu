// Induction variables (test_model): a pointer or an index stepped by loop-invariant amounts
// through loops has the affine index of the same computation written with loop counters.

// im2col of M masked pixels: column (c, a, b) of pixel m, written with the index
__global__ void im2col_index(const float *im, float *col, int n, int H, int W, int KH, int KW, int M)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int m = i % M, c = i / M;
        for (int a = 0; a < KH; a++)
            for (int b = 0; b < KW; b++)
                col[((c * KH + a) * KW + b) * M + m] = im[(c * H + a) * W + b + m];
    }
}

// the same walking a pointer through both loops
__global__ void im2col_pointer(const float *im, float *col, int n, int H, int W, int KH, int KW, int M)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int m = i % M, c = i / M;
        float *p = col + c * KH * KW * M + m;
        for (int a = 0; a < KH; a++) {
            for (int b = 0; b < KW; ++b) {
                *p = im[(c * H + a) * W + b + m];
                p += M;
            }
        }
    }
}

// a row pointer stepped by the outer loop, subscripted by the inner one (p = p + s)
__global__ void im2col_rows(const float *im, float *col, int n, int H, int W, int KH, int KW, int M)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int m = i % M, c = i / M;
        float *row = col + m + c * KH * KW * M;
        for (int a = 0; a < KH; a++) {
            for (int b = 0; b < KW; b++)
                row[b * M] = im[(c * H + a) * W + b + m];
            row = row + KW * M;
        }
    }
}

// an integer index stepped the same way
__global__ void im2col_offset(const float *im, float *col, int n, int H, int W, int KH, int KW, int M)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int m = i % M, c = i / M;
        int o = c * KH * KW * M + m;
        for (int a = 0; a < KH; a++)
            for (int b = 0; b < KW; b++) {
                col[o] = im[(c * H + a) * W + b + m];
                o += M;
            }
    }
}

// a read pointer walked with ++ and a grid-stride loop, against the subscript
__global__ void rowsum_index(const float *x, float *y, int rows, int K)
{
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += blockDim.x * gridDim.x) {
        float s = 0.0f;
        for (int k = 0; k < K; k++)
            s += x[r * K + k];
        y[r] = s;
    }
}

__global__ void rowsum_pointer(const float *x, float *y, int rows, int K)
{
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += blockDim.x * gridDim.x) {
        const float *q = x + r * K;
        float s = 0.0f;
        for (int k = 0; k < K; k++) {
            s += *q;
            q++;
        }
        y[r] = s;
    }
}

// after the loop the pointer is past it: K steps of n
__global__ void past_loop(float *y, int n, int K)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float *p = y + i;
    for (int k = 0; k < K; k++) {
        *p = 0.0f;
        p -= -n;
    }
    *p = 1.0f;
}

// not followed: a step under a condition, a step that changes with the loop, a break
__global__ void step_conditional(const float *x, float *y, int n, int K)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float *p = y + i;
    for (int k = 0; k < K; k++) {
        *p = x[k];
        if (x[k] > 0.0f)
            p += n;
    }
}

__global__ void step_varies(const float *x, float *y, int n, int K)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float *p = y + i;
    for (int k = 0; k < K; k++) {
        *p = x[k];
        p += k * n;
    }
}

__global__ void step_break(const float *x, float *y, int n, int K)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float *p = y + i;
    for (int k = 0; k < K; k++) {
        if (x[k] < 0.0f)
            break;
        *p = x[k];
        p += n;
    }
}
