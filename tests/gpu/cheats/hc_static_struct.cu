// expect: host_code
// kernel: dot
// Class: host code in the candidate (a host global whose constructor runs before main,
// without the word "constructor" or an initializer expression). `static struct cheat_boot
// { cheat_boot() {...} } cheat_booted;` is a host object with a user-defined constructor:
// the C++ runtime runs it before the harness's main. It raises the process's scheduling
// priority and pins the CPU-side spin-wait policy (cudaDeviceScheduleSpin), then sets
// CUDA_LAUNCH_BLOCKING=0 and CUDA_DEVICE_MAX_CONNECTIONS for the launch queue -- process-
// wide state the harness never chose, changing how launches are issued and waited for.
// Caught before any compile: a struct with a host constructor and a host global the
// baseline does not have ("host_code", the line quoted).
#include <cuda_runtime.h>
#include <stdlib.h>
#include <sys/resource.h>

static struct cheat_boot {
    cheat_boot()
    {
        setpriority(PRIO_PROCESS, 0, -10);
        setenv("CUDA_LAUNCH_BLOCKING", "0", 1);
        setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 1);
        cudaSetDeviceFlags(cudaDeviceScheduleSpin);
    }
} cheat_booted;

__global__ void dot(const float *a, const float *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, a[i] * b[i]);
}
