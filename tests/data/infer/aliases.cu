// Pointers made from a parameter: the elements reached through them are not in the
// parameter's own subscripts, so counts must follow them (or doubt), never stop at out[i].

// out[i] and hi[i] with hi = out + n: 2n elements
__global__ void two_halves(const float *a, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a[i];
        float *hi = out + n;
        hi[i] = 2.0f * a[i];
    }
}

// an input read through row = a + n: 2n elements to allocate, not n
__global__ void upper_half_sum(const float *a, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float *upper = a + n;
        out[i] = a[i] + upper[i];
    }
}

// the address of a row: written through it, so an output of rows * n
__global__ void row_fill(const float *a, float *out, int rows, int n)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float *row = &out[r * n];
    for (int j = 0; j < n; j++)
        row[j] = a[r * n + j];
}

// which buffer is written depends on a flag: both may be, neither count is known
__global__ void pick(const float *a, float *even, float *odd, int flag, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float *o = flag ? even : odd;
    if (i < n)
        o[i] = a[i];
}
