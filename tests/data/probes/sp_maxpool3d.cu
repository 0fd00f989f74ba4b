// Probe: 3D max pooling (kernel 3, stride 2, no padding) over N*C volumes laid out NCDHW,
// one thread per output element, the flat index split by / and %, a grid-stride loop.
#define KS 3
#define ST 2

__global__ void sp_maxpool3d(const float *input, float *output, int C, int D, int H, int W,
                             int OD, int OH, int OW, int total)
{
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += blockDim.x * gridDim.x) {
        int ow = idx % OW;
        int oh = (idx / OW) % OH;
        int od = (idx / (OW * OH)) % OD;
        int nc = idx / (OW * OH * OD);
        const float *base = input + (size_t)nc * D * H * W;
        float best = -3.402823466e+38f;
        for (int kd = 0; kd < KS; kd++)
            for (int kh = 0; kh < KS; kh++)
                for (int kw = 0; kw < KS; kw++) {
                    int d = od * ST + kd, h = oh * ST + kh, w = ow * ST + kw;
                    float v = base[(d * H + h) * W + w];
                    if (v > best)
                        best = v;
                }
        output[idx] = best;
    }
}
