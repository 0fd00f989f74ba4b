// The other classes spelled several ways, and near misses (tests/unit/test_model_class.c).
#define TILE 32
#define ROWS 8
#define NB 256
#define R 2

// transposes: naive with separate in/out indices and tile macros, and a plain one
__global__ void transpose_tiles(float *odata, const float *idata, int width, int height)
{
    int xIndex = blockIdx.x * TILE + threadIdx.x;
    int yIndex = blockIdx.y * TILE + threadIdx.y;
    int index_in = xIndex + width * yIndex;
    int index_out = yIndex + height * xIndex;
    for (int i = 0; i < TILE; i += ROWS)
        odata[index_out + i] = idata[index_in + i * width];
}

__global__ void transpose_plain(const float *in, float *out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[c * rows + r] = in[r * cols + c];
}

// near miss: a copy, both sides contiguous
__global__ void copy_2d(const float *in, float *out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[r * cols + c + 1] = in[r * cols + c];
}

// histograms: templated bin count with a grid-stride loop, a parameter bin count, weights
template <int NBINS, typename T>
__global__ void hist_template(const T *__restrict__ in, unsigned int *bins, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x)
        atomicAdd(&bins[static_cast<int>(in[i]) % NBINS], 1u);
}

__global__ void hist_param(const int *in, int *bins, int n, int nbins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = in[i] % nbins;
        atomicAdd(bins + b, 1);
    }
}

__global__ void hist_weighted(const int *idx, const float *w, float *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[idx[i]], w[i]);
}

// near miss: the increment is not atomic
__global__ void hist_racy(const int *in, int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        bins[in[i]] += 1;
}

// reductions
__global__ void row_sum(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float s = 0;
        for (int c = 0; c < cols; c++)
            s += in[r * cols + c];
        out[r] = s;
    }
}

__global__ void col_max(const float *in, float *out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) {
        float m = -1e30f;
        for (int r = 0; r < rows; r++)
            m = fmaxf(m, in[r * cols + c]);
        out[c] = m;
    }
}

__global__ void row_std_two_pass(const float *x, float *out, int rows, int n)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += x[r * n + i];
    float mean = s / n;
    float v = 0.0f;
    for (int i = 0; i < n; i++) {
        float d = x[r * n + i] - mean;
        v += d * d;
    }
    out[r] = sqrtf(v / n);
}

__global__ void global_sum_atomic(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, in[i]);
}

__global__ void block_tree_sum(const float *in, float *out, int n)
{
    __shared__ float sdata[NB];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// stencils: 1-D explicit, 2-D five points, 1-D through a shared tile with a loop
__global__ void stencil_3pt(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1)
        out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

__global__ void heat_2d(const float *u, float *v, int nx, int ny, float k)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1) {
        int c = y * nx + x;
        v[c] = u[c] + k * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - 4 * u[c]);
    }
}

__global__ void stencil_shared(const float *in, float *out, int n)
{
    __shared__ float temp[NB + 2 * R];
    int g = threadIdx.x + blockIdx.x * blockDim.x;
    int l = threadIdx.x + R;
    temp[l] = in[g];
    if (threadIdx.x < R) {
        temp[l - R] = in[g - R];
        temp[l + NB] = in[g + NB];
    }
    __syncthreads();
    float result = 0;
    for (int off = -R; off <= R; off++)
        result += temp[l + off];
    if (g < n)
        out[g] = result;
}

// convolution and pooling
__global__ void conv_1d(const float *in, const float *w, float *out, int n, int klen)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s = 0;
        for (int k = 0; k < klen; k++)
            s += in[i + k] * w[k];
        out[i] = s;
    }
}

__global__ void conv_2d(const float *img, const float *f, float *out, int W, int H, int F)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < W && y < H) {
        float s = 0;
        for (int fy = 0; fy < F; fy++)
            for (int fx = 0; fx < F; fx++)
                s += img[(y + fy) * (W + F) + x + fx] * f[fy * F + fx];
        out[y * W + x] = s;
    }
}

