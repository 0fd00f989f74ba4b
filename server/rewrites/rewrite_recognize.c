/* The recognizers the structural pattern rewrites share (rewrite_recognize.h): the token
 * scanner's helpers, the kernel's "guard shape" (1D/2D index declarations, the bounds check,
 * the guarded statements), the row-wise view, the GEMM loop matcher, and the two public
 * views other rewrites build on: the histogram (rwp_match_histogram) and BLAS (rwp_match_blas). */
#include "rewrites/rewrite_pattern.h"
#include "rewrites/rewrite_recognize.h"
#include "rewrites/rewrite_lex.h"
#include "model/kclass.h"
#include "model/kmodel.h"

#include "core/buf.h"
#include "core/hk.h"
#include "spec/expr.h"
#include "spec/spec.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Structural pattern rewrites (rewrite_pattern.h). A token scanner reads the kernel body
 * into its "guard shape" (the 1D/2D index declarations, the bounds check, the guarded
 * statements); each rewrite matches its pattern on that shape and renders a new body from
 * a template, which replaces the old body. The result is re-analysed: a rewrite never hands
 * back code that no longer parses. */
#include "rewrites/rewrite_pattern.h"

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

/* The bodies these rewrites recognize are a few statements: a body of more tokens is not
 * one of the patterns, and the cap keeps a huge kernel from costing time. */
#define PT_MAX_TOKENS 20000u

int rwp_lex_body(const char *text, uint32_t start, uint32_t end, rw_toks *ts)
{
    int rc = rwl_lex(text, start, end, ts);
    if (rc == HK_OK && ts->n > PT_MAX_TOKENS)
        rc = HK_ETOOBIG;
    return rc;
}

bool rwp_tok_ident(const rw_toks *ts, size_t k)
{
    return k < ts->n && ts->t[k].kind == T_IDENT;
}

void rwp_tok_copy(const rw_toks *ts, size_t k, char *out, size_t size)
{
    size_t l = k < ts->n ? ts->t[k].end - ts->t[k].start : 0;
    if (l >= size)
        l = size - 1;
    memcpy(out, ts->text + (k < ts->n ? ts->t[k].start : 0), l);
    out[l] = '\0';
}

static const char *const type_words[] = {
    "int", "unsigned", "signed", "long", "short", "size_t", "ptrdiff_t", "int64_t", "uint64_t",
    "int32_t", "uint32_t", "char", "auto", "float", "double", "bool", "half", "__half",
    "__nv_bfloat16", "uint8_t", "int8_t", "uint16_t", "int16_t"};

bool rwp_is_type_word(const rw_toks *ts, size_t k)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(type_words); i++)
        if (rwl_tok_is(ts, k, type_words[i]))
            return true;
    return false;
}

void rwp_compact(const rw_toks *ts, size_t a, size_t b, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = a; k < b && k < ts->n; k++) {
        if (rwl_tok_is(ts, k, "(")) {
            size_t j = k + 1;
            while (j < b && (rwp_is_type_word(ts, j) || rwl_tok_is(ts, j, "const")))
                j++;
            if (j > k + 1 && rwl_tok_is(ts, j, ")")) {
                k = j;   /* a cast */
                continue;
            }
            size_t c = rwl_match_close(ts, k);
            bool single = c == k + 2 || (c == k + 4 && (rwl_tok_is(ts, k + 2, ".") || rwl_tok_is(ts, k + 2, "->")));
            if (c < b && single) {
                for (size_t q = k + 1; q < c; q++) {
                    size_t l = ts->t[q].end - ts->t[q].start;
                    if (n + l + 1 >= size)
                        return;
                    memcpy(out + n, ts->text + ts->t[q].start, l);
                    n += l;
                }
                out[n] = '\0';
                k = c;
                continue;
            }
        }
        if (rwl_tok_is(ts, k, "static_cast") && rwl_tok_is(ts, k + 1, "<")) {
            size_t j = k + 2;
            while (j < b && !rwl_tok_is(ts, j, ">"))
                j++;
            if (j < b) {
                k = j;
                continue;
            }
        }
        size_t l = ts->t[k].end - ts->t[k].start;
        if (n + l + 1 >= size)
            return;
        memcpy(out + n, ts->text + ts->t[k].start, l);
        n += l;
        out[n] = '\0';
    }
}

