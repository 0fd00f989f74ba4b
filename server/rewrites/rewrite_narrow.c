/* double_narrowing: a `double` local that only ever holds float values (or a literal whose
 * float rounding keeps every comparison the kernel makes with it) and is only compared,
 * copied and stored to float becomes a `float`: the F2F conversions and FP64 compares
 * of every iteration go away, and the results are bit for bit the same. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_mem.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"
#include "spec/spec.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* Why: mmcv's three_nn keeps its three best distances in `double best1 = 1e40` while every
 * distance is a float, so each of its 0.5 G inner iterations converts to double (F2F: 16
 * per clock per SM on sm_90, against 128 FP32 operations) and compares in FP64 (DSETP, on
 * the 64 FP64 units of an SM): the kernel ran at 8% of its roofline on the H200 and
 * nothing else moved it. A double that holds only float values compares, copies and
 * converts to float exactly as a float would, so narrowing it is exact; the one value that
 * is no float, the literal, is exact too when its float rounding f keeps every comparison:
 * for a literal L rounded up (f > L; 1e40 becomes +inf) no float lies in [L, f), so
 * `x < L` is `x < f` and `x >= L` is `x >= f` for every float x, NaN included (all
 * false); rounded down, `x > L` and `x <= L` are kept. The mirrored operators (`x > L`,
 * `x == L` ...) differ at x = f and refuse, and so does a comparison of two such locals
 * when both may hold a rounded literal (L against f). Arithmetic on the local rounds
 * differently in float and refuses, with every use the scan cannot follow. */

#define NW_NAMES 256
#define NW_CMPS 256
#define NW_EDGES 256

enum nw_type { NW_OTHER, NW_INT, NW_FLOAT, NW_DOUBLE };

/* A name the kernel declares (parameter or local) with what its type is. */
typedef struct {
    size_t tok;           /* the declarator's name token (SIZE_MAX: a parameter) */
    const char *pname;    /* a parameter's name */
    enum nw_type type;
    bool pointer;         /* a pointer or an array: `p[i]` is an element of type */
    size_t scope_end;     /* locals: the token that ends its scope (its block's `}`) */
    size_t decl_type;     /* locals: the token that says the type (`double`) */
    /* candidates (a double scalar local) */
    bool cand, refused;
    bool up, down;        /* may hold a literal whose float rounding is above / below it */
} nw_name;

/* A comparison `x OP c` (canonical: the candidate on the right), x a float expression, or
 * another candidate (other < SIZE_MAX). */
typedef struct {
    size_t c, other, tok;
    char op[3];
} nw_cmp;

/* `to = from`: from's values flow into to. */
typedef struct {
    size_t from, to, tok;
} nw_edge;

typedef struct {
    const char *text;
    const rw_toks *ts;
    const an_function *f;
    const char *const *targs;
    size_t n_targs;
    nw_name names[NW_NAMES];
    size_t n_names;
    nw_cmp cmps[NW_CMPS];
    size_t n_cmps;
    nw_edge edges[NW_EDGES];
    size_t n_edges;
    size_t lits[NW_NAMES];   /* literal tokens to write as `(float)L` */
    size_t n_lits;
    char why[600];           /* the first refusal */
    bool too_many;           /* more names than NW_NAMES */
} nw_scan;

#define TXT(s, k) (int)((s)->ts->t[k].end - (s)->ts->t[k].start), (s)->text + (s)->ts->t[k].start

static bool tok_is(const nw_scan *s, size_t k, const char *w) { return rwl_tok_is(s->ts, k, w); }

