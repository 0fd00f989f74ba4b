// A float buffer read four at a time through a float4 pointer: reinterpret_cast<const
// float4 *>(a)[i] reads a[4i] to a[4i + 3]. Before, the kernel model listed it as a[i] and
// the count of a was n, a quarter of what the kernel reads.
__global__ void widen(const float *a, float *o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 w = reinterpret_cast<const float4 *>(a)[i];
        o[i] = a[i] + w.x + w.w;
    }
}
