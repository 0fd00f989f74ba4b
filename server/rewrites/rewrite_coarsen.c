/* coarsen: each thread of a memory-bound elementwise kernel handles K elements instead of
 * one, so that K loads per thread are in flight at once. Two shapes, chosen by the kernel
 * model: a kernel whose elements come from a loop strided over the threads (grid-stride:
 * mmcv's CUDA_1D_KERNEL_LOOP; block-stride: one block per channel), or one element per
 * thread under a bounds check that rw_grid_stride puts on such a loop, has that loop's
 * body run K times per trip; any other one-element-per-thread kernel runs as K virtual
 * blocks per block. Both under the grid divided by K (a block-stride loop keeps it). */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"
#include "spec/expr.h"
#include "spec/spec.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* Why: by Little's law the H200 needs about 3 MB in flight (4.8 TB/s x ~0.6 us); one
 * 4-byte load per thread at full occupancy is about 1 MB, so a scalar one-element-per-
 * thread kernel stalls near half of peak whatever its launch. vectorize fixes that where
 * accesses are contiguous and aligned; coarsening needs neither: the K copies of the body
 * sit in one `#pragma unroll` loop, and their loads are independent, so nvcc can issue
 * them together (all the more once __restrict__ says no store aliases them). */

#define CO_LOOPS 8

typedef struct {
    const char *text;
    size_t len;
    const an_model *m;
    const an_function *f;
    rw_toks ts;               /* the kernel body's tokens: [0] its '{', [n - 1] its '}' */
    km_kernel *km;
    char why[700];            /* the first refusal: "construct at line N: ..." */
} co_scan;

/* One loop strided over the threads, as it will be rewritten. */
typedef struct {
    size_t a;                 /* its first token (`for`, or the loop macro's name) */
    size_t head_end;          /* the token after its header's ')' : the body's first */
    size_t body_a, body_b;    /* the body statement [body_a, body_b) */
    char *type, *var, *start, *cmp, *bound, *step;   /* owned texts of the header */
    long loop;                /* index in km_loops */
    bool grid;                /* grid-stride (else block-stride) */
} co_loop;

#define refuse(s, k, ...) rwl_refuse((s)->why, sizeof (s)->why, &(s)->ts, (s)->text, (k), __VA_ARGS__)

static bool tok_prefix(const rw_toks *ts, size_t k, const char *p)
{
    size_t n = strlen(p);
    return ts->t[k].kind == T_IDENT && ts->t[k].end - ts->t[k].start >= n &&
           memcmp(ts->text + ts->t[k].start, p, n) == 0;
}

/* `NAME . AXIS` at k (blockIdx.x), or HIP's `hipNAME_x` spelling: the tokens it spans. */
static size_t builtin_at(const rw_toks *ts, size_t k, const char *name, const char *hip, char axis)
{
    char ax[2] = {axis, '\0'};
    if (rwl_tok_is_ident(ts, k, name) && k + 2 < ts->n && rwl_tok_is(ts, k + 1, ".") &&
        rwl_tok_is_ident(ts, k + 2, ax) && rwl_is_use(ts, k))
        return 3;
    if (rwl_tok_is_ident(ts, k, hip))
        return 1;
    return 0;
}

/* Constructs that tie one element to another thread's, which K elements per thread would
 * break; renames (the virtual blocks): also calls and macros that read blockIdx or gridDim
 * where the renaming cannot reach. */
static bool scan_tokens(co_scan *s, bool renames)
{
    const rw_toks *ts = &s->ts;
    static const char *const syncs[] = {"__syncthreads", "__syncthreads_count", "__syncthreads_and",
                                        "__syncthreads_or", "__syncwarp", "__threadfence",
                                        "__threadfence_block", "this_thread_block", "this_grid",
                                        "tiled_partition", "coalesced_threads"};
    static const char *const warp[] = {"__shfl", "__ballot", "__any", "__all", "__activemask", "__match",
                                       "__reduce_", "__uni", "__lanemask"};
    for (size_t k = 1; k + 1 < ts->n; k++) {
        if (ts->t[k].kind != T_IDENT)
            continue;
        for (size_t i = 0; i < HK_ARRAY_LEN(syncs); i++)
            if (rwl_tok_is_ident(ts, k, syncs[i]))
                return refuse(s, k, syncs[i], EN(RW_CO_BARRIER));
        for (size_t i = 0; i < HK_ARRAY_LEN(warp); i++)
            if (tok_prefix(ts, k, warp[i]))
                return refuse(s, k, "warp intrinsic", EN(RW_CO_WARP));
        if (rwl_tok_is_ident(ts, k, "__shared__"))
            return refuse(s, k, "__shared__", EN(RW_CO_SHARED));
        if (rwl_tok_is_ident(ts, k, "goto") || rwl_tok_is_ident(ts, k, "asm"))
            return refuse(s, k, rwl_tok_is_ident(ts, k, "goto") ? "goto" : "asm",
                          EN(RW_CO_NOT_FOLLOWED));
        if (tok_prefix(ts, k, "hk_co_"))
            return refuse(s, k, EN(RW_C_COARSENED_LOOP), EN(RW_CO_ALREADY));
        if (tok_prefix(ts, k, "atomic") && rwl_tok_is(ts, k + 1, "(")) {
            size_t c = rwl_match_close(ts, k + 1);
            bool stmt = (rwl_tok_is(ts, k - 1, ";") || rwl_tok_is(ts, k - 1, "{") || rwl_tok_is(ts, k - 1, "}") ||
                         rwl_tok_is(ts, k - 1, ")") || rwl_tok_is_ident(ts, k - 1, "else")) &&
                        c < ts->n && rwl_tok_is(ts, c + 1, ";");
            if (!stmt)
                return refuse(s, k, "atomic", EN(RW_CO_ATOMIC_OLD));
        }
        /* the virtual blocks rename blockIdx.x in the kernel's own text only */
        if (renames && rwl_tok_is(ts, k + 1, "(") && rwl_is_use(ts, k)) {
            size_t nl = ts->t[k].end - ts->t[k].start;
            const char *nm = ts->text + ts->t[k].start;
            for (size_t fi = 0; fi < s->m->n_funcs; fi++) {
                const an_function *g = &s->m->funcs[fi];
                if (g != s->f && strlen(g->name) == nl && memcmp(g->name, nm, nl) == 0 &&
                    g->body_span.end_byte > g->body_span.start_byte &&
                    rwl_mentions_grid(s->text + g->body_span.start_byte, g->body_span.end_byte - g->body_span.start_byte))
                    return refuse(s, k, "call", EN(RW_CO_CALL_GRID), (int)nl, nm);
            }
            if (rwl_macro_mentions_grid(s->text, s->len, nm, nl))
                return refuse(s, k, "macro", EN(RW_CO_MACRO_GRID), (int)nl, nm);
        }
    }
    return true;
}

static const char *access_name(const km_access *a)
{
    return a->buffer ? a->buffer : "?";
}

/* The element an access touches, counted from where its pointer pointed at entry when the
 * kernel moved it (mmcv's `out += ...; out[0] = ...`). */
static km_form element_of(const km_access *a)
{
    return a->has_entry_element ? a->entry_element : a->element;
}

/* Are a and b in the same loops? (Accesses of one buffer in two loops one after the other
 * count their elements by different counters: the loops do not overlap in a thread.) */
static bool same_loops(const km_access *a, const km_access *b)
{
    if (a->n_loops != b->n_loops)
        return false;
    for (uint32_t q = 0; q < a->n_loops; q++)
        if (a->loops[q] != b->loops[q])
            return false;
    return true;
}

/* The kernel model's view: no shared memory, no barrier, and no element reads or
 * rewrites what another element writes; every element written comes from the thread
 * index. in_loops: when set (the loop shape), writes outside those loops are allowed
 * only with the launch kept (block-stride), and the elements are the loops'. */
static bool scan_model(co_scan *s, const co_loop *loops, size_t n_loops, bool divides, int axis)
{
    size_t na = 0;
    const km_access *acc = km_accesses(s->km, &na);
    if (km_barriers(s->km))
        return refuse(s, 0, "__syncthreads", EN(RW_CO_SYNCS));
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &acc[i];
        if (a->space == KM_SPACE_SHARED) {
            snprintf(s->why, sizeof s->why, EN(RW_CO_SHARED_AT),
                     a->line, access_name(a));
            return false;
        }
        if (a->space != KM_SPACE_GLOBAL || a->mode == KM_READ || a->atomic)
            continue;
        bool in = n_loops == 0;
        for (size_t l = 0; l < n_loops; l++)
            for (uint32_t q = 0; q < a->n_loops; q++)
                in |= a->loops[q] == (uint32_t)loops[l].loop;
        if (!in && divides) {
            snprintf(s->why, sizeof s->why, EN(RW_CO_STORE_OUTSIDE),
                     a->line, access_name(a));
            return false;
        }
        if (in && !km_form_mentions_kind(s->km, element_of(a), KM_ATOM_THREAD_IDX, 0)) {
            snprintf(s->why, sizeof s->why, EN(RW_CO_STORE_NOT_TX),
                     a->line, access_name(a));
            return false;
        }
        if (in && n_loops == 0 && !km_form_mentions_kind(s->km, element_of(a), KM_ATOM_BLOCK_IDX, axis)) {
            snprintf(s->why, sizeof s->why, EN(RW_CO_STORE_NOT_BLOCK),
                     a->line, access_name(a), "xyz"[axis]);
            return false;
        }
        /* a cross-element dependence: another access of the buffer at another element */
        for (size_t j = 0; j < na; j++) {
            const km_access *b = &acc[j];
            if (j == i || b->space != KM_SPACE_GLOBAL || b->atomic || !b->buffer || !a->buffer ||
                strcmp(b->buffer, a->buffer) != 0 || km_form_equal(element_of(a), element_of(b)) ||
                !same_loops(a, b))
                continue;
            snprintf(s->why, sizeof s->why, b->mode == KM_READ ? EN(RW_CO_READS_OTHER) : EN(RW_CO_WRITES_OTHER),
                     b->line, access_name(b), a->buffer, a->line);
            return false;
        }
    }
    return true;
}

