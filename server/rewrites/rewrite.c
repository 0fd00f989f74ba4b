/* Kernel rewrites for the built-in engine. A small C/CUDA token scanner (comments,
 * strings and preprocessor lines skipped) finds the exact places to edit inside the spans
 * the analysis model gives; edits are collected against the original text, applied in one
 * pass, and the result is re-analysed so a rewrite can never hand back broken code. */
#include "rewrites/rewrite.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

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

/* ------------------------------------------------------------------ tokens */

/* ------------------------------------------------------------------ edits */

/* ------------------------------------------------------------------ results */

void rw_result_free(rw_result *r)
{
    if (!r)
        return;
    hk_free(r->text);
    hk_free(r->description);
    memset(r, 0, sizeof *r);
}

int rw_result_adopt(rw_result *to, rw_result *from, char *desc)
{
    if (!desc)
        return HK_ENOMEM;
    hk_free(from->description);
    from->description = desc;
    rw_result_free(to);
    *to = *from;
    memset(from, 0, sizeof *from);
    return HK_OK;
}

/* ------------------------------------------------------------------ launch bounds */

int rw_launch_bounds(const char *text, size_t len, const an_model *m, size_t kernel,
                     int max_threads, int min_blocks, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (max_threads < 1 || max_threads > 1024 || min_blocks < 0 || min_blocks > 64)
        return HK_EINVAL;
    char want[64];
    if (min_blocks)
        snprintf(want, sizeof want, "__launch_bounds__(%d, %d)", max_threads, min_blocks);
    else
        snprintf(want, sizeof want, "__launch_bounds__(%d)", max_threads);

    rw_toks ts = {0};
    rw_edits es = {0};
    char *desc = NULL;
    if ((rc = rwl_lex(text, f->span.start_byte, f->body_span.start_byte, &ts)))
        goto out;
    size_t at = ts.n;
    for (size_t i = 0; i < ts.n; i++)
        if (rwl_tok_is_ident(&ts, i, "__launch_bounds__") && rwl_tok_is(&ts, i + 1, "(")) {
            at = i;
            break;
        }
    /* occupancy_regs' register cap (session 52): nvcc refuses a kernel that has both */
    for (size_t i = 0; i + 1 < ts.n; i++)
        if ((rwl_tok_is_ident(&ts, i, "__maxnreg__") || rwl_tok_is_ident(&ts, i, "maxnreg")) &&
            rwl_tok_is(&ts, i + 1, "(")) {
            rc = rwl_not_applicable(out, hk_asprintf(EN(RW_RW_LB_MAXNREG), f->name, rwl_line_at(text, ts.t[i].start)));
            goto out;
        }
    if (at < ts.n) {
        size_t close = rwl_match_close(&ts, at + 1);
        if (close >= ts.n) {
            rc = rwl_not_applicable(out, hk_strdup(EN(RW_RW_LB_UNBALANCED)));
            goto out;
        }
        uint32_t s = ts.t[at].start, e = ts.t[close].end;
        char *old = hk_strndup(text + s, e - s);
        if (!old) {
            rc = HK_ENOMEM;
            goto out;
        }
        if (strcmp(old, want) == 0) {
            hk_free(old);
            rc = rwl_not_applicable(out, hk_asprintf(EN(RW_RW_LB_ALREADY), f->name, want));
            goto out;
        }
        desc = hk_asprintf(EN(RW_RW_LB_REPLACE), old, want, f->name);
        hk_free(old);
        rc = rwl_edits_add(&es, s, e, want);
    } else {
        /* `__global__ void __launch_bounds__(N) name(...)`: right before the name */
        char *ins = hk_asprintf("%s ", want);
        desc = hk_asprintf(EN(RW_RW_LB_ADD), want, f->name);
        rc = rwl_edits_add_owned(&es, f->name_span.start_byte, f->name_span.start_byte, ins);
    }
    if (rc)
        goto out;
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    desc = NULL;
out:
    hk_free(desc);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ------------------------------------------------------------------ restrict / const */

/* moves_ok: a statement that only moves the pointer in place (rwl_pointer_move) writes the
 * pointer variable, not the memory: it does not count */
static bool written_in(const rw_toks *ts, const char *name, bool moves_ok)
{
    for (size_t k = 0; k < ts->n; k++) {
        if (!rwl_tok_is_ident(ts, k, name))
            continue;
        if (k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->") || rwl_tok_is(ts, k - 1, "::")))
            continue;   /* a member of something else that happens to share the name */
        if (moves_ok && rwl_pointer_move(ts, k))
            continue;
        if (rwl_occurrence_writes(ts, k))
            return true;
    }
    return false;
}

static bool param_written(const char *text, size_t len, const an_function *f, const char *name, bool moves_ok)
{
    if (!text || !f || !name || f->body_span.end_byte > len)
        return true;
    rw_toks ts = {0};
    bool w = true;
    if (rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts) == HK_OK)
        w = written_in(&ts, name, moves_ok);
    rwl_toks_free(&ts);
    return w;
}

bool rw_param_written(const char *text, size_t len, const an_function *f, const char *name)
{
    return param_written(text, len, f, name, false);
}

bool rw_param_pointee_written(const char *text, size_t len, const an_function *f, const char *name)
{
    return param_written(text, len, f, name, true);
}

bool rw_body_mentions(const char *text, size_t len, const an_function *f, const char *ident)
{
    if (!text || !f || !ident || f->body_span.end_byte > len)
        return false;
    rw_toks ts = {0};
    bool found = false;
    if (rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts) == HK_OK)
        for (size_t k = 0; k < ts.n && !found; k++)
            found = rwl_tok_is_ident(&ts, k, ident);
    rwl_toks_free(&ts);
    return found;
}

