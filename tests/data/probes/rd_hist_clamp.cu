// Probe: a histogram of floats over [lo, hi) into a run-time number of bins, the bin index
// computed in float and clamped into range with min/max, one global atomicAdd per element.
__global__ void rd_hist_clamp(const float *x, int *hist, int n, int nbins, float lo, float hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = (int)((x[i] - lo) / (hi - lo) * nbins);
        b = min(max(b, 0), nbins - 1);
        atomicAdd(&hist[b], 1);
    }
}
