// Shared-memory tiled GEMMs (the CUDA programming guide's form) written several ways, and
// tiled kernels that are not a GEMM of the whole K (test_model_class, test_rewrites_blas_model).
#define TILE 16

// a template tile, running pointers into A and B, row-major C = A * B
template <int BS> __global__ void tiled_template(float *C, float *A, float *B, int wA, int wB)
{
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int first = wA * BS * by;
    int last = first + wA - 1;
    float acc = 0;
    for (int a = first, b = BS * bx; a <= last; a += BS, b += BS * wB) {
        __shared__ float As[BS][BS];
        __shared__ float Bs[BS][BS];
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
        for (int k = 0; k < BS; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[wB * BS * by + BS * bx + wB * ty + tx] = acc;
}

// a macro tile, row and column indices, a tile counter, alpha and beta
__global__ void tiled_macro(const float *A, const float *B, float *C, int M, int N, int K,
                            float alpha, float beta)
{
    __shared__ float sa[TILE][TILE];
    __shared__ float sb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < K / TILE; t++) {
        sa[threadIdx.y][threadIdx.x] = A[row * K + t * TILE + threadIdx.x];
        sb[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            sum = fmaf(sa[threadIdx.y][k], sb[k][threadIdx.x], sum);
        __syncthreads();
    }
    C[row * N + col] = alpha * sum + beta * C[row * N + col];
}

// one-dimensional tiles indexed by hand
__global__ void tiled_flat(const float *A, const float *B, float *C, int n)
{
    __shared__ float ta[TILE * TILE];
    __shared__ float tb[TILE * TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * TILE + ty, j = blockIdx.x * TILE + tx;
    float s = 0;
    for (int t = 0; t < n / TILE; ++t) {
        ta[ty * TILE + tx] = A[i * n + t * TILE + tx];
        tb[ty * TILE + tx] = B[(t * TILE + ty) * n + j];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            s += ta[ty * TILE + k] * tb[k * TILE + tx];
        __syncthreads();
    }
    C[i * n + j] = s;
}

// refused: the tile loop steps over every other tile
__global__ void tiled_skip(const float *A, const float *B, float *C, int n)
{
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * TILE + ty, j = blockIdx.x * TILE + tx;
    float s = 0;
    for (int t = 0; t < n / TILE; t += 2) {
        ta[ty][tx] = A[i * n + t * TILE + tx];
        tb[ty][tx] = B[(t * TILE + ty) * n + j];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            s += ta[ty][k] * tb[k][tx];
        __syncthreads();
    }
    C[i * n + j] = s;
}

// refused: B's tile is read at [k][ty], the thread's row, not its column
__global__ void tiled_wrong_index(const float *A, const float *B, float *C, int n)
{
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * TILE + ty, j = blockIdx.x * TILE + tx;
    float s = 0;
    for (int t = 0; t < n / TILE; ++t) {
        ta[ty][tx] = A[i * n + t * TILE + tx];
        tb[ty][tx] = B[(t * TILE + ty) * n + j];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            s += ta[ty][k] * tb[k][ty];
        __syncthreads();
    }
    C[i * n + j] = s;
}

// refused: the k loop covers half a tile
__global__ void tiled_half(const float *A, const float *B, float *C, int n)
{
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * TILE + ty, j = blockIdx.x * TILE + tx;
    float s = 0;
    for (int t = 0; t < n / TILE; ++t) {
        ta[ty][tx] = A[i * n + t * TILE + tx];
        tb[ty][tx] = B[(t * TILE + ty) * n + j];
        __syncthreads();
        for (int k = 0; k < TILE / 2; ++k)
            s += ta[ty][k] * tb[k][tx];
        __syncthreads();
    }
    C[i * n + j] = s;
}

// tiled_flat again with two-dimensional tiles, fmaf and another loop variable
__global__ void tiled_square(const float *A, const float *B, float *C, int n)
{
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int i = blockIdx.y * TILE + threadIdx.y, j = blockIdx.x * TILE + threadIdx.x;
    float s = 0;
    for (int p = 0; p < n / TILE; p++) {
        ta[threadIdx.y][threadIdx.x] = A[i * n + p * TILE + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = B[(p * TILE + threadIdx.y) * n + j];
        __syncthreads();
        for (int q = 0; q < TILE; q++)
            s = fmaf(ta[threadIdx.y][q], tb[q][threadIdx.x], s);
        __syncthreads();
    }
    C[i * n + j] = s;
}

// refused: the tiles are filled after the k loop reads them (each iteration reads the
// previous tile, the first reads nothing)
__global__ void tiled_late_fill(const float *A, const float *B, float *C, int n)
{
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.y * TILE + ty, j = blockIdx.x * TILE + tx;
    float s = 0;
    for (int t = 0; t < n / TILE; ++t) {
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            s += ta[ty][k] * tb[k][tx];
        __syncthreads();
        ta[ty][tx] = A[i * n + t * TILE + tx];
        tb[ty][tx] = B[(t * TILE + ty) * n + j];
    }
    C[i * n + j] = s;
}
