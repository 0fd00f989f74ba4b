// Probe: a 2D convolution whose mask is a pointer parameter and whose mask width is a
// runtime parameter; the image is rectangular (height x width), out-of-range taps skipped
// with continue.
__global__ void sp_conv2d_ptr(const float *image, const float *kernel, float *output,
                              int height, int width, int ksize)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    int half = ksize / 2;
    float sum = 0.0f;
    for (int ky = 0; ky < ksize; ++ky) {
        int iy = y + ky - half;
        if (iy < 0 || iy >= height)
            continue;
        for (int kx = 0; kx < ksize; ++kx) {
            int ix = x + kx - half;
            if (ix < 0 || ix >= width)
                continue;
            sum += image[iy * width + ix] * kernel[ky * ksize + kx];
        }
    }
    output[y * width + x] = sum;
}
