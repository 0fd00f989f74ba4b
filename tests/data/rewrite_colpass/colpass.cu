// column_passes fixtures (session 50, our own): thread-per-column (and per-row) kernels with
// two or more dependent reduction passes, and kernels the rewrite must refuse.
#include <math.h>

// two-pass standard deviation of each column: the mean, then the squared deviations
__global__ void std2(const float *data, float *sd, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float mu = 0.0f;
    for (int i = 0; i < n; i++)
        mu += data[i * m + j];
    mu /= n;
    float v = 0.0f;
    for (int i = 0; i < n; i++) {
        float t = data[i * m + j] - mu;
        v += t * t;
    }
    sd[j] = sqrtf(v / (n - 1));
}

// per-row variance, thread per row, the guard as a block, fmaf and a select-form maximum
__global__ void rowvar(const float *x, float *var, float *peak, int rows, int cols)
{
    int r = threadIdx.x + blockIdx.x * blockDim.x;
    if (r < rows) {
        float s = 0.0f;
        float hi = -1e30f;
        for (int c = 0; c < cols; c++) {
            float e = x[(size_t)r * cols + c];
            s = s + e;
            if (e > hi) hi = e;
        }
        float mean = s / cols;
        float q = 0.0f;
        for (int c = 0; c < cols; c++) {
            float d = x[(size_t)r * cols + c] - mean;
            q = fmaf(d, d, q);
        }
        var[r] = q / cols;
        peak[r] = hi - mean;
    }
}

// per-column min-max normalisation: the range, then the mean normalised value and a count
__global__ void minmax(const float *data, float *mean01, int *above, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float lo = data[j], hi = data[j];
    for (int i = 1; i < n; i++) {
        lo = fminf(lo, data[i * m + j]);
        hi = fmaxf(hi, data[i * m + j]);
    }
    float span = hi - lo > 0.0f ? hi - lo : 1.0f;
    float acc = 0.0f;
    int cnt = 0;
    for (int i = 0; i < n; i++) {
        float z = (data[i * m + j] - lo) / span;
        acc += z;
        if (z > 0.5f)
            cnt += 1;
    }
    mean01[j] = acc / n;
    above[j] = cnt;
}

// three passes in double: the mean, the variance, then the outliers past two deviations
__global__ void zscore3(const double *data, double *sd, long long *outliers, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    double mu = 0.0;
    for (int i = 0; i < n; i++)
        mu += data[(size_t)i * m + j];
    mu = mu / n;
    double v = 0.0;
    for (int i = 0; i < n; i++)
        v = v + (data[(size_t)i * m + j] - mu) * (data[(size_t)i * m + j] - mu);
    double s = sqrt(v / n);
    long long k = 0;
    for (int i = 0; i < n; i++)
        if (fabs(data[(size_t)i * m + j] - mu) > 2.0 * s)
            k += 1;
    sd[j] = s;
    outliers[j] = k;
}

// ---- refusals
__global__ void one_pass(const float *data, float *out, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += data[i * m + j];
    out[j] = s;
}

__global__ void store_mid(const float *data, float *out, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += data[i * m + j];
    out[j] = s;
    float t = 0.0f;
    for (int i = 0; i < n; i++)
        t += data[i * m + j] * s;
    out[m + j] = t;
}

__global__ void carried(const float *data, float *out, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float s = 0.0f, prev = 0.0f;
    for (int i = 0; i < n; i++) {
        s += data[i * m + j] - prev;
        prev = data[i * m + j];
    }
    float t = 0.0f;
    for (int i = 0; i < n; i++)
        t += data[i * m + j] * s;
    out[j] = t;
}

__global__ void early(const float *data, float *out, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float s = 0.0f;
    for (int i = 0; i < n; i++) {
        if (data[i * m + j] < 0.0f)
            break;
        s += data[i * m + j];
    }
    float t = 0.0f;
    for (int i = 0; i < n; i++)
        t += data[i * m + j] * s;
    out[j] = t;
}

__global__ void until(const float *data, float *out, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float s = 0.0f;
    for (int i = 0; i < n && s < 100.0f; i++)
        s += data[i * m + j];
    float t = 0.0f;
    for (int i = 0; i < n; i++)
        t += data[i * m + j] * s;
    out[j] = t;
}

__global__ void in_place(float *data, float *out, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += data[i * m + j];
    float t = 0.0f;
    for (int i = 0; i < n; i++)
        t += data[i * m + j] * s;
    out[j] = t;
    data[j] = 0.0f;
}

