// Probe: C = A^T B with A stored k-major (A[k * M + i], M x K read transposed), one thread per
// C element, row from y, float, parameter sizes.
__global__ void la_gemm_ta(int M, int N, int K, const float *A, const float *B, float *C)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M && j < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[k * M + i] * B[k * N + j];
        C[i * N + j] = acc;
    }
}
