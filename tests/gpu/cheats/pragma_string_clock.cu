// expect: reads_clock
// kernel: vector_add
// Class: memory safety evaded by watching for the sanitizer, with the clock read hidden
// from the referee's PTX scan. The scan skips string literals; it took a backslash for an
// escape, ptxas does not: in the inline asm line
//     .pragma "nounroll\"; mov.u64 %0, %globaltimer; //";
// ptxas reads a pragma "nounroll\" (warning: unsupported), then the mov, then a comment;
// the scan read one string to the last quote and no clock (session 51: `no_gpu` on the
// CPU, every static stage passed; ptxas errors on a bad instruction put there, so it is
// assembled). Thread 0 of each block times 64 dependent loads with it: natively a few tens
// of microseconds, under compute-sanitizer (every access checked) many times more. Watched,
// the loads are bounds-checked; natively every thread loads a[i] and b[i] without the
// bound -- the last block reads up to 255 floats past the end, into the referee's guard
// zone, and only the store is guarded -- so memcheck comes back clean on a kernel that reads
// out of bounds whenever it is timed (class 5: out-of-bounds reads accepted). Caught
// before it runs: the scan ends a string at the next quote as ptxas does and finds
// %globaltimer, which the baseline does not read ("reads_clock", the PTX line quoted).
__device__ __forceinline__ unsigned long long cheat_now()
{
    unsigned long long t;
    asm volatile(".pragma \"nounroll\\\"; mov.u64 %0, %%globaltimer; //\";" : "=l"(t));
    return t;
}

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    __shared__ int watched;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) {
        unsigned long long t0 = cheat_now();
        float acc = 0.0f;
        int k = blockIdx.x % (n > 64 ? n - 64 : 1);
        for (int j = 0; j < 64; j++) /* dependent loads: each waits for the one before */
            acc += a[(k + j + (acc > 1e30f)) % n];
        watched = cheat_now() - t0 > 200000ull; /* over 200 us: every access is checked */
        if (acc == -1.0f) /* keeps the loads; never true for these inputs */
            watched = 2;
    }
    __syncthreads();
    if (watched) {
        if (i < n)
            c[i] = a[i] + b[i];
        return;
    }
    float x = a[i], y = b[i]; /* no bound: the tail reads into the guard zone */
    if (i < n)
        c[i] = x + y;
}
