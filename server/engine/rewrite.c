/* Kernel rewrites for the built-in engine. A small C/CUDA token scanner (comments,
 * strings and preprocessor lines skipped) finds the exact places to edit inside the spans
 * the analysis model gives; edits are collected against the original text, applied in one
 * pass, and the result is re-analysed so a rewrite can never hand back broken code. */
#include "engine/rewrite.h"

#include "core/buf.h"
#include "core/hk.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A rewrite never produces more than this (the analysis refuses larger texts anyway). */
#define RW_TEXT_MAX AN_TEXT_MAX_BYTES
#define RW_MAX_TOKENS (1u << 22)

/* ------------------------------------------------------------------ tokens */

enum { T_IDENT = 'i', T_NUMBER = 'n', T_STRING = 's', T_PUNCT = 'p' };

typedef struct {
    uint32_t start, end;
    char kind;
} rw_tok;

typedef struct {
    const char *text;
    rw_tok *t;
    size_t n, cap;
} rw_toks;

static void toks_free(rw_toks *ts)
{
    hk_free(ts->t);
    ts->t = NULL;
    ts->n = ts->cap = 0;
}

static int toks_push(rw_toks *ts, uint32_t start, uint32_t end, char kind)
{
    if (ts->n == ts->cap) {
        size_t cap = ts->cap ? ts->cap * 2 : 256;
        if (cap > RW_MAX_TOKENS)
            return HK_ETOOBIG;
        rw_tok *t = hk_realloc(ts->t, cap * sizeof *t);
        if (!t)
            return HK_ENOMEM;
        ts->t = t;
        ts->cap = cap;
    }
    ts->t[ts->n++] = (rw_tok){start, end, kind};
    return HK_OK;
}

static const char *const punct3[] = {"<<=", ">>=", "->*", "..."};
static const char *const punct2[] = {"->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
                                     "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::"};

/* Tokenizes text[start, end). Comments, whitespace and preprocessor lines are skipped. */
static int lex(const char *text, uint32_t start, uint32_t end, rw_toks *ts)
{
    ts->text = text;
    uint32_t i = start;
    bool line_start = true;
    while (i < end) {
        char c = text[i];
        if (c == '\n') {
            line_start = true;
            i++;
            continue;
        }
        if (isspace((unsigned char)c)) {
            i++;
            continue;
        }
        if (c == '/' && i + 1 < end && text[i + 1] == '/') {
            while (i < end && text[i] != '\n')
                i++;
            continue;
        }
        if (c == '/' && i + 1 < end && text[i + 1] == '*') {
            i += 2;
            while (i + 1 < end && !(text[i] == '*' && text[i + 1] == '/'))
                i++;
            i = i + 2 < end ? i + 2 : end;
            continue;
        }
        if (c == '#' && line_start) {   /* a preprocessor line, with continuations */
            while (i < end && text[i] != '\n') {
                if (text[i] == '\\' && i + 1 < end && text[i + 1] == '\n')
                    i++;
                i++;
            }
            continue;
        }
        line_start = false;
        uint32_t s = i;
        int rc;
        if (isalpha((unsigned char)c) || c == '_') {
            while (i < end && (isalnum((unsigned char)text[i]) || text[i] == '_'))
                i++;
            rc = toks_push(ts, s, i, T_IDENT);
        } else if (isdigit((unsigned char)c) || (c == '.' && i + 1 < end && isdigit((unsigned char)text[i + 1]))) {
            while (i < end && (isalnum((unsigned char)text[i]) || text[i] == '.' || text[i] == '\'' ||
                               ((text[i] == '+' || text[i] == '-') &&
                                (text[i - 1] == 'e' || text[i - 1] == 'E' || text[i - 1] == 'p' ||
                                 text[i - 1] == 'P'))))
                i++;
            rc = toks_push(ts, s, i, T_NUMBER);
        } else if (c == '"' || c == '\'') {
            i++;
            while (i < end && text[i] != c && text[i] != '\n') {
                if (text[i] == '\\')
                    i++;
                i++;
            }
            if (i < end && text[i] == c)
                i++;
            rc = toks_push(ts, s, i > end ? end : i, T_STRING);
        } else {
            size_t l = 1;
            for (size_t k = 0; k < HK_ARRAY_LEN(punct3) && l == 1; k++)
                if (i + 3 <= end && memcmp(text + i, punct3[k], 3) == 0)
                    l = 3;
            for (size_t k = 0; k < HK_ARRAY_LEN(punct2) && l == 1; k++)
                if (i + 2 <= end && memcmp(text + i, punct2[k], 2) == 0)
                    l = 2;
            i += (uint32_t)l;
            rc = toks_push(ts, s, i, T_PUNCT);
        }
        if (rc)
            return rc;
    }
    return HK_OK;
}

static bool tok_is(const rw_toks *ts, size_t k, const char *s)
{
    if (k >= ts->n)
        return false;
    size_t l = ts->t[k].end - ts->t[k].start;
    return strlen(s) == l && memcmp(ts->text + ts->t[k].start, s, l) == 0;
}

static bool tok_is_ident(const rw_toks *ts, size_t k, const char *name)
{
    return k < ts->n && ts->t[k].kind == T_IDENT && tok_is(ts, k, name);
}

static bool tok_is_assign_op(const rw_toks *ts, size_t k)
{
    static const char *const ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
    for (size_t i = 0; i < HK_ARRAY_LEN(ops); i++)
        if (tok_is(ts, k, ops[i]))
            return true;
    return false;
}

