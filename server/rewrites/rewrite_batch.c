/* load_batching: a counted loop (grid-stride, block-stride or plain) whose body loads from
 * buffers the kernel never writes issues the loads of K consecutive trips first, then runs
 * the K bodies in their own order, each with its preloaded values. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* Why: cuda-samples' histogram256 walks its data grid-stride with one 4-byte load per trip,
 * followed by four dependent shared atomics before the next trip's load issues; its grid
 * (240 blocks of 192 threads) is fixed by its output (240 partial histograms), so a thread
 * has one load in flight and the H200 ran it at 11% of its roofline (Little's law wants
 * about 18x the bytes in flight at ~11 warps per SM). mmcv's tin_shift copies t_size
 * elements in an inner loop, one load at a time. The compiler cannot hoist the next trip's
 * load above the current body when the body has atomics, stores or calls it cannot see
 * through, so this is done by hand: the loads of K trips are issued together, then the
 * bodies run.
 *
 * Proof of equivalence. The rewritten loop runs, per thread, the same sequence as the
 * original: test the condition, run the body, step; the header keeps its init and
 * condition and the step runs after each body (a `continue` leaves the body's do { }
 * while (0), so it still reaches the step), so every trip, its counter value and its
 * order are the original's and the remainder (fewer than K trips left) ends at the same
 * test. What moves is when the body's loads of read-only memory happen: the preload
 * replays, for trip k, the counter's own steps and tests (in the counter's own type, so a
 * wrap or a bound is met exactly where the original meets it), the leading declarations
 * and `if (c) continue;` of the body that compute from the counter, loop-invariant names
 * and loads of read-only buffers only (so their values are the body's), and the loads of
 * the statements after them up to the first that may `continue`. A load is preloaded only
 * where the original body executes it (under the same continues and condition), so no
 * address is touched that the original does not touch. The loaded buffers are never
 * stored to, atomically updated, passed on or copied in the kernel, nor an element of
 * them passed whole to a call that is not a pure one (it may take a reference and store
 * to it: `inc(x[i], 1.0f)`) (the pointer may be
 * moved in place, `p += off;`, but never inside the loop, so every trip's preload forms the
 * address from the p its body uses), and any pointer the
 * loop stores through either is __restrict__ (or the buffer is) or no launch in the file
 * passes the two the same expression (the rule rw_restrict adds __restrict__ by): so no
 * thread's store can change a preloaded value, and the values the bodies see are the
 * values they read in the original. Each thread visits the same elements in the same order
 * and does the same operations on the same values: the result is bit-identical, floats
 * and atomics included.
 *
 * Barriers, guards and breaks (session 33: Rodinia's pathfinder, a DP row sweep that reads
 * one cost per step between two __syncthreads). A block barrier in the body stays where it
 * is: each thread runs the same bodies in the same order, so it meets the same barriers in
 * the same sequence as in the original, and what moved ahead of a barrier is a load of a
 * buffer that no thread of the kernel writes, whose value no barrier orders. A load in the
 * block of `if (c) { ... }` is preloaded under c, c and the block's replayed declarations
 * computing from the counter, prefix locals and names the loop never writes (so they have
 * at the preload the values they have where the original evaluates them), and only from the
 * block's statements before anything that may leave it: the original executes that load at
 * that trip exactly when c holds. A top-level `if (c) break;` (c from the counter and
 * names the loop never writes) follows every preloaded load of its trip (loads are taken
 * only before the first statement that may skip the rest of the trip), and the preload
 * tests it after the trip's loads and stops there, so no trip after a break is preloaded;
 * in the bodies the break sets hk_lb_brk and leaves the do { } while (0), and the flag
 * leaves the bodies' loop and the loop before any step: the counter ends where the
 * original's does.
 *
 * Value calls (session 52, issue 13: SHOC stencil2d's `ToFlatIdx(row, col, width)`). A call
 * to a function of the file whose every definition takes its parameters by value (no
 * pointer, no reference), touches no memory and reads no name but its parameters and its own
 * locals (rwl_value_call) returns a value that depends on its arguments alone and writes
 * nothing the caller can see: evaluated in the preload with the arguments the body would
 * give it, it returns what the body's call returns, and a name passed to it whole keeps its
 * value (it cannot bind a reference). So it is as pure as a math function here. */

#define LB_STMTS 32
#define LB_LOCALS 16
#define LB_LOADS 8
#define LB_TYPE 160

typedef struct {
    const char *text;
    size_t len;
    const rw_toks *ts;
    const an_function *f;
    const an_model *m;
    const km_kernel *km;
    signed char ro[64];       /* per parameter: 0 not asked, 1 read-only, -1 written */
    bool barrier_only;        /* barrier_load_batching: only loops with a block barrier */
    char why[700];
} lb_scan;

#define LB_GROUPS 4
#define LB_BREAKS 4

typedef struct {
    size_t a, b;              /* the load's tokens `B [ ... ]` */
    const an_param *buf;
    char type[LB_TYPE];
    int grp;                  /* the `if (c) { ... }` block it stands in (-1: none) */
} lb_load;

/* A statement `if (c) { ... }` (no else) of the body whose block loads: c and the block's
 * declarations before the load are replayed by the preload, under c. */
typedef struct {
    size_t cond_a, cond_b;
    size_t decl_a[LB_STMTS], decl_b[LB_STMTS], n_decl;
} lb_group;

typedef struct {
    size_t loop_a, loop_b;
    size_t v;                 /* a token naming the counter */
    size_t init_a, init_b, cond_a, cond_b, step_a, step_b;
    size_t ba, bb;            /* the body's statements [ba, bb) */
    size_t st_a[LB_STMTS], st_b[LB_STMTS], n_st;
    size_t n_pre;             /* statements [0, n_pre) are the replayed prefix */
    bool is_decl[LB_STMTS];
    size_t name[LB_STMTS];    /* the declared name's token (is_decl) */
    size_t type_a[LB_STMTS], type_b[LB_STMTS]; /* its type's tokens, qualifiers included */
    lb_load ld[LB_LOADS];
    size_t n_ld;
    size_t n_pre_loads;       /* loads inside the prefix (batched by the prefix's replay) */
    lb_group grp[LB_GROUPS];
    size_t n_grp;
    /* the body's top-level `if (c) break;` statements: their statement index and c */
    size_t brk_st[LB_BREAKS], brk_a[LB_BREAKS], brk_b[LB_BREAKS], n_brk;
} lb_loop;

#define refuse(s, k, ...) rwl_refuse((s)->why, sizeof (s)->why, (s)->ts, (s)->text, (k), __VA_ARGS__)
#define TOK(ts, k) (int)((ts)->t[k].end - (ts)->t[k].start), (ts)->text + (ts)->t[k].start
#define SPAN(ts, a, b) (int)((ts)->t[(b) - 1].end - (ts)->t[a].start), (ts)->text + (ts)->t[a].start

static bool is_open(const rw_toks *ts, size_t k)
{
    return rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "{");
}

static bool is_close(const rw_toks *ts, size_t k)
{
    return rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]") || rwl_tok_is(ts, k, "}");
}

static bool is_keyword(const rw_toks *ts, size_t k)
{
    static const char *const kw[] = {"return", "if", "else", "for", "while", "do", "goto", "break",
                                     "continue", "switch", "case", "default", "sizeof", "true", "false",
                                     "nullptr", "NULL"};
    for (size_t i = 0; i < HK_ARRAY_LEN(kw); i++)
        if (rwl_tok_is(ts, k, kw[i]))
            return true;
    return false;
}

/* Is the name at k a builtin coordinate (threadIdx.x ...), constant over the loop? */
static bool builtin_name(const rw_toks *ts, size_t k)
{
    static const char *const b[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};
    for (size_t i = 0; i < HK_ARRAY_LEN(b); i++)
        if (rwl_tok_is(ts, k, b[i]))
            return true;
    return false;
}

/* Is the name at q declared there: `T name`, `const T *name`, ... right after the start of
 * a statement or a for header (a product `n * w` inside an expression is none)? */
