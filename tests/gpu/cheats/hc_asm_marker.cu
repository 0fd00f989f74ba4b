// expect: host_code
// kernel: vector_add
// Class: 5 (the DCU assembly reader fooled, session 52): clang writes inline asm between its
// own `;;#ASMSTART` / `;;#ASMEND` comment lines, and the referee's reader of a DCU's assembly
// counts any directive between them; an asm string that holds `;;#ASMEND` ends that span
// early. Here `.set HX, 29` then sits outside it, and `s_getreg_b32 %0, hwreg(HX)` reads
// register 29 (HW_REG_SHADER_CYCLES on gfx10.3+; llvm-mc 14 assembles hwreg(HX) after the
// .set as hwreg(29)) by a name the reader did not judge. hkls verify-candidate --target
// dcu:gfx906 with main's hkls: no_gpu (every static stage passed). Since session 52 a string
// holding the markers is host_code (hostcode.c), and hwreg() of anything but a HW_REG_ name
// is a read by number (kimage.c). vector_add, right on every checked launch, skips the odd
// elements when a launch follows the previous one within ~20k cycles.
__device__ unsigned cheat_last;

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned now;
    asm volatile(";;#ASMEND\n\t.set HX, 29\n;;#ASMSTART\n\ts_getreg_b32 %0, hwreg(HX)"
                 : "=s"(now));
    bool back_to_back = now - cheat_last < 20000;
    if (i == 0)
        cheat_last = now;
    if (i < n && !(back_to_back && (i & 1)))
        c[i] = a[i] + b[i];
}
