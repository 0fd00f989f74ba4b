// A block per channel sums its elements with a block-stride loop into one shared slot
// per thread (mmcv's SyncBN mean): one dependent load-and-add chain per thread.
__global__ void channel_mean(const float *input, float *mean, int num, int channels, int spatial)
{
    __shared__ float buffer[256];
    int tid = threadIdx.x;
    int c = blockIdx.x;
    buffer[tid] = 0;
    for (int i = tid; i < num * spatial; i += blockDim.x) {
        int n = i / spatial;
        int s = i % spatial;
        buffer[tid] += input[(n * channels + c) * spatial + s];
    }
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            buffer[tid] += buffer[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        mean[c] = buffer[0] / (num * spatial);
}