static bool declares(const rw_toks *ts, size_t q)
{
    size_t p = q, words = 0;
    while (p > 0 && (rwl_tok_is(ts, p - 1, "*") || rwl_tok_is(ts, p - 1, "&") || rwl_tok_is(ts, p - 1, "::") ||
                     ts->t[p - 1].kind == T_IDENT)) {
        words += ts->t[p - 1].kind == T_IDENT;
        p--;
    }
    if (!words)
        return false;
    return p == 0 || rwl_tok_is(ts, p - 1, ";") || rwl_tok_is(ts, p - 1, "{") || rwl_tok_is(ts, p - 1, "}") ||
           rwl_tok_is(ts, p - 1, "(") || rwl_tok_is(ts, p - 1, ",");
}

static bool written_in(const lb_scan *s, size_t a, size_t b, size_t q);

/* Is the element [a, c] (`x[i]`, with what members and subscripts follow it, in grouping
 * parentheses or not) passed whole to a call that may bind it to a reference and write it
 * (`inc(x[i], 1.0f)` with `__device__ void inc(float &v, float a)`)? Its callee at *callee.
 * Preloading it would hand the call a copy: the store to x[i] would be lost. */
static bool reference_argument(lb_scan *s, size_t a, size_t c, size_t *callee)
{
    const rw_toks *ts = s->ts;
    size_t first = a, after = c + 1;
    for (;;) {
        if ((rwl_tok_is(ts, after, ".") || rwl_tok_is(ts, after, "->")) && after + 1 < ts->n &&
            ts->t[after + 1].kind == T_IDENT)
            after += 2;
        else if (rwl_tok_is(ts, after, "[") && rwl_match_close(ts, after) < ts->n)
            after = rwl_match_close(ts, after) + 1;
        else if (first > 1 && rwl_tok_is(ts, first - 1, "(") && rwl_tok_is(ts, after, ")") &&
                 ts->t[first - 2].kind != T_IDENT && rwl_match_close(ts, first - 1) == after) {
            first--;
            after++;
        } else
            break;
    }
    if (first == 0 || !(rwl_tok_is(ts, first - 1, "(") || rwl_tok_is(ts, first - 1, ",")) ||
        !(rwl_tok_is(ts, after, ")") || rwl_tok_is(ts, after, ",")))
        return false;
    int depth = 0;   /* the `(` of the argument list */
    size_t o = first;
    while (o > 0) {
        o--;
        if (rwl_tok_is(ts, o, ")") || rwl_tok_is(ts, o, "]") || rwl_tok_is(ts, o, "}"))
            depth++;
        else if (rwl_tok_is(ts, o, "(") || rwl_tok_is(ts, o, "[") || rwl_tok_is(ts, o, "{")) {
            if (!depth)
                break;
            depth--;
        }
    }
    if (!rwl_tok_is(ts, o, "(") || o == 0 || ts->t[o - 1].kind != T_IDENT || is_keyword(ts, o - 1) ||
        rwl_is_type_word(ts, o - 1) || rwl_pure_call_name(ts, o - 1) ||
        rwl_pure_function_macro(s->text, s->len, s->text + ts->t[o - 1].start, ts->t[o - 1].end - ts->t[o - 1].start, 4) ||
        rwl_value_call(s->m, s->text, s->f, ts, o - 1))
        return false;
    *callee = o - 1;
    return true;
}

/* A pointer parameter of one level that the kernel only reads: the read-only buffers. The
 * pointer itself may be moved in place (`p += off;`, issue 13), but not inside loop L: the
 * preload reads p[..] of later trips with p's value at the trip it runs in. */
static const an_param *readonly_buffer(lb_scan *s, const lb_loop *L, size_t k)
{
    if (!rwl_is_use(s->ts, k) || !rwl_tok_is(s->ts, k + 1, "["))
        return NULL;
    const an_param *p = rwp_param_named(s->f, s->ts, k);
    if (!p || p->pointer_depth != 1)
        return NULL;
    /* a local of the same name declared in the body would hide it */
    for (size_t q = 1; q + 1 < s->ts->n; q++)
        if (rwl_same_tok(s->ts, q, k) && declares(s->ts, q))
            return NULL;
    size_t pi = (size_t)(p - s->f->params);
    if (pi >= sizeof s->ro)
        return NULL;
    if (!s->ro[pi]) {
        s->ro[pi] = rw_param_pointee_written(s->text, s->len, s->f, p->name) ? -1 : 1;
        /* an element passed whole to a call may be bound to a reference and written
         * (the write scan reads `inc(x[i])` as a load) */
        for (size_t q = 0; q + 1 < s->ts->n && s->ro[pi] > 0; q++) {
            if (!rwl_is_use(s->ts, q) || !rwl_same_tok(s->ts, q, k))
                continue;
            size_t callee, c = rwl_tok_is(s->ts, q + 1, "[") ? rwl_match_close(s->ts, q + 1) : q;
            size_t a = q > 0 && rwl_tok_is(s->ts, q - 1, "*") && rwl_unary_position(s->ts, q - 1) ? q - 1 : q;
            if ((c > q || a < q) && c < s->ts->n && reference_argument(s, a, c, &callee))
                s->ro[pi] = -1;
        }
    }
    if (s->ro[pi] < 0 || written_in(s, L->loop_a, L->loop_b, k))
        return NULL;
    return p;
}

/* Is the name at q written anywhere in [a, b)? Assigned, incremented, its address taken,
 * a member of it assigned (`s.x = ...`), or passed whole to a call that is not a pure one
 * (a reference parameter may write it) nor a function-like macro of the text (len bytes)
 * whose value touches no memory (it cannot assign its argument). */
static bool written_in(const lb_scan *s, size_t a, size_t b, size_t q)
{
    const rw_toks *ts = s->ts;
    size_t len = s->len;
    for (size_t k = a; k < b; k++) {
        if (!rwl_is_use(ts, k) || !rwl_same_tok(ts, k, q))
            continue;
        if (rwl_scalar_written(ts, k))
            return true;
        if (k + 3 < b && (rwl_tok_is(ts, k + 1, ".") || rwl_tok_is(ts, k + 1, "->")) &&
            (rwl_tok_is_assign_op(ts, k + 3) || rwl_tok_is(ts, k + 3, "++") || rwl_tok_is(ts, k + 3, "--") ||
             rwl_tok_is(ts, k + 3, "[")))
            return true;
        if (k > a && (rwl_tok_is(ts, k - 1, "(") || rwl_tok_is(ts, k - 1, ",")) &&
            (rwl_tok_is(ts, k + 1, ")") || rwl_tok_is(ts, k + 1, ","))) {
            /* a whole argument: of which call? */
            int depth = 0;
            size_t o = k;
            while (o > a) {
                o--;
                if (rwl_tok_is(ts, o, ")") || rwl_tok_is(ts, o, "]"))
                    depth++;
                else if (rwl_tok_is(ts, o, "(") || rwl_tok_is(ts, o, "[")) {
                    if (!depth)
                        break;
                    depth--;
                }
            }
            if (rwl_tok_is(ts, o, "(") && o > a && ts->t[o - 1].kind == T_IDENT && !rwl_pure_call_name(ts, o - 1) &&
                !rwl_is_type_word(ts, o - 1) && !rwl_tok_is(ts, o - 1, "if") && !rwl_tok_is(ts, o - 1, "while") &&
                !rwl_tok_is(ts, o - 1, "for") && !rwl_tok_is(ts, o - 1, "switch") && !rwl_tok_is(ts, o - 1, "return") &&
                !rwl_pure_function_macro(ts->text, len, ts->text + ts->t[o - 1].start,
                                         ts->t[o - 1].end - ts->t[o - 1].start, 4) &&
                !rwl_value_call(s->m, s->text, s->f, ts, o - 1))
                return true;   /* (a macro that touches no memory, or a function of the file
                                * taking its arguments by value, writes no argument) */
        }
    }
    return false;
}

/* Is [a, b) computed from the counter, the prefix's locals (names, n_names), names the
 * loop never writes, pure calls and loads of read-only buffers only? *loads counts those
 * loads. false with the refusal in s->why (not reported as the rewrite's reason unless no
 * load at all is found) */
