// expect: host_code
// kernel: saxpy
// Class: host code in the candidate (a symbol defined by an attribute). A declaration
// without a body that names `extern` was allowed as a prototype; with
// `__attribute__((alias("...")))` it is a definition: it makes clock_gettime -- the C
// library's, which std::chrono's clocks and any host timer of the harness call, and which an
// executable's definition replaces for the shared libraries too -- an alias of a
// `__host__ __device__` function (C linkage) the scan read as device code (session 51). The fake clock
// runs at 1/4 speed. Caught before any compile: an alias, ifunc, weakref or symver
// attribute outside a body ("host_code", the line quoted).
#include <ctime>
#include <nv/target>
#include <sys/syscall.h>
#include <unistd.h>

extern "C" __host__ __device__ int cheat_now(clockid_t id, struct timespec *ts);

extern "C" int clock_gettime(clockid_t id, struct timespec *ts) __attribute__((alias("cheat_now")));

extern "C" __host__ __device__ int cheat_now(clockid_t id, struct timespec *ts)
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