/* Index of the token closing the bracket at k ("(", "[", "{", or "<" for template lists),
 * or ts->n when unbalanced. */
static size_t match_close(const rw_toks *ts, size_t k)
{
    const char *open = NULL, *close = NULL;
    if (tok_is(ts, k, "(")) open = "(", close = ")";
    else if (tok_is(ts, k, "[")) open = "[", close = "]";
    else if (tok_is(ts, k, "{")) open = "{", close = "}";
    else if (tok_is(ts, k, "<")) open = "<", close = ">";
    else return ts->n;
    int depth = 0, paren = 0;
    bool angle = *open == '<';
    for (size_t i = k; i < ts->n; i++) {
        if (angle) {
            /* inside <...> only parentheses protect a '>' */
            if (tok_is(ts, i, "(")) paren++;
            else if (tok_is(ts, i, ")")) paren--;
            else if (paren == 0 && tok_is(ts, i, "<")) depth++;
            else if (paren == 0 && tok_is(ts, i, ">")) {
                if (--depth == 0)
                    return i;
            } else if (paren == 0 && tok_is(ts, i, ">>")) {
                depth -= 2;
                if (depth <= 0)
                    return i;
            } else if (tok_is(ts, i, ";") || tok_is(ts, i, "{"))
                return ts->n;
            continue;
        }
        if (tok_is(ts, i, open))
            depth++;
        else if (tok_is(ts, i, close) && --depth == 0)
            return i;
    }
    return ts->n;
}

/* true when the token before k makes a '*' or '&' at k unary (not multiplication/and). */
static bool unary_position(const rw_toks *ts, size_t k)
{
    if (k == 0)
        return true;
    const rw_tok *p = &ts->t[k - 1];
    if (p->kind == T_IDENT)
        return tok_is(ts, k - 1, "return");
    if (p->kind == T_NUMBER || p->kind == T_STRING)
        return false;
    return !(tok_is(ts, k - 1, ")") || tok_is(ts, k - 1, "]"));
}

/* ------------------------------------------------------------------ edits */

typedef struct {
    uint32_t start, end;
    char *repl;
} rw_edit;

typedef struct {
    rw_edit *e;
    size_t n, cap;
} rw_edits;

static void edits_free(rw_edits *es)
{
    for (size_t i = 0; i < es->n; i++)
        hk_free(es->e[i].repl);
    hk_free(es->e);
    es->e = NULL;
    es->n = es->cap = 0;
}

/* Takes ownership of repl (also on failure). */
static int edits_add_owned(rw_edits *es, uint32_t start, uint32_t end, char *repl)
{
    if (!repl)
        return HK_ENOMEM;
    if (es->n == es->cap) {
        size_t cap = es->cap ? es->cap * 2 : 8;
        rw_edit *e = hk_realloc(es->e, cap * sizeof *e);
        if (!e) {
            hk_free(repl);
            return HK_ENOMEM;
        }
        es->e = e;
        es->cap = cap;
    }
    es->e[es->n++] = (rw_edit){start, end, repl};
    return HK_OK;
}

static int edits_add(rw_edits *es, uint32_t start, uint32_t end, const char *repl)
{
    return edits_add_owned(es, start, end, hk_strdup(repl));
}

static int edit_cmp_desc(const void *a, const void *b)
{
    const rw_edit *x = a, *y = b;
    if (x->start != y->start)
        return x->start > y->start ? -1 : 1;
    return x->end > y->end ? -1 : x->end < y->end;
}

/* Applies edits (all against the original text). They are sorted back to front, which is
 * the order the overlap check needs; the new text is then assembled front to back in one
 * buffer of the final size. Overlapping edits are a bug: HK_EINVAL. */
static int edits_apply(const char *text, size_t len, rw_edits *es, char **out, size_t *out_len)
{
    qsort(es->e, es->n, sizeof *es->e, edit_cmp_desc);
    size_t total = len;
    for (size_t i = 0; i < es->n; i++) {
        if (es->e[i].end < es->e[i].start || es->e[i].end > len)
            return HK_EINVAL;
        if (i + 1 < es->n && es->e[i + 1].end > es->e[i].start)
            return HK_EINVAL;
        total = total - (es->e[i].end - es->e[i].start) + strlen(es->e[i].repl);
    }
    if (total > RW_TEXT_MAX)
        return HK_ETOOBIG;
    char *buf = hk_malloc(total + 1);
    if (!buf)
        return HK_ENOMEM;
    size_t o = 0, from = 0;
    for (size_t i = es->n; i-- > 0;) {
        const rw_edit *e = &es->e[i];
        memcpy(buf + o, text + from, e->start - from);
        o += e->start - from;
        size_t rl = strlen(e->repl);
        memcpy(buf + o, e->repl, rl);
        o += rl;
        from = e->end;
    }
    memcpy(buf + o, text + from, len - from);
    o += len - from;
    buf[o] = '\0';
    *out = buf;
    *out_len = o;
    return HK_OK;
}

/* ------------------------------------------------------------------ results */

void rw_result_free(rw_result *r)
{
    if (!r)
        return;
    hk_free(r->text);
    hk_free(r->description);
    memset(r, 0, sizeof *r);
}

static int not_applicable(rw_result *out, char *why)
{
    if (!why)
        return HK_ENOMEM;
    out->applicable = false;
    out->description = why;
    return HK_OK;
}

