// block_online_softmax's kernels (test_rewrites_block_softmax): softmaxes with one block per
// row written in passes with shared-memory trees. Our own spellings; the refusals below them.
#include <float.h>
#include <math.h>

// llm.c's softmax_forward_kernel2 spelling: the exponentials stored, the row pointer
// re-pointed at the output, summed from there, divided in place
__global__ void soft_stored(float *out, const float *inp, int N, int C)
{
    extern __shared__ float red[];
    int row = blockIdx.x;
    int t = threadIdx.x;
    int bs = blockDim.x;
    const float *x = inp + row * C;
    float m = -INFINITY;
    for (int i = t; i < C; i += bs)
        m = fmaxf(m, x[i]);
    red[t] = m;
    for (int s = bs / 2; s >= 1; s /= 2) {
        __syncthreads();
        if (s > t)
            red[t] = fmaxf(red[t], red[t + s]);
    }
    __syncthreads();
    float off = red[0];
    for (int i = t; i < C; i += bs)
        out[row * C + i] = expf(x[i] - off);
    __syncthreads();
    x = out + row * C;
    float sum = 0.0f;
    for (int i = t; i < C; i += bs)
        sum += x[i];
    red[t] = sum;
    for (int s = bs / 2; s >= 1; s /= 2) {
        __syncthreads();
        if (s > t)
            red[t] += red[t + s];
    }
    __syncthreads();
    float total = red[0];
    for (int i = t; i < C; i += bs)
        out[row * C + i] = x[i] / total;
}

// the sum recomputed from the input, an if-form maximum, a 64-bit row offset, blockDim.x as
// the step, the barrier closing the tree's body, a reciprocal multiplied
__global__ void soft_recomputed(float *y, const float *x, int C)
{
    __shared__ float acc[1024];
    const unsigned tid = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * C;
    float mx = -FLT_MAX;
    for (int j = tid; j < C; j += blockDim.x)
        if (x[base + j] > mx)
            mx = x[base + j];
    acc[tid] = mx;
    __syncthreads();
    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
        if (h > tid)
            acc[tid] = fmaxf(acc[tid + h], acc[tid]);
        __syncthreads();
    }
    const float top = acc[0];
    __syncthreads();
    float s = 0.0f;
    for (int j = tid; j < C; j += blockDim.x)
        s = s + __expf(x[base + j] - top);
    acc[tid] = s;
    __syncthreads();
    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
        if (h > tid)
            acc[tid] = acc[tid] + acc[tid + h];
        __syncthreads();
    }
    const float tot = acc[0];
    const float inv = 1.0f / tot;
    for (int j = tid; j < C; j += blockDim.x)
        y[base + j] = __expf(x[base + j] - top) * inv;
}

// ---- refusals ----

// the maximum stored for the caller (every thread, the same value): kept as written
__global__ void keeps_max(float *out, const float *inp, float *maxes, int C)
{
    __shared__ float red[1024];
    int t = threadIdx.x;
    float m = -INFINITY;
    for (int i = t; i < C; i += blockDim.x)
        m = fmaxf(m, inp[blockIdx.x * C + i]);
    red[t] = m;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] = fmaxf(red[t], red[t + s]);
    }
    __syncthreads();
    float off = red[0];
    maxes[blockIdx.x] = off; __syncthreads(); // the sum reuses red
    float sum = 0.0f;
    for (int i = t; i < C; i += blockDim.x)
        sum += expf(inp[blockIdx.x * C + i] - off);
    red[t] = sum;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] += red[t + s];
    }
    __syncthreads();
    float total = red[0];
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = expf(inp[blockIdx.x * C + i] - off) / total;
}

