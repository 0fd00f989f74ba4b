/* interior_taps (issue 13, session 50): a loop over a convolution's or stencil's taps that tests
 * every tap's position against the data's range -- `if (start + j >= 0 && start + j < n) acc +=
 * ...` (a 1-D convolution whose taps are skipped at the ends), `int ix = x + kx - half; if (ix <
 * 0 || ix >= width) continue;` (a 2-D one) -- pays the test on every tap although it fails only
 * near the borders. The rewrite gives the loop an interior path without the test:
 *
 *     { const bool hk_interior = A < B && P(A) && P(B - 1) && <no wrap between them>;
 *       if (hk_interior) { for (...) BODY-without-the-test } else { for (...) BODY } }
 *
 * P(v) is the test as written, with the loop's index (and the loop-body locals the test reads)
 * given the index's value v: the first and the last trip.
 *
 * Why it is exact. The loop is `for (int J = A; J < B; J++)` (or `<=`, `++J`, `J += 1`), J never
 * written in the body, A and B free of names the loop writes: its trips are J = A .. last. The
 * test is the body's first top-level `if`, reached on every trip after the statements before it;
 * it is a conjunction (an `if` guarding a statement) or a disjunction (`if (...) continue;`) of
 * comparisons (<, <=, >, >=), each either free of J -- the same on every trip -- or `E REL X`
 * (or `X REL E`) where X is free of J and E is J plus or minus invariant terms: J itself once, a
 * top-level `+` term, beside terms of names never written in the loop (or a local declared
 * before the test as `T name = such an E;`, never written). Every name is declared an integer
 * (parameter, local, or a macro of integer literals) and every literal is an integer, so E's
 * value moves by +1 a trip in exact arithmetic, or drops by at least 2^32 - 1 where its type (or
 * the comparison's) wraps. J's trips number under 2^31, so a drop anywhere between the first and
 * the last trip makes E's value there, converted as the comparison converts it, smaller at the
 * last trip than at the first: `(E@A) + 0 * (X) <= (E@last) + 0 * (X)` (the sum has the
 * comparison's type) rules drops out. Without drops, E's converted value never decreases from
 * trip to trip, and a comparison with a fixed X is then false-then-true or true-then-false along
 * the trips: true at both ends, it is true at every trip between. So when hk_interior holds the
 * test passes on every trip, and the body without it does exactly what the original does, tap
 * for tap in the same order (the sums round alike: bit-exact). Otherwise the original loop runs.
 * P(A) and P(last) are the test at the first and last trips, evaluated as the original does
 * (its && and || in order); the wrap checks run only after both held, so every operand they
 * evaluate the original has evaluated: nothing is computed that the original would not.
 *
 * Refused, with the construct and its line: another loop header, no such test, a comparison
 * that is not of that form, a name not declared an integer (a float, a template parameter, a
 * global), an operand the loop writes, a barrier, a warp collective, `__shared__`, `static`,
 * `goto` or `asm` in the loop (the two paths would reach it apart, or it cannot be copied), a
 * loop rewritten before. Loops nested in a loop that is itself split are left as they are: the
 * innermost loops that match are split. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "analysis/analysis.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define TP_MAX_LOOPS 32
#define TP_MAX_TERMS 16
#define TP_MAX_IFS 4

typedef struct {
    const char *text;
    size_t len;
    const an_model *m;
    const an_function *f;
    const rw_toks *ts;
    char why[400];
} tp_ctx;

/* One loop that matched. */
typedef struct {
    size_t for_k, close_paren, body_a, body_b; /* tokens: `for`, its header's `)`, the body [a, b) */
    size_t var;                                 /* J's declaration token */
    size_t init_a, init_b, bound_a, bound_b;    /* A and B */
    bool le;                                    /* `J <= B` */
    /* the tests: one guard `if (C) S [else S2]` (guard), or a run of `if (D) S` whose S never
     * runs inside (`continue;`, or a clamp writing a local the tests read) */
    size_t n_ifs;
    size_t if_k[TP_MAX_IFS], cond_a[TP_MAX_IFS], cond_b[TP_MAX_IFS], then_a[TP_MAX_IFS], then_b[TP_MAX_IFS];
    size_t stmt_b; /* one past the last test (its else included) */
    bool guard;
    size_t dep_k[TP_MAX_TERMS], dep_e_a[TP_MAX_TERMS], dep_e_b[TP_MAX_TERMS], dep_x_a[TP_MAX_TERMS], dep_x_b[TP_MAX_TERMS];
    size_t n_dep;
    size_t locals[TP_MAX_TERMS]; /* declaration tokens of the body locals the test reads */
    size_t loc_init_a[TP_MAX_TERMS], loc_init_b[TP_MAX_TERMS], loc_type_a[TP_MAX_TERMS];
    size_t n_locals;
    uint32_t from; /* the byte the replacement starts at (a #pragma line before the loop) */
    bool pragma;
    uint32_t pragma_a, pragma_b;
} tp_loop;

static bool same_name(const rw_toks *ts, size_t a, size_t b)
{
    return a < ts->n && b < ts->n && ts->t[a].kind == T_IDENT && ts->t[b].kind == T_IDENT && rwl_same_tok(ts, a, b);
}

/* An integer literal: decimal, octal or hex digits and u/l suffixes, no '.', exponent or f. */
static bool int_literal_text(const char *s, size_t n)
{
    size_t i = 0;
    bool hex = n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (hex)
        i = 2;
    size_t digits = 0;
    while (i < n && (hex ? isxdigit((unsigned char)s[i]) : isdigit((unsigned char)s[i])))
        i++, digits++;
    if (!digits)
        return false;
    while (i < n && (s[i] == 'u' || s[i] == 'U' || s[i] == 'l' || s[i] == 'L'))
        i++;
    return i == n;
}

