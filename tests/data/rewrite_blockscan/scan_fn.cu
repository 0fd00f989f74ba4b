// block_scan's value scans in __device__ functions (session 50; our own code, in the style of
// the public suites): the array is laid out as zeros and values, the passes run in the function.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// unrolled Kogge-Stone passes, the block's length a template parameter; exclusive result
template <class T, int BS>
__device__ T ks_exclusive(const T v, volatile T *s)
{
    int idx = threadIdx.x;
    s[idx] = 0;
    idx += BS;
    s[idx] = v;
    __syncthreads();
    T t;
    t = s[idx - 1];  __syncthreads();
    s[idx] += t;     __syncthreads();
    t = s[idx - 2];  __syncthreads();
    s[idx] += t;     __syncthreads();
    t = s[idx - 4];  __syncthreads();
    s[idx] += t;     __syncthreads();
    t = s[idx - 8];  __syncthreads();
    s[idx] += t;     __syncthreads();
    t = s[idx - 16]; __syncthreads();
    s[idx] += t;     __syncthreads();
    if (BS > 32) {
        t = s[idx - 32]; __syncthreads();
        s[idx] += t;     __syncthreads();
    }
    if (BS > 64) {
        t = s[idx - 64]; __syncthreads();
        s[idx] += t;     __syncthreads();
    }
    if (BS > 128) {
        t = s[idx - 128]; __syncthreads();
        s[idx] += t;      __syncthreads();
    }
    return s[idx - 1];
}

// windows of a block's region scanned one after another, each seeded by the last (the call
// inside a loop); T int (exact) or float
template <class T, int BS>
__global__ void fn_windows(const T *in, T *out, int n)
{
    extern __shared__ unsigned char raw[];
    T *sh = (T *)raw;
    __shared__ T seed;
    if (threadIdx.x == 0)
        seed = 0;
    __syncthreads();
    int per = (n + gridDim.x - 1) / gridDim.x;
    int start = blockIdx.x * per, stop = min(n, start + per);
    for (int w = start; w < stop; w += BS) {
        int i = w + threadIdx.x;
        T v = i < stop ? in[i] : T(0);
        T ex = ks_exclusive<T, BS>(v, sh);
        if (i < stop)
            out[i] = ex + v + seed;
        __syncthreads();
        if (threadIdx.x == BS - 1)
            seed += ex + v;
        __syncthreads();
    }
}

// segments of len threads, the passes a loop with cg barriers (inclusive), reached through a
// second function
__device__ unsigned seg_inclusive(unsigned v, volatile unsigned *s, unsigned len, cg::thread_block cta)
{
    unsigned pos = 2 * threadIdx.x - (threadIdx.x & (len - 1));
    s[pos] = 0;
    pos += len;
    s[pos] = v;
    for (unsigned off = 1; off < len; off <<= 1) {
        cg::sync(cta);
        unsigned t = s[pos] + s[pos - off];
        cg::sync(cta);
        s[pos] = t;
    }
    return s[pos];
}

__device__ unsigned seg_exclusive(unsigned v, volatile unsigned *s, unsigned len, cg::thread_block cta)
{
    return seg_inclusive(v, s, len, cta) - v;
}

__global__ void fn_segments(const unsigned *in, unsigned *out, unsigned len, unsigned n)
{
    cg::thread_block cta = cg::this_thread_block();
    __shared__ unsigned buf[2 * 256];
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned r = seg_exclusive(g < n ? in[g] : 0u, buf, len, cta);
    if (g < n)
        out[g] = r;
}

// the loop form with the read first, long long; after the call the neighbour's element is
// read from the array (the memory the passes leave)
__device__ long long ll_scan(long long v, long long *s)
{
    int i = threadIdx.x;
    s[i] = 0;
    i += blockDim.x;
    s[i] = v;
    __syncthreads();
    for (int o = 1; o < blockDim.x; o *= 2) {
        long long t = s[i - o];
        __syncthreads();
        s[i] += t;
        __syncthreads();
    }
    return s[i];
}

__global__ void fn_ll(const int *in, long long *out, int n)
{
    extern __shared__ long long lsh[];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    long long v = g < n ? (long long)in[g] * 1000003ll : 0;
    long long incl = ll_scan(v, lsh);
    long long below = lsh[blockDim.x + threadIdx.x - 1];
    if (g < n)
        out[g] = incl * 3 + below;
}

// a per-thread array (not shared memory): the passes see only the thread's own elements;
// the test's __isShared keeps the original
__global__ void fn_local(const int *in, long long *out, int n)
{
    long long mine[2 * 64] = {};
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    long long r = ll_scan(g < n ? in[g] : 0, mine);
    if (g < n)
        out[g] = r;
}

// even and odd threads hand in different arrays: not the same pointer for every thread
__global__ void fn_split(const int *in, long long *out, int n)
{
    __shared__ long long two[2][2 * 256];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = threadIdx.x; k < 2 * 2 * 256; k += blockDim.x)
        two[k / 512][k % 512] = 5;
    __syncthreads();
    long long r = ll_scan(g < n ? in[g] : 0, two[threadIdx.x & 1]);
    if (g < n)
        out[g] = r;
}

// ---- near misses: refused ----

