// expect: host_code
// kernel: vector_add
// Class: host code in the candidate (the real work launched on another stream). The
// baseline's launcher launch_vector_add, changed to launch on a private non-blocking stream,
// and the HK_HOST_CALL_vector_add hook pointing the first harness's timing loop at it. A
// non-blocking stream does not synchronize with the default stream the timing events are
// recorded on, so the stop event completes as soon as the launch is queued: the timed
// interval holds no kernel. The results still land before the harness's device-wide
// synchronize and its copies, so every output check passes. Caught before any compile: a
// changed launcher, a #define and a host function ("host_code"); without host code a
// candidate cannot pick its stream, and the referee catches any work still running after
// a timed launch as "stray_work".
#include <cuda_runtime.h>

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

void launch_vector_add(const float *a, const float *b, float *c, int n)
{
    static cudaStream_t side;
    if (!side)
        cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    vector_add<<<(n + 255) / 256, 256, 0, side>>>(a, b, c, n);
}

#define HK_HOST_CALL_vector_add 1
void hk_host_vector_add(const float *a, const float *b, float *c, int n)
{
    launch_vector_add(a, b, c, n);
}
