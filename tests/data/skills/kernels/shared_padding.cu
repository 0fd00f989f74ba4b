// A block scan in shared memory whose tree strides threadIdx.x by 2 * offset words.
#define B 256
__global__ void block_scan(const float *in, float *out, int n)
{
    __shared__ float s[2 * B];
    int t = threadIdx.x, base = 2 * B * blockIdx.x, offset = 1;
    s[2 * t] = base + 2 * t < n ? in[base + 2 * t] : 0.0f;
    s[2 * t + 1] = base + 2 * t + 1 < n ? in[base + 2 * t + 1] : 0.0f;
    for (int d = B; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d)
            s[offset * (2 * t + 2) - 1] += s[offset * (2 * t + 1) - 1];
        offset *= 2;
    }
    __syncthreads();
    if (base + 2 * t < n)
        out[base + 2 * t] = s[2 * t];
}