/* Is every global access guarded by a bound on an index over blockIdx along axis? Then
 * the blocks the divided grid adds past the original (up to K - 1) touch nothing. *first
 * gets the first access that is not. */
static bool accesses_bounded(const co_scan *s, int axis, const km_access **first)
{
    size_t na = 0, ng = 0;
    const km_access *acc = km_accesses(s->km, &na);
    const km_guard *gs = km_guards(s->km, &ng);
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &acc[i];
        if (a->space != KM_SPACE_GLOBAL)
            continue;
        bool ok = false;
        for (uint32_t q = 0; q < a->n_guards && !ok; q++) {
            const km_guard *g = &gs[a->guards[q]];
            ok = (!strcmp(g->op, "<") || !strcmp(g->op, "<=")) &&
                 km_form_mentions_kind(s->km, g->lhs, KM_ATOM_BLOCK_IDX, axis) &&
                 !km_form_mentions_kind(s->km, g->rhs, KM_ATOM_BLOCK_IDX, -1) &&
                 !km_form_mentions_kind(s->km, g->rhs, KM_ATOM_THREAD_IDX, -1);
        }
        if (!ok) {
            *first = a;
            return false;
        }
    }
    return true;
}

/* Does the spec's grid along axis split into K equal parts at every size, under the
 * spec's block and, any_block, under every power-of-two block the search may launch it
 * with (a grid written as n / block_x changes with it)? */
static bool spec_grid_divisible_at(const rw_context *ctx, int K, int axis, bool any_block, char *why, size_t n)
{
    const spec *sp = ctx->spec;
    if (!sp || !sp->grid[axis] || sp->n_sizes == 0) {
        snprintf(why, n, "%s", EN(RW_CO_NO_SPEC));
        return false;
    }
    static const long long blocks[] = {0, 32, 64, 128, 256, 512, 1024};
    expr_var *vars = hk_calloc(sp->n_size_names + 4, sizeof *vars);
    if (!vars) {
        snprintf(why, n, "%s", EN(RW_CO_OOM));
        return false;
    }
    bool ok = true;
    for (size_t k = 0; k < sp->n_sizes && ok; k++)
        for (size_t b = 0; b < (any_block ? HK_ARRAY_LEN(blocks) : 1) && ok; b++) {
            const long long block[3] = {blocks[b], 1, 1};
            /* an SM-count grid is a grid-stride kernel's, never this shape's: 132 (an H200)
             * only lets the expression evaluate */
            size_t nv = spec_size_vars(sp, k, b ? block : NULL, 132, vars);
            expr_value v;
            if (expr_eval(sp->grid[axis], vars, nv, &v, NULL, 0) != HK_OK || v.is_float) {
                snprintf(why, n, EN(RW_CO_GRID_EVAL), k + 1);
                ok = false;
            } else if (v.i % K) {
                snprintf(why, n, b ? EN(RW_CO_NOT_MULTIPLE_BLOCK) : EN(RW_CO_NOT_MULTIPLE), "xyz"[axis], v.i, k + 1, K);
                ok = false;
            }
        }
    hk_free(vars);
    return ok;
}

static bool spec_grid_divisible(const rw_context *ctx, int K, int axis, char *why, size_t n)
{
    return spec_grid_divisible_at(ctx, K, axis, true, why, n);
}

/* Does the body assign the parameter name itself (`n -= 1`, `p += off`, `&n`, a member
 * `s.f = ...`), not only what it points to? */
static bool param_assigned(const co_scan *s, const char *name)
{
    const rw_toks *ts = &s->ts;
    size_t nl = strlen(name);
    for (size_t k = 1; k + 1 < ts->n; k++)
        if (ts->t[k].kind == T_IDENT && ts->t[k].end - ts->t[k].start == nl &&
            !memcmp(ts->text + ts->t[k].start, name, nl) && rwl_is_use(ts, k) &&
            (rwl_scalar_written(ts, k) || rwl_tok_is(ts, k + 1, ".")))
            return true;
    return false;
}

/* The longest translation of one operand of the spec's ceil_div, min or max: longer ones
 * (and a whole text over 65536) refuse with RW_CO_BOUND_TOO_LONG. */
#define CO_TERMS_MAX 16384

/* Does parameter type (its declaration's text, "" or NULL when not known) hold the value of
 * sa, the spec's size, in every size set? The harness passes it as sa's dtype, and the
 * kernel reads it as its own type: a size of 2^31 passed as an int arrives as -2^31, while
 * the spec's grid counts 2^31. No: the first value that does not fit in *bad, its set in
 * *set. */
static bool param_holds(const spec *sp, const spec_arg *sa, const char *type, long long *bad, size_t *set)
{
    long long lo = LLONG_MIN, hi = LLONG_MAX;
    switch (sa->dtype) {
    case HK_DT_I32: lo = INT_MIN, hi = INT_MAX; break;
    case HK_DT_U32: lo = 0, hi = UINT_MAX; break;
    case HK_DT_U64: lo = 0; break;
    default: break;
    }
    if (type) {   /* the kernel's own 32-bit types (the qualifiers aside) */
        while (!strncmp(type, "const ", 6) || !strncmp(type, "volatile ", 9))
            type += type[0] == 'c' ? 6 : 9;
        static const char *const i32[] = {"int", "signed", "signed int", "int32_t"};
        static const char *const u32[] = {"unsigned", "unsigned int", "uint32_t", "uint"};
        for (size_t q = 0; q < HK_ARRAY_LEN(i32); q++)
            if (!strcmp(type, i32[q]) && hi > INT_MAX)
                hi = INT_MAX, lo = lo < INT_MIN ? INT_MIN : lo;
        for (size_t q = 0; q < HK_ARRAY_LEN(u32); q++)
            if (!strcmp(type, u32[q]))
                hi = hi > (long long)UINT_MAX ? (long long)UINT_MAX : hi, lo = lo < 0 ? 0 : lo;
    }
    for (size_t k = 0; k < sp->n_sizes; k++) {
        expr_value v = {0};
        if (spec_eval(sp, sa->value, k, 132, &v, NULL, 0) != HK_OK || v.is_float || v.i < lo || v.i > hi) {
            *bad = v.is_float ? 0 : v.i;
            *set = k;
            return false;
        }
    }
    return true;
}

/* Tokens [a, b) of the spec's grid text g (lexed as t) in the kernel's own terms, appended
 * to *out: every size name as the integer parameter the spec passes it to unchanged,
 * block_x/y/z as blockDim (or blk's texts, the spec's block in the kernel's terms, when the
 * launched block may be another), and the spec's ceil_div, min and max (expr.c) as the C they
 * compute, each operand translated the same way (the spec's integer formulas: ceil_div
 * rounds toward +infinity for either sign, as expr.c's). false with a reason in why (or
 * *rc set). */