/* Refuses candidate c (the first reason of the scan is the one reported). */
static void refuse(nw_scan *s, nw_name *c, size_t k, const char *construct, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void refuse(nw_scan *s, nw_name *c, size_t k, const char *construct, const char *fmt, ...)
{
    if (c && c->refused)
        return;
    if (c)
        c->refused = true;
    if (s->why[0])
        return;
    char msg[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rwl_refuse(s->why, sizeof s->why, s->ts, s->text, k, construct, "%s", msg);
}

/* The type a type name spells (a template parameter through the kernel's arguments). */
static enum nw_type type_of_word(const nw_scan *s, const char *w, size_t n)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return NW_OTHER;
    memcpy(buf, w, n);
    buf[n] = '\0';
    const char *arg = rw_template_arg_of(s->f, buf, s->targs, s->n_targs);
    const char *t = arg ? arg : buf;
    if (!strcmp(t, "float"))
        return NW_FLOAT;
    if (!strcmp(t, "double"))
        return NW_DOUBLE;
    static const char *const ints[] = {"int", "unsigned", "signed", "short", "size_t", "int64_t", "uint64_t",
                                       "int32_t", "uint32_t", "ptrdiff_t", "long", "char", "bool"};
    for (size_t i = 0; i < HK_ARRAY_LEN(ints); i++)
        if (!strcmp(t, ints[i]))
            return NW_INT;
    return NW_OTHER;
}

/* The declaration the name at token k refers to: the innermost local in scope there (a
 * later declaration in a nested block shadows an earlier one), else the parameter. */
static nw_name *find_name(nw_scan *s, size_t k)
{
    nw_name *best = NULL;
    size_t kl = s->ts->t[k].end - s->ts->t[k].start;
    for (size_t i = 0; i < s->n_names; i++) {
        nw_name *n = &s->names[i];
        if (n->tok == SIZE_MAX) {
            if (!best && strlen(n->pname) == kl && !memcmp(n->pname, s->text + s->ts->t[k].start, kl))
                best = n;
        } else if (n->tok <= k && k < n->scope_end && rwl_same_tok(s->ts, n->tok, k) &&
                   (!best || best->tok == SIZE_MAX || n->tok > best->tok)) {
            best = n;
        }
    }
    return best;
}

/* Where the scope of a declaration at statement start k ends: its block's closing brace,
 * or the end of the for statement whose header declares it. */
static size_t scope_end(const nw_scan *s, size_t k, size_t end)
{
    if (k > 1 && tok_is(s, k - 1, "(") && tok_is(s, k - 2, "for"))
        return rwl_stmt_end(s->ts, k - 2, end);
    int depth = 0;
    for (size_t p = k; p > 0; p--) {
        if (tok_is(s, p - 1, "}")) {
            depth++;
        } else if (tok_is(s, p - 1, "{") && depth-- == 0) {
            size_t c = rwl_match_close(s->ts, p - 1);
            return c < end ? c : end;
        }
    }
    return end;
}

static bool add_name(nw_scan *s, nw_name n)
{
    if (s->n_names >= NW_NAMES) {
        s->too_many = true;   /* a name not recorded could shadow one that is: refuse all */
        return false;
    }
    s->names[s->n_names++] = n;
    return true;
}

/* Does a statement start at k: after `{`, `;`, `}`, `else`, a for header's `(`, or the `)`
 * closing an if, for or while header (a body without braces)? */
static bool statement_start(const nw_scan *s, size_t k)
{
    if (k == 0)
        return false;
    if (tok_is(s, k - 1, "{") || tok_is(s, k - 1, ";") || tok_is(s, k - 1, "}") || tok_is(s, k - 1, "else") ||
        (tok_is(s, k - 1, "(") && k > 1 && tok_is(s, k - 2, "for")))
        return true;
    if (!tok_is(s, k - 1, ")"))
        return false;
    int depth = 0;
    for (size_t p = k - 1; p > 0; p--) {
        if (tok_is(s, p, ")"))
            depth++;
        else if (tok_is(s, p, "(") && --depth == 0)
            return tok_is(s, p - 1, "if") || tok_is(s, p - 1, "for") || tok_is(s, p - 1, "while");
    }
    return false;
}

static const char *const qualifiers[] = {"const", "volatile", "register", "static", "__shared__", "constexpr"};

static bool qualifier(const nw_scan *s, size_t k)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(qualifiers); i++)
        if (tok_is(s, k, qualifiers[i]))
            return true;
    return false;
}

/* One past the initializer starting at token i: the first `,` or `;` outside brackets. */
static size_t initializer_end(const nw_scan *s, size_t i, size_t end)
{
    int depth = 0;
    for (; i < end; i++) {
        if (tok_is(s, i, "(") || tok_is(s, i, "[") || tok_is(s, i, "{"))
            depth++;
        else if (tok_is(s, i, ")") || tok_is(s, i, "]") || tok_is(s, i, "}"))
            depth--;
        else if (depth == 0 && (tok_is(s, i, ",") || tok_is(s, i, ";")))
            break;
    }
    return i;
}

/* A declaration at statement start k: `[quals] TYPE [quals] [*] name [[..]] [= init], ...;`.
 * Records its names; returns the index one past it, or k when it is none. */
