// Does local memory (a thread's stack frame) keep one launch's bytes for the next launch of the
// same kernel, and does the benchmark programs' scrub (hk_lmem_scrub in include/hk_harness.h)
// wipe them? docs/sanitizer.md lists uninitialized local memory as an open channel: a
// candidate could keep a launch count or a cached result there, out of reach of the launcher's
// restore of the image's globals and of initcheck. A kernel counts the words of a local array
// that hold the pattern an earlier launch left (read uninitialized, through volatile so the
// compiler keeps the loads in local memory), then leaves a pattern of its own. The pattern does
// not depend on the thread: a block need not land on the same SM or warp slot twice. Every SM
// runs full (2048 threads), with frames of 256 B and 4 KiB per thread.
//
//   nvcc -std=c++17 -arch=sm_90 -Iinclude -o /tmp/local_probe tests/gpu/local_probe.cu && /tmp/local_probe
//
// Session 35 (H100, the first form without the scrub): every word of both frames carried over.
// Session 36: also a frameless kernel reaching local address 512 through inline asm, unscrubbed
// and after a forced 1 KiB scrub (informational: the PTX scan refuses such a candidate); on
// the H100 that address faulted.
// Session 37: the scrub covers the larger of the frame and the context's per-thread stack
// (hk_lmem_scrub_size; frame plus stack in the first form) for every candidate, frameless
// ones too. New "reach" cases, each in a
// child process of its own (forked before this process touches CUDA, so a fault loses only
// that child): where the local window ends and whether a word outside the frame carries over,
// reached as tests/gpu/cheats/local_past_end.cu and local_from_int.cu reach it -- a word
// BELOW bytes under a 16 B local array (a generic pointer from the array's address, as a past-
// its-end index lands) and, in a frameless kernel, a generic pointer made from local address
// ADDR (__cvta_local_to_generic) -- unscrubbed and after the scrub the launcher now runs.
// Each prints the frame's local address (the window's top is above it) or the fault.
// H100, session 37 (the frame-plus-stack form, 1.5 KiB scrub): 64 to 1008 B below, every thread
// found the mark unscrubbed and none scrubbed; 2048 B below and every frameless address
// faulted; the stack limit read 1536 B after the first scrub, 8192 B after the 8 KiB one (the
// driver raises it to the largest frame it runs: the stack holds the frame). 1016 and 1024 B
// below test that reading: a fault there says the window is the 1 KiB stack.
// Prints one line per case, whether the unscrubbed channel is open, and the cost of a scrub:
// exit 0 when no scrubbed launch found an earlier launch's word, 1 when one did, 77 without
// a GPU.
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

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
static void run_case(int sms, unsigned long long *hits, int *open, int *failed)
{
    cudaFuncAttributes attr;
    HK_CHECK(cudaFuncGetAttributes(&attr, probe<WORDS>));
    unsigned blocks = 8u * (unsigned)sms, threads = 256;
    hk_lmem_bytes = attr.localSizeBytes; /* as the launcher sets it for a candidate */
    hk_lmem_stack_bytes = hk_lmem_stack();
    hk_lmem_on = true;
    for (int scrub = 0; scrub <= 1; scrub++)
        for (int rep = 0; rep < 3; rep++) {
            unsigned magic = 0x10CA0000u + WORDS * 4 + (unsigned)(scrub * 16 + rep);
            unsigned long long h = 0;
            probe<WORDS><<<blocks, threads>>>(~magic, magic, hits); /* leaves magic's pattern */
            HK_CHECK(cudaGetLastError());
            HK_CHECK(cudaMemset(hits, 0, sizeof *hits));
            if (scrub)
                hk_lmem_scrub();
            probe<WORDS><<<blocks, threads>>>(magic, ~magic, hits); /* finds it? */
            HK_CHECK(cudaGetLastError());
            HK_CHECK(cudaMemcpy(&h, hits, sizeof h, cudaMemcpyDeviceToHost));
            printf("%5u B local frame (%zu B by the compiler), %-10s rep %d: %llu of %llu words "
                   "held the earlier launch's pattern\n", WORDS * 4, attr.localSizeBytes,
                   scrub ? "scrubbed" : "unscrubbed", rep, h,
                   (unsigned long long)WORDS * blocks * threads);
            if (h)
                *(scrub ? failed : open) = 1;
        }
    cudaEvent_t a, b;
    HK_CHECK(cudaEventCreate(&a));
    HK_CHECK(cudaEventCreate(&b));
    hk_lmem_scrub();
    HK_CHECK(cudaEventRecord(a));
    for (int k = 0; k < 20; k++)
        hk_lmem_scrub();
    HK_CHECK(cudaEventRecord(b));
    HK_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    HK_CHECK(cudaEventElapsedTime(&ms, a, b));
    printf("one scrub for a %zu B frame and a %zu B stack (%zu B zeroed per thread): %.1f us "
           "(%u blocks of 256; the mean of 20); the stack limit after it: %zu B\n",
           attr.localSizeBytes, hk_lmem_stack_bytes, hk_lmem_zeroed, ms * 50.0f, hk_lmem_blocks,
           hk_lmem_stack());
}

