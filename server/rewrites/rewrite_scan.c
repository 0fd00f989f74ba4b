/* unroll_jam_scan: a loop over items that computes a value per item from the item alone
 * (a distance) and then updates a per-thread state with it (a best-3 cascade, a heap, a
 * count with an early exit) computes U items' values first, then runs their updates in
 * the original order; of the items left over (n mod U), pairs are jammed the same way
 * while two are left, and the last one runs in the original loop. */
#include "rewrites/rewrite_scan.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* Why: mmcv's three_nn, knn and ball_query give each thread a query point and scan all n
 * items of its batch: load -> 3 subs -> mul/fma -> compare/update, one item after the
 * other. The compare of item k waits for item k's loads, and the loop's branch (the
 * update) keeps the compiler from hoisting item k+1's loads above it, so each thread has
 * one item's loads in flight: latency-bound at 1-12% of the roofline with few threads per
 * SM. Computing U items' values first puts U items' loads and arithmetic in flight at once.
 *
 * Why it is exact: each jammed item's value is computed by the same declarations, the same
 * expression text (only its names renamed: the compiler contracts the same expression tree
 * the same way), from the same inputs: the value declarations read nothing the loop body
 * writes (no state, no counter, no memory the updates store to: refused otherwise), and
 * call nothing that writes. So item k's value is the same whether computed before or after
 * the updates of items < k. The updates then run one item at a time in index order, each
 * seeing its own item's index and values under their original names and types: the state
 * goes through the very same sequence of updates. A `break` of the update ends the jammed
 * loop at that item (the later items' values were computed, never used: they read only
 * items below the bound) and skips the remainder loop.
 *
 * Session 41 (mmcv's border_align: `for (int i = 1; i <= pool_size; i++) { x += x_stride;
 * y += y_stride; val = bilinear_interpolate(...); if (val > maxval) ... }`): a recurrence
 * among the values is the statement itself, run for each item in the items' order before that
 * item's values, so the variable goes through the very same sequence (never x_0 + k * stride,
 * which rounds otherwise); its step reads only itself and values the loop does not change,
 * and nothing else in the body writes it, so the updates cannot feed it. An update that reads
 * it gets its own item's value (kept after the item's values). An assigned value is computed
 * into a copy of the variable's type and given to the variable at the start of its item's
 * updates, so the variable holds each item's value when its updates run and the last one
 * after the loop. With a break a recurrence is refused (the jam would have stepped it past the
 * item the break ends at). */

#define SC_DECLS 16
#define SC_NAMES 64
#define SC_WHY 700

typedef struct {
    const char *text;
    const rw_toks *ts;
    const an_function *f;
    char why[SC_WHY];
    bool deep;                /* the refusal is about a loop of the right shape's values */
    bool values_without_loads; /* rw_scan_read_item_loop: values need not read memory */
    const an_model *m;        /* the file's functions, for reader calls in the values (NULL:
                               * a value may call pure functions only) */
    bool jam_forms;           /* unroll_jam_scan's own reading: `<=`, counting down, an
                               * unbraced body, assigned values and recurrences (not
                               * rw_scan_read_item_loop's callers) */
} sc_scan;

/* A statement of the values: a declaration (`T d = ...;`), or, in the jam's own reading
 * (sc_scan.jam_forms), an assignment of a load-bearing value to a local declared before the
 * loop (`val = bilinear_interpolate(...);`) or a recurrence (`x += x_stride;`). */
enum { SC_DECL, SC_ASSIGN, SC_REC };

typedef struct {
    size_t a, b;              /* the statement, its ';' included */
    size_t type_a, type_b;    /* its type (SC_DECL) */
    size_t name;              /* the declared name; the assigned or stepped local */
    size_t init_a, init_b;    /* the initializer; the assigned value; the step's operand (empty
                               * for ++ and --) */
    int kind;                 /* SC_DECL, SC_ASSIGN, SC_REC */
    bool snap;                /* SC_REC: the updates read it (each item's value kept) */
} sc_decl;

typedef struct {
    size_t loop_a, loop_b;    /* the for statement */
    size_t type_a, type_b;    /* the counter's type */
    size_t v;                 /* the counter's name in the init */
    size_t start_a, start_b;  /* its first value */
    size_t n_a, n_b;          /* the bound: `v < N` (`v <= N`, `v > N`, `v >= N`) */
    int dir;                  /* +1 counting up, -1 down (jam_forms) */
    bool inclusive;           /* `<=` or `>=` */
    size_t body_a, body_b;    /* the body's braces: [body_a] '{', [body_b - 1] '}'; unbraced
                               * (jam_forms): the statement [body_a, body_b) */
    size_t in_a, in_b;        /* the body's statements: inside the braces, or the statement */
    size_t n_rec;             /* recurrences among d */
    sc_decl d[SC_DECLS];
    size_t n_d;
    size_t upd_a, upd_b;      /* the updates: [upd_a, upd_b), upd_b the body's '}' or that of
                               * the block the values continue in (read_body) */
    bool has_break;
    uint32_t pragma_a, pragma_b; /* a `#pragma unroll` line before the loop: its bytes (a == b:
                               * none), moved onto the remainder loop */
} sc_loop;

#define refuse(s, k, ...) rwl_refuse((s)->why, sizeof (s)->why, (s)->ts, (s)->text, (k), __VA_ARGS__)
#define SPAN(ts, a, b) (int)((ts)->t[(b) - 1].end - (ts)->t[a].start), (ts)->text + (ts)->t[a].start
#define TOK(ts, k) (int)((ts)->t[k].end - (ts)->t[k].start), (ts)->text + (ts)->t[k].start

static bool same_name(const rw_toks *ts, size_t a, size_t b)
{
    return ts->t[a].kind == T_IDENT && ts->t[b].kind == T_IDENT && rwl_same_tok(ts, a, b);
}

static bool is_name(const rw_toks *ts, size_t k, size_t name)
{
    return rwl_is_use(ts, k) && same_name(ts, k, name);
}

/* Is token k inside an inner loop or switch of [a, b) (a loop or switch statement that
 * starts in [a, b) and holds k)? A break or continue there is that statement's own. */
static bool in_inner_construct(const rw_toks *ts, size_t a, size_t b, size_t k)
{
    for (size_t q = a; q < k && q < b; q++)
        if (rwl_tok_is(ts, q, "for") || rwl_tok_is(ts, q, "while") || rwl_tok_is(ts, q, "do") ||
            rwl_tok_is(ts, q, "switch")) {
            size_t e = rwl_stmt_end(ts, q, b);
            if (rwl_tok_is(ts, q, "do") && e < b && rwl_tok_is(ts, e, "while"))
                e = rwl_stmt_end(ts, e, b);
            if (k < e)
                return true;
        }
    return false;
}

/* Does the identifier at k, in [a, b), possibly get written there: assigned, ++/--, its
 * address taken, stored through (`k[...] = `, `*k = `), or passed bare to a call that may
 * write (a reference parameter, an array a callee fills: knn's reheap(best_dist, ...))? */
