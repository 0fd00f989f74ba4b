/* The invariant-table rewrite (rewrite_table.h). A token scan lists the body's plain
 * declarations, decides which locals are uniform (pure functions of unwritten scalar
 * parameters and literals), finds `j = A % K` and a costly float/double of j, and inserts a
 * per-block __shared__ table at the start of the body; the result is re-analysed by
 * rwl_finish. */
#include "rewrites/rewrite_table.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* The kernels this rewrite targets are a few statements; a larger body is not one, and the
 * cap keeps a huge kernel from costing time (the scans below are quadratic at worst). */
#define RT_MAX_TOKENS 20000u
#define RT_MAX_DECLS 256
#define RT_NAME 128

/* One plain declaration `[const] TYPE name = init;` that is a statement of its own. */
typedef struct {
    size_t a, b;          /* statement tokens [a, b), b one past the ';' */
    size_t type_a, name;  /* type words [type_a, name), the declared name's token */
    size_t ia, ib;        /* initializer tokens [ia, ib) */
    size_t scope_end;     /* token closing the block that holds it */
    bool uniform;         /* computed only from uniform values (at any depth: declared
                           * once and never written, it has one value wherever it is in
                           * scope, e.g. inside a grid-stride loop's body) */
    bool needed;          /* copied into the table's block */
} rt_decl;

typedef struct {
    const rw_toks *ts;
    const an_model *m;
    size_t kernel;
    const an_function *f;
    rt_decl d[RT_MAX_DECLS];
    size_t n;
} rt_scan;

/* What an expression check found. */
typedef struct {
    const char *why;      /* static reason, NULL when the expression is fine */
    char what[RT_NAME];   /* the name the reason is about */
    bool costly;          /* calls a costly math function */
    bool uses_j;
} rt_expr;

/* ------------------------------------------------------------------ words */

static const char *const costly_bases[] = {
    "pow",   "exp",   "exp2",  "exp10", "expm1",  "log",    "log2",    "log10", "log1p",
    "logb",  "sin",   "cos",   "tan",   "sinh",   "cosh",   "tanh",    "asin",  "acos",
    "atan",  "atan2", "asinh", "acosh", "atanh",  "erf",    "erfc",    "erfinv", "erfcinv",
    "cbrt",  "rcbrt", "lgamma", "tgamma", "sinpi", "cospi", "normcdf", "normcdfinv"};

/* Cheap pure functions an expression may also call (no memory, no thread state). */
static const char *const pure_calls[] = {
    "sqrtf", "sqrt", "rsqrtf", "rsqrt", "fabsf", "fabs", "fminf", "fmaxf", "fmin", "fmax",
    "min", "max", "floorf", "floor", "ceilf", "ceil", "truncf", "trunc", "roundf", "round",
    "rintf", "rint", "fmaf", "fma", "fmodf", "fmod", "ldexpf", "ldexp", "copysignf", "copysign",
    "abs", "__fdividef", "__frcp_rn", "__fdiv_rn", "__fmul_rn", "__fadd_rn", "__fsqrt_rn",
    "__dsqrt_rn", "__drcp_rn", "__ddiv_rn"};

/* Words a declaration's type (or a cast) is made of. */
static const char *const type_words[] = {
    "const", "int", "unsigned", "signed", "long", "short", "char", "bool", "float", "double",
    "size_t", "ptrdiff_t", "int64_t", "uint64_t", "int32_t", "uint32_t", "auto"};

static const char *const int_words[] = {"int", "unsigned", "signed", "long", "short", "size_t",
                                        "ptrdiff_t", "int64_t", "uint64_t", "int32_t", "uint32_t"};

static bool tok_in(const rw_toks *ts, size_t k, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rwl_tok_is_ident(ts, k, list[i]))
            return true;
    return false;
}

static bool is_type_word(const rw_toks *ts, size_t k)
{
    return tok_in(ts, k, type_words, HK_ARRAY_LEN(type_words));
}

static bool is_ident(const rw_toks *ts, size_t k)
{
    return k < ts->n && ts->t[k].kind == T_IDENT;
}

