/* staged_gather: a grid-stride loop over items whose reads of one buffer are gathers into a
 * row that the block's y/z coordinates pick (`points[b, c, idx[b, j]]`: the row base a form
 * of blockIdx.y/z and parameters, plus an index read from memory) stages the head of that row
 * in shared memory once per block, coalesced, and serves the gathers that land in it from
 * there; the others still read global memory. The grid is divided along x so that a thread
 * takes 16 items and a row few blocks (mmcv's gather_points, group_points, three_interpolate). */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"
#include "rewrites/rewrite_period.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"
#include "spec/expr.h"
#include "spec/spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* Why: mmcv's gather_points reads points[b, c, idx[b, j]] for 8192 random j into a row of
 * 16,384 floats. Each load is its own 32-byte sector: 33.5 M sector requests through L2 for
 * 134 MB of useful data, with the row's sectors fetched ~16 times by the 16 blocks of a row
 * on 16 SMs. Staging the row once per block turns that into one coalesced read of the row
 * and shared-memory gathers; with one block per row the L2->SM traffic falls from ~256 KB to
 * ~64-112 KB per row. It pays when a row is hit often: at least L/8 gathers per row of L
 * elements (then ~63% of the row's sectors are touched anyway).
 *
 * Proof of equivalence (bit for bit). (1) The staged copy: every block copies elements
 * [w, w + n) of the buffer P into shared memory before any thread of it runs the loop (a
 * barrier every thread reaches: the copy and the barrier are the first statements of the
 * kernel body). P is never written by the kernel and no launch passes P as a buffer the
 * kernel writes (or one of them is __restrict__), so the copy equals global memory for the
 * whole launch. A read P[e] becomes hk_sg_load(s, w, n, &P[e]): the same address; when it
 * lies in [w, w + n) the copy's element at that offset is returned, else the global load;
 * either way the same value. Reads not spelled `P[e]` in the loop body keep their load.
 * (2) In bounds: [w, w + n) is inside P's buffer for every block of the spec's grid at every
 * size set (checked here with the spec's counts); n is at most the row's extent L (the
 * stride of the row's fastest block coordinate) and the shared array's size, and 0 in a block
 * where a guard of the kernel's own on the row fails (`c_idx < c` of mmcv's early return:
 * a launch with more blocks than rows copies nothing for them).
 * (3) The divided grid: the loop is a grid-stride loop (start the global thread index, step
 * the grid's threads), so any grid.x runs every item once. A trip depends on its thread only
 * through the counter: the body names no thread index, block x index or dimension, nor do
 * the statements before the loop, and it has no barrier, warp operation, atomic or
 * __shared__ state. A thread may run several trips under the divided grid where the original
 * ran one (checked: the spec's launch gives every item its own thread at every size set when
 * the body moves a parameter or returns): every parameter the body writes (mmcv's
 * `points += ...`) is reset to its entry value at the start of each trip, a `return` of the
 * body becomes `continue` (it ended the thread's only trip), and no local of the kernel
 * declared before the loop is written in it; so each trip computes what the original's one
 * trip of that item did. */

#define SG_BYTES 49152 /* the static shared memory a block may take without an opt-in */
/* Items per thread under the divided grid (the parameter `items`, 16 by default): the grid's
 * x extent divided by this. At 16 a block of 512 threads gathers 8192 items, one 32-byte
 * sector each in the original (256 KB of L2->SM traffic), against at most 48 KB staged: the
 * copy is repaid several times over, and rows of many items still get several blocks
 * (group_points: 8 per row). Fewer items a thread shorten each thread's chain of dependent
 * trips for more copies of the row. */
/* Loads of the copy a thread issues before its first store: one at a time, each waits a DRAM
 * round trip (~0.8 us), 24 of them for a 48 KB row at 512 threads; 8 at once keep ~64 KB a
 * SM in flight. */
#define SG_BATCH 8
#define SG_SITES 16
#define SG_RESETS 16

typedef struct {
    const char *text;
    size_t len;
    const an_model *m;
    const an_function *f;
    rw_toks ts;
    km_kernel *km;
    char why[700];
} sg_scan;

#define refuse(s, k, ...) rwl_refuse((s)->why, sizeof (s)->why, &(s)->ts, (s)->text, (k), __VA_ARGS__)
#define TOK(ts, k) (int)((ts)->t[k].end - (ts)->t[k].start), (ts)->text + (ts)->t[k].start

/* threadIdx, blockIdx.x, blockDim, gridDim (and HIP's spellings) at k: what ties a trip to
 * its thread. blockIdx.y/z pick the row and stay. */
static bool thread_builtin(const rw_toks *ts, size_t k)
{
    static const char *const any[] = {"threadIdx", "blockDim", "gridDim", "warpSize", "hipThreadIdx_x",
                                      "hipThreadIdx_y", "hipThreadIdx_z", "hipBlockDim_x", "hipBlockDim_y",
                                      "hipBlockDim_z", "hipGridDim_x", "hipGridDim_y", "hipGridDim_z",
                                      "hipBlockIdx_x", "__lane_id", "laneid"};
    for (size_t i = 0; i < HK_ARRAY_LEN(any); i++)
        if (rwl_tok_is_ident(ts, k, any[i]))
            return true;
    if (rwl_tok_is_ident(ts, k, "blockIdx"))
        return !(k + 2 < ts->n && rwl_tok_is(ts, k + 1, ".") &&
                 (rwl_tok_is_ident(ts, k + 2, "y") || rwl_tok_is_ident(ts, k + 2, "z")));
    return false;
}

static bool prefixed(const rw_toks *ts, size_t k, const char *p)
{
    size_t n = strlen(p);
    return ts->t[k].kind == T_IDENT && ts->t[k].end - ts->t[k].start >= n && !memcmp(ts->text + ts->t[k].start, p, n);
}

/* Does a #define of the name at k mention a thread or block coordinate, a dimension, a
 * barrier, a warp operation or an atomic (what the scan would not see through the macro)? */
static bool macro_ties(const sg_scan *s, size_t k)
{
    const rw_toks *ts = &s->ts;
    size_t at = 0, a, b;
    while (rwl_next_define(s->text, s->len, &at, ts->text + ts->t[k].start, ts->t[k].end - ts->t[k].start, &a, &b)) {
        static const char *const words[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "hipThreadIdx",
                                            "hipBlockIdx", "hipBlockDim", "hipGridDim", "__sync", "__shfl",
                                            "atomic", "__ballot", "warpSize"};
        for (size_t i = 0; i < HK_ARRAY_LEN(words); i++) {
            size_t wl = strlen(words[i]);
            for (size_t c = a; c + wl <= b; c++)
                if (!memcmp(s->text + c, words[i], wl))
                    return true;
        }
    }
    return false;
}

/* A call at k the scan cannot see into (not a math function, intrinsic load, conversion,
 * type or keyword): it may read the thread's coordinates or write memory. */
static bool opaque_call(const rw_toks *ts, size_t k, size_t end)
{
    static const char *const kw[] = {"if", "for", "while", "switch", "sizeof", "return", "decltype", "static_cast",
                                     "reinterpret_cast", "const_cast"};
    if (k + 1 >= end || !rwl_tok_is(ts, k + 1, "(") || !rwl_is_use(ts, k) || rwl_is_type_word(ts, k) ||
        rwp_is_type_word(ts, k) || rwl_pure_call_name(ts, k))
        return false;
    for (size_t i = 0; i < HK_ARRAY_LEN(kw); i++)
        if (rwl_tok_is(ts, k, kw[i]))
            return false;
    return true;
}

/* Tokens that no part of the kernel the rewrite moves may hold. */
static bool forbidden(sg_scan *s, size_t k, bool in_loop)
{
    const rw_toks *ts = &s->ts;
    static const char *const sync[] = {"__syncthreads", "__syncwarp", "__threadfence", "__shfl", "__ballot",
                                       "__any", "__all", "__activemask", "__match", "__reduce_", "this_grid",
                                       "this_thread_block", "tiled_partition", "coalesced_threads"};
    /* where it is (before the loop, in it): one sentence each */
    for (size_t i = 0; i < HK_ARRAY_LEN(sync); i++)
        if (prefixed(ts, k, sync[i]))
            return refuse(s, k, "barrier", in_loop ? EN(RW_SG_IN_SYNC) : EN(RW_SG_BEFORE_SYNC), TOK(ts, k));
    if (prefixed(ts, k, "atomic"))
        return refuse(s, k, "atomic", in_loop ? EN(RW_SG_IN_ATOMIC) : EN(RW_SG_BEFORE_ATOMIC), TOK(ts, k));
    if (rwl_tok_is_ident(ts, k, "__shared__") || rwl_tok_is_ident(ts, k, "static") || rwl_tok_is_ident(ts, k, "goto") ||
        rwl_tok_is_ident(ts, k, "asm"))
        return refuse(s, k, "statement", in_loop ? EN(RW_SG_IN_STMT) : EN(RW_SG_BEFORE_STMT), TOK(ts, k));
    if (thread_builtin(ts, k))
        return refuse(s, k, "thread index", in_loop ? EN(RW_SG_IN_THREAD) : EN(RW_SG_BEFORE_THREAD), TOK(ts, k));
    if (!rwp_param_named(s->f, ts, k) && macro_ties(s, k))
        return refuse(s, k, "macro", in_loop ? EN(RW_SG_IN_MACRO) : EN(RW_SG_BEFORE_MACRO), TOK(ts, k));
    if (opaque_call(ts, k, ts->n - 1))
        return refuse(s, k, "call", in_loop ? EN(RW_SG_IN_CALL) : EN(RW_SG_BEFORE_CALL), TOK(ts, k));
    return true;
}

/* The first token of the body on line `line` (1-based), for a refusal the kernel model
 * places by line; the body's first token when none is there. */
static size_t tok_at_line(const sg_scan *s, uint32_t line)
{
    for (size_t k = 1; k + 1 < s->ts.n; k++)
        if ((uint32_t)rwl_line_at(s->text, s->ts.t[k].start) == line)
            return k;
    return 1;
}

/* ---- forms: the row's base and extent ---- */

/* The value of atom a: blockIdx.y/z from by/bz, a parameter from vals (NULL: not known), a
 * named constant with its value. */
static bool atom_value(const sg_scan *s, const km_atom *a, long long by, long long bz, const long long *vals,
                       const bool *known, long long *v)
{
    if (a->kind == KM_ATOM_BLOCK_IDX && (a->axis == 1 || a->axis == 2)) {
        *v = a->axis == 1 ? by : bz;
        return true;
    }
    if (a->kind == KM_ATOM_CONST && a->has_value) {
        *v = a->value;
        return true;
    }
    if (a->kind == KM_ATOM_PARAM && vals) {
        for (size_t i = 0; i < s->f->n_params; i++)
            if (known[i] && !strcmp(s->f->params[i].name, a->name)) {
                *v = vals[i];
                return true;
            }
    }
    return false;
}

static bool form_value(const sg_scan *s, km_form f, long long by, long long bz, const long long *vals,
                       const bool *known, long long *out)
{
    size_t na;
    const km_atom *at = km_atoms(s->km, &na);
    long long sum = 0;
    for (uint32_t i = 0; i < f.n; i++) {
        long long t = f.t[i].coef;
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            long long v;
            if (f.t[i].atoms[j] >= na || !atom_value(s, &at[f.t[i].atoms[j]], by, bz, vals, known, &v) ||
                __builtin_mul_overflow(t, v, &t))
                return false;
        }
        if (__builtin_add_overflow(sum, t, &sum))
            return false;
    }
    *out = sum;
    return true;
}

/* Is every atom of term t a block y/z index, a scalar parameter or a valued constant? */
static bool row_term(const sg_scan *s, const km_term *t)
{
    size_t na;
    const km_atom *at = km_atoms(s->km, &na);
    for (uint32_t j = 0; j < t->n; j++) {
        const km_atom *a = &at[t->atoms[j]];
        if (!((a->kind == KM_ATOM_BLOCK_IDX && (a->axis == 1 || a->axis == 2)) || a->kind == KM_ATOM_PARAM ||
              (a->kind == KM_ATOM_CONST && a->has_value)))
            return false;
    }
    return true;
}

/* Does term t hold a value read from memory (a gathered index)? */
static bool gather_term(const sg_scan *s, const km_term *t)
{
    size_t na;
    const km_atom *at = km_atoms(s->km, &na);
    for (uint32_t j = 0; j < t->n; j++)
        if (at[t->atoms[j]].kind == KM_ATOM_READ)
            return true;
    return false;
}

/* A term of a row form as C, `(long long)c * name * ...` (row_term's atoms only). */
static int print_term(const sg_scan *s, const km_term *t, bool first, struct hk_buf *b)
{
    size_t na;
    const km_atom *at = km_atoms(s->km, &na);
    long long c = t->coef;
    bool unit = (c == 1 || c == -1) && t->n > 0;
    int rc = hk_buf_printf(b, "%s%s", first ? "" : " ", c < 0 ? (first ? "-" : "- ") : (first ? "" : "+ "));
    if (!rc && !unit)
        rc = hk_buf_printf(b, "(long long)%lld", c < 0 ? -c : c);
    for (uint32_t j = 0; j < t->n && !rc; j++) {
        const km_atom *a = &at[t->atoms[j]];
        const char *sep = unit && j == 0 ? "" : " * ";
        if (a->kind == KM_ATOM_BLOCK_IDX)
            rc = hk_buf_printf(b, "%s(long long)blockIdx.%c", sep, a->axis == 1 ? 'y' : 'z');
        else if (a->kind == KM_ATOM_CONST)
            rc = hk_buf_printf(b, "%s(long long)%lld", sep, (long long)a->value);
        else
            rc = hk_buf_printf(b, "%s(long long)(%s)", sep, a->name);
    }
    return rc;
}

/* One candidate gather buffer: its row form (base), the row's extent (the coefficient of its
 * fastest block coordinate), its read sites in the loop body. */
typedef struct {
    const an_param *p;
    size_t pi;
    km_term base[16];
    uint32_t n_base;
    km_term ext[16];          /* the extent's terms */
    uint32_t n_ext;
    uint32_t axis_atom[2];    /* blockIdx.y / z atoms the base names */
    bool has_axis[2];
    uint32_t site_start[SG_SITES], site_end[SG_SITES];
    size_t n_sites;
    size_t at;                /* the token of its first read site, where refusals point */
    uint32_t guard[8];        /* guards in force at its reads that compare row terms only (the
                               * kernel's own `c_idx < c`): the copy is made only where they hold */
    size_t n_guard;
} sg_buf;

static bool same_terms(const km_term *a, uint32_t na, const km_term *b, uint32_t nb)
{
    if (na != nb)
        return false;
    for (uint32_t i = 0; i < na; i++)
        if (!km_term_equal(&a[i], &b[i]))
            return false;
    return true;
}

/* Reads of pointer parameter p: all of them row base + gathered terms, one base. */
static bool gather_reads(sg_scan *s, const an_param *p, size_t lo_a, size_t lo_b, sg_buf *g)
{
    const rw_toks *ts = &s->ts;
    size_t nacc, nsite, na;
    const km_access *acc = km_accesses(s->km, &nacc);
    const km_read_site *rs = km_read_sites(s->km, &nsite);
    const km_atom *at = km_atoms(s->km, &na);
    memset(g, 0, sizeof *g);
    g->p = p;
    g->pi = (size_t)(p - s->f->params);
    size_t n_reads = 0;
    uint32_t line0 = 0;
    for (size_t i = 0; i < nacc; i++) {
        const km_access *a = &acc[i];
        if (strcmp(a->buffer, p->name) || a->space != KM_SPACE_GLOBAL)
            continue;
        if (a->mode != KM_READ)
            return refuse(s, tok_at_line(s, a->line), "gather", EN(RW_SG_WRITTEN_HERE), p->name);
        km_form f = a->has_entry_element ? a->entry_element : a->index;
        km_term base[16];
        uint32_t nb = 0;
        bool gathered = false;
        for (uint32_t t = 0; t < f.n; t++) {
            if (gather_term(s, &f.t[t])) {
                gathered = true;
                continue;
            }
            if (!row_term(s, &f.t[t]))
                return refuse(s, tok_at_line(s, a->line), "gather", EN(RW_SG_TERM),
                              p->name);
            if (nb >= HK_ARRAY_LEN(base))
                return refuse(s, tok_at_line(s, a->line), "gather", EN(RW_SG_TOO_MANY_TERMS), p->name);
            base[nb++] = f.t[t];
        }
        if (!gathered)
            return refuse(s, tok_at_line(s, a->line), "gather", EN(RW_SG_NOT_GATHER), p->name);
        if (n_reads && !same_terms(base, nb, g->base, g->n_base))
            return refuse(s, tok_at_line(s, a->line), "gather", EN(RW_SG_DIFFERENT_ROWS),
                          p->name);
        memcpy(g->base, base, nb * sizeof base[0]);
        g->n_base = nb;
        size_t ng;
        const km_guard *gs = km_guards(s->km, &ng);
        for (uint32_t q = 0; q < a->n_guards; q++) {
            uint32_t gi = a->guards[q];
            if (gi >= ng || !gs[gi].op || (strcmp(gs[gi].op, "<") && strcmp(gs[gi].op, "<=") &&
                                           strcmp(gs[gi].op, "==") && strcmp(gs[gi].op, "!=")))
                continue;
            bool rows = gs[gi].lhs.n + gs[gi].rhs.n > 0, block = false;
            for (uint32_t t = 0; rows && t < gs[gi].lhs.n; t++)
                rows = row_term(s, &gs[gi].lhs.t[t]);
            for (uint32_t t = 0; rows && t < gs[gi].rhs.n; t++)
                rows = row_term(s, &gs[gi].rhs.t[t]);
            block = km_form_mentions_kind(s->km, gs[gi].lhs, KM_ATOM_BLOCK_IDX, -1) ||
                    km_form_mentions_kind(s->km, gs[gi].rhs, KM_ATOM_BLOCK_IDX, -1);
            bool have = false;
            for (size_t h = 0; h < g->n_guard; h++)
                have = have || g->guard[h] == gi;
            if (rows && block && !have && g->n_guard < HK_ARRAY_LEN(g->guard))
                g->guard[g->n_guard++] = gi;
        }
        if (!n_reads)
            line0 = a->line;
        n_reads++;
    }
    if (!n_reads)
        return refuse(s, 1, "gather", EN(RW_SG_NO_READ), p->name);
    for (uint32_t t = 0; t < g->n_base; t++)
        for (uint32_t j = 0; j < g->base[t].n; j++) {
            const km_atom *a = &at[g->base[t].atoms[j]];
            if (a->kind == KM_ATOM_BLOCK_IDX) {
                g->has_axis[a->axis - 1] = true;
                g->axis_atom[a->axis - 1] = g->base[t].atoms[j];
            }
        }
    if (!g->has_axis[0] && !g->has_axis[1])
        return refuse(s, tok_at_line(s, line0), "gather", EN(RW_SG_NO_BLOCK_COORD), p->name);
    /* the sites to serve from the copy: `P[...]` spelled in the loop body */
    for (size_t i = 0; i < nsite; i++) {
        if (strcmp(rs[i].buffer, p->name) || rs[i].ambiguous)
            continue;
        if (rs[i].start < ts->t[lo_a].start || rs[i].end > ts->t[lo_b - 1].end)
            continue;
        size_t k = 0;
        while (k < ts->n && ts->t[k].start < rs[i].start)
            k++;
        if (k >= ts->n || ts->t[k].start != rs[i].start || !rwl_tok_is_ident(ts, k, p->name) ||
            !rwl_tok_is(ts, k + 1, "[") || ts->t[rwl_match_close(ts, k + 1)].end != rs[i].end)
            continue;
        if (g->n_sites >= SG_SITES)
            return refuse(s, k, "gather", EN(RW_SG_MORE_READS), SG_SITES, p->name);
        if (!g->n_sites)
            g->at = k;
        g->site_start[g->n_sites] = rs[i].start;
        g->site_end[g->n_sites] = rs[i].end;
        g->n_sites++;
    }
    if (!g->n_sites)
        return refuse(s, 1, "gather", EN(RW_SG_NOT_SPELLED), p->name);
    return true;
}

/* The values of the scalar parameters at size set k (known[i] false where the spec gives
 * none). */
static bool param_values(const sg_scan *s, const spec *sp, size_t k, long long *vals, bool *known)
{
    for (size_t i = 0; i < s->f->n_params; i++) {
        known[i] = false;
        if (i >= sp->n_args || !sp->args[i].value)
            continue;
        expr_value v;
        if (spec_eval(sp, sp->args[i].value, k, 132, &v, NULL, 0) || v.is_float)
            continue;
        vals[i] = v.i;
        known[i] = true;
    }
    return true;
}

static bool spec_dim(const spec *sp, const expr *e, size_t k, long long *v)
{
    if (!e) {
        *v = 1;
        return true;
    }
    expr_value x;
    if (spec_eval(sp, e, k, 132, &x, NULL, 0) || x.is_float || x.i < 1)
        return false;
    *v = x.i;
    return true;
}

/* What the spec says: the extent chosen (the smaller coefficient of the row's block
 * coordinates), every block's window inside P at every size set, one item per thread where
 * the body needs it, the gather density, the largest row and the grid divisor. */
typedef struct {
    long long l_max;          /* the largest row extent over the size sets */
    unsigned divisor;         /* items, or the spec's grid.x at its largest set when smaller */
    long long hits, row;      /* gathers per row and the row's extent at that set */
} sg_plan;

static bool spec_plan(sg_scan *s, const rw_context *ctx, sg_buf *g, const km_loop *lp, bool one_trip, unsigned items,
                      sg_plan *pl)
{
    const spec *sp = ctx->spec;
    memset(pl, 0, sizeof *pl);
    if (!sp || sp->form != SPEC_FORM_HARNESS || !sp->n_sizes || sp->n_args != s->f->n_params)
        return refuse(s, g->at, "spec", EN(RW_SG_NO_HARNESS), g->p->name);
    if (!sp->args[g->pi].count)
        return refuse(s, g->at, "spec", EN(RW_SG_NO_COUNT), g->p->name);
    long long vals[64];
    bool known[64];
    if (s->f->n_params > HK_ARRAY_LEN(vals))
        return refuse(s, g->at, "spec", EN(RW_SG_MORE_PARAMS), HK_ARRAY_LEN(vals));
    /* the extent: the coefficient of the block coordinate with the smaller stride */
    km_term co[2][16];
    uint32_t nco[2] = {0, 0};
    for (int a = 0; a < 2; a++)
        if (g->has_axis[a]) {
            km_form bf = {g->base, g->n_base};
            if (!km_form_coefficient(s->km, bf, g->axis_atom[a], co[a], 16, &nco[a]) || !nco[a])
                return refuse(s, g->at, "gather", EN(RW_SG_NOT_LINEAR), g->p->name, a ? 'z' : 'y');
            for (uint32_t t = 0; t < nco[a]; t++)
                for (uint32_t j = 0; j < co[a][t].n; j++) {
                    size_t na;
                    const km_atom *at = km_atoms(s->km, &na);
                    if (at[co[a][t].atoms[j]].kind == KM_ATOM_BLOCK_IDX)
                        return refuse(s, g->at, "gather", EN(RW_SG_MULTIPLIES), g->p->name);
                }
        }
    int pick = -1;
    long long best_size = -1;
    for (size_t k = 0; k < sp->n_sizes; k++) {
        param_values(s, sp, k, vals, known);
        long long gx, gy, gz, bx, by, bz, cnt, ext[2] = {-1, -1};
        expr_value cv;
        if (!spec_dim(sp, sp->grid[0], k, &gx) || !spec_dim(sp, sp->grid[1], k, &gy) ||
            !spec_dim(sp, sp->grid[2], k, &gz) || !spec_dim(sp, sp->block[0], k, &bx) ||
            !spec_dim(sp, sp->block[1], k, &by) || !spec_dim(sp, sp->block[2], k, &bz) ||
            spec_eval(sp, sp->args[g->pi].count, k, 132, &cv, NULL, 0) || cv.is_float)
            return refuse(s, g->at, "spec", EN(RW_SG_EVAL),
                          g->p->name, k + 1);
        cnt = cv.i;
        for (int a = 0; a < 2; a++)
            if (g->has_axis[a]) {
                km_form cf = {co[a], nco[a]};
                if (!form_value(s, cf, 0, 0, vals, known, &ext[a]))
                    return refuse(s, g->at, "spec", EN(RW_SG_STRIDE_UNKNOWN),
                                  g->p->name, a ? 'z' : 'y', k + 1);
            }
        int a = !g->has_axis[0] ? 1 : !g->has_axis[1] ? 0 : (ext[0] <= ext[1] ? 0 : 1);
        if (pick < 0)
            pick = a;
        else if (pick != a)
            return refuse(s, g->at, "gather", EN(RW_SG_FASTER_DIFFERS), g->p->name);
        long long L = ext[a];
        if (L < 1)
            return refuse(s, g->at, "gather", EN(RW_SG_EXTENT), g->p->name, L, k + 1);
        /* every block's window [base, base + L) inside the buffer: the base at the grid's corners */
        km_form bf = {g->base, g->n_base};
        long long lo = 0, hi = 0;
        for (int c = 0; c < 4; c++) {
            long long v;
            if (!form_value(s, bf, (c & 1) ? gy - 1 : 0, (c & 2) ? gz - 1 : 0, vals, known, &v))
                return refuse(s, g->at, "spec", EN(RW_SG_BASE_UNKNOWN), g->p->name, k + 1);
            if (!c || v < lo)
                lo = v;
            if (!c || v > hi)
                hi = v;
        }
        if (lo < 0 || hi > cnt - L)
            return refuse(s, g->at, "spec", EN(RW_SG_LEAVES), k + 1, g->p->name, lo, hi, L, cnt);
        long long bound;
        if (!form_value(s, lp->bound, 0, 0, vals, known, &bound))
            return refuse(s, g->at, "spec", EN(RW_SG_BOUND_UNKNOWN), k + 1);
        if (one_trip && gx * bx < bound)
            return refuse(s, g->at, "spec", EN(RW_SG_SEVERAL_TRIPS),
                          k + 1, gx * bx, bound);
        if (L > pl->l_max)
            pl->l_max = L;
        if (cnt > best_size) {
            best_size = cnt;
            pl->divisor = gx > (long long)items ? items : (unsigned)gx;
            pl->hits = bound * (long long)g->n_sites;
            pl->row = L;
        }
    }
    g->n_ext = nco[pick];
    memcpy(g->ext, co[pick], nco[pick] * sizeof co[0][0]);
    if (pl->hits * 8 < pl->row)
        return refuse(s, g->at, "gather", EN(RW_SG_FEW_GATHERS),
                      pl->row, pl->hits);
    return true;
}

/* Does the kernel write through pointer parameter name (the kernel model's view: a move
 * `p += off` is not a write of memory; a use the model cannot follow counts as one)? */
static bool written_through(const sg_scan *s, const char *name)
{
    size_t n;
    const km_param *kp = km_params(s->km, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(kp[i].name, name))
            return kp[i].written || kp[i].recast_at;
    return true;
}

/* ---- the rewrite ---- */

static int staged_gather(const rw_context *ctx, unsigned items, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    sg_scan s = {.text = ctx->text, .len = ctx->len, .m = ctx->m, .f = f};
    rw_edits es = {0};
    struct hk_buf h;
    hk_buf_init(&h, RW_TEXT_MAX);
    char bwhy[400] = "";
    const rw_toks *ts = &s.ts;
    if ((rc = rwl_open_body(s.text, s.len, f, true, &s.ts, &s.km, bwhy, sizeof bwhy)))
        goto out;
    if (bwhy[0]) {
        snprintf(s.why, sizeof s.why, "%s", bwhy);
        goto refused;
    }
    for (size_t k = 1; k + 1 < ts->n; k++)
        if (prefixed(ts, k, "hk_sg_")) {
            refuse(&s, k, "gather", EN(RW_SG_ALREADY));
            goto refused;
        }
    rwpt_loop lo;
    if (!rwpt_grid_loop(s.text, s.len, f, s.m, ts, s.km, &lo, s.why, sizeof s.why))
        goto refused;
    bool braced = rwl_tok_is(ts, lo.ba - 1, "{");
    const km_loop *lp = NULL;
    {
        size_t nl;
        const km_loop *all = km_loops(s.km, &nl);
        for (size_t i = 0; i < nl && !lp; i++)
            if (all[i].parent < 0 && all[i].kind == KM_LOOP_GRID_STRIDE)
                lp = &all[i];
    }
    if (!lp) {
        refuse(&s, lo.st, "loop", EN(RW_SG_NO_LOOP));
        goto refused;
    }
    /* before the loop: nothing tied to the thread, no barrier */
    for (size_t k = 1; k < lo.st; k++)
        if (ts->t[k].kind == T_IDENT && !forbidden(&s, k, false))
            goto refused;
    /* the body */
    bool returns = false;
    size_t resets[SG_RESETS], n_resets = 0, rets[64], n_rets = 0;
    for (size_t k = lo.ba; k < lo.bb; k++) {
        if (ts->t[k].kind != T_IDENT)
            continue;
        if (!forbidden(&s, k, true))
            goto refused;
        if (rwl_tok_is(ts, k, "break") && !rwl_in_nested(ts, lo.ba, lo.bb, k, true)) {
            refuse(&s, k, "early exit", EN(RW_SG_BREAK));
            goto refused;
        }
        if (rwl_tok_is(ts, k, "return")) {
            if (rwl_in_nested(ts, lo.ba, lo.bb, k, true) || !rwl_tok_is(ts, k + 1, ";") || n_rets >= HK_ARRAY_LEN(rets)) {
                refuse(&s, k, "early exit", EN(RW_SG_RETURN));
                goto refused;
            }
            rets[n_rets++] = k;
            returns = true;
            continue;
        }
        if (!rwl_is_use(ts, k) || !rwl_scalar_written(ts, k))
            continue;
        if (k > lo.ba && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->")))
            continue;
        /* a subscript store P[...] = v is a write through a pointer, not of the name */
        if (rwl_tok_is(ts, k + 1, "["))
            continue;
        const an_param *pa = rwp_param_named(f, ts, k);
        bool body_local = false;
        for (size_t q = lo.ba; q <= k && !body_local; q++)
            body_local = rwl_same_tok(ts, q, k) && rwl_declared_here(ts, q);
        if (body_local)
            continue;
        if (pa) {
            bool have = false;
            for (size_t i = 0; i < n_resets; i++)
                have = have || rwl_same_tok(ts, resets[i], k);
            if (!have) {
                if (n_resets >= SG_RESETS) {
                    refuse(&s, k, "write", EN(RW_SG_MORE_WRITTEN), SG_RESETS);
                    goto refused;
                }
                resets[n_resets++] = k;
            }
            continue;
        }
        refuse(&s, k, "write", EN(RW_SG_DECLARED_OUTSIDE), TOK(ts, k));
        goto refused;
    }
    /* the buffer: the first read-only pointer parameter whose reads gather into one row */
    sg_buf g;
    bool found = false;
    char first_why[700] = "";
    for (size_t i = 0; i < f->n_params && !found; i++) {
        const an_param *p = &f->params[i];
        if (p->pointer_depth != 1 || !p->name[0] || written_through(&s, p->name))
            continue;
        s.why[0] = '\0';
        if (gather_reads(&s, p, lo.ba, lo.bb, &g))
            found = true;
        else if (!first_why[0])
            snprintf(first_why, sizeof first_why, "%s", s.why);
    }
    if (!found) {
        s.why[0] = '\0';
        if (first_why[0])
            snprintf(s.why, sizeof s.why, "%s", first_why);
        else
            refuse(&s, 1, "gather", EN(RW_SG_NO_POINTER));
        goto refused;
    }
    /* every use of its name a subscript read or a move of the pointer */
    for (size_t k = 1; k + 1 < ts->n; k++) {
        if (!rwl_tok_is_ident(ts, k, g.p->name) || !rwl_is_use(ts, k) ||
            (k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->"))))
            continue;
        if (rwl_declared_here(ts, k)) {
            refuse(&s, k, "gather", "a local hides `%s`", g.p->name);
            goto refused;
        }
        bool ok = rwl_tok_is(ts, k + 1, "[") || rwl_tok_is(ts, k + 1, "+=") || rwl_tok_is(ts, k + 1, "-=") ||
                  (rwl_tok_is(ts, k + 1, "=") && (rwl_tok_is(ts, k - 1, ";") || rwl_tok_is(ts, k - 1, "{") ||
                                                   rwl_tok_is(ts, k - 1, "}")));
        if (ok && rwl_tok_is(ts, k + 1, "[")) {
            size_t c = rwl_match_close(ts, k + 1);
            ok = c < ts->n && !rwl_tok_is_assign_op(ts, c + 1) && !rwl_tok_is(ts, c + 1, "++") &&
                 !rwl_tok_is(ts, c + 1, "--") && !rwl_tok_is(ts, k - 1, "&") && !rwl_tok_is(ts, k - 1, "++") &&
                 !rwl_tok_is(ts, k - 1, "--");
        }
        if (!ok) {
            refuse(&s, k, "gather", EN(RW_SG_USED_OTHER), g.p->name,
                   g.p->name, g.p->name);
            goto refused;
        }
    }
    /* nothing the kernel writes may alias it */
    for (size_t i = 0; i < f->n_params; i++) {
        const an_param *w = &f->params[i];
        if (w == g.p || w->pointer_depth < 1 || !rw_param_written(s.text, s.len, f, w->name) || w->is_restrict ||
            g.p->is_restrict)
            continue;
        const an_launch *la = rwl_launch_passing_twice(s.m, f, i, g.pi);
        if (la) {
            refuse(&s, g.at, "store", EN(RW_SG_PASSED_TWICE), la->span.start_row + 1, la->args[i], w->name, g.p->name);
            goto refused;
        }
    }
    /* the row's parameters must hold their entry values: none written in the kernel */
    for (uint32_t t = 0; t < g.n_base; t++) {
        size_t na;
        const km_atom *at = km_atoms(s.km, &na);
        for (uint32_t j = 0; j < g.base[t].n; j++) {
            const km_atom *a = &at[g.base[t].atoms[j]];
            if (a->kind != KM_ATOM_PARAM)
                continue;
            for (size_t k = 1; k + 1 < ts->n; k++)
                if (rwl_tok_is_ident(ts, k, a->name) &&
                    ((rwl_is_use(ts, k) && rwl_scalar_written(ts, k)) || rwl_declared_here(ts, k))) {
                    refuse(&s, k, "row", EN(RW_SG_FACTOR_WRITTEN),
                           a->name);
                    goto refused;
                }
        }
    }
    sg_plan pl;
    if (!spec_plan(&s, ctx, &g, lp, returns || n_resets > 0, items, &pl))
        goto refused;
    /* the extent's parameters too */
    for (uint32_t t = 0; t < g.n_ext; t++) {
        size_t na;
        const km_atom *at = km_atoms(s.km, &na);
        for (uint32_t j = 0; j < g.ext[t].n; j++)
            if (at[g.ext[t].atoms[j]].kind != KM_ATOM_PARAM && at[g.ext[t].atoms[j]].kind != KM_ATOM_CONST) {
                refuse(&s, g.at, "row", EN(RW_SG_EXTENT_NOT_PRODUCT));
                goto refused;
            }
    }
    const char *et = g.p->elem_type;
    if (!et || !et[0] || strchr(et, '(') || strchr(et, '[')) {
        refuse(&s, g.at, "gather", EN(RW_SG_TYPE_UNNAMED), g.p->name);
        goto refused;
    }
    /* the edits: the staged window at the body's start */
    struct hk_buf base, ext;
    hk_buf_init(&base, 4096);
    hk_buf_init(&ext, 4096);
    for (uint32_t t = 0; t < g.n_base && !rc; t++)
        rc = print_term(&s, &g.base[t], t == 0, &base);
    for (uint32_t t = 0; t < g.n_ext && !rc; t++)
        rc = print_term(&s, &g.ext[t], t == 0, &ext);
    struct hk_buf rowc;
    hk_buf_init(&rowc, 4096);
    {
        size_t ng;
        const km_guard *gs = km_guards(s.km, &ng);
        for (size_t q = 0; q < g.n_guard && !rc; q++) {
            /* `a < b` written `b > a`: the parser reads `x.y < ...` as a template's start */
            const km_guard *G = &gs[g.guard[q]];
            bool flip = G->op[0] == '<';
            km_form l = flip ? G->rhs : G->lhs, r = flip ? G->lhs : G->rhs;
            const char *op = !strcmp(G->op, "<") ? ">" : !strcmp(G->op, "<=") ? ">=" : G->op;
            rc = hk_buf_appends(&rowc, q ? " && (" : "(");
            for (uint32_t t = 0; t < l.n && !rc; t++)
                rc = print_term(&s, &l.t[t], t == 0, &rowc);
            if (!rc)
                rc = hk_buf_printf(&rowc, "%s %s ", l.n ? "" : "0", op);
            for (uint32_t t = 0; t < r.n && !rc; t++)
                rc = print_term(&s, &r.t[t], t == 0, &rowc);
            if (!rc)
                rc = hk_buf_printf(&rowc, "%s)", r.n ? "" : "0");
        }
        if (!rc && !g.n_guard)
            rc = hk_buf_appends(&rowc, "true");
    }
    if (!rc)
        rc = hk_buf_printf(&h, "\n    /* hk: staged_gather: the reads of `%s` gather into the row blockIdx.y/z pick; " /* i18n: not for people */
                               "the row's first elements are copied to shared memory once per block and the gathers "
                               "that land there read the copy */\n"
                               "    __shared__ unsigned long long hk_sg_raw[((%lldull * sizeof(%s) < %dull) ? %lldull * sizeof(%s) : %dull) / 8 + 1];\n"
                               "    %s *const hk_sg_s = reinterpret_cast<%s *>(hk_sg_raw);\n"
                               "    const unsigned long long hk_sg_cap = (unsigned long long)(sizeof(hk_sg_raw) / sizeof(%s));\n"
                               "    const bool hk_sg_row = %s;   /* the kernel's own guards on the row */\n"
                               "    const %s *const hk_sg_w = %s + (hk_sg_row ? (%s) : 0);\n"
                               "    const long long hk_sg_len = hk_sg_row ? (long long)(%s) : 0;\n"
                               "    const unsigned long long hk_sg_n = hk_sg_len <= 0 ? 0ull : "
                               "(unsigned long long)hk_sg_len < hk_sg_cap ? (unsigned long long)hk_sg_len : hk_sg_cap;\n"
                               "    {   /* the copy, %d loads of a thread in flight at once */\n"
                               "        const unsigned long long hk_sg_step = (unsigned long long)blockDim.x * blockDim.y * "
                               "blockDim.z;\n"
                               "        unsigned long long hk_sg_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
                               "threadIdx.z);\n"
                               "        for (; hk_sg_t + %d * hk_sg_step < hk_sg_n; hk_sg_t += %d * hk_sg_step) {\n"
                               "            %s hk_sg_v[%d];\n"
                               "#pragma unroll\n"
                               "            for (int hk_sg_u = 0; hk_sg_u < %d; hk_sg_u++)\n"
                               "                hk_sg_v[hk_sg_u] = hk_sg_w[hk_sg_t + hk_sg_u * hk_sg_step];\n"
                               "#pragma unroll\n"
                               "            for (int hk_sg_u = 0; hk_sg_u < %d; hk_sg_u++)\n"
                               "                hk_sg_s[hk_sg_t + hk_sg_u * hk_sg_step] = hk_sg_v[hk_sg_u];\n"
                               "        }\n"
                               "        for (; hk_sg_t < hk_sg_n; hk_sg_t += hk_sg_step)\n"
                               "            hk_sg_s[hk_sg_t] = hk_sg_w[hk_sg_t];\n"
                               "    }\n"
                               "    __syncthreads();\n",
                           g.p->name, pl.l_max, et, SG_BYTES - 8, pl.l_max, et, SG_BYTES - 8, et, et, et, rowc.data,
                           et, g.p->name, base.data, ext.data, SG_BATCH, SG_BATCH - 1, SG_BATCH, et, SG_BATCH, SG_BATCH, SG_BATCH);
    hk_buf_free(&base);
    hk_buf_free(&ext);
    hk_buf_free(&rowc);
    if (!rc)
        rc = rwl_edits_add(&es, ts->t[0].end, ts->t[0].end, h.data);
    /* the values the loop starts from: taken just before it, after what the statements before
     * it did to them */
    if (!rc && n_resets) {
        struct hk_buf e;
        hk_buf_init(&e, 4096);
        uint32_t ls = ts->t[lo.st].start;
        while (ls > 0 && (s.text[ls - 1] == ' ' || s.text[ls - 1] == '\t'))
            ls--;
        int il = (int)(ts->t[lo.st].start - ls);
        rc = hk_buf_appends(&e, "/* hk: the values every trip starts from (staged_gather) */\n"); /* i18n: not for people */
        for (size_t i = 0; i < n_resets && !rc; i++)
            rc = hk_buf_printf(&e, "%.*sdecltype(%.*s) const hk_sg_entry_%.*s = %.*s;\n", il, s.text + ls,
                               TOK(ts, resets[i]), TOK(ts, resets[i]), TOK(ts, resets[i]));
        if (!rc)
            rc = hk_buf_printf(&e, "%.*s", il, s.text + ls);
        if (!rc)
            rc = rwl_edits_add(&es, ts->t[lo.st].start, ts->t[lo.st].start, e.data);
        hk_buf_free(&e);
    }
    /* each trip starts from the parameters' entry values */
    if (!rc && (n_resets || !braced)) {
        struct hk_buf r;
        hk_buf_init(&r, 4096);
        rc = hk_buf_appends(&r, braced ? "" : "{");
        if (!rc && n_resets)
            rc = hk_buf_appends(&r, "\n        /* hk: every trip from the parameters' entry values (staged_gather) */"); /* i18n: not for people */
        for (size_t i = 0; i < n_resets && !rc; i++)
            rc = hk_buf_printf(&r, "\n        %.*s = hk_sg_entry_%.*s;", TOK(ts, resets[i]), TOK(ts, resets[i]));
        if (!rc && !braced)
            rc = hk_buf_appends(&r, "\n        ");
        uint32_t at = braced ? ts->t[lo.ba - 1].end : ts->t[lo.ba].start;
        if (!rc)
            rc = rwl_edits_add(&es, at, at, r.data);
        if (!rc && !braced)
            rc = rwl_edits_add(&es, ts->t[lo.bb - 1].end, ts->t[lo.bb - 1].end, "\n    }");
        hk_buf_free(&r);
    }
    for (size_t i = 0; i < n_rets && !rc; i++)
        rc = rwl_edits_add(&es, ts->t[rets[i]].start, ts->t[rets[i]].end, "continue");
    for (size_t i = 0; i < g.n_sites && !rc; i++) {
        char *r = hk_asprintf("hk_sg_load(hk_sg_s, hk_sg_w, hk_sg_n, &%.*s)", (int)(g.site_end[i] - g.site_start[i]),
                              s.text + g.site_start[i]);
        rc = r ? rwl_edits_add_owned(&es, g.site_start[i], g.site_end[i], r) : HK_ENOMEM;
    }
    /* the load helper, once per file */
    if (!rc && !strstr(s.text, "hk_sg_load(const T *s"))
        rc = rwl_edits_add(&es, f->span.start_byte, f->span.start_byte,
                           "/* hk: staged_gather's load: the element at p from the block's shared copy of [w, w + n) " /* i18n: not for people */
                           "when p lies there, else from global memory */\n"
                           "template <typename T>\n"
                           "static __device__ __forceinline__ T hk_sg_load(const T *s, const T *w, unsigned long long n, "
                           "const T *p)\n"
                           "{\n"
                           "    const unsigned long long d = ((unsigned long long)(size_t)p - (unsigned long long)(size_t)w) "
                           "/ sizeof(T);\n"
                           "    return d < n ? s[d] : *p;\n"
                           "}\n\n");
    if (rc)
        goto out;
    {
        char *desc = hk_asprintf(EN(RW_SG_DESC),
                                 f->name, g.n_sites, g.p->name, rwl_line_at(s.text, ts->t[lo.st].start), pl.row,
                                 pl.hits, SG_BYTES, pl.divisor, items);
        rc = rwl_finish(s.text, s.len, s.m, f->name, &es, desc, out);
        if (!rc && out->applicable && pl.divisor >= 2) {
            out->grid_divisor = pl.divisor;
            out->grid_axis = 0;
        }
    }
    goto out;
refused:
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "staged_gather", f->name,
                                             s.why[0] ? s.why : EN(RW_NO_REASON)));
out:
    hk_buf_free(&h);
    rwl_edits_free(&es);
    km_free(s.km);
    rwl_toks_free(&s.ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static const rw_param gather_params[] = {
    {.name = "items", .type = RW_PARAM_ENUM, .values = {16, 8, 4, 32}, .n_values = 4, .def = 16},
};

static int emit_staged_gather(const rw_context *c, const int *p, rw_result *out)
{
    return staged_gather(c, (unsigned)p[0], out);
}

const rw_descriptor rw_staged_gather_desc = {
    .name = "staged_gather",
    .summary = "a grid-stride loop whose reads of a buffer gather into a row blockIdx.y/z pick stages the row in " /* i18n: not for people */
               "shared memory once per block (up to 48 KB; other gathers read global memory), 16 items per "
               "thread by default (parameter items; exact)",
    .params = gather_params,
    .n_params = 1,
    .flags = RW_ALGORITHM,
    .emit = emit_staged_gather,
};
