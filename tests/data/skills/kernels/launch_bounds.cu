// Register-heavy kernel with no __launch_bounds__: ptxas may use many registers.
__global__ void poly(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i], acc = 0.0f, p = 1.0f;
        for (int k = 0; k < 16; k++) {
            acc += p * (float)(k + 1);
            p *= v;
        }
        y[i] = acc;
    }
}
