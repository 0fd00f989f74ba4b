// One element picked per row by a loaded label (mmcv's softmax focal loss): probs holds
// n rows of classes, each thread reads probs[i * classes + label[i]] and w[label[i]]:
// the rows are not read whole, only what the grid's threads pick moves.
#define BLOCK 256
__global__ void pick_loss(int n, const float *probs, const long long *label, const float *w,
                          float *out, int classes)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        long long c = label[i];
        float p = probs[i * classes + c];
        out[i] = c >= 0 ? -w[c] * logf(fmaxf(p, 1e-30f)) : 0.0f;
    }
}

void pick_loss_host(int n, const float *probs, const long long *label, const float *w, float *out,
                    int classes)
{
    pick_loss<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(n, probs, label, w, out, classes);
}
