// saxpy that keeps state from one launch to the next (test_engine_harness's
// launch_state_restored): every thread adds 1 to its result once a launch of the process has
// finished (a __device__ count of launches), and the last block of each launch to finish (a
// ticket that wraps back to 0) advances the count, after every other block's reads of it. So
// within a launch every thread sees the count the launch started with: right (the reference's
// answer) on a process's first launch, off by one on every later one -- unless the launcher
// sets the count back to 0 before every launch, as it must.
__device__ unsigned int launches;
__device__ unsigned int tickets;

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    __shared__ bool last;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float later = *(volatile unsigned int *)&launches > 0 ? 1.0f : 0.0f;
    if (i < n)
        y[i] = a * x[i] + y[i] + later;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicInc(&tickets, gridDim.x - 1) == gridDim.x - 1;
    __syncthreads();
    if (last && threadIdx.x == 0)
        atomicAdd(&launches, 1u);
}
