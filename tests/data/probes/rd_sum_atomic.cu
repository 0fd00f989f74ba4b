// Probe: sum of a vector with one global atomicAdd per thread (no shared memory), unsigned
// index, the value kept in a temporary.
__global__ void rd_sum_atomic(const float *x, float *total, unsigned n)
{
    unsigned gid = threadIdx.x + blockDim.x * blockIdx.x;
    if (gid >= n)
        return;
    float v = x[gid];
    atomicAdd(total, v);
}
