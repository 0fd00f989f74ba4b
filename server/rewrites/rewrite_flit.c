/* float_literals: an unsuffixed floating literal (`2.0`, `1.`, `0.5`) that is an operand of
 * float arithmetic stored to a float promotes the whole expression to FP64 (C's usual
 * conversions); written `2.0f` the expression stays in FP32. Within tolerance, not exact. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_mem.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "spec/spec.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
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
 * kernel's oracle accepts it, as for fast_math.
 *
 * Comparisons are taken in one form only, where the float form is exact for every normal
 * value (session 40, mmcv's points_in_boxes: `local_x > -x_size / 2.0` per point and box):
 * each side of the comparison is a float expression with no double in it (C computes it
 * alike in both forms), or such an expression X, all of whose names are float, scaled by a
 * power of two that shrinks it, `X / 2^e` or `X * 2^-e` (also `2^-e * P`, P one operand).
 * The double scaling is exact (an exponent change); the float one too unless the result is
 * subnormal (then it rounds); it cannot overflow. So both sides hold the same values in
 * either form and compare alike; an integer operand is refused (in the float form it would
 * convert to float, which rounds past 2^24).
 *
 * The kernel's __device__ callees (functions of the file it calls by name; one definition
 * each, before the kernel) are read too, with their template type parameters deduced from
 * the kernel's calls (an argument naming a kernel local or parameter, or a pointer plus an
 * offset). A callee no other code calls is changed in place; one another function or kernel
 * calls is copied as NAME_hkfl, beside it, and the kernel's calls renamed: no other kernel's
 * arithmetic changes. Callees of callees are not read. */

#define FL_NAMES 512
#define FL_EDITS 256

enum fl_type { FL_UNKNOWN, FL_INT, FL_FLOAT, FL_DOUBLE };

typedef struct {
    const char *s;
    size_t n;
    enum fl_type t;     /* of the value (scalars) or of an element (arrays, pointers) */
    bool indexed;       /* an array or pointer: only `name[...]` is of type t */
} fl_name;

#define FL_TPARAMS 8
#define FL_CALLEES 16

