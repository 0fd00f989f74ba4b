/* channel_chunks: a one-element-per-thread grid-stride loop whose counter decomposes into
 * coordinates (`pw = i % W; ph = i / W % H; c = i / W / H % C; n = i / W / H / C`), whose
 * element is one accumulation `acc += ...` over a loop nest and one store `P[i] = acc`, and
 * one of whose loads does not depend on an outer coordinate c: one thread takes the C_K
 * elements that differ only in c, loads that value once per tap and keeps C_K accumulators.
 * Any other element (several stores, a select chain, calls to functions of the file) is
 * taken in lockstep when its c-free part loads memory (the lockstep section below: mmcv's
 * roi_align); chunk 0 picks C_K by the element's registers (chunk_choice).
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
 * operands in the same order, and is stored once to P[index], a buffer the kernel never
 * reads: every output has the bits of the original as C++ defines them. Outputs are
 * written once each from read-only memory, so the order of chunks over threads is free.
 * nvcc's fma contraction is not part of that argument: it fuses `a * b + c` by heuristics
 * that read the surrounding code, so the same expression may round otherwise in the chunk
 * (session 28: selections by float comparisons, below lockstep_pass; test_rewrites_chunks_ptx
 * compares the float op chains nvcc makes of both). */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_period.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"
#include "spec/expr.h"
#include "spec/spec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

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
    size_t fac[CC_COORDS];                                       /* F_t: the modulus of coordinate t (0: the last) */
    size_t cdv[CC_COORDS][CC_COORDS], cndv[CC_COORDS];           /* each coordinate's divisors */
    size_t co_end;                                               /* the end of the coordinates' statements */
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
    int state_regs;                                              /* per-element registers carried (chunk_choice) */
    char why[700];
} cc_scan;

#define refuse(s, k, ...) rwl_refuse((s)->why, sizeof (s)->why, (s)->ts, (s)->text, (k), __VA_ARGS__)
#define TOK(ts, k) (int)((ts)->t[k].end - (ts)->t[k].start), (ts)->text + (ts)->t[k].start

/* Whether token q lies in another branch of the uniform if/else chain that holds the loop
 * (rwpt_grid_loop_in): code no thread of this launch runs. */
static bool in_sibling(const cc_scan *s, size_t q)
{
    return s->lo.if_e && q >= s->lo.if_a && q < s->lo.if_e && (q < s->lo.br_a || q >= s->lo.br_b);
}

static int name_of(const cc_scan *s, size_t k)
{
    for (size_t i = 0; i < s->n_names; i++)
        if (rwl_same_tok(s->ts, s->names[i], k))
            return (int)i;
    return -1;
}

/* Token q (a pointer) compared with a null constant: `P != NULL`, `P == nullptr`, `0 != P`,
 * standing alone between `(`/`&&`/`||`/`!` and `)`/`&&`/`||`. It reads the pointer's value
 * only, no memory, the same at every element: the guard of an optional output (mmcv's
 * roi_pool, `if (argmax != NULL) argmax[index] = max_idx;`). */
static bool null_test_at(const rw_toks *ts, size_t q)
{
#define NULL_WORD(k) (rwl_tok_is(ts, (k), "NULL") || rwl_tok_is(ts, (k), "nullptr") || rwl_tok_is(ts, (k), "0"))
#define CMP(k) (rwl_tok_is(ts, (k), "!=") || rwl_tok_is(ts, (k), "=="))
#define OPEN(k) (rwl_tok_is(ts, (k), "(") || rwl_tok_is(ts, (k), "&&") || rwl_tok_is(ts, (k), "||") || rwl_tok_is(ts, (k), "!"))
#define CLOSE(k) (rwl_tok_is(ts, (k), ")") || rwl_tok_is(ts, (k), "&&") || rwl_tok_is(ts, (k), "||"))
    bool after = q >= 1 && q + 3 < ts->n && OPEN(q - 1) && CMP(q + 1) && NULL_WORD(q + 2) && CLOSE(q + 3);
    bool before = q >= 3 && q + 1 < ts->n && OPEN(q - 3) && NULL_WORD(q - 2) && CMP(q - 1) && CLOSE(q + 1);
#undef NULL_WORD
#undef CMP
#undef OPEN
#undef CLOSE
    return after || before;
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
                return refuse(s, q, "memory", EN(RW_CC_PTR_UNFOLLOWED), TOK(ts, q));
            if (rwl_tok_is_assign_op(ts, q) || rwl_tok_is(ts, q, "++") || rwl_tok_is(ts, q, "--"))
                return refuse(s, q, "write", EN(RW_CC_IN_ELEM_EXPR), TOK(ts, q));
            if (rwl_tok_is(ts, q, "[") && !loads)
                return refuse(s, q, "memory", EN(RW_CC_LOAD_OUTSIDE));
            continue;
        }
        size_t l = ts->t[q].end - ts->t[q].start;
        const char *c = ts->text + ts->t[q].start;
        if (rwl_tok_is(ts, q, "threadIdx") || rwl_tok_is(ts, q, "blockIdx") || rwl_tok_is(ts, q, "blockDim") ||
            rwl_tok_is(ts, q, "gridDim") || rwl_tok_is(ts, q, "warpSize"))
            return refuse(s, q, "thread index", EN(RW_CC_IN_ELEM_THREAD),
                          TOK(ts, q));
        if (l >= 6 && !memcmp(c, "atomic", 6))
            return refuse(s, q, "atomic", EN(RW_CC_IN_ELEM_NOT_STORE),
                          TOK(ts, q));
        if ((l >= 6 && (!memcmp(c, "__sync", 6) || !memcmp(c, "__shfl", 6))) || (l >= 8 && !memcmp(c, "__ballot", 8)))
            return refuse(s, q, "barrier", EN(RW_CC_IN_ELEM), TOK(ts, q));
        if (rwl_tok_is(ts, q, "return") || rwl_tok_is(ts, q, "goto") || rwl_tok_is(ts, q, "break") ||
            rwl_tok_is(ts, q, "asm"))
            return refuse(s, q, "early exit", EN(RW_CC_IN_ELEM), TOK(ts, q));
        if (q + 1 < b && rwl_tok_is(ts, q + 1, "(") && !is_kw(ts, q) && !rwl_is_type_word(ts, q) &&
            !rwp_is_type_word(ts, q) && !rwl_pure_call_name(ts, q) && !pure_callee(s, q))
            return refuse(s, q, "call", EN(RW_CC_NOT_PURE), TOK(ts, q));
        if (rwl_same_tok(ts, q, s->lo.v))
            return refuse(s, q, "counter", EN(RW_CC_COUNTER_READ), TOK(ts, q));
        const an_param *pa = rwp_param_named(s->f, ts, q);
        if (pa && pa->pointer_depth >= 1) {
            if (!loads || !rwl_tok_is(ts, q + 1, "[") || pa->pointer_depth != 1)
                return refuse(s, q, "memory", EN(RW_CC_USED_NOT_LOAD),
                              TOK(ts, q), TOK(ts, q));
            if (rw_param_written(s->text, s->len, s->f, pa->name))
                return refuse(s, q, "memory", EN(RW_CC_ELEM_READS_WRITTEN), TOK(ts, q));
            bool have = false;
            for (size_t i = 0; i < s->n_rd; i++)
                have |= s->rd[i] == pa;
            if (!have) {
                if (s->n_rd >= CC_BUFS)
                    return refuse(s, q, "memory", EN(RW_CC_TOO_MANY_BUFFERS), CC_BUFS);
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
        return refuse(s, a, "statement", EN(RW_CC_NOT_DECL), TOK(ts, a));
    for (size_t r = q + 1; r < e; r++)
        if (rwl_tok_is(ts, r, ",") && rwl_declared_here(ts, r + 1))
            return refuse(s, r, "statement", EN(RW_CC_MULTI_DECLARATOR));
    if (name_of(s, q - 1) >= 0 || rwp_param_named(s->f, ts, q - 1))
        return refuse(s, q - 1, "statement", EN(RW_CC_DECLARED_TWICE), TOK(ts, q - 1));
    for (size_t t = 0; t < s->n_co; t++)
        if (rwl_same_tok(ts, s->co_name[t], q - 1))
            return refuse(s, q - 1, "statement", "`%.*s` hides a coordinate", TOK(ts, q - 1));
    if (s->n_names >= CC_NAMES)
        return refuse(s, q - 1, "statement", EN(RW_CC_TOO_MANY_LOCALS), CC_NAMES);
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
            return refuse(s, p, "statement", EN(RW_CC_UNDELIMITED));
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
                    return refuse(s, q, "loop nest", EN(RW_CC_HEADER_WRITES));
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
                return refuse(s, p, "loop nest", EN(RW_CC_BOUNDS_DEPEND), TOK(ts, s->co_name[s->cj]));
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
                return refuse(s, p, "statement", EN(RW_CC_IF_IN_NEST));
            if (!expr_scan(s, p + 2, hc, false, false, &dep))
                return false;
            if (dep)
                return refuse(s, p, "loop nest", EN(RW_CC_CONTINUE_DEPENDS),
                              TOK(ts, s->co_name[s->cj]));
        } else if (rwl_same_tok(ts, p, s->acc_name) && rwl_tok_is(ts, p + 1, "+=")) {
            if (s->upd_e)
                return refuse(s, p, "accumulator", EN(RW_CC_SECOND_UPDATE), TOK(ts, p));
            for (size_t q = p + 2; q + 1 < e; q++)
                if (rwl_same_tok(ts, q, s->acc_name))
                    return refuse(s, q, "accumulator", EN(RW_CC_UPDATE_READS), TOK(ts, q));
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
                    return refuse(s, p, "statement", EN(RW_CC_TOO_MANY_DECLS));
                s->vdecl[s->n_vdecl][0] = p;
                s->vdecl[s->n_vdecl][1] = e;
                s->vdecl[s->n_vdecl][2] = a;
                s->n_vdecl++;
            }
        } else
            return refuse(s, p, "statement", EN(RW_CC_NEST_ONLY), TOK(ts, p));
        p = e;
    }
    return true;
}

/* Coordinate t's statement [a, e): `T name = ( i / F0 ... ) % Ft ;` (no `%` for the last). */
/* One coordinate's declaration `T c = i / A / B % F;` at statement [a, e), read into slot u
 * (its divisors in s->cdv[u], its modulus in s->fac[u], 0 for none: the last coordinate). The
 * coordinates may be declared in any order (mmcv's bbox_overlaps: `b1 = i / n2; b2 = i % n2;`):
 * order_coords puts them in place. */
static bool coordinate(cc_scan *s, size_t a, size_t e, size_t u)
{
    const rw_toks *ts = s->ts;
    size_t dn, eq;
    if (!rwl_starts_declaration(ts, a))
        return refuse(s, a, "coordinate", EN(RW_CC_COUNTER_OUTSIDE_COORD), TOK(ts, a), TOK(ts, s->lo.v), TOK(ts, s->lo.v));
    if (!declaration(s, a, e - 1, &dn, &eq))
        return false;
    s->n_names--; /* coordinates are not body locals */
    size_t q = eq + 1, opens = 0;
    while (q < e && rwl_tok_is(ts, q, "("))
        q++, opens++;
    if (!rwl_same_tok(ts, q, s->lo.v))
        return refuse(s, q, "coordinate", EN(RW_CC_NOT_COORD), TOK(ts, dn),
                      TOK(ts, s->lo.v));
    q++;
    size_t divs = 0;
    bool mod = false;
    s->fac[u] = 0;
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
            return refuse(s, q, "coordinate", EN(RW_CC_COORD_OPS),
                          TOK(ts, q), TOK(ts, dn));
        size_t fq = q + 1;
        const an_param *pa = rwp_param_named(s->f, ts, fq);
        bool lit = ts->t[fq].kind == T_NUMBER;
        bool kept = pa && pa->pointer_depth == 0 && !strstr(pa->type, "float") && !strstr(pa->type, "double");
        for (size_t k = 1; kept && k + 1 < ts->n; k++)
            if (rwl_same_tok(ts, k, fq) && (rwl_declared_here(ts, k) || (rwl_is_use(ts, k) && rwl_scalar_written(ts, k))))
                kept = false;
        if (!lit && !kept)
            return refuse(s, fq, "coordinate", EN(RW_CC_FACTOR), TOK(ts, fq));
        if (d) {
            if (divs >= CC_COORDS - 1)
                return refuse(s, fq, "coordinate", EN(RW_CC_TOO_MANY_DIVS), CC_COORDS - 1);
            s->cdv[u][divs++] = fq;
        } else {
            mod = true;
            s->fac[u] = fq;
        }
        q = fq + 1;
    }
    if (opens)
        return refuse(s, a, "coordinate", EN(RW_CC_UNBALANCED), TOK(ts, dn));
    s->cndv[u] = divs;
    s->co_a[u] = a;
    s->co_e[u] = e;
    s->co_name[u] = dn;
    return true;
}

/* Whether the coordinates read so far are complete: one without a modulus (the last) after as
 * many divisions as there are coordinates before it. */
static bool coords_complete(const cc_scan *s)
{
    for (size_t u = 0; u < s->n_co; u++)
        if (!s->fac[u] && s->cndv[u] + 1 == s->n_co)
            return true;
    return false;
}

/* Puts the coordinates read in declaration order into the counter's order: coordinate t
 * divides by the moduli of coordinates 0 .. t-1, in that order, and takes its own modulus
 * (none for the last). */
