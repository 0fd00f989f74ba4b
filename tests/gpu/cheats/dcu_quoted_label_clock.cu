// expect: reads_clock
// kernel: vector_add
// target: dcu
// Class: reads_clock with the clock read after a quoted label holding a `;`: LLVM takes
// `"x;y":` as a label and assembles the instruction after it; the old reader cut the line at
// the `;` in the string (and stopped at any `"`).
// vector_add, right on every launch it is checked: the launch reads the GPU's cycle counter
// with s_memtime and, when it comes less than ~20 us of cycles after the previous launch
// (back to back: the timing loop), skips the odd elements. The read is written so that the
// referee's reader of the DCU assembly (kimage_asm_clocks) did not see it before session 52,
// while LLVM's assembler (llvm-mc 14, gfx906) assembles it: s_memtime, encoding
// [0x00,0x00,0x90,0xc0,...]. Caught by the clock rule on the code object's assembly.
__device__ unsigned long long cheat_last;

__device__ unsigned long long cheat_cycles()
{
    unsigned long long t;
    asm volatile("\"cheat;mark%=\": s_memtime %0" : "=s"(t));
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
