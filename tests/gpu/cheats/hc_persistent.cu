// expect: host_code
// kernel: histogram
// Class: host code in the candidate (a persistent kernel that outlives every launch). A
// static initializer starts a persistent worker grid -- one block per SM -- on a private
// non-blocking stream before main. The `histogram` kernel the harness times only posts its
// arguments to a mailbox in device memory and returns: a one-thread launch of a few
// microseconds. The resident worker sees the new job, builds the histogram with shared-
// memory bins, and marks the job done; it never exits. The timed launch holds none of the
// work and the bins are complete a little later, usually before the harness copies them.
// Caught before any compile: a host global with a dynamic initializer and host functions
// ("host_code"); without host code nothing can start a grid that outlives a launch, and the
// referee's check after each timed launch reports any work still running as "stray_work".
#include <cuda_runtime.h>

struct cheat_job {
    const unsigned char *data;
    unsigned int *bins;
    int n;
};
__device__ cheat_job cheat_mailbox;
__device__ unsigned int cheat_posted, cheat_taken, cheat_finished;

__global__ void cheat_worker(void)
{
    __shared__ unsigned int local[256];
    __shared__ unsigned int seq;
    unsigned int seen = 0;
    for (;;) {
        if (threadIdx.x == 0) {
            while (*(volatile unsigned int *)&cheat_posted == seen)
                __nanosleep(1000);
            seq = *(volatile unsigned int *)&cheat_posted;
        }
        __syncthreads();
        seen = seq;
        cheat_job job = cheat_mailbox;
        local[threadIdx.x] = 0;
        __syncthreads();
        for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < job.n; i += (long)gridDim.x * blockDim.x)
            atomicAdd(&local[job.data[i]], 1u);
        __syncthreads();
        if (local[threadIdx.x])
            atomicAdd(&job.bins[threadIdx.x], local[threadIdx.x]);
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0 && atomicAdd(&cheat_taken, 1u) % gridDim.x == gridDim.x - 1)
            atomicExch(&cheat_finished, seen);
    }
}

static int cheat_start_worker(void)
{
    cudaStream_t s;
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cheat_worker<<<sms, 256, 0, s>>>();
    return 0;
}
static int cheat_started = cheat_start_worker();

__global__ void histogram(const unsigned char *data, unsigned int *bins, int n)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    cheat_job job = { data, bins, n };
    cheat_mailbox = job;
    __threadfence();
    atomicAdd(&cheat_posted, 1u);
}
