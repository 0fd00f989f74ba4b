// Probe: a 3D 7-point stencil on a 3D grid of threads (z from blockIdx.z/threadIdx.z),
// fp64, the coefficients as parameters, every boundary cell copied through unchanged.
__global__ void sp_stencil3d7(const double *in, double *out, int nx, int ny, int nz, double c0, double c1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= nx || j >= ny || k >= nz)
        return;
    int idx = (k * ny + j) * nx + i;
    if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
        out[idx] = in[idx];
        return;
    }
    out[idx] = c0 * in[idx] + c1 * (in[idx - 1] + in[idx + 1] + in[idx - nx] + in[idx + nx] +
                                    in[idx - nx * ny] + in[idx + nx * ny]);
}
