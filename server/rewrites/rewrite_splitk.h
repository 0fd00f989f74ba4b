/* split_k_columns: a kernel with one thread per column that sums down the rows (PolyBench's
 * atax/bicg/mvt column products, the covariance and correlation means) has as many threads
 * as columns, too few to hide the loads' latency. Each column gets S threads instead, each
 * summing a slice of the rows; the partial sums meet in __shared__ memory and one thread
 * per column finishes it. Pure functions on text, any thread. */
#ifndef HK_REWRITES_REWRITE_SPLITK_H
#define HK_REWRITES_REWRITE_SPLITK_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"

/* The rewrite, slices (1..32) row slices per column. The kernel must be
 *     J = blockIdx.x * blockDim.x + threadIdx.x [+ offset];  (int, unsigned, size_t ...)
 *     if (J < n) { PRE; for (I = A; I < M; I++) BODY; POST }   (or `if (J >= n) return;`,
 *                                                            or a grid-stride loop over J)
 * where BODY's one write is a plain sum (`+=`, `-=`, `s = s + E`, `fmaf(a, b, s)`) into a
 * local or into memory indexed by the column, M does not depend on the column and J is the
 * only thread index. The new body takes blocks of any shape: a block of T threads holds T /
 * slices columns; slice r sums rows A + r, A + r + slices, ... in the original order; the
 * partials are added in slice order and the thread of slice 0 runs PRE, adds the total and
 * runs POST once per column. Column groups are grid-strided over the blocks. Not
 * applicable (with the construct and line) otherwise. Contract as in rewrite.h. */
int rw_split_k_columns(const char *text, size_t len, const an_model *m, size_t kernel, int slices,
                       rw_result *out);

#endif
