// Probe: one sweep of a 2D Jacobi / heat iteration, 5 points, the row from y, an
// interior-only guard; the sweep writes B from A, a second kernel copies B back to A (the
// host alternates them).
__global__ void sp_jacobi2d(int n, const float *A, float *B)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > 0 && i < n - 1 && j > 0 && j < n - 1)
        B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] +
                               A[(i - 1) * n + j] + A[(i + 1) * n + j]);
}

__global__ void sp_jacobi2d_copy(int n, float *A, const float *B)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > 0 && i < n - 1 && j > 0 && j < n - 1)
        A[i * n + j] = B[i * n + j];
}
