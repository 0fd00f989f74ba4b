// Probe: a column-major GEMM with 64-bit indices, C(i,j) = sum_k A(i,k) * B(k,j) with X(r,c) at
// X[r + c * ld], one thread per C element (i from x: consecutive threads down a column),
// double, size_t sizes.
__global__ void la_gemm_colmajor(size_t M, size_t N, size_t K, const double *A, const double *B, double *C)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t j = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (i < M && j < N) {
        double acc = 0.0;
        for (size_t k = 0; k < K; k++)
            acc += A[i + k * M] * B[k + j * K];
        C[i + j * M] = acc;
    }
}
