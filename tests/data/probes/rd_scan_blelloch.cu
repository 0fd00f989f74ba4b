// Probe: work-efficient (up-sweep / down-sweep) exclusive scan of each block's 2*B
// elements in shared memory, no padding (bank conflicts at the larger strides); each
// block also writes its segment's total for a later pass.
#define B 512
__global__ void rd_scan_blelloch(const float *in, float *out, float *block_sums, int n)
{
    __shared__ float tmp[2 * B];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * B;
    tmp[2 * t] = (base + 2 * t < n) ? in[base + 2 * t] : 0.0f;
    tmp[2 * t + 1] = (base + 2 * t + 1 < n) ? in[base + 2 * t + 1] : 0.0f;
    int offset = 1;
    for (int d = B; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            tmp[bi] += tmp[ai];
        }
        offset *= 2;
    }
    if (t == 0) {
        block_sums[blockIdx.x] = tmp[2 * B - 1];
        tmp[2 * B - 1] = 0.0f;
    }
    for (int d = 1; d < 2 * B; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            float a = tmp[ai];
            tmp[ai] = tmp[bi];
            tmp[bi] += a;
        }
    }
    __syncthreads();
    if (base + 2 * t < n)
        out[base + 2 * t] = tmp[2 * t];
    if (base + 2 * t + 1 < n)
        out[base + 2 * t + 1] = tmp[2 * t + 1];
}
