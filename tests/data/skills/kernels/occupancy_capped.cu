// Already has a register cap: the occupancy-regs skills must not claim it.
__global__ void __attribute__((maxnreg(40))) capped_samples(const float *in, float *out, int n, int samples)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int s = 0; s < samples; s++)
        acc += in[(i * samples + s) % n];
    out[i] = acc;
}