static bool written_at(const sc_scan *s, size_t k)
{
    const rw_toks *ts = s->ts;
    if (!rwl_is_use(ts, k))
        return false;
    if (rwl_scalar_written(ts, k))
        return true;
    if (rwl_tok_is(ts, k + 1, "[") || (k > 0 && rwl_tok_is(ts, k - 1, "*") && rwl_unary_position(ts, k - 1)))
        return rwl_occurrence_writes(ts, k);
    if (rwl_tok_is(ts, k + 1, ".") || rwl_tok_is(ts, k + 1, "->")) {
        size_t q = k + 2;
        while (q + 1 < ts->n && ts->t[q].kind == T_IDENT &&
               (rwl_tok_is(ts, q + 1, ".") || rwl_tok_is(ts, q + 1, "->")))
            q += 2;
        return rwl_scalar_written(ts, q) || rwl_tok_is(ts, q + 1, "[");
    }
    /* a bare argument: `f(x)`, `f(a, x)` (not `if (x)`, `while (x)`, `return (x)`) */
    if (k > 0 && (rwl_tok_is(ts, k - 1, "(") || rwl_tok_is(ts, k - 1, ",")) &&
        (rwl_tok_is(ts, k + 1, ")") || rwl_tok_is(ts, k + 1, ","))) {
        /* find the call's '(' */
        int depth = 0;
        for (size_t q = k; q > 0; q--) {
            if (rwl_tok_is(ts, q - 1, ")") || rwl_tok_is(ts, q - 1, "]"))
                depth++;
            else if (rwl_tok_is(ts, q - 1, "[") || (rwl_tok_is(ts, q - 1, "(") && depth > 0))
                depth--;
            else if (rwl_tok_is(ts, q - 1, "(") && depth == 0)
                /* a reader function takes pointers to const and the rest by value: it writes
                 * none of its arguments */
                return q >= 2 && ts->t[q - 2].kind == T_IDENT && !rwl_pure_call_name(ts, q - 2) &&
                       !rwl_is_type_word(ts, q - 2) && !rwl_tok_is(ts, q - 2, "if") &&
                       !rwl_tok_is(ts, q - 2, "while") && !rwl_tok_is(ts, q - 2, "switch") &&
                       !rwl_tok_is(ts, q - 2, "return") && !rwl_tok_is(ts, q - 2, "sizeof") &&
                       !(s->m && rwl_reader_call(s->m, s->text, s->f, ts, q - 2));
            if (rwl_tok_is(ts, q - 1, ";") || rwl_tok_is(ts, q - 1, "{") || rwl_tok_is(ts, q - 1, "}"))
                break;
        }
    }
    return false;
}

/* The kernel parameter named as token k, or NULL. */
static const an_param *param_of(const sc_scan *s, size_t k)
{
    for (size_t p = 0; p < s->f->n_params; p++) {
        const char *nm = s->f->params[p].name;
        size_t l = strlen(nm);
        if (l && l == s->ts->t[k].end - s->ts->t[k].start && !memcmp(nm, s->text + s->ts->t[k].start, l))
            return &s->f->params[p];
    }
    return NULL;
}

/* Is the name at k declared as an array in the kernel body (`float best[100];`): local
 * memory no pointer parameter can reach? */
static bool local_array(const sc_scan *s, size_t k)
{
    const rw_toks *ts = s->ts;
    for (size_t q = 1; q + 1 < ts->n; q++)
        if (same_name(ts, q, k) && rwl_tok_is(ts, q + 1, "[") && rwl_declared_here(ts, q))
            return true;
    return false;
}

/* Is the name at k an array declared in the kernel body (in registers, local or __shared__
 * memory) whose name is always subscripted: no pointer to it is ever formed, so a store
 * reaches its elements only by naming it (uniform_tiles' hk_r0[] and hk_tile0[])? */
static bool array_never_decays(const sc_scan *s, size_t k)
{
    const rw_toks *ts = s->ts;
    if (!local_array(s, k))
        return false;
    for (size_t q = 0; q + 1 < ts->n; q++)
        if (same_name(ts, q, k) && !rwl_tok_is(ts, q + 1, "["))
            return false;
    return true;
}

/* Is the name at k declared as a pointer in the kernel body (`float *p = ...`)? */
static bool local_pointer(const sc_scan *s, size_t k)
{
    const rw_toks *ts = s->ts;
    for (size_t q = 2; q + 1 < ts->n; q++)
        if (same_name(ts, q, k) && rwl_tok_is(ts, q - 1, "*") && rwl_declared_here(ts, q))
            return true;
    return false;
}

/* `[const] TYPE name = init, name2 = init2, ...;`: no array, no brace or paren init, no
 * declarator without an initializer; one sc_decl per declarator (the type shared, so a
 * later declarator may not add a `*`). Returns how many, 0 when the statement is not one. */
static size_t read_decl(const rw_toks *ts, size_t a, size_t b, sc_decl *d, size_t room)
{
    if (b <= a + 3 || !rwl_tok_is(ts, b - 1, ";"))
        return 0;
    if (rwl_tok_is(ts, a, "static") || rwl_tok_is(ts, a, "extern") || rwl_tok_is(ts, a, "__shared__"))
        return 0;
    size_t eq = SIZE_MAX;
    for (size_t q = a; q < b && eq == SIZE_MAX; q++) {
        if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "{") || rwl_tok_is(ts, q, ","))
            return 0;   /* an array, a constructor call, a declarator without a value */
        if (rwl_tok_is(ts, q, "="))
            eq = q;
    }
    if (eq == SIZE_MAX || eq < a + 2 || ts->t[eq - 1].kind != T_IDENT)
        return 0;
    for (size_t q = a; q + 1 < eq; q++)
        if (!(ts->t[q].kind == T_IDENT || rwl_tok_is(ts, q, "*") || rwl_tok_is(ts, q, "::")))
            return 0;
    size_t n = 0, name = eq - 1, type_b = eq - 1;
    for (;;) {
        /* the initializer runs to the next top-level ',' or the ';' */
        size_t q = eq + 1;
        while (q < b - 1 && !rwl_tok_is(ts, q, ",")) {
            if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "{")) {
                q = rwl_match_close(ts, q);
                if (q >= b)
                    return 0;
            }
            q++;
        }
        if (q == eq + 1 || n == room)
            return 0;
        d[n++] = (sc_decl){.a = a, .b = b, .type_a = a, .type_b = type_b, .name = name, .init_a = eq + 1, .init_b = q};
        if (q == b - 1)
            return n;
        /* `, name = ...` */
        if (q + 3 >= b || ts->t[q + 1].kind != T_IDENT || !rwl_tok_is(ts, q + 2, "="))
            return 0;
        name = q + 1;
        eq = q + 2;
    }
}

/* Is the name at n used in [a, b)? */
static bool used_in(const rw_toks *ts, size_t a, size_t b, size_t n)
{
    for (size_t k = a; k < b; k++)
        if (is_name(ts, k, n))
            return true;
    return false;
}

