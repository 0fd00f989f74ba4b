/* split_item_loop: a kernel that gives each block one item of a loop strided over the
 * blocks (`for (i = blockIdx.x; i < N; i += gridDim.x)`, mmcv's one-block-per-batch-item
 * kernels) leaves every block past N idle. The rewrite gives each item P = gridDim.x / N
 * blocks, and each of them one part of the item's loops strided over the threads, so
 * that a launch of many blocks for few items keeps the whole GPU busy. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"
#include "spec/expr.h"
#include "spec/spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why it is exact: a thread-strided loop `for (j = E0; j < M; j += S)` with S uniform over
 * the block visits E0 + s*S for s = 0, 1, ... while below M. Part p of P takes the s with
 * s mod P == p: `j = E0 + p*S; j < M; j += S*P`. The parts' sets are disjoint and their
 * union is the original's, and the thread (threadIdx, part) that owns a j is the same every
 * time the loop runs again for the same item (a tile loop around it), so a result read,
 * modified and written across those repetitions stays with one thread. The blocks past
 * (gridDim.x / P) * P start at an item >= gridDim.x / P >= N: they do nothing. Code of
 * the item loop outside the split loops (staging a tile into shared memory, barriers) runs
 * in each of the P blocks, which is why it must not write global memory. */

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)
/* the item loop's or a thread loop's sentence of read_for: one entry each */
#define EN_LOOP(item, id) (item ? EN(RW_SPL_ITEM_##id) : EN(RW_SPL_THREAD_##id))

#define SP_LOOPS 8

typedef struct {
    const char *text;
    size_t len;
    const an_model *m;
    const an_function *f;
    rw_toks ts;               /* the kernel body's tokens: [0] its '{', [n - 1] its '}' */
    km_kernel *km;
    char why[700];            /* the first refusal: "construct at line N: ..." */
} sp_scan;

/* A `for (T v = START; v < BOUND; v += STEP) BODY` as token ranges of sp_scan.ts. */
typedef struct {
    size_t kw;                /* `for` */
    size_t close;             /* the header's ')' */
    size_t type_a, var;       /* the index's type [type_a, var) and name */
    size_t start_a, start_b;
    size_t bound_a, bound_b;
    size_t step_a, step_b;
    size_t body_a, body_b;    /* the body statement */
    long loop;                /* index in km_loops */
} sp_loop;

#define refuse(s, k, ...) rwl_refuse((s)->why, sizeof (s)->why, &(s)->ts, (s)->text, (k), __VA_ARGS__)

static int line_of(const sp_scan *s, size_t k)
{
    return rwl_line_at(s->text, s->ts.t[k < s->ts.n ? k : s->ts.n - 1].start);
}

/* Does [a, b) change anything when evaluated (an assignment, ++/--, a call that is not a
 * pure math or load function)? The split evaluates a loop's step once more. */
static bool has_effects(const rw_toks *ts, size_t a, size_t b)
{
    for (size_t q = a; q < b; q++) {
        if (rwl_tok_is_assign_op(ts, q) || rwl_tok_is(ts, q, "++") || rwl_tok_is(ts, q, "--"))
            return true;
        if (ts->t[q].kind == T_IDENT && q + 1 < b && rwl_tok_is(ts, q + 1, "(") && !rwl_pure_call_name(ts, q) &&
            !rwl_is_type_word(ts, q) && !rwl_tok_is_ident(ts, q, "sizeof"))
            return true;
    }
    return false;
}

/* Reads the for loop at kw into L. false with a refusal (naming what) otherwise. */
static bool read_for(sp_scan *s, size_t kw, bool item, sp_loop *L)
{
    const rw_toks *ts = &s->ts;
    memset(L, 0, sizeof *L);
    L->kw = kw;
    L->loop = -1;
    if (!rwl_tok_is(ts, kw + 1, "("))
        return refuse(s, kw, "loop", EN_LOOP(item, NOT_FOR));
    size_t open = kw + 1, close = rwl_match_close(ts, open);
    if (close + 1 >= ts->n)
        return refuse(s, kw, "loop", EN_LOOP(item, UNBALANCED));
    size_t s2 = 0, s3 = 0;
    for (size_t q = open + 1, d = 0; q < close; q++) {
        d += rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[");
        d -= rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]");
        if (d == 0 && rwl_tok_is(ts, q, ";"))
            (s2 ? &s3 : &s2)[0] = q;
    }
    if (!s2 || !s3)
        return refuse(s, kw, "loop", EN_LOOP(item, NOT_INIT_COND_STEP));
    size_t eq = open + 1;
    while (eq < s2 && !rwl_tok_is(ts, eq, "="))
        eq++;
    if (eq >= s2 || eq < open + 3 || ts->t[eq - 1].kind != T_IDENT || eq + 1 >= s2)
        return refuse(s, kw, "loop", EN_LOOP(item, NO_INDEX_DECL));
    L->type_a = open + 1;
    L->var = eq - 1;
    for (size_t q = L->type_a; q < L->var; q++)
        if (ts->t[q].kind != T_IDENT || rwl_tok_is_ident(ts, q, "auto"))
            return refuse(s, kw, "loop", EN_LOOP(item, INDEX_NOT_INT));
    for (size_t q = eq + 1; q < s2; q++)
        if (rwl_tok_is(ts, q, ","))
            return refuse(s, kw, "loop", EN_LOOP(item, DECLARES_MORE));
    L->start_a = eq + 1;
    L->start_b = s2;
    if (!rwl_same_tok(ts, s2 + 1, L->var) || !rwl_tok_is(ts, s2 + 2, "<") || s2 + 3 >= s3)
        return refuse(s, kw, "loop", EN_LOOP(item, COND_NOT));
    L->bound_a = s2 + 3;
    L->bound_b = s3;
    for (size_t q = L->bound_a; q < L->bound_b; q++)
        if (rwl_same_tok(ts, q, L->var) || rwl_tok_is(ts, q, "&&") || rwl_tok_is(ts, q, "||") ||
            rwl_tok_is(ts, q, "?"))
            return refuse(s, kw, "loop", EN_LOOP(item, COND_MORE));
    if (rwl_same_tok(ts, s3 + 1, L->var) && rwl_tok_is(ts, s3 + 2, "+=")) {
        L->step_a = s3 + 3;
        L->step_b = close;
    } else if (rwl_same_tok(ts, s3 + 1, L->var) && rwl_tok_is(ts, s3 + 2, "=") && rwl_same_tok(ts, s3 + 3, L->var) &&
               rwl_tok_is(ts, s3 + 4, "+")) {
        L->step_a = s3 + 5;
        L->step_b = close;
    }
    bool ok = L->step_a && L->step_a < L->step_b;
    for (size_t q = L->step_a; ok && q < L->step_b; q++)
        ok = !rwl_same_tok(ts, q, L->var) && !rwl_tok_is(ts, q, ",") && !rwl_tok_is(ts, q, "?");
    if (!ok)
        return refuse(s, kw, "loop", EN_LOOP(item, STEP_NOT));
    if (has_effects(ts, L->bound_a, L->bound_b) || has_effects(ts, L->step_a, L->step_b))
        return refuse(s, kw, "loop", EN_LOOP(item, MAY_CHANGE));
    L->close = close;
    L->body_a = close + 1;
    L->body_b = rwl_stmt_end(ts, close + 1, ts->n - 1);
    return true;
}

/* The kernel model's loop opened by the `for` at token kw whose index is var: its index in
 * km_loops, or -1 (none, or two on that line). */
static long model_loop(const sp_scan *s, size_t kw, size_t var)
{
    size_t nl = 0;
    const km_loop *lp = km_loops(s->km, &nl);
    uint32_t line = (uint32_t)line_of(s, kw);
    long found = -1;
    const rw_toks *ts = &s->ts;
    for (size_t i = 0; i < nl; i++) {
        if (lp[i].line != line || !lp[i].var || strlen(lp[i].var) != ts->t[var].end - ts->t[var].start ||
            memcmp(lp[i].var, ts->text + ts->t[var].start, strlen(lp[i].var)) != 0)
            continue;
        if (found >= 0)
            return -1;
        found = (long)i;
    }
    return found;
}

/* The index token of the for header at kw (`for (T v = ...`), or 0. */
static size_t header_var(const rw_toks *ts, size_t kw)
{
    size_t close = rwl_match_close(ts, kw + 1), eq = kw + 2;
    while (eq < close && !rwl_tok_is(ts, eq, "=") && !rwl_tok_is(ts, eq, ";"))
        eq++;
    return eq < close && rwl_tok_is(ts, eq, "=") && ts->t[eq - 1].kind == T_IDENT ? eq - 1 : 0;
}

/* Is loop index inner inside loop outer (or the same)? */
static bool loop_within(const sp_scan *s, long inner, long outer)
{
    size_t nl = 0;
    const km_loop *lp = km_loops(s->km, &nl);
    for (long l = inner; l >= 0 && (size_t)l < nl; l = lp[l].parent)
        if (l == outer)
            return true;
    return false;
}

static bool access_in(const km_access *a, long loop)
{
    for (uint32_t q = 0; q < a->n_loops; q++)
        if ((long)a->loops[q] == loop)
            return true;
    return false;
}

/* f is exactly the builtin kind.x (coefficient 1, nothing else). */
static bool form_is_builtin_x(const km_kernel *k, km_form f, enum km_atom_kind kind)
{
    uint32_t id;
    return km_builtin_atom(k, kind, 0, &id) && f.n == 1 && f.t[0].coef == 1 && f.t[0].n == 1 &&
           f.t[0].atoms[0] == id;
}

/* f holds something that may differ between the threads of a block or change during a
 * loop: thread ids, memory reads, locals the model does not follow, accumulators. */
