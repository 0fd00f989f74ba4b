// spread_lanes fixtures (our own): one thread per row, an inner loop of independent iterations.
__global__ void covar(int m, int n, const double *data, double *cov)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            double s = 0.0;
            for (int i = 0; i < n; i++)
                s += data[i * m + j1] * data[i * m + j2];
            s /= (n - 1.0);
            cov[j1 * m + j2] = s;
            cov[j2 * m + j1] = s;
        }
    }
}

__global__ void corr(int m, int n, const float *data, float *corr)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 >= m)
        return;
    corr[(size_t)j1 * m + j1] = 1.0f;
    for (int j2 = j1 + 1; j2 < m; j2++) {
        float acc = 0.0f;
        for (int i = 0; i < n; i++)
            acc += data[(size_t)i * m + j1] * data[(size_t)i * m + j2];
        corr[(size_t)j1 * m + j2] = acc;
        corr[(size_t)j2 * m + j1] = acc;
    }
}

// pairwise squared distances of m points of dimension d, the whole row, a continue
__global__ void pdist(int m, int d, const float *pts, float *dist)
{
    unsigned r = threadIdx.x + blockIdx.x * blockDim.x;
    if (r < m) {
        const float scale = 0.5f;
        for (int c = 0; c < m; ++c) {
            float t[2];
            t[0] = 0.0f;
            t[1] = 0.0f;
            for (int k = 0; k < d; k++) {
                float e = pts[c * d + k] - pts[r * d + k];
                t[k & 1] += e * e;
            }
            if (c == 7) {
                dist[m * r + c] = -1.0f;
                continue;
            }
            dist[c + r * m] = scale * (t[0] + t[1]);
        }
    }
}

__global__ void carried(int m, int n, const float *data, float *out)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        float run = 0.0f;
        for (int j2 = j1; j2 < m; j2++) {
            run += data[j2];
            out[j1 * m + j2] = run;
        }
    }
}

__global__ void after(int m, int n, const float *data, float *out, float *sum)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 >= m)
        return;
    for (int j2 = j1; j2 < m; j2++)
    {
        out[j1 * m + j2] = data[j2];
    }
    sum[j1] = out[j1 * m + m - 1];
}

__global__ void diag_met(int m, int n, const float *data, float *out)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 >= m)
        return;
    out[j1 * m + j1] = 1.0f;
    for (int j2 = j1; j2 < m; j2++) {
        out[j1 * m + j2] = data[j2];
    }
}

__global__ void row_sum(int m, int n, const float *data, float *out)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = 0; j2 < m; j2++) {
            out[j1] = data[j1 * m + j2];
        }
    }
}

__global__ void reads_out(int m, int n, const float *data, float *out)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            out[j1 * m + j2] = data[j2] + out[j2 * m + j1];
        }
    }
}

__global__ void breaks(int m, int n, const float *data, float *out)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            if (data[j2] < 0.0f)
                break;
            out[j1 * m + j2] = data[j2];
        }
    }
}

__global__ void lane_read(int m, int n, const float *data, float *out)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            out[j1 * m + j2] = data[j2] * threadIdx.x;
        }
    }
}

__device__ float noted(float *log, float v) { log[0] = v; return v; }

__global__ void calls(int m, int n, const float *data, float *out, float *log)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            out[j1 * m + j2] = noted(log, data[j2]);
        }
    }
}

__global__ void two_outputs(int m, int n, const float *data, float *out, float *out2)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            out[j1 * m + j2] = data[j2];
            out2[j2 * m + j1] = data[j2];
        }
    }
}

__global__ void row_pointer(int m, int n, const float *data, float *out)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            float *row = out + j1;
            row[0] = data[j2];
        }
    }
}

// shadowing the loop's index, the thread's index, the bound inside the loop
__global__ void sh_j(int m, const float *d, float *out)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            { int j2 = 0; out[j1 * m + j2] = d[j2]; }
        }
    }
}
__global__ void sh_i(int m, const float *d, float *out)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            int j1 = 0;
            out[j1 * m + j2] = d[j2];
        }
    }
}
__global__ void sh_m(int m, const float *d, float *out)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            int m = 1;
            out[j1 * m + j2] = d[j2];
        }
    }
}
