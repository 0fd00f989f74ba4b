/* fast_divmod (rewrite_divmod.h): `/` and `%` by a divisor invariant over the kernel become a
 * multiply by its magic number, computed once per thread. The body is re-emitted in one
 * pass over its tokens: a chain of `*`, `/` and `%` operands is read left to right (C's
 * grouping) and each qualifying division wraps what the chain built so far, so
 * `index / w / h` becomes hk_fdiv_q_s(hk_fdiv_q_nn(index, F0), F1). A first pass finds the
 * divisors and where their setup goes; the second writes. Types and invariance are read
 * off the tokens (declarations, a loop macro's definition), non-negativity off the kernel
 * model's loops where it could be built; where nothing is proved the exact signed form is
 * used, so the model only makes the code shorter, never correct. */
#include "rewrites/rewrite_divmod.h"

#include "core/buf.h"
#include "core/hk.h"
#include "model/kmodel.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "core/i18n.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* Why the magic numbers are exact (Granlund and Montgomery 1994, Figure 4.1, N = 32): for a
 * divisor a in [1, 2^32) with s = ceil(log2 a), m = floor(2^32 (2^s - a) / a) + 1 < 2^32,
 * every n in [0, 2^32) has n / a == (umulhi(n, m) + n) >> s, the sum taken in 33 bits. For
 * a signed dividend |n| <= 2^31, so umulhi(n, m) < n keeps the sum in 32 bits. The setup
 * computes floor(2^32 r / a) (r = 2^s - a < a) as a double quotient, within one of the
 * floor since it is below 2^32 and rounded once, then corrects it either way with an exact
 * integer check (so a division that is not correctly rounded, under some fast-math mode or
 * on another target, still gives the exact magic number): no 64-bit integer division per
 * thread. */
static const char helpers[] =
    "/* fast_divmod: magic numbers of a 32-bit divisor (Granlund-Montgomery, round-up method),\n" /* i18n: not for people */
    " * computed once; each division is then a high multiply, an add and a shift, exact for\n"
    " * every dividend (a divisor of 0 is undefined in C, and gives some value here too). */\n"
    "struct hk_fdiv {\n"
    "    unsigned m;   /* floor(2^32 (2^s - a) / a) + 1 */\n"
    "    unsigned s;   /* ceil(log2 a) */\n"
    "    unsigned a;   /* the divisor's magnitude */\n"
    "    int neg;      /* -1 when a signed divisor is negative, else 0 */\n"
    "};\n"
    "__device__ __forceinline__ hk_fdiv hk_fdiv_make_u(unsigned d)\n"
    "{\n"
    "    hk_fdiv f;\n"
    "    unsigned a = d ? d : 1u;\n"
    "    unsigned s = 32u - (unsigned)__clz((int)(a - 1u));\n"
    "    unsigned long long r = (1ull << s) - a;\n"
    "    unsigned long long q = (unsigned long long)((double)r * 4294967296.0 / (double)a);\n"
    "    if (q * a > (r << 32))\n"
    "        q--;\n"
    "    else if ((q + 1u) * a <= (r << 32))\n"
    "        q++;\n"
    "    f.m = (unsigned)(q + 1u);\n"
    "    f.s = s;\n"
    "    f.a = d;\n"
    "    f.neg = 0;\n"
    "    return f;\n"
    "}\n"
    "__device__ __forceinline__ hk_fdiv hk_fdiv_make_s(int d)\n"
    "{\n"
    "    hk_fdiv f = hk_fdiv_make_u(d < 0 ? 0u - (unsigned)d : (unsigned)d);\n"
    "    f.neg = d < 0 ? -1 : 0;\n"
    "    return f;\n"
    "}\n"
    "/* n / d and n % d for n >= 0 */\n"
    "__device__ __forceinline__ int hk_fdiv_q_nn(int n, hk_fdiv f)\n"
    "{\n"
    "    int q = (int)((__umulhi((unsigned)n, f.m) + (unsigned)n) >> f.s);\n"
    "    return (q ^ f.neg) - f.neg;\n"
    "}\n"
    "__device__ __forceinline__ int hk_fdiv_r_nn(int n, hk_fdiv f)\n"
    "{\n"
    "    unsigned q = (__umulhi((unsigned)n, f.m) + (unsigned)n) >> f.s;\n"
    "    return (int)((unsigned)n - q * f.a);\n"
    "}\n"
    "/* n / d and n % d for any int n: C truncates, so the magnitudes divide */\n"
    "__device__ __forceinline__ int hk_fdiv_q_s(int n, hk_fdiv f)\n"
    "{\n"
    "    unsigned sn = n < 0 ? ~0u : 0u;\n"
    "    unsigned a = ((unsigned)n ^ sn) - sn;\n"
    "    unsigned q = (__umulhi(a, f.m) + a) >> f.s;\n"
    "    unsigned x = sn ^ (unsigned)f.neg;\n"
    "    return (int)((q ^ x) - x);\n"
    "}\n"
    "__device__ __forceinline__ int hk_fdiv_r_s(int n, hk_fdiv f)\n"
    "{\n"
    "    unsigned sn = n < 0 ? ~0u : 0u;\n"
    "    unsigned a = ((unsigned)n ^ sn) - sn;\n"
    "    unsigned r = a - ((__umulhi(a, f.m) + a) >> f.s) * f.a;\n"
    "    return (int)((r ^ sn) - sn);\n"
    "}\n"
    "/* n / d and n % d in unsigned arithmetic: the sum needs 33 bits */\n"
    "__device__ __forceinline__ unsigned hk_fdiv_q_u(unsigned n, hk_fdiv f)\n"
    "{\n"
    "    return (unsigned)(((unsigned long long)__umulhi(n, f.m) + n) >> f.s);\n"
    "}\n"
    "__device__ __forceinline__ unsigned hk_fdiv_r_u(unsigned n, hk_fdiv f)\n"
    "{\n"
    "    return n - hk_fdiv_q_u(n, f) * f.a;\n"
    "}\n";

const char *rw_fast_divmod_helpers(void) { return helpers; }

enum dm_type { DM_UNKNOWN, DM_I32, DM_U32, DM_WIDE, DM_FLOAT };

/* How close a refused division came: the refusal names the closest. */
enum { RANK_NONE, RANK_CONSTANT, RANK_VARIES, RANK_TYPE, RANK_WIDE, RANK_NO_LOOP };

#define DM_MAX_DIVISORS 32
#define DM_MAX_STMTS 4096
#define DM_MAX_LOOPS 1024
#define DM_DEPTH 6

typedef struct {
    char key[200];        /* the divisor's squeezed text, and "u" for unsigned arithmetic */
    size_t a, b;          /* its tokens at the first use */
    bool is_unsigned;
    bool in_loop;         /* some use is inside a loop */
    size_t stmt;          /* the top-level statement of its first use: the setup goes before it */
    int line;             /* of the first use */
    bool set_up;          /* pass 2: its setup is written */
} dm_divisor;

