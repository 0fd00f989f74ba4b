// Kernels without bounds checks: one element per thread launched, however many that is.
// No size parameter at all: the launch alone decides how much is touched.
__global__ void blend(const float *x, const float *y, float *z, float w)
{
    int t = threadIdx.x + blockDim.x * blockIdx.x;
    z[t] = w * x[t] + (1.0f - w) * y[t];
}

// Two dimensions, no launch and no bounds: which grid y it needs is not known.
__global__ void plane(float *out, int pitch)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    out[y * pitch + x] = 1.0f;
}

// A segmented scan in shared memory: the segment length is a parameter, and the shared
// array holds two blocks' worth. Another segment length walks off its end.
__global__ void segment_scan(unsigned *out, const unsigned *in, unsigned seg)
{
    __shared__ unsigned buf[2 * 256];
    unsigned t = threadIdx.x;
    unsigned at = 2 * t - (t & (seg - 1));
    buf[at] = 0;
    at += seg;
    buf[at] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned s = 1; s < seg; s <<= 1) {
        unsigned v = buf[at] + buf[at - s];
        __syncthreads();
        buf[at] = v;
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = buf[at];
}

// A guard the count cannot read (a division in its bound): threads past it write nothing,
// so the threads launched are no count of out.
__global__ void swap_pairs(const float *x, float *out, int rows, int width)
{
    long p = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= (long)rows * (width / 2))
        return;
    long e = 2 * p;
    out[e] = x[e + 1];
    out[e + 1] = x[e];
}
