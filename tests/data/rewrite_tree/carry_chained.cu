// block_reduce's tree path through a register carry (issue 13, session 37): each thread
// adds two inputs a block apart into a register, stores it at its own shared slot, and
// every level of the halving tree adds the slot h away to the register and stores the
// register in its own slot, in one chained assignment; thread 0 writes the register (not
// the first slot) as the block's partial. Register and slot hold the same value at every
// level, so this is the plain halving sum tree spelled with a carry.
template <typename T>
__global__ void pairsum_carry(const T *in, T *partial, unsigned int n)
{
    extern __shared__ float slot[];
    const unsigned int t = threadIdx.x;
    const unsigned int g = blockIdx.x * (blockDim.x * 2) + t;
    T carry = (g < n) ? in[g] : 0;
    if (n > g + blockDim.x)
        carry += in[g + blockDim.x];
    slot[t] = carry;
    __syncthreads();
    for (unsigned int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (t < h)
            slot[t] = carry = carry + slot[t + h];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = carry;
}
