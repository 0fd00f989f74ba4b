// After histogram_thread_counters (the rewrite's own output for kernels/histogram_thread_counters.cu,
// HK_T 128): per-thread byte counters, uint4 (LDG.E.128) loads, no ATOMS while counting.
__global__ void byte_histogram(const unsigned char *__restrict__ bytes, unsigned int *counts, long n)
{
    // hk rewrite: histogram with per-thread byte counters. With HK_T threads per block,
    // thread t counts bin b in byte b % 4 of word (b / 4) * HK_T + t of hk_cnt (lane l
    // always touches bank l): plain increments, no atomics, no bank conflicts. Before a
    // counter can pass 255 the block adds the counters to hk_tot and clears them. Other
    // block sizes count with shared atomics. A bin outside [0, HK_BINS) goes to global
    // memory directly; each block adds its non-zero totals once.
    constexpr int HK_MAX_BLOCKS = 1024;
    constexpr int HK_BINS = 256;
    constexpr int HK_T = 128;
    constexpr int HK_BQ = (HK_BINS + 3) / 4;   // bin quads: one word per quad and thread
    static_assert(HK_T % 32 == 0 && HK_T >= 32 && HK_T <= 1024, "HK_T: a multiple of 32 up to 1024");
    static_assert(HK_BINS >= 1 && HK_BINS <= 256, "HK_BINS: 1..256");
    static_assert(HK_BQ * HK_T * 4 + HK_BINS * sizeof(unsigned int) <= 48 * 1024,
                  "counters and totals must fit 48 KiB of static shared memory");
    // the flush: HK_P threads share the HK_T columns of a quad, HK_L each (a multiple of
    // 32 when HK_T allows, so the lane-staggered reads hit 32 different banks)
    constexpr int HK_P = HK_T / HK_BQ < 1 ? 1 : (HK_T / HK_BQ < HK_T / 32 ? HK_T / HK_BQ : HK_T / 32);
    constexpr int HK_L = (HK_T + HK_P - 1) / HK_P;
    __shared__ unsigned int hk_cnt[HK_BQ * HK_T];
    __shared__ unsigned int hk_tot[HK_BINS];
    // no min(): HIP's overloads for unsigned int are ambiguous
    const unsigned int hk_grid = gridDim.x;
    const unsigned int hk_blocks = hk_grid < (unsigned int)HK_MAX_BLOCKS ? hk_grid : (unsigned int)HK_MAX_BLOCKS;
    if (blockIdx.x >= hk_blocks)
        return;
    const unsigned int hk_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned int hk_nthreads = blockDim.x * blockDim.y * blockDim.z;
    const long long hk_n = (long long)(n);
    for (unsigned int hk_b = hk_tid; hk_b < HK_BINS; hk_b += hk_nthreads)
        hk_tot[hk_b] = 0;
    if (blockDim.x != HK_T || hk_nthreads != HK_T) {
        // not the block the counters are laid out for: shared atomics
        __syncthreads();
        for (long long hk_i = (long long)blockIdx.x * blockDim.x + threadIdx.x; hk_i < hk_n;
             hk_i += (long long)hk_blocks * blockDim.x) {
            const long i = (long)hk_i;
            const long long hk_bin = (long long)(bytes[i]);
            if (hk_bin >= 0 && hk_bin < HK_BINS)
                atomicAdd(&hk_tot[hk_bin], (unsigned int)1);
            else
                atomicAdd(&counts[hk_bin], (unsigned int)1);
        }
    } else {
        for (int hk_w = (int)hk_tid; hk_w < HK_BQ * HK_T; hk_w += HK_T)
            hk_cnt[hk_w] = 0u;
        __syncthreads();
        // this thread's counters: byte (b & ~3) * HK_T + (b & 3) from here
        unsigned char *const hk_c8 = reinterpret_cast<unsigned char *>(hk_cnt) + 4 * hk_tid;
        const unsigned char *const hk_src = bytes;
        const long long hk_len = hk_n > 0 ? hk_n : 0;
        long long hk_head = (long long)((16u - ((unsigned int)reinterpret_cast<unsigned long long>(hk_src) & 15u)) & 15u);
        if (hk_head > hk_len)
            hk_head = hk_len;
        const long long hk_nv = (hk_len - hk_head) >> 4;   // whole uint4 vectors
        const long long hk_tail = hk_head + hk_nv * 16;    // the elements after them
        {
            const long long hk_g = (long long)blockIdx.x * HK_T + hk_tid;
            if (hk_g < hk_head) {
                {
                    const int hk_b = (int)((unsigned char)hk_src[hk_g]);
                    if (hk_b >= 0 && hk_b < HK_BINS)
                        ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                    else
                        atomicAdd(&counts[hk_b], (unsigned int)1);
                }
            }
            if (hk_tail + hk_g < hk_len) {
                {
                    const int hk_b = (int)((unsigned char)hk_src[hk_tail + hk_g]);
                    if (hk_b >= 0 && hk_b < HK_BINS)
                        ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                    else
                        atomicAdd(&counts[hk_b], (unsigned int)1);
                }
            }
        }
        const uint4 *const hk_vec = reinterpret_cast<const uint4 *>(hk_src + hk_head);
        const long long hk_step = (long long)hk_blocks * (2 * HK_T);   // vectors per round
        const long long hk_rounds = (hk_nv + hk_step - 1) / hk_step;
        // rounds between flushes: 7 * 32 bytes + head + tail = 226 counts per thread < 256
        constexpr int HK_CHUNK = 7;
        // two uint4 per thread and round; the next round's pair is loaded before this
        // one's is counted (also across a flush), so 32 bytes per thread stay in flight
        long long hk_j = (long long)blockIdx.x * (2 * HK_T) + hk_tid;
        uint4 hk_x0 = make_uint4(0u, 0u, 0u, 0u), hk_x1 = hk_x0;
        if (hk_j < hk_nv)
            hk_x0 = hk_vec[hk_j];
        if (hk_j + HK_T < hk_nv)
            hk_x1 = hk_vec[hk_j + HK_T];
        for (long long hk_r0 = 0;; hk_r0 += HK_CHUNK) {
            const long long hk_r1 = hk_r0 + HK_CHUNK < hk_rounds ? hk_r0 + HK_CHUNK : hk_rounds;
            for (long long hk_r = hk_r0; hk_r < hk_r1; hk_r++) {
                const long long hk_jn = hk_j + hk_step;
                uint4 hk_y0 = make_uint4(0u, 0u, 0u, 0u), hk_y1 = hk_y0;
                if (hk_jn < hk_nv)
                    hk_y0 = hk_vec[hk_jn];
                if (hk_jn + HK_T < hk_nv)
                    hk_y1 = hk_vec[hk_jn + HK_T];
                if (hk_j < hk_nv) {
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.x >> 0));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.x >> 8));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.x >> 16));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.x >> 24));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.y >> 0));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.y >> 8));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.y >> 16));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.y >> 24));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.z >> 0));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.z >> 8));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.z >> 16));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.z >> 24));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.w >> 0));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.w >> 8));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.w >> 16));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x0.w >> 24));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                }
                if (hk_j + HK_T < hk_nv) {
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.x >> 0));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.x >> 8));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.x >> 16));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.x >> 24));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.y >> 0));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.y >> 8));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.y >> 16));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.y >> 24));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.z >> 0));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.z >> 8));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.z >> 16));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.z >> 24));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.w >> 0));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.w >> 8));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.w >> 16));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                    {
                        const int hk_b = (int)((unsigned char)(hk_x1.w >> 24));
                        if (hk_b >= 0 && hk_b < HK_BINS)
                            ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];
                        else
                            atomicAdd(&counts[hk_b], (unsigned int)1);
                    }
                }
                hk_x0 = hk_y0;
                hk_x1 = hk_y1;
                hk_j = hk_jn;
            }
            __syncthreads();
            for (int hk_w = (int)hk_tid; hk_w < HK_BQ * HK_P; hk_w += HK_T) {
                const int hk_q = hk_w / HK_P, hk_c0 = (hk_w % HK_P) * HK_L, hk_lane = (int)(hk_tid & 31u);
                unsigned int hk_s[4] = {0u, 0u, 0u, 0u};
                for (int hk_j0 = 0; hk_j0 < HK_L; hk_j0 += 256) {
                    unsigned int hk_ev = 0u, hk_od = 0u;
                    const int hk_j1 = hk_j0 + 256 < HK_L ? hk_j0 + 256 : HK_L;
                    for (int hk_j = hk_j0; hk_j < hk_j1; hk_j++) {
                        const int hk_c = hk_c0 + (hk_j + hk_lane) % HK_L;   // staggered by lane
                        if (hk_c < HK_T) {
                            const unsigned int hk_v = hk_cnt[hk_q * HK_T + hk_c];
                            hk_cnt[hk_q * HK_T + hk_c] = 0u;
                            hk_ev += hk_v & 0x00ff00ffu;
                            hk_od += (hk_v >> 8) & 0x00ff00ffu;
                        }
                    }
                    hk_s[0] += hk_ev & 0xffffu;
                    hk_s[1] += hk_od & 0xffffu;
                    hk_s[2] += hk_ev >> 16;
                    hk_s[3] += hk_od >> 16;
                }
                #pragma unroll
                for (int hk_k = 0; hk_k < 4; hk_k++)
                    if (hk_s[hk_k] != 0u && hk_q * 4 + hk_k < HK_BINS) {
                        if (HK_P == 1)
                            hk_tot[hk_q * 4 + hk_k] += hk_s[hk_k];
                        else
                            atomicAdd(&hk_tot[hk_q * 4 + hk_k], (unsigned int)hk_s[hk_k]);
                    }
            }
            __syncthreads();
            if (hk_r0 + HK_CHUNK >= hk_rounds)
                break;
        }
    }
    __syncthreads();
    for (unsigned int hk_b = hk_tid; hk_b < HK_BINS; hk_b += hk_nthreads)
        if (hk_tot[hk_b] != 0)
            atomicAdd(&counts[hk_b], (unsigned int)hk_tot[hk_b]);
}