// the tree combines neighbours, not halves: not the block's maximum
__global__ void odd_tree(float *out, const float *inp, int C)
{
    __shared__ float red[256];
    int t = threadIdx.x;
    float m = -INFINITY;
    for (int i = t; i < C; i += blockDim.x)
        m = fmaxf(m, inp[blockIdx.x * C + i]);
    red[t] = m;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] = fmaxf(red[t], red[t + 1]);
    }
    __syncthreads();
    float off = red[0];
    float sum = 0.0f;
    for (int i = t; i < C; i += blockDim.x)
        sum += expf(inp[blockIdx.x * C + i] - off);
    red[t] = sum;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] += red[t + s];
    }
    __syncthreads();
    float total = red[0];
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = expf(inp[blockIdx.x * C + i] - off) / total;
}

// the last pass reads the neighbour's exponential: not this thread's element
__global__ void next_elem(float *out, const float *inp, int C)
{
    __shared__ float red[256];
    int t = threadIdx.x;
    float m = -INFINITY;
    for (int i = t; i < C; i += blockDim.x)
        m = fmaxf(m, inp[blockIdx.x * C + i]);
    red[t] = m;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] = fmaxf(red[t], red[t + s]);
    }
    __syncthreads();
    float off = red[0];
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = expf(inp[blockIdx.x * C + i] - off);
    float sum = 0.0f;
    for (int i = t; i < C; i += blockDim.x)
        sum += out[blockIdx.x * C + i];
    red[t] = sum;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] += red[t + s];
    }
    __syncthreads();
    float total = red[0];
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = out[blockIdx.x * C + i + 1] / total;
}

// a warp-strided loop: its elements are not the block's strided ones
__global__ void warp_step(float *out, const float *inp, int C)
{
    __shared__ float red[256];
    int t = threadIdx.x;
    float m = -INFINITY;
    for (int i = t; i < C; i += 32)
        m = fmaxf(m, inp[blockIdx.x * C + i]);
    red[t] = m;
    __syncthreads();
    out[blockIdx.x] = red[0];
}

// ---- applies again: accumulators declared at the top, the maximum from -1e30f (a row all below
// it writes NaN: kept), exps stored through a row pointer and divided by `/=`, `>>=` trees
__global__ void soft_top_decls(float *out, const float *inp, int C)
{
    __shared__ float part[1024];
    const int t = threadIdx.x;
    const float *xr = inp + blockIdx.x * C;
    float *yr = out + blockIdx.x * C;
    float mx = -1e30f;
    float total = 0.0f;
    for (int k = t; k < C; k += blockDim.x)
        mx = max(mx, xr[k]);
    part[t] = mx;
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        __syncthreads();
        if (h > t)
            part[t] = max(part[t], part[t + h]);
    }
    __syncthreads();
    const float big = part[0];
    __syncthreads();
    for (int k = t; k < C; k += blockDim.x)
        yr[k] = exp(xr[k] - big);
    for (int k = t; k < C; k += blockDim.x)
        total += yr[k];
    part[t] = total;
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        __syncthreads();
        if (h > t)
            part[t] += part[t + h];
    }
    __syncthreads();
    const float all = part[0];
    for (int k = t; k < C; k += blockDim.x)
        yr[k] /= all;
}

// ---- refused: the output's row offset in 64 bits, the input's in 32: two offsets
__global__ void two_offsets(float *out, const float *inp, int C)
{
    __shared__ float red[256];
    int t = threadIdx.x;
    float m = -INFINITY;
    for (int i = t; i < C; i += blockDim.x)
        m = fmaxf(m, inp[blockIdx.x * C + i]);
    red[t] = m;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] = fmaxf(red[t], red[t + s]);
    }
    __syncthreads();
    float off = red[0];
    float sum = 0.0f;
    for (int i = t; i < C; i += blockDim.x)
        sum += expf(inp[blockIdx.x * C + i] - off);
    red[t] = sum;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] += red[t + s];
    }
    __syncthreads();
    float total = red[0];
    for (int i = t; i < C; i += blockDim.x)
        out[(size_t)blockIdx.x * C + i] = expf(inp[blockIdx.x * C + i] - off) / total;
}