/* A kernel with no frame that reaches local memory through inline asm at an address of its
 * own (tests/gpu/cheats/asm_local_race.cu's channel; the PTX scan refuses such a candidate,
 * local_state, so nothing here decides the exit status). Reads the word at local address 512,
 * counts those holding the earlier launch's mark, leaves its own. */
static __global__ void probe_asm(unsigned seen, unsigned leave, unsigned long long *hits)
{
    unsigned w;
    asm volatile("ld.local.u32 %0, [512];" : "=r"(w));
    if (w == seen)
        atomicAdd(hits, 1ull);
    asm volatile("st.local.u32 [512], %0;" ::"r"(leave) : "memory");
}

/* Unscrubbed (a frameless kernel gets no scrub), and after a forced 1 KiB scrub (what
 * scrubbing the context's default stack, CU_LIMIT_STACK_SIZE, would do): informational. */
static void run_asm_case(int sms, unsigned long long *hits)
{
    cudaFuncAttributes attr;
    HK_CHECK(cudaFuncGetAttributes(&attr, probe_asm));
    size_t stack = 0;
    HK_CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    unsigned blocks = 8u * (unsigned)sms, threads = 256;
    for (int scrub = 0; scrub <= 1; scrub++) {
        unsigned magic = 0xA5A00000u + (unsigned)scrub;
        unsigned long long h = 0;
        /* an address the driver did not map would fault: said, and the probe's own verdict
         * above kept (the context is lost, so this case is the last) */
        probe_asm<<<blocks, threads>>>(~magic, magic, hits);
        cudaError_t e = cudaDeviceSynchronize();
        if (e == cudaSuccess)
            e = cudaMemset(hits, 0, sizeof *hits);
        if (e == cudaSuccess) {
            hk_lmem_bytes = scrub ? 1024 : attr.localSizeBytes;
            hk_lmem_stack_bytes = 0;
            hk_lmem_on = scrub != 0;
            hk_lmem_scrub();
            probe_asm<<<blocks, threads>>>(magic, ~magic, hits);
            e = cudaMemcpy(&h, hits, sizeof h, cudaMemcpyDeviceToHost);
        }
        if (e != cudaSuccess) {
            printf("inline asm at local address 512: %s (not a channel here)\n", cudaGetErrorString(e));
            return;
        }
        printf("inline asm at local address 512 (frame %zu B, stack limit %zu B), %-22s: %llu of "
               "%u threads found the earlier launch's mark\n", attr.localSizeBytes, stack,
               scrub ? "after a 1 KiB scrub" : "unscrubbed", h, blocks * threads);
    }
}

/* ---- the reach cases (session 37), each in a child process ---- */

/* A 16 B local array (the frame local_past_end.cu has) and a word BELOW bytes under it,
 * through a generic pointer made from the array's address: counts the threads that find
 * seen there, leaves leave; thread 0 of block 0 writes the array's local address. */
static __global__ void reach_below(unsigned below, unsigned seen, unsigned leave,
                                   unsigned long long *hits, unsigned long long *where)
{
    volatile unsigned stage[4];
    stage[threadIdx.x & 3] = leave;
    uintptr_t a = (uintptr_t)&stage[0] - below;
    volatile unsigned *m = (volatile unsigned *)a;
    if (*m == seen)
        atomicAdd(hits, 1ull);
    *m = leave;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *where = (unsigned long long)__cvta_generic_to_local((const void *)&stage[0]);
}

/* No frame: the word at local address addr through a generic pointer made from it. */
static __global__ void reach_int(unsigned addr, unsigned seen, unsigned leave,
                                 unsigned long long *hits, unsigned long long *where)
{
    volatile unsigned *m = (volatile unsigned *)__cvta_local_to_generic((size_t)addr);
    if (*m == seen)
        atomicAdd(hits, 1ull);
    *m = leave;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *where = 0;
}

typedef void (*reach_kernel)(unsigned, unsigned, unsigned, unsigned long long *, unsigned long long *);

/* In the child: the unscrubbed pair of launches, then the scrubbed pair. Exit 0: the
 * scrubbed launch found nothing; 1: it found the mark; 2: a CUDA error (a fault: the word is
 * outside the window); 77: no GPU. */
