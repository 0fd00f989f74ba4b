/* window_lanes: one thread per output whose body reduces over a window with bounds computed
 * per thread at run time (a max with its argmax, a sum or a mean over a pooling bin, a 1-D
 * segment) gives each output G adjacent lanes of a warp: the lanes stride over the window's
 * elements in the original's scan order (row-major for a 2-D window), each keeps its own
 * partial state, and the G partials are merged with __shfl_xor_sync; lane 0 runs what
 * follows the window (the stores). The grid grows by G along x (rw_result.grid_multiplier).
 *
 * Why: such a kernel (mmcv's roi_pool_forward) runs one dependent chain per thread: each
 * element's load is followed by the compare that decides the next state, the trip count is
 * data dependent (no unrolling), so one load is in flight per thread; the warp's 32 threads
 * read 32 different windows. G lanes per output put G loads of one window in flight at
 * once, and a window's row is read by adjacent lanes.
 *
 * Why it is exact for a compare-select (`if (E > M) { M = E; I = X; }`, or `<`, either
 * side): a strict comparison keeps, after a scan of any sequence from the initial value v0,
 * the FIRST element (in scan order) among those whose value equals the maximum of the
 * elements that compare above v0, or v0 with nothing taken when none does; a NaN element
 * never compares true and is never taken; the kept value is that element's own bits. A lane
 * scans a subsequence in scan order, from the same v0 (the code before the window is the
 * output's, alike in its lanes), so it holds the first maximum of its subsequence with its
 * position k (row * width + column, counted from the window's corner), or v0 and no
 * position. Merging two lanes takes the other's state when its value compares better, or
 * when neither compares better and its position is smaller: a selection of the minimum
 * under the total order (better value, then smaller position), so any merge tree gives the
 * sequential result, element and index. Taken values are never NaN unless v0 is (then
 * nothing is taken anywhere and every lane holds v0); a taken value compares better than v0,
 * so a lane that took nothing never ties with one that did; -0 and +0 tie and the position
 * decides, as the sequence does. The empty window leaves every lane at v0 with nothing
 * taken: the original's value. A sum (`S += E`, from a literal 0) is split into G partial
 * sums added by the shuffles: exact for integers, reordered additions for floating point
 * (the referee's reduction tolerance applies; the description says so).
 *
 * Which thread does what: thread t of the multiplied grid serves output t / G as lane
 * t % G; a block whose size is a multiple of G keeps each output's G lanes in one warp,
 * aligned, and the grid-stride step (a multiple of G) keeps them together on every trip, so
 * the code before the window (its `continue` or `return` included) runs alike in the
 * output's lanes. Under the grid multiplied by G, output t / G on trip i is the original
 * thread t / G's output on trip i. A block size not a multiple of G runs lane 0 alone over
 * the whole window (no merge). */
#include "rewrites/registry.h"
#include "rewrites/rewrite_gridloop.h"
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

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define WL_ACC 8
#define WL_SETS 6

typedef rwg_scan wl_scan;

/* One window loop `for (TYPE v = A; v < B; ++v)`. */
typedef struct {
    size_t f;                   /* the `for` */
    size_t type_a, type_b, var, a_a, a_b, b_a, b_b;
    size_t body_a, body_b;      /* the body statement [body_a, body_b) */
    bool incl;                  /* `v <= B`: B is the last trip */
} wl_for;

/* A compare-select: `if (E R M) { M = E; X = F; ... }` (or `M R' E`). */
typedef struct {
    size_t iff;                 /* the `if` */
    size_t m;                   /* M's token in the condition */
    size_t cons_a, cons_b;      /* the consequence statement */
    size_t sets[WL_SETS];       /* the assigned names (M among them) */
    size_t n_sets;
    bool greater;               /* takes the new element when it is greater */
} wl_select;

typedef struct {
    /* the per-output region */
    bool gs;                    /* a grid-stride loop (else the guard form's declaration) */
    size_t q_a;                 /* the loop's first token, or the index declaration's */
    size_t qbody_a, qbody_b;    /* gs: its braced body; guard: [decl end, body end) */
    size_t decl_b;              /* guard: one past the index declaration */
    rwg_header qh;              /* its counter and bound */
    /* the window */
    wl_for w[2];
    int dims;
    size_t win_a, win_b;        /* the window statement */
    size_t blk_close;           /* the `}` closing the block that holds it */
    size_t sums[WL_ACC];
    size_t n_sums;
    wl_select sel[WL_ACC];
    size_t n_sel;
    /* a window with induction state (1-D only): statements `v += c;` (`-=`, `v = v + c;`,
     * `v = v - c;`, `++`, `--`) of its body's top level, c the same on every trip, v read by
     * the body's other statements; they lead and/or trail the body, the rest [mid_a, mid_b)
     * between them */
    bool uniform;               /* the bounds are the same for every thread (taken only with induction) */
    size_t ind_a[WL_ACC], ind_b[WL_ACC], ind_name[WL_ACC];
    size_t n_ind, n_lead;       /* the inductions, the first n_lead of them before the rest */
    size_t mid_a, mid_b;
} wl_loop;

#define refuse(s, k, ...) rwl_refuse((s)->why, sizeof (s)->why, (s)->ts, (s)->text, (k), __VA_ARGS__)
#define SPAN(ts, a, b) (int)((ts)->t[(b) - 1].end - (ts)->t[a].start), (ts)->text + (ts)->t[a].start
#define TOK(ts, k) (int)((ts)->t[k].end - (ts)->t[k].start), (ts)->text + (ts)->t[k].start





/* Does statement [a, b) store to memory other than a local array, or call a function that
 * may? `T(x)` with T a type parameter of the kernel is a cast; a call to a reader function of
 * the file (rwl_reader_call: pointers to const, writes only its locals, calls only pure
 * functions and readers: mmcv's bilinear_interpolate) only reads: each lane may run it for its
 * own elements. */
static bool stores(wl_scan *s, size_t a, size_t b, const char *where)
{
    const rw_toks *ts = s->ts;
    bool call;
    size_t k = rwg_first_store(ts, a, b, &call);
    while (k < b && call && (rwl_reader_call(s->m, s->text, s->f, ts, k) ||
                             rwl_template_type_param(s->f->template_params, ts, k)))
        k = rwg_first_store(ts, k + 1, b, &call);
    if (k < b && call)
        return refuse(s, k, "call", EN(RW_WL_CALL_WRITES), TOK(ts, k), where);
    if (k < b)
        return refuse(s, k, "store", EN(RW_WL_STORE_THROUGH), TOK(ts, k), where);
    return true;
}


/* rwl_declared_here, and a later declarator of a declaration whose type the lexer does not
 * know and whose first declarator is a pointer (`T *offset, width, x;`, T a template
 * parameter): a statement `NAME *... NAME` is a declaration, a product's value would be unused. */
static bool declared_here(const rw_toks *ts, size_t q)
{
    if (rwl_declared_here(ts, q))
        return true;
    if (q < 2 || !rwl_tok_is(ts, q - 1, ","))
        return false;
    size_t p = q - 1;
    for (int depth = 0; p > 0; p--) {
        depth += rwl_tok_is(ts, p, ")") || rwl_tok_is(ts, p, "]") || rwl_tok_is(ts, p, "}");
        depth -= rwl_tok_is(ts, p, "(") || rwl_tok_is(ts, p, "[") || rwl_tok_is(ts, p, "{");
        if (depth < 0)
            return false;
        if (depth == 0 && (rwl_tok_is(ts, p - 1, ";") || rwl_tok_is(ts, p - 1, "{") || rwl_tok_is(ts, p - 1, "}")))
            break;
    }
    if (!p || ts->t[p].kind != T_IDENT || rwg_is_kw(ts, p))
        return false;
    size_t k = p + 1;
    while (k < q && (rwl_tok_is(ts, k, "*") || rwl_tok_is(ts, k, "&")))
        k++;
    return k > p + 1 && k < q && ts->t[k].kind == T_IDENT && rwl_declared_here(ts, k);
}

static bool is_decl_of(const rw_toks *ts, size_t a, size_t b, size_t name, size_t *at)
{
    for (size_t q = a; q < b; q++)
        if (rwg_same_name(ts, q, name) && declared_here(ts, q)) {
            if (at)
                *at = q;
            return true;
        }
    return false;
}

static bool same_span(const rw_toks *ts, size_t a, size_t b, size_t c, size_t d)
{
    if (b - a != d - c)
        return false;
    for (size_t i = 0; i < b - a; i++)
        if (ts->t[a + i].kind != ts->t[c + i].kind || !rwl_same_tok(ts, a + i, c + i))
            return false;
    return true;
}

static bool span_mentions(const rw_toks *ts, size_t a, size_t b, size_t name)
{
    for (size_t k = a; k < b; k++)
        if (rwg_is_name(ts, k, name))
            return true;
    return false;
}

/* ---- the per-output region: a grid-stride loop over outputs, or the guard form ---- */

/* `TYPE v = <global x index>;` at q (ending at e): the guard form's index. */
static bool index_decl(const rw_toks *ts, size_t q, size_t e, wl_loop *L)
{
    if (!rwl_starts_declaration(ts, q) || e < q + 5 || !rwl_tok_is(ts, e - 1, ";"))
        return false;
    size_t eq = q;
    while (eq < e && !rwl_tok_is(ts, eq, "="))
        eq++;
    if (eq >= e || eq < q + 2 || ts->t[eq - 1].kind != T_IDENT)
        return false;
    for (size_t k = q; k + 1 < eq; k++)
        if (ts->t[k].kind != T_IDENT)
            return false;
    char start[256];
    rwg_compact(ts, eq + 1, e - 1, start, sizeof start);
    if (!rwg_global_x_index(start))
        return false;
    snprintf(L->qh.var, sizeof L->qh.var, "%.*s", TOK(ts, eq - 1));
    snprintf(L->qh.type, sizeof L->qh.type, "%.*s", SPAN(ts, q, eq - 1));
    return true;
}

static bool find_region(wl_scan *s, wl_loop *L)
{
    const rw_toks *ts = s->ts;
    size_t end = ts->n - 1;
    for (size_t q = 1; q < end;) {
        size_t e = rwg_stmt_end(ts, q, end);
        if (index_decl(ts, q, e, L)) {
            L->gs = false;
            L->q_a = q;
            L->decl_b = e;
            L->qbody_a = e;
            L->qbody_b = end;
            return true;
        }
        bool macro;
        if (rwg_loop_at(ts, q, end, &macro)) {
            if (!rwg_read_loop(s, "output loop", q, end, macro, &L->qh, &L->qbody_a, &L->qbody_b))
                return false;
            L->gs = true;
            L->q_a = q;
            if (L->qbody_b < end)
                return refuse(s, L->qbody_b, EN(RW_C_STMT_AFTER_OUTPUT_LOOP), "%s",
                              EN(RW_WL_ALL_LANES_RUN));
            return true;
        }
        bool ret = rwl_tok_is(ts, q, "if") && rwl_tok_is(ts, rwl_match_close(ts, q + 1) + 1, "return");
        if (!rwl_starts_declaration(ts, q) && !ret)
            return refuse(s, q, EN(RW_C_STMT_BEFORE_OUTPUT_LOOP), "%s", EN(RW_WL_ONLY_DECLS));
        q = e;
    }
    return refuse(s, 0, "kernel body", "%s", EN(RW_WL_NOT_ONE_PER_OUTPUT));
}

/* The whole kernel: nothing but the region's index may read the thread's position. */
static bool check_kernel(wl_scan *s, wl_loop *L)
{
    const rw_toks *ts = s->ts;
    size_t ha = L->q_a, hb = L->gs ? L->qbody_a : L->decl_b;
    for (size_t k = 1; k + 1 < ts->n; k++) {
        if (k >= ha && k < hb)
            continue;
        if (ts->t[k].kind != T_IDENT)
            continue;
        const char *p = ts->text + ts->t[k].start;
        size_t l = ts->t[k].end - ts->t[k].start;
        if (l >= 5 && !memcmp(p, "hk_wg", 5))
            return refuse(s, k, "kernel body", "%s", EN(RW_WL_ALREADY));
        if (!rwl_is_use(ts, k))
            continue;
        /* the lanes split x: a thread's y and z stay its own, alike in an output's G lanes
         * (one row of the block, blockDim.x a multiple of G) */
        if (rwl_tok_is(ts, k, "threadIdx") && rwl_tok_is(ts, k + 1, ".") &&
            (rwl_tok_is(ts, k + 2, "y") || rwl_tok_is(ts, k + 2, "z")))
            continue;
        if (rwl_tok_is(ts, k, "threadIdx") || rwl_tok_is(ts, k, "blockDim") || rwl_tok_is(ts, k, "gridDim") ||
            rwl_tok_is(ts, k, "warpSize") || rwl_builtin_x(ts, k, "blockIdx"))
            return refuse(s, k, "thread index", EN(RW_WL_INDEX_OUTSIDE), TOK(ts, k));
        if (rwl_tok_is(ts, k, "__syncthreads") || rwl_tok_is(ts, k, "__syncwarp") || rwl_tok_is(ts, k, "__shared__") ||
            (l > 6 && !memcmp(p, "__shfl", 6)) || rwl_tok_is(ts, k, "__ballot_sync") ||
            rwl_tok_is(ts, k, "__any_sync") || rwl_tok_is(ts, k, "__all_sync") || rwl_tok_is(ts, k, "asm") ||
            rwl_tok_is(ts, k, "__activemask"))
            return refuse(s, k, "barrier", EN(RW_WL_BARRIER), TOK(ts, k));
        if (k >= L->qbody_a && k < L->qbody_b && rwl_tok_is(ts, k, L->qh.var) && rwl_scalar_written(ts, k))
            return refuse(s, k, "output index", EN(RW_WL_INDEX_WRITTEN), L->qh.var);
    }
    return true;
}

/* ---- the window ---- */