static void tok_str(const rw_toks *ts, size_t k, char *out, size_t size)
{
    size_t l = ts->t[k].end - ts->t[k].start;
    if (l >= size)
        l = size - 1;
    memcpy(out, ts->text + ts->t[k].start, l);
    out[l] = '\0';
}

static bool tok_equals_str(const rw_toks *ts, size_t k, const char *s, size_t l)
{
    return ts->t[k].end - ts->t[k].start == l && memcmp(ts->text + ts->t[k].start, s, l) == 0;
}

/* pow, powf, __powf, exp2f, __expf ...: a costly math function by exact name. */
static bool is_costly_call(const rw_toks *ts, size_t k)
{
    if (!is_ident(ts, k))
        return false;
    const char *s = ts->text + ts->t[k].start;
    size_t l = ts->t[k].end - ts->t[k].start;
    bool intrinsic = l > 2 && s[0] == '_' && s[1] == '_';
    if (intrinsic) {
        s += 2;
        l -= 2;
    }
    for (size_t i = 0; i < HK_ARRAY_LEN(costly_bases); i++) {
        size_t bl = strlen(costly_bases[i]);
        if (l < bl || memcmp(s, costly_bases[i], bl) != 0)
            continue;
        if (l == bl && !intrinsic)
            return true;   /* the double version */
        if (l == bl + 1 && s[bl] == 'f')
            return true;
    }
    return false;
}

/* Can the identifier at k end a declaration's type (a type word or a type name, not a
 * keyword that precedes an expression)? */
static bool type_like(const rw_toks *ts, size_t k)
{
    static const char *const keywords[] = {"return", "else", "case", "goto", "sizeof", "new",
                                           "delete", "throw", "co_return", "co_yield", "do"};
    return is_ident(ts, k) && !tok_in(ts, k, keywords, HK_ARRAY_LEN(keywords));
}

/* How many times [lo, hi) declares the name of token k as a value: the name right after a
 * type word or type name. (Pointers and references are not counted: neither can be a
 * uniform scalar or the index this rewrite needs.) */
static size_t decl_count(const rw_toks *ts, size_t lo, size_t hi, size_t k)
{
    size_t n = 0;
    for (size_t i = lo; i < hi; i++) {
        if (!rwl_is_use(ts, i) || !rwl_same_tok(ts, i, k) || i == 0)
            continue;
        if (type_like(ts, i - 1))
            n++;
    }
    return n;
}

/* Is the name of token k written anywhere in [lo, hi) besides its declaration at decl
 * (ts->n: none)? An assignment, ++/--, or its address taken (it could be written through). */
