/* specialize_constants: integer scalar parameters that every launch passes as one literal
 * (a window's kernel_size, a stride, a scale factor, a mode flag) become compile-time
 * constants in a copy of the body the kernel takes when the launch passes exactly those
 * values; any other value runs the original body. nvcc then unrolls window loops whose
 * trip count was a runtime value, divides by a known constant and drops dead branches. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "spec/expr.h"
#include "spec/spec.h"
#include "core/i18n.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* Why it is exact: the copy runs only when every specialized parameter equals its value
 * (kernel parameters: the test is uniform over the grid, so barriers stay in uniform
 * control flow). Inside it, a local of the parameter's own declared type, initialised to
 * that value, shadows the parameter for the whole copied body, so every use reads the
 * value the parameter holds. The copy is a nested block: its declarations are its own.
 * Static __shared__ arrays of the body's top level are declared once, before the test, so
 * both copies use them (no second array, no more shared memory). What a second copy of a
 * body would change is refused: labels (function scope), inline assembly (its labels),
 * static locals, and static __shared__ arrays in nested blocks or named before their
 * declaration. */

#define SC_MAX 12         /* parameters specialized at most (the test's length) */
#define SC_MAX_SHARED 16  /* static __shared__ arrays moved before the test at most */

typedef struct {
    size_t param;         /* index into f->params */
    long long value;
    const char *from;     /* "the spec" or "every launch site" (static) */
    int use_line;         /* a use that gains: loop bound, divisor, branch */
    const char *use;      /* what that use is (static) */
} sc_pick;

typedef struct {
    const rw_context *ctx;
    const an_function *f;
    rw_toks ts;           /* the body's tokens: [0] its '{', [n - 1] its '}' */
    char why[640];        /* the first refusal: "construct at line N: ..." */
} sc_scan;


/* An integer literal (decimal, hex or octal, optional sign and u/l suffixes; true and false as
 * 1 and 0): true with *v. */
static bool integer_literal(const char *s, long long *v)
{
    char sq[64];
    rwl_squeeze(s, sq, sizeof sq);
    if (!sq[0] || strlen(sq) >= sizeof sq - 1)
        return false;
    const char *p = sq;
    if (*p == '(' && sq[strlen(sq) - 1] == ')') {   /* "(5)" */
        sq[strlen(sq) - 1] = '\0';
        p++;
    }
    if (!strcmp(p, "true") || !strcmp(p, "false")) {
        *v = *p == 't';
        return true;
    }
    if (!((*p >= '0' && *p <= '9') || ((*p == '-' || *p == '+') && p[1] >= '0' && p[1] <= '9')))
        return false;
    errno = 0;
    char *e;
    long long x = strtoll(p, &e, 0);
    if (errno || e == p)
        return false;
    while (*e == 'u' || *e == 'U' || *e == 'l' || *e == 'L')
        e++;
    if (*e)
        return false;
    *v = x;
    return true;
}

/* The value of a launch argument: an integer literal, or the name of a #define or constexpr
 * of the text whose value is one (`#define KSIZE 5`), defined once (two definitions, as under
 * #if branches, may differ) where the launch sees it: at file scope or in its function. */
static bool argument_value(const an_model *m, const an_launch *l, const char *arg, long long *v)
{
    if (integer_literal(arg, v))
        return true;
    char name[128];
    rwl_squeeze(arg, name, sizeof name);
    size_t found = 0;
    for (size_t t = 0; t < m->n_tunables; t++) {
        const an_tunable *tu = &m->tunables[t];
        if (tu->kind == AN_TUNE_TEMPLATE || !tu->name || strcmp(tu->name, name) ||
            (tu->owner >= 0 && tu->owner != l->caller))
            continue;
        if (found++ || !tu->value || !integer_literal(tu->value, v))
            return false;
    }
    return found == 1;
}

