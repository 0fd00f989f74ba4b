// Probe (session 47, generality of the linear-algebra class): a naive GEMM with an alpha/beta
// epilogue, one thread per element of C, the row i from the y axis and the column j from x.
// C = alpha * A * B + beta * C, A ni x nk, B nk x nj, C ni x nj, row-major, int indices.
__global__ void la_gemm_ab_y(int ni, int nj, int nk, float alpha, float beta,
                             const float *A, const float *B, float *C)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        float sum = 0.0f;
        for (int k = 0; k < nk; ++k)
            sum += A[i * nk + k] * B[k * nj + j];
        C[i * nj + j] = alpha * sum + beta * C[i * nj + j];
    }
}