bool rwp_mentions(const rw_toks *ts, size_t a, size_t b, const char *name)
{
    for (size_t k = a; k < b && k < ts->n; k++)
        if (rwp_tok_ident(ts, k) && rwl_tok_is(ts, k, name) &&
            !(k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->"))))
            return true;
    return false;
}

bool rwp_has_side_effects(const rw_toks *ts, size_t a, size_t b)
{
    for (size_t k = a; k < b && k < ts->n; k++) {
        if (rwl_tok_is_assign_op(ts, k) || rwl_tok_is(ts, k, "++") || rwl_tok_is(ts, k, "--"))
            return true;
        if (rwp_tok_ident(ts, k) && (ts->t[k].end - ts->t[k].start > 6) &&
            (memcmp(ts->text + ts->t[k].start, "atomic", 6) == 0 ||
             memcmp(ts->text + ts->t[k].start, "__sync", 6) == 0))
            return true;
    }
    return false;
}

char rwp_index_axis(const char *c, bool batch)
{
    static const char *const forms[] = {
        "blockIdx.%c*blockDim.%c+threadIdx.%c", "blockDim.%c*blockIdx.%c+threadIdx.%c",
        "threadIdx.%c+blockIdx.%c*blockDim.%c", "threadIdx.%c+blockDim.%c*blockIdx.%c"};
    /* batch (the BLAS matcher only): a z index, the whole-block `blockIdx.z` of a batched
     * kernel included; the other rewrites keep to x and y */
    if (batch && strcmp(c, "blockIdx.z") == 0)
        return 'z';
    for (char axis = 'x'; axis <= (batch ? 'z' : 'y'); axis++)
        for (size_t i = 0; i < HK_ARRAY_LEN(forms); i++) {
            char f[64];
            snprintf(f, sizeof f, forms[i], axis, axis, axis);
            if (strcmp(c, f) == 0)
                return axis;
        }
    return 0;
}

static pt_index *shape_index(pt_shape *s, const rw_toks *ts, size_t k)
{
    for (size_t i = 0; i < s->n_idx; i++)
        if (rwl_tok_is(ts, k, s->idx[i].name))
            return &s->idx[i];
    return NULL;
}

bool rwp_guard_term(pt_shape *s, const rw_toks *ts, size_t a, size_t b, bool want_lt)
{
    while (b > a + 2 && rwl_tok_is(ts, a, "(") && rwl_match_close(ts, a) == b - 1) {
        a++;
        b--;
    }
    if (b < a + 3)
        return false;
    pt_index *ix = NULL;
    size_t ba, bb;
    if ((ix = shape_index(s, ts, a)) && rwl_tok_is(ts, a + 1, want_lt ? "<" : ">=")) {
        ba = a + 2;
        bb = b;
    } else if ((ix = shape_index(s, ts, b - 1)) && rwl_tok_is(ts, b - 2, want_lt ? ">" : "<=")) {
        ba = a;
        bb = b - 2;
    } else {
        return false;
    }
    if (ix->bound_b > ix->bound_a || ba >= bb)
        return false;   /* two bounds for one index, or none */
    for (size_t k = ba; k < bb; k++)
        if (shape_index(s, ts, k) || rwl_tok_is(ts, k, "<") || rwl_tok_is(ts, k, ">") || rwl_tok_is(ts, k, "<=") ||
            rwl_tok_is(ts, k, ">=") || rwl_tok_is(ts, k, "==") || rwl_tok_is(ts, k, "!=") || rwl_tok_is(ts, k, "&&") ||
            rwl_tok_is(ts, k, "||") || rwl_tok_is(ts, k, "?"))
            return false;
    if (rwp_has_side_effects(ts, ba, bb))
        return false;
    ix->bound_a = ba;
    ix->bound_b = bb;
    char *t = rwl_tok_text(ts, ba, bb);
    if (!t)
        return false;
    snprintf(ix->bound, sizeof ix->bound, "%s", t);
    hk_free(t);
    return true;
}

/* Reads the body's guard shape; NULL, or the reason the body is not of that shape.
 * batch: a third index along z may be declared (and bounded) too. */
static const char *read_shape_ex(const rw_toks *ts, pt_shape *s, bool batch)
{
    memset(s, 0, sizeof *s);
    if (ts->n < 2 || !rwl_tok_is(ts, 0, "{") || rwl_match_close(ts, 0) != ts->n - 1)
        return EN(RW_REC_BODY_UNREADABLE);
    size_t end = ts->n - 1;
    s->end = end;
    size_t k = 1;
    /* index declarations, then other plain declarations, up to the guard */
    s->pre_a = s->pre_b = 0;
    while (k < end && !rwl_tok_is(ts, k, "if")) {
        size_t e = rwl_stmt_end(ts, k, end);
        size_t q = k;
        if (rwl_tok_is(ts, q, "const"))
            q++;
        size_t tstart = q;
        while (q < e && rwp_is_type_word(ts, q))
            q++;
        char c[PT_EXPR];
        if (q > tstart && q + 2 < e && rwp_tok_ident(ts, q) && rwl_tok_is(ts, q + 1, "=") && rwl_tok_is(ts, e - 1, ";")) {
            rwp_compact(ts, q + 2, e - 1, c, sizeof c);
            char axis = rwp_index_axis(c, batch);
            if (axis && s->n_idx < (batch ? 3u : 2u) && s->pre_b == 0) {
                pt_index *ix = &s->idx[s->n_idx++];
                rwp_tok_copy(ts, q, ix->name, sizeof ix->name);
                char *ty = rwl_tok_text(ts, k, q);
                if (!ty)
                    return hk_strerror(HK_ENOMEM);
                snprintf(ix->type, sizeof ix->type, "%s", ty);
                hk_free(ty);
                ix->axis = axis;
                k = e;
                continue;
            }
        }
        if (s->n_idx == 0)
            return EN(RW_RECOG_NO_INDEX_DECL);
        if (q == tstart || !rwl_tok_is(ts, e - 1, ";"))
            return EN(RW_REC_STMT_BEFORE_CHECK);
        if (s->pre_b == 0)
            s->pre_a = k;
        s->pre_b = e;
        k = e;
    }
    if (s->n_idx == 0)
        return EN(RW_RECOG_NO_INDEX_DECL);
    for (size_t i = 0; i < s->n_idx; i++)
        for (size_t j = i + 1; j < s->n_idx; j++)
            if (s->idx[i].axis == s->idx[j].axis)
                return EN(RW_REC_TWO_INDEX_DECLS);
    if (!rwl_tok_is(ts, k, "if") || !rwl_tok_is(ts, k + 1, "("))
        return EN(RW_REC_NO_BOUNDS_CHECK);
    size_t cc = rwl_match_close(ts, k + 1);
    if (cc >= end)
        return EN(RW_REC_UNBALANCED_CHECK);
    size_t then_a = cc + 1, then_b = rwl_stmt_end(ts, then_a, end);
    if (rwl_tok_is(ts, then_b, "else"))
        return EN(RW_REC_CHECK_ELSE);
    bool ret = (rwl_tok_is(ts, then_a, "return") && rwl_tok_is(ts, then_a + 1, ";") && then_b == then_a + 2) ||
               (rwl_tok_is(ts, then_a, "{") && rwl_tok_is(ts, then_a + 1, "return") &&
                rwl_tok_is(ts, then_a + 2, ";") && then_b == then_a + 4);
    s->early_return = ret;
    /* split the condition at top-level && (block form) or || (early return) */
    const char *sep = ret ? "||" : "&&";
    size_t a = k + 2;
    int depth = 0;
    for (size_t q = k + 2; q <= cc; q++) {
        if (q < cc && (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[")))
            depth++;
        else if (q < cc && (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]")))
            depth--;
        if (q == cc || (depth == 0 && rwl_tok_is(ts, q, sep))) {
            if (!rwp_guard_term(s, ts, a, q, !ret))
                return ret ? EN(RW_REC_EARLY_RETURN_FORM)
                           : EN(RW_REC_CHECK_FORM);
            a = q + 1;
        }
        if (depth == 0 && (rwl_tok_is(ts, q, ret ? "&&" : "||")))
            return EN(RW_REC_CHECK_MIXES);
    }
    for (size_t i = 0; i < s->n_idx; i++)
        if (s->idx[i].bound_b == 0)
            return EN(RW_REC_INDEX_UNBOUNDED);
    if (ret) {
        s->body_a = then_b;
        s->body_b = end;
    } else {
        if (then_b != end)
            return EN(RW_REC_STMTS_AFTER_CHECK);
        if (rwl_tok_is(ts, then_a, "{")) {
            s->body_a = then_a + 1;
            s->body_b = then_b - 1;
        } else {
            s->body_a = then_a;
            s->body_b = then_b;
        }
    }
    if (s->body_a >= s->body_b)
        return EN(RW_REC_NOTHING_GUARDED);
    return NULL;
}

const char *rwp_read_shape(const rw_toks *ts, pt_shape *s)
{
    return read_shape_ex(ts, s, false);
}

const pt_index *rwp_shape_axis(const pt_shape *s, char axis)
{
    for (size_t i = 0; i < s->n_idx; i++)
        if (s->idx[i].axis == axis)
            return &s->idx[i];
    return NULL;
}

const an_param *rwp_param_named(const an_function *f, const rw_toks *ts, size_t k)
{
    if (!rwp_tok_ident(ts, k))
        return NULL;
    for (size_t i = 0; i < f->n_params; i++)
        if (f->params[i].name && rwl_tok_is(ts, k, f->params[i].name))
            return &f->params[i];
    return NULL;
}

const an_param *rwp_param_by_name(const an_function *f, const char *name)
{
    for (size_t i = 0; i < f->n_params; i++)
        if (f->params[i].name && strcmp(f->params[i].name, name) == 0)
            return &f->params[i];
    return NULL;
}

const char *rwp_scalar_type(const char *elem)
{
    static const char *const map[][2] = {
        {"float", "float"}, {"double", "double"}, {"int", "int"}, {"signed", "int"},
        {"signed int", "int"}, {"unsigned", "unsigned int"}, {"unsigned int", "unsigned int"},
        {"uint32_t", "unsigned int"}, {"int32_t", "int"}, {"long long", "long long"},
        {"long long int", "long long"}, {"unsigned long long", "unsigned long long"}, /* i18n: not for people */
        {"unsigned long long int", "unsigned long long"}}; /* i18n: not for people */
    if (!elem)
        return NULL;
    for (size_t i = 0; i < HK_ARRAY_LEN(map); i++)
        if (strcmp(elem, map[i][0]) == 0)
            return map[i][1];
    return NULL;
}

void rwp_pointee_type(const an_param *p, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    const char *s = p->type ? p->type : "";
    while (*s) {
        while (*s && (isspace((unsigned char)*s) || *s == '*'))
            s++;
        const char *w = s;
        while (*s && !isspace((unsigned char)*s) && *s != '*')
            s++;
        size_t l = (size_t)(s - w);
        if (l == 0)
            continue;
        if ((l == 5 && memcmp(w, "const", 5) == 0) || (l == 8 && memcmp(w, "volatile", 8) == 0) ||
            (l == 12 && memcmp(w, "__restrict__", 12) == 0) || (l == 10 && memcmp(w, "__restrict", 10) == 0) ||
            (l == 8 && memcmp(w, "restrict", 8) == 0))
            continue;
        if (n && n + 1 < size)
            out[n++] = ' ';
        for (size_t i = 0; i < l && n + 1 < size; i++)
            out[n++] = w[i];
        out[n] = '\0';
    }
}

int rwp_not_applicable(rw_result *out, const char *rewrite, const an_function *f, const char *why)
{
    out->applicable = false;
    out->description = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_RW_NOT_APPLICABLE_TO), rewrite,
                                   f->name, why);
    return out->description ? HK_OK : HK_ENOMEM;
}

/* Whether f's body already loops over the grid: it reads gridDim, or the kernel model reads
 * a grid-stride loop in it (a loop macro's, a while loop's). HK_OK or HK_ENOMEM. */
static int strides_over_grid(const char *text, size_t len, const an_function *f, bool *yes)
{
    *yes = rw_body_mentions(text, len, f, "gridDim");
    if (*yes)
        return HK_OK;
    km_kernel *k = NULL;
    int rc = km_build(text, len, f->name, &k, NULL, 0);
    if (rc == HK_ENOMEM)
        return rc;
    size_t n = 0;
    const km_loop *l = rc == HK_OK ? km_loops(k, &n) : NULL;
    for (size_t i = 0; i < n; i++)
        *yes = *yes || l[i].kind == KM_LOOP_GRID_STRIDE;
    km_free(k);
    return HK_OK;
}

int rwp_over_any_grid(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *gs,
                      an_model **gm, size_t *gk, char *why, size_t n)
{
    memset(gs, 0, sizeof *gs);
    *gm = NULL;
    *gk = 0;
    why[0] = '\0';
    const an_function *f = &m->funcs[kernel];
    bool strides;
    int rc = strides_over_grid(text, len, f, &strides);
    if (rc || strides)
        return rc;
    rc = rw_grid_stride(text, len, m, kernel, gs);
    if (rc == HK_ENOMEM)
        return rc;
    if (rc != HK_OK || !gs->applicable) {
        const char *r = gs->description ? strstr(gs->description, ": ") : NULL;
        snprintf(why, n, EN(RW_REC_NO_GRID_STRIDE),
                 r ? r + 2 : hk_strerror(rc));
        rw_result_free(gs);
        return HK_OK;
    }
    if ((rc = an_analyze(gs->text, gs->len, gm)) != HK_OK) {
        rw_result_free(gs);
        return rc == HK_ENOMEM ? rc : HK_EPARSE;
    }
    long k = an_model_find_kernel(*gm, f->name);
    if (k < 0) {   /* cannot happen: rw_grid_stride keeps the kernel */
        an_model_free(*gm);
        *gm = NULL;
        rw_result_free(gs);
        return HK_EPARSE;
    }
    *gk = (size_t)k;
    return HK_OK;
}

int rwp_note_grid_stride(rw_result *out)
{
    if (!out->applicable)
        return HK_OK;
    char *d = hk_asprintf(EN(RW_REC_ON_GRID_STRIDE),
                          out->description);
    if (!d)
        return HK_ENOMEM;
    hk_free(out->description);
    out->description = d;
    return HK_OK;
}

int rwp_replace_body(const char *text, size_t len, const an_model *m, const an_function *f,
                        const char *body, char *desc, rw_result *out)
{
    if (!desc)
        return HK_ENOMEM;
    size_t bl = strlen(body);
    uint32_t s = f->body_span.start_byte, e = f->body_span.end_byte;
    size_t nl = len - (e - s) + bl;
    an_model *nm = NULL;
    int rc;
    if (nl > PT_TEXT_MAX) {
        hk_free(desc);
        return HK_ETOOBIG;
    }
    char *nt = hk_malloc(nl + 1);
    if (!nt) {
        hk_free(desc);
        return HK_ENOMEM;
    }
    memcpy(nt, text, s);
    memcpy(nt + s, body, bl);
    memcpy(nt + s + bl, text + e, len - e);
    nt[nl] = '\0';
    if ((rc = an_analyze(nt, nl, &nm))) {
        hk_free(nt);
        hk_free(desc);
        return rc;
    }
    bool ok = !(nm->has_errors && !m->has_errors) && an_model_find_kernel(nm, f->name) >= 0;
    an_model_free(nm);
    if (!ok) {
        hk_free(nt);
        out->applicable = false;
        out->description = hk_asprintf(EN(RW_REC_DOES_NOT_PARSE), desc);
        hk_free(desc);
        return out->description ? HK_EPARSE : HK_ENOMEM;
    }
    out->applicable = true;
    out->text = nt;
    out->len = nl;
    out->description = desc;
    return HK_OK;
}

bool rwp_is_rowmajor(const char *c, const char *row, const char *stride, const char *col)
{
    char f[4][3 * PT_EXPR];
    snprintf(f[0], sizeof f[0], "%s*%s+%s", row, stride, col);
    snprintf(f[1], sizeof f[1], "%s*%s+%s", stride, row, col);
    snprintf(f[2], sizeof f[2], "%s+%s*%s", col, row, stride);
    snprintf(f[3], sizeof f[3], "%s+%s*%s", col, stride, row);
    for (int i = 0; i < 4; i++)
        if (strcmp(c, f[i]) == 0)
            return true;
    return false;
}

char *rwp_grid_stride_head(const pt_index *ix, const char *blocks, const char *first)
{
    const char *t = ix->type;
    if (strncmp(t, "const ", 6) == 0)
        t += 6;
    return hk_asprintf("for (long long hk_i = %s%s(long long)blockIdx.x * blockDim.x + threadIdx.x; " /* i18n: not for people (generated code) */
                       "hk_i < (long long)(%s); hk_i += (long long)%s * blockDim.x) {\n"
                       "        const %s %s = (%s)hk_i;",
                       first ? first : "", first ? " + " : "", ix->bound, blocks, t, ix->name, t);
}

bool rwp_call2(const rw_toks *ts, size_t a, size_t e, size_t *a0, size_t *b0, size_t *a1, size_t *b1)
{
    if (!rwp_tok_ident(ts, a) || !rwl_tok_is(ts, a + 1, "("))
        return false;
    size_t c = rwl_match_close(ts, a + 1);
    if (c + 2 != e || !rwl_tok_is(ts, c + 1, ";"))
        return false;
    int depth = 0;
    size_t comma = 0;
    for (size_t k = a + 2; k < c; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "{"))
            depth++;
        else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]") || rwl_tok_is(ts, k, "}"))
            depth--;
        else if (depth == 0 && rwl_tok_is(ts, k, ",")) {
            if (comma)
                return false;
            comma = k;
        }
    }
    if (!comma || comma == a + 2 || comma + 1 >= c)
        return false;
    *a0 = a + 2;
    *b0 = comma;
    *a1 = comma + 1;
    *b1 = c;
    return true;
}

const an_param *rwp_atomic_target(const an_function *f, const rw_toks *ts, size_t a, size_t b,
                                     size_t *ka, size_t *kb)
{
    const an_param *p = NULL;
    *ka = *kb = 0;
    if (b == a + 1) {
        p = rwp_param_named(f, ts, a);
    } else if (rwl_tok_is(ts, a, "&") && (p = rwp_param_named(f, ts, a + 1)) && rwl_tok_is(ts, a + 2, "[") &&
               rwl_match_close(ts, a + 2) == b - 1) {
        *ka = a + 3;
        *kb = b - 1;
    } else if ((p = rwp_param_named(f, ts, a)) && rwl_tok_is(ts, a + 1, "+") && b > a + 2) {
        *ka = a + 2;
        *kb = b;
    } else {
        return NULL;
    }
    if (!p || p->pointer_depth != 1 || p->is_const)
        return NULL;
    if (*kb > *ka && rwp_has_side_effects(ts, *ka, *kb))
        return NULL;
    return p;
}

