// Deliberate front-end errors and a warning, for diagnostics parsing.
__global__ void broken(float *p, int n)
{
    int unused_var = 3;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = undeclared_thing * 2.0f;
    p[0] = missing_fn(p);
}
