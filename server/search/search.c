/* Built-in engine v1 search: axes of candidate values decided once from the kernel and the
 * spec, configurations (one value index per axis, 0 = the baseline's) turned into source
 * text by the rewrites, and an ask/tell strategy that moves from single changes to
 * combinations to seeded random neighbours. Configurations and contents are remembered by
 * hash, so nothing is proposed twice. */
#include "search/search.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/log.h"
#include "model/kmodel.h"
#include "search/knob.h"
#include "rewrites/rewrite.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_mem.h"
#include "rewrites/rewrite_recognize.h"
#include "spec/spec.h"
#include "core/i18n.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define SEARCH_DEFAULT_CANDIDATES 64
#define SEARCH_MAX_CANDIDATES 10000
/* resident threads per SM on sm_80/sm_90 (and per CU on gfx9): a full wave of them */
#define SEARCH_THREADS_PER_SM 2048u
/* Waves of resident blocks a tile-walking body (RW_TILE_LOOP) is launched on: H200, llm.c's
 * 4-D permute (64M floats) tiled 32x32 by blocks of 256: 0.235 ms on one wave (8 blocks/SM),
 * 0.215 ms on 4 and on 8, 0.719 ms on the spec's grid of one thread per element, where 3 of
 * 4 blocks find no tile (bench/results/2026-12-04-h200-session23.md, call 3). */
#define SEARCH_TILE_WAVES 4u
#define SEARCH_MAX_AXES 64
#define SEARCH_NEIGHBOUR_TRIES 256

/* ------------------------------------------------------------------ hashing */

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= FNV_PRIME;
    }
    return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
    h = fnv(h, s, strlen(s));
    return fnv(h, "\x1f", 1);   /* separator: ("ab","c") and ("a","bc") differ */
}

uint64_t search_hash(const char *text, size_t len, const unsigned block[3],
                     enum search_grid_mode mode, unsigned grid_per_sm,
                     const char *const *flags, const char *const *template_args,
                     size_t n_template_args)
{
    uint64_t h = fnv(FNV_OFFSET, text, len);
    char launch[128];
    snprintf(launch, sizeof launch, "block=%u,%u,%u;grid=%d,%u;flags=", block[0], block[1], /* i18n: not for people */
             block[2], (int)mode, mode == SEARCH_GRID_SM_MULTIPLE ? grid_per_sm : 0);
    h = fnv(h, "", 1);   /* the NUL ends the text part */
    h = fnv_str(h, launch);
    for (size_t i = 0; flags && flags[i]; i++)
        h = fnv_str(h, flags[i]);
    h = fnv_str(h, ";targs=");
    for (size_t i = 0; i < n_template_args; i++)
        h = fnv_str(h, template_args[i]);
    return h;
}

/* Open-addressing set of 64-bit hashes (0 stands for "empty", so 0 is stored as 1). */
typedef struct {
    uint64_t *slot;
    size_t cap, n;
} hset;

static void hset_free(hset *s)
{
    hk_free(s->slot);
    memset(s, 0, sizeof *s);
}

static bool hset_has(const hset *s, uint64_t h)
{
    if (!s->cap)
        return false;
    h = h ? h : 1;
    for (size_t i = h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->slot[i] == h)
            return true;
        if (!s->slot[i])
            return false;
    }
}

static int hset_add(hset *s, uint64_t h)
{
    h = h ? h : 1;
    if ((s->n + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        uint64_t *slot = hk_calloc(cap, sizeof *slot);
        if (!slot)
            return HK_ENOMEM;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->slot[i])
                continue;
            size_t j = s->slot[i] & (cap - 1);
            while (slot[j])
                j = (j + 1) & (cap - 1);
            slot[j] = s->slot[i];
        }
        hk_free(s->slot);
        s->slot = slot;
        s->cap = cap;
    }
    size_t i = h & (s->cap - 1);
    while (s->slot[i] && s->slot[i] != h)
        i = (i + 1) & (s->cap - 1);
    if (!s->slot[i]) {
        s->slot[i] = h;
        s->n++;
    }
    return HK_OK;
}

/* ------------------------------------------------------------------ axes */

enum axis_kind { AX_STRUCT, AX_GRID, AX_BLOCK, AX_TUNABLE, AX_RESTRICT, AX_LAUNCH_BOUNDS,
                 AX_FAST_MATH, AX_STACK };

typedef struct {
    enum axis_kind kind;
    size_t n_values;            /* value 0 is always the baseline's */
    unsigned (*blocks)[3];      /* AX_BLOCK */
    unsigned *ivals;            /* AX_GRID: blocks per SM; AX_LAUNCH_BOUNDS: min blocks */
    char **svals;               /* AX_TUNABLE: literal values ([0] = the source's) */
    char *tname;                /* AX_TUNABLE */
    enum an_tunable_kind tkind;
    long targ_index;            /* AX_TUNABLE: index into the spec's template args, or -1 */
    bool linked_block;          /* AX_TUNABLE: the value is also block_x */
    search_struct *structs;     /* AX_STRUCT, AX_STACK: [0] unused; strings owned (skill, rewrite) */
    char **labels;              /* AX_STRUCT, AX_STACK: "vectorize width=4" */
    bool *bad;                  /* the value failed as a single change */
} axis;

static void axis_free(axis *a)
{
    hk_free(a->blocks);
    hk_free(a->ivals);
    if (a->svals)
        for (size_t i = 0; i < a->n_values; i++)
            hk_free(a->svals[i]);
    hk_free(a->svals);
    hk_free(a->tname);
    if (a->structs)
        for (size_t i = 0; i < a->n_values; i++) {
            hk_free((char *)a->structs[i].skill);
            hk_free((char *)a->structs[i].rewrite);
        }
    hk_free(a->structs);
    if (a->labels)
        for (size_t i = 0; i < a->n_values; i++)
            hk_free(a->labels[i]);
    hk_free(a->labels);
    hk_free(a->bad);
}

typedef struct {
    search_candidate pub;       /* first: a search_candidate * is a cand_rec * */
    int *cfg;
    char **flags_own;           /* backing for pub.flags */
    bool reported;
    enum search_status status;
    double median_ms;
    char *structural_own;       /* backing for pub.structural when stacked ("A + B") */
} cand_rec;

struct search {
    char *text;
    size_t len;
    an_model *m;
    size_t kernel;
    char *kernel_name;
    search_launch launch;       /* template_args deep-copied */
    char **targs_own;
    bool gs_rewrite;            /* rw_grid_stride applies to the baseline */
    bool already_strided;       /* the kernel is a grid-stride loop already */
    int source_lb;              /* the source's __launch_bounds__ max threads (literal), or 0 */
    bool source_has_lb;
    bool restrict_early;        /* a loop stores beside its loads: __restrict__ before the
                                 * structural rewrites' second choices */
    axis axes[SEARCH_MAX_AXES];
    size_t n_axes;
    uint64_t rng;
    search_budget budget;
    double t0;
    cand_rec **cands;
    size_t n_cands, cap_cands;
    size_t pending;
    hset configs, contents;
    int phase;                  /* next phase to propose from */
    int **queue;                /* configurations waiting to be proposed (phases 1 and 2) */
    size_t n_queue, queue_pos;
    size_t first_end, second_end; /* queue [0, first_end): the skills' first structural
                                 * choices; [first_end, second_end): their second choices */
    size_t explore;             /* first choices proposed before the leader's follow-ups
                                 * (queue_follow_ups) when the queue has more; 0: no wait */
    bool followed;              /* the follow-ups were queued */
    bool fell_back;             /* queue_fallback decided (at the first wait for results) */
    bool seconds_ordered;       /* the second choices ordered by their skills' first results */
    long best;                  /* index into cands of the fastest SEARCH_OK, or -1 */
    char **refused;             /* "NAME not searched: why" for tunables left out */
    size_t n_refused;
    const char *block_param;    /* a kernel parameter the spec passes equal to the block along
                                 * x (rw_spec_block_x_param; borrowed from m), or NULL: then no
                                 * candidate may launch another block (block_param_holds) */
    char **stack_refused;       /* "B not stacked on A: why", once per pair */
    size_t n_stack_refused;
};

/* splitmix64: small, fast, and the same sequence everywhere for a seed */
static uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static bool parse_long(const char *s, long *out)
{
    if (!s || !*s)
        return false;
    char *end;
    long v = strtol(s, &end, 0);
    while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
        end++;
    if (*end)
        return false;
    *out = v;
    return true;
}

static unsigned threads_of(const unsigned b[3]) { return b[0] * b[1] * b[2]; }

/* Blocks the spec's grid launches at size set 0 (the timed size) under block b: the product
 * of its dimensions, or -1 when it cannot be evaluated (no spec, a float, a bad value). */
static long long spec_grid_blocks(const search *s, const unsigned b[3])
{
    const spec *sp = s->launch.spec;
    if (!sp)
        return -1;
    expr_var *vars = hk_calloc(sp->n_size_names + 4, sizeof *vars);
    if (!vars)
        return -1;
    const long long blk[3] = {b[0], b[1], b[2]};
    size_t nv = spec_size_vars(sp, 0, blk, s->launch.sm_count, vars);
    long long total = 1;
    for (int d = 0; d < 3 && total > 0; d++) {
        expr_value v;
        if (!sp->grid[d])
            continue;
        if (expr_eval(sp->grid[d], vars, nv, &v, NULL, 0) != HK_OK || v.is_float || v.i < 1)
            total = -1;
        else
            total *= v.i;
    }
    hk_free(vars);
    return total;
}

static int axis_alloc(axis *a, size_t n)
{
    a->n_values = n;
    a->bad = hk_calloc(n, sizeof *a->bad);
    return a->bad ? HK_OK : HK_ENOMEM;
}

/* Candidate block shapes, nearest to the baseline's thread count first. */
static int add_block_axis(search *s)
{
    static const unsigned one_d[] = {32, 64, 128, 256, 512, 1024};
    static const unsigned two_d[][2] = {{32, 8}, {32, 4}, {16, 16}, {32, 16}, {64, 4},
                                        {32, 32}, {16, 8}, {64, 8}, {128, 2}, {8, 8}};
    const unsigned *b = s->launch.block;
    unsigned cand[16][3];
    size_t n = 0;
    if (b[2] != 1)
        return HK_OK;   /* 3D blocks: left alone */
    if (b[1] == 1) {
        for (size_t i = 0; i < HK_ARRAY_LEN(one_d); i++)
            if (one_d[i] != b[0])
                cand[n][0] = one_d[i], cand[n][1] = 1, cand[n][2] = 1, n++;
    } else {
        for (size_t i = 0; i < HK_ARRAY_LEN(two_d); i++)
            if (!(two_d[i][0] == b[0] && two_d[i][1] == b[1]))
                cand[n][0] = two_d[i][0], cand[n][1] = two_d[i][1], cand[n][2] = 1, n++;
    }
    /* stable sort by distance in log2 of the thread count */
    double base = log2((double)threads_of(b));
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            double dj = fabs(log2((double)threads_of(cand[j])) - base);
            double dp = fabs(log2((double)threads_of(cand[j - 1])) - base);
            if (dj >= dp)
                break;
            unsigned t[3];
            memcpy(t, cand[j], sizeof t);
            memcpy(cand[j], cand[j - 1], sizeof t);
            memcpy(cand[j - 1], t, sizeof t);
        }
    if (n == 0)
        return HK_OK;
    axis *a = &s->axes[s->n_axes];
    memset(a, 0, sizeof *a);
    a->kind = AX_BLOCK;
    if (axis_alloc(a, n + 1) || !(a->blocks = hk_calloc(n + 1, sizeof *a->blocks))) {
        axis_free(a);
        return HK_ENOMEM;
    }
    memcpy(a->blocks[0], b, sizeof a->blocks[0]);
    for (size_t i = 0; i < n; i++)
        memcpy(a->blocks[i + 1], cand[i], sizeof a->blocks[0]);
    s->n_axes++;
    return HK_OK;
}