static bool grid_terms(const co_scan *s, const rw_context *ctx, const rw_toks *t, const char *g, size_t a,
                       size_t b, int axis, const char *const *blk, struct hk_buf *out, char *why, size_t n, int *rc)
{
    const spec *sp = ctx->spec;
    size_t np = 0;
    const km_param *ps = km_params(s->km, &np);
    for (size_t k = a; k < b && !*rc; k++) {
        const char *tx = g + t->t[k].start;
        int l = (int)(t->t[k].end - t->t[k].start);
        if (t->t[k].kind != T_IDENT) {
            if (!rwl_tok_is(t, k, "(") && !rwl_tok_is(t, k, ")") && !rwl_tok_is(t, k, "+") &&
                !rwl_tok_is(t, k, "-") && !rwl_tok_is(t, k, "*") && !rwl_tok_is(t, k, "/") &&
                !rwl_tok_is(t, k, "%") && !(tx[0] >= '0' && tx[0] <= '9')) {
                snprintf(why, n, EN(RW_CO_BOUND_UNTRANSLATED), "xyz"[axis], g, l, tx);
                return false;
            }
            /* a number as expr.c reads it: decimal digits only (C would read `064` as octal 52,
             * the spec and the harness 64), its leading zeros dropped */
            if (tx[0] >= '0' && tx[0] <= '9') {
                int z = 0;
                for (int q = 0; q < l; q++)
                    if (tx[q] < '0' || tx[q] > '9') {
                        snprintf(why, n, EN(RW_CO_BOUND_UNTRANSLATED), "xyz"[axis], g, l, tx);
                        return false;
                    }
                while (z + 1 < l && tx[z] == '0')
                    z++;
                tx += z;
                l -= z;
            }
            /* `n - -m` or `a + +b`: the tokens were written back to back, and C reads `--` and
             * `++` as one operator */
            if (out->len && (tx[0] == '-' || tx[0] == '+') &&
                (out->data[out->len - 1] == '-' || out->data[out->len - 1] == '+'))
                *rc = hk_buf_printf(out, " ");
            if (!*rc)
                *rc = hk_buf_printf(out, "%.*s", l, tx);
            continue;
        }
        /* ceil_div(x, y), min(x, y), max(x, y): the spec's integer functions */
        int fn = rwl_tok_is_ident(t, k, "ceil_div") ? 1 : rwl_tok_is_ident(t, k, "min") ? 2
                 : rwl_tok_is_ident(t, k, "max")    ? 3 : 0;
        if (fn && k + 1 < b && rwl_tok_is(t, k + 1, "(")) {
            size_t close = rwl_match_close(t, k + 1), comma = 0;
            for (size_t q = k + 2, d = 0; q < close && close < b; q++) {
                d += rwl_tok_is(t, q, "(");
                d -= rwl_tok_is(t, q, ")");
                if (d == 0 && rwl_tok_is(t, q, ",") && !comma)
                    comma = q;
                else if (d == 0 && rwl_tok_is(t, q, ","))
                    comma = close;   /* a third operand: not the spec's function */
            }
            if (close >= b || !comma || comma == close || comma == k + 2 || comma + 1 == close) {
                snprintf(why, n, EN(RW_CO_BOUND_UNTRANSLATED), "xyz"[axis], g, l, tx);
                return false;
            }
            struct hk_buf x, y;
            hk_buf_init(&x, CO_TERMS_MAX);
            hk_buf_init(&y, CO_TERMS_MAX);
            bool ok = grid_terms(s, ctx, t, g, k + 2, comma, axis, blk, &x, why, n, rc) &&
                      grid_terms(s, ctx, t, g, comma + 1, close, axis, blk, &y, why, n, rc);
            if (ok && !*rc) {
                const char *X = x.data ? x.data : "", *Y = y.data ? y.data : "";
                if (fn == 1)   /* expr.c: x / y + ((x % y != 0) && ((x < 0) == (y < 0))) */
                    *rc = hk_buf_printf(out, "((%s) / (%s) + (((%s) %% (%s) != 0) && (((%s) < 0) == ((%s) < 0))))",
                                        X, Y, X, Y, X, Y);
                else
                    *rc = hk_buf_printf(out, "((%s) %s (%s) ? (%s) : (%s))", X, fn == 2 ? "<" : ">", Y, X, Y);
            }
            hk_buf_free(&x);
            hk_buf_free(&y);
            if (!ok)
                return false;
            k = close;
            continue;
        }
        bool done = false;
        for (int d = 0; d < 3 && !done; d++) {
            char bn[8];
            snprintf(bn, sizeof bn, "block_%c", "xyz"[d]);
            if ((done = rwl_tok_is_ident(t, k, bn)) && blk)
                *rc = hk_buf_printf(out, "(%s)", blk[d]);
            else if (done)
                *rc = hk_buf_printf(out, "(long long)blockDim.%c", "xyz"[d]);
        }
        for (size_t i = 0; i < sp->n_args && i < np && !done; i++) {
            const spec_arg *sa = &sp->args[i];
            bool wide_int = sa->dtype == HK_DT_I32 || sa->dtype == HK_DT_I64 || sa->dtype == HK_DT_U32 ||
                            sa->dtype == HK_DT_U64;
            if (sa->kind != HK_ARG_SCALAR || !wide_int || !sa->value || ps[i].pointer || !ps[i].name ||
                (int)strlen(expr_text(sa->value)) != l || memcmp(expr_text(sa->value), tx, (size_t)l) != 0)
                continue;
            if (param_assigned(s, ps[i].name)) {
                snprintf(why, n, EN(RW_CO_PARAM_WRITTEN), "xyz"[axis], g, l, tx, ps[i].name);
                return false;
            }
            long long bad = 0;
            size_t set = 0;
            if (!param_holds(sp, sa, ps[i].elem_type, &bad, &set)) {
                snprintf(why, n, EN(RW_CO_PARAM_RANGE), "xyz"[axis], g, l, tx, bad, set, ps[i].name);
                return false;
            }
            done = true;
            *rc = hk_buf_printf(out, "(long long)(%s)", ps[i].name);
        }
        if (!done) {
            snprintf(why, n, EN(RW_CO_NO_PARAM), "xyz"[axis], g, l, tx);
            return false;
        }
    }
    return true;
}

/* The spec's grid along axis in the kernel's own terms, for a bound on the virtual blocks
 * when the grid divided by K (rounded up) holds more than the original (grid_terms: Parboil's
 * `ny - 2` with `ny` the value of parameter ny, llm.c's `ceil_div(B * T * C, 256)` with B, T
 * and C parameters). New text, or NULL with a reason in why (*rc HK_ENOMEM when out of
 * memory). The result holds under the spec's launch only. */
static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* The spec's launch in the kernel's parameters holds at the launch the spec describes: when
 * the file launches the kernel at several sites, they must be one launch (grid, block,
 * shared memory and arguments written alike), else another site's grid (`<<<B * T, C>>>`
 * where the spec has ceil_div(B * T * C, 64) blocks of 64) covers other elements than the
 * count or bound computes. false with the two sites' lines in *l1, *l2 (from 1). */
static bool launch_sites_agree(const rw_context *ctx, unsigned *l1, unsigned *l2)
{
    const an_model *m = ctx->m;
    const char *name = ctx->kernel < m->n_funcs ? m->funcs[ctx->kernel].name : NULL;
    const char *tail = name ? strrchr(name, ':') : NULL;
    name = tail ? tail + 1 : name;
    const an_launch *first = NULL;
    for (size_t l = 0; name && l < m->n_launches; l++) {
        const an_launch *la = &m->launches[l];
        const char *k = la->kernel ? strrchr(la->kernel, ':') : NULL;
        k = k ? k + 1 : la->kernel;
        if (!k || strcmp(k, name) != 0)
            continue;
        if (!first) {
            first = la;
            continue;
        }
        bool same = la->form == first->form && same_text(la->grid, first->grid) &&
                    same_text(la->block, first->block) && same_text(la->shmem, first->shmem) &&
                    la->n_args == first->n_args;
        for (size_t a = 0; same && a < la->n_args; a++)
            same = same_text(la->args[a], first->args[a]);
        if (!same) {
            *l1 = first->span.start_row + 1;
            *l2 = la->span.start_row + 1;
            return false;
        }
    }
    return true;
}

static char *launch_in_kernel_terms(const co_scan *s, const rw_context *ctx, const expr *e, int axis,
                                    const char *const *blk, char *why, size_t n, int *rc)
{
    if (!ctx->spec || !e) {
        snprintf(why, n, "%s", EN(RW_CO_NO_SPEC));
        return NULL;
    }
    unsigned l1 = 0, l2 = 0;
    if (!launch_sites_agree(ctx, &l1, &l2)) {
        snprintf(why, n, EN(RW_CO_SITES_DIFFER), l1, l2);
        return NULL;
    }
    const char *g = expr_text(e);
    rw_toks t = {0};
    struct hk_buf b;
    hk_buf_init(&b, 65536);
    char *res = NULL;
    if ((*rc = rwl_lex(g, 0, (uint32_t)strlen(g), &t)))
        goto out;
    if (grid_terms(s, ctx, &t, g, 0, t.n, axis, blk, &b, why, n, rc) && !*rc && !(res = hk_buf_steal(&b)))
        *rc = HK_ENOMEM;
    if (*rc == HK_ETOOBIG) {   /* an operand's or the whole text's buffer outgrown: a refusal */
        *rc = HK_OK;
        snprintf(why, n, EN(RW_CO_BOUND_TOO_LONG), (size_t)CO_TERMS_MAX);
    }
out:
    hk_buf_free(&b);
    rwl_toks_free(&t);
    return res;
}

static char *grid_in_kernel_terms(const co_scan *s, const rw_context *ctx, int axis, char *why, size_t n, int *rc)
{
    return launch_in_kernel_terms(s, ctx, ctx->spec ? ctx->spec->grid[axis] : NULL, axis, NULL, why, n, rc);
}

char *rw_spec_count_in_kernel_terms(const rw_context *ctx, char *why, size_t n, int *rc)
{
    *rc = HK_OK;
    if (why && n)
        why[0] = '\0';
    const spec *sp = ctx ? ctx->spec : NULL;
    if (!sp || !sp->grid[0] || !sp->block[0]) {
        snprintf(why, n, "%s", EN(RW_CO_NO_SPEC));
        return NULL;
    }
    for (int d = 1; d < 3; d++)
        if ((sp->grid[d] && strcmp(expr_text(sp->grid[d]), "1") != 0) ||
            (sp->block[d] && strcmp(expr_text(sp->block[d]), "1") != 0)) {
            snprintf(why, n, EN(RW_CO_COUNT_NOT_1D), "xyz"[d]);
            return NULL;
        }
    const an_function *f;
    if ((*rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f)))
        return NULL;
    co_scan s = {.text = ctx->text, .len = ctx->len, .m = ctx->m, .f = f};
    char *g = NULL, *b = NULL, *res = NULL;
    if ((*rc = rwl_open_body(ctx->text, ctx->len, f, false, &s.ts, &s.km, s.why, sizeof s.why)))
        goto out;
    if (s.why[0]) {
        snprintf(why, n, "%s", s.why);
        goto out;
    }
    /* the block's own size: block_x inside it would name itself */
    const char *bt = expr_text(sp->block[0]);
    if (strstr(bt, "block_")) {
        snprintf(why, n, EN(RW_CO_BOUND_UNTRANSLATED), 'x', bt, (int)strlen(bt), bt);
        goto out;
    }
    /* the block first: the grid's block_x is the spec's block (the candidate's may differ) */
    if (!(b = launch_in_kernel_terms(&s, ctx, sp->block[0], 0, NULL, why, n, rc)) || *rc)
        goto out;
    const char *const blk[3] = {b, "1LL", "1LL"};   /* i18n: not for people */
    if (!(g = launch_in_kernel_terms(&s, ctx, sp->grid[0], 0, blk, why, n, rc)) || *rc)
        goto out;
    if (!(res = hk_asprintf("(%s) * (%s)", g, b)))
        *rc = HK_ENOMEM;