static bool name_written(const rw_toks *ts, size_t lo, size_t hi, size_t k, size_t decl)
{
    for (size_t i = lo; i < hi; i++) {
        if (i == decl || !rwl_is_use(ts, i) || !rwl_same_tok(ts, i, k))
            continue;
        if (rwl_tok_is_assign_op(ts, i + 1) || rwl_tok_is(ts, i + 1, "++") || rwl_tok_is(ts, i + 1, "--"))
            return true;
        if (i > 0 && (rwl_tok_is(ts, i - 1, "++") || rwl_tok_is(ts, i - 1, "--")))
            return true;
        if (i > 0 && rwl_tok_is(ts, i - 1, "&") && rwl_unary_position(ts, i - 1))
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------ declarations */

/* Is token i the start of a statement (after `{`, `}` or `;`, outside parentheses)? */
static bool stmt_start(const rw_toks *ts, size_t i, int paren)
{
    return paren == 0 && i > 0 &&
           (rwl_tok_is(ts, i - 1, ";") || rwl_tok_is(ts, i - 1, "{") || rwl_tok_is(ts, i - 1, "}"));
}

/* Reads a plain declaration `[const] TYPE name = init;` at statement start i of the block
 * that closes at scope_end; false when it is not one (several declarators, no
 * initializer, arrays, pointers, storage classes...). */
static bool read_decl(const rw_toks *ts, size_t i, size_t scope_end, rt_decl *d)
{
    size_t k = i;
    while (k < scope_end && is_type_word(ts, k))
        k++;
    if (k == i || !is_ident(ts, k) || !rwl_tok_is(ts, k + 1, "="))
        return false;
    /* `const` alone is not a type */
    bool typed = false;
    for (size_t t = i; t < k; t++)
        typed |= !rwl_tok_is_ident(ts, t, "const");
    if (!typed)
        return false;
    size_t e = rwl_stmt_end(ts, i, scope_end);
    if (e <= k + 3 || !rwl_tok_is(ts, e - 1, ";"))
        return false;
    int depth = 0;
    for (size_t t = k + 2; t < e - 1; t++) {
        if (rwl_tok_is(ts, t, "(") || rwl_tok_is(ts, t, "[") || rwl_tok_is(ts, t, "{"))
            depth++;
        else if (rwl_tok_is(ts, t, ")") || rwl_tok_is(ts, t, "]") || rwl_tok_is(ts, t, "}"))
            depth--;
        else if (depth == 0 && rwl_tok_is(ts, t, ","))
            return false;   /* several declarators */
    }
    memset(d, 0, sizeof *d);
    d->a = i;
    d->b = e;
    d->type_a = i;
    d->name = k;
    d->ia = k + 2;
    d->ib = e - 1;
    d->scope_end = scope_end;
    return true;
}

/* Lists the plain declarations of the body (tokens [0, n): `{ ... }`) in order. */
static void collect_decls(rt_scan *s)
{
    const rw_toks *ts = s->ts;
    size_t stack[256];   /* indices of the open braces */
    size_t depth = 0;
    int paren = 0;
    for (size_t i = 0; i < ts->n; i++) {
        if (rwl_tok_is(ts, i, "(") || rwl_tok_is(ts, i, "["))
            paren++;
        else if (rwl_tok_is(ts, i, ")") || rwl_tok_is(ts, i, "]"))
            paren--;
        else if (rwl_tok_is(ts, i, "{")) {
            if (depth < HK_ARRAY_LEN(stack))
                stack[depth] = i;
            depth++;
            continue;
        } else if (rwl_tok_is(ts, i, "}")) {
            if (depth > 0)
                depth--;
            continue;
        }
        if (depth == 0 || depth > HK_ARRAY_LEN(stack) || !stmt_start(ts, i, paren) || s->n >= RT_MAX_DECLS)
            continue;
        size_t close = rwl_match_close(ts, stack[depth - 1]);
        if (close >= ts->n)
            continue;
        rt_decl d;
        if (!read_decl(ts, i, close, &d))
            continue;
        s->d[s->n++] = d;
    }
}

static const an_param *scalar_param(const an_function *f, const rw_toks *ts, size_t k)
{
    for (size_t i = 0; i < f->n_params; i++) {
        const an_param *p = &f->params[i];
        if (p->name && p->name[0] && tok_equals_str(ts, k, p->name, strlen(p->name)))
            return p;
    }
    return NULL;
}

/* Is v made of integer literals (each word starts with a digit: 64, 0x40, 64u) and
 * operators only? */
static bool literal_only(const char *v)
{
    for (const char *p = v; *p;) {
        if (isalnum((unsigned char)*p) || *p == '_') {
            if (!isdigit((unsigned char)*p))
                return false;
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
        } else if (strchr(" +-*/%()<>&|^~", *p)) {
            p++;
        } else {
            return false;
        }
    }
    return true;
}

/* Is the name at k a compile-time integer constant of the file: a template parameter of
 * this kernel, a constexpr (file scope or this kernel's), or a #define whose value is
 * literals and operators only (a macro naming another identifier could expand to
 * anything)? */
static bool constant_tunable(const rt_scan *s, size_t k)
{
    for (size_t i = 0; i < s->m->n_tunables; i++) {
        const an_tunable *t = &s->m->tunables[i];
        if (!t->name || !tok_equals_str(s->ts, k, t->name, strlen(t->name)))
            continue;
        if (t->kind == AN_TUNE_TEMPLATE)
            return t->owner == (long)s->kernel;
        if (t->owner != -1 && t->owner != (long)s->kernel)
            continue;
        if (t->kind == AN_TUNE_CONSTEXPR)
            return true;
        if (!t->value || !t->value[0])
            return false;
        return literal_only(t->value);
    }
    return false;
}

/* The uniform local named by token k and declared before token `before`, or
 * NULL. */
static rt_decl *uniform_local(rt_scan *s, size_t k, size_t before)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->d[i].uniform && s->d[i].name < before && rwl_same_tok(s->ts, s->d[i].name, k))
            return &s->d[i];
    return NULL;
}