static size_t read_declaration(nw_scan *s, size_t k, size_t end)
{
    const rw_toks *ts = s->ts;
    size_t i = k, type_tok = SIZE_MAX;
    enum nw_type type = NW_OTHER;
    bool shared = false;
    while (i < end && qualifier(s, i)) {
        shared |= tok_is(s, i, "__shared__");
        i++;
    }
    /* the type: the identifiers before the declarator's name (`long double`, `unsigned
     * int`, `T`, `float`); the name is the last identifier of the run, or the one after a
     * `*` or `&` */
    size_t ta = i, r = i;
    while (r < end && ts->t[r].kind == T_IDENT && !qualifier(s, r))
        r++;
    if (r == ta || r >= end)
        return k;
    size_t te = (tok_is(s, r, "*") || tok_is(s, r, "&")) ? r : r - 1;   /* type is [ta, te) */
    if (te == ta)
        return k;
    static const char *const not_types[] = {"return", "if", "else", "for", "while", "do", "switch", "case",
                                            "goto", "break", "continue", "delete", "throw", "typedef", "using"};
    for (size_t w = 0; w < HK_ARRAY_LEN(not_types); w++)
        if (tok_is(s, ta, not_types[w]))
            return k;
    type_tok = te - 1;
    type = type_of_word(s, s->text + ts->t[ta].start, ts->t[ta].end - ts->t[ta].start);
    for (size_t w = ta + 1; w < te; w++)   /* several words: integers only (long double is none) */
        if (type_of_word(s, s->text + ts->t[w].start, ts->t[w].end - ts->t[w].start) != NW_INT || type != NW_INT)
            type = NW_OTHER;
    i = te - 1;
    i++;
    while (i < end && qualifier(s, i))
        i++;
    size_t first = s->n_names;
    for (;;) {
        bool pointer = false;
        while (i < end && (tok_is(s, i, "*") || tok_is(s, i, "&") || tok_is(s, i, "__restrict__") ||
                           qualifier(s, i))) {
            pointer = true;
            i++;
        }
        if (i >= end || ts->t[i].kind != T_IDENT)
            break;
        size_t name = i++;
        if (tok_is(s, i, "[")) {
            pointer = true;
            while (tok_is(s, i, "["))
                i = rwl_match_close(ts, i) + 1;
        }
        if (!(tok_is(s, i, "=") || tok_is(s, i, ",") || tok_is(s, i, ";") || tok_is(s, i, "(")))
            break;
        if (tok_is(s, i, "(") && !tok_is(s, i - 1, "]")) {   /* `T x(init)`: constructor form */
            i = rwl_match_close(ts, i) + 1;
        } else if (tok_is(s, i, "=")) {
            i = initializer_end(s, i + 1, end);
        }
        nw_name n = {.tok = name, .type = type, .pointer = pointer, .decl_type = type_tok,
                     .scope_end = scope_end(s, k, end)};
        n.cand = type == NW_DOUBLE && !pointer && !shared;
        if (!add_name(s, n))
            return end;
        if (tok_is(s, i, ";") || tok_is(s, i, ")") || !tok_is(s, i, ","))
            break;
        i++;
    }
    return s->n_names == first ? k : i;
}

/* Is [a, b) an expression of type float: built from float scalars, elements of float
 * buffers, casts to float, f-suffixed literals, integer literals and integer scalars, with
 * + - * / and parentheses, with at least one float operand (an expression of integers only
 * may not be a float value)? Calls, double operands and double literals make it none. */
static bool float_expr(nw_scan *s, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    bool any_float = false;
    if (a >= b)
        return false;
    for (size_t i = a; i < b; i++) {
        const rw_tok *t = &ts->t[i];
        if (t->kind == T_NUMBER) {
            const char *p = s->text + t->start;
            size_t n = t->end - t->start;
            bool hex = n > 1 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
            bool real = memchr(p, '.', n) || (!hex && (memchr(p, 'e', n) || memchr(p, 'E', n))) ||
                        (hex && (memchr(p, 'p', n) || memchr(p, 'P', n)));
            if (real && !(p[n - 1] == 'f' || p[n - 1] == 'F'))
                return false;
            any_float |= real;
            continue;
        }
        if (t->kind == T_PUNCT) {
            if (tok_is(s, i, "(")) {
                /* a cast: (float) x, (T) x, (int) x */
                size_t c = rwl_match_close(ts, i);
                if (c < b && c == i + 2 && ts->t[i + 1].kind == T_IDENT && !find_name(s, i + 1)) {
                    enum nw_type ct = type_of_word(s, s->text + ts->t[i + 1].start,
                                                   ts->t[i + 1].end - ts->t[i + 1].start);
                    if (ct == NW_FLOAT) {
                        any_float = true;   /* whatever the operand, the value is a float */
                        size_t o = c + 1;
                        if (o < b && tok_is(s, o, "("))
                            o = rwl_match_close(ts, o);
                        else
                            while (o + 1 < b && (tok_is(s, o + 1, "[") || tok_is(s, o + 1, ".")))
                                o = tok_is(s, o + 1, "[") ? rwl_match_close(ts, o + 1) : o + 2;
                        i = o;
                        continue;
                    }
                    if (ct != NW_INT)
                        return false;
                    i = c;
                }
                continue;
            }
            if (tok_is(s, i, ")") || tok_is(s, i, "+") || tok_is(s, i, "-") || tok_is(s, i, "*") ||
                tok_is(s, i, "/"))
                continue;
            return false;
        }
        if (t->kind != T_IDENT)
            return false;
        if (tok_is(s, i, "threadIdx") || tok_is(s, i, "blockIdx") || tok_is(s, i, "blockDim") ||
            tok_is(s, i, "gridDim")) {
            if (tok_is(s, i + 1, "."))
                i += 2;
            continue;
        }
        nw_name *n = find_name(s, i);
        if (!n || n->cand || tok_is(s, i + 1, "("))
            return false;
        if (n->pointer) {
            if (!tok_is(s, i + 1, "[") || n->type != NW_FLOAT)
                return false;
            i = rwl_match_close(ts, i + 1);
            if (i >= b)
                return false;
            any_float = true;
            continue;
        }
        if (n->type == NW_FLOAT)
            any_float = true;
        else if (n->type != NW_INT)
            return false;
    }
    return any_float;
}

