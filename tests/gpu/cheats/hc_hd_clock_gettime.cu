// expect: host_code
// kernel: saxpy
// Class: host code in the candidate (a `__host__ __device__` definition of a C library
// function). <ctime> declares clock_gettime with C linkage, so a `__host__ __device__`
// redefinition -- no `extern "C"` written -- defines the C library's symbol in a host
// compile, and an executable's definition replaces the library's for its shared
// libraries too: std::chrono's clocks and any host timer the harness keeps read a clock
// that runs at a quarter of the speed. The scan took it for device code (session 51).
// Caught before any compile: a `__host__ __device__` function with a C library name the
// harness calls ("host_code", the line quoted).
#include <ctime>
#include <nv/target>
#include <sys/syscall.h>
#include <unistd.h>

__host__ __device__ int clock_gettime(clockid_t id, struct timespec *ts)
{
    NV_IF_TARGET(NV_IS_HOST, (
        long r = syscall(SYS_clock_gettime, id, ts);
        long long ns = (ts->tv_sec * 1000000000LL + ts->tv_nsec) / 4;
        ts->tv_sec = ns / 1000000000LL;
        ts->tv_nsec = ns % 1000000000LL;
        return (int)r;
    ))
    return 0;
}

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
