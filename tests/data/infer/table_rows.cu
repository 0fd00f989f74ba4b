// Tables whose rows the values of an index buffer pick, with nothing that says how many
// rows: the table gets rows of its own and the indices stay below them. A read past the
// row, or a table the program allocates itself (its rows are the program's), leaves the
// gather a doubt.
#include <cuda_runtime.h>

__global__ void lookup(float *out, const int *ids, const float *tab, int count, int width)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        for (int c = 0; c < width; c++)
            out[i * width + c] = tab[ids[i] * width + c];
}

// reads two rows' worth from the row picked: past the table's last row
__global__ void lookup_spill(float *out, const int *ids, const float *tab, int count, int width)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        for (int c = 0; c < 2 * width; c++)
            out[i * 2 * width + c] = tab[ids[i] * width + c];
}

__global__ void lookup_owned(float *out, const int *ids, const float *tab, int count, int width)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        for (int c = 0; c < width; c++)
            out[i * width + c] = tab[ids[i] * width + c];
}

void run(int count, int width)
{
    float *out, *tab;
    int *ids;
    cudaMalloc(&out, sizeof(float) * count * width);
    cudaMalloc(&ids, sizeof(int) * count);
    cudaMalloc(&tab, sizeof(float) * count * width); /* as many rows as ids */
    lookup_owned<<<(count + 255) / 256, 256>>>(out, ids, tab, count, width);
}
