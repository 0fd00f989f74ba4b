/* channel_chunks: a one-element-per-thread grid-stride loop whose counter decomposes into
 * coordinates (`pw = i % W; ph = i / W % H; c = i / W / H % C; n = i / W / H / C`), whose
 * element is one accumulation `acc += ...` over a loop nest and one store `P[i] = acc`, and
 * one of whose loads does not depend on an outer coordinate c: one thread takes the C_K
 * elements that differ only in c, loads that value once per tap and keeps C_K accumulators.
 *
 * Why: mmcv's carafe reads a mask that depends on the channel only through its group
 * (mask_group = c / (channels / group_size)); in the original thread order the channels that
 * share one mask value are H*W threads apart, so each of the 25 mask loads per output goes
 * to L2 again (3.4 GB of sectors per launch at the spec's size, L2-bound). Any kernel whose
 * load is invariant along one outer coordinate re-reads it that many times.
 *
 * Proof of exactness. The chunk index space is the counter's with c's extent M replaced by
 * ceil(M / C_K) and the outermost coordinate counted to ceil(n / (product of the factors)):
 * every flat index i < n is (d_0, .., c, .., d_last) with c < M, hence one chunk and one k
 * with c = c0 + k, and the flat indices of a chunk grow with k, so the k with c0 + k < M and
 * index < n are a prefix (kn of them). Each element runs with the coordinate values its own
 * flat index gives (the factors are positive: checked at run time, else the original loop
 * runs). The prologue (declarations of the coordinates' functions, no loads) is evaluated
 * at c0; its locals that depend on c (guards, like mask_group) are evaluated for every
 * c0 + k and compared with c0's: where one differs the chunk runs the original body once
 * per k. Otherwise every prologue value is the element's own. The loop nest's bounds and
 * `continue` conditions read no value that depends on c (checked), so it takes the same
 * path for every k; its declarations that depend on c are evaluated per k inside the k
 * loop, with c = c0 + k; a load of the accumulation whose subscript does not depend on c
 * reads a buffer the kernel never writes, so one load gives every k the value its own
 * would. Each accumulator gets `acc[k] += e` with e the same expression on the same
 * operands in the same order (fma contraction alike), and is stored once to P[index], a
 * buffer the kernel never reads: every output has the bits of the original. Outputs are
 * written once each from read-only memory, so the order of chunks over threads is free. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_period.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "model/kmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CC_COORDS 8
#define CC_NAMES 64
#define CC_LOADS 8
#define CC_BUFS 16

typedef struct {
    const char *text;
    size_t len;
    const rw_toks *ts;
    const an_function *f;
    const an_model *m;
    rwpt_loop lo;
    size_t n_co;
    size_t co_a[CC_COORDS], co_e[CC_COORDS], co_name[CC_COORDS]; /* each coordinate's statement and name */
    size_t fac[CC_COORDS];                                       /* F_t: the modulus of coordinate t */
    size_t cj;                                                   /* the chunked coordinate */
    size_t pro_a, pro_e;                                         /* the prologue's statements */
    size_t acc_a, acc_e, acc_name, acc_dn, acc_init_a, acc_init_e;       /* `T acc = init;` */
    size_t nest_a, nest_e;                                       /* the loop nest */
    size_t st_a, st_e, st_buf;                                   /* `P[i] = acc;` */
    size_t upd_a, upd_e;                                         /* `acc += e;` in the nest */
    size_t blk_a, blk_e;                                         /* the statements of the update's block */
    size_t names[CC_NAMES];                                      /* locals declared in the body */
    bool vary[CC_NAMES], guard[CC_NAMES];
    size_t n_names;
    size_t vdecl[CC_NAMES][3];                                   /* the update block's c-dependent declarations */
    size_t n_vdecl;
    size_t ld[CC_LOADS][2];                                      /* hoisted loads [name, close] */
    size_t n_ld;
    const an_param *rd[CC_BUFS];
    size_t n_rd;
    char why[700];
} cc_scan;

#define refuse(s, k, ...) rwl_refuse((s)->why, sizeof (s)->why, (s)->ts, (s)->text, (k), __VA_ARGS__)
#define TOK(ts, k) (int)((ts)->t[k].end - (ts)->t[k].start), (ts)->text + (ts)->t[k].start

static int name_of(const cc_scan *s, size_t k)
{
    for (size_t i = 0; i < s->n_names; i++)
        if (rwl_same_tok(s->ts, s->names[i], k))
            return (int)i;
    return -1;
}

static bool is_kw(const rw_toks *ts, size_t k)
{
    static const char *const kw[] = {"if", "else", "for", "while", "do", "continue", "sizeof", "true", "false"};
    for (size_t i = 0; i < HK_ARRAY_LEN(kw); i++)
        if (rwl_tok_is(ts, k, kw[i]))
            return true;
    return false;
}

/* A called function of the file: scalar parameters, a body without memory, calls, writes
 * other than its own declarations: a pure function of its arguments (Loc2Index). */