// ---- refused: a 2-D block, a row per threadIdx.y: the row offset is not the whole block's
__global__ void rows_by_y(float *out, const float *inp, int C)
{
    __shared__ float red[256];
    int t = threadIdx.x;
    int row = blockIdx.x * blockDim.y + threadIdx.y;
    float m = -INFINITY;
    for (int i = t; i < C; i += blockDim.x)
        m = fmaxf(m, inp[row * C + i]);
    red[t] = m;
    out[row] = red[0];
}

// ---- refused: the first stored exponential read again after the last pass
__global__ void reads_exps(float *out, const float *inp, float *first, int C)
{
    __shared__ float red[256];
    int t = threadIdx.x;
    float m = -INFINITY;
    for (int i = t; i < C; i += blockDim.x)
        m = fmaxf(m, inp[blockIdx.x * C + i]);
    red[t] = m;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] = fmaxf(red[t], red[t + s]);
    }
    __syncthreads();
    float off = red[0];
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = expf(inp[blockIdx.x * C + i] - off);
    float sum = 0.0f;
    for (int i = t; i < C; i += blockDim.x)
        sum += out[blockIdx.x * C + i];
    red[t] = sum;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] += red[t + s];
    }
    __syncthreads();
    float total = red[0];
    if (t == 0)
        first[blockIdx.x] = out[blockIdx.x * C] / total;
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = out[blockIdx.x * C + i] / total;
}

// the maximum of the values cast to int: a cast that changes the value is not dropped (session 44 review)
__global__ void int_cast(float *out, const float *inp, int C)
{
    __shared__ float red[256];
    int t = threadIdx.x;
    float m = -INFINITY;
    for (int i = t; i < C; i += blockDim.x)
        m = fmaxf(m, (int)inp[blockIdx.x * C + i]);
    red[t] = m;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] = fmaxf(red[t], red[t + s]);
    }
    __syncthreads();
    float off = red[0];
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = expf(inp[blockIdx.x * C + i] - off);
    float sum = 0.0f;
    for (int i = t; i < C; i += blockDim.x)
        sum += out[blockIdx.x * C + i];
    red[t] = sum;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] += red[t + s];
    }
    __syncthreads();
    float total = red[0];
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = out[blockIdx.x * C + i] / total;
}

// `c > 0 ? 0 : blockIdx.x * C + i` is not OFF + i (the conditional binds looser)
__global__ void loose_off(float *out, const float *inp, int C, int c)
{
    __shared__ float red[256];
    int t = threadIdx.x;
    float m = -INFINITY;
    for (int i = t; i < C; i += blockDim.x)
        m = fmaxf(m, inp[c > 0 ? 0 : blockIdx.x * C + i]);
    red[t] = m;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] = fmaxf(red[t], red[t + s]);
    }
    __syncthreads();
    float off = red[0];
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = expf(inp[blockIdx.x * C + i] - off);
    float sum = 0.0f;
    for (int i = t; i < C; i += blockDim.x)
        sum += out[blockIdx.x * C + i];
    red[t] = sum;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] += red[t + s];
    }
    __syncthreads();
    float total = red[0];
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = out[blockIdx.x * C + i] / total;
}

// a row offset read from memory: memory may change between the passes
__global__ void mem_off(float *out, const float *inp, int C, const int *rows)
{
    __shared__ float red[256];
    int t = threadIdx.x;
    float m = -INFINITY;
    for (int i = t; i < C; i += blockDim.x)
        m = fmaxf(m, inp[*rows * C + i]);
    red[t] = m;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] = fmaxf(red[t], red[t + s]);
    }
    __syncthreads();
    float off = red[0];
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = expf(inp[blockIdx.x * C + i] - off);
    float sum = 0.0f;
    for (int i = t; i < C; i += blockDim.x)
        sum += out[blockIdx.x * C + i];
    red[t] = sum;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] += red[t + s];
    }
    __syncthreads();
    float total = red[0];
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = out[blockIdx.x * C + i] / total;
}

