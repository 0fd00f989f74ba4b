// GEMV-class kernels as people spell them (issue 13 item 4): our own code.
#define N_COLS 4096

// Row per thread, accumulating directly into the output (zeroed first).
__global__ void gemv_rows_global(int m, int n, const float *A, const float *x, float *tmp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) {
        tmp[i] = 0;
        for (int j = 0; j < n; j++)
            tmp[i] += A[i * n + j] * x[j];
    }
}

// Row per thread with a local accumulator, unsigned indices.
__global__ void gemv_rows_local(unsigned m, unsigned n, const float *A, const float *x, float *y)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) {
        float s = 0.0f;
        for (unsigned j = 0; j < n; ++j)
            s += A[i * n + j] * x[j];
        y[i] = s;
    }
}

// Row per thread, size as a macro, alpha/beta epilogue.
__global__ void gemv_rows_macro(int m, float alpha, float beta, const float *A, const float *x, float *y)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i >= m)
        return;
    float s = 0.0f;
    for (int j = 0; j < N_COLS; j++)
        s += A[i * N_COLS + j] * x[j];
    y[i] = alpha * s + beta * y[i];
}

// Column per thread (A^T x), accumulating directly into the output.
__global__ void gemv_cols_global(int m, int n, const float *A, const float *x, float *y)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) {
        y[j] = 0;
        for (int i = 0; i < m; i++)
            y[j] += A[i * n + j] * x[i];
    }
}