out:
    hk_free(g);
    hk_free(b);
    km_free(s.km);
    rwl_toks_free(&s.ts);
    return res;
}

static void loop_free(co_loop *l)
{
    hk_free(l->type);
    hk_free(l->var);
    hk_free(l->start);
    hk_free(l->cmp);
    hk_free(l->bound);
    hk_free(l->step);
}

/* Reads `for (T v = START; v < BOUND; v += STEP)` from header tokens h (its '(' at open,
 * ')' at close) into L's texts. false and a reason in why when it is not that shape. */
static bool read_header(const rw_toks *h, size_t open, size_t close, co_loop *L, char *why, size_t n)
{
    size_t s1 = open + 1, s2 = 0, s3 = 0;
    for (size_t q = open + 1, d = 0; q < close; q++) {
        d += rwl_tok_is(h, q, "(") || rwl_tok_is(h, q, "[");
        d -= rwl_tok_is(h, q, ")") || rwl_tok_is(h, q, "]");
        if (d == 0 && rwl_tok_is(h, q, ";"))
            (s2 ? &s3 : &s2)[0] = q;
    }
    if (!s2 || !s3) {
        snprintf(why, n, "%s", EN(RW_GS_NOT_INIT_COND_STEP));
        return false;
    }
    size_t eq = s1;
    while (eq < s2 && !rwl_tok_is(h, eq, "="))
        eq++;
    if (eq >= s2 || eq < s1 + 2 || h->t[eq - 1].kind != T_IDENT || eq + 1 >= s2) {
        snprintf(why, n, "%s", EN(RW_CO_NO_DECL));
        return false;
    }
    size_t v = eq - 1;
    for (size_t q = s1; q < v; q++)
        if (rwl_tok_is(h, q, ",") || rwl_tok_is(h, q, "*") || rwl_tok_is(h, q, "&") || rwl_tok_is_ident(h, q, "auto")) {
            snprintf(why, n, "%s", EN(RW_CO_INDEX_TYPE));
            return false;
        }
    for (size_t q = eq + 1; q < s2; q++)
        if (rwl_tok_is(h, q, ",")) {
            snprintf(why, n, "%s", EN(RW_CO_DECLARES_MORE));
            return false;
        }
    /* condition: v < BOUND or v <= BOUND */
    if (!rwl_same_tok(h, s2 + 1, v) || !(rwl_tok_is(h, s2 + 2, "<") || rwl_tok_is(h, s2 + 2, "<=")) ||
        s2 + 3 >= s3) {
        snprintf(why, n, "%s", EN(RW_CO_COND));
        return false;
    }
    for (size_t q = s2 + 3; q < s3; q++)
        if (rwl_same_tok(h, q, v) || rwl_tok_is(h, q, "&&") || rwl_tok_is(h, q, "||") || rwl_tok_is(h, q, "?")) {
            snprintf(why, n, "%s", EN(RW_CO_COND_MORE));
            return false;
        }
    /* step: v += S, v = v + S, v = S + v */
    size_t sa = 0, sb = close;
    if (rwl_same_tok(h, s3 + 1, v) && rwl_tok_is(h, s3 + 2, "+="))
        sa = s3 + 3;
    else if (rwl_same_tok(h, s3 + 1, v) && rwl_tok_is(h, s3 + 2, "=") && rwl_same_tok(h, s3 + 3, v) &&
             rwl_tok_is(h, s3 + 4, "+"))
        sa = s3 + 5;
    else if (rwl_same_tok(h, s3 + 1, v) && rwl_tok_is(h, s3 + 2, "=") && close >= s3 + 5 &&
             rwl_same_tok(h, close - 1, v) && rwl_tok_is(h, close - 2, "+")) {
        sa = s3 + 3;
        sb = close - 2;
    }
    bool ok = sa && sa < sb;
    for (size_t q = sa; ok && q < sb; q++)
        ok = !rwl_same_tok(h, q, v) && !rwl_tok_is(h, q, ",") && !rwl_tok_is(h, q, "?");
    if (!ok) {
        snprintf(why, n, "%s", EN(RW_CO_STEP));
        return false;
    }
    /* the copies evaluate the bound and the step more often than the loop did */
    for (size_t q = s2 + 3; q < close; q++) {
        if (q == s3)
            q = sa;
        if (q >= sb)
            break;
        bool call = h->t[q].kind == T_IDENT && rwl_tok_is(h, q + 1, "(") && !rwl_pure_call_name(h, q) &&
                    !rwl_tok_is_ident(h, q, "sizeof") && !rwl_is_type_word(h, q);
        if (call || rwl_tok_is_assign_op(h, q) || rwl_tok_is(h, q, "++") || rwl_tok_is(h, q, "--")) {
            snprintf(why, n, EN(RW_CO_BOUND_CHANGES), (int)(h->t[q].end - h->t[q].start), h->text + h->t[q].start);
            return false;
        }
    }
    L->type = rwl_tok_text(h, s1, v);
    L->var = rwl_tok_text(h, v, v + 1);
    L->start = rwl_tok_text(h, eq + 1, s2);
    L->cmp = rwl_tok_text(h, s2 + 2, s2 + 3);
    L->bound = rwl_tok_text(h, s2 + 3, s3);
    L->step = rwl_tok_text(h, sa, sb);
    return true;
}

/* Do the definitions [a, ae) and [b, be) spell the same tokens (whitespace and line
 * continuations aside)? */
static bool same_definition(const char *a, const char *ae, const char *b, const char *be)
{
    for (;;) {
        while (a < ae && (*a == ' ' || *a == '\t' || *a == '\\' || *a == '\n' || *a == '\r'))
            a++;
        while (b < be && (*b == ' ' || *b == '\t' || *b == '\\' || *b == '\n' || *b == '\r'))
            b++;
        if (a == ae || b == be)
            return a == ae && b == be;
        bool gap_a = false, gap_b = false;
        while (a < ae && b < be && *a == *b && !(*a == ' ' || *a == '\t' || *a == '\\' || *a == '\n')) {
            a++;
            b++;
        }
        gap_a = a == ae || *a == ' ' || *a == '\t' || *a == '\\' || *a == '\n' || *a == '\r';
        gap_b = b == be || *b == ' ' || *b == '\t' || *b == '\\' || *b == '\n' || *b == '\r';
        if (!gap_a || !gap_b)
            return false;
    }
}

/* The `for (...)` a loop macro's definition spells, its parameters replaced by the call's
 * arguments (tokens [k, close] of ts), as the preprocessor writes it; NULL when name is not
 * one function-like macro of the file whose whole body is a for header. */
static char *expand_macro_head(const co_scan *s, size_t k, size_t close, int *rc)
{
    const rw_toks *ts = &s->ts;
    size_t nl = ts->t[k].end - ts->t[k].start;
    const char *name = s->text + ts->t[k].start;
    const char *def = NULL;
    size_t def_end = 0;
    for (size_t i = 0; i + 7 < s->len; i++) {
        if (s->text[i] != '#' || (i > 0 && s->text[i - 1] != '\n'))
            continue;
        size_t j = i + 1;
        while (j < s->len && (s->text[j] == ' ' || s->text[j] == '\t'))
            j++;
        if (s->len - j < 7 || memcmp(s->text + j, "define", 6) != 0)
            continue;
        j += 6;
        while (j < s->len && (s->text[j] == ' ' || s->text[j] == '\t'))
            j++;
        if (s->len - j <= nl || memcmp(s->text + j, name, nl) != 0 || s->text[j + nl] != '(')
            continue;
        size_t e = j;
        while (e < s->len && s->text[e] != '\n')
            e += s->text[e] == '\\' && e + 1 < s->len && s->text[e + 1] == '\n' ? 2 : 1;
        /* defined twice: which one the kernel sees depends on #if, unless both spell the
         * same (a header inlined twice under its include guard, as mmcv's extracts are) */
        if (def && !same_definition(def, s->text + def_end, s->text + j + nl, s->text + e))
            return NULL;
        def = s->text + j + nl;
        def_end = e;
    }
    if (!def)
        return NULL;
    rw_toks dt = {0};
    char *res = NULL, **args = NULL;
    size_t n_par = 0, n_arg = 0;
    struct hk_buf b;
    hk_buf_init(&b, RW_TEXT_MAX);
    /* the definition's continuations are whitespace to the lexer except the backslash */
    char *d = hk_malloc((size_t)(s->text + def_end - def) + 1);
    if (!d) {
        *rc = HK_ENOMEM;
        goto out;
    }
    memcpy(d, def, (size_t)(s->text + def_end - def));
    d[s->text + def_end - def] = '\0';
    for (char *c = d; *c; c++)
        if (c[0] == '\\' && c[1] == '\n')
            c[0] = ' ';
    if (strchr(d, '#') || (*rc = rwl_lex(d, 0, (uint32_t)strlen(d), &dt)))
        goto out;
    size_t pc = rwl_match_close(&dt, 0);
    if (pc >= dt.n || !rwl_tok_is_ident(&dt, pc + 1, "for") || rwl_match_close(&dt, pc + 2) != dt.n - 1)
        goto out;
    for (size_t q = 1; q < pc; q += 2) {
        if (dt.t[q].kind != T_IDENT || !(rwl_tok_is(&dt, q + 1, ",") || q + 1 == pc))
            goto out;
        n_par++;
    }
    if (!(args = hk_calloc(n_par ? n_par : 1, sizeof *args))) {
        *rc = HK_ENOMEM;
        goto out;
    }
    size_t from = k + 2;
    for (size_t q = k + 2, depth = 0; q <= close; q++) {
        if (q == close || (depth == 0 && rwl_tok_is(ts, q, ","))) {
            if (n_arg >= n_par || q == from)
                goto out;
            if (!(args[n_arg++] = rwl_tok_text(ts, from, q))) {
                *rc = HK_ENOMEM;
                goto out;
            }
            from = q + 1;
            continue;
        }
        depth += rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[");
        depth -= rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]");
    }
    if (n_arg != n_par)
        goto out;
    for (size_t q = pc + 1; q < dt.n && !*rc; q++) {
        const char *tx = d + dt.t[q].start;
        int l = (int)(dt.t[q].end - dt.t[q].start);
        for (size_t p = 0; p < n_par && dt.t[q].kind == T_IDENT; p++)
            if (rwl_same_tok(&dt, q, 1 + 2 * p)) {
                tx = args[p];
                l = (int)strlen(args[p]);
                break;
            }
        /* the definition's own spacing, continuations as one space */
        bool gap = q > pc + 1 && dt.t[q].start > dt.t[q - 1].end;
        *rc = hk_buf_printf(&b, "%s%.*s", gap ? " " : "", l, tx);
    }
    if (!*rc && !(res = hk_buf_steal(&b)))
        *rc = HK_ENOMEM;
out:
    for (size_t p = 0; args && p < n_arg; p++)
        hk_free(args[p]);
    hk_free(args);
    hk_free(d);
    hk_buf_free(&b);
    rwl_toks_free(&dt);
    return res;
}