/* The header `for (TYPE v = A; v < N; ++v | v++ | v += 1)` and a braced body. */
static bool read_header(sc_scan *s, size_t k, sc_loop *L)
{
    const rw_toks *ts = s->ts;
    size_t hc = rwl_match_close(ts, k + 1);
    if (hc + 2 >= ts->n)
        return refuse(s, k, EN(RW_C_FOR_LOOP), EN(RW_UJ_NOT_CLOSED_HB));
    size_t s1 = SIZE_MAX, s2 = SIZE_MAX;
    for (size_t q = k + 2; q < hc; q++) {
        if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[")) {
            q = rwl_match_close(ts, q);
            continue;
        }
        if (rwl_tok_is(ts, q, ";")) {
            if (s1 == SIZE_MAX)
                s1 = q;
            else
                s2 = q;
        }
    }
    if (s1 == SIZE_MAX || s2 == SIZE_MAX)
        return refuse(s, k, EN(RW_C_FOR_LOOP), EN(RW_UJ_THREE_CLAUSES));
    /* init: TYPE v = A */
    size_t eq = SIZE_MAX;
    for (size_t q = k + 2; q < s1; q++)
        if (rwl_tok_is(ts, q, "=")) {
            eq = q;
            break;
        }
    if (eq == SIZE_MAX || eq < k + 4 || ts->t[eq - 1].kind != T_IDENT || !rwl_declared_here(ts, eq - 1))
        return refuse(s, k, EN(RW_C_FOR_LOOP), EN(RW_UJ_INIT_DECL));
    L->type_a = k + 2;
    L->type_b = eq - 1;
    L->v = eq - 1;
    L->start_a = eq + 1;
    L->start_b = s1;
    if (L->start_a >= L->start_b)
        return refuse(s, k, EN(RW_C_FOR_LOOP), EN(RW_UJ_NO_FIRST));
    for (size_t q = L->start_a; q < L->start_b; q++) {
        if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[")) {
            q = rwl_match_close(ts, q);
            continue;
        }
        if (rwl_tok_is(ts, q, ","))
            return refuse(s, k, EN(RW_C_FOR_LOOP), EN(RW_UJ_INIT_MORE));
    }
    for (size_t q = L->type_a; q < L->type_b; q++)
        if (!(ts->t[q].kind == T_IDENT))
            return refuse(s, k, EN(RW_C_FOR_LOOP), EN(RW_UJ_PLAIN_INT));
    /* cond: v < N; in the jam's reading also v <= N (border_align's `i <= pool_size`: the
     * items A..N), and counting down, v > N and v >= N */
    L->dir = 1;
    bool cmp = s2 > s1 + 3 && is_name(ts, s1 + 1, L->v);
    if (cmp && rwl_tok_is(ts, s1 + 2, "<"))
        ;
    else if (cmp && s->jam_forms && rwl_tok_is(ts, s1 + 2, "<="))
        L->inclusive = true;
    else if (cmp && s->jam_forms && (rwl_tok_is(ts, s1 + 2, ">") || rwl_tok_is(ts, s1 + 2, ">="))) {
        L->dir = -1;
        L->inclusive = rwl_tok_is(ts, s1 + 2, ">=");
    } else if (s->jam_forms)
        return refuse(s, s1 + 1, EN(RW_C_LOOP_CONDITION), EN(RW_UJ_NOT_COMPARED), TOK(ts, L->v), TOK(ts, L->v),
                      TOK(ts, L->v), TOK(ts, L->v));
    else
        return refuse(s, s1 + 1, EN(RW_C_LOOP_CONDITION), EN(RW_UJ_NOT_LESS), TOK(ts, L->v));
    L->n_a = s1 + 3;
    L->n_b = s2;
    if (used_in(ts, L->n_a, L->n_b, L->v))
        return refuse(s, s1 + 1, "loop bound", EN(RW_UJ_BOUND_READS_COUNTER), TOK(ts, L->v));
    for (size_t q = L->n_a; q < L->n_b; q++)
        if (rwl_tok_is(ts, q, "?") || rwl_tok_is(ts, q, "&&") || rwl_tok_is(ts, q, "||") ||
            rwl_tok_is(ts, q, "<") || rwl_tok_is(ts, q, ">") || rwl_tok_is(ts, q, "==") ||
            rwl_tok_is(ts, q, "<=") || rwl_tok_is(ts, q, ">=") || rwl_tok_is(ts, q, "!="))
            return refuse(s, s1 + 1, EN(RW_C_LOOP_CONDITION), EN(RW_UJ_MORE_COMPARISON), TOK(ts, L->v));
    /* step: ++v, v++, v += 1; counting down --v, v--, v -= 1 */
    const char *inc = L->dir > 0 ? "++" : "--", *by = L->dir > 0 ? "+=" : "-=";
    bool step = (hc == s2 + 3 && ((rwl_tok_is(ts, s2 + 1, inc) && is_name(ts, s2 + 2, L->v)) ||
                                  (is_name(ts, s2 + 1, L->v) && rwl_tok_is(ts, s2 + 2, inc)))) ||
                (hc == s2 + 4 && is_name(ts, s2 + 1, L->v) && rwl_tok_is(ts, s2 + 2, by) &&
                 rwl_tok_is(ts, s2 + 3, "1"));
    if (!step)
        return refuse(s, s2 + 1, EN(RW_C_LOOP_STEP), L->dir > 0 ? EN(RW_UJ_NOT_INCREMENT) : EN(RW_UJ_NOT_DECREMENT),
                      TOK(ts, L->v));
    /* the body: braced; in the jam's reading also one statement (prroi_pool's
     * `for (...) sum_out += ...;`), which the remainder loop keeps as it is */
    bool braced = rwl_tok_is(ts, hc + 1, "{");
    if (!braced && !s->jam_forms)
        return refuse(s, hc + 1, "loop body", EN(RW_TK_NOT_BRACED));
    /* a `#pragma unroll` before it (between the previous token and the for): unrolling puts
     * the items side by side but keeps each update's branch between one item's value and the
     * next's (uniform_tiles' full-tile loop: its items' loads first, then each item's value
     * and update in turn). The jam is still worth it; the pragma goes onto the remainder loop
     * (left before the jam's block it would unroll nothing, and nvcc warns). */
    const char *gap = s->text + (k > 0 ? ts->t[k - 1].end : ts->t[k].start);
    size_t gl = ts->t[k].start - (size_t)(gap - s->text);
    for (size_t q = 0; q + 7 <= gl; q++) {
        if (memcmp(gap + q, "#pragma", 7) != 0)
            continue;
        const char *nl = memchr(gap + q, '\n', gl - q);
        size_t ll = nl ? (size_t)(nl - (gap + q)) : gl - q;
        if (!memmem(gap + q, ll, "unroll", 6))
            continue;
        if (L->pragma_b > L->pragma_a)
            return refuse(s, k, EN(RW_C_FOR_LOOP), EN(RW_UJ_TWO_PRAGMAS));
        L->pragma_a = (uint32_t)(gap + q - s->text);
        L->pragma_b = (uint32_t)(gap + q + ll - s->text);
    }
    L->body_a = hc + 1;
    if (braced) {
        size_t bc = rwl_match_close(ts, hc + 1);
        if (bc >= ts->n)
            return refuse(s, hc + 1, "loop body", EN(RW_UJ_NOT_CLOSED));
        L->body_b = bc + 1;
        L->in_a = L->body_a + 1;
        L->in_b = bc;
    } else {
        if (rwl_tok_is(ts, hc + 1, ";"))
            return refuse(s, hc + 1, "loop body", EN(RW_UJ_NO_VALUES));   /* empty */
        L->body_b = rwl_stmt_end(ts, hc + 1, ts->n);
        if (L->body_b <= hc + 1 || L->body_b > ts->n ||
            !(rwl_tok_is(ts, L->body_b - 1, ";") || rwl_tok_is(ts, L->body_b - 1, "}")))
            return refuse(s, hc + 1, "loop body", EN(RW_UJ_NOT_CLOSED));
        L->in_a = L->body_a;
        L->in_b = L->body_b;
    }
    L->loop_a = k;
    L->loop_b = L->body_b;
    return true;
}

/* Does [a, b), a value's expression, read memory: a subscript, a dereference, or a call
 * of a function that is given a pointer (a function of the file reads memory only through a
 * pointer it is given: SHOC's `ToFlatIdx(row, col, width)` is index arithmetic)? */
static bool value_loads(const sc_scan *s, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is(ts, k, "*") && rwl_unary_position(ts, k))
            return true;
        if (!((rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "(")) && k > a && ts->t[k - 1].kind == T_IDENT &&
              !rwl_is_type_word(ts, k - 1)))
            continue;
        if (rwl_tok_is(ts, k, "[") || rwl_pure_call_name(ts, k - 1))
            return true;
        size_t close = rwl_match_close(ts, k);
        for (size_t q = k + 1; q < close; q++) {
            const an_param *ap = ts->t[q].kind == T_IDENT ? param_of(s, q) : NULL;
            if (ts->t[q].kind == T_IDENT && ((ap && ap->pointer_depth > 0) || (!ap && local_pointer(s, q))))
                return true;
        }
    }
    return false;
}

