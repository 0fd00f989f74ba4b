/* float_literals: an unsuffixed floating literal (`2.0`, `1.`, `0.5`) that is an operand of
 * float arithmetic stored to a float promotes the whole expression to FP64 (C's usual
 * conversions); written `2.0f` the expression stays in FP32. Within tolerance, not exact. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* Why: Rodinia's hotspot updates a float temperature with `... - 2.0*temp_on_cuda[ty][tx]`:
 * the literal is a double, so every operand of the update is converted to FP64 (PTX: 8
 * cvt.f64.f32, 7 FP64 add/fma and a cvt back per point and step). F2F conversions run at 16
 * per clock per SM on sm_90 (against 128 FP32 operations): about 190 clocks of a 16x16
 * block's time, a large share of a kernel that ran at 19-22% of its roofline on the H200.
 * Written as a float literal, the statement computes in FP32.
 *
 * What changes, and why it is kept only within tolerance: the statement's value is stored
 * to a float either way; every named operand is a float or an integer, so the only double
 * values are the literal and the intermediates it promotes. In FP32 each intermediate
 * rounds to float instead of double: the stored result differs by a few float ulps of the
 * intermediates (more under cancellation), and a literal that is not a float (0.1) moves
 * by at most half a float ulp. Literals that are exact floats (2.0, 0.5, 80.0) keep their
 * value. Comparisons are not touched (`x < 0.1` and `x < 0.1f` differ for x between them),
 * nor literals in statements that store to a double or an integer (a truncation could
 * move), nor any with an operand of a double, unknown, member or pointer type, a cast to
 * double or a call other than float math. The engine keeps the result only when the
 * kernel's oracle accepts it, as for fast_math. */

#define FL_NAMES 512
#define FL_EDITS 256

enum fl_type { FL_UNKNOWN, FL_INT, FL_FLOAT, FL_DOUBLE };

typedef struct {
    const char *s;
    size_t n;
    enum fl_type t;     /* of the value (scalars) or of an element (arrays, pointers) */
    bool indexed;       /* an array or pointer: only `name[...]` is of type t */
} fl_name;

typedef struct {
    const rw_toks *ts;
    const an_function *f;
    fl_name names[FL_NAMES];
    size_t n_names;
} fl_scan;

static enum fl_type base_type(const rw_toks *ts, size_t k)
{
    static const char *const ints[] = {"int", "unsigned", "signed", "long", "short", "char", "bool", "size_t",
                                       "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
                                       "uint32_t", "uint64_t", "uint", "ptrdiff_t"};
    if (rwl_tok_is(ts, k, "float"))
        return FL_FLOAT;
    if (rwl_tok_is(ts, k, "double"))
        return FL_DOUBLE;
    for (size_t i = 0; i < HK_ARRAY_LEN(ints); i++)
        if (rwl_tok_is(ts, k, ints[i]))
            return FL_INT;
    return FL_UNKNOWN;
}

static enum fl_type type_of_text(const char *t)
{
    if (!t)
        return FL_UNKNOWN;
    if (!strcmp(t, "float"))
        return FL_FLOAT;
    if (!strcmp(t, "double"))
        return FL_DOUBLE;
    static const char *const ints[] = {"int", "unsigned", "unsigned int", "long", "long long", "short", "char",
                                       "bool", "size_t", "int32_t", "int64_t", "uint32_t", "uint64_t",
                                       "unsigned long", "unsigned long long", "unsigned char", "uint"}; /* i18n: not for people */
    for (size_t i = 0; i < HK_ARRAY_LEN(ints); i++)
        if (!strcmp(t, ints[i]))
            return FL_INT;
    return FL_UNKNOWN;
}

static void add_name(fl_scan *s, size_t k, enum fl_type t, bool indexed)
{
    const char *p = s->ts->text + s->ts->t[k].start;
    size_t n = s->ts->t[k].end - s->ts->t[k].start;
    for (size_t i = 0; i < s->n_names; i++)
        if (s->names[i].n == n && !memcmp(s->names[i].s, p, n)) {
            if (s->names[i].t != t || s->names[i].indexed != indexed)
                s->names[i].t = FL_UNKNOWN;   /* two declarations disagree */
            return;
        }
    if (s->n_names < FL_NAMES)
        s->names[s->n_names++] = (fl_name){p, n, t, indexed};
}

