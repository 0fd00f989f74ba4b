// Subscripts that do not grow with the index: the largest index does not give the largest
// element.

// out[n - 1 - i]: at i = n - 1 the element is 0, at i = 0 it is n - 1.
__global__ void reverse(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[n - 1 - i] = in[i];
}

// out[i % 8]: eight partial sums whatever n is.
__global__ void fold8(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&out[i % 8], in[i]);
}

// out[i % -8]: a remainder by a negative number takes the sign of i, so d - 1 (-9) is no
// bound of it.
__global__ void fold_negative(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&out[i % -8], in[i]);
}
