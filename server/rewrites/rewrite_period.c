/* periodic_trips: a grid-stride loop over n whose body reads its counter only as the
 * coordinates of a mixed-radix index that all end in a modulo (`i % A`, `(i / A) % B`,
 * `i / A / B % C`) does the same work for i and for i + A*B*C: the trips past that period
 * repeat stores of the same values to the same places. The loop stops at min(n, period). */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"
#include "rewrites/rewrite_period.h"

#include "core/buf.h"
#include "core/hk.h"
#include "model/kmodel.h"
#include "core/i18n.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* Why: mmcv launches tin_shift over nthreads = N*T*C*HW (the output's size) while its body
 * decomposes the counter as (index % HW, index / HW % C, index / HW / C % N): a function of
 * index mod N*C*HW. The grid-stride loop therefore runs every (n, c, hw) column T times, each
 * time copying the same T elements again; on the H200 that is T times the traffic (11% of
 * the roofline at T = 8). Any kernel launched with a count larger than its decomposition's
 * extent, whose last coordinate wraps with `% batch`, does the same.
 *
 * Proof of equivalence. Let P be the product of the factors below (a common multiple of
 * every use's own period). For a non-negative counter i = q*P + r and positive divisors,
 * i % A = r % A, (i / A) % B = (r / A) % B, i / A / B % C = (r / A / B) % C (floor
 * division of non-negative integers), and a parenthesised product of divisors divides the
 * same way: every expression of the body that reads i has the same value at i and at r.
 * The body reads nothing else that changes with i: no thread or block coordinate, no local
 * declared outside the loop that the loop writes, no memory the kernel writes; so the trip
 * at i does exactly what the trip at r does: it computes the same values and stores them
 * with plain `=` (no +=, no atomic) to the same places. The counter starts at the global
 * thread index and steps by blockDim * gridDim, so the grid runs every i in [0, n) once;
 * with the bound min(n, P) it runs every r in [0, min(n, P)), and every trip it drops
 * (i >= P, i < n) is a repeat of the trip at r = i mod P < min(n, P), which still runs. A
 * store that two different trips make with different values would be a race in the
 * original (the trips run on different threads, or on one thread in an order the grid
 * decides); a race-free kernel ends with the same memory. Nothing follows the loop in the
 * kernel, so no code sees which trips its own thread ran. The period is computed at run
 * time, in long long, and used only when every factor is positive and the product does not
 * overflow; otherwise the loop keeps n. */

#define PT_FACTORS 16
#define PT_BUFS 16

typedef struct {
    const char *text;
    size_t len;
    const rw_toks *ts;
    const an_function *f;
    const an_model *m;
    size_t v;                 /* a token naming the counter */
    size_t ba, bb;            /* the loop body's tokens */
    char fac[PT_FACTORS][96]; /* the period's factors (squeezed text), with multiplicity */
    size_t n_fac;
    const an_param *wr[PT_BUFS], *rd[PT_BUFS];
    size_t n_wr, n_rd;
    char why[700];
} pt_scan;

#define refuse(s, k, ...) rwl_refuse((s)->why, sizeof (s)->why, (s)->ts, (s)->text, (k), __VA_ARGS__)
#define TOK(ts, k) (int)((ts)->t[k].end - (ts)->t[k].start), (ts)->text + (ts)->t[k].start

static bool builtin_name(const rw_toks *ts, size_t k)
{
    static const char *const b[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize",
                                    "hipThreadIdx_x", "hipBlockIdx_x", "hipBlockDim_x", "hipGridDim_x"};
    for (size_t i = 0; i < HK_ARRAY_LEN(b); i++)
        if (rwl_tok_is(ts, k, b[i]))
            return true;
    return false;
}

static bool is_keyword(const rw_toks *ts, size_t k)
{
    static const char *const kw[] = {"return", "if", "else", "for", "while", "do", "goto", "break", "continue",
                                     "switch", "case", "default", "sizeof", "true", "false", "nullptr", "NULL"};
    for (size_t i = 0; i < HK_ARRAY_LEN(kw); i++)
        if (rwl_tok_is(ts, k, kw[i]))
            return true;
    return false;
}

/* An operand: an identifier or number (not called, subscripted or a member), or a
 * parenthesised one. */
static bool operand_end(const rw_toks *ts, size_t p, size_t end, size_t *after)
{
    if (p >= end)
        return false;
    if (rwl_tok_is(ts, p, "(")) {
        size_t c = rwl_match_close(ts, p);
        if (c >= end)
            return false;
        *after = c + 1;
        return true;
    }
    if (ts->t[p].kind != T_IDENT && ts->t[p].kind != T_NUMBER)
        return false;
    if (p + 1 < end && (rwl_tok_is(ts, p + 1, "(") || rwl_tok_is(ts, p + 1, "[") || rwl_tok_is(ts, p + 1, ".") ||
                        rwl_tok_is(ts, p + 1, "->") || rwl_tok_is(ts, p + 1, "::")))
        return false;
    *after = p + 1;
    return true;
}

/* Is the name at q declared anywhere in the kernel's body tokens (a local that could hide a
 * parameter)? */
static bool declared_in_body(const rw_toks *ts, size_t q)
{
    for (size_t k = 1; k + 1 < ts->n; k++)
        if (rwl_same_tok(ts, k, q) && rwl_declared_here(ts, k))
            return true;
    return false;
}

/* A factor of a divisor: an integer literal, or a scalar integer parameter the kernel
 * never writes nor hides behind a local. Appends it (squeezed) to *fac. */
static bool one_factor(pt_scan *s, size_t p, char fac[][96], size_t *n)
{
    const rw_toks *ts = s->ts;
    if (*n >= PT_FACTORS)
        return refuse(s, p, "divisor", EN(RW_PT_TOO_MANY_FACTORS), PT_FACTORS);
    if (ts->t[p].kind == T_NUMBER) {
        const char *c = ts->text + ts->t[p].start;
        size_t l = ts->t[p].end - ts->t[p].start;
        for (size_t i = 0; i < l; i++)
            if (c[i] == '.' || ((c[i] == 'e' || c[i] == 'E') && !(l > 1 && (c[1] == 'x' || c[1] == 'X'))))
                return refuse(s, p, "divisor", EN(RW_PT_DIVISOR_NOT_INT), TOK(ts, p));
    } else {
        const an_param *pa = rwp_param_named(s->f, ts, p);
        if (!pa || pa->pointer_depth != 0)
            return refuse(s, p, "divisor", EN(RW_PT_DIVISOR_NOT_PARAM), TOK(ts, p));
        if (strstr(pa->type, "float") || strstr(pa->type, "double") || strstr(pa->type, "half"))
            return refuse(s, p, "divisor", EN(RW_PT_DIVISOR_NOT_INT), TOK(ts, p));
        if (declared_in_body(ts, p))
            return refuse(s, p, "divisor", EN(RW_PT_LOCAL_HIDES), TOK(ts, p));
        for (size_t k = 1; k + 1 < ts->n; k++)
            if (rwl_is_use(ts, k) && rwl_same_tok(ts, k, p) && rwl_scalar_written(ts, k))
                return refuse(s, k, "divisor", EN(RW_PT_DIVISOR_WRITTEN), TOK(ts, p));
    }
    snprintf(fac[*n], sizeof fac[0], "%.*s", TOK(ts, p));
    (*n)++;
    return true;
}

/* The factors of operand [p, e): one factor, or a parenthesised product of them. */
static bool factors(pt_scan *s, size_t p, size_t e, char fac[][96], size_t *n)
{
    const rw_toks *ts = s->ts;
    if (rwl_tok_is(ts, p, "(")) {
        size_t q = p + 1;
        while (q < e - 1) {
            size_t after;
            if (!operand_end(ts, q, e - 1, &after))
                return refuse(s, q, "divisor", EN(RW_PT_DIVISOR_NOT_PRODUCT));
            if (!factors(s, q, after, fac, n))
                return false;
            q = after;
            if (q < e - 1 && !rwl_tok_is(ts, q, "*"))
                return refuse(s, q, "divisor", EN(RW_PT_DIVISOR_NOT_PRODUCT));
            if (q < e - 1)
                q++;
        }
        return true;
    }
    return one_factor(s, p, fac, n);
}

/* Can the token before a chain's start bind to it more tightly than its own `/` and `%`
 * (a product, a unary operator, a cast)? Whitelist of what cannot. */
static bool loose_before(const rw_toks *ts, size_t k)
{
    static const char *const ok[] = {"(", "[", ",", "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=",
                                     "?", ":", "<", ">", "<=", ">=", "==", "!=", "&&", "||", "|", "^", "<<", ">>",
                                     "{", ";"};
    for (size_t i = 0; i < HK_ARRAY_LEN(ok); i++)
        if (rwl_tok_is(ts, k, ok[i]))
            return true;
    /* binary + - &: after an operand */
    if ((rwl_tok_is(ts, k, "+") || rwl_tok_is(ts, k, "-") || rwl_tok_is(ts, k, "&")) && k > 0 &&
        ((ts->t[k - 1].kind == T_IDENT && !is_keyword(ts, k - 1)) || ts->t[k - 1].kind == T_NUMBER ||
         rwl_tok_is(ts, k - 1, ")") || rwl_tok_is(ts, k - 1, "]")))
        return true;
    return false;
}

/* The use of the counter at q: `q / F / F ... % F` with grouping parentheses around a prefix
 * of the chain. Its factors (the divisors and the modulus) are merged into s->fac (the
 * largest multiplicity of each). */
static bool coordinate(pt_scan *s, size_t q)
{
    const rw_toks *ts = s->ts;
    size_t a = q, p = q + 1, end = s->bb;
    char fac[PT_FACTORS][96];
    size_t n = 0;
    bool mod = false;
    for (;;) {
        while (p < end && rwl_tok_is(ts, p, "/")) {
            size_t after;
            if (!operand_end(ts, p + 1, end, &after))
                return refuse(s, p, "counter", EN(RW_PT_DIV_OPERAND), TOK(ts, q));
            if (!factors(s, p + 1, after, fac, &n))
                return false;
            p = after;
        }
        /* `( chain )` grouping, not a call's or a cast's parentheses */
        if (p < end && rwl_tok_is(ts, p, ")") && a > s->ba && rwl_tok_is(ts, a - 1, "(") &&
            rwl_match_close(ts, a - 1) == p &&
            !(a - 1 > 0 && ((ts->t[a - 2].kind == T_IDENT && !is_keyword(ts, a - 2)) || rwl_tok_is(ts, a - 2, ")") ||
                            rwl_tok_is(ts, a - 2, "]")))) {
            a--;
            p++;
            continue;
        }
        break;
    }
    if (p < end && rwl_tok_is(ts, p, "%")) {
        size_t after;
        if (!operand_end(ts, p + 1, end, &after))
            return refuse(s, p, "counter", EN(RW_PT_MOD_OPERAND), TOK(ts, q));
        if (!factors(s, p + 1, after, fac, &n))
            return false;
        mod = true;
    }
    if (!mod)
        return refuse(s, q, "counter", EN(RW_PT_COUNTER_USE),
                      TOK(ts, q), TOK(ts, q), TOK(ts, q));
    if (a == 0 || !loose_before(ts, a - 1))
        return refuse(s, a ? a - 1 : a, "counter", EN(RW_PT_BINDS_FIRST), TOK(ts, a ? a - 1 : a), TOK(ts, q));
    /* merge: the largest multiplicity of each factor */
    for (size_t i = 0; i < n; i++) {
        size_t mine = 0, have = 0;
        for (size_t j = 0; j <= i; j++)
            mine += !strcmp(fac[j], fac[i]);
        for (size_t j = 0; j < s->n_fac; j++)
            have += !strcmp(s->fac[j], fac[i]);
        if (mine > have) {
            if (s->n_fac >= PT_FACTORS)
                return refuse(s, q, "counter", EN(RW_PT_TOO_MANY_FACTORS), PT_FACTORS);
            snprintf(s->fac[s->n_fac++], sizeof s->fac[0], "%s", fac[i]);
        }
    }
    return true;
}

/* Is the name at q a local of one trip: declared in the body before q, and named by no
 * parameter and no declaration of the kernel outside the body (so that no use before a
 * nested declaration can mean an outer variable)? */
static bool local_of_body(const pt_scan *s, size_t q)
{
    const rw_toks *ts = s->ts;
    bool before = false;
    for (size_t k = s->ba; k <= q && !before; k++)
        before = rwl_same_tok(ts, k, q) && rwl_declared_here(ts, k);
    if (!before || rwp_param_named(s->f, ts, q))
        return false;
    for (size_t k = 1; k + 1 < ts->n; k++)
        if ((k < s->ba || k >= s->bb) && rwl_same_tok(ts, k, q) && rwl_declared_here(ts, k))
            return false;
    return true;
}

/* Does the body declare the name at q anywhere (a local that would hide it)? */
static bool body_declares(const pt_scan *s, size_t q)
{
    for (size_t k = s->ba; k < s->bb; k++)
        if (rwl_same_tok(s->ts, k, q) && rwl_declared_here(s->ts, k))
            return true;
    return false;
}

/* Does a #define of the name at q (an object-like or function-like macro of the file) name
 * a thread or grid coordinate, a clock, an atomic, a warp operation or the counter (what the
 * body may not read through a macro either)? */
static bool macro_hides(const pt_scan *s, size_t q)
{
    const rw_toks *ts = s->ts;
    size_t at = 0, a, b;
    while (rwl_next_define(s->text, s->len, &at, ts->text + ts->t[q].start, ts->t[q].end - ts->t[q].start, &a, &b)) {
        static const char *const words[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "hipThreadIdx",
                                            "hipBlockIdx", "clock", "atomic", "__shfl", "__sync", "laneid"};
        /* the counter's name as a word: a read of it the coordinate check would not see */
        size_t vl = ts->t[s->v].end - ts->t[s->v].start;
        const char *vn = ts->text + ts->t[s->v].start;
        for (size_t c = a; c + vl <= b; c++)
            if (!memcmp(s->text + c, vn, vl) && (c == a || !(isalnum((unsigned char)s->text[c - 1]) || s->text[c - 1] == '_')) &&
                !(c + vl < b && (isalnum((unsigned char)s->text[c + vl]) || s->text[c + vl] == '_')))
                return true;
        for (size_t i = 0; i < HK_ARRAY_LEN(words); i++) {
            const char *w = words[i];
            size_t wl = strlen(w);
            for (size_t c = a; c + wl <= b; c++)
                if (!memcmp(s->text + c, w, wl))
                    return true;
        }
    }
    return false;
}

static bool add_buf(const an_param **v, size_t *n, const an_param *p)
{
    for (size_t i = 0; i < *n; i++)
        if (v[i] == p)
            return true;
    if (*n >= PT_BUFS)
        return false;
    v[(*n)++] = p;
    return true;
}

/* The lvalue ending just before the assignment operator at k: a local of the body, or
 * `P[...]` with P a pointer parameter (plain `=` only). */
static bool check_store(pt_scan *s, size_t k)
{
    const rw_toks *ts = s->ts;
    bool plain = rwl_tok_is(ts, k, "=");
    size_t l = k - 1;
    if (rwl_tok_is(ts, k, "++") || rwl_tok_is(ts, k, "--")) {
        /* x++ or ++x: the name next to it */
        if (k > s->ba && ts->t[k - 1].kind == T_IDENT)
            l = k - 1;
        else if (k + 1 < s->bb && ts->t[k + 1].kind == T_IDENT)
            l = k + 1;
        else
            return refuse(s, k, "write", EN(RW_PT_NOT_LOCAL), TOK(ts, k));
        plain = false;
    }
    if (ts->t[l].kind == T_IDENT) {
        if (rwl_same_tok(ts, l, s->v))
            return refuse(s, l, "loop", EN(RW_PT_CHANGES_COUNTER), TOK(ts, l));
        if (l > s->ba && (rwl_tok_is(ts, l - 1, ".") || rwl_tok_is(ts, l - 1, "->")))
            return refuse(s, l, "write", EN(RW_PT_MEMBER_STORE), TOK(ts, l - 1), TOK(ts, l));
        if (rwl_declared_here(ts, l) || local_of_body(s, l))
            return true;
        return refuse(s, l, "write", EN(RW_PT_CARRIED), TOK(ts, l));
    }
    if (!rwl_tok_is(ts, l, "]"))
        return refuse(s, l, "write", EN(RW_PT_STORE_UNFOLLOWED), TOK(ts, l), TOK(ts, k));
    /* find the subscript's base */
    size_t o = l;
    int depth = 0;
    for (;;) {
        if (rwl_tok_is(ts, o, "]") || rwl_tok_is(ts, o, ")"))
            depth++;
        else if (rwl_tok_is(ts, o, "[") || rwl_tok_is(ts, o, "(")) {
            depth--;
            if (!depth && !(o > s->ba && rwl_tok_is(ts, o - 1, "]")))
                break;
        }
        if (o == s->ba)
            break;
        o--;
    }
    if (o == s->ba || ts->t[o - 1].kind != T_IDENT)
        return refuse(s, o, "write", EN(RW_PT_STORE_EXPR));
    size_t b = o - 1;
    if (local_of_body(s, b))
        return true;   /* a local array of one trip */
    const an_param *pa = rwp_param_named(s->f, ts, b);
    if (!pa || pa->pointer_depth != 1 || declared_in_body(ts, b))
        return refuse(s, b, "write", EN(RW_PT_STORE_OTHER), TOK(ts, b));
    if (!plain)
        return refuse(s, k, "write", EN(RW_PT_COMBINES), TOK(ts, b), TOK(ts, k));
    if (!add_buf(s->wr, &s->n_wr, pa))
        return refuse(s, b, "write", EN(RW_PT_TOO_MANY_BUFFERS), PT_BUFS);
    return true;
}

/* May the loop store through w while another trip reads r? Yes when one is __restrict__
 * or no launch of the kernel in the file passes both the same expression (rw_restrict's
 * rule, as load_batching's). */
static bool alias_ok(pt_scan *s, const an_param *w, const an_param *r, size_t at)
{
    if (w->is_restrict || r->is_restrict)
        return true;
    if (w == r)
        return refuse(s, at, "store", EN(RW_PT_WRITES_READS), r->name);
    size_t wi = (size_t)(w - s->f->params), ri = (size_t)(r - s->f->params);
    const an_launch *la = rwl_launch_passing_twice(s->m, s->f, wi, ri);
    if (la)
        return refuse(s, at, "store", EN(RW_PT_LAUNCH_ALIASES),
                      la->span.start_row + 1, la->args[wi], w->name, r->name);
    return true;
}

/* The body [ba, bb): what it may do (see the proof above). */
static bool read_body(pt_scan *s)
{
    const rw_toks *ts = s->ts;
    for (size_t q = s->ba; q < s->bb; q++) {
        if (ts->t[q].kind == T_IDENT) {
            size_t l = ts->t[q].end - ts->t[q].start;
            const char *c = ts->text + ts->t[q].start;
            if (builtin_name(ts, q))
                return refuse(s, q, "thread index", EN(RW_PT_THREAD_DEPENDENT), TOK(ts, q));
            if ((l >= 6 && !memcmp(c, "__sync", 6)) || (l >= 6 && !memcmp(c, "__shfl", 6)) ||
                (l >= 8 && !memcmp(c, "__ballot", 8)) || rwl_tok_is(ts, q, "__syncthreads") ||
                rwl_tok_is(ts, q, "__activemask") || rwl_tok_is(ts, q, "sync"))
                return refuse(s, q, "barrier", EN(RW_PT_TRIP_COUNTS),
                              TOK(ts, q));
            if (l >= 6 && !memcmp(c, "atomic", 6))
                return refuse(s, q, "atomic", EN(RW_PT_COMBINES_AGAIN), TOK(ts, q));
            if (rwl_tok_is(ts, q, "return") || rwl_tok_is(ts, q, "goto") || rwl_tok_is(ts, q, "asm") ||
                rwl_tok_is(ts, q, "__shared__") || rwl_tok_is(ts, q, "static") || rwl_tok_is(ts, q, "volatile"))
                return refuse(s, q, rwl_tok_is(ts, q, "return") || rwl_tok_is(ts, q, "goto") ? "early exit" : "statement",
                              EN(RW_PT_IN_LOOP), TOK(ts, q));
            if (rwl_tok_is(ts, q, "break") && !rwl_in_nested(ts, s->ba, s->bb, q, true))
                return refuse(s, q, "early exit", EN(RW_PT_BREAK));
            if (q + 1 < s->bb && rwl_tok_is(ts, q + 1, "(") && !is_keyword(ts, q) && !rwl_is_type_word(ts, q) &&
                !rwp_is_type_word(ts, q) && !rwl_pure_call_name(ts, q))
                return refuse(s, q, "call", EN(RW_PT_CALL), TOK(ts, q));
            if (!rwl_is_use(ts, q) || is_keyword(ts, q))
                continue;
            if (rwl_same_tok(ts, q, s->v)) {
                if (body_declares(s, q))
                    return refuse(s, q, "counter", EN(RW_PT_LOCAL_COUNTER_NAME), TOK(ts, q));
                if (!coordinate(s, q))
                    return false;
                continue;
            }
            if (!rwp_param_named(s->f, ts, q) && !body_declares(s, q) && macro_hides(s, q))
                return refuse(s, q, "macro", EN(RW_PT_MACRO_NAMES), TOK(ts, q));
            const an_param *pa = rwp_param_named(s->f, ts, q);
            if (pa && pa->pointer_depth >= 1 && !declared_in_body(ts, q)) {
                bool sub = q + 1 < s->bb && rwl_tok_is(ts, q + 1, "[");
                if (!sub || pa->pointer_depth != 1)
                    return refuse(s, q, "memory", EN(RW_PT_USED_OTHERWISE), TOK(ts, q), TOK(ts, q));
                size_t cl = rwl_match_close(ts, q + 1);
                bool store = cl + 1 < s->bb && rwl_tok_is_assign_op(ts, cl + 1);
                if (!store) {
                    if (rw_param_written(s->text, s->len, s->f, pa->name))
                        return refuse(s, q, "memory", EN(RW_PT_READS_WRITTEN), TOK(ts, q));
                    if (!add_buf(s->rd, &s->n_rd, pa))
                        return refuse(s, q, "memory", EN(RW_PT_TOO_MANY_BUFFERS), PT_BUFS);
                }
            }
            continue;
        }
        if (rwl_tok_is(ts, q, "->") || ((rwl_tok_is(ts, q, "*") || rwl_tok_is(ts, q, "&")) && rwl_unary_position(ts, q)))
            return refuse(s, q, "memory", EN(RW_PT_POINTER_UNFOLLOWED),
                          TOK(ts, q));
        if (rwl_tok_is(ts, q, "[") && q > s->ba && ts->t[q - 1].kind == T_IDENT && !rwp_param_named(s->f, ts, q - 1) &&
            !local_of_body(s, q - 1))
            return refuse(s, q - 1, "memory", EN(RW_PT_MEMORY_OTHER), TOK(ts, q - 1));
        if ((rwl_tok_is_assign_op(ts, q) || rwl_tok_is(ts, q, "++") || rwl_tok_is(ts, q, "--")) && !check_store(s, q))
            return false;
    }
    for (size_t w = 0; w < s->n_wr; w++)
        for (size_t r = 0; r < s->n_rd; r++)
            if (!alias_ok(s, s->wr[w], s->rd[r], s->ba))
                return false;
    if (!s->n_fac)
        return refuse(s, s->ba, "counter", EN(RW_PT_COUNTER_UNREAD));
    return true;
}

/* A loop macro's definition: `#define M(p1, p2) for (... p1 < (p2); ...)` with p2 named
 * once, in the condition. */
static bool macro_bound_ok(pt_scan *s, size_t call)
{
    const rw_toks *ts = s->ts;
    const char *name = ts->text + ts->t[call].start;
    size_t nl = ts->t[call].end - ts->t[call].start, at = 0, a, b, a2, b2;
    if (!rwl_next_define(s->text, s->len, &at, name, nl, &a, &b))
        return refuse(s, call, "loop macro", EN(RW_PT_NO_DEFINE), TOK(ts, call));
    /* a second definition (a header included twice behind its guard) must be the same text */
    while (rwl_next_define(s->text, s->len, &at, name, nl, &a2, &b2)) {
        char x1[2048], x2[2048], r1[2048], r2[2048];
        snprintf(r1, sizeof r1, "%.*s", (int)(b - a), s->text + a);
        snprintf(r2, sizeof r2, "%.*s", (int)(b2 - a2), s->text + a2);
        rwl_squeeze(r1, x1, sizeof x1);
        rwl_squeeze(r2, x2, sizeof x2);
        if (b - a >= sizeof r1 || b2 - a2 >= sizeof r2 || strcmp(x1, x2))
            return refuse(s, call, "loop macro", EN(RW_PT_DEFINED_TWICE), TOK(ts, call));
    }
    rw_toks mt = {0};
    if (rwl_lex(s->text, (uint32_t)a, (uint32_t)b, &mt) != HK_OK)
        return refuse(s, call, "loop macro", EN(RW_PT_DEFINITION_UNREADABLE));
    bool ok = false;
    /* NAME ( p1 , p2 ) for ( ... ; p1 < ( p2 ) ; ... ) */
    if (mt.n > 8 && rwl_tok_is(&mt, 1, "(") && mt.t[2].kind == T_IDENT && rwl_tok_is(&mt, 3, ",") &&
        mt.t[4].kind == T_IDENT && rwl_tok_is(&mt, 5, ")")) {
        size_t f = 6;
        while (f < mt.n && rwl_tok_is(&mt, f, "\\"))
            f++;
        size_t uses = 0, in_cond = 0, semis = 0;
        if (f + 1 < mt.n && rwl_tok_is(&mt, f, "for") && rwl_tok_is(&mt, f + 1, "(")) {
            size_t hc = rwl_match_close(&mt, f + 1);
            for (size_t k = 6; k < mt.n; k++) {
                if (k > f + 1 && k < hc && rwl_tok_is(&mt, k, ";"))
                    semis++;
                if (!rwl_same_tok(&mt, k, 4))
                    continue;
                uses++;
                bool cond = semis == 1 && k < hc &&
                            ((rwl_tok_is(&mt, k - 1, "<") && rwl_same_tok(&mt, k - 2, 2) && rwl_tok_is(&mt, k + 1, ";")) ||
                             (rwl_tok_is(&mt, k - 1, "(") && rwl_tok_is(&mt, k - 2, "<") && rwl_same_tok(&mt, k - 3, 2) &&
                              rwl_tok_is(&mt, k + 1, ")") && rwl_tok_is(&mt, k + 2, ";")));
                in_cond += cond;
            }
            ok = uses == 1 && in_cond == 1 && hc < mt.n && hc + 1 == mt.n;
        }
    }
    rwl_toks_free(&mt);
    if (!ok)
        return refuse(s, call, "loop macro", EN(RW_PT_MACRO_BOUND), TOK(ts, call));
    return true;
}

/* The grid-stride loop that periodic_trips and channel_chunks rewrite (rewrite_period.h). */
static bool rwpt_out(pt_scan *s, rwpt_loop *lo, char *why, size_t nwhy, bool ok)
{
    if (!ok)
        snprintf(why, nwhy, "%s", s->why[0] ? s->why : "no reason");
    (void)lo;
    return ok;
}

/* Whether the condition [a, b) is the same for every thread of every launch: numbers, `!`,
 * comparisons and logic on the kernel's scalar parameters the body never writes. */
static bool pt_uniform(const pt_scan *s, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    if (b <= a)
        return false;
    for (size_t q = a; q < b; q++) {
        if (rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, ".") || rwl_tok_is(ts, q, "->") ||
            rwl_tok_is_assign_op(ts, q) || rwl_tok_is(ts, q, "++") || rwl_tok_is(ts, q, "--"))
            return false;
        if (ts->t[q].kind != T_IDENT || rwl_tok_is(ts, q, "true") || rwl_tok_is(ts, q, "false"))
            continue;
        const an_param *pa = rwp_param_named(s->f, ts, q);
        if (!pa || pa->pointer_depth)
            return false;
        for (size_t k = 1; k + 1 < ts->n; k++)
            if (rwl_same_tok(ts, k, q) && (rwl_declared_here(ts, k) || (rwl_is_use(ts, k) && rwl_scalar_written(ts, k))))
                return false;
    }
    return true;
}

