// 向量运算示例 (vector examples) 🚀
#include <cuda_runtime.h>

#define TILE 16

__device__ float square(float v) { return v * v; }

// 计算 y = a*x + y
__global__ void saxpy(int n, float a, const float *__restrict__ x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    buf[threadIdx.x] = i < n ? square(in[i]) : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0;
        for (int k = 0; k < BLOCK; k++) s += buf[k];
        atomicAdd(out, s);
    }
}

void run(int n, float *x, float *y, float *out, cudaStream_t st)
{
    saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
    reduce_sum<256><<<(n + 255) / 256, 256, 0, st>>>(y, out, n);
}

/* 内核🚀 */ __global__ void tagged(int *p) { p[0] = 1; }