/* The launch sites of kernel name that pass one expression to two of the pointer params
 * listed in ptr (indices into f->params): reason in *why (new string) or NULL. */
static int find_alias(const an_model *m, const an_function *f, const size_t *ptr, size_t n_ptr,
                      char **why)
{
    *why = NULL;
    for (size_t a = 0; a < n_ptr; a++)
        for (size_t b = a + 1; b < n_ptr; b++) {
            const an_launch *la = rwl_launch_passing_twice(m, f, ptr[a], ptr[b]);
            if (la) {
                *why = hk_asprintf(EN(RW_RW_ALIAS),
                                   la->span.start_row + 1, la->args[ptr[a]],
                                   f->params[ptr[a]].name, f->params[ptr[b]].name);
                return *why ? HK_OK : HK_ENOMEM;
            }
        }
    return HK_OK;
}

/* Line (1-based) of another declaration of kernel f in the file -- a prototype
 * `... void name(...);` or an explicit instantiation `template ... void name<...>(...);` --
 * or 0. Adding const to a parameter would make the definition stop matching it. */
static int other_declaration_line(const char *text, size_t len, const an_function *f, int *line,
                                 int *rc)
{
    rw_toks ts = {0};
    *line = 0;
    *rc = rwl_lex(text, 0, (uint32_t)len, &ts);
    for (size_t i = 1; !*rc && i + 1 < ts.n && !*line; i++) {
        if (!rwl_tok_is_ident(&ts, i, f->name) || !(rwl_tok_is(&ts, i + 1, "(") || rwl_tok_is(&ts, i + 1, "<")))
            continue;
        if (ts.t[i].start >= f->span.start_byte && ts.t[i].start < f->span.end_byte)
            continue;
        size_t k = i - 1;
        if (rwl_tok_is(&ts, k, ")")) {   /* void __launch_bounds__(...) name( */
            while (k > 0 && !rwl_tok_is(&ts, k, "("))
                k--;
            if (k > 0 && rwl_tok_is_ident(&ts, k - 1, "__launch_bounds__"))
                k -= 2;
        }
        if (rwl_tok_is_ident(&ts, k, "void")) {
            int l = 1;
            for (uint32_t q = 0; q < ts.t[i].start; q++)
                l += text[q] == '\n';
            *line = l;
        }
    }
    rwl_toks_free(&ts);
    return *line;
}

