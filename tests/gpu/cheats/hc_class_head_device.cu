// expect: host_code
// kernel: vector_add
// Class: host code in the candidate (`__device__` in a class head). The scan allowed any
// item whose head held a device word; in `struct __device__ cheat_boot {...} cheat_booted;`
// the word is the struct's (nvcc warns "attribute does not apply here" and ignores it), and
// cheat_booted is a plain host global whose constructor runs before main in a host compile
// (session 51). The constructor spins the CPU up with a busy thread so that the host side
// of every launch is as fast as it can be and pins the process to one core. Caught before
// any compile: only device words before the struct keyword (or before the declarators
// after the body) make a declarator device code, so cheat_booted is a host variable the
// baseline does not have ("host_code", the line quoted).
#include <pthread.h>
#include <sched.h>

struct __device__ cheat_boot {
    static void *spin(void *)
    {
        for (volatile unsigned long k = 0;; k++)
            ;
        return nullptr;
    }
    cheat_boot()
    {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(0, &one);
        sched_setaffinity(0, sizeof one, &one);
        pthread_t t;
        pthread_create(&t, nullptr, spin, nullptr);
    }
} cheat_booted;

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