// ---- session 45: stores kept for the caller, their buffers passed twice ----

// the row's maximum and sum stored for the caller into the first element of a row of other
// buffers, one after the maximum's tree, one after the write pass (both kept, moved before the
// write pass): passed the input as `firsts`, the original's passes read the maximum stored
// there; passed the output as `lasts`, the original leaves the sum there. The run-time test
// takes the original body then.
__global__ void keeps_firsts(float *out, const float *inp, float *firsts, float *lasts, int C)
{
    __shared__ float red[1024];
    int t = threadIdx.x;
    float m = -INFINITY;
    for (int i = t; i < C; i += blockDim.x)
        m = fmaxf(m, inp[blockIdx.x * C + i]);
    red[t] = m;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] = fmaxf(red[t], red[t + s]);
    }
    __syncthreads();
    float off = red[0];
    if (t == 0)
        firsts[blockIdx.x * C] = off;
    __syncthreads(); // the sum reuses red
    float sum = 0.0f;
    for (int i = t; i < C; i += blockDim.x)
        sum += expf(inp[blockIdx.x * C + i] - off);
    red[t] = sum;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] += red[t + s];
    }
    __syncthreads();
    float total = red[0];
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = expf(inp[blockIdx.x * C + i] - off) / total;
    if (t == 0)
        lasts[blockIdx.x * C] = total;
}

// refused (issue 13): the kept store's element names a local, which the run-time test (that
// the element lies outside the block's rows) cannot name before the body's declarations
__global__ void keeps_local(float *out, const float *inp, float *maxes, int C)
{
    __shared__ float red[1024];
    int t = threadIdx.x;
    int r = blockIdx.x;
    float m = -INFINITY;
    for (int i = t; i < C; i += blockDim.x)
        m = fmaxf(m, inp[blockIdx.x * C + i]);
    red[t] = m;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] = fmaxf(red[t], red[t + s]);
    }
    __syncthreads();
    float off = red[0];
    maxes[r] = off; __syncthreads(); // the sum reuses red
    float sum = 0.0f;
    for (int i = t; i < C; i += blockDim.x)
        sum += expf(inp[blockIdx.x * C + i] - off);
    red[t] = sum;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (s > t)
            red[t] += red[t + s];
    }
    __syncthreads();
    float total = red[0];
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = expf(inp[blockIdx.x * C + i] - off) / total;
}

// ---- session 46 (issue 13): trees and loops whose values the types change (each applied at
// 18e2dd8a) ----

// refused: the trees' shared array holds ints: the original divides by the truncated sum
__global__ void int_tree(float *out, const float *inp, int N, int C)
{
    extern __shared__ int ired[];
    int row = blockIdx.x;
    int t = threadIdx.x;
    int bs = blockDim.x;
    const float *x = inp + row * C;
    float m = -INFINITY;
    for (int i = t; i < C; i += bs)
        m = fmaxf(m, x[i]);
    ired[t] = m;
    for (int s = bs / 2; s >= 1; s /= 2) {
        __syncthreads();
        if (s > t)
            ired[t] = fmaxf(ired[t], ired[t + s]);
    }
    __syncthreads();
    float off = ired[0];
    for (int i = t; i < C; i += bs)
        out[row * C + i] = expf(x[i] - off);
    __syncthreads();
    x = out + row * C;
    float sum = 0.0f;
    for (int i = t; i < C; i += bs)
        sum += x[i];
    ired[t] = sum;
    for (int s = bs / 2; s >= 1; s /= 2) {
        __syncthreads();
        if (s > t)
            ired[t] += ired[t + s];
    }
    __syncthreads();
    float total = ired[0];
    for (int i = t; i < C; i += bs)
        out[row * C + i] = x[i] / total;
}

