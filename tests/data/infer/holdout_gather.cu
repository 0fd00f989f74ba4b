// Spec inference on a gather whose index the kernel itself checks, the early exit's block
// carrying a comment on the if's line (as mmcv's assign_score_withk writes it): written here
// from scratch. Read by tests/unit/test_spec_infer_holdout.c.
__global__ void pick_rows(int nrows, int n, int width, const float *rows, const int *which, float *out)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        const int r = which[i];
        if (r < 0 || r >= nrows) {  // no such row: out[i] keeps what it held
            continue;
        }
        float s = 0.0f;
        for (int j = 0; j < width; j++)
            s += rows[r * width + j];
        out[i] = s;
    }
}

void pick_all(int nrows, int n, int width, const float *rows, const int *which, float *out)
{
    pick_rows<<<(n + 255) / 256, 256>>>(nrows, n, width, rows, which, out);
}