/* The statement that starts at line `line` among those of the block whose braces are at
 * `open` and `close` (a `for (..) {..}` or `while (..) {..}` read as one statement): *st, *se. */
static bool pt_stmt_at_line(const pt_scan *s, size_t open, size_t close, uint32_t line, size_t *st, size_t *se)
{
    const rw_toks *ts = s->ts;
    for (size_t q = open + 1; q < close;) {
        size_t qe = rwl_stmt_end(ts, q, close);
        if (ts->t[q].kind == T_IDENT && rwl_tok_is(ts, q + 1, "(") && !is_keyword(ts, q) &&
            rwl_match_close(ts, q + 1) + 1 < close && rwl_tok_is(ts, rwl_match_close(ts, q + 1) + 1, "{"))
            qe = rwl_match_close(ts, rwl_match_close(ts, q + 1) + 1) + 1;
        if (qe <= q)
            return false;
        if ((uint32_t)rwl_line_at(s->text, ts->t[q].start) == line) {
            *st = q;
            *se = qe;
            return true;
        }
        q = qe;
    }
    return false;
}

/* The statement at line `line` inside the branches of the `if (C) {..} else if (D) {..} else
 * {..}` chain at [p, e) whose conditions are uniform (pt_uniform): *st, *se, and the end of
 * its branch's statement list in *lend. false when it is not there. */
