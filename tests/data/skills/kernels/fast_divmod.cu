// NCHW coordinates of a flat index in a grid-stride loop (mmcv's CUDA_1D_KERNEL_LOOP
// kernels): every element pays a 32-bit division by runtime sizes for each coordinate.
__global__ void nchw_gather(const float *in, const int *rows, float *out, int n, int c, int h, int w)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n * c * h * w; i += blockDim.x * gridDim.x) {
        int x = i % w;
        int y = (i / w) % h;
        int ch = (i / w / h) % c;
        int b = i / w / h / c;
        out[i] = in[((rows[b] * c + ch) * h + y) * w + x];
    }
}