/* Infers a bin count from the bin expression [a, b), or 0. */
static long infer_bins(const an_model *m, const an_function *f, const rw_toks *ts, size_t a, size_t b)
{
    /* ARR[...] with an 8-bit unsigned element type */
    if (b > a + 2) {
        const an_param *p = rwp_param_named(f, ts, a);
        if (p && p->pointer_depth == 1 && rwl_tok_is(ts, a + 1, "[") && rwl_match_close(ts, a + 1) == b - 1) {
            char t[PT_EXPR];
            rwp_pointee_type(p, t, sizeof t);
            if (strcmp(t, "unsigned char") == 0 || strcmp(t, "uint8_t") == 0 ||
                strcmp(t, "unsigned __int8") == 0)
                return 256;
        }
    }
    /* ... % K at the top level, K a literal or a constant */
    if (b >= a + 3 && rwl_tok_is(ts, b - 2, "%")) {
        int depth = 0;
        for (size_t k = a; k < b - 2; k++) {
            if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "["))
                depth++;
            else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]"))
                depth--;
            else if (depth == 0 && (rwl_tok_is(ts, k, "+") || rwl_tok_is(ts, k, "-") || rwl_tok_is(ts, k, "?")))
                return 0;   /* `x + y % K` binds as x + (y % K) */
        }
        char v[PT_EXPR];
        rwp_tok_copy(ts, b - 1, v, sizeof v);
        const char *num = NULL;
        if (ts->t[b - 1].kind == T_NUMBER) {
            num = v;
        } else {
            for (size_t i = 0; i < m->n_tunables; i++)
                if (strcmp(m->tunables[i].name, v) == 0 && m->tunables[i].kind != AN_TUNE_TEMPLATE &&
                    m->tunables[i].value)
                    num = m->tunables[i].value;
        }
        if (num) {
            char *endp;
            long k = strtol(num, &endp, 0);
            while (*endp == 'u' || *endp == 'U' || *endp == 'l' || *endp == 'L')
                endp++;
            if (*endp == '\0' && k > 0)
                return k;
        }
    }
    return 0;
}

/* true for the 8-bit element types whose value rwp_hist.bytes promises (the bin is the
 * element's value, signed or not, as the compiler converts it). */
static bool byte_type(const char *t)
{
    static const char *const names[] = {"unsigned char", "uint8_t", "unsigned __int8", "char",
                                        "signed char", "int8_t"};
    for (size_t i = 0; i < HK_ARRAY_LEN(names); i++)
        if (strcmp(t, names[i]) == 0)
            return true;
    return false;
}

bool rwp_copy_fits(char *out, size_t size, const char *s)
{
    size_t l = strlen(s);
    if (l >= size)
        return false;
    memcpy(out, s, l + 1);
    return true;
}

int rwp_match_histogram(const char *text, size_t len, const an_model *m, size_t kernel, int bins,
                        rwp_hist *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    if (why && why_size)
        why[0] = '\0';
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (!why || why_size == 0 || bins < 0 || bins > PT_HIST_SHARED_MAX)
        return HK_EINVAL;
    rw_toks ts = {0};
    pt_shape s;
    char *bin = NULL, *val = NULL;
    const char *w = NULL;
    if ((rc = rwp_lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG) {
            rc = HK_OK;
            w = EN(RW_PH_BODY_TOO_BIG);
        }
        goto out;
    }
    if ((w = rwp_read_shape(&ts, &s)))
        goto out;
    if (s.n_idx != 1 || s.idx[0].axis != 'x') {
        w = EN(RW_RED_NOT_1D);
        goto out;
    }
    if (s.pre_b > s.pre_a) {
        w = EN(RW_RECOG_STMTS_BEFORE_CHECK);
        goto out;
    }
    size_t a = s.body_a, e = s.body_b;
    if (rwl_tok_is(&ts, a, "{") && rwl_match_close(&ts, a) == e - 1) {
        a++;
        e--;
    }
    size_t a0, b0, a1, b1, ka, kb;
    const an_param *h = NULL;
    /* the bin in a temporary first: `[const] T b = expr; atomicAdd(H + b, v);` (or
     * &H[b]), expr free of side effects and v free of b: the bin is expr itself */
    size_t ta = 0, tb = 0, tname = 0;
    {
        size_t de = rwl_stmt_end(&ts, a, e), q = a;
        if (rwl_tok_is(&ts, q, "const"))
            q++;
        size_t tstart = q;
        while (q < de && rwp_is_type_word(&ts, q))
            q++;
        if (q > tstart && q + 3 < de && rwp_tok_ident(&ts, q) && rwl_tok_is(&ts, q + 1, "=") &&
            rwl_tok_is(&ts, de - 1, ";") && !rwp_has_side_effects(&ts, q + 2, de - 1) && de < e) {
            tname = q;
            ta = q + 2;
            tb = de - 1;
            a = de;
        }
    }
    if (!rwl_tok_is(&ts, a, "atomicAdd") || !rwp_call2(&ts, a, e, &a0, &b0, &a1, &b1)) {
        w = EN(RW_REC_HIST_NOT_ATOMIC);
        goto out;
    }
    if (!(h = rwp_atomic_target(f, &ts, a0, b0, &ka, &kb)) || kb <= ka) {
        w = EN(RW_REC_HIST_TARGET);
        goto out;
    }
    if (tname) {
        char tn[PT_NAME];
        rwp_tok_copy(&ts, tname, tn, sizeof tn);
        if (kb != ka + 1 || !rwl_tok_is(&ts, ka, tn) || rwp_mentions(&ts, a1, b1, tn)) {
            w = EN(RW_REC_HIST_NOT_ATOMIC);
            goto out;
        }
        ka = ta;
        kb = tb;
    }
    if (!rwp_mentions(&ts, ka, kb, s.idx[0].name)) {
        w = EN(RW_REC_HIST_BIN_CONST);
        goto out;
    }
    for (size_t k = ka; k < kb; k++)
        if (rwp_tok_ident(&ts, k) && !rwp_param_named(f, &ts, k) && !rwl_tok_is(&ts, k, s.idx[0].name) &&
            !(k > 0 && rwl_tok_is(&ts, k - 1, ".")) && !(k + 1 < kb && rwl_tok_is(&ts, k + 1, "(")) &&
            !rwp_is_type_word(&ts, k)) {
            bool tunable = false;
            for (size_t i = 0; i < m->n_tunables && !tunable; i++)
                tunable = rwl_tok_is(&ts, k, m->tunables[i].name);
            if (!tunable) {
                w = EN(RW_REC_HIST_BIN_LOCAL);
                goto out;
            }
        }
    if (rwp_has_side_effects(&ts, a1, b1) || rwp_mentions(&ts, a1, b1, h->name)) {
        w = EN(RW_REC_HIST_VALUE);
        goto out;
    }
    char t[PT_EXPR];
    rwp_pointee_type(h, t, sizeof t);
    const char *ty = rwp_scalar_type(t);
    if (!ty) {
        w = EN(RW_PH_COUNTER_TYPE);
        goto out;
    }
    if (!(bin = rwl_tok_text(&ts, ka, kb)) || !(val = rwl_tok_text(&ts, a1, b1))) {
        rc = HK_ENOMEM;
        goto out;
    }
    const char *it = s.idx[0].type;
    if (strncmp(it, "const ", 6) == 0)
        it += 6;
    if (!rwp_copy_fits(out->bin, sizeof out->bin, bin) || !rwp_copy_fits(out->value, sizeof out->value, val) ||
        !rwp_copy_fits(out->index, sizeof out->index, s.idx[0].name) ||
        !rwp_copy_fits(out->index_type, sizeof out->index_type, it) ||
        !rwp_copy_fits(out->bound, sizeof out->bound, s.idx[0].bound)) {
        w = EN(RW_REC_HIST_TOO_LONG);
        goto out;
    }
    snprintf(out->type, sizeof out->type, "%s", ty);
    out->hist = h;
    long nb = bins ? bins : infer_bins(m, f, &ts, ka, kb);
    out->guessed = nb == 0;
    out->given = bins != 0;
    out->bins = nb ? nb : 256;
    /* the byte path: the bin is exactly P[index], P a pointer to an 8-bit type */
    if (kb == ka + 4 && rwl_tok_is(&ts, ka + 1, "[") && rwl_tok_is(&ts, ka + 2, s.idx[0].name) &&
        rwl_tok_is(&ts, ka + 3, "]")) {
        const an_param *p = rwp_param_named(f, &ts, ka);
        if (p && p->pointer_depth == 1) {
            char bt[PT_EXPR];
            rwp_pointee_type(p, bt, sizeof bt);
            if (byte_type(bt)) {
                out->bytes = p;
                snprintf(out->byte_type, sizeof out->byte_type, "%s", bt);
            }
        }
    }
out:
    if (w && rc == HK_OK) {
        snprintf(why, why_size, "%s", w);
        out->hist = out->bytes = NULL;
    }
    hk_free(bin);
    hk_free(val);
    rwl_toks_free(&ts);
    return rc;
}

static const char *rows_lookup(const pt_rows *rw, const rw_toks *ts, size_t k)
{
    for (size_t i = 0; i < rw->n_names; i++)
        if (rwl_tok_is(ts, k, rw->names[i].name))
            return rw->names[i].canon;
    return NULL;
}

static bool rows_name(pt_rows *rw, const char *name, const char *canon)
{
    if (rw->n_names >= PT_ROW_NAMES)
        return false;
    snprintf(rw->names[rw->n_names].name, PT_NAME, "%s", name);
    snprintf(rw->names[rw->n_names].canon, PT_NAME, "%s", canon);
    rw->n_names++;
    return true;
}

/* Appends s to out[*n] (bounded). */
static void put(char *out, size_t size, size_t *n, const char *s, size_t l)
{
    if (*n + l + 1 >= size) {
        *n = size;   /* overflow: the canonical text cannot match anything */
        return;
    }
    memcpy(out + *n, s, l);
    *n += l;
    out[*n] = '\0';
}

/* The canonical text of tokens [a, b) with loop variable var (see above). */
static void rows_canon(const pt_rows *rw, size_t a, size_t b, const char *var, char *out, size_t size)
{
    const rw_toks *ts = rw->ts;
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = a; k < b && n < size; k++) {
        if (rwl_tok_is(ts, k, "(")) {
            size_t j = k + 1;
            while (j < b && (rwp_is_type_word(ts, j) || rwl_tok_is(ts, j, "const")))
                j++;
            if (j > k + 1 && rwl_tok_is(ts, j, ")")) {
                k = j;   /* cast */
                continue;
            }
        }
        if (rwp_tok_ident(ts, k) && rwl_tok_is(ts, k + 1, "[")) {
            size_t c = rwl_match_close(ts, k + 1);
            const char *alias = rows_lookup(rw, ts, k);
            const an_param *p = rwp_param_named(rw->f, ts, k);
            char inner[PT_EXPR];
            rwp_compact(ts, k + 2, c, inner, sizeof inner);
            const char *role = NULL;
            char at[PT_NAME + 1];
            if (c < b && alias && (strcmp(alias, "X") == 0 || strcmp(alias, "Y") == 0) &&
                strcmp(inner, var) == 0)
                role = alias;
            else if (c < b && p && (p == rw->in || p == rw->out) &&
                     rwp_is_rowmajor(inner, rw->row->name, rw->cols_c, var))
                role = p == rw->in ? "X" : "Y";
            else if (c < b && p && p->pointer_depth == 1 && strcmp(inner, var) == 0) {
                snprintf(at, sizeof at, "@%s", p->name);
                role = at;
            }
            if (role) {
                put(out, size, &n, role, strlen(role));
                k = c;
                continue;
            }
        }
        const char *t = ts->text + ts->t[k].start;
        size_t l = ts->t[k].end - ts->t[k].start;
        const char *canon = rows_lookup(rw, ts, k);
        if (rwp_tok_ident(ts, k) && rwl_tok_is(ts, k, var))
            put(out, size, &n, "c", 1);
        else if (rwp_tok_ident(ts, k) && strcmp(rw->cols_c, "") != 0 && rwl_tok_is(ts, k, rw->cols_c))
            put(out, size, &n, "N", 1);
        else if (rwp_tok_ident(ts, k) && canon)
            put(out, size, &n, canon, strlen(canon));
        else
            put(out, size, &n, t, l);
    }
    if (n >= size)
        out[0] = '\0';
}

