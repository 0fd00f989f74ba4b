// block_reduce's tree path through a register carry written as two statements (issue
// 13, session 37): a per-row maximum, one block per row, each thread first takes the max
// over its strided columns in a register, stores it at its slot, and each level of the
// tree updates the register with fmaxf of the slot k away, then stores it in its own slot
// (two statements); thread 0 writes the register scaled. The same tree as one that takes
// fmaxf of the two slots into the lower one.
__global__ void rowmax_carry(const float *x, float *rowmax, int cols, float scale)
{
    __shared__ float m[512];
    const int row = blockIdx.x;
    const int t = threadIdx.x;
    float best = -3.0e38f;
    for (int c = t; c < cols; c += blockDim.x)
        best = fmaxf(best, x[row * cols + c]);
    m[t] = best;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (t < k) {
            best = fmaxf(best, m[t + k]);
            m[t] = best;
        }
        __syncthreads();
    }
    if (t == 0)
        rowmax[row] = best * scale;
}
