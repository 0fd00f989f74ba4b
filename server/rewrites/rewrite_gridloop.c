/* The grid-stride loop reader of split_topk_scan and window_lanes (rewrite_gridloop.h). */
#include "rewrites/rewrite_gridloop.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define refuse(s, k, ...) rwl_refuse((s)->why, sizeof (s)->why, (s)->ts, (s)->text, (k), __VA_ARGS__)
#define SPAN(ts, a, b) (int)((ts)->t[(b) - 1].end - (ts)->t[a].start), (ts)->text + (ts)->t[a].start
#define TOK(ts, k) (int)((ts)->t[k].end - (ts)->t[k].start), (ts)->text + (ts)->t[k].start

bool rwg_same_name(const rw_toks *ts, size_t a, size_t b)
{
    return ts->t[a].kind == T_IDENT && ts->t[b].kind == T_IDENT && rwl_same_tok(ts, a, b);
}

bool rwg_is_name(const rw_toks *ts, size_t k, size_t name)
{
    return rwl_is_use(ts, k) && rwg_same_name(ts, k, name);
}

/* The tokens [a, b) without spaces, into out. */
void rwg_compact(const rw_toks *ts, size_t a, size_t b, char *out, size_t n)
{
    size_t o = 0;
    for (size_t k = a; k < b; k++) {
        size_t l = ts->t[k].end - ts->t[k].start;
        if (o + l + 1 >= n) {
            o = 0;   /* too long to be one of the forms compared */
            break;
        }
        memcpy(out + o, ts->text + ts->t[k].start, l);
        o += l;
    }
    out[o] = '\0';
}

bool rwg_is_kw(const rw_toks *ts, size_t k)
{
    static const char *const kw[] = {"if", "for", "while", "switch", "return", "sizeof", "do", "else"};
    for (size_t i = 0; i < HK_ARRAY_LEN(kw); i++)
        if (rwl_tok_is_ident(ts, k, kw[i]))
            return true;
    return false;
}

/* Is token k inside a loop or switch that starts in [a, k)? (A break there is its own.) A
 * `continue` at k belongs to a loop only: one inside a switch continues the enclosing loop. */
bool rwg_in_inner_construct(const rw_toks *ts, size_t a, size_t b, size_t k)
{
    bool loops_only = rwl_tok_is(ts, k, "continue");
    for (size_t q = a; q < k && q < b; q++)
        if (rwl_tok_is(ts, q, "for") || rwl_tok_is(ts, q, "while") || rwl_tok_is(ts, q, "do") ||
            (!loops_only && rwl_tok_is(ts, q, "switch"))) {
            size_t e = rwl_stmt_end(ts, q, b);
            if (rwl_tok_is(ts, q, "do") && e < b && rwl_tok_is(ts, e, "while"))
                e = rwl_stmt_end(ts, e, b);
            if (k < e)
                return true;
        }
    return false;
}

/* One past the statement at s of the kernel body: a loop macro's call `M(args) { ... }`
 * ends at its closing brace. */
size_t rwg_stmt_end(const rw_toks *ts, size_t s, size_t end)
{
    if (ts->t[s].kind == T_IDENT && !rwg_is_kw(ts, s) && rwl_tok_is(ts, s + 1, "(")) {
        size_t c = rwl_match_close(ts, s + 1);
        if (c + 1 < end && rwl_tok_is(ts, c + 1, "{")) {
            size_t e = rwl_match_close(ts, c + 1);
            return e < end ? e + 1 : end;
        }
    }
    return rwl_stmt_end(ts, s, end);
}

/* Is the kernel parameter or body-declared name at k a local array (`float a[8];`)? */
bool rwg_local_array(const rw_toks *ts, size_t k)
{
    for (size_t q = 1; q + 1 < ts->n; q++)
        if (rwg_same_name(ts, q, k) && rwl_tok_is(ts, q + 1, "[") && rwl_declared_here(ts, q))
            return true;
    return false;
}

bool rwg_one_of(const char *c, const char *const *forms, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(c, forms[i]))
            return true;
    return false;
}

static const char *const starts[] = {
    "blockIdx.x*blockDim.x+threadIdx.x", "blockDim.x*blockIdx.x+threadIdx.x",
    "threadIdx.x+blockIdx.x*blockDim.x", "threadIdx.x+blockDim.x*blockIdx.x"};

