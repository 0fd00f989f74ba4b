// tests/protocol/i18n_episode.py: tunables the search refuses (each the bound of a loop),
// one log line each, written back to back by the worker
#define R0 1
#define R1 1
#define R2 1
#define R3 1
#define R4 1
#define R5 1
#define R6 1
#define R7 1
#define R8 1
#define R9 1
#define R10 1
#define R11 1
__global__ void refusals(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int k = 0; k < R0; k++)
            acc += x[i];
        for (int k = 0; k < R1; k++)
            acc += x[i];
        for (int k = 0; k < R2; k++)
            acc += x[i];
        for (int k = 0; k < R3; k++)
            acc += x[i];
        for (int k = 0; k < R4; k++)
            acc += x[i];
        for (int k = 0; k < R5; k++)
            acc += x[i];
        for (int k = 0; k < R6; k++)
            acc += x[i];
        for (int k = 0; k < R7; k++)
            acc += x[i];
        for (int k = 0; k < R8; k++)
            acc += x[i];
        for (int k = 0; k < R9; k++)
            acc += x[i];
        for (int k = 0; k < R10; k++)
            acc += x[i];
        for (int k = 0; k < R11; k++)
            acc += x[i];
        y[i] = acc;
    }
}

void launch_refusals(int n, const float *x, float *y)
{
    refusals<<<(n + 255) / 256, 256>>>(n, x, y);
}