static bool form_not_uniform(const km_kernel *k, km_form f)
{
    return km_form_mentions_kind(k, f, KM_ATOM_THREAD_IDX, -1) || km_form_mentions_kind(k, f, KM_ATOM_READ, -1) ||
           km_form_mentions_kind(k, f, KM_ATOM_VAR, -1) || km_form_mentions_kind(k, f, KM_ATOM_ACC, -1);
}

/* Is a name of [a, b) written anywhere in [from, to) (a variable the bound or step reads)? */
static long written_name(const rw_toks *ts, size_t a, size_t b, size_t from, size_t to)
{
    for (size_t q = a; q < b; q++) {
        if (ts->t[q].kind != T_IDENT || !rwl_is_use(ts, q))
            continue;
        for (size_t k = from; k < to; k++)
            if (rwl_same_tok(ts, k, q) && rwl_is_use(ts, k) && rwl_scalar_written(ts, k))
                return (long)k;
    }
    return -1;
}

/* Is name token k declared inside [a, b) before k (the loop's own header included)? */
static bool declared_within(const rw_toks *ts, size_t a, size_t b, size_t k)
{
    for (size_t d = a; d < b && d <= k; d++)
        if (rwl_same_tok(ts, d, k) && rwl_is_use(ts, d) && rwl_declared_here(ts, d))
            return true;
    return false;
}

/* Is token r inside a loop or switch that starts within [a, r)? */
static bool nested_in_loop(const rw_toks *ts, size_t a, size_t r, size_t end)
{
    for (size_t q = a; q < r; q++)
        if ((rwl_tok_is_ident(ts, q, "for") || rwl_tok_is_ident(ts, q, "while") ||
             rwl_tok_is_ident(ts, q, "do") || rwl_tok_is_ident(ts, q, "switch")) &&
            rwl_stmt_end(ts, q, end) > r)
            return true;
    return false;
}

static bool mentions_sync(const char *t, size_t n)
{
    static const char *const w[] = {"__syncthreads", "__syncwarp", "this_thread_block", "this_grid"};
    for (size_t q = 0; q < n; q++)
        for (size_t i = 0; i < HK_ARRAY_LEN(w); i++)
            if (n - q >= strlen(w[i]) && !memcmp(t + q, w[i], strlen(w[i])))
                return true;
    return false;
}

/* The body of the file's function named by token k, or NULL. */
/* The body's statements around the item loop: before it only declarations that write no
 * memory, after it nothing that writes. The item loop's `for` in *item. */
static bool find_item_loop(sp_scan *s, size_t *item)
{
    const rw_toks *ts = &s->ts;
    size_t k = 1, end = ts->n - 1, nl = 0;
    const km_loop *lp = km_loops(s->km, &nl);
    bool any = false;
    for (size_t i = 0; i < nl && !any; i++)
        any = form_is_builtin_x(s->km, lp[i].start, KM_ATOM_BLOCK_IDX) &&
              form_is_builtin_x(s->km, lp[i].step, KM_ATOM_GRID_DIM);
    if (!any)
        return refuse(s, 1, "kernel body", EN(RW_SPL_NO_ITEM_LOOP_BY_BLOCK));
    while (k < end && !rwl_tok_is_ident(ts, k, "for")) {
        size_t e = rwl_stmt_end(ts, k, end);
        bool decl = rwl_is_type_word(ts, k) || rwl_tok_is_ident(ts, k, "__shared__") ||
                    rwl_tok_is_ident(ts, k, "const") || rwl_tok_is_ident(ts, k, "extern") ||
                    rwl_tok_is_ident(ts, k, "static") || rwl_tok_is_ident(ts, k, "constexpr") ||
                    (ts->t[k].kind == T_IDENT && k + 1 < e && ts->t[k + 1].kind == T_IDENT);
        if (!decl || e <= k)
            return refuse(s, k, "statement", EN(RW_SPL_ITEM_LOOP_NOT_OUTER));
        for (size_t q = k; q < e; q++)
            if ((rwl_tok_is_assign_op(ts, q) && !rwl_tok_is(ts, q, "=")) || rwl_tok_is(ts, q, "++") ||
                rwl_tok_is(ts, q, "--") ||
                (ts->t[q].kind == T_IDENT && rwl_tok_is(ts, q + 1, "(") && !rwl_pure_call_name(ts, q) &&
                 !rwl_is_type_word(ts, q) && !rwl_tok_is_ident(ts, q, "sizeof")))
                return refuse(s, q, "statement", EN(RW_SPL_CODE_BEFORE_WRITES));
        k = e;
    }
    if (k >= end)
        return refuse(s, 1, "kernel body", EN(RW_SPL_NO_ITEM_LOOP));
    *item = k;
    return true;
}

/* The model's loop at the item loop's `for` kw: blockIdx.x the start, gridDim.x the step.
 * Its index in km_loops, or -1 with the refusal. */
static long item_by_block(sp_scan *s, size_t kw)
{
    size_t nl = 0, var = header_var(&s->ts, kw);
    const km_loop *lp = km_loops(s->km, &nl);
    long li = var ? model_loop(s, kw, var) : -1;
    if (li < 0 || !form_is_builtin_x(s->km, lp[li].start, KM_ATOM_BLOCK_IDX) ||
        !form_is_builtin_x(s->km, lp[li].step, KM_ATOM_GRID_DIM))
        return refuse(s, kw, "loop", EN(RW_SPL_FIRST_NOT_ITEM)), -1;
    return li;
}

/* Checks the item loop L (item_by_block's already): a bound the same for every block and
 * never written, blockIdx.x and gridDim.x spelled once each, nothing after it that writes. */
static bool check_item_loop(sp_scan *s, sp_loop *L, long li)
{
    const rw_toks *ts = &s->ts;
    size_t nl = 0;
    const km_loop *lp = km_loops(s->km, &nl);
    L->loop = li;
    const km_loop *m = &lp[L->loop];
    size_t nb = 0;
    for (size_t q = L->start_a; q < L->start_b; q++)
        nb += rwl_builtin_x(ts, q, "blockIdx");
    size_t ng = 0;
    for (size_t q = L->step_a; q < L->step_b; q++)
        ng += rwl_builtin_x(ts, q, "gridDim");
    if (nb != 1 || ng != 1)
        return refuse(s, L->kw, "loop", EN(RW_SPL_SPELL_ONCE));
    if (form_not_uniform(s->km, m->bound) || km_form_mentions_kind(s->km, m->bound, KM_ATOM_BLOCK_IDX, -1) ||
        km_form_mentions_kind(s->km, m->bound, KM_ATOM_LOOP, -1))
        return refuse(s, L->kw, "loop", EN(RW_SPL_ITEMS_NOT_UNIFORM));
    long w = written_name(ts, L->bound_a, L->bound_b, 1, ts->n - 1);
    if (w >= 0)
        return refuse(s, (size_t)w, "statement", EN(RW_SPL_CHANGES_ITEM_COUNT),
                      (int)(ts->t[w].end - ts->t[w].start), ts->text + ts->t[w].start);
    for (size_t q = L->body_b; q + 1 < ts->n; q++)
        if (!rwl_tok_is(ts, q, ";") && !(rwl_tok_is_ident(ts, q, "return") && rwl_tok_is(ts, q + 1, ";")))
            return refuse(s, q, "statement", EN(RW_SPL_CODE_AFTER));
    return true;
}

/* Constructs of the whole body that the split cannot follow: blockIdx.x or gridDim.x
 * outside the item loop's header (a block's item and part are read from them), the block
 * coordinates as a whole, calls and macros that read them, returns and gotos. */
static bool scan_body(sp_scan *s, const sp_loop *item)
{
    const rw_toks *ts = &s->ts;
    for (size_t k = 1; k + 1 < ts->n; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
            continue;
        bool head = (k >= item->start_a && k < item->start_b) || (k >= item->step_a && k < item->step_b);
        if ((rwl_builtin_x(ts, k, "blockIdx") || rwl_builtin_x(ts, k, "gridDim")) && !head)
            return refuse(s, k, "block coordinates", EN(RW_SPL_X_OUTSIDE),
                          rwl_tok_is_ident(ts, k, "blockIdx") ? "blockIdx" : "gridDim");
        if ((rwl_tok_is_ident(ts, k, "blockIdx") || rwl_tok_is_ident(ts, k, "gridDim")) && !rwl_tok_is(ts, k + 1, "."))
            return refuse(s, k, "block coordinates", EN(RW_SPL_COORDS_WHOLE));
        if (rwl_tok_is_ident(ts, k, "hipBlockIdx_x") || rwl_tok_is_ident(ts, k, "hipGridDim_x"))
            return refuse(s, k, "block coordinates", EN(RW_SPL_HIP_COORDS));
        if (rwl_tok_is_ident(ts, k, "return") && k > item->kw && k < item->body_b)
            return refuse(s, k, "return", EN(RW_SPL_RETURN_IN_ITEM));
        if (rwl_tok_is_ident(ts, k, "goto") || rwl_tok_is_ident(ts, k, "asm"))
            return refuse(s, k, rwl_tok_is_ident(ts, k, "goto") ? "goto" : "asm", EN(RW_SPL_NOT_FOLLOW));
        if (!strncmp(ts->text + ts->t[k].start, "hk_sp_", 6))
            return refuse(s, k, "statement", EN(RW_SPL_SPLIT_ALREADY));
        if (rwl_tok_is(ts, k + 1, "(")) {
            const an_function *g = rwl_callee(s->m, s->f, &s->ts, k);
            if ((g && rwl_mentions_grid(s->text + g->body_span.start_byte,
                                        g->body_span.end_byte - g->body_span.start_byte)) ||
                rwl_macro_mentions_grid(s->text, s->len, ts->text + ts->t[k].start, ts->t[k].end - ts->t[k].start))
                return refuse(s, k, "call", EN(RW_SPL_CALL_READS_GRID),
                              (int)(ts->t[k].end - ts->t[k].start), ts->text + ts->t[k].start);
        }
    }
    return true;
}