int rw_restrict(const char *text, size_t len, const an_model *m, size_t kernel, bool add_const,
                rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks body = {0}, pt = {0};
    rw_edits es = {0};
    struct hk_buf rnames, cnames;
    hk_buf_init(&rnames, 4096);
    hk_buf_init(&cnames, 4096);
    size_t *ptr = NULL, n_ptr = 0;
    char *alias = NULL;
    if (!(ptr = hk_calloc(f->n_params + 1, sizeof *ptr))) {
        rc = HK_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < f->n_params; i++)
        if (f->params[i].pointer_depth >= 1)
            ptr[n_ptr++] = i;
    if (n_ptr == 0) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_RW_NO_POINTERS), f->name));
        goto out;
    }
    if ((rc = find_alias(m, f, ptr, n_ptr, &alias)))
        goto out;
    if (alias) {
        rc = rwl_not_applicable(out, alias);
        alias = NULL;
        goto out;
    }
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &body)))
        goto out;
    int decl_line = 0;
    if (add_const && other_declaration_line(text, len, f, &decl_line, &rc) && !rc)
        add_const = false;   /* restrict alone is a top-level qualifier: the types still match */
    if (rc)
        goto out;
    for (size_t k = 0; k < n_ptr; k++) {
        const an_param *p = &f->params[ptr[k]];
        if (!p->name || !*p->name || p->pointer_depth != 1 || p->span.end_byte > len)
            continue;
        rwl_toks_free(&pt);
        if ((rc = rwl_lex(text, p->span.start_byte, p->span.end_byte, &pt)))
            goto out;
        /* the name is the last identifier; a '*' must come before it (not `float x[]`) */
        size_t name_at = pt.n;
        for (size_t i = pt.n; i-- > 0;)
            if (rwl_tok_is_ident(&pt, i, p->name)) {
                name_at = i;
                break;
            }
        bool has_star = false;
        for (size_t i = 0; i < name_at; i++)
            if (rwl_tok_is(&pt, i, "*"))
                has_star = true;
        if (name_at >= pt.n || !has_star)
            continue;
        if (!p->is_restrict) {
            if ((rc = rwl_edits_add(&es, pt.t[name_at].start, pt.t[name_at].start, "__restrict__ ")))
                goto out;
            if ((rc = hk_buf_printf(&rnames, "%s%s", rnames.len ? ", " : "", p->name)))
                goto out;
        }
        if (add_const && !p->is_const && !written_in(&body, p->name, true)) {
            if ((rc = rwl_edits_add(&es, p->span.start_byte, p->span.start_byte, "const ")))
                goto out;
            if ((rc = hk_buf_printf(&cnames, "%s%s", cnames.len ? ", " : "", p->name)))
                goto out;
        }
    }
    if (es.n == 0) {
        rc = rwl_not_applicable(out, hk_asprintf(add_const ? EN(RW_RW_ALL_RESTRICT_CONST) : EN(RW_RW_ALL_RESTRICT),
                                                 f->name));
        goto out;
    }
    char *desc;
    if (decl_line && rnames.len)
        desc = hk_asprintf(EN(RW_RW_RESTRICT_NO_CONST), f->name, rnames.data, decl_line);
    else if (rnames.len && cnames.len)
        desc = hk_asprintf(EN(RW_RW_RESTRICT_CONST), f->name, rnames.data,
                           cnames.data);
    else if (rnames.len)
        desc = hk_asprintf(EN(RW_RW_RESTRICT), f->name, rnames.data);
    else
        desc = hk_asprintf(EN(RW_RW_CONST), f->name, cnames.data);
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
out:
    hk_free(alias);
    hk_free(ptr);
    hk_buf_free(&rnames);
    hk_buf_free(&cnames);
    rwl_edits_free(&es);
    rwl_toks_free(&body);
    rwl_toks_free(&pt);
    return rc;
}

/* ------------------------------------------------------------------ tunables */

static bool integer_literal(const char *v)
{
    if (!v || !*v || strlen(v) > 24)
        return false;
    const char *p = v;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        if (!isxdigit((unsigned char)*p))
            return false;
        while (isxdigit((unsigned char)*p))
            p++;
    } else {
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    while (*p == 'u' || *p == 'U' || *p == 'l' || *p == 'L')
        p++;
    return *p == '\0';
}

long rw_template_param_index(const char *params, const char *name)
{
    if (!params)
        return -1;
    rw_toks ts = {0};
    long idx = -1;
    if (rwl_lex(params, 0, (uint32_t)strlen(params), &ts) != HK_OK)
        goto out;
    size_t open = ts.n;
    for (size_t i = 0; i < ts.n; i++)
        if (rwl_tok_is(&ts, i, "<")) {
            open = i;
            break;
        }
    size_t close = rwl_match_close(&ts, open);
    long pos = 0;
    int depth = 0;
    bool seen_name = false;
    for (size_t i = open + 1; i < close && i < ts.n; i++) {
        if (rwl_tok_is(&ts, i, "(") || rwl_tok_is(&ts, i, "<"))
            depth++;
        else if (rwl_tok_is(&ts, i, ")") || rwl_tok_is(&ts, i, ">"))
            depth--;
        else if (depth == 0 && rwl_tok_is(&ts, i, ",")) {
            pos++;
            seen_name = false;
            continue;
        } else if (depth == 0 && rwl_tok_is(&ts, i, "=")) {
            seen_name = true;   /* past the declarator: a default follows */
        }
        if (depth == 0 && !seen_name && rwl_tok_is_ident(&ts, i, name)) {
            idx = pos;
            break;
        }
    }
out:
    rwl_toks_free(&ts);
    return idx;
}

