// Dot product of two float vectors into one accumulator, one atomic per element (naive).
__global__ void dot(const float *a, const float *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, a[i] * b[i]);
}

void launch_dot(const float *a, const float *b, float *out, int n)
{
    dot<<<(n + 255) / 256, 256>>>(a, b, out, n);
}
