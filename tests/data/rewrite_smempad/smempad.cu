// shared_padding (tests/unit/test_rewrites_smempad.c): arrays strided across threadIdx.x by
// a power of two, and the constructs that stop the padding. Line numbers are in the test.
#define NB 128
#define TILE 32
#define AT(i) bad_macro_s[i]

// The work-efficient exclusive scan: the tree strides 2 * offset words (offset doubled and
// halved beside the loops' counters), the loads and stores 2 words.
__global__ void scan_sweeps(const float *in, float *out, int n)
{
    __shared__ float temp[2 * NB];
    int thid = threadIdx.x;
    int base = blockIdx.x * 2 * NB;
    int offset = 1;
    temp[2 * thid] = (base + 2 * thid < n) ? in[base + 2 * thid] : 0.0f;
    temp[2 * thid + 1] = (base + 2 * thid + 1 < n) ? in[base + 2 * thid + 1] : 0.0f;
    for (int d = NB; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (thid == 0)
        temp[2 * NB - 1] = 0;
    for (int d = 1; d < 2 * NB; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            float t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();
    if (base + 2 * thid < n)
        out[base + 2 * thid] = temp[2 * thid];
    if (base + 2 * thid + 1 < n)
        out[base + 2 * thid + 1] = temp[2 * thid + 1];
}

// A tile written by rows and read down its columns (a transpose): 32 words a row.
__global__ void tile_columns(const int *in, int *out, int w, int h)
{
    __shared__ int tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x < w && y < h)
        tile[threadIdx.y][threadIdx.x] = in[y * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < h && y < w)
        out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}

// Refusals.
__global__ void unit_stride(const float *in, float *out)
{
    __shared__ float s[256];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x] + s[(threadIdx.x + 16) % 256];
}

__global__ void address_taken(const float *in, float *out)
{
    __shared__ float s[512];
    s[2 * threadIdx.x] = in[threadIdx.x];
    float *p = &s[2 * threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = *p;
}

__device__ float first(const float *p) { return p[0]; }

__global__ void array_passed(const float *in, float *out)
{
    __shared__ float s[512];
    s[2 * threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = first(s);
}

__global__ void dynamic_shared(const float *in, float *out)
{
    extern __shared__ float dyn[];
    dyn[2 * threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = dyn[2 * threadIdx.x];
}

__global__ void side_effect(const float *in, float *out)
{
    __shared__ float s[512];
    int k = threadIdx.x;
    s[2 * threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[2 * k++];
}

__global__ void doubles(const double *in, double *out)
{
    __shared__ double s[512];
    s[2 * threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[2 * threadIdx.x];
}

__global__ void size_of(const float *in, float *out)
{
    __shared__ float s[512];
    s[2 * threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = s[2 * threadIdx.x] + sizeof(s);
}

__global__ void through_macro(const float *in, float *out)
{
    __shared__ float bad_macro_s[512];
    bad_macro_s[2 * threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = AT(2 * threadIdx.x);
}

// A column read only by the lanes with threadIdx.x == 0 (Rodinia backprop's spelling): one
// lane a row of the warp, no conflict.
__global__ void pinned_column(const float *in, float *out)
{
    __shared__ float m[16][16];
    m[threadIdx.y][threadIdx.x] = in[threadIdx.y * 16 + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0)
        out[threadIdx.y] = m[threadIdx.x][threadIdx.y];
}
