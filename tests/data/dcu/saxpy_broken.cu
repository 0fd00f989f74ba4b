// SAXPY with a typo (yy): hipcc must refuse it and the episode must show hipcc's error.
__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + yy[i];
}