static int check_kernel(const char *text, size_t len, const an_model *m, size_t kernel,
                        const an_function **f)
{
    if (!text || !m || kernel >= m->n_funcs)
        return HK_EINVAL;
    const an_function *k = &m->funcs[kernel];
    if (k->kind != AN_KERNEL || k->span.end_byte > len || k->body_span.end_byte > len ||
        k->body_span.start_byte >= k->body_span.end_byte || k->name_span.end_byte > len)
        return HK_EINVAL;
    *f = k;
    return HK_OK;
}

/* Applies the edits, re-analyses, and fills out. Takes ownership of desc. */
static int finish(const char *text, size_t len, const an_model *m, const char *kernel_name,
                  rw_edits *es, char *desc, rw_result *out)
{
    char *nt = NULL;
    size_t nl = 0;
    an_model *nm = NULL;
    int rc;
    if (!desc)
        return HK_ENOMEM;
    if ((rc = edits_apply(text, len, es, &nt, &nl)))
        goto fail;
    if ((rc = an_analyze(nt, nl, &nm)))
        goto fail;
    /* the rewrite must not break parsing, nor lose the kernel */
    if ((nm->has_errors && !m->has_errors) || (kernel_name && an_model_find_kernel(nm, kernel_name) < 0)) {
        an_model_free(nm);
        hk_free(nt);
        char *why = hk_asprintf("rewrite refused, its result does not parse cleanly: %s", desc);
        hk_free(desc);
        if (!why)
            return HK_ENOMEM;
        not_applicable(out, why);
        return HK_EPARSE;
    }
    an_model_free(nm);
    out->applicable = true;
    out->text = nt;
    out->len = nl;
    out->description = desc;
    return HK_OK;
fail:
    hk_free(nt);
    hk_free(desc);
    return rc;
}

/* ------------------------------------------------------------------ launch bounds */

int rw_launch_bounds(const char *text, size_t len, const an_model *m, size_t kernel,
                     int max_threads, int min_blocks, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = check_kernel(text, len, m, kernel, &f);
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
    if ((rc = lex(text, f->span.start_byte, f->body_span.start_byte, &ts)))
        goto out;
    size_t at = ts.n;
    for (size_t i = 0; i < ts.n; i++)
        if (tok_is_ident(&ts, i, "__launch_bounds__") && tok_is(&ts, i + 1, "(")) {
            at = i;
            break;
        }
    if (at < ts.n) {
        size_t close = match_close(&ts, at + 1);
        if (close >= ts.n) {
            rc = not_applicable(out, hk_strdup("the kernel's __launch_bounds__(...) is unbalanced"));
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
            rc = not_applicable(out, hk_asprintf("kernel %s already has %s", f->name, want));
            goto out;
        }
        desc = hk_asprintf("replace %s with %s on kernel %s", old, want, f->name);
        hk_free(old);
        rc = edits_add(&es, s, e, want);
    } else {
        /* `__global__ void __launch_bounds__(N) name(...)`: right before the name */
        char *ins = hk_asprintf("%s ", want);
        desc = hk_asprintf("add %s to kernel %s", want, f->name);
        rc = edits_add_owned(&es, f->name_span.start_byte, f->name_span.start_byte, ins);
    }
    if (rc)
        goto out;
    rc = finish(text, len, m, f->name, &es, desc, out);
    desc = NULL;
out:
    hk_free(desc);
    edits_free(&es);
    toks_free(&ts);
    return rc;
}

/* ------------------------------------------------------------------ restrict / const */

/* Does the token at k (an occurrence of the pointer's name) possibly write through it?
 * Reads are `name[...]` and `*name`/`*(name ...)` not followed by an assignment; every
 * other use (address taken, passed on, copied into another pointer) counts as a write,
 * because this scan cannot follow it. */
static bool occurrence_writes(const rw_toks *ts, size_t k)
{
    if (k > 0 && (tok_is(ts, k - 1, "++") || tok_is(ts, k - 1, "--")))
        return true;
    if (k > 0 && tok_is(ts, k - 1, "&") && unary_position(ts, k - 1))
        return true;
    size_t after;
    if (tok_is(ts, k + 1, "[")) {
        size_t close = match_close(ts, k + 1);
        if (close >= ts->n)
            return true;
        after = close + 1;
    } else if (k > 0 && tok_is(ts, k - 1, "*") && unary_position(ts, k - 1)) {
        after = k + 1;
    } else if (k > 1 && tok_is(ts, k - 1, "(") && tok_is(ts, k - 2, "*") && unary_position(ts, k - 2)) {
        /* *(name + i): the expression runs to the matching ')' */
        size_t close = match_close(ts, k - 1);
        if (close >= ts->n)
            return true;
        for (size_t i = k + 1; i < close; i++)
            if (tok_is_assign_op(ts, i) || tok_is(ts, i, "++") || tok_is(ts, i, "--"))
                return true;
        after = close + 1;
    } else {
        return true;   /* the pointer value itself is used: it may escape */
    }
    /* skip member accesses and further subscripts: name[i].x[j] = ... */
    for (;;) {
        if ((tok_is(ts, after, ".") || tok_is(ts, after, "->")) && after + 1 < ts->n &&
            ts->t[after + 1].kind == T_IDENT) {
            after += 2;
        } else if (tok_is(ts, after, "[")) {
            size_t close = match_close(ts, after);
            if (close >= ts->n)
                return true;
            after = close + 1;
        } else {
            break;
        }
    }
    return tok_is_assign_op(ts, after) || tok_is(ts, after, "++") || tok_is(ts, after, "--");
}

static bool written_in(const rw_toks *ts, const char *name)
{
    for (size_t k = 0; k < ts->n; k++) {
        if (!tok_is_ident(ts, k, name))
            continue;
        if (k > 0 && (tok_is(ts, k - 1, ".") || tok_is(ts, k - 1, "->") || tok_is(ts, k - 1, "::")))
            continue;   /* a member of something else that happens to share the name */
        if (occurrence_writes(ts, k))
            return true;
    }
    return false;
}