/* The kernel model's loop at token k's line that is strided over the threads along x:
 * grid-stride (*grid) or block-stride. -1 when none. */
static long strided_loop_at(const co_scan *s, size_t k, bool *grid)
{
    size_t nl = 0;
    const km_loop *lp = km_loops(s->km, &nl);
    uint32_t line = (uint32_t)rwl_line_at(s->text, s->ts.t[k].start);
    for (size_t i = 0; i < nl; i++) {
        if (lp[i].line != line || !km_form_mentions_kind(s->km, lp[i].start, KM_ATOM_THREAD_IDX, 0))
            continue;
        if (lp[i].kind == KM_LOOP_GRID_STRIDE && km_form_mentions_kind(s->km, lp[i].step, KM_ATOM_GRID_DIM, 0)) {
            *grid = true;
            return (long)i;
        }
        if (lp[i].kind == KM_LOOP_BLOCK_STRIDE) {
            *grid = false;
            return (long)i;
        }
    }
    return -1;
}

/* Finds the loops strided over the threads in the body's text, with their headers read.
 * HK_OK with *n loops (0: none), or with s->why set when one cannot be rewritten. */
static int find_loops(co_scan *s, co_loop *loops, size_t *n)
{
    const rw_toks *ts = &s->ts;
    int rc = HK_OK;
    *n = 0;
    for (size_t k = 1; k + 1 < ts->n && !s->why[0]; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_tok_is(ts, k + 1, "(") || !rwl_is_use(ts, k))
            continue;
        bool is_for = rwl_tok_is_ident(ts, k, "for");
        bool grid = false;
        long li = strided_loop_at(s, k, &grid);
        if (li < 0)
            continue;
        size_t close = rwl_match_close(ts, k + 1);
        if (close + 1 >= ts->n - 1)
            continue;
        if (!is_for && (rwl_tok_is_ident(ts, k, "while") || rwl_tok_is_ident(ts, k, "if") ||
                        rwl_tok_is_ident(ts, k, "switch") || !rwl_tok_is(ts, close + 1, "{")))
            continue;   /* a call on the loop's line, not a loop macro */
        if (*n == CO_LOOPS) {
            refuse(s, k, "loop", EN(RW_CO_MORE_LOOPS), CO_LOOPS);
            break;
        }
        co_loop *L = &loops[*n];
        memset(L, 0, sizeof *L);
        L->a = k;
        L->head_end = close + 1;
        L->body_a = close + 1;
        L->body_b = rwl_stmt_end(ts, close + 1, ts->n - 1);
        L->loop = li;
        L->grid = grid;
        char why[300] = "";
        bool ok;
        if (is_for) {
            ok = read_header(ts, k + 1, close, L, why, sizeof why);
        } else {
            char *head = expand_macro_head(s, k, close, &rc);
            if (rc) {
                loop_free(L);
                return rc;
            }
            rw_toks ht = {0};
            ok = false;
            if (!head)
                snprintf(why, sizeof why, "%s", EN(RW_CO_MACRO_NOT_FOR));
            else if ((rc = rwl_lex(head, 0, (uint32_t)strlen(head), &ht)) == HK_OK && ht.n > 2)
                ok = read_header(&ht, 1, rwl_match_close(&ht, 1), L, why, sizeof why);
            rwl_toks_free(&ht);
            hk_free(head);
            if (rc) {
                loop_free(L);
                return rc;
            }
        }
        if (ok && (!L->type || !L->var || !L->start || !L->cmp || !L->bound || !L->step)) {
            loop_free(L);
            return HK_ENOMEM;
        }
        if (!ok) {
            loop_free(L);
            refuse(s, k, "loop", "%s", why);
            break;
        }
        (*n)++;
        k = L->body_b - 1;   /* a strided loop inside this one's body stays as it is */
    }
    return rc;
}

/* Is token r inside a loop or switch that starts within [a, r)? (Then `continue` there
 * would not leave the element.) */
static bool nested_in_loop(const rw_toks *ts, size_t a, size_t r, size_t end)
{
    for (size_t q = a; q < r; q++)
        if ((rwl_tok_is_ident(ts, q, "for") || rwl_tok_is_ident(ts, q, "while") ||
             rwl_tok_is_ident(ts, q, "do") || rwl_tok_is_ident(ts, q, "switch")) &&
            rwl_stmt_end(ts, q, end) > r)
            return true;
    return false;
}

/* What a `return;` in one element's code becomes in its copy (loop_exits decides). */
typedef enum {
    CO_EXIT_SKIP,   /* it leaves the element only: continue (or a jump to the copy's end) */
    CO_EXIT_KEEP,   /* it stays a return: the thread keeps its own elements, in order */
    CO_EXIT_FLAG,   /* it also ends the copy's later trips: the copy's flag hk_co_live[c] */
} co_exit;

/* The edits inside one element's code [a, b): `return;` as exit says (CO_EXIT_SKIP and
 * CO_EXIT_FLAG: continue, or `goto label;` to the end of the copy when inside a loop:
 * *jump); `break` outside an inner loop or switch would leave the copies: refused. */
static int element_exits(co_scan *s, size_t a, size_t b, rw_edits *es, bool *jump, bool in_loop_body,
                         const char *label, co_exit exit)
{
    const rw_toks *ts = &s->ts;
    int rc = HK_OK;
    for (size_t k = a; k < b && !rc && !s->why[0]; k++) {
        if (rwl_tok_is_ident(ts, k, "return")) {
            if (!rwl_tok_is(ts, k + 1, ";")) {
                refuse(s, k, "return", EN(RW_CO_RETURN_VALUE));
                break;
            }
            if (exit == CO_EXIT_KEEP)
                continue;
            bool nested = nested_in_loop(ts, a, k, b);
            *jump |= nested;
            char *leave = nested ? hk_asprintf("goto %s;", label) : hk_strdup("continue;");
            char *to = leave && exit == CO_EXIT_FLAG ? hk_asprintf("{ hk_co_live[hk_co_c] = false; %s }", leave)
                                                     : leave;
            if (to != leave)
                hk_free(leave);
            rc = rwl_edits_add_owned(es, ts->t[k].start, ts->t[k + 1].end, to);
        } else if (in_loop_body && rwl_tok_is_ident(ts, k, "break") && !nested_in_loop(ts, a, k, b)) {
            refuse(s, k, "break", EN(RW_CO_BREAK));
        }
        /* a continue in the original's body goes to the next element, as in the copies */
    }
    return rc;
}

/* The loop body [a, b) as one copy's text, its returns as exit says (label: the copy's
 * end), appended to out. */
static int copy_text(co_scan *s, size_t a, size_t b, const char *label, co_exit exit, struct hk_buf *out,
                     bool *jump)
{
    const rw_toks *ts = &s->ts;
    rw_edits es = {0};
    char *o = NULL;
    size_t ol = 0;
    int rc = element_exits(s, a, b, &es, jump, true, label, exit);
    if (rc || s->why[0])
        goto out;
    uint32_t base = ts->t[a].start, end = ts->t[b - 1].end;
    for (size_t i = 0; i < es.n; i++) {
        es.e[i].start -= base;
        es.e[i].end -= base;
    }
    if (!(rc = rwl_edits_apply(s->text + base, end - base, &es, &o, &ol)))
        rc = hk_buf_append(out, o, ol);
out:
    hk_free(o);
    rwl_edits_free(&es);
    return rc;
}