static bool pure_callee(cc_scan *s, size_t k)
{
    const an_function *g = rwl_callee(s->m, s->f, s->ts, k);
    if (!g)
        return false;
    for (size_t i = 0; i < g->n_params; i++)
        if (g->params[i].pointer_depth || strchr(g->params[i].type ? g->params[i].type : "", '&'))
            return false;
    rw_toks gt = {0};
    if (rwl_lex(s->text, g->body_span.start_byte, g->body_span.end_byte, &gt) != HK_OK)
        return false;
    bool ok = gt.n >= 2;
    for (size_t q = 1; ok && q + 1 < gt.n; q++) {
        if (rwl_tok_is(&gt, q, "[") || rwl_tok_is(&gt, q, "->") || rwl_tok_is(&gt, q, "asm") ||
            rwl_tok_is(&gt, q, "static") || rwl_tok_is(&gt, q, "volatile") || rwl_tok_is(&gt, q, "__shared__") ||
            rwl_tok_is(&gt, q, "threadIdx") || rwl_tok_is(&gt, q, "blockIdx") || rwl_tok_is(&gt, q, "for") ||
            rwl_tok_is(&gt, q, "while") || rwl_tok_is(&gt, q, "goto") ||
            ((rwl_tok_is(&gt, q, "*") || rwl_tok_is(&gt, q, "&")) && rwl_unary_position(&gt, q)))
            ok = false;
        else if (gt.t[q].kind == T_IDENT && rwl_tok_is(&gt, q + 1, "(") && !rwl_pure_call_name(&gt, q) &&
                 !rwl_is_type_word(&gt, q) && !rwp_is_type_word(&gt, q) && !rwl_tok_is(&gt, q, "return") &&
                 !rwl_tok_is(&gt, q, "if"))
            ok = false;
        else if ((rwl_tok_is_assign_op(&gt, q) || rwl_tok_is(&gt, q, "++") || rwl_tok_is(&gt, q, "--")) &&
                 !(rwl_tok_is(&gt, q, "=") && gt.t[q - 1].kind == T_IDENT && rwl_declared_here(&gt, q - 1)))
            ok = false;
    }
    rwl_toks_free(&gt);
    return ok;
}

/* What an expression or statement [a, b) may hold: no thread index, atomic, barrier, impure
 * call, pointer, write (the callers allow theirs), early exit; loads only where `loads`
 * (then only `P[...]` of a pointer parameter the kernel never writes, recorded in s->rd).
 * *dep: whether it reads the chunked coordinate or a c-dependent local (or a guard, where
 * `guards`). */
static bool expr_scan(cc_scan *s, size_t a, size_t b, bool loads, bool guards, bool *dep)
{
    const rw_toks *ts = s->ts;
    *dep = false;
    for (size_t q = a; q < b; q++) {
        if (ts->t[q].kind != T_IDENT) {
            if (rwl_tok_is(ts, q, "->") || ((rwl_tok_is(ts, q, "*") || rwl_tok_is(ts, q, "&")) && rwl_unary_position(ts, q)))
                return refuse(s, q, "memory", "`%.*s`: memory through a pointer the scan cannot follow", TOK(ts, q));
            if (rwl_tok_is_assign_op(ts, q) || rwl_tok_is(ts, q, "++") || rwl_tok_is(ts, q, "--"))
                return refuse(s, q, "write", "`%.*s` inside an expression of the element", TOK(ts, q));
            if (rwl_tok_is(ts, q, "[") && !loads)
                return refuse(s, q, "memory", "a load outside the accumulation");
            continue;
        }
        size_t l = ts->t[q].end - ts->t[q].start;
        const char *c = ts->text + ts->t[q].start;
        if (rwl_tok_is(ts, q, "threadIdx") || rwl_tok_is(ts, q, "blockIdx") || rwl_tok_is(ts, q, "blockDim") ||
            rwl_tok_is(ts, q, "gridDim") || rwl_tok_is(ts, q, "warpSize"))
            return refuse(s, q, "thread index", "`%.*s` in the element: its value would depend on the thread",
                          TOK(ts, q));
        if (l >= 6 && !memcmp(c, "atomic", 6))
            return refuse(s, q, "atomic", "`%.*s` in the element: not one plain store of one accumulator",
                          TOK(ts, q));
        if ((l >= 6 && (!memcmp(c, "__sync", 6) || !memcmp(c, "__shfl", 6))) || (l >= 8 && !memcmp(c, "__ballot", 8)))
            return refuse(s, q, "barrier", "`%.*s` in the element", TOK(ts, q));
        if (rwl_tok_is(ts, q, "return") || rwl_tok_is(ts, q, "goto") || rwl_tok_is(ts, q, "break") ||
            rwl_tok_is(ts, q, "asm"))
            return refuse(s, q, "early exit", "`%.*s` in the element", TOK(ts, q));
        if (q + 1 < b && rwl_tok_is(ts, q + 1, "(") && !is_kw(ts, q) && !rwl_is_type_word(ts, q) &&
            !rwp_is_type_word(ts, q) && !rwl_pure_call_name(ts, q) && !pure_callee(s, q))
            return refuse(s, q, "call", "`%.*s(...)` is not a pure function of its arguments", TOK(ts, q));
        if (rwl_same_tok(ts, q, s->lo.v))
            return refuse(s, q, "counter", "the counter `%.*s` is read other than as the coordinates and the store's "
                                           "subscript", TOK(ts, q));
        const an_param *pa = rwp_param_named(s->f, ts, q);
        if (pa && pa->pointer_depth >= 1) {
            if (!loads || !rwl_tok_is(ts, q + 1, "[") || pa->pointer_depth != 1)
                return refuse(s, q, "memory", "`%.*s` is used other than as a load `%.*s[...]` of the accumulation",
                              TOK(ts, q), TOK(ts, q));
            if (rw_param_written(s->text, s->len, s->f, pa->name))
                return refuse(s, q, "memory", "the element reads `%.*s`, which the kernel writes", TOK(ts, q));
            bool have = false;
            for (size_t i = 0; i < s->n_rd; i++)
                have |= s->rd[i] == pa;
            if (!have) {
                if (s->n_rd >= CC_BUFS)
                    return refuse(s, q, "memory", "more than %d buffers", CC_BUFS);
                s->rd[s->n_rd++] = pa;
            }
            continue;
        }
        if (rwl_same_tok(ts, q, s->co_name[s->cj])) {
            *dep = true;
            continue;
        }
        int n = name_of(s, q);
        if (n >= 0 && (s->vary[n] || (guards && s->guard[n])))
            *dep = true;
    }
    return true;
}

