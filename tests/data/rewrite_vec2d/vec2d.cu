// vectorize_2d's cases (tests/unit/test_rewrites_vec2d.c): 2-D elementwise kernels written
// several ways (x index c over the columns, y index r over the rows), then near misses.
#include <cstddef>
#define COL_ID (blockIdx.x * blockDim.x + threadIdx.x)
__device__ __forceinline__ int row_id() { return threadIdx.y + blockDim.y * blockIdx.y; }

// layernorm's normalize pass: int indices, one if-guard
__global__ void ln_if(float *out, const float *inp, const float *mean, const float *rstd,
                      const float *gamma, const float *beta, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C) {
        float n = (inp[r * C + c] - mean[r]) * rstd[r];
        out[r * C + c] = n * gamma[c] + beta[c];
    }
}

// unsigned indices, one early return with ||, the product the other way round
__global__ void ln_ret_unsigned(float *out, const float *inp, const float *mean, const float *rstd,
                                const float *gamma, const float *beta, unsigned N, unsigned C)
{
    unsigned r = threadIdx.y + blockDim.y * blockIdx.y;
    unsigned c = threadIdx.x + blockDim.x * blockIdx.x;
    if (r >= N || c >= C) return;
    float n = (inp[C * r + c] - mean[r]) * rstd[r];
    out[C * r + c] = n * gamma[c] + beta[c];
}

// size_t indices, two early returns, the bounds reversed
__global__ void ln_size_t(float *out, const float *inp, const float *mean, const float *rstd,
                          const float *gamma, const float *beta, int N, int C)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t r = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (C <= c)
        return;
    if (r >= N) {
        return;
    }
    float n = (inp[r * C + c] - mean[r]) * rstd[r];
    out[r * C + c] = n * gamma[c] + beta[c];
}

// a temporary for r * C + c before the bounds check, __ldg on the per-column reads
__global__ void ln_temp(float *out, const float *inp, const float *mean, const float *rstd,
                        const float *gamma, const float *beta, int N, int C)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    const int idx = r * C + c;
    if (c < C && r < N) {
        const float m = mean[r], s = rstd[r];
        out[idx] = (inp[idx] - m) * s * __ldg(&gamma[c]) + __ldg(&beta[c]);
    }
}

// the indices through a macro and a __device__ helper, the element through a temporary of
// the per-element code, written c + C * r
__global__ void ln_macro(float *out, const float *inp, const float *mean, const float *rstd,
                         const float *gamma, const float *beta, int N, int C)
{
    int c = COL_ID;
    int r = row_id();
    if (r < N && c < C) {
        int e = c + C * r;
        float n = (inp[e] - mean[r]) * rstd[r];
        out[e] = n * gamma[c] + beta[c];
    }
}

// in place, the column itself in the arithmetic
__global__ void scale_inplace(float *x, const float *gamma, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C)
        x[r * C + c] = x[r * C + c] * gamma[c] + (float)(c % 7) - 0.5f * (float)r;
}

// two outputs, the second reads an input after the first store (aliasing checked at run time)
__global__ void two_out(float *o1, float *o2, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C) {
        o1[r * C + c] = 2.0f;
        o2[r * C + c] = inp[r * C + c] * 3.0f + 1.0f;
    }
}

// ---- near misses (each refuses) ----
__global__ void nm_stencil(float *out, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C)
        out[r * C + c] = (c + 1 < C ? inp[r * C + c + 1] : 0.0f) - inp[r * C + c];
}

__global__ void nm_next_row(float *out, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N - 1 && c < C)
        out[r * C + c] = inp[(r + 1) * C + c] - inp[r * C + c];
}

__global__ void nm_column_store(float *out, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C)
        out[c] = inp[r * C + c];
}

__global__ void nm_transpose(float *out, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C)
        out[c * N + r] = inp[r * C + c];
}

__global__ void nm_ld(float *out, const float *inp, int N, int C, int ld)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C)
        out[r * C + c] = inp[r * ld + c];
}

__global__ void nm_atomic(float *colsum, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C)
        atomicAdd(&colsum[c], inp[r * C + c]);
}

__global__ void nm_sync(float *out, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C) {
        __shared__ float t[256];
        t[threadIdx.x] = inp[r * C + c];
        __syncthreads();
        out[r * C + c] = t[threadIdx.x];
    }
}

__global__ void nm_loop(float *out, const float *inp, int N, int C, int K)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C) {
        float s = 0.0f;
        for (int k = 0; k < K; k++)
            s += inp[r * C + c] * (float)k;
        out[r * C + c] = s;
    }
}