static bool int_literal(const rw_toks *ts, size_t k)
{
    return k < ts->n && ts->t[k].kind == T_NUMBER &&
           int_literal_text(ts->text + ts->t[k].start, ts->t[k].end - ts->t[k].start);
}

static const char *const int_words[] = {"int", "unsigned", "signed", "long", "short", "size_t", "ptrdiff_t",
                                        "int64_t", "uint64_t", "int32_t", "uint32_t", "int16_t", "uint16_t"};

static bool int_word(const rw_toks *ts, size_t k)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(int_words); i++)
        if (rwl_tok_is_ident(ts, k, int_words[i]))
            return true;
    return false;
}

/* A parameter's type text: integer words (and const) only, no pointer or reference. */
static bool int_type_text(const char *s)
{
    if (!s || strchr(s, '*') || strchr(s, '&') || strchr(s, '['))
        return false;
    bool any = false;
    while (*s) {
        while (*s == ' ')
            s++;
        const char *w = s;
        while (*s && *s != ' ')
            s++;
        size_t n = (size_t)(s - w);
        if (!n)
            break;
        bool ok = n == 5 && !memcmp(w, "const", 5);
        for (size_t i = 0; !ok && i < HK_ARRAY_LEN(int_words); i++)
            if (strlen(int_words[i]) == n && !memcmp(w, int_words[i], n)) {
                ok = true;
                any = true;
            }
        if (!ok)
            return false;
    }
    return any;
}

/* The statement containing token d starts at the returned token (after `;`, `{`, `}` or the
 * `(` of a for header, at the nesting depth of d). */
static size_t stmt_start(const rw_toks *ts, size_t d)
{
    size_t q = d;
    int depth = 0;
    while (q > 0) {
        size_t p = q - 1;
        if (rwl_tok_is(ts, p, ")") || rwl_tok_is(ts, p, "]"))
            depth++;
        else if (rwl_tok_is(ts, p, "(") || rwl_tok_is(ts, p, "[")) {
            if (depth == 0)
                return q;
            depth--;
        } else if (depth == 0 && (rwl_tok_is(ts, p, ";") || rwl_tok_is(ts, p, "{") || rwl_tok_is(ts, p, "}")))
            return q;
        q = p;
    }
    return 0;
}

/* Is the declaration whose name is at d an integer one: its statement's leading words are
 * integer words (and const), then the first declarator's name; no `*` or `&` before d, no `[`
 * after it. */
static bool int_declaration(const rw_toks *ts, size_t d)
{
    if (d == 0 || rwl_tok_is(ts, d - 1, "*") || rwl_tok_is(ts, d - 1, "&") || rwl_tok_is(ts, d + 1, "["))
        return false;
    size_t q = stmt_start(ts, d);
    bool any = false;
    while (q < d && (int_word(ts, q) || rwl_tok_is_ident(ts, q, "const"))) {
        any |= int_word(ts, q);
        q++;
    }
    return any && q < ts->n && ts->t[q].kind == T_IDENT && !rwl_tok_is(ts, q + 1, "*") && !rwl_tok_is(ts, q + 1, "&");
}

/* A macro of integer literals: every #define of the name is object-like and spells only integer
 * literals, parentheses and + - * / % << >>. At least one. */
static bool int_macro(const tp_ctx *c, size_t k)
{
    const char *name = c->text + c->ts->t[k].start;
    size_t nl = c->ts->t[k].end - c->ts->t[k].start, at = 0, a, b;
    bool any = false;
    while (rwl_next_define(c->text, c->len, &at, name, nl, &a, &b)) {
        size_t v = a + nl;
        if (v < b && c->text[v] == '(')
            return false; /* a function-like macro */
        rw_toks mt = {0};
        if (rwl_lex(c->text, (uint32_t)v, (uint32_t)b, &mt) || !mt.n) {
            rwl_toks_free(&mt);
            return false;
        }
        bool ok = true;
        for (size_t i = 0; ok && i < mt.n; i++)
            ok = int_literal(&mt, i) || rwl_tok_is(&mt, i, "(") || rwl_tok_is(&mt, i, ")") ||
                 rwl_tok_is(&mt, i, "+") || rwl_tok_is(&mt, i, "-") || rwl_tok_is(&mt, i, "*") ||
                 rwl_tok_is(&mt, i, "/") || rwl_tok_is(&mt, i, "%") || rwl_tok_is(&mt, i, "<<") ||
                 rwl_tok_is(&mt, i, ">>");
        rwl_toks_free(&mt);
        if (!ok)
            return false;
        any = true;
    }
    return any;
}

static bool builtin_at(const rw_toks *ts, size_t k)
{
    return (rwl_tok_is_ident(ts, k, "threadIdx") || rwl_tok_is_ident(ts, k, "blockIdx") ||
            rwl_tok_is_ident(ts, k, "blockDim") || rwl_tok_is_ident(ts, k, "gridDim")) &&
           rwl_tok_is(ts, k + 1, ".") &&
           (rwl_tok_is_ident(ts, k + 2, "x") || rwl_tok_is_ident(ts, k + 2, "y") || rwl_tok_is_ident(ts, k + 2, "z"));
}

/* Is the name at k an integer wherever the kernel declares it: every parameter and body
 * declaration of that name integer, or (none of those) a macro of integer literals. */