static int add_int_axis(search *s, enum axis_kind kind, const unsigned *vals, size_t n)
{
    axis *a = &s->axes[s->n_axes];
    memset(a, 0, sizeof *a);
    a->kind = kind;
    if (axis_alloc(a, n + 1) || !(a->ivals = hk_calloc(n + 1, sizeof *a->ivals))) {
        axis_free(a);
        return HK_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        a->ivals[i + 1] = vals[i];
    s->n_axes++;
    return HK_OK;
}

/* A tunable axis: powers of two around the current value (or half/double), nearest first. */
static int add_tunable_axis(search *s, const an_tunable *t, long value, long targ_index, bool linked)
{
    long alt[8];
    size_t n = 0;
    bool pow2 = value > 0 && (value & (value - 1)) == 0;
    long cands[4] = {value / 2, value * 2, pow2 ? value / 4 : 0, pow2 ? value * 4 : 0};
    for (size_t i = 0; i < 4; i++) {
        long v = cands[i];
        if (v < 1 || v > 4096 || v == value)
            continue;
        if (linked && (v < 32 || v > 1024 || v % 32))
            continue;
        alt[n++] = v;
    }
    if (n == 0)
        return HK_OK;
    axis *a = &s->axes[s->n_axes];
    memset(a, 0, sizeof *a);
    a->kind = AX_TUNABLE;
    a->tkind = t->kind;
    a->targ_index = targ_index;
    a->linked_block = linked;
    if (axis_alloc(a, n + 1) || !(a->svals = hk_calloc(n + 1, sizeof *a->svals)) ||
        !(a->tname = hk_strdup(t->name)))
        goto nomem;
    if (!(a->svals[0] = hk_asprintf("%ld", value)))
        goto nomem;
    for (size_t i = 0; i < n; i++)
        if (!(a->svals[i + 1] = hk_asprintf("%ld", alt[i])))
            goto nomem;
    s->n_axes++;
    return HK_OK;
nomem:
    axis_free(a);
    return HK_ENOMEM;
}

static bool kernel_has_static_shared(const an_function *f)
{
    for (size_t i = 0; i < f->n_shared; i++)
        if (!f->shared[i].is_extern)
            return true;
    return false;
}

/* Applies structural rewrite st to text (model m, kernel) through the rewrite registry's
 * driver: HK_EINVAL for a name the registry does not have or parameters it refuses. */
static int apply_struct(const search_struct *st, const search_launch *l, const char *text, size_t len,
                        const an_model *m, size_t kernel, rw_result *r)
{
    rw_context ctx = {.text = text, .len = len, .m = m, .kernel = kernel, .spec = l->spec, .hip = l->hip_target,
                      .template_args = l->template_args, .n_template_args = l->n_template_args,
                      .sm_count = l->sm_count, .warps_per_sm = l->warps_per_sm};
    const rw_descriptor *d = rw_find(st->rewrite);
    memset(r, 0, sizeof *r);
    if (!d || (d->flags & RW_SEARCH_AXIS))   /* those are the search's own axes */
        return HK_EINVAL;
    return rw_apply(d, &ctx, st->params, r, NULL);
}

/* "tiled_gemm tile_m=64 tile_n=64 tile_k=8, block 256 (skill ...)": the rewrite with its
 * parameters as given (an optional one only when set), then the skill's launch (its grid
 * only when with_grid). */
static char *struct_label_grid(const search_struct *st, bool with_grid)
{
    const rw_descriptor *d = rw_find(st->rewrite);
    struct hk_buf b;
    hk_buf_init(&b, 256);
    int rc = hk_buf_printf(&b, "%s", st->rewrite);
    for (size_t i = 0; d && i < d->n_params && i < RW_MAX_PARAMS && !rc; i++)
        if (!d->params[i].optional || st->params[i])
            rc = hk_buf_printf(&b, " %s=%d", d->params[i].name, st->params[i]);
    /* the block the body is written for (launch_block) is the one launched */
    unsigned own = d && d->launch_block ? d->launch_block(st->params) : 0u;
    if (!rc && (own || st->block_size))
        rc = hk_buf_printf(&b, ", block %u", own ? own : st->block_size);
    if (!rc && st->blocks_per_sm && with_grid)
        rc = hk_buf_printf(&b, ", %u blocks/SM", st->blocks_per_sm);
    if (!rc && st->skill)
        rc = hk_buf_printf(&b, " (skill %s)", st->skill);
    if (rc) {
        hk_buf_free(&b);
        return NULL;
    }
    return hk_buf_steal(&b);
}

static char *struct_label(const search_struct *st)
{
    return struct_label_grid(st, true);
}

static bool struct_has(const search_struct *st, unsigned flag)
{
    const rw_descriptor *d = rw_find(st->rewrite);
    return d && (d->flags & flag);
}

/* Puts a copy of st (its own skill and rewrite names, its label) at value v of a: false when
 * out of memory. */
static bool axis_put_struct(axis *a, size_t v, const search_struct *st)
{
    a->structs[v] = *st;
    a->structs[v].skill = st->skill ? hk_strdup(st->skill) : NULL;
    a->structs[v].rewrite = hk_strdup(st->rewrite);
    a->labels[v] = struct_label(st);
    return !(st->skill && !a->structs[v].skill) && a->structs[v].rewrite && a->labels[v];
}

/* Ends the building of a structural axis a of n values (of cap slots): kept as the search's
 * next axis when it has a value besides "none" and rc is HK_OK, else freed. Returns rc. */
static int axis_close(search *s, axis *a, size_t n, size_t cap, int rc)
{
    if (rc != HK_OK || n <= 1) {
        a->n_values = cap;
        axis_free(a);
        return rc;
    }
    a->n_values = n;
    s->n_axes++;
    return HK_OK;
}

/* How many of the choices before structs[i] from the same skill (or rewrite, without one)
 * of a lower rank were dropped as the same program (dropped[j]). */
static unsigned ranks_dropped(const search_struct *structs, const bool *dropped, size_t i)
{
    const char *own = structs[i].skill ? structs[i].skill : structs[i].rewrite;
    unsigned n = 0;
    for (size_t j = 0; j < i; j++) {
        const char *o = structs[j].skill ? structs[j].skill : structs[j].rewrite;
        if (dropped[j] && o && own && !strcmp(o, own) && structs[j].rank < structs[i].rank)
            n++;
    }
    return n;
}

/* The structural axis: the proposed rewrites that apply to the baseline, in the caller's
 * order. A value whose launch needs the SM count when it is unknown loses that part.
 * A choice that would be a program already on the axis is dropped: the same rewrite and
 * launch from two skills, the same text and grid under other parameters (channel_chunks'
 * chunk 0 is its own choice of C_K: chunk 8 again on carafe), or a choice that moves only
 * a launch the rewrite does not use
 * (rw_result.keeps_launch: FPS's block_reduce keeps the kernel's template block, so its
 * skill's blocks/SM and block-size choices are its first choice again). A skill's choices
 * after such a duplicate move up a rank, so its next new program is its second choice:
 * FPS's key form (block_reduce key=1, the skill's sixth choice) was behind every other
 * axis's values, never among a budget of 4, when the five before it were its first choice
 * again. (A choice that does not apply keeps the ranks after it: vectorize's width 8 on a
 * float kernel leaves width 4 a second choice, level with coarsen's first, which the plan
 * put one rank back for that case.) */
static int add_struct_axis(search *s)
{
    const search_launch *l = &s->launch;
    size_t n = 0;
    axis *a = &s->axes[s->n_axes];
    memset(a, 0, sizeof *a);
    a->kind = AX_STRUCT;
    size_t cap = l->n_structs + 1;
    bool *dropped = hk_calloc(cap, sizeof *dropped);
    bool *kept_launch = hk_calloc(cap, sizeof *kept_launch);   /* by axis value */
    uint64_t *program = hk_calloc(cap, sizeof *program);       /* by axis value */
    if (!dropped || !kept_launch || !program || axis_alloc(a, cap) ||
        !(a->structs = hk_calloc(cap, sizeof *a->structs)) ||
        !(a->labels = hk_calloc(cap, sizeof *a->labels)))
        goto nomem;
    n = 1;
    for (size_t i = 0; i < l->n_structs && n < 64; i++) {
        search_struct st = l->structs[i];
        if (!st.rewrite || struct_has(&st, RW_STACK_ONLY))   /* the stacking axis' alone */
            continue;
        st.rank -= ranks_dropped(l->structs, dropped, i);
        if (!s->launch.sm_count)
            st.blocks_per_sm = 0;
        if (st.block_size > 1024)
            st.block_size = 0;
        rw_result r;
        int rc = apply_struct(&st, l, s->text, s->len, s->m, s->kernel, &r);
        bool ok = rc == HK_OK && r.applicable;
        /* under an SM-multiple grid such a rewrite goes on a grid-stride loop first
         * (materialize): another text than this dry run's */
        bool keeps = ok && r.keeps_launch &&
                     !(st.blocks_per_sm && struct_has(&st, RW_KEEPS_THREAD_INDEXING));
        /* the program the choice makes: its text and the grid it asks for (a parameter the
         * rewrite resolves itself, channel_chunks' chunk 0, can name a program another
         * choice names by value); under blocks/SM the search materializes a grid-stride loop
         * first, whose program this dry run's text is not (invariant_table's vector width) */
        uint64_t prog = 0;
        if (ok) {
            unsigned grid[4] = {r.grid_divisor, r.grid_multiplier, r.grid_axis, r.keeps_grid};
            prog = fnv(fnv(FNV_OFFSET, r.text, r.len), grid, sizeof grid);
        }
        if (rc == HK_EINVAL)
            HK_DEBUG("search: structural rewrite %s is not one the engine has", st.rewrite);
        else if (!ok)
            HK_DEBUG("search: %s does not apply: %s", st.rewrite,
                     r.description ? r.description : hk_strerror(rc));
        rw_result_free(&r);
        if (rc == HK_ENOMEM)
            goto nomem;
        if (!ok)
            continue;
        /* the same rewrite and launch from two skills, or the same rewrite whose launch
         * is the kernel's own either way: tried once */
        bool dup = false;
        for (size_t k = 1; k < n && !dup; k++)
            dup = !strcmp(a->structs[k].rewrite, st.rewrite) &&
                  (!memcmp(a->structs[k].params, st.params, sizeof st.params) ||
                   (program[k] == prog && !st.blocks_per_sm &&
                    !a->structs[k].blocks_per_sm)) &&
                  ((keeps && kept_launch[k]) ||
                   (a->structs[k].block_size == st.block_size &&
                    a->structs[k].blocks_per_sm == st.blocks_per_sm));
        if (dup) {
            dropped[i] = true;
            continue;
        }
        kept_launch[n] = keeps;
        program[n] = prog;
        if (!axis_put_struct(a, n++, &st))
            goto nomem;
    }
    hk_free(dropped);
    hk_free(kept_launch);
    hk_free(program);
    return axis_close(s, a, n, cap, HK_OK);
nomem:
    hk_free(dropped);
    hk_free(kept_launch);
    hk_free(program);
    return axis_close(s, a, n, cap, HK_ENOMEM);
}

/* The stacking axis: the structural choices whose rewrite stacks (RW_STACKS), each skill's
 * first choice once, whether or not it applies to the baseline (it may apply only to a
 * leader's text). Value v > 0 stacks structs[v] on the configuration's structural value;
 * queue_stacks proposes it only on the leaders, once the first choices are measured. */
static int add_stack_axis(search *s)
{
    const search_launch *l = &s->launch;
    size_t cap = l->n_structs + 1, n = 1;
    axis *a = &s->axes[s->n_axes];
    memset(a, 0, sizeof *a);
    a->kind = AX_STACK;
    if (axis_alloc(a, cap) || !(a->structs = hk_calloc(cap, sizeof *a->structs)) ||
        !(a->labels = hk_calloc(cap, sizeof *a->labels)))
        goto nomem;
    for (size_t i = 0; i < l->n_structs; i++) {
        search_struct st = l->structs[i];
        if (!st.rewrite || st.rank != 0 || !struct_has(&st, RW_STACKS))
            continue;
        bool dup = false;
        for (size_t k = 1; k < n && !dup; k++)
            dup = !strcmp(a->structs[k].rewrite, st.rewrite) &&
                  !memcmp(a->structs[k].params, st.params, sizeof st.params);
        if (dup)
            continue;
        st.block_size = st.blocks_per_sm = 0;   /* it keeps the leader's launch */
        if (!axis_put_struct(a, n++, &st))
            goto nomem;
    }
    return axis_close(s, a, n, cap, HK_OK);
nomem:
    return axis_close(s, a, n, cap, HK_ENOMEM);
}

/* The index of the axis of kind k, or -1 (AX_STRUCT and AX_STACK are one axis each). */
static long axis_of_kind(const search *s, enum axis_kind k)
{
    for (size_t a = 0; a < s->n_axes; a++)
        if (s->axes[a].kind == k)
            return (long)a;
    return -1;
}

/* Records "NAME not searched: why" (why: new string, taken). */
static int refuse_tunable(search *s, const char *name, char *why)
{
    char *line = why ? hk_asprintf(EN(SRCH_NOT_SEARCHED), name, why) : NULL;
    hk_free(why);
    char **v = line ? hk_realloc(s->refused, (s->n_refused + 1) * sizeof *v) : NULL;
    if (!v) {
        hk_free(line);
        return HK_ENOMEM;
    }
    s->refused = v;
    s->refused[s->n_refused++] = line;
    HK_DEBUG("search: %s", line);
    return HK_OK;
}

/* 1 when tunable ti may be an axis, 0 when it is refused (the reason recorded), or an
 * error. A value that decides what the kernel computes (a radius, a problem size) must
 * never be searched: a program whose own check shares it would pass with a different
 * computation. */
static int tunable_is_knob(search *s, size_t ti, bool linked)
{
    const an_tunable *t = &s->m->tunables[ti];
    const an_function *f = &s->m->funcs[s->kernel];
    if (s->launch.kernel_only) {
        bool inside = t->kind != AN_TUNE_TEMPLATE && t->span.start_byte >= f->span.start_byte &&
                      t->span.end_byte <= f->span.end_byte;
        if (!inside) {
            unsigned line = t->span.start_row + 1;
            int rc = refuse_tunable(s, t->name,
                                    t->kind == AN_TUNE_TEMPLATE
                                        ? hk_asprintf(EN(SRCH_TEMPLATE_AT_LAUNCH), line)
                                        : hk_asprintf(EN(SRCH_DEFINED_OUTSIDE),
                                                      line));
            return rc ? rc : 0;
        }
    }
    knob_proof p;
    int rc = knob_prove(s->text, s->len, s->m, s->kernel, ti, linked, &p);
    if (rc)
        return rc;
    if (p.proven) {
        HK_DEBUG("search: %s is a knob: %s", t->name, p.why);
        knob_proof_clear(&p);
        return 1;
    }
    rc = refuse_tunable(s, t->name, p.why);
    p.why = NULL;
    knob_proof_clear(&p);
    return rc ? rc : 0;
}

static int build_axes(search *s)
{
    const an_function *f = &s->m->funcs[s->kernel];
    int rc;
    rw_result r;

    if (s->launch.n_structs && (rc = add_struct_axis(s)))
        return rc;
    if (axis_of_kind(s, AX_STRUCT) >= 0 && (rc = add_stack_axis(s)))
        return rc;

    /* grid-stride on an SM-multiple grid: 1D launches whose kernel is, or can become, a
     * grid-stride loop */
    if ((rc = rw_grid_stride(s->text, s->len, s->m, s->kernel, &r)) && rc != HK_EPARSE)
        return rc;
    s->gs_rewrite = rc == HK_OK && r.applicable;
    rw_result_free(&r);
    s->already_strided = !s->gs_rewrite && rw_body_mentions(s->text, s->len, f, "gridDim") &&
                         rw_body_mentions(s->text, s->len, f, "for");
    bool one_d = s->launch.block[1] == 1 && s->launch.block[2] == 1;
    if (one_d && s->launch.sm_count > 0 && (s->gs_rewrite || s->already_strided)) {
        static const unsigned per_sm[] = {8, 16, 4, 32};
        if ((rc = add_int_axis(s, AX_GRID, per_sm, HK_ARRAY_LEN(per_sm))))
            return rc;
    }

    /* tunables the kernel uses */
    bool linked_any = false;
    for (size_t i = 0; i < s->m->n_tunables && s->n_axes + 4 < SEARCH_MAX_AXES; i++) {
        const an_tunable *t = &s->m->tunables[i];
        long targ = -1, value;
        if (t->kind == AN_TUNE_TEMPLATE) {
            if (t->owner != (long)s->kernel)
                continue;
            targ = rw_template_param_index(f->template_params, t->name);
            if (targ >= 0 && (size_t)targ < s->launch.n_template_args) {
                if (!parse_long(s->launch.template_args[targ], &value))
                    continue;   /* a type or an expression */
            } else {
                targ = -1;
                if (!parse_long(t->value, &value))
                    continue;
            }
        } else {
            bool used = t->owner == (long)s->kernel ||
                        (t->owner < 0 && rw_body_mentions(s->text, s->len, f, t->name)) ||
                        (f->launch_bounds && strstr(f->launch_bounds, t->name));
            if (!used || !parse_long(t->value, &value))
                continue;
        }
        if (value < 1 || value > 4096)
            continue;   /* larger constants are problem sizes, not tuning knobs */
        /* equal to the block size and sizing the launch or an array (a shared tile): the
         * two move together, or the kernel breaks */
        bool linked = (t->in_launch || t->in_array) && one_d && s->launch.block_free &&
                      (unsigned long)value == s->launch.block[0];
        if ((rc = tunable_is_knob(s, i, linked)) < 0)
            return rc;
        if (rc == 0)
            continue;
        linked_any |= linked;
        if ((rc = add_tunable_axis(s, t, value, targ, linked)))
            return rc;
    }

    /* A parameter the spec passes equal to the block along x (llm.c's block_size): the
     * harness passes the spec's value whatever block a candidate is launched with, so a
     * candidate with another block would run a kernel whose block_size is not its block
     * (rstd_kernel's tree would start from 256 under a block of 128 and read slots no thread
     * stored). No block is searched then, and materialize drops any candidate whose launch
     * would change it (a skill's block, a linked tunable, the spec-grid halving). */
    for (size_t i = 0; i < f->n_params && !s->block_param; i++)
        if (rw_spec_block_x_param(s->launch.spec, f, i, NULL, 0))
            s->block_param = f->params[i].name;
    if (s->block_param &&
        (rc = refuse_tunable(s, "block", hk_asprintf(EN(SRCH_BLOCK_PARAM), s->block_param, s->block_param))))
        return rc;
    if (s->launch.block_free && !linked_any && !kernel_has_static_shared(f) && !s->block_param &&
        (rc = add_block_axis(s)))
        return rc;

    if ((rc = rw_restrict(s->text, s->len, s->m, s->kernel, true, &r)) && rc != HK_EPARSE)
        return rc;
    bool restrict_ok = rc == HK_OK && r.applicable;
    rw_result_free(&r);
    if (restrict_ok && (rc = add_int_axis(s, AX_RESTRICT, (const unsigned[]){1}, 1)))
        return rc;

    static const unsigned min_blocks[] = {0, 2};
    if ((rc = add_int_axis(s, AX_LAUNCH_BOUNDS, min_blocks, HK_ARRAY_LEN(min_blocks))))
        return rc;
    if (!s->launch.exact_tolerance && (rc = add_int_axis(s, AX_FAST_MATH, (const unsigned[]){1}, 1)))
        return rc;
    return HK_OK;
}

/* ------------------------------------------------------------------ materializing */

static uint64_t config_hash(const search *s, const int *cfg)
{
    return fnv(FNV_OFFSET ^ 0x5a, cfg, s->n_axes * sizeof *cfg);
}

static void cand_free(cand_rec *c)
{
    if (!c)
        return;
    hk_free(c->pub.text);
    hk_free(c->pub.description);
    hk_free(c->structural_own);
    for (size_t i = 0; i < c->pub.n_tunables; i++) {
        hk_free(c->pub.tunables[i].name);
        hk_free(c->pub.tunables[i].value);
    }
    hk_free(c->pub.tunables);
    if (c->pub.template_args)
        for (size_t i = 0; i < c->pub.n_template_args; i++)
            hk_free(c->pub.template_args[i]);
    hk_free(c->pub.template_args);
    if (c->flags_own)
        for (size_t i = 0; c->flags_own[i]; i++)
            hk_free(c->flags_own[i]);
    hk_free(c->flags_own);
    hk_free(c->cfg);
    hk_free(c);
}

/* Working state while a configuration becomes text. */
typedef struct {
    char *text;
    size_t len;
    an_model *m;        /* owned model of text; NULL while text is the search's baseline */
    size_t kernel;
} work;

/* Replaces w's text with r's (taking it) and re-analyses. */
static int work_take(search *s, work *w, rw_result *r)
{
    an_model *m;
    int rc = an_analyze(r->text, r->len, &m);
    if (rc)
        return rc;
    hk_free(w->text);
    an_model_free(w->m);
    w->text = r->text;
    w->len = r->len;
    r->text = NULL;
    w->m = m;
    long k = an_model_find_kernel(m, s->kernel_name);
    if (k < 0)
        return HK_EPARSE;
    w->kernel = (size_t)k;
    return HK_OK;
}

static const an_model *work_model(const search *s, const work *w) { return w->m ? w->m : s->m; }

static long find_tunable(const an_model *m, const char *name, enum an_tunable_kind kind, size_t kernel)
{
    for (size_t i = 0; i < m->n_tunables; i++) {
        const an_tunable *t = &m->tunables[i];
        if (t->kind == kind && strcmp(t->name, name) == 0 &&
            (kind != AN_TUNE_TEMPLATE || t->owner == (long)kernel))
            return (long)i;
    }
    return -1;
}

/* Applies one rewrite step; *skip set (with a log line) when it does not apply. */
static int step(search *s, work *w, int rc, rw_result *r, bool must_apply, bool *skip)
{
    if (rc == HK_EPARSE || (rc == HK_OK && !r->applicable && must_apply)) {
        HK_DEBUG("search: candidate skipped: %s", r->description ? r->description : "rewrite failed");
        *skip = true;
        rw_result_free(r);
        return HK_OK;
    }
    if (rc) {
        rw_result_free(r);
        return rc;
    }
    if (r->applicable)
        rc = work_take(s, w, r);
    if (rc == HK_EPARSE) {
        *skip = true;
        rc = HK_OK;
    }
    rw_result_free(r);
    return rc;
}

/* Whether a structural choice sets any of its rewrite's own parameters (a tile, a width),
 * besides the launch (block_size, blocks_per_sm). */
static bool has_own_params(const search_struct *st)
{
    for (size_t i = 0; i < RW_MAX_PARAMS; i++)
        if (st->params[i])
            return true;
    return false;
}

/* RW_KEEPS_THREAD_INDEXING (registry.h): a structural rewrite whose output keeps the
 * original's thread indexing (one thread per index, the spec's grid) goes on a grid-stride
 * loop first under a skill's SM-multiple grid, so each resident block loops over many
 * indices. invariant_table's per-block table then costs one fill per persistent block:
 * rope_forward on an H200 went from 0.98x (one pair per thread, a fill per 256 pairs) to
 * 92% of the copy bandwidth in a hand-written grid-stride form
 * (bench/results/2026-11-30-h200-session6). */

/* After invariant_table on the grid-stride path: rw_vectorize at the skill's vector_width
 * (params[1]; 0: none), so each thread moves whole 16-byte vectors of several indices
 * (rope_forward: two pairs per float4; hand-written on an H200 that ran at 94-98% of the
 * copy bandwidth against 78-80% with scalar x[e], x[e + 1] -- bench/results/
 * 2026-11-30-h200-session6/explore-call7,8). When it does not apply the candidate stays
 * the table alone (*width 0), which the hash then finds equal to the vector_width 0 choice.
 * *skip when the result loses the kernel. */
static int vectorize_after_table(search *s, work *w, const search_struct *sst, int *width, bool *skip)
{
    *width = 0;
    int vw = sst->params[1];
    if (vw != 2 && vw != 4 && vw != 8)
        return HK_OK;
    rw_result r;
    int rc = rw_vectorize_targs(w->text, w->len, work_model(s, w), w->kernel, vw, s->launch.template_args,
                                s->launch.n_template_args, &r);
    if (rc == HK_ENOMEM) {
        rw_result_free(&r);
        return rc;
    }
    if (rc != HK_OK || !r.applicable) {   /* too big, or no longer parses: the table alone */
        HK_DEBUG("search: %s stays unvectorized: %s", sst->rewrite,
                 r.description ? r.description : hk_strerror(rc));
        rw_result_free(&r);
        return HK_OK;
    }
    rc = work_take(s, w, &r);
    rw_result_free(&r);
    if (rc == HK_EPARSE) {   /* the kernel is not found in the result (cannot happen: finish checks) */
        *skip = true;
        return HK_OK;
    }
    if (rc == HK_OK)
        *width = vw;
    return rc;
}

/* Records "B not stacked on A: why" once (why: new string, taken; NULL: out of memory). */
static int note_stack_refusal(search *s, char *why)
{
    if (!why)
        return HK_ENOMEM;
    for (size_t i = 0; i < s->n_stack_refused; i++)
        if (!strcmp(s->stack_refused[i], why)) {
            hk_free(why);
            return HK_OK;
        }
    char **v = hk_realloc(s->stack_refused, (s->n_stack_refused + 1) * sizeof *v);
    if (!v) {
        hk_free(why);
        return HK_ENOMEM;
    }
    s->stack_refused = v;
    s->stack_refused[s->n_stack_refused++] = why;
    HK_DEBUG("search: %s", why);
    return HK_OK;
}

/* The second rewrite of a stacked configuration (AX_STACK value of cfg) on w's text, which
 * holds the structural rewrite sst's output (label sst_label) re-modelled by work_take: the
 * rewrites see the leader's text as they would a kernel of its own. *skip when cfg stacks
 * without a structural value, stacks a rewrite on itself, or when the second rewrite refuses
 * or would change the leader's launch (RW_STACKS keeps it): nothing is proposed, and the
 * refusal is kept for the report (search_stack_refusals). */
static int stack_on(search *s, work *w, const int *cfg, const search_struct *sst,
                    const char *sst_label, cand_rec *c, struct hk_buf *desc, bool *skip)
{
    long st = axis_of_kind(s, AX_STACK);
    if (st < 0 || cfg[st] == 0)
        return HK_OK;
    const search_struct *bst = &s->axes[st].structs[cfg[st]];
    const char *blabel = s->axes[st].labels[cfg[st]];
    if (!sst || !strcmp(bst->rewrite, sst->rewrite)) {
        *skip = true;
        return HK_OK;
    }
    rw_result r;
    int rc = apply_struct(bst, &s->launch, w->text, w->len, work_model(s, w), w->kernel, &r);
    if (rc == HK_ENOMEM) {
        rw_result_free(&r);
        return rc;
    }
    if (rc != HK_OK || !r.applicable || !r.keeps_launch) {
        const char *why = rc != HK_OK       ? hk_strerror(rc)
                          : !r.applicable   ? (r.description ? r.description : EN(RW_NOT_APPLICABLE))
                                            : EN(SRCH_STACK_CHANGES_LAUNCH);
        rc = note_stack_refusal(s, hk_asprintf(EN(SRCH_NOT_STACKED), blabel, sst_label, why));
        rw_result_free(&r);
        *skip = true;
        return rc;
    }
    if ((rc = step(s, w, rc, &r, true, skip)) || *skip)
        return rc;
    if (!(c->structural_own = hk_asprintf("%s + %s", sst_label, blabel)))
        return HK_ENOMEM;
    c->pub.structural = c->structural_own;
    return hk_buf_printf(desc, " + %s", blabel);
}

/* Builds the candidate for cfg into *out (new record). *skip when the configuration cannot
 * be written (a rewrite does not apply to the combined text). */
static int materialize(search *s, const int *cfg, int phase, cand_rec **out, bool *skip)
{
    *out = NULL;
    *skip = false;
    work w = {NULL, 0, NULL, s->kernel};
    struct hk_buf desc;
    hk_buf_init(&desc, 4096);
    int rc = HK_OK;
    rw_result r;
    cand_rec *c = hk_calloc(1, sizeof *c);
    if (!c || !(c->cfg = hk_calloc(s->n_axes ? s->n_axes : 1, sizeof *c->cfg)) ||
        !(w.text = hk_strndup(s->text, s->len)) ||
        !(c->pub.tunables = hk_calloc(s->n_axes ? s->n_axes : 1, sizeof *c->pub.tunables)) ||
        !(c->flags_own = hk_calloc(4, sizeof *c->flags_own))) {
        rc = HK_ENOMEM;
        goto out;
    }
    memcpy(c->cfg, cfg, s->n_axes * sizeof *cfg);
    w.len = s->len;
    c->pub.phase = phase;
    memcpy(c->pub.block, s->launch.block, sizeof c->pub.block);
    c->pub.grid_mode = SEARCH_GRID_SPEC;
    if (s->launch.n_template_args) {
        c->pub.template_args = hk_calloc(s->launch.n_template_args, sizeof *c->pub.template_args);
        if (!c->pub.template_args) {
            rc = HK_ENOMEM;
            goto out;
        }
        c->pub.n_template_args = s->launch.n_template_args;
        for (size_t i = 0; i < s->launch.n_template_args; i++)
            if (!(c->pub.template_args[i] = hk_strdup(s->launch.template_args[i]))) {
                rc = HK_ENOMEM;
                goto out;
            }
    }

    /* order: the structural rewrite (it replaces the body), tunables, restrict,
     * grid-stride, launch bounds (which needs the final block) */
    const search_struct *sst = NULL;
    bool restricted = false, restrict_first = false, keeps_launch = false, keeps_grid = false;
    unsigned divisor = 0, div_axis = 0;   /* the grid the structural rewrite asks for */
    unsigned multiplier = 0;               /* ... or its grid multiplied along div_axis */
    for (size_t a = 0; a < s->n_axes && !*skip; a++) {
        const axis *ax = &s->axes[a];
        if (ax->kind != AX_STRUCT || cfg[a] == 0)
            continue;
        sst = &ax->structs[cfg[a]];
        /* __restrict__ goes first under vectorize: it lets a kernel that reads one
         * pointer after writing another of the same type be vectorized, and the vector
         * loads then take the read-only path */
        for (size_t b = 0; b < s->n_axes && struct_has(sst, RW_VECTOR_LOOP); b++) {
            if (s->axes[b].kind != AX_RESTRICT || cfg[b] == 0)
                continue;
            rc = rw_restrict(w.text, w.len, work_model(s, &w), w.kernel, true, &r);
            if ((rc = step(s, &w, rc, &r, true, skip)))
                goto out;
            restricted = !*skip;
        }
        if (*skip)
            break;
        /* K copies of a body (coarsen) gain when their loads issue together, which a store
         * through a pointer that may alias them forbids: __restrict__ first wherever it
         * applies, the restrict axis set or not (not applicable: the rewrite alone) */
        if (struct_has(sst, RW_RESTRICT_FIRST) && !restricted) {
            rc = rw_restrict(w.text, w.len, work_model(s, &w), w.kernel, true, &r);
            bool took = rc == HK_OK && r.applicable;
            if (rc == HK_EPARSE)
                rc = HK_OK;
            if ((rc = step(s, &w, rc, &r, false, skip)))
                goto out;
            if (*skip)
                break;
            restricted = restrict_first = took;
            c->pub.restrict_ptrs |= took;
        }
        if (sst->blocks_per_sm && struct_has(sst, RW_KEEPS_THREAD_INDEXING) && !s->already_strided) {
            rc = rw_grid_stride(w.text, w.len, work_model(s, &w), w.kernel, &r);
            if ((rc = step(s, &w, rc, &r, true, skip)))
                goto out;
            if (*skip)
                break;
            c->pub.grid_stride = true;
        }
        rc = apply_struct(sst, &s->launch, w.text, w.len, work_model(s, &w), w.kernel, &r);
        keeps_launch = rc == HK_OK && r.applicable && r.keeps_launch;
        keeps_grid = keeps_launch || (rc == HK_OK && r.applicable && r.keeps_grid);
        if (rc == HK_OK && r.applicable && r.grid_divisor > 1)
            divisor = r.grid_divisor, div_axis = r.grid_axis;
        else if (rc == HK_OK && r.applicable && r.grid_multiplier > 1)
            multiplier = r.grid_multiplier, div_axis = r.grid_axis;
        /* its other choices move only the launch it keeps: the same program again */
        if (keeps_launch && sst->rank > 0 && !has_own_params(sst)) {
            rw_result_free(&r);
            *skip = true;
            break;
        }
        if ((rc = step(s, &w, rc, &r, true, skip)))
            goto out;
        /* a vector loop whose element count is the launch's thread count (no bound:
         * `C[gid] = ...` with gid the global index) must keep the spec's grid, where
         * (width - 1) / width of the threads find no vector: SHOC's triad measured 0.76x
         * on an H200, float4 saxpy 0.78x. Not worth a candidate. */
        if (!*skip && keeps_grid && struct_has(sst, RW_VECTOR_LOOP)) {
            HK_DEBUG("search: %s keeps the spec's grid (its count is the launch's): not proposed",
                     sst->rewrite);
            *skip = true;
            break;
        }
        int vectorized = 0;
        if (!*skip && sst->blocks_per_sm && struct_has(sst, RW_KEEPS_THREAD_INDEXING) &&
            (rc = vectorize_after_table(s, &w, sst, &vectorized, skip)))
            goto out;
        c->pub.structural = ax->labels[cfg[a]];
        c->pub.skill = sst->skill;
        if (keeps_launch) { /* the label's block and blocks/SM are not what runs */
            search_struct own = *sst;   /* its parameters are (ilp_accumulators' K) */
            own.block_size = own.blocks_per_sm = 0;
            own.skill = sst->skill ? sst->skill : "-";
            char *label = struct_label_grid(&own, false);
            rc = label ? hk_buf_printf(&desc, EN(SRCH_OWN_LAUNCH), label) : HK_ENOMEM;
            hk_free(label);
        } else if (keeps_grid) {   /* nor the label's blocks/SM */
            char *label = struct_label_grid(sst, false);
            rc = label ? hk_buf_printf(&desc, EN(SRCH_SPEC_GRID), label) : HK_ENOMEM;
            hk_free(label);
        } else
            rc = hk_buf_printf(&desc, "%s%s", ax->labels[cfg[a]],
                               c->pub.grid_stride ? " on a grid-stride loop" : "");
        if (rc)
            goto out;
        if (vectorized && (rc = hk_buf_printf(&desc, ", vectorized %d-wide", vectorized)))
            goto out;
        if (restrict_first && (rc = hk_buf_printf(&desc, "; __restrict__/const")))
            goto out;
        /* a second rewrite on this one's output (queue_stacks): "A + B" */
        if (!*skip && (rc = stack_on(s, &w, cfg, sst, ax->labels[cfg[a]], c, &desc, skip)))
            goto out;
    }
    /* a stacking value with no structural rewrite under it is no candidate */
    long st_axis = axis_of_kind(s, AX_STACK);
    if (!sst && st_axis >= 0 && cfg[st_axis])
        *skip = true;
    /* a library call ignores the kernel's launch, attributes and flags: combined with any
     * other axis it would be the same program timed again */
    for (size_t a = 0; sst && struct_has(sst, RW_LIBRARY_CALL) && a < s->n_axes; a++)
        if (s->axes[a].kind != AX_STRUCT && cfg[a] != 0)
            *skip = true;
    for (size_t a = 0; a < s->n_axes && !*skip; a++) {
        const axis *ax = &s->axes[a];
        if (ax->kind != AX_TUNABLE || cfg[a] == 0)
            continue;
        const char *v = ax->svals[cfg[a]];
        long ti = find_tunable(work_model(s, &w), ax->tname, ax->tkind, w.kernel);
        bool via_targs = ax->targ_index >= 0;
        if (ti >= 0) {
            rc = rw_set_tunable(w.text, w.len, work_model(s, &w), (size_t)ti, v, &r);
            if ((rc = step(s, &w, rc, &r, !via_targs, skip)))
                goto out;
        } else if (!via_targs) {
            *skip = true;
            break;
        }
        if (via_targs) {
            char *nv = hk_strdup(v);
            if (!nv) {
                rc = HK_ENOMEM;
                goto out;
            }
            hk_free(c->pub.template_args[ax->targ_index]);
            c->pub.template_args[ax->targ_index] = nv;
        }
        if (ax->linked_block) {
            c->pub.block[0] = (unsigned)strtoul(v, NULL, 10);
            c->pub.block_own = true;
        }
        search_setting *st = &c->pub.tunables[c->pub.n_tunables];
        if (!(st->name = hk_strdup(ax->tname)) || !(st->value = hk_strdup(v))) {
            hk_free(st->name);
            rc = HK_ENOMEM;
            goto out;
        }
        c->pub.n_tunables++;
        if ((rc = hk_buf_printf(&desc, "%s%s=%s", desc.len ? "; " : "", ax->tname, v)))
            goto out;
    }
    for (size_t a = 0; a < s->n_axes && !*skip; a++) {
        const axis *ax = &s->axes[a];
        if (cfg[a] == 0)
            continue;
        switch (ax->kind) {
        case AX_BLOCK:
            memcpy(c->pub.block, ax->blocks[cfg[a]], sizeof c->pub.block);
            c->pub.block_own = true;
            rc = hk_buf_printf(&desc, "%sblock %ux%ux%u", desc.len ? "; " : "", c->pub.block[0],
                               c->pub.block[1], c->pub.block[2]);
            break;
        case AX_RESTRICT:
            if (restricted) {
                c->pub.restrict_ptrs = true;
                if (!restrict_first)
                    rc = hk_buf_printf(&desc, "%s__restrict__/const", desc.len ? "; " : "");
                break;
            }
            rc = rw_restrict(w.text, w.len, work_model(s, &w), w.kernel, true, &r);
            if (!(rc = step(s, &w, rc, &r, true, skip))) {
                c->pub.restrict_ptrs = true;
                rc = hk_buf_printf(&desc, "%s__restrict__/const", desc.len ? "; " : "");
            }
            break;
        case AX_FAST_MATH:
            c->pub.fast_math = true;
            if (!(c->flags_own[0] = hk_strdup("-use_fast_math")))
                rc = HK_ENOMEM;
            else
                rc = hk_buf_printf(&desc, "%s-use_fast_math", desc.len ? "; " : "");
            break;
        default:
            break;
        }
        if (rc)
            goto out;
    }
    /* a library substitution links the library (harness.c puts -l flags after the program) */
    if (sst && struct_has(sst, RW_LIBRARY_CALL)) {
        size_t f = 0;
        while (c->flags_own[f])
            f++;
        if (!(c->flags_own[f] = hk_strdup(s->launch.hip_target ? "-lhipblas" : "-lcublas"))) {
            rc = HK_ENOMEM;
            goto out;
        }
    }
    /* a structural rewrite's launch: its body works with any block and grid, unless it
     * keeps the kernel's own (rw_result.keeps_launch) */
    if (sst && sst->block_size && !keeps_launch) {
        c->pub.block[0] = sst->block_size, c->pub.block[1] = c->pub.block[2] = 1;
        c->pub.block_own = true;
    }
    /* a body written for one block (warp_rows' block per row) is launched with it */
    const rw_descriptor *sd = sst ? rw_find(sst->rewrite) : NULL;
    unsigned own_block = sd && sd->launch_block ? sd->launch_block(sst->params) : 0u;
    if (own_block && own_block <= 1024u && !keeps_launch) {
        c->pub.block[0] = own_block, c->pub.block[1] = c->pub.block[2] = 1;
        c->pub.block_own = true;
    }
    if (sst && sst->blocks_per_sm && !keeps_grid) {
        c->pub.grid_mode = SEARCH_GRID_SM_MULTIPLE;
        c->pub.grid_per_sm = sst->blocks_per_sm;
    }
    /* a body whose threads each do the work of K along an axis gains only under the spec's
     * grid divided by K there (stencil_window): the search launches it so, never with an
     * SM-multiple grid, which it was not written for */
    if (divisor && !*skip) {
        for (size_t a = 0; a < s->n_axes; a++)
            if (s->axes[a].kind == AX_GRID && cfg[a] != 0)
                *skip = true;
        if (c->pub.grid_mode != SEARCH_GRID_SPEC)
            *skip = true;
        c->pub.grid_mode = SEARCH_GRID_DIVIDED;
        c->pub.grid_divisor = divisor;
        c->pub.grid_axis = div_axis;
        if (!*skip && (rc = hk_buf_printf(&desc, "; grid / %u along %c", divisor,
                                          "xyz"[div_axis % 3])))
            goto out;
    }
    /* a body that gives each unit of work K threads (split_topk_scan) is exact and gains
     * only under the spec's grid multiplied by K there: launched so, never SM-multiple */
    if (multiplier && !*skip) {
        for (size_t a = 0; a < s->n_axes; a++)
            if (s->axes[a].kind == AX_GRID && cfg[a] != 0)
                *skip = true;
        if (c->pub.grid_mode != SEARCH_GRID_SPEC)
            *skip = true;
        c->pub.grid_mode = SEARCH_GRID_MULTIPLIED;
        c->pub.grid_multiplier = multiplier;
        c->pub.grid_axis = div_axis;
        if (!*skip && (rc = hk_buf_printf(&desc, "; grid x %u along %c", multiplier,
                                          "xyz"[div_axis % 3])))
            goto out;
    }
    for (size_t a = 0; a < s->n_axes && !*skip; a++) {
        const axis *ax = &s->axes[a];
        if (ax->kind != AX_GRID || cfg[a] == 0)
            continue;
        if (keeps_grid) {
            *skip = true;                  /* the rewrite keeps the kernel's grid */
            break;
        }
        if (sst && sst->blocks_per_sm)
            continue;                      /* the skill's grid */
        if (!s->already_strided && !sst) {
            rc = rw_grid_stride(w.text, w.len, work_model(s, &w), w.kernel, &r);
            if ((rc = step(s, &w, rc, &r, true, skip)))
                goto out;
            c->pub.grid_stride = true;
        }
        c->pub.grid_mode = SEARCH_GRID_SM_MULTIPLE;
        c->pub.grid_per_sm = ax->ivals[cfg[a]];
        if ((rc = hk_buf_printf(&desc, "%sgrid-stride, %u blocks/SM", desc.len ? "; " : "",
                                c->pub.grid_per_sm)))
            goto out;
    }
    /* SM fill: an algorithm's body, written for any block (RW_ALGORITHM, its launch not the
     * kernel's own: the kernel's own code, under a hint, may assume its block), under the
     * spec's grid, where that grid at the candidate's block launches fewer
     * blocks than the device has SMs, runs the same work on more, smaller blocks: the block
     * is halved (down to 64 threads) while that lowers the threads the busiest SM gets,
     * ceil(blocks / SMs) x block (equal work a thread: the SM that runs most threads ends
     * last). mmcv's knn: 8 x 8 blocks of 512 threads (4096 queries a batch) leave 68 of the
     * H200's 132 SMs idle; blocks of 256 give 128, one an SM, half the threads the busiest
     * SM had (128 would give 256 blocks, two on most SMs: no fewer). ball_query's 128 blocks
     * of 512 stay (256 of 256 put two on most SMs). A grid that does not follow the block
     * (one block, a fixed count) never moves it. */
    if (sst && struct_has(sst, RW_ALGORITHM) && !keeps_launch && !c->pub.block_own &&
        c->pub.grid_mode == SEARCH_GRID_SPEC &&
        s->launch.block_free && s->launch.sm_count > 0 && c->pub.block[1] == 1 && c->pub.block[2] == 1 &&
        !struct_has(sst, RW_VECTOR_LOOP) && !struct_has(sst, RW_TILE_LOOP) && !*skip) {
        unsigned b0 = c->pub.block[0], nb = b0;
        long long g0 = spec_grid_blocks(s, c->pub.block), ng = g0;
        const long long sms = s->launch.sm_count;
        while (g0 > 0 && g0 < sms && nb >= 128 && nb % 64 == 0) {
            const unsigned half[3] = {nb / 2, 1, 1};
            long long h = spec_grid_blocks(s, half);
            if (h <= ng || (h + sms - 1) / sms * (nb / 2) >= (ng + sms - 1) / sms * nb)
                break;
            nb /= 2;
            ng = h;
        }
        if (nb != b0) {
            c->pub.block[0] = nb;
            c->pub.block_own = true;
            if ((rc = hk_buf_printf(&desc, EN(SRCH_BLOCK_SPEC_GRID), nb, g0, b0,
                                    s->launch.sm_count)))
                goto out;
        }
    }
    /* the spec's block-size parameter (s->block_param) stays what the spec passes: a
     * candidate launched with another block would compute with a parameter that is no
     * longer its block */
    if (s->block_param && memcmp(c->pub.block, s->launch.block, sizeof c->pub.block) != 0 && !*skip) {
        HK_DEBUG("search: a candidate skipped: block %ux%ux%u, but the spec passes %s as %u", c->pub.block[0], c->pub.block[1], c->pub.block[2], s->block_param, s->launch.block[0]);
        *skip = true;
    }
    unsigned threads = threads_of(c->pub.block);
    /* The vectorized body is a grid-stride loop over vectors: under the spec's grid (one
     * thread per element) width-1 of every width threads would find no work, which on an
     * H200 made float4 saxpy 0.78x. One full wave of resident threads instead; a body that
     * walks tiles, SEARCH_TILE_WAVES waves. */
    if (sst && (struct_has(sst, RW_VECTOR_LOOP) || struct_has(sst, RW_TILE_LOOP)) &&
        c->pub.grid_mode == SEARCH_GRID_SPEC && !keeps_grid && threads >= 1 && threads <= 1024) {
        unsigned wave = SEARCH_THREADS_PER_SM / threads ? SEARCH_THREADS_PER_SM / threads : 1;
        c->pub.grid_mode = SEARCH_GRID_SM_MULTIPLE;
        c->pub.grid_per_sm = struct_has(sst, RW_TILE_LOOP) ? SEARCH_TILE_WAVES * wave : wave;
        if ((rc = hk_buf_printf(&desc, "; %u blocks/SM", c->pub.grid_per_sm)))
            goto out;
    }
    for (size_t a = 0; a < s->n_axes && !*skip; a++) {
        const axis *ax = &s->axes[a];
        if (ax->kind != AX_LAUNCH_BOUNDS)
            continue;
        /* the spec's block, kept, may be larger at another size set than at set 0 */
        unsigned lb = !c->pub.block_own && s->launch.block_max_threads > threads
                          ? s->launch.block_max_threads : threads;
        int minb = -1;
        if (cfg[a] != 0)
            minb = (int)ax->ivals[cfg[a]];
        else if (s->source_has_lb && s->source_lb > 0 && (int)lb > s->source_lb)
            minb = 0;   /* the source's bound is below the new block: it must grow */
        if (minb < 0 || lb < 1 || lb > 1024)
            continue;
        rc = rw_launch_bounds(w.text, w.len, work_model(s, &w), w.kernel, (int)lb, minb, &r);
        if ((rc = step(s, &w, rc, &r, false, skip)))
            goto out;
        c->pub.launch_bounds = (int)lb;
        c->pub.launch_bounds_min_blocks = minb;
        if (cfg[a] != 0 &&
            (rc = hk_buf_printf(&desc, minb ? "%s__launch_bounds__(%u, %d)" : "%s__launch_bounds__(%u)",
                                desc.len ? "; " : "", lb, minb)))
            goto out;
    }
    if (*skip)
        goto out;
    c->pub.flags = (const char *const *)c->flags_own;
    c->pub.text = w.text;
    c->pub.len = w.len;
    w.text = NULL;
    c->pub.hash = search_hash(c->pub.text, c->pub.len, c->pub.block, c->pub.grid_mode,
                              c->pub.grid_per_sm, c->pub.flags,
                              (const char *const *)c->pub.template_args, c->pub.n_template_args);
    c->pub.description = desc.len ? hk_buf_steal(&desc) : hk_strdup("baseline");
    if (!c->pub.description) {
        rc = HK_ENOMEM;
        goto out;
    }
    *out = c;
    c = NULL;
out:
    hk_buf_free(&desc);
    hk_free(w.text);
    an_model_free(w.m);
    cand_free(c);
    return rc;
}

/* ------------------------------------------------------------------ lifecycle */

int search_launch_from_spec(const struct spec *sp, int sm_count, search_launch *out, char *err,
                            size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (err && errlen)
        err[0] = '\0';
    if (!sp || sp->form != SPEC_FORM_HARNESS) {
        if (err)
            snprintf(err, errlen, EN(SRCH_CMDFORM_NO_LAUNCH));
        return HK_EINVAL;
    }
    out->spec = sp;
    for (int d = 0; d < 3; d++) {
        expr_value v;
        if (!sp->block[d]) {
            out->block[d] = 1;
            continue;
        }
        int rc = spec_eval(sp, sp->block[d], 0, sm_count > 0 ? sm_count : 1, &v, err, errlen);
        if (rc)
            return rc;
        if (v.is_float || v.i < 1 || v.i > 1024) {
            if (err)
                snprintf(err, errlen, EN(SRCH_BLOCK_DIM_RANGE), d);
            return HK_EINVAL;
        }
        out->block[d] = (unsigned)v.i;
    }
    if (threads_of(out->block) > 1024) {
        if (err)
            snprintf(err, errlen, EN(SRCH_BLOCK_TOO_MANY));
        return HK_EINVAL;
    }
    /* A block written with the sizes (Parboil's stencil: `nx - 1` threads per line) differs
     * between size sets: a __launch_bounds__ must admit the largest of them. */
    out->block_max_threads = threads_of(out->block);
    for (size_t k = 1; k < sp->n_sizes; k++) {
        unsigned b[3];
        for (int d = 0; d < 3; d++) {
            expr_value v;
            b[d] = 1;
            if (sp->block[d] &&
                spec_eval(sp, sp->block[d], k, sm_count > 0 ? sm_count : 1, &v, NULL, 0) ==
                    HK_OK && !v.is_float && v.i >= 1 && v.i <= 1024)
                b[d] = (unsigned)v.i;
        }
        if (threads_of(b) > out->block_max_threads)
            out->block_max_threads = threads_of(b);
    }
    static const char *const bvars[] = {"block_x", "block_y", "block_z"};
    for (int d = 0; d < 3; d++)
        for (int v = 0; v < 3; v++)
            if (sp->grid[d] && expr_uses(sp->grid[d], bvars[v]))
                out->block_free = true;
    for (size_t i = 0; i < sp->n_args; i++) {
        const spec_arg *a = &sp->args[i];
        if ((a->kind == HK_ARG_OUTPUT || a->kind == HK_ARG_INOUT) && a->tol.rtol == 0 &&
            a->tol.atol == 0)
            out->exact_tolerance = true;
    }
    out->sm_count = sm_count;
    out->template_args = (const char *const *)sp->template_args;
    out->n_template_args = sp->n_template_args;
    return HK_OK;
}

void search_free(search *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_axes; i++)
        axis_free(&s->axes[i]);
    for (size_t i = 0; i < s->n_cands; i++)
        cand_free(s->cands[i]);
    hk_free(s->cands);
    for (size_t i = 0; i < s->n_queue; i++)
        hk_free(s->queue[i]);
    hk_free(s->queue);
    if (s->targs_own)
        for (size_t i = 0; i < s->launch.n_template_args; i++)
            hk_free(s->targs_own[i]);
    hk_free(s->targs_own);
    hset_free(&s->configs);
    hset_free(&s->contents);
    for (size_t i = 0; i < s->n_refused; i++)
        hk_free(s->refused[i]);
    hk_free(s->refused);
    for (size_t i = 0; i < s->n_stack_refused; i++)
        hk_free(s->stack_refused[i]);
    hk_free(s->stack_refused);
    an_model_free(s->m);
    hk_free(s->kernel_name);
    hk_free(s->text);
    hk_free(s);
}

