// register_carry: an outer loop over rounds; each round each thread relaxes its elements
// w[k], k = threadIdx.x + c * blockDim.x, and the block keeps the largest.
__global__ void rounds(int n, int m, const float *__restrict__ x, float *__restrict__ w, float *__restrict__ out)
{
    __shared__ float best[256];
    for (int r = 0; r < m; r++) {
        float b = 0.0f;
        for (int k = threadIdx.x; k < n; k += blockDim.x) {
            w[k] = fminf(w[k], x[k] * (float)(r + 1));
            b = fmaxf(b, w[k]);
        }
        best[threadIdx.x] = b;
        __syncthreads();
        if (threadIdx.x == 0) {
            float t = best[0];
            for (int i = 1; i < blockDim.x; i++)
                t = fmaxf(t, best[i]);
            out[r] = t;
        }
        __syncthreads();
    }
}
