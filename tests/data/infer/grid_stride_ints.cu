// A grid-stride kernel with several int parameters and no launch site, written out and
// through mmcv's CUDA_1D_KERNEL_LOOP (tests/unit/test_spec_infer.c): the grid covers the
// loop's bound, not the product of every size.
#define CUDA_1D_KERNEL_LOOP(i, n)                              \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
       i += blockDim.x * gridDim.x)

__global__ void scale_written(int nthreads, const float *in, float *out, int channels,
                              int height, int width)
{
    for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < nthreads;
         index += blockDim.x * gridDim.x) {
        int c = (index / width / height) % channels;
        out[index] = in[index] * (float)(c + 1);
    }
}

__global__ void scale_macro(int nthreads, const float *in, float *out, int channels,
                            int height, int width)
{
    CUDA_1D_KERNEL_LOOP(index, nthreads) {
        int c = (index / width / height) % channels;
        out[index] = in[index] * (float)(c + 1);
    }
}

// two loops on two branches (mmcv's bbox_overlaps): the grid covers the larger bound
__global__ void copy_branches(int n, int m, const float *in, float *out)
{
    if (m == 1) {
        CUDA_1D_KERNEL_LOOP(index, n) {
            out[index] = in[index];
        }
    } else {
        CUDA_1D_KERNEL_LOOP(index, n * m) {
            out[index] = 2.f * in[index];
        }
    }
}