/* ------------------------------------------------------------------ expressions */

static const char *set_why(rt_expr *x, const rw_toks *ts, size_t k, const char *why)
{
    tok_str(ts, k, x->what, sizeof x->what);
    x->why = why;
    return why;
}

/* Checks that [a, b) is computed only from uniform values (and from the index j, token
 * j_tok, when j_tok < ts->n): literals, casts, operators, calls of pure math functions,
 * scalar parameters the body never writes, uniform locals declared before a. Marks the
 * uniform locals it reads as needed when mark. */
static const char *check_expr(rt_scan *s, size_t a, size_t b, size_t j_tok, bool mark, rt_expr *x)
{
    const rw_toks *ts = s->ts;
    memset(x, 0, sizeof *x);
    for (size_t k = a; k < b; k++) {
        const rw_tok *t = &ts->t[k];
        if (t->kind == T_NUMBER)
            continue;
        if (t->kind == T_STRING)
            return set_why(x, ts, k, EN(RW_IT_STRING));
        if (t->kind == T_PUNCT) {
            if (rwl_tok_is(ts, k, "["))
                return set_why(x, ts, k > a ? k - 1 : k, EN(RW_IT_SUBSCRIPT));
            if (rwl_tok_is(ts, k, ".") || rwl_tok_is(ts, k, "->"))
                return set_why(x, ts, k > a ? k - 1 : k, EN(RW_IT_MEMBER));
            if (rwl_tok_is_assign_op(ts, k) || rwl_tok_is(ts, k, "++") || rwl_tok_is(ts, k, "--"))
                return set_why(x, ts, k, EN(RW_IT_WRITES));
            if ((rwl_tok_is(ts, k, "*") || rwl_tok_is(ts, k, "&")) && rwl_unary_position(ts, k))
                return set_why(x, ts, k, EN(RW_IT_POINTER));
            if (rwl_tok_is(ts, k, "::") || rwl_tok_is(ts, k, "{"))
                return set_why(x, ts, k, EN(RW_IT_SCOPED));
            continue;
        }
        /* identifiers */
        if (rwl_tok_is_ident(ts, k, "threadIdx") || rwl_tok_is_ident(ts, k, "blockIdx") ||
            rwl_tok_is_ident(ts, k, "clock") || rwl_tok_is_ident(ts, k, "clock64") ||
            rwl_tok_is_ident(ts, k, "__lane_id") || rwl_tok_is_ident(ts, k, "laneid"))
            return set_why(x, ts, k, EN(RW_IT_THREAD));
        if ((rwl_tok_is_ident(ts, k, "blockDim") || rwl_tok_is_ident(ts, k, "gridDim")) &&
            rwl_tok_is(ts, k + 1, ".") && k + 2 < b &&
            (rwl_tok_is_ident(ts, k + 2, "x") || rwl_tok_is_ident(ts, k + 2, "y") ||
             rwl_tok_is_ident(ts, k + 2, "z"))) {
            k += 2;   /* the same in every thread of the grid */
            continue;
        }
        if (is_type_word(ts, k) || rwl_tok_is_ident(ts, k, "true") || rwl_tok_is_ident(ts, k, "false"))
            continue;
        if (rwl_tok_is(ts, k + 1, "(")) {
            if (is_costly_call(ts, k)) {
                x->costly = true;
                continue;
            }
            if (rwl_tok_is_ident(ts, k, "sincosf") || rwl_tok_is_ident(ts, k, "sincos") ||
                rwl_tok_is_ident(ts, k, "__sincosf") || rwl_tok_is_ident(ts, k, "sincospif"))
                return set_why(x, ts, k, EN(RW_IT_SINCOS));
            if (tok_in(ts, k, pure_calls, HK_ARRAY_LEN(pure_calls)))
                continue;
            return set_why(x, ts, k, EN(RW_IT_NOT_PURE));
        }
        if (j_tok < ts->n && rwl_same_tok(ts, k, j_tok)) {
            x->uses_j = true;
            continue;
        }
        rt_decl *d = uniform_local(s, k, a);
        if (d) {
            d->needed |= mark;
            continue;
        }
        const an_param *p = scalar_param(s->f, ts, k);
        if (p && p->pointer_depth > 0)
            return set_why(x, ts, k, EN(RW_IT_POINTER_PARAM));
        if (p) {
            if (decl_count(ts, 0, ts->n, k) > 0)
                return set_why(x, ts, k, EN(RW_IT_SHADOWS));
            if (name_written(ts, 0, ts->n, k, ts->n))
                return set_why(x, ts, k, EN(RW_IT_PARAM_WRITTEN));
            continue;
        }
        if (constant_tunable(s, k) && decl_count(ts, 0, ts->n, k) == 0)
            continue;
        return set_why(x, ts, k, EN(RW_IT_NOT_UNIFORM));
    }
    return NULL;
}