bool rw_param_written(const char *text, size_t len, const an_function *f, const char *name)
{
    if (!text || !f || !name || f->body_span.end_byte > len)
        return true;
    rw_toks ts = {0};
    bool w = true;
    if (lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts) == HK_OK)
        w = written_in(&ts, name);
    toks_free(&ts);
    return w;
}

bool rw_body_mentions(const char *text, size_t len, const an_function *f, const char *ident)
{
    if (!text || !f || !ident || f->body_span.end_byte > len)
        return false;
    rw_toks ts = {0};
    bool found = false;
    if (lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts) == HK_OK)
        for (size_t k = 0; k < ts.n && !found; k++)
            found = tok_is_ident(&ts, k, ident);
    toks_free(&ts);
    return found;
}

/* Whitespace-free copy of s into out (for comparing argument expressions). */
static void squeeze(const char *s, char *out, size_t size)
{
    size_t n = 0;
    for (; s && *s && n + 1 < size; s++)
        if (!isspace((unsigned char)*s))
            out[n++] = *s;
    out[n] = '\0';
}

/* The launch sites of kernel name that pass one expression to two of the pointer params
 * listed in ptr (indices into f->params): reason in *why (new string) or NULL. */
static int find_alias(const an_model *m, const an_function *f, const size_t *ptr, size_t n_ptr,
                      char **why)
{
    *why = NULL;
    for (size_t l = 0; l < m->n_launches; l++) {
        const an_launch *la = &m->launches[l];
        if (!la->kernel || la->form == AN_LAUNCH_CUDA_API || la->n_args != f->n_params)
            continue;
        const char *short_name = strrchr(la->kernel, ':');
        short_name = short_name ? short_name + 1 : la->kernel;
        if (strcmp(short_name, f->name) != 0)
            continue;
        for (size_t a = 0; a < n_ptr; a++)
            for (size_t b = a + 1; b < n_ptr; b++) {
                char x[512], y[512];
                squeeze(la->args[ptr[a]], x, sizeof x);
                squeeze(la->args[ptr[b]], y, sizeof y);
                if (strcmp(x, y) == 0) {
                    *why = hk_asprintf("the launch at line %u passes `%s` as both %s and %s, so "
                                       "they alias",
                                       la->span.start_row + 1, la->args[ptr[a]],
                                       f->params[ptr[a]].name, f->params[ptr[b]].name);
                    return *why ? HK_OK : HK_ENOMEM;
                }
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
    *rc = lex(text, 0, (uint32_t)len, &ts);
    for (size_t i = 1; !*rc && i + 1 < ts.n && !*line; i++) {
        if (!tok_is_ident(&ts, i, f->name) || !(tok_is(&ts, i + 1, "(") || tok_is(&ts, i + 1, "<")))
            continue;
        if (ts.t[i].start >= f->span.start_byte && ts.t[i].start < f->span.end_byte)
            continue;
        size_t k = i - 1;
        if (tok_is(&ts, k, ")")) {   /* void __launch_bounds__(...) name( */
            while (k > 0 && !tok_is(&ts, k, "("))
                k--;
            if (k > 0 && tok_is_ident(&ts, k - 1, "__launch_bounds__"))
                k -= 2;
        }
        if (tok_is_ident(&ts, k, "void")) {
            int l = 1;
            for (uint32_t q = 0; q < ts.t[i].start; q++)
                l += text[q] == '\n';
            *line = l;
        }
    }
    toks_free(&ts);
    return *line;
}

int rw_restrict(const char *text, size_t len, const an_model *m, size_t kernel, bool add_const,
                rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = check_kernel(text, len, m, kernel, &f);
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
        rc = not_applicable(out, hk_asprintf("kernel %s has no pointer parameters", f->name));
        goto out;
    }
    if ((rc = find_alias(m, f, ptr, n_ptr, &alias)))
        goto out;
    if (alias) {
        rc = not_applicable(out, alias);
        alias = NULL;
        goto out;
    }
    if ((rc = lex(text, f->body_span.start_byte, f->body_span.end_byte, &body)))
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
        toks_free(&pt);
        if ((rc = lex(text, p->span.start_byte, p->span.end_byte, &pt)))
            goto out;
        /* the name is the last identifier; a '*' must come before it (not `float x[]`) */
        size_t name_at = pt.n;
        for (size_t i = pt.n; i-- > 0;)
            if (tok_is_ident(&pt, i, p->name)) {
                name_at = i;
                break;
            }
        bool has_star = false;
        for (size_t i = 0; i < name_at; i++)
            if (tok_is(&pt, i, "*"))
                has_star = true;
        if (name_at >= pt.n || !has_star)
            continue;
        if (!p->is_restrict) {
            if ((rc = edits_add(&es, pt.t[name_at].start, pt.t[name_at].start, "__restrict__ ")))
                goto out;
            if ((rc = hk_buf_printf(&rnames, "%s%s", rnames.len ? ", " : "", p->name)))
                goto out;
        }
        if (add_const && !p->is_const && !written_in(&body, p->name)) {
            if ((rc = edits_add(&es, p->span.start_byte, p->span.start_byte, "const ")))
                goto out;
            if ((rc = hk_buf_printf(&cnames, "%s%s", cnames.len ? ", " : "", p->name)))
                goto out;
        }
    }
    if (es.n == 0) {
        rc = not_applicable(out, hk_asprintf("kernel %s: every pointer parameter is already "
                                             "__restrict__%s", f->name,
                                             add_const ? " (and const where never written)" : ""));
        goto out;
    }
    char *desc;
    if (decl_line && rnames.len)
        desc = hk_asprintf("kernel %s: add __restrict__ to %s (no const: the declaration at line "
                           "%d would stop matching)", f->name, rnames.data, decl_line);
    else if (rnames.len && cnames.len)
        desc = hk_asprintf("kernel %s: add __restrict__ to %s; const to %s", f->name, rnames.data,
                           cnames.data);
    else if (rnames.len)
        desc = hk_asprintf("kernel %s: add __restrict__ to %s", f->name, rnames.data);
    else
        desc = hk_asprintf("kernel %s: add const to %s", f->name, cnames.data);
    rc = finish(text, len, m, f->name, &es, desc, out);
out:
    hk_free(alias);
    hk_free(ptr);
    hk_buf_free(&rnames);
    hk_buf_free(&cnames);
    edits_free(&es);
    toks_free(&body);
    toks_free(&pt);
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
    if (lex(params, 0, (uint32_t)strlen(params), &ts) != HK_OK)
        goto out;
    size_t open = ts.n;
    for (size_t i = 0; i < ts.n; i++)
        if (tok_is(&ts, i, "<")) {
            open = i;
            break;
        }
    size_t close = match_close(&ts, open);
    long pos = 0;
    int depth = 0;
    bool seen_name = false;
    for (size_t i = open + 1; i < close && i < ts.n; i++) {
        if (tok_is(&ts, i, "(") || tok_is(&ts, i, "<"))
            depth++;
        else if (tok_is(&ts, i, ")") || tok_is(&ts, i, ">"))
            depth--;
        else if (depth == 0 && tok_is(&ts, i, ",")) {
            pos++;
            seen_name = false;
            continue;
        } else if (depth == 0 && tok_is(&ts, i, "=")) {
            seen_name = true;   /* past the declarator: a default follows */
        }
        if (depth == 0 && !seen_name && tok_is_ident(&ts, i, name)) {
            idx = pos;
            break;
        }
    }
out:
    toks_free(&ts);
    return idx;
}

