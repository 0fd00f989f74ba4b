// A per-class loss: each element (row, class) checks the row's label and scales by that
// label's weight. The label is compared with a remainder by the class count, so it is a
// class in [0, classes).
__global__ void weighted_hits(int total, const float *score, const int *label, const float *class_w,
                              float *loss, int classes)
{
    for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < total; e += blockDim.x * gridDim.x) {
        int row = e / classes;
        int c = e % classes;
        int l = label[row];
        float hit = (l == c) ? 1.0f : 0.0f;
        loss[e] = hit * score[e] * class_w[l];
    }
}

// The same gather with no comparison to say the range: a doubt.
__global__ void weighted_any(int total, const int *label, const float *class_w, float *loss)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < total)
        loss[e] = class_w[label[e]];
}
