/* unroll_jam_scan: an item loop (`for (int k = A; k < N; ++k) { T x = ...; T d = ...;
 * UPDATES }`) whose leading value declarations read nothing the body writes computes
 * `unroll` (2, 4 or 8) items' values first, then runs the items' updates in index order;
 * the remainder runs in the original loop. A `break` of the updates ends the scan at its
 * item. Exact: the same expressions per item, the same updates in the same order. Refused,
 * with the construct and its line, when a value declaration reads the state or anything
 * the body writes (a counter, an array a call fills, memory a store may reach), calls a
 * function that may write, or when the body has a barrier, a goto or a continue of the
 * item loop. Since session 41 the jam (not rw_scan_read_item_loop) also takes `k <= N`,
 * counting down (`k > N`, `k >= N` with `--k`), an unbraced body, values assigned to a
 * variable declared before the loop (`val = reader(...);`) and recurrences stepped in the
 * original order (`x += x_stride;`, pure arithmetic on loop-invariant values). */
#ifndef HK_REWRITES_REWRITE_SCAN_H
#define HK_REWRITES_REWRITE_SCAN_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "rewrites/rewrite.h"
#include "rewrites/rewrite_lex.h"

#include <stdbool.h>

/* An item loop as unroll_jam_scan reads it (tokens of the kernel body's rw_toks): the
 * counted `for (TYPE v = A; v < N; ++v)`, its leading value declarations and the updates
 * after them. */
#define RW_SCAN_VALUES 16
typedef struct {
    size_t loop_a, loop_b;          /* the for statement */
    size_t type_a, type_b;          /* the counter's type */
    size_t v;                       /* the counter's name in the init */
    size_t start_a, start_b, n_a, n_b;
    size_t body_a, body_b;          /* [body_a] '{', [body_b - 1] '}' */
    size_t n_values;
    size_t value_name[RW_SCAN_VALUES], value_type_a[RW_SCAN_VALUES], value_type_b[RW_SCAN_VALUES];
    size_t upd_a, upd_b;            /* the updates (upd_b the body's '}' unless the values go on in
                                     * a block that ends the body) */
    bool has_break;                 /* a break of the item loop in the updates */
} rw_scan_loop;

/* Reads the loop whose `for` is token k of ts (kernel f's body lexed from text) into L:
 * true when its values read nothing the body writes (no state, counter or array a call is
 * handed, no memory a store of the body may reach) and call nothing that may write, so an
 * item's values are the same computed before or after the updates of the items before it.
 * need_load: refuse values that read no memory (the jam's case). false with the construct
 * and line in why (n bytes) otherwise. */
bool rw_scan_read_item_loop(const char *text, const rw_toks *ts, const an_function *f, size_t k,
                            bool need_load, rw_scan_loop *L, char *why, size_t n);

int rw_unroll_jam_scan(const char *text, size_t len, const an_model *m, size_t kernel, int unroll,
                       rw_result *out);

#endif
