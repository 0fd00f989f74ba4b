// block_scan's kernels (tests/unit/test_rewrites_blockscan.c), our own: per-block scans in
// shared memory that the rewrite turns into warp-shuffle scans, and near misses it refuses.
#define NB 64
#define NI 32

// Hillis-Steele over two buffers of dynamic shared memory, int, unsigned indices: inclusive.
__global__ void hs_int(const int *in, int *out, unsigned n)
{
    extern __shared__ int sh[];
    unsigned t = threadIdx.x;
    unsigned g = blockIdx.x * blockDim.x + t;
    int pout = 0, pin = 1;
    sh[t] = g < n ? in[g] : 0;
    __syncthreads();
    for (unsigned off = 1; off < blockDim.x; off <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= off)
            sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t] + sh[pin * blockDim.x + t - off];
        else
            sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t];
        __syncthreads();
    }
    if (g < n)
        out[g] = sh[pout * blockDim.x + t];
}

// the same over a sized array of unsigned, int indices; exclusive (the input shifted by one)
__global__ void hs_uexcl(const unsigned *in, unsigned *out, int n)
{
    __shared__ unsigned int temp[2 * 256];
    int tid = threadIdx.x;
    int g = blockIdx.x * blockDim.x + tid;
    int a = 0, b = 1;
    temp[tid] = (tid > 0 && g - 1 < n) ? in[g - 1] : 0u;
    __syncthreads();
    for (int s = 1; s < blockDim.x; s <<= 1) {
        a = 1 - a;
        b = 1 - a;
        if (tid >= s)
            temp[a * blockDim.x + tid] = temp[b * blockDim.x + tid] + temp[b * blockDim.x + tid - s];
        else
            temp[a * blockDim.x + tid] = temp[b * blockDim.x + tid];
        __syncthreads();
    }
    if (g < n)
        out[g] = temp[a * blockDim.x + tid];
}

// size_t elements (a count of bytes), inclusive
__global__ void hs_size(const unsigned char *len, size_t *out, int n)
{
    extern __shared__ size_t acc[];
    const unsigned int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    int po = 0, pi = 1;
    acc[t] = g < n ? (size_t)len[g] * 1000003ull : 0;
    __syncthreads();
    for (unsigned int d = 1; d < blockDim.x; d <<= 1) {
        po = 1 - po;
        pi = 1 - po;
        if (t >= d)
            acc[po * blockDim.x + t] = acc[pi * blockDim.x + t] + acc[pi * blockDim.x + t - d];
        else
            acc[po * blockDim.x + t] = acc[pi * blockDim.x + t];
        __syncthreads();
    }
    if (g < n)
        out[g] = acc[po * blockDim.x + t];
}

// up-sweep/down-sweep over 2 * NB floats, the block's total kept: exclusive
__global__ void bl_float(const float *in, float *out, float *block_sums, int n)
{
    __shared__ float tmp[2 * NB];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * NB;
    tmp[2 * t] = (base + 2 * t < n) ? in[base + 2 * t] : 0.0f;
    tmp[2 * t + 1] = (base + 2 * t + 1 < n) ? in[base + 2 * t + 1] : 0.0f;
    int offset = 1;
    for (int d = NB; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            tmp[bi] += tmp[ai];
        }
        offset *= 2;
    }
    if (t == 0) {
        block_sums[blockIdx.x] = tmp[2 * NB - 1];
        tmp[2 * NB - 1] = 0.0f;
    }
    for (int d = 1; d < 2 * NB; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            float a = tmp[ai];
            tmp[ai] = tmp[bi];
            tmp[bi] += a;
        }
    }
    __syncthreads();
    if (base + 2 * t < n)
        out[base + 2 * t] = tmp[2 * t];
    if (base + 2 * t + 1 < n)
        out[base + 2 * t + 1] = tmp[2 * t + 1];
}

// the same over extern shared ints, one warp (NI threads), made inclusive after the scan;
// the loads each thread makes are another thread's pair (t and t + NI)
__global__ void bl_int_incl(const int *in, int *out, int n)
{
    extern __shared__ int s[];
    unsigned t = threadIdx.x;
    int base = blockIdx.x * 2 * NI;
    s[t] = base + (int)t < n ? in[base + t] : 0;
    s[t + NI] = base + (int)t + NI < n ? in[base + t + NI] : 0;
    unsigned off = 1;
    for (unsigned d = NI; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            unsigned ai = off * (2 * t + 1) - 1;
            unsigned bi = off * (2 * t + 2) - 1;
            s[bi] += s[ai];
        }
        off *= 2;
    }
    if (t == 0)
    {
        s[2 * NI - 1] = 0;
    }
    for (unsigned d = 1; d < 2 * NI; d *= 2) {
        off >>= 1;
        __syncthreads();
        if (t < d) {
            unsigned ai = off * (2 * t + 1) - 1;
            unsigned bi = off * (2 * t + 2) - 1;
            int a = s[ai];
            s[ai] = s[bi];
            s[bi] += a;
        }
    }
    __syncthreads();
    if (base + (int)t < n)
        out[base + t] = s[t] + in[base + t];
    if (base + (int)t + NI < n)
        out[base + t + NI] = s[t + NI] + in[base + t + NI];
}