static bool order_coords(cc_scan *s)
{
    const rw_toks *ts = s->ts;
    size_t n = s->n_co, a[CC_COORDS], e[CC_COORDS], nm[CC_COORDS], fc[CC_COORDS], dv[CC_COORDS][CC_COORDS], nd[CC_COORDS];
    memcpy(a, s->co_a, sizeof a);
    memcpy(e, s->co_e, sizeof e);
    memcpy(nm, s->co_name, sizeof nm);
    memcpy(fc, s->fac, sizeof fc);
    memcpy(dv, s->cdv, sizeof dv);
    memcpy(nd, s->cndv, sizeof nd);
    s->co_end = 0;
    for (size_t t = 0; t < n; t++) {
        size_t u = n;
        for (size_t w = 0; w < n && u == n; w++)
            if (nd[w] == t)
                u = w;
        if (u == n)
            return refuse(s, a[0], "coordinate", EN(RW_CC_NO_COORD_DIVIDES), t);
        for (size_t w = u + 1; w < n; w++)
            if (nd[w] == t)
                return refuse(s, a[w], "coordinate", EN(RW_CC_TWO_COORDS_DIVIDE), t);
        if ((t + 1 < n) != (fc[u] != 0))
            return refuse(s, a[u], "coordinate", t + 1 < n ? EN(RW_CC_NOT_LAST_NO_MOD)
                                                           : EN(RW_CC_LAST_MOD),
                          TOK(ts, nm[u]));
        for (size_t i = 0; i < t; i++)
            if (!rwl_same_tok(ts, dv[u][i], s->fac[i]))
                return refuse(s, dv[u][i], "coordinate", EN(RW_CC_COORD_DIVISOR), t, TOK(ts, dv[u][i]));
        s->co_a[t] = a[u];
        s->co_e[t] = e[u];
        s->co_name[t] = nm[u];
        s->fac[t] = fc[u];
        s->cndv[t] = nd[u];
        memcpy(s->cdv[t], dv[u], sizeof dv[u]);
        if (e[u] > s->co_end)
            s->co_end = e[u];
    }
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
            return refuse(s, p, "statement", EN(RW_CC_UNDELIMITED));
        stmts[n++] = p;
        p = e;
    }
    stmts[n] = bb;
    if (n < s->n_co + 3)
        return refuse(s, ba, "loop body", EN(RW_CC_NOT_SHAPE));
    /* the store: P[i] = acc; */
    size_t sa = stmts[n - 1];
    const an_param *pb = rwp_param_named(s->f, ts, sa);
    if (!pb || pb->pointer_depth != 1 || !rwl_tok_is(ts, sa + 1, "[") || !rwl_same_tok(ts, sa + 2, s->lo.v) ||
        !rwl_tok_is(ts, sa + 3, "]") || !rwl_tok_is(ts, sa + 4, "=") || ts->t[sa + 5].kind != T_IDENT ||
        !rwl_tok_is(ts, sa + 6, ";") || sa + 7 != bb)
        return refuse(s, sa, "store", EN(RW_CC_NO_FINAL_STORE), TOK(ts, s->lo.v));
    s->st_a = sa;
    s->st_e = bb;
    s->st_buf = sa;
    s->acc_name = sa + 5;
    for (size_t q = ba; q < bb; q++)
        if (q != sa && rwl_same_tok(ts, q, sa))
            return refuse(s, q, "store", EN(RW_CC_NAMES_AGAIN), TOK(ts, q));
    for (size_t q = 1; q + 1 < ts->n; q++)
        if ((q < ba || q >= bb) && !in_sibling(s, q) && rwl_same_tok(ts, q, sa) && rwl_is_use(ts, q))
            return refuse(s, q, "store", EN(RW_CC_USED_OUTSIDE_LOOP), TOK(ts, q));
    /* the nest and the accumulator */
    size_t na = stmts[n - 2], aa = stmts[n - 3];
    if (!rwl_tok_is(ts, na, "for"))
        return refuse(s, na, "loop nest", EN(RW_CC_BEFORE_STORE_NOT_LOOP));
    size_t an, aeq;
    if (!declaration(s, aa, stmts[n - 2] - 1, &an, &aeq))
        return false;
    if (!rwl_same_tok(ts, an, s->acc_name))
        return refuse(s, aa, "accumulator", EN(RW_CC_STORED_NOT_DECLARED),
                      TOK(ts, s->acc_name));
    bool dep;
    if (!expr_scan(s, aeq + 1, stmts[n - 2] - 1, false, true, &dep))
        return false;
    if (dep)
        return refuse(s, aa, "accumulator", EN(RW_CC_ACC_START_DEPENDS), TOK(ts, s->co_name[cj]));
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
            return refuse(s, stmts[i], "statement", EN(RW_CC_BEFORE_ACC_NOT_DECL),
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
        return refuse(s, na, "accumulator", EN(RW_CC_NEVER_UPDATES), TOK(ts, s->acc_name));
    /* the c-dependent declarations all lie in the update's block, before it */
    for (size_t i = 0; i < s->n_vdecl; i++)
        if (s->vdecl[i][2] != s->blk_a || s->vdecl[i][0] > s->upd_a)
            return refuse(s, s->vdecl[i][0], "loop nest", EN(RW_CC_DECL_DEPENDS),
                          TOK(ts, s->co_name[cj]));
    /* the accumulator is named by its declaration, its update and the store only */
    for (size_t q = ba; q < bb; q++)
        if (rwl_same_tok(ts, q, s->acc_name) && q != an && q != s->upd_a && q != sa + 5)
            return refuse(s, q, "accumulator", EN(RW_CC_ELSEWHERE), TOK(ts, q));
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
                return refuse(s, q, "load", EN(RW_CC_TOO_MANY_SHARED_LOADS), CC_LOADS);
            s->ld[s->n_ld][0] = q;
            s->ld[s->n_ld][1] = cl;
            s->n_ld++;
        }
        q = cl;
    }
    if (!s->n_ld)
        return refuse(s, s->upd_a, "load", EN(RW_CC_ALL_LOADS_DEPEND), TOK(ts, s->co_name[cj]));
    /* the store may not alias a load: __restrict__, or no launch in the file passes both */
    for (size_t r = 0; r < s->n_rd; r++) {
        const an_param *rp = s->rd[r];
        if (pb->is_restrict || rp->is_restrict)
            continue;
        if (rp == pb)
            return refuse(s, sa, "store", EN(RW_CC_LOOP_WRITES_READ), pb->name);
        const an_launch *la = rwl_launch_passing_twice(s->m, s->f, (size_t)(pb - s->f->params),
                                                       (size_t)(rp - s->f->params));
        if (la)
            return refuse(s, sa, "store", EN(RW_CC_LAUNCH_ALIAS),
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
        rc = hk_buf_printf(o, "const long long %.*s = hk_cc_base + (hk_cc_c0 + %s) * hk_cc_sj;\n", TOK(ts, s->lo.v), k); /* i18n: not for people */
    return rc;
}

/* The chunk loop's head: the chunk space, the coordinates' digits, c0 and kn (the elements
 * of the chunk that exist), shared by the accumulation form and the lockstep form. */
static int put_head(struct hk_buf *o, const cc_scan *s, int CK)
{
    const rw_toks *ts = s->ts;
    const char *text = s->text;
    size_t K = s->n_co;
    int rc = hk_buf_printf(o, "{   /* hk: channel_chunks: a thread takes %d elements that differ only in `%.*s` " /* i18n: not for people */
                              "and loads what does not depend on it once */\n",
                           CK, TOK(ts, s->co_name[s->cj]));
    if (!rc)
        rc = hk_buf_printf(o, "    auto hk_cc_n = (%.*s);\n    bool hk_cc_ok = hk_cc_n >= 0;\n    long long hk_cc_plane = 1;\n", /* i18n: not for people */
                           (int)(ts->t[s->lo.bnd_b - 1].end - ts->t[s->lo.bnd_a].start), text + ts->t[s->lo.bnd_a].start);
    for (size_t t = 0; t + 1 < K && !rc; t++)
        rc = hk_buf_printf(o, "    const long long hk_cc_f%zu = (long long)(%.*s);\n" /* i18n: not for people */
                              "    hk_cc_ok = hk_cc_ok && hk_cc_f%zu > 0 && hk_cc_plane <= 0x0fffffffffffffffLL / hk_cc_f%zu;\n"
                              "    if (hk_cc_ok)\n        hk_cc_plane *= hk_cc_f%zu;\n",
                           t, TOK(ts, s->fac[t]), t, t, t);
    /* the last coordinate (no modulus) counts to ceil(n / plane): its chunks cover that */
    bool last = s->cj + 1 == K;
    if (!rc && !last)
        rc = hk_buf_printf(o, "    const long long hk_cc_cb = hk_cc_ok ? (hk_cc_f%zu + %d) / %d : 0;\n" /* i18n: not for people */
                              "    const long long hk_cc_total = hk_cc_ok ? (((long long)hk_cc_n + hk_cc_plane - 1) / "
                              "hk_cc_plane) * (hk_cc_plane / hk_cc_f%zu) * hk_cc_cb : 0;\n",
                           s->cj, CK - 1, CK, s->cj);
    else if (!rc)
        rc = hk_buf_printf(o, "    const long long hk_cc_cb = hk_cc_ok ? (((long long)hk_cc_n + hk_cc_plane - 1) / " /* i18n: not for people */
                              "hk_cc_plane + %d) / %d : 0;\n"
                              "    const long long hk_cc_total = hk_cc_ok ? hk_cc_plane * hk_cc_cb : 0;\n",
                           CK - 1, CK);
    if (!rc)
        rc = hk_buf_appends(o, "    if (hk_cc_ok) {\n" /* i18n: not for people */
                               "    for (long long hk_j = blockIdx.x * (long long)blockDim.x + threadIdx.x; hk_j < hk_cc_total;"
                               " hk_j += (long long)blockDim.x * gridDim.x) {\n"
                               "    long long hk_cc_r = hk_j, hk_cc_base = 0, hk_cc_s = 1, hk_cc_sj = 1;\n");
    for (size_t t = 0; t < K && !rc; t++) {
        char fn[32];
        snprintf(fn, sizeof fn, t == s->cj ? "hk_cc_cb" : "hk_cc_f%zu", t);
        if (t + 1 < K)
            rc = hk_buf_printf(o, "    const long long hk_cc_d%zu = hk_cc_r %% %s;\n    hk_cc_r /= %s;\n", t, fn, fn); /* i18n: not for people */
        else
            rc = hk_buf_printf(o, "    const long long hk_cc_d%zu = hk_cc_r;\n", t); /* i18n: not for people */
        if (!rc)
            rc = t == s->cj ? hk_buf_printf(o, "    hk_cc_sj = hk_cc_s;\n")
                            : hk_buf_printf(o, "    hk_cc_base += hk_cc_d%zu * hk_cc_s;\n", t);
        if (!rc && t + 1 < K)
            rc = hk_buf_printf(o, "    hk_cc_s *= hk_cc_f%zu;\n", t);
    }
    char inrange[48] = "";
    if (!last)
        snprintf(inrange, sizeof inrange, "hk_cc_c0 + hk_k < hk_cc_f%zu && ", s->cj);
    if (!rc)
        rc = hk_buf_printf(o, "    const long long hk_cc_c0 = hk_cc_d%zu * %d;\n" /* i18n: not for people */
                              "    int hk_cc_kn = 0;\n#pragma unroll\n    for (int hk_k = 0; hk_k < %d; hk_k++) {\n"
                              "        const long long hk_i = hk_cc_base + (hk_cc_c0 + hk_k) * hk_cc_sj;\n"
                              "        if (hk_cc_kn == hk_k && %shk_i < (long long)hk_cc_n) {\n"
                              "            hk_cc_kn++;\n        }\n    }\n",
                           s->cj, CK, CK, inrange);
    return rc;
}

static int emit_chunks(cc_scan *s, int CK, struct hk_buf *o)
{
    const rw_toks *ts = s->ts;
    const char *text = s->text;
    int rc = put_head(o, s, CK);
    if (!rc)
        rc = hk_buf_appends(o, "    bool hk_cc_same = true;\n");
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
        rc = hk_buf_appends(o, "    if (!hk_cc_same) {\n    for (int hk_k = 0; hk_k < hk_cc_kn; hk_k++) {\n"); /* i18n: not for people */
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
        rc = hk_buf_printf(o, "hk_cc_acc[%d];\n#pragma unroll\n    for (int hk_k = 0; hk_k < %d; hk_k++)\n" /* i18n: not for people */
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
        rc = hk_buf_printf(o, "#pragma unroll\n        for (int hk_k = 0; hk_k < %d; hk_k++)\n" /* i18n: not for people */
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
        rc = hk_buf_printf(o, "\n#pragma unroll\n    for (int hk_k = 0; hk_k < %d; hk_k++)\n" /* i18n: not for people */
                              "        if (hk_k < hk_cc_kn)\n            %.*s[hk_cc_base + (hk_cc_c0 + hk_k) * hk_cc_sj] = hk_cc_acc[hk_k];\n"
                              "    }\n    } else {\n    ",
                           CK, TOK(ts, s->st_buf));
    if (!rc)
        rc = hk_buf_append(o, text + ts->t[s->lo.st].start, ts->t[s->lo.se - 1].end - ts->t[s->lo.st].start);
    if (!rc)
        rc = hk_buf_appends(o, "\n    }\n}");
    return rc;
}

/* ---- lockstep: the general form (an element that is not one accumulation) ----
 *
 * A body that read_chunks refuses (several stores, a select chain, a call to a __device__
 * function of the file) still has the chunk's shape when the work that does not depend on c
 * can run once for the C_K elements and the work that does can run per element beside it.
 * The body is read into statements; calls `T v = f(args);` / `v = f(args);` to a function of
 * the file are inlined first (parameters become locals initialised from the arguments, its
 * locals renamed, `if (cond) return e;` / `return e;` at its top level become assignments of
 * `(R)(e)` to v, R its return type): a general step, what the compiler does for the function
 * anyway. Then each local is classed by a fixpoint: it depends on c when a statement that
 * assigns it reads c, the counter or a local that depends on c, or stands under a condition
 * that does. A statement that reads or writes such a local, or stores, runs once per element
 * k (`for (hk_k < C_K) if (hk_k < kn)`), those locals become arrays of C_K (name[hk_k]); an
 * `if` or `for` whose header depends on c runs whole per element. Everything else runs once.
 *
 * Proof of exactness. A statement that runs once reads only values that are the same for
 * every element of the chunk (the other coordinates, parameters, locals computed the same way
 * from them, and loads from buffers the kernel never writes: the only writes are the stores
 * `P[i] = v` to buffers the body names nowhere else, at the element's own index, not aliasing
 * a read buffer); it writes only such locals. So at every point each element's once-run values
 * are what its own run would hold, and its per-element statements run in its own order on its
 * own array slots: each element performs the same operations on the same operands in the same
 * order as in the original (as C++ defines them; where nvcc's contraction may differ, see the
 * selections by float comparisons before ls_shares). The stores of one element go to its own
 * index, written once, read by no thread, so their order across elements is free. An inlined call computes what the
 * call does: arguments copied into parameters of their declared types (by value; reference
 * parameters are refused), the result converted to the return type.
 *
 * Session 27 (deform_im2col, bbox_overlaps). The last coordinate (no modulus) may be chunked:
 * its chunks count ceil(ceil(n / plane) / C_K), and an element exists iff its flat index is
 * below n, which then decomposes back into the same coordinates (base < plane). A group index
 * (ls_guards) runs once at c0; the chunk takes the lockstep path only when its value at every
 * c0 + k equals c0's, so every element still reads its own value. A store pointer `T *p = P +
 * e;` runs per element (an array of C_K pointers), its stores `*p = v` and walks `p += e` too,
 * in the element's own order: each element stores the same values at the same addresses as
 * in the original, P is named nowhere else and p nowhere but there, so nothing reads what a
 * chunk wrote; that the order of stores across elements is free assumes, as any change of the
 * launch does, that no two elements store to one address. An out-call `f(args);` is the
 * original call on the original arguments: once when no argument depends on c (every element
 * would make the same call on the same values: f writes only its reference parameters, which
 * are then c-free locals), else per element on the element's slots. A loop in a branch of a
 * uniform if/else chain: every thread of the launch takes that branch, so the chunk loop
 * replaces the original loop for all of them; the other branches are code this launch does
 * not run. */

#define LS_NODES 768
#define LS_KIDS 2048
#define LS_VARS 256
#define LS_STREAMS 8
#define LS_ARENA 65536

enum { LS_DECL, LS_EXPR, LS_STORE, LS_ASSIGN, LS_IF, LS_FOR, LS_BLOCK, LS_JUMP };

typedef struct {
    const rw_toks *ts;
    rw_toks own;
    char pre[24];         /* callee locals' prefix ("" in the kernel) */
    const char *loc[96];  /* a callee's locals and parameters (renamed) */
    size_t n_loc;
    const char *tp[4], *tv[4]; /* a callee's template parameters and what they stand for */
    size_t n_tp;
} ls_stream;

typedef struct {
    int kind, st;           /* st: the stream of the tokens */
    size_t a, b;            /* EXPR/STORE: [a, b) without `;`; DECL: the init (a == b: none);
                             * ASSIGN: the value; IF: the condition; JUMP: the keyword */
    int ist;                /* DECL/ASSIGN: the stream of the value */
    const char *type, *atype, *name; /* DECL: the type, the type of its array, the name; ASSIGN: cast, target */
    size_t fi[6];           /* FOR: init [0,1), cond [2,3), step [4,5) */
    int k1, n1, k2, n2;     /* children (then/body; else) in the kids pool */
    size_t outs[8];         /* EXPR of an out-call (ls_out_call): the locals it writes */
    int n_outs;
    bool loads;             /* EXPR of an out-call: it reads memory through a pointer argument */
    bool dep;
    bool guard;             /* DECL: a group index of c checked equal across the chunk (ls_guards) */
} ls_node;

typedef struct {
    const char *name;
    bool vec, decl;
    int size;         /* registers of one value: 2 for a pointer, a double, a long long */
    const char *expr; /* c and the counter: their value for element hk_k */
    const char *expr0; /* c: its value for element 0 (a guard's once-run declaration) */
    bool sptr;        /* a store pointer `T *p = P + e;` used only as `*p = v;` and `p += e;` */
} ls_var;

typedef struct {
    cc_scan *s;
    ls_stream st[LS_STREAMS];
    size_t n_st;
    ls_node nd[LS_NODES];
    size_t n_nd;
    int kids[LS_KIDS];
    size_t n_kids;
    ls_var var[LS_VARS];
    size_t n_var;
    char arena[LS_ARENA];
    size_t n_arena;
    bool changed, shared;
    const an_param *stored[8];
    size_t n_stored;
    /* emission */
    const char *scope[LS_VARS];
    bool scope_arr[LS_VARS];
    size_t n_scope;
    int perk, loops_in_perk, CK;
    bool at0;                   /* emitting a guard at element 0 */
    bool keep_calls;            /* calls to reader functions kept as calls, not inlined (ls_reader) */
    size_t sptr_tok[8];         /* the `P` of each store pointer's declaration */
    size_t n_sptr;
} ls_state;

static const char *ls_str(ls_state *L, const char *p, size_t n)
{
    if (L->n_arena + n + 1 > LS_ARENA)
        return NULL;
    char *d = L->arena + L->n_arena;
    memcpy(d, p, n);
    d[n] = '\0';
    L->n_arena += n + 1;
    return d;
}

static int ls_size_of(const char *type)
{
    return type && (strchr(type, '*') || strstr(type, "double") || strstr(type, "long long") ||
                    strstr(type, "int64") || strstr(type, "size_t")) ? 2 : 1;
}

static ls_var *ls_add(ls_state *L, const char *name);

static ls_var *ls_find(ls_state *L, const char *name)
{
    for (size_t i = 0; i < L->n_var; i++)
        if (!strcmp(L->var[i].name, name))
            return &L->var[i];
    return NULL;
}

static ls_var *ls_add(ls_state *L, const char *name)
{
    ls_var *v = ls_find(L, name);
    if (v || L->n_var >= LS_VARS)
        return v;
    v = &L->var[L->n_var++];
    v->name = name;
    v->vec = v->decl = false;
    v->expr = v->expr0 = NULL;
    v->sptr = false;
    v->size = 1;
    return v;
}

/* The name token k of stream st stands for: a callee's local renamed, a template parameter
 * replaced by its type; else its own text. */
static const char *ls_tok(ls_state *L, int st, size_t k, char *buf, size_t n)
{
    const ls_stream *S = &L->st[st];
    const rw_toks *ts = S->ts;
    int len = (int)(ts->t[k].end - ts->t[k].start);
    const char *c = ts->text + ts->t[k].start;
    bool member = k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->") || rwl_tok_is(ts, k - 1, "::"));
    if (ts->t[k].kind == T_IDENT && st > 0 && !member) {
        for (size_t i = 0; i < S->n_tp; i++)
            if ((int)strlen(S->tp[i]) == len && !memcmp(S->tp[i], c, (size_t)len))
                return S->tv[i];
        for (size_t i = 0; i < S->n_loc; i++)
            if ((int)strlen(S->loc[i]) == len && !memcmp(S->loc[i], c, (size_t)len)) {
                snprintf(buf, n, "%s%.*s", S->pre, len, c);
                return buf;
            }
    }
    snprintf(buf, n, "%.*s", len, c);
    return buf;
}

/* ls_tok's text kept in the arena. */
static const char *ls_name(ls_state *L, int st, size_t k)
{
    char b[160];
    const char *w = ls_tok(L, st, k, b, sizeof b);
    return ls_str(L, w, strlen(w));
}

/* The variable token k of stream st names (NULL: not a local of the element). */
static ls_var *ls_var_at(ls_state *L, int st, size_t k)
{
    const rw_toks *ts = L->st[st].ts;
    if (ts->t[k].kind != T_IDENT || (k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->") ||
                                               rwl_tok_is(ts, k - 1, "::"))))
        return NULL;
    char b[160];
    return ls_find(L, ls_tok(L, st, k, b, sizeof b));
}

/* Tokens [a, b) of st as text (names replaced), one space apart, leaving out every `const`
 * from token drop_const on (b: none). */
static const char *ls_join(ls_state *L, int st, size_t a, size_t b, size_t drop_const)
{
    const rw_toks *ts = L->st[st].ts;
    char out[2048];
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = a; k < b; k++) {
        if (k >= drop_const && rwl_tok_is(ts, k, "const"))
            continue;
        char t[160];
        const char *w = ls_tok(L, st, k, t, sizeof t);
        int r = snprintf(out + n, sizeof out - n, "%s%s", n ? " " : "", w);
        if (r < 0 || (size_t)r >= sizeof out - n)
            return NULL;
        n += (size_t)r;
    }
    return ls_str(L, out, n);
}

/* Tokens [a, b) of st as text (names replaced), one space apart. */
static const char *ls_text(ls_state *L, int st, size_t a, size_t b)
{
    return ls_join(L, st, a, b, b);
}

/* The type text [a, b) with the const of the declared object dropped (for its array). */
static const char *ls_atype(ls_state *L, int st, size_t a, size_t b)
{
    const rw_toks *ts = L->st[st].ts;
    size_t star = a;
    for (size_t k = a; k < b; k++)
        if (rwl_tok_is(ts, k, "*"))
            star = k + 1;
    return ls_join(L, st, a, b, star);
}

static int ls_node_new(ls_state *L, int kind, int st)
{
    if (L->n_nd >= LS_NODES)
        return -1;
    ls_node *d = &L->nd[L->n_nd];
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->st = d->ist = st;
    d->k1 = d->k2 = -1;
    return (int)L->n_nd++;
}

#define LSREF(L, st, k, ...) refuse((L)->s, (st) == 0 ? (k) : (L)->s->lo.ba, __VA_ARGS__)

/* Where `name<...>(` has its template arguments: the token after `>` when that is `(` (0: not
 * that form). */
static size_t ls_template_args_end(const rw_toks *ts, size_t q, size_t b)
{
    if (ts->t[q].kind != T_IDENT || q + 1 >= b || !rwl_tok_is(ts, q + 1, "<"))
        return 0;
    int depth = 0;
    for (size_t r = q + 1; r < b; r++) {
        if (rwl_tok_is(ts, r, "<"))
            depth++;
        else if (rwl_tok_is(ts, r, ">"))
            depth--;
        else if (rwl_tok_is(ts, r, ">>"))
            depth -= 2;
        else if (rwl_tok_is(ts, r, ";") || rwl_tok_is(ts, r, "{") || rwl_tok_is(ts, r, "&&") || rwl_tok_is(ts, r, "||"))
            return 0;
        if (depth <= 0)
            return depth == 0 && r + 1 < b && rwl_tok_is(ts, r + 1, "(") ? r + 1 : 0;
    }
    return 0;
}

static bool ls_cast_word(const rw_toks *ts, size_t q)
{
    return rwl_tok_is(ts, q, "static_cast") || rwl_tok_is(ts, q, "reinterpret_cast") ||
           rwl_tok_is(ts, q, "const_cast");
}

/* What an expression [a, b) of st may hold (writes only where `writes`: to locals, at the top
 * of an expression statement). Records the kernel's pointer parameters it reads. */
static bool ls_type_param(const ls_state *L, const rw_toks *ts, size_t k);
static bool ls_reader(const cc_scan *s, const rw_toks *ts, size_t q);

static bool ls_check(ls_state *L, int st, size_t a, size_t b, bool writes)
{
    cc_scan *s = L->s;
    const rw_toks *ts = L->st[st].ts;
    for (size_t q = a; q < b; q++) {
        if (ts->t[q].kind != T_IDENT) {
            if (rwl_tok_is(ts, q, "->") || ((rwl_tok_is(ts, q, "*") || rwl_tok_is(ts, q, "&")) && rwl_unary_position(ts, q)))
                return LSREF(L, st, q, "memory", EN(RW_CC_PTR_UNFOLLOWED), TOK(ts, q));
            if (rwl_tok_is_assign_op(ts, q) || rwl_tok_is(ts, q, "++") || rwl_tok_is(ts, q, "--")) {
                bool ok = writes && q > a && ((rwl_tok_is_assign_op(ts, q) && ls_var_at(L, st, q - 1) &&
                                              (q - 1 == a || rwl_tok_is(ts, q - 2, "="))) ||
                                             (!rwl_tok_is_assign_op(ts, q) && q == a + 1 && ls_var_at(L, st, a)));
                ok = ok || (writes && !rwl_tok_is_assign_op(ts, q) && q == a && q + 2 == b && ls_var_at(L, st, q + 1));
                if (!ok)
                    return LSREF(L, st, q, "write", EN(RW_CC_WRITES_NOT_LOCAL), TOK(ts, q));
            }
            continue;
        }
        size_t l = ts->t[q].end - ts->t[q].start;
        const char *c = ts->text + ts->t[q].start;
        if (rwl_tok_is(ts, q, "threadIdx") || rwl_tok_is(ts, q, "blockIdx") || rwl_tok_is(ts, q, "blockDim") ||
            rwl_tok_is(ts, q, "gridDim") || rwl_tok_is(ts, q, "warpSize"))
            return LSREF(L, st, q, "thread index", EN(RW_CC_IN_ELEM_THREAD),
                         TOK(ts, q));
        if ((l >= 6 && (!memcmp(c, "atomic", 6) || !memcmp(c, "__sync", 6) || !memcmp(c, "__shfl", 6))) ||
            (l >= 8 && !memcmp(c, "__ballot", 8)))
            return LSREF(L, st, q, "atomic", EN(RW_CC_IN_ELEM), TOK(ts, q));
        if (rwl_tok_is(ts, q, "return") || rwl_tok_is(ts, q, "goto") || rwl_tok_is(ts, q, "asm") ||
            rwl_tok_is(ts, q, "__shared__") || rwl_tok_is(ts, q, "static") || rwl_tok_is(ts, q, "volatile"))
            return LSREF(L, st, q, "early exit", EN(RW_CC_IN_ELEM), TOK(ts, q));
        bool member = q > 0 && (rwl_tok_is(ts, q - 1, ".") || rwl_tok_is(ts, q - 1, "->") || rwl_tok_is(ts, q - 1, "::"));
        if (member)
            continue;
        ls_var *sv = ls_var_at(L, st, q);
        if (sv && sv->sptr)
            return LSREF(L, st, q, "store", EN(RW_CC_STORE_PTR_USE), TOK(ts, q), TOK(ts, q), TOK(ts, q));
        bool tparam = st == 0 && ls_type_param(L, ts, q);
        for (size_t i = 0; i < L->st[st].n_tp; i++)
            tparam |= strlen(L->st[st].tp[i]) == l && !memcmp(L->st[st].tp[i], c, l);
        /* a call with template arguments, `f<T>(...)`, is a call of f */
        size_t ta = ls_template_args_end(ts, q, b);
        if (ta && !tparam && !rwl_is_type_word(ts, q) && !rwp_is_type_word(ts, q) && !ls_cast_word(ts, q))
            return LSREF(L, st, q, "call", EN(RW_CC_TEMPLATE_CALL), TOK(ts, q), TOK(ts, q), TOK(ts, q));
        if (q + 1 < b && rwl_tok_is(ts, q + 1, "(") && !is_kw(ts, q) && !rwl_is_type_word(ts, q) &&
            !rwp_is_type_word(ts, q) && !rwl_pure_call_name(ts, q) && !tparam && !ls_var_at(L, st, q)) {
            bool pure = false;
            if (st == 0)
                pure = pure_callee(s, q) || (L->keep_calls && ls_reader(s, ts, q));
            if (!pure)
                return LSREF(L, st, q, "call", EN(RW_CC_NOT_PURE_INLINE), TOK(ts, q));
        }
        if (st != 0)
            continue;
        const an_param *pa = rwp_param_named(s->f, ts, q);
        if (pa && pa->pointer_depth >= 1) {
            for (size_t i = 0; i < L->n_stored; i++)
                if (L->stored[i] == pa && !null_test_at(ts, q))
                    return LSREF(L, st, q, "store", EN(RW_CC_ELEM_NAMES_STORED), TOK(ts, q), TOK(ts, q), TOK(ts, s->lo.v));
            /* inside the element nothing writes through a pointer (ls_check's rules); outside it, the
             * kernel's own statements before the loop may not write or pass the buffer on */
            for (size_t r = 1; r + 1 < s->ts->n; r++)
                if ((r < s->lo.ba || r >= s->lo.bb) && !in_sibling(s, r) && rwl_same_tok(s->ts, r, q) && rwl_is_use(s->ts, r) &&
                    rwl_occurrence_writes(s->ts, r))
                    return LSREF(L, st, q, "memory", EN(RW_CC_ELEM_READS_WRITTEN_AT), TOK(ts, q), rwl_line_at(s->text, s->ts->t[r].start));
            bool have = false;
            for (size_t i = 0; i < s->n_rd; i++)
                have |= s->rd[i] == pa;
            if (!have) {
                if (s->n_rd >= CC_BUFS)
                    return LSREF(L, st, q, "memory", EN(RW_CC_TOO_MANY_BUFFERS), CC_BUFS);
                s->rd[s->n_rd++] = pa;
            }
        } else if (pa && ts->t[q + 1].kind != T_IDENT && rwl_tok_is_assign_op(ts, q + 1))
            return LSREF(L, st, q, "write", EN(RW_CC_ELEM_WRITES_PARAM), TOK(ts, q));
    }
    return true;
}

static bool ls_list(ls_state *L, int st, size_t a, size_t b, int *first, int *count);

/* Declares name (a local of the element; a second declaration in another scope is the same
 * variable for the classing: conservative). */
static bool ls_declare(ls_state *L, int st, size_t k, const char *name)
{
    ls_var *v = ls_add(L, name);
    if (!v)
        return LSREF(L, st, k, "statement", EN(RW_CC_TOO_MANY_LOCALS), LS_VARS);
    v->decl = true;
    for (size_t t = 0; t < L->s->n_co; t++)
        if (t != L->s->cj && rwl_same_tok(L->s->ts, L->s->co_name[t], k) && st == 0)
            return LSREF(L, st, k, "statement", "`%.*s` hides a coordinate", TOK(L->st[st].ts, k));
    return true;
}

/* A type's words without const/volatile/__restrict__ (one space apart) and its stars. */
static void ls_type_core(const char *txt, char *out, size_t n, int *stars)
{
    rw_toks tt = {0};
    size_t k = 0;
    *stars = 0;
    out[0] = '\0';
    if (rwl_lex(txt, 0, (uint32_t)strlen(txt), &tt) == HK_OK)
        for (size_t q = 0; q < tt.n; q++) {
            if (rwl_tok_is(&tt, q, "const") || rwl_tok_is(&tt, q, "volatile") || rwl_tok_is(&tt, q, "__restrict__") ||
                rwl_tok_is(&tt, q, "__restrict"))
                continue;
            if (rwl_tok_is(&tt, q, "*")) {
                (*stars)++;
                continue;
            }
            int r = snprintf(out + k, n - k, "%s%.*s", k ? " " : "", (int)(tt.t[q].end - tt.t[q].start),
                             txt + tt.t[q].start);
            if (r > 0 && (size_t)r < n - k)
                k += (size_t)r;
        }
    rwl_toks_free(&tt);
}

/* The callee's statements i.. of stm (stream gi) into items: `return e;` ends them as
 * `target = (R)(e)`; `if (c) return e;` becomes an if whose else holds what follows. */
static int ls_returns(ls_state *L, int gi, const size_t *stm, size_t n_stm, size_t i, const char *target,
                      const char *rtype, int *items, int *n_items, const rw_toks *ts, size_t a)
{
    const rw_toks *gt = L->st[gi].ts;
    for (; i < n_stm; i++) {
        size_t q = stm[i], e = stm[i + 1];
        bool has_ret = false;
        for (size_t r = q; r < e; r++)
            has_ret |= rwl_tok_is(gt, r, "return");
        if (!has_ret) {
            int f0, n0;
            if (!ls_list(L, gi, q, e, &f0, &n0))
                return -1;
            for (int k = 0; k < n0; k++) {
                if (*n_items >= 96)
                    return -1;
                items[(*n_items)++] = L->kids[f0 + k];
            }
            continue;
        }
        int asg = ls_node_new(L, LS_ASSIGN, gi);
        if (asg < 0 || *n_items >= 96)
            return -1;
        L->nd[asg].name = target;
        L->nd[asg].type = rtype;
        if (rwl_tok_is(gt, q, "return")) {
            if (!ls_check(L, gi, q + 1, e - 1, false))
                return -1;
            L->nd[asg].a = q + 1;
            L->nd[asg].b = e - 1;
            items[(*n_items)++] = asg;
            return 1;
        }
        if (!rwl_tok_is(gt, q, "if") || !rwl_tok_is(gt, q + 1, "("))
            return LSREF(L, 0, a, "call", EN(RW_CC_RETURNS_OTHER), TOK(ts, a)) ? 0 : -1;
        size_t c = rwl_match_close(gt, q + 1), r = c + 1;
        bool br = rwl_tok_is(gt, r, "{");
        if (br)
            r++;
        size_t re = rwl_stmt_end(gt, r, e);
        if (!rwl_tok_is(gt, r, "return") || re != (br ? e - 1 : e) || (br && !rwl_tok_is(gt, e - 1, "}")))
            return LSREF(L, 0, a, "call", EN(RW_CC_IF_MORE_THAN_RETURN), TOK(ts, a)) ? 0 : -1;
        if (!ls_check(L, gi, q + 2, c, false) || !ls_check(L, gi, r + 1, re - 1, false))
            return -1;
        L->nd[asg].a = r + 1;
        L->nd[asg].b = re - 1;
        int node = ls_node_new(L, LS_IF, gi);
        if (node < 0 || L->n_kids + 1 > LS_KIDS)
            return -1;
        L->nd[node].a = q + 2;
        L->nd[node].b = c;
        L->nd[node].k1 = (int)L->n_kids;
        L->nd[node].n1 = 1;
        L->kids[L->n_kids++] = asg;
        int rest[96], n_rest = 0;
        int rc = ls_returns(L, gi, stm, n_stm, i + 1, target, rtype, rest, &n_rest, ts, a);
        if (rc <= 0)
            return rc;
        if (L->n_kids + (size_t)n_rest > LS_KIDS)
            return -1;
        L->nd[node].k2 = (int)L->n_kids;
        L->nd[node].n2 = n_rest;
        memcpy(L->kids + L->n_kids, rest, (size_t)n_rest * sizeof *rest);
        L->n_kids += (size_t)n_rest;
        items[(*n_items)++] = node;
        return 1;
    }
    return LSREF(L, 0, a, "call", EN(RW_CC_NO_END_RETURN), TOK(ts, a)) ? 0 : -1;
}

/* A call `f(args)` at [a, b) of st to a function of the file: inlined into the list as a
 * block assigning target (declared by the caller). -1: refused; 0: not such a call; 1: done. */
static int ls_inline(ls_state *L, int st, size_t a, size_t b, const char *target, int *out)
{
    cc_scan *s = L->s;
    const rw_toks *ts = L->st[st].ts;
    /* `f(args)`, or `f<A, ...>(args)` whose explicit template arguments bind the callee's
     * template parameters in order (roi_align_rotated's `bilinear_interpolate<scalar_t>(...)`) */
    size_t op = b > a + 1 && rwl_tok_is(ts, a + 1, "(") ? a + 1 : ls_template_args_end(ts, a, b);
    if (b < a + 3 || ts->t[a].kind != T_IDENT || !op || rwl_match_close(ts, op) != b - 1)
        return 0;
    if (st != 0 || rwl_pure_call_name(ts, a) || pure_callee(s, a) || (L->keep_calls && ls_reader(s, ts, a)))
        return 0;
    const an_function *g = rwl_callee(s->m, s->f, ts, a);
    if (!g)
        return 0;
    if (op != a + 1 && (!g->template_params || !rwl_tok_is(ts, op - 1, ">")))
        return LSREF(L, st, a, "call", EN(RW_CC_TEMPLATE_ARGS_UNREAD), TOK(ts, a)) ? 0 : -1;
    if (L->n_st >= LS_STREAMS)
        return LSREF(L, st, a, "call", EN(RW_CC_TOO_MANY_INLINE), LS_STREAMS - 1) ? 0 : -1;
    ls_stream *G = &L->st[L->n_st];
    memset(G, 0, sizeof *G);
    if (rwl_lex(s->text, g->body_span.start_byte, g->body_span.end_byte, &G->own) != HK_OK || G->own.n < 2)
        return LSREF(L, st, a, "call", EN(RW_CC_BODY_UNREADABLE), TOK(ts, a)) ? 0 : -1;
    G->ts = &G->own;
    int gi = (int)L->n_st++;
    snprintf(G->pre, sizeof G->pre, "hk_in%d_", gi);
    const rw_toks *gt = G->ts;
    /* the arguments */
    size_t args[16][2], n_args = 0, p = op + 1;
    for (size_t q = op + 1; q < b; q++) {
        if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "{")) {
            q = rwl_match_close(ts, q);
            continue;
        }
        if (rwl_tok_is(ts, q, ",") || q == b - 1) {
            if (n_args >= 16 || q == p)
                return LSREF(L, st, a, "call", EN(RW_CC_ARGS_UNREADABLE), TOK(ts, a)) ? 0 : -1;
            args[n_args][0] = p;
            args[n_args][1] = q;
            n_args++;
            p = q + 1;
        }
    }
    if (n_args != g->n_params)
        return LSREF(L, st, a, "call", EN(RW_CC_ARG_COUNT),
                     TOK(ts, a), n_args, g->n_params) ? 0 : -1;
    for (size_t i = 0; i < n_args; i++)
        if (!ls_check(L, st, args[i][0], args[i][1], false))
            return -1;
    /* the template parameters: each from a parameter `U` or `U *` given a declared name */
    if (g->template_params) {
        rw_toks tt = {0};
        const char *tpl = g->template_params;
        if (rwl_lex(tpl, 0, (uint32_t)strlen(tpl), &tt) != HK_OK)
            return -1;
        for (size_t q = 0; q + 1 < tt.n; q++)
            if ((rwl_tok_is(&tt, q, "typename") || rwl_tok_is(&tt, q, "class")) && tt.t[q + 1].kind == T_IDENT &&
                G->n_tp < 4) {
                G->tp[G->n_tp] = ls_str(L, tpl + tt.t[q + 1].start, tt.t[q + 1].end - tt.t[q + 1].start);
                G->tv[G->n_tp] = NULL;
                G->n_tp++;
            } else if (rwl_tok_is(&tt, q, ",") && q + 2 < tt.n && !rwl_tok_is(&tt, q + 1, "typename") &&
                       !rwl_tok_is(&tt, q + 1, "class")) {
                rwl_toks_free(&tt);
                return LSREF(L, st, a, "call", EN(RW_CC_TEMPLATE_NOT_TYPE), TOK(ts, a)) ? 0 : -1;
            }
        rwl_toks_free(&tt);
        /* the explicit template arguments, in order (types: each one's tokens, no nesting) */
        size_t ea = a + 2, n_ex = 0;
        for (size_t q = a + 2; op != a + 1 && q < op; q++)
            if (rwl_tok_is(ts, q, ",") || q == op - 1) {
                bool plain = q > ea;
                for (size_t r = ea; r < q; r++)
                    plain &= ts->t[r].kind == T_IDENT || rwl_tok_is(ts, r, "*") || rwl_tok_is(ts, r, "::");
                if (!plain || n_ex >= G->n_tp)
                    return LSREF(L, st, a, "call", EN(RW_CC_TEMPLATE_ARGS_UNREAD), TOK(ts, a)) ? 0 : -1;
                char *tx = rwl_tok_text(ts, ea, q);
                char core[256];
                int stars = 0;
                ls_type_core(tx ? tx : "", core, sizeof core, &stars);
                free(tx);
                size_t nc = strlen(core);
                if (!nc || stars)
                    return LSREF(L, st, a, "call", EN(RW_CC_TEMPLATE_ARGS_UNREAD), TOK(ts, a)) ? 0 : -1;
                G->tv[n_ex++] = ls_str(L, core, nc);
                ea = q + 1;
            }
        for (size_t t = 0; t < G->n_tp; t++) {
            for (size_t i = 0; i < n_args && !G->tv[t]; i++) {
                char at[256], pb[256], ab[256];
                int sp = 0, sa = 0;
                if (args[i][1] != args[i][0] + 1 || ts->t[args[i][0]].kind != T_IDENT)
                    continue;
                /* the argument's declared type: a parameter's, or a local declaration's text */
                const an_param *ap = rwp_param_named(s->f, ts, args[i][0]);
                at[0] = '\0';
                if (ap && ap->type)
                    snprintf(at, sizeof at, "%s", ap->type);
                else
                    for (size_t q = s->lo.ba; q < args[i][0] && !at[0]; q++)
                        if (rwl_same_tok(ts, q, args[i][0]) && rwl_declared_here(ts, q)) {
                            size_t d = q;
                            while (d > s->lo.ba && !rwl_tok_is(ts, d - 1, ";") && !rwl_tok_is(ts, d - 1, "{") &&
                                   !rwl_tok_is(ts, d - 1, "}") && !rwl_tok_is(ts, d - 1, "("))
                                d--;
                            char *tx = rwl_tok_text(ts, d, q);
                            if (tx)
                                snprintf(at, sizeof at, "%s", tx);
                            free(tx);
                        }
                if (!at[0])
                    continue;
                ls_type_core(g->params[i].type ? g->params[i].type : "", pb, sizeof pb, &sp);
                ls_type_core(at, ab, sizeof ab, &sa);
                size_t na = strlen(ab);
                if (sp == sa && !strcmp(pb, G->tp[t]) && na)
                    G->tv[t] = ls_str(L, ab, na);
            }
            if (!G->tv[t])
                return LSREF(L, st, a, "call", EN(RW_CC_TEMPLATE_NOT_DEDUCED), TOK(ts, a), G->tp[t]) ? 0 : -1;
        }
    }
    /* the callee's locals and parameters are renamed */
    for (size_t i = 0; i < g->n_params; i++) {
        if (!g->params[i].name || !g->params[i].name[0] || strchr(g->params[i].type ? g->params[i].type : "", '&') ||
            G->n_loc >= 96)
            return LSREF(L, st, a, "call", EN(RW_CC_BY_REFERENCE), TOK(ts, a)) ? 0 : -1;
        G->loc[G->n_loc++] = g->params[i].name;
    }
    for (size_t q = 1; q + 1 < gt->n; q++)
        if (gt->t[q].kind == T_IDENT && rwl_declared_here(gt, q) && G->n_loc < 96) {
            const char *nm = ls_str(L, gt->text + gt->t[q].start, gt->t[q].end - gt->t[q].start);
            bool have = false;
            for (size_t i = 0; i < G->n_loc; i++)
                have |= !strcmp(G->loc[i], nm);
            if (!have)
                G->loc[G->n_loc++] = nm;
        }
    /* the return type: the signature's words before the name, less the specifiers */
    char rt[256] = "";
    {
        rw_toks ht = {0};
        if (rwl_lex(s->text, g->span.start_byte, g->name_span.start_byte, &ht) != HK_OK)
            return -1;
        size_t q = 0, n = 0;
        if (rwl_tok_is(&ht, 0, "template")) {
            int depth = 0;
            for (q = 1; q < ht.n; q++) {
                depth += rwl_tok_is(&ht, q, "<") - rwl_tok_is(&ht, q, ">");
                if (depth == 0) {
                    q++;
                    break;
                }
            }
        }
        for (; q < ht.n; q++) {
            static const char *const specw[] = {"__device__", "__host__", "__forceinline__", "inline", "static",
                                               "__inline__", "__noinline__"};
            bool sk = false;
            for (size_t i = 0; i < HK_ARRAY_LEN(specw); i++)
                sk |= rwl_tok_is(&ht, q, specw[i]);
            if (sk)
                continue;
            char t[160];
            int tl = (int)(ht.t[q].end - ht.t[q].start);
            snprintf(t, sizeof t, "%.*s", tl, s->text + ht.t[q].start);
            for (size_t i = 0; i < G->n_tp; i++)
                if (!strcmp(t, G->tp[i]))
                    snprintf(t, sizeof t, "%s", G->tv[i]);
            int r = snprintf(rt + n, sizeof rt - n, "%s%s", n ? " " : "", t);
            if (r > 0 && (size_t)r < sizeof rt - n)
                n += (size_t)r;
        }
        rwl_toks_free(&ht);
        if (!n || !strcmp(rt, "void"))
            return LSREF(L, st, a, "call", EN(RW_CC_NO_VALUE), TOK(ts, a)) ? 0 : -1;
    }
    const char *rtype = ls_str(L, rt, strlen(rt));
    /* the block: parameters from the arguments, then the body with its returns */
    int blk = ls_node_new(L, LS_BLOCK, gi);
    if (blk < 0)
        return LSREF(L, st, a, "statement", EN(RW_CC_TOO_MANY_STMTS)) ? 0 : -1;
    int items[96], n_items = 0;
    for (size_t i = 0; i < g->n_params; i++) {
        int d = ls_node_new(L, LS_DECL, gi);
        if (d < 0)
            return -1;
        char nm[160], ty[256];
        snprintf(nm, sizeof nm, "%s%s", G->pre, g->params[i].name);
        /* the parameter's type with the template parameters replaced */
        rw_toks pt = {0};
        const char *ptx = g->params[i].type;
        if (rwl_lex(ptx, 0, (uint32_t)strlen(ptx), &pt) != HK_OK)
            return -1;
        size_t n = 0, star = 0;
        ty[0] = '\0';
        for (size_t q = 0; q < pt.n; q++)
            if (rwl_tok_is(&pt, q, "*"))
                star = q + 1;
        char aty[256];
        size_t an = 0;
        aty[0] = '\0';
        for (size_t q = 0; q < pt.n; q++) {
            char t[160];
            snprintf(t, sizeof t, "%.*s", (int)(pt.t[q].end - pt.t[q].start), ptx + pt.t[q].start);
            for (size_t k = 0; k < G->n_tp; k++)
                if (!strcmp(t, G->tp[k]))
                    snprintf(t, sizeof t, "%s", G->tv[k]);
            int r = snprintf(ty + n, sizeof ty - n, "%s%s", n ? " " : "", t);
            if (r > 0 && (size_t)r < sizeof ty - n)
                n += (size_t)r;
            if (!(q >= star && rwl_tok_is(&pt, q, "const"))) {
                r = snprintf(aty + an, sizeof aty - an, "%s%s", an ? " " : "", t);
                if (r > 0 && (size_t)r < sizeof aty - an)
                    an += (size_t)r;
            }
        }
        rwl_toks_free(&pt);
        L->nd[d].type = ls_str(L, ty, n);
        L->nd[d].atype = ls_str(L, aty, an);
        L->nd[d].name = ls_str(L, nm, strlen(nm));
        L->nd[d].ist = st;
        L->nd[d].a = args[i][0];
        L->nd[d].b = args[i][1];
        if (!L->nd[d].name || !ls_declare(L, st, a, L->nd[d].name))
            return -1;
        ls_find(L, L->nd[d].name)->size = ls_size_of(L->nd[d].atype);
        items[n_items++] = d;
    }
    /* the body's top-level statements: `if (c) return e;` splits the rest into its else */
    size_t stm[129], n_stm = 0;
    for (size_t q = 1; q + 1 < gt->n;) {
        size_t e = stmt_end(gt, q, gt->n - 1);
        if (e <= q || n_stm >= 128)
            return LSREF(L, st, a, "call", EN(RW_CC_BODY_UNDELIMITED), TOK(ts, a)) ? 0 : -1;
        stm[n_stm++] = q;
        q = e;
    }
    stm[n_stm] = gt->n - 1;
    int rc = ls_returns(L, gi, stm, n_stm, 0, target, rtype, items, &n_items, ts, a);
    if (rc <= 0)
        return rc;
    if (L->n_kids + (size_t)n_items > LS_KIDS)
        return -1;
    L->nd[blk].k1 = (int)L->n_kids;
    L->nd[blk].n1 = n_items;
    memcpy(L->kids + L->n_kids, items, (size_t)n_items * sizeof *items);
    L->n_kids += (size_t)n_items;
    *out = blk;
    return 1;
}

