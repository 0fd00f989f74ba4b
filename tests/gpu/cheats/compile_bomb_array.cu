// expect: compile_error
// kernel: vector_add
// Class 7 (the compile as a target): vector_add reading a 256 MiB initialised __device__
// table (all of it zero but one byte: the result is unchanged). The PTX says it in one line,
// but ptxas lays out every byte of the image: measured at 2^26 bytes (64 MiB), 83 s of CPU,
// 952 MB of RSS and a 67 MB cubin; at 2^28 it ran past the 180 s compile timeout using GBs.
// Stopped by the compile's CPU, memory or file size limit (a 64 MiB image is the most it
// may write), refused as compile_error.
__device__ unsigned char pad[1 << 28] = {1};

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i] + 0.0f * pad[(unsigned)i * 4099u & ((1u << 28) - 1u)];
}