/* The first token of the body other than `except` that writes or declares the name at n,
 * or SIZE_MAX. */
static size_t written_in_body(const sc_scan *s, const sc_loop *L, size_t n, size_t except)
{
    const rw_toks *ts = s->ts;
    for (size_t k = L->in_a; k < L->in_b; k++)
        if (k != except && same_name(ts, k, n) &&
            ((rwl_is_use(ts, k) && written_at(s, k)) || rwl_declared_here(ts, k)))
            return k;
    return SIZE_MAX;
}

/* Is the name at q a declarator of a statement that starts with a type parameter of the
 * kernel's template (border_align's `T *offset_output, box_width, ..., x, y, val, maxval;`,
 * which rwl_declared_here does not take for a declaration: `T *` could be a product)? */
static bool declarator_of_template_type(const sc_scan *s, size_t q)
{
    const rw_toks *ts = s->ts;
    if (!s->f->template_params || !rwl_is_use(ts, q) ||
        !(rwl_tok_is(ts, q + 1, ",") || rwl_tok_is(ts, q + 1, ";") || rwl_tok_is(ts, q + 1, "=")))
        return false;
    size_t p = q;
    while (p > 0 && (rwl_tok_is(ts, p - 1, "*") || ts->t[p - 1].kind == T_IDENT || rwl_tok_is(ts, p - 1, ",")))
        p--;   /* back over `T *a, b, *c,` to the statement's first token */
    if (!(p == 0 || rwl_tok_is(ts, p - 1, ";") || rwl_tok_is(ts, p - 1, "{") || rwl_tok_is(ts, p - 1, "}")))
        return false;
    if (rwl_tok_is(ts, p, "const"))
        p++;
    return p < q && ts->t[p].kind == T_IDENT && rwl_template_type_param(s->f->template_params, ts, p);
}

/* Is the name at n a by-value parameter of the kernel or a variable declared in its body
 * before the loop, neither a reference nor an array (what `decltype(n)` copies)? */
static bool kernel_local(const sc_scan *s, const sc_loop *L, size_t n)
{
    const rw_toks *ts = s->ts;
    const an_param *p = param_of(s, n);
    size_t at = SIZE_MAX;
    for (size_t q = 1; q < L->loop_a; q++)
        if (same_name(ts, q, n) && (rwl_declared_here(ts, q) || declarator_of_template_type(s, q)))
            at = q;   /* the last one before the loop */
    if (at == SIZE_MAX)
        return p != NULL;
    return !rwl_tok_is(ts, at - 1, "&") && !rwl_tok_is(ts, at + 1, "[");
}

/* In the jam's reading, a statement [q, e) of the values that is not a declaration: an
 * assignment `v = E;` of a local declared before the loop whose E reads memory (border_align's
 * `val = bilinear_interpolate(...);`), or a recurrence `x += E;` (`-=`, `*=`, `/=`, `x = ..x..`,
 * `++x`) whose E is pure arithmetic on values the loop does not change (border_align's
 * `x += x_stride;`): each item's x is computed from the item before's, in the original order,
 * before its values, so the jam keeps the very same sequence x_0, x_1, ... (never x_0 + k * E,
 * which rounds differently). 1: read into d; 0: not this form (the updates start here); -1:
 * refused, the reason in s->why. */
static int read_value_stmt(sc_scan *s, const sc_loop *L, size_t q, size_t e, sc_decl *d)
{
    const rw_toks *ts = s->ts;
    if (e < q + 3 || !rwl_tok_is(ts, e - 1, ";"))
        return 0;
    size_t name, op_a = e - 1, op_b = e - 1;
    bool rec = true;
    if ((rwl_tok_is(ts, q, "++") || rwl_tok_is(ts, q, "--")) && e == q + 3 && ts->t[q + 1].kind == T_IDENT)
        name = q + 1;
    else if (ts->t[q].kind == T_IDENT && rwl_is_use(ts, q) && e == q + 3 &&
             (rwl_tok_is(ts, q + 1, "++") || rwl_tok_is(ts, q + 1, "--")))
        name = q;
    else if (ts->t[q].kind == T_IDENT && rwl_is_use(ts, q) && e > q + 3 &&
             (rwl_tok_is(ts, q + 1, "=") || rwl_tok_is(ts, q + 1, "+=") || rwl_tok_is(ts, q + 1, "-=") ||
              rwl_tok_is(ts, q + 1, "*=") || rwl_tok_is(ts, q + 1, "/="))) {
        name = q;
        op_a = q + 2;
        rec = !rwl_tok_is(ts, q + 1, "=") || used_in(ts, op_a, op_b, name);
    } else
        return 0;
    /* an assignment of arithmetic puts no load in flight: it stays with the updates; so does a
     * write of the counter (refused there) */
    if ((!rec && !value_loads(s, op_a, op_b)) || is_name(ts, name, L->v))
        return 0;
    /* a step that reads memory or calls a function is an accumulation of loaded values (a sum,
     * `s += x[k]`): no recurrence but an update, so the loop has no value first */
    for (size_t k = op_a; k < op_b && rec; k++)
        if (rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "->") || (rwl_tok_is(ts, k, "*") && rwl_unary_position(ts, k)) ||
            (ts->t[k].kind == T_IDENT && rwl_tok_is(ts, k + 1, "(") && !rwl_pure_call_name(ts, k) &&
             !rwl_is_type_word(ts, k)))
            return 0;
    *d = (sc_decl){.a = q, .b = e, .name = name, .init_a = op_a, .init_b = op_b, .kind = rec ? SC_REC : SC_ASSIGN};
    const char *what = rec ? "recurrence" : "value assignment";
    if (!kernel_local(s, L, name))
        return refuse(s, name, what, EN(RW_UJ_NOT_LOCAL), TOK(ts, name)), -1;
    size_t other = written_in_body(s, L, name, name);
    if (other != SIZE_MAX)
        return refuse(s, name, what, EN(RW_UJ_WRITTEN_TWICE), TOK(ts, name), rwl_line_at(s->text, ts->t[other].start)),
               -1;
    if (!rec)
        return 1;
    for (size_t k = op_a; k < op_b; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k) || same_name(ts, k, name) || rwl_tok_is(ts, k + 1, "("))
            continue;
        if (is_name(ts, k, L->v) || written_in_body(s, L, k, SIZE_MAX) != SIZE_MAX)
            return refuse(s, k, what, EN(RW_UJ_REC_READS), TOK(ts, name), TOK(ts, k)), -1;
    }
    return 1;
}

/* The body: value declarations first, then the updates; what they may read and do. */
/* The name at k a macro of the file whose replacement text reads memory (`[`, `->`, a unary
 * `*`), assigns, calls what is not pure, or names one of the names w[0, nw) the loop body
 * writes -- or again such a macro, up to depth deep: a value reading it is no longer the
 * item's alone (session 46: `#define LIMV (lim[0])` in a value applied). The offending name
 * of the text into *hit (its token in ts when it is one of w, else k). */
