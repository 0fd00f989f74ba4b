// A naive SGEMM as people write it: sizes in main, buffers from cudaMalloc, a 2D grid
// computed in a local dim3.
#include <cuda_runtime.h>
#include <vector>

__global__ void matmul(float *A, float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

int main()
{
    int M = 512, N = 384, K = 256;
    std::vector<float> hA(M * K), hB(K * N);
    float *dA, *dB, *dC;
    cudaMalloc(&dA, hA.size() * sizeof(float));
    cudaMalloc((void **)&dB, K * N * sizeof(float));
    cudaMalloc(&dC, sizeof(float) * M * N);
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    matmul<<<grid, block>>>(dA, dB, dC, M, N, K);
    cudaDeviceSynchronize();
    return 0;
}