__global__ void read_sum(const float *data, float *out, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float s = 0.0f, w = 0.0f;
    for (int i = 0; i < n; i++) {
        s += data[i * m + j];
        w += s;
    }
    float t = 0.0f;
    for (int i = 0; i < n; i++)
        t += data[i * m + j] * s;
    out[j] = t + w;
}

__global__ void product(const float *data, float *out, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float s = 0.0f, p = 1.0f;
    for (int i = 0; i < n; i++) {
        s += data[i * m + j];
        p *= data[i * m + j];
    }
    float t = 0.0f;
    for (int i = 0; i < n; i++)
        t += data[i * m + j] * s;
    out[j] = t * p;
}

__global__ void shrinks(const float *data, float *out, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += data[i * m + j];
    n = n / 2;
    float t = 0.0f;
    for (int i = 0; i < n; i++)
        t += data[i * m + j] * s;
    out[j] = t;
}

__global__ void tied(const float *data, float *out, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float s = 0.0f;
    for (int i = threadIdx.y; i < n; i++)
        s += data[i * m + j];
    float t = 0.0f;
    for (int i = 0; i < n; i++)
        t += data[i * m + j] * s;
    out[j] = t;
}

// a map loop after the passes (layernorm, thread per row): split like a pass, each slice
// storing its own elements of the row through a local pointer
template <typename T>
__global__ void lnrow(const T *x, const T *g, T *y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    const T *xr = x + (size_t)r * cols;
    T *yr = y + (size_t)r * cols;
    T mu = 0;
    for (int c = 0; c < cols; c++)
        mu += xr[c];
    mu /= cols;
    T var = 0;
    for (int c = 0; c < cols; c++)
        var += (xr[c] - mu) * (xr[c] - mu);
    T inv = 1 / sqrt(var / cols + (T)1e-5);
    for (int c = 0; c < cols; c++)
        yr[c] = (xr[c] - mu) * inv * g[c];
}

__global__ void map_two(const float *x, float *y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float mu = 0.0f;
    for (int c = 0; c < cols; c++)
        mu += x[r * cols + c];
    float v = 0.0f;
    for (int c = 0; c < cols; c++)
        v += x[r * cols + c] * mu;
    for (int c = 0; c < cols - 1; c++) {
        y[r * cols + c] = v;
        y[r * cols + c + 1] = mu;
    }
}

__global__ void map_scaled(const float *x, float *y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float mu = 0.0f;
    for (int c = 0; c < cols; c++)
        mu += x[r * cols + c];
    float v = 0.0f;
    for (int c = 0; c < cols; c++)
        v += x[r * cols + c] * mu;
    for (int c = 0; c < cols / 2; c++)
        y[r * cols + 2 * c] = v;
}

// ---- refusals added in review (session 50): an integer reduction fed a value that is not an
// integer. `t += E` stores (int)(t + E): the truncation on every trip makes the sum depend on
// its order (rows 1.5, -0.5, 1.5, -0.5 give 0 in order, 2 + 0 split over two slices).
__global__ void int_of_float(const float *data, float *mean, int *trunc, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += data[i * m + j];
    float mu = s / n;
    int t = 0;
    for (int i = 0; i < n; i++)
        t += data[i * m + j] - mu;
    mean[j] = mu;
    trunc[j] = t;
}

__global__ void int_fma(const float *data, int *out, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    int a = 0;
    for (int i = 0; i < n; i++)
        a = a + 0.5f;
    long long b = 0;
    for (int i = 0; i < n; i++)
        b = fmaf(data[i * m + j], 2.0f, b);
    out[j] = a + (int)b;
}

// an integer count of integer values: still split
__global__ void int_of_int(const int *flags, int *cnt, float *avg, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    long long c = 0;
    for (int i = 0; i < n; i++)
        c += flags[i * m + j] * 3 + i;
    float mu = (float)c / n;
    unsigned k = 0u;
    for (int i = 0; i < n; i++)
        k -= (unsigned)(flags[i * m + j] > mu);
    cnt[j] = (int)c;
    avg[j] = mu + k;
}

// a count of float comparisons: an integer added whatever it compares, still split
__global__ void count_above(const float *data, float *mean, int *above, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += data[i * m + j];
    float mu = s / n;
    int c = 0;
    for (int i = 0; i < n; i++)
        c += (data[i * m + j] > mu + 0.25f && data[i * m + j] < 2.0f * mu + 1.0f);
    mean[j] = mu;
    above[j] = c;
}