/* Is f (an index) a function of loop counter c that takes a different value at every
 * iteration, sizes being positive? Either c appears only in terms of its own, with a
 * coefficient (symbolic: taken to be nonzero, as a product of sizes is), or only through
 * the two coordinates of a flat value g = E + K*c split by D and put back with a larger
 * stride: `B * (g % D) + A * (g / D)` (sync_bn's `(i / spatial) * channels * spatial +
 * i % spatial`), B the constant 1 and A a multiple of D (A = D*M, |M| >= 1): then
 * |A| >= D > |r - r'| for remainders r, r' in [0, D) (g >= 0: its terms all positive),
 * so values of g with different quotients never meet, and the same quotient with
 * different remainders differ by r - r'. g itself moves with c (K nonzero). */
static bool atom_has_counter(const km_kernel *k, uint32_t a, uint32_t c, int depth)
{
    size_t na = 0;
    const km_atom *at = km_atoms(k, &na);
    if (a == c || a >= na || depth > 8)
        return true;   /* past the table or too deep: cannot tell, taken to depend */
    for (uint32_t i = 0; i < at[a].n_args; i++)
        for (uint32_t t = 0; t < at[a].args[i].n; t++)
            for (uint32_t q = 0; q < at[a].args[i].t[t].n; q++)
                if (atom_has_counter(k, at[a].args[i].t[t].atoms[q], c, depth + 1))
                    return true;
    return false;
}

static bool form_has_counter(const km_kernel *k, km_form f, uint32_t c)
{
    for (uint32_t t = 0; t < f.n; t++)
        for (uint32_t q = 0; q < f.t[t].n; q++)
            if (atom_has_counter(k, f.t[t].atoms[q], c, 0))
                return true;
    return false;
}

static bool index_moves(const km_kernel *k, km_form f, uint32_t c)
{
    size_t na = 0;
    const km_atom *at = km_atoms(k, &na);
    km_term t[8];
    uint32_t nt = 0;
    /* the counter-dependent atoms of f's terms: the counter itself, or one `%` and one `/` */
    long rem = -1, quo = -1;
    bool direct = false;
    for (uint32_t i = 0; i < f.n; i++) {
        uint32_t dep = 0;
        for (uint32_t q = 0; q < f.t[i].n; q++) {
            uint32_t a = f.t[i].atoms[q];
            if (!atom_has_counter(k, a, c, 0))
                continue;
            dep++;
            if (a == c) {
                direct = true;
                continue;
            }
            if (a >= na || at[a].kind != KM_ATOM_OPAQUE || !at[a].op || at[a].n_args != 2)
                return false;
            long *slot = !strcmp(at[a].op, "%") ? &rem : !strcmp(at[a].op, "/") ? &quo : NULL;
            if (!slot || (*slot >= 0 && *slot != (long)a))
                return false;
            *slot = (long)a;
        }
        if (dep > 1)
            return false;
    }
    if (direct)
        return rem < 0 && quo < 0 && km_form_coefficient(k, f, c, t, HK_ARRAY_LEN(t), &nt) && nt > 0;
    if (rem < 0 || quo < 0)
        return false;
    const km_atom *r = &at[rem], *qa = &at[quo];
    km_form g = r->args[0], d = r->args[1];
    if (!km_form_equal(g, qa->args[0]) || !km_form_equal(d, qa->args[1]) || form_has_counter(k, d, c))
        return false;
    /* g = E + K*c, K nonzero, every term positive */
    for (uint32_t i = 0; i < g.n; i++) {
        if (g.t[i].coef <= 0)
            return false;
        for (uint32_t q = 0; q < g.t[i].n; q++)
            if (g.t[i].atoms[q] != c && atom_has_counter(k, g.t[i].atoms[q], c, 0))
                return false;
    }
    if (!km_form_coefficient(k, g, c, t, HK_ARRAY_LEN(t), &nt) || nt == 0)
        return false;
    /* B = 1 */
    if (!km_form_coefficient(k, f, (uint32_t)rem, t, HK_ARRAY_LEN(t), &nt) || nt != 1 || t[0].n != 0 ||
        t[0].coef != 1)
        return false;
    /* A = D * M: D one atom that every term of A holds, or a positive constant dividing each */
    if (!km_form_coefficient(k, f, (uint32_t)quo, t, HK_ARRAY_LEN(t), &nt) || nt == 0)
        return false;
    int64_t dv = 0;
    bool dconst = km_form_value(k, d, &dv);
    if (dconst && dv <= 0)
        return false;
    if (!dconst && (d.n != 1 || d.t[0].n != 1 || d.t[0].coef != 1))
        return false;
    for (uint32_t i = 0; i < nt; i++) {
        bool has = dconst && t[i].coef % dv == 0;
        for (uint32_t q = 0; q < t[i].n && !dconst && !has; q++)
            has = t[i].atoms[q] == d.t[0].atoms[0];
        if (!has)
            return false;
    }
    return true;
}

/* Checks a loop L strided over the threads that writes global memory, to be split. */
static bool check_split_loop(sp_scan *s, const sp_loop *item, sp_loop *L)
{
    const rw_toks *ts = &s->ts;
    size_t nl = 0, na = 0;
    const km_loop *lp = km_loops(s->km, &nl);
    const km_access *acc = km_accesses(s->km, &na);
    const km_loop *m = &lp[L->loop];
    if (form_not_uniform(s->km, m->step) || km_form_mentions_kind(s->km, m->step, KM_ATOM_LOOP, -1))
        return refuse(s, L->kw, "loop", EN(RW_SPL_STEP_DIFFERS));
    if (km_form_mentions_kind(s->km, m->bound, KM_ATOM_READ, -1))
        return refuse(s, L->kw, "loop", EN(RW_SPL_BOUND_READS_MEM));
    long w = written_name(ts, L->step_a, L->step_b, L->body_a, L->body_b);
    if (w < 0)
        w = written_name(ts, L->bound_a, L->bound_b, L->body_a, L->body_b);
    if (w >= 0)
        return refuse(s, (size_t)w, "statement", EN(RW_SPL_LOOP_CHANGES),
                      (int)(ts->t[w].end - ts->t[w].start), ts->text + ts->t[w].start);
    for (size_t k = L->body_a; k < L->body_b; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
            continue;
        if (rwl_tok_is_ident(ts, k, "__syncthreads") || rwl_tok_is_ident(ts, k, "__syncthreads_count") ||
            rwl_tok_is_ident(ts, k, "__syncthreads_and") || rwl_tok_is_ident(ts, k, "__syncthreads_or") ||
            rwl_tok_is_ident(ts, k, "__syncwarp") || rwl_tok_is_ident(ts, k, "__threadfence") ||
            rwl_tok_is_ident(ts, k, "__threadfence_block"))
            return refuse(s, k, "__syncthreads", EN(RW_SPL_BARRIER_IN_LOOP));
        if (!strncmp(ts->text + ts->t[k].start, "__shfl", 6) || !strncmp(ts->text + ts->t[k].start, "__ballot", 8))
            return refuse(s, k, "warp intrinsic", EN(RW_SPL_WARP_IN_LOOP));
        if (!strncmp(ts->text + ts->t[k].start, "atomic", 6) && rwl_tok_is(ts, k + 1, "("))
            return refuse(s, k, "atomic", EN(RW_SPL_ATOMIC_IN_LOOP));
        if (rwl_tok_is_ident(ts, k, "break") && !nested_in_loop(ts, L->body_a, k, L->body_b))
            return refuse(s, k, "break", EN(RW_SPL_BREAK));
        if (rwl_tok_is(ts, k + 1, "(")) {
            const an_function *g = rwl_callee(s->m, s->f, &s->ts, k);
            if (g && mentions_sync(s->text + g->body_span.start_byte, g->body_span.end_byte - g->body_span.start_byte))
                return refuse(s, k, "call", EN(RW_SPL_CALL_SYNCS),
                              (int)(ts->t[k].end - ts->t[k].start), ts->text + ts->t[k].start);
        }
        /* state carried from one iteration to the next: its iterations run in other blocks */
        if (rwl_scalar_written(ts, k) && !rwl_same_tok(ts, k, L->var) && !declared_within(ts, L->body_a, L->body_b, k))
            return refuse(s, k, "statement", EN(RW_SPL_CARRIES),
                          (int)(ts->t[k].end - ts->t[k].start), ts->text + ts->t[k].start);
    }
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &acc[i];
        if (!access_in(a, L->loop) || a->mode == KM_READ)
            continue;
        if (a->space == KM_SPACE_SHARED) {
            snprintf(s->why, sizeof s->why, EN(RW_SPL_SHARED_WRITES),
                     a->line, a->buffer ? a->buffer : "?");
            return false;
        }
        if (a->space != KM_SPACE_GLOBAL) {
            /* a local array written here but declared outside carries values from one
             * iteration to the next, as a scalar would */
            size_t bl = a->buffer ? strlen(a->buffer) : 0;
            bool inside = false;
            for (size_t k = L->body_a; k < L->body_b && bl && !inside; k++)
                inside = ts->t[k].end - ts->t[k].start == bl && !memcmp(ts->text + ts->t[k].start, a->buffer, bl) &&
                         rwl_is_use(ts, k) && rwl_declared_here(ts, k);
            if (!inside) {
                snprintf(s->why, sizeof s->why, EN(RW_SPL_LOCAL_CARRIES),
                         a->line, a->buffer ? a->buffer : "?");
                return false;
            }
            continue;
        }
        if (!index_moves(s->km, a->index, m->counter)) {
            snprintf(s->why, sizeof s->why, EN(RW_SPL_STORE_NOT_MOVE),
                     a->line, a->buffer ? a->buffer : "?");
            return false;
        }
    }
    return true;
}

