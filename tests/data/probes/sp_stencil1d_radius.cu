// Probe: a 1D stencil whose reach is a RADIUS macro: out[i] is the sum of the 2*RADIUS+1
// inputs centred on i, weighted by a coefficient that falls off with the distance; only the
// interior (RADIUS <= i < n - RADIUS) is written, the rim is left to the caller.
#define RADIUS 3

__global__ void sp_stencil1d_radius(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= RADIUS && i < n - RADIUS) {
        float result = 0.0f;
        for (int off = -RADIUS; off <= RADIUS; off++)
            result += in[i + off] * (1.0f / (1 + (off < 0 ? -off : off)));
        out[i] = result;
    }
}
