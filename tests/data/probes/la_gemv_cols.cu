// Probe: the transposed GEMV y = A^T x, one thread per column j walking down its column
// (neighbouring threads read neighbouring elements: already coalesced), sizes as macros.
#define NX 8192
#define NY 8192

__global__ void la_gemv_cols(const float *A, const float *x, float *y)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < NY) {
        float sum = 0.0f;
        for (int i = 0; i < NX; i++)
            sum += A[i * NY + j] * x[i];
        y[j] = sum;
    }
}
