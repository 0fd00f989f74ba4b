// Probe: an explicit heat step in double, the row index taken from x (neighbouring threads
// walk different rows), unsigned indices, an early return for the rim, the diffusion
// coefficient a parameter.
__global__ void sp_heat2d_x(const double *u, double *u_new, unsigned nx, unsigned ny, double alpha)
{
    unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < 1 || col < 1 || row >= ny - 1 || col >= nx - 1)
        return;
    unsigned c = row * nx + col;
    double lap = u[c - nx] + u[c + nx] + u[c - 1] + u[c + 1] - 4.0 * u[c];
    u_new[c] = u[c] + alpha * lap;
}