/* The statements [a, b) of stream st, appended to the kids pool: *first, *count. */
/* Whether token k names a type parameter of the kernel's template (`typename T`, `class T`). */
static bool ls_type_param(const ls_state *L, const rw_toks *ts, size_t k)
{
    const char *tp = L->s->f->template_params, *name = ts->text + ts->t[k].start;
    size_t n = ts->t[k].end - ts->t[k].start;
    if (!tp || ts->t[k].kind != T_IDENT || !n)
        return false;
    for (const char *w = tp; *w; w++) {
        if (strncmp(w, name, n) || (w > tp && (isalnum((unsigned char)w[-1]) || w[-1] == '_')) ||
            isalnum((unsigned char)w[n]) || w[n] == '_')
            continue;
        const char *b = w;
        while (b > tp && isspace((unsigned char)b[-1]))
            b--;
        if ((b - tp >= 8 && !strncmp(b - 8, "typename", 8)) || (b - tp >= 5 && !strncmp(b - 5, "class", 5)))
            return true;
    }
    return false;
}

/* Whether the element stores through the local named name: a statement `*name = v;`. */
static bool ls_stored_through(ls_state *L, const char *name)
{
    const rw_toks *ts = L->s->ts;
    size_t n = strlen(name);
    for (size_t q = L->s->lo.ba; q + 2 < L->s->lo.bb; q++)
        if (rwl_tok_is(ts, q, "*") && ts->t[q + 1].kind == T_IDENT && rwl_tok_is(ts, q + 2, "=") &&
            ts->t[q + 1].end - ts->t[q + 1].start == n && !memcmp(ts->text + ts->t[q + 1].start, name, n) &&
            (rwl_tok_is(ts, q - 1, ";") || rwl_tok_is(ts, q - 1, "{") || rwl_tok_is(ts, q - 1, "}") ||
             rwl_tok_is(ts, q - 1, ")") || rwl_tok_is(ts, q - 1, "else")))
            return true;
    return false;
}

