// Realistic naive kernels, written for the kernel model's tests (tests/unit/test_model.c).
#define TILE_DIM 32
#define BLOCK_ROWS 8
#define RADIUS 3
#define BLOCK 256
#define NBINS_DEFAULT 64
#define IDX2(r, c, ld) ((r) * (ld) + (c))

// C = alpha * A*B + beta * C, x indexes rows, unsigned indices.
__global__ void sgemm_naive(unsigned M, unsigned N, unsigned K, float alpha, const float *A,
                            const float *B, float beta, float *C)
{
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < M && y < N) {
        float tmp = 0.0f;
        for (unsigned i = 0; i < K; ++i)
            tmp += A[x * K + i] * B[i * N + y];
        C[x * N + y] = alpha * tmp + beta * C[x * N + y];
    }
}

// The same product with fmaf, int indices, a macro for the row-major index and the
// bounds check as an early return.
__global__ void sgemm_fmaf(int M, int N, int K, float alpha, const float *A, const float *B,
                           float beta, float *C)
{
    int row = threadIdx.x + blockIdx.x * blockDim.x;
    int col = threadIdx.y + blockIdx.y * blockDim.y;
    if (row >= M || col >= N)
        return;
    float acc = 0;
    for (int k = 0; k < K; k++)
        acc = fmaf(A[IDX2(row, k, K)], B[IDX2(k, col, N)], acc);
    C[IDX2(row, col, N)] = alpha * acc + beta * C[IDX2(row, col, N)];
}

// y = A x, one thread per row.
__global__ void gemv_rows(const float *__restrict__ A, const float *__restrict__ x,
                          float *__restrict__ y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        const float *a = A + (size_t)r * cols;
        float s = 0.f;
        for (int c = 0; c < cols; ++c)
            s += a[c] * x[c];
        y[r] = s;
    }
}

// Naive transpose with separate in/out index variables and tile macros.
__global__ void transpose_naive(float *odata, const float *idata, int width, int height)
{
    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    int index_in = xIndex + width * yIndex;
    int index_out = yIndex + height * xIndex;
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        odata[index_out + i] = idata[index_in + i * width];
}

// Global-atomic histogram of byte values, templated on the bin count.
template <int NBINS, typename T>
__global__ void bincount(const T *__restrict__ in, unsigned int *bins, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x) {
        int b = static_cast<int>(in[i]) % NBINS;
        atomicAdd(&bins[b], 1u);
    }
}

// 1-D stencil over a shared tile with a halo of RADIUS.
__global__ void stencil_1d(const float *in, float *out, int n)
{
    __shared__ float temp[BLOCK + 2 * RADIUS];
    int gindex = threadIdx.x + blockIdx.x * blockDim.x;
    int lindex = threadIdx.x + RADIUS;
    temp[lindex] = in[gindex];
    if (threadIdx.x < RADIUS) {
        temp[lindex - RADIUS] = in[gindex - RADIUS];
        temp[lindex + BLOCK] = in[gindex + BLOCK];
    }
    __syncthreads();
    float result = 0;
    for (int offset = -RADIUS; offset <= RADIUS; offset++)
        result += temp[lindex + offset];
    if (gindex < n)
        out[gindex] = result;
}

// Row-wise softmax, one thread per row: max, sum of exponentials, normalise.
__global__ void softmax_rows(const float *input, float *output, int rows, int cols)
{
    int row = blockDim.x * blockIdx.x + threadIdx.x;
    if (row >= rows)
        return;
    const float *x = input + row * cols;
    float *y = output + row * cols;
    float m = -INFINITY;
    for (int j = 0; j < cols; j++)
        m = fmaxf(m, x[j]);
    float sum = 0.0f;
    for (int j = 0; j < cols; j++)
        sum += expf(x[j] - m);
    for (int j = 0; j < cols; j++)
        y[j] = expf(x[j] - m) / sum;
}

// One-pass layernorm: sum and sum of squares in one loop, one thread per row.
__global__ void layernorm_one_pass(const float *x, const float *gamma, const float *beta,
                                   float *y, int rows, int dim, float eps)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float s = 0.0f, ss = 0.0f;
    for (int i = 0; i < dim; ++i) {
        float v = x[r * dim + i];
        s += v;
        ss += v * v;
    }
    float mean = s / dim;
    float var = ss / dim - mean * mean;
    float inv = rsqrtf(var + eps);
    for (int i = 0; i < dim; ++i)
        y[r * dim + i] = (x[r * dim + i] - mean) * inv * gamma[i] + beta[i];
}

// Block-sum reduction in shared memory, tree with halving stride.
__global__ void block_sum(const float *in, float *out, int n)
{
    __shared__ float sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        atomicAdd(out, sdata[0]);
}
