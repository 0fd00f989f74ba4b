// expect: timeout
// vector_add that never terminates.
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    volatile int spin = 1;
    while (spin)
        if (i < 0)
            spin = 0;
    if (i < n)
        c[i] = a[i] + b[i];
}
