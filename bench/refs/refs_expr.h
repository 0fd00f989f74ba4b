/* Evaluator of bench-spec expressions (docs/bench-spec.md, "Expressions") for hk_refs, which
 * is built with nvcc alone on the GPU machine and so cannot link the engine's expr module.
 * Same language and semantics as server/spec/expr.c: 64-bit integers with C division,
 * a decimal literal makes its operation double, min/max/ceil_div, overflow and division by
 * zero are errors. Header-only, valid C11 and C++ (test_engine_refs checks it against
 * expr_eval on every suite spec). Pure functions, any thread. */
#ifndef HK_REFS_EXPR_H
#define HK_REFS_EXPR_H

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REFS_EXPR_MAX_TEXT 4096 /* as EXPR_MAX_TEXT */
#define REFS_EXPR_MAX_DEPTH 64  /* as EXPR_MAX_DEPTH */

typedef struct {
    int is_float;
    long long i; /* when !is_float */
    double f;    /* when is_float */
} refs_val;

typedef struct {
    const char *s;
    size_t pos;
    const char *const *names; /* borrowed: the variables */
    const long long *vals;
    size_t n_vars;
    int depth;
    char *err;                /* first error only */
    size_t errlen;
    int failed;
} refs_parser;

static void refs__fail(refs_parser *p, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = 1;
    if (p->err && p->errlen) {
        int w = snprintf(p->err, p->errlen, "column %d: ", (int)p->pos + 1);
        if (w >= 0 && (size_t)w < p->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(p->err + w, p->errlen - (size_t)w, fmt, ap);
            va_end(ap);
        }
    }
}

static void refs__ws(refs_parser *p)
{
    while (p->s[p->pos] && isspace((unsigned char)p->s[p->pos]))
        p->pos++;
}

static double refs__dbl(refs_val v) { return v.is_float ? v.f : (double)v.i; }

/* a OP b with the engine's rules; op is one of + - * / % c(eil_div) m(in) M(ax). */
static refs_val refs__apply(refs_parser *p, char op, refs_val a, refs_val b)
{
    refs_val r = { 0, 0, 0.0 };
    if (p->failed)
        return r;
    if (a.is_float || b.is_float) {
        if (op == '%' || op == 'c') {
            refs__fail(p, "%s needs integers", op == '%' ? "%" : "ceil_div");
            return r;
        }
        double x = refs__dbl(a), y = refs__dbl(b), z = 0;
        switch (op) {
        case '+': z = x + y; break;
        case '-': z = x - y; break;
        case '*': z = x * y; break;
        case '/':
            if (y == 0) {
                refs__fail(p, "division by zero");
                return r;
            }
            z = x / y;
            break;
        case 'm': z = fmin(x, y); break;
        default: z = fmax(x, y); break;
        }
        if (!isfinite(z)) {
            refs__fail(p, "result is not finite");
            return r;
        }
        r.is_float = 1;
        r.f = z;
        return r;
    }
    long long x = a.i, y = b.i, z = 0;
    int ovf = 0;
    switch (op) {
    case '+': ovf = __builtin_add_overflow(x, y, &z); break;
    case '-': ovf = __builtin_sub_overflow(x, y, &z); break;
    case '*': ovf = __builtin_mul_overflow(x, y, &z); break;
    case '/':
    case '%':
    case 'c':
        if (y == 0) {
            refs__fail(p, "division by zero");
            return r;
        }
        if (x == LLONG_MIN && y == -1) {
            ovf = 1;
            break;
        }
        z = op == '/' ? x / y : op == '%' ? x % y : x / y + ((x % y != 0) && ((x < 0) == (y < 0)));
        break;
    case 'm': z = x < y ? x : y; break;
    default: z = x > y ? x : y; break;
    }
    if (ovf) {
        refs__fail(p, "integer overflow");
        return r;
    }
    r.i = z;
    return r;
}

static refs_val refs__sum(refs_parser *p);

