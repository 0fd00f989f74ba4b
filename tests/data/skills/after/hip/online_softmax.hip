// After online_softmax on gfx9: one 64-lane wavefront per row, (max, sum) merged with __shfl_xor.
#include <hip/hip_runtime.h>
__global__ void softmax(const float *x, float *y, int rows, int cols)
{
    int r = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;
    int lane = threadIdx.x % warpSize;
    if (r >= rows)
        return;
    const float *row = x + (size_t)r * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = lane; c < cols; c += warpSize) {
        float v = row[c];
        float mn = fmaxf(m, v);
        s = s * __expf(m - mn) + __expf(v - mn);
        m = mn;
    }
    for (int o = warpSize / 2; o > 0; o >>= 1) {
        float mo = __shfl_xor(m, o);
        float so = __shfl_xor(s, o);
        float mn = fmaxf(m, mo);
        s = (m == -INFINITY ? 0.0f : s * __expf(m - mn)) + (mo == -INFINITY ? 0.0f : so * __expf(mo - mn));
        m = mn;
    }
    for (int c = lane; c < cols; c += warpSize)
        y[(size_t)r * cols + c] = __expf(row[c] - m) / s;
}
