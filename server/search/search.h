/* The built-in engine v1's search (ask/tell): the candidate space of one kernel -- block
 * size, grid mode (the spec's grid, or a grid-stride kernel on an SM-multiple grid),
 * fast-math, __launch_bounds__, __restrict__/const, tunable constants -- and a seeded,
 * deterministic strategy over it: the baseline, then single changes from it (one axis at a
 * time), then the best value of each axis combined, then random neighbours of the best.
 * Identical candidates (same text, launch and flags, by content hash) are proposed once.
 * Engine v2's structural rewrites, proposed by skills, form one more axis whose values
 * are tried before any other single change (each skill's first choice first); once those
 * are measured, a rewrite that stacks (RW_STACKS) is applied to the leaders' outputs too.
 * A candidate budget smaller than twice the first choices explores half of it among them,
 * then puts the leader's follow-ups (its stacks, its skill's next two choices) before the
 * other first choices (search.c queue_follow_ups). When the rewrites measured by then lost
 * (an algorithm rewrite slower than the baseline or failed, none SEARCH_NOISE_SPEEDUP
 * faster), the launch axes' first values and the generic tunings (RW_TUNING) go next
 * instead, where the budget left would not reach them (queue_fallback).
 * One search per episode, used from one thread. */
#ifndef HK_ENGINE_SEARCH_H
#define HK_ENGINE_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "measure/measure.h"

struct spec;

enum search_grid_mode {
    SEARCH_GRID_SPEC = 0,    /* the spec's grid expression, evaluated with the block below */
    SEARCH_GRID_SM_MULTIPLE, /* 1D grid of sm_count * grid_per_sm blocks (grid-stride kernel) */
    SEARCH_GRID_DIVIDED,     /* the spec's grid divided (rounded up) by grid_divisor along
                              * grid_axis: a rewrite whose threads each do the work of
                              * grid_divisor along it (rw_result.grid_divisor) */
    SEARCH_GRID_MULTIPLIED,  /* the spec's grid multiplied by grid_multiplier along grid_axis:
                              * a rewrite that gives each unit of work that many threads
                              * (split_topk_scan's lanes per query; rw_result.grid_multiplier) */
};

typedef struct {
    char *name;
    char *value;
} search_setting;

/* One proposal. Owned by the search (valid until search_free); read-only for the caller. */
typedef struct {
    unsigned id;                   /* order of proposal, from 0 */
    uint64_t hash;                 /* FNV-1a 64 of text + launch + flags + template args */
    char *text;                    /* the whole source to compile, NUL-terminated */
    size_t len;
    unsigned block[3];             /* the block at size set 0 (the spec's, unless block_own) */
    bool block_own;                /* the candidate chose its block (a block axis, a tunable
                                    * linked to the block, a structural rewrite's block_size);
                                    * false: the spec's block expression, which the benchmark
                                    * program evaluates at each size (nx - 1 at one size is not
                                    * nx - 1 at another) */
    enum search_grid_mode grid_mode;
    unsigned grid_per_sm;          /* SEARCH_GRID_SM_MULTIPLE: blocks per SM */
    unsigned grid_divisor;         /* SEARCH_GRID_DIVIDED: 2..64 */
    unsigned grid_axis;            /* SEARCH_GRID_DIVIDED, _MULTIPLIED: 0 x, 1 y, 2 z */
    unsigned grid_multiplier;      /* SEARCH_GRID_MULTIPLIED: 2..64 */
    bool fast_math;
    const char *const *flags;      /* extra compiler flags, NULL-terminated (never NULL) */
    int launch_bounds;             /* max threads written into __launch_bounds__; 0: as in the source */
    int launch_bounds_min_blocks;
    bool restrict_ptrs;            /* __restrict__ (and const where never written) added */
    bool grid_stride;              /* the grid-stride rewrite was applied */
    const char *structural;        /* the structural rewrite applied, e.g. "vectorize
                                    * width=4", or NULL (owned by the search); a stacked
                                    * candidate names both: "uniform_tiles tile=256 ... +
                                    * unroll_jam_scan unroll=4 ..." (the second on the
                                    * first's output) */
    const char *skill;             /* the skill that proposed it, or NULL */
    search_setting *tunables;      /* tunables set to a value other than the source's */
    size_t n_tunables;
    char **template_args;          /* the spec's template arguments with tunables applied;
                                    * NULL when the spec gives none */
    size_t n_template_args;
    int phase;                     /* 0 baseline, 1 single change (or a second rewrite stacked
                                    * on a leading one), 2 combination, 3 neighbour */
    char *description;             /* one line: what differs from the baseline ("baseline") */
} search_candidate;

