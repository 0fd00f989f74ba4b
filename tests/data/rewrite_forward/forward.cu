// store_forward's kernels (test_rewrites_forward): a block per row whose block-strided loops
// store a value and read it back in a later pass. Our own spellings; the refusals below them.
#include <math.h>

// softmax as llm.c's softmax_forward_kernel2 spells it: the row pointer re-pointed at the
// output between the passes, one dynamic shared array for both trees
__global__ void soft_rows(float *out, const float *inp, int N, int C)
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

// centre a row on a given mean, store it, read it back for the sum of squares, scale it in
// place: a 64-bit row offset, a compound store, blockDim.x as the step
__global__ void center_rows(float *y, const float *x, const float *mean, int C)
{
    __shared__ float acc[256];
    const unsigned tid = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * C;
    const float mu = mean[blockIdx.x];
    for (int j = tid; j < C; j += blockDim.x)
        y[base + j] = x[base + j] - mu;
    float ss = 0.0f;
    for (int j = tid; j < C; j += blockDim.x)
        ss += y[base + j] * y[base + j];
    acc[tid] = ss;
    __syncthreads();
    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
        if (h > tid)
            acc[tid] += acc[tid + h];
        __syncthreads();
    }
    const float rs = rsqrtf(acc[0] / C + 1e-5f);
    for (int j = tid; j < C; j += blockDim.x)
        y[base + j] *= rs;
}

// a stored product is read back from memory (forwarded, fmad could fuse it into the add);
// the input read in both loops is kept in registers when the row fits
__global__ void scaled_rows(float *y, const float *x, const float *w, int C)
{
    const int tid = threadIdx.x;
    float *yr = y + blockIdx.x * C;
    const float *xr = x + blockIdx.x * C;
    for (int k = tid; k < C; k += blockDim.x)
        yr[k] = xr[k] * w[k];
    __syncthreads();
    for (int k = tid; k < C; k += blockDim.x)
        yr[k] = yr[k] + xr[k];
}

// ---- refused ----

// the second pass reads the neighbour's element, which another thread stored
__global__ void next_elem(float *out, const float *inp, int C)
{
    int t = threadIdx.x;
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = inp[blockIdx.x * C + i] + 1.0f;
    __syncthreads();
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = out[blockIdx.x * C + i + 1] * 0.5f;
}

// an atomic on the row
__global__ void atomic_row(float *out, const float *inp, int C)
{
    int t = threadIdx.x;
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = inp[blockIdx.x * C + i] + 1.0f;
    for (int i = t; i < C; i += blockDim.x)
        atomicAdd(&out[blockIdx.x * C + i], 1.0f);
}

// a thread may leave between the store and the store that overwrites it
__global__ void leaves_early(float *out, const float *inp, const int *skip, int C)
{
    int t = threadIdx.x;
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = inp[blockIdx.x * C + i] + 1.0f;
    if (skip[blockIdx.x])
        return;
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = out[blockIdx.x * C + i] + 2.0f;
}

// the second loop stops one short: not the same elements
__global__ void short_loop(float *out, const float *inp, int C)
{
    int t = threadIdx.x;
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = inp[blockIdx.x * C + i] + 1.0f;
    for (int i = t; i < C - 1; i += blockDim.x)
        out[blockIdx.x * C + i] = out[blockIdx.x * C + i] + 2.0f;
}

// thread 0 reads the row's first element after the loops
__global__ void read_after(float *out, float *first, const float *inp, int C)
{
    int t = threadIdx.x;
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = inp[blockIdx.x * C + i] + 1.0f;
    __syncthreads();
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = out[blockIdx.x * C + i] + 2.0f;
    if (t == 0)
        first[blockIdx.x] = out[blockIdx.x * C];
}

// a condition in the loop: the store may not happen
__global__ void guarded(float *out, const float *inp, int C)
{
    int t = threadIdx.x;
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = inp[blockIdx.x * C + i] + 1.0f;
    for (int i = t; i < C; i += blockDim.x) {
        if (out[blockIdx.x * C + i] > 0.0f)
            out[blockIdx.x * C + i] = 0.0f;
    }
}

// ---- applies, with less forwarded ----

