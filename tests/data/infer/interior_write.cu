// An output written everywhere but its first and last element (a 1-D stencil that skips
// the boundary): the elements no thread writes keep their contents, so it is an inout.
// `every` writes each of its n elements: an output.
__global__ void interior(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1)
        out[i] = 0.5f * (in[i - 1] + in[i + 1]);
}

__global__ void every(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
}

void run(int n)
{
    float *in, *out;
    cudaMalloc(&in, sizeof(float) * n);
    cudaMalloc(&out, sizeof(float) * n);
    interior<<<(n + 255) / 256, 256>>>(in, out, n);
    every<<<(n + 255) / 256, 256>>>(in, out, n);
}