const char *rwp_read_rows(pt_rows *rw, const pt_shape *s)
{
    const rw_toks *ts = rw->ts;
    const an_function *f = rw->f;
    if (s->n_idx != 1 || s->idx[0].axis != 'x')
        return EN(RW_REC_ROWS_NOT_1D);
    if (s->pre_b > s->pre_a)
        return EN(RW_RECOG_STMTS_BEFORE_CHECK);
    rw->row = &s->idx[0];
    size_t k = s->body_a;
    while (k < s->body_b) {
        size_t e = rwl_stmt_end(ts, k, s->body_b);
        if (rw->n_st >= PT_ROW_STMTS)
            return EN(RW_REC_ROWS_MORE_STMTS);
        size_t i = rw->n_st++;
        rw->st[i].a = k;
        rw->st[i].b = e;
        if (rwl_tok_is(ts, k, "for")) {
            /* for (int c = 0; c < COLS; c++) */
            size_t c = rwl_match_close(ts, k + 1), q = k + 2;
            while (q < c && rwp_is_type_word(ts, q))
                q++;
            char var[PT_NAME];
            rwp_tok_copy(ts, q, var, sizeof var);
            if (c >= e || q == k + 2 || !rwp_tok_ident(ts, q) || !rwl_tok_is(ts, q + 1, "=") ||
                !rwl_tok_is(ts, q + 2, "0") || !rwl_tok_is(ts, q + 3, ";") || !rwl_tok_is(ts, q + 4, var) ||
                !rwl_tok_is(ts, q + 5, "<"))
                return EN(RW_REC_ROWS_LOOP_FORM);
            size_t semi = q + 6;
            while (semi < c && !rwl_tok_is(ts, semi, ";"))
                semi++;
            char bound[PT_EXPR], step[PT_EXPR], want1[PT_NAME + 4], want2[PT_NAME + 4], want3[PT_NAME + 8];
            rwp_compact(ts, q + 6, semi, bound, sizeof bound);
            rwp_compact(ts, semi + 1, c, step, sizeof step);
            snprintf(want1, sizeof want1, "%s++", var);
            snprintf(want2, sizeof want2, "++%s", var);
            snprintf(want3, sizeof want3, "%s+=1", var);
            if (semi >= c || (strcmp(step, want1) != 0 && strcmp(step, want2) != 0 && strcmp(step, want3) != 0))
                return EN(RW_REC_ROWS_LOOP_STEP);
            if (!*rw->cols_c) {
                char *bt = rwl_tok_text(ts, q + 6, semi);
                if (!bt)
                    return hk_strerror(HK_ENOMEM);
                snprintf(rw->cols, sizeof rw->cols, "%s", bt);
                hk_free(bt);
                snprintf(rw->cols_c, sizeof rw->cols_c, "%s", bound);
            } else if (strcmp(rw->cols_c, bound) != 0) {
                return EN(RW_REC_ROWS_BOUNDS_DIFFER);
            }
            size_t ba = c + 1, bb = e;
            if (rwl_tok_is(ts, ba, "{") && rwl_match_close(ts, ba) == bb - 1) {
                ba++;
                bb--;
            }
            rw->st[i].kind = 'l';
            rw->st[i].ba = ba;
            rw->st[i].bb = bb;
            snprintf(rw->st[i].var, sizeof rw->st[i].var, "%s", var);
            for (size_t j = ba; j < bb; j++)
                if (rwl_tok_is(ts, j, "for") || rwl_tok_is(ts, j, "while") || rwl_tok_is(ts, j, "return") ||
                    rwl_tok_is(ts, j, "__syncthreads"))
                    return EN(RW_REC_ROWS_LOOP_NESTED);
        } else if (rwl_tok_is(ts, e - 1, ";") && (rwl_tok_is(ts, k, "const") || rwp_is_type_word(ts, k))) {
            rw->st[i].kind = 'd';
        } else {
            rw->st[i].kind = 'u';
        }
        k = e;
    }
    if (!*rw->cols_c)
        return EN(RW_REC_ROWS_NO_LOOP);
    /* row pointers: [const] float *x = P + r * cols; (or &P[r * cols]) */
    for (size_t i = 0; i < rw->n_st; i++) {
        size_t a = rw->st[i].a, b = rw->st[i].b;
        if (rw->st[i].kind != 'd')
            continue;
        size_t q = a;
        while (q < b && (rwl_tok_is(ts, q, "const") || rwp_is_type_word(ts, q)))
            q++;
        if (!rwl_tok_is(ts, q, "*"))
            continue;
        const an_param *p = NULL;
        char c[PT_EXPR], want[4][3 * PT_EXPR];
        if (rwp_tok_ident(ts, q + 1) && rwl_tok_is(ts, q + 2, "=")) {
            rwp_compact(ts, q + 3, b - 1, c, sizeof c);
            for (size_t j = 0; j < f->n_params && !p; j++) {
                const an_param *pp = &f->params[j];
                if (pp->pointer_depth != 1 || !pp->name)
                    continue;
                snprintf(want[0], sizeof want[0], "%s+%s*%s", pp->name, rw->row->name, rw->cols_c);
                snprintf(want[1], sizeof want[1], "%s+%s*%s", pp->name, rw->cols_c, rw->row->name);
                snprintf(want[2], sizeof want[2], "&%s[%s*%s]", pp->name, rw->row->name, rw->cols_c);
                snprintf(want[3], sizeof want[3], "&%s[%s*%s]", pp->name, rw->cols_c, rw->row->name);
                for (int w = 0; w < 4; w++)
                    if (strcmp(c, want[w]) == 0)
                        p = pp;
            }
        }
        if (!p)
            return EN(RW_REC_ROWS_POINTER);
        char nm[PT_NAME];
        rwp_tok_copy(ts, q + 1, nm, sizeof nm);
        /* which role it has is decided below, once input and output are known */
        if (!rows_name(rw, nm, p->name))
            return EN(RW_REC_ROWS_TOO_MANY_NAMES);
        rw->st[i].kind = 'p';
    }
    /* the output: the pointer written in the last loop; the input: read in the first */
    size_t last = rw->n_st, first = rw->n_st;
    for (size_t i = 0; i < rw->n_st; i++)
        if (rw->st[i].kind == 'l') {
            if (first == rw->n_st)
                first = i;
            last = i;
        }
    size_t wa = rw->st[last].ba;
    char base[PT_NAME];
    rwp_tok_copy(ts, wa, base, sizeof base);
    const char *aliased = rows_lookup(rw, ts, wa);
    rw->out = rwp_param_by_name(f, aliased ? aliased : base);
    if (!rw->out || !rwl_tok_is(ts, wa + 1, "["))
        return EN(RW_REC_ROWS_LAST_WRITE);
    for (size_t j = rw->st[first].ba; j < rw->st[first].bb && !rw->in; j++) {
        if (!rwp_tok_ident(ts, j) || !rwl_tok_is(ts, j + 1, "["))
            continue;
        char nm[PT_NAME];
        rwp_tok_copy(ts, j, nm, sizeof nm);
        const char *al = rows_lookup(rw, ts, j);
        const an_param *p = rwp_param_by_name(f, al ? al : nm);
        if (p && p != rw->out)
            rw->in = p;
    }
    if (!rw->in)
        return EN(RW_REC_ROWS_FIRST_READ);
    /* aliases of in/out become X/Y; other aliases make the pattern unknown */
    for (size_t i = 0; i < rw->n_names; i++) {
        if (strcmp(rw->names[i].canon, rw->in->name) == 0)
            snprintf(rw->names[i].canon, PT_NAME, "X");
        else if (strcmp(rw->names[i].canon, rw->out->name) == 0)
            snprintf(rw->names[i].canon, PT_NAME, "Y");
        else
            return EN(RW_REC_ROWS_THIRD_MATRIX);
    }
    char t[PT_EXPR];
    rwp_pointee_type(rw->in, t, sizeof t);
    if (strcmp(t, "float") != 0)
        return EN(RW_REC_ROWS_INPUT_FLOAT);
    rwp_pointee_type(rw->out, t, sizeof t);
    if (strcmp(t, "float") != 0)
        return EN(RW_REC_ROWS_OUTPUT_FLOAT);
    return NULL;
}

bool rwp_rows_decl(pt_rows *rw, size_t i, const char *canon, char *init, size_t size)
{
    const rw_toks *ts = rw->ts;
    size_t a = rw->st[i].a, b = rw->st[i].b;
    if (rw->st[i].kind != 'd' || !rwl_tok_is(ts, a, "float") || !rwp_tok_ident(ts, a + 1) || !rwl_tok_is(ts, a + 2, "="))
        return false;
    char nm[PT_NAME];
    rwp_tok_copy(ts, a + 1, nm, sizeof nm);
    if (!rows_name(rw, nm, canon))
        return false;
    rows_canon(rw, a + 3, b - 1, "", init, size);
    return true;
}

void rwp_rows_stmt(const pt_rows *rw, size_t i, char *out, size_t size)
{
    if (rw->st[i].kind == 'l')
        rows_canon(rw, rw->st[i].ba, rw->st[i].bb, rw->st[i].var, out, size);
    else
        rows_canon(rw, rw->st[i].a, rw->st[i].b, "", out, size);
}

void rwp_rows_canon(const pt_rows *rw, size_t i, size_t a, size_t b, char *out, size_t size)
{
    rows_canon(rw, a, b, rw->st[i].kind == 'l' ? rw->st[i].var : "", out, size);
}

bool rwp_one_of(const char *s, const char *const *set)
{
    for (size_t i = 0; set[i]; i++)
        if (strcmp(s, set[i]) == 0)
            return true;
    return false;
}

static bool is_zero_literal(const rw_toks *ts, size_t a, size_t b)
{
    return b == a + 1 &&
           (rwl_tok_is(ts, a, "0") || rwl_tok_is(ts, a, "0.0f") || rwl_tok_is(ts, a, "0.f") || rwl_tok_is(ts, a, "0.0") ||
            rwl_tok_is(ts, a, "0."));
}

static const an_param *loop_operand(const an_function *f, const rw_toks *ts, size_t k, const pt_alias *al,
                                    size_t n_al, const pt_alias **which)
{
    *which = NULL;
    for (size_t i = 0; i < n_al; i++)
        if (rwl_tok_is(ts, k, al[i].name)) {
            *which = &al[i];
            return al[i].p;
        }
    return rwp_param_named(f, ts, k);
}

/* The k loop's header `for (int kk = 0; kk < K; kk++)` of the statement [k, e): g's kv and
 * kb, *close the header's `)`. NULL, or the reason. */