/* A structural rewrite to try (engine v2: rewrite_mem.h, rewrite_pattern.h), as a skill
 * proposes it, with one choice of its parameters. Strings borrowed for search_new only. */
typedef struct {
    const char *skill;          /* id of the skill that proposes it, or NULL */
    const char *rewrite;        /* vectorize, readonly_loads, unroll, fast_math,
                                 * tiled_transpose, warp_reduce, block_reduce,
                                 * privatized_histogram, histogram_lane_replicas,
                                 * online_softmax, online_layernorm, warp_rows,
                                 * grid_stride_2d, tiled_gemm, blas_substitution,
                                 * invariant_table (others are refused: HK_EINVAL) */
    int params[3];              /* in the rewrite's argument order: width; factor; tile;
                                 * bins; tile_m, tile_n, tile_k; math; table (unused ones 0).
                                 * invariant_table: table, vector_width (rw_vectorize's width
                                 * applied after the table on the grid-stride path; 0: none) */
    unsigned block_size;        /* a 1D block to launch it with; 0: the search's block */
    unsigned blocks_per_sm;     /* an SM-multiple grid (needs sm_count); 0: the spec's grid */
    unsigned rank;              /* 0 for a skill's first choice, 1 its second, ...: every
                                 * skill's first choice is tried before anything else */
} search_struct;

/* The launch facts the search needs from the bench spec and the device. Borrowed pointers. */
typedef struct {
    unsigned block[3];             /* the baseline's block dims (size set 0) */
    unsigned block_max_threads;    /* the most threads the spec's block has at any size set */
    bool block_free;               /* the spec's grid follows block_x/y/z, so the block may vary */
    bool exact_tolerance;          /* some output must match exactly: fast-math is never tried */
    int sm_count;                  /* the device's SMs; 0: unknown (no SM-multiple grids) */
    int warps_per_sm;              /* the device's resident warps per SM; 0: unknown (rewrites
                                    * that size themselves to the device take it as unknown) */
    const char *const *template_args;  /* the spec's template arguments, or NULL */
    size_t n_template_args;
    const search_struct *structs;  /* structural rewrites to try, best first; NULL: none.
                                    * Those that do not apply to the kernel are dropped. */
    size_t n_structs;
    bool hip_target;               /* compiled for AMD/DCU (readonly_loads does not apply) */
    bool kernel_only;              /* a candidate may change only the kernel's definition (the
                                    * command form): no tunable defined outside it is set, and
                                    * no template argument at launch sites */
    const struct spec *spec;       /* the bench spec, for rewrites that read its sizes and grid
                                    * (coarsen); borrowed, must outlive the search; NULL: none */
} search_launch;

/* The least speedup over the baseline that counts as a gain (measure.h's
 * MEASURE_NOISE_SPEEDUP): the search times a candidate once against the baseline's own run,
 * and a gain under 2% is within that run's noise. The
 * episode verifies only candidates at or above it (episode.c stage_accuracy); the search falls
 * back to its launch axes when an algorithm rewrite it measured lost and none reached it
 * (queue_fallback). */
#define SEARCH_NOISE_SPEEDUP MEASURE_NOISE_SPEEDUP

typedef struct {
    unsigned max_candidates;       /* proposals in all, baseline included; 0: 64 */
    double max_seconds;            /* wall clock from search_new; 0: no limit */
} search_budget;

