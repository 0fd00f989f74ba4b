// A gather loop per output (a bin's bilinear samples, as mmcv's roi_align) with no register
// limit of its own: the occupancy-regs skills may cap its registers.
__global__ void bin_samples(const float *in, const float *pos, float *out, int n, int w, int samples)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int s = 0; s < samples; s++) {
        float x = pos[(i * samples + s) * 2], y = pos[(i * samples + s) * 2 + 1];
        int xl = (int)x, yl = (int)y;
        float lx = x - xl, ly = y - yl;
        acc += (1 - ly) * ((1 - lx) * in[yl * w + xl] + lx * in[yl * w + xl + 1]) +
               ly * ((1 - lx) * in[(yl + 1) * w + xl] + lx * in[(yl + 1) * w + xl + 1]);
    }
    out[i] = acc / samples;
}