static const char *gemm_k_header(const rw_toks *ts, size_t k, size_t e, pt_gemm_loop *g, size_t *close)
{
    size_t q = k + 2;
    while (q < e && rwp_is_type_word(ts, q))
        q++;
    rwp_tok_copy(ts, q, g->kv, sizeof g->kv);
    size_t cl = *close = rwl_tok_is(ts, k, "for") ? rwl_match_close(ts, k + 1) : ts->n;
    if (cl >= e || q == k + 2 || !rwl_tok_is(ts, q + 1, "=") || !rwl_tok_is(ts, q + 2, "0") ||
        !rwl_tok_is(ts, q + 3, ";") || !rwl_tok_is(ts, q + 4, g->kv) || !rwl_tok_is(ts, q + 5, "<"))
        return EN(RW_REC_MM_NO_K_LOOP);
    size_t semi = q + 6;
    while (semi < cl && !rwl_tok_is(ts, semi, ";"))
        semi++;
    char step[PT_EXPR], want[PT_NAME + 8], want2[PT_NAME + 8];
    rwp_compact(ts, semi + 1, cl, step, sizeof step);
    snprintf(want, sizeof want, "%s++", g->kv);
    snprintf(want2, sizeof want2, "++%s", g->kv);
    if (semi >= cl || (strcmp(step, want) != 0 && strcmp(step, want2) != 0) || rwp_has_side_effects(ts, q + 6, semi))
        return EN(RW_REC_MM_K_STEP);
    char *kb = rwl_tok_text(ts, q + 6, semi);
    if (!kb)
        return hk_strerror(HK_ENOMEM);
    bool fits = strlen(kb) < sizeof g->kb;
    snprintf(g->kb, sizeof g->kb, "%s", kb);
    hk_free(kb);
    if (!fits)
        return EN(RW_REC_MM_K_BOUND_LONG);
    return NULL;
}

/* Is token q a uniform factor of the k loop's product: a number, or a scalar parameter
 * that nothing in ts writes? Appended to scale (joined by " * ") when it is and fits. */
static bool gemm_scale_factor(const an_function *f, const rw_toks *ts, size_t q, char *scale, size_t size)
{
    if (q >= ts->n)
        return false;
    if (ts->t[q].kind != T_NUMBER) {
        const an_param *p = rwp_param_named(f, ts, q);
        if (!p || p->pointer_depth != 0 || rwl_written_elsewhere(ts, q, q))
            return false;
    }
    size_t l = strlen(scale);
    int w = snprintf(scale + l, size - l, "%s%.*s", l ? " * " : "", (int)(ts->t[q].end - ts->t[q].start),
                     ts->text + ts->t[q].start);
    return w >= 0 && (size_t)w < size - l;
}

const char *rwp_match_gemm_loop(const an_function *f, const rw_toks *ts, size_t a, size_t end,
                                   const pt_alias *al, size_t n_al, bool scaled, pt_gemm_loop *g)
{
    memset(g, 0, sizeof *g);
    /* T acc = 0; */
    size_t k = a, e = rwl_stmt_end(ts, k, end);
    if (!(rwl_tok_is(ts, k, "float") || rwl_tok_is(ts, k, "double")) || !rwp_tok_ident(ts, k + 1) ||
        !rwl_tok_is(ts, k + 2, "=") || !rwl_tok_is(ts, e - 1, ";") || !is_zero_literal(ts, k + 3, e - 1))
        return EN(RW_REC_MM_NO_ACC);
    rwp_tok_copy(ts, k, g->t, sizeof g->t);
    rwp_tok_copy(ts, k + 1, g->acc, sizeof g->acc);
    /* for (int kk = 0; kk < K; kk++) acc += A[row * LDA + kk] * B[kk * LDB + col]; */
    k = e;
    e = rwl_stmt_end(ts, k, end);
    size_t cl;
    const char *why = gemm_k_header(ts, k, e, g, &cl);
    if (why)
        return why;
    size_t ba = cl + 1, bb = e;
    if (rwl_tok_is(ts, ba, "{") && rwl_match_close(ts, ba) == bb - 1) {
        ba++;
        bb--;
    }
    /* acc += P1[...] * P2[...]; (or acc = acc + ..., or acc = fmaf(P1[...], P2[...], acc);
     * the fused form rounds once where the others round twice: a tolerance's difference,
     * as the reassociation of any tiling is) */
    size_t p1 = ts->n;
    bool fused = false;
    if (rwl_tok_is(ts, ba, g->acc) && rwl_tok_is(ts, ba + 1, "+="))
        p1 = ba + 2;
    else if (rwl_tok_is(ts, ba, g->acc) && rwl_tok_is(ts, ba + 1, "=") && rwl_tok_is(ts, ba + 2, g->acc) &&
             rwl_tok_is(ts, ba + 3, "+"))
        p1 = ba + 4;
    else if (rwl_tok_is(ts, ba, g->acc) && rwl_tok_is(ts, ba + 1, "=") &&
             (rwl_tok_is(ts, ba + 2, "fmaf") || rwl_tok_is(ts, ba + 2, "fma") || rwl_tok_is(ts, ba + 2, "__fmaf_rn")) &&
             rwl_tok_is(ts, ba + 3, "(")) {
        p1 = ba + 4;
        fused = true;
    }
    /* scaled: uniform factors before the first read (`acc += alpha * A[...] * B[...]`) */
    while (scaled && !fused && p1 + 1 < bb && rwl_tok_is(ts, p1 + 1, "*") &&
           gemm_scale_factor(f, ts, p1, g->scale, sizeof g->scale))
        p1 += 2;
    g->pa = p1 < bb ? loop_operand(f, ts, p1, al, n_al, &g->aa) : NULL;
    size_t c1 = g->pa && rwl_tok_is(ts, p1 + 1, "[") ? rwl_match_close(ts, p1 + 1) : ts->n, c2 = ts->n;
    if (c1 < bb && rwl_tok_is(ts, c1 + 1, fused ? "," : "*") &&
        (g->pb = loop_operand(f, ts, c1 + 2, al, n_al, &g->ab)) && rwl_tok_is(ts, c1 + 3, "["))
        c2 = rwl_match_close(ts, c1 + 3);
    /* scaled: uniform factors after the second read (`... * B[...] * alpha`) */
    size_t bclose = c2;
    while (scaled && !fused && c2 + 2 < bb && rwl_tok_is(ts, c2 + 1, "*") &&
           gemm_scale_factor(f, ts, c2 + 2, g->scale, sizeof g->scale))
        c2 += 2;
    /* the fused form's tail: `, acc)` before the `;` */
    size_t tail = fused ? 3 : 0;
    if (fused && c2 < bb &&
        !(rwl_tok_is(ts, c2 + 1, ",") && rwl_tok_is(ts, c2 + 2, g->acc) && rwl_tok_is(ts, c2 + 3, ")")))
        c2 = ts->n;
    if (!g->pa || !g->pb || c2 >= ts->n || c2 + 2 + tail != bb || !rwl_tok_is(ts, c2 + 1 + tail, ";"))
        return EN(RW_REC_MM_K_BODY);
    rwp_compact(ts, p1 + 2, c1, g->ia, sizeof g->ia);
    rwp_compact(ts, c1 + 4, bclose, g->ib, sizeof g->ib);
    g->end = e;
    return NULL;
}

/* An element C[I] of a pointer parameter at token k of [k, e): the token after its `]`,
 * or ts->n. */
static size_t param_element(const an_function *f, const rw_toks *ts, size_t k, size_t e, const an_param **p)
{
    *p = rwp_param_named(f, ts, k);
    if (!*p || (*p)->pointer_depth != 1 || !rwl_tok_is(ts, k + 1, "["))
        return ts->n;
    size_t c = rwl_match_close(ts, k + 1);
    return c < e ? c + 1 : ts->n;
}

const char *rwp_match_gemm_mem_loop(const an_function *f, const rw_toks *ts, size_t a, size_t end,
                                    pt_gemm_loop *g, pt_gemm_mem *mm)
{
    memset(g, 0, sizeof *g);
    memset(mm, 0, sizeof *mm);
    size_t k = a, e = rwl_stmt_end(ts, k, end);
    char pre[PT_EXPR] = "", lhs[PT_EXPR];
    const an_param *pc = NULL, *pp;
    mm->pre_a = mm->pre_b = a;
    if (!rwl_tok_is(ts, k, "for")) {
        /* C[I] *= S; */
        size_t c = param_element(f, ts, k, e, &pc);
        if (c >= e || !rwl_tok_is(ts, c, "*=") || !rwl_tok_is(ts, e - 1, ";") || c + 1 >= e - 1 ||
            rwp_has_side_effects(ts, c + 1, e - 1))
            return EN(RW_REC_MM_MEM_BODY);
        rwp_compact(ts, k, c, pre, sizeof pre);
        mm->pre_a = k;
        mm->pre_b = e;
        k = e;
        e = rwl_stmt_end(ts, k, end);
    }
    size_t cl;
    const char *why = gemm_k_header(ts, k, e, g, &cl);
    if (why)
        return why;
    size_t ba = cl + 1, bb = e;
    if (rwl_tok_is(ts, ba, "{") && rwl_match_close(ts, ba) == bb - 1) {
        ba++;
        bb--;
    }
    /* C[I] += F * A[...] * B[...]; with I free of the k index, C the array scaled before */
    size_t c = param_element(f, ts, ba, bb, &pp);
    if (c >= bb || !rwl_tok_is(ts, c, "+=") || !rwl_tok_is(ts, bb - 1, ";") || (pc && pc != pp))
        return EN(RW_REC_MM_MEM_BODY);
    rwp_compact(ts, ba, c, lhs, sizeof lhs);
    if ((pre[0] && strcmp(pre, lhs) != 0) || rwp_names(lhs, g->kv) || rwp_has_side_effects(ts, ba, c))
        return EN(RW_REC_MM_MEM_BODY);
    pc = pp;
    mm->lhs_a = ba;
    mm->lhs_b = c;
    /* the factors: two reads of other pointer parameters, the rest single names or numbers
     * (not the k index) */
    size_t q = c + 1, n_ops = 0, sl = 0;
    for (;;) {
        size_t fe;
        const an_param *po;
        if ((fe = param_element(f, ts, q, bb - 1, &po)) < bb) {
            if (n_ops == 2 || po == pc)
                return EN(RW_REC_MM_MEM_BODY);
            char *ix = n_ops == 0 ? g->ia : g->ib;
            rwp_compact(ts, q + 2, fe - 1, ix, PT_EXPR);
            if (n_ops++ == 0)
                g->pa = po;
            else
                g->pb = po;
        } else {
            const an_param *ps = rwp_param_named(f, ts, q);
            fe = q + 1;
            if (q >= bb - 1 || (ps && ps->pointer_depth) || rwl_tok_is(ts, q, g->kv) ||
                !(rwp_tok_ident(ts, q) || ts->t[q].kind == T_NUMBER) ||
                rwl_tok_is(ts, fe, "(") || rwl_tok_is(ts, fe, "["))
                return EN(RW_REC_MM_MEM_BODY);
            int w = snprintf(mm->scale + sl, sizeof mm->scale - sl, "%s%.*s", sl ? " * " : "",
                             (int)(ts->t[q].end - ts->t[q].start), ts->text + ts->t[q].start);
            if (w < 0 || (size_t)w >= sizeof mm->scale - sl)
                return EN(RW_REC_MM_MEM_BODY);
            sl += (size_t)w;
        }
        if (fe == bb - 1)
            break;
        if (!rwl_tok_is(ts, fe, "*"))
            return EN(RW_REC_MM_MEM_BODY);
        q = fe + 1;
    }
    if (n_ops != 2)
        return EN(RW_REC_MM_MEM_BODY);
    rwp_pointee_type(pc, g->t, sizeof g->t);
    if (strcmp(g->t, "float") != 0 && strcmp(g->t, "double") != 0)
        return EN(RW_REC_MM_MEM_BODY);
    g->end = e;
    return NULL;
}

