// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Class: 5 races, an attack on the static race rule as session 46 (REF19) left it:
// spin_int_merge_evade.cu with the merge in a loop, each write made from the register itself:
// `int z = v & 2; for (j = 1; j < blockDim.x / 32; j++) if (buf[j] > 0.5f) { z = (z << 2) |
// (z * 3); hk_hits++; } hk_zero = z;` of the [0, 1] int `v = trunc(min(|x|, 1))` -- 0 before
// the loop, 0 from 0 in it: 0 for every float. nvcc writes `and.b32 %r337, ..., 2` and, in the
// unrolled loop and its remainder, `shl.b32 %r300, %r337, 2`, `mul.lo.s32 %r301, %r337, 3`,
// `or.b32 %r337, %r300, %r301` under branches on data, then `st.global.u32 [hk_zero], %r337`:
// REF19's merge leaves a register whose writes read it (a loop's counter) unknown.
// hk_zero stays a value of data past the second barrier, the tree loop's start
// `blockDim.x / 2 + hk_zero` is unknown and its pair read is not judged; `watched`, read
// through the shared pointer, is not sensed, so the barrier it decides is not found.
// Expected: `race` (lane t reads v[t + 16], stored by lane t + 16 the trip before, no barrier
// between, when not watched). Before (REF20, session 47): the static rule passed it at
// reduce_sum's spec and at no shape; on the GPU it depends on the sensing -- an open hole
// (docs/referee.md, "A barrier that data decides", Not covered).
__device__ unsigned hk_flag[65536];
__device__ unsigned hk_hits;
__device__ int hk_zero = 5; /* 0 after the second barrier in every block: thread 0 stores it
                             * (a value the data computes, 0 for every value of it) */

__global__ void reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    __shared__ int chain[256];
    __shared__ int watched;
    __shared__ volatile unsigned *seen; /* the flag's address, handed over through shared memory */
    int t = threadIdx.x;
    if (t >= (int)blockDim.x) /* no thread of any launch: tid.x < blockDim.x */
        return;
    int i = blockIdx.x * blockDim.x + t;
    volatile unsigned *flag = &hk_flag[blockIdx.x & 65535];
    buf[t] = i < n ? in[i] : 0.0f;
    chain[t] = (t * 37 + 11) & 255;
    if (t == 0)
        seen = flag;
    __syncthreads();
    if (t == 0) {
        int k = 0;
        for (int s = 0; s < 64; s++)
            k = chain[k];
        int v = __float2int_rz(fminf(fabsf(buf[0]), 1.0f)); /* 0 or 1 */
        int z = v & 2;       /* 0 for every float: bit 1 of neither */
        for (int j = 1; j < (int)(blockDim.x >> 5); j++) /* a trip count of the shape */
            if (buf[j] > 0.5f) { /* 0 from 0 on this way too, with a side effect kept */
                z = (z << 2) | (z * 3);
                hk_hits++;   /* a count nothing reads */
            }
        hk_zero = z;
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
    /* hk_zero is 0 here in every block: the start is blockDim.x / 2, but the word holds 5 or 0
     * for all the rule follows */
    volatile float *v = buf;
    for (int s = (int)(blockDim.x >> 1) + hk_zero; s > 0; s >>= 1) {
        if (t < s)
            v[t] += v[t + s];
        if (s > 32 || watched)
            __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
}