/* The token span of argument idx of the template argument list opening at token open. */
static bool template_arg_span(const rw_toks *ts, size_t open, long idx, uint32_t *s, uint32_t *e)
{
    size_t close = rwl_match_close(ts, open);
    if (close >= ts->n)
        return false;
    long pos = 0;
    int depth = 0;
    size_t first = open + 1;
    for (size_t i = open + 1; i <= close; i++) {
        bool end_arg = i == close || (depth == 0 && rwl_tok_is(ts, i, ","));
        if (!end_arg) {
            if (rwl_tok_is(ts, i, "(") || rwl_tok_is(ts, i, "<") || rwl_tok_is(ts, i, "["))
                depth++;
            else if (rwl_tok_is(ts, i, ")") || rwl_tok_is(ts, i, ">") || rwl_tok_is(ts, i, "]"))
                depth--;
            continue;
        }
        if (pos == idx) {
            if (first >= i)
                return false;
            *s = ts->t[first].start;
            *e = ts->t[i - 1].end;
            return true;
        }
        pos++;
        first = i + 1;
    }
    return false;
}

/* Replaces template argument idx wherever kernel fname is given explicit template
 * arguments: launch sites and `template ... fname<...>(...);` instantiations. Only
 * integer-literal arguments are changed; *skipped counts the others. */
static int edit_template_uses(const char *text, size_t len, const an_model *m,
                              const an_function *owner, long idx, const char *value,
                              rw_edits *es, size_t *changed, size_t *skipped)
{
    rw_toks ts = {0};
    int rc = rwl_lex(text, 0, (uint32_t)len, &ts);
    if (rc)
        goto out;
    for (size_t i = 0; i + 1 < ts.n; i++) {
        if (!rwl_tok_is_ident(&ts, i, owner->name) || !rwl_tok_is(&ts, i + 1, "<"))
            continue;
        uint32_t at = ts.t[i].start;
        if (at >= owner->span.start_byte && at < owner->span.end_byte)
            continue;   /* the definition itself (or a recursive use) */
        bool is_launch = false;
        for (size_t l = 0; l < m->n_launches && !is_launch; l++)
            is_launch = at >= m->launches[l].span.start_byte && at < m->launches[l].span.end_byte;
        bool is_inst = false;
        if (!is_launch) {
            /* walk back to the statement start: an explicit instantiation starts with
             * `template` not followed by `<` */
            size_t k = i;
            while (k > 0 && !rwl_tok_is(&ts, k - 1, ";") && !rwl_tok_is(&ts, k - 1, "}") &&
                   !rwl_tok_is(&ts, k - 1, "{"))
                k--;
            is_inst = rwl_tok_is_ident(&ts, k, "template") && !rwl_tok_is(&ts, k + 1, "<");
            if (!is_inst && rwl_tok_is_ident(&ts, k, "extern"))
                is_inst = rwl_tok_is_ident(&ts, k + 1, "template") && !rwl_tok_is(&ts, k + 2, "<");
        }
        if (!is_launch && !is_inst)
            continue;
        uint32_t s, e;
        if (!template_arg_span(&ts, i + 1, idx, &s, &e))
            continue;
        char *old = hk_strndup(text + s, e - s);
        if (!old) {
            rc = HK_ENOMEM;
            goto out;
        }
        bool lit = integer_literal(old);
        bool same = strcmp(old, value) == 0;
        hk_free(old);
        if (!lit) {
            (*skipped)++;
            continue;
        }
        if (same)
            continue;
        if ((rc = rwl_edits_add(es, s, e, value)))
            goto out;
        (*changed)++;
    }
out:
    rwl_toks_free(&ts);
    return rc;
}

