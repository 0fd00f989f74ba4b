/* cascade_guard (issue 13): a sorted insertion cascade entered only when its value beats the
 * last bound.
 *
 * The shape: an if/else-if chain over one value D and K >= 2 bounds B1..BK, in that order,
 *
 *     if (D < B1) { BK = BK-1; ... B2 = B1; B1 = D; ... }
 *     else if (D < B2) { BK = BK-1; ... B3 = B2; B2 = D; ... }
 *     ...
 *     else if (D < BK) { BK = D; ... }
 *
 * (mmcv's three_nn: `if (d < best1) {...} else if (d < best2) {...} else if (d < best3)
 * {...}`; a descriptor matcher's best and second best; any top-k kept sorted in scalars). Each
 * branch i moves the bounds after it down one place (`Bj = Bj-1;` for j = K..i+1, in that
 * order) and puts D in Bi; its other statements (the indices that travel with the bounds)
 * mention no bound, write nothing to D and leave the branch only at its end. The chain ends
 * without a plain else. The bounds are locals of one floating type (float, double, or a
 * template parameter given as one), declared once each in one declaration statement (or
 * adjacent ones) with one and the same constant initializer (a literal, a cast of one, FLT_MAX,
 * INFINITY...), and written nowhere else in the kernel: no other assignment, ++/--, address,
 * reference or bare call argument, and no preprocessor line names them or D.
 *
 * The rewrite: `if (D < BK) { CHAIN }`. In the common case (the value beats none of the
 * bounds: all but about K ln(n) of n points) a thread makes one comparison instead of K,
 * and the branches that move values between registers are skipped together.
 *
 * Why it is the same: B1 <= B2 <= ... <= BK whenever the chain is reached, and no bound is
 * NaN. It holds at the declaration (equal constants; a NaN constant is not accepted). A branch
 * i runs when D < Bi and, for every j < i, !(D < Bj); D is then not NaN (a comparison with NaN
 * is false), so Bj <= D for j < i; the branch leaves B1..Bi-1, D rounded to the bounds' type
 * (rounding is monotone and every Bj is representable, so B(i-1) <= round(D) <= old Bi), then
 * old Bi..B(K-1): sorted again, and nothing else writes a bound. All comparisons convert D and
 * the bounds (of one type) the same way, and a floating conversion keeps order. So D < Bi
 * implies D < BK for every i: when !(D < BK) no condition of the chain holds and the original
 * runs no branch, as the guard skips it; when D < BK the chain runs as written. Bit for bit,
 * ties, NaN and infinities included; the guard reads D and BK once more (locals: nothing is
 * loaded, nothing written).
 *
 * Refused with the construct and line: no such chain; a chain that ends in a plain else; a
 * branch that does not shift the bounds so (order, a missing or an extra write, a nested
 * statement naming a bound); a jump out of a branch; D written in a branch; a bound not
 * declared once with the common constant initializer, in non-adjacent declarations, of an
 * integer or unknown type, volatile or static; a bound written, referenced or handed to a call
 * elsewhere; a preprocessor line naming a bound or D. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_mem.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

static const char *const name = "cascade_guard";

#define CG_BOUNDS 8
#define CG_CHAINS 32

typedef struct {
    size_t first_if, end;          /* the chain: its first `if`, one past its last branch */
    size_t d;                      /* D's token in the first condition */
    size_t b[CG_BOUNDS];           /* Bi's token in the i-th condition */
    size_t ta[CG_BOUNDS], tb[CG_BOUNDS];   /* the branches */
    int k;
    size_t moved[CG_BOUNDS * (CG_BOUNDS + 1)];   /* the tokens of the branches' `B = Y;` moves */
    size_t n_moved;
} cg_chain;

typedef struct {
    const rw_toks *ts;
    const char *text;
    size_t len;
    const an_function *f;
    const char *const *targs;
    size_t n_targs;
    char why[600];
} cg_scan;

