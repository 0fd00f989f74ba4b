// One computation written several ways (tests/unit/test_model.c): index splits by / and %
// against the flat index, while and do loops against for loops, __device__ helpers against
// their bodies written inline.

// ---- a flat index split into coordinates and put back together ----

__global__ void nchw_flat(const float *x, float *y, int N, int C, int H, int W)
{
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= N * C * H * W)
        return;
    y[index] = 2.0f * x[index];
}

__global__ void nchw_split(const float *x, float *y, int N, int C, int H, int W)
{
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= N * C * H * W)
        return;
    int n = index / (C * H * W);
    int c = (index / (H * W)) % C;
    int h = (index / W) % H;
    int w = index % W;
    y[index] = 2.0f * x[((n * C + c) * H + h) * W + w];
}

__global__ void nchw_chain(const float *x, float *y, int N, int C, int H, int W)
{
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= N * C * H * W)
        return;
    int w = index % W;
    int h = (index / W) % H;
    int c = (index / W / H) % C;
    int n = index / W / H / C;
    y[n * C * H * W + c * H * W + h * W + w] = 2.0f * x[index];
}

// NCHW to NHWC: the split does not put the index back together
__global__ void nchw_to_nhwc(const float *x, float *y, int N, int C, int H, int W)
{
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= N * C * H * W)
        return;
    int w = index % W;
    int h = (index / W) % H;
    int c = (index / W / H) % C;
    int n = index / W / H / C;
    y[((n * H + h) * W + w) * C + c] = x[index];
}

// ---- for, while and do ----

__global__ void scale_for(int n, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = 3.0f * x[i];
}

__global__ void scale_while(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) {
        y[i] = 3.0f * x[i];
        i += blockDim.x * gridDim.x;
    }
}

__global__ void scale_for_checked(int n, const float *x, float *y)
{
    int stride = blockDim.x * gridDim.x;
    int start = blockIdx.x * blockDim.x + threadIdx.x;
    if (start >= n)
        return;
    for (int i = start; i < n; i = i + stride)
        y[i] = 3.0f * x[i];
}

__global__ void scale_do(int n, const float *x, float *y)
{
    int stride = blockDim.x * gridDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    do {
        y[i] = 3.0f * x[i];
        i = i + stride;
    } while (i < n);
}

__global__ void rowsum_for(const float *a, float *out, int rows, int K)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += a[r * K + k];
        out[r] = acc;
    }
}

__global__ void rowsum_while(const float *a, float *out, int rows, int K)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float acc = 0.0f;
        int k = 0;
        while (k < K) {
            acc += a[r * K + k];
            k++;
        }
        out[r] = acc;
    }
}

// a while whose step is not its last statement stays a loop of kind other
__global__ void scan_while_other(const int *next, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) {
        i = next[i];
        out[i] = 1.0f;
    }
}

// ---- __device__ helpers against their bodies written inline ----

__device__ inline int loc2index(const int n, const int c, const int h, const int w,
                                const int channels, const int height, const int width)
{
    int index = w + (h + (c + n * channels) * height) * width;
    return index;
}

template <typename T>
__device__ T pair_sum(const T *p, int width, int y, int x)
{
    T a = p[y * width + x];
    T b = p[y * width + x + 1];
    return a + b;
}

__device__ void store(float *o, int i, float v)
{
    o[i] = v;
}

__global__ void helpers_called(const float *in, float *out, int C, int H, int W)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= H * W)
        return;
    int y = i / W;
    int x = i % W;
    int c = blockIdx.y;
    float s = pair_sum(in + loc2index(0, c, 0, 0, C, H, W), W, y, x);
    store(out, loc2index(blockIdx.z, c, y, x, C, H, W), s);
}

__global__ void helpers_inline(const float *in, float *out, int C, int H, int W)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= H * W)
        return;
    int y = i / W;
    int x = i % W;
    int c = blockIdx.y;
    const float *p = in + c * H * W;
    float s = p[y * W + x] + p[y * W + x + 1];
    out[((blockIdx.z * C + c) * H + y) * W + x] = s;
}