/* Marks the uniform locals. In declaration order, so each may use the earlier. */
static void find_uniform(rt_scan *s)
{
    const rw_toks *ts = s->ts;
    for (size_t i = 0; i < s->n; i++) {
        rt_decl *d = &s->d[i];
        if (decl_count(ts, 0, ts->n, d->name) != 1 ||
            name_written(ts, 0, ts->n, d->name, d->name) || scalar_param(s->f, ts, d->name))
            continue;
        rt_expr x;
        d->uniform = !check_expr(s, d->ia, d->ib, ts->n, false, &x);
    }
}

/* The last depth-0 `%` of [a, b) (inside one pair of parentheses around the whole), or
 * SIZE_MAX when none; *kend: one past the tokens of K (the text after it). A conditional operator at depth 0 makes the text after `%` no expression of
 * its own: none then either. K need not be the exact operand of `%` for correctness (entry
 * t of the table is EXPR at j = t, and j is range-checked when read), only for coverage. */
static size_t mod_at(const rw_toks *ts, size_t a, size_t b, size_t *kend)
{
    if (b > a + 2 && rwl_tok_is(ts, a, "(") && rwl_match_close(ts, a) == b - 1) {
        a++;
        b--;
    }
    *kend = b;
    int depth = 0;
    size_t at = SIZE_MAX;
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "["))
            depth++;
        else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]"))
            depth--;
        else if (depth == 0 && (rwl_tok_is(ts, k, "?") || rwl_tok_is(ts, k, ":")))
            return SIZE_MAX;
        else if (depth == 0 && rwl_tok_is(ts, k, "%") && k > a && k + 1 < b)
            at = k;
    }
    return at;
}

static bool int_type(const rw_toks *ts, const rt_decl *d)
{
    bool any = false;
    for (size_t k = d->type_a; k < d->name; k++) {
        if (rwl_tok_is_ident(ts, k, "const"))
            continue;
        if (!tok_in(ts, k, int_words, HK_ARRAY_LEN(int_words)))
            return false;
        any = true;
    }
    return any;
}

/* float or double, const allowed. */
static bool real_type(const rw_toks *ts, const rt_decl *d)
{
    size_t n = 0;
    for (size_t k = d->type_a; k < d->name; k++) {
        if (rwl_tok_is_ident(ts, k, "const"))
            continue;
        if (!rwl_tok_is_ident(ts, k, "float") && !rwl_tok_is_ident(ts, k, "double"))
            return false;
        n++;
    }
    return n == 1;
}

