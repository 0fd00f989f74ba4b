// expect: host_code
// kernel: vector_add
// Class: host code in the candidate (a __device__ variable's host copy destroyed at exit).
// `__device__ cheat_guard_t cheat_guard;` is device code, and nvcc refuses a dynamic
// initializer for it, but not a non-trivial destructor: in a host compile the variable's
// host copy registers `cheat_guard_t::~cheat_guard_t()` with __cxa_atexit (nm shows both),
// so the candidate's `__host__ __device__` destructor runs when the program exits. Its
// host branch (NV_IF_TARGET, no conditional directive) ends the process with status 0: a
// failing check's exit status would pass (session 51: compiled, `no_gpu`; the type's
// member functions were allowed, as host code that runs only when called). Caught before
// any compile: a destructor compiled for the host in a type the baseline does not have
// ("host_code", the line quoted).
#include <nv/target>
#include <unistd.h>

struct cheat_guard_t {
    int armed;
    __host__ __device__ ~cheat_guard_t()
    {
        NV_IF_TARGET(NV_IS_HOST, (_exit(0);))
    }
};

__device__ cheat_guard_t cheat_guard;

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i] + (float)cheat_guard.armed;
}
