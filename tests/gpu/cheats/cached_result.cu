// expect: launch_state
// kernel: vector_add
// vector_add that computes once, keeps the answer in device memory and replays it on every
// later launch. Right on the first call; the re-check after the timing loop (new inputs)
// must catch it.
// Session 32: the launcher restores the image's writable globals before every launch and a
// candidate's checked run-mode process fails a launch that leaves one changed: the first
// launch leaves its cache and flag changed, so it is "launch_state" (before it was expected:
// wrong_answer).
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