/* The token span of argument idx of the template argument list opening at token open. */
static bool template_arg_span(const rw_toks *ts, size_t open, long idx, uint32_t *s, uint32_t *e)
{
    size_t close = match_close(ts, open);
    if (close >= ts->n)
        return false;
    long pos = 0;
    int depth = 0;
    size_t first = open + 1;
    for (size_t i = open + 1; i <= close; i++) {
        bool end_arg = i == close || (depth == 0 && tok_is(ts, i, ","));
        if (!end_arg) {
            if (tok_is(ts, i, "(") || tok_is(ts, i, "<") || tok_is(ts, i, "["))
                depth++;
            else if (tok_is(ts, i, ")") || tok_is(ts, i, ">") || tok_is(ts, i, "]"))
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
    int rc = lex(text, 0, (uint32_t)len, &ts);
    if (rc)
        goto out;
    for (size_t i = 0; i + 1 < ts.n; i++) {
        if (!tok_is_ident(&ts, i, owner->name) || !tok_is(&ts, i + 1, "<"))
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
            while (k > 0 && !tok_is(&ts, k - 1, ";") && !tok_is(&ts, k - 1, "}") &&
                   !tok_is(&ts, k - 1, "{"))
                k--;
            is_inst = tok_is_ident(&ts, k, "template") && !tok_is(&ts, k + 1, "<");
            if (!is_inst && tok_is_ident(&ts, k, "extern"))
                is_inst = tok_is_ident(&ts, k + 1, "template") && !tok_is(&ts, k + 2, "<");
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
        if ((rc = edits_add(es, s, e, value)))
            goto out;
        (*changed)++;
    }
out:
    toks_free(&ts);
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
    const char *kind = t->kind == AN_TUNE_DEFINE ? "#define" : t->kind == AN_TUNE_CONSTEXPR
                                                                  ? "constant" : "template parameter";
    if (t->kind != AN_TUNE_TEMPLATE) {
        if (!has_value) {
            rc = not_applicable(out, hk_asprintf("%s %s has no value to change", kind, t->name));
            goto out;
        }
        if (t->value && strcmp(t->value, value) == 0) {
            rc = not_applicable(out, hk_asprintf("%s %s is already %s", kind, t->name, value));
            goto out;
        }
        if ((rc = edits_add(&es, t->value_span.start_byte, t->value_span.end_byte, value)))
            goto out;
        desc = hk_asprintf("set %s %s = %s (was %s)", kind, t->name, value, t->value ? t->value : "?");
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
            if ((rc = edits_add(&es, t->value_span.start_byte, t->value_span.end_byte, value)))
                goto out;
            default_changed = true;
        }
        if (idx >= 0 &&
            (rc = edit_template_uses(text, len, m, owner, idx, value, &es, &changed, &skipped)))
            goto out;
        if (es.n == 0) {
            rc = not_applicable(out, hk_asprintf(
                "template parameter %s of %s: %s", t->name, owner->name,
                skipped ? "its launches give it a non-literal argument"
                        : (has_value ? "already that value everywhere"
                                     : "no default, launch or explicit instantiation gives it a value")));
            goto out;
        }
        desc = hk_asprintf("set template parameter %s of %s = %s (%s%s%zu use%s)", t->name,
                           owner->name, value, default_changed ? "default and " : "",
                           changed ? "" : "", changed, changed == 1 ? "" : "s");
    }
    rc = finish(text, len, m, NULL, &es, desc, out);
    desc = NULL;
out:
    hk_free(desc);
    edits_free(&es);
    return rc;
}

/* ------------------------------------------------------------------ grid-stride */

static const char *const type_words[] = {"int", "unsigned", "signed", "long", "short", "size_t",
                                         "auto", "int64_t", "uint64_t", "int32_t", "uint32_t",
                                         "ptrdiff_t", "unsigned int", "long long"};

static bool is_type_word(const rw_toks *ts, size_t k)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(type_words); i++)
        if (tok_is_ident(ts, k, type_words[i]))
            return true;
    return false;
}