static const fl_name *find_name(const fl_scan *s, size_t k)
{
    const char *p = s->ts->text + s->ts->t[k].start;
    size_t n = s->ts->t[k].end - s->ts->t[k].start;
    for (size_t i = 0; i < s->n_names; i++)
        if (s->names[i].n == n && !memcmp(s->names[i].s, p, n))
            return &s->names[i];
    return NULL;
}

/* The declarations of the body: `[qualifiers] TYPE [*]name [dims] [= init], ...;` (and in
 * for headers). Their names with their types. */
static void collect(fl_scan *s)
{
    const rw_toks *ts = s->ts;
    for (size_t k = 1; k < ts->n; k++) {
        enum fl_type bt = base_type(ts, k);
        if (bt == FL_UNKNOWN)
            continue;
        /* a declaration starts here: after `;`, `{`, `}`, `(` of a for, or qualifiers */
        size_t q = k;
        while (q > 0 && (rwl_tok_is(ts, q - 1, "const") || rwl_tok_is(ts, q - 1, "__shared__") ||
                         rwl_tok_is(ts, q - 1, "static") || rwl_tok_is(ts, q - 1, "volatile") ||
                         rwl_tok_is(ts, q - 1, "register") || rwl_tok_is(ts, q - 1, "unsigned") ||
                         rwl_tok_is(ts, q - 1, "signed") || rwl_tok_is(ts, q - 1, "long")))
            q--;
        if (q > 0 && !rwl_tok_is(ts, q - 1, ";") && !rwl_tok_is(ts, q - 1, "{") && !rwl_tok_is(ts, q - 1, "}") &&
            !rwl_tok_is(ts, q - 1, "("))
            continue;
        size_t p = k + 1;
        while (p < ts->n && base_type(ts, p) != FL_UNKNOWN)
            p++;   /* unsigned long long */
        /* declarators */
        for (;;) {
            bool ptr = false;
            while (p < ts->n && (rwl_tok_is(ts, p, "*") || rwl_tok_is(ts, p, "__restrict__") || rwl_tok_is(ts, p, "const")))
                ptr |= rwl_tok_is(ts, p, "*"), p++;
            if (p >= ts->n || ts->t[p].kind != T_IDENT)
                break;
            size_t name = p++;
            bool arr = false;
            while (p < ts->n && rwl_tok_is(ts, p, "[")) {
                arr = true;
                p = rwl_match_close(ts, p) + 1;
            }
            if (p < ts->n && rwl_tok_is(ts, p, "("))
                break;   /* a function declaration or a constructor call: not followed */
            add_name(s, name, bt, ptr || arr);
            if (p < ts->n && rwl_tok_is(ts, p, "=")) {
                int depth = 0;
                for (p++; p < ts->n; p++) {
                    if (rwl_tok_is(ts, p, "(") || rwl_tok_is(ts, p, "[") || rwl_tok_is(ts, p, "{"))
                        depth++;
                    else if (rwl_tok_is(ts, p, ")") || rwl_tok_is(ts, p, "]") || rwl_tok_is(ts, p, "}")) {
                        if (!depth)
                            break;
                        depth--;
                    } else if (!depth && (rwl_tok_is(ts, p, ",") || rwl_tok_is(ts, p, ";")))
                        break;
                }
            }
            if (p < ts->n && rwl_tok_is(ts, p, ",")) {
                p++;
                continue;
            }
            break;
        }
    }
}

static enum fl_type name_type(const fl_scan *s, size_t k, bool subscripted)
{
    const fl_name *n = find_name(s, k);
    if (n)
        return n->indexed == subscripted ? n->t : FL_UNKNOWN;
    const an_param *p = rwp_param_named(s->f, s->ts, k);
    if (!p)
        return FL_UNKNOWN;
    if ((p->pointer_depth == 1) != subscripted || p->pointer_depth > 1)
        return FL_UNKNOWN;
    return type_of_text(p->elem_type);
}

