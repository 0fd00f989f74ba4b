// Two shared-memory trees in one block over one buffer, as row normalizations are written
// (a block per row): the row's mean, then the sum of squared deviations around it, each
// thread storing its slot again between the trees. block_reduce rewrites both trees
// (tests: test_rewrites_block_tree, test_rewrites_emu_tree; session 43).
__global__ void row_norm(const float *x, float *y, float *stats, int cols, float eps)
{
    extern __shared__ float red[];
    const int row = blockIdx.x;
    const int tid = threadIdx.x;
    const float *xr = x + (size_t)row * cols;
    float s = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x)
        s += xr[c];
    red[tid] = s;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (tid < h)
            red[tid] += red[tid + h];
        __syncthreads();
    }
    const float mean = red[0] / cols;
    __syncthreads();
    float q = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) {
        const float d = xr[c] - mean;
        q += d * d;
    }
    red[tid] = q;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (tid < h)
            red[tid] += red[tid + h];
        __syncthreads();
    }
    const float rstd = 1.0f / sqrtf(red[0] / cols + eps);
    for (int c = tid; c < cols; c += blockDim.x)
        y[(size_t)row * cols + c] = (xr[c] - mean) * rstd;
    if (tid == 0) {
        stats[2 * row] = mean;
        stats[2 * row + 1] = rstd;
    }
}
