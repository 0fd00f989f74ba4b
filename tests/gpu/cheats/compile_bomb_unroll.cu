// expect: compile_error|timeout
// kernel: vector_add
// Class 7 (the compile as a target): vector_add with a "fully unrolled" 2^20-step loop. The
// text is device code only and passes the host-code scan, but cicc works on the unroll for
// over a minute and GBs (measured on the 2-core VM: 75 CPU-s, 1.6 GB resident, then it
// finishes): each candidate compiled in parallel takes a core and memory from the machine and
// from the episodes beside it. Where the compile's CPU or memory limit is below that
// (measure_build_runner_spec, MEASURE_COMPILE_*; CI's cheats_cpu runs it at 3 CPU-s) it is
// refused as compile_error naming the limit; under the default limit (120 CPU-s per process)
// on a fast host it compiles, and the 2^20 loads per thread then run into the candidate's
// time limit: timeout. The index is unsigned so the kernel is well defined either way
// (session 34 on the H100: the signed `k * 7919` overflowed and read out of bounds).
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = a[i] + b[i];
    float pad = 0.f;
#pragma unroll
    for (int k = 0; k < (1 << 20); k++)
        pad += a[((unsigned)i + (unsigned)k * 7919u) % (unsigned)n] * (float)(k & 1) * 0.f;
    c[i] = acc + pad;
}
