// GPU check of a rewritten histogram (rw_histogram_thread_counters): built by
// test_engine_rewrite_hist with nvcc, `-DHK_KERNEL_FILE="<rewritten source>"` and
// -DHK_CHECK_KIND=1 (bench histogram.cu: unsigned char data, unsigned int bins, int n),
// 2 (signed_bytes: char data, int bins, long n) or 3 (mod_hist: unsigned int values % 64).
// Runs every case (sizes with odd tails, misaligned data, three distributions, launches
// with the counter block, other blocks, 2D blocks, grids past HK_MAX_BLOCKS) against a CPU
// count, exactly; exits 1 on the first mismatch. Prints the time of the 2^27 cases.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include HK_KERNEL_FILE

#define CK(x)                                                                         \
    do {                                                                              \
        cudaError_t e_ = (x);                                                         \
        if (e_ != cudaSuccess) {                                                      \
            std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            std::exit(2);                                                             \
        }                                                                             \
    } while (0)

#if HK_CHECK_KIND == 1
typedef unsigned char elem_t;
typedef unsigned int count_t;
static const int kBins = 256, kLow = 0;     // counters bins[0..255]
#elif HK_CHECK_KIND == 2
typedef char elem_t;
typedef int count_t;
static const int kBins = 256, kLow = 128;   // bins = base + 128: negative bytes land in base
#else
typedef unsigned int elem_t;
typedef unsigned int count_t;
static const int kBins = 64, kLow = 0;
#endif

static void launch(dim3 grid, dim3 block, const elem_t *d, count_t *bins, long long n)
{
#if HK_CHECK_KIND == 1
    histogram<<<grid, block>>>(d, bins, (int)n);
#elif HK_CHECK_KIND == 2
    signed_bytes<<<grid, block>>>(d, bins, (long)n);
#else
    mod_hist<<<grid, block>>>(d, bins, (int)n);
#endif
}

static unsigned int rng = 2463534242u;
static unsigned int next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

