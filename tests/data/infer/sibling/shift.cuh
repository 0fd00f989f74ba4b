// A kernel header with no launch of its own: the launch lives in host/run.cu.
template <typename T>
__global__ void shift(const T *in, T *out, int n, T by)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] + by;
}