int rw_set_tunable(const char *text, size_t len, const an_model *m, size_t tunable,
                   const char *value, rw_result *out)
{
    memset(out, 0, sizeof *out);
    if (!text || !m || tunable >= m->n_tunables || !integer_literal(value))
        return HK_EINVAL;
    const an_tunable *t = &m->tunables[tunable];
    if (t->span.end_byte > len || t->value_span.end_byte > len)
        return HK_EINVAL;
    rw_edits es = {0};
    int rc = HK_OK;
    char *desc = NULL;
    bool has_value = t->value_span.end_byte > t->value_span.start_byte;
    /* a #define's and a constant's sentences, one each */
    bool def = t->kind == AN_TUNE_DEFINE;
    if (t->kind != AN_TUNE_TEMPLATE) {
        if (!has_value) {
            rc = rwl_not_applicable(out, hk_asprintf(def ? EN(RW_RW_DEFINE_NO_VALUE) : EN(RW_RW_CONSTANT_NO_VALUE), t->name));
            goto out;
        }
        if (t->value && strcmp(t->value, value) == 0) {
            rc = rwl_not_applicable(out, hk_asprintf(def ? EN(RW_RW_DEFINE_ALREADY) : EN(RW_RW_CONSTANT_ALREADY), t->name, value));
            goto out;
        }
        if ((rc = rwl_edits_add(&es, t->value_span.start_byte, t->value_span.end_byte, value)))
            goto out;
        desc = hk_asprintf(def ? EN(RW_RW_DEFINE_SET) : EN(RW_RW_CONSTANT_SET), t->name, value, t->value ? t->value : "?");
    } else {
        if (t->owner < 0 || (size_t)t->owner >= m->n_funcs) {
            rc = HK_EINVAL;
            goto out;
        }
        const an_function *owner = &m->funcs[t->owner];
        long idx = rw_template_param_index(owner->template_params, t->name);
        size_t changed = 0, skipped = 0;
        bool default_changed = false;
        if (has_value && !(t->value && strcmp(t->value, value) == 0)) {
            if ((rc = rwl_edits_add(&es, t->value_span.start_byte, t->value_span.end_byte, value)))
                goto out;
            default_changed = true;
        }
        if (idx >= 0 &&
            (rc = edit_template_uses(text, len, m, owner, idx, value, &es, &changed, &skipped)))
            goto out;
        if (es.n == 0) {
            rc = rwl_not_applicable(out, hk_asprintf(
                EN(RW_RW_TEMPLATE_WHY), t->name, owner->name,
                skipped ? EN(RW_RW_TPL_NON_LITERAL)
                        : (has_value ? EN(RW_RW_TPL_ALREADY)
                                     : EN(RW_RW_TPL_NO_VALUE))));
            goto out;
        }
        /* with or without the default, one use or several: a sentence each */
        desc = hk_asprintf(default_changed ? (changed == 1 ? EN(RW_RW_TPL_SET_DEFAULT_1) : EN(RW_RW_TPL_SET_DEFAULT_N))
                                           : (changed == 1 ? EN(RW_RW_TPL_SET_1) : EN(RW_RW_TPL_SET_N)),
                           t->name, owner->name, value, changed);
    }
    rc = rwl_finish(text, len, m, NULL, &es, desc, out);
    desc = NULL;
out:
    hk_free(desc);
    rwl_edits_free(&es);
    return rc;
}

/* ------------------------------------------------------------------ grid-stride */