bool rwg_global_x_index(const char *c)
{
    return rwg_one_of(c, starts, HK_ARRAY_LEN(starts));
}

/* Reads the header text h (`for (...)` alone) into L. */
static bool read_header(rwg_scan *s, const char *construct, size_t at, const char *h, rwg_header *L)
{
    rw_toks hs = {0};
    bool ok = false;
    int lrc = rwl_lex(h, 0, (uint32_t)strlen(h), &hs);
    if (lrc == HK_ENOMEM)
        s->oom = true;
    if (lrc != HK_OK || hs.n < 8 || !rwl_tok_is(&hs, 0, "for") ||
        !rwl_tok_is(&hs, 1, "(") || rwl_match_close(&hs, 1) != hs.n - 1) {
        refuse(s, at, construct, "%s", EN(RW_GL_NOT_FOR));
        goto out;
    }
    size_t s1 = 0, s2 = 0, eq = 0;
    for (size_t k = 2; k + 1 < hs.n; k++) {
        if (rwl_tok_is(&hs, k, "(") || rwl_tok_is(&hs, k, "[")) {
            k = rwl_match_close(&hs, k);
            continue;
        }
        if (rwl_tok_is(&hs, k, ";"))
            *(s1 ? &s2 : &s1) = k;
        if (!s1 && !eq && rwl_tok_is(&hs, k, "="))
            eq = k;
    }
    if (!s1 || !s2 || !eq || eq < 4 || hs.t[eq - 1].kind != T_IDENT) {
        refuse(s, at, construct, "%s", EN(RW_GL_HEADER_FORM));
        goto out;
    }
    char start[256], cond[300], step[256], var[64];
    rwg_compact(&hs, eq - 1, eq, var, sizeof var);
    rwg_compact(&hs, eq + 1, s1, start, sizeof start);
    rwg_compact(&hs, s1 + 1, s2, cond, sizeof cond);
    rwg_compact(&hs, s2 + 1, hs.n - 1, step, sizeof step);
    static const char *const strides[] = {"blockDim.x*gridDim.x", "gridDim.x*blockDim.x"};
    size_t vl = strlen(var);
    char sv[300];
    bool step_ok = false;
    if (!strncmp(step, var, vl) && !strncmp(step + vl, "+=", 2))
        step_ok = rwg_one_of(step + vl + 2, strides, HK_ARRAY_LEN(strides));
    snprintf(sv, sizeof sv, "%s=%s+", var, var);
    if (!strncmp(step, sv, strlen(sv)))
        step_ok = rwg_one_of(step + strlen(sv), strides, HK_ARRAY_LEN(strides));
    if (!rwg_global_x_index(start) || !step_ok) {
        refuse(s, at, construct, "%s", EN(RW_GL_NOT_GRID_X));
        goto out;
    }
    if (!(rwl_tok_is(&hs, s1 + 1, var) && rwl_tok_is(&hs, s1 + 2, "<") && s2 > s1 + 3)) {
        refuse(s, at, construct, EN(RW_GL_COND), var);
        goto out;
    }
    for (size_t k = s1 + 3; k < s2; k++)
        if (rwl_tok_is(&hs, k, var) || rwl_tok_is(&hs, k, "?") || rwl_tok_is(&hs, k, "&&") ||
            rwl_tok_is(&hs, k, "||") || rwl_tok_is(&hs, k, "[") || rwl_tok_is(&hs, k, "=")) {
            refuse(s, at, construct, "%s", EN(RW_GL_BOUND));
            goto out;
        }
    for (size_t k = 2; k + 1 < eq; k++)
        if (hs.t[k].kind != T_IDENT) {
            refuse(s, at, construct, "%s", EN(RW_UJ_PLAIN_INT));
            goto out;
        }
    snprintf(L->var, sizeof L->var, "%s", var);
    snprintf(L->type, sizeof L->type, "%.*s", (int)(hs.t[eq - 2].end - hs.t[2].start), h + hs.t[2].start);
    snprintf(L->bound, sizeof L->bound, "%.*s", (int)(hs.t[s2 - 1].end - hs.t[s1 + 3].start),
             h + hs.t[s1 + 3].start);
    ok = true;
out:
    rwl_toks_free(&hs);
    return ok;
}

