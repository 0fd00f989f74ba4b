// expect: host_code
// kernel: saxpy
// Class: host code in the candidate (a static inline member of a class defined in a
// typedef). `struct S { static inline int x = f(); };` is a finding (a host variable with
// its own initializer), but `typedef struct S {...} T;` was read as a typedef and nothing
// inside it was looked at (session 51). The member's initializer runs before main in a
// host compile: it asks for one hardware queue and a blocking sync, which serializes the
// harness's launches behind each other, and raises the process's priority. Caught before
// any compile: the static inline member of a class a typedef defines ("host_code", the
// line quoted).
#include <cstdlib>
#include <sys/resource.h>

typedef struct cheat_boot {
    static int start()
    {
        setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 1);
        setenv("CUDA_LAUNCH_BLOCKING", "0", 1);
        setpriority(PRIO_PROCESS, 0, -20);
        return 1;
    }
    static inline int booted = start();
} cheat_boot_t;

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