/* A double literal (with an optional unary minus) spelling [a, b): its value in *v. */
static bool double_literal(const nw_scan *s, size_t a, size_t b, double *v)
{
    size_t i = a;
    bool neg = false;
    if (i < b && (tok_is(s, i, "-") || tok_is(s, i, "+"))) {
        neg = tok_is(s, i, "-");
        i++;
    }
    if (i + 1 != b || s->ts->t[i].kind != T_NUMBER)
        return false;
    char buf[64];
    size_t n = s->ts->t[i].end - s->ts->t[i].start;
    if (n >= sizeof buf)
        return false;
    memcpy(buf, s->text + s->ts->t[i].start, n);
    buf[n] = '\0';
    char *e;
    double x = strtod(buf, &e);
    if (e == buf)
        return false;
    /* an integer literal's suffixes (u, l) keep its value; f is a float already (a float
     * expression), l on a real is a long double */
    for (; *e; e++)
        if (!(*e == 'u' || *e == 'U' || ((*e == 'l' || *e == 'L') && !strpbrk(buf, ".eE"))))
            return false;
    *v = neg ? -x : x;
    return true;
}

static nw_name *cand_at(nw_scan *s, size_t k)
{
    if (!rwl_is_use(s->ts, k))
        return NULL;
    nw_name *n = find_name(s, k);
    return n && n->cand ? n : NULL;
}

/* The value [a, b) assigned to candidate c at token k: a float expression, another
 * candidate (an edge) or a double literal (its rounding recorded, the literal rewritten). */
static void assigned(nw_scan *s, nw_name *c, size_t k, size_t a, size_t b)
{
    double v;
    nw_name *o = b == a + 1 ? cand_at(s, a) : NULL;
    if (o) {
        if (s->n_edges < NW_EDGES)
            s->edges[s->n_edges++] = (nw_edge){.from = (size_t)(o - s->names), .to = (size_t)(c - s->names), .tok = k};
        else
            refuse(s, c, k, EN(RW_C_ASSIGNMENT), "%s", EN(RW_NW_TOO_MANY_COPIES));
        return;
    }
    if (double_literal(s, a, b, &v)) {
        float f = (float)v;
        if ((double)f > v)
            c->up = true;
        else if ((double)f < v)
            c->down = true;
        if (s->n_lits < NW_NAMES)
            s->lits[s->n_lits++] = b - 1;
        else
            refuse(s, c, k, EN(RW_C_ASSIGNMENT), "%s", EN(RW_NW_TOO_MANY_LITERALS));
        return;
    }
    if (!float_expr(s, a, b))
        refuse(s, c, a, EN(RW_C_ASSIGNMENT), EN(RW_NW_NOT_FLOAT_VALUE), TXT(s, c->tok),
               (int)(s->ts->t[b - 1].end - s->ts->t[a].start), s->text + s->ts->t[a].start);
}

static bool opening(const nw_scan *s, size_t k)
{
    return tok_is(s, k, "(") || tok_is(s, k, "&&") || tok_is(s, k, "||") || tok_is(s, k, "!") ||
           tok_is(s, k, "?") || tok_is(s, k, ":") || tok_is(s, k, ",") || tok_is(s, k, "=") ||
           tok_is(s, k, ";") || tok_is(s, k, "{") || tok_is(s, k, "}") || tok_is(s, k, "return");
}

static bool closing(const nw_scan *s, size_t k)
{
    return tok_is(s, k, ")") || tok_is(s, k, "&&") || tok_is(s, k, "||") || tok_is(s, k, "?") ||
           tok_is(s, k, ":") || tok_is(s, k, ",") || tok_is(s, k, ";");
}

static const char *const cmp_ops[] = {"<", "<=", ">", ">=", "==", "!="};

static bool is_cmp(const nw_scan *s, size_t k)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(cmp_ops); i++)
        if (tok_is(s, k, cmp_ops[i]))
            return true;
    return false;
}