/* A canonical text of form f with the counter atom text `from` read as `to` (NULL: as it
 * is): each term's atoms sorted, the terms sorted, so that two forms that differ only in
 * which loop's counter they name compare equal. false when it does not fit out (n bytes):
 * the caller then cannot tell, and refuses. */
#define SP_KEY_TERMS 24
#define SP_KEY_TERM 240
static int cmp_str(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static bool renamed_atom(char *out, size_t n, const char *text, const char *from, const char *to)
{
    size_t o = 0, fl = from ? strlen(from) : 0;
    for (const char *p = text; *p;) {
        if (fl && !strncmp(p, from, fl) && !(p[fl] >= '0' && p[fl] <= '9')) {
            int w = snprintf(out + o, n - o, "%s", to);
            if (w < 0 || (size_t)w >= n - o)
                return false;
            o += (size_t)w;
            p += fl;
            continue;
        }
        if (o + 1 >= n)
            return false;
        out[o++] = *p++;
    }
    out[o] = '\0';
    return true;
}

static bool form_key(const km_kernel *k, km_form f, const char *from, const char *to, char *out, size_t n)
{
    char terms[SP_KEY_TERMS][SP_KEY_TERM];
    char atoms[KM_DEGREE_MAX][SP_KEY_TERM];
    size_t na = 0;
    const km_atom *at = km_atoms(k, &na);
    if (f.n > SP_KEY_TERMS)
        return false;
    for (uint32_t i = 0; i < f.n; i++) {
        const km_term *t = &f.t[i];
        if (t->n > KM_DEGREE_MAX)
            return false;
        for (uint32_t q = 0; q < t->n; q++)
            if (t->atoms[q] >= na || !renamed_atom(atoms[q], sizeof atoms[q], at[t->atoms[q]].text, from, to))
                return false;
        qsort(atoms, t->n, sizeof atoms[0], cmp_str);
        int w = snprintf(terms[i], SP_KEY_TERM, "%lld", (long long)t->coef);
        for (uint32_t q = 0; q < t->n && w > 0 && w < SP_KEY_TERM; q++)
            w += snprintf(terms[i] + w, SP_KEY_TERM - (size_t)w, "*%s", atoms[q]);
        if (w <= 0 || w >= SP_KEY_TERM)
            return false;
    }
    qsort(terms, f.n, sizeof terms[0], cmp_str);
    size_t o = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < f.n; i++) {
        int w = snprintf(out + o, n - o, "%s ", terms[i]);
        if (w < 0 || (size_t)w >= n - o)
            return false;
        o += (size_t)w;
    }
    return true;
}

/* Do iteration c of split loop A and iteration c of split loop B belong to the same
 * (thread, part), and do a's and b's indices name the same element at the same c? Then
 * the element stays with one thread of one block, as in the original. The loops' starts
 * and steps must be the same forms (the same partition), and b's index with B's counter
 * read as A's must be a's. */
static bool same_owner(const sp_scan *s, const km_access *a, long la, const km_access *b, long lb)
{
    size_t nl = 0, na = 0;
    const km_loop *lp = km_loops(s->km, &nl);
    const km_atom *at = km_atoms(s->km, &na);
    if (la < 0 || lb < 0 || (size_t)la >= nl || (size_t)lb >= nl)
        return false;
    if (la == lb)
        return km_form_equal(a->index, b->index);
    const km_loop *A = &lp[la], *B = &lp[lb];
    if (!km_form_equal(A->start, B->start) || !km_form_equal(A->step, B->step) || A->counter >= na ||
        B->counter >= na)
        return false;
    char ka[2048], kb[2048];
    return form_key(s->km, a->index, NULL, NULL, ka, sizeof ka) &&
           form_key(s->km, b->index, at[B->counter].text, at[A->counter].text, kb, sizeof kb) && !strcmp(ka, kb);
}

/* The split loop (index into split[]) an access is in, or -1. */
static long split_of(const km_access *a, const sp_loop *split, size_t n_split)
{
    for (size_t l = 0; l < n_split; l++)
        if (access_in(a, split[l].loop))
            return (long)l;
    return -1;
}

/* Every element a split loop writes: any other access of its buffer anywhere in the kernel
 * must be in a split loop and name the same element at the same iteration of the same
 * partition (same_owner); otherwise one iteration (or the code around the loops) may read
 * what another, now in another block, writes. */
static bool check_split_deps(sp_scan *s, const sp_loop *split, size_t n_split)
{
    size_t na = 0;
    const km_access *acc = km_accesses(s->km, &na);
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &acc[i];
        long la = split_of(a, split, n_split);
        if (la < 0 || a->mode == KM_READ || a->space != KM_SPACE_GLOBAL)
            continue;
        for (size_t j = 0; j < na; j++) {
            const km_access *b = &acc[j];
            if (j == i || b->space != KM_SPACE_GLOBAL || !b->buffer || !a->buffer || strcmp(a->buffer, b->buffer))
                continue;
            long lb = split_of(b, split, n_split);
            if (lb >= 0 && same_owner(s, a, split[la].loop, b, split[lb].loop))
                continue;
            snprintf(s->why, sizeof s->why, b->mode == KM_READ ? EN(RW_SPL_ACCESS_READS_OTHER) : EN(RW_SPL_ACCESS_WRITES_OTHER),
                     b->line, b->buffer, a->buffer, a->line);
            return false;
        }
    }
    return true;
}

/* The loops of the item loop strided over the threads (outermost ones), those to split
 * (they write global memory) in split[], and the checks on the item loop's other global
 * writes. */
static bool find_split_loops(sp_scan *s, const sp_loop *item, sp_loop *split, size_t *n_split)
{
    const rw_toks *ts = &s->ts;
    size_t nl = 0, na = 0;
    const km_loop *lp = km_loops(s->km, &nl);
    const km_access *acc = km_accesses(s->km, &na);
    *n_split = 0;
    for (size_t k = item->body_a; k < item->body_b && !s->why[0]; k++) {
        if (!rwl_tok_is_ident(ts, k, "for") || !rwl_tok_is(ts, k + 1, "("))
            continue;
        size_t var = header_var(ts, k);   /* the loop's index, to match the model's loop */
        long li = var ? model_loop(s, k, var) : -1;
        if (li < 0 || !loop_within(s, li, item->loop) ||
            !km_form_mentions_kind(s->km, lp[li].start, KM_ATOM_THREAD_IDX, 0) ||
            (lp[li].kind != KM_LOOP_AFFINE && lp[li].kind != KM_LOOP_BLOCK_STRIDE))
            continue;
        bool writes_global = false;
        for (size_t i = 0; i < na; i++)
            writes_global |= acc[i].space == KM_SPACE_GLOBAL && acc[i].mode != KM_READ && access_in(&acc[i], li);
        size_t end = rwl_stmt_end(ts, k, item->body_b);
        if (writes_global) {
            if (*n_split == SP_LOOPS)
                return refuse(s, k, "loop", EN(RW_SPL_MORE_LOOPS), SP_LOOPS);
            sp_loop *L = &split[*n_split];
            if (!read_for(s, k, false, L))
                return false;
            L->loop = li;
            if (!check_split_loop(s, item, L))
                return false;
            (*n_split)++;
        }
        k = end - 1;   /* a loop strided over the threads inside this one stays */
    }
    if (s->why[0])
        return false;
    if (*n_split == 0)
        return refuse(s, item->kw, "loop", EN(RW_SPL_NOTHING_TO_SHARE));
    if (!check_split_deps(s, split, *n_split))
        return false;
    /* every global store is in a split loop: the P blocks of an item would repeat any other */
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &acc[i];
        if (a->space != KM_SPACE_GLOBAL || a->mode == KM_READ)
            continue;
        bool in = false;
        for (size_t l = 0; l < *n_split && !in; l++)
            in = access_in(a, split[l].loop);
        if (!in) {
            snprintf(s->why, sizeof s->why, EN(RW_SPL_STORE_OUTSIDE),
                     a->line, a->buffer ? a->buffer : "?");
            return false;
        }
    }
    return true;
}

/* Appends tokens [a, b) of s's text, as written. */
static int put_text(struct hk_buf *h, const sp_scan *s, size_t a, size_t b)
{
    return hk_buf_printf(h, "%.*s", (int)(s->ts.t[b - 1].end - s->ts.t[a].start), s->text + s->ts.t[a].start);
}

/* Does the spec's launch leave blocks idle: a grid along x larger than the item count at
 * some size set? Asked only where the spec can say (the count a scalar parameter the spec
 * gives a value, the grid an expression of the sizes); true otherwise, and with a note
 * (n bytes) of the largest split when it can. false with the refusal when at no size set
 * the grid has more blocks than items: the split would change nothing. */
