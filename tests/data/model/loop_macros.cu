// Loops written through statement macros (mmcv, Caffe, PyTorch) and written out
// (tests/unit/test_model.c). Line numbers matter: the test checks some.
#define CUDA_1D_KERNEL_LOOP(i, n)                              \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
       i += blockDim.x * gridDim.x)

#define CUDA_2D_KERNEL_LOOP(i, n, j, m)                             \
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < (n);   \
       i += blockDim.x * gridDim.x)                                 \
    for (size_t j = blockIdx.y * blockDim.y + threadIdx.y; j < (m); \
         j += blockDim.y * gridDim.y)

#define CHECK_INDEX(i, n) do { } while (0)

__global__ void double_written(int nthreads, const float *in, float *out)
{
    for (int index = blockIdx.x * blockDim.x + threadIdx.x; index < nthreads;
         index += blockDim.x * gridDim.x) {
        out[index] = in[index] * 2.f;
    }
}

// tree-sitter reads this call and its braces as a function definition ...
__global__ void double_macro(int nthreads, const float *in, float *out)
{
    CUDA_1D_KERNEL_LOOP(index, nthreads) {
        out[index] = in[index] * 2.f;
    }
}

// ... and this one as a call missing its `;` followed by a block
__global__ void double_macro_call(int nthreads, const float *in, float *out)
{
    CUDA_1D_KERNEL_LOOP(index, (nthreads)) {
        out[index] = in[index] * 2.f;
    }
}

// a row sum per (i, j): the accumulator lives inside both macro loops
__global__ void sum_2d_written(int n, int m, int k, const float *in, float *out)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        for (size_t j = blockIdx.y * blockDim.y + threadIdx.y; j < m;
             j += blockDim.y * gridDim.y) {
            float s = 0.f;
            for (int t = 0; t < k; t++)
                s += in[(j * n + i) * k + t];
            out[j * n + i] = s;
        }
}

__global__ void sum_2d_macro(int n, int m, int k, const float *in, float *out)
{
    CUDA_2D_KERNEL_LOOP(i, n, j, m) {
        float s = 0.f;
        for (int t = 0; t < k; t++)
            s += in[(j * n + i) * k + t];
        out[j * n + i] = s;
    }
}

// a statement macro that is not a loop leaves its braces a plain block
__global__ void block_plain(int nthreads, const float *in, float *out)
{
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= nthreads)
        return;
    {
        out[index] = in[index] * 2.f;
    }
}

__global__ void block_do_macro(int nthreads, const float *in, float *out)
{
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= nthreads)
        return;
    CHECK_INDEX(index, nthreads) {
        out[index] = in[index] * 2.f;
    }
}

// out moved to its batch and channel (mmcv's three_interpolate): out[pt] is not element pt
__global__ void moved_param(int b, int c, int n, const float *in, float *out)
{
    int bs = blockIdx.z, ch = blockIdx.y;
    CUDA_1D_KERNEL_LOOP(pt, n) {
        out += bs * c * n + ch * n;
        out[pt] = in[pt];
    }
}