/* `T name = expr;` at [a, e): records the name; *eq its `=`. */
static bool declaration(cc_scan *s, size_t a, size_t e, size_t *name, size_t *eq)
{
    const rw_toks *ts = s->ts;
    size_t q = a;
    while (q < e && !rwl_tok_is(ts, q, "=") && !rwl_tok_is(ts, q, ",") && !rwl_tok_is(ts, q, "("))
        q++;
    if (q >= e || !rwl_tok_is(ts, q, "=") || q == a || ts->t[q - 1].kind != T_IDENT || !rwl_declared_here(ts, q - 1))
        return refuse(s, a, "statement", "`%.*s ...` is not a declaration `T name = value;`", TOK(ts, a));
    for (size_t r = q + 1; r < e; r++)
        if (rwl_tok_is(ts, r, ",") && rwl_declared_here(ts, r + 1))
            return refuse(s, r, "statement", "more than one declarator in a statement");
    if (name_of(s, q - 1) >= 0 || rwp_param_named(s->f, ts, q - 1))
        return refuse(s, q - 1, "statement", "`%.*s` is declared twice (or hides a parameter)", TOK(ts, q - 1));
    for (size_t t = 0; t < s->n_co; t++)
        if (rwl_same_tok(ts, s->co_name[t], q - 1))
            return refuse(s, q - 1, "statement", "`%.*s` hides a coordinate", TOK(ts, q - 1));
    if (s->n_names >= CC_NAMES)
        return refuse(s, q - 1, "statement", "more than %d locals", CC_NAMES);
    s->names[s->n_names] = q - 1;
    s->vary[s->n_names] = s->guard[s->n_names] = false;
    s->n_names++;
    *name = q - 1;
    *eq = q;
    return true;
}

/* The end of the statement at p in [p, end) (a block, an if with its statement, a for). */
static size_t stmt_end(const rw_toks *ts, size_t p, size_t end)
{
    if (rwl_tok_is(ts, p, "{"))
        return rwl_match_close(ts, p) + 1;
    return rwl_stmt_end(ts, p, end);
}

/* The statements [a, b) of one level of the loop nest (see the proof). */
static bool nest_level(cc_scan *s, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    for (size_t p = a; p < b;) {
        size_t e = stmt_end(ts, p, b);
        if (e <= p || e > b)
            return refuse(s, p, "statement", "a statement the scan cannot delimit");
        bool dep;
        if (rwl_tok_is(ts, p, "for") && rwl_tok_is(ts, p + 1, "(")) {
            size_t hc = rwl_match_close(ts, p + 1), dn = 0, de = 0;
            /* for (T v = init; cond; step): writes only to v */
            size_t s1 = p + 2;
            while (s1 < hc && !rwl_tok_is(ts, s1, ";"))
                s1++;
            if (!declaration(s, p + 2, s1, &dn, &de))
                return false;
            if (!expr_scan(s, de + 1, s1, false, false, &dep))
                return false;
            for (size_t q = s1; q < hc; q++) {
                if ((rwl_tok_is_assign_op(ts, q) || rwl_tok_is(ts, q, "++") || rwl_tok_is(ts, q, "--")) &&
                    !(q > s1 && rwl_same_tok(ts, q - 1, dn)) && !(rwl_same_tok(ts, q + 1, dn)))
                    return refuse(s, q, "loop nest", "the loop header writes other than its own counter");
            }
            bool d2;
            size_t s2 = s1 + 1;
            while (s2 < hc && !rwl_tok_is(ts, s2, ";"))
                s2++;
            /* the step's own writes are allowed: scan the condition, then the step without them */
            if (!expr_scan(s, s1 + 1, s2, false, false, &d2))
                return false;
            bool dep3 = false;
            for (size_t q = s2 + 1; q < hc; q++)
                if (ts->t[q].kind == T_IDENT && !rwl_same_tok(ts, q, dn)) {
                    int n = name_of(s, q);
                    dep3 |= rwl_same_tok(ts, q, s->co_name[s->cj]) || (n >= 0 && s->vary[n]);
                }
            if (dep || d2 || dep3)
                return refuse(s, p, "loop nest", "the loop's bounds depend on `%.*s`: the chunk's elements would "
                                                 "take other paths", TOK(ts, s->co_name[s->cj]));
            size_t ba = hc + 1, bb = e;
            if (rwl_tok_is(ts, ba, "{"))
                ba++, bb--;
            if (!nest_level(s, ba, bb))
                return false;
        } else if (rwl_tok_is(ts, p, "if") && rwl_tok_is(ts, p + 1, "(")) {
            size_t hc = rwl_match_close(ts, p + 1);
            size_t q = hc + 1;
            bool ok = (rwl_tok_is(ts, q, "continue") && rwl_tok_is(ts, q + 1, ";") && q + 2 == e) ||
                      (rwl_tok_is(ts, q, "{") && rwl_tok_is(ts, q + 1, "continue") && rwl_tok_is(ts, q + 2, ";") &&
                       rwl_tok_is(ts, q + 3, "}") && q + 4 == e);
            if (!ok)
                return refuse(s, p, "statement", "an `if` other than `if (cond) continue;` in the loop nest");
            if (!expr_scan(s, p + 2, hc, false, false, &dep))
                return false;
            if (dep)
                return refuse(s, p, "loop nest", "the `continue` condition depends on `%.*s`",
                              TOK(ts, s->co_name[s->cj]));
        } else if (rwl_same_tok(ts, p, s->acc_name) && rwl_tok_is(ts, p + 1, "+=")) {
            if (s->upd_e)
                return refuse(s, p, "accumulator", "a second update of `%.*s`", TOK(ts, p));
            for (size_t q = p + 2; q + 1 < e; q++)
                if (rwl_same_tok(ts, q, s->acc_name))
                    return refuse(s, q, "accumulator", "the update reads `%.*s`", TOK(ts, q));
            if (!expr_scan(s, p + 2, e - 1, true, false, &dep))
                return false;
            s->upd_a = p;
            s->upd_e = e;
            s->blk_a = a;
            s->blk_e = b;
        } else if (rwl_starts_declaration(ts, p)) {
            size_t dn, de;
            if (!declaration(s, p, e - 1, &dn, &de))
                return false;
            if (!expr_scan(s, de + 1, e - 1, false, false, &dep))
                return false;
            s->vary[s->n_names - 1] = dep;
            if (dep) {
                if (s->n_vdecl >= CC_NAMES)
                    return refuse(s, p, "statement", "too many declarations");
                s->vdecl[s->n_vdecl][0] = p;
                s->vdecl[s->n_vdecl][1] = e;
                s->vdecl[s->n_vdecl][2] = a;
                s->n_vdecl++;
            }
        } else
            return refuse(s, p, "statement", "`%.*s ...` in the loop nest: only loops, `if (...) continue;`, "
                                             "declarations and the update `acc += ...`", TOK(ts, p));
        p = e;
    }
    return true;
}

