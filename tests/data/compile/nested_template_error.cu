// An error two template levels deep: nvcc lists the instantiation chain under
// "detected during:", one "instantiation of ... at line N" per level.
template <typename T>
__device__ T load(const T *p, int i)
{
    return p[i].x;
}

template <typename T>
__global__ void copy(const T *in, T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = load(in, i);
}

void run(const float *in, float *out, int n)
{
    copy<<<(n + 255) / 256, 256>>>(in, out, n);
}