static int reach_child(reach_kernel k, const char *what, unsigned arg)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0)
        return 77;
    cudaDeviceProp prop;
    HK_CHECK(cudaGetDeviceProperties(&prop, 0));
    cudaFuncAttributes attr;
    HK_CHECK(cudaFuncGetAttributes(&attr, k));
    unsigned long long *hits = NULL, *where = NULL;
    HK_CHECK(cudaMalloc((void **)&hits, sizeof *hits));
    HK_CHECK(cudaMalloc((void **)&where, sizeof *where));
    hk_lmem_bytes = attr.localSizeBytes; /* as the launcher sets it for a candidate */
    hk_lmem_stack_bytes = hk_lmem_stack();
    unsigned blocks = 8u * (unsigned)prop.multiProcessorCount, threads = 256;
    int found = 0;
    for (int scrub = 0; scrub <= 1; scrub++) {
        unsigned magic = 0x5EED0000u + arg * 2u + (unsigned)scrub;
        unsigned long long h = 0, w = ~0ull;
        cudaError_t e = cudaMemset(hits, 0, sizeof *hits);
        if (e == cudaSuccess) {
            k<<<blocks, threads>>>(arg, ~magic, magic, hits, where); /* leaves magic */
            e = cudaDeviceSynchronize();
        }
        if (e == cudaSuccess)
            e = cudaMemset(hits, 0, sizeof *hits);
        if (e == cudaSuccess) {
            hk_lmem_on = scrub != 0; /* the launcher's scrub, as for a candidate */
            hk_lmem_scrub();
            k<<<blocks, threads>>>(arg, magic, ~magic, hits, where); /* finds it? */
            e = cudaDeviceSynchronize();
        }
        if (e == cudaSuccess)
            e = cudaMemcpy(&h, hits, sizeof h, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess)
            e = cudaMemcpy(&w, where, sizeof w, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            printf("reach: %s %u B (frame %zu B, stack %zu B), %-10s: %s (outside the window: "
                   "no channel)\n", what, arg, attr.localSizeBytes, hk_lmem_stack_bytes,
                   scrub ? "scrubbed" : "unscrubbed", cudaGetErrorString(e));
            fflush(stdout);
            return 2;
        }
        char at[48] = "";
        if (attr.localSizeBytes)
            snprintf(at, sizeof at, " at local address %llu", w);
        printf("reach: %s %u B (frame %zu B%s, stack %zu B), %-10s%s: %llu of %u threads found "
               "the earlier launch's mark\n", what, arg, attr.localSizeBytes, at,
               hk_lmem_stack_bytes, scrub ? "scrubbed" : "unscrubbed",
               scrub ? (hk_lmem_zeroed == 1024 ? " (1 KiB)" : hk_lmem_zeroed == 1536 ? " (1.5 KiB)"
                                                                                   : " (more)")
                     : "",
               h, blocks * threads);
        if (scrub && h)
            found = 1;
    }
    fflush(stdout);
    return found;
}

/* Runs every reach case in a child of its own, before the parent touches CUDA: 1 when a
 * scrubbed launch found a mark, 77 without a GPU, else 0. */
static int reach_cases(void)
{
    static const struct {
        reach_kernel k;
        const char *what;
        unsigned arg;
    } cases[] = {
        { reach_below, "16 B array, the word below it by", 64 },
        { reach_below, "16 B array, the word below it by", 256 },
        { reach_below, "16 B array, the word below it by", 512 },
        { reach_below, "16 B array, the word below it by", 1008 },
        /* past a 1 KiB window whose frame lies inside the stack, inside one of frame + stack:
         * a fault says the stack holds the frame (the scrub's sizing); a mark found after
         * the scrub says it does not, and fails the probe */
        { reach_below, "16 B array, the word below it by", 1016 },
        { reach_below, "16 B array, the word below it by", 1024 },
        { reach_below, "16 B array, the word below it by", 2048 },
        { reach_int, "frameless, generic pointer from local address", 0 },
        { reach_int, "frameless, generic pointer from local address", 256 },
        { reach_int, "frameless, generic pointer from local address", 1020 },
    };
    int failed = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0)
            _exit(reach_child(cases[c].k, cases[c].what, cases[c].arg));
        int status = 0;
        if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
            printf("reach: %s %u B: the child did not exit\n", cases[c].what, cases[c].arg);
            continue;
        }
        if (WEXITSTATUS(status) == 77)
            return 77;
        if (WEXITSTATUS(status) == 1)
            failed = 1;
    }
    printf("%s\n", failed ? "FAIL: the scrub left a word of the local window readable"
                          : "reach: no scrubbed launch found a word of the local window");
    return failed;
}

int main(void)
{
    int reach = reach_cases(); /* first: its children need a parent without CUDA */
    if (reach == 77) {
        printf("skipped: no GPU\n");
        return 77;
    }
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
    int open = 0, failed = 0;
    printf("GPU: %s, %d SMs; %d blocks of 256 threads\n", prop.name, prop.multiProcessorCount,
           8 * prop.multiProcessorCount);
    run_case<64>(prop.multiProcessorCount, hits, &open, &failed);
    run_case<1024>(prop.multiProcessorCount, hits, &open, &failed);
    printf("%s\n", open ? "unscrubbed: a launch read local memory an earlier launch left (the channel)"
                        : "unscrubbed: no launch read an earlier launch's local memory");
    printf("%s\n", failed ? "FAIL: the scrub left local memory readable" : "scrubbed reads found nothing");
    run_asm_case(prop.multiProcessorCount, hits); /* last: a fault loses the context */
    return failed || reach;
}
