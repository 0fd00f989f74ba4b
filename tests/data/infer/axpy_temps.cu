// y = a*x + y where the guard and the subscripts use a copy of the global index, and the
// launch's grid comes from a host function the inference cannot read.
__global__ void axpy_copy(int n, float a, const float *x, float *y)
{
    const int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int e = gid;
    if (e < n) {
        float v = a * x[e];
        y[e] = v + y[e];
    }
}

int blocks_for(int n);

void run_axpy(int n, float a, const float *x, float *y)
{
    axpy_copy<<<blocks_for(n), 128>>>(n, a, x, y);
}