/* `for (TYPE v = A; v < B; ++v | v++ | v += 1) STMT` at q. */
static bool for_header(const rw_toks *ts, size_t q, size_t end, wl_for *w)
{
    if (!rwl_tok_is(ts, q, "for") || !rwl_tok_is(ts, q + 1, "("))
        return false;
    size_t hc = rwl_match_close(ts, q + 1);
    if (hc + 1 >= end)
        return false;
    rwg_counted c;
    if (!rwg_counted_header(ts, q, hc, true, &c))
        return false;
    w->f = q;
    w->incl = c.inclusive;
    w->type_a = c.type_a;
    w->type_b = c.type_b;
    w->var = c.var;
    w->a_a = c.a_a;
    w->a_b = c.a_b;
    w->b_a = c.b_a;
    w->b_b = c.b_b;
    w->body_a = hc + 1;
    w->body_b = rwl_stmt_end(ts, hc + 1, end);
    return w->body_b <= end && w->body_b > w->body_a;
}

/* The model's loop on the line of token k, or NULL. */
static const km_loop *model_loop(const wl_scan *s, const km_kernel *km, size_t k)
{
    size_t n;
    const km_loop *lp = km_loops(km, &n);
    int line = rwl_line_at(s->text, s->ts->t[k].start);
    for (size_t i = 0; i < n; i++)
        if ((int)lp[i].line == line && lp[i].kind == KM_LOOP_AFFINE)
            return &lp[i];
    return NULL;
}

/* Are the loop's bounds values of the thread (its index, its grid-stride trip, data it read)? */
static bool per_thread(const km_kernel *km, const km_loop *l)
{
    static const enum km_atom_kind kinds[] = {KM_ATOM_THREAD_IDX, KM_ATOM_BLOCK_IDX, KM_ATOM_READ, KM_ATOM_VAR,
                                              KM_ATOM_LOOP};
    for (size_t i = 0; i < HK_ARRAY_LEN(kinds); i++)
        if (km_form_mentions_kind(km, l->start, kinds[i], -1) || km_form_mentions_kind(km, l->bound, kinds[i], -1))
            return true;
    return false;
}

/* The top-level statements of a braced body [a, b): their starts in st (n), false when the
 * body is not braced or has more than cap. */
static bool body_statements(const rw_toks *ts, size_t a, size_t b, size_t *st, size_t cap, size_t *n)
{
    *n = 0;
    if (!rwl_tok_is(ts, a, "{") || rwl_match_close(ts, a) != b - 1)
        return false;
    for (size_t q = a + 1; q < b - 1;) {
        if (*n == cap)
            return false;
        st[(*n)++] = q;
        size_t e = rwl_stmt_end(ts, q, b - 1);
        if (e <= q)
            return false;
        q = e;
    }
    return true;
}

/* Is statement [q, e) an induction step's form, `v += c;`, `v -= c;`, `v = v + c;`,
 * `v = v - c;`, `v++;`, `++v;`, `v--;`, `--v;`: *name v's token, [*ca, *cb) c (empty for
 * `++`/`--`)? Only the form: what c reads is checked by the caller. */
static bool induction_form(const rw_toks *ts, size_t q, size_t e, size_t *name, size_t *ca, size_t *cb)
{
    if (e < q + 3 || !rwl_tok_is(ts, e - 1, ";"))
        return false;
    if ((rwl_tok_is(ts, q, "++") || rwl_tok_is(ts, q, "--")) && ts->t[q + 1].kind == T_IDENT && e == q + 3) {
        *name = q + 1;
        *ca = *cb = e - 1;
        return true;
    }
    if (ts->t[q].kind != T_IDENT)
        return false;
    *name = q;
    if ((rwl_tok_is(ts, q + 1, "++") || rwl_tok_is(ts, q + 1, "--")) && e == q + 3) {
        *ca = *cb = e - 1;
        return true;
    }
    if ((rwl_tok_is(ts, q + 1, "+=") || rwl_tok_is(ts, q + 1, "-=")) && e > q + 3) {
        *ca = q + 2;
        *cb = e - 1;
        return true;
    }
    if (rwl_tok_is(ts, q + 1, "=") && e > q + 5 && rwg_same_name(ts, q + 2, q) &&
        (rwl_tok_is(ts, q + 3, "+") || rwl_tok_is(ts, q + 3, "-"))) {
        *ca = q + 4;
        *cb = e - 1;
        return true;
    }
    return false;
}

/* Does the braced body of loop w hold an induction step (the form above) of a name declared
 * before the loop that the body reads elsewhere? (The window's bounds may then be the same
 * for every thread: read_body checks the rest.) */
static bool has_induction(const rw_toks *ts, const wl_for *w)
{
    size_t st[64], n;
    if (!body_statements(ts, w->body_a, w->body_b, st, HK_ARRAY_LEN(st), &n))
        return false;
    for (size_t i = 0; i < n; i++) {
        size_t e = rwl_stmt_end(ts, st[i], w->body_b - 1), v, ca, cb;
        if (!induction_form(ts, st[i], e, &v, &ca, &cb) || !is_decl_of(ts, 1, w->f, v, NULL))
            continue;
        for (size_t k = w->body_a; k < w->body_b; k++)
            if ((k < st[i] || k >= e) && rwg_is_name(ts, k, v))
                return true;
    }
    return false;
}

/* Window w at k: the enclosing block, nothing after it but closing braces. */
static bool take_window(wl_scan *s, wl_loop *L, const km_kernel *km, size_t k, const wl_for *w, size_t rb)
{
    const rw_toks *ts = s->ts;
    L->w[0] = *w;
    L->dims = 1;
    /* a second loop: the outer body is that loop alone */
    size_t ia = w->body_a, ib = w->body_b;
    if (rwl_tok_is(ts, ia, "{") && rwl_match_close(ts, ia) == ib - 1)
        ia++, ib--;
    wl_for w2;
    if (!L->uniform && rwl_tok_is(ts, ia, "for") && rwl_stmt_end(ts, ia, ib) == ib) {
        if (!for_header(ts, ia, ib, &w2) || !model_loop(s, km, ia))
            return refuse(s, ia, "inner loop", "%s", EN(RW_WL_NOT_COUNTED));
        if (span_mentions(ts, w2.a_a, w2.a_b, w->var) || span_mentions(ts, w2.b_a, w2.b_b, w->var))
            return refuse(s, ia, "inner loop", EN(RW_WL_NOT_RECTANGULAR), TOK(ts, w->var));
        L->w[1] = w2;
        L->dims = 2;
    }
    L->win_a = k;
    L->win_b = w->body_b;
    /* directly in a braced block */
    size_t pv = k - 1;
    if (!(rwl_tok_is(ts, pv, ";") || rwl_tok_is(ts, pv, "{") || rwl_tok_is(ts, pv, "}")))
        return refuse(s, k, "window loop", "%s", EN(RW_WL_NOT_BRACED));
    /* the block that holds it, and nothing after that block but closing braces */
    size_t stack[64], n = 0;
    for (size_t q = 0; q < k; q++) {
        if (rwl_tok_is(ts, q, "{")) {
            if (n == 64)
                return refuse(s, q, "block", "%s", EN(RW_WL_TOO_DEEP));
            stack[n++] = q;
        } else if (rwl_tok_is(ts, q, "}") && n)
            n--;
    }
    if (!n)
        return refuse(s, k, "window loop", "%s", EN(RW_WL_NO_BLOCK));
    L->blk_close = rwl_match_close(ts, stack[n - 1]);
    for (size_t q = L->blk_close + 1; q < rb; q++)
        if (!rwl_tok_is(ts, q, "}"))
            return refuse(s, q, EN(RW_C_STMT_AFTER_WINDOW_BLOCK), "%s",
                          EN(RW_WL_ALL_LANES_RUN));
    return true;
}

/* The window: the first loop of the output's code whose bounds are values of the thread; else
 * the first loop with the same bounds for every thread that steps induction state (`x +=
 * x_stride` read by its body: a walk along a line whose start the thread computed). */
static bool find_window(wl_scan *s, wl_loop *L, const km_kernel *km)
{
    const rw_toks *ts = s->ts;
    size_t ra = L->gs ? L->qbody_a + 1 : L->decl_b, rb = L->gs ? L->qbody_b - 1 : ts->n - 1;
    size_t uniform = 0, stepped = 0;
    wl_for ws = {0};
    for (size_t k = ra; k < rb; k++) {
        if (!rwl_tok_is(ts, k, "for") || rwg_in_inner_construct(ts, ra, rb, k))
            continue;
        wl_for w;
        const km_loop *ml = model_loop(s, km, k);
        if (!for_header(ts, k, rb, &w) || !ml)
            return refuse(s, k, "loop", "%s", EN(RW_WL_NOT_WINDOW_LOOP));
        if (!per_thread(km, ml)) {
            if (!uniform)
                uniform = k;
            if (!stepped && has_induction(ts, &w)) {
                stepped = k;
                ws = w;
            }
            k = w.body_b - 1;
            continue;
        }
        return take_window(s, L, km, k, &w, rb);
    }
    if (stepped) {
        L->uniform = true;
        return take_window(s, L, km, stepped, &ws, rb);
    }
    if (uniform)
        return refuse(s, uniform, "loop", "%s", EN(RW_WL_UNIFORM));
    return refuse(s, ra, "output body", "%s", EN(RW_WL_NO_WINDOW));
}

/* A compare-select at the `if` q of the window's body: true and *g filled, false with no
 * refusal when it is not one (or with a refusal in s->why). */
static bool read_select(wl_scan *s, const wl_loop *L, size_t q, size_t end, wl_select *g)
{
    const rw_toks *ts = s->ts;
    size_t c = rwl_match_close(ts, q + 1);
    if (c >= end)
        return false;
    size_t op = 0, nop = 0;
    for (size_t k = q + 2; k < c; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[")) {
            k = rwl_match_close(ts, k);
            continue;
        }
        if (rwl_tok_is(ts, k, "&&") || rwl_tok_is(ts, k, "||") || rwl_tok_is(ts, k, "?"))
            return false;
        if (rwl_tok_is(ts, k, ">") || rwl_tok_is(ts, k, "<") || rwl_tok_is(ts, k, ">=") ||
            rwl_tok_is(ts, k, "<=") || rwl_tok_is(ts, k, "==") || rwl_tok_is(ts, k, "!="))
            op = k, nop++;
    }
    if (nop != 1)
        return false;
    size_t ea, eb, m;
    bool m_left;
    bool left = op == q + 3 && ts->t[q + 2].kind == T_IDENT && !is_decl_of(ts, L->win_a, L->win_b, q + 2, NULL);
    bool right = op + 2 == c && ts->t[op + 1].kind == T_IDENT && !is_decl_of(ts, L->win_a, L->win_b, op + 1, NULL);
    if (left && right) {
        /* both sides names from before the window (`if (val > maxval)`, val a trip's
         * temporary declared earlier): M is the one the branch assigns the other */
        size_t ce = rwl_stmt_end(ts, c + 1, end);
        for (size_t k = c + 1; k + 2 < ce; k++)
            if (rwg_same_name(ts, k, op + 1) && rwl_tok_is(ts, k + 1, "=") && rwg_same_name(ts, k + 2, q + 2) &&
                rwl_tok_is(ts, k + 3, ";"))
                left = false;
    }
    if (left)
        m = q + 2, m_left = true, ea = op + 1, eb = c;
    else if (right)
        m = op + 1, m_left = false, ea = q + 2, eb = op;
    else
        return false;
    if (rwl_tok_is(ts, op, ">=") || rwl_tok_is(ts, op, "<=") || rwl_tok_is(ts, op, "==") ||
        rwl_tok_is(ts, op, "!="))
        return refuse(s, op, "compare", EN(RW_WL_NOT_STRICT), TOK(ts, op), TOK(ts, m));
    bool gt = rwl_tok_is(ts, op, ">");
    g->greater = m_left ? !gt : gt;
    g->iff = q;
    g->m = m;
    g->cons_a = c + 1;
    g->cons_b = rwl_stmt_end(ts, c + 1, end);
    if (g->cons_b < end && rwl_tok_is(ts, g->cons_b, "else"))
        return refuse(s, g->cons_b, "else", EN(RW_WL_ELSE),
                      rwl_line_at(s->text, ts->t[q].start));
    size_t a = g->cons_a, b = g->cons_b;
    if (rwl_tok_is(ts, a, "{")) {
        if (rwl_match_close(ts, a) != b - 1)
            return false;
        a++, b--;
    }
    g->n_sets = 0;
    bool got_m = false;
    for (size_t k = a; k < b;) {
        size_t e = rwl_stmt_end(ts, k, b);
        if (!(ts->t[k].kind == T_IDENT && rwl_tok_is(ts, k + 1, "=") && e > k + 3 && rwl_tok_is(ts, e - 1, ";")))
            return refuse(s, k, "compare-select", "%s", EN(RW_WL_BRANCH_MORE));
        if (is_decl_of(ts, L->win_a, L->win_b, k, NULL))
            return refuse(s, k, "compare-select", EN(RW_WL_DECLARED_IN), TOK(ts, k));
        for (size_t i = 0; i < g->n_sets; i++)
            if (rwg_same_name(ts, g->sets[i], k))
                return refuse(s, k, "compare-select", EN(RW_WL_ASSIGNED_TWICE), TOK(ts, k));
        if (g->n_sets == WL_SETS)
            return refuse(s, k, "compare-select", EN(RW_WL_TOO_MANY_NAMES), WL_SETS);
        if (rwg_same_name(ts, k, m)) {
            if (!same_span(ts, k + 2, e - 1, ea, eb))
                return refuse(s, k, "compare-select", EN(RW_WL_OTHER_VALUE),
                              TOK(ts, m));
            got_m = true;
        }
        g->sets[g->n_sets++] = k;
        k = e;
    }
    if (!got_m)
        return refuse(s, q, "compare-select", EN(RW_WL_NOT_ASSIGNED), TOK(ts, m));
    /* E and the other values read none of the state */
    for (size_t i = 0; i < g->n_sets; i++) {
        if (span_mentions(ts, ea, eb, g->sets[i]))
            return refuse(s, ea, "compare-select", EN(RW_WL_COMPARED_READS), TOK(ts, g->sets[i]));
        size_t e = rwl_stmt_end(ts, g->sets[i], b);
        for (size_t j = 0; j < g->n_sets; j++)
            if (span_mentions(ts, g->sets[i] + 2, e, g->sets[j]))
                return refuse(s, g->sets[i], "compare-select", EN(RW_WL_ASSIGNED_READS),
                              TOK(ts, g->sets[i]), TOK(ts, g->sets[j]));
    }
    return true;
}

