// One block per row, thread 0 writing the row's result: nothing but the grid the launch
// gives bounds blockIdx.x in sums[blockIdx.x].
#define THREADS 256

__global__ void row_sums(const float *in, float *sums, int rows, int cols)
{
    __shared__ float part[THREADS];
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += in[blockIdx.x * cols + c];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w)
            part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        sums[blockIdx.x] = part[0];
}

// The same body launched with (rows * cols + 255) / 256 blocks: the spec's grid is
// ceil_div(rows * cols, block_x), which changes with the block the search tries, so it
// bounds no count.
__global__ void row_sums_spread(const float *in, float *sums, int rows, int cols)
{
    __shared__ float part[THREADS];
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += in[blockIdx.x * cols + c];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w)
            part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        sums[blockIdx.x] = part[0];
}

void run(const float *in, float *sums, int rows, int cols)
{
    row_sums<<<rows, THREADS>>>(in, sums, rows, cols);
    row_sums_spread<<<(rows * cols + 255) / 256, 256>>>(in, sums, rows, cols);
}