typedef struct {
    const rw_toks *ts;
    const an_function *f;
    fl_name names[FL_NAMES];
    size_t n_names;
    /* what f's template type parameters are: the kernel's from its arguments (the
     * search's or the spec's, targs), a callee's deduced from the kernel's calls (tp) */
    const char *const *targs;
    size_t n_targs;
    bool deduced;
    struct {
        char name[64];
        enum fl_type t;
    } tp[FL_TPARAMS];
    size_t n_tp;
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

/* The type f's template type parameter named p (n bytes) stands for; FL_UNKNOWN when it is
 * none, or not known. */
static enum fl_type tparam_type(const fl_scan *s, const char *p, size_t n)
{
    char name[64];
    if (!s->f->template_params || n == 0 || n >= sizeof name)
        return FL_UNKNOWN;
    memcpy(name, p, n);
    name[n] = '\0';
    if (s->deduced) {
        for (size_t i = 0; i < s->n_tp; i++)
            if (!strcmp(s->tp[i].name, name))
                return s->tp[i].t;
        return FL_UNKNOWN;
    }
    return type_of_text(rw_template_arg_of(s->f, name, s->targs, s->n_targs));
}

/* The type token k spells: a type word, or a template type parameter of f. */
static enum fl_type tok_type(const fl_scan *s, size_t k)
{
    enum fl_type t = base_type(s->ts, k);
    if (t == FL_UNKNOWN && s->ts->t[k].kind == T_IDENT)
        t = tparam_type(s, s->ts->text + s->ts->t[k].start, s->ts->t[k].end - s->ts->t[k].start);
    return t;
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
        enum fl_type bt = tok_type(s, k);
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
    enum fl_type t = type_of_text(p->elem_type);
    if (t == FL_UNKNOWN && p->elem_type)
        t = tparam_type(s, p->elem_type, strlen(p->elem_type));
    return t;
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

/* An unsuffixed floating literal (a double), convertible or not? */
static bool unsuffixed_float(const rw_toks *ts, size_t k)
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
    return fl;
}

/* An unsuffixed floating literal whose float is finite and normal (or zero)? */
static bool double_literal(const rw_toks *ts, size_t k)
{
    if (!unsuffixed_float(ts, k))
        return false;
    size_t l = ts->t[k].end - ts->t[k].start;
    char buf[64];
    if (l >= sizeof buf)
        return false;
    memcpy(buf, ts->text + ts->t[k].start, l);
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

static bool relational(const rw_toks *ts, size_t k)
{
    return rwl_tok_is(ts, k, "<") || rwl_tok_is(ts, k, ">") || rwl_tok_is(ts, k, "<=") ||
           rwl_tok_is(ts, k, ">=") || rwl_tok_is(ts, k, "==") || rwl_tok_is(ts, k, "!=");
}

/* Does an operand end at token k (at its nesting level)? What binds looser than a
 * comparison: statement and list punctuation, the conditional, logical and bitwise
 * operators, assignments, return. */
static bool operand_bound(const rw_toks *ts, size_t k)
{
    static const char *const b[] = {";", ",", "{", "}", "?", ":", "&&", "||", "&", "|", "^", "return"};
    for (size_t i = 0; i < HK_ARRAY_LEN(b); i++)
        if (rwl_tok_is(ts, k, b[i]))
            return true;
    return rwl_tok_is_assign_op(ts, k);
}

/* The first token of the operand that ends before token k (a comparison operator), not
 * before lo; SIZE_MAX when another comparison bounds it (`a < b < c`: not read). */
static size_t operand_start(const rw_toks *ts, size_t k, size_t lo)
{
    int depth = 0;
    size_t j = k;
    while (j > lo) {
        size_t t = j - 1;
        if (rwl_tok_is(ts, t, ")") || rwl_tok_is(ts, t, "]"))
            depth++;
        else if (rwl_tok_is(ts, t, "(") || rwl_tok_is(ts, t, "[")) {
            if (!depth)
                break;
            depth--;
        } else if (!depth && relational(ts, t))
            return SIZE_MAX;
        else if (!depth && operand_bound(ts, t))
            break;
        j = t;
    }
    return j;
}

/* The end (exclusive) of the operand that starts after token k, not past hi; SIZE_MAX when
 * another comparison bounds it. */
static size_t operand_end(const rw_toks *ts, size_t k, size_t hi)
{
    int depth = 0;
    size_t j = k + 1;
    for (; j < hi; j++) {
        if (rwl_tok_is(ts, j, "(") || rwl_tok_is(ts, j, "["))
            depth++;
        else if (rwl_tok_is(ts, j, ")") || rwl_tok_is(ts, j, "]")) {
            if (!depth)
                break;
            depth--;
        } else if (!depth && relational(ts, j))
            return SIZE_MAX;
        else if (!depth && operand_bound(ts, j))
            break;
    }
    return j;
}

/* Is the literal at k an operand of a comparison inside [a, b) (the store rule leaves it to
 * the comparison rule)? */
static bool in_comparison(const rw_toks *ts, size_t k, size_t a, size_t b)
{
    return operand_start(ts, k, a) == SIZE_MAX || operand_end(ts, k, b) == SIZE_MAX;
}

/* The right side [a, b) of a store to float: float or integer operands only. Its double
 * literals that are operands of arithmetic, outside comparisons, are appended to lits. */
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
            if (double_literal(ts, k) && k > 0 && arith(ts, k - 1) && k + 1 <= b && arith(ts, k + 1) &&
                !in_comparison(ts, k, a, b)) {
                if (*n_lits < FL_EDITS)
                    lits[(*n_lits)++] = k;
            }
            continue;
        }
        if (ts->t[k].kind != T_IDENT)
            continue;
        if (rwl_tok_is(ts, k, "float") || rwl_tok_is(ts, k, "int") || rwl_tok_is(ts, k, "unsigned"))
            continue;   /* casts to float or to an integer */
        enum fl_type cast = tparam_type(s, ts->text + ts->t[k].start, ts->t[k].end - ts->t[k].start);
        if (cast == FL_FLOAT || cast == FL_INT)
            continue;   /* (T)x or T(x), T float or an integer type */
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

/* The value of number token k (strtod of its text; 0 when too long). */
static double number_value(const rw_toks *ts, size_t k)
{
    char buf[64];
    size_t l = ts->t[k].end - ts->t[k].start;
    if (l >= sizeof buf)
        return 0.0;
    memcpy(buf, ts->text + ts->t[k].start, l);
    buf[l] = '\0';
    return strtod(buf, NULL);
}

/* Is [a, b) a float operand: a float or integer expression with no double in it (float_expr)
 * whose every name is a float (indices aside), with one at least; or one integer literal
 * of at most 2^24 (exact in float), optionally negated? */
static bool float_operand(const fl_scan *s, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    if (a >= b)
        return false;
    size_t tmp[FL_EDITS], n_tmp = 0;
    if (!float_expr(s, a, b, tmp, &n_tmp))
        return false;
    size_t q = a + (rwl_tok_is(ts, a, "-") ? 1 : 0);
    if (q + 1 == b && ts->t[q].kind == T_NUMBER && !unsuffixed_float(ts, q))
        return fabs(number_value(ts, q)) <= 16777216.0;
    bool named = false;
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is(ts, k, "!") || rwl_tok_is(ts, k, "~") || rwl_tok_is(ts, k, "%") ||
            rwl_tok_is(ts, k, "::") || rwl_tok_is(ts, k, "<<") || rwl_tok_is(ts, k, ">>"))
            return false;
        if (rwl_tok_is(ts, k, "[")) {
            k = rwl_match_close(ts, k);
            continue;
        }
        if (ts->t[k].kind != T_IDENT || rwl_tok_is(ts, k, "float"))
            continue;
        if (rwl_tok_is(ts, k, "int") || rwl_tok_is(ts, k, "unsigned"))
            return false;   /* an integer cast: converted to float in the float form */
        if (tparam_type(s, ts->text + ts->t[k].start, ts->t[k].end - ts->t[k].start) == FL_FLOAT)
            continue;       /* (T)x, T float */
        if (k + 1 < b && rwl_tok_is(ts, k + 1, "(")) {
            named = true;   /* float math (float_expr allowed only those calls) */
            continue;
        }
        if (name_type(s, k, k + 1 < b && rwl_tok_is(ts, k + 1, "[")) != FL_FLOAT)
            return false;
        named = true;
    }
    return named;
}

