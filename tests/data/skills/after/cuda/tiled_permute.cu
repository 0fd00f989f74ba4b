// After tiled_permute (hkls rewrites --emit tiled_permute of kernels/tiled_permute.cu): 32x33
// padded shared tile, reads along d, writes along the fused (a, b) coordinate.
__global__ void permute(const float *in, float *out, int a, int b, int c, int d)
{
    // hk rewrite: tiled permutation. The flat index e < N splits into the tiled
    // coordinates u = e % A (contiguous in the input) and v = (e / S) % D (contiguous in
    // the output) and the rest; each block walks HK_TILE x HK_TILE tiles of (u, v)
    // (grid-stride), reads one coalesced along its input's contiguous coordinate into the
    // padded tile, then writes it coalesced along its output's. The kernel's own index
    // maps on 32-bit indices (a 64-bit division costs several times a 32-bit one). Any
    // launch: where N does not split that way at run time, or passes 2^31, every
    // element is copied as before.
#define TP_OUT_INDEX(hk_e) (((((hk_e) / ((decltype(hk_e))c*d))) % (b)) + (decltype(hk_e))((((hk_e) / (d))) % (c))*a*b + (decltype(hk_e))((hk_e) % (d))*a*b*c + (decltype(hk_e))((hk_e) / ((decltype(hk_e))b*c*d))*b)
#define TP_IN_INDEX(hk_e) (hk_e)
    constexpr int HK_TILE = 32;
    constexpr unsigned int HK_TPB = 256;
    __shared__ float hk_tile[HK_TILE][HK_TILE + 1];
    const unsigned int hk_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned int hk_nthreads = blockDim.x * blockDim.y * blockDim.z;
    const long long hk_n = ((long long)a*b*c*d);
    const long long hk_blocks = (long long)gridDim.x * gridDim.y * gridDim.z;
    const long long hk_block = blockIdx.x + (long long)gridDim.x * (blockIdx.y + (long long)gridDim.y * blockIdx.z);
    // the split e = ((hi * D + v) * S / A + mid) * A + u, checked in 32 bits (a 64-bit
    // division is a long subroutine that every thread would run)
    const long long hk_a = (d), hk_s = ((long long)c*d);
    bool hk_tiled = hk_n > 0 && hk_n <= 0x7fffffffLL && hk_blocks <= 0x7fffffffLL && hk_a > 0 &&
                    hk_s > 0 && hk_a <= hk_n && hk_s <= hk_n;
    unsigned int hk_ia = 0, hk_is = 0, hk_id = 0;
    if (hk_tiled) {
        hk_ia = (unsigned int)hk_a;
        hk_is = (unsigned int)hk_s;
        const long long hk_d = (long long)((unsigned int)hk_n / (unsigned int)hk_s);
        hk_tiled = hk_d > 0 && hk_s * hk_d <= hk_n;
        hk_id = hk_tiled ? (unsigned int)hk_d : 0u;
        hk_tiled = hk_tiled && hk_is % hk_ia == 0 && (unsigned int)hk_n % (hk_is * hk_id) == 0;
    }
    if (!hk_tiled) {
        for (long long hk_e = hk_block * hk_nthreads + hk_tid; hk_e < hk_n; hk_e += hk_blocks * hk_nthreads)
            out[TP_OUT_INDEX(hk_e)] = in[TP_IN_INDEX(hk_e)];
    } else {
        const unsigned int hk_m = hk_is / hk_ia;
        const unsigned int hk_tu = (hk_ia + HK_TILE - 1) / HK_TILE, hk_tv = (hk_id + HK_TILE - 1) / HK_TILE;
        const unsigned int hk_tiles = hk_tu * hk_tv * hk_m * ((unsigned int)hk_n / (hk_is * hk_id));
        // the permuted map's other coordinates (e / sk) % dk (dk 0: the outermost) move with
        // neither u nor v when they lie above u and above or below v: then inside a tile the
        // map moves by hk_fu per step of u and 1 per step of v, and is evaluated once per tile
        auto hk_aligned = [&](long long hk_sk, long long hk_dk) -> bool {
            if (hk_sk > hk_n)
                return true;
            if (hk_sk <= 0 || (unsigned int)hk_sk % hk_ia != 0)
                return false;
            return (unsigned int)hk_sk % (hk_is * hk_id) == 0 ||
                   (hk_dk > 0 && hk_sk * hk_dk <= hk_n && hk_is % (unsigned int)(hk_sk * hk_dk) == 0);
        };
        const bool hk_linear = true && hk_aligned((d), (c));
        (void)hk_aligned;
        const unsigned int hk_fu = ((unsigned int)a*b*c);
        for (unsigned int hk_t = (unsigned int)hk_block; hk_t < hk_tiles; hk_t += (unsigned int)hk_blocks) {
            const unsigned int hk_q = hk_t / hk_tu, hk_rest = hk_q / hk_tv, hk_hi = hk_rest / hk_m;
            const unsigned int hk_u0 = (hk_t - hk_q * hk_tu) * HK_TILE, hk_v0 = (hk_q - hk_rest * hk_tv) * HK_TILE;
            const unsigned int hk_base = hk_hi * (hk_is * hk_id) + (hk_rest - hk_hi * hk_m) * hk_ia;
            const unsigned int hk_e0 = hk_base + hk_v0 * hk_is + hk_u0;
            const unsigned int hk_f0 = hk_linear ? (unsigned int)(TP_OUT_INDEX(hk_e0)) : 0u;
            // a whole tile read by blocks of HK_TPB threads: no bounds checks and a fixed
            // trip count, so the unrolled loops issue all their loads (stores) at once
            const bool hk_fast = hk_u0 + HK_TILE <= hk_ia && hk_v0 + HK_TILE <= hk_id &&
                                 hk_nthreads == HK_TPB && (HK_TILE * HK_TILE) % HK_TPB == 0;
            if (hk_fast) {
                #pragma unroll
                for (unsigned int hk_k = 0; hk_k < HK_TILE * HK_TILE / HK_TPB; hk_k++) {
                    const unsigned int hk_r = (hk_tid + hk_k * HK_TPB) / HK_TILE, hk_c = (hk_tid + hk_k * HK_TPB) % HK_TILE;
                    const unsigned int hk_e = hk_base + (hk_v0 + hk_r) * hk_is + hk_u0 + hk_c;
                    hk_tile[hk_r][hk_c] = in[TP_IN_INDEX(hk_e)];
                }
            } else {
                for (unsigned int hk_k = hk_tid; hk_k < HK_TILE * HK_TILE; hk_k += hk_nthreads) {
                    const unsigned int hk_r = hk_k / HK_TILE, hk_c = hk_k % HK_TILE;
                    if (hk_u0 + hk_c < hk_ia && hk_v0 + hk_r < hk_id) {
                        const unsigned int hk_e = hk_base + (hk_v0 + hk_r) * hk_is + hk_u0 + hk_c;
                        hk_tile[hk_r][hk_c] = in[TP_IN_INDEX(hk_e)];
                    }
                }
            }
            __syncthreads();
            if (hk_fast) {
                #pragma unroll
                for (unsigned int hk_k = 0; hk_k < HK_TILE * HK_TILE / HK_TPB; hk_k++) {
                    const unsigned int hk_r = (hk_tid + hk_k * HK_TPB) / HK_TILE, hk_c = (hk_tid + hk_k * HK_TPB) % HK_TILE;
                    const unsigned int hk_e = hk_base + (hk_v0 + hk_c) * hk_is + hk_u0 + hk_r;
                    out[(hk_linear ? hk_f0 + (hk_r) * hk_fu + (hk_c) : TP_OUT_INDEX(hk_e))] = hk_tile[hk_c][hk_r];
                }
            } else {
                for (unsigned int hk_k = hk_tid; hk_k < HK_TILE * HK_TILE; hk_k += hk_nthreads) {
                    const unsigned int hk_r = hk_k / HK_TILE, hk_c = hk_k % HK_TILE;
                    if (hk_u0 + hk_r < hk_ia && hk_v0 + hk_c < hk_id) {
                        const unsigned int hk_e = hk_base + (hk_v0 + hk_c) * hk_is + hk_u0 + hk_r;
                        out[(hk_linear ? hk_f0 + (hk_r) * hk_fu + (hk_c) : TP_OUT_INDEX(hk_e))] = hk_tile[hk_c][hk_r];
                    }
                }
            }
            __syncthreads();
        }
    }
#undef TP_OUT_INDEX
#undef TP_IN_INDEX
}
