// Probe: a block-wide exclusive scan in a __device__ function (unrolled Kogge-Stone passes over
// zeros and values in shared memory, the block's length a template parameter), called once
// per window as each block walks its contiguous region, seeded by the previous window.
template <class T, int BLOCK>
__device__ T block_exscan(T x, volatile T *sm)
{
    int k = threadIdx.x;
    sm[k] = 0;
    k += BLOCK;
    sm[k] = x;
    __syncthreads();
    T y;
    y = sm[k - 1];  __syncthreads();
    sm[k] += y;     __syncthreads();
    y = sm[k - 2];  __syncthreads();
    sm[k] += y;     __syncthreads();
    y = sm[k - 4];  __syncthreads();
    sm[k] += y;     __syncthreads();
    y = sm[k - 8];  __syncthreads();
    sm[k] += y;     __syncthreads();
    y = sm[k - 16]; __syncthreads();
    sm[k] += y;     __syncthreads();
    if (BLOCK > 32) {
        y = sm[k - 32];  __syncthreads();
        sm[k] += y;      __syncthreads();
    }
    if (BLOCK > 64) {
        y = sm[k - 64];  __syncthreads();
        sm[k] += y;      __syncthreads();
    }
    if (BLOCK > 128) {
        y = sm[k - 128]; __syncthreads();
        sm[k] += y;      __syncthreads();
    }
    if (BLOCK > 256) {
        y = sm[k - 256]; __syncthreads();
        sm[k] += y;      __syncthreads();
    }
    return sm[k - 1];
}

template <class T, int BLOCK>
__global__ void rd_scan_devfn_ks(const T *in, T *out, int n)
{
    extern __shared__ unsigned char smem[];
    T *sm = (T *)smem;
    __shared__ T carry;
    int len = (n + gridDim.x - 1) / gridDim.x;
    int lo = blockIdx.x * len, hi = min(n, lo + len);
    if (threadIdx.x == 0)
        carry = 0;
    __syncthreads();
    for (int base = lo; base < hi; base += BLOCK) {
        int i = base + threadIdx.x;
        T x = i < hi ? in[i] : T(0);
        T ex = block_exscan<T, BLOCK>(x, sm);
        if (i < hi)
            out[i] = carry + ex + x;
        __syncthreads();
        if (threadIdx.x == BLOCK - 1)
            carry += ex + x;
        __syncthreads();
    }
}