static bool spec_leaves_blocks_idle(sp_scan *s, const rw_context *ctx, const sp_loop *item, char *note, size_t n)
{
    const rw_toks *ts = &s->ts;
    const spec *sp = ctx->spec;
    size_t a = item->bound_a, b = item->bound_b;
    while (b > a + 2 && rwl_tok_is(ts, a, "(") && rwl_match_close(ts, a) == b - 1)
        a++, b--;
    note[0] = '\0';
    if (!sp || sp->form != SPEC_FORM_HARNESS || !sp->grid[0] || !sp->n_sizes || b != a + 1 ||
        ts->t[a].kind != T_IDENT)
        return true;
    const spec_arg *arg = NULL;
    size_t nl = ts->t[a].end - ts->t[a].start;
    for (size_t i = 0; i < sp->n_args && !arg; i++)
        if (sp->args[i].value && strlen(sp->args[i].name) == nl && !memcmp(sp->args[i].name, ts->text + ts->t[a].start, nl))
            arg = &sp->args[i];
    if (!arg)
        return true;
    long long best_g = 0, best_n = 0;
    size_t best_k = 0;
    for (size_t k = 0; k < sp->n_sizes; k++) {
        expr_value g, v;
        char err[160];
        if (spec_eval(sp, sp->grid[0], k, 132, &g, err, sizeof err) || g.is_float ||
            spec_eval(sp, arg->value, k, 132, &v, err, sizeof err) || v.is_float)
            return true;
        if (v.i > 0 && g.i > v.i && (!best_n || g.i / v.i > best_g / best_n)) {
            best_g = g.i;
            best_n = v.i;
            best_k = k;
        }
    }
    if (!best_n)
        return refuse(s, item->kw, "loop", EN(RW_SPL_NO_IDLE_BLOCK), arg->name);
    /* "; NOTE": said as a list's tail */
    int w = snprintf(note, n, "; ");
    snprintf(note + w, n - (size_t)w, EN(RW_SPL_ITEM_NOTE), best_g, best_n, best_k + 1, best_g / best_n);
    return true;
}

/* Each loop of split, `for (T v = START; ...; v += STEP)`, as part PART of COUNT: it starts
 * at (START) + (T)PART * (STEP) and steps by (STEP) * COUNT (split_item_loop: the block's
 * part of its item; split_block_item: blockIdx.y of gridDim.y). */
static int sp_split_loops(const rw_toks *ts, const sp_loop *split, size_t n_split, const char *part,
                          const char *count, rw_edits *es)
{
    int rc = HK_OK;
    for (size_t l = 0; l < n_split && !rc; l++) {
        const sp_loop *L = &split[l];
        char *type = rwl_tok_text(ts, L->type_a, L->var), *step = rwl_tok_text(ts, L->step_a, L->step_b);
        char *start = rwl_tok_text(ts, L->start_a, L->start_b);
        if (!type || !step || !start) {
            rc = HK_ENOMEM;
        } else {
            /* `const int j` is never a loop index that steps; the cast takes the type alone */
            const char *t = type;
            if (!strncmp(t, "const ", 6))
                t += 6;
            rc = rwl_edits_add_owned(es, ts->t[L->start_a].start, ts->t[L->start_b - 1].end,
                                     hk_asprintf("(%s) + (%s)%s * (%s)", start, t, part, step));
            if (!rc)
                rc = rwl_edits_add_owned(es, ts->t[L->step_a].start, ts->t[L->step_b - 1].end,
                                         hk_asprintf("(%s) * %s", step, count));
        }
        hk_free(type);
        hk_free(step);
        hk_free(start);
    }
    return rc;
}

static int emit(sp_scan *s, const sp_loop *item, const sp_loop *split, size_t n_split, rw_edits *es)
{
    const rw_toks *ts = &s->ts;
    /* the item loop's own indentation for the lines put before it */
    uint32_t ls = ts->t[item->kw].start, ie;
    while (ls > 0 && s->text[ls - 1] != '\n')
        ls--;
    for (ie = ls; ie < ts->t[item->kw].start && (s->text[ie] == ' ' || s->text[ie] == '\t'); ie++)
        ;
    int il = ie == ts->t[item->kw].start ? (int)(ie - ls) : 4;
    const char *ind = s->text + ls;
    if (ie != ts->t[item->kw].start)
        ind = "    ";
    struct hk_buf h;
    hk_buf_init(&h, RW_TEXT_MAX);
    int rc = hk_buf_printf(&h, "/* hk: blocks per item, and this block's part of the item (split_item_loop) */\n" /* i18n: not for people */
                               "%.*sconst unsigned int hk_sp_P = (long long)(", il, ind);
    if (!rc)
        rc = put_text(&h, s, item->bound_a, item->bound_b);
    if (!rc)
        rc = hk_buf_appends(&h, ") > 0 && (long long)(");
    if (!rc)
        rc = put_text(&h, s, item->bound_a, item->bound_b);
    if (!rc)
        rc = hk_buf_printf(&h, ") < (long long)gridDim.x\n%.*s    ? gridDim.x / (unsigned int)(", il, ind); /* i18n: not for people */
    if (!rc)
        rc = put_text(&h, s, item->bound_a, item->bound_b);
    if (!rc)
        rc = hk_buf_printf(&h, ") : 1u;\n%.*sconst unsigned int hk_sp_part = blockIdx.x %% hk_sp_P;\n%.*s", il, ind, /* i18n: not for people */
                           il, ind);
    if (!rc)
        rc = rwl_edits_add(es, ts->t[item->kw].start, ts->t[item->kw].start, h.data);
    hk_buf_free(&h);
    for (size_t q = item->start_a; q < item->start_b && !rc; q++)
        if (rwl_builtin_x(ts, q, "blockIdx"))
            rc = rwl_edits_add(es, ts->t[q].start, ts->t[q + 2].end, "(blockIdx.x / hk_sp_P)");
    for (size_t q = item->step_a; q < item->step_b && !rc; q++)
        if (rwl_builtin_x(ts, q, "gridDim"))
            rc = rwl_edits_add(es, ts->t[q].start, ts->t[q + 2].end, "(gridDim.x / hk_sp_P)");
    return rc ? rc : sp_split_loops(ts, split, n_split, "hk_sp_part", "hk_sp_P", es);
}

static int split_kernel(const rw_context *ctx, rw_result *out)
{
    if (!out || !ctx)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    sp_scan s = {.text = ctx->text, .len = ctx->len, .m = ctx->m, .f = f};
    sp_loop item, split[SP_LOOPS];
    size_t n_split = 0, ki = 0;
    rw_edits es = {0};
    struct hk_buf lines;
    hk_buf_init(&lines, 4096);
    if ((rc = rwl_open_body(ctx->text, ctx->len, f, true, &s.ts, &s.km, s.why, sizeof s.why)))
        goto out;
    if (s.why[0])
        goto refused;
    long li = -1;
    if (!find_item_loop(&s, &ki) || (li = item_by_block(&s, ki)) < 0 || !read_for(&s, ki, true, &item) ||
        !check_item_loop(&s, &item, li) ||
        !scan_body(&s, &item) || !find_split_loops(&s, &item, split, &n_split))
        goto refused;
    char note[200];
    if (!spec_leaves_blocks_idle(&s, ctx, &item, note, sizeof note))
        goto refused;
    if ((rc = emit(&s, &item, split, n_split, &es)))
        goto out;
    for (size_t l = 0; l < n_split && !rc; l++)
        rc = hk_buf_printf(&lines, "%s%d", l ? ", " : "", line_of(&s, split[l].kw));
    if (rc)
        goto out;
    /* one loop or several: one sentence each */
    char *desc = hk_asprintf(n_split > 1 ? EN(RW_SPL_ITEM_DESC_LOOPS) : EN(RW_SPL_ITEM_DESC_LOOP),
                             f->name, line_of(&s, item.kw), lines.data, note);
    rc = rwl_finish(ctx->text, ctx->len, ctx->m, f->name, &es, desc, out);
    goto out;
refused:
    if (!rc)
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "split_item_loop", f->name, s.why));
out:
    hk_buf_free(&lines);
    rwl_edits_free(&es);
    km_free(s.km);
    rwl_toks_free(&s.ts);
    return rc;
}

/* The #define of the function-like macro named by token k of ts in text: its parameters'
 * and body's text, continuations as spaces (new strings). false when there is none, more
 * than one (which the kernel sees depends on #if), or the body stringifies or pastes. */
static bool macro_definition(const char *text, size_t len, const rw_toks *ts, size_t k, char **params, char **body,
                             int *rc)
{
    const char *name = ts->text + ts->t[k].start;
    size_t nl = ts->t[k].end - ts->t[k].start;
    const char *def = NULL, *def_end = NULL;
    *params = *body = NULL;
    size_t at = 0, a, e;
    while (rwl_next_define(text, len, &at, name, nl, &a, &e)) {
        if (def)
            return false;
        def = text + a + nl;
        def_end = text + e;
    }
    if (def && *def != '(')
        return false;
    const char *pe = def ? memchr(def, ')', (size_t)(def_end - def)) : NULL;
    if (!pe || memchr(pe, '#', (size_t)(def_end - pe)))
        return false;
    *params = hk_strndup(def + 1, (size_t)(pe - def - 1));
    *body = hk_strndup(pe + 1, (size_t)(def_end - pe - 1));
    if (!*params || !*body) {
        hk_free(*params);
        hk_free(*body);
        *params = *body = NULL;
        *rc = HK_ENOMEM;
        return false;
    }
    for (char *c = *body; *c; c++)
        if (c[0] == '\\' && c[1] == '\n')
            c[0] = ' ';
    for (char *c = *params; *c; c++)
        if (c[0] == '\\' && c[1] == '\n')
            c[0] = ' ';
    return true;
}

/* The item loop written through a function-like macro whose whole body is for headers
 * (`#define BLOCK_LOOP(i, n) for (int i = blockIdx.x; i < (n); i += gridDim.x)`, mmcv's
 * CUDA_2D_KERNEL_BLOCK_LOOP): *out gets the text with that use (the body's first statement
 * after declarations) replaced by its expansion, on one line, so the loops can be edited as
 * written; NULL when the body has no such use. HK_OK or HK_ENOMEM. */
