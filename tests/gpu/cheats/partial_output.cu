// expect: unwritten_output
// kernel: vector_add
// vector_add that leaves the tail of the output unwritten.
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 100)
        c[i] = a[i] + b[i];
}