/* Coordinate t's statement [a, e): `T name = ( i / F0 ... ) % Ft ;` (no `%` for the last). */
static bool coordinate(cc_scan *s, size_t a, size_t e, size_t t, bool *last)
{
    const rw_toks *ts = s->ts;
    size_t dn, eq;
    if (!rwl_starts_declaration(ts, a))
        return refuse(s, a, "coordinate", "`%.*s ...` reads the counter `%.*s` outside a coordinate's declaration "
                                          "`int c = %.*s / A %% C;`", TOK(ts, a), TOK(ts, s->lo.v), TOK(ts, s->lo.v));
    if (!declaration(s, a, e - 1, &dn, &eq))
        return false;
    s->n_names--; /* coordinates are not body locals */
    size_t q = eq + 1, opens = 0;
    while (q < e && rwl_tok_is(ts, q, "("))
        q++, opens++;
    if (!rwl_same_tok(ts, q, s->lo.v))
        return refuse(s, q, "coordinate", "`%.*s` is not a coordinate `%.*s / A %% B` of the counter", TOK(ts, dn),
                      TOK(ts, s->lo.v));
    q++;
    size_t divs = 0;
    bool mod = false;
    while (q + 1 < e) {
        if (rwl_tok_is(ts, q, ")")) {
            if (!opens)
                return refuse(s, q, "coordinate", "unbalanced parentheses");
            opens--;
            q++;
            continue;
        }
        bool d = rwl_tok_is(ts, q, "/"), m = rwl_tok_is(ts, q, "%");
        if ((!d && !m) || mod)
            return refuse(s, q, "coordinate", "`%.*s` in the coordinate `%.*s`: only `/ F` then one `%% F`",
                          TOK(ts, q), TOK(ts, dn));
        size_t fq = q + 1;
        const an_param *pa = rwp_param_named(s->f, ts, fq);
        bool lit = ts->t[fq].kind == T_NUMBER;
        bool kept = pa && pa->pointer_depth == 0 && !strstr(pa->type, "float") && !strstr(pa->type, "double");
        for (size_t k = 1; kept && k + 1 < ts->n; k++)
            if (rwl_same_tok(ts, k, fq) && (rwl_declared_here(ts, k) || (rwl_is_use(ts, k) && rwl_scalar_written(ts, k))))
                kept = false;
        if (!lit && !kept)
            return refuse(s, fq, "coordinate", "the factor `%.*s` is not an integer parameter the kernel keeps or a "
                                               "literal", TOK(ts, fq));
        if (d) {
            if (divs >= t || !rwl_same_tok(ts, fq, s->fac[divs]))
                return refuse(s, fq, "coordinate", "coordinate %zu divides by `%.*s`, not by the moduli of the "
                                                   "coordinates before it, in order", t, TOK(ts, fq));
            divs++;
        } else {
            mod = true;
            s->fac[t] = fq;
        }
        q = fq + 1;
    }
    if (opens || divs != t)
        return refuse(s, a, "coordinate", "`%.*s` is not coordinate %zu of the counter (%zu divisions)", TOK(ts, dn), t,
                      divs);
    *last = !mod;
    s->co_a[t] = a;
    s->co_e[t] = e;
    s->co_name[t] = dn;
    return true;
}