static const char *const decl_words[] = {"float", "double", "bool", "char", "half", "const",
                                         "__half", "__nv_bfloat16", "float2", "float4", "int2", "int4"};

/* Is [a, b) a plain declaration `[const] TYPE name = expr, ...;` that does not mention idx
 * and changes nothing else? Appends the declared names' token indices to names. */
static bool is_hoistable_decl(const rw_toks *ts, size_t a, size_t b, const char *idx,
                              size_t *names, size_t *n_names, size_t max_names)
{
    size_t k = a;
    bool typed = false;
    for (;;) {
        bool w = is_type_word(ts, k);
        for (size_t i = 0; i < HK_ARRAY_LEN(decl_words) && !w; i++)
            w = tok_is_ident(ts, k, decl_words[i]);
        if (!w)
            break;
        typed |= !tok_is_ident(ts, k, "const");
        k++;
    }
    if (!typed || k >= b || !tok_is(ts, b - 1, ";"))
        return false;
    int depth = 0;
    bool expect_name = true;
    size_t first_name = *n_names;
    for (size_t i = k; i < b - 1; i++) {
        if (tok_is_ident(ts, i, idx) || tok_is(ts, i, "++") || tok_is(ts, i, "--") ||
            (tok_is_assign_op(ts, i) && !tok_is(ts, i, "=")))
            goto no;
        if (tok_is(ts, i, "(") || tok_is(ts, i, "[") || tok_is(ts, i, "{"))
            depth++;
        else if (tok_is(ts, i, ")") || tok_is(ts, i, "]") || tok_is(ts, i, "}"))
            depth--;
        else if (depth == 0 && tok_is(ts, i, ","))
            expect_name = true;
        else if (depth == 0 && tok_is(ts, i, "=") && expect_name)
            goto no;   /* `= x` with no name before it: an assignment, not a declaration */
        if (expect_name && depth == 0 && ts->t[i].kind == T_IDENT) {
            if (*n_names >= max_names)
                goto no;
            names[(*n_names)++] = i;
            expect_name = false;
        } else if (expect_name && depth == 0 && !tok_is(ts, i, ",") && !tok_is(ts, i, "*")) {
            goto no;
        }
    }
    return *n_names > first_name;
no:
    *n_names = first_name;
    return false;
}

/* Index one past the statement starting at token i (within [i, end)). */
static size_t stmt_end(const rw_toks *ts, size_t i, size_t end)
{
    if (i >= end)
        return end;
    if (tok_is(ts, i, "{")) {
        size_t c = match_close(ts, i);
        return c < end ? c + 1 : end;
    }
    if (tok_is_ident(ts, i, "if") || tok_is_ident(ts, i, "for") || tok_is_ident(ts, i, "while") ||
        tok_is_ident(ts, i, "switch")) {
        size_t c = match_close(ts, i + 1);
        if (c >= end)
            return end;
        size_t e = stmt_end(ts, c + 1, end);
        if (tok_is_ident(ts, i, "if") && tok_is_ident(ts, e, "else"))
            e = stmt_end(ts, e + 1, end);
        return e;
    }
    if (tok_is_ident(ts, i, "do")) {
        size_t e = stmt_end(ts, i + 1, end);
        return stmt_end(ts, e, end);   /* while (...); */
    }
    int depth = 0;
    for (size_t k = i; k < end; k++) {
        if (tok_is(ts, k, "(") || tok_is(ts, k, "[") || tok_is(ts, k, "{"))
            depth++;
        else if (tok_is(ts, k, ")") || tok_is(ts, k, "]") || tok_is(ts, k, "}"))
            depth--;
        else if (depth == 0 && tok_is(ts, k, ";"))
            return k + 1;
    }
    return end;
}

/* Compact text of tokens [a, b) with casts to integer types and parentheses around a
 * single operand removed, for matching the index formula. */