/* One operand [a, b) of a comparison: 0 when it is a float operand (float_operand); 1, with
 * its literal in *lit, when it is a float operand X scaled by a power of two that shrinks it
 * and nothing else: `[-] X / 2^e` (e >= 0) or `[-] X * 2^-e`, X holding no top-level `+` or
 * `-` but its leading sign (so the scaling applies to all of it, as C parses it), or
 * `[-] 2^-e * P`, P one primary (a name with its subscripts, a call, a parenthesised
 * expression); -1 otherwise. */
static int compare_side(const fl_scan *s, size_t a, size_t b, size_t *lit)
{
    const rw_toks *ts = s->ts;
    size_t n = 0, L = 0;
    for (size_t k = a; k < b; k++)
        if (unsuffixed_float(ts, k)) {
            n++;
            L = k;
        }
    if (n == 0)
        return float_operand(s, a, b) ? 0 : -1;
    if (n > 1 || !double_literal(ts, L))
        return -1;
    int e;
    double v = number_value(ts, L);
    if (!(v > 0.0) || frexp(v, &e) != 0.5)
        return -1;   /* not a power of two */
    *lit = L;
    if (L == b - 1 && L > a + 1 &&
        ((rwl_tok_is(ts, L - 1, "/") && v >= 1.0) || (rwl_tok_is(ts, L - 1, "*") && v <= 1.0))) {
        int depth = 0;
        for (size_t k = a; k + 1 < L; k++) {   /* X's top level: no binary + or - */
            if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "["))
                depth++;
            else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]"))
                depth--;
            else if (!depth && k > a && (rwl_tok_is(ts, k, "+") || rwl_tok_is(ts, k, "-")))
                return -1;
        }
        size_t x = rwl_tok_is(ts, a, "-") ? a + 1 : a;
        return x < L - 1 && float_operand(s, x, L - 1) ? 1 : -1;
    }
    size_t l0 = rwl_tok_is(ts, a, "-") ? a + 1 : a;
    if (L != l0 || v > 1.0 || L + 2 >= b || !rwl_tok_is(ts, L + 1, "*"))
        return -1;
    size_t p = L + 2, e2 = p;   /* P: one primary */
    if (rwl_tok_is(ts, p, "("))
        e2 = rwl_match_close(ts, p) + 1;
    else if (ts->t[p].kind == T_IDENT) {
        e2 = p + 1;
        if (e2 < b && rwl_tok_is(ts, e2, "("))
            e2 = rwl_match_close(ts, e2) + 1;
        while (e2 < b && rwl_tok_is(ts, e2, "["))
            e2 = rwl_match_close(ts, e2) + 1;
    }
    return e2 == b && float_operand(s, p, b) ? 1 : -1;
}

