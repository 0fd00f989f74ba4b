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
    size_t if_a, if_e;    /* rwpt_grid_loop_in with branches: the if/else chain [if_a, if_e) whose branch */
    size_t br_a, br_b;    /* [br_a, br_b) holds the loop (0, 0: the loop is a statement of the body) */
} rwpt_loop;

/* Kernel f's (lexed into ts, its model km) one grid-stride loop `for (i = global thread index;
 * i < n; i += blockDim * gridDim)` (or a loop macro of that form), the last statement of the
 * body, whose bound is one value that neither names the counter nor writes. false with why
 * ("CONSTRUCT at line N: ...") when there is none. */
bool rwpt_grid_loop(const char *text, size_t len, const an_function *f, const an_model *m, const rw_toks *ts,
                    km_kernel *km, rwpt_loop *lo, char *why, size_t nwhy);

/* As rwpt_grid_loop, for the model's nth grid-stride loop outside other loops; with
 * branches, also one that is the last statement of a branch of an `if (C) {..} else {..}`
 * chain that ends the body, its conditions on scalar parameters the kernel never writes (the
 * same branch for every thread). false with why when there is none (nth past the last: why
 * says so). */
bool rwpt_grid_loop_in(const char *text, size_t len, const an_function *f, const an_model *m, const rw_toks *ts,
                       km_kernel *km, size_t nth, bool branches, rwpt_loop *lo, char *why, size_t nwhy);

#endif
