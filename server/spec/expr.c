/* The bench-spec expression language: a recursive-descent parser into a small
 * tree, an evaluator with overflow and division checks, and a C emitter whose
 * semantics match the evaluator (so validation sees what the harness computes). */
#include "spec/expr.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hk.h"
#include "core/i18n.h"

enum node_kind { N_INT, N_FLOAT, N_VAR, N_NEG, N_ADD, N_SUB, N_MUL, N_DIV, N_MOD, N_MIN, N_MAX, N_CEIL_DIV };

typedef struct node {
    enum node_kind kind;
    long long i;
    double f;
    char *name;          /* N_VAR */
    struct node *a, *b;  /* operands (b NULL for N_NEG) */
    int col;             /* 1-based column, for error messages */
} node;

struct expr {
    node *root;
    char *text;
};

typedef struct {
    const char *s;
    size_t pos;
    int depth;
    int rc;
    char *err;
    size_t errlen;
} parser;

/* err gets the message id (an HK_MSG_EXPR_* or HK_MSG_SPEC_* row) in the current
 * language (docs/i18n.md), whole UTF-8 characters when it is cut. */
static void set_err(char *err, size_t errlen, enum hk_msg id, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, id);
    hk_vtr_into(err, errlen, id, ap);
    va_end(ap);
}

static void node_free(node *n)
{
    if (!n)
        return;
    node_free(n->a);
    node_free(n->b);
    hk_free(n->name);
    hk_free(n);
}

static node *node_new(parser *p, enum node_kind kind, int col)
{
    node *n = hk_calloc(1, sizeof *n);
    if (!n && p->rc == HK_OK)
        p->rc = HK_ENOMEM;
    if (n) {
        n->kind = kind;
        n->col = col;
    }
    return n;
}

static void skip_ws(parser *p)
{
    while (p->s[p->pos] && isspace((unsigned char)p->s[p->pos]))
        p->pos++;
}

static void fail(parser *p, const char *what)
{
    if (p->rc != HK_OK)
        return;
    p->rc = HK_EPARSE;
    if (p->s[p->pos])
        set_err(p->err, p->errlen, HK_MSG_EXPR_AT, p->pos + 1, what, p->s + p->pos);
    else
        set_err(p->err, p->errlen, HK_MSG_EXPR_AT_END, p->pos + 1, what);
}

static node *parse_sum(parser *p);

static node *parse_call(parser *p, enum node_kind kind, int col, const char *fname)
{
    skip_ws(p);
    if (p->s[p->pos] != '(') {
        fail(p, hk_tr(HK_MSG_EXPR_EXPECTED_PAREN_AFTER_FN));
        return NULL;
    }
    p->pos++;
    node *n = node_new(p, kind, col);
    if (!n)
        return NULL;
    n->a = parse_sum(p);
    skip_ws(p);
    if (p->rc == HK_OK && p->s[p->pos] != ',') {
        char msg[160];
        snprintf(msg, sizeof msg, hk_tr(HK_MSG_EXPR_TWO_ARGS_COMMA), fname);
        hk_utf8_trim(msg);
        fail(p, msg);
    }
    if (p->rc == HK_OK) {
        p->pos++;
        n->b = parse_sum(p);
        skip_ws(p);
        if (p->rc == HK_OK && p->s[p->pos] != ')') {
            char msg[160];
            snprintf(msg, sizeof msg, hk_tr(HK_MSG_EXPR_TWO_ARGS_PAREN), fname);
            hk_utf8_trim(msg);
            fail(p, msg);
        }
        if (p->rc == HK_OK)
            p->pos++;
    }
    if (p->rc != HK_OK) {
        node_free(n);
        return NULL;
    }
    return n;
}