/* Is the literal at k an operand of arithmetic at run time (a binary + - * /, a compound
 * assignment), not a constant the compiler converts (`x = 0.;`, `(T)0.5`)? Only these cost
 * FP64 work: a kernel with none has nothing to gain (rodinia_hotspot3d's `float amb_temp =
 * 80.0;`, mmcv's `(T)0.5`), and is refused. */
static bool live(const fl_scan *s, size_t k)
{
    const rw_toks *ts = s->ts;
    if (k > 0 && rwl_tok_is(ts, k - 1, ")")) {   /* a cast `(T)L`: a constant of type T */
        size_t q = k - 1;
        while (q > 0 && !rwl_tok_is(ts, q, "("))
            q--;
        bool cast = q + 1 < k - 1;
        for (size_t i = q + 1; i < k - 1 && cast; i++)
            cast = rwl_tok_is(ts, i, "const") || tok_type(s, i) != FL_UNKNOWN;
        if (cast)
            return false;
    }
    if (k + 1 < ts->n && (rwl_tok_is(ts, k + 1, "+") || rwl_tok_is(ts, k + 1, "-") || rwl_tok_is(ts, k + 1, "*") ||
                          rwl_tok_is(ts, k + 1, "/")))
        return true;
    if (k < 2)
        return false;
    if (rwl_tok_is(ts, k - 1, "*") || rwl_tok_is(ts, k - 1, "/") || rwl_tok_is(ts, k - 1, "+=") ||
        rwl_tok_is(ts, k - 1, "-=") || rwl_tok_is(ts, k - 1, "*=") || rwl_tok_is(ts, k - 1, "/="))
        return true;
    /* a binary + or -: after an operand */
    return (rwl_tok_is(ts, k - 1, "+") || rwl_tok_is(ts, k - 1, "-")) &&
           (ts->t[k - 2].kind == T_IDENT || ts->t[k - 2].kind == T_NUMBER || rwl_tok_is(ts, k - 2, ")") ||
            rwl_tok_is(ts, k - 2, "]"));
}

static int precedence(const rw_toks *ts, size_t k)
{
    if (rwl_tok_is(ts, k, "*") || rwl_tok_is(ts, k, "/") || rwl_tok_is(ts, k, "%"))
        return 3;
    return rwl_tok_is(ts, k, "+") || rwl_tok_is(ts, k, "-") ? 2 : 0;
}

/* Is the literal L of a store (its operator at token as, right side [a, b)) one that costs
 * nothing in FP64 already: an exact float that is an operand of the right side's last
 * operation, whose other operand holds no double (`y = a * b - 0.5;`, `hy = 1. - ly;`,
 * `x += 0.5;`)? That one operation computed in double and rounded to float is the float
 * operation's result (53 bits hold the exact result of any +, -, * or / of two floats
 * closely enough for one rounding to float to be right), and the compiler narrows it to
 * the float operation itself: mmcv's deform_roi_pool and roi_align_rotated have no FP64
 * conversion in their PTX for such statements. */
