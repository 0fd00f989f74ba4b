// Knob fixture: N is the problem size, not a knob; THREADS only sets the launch.
#include <cuda_runtime.h>

constexpr int N = 1024;
constexpr int THREADS = 128;

__global__ void scale(const float *x, float *y, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N)
        y[i] = a * x[i];
}

void run(const float *x, float *y)
{
    scale<<<(N + THREADS - 1) / THREADS, THREADS>>>(x, y, 2.0f);
}
