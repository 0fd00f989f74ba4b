// Gathers whose subscript gives the range of the index read: the value read is the lowest
// digit of a mixed-radix subscript (row * n + idx[...]), so 0 <= idx < n.
#include <cuda_runtime.h>

// table is (batch, n); idx and out are (batch, m): out[b][j] = table[b][idx[b][j]].
__global__ void pick(const float *table, const int *idx, float *out, int batch, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (j < m && b < batch)
        out[b * m + j] = table[b * n + idx[b * m + j]];
}

// The same read one element further on: the subscript does not say idx < n.
__global__ void pick_next(const float *table, const int *idx, float *out, int batch, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (j < m && b < batch)
        out[b * m + j] = table[b * n + idx[b * m + j] + 1];
}

// The value read picks the row, not the column: nothing bounds it by a size.
__global__ void pick_row(const float *table, const int *idx, float *out, int batch, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (j < m && b < batch)
        out[b * m + j] = table[idx[b * m + j] * n + b];
}

// idx < n from table's subscript, but scale has n / 2 elements: scale[idx] reads past it.
__global__ void pick_scaled(const float *table, const float *scale, const int *idx, float *out,
                            int batch, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (j < m && b < batch) {
        int k = idx[b * m + j];
        out[b * m + j] = table[b * n + k] * scale[k];
    }
}

// The same with a scale of n elements: scale[idx] stays inside it.
__global__ void pick_weighted(const float *table, const float *weight, const int *idx, float *out,
                              int batch, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (j < m && b < batch) {
        int k = idx[b * m + j];
        out[b * m + j] = table[b * n + k] * weight[k];
    }
}

void run(int batch, int n, int m)
{
    float *table, *scale, *weight, *out;
    int *idx;
    cudaMalloc(&table, (size_t)batch * n * sizeof(float));
    cudaMalloc(&scale, n / 2 * sizeof(float));
    cudaMalloc(&weight, n * sizeof(float));
    cudaMalloc(&idx, (size_t)batch * m * sizeof(int));
    cudaMalloc(&out, (size_t)batch * m * sizeof(float));
    dim3 grid((m + 127) / 128, batch);
    pick<<<grid, 128>>>(table, idx, out, batch, n, m);
    pick_next<<<grid, 128>>>(table, idx, out, batch, n, m);
    pick_row<<<grid, 128>>>(table, idx, out, batch, n, m);
    pick_scaled<<<grid, 128>>>(table, scale, idx, out, batch, n, m);
    pick_weighted<<<grid, 128>>>(table, weight, idx, out, batch, n, m);
}
