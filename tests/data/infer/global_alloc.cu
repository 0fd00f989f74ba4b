// A file-scope buffer allocated in an init function, a block written with shifts in
// #defines, and one block the inference cannot read.
#define LOG2_WARP 5
#define WARPS 4
#define BLOCK (WARPS * (1U << LOG2_WARP))
#define PARTS 64
struct wide {
    double a, b;
};
#define ODD_BLOCK (sizeof(struct wide) * 8)

static unsigned int *d_parts;

void init(void)
{
    cudaMalloc((void **)&d_parts, PARTS * 256 * sizeof(unsigned int));
}

__global__ void partial(unsigned int *parts, const unsigned int *data, unsigned int n)
{
    __shared__ unsigned int bins[256];
    for (int i = threadIdx.x; i < 256; i += BLOCK)
        bins[i] = 0;
    __syncthreads();
    for (unsigned int p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += blockDim.x * gridDim.x)
        atomicAdd(&bins[data[p] & 255], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += BLOCK)
        parts[blockIdx.x * 256 + i] = bins[i];
}

__global__ void partial_odd(unsigned int *parts, const unsigned int *data, unsigned int n)
{
    __shared__ unsigned int bins[256];
    for (int i = threadIdx.x; i < 256; i += ODD_BLOCK)
        bins[i] = 0;
    __syncthreads();
    for (unsigned int p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += blockDim.x * gridDim.x)
        atomicAdd(&bins[data[p] & 255], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += ODD_BLOCK)
        parts[blockIdx.x * 256 + i] = bins[i];
}

void run(const unsigned int *d_data, unsigned int n)
{
    partial<<<PARTS, BLOCK>>>(d_parts, d_data, n);
    partial_odd<<<PARTS, ODD_BLOCK>>>(d_parts, d_data, n);
}
