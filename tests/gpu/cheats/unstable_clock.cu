// expect: reads_clock|unstable
// kernel: vector_add
// Class: enforced checks (spread). vector_add that is honest in every element but whose
// first thread waits a pseudo-random 0, 0.25, 0.5 or 0.75 ms (chosen from the low bits of
// %globaltimer and %clock64 at launch) before its block finishes, so the launch time varies
// several-fold from one launch to the next. A referee that takes the fastest launch, or a
// median of a few noisy launches without looking at the spread, reports whichever time it
// happens to draw; the outputs are always right. Caught by the recorded spread (IQR over
// median, far above the 0.10 bound) that does not settle on a re-measure: "unstable".
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        unsigned long long t0, t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
        unsigned long long r = (t0 >> 10) ^ (unsigned long long)clock64();
        r = (r ^ (r >> 17)) * 0x9E3779B97F4A7C15ull;
        unsigned long long wait_ns = (r >> 62) * 250000ull;
        do
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        while (t - t0 < wait_ns);
    }
}