/* The header a loop macro's call `M(a, b)` at tokens [k, close] expands to, as new text
 * (owned), or NULL when the file defines no such function-like macro. */
static char *expand_macro_header(rwg_scan *s, size_t k, size_t close)
{
    const rw_toks *ts = s->ts;
    char name[128];
    snprintf(name, sizeof name, "%.*s", TOK(ts, k));
    size_t at = 0, a, b, da = 0, db = 0;
    bool found = false;
    while (rwl_next_define(s->text, s->f->span.start_byte, &at, name, strlen(name), &a, &b))
        found = true, da = a, db = b;   /* the last before the kernel */
    if (!found || s->text[da + strlen(name)] != '(')
        return NULL;
    /* joined continuation lines */
    char *def = hk_malloc(db - da + 1);
    if (!def) {
        s->oom = true;
        return NULL;
    }
    size_t o = 0;
    for (size_t i = da; i < db; i++) {
        if (s->text[i] == '\\' && i + 1 < db && s->text[i + 1] == '\n') {
            def[o++] = ' ';
            i++;
            continue;
        }
        def[o++] = s->text[i];
    }
    def[o] = '\0';
    rw_toks ds = {0};
    char *res = NULL;
    int lrc = rwl_lex(def, 0, (uint32_t)o, &ds);
    if (lrc == HK_ENOMEM)
        s->oom = true;
    if (lrc != HK_OK || ds.n < 3)
        goto out;
    size_t pc = rwl_match_close(&ds, 1);
    if (pc >= ds.n)
        goto out;
    size_t params[8], np = 0;
    for (size_t q = 2; q < pc; q++)
        if (ds.t[q].kind == T_IDENT) {
            if (np == 8)
                goto out;
            params[np++] = q;
        } else if (!rwl_tok_is(&ds, q, ","))
            goto out;
    /* the call's arguments */
    size_t args_a[8], args_b[8], na = 0, st = k + 2;
    int depth = 0;
    for (size_t q = k + 2; q <= close; q++) {
        if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "["))
            depth++;
        else if ((rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]")) && q < close)
            depth--;
        if ((depth == 0 && rwl_tok_is(ts, q, ",")) || q == close) {
            if (na == 8 || q == st)
                goto out;
            args_a[na] = st;
            args_b[na++] = q;
            st = q + 1;
        }
    }
    if (na != np)
        goto out;
    struct hk_buf e;
    hk_buf_init(&e, 1 << 16);
    int rc = HK_OK;
    for (size_t q = pc + 1; q < ds.n && !rc; q++) {
        if (q > pc + 1 && ds.t[q].start > ds.t[q - 1].end)
            rc = hk_buf_printf(&e, " ");
        size_t p = 0;
        while (p < np && !(ds.t[q].kind == T_IDENT && rwl_same_tok(&ds, q, params[p])))
            p++;
        if (!rc && p < np)
            rc = hk_buf_printf(&e, "%.*s", SPAN(ts, args_a[p], args_b[p]));
        else if (!rc)
            rc = hk_buf_printf(&e, "%.*s", TOK(&ds, q));
    }
    if (!rc)
        res = hk_buf_steal(&e);
    if (!res)
        s->oom = true;   /* a macro's header is never empty: only the buffer fails */
    hk_buf_free(&e);
out:
    rwl_toks_free(&ds);
    hk_free(def);
    return res;
}

bool rwg_loop_at(const rw_toks *ts, size_t q, size_t end, bool *macro)
{
    *macro = ts->t[q].kind == T_IDENT && !rwg_is_kw(ts, q) && rwl_tok_is(ts, q + 1, "(") &&
             rwl_match_close(ts, q + 1) + 1 < end && rwl_tok_is(ts, rwl_match_close(ts, q + 1) + 1, "{");
    bool loop = rwl_tok_is(ts, q, "for") && rwl_tok_is(ts, q + 1, "(");
    return *macro || loop;
}

