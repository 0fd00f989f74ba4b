// An error that only shows when a template is instantiated: nvcc adds a
// "detected during instantiation" note pointing at the instantiation.
template <typename T>
__global__ void axpy(T a, const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i].value;
}

void launch(float *x, float *y, int n)
{
    axpy<<<(n + 255) / 256, 256>>>(2.0f, x, y, n);
}