static bool narrowed_by_compiler(const rw_toks *ts, size_t as, size_t a, size_t b, size_t L)
{
    double v = number_value(ts, L);
    if ((double)(float)v != v)
        return false;
    for (size_t k = a; k < b; k++)
        if (k != L && unsuffixed_float(ts, k))
            return false;
    if (!rwl_tok_is(ts, as, "="))   /* x op= L: one operation */
        return L == a && b == L + 1;
    size_t op;
    if (L + 1 == b && L >= a + 2)
        op = L - 1;
    else if (L == a && L + 2 < b)
        op = L + 1;
    else
        return false;
    int p = precedence(ts, op), depth = 0;
    if (!p)
        return false;
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "["))
            depth++;
        else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]"))
            depth--;
        if (depth || k == op)
            continue;
        if (rwl_tok_is(ts, k, "?") || rwl_tok_is(ts, k, ":") || relational(ts, k) || rwl_tok_is(ts, k, "&&") ||
            rwl_tok_is(ts, k, "||"))
            return false;
        int q = precedence(ts, k);
        if (!q)
            continue;
        if ((rwl_tok_is(ts, k, "-") || rwl_tok_is(ts, k, "+")) &&
            (k == a || precedence(ts, k - 1) || rwl_tok_is(ts, k - 1, "(")))
            continue;   /* a sign */
        if (q < p || (q == p && L == a))
            return false;   /* another operation comes after L's */
    }
    return true;
}

static bool taken(const size_t *lits, size_t n, size_t k)
{
    for (size_t i = 0; i < n; i++)
        if (lits[i] == k)
            return true;
    return false;
}

/* The literals of s's body that change: the stores' (the tolerance rule) and the
 * comparisons' (the exact rule), appended to lits; *stmts counts the statements and
 * comparisons changed, *first_line is the first one's line (unchanged when none); *n_live
 * counts those that cost FP64 work now (live, not narrowed by the compiler already). */
static void scan_body(const fl_scan *s, const char *text, size_t *lits, size_t *n_lits, size_t *stmts,
                      size_t *first_line, size_t *n_live)
{
    const rw_toks *ts = s->ts;
    for (size_t k = 1; k + 1 < ts->n; k++) {
        if (!(rwl_tok_is(ts, k, "=") || rwl_tok_is(ts, k, "+=") || rwl_tok_is(ts, k, "-=") ||
              rwl_tok_is(ts, k, "*=") || rwl_tok_is(ts, k, "/=")))
            continue;
        /* the right side: to the first top-level `;` or `,` (or an unmatched `)`) */
        size_t e = k + 1;
        int depth = 0;
        for (; e < ts->n; e++) {
            if (rwl_tok_is(ts, e, "(") || rwl_tok_is(ts, e, "[") || rwl_tok_is(ts, e, "{"))
                depth++;
            else if (rwl_tok_is(ts, e, ")") || rwl_tok_is(ts, e, "]") || rwl_tok_is(ts, e, "}")) {
                if (!depth)
                    break;
                depth--;
            } else if (!depth && (rwl_tok_is(ts, e, ";") || rwl_tok_is(ts, e, ",")))
                break;
        }
        if (e >= ts->n || target_type(s, 1, k) != FL_FLOAT)
            continue;
        size_t before = *n_lits;
        if (!float_expr(s, k + 1, e, lits, n_lits)) {
            *n_lits = before;
            continue;
        }
        if (*n_lits > before) {
            (*stmts)++;
            if (!*first_line)
                *first_line = (size_t)rwl_line_at(text, ts->t[k].start);
        }
        for (size_t i = before; i < *n_lits; i++)
            *n_live += live(s, lits[i]) && !narrowed_by_compiler(ts, k, k + 1, e, lits[i]);
        k = e - 1;
    }
    size_t compared = *n_lits;
    for (size_t k = 2; k + 2 < ts->n; k++) {
        if (!relational(ts, k))
            continue;
        size_t a = operand_start(ts, k, 1), b = operand_end(ts, k, ts->n - 1);
        size_t la = 0, lb = 0;
        if (a == SIZE_MAX || b == SIZE_MAX)
            continue;
        int sa = compare_side(s, a, k, &la), sb = compare_side(s, k + 1, b, &lb);
        if (sa < 0 || sb < 0 || sa + sb == 0)
            continue;
        size_t before = *n_lits;
        if (sa && !taken(lits, *n_lits, la) && *n_lits < FL_EDITS)
            lits[(*n_lits)++] = la;
        if (sb && !taken(lits, *n_lits, lb) && *n_lits < FL_EDITS)
            lits[(*n_lits)++] = lb;
        if (*n_lits > before) {
            (*stmts)++;
            size_t line = (size_t)rwl_line_at(text, ts->t[k].start);
            if (!*first_line || line < *first_line)
                *first_line = line;
        }
    }
    *n_live += *n_lits - compared;   /* a comparison in double: never narrowed */
}

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return a < b ? -1 : a > b;
}