static bool float_call(const rw_toks *ts, size_t k)
{
    static const char *const ok[] = {"sqrtf", "rsqrtf", "expf", "__expf", "exp2f", "logf", "__logf", "log2f",
                                     "fabsf", "fminf", "fmaxf", "fmaf", "__fmaf_rn", "__fdividef", "sinf",
                                     "cosf", "__sinf", "__cosf", "tanhf", "powf", "__powf", "floorf", "ceilf",
                                     "erff", "__fmul_rn", "__fadd_rn", "__int2float_rn", "__ldg"};
    for (size_t i = 0; i < HK_ARRAY_LEN(ok); i++)
        if (rwl_tok_is(ts, k, ok[i]))
            return true;
    return false;
}

/* An unsuffixed floating literal whose float is finite and normal (or zero)? */
static bool double_literal(const rw_toks *ts, size_t k)
{
    if (ts->t[k].kind != T_NUMBER)
        return false;
    const char *c = ts->text + ts->t[k].start;
    size_t l = ts->t[k].end - ts->t[k].start;
    if (l >= 2 && c[0] == '0' && (c[1] == 'x' || c[1] == 'X'))
        return false;
    bool fl = false;
    for (size_t i = 0; i < l; i++) {
        if (c[i] == '.' || c[i] == 'e' || c[i] == 'E')
            fl = true;
        if (c[i] == 'f' || c[i] == 'F' || c[i] == 'l' || c[i] == 'L')
            return false;
    }
    if (!fl)
        return false;
    char buf[64];
    if (l >= sizeof buf)
        return false;
    memcpy(buf, c, l);
    buf[l] = '\0';
    double v = strtod(buf, NULL);
    float f = (float)v;
    return isfinite(f) && (v == 0.0 || fabsf(f) >= FLT_MIN);
}

static bool arith(const rw_toks *ts, size_t k)
{
    static const char *const ops[] = {"+", "-", "*", "/", "(", ")", "=", "+=", "-=", "*=", "/=", ",", ";", "?", ":"};
    for (size_t i = 0; i < HK_ARRAY_LEN(ops); i++)
        if (rwl_tok_is(ts, k, ops[i]))
            return true;
    return false;
}

/* The right side [a, b) of a store to float: float or integer operands only. Its double
 * literals that are operands of arithmetic are appended to lits. */
static bool float_expr(const fl_scan *s, size_t a, size_t b, size_t *lits, size_t *n_lits)
{
    const rw_toks *ts = s->ts;
    size_t found = *n_lits;
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is(ts, k, "double") || rwl_tok_is(ts, k, "->") || rwl_tok_is(ts, k, ".") ||
            rwl_tok_is(ts, k, "sizeof") || rwl_tok_is(ts, k, "&") || rwl_tok_is(ts, k, "++") ||
            rwl_tok_is(ts, k, "--") || rwl_tok_is_assign_op(ts, k))
            return false;
        if (rwl_tok_is(ts, k, "[")) {
            k = rwl_match_close(ts, k);   /* an index: integer by C's rules */
            if (k >= b)
                return false;
            continue;
        }
        if (ts->t[k].kind == T_NUMBER) {
            if (double_literal(ts, k) && k > 0 && arith(ts, k - 1) && k + 1 <= b && arith(ts, k + 1)) {
                if (*n_lits < FL_EDITS)
                    lits[(*n_lits)++] = k;
            }
            continue;
        }
        if (ts->t[k].kind != T_IDENT)
            continue;
        if (rwl_tok_is(ts, k, "float") || rwl_tok_is(ts, k, "int") || rwl_tok_is(ts, k, "unsigned"))
            continue;   /* casts to float or to an integer */
        if (rwl_tok_is(ts, k, "threadIdx") || rwl_tok_is(ts, k, "blockIdx") || rwl_tok_is(ts, k, "blockDim") ||
            rwl_tok_is(ts, k, "gridDim")) {
            k += 2;
            continue;
        }
        if (k + 1 < b && rwl_tok_is(ts, k + 1, "(")) {
            if (!float_call(ts, k))
                return false;
            continue;
        }
        bool sub = k + 1 < b && rwl_tok_is(ts, k + 1, "[");
        enum fl_type t = name_type(s, k, sub);
        if (t != FL_FLOAT && t != FL_INT)
            return false;
    }
    (void)found;
    return true;
}