/* Structural choices of these ranks go before the round-robin over all axes. */
#define SEARCH_STRUCT_EARLY_RANKS 2u

static int queue_push(search *s, const int *cfg)
{
    int **q = hk_realloc(s->queue, (s->n_queue + 1) * sizeof *q);
    if (!q)
        return HK_ENOMEM;
    s->queue = q;
    int *c = hk_calloc(s->n_axes ? s->n_axes : 1, sizeof *c);
    if (!c)
        return HK_ENOMEM;
    memcpy(c, cfg, s->n_axes * sizeof *cfg);
    s->queue[s->n_queue++] = c;
    return HK_OK;
}

/* Queues the configuration that changes axis a to value v and nothing else. */
static int queue_single(search *s, size_t a, size_t v)
{
    int cfg[SEARCH_MAX_AXES];
    memset(cfg, 0, sizeof cfg);
    cfg[a] = (int)v;
    return queue_push(s, cfg);
}

/* The skill that proposed structural value v of axis a (its rewrite when no skill is named). */
static const char *struct_owner(const search *s, size_t a, int v)
{
    const search_struct *st = &s->axes[a].structs[v];
    return st->skill ? st->skill : st->rewrite;
}

/* The fastest time of a measured single change whose structural choice came from owner. */
static double owner_best_ms(const search *s, const char *owner)
{
    double best = INFINITY;
    for (size_t i = 0; i < s->n_cands; i++) {
        const cand_rec *c = s->cands[i];
        if (c->pub.phase != 1 || !c->reported || c->status != SEARCH_OK)
            continue;
        for (size_t a = 0; a < s->n_axes; a++)
            if (s->axes[a].kind == AX_STRUCT && c->cfg[a] &&
                !strcmp(struct_owner(s, a, c->cfg[a]), owner) && c->median_ms < best)
                best = c->median_ms;
    }
    return best;
}

