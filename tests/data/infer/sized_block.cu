// A block that grows with the problem (Parboil's stencil: one thread per element of a row,
// nx - 1 of them): the kernel indexes with threadIdx.x alone, so a fixed block would leave
// most of each row unwritten. Launched through a dim3 local and written in the launch.
__global__ void row_step(const float *in, float *out, int nx, int ny)
{
    int i = threadIdx.x;
    int j = blockIdx.x + 1;
    if (i > 0)
        out[i + nx * j] = 0.5f * (in[i - 1 + nx * j] + in[i + 1 + nx * j]);
}

__global__ void row_step_direct(const float *in, float *out, int nx, int ny)
{
    int i = threadIdx.x;
    int j = blockIdx.x + 1;
    if (i > 0)
        out[i + nx * j] = 0.25f * (in[i - 1 + nx * j] + in[i + 1 + nx * j]);
}

void run(int nx, int ny)
{
    float *in, *out;
    cudaMalloc(&in, sizeof(float) * nx * ny);
    cudaMalloc(&out, sizeof(float) * nx * ny);
    dim3 block(nx - 1, 1, 1);
    dim3 grid(ny - 2, 1, 1);
    row_step<<<grid, block>>>(in, out, nx, ny);
    row_step_direct<<<ny - 2, nx - 1>>>(in, out, nx, ny);
}
