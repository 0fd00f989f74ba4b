// Thread-per-row softmax and row max/min kernels for warp_rows (issue 13): the running
// maximum in its usual spellings, a double sum, outputs stored and re-read at the same
// column in a later loop. test_rewrites_emu_rows runs them against their rewrites;
// test_engine_rewrite_rows checks their text and the near misses at the end.
#include <math.h>

// the maximum as a guarded assignment in braces, a double sum of the stored exponentials,
// then a divide in place: the shape of llm.c's softmax_forward_kernel1
__global__ void soft_guarded(const float *src, float *dst, float *unused, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < nrows) {
        const float *x = src + row * ncols;
        float *y = dst + row * ncols;
        float hi = -INFINITY;
        for (int k = 0; k < ncols; k++) {
            if (x[k] > hi) {
                hi = x[k];
            }
        }
        double total = 0.0;
        for (int k = 0; k < ncols; k++) {
            y[k] = expf(x[k] - hi);
            total += y[k];
        }
        for (int k = 0; k < ncols; k++) {
            y[k] /= (float)total;
        }
    }
}

// the maximum as a select, the sum in float, a scaled re-read, the row's maximum stored
__global__ void soft_select(const float *src, float *dst, float *rmax, int nrows, int ncols)
{
    const int row = threadIdx.x + blockDim.x * blockIdx.x;
    if (row >= nrows)
        return;
    float hi = -3.0e38f;
    for (int k = 0; k < ncols; ++k)
        hi = src[row * ncols + k] > hi ? src[row * ncols + k] : hi;
    float total = 0.0f;
    for (int k = 0; k < ncols; ++k) {
        const float e = __expf(src[row * ncols + k] - hi);
        dst[row * ncols + k] = e;
        total = total + e;
    }
    const float inv = 1.0f / total;
    for (int k = 0; k < ncols; ++k)
        dst[row * ncols + k] = dst[row * ncols + k] * inv;
    rmax[row] = hi;
}

// `m < x` with the column's value in a local, and fmaxf with the running value second
__global__ void soft_less(const float *src, float *dst, float *unused, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    const float *x = src + (size_t)row * ncols;
    float m1 = -INFINITY, m2 = -INFINITY;
    for (int k = 0; k < ncols; k++) {
        float v = x[k];
        if (m1 < v)
            m1 = v;
    }
    for (int k = 0; k < ncols; k++)
        m2 = fmaxf(x[k], m2);
    float total = 0.0f;
    for (int k = 0; k < ncols; k++)
        total += expf(x[k] - m1);
    for (int k = 0; k < ncols; k++)
        dst[(size_t)row * ncols + k] = expf(x[k] - m2) / total;
}

// minima and maxima in four spellings each, stored once per row
__global__ void row_range(const float *src, float *lo_a, float *lo_b, float *hi_a, float *hi_b, int nrows,
                          int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    float lo = INFINITY, lo2 = INFINITY, hi = -INFINITY, hi2 = -INFINITY;
    for (int k = 0; k < ncols; k++) {
        float v = src[(size_t)row * ncols + k];
        if (v < lo) {
            lo = v;
        }
        lo2 = (v <= lo2) ? v : lo2;
        if (hi <= v)
            hi = v;
        hi2 = fmaxf(v, hi2);
    }
    lo_a[row] = lo;
    lo_b[row] = lo2;
    hi_a[row] = hi;
    hi_b[row] = hi2;
}

// the maximum starts at the row's first element, which may be NaN: the guarded form then
// keeps NaN (no comparison with NaN holds), and so must the rewrite's combine
__global__ void max_from_first(const float *src, float *out, float *unused, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    float m = src[(size_t)row * ncols];
    for (int k = 0; k < ncols; k++) {
        float v = src[(size_t)row * ncols + k];
        if (v >= m)
            m = v;
    }
    out[row] = m;
}

// a double sum of floats: the lanes' partial sums must be combined in double
__global__ void double_sum(const float *src, float *out, float *unused, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < nrows) {
        double s = 0.0;
        for (int k = 0; k < ncols; k++)
            s += src[(size_t)row * ncols + k];
        out[row] = (float)s;
    }
}

// the guarded and select forms on an int and a double: combined by max and fmin
__global__ void int_double(const float *src, float *out, float *lo, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    int hi = -2147483647 - 1;
    double dl = 1e300;
    for (int k = 0; k < ncols; k++) {
        int q = (int)(src[(size_t)row * ncols + k] * 100.0f);
        double d = src[(size_t)row * ncols + k];
        if (q > hi)
            hi = q;
        dl = d < dl ? d : dl;
    }
    out[row] = (float)hi;
    lo[row] = (float)dl;
}

// two loops over the stored row with no reduction between them: the first reads x too, so
// both take float4 only when x and y are both aligned (one condition for both)
__global__ void store_then_update(const float *src, float *dst, float *unused, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    const float *x = src + (size_t)row * ncols;
    float *y = dst + (size_t)row * ncols;
    for (int k = 0; k < ncols; k++)
        y[k] = 2.0f * x[k];
    for (int k = 0; k < ncols; k++)
        y[k] += 1.0f;
}

