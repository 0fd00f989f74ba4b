// Probe: symmetric rank-k update, C = beta*C + alpha * A * A^T (both operands rows of A),
// one thread per C element, double precision, int indices.
__global__ void la_syrk(int n, int m, double alpha, double beta, const double *a, double *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        double s = 0.0;
        for (int k = 0; k < m; k++)
            s += a[i * m + k] * a[j * m + k];
        c[i * n + j] = beta * c[i * n + j] + alpha * s;
    }
}
