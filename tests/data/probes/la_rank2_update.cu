// Probe: rank-2 update A += u1 v1^T + u2 v2^T (gemver's first step), one thread per element,
// row from y, unsigned indices.
__global__ void la_rank2_update(unsigned n, float *A, const float *u1, const float *v1,
                                const float *u2, const float *v2)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n)
        A[i * n + j] += u1[i] * v1[j] + u2[i] * v2[j];
}