static bool pt_in_branches(const pt_scan *s, size_t p, size_t e, uint32_t line, size_t *st, size_t *se, size_t *lend,
                           size_t *bra)
{
    const rw_toks *ts = s->ts;
    while (p < e && rwl_tok_is(ts, p, "if") && rwl_tok_is(ts, p + 1, "(")) {
        size_t c = rwl_match_close(ts, p + 1);
        if (c >= e || !pt_uniform(s, p + 2, c) || !rwl_tok_is(ts, c + 1, "{"))
            return false;
        size_t bc = rwl_match_close(ts, c + 1);
        if (pt_stmt_at_line(s, c + 1, bc, line, st, se)) {
            *lend = bc;
            *bra = c + 1;
            return true;
        }
        p = bc + 1;
        if (p < e && rwl_tok_is(ts, p, "else")) {
            p++;
            if (p < e && rwl_tok_is(ts, p, "{")) {
                /* a final else block: read as `if (true)` */
                size_t fc = rwl_match_close(ts, p);
                if (!pt_stmt_at_line(s, p, fc, line, st, se))
                    return false;
                *lend = fc;
                *bra = p;
                return true;
            }
        }
    }
    return false;
}

bool rwpt_grid_loop(const char *text, size_t len, const an_function *f, const an_model *m, const rw_toks *ts,
                    km_kernel *km, rwpt_loop *lo, char *why, size_t nwhy)
{
    return rwpt_grid_loop_in(text, len, f, m, ts, km, 0, false, lo, why, nwhy);
}

