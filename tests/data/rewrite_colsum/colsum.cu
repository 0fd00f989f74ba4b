// Column reductions written as one block per output column (issue 13, the coalesced-columns
// rewrite): block b owns out[b], its threads stride down the rows of a row-major matrix, a
// shared-memory tree adds their partial sums, and thread 0 writes the column's total. Each
// kernel spells the same computation another way; the last ones are not plain sums.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// float in and out, `=`, the column straight from blockIdx.x, `i * C + col`, a tree over
// dynamic shared memory that halves blockDim.x.
__global__ void col_sum_plain(const float *in, float *out, int R, int C)
{
    extern __shared__ float part[];
    float s = 0.0f;
    for (int i = threadIdx.x; i < R; i += blockDim.x)
        s += in[i * C + blockIdx.x];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (k > threadIdx.x)
            part[threadIdx.x] += part[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = part[0];
}

// bf16 input into a float output that accumulates (`+=`): the column through a temporary,
// `col + C * i` over size_t rows counted as B * T, a fixed-size shared array and its tree.
#define TREE 256
__global__ void col_sum_bf16_acc(float *out, const __nv_bfloat16 *in, int B, int T, int C)
{
    __shared__ float sdata[TREE];
    const int col = blockIdx.x;
    const unsigned int tid = threadIdx.x;
    float acc = 0.f;
    for (size_t i = tid; i < (size_t)B * T; i += blockDim.x)
        acc += __bfloat162float(in[col + (size_t)C * i]);
    sdata[tid] = acc;
    __syncthreads();
    for (unsigned int s = TREE / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[col] += sdata[0];
}

// half in and out through a column pointer, unsigned counters, `stride /= 2` down to 1, and
// the total converted back to half on its store as `old + sum`.
__global__ void col_sum_half(__half *out, const __half *in, unsigned int rows, unsigned int cols)
{
    extern __shared__ float buf[];
    const unsigned int c = blockIdx.x;
    const __half *column = in + c;
    float sum = 0.0f;
    for (unsigned int r = threadIdx.x; r < rows; r += blockDim.x)
        sum += (float)column[r * cols];
    buf[threadIdx.x] = sum;
    for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {
        __syncthreads();
        if (stride > threadIdx.x)
            buf[threadIdx.x] += buf[threadIdx.x + stride];
    }
    if (threadIdx.x == 0)
        out[c] = (__half)((float)out[c] + buf[0]);
}

// Not a plain sum: the column's mean (the total divided by the rows on its store).
__global__ void col_mean(const float *in, float *out, int R, int C)
{
    extern __shared__ float part[];
    float s = 0.0f;
    for (int i = threadIdx.x; i < R; i += blockDim.x)
        s += in[i * C + blockIdx.x];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (k > threadIdx.x)
            part[threadIdx.x] += part[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = part[0] / R;
}

// Not a plain sum: a maximum per column.
__global__ void col_max(const float *in, float *out, int R, int C)
{
    extern __shared__ float part[];
    float m = -3.0e38f;
    for (int i = threadIdx.x; i < R; i += blockDim.x)
        m = fmaxf(m, in[i * C + blockIdx.x]);
    part[threadIdx.x] = m;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (k > threadIdx.x)
            part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + k]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = part[0];
}

// Every thread of the block writes: each stores its own partial sum beside the total.
__global__ void col_sum_all_write(const float *in, float *out, float *partials, int R, int C)
{
    extern __shared__ float part[];
    float s = 0.0f;
    for (int i = threadIdx.x; i < R; i += blockDim.x)
        s += in[i * C + blockIdx.x];
    part[threadIdx.x] = s;
    partials[blockIdx.x * blockDim.x + threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (k > threadIdx.x)
            part[threadIdx.x] += part[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = part[0];
}

// Not the tree over the threads' sums: each step adds the slot 2s away, so half the
// threads' sums are never added.
__global__ void col_sum_skewed_tree(const float *in, float *out, int R, int C)
{
    extern __shared__ float part[];
    float s = 0.0f;
    for (int i = threadIdx.x; i < R; i += blockDim.x)
        s += in[i * C + blockIdx.x];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (k > threadIdx.x)
            part[threadIdx.x] += part[threadIdx.x + 2 * k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = part[0];
}

// double in and out, `+=` (session 36: a 32-byte sector is 4 doubles, so strips may narrow
// to 4 columns, and the accumulating store lets blocks split a strip's rows).
__global__ void col_sum_double_acc(double *out, const double *in, long long R, long long C)
{
    __shared__ double tree[128];
    double s = 0.0;
    for (long long i = threadIdx.x; i < R; i += blockDim.x)
        s += in[i * C + blockIdx.x];
    tree[threadIdx.x] = s;
    __syncthreads();
    for (int k = 64; k > 0; k >>= 1) {
        if (k > threadIdx.x)
            tree[threadIdx.x] += tree[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] += tree[0];
}
