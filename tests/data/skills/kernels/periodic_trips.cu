// Launched over the output's N*T*C*HW elements while the coordinates repeat every N*C*HW
// (mmcv's tin_shift): each column's T copies run T times.
__global__ void tshift(int nthreads, const float *input, const int *shift, float *output, int batch, int channels,
                       int t_size, int hw)
{
    for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < nthreads; index += blockDim.x * gridDim.x) {
        int x = index % hw;
        int c = (index / hw) % channels;
        int n = (index / hw / channels) % batch;
        int s = shift[n];
        for (int t = 0; t < t_size; t++) {
            int to = t + s;
            if (to < 0 || to >= t_size)
                continue;
            output[((n * t_size + to) * channels + c) * hw + x] = input[((n * t_size + t) * channels + c) * hw + x];
        }
    }
}