/* Type text of d without const. */
static int type_text(const rw_toks *ts, const rt_decl *d, struct hk_buf *b)
{
    bool first = true;
    for (size_t k = d->type_a; k < d->name; k++) {
        if (rwl_tok_is_ident(ts, k, "const"))
            continue;
        char w[RT_NAME];
        tok_str(ts, k, w, sizeof w);
        int rc = hk_buf_printf(b, "%s%s", first ? "" : " ", w);
        if (rc)
            return rc;
        first = false;
    }
    return HK_OK;
}

/* ------------------------------------------------------------------ the rewrite */

typedef struct {
    size_t jd, vd;   /* indices into s->d: the index and the value declarations */
    size_t mod;      /* the `%` token of j's initializer */
    size_t kend;     /* one past K, the tokens after it */
} rt_match;

/* Finds j and v; NULL, or the reason (why_buf holds it). */
static const char *find_match(rt_scan *s, rt_match *mt, char *why_buf, size_t size)
{
    const rw_toks *ts = s->ts;
    const char *why = NULL;
    bool any_index = false;
    for (size_t i = 0; i < s->n; i++) {
        rt_decl *jd = &s->d[i];
        if (!int_type(ts, jd))
            continue;
        size_t kend;
        size_t mod = mod_at(ts, jd->ia, jd->ib, &kend);
        if (mod == SIZE_MAX)
            continue;
        any_index = true;
        char jn[RT_NAME];
        tok_str(ts, jd->name, jn, sizeof jn);
        rt_expr x;
        if (check_expr(s, mod + 1, kend, ts->n, false, &x)) {
            if (!why) {
                snprintf(why_buf, size, EN(RW_IT_K_NOT_UNIFORM), jn,
                         x.what, x.why);
                why = why_buf;
            }
            continue;
        }
        if (decl_count(ts, 0, ts->n, jd->name) != 1 || name_written(ts, 0, ts->n, jd->name, jd->name) ||
            scalar_param(s->f, ts, jd->name)) {
            if (!why) {
                snprintf(why_buf, size, EN(RW_IT_INDEX_WRITTEN), jn);
                why = why_buf;
            }
            continue;
        }
        for (size_t v = i + 1; v < s->n; v++) {
            rt_decl *vd = &s->d[v];
            if (vd->a < jd->b || vd->a >= jd->scope_end || !real_type(ts, vd))
                continue;
            bool mentions = false;
            for (size_t k = vd->ia; k < vd->ib && !mentions; k++)
                mentions = rwl_is_use(ts, k) && rwl_same_tok(ts, k, jd->name);
            if (!mentions)
                continue;
            char vn[RT_NAME];
            tok_str(ts, vd->name, vn, sizeof vn);
            if (check_expr(s, vd->ia, vd->ib, jd->name, false, &x)) {
                if (!why) {
                    snprintf(why_buf, size, EN(RW_IT_CANNOT_TABULATE), vn,
                             jn, x.what, x.why);
                    why = why_buf;
                }
                continue;
            }
            if (!x.costly) {
                if (!why) {
                    snprintf(why_buf, size,
                             EN(RW_IT_NOT_COSTLY),
                             vn, jn);
                    why = why_buf;
                }
                continue;
            }
            mt->jd = i;
            mt->vd = v;
            mt->mod = mod;
            mt->kend = kend;
            return NULL;
        }
    }
    if (why)
        return why;
    if (!any_index)
        return EN(RW_IT_NO_INDEX);
    return EN(RW_IT_NO_COSTLY);
}

/* Marks the uniform locals K and EXPR need, transitively. */
static void mark_needed(rt_scan *s, const rt_match *mt)
{
    rt_expr x;
    const rt_decl *jd = &s->d[mt->jd], *vd = &s->d[mt->vd];
    check_expr(s, mt->mod + 1, mt->kend, s->ts->n, true, &x);
    check_expr(s, vd->ia, vd->ib, jd->name, true, &x);
    for (size_t i = s->n; i-- > 0;)
        if (s->d[i].needed)
            check_expr(s, s->d[i].ia, s->d[i].ib, s->ts->n, true, &x);
}

