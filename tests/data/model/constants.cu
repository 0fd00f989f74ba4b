// A block-tiled row sum written with a #define and with a template parameter: the model
// must not tell them apart (tests/unit/test_model.c).
#define TB 128

__global__ void rowsum_macro(const float *a, float *out, int cols)
{
    __shared__ float part[TB];
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += TB)
        s += a[blockIdx.x * cols + c];
    part[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int i = 0; i < TB; i++)
            t += part[i];
        out[blockIdx.x] = t;
    }
}

template <int TB>
__global__ void rowsum_template(const float *a, float *out, int cols)
{
    __shared__ float part[TB];
    float s = 0;
    for (int c = threadIdx.x; c < cols; c = c + TB)
        s = s + a[cols * blockIdx.x + c];
    part[threadIdx.x] = s;
    __syncthreads();
    if (0 == threadIdx.x) {
        float t = 0;
        for (int i = 0; i < TB; ++i)
            t = part[i] + t;
        out[blockIdx.x] = t;
    }
}