typedef struct {
    const char *text;
    const an_model *m;    /* the analysis model: the file's __device__ functions */
    const rw_toks *ts;
    km_kernel *km;        /* NULL when the model could not be built */
    size_t sig_open, sig_close;     /* the parameter list's parentheses */
    size_t body_open, body_close;   /* the body's braces */
    size_t stmts[DM_MAX_STMTS];     /* top-level statement starts */
    size_t n_stmts;
    size_t loops[DM_MAX_LOOPS][2];  /* token ranges of loops */
    size_t n_loops;
    dm_divisor div[DM_MAX_DIVISORS];
    size_t n_div;
    bool emit;            /* second pass: write into out */
    struct hk_buf *out;
    int rc;
    size_t n_done;        /* divisions rewritten (second pass) */
    char why[640];        /* the closest refusal */
    int why_rank;
} dm_scan;

/* ---- tokens ---- */

static bool is_tok(const dm_scan *s, size_t k, const char *t) { return k < s->ts->n && rwl_tok_is(s->ts, k, t); }

static bool is_ident(const dm_scan *s, size_t k) { return k < s->ts->n && s->ts->t[k].kind == T_IDENT; }

static bool same_name(const dm_scan *s, size_t a, size_t b) { return rwl_same_tok(s->ts, a, b); }

static int line_of(const dm_scan *s, size_t k)
{
    return rwl_line_at(s->text, k < s->ts->n ? s->ts->t[k].start : s->ts->t[s->ts->n - 1].end);
}

#define TOK_LEN(s, k) ((int)((s)->ts->t[k].end - (s)->ts->t[k].start))
#define TOK_AT(s, k) ((s)->text + (s)->ts->t[k].start)

static void note(dm_scan *s, int rank, size_t k, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void note(dm_scan *s, int rank, size_t k, const char *fmt, ...)
{
    if (rank <= s->why_rank)
        return;
    char msg[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(s->why, sizeof s->why, EN(RW_DIV_AT), line_of(s, k), msg);
    s->why_rank = rank;
}

static const char *const statement_words[] = {"return", "goto", "else", "do", "if", "for", "while", "switch",
                                              "case", "default", "break", "continue", "sizeof", "typedef",
                                              "new", "delete", "throw", "co_return"};

static bool is_statement_word(const dm_scan *s, size_t k)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(statement_words); i++)
        if (rwl_tok_is(s->ts, k, statement_words[i]))
            return true;
    return false;
}

static bool is_builtin_dim(const dm_scan *s, size_t k)
{
    return is_tok(s, k, "threadIdx") || is_tok(s, k, "blockIdx") || is_tok(s, k, "blockDim") ||
           is_tok(s, k, "gridDim");
}

/* ---- types ---- */

/* The type that the specifier tokens [a, b) name. */
static enum dm_type type_of_words(const dm_scan *s, size_t a, size_t b)
{
    bool is_unsigned = false, is_int = false, wide = false, fp = false, other = false;
    int longs = 0;
    for (size_t k = a; k < b; k++) {
        if (is_tok(s, k, "const") || is_tok(s, k, "volatile") || is_tok(s, k, "register") ||
            is_tok(s, k, "__restrict__") || is_tok(s, k, "static"))
            continue;
        if (is_tok(s, k, "unsigned") || is_tok(s, k, "uint32_t") || is_tok(s, k, "uint"))
            is_unsigned = true, is_int = true;
        else if (is_tok(s, k, "int") || is_tok(s, k, "signed") || is_tok(s, k, "int32_t"))
            is_int = true;
        else if (is_tok(s, k, "long"))
            longs++;
        else if (is_tok(s, k, "size_t") || is_tok(s, k, "int64_t") || is_tok(s, k, "uint64_t") ||
                 is_tok(s, k, "ptrdiff_t") || is_tok(s, k, "ssize_t") || is_tok(s, k, "index_t"))
            wide = true;
        else if (is_tok(s, k, "float") || is_tok(s, k, "double") || is_tok(s, k, "half") ||
                 is_tok(s, k, "__half") || is_tok(s, k, "__nv_bfloat16"))
            fp = true;
        else
            other = true;   /* a template parameter, short, char, bool, a struct ... */
    }
    if (fp)
        return DM_FLOAT;
    if (wide || longs)
        return DM_WIDE;
    if (other || !is_int)
        return DM_UNKNOWN;
    return is_unsigned ? DM_U32 : DM_I32;
}

static enum dm_type combine(enum dm_type x, enum dm_type y)
{
    if (x == DM_UNKNOWN || y == DM_UNKNOWN)
        return DM_UNKNOWN;
    if (x == DM_FLOAT || y == DM_FLOAT)
        return DM_FLOAT;
    if (x == DM_WIDE || y == DM_WIDE)
        return DM_WIDE;
    if (x == DM_U32 || y == DM_U32)
        return DM_U32;
    return DM_I32;
}

static enum dm_type literal_type(const dm_scan *s, size_t k)
{
    const char *p = TOK_AT(s, k);
    int n = TOK_LEN(s, k);
    bool hex = n > 1 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    bool u = false, l = false;
    for (int i = 0; i < n; i++) {
        char c = p[i];
        if (c == '.' || (!hex && (c == 'e' || c == 'E' || c == 'f' || c == 'F')))
            return DM_FLOAT;
        if (c == 'u' || c == 'U')
            u = true;
        if (c == 'l' || c == 'L')
            l = true;
        if (c == '\'')
            return DM_UNKNOWN;
    }
    if (l)
        return DM_WIDE;
    char buf[40];
    snprintf(buf, sizeof buf, "%.*s", n, p);
    unsigned long long v = strtoull(buf, NULL, 0);
    if (v > 0xffffffffull)
        return DM_WIDE;
    if (u || v > 0x7fffffffull)
        return hex || u ? DM_U32 : DM_WIDE;
    return DM_I32;
}

/* The parameter list's range [a, b) that holds token k, or false. */
static bool param_range(const dm_scan *s, size_t k, size_t *a, size_t *b)
{
    if (k <= s->sig_open || k >= s->sig_close)
        return false;
    size_t x = k, y = k;
    int depth = 0;
    while (x > s->sig_open + 1) {
        if (is_tok(s, x - 1, ")") || is_tok(s, x - 1, "]") || is_tok(s, x - 1, ">"))
            depth++;
        else if (is_tok(s, x - 1, "(") || is_tok(s, x - 1, "[") || is_tok(s, x - 1, "<"))
            depth--;
        else if (depth == 0 && is_tok(s, x - 1, ","))
            break;
        x--;
    }
    depth = 0;
    while (y < s->sig_close) {
        if (is_tok(s, y, "(") || is_tok(s, y, "[") || is_tok(s, y, "<"))
            depth++;
        else if (is_tok(s, y, ")") || is_tok(s, y, "]") || is_tok(s, y, ">"))
            depth--;
        else if (depth == 0 && is_tok(s, y, ","))
            break;
        y++;
    }
    *a = x, *b = y;
    return true;
}

/* Where a macro named by token k is #defined in the text with a parameter list: the
 * parameter's position of argument index arg is the name; the type of the loop counter
 * the definition declares with it (`for (int i = ...`), DM_UNKNOWN when none or when two
 * definitions disagree. *has_for: some definition holds a for loop. */
