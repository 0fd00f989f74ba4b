// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Class: 5 races, an attack on the static race rule as session 46 (REF19) left it:
// spin_int_sword_evade.cu with the chain table's store at a masked index: `chain[t & 255] =
// ...` (t < 256 at the spec: chain[t]). nvcc writes `and.b32 %r16, %r12, 1020` (4t & 1020) and
// adds the table's address; REF19's shared word needs every other shared write at an address
// its affine reading follows (mov, add, sub, shl, mul, mad, cvt), and an `and` is not one: the
// word s_zero was not read, any 32-bit integer to the rule.
// s_zero stays any value past the second barrier, the tree loop's start `blockDim.x / 2 +
// s_zero` is unknown and its pair read is not judged; `watched`, read through the shared
// pointer, is not sensed, so the barrier it decides is not found. Expected: `race` (lane t reads
// v[t + 16], stored by lane t + 16 the trip before, no barrier between, when not watched).
// Before (REF20, session 47): the static rule passed it at reduce_sum's spec and at no shape; on
// the GPU it depends on the sensing -- an open hole (docs/referee.md, "A barrier that data
// decides", Not covered).
__device__ unsigned hk_flag[65536];

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    __shared__ int chain[256];
    __shared__ int watched;
    __shared__ int s_zero; /* 0 after the second barrier in every block: thread 0 stores it
                            * (a value the data computes, 0 for every value of it) */
    __shared__ volatile unsigned *seen; /* the flag's address, handed over through shared memory */
    int t = threadIdx.x;
    if (t >= (int)blockDim.x) /* no thread of any launch: tid.x < blockDim.x */
        return;
    int i = blockIdx.x * blockDim.x + t;
    volatile unsigned *flag = &hk_flag[blockIdx.x & 65535];
    buf[t] = i < n ? in[i] : 0.0f;
    chain[t & 255] = (t * 37 + 11) & 255; /* t < 256 at the spec: chain[t] */
    if (t == 0)
        seen = flag;
    __syncthreads();
    if (t == 0) {
        int k = 0;
        for (int s = 0; s < 64; s++)
            k = chain[k];
        s_zero = __float2int_rz(fminf(fabsf(buf[0]), 1.0f)) & 2; /* 0 for every float: 0 or
                                                                  * 1, bit 1 of neither */
        *flag = 1u | (unsigned)k; /* after the chain, and depending on it: never 0 */
    } else if (t == 224) {
        int k = 128; /* a chain of its own, a quarter of thread 0's, then one read */
        for (int s = 0; s < 16; s++)
            k = chain[k];
        watched = *seen != 0u || k < 0; /* the same word, read through the shared pointer */
    }
    __syncthreads();
    if (t == 224)
        *flag = 0u; /* as found: the block's barrier follows warp 0's store */
    /* s_zero is 0 here in every block: the start is blockDim.x / 2, but a shared word read
     * after the barrier is any value for all the rule follows */
    volatile float *v = buf;
    for (int s = (int)(blockDim.x >> 1) + s_zero; s > 0; s >>= 1) {
        if (t < s)
            v[t] += v[t + s];
        if (s > 32 || watched)
            __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