static refs_val refs__primary(refs_parser *p)
{
    refs_val r = { 0, 0, 0.0 };
    refs__ws(p);
    if (p->failed)
        return r;
    if (++p->depth > REFS_EXPR_MAX_DEPTH) {
        refs__fail(p, "nested deeper than %d", REFS_EXPR_MAX_DEPTH);
        return r;
    }
    const char *c = p->s + p->pos;
    if (*c == '-') { /* unary minus */
        p->pos++;
        refs_val v = refs__primary(p);
        refs_val zero = { 0, 0, 0.0 };
        r = refs__apply(p, '-', zero, v);
    } else if (*c == '(') {
        p->pos++;
        r = refs__sum(p);
        refs__ws(p);
        if (p->s[p->pos] != ')')
            refs__fail(p, "expected ')'");
        else
            p->pos++;
    } else if (isdigit((unsigned char)*c) || (*c == '.' && isdigit((unsigned char)c[1]))) {
        size_t n = 0;
        int is_float = 0;
        while (isdigit((unsigned char)c[n]))
            n++;
        if (c[n] == '.') {
            is_float = 1;
            n++;
            while (isdigit((unsigned char)c[n]))
                n++;
        }
        if (c[n] == 'e' || c[n] == 'E') {
            size_t m = n + 1;
            if (c[m] == '+' || c[m] == '-')
                m++;
            if (isdigit((unsigned char)c[m])) {
                is_float = 1;
                while (isdigit((unsigned char)c[m]))
                    m++;
                n = m;
            }
        }
        char num[64];
        if (n >= sizeof num) {
            refs__fail(p, "number too long");
            return r;
        }
        memcpy(num, c, n);
        num[n] = '\0';
        if (is_float) {
            r.is_float = 1;
            r.f = strtod(num, NULL);
        } else {
            char *end;
            errno = 0;
            r.i = strtoll(num, &end, 10);
            if (errno == ERANGE) {
                refs__fail(p, "integer literal out of range");
                return r;
            }
        }
        p->pos += n;
    } else if (isalpha((unsigned char)*c) || *c == '_') {
        size_t n = 0;
        while (isalnum((unsigned char)c[n]) || c[n] == '_')
            n++;
        p->pos += n;
        char op = 0;
        if (n == 3 && !strncmp(c, "min", 3))
            op = 'm';
        else if (n == 3 && !strncmp(c, "max", 3))
            op = 'M';
        else if (n == 8 && !strncmp(c, "ceil_div", 8))
            op = 'c';
        refs__ws(p);
        if (op && p->s[p->pos] == '(') {
            p->pos++;
            refs_val a = refs__sum(p);
            refs__ws(p);
            if (p->s[p->pos] != ',') {
                refs__fail(p, "expected ',' in %.*s()", (int)n, c);
                return r;
            }
            p->pos++;
            refs_val b = refs__sum(p);
            refs__ws(p);
            if (p->s[p->pos] != ')') {
                refs__fail(p, "expected ')' after the arguments of %.*s", (int)n, c);
                return r;
            }
            p->pos++;
            r = refs__apply(p, op, a, b);
        } else {
            size_t i;
            for (i = 0; i < p->n_vars; i++)
                if (strlen(p->names[i]) == n && !strncmp(p->names[i], c, n))
                    break;
            if (i == p->n_vars)
                refs__fail(p, "unknown variable '%.*s'", (int)n, c);
            else
                r.i = p->vals[i];
        }
    } else {
        refs__fail(p, *c ? "unexpected '%c'" : "unexpected end of expression", *c);
    }
    p->depth--;
    return r;
}

static refs_val refs__product(refs_parser *p)
{
    refs_val a = refs__primary(p);
    for (;;) {
        refs__ws(p);
        char op = p->s[p->pos];
        if (p->failed || (op != '*' && op != '/' && op != '%'))
            return a;
        p->pos++;
        refs_val b = refs__primary(p);
        a = refs__apply(p, op, a, b);
    }
}

static refs_val refs__sum(refs_parser *p)
{
    refs_val a = refs__product(p);
    for (;;) {
        refs__ws(p);
        char op = p->s[p->pos];
        if (p->failed || (op != '+' && op != '-'))
            return a;
        p->pos++;
        refs_val b = refs__product(p);
        a = refs__apply(p, op, a, b);
    }
}

/* Evaluates text with n_vars variables (names[i] = vals[i], both borrowed). On success
 * returns 0 and sets *out (double) and, when is_float is not NULL, *is_float (whether
 * the result is a double, as the engine's expr_value.is_float). On a syntax or
 * evaluation error returns -1 with a one-line reason in err (errlen bytes; err may be
 * NULL). Never reads past the text's terminating NUL. */
static int refs_expr_eval(const char *text, const char *const *names, const long long *vals,
                          size_t n_vars, double *out, int *is_float, char *err, size_t errlen)
{
    refs_parser p;
    memset(&p, 0, sizeof p);
    p.s = text ? text : "";
    p.names = names;
    p.vals = vals;
    p.n_vars = n_vars;
    p.err = err;
    p.errlen = errlen;
    if (err && errlen)
        err[0] = '\0';
    if (strlen(p.s) > REFS_EXPR_MAX_TEXT) {
        refs__fail(&p, "expression longer than %d characters", REFS_EXPR_MAX_TEXT);
        return -1;
    }
    refs_val v = refs__sum(&p);
    refs__ws(&p);
    if (!p.failed && p.s[p.pos])
        refs__fail(&p, "unexpected '%c' after the expression", p.s[p.pos]);
    if (p.failed)
        return -1;
    *out = refs__dbl(v);
    if (is_float)
        *is_float = v.is_float;
    return 0;
}

#endif
