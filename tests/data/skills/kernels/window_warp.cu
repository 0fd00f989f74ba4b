// window_warp's sample: a grid-stride loop over outputs, each the maximum and its position over
// a segment whose bounds it reads.
__global__ void segment_max(const int *offs, const float *val, float *out, int *arg, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float m = -1e30f;
        int a = -1;
        for (int j = offs[i]; j < offs[i + 1]; ++j)
            if (val[j] > m) {
                m = val[j];
                a = j;
            }
        out[i] = m;
        arg[i] = a;
    }
}