// ---- near misses ----

// max instead of +
__global__ void hs_max(const int *in, int *out, unsigned n)
{
    extern __shared__ int sh[];
    unsigned t = threadIdx.x;
    unsigned g = blockIdx.x * blockDim.x + t;
    int pout = 0, pin = 1;
    sh[t] = g < n ? in[g] : 0;
    __syncthreads();
    for (unsigned off = 1; off < blockDim.x; off <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= off)
            sh[pout * blockDim.x + t] = max(sh[pin * blockDim.x + t], sh[pin * blockDim.x + t - off]);
        else
            sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t];
        __syncthreads();
    }
    if (g < n)
        out[g] = sh[pout * blockDim.x + t];
}

// a conditional pass: the elements past n are not added
__global__ void hs_cond(const int *in, int *out, unsigned n)
{
    extern __shared__ int sh[];
    unsigned t = threadIdx.x;
    unsigned g = blockIdx.x * blockDim.x + t;
    int pout = 0, pin = 1;
    sh[t] = g < n ? in[g] : 0;
    __syncthreads();
    for (unsigned off = 1; off < blockDim.x; off <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= off && g < n)
            sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t] + sh[pin * blockDim.x + t - off];
        else
            sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t];
        __syncthreads();
    }
    if (g < n)
        out[g] = sh[pout * blockDim.x + t];
}

// the other buffer read after the scan (its last pass but one)
__global__ void hs_reads_pin(const int *in, int *out, unsigned n)
{
    extern __shared__ int sh[];
    unsigned t = threadIdx.x;
    unsigned g = blockIdx.x * blockDim.x + t;
    int pout = 0, pin = 1;
    sh[t] = g < n ? in[g] : 0;
    __syncthreads();
    for (unsigned off = 1; off < blockDim.x; off <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= off)
            sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t] + sh[pin * blockDim.x + t - off];
        else
            sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t];
        __syncthreads();
    }
    if (g < n)
        out[g] = sh[pout * blockDim.x + t] - sh[pin * blockDim.x + t];
}

// the array's address escapes
__global__ void hs_alias(const int *in, int *out, unsigned n)
{
    extern __shared__ int sh[];
    int *view = sh;
    unsigned t = threadIdx.x;
    unsigned g = blockIdx.x * blockDim.x + t;
    int pout = 0, pin = 1;
    sh[t] = g < n ? in[g] : 0;
    __syncthreads();
    for (unsigned off = 1; off < blockDim.x; off <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= off)
            sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t] + sh[pin * blockDim.x + t - off];
        else
            sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t];
        __syncthreads();
    }
    if (g < n)
        out[g] = view[t];
}

// the index is not the thread's own (a reversed block)
__global__ void hs_reversed(const int *in, int *out, unsigned n)
{
    extern __shared__ int sh[];
    unsigned t = blockDim.x - 1 - threadIdx.x;
    unsigned g = blockIdx.x * blockDim.x + t;
    int pout = 0, pin = 1;
    sh[t] = g < n ? in[g] : 0;
    __syncthreads();
    for (unsigned off = 1; off < blockDim.x; off <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= off)
            sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t] + sh[pin * blockDim.x + t - off];
        else
            sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t];
        __syncthreads();
    }
    if (g < n)
        out[g] = sh[pout * blockDim.x + t];
}

// short elements: no shuffle of its own
__global__ void hs_short(const short *in, short *out, unsigned n)
{
    extern __shared__ short hs[];
    unsigned t = threadIdx.x;
    unsigned g = blockIdx.x * blockDim.x + t;
    int pout = 0, pin = 1;
    hs[t] = g < n ? in[g] : 0;
    __syncthreads();
    for (unsigned off = 1; off < blockDim.x; off <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= off)
            hs[pout * blockDim.x + t] = hs[pin * blockDim.x + t] + hs[pin * blockDim.x + t - off];
        else
            hs[pout * blockDim.x + t] = hs[pin * blockDim.x + t];
        __syncthreads();
    }
    if (g < n)
        out[g] = hs[pout * blockDim.x + t];
}