bool rwpt_grid_loop_in(const char *text, size_t len, const an_function *f, const an_model *m, const rw_toks *ts,
                       km_kernel *km, size_t nth, bool branches, rwpt_loop *lo, char *why, size_t nwhy)
{
    pt_scan s = {.text = text, .len = len, .ts = ts, .f = f, .m = m};
    memset(lo, 0, sizeof *lo);
    /* the model's nth grid-stride loop outside other loops */
    size_t nl = 0, seen = 0;
    const km_loop *lp = km_loops(km, &nl), *L = NULL;
    for (size_t i = 0; i < nl && !L; i++)
        if (lp[i].parent < 0 && lp[i].kind == KM_LOOP_GRID_STRIDE && seen++ == nth)
            L = &lp[i];
    if (!L) {
        if (nth)
            snprintf(why, nwhy, EN(RW_PT_NO_LOOP_NUMBER), nth + 1);
        else
            refuse(&s, 1, "grid-stride loop", EN(RW_PT_NO_GRID_LOOP));
        return nth ? false : rwpt_out(&s, lo, why, nwhy, false);
    }
    bool global = false;
    for (int ax = 0; ax < 3 && !global; ax++)
        global = km_form_is_global_index(km, L->start, ax);
    /* the statement at the loop's line */
    size_t st = 0, se = 0, end = ts->n - 1, lend = end, if_a = 0, if_e = 0, bra = 0;
    for (size_t p = 1; p < end;) {
        size_t e;
        if (ts->t[p].kind == T_IDENT && rwl_tok_is(ts, p + 1, "(") && !is_keyword(ts, p) &&
            rwl_match_close(ts, p + 1) + 1 < end && rwl_tok_is(ts, rwl_match_close(ts, p + 1) + 1, "{"))
            e = rwl_match_close(ts, rwl_match_close(ts, p + 1) + 1) + 1;
        else
            e = rwl_stmt_end(ts, p, end);
        if (e <= p)
            break;
        if ((uint32_t)rwl_line_at(text, ts->t[p].start) == L->line && !st) {
            st = p;
            se = e;
        }
        /* in a branch of a uniform if/else chain that ends the body (mmcv's bbox_overlaps:
         * `if (aligned) { loop } else { loop }`): every thread takes the same branch */
        if (!st && branches && e == end && pt_in_branches(&s, p, e, L->line, &st, &se, &lend, &bra)) {
            if_a = p;
            if_e = e;
        }
        p = e;
    }
    if (!st) {
        refuse(&s, 1, "grid-stride loop", EN(RW_PT_NOT_TOP_LEVEL),
               L->line);
        return rwpt_out(&s, lo, why, nwhy, false);
    }
    if (!L->var || !L->cmp || strcmp(L->cmp, "<") || !global) {
        refuse(&s, st, "grid-stride loop", EN(RW_PT_LOOP_FORM));
        return rwpt_out(&s, lo, why, nwhy, false);
    }
    if (se != lend) {
        refuse(&s, se, "statement", EN(RW_PT_STMT_AFTER));
        return rwpt_out(&s, lo, why, nwhy, false);
    }
    size_t ba, bb, bnd_a, bnd_b;
    bool is_macro = !rwl_tok_is(ts, st, "for");
    if (!is_macro) {
        size_t hc = rwl_match_close(ts, st + 1), semi[2], n_semi = 0;
        int depth = 0;
        for (size_t q = st + 2; q < hc; q++) {
            if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "{"))
                depth++;
            else if (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]") || rwl_tok_is(ts, q, "}"))
                depth--;
            else if (!depth && rwl_tok_is(ts, q, ";") && n_semi < 2)
                semi[n_semi++] = q;
        }
        if (n_semi != 2 || !rwl_tok_is_ident(ts, semi[0] + 1, L->var) || !rwl_tok_is(ts, semi[0] + 2, "<")) {
            refuse(&s, st, "grid-stride loop", EN(RW_PT_CONDITION), L->var);
            return rwpt_out(&s, lo, why, nwhy, false);
        }
        lo->v = semi[0] + 1;
        bnd_a = semi[0] + 3;
        bnd_b = semi[1];
        ba = hc + 1;
        bb = se;
    } else {
        size_t c = rwl_match_close(ts, st + 1);
        if (!(rwl_tok_is_ident(ts, st + 2, L->var) && rwl_tok_is(ts, st + 3, ","))) {
            refuse(&s, st, "loop macro", EN(RW_PT_FIRST_ARG), L->var);
            return rwpt_out(&s, lo, why, nwhy, false);
        }
        if (!macro_bound_ok(&s, st))
            return rwpt_out(&s, lo, why, nwhy, false);
        lo->v = st + 2;
        bnd_a = st + 4;
        bnd_b = c;
        ba = c + 1;
        bb = se;
    }
    if (rwl_tok_is(ts, ba, "{"))
        ba++, bb--;
    lo->ba = ba;
    lo->bb = bb;
    /* the bound: nothing that binds less than `<`, nothing the body writes, not the counter */
    int depth = 0;
    for (size_t q = bnd_a; q < bnd_b; q++) {
        if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "["))
            depth++;
        else if (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]"))
            depth--;
        static const char *const low[] = {"&&", "||", "?", ":", ",", "==", "!=", "<", ">", "<=", ">=", "&", "|", "^"};
        for (size_t i = 0; !depth && i < HK_ARRAY_LEN(low); i++)
            if (rwl_tok_is(ts, q, low[i])) {
                refuse(&s, q, "grid-stride loop", EN(RW_PT_BOUND_HOLDS), TOK(ts, q));
                return rwpt_out(&s, lo, why, nwhy, false);
            }
        if (ts->t[q].kind == T_IDENT && rwl_same_tok(ts, q, lo->v)) {
            refuse(&s, q, "grid-stride loop", EN(RW_PT_BOUND_COUNTER));
            return rwpt_out(&s, lo, why, nwhy, false);
        }
    }
    if (bnd_b <= bnd_a || rwl_writes_any(ts, bnd_a, bnd_b)) {
        refuse(&s, bnd_a, "grid-stride loop", EN(RW_PT_BOUND_EMPTY));
        return rwpt_out(&s, lo, why, nwhy, false);
    }
    lo->st = st;
    lo->se = se;
    if (if_e) {
        lo->if_a = if_a;
        lo->if_e = if_e;
        lo->br_a = bra;
        lo->br_b = lend + 1;
    }
    lo->bnd_a = bnd_a;
    lo->bnd_b = bnd_b;
    lo->is_macro = is_macro;
    return true;
}

