/* split_item_loop: a kernel that gives each block one item of a loop strided over the
 * blocks (`for (i = blockIdx.x; i < N; i += gridDim.x)`, mmcv's one-block-per-batch-item
 * kernels) leaves every block past N idle. The rewrite gives each item P = gridDim.x / N
 * blocks, and each of them one part of the item's loops strided over the threads, so
 * that a launch of many blocks for few items keeps the whole GPU busy. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "core/buf.h"
#include "core/hk.h"
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
static bool read_for(sp_scan *s, size_t kw, const char *what, sp_loop *L)
{
    const rw_toks *ts = &s->ts;
    memset(L, 0, sizeof *L);
    L->kw = kw;
    L->loop = -1;
    if (!rwl_tok_is(ts, kw + 1, "("))
        return refuse(s, kw, "loop", "the %s is not a for loop", what);
    size_t open = kw + 1, close = rwl_match_close(ts, open);
    if (close + 1 >= ts->n)
        return refuse(s, kw, "loop", "the %s's header is unbalanced", what);
    size_t s2 = 0, s3 = 0;
    for (size_t q = open + 1, d = 0; q < close; q++) {
        d += rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[");
        d -= rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]");
        if (d == 0 && rwl_tok_is(ts, q, ";"))
            (s2 ? &s3 : &s2)[0] = q;
    }
    if (!s2 || !s3)
        return refuse(s, kw, "loop", "the %s's header is not `for (init; condition; step)`", what);
    size_t eq = open + 1;
    while (eq < s2 && !rwl_tok_is(ts, eq, "="))
        eq++;
    if (eq >= s2 || eq < open + 3 || ts->t[eq - 1].kind != T_IDENT || eq + 1 >= s2)
        return refuse(s, kw, "loop", "the %s does not declare its index (`for (int i = ...; ...)`)", what);
    L->type_a = open + 1;
    L->var = eq - 1;
    for (size_t q = L->type_a; q < L->var; q++)
        if (ts->t[q].kind != T_IDENT || rwl_tok_is_ident(ts, q, "auto"))
            return refuse(s, kw, "loop", "the %s's index is not declared as one integer", what);
    for (size_t q = eq + 1; q < s2; q++)
        if (rwl_tok_is(ts, q, ","))
            return refuse(s, kw, "loop", "the %s declares more than its index", what);
    L->start_a = eq + 1;
    L->start_b = s2;
    if (!rwl_same_tok(ts, s2 + 1, L->var) || !rwl_tok_is(ts, s2 + 2, "<") || s2 + 3 >= s3)
        return refuse(s, kw, "loop", "the %s's condition is not `i < bound`", what);
    L->bound_a = s2 + 3;
    L->bound_b = s3;
    for (size_t q = L->bound_a; q < L->bound_b; q++)
        if (rwl_same_tok(ts, q, L->var) || rwl_tok_is(ts, q, "&&") || rwl_tok_is(ts, q, "||") ||
            rwl_tok_is(ts, q, "?"))
            return refuse(s, kw, "loop", "the %s's condition is more than `i < bound`", what);
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
        return refuse(s, kw, "loop", "the %s's step is not `i += stride`", what);
    if (has_effects(ts, L->bound_a, L->bound_b) || has_effects(ts, L->step_a, L->step_b))
        return refuse(s, kw, "loop", "the %s's bound or step may change something", what);
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
        return refuse(s, 1, "kernel body", "no loop over the items by block (`for (i = blockIdx.x; i < N; "
                                           "i += gridDim.x)`): the kernel does not give one block per item");
    while (k < end && !rwl_tok_is_ident(ts, k, "for")) {
        size_t e = rwl_stmt_end(ts, k, end);
        bool decl = rwl_is_type_word(ts, k) || rwl_tok_is_ident(ts, k, "__shared__") ||
                    rwl_tok_is_ident(ts, k, "const") || rwl_tok_is_ident(ts, k, "extern") ||
                    rwl_tok_is_ident(ts, k, "static") || rwl_tok_is_ident(ts, k, "constexpr") ||
                    (ts->t[k].kind == T_IDENT && k + 1 < e && ts->t[k + 1].kind == T_IDENT);
        if (!decl || e <= k)
            return refuse(s, k, "statement", "the loop over the items (`for (i = blockIdx.x; i < N; i += gridDim.x)`) "
                                             "is not the body's outermost statement: only declarations may come before it");
        for (size_t q = k; q < e; q++)
            if ((rwl_tok_is_assign_op(ts, q) && !rwl_tok_is(ts, q, "=")) || rwl_tok_is(ts, q, "++") ||
                rwl_tok_is(ts, q, "--") ||
                (ts->t[q].kind == T_IDENT && rwl_tok_is(ts, q + 1, "(") && !rwl_pure_call_name(ts, q) &&
                 !rwl_is_type_word(ts, q) && !rwl_tok_is_ident(ts, q, "sizeof")))
                return refuse(s, q, "statement", "code before the loop over the items may write memory; each of the "
                                                 "blocks that share an item would repeat it");
        k = e;
    }
    if (k >= end)
        return refuse(s, 1, "kernel body", "no loop over the items (`for (i = blockIdx.x; i < N; i += gridDim.x)`)");
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
        return refuse(s, kw, "loop", "the first loop is not over the items by block (`for (i = blockIdx.x; i < N; "
                                     "i += gridDim.x)`)"), -1;
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
        return refuse(s, L->kw, "loop", "the loop over the items does not spell blockIdx.x and gridDim.x once each");
    if (form_not_uniform(s->km, m->bound) || km_form_mentions_kind(s->km, m->bound, KM_ATOM_BLOCK_IDX, -1) ||
        km_form_mentions_kind(s->km, m->bound, KM_ATOM_LOOP, -1))
        return refuse(s, L->kw, "loop", "the number of items is not the same for every block");
    long w = written_name(ts, L->bound_a, L->bound_b, 1, ts->n - 1);
    if (w >= 0)
        return refuse(s, (size_t)w, "statement", "the kernel changes %.*s, which the number of items reads",
                      (int)(ts->t[w].end - ts->t[w].start), ts->text + ts->t[w].start);
    for (size_t q = L->body_b; q + 1 < ts->n; q++)
        if (!rwl_tok_is(ts, q, ";") && !(rwl_tok_is_ident(ts, q, "return") && rwl_tok_is(ts, q + 1, ";")))
            return refuse(s, q, "statement", "code after the loop over the items runs in every block, and more "
                                             "blocks take part in each item");
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
            return refuse(s, k, "block coordinates", "%s.x is used outside the loop over the items; once several "
                                                     "blocks share an item it no longer says which item or part",
                          rwl_tok_is_ident(ts, k, "blockIdx") ? "blockIdx" : "gridDim");
        if ((rwl_tok_is_ident(ts, k, "blockIdx") || rwl_tok_is_ident(ts, k, "gridDim")) && !rwl_tok_is(ts, k + 1, "."))
            return refuse(s, k, "block coordinates", "the block's coordinates are used as a whole");
        if (rwl_tok_is_ident(ts, k, "hipBlockIdx_x") || rwl_tok_is_ident(ts, k, "hipGridDim_x"))
            return refuse(s, k, "block coordinates", "HIP's block coordinates are not rewritten");
        if (rwl_tok_is_ident(ts, k, "return") && k > item->kw && k < item->body_b)
            return refuse(s, k, "return", "a return inside the loop over the items ends the thread's later items "
                                          "and parts, which other blocks now run");
        if (rwl_tok_is_ident(ts, k, "goto") || rwl_tok_is_ident(ts, k, "asm"))
            return refuse(s, k, rwl_tok_is_ident(ts, k, "goto") ? "goto" : "asm", "the rewrite does not follow this "
                                                                                   "construct");
        if (!strncmp(ts->text + ts->t[k].start, "hk_sp_", 6))
            return refuse(s, k, "statement", "the kernel is split already");
        if (rwl_tok_is(ts, k + 1, "(")) {
            const an_function *g = rwl_callee(s->m, s->f, &s->ts, k);
            if ((g && rwl_mentions_grid(s->text + g->body_span.start_byte,
                                        g->body_span.end_byte - g->body_span.start_byte)) ||
                rwl_macro_mentions_grid(s->text, s->len, ts->text + ts->t[k].start, ts->t[k].end - ts->t[k].start))
                return refuse(s, k, "call", "%.*s reads blockIdx or gridDim itself; the rewrite changes them in the "
                                            "kernel's text only",
                              (int)(ts->t[k].end - ts->t[k].start), ts->text + ts->t[k].start);
        }
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
        return refuse(s, L->kw, "loop", "the loop's step may differ between the threads of the block");
    if (km_form_mentions_kind(s->km, m->bound, KM_ATOM_READ, -1))
        return refuse(s, L->kw, "loop", "the loop's bound reads memory");
    long w = written_name(ts, L->step_a, L->step_b, L->body_a, L->body_b);
    if (w < 0)
        w = written_name(ts, L->bound_a, L->bound_b, L->body_a, L->body_b);
    if (w >= 0)
        return refuse(s, (size_t)w, "statement", "the loop changes %.*s, which its bound or step reads",
                      (int)(ts->t[w].end - ts->t[w].start), ts->text + ts->t[w].start);
    for (size_t k = L->body_a; k < L->body_b; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
            continue;
        if (rwl_tok_is_ident(ts, k, "__syncthreads") || rwl_tok_is_ident(ts, k, "__syncthreads_count") ||
            rwl_tok_is_ident(ts, k, "__syncthreads_and") || rwl_tok_is_ident(ts, k, "__syncthreads_or") ||
            rwl_tok_is_ident(ts, k, "__syncwarp") || rwl_tok_is_ident(ts, k, "__threadfence") ||
            rwl_tok_is_ident(ts, k, "__threadfence_block"))
            return refuse(s, k, "__syncthreads", "a barrier inside the loop to split: its iterations move to "
                                                   "other blocks");
        if (!strncmp(ts->text + ts->t[k].start, "__shfl", 6) || !strncmp(ts->text + ts->t[k].start, "__ballot", 8))
            return refuse(s, k, "warp intrinsic", "a warp exchange inside the loop to split");
        if (!strncmp(ts->text + ts->t[k].start, "atomic", 6) && rwl_tok_is(ts, k + 1, "("))
            return refuse(s, k, "atomic", "an atomic inside the loop to split: its iterations would combine "
                                          "from several blocks at once");
        if (rwl_tok_is_ident(ts, k, "break") && !nested_in_loop(ts, L->body_a, k, L->body_b))
            return refuse(s, k, "break", "a break leaves the thread's later iterations, which other blocks now run");
        if (rwl_tok_is(ts, k + 1, "(")) {
            const an_function *g = rwl_callee(s->m, s->f, &s->ts, k);
            if (g && mentions_sync(s->text + g->body_span.start_byte, g->body_span.end_byte - g->body_span.start_byte))
                return refuse(s, k, "call", "%.*s synchronizes, inside the loop to split",
                              (int)(ts->t[k].end - ts->t[k].start), ts->text + ts->t[k].start);
        }
        /* state carried from one iteration to the next: its iterations run in other blocks */
        if (rwl_scalar_written(ts, k) && !rwl_same_tok(ts, k, L->var) && !declared_within(ts, L->body_a, L->body_b, k))
            return refuse(s, k, "statement", "%.*s is declared outside the loop to split and written inside it: "
                                             "it carries a value from one iteration to the next, which other blocks now run",
                          (int)(ts->t[k].end - ts->t[k].start), ts->text + ts->t[k].start);
    }
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &acc[i];
        if (!access_in(a, L->loop) || a->mode == KM_READ)
            continue;
        if (a->space == KM_SPACE_SHARED) {
            snprintf(s->why, sizeof s->why, "shared memory at line %u: the loop to split writes %s, which every "
                                            "part of the item needs whole",
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
                snprintf(s->why, sizeof s->why, "local array at line %u: %s is declared outside the loop to split and "
                                                "written inside it: it carries values from one iteration to the next, "
                                                "which other blocks now run",
                         a->line, a->buffer ? a->buffer : "?");
                return false;
            }
            continue;
        }
        km_term t[8];
        uint32_t nt = 0;
        if (!km_form_coefficient(s->km, a->index, m->counter, t, HK_ARRAY_LEN(t), &nt) || nt == 0) {
            snprintf(s->why, sizeof s->why, "store at line %u: the element of %s written does not move with the "
                                            "loop's index, so iterations that now run in different blocks write it",
                     a->line, a->buffer ? a->buffer : "?");
            return false;
        }
        /* another element of the buffer read or written anywhere in the kernel: one
         * iteration (or the code before the item loop) may read what another writes */
        for (size_t j = 0; j < na; j++) {
            const km_access *b = &acc[j];
            if (j == i || b->space != KM_SPACE_GLOBAL || !b->buffer || !a->buffer || strcmp(a->buffer, b->buffer) ||
                km_form_equal(a->index, b->index))
                continue;
            snprintf(s->why, sizeof s->why, "access at line %u: %s %s an element of %s other than the one written at "
                                            "line %u; iterations that now run in different blocks may depend on "
                                            "each other",
                     b->line, b->buffer, b->mode == KM_READ ? "reads" : "writes", a->buffer, a->line);
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
                return refuse(s, k, "loop", "more than %d loops strided over the threads", SP_LOOPS);
            sp_loop *L = &split[*n_split];
            if (!read_for(s, k, "thread loop", L))
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
        return refuse(s, item->kw, "loop", "no loop strided over the threads inside the loop over the items writes "
                                           "global memory: there is nothing to share between blocks");
    /* every global store is in a split loop: the P blocks of an item would repeat any other */
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &acc[i];
        if (a->space != KM_SPACE_GLOBAL || a->mode == KM_READ)
            continue;
        bool in = false;
        for (size_t l = 0; l < *n_split && !in; l++)
            in = access_in(a, split[l].loop);
        if (!in) {
            snprintf(s->why, sizeof s->why, "store at line %u: %s is written outside the loops strided over the "
                                            "threads; each of the blocks that share an item would repeat it",
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
        return refuse(s, item->kw, "loop", "the spec's grid has no more blocks than items (%s) at any size set: no "
                                           "block is idle, the split would change nothing", arg->name);
    snprintf(note, n, "; the spec's launch: %lld blocks for %lld items at size set %zu, %lld blocks per item",
             best_g, best_n, best_k + 1, best_g / best_n);
    return true;
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
    int rc = hk_buf_printf(&h, "/* hk: blocks per item, and this block's part of the item (split_item_loop) */\n"
                               "%.*sconst unsigned int hk_sp_P = (long long)(", il, ind);
    if (!rc)
        rc = put_text(&h, s, item->bound_a, item->bound_b);
    if (!rc)
        rc = hk_buf_appends(&h, ") > 0 && (long long)(");
    if (!rc)
        rc = put_text(&h, s, item->bound_a, item->bound_b);
    if (!rc)
        rc = hk_buf_printf(&h, ") < (long long)gridDim.x\n%.*s    ? gridDim.x / (unsigned int)(", il, ind);
    if (!rc)
        rc = put_text(&h, s, item->bound_a, item->bound_b);
    if (!rc)
        rc = hk_buf_printf(&h, ") : 1u;\n%.*sconst unsigned int hk_sp_part = blockIdx.x %% hk_sp_P;\n%.*s", il, ind,
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
                                     hk_asprintf("(%s) + (%s)hk_sp_part * (%s)", start, t, step));
            if (!rc)
                rc = rwl_edits_add_owned(es, ts->t[L->step_a].start, ts->t[L->step_b - 1].end,
                                         hk_asprintf("(%s) * hk_sp_P", step));
        }
        hk_free(type);
        hk_free(step);
        hk_free(start);
    }
    return rc;
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
    if (!find_item_loop(&s, &ki) || (li = item_by_block(&s, ki)) < 0 || !read_for(&s, ki, "item loop", &item) ||
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
    char *desc = hk_asprintf("kernel %s: the loop over the items (line %d) takes gridDim.x / N blocks per item when "
                             "the grid has more blocks than items, and each of them one part of the loop%s strided "
                             "over the threads (line%s %s): the idle blocks share the items' work%s",
                             f->name, line_of(&s, item.kw), n_split > 1 ? "s" : "", n_split > 1 ? "s" : "",
                             lines.data, note);
    rc = rwl_finish(ctx->text, ctx->len, ctx->m, f->name, &es, desc, out);
    goto out;
refused:
    if (!rc)
        rc = rwl_not_applicable(out, hk_asprintf("split_item_loop not applicable to kernel %s: %s", f->name, s.why));
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
            char *d = hk_asprintf("%s; the item loop's macro written out", out->description);
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

/* ---- registry descriptor (registry.h) ---- */

static int emit_split(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_split_item_loop(c, out);
}

const rw_descriptor rw_split_item_loop_desc = {
    .name = "split_item_loop",
    .summary = "a kernel of one block per item (a loop over blockIdx.x strided by gridDim.x) gives the blocks "
               "past the item count a part of each item's loops strided over the threads",
    /* planned with the pattern rewrites, before a roofline class's structural ones: the
     * kernel it fits (a few SMs busy) has no class of its own, and its gain is the ratio of
     * busy SMs, larger than any tuning of the few blocks that work */
    .flags = RW_ALGORITHM,
    .emit = emit_split,
};
