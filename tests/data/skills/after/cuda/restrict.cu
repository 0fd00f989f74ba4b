// After restrict: no aliasing between the pointers, read-only inputs const.
__global__ void scale_add(const float *__restrict__ a, const float *__restrict__ b,
                          float *__restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * a[i] + b[i];
}
