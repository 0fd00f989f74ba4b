// A mask read through the channel's group only (mmcv's carafe, reduced): the channels that
// share one mask value are H*W threads apart and each reads it again.
__global__ void reassemble(int nthreads, const float *feat, const float *mask, float *out, int k, int channels,
                           int height, int width)
{
    for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < nthreads; index += blockDim.x * gridDim.x) {
        int pw = index % width;
        int ph = (index / width) % height;
        int c = (index / width / height) % channels;
        int n = index / width / height / channels;
        float acc = 0;
        for (int t = 0; t < k; t++) {
            int m = ((n * k + t) * height + ph) * width + pw;
            int f = ((n * channels + c) * height + ph) * width + (pw + t) % width;
            acc += feat[f] * mask[m];
        }
        out[index] = acc;
    }
}
