// A float update with a double literal (Rodinia hotspot's `2.0*t`): the statement runs in
// FP64, every operand converted.
__global__ void relax(const float *t, float *out, float r, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1)
        out[i] = t[i] + r * (t[i - 1] + t[i + 1] - 2.0 * t[i]);
}
