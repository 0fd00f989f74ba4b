// Probe: a batch of small GEMMs, C[b] = A[b] * B[b], the batch from blockIdx.z, the batch
// offsets as size_t strides computed up front, the tile dims as macros.
#define MM 64
#define NN 64
#define KK 64

__global__ void la_batched_gemm_z(const float *A, const float *B, float *C, int batch)
{
    int b = blockIdx.z;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (b >= batch || row >= MM || col >= NN)
        return;
    const float *Ab = A + (size_t)b * MM * KK;
    const float *Bb = B + (size_t)b * KK * NN;
    float acc = 0.0f;
    for (int k = 0; k < KK; k++)
        acc += Ab[row * KK + k] * Bb[k * NN + col];
    C[(size_t)b * MM * NN + row * NN + col] = acc;
}