static enum dm_type macro_counter_type(const dm_scan *s, size_t k, int arg, bool *has_for)
{
    const char *name = TOK_AT(s, k);
    int nl = TOK_LEN(s, k);
    enum dm_type t = DM_UNKNOWN;
    bool found = false;
    *has_for = false;
    for (const char *p = strstr(s->text, "#define"); p; p = strstr(p + 7, "#define")) {
        const char *q = p + 7;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, name, (size_t)nl) || q[nl] != '(')
            continue;
        /* the definition with its continuations, joined */
        const char *e = q;
        while (*e && !(*e == '\n' && e[-1] != '\\'))
            e++;
        rw_toks mt = {0};
        if (rwl_lex(s->text, (uint32_t)(q - s->text), (uint32_t)(e - s->text), &mt)) {
            rwl_toks_free(&mt);
            continue;
        }
        /* parameters */
        size_t pc = rwl_match_close(&mt, 1);
        size_t param = 0;
        int idx = 0;
        for (size_t j = 2; j < pc && j < mt.n; j++) {
            if (rwl_tok_is(&mt, j, ","))
                idx++;
            else if (idx == arg && mt.t[j].kind == T_IDENT)
                param = j;
        }
        enum dm_type here = DM_UNKNOWN;
        for (size_t j = pc + 1; j + 2 < mt.n && param; j++) {
            if (!rwl_tok_is(&mt, j, "for") || !rwl_tok_is(&mt, j + 1, "("))
                continue;
            *has_for = true;
            size_t a = j + 2, v = a;
            while (v < mt.n && mt.t[v].kind == T_IDENT && !rwl_same_tok(&mt, v, param))
                v++;
            if (v < mt.n && v > a && rwl_same_tok(&mt, v, param) && rwl_tok_is(&mt, v + 1, "=")) {
                dm_scan sub = *s;
                sub.ts = &mt;
                here = type_of_words(&sub, a, v);
            }
            break;
        }
        if (found && here != t)
            t = DM_UNKNOWN;
        else if (!found)
            t = here;
        found = true;
        rwl_toks_free(&mt);
    }
    return t;
}

/* Is token j a declaration of its name? Then its type in *t and, for a local with an
 * initializer, the initializer's tokens in [*ia, *ib) (else *ia == *ib). *macro: declared
 * by a loop macro's argument. */
static bool declaration_at(const dm_scan *s, size_t j, enum dm_type *t, size_t *ia, size_t *ib, bool *macro)
{
    *ia = *ib = 0;
    *macro = false;
    size_t pa, pb;
    if (param_range(s, j, &pa, &pb)) {
        if (j + 1 != pb && !is_tok(s, j + 1, "="))
            return false;
        for (size_t k = pa; k < j; k++)
            if (is_tok(s, k, "*") || is_tok(s, k, "&") || is_tok(s, k, "["))
                return *t = DM_UNKNOWN, true;
        *t = type_of_words(s, pa, j);
        return true;
    }
    if (j <= s->body_open || j >= s->body_close)
        return false;
    bool ends = is_tok(s, j + 1, "=") || is_tok(s, j + 1, ";") || is_tok(s, j + 1, ",") ||
                is_tok(s, j + 1, "[") || is_tok(s, j + 1, ":") || is_tok(s, j + 1, ")");
    size_t p = j - 1;
    if (is_ident(s, p) && !is_statement_word(s, p) && ends && !is_tok(s, j + 1, ")")) {
        size_t a = p;
        while (a > s->body_open + 1 && (is_ident(s, a - 1) || is_tok(s, a - 1, "::")) &&
               !is_statement_word(s, a - 1))
            a--;
        *t = is_tok(s, j + 1, "[") ? DM_UNKNOWN : type_of_words(s, a, j);
    } else if (is_tok(s, p, ",") && ends && !is_tok(s, j + 1, ")")) {
        /* int a = 1, b = 2: the statement's start, at the comma's depth */
        int depth = 0;
        size_t a = p;
        while (a > s->body_open + 1) {
            if (is_tok(s, a - 1, ")") || is_tok(s, a - 1, "]") || is_tok(s, a - 1, "}"))
                depth++;
            else if (is_tok(s, a - 1, "(") || is_tok(s, a - 1, "[") || is_tok(s, a - 1, "{")) {
                if (depth == 0)
                    break;
                depth--;
            } else if (depth == 0 && is_tok(s, a - 1, ";"))
                break;
            a--;
        }
        size_t d = a;
        while (d < p && (is_ident(s, d) || is_tok(s, d, "::")) && !is_statement_word(s, d))
            d++;
        /* d - 1 is the first declarator's name: [a, d - 1) its type */
        if (d < a + 2 || !(is_tok(s, d, "=") || is_tok(s, d, ",") || is_tok(s, d, "[")))
            return false;
        *t = is_tok(s, j + 1, "[") ? DM_UNKNOWN : type_of_words(s, a, d - 1);
    } else if ((is_tok(s, p, "(") || is_tok(s, p, ",")) && (is_tok(s, j + 1, ",") || is_tok(s, j + 1, ")"))) {
        /* MACRO(i, n) { ... }: a loop macro's counter, typed by its definition */
        size_t open = p;
        int arg = 0, depth = 0;
        while (open > s->body_open) {
            if (is_tok(s, open, ")"))
                depth++;
            else if (is_tok(s, open, "(")) {
                if (depth == 0)
                    break;
                depth--;
            } else if (depth == 0 && is_tok(s, open, ","))
                arg++;
            open--;
        }
        if (!is_tok(s, open, "(") || !is_ident(s, open - 1) || is_statement_word(s, open - 1))
            return false;
        size_t close = rwl_match_close(s->ts, open);
        if (!is_tok(s, close + 1, "{"))
            return false;
        bool has_for;
        *t = macro_counter_type(s, open - 1, arg, &has_for);
        if (*t == DM_UNKNOWN)
            return false;
        *macro = true;
        return true;
    } else
        return false;
    if (is_tok(s, j + 1, "=")) {
        size_t e = j + 2;
        int depth = 0;
        while (e < s->body_close) {
            if (is_tok(s, e, "(") || is_tok(s, e, "[") || is_tok(s, e, "{"))
                depth++;
            else if (is_tok(s, e, ")") || is_tok(s, e, "]") || is_tok(s, e, "}")) {
                if (depth == 0)
                    break;
                depth--;
            } else if (depth == 0 && (is_tok(s, e, ",") || is_tok(s, e, ";")))
                break;
            e++;
        }
        *ia = j + 2, *ib = e;
    }
    return true;
}

/* The declarations of the name at token k: how many (up to cap kept in decl). */
static size_t declarations(const dm_scan *s, size_t k, size_t *decl, size_t cap)
{
    size_t n = 0;
    for (size_t j = s->sig_open + 1; j < s->body_close; j++) {
        if (j == s->sig_close || !is_ident(s, j) || !same_name(s, j, k) || !rwl_is_use(s->ts, j))
            continue;
        enum dm_type t;
        size_t ia, ib;
        bool macro;
        if (declaration_at(s, j, &t, &ia, &ib, &macro)) {
            if (n < cap)
                decl[n] = j;
            n++;
        }
    }
    return n;
}

/* The type of the name at k: its one declaration's, or the declarations' when they agree. */
static enum dm_type name_type(const dm_scan *s, size_t k)
{
    size_t decl[8];
    size_t n = declarations(s, k, decl, 8);
    if (!n || n > 8)
        return DM_UNKNOWN;
    enum dm_type t = DM_UNKNOWN;
    for (size_t i = 0; i < n; i++) {
        enum dm_type ti;
        size_t ia, ib;
        bool macro;
        declaration_at(s, decl[i], &ti, &ia, &ib, &macro);
        if (i && ti != t)
            return DM_UNKNOWN;
        t = ti;
    }
    return t;
}

