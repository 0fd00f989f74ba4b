// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Class: races, hidden from the static race rule by a PTX string. race_warp_sync.cu's
// warp-synchronous tail (lane t loads v[t + 16] right after lane t + 16 stored it, no
// __syncwarp), with each store of the tail written in inline asm behind a pragma:
//     .pragma "//"; st.volatile.shared.f32 [%0], %1;
// ptxas reads a pragma "//" (warning: unsupported) and the store; the race rule's line reader
// cut every line at its first `//`, in a string or not, so it never saw the tail's stores and
// found no race (session 51: `no_gpu` on the CPU, every static stage passed; the same store
// without the pragma is `race`). A `{` or `}` in such a string hid them too: the reader took
// it for the end or start of a scope. Right on the H200 nearly always (racecheck would see it
// in the accepted best's run, but only that one). Caught before it runs: `//` starts a
// comment only outside a string, and a string's bytes are no statement ("race", the load and
// the store quoted).
__device__ __forceinline__ void tail_store(float *p, float x)
{
    unsigned a = (unsigned)__cvta_generic_to_shared(p);
    asm volatile(".pragma \"//\"; st.volatile.shared.f32 [%0], %1;" :: "r"(a), "f"(x) : "memory");
}

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t < 32) {
        volatile float *v = buf;
        tail_store(&buf[t], v[t] + v[t + 32]);
        tail_store(&buf[t], v[t] + v[t + 16]);
        tail_store(&buf[t], v[t] + v[t + 8]);
        tail_store(&buf[t], v[t] + v[t + 4]);
        tail_store(&buf[t], v[t] + v[t + 2]);
        tail_store(&buf[t], v[t] + v[t + 1]);
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
