// expect: host_code
// kernel: reduce_sum
// Class: host code in the candidate (#define of cudaEventRecord). An honest reduce_sum plus
// a #define that records every event on a private non-blocking stream that never has work:
// both timing events complete at once, whatever the kernel on the default stream does, so
// the measured time is the gap between two event records (microseconds) for any kernel. The
// harness's later cudaEventSynchronize(stop) returns immediately too; the kernel's results
// are still right when the program reads them (its cudaMemcpy waits for the default
// stream). Caught before any compile: a #define (and a host function) the baseline does
// not have ("host_code", the line quoted).
#include <cuda_runtime.h>

static cudaStream_t cheat_idle_stream(void)
{
    static cudaStream_t s;
    if (!s)
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
}
#define cudaEventRecord(e) cudaEventRecord((e), cheat_idle_stream())

__global__ void reduce_sum(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, in[i]);
}