static bool int_name(const tp_ctx *c, size_t k)
{
    const rw_toks *ts = c->ts;
    size_t n = ts->t[k].end - ts->t[k].start;
    const char *s = ts->text + ts->t[k].start;
    bool found = false;
    for (size_t i = 0; i < c->f->n_params; i++) {
        const an_param *p = &c->f->params[i];
        if (p->name && strlen(p->name) == n && !memcmp(p->name, s, n)) {
            if (!int_type_text(p->type))
                return false;
            found = true;
        }
    }
    for (size_t d = 0; d < ts->n; d++)
        if (same_name(ts, d, k) && rwl_declared_here(ts, d)) {
            if (!int_declaration(ts, d))
                return false;
            found = true;
        }
    if (c->f->template_params) { /* `template <int R>`: an integer non-type parameter */
        const char *tp = c->f->template_params;
        rw_toks tt = {0};
        if (!rwl_lex(tp, 0, (uint32_t)strlen(tp), &tt))
            for (size_t q = 1; q < tt.n; q++)
                if (tt.t[q].kind == T_IDENT && tt.t[q].end - tt.t[q].start == n && !memcmp(tp + tt.t[q].start, s, n)) {
                    if (!int_word(&tt, q - 1) || !(rwl_tok_is(&tt, q + 1, ",") || rwl_tok_is(&tt, q + 1, ">") ||
                                                   rwl_tok_is(&tt, q + 1, "="))) {
                        rwl_toks_free(&tt);
                        return false;
                    }
                    found = true;
                }
        rwl_toks_free(&tt);
    }
    return found || int_macro(c, k);
}

static bool stops_copy(const rw_toks *ts, size_t k, const char **word)
{
    static const char *const bad[] = {"__syncthreads", "__syncwarp", "__shared__", "static", "goto", "asm",
                                      "__threadfence_block", "__activemask", "__syncthreads_count",
                                      "__syncthreads_and", "__syncthreads_or", "hk_interior"};
    static const char *const prefix[] = {"__shfl", "__ballot", "__any", "__all", "__match", "__reduce_", "cooperative_groups"};
    if (ts->t[k].kind != T_IDENT)
        return false;
    for (size_t i = 0; i < HK_ARRAY_LEN(bad); i++)
        if (rwl_tok_is_ident(ts, k, bad[i])) {
            *word = bad[i];
            return true;
        }
    for (size_t i = 0; i < HK_ARRAY_LEN(prefix); i++) {
        size_t pl = strlen(prefix[i]);
        if (ts->t[k].end - ts->t[k].start >= pl && !memcmp(ts->text + ts->t[k].start, prefix[i], pl)) {
            *word = prefix[i];
            return true;
        }
    }
    /* cg's tile.sync(), g.sync(), this_grid().sync() */
    if (rwl_tok_is_ident(ts, k, "sync") && k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->"))) {
        *word = "sync";
        return true;
    }
    return false;
}

/* Is the name at k written anywhere in [a, b) (assigned, ++/--, address taken)? */
static bool written_in(const rw_toks *ts, size_t k, size_t a, size_t b, size_t *at)
{
    for (size_t q = a; q < b; q++)
        if (same_name(ts, q, k) && !(q > 0 && (rwl_tok_is(ts, q - 1, ".") || rwl_tok_is(ts, q - 1, "->"))) &&
            rwl_scalar_written(ts, q)) {
            *at = q;
            return true;
        }
    return false;
}

/* An operand free of J: names (integers, never written in the loop [la, lb)), integer literals,
 * thread/block builtins, parentheses, integer casts and + - * / % << >> & | ^ ~ (unary - + too).
 * No memory, no call, no assignment. */
static bool invariant_operand(tp_ctx *c, size_t a, size_t b, size_t var, size_t la, size_t lb, const tp_loop *L)
{
    const rw_toks *ts = c->ts;
    if (a >= b)
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, a, "condition", "%s", EN(RW_TAPS_TERM));
    for (size_t q = a; q < b; q++) {
        if (builtin_at(ts, q)) {
            q += 2;
            continue;
        }
        if (ts->t[q].kind == T_IDENT) {
            if (same_name(ts, q, var))
                return rwl_refuse(c->why, sizeof c->why, ts, c->text, q, "condition", "%s", EN(RW_TAPS_TERM));
            if (int_word(ts, q) && q > 0 && rwl_tok_is(ts, q - 1, "(")) { /* a cast `(int)`, `(long long)` */
                size_t e = q;
                while (e < b && int_word(ts, e))
                    e++;
                if (!rwl_tok_is(ts, e, ")"))
                    return rwl_refuse(c->why, sizeof c->why, ts, c->text, q, "condition", "%s", EN(RW_TAPS_TERM));
                q = e - 1;
                continue;
            }
            for (size_t i = 0; L && i < L->n_locals; i++)
                if (same_name(ts, q, L->locals[i]))
                    return rwl_refuse(c->why, sizeof c->why, ts, c->text, q, "condition", "%s", EN(RW_TAPS_TERM));
            if (rwl_tok_is(ts, q + 1, "(") || rwl_tok_is(ts, q + 1, "[") || rwl_tok_is(ts, q + 1, ".") ||
                rwl_tok_is(ts, q + 1, "->"))
                return rwl_refuse(c->why, sizeof c->why, ts, c->text, q, "condition", "%s", EN(RW_TAPS_TERM));
            char *nm = rwl_tok_text(ts, q, q + 1);
            if (!int_name(c, q)) {
                rwl_refuse(c->why, sizeof c->why, ts, c->text, q, "name", EN(RW_TAPS_NOT_INT), nm ? nm : "?");
                hk_free(nm);
                return false;
            }
            size_t at;
            if (written_in(ts, q, la, lb, &at)) {
                rwl_refuse(c->why, sizeof c->why, ts, c->text, at, "name", EN(RW_TAPS_WRITTEN), nm ? nm : "?");
                hk_free(nm);
                return false;
            }
            hk_free(nm);
            continue;
        }
        if (ts->t[q].kind == T_NUMBER) {
            if (!int_literal(ts, q))
                return rwl_refuse(c->why, sizeof c->why, ts, c->text, q, "condition", "%s", EN(RW_TAPS_TERM));
            continue;
        }
        static const char *const ops[] = {"(", ")", "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "~"};
        bool ok = false;
        for (size_t i = 0; !ok && i < HK_ARRAY_LEN(ops); i++)
            ok = rwl_tok_is(ts, q, ops[i]);
        if (!ok)
            return rwl_refuse(c->why, sizeof c->why, ts, c->text, q, "condition", "%s", EN(RW_TAPS_TERM));
    }
    return true;
}