/* Reads the loop body for chunk coordinate cj (the scan's state reset). */
static bool read_chunks(cc_scan *s, size_t cj)
{
    const rw_toks *ts = s->ts;
    s->cj = cj;
    s->n_names = s->n_vdecl = s->n_ld = s->n_rd = 0;
    s->upd_a = s->upd_e = 0;
    s->why[0] = '\0';
    size_t ba = s->lo.ba, bb = s->lo.bb;
    /* the statements */
    size_t stmts[256], n = 0;
    for (size_t p = ba; p < bb;) {
        size_t e = stmt_end(ts, p, bb);
        if (e <= p || n >= HK_ARRAY_LEN(stmts))
            return refuse(s, p, "statement", "a statement the scan cannot delimit");
        stmts[n++] = p;
        p = e;
    }
    stmts[n] = bb;
    if (n < s->n_co + 3)
        return refuse(s, ba, "loop body", "not coordinates, an accumulator, one loop nest and one store");
    /* the store: P[i] = acc; */
    size_t sa = stmts[n - 1];
    const an_param *pb = rwp_param_named(s->f, ts, sa);
    if (!pb || pb->pointer_depth != 1 || !rwl_tok_is(ts, sa + 1, "[") || !rwl_same_tok(ts, sa + 2, s->lo.v) ||
        !rwl_tok_is(ts, sa + 3, "]") || !rwl_tok_is(ts, sa + 4, "=") || ts->t[sa + 5].kind != T_IDENT ||
        !rwl_tok_is(ts, sa + 6, ";") || sa + 7 != bb)
        return refuse(s, sa, "store", "the body does not end with one store `P[%.*s] = acc;`", TOK(ts, s->lo.v));
    s->st_a = sa;
    s->st_e = bb;
    s->st_buf = sa;
    s->acc_name = sa + 5;
    for (size_t q = ba; q < bb; q++)
        if (q != sa && rwl_same_tok(ts, q, sa))
            return refuse(s, q, "store", "the kernel names `%.*s` again: it may read what a chunk wrote", TOK(ts, q));
    for (size_t q = 1; q + 1 < ts->n; q++)
        if ((q < ba || q >= bb) && rwl_same_tok(ts, q, sa) && rwl_is_use(ts, q))
            return refuse(s, q, "store", "`%.*s` is used outside the loop", TOK(ts, q));
    /* the nest and the accumulator */
    size_t na = stmts[n - 2], aa = stmts[n - 3];
    if (!rwl_tok_is(ts, na, "for"))
        return refuse(s, na, "loop nest", "the statement before the store is not a loop");
    size_t an, aeq;
    if (!declaration(s, aa, stmts[n - 2] - 1, &an, &aeq))
        return false;
    if (!rwl_same_tok(ts, an, s->acc_name))
        return refuse(s, aa, "accumulator", "the stored `%.*s` is not declared just before the loop nest",
                      TOK(ts, s->acc_name));
    bool dep;
    if (!expr_scan(s, aeq + 1, stmts[n - 2] - 1, false, true, &dep))
        return false;
    if (dep)
        return refuse(s, aa, "accumulator", "the accumulator's start depends on `%.*s`", TOK(ts, s->co_name[cj]));
    s->n_names--; /* the accumulator is handled apart */
    s->acc_a = aa;
    s->acc_dn = an;
    s->acc_e = na;
    s->acc_init_a = aeq + 1;
    s->acc_init_e = na - 1;
    /* the prologue: declarations; a guard depends on c */
    s->pro_a = stmts[s->n_co];
    s->pro_e = aa;
    for (size_t i = s->n_co; i < n - 3; i++) {
        size_t dn, de;
        if (!rwl_starts_declaration(ts, stmts[i]))
            return refuse(s, stmts[i], "statement", "`%.*s ...` before the accumulator is not a declaration",
                          TOK(ts, stmts[i]));
        if (!declaration(s, stmts[i], stmts[i + 1] - 1, &dn, &de))
            return false;
        if (!expr_scan(s, de + 1, stmts[i + 1] - 1, false, true, &dep))
            return false;
        s->guard[s->n_names - 1] = dep;
    }
    if (!nest_level(s, na, stmts[n - 1]))
        return false;
    if (!s->upd_e)
        return refuse(s, na, "accumulator", "the loop nest never updates `%.*s` with `+=`", TOK(ts, s->acc_name));
    /* the c-dependent declarations all lie in the update's block, before it */
    for (size_t i = 0; i < s->n_vdecl; i++)
        if (s->vdecl[i][2] != s->blk_a || s->vdecl[i][0] > s->upd_a)
            return refuse(s, s->vdecl[i][0], "loop nest", "a declaration that depends on `%.*s` outside the "
                                                          "update's block, or after it",
                          TOK(ts, s->co_name[cj]));
    /* the accumulator is named by its declaration, its update and the store only */
    for (size_t q = ba; q < bb; q++)
        if (rwl_same_tok(ts, q, s->acc_name) && q != an && q != s->upd_a && q != sa + 5)
            return refuse(s, q, "accumulator", "`%.*s` is read or written elsewhere", TOK(ts, q));
    /* the loads of the update whose subscript does not depend on c */
    for (size_t q = s->upd_a + 2; q + 1 < s->upd_e; q++) {
        const an_param *pa = rwp_param_named(s->f, ts, q);
        if (!pa || pa->pointer_depth != 1 || !rwl_tok_is(ts, q + 1, "["))
            continue;
        size_t cl = rwl_match_close(ts, q + 1);
        if (!expr_scan(s, q + 2, cl, true, false, &dep))
            return false;
        if (!dep) {
            if (s->n_ld >= CC_LOADS)
                return refuse(s, q, "load", "more than %d loads to share", CC_LOADS);
            s->ld[s->n_ld][0] = q;
            s->ld[s->n_ld][1] = cl;
            s->n_ld++;
        }
        q = cl;
    }
    if (!s->n_ld)
        return refuse(s, s->upd_a, "load", "every load of the update depends on `%.*s`: nothing for the chunk to "
                                           "share", TOK(ts, s->co_name[cj]));
    /* the store may not alias a load: __restrict__, or no launch in the file passes both */
    for (size_t r = 0; r < s->n_rd; r++) {
        const an_param *rp = s->rd[r];
        if (pb->is_restrict || rp->is_restrict)
            continue;
        if (rp == pb)
            return refuse(s, sa, "store", "the loop writes `%s`, which it reads", pb->name);
        const an_launch *la = rwl_launch_passing_twice(s->m, s->f, (size_t)(pb - s->f->params),
                                                       (size_t)(rp - s->f->params));
        if (la)
            return refuse(s, sa, "store", "the launch at line %u passes `%s` as both %s and %s",
                          la->span.start_row + 1, la->args[pb - s->f->params], pb->name, rp->name);
    }
    return true;
}

/* Appends tokens [a, b)'s text (from a's start to b-1's end) with the hoisted loads named. */
static int put_range(struct hk_buf *o, const cc_scan *s, size_t a, size_t b, bool loads)
{
    const rw_toks *ts = s->ts;
    if (b <= a)
        return HK_OK;
    uint32_t at = ts->t[a].start, end = ts->t[b - 1].end;
    int rc = HK_OK;
    for (size_t i = 0; loads && i < s->n_ld && !rc; i++) {
        uint32_t la = ts->t[s->ld[i][0]].start, le = ts->t[s->ld[i][1]].end;
        if (la < at || le > end)
            continue;
        rc = hk_buf_append(o, s->text + at, la - at);
        if (!rc)
            rc = hk_buf_printf(o, "hk_cc_l%zu", i);
        at = le;
    }
    if (!rc)
        rc = hk_buf_append(o, s->text + at, end - at);
    return rc;
}

