// Probe: a 2D convolution (zero padding) with its mask in constant memory, the mask size a
// macro, the offsets from the top-left corner of the window.
#define MASK_DIM 5
#define MASK_OFFSET (MASK_DIM / 2)

__constant__ float mask[MASK_DIM * MASK_DIM];

__global__ void sp_conv2d_const(const float *matrix, float *result, int N)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int start_r = row - MASK_OFFSET;
    int start_c = col - MASK_OFFSET;
    float temp = 0;
    for (int i = 0; i < MASK_DIM; i++) {
        for (int j = 0; j < MASK_DIM; j++) {
            if ((start_r + i) >= 0 && (start_r + i) < N) {
                if ((start_c + j) >= 0 && (start_c + j) < N) {
                    temp += matrix[(start_r + i) * N + (start_c + j)] * mask[i * MASK_DIM + j];
                }
            }
        }
    }
    if (row < N && col < N)
        result[row * N + col] = temp;
}
