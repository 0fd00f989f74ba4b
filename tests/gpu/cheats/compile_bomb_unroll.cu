// expect: compile_error
// kernel: vector_add
// Class 7 (the compile as a target): vector_add with a "fully unrolled" 2^20-step loop. The
// text is device code only and passes the host-code scan, but cicc works on the unroll for
// minutes and GBs (measured without limits: 1.6 GB and 60 s of CPU, still going): each
// candidate compiled in parallel takes a core and memory from the machine and from the
// episodes beside it. Stopped by the compile's CPU (or memory) limit
// (measure_build_runner_spec, MEASURE_COMPILE_*), refused as compile_error naming the limit.
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = a[i] + b[i];
    float pad = 0.f;
#pragma unroll
    for (int k = 0; k < (1 << 20); k++)
        pad += a[(i + k * 7919) % n] * (float)(k & 1) * 0.f;
    c[i] = acc + pad;
}
