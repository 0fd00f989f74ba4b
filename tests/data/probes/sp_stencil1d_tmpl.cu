// Probe: a 1D stencil with the radius as a template parameter and its weights in constant
// memory, one grid-stride loop, size_t indices; the ends read a clamped neighbour.
__constant__ float c_weights[9];

template <int R>
__global__ void sp_stencil1d_tmpl(const float *__restrict__ src, float *__restrict__ dst, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float v = 0.0f;
#pragma unroll
        for (int r = -R; r <= R; ++r) {
            long long j = (long long)i + r;
            if (j < 0) j = 0;
            if (j > (long long)n - 1) j = (long long)n - 1;
            v += c_weights[r + R] * src[j];
        }
        dst[i] = v;
    }
}