static int expand_item_macro(const rw_context *ctx, const an_function *f, char **out, size_t *out_len)
{
    rw_toks ts = {0}, pt = {0}, bt = {0};
    char *params = NULL, *body = NULL, **args = NULL;
    size_t n_par = 0, n_arg = 0;
    struct hk_buf b;
    hk_buf_init(&b, RW_TEXT_MAX);
    *out = NULL;
    int rc = rwl_lex(ctx->text, f->body_span.start_byte, f->body_span.end_byte, &ts);
    size_t k = 1;
    while (!rc && k + 1 < ts.n && (rwl_is_type_word(&ts, k) || rwl_tok_is_ident(&ts, k, "__shared__") ||
                                   rwl_starts_declaration(&ts, k) || rwl_tok_is_ident(&ts, k, "extern")))
        k = rwl_stmt_end(&ts, k, ts.n - 1);
    if (rc || k + 2 >= ts.n || ts.t[k].kind != T_IDENT || !rwl_tok_is(&ts, k + 1, "(") ||
        rwl_tok_is_ident(&ts, k, "for") || rwl_tok_is_ident(&ts, k, "while") || rwl_tok_is_ident(&ts, k, "if") ||
        rwl_tok_is_ident(&ts, k, "switch") || !macro_definition(ctx->text, ctx->len, &ts, k, &params, &body, &rc))
        goto out;
    size_t close = rwl_match_close(&ts, k + 1);
    if (close + 1 >= ts.n - 1 || (rc = rwl_lex(params, 0, (uint32_t)strlen(params), &pt)) ||
        (rc = rwl_lex(body, 0, (uint32_t)strlen(body), &bt)))
        goto out;
    /* the body: one or more `for (...)` headers and nothing else */
    for (size_t q = 0; q < bt.n;) {
        if (!rwl_tok_is_ident(&bt, q, "for") || !rwl_tok_is(&bt, q + 1, "(") || rwl_match_close(&bt, q + 1) >= bt.n)
            goto out;
        q = rwl_match_close(&bt, q + 1) + 1;
    }
    for (size_t q = 0; q < pt.n; q += 2) {
        if (pt.t[q].kind != T_IDENT || (q + 1 < pt.n && !rwl_tok_is(&pt, q + 1, ",")))
            goto out;
        n_par++;
    }
    if (!bt.n || !(args = hk_calloc(n_par ? n_par : 1, sizeof *args))) {
        rc = bt.n ? HK_ENOMEM : HK_OK;
        goto out;
    }
    size_t from = k + 2;
    for (size_t q = k + 2, depth = 0; q <= close; q++) {
        if (q == close || (depth == 0 && rwl_tok_is(&ts, q, ","))) {
            if (n_arg >= n_par || q == from)
                goto out;
            if (!(args[n_arg++] = rwl_tok_text(&ts, from, q))) {
                rc = HK_ENOMEM;
                goto out;
            }
            from = q + 1;
            continue;
        }
        depth += rwl_tok_is(&ts, q, "(") || rwl_tok_is(&ts, q, "[");
        depth -= rwl_tok_is(&ts, q, ")") || rwl_tok_is(&ts, q, "]");
    }
    if (n_arg != n_par)
        goto out;
    rc = hk_buf_append(&b, ctx->text, ts.t[k].start);
    for (size_t q = 0; q < bt.n && !rc; q++) {
        const char *tx = body + bt.t[q].start;
        int l = (int)(bt.t[q].end - bt.t[q].start);
        for (size_t p = 0; p < n_par && bt.t[q].kind == T_IDENT; p++)
            if (pt.t[2 * p].end - pt.t[2 * p].start == (uint32_t)l && !memcmp(params + pt.t[2 * p].start, tx, (size_t)l)) {
                tx = args[p];
                l = (int)strlen(args[p]);
                break;
            }
        rc = hk_buf_printf(&b, "%s%.*s", q > 0 && bt.t[q].start > bt.t[q - 1].end ? " " : "", l, tx);
    }
    if (!rc)
        rc = hk_buf_append(&b, ctx->text + ts.t[close].end, ctx->len - ts.t[close].end);
    if (!rc) {
        *out_len = b.len;
        if (!(*out = hk_buf_steal(&b)))
            rc = HK_ENOMEM;
    }
out:
    for (size_t p = 0; args && p < n_arg; p++)
        hk_free(args[p]);
    hk_free(args);
    hk_free(params);
    hk_free(body);
    hk_buf_free(&b);
    rwl_toks_free(&ts);
    rwl_toks_free(&pt);
    rwl_toks_free(&bt);
    return rc;
}

/* The kernel as written, or with its item loop's macro expanded first. */
static int rw_split_item_loop(const rw_context *ctx, rw_result *out)
{
    if (!out || !ctx)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    char *x = NULL;
    size_t xl = 0;
    an_model *xm = NULL;
    if ((rc = expand_item_macro(ctx, f, &x, &xl)))
        return rc;
    if (!x)
        return split_kernel(ctx, out);
    long k = -1;
    rc = an_analyze(x, xl, &xm);
    if (rc == HK_OK && !xm->has_errors && (k = an_model_find_kernel(xm, f->name)) >= 0) {
        rw_context c2 = *ctx;
        c2.text = x;
        c2.len = xl;
        c2.m = xm;
        c2.kernel = (size_t)k;
        rc = split_kernel(&c2, out);
        if (rc == HK_OK && out->applicable) {
            char *d = hk_asprintf(EN(RW_SPL_MACRO_WRITTEN_OUT), out->description);
            if (!d) {
                rw_result_free(out);
                memset(out, 0, sizeof *out);
                rc = HK_ENOMEM;
            } else {
                hk_free(out->description);
                out->description = d;
            }
        }
    } else if (rc != HK_ENOMEM) {
        rc = split_kernel(ctx, out);   /* the expansion does not parse: the original's refusal */
    }
    an_model_free(xm);
    hk_free(x);
    return rc;
}

/* ---- split_block_item ------------------------------------------------------------ */

/* split_block_item: a kernel whose block is its item -- `int c = blockIdx.x;`, then loops
 * strided over the block's threads over the item's elements (mmcv's sync_bn kernels: one
 * block per channel) -- launched with fewer blocks than the GPU holds leaves thread slots
 * idle, however much work each item has. The rewrite adds a grid dimension: block (x, y)
 * runs part y of every such loop that writes global memory, `for (j = E0 + y*S; j < M;
 * j += S * gridDim.y)`, and the item's other global stores (per-item tail work: a running
 * statistic stored by thread 0) only in blockIdx.y == 0. The search launches the spec's
 * grid with P blocks along y (rw_result.grid_multiplier); under gridDim.y == 1 the text is
 * the original.
 *
 * Why it is exact: the loops split as split_item_loop's (iteration s of thread t goes to
 * part s mod P: the parts' sets are disjoint, their union the original's, and an element
 * a split loop writes is touched only by split loops of the same partition at the same
 * iteration, so by one thread of one block, in the original order). Every other statement
 * runs in every part with the same values: it writes no global memory, reads nothing a
 * split loop or a tail writes, and the split loops change no local it reads. A tail -- a
 * statement of the body's top level that stores to global memory and holds no split
 * loop -- runs in part 0 exactly as the original block ran it: its inputs are those
 * locals and buffers that nothing else writes, and nothing else reads what it writes. */

#define SB_STMTS 64

typedef struct {
    size_t a, e;     /* tokens [a, e) */
    int la, lb;      /* its first and last line */
    bool split;      /* holds a split loop */
    bool tail;       /* stores to global memory outside split loops: part 0 only */
} sb_stmt;

static bool sb_is_barrier(const rw_toks *ts, size_t k)
{
    static const char *const w[] = {"__syncthreads", "__syncthreads_count", "__syncthreads_and",
                                    "__syncthreads_or", "this_thread_block", "this_grid", "grid_group"};
    for (size_t i = 0; i < HK_ARRAY_LEN(w); i++)
        if (rwl_tok_is_ident(ts, k, w[i]))
            return true;
    return false;
}

/* Constructs the split cannot follow anywhere in the body; whether the block index is read. */
static bool sb_scan_body(sp_scan *s)
{
    const rw_toks *ts = &s->ts;
    bool item = false;
    for (size_t k = 1; k + 1 < ts->n; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
            continue;
        bool bi = rwl_tok_is_ident(ts, k, "blockIdx"), gd = rwl_tok_is_ident(ts, k, "gridDim");
        if ((bi || gd) && !rwl_tok_is(ts, k + 1, "."))
            return refuse(s, k, "block coordinates", EN(RW_SPL_COORDS_WHOLE));
        if ((bi || gd) && k + 2 < ts->n && !rwl_tok_is_ident(ts, k + 2, "x"))
            return refuse(s, k, "block coordinates", EN(RW_SPL_COORD_USED),
                          bi ? "blockIdx" : "gridDim", (int)(ts->t[k + 2].end - ts->t[k + 2].start),
                          ts->text + ts->t[k + 2].start);
        item |= bi;
        if (!strncmp(ts->text + ts->t[k].start, "hipBlockIdx_", 12) ||
            !strncmp(ts->text + ts->t[k].start, "hipGridDim_", 11))
            return refuse(s, k, "block coordinates", EN(RW_SPL_HIP_COORDS));
        if (rwl_tok_is_ident(ts, k, "goto") || rwl_tok_is_ident(ts, k, "asm"))
            return refuse(s, k, rwl_tok_is_ident(ts, k, "goto") ? "goto" : "asm",
                          EN(RW_SPL_NOT_FOLLOW));
        if (sb_is_barrier(ts, k))
            return refuse(s, k, "__syncthreads", EN(RW_SPL_BARRIER_ITEM));
        if (rwl_tok_is(ts, k + 1, "(")) {
            const an_function *g = rwl_callee(s->m, s->f, &s->ts, k);
            size_t nl = ts->t[k].end - ts->t[k].start;
            if ((g && (rwl_mentions_grid(s->text + g->body_span.start_byte,
                                         g->body_span.end_byte - g->body_span.start_byte) ||
                       mentions_sync(s->text + g->body_span.start_byte,
                                     g->body_span.end_byte - g->body_span.start_byte))) ||
                rwl_macro_mentions_grid(s->text, s->len, ts->text + ts->t[k].start, nl))
                return refuse(s, k, "call", EN(RW_SPL_CALL_COORDS_SYNC),
                              (int)nl, ts->text + ts->t[k].start);
        }
    }
    if (!item)
        return refuse(s, 1, "kernel body", EN(RW_SPL_NO_BLOCKIDX));
    size_t na = 0;
    const km_access *acc = km_accesses(s->km, &na);
    for (size_t i = 0; i < na; i++)
        if (acc[i].space == KM_SPACE_SHARED && acc[i].mode != KM_READ) {
            snprintf(s->why, sizeof s->why, EN(RW_SPL_SHARED_SHARE),
                     acc[i].line, acc[i].buffer ? acc[i].buffer : "?");
            return false;
        }
    return true;
}