/* ---- operands ---- */

/* One past the operand starting at k: a name, a number or a parenthesized group, with its
 * subscripts, calls and members; 0 when there is none or it ends in ++/--. */
static size_t unit_end(const dm_scan *s, size_t k, size_t lim)
{
    size_t e;
    if (k >= lim)
        return 0;
    if (is_tok(s, k, "(")) {
        size_t c = rwl_match_close(s->ts, k);
        if (c >= lim)
            return 0;
        e = c + 1;
    } else if (is_ident(s, k) && !is_statement_word(s, k))
        e = k + 1;
    else if (k < s->ts->n && s->ts->t[k].kind == T_NUMBER)
        e = k + 1;
    else
        return 0;
    for (;;) {
        if (e < lim && (is_tok(s, e, "[") || is_tok(s, e, "("))) {
            size_t c = rwl_match_close(s->ts, e);
            if (c >= lim)
                return 0;
            e = c + 1;
        } else if (e + 1 < lim && (is_tok(s, e, ".") || is_tok(s, e, "->")) && is_ident(s, e + 1))
            e += 2;
        else
            break;
    }
    if (e < lim && (is_tok(s, e, "++") || is_tok(s, e, "--")))
        return 0;
    return e;
}

static bool is_mul_op(const dm_scan *s, size_t k)
{
    return is_tok(s, k, "*") || is_tok(s, k, "/") || is_tok(s, k, "%");
}

static bool is_add_op(const dm_scan *s, size_t k) { return is_tok(s, k, "+") || is_tok(s, k, "-"); }

static enum dm_type expr_type(const dm_scan *s, size_t a, size_t b, int depth);

static enum dm_type unit_type(const dm_scan *s, size_t a, size_t b, int depth)
{
    if (depth > DM_DEPTH)
        return DM_UNKNOWN;
    if (b == a + 1 && is_ident(s, a))
        return name_type(s, a);
    if (b == a + 1)
        return literal_type(s, a);
    if (b == a + 3 && is_builtin_dim(s, a) && is_tok(s, a + 1, "."))
        return DM_U32;
    if (is_tok(s, a, "(") && rwl_match_close(s->ts, a) == b - 1)
        return expr_type(s, a + 1, b - 1, depth + 1);
    return DM_UNKNOWN;
}

/* The type of [a, b) when it is operands joined by + - * / %; DM_UNKNOWN otherwise. */
static enum dm_type expr_type(const dm_scan *s, size_t a, size_t b, int depth)
{
    enum dm_type t = DM_I32;
    size_t k = a;
    for (;;) {
        size_t e = unit_end(s, k, b);
        if (!e)
            return DM_UNKNOWN;
        t = combine(t, unit_type(s, k, e, depth));
        if (e == b)
            return t;
        if (!is_mul_op(s, e) && !is_add_op(s, e))
            return DM_UNKNOWN;
        k = e + 1;
    }
}

/* Does the call of the function named at callee (arguments from the parenthesis at open)
 * take its argument at token j by value? Every __device__ function of that name in the
 * file must, and there must be one: a macro or an unknown callee might write it. */
static bool by_value(const dm_scan *s, size_t callee, size_t open, size_t j)
{
    size_t arg = 0;
    int depth = 0;
    for (size_t x = open + 1; x < j; x++) {
        if (is_tok(s, x, "(") || is_tok(s, x, "[") || is_tok(s, x, "{"))
            depth++;
        else if (is_tok(s, x, ")") || is_tok(s, x, "]") || is_tok(s, x, "}"))
            depth--;
        else if (depth == 0 && is_tok(s, x, ","))
            arg++;
    }
    size_t found = 0;
    for (size_t i = 0; i < s->m->n_funcs; i++) {
        const an_function *g = &s->m->funcs[i];
        if (g->kind != AN_DEVICE_FUNC || strlen(g->name) != (size_t)TOK_LEN(s, callee) ||
            memcmp(g->name, TOK_AT(s, callee), strlen(g->name)))
            continue;
        if (arg >= g->n_params || !g->params[arg].type || strchr(g->params[arg].type, '&'))
            return false;
        found++;
    }
    return found > 0;
}

/* Is the name at k written anywhere in the body after its declaration at decl, or passed
 * whole to a call that might take it by reference? The token of the first such use, or 0. */
static bool maybe_written_at(const dm_scan *s, size_t j);

static size_t maybe_written(const dm_scan *s, size_t k, size_t decl)
{
    for (size_t j = s->body_open + 1; j < s->body_close; j++) {
        if (j == decl || !is_ident(s, j) || !same_name(s, j, k) || !rwl_is_use(s->ts, j))
            continue;
        if (maybe_written_at(s, j))
            return j;
    }
    return 0;
}

/* Is token j inside the parentheses of a for statement's header? */
static bool in_for_header(const dm_scan *s, size_t j)
{
    int depth = 0;
    for (size_t x = j; x > s->body_open; x--) {
        if (is_tok(s, x - 1, ")"))
            depth++;
        else if (is_tok(s, x - 1, "(")) {
            if (depth == 0)
                return is_tok(s, x - 2, "for");
            depth--;
        } else if (depth == 0 && (is_tok(s, x - 1, "{") || is_tok(s, x - 1, "}")))
            return false;
    }
    return false;
}

/* The occurrence at j is written (assigned, ++/--, its address taken) or passed whole to a
 * call that might take it by reference. */
static bool maybe_written_at(const dm_scan *s, size_t j)
{
    if (rwl_scalar_written(s->ts, j))
        return true;
    if ((is_tok(s, j - 1, "(") || is_tok(s, j - 1, ",")) && (is_tok(s, j + 1, ",") || is_tok(s, j + 1, ")"))) {
        size_t open = j - 1;
        int depth = 0;
        while (open > s->body_open) {
            if (is_tok(s, open, ")"))
                depth++;
            else if (is_tok(s, open, "(")) {
                if (depth == 0)
                    break;
                depth--;
            }
            open--;
        }
        size_t callee = open - 1;
        if (is_tok(s, callee, ">")) {
            /* static_cast<T>(x): the template's name */
            int angle = 0;
            while (callee > s->body_open) {
                if (is_tok(s, callee, ">"))
                    angle++;
                else if (is_tok(s, callee, "<") && --angle == 0)
                    break;
                callee--;
            }
            callee--;
        }
        bool call = (is_ident(s, callee) && !is_statement_word(s, callee) &&
                                                !is_tok(s, callee, "if") && !is_tok(s, callee, "switch"));
        if (call && !rwl_pure_call_name(s->ts, callee) && !by_value(s, callee, open, j))
            return true;
    }
    return false;
}

/* ---- non-negative dividends ---- */

static bool atom_nonneg(const km_kernel *km, uint32_t id)
{
    size_t na;
    const km_atom *atoms = km_atoms(km, &na);
    if (id >= na)
        return false;
    const km_atom *at = &atoms[id];
    switch (at->kind) {
    case KM_ATOM_THREAD_IDX:
    case KM_ATOM_BLOCK_IDX:
    case KM_ATOM_BLOCK_DIM:
    case KM_ATOM_GRID_DIM:
        return true;
    case KM_ATOM_CONST:
        return at->has_value && at->value >= 0;
    case KM_ATOM_LOOP: {
        size_t nl;
        const km_loop *loops = km_loops(km, &nl);
        return at->loop >= 0 && (size_t)at->loop < nl &&
               (loops[at->loop].kind == KM_LOOP_AFFINE || loops[at->loop].kind == KM_LOOP_GRID_STRIDE ||
                loops[at->loop].kind == KM_LOOP_BLOCK_STRIDE);
    }
    default:
        return false;
    }
}

