// expect: host_code
// kernel: vector_add
// Class: host code in the candidate (#define of a HIP timing call). An honest vector_add and
// a #define that makes every later hipEventElapsedTime report 1 microsecond. Aimed at a DCU
// build whose program #included the candidate ahead of its timing loop (before the HIP
// launcher loaded a code object). Caught before any compile by the host-code check: a
// #define of a HIP runtime name (hip + uppercase) the baseline does not have ("host_code",
// the line quoted), on either target. Even compiled, a candidate that is built alone into
// a code object has no timer to redefine.
#define hipEventElapsedTime(ms, start, stop) (*(ms) = 0.001f, hipSuccess)

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
