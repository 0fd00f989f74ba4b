// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Class: 5 races, an attack on the static race rule as session 46 (REF19) left it:
// spin_int_gtab_evade.cu with the table chosen by the data: `const int *tab = x' > 0.5f ?
// hk_gtab : hk_gtab2; hk_zero = tab[v]` -- entry 0 or 1 of either `const __device__` table, 0
// for every float. nvcc writes `mov.u64 %rd16, hk_gtab2`, `mov.u64 %rd17, hk_gtab`,
// `selp.b64 %rd18, %rd17, %rd16, %p7`, then the index's add and `ld.global.nc.u32`; REF18's
// read-only proof (ptxdata's third walk) fails on the selp, and the rule's table address is
// a mov or an add of one: any 32-bit integer to the rule.
// hk_zero stays a value of data past the second barrier, the tree loop's start
// `blockDim.x / 2 + hk_zero` is unknown and its pair read is not judged; `watched`, read
// through the shared pointer, is not sensed, so the barrier it decides is not found.
// Expected: `race` (lane t reads v[t + 16], stored by lane t + 16 the trip before, no barrier
// between, when not watched). Before (REF20, session 47): the static rule passed it at
// reduce_sum's spec and at no shape; on the GPU it depends on the sensing -- an open hole
// (docs/referee.md, "A barrier that data decides", Not covered).
__device__ unsigned hk_flag[65536];
__device__ const int hk_gtab[4] = {0, 0, 16, 48}; /* a step per class; classes 0, 1: none */
__device__ const int hk_gtab2[4] = {0, 0, 32, 64}; /* the same, another step */
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
        unsigned v = (unsigned)__float2int_rz(fminf(fabsf(buf[0]), 1.0f)); /* 0 or 1 */
        const int *tab = buf[1] > 0.5f ? hk_gtab : hk_gtab2; /* either table, by the data */
        hk_zero = tab[v]; /* entry 0 or 1 of either: 0 for every float */
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
