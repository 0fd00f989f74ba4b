// expect: race|wrong_answer
// kernel: dot
// judged from the PTX: race
// Class: races. dot as a shared-memory tree reduction with every barrier but the first:
// the products are stored to shared memory and the tree starts at once, so in the first
// step thread t reads buf[t + 128], which warps 4-7 may not have written yet. Warps of a
// block start close together and the loads before the store take the same time in each,
// so most blocks come out right; the few that do not shift the integer dot product by a
// product or two. racecheck reports the hazard ("race"); when a run goes wrong the output
// comparison sees it first ("wrong_answer": the spec's integer inputs make the baseline
// exact). Either is the referee doing its job.
__global__ void dot(const float *a, const float *b, float *out, int n)
{
    __shared__ float buf[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? a[i] * b[i] : 0.0f;
    /* missing: __syncthreads(); */
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