// the second loop's bound differs: both loops keep the scalar lane map
__global__ void update_shorter(const float *src, float *dst, float *unused, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    const float *x = src + (size_t)row * ncols;
    float *y = dst + (size_t)row * ncols;
    for (int k = 0; k < ncols; k++)
        y[k] = 2.0f * x[k];
    for (int k = 0; k < ncols / 2; k++)
        y[k] -= x[k];
}

// refused: a maximum into a variable that a later loop sums into (every lane would start
// the sum from the combined maximum)
__global__ void max_then_sum(const float *src, float *out, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    float a = 0.0f;
    for (int k = 0; k < ncols; k++)
        a = fmaxf(a, src[(size_t)row * ncols + k]);
    for (int k = 0; k < ncols; k++)
        a += src[(size_t)row * ncols + k];
    out[row] = a;
}

// refused: `m = m > v ? m : v` takes a NaN v (the comparison is false), so it is not a
// maximum fmaxf can combine
__global__ void select_takes_nan(const float *src, float *out, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    float m = -INFINITY;
    for (int k = 0; k < ncols; k++) {
        float v = src[(size_t)row * ncols + k];
        m = m > v ? m : v;
    }
    out[row] = m;
}

// refused: the guarded assignment has an else
__global__ void guarded_else(const float *src, float *out, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    float m = -INFINITY;
    for (int k = 0; k < ncols; k++) {
        float v = src[(size_t)row * ncols + k];
        if (v > m)
            m = v;
        else
            m = m;
    }
    out[row] = m;
}

// refused: the condition compares another value than the one assigned
__global__ void guarded_other(const float *src, const float *w, float *out, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    float m = -INFINITY;
    for (int k = 0; k < ncols; k++)
        if (w[k] > m)
            m = src[(size_t)row * ncols + k];
    out[row] = m;
}

// refused: the condition compares a truncated value, the assignment takes the whole one
__global__ void guarded_cast(const float *src, float *out, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    float m = -INFINITY;
    for (int k = 0; k < ncols; k++) {
        float v = src[(size_t)row * ncols + k];
        if ((int)v > m)
            m = v;
    }
    out[row] = m;
}

// refused: a column stored in a loop is read at the row level with the same index text
__global__ void reread_outside(const float *src, float *dst, float *out, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    int k = 0;
    for (int k = 0; k < ncols; k++)
        dst[(size_t)row * ncols + k] = src[(size_t)row * ncols + k];
    out[row] = dst[(size_t)row * ncols + k];
}

// refused: the stored output is re-read a column further in the later loop
__global__ void reread_shifted(const float *src, float *dst, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    float *y = dst + (size_t)row * ncols;
    float total = 0.0f;
    for (int k = 0; k < ncols; k++) {
        y[k] = expf(src[(size_t)row * ncols + k]);
        total += y[k];
    }
    for (int k = 0; k < ncols - 1; k++)
        y[k + 1] /= total;
}

// refused: the same index text names another element in the second loop (off moves)
__global__ void reread_moved(const float *src, float *dst, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    size_t off = (size_t)row * ncols;
    for (int k = 0; k < ncols; k++)
        dst[off + k] = src[off + k];
    off = off + 1;
    for (int k = 0; k < ncols - 1; k++)
        dst[off + k] *= 2.0f;
}

// session 48: the running maximum started from the row's first element, the columns from 1
// (every lane starts from that element: a max is the same however often it is taken; a NaN
// start stays NaN in every lane, as in the guarded form)
__global__ void max_from_col1(const float *src, float *out, float *unused, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < nrows) {
        float best = src[row * ncols];
        for (int c = 1; c < ncols; ++c) {
            float v = src[row * ncols + c];
            if (v > best)
                best = v;
        }
        out[row] = best;
    }
}

// session 48: a minimum from the first element (fminf) and a sum from zero, both over the
// columns from 2, unsigned
__global__ void min_sum_from_col2(const float *src, float *mn, float *tail, unsigned nrows, unsigned ncols)
{
    unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    float m = src[(size_t)row * ncols];
    float t = 0.0f;
    for (unsigned c = 2; c < ncols; c++) {
        m = fminf(m, src[(size_t)row * ncols + c]);
        t += src[(size_t)row * ncols + c];
    }
    mn[row] = m;
    tail[row] = t;
}

// session 48: accumulators of the kernel's template type T (a one-kernel norm's spelling):
// a sum from zero and a running maximum by a comparison, combined in T
template <typename T>
__global__ void tmpl_mean_max(const T *src, T *out, T *hi, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    const T *x = src + (size_t)row * ncols;
    T s = 0;
    T m = x[0];
    for (int k = 0; k < ncols; k++) {
        s += x[k];
        if (x[k] > m)
            m = x[k];
    }
    out[row] = s / ncols;
    hi[row] = m;
}
template __global__ void tmpl_mean_max<float>(const float *, float *, float *, int, int);
