// Honest bytes (issue 14, mmcv's carafe): a window of 2k+1 taps around i / s, clipped to
// the map by a guard on the loop's counter. How many of feat's and w's elements the kernel
// touches depends on the sizes (with k past n / s most taps are skipped), so their counts
// are no measure of the bytes it moves; out is written once per element.
__global__ void upsample(const float *feat, const float *w, float *out, int n, int k, int s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int c = i / s;
    float acc = 0.0f;
    for (int t = c - k; t <= c + k; t++) {
        if (t < 0 || t > n / s - 1)
            continue;
        acc += feat[t] * w[t - c + k];
    }
    out[i] = acc;
}

// a guard on a value read in the loop skips no element: every in[j] of a row is read
__global__ void row_max(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float m = -1e30f;
        for (int j = 0; j < cols; j++)
            if (in[r * cols + j] > m)
                m = in[r * cols + j];
        out[r] = m;
    }
}

// a guard on values read from memory: for some data every flag[] is written (the kernel
// can touch it all), so flag stays in bytes
__global__ void hits(const float *x, float *flag, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        for (int j = 0; j < m; j++)
            if (x[i * m + j] > 0.5f)
                flag[i * m + j] = 1.0f;
}
