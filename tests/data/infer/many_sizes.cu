// Eighteen integer parameters, each a size of its own: more than the sixteen size
// variables a spec used to allow.
__global__ void weigh(float *out, int n, int a1, int a2, int a3, int a4, int a5, int a6, int a7, int a8,
                      int a9, int a10, int a11, int a12, int a13, int a14, int a15, int a16, int a17)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (float)(a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15 +
                         a16 + a17);
}