// thread 0 sets the identity to 1, not 0
__global__ void bl_one(const float *in, float *out, int n)
{
    __shared__ float tmp[2 * NB];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * NB;
    tmp[2 * t] = (base + 2 * t < n) ? in[base + 2 * t] : 0.0f;
    tmp[2 * t + 1] = (base + 2 * t + 1 < n) ? in[base + 2 * t + 1] : 0.0f;
    int offset = 1;
    for (int d = NB; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            tmp[bi] += tmp[ai];
        }
        offset *= 2;
    }
    if (t == 0) {
        tmp[2 * NB - 1] = 1.0f;
    }
    for (int d = 1; d < 2 * NB; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            float a = tmp[ai];
            tmp[ai] = tmp[bi];
            tmp[bi] += a;
        }
    }
    __syncthreads();
    if (base + 2 * t < n)
        out[base + 2 * t] = tmp[2 * t];
}

// the down-sweep over 4 * NB elements: not the up-sweep's 2 * NB
__global__ void bl_sizes(const float *in, float *out, int n)
{
    __shared__ float tmp[4 * NB];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * NB;
    tmp[2 * t] = (base + 2 * t < n) ? in[base + 2 * t] : 0.0f;
    tmp[2 * t + 1] = (base + 2 * t + 1 < n) ? in[base + 2 * t + 1] : 0.0f;
    int offset = 1;
    for (int d = NB; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            tmp[bi] += tmp[ai];
        }
        offset *= 2;
    }
    if (t == 0) {
        tmp[2 * NB - 1] = 0.0f;
    }
    for (int d = 1; d < 4 * NB; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            float a = tmp[ai];
            tmp[ai] = tmp[bi];
            tmp[bi] += a;
        }
    }
    __syncthreads();
    if (base + 2 * t < n)
        out[base + 2 * t] = tmp[2 * t];
}

// the stride read after the sweeps
__global__ void bl_offset_after(const float *in, float *out, int n)
{
    __shared__ float tmp[2 * NB];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * NB;
    tmp[2 * t] = (base + 2 * t < n) ? in[base + 2 * t] : 0.0f;
    tmp[2 * t + 1] = (base + 2 * t + 1 < n) ? in[base + 2 * t + 1] : 0.0f;
    int offset = 1;
    for (int d = NB; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            tmp[bi] += tmp[ai];
        }
        offset *= 2;
    }
    if (t == 0) {
        tmp[2 * NB - 1] = 0.0f;
    }
    for (int d = 1; d < 2 * NB; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            float a = tmp[ai];
            tmp[ai] = tmp[bi];
            tmp[bi] += a;
        }
    }
    __syncthreads();
    if (base + 2 * t < n)
        out[base + 2 * t] = tmp[2 * t] * offset;
}

// a scan inside a loop over segments: a read before it in the text comes after it in time
__global__ void hs_looped(const int *in, int *out, unsigned n, int segs)
{
    extern __shared__ int sh[];
    unsigned t = threadIdx.x;
    int pout = 0, pin = 1;
    int carry = 0;
    for (int k = 0; k < segs; k++) {
        unsigned g = (blockIdx.x * segs + k) * blockDim.x + t;
        carry += sh[pin * blockDim.x + t];
        sh[pout * blockDim.x + t] = g < n ? in[g] : 0;
        __syncthreads();
        for (unsigned off = 1; off < blockDim.x; off <<= 1) {
            pout = 1 - pout;
            pin = 1 - pout;
            if (t >= off)
                sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t] + sh[pin * blockDim.x + t - off];
            else
                sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t];
            __syncthreads();
        }
        if (g < n)
            out[g] = sh[pout * blockDim.x + t] + carry;
    }
}

// the passes in a device function the array is handed to
__device__ int scan_in(volatile int *s, int v)
{
    unsigned t = threadIdx.x;
    s[t] = v;
    for (unsigned off = 1; off < blockDim.x; off <<= 1) {
        __syncthreads();
        int x = t >= off ? s[t - off] : 0;
        __syncthreads();
        s[t] += x;
    }
    __syncthreads();
    return s[t];
}

__global__ void hs_in_call(const int *in, int *out, unsigned n)
{
    __shared__ int part[256];
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    int r = scan_in(part, g < n ? in[g] : 0);
    if (g < n)
        out[g] = r;
}