static bool in_select(const wl_loop *L, size_t k, size_t *which)
{
    for (size_t i = 0; i < L->n_sel; i++)
        if (k >= L->sel[i].iff && k < L->sel[i].cons_b) {
            *which = i;
            return true;
        }
    return false;
}

/* A literal zero (`0`, `0.0f`, `0.`) at k, followed by `,` or `;`. */
static bool literal_zero(const rw_toks *ts, size_t k)
{
    if (ts->t[k].kind != T_NUMBER || !(rwl_tok_is(ts, k + 1, ";") || rwl_tok_is(ts, k + 1, ",")))
        return false;
    char buf[32];
    snprintf(buf, sizeof buf, "%.*s", TOK(ts, k));
    size_t l = strlen(buf);
    while (l && (buf[l - 1] == 'f' || buf[l - 1] == 'F' || buf[l - 1] == 'u' || buf[l - 1] == 'U' ||
                 buf[l - 1] == 'l' || buf[l - 1] == 'L'))
        buf[--l] = '\0';
    char *e;
    double v = strtod(buf, &e);
    return l && *e == '\0' && v == 0.0;
}

/* Is the sum update at k a whole statement (`S += E;`, `S++;`, `++S;`), not a value inside
 * an expression (`a[S++]`, `x = (S += 1)`)? */
static bool stmt_start(const rw_toks *ts, size_t k)
{
    return rwl_tok_is(ts, k, ";") || rwl_tok_is(ts, k, "{") || rwl_tok_is(ts, k, "}") || rwl_tok_is(ts, k, ")") ||
           rwl_tok_is(ts, k, "else");
}

static bool sum_statement(const rw_toks *ts, size_t k)
{
    if (rwl_tok_is(ts, k - 1, "++"))
        return stmt_start(ts, k - 2) && rwl_tok_is(ts, k + 1, ";");
    if (rwl_tok_is(ts, k + 1, "++"))
        return stmt_start(ts, k - 1) && rwl_tok_is(ts, k + 2, ";");
    return stmt_start(ts, k - 1);
}

static bool in_induction(const wl_loop *L, size_t k)
{
    for (size_t i = 0; i < L->n_ind; i++)
        if (k >= L->ind_a[i] && k < L->ind_b[i])
            return true;
    return false;
}

/* Is q a declarator (declared_here), also of an rvalue reference (`T &&q`, which
 * rwl_declared_here does not step over)? */
static bool declarator_at(const rw_toks *ts, size_t q)
{
    return declared_here(ts, q) || (q >= 3 && rwl_tok_is(ts, q - 1, "&&") && rwl_declared_here(ts, q - 1));
}

/* Is q the name of a reference declaration with an initializer (`T &q = e`, `T &q{e}`,
 * `T &q(e)`, `T &&q = e`, also of a type the lexer does not know: `vec<T> &q`, `ns::T &q`)?
 * The initializer's tokens are [q + 1, *end). */
static bool reference_init(const rw_toks *ts, size_t q, size_t *end)
{
    if (q < 3 || q + 1 >= ts->n || ts->t[q].kind != T_IDENT || rwg_is_kw(ts, q) ||
        !(rwl_tok_is(ts, q - 1, "&") || rwl_tok_is(ts, q - 1, "&&")) ||
        !(rwl_tok_is(ts, q + 1, "=") || rwl_tok_is(ts, q + 1, "{") || rwl_tok_is(ts, q + 1, "(")))
        return false;
    if (!declarator_at(ts, q) && !rwl_tok_is(ts, q - 2, ">") &&
        !(ts->t[q - 2].kind == T_IDENT && rwl_tok_is(ts, q - 3, "::")))
        return false;
    size_t k = q + 1;
    for (int depth = 0; k + 1 < ts->n; k++) {
        depth += rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "{");
        depth -= rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]") || rwl_tok_is(ts, k, "}");
        if (depth < 0 || (depth == 0 && (rwl_tok_is(ts, k, ",") || rwl_tok_is(ts, k, ";"))))
            break;
    }
    *end = k;
    return true;
}

/* A macro of the file named by token k whose replacement text assigns (`=`, `+=`, ...,
 * `++`, `--`) or jumps (`return`, `goto`, `break`, `continue`, `asm`), or, with v (a name token, or SIZE_MAX for none), names v other than as a
 * member (`x` in `float &r = x`, not in `blockIdx.x`): what the window's scans of names
 * cannot see (session 46). */
static bool macro_hides(const wl_scan *s, size_t k, size_t v)
{
    const rw_toks *ts = s->ts;
    size_t nl = ts->t[k].end - ts->t[k].start, at = 0, a, b;
    bool hides = false;
    while (!hides && rwl_next_define(s->text, s->len, &at, ts->text + ts->t[k].start, nl, &a, &b)) {
        rw_toks mt = {0};
        if (rwl_lex(s->text, (uint32_t)(a + nl), (uint32_t)b, &mt) != HK_OK) {
            rwl_toks_free(&mt);
            return true;
        }
        for (size_t q = 0; q < mt.n && !hides; q++) {
            if (v == SIZE_MAX)
                hides = (rwl_tok_is_assign_op(&mt, q) && !rwl_tok_is(&mt, q, "==")) || rwl_tok_is(&mt, q, "++") ||
                        rwl_tok_is(&mt, q, "--") || rwl_tok_is(&mt, q, "return") || rwl_tok_is(&mt, q, "goto") ||
                        rwl_tok_is(&mt, q, "break") || rwl_tok_is(&mt, q, "continue") || rwl_tok_is(&mt, q, "asm");
            else
                hides = mt.t[q].kind == T_IDENT && mt.t[q].end - mt.t[q].start == ts->t[v].end - ts->t[v].start &&
                        !memcmp(s->text + mt.t[q].start, ts->text + ts->t[v].start, ts->t[v].end - ts->t[v].start) &&
                        !(q > 0 && (rwl_tok_is(&mt, q - 1, ".") || rwl_tok_is(&mt, q - 1, "->")));
        }
        rwl_toks_free(&mt);
    }
    return hides;
}

/* Does the declaration of the declarator at q give it a plain value type: declared without
 * `*`, `&` or `&&`, its type words the language's scalars and vectors, cv-qualifiers, `auto`
 * (a copy) or a template type parameter the kernel also takes a pointer to (`T *in`: T cannot
 * be a reference)? A type alias (`using R = float &`, `typedef int &IR`), a structure (one
 * with a reference member, `RefBox box{x}`), `decltype((x))` or a class template may hold a
 * reference. */
static bool plain_value_decl(const wl_scan *s, size_t q)
{
    static const char *const words[] = {"float", "double", "bool", "char", "half", "__half", "__nv_bfloat16",
                                        "float1", "float2", "float3", "float4", "int1", "int2", "int3", "int4",
                                        "uint2", "uint4", "double2", "const", "volatile", "register"};
    const rw_toks *ts = s->ts;
    if (rwl_tok_is(ts, q - 1, "*") || rwl_tok_is(ts, q - 1, "&") || rwl_tok_is(ts, q - 1, "&&"))
        return false;
    /* the statement's start: back over balanced brackets to `;`, `{` or `}` (or a for's `(`) */
    size_t st = q;
    for (int depth = 0; st > 1; st--) {
        size_t p = st - 1;
        depth += rwl_tok_is(ts, p, ")") || rwl_tok_is(ts, p, "]") || rwl_tok_is(ts, p, "}");
        depth -= rwl_tok_is(ts, p, "(") || rwl_tok_is(ts, p, "[") || rwl_tok_is(ts, p, "{");
        if (depth < 0 || (depth == 0 && rwl_tok_is(ts, p, ";")))
            break;
    }
    for (size_t k = st; k < q; k++) {
        if (declarator_at(ts, k))
            break;   /* the type words end at the first declarator */
        if (rwl_tok_is(ts, k, "*") || rwl_tok_is(ts, k, "&") || rwl_tok_is(ts, k, "&&"))
            continue;   /* the first declarator's own (`T *p, x`) */
        if (ts->t[k].kind != T_IDENT)
            return false;   /* `*`, `&`, `<`, `::`, `(` of a type the words do not spell */
        bool ok = rwl_is_type_word(ts, k);
        for (size_t i = 0; i < HK_ARRAY_LEN(words) && !ok; i++)
            ok = rwl_tok_is_ident(ts, k, words[i]);
        for (size_t i = 0; !ok && s->f && i < s->f->n_params; i++)
            ok = s->f->params[i].pointer_depth >= 1 && s->f->params[i].elem_type &&
                 rwl_tok_is_ident(ts, k, s->f->params[i].elem_type) &&
                 rwl_template_type_param(s->f->template_params, ts, k);
        if (!ok)
            return false;
    }
    return true;
}

/* Is the stepped name v the thread's own and reached only by its name? Each lane keeps its
 * trip's values in a copy the body reads under v's name, and runs every trip's steps on v
 * itself: declared static, __shared__, extern, __device__ or __constant__, v is one variable
 * that many threads step; its address taken (`&v`), a reference bound to it (any reference
 * declaration whose initializer mentions v: `T &r = v`, `T &r{v}`, `T &r(v)`,
 * `T &r = c ? v : w`) or v a reference, the body may read it under another name, which holds
 * the round's last step and not the lane's trip. Every declaration of v in the kernel is
 * checked, and v declared more than once (one shadowing another, or a parameter) is refused:
 * which variable a mention of v reads is a question of scope the checks do not answer.
 * (Passed to a function that takes it by reference: that is no reader call, refused before
 * the window and in it as a call that may write.) */
static bool stepped_own(wl_scan *s, size_t v)
{
    const rw_toks *ts = s->ts;
    static const char *const shared_kw[] = {"static", "__shared__", "extern", "__device__", "__constant__"};
    size_t decls = 0;
    for (size_t i = 0; s->f && i < s->f->n_params; i++) {
        const char *p = s->f->params[i].name;
        decls += p && strlen(p) == ts->t[v].end - ts->t[v].start &&
                 !memcmp(p, ts->text + ts->t[v].start, strlen(p));
    }
    for (size_t d = 1; d + 1 < ts->n; d++) {
        if (!rwg_same_name(ts, d, v) || !declarator_at(ts, d))
            continue;
        if (rwl_tok_is(ts, d - 1, "&") || rwl_tok_is(ts, d - 1, "&&"))   /* a reference itself */
            return refuse(s, d - 1, "induction", EN(RW_WL_STEP_ADDRESS), TOK(ts, v));
        for (size_t q = d; q-- > 1;) {
            if (rwl_tok_is(ts, q, ";") || rwl_tok_is(ts, q, "{") || rwl_tok_is(ts, q, "}"))
                break;
            for (size_t i = 0; i < HK_ARRAY_LEN(shared_kw); i++)
                if (rwl_tok_is(ts, q, shared_kw[i]))
                    return refuse(s, q, "induction", EN(RW_WL_STEP_SHARED), TOK(ts, v), TOK(ts, q));
        }
        if (++decls > 1)
            return refuse(s, d, "induction", EN(RW_WL_STEP_SHADOWED), TOK(ts, v));
        if (!plain_value_decl(s, d))   /* a reference through a type alias (session 46) */
            return refuse(s, d, "induction", EN(RW_WL_STEP_ADDRESS), TOK(ts, v));
    }
    for (size_t k = 1; k + 1 < ts->n; k++) {
        size_t e;
        if (rwg_is_name(ts, k, v) && rwl_tok_is(ts, k - 1, "&") && rwl_unary_position(ts, k - 1))
            return refuse(s, k - 1, "induction", EN(RW_WL_STEP_ADDRESS), TOK(ts, v));
        if (k >= 4 && rwg_is_name(ts, k, v) && rwl_tok_is(ts, k - 1, "=") && ts->t[k - 2].kind == T_IDENT &&
            (rwl_tok_is(ts, k - 3, "&") || rwl_tok_is(ts, k - 3, "&&")))
            return refuse(s, k - 3, "induction", EN(RW_WL_STEP_ADDRESS), TOK(ts, v));
        if (reference_init(ts, k, &e) && span_mentions(ts, k + 1, e, v))
            return refuse(s, k - 1, "induction", EN(RW_WL_STEP_ADDRESS), TOK(ts, v));
    }
    /* a macro of the file whose text names v (`#define AHEAD const float &ahead = x`): its
     * uses bind or read v where no scan of the kernel's names looks (session 46) */
    for (size_t k = 1; k + 1 < ts->n; k++)
        if (ts->t[k].kind == T_IDENT && rwl_is_use(ts, k) && !rwg_same_name(ts, k, v) && macro_hides(s, k, v))
            return refuse(s, k, "induction", EN(RW_WL_STEP_MACRO), TOK(ts, v), TOK(ts, k));
    /* any other declaration initialized from v must copy its value (session 46): through a
     * type alias, a structure's reference member, decltype or a lambda capturing it, v has
     * another name still */
    for (size_t k = 1; k + 1 < ts->n; k++) {
        if (ts->t[k].kind != T_IDENT || rwg_is_kw(ts, k) || !declarator_at(ts, k) ||
            !(rwl_tok_is(ts, k + 1, "=") || rwl_tok_is(ts, k + 1, "{") || rwl_tok_is(ts, k + 1, "(")))
            continue;
        size_t e = k + 1;
        bool lambda = false;
        for (int depth = 0; e + 1 < ts->n; e++) {
            depth += rwl_tok_is(ts, e, "(") || rwl_tok_is(ts, e, "[") || rwl_tok_is(ts, e, "{");
            depth -= rwl_tok_is(ts, e, ")") || rwl_tok_is(ts, e, "]") || rwl_tok_is(ts, e, "}");
            if (depth < 0 || (depth == 0 && (rwl_tok_is(ts, e, ",") || rwl_tok_is(ts, e, ";"))))
                break;
            lambda |= rwl_tok_is(ts, e, "]") && (rwl_tok_is(ts, e + 1, "(") || rwl_tok_is(ts, e + 1, "{"));
        }
        if (span_mentions(ts, k + 1, e, v) && (lambda || !plain_value_decl(s, k)))
            return refuse(s, k, "induction", EN(RW_WL_STEP_BOUND), TOK(ts, v), TOK(ts, k));
    }
    return true;
}