static bool pure_expr(lb_scan *s, const lb_loop *L, size_t a, size_t b, const size_t *names, size_t n_names,
                      size_t *loads)
{
    const rw_toks *ts = s->ts;
    if (rwl_writes_any(ts, a, b))
        return refuse(s, a, "write", EN(RW_LB_WRITES), SPAN(ts, a, b));
    for (size_t q = a; q < b; q++) {
        if (rwl_tok_is(ts, q, "->") || (rwl_tok_is(ts, q, "*") && rwl_unary_position(ts, q)) ||
            (rwl_tok_is(ts, q, "&") && rwl_unary_position(ts, q)))
            return refuse(s, q, "memory", EN(RW_LB_READS_POINTER), SPAN(ts, a, b));
        if (rwl_tok_is(ts, q, "[")) {
            if (q == a || !readonly_buffer(s, L, q - 1))
                return refuse(s, q, "memory", EN(RW_LB_READS_WRITTEN), SPAN(ts, a, b));
            if (loads)
                (*loads)++;
            continue;
        }
        if (ts->t[q].kind != T_IDENT || !rwl_is_use(ts, q) || is_keyword(ts, q) || builtin_name(ts, q) ||
            rwl_is_type_word(ts, q) || rwp_is_type_word(ts, q))
            continue;
        if (rwl_tok_is(ts, q + 1, "(")) {
            /* a function-like macro of the file that touches no memory is as pure (its
             * arguments are read here, in the same tokens) */
            if (!rwl_pure_call_name(ts, q) && !rwl_value_call(s->m, s->text, s->f, ts, q) &&
                !rwl_pure_function_macro(s->text, s->len, s->text + ts->t[q].start, ts->t[q].end - ts->t[q].start, 4))
                return refuse(s, q, "call", EN(RW_LB_CALL_WRITES), TOK(ts, q));
            continue;
        }
        if (rwl_tok_is(ts, q + 1, "::") || (q > a && rwl_tok_is(ts, q - 1, "::")))
            continue;
        if (rwl_same_tok(ts, q, L->v))
            continue;
        bool local = false;
        for (size_t i = 0; i < n_names && !local; i++)
            local = rwl_same_tok(ts, q, names[i]);
        if (local)
            continue;
        if (written_in(s, L->loop_a, L->loop_b, q))
            return refuse(s, q, "write", EN(RW_LB_WRITTEN_IN_LOOP), TOK(ts, q));
    }
    return true;
}

/* The first token of [a, b) equal to one of the words in list (identifiers), or b. */
static size_t find_word(const rw_toks *ts, size_t a, size_t b, const char *const *list, size_t n, bool prefix)
{
    for (size_t q = a; q < b; q++) {
        if (ts->t[q].kind != T_IDENT)
            continue;
        size_t tl = ts->t[q].end - ts->t[q].start;
        for (size_t i = 0; i < n; i++) {
            size_t l = strlen(list[i]);
            if ((prefix ? tl >= l : tl == l) && !memcmp(ts->text + ts->t[q].start, list[i], l))
                return q;
        }
    }
    return b;
}

/* The loop's header: `for (init; v < N; step)` with step v += S, v = v + S, v++ or ++v. */
static bool read_header(lb_scan *s, lb_loop *L)
{
    const rw_toks *ts = s->ts;
    size_t k = L->loop_a, hc = rwl_match_close(ts, k + 1);
    if (hc >= L->loop_b)
        return refuse(s, k, "loop", EN(RW_IL_HEADER_OPEN));
    size_t semi[2], ns = 0;
    int depth = 0;
    for (size_t q = k + 2; q < hc; q++) {
        if (is_open(ts, q))
            depth++;
        else if (is_close(ts, q))
            depth--;
        else if (!depth && rwl_tok_is(ts, q, ";") && ns < 2)
            semi[ns++] = q;
    }
    if (ns != 2)
        return refuse(s, k, "loop", EN(RW_IL_HEADER_FORM));
    L->init_a = k + 2;
    L->init_b = semi[0];
    L->cond_a = semi[0] + 1;
    L->cond_b = semi[1];
    L->step_a = semi[1] + 1;
    L->step_b = hc;
    size_t ca = L->cond_a, cb = L->cond_b;
    if (!(cb > ca + 2 && ts->t[ca].kind == T_IDENT && rwl_is_use(ts, ca) &&
          (rwl_tok_is(ts, ca + 1, "<") || rwl_tok_is(ts, ca + 1, "<=") || rwl_tok_is(ts, ca + 1, "!="))))
        return refuse(s, k, "condition", EN(RW_IL_COND));
    L->v = ca;
    size_t pa = L->step_a, pb = L->step_b;
    bool ok = (pb == pa + 2 && ((rwl_same_tok(ts, pa, L->v) && rwl_tok_is(ts, pa + 1, "++")) ||
                                (rwl_tok_is(ts, pa, "++") && rwl_same_tok(ts, pa + 1, L->v)))) ||
              (pb > pa + 2 && rwl_same_tok(ts, pa, L->v) && rwl_tok_is(ts, pa + 1, "+=") &&
               !rwl_writes_any(ts, pa + 2, pb)) ||
              (pb > pa + 4 && rwl_same_tok(ts, pa, L->v) && rwl_tok_is(ts, pa + 1, "=") &&
               rwl_same_tok(ts, pa + 2, L->v) && rwl_tok_is(ts, pa + 3, "+") && !rwl_writes_any(ts, pa + 4, pb));
    if (!ok)
        return refuse(s, pa < pb ? pa : k, "stride", EN(RW_IL_STEP), TOK(ts, L->v));
    /* the step and the bound run again in the preload: they must touch no memory (a macro
     * of the file is read from its definition: the model may not see a read through a
     * macro parameter) */
    for (size_t q = L->cond_a + 2; q < pb; q++) {
        if (q >= L->cond_b && q < pa)
            continue;
        bool call = ts->t[q].kind == T_IDENT && rwl_tok_is(ts, q + 1, "(") && !rwl_pure_call_name(ts, q) &&
                    !rwl_is_type_word(ts, q) &&
                    !rwl_pure_function_macro(s->text, s->len, s->text + ts->t[q].start, ts->t[q].end - ts->t[q].start, 4);
        if (call || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "->") ||
            ((rwl_tok_is(ts, q, "*") || rwl_tok_is(ts, q, "&")) && rwl_unary_position(ts, q)))
            return refuse(s, q, q < L->cond_b ? "condition" : "stride", EN(RW_LB_READS_OR_CALLS),
                          q < L->cond_b ? (int)(ts->t[L->cond_b - 1].end - ts->t[L->cond_a].start)
                                        : (int)(ts->t[pb - 1].end - ts->t[pa].start),
                          s->text + ts->t[q < L->cond_b ? L->cond_a : pa].start);
    }
    depth = 0;
    for (size_t q = pa; q < pb; q++)
        if (is_open(ts, q))
            depth++;
        else if (is_close(ts, q))
            depth--;
        else if (!depth && rwl_tok_is(ts, q, ","))
            return refuse(s, q, "stride", EN(RW_IL_STEP_MORE), SPAN(ts, pa, pb));
    return true;
}

/* Does form f read memory, call a function or name a local the model does not follow? */
static bool form_impure(const km_kernel *k, km_form f)
{
    size_t na = 0;
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *a = &km_atoms(k, &na)[f.t[i].atoms[j]];
            if (a->kind == KM_ATOM_READ || a->kind == KM_ATOM_VAR || a->kind == KM_ATOM_ACC ||
                a->kind == KM_ATOM_NAME)
                return true;
            if (a->kind == KM_ATOM_OPAQUE) {
                if (a->op && !strcmp(a->op, "call"))
                    return true;
                for (uint32_t q = 0; q < a->n_args; q++)
                    if (form_impure(k, a->args[q]))
                        return true;
            }
        }
    return false;
}

/* The model's loop at L's line counting L's counter, read as counted with a step and bound
 * that read no memory; its index in *li. */
