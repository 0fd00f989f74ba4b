// Our own kernels for grid_y_lanes (issue 13): the grid's y index picks a feature channel of
// point features laid out (points, channels), and each thread along x takes a cell whose
// points are listed (a count, then point numbers).
#define CELL_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

// max over a cell's points of one channel, with the point that gave it (a loop macro)
__global__ void cell_max(int cells, int channels, int slots, const float *feat, const int *lists,
                         float *out, int *arg)
{
    int ch = blockIdx.y;
    CELL_LOOP(cell, cells) {
        if (ch >= channels) return;
        const int *list = lists + cell * slots;
        float best = -1e30f;
        int who = -1;
        for (int k = 1; k <= list[0]; k++) {
            float v = feat[list[k] * channels + ch];
            if (v > best) { best = v; who = list[k]; }
        }
        out[cell * channels + ch] = who >= 0 ? best : 0.0f;
        arg[cell * channels + ch] = who;
    }
}

// the mean, one cell per thread with a guard, the channel in a temporary
__global__ void cell_mean(int cells, int channels, int slots, const float *feat, const int *lists, float *out)
{
    int cell = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned c = blockIdx.y;
    if (cell >= cells || c >= (unsigned)channels) return;
    int n = lists[cell * slots];
    float s = 0.0f;
    for (int k = 1; k <= n; k++)
        s += feat[lists[cell * slots + k] * channels + c];
    out[cell * channels + c] = n ? s / n : 0.0f;
}

// planes (channels, points): x already reads adjacent elements: refused
__global__ void plane_scale(int points, const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y;
    if (i < points)
        out[c * points + i] = 2.0f * in[c * points + i];
}

// the cells share a block's shared memory: refused
__global__ void cell_shared(int cells, int channels, const float *feat, float *out)
{
    __shared__ float t[256];
    int cell = blockIdx.x * blockDim.x + threadIdx.x;
    t[threadIdx.x] = cell < cells ? feat[cell * channels + blockIdx.y] : 0.0f;
    __syncthreads();
    if (cell < cells)
        out[cell * channels + blockIdx.y] = t[threadIdx.x] + t[(threadIdx.x + 1) % 256];
}

__device__ int my_lane(void) { return threadIdx.x % 32; }

// a called function reads the builtins: refused
__global__ void cell_lane(int cells, int channels, const float *feat, float *out)
{
    int cell = blockIdx.x * blockDim.x + threadIdx.x;
    if (cell < cells)
        out[cell * channels + blockIdx.y] = feat[cell * channels + blockIdx.y] + my_lane();
}