static node *parse_primary(parser *p)
{
    skip_ws(p);
    if (++p->depth > EXPR_MAX_DEPTH) {
        if (p->rc == HK_OK) {
            p->rc = HK_ETOOBIG;
            set_err(p->err, p->errlen, HK_MSG_EXPR_TOO_DEEP, EXPR_MAX_DEPTH);
        }
        return NULL;
    }
    node *n = NULL;
    char c = p->s[p->pos];
    int col = (int)p->pos + 1;
    if (c == '(') {
        p->pos++;
        n = parse_sum(p);
        skip_ws(p);
        if (p->rc == HK_OK && p->s[p->pos] != ')')
            fail(p, hk_tr(HK_MSG_EXPR_EXPECTED_CLOSE));
        if (p->rc != HK_OK) {
            node_free(n);
            n = NULL;
        } else {
            p->pos++;
        }
    } else if (c == '-' || c == '+') {
        p->pos++;
        node *a = parse_primary(p);
        if (a && c == '-') {
            n = node_new(p, N_NEG, col);
            if (n)
                n->a = a;
            else
                node_free(a);
        } else {
            n = a;
        }
    } else if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)p->s[p->pos + 1]))) {
        const char *start = p->s + p->pos;
        size_t len = 0;
        bool is_float = false;
        while (isalnum((unsigned char)start[len]) || start[len] == '.' ||
               ((start[len] == '+' || start[len] == '-') && len > 0 &&
                (start[len - 1] == 'e' || start[len - 1] == 'E'))) {
            if (start[len] == '.' || start[len] == 'e' || start[len] == 'E')
                is_float = true;
            len++;
        }
        char buf[64];
        if (len >= sizeof buf) {
            fail(p, hk_tr(HK_MSG_EXPR_NUMBER_TOO_LONG));
            return NULL;
        }
        memcpy(buf, start, len);
        buf[len] = '\0';
        char *end = NULL;
        errno = 0;
        n = node_new(p, is_float ? N_FLOAT : N_INT, col);
        if (!n)
            return NULL;
        if (is_float)
            n->f = strtod(buf, &end);
        else
            n->i = strtoll(buf, &end, 10);
        if (*end != '\0' || errno == ERANGE || (is_float && !isfinite(n->f))) {
            node_free(n);
            fail(p, hk_tr(HK_MSG_EXPR_BAD_NUMBER));
            return NULL;
        }
        p->pos += len;
    } else if (isalpha((unsigned char)c) || c == '_') {
        size_t len = 0;
        const char *start = p->s + p->pos;
        while (isalnum((unsigned char)start[len]) || start[len] == '_')
            len++;
        p->pos += len;
        skip_ws(p);
        if (len == 3 && strncmp(start, "min", 3) == 0) {
            n = parse_call(p, N_MIN, col, "min");
        } else if (len == 3 && strncmp(start, "max", 3) == 0) {
            n = parse_call(p, N_MAX, col, "max");
        } else if (len == 8 && strncmp(start, "ceil_div", 8) == 0) {
            n = parse_call(p, N_CEIL_DIV, col, "ceil_div");
        } else if (p->s[p->pos] == '(') {
            fail(p, hk_tr(HK_MSG_EXPR_UNKNOWN_FN));
        } else if ((n = node_new(p, N_VAR, col)) != NULL) {
            n->name = hk_strndup(start, len);
            if (!n->name) {
                node_free(n);
                n = NULL;
                if (p->rc == HK_OK)
                    p->rc = HK_ENOMEM;
            }
        }
    } else {
        fail(p, hk_tr(c ? HK_MSG_EXPR_EXPECTED_OPERAND : HK_MSG_EXPR_EXPECTED_VALUE));
    }
    p->depth--;
    return n;
}

static node *parse_binary_rest(parser *p, node *left, bool sum_level)
{
    for (;;) {
        skip_ws(p);
        char c = p->s[p->pos];
        enum node_kind k;
        if (sum_level && c == '+')
            k = N_ADD;
        else if (sum_level && c == '-')
            k = N_SUB;
        else if (!sum_level && c == '*')
            k = N_MUL;
        else if (!sum_level && c == '/')
            k = N_DIV;
        else if (!sum_level && c == '%')
            k = N_MOD;
        else
            return left;
        int col = (int)p->pos + 1;
        p->pos++;
        node *right = NULL;
        if (sum_level) {
            right = parse_primary(p);
            right = right ? parse_binary_rest(p, right, false) : NULL;
        } else {
            right = parse_primary(p);
        }
        if (!right) {
            node_free(left);
            return NULL;
        }
        node *n = node_new(p, k, col);
        if (!n) {
            node_free(left);
            node_free(right);
            return NULL;
        }
        n->a = left;
        n->b = right;
        left = n;
    }
}

static node *parse_sum(parser *p)
{
    node *first = parse_primary(p);
    if (!first)
        return NULL;
    first = parse_binary_rest(p, first, false);
    if (!first)
        return NULL;
    return parse_binary_rest(p, first, true);
}

int expr_parse(const char *text, expr **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!text) {
        set_err(err, errlen, HK_MSG_EXPR_EMPTY);
        return HK_EINVAL;
    }
    if (strlen(text) > EXPR_MAX_TEXT) {
        set_err(err, errlen, HK_MSG_EXPR_TOO_LONG, EXPR_MAX_TEXT);
        return HK_ETOOBIG;
    }
    parser p = { .s = text, .rc = HK_OK, .err = err, .errlen = errlen };
    node *root = parse_sum(&p);
    if (p.rc == HK_OK) {
        skip_ws(&p);
        if (p.s[p.pos] != '\0')
            fail(&p, hk_tr(HK_MSG_EXPRX_TRAILING_TEXT));
    }
    if (p.rc != HK_OK) {
        node_free(root);
        if (p.rc == HK_ENOMEM)
            set_err(err, errlen, HK_MSG_SPEC_OUT_OF_MEMORY);
        return p.rc;
    }
    expr *e = hk_calloc(1, sizeof *e);
    char *t = hk_strdup(text);
    if (!e || !t) {
        hk_free(e);
        hk_free(t);
        node_free(root);
        set_err(err, errlen, HK_MSG_SPEC_OUT_OF_MEMORY);
        return HK_ENOMEM;
    }
    e->root = root;
    e->text = t;
    *out = e;
    return HK_OK;
}