__global__ void nm_one_bound(float *out, const float *inp, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (c < C)
        out[r * C + c] = inp[r * C + c];
}

__global__ void nm_flat(float *out, const float *inp, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * inp[i];
}

__global__ void nm_cond_store(float *out, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C) {
        if (inp[r * C + c] > 0.0f)
            out[r * C + c] = inp[r * C + c];
    }
}

// both indices in one declaration (after the near misses, so their lines stay)
__global__ void ln_one_decl(float *out, const float *inp, const float *mean, const float *rstd,
                            const float *gamma, const float *beta, int N, int C)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C)
        out[r * C + c] = (inp[r * C + c] - mean[r]) * rstd[r] * gamma[c] + beta[c];
}

// near miss: a temporary of the column declared with another name in one statement
__global__ void nm_decl_xdep(float *out, const float *inp, int N, int C)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x, e = r * C + c;
    if (r < N && c < C)
        out[e] = inp[e];
}

// near miss (rev49): a read under a condition; the original never reads bias when has_bias
// is 0 (bias may be NULL), a vector load for every lane would
__global__ void nm_cond_read(float *out, const float *inp, const float *bias, int has_bias, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C)
        out[r * C + c] = inp[r * C + c] + (has_bias ? bias[c] : 0.0f);
}

// near miss (rev49): the right operand of && (extra has K rows only)
__global__ void nm_and_read(float *out, const float *inp, const float *extra, int K, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C)
        out[r * C + c] = (r < K && extra[r * C + c] > 0.0f) ? 1.0f : 0.0f;
}

// near miss (rev49): a read in an if's branch
__global__ void nm_if_read(float *out, const float *inp, const float *extra, int K, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C) {
        float v = inp[r * C + c];
        if (r < K)
            v += extra[r * C + c];
        out[r * C + c] = v;
    }
}

// near miss (rev49): a local of the prologue written per element (each lane would add again)
__global__ void nm_outer_acc(float *out, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    float acc = 1.0f;
    if (r < N && c < C) {
        acc += inp[r * C + c];
        out[r * C + c] = acc;
    }
}

// near miss (rev49): a parameter written per element
__global__ void nm_outer_param(float *out, const float *inp, float s, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C) {
        s = s * 0.5f;
        out[r * C + c] = inp[r * C + c] * s;
    }
}

// applies (rev49): a read in an if's condition and a ternary's condition is made for every
// element by the original too; a local of the per-element code written in it
__global__ void ln_cond_ok(float *out, const float *inp, const float *w, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C) {
        float v = inp[r * C + c];
        v *= 2.0f;
        out[r * C + c] = (w[r * C + c] > 0.0f) ? v : -v;
    }
}

// near miss (rev49): one pointer read at the row's element and at the column's (row 0 of the
// same buffer): one vector per pointer would give both reads the row's (x - x = 0)
__global__ void nm_row_col(float *out, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C)
        out[r * C + c] = inp[r * C + c] - inp[c];
}

// applies (rev49): o2 is read before o1 is stored, o1 stored before o2; called with o1 == o2
// the original leaves 2 (its last store), so the vector stores must keep the statements' order
__global__ void two_order(float *o1, float *o2, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < N && c < C) {
        float t = o2[r * C + c];
        o1[r * C + c] = t + inp[r * C + c];
        o2[r * C + c] = 2.0f;
    }
}

// near misses (rev49): declarations before the bounds check that read the thread's x
// coordinate other than through c (repeated per lane, they would give every lane the
// thread's own coordinate), or the grid along x (divided by the rewrite)
__global__ void nm_tx_temp(float *out, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int odd = threadIdx.x & 1;
    if (r < N && c < C)
        out[r * C + c] = inp[r * C + c] * (odd ? 1.0f : 2.0f);
}

__global__ void nm_grid_temp(float *out, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int threads = gridDim.x * blockDim.x;
    if (r < N && c < C)
        out[r * C + c] = inp[r * C + c] * (float)threads;
}

#define TX threadIdx.x
__global__ void nm_macro_tx(float *out, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int lane = TX % 32;
    if (r < N && c < C)
        out[r * C + c] = inp[r * C + c] + (float)lane;
}

// near miss (rev49): an outer name written through a reference parameter of a helper
__device__ void bump(float &a) { a += 1.0f; }
__global__ void nm_ref_bump(float *out, const float *inp, int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    float acc = 0.0f;
    if (r < N && c < C) {
        bump(acc);
        out[r * C + c] = inp[r * C + c] + acc;
    }
}
