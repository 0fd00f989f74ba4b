// Matrix rows written with no bounds check, launched on a grid the inference cannot read: the
// rows are not the inference's to choose, the allocation (64 rows) says how many there are.
#define SIDE 16

__global__ void fill_rows(float *out, int width, int rows)
{
    out[width * (SIDE * blockIdx.y + threadIdx.y) + SIDE * blockIdx.x + threadIdx.x] = 2.0f;
}

dim3 pick_grid(int width, int rows);

void run_fill(int width, int rows)
{
    float *d = 0;
    cudaMalloc(&d, sizeof(float) * width * 64);
    fill_rows<<<pick_grid(width, rows), dim3(SIDE, SIDE)>>>(d, width, rows);
}

// The same rows launched on a dim3 the launcher takes as a parameter: no size of its own.
__global__ void fill_rows_given(float *out, int width, int rows)
{
    out[width * (SIDE * blockIdx.y + threadIdx.y) + SIDE * blockIdx.x + threadIdx.x] = 3.0f;
}

void run_fill_given(int width, int rows, dim3 grid_in)
{
    float *d = 0;
    cudaMalloc(&d, sizeof(float) * width * 64);
    fill_rows_given<<<grid_in, dim3(SIDE, SIDE)>>>(d, width, rows);
}