// the input is rewritten in place after the store, and a local the stored value names changes
// before the read: the register form still forwards (the register holds the value stored), the
// recomputed form keeps the store and reads it back (the input no longer gives it)
__global__ void input_moves(float *out, float *inp, int C)
{
    __shared__ float part[256];
    const int t = threadIdx.x;
    float *xr = inp + blockIdx.x * C;
    float *yr = out + blockIdx.x * C;
    float g = 0.5f;
    for (int i = t; i < C; i += blockDim.x)
        yr[i] = xr[i] - g;
    for (int i = t; i < C; i += blockDim.x)
        xr[i] = xr[i] + 1.0f;
    g = 2.0f;
    __syncthreads();
    float s = 0.0f;
    for (int i = t; i < C; i += blockDim.x)
        s += yr[i];
    part[t] = s;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (h > t)
            part[t] += part[t + h];
        __syncthreads();
    }
    const float tot = part[0];
    for (int i = t; i < C; i += blockDim.x)
        yr[i] = yr[i] / tot + g;
}

// ---- refused (continued) ----

// the loop variable moves inside the body
__global__ void var_moves(float *out, const float *inp, int C)
{
    int t = threadIdx.x;
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = inp[blockIdx.x * C + i] + 1.0f;
    for (int i = t; i < C; i += blockDim.x) {
        out[blockIdx.x * C + i] = out[blockIdx.x * C + i] * 2.0f;
        i += 0;
    }
}

// the row offset is a macro that reads the thread index: rows per warp, not per block
#define WARP_ROW (blockIdx.x * 4 + threadIdx.x / 32)
__global__ void warp_offset(float *out, const float *inp, int C)
{
    int t = threadIdx.x;
    for (int i = t; i < C; i += blockDim.x)
        out[WARP_ROW * C + i] = inp[WARP_ROW * C + i] + 1.0f;
    for (int i = t; i < C; i += blockDim.x)
        out[WARP_ROW * C + i] = out[WARP_ROW * C + i] + 2.0f;
}

