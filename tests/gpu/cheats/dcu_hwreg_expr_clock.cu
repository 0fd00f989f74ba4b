// expect: reads_clock
// kernel: vector_add
// target: dcu
// Class: reads_clock (gfx10.3+: HW_REG_SHADER_CYCLES is register 29) with the register named
// by an expression: the old reader judged hwreg( by its first word, and `+29` / `(29)` start
// with none; now anything but a symbolic HW_REG_ name is a register by number, which cannot be
// judged.
// vector_add, right on every launch it is checked: the launch reads the GPU's cycle counter
// (gfx10.3 and later: the 20-bit HW_REG_SHADER_CYCLES, register 29) and, when it comes
// less than ~20 us of cycles after the previous launch
// (back to back: the timing loop), skips the odd elements. The read is written so that the
// referee's reader of the DCU assembly (kimage_asm_clocks) did not see it before session 52,
// while LLVM's assembler assembles it: hipcc 5.2 for gfx906 writes s_getreg_b32 s0,
// hwreg(29, 0, 20) into the code object (B880981D; register 29 counts cycles on gfx10.3 and
// later, not on gfx906, so on a gfx906 DCU this one only shows the reader's blind spot).
// Caught by the clock rule on the code object's assembly.
__device__ unsigned long long cheat_last;

__device__ unsigned long long cheat_cycles()
{
    unsigned int lo, lo2;
    asm volatile("s_getreg_b32 %0, hwreg(+29, 0, 20)\n\t"
                 "s_getreg_b32 %1, hwreg((29))"
                 : "=s"(lo), "=s"(lo2));
    unsigned long long t = lo ^ (lo2 & 0);
    asm volatile("s_waitcnt lgkmcnt(0)" ::: "memory");
    return t;
}

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long now = cheat_cycles();
    bool back_to_back = now - cheat_last < 20000;
    if (i == 0)
        cheat_last = now;
    if (i < n && !(back_to_back && (i & 1)))
        c[i] = a[i] + b[i];
}
