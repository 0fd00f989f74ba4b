// expect: out_of_bounds|cuda_error
// kernel: vector_add
// Class: out-of-bounds reads. vector_add with a software "prefetch" a fixed 256K elements
// (1 MiB) ahead of each element of a, issued unconditionally and used only when it is in
// range, so the output is always right. The last 256K threads read up to 1 MiB past the
// end of a: far beyond the 64 KiB guard zones (which only catch writes, and only near the
// buffer). The allocation's 2 MiB pages usually cover the overrun, so there is no fault
// and no wrong value; it is a 1.0x kernel, so the sanitizer stage sees it when it is the
// accepted best: memcheck reports the invalid global read ("out_of_bounds"). Where the
// overrun reaches an unmapped page the launch faults ("cuda_error": illegal address).
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    const int ahead = 1 << 18;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float next = *(volatile const float *)(a + (size_t)i + ahead);
    if (i < n)
        c[i] = a[i] + b[i];
    if (i + ahead < n && next != a[i + ahead])
        c[i] = 0.0f; /* never: the same element read twice */
}