static bool macro_unsafe(const sc_scan *s, const rw_toks *ts, size_t k, const size_t *w, size_t nw, int depth)
{
    size_t len = strlen(s->text), nl = ts->t[k].end - ts->t[k].start, at = 0, a, b;
    bool bad = false;
    while (!bad && rwl_next_define(s->text, len, &at, ts->text + ts->t[k].start, nl, &a, &b)) {
        if (depth <= 0)
            return true;
        rw_toks mt = {0};
        if (rwl_lex(s->text, (uint32_t)(a + nl), (uint32_t)b, &mt) != HK_OK) {
            rwl_toks_free(&mt);
            return true;
        }
        size_t q0 = s->text[a + nl] == '(' && mt.n ? rwl_match_close(&mt, 0) + 1 : 0;
        for (size_t q = q0; q < mt.n && !bad; q++) {
            if (rwl_tok_is(&mt, q, "[") || rwl_tok_is(&mt, q, "->") || rwl_tok_is(&mt, q, "++") ||
                rwl_tok_is(&mt, q, "--") || (rwl_tok_is_assign_op(&mt, q) && !rwl_tok_is(&mt, q, "==")) ||
                (rwl_tok_is(&mt, q, "*") && rwl_unary_position(&mt, q)))
                bad = true;
            else if (mt.t[q].kind == T_IDENT && q + 1 < mt.n && rwl_tok_is(&mt, q + 1, "(") &&
                     !rwl_pure_call_name(&mt, q) && !rwl_is_type_word(&mt, q))
                bad = true;
            else if (mt.t[q].kind == T_IDENT) {
                size_t ml = mt.t[q].end - mt.t[q].start;
                for (size_t j = 0; j < nw && !bad; j++)
                    bad = ts->t[w[j]].end - ts->t[w[j]].start == ml &&
                          !memcmp(ts->text + ts->t[w[j]].start, s->text + mt.t[q].start, ml);
                if (!bad && (ml != nl || memcmp(s->text + mt.t[q].start, ts->text + ts->t[k].start, nl)))
                    bad = macro_unsafe(s, &mt, q, w, nw, depth - 1);
            }
        }
        rwl_toks_free(&mt);
    }
    return bad;
}