bool rwg_read_loop(rwg_scan *s, const char *construct, size_t q, size_t end, bool macro, rwg_header *hdr,
                   size_t *body_a, size_t *body_b)
{
    const rw_toks *ts = s->ts;
    size_t close = rwl_match_close(ts, q + 1);
    if (close + 1 >= end || !rwl_tok_is(ts, close + 1, "{"))
        return refuse(s, q, construct, "%s", EN(RW_GL_BODY_BRACED));
    char *h = macro ? expand_macro_header(s, q, close) : rwl_tok_text(ts, q, close + 1);
    if (!h && !macro)
        s->oom = true;
    if (!h && s->oom)
        return false;
    if (!h)
        return refuse(s, q, construct, EN(RW_GL_NOT_MACRO), TOK(ts, q));
    bool ok = read_header(s, construct, q, h, hdr);
    hk_free(h);
    if (!ok)
        return false;
    *body_a = close + 1;
    *body_b = rwl_match_close(ts, close + 1) + 1;
    if (*body_b > end)
        return refuse(s, q, construct, "%s", EN(RW_GL_BODY_OPEN));
    return true;
}

size_t rwg_first_store(const rw_toks *ts, size_t a, size_t b, bool *call)
{
    for (size_t k = a; k < b; k++) {
        /* a call `f(..)`, or `f<A>(..)` (not a cast) */
        bool cast = rwl_tok_is(ts, k, "static_cast") || rwl_tok_is(ts, k, "reinterpret_cast") ||
                    rwl_tok_is(ts, k, "const_cast");
        if (ts->t[k].kind == T_IDENT && rwl_call_paren(ts, k) && !rwg_is_kw(ts, k) && !rwl_pure_call_name(ts, k) &&
            !rwl_is_type_word(ts, k) && !cast) {
            *call = true;
            return k;
        }
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
            continue;
        bool sub = rwl_tok_is(ts, k + 1, "[");
        bool deref = k > a && rwl_tok_is(ts, k - 1, "*") && rwl_unary_position(ts, k - 1);
        if (!sub && !deref)
            continue;
        size_t e = sub ? rwl_match_close(ts, k + 1) + 1 : k + 1;
        while (e < b && rwl_tok_is(ts, e, "["))
            e = rwl_match_close(ts, e) + 1;
        bool w = (e < b && (rwl_tok_is_assign_op(ts, e) || rwl_tok_is(ts, e, "++") || rwl_tok_is(ts, e, "--"))) ||
                 (k > a && (rwl_tok_is(ts, k - (deref ? 2 : 1), "++") || rwl_tok_is(ts, k - (deref ? 2 : 1), "--")));
        if (w && !rwg_local_array(ts, k)) {
            *call = false;
            return k;
        }
    }
    return b;
}

bool rwg_counted_header(const rw_toks *ts, size_t q, size_t hc, bool allow_le, rwg_counted *c)
{
    size_t s1 = 0, s2 = 0, eq = 0;
    for (size_t k = q + 2; k < hc; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[")) {
            k = rwl_match_close(ts, k);
            continue;
        }
        if (rwl_tok_is(ts, k, ";"))
            *(s1 ? &s2 : &s1) = k;
        if (!s1 && !eq && rwl_tok_is(ts, k, "="))
            eq = k;
        if (!s1 && rwl_tok_is(ts, k, ","))
            return false;
    }
    if (!s1 || !s2 || !eq || eq < q + 4 || ts->t[eq - 1].kind != T_IDENT || !rwl_declared_here(ts, eq - 1))
        return false;
    for (size_t k = q + 2; k < eq - 1; k++)
        if (ts->t[k].kind != T_IDENT)
            return false;
    c->type_a = q + 2;
    c->type_b = eq - 1;
    c->var = eq - 1;
    c->a_a = eq + 1;
    c->a_b = s1;
    c->inclusive = allow_le && rwl_tok_is(ts, s1 + 2, "<=");
    if (!(s2 > s1 + 3 && rwg_is_name(ts, s1 + 1, c->var) && (rwl_tok_is(ts, s1 + 2, "<") || c->inclusive)))
        return false;
    c->b_a = s1 + 3;
    c->b_b = s2;
    bool step = (hc == s2 + 3 && ((rwl_tok_is(ts, s2 + 1, "++") && rwg_is_name(ts, s2 + 2, c->var)) ||
                                  (rwg_is_name(ts, s2 + 1, c->var) && rwl_tok_is(ts, s2 + 2, "++")))) ||
                (hc == s2 + 4 && rwg_is_name(ts, s2 + 1, c->var) && rwl_tok_is(ts, s2 + 2, "+=") &&
                 rwl_tok_is(ts, s2 + 3, "1"));
    return step && c->a_a < c->a_b;
}