/* Is token k in [a, b) a binary + or - (after an operand)? */
static bool binary_sign(const rw_toks *ts, size_t k, size_t a)
{
    if (!(rwl_tok_is(ts, k, "+") || rwl_tok_is(ts, k, "-")) || k == a)
        return false;
    return ts->t[k - 1].kind == T_IDENT || ts->t[k - 1].kind == T_NUMBER || rwl_tok_is(ts, k - 1, ")") ||
           rwl_tok_is(ts, k - 1, "]");
}

/* E in [a, b): J (the name at var) once as a top-level `+` term, every other top-level term
 * invariant; at depth 0 only + - * / % and unary operators. */
static bool affine_in_j(tp_ctx *c, size_t a, size_t b, size_t var, size_t la, size_t lb, const tp_loop *L)
{
    const rw_toks *ts = c->ts;
    size_t jterm = (size_t)-1;
    int depth = 0;
    size_t ta = a;
    bool plus = true;
    for (size_t q = a; q <= b; q++) {
        bool end = q == b;
        if (!end) {
            if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "["))
                depth++;
            else if (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]"))
                depth--;
        }
        if (end || (depth == 0 && binary_sign(ts, q, a))) {
            /* the term [ta, q) with sign plus */
            if (q == ta + 1 && same_name(ts, ta, var)) {
                if (!plus || jterm != (size_t)-1)
                    return rwl_refuse(c->why, sizeof c->why, ts, c->text, ta, "condition", "%s", EN(RW_TAPS_TERM));
                jterm = ta;
            } else {
                /* the first term may start with a unary sign */
                size_t s = ta;
                if (!invariant_operand(c, s, q, var, la, lb, L))
                    return false;
            }
            if (!end) {
                plus = rwl_tok_is(ts, q, "+");
                ta = q + 1;
            }
        }
    }
    if (jterm == (size_t)-1)
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, a, "condition", "%s", EN(RW_TAPS_TERM));
    return true;
}

static size_t find_local(const tp_loop *L, const rw_toks *ts, size_t k)
{
    for (size_t i = 0; i < L->n_locals; i++)
        if (same_name(ts, k, L->locals[i]))
            return i;
    return (size_t)-1;
}

static bool mentions_j(const rw_toks *ts, size_t a, size_t b, const tp_loop *L)
{
    for (size_t q = a; q < b; q++)
        if (same_name(ts, q, L->var) || find_local(L, ts, q) != (size_t)-1)
            return true;
    return false;
}

/* One comparison [a, b) of the test. */
static bool tp_term(tp_ctx *c, tp_loop *L, size_t a, size_t b, size_t la, size_t lb)
{
    const rw_toks *ts = c->ts;
    while (a + 1 < b && rwl_tok_is(ts, a, "(") && rwl_match_close(ts, a) == b - 1)
        a++, b--;
    size_t rel = 0;
    int depth = 0, n_rel = 0;
    for (size_t q = a; q < b; q++) {
        if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "["))
            depth++;
        else if (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]"))
            depth--;
        else if (depth == 0 && (rwl_tok_is(ts, q, "<") || rwl_tok_is(ts, q, "<=") || rwl_tok_is(ts, q, ">") ||
                                rwl_tok_is(ts, q, ">="))) {
            rel = q;
            n_rel++;
        } else if (depth == 0 && (rwl_tok_is(ts, q, "==") || rwl_tok_is(ts, q, "!=") || rwl_tok_is(ts, q, "?") ||
                                  rwl_tok_is(ts, q, "!") || rwl_tok_is(ts, q, ",") || rwl_tok_is_assign_op(ts, q)))
            n_rel = 99;
    }
    if (n_rel != 1)
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, a, "condition", "%s", EN(RW_TAPS_TERM));
    bool l = mentions_j(ts, a, rel, L), r = mentions_j(ts, rel + 1, b, L);
    if (!l && !r) /* free of J: the same on every trip */
        return invariant_operand(c, a, rel, L->var, la, lb, L) && invariant_operand(c, rel + 1, b, L->var, la, lb, L);
    if (l && r)
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, a, "condition", "%s", EN(RW_TAPS_TERM));
    size_t ea = l ? a : rel + 1, eb = l ? rel : b, xa = l ? rel + 1 : a, xb = l ? b : rel;
    if (!invariant_operand(c, xa, xb, L->var, la, lb, L))
        return false;
    if (eb == ea + 1 && find_local(L, ts, ea) != (size_t)-1) {
        size_t i = find_local(L, ts, ea);
        if (!affine_in_j(c, L->loc_init_a[i], L->loc_init_b[i], L->var, la, lb, NULL))
            return false;
    } else {
        for (size_t q = ea; q < eb; q++)
            if (find_local(L, ts, q) != (size_t)-1)
                return rwl_refuse(c->why, sizeof c->why, ts, c->text, q, "condition", "%s", EN(RW_TAPS_TERM));
        if (!affine_in_j(c, ea, eb, L->var, la, lb, L))
            return false;
    }
    if (L->n_dep == TP_MAX_TERMS)
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, a, "condition", "%s", EN(RW_TAPS_TERM));
    L->dep_k[L->n_dep] = rel;
    L->dep_e_a[L->n_dep] = ea;
    L->dep_e_b[L->n_dep] = eb;
    L->dep_x_a[L->n_dep] = xa;
    L->dep_x_b[L->n_dep] = xb;
    L->n_dep++;
    return true;
}

