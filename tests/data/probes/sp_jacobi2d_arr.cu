// Probe: a Jacobi sweep over arrays declared as 2D arrays of a #define size (the parameters
// are arrays of rows), neighbours written A[i][j +- 1], A[i +- 1][j]; row from y.
#define N 4096

__global__ void sp_jacobi2d_arr(float A[N][N], float B[N][N])
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 1 && i < N - 1 && j >= 1 && j < N - 1)
        B[i][j] = 0.2f * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
}