static int render_prologue(rt_scan *s, const rt_match *mt, int table, struct hk_buf *b)
{
    const rw_toks *ts = s->ts;
    const rt_decl *jd = &s->d[mt->jd], *vd = &s->d[mt->vd];
    char jn[RT_NAME];
    tok_str(ts, jd->name, jn, sizeof jn);
    char *k_text = rwl_tok_text(ts, mt->mod + 1, mt->kend);
    char *expr = rwl_tok_text(ts, vd->ia, vd->ib);
    struct hk_buf ft, it;
    hk_buf_init(&ft, 256);
    hk_buf_init(&it, 256);
    int rc = HK_ENOMEM;
    if (!k_text || !expr || type_text(ts, vd, &ft) || type_text(ts, jd, &it))
        goto out;
#define R(x)                                                                                       \
    do {                                                                                           \
        if ((rc = (x)))                                                                            \
            goto out;                                                                              \
    } while (0)
    R(hk_buf_printf(b,
                    "\n    // invariant_table: a pure function of %s in [0, K) computed once per block\n" /* i18n: not for people */
                    "    constexpr int HK_TABLE = %d;\n"
                    "    __shared__ %s hk_tab[HK_TABLE];\n"
                    "    long long hk_k;\n"
                    "    bool hk_tab_on;\n"
                    "    {\n",
                    jn, table, ft.data));
    for (size_t i = 0; i < s->n; i++) {
        if (!s->d[i].needed)
            continue;
        char *d = rwl_tok_text(ts, s->d[i].a, s->d[i].b);
        if (!d) {
            rc = HK_ENOMEM;
            goto out;
        }
        rc = hk_buf_printf(b, "        %s\n", d);
        hk_free(d);
        if (rc)
            goto out;
    }
    R(hk_buf_printf(b,
                    "        hk_k = (long long)(%s);\n" /* i18n: not for people */
                    "        hk_tab_on = hk_k > 0 && hk_k <= HK_TABLE;\n"
                    "        if (hk_tab_on) {\n"
                    "            const long long hk_step = (long long)blockDim.x * blockDim.y * blockDim.z;\n"
                    "            for (long long hk_t = threadIdx.x + (long long)blockDim.x * (threadIdx.y + "
                    "(long long)blockDim.y * threadIdx.z);\n"
                    "                 hk_t < hk_k; hk_t += hk_step) {\n"
                    "                const %s %s = (%s)hk_t;\n"
                    "                hk_tab[hk_t] = %s;\n"
                    "            }\n"
                    "        }\n"
                    "    }\n"
                    "    __syncthreads();\n",
                    k_text, it.data, jn, it.data, expr));
#undef R
    rc = HK_OK;
out:
    hk_buf_free(&ft);
    hk_buf_free(&it);
    hk_free(k_text);
    hk_free(expr);
    return rc;
}

/* Does the body already use a name the rewrite declares? */
static bool has_own_names(const rw_toks *ts)
{
    static const char *const names[] = {"HK_TABLE", "hk_tab", "hk_k", "hk_tab_on", "hk_t", "hk_step"};
    for (size_t k = 0; k < ts->n; k++)
        if (tok_in(ts, k, names, HK_ARRAY_LEN(names)))
            return true;
    return false;
}

