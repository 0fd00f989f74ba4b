// Probe: gemver's second step, x = x + beta * A^T y + z, one thread per i reading column i of
// A (coalesced across threads), the sum in x[i] itself, then z added. Float, int indices.
__global__ void la_gemver_x(int n, float beta, const float *A, const float *y, const float *z, float *x)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; j++)
            x[i] += beta * A[j * n + i] * y[j];
        x[i] += z[i];
    }
}
