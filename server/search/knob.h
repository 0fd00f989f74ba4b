/* Is a tunable constant a tuning knob? A #define, constexpr or template parameter becomes a
 * search axis only when the kernel model shows that it shapes the launch or the tiling
 * alone and never what is computed: a radius, a filter width or a problem size changes the
 * result, and a program whose own check shares the constant passes with a different
 * computation. The proof is conservative and syntactic (the analysis model's spans and the
 * rewrites' token scanner): every use of the name must be one of the forms below, and the
 * first use that is not (by kind: loop bounds over data first) is the reason it is refused.
 * Pure functions, any thread. */
#ifndef HK_ENGINE_KNOB_H
#define HK_ENGINE_KNOB_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/analysis.h"

/* What the uses show (flags; a proven knob has at least one or is unused). */
enum {
    KNOB_LAUNCH = 1 << 0, /* a launch's grid/block/shared-memory expression, or a host local
                           * that only feeds one; __launch_bounds__ */
    KNOB_BLOCK = 1 << 1,  /* the kernel's block size: every launch of it in the file (or the
                           * search's linked block) uses the name as a block dimension, so
                           * inside the kernel it stands for blockDim in index arithmetic */
    KNOB_TILE = 1 << 2,   /* a __shared__ tile dimension together with a loop that covers its
                           * range in steps of the name (`t += T` or `t < K / T`), and the
                           * `for (k = 0; k < T; k++)` loops nested in it */
    KNOB_UNROLL = 1 << 3, /* `#pragma unroll N`, or `for (u = 0; u < N; u++)` whose variable
                           * only forms `X * N + u` or indexes a register array of N */
};

/* The outcome (knob_proof_clear). */
typedef struct {
    bool proven;
    unsigned roles;  /* KNOB_* seen in its uses */
    unsigned line;   /* not proven: the 1-based line of the use that disproves it */
    char *why;       /* not proven: "used in the bound of a loop that reads temp[] (line 12)";
                      * proven: the roles in words ("the block size, a tile size"). Never
                      * NULL after HK_OK */
} knob_proof;

void knob_proof_clear(knob_proof *p);

/* Proves (or not) that m->tunables[tunable] only shapes the launch or tiling of kernel
 * (an index into m->funcs, an AN_KERNEL) in text (len bytes, the text m was built from;
 * both borrowed). block_linked: the caller moves the launch's block with the value (the
 * search's linked tunable), so the name is the kernel's block size whatever the file's
 * launches say. Uses in every function count (host code outside a launch configuration
 * disproves), as do uses through other tunables whose value mentions it and through locals
 * initialised from it. HK_OK with *out filled; HK_EINVAL (bad indices), HK_ENOMEM. */
int knob_prove(const char *text, size_t len, const an_model *m, size_t kernel, size_t tunable,
               bool block_linked, knob_proof *out);

#endif