/* One use of candidate c at token k (not its declaration). */
static void use(nw_scan *s, nw_name *c, size_t k, size_t body_end)
{
    const rw_toks *ts = s->ts;
    size_t n = ts->n;
    /* c = value; */
    if (tok_is(s, k + 1, "=") && statement_start(s, k)) {
        size_t e = rwl_stmt_end(ts, k, body_end);
        if (e > k + 2 && tok_is(s, e - 1, ";"))
            assigned(s, c, k, k + 2, e - 1);
        else
            refuse(s, c, k, EN(RW_C_ASSIGNMENT), EN(RW_NW_ASSIGNMENT), TXT(s, k));
        return;
    }
    if (rwl_scalar_written(ts, k)) {
        bool addr = k > 0 && tok_is(s, k - 1, "&");
        size_t op = rwl_tok_is_assign_op(ts, k + 1) || tok_is(s, k + 1, "++") || tok_is(s, k + 1, "--") ? k + 1 : k - 1;
        if (addr)
            refuse(s, c, k, "address", EN(RW_NW_ADDRESS), TXT(s, k));
        else
            refuse(s, c, k, EN(RW_C_ARITHMETIC), EN(RW_NW_IN_PLACE), TXT(s, k), TXT(s, op));
        return;
    }
    /* LHS = c;  (a store or a copy) */
    if (k > 1 && tok_is(s, k - 1, "=") && (tok_is(s, k + 1, ";") || tok_is(s, k + 1, ","))) {
        size_t l = k - 2;
        if (tok_is(s, l, "]")) {
            size_t o = l;
            int depth = 0;
            for (; o > 0; o--) {
                if (tok_is(s, o, "]"))
                    depth++;
                else if (tok_is(s, o, "[") && --depth == 0)
                    break;
            }
            nw_name *p = o > 0 ? find_name(s, o - 1) : NULL;
            if (p && p->pointer && p->type == NW_FLOAT)
                return;   /* a store to a float buffer converts the same */
            refuse(s, c, k, "store", EN(RW_NW_STORED_NOT_BUFFER), TXT(s, k),
                   TXT(s, o > 0 ? o - 1 : k));
            return;
        }
        nw_name *p = rwl_is_use(ts, l) ? find_name(s, l) : NULL;   /* not a member `.x` */
        if (p && p->cand) {   /* a copy into another candidate: c's values flow there */
            if (s->n_edges < NW_EDGES)
                s->edges[s->n_edges++] = (nw_edge){.from = (size_t)(c - s->names), .to = (size_t)(p - s->names),
                                                   .tok = k};
            else
                refuse(s, c, k, EN(RW_C_ASSIGNMENT), "%s", EN(RW_NW_TOO_MANY_COPIES));
            return;
        }
        if (p && !p->pointer && p->type == NW_FLOAT)
            return;   /* a float local */
        refuse(s, c, k, "store", EN(RW_NW_STORED_NOT_FLOAT), TXT(s, k), TXT(s, l));
        return;
    }
    /* (float)c */
    if (k > 2 && tok_is(s, k - 1, ")") && tok_is(s, k - 3, "(") &&
        type_of_word(s, s->text + ts->t[k - 2].start, ts->t[k - 2].end - ts->t[k - 2].start) == NW_FLOAT &&
        !(tok_is(s, k + 1, "[") || tok_is(s, k + 1, "(") || tok_is(s, k + 1, ".")))
        return;
    /* comparisons: c OP x, x OP c */
    bool right = k > 0 && is_cmp(s, k - 1) && closing(s, k + 1);
    bool left = is_cmp(s, k + 1) && k > 0 && opening(s, k - 1);
    if (right || left) {
        size_t op = right ? k - 1 : k + 1, a, b;
        int depth = 0;
        if (right) {   /* x extends back to an opening delimiter */
            b = op;
            for (a = op; a > 0; a--) {
                if (tok_is(s, a - 1, ")") || tok_is(s, a - 1, "]"))
                    depth++;
                else if ((tok_is(s, a - 1, "(") || tok_is(s, a - 1, "[")) && depth > 0)
                    depth--;
                else if (depth == 0 && opening(s, a - 1))
                    break;
            }
        } else {
            a = op + 1;
            for (b = a; b < n; b++) {
                if (tok_is(s, b, "(") || tok_is(s, b, "["))
                    depth++;
                else if ((tok_is(s, b, ")") || tok_is(s, b, "]")) && depth > 0)
                    depth--;
                else if (depth == 0 && closing(s, b))
                    break;
            }
        }
        nw_cmp cm = {.c = (size_t)(c - s->names), .other = SIZE_MAX, .tok = k};
        /* canonical: x OP c */
        const char *o = s->text + ts->t[op].start;
        size_t ol = ts->t[op].end - ts->t[op].start;
        snprintf(cm.op, sizeof cm.op, "%.*s", (int)ol, o);
        if (left) {
            if (cm.op[0] == '<')
                cm.op[0] = '>';
            else if (cm.op[0] == '>')
                cm.op[0] = '<';
        }
        nw_name *other = b == a + 1 ? cand_at(s, a) : NULL;
        if (other)
            cm.other = (size_t)(other - s->names);
        else if (!float_expr(s, a, b)) {
            refuse(s, c, k, "comparison", EN(RW_NW_COMPARED_NOT_FLOAT),
                   TXT(s, k), (int)(ts->t[b - 1].end - ts->t[a].start), s->text + ts->t[a].start);
            return;
        }
        if (s->n_cmps < NW_CMPS)
            s->cmps[s->n_cmps++] = cm;
        else
            refuse(s, c, k, "comparison", "%s", EN(RW_NW_TOO_MANY_COMPARISONS));
        return;
    }
    /* anything else: name it */
    bool arith = (k > 0 && (tok_is(s, k - 1, "+") || tok_is(s, k - 1, "-") || tok_is(s, k - 1, "*") ||
                            tok_is(s, k - 1, "/") || tok_is(s, k - 1, "%"))) ||
                 tok_is(s, k + 1, "+") || tok_is(s, k + 1, "-") || tok_is(s, k + 1, "*") || tok_is(s, k + 1, "/") ||
                 tok_is(s, k + 1, "%");
    if (arith) {
        refuse(s, c, k, EN(RW_C_ARITHMETIC), EN(RW_NW_OPERAND),
               TXT(s, k));
        return;
    }
    /* inside a call's parentheses: passed to a function */
    int depth = 0;
    for (size_t p = k; p > 0; p--) {
        if (tok_is(s, p - 1, ")"))
            depth++;
        else if (tok_is(s, p - 1, "(") && depth-- == 0) {
            if (p > 1 && ts->t[p - 2].kind == T_IDENT && !tok_is(s, p - 2, "if") && !tok_is(s, p - 2, "while") &&
                !tok_is(s, p - 2, "for") && !tok_is(s, p - 2, "switch") && !tok_is(s, p - 2, "return")) {
                refuse(s, c, k, "call", EN(RW_NW_PASSED), TXT(s, k),
                       TXT(s, p - 2));
                return;
            }
            break;
        } else if (tok_is(s, p - 1, ";") || tok_is(s, p - 1, "{") || tok_is(s, p - 1, "}"))
            break;
    }
    refuse(s, c, k, "use", EN(RW_NW_USE), TXT(s, k));
}