/* A call in an output helper's body: only a type's constructor or cast, `static_cast` and
 * `reinterpret_cast` among them (bbox_overlaps' load_bbox<float> reads a float4 through one;
 * a store through the cast is still refused: the body writes names only). Every other call is
 * refused; pure functions and the lexer's type words are allowed before this is asked. */
static bool ls_out_inner_call(void *ctx, const rw_toks *gt, size_t k)
{
    (void)ctx;
    return rwp_is_type_word(gt, k) || rwl_tok_is(gt, k, "static_cast") || rwl_tok_is(gt, k, "reinterpret_cast");
}

/* Whether function g's body writes nothing but its own locals and its reference parameters,
 * reads memory only through its parameters, and holds nothing that depends on the thread. */
static bool ls_out_body(const cc_scan *s, const an_function *g)
{
    return rwl_confined_body(s->text, g, true, ls_out_inner_call, NULL);
}

/* A call at token q of the kernel's stream to a reader function (rwl_reader_call: every
 * definition takes pointers to const and the rest by value, writes only its locals, and calls
 * only pure functions and again readers): a function of its arguments and of memory the
 * element only reads. The lockstep form keeps such a call as a call when the element selects
 * by comparing computed floats (lockstep_pass): inlined, the call's float arithmetic would be
 * compiled in the chunk's code, where nvcc may contract it otherwise; and when inlining it
 * was refused (a call in its body, a call inside an expression: PrRoIPool's
 * `sum_out += PrRoIPoolingMatCalculation(...)`). */
static bool ls_reader(const cc_scan *s, const rw_toks *ts, size_t q)
{
    return rwl_reader_call(s->m, s->text, s->f, ts, q);
}

/* The loads of a kept call (ls_reader) at token q: its body's subscripts, the most of its
 * definitions' (what the compiler keeps in flight for each element, chunk_choice). */
static int ls_reader_loads(const cc_scan *s, const rw_toks *ts, size_t q)
{
    const an_function *g = rwl_callee(s->m, s->f, ts, q);
    int most = 0;
    for (size_t fi = 0; g && fi < s->m->n_funcs; fi++) {
        const an_function *h = &s->m->funcs[fi];
        rw_toks gt = {0};
        if (strcmp(h->name, g->name) || rwl_lex(s->text, h->body_span.start_byte, h->body_span.end_byte, &gt) != HK_OK)
            continue;
        int n = 0;
        for (size_t k = 0; k < gt.n; k++)
            n += rwl_tok_is(&gt, k, "[");
        most = n > most ? n : most;
        rwl_toks_free(&gt);
    }
    return most;
}

/* A call statement `f(args);` or `f<T>(args);` at [p, e) (`;` at e - 1) of the kernel's stream
 * whose every definition of that name in the file (overloads, explicit specialisations:
 * bbox_overlaps' load_bbox<float>) takes its pointers to const, its outputs as `T &` bound to
 * locals of the element, the rest by value, and writes nothing else (ls_out_body). Kept as a
 * call, not inlined: a specialisation may be what runs. 1 with the node in *node, 0 when the
 * statement is not such a call, -1 refused. */