/* Splits compact c at sep ('+' or '*') outside brackets into at most max parts; 0 when
 * there are more, or an empty part. */
static size_t split_top(const char *c, char sep, char (*out)[PT_EXPR], size_t max)
{
    size_t n = 0, l = 0;
    int depth = 0;
    for (const char *p = c;; p++) {
        if (*p == '(' || *p == '[')
            depth++;
        else if (*p == ')' || *p == ']')
            depth--;
        if (*p == '\0' || (depth == 0 && *p == sep)) {
            if (n == max || l == 0)
                return 0;
            out[n][l] = '\0';
            n++;
            l = 0;
            if (*p == '\0')
                return n;
            continue;
        }
        if (l + 1 >= PT_EXPR || n == max)
            return 0;
        out[n][l++] = *p;
    }
}

/* Does compact c hold, outside brackets, an operator that binds looser than '*' or is not
 * a plain product/sum ('-', '/', '%', shifts, comparisons, '?', bit operators)? Such a
 * term is not read by split_top's product rule. */
static bool has_loose_op(const char *c)
{
    int depth = 0;
    for (const char *p = c; *p; p++) {
        if (*p == '(' || *p == '[')
            depth++;
        else if (*p == ')' || *p == ']')
            depth--;
        else if (depth == 0 && strchr("-/%<>?&|^=!,", *p))
            return true;
    }
    return false;
}

bool rwp_names(const char *c, const char *name)
{
    size_t nl = strlen(name);
    for (const char *p = c; *p;) {
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *w = p;
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
            if ((size_t)(p - w) == nl && memcmp(w, name, nl) == 0 && !(w > c && w[-1] == '.'))
                return true;
        } else if (isdigit((unsigned char)*p)) {
            while (isalnum((unsigned char)*p) || *p == '.')
                p++;
        } else {
            p++;
        }
    }
    return false;
}

/* Reads compact c as the sum over vars of coef[i] * vars[i]: each var the factor of one
 * term, the other factors of that term its coefficient ("1" when alone), no other terms.
 * The last var may be absent when last_optional (coefficient "0"). Coefficients never
 * name a var. */
static bool affine_in(const char *c, const char *const *vars, size_t nv, bool last_optional,
                      char (*coef)[PT_EXPR])
{
    char terms[4][PT_EXPR], fac[8][PT_EXPR];
    size_t nt = split_top(c, '+', terms, 4);
    if (nt == 0 || nv > 4)
        return false;
    bool seen[4] = {false, false, false, false};
    for (size_t t = 0; t < nt; t++) {
        if (has_loose_op(terms[t]))
            return false;
        size_t nf = split_top(terms[t], '*', fac, 8);
        size_t hit = nv, at = nf;
        for (size_t f = 0; f < nf; f++)
            for (size_t v = 0; v < nv; v++)
                if (strcmp(fac[f], vars[v]) == 0) {
                    if (hit != nv)
                        return false;   /* two vars in one term: not affine */
                    hit = v;
                    at = f;
                }
        if (hit == nv || seen[hit])
            return false;
        seen[hit] = true;
        size_t l = 0;
        coef[hit][0] = '\0';
        for (size_t f = 0; f < nf; f++) {
            if (f == at)
                continue;
            for (size_t v = 0; v < nv; v++)
                if (rwp_names(fac[f], vars[v]))
                    return false;
            int w = snprintf(coef[hit] + l, PT_EXPR - l, "%s%s", l ? "*" : "", fac[f]);
            if (w < 0 || (size_t)w >= PT_EXPR - l)
                return false;
            l += (size_t)w;
        }
        if (l == 0)
            snprintf(coef[hit], PT_EXPR, "1");
    }
    for (size_t v = 0; v < nv; v++)
        if (!seen[v]) {
            if (!(last_optional && v == nv - 1))
                return false;
            snprintf(coef[v], PT_EXPR, "0");
        }
    return true;
}

/* Copies s into a field of RWP_EXPR bytes; false when it does not fit. */
static bool put_field(char *dst, const char *s)
{
    size_t l = strlen(s);
    if (l >= RWP_EXPR)
        return false;
    memcpy(dst, s, l + 1);
    return true;
}

/* One operand's row-major index: idx (compact, read through alias al or not) must be
 * sum(coef * vars) with unit stride on unit_var; the coefficient of ld_var goes to ld and
 * (batched: bvar non-NULL) the batch stride to stride. */
static bool operand_index(const char *idx, const pt_alias *al, const char *ld_var, const char *unit_var,
                          const char *bvar, char *ld, char *stride)
{
    char coef[3][PT_EXPR];
    const char *vars[3] = {ld_var, unit_var, bvar};
    if (!ld_var) {
        vars[0] = unit_var;
        vars[1] = bvar;
    }
    size_t nv = (ld_var ? 2 : 1);
    bool batch_in_index = bvar && !al;
    if (!affine_in(idx, vars, nv + (batch_in_index ? 1 : 0), batch_in_index, coef))
        return false;
    if (strcmp(coef[ld_var ? 1 : 0], "1") != 0)
        return false;
    if (ld_var && !put_field(ld, coef[0]))
        return false;
    if (!bvar)
        return !al || al->off[0] == '\0';
    if (batch_in_index)
        return put_field(stride, coef[nv]);
    /* through a local `T *a = P + b * STRIDE;` */
    char c2[1][PT_EXPR];
    const char *bv[1] = {bvar};
    return affine_in(al->off, bv, 1, false, c2) && put_field(stride, c2[0]);
}

int rwp_match_blas(const char *text, size_t len, const an_model *m, size_t kernel, rwp_blas *out, char *why,
                   size_t why_size)
{
    memset(out, 0, sizeof *out);
    if (why_size)
        why[0] = '\0';
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (!why || why_size == 0)
        return HK_EINVAL;
    rw_toks ts = {0};
    pt_shape s;
    pt_alias al[PT_MAX_ALIASES];
    size_t n_al = 0;
    const char *w = NULL;
    if ((rc = rwp_lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG) {
            rc = HK_OK;
            w = EN(RW_REC_MM_BODY_TOO_BIG);
        }
        goto out;
    }
    if ((w = read_shape_ex(&ts, &s, true)))
        goto out;
    const pt_index *icol = rwp_shape_axis(&s, 'x'), *irow = rwp_shape_axis(&s, 'y'), *ib = rwp_shape_axis(&s, 'z');
    if (s.n_idx == 1 && icol) {
        out->kind = RWP_BLAS_GEMV;
        irow = icol;   /* one thread per row of y */
        icol = NULL;
    } else if (s.n_idx == 2 && icol && irow) {
        out->kind = RWP_BLAS_GEMM;
    } else if (s.n_idx == 3 && icol && irow && ib) {
        out->kind = RWP_BLAS_GEMM_BATCHED;
    } else {
        w = EN(RW_REC_MM_INDICES);
        goto out;
    }
    if (s.pre_b > s.pre_a) {
        w = EN(RW_RECOG_STMTS_BEFORE_CHECK2);
        goto out;
    }
    /* batched: `[const] T *a = P + OFFSET;` locals at the top of the guarded body */
    size_t k = s.body_a;
    while (out->kind == RWP_BLAS_GEMM_BATCHED && k < s.body_b) {
        size_t e = rwl_stmt_end(&ts, k, s.body_b), q = k;
        if (rwl_tok_is(&ts, q, "const"))
            q++;
        if (!(rwl_tok_is(&ts, q, "float") || rwl_tok_is(&ts, q, "double")) || !rwl_tok_is(&ts, q + 1, "*"))
            break;
        q += 2;
        if (rwl_tok_is(&ts, q, "__restrict__"))
            q++;
        const an_param *p = rwp_param_named(f, &ts, q + 2);
        if (!rwp_tok_ident(&ts, q) || !rwl_tok_is(&ts, q + 1, "=") || !p || p->pointer_depth != 1 ||
            !rwl_tok_is(&ts, q + 3, "+") || !rwl_tok_is(&ts, e - 1, ";") || q + 4 >= e - 1 ||
            rwp_has_side_effects(&ts, q + 4, e - 1)) {
            w = EN(RW_REC_MM_STMT_BEFORE_ACC);
            goto out;
        }
        if (n_al == PT_MAX_ALIASES) {
            w = EN(RW_REC_MM_TOO_MANY_LOCALS);
            goto out;
        }
        pt_alias *a = &al[n_al++];
        rwp_tok_copy(&ts, q, a->name, sizeof a->name);
        a->p = p;
        rwp_compact(&ts, q + 4, e - 1, a->off, sizeof a->off);
        k = e;
    }
    pt_gemm_loop g;
    if ((w = rwp_match_gemm_loop(f, &ts, k, s.body_b, al, n_al, false, &g)))
        goto out;
    const char *row = irow->name, *col = icol ? icol->name : NULL, *bv = ib ? ib->name : NULL;
    /* which operand is A: the one read along the row */
    const an_param *pa = g.pa, *pb = g.pb;
    const pt_alias *aa = g.aa, *ab = g.ab;
    const char *ia = g.ia, *ibx = g.ib;
    char stride_tmp[RWP_EXPR];
    if (!operand_index(ia, aa, row, g.kv, bv, out->lda, out->stride_a)) {
        pa = g.pb, pb = g.pa, aa = g.ab, ab = g.aa, ia = g.ib, ibx = g.ia;
        if (!operand_index(ia, aa, row, g.kv, bv, out->lda, out->stride_a)) {
            w = out->kind == RWP_BLAS_GEMV ? EN(RW_REC_MM_A_ROW_J)
                                           : EN(RW_REC_MM_A_ROW_K);
            goto out;
        }
    }
    if (out->kind == RWP_BLAS_GEMV) {
        if (!operand_index(ibx, ab, NULL, g.kv, NULL, NULL, stride_tmp)) {
            w = EN(RW_REC_MM_X_UNIT);
            goto out;
        }
    } else if (!operand_index(ibx, ab, g.kv, col, bv, out->ldb, out->stride_b)) {
        w = EN(RW_REC_MM_B_ROW);
        goto out;
    }
    /* the epilogue: exactly one statement, C[row * ldc + col] = [alpha *] acc [+ beta * C[same]]; */
    size_t ea = g.end, eb = s.body_b;
    const pt_alias *ac = NULL;
    const an_param *pc = ea < eb ? loop_operand(f, &ts, ea, al, n_al, &ac) : NULL;
    size_t cb = pc && rwl_tok_is(&ts, ea + 1, "[") ? rwl_match_close(&ts, ea + 1) : ts.n;
    if (ea >= eb || rwl_stmt_end(&ts, ea, eb) != eb || !pc || cb >= eb || !rwl_tok_is(&ts, cb + 1, "=") ||
        !rwl_tok_is(&ts, eb - 1, ";") || cb + 2 >= eb - 1) {
        w = EN(RW_REC_MM_ONE_STORE);
        goto out;
    }
    if (pc == pa || pc == pb || pc->pointer_depth != 1 || pc->is_const) {
        w = EN(RW_REC_MM_THIRD_POINTER);
        goto out;
    }
    if (rwp_has_side_effects(&ts, cb + 2, eb - 1)) {
        w = EN(RW_REC_MM_STORE_SIDE_EFFECT);
        goto out;
    }
    char lhs[PT_EXPR], idx[PT_EXPR], rhs[PT_EXPR];
    rwp_compact(&ts, ea, cb + 1, lhs, sizeof lhs);
    rwp_compact(&ts, ea + 2, cb, idx, sizeof idx);
    rwp_compact(&ts, cb + 2, eb - 1, rhs, sizeof rhs);
    if (out->kind == RWP_BLAS_GEMV) {
        if (!operand_index(idx, ac, NULL, row, NULL, NULL, stride_tmp)) {
            w = EN(RW_REC_MM_Y_ROW);
            goto out;
        }
    } else if (!operand_index(idx, ac, row, col, bv, out->ldc, out->stride_c) ||
               (bv && strcmp(out->stride_c, "0") == 0)) {
        w = EN(RW_REC_MM_C_ROW);
        goto out;
    }
    /* rhs: terms alpha*acc and optionally beta*C[same] */
    char terms[2][PT_EXPR], fac[8][PT_EXPR];
    size_t nt = split_top(rhs, '+', terms, 2);
    bool have_alpha = false, have_beta = false;
    snprintf(out->beta, sizeof out->beta, "0");
    for (size_t t = 0; t < nt; t++) {
        size_t nf = has_loose_op(terms[t]) ? 0 : split_top(terms[t], '*', fac, 8);
        size_t at = nf;
        bool is_beta = false;
        for (size_t i = 0; i < nf; i++) {
            bool a = strcmp(fac[i], g.acc) == 0, b = strcmp(fac[i], lhs) == 0;
            if ((a || b) && at != nf) {
                at = nf + 1;   /* two of them in one term */
                break;
            }
            if (a || b) {
                at = i;
                is_beta = b;
            }
        }
        if (at >= nf || (is_beta ? have_beta : have_alpha)) {
            nt = 0;
            break;
        }
        char sc[PT_EXPR] = "";
        size_t l = 0;
        for (size_t i = 0; i < nf; i++) {
            if (i == at)
                continue;
            if (rwp_names(fac[i], g.acc) || rwp_names(fac[i], pc->name) || strchr(fac[i], '[') ||
                (ac && rwp_names(fac[i], ac->name))) {
                nt = 0;
                break;
            }
            int wr = snprintf(sc + l, sizeof sc - l, "%s%s", l ? "*" : "", fac[i]);
            if (wr < 0 || (size_t)wr >= sizeof sc - l) {
                nt = 0;
                break;
            }
            l += (size_t)wr;
        }
        if (nt == 0 || !put_field(is_beta ? out->beta : out->alpha, l ? sc : "1")) {
            nt = 0;
            break;
        }
        *(is_beta ? &have_beta : &have_alpha) = true;
    }
    if (nt == 0 || !have_alpha) {
        w = out->kind == RWP_BLAS_GEMV ? EN(RW_REC_MM_STORE_GEMV)
                                       : EN(RW_REC_MM_STORE_GEMM);
        goto out;
    }
    /* element types: the caller decides which it substitutes, but A, B and C must agree */
    char ta[PT_EXPR], tb[PT_EXPR], tc[PT_EXPR];
    rwp_pointee_type(pa, ta, sizeof ta);
    rwp_pointee_type(pb, tb, sizeof tb);
    rwp_pointee_type(pc, tc, sizeof tc);
    if (strcmp(ta, g.t) || strcmp(tb, g.t) || strcmp(tc, g.t)) {
        w = EN(RW_REC_MM_ELEM_TYPE);
        goto out;
    }
    out->a = pa;
    out->b = pb;
    out->c = pc;
    if (!put_field(out->type, g.t) || !put_field(out->m, irow->bound) ||
        !put_field(out->n, out->kind == RWP_BLAS_GEMV ? g.kb : icol->bound) ||
        !put_field(out->k, out->kind == RWP_BLAS_GEMV ? "" : g.kb) || !put_field(out->batch, ib ? ib->bound : "")) {
        w = EN(RW_REC_MM_SIZE_TOO_LONG);
        goto out;
    }
out:
    rwl_toks_free(&ts);
    if (rc == HK_OK && w) {
        if (strcmp(w, hk_strerror(HK_ENOMEM)) == 0)
            rc = HK_ENOMEM;
        snprintf(why, why_size, "%s", w);
        out->a = out->b = out->c = NULL;
    }
    return rc;
}

