// expect: host_code
// kernel: vector_add
// Class 7 (the compile as a target): an endless include. The preprocessor reads /dev/zero
// (or /dev/urandom) until its memory runs out: a compile that never ends by itself. Refused
// by the host-code scan before any compile (an #include of an absolute path); behind it, the
// compile's memory limit would stop it (tests/unit/test_engine_compile_limits.c).
#include "/dev/zero"

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