static bool model_loop(lb_scan *s, const lb_loop *L, size_t *li)
{
    const rw_toks *ts = s->ts;
    size_t n = 0;
    const km_loop *lp = km_loops(s->km, &n);
    uint32_t line = (uint32_t)rwl_line_at(s->text, ts->t[L->loop_a].start);
    char var[128];
    snprintf(var, sizeof var, "%.*s", TOK(ts, L->v));
    for (size_t i = 0; i < n; i++) {
        if (lp[i].line != line || !lp[i].var || strcmp(lp[i].var, var))
            continue;
        if (lp[i].kind != KM_LOOP_AFFINE && lp[i].kind != KM_LOOP_GRID_STRIDE && lp[i].kind != KM_LOOP_BLOCK_STRIDE)
            return refuse(s, L->step_a, "stride", EN(RW_LB_MODEL_STEP), SPAN(ts, L->step_a, L->step_b));
        if (form_impure(s->km, lp[i].step))
            return refuse(s, L->step_a, "stride", EN(RW_LB_STEP_READS),
                          SPAN(ts, L->step_a, L->step_b));
        if (form_impure(s->km, lp[i].bound))
            return refuse(s, L->cond_a, "condition", EN(RW_LB_BOUND_READS),
                          SPAN(ts, L->cond_a, L->cond_b));
        *li = i;
        return true;
    }
    return refuse(s, L->loop_a, "loop", EN(RW_LB_MODEL_COUNTED), var);
}

/* Body statement [a, b) as a declaration `[const] T [*] name = init;` of one local: its
 * type tokens and name. */
static bool one_decl(const rw_toks *ts, size_t a, size_t b, size_t *ta, size_t *tb, size_t *name)
{
    if (!rwl_starts_declaration(ts, a) || b < a + 4)
        return false;
    size_t eq = a;
    int depth = 0;
    for (; eq < b - 1; eq++) {
        if (is_open(ts, eq))
            depth++;
        else if (is_close(ts, eq))
            depth--;
        else if (!depth && (rwl_tok_is(ts, eq, ",") || rwl_tok_is(ts, eq, "[") || rwl_tok_is(ts, eq, "&")))
            return false;
        if (!depth && rwl_tok_is(ts, eq, "="))
            break;
    }
    if (eq >= b - 1 || eq < a + 2 || ts->t[eq - 1].kind != T_IDENT || !rwl_declared_here(ts, eq - 1))
        return false;
    for (size_t q = a; q < eq - 1; q++) {
        if (!(ts->t[q].kind == T_IDENT || rwl_tok_is(ts, q, "*") || rwl_tok_is(ts, q, "::")))
            return false;
        if (rwl_tok_is(ts, q, "auto") || rwl_tok_is(ts, q, "static") || rwl_tok_is(ts, q, "__shared__") ||
            rwl_tok_is(ts, q, "extern"))
            return false;
    }
    depth = 0;
    for (size_t q = eq + 1; q < b - 1; q++) {
        if (is_open(ts, q))
            depth++;
        else if (is_close(ts, q))
            depth--;
        else if (!depth && rwl_tok_is(ts, q, ","))
            return false;
    }
    *ta = a;
    *tb = eq - 1;
    *name = eq - 1;
    return true;
}

/* `if (c) WORD;` or `if (c) { WORD; }` (WORD continue or break): c's tokens. */
static bool if_exit(const rw_toks *ts, size_t a, size_t b, const char *word, size_t *ca, size_t *cb)
{
    if (!rwl_tok_is(ts, a, "if") || !rwl_tok_is(ts, a + 1, "("))
        return false;
    size_t c = rwl_match_close(ts, a + 1);
    if (c >= b)
        return false;
    bool plain = b == c + 3 && rwl_tok_is(ts, c + 1, word) && rwl_tok_is(ts, c + 2, ";");
    bool braced = b == c + 5 && rwl_tok_is(ts, c + 1, "{") && rwl_tok_is(ts, c + 2, word) &&
                  rwl_tok_is(ts, c + 3, ";") && rwl_tok_is(ts, c + 4, "}");
    if (!plain && !braced)
        return false;
    *ca = a + 2;
    *cb = c;
    return true;
}

/* Is a name of [a, b) that is one of names (their writes counted from from[i] on, to the
 * loop's end) changed after it is declared? Refused in s->why. */
static bool names_moved(lb_scan *s, const lb_loop *L, size_t a, size_t b, const size_t *names, const size_t *from,
                        size_t n_names)
{
    const rw_toks *ts = s->ts;
    for (size_t x = a; x < b; x++)
        for (size_t i = 0; i < n_names; i++)
            if (rwl_is_use(ts, x) && rwl_same_tok(ts, x, names[i]) && written_in(s, from[i], L->bb, x))
                return refuse(s, x, "write", EN(RW_LB_CHANGED_AFTER), TOK(ts, x));
    return false;
}

/* The loads of read-only buffers in the plain statement [a, b) (no condition of its own:
 * no `?:`, `&&` or `||`) whose index is computed from the counter, names (from: see
 * names_moved) and names the loop never writes: added to L->ld in group grp (-1: none).
 * false only on an error that refuses the loop (s->why); a load that cannot move keeps its
 * reason in first_why when that is empty. */
static bool plain_stmt_loads(lb_scan *s, lb_loop *L, size_t a, size_t b, const size_t *names, const size_t *from,
                             size_t n_names, char *first_why, size_t fw, int grp)
{
    const rw_toks *ts = s->ts;
    for (size_t q = a; q < b; q++)
        if (rwl_tok_is(ts, q, "?") || rwl_tok_is(ts, q, "&&") || rwl_tok_is(ts, q, "||"))
            return true;
    for (size_t q = a + 1; q < b; q++) {
        if (!rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q - 2, "[") || !readonly_buffer(s, L, q - 1))
            continue;
        if (q >= a + 2 && (rwl_tok_is(ts, q - 2, ".") || rwl_tok_is(ts, q - 2, "->")))
            continue;
        size_t c = rwl_match_close(ts, q);
        if (c >= b)
            continue;
        s->why[0] = '\0';
        if (names_moved(s, L, q + 1, c, names, from, n_names) ||
            !pure_expr(s, L, q + 1, c, names, n_names, NULL)) {
            if (!first_why[0])
                snprintf(first_why, fw, "%s", s->why);
            continue;
        }
        /* nested in another read-only load's index: that one is preloaded whole */
        bool inner = false;
        for (size_t i2 = 0; i2 < L->n_ld && !inner; i2++)
            inner = q > L->ld[i2].a && q < L->ld[i2].b;
        if (inner)
            continue;
        if (L->n_ld == LB_LOADS)
            break;
        lb_load *ld = &L->ld[L->n_ld++];
        ld->a = q - 1;
        ld->b = c + 1;
        ld->grp = grp;
        ld->buf = readonly_buffer(s, L, q - 1);
        rwp_pointee_type(ld->buf, ld->type, sizeof ld->type);
        if (!ld->type[0] || !strcmp(ld->type, "void"))
            return refuse(s, q - 1, "load", EN(RW_LB_TYPE_UNKNOWN), ld->buf->name);
        q = c;
    }
    return true;
}

/* The statement [a, b) `if (c) { S... }` without else, c computed from the counter, the
 * prefix's names and names the loop never writes, loading nothing: the loads of the block's
 * plain statements, up to the first that may leave the block or the trip, whose index is
 * computed from those and from the block's declarations before them that are so too
 * (replayed under c by the preload: a group). Another shape is skipped (true: nothing to
 * preload from it); false only on an error that refuses the loop. */
