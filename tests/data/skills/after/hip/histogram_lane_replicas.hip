// After histogram_lane_replicas on gfx9 (the rewrite's own output): 32 lane replicas of the
// bins in LDS (lanes l and l + 32 of a wavefront share one), ds_add_u32 without a result,
// global_load_dwordx4 loads of the bytes.
#include <hip/hip_runtime.h>
__global__ void byte_histogram(const unsigned char *__restrict__ bytes, unsigned int *counts, long n)
{
    // hk rewrite: histogram with lane replicas. Each block keeps HK_LANES copies of the
    // bins in shared memory, bin b of lane l in word b * HK_LANES + l, so a warp's 32
    // increments hit 32 different banks whatever the data (hot bins cost what uniform
    // data costs). The increments are shared atomics, exact when warps share a lane; the
    // counters are as wide as the histogram's, so they never need a flush. A bin outside
    // [0, HK_BINS) goes to global memory directly; each block sums its replicas per bin
    // and adds the non-zero sums once. Any block shape: the lane is the flat thread id.
    constexpr int HK_MAX_BLOCKS = 1024;
    constexpr int HK_BINS = 256;
    constexpr int HK_LANES = 32;
    static_assert(HK_BINS >= 1 && HK_LANES >= 1, "HK_BINS and HK_LANES: at least 1");
    static_assert(HK_BINS * HK_LANES * sizeof(unsigned int) <= 48 * 1024,
                  "the replicas must fit 48 KiB of static shared memory");
    __shared__ unsigned int hk_rep[HK_BINS * HK_LANES];
    // no min(): HIP's overloads for unsigned int are ambiguous
    const unsigned int hk_grid = gridDim.x;
    const unsigned int hk_blocks = hk_grid < (unsigned int)HK_MAX_BLOCKS ? hk_grid : (unsigned int)HK_MAX_BLOCKS;
    if (blockIdx.x >= hk_blocks)
        return;
    const unsigned int hk_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned int hk_nthreads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned int hk_lane = hk_tid % HK_LANES;
    const long long hk_n = (long long)(n);
    for (unsigned int hk_w = hk_tid; hk_w < HK_BINS * HK_LANES; hk_w += hk_nthreads)
        hk_rep[hk_w] = 0;
    __syncthreads();
    // elements along x: threads along y and z repeat them, as the original's index does
    const long long hk_gx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long hk_sx = (long long)hk_blocks * blockDim.x;
    const unsigned char *const hk_src = bytes;
    const long long hk_len = hk_n > 0 ? hk_n : 0;
    long long hk_head = (long long)((16u - ((unsigned int)reinterpret_cast<unsigned long long>(hk_src) & 15u)) & 15u);
    if (hk_head > hk_len)
        hk_head = hk_len;
    const long long hk_nv = (hk_len - hk_head) >> 4;   // whole uint4 vectors
    const long long hk_tail = hk_head + hk_nv * 16;    // the elements after them
    if (hk_gx < hk_head) {
        {
            const int hk_b = (int)((unsigned char)hk_src[hk_gx]);
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
    }
    if (hk_tail + hk_gx < hk_len) {
        {
            const int hk_b = (int)((unsigned char)hk_src[hk_tail + hk_gx]);
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
    }
    // 16 bytes per load, 16 replica atomics per load
    const uint4 *const hk_vec = reinterpret_cast<const uint4 *>(hk_src + hk_head);
    for (long long hk_j = hk_gx; hk_j < hk_nv; hk_j += hk_sx) {
        const uint4 hk_x = hk_vec[hk_j];
        {
            const int hk_b = (int)((unsigned char)(hk_x.x >> 0));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.x >> 8));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.x >> 16));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.x >> 24));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.y >> 0));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.y >> 8));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.y >> 16));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.y >> 24));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.z >> 0));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.z >> 8));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.z >> 16));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.z >> 24));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.w >> 0));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.w >> 8));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.w >> 16));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
        {
            const int hk_b = (int)((unsigned char)(hk_x.w >> 24));
            if (hk_b >= 0 && hk_b < HK_BINS)
                atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], 1u);
            else
                atomicAdd(&counts[hk_b], (unsigned int)(1u));
        }
    }
    __syncthreads();
    for (unsigned int hk_b = hk_tid; hk_b < HK_BINS; hk_b += hk_nthreads) {
        unsigned int hk_s = 0;
        for (unsigned int hk_l = 0; hk_l < HK_LANES; hk_l++)   // staggered: one bank per thread
            hk_s += hk_rep[hk_b * HK_LANES + (hk_l + hk_b) % HK_LANES];
        if (hk_s != 0)
            atomicAdd(&counts[hk_b], (unsigned int)hk_s);
    }
}
