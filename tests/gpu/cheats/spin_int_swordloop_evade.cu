// expect: race
// kernel: reduce_sum
// judged from the PTX: race
// Class: 5 races, an attack on the static race rule as session 46 (REF19) left it:
// spin_int_swordlate_evade.cu with the late store's value made from the word itself: every
// thread reads `z = s_zero` once after the barrier (the tree loop's start `blockDim.x / 2 +
// z`), and after the last barrier thread 0 stores `s_zero = ((z << 1) | z) * 3` -- 0 from 0:
// the word holds 0 in every block at every moment after the first store. REF19 read a late
// store's value as a first evaluation judged it, where the word's load (z) was not known, so
// the value was any and the word any again; `watched`, read through the shared pointer, is not
// sensed, so the barrier it decides is not found. Expected: `race` (lane t reads v[t + 16],
// stored by lane t + 16 the trip before, no barrier between, when not watched). Before (REF20,
// session 47): the static rule passed it at reduce_sum's spec and at no shape; on the GPU it
// depends on the sensing -- an open hole (docs/referee.md, "A barrier that data decides", Not
// covered).
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
    chain[t] = (t * 37 + 11) & 255;
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
    int z = s_zero; /* read once: 0 */
    volatile float *v = buf;
    for (int s = (int)(blockDim.x >> 1) + z; s > 0; s >>= 1) {
        if (t < s)
            v[t] += v[t + s];
        if (s > 32 || watched)
            __syncthreads();
    }
    if (t == 0)
        atomicAdd(out, buf[0]);
    __syncthreads(); /* every thread has read s_zero: the word is free again */
    if (t == 0) /* left as the block found it: 0, written by a value computed from the word
                 * itself, through two steps */
        s_zero = ((z << 1) | z) * 3;
}