static int ls_out_call(ls_state *L, int st, size_t p, size_t e, int *node)
{
    cc_scan *s = L->s;
    const rw_toks *ts = L->st[st].ts;
    if (st != 0 || ts->t[p].kind != T_IDENT || is_kw(ts, p) || !rwl_tok_is(ts, e - 1, ";"))
        return 0;
    size_t op = rwl_tok_is(ts, p + 1, "(") ? p + 1 : ls_template_args_end(ts, p, e);
    if (!op || rwl_match_close(ts, op) + 2 != e)
        return 0;
    size_t cl = rwl_match_close(ts, op), nl = ts->t[p].end - ts->t[p].start;
    /* the arguments */
    size_t arg[16][2], na = 0, at = op + 1;
    for (size_t q = op + 1; q <= cl; q++) {
        if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "["))
            q = rwl_match_close(ts, q);
        else if ((rwl_tok_is(ts, q, ",") || q == cl) && q > at) {
            if (na >= 16)
                return (void)LSREF(L, st, p, "call", EN(RW_CC_TOO_MANY_ARGS), TOK(ts, p)), -1;
            arg[na][0] = at, arg[na][1] = q, na++;
            at = q + 1;
        }
    }
    size_t defs = 0;
    bool out[16] = {0};
    for (size_t fi = 0; fi < s->m->n_funcs; fi++) {
        const an_function *g = &s->m->funcs[fi];
        if (strlen(g->name) != nl || memcmp(g->name, ts->text + ts->t[p].start, nl) || g == s->f)
            continue;
        defs++;
        if (g->body_span.end_byte <= g->body_span.start_byte || g->n_params != na)
            return (void)LSREF(L, st, p, "call", EN(RW_CC_NO_DEFINITION), TOK(ts, p)), -1;
        for (size_t i = 0; i < na; i++) {
            const char *ty = g->params[i].type ? g->params[i].type : "";
            bool ref = strchr(ty, '&') != NULL;
            if (ref && (strstr(ty, "&&") || g->params[i].pointer_depth))
                return (void)LSREF(L, st, p, "call", EN(RW_CC_PTR_OR_RVALUE_REF), TOK(ts, p)), -1;
            if (g->params[i].pointer_depth && !g->params[i].is_const)
                return (void)LSREF(L, st, p, "call", EN(RW_CC_PTR_WRITABLE), TOK(ts, p),
                             ty), -1;
            if (defs > 1 && ref != out[i])
                return (void)LSREF(L, st, p, "call", EN(RW_CC_DEFS_DIFFER), TOK(ts, p),
                             i + 1), -1;
            out[i] = ref;
        }
        if (!ls_out_body(s, g))
            return (void)LSREF(L, st, p, "call", EN(RW_CC_WRITES_OR_THREAD), TOK(ts, p)), -1;
    }
    if (!defs)
        return 0;
    int nd = ls_node_new(L, LS_EXPR, st);
    if (nd < 0)
        return (void)LSREF(L, st, p, "statement", EN(RW_CC_TOO_MANY_STMTS)), -1;
    ls_node *d = &L->nd[nd];
    for (size_t i = 0; i < na; i++) {
        if (out[i]) {
            ls_var *v = arg[i][1] == arg[i][0] + 1 ? ls_var_at(L, st, arg[i][0]) : NULL;
            bool coord = false;
            for (size_t t = 0; v && t <= s->n_co && t < L->n_var; t++)
                coord |= v == &L->var[t];
            if (!v || coord || v->sptr || d->n_outs >= 8)
                return (void)LSREF(L, st, arg[i][0], "call", EN(RW_CC_WRITES_ARG), TOK(ts, p), i + 1), -1;
            d->outs[d->n_outs++] = arg[i][0];
        } else {
            if (!ls_check(L, st, arg[i][0], arg[i][1], false))
                return -1;
            for (size_t q = arg[i][0]; q < arg[i][1]; q++) {
                const an_param *pa = rwp_param_named(s->f, ts, q);
                ls_var *v = ls_var_at(L, st, q);
                d->loads |= (pa && pa->pointer_depth) || (v && v->size == 2 && !strstr(v->name, "hk_"));
            }
        }
    }
    d->a = p;
    d->b = e - 1;
    *node = nd;
    return 1;
}

/* A store pointer's declaration `T *p = P + e;` (st 0, init [ia, ib)): P a pointer parameter
 * the element stores to through p (im2col's `data_col_ptr`), e checked as an expression. */
static bool ls_store_pointer(ls_state *L, size_t ia, size_t ib, ls_var *v)
{
    cc_scan *s = L->s;
    const rw_toks *ts = s->ts;
    const an_param *pa = rwp_param_named(s->f, ts, ia);
    if (!pa || pa->pointer_depth != 1 || !(ia + 1 == ib || rwl_tok_is(ts, ia + 1, "+")))
        return LSREF(L, 0, ia, "store", EN(RW_CC_STORE_THROUGH), v->name);
    bool have = false;
    for (size_t i = 0; i < L->n_stored; i++)
        have |= L->stored[i] == pa;
    if ((!have && L->n_stored >= 8) || L->n_sptr >= 8)
        return LSREF(L, 0, ia, "store", EN(RW_CC_TOO_MANY_STORED));
    if (!have)
        L->stored[L->n_stored++] = pa;
    L->sptr_tok[L->n_sptr++] = ia;
    if (ia + 1 < ib && !ls_check(L, 0, ia + 2, ib, false))
        return false;
    v->sptr = true;
    return true;
}

static bool ls_list(ls_state *L, int st, size_t a, size_t b, int *first, int *count)
{
    cc_scan *s = L->s;
    const rw_toks *ts = L->st[st].ts;
    int items[128], n = 0;
    for (size_t p = a; p < b;) {
        size_t e = stmt_end(ts, p, b);
        if (e <= p || e > b || n >= 120)
            return LSREF(L, st, p, "statement", EN(RW_CC_UNDELIMITED));
        int node = -1;
        if (rwl_tok_is(ts, p, ";")) {
            p = e;
            continue;
        } else if (rwl_tok_is(ts, p, "{")) {
            node = ls_node_new(L, LS_BLOCK, st);
            if (node < 0 || !ls_list(L, st, p + 1, e - 1, &L->nd[node].k1, &L->nd[node].n1))
                return node < 0 ? LSREF(L, st, p, "statement", EN(RW_CC_TOO_MANY_STMTS)) : false;
        } else if (rwl_tok_is(ts, p, "if") && rwl_tok_is(ts, p + 1, "(")) {
            size_t c = rwl_match_close(ts, p + 1), te = stmt_end(ts, c + 1, e);
            node = ls_node_new(L, LS_IF, st);
            if (node < 0 || !ls_check(L, st, p + 2, c, false))
                return node < 0 ? LSREF(L, st, p, "statement", EN(RW_CC_TOO_MANY_STMTS)) : false;
            L->nd[node].a = p + 2;
            L->nd[node].b = c;
            if (!ls_list(L, st, c + 1, te, &L->nd[node].k1, &L->nd[node].n1))
                return false;
            if (te < e && rwl_tok_is(ts, te, "else") && !ls_list(L, st, te + 1, e, &L->nd[node].k2, &L->nd[node].n2))
                return false;
        } else if (rwl_tok_is(ts, p, "for") && rwl_tok_is(ts, p + 1, "(")) {
            size_t c = rwl_match_close(ts, p + 1), s1 = p + 2, s2;
            while (s1 < c && !rwl_tok_is(ts, s1, ";"))
                s1++;
            s2 = s1 + 1;
            while (s2 < c && !rwl_tok_is(ts, s2, ";"))
                s2++;
            if (s2 >= c)
                return LSREF(L, st, p, "statement", EN(RW_CC_FOR_UNREADABLE));
            node = ls_node_new(L, LS_FOR, st);
            if (node < 0)
                return LSREF(L, st, p, "statement", EN(RW_CC_TOO_MANY_STMTS));
            /* the init: `T v = e` (declared) or an expression */
            if (s1 > p + 2 && rwl_starts_declaration(ts, p + 2)) {
                size_t q = p + 2;
                while (q < s1 && !rwl_tok_is(ts, q, "="))
                    q++;
                if (q >= s1 || ts->t[q - 1].kind != T_IDENT ||
                    !ls_declare(L, st, q - 1, ls_name(L, st, q - 1)))
                    return LSREF(L, st, p, "statement", EN(RW_CC_FOR_DECL));
                for (size_t r = q; r < s1; r++)
                    if (rwl_tok_is(ts, r, ","))
                        return LSREF(L, st, r, "statement", EN(RW_CC_FOR_MULTI_DECL));
                if (!ls_check(L, st, q + 1, s1, false))
                    return false;
            } else if (!ls_check(L, st, p + 2, s1, true))
                return false;
            if (!ls_check(L, st, s1 + 1, s2, false) || !ls_check(L, st, s2 + 1, c, true))
                return false;
            size_t *fi = L->nd[node].fi;
            fi[0] = p + 2, fi[1] = s1, fi[2] = s1 + 1, fi[3] = s2, fi[4] = s2 + 1, fi[5] = c;
            if (!ls_list(L, st, c + 1, e, &L->nd[node].k1, &L->nd[node].n1))
                return false;
        } else if ((rwl_tok_is(ts, p, "continue") || rwl_tok_is(ts, p, "break")) && rwl_tok_is(ts, p + 1, ";")) {
            node = ls_node_new(L, LS_JUMP, st);
            if (node < 0)
                return LSREF(L, st, p, "statement", EN(RW_CC_TOO_MANY_STMTS));
            L->nd[node].a = p;
            L->nd[node].b = p + 1;
        } else if (rwl_tok_is(ts, p, "while") || rwl_tok_is(ts, p, "do") || rwl_tok_is(ts, p, "switch") ||
                   rwl_tok_is(ts, p, "return") || rwl_tok_is(ts, p, "goto") || rwl_tok_is(ts, p, "else")) {
            return LSREF(L, st, p, "statement", EN(RW_CC_IN_ELEM), TOK(ts, p));
        } else if ((rwl_starts_declaration(ts, p) && !(ts->t[p].kind == T_IDENT && rwl_tok_is(ts, p + 1, "["))) ||
                   (st == 0 && ls_type_param(L, ts, p) && rwl_tok_is(ts, p + 1, "*") && ts->t[p + 2].kind == T_IDENT &&
                    (rwl_tok_is(ts, p + 3, "=") || rwl_tok_is(ts, p + 3, ";")))) {
            /* (`T *p = ...` with T a type parameter of the kernel reads as a product otherwise) */
            /* declarators: the type is what precedes the first name */
            size_t q = p;
            while (q < e - 1 && !rwl_tok_is(ts, q, "=") && !rwl_tok_is(ts, q, ",") && !rwl_tok_is(ts, q + 1, ";") &&
                   !(rwl_tok_is(ts, q + 1, "=") || rwl_tok_is(ts, q + 1, ",")))
                q++;
            /* q: the first name */
            if (ts->t[q].kind != T_IDENT || q == p)
                return LSREF(L, st, p, "statement", EN(RW_CC_DECL_UNREADABLE), TOK(ts, p));
            for (size_t r = p; r < q; r++)
                if (rwl_tok_is(ts, r, "&") || rwl_tok_is(ts, r, "&&") || rwl_tok_is(ts, r, "static") ||
                    rwl_tok_is(ts, r, "__shared__") || rwl_tok_is(ts, r, "extern"))
                    return LSREF(L, st, r, "statement", EN(RW_CC_IN_ELEM_DECL), TOK(ts, r));
            const char *type = ls_text(L, st, p, q), *atype = ls_atype(L, st, p, q);
            for (size_t d = q; d < e;) {
                if (ts->t[d].kind != T_IDENT)
                    return LSREF(L, st, d, "statement", EN(RW_CC_DECLARATOR_FORM));
                size_t r = d + 1, ia = 0, ib = 0;
                if (rwl_tok_is(ts, r, "=")) {
                    ia = r + 1;
                    for (r = ia; r < e - 1; r++) {
                        if (rwl_tok_is(ts, r, "(") || rwl_tok_is(ts, r, "[") || rwl_tok_is(ts, r, "{"))
                            r = rwl_match_close(ts, r);
                        else if (rwl_tok_is(ts, r, ","))
                            break;
                    }
                    ib = r;
                } else if (!rwl_tok_is(ts, r, ",") && !rwl_tok_is(ts, r, ";"))
                    return LSREF(L, st, d, "statement", EN(RW_CC_NAMED_DECLARATOR_FORM),
                                 TOK(ts, d));
                const char *nm = ls_name(L, st, d);
                if (!nm || !type || !atype || !ls_declare(L, st, d, nm))
                    return false;
                ls_find(L, nm)->size = ls_size_of(atype);
                int dn = ls_node_new(L, LS_DECL, st);
                if (dn < 0 || n >= 120)
                    return LSREF(L, st, p, "statement", EN(RW_CC_TOO_MANY_STMTS));
                L->nd[dn].type = type;
                L->nd[dn].atype = atype;
                L->nd[dn].name = nm;
                items[n++] = dn;
                if (ia && st == 0 && strchr(type, '*') && ls_stored_through(L, nm)) {
                    if (!ls_store_pointer(L, ia, ib, ls_find(L, nm)))
                        return false;
                    L->nd[dn].a = ia;
                    L->nd[dn].b = ib;
                } else if (ia) {
                    int blk = -1;
                    int rc = ls_inline(L, st, ia, ib, nm, &blk);
                    if (rc < 0)
                        return false;
                    if (rc == 1)
                        items[n++] = blk;
                    else {
                        if (!ls_check(L, st, ia, ib, false))
                            return false;
                        L->nd[dn].a = ia;
                        L->nd[dn].b = ib;
                    }
                }
                d = r + 1;
            }
            p = e;
            continue;
        } else {
            /* an expression statement: a store `P[i] = v` or `*p = v`, a store pointer's walk
             * `p += e`, a call whose results are reference parameters, `v = f(...)` inlined, or
             * writes to locals */
            int oc = 0;
            const an_param *pa = st == 0 ? rwp_param_named(s->f, ts, p) : NULL;
            ls_var *sv = rwl_tok_is(ts, p, "*") || rwl_tok_is(ts, p, "++") ? ls_var_at(L, st, p + 1) : ls_var_at(L, st, p);
            if (sv && sv->sptr) {
                bool store = rwl_tok_is(ts, p, "*") && rwl_tok_is(ts, p + 2, "=");
                bool walk = !store && ((rwl_tok_is(ts, p + 1, "+=") || rwl_tok_is(ts, p + 1, "-=")) ||
                                       (rwl_tok_is(ts, p + 1, "++") && p + 3 == e) || (rwl_tok_is(ts, p, "++") && p + 3 == e));
                if (!store && !walk)
                    return LSREF(L, st, p, "store", EN(RW_CC_STORE_PTR_USE_S), sv->name, sv->name, sv->name);
                size_t va = store ? p + 3 : rwl_tok_is(ts, p + 1, "+=") || rwl_tok_is(ts, p + 1, "-=") ? p + 2 : e - 1;
                if (va < e - 1 && !ls_check(L, st, va, e - 1, false))
                    return false;
                node = ls_node_new(L, store ? LS_STORE : LS_EXPR, st);
                if (node < 0)
                    return LSREF(L, st, p, "statement", EN(RW_CC_TOO_MANY_STMTS));
                L->nd[node].a = p;
                L->nd[node].b = e - 1;
            } else if (pa && pa->pointer_depth == 1 && rwl_tok_is(ts, p + 1, "[") && rwl_same_tok(ts, p + 2, s->lo.v) &&
                rwl_tok_is(ts, p + 3, "]") && rwl_tok_is(ts, p + 4, "=")) {
                bool have = false;
                for (size_t i = 0; i < L->n_stored; i++)
                    have |= L->stored[i] == pa;
                if (!have && L->n_stored >= 8)
                    return LSREF(L, st, p, "store", EN(RW_CC_TOO_MANY_STORED));
                if (!have)
                    L->stored[L->n_stored++] = pa;
                if (!ls_check(L, st, p + 5, e - 1, false))
                    return false;
                node = ls_node_new(L, LS_STORE, st);
                if (node < 0)
                    return LSREF(L, st, p, "statement", EN(RW_CC_TOO_MANY_STMTS));
                L->nd[node].a = p;
                L->nd[node].b = e - 1;
            } else if ((oc = ls_out_call(L, st, p, e, &node)) != 0) {
                if (oc < 0)
                    return false;
            } else {
                int blk = -1, rc = 0;
                if (ts->t[p].kind == T_IDENT && rwl_tok_is(ts, p + 1, "=") && ls_var_at(L, st, p)) {
                    rc = ls_inline(L, st, p + 2, e - 1, ls_name(L, st, p), &blk);
                }
                if (rc < 0)
                    return false;
                if (rc == 1)
                    node = blk;
                else {
                    if (!ls_check(L, st, p, e - 1, true))
                        return false;
                    node = ls_node_new(L, LS_EXPR, st);
                    if (node < 0)
                        return LSREF(L, st, p, "statement", EN(RW_CC_TOO_MANY_STMTS));
                    L->nd[node].a = p;
                    L->nd[node].b = e - 1;
                }
            }
        }
        items[n++] = node;
        p = e;
    }
    if (L->n_kids + (size_t)n > LS_KIDS)
        return LSREF(L, st, a, "statement", EN(RW_CC_TOO_MANY_STMTS));
    *first = (int)L->n_kids;
    *count = n;
    memcpy(L->kids + L->n_kids, items, (size_t)n * sizeof *items);
    L->n_kids += (size_t)n;
    return true;
}

