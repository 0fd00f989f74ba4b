// Example project for command-form bench specs (docs/bench-spec-command.md): a kernel, a
// second kernel that is not the one timed, and a main that checks its own result and
// prints PASS or FAIL. Built with: nvcc -O3 -arch=sm_90 -o saxpy saxpy.cu
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#include "check.h"

__global__ void fill(float *x, float v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = v + 0.001f * (float)(i % 1000);
}

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : (1 << 24) + 17;  // not a multiple of the block
    int iters = argc > 2 ? atoi(argv[2]) : 10;
    float a = 2.0f;
    float *x = nullptr, *y = nullptr;
    CHECK(cudaMalloc(&x, sizeof(float) * n));
    CHECK(cudaMalloc(&y, sizeof(float) * n));
    int block = 256, grid = (n + block - 1) / block;
    fill<<<grid, block>>>(x, 1.0f, n);
    fill<<<grid, block>>>(y, 3.0f, n);
    for (int it = 0; it < iters; it++) {
        fill<<<grid, block>>>(y, 3.0f, n);  // fresh y each time: every launch is checkable
        saxpy<<<grid, block>>>(n, a, x, y);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    std::vector<float> hy(n);
    CHECK(cudaMemcpy(hy.data(), y, sizeof(float) * n, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int i = 0; i < n; i++) {
        float xi = 1.0f + 0.001f * (float)(i % 1000), yi = 3.0f + 0.001f * (float)(i % 1000);
        float want = iters > 0 ? a * xi + yi : yi;
        if (!(std::fabs(hy[i] - want) <= 1e-5f + 1e-5f * std::fabs(want))) {
            if (bad++ < 5)
                printf("mismatch at %d: got %g want %g\n", i, hy[i], want);
        }
    }
    cudaFree(x);
    cudaFree(y);
    printf("%s (%ld of %d wrong)\n", bad ? "FAIL" : "PASS", bad, n);
    return bad ? 1 : 0;
}
