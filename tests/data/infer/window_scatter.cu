// Point-wise spatial attention masks (mmcv's psamask "collect"): each feature pixel (h, w)
// scatters the part of its (h_mask, w_mask) window that falls on the feature map, the
// window clipped by min/max where the pixel sits. Launched with nthreads = num * h * w.
#define LOOP_1D(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

__global__ void collect(const int nthreads, const int h_feature, const int w_feature, const int h_mask,
                        const int w_mask, const int half_h_mask, const int half_w_mask, const float *mask_data,
                        float *buffer_data)
{
    LOOP_1D(index, nthreads) {
        const int w = index % w_feature;
        const int h = (index / w_feature) % h_feature;
        const int n = index / w_feature / h_feature;
        const int hstart = max(0, half_h_mask - h);
        const int hend = min(h_mask, h_feature + half_h_mask - h);
        const int wstart = max(0, half_w_mask - w);
        const int wend = min(w_mask, w_feature + half_w_mask - w);
        for (int hidx = hstart; hidx < hend; hidx++)
            for (int widx = wstart; widx < wend; widx++)
                buffer_data[(n * h_feature * w_feature + (hidx + h - half_h_mask) * w_feature +
                             (widx + w - half_w_mask)) * h_feature * w_feature + h * w_feature + w] =
                    mask_data[((n * h_mask * w_mask + hidx * w_mask + widx) * h_feature + h) * w_feature + w];
    }
}

// The same with the bounds inline and the window's end first in the min.
__global__ void collect_inline(int nthreads, int h_feature, int w_feature, int h_mask, int w_mask,
                               int half_h_mask, int half_w_mask, const float *mask_data, float *buffer_data)
{
    for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < nthreads; index += blockDim.x * gridDim.x) {
        int hw = h_feature * w_feature;
        for (int hidx = max(half_h_mask - (index / w_feature) % h_feature, 0);
             hidx < min(h_feature + half_h_mask - (index / w_feature) % h_feature, h_mask); ++hidx)
            for (int widx = max(half_w_mask - index % w_feature, 0);
                 widx < min(w_feature + half_w_mask - index % w_feature, w_mask); ++widx)
                buffer_data[((index / hw) * hw + (hidx + (index / w_feature) % h_feature - half_h_mask) * w_feature +
                             widx + index % w_feature - half_w_mask) * hw + index % hw] =
                    mask_data[((index / hw) * h_mask * w_mask + hidx * w_mask + widx) * hw + index % hw];
    }
}

// The window's end read from memory: nothing bounds it.
__global__ void collect_read_end(int nthreads, int h_feature, int w_feature, int h_mask, int w_mask,
                                 int half_h_mask, int half_w_mask, const int *ends, const float *mask_data,
                                 float *buffer_data)
{
    LOOP_1D(index, nthreads) {
        const int w = index % w_feature;
        const int h = (index / w_feature) % h_feature;
        const int n = index / w_feature / h_feature;
        for (int hidx = max(0, half_h_mask - h); hidx < ends[n]; hidx++)
            buffer_data[((n * h_feature + hidx + h - half_h_mask) * w_feature + w) * h_feature * w_feature +
                        h * w_feature + w] = mask_data[(n * h_feature + h) * w_feature + w];
    }
}

void CollectForward(const float *input, float *output, const int num, const int h_feature, const int w_feature,
                    const int h_mask, const int w_mask, const int half_h_mask, const int half_w_mask)
{
    int nthreads = num * h_feature * w_feature;
    collect<<<nthreads, 512>>>(nthreads, h_feature, w_feature, h_mask, w_mask, half_h_mask, half_w_mask, input,
                               output);
    collect_inline<<<nthreads, 512>>>(nthreads, h_feature, w_feature, h_mask, w_mask, half_h_mask, half_w_mask,
                                      input, output);
}