static bool kernel_name_is(const char *callee, const char *name)
{
    size_t a = strlen(callee), b = strlen(name);
    return !strcmp(callee, name) || (a > b + 2 && !strcmp(callee + a - b, name) && callee[a - b - 1] == ':');
}

/* The value parameter a always receives: the spec's literal, else the literal (or named
 * constant) every launch site in the text passes. false with a note in why when there is
 * none. */
static bool constant_of(sc_scan *s, size_t a, long long *v, const char **from, char *why, size_t n)
{
    const rw_context *c = s->ctx;
    const spec *sp = c->spec;
    if (sp && sp->form == SPEC_FORM_HARNESS && sp->n_args == s->f->n_params) {
        const spec_arg *sa = &sp->args[a];
        if (sa->kind != HK_ARG_SCALAR || !sa->value || hk_dtype_is_float(sa->dtype)) {
            snprintf(why, n, EN(RW_SPEC_NO_INT_VALUE));
            return false;
        }
        if (!integer_literal(expr_text(sa->value), v)) {
            snprintf(why, n, EN(RW_SPEC_NOT_LITERAL),
                     expr_text(sa->value));
            return false;
        }
        *from = EN(RW_SPEC_FROM_SPEC);
        return true;
    }
    size_t sites = 0;
    for (size_t i = 0; i < c->m->n_launches; i++) {
        const an_launch *l = &c->m->launches[i];
        if (!l->kernel || !kernel_name_is(l->kernel, s->f->name))
            continue;
        long long x;
        if (l->form == AN_LAUNCH_CUDA_API || l->n_args != s->f->n_params) {
            snprintf(why, n, EN(RW_SPEC_LAUNCH_FORM),
                     l->span.start_row + 1);
            return false;
        }
        if (!argument_value(c->m, l, l->args[a], &x) || (sites && x != *v)) {
            snprintf(why, n, sites ? EN(RW_SPEC_LAUNCH_NOT_SAME) : EN(RW_SPEC_LAUNCH_NOT_LITERAL),
                     l->span.start_row + 1, l->args[a]);
            return false;
        }
        *v = x;
        sites++;
    }
    if (!sites) {
        snprintf(why, n, EN(RW_SPEC_NO_SITE));
        return false;
    }
    *from = EN(RW_SPEC_FROM_SITES);
    return true;
}

/* Is token k inside the parentheses of a `for`, `while`, `if` or `switch` header? Which.
 * Walks left over closed groups to the innermost open '(' (a for header's ';' is inside
 * it); a brace ends the statement. */
static const char *header_of(const sc_scan *s, size_t k)
{
    static const char *const words[] = {"for", "while", "if", "switch"};
    static const enum hk_msg what[] = {HK_MSG_RW_SPEC_USE_LOOP_BOUND, HK_MSG_RW_SPEC_USE_LOOP_COND,
                                       HK_MSG_RW_SPEC_USE_BRANCH, HK_MSG_RW_SPEC_USE_BRANCH};
    int depth = 0;
    for (size_t j = k; j-- > 0;) {
        if (rwl_tok_is(&s->ts, j, ")"))
            depth++;
        else if (rwl_tok_is(&s->ts, j, "(")) {
            if (depth > 0) {
                depth--;
                continue;
            }
            for (size_t w = 0; w < HK_ARRAY_LEN(words); w++)
                if (j > 0 && rwl_tok_is_ident(&s->ts, j - 1, words[w]))
                    return hk_tr_in(HK_LANG_EN, what[w]);
            /* an open group that is not a header (a call, a cast): keep looking outward */
        } else if (rwl_tok_is(&s->ts, j, "{") || rwl_tok_is(&s->ts, j, "}"))
            return NULL;
    }
    return NULL;
}

