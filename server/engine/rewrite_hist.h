/* The histogram rewrite with per-thread byte counters (issue 5, bandwidth target): the
 * global-atomic histogram that rwp_match_histogram recognizes becomes a kernel that counts
 * without atomics, each thread in its own 8-bit counters in shared memory, and reads bytes
 * 16 at a time. Pure function on text, any thread (once an_grammar_check has run). */
#ifndef HK_ENGINE_REWRITE_HIST_H
#define HK_ENGINE_REWRITE_HIST_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "engine/rewrite.h"

/* Default threads per block of the counter path (HK_T): 256 bins * 128 threads = 32 KiB. */
#define RWH_DEFAULT_THREADS 128

/* Static shared memory the new body may declare (the CUDA limit without opt-in). */
#define RWH_SHARED_MAX 49152

/* i = <1D index>; if (i < n) atomicAdd(&hist[BIN], 1) on global memory (the shape of
 * rw_privatized_histogram, with an integer counter type -- unsigned int, int or unsigned
 * long long -- and the literal 1 as the added value) → per-thread byte counters:
 *  - thread t of a block of HK_T threads owns an 8-bit counter for bin b in shared memory,
 *    byte b % 4 of word (b / 4) * HK_T + t, so lane l always touches bank l: increments
 *    are plain read-modify-writes, no atomics, no bank conflicts whatever the data;
 *  - at block-uniform points (at most 240 counts per thread: 7 rounds of 32 bytes plus
 *    the head and tail, or 240 elements) the block sums the counters per bin into
 *    `hk_tot` (two 16-bit lanes per word, columns staggered by lane) and clears them;
 *  - when BIN is exactly `p[i]` with p a pointer to an 8-bit type, each thread reads two
 *    uint4 (32 bytes) per round from the first 16-byte aligned element, the unaligned
 *    head and the tail one element per thread; the bin is the byte converted to p's
 *    element type (so `char` data keeps its signedness). Otherwise BIN is evaluated per
 *    element with the index declared under its own name and type;
 *  - a block whose thread count is not HK_T at run time (or with y/z extents) counts
 *    with shared atomics into hk_tot instead, so any launch gives the original's result;
 *  - bins outside [0, HK_BINS) go to global memory with an atomic, as in the original;
 *    each block adds its non-zero totals to the histogram with one atomic per bin.
 * Elements are grid-strided over the first HK_MAX_BLOCKS (1024) blocks along x (the
 * others return at once), as rw_privatized_histogram does.
 * bins: 0 infers the count (rwp_match_histogram), else 1..256. threads: HK_T, a multiple
 * of 32 in 32..1024. Not applicable (with the reason) when the shape does not match,
 * the counter type or value differs, the bin count exceeds 256 or the counters and totals
 * (4 * ceil(bins / 4) * HK_T + bins * 4 or 8 bytes) exceed RWH_SHARED_MAX. HK_BINS and
 * HK_T are `constexpr int` constants of the new body (tunables); a static_assert guards
 * the shared-memory limit when they are changed. Contract otherwise as in
 * rewrite_pattern.h (HK_EINVAL for bins or threads out of range). */
int rw_histogram_thread_counters(const char *text, size_t len, const an_model *m, size_t kernel,
                                 int bins, int threads, rw_result *out);

#endif
