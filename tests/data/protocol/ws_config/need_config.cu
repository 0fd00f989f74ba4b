// Compiles only when the flags of .hyperkernel.json were passed to nvcc.
#ifndef HK_FROM_CONFIG
#error "flags from .hyperkernel.json were not applied"
#endif
__global__ void cfg_kernel(float *p) { p[threadIdx.x] *= 2.0f; }
void launch(float *p) { cfg_kernel<<<1, 128>>>(p); }
