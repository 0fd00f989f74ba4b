// Kernels session 39's rewrites refuse (issue 14), one construct each; said in zh-CN by hkls rewrites, their
// reasons hold no English sentence (test_cli_rewrites s39_refusals_zh): load_batching, unroll_jam_scan, double_narrowing,
// invariant_table, digit_order, register_threshold, merge_barriers, table_hoist, histogram_lane_replicas, the loop reader.
__global__ void scale_warp_sync(const float *a, float *b, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float v = a[i];
        __syncwarp();
        b[i] = 2.0f * v;
    }
}

__global__ void find_first_neg(const float *a, int *out, int n)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        float v = a[i];
        if (v < 0.0f) {
            out[0] = i;
            break;
        }
    }
}

__global__ void copy_in_place(float *a, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n - 1; i += blockDim.x * gridDim.x)
        a[i] = a[i + 1];
}

__global__ void nearest_sync(const float *pts, const float *q, int *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float best = 1e30f;
    int bi = 0;
    for (int j = 0; j < n; ++j) {
        float d = fabsf(pts[j] - q[t]);
        if (d < best) {
            best = d;
            bi = j;
        }
        __syncthreads();
    }
    out[t] = bi;
}

__global__ void running_best(const float *pts, int *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float best = 1e30f;
    int bi = 0;
    for (int j = 0; j < n; ++j) {
        float d = pts[j] - best;
        if (d < 0.0f) {
            best = pts[j];
            bi = j;
        }
    }
    out[t] = bi;
}

__global__ void sum_in_double(const float *p, float *out, int n)
{
    double s = 0.0;
    for (int j = 0; j < n; ++j)
        s += p[j];
    out[0] = s;
}

__global__ void phase_per_thread(float *out, int n, int K)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = i % K;
    float w = sinf(0.5f * j * threadIdx.x);
    if (i < n)
        out[i] = w;
}

__global__ void phase_cheap(float *out, int n, int K)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = i % K;
    float w = 0.5f * j + 1.0f;
    if (i < n)
        out[i] = w;
}

__global__ void scatter_digits(int C, int J, const float *feat, float *out)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < C * J; i += blockDim.x * gridDim.x) {
        int c = i % C;
        int j = i / C;
        atomicAdd(&out[c], feat[c * J + j]);
    }
}

__global__ void best_leaks(const float *d, float *out, int n)
{
    float best[2] = {1e30f, 1e30f};
    for (int j = 0; j < n; ++j) {
        float v = d[j];
        if (v < best[0])
            best[0] = v;
        best[1] = v;
    }
    out[0] = best[0];
}

__global__ void mirror_tile(const float *a, float *out)
{
    __shared__ float s[32];
    int t = threadIdx.x;
    s[t] = a[t];
    __syncthreads();
    out[t] = s[31 - t];
    __syncthreads();
    s[t] = out[t];
}

__global__ void hist_float(const int *v, float *hist, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&hist[v[i] & 255], 1.0f);
}

__global__ void knn_single(const float *q, const float *p, int *out, int n, int m)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        float best = 1e30f;
        int bi = 0;
        for (int j = 0; j < m; ++j) {
            float d = fabsf(p[j] - q[i]);
            if (d < best) {
                best = d;
                bi = j;
            }
        }
        out[i] = bi;
    }
}