/* The coordinates' declarations with the chunk's values, c = c0 + k (k an expression). */
static int put_coords(struct hk_buf *o, const cc_scan *s, const char *k, bool counter)
{
    const rw_toks *ts = s->ts;
    int rc = HK_OK;
    for (size_t t = 0; t < s->n_co && !rc; t++) {
        rc = hk_buf_append(o, s->text + ts->t[s->co_a[t]].start, ts->t[s->co_name[t]].end - ts->t[s->co_a[t]].start);
        if (!rc)
            rc = t == s->cj ? hk_buf_printf(o, " = hk_cc_c0 + %s;\n", k) : hk_buf_printf(o, " = hk_cc_d%zu;\n", t);
    }
    if (!rc && counter)
        rc = hk_buf_printf(o, "const long long %.*s = hk_cc_base + (hk_cc_c0 + %s) * hk_cc_sj;\n", TOK(ts, s->lo.v), k);
    return rc;
}

static int emit_chunks(cc_scan *s, int CK, struct hk_buf *o)
{
    const rw_toks *ts = s->ts;
    const char *text = s->text;
    size_t K = s->n_co;
    int rc = hk_buf_printf(o, "{   /* hk: channel_chunks: a thread takes %d elements that differ only in `%.*s` "
                              "and loads what does not depend on it once */\n",
                           CK, TOK(ts, s->co_name[s->cj]));
    if (!rc)
        rc = hk_buf_printf(o, "    auto hk_cc_n = (%.*s);\n    bool hk_cc_ok = hk_cc_n >= 0;\n    long long hk_cc_plane = 1;\n",
                           (int)(ts->t[s->lo.bnd_b - 1].end - ts->t[s->lo.bnd_a].start), text + ts->t[s->lo.bnd_a].start);
    for (size_t t = 0; t + 1 < K && !rc; t++)
        rc = hk_buf_printf(o, "    const long long hk_cc_f%zu = (long long)(%.*s);\n"
                              "    hk_cc_ok = hk_cc_ok && hk_cc_f%zu > 0 && hk_cc_plane <= 0x0fffffffffffffffLL / hk_cc_f%zu;\n"
                              "    if (hk_cc_ok)\n        hk_cc_plane *= hk_cc_f%zu;\n",
                           t, TOK(ts, s->fac[t]), t, t, t);
    if (!rc)
        rc = hk_buf_printf(o, "    const long long hk_cc_cb = hk_cc_ok ? (hk_cc_f%zu + %d) / %d : 0;\n"
                              "    const long long hk_cc_total = hk_cc_ok ? (((long long)hk_cc_n + hk_cc_plane - 1) / "
                              "hk_cc_plane) * (hk_cc_plane / hk_cc_f%zu) * hk_cc_cb : 0;\n"
                              "    if (hk_cc_ok) {\n"
                              "    for (long long hk_j = blockIdx.x * (long long)blockDim.x + threadIdx.x; hk_j < hk_cc_total;"
                              " hk_j += (long long)blockDim.x * gridDim.x) {\n"
                              "    long long hk_cc_r = hk_j, hk_cc_base = 0, hk_cc_s = 1, hk_cc_sj = 1;\n",
                           s->cj, CK - 1, CK, s->cj);
    for (size_t t = 0; t < K && !rc; t++) {
        char fn[32];
        snprintf(fn, sizeof fn, t == s->cj ? "hk_cc_cb" : "hk_cc_f%zu", t);
        if (t + 1 < K)
            rc = hk_buf_printf(o, "    const long long hk_cc_d%zu = hk_cc_r %% %s;\n    hk_cc_r /= %s;\n", t, fn, fn);
        else
            rc = hk_buf_printf(o, "    const long long hk_cc_d%zu = hk_cc_r;\n", t);
        if (!rc)
            rc = t == s->cj ? hk_buf_printf(o, "    hk_cc_sj = hk_cc_s;\n")
                            : hk_buf_printf(o, "    hk_cc_base += hk_cc_d%zu * hk_cc_s;\n", t);
        if (!rc && t + 1 < K)
            rc = hk_buf_printf(o, "    hk_cc_s *= hk_cc_f%zu;\n", t);
    }
    if (!rc)
        rc = hk_buf_printf(o, "    const long long hk_cc_c0 = hk_cc_d%zu * %d;\n"
                              "    int hk_cc_kn = 0;\n#pragma unroll\n    for (int hk_k = 0; hk_k < %d; hk_k++) {\n"
                              "        const long long hk_i = hk_cc_base + (hk_cc_c0 + hk_k) * hk_cc_sj;\n"
                              "        if (hk_cc_kn == hk_k && hk_cc_c0 + hk_k < hk_cc_f%zu && hk_i < (long long)hk_cc_n) {\n"
                              "            hk_cc_kn++;\n        }\n    }\n"
                              "    bool hk_cc_same = true;\n",
                           s->cj, CK, CK, s->cj);
    /* the guards: evaluated at every c0 + k, compared with c0's */
    size_t n_g = 0;
    for (size_t i = 0; i < s->n_names; i++)
        n_g += s->guard[i];
    /* the prologue up to its last guard (what follows cannot change a guard) */
    size_t g_end = s->pro_a;
    for (size_t i = 0; i < s->n_names; i++)
        if (s->guard[i] && s->names[i] >= s->pro_a && s->names[i] < s->pro_e) {
            size_t q = s->names[i];
            int depth = 0;
            while (q < s->pro_e && !(depth == 0 && rwl_tok_is(ts, q, ";"))) {
                if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "{"))
                    depth++;
                else if (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]") || rwl_tok_is(ts, q, "}"))
                    depth--;
                q++;
            }
            if (q + 1 > g_end)
                g_end = q + 1;
        }
    if (n_g && !rc) {
        rc = hk_buf_appends(o, "    {\n");
        if (!rc)
            rc = put_coords(o, s, "0", false);
        if (!rc)
            rc = put_range(o, s, s->pro_a, g_end, false);
        for (size_t i = 0; i < s->n_names && !rc; i++)
            if (s->guard[i])
                rc = hk_buf_printf(o, "\n    const auto hk_cc_g%zu = %.*s;", i, TOK(ts, s->names[i]));
        if (!rc)
            rc = hk_buf_appends(o, "\n    for (int hk_k = 1; hk_k < hk_cc_kn; hk_k++) {\n");
        if (!rc)
            rc = put_coords(o, s, "hk_k", false);
        if (!rc)
            rc = put_range(o, s, s->pro_a, g_end, false);
        for (size_t i = 0; i < s->n_names && !rc; i++)
            if (s->guard[i])
                rc = hk_buf_printf(o, "\n    hk_cc_same = hk_cc_same && %.*s == hk_cc_g%zu;", TOK(ts, s->names[i]), i);
        if (!rc)
            rc = hk_buf_appends(o, "\n    }\n    }\n");
    }
    /* a chunk whose guards differ: the original body per element */
    if (!rc)
        rc = hk_buf_appends(o, "    if (!hk_cc_same) {\n    for (int hk_k = 0; hk_k < hk_cc_kn; hk_k++) {\n");
    if (!rc)
        rc = put_coords(o, s, "hk_k", true);
    if (!rc)
        rc = put_range(o, s, s->pro_a, s->st_e, false);
    if (!rc)
        rc = hk_buf_appends(o, "\n    }\n    continue;\n    }\n");
    /* the chunk */
    if (!rc)
        rc = put_coords(o, s, "0", false);
    if (!rc)
        rc = put_range(o, s, s->pro_a, s->pro_e, false);
    if (!rc)
        rc = hk_buf_appends(o, "\n");
    if (!rc)
        rc = hk_buf_append(o, text + ts->t[s->acc_a].start, ts->t[s->acc_dn].start - ts->t[s->acc_a].start);
    if (!rc)
        rc = hk_buf_printf(o, "hk_cc_acc[%d];\n#pragma unroll\n    for (int hk_k = 0; hk_k < %d; hk_k++)\n"
                              "        hk_cc_acc[hk_k] = %.*s;\n",
                           CK, CK, (int)(ts->t[s->acc_init_e - 1].end - ts->t[s->acc_init_a].start),
                           text + ts->t[s->acc_init_a].start);
    /* the nest: its c-dependent declarations move into the update's k loop */
    uint32_t at = ts->t[s->nest_a].start;
    for (size_t i = 0; i < s->n_vdecl && !rc; i++) {
        rc = hk_buf_append(o, text + at, ts->t[s->vdecl[i][0]].start - at);
        at = ts->t[s->vdecl[i][1] - 1].end;
    }
    if (!rc)
        rc = hk_buf_append(o, text + at, ts->t[s->upd_a].start - at);
    if (!rc)
        rc = hk_buf_appends(o, "{\n");
    for (size_t i = 0; i < s->n_ld && !rc; i++) {
        rc = hk_buf_printf(o, "        const auto hk_cc_l%zu = ", i);
        if (!rc)
            rc = put_range(o, s, s->ld[i][0], s->ld[i][1] + 1, false);
        if (!rc)
            rc = hk_buf_appends(o, ";\n");
    }
    if (!rc)
        rc = hk_buf_printf(o, "#pragma unroll\n        for (int hk_k = 0; hk_k < %d; hk_k++)\n"
                              "        if (hk_k < hk_cc_kn) {\n        ",
                           CK);
    if (!rc)
        rc = hk_buf_append(o, text + ts->t[s->co_a[s->cj]].start,
                           ts->t[s->co_name[s->cj]].end - ts->t[s->co_a[s->cj]].start);
    if (!rc)
        rc = hk_buf_appends(o, " = hk_cc_c0 + hk_k;\n");
    for (size_t i = 0; i < s->n_vdecl && !rc; i++) {
        rc = hk_buf_appends(o, "        ");
        if (!rc)
            rc = put_range(o, s, s->vdecl[i][0], s->vdecl[i][1], false);
        if (!rc)
            rc = hk_buf_appends(o, "\n");
    }
    if (!rc)
        rc = hk_buf_appends(o, "        hk_cc_acc[hk_k] += ");
    if (!rc)
        rc = put_range(o, s, s->upd_a + 2, s->upd_e, true);
    if (!rc)
        rc = hk_buf_appends(o, "\n        }\n        }");
    if (!rc)
        rc = hk_buf_append(o, text + ts->t[s->upd_e - 1].end, ts->t[s->nest_e - 1].end - ts->t[s->upd_e - 1].end);
    if (!rc)
        rc = hk_buf_printf(o, "\n#pragma unroll\n    for (int hk_k = 0; hk_k < %d; hk_k++)\n"
                              "        if (hk_k < hk_cc_kn)\n            %.*s[hk_cc_base + (hk_cc_c0 + hk_k) * hk_cc_sj] = hk_cc_acc[hk_k];\n"
                              "    }\n    } else {\n    ",
                           CK, TOK(ts, s->st_buf));
    if (!rc)
        rc = hk_buf_append(o, text + ts->t[s->lo.st].start, ts->t[s->lo.se - 1].end - ts->t[s->lo.st].start);
    if (!rc)
        rc = hk_buf_appends(o, "\n    }\n}");
    return rc;
}