/* A call in the loop at token q that may write a name the tests read: a function of the file
 * with a reference parameter (not `const T &`), or a function-like macro of the file that
 * writes (rwl_pure_function_macro says no). Other calls take values and pointers only: a name
 * written through `&name` is caught as written. */
static bool call_may_write(const tp_ctx *c, size_t q)
{
    const rw_toks *ts = c->ts;
    const char *nm = ts->text + ts->t[q].start;
    size_t nl = ts->t[q].end - ts->t[q].start;
    size_t at = 0, a, b;
    while (rwl_next_define(c->text, c->len, &at, nm, nl, &a, &b))
        if (a + nl < b && c->text[a + nl] == '(' && !rwl_pure_function_macro(c->text, c->len, nm, nl, 4))
            return true;
    for (size_t i = 0; i < c->m->n_funcs; i++) {
        const an_function *g = &c->m->funcs[i];
        if (!g->name || strlen(g->name) != nl || memcmp(g->name, nm, nl))
            continue;
        for (size_t j = 0; j < g->n_params; j++) {
            const char *t = g->params[j].type;
            if (t && strchr(t, '&') && strncmp(t, "const ", 6) != 0)
                return true;
        }
    }
    return false;
}

/* Matches the loop at token k (`for`) within [0, end). true with *L filled, or false with
 * c->why set (the first refusal). */
