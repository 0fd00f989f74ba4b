// Probe: 2D average pooling over NCHW planes, the window size and stride as parameters, the
// plane from blockIdx.z, the row from y; the sum divided by the window's area.
__global__ void sp_avgpool2d(const float *x, float *y, int H, int W, int OH, int OW, int k, int stride)
{
    int ow = blockIdx.x * blockDim.x + threadIdx.x;
    int oh = blockIdx.y * blockDim.y + threadIdx.y;
    int plane = blockIdx.z;
    if (ow >= OW || oh >= OH)
        return;
    const float *src = x + (size_t)plane * H * W;
    float s = 0.f;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            s += src[(oh * stride + i) * W + ow * stride + j];
    y[((size_t)plane * OH + oh) * OW + ow] = s / (k * k);
}
