// Squares by pow with literal exponents only: the compiler folds these, nothing to gain.
__global__ void squares(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = powf(x[i], 2.0f) + pow(x[i], -1.5f);
}
