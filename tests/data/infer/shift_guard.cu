// Temporal shifts (mmcv's tin_shift): a flat index split by / and %, each (batch, group)
// moved along t by a value read from memory, the move skipped unless the new t stays in
// [0, t_size). Written several ways; launched with nthreads = output.numel().
#define LOOP_1D(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

struct Tensor;

// Temporaries and a `continue`.
__global__ void shift_continue(int nthreads, const float *input, const int *shift, float *output, int batch,
                               int channels, int t_size, int hw, int groups, int group_channel)
{
    LOOP_1D(index, nthreads) {
        const int hw_index = index % hw;
        const int j = (index / hw) % channels;
        const int n = (index / hw / channels) % batch;
        int t_shift = shift[n * groups + j / group_channel];
        int offset = n * t_size * hw * channels + hw * j + hw_index;
        for (int i = 0; i < t_size; i++) {
            int now_t = i + t_shift;
            int data_id = i * hw * channels + offset;
            if (now_t < 0 || now_t >= t_size)
                continue;
            output[now_t * hw * channels + offset] = input[data_id];
        }
    }
}

// The same inline, unsigned loop counter, the guard as an if block.
__global__ void shift_if_block(int nthreads, const float *input, const int *shift, float *output, int batch,
                               int channels, int t_size, int hw, int groups, int group_channel)
{
    for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < nthreads; index += blockDim.x * gridDim.x) {
        for (unsigned i = 0; i < t_size; i++) {
            int now_t = i + shift[((index / (hw * channels)) % batch) * groups + ((index / hw) % channels) / group_channel];
            if (now_t >= 0 && now_t < t_size) {
                output[((((index / hw / channels) % batch) * t_size + now_t) * channels + (index / hw) % channels) * hw +
                       index % hw] =
                    input[((((index / hw / channels) % batch) * t_size + i) * channels + (index / hw) % channels) * hw +
                          index % hw];
            }
        }
    }
}

// Only the upper end checked: a negative shift reaches before output's first element.
__global__ void shift_upper_only(int nthreads, const float *input, const int *shift, float *output, int batch,
                                 int channels, int t_size, int hw, int groups, int group_channel)
{
    LOOP_1D(index, nthreads) {
        const int hw_index = index % hw;
        const int j = (index / hw) % channels;
        const int n = (index / hw / channels) % batch;
        int t_shift = shift[n * groups + j / group_channel];
        int offset = n * t_size * hw * channels + hw * j + hw_index;
        for (int i = 0; i < t_size; i++) {
            int now_t = i + t_shift;
            if (now_t >= t_size)
                continue;
            output[now_t * hw * channels + offset] = input[i * hw * channels + offset];
        }
    }
}

// No guard at all: the value read is the subscript.
__global__ void shift_unguarded(int nthreads, const float *input, const int *shift, float *output, int batch,
                                int channels, int t_size, int hw, int groups, int group_channel)
{
    LOOP_1D(index, nthreads) {
        const int hw_index = index % hw;
        const int j = (index / hw) % channels;
        const int n = (index / hw / channels) % batch;
        int t_shift = shift[n * groups + j / group_channel];
        int offset = n * t_size * hw * channels + hw * j + hw_index;
        for (int i = 0; i < t_size; i++)
            output[(i + t_shift) * hw * channels + offset] = input[i * hw * channels + offset];
    }
}

// 2x nearest upsampling summed over a window of the half-size input, clipped by guards
// whose bounds divide sizes (mmcv's carafe): no value read, the divisions are sizes.
__global__ void window_up2(int nthreads, const float *bottom, float *top, int k, int scale, int channels,
                           int height, int width)
{
    LOOP_1D(index, nthreads) {
        int pw = index % width;
        int ph = (index / width) % height;
        int c = (index / width / height) % channels;
        int n = index / width / height / channels;
        int dw = width / scale, dh = height / scale;
        float s = 0;
        for (int iy = ph / scale - (k - 1) / 2; iy < ph / scale + (k - 1) / 2 + 1; iy++)
            for (int ix = pw / scale - (k - 1) / 2; ix < pw / scale + (k - 1) / 2 + 1; ix++) {
                if (iy < 0 || iy > dh - 1 || ix < 0 || ix > dw - 1)
                    continue;
                s += bottom[((n * channels + c) * dh + iy) * dw + ix];
            }
        top[index] = s;
    }
}

void ShiftForward(Tensor input, Tensor shift, Tensor output)
{
    int output_size = output.numel();
    int batch = input.size(0);
    int t_size = input.size(1);
    int channels = input.size(2);
    int hw = input.size(3);
    int groups = shift.size(1);
    int group_channel = channels / groups;
    int num_kernels = batch * hw * channels;
    int blocks = (num_kernels + 511) / 512;
    shift_continue<<<blocks, 512>>>(output_size, input.data_ptr<float>(), shift.data_ptr<int>(),
                                    output.data_ptr<float>(), batch, channels, t_size, hw, groups, group_channel);
    shift_if_block<<<blocks, 512>>>(output_size, input.data_ptr<float>(), shift.data_ptr<int>(),
                                    output.data_ptr<float>(), batch, channels, t_size, hw, groups, group_channel);
}
