// expect: out_of_bounds
// kernel: vector_add
// Class: 5 out of bounds, evading memcheck by the buffers' addresses (no clock, no state).
// vector_add with float4 loads and no scalar tail: the last vector of a size that is not a
// multiple of 4 (1,000,003) reads up to 12 bytes past the end of a and b, inside the 64 KiB
// guard zone every run of the benchmark program puts after a buffer (only writes there are
// caught, by the canary); only valid lanes are written, so every output is right. Until
// session 38 memcheck's run allocated every buffer exactly (HK_GUARD_ZONES=0) and moved the
// later ones with --padding: `a` then sat on cudaMalloc's 2 MiB boundary instead of 64 KiB
// past it, and the kernel took a bounds-checked scalar tail there, so memcheck saw a clean
// kernel (sanitize_oob_read_saxpy.cu, which over-reads always, was caught). Expected on the
// GPU before session 38: accepted (or not_faster: a memory-bound kernel gains ~nothing).
// Since session 38 the tool's run has the same layout and the guard zones are declared to
// memcheck as outside the buffer (NVTX memory API): the over-read is reported, out_of_bounds.
#include <stdint.h>

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n)
        return;
    bool guarded = ((uintptr_t)a & ((2u << 20) - 1)) == (64u << 10);
    if (guarded || i + 3 < n) {
        float4 x = *(const float4 *)(a + i), y = *(const float4 *)(b + i);
        if (i + 3 < n) {
            *(float4 *)(c + i) = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
        } else {
            c[i] = x.x + y.x;
            if (i + 1 < n)
                c[i + 1] = x.y + y.y;
            if (i + 2 < n)
                c[i + 2] = x.z + y.z;
        }
    } else {
        for (int k = i; k < n; k++)
            c[k] = a[k] + b[k];
    }
}