/* Does `x op c` give the same answer for every float x when c holds a literal L instead
 * of its float rounding f? Always when c holds no rounded literal; rounded up, no float
 * lies in [L, f): `<` and `>=` are kept; rounded down, none in (f, L]: `>` and `<=`. */
static bool keeps_comparison(const nw_name *c, const char *op)
{
    if (c->up && c->down)
        return false;
    if (c->up)
        return !strcmp(op, "<") || !strcmp(op, ">=");
    if (c->down)
        return !strcmp(op, ">") || !strcmp(op, "<=");
    return true;
}

/* Propagates refusals and literal roundings along copies and checks the comparisons until
 * nothing changes. */
static void settle(nw_scan *s)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < s->n_edges; i++) {
            nw_edge *e = &s->edges[i];
            nw_name *from = &s->names[e->from], *to = &s->names[e->to];
            if (from->refused && !to->refused) {
                refuse(s, to, e->tok, EN(RW_C_ASSIGNMENT), EN(RW_NW_ASSIGNED_DOUBLE),
                       TXT(s, to->tok), TXT(s, from->tok));
                changed = true;
            }
            if (to->refused && !from->refused && (from->up || from->down)) {
                refuse(s, from, e->tok, EN(RW_C_ASSIGNMENT), EN(RW_NW_COPIED_INTO_DOUBLE), TXT(s, from->tok), TXT(s, to->tok));
                changed = true;
            }
            if ((from->up && !to->up) || (from->down && !to->down)) {
                to->up |= from->up;
                to->down |= from->down;
                changed = true;
            }
        }
        for (size_t i = 0; i < s->n_cmps; i++) {
            nw_cmp *m = &s->cmps[i];
            nw_name *c = &s->names[m->c];
            if (c->refused)
                continue;
            nw_name *o = m->other != SIZE_MAX ? &s->names[m->other] : NULL;
            if (o && (o->refused || ((c->up || c->down) && (o->up || o->down)))) {
                refuse(s, c, m->tok, "comparison", o->refused ? EN(RW_NW_COMPARED_DOUBLE) : EN(RW_NW_BOTH_ROUNDED), TXT(s, c->tok), TXT(s, o->tok));
                refuse(s, o, m->tok, "comparison", "%s", EN(RW_NW_COMPARED_ROUNDED));
                changed = true;
                continue;
            }
            /* x OP c: c may hold a literal rounded (x a float value, or a local that holds
             * only float values); or, c holding only float values, the other local may: it
             * is then the one tested, on the mirrored operator */
            nw_name *t = c;
            char op[3];
            snprintf(op, sizeof op, "%s", m->op);
            if (o && !(c->up || c->down)) {
                t = o;
                if (op[0] == '<')
                    op[0] = '>';
                else if (op[0] == '>')
                    op[0] = '<';
            }
            if (!keeps_comparison(t, op)) {
                /* which way it rounds: one sentence each */
                refuse(s, t, m->tok, "comparison",
                       t->up && t->down ? EN(RW_NW_ROUNDS_BOTH) : t->up ? EN(RW_NW_ROUNDS_UP) : EN(RW_NW_ROUNDS_DOWN),
                       TXT(s, t->tok));
                changed = true;
            }
        }
        /* a declaration is rewritten whole: a double of it that stays keeps the others */
        for (size_t i = 0; i < s->n_names; i++) {
            nw_name *c = &s->names[i];
            if (!c->cand || c->refused)
                continue;
            for (size_t j = 0; j < s->n_names; j++) {
                nw_name *o = &s->names[j];
                if (j != i && o->tok != SIZE_MAX && o->decl_type == c->decl_type && (!o->cand || o->refused)) {
                    refuse(s, c, c->tok, EN(RW_C_DECLARATION), EN(RW_NW_SHARES_DECL), TXT(s, c->tok), TXT(s, o->tok));
                    changed = true;
                    break;
                }
            }
        }
    }
}