/* Once every skill's first choice is measured, their second choices go fastest skill first
 * (successive halving): a skill whose first choice led gets its next launch or parameter
 * before a skill whose first choice lost. On the H200, stencil2d's grid_stride_2d led at 8
 * blocks/SM (1.32x) while a budget of 6 went to the second choices of stencil_window and
 * coarsen in listing order, and never reached grid_stride_2d at 64 blocks/SM (session 6:
 * 1.75x). A second choice of a skill with no measured first choice goes last; anything else
 * in that stretch of the queue (restrict_early's __restrict__) keeps its place first.
 * Stable: equal times keep the skills' order. */
static int order_second_choices(search *s)
{
    size_t n = s->second_end - s->first_end;
    int **q = s->queue + s->first_end;
    if (n < 2)
        return HK_OK;
    double *key = hk_calloc(n, sizeof *key);
    if (!key)
        return HK_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        key[i] = -INFINITY;
        for (size_t a = 0; a < s->n_axes; a++)
            if (s->axes[a].kind == AX_STRUCT && q[i][a])
                key[i] = owner_best_ms(s, struct_owner(s, a, q[i][a]));
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && key[j] < key[j - 1]; j--) {
            double tk = key[j]; key[j] = key[j - 1]; key[j - 1] = tk;
            int *tq = q[j]; q[j] = q[j - 1]; q[j - 1] = tq;
        }
    hk_free(key);
    return HK_OK;
}

