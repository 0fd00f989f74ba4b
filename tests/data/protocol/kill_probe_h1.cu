// 故意的错误 (a deliberate error) 😀
__global__ void scale(float *p, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = p[i] * s + undefined_name;
}

void go(float *p, int n)
{
    scale<<<(n + 127) / 128, 128>>>(p, 2.0f, n);
}
