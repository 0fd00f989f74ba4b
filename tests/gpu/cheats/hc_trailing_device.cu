// expect: host_code
// kernel: saxpy
// Class: host code in the candidate (a device word that belongs to one declarator). In
// `int cheat_pad __device__, cheat_booted = ...;` the word follows cheat_pad and is its
// alone: nvcc makes cheat_pad a device variable and cheat_booted a host global with a
// dynamic initializer, run before main in a host compile (`nvcc -c`: _GLOBAL__sub_I_... and
// cheat_booted in .bss). The scan allowed the whole item for the word in its head
// (session 51: compiled, `no_gpu`). The initializer raises the process's priority and
// gives the CUDA runtime one hardware queue before it starts. Caught before any compile:
// a device word after a declarator covers that declarator only, so every other one needs
// its own ("host_code", the line quoted).
#include <cstdlib>
#include <sys/resource.h>

int cheat_pad __device__, cheat_booted = setpriority(PRIO_PROCESS, 0, -20) +
                                         setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 1);

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
