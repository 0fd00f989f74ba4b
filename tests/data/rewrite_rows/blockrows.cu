// Thread-per-row kernels for warp_rows' block per row (row_threads > 32, issue 13):
// test_rewrites_emu_blockrows rewrites every kernel here (one program for all of them) and
// runs each against its original in the block emulator. One signature for all:
// (input rows, output rows, per-row outputs, rows, columns).
#include <math.h>

// llm.c's softmax_forward_kernel1 as llm.c writes it: a guarded maximum, a double sum of
// the stored exponentials, then a divide in place (three reductions' barriers in a block)
__global__ void soft_llmc(const float* inp, float* out, float* unused, int N, int C)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        const float* inp_row = inp + i * C;
        float* out_row = out + i * C;

        float maxval = -INFINITY;
        for (int j = 0; j < C; j++) {
            if (inp_row[j] > maxval) {
                maxval = inp_row[j];
            }
        }
        double sum = 0.0;
        for (int j = 0; j < C; j++) {
            out_row[j] = expf(inp_row[j] - maxval);
            sum += out_row[j];
        }
        for (int j = 0; j < C; j++) {
            out_row[j] /= (float)sum;
        }
    }
}

// the maximum moves between the store and the update: the update cannot recompute the
// stored value from it, so the store stays (and the result must still match)
__global__ void soft_moved(const float *src, float *dst, float *unused, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    const float *x = src + (size_t)row * ncols;
    float *y = dst + (size_t)row * ncols;
    float m = -INFINITY;
    for (int k = 0; k < ncols; k++)
        m = fmaxf(m, x[k]);
    float total = 0.0f;
    for (int k = 0; k < ncols; k++) {
        y[k] = expf(x[k] - m);
        total += y[k];
    }
    m = m + 1.0f;
    for (int k = 0; k < ncols; k++)
        y[k] *= expf(-m) / total;
}

// four reductions after one loop (a float sum, a select maximum, an fminf minimum, a
// double sum of squares: four slots between the same two barriers), then a second loop
// that reads two of the totals, and per-row results stored once each
__global__ void row_moments(const float *src, float *dst, float *stats, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    const float *x = src + (size_t)row * ncols;
    float s = 0.0f, hi = -INFINITY, lo = INFINITY;
    double q = 0.0;
    for (int k = 0; k < ncols; k++) {
        float v = x[k];
        s += v;
        hi = v > hi ? v : hi;
        lo = fminf(lo, v);
        q += (double)v * v;
    }
    float mean = s / ncols;
    for (int k = 0; k < ncols; k++)
        dst[(size_t)row * ncols + k] = (x[k] - mean) / (hi - lo + 1.0f);
    stats[row] = (float)(q / ncols) - mean * mean;
}

// integers: a maximum and a sum of ints, exact in any order (compared bit for bit); the
// per-row result is read back by the thread that stored it
__global__ void int_rows(const float *src, float *dst, float *stats, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < nrows) {
        int best = -2147483647 - 1;
        long long total = 0;
        for (int k = 0; k < ncols; k++) {
            int q = (int)(src[(size_t)row * ncols + k] * 1000.0f);
            if (q > best)
                best = q;
            total += q;
        }
        stats[row] = (float)best;
        stats[row] = stats[row] + (float)(total % 1000);
        dst[(size_t)row * ncols] = (float)total;
    }
}

// the same double sum twice: test_rewrites_emu_blockrows breaks these two copies after the
// rewrite (one loses the barrier before the slots are read, the other folds only its own
// warp's slot), and the emulation must see both differ
__global__ void sum_nobar(const float *src, float *dst, float *stats, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    double s = 0.0;
    for (int k = 0; k < ncols; k++)
        s += src[(size_t)row * ncols + k];
    stats[row] = (float)s;
}

__global__ void sum_ownwarp(const float *src, float *dst, float *stats, int nrows, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    double s = 0.0;
    for (int k = 0; k < ncols; k++)
        s += src[(size_t)row * ncols + k];
    stats[row] = (float)s;
}

// the row count is a declaration before the bounds check (llm.c's encoder: `int N = B * T;`):
// the block form's device check evaluates it with the spec's B and T
__global__ void rows_of_product(const float *src, float *stats, int B, int T, int ncols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int N = B * T;
    if (row >= N)
        return;
    float s = 0.0f;
    for (int k = 0; k < ncols; k++)
        s += src[(size_t)row * ncols + k];
    stats[row] = s;
}
