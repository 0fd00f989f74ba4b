// channel_lanes' sample: one thread per (box, channel, bin row, bin column), the bin column
// fastest; a bin's window is clipped to the map, so the lanes of a warp (bins of one box)
// scan windows of different sizes, empty past the edge. The channel decides no bound.
__global__ void bin_max(int n, const float *x, const float *box, float *y, int bins, int channels, int h, int w)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int bx = i % bins;
        int by = (i / bins) % bins;
        int c = (i / bins / bins) % channels;
        int r = i / bins / bins / channels;
        float x0 = box[3 * r], y0 = box[3 * r + 1], s = box[3 * r + 2];
        int xa = min((int)(x0 + bx * s), w), xb = min((int)(x0 + (bx + 1) * s) + 1, w);
        int ya = min((int)(y0 + by * s), h), yb = min((int)(y0 + (by + 1) * s) + 1, h);
        float best = -3.0e38f;
        for (int yy = ya; yy < yb; ++yy)
            for (int xx = xa; xx < xb; ++xx)
                best = fmaxf(best, x[(c * h + yy) * w + xx]);
        y[i] = best;
    }
}
