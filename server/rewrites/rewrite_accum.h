/* Register accumulators: `for (i ...) y[j] += A[i * n + j] * x[i];` loads and stores y[j] on
 * every iteration, because the compiler cannot prove that the loop's other pointers do not
 * alias it. Summed in a register instead and added to y[j] once after the loop, the loop
 * reads only its inputs. Pure functions on text, any thread. */
#ifndef HK_REWRITES_REWRITE_ACCUM_H
#define HK_REWRITES_REWRITE_ACCUM_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_lex.h"

/* The body of kernel f (its tokens ts, lexed from text over f's body span) with every
 * qualifying accumulation moved into a register: for a pointer parameter P (non-const, a
 * scalar arithmetic element type), inside an innermost loop without return or goto, every
 * use of P being a statement `P[I] += E;` or `P[I] -= E;` with one index I that names
 * nothing the loop changes and reads no memory, the loop becomes
 * `T hk_accK = 0; for (...) ... hk_accK += E; ... P[I] += hk_accK;` (in braces when the loop
 * is the body of an if, else or loop). The sum is reassociated. *out NULL when nothing
 * qualified, else the new body text (hk_free) and what names the sums ("`y[j]`, ...").
 * HK_OK or HK_ENOMEM. */
int rwa_accumulate_body(const char *text, const an_function *f, const rw_toks *ts, char **out,
                        char *what, size_t what_size);

/* The body of kernel f (its tokens ts, lexed from text over f's body span) with loop
 * counters declared in their loops: a declaration `T v;` or `T v, w;` (type words only, no
 * initializer, no pointer or array) of a name every other use of which lies in a for
 * statement whose header starts `for (v = ...;`, none of them nested in another, loses the
 * name (the statement goes when it held no other), and each such header becomes
 * `for (T v = ...;`. Since no use is outside those loops, no value is carried between them
 * or out of them, and the code means what it meant (PolyBench's `int j; ... for (j = 0; ...)`).
 * *out NULL when no name qualified, else the new body text (hk_free). HK_OK or HK_ENOMEM. */
int rwa_loop_vars_body(const char *text, const an_function *f, const rw_toks *ts, char **out);

/* The rewrite: the kernel's body with rwa_accumulate_body's accumulators; not applicable
 * (with the reason) when no loop qualifies. Contract as in rewrite.h. */
int rw_register_accumulators(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out);

#endif