// the buffer flag reset after the scan: the read names buffer 0 whatever the trip count
__global__ void hs_flag_reset(const int *in, int *out, unsigned n)
{
    extern __shared__ int sh[];
    unsigned t = threadIdx.x;
    unsigned g = blockIdx.x * blockDim.x + t;
    int pout = 0, pin = 1;
    sh[t] = g < n ? in[g] : 0;
    __syncthreads();
    for (unsigned off = 1; off < blockDim.x; off <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= off)
            sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t] + sh[pin * blockDim.x + t - off];
        else
            sh[pout * blockDim.x + t] = sh[pin * blockDim.x + t];
        __syncthreads();
    }
    pout = 0;
    if (g < n)
        out[g] = sh[pout * blockDim.x + t];
}

// thread 0 changes the stride between the sweeps
__global__ void bl_stride_mid(const float *in, float *out, int n)
{
    __shared__ float tmp[2 * NB];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * NB;
    tmp[2 * t] = (base + 2 * t < n) ? in[base + 2 * t] : 0.0f;
    tmp[2 * t + 1] = (base + 2 * t + 1 < n) ? in[base + 2 * t + 1] : 0.0f;
    int offset = 1;
    for (int d = NB; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            tmp[bi] += tmp[ai];
        }
        offset *= 2;
    }
    if (t == 0) {
        tmp[2 * NB - 1] = 0.0f;
        offset = NB;
    }
    for (int d = 1; d < 2 * NB; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            float a = tmp[ai];
            tmp[ai] = tmp[bi];
            tmp[bi] += a;
        }
    }
    __syncthreads();
    if (base + 2 * t < n)
        out[base + 2 * t] = tmp[2 * t];
}

// the sweeps as tests/data/styles/misc.cu spells them: the stride set before the loads, thread
// 0's statement unbraced, int elements (exact)
__global__ void bl_int_plain(const int *in, int *out, int n)
{
    __shared__ int temp[2 * NB];
    int thid = threadIdx.x;
    int base = blockIdx.x * 2 * NB;
    int offset = 1;
    temp[2 * thid] = (base + 2 * thid < n) ? in[base + 2 * thid] : 0;
    temp[2 * thid + 1] = (base + 2 * thid + 1 < n) ? in[base + 2 * thid + 1] : 0;
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
            int t = temp[ai];
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

// the stride set to 1 only under a condition
__global__ void bl_stride_cond(const int *in, int *out, int n, int k)
{
    __shared__ int temp[2 * NB];
    int thid = threadIdx.x;
    int base = blockIdx.x * 2 * NB;
    int offset = k;
    if (k != 1)
        offset = 1;
    temp[2 * thid] = (base + 2 * thid < n) ? in[base + 2 * thid] : 0;
    temp[2 * thid + 1] = (base + 2 * thid + 1 < n) ? in[base + 2 * thid + 1] : 0;
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
            int t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();
    if (base + 2 * thid < n)
        out[base + 2 * thid] = temp[2 * thid];
}

// near miss (rev49): the down-sweep's temporary is an int over float elements: the original
// truncates every partial sum it moves, a warp scan would not
__global__ void bl_temp_int(const float *in, float *out, float *block_sums, int n)
{
    __shared__ float tmp[2 * NB];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * NB;
    tmp[2 * t] = (base + 2 * t < n) ? in[base + 2 * t] : 0.0f;
    tmp[2 * t + 1] = (base + 2 * t + 1 < n) ? in[base + 2 * t + 1] : 0.0f;
    int offset = 1;
    for (int d = NB; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            tmp[bi] += tmp[ai];
        }
        offset *= 2;
    }
    if (t == 0) {
        block_sums[blockIdx.x] = tmp[2 * NB - 1];
        tmp[2 * NB - 1] = 0.0f;
    }
    for (int d = 1; d < 2 * NB; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1;
            int bi = offset * (2 * t + 2) - 1;
            int a = tmp[ai];
            tmp[ai] = tmp[bi];
            tmp[bi] += a;
        }
    }
    __syncthreads();
    if (base + 2 * t < n)
        out[base + 2 * t] = tmp[2 * t];
    if (base + 2 * t + 1 < n)
        out[base + 2 * t + 1] = tmp[2 * t + 1];
}

// ---- Hillis-Steele in one buffer (session 50) ----

