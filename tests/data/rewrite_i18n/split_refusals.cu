// Kernels that the split rewrites refuse, one reason each (session 37, issue 14): their
// refusals, said in zh-CN by hkls rewrites, must hold no English sentence
// (test_cli_rewrites split_refusals_zh). split_k_columns, split_item_loop,
// split_block_item, split_grid_partials and split_topk_scan read them.

// A column sum down a triangle: the rows' bound is the column itself.
__global__ void colsum_tri(const float *A, float *y, int m, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) {
        float s = 0.0f;
        for (int i = 0; i < j; i++)
            s += A[i * n + j];
        y[j] = s;
    }
}

// One block per row, its threads along the row; a row whose scale is 0 stops early.
__global__ void rows_scale_break(float *x, const float *s, int n, int w)
{
    for (int i = blockIdx.x; i < n; i += gridDim.x)
        for (int j = threadIdx.x; j < w; j += blockDim.x) {
            if (s[i] == 0.0f)
                break;
            x[i * w + j] *= s[i];
        }
}

// A grid-stride copy: it writes global memory in the loop, no per-thread combine.
__global__ void gs_twice(const float *a, float *b, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        b[i] = 2.0f * a[i];
}

// The nearest point of each query, ties kept by the later point (`<=`).
__global__ void nearest_le(const float *q, const float *p, int *out, int nq, int np)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nq; i += blockDim.x * gridDim.x) {
        float best = 1e30f;
        int bi = -1;
        for (int k = 0; k < np; ++k) {
            float d = fabsf(q[i] - p[k]);
            if (d <= best) {
                best = d;
                bi = k;
            }
        }
        out[i] = bi;
    }
}

// A count per query read-modified-written in memory by the scan's guarded update.
__global__ void nearest_rmw(const float *q, const float *p, int *out, int nq, int np)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nq; i += blockDim.x * gridDim.x) {
        for (int k = 0; k < np; ++k) {
            float d = fabsf(q[i] - p[k]);
            if (d < 0.5f)
                out[i] += 1;
        }
    }
}
