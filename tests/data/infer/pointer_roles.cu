// Which pointer parameters a kernel reads and writes when it reaches them through another
// pointer: passed to a __device__ function of this file (read there, written, both, through
// a second helper, through a local alias, an element passed by reference), passed to one
// whose body is not here, or cast to a wider type (stored, loaded, kept in a local). Every
// pointer that matters is non-const: its role comes from the body, not from the type.
// Function-like macros are followed like helpers. Read by tests/unit/test_spec_infer_roles.c.

__device__ float column_total(float *col, int rows, int stride)
{
    float s = 0.0f;
    for (int r = 0; r < rows; r++)
        s += col[r * stride];
    return s;
}

// src is only read, inside column_total.
__global__ void helper_reads(float *src, float *dst, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols)
        dst[c] = column_total(&src[c], rows, cols);
}

__device__ void put_pair(float *slot, float a, float b)
{
    slot[0] = a;
    slot[1] = b;
}

// y is only written, inside put_pair.
__global__ void helper_writes(float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        put_pair(y + 2 * i, x[i], -x[i]);
}

__device__ void damp(float *cell, float by)
{
    cell[0] = cell[0] * 0.5f + by;
}

// acc is read and written, inside damp.
__global__ void helper_updates(float *acc, float *inc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        damp(&acc[i], inc[i]);
}

__device__ void store_at(float *where, float v)
{
    *where = v;
}

__device__ void store_scaled(float *row, int j, float v, float s)
{
    store_at(row + j, v * s);
}

__device__ float load_at(float *where)
{
    return *where;
}

__device__ float load_via(float *row, int j)
{
    return load_at(row + j);
}

// Two levels of helpers: a is read (load_via -> load_at), b written (store_scaled ->
// store_at).
__global__ void helpers_nested(float *a, float *b, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        store_scaled(b, i, load_via(a, i), s);
}

__device__ void add_into(float &dst, float v)
{
    dst += v;
}

__device__ float doubled(float &v)
{
    return v + v;
}

// Through aliases: a local pointer made from the parameter, then passed on (mine is
// written, theirs read), and an element passed by reference (sum is added to, w only read).
__global__ void helper_aliases(float *mine, float *theirs, float *sum, float *w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float *row = mine + 2 * i;
        float *from = theirs + i;
        put_pair(row, load_at(from), 1.0f);
        add_into(sum[i], doubled(w[i]));
    }
}

// Elements bound to local references: hist's is added to (read and written), vals' only
// read, outs' only assigned.
__global__ void element_refs(float *hist, float *vals, float *outs, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float &slot = hist[i];
        float &v = vals[i];
        float &o = outs[i];
        slot += v;
        o = 2.0f * v;
    }
}

// Declared, defined elsewhere: what it does with its pointer is not in this file.
extern __device__ void elsewhere_touch(float *p, int n);

__global__ void helper_unseen(float *buf, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        elsewhere_touch(buf, n);
        out[i] = 1.0f;
    }
}

// A store through a cast to float4: out is written, src read (n4 float4s).
__global__ void cast_store(float *src, float *out, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = make_float4(src[4 * i], src[4 * i + 1], src[4 * i + 2], src[4 * i + 3]);
        ((float4 *)out)[i] = v;
    }
}

// Stores through a local pointer made from a cast: of an offset of the parameter (lo), of
// the parameter itself (hi, the way a template spells it).
template <typename V>
__global__ void cast_local(float *src, float *lo, float *hi, int n4, int off)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 *o = (float4 *)(lo + off);
        V *h = (V *)hi;
        float4 v = make_float4(src[i], src[i], src[i], src[i]);
        o[i] = v;
        h[i] = v;
    }
}

template __global__ void cast_local<float4>(float *, float *, float *, int, int);

// Loads through casts only: wide is read through a cast and through a local made from
// one; nothing stores into it.
__global__ void cast_reads(float *wide, float *sums, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = ((float4 *)wide)[i];
        const float4 *again = reinterpret_cast<const float4 *>(wide);
        float4 u = again[i];
        sums[i] = v.x + v.y + v.z + v.w + u.x;
    }
}

// Through function-like macros of the file: a store and a load spelled as macros (dst
// written, src only read), and a macro whose value is an element seen as a float4, stored
// into where it is used (wout written, win read).
#define PUT_AT(p, i, v) ((p)[i] = (v))
#define GET_AT(p, i) ((p)[i])
#define AS_VEC4(x) (reinterpret_cast<float4 *>(&(x))[0])

__global__ void macro_roles(float *src, float *dst, float *win, float *wout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        PUT_AT(dst, i, 2.0f * GET_AT(src, i));
        AS_VEC4(wout[4 * i]) = AS_VEC4(win[4 * i]);
    }
}
