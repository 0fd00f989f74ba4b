// out[b, c, j] = feat[b, c, sel[b, j]]: every gathered element is its own sector; a row of
// feat is hit many times by the blocks blockIdx.y/z pick for it.
__global__ void pick_features(int nb, int nc, int len, int cnt, const float *feat, const int *sel, float *out)
{
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < cnt; j += blockDim.x * gridDim.x) {
        int b = blockIdx.z, c = blockIdx.y;
        out[(b * nc + c) * cnt + j] = feat[(b * nc + c) * len + sel[b * cnt + j]];
    }
}
