/* The top-level grid-stride loop periodic_trips reads (rewrite_period.c), shared with
 * channel_chunks (rewrite_chunks.c). */
#ifndef HK_REWRITE_PERIOD_H
#define HK_REWRITE_PERIOD_H

#include "rewrites/rewrite_lex.h"
#include "analysis/analysis.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    size_t st, se;        /* the loop statement's tokens [st, se): the last statement of the body */
    size_t v;             /* a token naming the counter */
    size_t ba, bb;        /* the loop body's tokens (inside its braces) */
    size_t bnd_a, bnd_b;  /* the bound's tokens */
    bool is_macro;        /* CUDA_1D_KERNEL_LOOP(i, n) and the like */
} rwpt_loop;

/* Kernel f's (lexed into ts, its model km) one grid-stride loop `for (i = global thread index;
 * i < n; i += blockDim * gridDim)` (or a loop macro of that form), the last statement of the
 * body, whose bound is one value that neither names the counter nor writes. false with why
 * ("CONSTRUCT at line N: ...") when there is none. */
bool rwpt_grid_loop(const char *text, size_t len, const an_function *f, const an_model *m, const rw_toks *ts,
                    km_kernel *km, rwpt_loop *lo, char *why, size_t nwhy);

#endif