/* ------------------------------------------------------------------ the index, by the kernel model */

/* Is token q the name [name, name + l)? */
static bool tok_named(const rw_toks *ts, size_t q, const char *name, size_t l)
{
    return ts->t[q].end - ts->t[q].start == l && memcmp(ts->text + ts->t[q].start, name, l) == 0;
}

/* Do the type words [a, b) name a type too narrow for a block's or grid's index? */
static bool narrow_type(const rw_toks *ts, size_t a, size_t b)
{
    static const char *const narrow[] = {"short", "char", "bool", "float", "double", "int8_t",
                                         "uint8_t", "int16_t", "uint16_t"};
    for (size_t w = a; w < b; w++)
        for (size_t i = 0; i < HK_ARRAY_LEN(narrow); i++)
            if (rwl_tok_is_ident(ts, w, narrow[i]))
                return true;
    return false;
}

/* Is a local the tokens [a, b) name, declared in the body tokens before `before`, or one
 * its initializer names (depth levels down), of a type too narrow for an index? */
static bool narrow_operands(const rw_toks *ts, size_t a, size_t b, size_t before, int depth)
{
    for (size_t u = a; u < b && depth > 0; u++) {
        if (ts->t[u].kind != T_IDENT || (u > 0 && (rwl_tok_is(ts, u - 1, ".") || rwl_tok_is(ts, u - 1, "->") || rwl_tok_is(ts, u - 1, "::"))))
            continue;
        for (size_t q = 1; q < before; q++) {
            if (!tok_named(ts, q, ts->text + ts->t[u].start, ts->t[u].end - ts->t[u].start) ||
                !rwp_declared_at(ts, q, 0))
                continue;
            if (narrow_type(ts, q > 2 ? q - 2 : 0, q))
                return true;
            if (rwl_tok_is(ts, q + 1, "=")) {
                size_t e = q + 2;
                int nest = 0;   /* the declaration ends at its ';' or ',' (not a call's) */
                for (; e < before && !rwl_tok_is(ts, e, ";") && !(nest == 0 && rwl_tok_is(ts, e, ",")); e++)
                    nest += rwl_tok_is(ts, e, "(") - rwl_tok_is(ts, e, ")");
                if (narrow_operands(ts, q + 2, e, q, depth - 1))
                    return true;
            }
        }
    }
    return false;
}

/* Is f exactly blockDim.x * gridDim.x (a grid-stride loop's step along x)? */
static bool model_grid_step(const km_kernel *km, km_form f)
{
    uint32_t bd, gd;
    if (!km_builtin_atom(km, KM_ATOM_BLOCK_DIM, 0, &bd) || !km_builtin_atom(km, KM_ATOM_GRID_DIM, 0, &gd) ||
        f.n != 1 || f.t[0].coef != 1 || f.t[0].n != 2)
        return false;
    return (f.t[0].atoms[0] == bd && f.t[0].atoms[1] == gd) || (f.t[0].atoms[0] == gd && f.t[0].atoms[1] == bd);
}

/* Does term t hold exactly the atoms want[0..n) (coefficient 1)? */
static bool term_is(const km_term *t, const uint32_t *want, uint32_t n)
{
    if (t->coef != 1 || t->n != n)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        bool seen = false;
        for (uint32_t j = 0; j < n && !seen; j++)
            seen = t->atoms[j] == want[i];
        if (!seen)
            return false;
    }
    return true;
}

/* Is f the thread's linear index over a 2-D grid of 1-D blocks, blockDim.x * (gridDim.x *
 * blockIdx.y + blockIdx.x) + threadIdx.x (rodinia's spelling for more blocks than one
 * grid row holds)? */
static bool form_is_grid_linear(const km_kernel *km, km_form f)
{
    uint32_t bd, bx, by, gd, tx;
    if (f.n != 3 || !km_builtin_atom(km, KM_ATOM_BLOCK_DIM, 0, &bd) ||
        !km_builtin_atom(km, KM_ATOM_BLOCK_IDX, 0, &bx) || !km_builtin_atom(km, KM_ATOM_BLOCK_IDX, 1, &by) ||
        !km_builtin_atom(km, KM_ATOM_GRID_DIM, 0, &gd) || !km_builtin_atom(km, KM_ATOM_THREAD_IDX, 0, &tx))
        return false;
    const uint32_t row[] = {bd, bx}, plane[] = {bd, gd, by}, lane[] = {tx};
    bool has_row = false, has_plane = false, has_lane = false;
    for (uint32_t i = 0; i < 3; i++) {
        has_row |= term_is(&f.t[i], row, 2);
        has_plane |= term_is(&f.t[i], plane, 3);
        has_lane |= term_is(&f.t[i], lane, 1);
    }
    return has_row && has_plane && has_lane;
}

/* The kernel model's reading of the name declared at token k (rwp_model_index_decl). */
static bool model_index(const km_kernel *km, const rw_toks *ts, size_t k, bool in_for, bool *grid_y)
{
    if (!km)
        return false;
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(ts->t[k].end - ts->t[k].start), ts->text + ts->t[k].start);
    uint32_t line = 1;
    for (uint32_t q = 0; q < ts->t[k].start; q++)
        line += ts->text[q] == '\n';
    if (in_for) {
        size_t n;
        const km_loop *lp = km_loops(km, &n);
        for (size_t i = 0; i < n; i++)
            if (lp[i].line == line && lp[i].var && strcmp(lp[i].var, name) == 0)
                return lp[i].kind == KM_LOOP_GRID_STRIDE && km_form_is_global_index(km, lp[i].start, 0) &&
                       model_grid_step(km, lp[i].step);
        return false;
    }
    size_t n;
    const km_local *lc = km_locals(km, &n);
    for (size_t i = 0; i < n; i++) {
        if (lc[i].line != line || strcmp(lc[i].name, name) != 0 || lc[i].kind != KM_LOCAL_VALUE)
            continue;
        if (km_form_is_global_index(km, lc[i].form, 0))
            return true;
        return grid_y && (*grid_y = form_is_grid_linear(km, lc[i].form));
    }
    return false;
}

bool rwp_model_index_decl(const km_kernel *km, const rw_toks *ts, size_t tstart, size_t name, size_t init_b,
                          bool in_for, bool *grid_y)
{
    if (grid_y)
        *grid_y = false;
    /* the model ignores declared types: an index, or a temporary it is computed from, too
     * narrow for a block index is not one */
    if (narrow_type(ts, tstart, name) || narrow_operands(ts, name + 2, init_b, tstart, 4))
        return false;
    return model_index(km, ts, name, in_for, grid_y);
}

/* A new variable of the per-element code (starting at token lo) rather than an update of
 * one declared outside it with the same name (invariant_table's fill block declares the
 * locals it copies in). */
bool rwp_declared_at(const rw_toks *ts, size_t k, size_t lo)
{
    static const char *const not_types[] = {"return", "case", "else", "do", "goto", "sizeof"};
    if (k <= lo)
        return false;
    size_t p = k - 1;
    if ((rwl_tok_is(ts, p, "*") || rwl_tok_is(ts, p, "&")) && p > lo)
        p--;
    if (ts->t[p].kind == T_IDENT) {
        for (size_t i = 0; i < HK_ARRAY_LEN(not_types); i++)
            if (rwl_tok_is_ident(ts, p, not_types[i]))
                return false;
        return true;
    }
    if (!rwl_tok_is(ts, k - 1, ","))
        return false;
    /* the statement holding k starts with `[const] T name` */
    size_t q = k - 1;
    int depth = 0;
    while (q > lo) {
        if (rwl_tok_is(ts, q - 1, ")") || rwl_tok_is(ts, q - 1, "]"))
            depth++;
        else if (rwl_tok_is(ts, q - 1, "(") || rwl_tok_is(ts, q - 1, "["))
            depth--;
        if (depth < 0 || (depth == 0 && (rwl_tok_is(ts, q - 1, ";") || rwl_tok_is(ts, q - 1, "{") ||
                                         rwl_tok_is(ts, q - 1, "}"))))
            break;
        q--;
    }
    if (depth < 0)
        return false;   /* inside a call's arguments */
    if (rwl_tok_is_ident(ts, q, "const"))
        q++;
    return ts->t[q].kind == T_IDENT && (ts->t[q + 1].kind == T_IDENT || rwl_tok_is(ts, q + 1, "*")) &&
           !rwl_tok_is_ident(ts, q, "return");
}

