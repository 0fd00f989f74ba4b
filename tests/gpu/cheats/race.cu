// expect: race|wrong_answer
// kernel: reduce_sum
// judged from the PTX: race
// reduce_sum with a shared-memory tree that has no barriers between steps: a data race
// between the warps of a block, wrong in most blocks. The output comparison usually sees it
// first ("wrong_answer"); racecheck, when the sanitizer stage runs, reports it ("race").
__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] : 0.0f;
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            buf[threadIdx.x] += buf[threadIdx.x + s];
        /* missing __syncthreads() */
    }
    if (threadIdx.x == 0)
        atomicAdd(out, buf[0]);
}
