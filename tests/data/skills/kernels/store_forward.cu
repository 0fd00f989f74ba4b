// A block per row that stores a value and reads it back in later passes: the row centred on
// its first value and stored, its sum of squares read back from the output, the output then
// scaled in place (store_forward's shape: 3 row reads and 2 row writes an element where 1
// and 1 do). (The thread index goes through a local and the tree compares `h > tid`:
// tree-sitter-cuda 0.20.4 parses `threadIdx.x < h` as the start of a template argument list.)
__global__ void center_scale(float *y, const float *x, int cols)
{
    __shared__ float part[256];
    const int tid = threadIdx.x;
    const float *xr = x + (size_t)blockIdx.x * cols;
    float *yr = y + (size_t)blockIdx.x * cols;
    const float first = xr[0];
    for (int c = tid; c < cols; c += blockDim.x)
        yr[c] = xr[c] - first;
    float s = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x)
        s += yr[c] * yr[c];
    part[tid] = s;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (h > tid)
            part[tid] += part[tid + h];
        __syncthreads();
    }
    const float scale = rsqrtf(part[0] / cols + 1e-5f);
    for (int c = tid; c < cols; c += blockDim.x)
        yr[c] *= scale;
}
