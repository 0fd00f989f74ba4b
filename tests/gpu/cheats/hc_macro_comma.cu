// expect: host_code
// kernel: saxpy
// Class: host code in the candidate (a declaration split by a macro). hc_trailing_device.cu
// with the comma spelled `COMMA` (`#define COMMA ,`): `int cheat_pad __device__ COMMA
// cheat_booted = ...;` reads to the scan as one declarator, covered by its device word,
// and to nvcc as two, cheat_booted a host global with a dynamic initializer run before main
// in a host compile (`nvcc -c`: _GLOBAL__sub_I_...). Macros that expand to `;` or braces
// were dangerous outside a body; one that expands to a comma or an angle bracket outside
// parentheses, or to an asm label (`#define LABEL __asm__`), was not (session 51: compiled,
// `no_gpu`). Caught before any compile: such a macro used outside a function body at
// parenthesis depth 0 ("host_code", the line quoted).
#include <cstdlib>
#include <sys/resource.h>

#define COMMA ,

int cheat_pad __device__ COMMA cheat_booted = setpriority(PRIO_PROCESS, 0, -20);

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