/* Opens kernel f's body for a rewrite over its grid-stride loop: refuses (false, s->why
 * set) a body rwl_open_body refuses, one the rewrite already changed (a name starting with
 * prefix), and one without such a loop (rwpt_grid_loop); *rc is an error, the refusal not. */
static bool pt_open_loop(pt_scan *s, rw_toks *ts, km_kernel **km, const char *prefix, const char *already,
                         rwpt_loop *lo, int *rc)
{
    char bwhy[400] = "";
    if ((*rc = rwl_open_body(s->text, s->len, s->f, true, ts, km, bwhy, sizeof bwhy)))
        return false;
    if (bwhy[0]) {
        snprintf(s->why, sizeof s->why, "%s", bwhy);
        return false;
    }
    size_t pl = strlen(prefix);
    for (size_t k = 1; k + 1 < ts->n; k++)
        if (ts->t[k].kind == T_IDENT && !strncmp(s->text + ts->t[k].start, prefix, pl)) {
            refuse(s, k, "loop", "%s", already);
            return false;
        }
    if (!rwpt_grid_loop(s->text, s->len, s->f, s->m, ts, *km, lo, s->why, sizeof s->why))
        return false;
    s->v = lo->v;
    s->ba = lo->ba;
    s->bb = lo->bb;
    return true;
}

/* The loop's bound is evaluated once before it by both rewrites: refuses one that calls or
 * subscripts, or names what the body writes or declares. */
static bool pt_bound_fixed(pt_scan *s, const rwpt_loop *lo)
{
    const rw_toks *ts = s->ts;
    for (size_t q = lo->bnd_a; q < lo->bnd_b; q++)
        if (ts->t[q].kind == T_IDENT && (rwl_tok_is(ts, q + 1, "(") || rwl_tok_is(ts, q + 1, "["))) {
            refuse(s, q, "grid-stride loop", EN(RW_PT_BOUND_CALLS), TOK(ts, q));
            return false;
        }
    for (size_t q = lo->ba; q < lo->bb; q++)
        for (size_t r = lo->bnd_a; r < lo->bnd_b; r++)
            if (ts->t[r].kind == T_IDENT && rwl_is_use(ts, q) && rwl_same_tok(ts, q, r) &&
                (rwl_scalar_written(ts, q) || rwl_declared_here(ts, q))) {
                refuse(s, q, "grid-stride loop", EN(RW_PT_BOUND_WRITTEN), TOK(ts, q));
                return false;
            }
    return true;
}

static int periodic_trips(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    km_kernel *km = NULL;
    rw_edits es = {0};
    struct hk_buf nb;
    hk_buf_init(&nb, RW_TEXT_MAX);
    pt_scan s = {.text = text, .len = len, .ts = &ts, .f = f, .m = m};
    rwpt_loop lo;
    if (!pt_open_loop(&s, &ts, &km, "hk_pt_", EN(RW_PT_ALREADY), &lo, &rc)) {
        if (rc)
            goto out;
        goto refused;
    }
    size_t st = lo.st, se = lo.se, bnd_a = lo.bnd_a, bnd_b = lo.bnd_b;
    if (!read_body(&s))
        goto refused;
    if (!pt_bound_fixed(&s, &lo))
        goto refused;
    /* the edit: { the period; the bound min(n, period); the loop with its bound renamed } */
    char ind[64];
    rwl_line_indent(text, ts.t[st].start, ind, sizeof ind);
    struct hk_buf per;
    hk_buf_init(&per, 4096);
    for (size_t i = 0; i < s.n_fac && !rc; i++)
        rc = hk_buf_printf(&per, "%s%s", i ? " * " : "", s.fac[i]);
    if (!rc)
        rc = hk_buf_printf(&nb, "{   /* hk: periodic_trips: the body reads `%.*s` only as coordinates that repeat " /* i18n: not for people */
                                "every %s trips: the trips past that repeat the same stores */\n"
                                "%s    auto hk_pt_n = (%.*s);\n%s    long long hk_pt_p = 1;\n%s    bool hk_pt_ok = true;\n",
                           TOK(&ts, s.v), per.data ? per.data : "", ind,
                           (int)(ts.t[bnd_b - 1].end - ts.t[bnd_a].start), text + ts.t[bnd_a].start, ind, ind);
    hk_buf_free(&per);
    for (size_t i = 0; i < s.n_fac && !rc; i++)
        rc = hk_buf_printf(&nb, "%s    hk_pt_ok = hk_pt_ok && (long long)(%s) > 0 && hk_pt_p <= 0x3fffffffffffffffLL / " /* i18n: not for people */
                                "(long long)(%s);\n%s    if (hk_pt_ok)\n%s        hk_pt_p *= (long long)(%s);\n",
                           ind, s.fac[i], s.fac[i], ind, ind, s.fac[i]);
    if (!rc)
        rc = hk_buf_printf(&nb, "%s    if (hk_pt_ok && hk_pt_p < hk_pt_n)\n%s        hk_pt_n = "
                                "(decltype(hk_pt_n))hk_pt_p;\n%s    ",
                           ind, ind, ind);
    if (!rc)
        rc = hk_buf_append(&nb, text + ts.t[st].start, ts.t[bnd_a].start - ts.t[st].start);
    if (!rc)
        rc = hk_buf_appends(&nb, "hk_pt_n");
    if (!rc)
        rc = hk_buf_append(&nb, text + ts.t[bnd_b - 1].end, ts.t[se - 1].end - ts.t[bnd_b - 1].end);
    if (!rc)
        rc = hk_buf_printf(&nb, "\n%s}", ind);
    if (!rc)
        rc = rwl_edits_add(&es, ts.t[st].start, ts.t[se - 1].end, nb.data);
    if (rc)
        goto out;
    {
        char fl[1600] = "";
        size_t o = 0;
        for (size_t i = 0; i < s.n_fac && o < sizeof fl; i++)
            o += (size_t)snprintf(fl + o, sizeof fl - o, "%s%s", i ? " * " : "", s.fac[i]);
        char *desc = hk_asprintf(EN(RW_PT_DESC),
                                 f->name, rwl_line_at(text, ts.t[st].start), TOK(&ts, s.v), fl,
                                 (int)(ts.t[bnd_b - 1].end - ts.t[bnd_a].start), text + ts.t[bnd_a].start, fl);
        rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    }
    goto out;
refused:
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "periodic_trips", f->name,
                                             s.why[0] ? s.why : EN(RW_NO_REASON)));
out:
    hk_buf_free(&nb);
    rwl_edits_free(&es);
    km_free(km);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static int emit_periodic_trips(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return periodic_trips(c->text, c->len, c->m, c->kernel, out);
}

const rw_descriptor rw_periodic_trips_desc = {
    .name = "periodic_trips",
    .summary = "a grid-stride loop whose body reads its counter only as `i % A`, `i / A % B`, ... stops at min(n, " /* i18n: not for people */
               "A*B*...): the trips past the period repeat the same stores (exact)",
    .flags = RW_ALGORITHM,
    .emit = emit_periodic_trips,
};

/* ---- channel_lanes ----
 *
 * Why (issue 13, mmcv's roi_pool and prroi_pool at 5-7% of their roofline): one thread per
 * output, the grid-stride counter decomposed as (pw, ph, c, n) with pw the fastest, so the
 * 32 lanes of a warp hold 32 bins of one ROI and channel. A bin's window (its loop bounds)
 * depends on pw and ph: the lanes' trip counts differ (roi_pool: the bins clipped off the
 * map are empty, 2/3 of them under the spec, while their neighbours scan up to 18 x 18
 * pixels), and the warp runs as long as its longest lane. The channel decides no bound: put
 * it across the lanes (trip t runs the index whose c is t % C and whose other coordinates
 * are those of t / C), and consecutive lanes share the ROI and the bin, hence their bounds,
 * trips and branches; an empty bin is skipped by the whole warp.
 *
 * Proof of equivalence. Let S be the product of the chosen coordinate's divisors and C its
 * modulus (scalar integer parameters the kernel never writes, or literals), n the loop's
 * bound. When S > 0, C > 0 and S*C divides n (checked at run time in long long, else the
 * index is the trip itself), the map t -> idx(t) = (r / S) * (S*C) + (t % C) * S + r % S,
 * r = t / C, is a bijection of [0, n) onto itself: writing idx = h*(S*C) + c*S + l
 * (0 <= c < C, 0 <= l < S) the map sends t = (h*S + l)*C + c to it, and t < n iff h < n /
 * (S*C) iff idx < n. The loop's header is kept (its counter renamed), so the grid runs every
 * t in [0, n) once, each thread the same number of trips as before, and the body runs with
 * its counter's name bound to idx(t): every index in [0, n) runs once, by the same code on
 * the same values. The body reads no thread or block coordinate, no clock, warp operation,
 * barrier, atomic or shared memory, writes no variable declared outside it, does not leave
 * the loop (no return, goto or break out of it), and calls only pure functions, casts and
 * reader functions of the file (rwl_reader_call): a trip's work depends on its index alone.
 * Only which thread runs which index changes; that the kernel's result does not depend on
 * that (a trip reading what another stores would race in the original under a grid of n
 * threads) is the assumption every launch change makes, channel_chunks' among them. So the
 * output is bit-identical: the same operations on the same operands in the same order.
 *
 * What it pays for is read from the code, not assumed: the chosen coordinate c (a declared
 * `T c = (i / A / ..) % C;`, the outermost such that qualifies) must decide no loop header
 * and no jump out of a trip, and some loop header must depend on a coordinate finer than c
 * with a trip count the kernel model does not find uniform (the divergence it removes; a
 * window that only shifts with the bin, carafe's, has the same trips on every lane and its
 * reads are coalesced along the fine coordinate, which the permutation would scatter); a local depends on a coordinate when an assignment to it
 * reads the coordinate or such a local (a fixpoint over the body's assignments, names by
 * spelling: an approximation used only for this choice, never for the proof). */

