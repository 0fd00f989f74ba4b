// Grids written member by member and sizes passed as struct members.
__global__ void batched(const float *x, float *y, int n, int batch)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y; // no bounds check: only the launch's grid.y says how many
    if (i < n)
        y[b * n + i] = 2.0f * x[b * n + i];
}

void run_members(int n, int batch)
{
    float *x, *y;
    cudaMalloc(&x, n * batch * sizeof(float));
    cudaMalloc(&y, n * batch * sizeof(float));
    dim3 grid;
    grid.x = (n + 255) / 256;
    grid.y = batch;
    batched<<<grid, 256>>>(x, y, n, batch);
}

struct Shape {
    int n, batch;
};

__global__ void batched_shape(const float *x, float *y, int n, int batch)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (i < n)
        y[b * n + i] = x[b * n + i] + 1.0f;
}

void run_shape(Shape s)
{
    float *x, *y;
    cudaMalloc(&x, s.n * s.batch * sizeof(float));
    cudaMalloc(&y, s.n * s.batch * sizeof(float));
    batched_shape<<<dim3((s.n + 255) / 256, s.batch), 256>>>(x, y, s.n, s.batch);
}

__global__ void batched_maybe(const float *x, float *y, int n, int batch)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (i < n)
        y[b * n + i] = x[b * n + i] - 1.0f;
}

// grid.y set in a branch: the launch's grid is not what the text says on every path
void run_maybe(int n, int batch, bool all)
{
    float *x, *y;
    cudaMalloc(&x, n * batch * sizeof(float));
    cudaMalloc(&y, n * batch * sizeof(float));
    dim3 grid;
    grid.x = (n + 255) / 256;
    if (all)
        grid.y = batch;
    batched_maybe<<<grid, 256>>>(x, y, n, batch);
}