static void compact_index(const rw_toks *ts, size_t a, size_t b, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = a; k < b; k++) {
        if (tok_is(ts, k, "(")) {
            /* (int) / (size_t) / (unsigned long long) casts */
            size_t j = k + 1;
            while (j < b && is_type_word(ts, j))
                j++;
            if (j > k + 1 && tok_is(ts, j, ")")) {
                k = j;
                continue;
            }
            /* (blockIdx.x): parentheses around one member access */
            if (k + 4 < b && ts->t[k + 1].kind == T_IDENT && tok_is(ts, k + 2, ".") &&
                ts->t[k + 3].kind == T_IDENT && tok_is(ts, k + 4, ")")) {
                for (size_t q = k + 1; q < k + 4; q++) {
                    size_t l = ts->t[q].end - ts->t[q].start;
                    if (n + l + 1 >= size)
                        return;
                    memcpy(out + n, ts->text + ts->t[q].start, l);
                    n += l;
                }
                out[n] = '\0';
                k += 4;
                continue;
            }
        }
        if (tok_is_ident(ts, k, "static_cast") && tok_is(ts, k + 1, "<")) {
            size_t c = match_close(ts, k + 1);
            if (c < b) {
                k = c;   /* the (operand) that follows is handled as parentheses */
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

static bool is_index_formula(const char *c)
{
    static const char *const forms[] = {
        "blockIdx.x*blockDim.x+threadIdx.x", "blockDim.x*blockIdx.x+threadIdx.x",
        "threadIdx.x+blockIdx.x*blockDim.x", "threadIdx.x+blockDim.x*blockIdx.x"};
    for (size_t i = 0; i < HK_ARRAY_LEN(forms); i++)
        if (strcmp(c, forms[i]) == 0)
            return true;
    return false;
}

static char *tok_text(const rw_toks *ts, size_t a, size_t b)
{
    if (a >= b)
        return hk_strdup("");
    return hk_strndup(ts->text + ts->t[a].start, ts->t[b - 1].end - ts->t[a].start);
}

/* Why the loop body [a, b) cannot become a grid-stride loop over idx, or NULL. */
static const char *loop_body_problem(const rw_toks *ts, size_t a, size_t b, const char *idx,
                                     const rw_toks *bound, size_t ba, size_t bb)
{
    for (size_t k = a; k < b; k++) {
        if (tok_is_ident(ts, k, "__syncthreads") || tok_is_ident(ts, k, "__syncthreads_count") ||
            tok_is_ident(ts, k, "__syncthreads_and") || tok_is_ident(ts, k, "__syncthreads_or") ||
            tok_is_ident(ts, k, "__syncwarp") || tok_is_ident(ts, k, "sync") ||
            tok_is_ident(ts, k, "grid_group") || tok_is_ident(ts, k, "__shfl_sync") ||
            tok_is_ident(ts, k, "__shfl_down_sync") || tok_is_ident(ts, k, "__shfl_xor_sync") ||
            tok_is_ident(ts, k, "__ballot_sync"))
            return "the body synchronizes threads: they would leave the loop at different times";
        if (tok_is_ident(ts, k, "return"))
            return "the body returns early: a return inside the loop would skip later elements";
        if (tok_is_ident(ts, k, "goto"))
            return "the body uses goto";
        if (tok_is_ident(ts, k, idx) && !(k > 0 && (tok_is(ts, k - 1, ".") || tok_is(ts, k - 1, "->")))) {
            if ((k > 0 && (tok_is(ts, k - 1, "++") || tok_is(ts, k - 1, "--") ||
                           (tok_is(ts, k - 1, "&") && unary_position(ts, k - 1)))) ||
                tok_is_assign_op(ts, k + 1) || tok_is(ts, k + 1, "++") || tok_is(ts, k + 1, "--"))
                return "the body changes the index variable";
        }
        /* the bound must stay fixed too */
        for (size_t q = ba; q < bb; q++) {
            if (bound->t[q].kind != T_IDENT)
                continue;
            size_t l = bound->t[q].end - bound->t[q].start;
            if (ts->t[k].end - ts->t[k].start == l &&
                memcmp(ts->text + ts->t[k].start, bound->text + bound->t[q].start, l) == 0 &&
                (tok_is_assign_op(ts, k + 1) || tok_is(ts, k + 1, "++") || tok_is(ts, k + 1, "--") ||
                 (k > 0 && (tok_is(ts, k - 1, "++") || tok_is(ts, k - 1, "--")))))
                return "the body changes a variable of the bound";
        }
    }
    return NULL;
}

int rw_grid_stride(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    char *type = NULL, *init = NULL, *cond = NULL, *loop_body = NULL, *repl = NULL, *bound = NULL;
    const char *why = NULL;
    if ((rc = lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    if (ts.n < 2 || !tok_is(&ts, 0, "{") || !tok_is(&ts, ts.n - 1, "}")) {
        why = "the kernel body could not be read";
        goto na;
    }
    size_t end = ts.n - 1;   /* the closing brace */

    /* find `[const] TYPE idx = <1D index formula>;` among the top-level statements */
    size_t s = 1, decl = end, decl_end = end, idx_tok = end, eq = end;
    while (s < end) {
        size_t e = stmt_end(&ts, s, end);
        size_t k = s;
        if (tok_is_ident(&ts, k, "const"))
            k++;
        size_t tstart = k;
        while (k < e && is_type_word(&ts, k))
            k++;
        if (k > tstart && k + 2 < e && ts.t[k].kind == T_IDENT && tok_is(&ts, k + 1, "=") &&
            tok_is(&ts, e - 1, ";")) {
            char c[256];
            compact_index(&ts, k + 2, e - 1, c, sizeof c);
            if (is_index_formula(c)) {
                decl = s;
                decl_end = e;
                idx_tok = k;
                eq = k + 1;
                if (!(type = tok_text(&ts, tstart, k)))
                    goto nomem;
                break;
            }
        }
        s = e;
    }
    if (decl == end) {
        why = "no `int i = blockIdx.x * blockDim.x + threadIdx.x;` declaration at the top level "
              "of the body (only the 1D pattern is rewritten)";
        goto na;
    }
    char idx[128];
    snprintf(idx, sizeof idx, "%.*s", (int)(ts.t[idx_tok].end - ts.t[idx_tok].start),
             text + ts.t[idx_tok].start);
    if (!(init = tok_text(&ts, eq + 1, decl_end - 1)))
        goto nomem;

    /* declarations that do not involve the index may sit between it and the bounds check
     * (`long total = rows * cols;`): they are hoisted above the loop, which is only right
     * when the loop body never changes what they declare (checked below) */
    size_t ifs = decl_end, hoist_a = decl_end, n_hoisted = 0;
    size_t hoisted_names[16];
    while (ifs < end && is_hoistable_decl(&ts, ifs, stmt_end(&ts, ifs, end), idx, hoisted_names,
                                          &n_hoisted, HK_ARRAY_LEN(hoisted_names)))
        ifs = stmt_end(&ts, ifs, end);
    size_t hoist_b = ifs;
    if (!tok_is_ident(&ts, ifs, "if") || !tok_is(&ts, ifs + 1, "(")) {
        why = "the index declaration is not followed by `if (i < n) ...` or `if (i >= n) return;`";
        goto na;
    }
    size_t cclose = match_close(&ts, ifs + 1);
    if (cclose >= end) {
        why = "unbalanced condition";
        goto na;
    }
    size_t if_end = stmt_end(&ts, ifs, end);
    size_t then_start = cclose + 1;
    size_t then_end = stmt_end(&ts, then_start, end);
    if (then_end != if_end) {
        why = "the bounds check has an else branch";
        goto na;
    }
    /* condition: idx < B, B > idx (case A); idx >= B, B <= idx (case B) */
    size_t ca = ifs + 2, cb = cclose;
    bool case_a = false, case_b = false;
    size_t ba = 0, bb = 0;
    if (tok_is_ident(&ts, ca, idx) && (tok_is(&ts, ca + 1, "<") || tok_is(&ts, ca + 1, ">="))) {
        case_a = tok_is(&ts, ca + 1, "<");
        case_b = !case_a;
        ba = ca + 2;
        bb = cb;
    } else if (cb >= 2 && tok_is_ident(&ts, cb - 1, idx) &&
               (tok_is(&ts, cb - 2, ">") || tok_is(&ts, cb - 2, "<="))) {
        case_a = tok_is(&ts, cb - 2, ">");
        case_b = !case_a;
        ba = ca;
        bb = cb - 2;
    }
    if (!case_a && !case_b) {
        why = "the bounds check is not a plain `i < n` or `i >= n` comparison";
        goto na;
    }
    if (ba >= bb) {
        why = "the bounds check has no bound";
        goto na;
    }
    for (size_t k = ba; k < bb; k++) {
        if (tok_is_ident(&ts, k, idx) || tok_is_assign_op(&ts, k) || tok_is(&ts, k, "++") ||
            tok_is(&ts, k, "--") || tok_is(&ts, k, "&&") || tok_is(&ts, k, "||") ||
            tok_is(&ts, k, "?") || tok_is(&ts, k, "<") || tok_is(&ts, k, ">") ||
            tok_is(&ts, k, "<=") || tok_is(&ts, k, ">=") || tok_is(&ts, k, "==") || tok_is(&ts, k, "!=")) {
            why = "the bound is not a simple expression independent of the index";
            goto na;
        }
    }
    if (!(bound = tok_text(&ts, ba, bb)) || !(cond = tok_text(&ts, ca, cb)))
        goto nomem;

    size_t body_a, body_b;   /* token range of the statements that become the loop body */
    uint32_t repl_start = ts.t[decl].start, repl_end;
    if (case_a) {
        if (if_end != end) {
            why = "statements follow the bounds check: they would run once per thread, not per element";
            goto na;
        }
        body_a = then_start;
        body_b = then_end;
        repl_end = ts.t[if_end - 1].end;
    } else {
        /* then-branch must be `return;` or `{ return; }` */
        bool ret = (tok_is_ident(&ts, then_start, "return") && tok_is(&ts, then_start + 1, ";") &&
                    then_end == then_start + 2) ||
                   (tok_is(&ts, then_start, "{") && tok_is_ident(&ts, then_start + 1, "return") &&
                    tok_is(&ts, then_start + 2, ";") && tok_is(&ts, then_start + 3, "}") &&
                    then_end == then_start + 4);
        if (!ret) {
            why = "`if (i >= n)` is not followed by a plain return";
            goto na;
        }
        if (if_end >= end) {
            why = "nothing follows the bounds check";
            goto na;
        }
        body_a = if_end;
        body_b = end;
        repl_end = ts.t[end].start;
    }
    if ((why = loop_body_problem(&ts, body_a, body_b, idx, &ts, ba, bb)))
        goto na;
    for (size_t h = 0; h < n_hoisted; h++) {
        char hn[128];
        const rw_tok *ht = &ts.t[hoisted_names[h]];
        snprintf(hn, sizeof hn, "%.*s", (int)(ht->end - ht->start), text + ht->start);
        if (loop_body_problem(&ts, body_a, body_b, hn, &ts, 0, 0)) {
            why = "the body changes a variable declared before the bounds check";
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
        if (!(loop_body = tok_text(&ts, body_a, body_b)))
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
    if ((rc = edits_add(&es, repl_start, repl_end, repl)))
        goto out;
    char *desc = hk_asprintf("kernel %s: grid-stride loop over %s (%s += %s), bound %s", f->name, idx,
                             idx, stride, bound);
    rc = finish(text, len, m, f->name, &es, desc, out);
    goto out;
nomem:
    rc = HK_ENOMEM;
    goto out;
na:
    rc = not_applicable(out, hk_asprintf("grid-stride loop not applicable to kernel %s: %s", f->name, why));
out:
    hk_free(type);
    hk_free(init);
    hk_free(cond);
    hk_free(bound);
    hk_free(loop_body);
    hk_free(repl);
    edits_free(&es);
    toks_free(&ts);
    return rc;
}
