// expect: timeout
// kernel: vector_add
// vector_add that never terminates: it spins on a flag in device memory that nothing sets
// (a volatile global the compiler cannot prove constant).
__device__ volatile int hk_cheat_release;

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (hk_cheat_release == 0)
        ;
    if (i < n)
        c[i] = a[i] + b[i];
}
