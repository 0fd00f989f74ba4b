/* The rewrite registry: every source rewrite of the built-in engine, described once (name,
 * typed parameters, applicability, emitter) in one table. Skills, skill planning, the search
 * and the tests reach a rewrite through its descriptor, never through a name of their own.
 * Adding a rewrite is one new file that defines its descriptor plus one entry in
 * registry.c's table (docs/engine.md, "Adding a rewrite"). Pure functions, any thread. */
#ifndef HK_REWRITES_REGISTRY_H
#define HK_REWRITES_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/analysis.h"
#include "model/kclass.h"
#include "rewrites/rewrite.h"

struct spec;

/* Parameters per rewrite; a rewrite's parameters fill params[0..n_params) in order. */
#define RW_MAX_PARAMS 3
#define RW_MAX_VALUES 8

enum rw_param_type {
    RW_PARAM_INT,   /* any value in [min, max] */
    RW_PARAM_ENUM,  /* one of values[0..n_values) */
    RW_PARAM_BOOL,  /* 0 or 1 */
};

/* One typed parameter (value type, static data). */
typedef struct {
    const char *name;          /* as a skill's params spell it: "width", "tile_m" */
    enum rw_param_type type;
    int min, max;              /* RW_PARAM_INT: the allowed range */
    int values[RW_MAX_VALUES]; /* RW_PARAM_ENUM: the allowed values */
    size_t n_values;
    int def;                   /* the value a caller's 0 stands for (0 when 0 is itself
                                * meaningful: bins 0 infers, math 0 is FP32) */
    bool optional;             /* 0 means "off": labels leave it out when 0 */
} rw_param;

/* What applicability and the emitter see (borrowed for the call). The kernel model of
 * issue 13 (server/model/) joins here as one more pointer; until then rewrites read the
 * analysis model and their own token recognizers. */
typedef struct {
    const char *text;          /* the whole source m was built from */
    size_t len;
    const an_model *m;
    size_t kernel;             /* index into m->funcs, an AN_KERNEL */
    const struct spec *spec;   /* the bench spec, or NULL when there is none */
    bool hip;                  /* compiled for AMD/DCU */
    const char *const *template_args; /* the kernel's template arguments (the search's, its
                                * tunables applied), or NULL: then the spec's, if any */
    size_t n_template_args;
    int sm_count;              /* the device's SMs (CUs); 0: not known */
    int warps_per_sm;          /* resident warps per SM (max threads per SM / 32); 0: not known */
} rw_context;

/* Why a rewrite refused (value type). */
typedef struct {
    char reason[768];  /* "grid-stride loop at line 12: <the rewrite's reason>"; "" applies */
    char construct[64];/* the construct that stopped it ("grid-stride loop", "__syncthreads()",
                        * "template kernel"); "" when applicable */
    int line;          /* 1-based line of that construct in ctx->text; 0 when applicable */
} rw_refusal;

/* How the engine uses a rewrite (a set of flags). */
enum {
    RW_SEARCH_AXIS = 1 << 0,  /* the search has it as its own axis (launch bounds, restrict,
                               * tunables, grid-stride): skills leave it to that axis */
    RW_HINT = 1 << 1,         /* a compiler hint only: ordered after structural ones when
                               * neither has a record (sk_order_by_record) */
    RW_ALGORITHM = 1 << 2,    /* replaces the kernel's algorithm once its pattern matched:
                               * planned before the class's other skills */
    RW_KEEPS_THREAD_INDEXING = 1 << 3, /* keeps one thread per index: under an SM-multiple
                               * grid the search puts it on a grid-stride loop first */
    RW_VECTOR_LOOP = 1 << 4,  /* its body is a grid-stride loop over vectors: __restrict__
                               * goes first, and the spec's grid becomes one full wave */
    RW_LIBRARY_CALL = 1 << 5, /* the kernel becomes a library call: links the library, and
                               * no launch, attribute or flag of the kernel matters */
    RW_VECTOR_FALLBACK = 1 << 6, /* more loads in flight where a vector loop cannot be
                               * written: planned after the other rewrites of its pass, so
                               * that where vectorize applies it is tried first */
    RW_RESTRICT_FIRST = 1 << 7, /* its gain is loads of several elements issued together,
                               * which a store through another pointer would order: the
                               * search puts __restrict__ on first wherever rw_restrict applies */
    RW_TILE_LOOP = 1 << 8,    /* its body walks its work (tiles: tiled_permute) grid-stride, so
                               * any grid covers it: under the spec's grid (one thread per
                               * element) most blocks find no tile, so the search launches it
                               * on SEARCH_TILE_WAVES waves of resident blocks instead */
    RW_STACKS = 1 << 9,       /* a second rewrite: it reshapes part of whatever text it is given
                               * (an inner loop, a local's type, the blocks' prologue) and keeps
                               * that text's launch (rw_result.keeps_launch),
                               * so the search also offers it the leading structural
                               * candidate's output ("A+B", search.c queue_stacks). Its own
                               * gain must address another cost than the leaders' (the jam: the
                               * dependent chain per item; tiles: the global loads; fused
                               * blocks: the bytes in flight, block_reduce: the barriers) */
    RW_TUNING = 1 << 10,      /* a generic tuning of the kernel's own code (unroll's factor),
                               * no algorithm of its own: with the search's launch axes it is
                               * what a small budget falls back to when the rewrites measured
                               * first gained nothing (search.c queue_fallback) */
    RW_STACK_ONLY = 1 << 11,  /* with RW_STACKS: offered only on a leader's text (the stacking
                               * axis), never alone as a first choice. A register cap
                               * (occupancy_regs) moves no instruction: alone it would take a
                               * slot of a small budget from a rewrite that does, and what it
                               * adds shows on the leaders' texts */
};