/* Is token k the right operand (or inside the parenthesized right operand) of / % << >>? */
static bool divisor_at(const sc_scan *s, size_t k)
{
    static const char *const ops[] = {"/", "%", "<<", ">>", "/=", "%="};
    for (size_t j = k; j > 0; j--) {
        for (size_t o = 0; o < HK_ARRAY_LEN(ops); o++)
            if (rwl_tok_is(&s->ts, j - 1, ops[o]))
                return true;
        if (!rwl_tok_is(&s->ts, j - 1, "("))
            return false;
    }
    return false;
}

/* Where a constant value of parameter p pays: a use of p, or of a name assigned from it
 * (`int end_w = down_pw + (kernel_size - 1) / 2 + 1;`), in a loop header, a branch's
 * condition, or as a divisor or shift count. *line and *use name the first such use. */
static bool gains(const sc_scan *s, const char *p, int *line, const char **use)
{
    enum { TAINT_MAX = 64 };
    size_t taint[TAINT_MAX];   /* token indices whose spelling is tainted */
    size_t nt = 0;
    const rw_toks *ts = &s->ts;
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 1; k + 1 < ts->n; k++) {
            if (ts->t[k].kind != T_IDENT || !rwl_tok_is_assign_op(ts, k + 1) || !rwl_is_use(ts, k))
                continue;
            bool known = rwl_tok_is_ident(ts, k, p);
            for (size_t i = 0; i < nt && !known; i++)
                known = rwl_same_tok(ts, taint[i], k);
            if (known)
                continue;
            int depth = 0;
            for (size_t j = k + 2; j < ts->n; j++) {
                if (rwl_tok_is(ts, j, "(") || rwl_tok_is(ts, j, "[") || rwl_tok_is(ts, j, "{"))
                    depth++;
                else if (rwl_tok_is(ts, j, ")") || rwl_tok_is(ts, j, "]") || rwl_tok_is(ts, j, "}"))
                    depth--;
                if (depth < 0 || (depth == 0 && (rwl_tok_is(ts, j, ";") || rwl_tok_is(ts, j, ","))))
                    break;
                if (ts->t[j].kind != T_IDENT || !rwl_is_use(ts, j))
                    continue;
                bool hit = rwl_tok_is_ident(ts, j, p);
                for (size_t i = 0; i < nt && !hit; i++)
                    hit = rwl_same_tok(ts, taint[i], j);
                if (hit) {
                    if (nt < TAINT_MAX)
                        taint[nt++] = k;
                    break;
                }
            }
        }
    for (size_t k = 1; k + 1 < ts->n; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
            continue;
        bool hit = rwl_tok_is_ident(ts, k, p);
        for (size_t i = 0; i < nt && !hit; i++)
            hit = rwl_same_tok(ts, taint[i], k);
        if (!hit)
            continue;
        const char *h = header_of(s, k);
        if (h || divisor_at(s, k)) {
            *line = rwl_line_at(s->ctx->text, ts->t[k].start);
            *use = h ? h : "a divisor";
            return true;
        }
    }
    return false;
}

/* A static __shared__ array declared at the body's top level moves before the test, so both
 * copies use the one array: the declaration has no initializer and static storage, and
 * moving it up changes what its name means only if the body named it (or a local its size
 * uses) before it, which refuses. Its byte span in *a, *b. */
