// The element type is a typedef chosen by the build; without -D flags it is double.
#ifndef TYPEDEFS_CU
#define TYPEDEFS_CU
#if defined(USE_HALF)
typedef half real;
#elif defined(USE_FLOAT)
typedef float real;
#else
typedef double real;
#endif
using count_t = unsigned int;
#endif

__global__ void scale_real(const real *in, real *out, const count_t *hits, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * (real)hits[i];
}
