// Probe: naive inclusive scan (Hillis-Steele, double-buffered shared memory) of each
// block's blockDim.x elements, one block per segment; unsigned indices.
__global__ void rd_scan_hs(const int *in, int *out, unsigned n)
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
