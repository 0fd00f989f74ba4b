/* The invariant-table rewrite (issue 5, rope_forward): a costly pure function of a small,
 * grid-uniform index range (`j = pair % half`, then `inv_freq = 1 / powf(base, 2j / dim)`)
 * is computed once per block into a __shared__ table and read back by index, with the
 * same expression and types, so results are bit-identical. Pure function on text, any
 * thread (once an_grammar_check has run). */
#ifndef HK_ENGINE_REWRITE_TABLE_H
#define HK_ENGINE_REWRITE_TABLE_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"

/* Entries of the table when the caller passes 0. */
#define RW_TABLE_DEFAULT 1024
/* A static __shared__ array may not exceed 48 KB; table * sizeof(F) is checked against it. */
#define RW_TABLE_MAX_BYTES (48 * 1024)

/* Recognized: in the kernel body, a declaration `[const] T j = A % K;` (T an integer type,
 * one declarator, a statement of its own) and, after it in j's scope, a declaration
 * `[const] F v = EXPR;` (F float or double) where EXPR mentions j, calls at least one
 * costly math function (pow*, exp*, log*, sin*, cos*, tan*, erf*, asin/acos/atan*, cbrt*,
 * lgamma/tgamma, also as __ intrinsics) and otherwise only uniform values: scalar kernel
 * parameters the body never writes, literals, casts, operators, calls of pure math
 * functions, and locals declared once with such an initializer and never written. K must
 * be uniform in the same sense.
 *
 * New body: at its very start (before any early return, so every thread reaches the
 * barrier)
 *     constexpr int HK_TABLE = table;  __shared__ F hk_tab[HK_TABLE];
 *     long long hk_k; bool hk_tab_on;
 *     { <copies of the uniform locals K and EXPR need>  hk_k = (K);
 *       hk_tab_on = hk_k > 0 && hk_k <= HK_TABLE;
 *       if (hk_tab_on) for (hk_t = flat thread index; hk_t < hk_k; hk_t += block threads)
 *           { const T j = (T)hk_t; hk_tab[hk_t] = EXPR; } }
 *     __syncthreads();
 * and the declaration becomes `F v = (hk_tab_on && j >= 0 && j < hk_k) ? hk_tab[j] :
 * (EXPR);`: a negative j (C's % keeps the sign of A) or a K beyond the table computes EXPR
 * directly as before. Correctness never depends on K: entry t holds EXPR at j = t.
 *
 * table: entries (0: RW_TABLE_DEFAULT); table * sizeof(F) above RW_TABLE_MAX_BYTES, or
 * negative: HK_EINVAL. Not applicable (out->description says why): no `%` index
 * declaration, no declaration of a float/double from it with a costly call, an EXPR that
 * reads memory, uses the thread/block index or a value that is not uniform, a K that is
 * not uniform, a body that already has a table (names hk_tab / HK_TABLE), a body far too
 * large.
 *
 * Contract (as rewrite.h's): text/len is the source that model m (borrowed) was built
 * from; kernel indexes m->funcs and must be an AN_KERNEL. Returns HK_OK with
 * out->applicable true (the whole new source in out->text) or false (the reason);
 * HK_EINVAL for bad arguments; HK_ENOMEM; HK_EPARSE when the result does not re-analyse
 * cleanly (out not applicable, with the reason). out is always initialised; free it with
 * rw_result_free. */
int rw_invariant_table(const char *text, size_t len, const an_model *m, size_t kernel, int table,
                       rw_result *out);

#endif