static bool if_block_loads(lb_scan *s, lb_loop *L, size_t a, size_t b, const size_t *pnames, const size_t *pfrom,
                           size_t n_pnames, char *first_why, size_t fw)
{
    const rw_toks *ts = s->ts;
    if (!rwl_tok_is(ts, a + 1, "("))
        return true;
    size_t c = rwl_match_close(ts, a + 1);
    if (c + 1 >= b || !rwl_tok_is(ts, c + 1, "{") || rwl_match_close(ts, c + 1) != b - 1)
        return true;   /* an else, or no block */
    if (L->n_grp == LB_GROUPS)
        return true;
    size_t loads = 0;
    s->why[0] = '\0';
    if (names_moved(s, L, a + 2, c, pnames, pfrom, n_pnames) || !pure_expr(s, L, a + 2, c, pnames, n_pnames, &loads) ||
        loads) {
        if (!first_why[0])
            snprintf(first_why, fw, "%s", s->why[0] ? s->why : EN(RW_LB_BLOCK_COND_LOADS));
        return true;
    }
    lb_group *g = &L->grp[L->n_grp];
    memset(g, 0, sizeof *g);
    g->cond_a = a + 2;
    g->cond_b = c;
    size_t names[2 * LB_STMTS], from[2 * LB_STMTS], n_names = 0;
    for (size_t i = 0; i < n_pnames; i++) {
        names[n_names] = pnames[i];
        from[n_names++] = pfrom[i];
    }
    size_t before = L->n_ld;
    for (size_t p = c + 2; p < b - 1;) {
        size_t e = rwl_stmt_end(ts, p, b - 1), ta, tb, nm;
        if (e <= p)
            break;
        bool exits = false;
        for (size_t q = p; q < e && !exits; q++)
            exits = rwl_tok_is(ts, q, "continue") || rwl_tok_is(ts, q, "break") || rwl_tok_is(ts, q, "return") ||
                    rwl_tok_is(ts, q, "goto") || rwl_tok_is(ts, q, "__trap") || rwl_tok_is(ts, q, "assert") ||
                    rwl_tok_is(ts, q, "abort") || rwl_tok_is(ts, q, "exit") || rwl_tok_is(ts, q, "asm");
        if (exits)
            break;
        if (one_decl(ts, p, e, &ta, &tb, &nm)) {
            size_t dl = 0;
            s->why[0] = '\0';
            if (g->n_decl < LB_STMTS && n_names < HK_ARRAY_LEN(names) &&
                !names_moved(s, L, nm + 2, e - 1, names, from, n_names) &&
                pure_expr(s, L, nm + 2, e - 1, names, n_names, &dl) && !dl) {
                g->decl_a[g->n_decl] = p;
                g->decl_b[g->n_decl++] = e;
                names[n_names] = nm;
                from[n_names++] = e;
            } else if (!plain_stmt_loads(s, L, p, e, names, from, n_names, first_why, fw, (int)L->n_grp))
                return false;   /* its loads may still go ahead (the declaration itself stays) */
            /* one that is not replayed is not named: pure_expr finds it written */
        } else if (!rwl_tok_is(ts, p, "if") && !rwl_tok_is(ts, p, "for") && !rwl_tok_is(ts, p, "while") &&
                   !rwl_tok_is(ts, p, "do") && !rwl_tok_is(ts, p, "switch") && !rwl_tok_is(ts, p, "{") &&
                   !plain_stmt_loads(s, L, p, e, names, from, n_names, first_why, fw, (int)L->n_grp))
            return false;
        p = e;
    }
    if (L->n_ld > before)
        L->n_grp++;
    return true;
}

/* The body: barriers, exits and the counter; the prefix replayed by the preload; the
 * later loads batched. */
static bool read_body(lb_scan *s, lb_loop *L)
{
    const rw_toks *ts = s->ts;
    size_t hc = rwl_match_close(ts, L->loop_a + 1);
    L->ba = hc + 1;
    L->bb = L->loop_b;
    if (rwl_tok_is(ts, L->ba, "{"))
        L->ba++, L->bb--;
    size_t ba = L->ba, bb = L->bb;
    /* A block barrier (__syncthreads and its _count/_or/_and forms) may stay: every thread
     * still runs the same bodies in the same order, so it meets the same barriers, and
     * what moves ahead of them are loads of buffers no thread of the kernel writes. Other
     * barriers and fences are not read. */
    static const char *const barrier[] = {"__syncwarp", "sync", "__barrier_sync", "bar_sync"};
    size_t q = find_word(ts, ba, bb, barrier, HK_ARRAY_LEN(barrier), false);
    if (q < bb)
        return refuse(s, q, "barrier", EN(RW_LB_OTHER_BARRIER), TOK(ts, q));
    static const char *const block_barrier[] = {"__syncthreads"};
    if (s->barrier_only && find_word(ts, ba, bb, block_barrier, 1, true) == bb)
        return refuse(s, L->loop_a, "barrier", EN(RW_LB_NO_SYNCTHREADS));
    static const char *const warp[] = {"__shfl", "__ballot", "__any", "__all", "__match", "__reduce_", "__activemask"};
    q = find_word(ts, ba, bb, warp, HK_ARRAY_LEN(warp), true);
    if (q < bb)
        return refuse(s, q, EN(RW_C_WARP_COLLECTIVE), EN(RW_LB_WARP_COLLECTIVE), TOK(ts, q));
    static const char *const exits[] = {"return", "goto", "asm"};
    q = find_word(ts, ba, bb, exits, HK_ARRAY_LEN(exits), false);
    if (q < bb)
        return refuse(s, q, rwl_tok_is(ts, q, "asm") ? "asm" : "early exit", EN(RW_PT_IN_LOOP), TOK(ts, q));
    for (q = ba; q < bb; q++)
        if (rwl_is_use(ts, q) && rwl_same_tok(ts, q, L->v) && rwl_scalar_written(ts, q))
            return refuse(s, q, "loop", EN(RW_IL_CHANGES_COUNTER), TOK(ts, L->v));
    for (uint32_t c = ts->t[L->loop_a].start; c < ts->t[L->loop_b - 1].end; c++)
        if (s->text[c] == '\n') {
            uint32_t d = c + 1;
            while (s->text[d] == ' ' || s->text[d] == '\t')
                d++;
            if (s->text[d] == '#' && d < ts->t[L->loop_b - 1].end && strncmp(s->text + d, "#pragma", 7))
                return refuse(s, L->loop_a, "preprocessor line", EN(RW_LB_HASH_LINE));
        }
    /* the bound and the step name nothing the body writes */
    for (q = L->cond_a + 2; q < L->cond_b; q++)
        if (ts->t[q].kind == T_IDENT && rwl_is_use(ts, q) && written_in(s, ba, bb, q))
            return refuse(s, q, "condition", EN(RW_LB_BOUND_WRITTEN), TOK(ts, q));
    for (q = L->step_a; q < L->step_b; q++)
        if (ts->t[q].kind == T_IDENT && rwl_is_use(ts, q) && !rwl_same_tok(ts, q, L->v) && written_in(s, ba, bb, q))
            return refuse(s, q, "stride", EN(RW_LB_STRIDE_WRITTEN), TOK(ts, q));
    /* the statements */
    L->n_st = 0;
    for (size_t p = ba; p < bb;) {
        size_t e = rwl_stmt_end(ts, p, bb);
        if (e <= p)
            return refuse(s, p, "statement", EN(RW_LB_UNDELIMITED));
        if (L->n_st == LB_STMTS)
            return refuse(s, p, "statement", EN(RW_LB_MORE_STMTS), LB_STMTS);
        L->st_a[L->n_st] = p;
        L->st_b[L->n_st++] = e;
        p = e;
    }
    /* a `break` of the loop: only `if (c) break;` at the body's top level, c computed from
     * the counter and names the loop never writes (the preload replays it after each
     * trip's loads, so no trip the original never starts is preloaded) */
    L->n_brk = 0;
    for (size_t i = 0; i < L->n_st; i++)
        for (q = L->st_a[i]; q < L->st_b[i]; q++) {
            if (!rwl_tok_is(ts, q, "break") || rwl_in_nested(ts, ba, bb, q, true))
                continue;
            size_t ca, cb, loads = 0;
            if (!if_exit(ts, L->st_a[i], L->st_b[i], "break", &ca, &cb))
                return refuse(s, q, "early exit", EN(RW_LB_BREAK_FORM));
            s->why[0] = '\0';
            if (!pure_expr(s, L, ca, cb, NULL, 0, &loads) || loads) {
                char why[sizeof s->why];
                snprintf(why, sizeof why, "%s", s->why[0] ? s->why : EN(RW_LB_IT_LOADS));
                s->why[0] = '\0';
                return refuse(s, q, "early exit", EN(RW_LB_BREAK_COND), why);
            }
            if (L->n_brk == LB_BREAKS)
                return refuse(s, q, "early exit", EN(RW_LB_MORE_BREAKS), LB_BREAKS);
            L->brk_st[L->n_brk] = i;
            L->brk_a[L->n_brk] = ca;
            L->brk_b[L->n_brk++] = cb;
            break;
        }
    /* the prefix */
    size_t names[LB_STMTS], n_names = 0;
    char first_why[sizeof s->why] = "";
    L->n_pre = 0;
    L->n_pre_loads = 0;
    for (size_t i = 0; i < L->n_st; i++) {
        size_t a = L->st_a[i], b = L->st_b[i], ta, tb, nm, ca, cb, loads = 0;
        s->why[0] = '\0';
        if (one_decl(ts, a, b, &ta, &tb, &nm) && pure_expr(s, L, nm + 2, b - 1, names, n_names, &loads)) {
            L->is_decl[i] = true;
            L->name[i] = nm;
            L->type_a[i] = ta;
            L->type_b[i] = tb;
            names[n_names++] = nm;
            L->n_pre_loads += loads;
            L->n_pre = i + 1;
            continue;
        }
        if (!s->why[0] && if_exit(ts, a, b, "continue", &ca, &cb) && pure_expr(s, L, ca, cb, names, n_names, &loads)) {
            L->is_decl[i] = false;
            L->n_pre_loads += loads;
            L->n_pre = i + 1;
            continue;
        }
        snprintf(first_why, sizeof first_why, "%s", s->why);
        break;
    }
    /* the loads of the statements after it, up to the first that may continue or break;
     * a prefix name counts as changed where the statements after the prefix write it */
    size_t from[LB_STMTS];
    for (size_t i = 0; i < n_names; i++)
        from[i] = L->n_pre < L->n_st ? L->st_a[L->n_pre] : L->bb;
    L->n_ld = 0;
    L->n_grp = 0;
    for (size_t i = L->n_pre; i < L->n_st; i++) {
        size_t a = L->st_a[i], b = L->st_b[i];
        bool cont = false;   /* a statement that may skip the rest of the trip: no load after it */
        for (q = a; q < b && !cont; q++)
            cont = ((rwl_tok_is(ts, q, "continue") || rwl_tok_is(ts, q, "break")) &&
                    !rwl_in_nested(ts, a, b, q, rwl_tok_is(ts, q, "break"))) ||
                   rwl_tok_is(ts, q, "__trap") || rwl_tok_is(ts, q, "assert") || rwl_tok_is(ts, q, "abort") ||
                   rwl_tok_is(ts, q, "exit");
        if (cont)
            break;
        if (rwl_tok_is(ts, a, "if")) {
            /* `if (c) { ... }`: its block's loads, under c */
            if (!if_block_loads(s, L, a, b, names, from, n_names, first_why, sizeof first_why))
                return false;
            continue;
        }
        if (rwl_tok_is(ts, a, "for") || rwl_tok_is(ts, a, "while") || rwl_tok_is(ts, a, "do") ||
            rwl_tok_is(ts, a, "switch") || rwl_tok_is(ts, a, "{"))
            continue;   /* a load under a loop or a nested block is not preloaded */
        if (!plain_stmt_loads(s, L, a, b, names, from, n_names, first_why, sizeof first_why, -1))
            return false;
    }
    s->why[0] = '\0';
    if (!L->n_pre_loads && !L->n_ld) {
        if (first_why[0])
            snprintf(s->why, sizeof s->why, EN(RW_LB_NOTHING_AHEAD), first_why);
        else
            refuse(s, L->loop_a, "loop", EN(RW_LB_LOADS_NOTHING));
        return false;
    }
    return true;
}

