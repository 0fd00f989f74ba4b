// Probe: gesummv, y = alpha * A x + beta * B x with both products in one row loop, one thread
// per row, double precision, sizes as a parameter.
__global__ void la_gesummv(int n, double alpha, double beta, const double *A, const double *B,
                           const double *x, double *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double t1 = 0.0, t2 = 0.0;
        for (int j = 0; j < n; j++) {
            t1 += A[i * n + j] * x[j];
            t2 += B[i * n + j] * x[j];
        }
        y[i] = alpha * t1 + beta * t2;
    }
}