/* The 1-D window's induction steps (induction_form at the body's top level, of a name declared
 * before the window and read by the body elsewhere): each must be the name's only write in the
 * window, its step c must read nothing the window changes (no name written or declared in it,
 * not the counter, no call: the same c on every trip), and the steps must lead or trail the
 * body's other statements (each lane runs every trip's steps in order, the others on its own
 * trips only). A `continue` among the others would skip a trailing step on some trips only. */
static bool read_inductions(wl_scan *s, wl_loop *L)
{
    const rw_toks *ts = s->ts;
    const wl_for *w = &L->w[0];
    size_t st[64], n;
    L->n_ind = L->n_lead = 0;
    if (L->dims != 1 || !body_statements(ts, w->body_a, w->body_b, st, HK_ARRAY_LEN(st), &n))
        return true;
    bool is_ind[64] = {false};
    for (size_t i = 0; i < n; i++) {
        size_t e = rwl_stmt_end(ts, st[i], w->body_b - 1), v, ca, cb;
        if (!induction_form(ts, st[i], e, &v, &ca, &cb) || !is_decl_of(ts, 1, L->win_a, v, NULL))
            continue;
        bool read = false;
        for (size_t k = w->body_a; k < w->body_b; k++)
            if ((k < st[i] || k >= e) && rwg_is_name(ts, k, v)) {
                if (rwl_scalar_written(ts, k))
                    return refuse(s, k, "induction", EN(RW_WL_CARRIED), TOK(ts, v));
                read = true;
            }
        if (!read)
            continue;   /* not read in the window: a sum's form (`n += 1`), read_body's case */
        for (int d = 0; d < L->dims; d++)   /* the bound is read once for all lanes' trips */
            for (size_t k = L->w[d].b_a; k < L->w[d].b_b; k++)
                if (rwg_is_name(ts, k, v))
                    return refuse(s, k, "induction", EN(RW_WL_CARRIED), TOK(ts, v));   /* into the trip count */
        if (!stepped_own(s, v))
            return false;
        for (size_t k = ca; k < cb; k++) {
            if (ts->t[k].kind != T_IDENT)
                continue;
            bool varies = rwg_is_name(ts, k, w->var) || (rwl_tok_is(ts, k + 1, "(") && !rwg_is_kw(ts, k)) ||
                          is_decl_of(ts, w->body_a, w->body_b, k, NULL);
            for (size_t q = w->body_a; q < w->body_b && !varies; q++)
                varies = rwg_is_name(ts, q, k) && rwl_scalar_written(ts, q);
            if (varies)
                return refuse(s, k, "induction", EN(RW_WL_STEP_CHANGES), TOK(ts, v), TOK(ts, k));
        }
        if (L->n_ind == WL_ACC)
            return refuse(s, st[i], "induction", EN(RW_WL_TOO_MANY_STEPS), WL_ACC);
        L->ind_a[L->n_ind] = st[i];
        L->ind_b[L->n_ind] = e;
        L->ind_name[L->n_ind++] = v;
        is_ind[i] = true;
    }
    if (!L->n_ind)
        return true;
    size_t f = 0, l = n;
    while (f < n && is_ind[f])
        f++;
    while (l > f && is_ind[l - 1])
        l--;
    for (size_t i = f; i < l; i++)   /* the first step between them is the f-th (the f before it lead) */
        if (is_ind[i])
            return refuse(s, st[i], "induction", EN(RW_WL_STEP_BETWEEN), TOK(ts, L->ind_name[f]));
    L->n_lead = f;
    L->mid_a = f < n ? st[f] : w->body_b - 1;
    L->mid_b = l > f ? rwl_stmt_end(ts, st[l - 1], w->body_b - 1) : L->mid_a;
    if (l < n)
        for (size_t k = L->mid_a; k < L->mid_b; k++)
            if (rwl_tok_is(ts, k, "continue") && !rwg_in_inner_construct(ts, L->mid_a, L->mid_b, k))
                return refuse(s, k, "jump", EN(RW_WL_CONTINUE_STEP), TOK(ts, L->ind_name[L->n_ind - 1]));
    return true;
}

/* Is the write at k of a name declared in the output's code before the window a trip's
 * temporary: the name's first use in the window is a top-level statement `name = E;` of its
 * body (E not reading it), so every trip sets it before reading it, and nothing after the
 * window in the output's code reads it (a lane's last trip is not the original's)? */
static bool trip_temporary(const wl_scan *s, const wl_loop *L, size_t k)
{
    const rw_toks *ts = s->ts;
    const wl_for *in = &L->w[L->dims - 1];
    size_t ra = L->gs ? L->qbody_a + 1 : L->decl_b, rb = L->gs ? L->qbody_b - 1 : ts->n - 1;
    if (!is_decl_of(ts, ra, L->win_a, k, NULL) || is_decl_of(ts, L->win_a, L->win_b, k, NULL))
        return false;
    size_t first = in->body_b;
    for (size_t q = in->body_a; q < in->body_b && first == in->body_b; q++)
        if (rwg_is_name(ts, q, k))
            first = q;
    size_t st[64], n;
    if (!body_statements(ts, in->body_a, in->body_b, st, HK_ARRAY_LEN(st), &n))
        return false;
    bool top = false;
    for (size_t i = 0; i < n; i++)
        top |= st[i] == first;
    if (!top || !rwl_tok_is(ts, first + 1, "="))
        return false;
    size_t e = rwl_stmt_end(ts, first, in->body_b - 1);
    if (span_mentions(ts, first + 2, e, k))
        return false;
    return !span_mentions(ts, L->win_b, rb, k);
}

static bool read_body(wl_scan *s, wl_loop *L, const km_kernel *km)
{
    const rw_toks *ts = s->ts;
    const wl_for *in = &L->w[L->dims - 1];
    size_t ba = in->body_a, bb = in->body_b;
    if (!stores(s, ba, bb, EN(RW_WL_IN_WINDOW)))
        return false;
    /* a macro that writes (`#define STEP x += 0.5f`): the names it writes are none of the
     * window's state, sums or steps as the scans below read them (session 46) */
    for (size_t k = ba; k < bb; k++)
        if (ts->t[k].kind == T_IDENT && rwl_is_use(ts, k) && macro_hides(s, k, SIZE_MAX))
            return refuse(s, k, "macro", EN(RW_WL_MACRO_WRITES), TOK(ts, k));
    for (size_t k = ba; k < bb; k++)
        if (rwl_tok_is(ts, k, "return") || rwl_tok_is(ts, k, "goto") ||
            (rwl_tok_is(ts, k, "break") && !rwg_in_inner_construct(ts, ba, bb, k)))
            return refuse(s, k, "jump", EN(RW_WL_JUMP),
                          TOK(ts, k));
    /* the compare-selects */
    for (size_t k = ba; k < bb; k++) {
        if (!rwl_tok_is(ts, k, "if"))
            continue;
        wl_select g;
        if (read_select(s, L, k, bb, &g)) {
            if (L->n_sel == WL_ACC)
                return refuse(s, k, "compare-select", EN(RW_WL_TOO_MANY_SELECTS), WL_ACC);
            L->sel[L->n_sel++] = g;
            k = g.cons_b - 1;
        } else if (s->why[0])
            return false;
    }
    if (!read_inductions(s, L))
        return false;
    if (L->uniform && !L->n_ind)
        return refuse(s, L->win_a, "loop", "%s", EN(RW_WL_UNIFORM));
    /* every name written in the window: its own locals, the selects' state, a sum, an
     * induction step or a trip's temporary */
    for (size_t k = ba; k < bb; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k) || !rwl_scalar_written(ts, k) || in_induction(L, k))
            continue;
        size_t d;
        if (is_decl_of(ts, L->win_a, L->win_b, k, &d)) {
            for (int i = 0; i < L->dims; i++)
                if (rwg_same_name(ts, k, L->w[i].var))
                    return refuse(s, k, "window counter", EN(RW_WL_COUNTER_WRITTEN), TOK(ts, k));
            continue;
        }
        size_t w;
        if (in_select(L, k, &w)) {
            bool ok = false;
            for (size_t i = 0; i < L->sel[w].n_sets; i++)
                ok |= L->sel[w].sets[i] == k;
            if (ok)
                continue;
        }
        bool sum = (rwl_tok_is(ts, k + 1, "+=") || rwl_tok_is(ts, k + 1, "++") || rwl_tok_is(ts, k - 1, "++")) &&
                   !in_select(L, k, &w);
        if (sum && !sum_statement(ts, k))
            return refuse(s, k, "sum", EN(RW_WL_SUM_IN_EXPR), TOK(ts, k));
        if (!sum && trip_temporary(s, L, k))
            continue;
        if (!sum) {
            for (size_t q = ba; q < bb; q++)   /* read on another trip than the one writing it */
                if (q != k && rwg_is_name(ts, q, k) && !rwl_scalar_written(ts, q))
                    return refuse(s, k, "state", EN(RW_WL_CARRIED), TOK(ts, k));
            return refuse(s, k, "state", EN(RW_WL_OTHER_WRITE), TOK(ts, k));
        }
        bool seen = false;
        for (size_t i = 0; i < L->n_sums; i++)
            seen |= rwg_same_name(ts, L->sums[i], k);
        if (!seen) {
            if (L->n_sums == WL_ACC)
                return refuse(s, k, "sum", EN(RW_WL_TOO_MANY_SUMS), WL_ACC);
            L->sums[L->n_sums++] = k;
        }
    }
    if (!L->n_sums && !L->n_sel)
        return refuse(s, L->win_a, "window loop", "%s", EN(RW_WL_NOTHING_REDUCED));
    /* each state name is used in the window only where its update is */
    for (size_t k = ba; k < bb; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
            continue;
        for (size_t i = 0; i < L->n_sums; i++)
            if (rwg_same_name(ts, k, L->sums[i])) {
                bool upd = rwl_tok_is(ts, k + 1, "++") || rwl_tok_is(ts, k - 1, "++") ||
                           (rwl_tok_is(ts, k + 1, "+=") && rwl_scalar_written(ts, k));
                if (!upd)
                    return refuse(s, k, "sum", EN(RW_WL_SUM_READ), TOK(ts, k));
                for (size_t j = 0; j < L->n_sel; j++)
                    for (size_t z = 0; z < L->sel[j].n_sets; z++)
                        if (rwg_same_name(ts, k, L->sel[j].sets[z]))
                            return refuse(s, k, "sum", EN(RW_WL_SUMMED_SELECTED), TOK(ts, k));
            }
        for (size_t j = 0; j < L->n_sel; j++)
            for (size_t z = 0; z < L->sel[j].n_sets; z++)
                if (rwg_same_name(ts, k, L->sel[j].sets[z]) && k != L->sel[j].sets[z] && k != L->sel[j].m)
                    return refuse(s, k, "state", EN(RW_WL_USED_OUTSIDE),
                                  TOK(ts, k));
    }
    /* a sum starts from a literal zero, declared before the window and not changed there */
    int win_line = rwl_line_at(s->text, ts->t[L->win_a].start);
    int end_line = rwl_line_at(s->text, ts->t[L->win_b - 1].start);
    size_t na;
    const km_accumulator *acc = km_accumulators(km, &na);
    for (size_t i = 0; i < L->n_sums; i++) {
        size_t d;
        if (!is_decl_of(ts, 1, L->win_a, L->sums[i], &d))
            return refuse(s, L->sums[i], "sum", EN(RW_WL_NOT_LOCAL),
                          TOK(ts, L->sums[i]));
        if (!rwl_tok_is(ts, d + 1, "=") || !literal_zero(ts, d + 2))
            return refuse(s, d, "sum", EN(RW_WL_NOT_ZERO),
                          TOK(ts, d));
        for (size_t k = d + 1; k < L->win_a; k++)
            if (rwg_is_name(ts, k, d) && rwl_scalar_written(ts, k))
                return refuse(s, k, "sum", EN(RW_WL_CHANGED_BEFORE), TOK(ts, k));
        /* a sum in the model: its updates inside the window are sums; what the code after the
         * window does with it (`S /= count`, `S * scale`) runs on the merged value */
        bool model_sum = false;
        char nm[64];
        snprintf(nm, sizeof nm, "%.*s", TOK(ts, d));
        for (size_t a = 0; a < na; a++)
            if (acc[a].name && !strcmp(acc[a].name, nm)) {
                size_t nu, n_in = 0, sums = 0;
                const km_acc_update *u = km_acc_updates(km, &nu);
                for (size_t j = 0; j < nu; j++)
                    if (u[j].acc == a && (int)u[j].line >= win_line && (int)u[j].line <= end_line) {
                        n_in++;
                        sums += u[j].op == KM_OP_SUM;
                    }
                model_sum |= acc[a].op == KM_OP_SUM || (n_in && sums == n_in);
            }
        if (!model_sum)
            return refuse(s, d, "sum", EN(RW_WL_NOT_MODEL_SUM), nm);
    }
    for (size_t j = 0; j < L->n_sel; j++)
        for (size_t z = 0; z < L->sel[j].n_sets; z++)
            if (!is_decl_of(ts, 1, L->win_a, L->sel[j].sets[z], NULL))
                return refuse(s, L->sel[j].sets[z], "state", EN(RW_WL_NOT_LOCAL),
                              TOK(ts, L->sel[j].sets[z]));
    /* the code before the window (in the region) writes no memory */
    size_t ra = L->gs ? L->qbody_a + 1 : L->decl_b;
    return stores(s, ra, L->win_a, EN(RW_WL_BEFORE_WINDOW));
}