/* Every term a positive multiple of non-negative atoms (the empty form, 0, included). */
static bool form_nonneg(const km_kernel *km, km_form f)
{
    for (uint32_t i = 0; i < f.n; i++) {
        if (f.t[i].coef <= 0)
            return false;
        for (uint32_t j = 0; j < f.t[i].n; j++)
            if (!atom_nonneg(km, f.t[i].atoms[j]))
                return false;
    }
    return true;
}

static bool expr_nonneg(const dm_scan *s, size_t a, size_t b, int depth);

/* The name at k holds a value >= 0 wherever it is read: a counted loop's counter that
 * starts at and steps by non-negative amounts (the model's reading), or a local declared
 * once from a non-negative expression and never written again. */
static bool is_declaration(const size_t *decl, size_t n, size_t j)
{
    for (size_t i = 0; i < n; i++)
        if (decl[i] == j)
            return true;
    return false;
}

static bool name_nonneg(const dm_scan *s, size_t k, int depth)
{
    size_t decl[8];
    size_t n = declarations(s, k, decl, 8);
    if (!n || n > 8)
        return false;
    /* counters of loops (a for header's or a loop macro's), each read by the model */
    bool counters = s->km != NULL;
    for (size_t i = 0; i < n && counters; i++) {
        enum dm_type t;
        size_t ia, ib;
        bool macro;
        declaration_at(s, decl[i], &t, &ia, &ib, &macro);
        size_t a = decl[i];
        while (a > s->body_open + 1 && is_ident(s, a - 1) && !is_statement_word(s, a - 1))
            a--;
        counters = macro || (is_tok(s, a - 1, "(") && is_tok(s, a - 2, "for"));
    }
    /* a counter is stepped in its header (or a loop macro's) only: a write in the body
     * (i += 2, i = -1) or a call that may take it by reference undoes the model's reading */
    for (size_t j = s->body_open + 1; counters && j < s->body_close; j++)
        if (is_ident(s, j) && same_name(s, j, k) && rwl_is_use(s->ts, j) && !in_for_header(s, j) &&
            !is_declaration(decl, n, j) && maybe_written_at(s, j))
            counters = false;
    if (counters) {
        size_t nl, found = 0;
        const km_loop *loops = km_loops(s->km, &nl);
        for (size_t i = 0; i < nl; i++) {
            const km_loop *lp = &loops[i];
            if (!lp->var || strlen(lp->var) != (size_t)TOK_LEN(s, k) || memcmp(lp->var, TOK_AT(s, k), strlen(lp->var)))
                continue;
            if (!((lp->kind == KM_LOOP_AFFINE || lp->kind == KM_LOOP_GRID_STRIDE ||
                   lp->kind == KM_LOOP_BLOCK_STRIDE) &&
                  lp->step.n > 0 && form_nonneg(s->km, lp->start) && form_nonneg(s->km, lp->step)))
                return false;
            found++;
        }
        /* every declaration a loop the model read (a counter it did not is not proved) */
        return found == n;
    }
    if (n != 1)
        return false;
    enum dm_type t;
    size_t ia, ib;
    bool macro;
    declaration_at(s, decl[0], &t, &ia, &ib, &macro);
    if (macro || ia == ib || decl[0] < s->body_open || maybe_written(s, k, decl[0]))
        return false;
    return expr_nonneg(s, ia, ib, depth + 1);
}

static bool unit_nonneg(const dm_scan *s, size_t a, size_t b, int depth)
{
    if (depth > DM_DEPTH)
        return false;
    if (b == a + 1 && is_ident(s, a))
        return name_nonneg(s, a, depth);
    if (b == a + 1)
        return literal_type(s, a) == DM_I32 || literal_type(s, a) == DM_U32;
    if (b == a + 3 && is_builtin_dim(s, a) && is_tok(s, a + 1, "."))
        return true;
    if (is_tok(s, a, "(") && rwl_match_close(s->ts, a) == b - 1)
        return expr_nonneg(s, a + 1, b - 1, depth + 1);
    return false;
}

/* [a, b) is terms joined by + (no -), each a chain of * and % over non-negative operands
 * (`x % d` keeps x's sign in C; a quotient takes the divisor's, unknown here). */
static bool expr_nonneg(const dm_scan *s, size_t a, size_t b, int depth)
{
    size_t k = a;
    bool nn = true, first = true;
    for (;;) {
        size_t e = unit_end(s, k, b);
        if (!e)
            return false;
        if (first || is_tok(s, k - 1, "*") || is_tok(s, k - 1, "+"))
            nn = nn && unit_nonneg(s, k, e, depth);
        else if (is_tok(s, k - 1, "/") || is_tok(s, k - 1, "-"))
            nn = false;
        first = false;
        if (e == b)
            return nn;
        if (!is_mul_op(s, e) && !is_tok(s, e, "+") && !is_tok(s, e, "-"))
            return false;
        k = e + 1;
    }
}

/* ---- invariant divisors ---- */

/* The top-level statement that holds token k (its index in stmts), or n_stmts. */
static size_t stmt_of(const dm_scan *s, size_t k)
{
    size_t i = s->n_stmts;
    while (i > 0 && s->stmts[i - 1] > k)
        i--;
    return i ? i - 1 : s->n_stmts;
}

static bool expr_invariant(const dm_scan *s, size_t a, size_t b, size_t before, int depth, bool *has_name,
                           size_t *bad);

/* The name at k keeps one value in the whole kernel, known before top-level statement
 * before: blockDim/gridDim, an integer parameter or a local declared once at the body's
 * top level before it from such values; never written nor passed whole to a call. */
static bool name_invariant(const dm_scan *s, size_t k, size_t before, int depth, bool *has_name, size_t *bad)
{
    size_t decl[2];
    *has_name = true;
    if (declarations(s, k, decl, 2) != 1)
        return *bad = k, false;
    enum dm_type t;
    size_t ia, ib;
    bool macro;
    declaration_at(s, decl[0], &t, &ia, &ib, &macro);
    if (macro || (t != DM_I32 && t != DM_U32))
        return *bad = k, false;
    size_t w = maybe_written(s, k, decl[0]);
    if (w)
        return *bad = w, false;
    if (decl[0] < s->sig_close)
        return true;
    /* a declaration at the body's top level: nothing opened between its statement's start
     * and it (not in a block, a loop header or a macro's arguments) */
    size_t st = stmt_of(s, decl[0]);
    if (st >= s->n_stmts)
        return *bad = k, false;
    int open = 0;
    for (size_t j = s->stmts[st]; j < decl[0]; j++) {
        if (is_tok(s, j, "(") || is_tok(s, j, "[") || is_tok(s, j, "{"))
            open++;
        else if (is_tok(s, j, ")") || is_tok(s, j, "]") || is_tok(s, j, "}"))
            open--;
    }
    if (open != 0)
        return *bad = k, false;
    if (st >= before || ia == ib)
        return *bad = k, false;
    bool inner = false;
    return expr_invariant(s, ia, ib, before, depth + 1, &inner, bad);
}