/* Why the loop body [a, b) cannot become a grid-stride loop over idx, or NULL. */
static const char *loop_body_problem(const rw_toks *ts, size_t a, size_t b, const char *idx,
                                     const rw_toks *bound, size_t ba, size_t bb)
{
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is_ident(ts, k, "__syncthreads") || rwl_tok_is_ident(ts, k, "__syncthreads_count") ||
            rwl_tok_is_ident(ts, k, "__syncthreads_and") || rwl_tok_is_ident(ts, k, "__syncthreads_or") ||
            rwl_tok_is_ident(ts, k, "__syncwarp") || rwl_tok_is_ident(ts, k, "sync") ||
            rwl_tok_is_ident(ts, k, "grid_group") || rwl_tok_is_ident(ts, k, "__shfl_sync") ||
            rwl_tok_is_ident(ts, k, "__shfl_down_sync") || rwl_tok_is_ident(ts, k, "__shfl_xor_sync") ||
            rwl_tok_is_ident(ts, k, "__ballot_sync"))
            return EN(RW_RW_SYNCS);
        if (rwl_tok_is_ident(ts, k, "return"))
            return EN(RW_RW_RETURNS);
        if (rwl_tok_is_ident(ts, k, "goto"))
            return EN(RW_RW_GOTO);
        if (rwl_tok_is_ident(ts, k, idx) && !(k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->")))) {
            if ((k > 0 && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--") ||
                           (rwl_tok_is(ts, k - 1, "&") && rwl_unary_position(ts, k - 1)))) ||
                rwl_tok_is_assign_op(ts, k + 1) || rwl_tok_is(ts, k + 1, "++") || rwl_tok_is(ts, k + 1, "--"))
                return EN(RW_RW_CHANGES_INDEX);
        }
        /* the bound must stay fixed too */
        for (size_t q = ba; q < bb; q++) {
            if (bound->t[q].kind != T_IDENT)
                continue;
            size_t l = bound->t[q].end - bound->t[q].start;
            if (ts->t[k].end - ts->t[k].start == l &&
                memcmp(ts->text + ts->t[k].start, bound->text + bound->t[q].start, l) == 0 &&
                (rwl_tok_is_assign_op(ts, k + 1) || rwl_tok_is(ts, k + 1, "++") || rwl_tok_is(ts, k + 1, "--") ||
                 (k > 0 && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--")))))
                return EN(RW_RW_CHANGES_BOUND);
        }
    }
    return NULL;
}

int rw_grid_stride(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    char *type = NULL, *init = NULL, *cond = NULL, *loop_body = NULL, *repl = NULL, *bound = NULL;
    const char *why = NULL;
    km_kernel *km = NULL;
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    /* the kernel model reads index spellings the text matching does not (a kernel it cannot
     * build is matched by its text alone) */
    if ((rc = km_build(text, len, f->name, &km, NULL, 0)) && rc != HK_ENOMEM)
        rc = HK_OK;
    if (rc)
        goto out;
    if (ts.n < 2 || !rwl_tok_is(&ts, 0, "{") || !rwl_tok_is(&ts, ts.n - 1, "}")) {
        why = EN(RW_ROWS_BODY_UNREADABLE);
        goto na;
    }
    size_t end = ts.n - 1;   /* the closing brace */

    /* find `[const] TYPE idx = <1D index formula>;` among the top-level statements, spelled
     * so or read so by the kernel model */
    size_t s = 1, decl = end, decl_end = end, idx_tok = end, eq = end;
    while (s < end) {
        size_t e = rwl_stmt_end(&ts, s, end);
        size_t k = s;
        if (rwl_tok_is_ident(&ts, k, "const"))
            k++;
        size_t tstart = k;
        while (k < e && rwl_is_type_word(&ts, k))
            k++;
        if (k > tstart && k + 2 < e && ts.t[k].kind == T_IDENT && rwl_tok_is(&ts, k + 1, "=") &&
            rwl_tok_is(&ts, e - 1, ";")) {
            char c[256];
            rwl_compact_index(&ts, k + 2, e - 1, c, sizeof c);
            if (rwl_is_index_formula(c) || rwp_model_index_decl(km, &ts, tstart, k, e - 1, false, NULL)) {
                decl = s;
                decl_end = e;
                idx_tok = k;
                eq = k + 1;
                if (!(type = rwl_tok_text(&ts, tstart, k)))
                    goto nomem;
                break;
            }
        }
        s = e;
    }
    if (decl == end) {
        why = EN(RW_RW_NO_1D_INDEX);
        goto na;
    }
    char idx[128];
    snprintf(idx, sizeof idx, "%.*s", (int)(ts.t[idx_tok].end - ts.t[idx_tok].start),
             text + ts.t[idx_tok].start);
    if (!(init = rwl_tok_text(&ts, eq + 1, decl_end - 1)))
        goto nomem;

    /* declarations that do not involve the index may sit between it and the bounds check
     * (`long total = rows * cols;`): they are hoisted above the loop, which is only right
     * when the loop body never changes what they declare (checked below) */
    size_t ifs = decl_end, hoist_a = decl_end, n_hoisted = 0;
    size_t hoisted_names[16];
    while (ifs < end && rwl_is_hoistable_decl(&ts, ifs, rwl_stmt_end(&ts, ifs, end), idx, hoisted_names,
                                          &n_hoisted, HK_ARRAY_LEN(hoisted_names)))
        ifs = rwl_stmt_end(&ts, ifs, end);
    size_t hoist_b = ifs;
    if (!rwl_tok_is_ident(&ts, ifs, "if") || !rwl_tok_is(&ts, ifs + 1, "(")) {
        why = EN(RW_RW_NO_CHECK);
        goto na;
    }
    size_t cclose = rwl_match_close(&ts, ifs + 1);
    if (cclose >= end) {
        why = EN(RW_G2_UNBALANCED_COND);
        goto na;
    }
    size_t if_end = rwl_stmt_end(&ts, ifs, end);
    size_t then_start = cclose + 1;
    size_t then_end = rwl_stmt_end(&ts, then_start, end);
    if (then_end != if_end) {
        why = EN(RW_G2_ELSE);
        goto na;
    }
    /* condition: idx < B, B > idx (case A); idx >= B, B <= idx (case B) */
    size_t ca = ifs + 2, cb = cclose;
    bool case_a = false, case_b = false;
    size_t ba = 0, bb = 0;
    if (rwl_tok_is_ident(&ts, ca, idx) && (rwl_tok_is(&ts, ca + 1, "<") || rwl_tok_is(&ts, ca + 1, ">="))) {
        case_a = rwl_tok_is(&ts, ca + 1, "<");
        case_b = !case_a;
        ba = ca + 2;
        bb = cb;
    } else if (cb >= 2 && rwl_tok_is_ident(&ts, cb - 1, idx) &&
               (rwl_tok_is(&ts, cb - 2, ">") || rwl_tok_is(&ts, cb - 2, "<="))) {
        case_a = rwl_tok_is(&ts, cb - 2, ">");
        case_b = !case_a;
        ba = ca;
        bb = cb - 2;
    }
    if (!case_a && !case_b) {
        why = EN(RW_RW_NOT_PLAIN_CHECK);
        goto na;
    }
    if (ba >= bb) {
        why = EN(RW_G2_NO_BOUND);
        goto na;
    }
    for (size_t k = ba; k < bb; k++) {
        if (rwl_tok_is_ident(&ts, k, idx) || rwl_tok_is_assign_op(&ts, k) || rwl_tok_is(&ts, k, "++") ||
            rwl_tok_is(&ts, k, "--") || rwl_tok_is(&ts, k, "&&") || rwl_tok_is(&ts, k, "||") ||
            rwl_tok_is(&ts, k, "?") || rwl_tok_is(&ts, k, "<") || rwl_tok_is(&ts, k, ">") ||
            rwl_tok_is(&ts, k, "<=") || rwl_tok_is(&ts, k, ">=") || rwl_tok_is(&ts, k, "==") || rwl_tok_is(&ts, k, "!=")) {
            why = EN(RW_RW_BOUND_NOT_SIMPLE);
            goto na;
        }
    }
    if (!(bound = rwl_tok_text(&ts, ba, bb)) || !(cond = rwl_tok_text(&ts, ca, cb)))
        goto nomem;

    size_t body_a, body_b;   /* token range of the statements that become the loop body */
    uint32_t repl_start = ts.t[decl].start, repl_end;
    if (case_a) {
        if (if_end != end) {
            why = EN(RW_RW_STMTS_FOLLOW);
            goto na;
        }
        body_a = then_start;
        body_b = then_end;
        repl_end = ts.t[if_end - 1].end;
    } else {
        /* then-branch must be `return;` or `{ return; }` */
        bool ret = (rwl_tok_is_ident(&ts, then_start, "return") && rwl_tok_is(&ts, then_start + 1, ";") &&
                    then_end == then_start + 2) ||
                   (rwl_tok_is(&ts, then_start, "{") && rwl_tok_is_ident(&ts, then_start + 1, "return") &&
                    rwl_tok_is(&ts, then_start + 2, ";") && rwl_tok_is(&ts, then_start + 3, "}") &&
                    then_end == then_start + 4);
        if (!ret) {
            why = EN(RW_RW_NOT_PLAIN_RETURN);
            goto na;
        }
        if (if_end >= end) {
            why = EN(RW_G2_NOTHING_FOLLOWS);
            goto na;
        }
        body_a = if_end;
        body_b = end;
        repl_end = ts.t[end].start;
    }
    if ((why = loop_body_problem(&ts, body_a, body_b, idx, &ts, ba, bb)) ||
        (why = rwp_thread_coordinate_problem(&ts, body_a, body_b, km, ifs, idx)))
        goto na;
    for (size_t h = 0; h < n_hoisted; h++) {
        char hn[128];
        const rw_tok *ht = &ts.t[hoisted_names[h]];
        snprintf(hn, sizeof hn, "%.*s", (int)(ht->end - ht->start), text + ht->start);
        if (loop_body_problem(&ts, body_a, body_b, hn, &ts, 0, 0)) {
            why = EN(RW_RW_CHANGES_BEFORE);
            goto na;
        }
    }

    bool plain_int = strcmp(type, "int") == 0 || strcmp(type, "unsigned") == 0 ||
                     strcmp(type, "unsigned int") == 0;
    char stride[160];
    if (plain_int)
        snprintf(stride, sizeof stride, "gridDim.x * blockDim.x");
    else
        snprintf(stride, sizeof stride, "(%s)gridDim.x * blockDim.x", type);
    if (case_a) {
        if (!(loop_body = rwl_tok_text(&ts, body_a, body_b)))
            goto nomem;
        repl = hk_asprintf("for (%s %s = %s; %s; %s += %s) %s", type, idx, init, cond, idx, stride,
                           loop_body);
    } else {
        /* the rest of the body, comments kept, indented one level deeper */
        uint32_t rs = ts.t[body_a].start, re = ts.t[end].start;
        while (re > rs && isspace((unsigned char)text[re - 1]))
            re--;
        uint32_t ls = ts.t[decl].start;
        while (ls > 0 && (text[ls - 1] == ' ' || text[ls - 1] == '\t'))
            ls--;
        char ind[64];
        snprintf(ind, sizeof ind, "%.*s", (int)(ts.t[decl].start - ls), text + ls);
        struct hk_buf b;
        hk_buf_init(&b, RW_TEXT_MAX);
        for (uint32_t q = rs; q < re; q++) {
            if (hk_buf_append(&b, text + q, 1)) {
                hk_buf_free(&b);
                goto nomem;
            }
            if (text[q] == '\n' && q + 1 < re && text[q + 1] != '\n' && hk_buf_appends(&b, "    ")) {
                hk_buf_free(&b);
                goto nomem;
            }
        }
        if (!(loop_body = hk_buf_steal(&b)) && !(loop_body = hk_strdup("")))
            goto nomem;
        bool simple = bb == ba + 1;
        repl = hk_asprintf("for (%s %s = %s; %s < %s%s%s; %s += %s) {\n%s    %s\n%s}\n", type, idx,
                           init, idx, simple ? "" : "(", bound, simple ? "" : ")", idx, stride, ind,
                           loop_body, ind);
    }
    if (!repl)
        goto nomem;
    if (hoist_b > hoist_a) {
        /* `hoisted declarations` + newline + indentation + the loop */
        uint32_t ls = ts.t[decl].start;
        while (ls > 0 && (text[ls - 1] == ' ' || text[ls - 1] == '\t'))
            ls--;
        char *with = hk_asprintf("%.*s\n%.*s%s", (int)(ts.t[hoist_b - 1].end - ts.t[hoist_a].start),
                                 text + ts.t[hoist_a].start, (int)(ts.t[decl].start - ls), text + ls,
                                 repl);
        if (!with)
            goto nomem;
        hk_free(repl);
        repl = with;
    }
    if ((rc = rwl_edits_add(&es, repl_start, repl_end, repl)))
        goto out;
    char *desc = hk_asprintf(EN(RW_RW_GS_DESC), f->name, idx,
                             idx, stride, bound);
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    goto out;
nomem:
    rc = HK_ENOMEM;
    goto out;
na:
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "grid-stride loop", f->name, why));
out:
    hk_free(type);
    hk_free(init);
    hk_free(cond);
    hk_free(bound);
    hk_free(loop_body);
    hk_free(repl);
    km_free(km);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptors (registry.h) ---- */
