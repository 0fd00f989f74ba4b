// expect: host_code
// kernel: vector_add
// Class 7 (sandbox escapes at compile time): `.incbin` inside a device function's inline asm.
// ptxas has no .incbin, but a DCU build's assembler does (hipcc: the inline asm is assembled
// with the kernel), so a file read at compile time lands in the code object. Refused by the
// host-code scan (`.incbin` in a string of any item the baseline does not have), and on a DCU
// the clock scan of the assembly counts it too (docs/referee.md, "A candidate reads no clock").
__device__ void hk_cheat_blob()
{
    asm volatile(".incbin \"/etc/hostname\"");
}

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
