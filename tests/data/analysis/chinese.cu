// 中文注释：矩阵按行缩放，每个线程处理一行。
#define 块大小_UNUSED 1
#define ROW_BLOCK 128 // 每个线程块的行数

/* 设备函数：计算缩放因子 */
__device__ float 因子(float v) { return v * 0.5f; }

__global__ void row_scale(float *m, int rows, int cols) // 行缩放内核
{
    int r = blockIdx.x * ROW_BLOCK + threadIdx.x; // 行号
    if (r >= rows) return;
    for (int c = 0; c < cols; c++) m[r * cols + c] *= 因子(m[r * cols + c]);
}

void 启动(float *m, int rows, int cols)
{
    row_scale<<<(rows + ROW_BLOCK - 1) / ROW_BLOCK, ROW_BLOCK>>>(m, rows, cols); // 启动
}
