// Thread-per-row kernels for test_engine_rewrite_rows: shapes rw_warp_rows takes, and near
// misses it must refuse (each named after the rule it breaks).
#include <math.h>

// if-block guard, `acc = acc + x` form, double accumulator, unsigned index, a declaration
// before the index that the bound reads
__global__ void sum_block(const double *in, double *out, unsigned int rows, unsigned int cols)
{
    const unsigned int n = rows;
    unsigned int r = threadIdx.x + blockIdx.x * blockDim.x;
    if (r < n) {
        double acc = 0.0;
        for (unsigned int c = 0; c < cols; ++c)
            acc = acc + in[(size_t)r * cols + c];
        out[r] = acc;
    }
}

// a max reduction (any start value is fine for max), a sum with a condition, two results
__global__ void row_stats(const float *x, float *maxv, float *npos, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float m = -INFINITY;
    float cnt = 0.0f;
    for (int c = 0; c < cols; c += 1) {
        float v = x[(long)r * cols + c];
        m = fmaxf(m, v);
        if (v > 0.0f)
            cnt += 1.0f;
    }
    maxv[r] = m;
    npos[r] = cnt;
}

// two passes: a sum, then a scaled write through a loop-local index
__global__ void scale_rows(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const float *row = in + (size_t)r * cols;
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
        s += fabsf(row[c]);
    float inv = s > 0.0f ? 1.0f / s : 0.0f;
    for (int c = 0; c < cols; c++) {
        size_t o = (size_t)r * cols + c;
        out[o] = row[c] * inv;
    }
}

__global__ void nonzero_init(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = 1.0f;
    for (int c = 0; c < cols; c++)
        s += in[(size_t)r * cols + c];
    out[r] = s;
}

// a prefix sum: the running total is read inside its loop
__global__ void acc_used(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = 0.0f;
    for (int c = 0; c < cols; c++) {
        s += in[(size_t)r * cols + c];
        out[(size_t)r * cols + c] = s;
    }
}

__global__ void with_atomic(const float *in, float *total, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    for (int c = 0; c < cols; c++)
        atomicAdd(total, in[(size_t)r * cols + c]);
}

// the last element wins: a store in the loop whose index is the row, not the column
__global__ void store_not_c(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    for (int c = 0; c < cols; c++)
        out[r] = in[(size_t)r * cols + c];
}

// a loop-carried scalar that is not a reduction
__global__ void last_value(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float last = 0.0f;
    for (int c = 0; c < cols; c++)
        last = in[(size_t)r * cols + c];
    out[r] = last;
}

// the second pass reads an element the first pass wrote for another column
__global__ void shifted_read(const float *in, float *tmp, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    for (int c = 0; c < cols; c++)
        tmp[(size_t)r * cols + c] = in[(size_t)r * cols + c] * 2.0f;
    for (int c = 0; c < cols - 1; c++)
        out[(size_t)r * cols + c] = tmp[(size_t)r * cols + c + 1];
}

// the same accumulator summed in two loops (it no longer starts at zero in the second)
__global__ void summed_twice(const float *a, const float *b, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
        s += a[(size_t)r * cols + c];
    for (int c = 0; c < cols; c++)
        s += b[(size_t)r * cols + c];
    out[r] = s;
}

__global__ void with_barrier(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
        s += in[(size_t)r * cols + c];
    __syncthreads();
    out[r] = s;
}

// uses the thread index beyond the row index
__global__ void uses_tid(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
        s += in[(size_t)r * cols + c] * threadIdx.x;
    out[r] = s;
}

// the same index text `o` means another element in the second loop
__global__ void local_index_shift(const float *in, float *tmp, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    for (int c = 0; c < cols; c++) {
        long o = (long)r * cols + c;
        tmp[o] = in[o] * 2.0f;
    }
    for (int c = 0; c < cols - 1; c++) {
        long o = (long)r * cols + c + 1;
        out[o] = tmp[o];
    }
}

/* refused: a 1-D convolution, one output per thread reading a window of neighbours (the
 * threads already share the window's loads through the caches) */
__global__ void conv_window(const float *x, const float *k, float *y, int n, int klen)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        int start = i - klen / 2;
        for (int j = 0; j < klen; j++)
            acc += x[start + j] * k[j];
        y[i] = acc;
    }
}

// a sum started from the first element: every lane would add it once
__global__ void sum_from_first(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = in[(size_t)r * cols];
    for (int c = 1; c < cols; c++)
        s += in[(size_t)r * cols + c];
    out[r] = s;
}

// two loops over one output row, from 0 and from 1: a lane would read a column another
// lane stored
__global__ void shares_from_one(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    for (int c = 0; c < cols; c++)
        out[(size_t)r * cols + c] = 2.0f * in[(size_t)r * cols + c];
    for (int c = 1; c < cols; c++)
        out[(size_t)r * cols + c] = out[(size_t)r * cols + c] + in[(size_t)r * cols + c];
}
