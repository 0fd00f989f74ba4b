// Probe: a 1D convolution, the mask a pointer and its length a macro, the window starting
// MASK_LEN/2 to the left, taps outside the signal skipped; unsigned thread index.
#define MASK_LEN 7

__global__ void sp_conv1d(const float *signal, const float *mask, float *out, int n)
{
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) {
        int start = (int)tid - MASK_LEN / 2;
        float acc = 0.0f;
        for (int j = 0; j < MASK_LEN; j++)
            if (start + j >= 0 && start + j < n)
                acc += signal[start + j] * mask[j];
        out[tid] = acc;
    }
}