__global__ void maxpool_2d(const float *in, float *out, int W, int OW, int OH)
{
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ox < OW && oy < OH) {
        float m = -1e30f;
        for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++)
                m = fmaxf(m, in[(2 * oy + dy) * W + 2 * ox + dx]);
        out[oy * OW + ox] = m;
    }
}

// scans: a serial running sum per row, a Hillis-Steele shared scan
__global__ void scan_rows(const float *in, float *out, int rows, int n)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float s = 0;
        for (int i = 0; i < n; i++) {
            s += in[r * n + i];
            out[r * n + i] = s;
        }
    }
}

__global__ void scan_shared(const float *in, float *out, int n)
{
    __shared__ float t[NB];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    t[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off *= 2) {
        float v = tid >= off ? t[tid - off] : 0;
        __syncthreads();
        t[tid] += v;
        __syncthreads();
    }
    if (i < n)
        out[i] = t[tid];
}

// norms and softmax
__global__ void rmsnorm(const float *x, const float *w, float *y, int rows, int d, float eps)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float ss = 0;
    for (int i = 0; i < d; i++)
        ss += x[r * d + i] * x[r * d + i];
    float inv = rsqrtf(ss / d + eps);
    for (int i = 0; i < d; i++)
        y[r * d + i] = x[r * d + i] * inv * w[i];
}

__global__ void layernorm_two_pass(const float *x, float *y, int rows, int d)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float mean = 0;
    for (int i = 0; i < d; i++)
        mean += x[r * d + i];
    mean /= d;
    float var = 0;
    for (int i = 0; i < d; i++)
        var += (x[r * d + i] - mean) * (x[r * d + i] - mean);
    float rs = 1.0f / sqrtf(var / d + 1e-5f);
    for (int i = 0; i < d; i++)
        y[r * d + i] = (x[r * d + i] - mean) * rs;
}

__global__ void softmax_fmax(const float *in, float *out, int rows, int cols)
{
    int row = blockDim.x * blockIdx.x + threadIdx.x;
    if (row >= rows)
        return;
    float m = -INFINITY;
    for (int j = 0; j < cols; j++)
        m = fmaxf(m, in[row * cols + j]);
    float sum = 0.0f;
    for (int j = 0; j < cols; j++)
        sum += expf(in[row * cols + j] - m);
    for (int j = 0; j < cols; j++)
        out[row * cols + j] = expf(in[row * cols + j] - m) / sum;
}

__global__ void softmax_if_max(const float *in, float *out, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        const float *x = in + row * cols;
        float *y = out + row * cols;
        float maxval = -INFINITY;
        for (int j = 0; j < cols; j++)
            if (x[j] > maxval)
                maxval = x[j];
        float sum = 0;
        for (int j = 0; j < cols; j++) {
            y[j] = expf(x[j] - maxval);
            sum += y[j];
        }
        for (int j = 0; j < cols; j++)
            y[j] /= sum;
    }
}

// near miss: no maximum subtracted
__global__ void softmax_unsafe(const float *in, float *out, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float sum = 0;
        for (int j = 0; j < cols; j++)
            sum += expf(in[row * cols + j]);
        for (int j = 0; j < cols; j++)
            out[row * cols + j] = expf(in[row * cols + j]) / sum;
    }
}

// elementwise chains: SGD with momentum, an Adam step in half precision
__global__ void sgd_momentum(float *p, const float *g, float *m, float lr, float mu, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        m[i] = mu * m[i] + g[i];
        p[i] -= lr * m[i];
    }
}

__global__ void adam_half(__half *p, const __half *g, float *m, float *v, float lr, float b1,
                          float b2, float eps, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float gi = __half2float(g[i]);
        m[i] = b1 * m[i] + (1 - b1) * gi;
        v[i] = b2 * v[i] + (1 - b2) * gi * gi;
        p[i] = __float2half(__half2float(p[i]) - lr * m[i] / (sqrtf(v[i]) + eps));
    }
}

