// A softmax with one block per row, written in passes: the row's maximum by a block-strided
// loop and a shared-memory tree, the sum of exp(x - max) (recomputed, not stored) by a second
// loop and tree, then exp(x - max) * (1 / sum) written (block_online_softmax's shape: 3 row
// reads and 1 row write an element where 2 and 1 do). (The thread index goes through a local
// and the tree compares `h > tid`: tree-sitter-cuda 0.20.4 parses `threadIdx.x < h` as the
// start of a template argument list.)
__global__ void row_softmax(float *y, const float *x, int cols)
{
    __shared__ float red[256];
    const int tid = threadIdx.x;
    const size_t row = (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = tid; c < cols; c += blockDim.x)
        if (x[row + c] > m)
            m = x[row + c];
    red[tid] = m;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (h > tid)
            red[tid] = fmaxf(red[tid], red[tid + h]);
        __syncthreads();
    }
    const float mx = red[0];
    __syncthreads();
    float s = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x)
        s += __expf(x[row + c] - mx);
    red[tid] = s;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (h > tid)
            red[tid] += red[tid + h];
        __syncthreads();
    }
    const float total = red[0];
    const float inv = 1.0f / total;
    for (int c = tid; c < cols; c += blockDim.x)
        y[row + c] = __expf(x[row + c] - mx) * inv;
}