static bool same_text(const rw_toks *ts, size_t a, size_t b)
{
    return ts->t[a].kind == T_IDENT && ts->t[b].kind == T_IDENT && rwl_same_tok(ts, a, b);
}

static bool is_use_of(const rw_toks *ts, size_t k, size_t name_tok)
{
    return ts->t[k].kind == T_IDENT && rwl_same_tok(ts, k, name_tok) && rwl_is_use(ts, k);
}

/* The first token of the statement holding token k. */
static size_t stmt_start(const rw_toks *ts, size_t k)
{
    size_t i = k;
    while (i > 0 && !rwl_tok_is(ts, i - 1, ";") && !rwl_tok_is(ts, i - 1, "{") && !rwl_tok_is(ts, i - 1, "}"))
        i--;
    return i;
}

static bool refuse(cg_scan *s, size_t k, const char *construct, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool refuse(cg_scan *s, size_t k, const char *construct, const char *fmt, ...)
{
    if (s->why[0])
        return false;
    char msg[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rwl_refuse(s->why, sizeof s->why, s->ts, s->text, k, construct, "%s", msg);
    return false;
}

/* `if (D < B)` at k: the condition is three tokens, two names around `<`. */
static bool link_at(const rw_toks *ts, size_t k, size_t end, size_t *d, size_t *b, size_t *ta, size_t *tb)
{
    if (!rwl_tok_is(ts, k, "if") || !rwl_tok_is(ts, k + 1, "("))
        return false;
    size_t close = rwl_match_close(ts, k + 1);
    if (close >= end || close != k + 5 || !rwl_tok_is(ts, k + 3, "<"))
        return false;
    if (ts->t[k + 2].kind != T_IDENT || ts->t[k + 4].kind != T_IDENT || !rwl_is_use(ts, k + 2) ||
        rwp_is_type_word(ts, k + 2) || rwp_is_type_word(ts, k + 4))
        return false;
    *d = k + 2;
    *b = k + 4;
    *ta = close + 1;
    *tb = rwl_stmt_end(ts, close + 1, end);
    return *tb <= end && *tb > *ta;
}

/* The chain starting at the if at k (already known to be a link); false with s->why when it
 * is one but breaks a rule of the shape, false with no why when it is not a chain of 2. */
static bool read_chain(cg_scan *s, size_t k, cg_chain *c)
{
    const rw_toks *ts = s->ts;
    memset(c, 0, sizeof *c);
    c->first_if = k;
    size_t at = k;
    for (;;) {
        size_t d, b, ta, tb;
        if (!link_at(ts, at, ts->n, &d, &b, &ta, &tb))
            break;
        if (c->k && !same_text(ts, d, c->d))
            break;
        if (c->k == CG_BOUNDS)
            return c->k >= 2 && refuse(s, at, "cascade", EN(RW_CG_TOO_MANY), CG_BOUNDS);
        for (int j = 0; j < c->k; j++)
            if (same_text(ts, b, c->b[j]) || same_text(ts, b, d))
                return false;
        if (!c->k)
            c->d = d;
        c->b[c->k] = b;
        c->ta[c->k] = ta;
        c->tb[c->k] = tb;
        c->k++;
        c->end = tb;
        if (!(tb < ts->n && rwl_tok_is(ts, tb, "else")))
            break;
        if (!rwl_tok_is(ts, tb + 1, "if") || !link_at(ts, tb + 1, ts->n, &d, &b, &ta, &tb) ||
            !same_text(ts, d, c->d)) {
            if (c->k < 2)
                return false;
            return refuse(s, tb, "else", "%s", EN(RW_CG_PLAIN_ELSE));
        }
        at = c->end + 1;
    }
    if (c->k < 2)
        return false;
    if (same_text(ts, c->d, c->b[0]))
        return false;
    return true;
}

/* Is the statement [a, e) `B = Y;` with B one of the chain's bounds? Sets *bi (its index) and
 * *y (Y's token). */
static bool shift_stmt(const rw_toks *ts, const cg_chain *c, size_t a, size_t e, int *bi, size_t *y)
{
    if (e != a + 4 || !rwl_tok_is(ts, a + 1, "=") || !rwl_tok_is(ts, a + 3, ";") || ts->t[a + 2].kind != T_IDENT)
        return false;
    for (int j = 0; j < c->k; j++)
        if (same_text(ts, a, c->b[j])) {
            *bi = j;
            *y = a + 2;
            return true;
        }
    return false;
}

static bool mentions_bound(const rw_toks *ts, const cg_chain *c, size_t a, size_t e)
{
    for (size_t i = a; i < e; i++)
        for (int j = 0; j < c->k; j++)
            if (is_use_of(ts, i, c->b[j]))
                return true;
    return false;
}

/* Branch i of the chain: the bounds after it moved down, D into Bi, nothing else on them. */
static bool branch_fits(cg_scan *s, cg_chain *c, int i)
{
    const rw_toks *ts = s->ts;
    size_t a = c->ta[i], e = c->tb[i];
    if (rwl_tok_is(ts, a, "{")) {
        a++;
        e--;
    }
    /* the expected writes, in order: (K-1 <- K-2), ..., (i+1 <- i), (i <- D) */
    int want = c->k - 1;
    for (size_t q = a; q < e;) {
        size_t qe = rwl_stmt_end(ts, q, e);
        if (qe <= q || qe > e)
            return refuse(s, q, "branch", "%s", EN(RW_CG_SHIFT));
        for (size_t j = q; j < qe; j++) {
            bool jump = rwl_tok_is(ts, j, "break") || rwl_tok_is(ts, j, "continue");
            if (rwl_tok_is(ts, j, "goto") || rwl_tok_is(ts, j, "return") ||
                (jump && !rwl_in_nested(ts, q, qe, j, true)))
                return refuse(s, j, "jump", EN(RW_CG_JUMP), (int)(ts->t[j].end - ts->t[j].start),
                              s->text + ts->t[j].start);
            if (is_use_of(ts, j, c->d) && rwl_scalar_written(ts, j))
                return refuse(s, j, "branch", EN(RW_CG_VALUE_WRITTEN), (int)(ts->t[j].end - ts->t[j].start),
                              s->text + ts->t[j].start);
        }
        int bi;
        size_t y;
        if (shift_stmt(ts, c, q, qe, &bi, &y)) {
            bool ok = want >= i && bi == want &&
                      (want > i ? same_text(ts, y, c->b[want - 1]) : same_text(ts, y, c->d));
            if (!ok)
                return refuse(s, q, "branch", "%s", EN(RW_CG_SHIFT));
            c->moved[c->n_moved++] = q;
            c->moved[c->n_moved++] = y;
            want--;
        } else if (mentions_bound(ts, c, q, qe)) {
            return refuse(s, q, "branch", "%s", EN(RW_CG_SHIFT));
        }
        q = qe;
    }
    if (want != i - 1)
        return refuse(s, c->ta[i], "branch", "%s", EN(RW_CG_SHIFT));
    return true;
}

/* The bounds' one floating type from the declaration's type tokens [a, e); false when not. */
static bool floating_type(cg_scan *s, size_t a, size_t e)
{
    const rw_toks *ts = s->ts;
    size_t n = 0, at = a;
    for (size_t i = a; i < e; i++) {
        if (rwl_tok_is(ts, i, "const") || rwl_tok_is(ts, i, "register"))
            continue;
        n++;
        at = i;
    }
    if (n != 1)
        return false;
    if (rwl_tok_is(ts, at, "float") || rwl_tok_is(ts, at, "double"))
        return true;
    char buf[64];
    size_t nl = ts->t[at].end - ts->t[at].start;
    if (ts->t[at].kind != T_IDENT || nl >= sizeof buf)
        return false;
    memcpy(buf, s->text + ts->t[at].start, nl);
    buf[nl] = 0;
    const char *arg = rw_template_arg_of(s->f, buf, s->targs, s->n_targs);
    return arg && (!strcmp(arg, "float") || !strcmp(arg, "double"));
}

/* Is [a, e) a constant that is not NaN: numbers, casts to a type word, signs, parentheses
 * and the usual names of the largest value or infinity? */
static bool constant_init(const rw_toks *ts, const char *text, size_t a, size_t e)
{
    static const char *const names[] = {"FLT_MAX", "DBL_MAX", "INFINITY", "HUGE_VAL", "HUGE_VALF",
                                        "CUDART_INF_F", "CUDART_INF", "FLT_MIN", "DBL_MIN"};
    if (a >= e)
        return false;
    for (size_t i = a; i < e; i++) {
        if (ts->t[i].kind == T_NUMBER || rwl_tok_is(ts, i, "(") || rwl_tok_is(ts, i, ")") ||
            rwl_tok_is(ts, i, "-") || rwl_tok_is(ts, i, "+") || rwp_is_type_word(ts, i))
            continue;
        bool named = false;
        for (size_t j = 0; j < HK_ARRAY_LEN(names) && !named; j++)
            named = rwl_tok_is_ident(ts, i, names[j]);
        if (!named)
            return false;
        (void)text;
    }
    return true;
}

/* The end of declarator's initializer starting after `=` at k: the `,` or `;` at depth 0. */
static size_t init_end(const rw_toks *ts, size_t k)
{
    int depth = 0;
    for (size_t i = k; i < ts->n; i++) {
        if (rwl_tok_is(ts, i, "(") || rwl_tok_is(ts, i, "[") || rwl_tok_is(ts, i, "{"))
            depth++;
        else if (rwl_tok_is(ts, i, ")") || rwl_tok_is(ts, i, "]") || rwl_tok_is(ts, i, "}"))
            depth--;
        else if (depth == 0 && (rwl_tok_is(ts, i, ",") || rwl_tok_is(ts, i, ";")))
            return i;
    }
    return ts->n;
}

/* A preprocessor line that names the token k's text as a word: its 1-based line, or 0. */
static int macro_mentions(const cg_scan *s, size_t k)
{
    const char *nm = s->text + s->ts->t[k].start;
    size_t nl = s->ts->t[k].end - s->ts->t[k].start;
    bool directive = false, at_start = true;
    int line = 1;
    for (size_t i = 0; i < s->len; i++) {
        char ch = s->text[i];
        if (ch == '\n') {
            directive = directive && i > 0 && s->text[i - 1] == '\\';
            at_start = true;
            line++;
            continue;
        }
        if (at_start && ch == '#')
            directive = true;
        if (ch != ' ' && ch != '\t')
            at_start = false;
        if (directive && i + nl <= s->len && !memcmp(s->text + i, nm, nl) &&
            (i == 0 || !(isalnum((unsigned char)s->text[i - 1]) || s->text[i - 1] == '_')) &&
            (i + nl == s->len || !(isalnum((unsigned char)s->text[i + nl]) || s->text[i + nl] == '_')))
            return line;
    }
    return 0;
}

/* Is token k one of the chains' conditions' names or a name of a branch's move? */
static bool in_chain_allowed(const rw_toks *ts, const cg_chain *cs, size_t n, size_t k)
{
    for (size_t q = 0; q < n; q++) {
        const cg_chain *c = &cs[q];
        if (k < c->first_if || k >= c->end)
            continue;
        for (int j = 0; j < c->k; j++)
            if (k == c->b[j] || (k == c->b[j] - 2 && same_text(ts, k, c->d)))
                return true;
        for (size_t j = 0; j < c->n_moved; j++)
            if (c->moved[j] == k)
                return true;
    }
    return false;
}

/* The bounds' declarations and every other use: see the file's comment. */
static bool bounds_fit(cg_scan *s, const cg_chain *c, const cg_chain *all, size_t n_all)
{
    const rw_toks *ts = s->ts;
    size_t decl_stmt[CG_BOUNDS], init_a = 0, init_b = 0, type_a = 0, type_b = 0;
    for (int j = 0; j < c->k; j++) {
        size_t d = ts->n;
        int count = 0;
        for (size_t i = 0; i < ts->n; i++)
            if (same_text(ts, i, c->b[j]) && rwl_declared_here(ts, i)) {
                count++;
                d = i;
            }
        if (count != 1 || d > c->first_if)
            return refuse(s, c->b[j], "bound", EN(RW_CG_DECL), (int)(ts->t[c->b[j]].end - ts->t[c->b[j]].start),
                          s->text + ts->t[c->b[j]].start);
        size_t sa = stmt_start(ts, d);
        decl_stmt[j] = sa;
        /* the type: the tokens before the first declarator of the statement */
        size_t first = sa;
        while (first < d && !(ts->t[first].kind == T_IDENT && !rwp_is_type_word(ts, first) &&
                              (rwl_tok_is(ts, first + 1, "=") || rwl_tok_is(ts, first + 1, ",") ||
                               rwl_tok_is(ts, first + 1, ";") || rwl_tok_is(ts, first + 1, "["))))
            first++;
        for (size_t i = sa; i < first; i++)
            if (rwl_tok_is(ts, i, "volatile") || rwl_tok_is(ts, i, "static") || rwl_tok_is(ts, i, "extern") ||
                rwl_tok_is(ts, i, "__shared__") || rwl_tok_is(ts, i, "*") || rwl_tok_is(ts, i, "&") ||
                rwl_tok_is(ts, i, "for") || rwl_tok_is(ts, i, "("))
                return refuse(s, d, "bound", EN(RW_CG_DECL), (int)(ts->t[d].end - ts->t[d].start),
                              s->text + ts->t[d].start);
        if (d > 0 && (rwl_tok_is(ts, d - 1, "*") || rwl_tok_is(ts, d - 1, "&")))
            return refuse(s, d, "bound", EN(RW_CG_DECL), (int)(ts->t[d].end - ts->t[d].start),
                          s->text + ts->t[d].start);
        /* one type for all: the type tokens of every bound's statement spell the same */
        if (j == 0) {
            type_a = sa;
            type_b = first;
        } else {
            bool same = first - sa == type_b - type_a;
            for (size_t q = 0; same && q < type_b - type_a; q++)
                same = rwl_same_tok(ts, type_a + q, sa + q);
            if (!same)
                return refuse(s, d, "bound", EN(RW_CG_TYPES), (int)(ts->t[d].end - ts->t[d].start),
                              s->text + ts->t[d].start);
        }
        if (!floating_type(s, sa, first))
            return refuse(s, d, "bound", EN(RW_CG_TYPE), (int)(ts->t[d].end - ts->t[d].start),
                          s->text + ts->t[d].start);
        if (!rwl_tok_is(ts, d + 1, "="))
            return refuse(s, d, "bound", EN(RW_CG_DECL), (int)(ts->t[d].end - ts->t[d].start),
                          s->text + ts->t[d].start);
        size_t ie = init_end(ts, d + 2);
        if (!constant_init(ts, s->text, d + 2, ie))
            return refuse(s, d, "bound", EN(RW_CG_INIT), (int)(ts->t[d].end - ts->t[d].start),
                          s->text + ts->t[d].start);
        if (j == 0) {
            init_a = d + 2;
            init_b = ie;
        } else {
            bool same = ie - (d + 2) == init_b - init_a;
            for (size_t q = 0; same && q < init_b - init_a; q++)
                same = rwl_same_tok(ts, init_a + q, d + 2 + q);
            if (!same)
                return refuse(s, d, "bound", EN(RW_CG_INIT), (int)(ts->t[d].end - ts->t[d].start),
                              s->text + ts->t[d].start);
        }
    }
    /* the declarations: one statement, or statements one right after another */
    {
        size_t u[CG_BOUNDS];
        size_t nu = 0;
        for (int j = 0; j < c->k; j++) {
            bool have = false;
            for (size_t q = 0; q < nu && !have; q++)
                have = u[q] == decl_stmt[j];
            if (!have)
                u[nu++] = decl_stmt[j];
        }
        for (size_t p = 0; p < nu; p++)
            for (size_t q = p + 1; q < nu; q++)
                if (u[q] < u[p]) {
                    size_t t = u[p];
                    u[p] = u[q];
                    u[q] = t;
                }
        for (size_t p = 0; p + 1 < nu; p++)
            if (rwl_stmt_end(ts, u[p], ts->n) != u[p + 1])
                return refuse(s, u[p + 1], "bound", "%s", EN(RW_CG_APART));
    }
    /* every other use reads the bound */
    for (int j = 0; j < c->k; j++) {
        int ml = macro_mentions(s, c->b[j]);
        if (ml)
            return refuse(s, c->b[j], "macro", EN(RW_NW_MACRO), ml, (int)(ts->t[c->b[j]].end - ts->t[c->b[j]].start),
                          s->text + ts->t[c->b[j]].start);
        for (size_t i = 0; i < ts->n; i++) {
            if (!is_use_of(ts, i, c->b[j]) || rwl_declared_here(ts, i) || in_chain_allowed(ts, all, n_all, i))
                continue;
            bool bare_arg = i > 0 && (rwl_tok_is(ts, i - 1, "(") || rwl_tok_is(ts, i - 1, ",")) &&
                            (rwl_tok_is(ts, i + 1, ")") || rwl_tok_is(ts, i + 1, ","));
            bool ref = false;
            size_t sa = stmt_start(ts, i);
            if (rwl_starts_declaration(ts, sa))
                for (size_t q = sa; q < i && !ref; q++)
                    ref = rwl_tok_is(ts, q, "&");
            if (rwl_scalar_written(ts, i) || bare_arg || ref)
                return refuse(s, i, "bound", EN(RW_CG_WRITTEN), (int)(ts->t[i].end - ts->t[i].start),
                              s->text + ts->t[i].start);
        }
    }
    int ml = macro_mentions(s, c->d);
    if (ml)
        return refuse(s, c->d, "macro", EN(RW_NW_MACRO), ml, (int)(ts->t[c->d].end - ts->t[c->d].start),
                      s->text + ts->t[c->d].start);
    /* D itself: not volatile where the body declares it, no reference, its address never
     * taken (a store in a branch could then change the value a bound receives) */
    for (size_t i = 0; i < ts->n; i++) {
        if (!is_use_of(ts, i, c->d))
            continue;
        if (rwl_declared_here(ts, i)) {
            for (size_t q = stmt_start(ts, i); q < i; q++)
                if (rwl_tok_is(ts, q, "volatile"))
                    return refuse(s, i, "value", EN(RW_CG_DECL), (int)(ts->t[i].end - ts->t[i].start),
                                  s->text + ts->t[i].start);
            if (i > 0 && rwl_tok_is(ts, i - 1, "&"))
                return refuse(s, i, "value", EN(RW_CG_VALUE_REF), (int)(ts->t[i].end - ts->t[i].start),
                              s->text + ts->t[i].start);
        } else if (i > 0 && rwl_tok_is(ts, i - 1, "&") && rwl_unary_position(ts, i - 1)) {
            return refuse(s, i, "value", EN(RW_CG_VALUE_REF), (int)(ts->t[i].end - ts->t[i].start),
                          s->text + ts->t[i].start);
        }
    }
    return true;
}

static int cascade_guard(const rw_context *ctx, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    struct hk_buf desc;
    hk_buf_init(&desc, 512);
    cg_chain *cs = NULL;
    if ((rc = rwp_lex_body(ctx->text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    cg_scan s = {.ts = &ts, .text = ctx->text, .len = ctx->len, .f = f, .targs = ctx->template_args,
                 .n_targs = ctx->n_template_args};
    cs = calloc(CG_CHAINS, sizeof *cs);
    if (!cs) {
        rc = HK_ENOMEM;
        goto out;
    }
    size_t n = 0;
    /* the chains, each checked for its own shape */
    for (size_t i = 0; i < ts.n && n < CG_CHAINS; i++) {
        size_t d, b, ta, tb;
        if (!link_at(&ts, i, ts.n, &d, &b, &ta, &tb))
            continue;
        cg_chain c;
        if (!read_chain(&s, i, &c))
            continue;
        bool ok = true;
        for (int j = 0; j < c.k && ok; j++)
            ok = branch_fits(&s, &c, j);
        if (!ok)
            continue;
        cs[n++] = c;
        i = c.end - 1;
    }
    /* then their bounds, against every chain's allowed writes */
    bool fit[CG_CHAINS] = {false};
    size_t n_fit = 0;
    for (size_t q = 0; q < n; q++)
        if ((fit[q] = bounds_fit(&s, &cs[q], cs, n)))
            n_fit++;
    if (!n_fit) {
        if (!s.why[0])
            snprintf(s.why, sizeof s.why, EN(RW_CG_NONE), rwl_line_at(ctx->text, f->body_span.start_byte));
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), name, f->name, s.why));
        goto out;
    }
    const cg_chain *c0 = NULL;
    for (size_t q = 0; q < n; q++) {
        if (!fit[q])
            continue;
        const cg_chain *c = &cs[q];
        if (!c0)
            c0 = c;
        char ind[80];
        rwl_line_indent(ctx->text, ts.t[c->first_if].start, ind, sizeof ind);
        size_t bk = c->b[c->k - 1];
        char *pre = hk_asprintf("if (%.*s < %.*s) { /* hk rewrite: cascade_guard: the bounds stay sorted, " /* i18n: not for people */
                                "so a value not below the last takes no branch */\n%s",
                                (int)(ts.t[c->d].end - ts.t[c->d].start), ctx->text + ts.t[c->d].start,
                                (int)(ts.t[bk].end - ts.t[bk].start), ctx->text + ts.t[bk].start, ind);
        char *post = hk_asprintf("\n%s}", ind);
        if (!pre || !post) {
            hk_free(pre);
            hk_free(post);
            rc = HK_ENOMEM;
            goto out;
        }
        if ((rc = rwl_edits_add_owned(&es, ts.t[c->first_if].start, ts.t[c->first_if].start, pre))) {
            hk_free(post);
            goto out;
        }
        if ((rc = rwl_edits_add_owned(&es, ts.t[c->end - 1].end, ts.t[c->end - 1].end, post)))
            goto out;
    }
    size_t b1 = c0->b[0], bk = c0->b[c0->k - 1];
    rc = hk_buf_printf(&desc, EN(RW_CG_DESC), f->name, n_fit, c0->k, rwl_line_at(ctx->text, ts.t[c0->first_if].start),
                       (int)(ts.t[c0->d].end - ts.t[c0->d].start), ctx->text + ts.t[c0->d].start,
                       (int)(ts.t[b1].end - ts.t[b1].start), ctx->text + ts.t[b1].start,
                       (int)(ts.t[bk].end - ts.t[bk].start), ctx->text + ts.t[bk].start);
    if (rc)
        goto out;
    rc = rwl_finish(ctx->text, ctx->len, ctx->m, f->name, &es, hk_buf_steal(&desc), out);
    out->keeps_launch = rc == HK_OK && out->applicable;
out:
    free(cs);
    hk_buf_free(&desc);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static int emit_cascade_guard(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return cascade_guard(c, out);
}

const rw_descriptor rw_cascade_guard_desc = {
    .name = "cascade_guard",
    .summary = "a sorted insertion cascade `if (d < b1) ... else if (d < bK)` over bounds it keeps sorted, " /* i18n: not for people */
               "entered only when d beats the last bound: one compare per item instead of K (exact)",
    /* RW_STACKS: it keeps the launch and removes another cost than the tiles' (the chain of
     * compares and branches per item, not the loads), so "uniform_tiles + cascade_guard" */
    .flags = RW_STACKS,
    .emit = emit_cascade_guard,
};
