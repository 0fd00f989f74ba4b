// A weighted p-power loss: the exponent is a kernel parameter (every caller passes 2), so
// pow runs its logarithm and exponential for a square; the literal pow(d, 2.0f) the compiler
// folds by itself.
__global__ void power_loss(const float *pred, const float *target, float *loss, float p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float d = fabsf(pred[i] - target[i]);
        loss[i] = powf(d, p) + 0.5f * pow(d, 2.0f);
    }
}
