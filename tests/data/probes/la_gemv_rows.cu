// Probe: row-per-thread GEMV y = A x, unsigned indices, no guard other than the row bound,
// the row offset through a local pointer-free product.
__global__ void la_gemv_rows(const float *A, const float *x, float *y, unsigned n, unsigned m)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t = 0.0f;
        for (unsigned j = 0; j < m; j++)
            t += A[i * m + j] * x[j];
        y[i] = t;
    }
}