// refused: the tree's variable a char: at blocks of 256 it starts at -128 and the tree stops
// at once (red[0] is thread 0's own maximum)
__global__ void char_tree(float *out, const float *inp, int N, int C)
{
    extern __shared__ float red[];
    int row = blockIdx.x;
    int t = threadIdx.x;
    int bs = blockDim.x;
    const float *x = inp + row * C;
    float m = -INFINITY;
    for (int i = t; i < C; i += bs)
        m = fmaxf(m, x[i]);
    red[t] = m;
    for (char s = bs / 2; s >= 1; s /= 2) {
        __syncthreads();
        if (s > t)
            red[t] = fmaxf(red[t], red[t + s]);
    }
    __syncthreads();
    float off = red[0];
    for (int i = t; i < C; i += bs)
        out[row * C + i] = expf(x[i] - off);
    __syncthreads();
    x = out + row * C;
    float sum = 0.0f;
    for (int i = t; i < C; i += bs)
        sum += x[i];
    red[t] = sum;
    for (int s = bs / 2; s >= 1; s /= 2) {
        __syncthreads();
        if (s > t)
            red[t] += red[t + s];
    }
    __syncthreads();
    float total = red[0];
    for (int i = t; i < C; i += bs)
        out[row * C + i] = x[i] / total;
}

// refused: the thread index kept in an unsigned char (threads t and t + 256 walk one set of
// elements): not the thread index the row loops must start at
__global__ void char_tid(float *out, const float *inp, int N, int C)
{
    extern __shared__ float red[];
    int row = blockIdx.x;
    unsigned char t = threadIdx.x;
    int bs = blockDim.x;
    const float *x = inp + row * C;
    float m = -INFINITY;
    for (int i = t; i < C; i += bs)
        m = fmaxf(m, x[i]);
    red[t] = m;
    for (int s = bs / 2; s >= 1; s /= 2) {
        __syncthreads();
        if (s > t)
            red[t] = fmaxf(red[t], red[t + s]);
    }
    __syncthreads();
    float off = red[0];
    for (int i = t; i < C; i += bs)
        out[row * C + i] = expf(x[i] - off);
    __syncthreads();
    x = out + row * C;
    float sum = 0.0f;
    for (int i = t; i < C; i += bs)
        sum += x[i];
    red[t] = sum;
    for (int s = bs / 2; s >= 1; s /= 2) {
        __syncthreads();
        if (s > t)
            red[t] += red[t + s];
    }
    __syncthreads();
    float total = red[0];
    for (int i = t; i < C; i += bs)
        out[row * C + i] = x[i] / total;
}

// refused: the row offset through a macro that reads the thread index (each group of 64
// threads its own row in the original; the pair reduction combines the whole block)
#define HK_WARP_ROW ((threadIdx.x / 64) * C)
__global__ void macro_off(float *out, const float *inp, int N, int C)
{
    extern __shared__ float red[];
    int row = blockIdx.x;
    int t = threadIdx.x;
    int bs = blockDim.x;
    const float *x = inp + HK_WARP_ROW;
    float m = -INFINITY;
    for (int i = t; i < C; i += bs)
        m = fmaxf(m, x[i]);
    red[t] = m;
    for (int s = bs / 2; s >= 1; s /= 2) {
        __syncthreads();
        if (s > t)
            red[t] = fmaxf(red[t], red[t + s]);
    }
    __syncthreads();
    float off = red[0];
    for (int i = t; i < C; i += bs)
        out[HK_WARP_ROW + i] = expf(x[i] - off);
    __syncthreads();
    x = out + HK_WARP_ROW;
    float sum = 0.0f;
    for (int i = t; i < C; i += bs)
        sum += x[i];
    red[t] = sum;
    for (int s = bs / 2; s >= 1; s /= 2) {
        __syncthreads();
        if (s > t)
            red[t] += red[t + s];
    }
    __syncthreads();
    float total = red[0];
    for (int i = t; i < C; i += bs)
        out[HK_WARP_ROW + i] = x[i] / total;
}
