// Reads a __constant__ table of integer offsets the program fills with cudaMemcpyToSymbol:
// random integers would read out of bounds, so inference must doubt it.
__constant__ int taps[8];

__global__ void gather_taps(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int k = 0; k < 8; k++)
            acc += x[(i + taps[k]) % n];
        y[i] = acc;
    }
}

void run(const float *x, float *y, int n)
{
    gather_taps<<<(n + 255) / 256, 256>>>(x, y, n);
}
