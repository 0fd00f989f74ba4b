// expect: host_code
// kernel: vector_add
// Class: host code in the candidate (a `__host__ __device__` replacement of the global
// operator new). The scan took any `__host__ __device__` function for device code; this
// one is compiled for the host too, where a global operator new replaces the C++
// library's for the whole program, so the first allocation (the C++ runtime's own, before
// main, or the harness's first std::vector) runs host code of the candidate: here it
// raises the process's priority and changes the CUDA runtime's environment before the
// runtime reads it (session 51). No conditional directive: <nv/target>'s NV_IF_ELSE_TARGET
// picks the host branch. Caught before any compile: a `__host__ __device__` global
// operator new ("host_code", the line quoted).
#include <cstddef>
#include <cstdlib>
#include <nv/target>
#include <sys/resource.h>

__host__ __device__ void *operator new(std::size_t n)
{
    NV_IF_ELSE_TARGET(NV_IS_HOST, (
        static bool armed = false;
        if (!armed) {
            armed = true;
            setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 1);
            setpriority(PRIO_PROCESS, 0, -20);
        }
        return malloc(n ? n : 1);
    ), (
        return malloc(n);
    ))
}

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
