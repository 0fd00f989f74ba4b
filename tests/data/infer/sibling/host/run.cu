#include "../shift.cuh"

// An overload of another shape: its launch is not the header kernel's.
__global__ void shift(int *flag) { flag[0] = 1; }

void run(int *flag)
{
    shift<<<1, 1>>>(flag);
    int n = 1 << 20;
    double *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(double));
    cudaMalloc(&d_out, n * sizeof(double));
    shift<double><<<(n + 255) / 256, 256>>>(d_in, d_out, n, 0.5);
}
