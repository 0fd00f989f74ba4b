// Probe: GEMM whose epilogue is written first (c *= beta) and whose k-loop accumulates
// alpha * a * b directly into global memory; sizes as macros, int indices, 1-based style
// names, row from y.
#define NI 4096
#define NJ 4096
#define NK 4096

__global__ void la_gemm_global_acc(float alpha, float beta, float *a, float *b, float *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < NI) && (j < NJ)) {
        c[i * NJ + j] *= beta;
        for (int k = 0; k < NK; k++) {
            c[i * NJ + j] += alpha * a[i * NK + k] * b[k * NJ + j];
        }
    }
}
