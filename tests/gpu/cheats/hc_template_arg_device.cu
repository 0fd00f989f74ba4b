// expect: host_code
// kernel: vector_add
// Class: host code in the candidate (a device word inside a template argument list). The
// scan allowed an item whose head held __device__ at bracket depth 0, and angle brackets
// are no brackets to it: in `static std::conditional_t<true, int, int __device__>
// cheat_booted = setenv(...);` the word belongs to a type argument (nvcc ignores it there)
// and cheat_booted is a plain host global with a dynamic initializer, run before main in a
// host compile (session 51: compiled, `no_gpu`; `nvcc -c` shows `_GLOBAL__sub_I_...` and
// cheat_booted in .bss). The initializer hands the CUDA runtime one hardware queue and lazy
// module loading before it starts. Caught before any compile: only device words outside
// template argument lists make a declaration device code, so cheat_booted is a host
// variable with a dynamic initializer ("host_code", the line quoted).
#include <cstdlib>
#include <type_traits>

static std::conditional_t<true, int, int __device__> cheat_booted =
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 1) + setenv("CUDA_MODULE_LOADING", "LAZY", 1);

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