/* The read-only buffers the loop's preload reads (the prefix's and the later loads). */
static size_t batched_buffers(lb_scan *s, const lb_loop *L, const an_param **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < L->n_pre; i++)
        for (size_t q = L->st_a[i] + 1; q < L->st_b[i]; q++) {
            const an_param *r = rwl_tok_is(s->ts, q, "[") ? readonly_buffer(s, L, q - 1) : NULL;
            bool seen = !r;
            for (size_t j = 0; j < n && !seen; j++)
                seen = out[j] == r;
            if (!seen && n < max)
                out[n++] = r;
        }
    for (size_t i = 0; i < L->n_ld; i++) {
        bool seen = false;
        for (size_t j = 0; j < n && !seen; j++)
            seen = out[j] == L->ld[i].buf;
        if (!seen && n < max)
            out[n++] = L->ld[i].buf;
    }
    return n;
}

/* May the loop store through w while r's values are preloaded? Yes when one is
 * __restrict__ or no launch of the kernel in the file passes both the same expression. */
static bool alias_ok(lb_scan *s, const lb_loop *L, const an_param *w, const an_param *r)
{
    if (w->is_restrict || r->is_restrict)
        return true;
    if (w == r)
        return refuse(s, L->loop_a, "store", EN(RW_LB_WRITES_LOADED), r->name);
    size_t wi = (size_t)(w - s->f->params), ri = (size_t)(r - s->f->params);
    const an_launch *la = rwl_launch_passing_twice(s->m, s->f, wi, ri);
    if (la)
        return refuse(s, L->loop_a, "store", EN(RW_LB_PASSED_TWICE),
                      la->span.start_row + 1, la->args[wi], w->name, r->name);
    return true;
}

/* Where a store could change a preloaded value: every pointer the loop stores through (the
 * model's global writes and atomics in it, the file's __device__ functions followed)
 * against every batched buffer, unless one of the two is __restrict__ or no launch in the
 * file passes the two the same expression (rw_restrict's rule). */
static bool no_alias(lb_scan *s, const lb_loop *L, size_t li)
{
    const an_param *rb[LB_STMTS + LB_LOADS];
    size_t nr = batched_buffers(s, L, rb, HK_ARRAY_LEN(rb));
    /* a pointer parameter written, passed on or copied in the loop's text (a call the model
     * does not follow may store through it) */
    const rw_toks *ts = s->ts;
    for (size_t q = L->ba; q < L->bb; q++) {
        const an_param *w = ts->t[q].kind == T_IDENT && rwl_is_use(ts, q) ? rwp_param_named(s->f, ts, q) : NULL;
        if (!w || w->pointer_depth < 1 || !rwl_occurrence_writes(ts, q))
            continue;
        for (size_t j = 0; j < nr; j++)
            if (!alias_ok(s, L, w, rb[j]))
                return false;
    }
    size_t n = 0;
    const km_access *as = km_accesses(s->km, &n);
    for (size_t i = 0; i < n; i++) {
        const km_access *x = &as[i];
        if (x->space != KM_SPACE_GLOBAL || x->mode == KM_READ)
            continue;
        bool inside = false;
        for (uint32_t j = 0; j < x->n_loops && !inside; j++)
            inside = x->loops[j] == li;
        if (!inside)
            continue;
        const an_param *w = rwp_param_by_name(s->f, x->buffer);
        for (size_t j = 0; j < nr; j++) {
            if (!w)
                return refuse(s, L->loop_a, "store", EN(RW_LB_STORES_THROUGH), x->buffer, rb[j]->name);
            if (!alias_ok(s, L, w, rb[j]))
                return false;
        }
    }
    return true;
}

/* ---- the emitter ---- */

/* Appends tokens [a, b) with their own gaps, the counter renamed to cv (NULL: kept) and the
 * batched loads replaced by their slots (repl: whether to). */