/* A preprocessor line of the file (continuations included) that mentions c's name as a
 * word: a macro the kernel expands may read or update c where the token scan, which skips
 * those lines, cannot see it. The 1-based line, or 0. */
static int macro_mentions(const nw_scan *s, const nw_name *c, size_t len)
{
    const char *name = s->text + s->ts->t[c->tok].start;
    size_t nl = s->ts->t[c->tok].end - s->ts->t[c->tok].start;
    bool directive = false, at_start = true;
    int line = 1;
    for (size_t i = 0; i < len; i++) {
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
        if (directive && i + nl <= len && !memcmp(s->text + i, name, nl) &&
            (i == 0 || !(isalnum((unsigned char)s->text[i - 1]) || s->text[i - 1] == '_')) &&
            (i + nl == len || !(isalnum((unsigned char)s->text[i + nl]) || s->text[i + nl] == '_')))
            return line;
    }
    return 0;
}

static int rw_double_narrowing(const rw_context *ctx, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    const char *text = ctx->text;
    rw_toks ts = {0};
    rw_edits es = {0};
    km_kernel *km = NULL;
    struct hk_buf what;
    hk_buf_init(&what, 4096);
    nw_scan *s = hk_calloc(1, sizeof *s);
    if (!s) {
        rc = HK_ENOMEM;
        goto out;
    }
    s->text = text;
    s->ts = &ts;
    s->f = f;
    s->targs = ctx->template_args;
    s->n_targs = ctx->n_template_args;
    if (!s->targs && ctx->spec) {
        s->targs = (const char *const *)ctx->spec->template_args;
        s->n_targs = ctx->spec->n_template_args;
    }
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    km_class kc;
    char kwhy[300];
    if ((rc = rw_model_classify(text, ctx->len, f->name, &km, &kc, kwhy, sizeof kwhy)))
        goto out;
    if (!km) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NW_MODEL), f->name, rwl_line_at(text, f->body_span.start_byte), kwhy));
        goto out;
    }
    for (size_t i = 0; i < f->n_params; i++) {
        const an_param *p = &f->params[i];
        if (!p->name[0])
            continue;
        nw_name n = {.tok = SIZE_MAX, .pname = p->name, .pointer = p->pointer_depth > 0, .decl_type = SIZE_MAX};
        n.type = p->elem_type ? type_of_word(s, p->elem_type, strlen(p->elem_type)) : NW_OTHER;
        if (p->pointer_depth > 1)
            n.type = NW_OTHER;
        if (!add_name(s, n))
            break;
    }
    size_t end = ts.n - 1;
    for (size_t k = 1; k < end; k++)
        if (statement_start(s, k)) {
            size_t e = read_declaration(s, k, end);
            if (e > k)
                k = e - 1;
        }
    if (s->too_many) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NW_TOO_MANY_NAMES), f->name,
                                                 rwl_line_at(text, f->body_span.start_byte), NW_NAMES));
        goto out;
    }
    /* The model's view: a candidate the model keeps as an array or a pointer is none. */
    size_t n_loc;
    const km_local *locs = km_locals(km, &n_loc);
    size_t n_cand = 0;
    for (size_t i = 0; i < s->n_names; i++) {
        nw_name *c = &s->names[i];
        if (!c->cand)
            continue;
        for (size_t j = 0; j < n_loc; j++)
            if (strlen(locs[j].name) == ts.t[c->tok].end - ts.t[c->tok].start &&
                !memcmp(locs[j].name, text + ts.t[c->tok].start, strlen(locs[j].name)) &&
                (locs[j].kind == KM_LOCAL_ARRAY || locs[j].kind == KM_LOCAL_POINTER))
                c->cand = false;
        if (!c->cand)
            continue;
        n_cand++;
    }
    if (!n_cand) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NW_NO_LOCAL),
                                                 f->name, rwl_line_at(text, f->body_span.start_byte)));
        goto out;
    }
    for (size_t i = 0; i < s->n_names; i++) {
        nw_name *c = &s->names[i];
        int ml = c->cand ? macro_mentions(s, c, ctx->len) : 0;
        if (ml)
            refuse(s, c, c->tok, "macro", EN(RW_NW_MACRO), ml,
                   TXT(s, c->tok));
    }
    /* every occurrence of every candidate */
    for (size_t k = 1; k < end; k++) {
        nw_name *c = cand_at(s, k);
        if (!c)
            continue;
        if (k == c->tok) {   /* its declaration: the initializer is its first value */
            if (tok_is(s, k + 1, "="))
                assigned(s, c, k, k + 2, initializer_end(s, k + 2, end));
            else if (!tok_is(s, k + 1, ",") && !tok_is(s, k + 1, ";"))
                refuse(s, c, k, EN(RW_C_DECLARATION), EN(RW_NW_INITIALIZER), TXT(s, k));
            continue;
        }
        use(s, c, k, end);
    }
    settle(s);
    /* the edits: each narrowed declaration's type word, each of its literals */
    size_t n_done = 0;
    for (size_t i = 0; i < s->n_names && !rc; i++) {
        nw_name *c = &s->names[i];
        if (!c->cand || c->refused)
            continue;
        bool first_of_decl = true;
        for (size_t j = 0; j < i; j++)
            if (s->names[j].cand && !s->names[j].refused && s->names[j].decl_type == c->decl_type)
                first_of_decl = false;
        if (first_of_decl)
            rc = rwl_edits_add(&es, ts.t[c->decl_type].start, ts.t[c->decl_type].end, "float");
        if (!rc)
            rc = hk_buf_printf(&what, "%s", n_done ? ", " : "");
        if (!rc) /* rewrite_ilp.c's list item */
            rc = hk_buf_printf(&what, EN(RW_IL_ACC_AT), TXT(s, c->tok), rwl_line_at(text, ts.t[c->tok].start));
        n_done++;
    }
    for (size_t i = 0; i < s->n_lits && !rc; i++) {
        /* the literal's local: the nearest candidate name before it in its statement */
        size_t t = s->lits[i];
        bool narrowed = false;
        for (size_t p = t; p > 0; p--) {
            nw_name *c = cand_at(s, p - 1);
            if (c) {
                narrowed = !c->refused;
                break;
            }
        }
        if (narrowed) {
            char *r = hk_asprintf("(float)%.*s", TXT(s, t));
            rc = r ? rwl_edits_add_owned(&es, ts.t[t].start, ts.t[t].end, r) : HK_ENOMEM;
        }
    }
    if (rc)
        goto out;
    if (!n_done) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "double_narrowing", f->name, s->why));
        goto out;
    }
    /* one sentence per number: Chinese has no plural */
    char *desc = hk_asprintf(n_done > 1 ? EN(RW_NW_DESC_N) : EN(RW_NW_DESC_1), f->name, what.data);
    rc = rwl_finish(text, ctx->len, ctx->m, f->name, &es, desc, out);
    if (rc == HK_OK && out->applicable)
        out->keeps_launch = true;
out:
    hk_buf_free(&what);
    rwl_edits_free(&es);
    km_free(km);
    rwl_toks_free(&ts);
    hk_free(s);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */
static int emit_double_narrowing(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_double_narrowing(c, out);
}

const rw_descriptor rw_double_narrowing_desc = {
    .name = "double_narrowing",
    .summary = "double locals that only hold float values (and literals) and are only compared, copied and " /* i18n: not for people */
               "stored to float become float (exact)",
    /* it keeps the launch and removes FP64 conversions and compares, another cost than the
     * leaders' (uniform_tiles: the per-point loads): on three_nn the search offers
     * "uniform_tiles + double_narrowing" after the first two choices (RW_STACKS) */
    .flags = RW_STACKS,
    .emit = emit_double_narrowing,
};