int main(void)
{
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const long long sizes[] = {0, 1, 15, 16, 17, 33, 4095, 1000003, 10000019, 1LL << 27};
    const int offsets[] = {0, 1, 7, 15};
    const size_t max_n = (size_t)(1LL << 27) + 16;
    std::vector<elem_t> h(max_n);
    elem_t *d = nullptr;
    count_t *dbins = nullptr;
    CK(cudaMalloc(&d, max_n * sizeof(elem_t)));
    CK(cudaMalloc(&dbins, (kLow + kBins + 128) * sizeof(count_t)));
    int failures = 0, cases = 0;
    for (int dist = 0; dist < 3; dist++) {
        for (size_t i = 0; i < max_n; i++) {
            unsigned int r = next_rand();
            unsigned int v = dist == 0 ? (r & 255u) : dist == 1 ? (r & 63u) : 96u + (r & 7u);
#if HK_CHECK_KIND == 3
            v = dist == 0 ? r : dist == 1 ? (r & 63u) * 977u : 96u + (r & 7u) * 64u;
#endif
            h[i] = (elem_t)v;
        }
        CK(cudaMemcpy(d, h.data(), max_n * sizeof(elem_t), cudaMemcpyHostToDevice));
        for (long long n : sizes)
            for (int off : offsets) {
                if (n >= (1LL << 27) && off != 0 && off != 1)
                    continue;
                std::vector<long long> want(kLow + kBins + 128, 0);
                for (long long i = 0; i < n; i++) {
#if HK_CHECK_KIND == 1
                    want[h[off + i]]++;
#elif HK_CHECK_KIND == 2
                    want[kLow + (int)(signed char)h[off + i]]++;
#else
                    want[h[off + i] % 64u]++;
#endif
                }
                struct { dim3 grid, block; const char *what; } launches[] = {
                    {dim3((unsigned)((n + 127) / 128 > 0 ? (n + 127) / 128 : 1)), dim3(128), "one thread per element, block 128"},
                    {dim3((unsigned)(sms * 6)), dim3(128), "6 blocks/SM of 128"},
                    {dim3((unsigned)((n + 255) / 256 > 0 ? (n + 255) / 256 : 1)), dim3(256), "the spec's block 256 (fallback)"},
                    {dim3((unsigned)((n + 63) / 64 > 0 ? (n + 63) / 64 : 1)), dim3(64, 2), "2D block 64x2 (fallback)"},
                    {dim3(1), dim3(128), "one block"},
                    {dim3(2000), dim3(128), "2000 blocks (past HK_MAX_BLOCKS)"},
                    {dim3(7), dim3(96), "7 blocks of 96 (fallback)"},
                };
                for (auto &l : launches) {
                    // a 2D block with blockDim.y = 2 counts every element twice in the original
                    // (the index ignores threadIdx.y); the rewrite must do the same
                    long long mult = (long long)l.block.y * l.block.z;
                    CK(cudaMemset(dbins, 0, (kLow + kBins + 128) * sizeof(count_t)));
                    cudaEvent_t e0, e1;
                    CK(cudaEventCreate(&e0));
                    CK(cudaEventCreate(&e1));
                    CK(cudaEventRecord(e0));
                    launch(l.grid, l.block, d + off, dbins + kLow, n);
                    CK(cudaEventRecord(e1));
                    CK(cudaGetLastError());
                    CK(cudaEventSynchronize(e1));
                    float ms = 0;
                    CK(cudaEventElapsedTime(&ms, e0, e1));
                    CK(cudaEventDestroy(e0));
                    CK(cudaEventDestroy(e1));
                    std::vector<count_t> got(kLow + kBins + 128);
                    CK(cudaMemcpy(got.data(), dbins, got.size() * sizeof(count_t), cudaMemcpyDeviceToHost));
                    cases++;
                    bool ok = true;
                    for (size_t b = 0; b < got.size(); b++)
                        if ((long long)got[b] != want[b] * mult) {
                            if (ok)
                                std::printf("MISMATCH dist %d n %lld off %d launch %s: bin %lld got %lld want %lld\n",
                                            dist, n, off, l.what, (long long)b - kLow, (long long)got[b],
                                            want[b] * mult);
                            ok = false;
                        }
                    if (!ok)
                        failures++;
                    if (n == (1LL << 27) && off == 0)
                        std::printf("dist %d n 2^27 %-36s %.4f ms (first run, incl. launch) %.1f GB/s\n", dist, l.what,
                                    ms, n * sizeof(elem_t) / (ms * 1e6));
                }
            }
    }
    // steady-state time of the counter path on 2^27 uniform bytes, best of 20
    for (size_t i = 0; i < max_n; i++)
        h[i] = (elem_t)(next_rand() & 255u);
    CK(cudaMemcpy(d, h.data(), max_n * sizeof(elem_t), cudaMemcpyHostToDevice));
    const int grids[] = {sms * 4, sms * 6, sms * 8, (int)(((1LL << 27) + 127) / 128)};
    for (int g : grids) {
        float best = 1e30f;
        for (int it = 0; it < 20; it++) {
            cudaEvent_t e0, e1;
            CK(cudaEventCreate(&e0));
            CK(cudaEventCreate(&e1));
            CK(cudaMemset(dbins, 0, (kLow + kBins + 128) * sizeof(count_t)));
            CK(cudaEventRecord(e0));
            launch(dim3(g), dim3(128), d, dbins + kLow, 1LL << 27);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (ms < best)
                best = ms;
            CK(cudaEventDestroy(e0));
            CK(cudaEventDestroy(e1));
        }
        std::printf("steady: grid %d x 128, 2^27 elements: best %.4f ms, %.1f GB/s\n", g, best,
                    (1LL << 27) * sizeof(elem_t) / (best * 1e6));
    }
    std::printf("%d cases, %d failures\n", cases, failures);
    CK(cudaFree(d));
    CK(cudaFree(dbins));
    return failures ? 1 : 0;
}
