// After online_softmax: one warp per row, running max and sum merged with shuffles.
__global__ void softmax(const float *x, float *y, int rows, int cols)
{
    int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (r >= rows)
        return;
    const float *row = x + (size_t)r * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = row[c];
        float mn = fmaxf(m, v);
        s = s * __expf(m - mn) + __expf(v - mn);
        m = mn;
    }
    for (int o = 16; o > 0; o >>= 1) {
        float mo = __shfl_xor_sync(0xffffffffu, m, o);
        float so = __shfl_xor_sync(0xffffffffu, s, o);
        float mn = fmaxf(m, mo);
        s = (m == -INFINITY ? 0.0f : s * __expf(m - mn)) + (mo == -INFINITY ? 0.0f : so * __expf(mo - mn));
        m = mn;
    }
    for (int c = lane; c < cols; c += 32)
        y[(size_t)r * cols + c] = __expf(row[c] - m) / s;
}
