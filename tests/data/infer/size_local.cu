// Allocation sizes held in a local of the launcher, as many programs write them.
__global__ void column_step(const float *heat, const float *src, float *dst, int w, int h, int d)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int at = y * w + x;
    for (int z = 0; z < d; z++)
        dst[at + z * w * h] = 0.5f * src[at + z * w * h] + heat[at];
}

void step(int w, int h, int d)
{
    size_t volume = sizeof(float) * w * h * d;
    size_t plane = w * h * sizeof(float);
    float *heat, *src, *dst;
    cudaMalloc((void **)&heat, plane);
    cudaMalloc((void **)&src, volume);
    cudaMalloc((void **)&dst, volume);
    column_step<<<dim3(w / 32, h / 8), dim3(32, 8)>>>(heat, src, dst, w, h, d);
}

// A size local set twice: which value the allocation saw is not read.
__global__ void scale(float *v, int n)
{
    v[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f;
}

void scale_twice(int n)
{
    size_t bytes = n * sizeof(float);
    float *v;
    if (n > 1024)
        bytes = 1024 * sizeof(float);
    cudaMalloc(&v, bytes);
    scale<<<n / 256, 256>>>(v, n);
}
