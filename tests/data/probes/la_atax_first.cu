// Probe: the first half of an atax-style pair, tmp = A x with one thread per row and the sum
// kept in the output element itself (tmp[i] = 0, then tmp[i] += ...), size_t indices.
__global__ void la_atax_first(const float *A, const float *x, float *tmp, size_t nx, size_t ny)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        tmp[i] = 0;
        for (size_t j = 0; j < ny; j++)
            tmp[i] += A[i * ny + j] * x[j];
    }
}