/* The counter type for a loop index of type text t: 64 bits, so that i + K * stride cannot
 * overflow near the bound; unsigned when the index is an unsigned 64-bit type. */
static const char *wide_type(const char *t)
{
    return strstr(t, "size_t") || strstr(t, "uint64") || (strstr(t, "unsigned") && strstr(t, "long"))
               ? "unsigned long long" /* i18n: not for people */
               : "long long";
}

/* Does the moved pointer p belong to loop L (its move is in L's body)? */
static bool moved_in(const co_scan *s, const co_loop *L, const km_param *p)
{
    return p->moved_at && p->pointer && rwl_line_at(s->text, s->ts.t[L->body_a].start) <= (int)p->moved_at &&
           (int)p->moved_at <= rwl_line_at(s->text, s->ts.t[L->body_b - 1].start);
}

/* Does the condition of the `if` around the return at k read something that may differ
 * between the elements of a thread (memory, a call, the loop's index, a local the body
 * declares or writes)? The token that does in *at. */
static bool return_varies(const co_scan *s, const co_loop *L, size_t k, size_t *at, bool *conditioned)
{
    const rw_toks *ts = &s->ts;
    size_t cond = 0, close = 0;
    for (size_t q = L->body_a; q < k; q++)
        if (rwl_tok_is_ident(ts, q, "if") && rwl_stmt_end(ts, q, L->body_b) > k && rwl_match_close(ts, q + 1) < k) {
            cond = q + 2;
            close = rwl_match_close(ts, q + 1);
        }
    *conditioned = cond != 0;
    *at = k;
    if (!cond)
        return true;
    for (size_t q = cond; q < close; q++) {
        bool call = rwl_tok_is(ts, q, "(") && q > cond && ts->t[q - 1].kind == T_IDENT && !rwl_is_type_word(ts, q - 1);
        bool element = rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "->") || call ||
                       (rwl_tok_is(ts, q, "*") && rwl_unary_position(ts, q)) ||
                       (rwl_is_use(ts, q) && rwp_mentions(ts, q, q + 1, L->var));
        for (size_t d = L->body_a; !element && rwl_is_use(ts, q) && d < L->body_b; d++)
            element = rwl_same_tok(ts, d, q) && rwl_is_use(ts, d) &&
                      (rwl_declared_here(ts, d) || rwl_scalar_written(ts, d));
        if (element) {
            *at = q;
            return true;
        }
    }
    return false;
}

/* What the returns in the loop's body become in the copies. In the original a return ends
 * the thread: its later elements, and whatever follows the loop, with it.
 * - A block-stride loop keeps the launch (when no grid-stride loop of the kernel divides
 *   the grid): each thread still takes its own elements in their order, so a return stays
 *   a return (CO_EXIT_KEEP).
 * - A grid-stride loop, under the grid divided by K, gives copy c of a thread at trip t
 *   the element that the original's thread (that thread + c * the new stride) took at its
 *   trip t, when K divides the grid: each copy is one of the original's threads. Nothing
 *   may follow the loop (it would run once per thread, not once per copy). A return whose
 *   condition is the same for every element of the thread (mmcv's `if (bs_idx >= b ||
 *   c_idx >= c) return;`) returns at the first element or never, so skipping the element
 *   is enough (CO_EXIT_SKIP). Any other (`if (idx[i] < 0) return;`: an early exit per
 *   element) ends its copy's later trips through a flag per copy (CO_EXIT_FLAG): exact
 *   when K divides the spec's grid at every size under the spec's block, the launch under
 *   which the original's own result is defined (its returns make which elements are left
 *   depend on the grid).
 * False with s->why set when refused. */
static bool loop_exits(co_scan *s, const rw_context *ctx, const co_loop *L, int K, bool divides, co_exit *exit)
{
    const rw_toks *ts = &s->ts;
    *exit = L->grid || divides ? CO_EXIT_SKIP : CO_EXIT_KEEP;
    if (*exit == CO_EXIT_KEEP)
        return true;
    for (size_t k = L->body_a; k < L->body_b; k++) {
        if (!rwl_tok_is_ident(ts, k, "return"))
            continue;
        for (size_t q = L->body_b; q + 1 < ts->n; q++)
            if (!rwl_tok_is(ts, q, "}"))
                return refuse(s, k, "return", EN(RW_CO_ENDS_THREAD),
                              rwl_line_at(s->text, ts->t[q].start));
        size_t at;
        bool conditioned;
        if (!return_varies(s, L, k, &at, &conditioned) || *exit == CO_EXIT_FLAG)
            continue;
        char gw[200];
        snprintf(gw, sizeof gw, "%s", EN(RW_CO_BLOCK_WHILE_GRID));
        if (!L->grid || !spec_grid_divisible_at(ctx, K, 0, false, gw, sizeof gw)) {
            if (!conditioned)
                return refuse(s, k, "return", EN(RW_CO_RETURN_UNCOND), K, gw);
            return refuse(s, k, "return", EN(RW_CO_RETURN_VARIES),
                          (int)(ts->t[at].end - ts->t[at].start), s->text + ts->t[at].start, K, gw);
        }
        *exit = CO_EXIT_FLAG;
    }
    return true;
}

/* The loop L with K copies of its body per trip. A trip whose last element is in range
 * (every trip but the last few) runs the copies without bound checks between them, so
 * nothing orders one copy's loads after another's check; the other trips check each. */
static int emit_loop(co_scan *s, const rw_context *ctx, const co_loop *L, size_t ordinal, int K, bool divides,
                     rw_edits *es, char *line_note, size_t ln, bool *flagged)
{
    const rw_toks *ts = &s->ts;
    int rc = HK_OK;
    /* the index is the element's own in each copy: the body must not move it */
    for (size_t k = L->body_a; k < L->body_b; k++)
        if (rwp_mentions(ts, k, k + 1, L->var) && rwl_scalar_written(ts, k))
            return refuse(s, k, EN(RW_C_LOOP_INDEX), EN(RW_CO_CHANGES_INDEX), L->var), HK_OK;
    co_exit exit;
    if (!loop_exits(s, ctx, L, K, divides, &exit))
        return HK_OK;
    *flagged |= exit == CO_EXIT_FLAG;
    const char *wt = wide_type(L->type);
    size_t np = 0;
    const km_param *ps = km_params(s->km, &np);
    struct hk_buf h;
    hk_buf_init(&h, RW_TEXT_MAX);
    rc = hk_buf_printf(&h, "{   /* hk: %d elements per trip of the loop (coarsen) */\n", K); /* i18n: not for people */
    /* a parameter the loop body moves (mmcv's `weight += bs_idx * n * 3 + pt_idx * 3`)
     * counts from where it pointed at entry in every copy, as in the original's one trip */
    for (size_t p = 0; p < np && !rc; p++)
        if (moved_in(s, L, &ps[p]))
            rc = hk_buf_printf(&h, "    decltype(%s) const hk_co_entry_%s = %s;\n", ps[p].name, ps[p].name, ps[p].name);
    /* the copies whose original thread has not returned yet */
    if (!rc && exit == CO_EXIT_FLAG) {
        rc = hk_buf_printf(&h, "    bool hk_co_live[%d] = {", K);
        for (int c = 0; c < K && !rc; c++)
            rc = hk_buf_appends(&h, c ? ", true" : "true");
        if (!rc)
            rc = hk_buf_appends(&h, "};   /* a copy's thread returned: its later trips are skipped */\n"); /* i18n: not for people */
    }
    if (!rc)
        rc = hk_buf_printf(&h,
                           "    for (%s hk_co_i = %s; hk_co_i %s (%s); hk_co_i += (%s)%d * (%s)) {\n" /* i18n: not for people */
                           "        if (hk_co_i + (%s)%d * (%s) %s (%s)) {   /* every copy in range */\n",
                           wt, L->start, L->cmp, L->bound, wt, K, L->step, wt, K - 1, L->step, L->cmp, L->bound);
    for (int full = 1; full >= 0 && !rc; full--) {
        bool jump = false;
        rc = hk_buf_printf(&h, "#pragma unroll\n" /* i18n: not for people */
                               "            for (int hk_co_c = 0; hk_co_c < %d; ++hk_co_c) {\n"
                               "                const %s hk_co_e = hk_co_i + (%s)hk_co_c * (%s);\n",
                           K, wt, wt, L->step);
        if (!rc && !full)
            rc = hk_buf_printf(&h, "                if (!(hk_co_e %s (%s)))\n"
                                   "                    continue;\n",
                               L->cmp, L->bound);
        if (!rc && exit == CO_EXIT_FLAG)
            rc = hk_buf_appends(&h, "                if (!hk_co_live[hk_co_c])\n"
                                    "                    continue;\n");
        if (!rc)
            rc = hk_buf_printf(&h, "                %s %s = (%s)hk_co_e;\n", L->type, L->var, L->type);
        for (size_t p = 0; p < np && !rc; p++)
            if (moved_in(s, L, &ps[p]))
                rc = hk_buf_printf(&h, "                %s = hk_co_entry_%s;\n", ps[p].name, ps[p].name);
        char label[32];
        snprintf(label, sizeof label, "hk_co_next%zu_%d", ordinal, full);
        if (!rc)
            rc = hk_buf_appends(&h, "                ");
        if (!rc && ((rc = copy_text(s, L->body_a, L->body_b, label, exit, &h, &jump)) || s->why[0]))
            break;
        if (!rc && jump)
            rc = hk_buf_printf(&h, "\n            %s: ;", label);
        if (!rc)
            rc = hk_buf_appends(&h, full ? "\n            }\n        } else {\n" : "\n            }\n        }\n    }\n}");
    }
    if (!rc && !s->why[0])
        rc = rwl_edits_add(es, ts->t[L->a].start, ts->t[L->body_b - 1].end, h.data);
    if (!rc)
        snprintf(line_note, ln, EN(RW_CO_LINE), rwl_line_at(s->text, ts->t[L->a].start));
    hk_buf_free(&h);
    return rc;
}