static bool tp_match(tp_ctx *c, size_t k, size_t end, tp_loop *L)
{
    const rw_toks *ts = c->ts;
    memset(L, 0, sizeof *L);
    L->for_k = k;
    if (!rwl_tok_is(ts, k + 1, "("))
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, k, "loop", "%s", EN(RW_TAPS_HEADER));
    size_t cp = rwl_match_close(ts, k + 1);
    if (cp >= end)
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, k, "loop", "%s", EN(RW_TAPS_HEADER));
    L->close_paren = cp;
    /* for ( int J = A ; J < B ; J++ ) */
    size_t q = k + 2;
    if (!rwl_tok_is_ident(ts, q, "int") || ts->t[q + 1].kind != T_IDENT || !rwl_tok_is(ts, q + 2, "="))
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, k, "loop", "%s", EN(RW_TAPS_HEADER));
    L->var = q + 1;
    L->init_a = q + 3;
    size_t s1 = L->init_a;
    int depth = 0;
    while (s1 < cp && !(depth == 0 && (rwl_tok_is(ts, s1, ";") || rwl_tok_is(ts, s1, ",")))) {
        depth += rwl_tok_is(ts, s1, "(") - rwl_tok_is(ts, s1, ")");
        s1++;
    }
    if (!rwl_tok_is(ts, s1, ";") || s1 == L->init_a)
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, k, "loop", "%s", EN(RW_TAPS_HEADER));
    L->init_b = s1;
    if (!same_name(ts, s1 + 1, L->var) || !(rwl_tok_is(ts, s1 + 2, "<") || rwl_tok_is(ts, s1 + 2, "<=")))
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, k, "loop", "%s", EN(RW_TAPS_HEADER));
    L->le = rwl_tok_is(ts, s1 + 2, "<=");
    L->bound_a = s1 + 3;
    size_t s2 = L->bound_a;
    depth = 0;
    while (s2 < cp && !(depth == 0 && rwl_tok_is(ts, s2, ";"))) {
        depth += rwl_tok_is(ts, s2, "(") - rwl_tok_is(ts, s2, ")");
        s2++;
    }
    if (!rwl_tok_is(ts, s2, ";") || s2 == L->bound_a || rwl_has_loose_op(ts, L->bound_a, s2))
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, k, "loop", "%s", EN(RW_TAPS_HEADER));
    L->bound_b = s2;
    size_t i0 = s2 + 1;
    bool inc = (cp == i0 + 2 && ((same_name(ts, i0, L->var) && rwl_tok_is(ts, i0 + 1, "++")) ||
                                 (rwl_tok_is(ts, i0, "++") && same_name(ts, i0 + 1, L->var)))) ||
               (cp == i0 + 3 && same_name(ts, i0, L->var) && rwl_tok_is(ts, i0 + 1, "+=") && rwl_tok_is(ts, i0 + 2, "1"));
    if (!inc)
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, k, "loop", "%s", EN(RW_TAPS_HEADER));
    /* the body */
    L->body_a = cp + 1;
    L->body_b = rwl_stmt_end(ts, cp + 1, end);
    if (L->body_b <= L->body_a || L->body_b > end)
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, k, "loop", "%s", EN(RW_TAPS_HEADER));
    for (size_t p = k; p < L->body_b; p++) {
        const char *w = NULL;
        if (stops_copy(ts, p, &w))
            return rwl_refuse(c->why, sizeof c->why, ts, c->text, p, "loop", EN(RW_TAPS_SYNC), w);
        if (ts->t[p].kind == T_IDENT && rwl_call_paren(ts, p) && call_may_write(c, p)) {
            char *nm = rwl_tok_text(ts, p, p + 1);
            rwl_refuse(c->why, sizeof c->why, ts, c->text, p, "call", EN(RW_TAPS_CALL), nm ? nm : "?");
            hk_free(nm);
            return false;
        }
    }
    /* every trip from A to the last runs and reaches the tests: nothing leaves the loop early
     * (the ends' tests are then ones the original evaluates too) */
    for (size_t p = L->body_a; p < L->body_b; p++) {
        static const char *const leave[] = {"return", "throw", "__trap", "exit", "abort", "longjmp"};
        for (size_t i = 0; i < HK_ARRAY_LEN(leave); i++)
            if (rwl_tok_is_ident(ts, p, leave[i]))
                return rwl_refuse(c->why, sizeof c->why, ts, c->text, p, "loop", EN(RW_TAPS_LEAVES), leave[i]);
        if (rwl_tok_is_ident(ts, p, "break") && !rwl_in_nested(ts, L->body_a, L->body_b, p, true))
            return rwl_refuse(c->why, sizeof c->why, ts, c->text, p, "loop", EN(RW_TAPS_LEAVES), "break");
    }
    size_t at;
    if (written_in(ts, L->var, L->body_a, L->body_b, &at)) {
        char *nm = rwl_tok_text(ts, L->var, L->var + 1);
        rwl_refuse(c->why, sizeof c->why, ts, c->text, at, "name", EN(RW_TAPS_WRITTEN), nm ? nm : "?");
        hk_free(nm);
        return false;
    }
    /* A and B: invariant operands (no J in them) */
    if (!invariant_operand(c, L->init_a, L->init_b, L->var, k, L->body_b, NULL) ||
        !invariant_operand(c, L->bound_a, L->bound_b, L->var, k, L->body_b, NULL))
        return false;
    /* the body's statements up to its first top-level if */
    size_t sa = L->body_a, sb = L->body_b;
    if (rwl_tok_is(ts, sa, "{"))
        sa++, sb--;
    size_t st = sa;
    while (st < sb && !rwl_tok_is_ident(ts, st, "if")) {
        size_t se = rwl_stmt_end(ts, st, sb);
        if (se <= st)
            break;
        /* `T name = INIT;` of an integer type: a local the test may read */
        size_t d = st;
        while (d < se && (int_word(ts, d) || rwl_tok_is_ident(ts, d, "const")))
            d++;
        if (d > st && d + 2 < se && ts->t[d].kind == T_IDENT && rwl_tok_is(ts, d + 1, "=") &&
            rwl_tok_is(ts, se - 1, ";") && L->n_locals < TP_MAX_TERMS && int_declaration(ts, d)) {
            int dd = 0;
            bool one = true;
            for (size_t p = d + 2; p < se - 1; p++) {
                dd += rwl_tok_is(ts, p, "(") - rwl_tok_is(ts, p, ")");
                if (dd == 0 && rwl_tok_is(ts, p, ","))
                    one = false;
            }
            if (one) {
                L->locals[L->n_locals] = d;
                L->loc_type_a[L->n_locals] = st;
                L->loc_init_a[L->n_locals] = d + 2;
                L->loc_init_b[L->n_locals] = se - 1;
                L->n_locals++;
            }
        }
        st = se;
    }
    if (st >= sb || !rwl_tok_is(ts, st + 1, "("))
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, k, "loop", "%s", EN(RW_TAPS_NO_TEST));
    for (size_t p = sa; p < st; p++) /* a continue before the tests would skip them */
        if (rwl_tok_is_ident(ts, p, "continue") && !rwl_in_nested(ts, sa, st, p, false))
            return rwl_refuse(c->why, sizeof c->why, ts, c->text, p, "loop", EN(RW_TAPS_LEAVES), "continue");
    /* the tests: the first if, and after a skipping one the ifs that follow it and skip too */
    while (st < sb && rwl_tok_is_ident(ts, st, "if") && rwl_tok_is(ts, st + 1, "(") && L->n_ifs < TP_MAX_IFS) {
        size_t cb = rwl_match_close(ts, st + 1);
        if (cb >= sb)
            break;
        size_t ta = cb + 1, tb = rwl_stmt_end(ts, ta, sb), sb2 = tb;
        if (tb <= ta)
            break;
        if (rwl_tok_is_ident(ts, tb, "else"))
            sb2 = rwl_stmt_end(ts, tb + 1, sb);
        bool cont = (tb == ta + 2 && rwl_tok_is_ident(ts, ta, "continue")) ||
                    (tb == ta + 4 && rwl_tok_is(ts, ta, "{") && rwl_tok_is_ident(ts, ta + 1, "continue") &&
                     rwl_tok_is(ts, ta + 3, "}"));
        bool clamp = false; /* S writes a local that the test reads */
        for (size_t w = ta; w < tb && !clamp; w++)
            if (find_local(L, ts, w) != (size_t)-1 && rwl_scalar_written(ts, w))
                for (size_t r = st + 2; r < cb && !clamp; r++)
                    clamp = same_name(ts, r, w);
        bool skip = (cont || clamp) && sb2 == tb;
        if (L->n_ifs && !skip)
            break;
        size_t i = L->n_ifs++;
        L->if_k[i] = st;
        L->cond_a[i] = st + 2;
        L->cond_b[i] = cb;
        L->then_a[i] = ta;
        L->then_b[i] = tb;
        L->stmt_b = sb2;
        L->guard = !skip;
        if (!skip)
            break;
        st = sb2;
    }
    for (size_t i = 0; i < L->n_ifs; i++) {
        /* a local a test reads: not written between its declaration and the test, but in the
         * statements of the tests before it (which never run inside) */
        for (size_t r = L->cond_a[i]; r < L->cond_b[i]; r++) {
            size_t li = find_local(L, ts, r);
            if (li == (size_t)-1)
                continue;
            for (size_t w = L->locals[li] + 1; w < L->if_k[i]; w++) {
                bool inside = false;
                for (size_t j = 0; j < i; j++)
                    inside |= w >= L->then_a[j] && w < L->then_b[j];
                if (!inside && same_name(ts, w, r) && rwl_scalar_written(ts, w)) {
                    char *nm = rwl_tok_text(ts, w, w + 1);
                    rwl_refuse(c->why, sizeof c->why, ts, c->text, w, "name", EN(RW_TAPS_WRITTEN), nm ? nm : "?");
                    hk_free(nm);
                    return false;
                }
            }
        }
        /* the condition: comparisons joined by && (a guard) or || (a skipping test) */
        const char *join = L->guard ? "&&" : "||", *other = L->guard ? "||" : "&&";
        size_t ta = L->cond_a[i];
        depth = 0;
        for (size_t p = L->cond_a[i]; p <= L->cond_b[i]; p++) {
            bool last = p == L->cond_b[i];
            if (!last) {
                if (rwl_tok_is(ts, p, "(") || rwl_tok_is(ts, p, "["))
                    depth++;
                else if (rwl_tok_is(ts, p, ")") || rwl_tok_is(ts, p, "]"))
                    depth--;
                else if (depth == 0 && rwl_tok_is(ts, p, other))
                    return rwl_refuse(c->why, sizeof c->why, ts, c->text, p, "condition", "%s", EN(RW_TAPS_TERM));
            }
            if (last || (depth == 0 && rwl_tok_is(ts, p, join))) {
                if (!tp_term(c, L, ta, p, k, L->body_b))
                    return false;
                ta = p + 1;
            }
        }
    }
    if (!L->n_ifs || !L->n_dep)
        return rwl_refuse(c->why, sizeof c->why, ts, c->text, L->n_ifs ? L->if_k[0] : k, "loop", "%s", EN(RW_TAPS_NO_TEST));
    /* a #pragma (unroll) on the line before the loop travels with both copies */
    L->from = ts->t[k].start;
    size_t ls = ts->t[k].start;
    while (ls > 0 && c->text[ls - 1] != '\n')
        ls--;
    if (ls > 0) {
        size_t pe = ls - 1, ps = pe;
        while (ps > 0 && c->text[ps - 1] != '\n')
            ps--;
        size_t w = ps;
        while (w < pe && (c->text[w] == ' ' || c->text[w] == '\t'))
            w++;
        if (pe - w > 7 && !memcmp(c->text + w, "#pragma", 7) && (k == 0 || ts->t[k - 1].end <= ps)) {
            L->pragma = true;
            L->pragma_a = (uint32_t)w;
            L->pragma_b = (uint32_t)pe;
            L->from = (uint32_t)w;
        }
    }
    return true;
}