// a maximum, not a sum
__device__ int max_scan(int v, volatile int *s)
{
    int i = threadIdx.x;
    s[i] = 0;
    i += blockDim.x;
    s[i] = v;
    __syncthreads();
    for (int o = 1; o < blockDim.x; o <<= 1) {
        int t = s[i - o];
        __syncthreads();
        s[i] = max(s[i], t);
        __syncthreads();
    }
    return s[i];
}

__global__ void r_max(const int *in, int *out)
{
    __shared__ int m[512];
    out[threadIdx.x] = max_scan(in[threadIdx.x], m);
}

// the temporary an int over floats: the original truncates every partial sum
__device__ float trunc_scan(float v, float *s)
{
    int i = threadIdx.x;
    s[i] = 0.0f;
    i += blockDim.x;
    s[i] = v;
    __syncthreads();
    for (int o = 1; o < blockDim.x; o <<= 1) {
        int t = s[i - o];
        __syncthreads();
        s[i] += t;
        __syncthreads();
    }
    return s[i];
}

__global__ void r_temp(const float *in, float *out)
{
    __shared__ float f[512];
    out[threadIdx.x] = trunc_scan(in[threadIdx.x], f);
}

// the temporary read after the passes
__device__ int last_read(int v, int *s)
{
    int i = threadIdx.x;
    s[i] = 0;
    i += 256;
    s[i] = v;
    __syncthreads();
    int t;
    t = s[i - 1];  __syncthreads();
    s[i] += t;     __syncthreads();
    t = s[i - 2];  __syncthreads();
    s[i] += t;     __syncthreads();
    return s[i] + t;
}

__global__ void r_after(const int *in, int *out)
{
    __shared__ int a[512];
    out[threadIdx.x] = last_read(in[threadIdx.x], a);
}

// the segment length changed in the function
__device__ int len_written(int v, int *s, int len)
{
    int p = 2 * threadIdx.x - (threadIdx.x & (len - 1));
    s[p] = 0;
    p += len;
    s[p] = v;
    for (int o = 1; o < len; o <<= 1) {
        __syncthreads();
        int t = s[p] + s[p - o];
        __syncthreads();
        s[p] = t;
    }
    len = 0;
    return s[p] + len;
}

__global__ void r_len(const int *in, int *out, int len)
{
    __shared__ int a[512];
    out[threadIdx.x] = len_written(in[threadIdx.x], a, len);
}

// read and write in one pass, no barrier between: not a pass this rewrite reads
__device__ int racy(int v, int *s)
{
    int i = threadIdx.x;
    s[i] = 0;
    i += blockDim.x;
    s[i] = v;
    __syncthreads();
    for (int o = 1; o < blockDim.x; o <<= 1) {
        s[i] += s[i - o];
        __syncthreads();
    }
    return s[i];
}

__global__ void r_racy(const int *in, int *out)
{
    __shared__ int a[512];
    out[threadIdx.x] = racy(in[threadIdx.x], a);
}

// short elements
__device__ short short_scan(short v, short *s)
{
    int i = threadIdx.x;
    s[i] = 0;
    i += blockDim.x;
    s[i] = v;
    __syncthreads();
    for (int o = 1; o < blockDim.x; o <<= 1) {
        short t = s[i - o];
        __syncthreads();
        s[i] += t;
        __syncthreads();
    }
    return s[i];
}

__global__ void r_short(const short *in, short *out)
{
    __shared__ short a[512];
    out[threadIdx.x] = short_scan(in[threadIdx.x], a);
}

// unrolled passes without the layout's barrier: the first pass reads before the values are in
__device__ int no_bar(int v, int *s)
{
    int i = threadIdx.x;
    s[i] = 0;
    i += 64;
    s[i] = v;
    int t;
    t = s[i - 1];  __syncthreads();
    s[i] += t;     __syncthreads();
    return s[i];
}

__global__ void r_nobar(const int *in, int *out)
{
    __shared__ int a[128];
    out[threadIdx.x] = no_bar(in[threadIdx.x], a);
}

// the last pass under `if (...) { ... } else`: not a pass
__device__ int with_else(int v, int *s)
{
    int i = threadIdx.x;
    s[i] = 0;
    i += 64;
    s[i] = v;
    __syncthreads();
    int t;
    t = s[i - 1];  __syncthreads();
    s[i] += t;     __syncthreads();
    if (64 > 2) {
        t = s[i - 2];  __syncthreads();
        s[i] += t;     __syncthreads();
    } else {
        s[i] = 0;
    }
    return s[i];
}

__global__ void r_else(const int *in, int *out)
{
    __shared__ int a[128];
    out[threadIdx.x] = with_else(in[threadIdx.x], a);
}

// a __host__ __device__ function: not read (its host side could not hold the __shared__ test)
__host__ __device__ int hd_scan(int v, int *s)
{
#ifdef __CUDA_ARCH__
    int i = threadIdx.x;
    s[i] = 0;
    i += blockDim.x;
    s[i] = v;
    __syncthreads();
    for (int o = 1; o < blockDim.x; o *= 2) {
        int t = s[i - o];
        __syncthreads();
        s[i] += t;
        __syncthreads();
    }
    return s[i];
#else
    return v;
#endif
}

__global__ void r_hostdev(const int *in, int *out)
{
    __shared__ int a[512];
    out[threadIdx.x] = hd_scan(in[threadIdx.x], a);
}
