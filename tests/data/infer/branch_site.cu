// Launches in branches on a launcher parameter: the site is the one in the branch every
// call of the launcher takes, with its template argument and block.
#include <cuda_runtime.h>

template <int BS> __global__ void scale_if_else(float *out, const float *in, int n)
{
    int i = blockIdx.x * BS + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
}

template <int BS> __global__ void scale_two_ifs(float *out, const float *in, int n)
{
    int i = blockIdx.x * BS + threadIdx.x;
    if (i < n)
        out[i] = 3.0f * in[i];
}

template <int BS> __global__ void scale_disagree(float *out, const float *in, int n)
{
    int i = blockIdx.x * BS + threadIdx.x;
    if (i < n)
        out[i] = 4.0f * in[i];
}

// if (P == 64) { <64> } else { <256> }, every call passing a local set once to 256
void run_if_else(float *out, const float *in, int n, int block_size)
{
    if (block_size == 64) {
        scale_if_else<64><<<(n + 63) / 64, 64>>>(out, in, n);
    } else {
        dim3 threads(block_size);
        scale_if_else<256><<<(n + 255) / 256, threads>>>(out, in, n);
    }
}

// two ifs, the call passing the literal 512
void run_two_ifs(float *out, const float *in, int n, int threads)
{
    if (threads == 128)
        scale_two_ifs<128><<<(n + 127) / 128, threads>>>(out, in, n);
    if (threads == 512)
        scale_two_ifs<512><<<(n + 511) / 512, threads>>>(out, in, n);
}

// the calls pass 64 and 256: no branch is the program's, the first launch stays
void run_disagree(float *out, const float *in, int n, int block_size)
{
    if (block_size == 64) {
        scale_disagree<64><<<(n + 63) / 64, 64>>>(out, in, n);
    } else {
        scale_disagree<256><<<(n + 255) / 256, 256>>>(out, in, n);
    }
}

int main(int argc, char **argv)
{
    int n = 1 << 20;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, n * sizeof(float));
    int bs = 256;
    run_if_else(out, in, n, bs);
    run_two_ifs(out, in, n, 512);
    run_disagree(out, in, n, 64);
    run_disagree(out, in, n, 256);
    return argc > 1 ? 0 : 1;
}