static int append_text(struct hk_buf *b, const lb_scan *s, const lb_loop *L, size_t a, size_t e, const char *cv,
                       bool repl)
{
    const rw_toks *ts = s->ts;
    int rc = HK_OK;
    for (size_t q = a; q < e && !rc; q++) {
        if (q > a) {
            /* a gap over lines (no // comment in it) becomes one space: the statement is
             * re-indented at its new depth */
            const char *g = s->text + ts->t[q - 1].end;
            size_t gl = ts->t[q].start - ts->t[q - 1].end;
            bool nl = memchr(g, '\n', gl) != NULL, line_comment = false;
            for (size_t c = 0; c + 1 < gl && !line_comment; c++)
                line_comment = g[c] == '/' && g[c + 1] == '/';
            /* after a line continuation nothing: its line break goes, the blank before it stays */
            if (!rwl_tok_is(ts, q - 1, "\\"))
                rc = nl && !line_comment ? hk_buf_appends(b, " ") : hk_buf_append(b, g, gl);
        }
        if (rc)
            break;
        if (rwl_tok_is(ts, q, "\\"))
            continue;   /* a line continuation (outside a # line: nothing else is a backslash) */
        size_t j = L->n_ld;
        for (size_t i = 0; repl && i < L->n_ld && j == L->n_ld; i++)
            if (L->ld[i].a == q)
                j = i;
        if (j < L->n_ld) {
            rc = hk_buf_printf(b, "hk_lb_ld%zu[hk_lb_k]", j);
            q = L->ld[j].b - 1;
        } else if (cv && rwl_is_use(ts, q) && rwl_same_tok(ts, q, L->v))
            rc = hk_buf_appends(b, cv);
        else
            rc = hk_buf_append(b, s->text + ts->t[q].start, ts->t[q].end - ts->t[q].start);
    }
    return rc;
}

/* The declared type of prefix statement i, without const, volatile and register. */
static int append_type(struct hk_buf *b, const lb_scan *s, const lb_loop *L, size_t i)
{
    const rw_toks *ts = s->ts;
    int rc = HK_OK;
    size_t star = SIZE_MAX;   /* the last '*': qualifiers before it are the pointee's */
    for (size_t q = L->type_a[i]; q < L->type_b[i]; q++)
        if (rwl_tok_is(ts, q, "*"))
            star = q;
    for (size_t q = L->type_a[i]; q < L->type_b[i] && !rc; q++) {
        if ((rwl_tok_is(ts, q, "const") || rwl_tok_is(ts, q, "volatile")) && (star == SIZE_MAX || q > star))
            continue;
        if (rwl_tok_is(ts, q, "register"))
            continue;
        rc = hk_buf_printf(b, "%.*s ", TOK(ts, q));
    }
    return rc;
}

static int emit_loop(struct hk_buf *b, const lb_scan *s, const lb_loop *L, int K, const char *ind)
{
    const rw_toks *ts = s->ts;
    char i1[80], i2[80], i3[80];
    snprintf(i1, sizeof i1, "%s    ", ind);
    snprintf(i2, sizeof i2, "%s        ", ind);
    snprintf(i3, sizeof i3, "%s            ", ind);
    int rc = hk_buf_printf(b, "for (%.*s; %.*s;) {   /* hk: load_batching: the loads of %d trips first, then " /* i18n: not for people */
                              "their bodies in order */\n",
                           L->init_b > L->init_a ? (int)(ts->t[L->init_b - 1].end - ts->t[L->init_a].start) : 0,
                           L->init_b > L->init_a ? s->text + ts->t[L->init_a].start : "", SPAN(ts, L->cond_a, L->cond_b),
                           K);
    /* the slots */
    if (L->n_brk)
        rc = hk_buf_printf(b, "%sbool hk_lb_brk = false;\n", i1);
    for (size_t i = 0; i < L->n_pre && !rc; i++) {
        if (!L->is_decl[i])
            continue;
        rc = hk_buf_appends(b, i1);
        if (!rc)
            rc = append_type(b, s, L, i);
        if (!rc)
            rc = hk_buf_printf(b, "hk_lb_s_%.*s[%d];\n", TOK(ts, L->name[i]), K);
    }
    for (size_t j = 0; j < L->n_ld && !rc; j++)
        rc = hk_buf_printf(b, "%s%s hk_lb_ld%zu[%d];\n", i1, L->ld[j].type, j, K);
    /* the preload: the counter's own steps and tests, the prefix, the later loads */
    if (!rc)
        rc = hk_buf_printf(b, "%s{\n%sauto hk_lb_iv = %.*s;\n%s#pragma unroll\n%sfor (int hk_lb_k = 0; hk_lb_k < %d; " /* i18n: not for people */
                              "hk_lb_k++, ",
                           i1, i2, TOK(ts, L->v), i2, i2, K);
    if (!rc)
        rc = append_text(b, s, L, L->step_a, L->step_b, "hk_lb_iv", false);
    if (!rc)
        rc = hk_buf_printf(b, ") {\n%sif (!(", i3);
    if (!rc)
        rc = append_text(b, s, L, L->cond_a, L->cond_b, "hk_lb_iv", false);
    if (!rc)
        rc = hk_buf_appends(b, "))\n");
    if (!rc)
        rc = hk_buf_printf(b, "%s    break;\n", i3);
    for (size_t i = 0; i < L->n_pre && !rc; i++) {
        rc = hk_buf_appends(b, i3);
        if (!rc)
            rc = append_text(b, s, L, L->st_a[i], L->st_b[i], "hk_lb_iv", false);
        if (!rc)
            rc = hk_buf_appends(b, "\n");
        if (!rc && L->is_decl[i])
            rc = hk_buf_printf(b, "%shk_lb_s_%.*s[hk_lb_k] = %.*s;\n", i3, TOK(ts, L->name[i]), TOK(ts, L->name[i]));
    }
    for (int g = -1; g < (int)L->n_grp && !rc; g++) {
        const char *in = i3;
        char i4[96];
        if (g >= 0) {
            /* an `if (c) { ... }` block's loads: under c, after its declarations */
            const lb_group *G = &L->grp[g];
            snprintf(i4, sizeof i4, "%s    ", i3);
            in = i4;
            rc = hk_buf_printf(b, "%sif (", i3);
            if (!rc)
                rc = append_text(b, s, L, G->cond_a, G->cond_b, "hk_lb_iv", false);
            if (!rc)
                rc = hk_buf_appends(b, ") {\n");
            for (size_t d = 0; d < G->n_decl && !rc; d++) {
                rc = hk_buf_appends(b, in);
                if (!rc)
                    rc = append_text(b, s, L, G->decl_a[d], G->decl_b[d], "hk_lb_iv", false);
                if (!rc)
                    rc = hk_buf_appends(b, "\n");
            }
        }
        for (size_t j = 0; j < L->n_ld && !rc; j++) {
            if (L->ld[j].grp != g)
                continue;
            rc = hk_buf_printf(b, "%shk_lb_ld%zu[hk_lb_k] = ", in, j);
            if (!rc)
                rc = append_text(b, s, L, L->ld[j].a, L->ld[j].b, "hk_lb_iv", false);
            if (!rc)
                rc = hk_buf_appends(b, ";\n");
        }
        if (!rc && g >= 0)
            rc = hk_buf_printf(b, "%s}\n", i3);
    }
    /* a trip that breaks is the last one preloaded */
    for (size_t j = 0; j < L->n_brk && !rc; j++) {
        rc = hk_buf_printf(b, "%sif (", i3);
        if (!rc)
            rc = append_text(b, s, L, L->brk_a[j], L->brk_b[j], "hk_lb_iv", false);
        if (!rc)
            rc = hk_buf_printf(b, ")\n%s    break;\n", i3);
    }
    if (!rc)
        rc = hk_buf_printf(b, "%s}\n%s}\n", i2, i1);
    /* the bodies, in order, each followed by the step; the next one only while in range */
    if (!rc)
        rc = hk_buf_printf(b, "%s#pragma unroll\n%sfor (int hk_lb_k = 0; hk_lb_k < %d; hk_lb_k++) {\n%sif (hk_lb_k > 0 && " /* i18n: not for people */
                              "!(%.*s))\n%s    break;\n%sdo {\n",
                           i1, i1, K, i2, SPAN(ts, L->cond_a, L->cond_b), i2, i2);
    for (size_t i = 0; i < L->n_st && !rc; i++) {
        size_t brk = L->n_brk;
        for (size_t j = 0; j < L->n_brk && brk == L->n_brk; j++)
            if (L->brk_st[j] == i)
                brk = j;
        rc = hk_buf_appends(b, i3);
        if (!rc && i < L->n_pre && L->is_decl[i]) {
            rc = hk_buf_printf(b, "%.*s = hk_lb_s_%.*s[hk_lb_k];", SPAN(ts, L->type_a[i], L->name[i] + 1),
                               TOK(ts, L->name[i]));
        } else if (!rc && brk < L->n_brk) {
            /* the loop's break leaves the do { } while (0), the bodies' loop and the loop */
            rc = hk_buf_appends(b, "if (");
            if (!rc)
                rc = append_text(b, s, L, L->brk_a[brk], L->brk_b[brk], NULL, true);
            if (!rc)
                rc = hk_buf_appends(b, ") {\n");
            if (!rc)
                rc = hk_buf_printf(b, "%s    hk_lb_brk = true;\n%s    break;\n%s}", i3, i3, i3);
        } else if (!rc)
            rc = append_text(b, s, L, L->st_a[i], L->st_b[i], NULL, true);
        if (!rc)
            rc = hk_buf_appends(b, "\n");
    }
    if (!rc)
        rc = hk_buf_printf(b, "%s} while (0);\n", i2);
    if (!rc && L->n_brk)
        rc = hk_buf_printf(b, "%sif (hk_lb_brk)\n%s    break;\n", i2, i2);
    if (!rc)
        rc = hk_buf_appends(b, i2);
    if (!rc)
        rc = append_text(b, s, L, L->step_a, L->step_b, NULL, false);
    if (!rc)
        rc = hk_buf_printf(b, ";\n%s}\n", i1);
    if (!rc && L->n_brk)
        rc = hk_buf_printf(b, "%sif (hk_lb_brk)\n%s    break;\n", i1, i1);
    if (!rc)
        rc = hk_buf_printf(b, "%s}", ind);
    return rc;
}