static bool read_body(sc_scan *s, sc_loop *L)
{
    const rw_toks *ts = s->ts;
    size_t q = L->in_a, end = L->in_b;
    while (q < end) {
        size_t e = rwl_stmt_end(ts, q, end);
        if (rwl_starts_declaration(ts, q)) {
            size_t got = read_decl(ts, q, e, L->d + L->n_d, SC_DECLS - L->n_d);
            if (!got)
                break;   /* a declaration of another form (or too many): it belongs to the updates */
            L->n_d += got;
        } else if (s->jam_forms && L->n_d < SC_DECLS) {
            int got = read_value_stmt(s, L, q, e, L->d + L->n_d);
            if (got < 0 && L->n_d == 0)
                return false;   /* the loop's first statement has the form and is refused */
            if (got <= 0) {
                s->why[0] = '\0';
                break;          /* after values: it starts the updates (exact as before) */
            }
            L->n_rec += L->d[L->n_d].kind == SC_REC;
            L->n_d++;
        } else
            break;
        q = e;
    }
    L->upd_b = end;
    /* the values may go on in a block that ends the body (`{ int i = ...; { T x = ...; T d =
     * ...; if (d < best) ... } }`: uniform_tiles wraps the original body so): its leading
     * declarations are values too, and the updates are the rest of that block. Not when one
     * of them would shadow a value or the counter (the jam declares them side by side). */
    if (q < end && rwl_tok_is(ts, q, "{") && rwl_match_close(ts, q) == end - 1) {
        size_t ie = end - 1, iq = q + 1, n0 = L->n_d;
        while (iq < ie && rwl_starts_declaration(ts, iq)) {
            size_t e = rwl_stmt_end(ts, iq, ie);
            size_t got = read_decl(ts, iq, e, L->d + L->n_d, SC_DECLS - L->n_d);
            if (!got)
                break;
            L->n_d += got;
            iq = e;
        }
        bool clash = false;
        for (size_t i = n0; i < L->n_d && !clash; i++) {
            clash = same_name(ts, L->d[i].name, L->v);
            for (size_t j = 0; j < i && !clash; j++)
                clash = same_name(ts, L->d[i].name, L->d[j].name);
        }
        if (L->n_d > n0 && !clash && iq < ie) {
            q = iq;
            L->upd_b = ie;
        } else
            L->n_d = n0;
    }
    if (L->n_d == L->n_rec)
        return refuse(s, L->in_a, "loop body", EN(RW_UJ_NO_VALUES));
    if (q >= L->upd_b)
        return refuse(s, L->body_a, "loop body", EN(RW_UJ_NO_UPDATE));
    L->upd_a = q;
    s->deep = true;
    /* what the body writes, outside the value declarations' own names */
    size_t w[SC_NAMES], nw = 0;
    for (size_t k = L->in_a; k < end; k++) {
        if (ts->t[k].kind != T_IDENT || !written_at(s, k))
            continue;
        bool decl_name = false;
        for (size_t i = 0; i < L->n_d; i++)
            decl_name |= k == L->d[i].name;
        if (decl_name)
            continue;
        if (nw == SC_NAMES)
            return refuse(s, k, "loop body", EN(RW_UJ_WRITES_MORE), SC_NAMES);
        w[nw++] = k;
    }
    /* the barriers and the jumps the jam would change */
    for (size_t k = L->in_a; k < end; k++) {
        if (ts->t[k].kind != T_IDENT && !rwl_tok_is(ts, k, "break") && !rwl_tok_is(ts, k, "continue"))
            continue;
        if (rwl_tok_is(ts, k, "__syncthreads") || rwl_tok_is(ts, k, "__syncwarp") ||
            (ts->t[k].end - ts->t[k].start > 6 && !memcmp(ts->text + ts->t[k].start, "__shfl", 6)) ||
            rwl_tok_is(ts, k, "__ballot_sync") || rwl_tok_is(ts, k, "__any_sync") ||
            rwl_tok_is(ts, k, "__all_sync"))
            return refuse(s, k, "barrier", EN(RW_UJ_BARRIER));
        if (rwl_tok_is(ts, k, "goto"))
            return refuse(s, k, "goto", EN(RW_UJ_GOTO));
        if (rwl_tok_is(ts, k, "continue") && !in_inner_construct(ts, L->in_a, end, k))
            return refuse(s, k, "continue", EN(RW_UJ_CONTINUE));
        if (rwl_tok_is(ts, k, "break") && !in_inner_construct(ts, L->in_a, end, k))
            L->has_break = true;
        if (!strncmp(ts->text + ts->t[k].start, "hk_uj", 5))
            return refuse(s, k, "loop body", EN(RW_UJ_ALREADY));
        /* a macro whose text jumps or waits (`#define STOP break`): the jam would not see it
         * (session 46: a break in a macro left the main loop only, the rest scanned on) */
        static const char *const jumps[] = {"break", "continue", "goto", "return", "asm", "__syncthreads",
                                            "__syncwarp"};
        const char *jw = ts->t[k].kind == T_IDENT
                             ? rwl_macro_text_word(s->text, strlen(s->text), ts->text + ts->t[k].start,
                                                   ts->t[k].end - ts->t[k].start, jumps, HK_ARRAY_LEN(jumps), 4)
                             : NULL;
        if (jw)
            return refuse(s, k, "macro", EN(RW_UJ_MACRO_JUMP), TOK(ts, k), jw);
    }
    for (size_t i = 0; i < nw; i++) {
        if (same_name(ts, w[i], L->v))
            return refuse(s, w[i], EN(RW_C_LOOP_COUNTER), EN(RW_UJ_COUNTER_WRITTEN), TOK(ts, L->v));
        for (size_t k = L->n_a; k < L->n_b; k++)
            if (is_name(ts, k, w[i]))
                return refuse(s, w[i], "loop bound", EN(RW_UJ_BOUND_WRITTEN), TOK(ts, w[i]));
    }
    for (size_t k = L->n_a; k < L->n_b; k++)
        if (rwl_tok_is(ts, k, "[") || (rwl_tok_is(ts, k, "(") && k > L->n_a && ts->t[k - 1].kind == T_IDENT))
            return refuse(s, k, "loop bound", EN(RW_UJ_BOUND_READS));
    /* an assigned value or a recurrence: not in the bound; a recurrence not with a break (the
     * jam would have stepped it past the item the break ends the scan at); the updates that
     * read a recurrence see their own item's */
    for (size_t i = 0; i < L->n_d; i++) {
        if (L->d[i].kind == SC_DECL)
            continue;
        if (used_in(ts, L->n_a, L->n_b, L->d[i].name))
            return refuse(s, L->d[i].name, "loop bound", EN(RW_UJ_BOUND_WRITTEN), TOK(ts, L->d[i].name));
        if (L->d[i].kind == SC_REC && L->has_break)
            return refuse(s, L->d[i].name, "recurrence", EN(RW_UJ_REC_BREAK), TOK(ts, L->d[i].name));
        L->d[i].snap = L->d[i].kind == SC_REC && used_in(ts, L->upd_a, L->upd_b, L->d[i].name);
    }
    /* values that read no memory and call nothing (uniform_tiles' partial tile: `int k = hk_k0 +
     * hk_j;`, its reads behind a bound check; roi_align's sample coordinate `y` before a loop
     * over x) put no load in flight: the compiler may move such arithmetic across the items
     * itself, and the jam's gain is the loads of U items issued together */
    bool reads = false;
    for (size_t i = 0; i < L->n_d && !reads; i++)
        reads = L->d[i].kind != SC_REC && value_loads(s, L->d[i].init_a, L->d[i].init_b);
    if (!reads && !s->values_without_loads)
        return refuse(s, L->d[0].name, "value declaration", EN(RW_UJ_NO_LOAD), TOK(ts, L->d[0].name));
    /* the value declarations: nothing the body writes, no writes, no calls that may write */
    for (size_t i = 0; i < L->n_d; i++) {
        const sc_decl *d = &L->d[i];
        if (d->kind == SC_REC)
            continue;   /* its operand was read as pure arithmetic (read_value_stmt) */
        const char *con = d->kind == SC_ASSIGN ? "value assignment" : "value declaration";
        for (size_t k = d->init_a; k < d->init_b; k++) {
            if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
                continue;
            /* an assigned value read before the item assigns it (or by its own value) is the
             * item before's, which the jam keeps in the updates, not here */
            for (size_t j = i; j < L->n_d; j++)
                if (L->d[j].kind == SC_ASSIGN && same_name(ts, k, L->d[j].name))
                    return refuse(s, k, con, EN(RW_UJ_READ_BEFORE), TOK(ts, d->name), TOK(ts, k),
                                  rwl_line_at(s->text, ts->t[L->d[j].name].start));
            /* a reader function of the file (rwl_reader_call: a function of its arguments and of
             * memory it only reads, mmcv's bilinear_interpolate) is a value as an expression is:
             * its arguments are checked as the declaration's other names, and a pointer passed to
             * it as memory read (below) */
            if ((rwl_tok_is(ts, k + 1, "(") || rwl_tok_is(ts, k + 1, "<")) && !rwl_pure_call_name(ts, k) &&
                !rwl_is_type_word(ts, k) && rwl_call_paren(ts, k)) {
                if (!s->m || !rwl_reader_call(s->m, s->text, s->f, ts, k))
                    return refuse(s, k, con, EN(RW_UJ_CALLS), TOK(ts, d->name), TOK(ts, k));
                continue;
            }
            if (written_at(s, k) || rwl_tok_is_assign_op(ts, k + 1))
                return refuse(s, k, con, EN(RW_UJ_VALUE_WRITES), TOK(ts, d->name), TOK(ts, k));
            if (!param_of(s, k) && macro_unsafe(s, ts, k, w, nw, 4))
                return refuse(s, k, con, EN(RW_UJ_MACRO), TOK(ts, d->name), TOK(ts, k));
            for (size_t j = 0; j < nw; j++)
                if (same_name(ts, k, w[j]))
                    return refuse(s, k, con, EN(RW_UJ_READS_WRITTEN), TOK(ts, d->name), TOK(ts, k),
                                  rwl_line_at(s->text, ts->t[w[j]].start));
            /* memory read through a pointer: none of the body's stores may reach it */
            bool mem = rwl_tok_is(ts, k + 1, "[") || (k > d->init_a && rwl_tok_is(ts, k - 1, "*") &&
                                                      rwl_unary_position(ts, k - 1));
            /* a pointer handed to a call (a reader: the only calls left) is memory it reads */
            const an_param *kp = param_of(s, k);
            if (!mem && k > d->init_a && (rwl_tok_is(ts, k - 1, "(") || rwl_tok_is(ts, k - 1, ",")) &&
                (rwl_tok_is(ts, k + 1, ")") || rwl_tok_is(ts, k + 1, ",") || rwl_tok_is(ts, k + 1, "+") ||
                 rwl_tok_is(ts, k + 1, "-")))
                mem = (kp && kp->pointer_depth > 0) || (!kp && local_pointer(s, k));
            if (!mem)
                continue;
            /* an array of the kernel's own that no pointer reaches: only a store that names it,
             * which the check above refuses */
            if (array_never_decays(s, k))
                continue;
            const an_param *rp = param_of(s, k);
            for (size_t j = 0; j < nw; j++) {
                const an_param *wp = param_of(s, w[j]);
                /* a store through it, or a pointer handed to a call (a scalar passed is at most a
                 * reference to a register: no memory the values read) */
                bool store = rwl_tok_is(ts, w[j] + 1, "[") ||
                             (w[j] > 0 && rwl_tok_is(ts, w[j] - 1, "*") && rwl_unary_position(ts, w[j] - 1)) ||
                             ((rwl_tok_is(ts, w[j] + 1, ")") || rwl_tok_is(ts, w[j] + 1, ",")) &&
                              !rwl_scalar_written(ts, w[j]) &&
                              ((wp && wp->pointer_depth > 0) || (!wp && local_pointer(s, w[j]))));
                if (!store || local_array(s, w[j]))
                    continue;
                /* a store of another element type cannot change these elements (the
                 * original would have undefined behaviour if it did); restrict says no alias */
                if (rp && wp && wp->pointer_depth == 1 && rp->pointer_depth == 1 &&
                    (rp->is_restrict || wp->is_restrict || strcmp(rp->elem_type, wp->elem_type) != 0))
                    continue;
                return refuse(s, k, con, EN(RW_UJ_READS_REACHED), TOK(ts, d->name), TOK(ts, k),
                              TOK(ts, w[j]), rwl_line_at(s->text, ts->t[w[j]].start));
            }
        }
    }
    return true;
}

bool rw_scan_read_item_loop(const char *text, const rw_toks *ts, const an_function *f, size_t k,
                            bool need_load, rw_scan_loop *out, char *why, size_t n)
{
    sc_scan s = {.text = text, .ts = ts, .f = f, .values_without_loads = !need_load};
    sc_loop L;
    memset(&L, 0, sizeof L);
    memset(out, 0, sizeof *out);
    _Static_assert(SC_DECLS <= RW_SCAN_VALUES, "every value fits rw_scan_loop"); /* i18n: not for people */
    if (!read_header(&s, k, &L) || !read_body(&s, &L)) {
        snprintf(why, n, "%s", s.why);
        return false;
    }
    *out = (rw_scan_loop){.loop_a = L.loop_a, .loop_b = L.loop_b, .type_a = L.type_a, .type_b = L.type_b,
                          .v = L.v, .start_a = L.start_a, .start_b = L.start_b, .n_a = L.n_a, .n_b = L.n_b,
                          .body_a = L.body_a, .body_b = L.body_b, .n_values = L.n_d, .upd_a = L.upd_a,
                          .upd_b = L.upd_b, .has_break = L.has_break};
    for (size_t i = 0; i < L.n_d; i++) {
        out->value_name[i] = L.d[i].name;
        out->value_type_a[i] = L.d[i].type_a;
        out->value_type_b[i] = L.d[i].type_b;
    }
    return true;
}