/* Appends text[a, b) of the tokens [ta, tb) with J and the test's locals replaced for the
 * trip whose J is `val`. */
static void put_subst(struct hk_buf *o, const tp_ctx *c, const tp_loop *L, size_t ta, size_t tb, const char *val)
{
    const rw_toks *ts = c->ts;
    for (size_t q = ta; q < tb; q++) {
        if (q > ta)
            hk_buf_appends(o, " ");
        size_t i;
        if (same_name(ts, q, L->var) && !(q > 0 && rwl_tok_is(ts, q - 1, "."))) {
            hk_buf_printf(o, "(%s)", val);
        } else if ((i = find_local(L, ts, q)) != (size_t)-1 && !(q > 0 && rwl_tok_is(ts, q - 1, "."))) {
            hk_buf_appends(o, "((");
            for (size_t w = L->loc_type_a[i]; w < L->locals[i]; w++) {
                if (rwl_tok_is_ident(ts, w, "const"))
                    continue;
                hk_buf_append(o, ts->text + ts->t[w].start, ts->t[w].end - ts->t[w].start);
                hk_buf_appends(o, " ");
            }
            hk_buf_appends(o, ")(");
            put_subst(o, c, L, L->loc_init_a[i], L->loc_init_b[i], val);
            hk_buf_appends(o, "))");
        } else {
            hk_buf_append(o, ts->text + ts->t[q].start, ts->t[q].end - ts->t[q].start);
        }
    }
}

static void put_text(struct hk_buf *o, const tp_ctx *c, uint32_t a, uint32_t b)
{
    hk_buf_append(o, c->text + a, b - a);
}