/* [a, b) is integer literals, invariant names and blockDim/gridDim joined by + - * / %, in
 * parentheses or not. *has_name: something other than literals (a literal-only divisor is
 * the compiler's own job). *bad: the token that stopped it. */
static bool expr_invariant(const dm_scan *s, size_t a, size_t b, size_t before, int depth, bool *has_name,
                           size_t *bad)
{
    if (depth > DM_DEPTH)
        return *bad = a, false;
    size_t k = a;
    for (;;) {
        size_t e = unit_end(s, k, b);
        if (!e)
            return *bad = k < b ? k : a, false;
        if (e == k + 1 && is_ident(s, k)) {
            if (!name_invariant(s, k, before, depth, has_name, bad))
                return false;
        } else if (e == k + 1) {
            enum dm_type t = literal_type(s, k);
            if (t != DM_I32 && t != DM_U32)
                return *bad = k, false;
        } else if (e == k + 3 && (is_tok(s, k, "blockDim") || is_tok(s, k, "gridDim")) && is_tok(s, k + 1, ".")) {
            *has_name = true;
        } else if (is_tok(s, k, "(") && rwl_match_close(s->ts, k) == e - 1) {
            if (!expr_invariant(s, k + 1, e - 1, before, depth + 1, has_name, bad))
                return false;
        } else
            return *bad = k, false;
        if (e == b)
            return true;
        if (!is_mul_op(s, e) && !is_add_op(s, e))
            return *bad = e, false;
        k = e + 1;
    }
}

/* ---- the scan ---- */

static bool in_loop(const dm_scan *s, size_t k)
{
    for (size_t i = 0; i < s->n_loops; i++)
        if (s->loops[i][0] < k && k < s->loops[i][1])
            return true;
    return false;
}

static int out_tokens(dm_scan *s, struct hk_buf *b, size_t a, size_t e);

/* Appends the text between token a's start and token e's start (tokens [a, e) with their
 * gaps) re-emitted: nested groups are scanned too. */
static int emit_range(dm_scan *s, struct hk_buf *b, size_t a, size_t e);

/* The divisor [da, db) of a division at op whose dividend's type is lt: its index in
 * s->div (added when new), or -1 with a note when it does not qualify. */
static int divisor_of(dm_scan *s, size_t op, size_t da, size_t db, enum dm_type lt)
{
    size_t st = stmt_of(s, op);
    bool has_name = false;
    size_t bad = da;
    enum dm_type dt = expr_type(s, da, db, 0);
    enum dm_type t = combine(lt, dt);
    char dtext[160], squeezed[160];
    char *raw = rwl_tok_text(s->ts, da, db);
    if (!raw)
        return s->rc = HK_ENOMEM, -1;
    snprintf(dtext, sizeof dtext, "%s", raw);
    hk_free(raw);
    rwl_squeeze(dtext, squeezed, sizeof squeezed);
    if (!expr_invariant(s, da, db, st, 0, &has_name, &bad)) {
        if (t == DM_I32 || t == DM_U32 || t == DM_WIDE)
            note(s, RANK_VARIES, op,
                 EN(RW_DIV_NOT_INVARIANT),
                 dtext, TOK_LEN(s, bad), TOK_AT(s, bad), line_of(s, bad));
        return -1;
    }
    if (!has_name) {
        note(s, RANK_CONSTANT, op, EN(RW_DIV_CONSTANT),
             dtext);
        return -1;
    }
    if (t == DM_WIDE) {
        note(s, RANK_WIDE, op, EN(RW_DIV_64BIT), dtext);
        return -1;
    }
    if (t != DM_I32 && t != DM_U32) {
        if (t != DM_FLOAT)
            note(s, RANK_TYPE, op, EN(RW_DIV_TYPES),
                 dtext);
        return -1;
    }
    char key[200];
    snprintf(key, sizeof key, "%s%s", squeezed, t == DM_U32 ? "/u" : "/s");
    for (size_t i = 0; i < s->n_div; i++)
        if (!strcmp(s->div[i].key, key)) {
            if (in_loop(s, op))
                s->div[i].in_loop = true;
            return (int)i;
        }
    if (s->emit || s->n_div == DM_MAX_DIVISORS)
        return -1;
    dm_divisor *d = &s->div[s->n_div];
    memset(d, 0, sizeof *d);
    snprintf(d->key, sizeof d->key, "%s", key);
    d->a = da, d->b = db;
    d->is_unsigned = t == DM_U32;
    d->in_loop = in_loop(s, op);
    d->stmt = st;
    d->line = line_of(s, op);
    return (int)s->n_div++;
}

/* A chain of operands joined by * / % starting at token k (within lim): emitted with its
 * qualifying divisions rewritten. safe: what is before k cannot bind to k's operand (not a
 * cast, unary operator or template). Returns one past the chain, 0 when k starts none. */
static size_t emit_chain(dm_scan *s, struct hk_buf *b, size_t k, size_t lim, bool safe)
{
    size_t e0 = unit_end(s, k, lim);
    if (!e0 || !is_mul_op(s, e0) || e0 + 1 >= lim)
        return 0;
    struct hk_buf acc;
    hk_buf_init(&acc, RW_TEXT_MAX);
    size_t start = k, e = e0;
    enum dm_type lt = unit_type(s, k, e0, 0);
    bool nn = lt == DM_I32 && unit_nonneg(s, k, e0, 0);
    int rc = emit_range(s, &acc, k, e0);
    while (!rc && e < lim && is_mul_op(s, e)) {
        size_t op = e, da = e + 1, db = unit_end(s, da, lim);
        if (!db) {
            /* the next operand is no plain one (-x, a cast): stop the chain here */
            break;
        }
        enum dm_type ut = unit_type(s, da, db, 0);
        int di = -1;
        if (is_tok(s, op, "/") || is_tok(s, op, "%")) {
            if (!safe)
                note(s, RANK_TYPE, op, EN(RW_DIV_DIVIDEND_CAST), TOK_LEN(s, start), TOK_AT(s, start));
            else if ((lt == DM_I32 || lt == DM_U32 || lt == DM_WIDE) && ut != DM_FLOAT && ut != DM_UNKNOWN) {
                bool inv_name = false;
                size_t bad;
                if (expr_invariant(s, start, op, stmt_of(s, op), 0, &inv_name, &bad))
                    note(s, RANK_CONSTANT, op, EN(RW_DIV_DIVIDEND_INVARIANT), (int)(s->ts->t[op - 1].end - s->ts->t[start].start), TOK_AT(s, start));
                else
                    di = divisor_of(s, op, da, db, lt);
            }
            else if (lt == DM_UNKNOWN && ut != DM_FLOAT)
                note(s, RANK_TYPE, op, EN(RW_DIV_DIVIDEND_TYPE),
                     (int)(s->ts->t[op - 1].end - s->ts->t[start].start), TOK_AT(s, start));
        }
        if (s->rc)
            break;
        bool rewrite = di >= 0 && s->div[di].in_loop && s->emit;
        if (di >= 0 && !s->div[di].in_loop)
            note(s, RANK_NO_LOOP, op, EN(RW_DIV_OUTSIDE_LOOPS), (int)(s->ts->t[db - 1].end - s->ts->t[da].start), TOK_AT(s, da));
        if (rewrite) {
            dm_divisor *d = &s->div[di];
            bool rem = is_tok(s, op, "%");
            const char *form = d->is_unsigned ? "u" : nn ? "nn" : "s";
            char *inner = hk_buf_steal(&acc);
            rc = hk_buf_printf(&acc, "hk_fdiv_%s_%s(%s, hk_fd%d)", rem ? "r" : "q", form, inner ? inner : "", di);
            hk_free(inner);
            s->n_done++;
            /* C: a remainder keeps the dividend's sign; a quotient takes the divisor's too */
            nn = nn && rem;
        } else {
            /* the operator and the operand as written, from the end of the previous one */
            rc = hk_buf_append(&acc, s->text + s->ts->t[op - 1].end, s->ts->t[op].end - s->ts->t[op - 1].end);
            if (!rc)
                rc = hk_buf_append(&acc, s->text + s->ts->t[op].end, s->ts->t[da].start - s->ts->t[op].end);
            if (!rc)
                rc = emit_range(s, &acc, da, db);
            if (is_tok(s, op, "*"))
                nn = nn && combine(lt, ut) == DM_I32 && unit_nonneg(s, da, db, 0);
            else
                nn = nn && is_tok(s, op, "%");
        }
        lt = combine(lt, ut);
        e = db;
    }
    if (!rc && !s->rc && s->emit)
        rc = hk_buf_append(b, acc.data ? acc.data : "", acc.len);
    hk_buf_free(&acc);
    if (rc)
        s->rc = rc;
    return e;
}