/* Does the name at k (in the per-element code starting at token a) refer to a local of
 * the body's top level declared before the region, not to one the per-element code
 * declares itself, nor to one of an inner block before it (invariant_table's fill block
 * declares a j of its own)? */
static bool outer_visible(const rw_toks *ts, size_t k, size_t a, size_t region)
{
    const char *name = ts->text + ts->t[k].start;
    size_t l = ts->t[k].end - ts->t[k].start;
    for (size_t q = a; q < k; q++)
        if (tok_named(ts, q, name, l) && rwp_declared_at(ts, q, a))
            return false;
    int depth = 0;
    for (size_t q = 0; q < region; q++) {
        depth += rwl_tok_is(ts, q, "{") - rwl_tok_is(ts, q, "}");
        if (depth == 1 && tok_named(ts, q, name, l) && rwp_declared_at(ts, q, 0))
            return true;
    }
    return false;
}

const char *rwp_thread_coordinate_problem(const rw_toks *ts, size_t a, size_t b, const km_kernel *km,
                                          size_t region, const char *idx)
{
    static const char *const coords[] = {"threadIdx", "blockIdx", "hipThreadIdx_x", "hipBlockIdx_x"};
    size_t n_loc = 0;
    const km_local *loc = km ? km_locals(km, &n_loc) : NULL;
    unsigned region_line = 1;
    for (uint32_t q = 0; q < ts->t[region].start; q++)
        region_line += ts->text[q] == '\n';
    for (size_t k = a; k < b; k++) {
        bool member = k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->") ||
                                rwl_tok_is(ts, k - 1, "::"));
        if (ts->t[k].kind != T_IDENT || member || rwl_tok_is_ident(ts, k, idx))
            continue;
        for (size_t w = 0; w < HK_ARRAY_LEN(coords); w++)
            if (rwl_tok_is_ident(ts, k, coords[w]))
                return EN(RW_REC_PER_ELEM_THREADIDX);
        for (size_t i = 0; i < n_loc; i++)
            if (loc[i].line < region_line && loc[i].kind == KM_LOCAL_VALUE &&
                rwl_tok_is_ident(ts, k, loc[i].name) &&
                (km_form_mentions_kind(km, loc[i].form, KM_ATOM_THREAD_IDX, -1) ||
                 km_form_mentions_kind(km, loc[i].form, KM_ATOM_BLOCK_IDX, -1)) &&
                outer_visible(ts, k, a, region))
                return EN(RW_REC_PER_ELEM_LOCAL);
    }
    return NULL;
}

/* ---- sizes only the launch gives ---- */

/* Is loop L one of the loops around access w? */
static bool encloses(const km_access *w, long L)
{
    for (uint32_t i = 0; w && i < w->n_loops; i++)
        if ((long)w->loops[i] == L)
            return true;
    return false;
}

/* rewrite_recognize.h. */
/* Is t blockIdx.a times the block extent the class's seen-through tiles need along a
 * (km_class tile_block)? *axis gets a. */
static bool tile_term(const km_atom *atoms, const km_term *t, const km_class *c, int *axis)
{
    for (uint32_t i = 0; i < t->n; i++) {
        const km_atom *b = &atoms[t->atoms[i]];
        if (b->kind != KM_ATOM_BLOCK_IDX || b->axis < 0 || b->axis > 2 || !c->tile_block[b->axis].known ||
            c->tile_block[b->axis].n != 1)
            continue;
        km_term rest = {.coef = t->coef};
        for (uint32_t j = 0; j < t->n; j++)
            if (j != i)
                rest.atoms[rest.n++] = t->atoms[j];
        if (km_term_equal(&rest, &c->tile_block[b->axis].t[0])) {
            *axis = b->axis;
            return true;
        }
    }
    return false;
}

bool rwp_launch_extent(const km_kernel *k, const km_class *c, const km_cform *I, const char *what, const char *grid,
                       const char *block, char *out, size_t n, char *why, size_t wn)
{
    size_t na, nl;
    const km_atom *atoms = km_atoms(k, &na);
    const km_loop *loops = km_loops(k, &nl);
    const km_access *w = km_output_map(k, c->out);
    int64_t cb = 0, ct = 0, r = 1;
    int axis = -1;
    bool ok = I->n > 0, counter = false;
    for (uint32_t i = 0; i < I->n && ok; i++) {
        const km_term *t = &I->t[i];
        const km_atom *a0 = t->n ? &atoms[t->atoms[0]] : NULL, *a1 = t->n == 2 ? &atoms[t->atoms[1]] : NULL;
        int ax = a0 ? a0->axis : -1;
        if (t->n == 2 && a0->axis == a1->axis &&
            ((a0->kind == KM_ATOM_BLOCK_IDX && a1->kind == KM_ATOM_BLOCK_DIM) ||
             (a0->kind == KM_ATOM_BLOCK_DIM && a1->kind == KM_ATOM_BLOCK_IDX)) && !cb) {
            cb = t->coef;
        } else if (c->tiles_seen && !cb && tile_term(atoms, t, c, &ax)) {
            cb = 1;   /* tile*blockIdx.a: blockDim.a is the tile, which the caller checks */
        } else if (t->n == 1 && a0->kind == KM_ATOM_THREAD_IDX && !ct) {
            ct = t->coef;
        } else if (t->n == 1 && a0->kind == KM_ATOM_LOOP && t->coef == 1 && !counter && a0->loop >= 0 &&
                   (size_t)a0->loop < nl && loops[a0->loop].kind == KM_LOOP_AFFINE &&
                   loops[a0->loop].start.n == 0 && km_form_value(k, loops[a0->loop].step, &r) && r == 1 &&
                   loops[a0->loop].has_trip && km_form_value(k, loops[a0->loop].trip, &r) && r > 0 &&
                   encloses(w, a0->loop)) {
            counter = true;
            ax = axis;
        } else {
            ok = false;
        }
        if (ok && axis >= 0 && ax != axis)
            ok = false;
        axis = ax;
    }
    if (!counter)
        r = 1;
    ok = ok && axis >= 0 && cb == r && ct == r;
    for (size_t i = 0; ok && i < nl; i++)
        ok = loops[i].kind != KM_LOOP_GRID_STRIDE;   /* its first element is all the class kept */
    if (!ok) {
        struct hk_buf b;
        hk_buf_init(&b, 200);
        if (km_form_print(k, km_cform_view(I), &b) || !b.data)
            hk_buf_free(&b);
        snprintf(why, wn, EN(RW_REC_SIZE_NOT_KNOWN), c->line, what, b.data ? b.data : "(too long)", what);
        hk_buf_free(&b);
        return false;
    }
    static const char xyz[] = "xyz";
    char rs[32] = "";
    if (r > 1)
        snprintf(rs, sizeof rs, " * %lld", (long long)r);
    int wr = snprintf(out, n, "(long long)%s.%c * %s.%c%s", grid, xyz[axis], block, xyz[axis], rs);
    return wr >= 0 && (size_t)wr < n;
}

/* Whether type (words separated by blanks, `const` allowed) names a builtin integer type or
 * a usual typedef of one (CUDA samples' uint, the <stdint.h> names). narrow: also the 8-bit
 * ones and bool. */
bool rwp_integer_type(const char *type, bool narrow)
{
    static const char *const words[] = {"signed", "unsigned", "int", "long", "short", "size_t", "ptrdiff_t",
                                        "uint", "ushort", "ulong", "int16_t", "int32_t", "int64_t",
                                        "uint16_t", "uint32_t", "uint64_t"}; /* i18n: not for people */
    static const char *const narrow_words[] = {"char", "bool", "int8_t", "uint8_t"}; /* i18n: not for people */
    bool base = false;
    for (const char *p = type; p && *p;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (!n)
            break;
        bool ok = n == 5 && !memcmp(p, "const", 5);
        base |= !ok;
        for (size_t i = 0; i < HK_ARRAY_LEN(words) && !ok; i++)
            ok = strlen(words[i]) == n && !memcmp(words[i], p, n);
        for (size_t i = 0; narrow && i < HK_ARRAY_LEN(narrow_words) && !ok; i++)
            ok = strlen(narrow_words[i]) == n && !memcmp(narrow_words[i], p, n);
        if (!ok)
            return false;
        p += n;
    }
    return base;
}

/* ---- a parameter that is the block size (rw_spec_block_x_param) ---- */

bool rw_spec_block_x_param(const struct spec *sp, const an_function *f, size_t pi, char *why, size_t n)
{
    const an_param *p = pi < f->n_params ? &f->params[pi] : NULL;
    if (why && n)
        why[0] = 0;
    /* the launch's block is an integer of at least 16 bits' worth: only a parameter of such a
     * type holds exactly what blockDim.x holds (a float block_size would round under / 2) */
    if (!p || p->pointer_depth || !rwp_integer_type(p->elem_type, false)) {
        if (why && p)
            snprintf(why, n, EN(RW_BLOCK_PARAM_NOT_INT), p->name, p->type ? p->type : "?");
        return false;
    }
    if (!sp || sp->form != SPEC_FORM_HARNESS || !sp->block[0]) {
        if (why)
            snprintf(why, n, EN(RW_BLOCK_PARAM_NO_SPEC), p->name);
        return false;
    }
    if (sp->n_args != f->n_params || pi >= sp->n_args || sp->args[pi].kind != HK_ARG_SCALAR ||
        !sp->args[pi].value) {
        if (why)
            snprintf(why, n, EN(RW_BLOCK_PARAM_NOT_ARG), p->name);
        return false;
    }
    /* every size set, and two SM counts (a value written with sm_count must not match the
     * block on one device only) */
    static const long long sms[] = {1, 132};
    for (size_t k = 0; k < sp->n_sizes; k++)
        for (size_t s = 0; s < HK_ARRAY_LEN(sms); s++) {
            expr_value b[3], v;
            bool ok = spec_eval(sp, sp->args[pi].value, k, sms[s], &v, NULL, 0) == HK_OK && !v.is_float;
            for (int d = 0; d < 3 && ok; d++) {
                b[d] = (expr_value){.i = 1};
                ok = !sp->block[d] || (spec_eval(sp, sp->block[d], k, sms[s], &b[d], NULL, 0) == HK_OK &&
                                       !b[d].is_float);
            }
            if (!ok) {
                if (why)
                    snprintf(why, n, EN(RW_BLOCK_PARAM_NO_VALUE), p->name, k);
                return false;
            }
            if (b[1].i != 1 || b[2].i != 1) {
                if (why)
                    snprintf(why, n, EN(RW_BLOCK_PARAM_2D), k, b[0].i, b[1].i, b[2].i);
                return false;
            }
            if (v.i != b[0].i) {
                if (why)
                    snprintf(why, n, EN(RW_BLOCK_PARAM_DIFFERS), p->name, v.i, b[0].i, k);
                return false;
            }
        }
    return true;
}

size_t rw_spec_block_x_params(const struct spec *sp, const an_function *f, const char **names, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; sp && i < f->n_params && n < cap; i++)
        if (rw_spec_block_x_param(sp, f, i, NULL, 0))
            names[n++] = f->params[i].name;
    return n;
}