static double baseline_ms(const search *s);

/* Leaders whose output the stacking rewrites are offered: the fastest structural first
 * choices that beat the baseline. Two, not one: two leaders within noise of each other are
 * common (three_nn: uniform_tiles 1.18x, double_narrowing close), and the second may be
 * the one the stacked rewrite fits. */
#define SEARCH_STACK_LEADERS 2u

/* Inserts cfg into the queue at pos (<= n_queue). */
static int queue_insert(search *s, size_t pos, const int *cfg)
{
    int rc = queue_push(s, cfg);
    if (rc)
        return rc;
    int *last = s->queue[s->n_queue - 1];
    memmove(s->queue + pos + 1, s->queue + pos, (s->n_queue - 1 - pos) * sizeof *s->queue);
    s->queue[pos] = last;
    return HK_OK;
}

/* Once every skill's first choice is measured: each stacking value (AX_STACK) on the
 * leaders' configurations, fastest leader first, queued right after the first choices
 * (and the non-structural entries that keep their place there): two measured gains that
 * address different costs (uniform_tiles the global loads of the items, unroll_jam_scan the
 * dependent chain per item) are the likeliest next gain, more than a second launch of one
 * of them. A stacking value is never put on its own rewrite; one that refuses the leader's
 * text is skipped when proposed (stack_on), costing no budget. */