#define CL_NAMES 96

/* Locals that depend on a coordinate, each with the first token where an assignment made it
 * so: a read at token p sees it when that token is before p, or when both lie in one loop of
 * the body (the value comes round to p on a later trip of that loop). */
typedef struct {
    char name[CL_NAMES][64];
    size_t pos[CL_NAMES];
    size_t n;
    size_t ba, bb;
} cl_set;

static long cl_find(const cl_set *z, const rw_toks *ts, size_t k)
{
    size_t l = ts->t[k].end - ts->t[k].start;
    for (size_t i = 0; i < z->n; i++)
        if (strlen(z->name[i]) == l && !memcmp(z->name[i], ts->text + ts->t[k].start, l))
            return (long)i;
    return -1;
}

/* Does some loop of the body (a `for` or `while` at its header token) hold both a and b? */
static bool cl_same_loop(const cl_set *z, const rw_toks *ts, size_t a, size_t b)
{
    for (size_t k = z->ba; k < z->bb; k++) {
        if (!(rwl_tok_is(ts, k, "for") || rwl_tok_is(ts, k, "while")) || !rwl_tok_is(ts, k + 1, "("))
            continue;
        size_t hc = rwl_match_close(ts, k + 1);
        size_t e = rwl_tok_is(ts, hc + 1, "{") ? rwl_match_close(ts, hc + 1) + 1 : rwl_stmt_end(ts, hc + 1, z->bb);
        if (k <= a && a < e && k <= b && b < e)
            return true;
    }
    return false;
}

static bool cl_sees(const cl_set *z, const rw_toks *ts, size_t k)
{
    long i = cl_find(z, ts, k);
    return i >= 0 && (z->pos[i] < k || cl_same_loop(z, ts, z->pos[i], k));
}

/* Records the name at k as depending from token at on; true when that is news. */
static bool cl_add(cl_set *z, const rw_toks *ts, size_t k, size_t at)
{
    long i = cl_find(z, ts, k);
    if (i >= 0) {
        if (z->pos[i] <= at)
            return false;
        z->pos[i] = at;
        return true;
    }
    if (z->n >= CL_NAMES || ts->t[k].end - ts->t[k].start >= 64)
        return false;
    snprintf(z->name[z->n], 64, "%.*s", TOK(ts, k));
    z->pos[z->n++] = at;
    return true;
}

/* The first token of [a, b) that reads a member of z there, or b. */
static size_t cl_mention(const cl_set *z, const rw_toks *ts, size_t a, size_t b)
{
    for (size_t q = a; q < b; q++)
        if (ts->t[q].kind == T_IDENT && rwl_is_use(ts, q) && cl_sees(z, ts, q))
            return q;
    return b;
}

/* Grows z to every local whose assignment in [ba, bb) reads a member of z (fixpoint). */
static void cl_taint(cl_set *z, const rw_toks *ts, size_t ba, size_t bb)
{
    bool grew = true;
    z->ba = ba;
    z->bb = bb;
    while (grew) {
        grew = false;
        for (size_t q = ba + 1; q < bb; q++) {
            if (!rwl_tok_is_assign_op(ts, q) || ts->t[q - 1].kind != T_IDENT)
                continue;
            /* the value: up to the `;`, `,` or `)` that ends it at depth 0 */
            size_t e = q + 1;
            int depth = 0;
            for (; e < bb; e++) {
                if (rwl_tok_is(ts, e, "(") || rwl_tok_is(ts, e, "[") || rwl_tok_is(ts, e, "{"))
                    depth++;
                else if (rwl_tok_is(ts, e, ")") || rwl_tok_is(ts, e, "]") || rwl_tok_is(ts, e, "}")) {
                    if (!depth)
                        break;
                    depth--;
                } else if (!depth && (rwl_tok_is(ts, e, ";") || rwl_tok_is(ts, e, ",")))
                    break;
            }
            if (cl_mention(z, ts, q + 1, e) < e && cl_add(z, ts, q - 1, q))
                grew = true;
        }
    }
}

typedef struct {
    size_t q;                  /* the counter's token */
    size_t decl;               /* the declared local the chain initialises, or 0 */
    char div[PT_FACTORS][96];  /* the divisors' factors, in order */
    size_t n_div;
    char mod[PT_FACTORS][96];  /* the modulus' factors (none: the outermost coordinate) */
    size_t n_mod;
} cl_coord;

#define CL_COORDS 16

/* The counter's use at q: `q / F / F .. % F` (grouping parentheses around a prefix), or the
 * counter alone (as a store's subscript: no coordinate). */
static bool cl_chain(pt_scan *s, size_t q, cl_coord *c)
{
    const rw_toks *ts = s->ts;
    size_t a = q, p = q + 1, end = s->bb;
    memset(c, 0, sizeof *c);
    c->q = q;
    for (;;) {
        while (p < end && rwl_tok_is(ts, p, "/")) {
            size_t after;
            if (!operand_end(ts, p + 1, end, &after))
                return refuse(s, p, "counter", EN(RW_PT_DIV_OPERAND), TOK(ts, q));
            if (!factors(s, p + 1, after, c->div, &c->n_div))
                return false;
            p = after;
        }
        if (p < end && rwl_tok_is(ts, p, ")") && a > s->ba && rwl_tok_is(ts, a - 1, "(") &&
            rwl_match_close(ts, a - 1) == p &&
            !(a - 1 > 0 && ((ts->t[a - 2].kind == T_IDENT && !is_keyword(ts, a - 2)) || rwl_tok_is(ts, a - 2, ")") ||
                            rwl_tok_is(ts, a - 2, "]")))) {
            a--;
            p++;
            continue;
        }
        break;
    }
    if (p < end && rwl_tok_is(ts, p, "%")) {
        size_t after;
        if (!operand_end(ts, p + 1, end, &after))
            return refuse(s, p, "counter", EN(RW_PT_MOD_OPERAND), TOK(ts, q));
        if (!factors(s, p + 1, after, c->mod, &c->n_mod))
            return false;
        p = after;
    }
    /* `T name = chain;` or `T name = chain,`: a coordinate local */
    if (a >= s->ba + 2 && rwl_tok_is(ts, a - 1, "=") && ts->t[a - 2].kind == T_IDENT && rwl_declared_here(ts, a - 2) &&
        p < end && (rwl_tok_is(ts, p, ";") || rwl_tok_is(ts, p, ",")) && c->n_div + c->n_mod > 0)
        c->decl = a - 2;
    return true;
}