// a local of the second loop hides the parameter the stored value names
__global__ void hides_param(float *out, const float *inp, float scale, int C)
{
    int t = threadIdx.x;
    for (int i = t; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = inp[blockIdx.x * C + i] + scale;
    for (int i = t; i < C; i += blockDim.x) {
        float scale = 2.0f;
        out[blockIdx.x * C + i] = out[blockIdx.x * C + i] - scale;
    }
}

// the loops' bound read from memory: not shown the same for every pass (session 44 review)
__global__ void deref_bound(float *out, const float *inp, const int *len)
{
    int t = threadIdx.x;
    for (int i = t; i < *len; i += blockDim.x)
        out[blockIdx.x * 4096 + i] = inp[blockIdx.x * 4096 + i] + 1.0f;
    __syncthreads();
    for (int i = t; i < *len; i += blockDim.x)
        out[blockIdx.x * 4096 + i] = out[blockIdx.x * 4096 + i] + 2.0f;
}

// the stored value is a product named in another statement: forwarded, nvcc could contract
// it into the reader's add, which the store's rounding prevented
__global__ void named_product(float *out, float *sums, const float *inp, float w, int C)
{
    int t = threadIdx.x;
    float s = 0.0f;
    for (int i = t; i < C; i += blockDim.x) {
        float v = inp[blockIdx.x * C + i] * w;
        out[blockIdx.x * C + i] = v;
    }
    for (int i = t; i < C; i += blockDim.x)
        s += out[blockIdx.x * C + i];
    sums[blockIdx.x * blockDim.x + t] = s;
}

// ---- session 45: buffers read beside the rows (applies; the run-time test covers them) ----

// a bias read beside the row accesses (its index in parentheses is not a row access): passed
// the output (bias == out), it reads what the first loop stored, which the register form drops
__global__ void bias_rows(float *out, const float *inp, const float *bias, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + bias[(row * C + i)];
}

// the same through a local copy of the pointer (not an alias `b = bias + OFF`: an address)
__global__ void bias_copy(float *out, const float *inp, const float *bias, int C)
{
    const int row = blockIdx.x;
    const float *b = &bias[row * C];
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + b[i];
}

// refused: a pointer to pointers may reach the output's row
__global__ void bias_table(float *out, const float *inp, const float *const *bias, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + bias[row][i];
}

// refused: a structure passed by value whose pointer member may be the output
struct bias_args {
    const float *bias;
    int stride;
};
__global__ void bias_member(float *out, const float *inp, bias_args a, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + a.bias[(row * a.stride + i)];
}

// refused: the file's launch passes the output as the bias (bias_rows' body): they are one,
// always, so the run-time test would always take the original
__global__ void bias_launched(float *out, const float *inp, const float *bias, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + bias[(row * C + i)];
}

void run_bias_launched(float *d_out, const float *d_inp, int rows, int C)
{
    bias_launched<<<rows, 256>>>(d_out, d_inp, d_out, C);
}

// refused: a structure's member named x may be a pointer (only a vector type's x is a value)
struct vec_args {
    const float *x;
    int stride;
};
__global__ void bias_member_x(float *out, const float *inp, vec_args a, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + a.x[(row * C + i)];
}

// refused: a pointer to a structure: the test would compare `a`, not its member
__global__ void bias_arrow(float *out, const float *inp, const bias_args *a, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + a->bias[(row * C + i)];
}

// refused: a __device__ pointer of the file the host may set to the output
__device__ const float *g_bias;
__global__ void bias_global(float *out, const float *inp, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + g_bias[(row * C + i)];
}

// refused: a template-typed parameter may be instantiated as a pointer
template <typename P>
__global__ void bias_tparam(float *out, const float *inp, P bias, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + bias[(row * C + i)];
}

// refused: an element that is a structure (its member may be the output)
__global__ void bias_elem_member(float *out, const float *inp, const bias_args *a, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + a[0].bias[(row * C + i)];
}

// refused: through a template type an element may be a pointer (`b[0]` the output)
template <typename T>
__global__ void bias_tptr(float *out, const float *inp, const T *b, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + b[0][(row * C + i)];
}

// refused (session 45 final read): the file's pointer in other spellings -- a dereference of a
// sum, a copy in parentheses, __ldg of a sum (each applied before)
__global__ void bias_global_deref(float *out, const float *inp, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + *(g_bias + row * C + i);
}

__global__ void bias_global_paren(float *out, const float *inp, int C)
{
    const int row = blockIdx.x;
    const float *b = (g_bias);
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + b[row * C + i];
}

__global__ void bias_global_ldg(float *out, const float *inp, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + __ldg(g_bias + row * C + i);
}

// ---- session 46 (issue 13): memory the pointer parameters' test does not name, reached
// between the first row loop and the end of the last (each applied at main 18e2dd8a) ----

// refused: a pointer returned by a function of the file (it may return the output)
__device__ const float *get_bias() { return g_bias; }
__global__ void bias_getter(float *out, const float *inp, int C)
{
    const int row = blockIdx.x;
    const float *b = get_bias();
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + b[row * C + i];
}

// refused: a function of the file reading (or writing) memory between the loops: with
// g_bias == out it reads thread 0's first stored element, which the register form drops
__device__ float bias_at(int k) { return g_bias[k]; }
__global__ void bias_reader(float *out, const float *inp, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    __syncthreads();
    const float v = bias_at(row * C);
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + v;
}

// refused: the file's pointer by a qualified name
namespace hk_test {
__device__ const float *g_bias2;
}
__global__ void bias_qualified(float *out, const float *inp, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + hk_test::g_bias2[row * C + i];
}

// refused: a pointer made from an integer parameter, through a typedef, read by __ldg
typedef const float *bias_ptr;
__global__ void bias_address(float *out, const float *inp, unsigned long long addr, int C)
{
    const int row = blockIdx.x;
    bias_ptr b = (bias_ptr)addr;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + __ldg(b + row * C + i);
}

// refused: the same pointer as a cast's value, subscripted
__global__ void bias_cast(float *out, const float *inp, unsigned long long addr, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + ((const float *)addr)[row * C + i];
}

// refused: a macro of the file reading the file's pointer
#define HK_FIRST_BIAS (g_bias[0])
__global__ void bias_macro(float *out, const float *inp, int C)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    __syncthreads();
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] + HK_FIRST_BIAS;
}

// refused: an early exit between the loops spelled by a macro (the first loop's store is
// dropped as overwritten by the second, which then never runs)
#define HK_LEAVE return
__global__ void exit_macro(float *out, const float *inp, int C, int stop)
{
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = inp[row * C + i] + 1.0f;
    if (stop)
        HK_LEAVE;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[row * C + i] = out[row * C + i] * 2.0f;
}