/* Appends tokens [a, b) with the loop's counter replaced by ctr and each value
 * declaration's name among the first upto by hk_uj<j>_<name>, spaced as in the source. */
static int append_renamed(struct hk_buf *o, const rw_toks *ts, const sc_loop *L, size_t a, size_t b, int j,
                          const char *ctr, size_t upto)
{
    int rc = HK_OK;
    for (size_t k = a; k < b && !rc; k++) {
        if (k > a && ts->t[k].start > ts->t[k - 1].end)
            rc = hk_buf_printf(o, " ");
        if (rc)
            break;
        if (is_name(ts, k, L->v)) {
            rc = hk_buf_printf(o, "%s", ctr);
            continue;
        }
        bool done = false;
        for (size_t i = 0; i < upto && !done; i++)   /* only names declared before: `x` of an outer
                                                      * scope read before a value named x is not it;
                                                      * a recurrence is the variable itself */
            if (L->d[i].kind != SC_REC && is_name(ts, k, L->d[i].name)) {
                rc = hk_buf_printf(o, "hk_uj%d_%.*s", j, TOK(ts, k));
                done = true;
            }
        if (!done && !rc)
            rc = hk_buf_printf(o, "%.*s", TOK(ts, k));
    }
    return rc;
}

/* The updates [upd_a, upd_b) as written, a break of the item loop made
 * `{ hk_uj_stop = true; break; }`. */
static int append_updates(struct hk_buf *o, const sc_scan *s, const sc_loop *L)
{
    const rw_toks *ts = s->ts;
    size_t a = L->upd_a, end = L->upd_b;
    uint32_t at = ts->t[a].start;
    int rc = HK_OK;
    for (size_t k = a; k < end && !rc; k++)
        if (rwl_tok_is(ts, k, "break") && !in_inner_construct(ts, L->in_a, end, k)) {
            rc = hk_buf_printf(o, "%.*s{ hk_uj_stop = true; break; }", (int)(ts->t[k].start - at), s->text + at);
            at = ts->t[k].end;
            if (rwl_tok_is(ts, k + 1, ";"))
                at = ts->t[++k].end;
        }
    if (!rc)
        rc = hk_buf_printf(o, "%.*s", (int)(ts->t[end - 1].end - at), s->text + at);
    return rc;
}

/* One jammed group inside the main loop's braces: U items' counters and values (hk_uj + j),
 * then their updates in order, each in a block of its own under the original names. */
static int emit_group(struct hk_buf *o, const sc_scan *s, const sc_loop *L, int U, const char *ind, const char *type)
{
    const rw_toks *ts = s->ts;
    int rc = HK_OK;
    for (int j = 0; j < U && !rc; j++) {
        char ctr[32];
        snprintf(ctr, sizeof ctr, "hk_uj_k%d", j);
        rc = hk_buf_printf(o, "%s        const %s %s = hk_uj %c %d;\n", ind, type, ctr, L->dir > 0 ? '+' : '-', j);
        for (size_t i = 0; i < L->n_d && !rc; i++) {
            const sc_decl *d = &L->d[i];
            if (d->kind == SC_REC) {
                /* the recurrence itself, on the variable, in the items' order */
                rc = hk_buf_printf(o, "%s        ", ind);
                if (!rc)
                    rc = append_renamed(o, ts, L, d->a, d->b, j, ctr, i);
                if (!rc)
                    rc = hk_buf_printf(o, "\n");
                continue;
            }
            if (d->kind == SC_ASSIGN)   /* the type of the variable: converted as the assignment does */
                rc = hk_buf_printf(o, "%s        decltype(%.*s) hk_uj%d_%.*s = ", ind, TOK(ts, d->name), j,
                                   TOK(ts, d->name));
            else
                rc = hk_buf_printf(o, "%s        %.*s hk_uj%d_%.*s = ", ind, SPAN(ts, d->type_a, d->type_b), j,
                                   TOK(ts, d->name));
            if (!rc)
                rc = append_renamed(o, ts, L, d->init_a, d->init_b, j, ctr, i);
            if (!rc)
                rc = hk_buf_printf(o, ";\n");
        }
        /* a recurrence the updates read: this item's value of it */
        for (size_t i = 0; i < L->n_d && !rc; i++)
            if (L->d[i].snap)
                rc = hk_buf_printf(o, "%s        const decltype(%.*s) hk_uj%d_%.*s = %.*s;\n", ind, TOK(ts, L->d[i].name),
                                   j, TOK(ts, L->d[i].name), TOK(ts, L->d[i].name));
    }
    size_t end = L->upd_b;
    for (int j = 0; j < U && !rc; j++) {
        rc = hk_buf_printf(o, "%s        {\n", ind);
        if (!rc && used_in(ts, L->upd_a, end, L->v))
            rc = hk_buf_printf(o, "%s            %s %.*s = hk_uj_k%d;\n", ind, type, TOK(ts, L->v), j);
        for (size_t i = 0; i < L->n_d && !rc; i++) {
            const sc_decl *d = &L->d[i];
            if (d->kind == SC_ASSIGN)   /* the variable gets the item's value, as in the original */
                rc = hk_buf_printf(o, "%s            %.*s = hk_uj%d_%.*s;\n", ind, TOK(ts, d->name), j,
                                   TOK(ts, d->name));
            else if (d->kind == SC_REC && d->snap)   /* read, never written, by the updates */
                rc = hk_buf_printf(o, "%s            const decltype(hk_uj%d_%.*s) %.*s = hk_uj%d_%.*s;\n", ind, j,
                                   TOK(ts, d->name), TOK(ts, d->name), j, TOK(ts, d->name));
            else if (d->kind == SC_DECL && used_in(ts, L->upd_a, end, d->name))
                rc = hk_buf_printf(o, "%s            %.*s %.*s = hk_uj%d_%.*s;\n", ind, SPAN(ts, d->type_a, d->type_b),
                                   TOK(ts, d->name), j, TOK(ts, d->name));
        }
        if (!rc)
            rc = hk_buf_printf(o, "%s            ", ind);
        if (!rc)
            rc = append_updates(o, s, L);
        if (!rc)
            rc = hk_buf_printf(o, "\n%s        }\n", ind);
    }
    return rc;
}

/* The number in [a, b) when it is one integer literal (`4`, `4u`), else -1. */
static long literal_at(const rw_toks *ts, size_t a, size_t b)
{
    if (b != a + 1 || ts->t[a].kind != T_NUMBER)
        return -1;
    char *e = NULL;
    long v = strtol(ts->text + ts->t[a].start, &e, 0);
    return e && v >= 0 && (e == ts->text + ts->t[a].end || *e == 'u' || *e == 'U') ? v : -1;
}

/* The items of a loop counted in the source (uniform_tiles' full tile `hk_u < 4`: its bound,
 * one more with `<=`; counting down, from a literal first value to a literal bound), else -1. */
static long literal_items(const rw_toks *ts, const sc_loop *L)
{
    long n = literal_at(ts, L->n_a, L->n_b);
    if (n < 0)
        return -1;
    if (L->dir > 0)
        return n + L->inclusive;
    long first = literal_at(ts, L->start_a, L->start_b);
    return first < 0 ? -1 : first >= n ? first - n + L->inclusive : 0;
}

