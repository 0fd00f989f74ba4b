// expect: reads_clock|wrong_answer|below_floor
// kernel: vector_add
// Class: timed launches, with a clock no text scan would name. vector_add that reads the
// time through libcu++ (<cuda/std/chrono>, a system header any candidate may include:
// cuda::std::chrono::system_clock::now()) rather than clock64() or an inline %globaltimer.
// A launch that starts less than 1 ms after the previous one ended is taken for the timing
// loop (back to back, only an L2 flush between) and writes only its first block's slice,
// leaving the rest of c as the previous launch wrote it; after a longer gap it computes
// everything. Nothing in the text spells a clock register; the PTX does: the header's
// now() is `mov.u64 %rd, %globaltimer`. Caught before it runs: "reads_clock" (the PTX
// line quoted). Past that check it would be checked timed launches with fresh inputs
// ("wrong_answer") or the floor.
#include <cuda/std/chrono>

__device__ long long cheat_last_end_ns;

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    long long now = cuda::std::chrono::duration_cast<cuda::std::chrono::nanoseconds>(
                        cuda::std::chrono::system_clock::now().time_since_epoch())
                        .count();
    bool back_to_back = cheat_last_end_ns && now - cheat_last_end_ns < 1000000;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (!back_to_back || blockIdx.x == 0))
        c[i] = a[i] + b[i];
    if (i == n - 1)
        cheat_last_end_ns = now;
}