enum search_status {
    SEARCH_OK = 0,         /* compiled, correct, measured */
    SEARCH_COMPILE_ERROR,
    SEARCH_WRONG,          /* failed the oracle */
    SEARCH_CRASH,
    SEARCH_TIMEOUT,
    SEARCH_REJECTED,       /* e.g. below the physical floor */
};

typedef struct search search;

/* The launch facts from a parsed spec (size set 0 gives the block) and the device's SM
 * count. HK_OK; HK_EINVAL when the block cannot be evaluated (reason in err) or the spec
 * is a command-form spec (it has no launch to vary). */
int search_launch_from_spec(const struct spec *s, int sm_count, search_launch *out, char *err,
                            size_t errlen);

/* New search over kernel (index into m->funcs, an AN_KERNEL) of text (len bytes; m is its
 * model; both borrowed for the call only: the search keeps its own copy of the text and
 * re-analyses what it needs). The axes are decided here by dry-running each rewrite once.
 * HK_OK, HK_EINVAL (bad arguments, not a kernel), HK_ENOMEM. */
int search_new(const char *text, size_t len, const an_model *m, size_t kernel,
               const search_launch *launch, uint64_t seed, const search_budget *budget,
               search **out);
void search_free(search *s);

/* Proposes the next untried candidate (*out borrowed from s). HK_OK; HK_ESTATE when the
 * strategy needs the results of candidates not yet reported (report them, then ask
 * again); HK_ENOENT when the space or the candidate budget is spent; HK_ETIMEDOUT when
 * the time budget is; HK_ENOMEM. Deterministic: the same seed, inputs and reports give
 * the same proposals. */
int search_next(search *s, const search_candidate **out);

/* Moves the end of the time budget later by seconds (> 0): time the caller spent not
 * searching, e.g. waiting for a GPU that another episode held. No-op without a time
 * budget. */
void search_extend_time(search *s, double seconds);

/* Feeds back the result of candidate id. median_ms is read only for SEARCH_OK (> 0).
 * HK_OK; HK_EINVAL (unknown id, bad time); HK_ESTATE (already reported). */
int search_report(search *s, unsigned id, enum search_status status, double median_ms);

/* The fastest candidate reported SEARCH_OK so far (borrowed), or NULL; its time in
 * *median_ms when not NULL. */
const search_candidate *search_best(const search *s, double *median_ms);
/* Candidate id (borrowed) or NULL. */
const search_candidate *search_get(const search *s, unsigned id);
/* Candidates proposed so far. */
size_t search_count(const search *s);
/* New one-line summary of the axes searched (hk_free), e.g. for the report and logs;
 * NULL on ENOMEM. */
char *search_describe_axes(const search *s);

/* Why tunables the kernel uses are not search axes, one sentence each ("RADIUS not
 * searched: used in the bound of a loop that reads temp[] (line 12)"), in the model's
 * order: a tunable becomes an axis only when knob_prove (knob.h) shows it shapes the
 * launch or tiling alone. Borrowed (valid until search_free); *n their count. */
const char *const *search_refused_tunables(const search *s, size_t *n);

/* Why a rewrite that stacks (registry.h RW_STACKS) was not stacked on a leading structural
 * candidate, one sentence per pair ("unroll_jam_scan unroll=4 (skill ...) not stacked on
 * uniform_tiles tile=256 ...: <its refusal, with the construct and its line in the leader's
 * text, not the kernel's>"), in the order met.
 * Borrowed (valid until the next search_next or search_free); *n their count. */
const char *const *search_stack_refusals(const search *s, size_t *n);

/* The content hash used for deduplication: FNV-1a 64 over text, then a canonical
 * serialization of block, grid mode, flags and template arguments. (A divided grid's axis
 * and divisor are the text's: the rewrite that asks for them wrote K into the body.) */
uint64_t search_hash(const char *text, size_t len, const unsigned block[3],
                     enum search_grid_mode mode, unsigned grid_per_sm,
                     const char *const *flags, const char *const *template_args,
                     size_t n_template_args);

#endif
