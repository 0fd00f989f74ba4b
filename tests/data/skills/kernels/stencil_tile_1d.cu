// 1-D 7-point stencil, one output per thread (a stencil_tile_1d skill should match it)
#define RADIUS 3
__global__ void st1(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= RADIUS && i < n - RADIUS) {
        float s = 0.0f;
        for (int v = -RADIUS; v <= RADIUS; v++)
            s += in[i + v];
        out[i] = s / (2 * RADIUS + 1);
    }
}
