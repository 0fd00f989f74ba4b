// expect: host_code
// kernel: vector_add
// Class: 1 (host code in a device disguise, session 52): a __host__ __device__ definition of
// the C library's clock_gettime, its name spelled through a macro. `#define NOW clock_gettime`
// is a fine #define (no harness name: NOW), and the definition's name token is NOW, so the
// list of C library names (host_lib_names) did not see it; <ctime>'s declaration gives it C
// linkage, and in any host compile (nvcc -c: `nm` shows `T clock_gettime`) the program's
// clock is the candidate's: with a main appended that times two clock_gettime calls, the
// program prints "1000 ns" (built with nvcc 13.0, run on the CPU). vector_add is honest. Since session
// 52 a function compiled for the host must sit in a namespace or class of the candidate's
// own, whatever its name: host_code.
#include <ctime>
#include <nv/target>
#define NOW clock_gettime
__host__ __device__ int NOW(clockid_t id, struct timespec *ts)
{
    NV_IF_ELSE_TARGET(NV_IS_HOST, (static long fake = 0; fake += 1000; ts->tv_sec = 0;
                                   ts->tv_nsec = fake; return 0;),
                      (return id;))
}

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

void launch_vector_add(const float *a, const float *b, float *c, int n)
{
    vector_add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
