// In-place ReLU: x = max(x, 0), one thread per element, scalar loads and stores (naive).
__global__ void relu_inplace(float *x, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    x[i] = v > 0.0f ? v : 0.0f;
}

void launch_relu_inplace(float *x, long n)
{
    relu_inplace<<<(n + 255) / 256, 256>>>(x, n);
}
