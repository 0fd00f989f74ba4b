// After split_k_columns on gfx9: rw_split_k_columns's output for kernels/split_k_columns.cu, unchanged but
// for the HIP header; the partial sums meet in LDS behind __syncthreads() (s_barrier).
#include <hip/hip_runtime.h>
__global__ void column_products(int rows, int cols, const float *A, const float *r, float *s)
{
    // hk rewrite (split_k_columns): 8 row slices per column. A block of T threads
    // takes T / 8 columns; slice r sums rows start + r, start + r + 8, ... of
    // its column, the partials meet in shared memory and the thread of slice 0
    // finishes the column. Column groups are grid-strided over the blocks.
    const unsigned int hk_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned int hk_nthreads = blockDim.x * blockDim.y * blockDim.z;
    const unsigned int hk_slices = hk_nthreads >= 8u ? 8u : hk_nthreads;
    const unsigned int hk_cols = hk_nthreads / hk_slices;
    const unsigned int hk_col = hk_tid % hk_cols, hk_slice = hk_tid / hk_cols;
    const unsigned long long hk_blocks = (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
    __shared__ float hk_part[1024];
    for (unsigned long long hk_group = blockIdx.x + (unsigned long long)gridDim.x *
             (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);; hk_group += hk_blocks) {
        int j = (int)(hk_group * hk_cols + hk_col);
        {   // past the bound with the group's first column: so are all later groups
            int j = (int)(hk_group * hk_cols);
            if (!((j < cols)))
                break;
        }
        const bool hk_in = hk_slice < hk_slices && (j < cols);
        float hk_acc = 0;
        if (hk_in) {
            for (int i = (0) + hk_slice; i < rows; i += hk_slices)
            hk_acc += A[i * cols + j] * r[i];
        }
        if (hk_slice < hk_slices)
            hk_part[hk_tid] = hk_acc;
        __syncthreads();
        if (hk_slice == 0 && hk_in) {
            float hk_sum = hk_part[hk_col];
            for (unsigned int hk_q = 1; hk_q < hk_slices; hk_q++)
                hk_sum += hk_part[hk_q * hk_cols + hk_col];
            float acc = 0.0f;
            acc += hk_sum;
            s[j] = acc;
        }
        __syncthreads();   // the partials are read before the next group writes them
    }
}
