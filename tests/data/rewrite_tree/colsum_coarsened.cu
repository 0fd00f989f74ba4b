// block_reduce's tree path on a coarsened load (issue 13, session 31): one block per
// column of a row-major rows x cols matrix, each thread first sums its rows in a
// block-stride loop into a register, stores that at its own shared slot, then a halving
// tree whose barrier comes first in the body and whose loop runs `h >= 1` with `h /= 2`;
// thread 0 adds the column's total to the output (read and written). The load is a
// register sum, not `s[t] = i < n ? x[i] : 0`.
__global__ void colsum_acc(float *total, const float *m, int rows, int cols)
{
    extern __shared__ float lane_sum[];
    const int c = blockIdx.x;
    const int t = threadIdx.x;
    const int width = blockDim.x;
    float run = 0.0f;
    for (int r = t; r < rows; r += width)
        run += m[r * cols + c];
    lane_sum[t] = run;
    __syncthreads();
    for (int h = width / 2; h >= 1; h /= 2) {
        __syncthreads();
        if (t < h)
            lane_sum[t] += lane_sum[t + h];
    }
    if (t == 0)
        total[c] = total[c] + lane_sum[0];
}