/* The body [ba, bb) for channel_lanes (the proof's conditions); its coordinates into cs. */
static bool cl_read_body(pt_scan *s, cl_coord *cs, size_t *n_cs)
{
    const rw_toks *ts = s->ts;
    *n_cs = 0;
    for (size_t q = s->ba; q < s->bb; q++) {
        if (ts->t[q].kind == T_IDENT) {
            size_t l = ts->t[q].end - ts->t[q].start;
            const char *c = ts->text + ts->t[q].start;
            if (builtin_name(ts, q) || rwl_tok_is(ts, q, "clock") || rwl_tok_is(ts, q, "clock64") ||
                rwl_tok_is(ts, q, "__globaltimer") || rwl_tok_is(ts, q, "__laneid"))
                return refuse(s, q, "thread index", EN(RW_PT_THREAD_DEPENDENT), TOK(ts, q));
            if ((l >= 6 && !memcmp(c, "__sync", 6)) || (l >= 6 && !memcmp(c, "__shfl", 6)) ||
                (l >= 8 && !memcmp(c, "__ballot", 8)) || rwl_tok_is(ts, q, "__activemask") ||
                (l >= 5 && !memcmp(c, "__any", 5)) || (l >= 5 && !memcmp(c, "__all", 5)))
                return refuse(s, q, "barrier", EN(RW_PT_TRIP_COUNTS), TOK(ts, q));
            if (l >= 6 && !memcmp(c, "atomic", 6))
                return refuse(s, q, "atomic", EN(RW_PT_IN_LOOP), TOK(ts, q));
            if (rwl_tok_is(ts, q, "return") || rwl_tok_is(ts, q, "goto") || rwl_tok_is(ts, q, "asm") ||
                rwl_tok_is(ts, q, "__shared__") || rwl_tok_is(ts, q, "static") || rwl_tok_is(ts, q, "volatile"))
                return refuse(s, q, rwl_tok_is(ts, q, "return") || rwl_tok_is(ts, q, "goto") ? "early exit" : "statement",
                              EN(RW_PT_IN_LOOP), TOK(ts, q));
            if (rwl_tok_is(ts, q, "break") && !rwl_in_nested(ts, s->ba, s->bb, q, true))
                return refuse(s, q, "early exit", EN(RW_PT_BREAK));
            size_t cp = rwl_call_paren(ts, q);
            if (cp && cp < s->bb && !is_keyword(ts, q) && !rwl_is_type_word(ts, q) && !rwp_is_type_word(ts, q) &&
                !rwl_pure_call_name(ts, q) && !rwl_template_type_param(s->f->template_params, ts, q) &&
                !rwl_reader_call(s->m, s->text, s->f, ts, q))
                return refuse(s, q, "call", EN(RW_CL_CALL), TOK(ts, q));
            if (!rwl_is_use(ts, q) || is_keyword(ts, q))
                continue;
            if (rwl_same_tok(ts, q, s->v)) {
                if (body_declares(s, q))
                    return refuse(s, q, "counter", EN(RW_PT_LOCAL_COUNTER_NAME), TOK(ts, q));
                if (rwl_scalar_written(ts, q))
                    return refuse(s, q, "loop", EN(RW_PT_CHANGES_COUNTER), TOK(ts, q));
                cl_coord co;
                if (!cl_chain(s, q, &co))
                    return false;
                if (co.decl && *n_cs < CL_COORDS)
                    cs[(*n_cs)++] = co;
                continue;
            }
            if (!rwp_param_named(s->f, ts, q) && !body_declares(s, q) && macro_hides(s, q))
                return refuse(s, q, "macro", EN(RW_PT_MACRO_NAMES), TOK(ts, q));
            /* a name written in the loop must be one of its own locals */
            bool member = q > s->ba && (rwl_tok_is(ts, q - 1, ".") || rwl_tok_is(ts, q - 1, "->"));
            if (rwl_scalar_written(ts, q) && !member && !rwl_declared_here(ts, q) && !local_of_body(s, q))
                return refuse(s, q, "write", EN(RW_PT_CARRIED), TOK(ts, q));
            /* a name of the kernel declared outside the loop is read only as a value: an array,
             * pointer or aggregate of the thread (or shared) reached through it could carry what
             * one trip writes to the next, which no launch order makes a race */
            if (!member && !rwp_param_named(s->f, ts, q) && !body_declares(s, q) && declared_in_body(ts, q) &&
                ((q + 1 < s->bb && (rwl_tok_is(ts, q + 1, "[") || rwl_tok_is(ts, q + 1, ".") || rwl_tok_is(ts, q + 1, "->"))) ||
                 (q > s->ba && (rwl_tok_is(ts, q - 1, "&") || rwl_tok_is(ts, q - 1, "*")) && rwl_unary_position(ts, q - 1))))
                return refuse(s, q, "memory", EN(RW_CL_OUTER_MEMORY), TOK(ts, q));
        }
    }
    return true;
}

/* Does the statement at k (after an `if (..)`) hold a jump out of the trip: `continue` of the
 * grid loop, or `break` of it? */
static size_t cl_jump_in(const pt_scan *s, size_t a, size_t b)
{
    for (size_t q = a; q < b; q++)
        if ((rwl_tok_is(s->ts, q, "continue") || rwl_tok_is(s->ts, q, "break")) &&
            !rwl_in_nested(s->ts, s->ba, s->bb, q, rwl_tok_is(s->ts, q, "break")))
            return q;
    return b;
}

/* Is form f the same for every thread and trip: built of scalar parameters, named constants
 * and literals only (through non-affine operations on such operands, depth-limited)? */
static bool cl_form_uniform(const km_kernel *km, km_form f, int depth)
{
    size_t na = 0;
    const km_atom *at = km_atoms(km, &na);
    if (depth > 8)
        return false;
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            uint32_t a = f.t[i].atoms[j];
            if (a >= na)
                return false;
            switch (at[a].kind) {
            case KM_ATOM_PARAM:
            case KM_ATOM_CONST:
            case KM_ATOM_LITERAL:
                break;
            case KM_ATOM_OPAQUE:
                for (uint32_t k = 0; k < at[a].n_args; k++)
                    if (!cl_form_uniform(km, at[a].args[k], depth + 1))
                        return false;
                break;
            default:
                return false;
            }
        }
    return true;
}

/* The kernel model's trip count of the loop whose header is at line `line`: the same for
 * every thread (carafe's window: its bounds shift with the bin, its length is the kernel
 * size)? false when the model does not know it. */
static bool cl_trip_uniform(km_kernel *km, uint32_t line)
{
    size_t nl = 0;
    const km_loop *lp = km_loops(km, &nl);
    for (size_t i = 0; i < nl; i++)
        if (lp[i].line == line && lp[i].kind == KM_LOOP_AFFINE)
            return lp[i].has_trip && cl_form_uniform(km, lp[i].trip, 0);
    return false;
}

/* Coordinate c (cs[ci]) qualifies: no loop header reads a local depending on c, no jump out of
 * a trip sits under a condition on one; *div_line is set to the line of a loop header that
 * depends on a finer coordinate (0: none). */
static bool cl_choose(pt_scan *s, km_kernel *km, const cl_coord *cs, size_t n_cs, size_t ci, const cl_coord *inner,
                      int *div_line)
{
    const rw_toks *ts = s->ts;
    cl_set zc = {0}, zf = {0};   /* about 7 KB each */
    cl_add(&zc, ts, cs[ci].decl, cs[ci].decl);
    /* the coordinates whose lanes the order makes share: finer than c, past the kept one */
    for (size_t i = 0; i < n_cs; i++)
        if (cs[i].n_div < cs[ci].n_div && !(inner && cs[i].n_div <= inner->n_div))
            cl_add(&zf, ts, cs[i].decl, cs[i].decl);
    cl_taint(&zc, ts, s->ba, s->bb);
    cl_taint(&zf, ts, s->ba, s->bb);
    *div_line = 0;
    for (size_t q = s->ba; q < s->bb; q++) {
        bool loop = rwl_tok_is(ts, q, "for") || rwl_tok_is(ts, q, "while");
        bool cond = rwl_tok_is(ts, q, "if");
        if ((!loop && !cond) || !rwl_tok_is(ts, q + 1, "("))
            continue;
        size_t hc = rwl_match_close(ts, q + 1);
        size_t m = cl_mention(&zc, ts, q + 2, hc);
        if (loop && m < hc)
            return refuse(s, q, "loop", EN(RW_CL_LOOP_ON_C), TOK(ts, m), TOK(ts, cs[ci].decl));
        if (loop && !*div_line && cl_mention(&zf, ts, q + 2, hc) < hc &&
            !cl_trip_uniform(km, (uint32_t)rwl_line_at(s->text, ts->t[q].start)))
            *div_line = rwl_line_at(s->text, ts->t[q].start);
        if (cond && m < hc) {
            size_t se = rwl_tok_is(ts, hc + 1, "{") ? rwl_match_close(ts, hc + 1) + 1 : rwl_stmt_end(ts, hc + 1, s->bb);
            size_t j = cl_jump_in(s, hc + 1, se);
            if (j < se)
                return refuse(s, j, "early exit", EN(RW_CL_EXIT_ON_C), TOK(ts, j), TOK(ts, cs[ci].decl));
        }
    }
    if (!*div_line && inner)
        return refuse(s, cs[ci].decl, "loop", EN(RW_CL_NOT_DIVERGENT_MID), TOK(ts, inner->decl), TOK(ts, cs[ci].decl),
                      TOK(ts, cs[ci].decl));
    if (!*div_line)
        return refuse(s, cs[ci].decl, "loop", EN(RW_CL_NOT_DIVERGENT), TOK(ts, cs[ci].decl));
    return true;
}