typedef struct rw_descriptor rw_descriptor;

struct rw_descriptor {
    const char *name;            /* "tiled_transpose": unique, what skills name */
    const char *summary;         /* one line for listings */
    const rw_param *params;      /* n_params of them; NULL when none */
    size_t n_params;
    unsigned flags;              /* RW_SEARCH_AXIS | RW_HINT | RW_ALGORITHM */
    /* Whether the rewrite applies with these (resolved) parameters: HK_OK with
     * why->line 0 when it does, HK_OK with why filled when it refuses; HK_ENOMEM, HK_EINVAL.
     * NULL: the driver asks the emitter and reads its refusal (rw_applies). */
    int (*applies)(const rw_context *ctx, const int *params, rw_refusal *why);
    /* Writes the rewritten source: rewrite.h's contract (out always initialised). */
    int (*emit)(const rw_context *ctx, const int *params, rw_result *out);
    /* The launch its body gains under when that is not the spec's own and its result does
     * not say it (rw_result.grid_divisor does), for listings (`hkls rewrites`' grid); NULL:
     * the spec's launch or the result's. Static text. */
    const char *launch;
    /* The block (threads, 1-D) its body is written for under these parameters, which the
     * search launches it with whatever block the skill names; 0 or NULL: any (the skill's
     * block_size, else the search's). warp_rows' row_threads > 32: a block per row. */
    unsigned (*launch_block)(const int *params);
};

/* The table: every descriptor, in a fixed order (borrowed, static). */
size_t rw_registry_count(void);
const rw_descriptor *rw_registry_at(size_t i);   /* NULL when out of range */

/* The descriptor named name (NULL when there is none, or name is NULL). */
const rw_descriptor *rw_find(const char *name);

/* The index of parameter name in d's parameters, or -1. */
int rw_param_index(const rw_descriptor *d, const char *name);

/* in (RW_MAX_PARAMS values, may be NULL: all 0) with every 0 replaced by the parameter's
 * default, into out. HK_OK, or HK_EINVAL when a value is outside its parameter's range or
 * set (msg, msg_size bytes, names it). */
int rw_params_resolve(const rw_descriptor *d, const int *in, int *out, char *msg, size_t msg_size);

/* Applicability: whether d applies to ctx's kernel with params (as for rw_apply). HK_OK
 * with why->line 0 and why->reason "" when it applies, or with why filled when it does
 * not; HK_EINVAL (bad parameters, bad kernel), HK_ENOMEM. */
int rw_applies(const rw_descriptor *d, const rw_context *ctx, const int *params, rw_refusal *why);

/* The one driver: resolves params, asks applicability, emits. HK_OK with out->applicable
 * true (new text), or false with out->description and why (may be NULL) saying what stopped
 * it; HK_EINVAL for an unknown name or bad parameters (out says which), HK_ENOMEM,
 * HK_EPARSE as rewrite.h says. out is always initialised (rw_result_free). */
int rw_apply(const rw_descriptor *d, const rw_context *ctx, const int *params, rw_result *out,
             rw_refusal *why);
int rw_apply_named(const char *name, const rw_context *ctx, const int *params, rw_result *out,
                   rw_refusal *why);

/* Turns a rewrite's own refusal text (its "X not applicable to kernel K: " prefix dropped)
 * into why: the construct that stopped it, with its line. A "line N" the text already
 * gives wins; a reason that says the expected start of the body is missing names what
 * the body starts with instead (a grid-stride loop, a __shared__ array, a loop ...); else
 * the first occurrence in the kernel of what the reason names (__syncthreads, an atomic,
 * __shared__, a loop, a return, the bounds check, a template ...); else the body's first
 * statement. A locator over the reason's words until the kernel model gives each
 * recognizer exact positions. Always fills why. */
void rw_refusal_locate(const rw_context *ctx, const char *text, rw_refusal *why);

/* The kernel model of kernel name in text, and its class: the first step of every
 * rewrite's model path (a recognizer falls back to it when its text matcher refuses).
 * HK_OK with *k (km_free) and *c filled; HK_OK with *k NULL and the reason in why ("the
 * kernel model cannot be built: ...") when the model cannot be built; HK_ENOMEM; an error
 * of km_classify (with *k NULL). why[0] is '\0' unless the model was not built. */
int rw_model_classify(const char *text, size_t len, const char *name, km_kernel **k, km_class *c,
                      char *why, size_t n);

#endif
