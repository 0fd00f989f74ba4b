// Probe: exclusive scan of segments of `seg` consecutive elements (one per thread, seg a power
// of two dividing the block), the naive inclusive scan in a __device__ function over a shared
// array of zeros and values (each segment's 2 * seg slots), exclusive by subtraction.
__device__ unsigned segment_incl(unsigned x, volatile unsigned *buf, unsigned seg)
{
    unsigned at = 2 * threadIdx.x - (threadIdx.x & (seg - 1));
    buf[at] = 0;
    at += seg;
    buf[at] = x;
    for (unsigned step = 1; step < seg; step <<= 1) {
        __syncthreads();
        unsigned s = buf[at] + buf[at - step];
        __syncthreads();
        buf[at] = s;
    }
    return buf[at];
}

__global__ void rd_scan_devfn_seg(const unsigned *in, unsigned *out, unsigned seg, unsigned n)
{
    __shared__ unsigned buf[2 * 512];
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = g < n ? in[g] : 0u;
    unsigned incl = segment_incl(x, buf, seg);
    if (g < n)
        out[g] = incl - x;
}