// dynamic shared memory of a template type reached through a helper type: the local is
// the shared array (an interleaved tree over it is a block reduction)
template <typename T> struct BlockScratch {
    __device__ operator T *() { extern __shared__ unsigned char raw_scratch[]; return (T *)raw_scratch; }
};
template <typename T> __global__ void helper_tree_max(const T *v, T *blockmax, int n)
{
    T *buf = BlockScratch<T>();
    int me = threadIdx.x, at = blockIdx.x * blockDim.x + me;
    buf[me] = at < n ? v[at] : v[0];
    __syncthreads();
    for (int w = 1; w < blockDim.x; w <<= 1) {
        if (me % (2 * w) == 0)
            buf[me] = max(buf[me], buf[me + w]);
        __syncthreads();
    }
    if (me == 0)
        blockmax[blockIdx.x] = buf[0];
}

// a matrix product over shared tiles whose output index mixes rows and columns: not a
// reduction (the accumulator sums products of two tiles)
#define TL 16
__global__ void tile_product_flat(const float *P, const float *Q, float *R, int wp, int wq)
{
    __shared__ float tp[TL][TL], tq[TL][TL];
    float dot = 0.0f;
    for (int base = 0; base < wp; base += TL) {
        tp[threadIdx.y][threadIdx.x] = P[(blockIdx.y * TL + threadIdx.y) * wp + base + threadIdx.x];
        tq[threadIdx.y][threadIdx.x] = Q[(base + threadIdx.y) * wq + blockIdx.x * TL + threadIdx.x];
        __syncthreads();
        for (int k = 0; k < TL; ++k)
            dot += tp[threadIdx.y][k] * tq[k][threadIdx.x];
        __syncthreads();
    }
    R[wq * TL * blockIdx.y + TL * blockIdx.x + wq * threadIdx.y + threadIdx.x] = dot;
}

// A per-thread loop of a few terms into the thread's own output is a map, not a reduction,
// when no input is split among the outputs (the loop's reads are gathered or shared).
// Gathered rows times shared weights, one output per thread:
__global__ void gather_dot(const float *table, const int *idx, const float *w, float *out,
                           int n, int M)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s = 0.0f;
        for (int m = 0; m < M; m++)
            s += table[idx[i] * M + m] * w[m];
        out[i] = s;
    }
}

// the same written with a grid-stride loop, fmaf and an early-exit check on the index
__global__ void gather_dot_gs(const float *table, const int *idx, const float *w, float *out,
                              int n, int M)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        const int row = idx[i];
        float s = 0.0f;
        for (int m = 0; m < M; ++m)
            s = fmaf(table[row * M + m], w[m], s);
        out[i] = s;
    }
}

// a flat index split into (b, o, p); x[b, p, :] is read by every o, wt[o, :] by every
// (b, p), and the old output is added to: a small contraction per thread
__global__ void mix_channels(const float *x, const float *wt, float *out, unsigned B, unsigned O,
                             unsigned P, unsigned C)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B * O * P)
        return;
    unsigned b = i / (O * P), o = i / P % O, p = i % P;
    float acc = out[i];
    for (unsigned c = 0; c < C; c++)
        acc += x[(b * P + p) * C + c] * wt[o * C + c];
    out[i] = acc;
}

// still reductions: each output owns its run of the input, also through a split index
__global__ void batched_row_sum(const float *in, float *out, int B, int R, int C)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * R) {
        int b = i / R, r = i % R;
        float s = 0.0f;
        for (int c = 0; c < C; c++)
            s += in[(b * R + r) * C + c];
        out[b * R + r] = s;
    }
}

// max pooling with its argmax, the max kept by an if (not fmaxf): pooling; the same over
// one loop (a row's max with its index) is no window
__global__ void maxpool_argmax(const float *in, float *out, int *arg, int W, int OW, int OH)
{
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    if (ox < OW && oy < OH) {
        float m = -1e30f;
        int at = -1;
        for (int dy = 0; dy < 3; dy++)
            for (int dx = 0; dx < 3; dx++) {
                int p = (2 * oy + dy) * W + 2 * ox + dx;
                if (in[p] > m) {
                    m = in[p];
                    at = p;
                }
            }
        out[oy * OW + ox] = m;
        arg[oy * OW + ox] = at;
    }
}