static const rw_param launch_bounds_params[] = {
    {.name = "max_threads", .type = RW_PARAM_INT, .min = 1, .max = 1024, .def = 256},
    {.name = "min_blocks", .type = RW_PARAM_INT, .min = 0, .max = 64, .def = 0},
};

static int emit_launch_bounds(const rw_context *c, const int *p, rw_result *out)
{
    return rw_launch_bounds(c->text, c->len, c->m, c->kernel, p[0], p[1], out);
}

const rw_descriptor rw_launch_bounds_desc = {
    .name = "launch_bounds",
    .summary = "__launch_bounds__(max_threads[, min_blocks]) on the kernel", /* i18n: not for people */
    .params = launch_bounds_params,
    .n_params = HK_ARRAY_LEN(launch_bounds_params),
    .flags = RW_SEARCH_AXIS | RW_HINT,
    .emit = emit_launch_bounds,
};

static const rw_param restrict_params[] = {
    {.name = "add_const", .type = RW_PARAM_BOOL, .max = 1, .def = 0},
};

static int emit_restrict(const rw_context *c, const int *p, rw_result *out)
{
    return rw_restrict(c->text, c->len, c->m, c->kernel, p[0] != 0, out);
}

const rw_descriptor rw_restrict_desc = {
    .name = "restrict",
    .summary = "__restrict__ on pointer parameters, const where never written", /* i18n: not for people */
    .params = restrict_params,
    .n_params = HK_ARRAY_LEN(restrict_params),
    .flags = RW_SEARCH_AXIS | RW_HINT,
    .emit = emit_restrict,
};

