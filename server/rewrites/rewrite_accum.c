/* Register accumulators (rewrite_accum.h): a loop that sums into memory through a pointer
 * parameter sums into a register instead, added to memory once after the loop. */
#include "rewrites/rewrite_accum.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* A kernel written as `for (j ...) tmp[i] += A[i * n + j] * x[j];` (PolyBench's atax, bicg,
 * mvt, covariance) sums into memory: tmp[i] is loaded and stored on every iteration (the
 * compiler cannot keep it in a register while the loads through A and x might alias it).
 * Each such loop gets a register accumulator instead, summed into tmp[i] once after it:
 *   T hk_accK = 0; for (j ...) hk_accK += A[...] * x[j]; tmp[i] += hk_accK;
 * On its own that is the register_accumulators rewrite (thread-per-column kernels, whose
 * loads already coalesce); warp_rows runs it first and then reads the loop as an ordinary
 * sum reduction (thread-per-row kernels). It applies to a
 * pointer parameter P (non-const, of a scalar arithmetic element type) only when, inside an
 * innermost loop, every use of P is `P[I] += E;` or `P[I] -= E;` with one index I that
 * names nothing the loop changes and reads no memory, and the loop has no return or goto.
 * The sum is reassociated (tmp[i] + (a0 + a1 + ...) instead of ((tmp[i] + a0) + a1) ...),
 * as every reduction rewrite does; the referee's tolerance and fp64 rule judge the result. */
#define RA_MAX_ACCS 8
#define RA_INDEX 512

static const char *const acc_types[] = {"float", "double", "int", "unsigned", "unsigned int",
                                        "long", "long long", "unsigned long", "unsigned long long"}; /* i18n: not for people */

/* The element type of kernel pointer parameter `name` when it may get an accumulator. */
static const char *acc_type(const an_function *f, const rw_toks *ts, size_t k)
{
    for (size_t i = 0; i < f->n_params; i++) {
        const an_param *pa = &f->params[i];
        if (!pa->name || !rwl_tok_is(ts, k, pa->name))
            continue;
        if (pa->pointer_depth != 1 || pa->is_const || !pa->elem_type)
            return NULL;
        for (size_t t = 0; t < HK_ARRAY_LEN(acc_types); t++)
            if (!strcmp(pa->elem_type, acc_types[t]))
                return acc_types[t];
        return NULL;
    }
    return NULL;
}

/* Does the loop [a, b) (header and body) change the name at token k (an occurrence of it
 * that is written: assigned, incremented, decremented)? */
static bool loop_changes(const rw_toks *ts, size_t a, size_t b, size_t k)
{
    for (size_t q = a; q < b; q++)
        if (rwl_is_use(ts, q) && rwl_same_tok(ts, q, k) && rwl_scalar_written(ts, q))
            return true;
    return false;
}

typedef struct {
    size_t p;              /* a token naming the pointer */
    const char *type;
    size_t ia, ib;         /* its index I, inside the brackets */
    size_t ops[32];        /* each use's `P` token */
    size_t n_ops;
} ra_acc;

/* Checks loop [fa, fend) (fa the `for`, hc its header's `)`) for accumulations; adds the
 * pointers that qualify to accs. */
