// Does __shared__ memory keep one launch's bytes for the next launch of the same kernel, and
// does the benchmark programs' scrub (hk_smem_scrub in include/hk_harness.h, run before every
// candidate launch) wipe them? A kernel counts the words of its dynamic shared memory that
// hold the pattern an earlier launch left, uninitialized, then leaves a pattern of its own,
// on every SM, with 48 KiB per block (several blocks per SM) and with the largest allocation
// (one per SM). Without the scrub a nonzero count is the channel docs/sanitizer.md
// describes (a launch count kept where no global reaches); after it the count must be 0.
//
//   nvcc -std=c++17 -arch=sm_90 -Iinclude -o /tmp/smem_probe tests/gpu/smem_probe.cu && /tmp/smem_probe
//
// Prints one line per case and exits 0 when every scrubbed read found nothing, 1 when one
// found a word, 77 without a GPU.
#include "hk_harness.h"

/* One kernel, as a cheat would be: count the words that hold the pattern of `seen` (what an
 * earlier launch of this kernel left), then write the pattern of `leave`. */
static __global__ void probe(unsigned words, unsigned seen, unsigned leave, unsigned long long *hits)
{
    extern __shared__ unsigned probe_words[];
    unsigned c = 0;
    for (unsigned k = threadIdx.x; k < words; k += blockDim.x)
        c += probe_words[k] == (seen ^ (k * 2654435761u));
    if (c)
        atomicAdd(hits, (unsigned long long)c);
    __syncthreads();
    for (unsigned k = threadIdx.x; k < words; k += blockDim.x)
        probe_words[k] = leave ^ (k * 2654435761u);
}

int main(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("skipped: no GPU\n");
        return 77;
    }
    HK_CHECK(cudaSetDevice(0));
    cudaDeviceProp prop;
    HK_CHECK(cudaGetDeviceProperties(&prop, 0));
    int sms = prop.multiProcessorCount;
    int optin = 0;
    HK_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    HK_CHECK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    unsigned long long *hits = NULL, h = 0;
    HK_CHECK(cudaMalloc((void **)&hits, sizeof *hits));
    int failed = 0;
    printf("GPU: %s, %d SMs; %d blocks of 256 threads\n", prop.name, sms, 2 * sms);
    for (int big = 0; big <= 1; big++)
        for (int scrub = 0; scrub <= 1; scrub++)
            for (int rep = 0; rep < 3; rep++) {
                unsigned bytes = big ? (unsigned)optin & ~3u : 48u << 10, words = bytes / 4;
                unsigned magic = 0x5EED0000u + (unsigned)(big * 256 + scrub * 16 + rep);
                HK_CHECK(cudaMemset(hits, 0, sizeof *hits));
                probe<<<2 * sms, 256, bytes>>>(words, ~magic, magic, hits); /* leaves magic's */
                HK_CHECK(cudaGetLastError());
                HK_CHECK(cudaMemset(hits, 0, sizeof *hits));
                if (scrub)
                    hk_smem_scrub();
                probe<<<2 * sms, 256, bytes>>>(words, magic, ~magic, hits); /* finds it? */
                HK_CHECK(cudaGetLastError());
                HK_CHECK(cudaMemcpy(&h, hits, sizeof h, cudaMemcpyDeviceToHost));
                printf("%6u bytes per block, %-10s rep %d: %llu of %llu words held the earlier "
                       "launch's pattern\n", bytes, scrub ? "scrubbed" : "unscrubbed", rep, h,
                       (unsigned long long)words * 2 * sms);
                if (scrub && h)
                    failed = 1;
            }
    cudaEvent_t a, b;
    HK_CHECK(cudaEventCreate(&a));
    HK_CHECK(cudaEventCreate(&b));
    hk_smem_scrub();
    HK_CHECK(cudaEventRecord(a));
    for (int k = 0; k < 100; k++)
        hk_smem_scrub();
    HK_CHECK(cudaEventRecord(b));
    HK_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    HK_CHECK(cudaEventElapsedTime(&ms, a, b));
    printf("one scrub: %.2f us (%d bytes per block, %d blocks; the mean of 100)\n", ms * 10.0f,
           hk_scrub_bytes, hk_scrub_blocks);
    printf("%s\n", failed ? "FAIL: the scrub left shared memory readable" : "scrubbed reads found nothing");
    HK_CHECK(cudaFree(hits));
    return failed;
}
