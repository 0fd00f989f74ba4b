// A launcher's asserts: a lag it bounds by a constant (the shared array holds a block and
// one block more) is invented no larger; without that bound the shared subscript stays a
// doubt; sizes below a lower bound the program asserts are a doubt.
#include <assert.h>

#define TILE 128

__global__ void lag_through_shared(const float *src, float *dst, unsigned lag)
{
    __shared__ float buf[2 * TILE];
    unsigned i = blockIdx.x * TILE + threadIdx.x;
    buf[threadIdx.x] = 0.0f;
    buf[threadIdx.x + lag] = src[i];
    __syncthreads();
    dst[i] = buf[threadIdx.x];
}

__global__ void lag_unbounded(const float *src, float *dst, unsigned lag)
{
    __shared__ float buf[2 * TILE];
    unsigned i = blockIdx.x * TILE + threadIdx.x;
    buf[threadIdx.x] = 0.0f;
    buf[threadIdx.x + lag] = src[i];
    __syncthreads();
    dst[i] = buf[threadIdx.x];
}

__global__ void halve(const float *src, float *dst, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        dst[i] = 0.5f * src[i];
}

void run(const float *src, float *dst, unsigned count, unsigned lag, int big)
{
    assert(count % TILE == 0);
    assert((lag >= 1) && (lag <= TILE));
    lag_through_shared<<<count / TILE, TILE>>>(src, dst, lag);
}

void run_unbounded(const float *src, float *dst, unsigned count, unsigned lag)
{
    assert(lag >= 1);
    lag_unbounded<<<count / TILE, TILE>>>(src, dst, lag);
}

void run_big(const float *src, float *dst, int big)
{
    assert(big >= (1 << 26));
    halve<<<(big + 255) / 256, 256>>>(src, dst, big);
}