static void loop_accs(const rw_toks *ts, const an_function *f, size_t fa, size_t hc, size_t fend,
                      ra_acc *accs, size_t *n_accs)
{
    for (size_t k = hc + 1; k < fend; k++)
        if (rwl_tok_is(ts, k, "for") || rwl_tok_is(ts, k, "while") || rwl_tok_is(ts, k, "do") ||
            rwl_tok_is(ts, k, "return") || rwl_tok_is(ts, k, "goto"))
            return;   /* innermost loops without an early exit only */
    for (size_t k = hc + 1; k < fend; k++) {
        const char *type;
        if (!rwl_is_use(ts, k) || !(type = acc_type(f, ts, k)))
            continue;
        bool seen = false;
        for (size_t i = 0; i < *n_accs && !seen; i++)
            seen = rwl_same_tok(ts, accs[i].p, k);
        if (seen || *n_accs >= RA_MAX_ACCS)
            continue;
        /* every use of this pointer in the loop, header included */
        ra_acc a = {.p = k, .type = type};
        bool ok = true;
        char first[RA_INDEX] = "";
        for (size_t q = fa; q < fend && ok; q++) {
            if (!rwl_is_use(ts, q) || !rwl_same_tok(ts, q, k))
                continue;
            size_t c;
            ok = q > hc && rwl_tok_is(ts, q + 1, "[") && (c = rwl_match_close(ts, q + 1)) < fend &&
                 (rwl_tok_is(ts, c + 1, "+=") || rwl_tok_is(ts, c + 1, "-=")) &&
                 (q == hc + 1 || rwl_tok_is(ts, q - 1, ";") || rwl_tok_is(ts, q - 1, "{") ||
                  rwl_tok_is(ts, q - 1, "}") || rwl_tok_is(ts, q - 1, ")") || rwl_tok_is(ts, q - 1, "else")) &&
                 a.n_ops < HK_ARRAY_LEN(a.ops);
            if (!ok)
                break;
            char idx[RA_INDEX];
            rwl_compact_index(ts, q + 2, c, idx, sizeof idx);
            if (!a.n_ops) {
                snprintf(first, sizeof first, "%s", idx);
                a.ia = q + 2;
                a.ib = c;
            }
            ok = !strcmp(idx, first);
            /* I: names the loop does not change, no memory read, no call */
            for (size_t t = q + 2; t < c && ok; t++)
                ok = !rwl_tok_is(ts, t, "[") && !(rwl_is_use(ts, t) && rwl_tok_is(ts, t + 1, "(")) &&
                     !(rwl_is_use(ts, t) && loop_changes(ts, fa, fend, t));
            a.ops[a.n_ops++] = q;
        }
        if (ok && a.n_ops)
            accs[(*n_accs)++] = a;
    }
}

/* The body [a, b) of f's text with every qualifying accumulation moved into a register
 * (above). *out NULL when nothing qualified; else the new body text (hk_free) and what,
 * e.g. "`tmp[i]`". */
/* es (offsets into text) applied to f's body span alone: *out the new body (hk_free). */
static int apply_to_body(const char *text, const an_function *f, rw_edits *es, char **out)
{
    uint32_t a = f->body_span.start_byte, b = f->body_span.end_byte;
    for (size_t i = 0; i < es->n; i++) {
        es->e[i].start -= a;
        es->e[i].end -= a;
    }
    size_t n_out;
    return rwl_edits_apply(text + a, b - a, es, out, &n_out);
}