/* The replacement of loop L: the block with hk_interior, the interior copy, the original. */
static int tp_emit(const tp_ctx *c, const tp_loop *L, rw_edits *es)
{
    const rw_toks *ts = c->ts;
    char ind[64];
    rwl_line_indent(c->text, ts->t[L->for_k].start, ind, sizeof ind);
    struct hk_buf o;
    hk_buf_init(&o, RW_TEXT_MAX);
    char *first = NULL, *last = NULL;
    {
        struct hk_buf v;
    hk_buf_init(&v, RW_TEXT_MAX);
        hk_buf_appends(&v, "(int)(");
        put_text(&v, c, ts->t[L->init_a].start, ts->t[L->init_b - 1].end);
        hk_buf_appends(&v, ")");
        first = hk_buf_steal(&v);
        struct hk_buf w;
    hk_buf_init(&w, RW_TEXT_MAX);
        hk_buf_appends(&w, "(int)(");
        put_text(&w, c, ts->t[L->bound_a].start, ts->t[L->bound_b - 1].end);
        hk_buf_appends(&w, L->le ? ")" : " - 1)");
        last = hk_buf_steal(&w);
    }
    if (!first || !last) {
        hk_free(first);
        hk_free(last);
        hk_buf_free(&o);
        return HK_ENOMEM;
    }
    hk_buf_printf(&o,
                  "{ // hk rewrite (interior_taps): the test at line %d holds on every trip when it holds\n" /* i18n: not for people */
                  "%s  // on the first and the last (its operands move with the index, no wrap): the loop\n"
                  "%s  // then runs without it; elsewhere the original loop\n"
                  "%sconst bool hk_interior = %s %s (",
                  rwl_line_at(c->text, ts->t[L->if_k[0]].start), ind, ind, ind, first, L->le ? "<=" : "<");
    put_text(&o, c, ts->t[L->bound_a].start, ts->t[L->bound_b - 1].end);
    hk_buf_appends(&o, ")");
    for (int e = 0; e < 2; e++)
        for (size_t i = 0; i < L->n_ifs; i++) {
            hk_buf_printf(&o, " &&\n%s    %s(", ind, L->guard ? "" : "!");
            put_subst(&o, c, L, L->cond_a[i], L->cond_b[i], e ? last : first);
            hk_buf_appends(&o, ")");
        }
    for (size_t i = 0; i < L->n_dep; i++) {
        hk_buf_printf(&o, " &&\n%s    (", ind);
        put_subst(&o, c, L, L->dep_e_a[i], L->dep_e_b[i], first);
        hk_buf_appends(&o, ") + 0 * (");
        put_text(&o, c, ts->t[L->dep_x_a[i]].start, ts->t[L->dep_x_b[i] - 1].end);
        hk_buf_appends(&o, ") <= (");
        put_subst(&o, c, L, L->dep_e_a[i], L->dep_e_b[i], last);
        hk_buf_appends(&o, ") + 0 * (");
        put_text(&o, c, ts->t[L->dep_x_a[i]].start, ts->t[L->dep_x_b[i] - 1].end);
        hk_buf_appends(&o, ")");
    }
    hk_buf_printf(&o, ";\n%sif (hk_interior) {\n%s", ind, ind);
    if (L->pragma) {
        put_text(&o, c, L->pragma_a, L->pragma_b);
        hk_buf_printf(&o, "\n%s", ind);
    }
    /* the interior copy: the loop with the test taken out (a guard's statement kept) */
    put_text(&o, c, ts->t[L->for_k].start, ts->t[L->if_k[0]].start);
    if (L->guard)
        put_text(&o, c, ts->t[L->then_a[0]].start, ts->t[L->then_b[0] - 1].end);
    else
        hk_buf_appends(&o, "/* the range test: passes on every trip */"); /* i18n: not for people */
    put_text(&o, c, ts->t[L->stmt_b - 1].end, ts->t[L->body_b - 1].end);
    hk_buf_printf(&o, "\n%s} else {\n%s", ind, ind);
    if (L->pragma) {
        put_text(&o, c, L->pragma_a, L->pragma_b);
        hk_buf_printf(&o, "\n%s", ind);
    }
    put_text(&o, c, ts->t[L->for_k].start, ts->t[L->body_b - 1].end);
    hk_buf_printf(&o, "\n%s}\n%s}", ind, ind);
    hk_free(first);
    hk_free(last);
    char *rep = hk_buf_steal(&o);
    if (!rep)
        return HK_ENOMEM;
    return rwl_edits_add_owned(es, L->from, ts->t[L->body_b - 1].end, rep);
}

static int rw_interior_taps(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    tp_loop *loops = NULL;
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    tp_ctx c = {.text = text, .len = len, .m = m, .f = f, .ts = &ts};
    for (size_t k = 0; k < ts.n; k++)
        if (rwl_tok_is_ident(&ts, k, "hk_interior")) {
            rwl_refuse(c.why, sizeof c.why, &ts, text, k, "statement", "%s", EN(RW_TAPS_ALREADY));
            rc = rwp_not_applicable(out, "interior_taps", f, c.why);
            goto out;
        }
    loops = hk_calloc(TP_MAX_LOOPS, sizeof *loops);
    if (!loops) {
        rc = HK_ENOMEM;
        goto out;
    }
    size_t n = 0, n_for = 0;
    for (size_t k = 0; k < ts.n && n < TP_MAX_LOOPS; k++) {
        if (!rwl_tok_is_ident(&ts, k, "for"))
            continue;
        n_for++;
        if (tp_match(&c, k, ts.n, &loops[n]))
            n++;
    }
    /* the innermost: drop a loop that holds another that matched */
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        bool outer = false;
        for (size_t j = 0; j < n && !outer; j++)
            outer = j != i && loops[j].for_k > loops[i].for_k && loops[j].body_b <= loops[i].body_b;
        if (!outer)
            loops[kept++] = loops[i];
    }
    if (!kept) {
        if (!n_for)
            rc = rwl_not_applicable_to(out, "interior_taps", f->name, HK_MSG_RW_TAPS_NO_LOOP);
        else
            rc = rwp_not_applicable(out, "interior_taps", f, c.why);
        goto out;
    }
    struct hk_buf lines;
    hk_buf_init(&lines, RW_TEXT_MAX);
    for (size_t i = 0; i < kept; i++) {
        if ((rc = tp_emit(&c, &loops[i], &es))) {
            hk_buf_free(&lines);
            goto out;
        }
        hk_buf_printf(&lines, "%s%d", i ? ", " : "", rwl_line_at(text, ts.t[loops[i].for_k].start));
    }
    char *ln = hk_buf_steal(&lines);
    char *d = ln ? hk_asprintf(EN(RW_TAPS_DESC), f->name, ln) : NULL;
    hk_free(ln);
    rc = rwl_finish(text, len, m, f->name, &es, d, out);
    if (rc == HK_OK && out->applicable)
        out->keeps_launch = true; /* the kernel's indexing is untouched: its own launch */
out:
    hk_free(loops);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

static int emit_interior_taps(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_interior_taps(c->text, c->len, c->m, c->kernel, out);
}

const rw_descriptor rw_interior_taps_desc = {
    .name = "interior_taps",
    .summary = "a tap loop's per-tap range test dropped on an interior path proved by its first and last trips", /* i18n: not for people (no listing reads it) */
    .flags = RW_STACKS,
    .emit = emit_interior_taps,
};