static int channel_lanes(const char *text, size_t len, const an_model *m, size_t kernel, int position, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    km_kernel *km = NULL;
    rw_edits es = {0};
    struct hk_buf nb;
    hk_buf_init(&nb, RW_TEXT_MAX);
    pt_scan s = {.text = text, .len = len, .ts = &ts, .f = f, .m = m};
    rwpt_loop lo;
    if (!pt_open_loop(&s, &ts, &km, "hk_cl_", EN(RW_CL_ALREADY), &lo, &rc)) {
        if (rc)
            goto out;
        goto refused;
    }
    size_t st = lo.st, se = lo.se, ba = lo.ba, bnd_a = lo.bnd_a, bnd_b = lo.bnd_b;
    cl_coord cs[CL_COORDS];
    size_t n_cs = 0;
    if (!cl_read_body(&s, cs, &n_cs))
        goto refused;
    if (!pt_bound_fixed(&s, &lo))
        goto refused;
    /* position 2: the innermost coordinate `i % F` stays innermost, c goes next to it */
    const cl_coord *inner = NULL;
    if (position == 2) {
        for (size_t i = 0; i < n_cs && !inner; i++)
            if (cs[i].n_div == 0 && cs[i].n_mod)
                inner = &cs[i];
        if (!inner) {
            refuse(&s, ba, "counter", EN(RW_CL_NO_INNER), TOK(&ts, s.v));
            goto refused;
        }
    }
    /* the candidates: coordinates with a divisor and a modulus, outermost (most divisors) first */
    size_t best = n_cs;
    int div_line = 0;
    char first_why[700] = "";
    for (size_t pass = PT_FACTORS; pass > 0 && best == n_cs; pass--)
        for (size_t i = 0; i < n_cs && best == n_cs; i++) {
            if (cs[i].n_div != pass || !cs[i].n_mod)
                continue;
            s.why[0] = '\0';
            if (cl_choose(&s, km, cs, n_cs, i, inner, &div_line))
                best = i;
            else if (!first_why[0])
                snprintf(first_why, sizeof first_why, "%s", s.why);
        }
    if (best == n_cs) {
        if (first_why[0])
            snprintf(s.why, sizeof s.why, "%s", first_why);
        else {
            s.why[0] = '\0';
            refuse(&s, ba, "counter", EN(RW_CL_NO_COORD), TOK(&ts, s.v));
        }
        goto refused;
    }
    const cl_coord *c = &cs[best];
    char sdiv[800] = "", smod[800] = "";
    size_t o = 0;
    for (size_t i = 0; i < c->n_div && o < sizeof sdiv; i++)
        o += (size_t)snprintf(sdiv + o, sizeof sdiv - o, "%s%s", i ? " * " : "", c->div[i]);
    o = 0;
    for (size_t i = 0; i < c->n_mod && o < sizeof smod; i++)
        o += (size_t)snprintf(smod + o, sizeof smod - o, "%s%s", i ? " * " : "", c->mod[i]);
    char sin_[800] = "1";
    o = 0;
    for (size_t i = 0; inner && i < inner->n_mod && o < sizeof sin_; i++)
        o += (size_t)snprintf(sin_ + o, sizeof sin_ - o, "%s%s", i ? " * " : "", inner->mod[i]);
    char ind[64];
    rwl_line_indent(text, ts.t[st].start, ind, sizeof ind);
    int bl = (int)(ts.t[bnd_b - 1].end - ts.t[bnd_a].start);
    const char *bt = text + ts.t[bnd_a].start;
    if (inner)
        rc = hk_buf_printf(&nb,
                           "{   /* hk: channel_lanes: trip t runs the index whose `%.*s` is t %% (%s), whose `%.*s` is " /* i18n: not for people */
                           "t / (%s) %% (%s) and whose other coordinates are those of t / (%s * %s): a warp's lanes share "
                           "the rest */\n",
                           TOK(&ts, inner->decl), sin_, TOK(&ts, c->decl), sin_, smod, sin_, smod);
    else
        rc = hk_buf_printf(&nb,
                           "{   /* hk: channel_lanes: trip t runs the index whose `%.*s` is t %% (%s) and whose other " /* i18n: not for people */
                           "coordinates are those of t / (%s): a warp's lanes share the rest */\n",
                           TOK(&ts, c->decl), smod, smod);
    if (!rc)
        rc = hk_buf_printf(&nb, "%s    long long hk_cl_s = 1, hk_cl_c = 1, hk_cl_i = 1;\n%s    bool hk_cl_ok = true;\n", /* i18n: not for people */
                           ind, ind);
    for (size_t i = 0; i < c->n_div && !rc; i++)
        rc = hk_buf_printf(&nb, "%s    hk_cl_ok = hk_cl_ok && (long long)(%s) > 0 && hk_cl_s <= 0x3fffffffLL;\n" /* i18n: not for people */
                                "%s    if (hk_cl_ok)\n%s        hk_cl_s *= (long long)(%s);\n",
                           ind, c->div[i], ind, ind, c->div[i]);
    for (size_t i = 0; i < c->n_mod && !rc; i++)
        rc = hk_buf_printf(&nb, "%s    hk_cl_ok = hk_cl_ok && (long long)(%s) > 0 && hk_cl_c <= 0x3fffffffLL;\n" /* i18n: not for people */
                                "%s    if (hk_cl_ok)\n%s        hk_cl_c *= (long long)(%s);\n",
                           ind, c->mod[i], ind, ind, c->mod[i]);
    for (size_t i = 0; inner && i < inner->n_mod && !rc; i++)
        rc = hk_buf_printf(&nb, "%s    hk_cl_ok = hk_cl_ok && (long long)(%s) > 0 && hk_cl_i <= 0x3fffffffLL;\n" /* i18n: not for people */
                                "%s    if (hk_cl_ok)\n%s        hk_cl_i *= (long long)(%s);\n",
                           ind, inner->mod[i], ind, ind, inner->mod[i]);
    if (!rc)
        rc = hk_buf_printf(&nb, "%s    hk_cl_ok = hk_cl_ok && hk_cl_s <= 0x3fffffffLL && hk_cl_c <= 0x3fffffffLL && " /* i18n: not for people */
                                "hk_cl_i <= 0x3fffffffLL && hk_cl_s %% hk_cl_i == 0 && "
                                "(long long)(%.*s) > 0 && (long long)(%.*s) %% (hk_cl_s * hk_cl_c) == 0;\n"
                                "%s    const long long hk_cl_m = hk_cl_ok ? hk_cl_s / hk_cl_i : 1, hk_cl_sc = hk_cl_s * hk_cl_c;\n%s    ",
                           ind, bl, bt, bl, bt, ind, ind);
    /* the header with its counter renamed */
    for (size_t q = st; q < ba && !rc; q++) {
        size_t from = q == st ? ts.t[st].start : ts.t[q - 1].end;
        rc = hk_buf_append(&nb, text + from, ts.t[q].start - from);
        if (!rc)
            rc = rwl_same_tok(&ts, q, s.v) && ts.t[q].kind == T_IDENT
                     ? hk_buf_appends(&nb, "hk_cl_t")
                     : hk_buf_append(&nb, text + ts.t[q].start, ts.t[q].end - ts.t[q].start);
    }
    bool braced = rwl_tok_is(&ts, ba - 1, "{") && ba - 1 >= st;
    if (!rc && !braced)
        rc = hk_buf_appends(&nb, " {");
    if (!rc)
        rc = hk_buf_printf(&nb,
                           "\n%s    auto %.*s = hk_cl_t;\n" /* i18n: not for people */
                           "%s    if (hk_cl_ok) {\n"
                           "%s        typedef decltype(hk_cl_t) hk_cl_T;\n"
                           "%s        const hk_cl_T hk_cl_r = hk_cl_t / (hk_cl_T)hk_cl_i, hk_cl_q = hk_cl_r / (hk_cl_T)hk_cl_c;\n"
                           "%s        %.*s = (hk_cl_T)(hk_cl_q / (hk_cl_T)hk_cl_m * (hk_cl_T)hk_cl_sc + (hk_cl_r - hk_cl_q * (hk_cl_T)hk_cl_c) * (hk_cl_T)hk_cl_s +\n"
                           "%s            hk_cl_q %% (hk_cl_T)hk_cl_m * (hk_cl_T)hk_cl_i + (hk_cl_t - hk_cl_r * (hk_cl_T)hk_cl_i));\n"
                           "%s    }\n",
                           ind, TOK(&ts, s.v), ind, ind, ind, ind, TOK(&ts, s.v), ind, ind);
    if (!rc)
        rc = hk_buf_append(&nb, text + ts.t[ba - 1].end, ts.t[se - 1].end - ts.t[ba - 1].end);
    if (!rc && !braced)
        rc = hk_buf_printf(&nb, "\n%s    }", ind); /* i18n: not for people */
    if (!rc)
        rc = hk_buf_printf(&nb, "\n%s}", ind);
    if (!rc)
        rc = rwl_edits_add(&es, ts.t[st].start, ts.t[se - 1].end, nb.data);
    if (rc)
        goto out;
    {
        char *desc = inner ? hk_asprintf(EN(RW_CL_DESC2), f->name, rwl_line_at(text, ts.t[st].start), TOK(&ts, inner->decl),
                                         sin_, TOK(&ts, c->decl), sin_, smod, bl, bt, sdiv, smod, TOK(&ts, inner->decl),
                                         TOK(&ts, c->decl), div_line)
                           : hk_asprintf(EN(RW_CL_DESC), f->name, rwl_line_at(text, ts.t[st].start), TOK(&ts, c->decl), smod,
                                         smod, bl, bt, sdiv, smod, TOK(&ts, c->decl), div_line);
        rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    }
    goto out;
refused:
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "channel_lanes", f->name,
                                             s.why[0] ? s.why : EN(RW_NO_REASON)));
out:
    hk_buf_free(&nb);
    rwl_edits_free(&es);
    km_free(km);
    rwl_toks_free(&ts);
    return rc;
}

static const rw_param cl_params[] = {
    /* where c goes: 2 next to the innermost coordinate (which keeps its lanes), 1 innermost */
    {.name = "position", .type = RW_PARAM_ENUM, .values = {2, 1}, .n_values = 2, .def = 2},
};

static int emit_channel_lanes(const rw_context *c, const int *p, rw_result *out)
{
    return channel_lanes(c->text, c->len, c->m, c->kernel, p ? p[0] : 2, out);
}

const rw_descriptor rw_channel_lanes_desc = {
    .name = "channel_lanes",
    .summary = "a grid-stride loop over `(.., c, .., x)` coordinates whose loop bounds depend on a fine coordinate and " /* i18n: not for people */
               "not on c runs c across the lanes: a warp's lanes share their bounds and trips (exact)",
    .flags = RW_ALGORITHM,
    .params = cl_params,
    .n_params = 1,
    .emit = emit_channel_lanes,
};