/* Writes the setups that go before top-level statement st. */
static int emit_setups(dm_scan *s, struct hk_buf *b, size_t st, size_t k)
{
    int rc = HK_OK;
    /* the statement's indentation */
    const char *p = s->text + s->ts->t[k].start;
    size_t ind = 0;
    while (p - ind > s->text && (p[-(long)ind - 1] == ' ' || p[-(long)ind - 1] == '\t'))
        ind++;
    for (size_t i = 0; i < s->n_div && !rc; i++) {
        dm_divisor *d = &s->div[i];
        if (!d->in_loop || d->stmt != st || d->set_up)
            continue;
        char *dt = rwl_tok_text(s->ts, d->a, d->b);
        if (!dt)
            return HK_ENOMEM;
        rc = hk_buf_printf(b, "const hk_fdiv hk_fd%zu = hk_fdiv_make_%s(%s);\n%.*s", i, d->is_unsigned ? "u" : "s",
                           dt, (int)ind, p - ind);
        hk_free(dt);
        d->set_up = true;
    }
    return rc;
}

static int emit_range(dm_scan *s, struct hk_buf *b, size_t a, size_t e)
{
    size_t k = a;
    while (k < e && !s->rc) {
        if (k > a && s->emit) {
            int rc = hk_buf_append(b, s->text + s->ts->t[k - 1].end, s->ts->t[k].start - s->ts->t[k - 1].end);
            if (rc)
                return s->rc = rc;
        }
        if (s->emit && k > s->body_open && k < s->body_close) {
            size_t st = stmt_of(s, k);
            if (st < s->n_stmts && s->stmts[st] == k) {
                int rc = emit_setups(s, b, st, k);
                if (rc)
                    return s->rc = rc;
            }
        }
        /* an operand starts here when nothing before it is an operand itself, nor the
         * operand of a `*` `/` `%` left of it: `(int)a * b / c` is ((int)a * b) / c, and a
         * chain read from b would divide b alone */
        bool cont = k > 0 && (is_tok(s, k - 1, ")") || is_tok(s, k - 1, "]") || is_mul_op(s, k - 1) ||
                              is_tok(s, k - 1, "::") ||
                              s->ts->t[k - 1].kind == T_NUMBER ||
                              (is_ident(s, k - 1) && !is_tok(s, k - 1, "return")) || is_tok(s, k - 1, ".") ||
                              is_tok(s, k - 1, "->"));
        if (!cont && (is_ident(s, k) || is_tok(s, k, "(") || s->ts->t[k].kind == T_NUMBER)) {
            bool unary = k > 0 && (((is_tok(s, k - 1, "-") || is_tok(s, k - 1, "+") || is_tok(s, k - 1, "*") ||
                                     is_tok(s, k - 1, "&") || is_tok(s, k - 1, "~") || is_tok(s, k - 1, "!")) &&
                                    rwl_unary_position(s->ts, k - 1)) ||
                                   is_tok(s, k - 1, "++") || is_tok(s, k - 1, "--"));
            bool tmpl = k > 0 && is_tok(s, k - 1, ">") && is_tok(s, k, "(");
            size_t c = emit_chain(s, b, k, e, !unary && !tmpl && !is_tok(s, k - 1, "sizeof"));
            if (s->rc)
                return s->rc;
            if (c) {
                k = c;
                continue;
            }
        }
        if (is_tok(s, k, "(") || is_tok(s, k, "[") || is_tok(s, k, "{")) {
            size_t c = rwl_match_close(s->ts, k);
            if (c < e) {
                int rc = out_tokens(s, b, k, k + 1);
                if (!rc && s->emit && c > k + 1)
                    rc = hk_buf_append(b, s->text + s->ts->t[k].end, s->ts->t[k + 1].start - s->ts->t[k].end);
                if (!rc)
                    rc = emit_range(s, b, k + 1, c);
                if (!rc && s->emit)
                    rc = hk_buf_append(b, s->text + s->ts->t[c - 1].end, s->ts->t[c].start - s->ts->t[c - 1].end);
                if (!rc)
                    rc = out_tokens(s, b, c, c + 1);
                if (rc)
                    return s->rc = rc;
                k = c + 1;
                continue;
            }
        }
        if (is_tok(s, k, "/") || is_tok(s, k, "%"))
            note(s, RANK_TYPE, k, EN(RW_DIV_DIVIDEND_OPERAND), TOK_LEN(s, k), TOK_AT(s, k));
        int rc = out_tokens(s, b, k, k + 1);
        if (rc)
            return s->rc = rc;
        k++;
    }
    return s->rc;
}

static int out_tokens(dm_scan *s, struct hk_buf *b, size_t a, size_t e)
{
    if (!s->emit || a >= e)
        return HK_OK;
    return hk_buf_append(b, s->text + s->ts->t[a].start, s->ts->t[e - 1].end - s->ts->t[a].start);
}

