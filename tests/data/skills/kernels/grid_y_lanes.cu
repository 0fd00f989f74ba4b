// grid_y_lanes: the channel from the grid's y, cells along x, features (points, channels)
__global__ void cell_sum(int cells, int channels, int slots, const float *feat, const int *lists, float *out)
{
    int cell = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y;
    if (cell >= cells) return;
    float s = 0.0f;
    for (int k = 1; k <= lists[cell * slots]; k++)
        s += feat[lists[cell * slots + k] * channels + c];
    out[cell * channels + c] = s;
}
