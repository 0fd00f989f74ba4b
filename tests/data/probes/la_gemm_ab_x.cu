// Probe: the same GEMM written with the row index i from the x axis (the naive spelling that
// makes neighbouring threads walk different rows of A), unsigned indices, sizes as macros.
#define NI 4096
#define NJ 4096
#define NK 4096

__global__ void la_gemm_ab_x(float alpha, float beta, const float *a, const float *b, float *c)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < NI && j < NJ) {
        float acc = 0;
        for (unsigned k = 0; k < NK; k++)
            acc += a[i * NK + k] * b[k * NJ + j];
        c[i * NJ + j] = alpha * acc + beta * c[i * NJ + j];
    }
}
