// Probe: a 3D permutation out[x][z][y] = in[z][y][x] (axes (0,1,2) -> (2,0,1) read from the
// output's side: the output's fastest axis is the input's middle one), a 3D thread grid,
// double.
__global__ void sp_permute3d(const double *in, double *out, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz)
        out[((size_t)x * nz + z) * ny + y] = in[((size_t)z * ny + y) * nx + x];
}
