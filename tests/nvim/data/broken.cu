// 故意的编译错误 (a deliberate compile error on line 6)
#include <cuda_runtime.h>

__global__ void scale(float *p, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x; /* 错误在下一行 */ if (i < n) p[i] = p[i] * s + undefined_name;
}

void go(float *p, int n)
{
    scale<<<(n + 127) / 128, 128>>>(p, 2.0f, n);
}
