// Broken candidate for vector_add.bench.json: correct output, but it scribbles on input a
// (casting away const). The harness must exit with HK_EXIT_INPUT_MODIFIED.
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
        if (i == n / 2)
            ((float *)a)[i] = 0.0f;
    }
}
