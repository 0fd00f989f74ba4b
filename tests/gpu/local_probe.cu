// Does local memory (a thread's stack frame) keep one launch's bytes for the next launch of the
// same kernel? docs/sanitizer.md lists uninitialized local memory as an open channel: a
// candidate could keep a launch count or a cached result there, out of reach of the launcher's
// restore of the image's globals and of initcheck. A kernel counts the words of a local array
// that hold the pattern an earlier launch left (read uninitialized, through volatile so the
// compiler keeps the loads in local memory), then leaves a pattern of its own. The pattern does
// not depend on the thread: a block need not land on the same SM or warp slot twice. Every SM
// runs full (2048 threads), with frames of 256 B and 4 KiB per thread.
//
//   nvcc -std=c++17 -arch=sm_90 -Iinclude -o /tmp/local_probe tests/gpu/local_probe.cu && /tmp/local_probe
//
// Prints one line per case and the verdict: exit 0 when no launch found an earlier launch's
// word (the channel is closed on this GPU and driver), 1 when one did, 77 without a GPU.
#include "hk_harness.h"

template <unsigned WORDS>
static __global__ void probe(unsigned seen, unsigned leave, unsigned long long *hits)
{
    volatile unsigned frame[WORDS];
    unsigned c = 0;
#pragma unroll 1 /* an indexed array stays in local memory */
    for (unsigned k = 0; k < WORDS; k++)
        c += frame[k] == (seen ^ (k * 2654435761u));
    if (c)
        atomicAdd(hits, (unsigned long long)c);
#pragma unroll 1
    for (unsigned k = 0; k < WORDS; k++)
        frame[k] = leave ^ (k * 2654435761u);
}

template <unsigned WORDS>
static int run_case(int sms, unsigned long long *hits, int *found)
{
    cudaFuncAttributes attr;
    HK_CHECK(cudaFuncGetAttributes(&attr, probe<WORDS>));
    unsigned blocks = 8u * (unsigned)sms, threads = 256;
    for (int rep = 0; rep < 3; rep++) {
        unsigned magic = 0x10CA0000u + WORDS * 4 + (unsigned)rep;
        unsigned long long h = 0;
        probe<WORDS><<<blocks, threads>>>(~magic, magic, hits); /* leaves magic's pattern */
        HK_CHECK(cudaGetLastError());
        HK_CHECK(cudaMemset(hits, 0, sizeof *hits));
        probe<WORDS><<<blocks, threads>>>(magic, ~magic, hits); /* finds it? */
        HK_CHECK(cudaGetLastError());
        HK_CHECK(cudaMemcpy(&h, hits, sizeof h, cudaMemcpyDeviceToHost));
        printf("%5u B local frame (%zu B by the compiler), rep %d: %llu of %llu words held the "
               "earlier launch's pattern\n", WORDS * 4, attr.localSizeBytes, rep, h,
               (unsigned long long)WORDS * blocks * threads);
        if (h)
            *found = 1;
    }
    return 0;
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
    unsigned long long *hits = NULL;
    HK_CHECK(cudaMalloc((void **)&hits, sizeof *hits));
    HK_CHECK(cudaMemset(hits, 0, sizeof *hits));
    int found = 0;
    printf("GPU: %s, %d SMs; %d blocks of 256 threads\n", prop.name, prop.multiProcessorCount,
           8 * prop.multiProcessorCount);
    run_case<64>(prop.multiProcessorCount, hits, &found);
    run_case<1024>(prop.multiProcessorCount, hits, &found);
    printf("%s\n", found ? "OPEN: a launch read local memory an earlier launch left"
                         : "closed: no launch read an earlier launch's local memory");
    HK_CHECK(cudaFree(hits));
    return found;
}