int expr_from_number(double f, long long i, bool is_float, expr **out)
{
    char buf[64];
    if (is_float) {
        snprintf(buf, sizeof buf, "%.17g", f);
        if (!strpbrk(buf, ".eEni")) /* keep it a float literal: 2 -> 2.0 */
            strcat(buf, ".0");
    } else {
        snprintf(buf, sizeof buf, "%lld", i);
    }
    if (is_float && !isfinite(f))
        return HK_EINVAL;
    return expr_parse(buf, out, NULL, 0);
}

void expr_free(expr *e)
{
    if (!e)
        return;
    node_free(e->root);
    hk_free(e->text);
    hk_free(e);
}

const char *expr_text(const expr *e) { return e->text; }

double expr_value_double(expr_value v) { return v.is_float ? v.f : (double)v.i; }

static int eval_node(const node *n, const expr_var *vars, size_t n_vars, expr_value *out,
                     char *err, size_t errlen)
{
    expr_value a = { 0 }, b = { 0 };
    int rc;
    switch (n->kind) {
    case N_INT:
        *out = (expr_value){ .is_float = false, .i = n->i };
        return HK_OK;
    case N_FLOAT:
        *out = (expr_value){ .is_float = true, .f = n->f };
        return HK_OK;
    case N_VAR:
        for (size_t k = 0; k < n_vars; k++) {
            if (strcmp(vars[k].name, n->name) == 0) {
                *out = vars[k].value;
                return HK_OK;
            }
        }
        set_err(err, errlen, HK_MSG_EXPR_UNKNOWN_VAR, n->name, n->col);
        return HK_EINVAL;
    default:
        break;
    }
    if ((rc = eval_node(n->a, vars, n_vars, &a, err, errlen)) != HK_OK)
        return rc;
    if (n->kind == N_NEG) {
        if (a.is_float) {
            *out = (expr_value){ .is_float = true, .f = -a.f };
        } else {
            if (a.i == LLONG_MIN) {
                set_err(err, errlen, HK_MSG_EXPR_OVERFLOW, n->col);
                return HK_EINVAL;
            }
            *out = (expr_value){ .is_float = false, .i = -a.i };
        }
        return HK_OK;
    }
    if ((rc = eval_node(n->b, vars, n_vars, &b, err, errlen)) != HK_OK)
        return rc;
    bool fl = a.is_float || b.is_float;
    if ((n->kind == N_MOD || n->kind == N_CEIL_DIV) && fl) {
        set_err(err, errlen, HK_MSG_EXPR_INT_OPERANDS,
                n->kind == N_MOD ? "%" : "ceil_div", n->col);
        return HK_EINVAL;
    }
    if (fl) {
        double x = expr_value_double(a), y = expr_value_double(b), r = 0;
        switch (n->kind) {
        case N_ADD: r = x + y; break;
        case N_SUB: r = x - y; break;
        case N_MUL: r = x * y; break;
        case N_DIV:
            if (y == 0) {
                set_err(err, errlen, HK_MSG_EXPR_DIV_ZERO, n->col);
                return HK_EINVAL;
            }
            r = x / y;
            break;
        case N_MIN: r = fmin(x, y); break;
        case N_MAX: r = fmax(x, y); break;
        default: break;
        }
        if (!isfinite(r)) {
            set_err(err, errlen, HK_MSG_EXPR_NOT_FINITE, n->col);
            return HK_EINVAL;
        }
        *out = (expr_value){ .is_float = true, .f = r };
        return HK_OK;
    }
    long long x = a.i, y = b.i, r = 0;
    bool ovf = false;
    switch (n->kind) {
    case N_ADD: ovf = __builtin_add_overflow(x, y, &r); break;
    case N_SUB: ovf = __builtin_sub_overflow(x, y, &r); break;
    case N_MUL: ovf = __builtin_mul_overflow(x, y, &r); break;
    case N_DIV:
    case N_MOD:
    case N_CEIL_DIV:
        if (y == 0) {
            set_err(err, errlen, HK_MSG_EXPR_DIV_ZERO, n->col);
            return HK_EINVAL;
        }
        if (x == LLONG_MIN && y == -1) {
            ovf = true;
            break;
        }
        if (n->kind == N_DIV)
            r = x / y;
        else if (n->kind == N_MOD)
            r = x % y;
        else /* same formula as hk_ceil_div in hk_harness.h */
            r = x / y + ((x % y != 0) && ((x < 0) == (y < 0)));
        break;
    case N_MIN: r = x < y ? x : y; break;
    case N_MAX: r = x > y ? x : y; break;
    default: break;
    }
    if (ovf) {
        set_err(err, errlen, HK_MSG_EXPR_OVERFLOW, n->col);
        return HK_EINVAL;
    }
    *out = (expr_value){ .is_float = false, .i = r };
    return HK_OK;
}

