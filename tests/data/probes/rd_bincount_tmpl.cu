// Probe: a templated bincount -- one global atomicAdd per input element into a histogram of
// a run-time number of bins (the values are class labels in [0, nbins)), int indices.
template <typename T>
__global__ void rd_bincount_tmpl(const T *in, unsigned int *hist, int n, int nbins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        T v = in[i];
        if (v >= 0 && v < nbins)
            atomicAdd(&hist[v], 1);
    }
}
