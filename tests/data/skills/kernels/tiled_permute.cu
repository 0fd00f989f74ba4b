// Naive 4-D permutation (a, b, c, d) -> (d, c, a, b) on a flat index: reads are coalesced,
// writes are strided by c*a*b.
__global__ void permute(const float *in, float *out, int a, int b, int c, int d)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < a * b * c * d) {
        int ia = e / (b * c * d), ib = e / (c * d) % b, ic = e / d % c, id = e % d;
        out[((id * c + ic) * a + ia) * b + ib] = in[e];
    }
}
