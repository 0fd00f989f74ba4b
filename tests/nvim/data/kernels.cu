// Neovim 端到端测试的示例内核 (sample kernels for the headless-Neovim test)
#include <cuda_runtime.h>

#define BLOCK 128

// 逐元素缩放：每个线程处理一个元素
__global__ void scale_kernel(float *p, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= s;
}

/* 归约：先在线程块内求和 */ __global__ void block_sum(const float *__restrict__ in, float *out, int n)
{
    extern __shared__ float buf[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (unsigned k = 0; k < blockDim.x; k++) s += buf[k];
        atomicAdd(out, s);
    }
}

void launch_all(float *p, const float *in, float *out, int n, cudaStream_t st)
{
    scale_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(p, 2.0f, n);
    block_sum<<<(n + 255) / 256, 256, 256 * sizeof(float), st>>>(in, out, n);
}
