// 2-D 5-point smoothing, one output per thread (a stencil_window skill should match it)
__global__ void smooth(const float *a, float *b, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1)
        return;
    b[y * nx + x] = 0.2f * (a[y * nx + x] + a[y * nx + x - 1] + a[y * nx + x + 1] + a[(y - 1) * nx + x] + a[(y + 1) * nx + x]);
}