int rwa_accumulate_body(const char *text, const an_function *f, const rw_toks *ts, char **out,
                        char *what, size_t what_size)
{
    *out = NULL;
    what[0] = '\0';
    rw_edits es = {0};
    int rc = HK_OK;
    unsigned serial = 0;
    for (size_t k = 0; k < ts->n && !rc; k++) {
        if (!rwl_tok_is(ts, k, "for") || !rwl_tok_is(ts, k + 1, "("))
            continue;
        size_t hc = rwl_match_close(ts, k + 1);
        if (hc >= ts->n)
            break;
        size_t fend = rwl_stmt_end(ts, hc + 1, ts->n);
        ra_acc accs[RA_MAX_ACCS];
        size_t n = 0;
        loop_accs(ts, f, k, hc, fend, accs, &n);
        if (!n)
            continue;
        /* a loop that is a statement of a block takes declarations before it; one that is
         * the body of an if/else/loop gets braces */
        bool in_block = k == 0 || rwl_tok_is(ts, k - 1, "{") || rwl_tok_is(ts, k - 1, ";") ||
                        rwl_tok_is(ts, k - 1, "}");
        struct hk_buf before, after;
        hk_buf_init(&before, 256);
        hk_buf_init(&after, 256);
        /* the loop's own indentation, for the lines added around it */
        char ind[64];
        rwl_line_indent(text, ts->t[k].start, ind, sizeof ind);
        rc = hk_buf_appends(&before, in_block ? "" : "{ ");
        for (size_t i = 0; i < n && !rc; i++) {
            char *idx = rwl_tok_text(ts, accs[i].ia, accs[i].ib);
            char *ptr = rwl_tok_text(ts, accs[i].p, accs[i].p + 1);
            if (!idx || !ptr)
                rc = HK_ENOMEM;
            if (!rc)
                rc = hk_buf_printf(&before, "%s hk_acc%u = 0;%s%s", accs[i].type, serial, ind[0] ? "\n" : " ", ind);
            if (!rc)
                rc = hk_buf_printf(&after, "%s%s%s[%s] += hk_acc%u;", ind[0] ? "\n" : " ", ind, ptr, idx, serial);
            if (!rc && strlen(what) + strlen(ptr) + strlen(idx) + 8 < what_size)
                snprintf(what + strlen(what), what_size - strlen(what), "%s`%s[%s]`", what[0] ? ", " : "",
                         ptr, idx);
            char acc[32];
            snprintf(acc, sizeof acc, "hk_acc%u", serial++);
            for (size_t o = 0; o < accs[i].n_ops && !rc; o++) {   /* `P[I]` -> hk_accK */
                size_t q = accs[i].ops[o], c = rwl_match_close(ts, q + 1);
                rc = rwl_edits_add(&es, ts->t[q].start, ts->t[c].end, acc);
            }
            hk_free(idx);
            hk_free(ptr);
        }
        if (!rc && !in_block)
            rc = hk_buf_appends(&after, " }");
        if (!rc)
            rc = rwl_edits_add(&es, ts->t[k].start, ts->t[k].start, before.data);
        if (!rc)
            rc = rwl_edits_add(&es, ts->t[fend - 1].end, ts->t[fend - 1].end, after.data);
        hk_buf_free(&before);
        hk_buf_free(&after);
        k = fend - 1;
    }
    if (!rc && es.n)
        rc = apply_to_body(text, f, &es, out);
    rwl_edits_free(&es);
    return rc;
}


/* Is token k the variable of a for header `for (v = ...;` (k the v after the '(') whose
 * init has no top-level comma (`for (j = 0, k = 0; ...)` with `int` put before j would
 * declare a new k)? */
static bool loop_init_var(const rw_toks *ts, size_t k)
{
    if (!(k >= 2 && rwl_tok_is(ts, k - 1, "(") && rwl_tok_is(ts, k - 2, "for") && rwl_tok_is(ts, k + 1, "=")))
        return false;
    int depth = 0;
    for (size_t q = k + 2; q < ts->n; q++) {
        if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "{"))
            depth++;
        else if (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]") || rwl_tok_is(ts, q, "}"))
            depth--;
        else if (depth == 0 && rwl_tok_is(ts, q, ";"))
            return true;
        else if (depth == 0 && rwl_tok_is(ts, q, ","))
            return false;
        if (depth < 0)
            return false;
    }
    return false;
}