static int queue_stacks(search *s, size_t *at)
{
    long st = axis_of_kind(s, AX_STACK), sa = axis_of_kind(s, AX_STRUCT);
    if (st < 0 || sa < 0)
        return HK_OK;
    double base = baseline_ms(s);
    const cand_rec *lead[SEARCH_STACK_LEADERS];
    size_t n = 0;
    while (n < SEARCH_STACK_LEADERS) {
        const cand_rec *best = NULL;
        for (size_t i = 0; i < s->n_cands; i++) {
            const cand_rec *c = s->cands[i];
            if (c->pub.phase != 1 || !c->reported || c->status != SEARCH_OK || !c->cfg[sa] ||
                c->cfg[st] || !(c->median_ms < base))
                continue;
            bool taken = false;
            for (size_t j = 0; j < n && !taken; j++)
                taken = lead[j] == c;
            if (!taken && (!best || c->median_ms < best->median_ms))
                best = c;
        }
        if (!best)
            break;
        lead[n++] = best;
    }
    size_t pos = s->queue_pos;
    while (pos < s->n_queue && !s->queue[pos][sa])
        pos++;
    for (size_t j = 0; j < n; j++)
        for (size_t v = 1; v < s->axes[st].n_values; v++) {
            if (!strcmp(s->axes[st].structs[v].rewrite, s->axes[sa].structs[lead[j]->cfg[sa]].rewrite))
                continue;
            int cfg[SEARCH_MAX_AXES];
            memcpy(cfg, lead[j]->cfg, s->n_axes * sizeof *cfg);
            cfg[st] = (int)v;
            int rc = queue_insert(s, pos++, cfg);
            if (rc)
                return rc;
        }
    if (at)
        *at = pos;
    return HK_OK;
}

/* The fastest measured single change with a structural value and no stack that beat the
 * baseline, or NULL. */
static const cand_rec *structural_leader(const search *s, long sa, long st)
{
    const cand_rec *best = NULL;
    double base = baseline_ms(s);
    for (size_t i = 0; i < s->n_cands; i++) {
        const cand_rec *c = s->cands[i];
        if (c->pub.phase == 1 && c->reported && c->status == SEARCH_OK && c->cfg[sa] &&
            (st < 0 || !c->cfg[st]) && c->median_ms < base && (!best || c->median_ms < best->median_ms))
            best = c;
    }
    return best;
}

/* The leading skill's choices of these ranks follow it (queue_follow_ups). */
#define SEARCH_LEADER_CHOICES 2u

/* Once the explored first choices are measured (s->explore of them proposed, more in the
 * queue: a budget that ends within the first choices), what the leader among them suggests goes before the other
 * skills' first choices: the stacking rewrites on the leaders (queue_stacks), then the
 * leading skill's next choices (rank 1 and 2: its parameters' next values, in the skill's
 * order). A measured gain says the rewrite fits the kernel; its next parameter moved the
 * H200 suite more than a first choice further down the plan, whose skill fits the class
 * worse: carafe's channel_chunks led at chunk 8 (2.12x) while a budget of 4 went to
 * fast_divmod, specialize_constants and unroll and never reached chunk 4 and 16; rmsnorm's
 * warp_rows led at 8 blocks/SM (10.09x, six first choices in a budget of 6) where 16
 * blocks/SM is its skill's next choice (session 6: 10.96x); stencil2d's grid_stride_2d at
 * 64 blocks/SM (1.77x against 1.32x at 8) is its skill's second. A candidate that cannot lead
 * is cheap (timed only: measure_evaluate_ranked), so a losing follow-up costs little. With
 * no leader (nothing beat the baseline) nothing is queued: the first choices go on. The
 * choices stay in their later places too; proposing one twice is skipped (same configuration)
 * at no cost. */
