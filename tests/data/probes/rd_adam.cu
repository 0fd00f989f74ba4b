// Probe: an Adam step (no weight decay), the bias corrections computed in the kernel with
// powf of the step count, a grid-stride loop over size_t positions, temporaries.
__global__ void rd_adam(float *param, const float *grad, float *m, float *v, size_t n,
                        float lr, float beta1, float beta2, float eps, int step)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float g = grad[i];
        float mi = beta1 * m[i] + (1.0f - beta1) * g;
        float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
        m[i] = mi;
        v[i] = vi;
        float mhat = mi / (1.0f - powf(beta1, step));
        float vhat = vi / (1.0f - powf(beta2, step));
        param[i] -= lr * mhat / (sqrtf(vhat) + eps);
    }
}