/* One reduced state of a description's list at dst (room bytes): ", " after the first (at > 0),
 * then fmt (an entry with one `%.*s`) with the name; what snprintf would write, as the list's
 * single snprintf did. */
static size_t states_add(char *dst, size_t room, size_t at, const char *fmt, int len, const char *name)
{
    char one[160];
    snprintf(one, sizeof one, fmt, len, name);
    return (size_t)snprintf(dst, room, "%s%s", at ? ", " : "", one);
}

/* ---- the text ---- */

/* ---- when the lanes pay (the spec's sizes, the device) ---- */

/* The value of C expression text at the spec's first size, the kernel's scalar parameters
 * set from the spec's values: false when something in it has none. */
static bool eval_at_spec(const wl_scan *s, const rw_context *ctx, const char *text, long long *out)
{
    const struct spec *sp = ctx->spec;
    expr *e = NULL;
    if (!sp || !sp->n_sizes || expr_parse(text, &e, NULL, 0) != HK_OK)
        return false;
    expr_var vars[64];
    size_t nv = 0;
    for (size_t i = 0; i < s->f->n_params && i < sp->n_args && nv < HK_ARRAY_LEN(vars); i++) {
        const spec_arg *sa = &sp->args[i];
        expr_value v;
        if (sa->kind != HK_ARG_SCALAR || !sa->value || !s->f->params[i].name ||
            spec_eval(sp, sa->value, 0, ctx->sm_count, &v, NULL, 0) != HK_OK || v.is_float)
            continue;
        vars[nv].name = s->f->params[i].name;
        vars[nv++].value = v;
    }
    expr_value v;
    bool ok = expr_eval(e, vars, nv, &v, NULL, 0) == HK_OK && !v.is_float;
    expr_free(e);
    if (ok)
        *out = v.i;
    return ok;
}

/* The threads the spec launches along x at its first size, or -1. */
static long long spec_threads_x(const rw_context *ctx)
{
    const struct spec *sp = ctx->spec;
    expr_value g, b;
    if (!sp || !sp->n_sizes || !sp->grid[0] || !sp->block[0] ||
        spec_eval(sp, sp->grid[0], 0, ctx->sm_count, &g, NULL, 0) != HK_OK || g.is_float || g.i < 1 ||
        spec_eval(sp, sp->block[0], 0, ctx->sm_count, &b, NULL, 0) != HK_OK || b.is_float || b.i < 1)
        return -1;
    return g.i * b.i;
}

/* The outputs at the spec's first size on a known device: the grid-stride loop's bound
 * evaluated with the spec's scalars (*bound, the bound shown in `shown`, a macro's `(n)` as
 * `n`), else the threads the spec launches along x (`shown` empty). False when nothing is known
 * (no spec, no device, a bound with no value): the rules below then let the rewrite apply. */
static bool outputs_at_spec(wl_scan *s, const wl_loop *L, const rw_context *ctx, long long *n,
                            char *shown, size_t shown_len, bool *bound, long long *yz)
{
    *yz = 1;
    if (!ctx->spec || ctx->sm_count <= 0 || ctx->warps_per_sm <= 0)
        return false;
    *n = -1;
    shown[0] = '\0';
    *bound = L->gs && L->qh.bound[0] && eval_at_spec(s, ctx, L->qh.bound, n) && *n > 0;
    if (*bound) {
        size_t l = strlen(L->qh.bound), depth = 0, k = 0;
        if (l > 2 && L->qh.bound[0] == '(' && L->qh.bound[l - 1] == ')')
            for (k = 0; k < l; k++) {
                depth += L->qh.bound[k] == '(';
                depth -= L->qh.bound[k] == ')';
                if (!depth)
                    break;
            }
        if (l > 2 && k == l - 1)
            snprintf(shown, shown_len, "%.*s", (int)(l - 2), L->qh.bound + 1);
        else
            snprintf(shown, shown_len, "%s", L->qh.bound);
    } else
        *n = spec_threads_x(ctx);
    /* the launch's other axes (a grid over channels and boxes in y and z, rows of a 2-D block):
     * each of their threads serves outputs of its own */
    for (int d = 1; d < 3 && *n > 0; d++) {
        const struct spec *sp = ctx->spec;
        expr_value g = {0}, b = {0};
        if (sp->grid[d] && sp->block[d] &&
            spec_eval(sp, sp->grid[d], 0, ctx->sm_count, &g, NULL, 0) == HK_OK && !g.is_float && g.i > 0 &&
            spec_eval(sp, sp->block[d], 0, ctx->sm_count, &b, NULL, 0) == HK_OK && !b.is_float && b.i > 0)
            *yz *= g.i * b.i;
    }
    *n *= *yz;
    return *n > 0;
}

/* Do the lanes pay on this device at the spec's sizes? The G lanes of an output each run
 * the output's code before the window (its index arithmetic, its loads, the window's
 * bounds: P instructions) and log2(G) merge steps; all they save is the window's serial
 * chain (W elements), which they split G ways. Per output the issue goes from P + W to
 * G (P + merge) + W: the rewrite adds work, and gains only where that work runs on threads
 * that would otherwise idle. When the n outputs' G lanes fit the device's resident threads
 * (n x G <= SMs x warps per SM x 32: one wave), every lane is such a thread: the time is
 * one output's critical path, P + W / G + the merge instead of P + W, a gain for any
 * window longer than a few elements. Past that, each lane's copy of the prelude takes an
 * issue slot another output needed (n >= the resident threads: the original already fills
 * the GPU), and the rewrite can win back only through idle lanes of divergent window
 * lengths or coalescing, which depend on the data (bounds read from memory) and which
 * nothing here bounds. Refused then, naming the outputs, G and the resident threads.
 * Without a spec or a device nothing is known: applies. */
static bool lanes_pay(wl_scan *s, const wl_loop *L, const rw_context *ctx, int G)
{
    long long n;
    bool bound;
    /* An output's G lanes share a warp only where blockDim.x is a multiple of G; under the
     * spec's block that is not, lane 0 would run every window alone: only added work. */
    const struct spec *sp = ctx->spec;
    expr_value bx;
    if (sp && sp->n_sizes && sp->block[0] &&
        spec_eval(sp, sp->block[0], 0, ctx->sm_count > 0 ? ctx->sm_count : 1, &bx, NULL, 0) == HK_OK &&
        !bx.is_float && bx.i > 0 && bx.i % G != 0)
        return refuse(s, L->q_a, "thread block", EN(RW_WL_BLOCK_NOT_MULTIPLE), bx.i, G);
    /* A window stepped by induction state (the same bounds for every thread, or not): what the
     * lanes can win is where its trips read. Trip k reads at the start the thread computed plus
     * k steps c; the original's 32 lanes read 32 outputs' places, which the data decide (unrelated
     * when the starts are read from memory: boxes), while an output's G lanes read G consecutive
     * trips, c apart: fewer cache lines per load where c is small against a line. The price is the
     * code before the window G times (issue slots, past one wave another output's). Which wins the
     * data decide (the steps' size), on any number of waves: the one-wave rule below is not this
     * trade, and the episode measures it. Refused only where the lanes cannot all have a trip: the
     * window's trips at the spec's first size fewer than G. */
    if (L->n_ind) {
        const wl_for *w0 = &L->w[0];
        char tx[600];
        long long trips;
        snprintf(tx, sizeof tx, "(%.*s)%s - (%.*s)", SPAN(s->ts, w0->b_a, w0->b_b), w0->incl ? " + 1" : "",
                 SPAN(s->ts, w0->a_a, w0->a_b));
        if (eval_at_spec(s, ctx, tx, &trips) && trips < G)
            return refuse(s, L->win_a, "window loop", EN(RW_WL_FEW_TRIPS), trips, G);
        return true;
    }
    char shown[sizeof L->qh.bound + 48];
    long long yz;
    if (!outputs_at_spec(s, L, ctx, &n, shown, sizeof shown, &bound, &yz))
        return true;
    long long resident = (long long)ctx->sm_count * ctx->warps_per_sm * 32;
    if (n <= resident / G)
        return true;
    int line = rwl_line_at(s->text, s->ts->t[L->gs ? L->qbody_a + 1 : L->decl_b].start);
    if (yz > 1)
        return refuse(s, L->q_a, "output count", EN(RW_WL_PAST_WAVE_YZ), n, n / yz, yz, G, n * G, ctx->sm_count,
                      ctx->warps_per_sm, resident, line);
    if (bound)
        return refuse(s, L->q_a, "output count", EN(RW_WL_PAST_WAVE_BOUND), shown, n, G, n * G, ctx->sm_count,
                      ctx->warps_per_sm, resident, line);
    return refuse(s, L->q_a, "output count", EN(RW_WL_PAST_WAVE_LAUNCH), n, G, n * G, ctx->sm_count,
                  ctx->warps_per_sm, resident, line);
}

/* Does the warp's reading pay? window_warp keeps one thread per output but gives every
 * non-empty window of a warp to all 32 lanes in turn: per window a broadcast of its bounds
 * and values and a 5-step merge, per warp about twice the original's instructions (and more
 * registers). What it saves is the divergence of windows of different lengths: lanes that
 * wait for the warp's longest window. Waiting lanes cost time only when no other warp can
 * use the issue slots, that is when the outputs do not fill the device's resident threads
 * (one wave); past that the scheduler fills the slots with other warps and the added
 * instructions are a loss (mmcv's roi_pool, 95 waves on an H100: 0.42x, session 36).
 * Refused then, naming the outputs and the resident threads. Unknown sizes: applies. */
static bool warp_pays(wl_scan *s, const wl_loop *L, const rw_context *ctx)
{
    long long n;
    bool bound;
    char shown[sizeof L->qh.bound + 48];
    long long yz;
    if (!outputs_at_spec(s, L, ctx, &n, shown, sizeof shown, &bound, &yz))
        return true;
    long long resident = (long long)ctx->sm_count * ctx->warps_per_sm * 32;
    if (n <= resident)
        return true;
    if (yz > 1)
        return refuse(s, L->q_a, "output count", EN(RW_WW_PAST_WAVE_YZ), n, n / yz, yz, ctx->sm_count,
                      ctx->warps_per_sm, resident);
    if (bound)
        return refuse(s, L->q_a, "output count", EN(RW_WW_PAST_WAVE_BOUND), shown, n, ctx->sm_count,
                      ctx->warps_per_sm, resident);
    return refuse(s, L->q_a, "output count", EN(RW_WW_PAST_WAVE_LAUNCH), n, ctx->sm_count, ctx->warps_per_sm,
                  resident);
}

/* The innermost body's tokens [from, to) with `hk_wg_pN = hk_wg_k;` put into each
 * compare-select's branch. */
static int body_span_text(const wl_scan *s, const wl_loop *L, const char *pfx, size_t from, size_t to,
                          struct hk_buf *o)
{
    const rw_toks *ts = s->ts;
    uint32_t at = ts->t[from].start;
    int rc = HK_OK;
    for (size_t i = 0; i < L->n_sel && !rc; i++) {
        const wl_select *g = &L->sel[i];
        bool braced = rwl_tok_is(ts, g->cons_a, "{");
        uint32_t p = braced ? ts->t[g->cons_a].end : ts->t[g->cons_a].start;
        rc = hk_buf_printf(o, "%.*s%s %s_p%zu = %s_k;", (int)(p - at), s->text + at, braced ? "" : "{", pfx, i, pfx);
        at = p;
        if (!rc && !braced) {
            uint32_t q = ts->t[g->cons_b - 1].end;
            rc = hk_buf_printf(o, " %.*s }", (int)(q - at), s->text + at);
            at = q;
        }
    }
    if (!rc)
        rc = hk_buf_printf(o, "%.*s", (int)(ts->t[to - 1].end - at), s->text + at);
    return rc;
}

/* The whole innermost body so. */
static int body_text(const wl_scan *s, const wl_loop *L, const char *pfx, struct hk_buf *o)
{
    const wl_for *in = &L->w[L->dims - 1];
    return body_span_text(s, L, pfx, in->body_a, in->body_b, o);
}

/* A window with induction steps: rounds of np trips; in each, every lane runs the round's
 * steps in trip order (the original's additions, so the same values bit for bit) and keeps
 * the stepped values of its own trip s + lane, then runs the body's other statements for that
 * trip alone, all lanes at once. */
