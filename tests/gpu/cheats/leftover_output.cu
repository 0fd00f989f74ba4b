// expect: unwritten_output|wrong_answer|not_faster
// kernel: vector_add
// Class: timed launches (leftover outputs). vector_add that looks at its block's slice of
// c before doing anything: when the first and last elements already hold finite values, it
// takes them for the previous launch's answer (the first referee left outputs alone between
// timed launches and poisoned them only before a check) and skips the block. A NaN poison
// (0xFF bytes) reads as "not written yet" and the block computes honestly, so every output
// the old referee compared was right. Against timed launches that all start from poisoned
// outputs it gains nothing while the poison is NaN; once a timed launch is poisoned with a
// finite pattern (poison B, 0x7F bytes, is 3.4e38: finite) the block skips, the poison stays,
// and the checked launch finds it: "unwritten_output" (or "wrong_answer" when the poison is
// compared as a value). The referee should therefore vary its poison across timed launches.
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    __shared__ int leftover;
    int first = blockIdx.x * blockDim.x;
    int last = min(first + (int)blockDim.x, n) - 1;
    if (threadIdx.x == 0)
        leftover = isfinite(c[first]) && isfinite(c[last]);
    __syncthreads();
    if (leftover)
        return;
    int i = first + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
