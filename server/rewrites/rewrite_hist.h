/* The histogram rewrite with lane replicas (issue 5, bandwidth target): the global-atomic
 * histogram that rwp_match_histogram recognizes becomes a kernel whose blocks count into
 * 32 copies of the bins in shared memory, one per lane, with shared atomics that never
 * meet a bank conflict, and read bytes 16 at a time. Pure function on text, any thread
 * (once an_grammar_check has run). */
#ifndef HK_ENGINE_REWRITE_HIST_H
#define HK_ENGINE_REWRITE_HIST_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"

/* Replicas of the bins per block (HK_LANES): one per lane of a 32-wide warp. */
#define RWH_LANES 32

/* Static shared memory the new body may declare (the CUDA limit without opt-in). */
#define RWH_SHARED_MAX 49152

/* Largest bin count the caller may give (rwp_match_histogram's range). */
#define RWH_MAX_BINS 32768

/* i = <1D index>; if (i < n) atomicAdd(&hist[BIN], VALUE) on global memory (the shape of
 * rw_privatized_histogram, with an integer counter type -- unsigned int, int or unsigned
 * long long -- and any side-effect-free VALUE) → lane replicas:
 *  - each block keeps HK_LANES (32) replicas of the bins in shared memory, bin b of lane l
 *    in word b * HK_LANES + l, the lane being the flat thread id % HK_LANES: a warp's 32
 *    increments hit 32 different banks whatever the data, so 8 hot bins cost what uniform
 *    data costs;
 *  - the increment is atomicAdd on the replica (result unused: ATOMS without return), so
 *    warps that share a lane stay exact; counters are unsigned int (unsigned long long
 *    for unsigned long long histograms), adding VALUE converted to the counter type:
 *    integer sums wrap as the original's do, in any order, so the result is exact and
 *    no counter needs a flush;
 *  - when BIN is exactly `p[i]` with p a pointer to an 8-bit type, each thread reads uint4
 *    (16 elements) in a grid-stride loop from the first 16-byte aligned element, the
 *    unaligned head and the tail one element per thread; the bin is the byte converted to
 *    p's element type (so `char` data keeps its signedness), and the index is declared
 *    per element only when VALUE uses it. Otherwise BIN is evaluated per element with the
 *    index declared under its own name and type (`#pragma unroll 4`);
 *  - bins outside [0, HK_BINS) go to global memory with an atomic, as in the original;
 *    at the end each block sums bin b over its replicas (reads staggered by lane) and adds
 *    the non-zero sums to the histogram with one atomic per bin.
 * Any block shape works: elements are grid-strided along x over the first HK_MAX_BLOCKS
 * (1024) blocks (the others return at once), and a block's threads along y and z repeat
 * its x threads' elements, as the original's index does. The launch (block size, blocks
 * per SM) is the caller's: the search takes it from the skill.
 * bins: 0 infers the count (rwp_match_histogram), else 1..RWH_MAX_BINS. Not applicable
 * (with the reason) when the shape does not match, the counter type differs, or the
 * replicas (bins * RWH_LANES * 4 or 8 bytes) exceed RWH_SHARED_MAX. HK_BINS and HK_LANES
 * are `constexpr int` constants of the new body (tunables); a static_assert guards the
 * shared-memory limit when they are changed. Contract otherwise as in rewrite_pattern.h
 * (HK_EINVAL for bins out of range or a bad kernel, HK_ENOMEM). */
int rw_histogram_lane_replicas(const char *text, size_t len, const an_model *m, size_t kernel,
                               int bins, rw_result *out);

#endif