static int stepped_text(const wl_scan *s, const wl_loop *L, int G, struct hk_buf *o)
{
    const rw_toks *ts = s->ts;
    const wl_for *w0 = &L->w[0];
    int rc = hk_buf_printf(o, "    /* every lane runs every trip's steps in order, keeping those of its own trip; the rest " /* i18n: not for people */
                              "of the body on its own trips */\n"
                              "    for (long long hk_wg_s = 0; hk_wg_s < hk_wg_n0; hk_wg_s += hk_wg_np) {\n");
    for (size_t i = 0; i < L->n_ind && !rc; i++)
        rc = hk_buf_printf(o, "        auto hk_wg_v%zu = %.*s;\n", i, TOK(ts, L->ind_name[i]));
    if (!rc)
        rc = hk_buf_printf(o, "#pragma unroll\n" /* i18n: not for people */
                              "        for (int hk_wg_j = 0; hk_wg_j < %d; hk_wg_j++) {\n"
                              "            if (hk_wg_j >= hk_wg_np || hk_wg_s + hk_wg_j >= hk_wg_n0)\n"
                              "                break;\n",
                           G);
    for (size_t i = 0; i < L->n_lead && !rc; i++)
        rc = hk_buf_printf(o, "            %.*s\n", SPAN(ts, L->ind_a[i], L->ind_b[i]));
    if (!rc)
        rc = hk_buf_printf(o, "            if (hk_wg_j == hk_wg_lane) {\n");
    for (size_t i = 0; i < L->n_ind && !rc; i++)
        rc = hk_buf_printf(o, "                hk_wg_v%zu = %.*s;\n", i, TOK(ts, L->ind_name[i]));
    if (!rc)
        rc = hk_buf_printf(o, "            }\n");
    for (size_t i = L->n_lead; i < L->n_ind && !rc; i++)
        rc = hk_buf_printf(o, "            %.*s\n", SPAN(ts, L->ind_a[i], L->ind_b[i]));
    if (!rc)
        rc = hk_buf_printf(o, "        }\n" /* i18n: not for people */
                              "        const long long hk_wg_k = hk_wg_s + hk_wg_lane;\n"
                              "        if (hk_wg_lane < hk_wg_np && hk_wg_k < hk_wg_n0) {\n"
                              "            %.*s %.*s = (%.*s)(hk_wg_a0 + hk_wg_k);\n",
                           SPAN(ts, w0->type_a, w0->type_b), TOK(ts, w0->var), SPAN(ts, w0->type_a, w0->type_b));
    for (size_t i = 0; i < L->n_ind && !rc; i++)
        rc = hk_buf_printf(o, "            const auto %.*s = hk_wg_v%zu;\n", TOK(ts, L->ind_name[i]), i);
    if (!rc && L->mid_b > L->mid_a) {
        rc = hk_buf_printf(o, "            ");
        if (!rc)
            rc = body_span_text(s, L, "hk_wg", L->mid_a, L->mid_b, o);
    }
    if (!rc)
        rc = hk_buf_printf(o, "\n        }");
    return rc;
}

static int emit(const wl_scan *s, const wl_loop *L, int G, bool hip, rw_edits *es)
{
    const rw_toks *ts = s->ts;
    int rc;
    const char *lanes = "    const int hk_wg_lane = (int)(hk_wg_t %% %d);\n" /* i18n: not for people */
                        "    const int hk_wg_np = blockDim.x %% %d == 0 ? %d : 1;   /* G lanes in one warp, else "
                        "lane 0 alone */";
    char lb[300];
    snprintf(lb, sizeof lb, lanes, G, G, G);
    char *h;
    if (L->gs)
        h = hk_asprintf("for (long long hk_wg_t = (long long)blockIdx.x * blockDim.x + threadIdx.x; " /* i18n: not for people */
                        "hk_wg_t / %d < (long long)(%s); hk_wg_t += (long long)blockDim.x * gridDim.x) {\n"
                        "    /* hk: window_lanes: output hk_wg_t / %d, lane hk_wg_t %% %d of its window */\n"
                        "    %s %s = (%s)(hk_wg_t / %d);\n%s",
                        G, L->qh.bound, G, G, L->qh.type, L->qh.var, L->qh.type, G, lb);
    else
        h = hk_asprintf("/* hk: window_lanes: output hk_wg_t / %d, lane hk_wg_t %% %d of its window */\n" /* i18n: not for people */
                        "    const long long hk_wg_t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
                        "    %s %s = (%s)(hk_wg_t / %d);\n%s",
                        G, G, L->qh.type, L->qh.var, L->qh.type, G, lb);
    if (!h)
        return HK_ENOMEM;
    if ((rc = rwl_edits_add_owned(es, ts->t[L->q_a].start,
                                  L->gs ? ts->t[L->qbody_a].end : ts->t[L->decl_b - 1].end, h)))
        return rc;
    /* the window */
    struct hk_buf o;
    hk_buf_init(&o, RW_TEXT_MAX);
    const wl_for *w0 = &L->w[0], *w1 = &L->w[1];
    rc = hk_buf_printf(&o, "{   /* hk: window_lanes: elements k = lane, lane + %d, ... of the window in scan order, " /* i18n: not for people */
                           "then the %d lanes' states merged */\n", G, G);
    for (size_t i = 0; i < L->n_sel && !rc; i++)
        rc = hk_buf_printf(&o, "    long long hk_wg_p%zu = 0x7fffffffffffffffLL;   /* the position `%.*s` was " /* i18n: not for people */
                               "taken at */\n", i, TOK(ts, L->sel[i].m));
    if (!rc)
        rc = hk_buf_printf(&o, "    const long long hk_wg_a0 = (long long)(%.*s);\n" /* i18n: not for people */
                               "    const long long hk_wg_n0 = (long long)(%.*s)%s - hk_wg_a0;\n",
                           SPAN(ts, w0->a_a, w0->a_b), SPAN(ts, w0->b_a, w0->b_b), w0->incl ? " + 1" : "");
    if (!rc && L->n_ind) {
        rc = stepped_text(s, L, G, &o);   /* leaves the rounds' loop open, as the others leave theirs */
    } else if (!rc && L->dims == 2)
        rc = hk_buf_printf(&o, "    const long long hk_wg_a1 = (long long)(%.*s);\n" /* i18n: not for people */
                               "    const long long hk_wg_n1 = (long long)(%.*s)%s - hk_wg_a1;\n"
                               "    /* a step of np elements: di rows and dj columns, one carry at most (no division, no "
                               "loop per element) */\n"
                               "    const long long hk_wg_di = hk_wg_n1 > 0 ? hk_wg_np / hk_wg_n1 : 0;\n"
                               "    const long long hk_wg_dj = hk_wg_n1 > 0 ? hk_wg_np %% hk_wg_n1 : 0;\n"
                               "    const long long hk_wg_nk = hk_wg_n0 > 0 && hk_wg_n1 > 0 ? hk_wg_n0 * hk_wg_n1 : 0;\n"
                               "    const long long hk_wg_trips = hk_wg_lane < hk_wg_np && hk_wg_lane < hk_wg_nk ? "
                               "(hk_wg_nk - 1 - hk_wg_lane) / hk_wg_np + 1 : 0;\n"
                               "    long long hk_wg_k = hk_wg_lane, hk_wg_i = hk_wg_n1 > 0 ? hk_wg_lane / hk_wg_n1 : 0, "
                               "hk_wg_j = hk_wg_n1 > 0 ? hk_wg_lane %% hk_wg_n1 : 0;\n"
                               "#pragma unroll 4   /* a counted loop: 4 elements' loads issued before their compares */\n"
                               "    for (long long hk_wg_s = 0; hk_wg_s < hk_wg_trips;\n"
                               "         hk_wg_s++, hk_wg_k += hk_wg_np, hk_wg_j += hk_wg_dj, hk_wg_i += hk_wg_di + "
                               "(hk_wg_j >= hk_wg_n1),\n"
                               "         hk_wg_j -= hk_wg_j >= hk_wg_n1 ? hk_wg_n1 : 0) {\n"
                               "        %.*s %.*s = (%.*s)(hk_wg_a0 + hk_wg_i);\n"
                               "        %.*s %.*s = (%.*s)(hk_wg_a1 + hk_wg_j);\n        ",
                           SPAN(ts, w1->a_a, w1->a_b), SPAN(ts, w1->b_a, w1->b_b), w1->incl ? " + 1" : "",
                           SPAN(ts, w0->type_a, w0->type_b), TOK(ts, w0->var), SPAN(ts, w0->type_a, w0->type_b),
                           SPAN(ts, w1->type_a, w1->type_b), TOK(ts, w1->var), SPAN(ts, w1->type_a, w1->type_b));
    else if (!rc)
        rc = hk_buf_printf(&o, "    const long long hk_wg_trips = hk_wg_lane < hk_wg_np && hk_wg_lane < hk_wg_n0 ? " /* i18n: not for people */
                               "(hk_wg_n0 - 1 - hk_wg_lane) / hk_wg_np + 1 : 0;\n"
                               "    long long hk_wg_k = hk_wg_lane;\n"
                               "#pragma unroll 4   /* a counted loop: 4 elements' loads issued before their compares */\n"
                               "    for (long long hk_wg_s = 0; hk_wg_s < hk_wg_trips; hk_wg_s++, hk_wg_k += hk_wg_np) {\n"
                               "        %.*s %.*s = (%.*s)(hk_wg_a0 + hk_wg_k);\n        ",
                           SPAN(ts, w0->type_a, w0->type_b), TOK(ts, w0->var), SPAN(ts, w0->type_a, w0->type_b));
    if (!rc && !L->n_ind)
        rc = body_text(s, L, "hk_wg", &o);
    char mask[160];
    if (G == 32)
        snprintf(mask, sizeof mask, "0xffffffffu");
    else
        snprintf(mask, sizeof mask, "((1u << %d) - 1u) << ((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
                                    "threadIdx.z)) %% 32u & ~%du)", G, G - 1);
    if (!rc)
        rc = hk_buf_printf(&o, "\n    }\n" /* i18n: not for people */
                               "    if (hk_wg_np > 1) {\n"
                               "        const unsigned hk_wg_mask = %s;\n"
                               "        (void)hk_wg_mask;\n"
                               "        for (int hk_wg_off = 1; hk_wg_off < %d; hk_wg_off <<= 1) {\n",
                           mask, G);
#define SHFL(v) hip ? "__shfl_xor(" v ", hk_wg_off, %d)" : "__shfl_xor_sync(hk_wg_mask, " v ", hk_wg_off, %d)"
    for (size_t i = 0; i < L->n_sums && !rc; i++) {
        char f[200];
        snprintf(f, sizeof f, "            %%.*s += %s;\n", SHFL("%.*s"));
        rc = hk_buf_printf(&o, f, TOK(ts, L->sums[i]), TOK(ts, L->sums[i]), G);
    }
    for (size_t i = 0; i < L->n_sel && !rc; i++) {
        const wl_select *g = &L->sel[i];
        const char *R = g->greater ? ">" : "<";
        char f[200];
        rc = hk_buf_printf(&o, "            {   /* better value, or the same and taken earlier */\n"); /* i18n: not for people */
        for (size_t z = 0; z < g->n_sets && !rc; z++) {
            snprintf(f, sizeof f, "                const auto hk_wg_o%zu = %s;\n", z, SHFL("%.*s"));
            rc = hk_buf_printf(&o, f, TOK(ts, g->sets[z]), G);
        }
        snprintf(f, sizeof f, "                const long long hk_wg_op = %s;\n", SHFL("hk_wg_p%zu")); /* i18n: not for people */
        if (!rc)
            rc = hk_buf_printf(&o, f, i, G);
        size_t mz = 0;
        for (size_t z = 0; z < g->n_sets; z++)
            if (rwg_same_name(ts, g->sets[z], g->m))
                mz = z;
        if (!rc)
            rc = hk_buf_printf(&o, "                if (hk_wg_o%zu %s %.*s || (!(%.*s %s hk_wg_o%zu) && hk_wg_op < "
                                   "hk_wg_p%zu)) {\n",
                               mz, R, TOK(ts, g->m), TOK(ts, g->m), R, mz, i);
        for (size_t z = 0; z < g->n_sets && !rc; z++)
            rc = hk_buf_printf(&o, "                    %.*s = hk_wg_o%zu;\n", TOK(ts, g->sets[z]), z);
        if (!rc)
            rc = hk_buf_printf(&o, "                    hk_wg_p%zu = hk_wg_op;\n                }\n            }\n", i);
    }
#undef SHFL
    if (!rc)
        rc = hk_buf_printf(&o, "        }\n    }\n}");
    if (!rc)
        rc = rwl_edits_add(es, ts->t[L->win_a].start, ts->t[L->win_b - 1].end, o.data);
    hk_buf_free(&o);
    if (rc)
        return rc;
    /* what follows the window in its block: lane 0 alone (every lane holds the merged state) */
    if (L->win_b < L->blk_close) {
        if ((rc = rwl_edits_add(es, ts->t[L->win_b].start, ts->t[L->win_b].start, "if (hk_wg_lane == 0) {\n    ")) ||
            (rc = rwl_edits_add(es, ts->t[L->blk_close - 1].end, ts->t[L->blk_close - 1].end, "\n    }")))
            return rc;
    }
    return HK_OK;
}

static int rw_window_lanes(const rw_context *ctx, int G, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    if (G != 2 && G != 4 && G != 8 && G != 16 && G != 32)
        return HK_EINVAL;
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    km_kernel *km = NULL;
    wl_scan s = {.text = ctx->text, .len = ctx->len, .ts = &ts, .f = f, .m = ctx->m};
    if ((rc = rwl_open_body(ctx->text, ctx->len, f, true, &ts, &km, s.why, sizeof s.why)))
        goto out;
    wl_loop L;
    memset(&L, 0, sizeof L);
    if (!s.why[0] && find_region(&s, &L) && check_kernel(&s, &L) && find_window(&s, &L, km) &&
        read_body(&s, &L, km) && lanes_pay(&s, &L, ctx, G))
        s.why[0] = '\0';
    if (s.oom) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (s.why[0]) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "window_lanes", f->name, s.why));
        goto out;
    }
    if ((rc = emit(&s, &L, G, ctx->hip, &es)))
        goto out;
    char what[200] = "";
    size_t o = 0;
    for (size_t i = 0; i < L.n_sel && o < sizeof what; i++)
        o += states_add(what + o, sizeof what - o, o, L.sel[i].greater ? EN(RW_WL_STATE_MAX) : EN(RW_WL_STATE_MIN),
                        TOK(&ts, L.sel[i].m));
    for (size_t i = 0; i < L.n_sums && o < sizeof what; i++)
        o += states_add(what + o, sizeof what - o, o, EN(RW_WL_STATE_SUM), TOK(&ts, L.sums[i]));
    char steps[200] = "";
    for (size_t i = 0, o2 = 0; i < L.n_ind && o2 < sizeof steps; i++)
        o2 += (size_t)snprintf(steps + o2, sizeof steps - o2, "%s`%.*s`", i ? ", " : "", TOK(&ts, L.ind_name[i]));
    char *desc = L.n_ind
        ? hk_asprintf(EN(RW_WL_DESC_STEPPED), f->name, rwl_line_at(ctx->text, ts.t[L.q_a].start), G,
                      rwl_line_at(ctx->text, ts.t[L.win_a].start), steps, what,
                      ctx->hip ? EN(RW_WL_SHFL_WIDTH_G) : "__shfl_xor_sync",
                      L.n_sums ? EN(RW_WL_EXACT_WITH_SUM) : EN(RW_WL_EXACT), G)
        : hk_asprintf(L.gs ? EN(RW_WL_DESC_LOOP) : EN(RW_WL_DESC_INDEX),
                      f->name, rwl_line_at(ctx->text, ts.t[L.q_a].start), G, L.dims,
                      rwl_line_at(ctx->text, ts.t[L.win_a].start), what,
                      ctx->hip ? EN(RW_WL_SHFL_WIDTH_G) : "__shfl_xor_sync",
                      L.n_sums ? EN(RW_WL_EXACT_WITH_SUM) : EN(RW_WL_EXACT),
                      G);
    rc = rwl_finish(ctx->text, ctx->len, ctx->m, f->name, &es, desc, out);
    if (rc == HK_OK && out->applicable) {
        out->grid_multiplier = (unsigned)G;
        out->grid_axis = 0;
    }
