// expect: wrong_answer
// kernel: vector_add
// vector_add that computes once, keeps the answer in device memory and replays it on every
// later launch. Right on the first call; the re-check after the timing loop (new inputs)
// must catch it.
__device__ float hk_cheat_cache[1 << 25];
__device__ int hk_cheat_have;

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (hk_cheat_have && n <= (1 << 25)) {
        c[i] = hk_cheat_cache[i];
        return;
    }
    c[i] = a[i] + b[i];
    if (n <= (1 << 25))
        hk_cheat_cache[i] = c[i];
    if (i == n - 1)
        hk_cheat_have = 1;
}
