// A relative include that is not there.
#include "no_such_header.cuh"
__global__ void k(float *p) { p[threadIdx.x] = 0.0f; }