int rw_invariant_table(const char *text, size_t len, const an_model *m, size_t kernel, int table,
                       rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (table == 0)
        table = RW_TABLE_DEFAULT;
    if (table < 0 || table > RW_TABLE_MAX_BYTES / (int)sizeof(float))
        return HK_EINVAL;
    rw_toks ts = {0};
    rw_edits es = {0};
    struct hk_buf b;
    hk_buf_init(&b, RW_TEXT_MAX);
    rt_scan *s = hk_calloc(1, sizeof *s);
    const char *why = NULL;
    char why_buf[512];
    if (!s) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    if (ts.n > RT_MAX_TOKENS) {
        why = EN(RW_IT_TOO_LARGE);
        goto na;
    }
    if (ts.n < 2 || !rwl_tok_is(&ts, 0, "{")) {
        why = EN(RW_IT_NO_BODY);
        goto na;
    }
    if (has_own_names(&ts)) {
        why = EN(RW_IT_ALREADY);
        goto na;
    }
    s->ts = &ts;
    s->m = m;
    s->kernel = kernel;
    s->f = f;
    collect_decls(s);
    find_uniform(s);
    rt_match mt;
    if ((why = find_match(s, &mt, why_buf, sizeof why_buf)))
        goto na;
    const rt_decl *jd = &s->d[mt.jd], *vd = &s->d[mt.vd];
    struct hk_buf ft;
    hk_buf_init(&ft, 64);
    if ((rc = type_text(&ts, vd, &ft))) {
        hk_buf_free(&ft);
        goto out;
    }
    bool dbl = ft.data && strcmp(ft.data, "double") == 0;
    hk_buf_free(&ft);
    if (dbl && table > RW_TABLE_MAX_BYTES / (int)sizeof(double)) {
        rc = HK_EINVAL;
        goto out;
    }
    mark_needed(s, &mt);
    if ((rc = render_prologue(s, &mt, table, &b)))
        goto out;
    char jn[RT_NAME], vn[RT_NAME];
    tok_str(&ts, jd->name, jn, sizeof jn);
    tok_str(&ts, vd->name, vn, sizeof vn);
    char *k_text = rwl_tok_text(&ts, mt.mod + 1, mt.kend);
    char *expr = rwl_tok_text(&ts, vd->ia, vd->ib);
    char *repl = k_text && expr ? hk_asprintf("(hk_tab_on && (long long)(%s) >= 0 && (long long)(%s) < hk_k) " /* i18n: not for people */
                                              "? hk_tab[%s] : (%s)",
                                              jn, jn, jn, expr)
                                : NULL;
    char *desc = k_text ? hk_asprintf(EN(RW_IT_DESC),
                                      f->name, vn, jn, k_text, table, jn, k_text, k_text)
                            : NULL;
    hk_free(k_text);
    hk_free(expr);
    if (!repl || !desc) {
        hk_free(repl);
        hk_free(desc);
        rc = HK_ENOMEM;
        goto out;
    }
    uint32_t at = ts.t[0].end;   /* right after the body's `{` */
    if ((rc = rwl_edits_add_owned(&es, ts.t[vd->ia].start, ts.t[vd->ib - 1].end, repl)) ||
        (rc = rwl_edits_add(&es, at, at, b.data))) {
        hk_free(desc);
        goto out;
    }
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    goto out;
na:
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "invariant_table", f->name, why));
out:
    rwl_edits_free(&es);
    hk_buf_free(&b);
    rwl_toks_free(&ts);
    hk_free(s);
    return rc;
}

/* ---- registry descriptors (registry.h) ---- */
static const rw_param invariant_table_params[] = {
    {.name = "table", .type = RW_PARAM_INT, .min = 0, .max = 65536, .def = 0},
    {.name = "vector_width", .type = RW_PARAM_ENUM, .values = {0, 2, 4, 8}, .n_values = 4, .def = 0, .optional = true},
};

static int emit_invariant_table(const rw_context *c, const int *p, rw_result *out)
{
    return rw_invariant_table(c->text, c->len, c->m, c->kernel, p[0], out);
}

const rw_descriptor rw_invariant_table_desc = {
    .name = "invariant_table",
    .summary = "a costly pure function of a small uniform index tabled per block (vector_width: rw_vectorize after it on the grid-stride path)", /* i18n: not for people */
    .params = invariant_table_params,
    .n_params = HK_ARRAY_LEN(invariant_table_params),
    .flags = RW_ALGORITHM | RW_KEEPS_THREAD_INDEXING,
    .emit = emit_invariant_table,
};

