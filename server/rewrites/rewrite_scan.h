/* unroll_jam_scan: an item loop (`for (int k = A; k < N; ++k) { T x = ...; T d = ...;
 * UPDATES }`) whose leading value declarations read nothing the body writes computes
 * `unroll` (2, 4 or 8) items' values first, then runs the items' updates in index order;
 * the remainder runs in the original loop. A `break` of the updates ends the scan at its
 * item. Exact: the same expressions per item, the same updates in the same order. Refused,
 * with the construct and its line, when a value declaration reads the state or anything
 * the body writes (a counter, an array a call fills, memory a store may reach), calls a
 * function that may write, or when the body has a barrier, a goto or a continue of the
 * item loop. */
#ifndef HK_REWRITES_REWRITE_SCAN_H
#define HK_REWRITES_REWRITE_SCAN_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"

int rw_unroll_jam_scan(const char *text, size_t len, const an_model *m, size_t kernel, int unroll,
                       rw_result *out);

#endif
