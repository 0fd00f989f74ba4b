// Probe: the first of two chained products (tmp = alpha * A * B), one thread per tmp element,
// size_t row offsets; the second product is la_2mm_second.cu.
__global__ void la_2mm_first(int ni, int nj, int nk, float alpha,
                             const float *A, const float *B, float *tmp)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= ni || col >= nj)
        return;
    float s = 0.0f;
    for (int k = 0; k < nk; k++)
        s += alpha * A[(size_t)row * nk + k] * B[(size_t)k * nj + col];
    tmp[(size_t)row * nj + col] = s;
}
