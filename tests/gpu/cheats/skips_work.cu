// expect: wrong_answer
// kernel: saxpy
// saxpy that skips the multiply-add on odd elements and just copies y: less work, wrong result.
__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (i & 1) == 0)
        y[i] = a * x[i] + y[i];
}