out:
    km_free(km);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ==== window_warp: the warp's windows read by all its lanes, one owner at a time ==== */

/* window_warp keeps one thread per output for the code before the window (its index
 * arithmetic, loads and bounds run once per output, as written: window_lanes' G copies of
 * it are what lost on mmcv's roi_pool) and gives the window to the whole warp: for each lane
 * o of the warp whose window is not empty (a uniform loop over __ballot_sync), o's bounds
 * and the values its window's body reads are broadcast from lane o, the 32 lanes read o's
 * elements k = lane, lane + 32, ... in scan order (adjacent lanes, adjacent elements of a
 * row), each keeping its own partial state from o's start value with the position it took
 * its element at, and a butterfly over the 32 lanes merges the states as window_lanes does
 * (the better value, then the smaller position: the serial result, by window_lanes' proof);
 * lane o adopts the merged state and runs what follows the window itself. The warp's 32
 * windows, of different lengths, are read one after another at 32 lanes each instead of side
 * by side at one lane each: no lane waits for the warp's widest window.
 *
 * So that every lane of the warp reaches the broadcasts on every trip, the grid-stride loop
 * runs while the warp's first index is in range (lanes past the bound idle but present), the
 * output's code before the window runs in `do { ... } while (0)` (its `continue` leaves only
 * that), its top-level declarations declared before it (their names stay in scope for the
 * window and for what follows it), and what follows the window runs under the lane's flag.
 * Blocks that are not whole warps (blockDim.x % 32, or 2-D) run the original code. */

#define WW_DECLS 48
#define WW_SHIP 16

typedef struct {
    size_t a, b;                /* the declaration statement */
    size_t names[8];
    size_t n;
} ww_decl;

typedef struct {
    ww_decl d[WW_DECLS];
    size_t nd;
    size_t ship[WW_SHIP];       /* declared names (tokens) the window reads */
    size_t nship;
    bool ship_var;              /* the window reads the output index */
} ww_plan;

static bool is_state(const wl_loop *L, const rw_toks *ts, size_t name)
{
    for (size_t i = 0; i < L->n_sel; i++)
        for (size_t z = 0; z < L->sel[i].n_sets; z++)
            if (rwg_same_name(ts, L->sel[i].sets[z], name))
                return true;
    for (size_t i = 0; i < L->n_sums; i++)
        if (rwg_same_name(ts, L->sums[i], name))
            return true;
    return false;
}

static bool ww_read(wl_scan *s, const wl_loop *L, ww_plan *P)
{
    const rw_toks *ts = s->ts;
    memset(P, 0, sizeof *P);
    if (!L->gs)
        return refuse(s, L->q_a, "output index", "%s", EN(RW_WW_GUARD_FORM));
    if (L->n_ind)   /* the owner's values are broadcast once: a lane of its window would need every earlier trip's */
        return refuse(s, L->ind_a[0], "induction", EN(RW_WW_STEPPED), TOK(ts, L->ind_name[0]));
    if (L->blk_close != L->qbody_b - 1)
        return refuse(s, L->win_a, "window loop", "%s", EN(RW_WW_NESTED));
    size_t a = L->qbody_a + 1, e_body = L->qbody_b - 1;
    for (size_t k = a; k < e_body; k++) {
        if (k >= L->win_a && k < L->win_b)
            continue;
        if (ts->t[k].kind == T_IDENT && ts->t[k].end - ts->t[k].start >= 5 && !memcmp(ts->text + ts->t[k].start, "hk_ww", 5))
            return refuse(s, k, "kernel body", "%s", EN(RW_WW_ALREADY));
        if (rwl_tok_is(ts, k, "return") || rwl_tok_is(ts, k, "goto") ||
            (rwl_tok_is(ts, k, "break") && !rwg_in_inner_construct(ts, a, e_body, k)))
            return refuse(s, k, "jump", EN(RW_WW_JUMP), TOK(ts, k));
    }
    for (size_t q = a; q < L->win_a;) {
        size_t e = rwg_stmt_end(ts, q, L->win_a);
        if (e <= q)
            break;
        if (rwl_starts_declaration(ts, q)) {
            if (P->nd == WW_DECLS)
                return refuse(s, q, "declaration", EN(RW_WW_TOO_MANY_DECLS), WW_DECLS);
            ww_decl *d = &P->d[P->nd];
            d->a = q;
            d->b = e;
            d->n = 0;
            if (!rwl_is_hoistable_decl(ts, q, e, "", d->names, &d->n, HK_ARRAY_LEN(d->names)))
                return refuse(s, q, "declaration", "%s", EN(RW_WW_NOT_PLAIN_DECL));
            for (size_t k = q; k < d->names[0]; k++)
                if (rwl_tok_is(ts, k, "auto") || rwl_tok_is(ts, k, "static") || rwl_tok_is(ts, k, "&") ||
                    rwl_tok_is(ts, k, "constexpr") || rwl_tok_is(ts, k, "volatile"))
                    return refuse(s, k, "declaration", EN(RW_WW_TYPE_APART), TOK(ts, k));
            for (size_t j = 0; j < d->n; j++)
                if (rwl_tok_is(ts, d->names[j], "const") || rwl_tok_is(ts, d->names[j] + 1, "["))
                    return refuse(s, d->names[j], "declaration", "%s", EN(RW_WW_CONST_ARRAY));
            for (size_t j = 0; j < d->n; j++)   /* declared earlier, the name would mean the hoisted one */
                if (span_mentions(ts, a, q, d->names[j]))
                    return refuse(s, d->names[j], "declaration", EN(RW_WW_USED_BEFORE),
                                  TOK(ts, d->names[j]));
            for (size_t j = 0; j < d->n; j++) {
                size_t nm = d->names[j];
                const wl_for *in = &L->w[L->dims - 1];   /* the bounds travel as numbers */
                if (is_state(L, ts, nm) || !span_mentions(ts, in->body_a, in->body_b, nm))
                    continue;
                if (P->nship == WW_SHIP)
                    return refuse(s, nm, "declaration", EN(RW_WW_TOO_MANY_VALUES),
                                  WW_SHIP);
                P->ship[P->nship++] = nm;
            }
            P->nd++;
        }
        q = e;
    }
    for (size_t k = L->w[L->dims - 1].body_a; k < L->w[L->dims - 1].body_b; k++)
        if (rwl_tok_is(ts, k, L->qh.var) && rwl_is_use(ts, k))
            P->ship_var = true;
    return true;
}

/* Token k's text, with the gap before it when keep_gap. */
static int put_tok(const rw_toks *ts, size_t k, bool gap, struct hk_buf *o)
{
    if (gap && k > 0 && ts->t[k].start > ts->t[k - 1].end)
        return hk_buf_printf(o, "%.*s%.*s", (int)(ts->t[k].start - ts->t[k - 1].end), ts->text + ts->t[k - 1].end,
                             TOK(ts, k));
    return hk_buf_printf(o, "%s%.*s", gap ? "" : " ", TOK(ts, k));
}

static const ww_decl *decl_at(const ww_plan *P, size_t k)
{
    for (size_t i = 0; i < P->nd; i++)
        if (P->d[i].a == k)
            return &P->d[i];
    return NULL;
}

/* Is token q a `*` of a later declarator's (`, *b` in `float *a = x, *b = y;`), which the
 * declaration turned assignment drops? A `*` of an initializer (`a * *p`) is not. */
static bool declarator_star(const rw_toks *ts, const ww_decl *d, size_t q)
{
    if (!rwl_tok_is(ts, q, "*"))
        return false;
    size_t v = q;
    while (v > d->a && rwl_tok_is(ts, v - 1, "*"))
        v--;
    if (v == d->a || !rwl_tok_is(ts, v - 1, ","))
        return false;
    for (size_t j = 1; j < d->n; j++) {
        size_t u = q;
        while (u < d->names[j] && rwl_tok_is(ts, u, "*"))
            u++;
        if (u == d->names[j])
            return true;
    }
    return false;
}

/* `TYPE name{};` for each name of d (top-level const dropped where no `*` makes it the
 * pointee's; value-initialized, so a lane whose output is out of range or skipped holds a
 * defined value in the broadcasts it takes part in). */
static int hoisted(const rw_toks *ts, const ww_decl *d, struct hk_buf *o)
{
    size_t base_b = d->names[0];
    while (base_b > d->a && rwl_tok_is(ts, base_b - 1, "*"))
        base_b--;
    int rc = HK_OK;
    for (size_t j = 0; j < d->n && !rc; j++) {
        size_t stars = 0;
        while (stars < d->names[j] && rwl_tok_is(ts, d->names[j] - 1 - stars, "*"))
            stars++;
        rc = hk_buf_printf(o, "    ");
        for (size_t k = d->a; k < base_b && !rc; k++)
            if (stars || !rwl_tok_is(ts, k, "const"))
                rc = put_tok(ts, k, false, o);
        for (size_t q = 0; q < stars && !rc; q++)
            rc = hk_buf_printf(o, " *");
        if (!rc)
            rc = hk_buf_printf(o, " %.*s{};\n", TOK(ts, d->names[j]));   /* set in every lane that reads it */
    }
    return rc;
}