__global__ void row_argmin(const float *in, float *out, int *arg, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float m = 1e30f;
        int at = 0;
        for (int c = 0; c < cols; c++)
            if (m > in[r * cols + c]) {
                m = in[r * cols + c];
                at = c;
            }
        out[r] = m;
        arg[r] = at;
    }
}

// Softmax's second kernel: the row maximum comes from the first one (read per row), the
// exponentials are written and summed, then divided.
__global__ void softmax_given_max(const float *x, const float *row_max, float *y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float sum = 0.0f;
        for (int c = 0; c < cols; ++c) {
            float e = expf(x[r * cols + c] - row_max[r]);
            y[r * cols + c] = e;
            sum += e;
        }
        for (int c = 0; c < cols; ++c)
            y[r * cols + c] /= sum;
    }
}

// Near miss: the shift moves with the loop (the previous element), no row maximum.
__global__ void softmax_shift_moves(const float *x, float *y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float sum = 0.0f;
        for (int c = 1; c < cols; ++c)
            sum += expf(x[r * cols + c] - x[r * cols + c - 1]);
        y[r] = 1.0f / sum;
    }
}

// The work-efficient scan (up-sweep, down-sweep) counting with d while the tree's stride
// `offset` is doubled and halved beside it: a scan, not a copy through a tile.
__global__ void scan_sweeps(const float *in, float *out, int n)
{
    __shared__ float s[2 * NB];
    unsigned t = threadIdx.x;
    int at = 2 * NB * blockIdx.x;
    int offset = 1;
    s[2 * t] = at + 2 * t < n ? in[at + 2 * t] : 0.0f;
    s[2 * t + 1] = at + 2 * t + 1 < n ? in[at + 2 * t + 1] : 0.0f;
    for (int d = NB; d > 0; d /= 2) {
        __syncthreads();
        if (t < d)
            s[offset * (2 * t + 2) - 1] += s[offset * (2 * t + 1) - 1];
        offset <<= 1;
    }
    if (t == 0)
        s[2 * NB - 1] = 0;
    for (int d = 1; d < 2 * NB; d <<= 1) {
        offset /= 2;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
            float v = s[ai];
            s[ai] = s[bi];
            s[bi] += v;
        }
    }
    __syncthreads();
    if (at + 2 * t < n)
        out[at + 2 * t] = s[2 * t];
    if (at + 2 * t + 1 < n)
        out[at + 2 * t + 1] = s[2 * t + 1];
}

// session 47: a weighted stencil whose taps come from a small constant-bound loop over
// coefficients (cuda-samples' FDTD3d shape, written anew): the accumulated value sums a
// few neighbours per coefficient, not a data-sized range, so it is a stencil, not a
// reduction; over a shared tile and over global memory
#define CR 3
__constant__ float coef[CR + 1];

__global__ void stencil_coef_tile(const float *in, float *out, int n)
{
    __shared__ float tile[NB + 2 * CR];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + CR;
    for (int j = threadIdx.x; j < NB + 2 * CR; j += blockDim.x)
        tile[j] = in[blockIdx.x * NB + j - CR];
    __syncthreads();
    float value = coef[0] * tile[l];
    for (int i = 1; i <= CR; i++)
        value += coef[i] * (tile[l - i] + tile[l + i]);
    if (g < n)
        out[g] = value;
}

__global__ void stencil_coef_global(const float *in, float *out, int n)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x + CR;
    if (g >= n - CR)
        return;
    float value = coef[0] * in[g];
#pragma unroll
    for (int i = 1; i <= CR; i++)
        value += coef[i] * (in[g - i] + in[g + i]);
    out[g] = value;
}

// a constant bound over a data-sized range stays a reduction (a row of 1024)
__global__ void rowsum_const(const float *x, float *out, int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = 0.0f;
    for (int i = 0; i < 1024; i++)
        s += x[r * 1024 + i];
    out[r] = s;
}

// the same taps added into the output element itself: no reduction either
__global__ void taps_into_output(const float *in, float *out, int n)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n - 2 * CR)
        return;
    out[g] = 0.0f;
    for (int i = 0; i <= 2 * CR; i++)
        out[g] += coef[i] * in[g + i];
}