// read, barrier, add, barrier; int over extern memory, the sums of the block after it
__global__ void hs1_int(const int *in, int *out, int *block_sum, int n)
{
    extern __shared__ int h1sum[];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    h1sum[t] = g < n ? in[g] : 0;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off *= 2) {
        int v = t >= off ? h1sum[t - off] : 0;
        __syncthreads();
        h1sum[t] += v;
        __syncthreads();
    }
    if (g < n)
        out[g] = h1sum[t];
    if (t == 0)
        block_sum[blockIdx.x] = h1sum[blockDim.x - 1];
}

// barrier first, the read under an if; unsigned, inside a loop over tiles with a carry read
// from the last element
__global__ void hs1_tiles(const unsigned *in, unsigned *out, int n)
{
    __shared__ unsigned tile[256];
    unsigned t = threadIdx.x;
    unsigned carry = 0;
    for (int base = blockIdx.x * 4 * blockDim.x; base < (blockIdx.x + 1) * 4 * blockDim.x; base += blockDim.x) {
        int g = base + t;
        tile[t] = g < n ? in[g] : 0u;
        for (unsigned off = 1; off < blockDim.x; off <<= 1) {
            __syncthreads();
            unsigned v = 0;
            if (t >= off)
                v = tile[t - off];
            __syncthreads();
            tile[t] += v;
        }
        __syncthreads();
        if (g < n)
            out[g] = tile[t] + carry;
        carry += tile[blockDim.x - 1];
        __syncthreads();
    }
}

// float, exclusive by the element below after the scan
__global__ void hs1_float(const float *in, float *out, int n)
{
    extern __shared__ float h1f[];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    h1f[t] = g < n ? in[g] : 0.0f;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        float v = 0.0f;
        if (t >= off) {
            v = h1f[t - off];
        }
        __syncthreads();
        h1f[t] += v;
        __syncthreads();
    }
    if (g < n)
        out[g] = t > 0 ? h1f[t - 1] : 0.0f;
}

// refused: the temporary an int over floats (the original truncates each partial sum)
__global__ void hs1_trunc(const float *in, float *out, int n)
{
    extern __shared__ float h1t[];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    h1t[t] = g < n ? in[g] : 0.0f;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        int v = t >= off ? h1t[t - off] : 0;
        __syncthreads();
        h1t[t] += v;
        __syncthreads();
    }
    if (g < n)
        out[g] = h1t[t];
}

// ---- maximum and minimum (session 50) ----

// the running minimum, unsigned, the lower value first
__global__ void hs_umin(const unsigned *in, unsigned *out, unsigned n)
{
    extern __shared__ unsigned um[];
    unsigned t = threadIdx.x;
    unsigned g = blockIdx.x * blockDim.x + t;
    int pout = 0, pin = 1;
    um[t] = g < n ? in[g] : 0xffffffffu;
    __syncthreads();
    for (unsigned off = 1; off < blockDim.x; off <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= off)
            um[pout * blockDim.x + t] = min(um[pin * blockDim.x + t - off], um[pin * blockDim.x + t]);
        else
            um[pout * blockDim.x + t] = um[pin * blockDim.x + t];
        __syncthreads();
    }
    if (g < n)
        out[g] = um[pout * blockDim.x + t];
}

// refused: the running maximum of floats
__global__ void hs_fmax(const float *in, float *out, unsigned n)
{
    extern __shared__ float fm[];
    unsigned t = threadIdx.x;
    unsigned g = blockIdx.x * blockDim.x + t;
    int pout = 0, pin = 1;
    fm[t] = g < n ? in[g] : 0.0f;
    __syncthreads();
    for (unsigned off = 1; off < blockDim.x; off <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (t >= off)
            fm[pout * blockDim.x + t] = max(fm[pin * blockDim.x + t], fm[pin * blockDim.x + t - off]);
        else
            fm[pout * blockDim.x + t] = fm[pin * blockDim.x + t];
        __syncthreads();
    }
    if (g < n)
        out[g] = fm[pout * blockDim.x + t];
}

// review (session 50): in one buffer with the barrier at the start of each pass, and the
// elements loaded by other threads (thread t loads its mirror's element) with no barrier
// before the loop: the first pass's leading barrier orders the loads before any read
__global__ void hs1_mirror(const int *in, int *out, int n)
{
    extern __shared__ int hm[];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    int m = blockDim.x - 1 - t;
    int gm = blockIdx.x * blockDim.x + m;
    hm[m] = gm < n ? in[gm] : 0;
    for (int off = 1; off < blockDim.x; off <<= 1) {
        __syncthreads();
        int v = t >= off ? hm[t - off] : 0;
        __syncthreads();
        hm[t] += v;
    }
    __syncthreads();
    if (g < n)
        out[g] = hm[t];
}
