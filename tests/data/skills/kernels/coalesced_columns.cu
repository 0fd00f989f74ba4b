// One block per output column: the threads stride down the rows, a shared tree adds their sums.
__global__ void column_totals(const float *m, float *totals, int rows, int cols)
{
    extern __shared__ float part[];
    float s = 0.0f;
    for (int r = threadIdx.x; r < rows; r += blockDim.x)
        s += m[r * cols + blockIdx.x];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (k > threadIdx.x)
            part[threadIdx.x] += part[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        totals[blockIdx.x] = part[0];
}