int rwa_loop_vars_body(const char *text, const an_function *f, const rw_toks *ts, char **out)
{
    *out = NULL;
    rw_edits es = {0};
    int rc = HK_OK;
    for (size_t k = 0; k < ts->n && !rc; k++) {
        /* a declaration statement: at the body's start or after ; { } */
        if (!(k == 0 || rwl_tok_is(ts, k - 1, ";") || rwl_tok_is(ts, k - 1, "{") || rwl_tok_is(ts, k - 1, "}")))
            continue;
        size_t q = k;
        while (q < ts->n && (rwl_is_type_word(ts, q) || rwl_tok_is(ts, q, "unsigned")))
            q++;
        if (q == k || q >= ts->n || ts->t[q].kind != T_IDENT || rwl_is_type_word(ts, q))
            continue;
        size_t end = rwl_stmt_end(ts, k, ts->n);
        if (end > ts->n || !rwl_tok_is(ts, end - 1, ";"))
            continue;
        /* names separated by commas, nothing else */
        size_t names[8], n_names = 0;
        bool plain = true;
        for (size_t t = q; t < end - 1 && plain; t += 2) {
            plain = ts->t[t].kind == T_IDENT && !rwl_is_type_word(ts, t) && n_names < 8 &&
                    (rwl_tok_is(ts, t + 1, ",") || t + 1 == end - 1);
            if (plain)
                names[n_names++] = t;
        }
        if (!plain || !n_names)
            continue;
        bool keep[8];
        size_t moved = 0;
        for (size_t i = 0; i < n_names; i++) {
            keep[i] = true;
            size_t v = names[i], loops = 0;
            bool ok = true;
            size_t inside_until = 0;   /* one past the for statement the scan is in */
            for (size_t u = end; u < ts->n && ok; u++) {
                if (u >= inside_until && loop_init_var(ts, u) && rwl_same_tok(ts, u, v)) {
                    size_t hc = rwl_match_close(ts, u - 1);
                    if (hc >= ts->n)
                        ok = false;
                    else
                        inside_until = rwl_stmt_end(ts, hc + 1, ts->n), loops++;
                    continue;
                }
                if (!rwl_same_tok(ts, u, v) || !rwl_is_use(ts, u))
                    continue;
                if (u >= inside_until)
                    ok = false;   /* used outside its loops: a value may be carried */
                else if (loop_init_var(ts, u))
                    ok = false;   /* a loop over it inside another */
            }
            /* a use before the declaration would be another variable's: not in one body */
            if (!ok || !loops)
                continue;
            keep[i] = false;
            moved++;
            char *type = rwl_tok_text(ts, k, q);
            if (!type) {
                rc = HK_ENOMEM;
                break;
            }
            for (size_t u = end; u < ts->n && !rc; u++)
                if (loop_init_var(ts, u) && rwl_same_tok(ts, u, v)) {
                    char *decl = hk_asprintf("%s ", type);
                    rc = decl ? rwl_edits_add_owned(&es, ts->t[u].start, ts->t[u].start, decl) : HK_ENOMEM;
                }
            hk_free(type);
        }
        if (rc || !moved)
            continue;
        if (moved == n_names) {
            rc = rwl_edits_add(&es, ts->t[k].start, ts->t[end - 1].end, "");
        } else {   /* the names left, in order */
            struct hk_buf nb;
            hk_buf_init(&nb, 1024);
            for (size_t i = 0; i < n_names && !rc; i++)
                if (keep[i])
                    rc = hk_buf_printf(&nb, "%s%.*s", nb.len ? ", " : "",
                                       (int)(ts->t[names[i]].end - ts->t[names[i]].start),
                                       text + ts->t[names[i]].start);
            if (!rc)
                rc = rwl_edits_add(&es, ts->t[q].start, ts->t[end - 2].end, nb.data);
            hk_buf_free(&nb);
        }
        k = end - 1;
    }
    if (!rc && es.n)
        rc = apply_to_body(text, f, &es, out);
    rwl_edits_free(&es);
    return rc;
}

int rw_register_accumulators(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    char *body = NULL, what[256];
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    if ((rc = rwa_accumulate_body(text, f, &ts, &body, what, sizeof what)))
        goto out;
    if (!body) {
        rc = rwl_not_applicable_to(out, "register accumulators", f->name, HK_MSG_RW_ACCUM_NONE);
        goto out;
    }
    char *desc = hk_asprintf(EN(RW_ACCUM_DESC), f->name, what);
    if (!desc) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwp_replace_body(text, len, m, f, body, desc, out);
out:
    hk_free(body);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */
static int emit_register_accumulators(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_register_accumulators(c->text, c->len, c->m, c->kernel, out);
}

const rw_descriptor rw_register_accumulators_desc = {
    .name = "register_accumulators",
    .summary = "a loop summing into memory (y[j] += ...) sums into a register, stored once", /* i18n: not for people (no listing reads it) */
    .emit = emit_register_accumulators,
};
