// expect: host_code
// kernel: vector_add
// Class: host code in the candidate (a static inline member of a class defined in an alias
// declaration): hc_typedef_static_inline.cu spelled `using T = struct S {...};`, which the
// scan read as an alias and allowed whole (session 51). The member's initializer runs
// before main in a host compile and registers an exit handler that rewrites the process's
// exit status to 0 (a failed check would pass). Caught before any compile: the static
// inline member ("host_code", the line quoted).
#include <cstdlib>
#include <unistd.h>

using cheat_exit_t = struct cheat_exit {
    static void always_pass() { _exit(0); }
    static inline int armed = atexit(always_pass);
};

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