// session 47: structure-of-arrays planes (Rodinia CFD's variables[i + VAR*nelr]): an
// offset that is a multiple of a size parameter no thread coordinate is strided by is
// another plane, not a neighbour: elementwise over i; a stencil within each plane keeps
// its in-plane offsets
#define PL_RHO 0
#define PL_MOM 1
#define PL_E 4
__global__ void soa_step(int n, const float *old_v, float *v, const float *flux, const float *step)
{
    const int i = blockDim.x * blockIdx.x + threadIdx.x;
    float k = step[i];
    v[i + PL_RHO * n] = old_v[i + PL_RHO * n] + k * flux[i + PL_RHO * n];
    v[i + PL_E * n] = old_v[i + PL_E * n] + k * flux[i + PL_E * n];
    v[i + (PL_MOM + 0) * n] = old_v[i + (PL_MOM + 0) * n] + k * flux[i + (PL_MOM + 0) * n];
    v[i + (PL_MOM + 1) * n] = old_v[i + (PL_MOM + 1) * n] + k * flux[i + (PL_MOM + 1) * n];
    v[i + (PL_MOM + 2) * n] = old_v[i + (PL_MOM + 2) * n] + k * flux[i + (PL_MOM + 2) * n];
}

__global__ void soa_blur(int n, const float *in, float *out)
{
    const int i = blockDim.x * blockIdx.x + threadIdx.x + 1;
    if (i >= n - 1)
        return;
    out[i] = in[i - 1] + in[i] + in[i + 1];
    out[i + n] = in[i + n - 1] + in[i + n] + in[i + n + 1];
}

// a column pass whose rows a loop walks (cuda-samples' box filter shape): w strides the
// row loop's counter in the output, so +-w are neighbours, not planes
__global__ void col_blur(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    for (int y = 1; y < h - 1; y++)
        out[y * w + x] = in[(y - 1) * w + x] + in[y * w + x] + in[(y + 1) * w + x];
}

// session 48: a running maximum kept by a comparison, started from the row's first element,
// the columns from 1 (the naive row max); a column minimum by `m > v` with braces and `>=`
// spellings; a comparison whose assignment stores another value (not a max)
__global__ void row_max_if(const float *mat, float *rowmax, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float best = mat[r * cols];
        for (int c = 1; c < cols; ++c) {
            float v = mat[r * cols + c];
            if (v > best)
                best = v;
        }
        rowmax[r] = best;
    }
}

__global__ void col_min_if(const double *in, double *out, unsigned rows, unsigned cols)
{
    unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    double m = 1e300;
    for (unsigned r = 0; r < rows; r++) {
        if (m >= in[(size_t)r * cols + c]) {
            m = in[(size_t)r * cols + c];
        }
    }
    out[c] = m;
}

__global__ void if_not_max(const float *mat, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float best = 0.0f;
        for (int c = 0; c < cols; ++c) {
            float v = mat[r * cols + c];
            if (v > best)
                best = v + 1.0f;
        }
        out[r] = best;
    }
}

// session 48: histograms whose bin count is the bin's own range: a byte read from memory
// (uint8_t: 256 bins), a mask of the low bits (64 bins); a signed byte says nothing
__global__ void hist_bytes_gs(const uint8_t *__restrict__ px, unsigned int *bins, size_t len)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < len; i += (size_t)blockDim.x * gridDim.x) {
        unsigned int b = px[i];
        atomicAdd(bins + b, 1u);
    }
}

__global__ void hist_mask64(const int *keys, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[(keys[i] >> 4) & 63], 1u);
}

__global__ void hist_schar(const signed char *data, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[data[i]], 1u);
}

// session 48: a float histogram whose bin is clamped into range, `min(max(b, 0), nbins - 1)`:
// nbins bins
__global__ void hist_clamp(const float *x, int *hist, int n, int nbins, float lo, float hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = (int)((x[i] - lo) / (hi - lo) * nbins);
        b = min(max(b, 0), nbins - 1);
        atomicAdd(&hist[b], 1);
    }
}