static int queue_follow_ups(search *s)
{
    long sa = axis_of_kind(s, AX_STRUCT), st = axis_of_kind(s, AX_STACK);
    if (sa < 0)
        return HK_OK;
    const cand_rec *lead = structural_leader(s, sa, st);
    if (!lead)
        return HK_OK;
    size_t pos = s->queue_pos, before = s->n_queue;
    int rc = queue_stacks(s, &pos);
    const char *owner = struct_owner(s, (size_t)sa, lead->cfg[sa]);
    for (unsigned rank = 1; rank <= SEARCH_LEADER_CHOICES && !rc; rank++)
        for (size_t v = 1; v < s->axes[sa].n_values && !rc; v++)
            if (s->axes[sa].structs[v].rank == rank && !strcmp(struct_owner(s, (size_t)sa, (int)v), owner)) {
                int cfg[SEARCH_MAX_AXES];
                memset(cfg, 0, sizeof cfg);
                cfg[sa] = (int)v;
                rc = queue_insert(s, pos++, cfg);
            }
    if (rc)
        return rc;
    /* the first choices behind them, and the second choices still wait for those */
    s->first_end += s->n_queue - before;
    s->second_end += s->n_queue - before;
    return HK_OK;
}

/* The search's launch axes: the block, the blocks per SM of a grid-stride kernel, a
 * tunable proven to shape the launch or its tiling (knob_prove). */
static bool launch_axis(const axis *a)
{
    return a->kind == AX_BLOCK || a->kind == AX_GRID || a->kind == AX_TUNABLE;
}

/* Whether the structural single changes measured so far (stacked or not) lost: none beat the
 * baseline by the search's noise bar, SEARCH_NOISE_SPEEDUP, and an algorithm rewrite
 * (RW_ALGORITHM) among them ran slower than the baseline or failed (wrong, a compile error, a
 * crash, a time-out, rejected). The plan puts those first on their pattern alone, ahead of the
 * class's skills (skillplan.c); one that loses says that order does not hold for this kernel.
 * A class skill within the noise (fast_divmod, unroll at 0.99x) says nothing of the kind, and
 * a rewrite after it may still win (assign_score's load_batching, 1.11x on the H100 behind two
 * of them), so it keeps the plan, as every result at 1.00x to 1.02x does (a time equal to
 * the baseline's comes from a fake measurement; a real one is above or below). */
static bool rewrites_lost(const search *s, long sa)
{
    double base = baseline_ms(s);
    bool lost = false;
    for (size_t i = 0; i < s->n_cands && isfinite(base); i++) {
        const cand_rec *c = s->cands[i];
        if (c->pub.phase != 1 || !c->reported || !c->cfg[sa])
            continue;
        if (c->status == SEARCH_OK && c->median_ms * SEARCH_NOISE_SPEEDUP <= base)
            return false;   /* a gain */
        if ((c->status != SEARCH_OK || c->median_ms > base) &&
            struct_has(&s->axes[sa].structs[c->cfg[sa]], RW_ALGORITHM))
            lost = true;
    }
    return lost;
}

/* Position of cfg in the queue at or after from, or n_queue. */
static size_t queue_find(const search *s, size_t from, const int *cfg)
{
    for (size_t i = from; i < s->n_queue; i++)
        if (!memcmp(s->queue[i], cfg, s->n_axes * sizeof *cfg))
            return i;
    return s->n_queue;
}

/* At the search's first wait for results (queue_follow_ups' after the explored first choices,
 * or the one before the second choices): when the rewrites measured so far lost
 * (rewrites_lost: an algorithm rewrite ran slower than the baseline or failed, none gained
 * SEARCH_NOISE_SPEEDUP), the launch axes' first values (launch_axis: the nearest block size,
 * 8 blocks/SM, a knob's half or double) and then the first choices of the generic tunings
 * (RW_TUNING: unroll) go next, before the rest of the rewrites, unless the budget left
 * reaches them anyway (a large budget keeps its order; skipped proposals aside, that is where
 * they stand in the queue). The plan lists the algorithm rewrites first, and one that fits
 * the kernel's shape may still lose on its data: on the H100 (session 31) roi_pool's budget
 * of 3 went to channel_chunks (0.98x), fast_divmod and specialize_constants (1.02x each) and
 * never reached the block and unroll candidates that gave it 1.12x in session 30, before
 * channel_chunks applied; points_in_boxes' uniform_tiles (0.84x) led its budget of 3 the same
 * way. An algorithm rewrite's measured loss says the plan's order does not fit this kernel's
 * data, and a launch change is the likeliest gain left; with a gain, the leader's follow-ups
 * keep the budget. Decided once. */
static int queue_fallback(search *s)
{
    long sa = axis_of_kind(s, AX_STRUCT);
    if (s->fell_back || sa < 0)
        return HK_OK;
    s->fell_back = true;
    if (!rewrites_lost(s, sa))
        return HK_OK;
    size_t left = s->budget.max_candidates > s->n_cands ? s->budget.max_candidates - s->n_cands : 0;
    size_t pos = s->queue_pos, added = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t a = 0; a < s->n_axes; a++) {
            const axis *ax = &s->axes[a];
            for (size_t v = 1; v < ax->n_values; v++) {
                if (pass == 0 ? !launch_axis(ax) || v > 1
                              : (long)a != sa || ax->structs[v].rank != 0 ||
                                    !struct_has(&ax->structs[v], RW_TUNING))
                    continue;
                int cfg[SEARCH_MAX_AXES];
                memset(cfg, 0, sizeof cfg);
                cfg[a] = (int)v;
                if (hset_has(&s->configs, config_hash(s, cfg)) ||
                    queue_find(s, s->queue_pos, cfg) < pos + left)
                    continue;   /* proposed, or reached within the budget as queued */
                int rc = queue_insert(s, pos++, cfg);
                if (rc)
                    return rc;
                added++;
            }
        }
    /* the marks behind the insertion move with what they mark */
    if (s->first_end > s->queue_pos)
        s->first_end += added;
    if (s->second_end > s->queue_pos)
        s->second_end += added;
    if (added)
        HK_DEBUG("search: an algorithm rewrite lost, none gained %.2fx: %zu launch and tuning "
                 "values next", SEARCH_NOISE_SPEEDUP, added);
    return HK_OK;
}

/* Phase 1: one axis changed at a time, round-robin over the axes so that a small budget
 * still tries every axis's nearest value. */
static int queue_singles(search *s)
{
    /* every skill's first choice of a structural rewrite comes first (the skills of the
     * kernel's bottleneck class are first in the list), then every skill's second choice:
     * a rewrite's own parameters (block size, blocks per SM) moved the H200 suite more than
     * block sizes or qualifiers on the naive kernel, and a small budget ended before them */
    for (unsigned rank = 0; rank < SEARCH_STRUCT_EARLY_RANKS; rank++) {
        for (size_t a = 0; a < s->n_axes; a++) {
            /* a loop whose loads must wait for its stores (they may alias) gains from
             * __restrict__ alone what unrolling it cannot (mmcv's psamask collect: 2.75x on
             * the H200, where unroll gave 1.00x): it goes right after the first choices */
            if (rank == 1 && a == 0 && s->restrict_early)
                for (size_t r = 0; r < s->n_axes; r++)
                    if (s->axes[r].kind == AX_RESTRICT) {
                        int rc = queue_single(s, r, 1);
                        if (rc)
                            return rc;
                    }
            if (s->axes[a].kind != AX_STRUCT)
                continue;
            for (size_t v = 1; v < s->axes[a].n_values; v++) {
                int rc = s->axes[a].structs[v].rank == rank ? queue_single(s, a, v) : HK_OK;
                if (rc)
                    return rc;
            }
        }
        if (rank == 0)
            s->first_end = s->n_queue;
        else if (rank == 1)
            s->second_end = s->n_queue;
    }
    /* with more first choices than half the budget, half of it (rounded up) goes to the
     * first choices in the plan's order (the skills that fit the kernel best), and what the
     * leader among them suggests (queue_follow_ups) goes before the rest */
    size_t budget = s->budget.max_candidates - 1;   /* after the baseline */
    size_t explore = budget > 1 ? (budget + 1) / 2 : 1;
    s->explore = explore < s->first_end ? explore : 0;
    size_t max_values = 0;
    for (size_t a = 0; a < s->n_axes; a++)
        if (s->axes[a].n_values > max_values)
            max_values = s->axes[a].n_values;
    for (size_t v = 1; v < max_values; v++)
        for (size_t a = 0; a < s->n_axes; a++) {
            /* a stacking value alone is no change (it needs a leader: queue_stacks) */
            int rc = v < s->axes[a].n_values && s->axes[a].kind != AX_STACK ? queue_single(s, a, v)
                                                                            : HK_OK;
            if (rc)
                return rc;
        }
    return HK_OK;
}

int search_new(const char *text, size_t len, const an_model *m, size_t kernel,
               const search_launch *launch, uint64_t seed, const search_budget *budget,
               search **out)
{
    *out = NULL;
    if (!text || !m || !launch || kernel >= m->n_funcs || m->funcs[kernel].kind != AN_KERNEL)
        return HK_EINVAL;
    for (int d = 0; d < 3; d++)
        if (launch->block[d] < 1 || launch->block[d] > 1024)
            return HK_EINVAL;
    search *s = hk_calloc(1, sizeof *s);
    if (!s)
        return HK_ENOMEM;
    int rc = HK_ENOMEM;
    s->best = -1;
    s->rng = seed;
    s->budget.max_candidates = budget && budget->max_candidates ? budget->max_candidates
                                                                : SEARCH_DEFAULT_CANDIDATES;
    if (s->budget.max_candidates > SEARCH_MAX_CANDIDATES)
        s->budget.max_candidates = SEARCH_MAX_CANDIDATES;
    s->budget.max_seconds = budget ? budget->max_seconds : 0;
    s->launch = *launch;
    s->launch.template_args = NULL;
    s->launch.n_template_args = 0;
    if (launch->n_template_args) {
        if (!(s->targs_own = hk_calloc(launch->n_template_args, sizeof *s->targs_own)))
            goto fail;
        s->launch.n_template_args = launch->n_template_args;
        for (size_t i = 0; i < launch->n_template_args; i++)
            if (!(s->targs_own[i] = hk_strdup(launch->template_args[i] ? launch->template_args[i] : "")))
                goto fail;
        s->launch.template_args = (const char *const *)s->targs_own;
    }
    /* our own copy and model: the caller's may change while the episode runs */
    if (!(s->text = hk_strndup(text, len)))
        goto fail;
    s->len = len;
    if ((rc = an_analyze(s->text, s->len, &s->m)))
        goto fail;
    long k = an_model_find_kernel(s->m, m->funcs[kernel].name);
    if (k < 0 || s->m->funcs[k].kind != AN_KERNEL) {
        rc = HK_EINVAL;
        goto fail;
    }
    s->kernel = (size_t)k;
    if (!(s->kernel_name = hk_strdup(s->m->funcs[k].name))) {
        rc = HK_ENOMEM;
        goto fail;
    }
    const char *lb = s->m->funcs[k].launch_bounds;
    s->source_has_lb = lb != NULL;
    if (lb) {
        char first[32];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(lb, ","), lb);
        long v;
        char *trim = first;
        while (*trim == ' ')
            trim++;
        for (char *e = trim + strlen(trim); e > trim && e[-1] == ' ';)
            *--e = '\0';
        s->source_lb = parse_long(trim, &v) && v > 0 && v <= 1024 ? (int)v : 0;
    }
    km_kernel *km = NULL;
    if (km_build(s->text, s->len, s->kernel_name, &km, NULL, 0) == HK_OK)
        s->restrict_early = km_loop_store_beside_load(km, NULL, NULL);
    km_free(km);
    if ((rc = build_axes(s)) || (rc = queue_singles(s)))
        goto fail;
    s->launch.structs = NULL;   /* borrowed for search_new only; the axis has copies */
    s->launch.n_structs = 0;
    s->t0 = hk_now_s();   /* the time budget counts from here, setup excluded */
    *out = s;
    return HK_OK;
fail:
    search_free(s);
    return rc;
}

/* ------------------------------------------------------------------ strategy */

enum { PROPOSED, SKIPPED };

