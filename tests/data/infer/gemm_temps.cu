// A naive SGEMM whose subscripts are temporaries computed earlier (idx, a_at, b_at), and a
// launcher that only passes pointers: the counts are in the index math alone.
__global__ void sgemm_idx(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            int a_at = row * K + k;
            int b_at = k * N + col;
            acc += A[a_at] * B[b_at];
        }
        int idx = row * N + col;
        C[idx] = acc;
    }
}

void run_sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    sgemm_idx<<<grid, block>>>(A, B, C, M, N, K);
}
