// A pooling window whose size, stride and mode are runtime ints although every launch
// passes the same literals: the window loops cannot unroll, the division by the stride
// stays a division, and the mode's branch is tested per element.
__global__ void max_pool(const float *x, float *y, int h, int w, int k, int stride, int mode)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
    int oh = (h - k) / stride + 1, ow = (w - k) / stride + 1;
    if (c >= ow || r >= oh)
        return;
    float best = mode == 0 ? -1e30f : 0.0f;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            float v = x[(r * stride + i) * w + c * stride + j];
            best = mode == 0 ? fmaxf(best, v) : best + v;
        }
    y[r * ow + c] = mode == 0 ? best : best / (k * k);
}

void pool(const float *x, float *y, int h, int w)
{
    max_pool<<<dim3((w + 127) / 128, h), 128>>>(x, y, h, w, 3, 2, 0);
}