/* Does name occur as a word in text outside [a0, a1) and [b0, b1)? (comments count: a
 * mention makes a copy, which is always safe) */
static bool mentioned_elsewhere(const char *text, size_t len, const char *name, size_t a0, size_t a1, size_t b0,
                                size_t b1)
{
    size_t n = strlen(name);
    for (size_t i = 0; n && i + n <= len; i++) {
        if (memcmp(text + i, name, n))
            continue;
        bool word = (i == 0 || !(isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_')) &&
                    (i + n == len || !(isalnum((unsigned char)text[i + n]) || text[i + n] == '_'));
        if (word && !(i >= a0 && i < a1) && !(i >= b0 && i < b1))
            return true;
    }
    return false;
}

/* Is the template parameter list tpl declaring name as a type (`typename name`, `class name`)? */
static bool tpl_declares(const char *tpl, const char *name)
{
    if (!tpl || !name || !name[0])
        return false;
    rw_toks tt = {0};
    bool found = false;
    if (rwl_lex(tpl, 0, (uint32_t)strlen(tpl), &tt) == HK_OK)
        for (size_t q = 0; q + 1 < tt.n && !found; q++)
            found = (rwl_tok_is(&tt, q, "typename") || rwl_tok_is(&tt, q, "class")) && rwl_tok_is(&tt, q + 1, name);
    rwl_toks_free(&tt);
    return found;
}

/* Deduces callee g's template type parameters from the kernel's calls of it (ks: the
 * kernel's scan, its tokens): a parameter of type T, T*, T& given a kernel local or
 * parameter (a pointer plus an offset for T*) whose type is known; every call must agree,
 * and a call with explicit template arguments deduces nothing. Into cs->tp. */
static void deduce(const fl_scan *ks, const an_function *g, fl_scan *cs)
{
    const rw_toks *ts = ks->ts;
    cs->deduced = true;
    cs->n_tp = 0;
    if (!g->template_params)
        return;
    for (size_t k = 1; k + 1 < ts->n; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_tok_is(ts, k, g->name) || rwl_tok_is(ts, k - 1, ".") ||
            rwl_tok_is(ts, k - 1, "->"))
            continue;
        size_t open = rwl_call_paren(ts, k);
        if (!open)
            continue;
        if (open != k + 1) {   /* explicit template arguments: not deduced here */
            cs->n_tp = 0;
            return;
        }
        size_t close = rwl_match_close(ts, open), arg = open + 1;
        for (size_t i = 0; arg < close && i < g->n_params; i++) {
            size_t end = arg;
            int depth = 0;
            for (; end < close; end++) {
                if (rwl_tok_is(ts, end, "(") || rwl_tok_is(ts, end, "["))
                    depth++;
                else if (rwl_tok_is(ts, end, ")") || rwl_tok_is(ts, end, "]"))
                    depth--;
                else if (!depth && rwl_tok_is(ts, end, ","))
                    break;
            }
            const an_param *p = &g->params[i];
            if (p->elem_type && tpl_declares(g->template_params, p->elem_type) && p->pointer_depth <= 1 &&
                strlen(p->elem_type) < sizeof cs->tp[0].name) {
                enum fl_type t = FL_UNKNOWN;
                bool ptr = p->pointer_depth == 1;
                if (ts->t[arg].kind == T_IDENT &&
                    (end == arg + 1 ||
                     (ptr && (rwl_tok_is(ts, arg + 1, "+") || rwl_tok_is(ts, arg + 1, "-")))))
                    t = name_type(ks, arg, ptr);
                size_t j = 0;
                while (j < cs->n_tp && strcmp(cs->tp[j].name, p->elem_type))
                    j++;
                if (j == cs->n_tp && j < FL_TPARAMS) {
                    snprintf(cs->tp[j].name, sizeof cs->tp[j].name, "%s", p->elem_type);
                    cs->tp[j].t = t;
                    cs->n_tp++;
                } else if (j < cs->n_tp && cs->tp[j].t != t)
                    cs->tp[j].t = FL_UNKNOWN;
            }
            arg = end + 1;
        }
    }
}

static int float_literals(const rw_context *c, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const char *text = c->text;
    size_t len = c->len;
    const an_model *m = c->m;
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, c->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0}, cts = {0};
    rw_edits es = {0};
    struct hk_buf names, copy;
    hk_buf_init(&names, 4096);
    hk_buf_init(&copy, len + 4096);   /* a copy of one function of the text */
    fl_scan *s = hk_calloc(1, sizeof *s), *cs = hk_calloc(1, sizeof *cs);
    size_t *lits = hk_calloc(FL_EDITS, sizeof *lits), *clits = hk_calloc(FL_EDITS, sizeof *clits);
    if (!s || !cs || !lits || !clits) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    s->ts = &ts;
    s->f = f;
    s->targs = c->template_args;
    s->n_targs = c->n_template_args;
    if (!s->targs && c->spec) {
        s->targs = (const char *const *)c->spec->template_args;
        s->n_targs = c->spec->n_template_args;
    }
    collect(s);
    size_t n_lits = 0, stmts = 0, first_line = 0, callee_lits = 0, n_live = 0;
    scan_body(s, text, lits, &n_lits, &stmts, &first_line, &n_live);
    for (size_t i = 0; i < n_lits && !rc; i++)
        rc = rwl_edits_add(&es, ts.t[lits[i]].end, ts.t[lits[i]].end, "f");

    /* the kernel's __device__ callees, each once */
    const an_function *done[FL_CALLEES];
    size_t n_done = 0;
    for (size_t k = 1; k + 1 < ts.n && !rc && n_done < FL_CALLEES; k++) {
        if (ts.t[k].kind != T_IDENT || !rwl_call_paren(&ts, k) || rwl_tok_is(&ts, k - 1, ".") ||
            rwl_tok_is(&ts, k - 1, "->") || rwl_tok_is(&ts, k - 1, "::"))
            continue;
        const an_function *g = rwl_callee(m, f, &ts, k);
        bool seen = !g || g->kind != AN_DEVICE_FUNC || g->recovered;
        for (size_t i = 0; i < n_done && !seen; i++)
            seen = done[i] == g;
        if (seen)
            continue;
        done[n_done++] = g;
        size_t defs = 0;
        for (size_t fi = 0; fi < m->n_funcs; fi++)
            defs += !strcmp(m->funcs[fi].name, g->name);
        if (defs != 1 || g->span.end_byte > f->span.start_byte)
            continue;   /* an overload set, or defined after the kernel (a copy would be too) */
        rwl_toks_free(&cts);
        memset(cs, 0, sizeof *cs);
        if ((rc = rwl_lex(text, g->body_span.start_byte, g->body_span.end_byte, &cts)))
            break;
        cs->ts = &cts;
        cs->f = g;
        deduce(s, g, cs);
        collect(cs);
        size_t nc = 0, cstmts = 0, cfirst = 0, clive = 0;
        scan_body(cs, text, clits, &nc, &cstmts, &cfirst, &clive);
        if (!clive)
            continue;   /* only constants: nothing to gain, no copy */
        n_live += clive;
        qsort(clits, nc, sizeof *clits, cmp_size);
        char *copy_name = hk_asprintf("%s_hkfl", g->name);
        if (!copy_name) {
            rc = HK_ENOMEM;
            break;
        }
        bool shared = mentioned_elsewhere(text, len, g->name, g->span.start_byte, g->span.end_byte,
                                          f->body_span.start_byte, f->body_span.end_byte);
        if (shared && mentioned_elsewhere(text, len, copy_name, 0, 0, 0, 0)) {
            hk_free(copy_name);
            continue;   /* the copy's name is taken */
        }
        if (!shared) {
            for (size_t i = 0; i < nc && !rc; i++)
                rc = rwl_edits_add(&es, cts.t[clits[i]].end, cts.t[clits[i]].end, "f");
        } else {
            /* the copy: the definition (template prefix included) with its name changed and
             * its literals suffixed, after the original; the kernel's calls renamed */
            hk_buf_reset(&copy);
            size_t at = g->span.start_byte;
            rc = hk_buf_appends(&copy, "\n\n");
            if (!rc)
                rc = hk_buf_append(&copy, text + at, g->name_span.start_byte - at);
            if (!rc)
                rc = hk_buf_appends(&copy, copy_name);
            at = g->name_span.end_byte;
            for (size_t i = 0; i < nc && !rc; i++) {
                rc = hk_buf_append(&copy, text + at, cts.t[clits[i]].end - at);
                if (!rc)
                    rc = hk_buf_appends(&copy, "f");
                at = cts.t[clits[i]].end;
            }
            if (!rc)
                rc = hk_buf_append(&copy, text + at, g->span.end_byte - at);
            char *body = rc ? NULL : hk_buf_steal(&copy);
            if (!rc && !body)
                rc = HK_ENOMEM;
            if (!rc)
                rc = rwl_edits_add_owned(&es, g->span.end_byte, g->span.end_byte, body);
            for (size_t j = 1; j + 1 < ts.n && !rc; j++)
                if (ts.t[j].kind == T_IDENT && rwl_tok_is(&ts, j, g->name) && rwl_call_paren(&ts, j) &&
                    !rwl_tok_is(&ts, j - 1, ".") && !rwl_tok_is(&ts, j - 1, "->") && !rwl_tok_is(&ts, j - 1, "::"))
                    rc = rwl_edits_add(&es, ts.t[j].start, ts.t[j].end, copy_name);
        }
        if (!rc)
            rc = hk_buf_printf(&names, "%s%s%s%s", names.len ? ", " : "", g->name, shared ? " as " : "",
                               shared ? copy_name : "");
        hk_free(copy_name);
        callee_lits += nc;
        stmts += cstmts;
        if (!first_line || cfirst < first_line)
            first_line = cfirst;
    }
    if (rc)
        goto out;
    n_lits += callee_lits;
    if (!n_live) {
        rc = rwl_not_applicable_to(out, "float_literals", f->name, HK_MSG_RW_FLIT_NONE,
                                   rwl_line_at(text, f->body_span.start_byte));
        goto out;
    }
    /* one entry per number of each count (Chinese has no plural) */
    static const enum hk_msg says[2][2] = {{HK_MSG_RW_FLIT_DESC_MANY_MANY, HK_MSG_RW_FLIT_DESC_MANY_ONE},
                                           {HK_MSG_RW_FLIT_DESC_ONE_MANY, HK_MSG_RW_FLIT_DESC_ONE_ONE}};
    char *d0 = hk_asprintf(hk_tr_in(HK_LANG_EN, says[n_lits == 1][stmts == 1]), f->name, n_lits, stmts, first_line);
    char *desc = d0;
    if (d0 && callee_lits) {
        char *tail = hk_asprintf(EN(RW_FLIT_CALLEES), callee_lits, names.data ? names.data : "");
        desc = tail ? hk_asprintf("%s%s", d0, tail) : NULL;
        hk_free(tail);
        hk_free(d0);
    }
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    if (!rc && out->applicable)
        out->keeps_launch = true;   /* literals only: the text's launch is the candidate's */
out:
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    rwl_toks_free(&cts);
    hk_buf_free(&names);
    hk_buf_free(&copy);
    hk_free(s);
    hk_free(cs);
    hk_free(lits);
    hk_free(clits);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static int emit_float_literals(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return float_literals(c, out);
}

const rw_descriptor rw_float_literals_desc = {
    .name = "float_literals",
    /* it stacks (RW_STACKS): it changes literals only and keeps the launch, and removes
     * another cost than the leaders' (FP64 conversions on the chain): mmcv's
     * points_in_boxes, table_hoist's output (1.26x, H100 session 38) still has 54
     * cvt.f64.f32 in its unrolled box loop, none once stacked */
    .flags = RW_STACKS,
    .summary = "unsuffixed double literals (2.0) in float arithmetic stored to float become float literals "
               "(2.0f): the statement stays in FP32 (within tolerance)", /* i18n: not for people */
    .emit = emit_float_literals,
};
