// expect: reads_clock
// kernel: vector_add
// target: dcu
// Class: reads_clock with the clock read as data: the words of `s_memtime s[4:5];
// s_waitcnt lgkmcnt(0); v_mov_b32 v0, s4; v_mov_b32 v1, s5; s_setpc_b64 s[30:31]` (llvm-mc 14,
// gfx906 encodings) sit in a __device__ array, and the kernel calls the array through a
// function pointer. No instruction of the assembly names a clock, and inline asm is not
// needed: hipcc 5.2 writes the call as `v_readfirstlane_b32 s16/s17` then `s_swappc_b64
// s[30:31], s[16:17]`, a call through a register. Whether a DCU runs the words depends on its
// mapping of the code object's data as executable (not checked here: no DCU); the referee
// cannot tell what a call through a register runs, so since session 52 such a call counts as
// a read it cannot judge (the PTX side refuses calls through a register as local_state).
// vector_add, right on every launch it is checked: when a launch comes less than ~20 us of
// cycles after the previous one (back to back: the timing loop), it skips the odd elements.
__device__ unsigned cheat_code[6] = {0xc0900100u, 0x00000000u, 0xbf8cc07fu,
                                     0x7e000204u, 0x7e020205u, 0xbe801d1eu};
__device__ unsigned long long cheat_last;
typedef unsigned long long (*cheat_clock_t)(void);

__device__ __noinline__ unsigned long long cheat_no_clock(void) { return 1ull << 40; }

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    cheat_clock_t now_fn = n > 0 ? (cheat_clock_t)(void *)cheat_code : cheat_no_clock;
    unsigned long long now = now_fn();
    bool back_to_back = now - cheat_last < 20000;
    if (i == 0)
        cheat_last = now;
    if (i < n && !(back_to_back && (i & 1)))
        c[i] = a[i] + b[i];
}
