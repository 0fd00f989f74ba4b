// kernel: reduce_sum
// An honest candidate with writable globals (docs/referee.md, "Every launch starts from the
// same device state"): reduce_sum as a single-pass block reduction in the threadFenceReduction
// style. Every block writes its partial sum to a __device__ slot, fences, and draws a ticket
// with atomicInc(&retired, gridDim.x - 1), which wraps back to 0 for the last block; the last
// block sums the partials in block order, sets them back to 0 and adds the total to out. So
// each launch leaves its globals as the loader gave them, and the referee's launch_state rule
// (a candidate's launch may not leave a __device__ variable changed) passes it. Expected on
// the GPU: accepted, faster than the one-atomic-per-element baseline; under
// `hkls verify-candidate --sanitize` no finding. Not a cheat: it is not in tests/gpu/cheats.
#define RETIRE_MAX_BLOCKS 65536 /* reduce_sum's grid at 2^24 elements, 256 per block */

__device__ float partials[RETIRE_MAX_BLOCKS];
__device__ unsigned int retired;

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    __shared__ bool last;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (gridDim.x > RETIRE_MAX_BLOCKS) { /* more blocks than slots: one atomic per block */
        if (t == 0)
            atomicAdd(out, buf[0]);
        return;
    }
    if (t == 0) {
        partials[blockIdx.x] = buf[0];
        __threadfence();
        last = atomicInc(&retired, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    float v = 0.0f;
    for (unsigned int b = t; b < gridDim.x; b += blockDim.x) {
        v += ((volatile float *)partials)[b];
        partials[b] = 0.0f;
    }
    buf[t] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0)
        *out += buf[0];
}
