/* ilp_accumulators: a loop strided over the threads (block-stride, grid-stride, any
 * loop-invariant stride) whose body only declares locals and sums into one accumulator
 * (a register or a memory slot such as `buffer[tid]`) runs one dependent load-and-add
 * chain per thread. K independent partial sums, K elements per trip, put K loads in flight
 * instead; they are combined into the accumulator once after the loop. Pure functions on
 * text, any thread. */
#ifndef HK_REWRITES_REWRITE_ILP_H
#define HK_REWRITES_REWRITE_ILP_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"

/* The rewrite, accumulators (2, 4 or 8) partial sums per loop. Every loop of the kernel
 * that the kernel model reads as counted with a step that does not move (KM_LOOP_AFFINE,
 * _GRID_STRIDE, _BLOCK_STRIDE) and starting at a thread index, spelled
 *     for ([T] i = START; i < N; i += S) BODY      (or `i <= N`, `i = i + S`)
 *     while (i < N) { BODY; i += S; }
 * where BODY is declarations of locals and sums `ACC += E;` (`-=`, `ACC = ACC + E`,
 * `ACC = E + ACC`, `ACC = fmaf(a, b, ACC)`), also under `if (C)` without else (cuda-samples'
 * reduce: the second load of a step while in range), all into one accumulator, a scalar
 * declared before the loop or `P[I]` with I invariant, becomes, in a block of its own,
 *     T hk_ilp0 = 0, ..., hk_ilpK-1 = 0;  [T i = START;]
 *     for (; i + (K-1) S < N; i += K S) { {BODY, i as i, ACC as hk_ilp0} ... {i as i + (K-1) S} }
 *     for (; i < N; i += S) {BODY, ACC as hk_ilp0}
 *     ACC += hk_ilp0 + ... + hk_ilpK-1;
 * The counter ends where the original's does. The sum is reassociated. Not applicable
 * (with the construct and line) otherwise: another write, the accumulator read, a moving
 * stride, an early exit, an atomic, a barrier, a call that may write, a nested loop, an
 * else. Contract as in rewrite.h. */
int rw_ilp_accumulators(const char *text, size_t len, const an_model *m, size_t kernel,
                        int accumulators, rw_result *out);

#endif