/* The body's top-level statements and its loops. */
static void find_structure(dm_scan *s)
{
    const rw_toks *ts = s->ts;
    size_t k = s->body_open + 1;
    while (k < s->body_close && s->n_stmts < DM_MAX_STMTS) {
        s->stmts[s->n_stmts++] = k;
        size_t e;
        /* MACRO(i, n) { ... } reads as one statement */
        if (is_ident(s, k) && !is_statement_word(s, k) && !is_tok(s, k, "if") && !is_tok(s, k, "switch") &&
            is_tok(s, k + 1, "(") && is_tok(s, rwl_match_close(ts, k + 1) + 1, "{"))
            e = rwl_match_close(ts, rwl_match_close(ts, k + 1) + 1) + 1;
        else
            e = rwl_stmt_end(ts, k, s->body_close);
        k = e > k ? e : k + 1;
    }
    for (k = s->body_open + 1; k < s->body_close && s->n_loops < DM_MAX_LOOPS; k++) {
        size_t e = 0;
        if ((is_tok(s, k, "for") || is_tok(s, k, "while")) && is_tok(s, k + 1, "(")) {
            size_t c = rwl_match_close(ts, k + 1);
            if (c < s->body_close && !is_tok(s, c + 1, ";"))
                e = rwl_stmt_end(ts, k, s->body_close);
        } else if (is_tok(s, k, "do"))
            e = rwl_stmt_end(ts, k, s->body_close);
        else if (is_ident(s, k) && is_tok(s, k + 1, "(") && !is_statement_word(s, k) &&
                 (is_tok(s, k - 1, ";") || is_tok(s, k - 1, "{") || is_tok(s, k - 1, "}") || is_tok(s, k - 1, ")"))) {
            size_t c = rwl_match_close(ts, k + 1);
            if (c < s->body_close && is_tok(s, c + 1, "{")) {
                bool has_for;
                macro_counter_type(s, k, 0, &has_for);
                if (has_for)
                    e = rwl_match_close(ts, c + 1) + 1;
            }
        }
        if (e > k) {
            s->loops[s->n_loops][0] = k;
            s->loops[s->n_loops][1] = e;
            s->n_loops++;
        }
    }
}

int rw_fast_divmod(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
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
    dm_scan *s = NULL;
    struct hk_buf body, what;
    hk_buf_init(&body, RW_TEXT_MAX);
    hk_buf_init(&what, 1 << 14);
    if ((rc = rwl_lex(text, f->span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    if (!(s = hk_calloc(1, sizeof *s))) {
        rc = HK_ENOMEM;
        goto out;
    }
    s->text = text;
    s->m = m;
    s->ts = &ts;
    s->body_open = s->body_close = ts.n;
    for (size_t k = 0; k < ts.n; k++)
        if (ts.t[k].start == f->body_span.start_byte) {
            s->body_open = k;
            break;
        }
    if (s->body_open >= ts.n || (s->body_close = rwl_match_close(&ts, s->body_open)) >= ts.n) {
        rc = rwl_not_applicable_to(out, "fast_divmod", f->name, HK_MSG_RW_DIV_BRACES, rwl_line_at(text, f->body_span.start_byte));
        goto out;
    }
    s->sig_open = s->sig_close = 0;
    for (size_t k = 0; k < s->body_open; k++)
        if (ts.t[k].start >= f->name_span.end_byte && rwl_tok_is(&ts, k, "(")) {
            s->sig_open = k;
            s->sig_close = rwl_match_close(&ts, k);
            break;
        }
    for (size_t k = 0; k < ts.n; k++)
        if (ts.t[k].kind == T_IDENT && !strncmp(text + ts.t[k].start, "hk_fdiv", 7)) {
            rc = rwl_not_applicable_to(out, "fast_divmod", f->name, HK_MSG_RW_DIV_ALREADY, rwl_line_at(text, ts.t[k].start));
            goto out;
        }
    if (strstr(text, "struct hk_fdiv")) {
        rc = rwl_not_applicable_to(out, "fast_divmod", f->name, HK_MSG_RW_DIV_HELPERS, rwl_line_at(text, f->body_span.start_byte));
        goto out;
    }
    /* setups go before top-level statements and read every token as one program: a jump
     * may not cross them, and the two branches of an #if are not one program */
    for (size_t k = s->body_open + 1; k < s->body_close; k++)
        if (rwl_tok_is(&ts, k, "goto")) {
            rc = rwl_not_applicable_to(out, "fast_divmod", f->name, HK_MSG_RW_DIV_GOTO, rwl_line_at(text, ts.t[k].start));
            goto out;
        }
    for (size_t b = f->body_span.start_byte; b < f->body_span.end_byte; b++) {
        if (text[b] != '#' || !(b == 0 || text[b - 1] == '\n' || text[b - 1] == ' ' || text[b - 1] == '\t'))
            continue;
        size_t l = b;
        while (l > 0 && (text[l - 1] == ' ' || text[l - 1] == '\t'))
            l--;
        if (l > 0 && text[l - 1] != '\n')
            continue;
        const char *d = text + b + 1;
        while (*d == ' ' || *d == '\t')
            d++;
        if (!strncmp(d, "if", 2) || !strncmp(d, "el", 2) || !strncmp(d, "endif", 5)) {
            rc = rwl_not_applicable_to(out, "fast_divmod", f->name, HK_MSG_RW_DIV_PREPROC, rwl_line_at(text, b));
            goto out;
        }
    }
    char kwhy[200];
    rc = km_build(text, len, f->name, &km, kwhy, sizeof kwhy);
    if (rc == HK_ENOMEM)
        goto out;
    rc = HK_OK;   /* without the model every int dividend takes the signed form: still exact */
    s->km = km;
    find_structure(s);
    /* pass 1: the divisors, where they are set up and whether a loop uses them */
    bool any = false;
    for (size_t k = s->body_open + 1; k < s->body_close; k++)
        if (rwl_tok_is(&ts, k, "/") || rwl_tok_is(&ts, k, "%"))
            any = true;
    if ((rc = emit_range(s, &body, s->body_open + 1, s->body_close)))
        goto out;
    /* pass 2: write */
    s->emit = true;
    s->n_done = 0;
    if ((rc = emit_range(s, &body, s->body_open + 1, s->body_close)))
        goto out;
    if (!s->n_done) {
        char why[700];
        if (!any)
            snprintf(why, sizeof why, EN(RW_DIV_NO_DIV), rwl_line_at(text, f->body_span.start_byte));
        else if (s->why[0])
            snprintf(why, sizeof why, "%s", s->why);
        else
            snprintf(why, sizeof why, EN(RW_DIV_NO_RUNTIME),
                     rwl_line_at(text, f->body_span.start_byte));
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "fast_divmod", f->name, why));
        goto out;
    }
    for (size_t i = 0, n = 0; i < s->n_div && !rc; i++)
        if (s->div[i].in_loop) {
            char *dt = rwl_tok_text(&ts, s->div[i].a, s->div[i].b);
            rc = dt ? hk_buf_printf(&what, "%s`%s` (line %d)", n++ ? ", " : "", dt, s->div[i].line) : HK_ENOMEM;
            hk_free(dt);
        }
    if (!rc)
        rc = rwl_edits_add(&es, ts.t[s->body_open + 1].start, ts.t[s->body_close - 1].end, body.data);
    if (!rc) {
        /* the helpers, before the kernel's definition (its template line included) */
        char *h = hk_asprintf("%s\n", helpers);
        rc = h ? rwl_edits_add_owned(&es, f->span.start_byte, f->span.start_byte, h) : HK_ENOMEM;
    }
    if (rc)
        goto out;
    char *desc = hk_asprintf(EN(RW_DIV_DESC),
                             f->name, s->n_done, what.data ? what.data : "");
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
out:
    rwl_edits_free(&es);
    hk_buf_free(&body);
    hk_buf_free(&what);
    km_free(km);
    hk_free(s);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static int emit_fast_divmod(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_fast_divmod(c->text, c->len, c->m, c->kernel, out);
}

const rw_descriptor rw_fast_divmod_desc = {
    .name = "fast_divmod",
    .summary = "integer / and % by a kernel-invariant runtime divisor become a multiply by its magic number, " /* i18n: not for people (no listing reads it) */
               "set up once per thread (exact)",
    .flags = 0,
    .emit = emit_fast_divmod,
};
