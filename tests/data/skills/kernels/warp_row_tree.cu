// A block per row: each block sums the squares of its row over a block-stride loop and
// adds the threads' partial sums through a shared-memory tree (warp_row_tree's shape).
// (The thread index goes through a local: tree-sitter-cuda 0.20.4 parses `threadIdx.x < h`
// as the start of a template argument list, an error the test fixtures refuse.)
__global__ void row_sumsq(float *out, const float *in, int rows, int cols)
{
    __shared__ float part[256];
    const unsigned tid = threadIdx.x;
    const float *row = in + blockIdx.x * cols;
    float s = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x)
        s += row[c] * row[c];
    part[tid] = s;
    __syncthreads();
    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
        if (tid < h)
            part[tid] += part[tid + h];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = part[0];
}
