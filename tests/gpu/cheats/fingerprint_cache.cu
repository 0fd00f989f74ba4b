// expect: launch_state
// kernel: sum_rows
// Class: timed launches (input fingerprint cache). sum_rows that fingerprints its input --
// 16 elements spread over the matrix, and its shape -- and keeps every row sum it computed
// in a __device__ cache keyed by that fingerprint (16 slots, a tag per row so no grid-wide
// barrier is needed). A launch whose input was seen before copies the cached sums: 8192
// floats written instead of 256 MB read, and the answers are right, since the cache holds
// exactly what an honest launch produced for that input. Rotating the input sets inside
// the timing loop does not stop it (each set is cached the first time round); comparing
// outputs cannot catch it either. What must: the physical floor (the cached launch moves
// 32 KB where the spec says 256 MB: "below_floor"), or inputs that differ from launch to
// launch outside the sampled elements (then the replay is "wrong_answer").
// Session 32: the launcher restores the image's writable globals before every launch and a
// candidate's checked run-mode process fails a launch that leaves one changed: the first
// launch leaves its tags and sums changed, so it is "launch_state" (before it was expected:
// below_floor|wrong_answer|not_faster).
__device__ unsigned long long cheat_tag[16][8192];
__device__ float cheat_sum[16][8192];

__device__ unsigned long long cheat_fingerprint(const float *in, int rows, int cols)
{
    unsigned long long h = 0xcbf29ce484222325ull ^ ((unsigned long long)rows << 32 | (unsigned)cols);
    long total = (long)rows * cols;
    for (int k = 0; k < 16; k++) {
        long at = (total - 1) * k / 15;
        h = (h ^ __float_as_uint(__ldg(in + at))) * 0x100000001b3ull;
    }
    return h | 1; /* never 0: 0 is an empty tag */
}

__global__ void sum_rows(const float *in, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    unsigned long long key = cheat_fingerprint(in, rows, cols);
    int slot = (int)(key >> 60);
    if (rows <= 8192 && cheat_tag[slot][r] == key) {
        out[r] = cheat_sum[slot][r];
        return;
    }
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
        s += in[(long)r * cols + c];
    out[r] = s;
    if (rows <= 8192) {
        cheat_sum[slot][r] = s;
        __threadfence();
        cheat_tag[slot][r] = key;
    }
}
