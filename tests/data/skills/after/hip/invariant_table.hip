// After invariant_table on gfx9: rw_invariant_table's output for kernels/invariant_table.cu;
// the table lives in LDS and is read back with ds_read_b32.
#include <hip/hip_runtime.h>
__global__ void add_positional(const float *x, float *y, int rows, int dim, float base)
{
    // invariant_table: a pure function of c in [0, K) computed once per block
    constexpr int HK_TABLE = 1024;
    __shared__ float hk_tab[HK_TABLE];
    long long hk_k;
    bool hk_tab_on;
    {
        hk_k = (long long)(dim);
        hk_tab_on = hk_k > 0 && hk_k <= HK_TABLE;
        if (hk_tab_on) {
            const long long hk_step = (long long)blockDim.x * blockDim.y * blockDim.z;
            for (long long hk_t = threadIdx.x + (long long)blockDim.x * (threadIdx.y + (long long)blockDim.y * threadIdx.z);
                 hk_t < hk_k; hk_t += hk_step) {
                const int c = (int)hk_t;
                hk_tab[hk_t] = powf(base, -(float)(c & ~1) / dim);
            }
        }
    }
    __syncthreads();

    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long)rows * dim)
        return;
    int c = i % dim;
    long pos = i / dim;
    float freq = (hk_tab_on && (long long)(c) >= 0 && (long long)(c) < hk_k) ? hk_tab[c] : (powf(base, -(float)(c & ~1) / dim));
    y[i] = x[i] + ((c & 1) ? cosf(pos * freq) : sinf(pos * freq));
}