/* The kernel's body between its braces as one virtual block's: blockIdx and gridDim along
 * axis renamed (the virtual block hk_co_b<axis>, the grid grid), a return leaving the
 * virtual block (a jump to label out of an inner loop: *jump). New text in *out, or HK_OK
 * with s->why set when refused. */
static int blocks_body(co_scan *s, int axis, const char *grid, const char *label, bool *jump, char **out)
{
    const rw_toks *ts = &s->ts;
    int rc = HK_OK;
    bool any = false;
    char hip_b[16], hip_g[16], vb[16];
    const char ax = "xyz"[axis];
    rw_edits es = {0};
    size_t ol = 0;
    *out = NULL;
    snprintf(hip_b, sizeof hip_b, "hipBlockIdx_%c", ax);
    snprintf(hip_g, sizeof hip_g, "hipGridDim_%c", ax);
    snprintf(vb, sizeof vb, "hk_co_b%c", ax);
    for (size_t k = 1; k + 1 < ts->n && !rc; k++) {
        size_t w;
        if ((w = builtin_at(ts, k, "blockIdx", hip_b, ax))) {
            rc = rwl_edits_add(&es, ts->t[k].start, ts->t[k + w - 1].end, vb);
            any = true;
            k += w - 1;
        } else if ((w = builtin_at(ts, k, "gridDim", hip_g, ax))) {
            rc = rwl_edits_add(&es, ts->t[k].start, ts->t[k + w - 1].end, grid);
            k += w - 1;
        } else if ((rwl_tok_is_ident(ts, k, "blockIdx") || rwl_tok_is_ident(ts, k, "gridDim")) &&
                   !rwl_tok_is(ts, k + 1, ".")) {
            refuse(s, k, "block coordinates", EN(RW_CO_WHOLE_COORDS));
            goto out;
        }
    }
    if (rc)
        goto out;
    if (!any) {
        refuse(s, 0, "kernel body", EN(RW_CO_NO_BLOCKIDX), ax, ax);
        goto out;
    }
    if ((rc = element_exits(s, 1, ts->n - 1, &es, jump, false, label, CO_EXIT_SKIP)) || s->why[0])
        goto out;
    uint32_t base = ts->t[0].end, end = ts->t[ts->n - 1].start;
    for (size_t i = 0; i < es.n; i++) {
        es.e[i].start -= base;
        es.e[i].end -= base;
    }
    rc = rwl_edits_apply(s->text + base, end - base, &es, out, &ol);
out:
    rwl_edits_free(&es);
    return rc;
}

/* One unrolled loop over the K virtual blocks; checked: each skips the rest once past the
 * original grid (hk_co_grid). */
static int blocks_loop(co_scan *s, int K, char ax, bool checked, const char *body, bool jump, const char *label,
                       struct hk_buf *h)
{
    size_t np = 0;
    const km_param *ps = km_params(s->km, &np);
    int rc = hk_buf_printf(h,
                           "#pragma unroll\n" /* i18n: not for people */
                           "    for (unsigned int hk_co_c = 0; hk_co_c < %du; ++hk_co_c) {\n"
                           "        const unsigned int hk_co_b%c = blockIdx.%c * %du + hk_co_c;\n",
                           K, ax, ax, K);
    if (!rc && checked)
        rc = hk_buf_printf(h, "        if (hk_co_b%c >= hk_co_grid)\n"
                              "            break;\n", ax);
    for (size_t p = 0; p < np && !rc; p++)
        if (ps[p].name && param_assigned(s, ps[p].name))
            rc = hk_buf_printf(h, "        %s = hk_co_entry_%s;\n", ps[p].name, ps[p].name);
    if (!rc)
        rc = hk_buf_printf(h, "        {%s}\n", body);
    if (!rc && jump)
        rc = hk_buf_printf(h, "    %s: ;\n", label);
    if (!rc)
        rc = hk_buf_appends(h, "    }\n");
    return rc;
}

/* The virtual-block shape: the whole body runs for K blocks along axis, blockIdx and
 * gridDim along it read as the virtual block's and the virtual grid's. bound: the original
 * grid's count in the kernel's terms (grid_in_kernel_terms), which skips the virtual blocks
 * past it and is what gridDim reads; NULL when the grid times K is exact or harmless. With
 * a bound, a block whose K virtual blocks are all in the grid (all but the last) runs them
 * with no check between the copies, so that nothing keeps one copy's loads after the
 * previous copy's stores; the last checks each. */
static int emit_blocks(co_scan *s, int K, int axis, const char *bound, rw_edits *es)
{
    const rw_toks *ts = &s->ts;
    const char ax = "xyz"[axis];
    char grid[64];
    char *body[2] = {NULL, NULL};
    bool jump[2] = {false, false};
    static const char *const labels[2] = {"hk_co_next", "hk_co_next_last"};
    struct hk_buf h;
    hk_buf_init(&h, RW_TEXT_MAX);
    size_t np = 0;
    const km_param *ps = km_params(s->km, &np);
    int rc = HK_OK;
    if (bound)
        snprintf(grid, sizeof grid, "hk_co_grid");
    else
        snprintf(grid, sizeof grid, "(gridDim.%c * %du)", ax, K);
    for (int v = 0; v < (bound ? 2 : 1) && !rc && !s->why[0]; v++)
        rc = blocks_body(s, axis, grid, labels[v], &jump[v], &body[v]);
    if (rc || s->why[0])
        goto out;
    rc = hk_buf_printf(&h, "{   /* hk: %d blocks of the original grid along %c per block (coarsen) */\n", K, ax); /* i18n: not for people */
    /* a parameter the body assigns starts from its entry value in every virtual block */
    for (size_t p = 0; p < np && !rc; p++)
        if (ps[p].name && param_assigned(s, ps[p].name))
            rc = hk_buf_printf(&h, "    decltype(%s) const hk_co_entry_%s = %s;\n", ps[p].name, ps[p].name, ps[p].name);
    if (!rc && bound)
        rc = hk_buf_printf(&h,
                           "    const unsigned int hk_co_grid = (unsigned int)(%s);   /* the spec's grid along %c */\n" /* i18n: not for people */
                           "    if (blockIdx.%c * %du + %du < hk_co_grid) {   /* all %d virtual blocks in the grid */\n",
                           bound, ax, ax, K, K - 1, K);
    if (!rc)
        rc = blocks_loop(s, K, ax, false, body[0], jump[0], labels[0], &h);
    if (!rc && bound)
        rc = hk_buf_appends(&h, "    } else {\n");
    if (!rc && bound)
        rc = blocks_loop(s, K, ax, true, body[1], jump[1], labels[1], &h);
    if (!rc)
        rc = hk_buf_appends(&h, bound ? "    }\n}" : "}");
    if (!rc)
        rc = rwl_edits_add(es, ts->t[0].start, ts->t[ts->n - 1].end, h.data);
out:
    hk_free(body[0]);
    hk_free(body[1]);
    hk_buf_free(&h);
    return rc;
}

/* The axis the virtual blocks take: the slow one, y, when the kernel reads blockIdx.y and
 * the spec's grid holds at least K blocks along it at every size (each thread then takes K
 * rows: Parboil's stencil, one block per (j, k) line); x otherwise. */
static int blocks_axis(const co_scan *s, const rw_context *ctx, int K)
{
    const spec *sp = ctx->spec;
    bool reads_y = false;
    for (size_t k = 1; k + 1 < s->ts.n && !reads_y; k++)
        reads_y = builtin_at(&s->ts, k, "blockIdx", "hipBlockIdx_y", 'y') != 0;
    if (!reads_y || !sp || !sp->grid[1] || sp->n_sizes == 0)
        return 0;
    for (size_t k = 0; k < sp->n_sizes; k++) {
        expr_value v;
        if (spec_eval(sp, sp->grid[1], k, 132, &v, NULL, 0) != HK_OK || v.is_float || v.i < K)
            return 0;
    }
    return 1;
}

/* Does the kernel's text read gridDim along axis? */
static bool reads_grid(const co_scan *s, int axis)
{
    char hip[16];
    snprintf(hip, sizeof hip, "hipGridDim_%c", "xyz"[axis]);
    for (size_t k = 1; k + 1 < s->ts.n; k++)
        if (builtin_at(&s->ts, k, "gridDim", hip, "xyz"[axis]))
            return true;
    return false;
}

/* What ties the virtual blocks' result to the spec (one description each). */
enum { CO_NOTE_NONE, CO_NOTE_DIVIDES, CO_NOTE_SKIPPED, CO_NOTE_GRIDDIM };

/* The virtual blocks along axis: the model's checks, the bound on the blocks past the
 * original grid when the accesses carry none, the edits. HK_OK with s->why set when
 * refused; *note gets what ties the result to the spec (a CO_NOTE_*), bound the spec's grid
 * in the kernel's terms where the note names it. */
