// SAXPY: y = a * x + y, one thread per element (naive).
__global__ void saxpy(int n, float a, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

void launch_saxpy(int n, float a, const float *x, float *y)
{
    saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
