// Probe: a 9-point 2D stencil (the 3x3 box with separate weights for the centre, the edges
// and the corners), sizes and weights as macros, size_t indices, interior only.
#define NX 4096
#define NY 4096
#define W_CENTER 0.5f
#define W_EDGE 0.1f
#define W_CORNER 0.025f

__global__ void sp_stencil9_2d(const float *in, float *out)
{
    size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t y = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= 1 && x < NX - 1 && y >= 1 && y < NY - 1) {
        size_t id = y * NX + x;
        out[id] = W_CENTER * in[id]
                + W_EDGE * (in[id - 1] + in[id + 1] + in[id - NX] + in[id + NX])
                + W_CORNER * (in[id - NX - 1] + in[id - NX + 1] + in[id + NX - 1] + in[id + NX + 1]);
    }
}
