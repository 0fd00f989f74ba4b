// After block_scan: each warp scans its 32 values with shuffles, one warp scans the warps'
// totals, each thread adds its warp's prefix (two barriers instead of one per pass).
__global__ void block_scan(const int *in, int *out, int n)
{
    __shared__ int warp_total[32];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int lane = t & 31, warp = t >> 5;
    int v = i < n ? in[i] : 0;
    for (int d = 1; d < 32; d <<= 1) {
        int up = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d)
            v += up;
    }
    if (lane == 31)
        warp_total[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int w = lane < (int)(blockDim.x >> 5) ? warp_total[lane] : 0;
        for (int d = 1; d < 32; d <<= 1) {
            int up = __shfl_up_sync(0xffffffffu, w, d);
            if (lane >= d)
                w += up;
        }
        warp_total[lane] = w;
    }
    __syncthreads();
    if (warp > 0)
        v += warp_total[warp - 1];
    if (i < n)
        out[i] = v;
}
