// Already has launch bounds: the launch-bounds skills must not claim it.
__global__ void __launch_bounds__(256, 2) poly_bounded(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] * x[i];
}
