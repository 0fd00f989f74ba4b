// Gathers whose table nothing allocates: the table's count comes from the range the index
// math gives the values read (the lowest digit of a subscript in base n: 0 <= idx < n).
#include <cuda_runtime.h>

// points is (b, c, n), idx (b, m), out (b, c, m): the pointers moved to the thread's row
// first, as mmcv's gather_points does. points reaches (b-1)*c*n + (c-1)*n + n - 1.
__global__ void gather_moved(int b, int c, int n, int m, const float *points, const int *idx, float *out)
{
    int bs = blockIdx.z, ci = blockIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (bs >= b || ci >= c || j >= m)
        return;
    out += bs * c * m + ci * m + j;
    idx += bs * m + j;
    points += bs * c * n + ci * n;
    out[0] = points[idx[0]];
}

// The same through subscripts alone: table is (batch, n).
__global__ void gather_plain(const float *table, const int *idx, float *out, int batch, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int bs = blockIdx.y;
    if (j < m && bs < batch)
        out[bs * m + j] = table[bs * n + idx[bs * m + j]];
}

// One element further on: idx < n no longer follows, and no count of table either.
__global__ void gather_offset(const float *table, const int *idx, float *out, int batch, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int bs = blockIdx.y;
    if (j < m && bs < batch)
        out[bs * m + j] = table[bs * n + idx[bs * m + j] + 1];
}

// The index values are floats the kernel converts: no integer input for the harness to
// fill in [0, n - 1], so no range and no count.
__global__ void gather_float_index(const float *table, const float *pos, float *out, int batch, int n, int m)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int bs = blockIdx.y;
    if (j < m && bs < batch)
        out[bs * m + j] = table[bs * n + (int)pos[bs * m + j]];
}

// A class label: compared with the remainder by classes, so 0 <= t < classes, and weight
// has classes elements (mmcv's sigmoid_focal_loss).
__global__ void label_compared(const float *in, const int *target, const float *weight, float *out, int total,
                               int classes)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total) {
        int t = target[i / classes];
        float hit = (t == i % classes);
        out[i] = hit * in[i] * weight[t];
    }
}

// The label is the lowest digit of prob's subscript, and picks a weight alone: the same
// range holds it (mmcv's softmax_focal_loss).
__global__ void label_shared(const float *prob, const int *label, const float *weight, float *out, int rows,
                             int classes)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        int l = label[r];
        out[r] = prob[r * classes + l] * weight[l];
    }
}

// The label picks a weight and nothing else: no range, no count.
__global__ void label_alone(const float *prob, const int *label, const float *weight, float *out, int rows,
                            int classes)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows)
        out[r] = prob[r * classes] * weight[label[r]];
}

void run(int b, int c, int n, int m, const float *points, const int *idx, const float *pos, float *out)
{
    dim3 grid3((m + 127) / 128, c, b), grid2((m + 127) / 128, b);
    gather_moved<<<grid3, 128>>>(b, c, n, m, points, idx, out);
    gather_plain<<<grid2, 128>>>(points, idx, out, b, n, m);
    gather_offset<<<grid2, 128>>>(points, idx, out, b, n, m);
    gather_float_index<<<grid2, 128>>>(points, pos, out, b, n, m);
    label_compared<<<(b * n + 127) / 128, 128>>>(points, idx, pos, out, b * n, n);
    label_shared<<<(b + 127) / 128, 128>>>(points, idx, pos, out, b, n);
    label_alone<<<(b + 127) / 128, 128>>>(points, idx, pos, out, b, n);
}