__global__ void helpers_template(const float *in, float *out, int C, int H, int W)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= H * W)
        return;
    int y = i / W;
    int x = i % W;
    int c = blockIdx.y;
    float s = pair_sum<float>(in + c * H * W, W, y, x);
    out[loc2index(blockIdx.z, c, y, x, C, H, W)] = s;
}

// the helper's early exit guards its read; its parameter clamped in a branch is data
__device__ float at_or_zero(const float *p, int h, int w, int y, int x)
{
    if (y < 0 || y >= h || x < 0 || x >= w)
        return 0.0f;
    if (x > w - 2)
        x = w - 2;
    return p[y * w + x];
}

// reference parameters: the caller's locals are written by the helper
__device__ void corners(int y, int x, int &lo, int &hi)
{
    lo = y;
    hi = x + 1;
}

__device__ float forever(const float *p, int i)
{
    return i <= 0 ? p[0] : forever(p, i - 1) + p[i];
}

__global__ void helpers_guarded(const float *in, float *out, int H, int W)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lo = 0, hi = 0;
    corners(i, i, lo, hi);
    out[i] = at_or_zero(in, H, W, i / W - 1, i % W) + forever(in, i) + out[lo] + out[hi];
}

// a pointer stepped by a while loop is moved: its accesses are not at element 0
__global__ void zero_walk(float *out, float *end)
{
    float *p = out + threadIdx.x;
    while (p < end) {
        *p = 0.0f;
        p += blockDim.x;
    }
    while (out < end) {
        out[1] = 0.0f;
        out++;
    }
}

// llm.c's permute: every coordinate taken % its extent; under the guard the outermost
// one's % is a no-op, and the index read is put back together
__global__ void permute_mod_all(const float *x, float *y, int d1, int d2, int d3, int d4)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < d1 * d2 * d3 * d4) {
        int i1 = (idx / (d2 * d3 * d4)) % d1;
        int i2 = (idx / (d3 * d4)) % d2;
        int i3 = (idx / d4) % d3;
        int i4 = idx % d4;
        y[idx] = x[((i1 * d2 + i2) * d3 + i3) * d4 + i4];
    }
}

__global__ void permute_flat(const float *x, float *y, int d1, int d2, int d3, int d4)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < d1 * d2 * d3 * d4)
        y[idx] = x[idx];
}

// A flat index split into four digits (b, o, n, k), k innermost, the read contiguous in o
// (issue 13, digit_order): the same split spelled (i / S) % D, as mmcv writes it
// (i % (D*S) / S, casts around each), through temporaries, and with 64-bit and unsigned
// indices in a grid-stride loop. Each gives the same model.
__global__ void digits_div_mod(const float *pts, float *out, int B, int O, int N, int K)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * O * N * K) {
        int b = i / (O * N * K);
        int o = (i / (N * K)) % O;
        int n = (i / K) % N;
        int k = i % K;
        out[i] = pts[((b * N + n) * K + k) * O + o] * 2.0f;
    }
}

__global__ void digits_mod_div(const float *pts, float *out, int B, int O, int N, int K)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B * O * N * K)
        return;
    const int b = (int)(i / (O * N * K));
    const int o = (int)(i % (O * N * K) / (N * K));
    const int n = (int)(i % (N * K) / K);
    const int k = (int)(i % K);
    out[b * O * N * K + o * N * K + n * K + k] = pts[((b * N + n) * K + k) * O + o] * 2.0f;
}

__global__ void digits_temps(const float *pts, float *out, int B, int O, int N, int K)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < B * O * N * K) {
        const int nk = N * K;
        int rest = i % (O * nk);
        int o = rest / nk;
        int n = rest % nk / K;
        int k = rest % K;
        int b = i / (O * nk);
        int at = (b * N + n) * K + k;
        out[i] = pts[at * O + o] * 2.0f;
    }
}

__global__ void digits_int64_loop(const float *pts, float *out, int B, int O, int N, int K)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (int64_t)B * O * N * K;
         i += (int64_t)blockDim.x * gridDim.x) {
        int64_t b = i / ((int64_t)O * N * K);
        int64_t o = i % ((int64_t)O * N * K) / ((int64_t)N * K);
        size_t n = (size_t)(i / K) % N;
        int64_t k = i % K;
        out[i] = pts[((b * N + n) * K + k) * O + o] * 2.0f;
    }
}