/* Turns cfg into a new candidate unless it (or identical content) was seen. */
static int propose(search *s, const int *cfg, int phase, int *what)
{
    *what = SKIPPED;
    uint64_t ch = config_hash(s, cfg);
    if (hset_has(&s->configs, ch))
        return HK_OK;
    int rc = hset_add(&s->configs, ch);
    if (rc)
        return rc;
    cand_rec *c;
    bool skip;
    if ((rc = materialize(s, cfg, phase, &c, &skip)))
        return rc;
    if (skip)
        return HK_OK;
    if (hset_has(&s->contents, c->pub.hash)) {
        HK_DEBUG("search: %s is identical to an earlier candidate", c->pub.description);
        cand_free(c);
        return HK_OK;
    }
    if (s->n_cands == s->cap_cands) {
        size_t cap = s->cap_cands ? s->cap_cands * 2 : 32;
        cand_rec **cs = hk_realloc(s->cands, cap * sizeof *cs);
        if (!cs) {
            cand_free(c);
            return HK_ENOMEM;
        }
        s->cands = cs;
        s->cap_cands = cap;
    }
    if ((rc = hset_add(&s->contents, c->pub.hash))) {
        cand_free(c);
        return rc;
    }
    c->pub.id = (unsigned)s->n_cands;
    s->cands[s->n_cands++] = c;
    s->pending++;
    *what = PROPOSED;
    return HK_OK;
}

static double baseline_ms(const search *s)
{
    if (s->n_cands && s->cands[0]->reported && s->cands[0]->status == SEARCH_OK)
        return s->cands[0]->median_ms;
    return INFINITY;
}

/* Phase 2: the best value of each axis that beat the baseline, combined cumulatively from
 * the largest gain down (best two, best three, ..., all). */
static int queue_combinations(search *s)
{
    size_t ax[SEARCH_MAX_AXES];
    int val[SEARCH_MAX_AXES];
    double ms[SEARCH_MAX_AXES];
    size_t n = 0;
    double base = baseline_ms(s);
    for (size_t a = 0; a < s->n_axes; a++) {
        int best_v = 0;
        double best_ms = base;
        for (size_t i = 0; i < s->n_cands; i++) {
            const cand_rec *c = s->cands[i];
            if (c->pub.phase != 1 || !c->reported || c->status != SEARCH_OK || c->cfg[a] == 0)
                continue;
            if (c->median_ms < best_ms) {
                best_ms = c->median_ms;
                best_v = c->cfg[a];
            }
        }
        if (best_v) {
            ax[n] = a;
            val[n] = best_v;
            ms[n] = best_ms;
            n++;
        }
    }
    /* sort by time, fastest first (insertion sort keeps ties in axis order) */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
            size_t ta = ax[j]; ax[j] = ax[j - 1]; ax[j - 1] = ta;
            int tv = val[j]; val[j] = val[j - 1]; val[j - 1] = tv;
            double tm = ms[j]; ms[j] = ms[j - 1]; ms[j - 1] = tm;
        }
    int cfg[SEARCH_MAX_AXES];
    memset(cfg, 0, sizeof cfg);
    for (size_t k = 0; k < n; k++) {
        cfg[ax[k]] = val[k];
        if (k >= 1) {
            int rc = queue_push(s, cfg);
            if (rc)
                return rc;
        }
    }
    return HK_OK;
}

/* Phase 3: one or two axes of the best configuration moved to another value (never one
 * that failed on its own). */
static bool neighbour(search *s, int *cfg)
{
    const int *best = s->best >= 0 ? s->cands[s->best]->cfg : NULL;
    for (size_t a = 0; a < s->n_axes; a++)
        cfg[a] = best ? best[a] : 0;
    size_t movable[SEARCH_MAX_AXES], n_mov = 0;
    for (size_t a = 0; a < s->n_axes; a++)
        if (s->axes[a].n_values > 1)
            movable[n_mov++] = a;
    if (!n_mov)
        return false;
    int changes = 1 + (int)(rng_next(&s->rng) % 2);
    bool changed = false;
    for (int c = 0; c < changes; c++) {
        size_t a = movable[rng_next(&s->rng) % n_mov];
        int options[64], n_opt = 0;
        for (size_t v = 0; v < s->axes[a].n_values && n_opt < 64; v++)
            if ((int)v != cfg[a] && !s->axes[a].bad[v])
                options[n_opt++] = (int)v;
        if (!n_opt)
            continue;
        cfg[a] = options[rng_next(&s->rng) % (uint64_t)n_opt];
        changed = true;
    }
    return changed;
}

void search_extend_time(search *s, double seconds)
{
    if (s && seconds > 0 && s->budget.max_seconds > 0)
        s->t0 += seconds;
}

int search_next(search *s, const search_candidate **out)
{
    *out = NULL;
    if (!s)
        return HK_EINVAL;
    int cfg[SEARCH_MAX_AXES];
    for (;;) {
        if (s->n_cands >= s->budget.max_candidates)
            return HK_ENOENT;
        if (s->budget.max_seconds > 0 && hk_now_s() - s->t0 >= s->budget.max_seconds)
            return HK_ETIMEDOUT;
        int what, rc;
        switch (s->phase) {
        case 0:
            memset(cfg, 0, sizeof cfg);
            s->phase = 1;
            if ((rc = propose(s, cfg, 0, &what)))
                return rc;
            if (what == PROPOSED) {
                *out = &s->cands[s->n_cands - 1]->pub;
                return HK_OK;
            }
            continue;
        case 1:
        case 2:
            /* counted in proposals: a first choice skipped when proposed (the same
             * program as another, a vector loop under the spec's grid) costs no budget */
            if (s->phase == 1 && !s->followed && s->explore && s->queue_pos < s->first_end &&
                s->n_cands > s->explore) {
                if (s->pending)
                    return HK_ESTATE;
                if ((rc = queue_follow_ups(s)) || (rc = queue_fallback(s)))
                    return rc;
                s->followed = true;
            }
            if (s->phase == 1 && !s->seconds_ordered && s->queue_pos == s->first_end &&
                (s->second_end > s->first_end || axis_of_kind(s, AX_STACK) >= 0)) {
                /* the second choices are ordered by the first choices' results, and the
                 * stacked candidates go on the leaders among them */
                if (s->pending)
                    return HK_ESTATE;
                if ((rc = order_second_choices(s)) || (rc = queue_stacks(s, NULL)) ||
                    (rc = queue_fallback(s)))
                    return rc;
                s->seconds_ordered = true;
            }
            if (s->queue_pos < s->n_queue) {
                if ((rc = propose(s, s->queue[s->queue_pos++], s->phase, &what)))
                    return rc;
                if (what == PROPOSED) {
                    *out = &s->cands[s->n_cands - 1]->pub;
                    return HK_OK;
                }
                continue;
            }
            /* the next phase is decided by results: wait for them */
            if (s->pending)
                return HK_ESTATE;
            if (s->phase == 1 && (rc = queue_combinations(s)))
                return rc;
            s->phase++;
            continue;
        default:
            for (int t = 0; t < SEARCH_NEIGHBOUR_TRIES; t++) {
                if (!neighbour(s, cfg))
                    break;
                if (hset_has(&s->configs, config_hash(s, cfg)))
                    continue;
                if ((rc = propose(s, cfg, 3, &what)))
                    return rc;
                if (what == PROPOSED) {
                    *out = &s->cands[s->n_cands - 1]->pub;
                    return HK_OK;
                }
            }
            return HK_ENOENT;   /* nothing new near the best */
        }
    }
}

int search_report(search *s, unsigned id, enum search_status status, double median_ms)
{
    if (!s || id >= s->n_cands || status < SEARCH_OK || status > SEARCH_REJECTED)
        return HK_EINVAL;
    if (status == SEARCH_OK && !(median_ms > 0 && isfinite(median_ms)))
        return HK_EINVAL;
    cand_rec *c = s->cands[id];
    if (c->reported)
        return HK_ESTATE;
    c->reported = true;
    c->status = status;
    c->median_ms = status == SEARCH_OK ? median_ms : INFINITY;
    s->pending--;
    if (status == SEARCH_OK) {
        if (s->best < 0 || median_ms < s->cands[s->best]->median_ms)
            s->best = (long)id;
    } else if (c->pub.phase == 1) {
        /* a single change that fails is not worth combining or revisiting; a stacked one
         * fails for its stacking value, not for its leader (measured on its own) */
        long st = axis_of_kind(s, AX_STACK);
        bool stacked = st >= 0 && c->cfg[st];
        for (size_t a = 0; a < s->n_axes; a++)
            if (c->cfg[a] && (!stacked || (long)a == st))
                s->axes[a].bad[c->cfg[a]] = true;
    }
    return HK_OK;
}

const search_candidate *search_best(const search *s, double *median_ms)
{
    if (!s || s->best < 0)
        return NULL;
    if (median_ms)
        *median_ms = s->cands[s->best]->median_ms;
    return &s->cands[s->best]->pub;
}

const search_candidate *search_get(const search *s, unsigned id)
{
    return s && id < s->n_cands ? &s->cands[id]->pub : NULL;
}

size_t search_count(const search *s) { return s ? s->n_cands : 0; }

const char *const *search_stack_refusals(const search *s, size_t *n)
{
    *n = s ? s->n_stack_refused : 0;
    return s ? (const char *const *)s->stack_refused : NULL;
}

const char *const *search_refused_tunables(const search *s, size_t *n)
{
    *n = s ? s->n_refused : 0;
    return s ? (const char *const *)s->refused : NULL;
}

char *search_describe_axes(const search *s)
{
    struct hk_buf b;
    hk_buf_init(&b, 8192);
    int rc = HK_OK;
    for (size_t a = 0; a < s->n_axes && !rc; a++) {
        const axis *ax = &s->axes[a];
        if (b.len)
            rc = hk_buf_appends(&b, " | ");
        switch (ax->kind) {
        case AX_STRUCT:
            rc = rc ? rc : hk_buf_appends(&b, "structural:");
            for (size_t v = 1; v < ax->n_values && !rc; v++)
                rc = hk_buf_printf(&b, "%s%s", v == 1 ? " " : ", ", ax->labels[v]);
            break;
        case AX_GRID:
            rc = rc ? rc : hk_buf_appends(&b, s->already_strided ? "grid-stride (already) on"
                                                                : "grid-stride rewrite on");
            for (size_t v = 1; v < ax->n_values && !rc; v++)
                rc = hk_buf_printf(&b, "%s%u", v == 1 ? " " : "/", ax->ivals[v]);
            rc = rc ? rc : hk_buf_appends(&b, " blocks per SM");
            break;
        case AX_BLOCK:
            rc = rc ? rc : hk_buf_appends(&b, "block");
            for (size_t v = 1; v < ax->n_values && !rc; v++)
                rc = hk_buf_printf(&b, "%s%ux%u", v == 1 ? " " : ", ", ax->blocks[v][0], ax->blocks[v][1]);
            break;
        case AX_TUNABLE:
            rc = rc ? rc : hk_buf_printf(&b, "%s%s (now %s):", ax->tname,
                                         ax->linked_block ? " = block size" : "", ax->svals[0]);
            for (size_t v = 1; v < ax->n_values && !rc; v++)
                rc = hk_buf_printf(&b, "%s%s", v == 1 ? " " : ", ", ax->svals[v]);
            break;
        case AX_RESTRICT:
            rc = rc ? rc : hk_buf_appends(&b, "__restrict__/const");
            break;
        case AX_LAUNCH_BOUNDS:
            rc = rc ? rc : hk_buf_appends(&b, "__launch_bounds__(threads), (threads, 2)");
            break;
        case AX_FAST_MATH:
            rc = rc ? rc : hk_buf_appends(&b, "-use_fast_math");
            break;
        case AX_STACK:
            rc = rc ? rc : hk_buf_appends(&b, EN(SRCH_STACKED_ON));
            for (size_t v = 1; v < ax->n_values && !rc; v++)
                rc = hk_buf_printf(&b, "%s%s", v == 1 ? " " : ", ", ax->labels[v]);
            break;
        }
    }
    if (rc) {
        hk_buf_free(&b);
        return NULL;
    }
    char *r = hk_buf_steal(&b);
    return r ? r : hk_strdup("(no axes)");
}
