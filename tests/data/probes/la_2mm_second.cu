// Probe: the second product of the chain, D = beta * D + tmp * C, the accumulation written
// straight into the output element (no local sum), int indices.
__global__ void la_2mm_second(int ni, int nl, int nj, float beta,
                              const float *tmp, const float *C, float *D)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nl) {
        D[i * nl + j] *= beta;
        for (int k = 0; k < nj; k++)
            D[i * nl + j] += tmp[i * nj + k] * C[k * nl + j];
    }
}