static int channel_chunks(const rw_context *ctx, int CK, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    if (CK < 2 || CK > 64)
        return HK_EINVAL;
    const char *text = ctx->text;
    size_t len = ctx->len;
    const an_function *f;
    int rc = rwl_check_kernel(text, len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    km_kernel *km = NULL;
    rw_edits es = {0};
    struct hk_buf nb;
    hk_buf_init(&nb, RW_TEXT_MAX);
    char bwhy[400] = "";
    cc_scan *s = calloc(1, sizeof *s);
    if (!s) {
        rc = HK_ENOMEM;
        goto out;
    }
    s->text = text;
    s->len = len;
    s->ts = &ts;
    s->f = f;
    s->m = ctx->m;
    if ((rc = rwl_open_body(text, len, f, true, &ts, &km, bwhy, sizeof bwhy)))
        goto out;
    if (bwhy[0]) {
        snprintf(s->why, sizeof s->why, "%s", bwhy);
        goto refused;
    }
    for (size_t k = 1; k + 1 < ts.n; k++)
        if (ts.t[k].kind == T_IDENT && !strncmp(text + ts.t[k].start, "hk_cc_", 6)) {
            refuse(s, k, "loop", "the kernel is chunked already (this rewrite's hk_cc_ names)");
            goto refused;
        }
    if (!rwpt_grid_loop(text, len, f, ctx->m, &ts, km, &s->lo, s->why, sizeof s->why))
        goto refused;
    /* what no chunk may hold, wherever it stands in the element */
    for (size_t q = s->lo.ba; q < s->lo.bb; q++) {
        size_t l = ts.t[q].end - ts.t[q].start;
        const char *c = text + ts.t[q].start;
        if (ts.t[q].kind != T_IDENT)
            continue;
        if (l >= 6 && !memcmp(c, "atomic", 6)) {
            refuse(s, q, "atomic", "`%.*s` in the element: not one plain store of one accumulator", TOK(&ts, q));
            goto refused;
        }
        if ((l >= 6 && (!memcmp(c, "__sync", 6) || !memcmp(c, "__shfl", 6))) || (l >= 8 && !memcmp(c, "__ballot", 8))) {
            refuse(s, q, "barrier", "`%.*s` in the element: the chunks would run other numbers of them", TOK(&ts, q));
            goto refused;
        }
        /* a macro of the file could read the counter, a thread index or memory unseen */
        size_t at = 0, ma, mb;
        if (rwl_is_use(&ts, q) && !rwp_param_named(f, &ts, q) &&
            rwl_next_define(text, len, &at, c, l, &ma, &mb)) {
            refuse(s, q, "macro", "`%.*s` is a macro of the file: the scan cannot see what it reads", TOK(&ts, q));
            goto refused;
        }
    }
    /* the coordinates: the body's first statements */
    {
        size_t p = s->lo.ba;
        bool last = false;
        while (p < s->lo.bb && !last) {
            size_t e = stmt_end(&ts, p, s->lo.bb);
            bool reads = false;
            for (size_t q = p; q < e; q++)
                reads |= rwl_same_tok(&ts, q, s->lo.v);
            if (!reads || e <= p)
                break;
            if (s->n_co >= CC_COORDS) {
                refuse(s, p, "coordinate", "more than %d coordinates", CC_COORDS);
                goto refused;
            }
            if (!coordinate(s, p, e, s->n_co, &last))
                goto refused;
            s->n_co++;
            p = e;
        }
        if (!last || s->n_co < 3) {
            refuse(s, s->lo.ba, "coordinate", "the body does not start with the counter's coordinates `i %% A`, "
                                              "`i / A %% B`, ..., the last `i / A / B ...` (at least three)");
            goto refused;
        }
        for (size_t t = 0; t < s->n_co; t++)
            for (size_t q = s->lo.ba; q < s->lo.bb; q++)
                if (rwl_same_tok(&ts, q, s->co_name[t]) && q != s->co_name[t] && rwl_is_use(&ts, q) && rwl_scalar_written(&ts, q)) {
                    refuse(s, q, "coordinate", "the body writes the coordinate `%.*s`", TOK(&ts, q));
                    goto refused;
                }
    }
    /* the chunked coordinate: the outermost one with a modulus, not the innermost, that works */
    {
        char first[700] = "";
        bool ok = false;
        for (size_t cj = s->n_co - 2; cj >= 1 && !ok; cj--) {
            ok = read_chunks(s, cj);
            if (!ok && !first[0])
                snprintf(first, sizeof first, "%s", s->why);
        }
        if (!ok) {
            snprintf(s->why, sizeof s->why, "%s", first);
            goto refused;
        }
    }
    /* the nest's extent */
    s->nest_a = s->acc_e;
    s->nest_e = s->st_a;
    if ((rc = emit_chunks(s, CK, &nb)))
        goto out;
    if ((rc = rwl_edits_add(&es, ts.t[s->lo.st].start, ts.t[s->lo.se - 1].end, nb.data)))
        goto out;
    {
        char *desc = hk_asprintf("kernel %s: the grid-stride loop at line %d takes %d elements per trip that differ only "
                                 "in `%.*s` (c0 .. c0+%d), loads %zu value%s of its accumulation once for them and "
                                 "keeps %d accumulators (exact; a chunk whose guards differ runs the original body); "
                                 "the grid divided by %d along x",
                                 f->name, rwl_line_at(text, ts.t[s->lo.st].start), CK, TOK(&ts, s->co_name[s->cj]),
                                 CK - 1, s->n_ld, s->n_ld > 1 ? "s" : "", CK, CK);
        rc = rwl_finish(text, len, ctx->m, f->name, &es, desc, out);
        if (rc == HK_OK && out->applicable) {
            out->grid_divisor = (unsigned)CK;
            out->grid_axis = 0;
        }
    }
    goto out;
refused:
    rc = rwl_not_applicable(out, hk_asprintf("channel_chunks not applicable to kernel %s: %s", f->name,
                                             s->why[0] ? s->why : "no reason"));
out:
    free(s);
    hk_buf_free(&nb);
    rwl_edits_free(&es);
    km_free(km);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */
static const rw_param chunks_params[] = {
    {.name = "chunk", .type = RW_PARAM_ENUM, .values = {8, 4, 16}, .n_values = 3, .def = 8},
};

static int emit_channel_chunks(const rw_context *c, const int *p, rw_result *out)
{
    return channel_chunks(c, p[0], out);
}

const rw_descriptor rw_channel_chunks_desc = {
    .name = "channel_chunks",
    .summary = "a thread takes C_K elements that differ only in an outer coordinate c and loads what does not "
               "depend on c once for them (C_K accumulators, the grid divided by C_K; exact)",
    .params = chunks_params,
    .n_params = HK_ARRAY_LEN(chunks_params),
    .flags = RW_ALGORITHM,
    .emit = emit_channel_chunks,
};
