/* fast_divmod: `/` and `%` by a runtime divisor that does not change over the kernel (a
 * scalar parameter, a sum or product of them, a local computed from them once) cost about
 * twenty instructions each (a float reciprocal and its corrections); mmcv's kernels split
 * their flat index that way on every element. A magic multiplier computed once per thread
 * (Granlund-Montgomery's round-up method, PyTorch's IntDivider) turns each into a high
 * multiply, an add and a shift, exactly equal to C's `/` and `%`. Pure functions on text,
 * any thread. */
#ifndef HK_REWRITES_REWRITE_DIVMOD_H
#define HK_REWRITES_REWRITE_DIVMOD_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"

/* The rewrite. Every `L / D` and `L % D` in the kernel's body where
 *  - L and D have 32-bit integer types the scan can read (declarations, a loop macro's
 *    `for (int i = ...`, literals; `int` and `unsigned` mixed as C mixes them), and
 *  - D is invariant: blockDim/gridDim, scalar parameters and locals declared once at the
 *    body's top level from such values, never written, passed to no call that might
 *    write them; a literal-only divisor is left to the compiler,
 * and whose divisor is used so inside a loop (the setup costs about one division) becomes
 * hk_fdiv_q_*(L, F) or hk_fdiv_r_*(L, F), F the divisor's magic numbers computed once
 * (hk_fdiv_make_s/u) before the first top-level statement that divides by it. L proved
 * non-negative (a loop counter from a thread index stepping up, remainders and products
 * of such) takes the short form; any other int L the signed form, exact for negative L
 * and negative D too; 64-bit dividends are left alone. The helpers are placed before the
 * kernel. Not applicable (with the construct and line) when no division qualifies: the
 * first that came closest says why. Contract as in rewrite.h. */
int rw_fast_divmod(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out);

/* The device helpers the rewrite places before the kernel (static text): C++ that also
 * compiles as host code once __device__ and __forceinline__ are defined away and __umulhi
 * and __clz are given, which is how the tests check them against `/` and `%`. */
const char *rw_fast_divmod_helpers(void);

#endif
