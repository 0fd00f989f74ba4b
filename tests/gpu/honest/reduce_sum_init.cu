// kernel: reduce_sum
// An honest candidate with an initialised writable global (docs/referee.md, "Every launch
// starts from the same device state"): reduce_sum as a shared-memory block reduction with one
// atomicAdd per block, its block sums scaled by a __device__ variable the source initialises
// (`unit`, 1.0f: in the cubin's .nv.global.init, PROGBITS, where reduce_sum_retire's globals
// are all in the zero-initialised NOBITS .nv.global). The launcher reads an initialised
// variable's bytes back after the load (the loader wrote them) and writes them once before the
// first launch; expected on the GPU: accepted, faster than the one-atomic-per-element
// baseline, and under `hkls verify-candidate --sanitize` no finding (initcheck among the tools:
// the launcher's own read of the variable must not count as uninitialized). Not a cheat: it is
// not in tests/gpu/cheats.
__device__ float unit = 1.0f;

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, buf[0] * unit);
}
