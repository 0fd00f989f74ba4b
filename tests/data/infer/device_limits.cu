// Launch sizes written with the device's limits and with function-like macros: the block
// is the smaller of the device's maximum and a constant, the grid split over y past the
// device's x limit (on every current GPU one row), and points read through a local pointer.
#include <cuda_runtime.h>

#define WANT_THREADS 192
#define SMALLER(a, b) ((a) < (b) ? (a) : (b))
#define ROUND_UP_DIV(x, y) (((x) + (y) - 1) / (y))

struct point3 {
    float x, y, z;
};

__global__ void radius(const point3 *pts, float *r, int count)
{
    int g = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
    const point3 *p = pts + g;
    if (g < count)
        r[g] = sqrtf(p->x * p->x + p->y * p->y + p->z * p->z);
}

__global__ void radius_cfg(const point3 *pts, float *r, int count)
{
    int g = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
    const point3 *p = pts + g;
    if (g < count)
        r[g] = sqrtf(p->x * p->x + p->y * p->y + p->z * p->z);
}

// a store through the local pointer writes the buffer
__global__ void flatten(point3 *pts, int count)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    point3 *q = pts + g;
    if (g < count)
        q->z = 0.0f;
}

// limits the program sets itself, spelled like the device's: not the device's
struct caps {
    int maxThreadsPerBlock;
    int maxGridSize[3];
};

__global__ void shift(const float *in, float *out, int count)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < count)
        out[g] = in[g] + 1.0f;
}

void run(int count, int user_threads, caps cfg)
{
    point3 *pts;
    float *r, *in;
    cudaMalloc(&pts, sizeof(point3) * count);
    cudaMalloc(&r, sizeof(float) * count);
    cudaMalloc(&in, sizeof(float) * count);
    // the device's limits
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    int threads = SMALLER(prop.maxThreadsPerBlock, WANT_THREADS);
    int blocks = ROUND_UP_DIV(count, threads);
    int rows = ROUND_UP_DIV(blocks, prop.maxGridSize[0]);
    dim3 grid(ROUND_UP_DIV(blocks, rows), rows);
    radius<<<grid, threads>>>(pts, r, count);
    int rows_cfg = ROUND_UP_DIV(blocks, cfg.maxGridSize[0]);
    dim3 grid_cfg(ROUND_UP_DIV(blocks, rows_cfg), rows_cfg);
    radius_cfg<<<grid_cfg, threads>>>(pts, r, count);
    /* a block the user picks at run time is not read */
    int mine = SMALLER(prop.maxThreadsPerBlock, user_threads);
    shift<<<ROUND_UP_DIV(count, mine), mine>>>(in, r, count);
}