int expr_eval(const expr *e, const expr_var *vars, size_t n_vars, expr_value *out, char *err,
              size_t errlen)
{
    return eval_node(e->root, vars, n_vars, out, err, errlen);
}

static int foreach_node(const node *n, int (*fn)(const char *, void *), void *ctx)
{
    if (!n)
        return 0;
    if (n->kind == N_VAR)
        return fn(n->name, ctx);
    int r = foreach_node(n->a, fn, ctx);
    return r ? r : foreach_node(n->b, fn, ctx);
}

int expr_foreach_var(const expr *e, int (*fn)(const char *name, void *ctx), void *ctx)
{
    return foreach_node(e->root, fn, ctx);
}

static int uses_cb(const char *name, void *ctx) { return strcmp(name, (const char *)ctx) == 0; }

bool expr_uses(const expr *e, const char *name) { return expr_foreach_var(e, uses_cb, (void *)name) != 0; }

static bool node_is_float(const node *n)
{
    switch (n->kind) {
    case N_INT:
    case N_VAR:
    case N_MOD:
    case N_CEIL_DIV:
        return false;
    case N_FLOAT:
        return true;
    case N_NEG:
        return node_is_float(n->a);
    default:
        return node_is_float(n->a) || node_is_float(n->b);
    }
}

bool expr_is_float(const expr *e) { return node_is_float(e->root); }

static int emit_node(const node *n, const char *prefix, bool want_float, struct hk_buf *out)
{
    int rc = HK_OK;
    bool fl = node_is_float(n);
    /* C promotes int to double in mixed arithmetic already; the explicit cast keeps
     * the emitted text readable and pins min/max to the right overload. */
    bool cast = want_float && !fl;
    if (cast && (rc = hk_buf_appends(out, "(double)")) != HK_OK)
        return rc;
    switch (n->kind) {
    case N_INT:
        return hk_buf_printf(out, "%lldLL", n->i);
    case N_FLOAT: {
        char buf[64];
        snprintf(buf, sizeof buf, "%.17g", n->f);
        if (!strpbrk(buf, ".eE"))
            strcat(buf, ".0");
        return hk_buf_appends(out, buf);
    }
    case N_VAR:
        return hk_buf_printf(out, "%s%s", prefix, n->name);
    case N_NEG:
        if ((rc = hk_buf_appends(out, "(-")) != HK_OK ||
            (rc = emit_node(n->a, prefix, fl, out)) != HK_OK)
            return rc;
        return hk_buf_appends(out, ")");
    case N_MIN:
    case N_MAX:
    case N_CEIL_DIV: {
        const char *fn = n->kind == N_CEIL_DIV ? "hk_ceil_div"
                         : n->kind == N_MIN   ? (fl ? "fmin" : "hk_min")
                                              : (fl ? "fmax" : "hk_max");
        if ((rc = hk_buf_printf(out, "%s(", fn)) != HK_OK ||
            (rc = emit_node(n->a, prefix, fl, out)) != HK_OK ||
            (rc = hk_buf_appends(out, ", ")) != HK_OK ||
            (rc = emit_node(n->b, prefix, fl, out)) != HK_OK)
            return rc;
        return hk_buf_appends(out, ")");
    }
    default: {
        const char *op = n->kind == N_ADD ? " + " : n->kind == N_SUB ? " - "
                         : n->kind == N_MUL ? " * " : n->kind == N_DIV ? " / " : " % ";
        if ((rc = hk_buf_appends(out, "(")) != HK_OK ||
            (rc = emit_node(n->a, prefix, fl, out)) != HK_OK ||
            (rc = hk_buf_appends(out, op)) != HK_OK ||
            (rc = emit_node(n->b, prefix, fl, out)) != HK_OK)
            return rc;
        return hk_buf_appends(out, ")");
    }
    }
}

int expr_emit_c(const expr *e, const char *var_prefix, struct hk_buf *out)
{
    return emit_node(e->root, var_prefix ? var_prefix : "", false, out);
}
