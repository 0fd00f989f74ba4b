// Stencils, convolutions and pooling as people spell them (issue 13 item 4): our own code.
#define RADIUS 3
#define MASK_W 5

// 1D stencil with a RADIUS macro and a loop over the offsets.
__global__ void stencil1d_radius(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= RADIUS && i < n - RADIUS) {
        float result = 0.0f;
        for (int offset = -RADIUS; offset <= RADIUS; offset++)
            result += in[i + offset];
        out[i] = result;
    }
}

// 2D heat stencil, five explicit terms, i from y.
__global__ void heat2d(const float *u, float *unew, int nx, int ny, float r)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > 0 && i < ny - 1 && j > 0 && j < nx - 1)
        unew[i * nx + j] = u[i * nx + j] + r * (u[(i - 1) * nx + j] + u[(i + 1) * nx + j] +
                                               u[i * nx + j - 1] + u[i * nx + j + 1] - 4.0f * u[i * nx + j]);
}

// 2D 3x3 convolution as nine explicit terms with scalar weights, i from x.
__global__ void conv2d_nine_terms(int ni, int nj, const float *A, float *B)
{
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float c11 = +0.2f, c21 = +0.5f, c31 = -0.8f;
    float c12 = -0.3f, c22 = +0.6f, c32 = -0.9f;
    float c13 = +0.4f, c23 = +0.7f, c33 = +0.10f;
    if ((i < ni - 1) && (j < nj - 1) && (i > 0) && (j > 0)) {
        B[i * nj + j] = c11 * A[(i - 1) * nj + (j - 1)] + c21 * A[(i - 1) * nj + (j + 0)] +
                        c31 * A[(i - 1) * nj + (j + 1)] + c12 * A[(i + 0) * nj + (j - 1)] +
                        c22 * A[(i + 0) * nj + (j + 0)] + c32 * A[(i + 0) * nj + (j + 1)] +
                        c13 * A[(i + 1) * nj + (j - 1)] + c23 * A[(i + 1) * nj + (j + 0)] +
                        c33 * A[(i + 1) * nj + (j + 1)];
    }
}

// 2D convolution with a mask array and loops, i from y.
__global__ void conv2d_mask(const float *in, const float *mask, float *out, int w, int h)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < h && col < w) {
        float acc = 0.0f;
        for (int mr = 0; mr < MASK_W; mr++)
            for (int mc = 0; mc < MASK_W; mc++) {
                int r = row + mr - MASK_W / 2, c = col + mc - MASK_W / 2;
                if (r >= 0 && r < h && c >= 0 && c < w)
                    acc += in[r * w + c] * mask[mr * MASK_W + mc];
            }
        out[row * w + col] = acc;
    }
}

// 1D convolution with a mask array.
__global__ void conv1d_mask(const float *in, const float *mask, float *out, int n, int mask_len)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float sum = 0.0f;
        int start = i - mask_len / 2;
        for (int j = 0; j < mask_len; j++)
            if (start + j >= 0 && start + j < n)
                sum += in[start + j] * mask[j];
        out[i] = sum;
    }
}

// 3D max pooling, 2x2x2 windows, stride 2, one output per thread.
__global__ void maxpool3d(const float *in, float *out, int d, int h, int w)
{
    int ow = blockIdx.x * blockDim.x + threadIdx.x;
    int oh = blockIdx.y * blockDim.y + threadIdx.y;
    int od = blockIdx.z;
    int OW = w / 2, OH = h / 2;
    if (ow < OW && oh < OH) {
        float m = -3.402823466e38f;
        for (int kd = 0; kd < 2; kd++)
            for (int kh = 0; kh < 2; kh++)
                for (int kw = 0; kw < 2; kw++)
                    m = fmaxf(m, in[((od * 2 + kd) * h + oh * 2 + kh) * w + ow * 2 + kw]);
        out[(od * OH + oh) * OW + ow] = m;
    }
}