/* The type of the store's target ending just before the assignment operator at k. */
static enum fl_type target_type(const fl_scan *s, size_t a, size_t k)
{
    const rw_toks *ts = s->ts;
    size_t l = k - 1;
    bool sub = false;
    while (l > a && rwl_tok_is(ts, l, "]")) {
        int depth = 0;
        for (;; l--) {
            if (rwl_tok_is(ts, l, "]"))
                depth++;
            else if (rwl_tok_is(ts, l, "[") && !--depth)
                break;
            if (l == a)
                return FL_UNKNOWN;
        }
        l--;
        sub = true;
    }
    if (ts->t[l].kind != T_IDENT || (l > a && (rwl_tok_is(ts, l - 1, ".") || rwl_tok_is(ts, l - 1, "->"))))
        return FL_UNKNOWN;
    /* a declarator `float x = ...`: its declared type, scalar */
    const fl_name *n = find_name(s, l);
    if (n && !sub && n->indexed)
        return FL_UNKNOWN;
    return name_type(s, l, sub && !(n && !n->indexed));
}

static int float_literals(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    fl_scan *s = hk_calloc(1, sizeof *s);
    if (!s)
        return HK_ENOMEM;
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    s->ts = &ts;
    s->f = f;
    collect(s);
    size_t lits[FL_EDITS], n_lits = 0, stmts = 0, first_line = 0;
    for (size_t k = 1; k + 1 < ts.n; k++) {
        if (!(rwl_tok_is(&ts, k, "=") || rwl_tok_is(&ts, k, "+=") || rwl_tok_is(&ts, k, "-=") ||
              rwl_tok_is(&ts, k, "*=") || rwl_tok_is(&ts, k, "/=")))
            continue;
        /* the right side: to the first top-level `;` or `,` (or an unmatched `)`) */
        size_t e = k + 1;
        int depth = 0;
        for (; e < ts.n; e++) {
            if (rwl_tok_is(&ts, e, "(") || rwl_tok_is(&ts, e, "[") || rwl_tok_is(&ts, e, "{"))
                depth++;
            else if (rwl_tok_is(&ts, e, ")") || rwl_tok_is(&ts, e, "]") || rwl_tok_is(&ts, e, "}")) {
                if (!depth)
                    break;
                depth--;
            } else if (!depth && (rwl_tok_is(&ts, e, ";") || rwl_tok_is(&ts, e, ",")))
                break;
        }
        if (e >= ts.n || target_type(s, 1, k) != FL_FLOAT)
            continue;
        size_t before = n_lits;
        if (!float_expr(s, k + 1, e, lits, &n_lits)) {
            n_lits = before;
            continue;
        }
        if (n_lits > before) {
            stmts++;
            if (!first_line)
                first_line = (size_t)rwl_line_at(text, ts.t[k].start);
        }
        k = e - 1;
    }
    if (!n_lits) {
        rc = rwl_not_applicable_to(out, "float_literals", f->name, HK_MSG_RW_FLIT_NONE,
                                   rwl_line_at(text, f->body_span.start_byte));
        goto out;
    }
    for (size_t i = 0; i < n_lits && !rc; i++)
        rc = rwl_edits_add(&es, ts.t[lits[i]].end, ts.t[lits[i]].end, "f");
    if (rc)
        goto out;
    /* one entry per number of each count (Chinese has no plural) */
    static const enum hk_msg says[2][2] = {{HK_MSG_RW_FLIT_DESC_MANY_MANY, HK_MSG_RW_FLIT_DESC_MANY_ONE},
                                           {HK_MSG_RW_FLIT_DESC_ONE_MANY, HK_MSG_RW_FLIT_DESC_ONE_ONE}};
    char *desc = hk_asprintf(hk_tr_in(HK_LANG_EN, says[n_lits == 1][stmts == 1]), f->name, n_lits,
                             stmts, first_line);
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
out:
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    hk_free(s);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static int emit_float_literals(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return float_literals(c->text, c->len, c->m, c->kernel, out);
}

const rw_descriptor rw_float_literals_desc = {
    .name = "float_literals",
    .summary = "unsuffixed double literals (2.0) in float arithmetic stored to float become float literals "
               "(2.0f): the statement stays in FP32 (within tolerance)",
    .flags = 0, /* i18n: not for people */
    .emit = emit_float_literals,
};