/* Whether tokens [a, b) of st read c, the counter or a local that depends on c. */
static bool ls_mentions(ls_state *L, int st, size_t a, size_t b)
{
    for (size_t k = a; k < b; k++) {
        ls_var *v = ls_var_at(L, st, k);
        if (v && v->vec)
            return true;
    }
    return false;
}

static void ls_mark(ls_state *L, ls_var *v)
{
    if (v && !v->vec) {
        v->vec = true;
        L->changed = true;
    }
}

/* Marks every local written in [a, b) of st. */
static void ls_mark_writes(ls_state *L, int st, size_t a, size_t b)
{
    const rw_toks *ts = L->st[st].ts;
    for (size_t k = a; k < b; k++)
        if (rwl_tok_is_assign_op(ts, k) || rwl_tok_is(ts, k, "++") || rwl_tok_is(ts, k, "--")) {
            if (k > a)
                ls_mark(L, ls_var_at(L, st, k - 1));
            if (k + 1 < b && !rwl_tok_is_assign_op(ts, k))
                ls_mark(L, ls_var_at(L, st, k + 1));
        }
}

/* One pass of the classing over a list (ctl: under a condition that depends on c). */
static void ls_class(ls_state *L, int first, int count, bool ctl)
{
    for (int i = 0; i < count; i++) {
        ls_node *d = &L->nd[L->kids[first + i]];
        switch (d->kind) {
        case LS_DECL:
            if (d->guard) {
                d->dep = false;
                break;
            }
            d->dep = ctl || (d->b > d->a && ls_mentions(L, d->ist, d->a, d->b)) || ls_find(L, d->name)->vec;
            if (d->dep)
                ls_mark(L, ls_find(L, d->name));
            break;
        case LS_ASSIGN:
            d->dep = ctl || ls_find(L, d->name)->vec || ls_mentions(L, d->st, d->a, d->b);
            if (d->dep)
                ls_mark(L, ls_find(L, d->name));
            break;
        case LS_EXPR:
            d->dep = ctl || ls_mentions(L, d->st, d->a, d->b);
            if (d->dep)
                ls_mark_writes(L, d->st, d->a, d->b);
            for (int o = 0; d->dep && o < d->n_outs; o++)
                ls_mark(L, ls_var_at(L, d->st, d->outs[o]));
            break;
        case LS_STORE:
            d->dep = true;
            break;
        case LS_JUMP:
            d->dep = ctl;
            break;
        case LS_BLOCK:
            d->dep = false;
            ls_class(L, d->k1, d->n1, ctl);
            break;
        case LS_IF:
            d->dep = ctl || ls_mentions(L, d->st, d->a, d->b);
            ls_class(L, d->k1, d->n1, d->dep);
            if (d->k2 >= 0)
                ls_class(L, d->k2, d->n2, d->dep);
            break;
        case LS_FOR:
            d->dep = ctl || ls_mentions(L, d->st, d->fi[0], d->fi[5]);
            if (d->dep)
                ls_mark_writes(L, d->st, d->fi[0], d->fi[5]), ls_mark(L, NULL);
            if (d->dep) {
                /* the counter */
                const rw_toks *ts = L->st[d->st].ts;
                for (size_t k = d->fi[0]; k < d->fi[1]; k++)
                    if (rwl_tok_is(ts, k, "="))
                        ls_mark(L, ls_var_at(L, d->st, k - 1));
            }
            ls_class(L, d->k1, d->n1, d->dep);
            break;
        }
    }
}

/* Selections by float comparisons. nvcc contracts `a * b + c` into one fma by heuristics that
 * read the code around the expression (which product of `w1 * v1 + w2 * v2` it fuses differs
 * between mmcv's roi_align and its lockstep form: bench/results/2026-12-05-chunks-exact-cpu-s28.md),
 * so the same expression may round otherwise in the chunk. A value off by an ulp passes any
 * tolerance; what a comparison of such values selects does not (roi_align's argmax: the
 * position of the largest sample, a different sample when two are an ulp apart). */

/* Whether a declaration's type is a floating-point scalar: float, double, a half type, or a
 * template type parameter of the kernel (which the launch may make one). */
static bool ls_float_type(const ls_state *L, const char *type)
{
    if (!type || strchr(type, '*') || strchr(type, '['))
        return false;
    rw_toks tt = {0};
    bool f = false;
    if (rwl_lex(type, 0, (uint32_t)strlen(type), &tt) == HK_OK)
        for (size_t q = 0; q < tt.n && !f; q++)
            f = rwl_tok_is(&tt, q, "float") || rwl_tok_is(&tt, q, "double") || rwl_tok_is(&tt, q, "half") ||
                rwl_tok_is(&tt, q, "__half") || rwl_tok_is(&tt, q, "__nv_bfloat16") || ls_type_param(L, &tt, q);
    rwl_toks_free(&tt);
    return f;
}

static bool ls_var_float(const ls_state *L, const ls_var *v)
{
    for (size_t i = 0; v && i < L->n_nd; i++)
        if (L->nd[i].kind == LS_DECL && L->nd[i].name && !strcmp(L->nd[i].name, v->name))
            return ls_float_type(L, L->nd[i].type);
    return false;
}

/* The local a node assigns (a declaration's, `v = e`, `v op= e`), with its value's tokens. */
static ls_var *ls_target(ls_state *L, const ls_node *d, int *st, size_t *a, size_t *b)
{
    const rw_toks *ts = L->st[d->st].ts;
    if (d->kind == LS_DECL && d->b > d->a) {
        *st = d->ist, *a = d->a, *b = d->b;
        return ls_find(L, d->name);
    }
    if (d->kind == LS_ASSIGN) {
        *st = d->ist, *a = d->a, *b = d->b;
        return ls_find(L, d->name);
    }
    if (d->kind == LS_EXPR && !d->n_outs && d->b > d->a + 2 && rwl_tok_is_assign_op(ts, d->a + 1)) {
        *st = d->st, *a = d->a + 1, *b = d->b; /* the operator too: `+=` is a sum */
        return ls_var_at(L, d->st, d->a);
    }
    return NULL;
}

/* Whether tokens [a, b) of st hold a binary `op` (or `op=`). */
static bool ls_has_binary(ls_state *L, int st, size_t a, size_t b, char op)
{
    const rw_toks *ts = L->st[st].ts;
    char o1[2] = {op, 0}, o2[3] = {op, '=', 0};
    for (size_t q = a; q < b; q++)
        if ((rwl_tok_is(ts, q, o1) && !rwl_unary_position(ts, q)) || rwl_tok_is(ts, q, o2))
            return true;
    return false;
}

/* A local with a float product among its values (`w = hy * hx`): a sum that reads it may fuse it. */
static bool ls_product_var(ls_state *L, const ls_var *v)
{
    for (size_t i = 0; v && i < L->n_nd; i++) {
        int st;
        size_t a, b;
        if (ls_target(L, &L->nd[i], &st, &a, &b) == v && ls_has_binary(L, st, a, b, '*'))
            return true;
    }
    return false;
}

/* Whether node d computes a float by a sum with a product in it or read from a local that
 * holds one: what nvcc may contract either way. */
static bool ls_contractible(ls_state *L, const ls_node *d)
{
    int st;
    size_t a, b;
    ls_var *t = ls_target(L, d, &st, &a, &b);
    if (!t || !ls_var_float(L, t) || !(ls_has_binary(L, st, a, b, '+') || ls_has_binary(L, st, a, b, '-')))
        return false;
    if (ls_has_binary(L, st, a, b, '*'))
        return true;
    for (size_t q = a; q < b; q++) {
        ls_var *v = ls_var_at(L, st, q);
        if (v && v != t && ls_var_float(L, v) && ls_product_var(L, v))
            return true;
    }
    return false;
}

/* Whether the list assigns a local its condition [ca, cb) of cst does not read. */
static const char *ls_assigns_other(ls_state *L, int first, int count, int cst, size_t ca, size_t cb)
{
    for (int i = 0; i < count; i++) {
        ls_node *d = &L->nd[L->kids[first + i]];
        int st;
        size_t a, b;
        ls_var *t = d->kind == LS_DECL ? NULL : ls_target(L, d, &st, &a, &b);
        if (t) {
            bool read = false;
            for (size_t q = ca; q < cb && !read; q++)
                read = ls_var_at(L, cst, q) == t;
            if (!read)
                return t->name;
        }
        const char *r = NULL;
        if (d->kind == LS_BLOCK || d->kind == LS_IF || d->kind == LS_FOR)
            r = ls_assigns_other(L, d->k1, d->n1, cst, ca, cb);
        if (!r && d->kind == LS_IF && d->k2 >= 0)
            r = ls_assigns_other(L, d->k2, d->n2, cst, ca, cb);
        if (r)
            return r;
    }
    return NULL;
}

/* A per-element `if` that compares floats and assigns a local the comparison does not read (an
 * argmax): the node, with that local in *what; -1 for none. */
static int ls_selection(ls_state *L, int first, int count, const char **what)
{
    for (int i = 0; i < count; i++) {
        int ni = L->kids[first + i];
        ls_node *d = &L->nd[ni];
        if (d->kind == LS_IF && d->dep) {
            const rw_toks *ts = L->st[d->st].ts;
            bool cmp = false, flt = false;
            for (size_t q = d->a; q < d->b; q++) {
                cmp |= rwl_tok_is(ts, q, "<") || rwl_tok_is(ts, q, ">") || rwl_tok_is(ts, q, "<=") ||
                       rwl_tok_is(ts, q, ">=") || rwl_tok_is(ts, q, "==") || rwl_tok_is(ts, q, "!=");
                flt |= ls_var_float(L, ls_var_at(L, d->st, q));
            }
            const char *o = cmp && flt ? ls_assigns_other(L, d->k1, d->n1, d->st, d->a, d->b) : NULL;
            if (!o && cmp && flt && d->k2 >= 0)
                o = ls_assigns_other(L, d->k2, d->n2, d->st, d->a, d->b);
            if (o) {
                *what = o;
                return ni;
            }
        }
        int r = -1;
        if (d->kind == LS_BLOCK || d->kind == LS_IF || d->kind == LS_FOR)
            r = ls_selection(L, d->k1, d->n1, what);
        if (r < 0 && d->kind == LS_IF && d->k2 >= 0)
            r = ls_selection(L, d->k2, d->n2, what);
        if (r >= 0)
            return r;
    }
    return -1;
}

/* A per-element node of the list that ls_contractible holds, or -1. */
static int ls_contraction(ls_state *L, int first, int count)
{
    for (int i = 0; i < count; i++) {
        int ni = L->kids[first + i];
        ls_node *d = &L->nd[ni];
        if (d->dep && d->kind != LS_BLOCK && ls_contractible(L, d))
            return ni;
        int r = -1;
        if (d->kind == LS_BLOCK || d->kind == LS_IF || d->kind == LS_FOR)
            r = ls_contraction(L, d->k1, d->n1);
        if (r < 0 && d->kind == LS_IF && d->k2 >= 0)
            r = ls_contraction(L, d->k2, d->n2);
        if (r >= 0)
            return r;
    }
    return -1;
}

/* Whether a once-run part of the list loads memory (what the chunk shares). */
static bool ls_shares(ls_state *L, int first, int count)
{
    for (int i = 0; i < count; i++) {
        ls_node *d = &L->nd[L->kids[first + i]];
        const rw_toks *ts;
        if (d->dep && d->kind != LS_BLOCK)
            continue;
        switch (d->kind) {
        case LS_DECL:
        case LS_EXPR:
            if (d->loads)
                return true;
            ts = L->st[d->kind == LS_DECL ? d->ist : d->st].ts;
            for (size_t k = d->a; k < d->b; k++)
                if (rwl_tok_is(ts, k, "["))
                    return true;
            break;
        case LS_IF:
            ts = L->st[d->st].ts;
            for (size_t k = d->a; k < d->b; k++)
                if (rwl_tok_is(ts, k, "["))
                    return true;
            if (ls_shares(L, d->k1, d->n1) || (d->k2 >= 0 && ls_shares(L, d->k2, d->n2)))
                return true;
            break;
        case LS_FOR:
        case LS_BLOCK:
            if (ls_shares(L, d->k1, d->n1))
                return true;
            break;
        default:
            break;
        }
    }
    return false;
}

static bool ls_arr(const ls_state *L, const char *name)
{
    for (size_t i = L->n_scope; i-- > 0;)
        if (!strcmp(L->scope[i], name))
            return L->scope_arr[i];
    return false;
}

static int ls_push(ls_state *L, const char *name, bool arr)
{
    if (L->n_scope >= LS_VARS)
        return HK_EINVAL;
    L->scope[L->n_scope] = name;
    L->scope_arr[L->n_scope++] = arr;
    return HK_OK;
}

/* Tokens [a, b) of st, an array local read as name[hk_k] (only inside a per-element part). */
static int ls_put(ls_state *L, struct hk_buf *o, int st, size_t a, size_t b)
{
    int rc = HK_OK;
    for (size_t k = a; k < b && !rc; k++) {
        char t[160];
        const char *w = ls_tok(L, st, k, t, sizeof t);
        ls_var *v = ls_var_at(L, st, k);
        if (v && v->expr) {
            if (!L->perk && !(L->at0 && v->expr0))
                return HK_EINVAL;
            rc = hk_buf_printf(o, " %s", L->perk ? v->expr : v->expr0);
            continue;
        }
        rc = hk_buf_printf(o, " %s", w);
        if (!rc && v && ls_arr(L, v->name)) {
            if (!L->perk)
                return HK_EINVAL; /* an array outside the per-element parts: a classing bug */
            rc = hk_buf_appends(o, "[hk_k]");
        }
    }
    return rc;
}

static int ls_put_name(ls_state *L, struct hk_buf *o, const char *name)
{
    int rc = hk_buf_printf(o, " %s", name);
    if (!rc && ls_arr(L, name))
        rc = L->perk ? hk_buf_appends(o, "[hk_k]") : HK_EINVAL;
    return rc;
}

static int ls_emit_list(ls_state *L, struct hk_buf *o, int first, int count);

static int ls_open_k(ls_state *L, struct hk_buf *o)
{
    L->perk = 1;
    L->loops_in_perk = 0;
    return hk_buf_printf(o, "\n#pragma unroll\nfor (int hk_k = 0; hk_k < %d; hk_k++) {", L->CK); /* i18n: not for people */
}

static int ls_emit(ls_state *L, struct hk_buf *o, int ni)
{
    ls_node *d = &L->nd[ni];
    int rc = HK_OK;
    if (!L->perk && d->dep && d->kind != LS_BLOCK) {
        if (d->kind == LS_DECL) {
            rc = hk_buf_printf(o, "\n%s %s[%d];", d->atype, d->name, L->CK);
            if (!rc)
                rc = ls_push(L, d->name, true);
            if (!rc && d->b > d->a) {
                rc = ls_open_k(L, o);
                if (!rc)
                    rc = ls_put_name(L, o, d->name);
                if (!rc)
                    rc = hk_buf_appends(o, " =");
                if (!rc)
                    rc = ls_put(L, o, d->ist, d->a, d->b);
                if (!rc)
                    rc = hk_buf_appends(o, "; }");
                L->perk = 0;
            }
            return rc;
        }
        rc = ls_open_k(L, o);
        if (!rc)
            rc = ls_emit(L, o, ni);
        if (!rc)
            rc = hk_buf_appends(o, " }");
        L->perk = 0;
        return rc;
    }
    switch (d->kind) {
    case LS_DECL:
        rc = hk_buf_printf(o, "\n%s %s", d->type, d->name);
        if (!rc && d->b > d->a) {
            rc = hk_buf_appends(o, " =");
            L->at0 = d->guard && !L->perk;
            if (!rc)
                rc = ls_put(L, o, d->ist, d->a, d->b);
            L->at0 = false;
        }
        if (!rc)
            rc = hk_buf_appends(o, ";");
        if (!rc)
            rc = ls_push(L, d->name, false);
        break;
    case LS_ASSIGN:
        rc = hk_buf_appends(o, "\n");
        if (!rc)
            rc = ls_put_name(L, o, d->name);
        if (!rc)
            rc = hk_buf_printf(o, " = (%s)(", d->type);
        if (!rc)
            rc = ls_put(L, o, d->st, d->a, d->b);
        if (!rc)
            rc = hk_buf_appends(o, ");");
        break;
    case LS_EXPR:
    case LS_STORE:
        rc = hk_buf_appends(o, "\n");
        if (!rc)
            rc = ls_put(L, o, d->st, d->a, d->b);
        if (!rc)
            rc = hk_buf_appends(o, ";");
        break;
    case LS_JUMP:
        if (L->perk && !L->loops_in_perk)
            return HK_EUNSUPPORTED; /* refused before emitting (ls_jumps) */
        rc = hk_buf_appends(o, "\n");
        if (!rc)
            rc = ls_put(L, o, d->st, d->a, d->b);
        if (!rc)
            rc = hk_buf_appends(o, ";");
        break;
    case LS_BLOCK:
        rc = hk_buf_appends(o, "\n{");
        if (!rc)
            rc = ls_emit_list(L, o, d->k1, d->n1);
        if (!rc)
            rc = hk_buf_appends(o, "\n}");
        break;
    case LS_IF:
        rc = hk_buf_appends(o, "\nif (");
        if (!rc)
            rc = ls_put(L, o, d->st, d->a, d->b);
        if (!rc)
            rc = hk_buf_appends(o, ") {");
        if (!rc)
            rc = ls_emit_list(L, o, d->k1, d->n1);
        if (!rc)
            rc = hk_buf_appends(o, "\n}");
        if (!rc && d->k2 >= 0) {
            rc = hk_buf_appends(o, " else {");
            if (!rc)
                rc = ls_emit_list(L, o, d->k2, d->n2);
            if (!rc)
                rc = hk_buf_appends(o, "\n}");
        }
        break;
    case LS_FOR: {
        size_t save = L->n_scope;
        const rw_toks *ts = L->st[d->st].ts;
        rc = hk_buf_appends(o, "\nfor (");
        if (!rc)
            rc = ls_put(L, o, d->st, d->fi[0], d->fi[1]);
        for (size_t k = d->fi[0]; k < d->fi[1] && !rc; k++)
            if (rwl_tok_is(ts, k, "=") && rwl_starts_declaration(ts, d->fi[0])) {
                ls_var *v = ls_var_at(L, d->st, k - 1);
                if (v)
                    rc = ls_push(L, v->name, false);
                break;
            }
        if (!rc)
            rc = hk_buf_appends(o, ";");
        if (!rc)
            rc = ls_put(L, o, d->st, d->fi[2], d->fi[3]);
        if (!rc)
            rc = hk_buf_appends(o, ";");
        if (!rc)
            rc = ls_put(L, o, d->st, d->fi[4], d->fi[5]);
        if (!rc)
            rc = hk_buf_appends(o, ") {");
        L->loops_in_perk += L->perk;
        if (!rc)
            rc = ls_emit_list(L, o, d->k1, d->n1);
        L->loops_in_perk -= L->perk;
        if (!rc)
            rc = hk_buf_appends(o, "\n}");
        L->n_scope = save;
        break;
    }
    }
    return rc;
}