static int emit_loop(struct hk_buf *o, const sc_scan *s, const sc_loop *L, int U, const char *ind)
{
    const rw_toks *ts = s->ts;
    char type[256], bound[512];
    snprintf(type, sizeof type, "%.*s", SPAN(ts, L->type_a, L->type_b));
    snprintf(bound, sizeof bound, "(%.*s)", SPAN(ts, L->n_a, L->n_b));
    /* the items left from hk_uj on: `N - hk_uj` counting up, `hk_uj - N` down, one more with
     * `<=` or `>=`; the comparison first, so the difference does not wrap */
    const char *op = L->dir > 0 ? (L->inclusive ? "<=" : "<") : (L->inclusive ? ">=" : ">");
    char left[600];
    if (L->dir > 0)
        snprintf(left, sizeof left, "%s - hk_uj", bound);
    else
        snprintf(left, sizeof left, "hk_uj - %s", bound);
    int more = L->inclusive ? 1 : 0;   /* items = left + more */
    char step = L->dir > 0 ? '+' : '-';
    int rc = hk_buf_printf(o, "{   /* hk: unroll_jam_scan: %d items' values first, then their updates in order */\n", /* i18n: not for people */
                           U);
    if (!rc)
        rc = hk_buf_printf(o, "%s    %s hk_uj = %.*s;\n", ind, type, SPAN(ts, L->start_a, L->start_b));
    if (!rc && L->has_break)
        rc = hk_buf_printf(o, "%s    bool hk_uj_stop = false;\n", ind);
    if (!rc)
        rc = hk_buf_printf(o, "%s    for (; hk_uj %s %s && %s >= %d; hk_uj %c= %d) {\n", ind, op, bound, left, U - more,
                           step, U);
    if (!rc)
        rc = emit_group(o, s, L, U, ind, type);
    /* what is left, fewer than U items, jammed by two while two are left: a loop of 2 or 3
     * items (roi_align's samples of a bin along x, sampling_ratio 2) still has two items'
     * loads in flight at U = 4 or 8. Not under a literal bound (uniform_tiles' `hk_u < 4`):
     * the compiler unrolls that loop whole, and a pair loop there indexes its register
     * arrays (hk_r0[k]) by a run-time counter, which moves them to local memory (ball_query
     * stacked: a 48-byte stack frame) */
    bool pairs = U > 2 && literal_items(ts, L) < 0;
    if (!rc && pairs)
        rc = hk_buf_printf(o, "%s    }\n%s    for (; %shk_uj %s %s && %s >= %d; hk_uj %c= 2) {\n", ind, ind,
                           L->has_break ? "!hk_uj_stop && " : "", op, bound, left, 2 - more, step);
    if (!rc && pairs)
        rc = emit_group(o, s, L, 2, ind, type);
    if (!rc)
        rc = hk_buf_printf(o, "%s    }\n%s    %s%s", ind, ind, L->has_break ? "if (!hk_uj_stop)\n    " : "",
                           L->has_break ? ind : "");
    /* the pragma, on its own line, applies to the remainder loop in a block of its own */
    if (!rc && L->pragma_b > L->pragma_a)
        rc = hk_buf_printf(o, "{\n%.*s\n%s    ", (int)(L->pragma_b - L->pragma_a), s->text + L->pragma_a, ind);
    if (!rc)
        rc = hk_buf_printf(o, "for (%s %.*s = hk_uj; %.*s %s %s; %s%.*s) %.*s\n", type, TOK(ts, L->v),
                           TOK(ts, L->v), op, bound, L->dir > 0 ? "++" : "--", TOK(ts, L->v),
                           SPAN(ts, L->body_a, L->body_b));
    if (!rc && L->pragma_b > L->pragma_a)
        rc = hk_buf_printf(o, "%s    }\n", ind);
    if (!rc)
        rc = hk_buf_printf(o, "%s}", ind);
    return rc;
}

int rw_unroll_jam_scan(const char *text, size_t len, const an_model *m, size_t kernel, int unroll, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    if (unroll != 2 && unroll != 4 && unroll != 8)
        return HK_EINVAL;
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    sc_scan s = {.text = text, .ts = &ts, .f = f, .m = m, .jam_forms = true};
    char first_why[SC_WHY] = "";
    bool first_deep = false;
    sc_loop L;
    bool found = false;
    for (size_t k = 1; k + 1 < ts.n && !found; k++) {
        if (!rwl_tok_is(&ts, k, "for") || !rwl_tok_is(&ts, k + 1, "("))
            continue;
        memset(&L, 0, sizeof L);
        s.why[0] = '\0';
        if (read_header(&s, k, &L) && read_body(&s, &L)) {
            /* a loop of fewer items than U, counted in the source (uniform_tiles' full tile of
             * `hk_u < 4`), would run only its remainder */
            long items = literal_items(&ts, &L);
            if (!(items >= 0 && items < unroll)) {
                found = true;
                break;
            }
            refuse(&s, L.n_a, "loop bound", EN(RW_UJ_FEWER), items, unroll);
        }
        /* a refusal about the values of a loop of the right shape is the one to report; one
         * about a loop of another shape (an init loop, a body starting with a store) only
         * when no loop has the shape */
        if (!first_why[0] || (s.deep && !first_deep))
            snprintf(first_why, sizeof first_why, "%s", s.why);
        first_deep |= s.deep;
        s.deep = false;
    }
    if (!found) {
        if (first_why[0])
            rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "unroll_jam_scan", f->name,
                                                     first_why));
        else
            rc = rwl_not_applicable(out, hk_asprintf(EN(RW_UJ_NO_LOOP), f->name,
                                                     rwl_line_at(text, f->body_span.start_byte)));
        goto out;
    }
    char ind[64];
    rwl_line_indent(text, ts.t[L.loop_a].start, ind, sizeof ind);
    struct hk_buf nb;
    hk_buf_init(&nb, RW_TEXT_MAX);
    rc = emit_loop(&nb, &s, &L, unroll, ind);
    if (!rc)
        rc = rwl_edits_add(&es, L.pragma_b > L.pragma_a ? L.pragma_a : ts.t[L.loop_a].start,
                           ts.t[L.loop_b - 1].end, nb.data);
    hk_buf_free(&nb);
    if (rc)
        goto out;
    /* with a break or without, with recurrences (never with a break): one sentence each */
    size_t v0 = 0;
    while (L.d[v0].kind == SC_REC)
        v0++;
    size_t r0 = 0;
    while (L.n_rec && L.d[r0].kind != SC_REC)
        r0++;
    char *desc = L.n_rec ? hk_asprintf(EN(RW_UJ_DESC_REC), f->name, rwl_line_at(text, ts.t[L.loop_a].start), unroll,
                                       L.n_d - L.n_rec, TOK(&ts, L.d[v0].name), L.n_rec, TOK(&ts, L.d[r0].name))
                       : hk_asprintf(L.has_break ? EN(RW_UJ_DESC_BREAK) : EN(RW_UJ_DESC),
                                     f->name, rwl_line_at(text, ts.t[L.loop_a].start), unroll, L.n_d,
                                     TOK(&ts, L.d[v0].name));
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    if (rc == HK_OK && out->applicable)
        out->keeps_launch = true;
out:
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */
static const rw_param uj_params[] = {
    {.name = "unroll", .type = RW_PARAM_ENUM, .values = {4, 8, 2}, .n_values = 3, .def = 4},
};

static int emit_unroll_jam_scan(const rw_context *c, const int *p, rw_result *out)
{
    return rw_unroll_jam_scan(c->text, c->len, c->m, c->kernel, p[0], out);
}

const rw_descriptor rw_unroll_jam_scan_desc = {
    .name = "unroll_jam_scan",
    .summary = "an item loop whose per-item value reads no loop state computes U items' values first, then " /* i18n: not for people */
               "runs their updates in order (exact; breaks kept)",
    .params = uj_params,
    .n_params = HK_ARRAY_LEN(uj_params),
    /* it jams one item loop and keeps the launch: on top of uniform_tiles it jams the full
     * tile's loop (values from registers the tile filled), a second gain after the first */
    .flags = RW_STACKS,
    .emit = emit_unroll_jam_scan,
};