/* The outermost loops strided over the block's threads (`for (j = ...threadIdx.x...; j <
 * M; j += S)`, S the same for every thread and free of the grid): each must write global
 * memory and pass check_split_loop. */
static bool sb_find_loops(sp_scan *s, sp_loop *split, size_t *n_split)
{
    const rw_toks *ts = &s->ts;
    size_t nl = 0, na = 0;
    const km_loop *lp = km_loops(s->km, &nl);
    const km_access *acc = km_accesses(s->km, &na);
    *n_split = 0;
    for (size_t k = 1; k + 1 < ts->n; k++) {
        if (!rwl_tok_is_ident(ts, k, "for") || !rwl_tok_is(ts, k + 1, "("))
            continue;
        size_t var = header_var(ts, k);
        long li = var ? model_loop(s, k, var) : -1;
        size_t close = rwl_match_close(ts, k + 1);
        bool mentions_tid = false;
        for (size_t q = k + 2; q < close && q < ts->n; q++)
            mentions_tid |= rwl_tok_is_ident(ts, q, "threadIdx");
        if (li < 0) {
            if (mentions_tid)
                return refuse(s, k, "loop", EN(RW_SPL_MODEL_NO_LOOP));
            continue;
        }
        const km_loop *m = &lp[li];
        if (m->kind == KM_LOOP_GRID_STRIDE || m->grid_width)
            return refuse(s, k, "grid-stride loop", EN(RW_SPL_GRID_STRIDED));
        if (!km_form_mentions_kind(s->km, m->start, KM_ATOM_THREAD_IDX, 0) ||
            (m->kind != KM_LOOP_AFFINE && m->kind != KM_LOOP_BLOCK_STRIDE))
            continue;
        if (km_form_mentions_kind(s->km, m->step, KM_ATOM_GRID_DIM, -1) ||
            km_form_mentions_kind(s->km, m->step, KM_ATOM_BLOCK_IDX, -1))
            return refuse(s, k, "loop", EN(RW_SPL_STEPS_BY_GRID));
        bool writes_global = false;
        for (size_t i = 0; i < na; i++)
            writes_global |= acc[i].space == KM_SPACE_GLOBAL && acc[i].mode != KM_READ && access_in(&acc[i], li);
        if (!writes_global)
            return refuse(s, k, "loop", EN(RW_SPL_NO_GLOBAL_WRITE));
        if (*n_split == SP_LOOPS)
            return refuse(s, k, "loop", EN(RW_SPL_MORE_LOOPS), SP_LOOPS);
        sp_loop *L = &split[*n_split];
        if (!read_for(s, k, false, L))
            return false;
        L->loop = li;
        if (!check_split_loop(s, NULL, L))
            return false;
        for (size_t q = L->body_a; q < L->body_b; q++)
            if (rwl_tok_is_ident(ts, q, "return") && rwl_is_use(ts, q))
                return refuse(s, q, "return", EN(RW_SPL_RETURN_IN_SPLIT));
        (*n_split)++;
        k = L->body_b - 1;
    }
    if (s->why[0])
        return false;
    if (*n_split == 0)
        return refuse(s, 1, "kernel body", EN(RW_SPL_NOTHING_TO_SPLIT));
    return check_split_deps(s, split, *n_split);
}

/* The statement of st[0, n) whose lines hold line, or -1 (none, or two: a line shared). */
static long sb_stmt_at(const sb_stmt *st, size_t n, uint32_t line)
{
    long found = -1;
    for (size_t i = 0; i < n; i++)
        if ((int)line >= st[i].la && (int)line <= st[i].lb) {
            if (found >= 0)
                return -1;
            found = (long)i;
        }
    return found;
}

/* The body's top-level statements; the tails among them, checked. */
static bool sb_tails(sp_scan *s, const sp_loop *split, size_t n_split, sb_stmt *st, size_t *n_st)
{
    const rw_toks *ts = &s->ts;
    size_t na = 0, n = 0;
    const km_access *acc = km_accesses(s->km, &na);
    for (size_t k = 1; k + 1 < ts->n;) {
        size_t e = rwl_stmt_end(ts, k, ts->n - 1);
        if (e <= k)
            return refuse(s, k, "statement", EN(RW_SPL_STMTS_APART));
        if (n == SB_STMTS)
            return refuse(s, k, "kernel body", EN(RW_SPL_MANY_STMTS), SB_STMTS);
        st[n] = (sb_stmt){.a = k, .e = e, .la = line_of(s, k), .lb = line_of(s, e - 1)};
        for (size_t l = 0; l < n_split; l++)
            st[n].split |= split[l].kw >= k && split[l].kw < e;
        n++;
        k = e;
    }
    *n_st = n;
    /* every global store outside the split loops: in one statement that holds no split loop */
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &acc[i];
        if (a->space != KM_SPACE_GLOBAL || a->mode == KM_READ || split_of(a, split, n_split) >= 0)
            continue;
        long t = sb_stmt_at(st, n, a->line);
        if (t < 0) {
            snprintf(s->why, sizeof s->why, EN(RW_SPL_STORE_SHARES_LINE),
                     a->line, a->buffer ? a->buffer : "?");
            return false;
        }
        if (st[t].split) {
            snprintf(s->why, sizeof s->why, EN(RW_SPL_STORE_IN_HOLDER),
                     a->line, a->buffer ? a->buffer : "?");
            return false;
        }
        if (rwl_starts_declaration(ts, st[t].a))
            return refuse(s, st[t].a, "statement", EN(RW_SPL_DECL_STORES));
        st[t].tail = true;
    }
    for (size_t t = 0; t < n; t++) {
        if (!st[t].tail)
            continue;
        bool split_after = false;
        for (size_t u = t + 1; u < n; u++)
            split_after |= st[u].split;
        for (size_t k = st[t].a; k < st[t].e; k++) {
            if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
                continue;
            if (rwl_tok_is_ident(ts, k, "return") && split_after)
                return refuse(s, k, "return", EN(RW_SPL_RETURN_PART0));
            if (rwl_scalar_written(ts, k) && !declared_within(ts, st[t].a, st[t].e, k))
                return refuse(s, k, "statement", EN(RW_SPL_DECLARED_OUTSIDE_TAIL),
                              (int)(ts->t[k].end - ts->t[k].start), ts->text + ts->t[k].start);
        }
    }
    /* what a tail writes nothing else touches; what it reads nothing else writes */
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &acc[i];
        long ta = sb_stmt_at(st, n, a->line);
        bool in_tail = ta >= 0 && st[ta].tail;
        if (a->space != KM_SPACE_GLOBAL && a->mode != KM_READ && in_tail) {
            size_t bl = a->buffer ? strlen(a->buffer) : 0;
            bool inside = false;
            for (size_t k = st[ta].a; k < st[ta].e && bl && !inside; k++)
                inside = ts->t[k].end - ts->t[k].start == bl && !memcmp(ts->text + ts->t[k].start, a->buffer, bl) &&
                         rwl_is_use(ts, k) && rwl_declared_here(ts, k);
            if (!inside) {
                snprintf(s->why, sizeof s->why, EN(RW_SPL_LOCAL_OUTSIDE_TAIL),
                         a->line, a->buffer ? a->buffer : "?");
                return false;
            }
            continue;
        }
        if (a->space != KM_SPACE_GLOBAL || !in_tail || !a->buffer)
            continue;
        for (size_t j = 0; j < na; j++) {
            const km_access *b = &acc[j];
            if (j == i || b->space != KM_SPACE_GLOBAL || !b->buffer || strcmp(a->buffer, b->buffer) ||
                (a->mode == KM_READ && b->mode == KM_READ))
                continue;
            long tb = sb_stmt_at(st, n, b->line);
            if (tb >= 0 && st[tb].tail && split_of(b, split, n_split) < 0)
                continue;
            /* both reading goes on above: one of them writes */
            snprintf(s->why, sizeof s->why, b->mode == KM_READ ? EN(RW_SPL_ACCESS_READS_TAIL_WRITES)
                                            : a->mode == KM_READ ? EN(RW_SPL_ACCESS_WRITES_TAIL_READS)
                                                                 : EN(RW_SPL_ACCESS_WRITES_TAIL_WRITES),
                     b->line, b->buffer, b->buffer, a->line);
            return false;
        }
    }
    return true;
}

/* The parts per item, from the spec's launch when it gives one: the blocks the GPU holds
 * (SMs x blocks of this size per SM by threads, at most 32) over the spec's grid at its
 * first size set that leaves some idle, times `waves`; then, up to twice that, the part
 * count whose last wave is fullest. false with the refusal when no size set leaves a block
 * slot idle. *P 4 when the spec cannot say. */
