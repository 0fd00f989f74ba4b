// expect: host_code
// kernel: reduce_sum
// Class: host code in the candidate (a `__host__ __device__` out-of-line definition of a C++
// library member). `std::chrono::steady_clock::now()` is declared in <chrono> and defined in
// libstdc++.so; defining it in the text (nvcc warns that a __host__ function is
// "redeclared with __host__ __device__" and takes it) puts
// `_ZNSt6chrono3_V212steady_clock3nowEv` in any host compile of the text, and an
// executable's definition replaces the shared library's: a host timer built on
// steady_clock (std::chrono, the harness's own or a wall-clock budget) runs at a quarter of
// the speed. The scan took it for device code (session 51). Caught before any compile: a
// `__host__ __device__` function whose name is qualified by a library's namespace (std,
// cuda, thrust, cub ...), or defined in a `namespace std {` block ("host_code", the line
// quoted).
#include <chrono>
#include <ctime>
#include <nv/target>

__host__ __device__ std::chrono::steady_clock::time_point std::chrono::steady_clock::now() noexcept
{
    long long ns = 0;
    NV_IF_TARGET(NV_IS_HOST, (
        struct timespec ts;
        timespec_get(&ts, TIME_UTC);
        ns = (ts.tv_sec * 1000000000LL + ts.tv_nsec) / 4;
    ))
    return time_point(duration(ns));
}

__global__ void reduce_sum(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, in[i]);
}