static int ls_emit_list(ls_state *L, struct hk_buf *o, int first, int count)
{
    size_t save = L->n_scope;
    int rc = HK_OK;
    for (int i = 0; i < count && !rc; i++)
        rc = ls_emit(L, o, L->kids[first + i]);
    L->n_scope = save;
    return rc;
}

/* A `continue`/`break` that would leave the per-element loop instead of its own: refused. */
static bool ls_jumps(ls_state *L, int first, int count, bool perk, int loops)
{
    for (int i = 0; i < count; i++) {
        ls_node *d = &L->nd[L->kids[first + i]];
        bool pk = perk || (d->dep && d->kind != LS_BLOCK);
        int lp = (pk && !perk) ? 0 : loops;
        if (d->kind == LS_JUMP && !lp && rwl_tok_is(L->st[d->st].ts, d->a, "break"))
            return LSREF(L, d->st, d->a, "early exit", EN(RW_CC_BREAK));
        if (d->kind == LS_JUMP && pk && !lp)
            return LSREF(L, d->st, d->a, "loop nest", EN(RW_CC_UNDER_CONDITION),
                         TOK(L->st[d->st].ts, d->a), TOK(L->s->ts, L->s->co_name[L->s->cj]));
        if (d->kind == LS_FOR && !ls_jumps(L, d->k1, d->n1, pk, lp + 1))
            return false;
        if ((d->kind == LS_IF || d->kind == LS_BLOCK) && !ls_jumps(L, d->k1, d->n1, pk, lp))
            return false;
        if (d->kind == LS_IF && d->k2 >= 0 && !ls_jumps(L, d->k2, d->n2, pk, lp))
            return false;
    }
    return true;
}

/* The arrays (per-element locals) a subtree names: marks seen[], and in decl[] those it declares. */
static void ls_names(ls_state *L, int first, int count, bool *seen, bool *decl)
{
    for (int i = 0; i < count; i++) {
        ls_node *d = &L->nd[L->kids[first + i]];
        size_t ranges[3][2] = {{d->a, d->b}, {0, 0}, {0, 0}};
        int rst = d->kind == LS_DECL ? d->ist : d->st;
        if (d->kind == LS_FOR) {
            ranges[0][0] = d->fi[0];
            ranges[0][1] = d->fi[5];
        }
        if (d->kind == LS_DECL || d->kind == LS_ASSIGN) {
            ls_var *v = ls_find(L, d->name);
            if (v) {
                seen[v - L->var] = true;
                if (d->kind == LS_DECL)
                    decl[v - L->var] = true;
            }
        }
        for (size_t k = ranges[0][0]; k < ranges[0][1]; k++) {
            ls_var *v = ls_var_at(L, rst, k);
            if (v)
                seen[v - L->var] = true;
        }
        if (d->k1 >= 0)
            ls_names(L, d->k1, d->n1, seen, decl);
        if (d->k2 >= 0)
            ls_names(L, d->k2, d->n2, seen, decl);
    }
}

/* Registers of per-element state a chunk element carries across the element's loops: the
 * arrays declared outside a once-run loop and named inside it (roi_align: the running max,
 * its two argmax values and the channel's feature pointer, 5). */
static void ls_carried(ls_state *L, int first, int count, bool *carried)
{
    for (int i = 0; i < count; i++) {
        ls_node *d = &L->nd[L->kids[first + i]];
        if (d->dep && d->kind != LS_BLOCK)
            continue;
        if (d->kind == LS_FOR) {
            bool seen[LS_VARS] = {0}, decl[LS_VARS] = {0};
            ls_names(L, d->k1, d->n1, seen, decl);
            for (size_t v = 0; v < L->n_var; v++)
                if (seen[v] && !decl[v] && L->var[v].vec && !L->var[v].expr)
                    carried[v] = true;
        }
        if (d->k1 >= 0)
            ls_carried(L, d->k1, d->n1, carried);
        if (d->k2 >= 0)
            ls_carried(L, d->k2, d->n2, carried);
    }
}

/* Loads the per-element statements of a list make (`[`), not counting those of a nested
 * once-run loop (its own step). */
static int ls_loads_dep(ls_state *L, int first, int count, bool perk)
{
    int n = 0;
    for (int i = 0; i < count; i++) {
        ls_node *d = &L->nd[L->kids[first + i]];
        bool pk = perk || (d->dep && d->kind != LS_BLOCK);
        if (d->kind == LS_FOR && !pk)
            continue;
        if (pk) {
            int st = d->kind == LS_DECL ? d->ist : d->st;
            size_t a = d->kind == LS_FOR ? d->fi[0] : d->a, b = d->kind == LS_FOR ? d->fi[5] : d->b;
            for (size_t k = a; k < b; k++) {
                const rw_toks *ts = L->st[st].ts;
                n += rwl_tok_is(ts, k, "[");
                if (L->keep_calls && st == 0 && rwl_tok_is(ts, k + 1, "(") && ls_reader(L->s, ts, k))
                    n += ls_reader_loads(L->s, ts, k); /* a kept call's gathers */
            }
        }
        if (d->k1 >= 0)
            n += ls_loads_dep(L, d->k1, d->n1, pk);
        if (d->k2 >= 0)
            n += ls_loads_dep(L, d->k2, d->n2, pk);
    }
    return n;
}

/* The most per-element loads one step of a once-run loop makes (roi_align: the 4 gathers of
 * a sample): values the compiler keeps in flight for every element at once. */
static int ls_step_loads(ls_state *L, int first, int count)
{
    int best = 0;
    for (int i = 0; i < count; i++) {
        ls_node *d = &L->nd[L->kids[first + i]];
        if (d->dep && d->kind != LS_BLOCK)
            continue;
        if (d->kind == LS_FOR) {
            int n = ls_loads_dep(L, d->k1, d->n1, false);
            if (n > best)
                best = n;
        }
        int m = 0;
        if (d->k1 >= 0)
            m = ls_step_loads(L, d->k1, d->n1);
        if (m > best)
            best = m;
        if (d->k2 >= 0)
            m = ls_step_loads(L, d->k2, d->n2);
        if (m > best)
            best = m;
    }
    return best;
}

/* ---- the chunk C_K when the caller leaves it to the rewrite (chunk 0) ----
 *
 * A larger chunk shares the c-free work among more elements (1 / C_K of it per element) and
 * puts more independent loads in flight per thread, but every element of the chunk keeps its
 * own state: registers about R0 + E * C_K, E the per-element registers (what an element
 * carries across the element's loops, its running max or accumulator and its channel
 * pointer, plus the per-element loads of one step, which the compiler keeps in flight for
 * all C_K at once), R0 ~ 40 the rest (carafe's one-element kernel has 40, roi_align's 45).
 * Calibrated on nothing but ptxas -v of the two kernels this rewrite takes: carafe E 3,
 * 48/64/80 registers at C_K 4/8/16 (model 52/64/88); roi_align E 9, 80/96/128 (model
 * 76/112/184, where ptxas caps itself at the 512-thread block's 128). The rule:
 *   1. the chunks must still fill the GPU: outputs / C_K >= its resident threads (SMs x
 *      warps per SM x 32, an H200's 132 x 64 x 32 when the device is not known), at the
 *      spec's first size (outputs: the spec's value of the loop's bound);
 *   2. the largest C_K whose estimate keeps half the SM's threads resident under the spec's
 *      block (carafe: 8, 64 registers, two blocks of 512);
 *   3. else the largest whose estimate fits the block's register limit (65536 / block, at
 *      most 128: the estimate is rough, and 128 still keeps a quarter of the SM's threads;
 *      roi_align: 8, 112 <= 128);
 *   4. else 4. */
#define CC_R0 40

static int chunk_choice(const rw_context *ctx, const cc_scan *s, int E, char *why, size_t n)
{
    static const int cand[] = {16, 8, 4};
    long long sm = ctx->sm_count > 0 ? ctx->sm_count : 132, wps = ctx->warps_per_sm > 0 ? ctx->warps_per_sm : 64;
    long long resident = sm * wps * 32, B = 256, outputs = -1;
    const spec *sp = ctx->spec;
    if (sp && sp->block[0] && sp->n_sizes) {
        expr_value v;
        char err[120];
        if (spec_eval(sp, sp->block[0], 0, sm, &v, err, sizeof err) == HK_OK && !v.is_float && v.i > 0 && v.i <= 1024)
            B = v.i;
        const rw_toks *ts = s->ts;
        const an_param *pa = s->lo.bnd_b == s->lo.bnd_a + 1 ? rwp_param_named(s->f, ts, s->lo.bnd_a) : NULL;
        size_t pi = pa ? (size_t)(pa - s->f->params) : 0;
        if (pa && pi < sp->n_args && sp->args[pi].value &&
            spec_eval(sp, sp->args[pi].value, 0, sm, &v, err, sizeof err) == HK_OK && !v.is_float && v.i > 0)
            outputs = v.i;
    }
    long long limit = 65536 / B > 128 ? 128 : 65536 / B;
    int pick = 0, fit = 0;
    int how = 2; /* 0 keeps half the SM's threads, 1 fits the register limit, 2 the smallest */
    for (size_t i = 0; i < HK_ARRAY_LEN(cand) && !pick; i++) {
        int c = cand[i];
        long long regs = CC_R0 + (long long)E * c;
        if (outputs > 0 && outputs / c < resident)
            continue;
        long long blocks = 65536 / (regs * B);
        if (blocks > 2048 / B)
            blocks = 2048 / B;
        if (blocks * B * 2 >= 2048) {
            pick = c;
            how = 0;
        } else if (!fit && regs <= limit)
            fit = c;
    }
    if (!pick && fit) {
        pick = fit;
        how = 1;
    }
    if (!pick) {
        pick = 4;
        how = 2;
    }
    /* one sentence per way it was chosen, with and without the GPU filled */
    static const enum hk_msg chosen[3][2] = {
        {HK_MSG_RW_CC_CHOSEN_HALF, HK_MSG_RW_CC_CHOSEN_HALF_FILL},
        {HK_MSG_RW_CC_CHOSEN_FITS, HK_MSG_RW_CC_CHOSEN_FITS_FILL},
        {HK_MSG_RW_CC_CHOSEN_SMALLEST, HK_MSG_RW_CC_CHOSEN_SMALLEST_FILL},
    };
    snprintf(why, n, hk_tr_in(HK_LANG_EN, chosen[how][outputs > 0]), pick, E, CC_R0 + E * pick, pick, B);
    return pick;
}

static int put_head(struct hk_buf *o, const cc_scan *s, int CK);

/* The group indices of c: a declaration at the element's top level `const I g = e;`, I an
 * integer type, whose e names c only as `c / X` and otherwise parameters (not pointers), the
 * other coordinates, numbers and pure calls, no load, no local (deform_im2col's
 * `deformable_group_index = c_im / channel_per_deformable_group`, carafe's mask group): a value
 * that consecutive c share except where a group ends. It is taken as c-free: the chunk
 * evaluates e at every c0 + k and, where one differs from c0's, runs the original body per
 * element (exact either way; the rule only picks which values are worth the check). */
static void ls_guards(ls_state *L, int first, int count)
{
    cc_scan *s = L->s;
    const rw_toks *ts = s->ts;
    for (int i = 0; i < count; i++) {
        ls_node *d = &L->nd[L->kids[first + i]];
        if (d->kind != LS_DECL || d->ist != 0 || d->st != 0 || d->b <= d->a || !d->type ||
            !strstr(d->type, "const") || strchr(d->type, '*') || strstr(d->type, "float") ||
            strstr(d->type, "double") || strstr(d->type, "half") || strstr(d->type, "bool"))
            continue;
        bool ok = true, names_c = false;
        for (size_t q = d->a; q < d->b && ok; q++) {
            if (rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "?") || rwl_tok_is(ts, q, "."))
                ok = false;
            if (ts->t[q].kind != T_IDENT)
                continue;
            if (rwl_same_tok(ts, q, s->co_name[s->cj])) {
                ok = rwl_tok_is(ts, q + 1, "/");
                names_c = true;
                continue;
            }
            bool coord = false;
            for (size_t t = 0; t < s->n_co; t++)
                coord |= rwl_same_tok(ts, q, s->co_name[t]);
            const an_param *pa = rwp_param_named(s->f, ts, q);
            if (coord || (pa && !pa->pointer_depth) || rwl_is_type_word(ts, q) || rwp_is_type_word(ts, q) ||
                (rwl_tok_is(ts, q + 1, "(") && rwl_pure_call_name(ts, q)))
                continue;
            ok = false;
        }
        if (ok && names_c) {
            d->guard = true;
            ls_find(L, d->name)->vec = false;
        }
    }
}

/* A chunk that the lockstep form does not take: the original body for each of its kn
 * elements, then the next chunk (closes the `if` the caller opened). */
static int put_fallback(struct hk_buf *o, const cc_scan *s)
{
    int rc = hk_buf_appends(o, "    for (int hk_k = 0; hk_k < hk_cc_kn; hk_k++) {\n");
    if (!rc)
        rc = put_coords(o, s, "hk_k", true);
    if (!rc)
        rc = put_range(o, s, s->co_end, s->lo.bb, false);
    if (!rc)
        rc = hk_buf_appends(o, "\n    }\n    continue;\n    }\n");
    return rc;
}

/* One reading of the lockstep chunk (lockstep); keep: calls to reader functions kept as calls.
 * *retry: the element selects by comparing floats and a call was inlined: read it again with
 * keep. */