static const rw_param set_tunable_params[] = {
    {.name = "tunable", .type = RW_PARAM_INT, .min = 0, .max = 1048576, .def = 0},
    {.name = "value", .type = RW_PARAM_INT, .min = 0, .max = 1073741824, .def = 0},
};

static int emit_set_tunable(const rw_context *c, const int *p, rw_result *out)
{
    char value[16];
    snprintf(value, sizeof value, "%d", p[1]);
    return rw_set_tunable(c->text, c->len, c->m, (size_t)p[0], value, out);
}

const rw_descriptor rw_set_tunable_desc = {
    .name = "set_tunable",
    .summary = "a tunable constant set to a value (tunable: index into the model's tunables)", /* i18n: not for people */
    .params = set_tunable_params,
    .n_params = HK_ARRAY_LEN(set_tunable_params),
    .flags = RW_SEARCH_AXIS | RW_HINT,
    .emit = emit_set_tunable,
};

static int emit_grid_stride(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_grid_stride(c->text, c->len, c->m, c->kernel, out);
}

const rw_descriptor rw_grid_stride_desc = {
    .name = "grid_stride",
    .summary = "the 1D guard becomes a grid-stride loop", /* i18n: not for people */
    .flags = RW_SEARCH_AXIS,
    .emit = emit_grid_stride,
};

