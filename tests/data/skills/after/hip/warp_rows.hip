// After warp_rows on gfx9: rw_warp_rows's output for kernels/warp_rows.cu with the shuffles in HIP
// spelling: 32-lane groups (two per 64-lane wavefront), __shfl_xor width 32 (DPP / ds_swizzle).
#include <hip/hip_runtime.h>
__global__ void sum_rows(const float *in, float *out, int rows, int cols)
{
    // hk rewrite (warp_rows): one warp per row, rows grid-strided over all warps; the
    // lanes stride the columns (coalesced), per-row sums are combined by shuffles and
    // per-row results are stored by lane 0.
    const unsigned int hk_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned int hk_nthreads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned int hk_lane = hk_tid & 31u, hk_warp = hk_tid >> 5;
    const unsigned int hk_nwarps = (hk_nthreads + 31u) >> 5;
    // lanes of this warp (a block of e.g. 48 threads ends in a warp of 16) and their mask
    const unsigned int hk_width = min(hk_nthreads - (hk_warp << 5), 32u);
    for (long long hk_row = (long long)blockIdx.x * hk_nwarps + hk_warp; hk_row < (long long)(rows);
         hk_row += (long long)gridDim.x * hk_nwarps) {
        int r = (int)hk_row;
        float s = 0.0f;
        for (int c = (int)hk_lane; c < cols; c += (int)hk_width)
            s += in[(long)r * cols + c];
        for (unsigned int hk_off = 16u; hk_off > 0u; hk_off >>= 1) {
            const decltype(s) hk_o = __shfl_xor(s, hk_off, 32);
            if ((hk_lane ^ hk_off) < hk_width)
                s += hk_o;
        }
        if (hk_width != 32u)
            s = __shfl(s, 0, 32);
        if (hk_lane == 0u) {
            out[r] = s;
        }
    }
}