static bool sb_parts(sp_scan *s, const rw_context *ctx, int waves, int *P, char *note, size_t n)
{
    const spec *sp = ctx->spec;
    *P = 4;
    note[0] = '\0';
    if (!sp || sp->form != SPEC_FORM_HARNESS || !sp->n_sizes)
        return true;
    long long sms = ctx->sm_count > 0 ? ctx->sm_count : 132;
    long long slots = ctx->warps_per_sm > 0 ? 32LL * ctx->warps_per_sm : 2048;
    long long grid = 0, resident = 0, full = 0;
    size_t at = 0;
    for (size_t k = 0; k < sp->n_sizes && !grid; k++) {
        long long g = 1, b = 1;
        for (int d = 0; d < 3; d++) {
            expr_value v;
            char err[160];
            if (sp->grid[d] && (spec_eval(sp, sp->grid[d], k, sms, &v, err, sizeof err) || v.is_float))
                return true;
            if (sp->grid[d])
                g *= v.i;
            if (sp->block[d] && (spec_eval(sp, sp->block[d], k, sms, &v, err, sizeof err) || v.is_float))
                return true;
            if (sp->block[d])
                b *= v.i;
        }
        if (g <= 0 || b <= 0 || b > 1024)
            return true;
        long long per_sm = slots / b < 32 ? slots / b : 32;
        long long r = sms * (per_sm > 0 ? per_sm : 1);
        if (g < r)
            grid = g, resident = r, at = k;
        else
            full = g;
    }
    if (!grid)
        return refuse(s, 1, "launch", EN(RW_SPL_GRID_FILLS), full);
    long long pmin = (waves * resident + grid - 1) / grid, best = 0;
    if (pmin < 2)
        pmin = 2;
    double best_fill = 0;
    for (long long p = pmin; p < 2 * pmin && p <= 64; p++) {
        long long blocks = grid * p, rounds = (blocks + resident - 1) / resident;
        double fill = (double)blocks / (double)(rounds * resident);
        if (fill > best_fill + 1e-9)
            best_fill = fill, best = p;
    }
    *P = (int)(best ? best : (pmin > 64 ? 64 : pmin));
    /* "; NOTE": said as a list's tail */
    int w = snprintf(note, n, "; ");
    snprintf(note + w, n - (size_t)w, EN(RW_SPL_BLOCK_NOTE), at + 1, grid, resident, *P, grid * *P, best_fill * 100.0);
    return true;
}

static int sb_emit(sp_scan *s, const sp_loop *split, size_t n_split, const sb_stmt *st, size_t n_st, rw_edits *es)
{
    const rw_toks *ts = &s->ts;
    int rc = sp_split_loops(ts, split, n_split, "blockIdx.y", "gridDim.y", es);
    for (size_t t = 0; t < n_st && !rc; t++) {
        if (!st[t].tail)
            continue;
        /* the statement's own indentation for the lines around it */
        uint32_t ls = ts->t[st[t].a].start, ie;
        while (ls > 0 && s->text[ls - 1] != '\n')
            ls--;
        for (ie = ls; ie < ts->t[st[t].a].start && (s->text[ie] == ' ' || s->text[ie] == '\t'); ie++)
            ;
        int il = ie == ts->t[st[t].a].start ? (int)(ie - ls) : 0;
        rc = rwl_edits_add_owned(es, ts->t[st[t].a].start, ts->t[st[t].a].start,
                                 hk_asprintf("if (blockIdx.y == 0) { /* hk: the item's own stores, once " /* i18n: not for people */
                                             "(split_block_item) */\n%.*s",
                                             il, s->text + ls));
        if (!rc)
            rc = rwl_edits_add_owned(es, ts->t[st[t].e - 1].end, ts->t[st[t].e - 1].end,
                                     hk_asprintf("\n%.*s}", il, s->text + ls));
    }
    return rc;
}

static int rw_split_block_item(const rw_context *ctx, int waves, rw_result *out)
{
    if (!out || !ctx)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    sp_scan s = {.text = ctx->text, .len = ctx->len, .m = ctx->m, .f = f};
    sp_loop split[SP_LOOPS];
    sb_stmt st[SB_STMTS];
    size_t n_split = 0, n_st = 0;
    int P = 0;
    rw_edits es = {0};
    char note[240];
    struct hk_buf lines;
    hk_buf_init(&lines, 4096);
    if ((rc = rwl_open_body(ctx->text, ctx->len, f, true, &s.ts, &s.km, s.why, sizeof s.why)))
        goto out;
    if (s.why[0] || !sb_scan_body(&s) || !sb_find_loops(&s, split, &n_split) ||
        !sb_tails(&s, split, n_split, st, &n_st) || !sb_parts(&s, ctx, waves, &P, note, sizeof note))
        goto refused;
    if ((rc = sb_emit(&s, split, n_split, st, n_st, &es)))
        goto out;
    size_t n_tails = 0;
    for (size_t l = 0; l < n_split && !rc; l++)
        rc = hk_buf_printf(&lines, "%s%d", l ? ", " : "", line_of(&s, split[l].kw));
    for (size_t t = 0; t < n_st; t++)
        n_tails += st[t].tail;
    if (rc)
        goto out;
    /* one loop or several, with the item's other stores or without: one sentence each */
    static const enum hk_msg sb_desc[2][2] = {
        {HK_MSG_RW_SPL_BLOCK_DESC_LOOP, HK_MSG_RW_SPL_BLOCK_DESC_LOOP_TAILS},
        {HK_MSG_RW_SPL_BLOCK_DESC_LOOPS, HK_MSG_RW_SPL_BLOCK_DESC_LOOPS_TAILS},
    };
    char *desc = hk_asprintf(hk_tr_in(HK_LANG_EN, sb_desc[n_split > 1][n_tails > 0]),
                             f->name, P, lines.data, note, P);
    rc = rwl_finish(ctx->text, ctx->len, ctx->m, f->name, &es, desc, out);
    if (rc == HK_OK && out->applicable) {
        out->grid_multiplier = (unsigned)P;
        out->grid_axis = 1;
    }
    goto out;
refused:
    if (!rc)
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "split_block_item", f->name, s.why));
out:
    hk_buf_free(&lines);
    rwl_edits_free(&es);
    km_free(s.km);
    rwl_toks_free(&s.ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static int emit_split(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_split_item_loop(c, out);
}

const rw_descriptor rw_split_item_loop_desc = {
    .name = "split_item_loop",
    .summary = "a kernel of one block per item (a loop over blockIdx.x strided by gridDim.x) gives the blocks " /* i18n: not for people */
               "past the item count a part of each item's loops strided over the threads",
    /* planned with the pattern rewrites, before a roofline class's structural ones: the
     * kernel it fits (a few SMs busy) has no class of its own, and its gain is the ratio of
     * busy SMs, larger than any tuning of the few blocks that work */
    .flags = RW_ALGORITHM,
    .emit = emit_split,
};

static const rw_param sb_params[] = {
    {.name = "waves", .type = RW_PARAM_INT, .min = 1, .max = 16, .def = 2},
    /* load_batching's K on the split loops; 1: the split alone */
    {.name = "batch", .type = RW_PARAM_ENUM, .values = {4, 2, 8, 1}, .n_values = 4, .def = 4},
};

/* The split, then its loops' loads of `batch` trips issued together (load_batching on the
 * split's text): the split fills the idle block slots, the batch puts more loads in flight
 * per thread (a store through a pointer that may alias the next trip's load keeps one in
 * flight, which unrolling cannot lift). Where load_batching refuses, the split alone, with
 * the reason in its description. */
static int emit_split_block(const rw_context *c, const int *p, rw_result *out)
{
    int rc = rw_split_block_item(c, p[0], out);
    if (rc || !out->applicable || p[1] <= 1)
        return rc;
    an_model *m2 = NULL;
    rw_result b;
    memset(&b, 0, sizeof b);
    char *d = NULL;
    rc = an_analyze(out->text, out->len, &m2);
    long k = rc == HK_OK && !m2->has_errors ? an_model_find_kernel(m2, c->m->funcs[c->kernel].name) : -1;
    if (k >= 0) {
        rw_context c2 = *c;
        c2.text = out->text;
        c2.len = out->len;
        c2.m = m2;
        c2.kernel = (size_t)k;
        int lp[RW_MAX_PARAMS] = {p[1]};
        rc = rw_apply(rw_find("load_batching"), &c2, lp, &b, NULL);
    }
    if (rc == HK_ENOMEM)
        goto out;
    rc = HK_OK;
    if (b.applicable)
        d = hk_asprintf(EN(RW_SPL_THEN_BATCHED), out->description,
                        p[1]);
    else
        d = hk_asprintf(EN(RW_SPL_NOT_BATCHED), out->description,
                        b.description ? b.description : EN(RW_SPL_TEXT_NOT_PARSE));
    if (!d) {
        rc = HK_ENOMEM;
        goto out;
    }
    hk_free(out->description);
    out->description = d;
    if (b.applicable) {
        hk_free(out->text);
        out->text = b.text;
        out->len = b.len;
        b.text = NULL;
    }
out:
    rw_result_free(&b);
    an_model_free(m2);
    if (rc) {
        rw_result_free(out);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

const rw_descriptor rw_split_block_item_desc = {
    .name = "split_block_item",
    .summary = "a kernel of one block per item (c = blockIdx.x, loops strided over the threads) launched with fewer " /* i18n: not for people */
               "blocks than the GPU holds gets P blocks per item along y, each running one part of the loops (exact; "
               "grid x P along y)",
    .params = sb_params,
    .n_params = HK_ARRAY_LEN(sb_params),
    /* planned with the pattern rewrites (its gain is the idle block slots, which no tuning
     * of the busy ones recovers); its loops' loads issue together only once the stores
     * cannot alias them: __restrict__ first */
    .flags = RW_ALGORITHM | RW_RESTRICT_FIRST,
    .emit = emit_split_block,
    /* the JSON's "grid", English; hkls rewrites says it through the table's RW_SPL_LAUNCH
     * (test_core_i18n reads this very text back) */
    .launch = "the spec's grid multiplied along y by the parts per item (from the spec's launch and `waves`)", /* i18n: not for people */
};
