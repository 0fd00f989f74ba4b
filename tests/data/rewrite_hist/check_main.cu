// GPU check of a rewritten histogram (rw_histogram_lane_replicas): built by
// test_engine_rewrite_hist with nvcc, `-DHK_KERNEL_FILE="<rewritten source>"` and
// -DHK_CHECK_KIND=1 (bench histogram.cu: unsigned char data, unsigned int bins, int n),
// 2 (signed_bytes: char data, int bins, long n), 3 (mod_hist: unsigned int values % 64) or
// 4 (weighted: unsigned char data, an unsigned int weight per element that wraps 32 bits).
// Runs every case (sizes with odd tails, misaligned data, three distributions, launches
// with the skills' blocks, the spec's, 2D blocks, odd sizes, grids past HK_MAX_BLOCKS)
// against a CPU count, exactly; exits 1 on the first mismatch. Prints the time of the 2^27
// cases and the steady time of the skills' launches.
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
#elif HK_CHECK_KIND == 3
typedef unsigned int elem_t;
typedef unsigned int count_t;
static const int kBins = 64, kLow = 0;
#else
typedef unsigned char elem_t;
typedef unsigned int count_t;
static const int kBins = 256, kLow = 0;
#endif

#if HK_CHECK_KIND == 4
static const unsigned int *dweights = nullptr;   // the weight of element i is dweights[i]
#endif

// d0: the start of the data, so a misaligned d takes the weights of the same elements
static void launch(dim3 grid, dim3 block, const elem_t *d0, const elem_t *d, count_t *bins, long long n)
{
    (void)d0;
#if HK_CHECK_KIND == 1
    histogram<<<grid, block>>>(d, bins, (int)n);
#elif HK_CHECK_KIND == 2
    signed_bytes<<<grid, block>>>(d, bins, (long)n);
#elif HK_CHECK_KIND == 3
    mod_hist<<<grid, block>>>(d, bins, (int)n);
#else
    weighted<<<grid, block>>>(d, dweights + (d - d0), bins, (int)n);
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
    std::vector<unsigned int> hw(max_n);
    for (size_t i = 0; i < max_n; i++)
        hw[i] = next_rand() * 2654435761u;   // weights whose sums wrap 32 bits
    unsigned int *dw = nullptr;
    CK(cudaMalloc(&dw, max_n * sizeof(unsigned int)));
    CK(cudaMemcpy(dw, hw.data(), max_n * sizeof(unsigned int), cudaMemcpyHostToDevice));
#if HK_CHECK_KIND == 4
    dweights = dw;
#endif
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
                // modulo 2^64, compared modulo the counter's width
                std::vector<unsigned long long> want(kLow + kBins + 128, 0);
                for (long long i = 0; i < n; i++) {
#if HK_CHECK_KIND == 1
                    want[h[off + i]]++;
#elif HK_CHECK_KIND == 2
                    want[kLow + (int)(signed char)h[off + i]]++;
#elif HK_CHECK_KIND == 3
                    want[h[off + i] % 64u]++;
#else
                    want[h[off + i]] += hw[off + i];
#endif
                }
                auto cover = [n](unsigned b) { return dim3((unsigned)((n + b - 1) / b > 0 ? (n + b - 1) / b : 1)); };
                struct { dim3 grid, block; const char *what; } launches[] = {
                    {dim3((unsigned)(sms * 2)), dim3(1024), "2 blocks/SM of 1024 (sm90 skill, first)"},
                    {dim3((unsigned)(sms * 3)), dim3(512), "3 blocks/SM of 512 (sm90 skill)"},
                    {dim3((unsigned)(sms * 2)), dim3(512), "2 blocks/SM of 512"},
                    {dim3((unsigned)(sms * 2)), dim3(256), "2 blocks/SM of 256 (gfx9 skill)"},
                    {cover(256), dim3(256), "the spec's block 256, one thread per element"},
                    {cover(64), dim3(64, 2), "2D block 64x2"},
                    {dim3(1), dim3(128), "one block"},
                    {dim3(2000), dim3(128), "2000 blocks (past HK_MAX_BLOCKS)"},
                    {dim3(7), dim3(96), "7 blocks of 96"},
                    {dim3(5), dim3(1000), "5 blocks of 1000 (not whole warps)"},
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
                    launch(l.grid, l.block, d, d + off, dbins + kLow, n);
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
                        if (got[b] != (count_t)(want[b] * (unsigned long long)mult)) {
                            if (ok)
                                std::printf("MISMATCH dist %d n %lld off %d launch %s: bin %lld got %lld want %lld\n",
                                            dist, n, off, l.what, (long long)b - kLow, (long long)got[b],
                                            (long long)(count_t)(want[b] * (unsigned long long)mult));
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
    // steady-state time on 2^27 uniform elements, best of 20: the skills' launches first
    for (size_t i = 0; i < max_n; i++)
        h[i] = (elem_t)(next_rand() & 255u);
    CK(cudaMemcpy(d, h.data(), max_n * sizeof(elem_t), cudaMemcpyHostToDevice));
    const struct { unsigned grid, block; } steady[] = {
        {(unsigned)sms * 2, 1024}, {(unsigned)sms * 3, 512}, {(unsigned)sms * 2, 512},
        {(unsigned)sms * 3, 256}, {(unsigned)(((1LL << 27) + 255) / 256), 256}};
    for (auto &g : steady) {
        float best = 1e30f;
        for (int it = 0; it < 20; it++) {
            cudaEvent_t e0, e1;
            CK(cudaEventCreate(&e0));
            CK(cudaEventCreate(&e1));
            CK(cudaMemset(dbins, 0, (kLow + kBins + 128) * sizeof(count_t)));
            CK(cudaEventRecord(e0));
            launch(dim3(g.grid), dim3(g.block), d, d, dbins + kLow, 1LL << 27);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (ms < best)
                best = ms;
            CK(cudaEventDestroy(e0));
            CK(cudaEventDestroy(e1));
        }
        std::printf("steady: grid %u x %u, 2^27 elements: best %.4f ms, %.1f GB/s\n", g.grid, g.block, best,
                    (1LL << 27) * sizeof(elem_t) / (best * 1e6));
    }
    std::printf("%d cases, %d failures\n", cases, failures);
    CK(cudaFree(d));
    CK(cudaFree(dbins));
    CK(cudaFree(dw));
    return failures ? 1 : 0;
}
