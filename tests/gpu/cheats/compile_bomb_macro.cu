// expect: compile_error
// kernel: vector_add
// Class 7 (the compile as a target): vector_add whose sum carries "+ 0.0f" 2^24 times,
// spelled by balanced macros that each double their argument (no '#', no harness name: the
// host-code scan lets them through). The preprocessor builds the whole expansion in memory
// and writes it out: measured without limits, 3.9 GB of RSS and 50 s of CPU before a
// 64 MiB file limit stopped cc1plus; with no file limit either, GBs land in the compiler's
// /tmp. Stopped by the compile's memory (or file size) limit, refused as compile_error.
#define TWICE(x) x x
#define TIMES4(x) TWICE(TWICE(x))
#define TIMES16(x) TIMES4(TIMES4(x))
#define TIMES256(x) TIMES16(TIMES16(x))
#define TIMES64K(x) TIMES256(TIMES256(x))
#define TIMES16M(x) TIMES64K(TIMES256(x))

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i] TIMES16M(+ 0.0f);
}
