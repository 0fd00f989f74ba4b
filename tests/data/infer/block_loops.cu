// One block per row: the threads stride over the row by a fixed step or by the block.
#define STEP 128

// Scales each row by its first element; the loop's trip is no size (it starts at the
// thread's index), but its variable stays below the row length.
__global__ void scale_rows(const float *in, float *out, int cols)
{
    const float *row = in + blockIdx.x * cols;
    for (int c = threadIdx.x; c < cols; c += STEP)
        out[blockIdx.x * cols + c] = row[c] / row[0];
}

void run_rows(const float *in, float *out, int rows, int cols)
{
    scale_rows<<<rows, STEP>>>(in, out, cols);
}

// Templated on its block, launched in a switch on the block size: the case gives it.
template <unsigned int threads> __global__ void row_max(const float *in, float *out, int cols)
{
    __shared__ float best[threads];
    float m = -3.4e38f;
    for (int c = threadIdx.x; c < cols; c += threads)
        m = fmaxf(m, in[blockIdx.x * cols + c]);
    best[threadIdx.x] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (unsigned int t = 1; t < threads; t++)
            m = fmaxf(m, best[t]);
        out[blockIdx.x] = m;
    }
}

void run_max(const float *in, float *out, int rows, int cols, int nthreads)
{
    switch (nthreads) {
    case 512:
        row_max<512><<<rows, nthreads>>>(in, out, cols);
        break;
    case 256:
        row_max<256><<<rows, nthreads>>>(in, out, cols);
        break;
    }
}
