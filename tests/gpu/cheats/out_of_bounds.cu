// expect: out_of_bounds
// kernel: saxpy
// saxpy with an off-by-a-block bounds check: correct inside [0, n), but the last block also
// writes up to a block past the end of y.
__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
    else if (i < n + (int)blockDim.x)
        y[i] = 0.0f;
}
