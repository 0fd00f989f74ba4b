// A block per row: each block sums the squares of its row over a block-stride loop and
// adds the threads' partial sums through a shared-memory tree (warp_row_tree's shape).
__global__ void row_sumsq(float *out, const float *in, int rows, int cols)
{
    __shared__ float part[256];
    const float *row = in + blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += row[c] * row[c];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h)
            part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = part[0];
}
