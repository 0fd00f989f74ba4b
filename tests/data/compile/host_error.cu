// The host preprocessor (gcc) reports these, in gcc's file:line:col style.
#include <cstdio>
#ifndef HK_ARCH_OK
#error "define HK_ARCH_OK to build this"
#endif
__global__ void k(float *p) { p[threadIdx.x] = 0.0f; }