static int blocks_at(co_scan *s, const rw_context *ctx, int K, int axis, rw_edits *es, int *note, char *nb,
                     size_t nn)
{
    int rc = HK_OK;
    char *bound = NULL;
    const km_access *a = NULL;
    if (!scan_model(s, NULL, 0, false, axis))
        return HK_OK;
    if (!accesses_bounded(s, axis, &a)) {
        char gw[200], tw[300];
        if (spec_grid_divisible(ctx, K, axis, gw, sizeof gw)) {
            *note = CO_NOTE_DIVIDES;
        } else if ((bound = grid_in_kernel_terms(s, ctx, axis, tw, sizeof tw, &rc)) && strlen(bound) < nn) {
            *note = CO_NOTE_SKIPPED;
            snprintf(nb, nn, "%s", bound);
        } else {
            if (bound)   /* longer than the description holds */
                snprintf(tw, sizeof tw, EN(RW_CO_BOUND_LONG), strlen(bound));
            hk_free(bound);
            if (!rc)
                snprintf(s->why, sizeof s->why, EN(RW_CO_UNBOUNDED),
                         a->line, access_name(a), "xyz"[axis], K, K, gw, tw);
            return rc;
        }
    } else if (reads_grid(s, axis)) {
        /* bounded, but gridDim read as the grid times K would be past the original's
         * count whenever K does not divide it (a last-row test `by == gridDim.y - 1`):
         * the spec's own count where the kernel's parameters spell it */
        char gw[200], tw[300];
        if (!spec_grid_divisible(ctx, K, axis, gw, sizeof gw) &&
            (bound = grid_in_kernel_terms(s, ctx, axis, tw, sizeof tw, &rc))) {
            if (strlen(bound) < nn) {
                *note = CO_NOTE_GRIDDIM;
                snprintf(nb, nn, "%s", bound);
            } else {   /* longer than the description holds: gridDim times K, as untranslated */
                hk_free(bound);
                bound = NULL;
            }
        }
        if (rc)
            return rc;
    }
    rc = emit_blocks(s, K, axis, bound, es);
    hk_free(bound);
    return rc;
}

static int coarsen_kernel(const rw_context *ctx, int K, rw_result *out)
{
    if (!out || !ctx)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    if (K != 2 && K != 4 && K != 8)
        return HK_EINVAL;
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    co_scan s = {.text = ctx->text, .len = ctx->len, .m = ctx->m, .f = f};
    co_loop loops[CO_LOOPS];
    size_t n_loops = 0;
    rw_edits es = {0};
    char nbound[2048] = "", where[64] = "";
    int note = CO_NOTE_NONE;
    int axis = 0;
    bool flagged = false;   /* a copy's flag follows an early return per element */
    struct hk_buf lines;
    hk_buf_init(&lines, 4096);
    if ((rc = rwl_open_body(ctx->text, ctx->len, f, false, &s.ts, &s.km, s.why, sizeof s.why)))
        goto out;
    if (s.why[0])
        goto refused;
    if ((rc = find_loops(&s, loops, &n_loops)) || s.why[0])
        goto refused;
    bool divides = n_loops == 0;
    for (size_t l = 0; l < n_loops; l++)
        divides |= loops[l].grid;
    if (!scan_tokens(&s, n_loops == 0) || (n_loops && !scan_model(&s, loops, n_loops, divides, 0)))
        goto refused;
    if (n_loops == 0) {
        axis = blocks_axis(&s, ctx, K);
        if ((rc = blocks_at(&s, ctx, K, axis, &es, &note, nbound, sizeof nbound)))
            goto out;
        if (s.why[0] && axis) {
            /* the slow axis refused: the blocks along x may still hold different elements;
             * when they do not either, the slow axis's reason is the one reported */
            char slow_why[sizeof s.why];
            memcpy(slow_why, s.why, sizeof slow_why);
            rwl_edits_free(&es);
            s.why[0] = '\0';
            note = CO_NOTE_NONE;
            axis = 0;
            if ((rc = blocks_at(&s, ctx, K, axis, &es, &note, nbound, sizeof nbound)))
                goto out;
            if (s.why[0])
                memcpy(s.why, slow_why, sizeof s.why);
        }
        if (s.why[0])
            goto refused;
    } else {
        for (size_t l = 0; l < n_loops && !rc && !s.why[0]; l++) {
            if ((rc = emit_loop(&s, ctx, &loops[l], l, K, divides, &es, where, sizeof where, &flagged)))
                break;
            rc = hk_buf_printf(&lines, "%s%s", lines.len ? ", " : "", where);
        }
        if (rc || s.why[0])
            goto refused;
    }
    /* one sentence per case: loop or loops, over the grid (with or without the copies' return
     * flags) or over the block; the virtual blocks with or without their note */
    char *desc;
    bool many = n_loops > 1;
    if (n_loops && divides && flagged)
        desc = hk_asprintf(many ? EN(RW_CO_DESC_GRID_FLAG_N) : EN(RW_CO_DESC_GRID_FLAG), f->name, lines.data, K);
    else if (n_loops && divides)
        desc = hk_asprintf(many ? EN(RW_CO_DESC_GRID_N) : EN(RW_CO_DESC_GRID), f->name, lines.data, K);
    else if (n_loops)
        desc = hk_asprintf(many ? EN(RW_CO_DESC_BLOCK_N) : EN(RW_CO_DESC_BLOCK), f->name, lines.data, K);
    else if (note == CO_NOTE_DIVIDES)
        desc = hk_asprintf(EN(RW_CO_DESC_BLOCKS_DIVIDES), f->name, K, "xyz"[axis], K, K, "xyz"[axis], K);
    else if (note == CO_NOTE_SKIPPED)
        desc = hk_asprintf(EN(RW_CO_DESC_BLOCKS_SKIPPED), f->name, K, "xyz"[axis], K, K, "xyz"[axis], "xyz"[axis],
                           nbound);
    else if (note == CO_NOTE_GRIDDIM)
        desc = hk_asprintf(EN(RW_CO_DESC_BLOCKS_GRIDDIM), f->name, K, "xyz"[axis], K, K, "xyz"[axis], "xyz"[axis],
                           nbound);
    else
        desc = hk_asprintf(EN(RW_CO_DESC_BLOCKS), f->name, K, "xyz"[axis], K, K, "xyz"[axis]);
    rc = rwl_finish(ctx->text, ctx->len, ctx->m, f->name, &es, desc, out);
    if (rc == HK_OK && out->applicable && divides) {
        out->grid_divisor = (unsigned)K;
        out->grid_axis = (unsigned)axis;
    }
    goto out;
refused:
    if (!rc)
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "coarsen", f->name, s.why));
out:
    for (size_t l = 0; l < n_loops; l++)
        loop_free(&loops[l]);
    hk_buf_free(&lines);
    rwl_edits_free(&es);
    km_free(s.km);
    rwl_toks_free(&s.ts);
    return rc;
}

/* A kernel of one element per thread with a bounds check (`if (i < n)`, `if (i >= n)
 * return;`) goes on a grid-stride loop first (rw_grid_stride), whose coarsened trips check
 * the bound once per K copies; any other, or one whose loop refuses, takes the virtual
 * blocks. */
static int rw_coarsen(const rw_context *ctx, int K, rw_result *out)
{
    if (!out || !ctx)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    if (K != 2 && K != 4 && K != 8)
        return HK_EINVAL;
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    /* blocks along the slow axis first, when the spec gives the grid rows to spare: each
     * thread then takes K rows, whatever a bounds check along x would allow */
    if ((rc = coarsen_kernel(ctx, K, out)) || (out->applicable && out->grid_divisor && out->grid_axis == 1))
        return rc;
    rw_result_free(out);
    memset(out, 0, sizeof *out);
    rw_result gs;
    an_model *gm = NULL;
    rc = rw_grid_stride(ctx->text, ctx->len, ctx->m, ctx->kernel, &gs);
    if (rc == HK_OK && gs.applicable && (rc = an_analyze(gs.text, gs.len, &gm)) == HK_OK) {
        long k = an_model_find_kernel(gm, f->name);
        if (k >= 0) {
            rw_context c2 = *ctx;
            c2.text = gs.text;
            c2.len = gs.len;
            c2.m = gm;
            c2.kernel = (size_t)k;
            rc = coarsen_kernel(&c2, K, out);
            if (rc == HK_OK && out->applicable) {
                rc = rwp_note_grid_stride(out);
                goto out;
            }
            rw_result_free(out);
            memset(out, 0, sizeof *out);
        }
    }
    if (rc == HK_ENOMEM)
        goto out;
    rc = coarsen_kernel(ctx, K, out);   /* the virtual blocks, or the original's refusal */
out:
    an_model_free(gm);
    rw_result_free(&gs);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */
static const rw_param coarsen_params[] = {
    {.name = "elements", .type = RW_PARAM_ENUM, .values = {4, 2, 8}, .n_values = 3, .def = 4},
};

static int emit_coarsen(const rw_context *c, const int *p, rw_result *out)
{
    return rw_coarsen(c, p[0], out);
}

const rw_descriptor rw_coarsen_desc = {
    .name = "coarsen",
    .summary = "each thread of an elementwise kernel handles K elements (K copies of the body in one " /* i18n: not for people */
               "unrolled loop, the grid divided by K): K loads in flight per thread",
    .params = coarsen_params,
    .n_params = HK_ARRAY_LEN(coarsen_params),
    .flags = RW_VECTOR_FALLBACK | RW_RESTRICT_FIRST,
    .emit = emit_coarsen,
};