static int load_batching(const char *text, size_t len, const an_model *m, size_t kernel, int K, bool barrier_only,
                         rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    if (K != 2 && K != 4 && K != 8)
        return HK_EINVAL;
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    km_kernel *km = NULL;
    rw_edits es = {0};
    struct hk_buf what;
    hk_buf_init(&what, 1 << 16);
    char kwhy[200];
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    rc = km_build(text, len, f->name, &km, kwhy, sizeof kwhy);
    if (rc == HK_ENOMEM)
        goto out;
    if (rc) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_LB_MODEL),
                                                 f->name, rwl_line_at(text, f->body_span.start_byte), kwhy));
        goto out;
    }
    lb_scan s = {.text = text, .len = len, .ts = &ts, .f = f, .m = m, .km = km, .barrier_only = barrier_only};
    char first_why[sizeof s.why] = "";
    bool done_before = false;
    for (size_t k = 1; k + 1 < ts.n && !done_before; k++)
        if (ts.t[k].kind == T_IDENT && !strncmp(text + ts.t[k].start, "hk_lb_", 6)) {
            refuse(&s, k, "loop", EN(RW_LB_ALREADY));
            snprintf(first_why, sizeof first_why, "%s", s.why);
            done_before = true;
        }
    size_t first_loop = SIZE_MAX, n_done = 0;
    bool first_weak = false;
    for (size_t k = 1; k + 1 < ts.n && !done_before && !rc; k++) {
        if (!rwl_tok_is(&ts, k, "for") || !rwl_tok_is(&ts, k + 1, "("))
            continue;
        if (first_loop == SIZE_MAX)
            first_loop = k;
        lb_loop L;
        memset(&L, 0, sizeof L);
        L.loop_a = k;
        L.loop_b = rwl_stmt_end(&ts, k, ts.n - 1);
        size_t li = 0;
        s.why[0] = '\0';
        if (!read_header(&s, &L) || !model_loop(&s, &L, &li) || !read_body(&s, &L) || !no_alias(&s, &L, li)) {
            bool weak = strstr(s.why, "loads nothing") != NULL;
            if (!n_done && (!first_why[0] || (first_weak && !weak))) {
                snprintf(first_why, sizeof first_why, "%s", s.why);
                first_weak = weak;
            }
            continue;   /* an inner loop may still be batched */
        }
        char ind[64];
        rwl_line_indent(text, ts.t[k].start, ind, sizeof ind);
        struct hk_buf nb;
        hk_buf_init(&nb, RW_TEXT_MAX);
        rc = emit_loop(&nb, &s, &L, K, ind);
        if (!rc)
            rc = rwl_edits_add(&es, ts.t[L.loop_a].start, ts.t[L.loop_b - 1].end, nb.data);
        if (!rc)
            rc = hk_buf_appends(&what, n_done ? ", " : "");
        if (!rc) /* one sentence per number: Chinese has no plural */
            rc = hk_buf_printf(&what, L.n_pre_loads + L.n_ld == 1 ? EN(RW_LB_LINE_LOAD) : EN(RW_LB_LINE_LOADS),
                               rwl_line_at(text, ts.t[k].start), L.n_pre_loads + L.n_ld);
        hk_buf_free(&nb);
        n_done++;
        first_why[0] = '\0';
        k = L.loop_b - 1;
    }
    if (rc)
        goto out;
    if (!n_done) {
        char why[800];
        if (first_why[0])
            snprintf(why, sizeof why, "%s", first_why);
        else if (first_loop == SIZE_MAX)
            snprintf(why, sizeof why, EN(RW_LB_NO_FOR), rwl_line_at(text, f->body_span.start_byte));
        else
            snprintf(why, sizeof why, EN(RW_LB_NO_READONLY_LOOP),
                     rwl_line_at(text, ts.t[first_loop].start));
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO),
                                                 barrier_only ? "barrier_load_batching" : "load_batching", f->name, why));
        goto out;
    }
    char *desc = hk_asprintf(EN(RW_LB_DESC),
                             f->name, what.data, K, K);
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    if (rc == HK_OK && out->applicable)
        out->keeps_launch = true;
out:
    hk_buf_free(&what);
    rwl_edits_free(&es);
    km_free(km);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */
static const rw_param lb_params[] = {
    {.name = "k", .type = RW_PARAM_ENUM, .values = {2, 4, 8}, .n_values = 3, .def = 4},
};

static int emit_load_batching(const rw_context *c, const int *p, rw_result *out)
{
    return load_batching(c->text, c->len, c->m, c->kernel, p[0], false, out);
}

static int emit_barrier_load_batching(const rw_context *c, const int *p, rw_result *out)
{
    return load_batching(c->text, c->len, c->m, c->kernel, p[0], true, out);
}

const rw_descriptor rw_load_batching_desc = {
    .name = "load_batching",
    .summary = "a counted loop whose body loads read-only memory issues the loads of K trips first, then runs " /* i18n: not for people */
               "the K bodies in order (bit-identical)",
    .params = lb_params,
    .n_params = HK_ARRAY_LEN(lb_params),
    /* more loads in flight where no vector loop can be written: a structural rewrite of its
     * class, after the others of its pass and behind vectorize where that applies
     * (RW_VECTOR_FALLBACK). Not RW_ALGORITHM: planned in every class as one, it took
     * double_narrowing's place among three_nn's first candidates (test_engine_search_ilp) */
    .flags = RW_VECTOR_FALLBACK,
    .emit = emit_load_batching,
};

/* The same rewrite, only on loops that hold a block barrier: a DP row sweep or a staged tile
 * loop (Rodinia's pathfinder) waits on one load per trip between its barriers whatever its
 * class, and under a memory-bound class this entry is its skill's rewrite, so that the skill
 * fits those loops only (a skill fits where its rewrite applies), not every loop that
 * load_batching takes. */
const rw_descriptor rw_barrier_load_batching_desc = {
    .name = "barrier_load_batching",
    .summary = "load_batching on a loop with a block barrier in its body: the loads of K trips first (under " /* i18n: not for people */
               "their guards, up to a trip that breaks), then the K bodies with their barriers in order "
               "(bit-identical)",
    .params = lb_params,
    .n_params = HK_ARRAY_LEN(lb_params),
    .flags = RW_VECTOR_FALLBACK,
    .emit = emit_barrier_load_batching,
};