static bool lockstep_pass(cc_scan *s, int CK, struct hk_buf *o, int *err, bool keep, bool *retry)
{
    const rw_toks *ts = s->ts;
    *err = HK_OK;
    s->why[0] = '\0';
    s->n_rd = 0;
    ls_state *L = calloc(1, sizeof *L);
    if (!L) {
        *err = HK_ENOMEM;
        return false;
    }
    bool ok = false;
    L->s = s;
    L->CK = CK;
    L->keep_calls = keep;
    L->st[0].ts = ts;
    L->n_st = 1;
    for (size_t t = 0; t < s->n_co; t++) {
        ls_var *v = ls_add(L, ls_name(L, 0, s->co_name[t]));
        if (v) {
            v->decl = true;
            v->vec = t == s->cj;
        }
    }
    ls_var *cv = ls_add(L, ls_name(L, 0, s->lo.v));
    if (!cv || L->n_var != s->n_co + 1) {
        refuse(s, s->lo.v, "coordinate", EN(RW_CC_NOT_DISTINCT), s->n_co + 1);
        goto done;
    }
    cv->vec = cv->decl = true;
    int first = 0, count = 0;
    size_t ba = s->co_end, bb = s->lo.bb;
    if (!ls_list(L, 0, ba, bb, &first, &count))
        goto done;
    ls_guards(L, first, count);
    for (int it = 0; it < 100; it++) {
        L->changed = false;
        ls_class(L, first, count, false);
        if (!L->changed)
            break;
    }
    {
        bool carried[LS_VARS] = {0};
        ls_carried(L, first, count, carried);
        s->state_regs = 0;
        for (size_t v = 0; v < L->n_var; v++)
            if (carried[v] && v >= s->n_co && L->var[v].name != cv->name)
                s->state_regs += L->var[v].size;
        s->state_regs += ls_step_loads(L, first, count);
    }
    {
        /* an argmax over floats: its compared values computed as the original computes them */
        const char *what = NULL;
        int sel = ls_selection(L, first, count, &what);
        if (sel >= 0 && !keep && L->n_st > 1) {
            *retry = true;
            goto done;
        }
        int con = sel >= 0 ? ls_contraction(L, first, count) : -1;
        if (con >= 0) {
            const ls_node *c = &L->nd[con], *d = &L->nd[sel];
            int cst = c->kind == LS_DECL || c->kind == LS_ASSIGN ? c->ist : c->st;
            LSREF(L, cst, c->a, "float selection",
                  EN(RW_CC_FLOAT_SELECT), what, rwl_line_at(s->text, L->st[d->st].ts->t[d->a].start));
            goto done;
        }
    }
    if (!L->n_stored) {
        refuse(s, bb - 1, "store", EN(RW_CC_STORES_NOTHING), TOK(ts, s->lo.v));
        goto done;
    }
    /* a store pointer that does not depend on c would have the chunk's elements store to one address */
    for (size_t v = 0; v < L->n_var; v++)
        if (L->var[v].sptr && !L->var[v].vec) {
            refuse(s, ba, "store", EN(RW_CC_STORE_PTR_INDEPENDENT), L->var[v].name, TOK(ts, s->co_name[s->cj]));
            goto done;
        }
    if (!ls_shares(L, first, count)) {
        refuse(s, ba, "load", EN(RW_CC_ALL_ELEM_LOADS_DEPEND),
               TOK(ts, s->co_name[s->cj]));
        goto done;
    }
    if (!ls_jumps(L, first, count, false, 0))
        goto done;
    /* the stored buffers: named only by their stores, never outside the loop, not aliasing a read */
    for (size_t i = 0; i < L->n_stored; i++) {
        const an_param *pb = L->stored[i];
        for (size_t q = 1; q + 1 < ts->n; q++) {
            if (!rwl_is_use(ts, q) || !rwp_param_named(s->f, ts, q) || rwp_param_named(s->f, ts, q) != pb ||
                in_sibling(s, q))
                continue;
            if (q < s->lo.ba || q >= s->lo.bb) {
                refuse(s, q, "store", EN(RW_CC_USED_OUTSIDE_LOOP), TOK(ts, q));
                goto done;
            }
            bool at_sptr = false;
            for (size_t k = 0; k < L->n_sptr; k++)
                at_sptr |= L->sptr_tok[k] == q;
            if (at_sptr || null_test_at(ts, q))
                continue;
            if (!(rwl_tok_is(ts, q + 1, "[") && rwl_same_tok(ts, q + 2, s->lo.v) && rwl_tok_is(ts, q + 3, "]") &&
                  rwl_tok_is(ts, q + 4, "=") && (rwl_tok_is(ts, q - 1, ";") || rwl_tok_is(ts, q - 1, "{") ||
                                                  rwl_tok_is(ts, q - 1, "}") || rwl_tok_is(ts, q - 1, ")")))) {
                refuse(s, q, "store", EN(RW_CC_NAMES_OTHER), TOK(ts, q), TOK(ts, q), TOK(ts, s->lo.v),
                       TOK(ts, q));
                goto done;
            }
        }
        for (size_t r = 0; r < s->n_rd; r++) {
            const an_param *rp = s->rd[r];
            if (pb->is_restrict || rp->is_restrict)
                continue;
            const an_launch *la = rwl_launch_passing_twice(s->m, s->f, (size_t)(pb - s->f->params),
                                                           (size_t)(rp - s->f->params));
            if (la) {
                refuse(s, s->lo.st, "store", EN(RW_CC_LAUNCH_ALIAS),
                       la->span.start_row + 1, la->args[pb - s->f->params], pb->name, rp->name);
                goto done;
            }
        }
    }
    /* emitted: the chunk's head, the coordinates (c and the counter: expressions of hk_k), the body */
    int rc = put_head(o, s, CK);
    /* a chunk short of C_K elements (the last of c's range, the end of the counter's): the
     * original body per element (the lockstep form has no per-element guards: they cost the
     * compiler registers, 165 against 80 for roi_align at C_K 4) */
    if (!rc)
        rc = hk_buf_printf(o, "    if (hk_cc_kn < %d) {\n", CK);
    if (!rc)
        rc = put_fallback(o, s);
    for (size_t t = 0; t < s->n_co && !rc; t++) {
        if (t == s->cj) {
            const char *at = ls_atype(L, 0, s->co_a[t], s->co_name[t]);
            char e[300];
            snprintf(e, sizeof e, "((%s)(hk_cc_c0 + hk_k))", at ? at : "int");
            L->var[t].expr = ls_str(L, e, strlen(e));
            snprintf(e, sizeof e, "((%s)(hk_cc_c0))", at ? at : "int");
            L->var[t].expr0 = ls_str(L, e, strlen(e));
        } else {
            rc = hk_buf_append(o, s->text + ts->t[s->co_a[t]].start,
                               ts->t[s->co_name[t]].end - ts->t[s->co_a[t]].start);
            if (!rc)
                rc = hk_buf_printf(o, " = hk_cc_d%zu;\n", t);
        }
    }
    /* the group indices (ls_guards): the same at every c0 + k, else the original body per element */
    bool guards = false;
    for (int i = 0; i < count; i++)
        guards |= L->nd[L->kids[first + i]].guard;
    if (guards && !rc) {
        rc = hk_buf_printf(o, "    bool hk_cc_same = true;\n#pragma unroll\n    for (int hk_k = 1; hk_k < %d; hk_k++) {", CK); /* i18n: not for people */
        for (int i = 0; i < count && !rc; i++) {
            ls_node *d = &L->nd[L->kids[first + i]];
            if (!d->guard)
                continue;
            rc = hk_buf_appends(o, "\n        hk_cc_same = hk_cc_same && (");
            L->perk = 1;
            if (!rc)
                rc = ls_put(L, o, 0, d->a, d->b);
            L->perk = 0;
            L->at0 = true;
            if (!rc)
                rc = hk_buf_appends(o, ") == (");
            if (!rc)
                rc = ls_put(L, o, 0, d->a, d->b);
            L->at0 = false;
            if (!rc)
                rc = hk_buf_appends(o, ");");
        }
        if (!rc)
            rc = hk_buf_appends(o, "\n    }\n    if (!hk_cc_same) {\n");
        if (!rc)
            rc = put_fallback(o, s);
    }
    cv->expr = "(hk_cc_base + (hk_cc_c0 + hk_k) * hk_cc_sj)";
    if (!rc)
        rc = ls_emit_list(L, o, first, count);
    if (!rc)
        rc = hk_buf_appends(o, "\n    }\n    } else {\n    ");
    if (!rc)
        rc = hk_buf_append(o, s->text + ts->t[s->lo.st].start, ts->t[s->lo.se - 1].end - ts->t[s->lo.st].start);
    if (!rc)
        rc = hk_buf_appends(o, "\n    }\n}");
    if (rc) {
        *err = rc == HK_ENOMEM ? rc : HK_OK;
        if (!*err)
            refuse(s, ba, "statement", EN(RW_CC_LOCKSTEP_UNWRITTEN), rc);
        goto done;
    }
    ok = true;
done:
    for (size_t i = 1; i < L->n_st; i++)
        rwl_toks_free(&L->st[i].own);
    free(L);
    return ok;
}

/* The lockstep chunk for coordinate s->cj: true with the emitted text in o, false with the
 * refusal in s->why. *err: an error other than a refusal. An element that selects by comparing
 * floats (ls_selection: roi_align's argmax) keeps its calls to functions of the file as calls
 * (ls_reader), so that nvcc compiles their float arithmetic from their own body, per element,
 * as in the original (inlined into the chunk it fused another product of roi_align's
 * interpolation); a product and a sum of its own per element are refused (ls_contraction). */
static bool lockstep(cc_scan *s, int CK, struct hk_buf *o, int *err)
{
    bool retry = false;
    bool ok = lockstep_pass(s, CK, o, err, false, &retry);
    if (!ok && retry && !*err)
        return lockstep_pass(s, CK, o, err, true, &retry);
    if (!ok && !*err) {
        /* inlining refused: the element read again with its reader calls kept as calls (each
         * is a function of its arguments, run per element where an argument depends on c);
         * where that is refused too, the first reading's reason stands */
        char why[sizeof s->why];
        snprintf(why, sizeof why, "%s", s->why);
        size_t before = o->len;
        ok = lockstep_pass(s, CK, o, err, true, &retry);
        if (!ok && !*err) {
            o->len = before;
            snprintf(s->why, sizeof s->why, "%s", why);
        }
    }
    return ok;
}

static int channel_chunks(const rw_context *ctx, int CK, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    if ((CK < 2 && CK != 0) || CK > 64)
        return HK_EINVAL;
    bool chosen = CK == 0; /* chunk_choice picks it once the element is read */
    char choice[300] = "";
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
    bool lock = false;
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
            refuse(s, k, "loop", EN(RW_CC_CHUNKED_ALREADY));
            goto refused;
        }
    /* each grid-stride loop in turn (one in a branch of a uniform if/else: bbox_overlaps' aligned
     * and all-pairs loops), the first that takes a chunk */
    size_t nth = 0;
    const int CK0 = CK;
    char why0[sizeof s->why] = "", why1[sizeof s->why] = "";
retry:
    CK = CK0;
    hk_buf_reset(&nb);
    {
        cc_scan keep = *s;
        memset(s, 0, sizeof *s);
        s->text = keep.text, s->len = keep.len, s->ts = keep.ts, s->f = keep.f, s->m = keep.m;
    }
    lock = false;
    if (!rwpt_grid_loop_in(text, len, f, ctx->m, &ts, km, nth, true, &s->lo, s->why, sizeof s->why)) {
        if (nth == 1)
            snprintf(s->why, sizeof s->why, "%s", why0);
        else if (nth)
            snprintf(s->why, sizeof s->why, EN(RW_CC_NEXT_LOOP), why0, why1);
        goto refused;
    }
    /* what no chunk may hold, wherever it stands in the element */
    for (size_t q = s->lo.ba; q < s->lo.bb; q++) {
        size_t l = ts.t[q].end - ts.t[q].start;
        const char *c = text + ts.t[q].start;
        if (ts.t[q].kind != T_IDENT)
            continue;
        if (l >= 6 && !memcmp(c, "atomic", 6)) {
            refuse(s, q, "atomic", EN(RW_CC_IN_ELEM_NOT_STORE), TOK(&ts, q));
            goto next_loop;
        }
        if ((l >= 6 && (!memcmp(c, "__sync", 6) || !memcmp(c, "__shfl", 6))) || (l >= 8 && !memcmp(c, "__ballot", 8))) {
            refuse(s, q, "barrier", EN(RW_CC_OTHER_COUNTS), TOK(&ts, q));
            goto next_loop;
        }
        /* a macro of the file could read the counter, a thread index or memory unseen */
        size_t at = 0, ma, mb;
        if (rwl_is_use(&ts, q) && !rwp_param_named(f, &ts, q) &&
            rwl_next_define(text, len, &at, c, l, &ma, &mb)) {
            refuse(s, q, "macro", EN(RW_CC_MACRO), TOK(&ts, q));
            goto next_loop;
        }
    }
    /* the coordinates: the body's first statements */
    {
        size_t p = s->lo.ba;
        while (p < s->lo.bb && !coords_complete(s)) {
            size_t e = stmt_end(&ts, p, s->lo.bb);
            bool reads = false;
            for (size_t q = p; q < e; q++)
                reads |= rwl_same_tok(&ts, q, s->lo.v);
            if (!reads || e <= p)
                break;
            if (s->n_co >= CC_COORDS) {
                refuse(s, p, "coordinate", EN(RW_CC_TOO_MANY_COORDS), CC_COORDS);
                goto next_loop;
            }
            if (!coordinate(s, p, e, s->n_co))
                goto next_loop;
            s->n_co++;
            p = e;
        }
        if (!coords_complete(s) || s->n_co < 2) {
            refuse(s, s->lo.ba, "coordinate", "%s", EN(RW_CC_NO_COORDS));
            goto next_loop;
        }
        if (!order_coords(s))
            goto next_loop;
        for (size_t t = 0; t < s->n_co; t++)
            for (size_t q = s->lo.ba; q < s->lo.bb; q++)
                if (rwl_same_tok(&ts, q, s->co_name[t]) && q != s->co_name[t] && rwl_is_use(&ts, q) && rwl_scalar_written(&ts, q)) {
                    refuse(s, q, "coordinate", EN(RW_CC_WRITES_COORD), TOK(&ts, q));
                    goto next_loop;
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
        if (!first[0])
            refuse(s, s->lo.ba, "coordinate", EN(RW_CC_FEW_COORDS), s->n_co),
                snprintf(first, sizeof first, "%s", s->why);
        /* the general form: any element whose c-free part can run once (lockstep) */
        char second[700] = "";
        /* the outer coordinates with a modulus first (as before), then the last one (no modulus:
         * deform_im2col's channel, bbox_overlaps' first box) */
        for (size_t i = 0; i + 1 < s->n_co && !ok && !rc; i++) {
            size_t cj = i + 2 < s->n_co ? s->n_co - 2 - i : s->n_co - 1;
            s->cj = cj;
            hk_buf_reset(&nb);
            lock = lockstep(s, chosen ? 8 : CK, &nb, &rc);
            ok = lock;
            if (!ok && !second[0])
                snprintf(second, sizeof second, "%s", s->why);
        }
        if (lock && chosen) {
            CK = chunk_choice(ctx, s, s->state_regs, choice, sizeof choice);
            hk_buf_reset(&nb);
            ok = lockstep(s, CK, &nb, &rc);
        }
        if (rc)
            goto out;
        if (!ok) {
            snprintf(s->why, sizeof s->why, EN(RW_CC_LOCKSTEP_WHY), first, second);
            goto next_loop;
        }
    }
    goto chunked;
next_loop:
    if (rc)
        goto out;
    snprintf(nth ? why1 : why0, sizeof why0, "%s", s->why);
    nth++;
    goto retry;
chunked:
    /* the nest's extent */
    s->nest_a = s->acc_e;
    s->nest_e = s->st_a;
    if (!lock && chosen) {
        /* the accumulator, the per-element declarations of the update, its unshared loads */
        int E = 1 + (int)s->n_vdecl, loads = 0;
        for (size_t q = s->upd_a + 2; q + 1 < s->upd_e; q++)
            loads += rwl_tok_is(&ts, q, "[");
        E += loads > (int)s->n_ld ? loads - (int)s->n_ld : 0;
        CK = chunk_choice(ctx, s, E, choice, sizeof choice);
    }
    if (!lock && (rc = emit_chunks(s, CK, &nb)))
        goto out;
    if ((rc = rwl_edits_add(&es, ts.t[s->lo.st].start, ts.t[s->lo.se - 1].end, nb.data)))
        goto out;
    {
        char *desc = lock ? hk_asprintf(EN(RW_CC_DESC_LOCKSTEP),
                                        f->name, rwl_line_at(text, ts.t[s->lo.st].start), CK,
                                        TOK(&ts, s->co_name[s->cj]), CK - 1, TOK(&ts, s->co_name[s->cj]), CK)
                           : hk_asprintf(s->n_ld > 1 ? EN(RW_CC_DESC_LOADS) : EN(RW_CC_DESC_LOAD),
                                 f->name, rwl_line_at(text, ts.t[s->lo.st].start), CK, TOK(&ts, s->co_name[s->cj]),
                                 CK - 1, s->n_ld, CK, CK);
        if (desc && choice[0]) {
            char *d2 = hk_asprintf("%s (%s)", desc, choice);
            hk_free(desc);
            desc = d2;
        }
        rc = rwl_finish(text, len, ctx->m, f->name, &es, desc, out);
        if (rc == HK_OK && out->applicable) {
            out->grid_divisor = (unsigned)CK;
            out->grid_axis = 0;
        }
    }
    goto out;
refused:
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "channel_chunks", f->name,
                                             s->why[0] ? s->why : EN(RW_NO_REASON)));
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
    /* 0: chosen by the kernel's per-element state and the GPU's threads (chunk_choice) */
    {.name = "chunk", .type = RW_PARAM_ENUM, .values = {0, 8, 4, 16}, .n_values = 4, .def = 0},
};

static int emit_channel_chunks(const rw_context *c, const int *p, rw_result *out)
{
    return channel_chunks(c, p[0], out);
}

const rw_descriptor rw_channel_chunks_desc = {
    .name = "channel_chunks",
    .summary = "a thread takes C_K elements that differ only in an outer coordinate c and loads what does not " /* i18n: not for people */
               "depend on c once for them (C_K accumulators, the grid divided by C_K; exact)",
    .params = chunks_params,
    .n_params = HK_ARRAY_LEN(chunks_params),
    .flags = RW_ALGORITHM,
    .emit = emit_channel_chunks,
};