static int ww_emit(const wl_scan *s, const wl_loop *L, const ww_plan *P, struct hk_buf *o)
{
    const rw_toks *ts = s->ts;
    const wl_for *w0 = &L->w[0], *w1 = &L->w[1];
    const char *bound = L->qh.bound, *var = L->qh.var, *ty = L->qh.type;
    size_t a = L->qbody_a + 1, e_body = L->qbody_b - 1;
    int rc = hk_buf_printf(o,
        "/* hk: window_warp: the output's code before the window runs once per output; the warp's non-empty " /* i18n: not for people */
        "windows are read one at a time by all 32 lanes, merged keeping the first index on ties */\n"
        "for (long long hk_ww_t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
        "     hk_ww_t - (long long)(threadIdx.x & 31u) < (long long)(%s); hk_ww_t += (long long)blockDim.x * gridDim.x) {\n"
        "    if (blockDim.x %% 32u != 0u || blockDim.y != 1u || blockDim.z != 1u) {   /* not whole warps: the original */\n"
        "        if (hk_ww_t < (long long)(%s)) do {\n"
        "        %s %s = (%s)hk_ww_t;\n",
        bound, bound, ty, var, ty);
    if (!rc)
        rc = hk_buf_printf(o, "%.*s\n        } while (0);\n        continue;\n    }\n" /* i18n: not for people */
                              "    const int hk_ww_lane = (int)(threadIdx.x & 31u);\n"
                              "    %s %s = (%s)hk_ww_t;\n",
                           (int)(ts->t[e_body].start - ts->t[a - 1].end), ts->text + ts->t[a - 1].end, ty, var, ty);
    for (size_t i = 0; i < P->nd && !rc; i++)
        rc = hoisted(ts, &P->d[i], o);
    if (!rc)
        rc = hk_buf_printf(o, "    bool hk_ww_on = false;\n    if (hk_ww_t < (long long)(%s)) do {", bound); /* i18n: not for people */
    /* the code before the window, its declarations now assignments */
    for (size_t k = a; k < L->win_a && !rc;) {
        const ww_decl *d = decl_at(P, k);
        if (!d) {
            rc = put_tok(ts, k, true, o);
            k++;
            continue;
        }
        rc = hk_buf_printf(o, "%.*s", (int)(ts->t[k].start - ts->t[k - 1].end), ts->text + ts->t[k - 1].end);
        for (size_t q = d->names[0]; q < d->b && !rc; q++)
            if (!declarator_star(ts, d, q))
                rc = put_tok(ts, q, q != d->names[0], o);
        k = d->b;
    }
    if (!rc)
        rc = hk_buf_printf(o, "\n        hk_ww_on = true;\n    } while (0);\n" /* i18n: not for people */
                              "    long long hk_ww_a0 = 0, hk_ww_n0 = 0, hk_ww_a1 = 0, hk_ww_n1 = 1;\n"
                              "    if (hk_ww_on) {\n"
                              "        hk_ww_a0 = (long long)(%.*s);\n"
                              "        hk_ww_n0 = (long long)(%.*s)%s - hk_ww_a0;\n",
                           SPAN(ts, w0->a_a, w0->a_b), SPAN(ts, w0->b_a, w0->b_b), w0->incl ? " + 1" : "");
    if (!rc && L->dims == 2)
        rc = hk_buf_printf(o, "        hk_ww_a1 = (long long)(%.*s);\n" /* i18n: not for people */
                              "        hk_ww_n1 = (long long)(%.*s)%s - hk_ww_a1;\n",
                           SPAN(ts, w1->a_a, w1->a_b), SPAN(ts, w1->b_a, w1->b_b), w1->incl ? " + 1" : "");
    if (!rc)
        rc = hk_buf_printf(o, "    }\n" /* i18n: not for people */
                              "    const long long hk_ww_cnt = hk_ww_n0 > 0 && hk_ww_n1 > 0 ? hk_ww_n0 * hk_ww_n1 : 0;\n"
                              "    /* each non-empty window of the warp in turn, its elements read by the 32 lanes in scan order */\n"
                              "    for (unsigned hk_ww_r = __ballot_sync(0xffffffffu, hk_ww_cnt > 0); hk_ww_r != 0u; "
                              "hk_ww_r &= hk_ww_r - 1u) {\n"
                              "        const int hk_ww_o = __ffs((int)hk_ww_r) - 1;\n"
                              "        const long long hk_ww_oc = hk_ww_bcast(hk_ww_cnt, hk_ww_o), hk_ww_oa0 = "
                              "hk_ww_bcast(hk_ww_a0, hk_ww_o),\n"
                              "            hk_ww_oa1 = hk_ww_bcast(hk_ww_a1, hk_ww_o), hk_ww_on1 = hk_ww_bcast(hk_ww_n1, "
                              "hk_ww_o);\n"
                              "        (void)hk_ww_oa1;\n");
    for (size_t i = 0; i < P->nship && !rc; i++)
        rc = hk_buf_printf(o, "        const auto hk_ww_b%zu = hk_ww_bcast(%.*s, hk_ww_o);\n", i, TOK(ts, P->ship[i]));
    if (!rc && P->ship_var)
        rc = hk_buf_printf(o, "        const auto hk_ww_bv = hk_ww_bcast(%s, hk_ww_o);\n", var);
    for (size_t i = 0; i < L->n_sel && !rc; i++) {
        for (size_t z = 0; z < L->sel[i].n_sets && !rc; z++)
            rc = hk_buf_printf(o, "        auto hk_ww_s%zu_%zu = hk_ww_bcast(%.*s, hk_ww_o);   /* the owner's start */\n", /* i18n: not for people */
                               i, z, TOK(ts, L->sel[i].sets[z]));
        if (!rc)
            rc = hk_buf_printf(o, "        long long hk_ww_p%zu = 0x7fffffffffffffffLL;\n", i);
    }
    for (size_t i = 0; i < L->n_sums && !rc; i++)
        rc = hk_buf_printf(o, "        decltype(%.*s) hk_ww_u%zu = 0;\n", TOK(ts, L->sums[i]), i);
    if (!rc)
        rc = hk_buf_printf(o, "        const long long hk_ww_di = 32 / hk_ww_on1, hk_ww_dj = 32 %% hk_ww_on1;\n" /* i18n: not for people */
                              "        long long hk_ww_k = hk_ww_lane, hk_ww_i = hk_ww_lane / hk_ww_on1, hk_ww_j = "
                              "hk_ww_lane %% hk_ww_on1;\n"
                              "        for (; hk_ww_k < hk_ww_oc; hk_ww_k += 32, hk_ww_j += hk_ww_dj, hk_ww_i += hk_ww_di + "
                              "(hk_ww_j >= hk_ww_on1),\n"
                              "             hk_ww_j -= hk_ww_j >= hk_ww_on1 ? hk_ww_on1 : 0) {\n");
    for (size_t i = 0; i < P->nship && !rc; i++)
        rc = hk_buf_printf(o, "            auto %.*s = hk_ww_b%zu;\n", TOK(ts, P->ship[i]), i);
    if (!rc && P->ship_var)
        rc = hk_buf_printf(o, "            auto %s = hk_ww_bv;\n", var);
    for (size_t i = 0; i < L->n_sel && !rc; i++)
        for (size_t z = 0; z < L->sel[i].n_sets && !rc; z++)
            rc = hk_buf_printf(o, "            auto %.*s = hk_ww_s%zu_%zu;\n", TOK(ts, L->sel[i].sets[z]), i, z);
    for (size_t i = 0; i < L->n_sums && !rc; i++)
        rc = hk_buf_printf(o, "            auto %.*s = hk_ww_u%zu;\n", TOK(ts, L->sums[i]), i);
    if (!rc)
        rc = hk_buf_printf(o, "            %.*s %.*s = (%.*s)(hk_ww_oa0 + hk_ww_i);\n",
                           SPAN(ts, w0->type_a, w0->type_b), TOK(ts, w0->var), SPAN(ts, w0->type_a, w0->type_b));
    if (!rc && L->dims == 2)
        rc = hk_buf_printf(o, "            %.*s %.*s = (%.*s)(hk_ww_oa1 + hk_ww_j);\n",
                           SPAN(ts, w1->type_a, w1->type_b), TOK(ts, w1->var), SPAN(ts, w1->type_a, w1->type_b));
    if (!rc)
        rc = hk_buf_printf(o, "            ");
    if (!rc)
        rc = body_text(s, L, "hk_ww", o);
    if (!rc)
        rc = hk_buf_printf(o, "\n");
    for (size_t i = 0; i < L->n_sel && !rc; i++)
        for (size_t z = 0; z < L->sel[i].n_sets && !rc; z++)
            rc = hk_buf_printf(o, "            hk_ww_s%zu_%zu = %.*s;\n", i, z, TOK(ts, L->sel[i].sets[z]));
    for (size_t i = 0; i < L->n_sums && !rc; i++)
        rc = hk_buf_printf(o, "            hk_ww_u%zu = %.*s;\n", i, TOK(ts, L->sums[i]));
    if (!rc)
        rc = hk_buf_printf(o, "        }\n        for (int hk_ww_off = 1; hk_ww_off < 32; hk_ww_off <<= 1) {\n");
    for (size_t i = 0; i < L->n_sums && !rc; i++)
        rc = hk_buf_printf(o, "            hk_ww_u%zu += hk_ww_xor(hk_ww_u%zu, hk_ww_off);\n", i, i);
    for (size_t i = 0; i < L->n_sel && !rc; i++) {
        const wl_select *g = &L->sel[i];
        const char *R = g->greater ? ">" : "<";
        size_t mz = 0;
        for (size_t z = 0; z < g->n_sets; z++)
            if (rwg_same_name(ts, g->sets[z], g->m))
                mz = z;
        rc = hk_buf_printf(o, "            {   /* better value, or the same and taken earlier */\n"); /* i18n: not for people */
        for (size_t z = 0; z < g->n_sets && !rc; z++)
            rc = hk_buf_printf(o, "                const auto hk_ww_x%zu = hk_ww_xor(hk_ww_s%zu_%zu, hk_ww_off);\n", z, i,
                               z);
        if (!rc)
            rc = hk_buf_printf(o, "                const long long hk_ww_xp = hk_ww_xor(hk_ww_p%zu, hk_ww_off);\n" /* i18n: not for people */
                                  "                if (hk_ww_x%zu %s hk_ww_s%zu_%zu || (!(hk_ww_s%zu_%zu %s hk_ww_x%zu) && "
                                  "hk_ww_xp < hk_ww_p%zu)) {\n",
                               i, mz, R, i, mz, i, mz, R, mz, i);
        for (size_t z = 0; z < g->n_sets && !rc; z++)
            rc = hk_buf_printf(o, "                    hk_ww_s%zu_%zu = hk_ww_x%zu;\n", i, z, z);
        if (!rc)
            rc = hk_buf_printf(o, "                    hk_ww_p%zu = hk_ww_xp;\n                }\n            }\n", i);
    }
    if (!rc)
        rc = hk_buf_printf(o, "        }\n        if (hk_ww_lane == hk_ww_o) {   /* the owner adopts its window's state */\n"); /* i18n: not for people */
    for (size_t i = 0; i < L->n_sel && !rc; i++)
        for (size_t z = 0; z < L->sel[i].n_sets && !rc; z++)
            rc = hk_buf_printf(o, "            %.*s = hk_ww_s%zu_%zu;\n", TOK(ts, L->sel[i].sets[z]), i, z);
    for (size_t i = 0; i < L->n_sums && !rc; i++)
        rc = hk_buf_printf(o, "            %.*s += hk_ww_u%zu;\n", TOK(ts, L->sums[i]), i);
    if (!rc)
        rc = hk_buf_printf(o, "        }\n    }\n    if (hk_ww_on) {");
    if (!rc)
        rc = hk_buf_printf(o, "%.*s\n    }\n}", (int)(ts->t[e_body].start - ts->t[L->win_b - 1].end),
                           ts->text + ts->t[L->win_b - 1].end);
    return rc;
}

#define WW_HELPERS_MARK "/* hk: window_warp's broadcast from a lane and butterfly step"
static const char ww_helpers[] =
    WW_HELPERS_MARK ", of any value, word by word */\n" /* i18n: not for people */
    "template <typename T> __device__ __forceinline__ T hk_ww_bcast(T v, int src)\n"
    "{\n"
    "    int w[(sizeof(T) + 3) / 4] = {0};\n"
    "    memcpy(w, &v, sizeof(T));\n"
    "    for (int i = 0; i < (int)((sizeof(T) + 3) / 4); i++)\n"
    "        w[i] = __shfl_sync(0xffffffffu, w[i], src);\n"
    "    memcpy(&v, w, sizeof(T));\n"
    "    return v;\n"
    "}\n"
    "template <typename T> __device__ __forceinline__ T hk_ww_xor(T v, int off)\n"
    "{\n"
    "    int w[(sizeof(T) + 3) / 4] = {0};\n"
    "    memcpy(w, &v, sizeof(T));\n"
    "    for (int i = 0; i < (int)((sizeof(T) + 3) / 4); i++)\n"
    "        w[i] = __shfl_xor_sync(0xffffffffu, w[i], off);\n"
    "    memcpy(&v, w, sizeof(T));\n"
    "    return v;\n"
    "}\n";

static int rw_window_warp(const rw_context *ctx, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    km_kernel *km = NULL;
    ww_plan *P = calloc(1, sizeof *P);
    struct hk_buf o;
    hk_buf_init(&o, RW_TEXT_MAX);
    wl_scan s = {.text = ctx->text, .len = ctx->len, .ts = &ts, .f = f, .m = ctx->m};
    if (!P) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_open_body(ctx->text, ctx->len, f, true, &ts, &km, s.why, sizeof s.why)))
        goto out;
    wl_loop L;
    memset(&L, 0, sizeof L);
    if (!s.why[0] && ctx->hip)
        snprintf(s.why, sizeof s.why, "%s", EN(RW_WW_HIP));
    if (!s.why[0] && find_region(&s, &L) && check_kernel(&s, &L) && find_window(&s, &L, km) &&
        read_body(&s, &L, km) && ww_read(&s, &L, P) && warp_pays(&s, &L, ctx))
        s.why[0] = '\0';
    if (s.oom) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (s.why[0]) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "window_warp", f->name, s.why));
        goto out;
    }
    /* The helpers once per text, with no preprocessor guard (the referee refuses a
     * conditional directive the baseline lacks: host_code): a kernel of the file rewritten
     * earlier put them before itself; after this kernel they would come too late. */
    const char *had = memmem(ctx->text, ctx->len, WW_HELPERS_MARK, sizeof WW_HELPERS_MARK - 1);
    if (had && (size_t)(had - ctx->text) > f->span.start_byte) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "window_warp", f->name,
                                                 EN(RW_WW_HELPERS_AFTER)));
        goto out;
    }
    if ((rc = ww_emit(&s, &L, P, &o)) ||
        (rc = rwl_edits_add(&es, ts.t[L.q_a].start, ts.t[L.qbody_b - 1].end, o.data)) ||
        (!had && (rc = rwl_edits_add(&es, f->span.start_byte, f->span.start_byte, ww_helpers))))
        goto out;
    char what[200] = "";
    size_t n = 0;
    for (size_t i = 0; i < L.n_sel && n < sizeof what; i++)
        n += states_add(what + n, sizeof what - n, n, L.sel[i].greater ? EN(RW_WL_STATE_MAX) : EN(RW_WL_STATE_MIN),
                        TOK(&ts, L.sel[i].m));
    for (size_t i = 0; i < L.n_sums && n < sizeof what; i++)
        n += states_add(what + n, sizeof what - n, n, EN(RW_WL_STATE_SUM), TOK(&ts, L.sums[i]));
    char *desc = hk_asprintf(EN(RW_WW_DESC),
                             f->name, rwl_line_at(ctx->text, ts.t[L.q_a].start), L.dims,
                             rwl_line_at(ctx->text, ts.t[L.win_a].start), what,
                             L.n_sums ? EN(RW_WL_EXACT_WITH_SUM) : EN(RW_WL_EXACT));
    rc = rwl_finish(ctx->text, ctx->len, ctx->m, f->name, &es, desc, out);
out:
    free(P);
    hk_buf_free(&o);
    km_free(km);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

static int emit_window_warp(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_window_warp(c, out);
}

const rw_descriptor rw_window_warp_desc = {
    .name = "window_warp",
    .summary = "a per-output max/argmax or sum over a window whose bounds are computed per thread: the code before "
               "the window once per output, each window of the warp read by all 32 lanes in turn, merged keeping "
               "the first index on ties (launch kept)", /* i18n: not for people (no listing reads it) */
    .flags = RW_ALGORITHM,
    .emit = emit_window_warp,
};

/* ---- registry descriptor (registry.h) ---- */
static const rw_param wl_params[] = {
    {.name = "lanes", .type = RW_PARAM_ENUM, .values = {8, 4, 16, 32, 2}, .n_values = 5, .def = 8},
};

static int emit_window_lanes(const rw_context *c, const int *p, rw_result *out)
{
    return rw_window_lanes(c, p[0], out);
}

const rw_descriptor rw_window_lanes_desc = {
    .name = "window_lanes",
    .summary = "a per-output max/argmax or sum over a window whose bounds are computed per thread is split over G "
               "adjacent lanes in scan order, merged with shuffles keeping the first index on ties (grid x G)", /* i18n: not for people (no listing reads it) */
    .params = wl_params,
    .n_params = HK_ARRAY_LEN(wl_params),
    .flags = RW_ALGORITHM,
    .emit = emit_window_lanes,
    .launch = "the spec's grid multiplied by `lanes` along x", /* i18n: not for people */
};