static bool shared_hoistable(sc_scan *s, const an_shared *sh, uint32_t *a, uint32_t *b)
{
    const rw_toks *ts = &s->ts;
    size_t at = ts->n;
    int depth = 0;
    for (size_t k = 0; k < ts->n && at == ts->n; k++) {
        if (ts->t[k].start >= sh->span.start_byte) {
            at = k;
            break;
        }
        depth += rwl_tok_is(ts, k, "{") - rwl_tok_is(ts, k, "}");
    }
    if (at == ts->n || depth != 1 || sh->span.end_byte > s->f->body_span.end_byte) {
        snprintf(s->why, sizeof s->why, EN(RW_SPEC_NESTED_SHARED),
                 sh->span.start_row + 1, sh->name);
        return false;
    }
    /* the names it declares, its type (a struct of the body) and its size use, before it */
    char words[512];
    snprintf(words, sizeof words, " %s %s ", sh->type ? sh->type : "", sh->size_expr ? sh->size_expr : "");
    for (size_t k = 1; k < at; k++) {
        bool moved = false;   /* the static __shared__ declarations before it move up too */
        for (size_t j = 0; j < s->f->n_shared && !moved; j++)
            moved = !s->f->shared[j].is_extern && ts->t[k].start >= s->f->shared[j].span.start_byte &&
                    ts->t[k].end <= s->f->shared[j].span.end_byte;
        if (ts->t[k].kind != T_IDENT || moved)
            continue;
        char w[80];
        snprintf(w, sizeof w, "%.*s", (int)(ts->t[k].end - ts->t[k].start), s->ctx->text + ts->t[k].start);
        const char *hit = strstr(words, w);
        bool in_size = false;
        while (hit && !in_size) {
            char l = hit[-1], r = hit[strlen(w)];
            in_size = !(l == '_' || (l >= 'a' && l <= 'z') || (l >= 'A' && l <= 'Z') || (l >= '0' && l <= '9')) &&
                      !(r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'));
            hit = strstr(hit + 1, w);
        }
        if (in_size || !strcmp(w, sh->name)) {
            snprintf(s->why, sizeof s->why, EN(RW_SPEC_SHARED_ORDER), sh->span.start_row + 1, sh->name, w,
                     rwl_line_at(s->ctx->text, ts->t[k].start));
            return false;
        }
    }
    *a = sh->span.start_byte;
    *b = sh->span.end_byte;
    return true;
}

/* What a second copy of the body cannot hold. false with the refusal in s->why. */
static bool body_copyable(sc_scan *s)
{
    const rw_toks *ts = &s->ts;
    for (size_t k = 1; k + 1 < ts->n; k++) {
        if (rwl_tok_is_ident(ts, k, "goto") ||
            (ts->t[k].kind == T_IDENT && rwl_tok_is(ts, k + 1, ":") &&
             (rwl_tok_is(ts, k - 1, ";") || rwl_tok_is(ts, k - 1, "{") || rwl_tok_is(ts, k - 1, "}"))))
            return rwl_refuse(s->why, sizeof s->why, ts, s->ctx->text, k, "label",
                              EN(RW_SPEC_LABEL));
        if (rwl_tok_is_ident(ts, k, "asm") || rwl_tok_is_ident(ts, k, "__asm__") || rwl_tok_is_ident(ts, k, "__asm"))
            return rwl_refuse(s->why, sizeof s->why, ts, s->ctx->text, k, "inline assembly",
                              EN(RW_SPEC_PTX));
        if (rwl_tok_is_ident(ts, k, "static"))
            return rwl_refuse(s->why, sizeof s->why, ts, s->ctx->text, k, "static local",
                              EN(RW_SPEC_STATIC));
    }
    return true;
}

static int specialize(const rw_context *ctx, rw_result *out)
{
    if (!ctx || !out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    sc_scan s = {.ctx = ctx, .f = f};
    rw_edits es = {0};
    struct hk_buf b, what;
    hk_buf_init(&b, RW_TEXT_MAX);
    hk_buf_init(&what, 1 << 12);
    sc_pick pick[SC_MAX];
    size_t np = 0;
    if ((rc = rwl_lex(ctx->text, f->body_span.start_byte, f->body_span.end_byte, &s.ts)))
        goto out;
    if (s.ts.n < 2 || !rwl_tok_is(&s.ts, 0, "{") || rwl_match_close(&s.ts, 0) != s.ts.n - 1) {
        snprintf(s.why, sizeof s.why, EN(RW_SPEC_BRACES),
                 rwl_line_at(ctx->text, f->body_span.start_byte));
        goto refuse;
    }
    /* the parameters: integer scalars with one value, never written, used where it pays */
    char note[400] = "";
    int note_rank = 0;   /* the parameter that came closest says why: 1 no value, 2 written,
                          * 3 a value that nothing gains from */
    for (size_t a = 0; a < f->n_params && np < SC_MAX; a++) {
        const an_param *p = &f->params[a];
        /* integer types only: a float equal under == may still differ (-0.0 and 0.0) */
        if (p->pointer_depth || !p->name || !p->name[0] || !rwp_integer_type(p->type, true))
            continue;
        size_t first = 0, written = 0;
        for (size_t k = 1; k + 1 < s.ts.n; k++)
            if (rwl_tok_is_ident(&s.ts, k, p->name) && rwl_is_use(&s.ts, k)) {
                first = first ? first : k;
                written = !written && rwl_scalar_written(&s.ts, k) ? k : written;
            }
        if (!first)
            continue;
        char w[300] = "";
        long long v = 0;
        const char *from = NULL;
        if (!constant_of(&s, a, &v, &from, w, sizeof w)) {
            if (note_rank < 1 && (note_rank = 1))
                snprintf(note, sizeof note, EN(RW_SPEC_PARAM), p->span.start_row + 1, p->name, w);
            continue;
        }
        if (written) {
            if (note_rank < 2 && (note_rank = 2))
                snprintf(note, sizeof note, EN(RW_SPEC_PARAM_WRITTEN),
                         rwl_line_at(ctx->text, s.ts.t[written].start), p->name);
            continue;
        }
        int line = 0;
        const char *use = NULL;
        if (!gains(&s, p->name, &line, &use)) {
            if (note_rank < 3 && (note_rank = 3))
                snprintf(note, sizeof note, EN(RW_SPEC_PARAM_UNUSED), rwl_line_at(ctx->text, s.ts.t[first].start), p->name,
                         from, v);
            continue;
        }
        pick[np++] = (sc_pick){.param = a, .value = v, .from = from, .use_line = line, .use = use};
    }
    if (!np) {
        if (note[0])
            snprintf(s.why, sizeof s.why, "%s", note);
        else
            snprintf(s.why, sizeof s.why, EN(RW_SPEC_NO_PARAM), f->name_span.start_row + 1);
        goto refuse;
    }
    if (!body_copyable(&s))
        goto refuse;
    /* static __shared__ arrays of the top level go before the test, in their order (the
     * analysis lists them in source order) */
    uint32_t cut[SC_MAX_SHARED][2];
    const char *cut_name[SC_MAX_SHARED];
    size_t ncut = 0;
    for (size_t i = 0; i < f->n_shared; i++) {
        if (f->shared[i].is_extern)
            continue;
        if (ncut == SC_MAX_SHARED) {
            snprintf(s.why, sizeof s.why, EN(RW_SPEC_TOO_MANY_SHARED),
                     f->shared[i].span.start_row + 1, SC_MAX_SHARED);
            goto refuse;
        }
        if (!shared_hoistable(&s, &f->shared[i], &cut[ncut][0], &cut[ncut][1]))
            goto refuse;
        cut_name[ncut] = f->shared[i].name;
        if (ncut && cut[ncut][0] == cut[ncut - 1][0] && cut[ncut][1] == cut[ncut - 1][1])
            continue;   /* `__shared__ float a[N], b[M];`: one statement */
        if (ncut && cut[ncut][0] < cut[ncut - 1][1]) {
            snprintf(s.why, sizeof s.why, EN(RW_SPEC_SHARED_OUT_OF_ORDER),
                     f->shared[i].span.start_row + 1);
            goto refuse;
        }
        ncut++;
    }

    /* { SHARED if (p == V && ...) { T p = V; ... BODY } else BODY }, BODY without SHARED */
    if ((rc = hk_buf_appends(&b, "{\n")))
        goto out;
    for (size_t i = 0; i < ncut && !rc; i++)
        rc = hk_buf_printf(&b, "    %.*s\n", (int)(cut[i][1] - cut[i][0]), ctx->text + cut[i][0]);
    struct hk_buf bodyb;
    hk_buf_init(&bodyb, RW_TEXT_MAX);
    uint32_t from = f->body_span.start_byte;
    for (size_t i = 0; i <= ncut && !rc; i++) {
        uint32_t to = i < ncut ? cut[i][0] : f->body_span.end_byte;
        rc = hk_buf_append(&bodyb, ctx->text + from, to - from);
        if (!rc && i < ncut)
            rc = hk_buf_printf(&bodyb, "/* __shared__ %s: declared before the test */", cut_name[i]); /* i18n: not for people */
        from = i < ncut ? cut[i][1] : from;
    }
    const char *body = bodyb.data ? bodyb.data : "";
    int bl = (int)bodyb.len;
    if (!rc)
        rc = hk_buf_appends(&b, "    if (");
    for (size_t i = 0; i < np && !rc; i++)
        rc = hk_buf_printf(&b, "%s%s == %lld%s", i ? " && " : "", f->params[pick[i].param].name, pick[i].value,
                           pick[i].value > 2147483647LL || pick[i].value < -2147483647LL ? "LL" : "");
    if (!rc)
        rc = hk_buf_appends(&b, ") {\n        /* specialize_constants: the values the launches pass, as " /* i18n: not for people */
                                "constants the compiler folds; other values run the original below */\n");
    for (size_t i = 0; i < np && !rc; i++) {
        const an_param *p = &f->params[pick[i].param];
        rc = hk_buf_printf(&b, "        %s %s = %lld%s;\n", p->type, p->name, pick[i].value,
                           pick[i].value > 2147483647LL || pick[i].value < -2147483647LL ? "LL" : "");
        if (!rc)
            rc = hk_buf_printf(&what, EN(RW_SPEC_PICK), i ? ", " : "", p->name, pick[i].value,
                               pick[i].from, pick[i].use, pick[i].use_line);
    }
    if (!rc)
        rc = hk_buf_printf(&b, "        %.*s\n    } else %.*s\n}", bl, body, bl, body);
    hk_buf_free(&bodyb);
    if (rc)
        goto out;
    char *nb = hk_buf_steal(&b);
    if (!nb) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_edits_add_owned(&es, f->body_span.start_byte, f->body_span.end_byte, nb)))
        goto out;
    rc = rwl_finish(ctx->text, ctx->len, ctx->m, f->name, &es,
                    hk_asprintf(EN(RW_SPEC_DESC),
                                what.data ? what.data : ""),
                    out);
    /* the copy's test and shadows read parameters only, never the launch: the text runs
     * under whatever launch the text it was given runs (RW_STACKS, as float_literals) */
    if (rc == HK_OK && out->applicable)
        out->keeps_launch = true;
    goto out;
refuse:
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "specialize_constants", f->name,
                                             s.why));
out:
    rwl_edits_free(&es);
    hk_buf_free(&b);
    hk_buf_free(&what);
    rwl_toks_free(&s.ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static int emit_specialize(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return specialize(c, out);
}

const rw_descriptor rw_specialize_constants_desc = {
    .name = "specialize_constants",
    .summary = "integer scalar parameters every launch passes as one literal (window sizes, strides, modes) " /* i18n: not for people (no listing reads it) */
               "become constants in a copy of the body taken for those values (loops of known trip count "
               "unroll); other values run the original (exact)",
    /* it stacks (RW_STACKS): it versions whatever body it is given on the launches'
     * literals and keeps that text's launch, so the search also puts it on the leading
     * structural candidate's output (fast_divmod's, channel_chunks': mmcv's ROI kernels,
     * where the two gains address different costs: the divisions by problem sizes, the
     * per-element ROI work, against the window loops of runtime trip count) */
    .flags = RW_STACKS,
    .emit = emit_specialize,
};
