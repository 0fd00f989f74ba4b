/* table_hoist: an all-pairs loop over a table that every thread of the block reads alike
 * (mmcv's points_in_boxes: each point tests every box) whose steps compute, per element,
 * math that depends on the element only (a cos and a sin of the box's angle, inside an
 * inlined __device__ helper): uniform_tiles' __shared__ tiles, plus one tile per such value,
 * computed once per block and element by the element's loader instead of once per thread.
 *
 * Why: in points_in_boxes every thread of a block computes cos/sin of the same box's rz in
 * the same step; 512 threads compute one value 512 times. Staged, each block computes it
 * once per box and every thread reads it from shared memory (a broadcast).
 *
 * Exact, bit for bit: a hoisted value is a declarator `TYPE x = INIT` whose INIT reads only
 * values that are the same for every thread at that step (the loop's counter, kernel
 * parameters nothing writes, elements of tables nothing writes, and earlier such locals or
 * helper parameters bound to such values), and calls a math function; the loader evaluates
 * the same INIT text on the same values into a TYPE and the thread reads that TYPE back. The
 * helpers on the way get a copy (NAME_hk) that takes the values as trailing parameters, so
 * the originals stay for other callers. The loader evaluates INIT for every element in the
 * loop's range, also those whose step would not reach it (after a condition, after a break):
 * INIT may therefore only call math functions (no trap on any input) and contain no `/` or
 * `%` (an integer division by zero would trap), and every memory read the loader repeats
 * must be one the step makes unconditionally (the straight-line top of its function, a call
 * made there). Barriers, breaks, grid-stride loops and early returns are uniform_tiles'. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_tiles.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define HZ_MAX_NAMES 64
#define HZ_MAX_FUNCS 4
#define HZ_MAX_DEPTH 4

/* A name whose value is the same for every thread at the step. */
typedef struct {
    char name[64];
    char elem[64];   /* its type's base (the kernel's spelling: template parameters must agree) */
    bool pointer;    /* a pointer into a table nothing writes: only read through [] */
} hz_name;

typedef struct {
    hz_name v[HZ_MAX_NAMES];
    size_t n;
} hz_scope;

/* A helper that gets a copy taking the values as trailing parameters. */
typedef struct {
    const an_function *f;
    rw_edits es;          /* against the original text, inside f's span */
    size_t c0, c1;        /* its columns [c0, c1) */
} hz_func;

typedef struct {
    const char *text;
    size_t len;
    const an_model *m;
    const an_function *kf;
    hz_func funcs[HZ_MAX_FUNCS];
    size_t n_funcs;
    char *col_type[RW_TILE_MAX_COLUMNS];
    size_t n_cols;
    char why[600];    /* a refusal of the whole rewrite */
    char soft[600];   /* the first call not followed (its values stay per thread): said when
                       * nothing is hoisted */
} hz;

/* Drops the columns from c0 and the copies from n_funcs on (a call not followed after all). */
static void rollback(hz *z, size_t c0, size_t n_funcs)
{
    while (z->n_cols > c0)
        hk_free(z->col_type[--z->n_cols]);
    while (z->n_funcs > n_funcs)
        rwl_edits_free(&z->funcs[--z->n_funcs].es);
}

static const char *const math_calls[] = {
    "sin",   "cos",   "tan",   "sinf",   "cosf",   "tanf",   "asin",  "acos",  "atan",  "asinf", "acosf",
    "atanf", "atan2", "atan2f", "exp",   "expf",   "exp2",   "exp2f", "log",   "logf",  "log2",  "log2f",
    "sqrt",  "sqrtf", "rsqrt", "rsqrtf", "pow",    "powf",   "hypot", "hypotf", "__sinf", "__cosf", "__expf",
    "__logf", "sinpi", "cospi", "sinpif", "cospif", "cbrt",  "cbrtf", "tanh",  "tanhf",
};

static bool is_math(const rw_toks *ts, size_t k)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(math_calls); i++)
        if (rwl_tok_is_ident(ts, k, math_calls[i]))
            return true;
    return false;
}

static const hz_name *scope_find(const hz_scope *u, const rw_toks *ts, size_t k)
{
    size_t n = ts->t[k].end - ts->t[k].start;
    for (size_t i = u->n; i-- > 0;)
        if (strlen(u->v[i].name) == n && !memcmp(u->v[i].name, ts->text + ts->t[k].start, n))
            return &u->v[i];
    return NULL;
}

static bool scope_add(hz_scope *u, const char *name, size_t nl, const char *elem, bool pointer)
{
    if (u->n == HZ_MAX_NAMES || nl >= sizeof u->v[0].name || strlen(elem) >= sizeof u->v[0].elem)
        return false;
    hz_name *v = &u->v[u->n++];
    memcpy(v->name, name, nl);
    v->name[nl] = '\0';
    snprintf(v->elem, sizeof v->elem, "%s", elem);
    v->pointer = pointer;
    return true;
}

/* Does [a, b) compute a value that is the same for every thread at the step, from the
 * names of u, literals, operators, casts to type words and pure calls, reading tables only
 * through `P[...]` of a pointer of u? *reads: whether it subscripts; *math: whether it calls
 * a math function; *div: whether it divides. */
static bool uniform_expr(const rw_toks *ts, size_t a, size_t b, const hz_scope *u, bool *reads, bool *math, bool *div)
{
    for (size_t k = a; k < b; k++) {
        const rw_tok *t = &ts->t[k];
        if (t->kind == T_NUMBER)
            continue;
        if (t->kind == T_STRING)
            return false;
        if (t->kind == T_IDENT) {
            if (rwl_tok_is(ts, k + 1, "(") && (rwl_pure_call_name(ts, k) || is_math(ts, k))) {
                *math = *math || is_math(ts, k);
                continue;
            }
            if (rwl_is_type_word(ts, k))
                continue;
            const hz_name *v = scope_find(u, ts, k);
            if (!v || !rwl_is_use(ts, k))
                return false;
            if (v->pointer) {
                if (!rwl_tok_is(ts, k + 1, "["))
                    return false;
                size_t c = rwl_match_close(ts, k + 1);
                if (c >= b || rwl_tok_is_assign_op(ts, c + 1) || rwl_tok_is(ts, c + 1, "++") ||
                    rwl_tok_is(ts, c + 1, "--") || (k > a && rwl_tok_is(ts, k - 1, "&")))
                    return false;
                *reads = true;
            }
            continue;
        }
        if (rwl_tok_is_assign_op(ts, k) || rwl_tok_is(ts, k, "++") || rwl_tok_is(ts, k, "--") ||
            rwl_tok_is(ts, k, ".") || rwl_tok_is(ts, k, "->") || rwl_tok_is(ts, k, "{"))
            return false;
        if (rwl_tok_is(ts, k, "/") || rwl_tok_is(ts, k, "%"))
            *div = true;
    }
    return a < b;
}

/* Is the name at token d (declared there) written anywhere in [a, b)? */
static bool written_in(const rw_toks *ts, size_t d, size_t a, size_t b)
{
    for (size_t k = a; k < b; k++)
        if (k != d && rwl_same_tok(ts, k, d) && rwl_is_use(ts, k) && rwl_scalar_written(ts, k))
            return true;
    return false;
}

/* The type words of a declaration without qualifiers: "const T" -> "T". */
static char *plain_type(const rw_toks *ts, size_t a, size_t b)
{
    struct hk_buf tb;
    hk_buf_init(&tb, 256);
    int rc = 0;
    for (size_t j = a; j < b && !rc; j++)
        if (!rwl_tok_is(ts, j, "const") && !rwl_tok_is(ts, j, "volatile") && !rwl_tok_is(ts, j, "register"))
            rc = hk_buf_printf(&tb, "%s%.*s", tb.len ? " " : "", (int)(ts->t[j].end - ts->t[j].start),
                               ts->text + ts->t[j].start);
    char *r = rc || !tb.len ? NULL : hk_buf_steal(&tb);
    hk_buf_free(&tb);
    return r;
}

static const an_function *callee(const hz *z, const rw_toks *ts, size_t k)
{
    size_t nl = ts->t[k].end - ts->t[k].start;
    for (size_t i = 0; i < z->m->n_funcs; i++) {
        const an_function *g = &z->m->funcs[i];
        if (g != z->kf && g->name && strlen(g->name) == nl && !memcmp(g->name, z->text + ts->t[k].start, nl) &&
            g->body_span.end_byte > g->body_span.start_byte)
            return g;
    }
    return NULL;
}

static int scan_function(hz *z, const an_function *g, hz_scope *u, int depth, struct hk_buf *stage, bool *reads,
                         size_t *hfunc);

/* The statements of the block [a, b) (its braces excluded): a step's body (the loop's, or a
 * helper's with its parameters bound in u). Adds the names it declares that are the same for
 * every thread to u, their declarations to stage, a column for each one that calls a math
 * function (its INIT replaced by the column's name through es), and recurses into the calls
 * that pass such values. *reads: the stage reads memory. HK_OK (a refusal is z->why set),
 * HK_ENOMEM. */
static int scan_block(hz *z, const rw_toks *ts, size_t a, size_t b, hz_scope *u, int depth, struct hk_buf *stage,
                      rw_edits *es, bool *reads)
{
    int rc = HK_OK;
    bool straight = true;
    for (size_t st = a; st < b && !rc && !z->why[0];) {
        size_t se = rwl_stmt_end(ts, st, b);
        if (rwl_tok_is_ident(ts, st, "if") || rwl_tok_is_ident(ts, st, "for") || rwl_tok_is_ident(ts, st, "while") ||
            rwl_tok_is_ident(ts, st, "do") || rwl_tok_is_ident(ts, st, "switch") || rwl_tok_is(ts, st, "{") ||
            rwl_tok_is_ident(ts, st, "return") || rwl_tok_is_ident(ts, st, "break") ||
            rwl_tok_is_ident(ts, st, "continue") || rwl_tok_is_ident(ts, st, "goto"))
            straight = false;
        for (size_t k = st; k < se; k++)
            if (rwl_tok_is(ts, k, "?") || rwl_tok_is(ts, k, "&&") || rwl_tok_is(ts, k, "||"))
                straight = false;
        bool control = rwl_tok_is_ident(ts, st, "if") || rwl_tok_is_ident(ts, st, "for") ||
                       rwl_tok_is_ident(ts, st, "while") || rwl_tok_is_ident(ts, st, "do") ||
                       rwl_tok_is_ident(ts, st, "switch") || rwl_tok_is(ts, st, "{");
        if (!control && rwl_starts_declaration(ts, st) && !rwl_tok_is_ident(ts, st, "static") &&
            !rwl_tok_is_ident(ts, st, "__shared__") && !rwl_tok_is_ident(ts, st, "extern")) {
            /* TYPE d1 = e1, d2 = e2; : the type ends before the first declarator's name */
            size_t tend = st;
            while (tend + 1 < se && !(ts->t[tend].kind == T_IDENT && !rwl_is_type_word(ts, tend) && tend > st &&
                                      (rwl_tok_is(ts, tend + 1, "=") || rwl_tok_is(ts, tend + 1, ",") ||
                                       rwl_tok_is(ts, tend + 1, ";") || rwl_tok_is(ts, tend + 1, "["))))
                tend++;
            bool plain = true;
            for (size_t j = st; j < tend; j++)
                plain = plain && !rwl_tok_is(ts, j, "*") && !rwl_tok_is(ts, j, "&") && !rwl_tok_is(ts, j, "<");
            char *type = plain ? plain_type(ts, st, tend) : NULL;
            if (plain && !type)
                return HK_ENOMEM;
            for (size_t d = tend; type && d + 1 < se && !rc;) {
                size_t de = d;
                int dep = 0;
                while (de < se - 1) {
                    dep += rwl_tok_is(ts, de, "(") || rwl_tok_is(ts, de, "[") || rwl_tok_is(ts, de, "{");
                    dep -= rwl_tok_is(ts, de, ")") || rwl_tok_is(ts, de, "]") || rwl_tok_is(ts, de, "}");
                    if (dep == 0 && rwl_tok_is(ts, de, ","))
                        break;
                    de++;
                }
                bool r = false, math = false, div = false;
                if (ts->t[d].kind == T_IDENT && rwl_tok_is(ts, d + 1, "=") &&
                    uniform_expr(ts, d + 2, de, u, &r, &math, &div) && (straight || !r) &&
                    !written_in(ts, d, d + 1, b)) {
                    /* the same in every thread: the loader declares it too */
                    if (!scope_add(u, ts->text + ts->t[d].start, ts->t[d].end - ts->t[d].start, type, false)) {
                        hk_free(type);
                        return rwl_refuse(z->why, sizeof z->why, ts, z->text, d, EN(RW_C_DECLARATION), "%s",
                                          EN(RW_HZ_TOO_MANY_VALUES)),
                               HK_OK;
                    }
                    *reads = *reads || r;
                    rc = hk_buf_printf(stage, "%s %.*s = %.*s;\n", type, (int)(ts->t[d].end - ts->t[d].start),
                                       ts->text + ts->t[d].start, (int)(ts->t[de - 1].end - ts->t[d + 2].start),
                                       ts->text + ts->t[d + 2].start);
                    if (!rc && math && !div) {
                        if (z->n_cols == RW_TILE_MAX_COLUMNS) {
                            hk_free(type);
                            return rwl_refuse(z->why, sizeof z->why, ts, z->text, d, EN(RW_C_DECLARATION),
                                              EN(RW_HZ_MORE_VALUES),
                                              RW_TILE_MAX_COLUMNS),
                                   HK_OK;
                        }
                        size_t c = z->n_cols;
                        if (!(z->col_type[c] = hk_strdup(type)))
                            rc = HK_ENOMEM;
                        z->n_cols++;
                        rc = rc ? rc : hk_buf_printf(stage, "hk_c%zu = %.*s;\n", c,
                                                     (int)(ts->t[d].end - ts->t[d].start), ts->text + ts->t[d].start);
                        rc = rc ? rc
                                : rwl_edits_add_owned(es, ts->t[d + 2].start, ts->t[de - 1].end,
                                                      hk_asprintf("hk_c%zu", c));
                    }
                }
                d = de + 1;
            }
            hk_free(type);
            /* its other declarators may call the file's functions: `int in = f(p, t + k * 5);` */
        }
        /* calls of the file's functions that pass values the same for every thread */
        for (size_t k = st; k + 1 < se && !rc && !z->why[0]; k++) {
            if (ts->t[k].kind != T_IDENT || !rwl_tok_is(ts, k + 1, "(") || rwl_is_type_word(ts, k))
                continue;
            if (rwl_tok_is(ts, k, "{"))
                break;
            const an_function *g = callee(z, ts, k);
            if (!g)
                continue;
            size_t cc = rwl_match_close(ts, k + 1);
            if (cc >= se)
                continue;
            /* bind each argument that is the same for every thread to g's parameter */
            hz_scope gu = {0};
            struct hk_buf gs;
            hk_buf_init(&gs, RW_TEXT_MAX);
            size_t arg = 0;
            bool any = false;
            for (size_t aa = k + 2; aa < cc && !rc; arg++) {
                size_t ae = aa;
                int dep = 0;
                while (ae < cc && !(dep == 0 && rwl_tok_is(ts, ae, ","))) {
                    dep += rwl_tok_is(ts, ae, "(") || rwl_tok_is(ts, ae, "[");
                    dep -= rwl_tok_is(ts, ae, ")") || rwl_tok_is(ts, ae, "]");
                    ae++;
                }
                if (arg >= g->n_params)
                    break;
                const an_param *p = &g->params[arg];
                bool r = false, math = false, div = false;
                /* a pointer of u moved by such a value (`boxes + k * 7`), or a value of u */
                const hz_name *base = NULL;
                for (size_t j = aa; j < ae; j++)
                    if (ts->t[j].kind == T_IDENT && scope_find(u, ts, j) && scope_find(u, ts, j)->pointer &&
                        !rwl_tok_is(ts, j + 1, "["))
                        base = base ? NULL : scope_find(u, ts, j);
                bool ok;
                if (p->pointer_depth == 1 && p->is_const && base && p->type && !strchr(p->type, '[')) {
                    /* its other tokens: + and a value of u */
                    hz_scope tmp = *u;
                    for (size_t i = 0; i < tmp.n; i++)
                        if (!strcmp(tmp.v[i].name, base->name))
                            tmp.v[i].pointer = false;
                    ok = uniform_expr(ts, aa, ae, &tmp, &r, &math, &div) && !r && strstr(p->elem_type ? p->elem_type : "", base->elem) != NULL;
                    for (size_t j = aa; ok && j < ae; j++)
                        ok = !rwl_tok_is(ts, j, "-") || j == aa;
                } else {
                    ok = p->pointer_depth == 0 && p->type && !strchr(p->type, '&') && !strchr(p->type, '[') &&
                         uniform_expr(ts, aa, ae, u, &r, &math, &div);
                }
                if (ok && p->name && p->name[0] && strncmp(p->name, "hk_", 3)) {
                    const char *elem = base ? base->elem : NULL;
                    if (!elem) {
                        /* a value: its type's base, when one name of u is passed alone */
                        const hz_name *v = ae == aa + 1 ? scope_find(u, ts, aa) : NULL;
                        elem = v ? v->elem : "";
                    }
                    if (!scope_add(&gu, p->name, strlen(p->name), elem, base != NULL))
                        ok = false;
                    else
                        rc = hk_buf_printf(&gs, "%s hk_a%d_%zu = (%.*s);\n", p->type, depth, arg,
                                           (int)(ts->t[ae - 1].end - ts->t[aa].start), ts->text + ts->t[aa].start);
                    any = any || ok;
                }
                aa = ae + 1;
            }
            if (!rc && any) {
                size_t c0 = z->n_cols, f0 = z->n_funcs, hf = 0;
                bool greads = false;
                struct hk_buf inner;
                hk_buf_init(&inner, RW_TEXT_MAX);
                rc = hk_buf_appends(&inner, "{\n");
                for (size_t i = 0; i < gu.n && !rc; i++)
                    for (size_t pi = 0; pi < g->n_params; pi++)
                        if (g->params[pi].name && !strcmp(g->params[pi].name, gu.v[i].name))
                            rc = hk_buf_printf(&inner, "%s %s = hk_a%d_%zu;\n", g->params[pi].type, gu.v[i].name,
                                               depth, pi);
                rc = rc ? rc : scan_function(z, g, &gu, depth + 1, &inner, &greads, &hf);
                rc = rc ? rc : hk_buf_appends(&inner, "}\n");
                if (!rc && !z->why[0] && z->n_cols > c0 && greads && !straight) {
                    /* the loader would read what a step that skips the call does not */
                    rwl_refuse(z->soft, sizeof z->soft, ts, z->text, k, "call",
                               EN(RW_HZ_NOT_EVERY_STEP),
                               g->name);
                    rollback(z, c0, f0);
                }
                if (!rc && !z->why[0] && z->n_cols > c0) {
                    *reads = *reads || greads;
                    rc = hk_buf_appends(stage, "{\n");
                    rc = rc ? rc : hk_buf_append(stage, gs.data, gs.len);
                    rc = rc ? rc : hk_buf_append(stage, inner.data, inner.len);
                    rc = rc ? rc : hk_buf_appends(stage, "}\n");
                    /* the call: g_hk(args..., hk_c0, ...) */
                    rc = rc ? rc : rwl_edits_add(es, ts->t[k].end, ts->t[k].end, "_hk");
                    struct hk_buf ex;
                    hk_buf_init(&ex, 4096);
                    for (size_t c = c0; c < z->n_cols && !rc; c++)
                        rc = hk_buf_printf(&ex, "%shk_c%zu", c == c0 && cc == k + 2 ? "" : ", ", c);
                    rc = rc ? rc : rwl_edits_add_owned(es, ts->t[cc].start, ts->t[cc].start, hk_buf_steal(&ex));
                    hk_buf_free(&ex);
                }
                hk_buf_free(&inner);
            }
            hk_buf_free(&gs);
            k = cc;
        }
        st = se;
    }
    return rc;
}

/* g's body with its parameters bound in u (those of u that g never writes): its staging
 * goes to stage; when it computes a column, g gets a copy (z->funcs). */
static int scan_function(hz *z, const an_function *g, hz_scope *u, int depth, struct hk_buf *stage, bool *reads,
                         size_t *hfunc)
{
    if (depth > HZ_MAX_DEPTH)
        return HK_OK;
    for (size_t i = 0; i < z->n_funcs; i++)
        if (z->funcs[i].f == g) {
            /* its copy takes the first call's values: this call keeps the original */
            if (!z->soft[0])
                snprintf(z->soft, sizeof z->soft, EN(RW_HZ_SECOND_CALL), g->name,
                         rwl_line_at(z->text, g->name_span.start_byte));
            return HK_OK;
        }
    if (z->n_funcs == HZ_MAX_FUNCS)
        return HK_OK;
    rw_toks ts = {0};
    int rc = rwl_lex(z->text, g->span.start_byte, g->span.end_byte, &ts);
    if (rc)
        return rc == HK_ENOMEM ? rc : HK_OK;
    size_t ob = 0;
    while (ob < ts.n && ts.t[ob].start != g->body_span.start_byte)
        ob++;
    size_t oc = ob < ts.n ? rwl_match_close(&ts, ob) : ts.n;
    size_t self = z->n_funcs;
    hz_func *hf = &z->funcs[z->n_funcs++];
    memset(hf, 0, sizeof *hf);
    hf->f = g;
    hf->c0 = z->n_cols;
    if (oc >= ts.n)
        goto drop;
    /* its parameters that it writes are not the caller's values any more */
    for (size_t i = 0; i < u->n; i++)
        for (size_t k = ob; k < oc; k++)
            if (rwl_tok_is_ident(&ts, k, u->v[i].name) && rwl_is_use(&ts, k) &&
                (rwl_scalar_written(&ts, k) || (u->v[i].pointer && !rwl_tok_is(&ts, k + 1, "[")))) {
                u->v[i].name[0] = '\0';
                break;
            }
    /* a template parameter must be the kernel's, of the same name, given by a bound value */
    bool mapped = true;
    if (g->template_params) {
        rw_toks tt = {0};
        if ((rc = rwl_lex(g->template_params, 0, (uint32_t)strlen(g->template_params), &tt)))
            goto lexfail;
        for (size_t k = 0; k + 1 < tt.n && mapped; k++) {
            if (!rwl_tok_is(&tt, k, "typename") && !rwl_tok_is(&tt, k, "class"))
                continue;
            char pn[64];
            snprintf(pn, sizeof pn, "%.*s", (int)(tt.t[k + 1].end - tt.t[k + 1].start),
                     g->template_params + tt.t[k + 1].start);
            bool given = false;
            for (size_t pi = 0; pi < g->n_params && !given; pi++)
                for (size_t i = 0; i < u->n && !given; i++)
                    if (u->v[i].name[0] && g->params[pi].name && !strcmp(g->params[pi].name, u->v[i].name) &&
                        g->params[pi].elem_type && !strcmp(g->params[pi].elem_type, pn) && !strcmp(u->v[i].elem, pn))
                        given = true;
            if (!given || !z->kf->template_params || !strstr(z->kf->template_params, pn)) {
                if (!z->soft[0])
                    snprintf(z->soft, sizeof z->soft, EN(RW_HZ_TEMPLATE), g->name,
                             rwl_line_at(z->text, g->name_span.start_byte), pn, pn);
                mapped = false;
            }
        }
        rwl_toks_free(&tt);
    }
    if (mapped)
        rc = scan_block(z, &ts, ob + 1, oc, u, depth, stage, &hf->es, reads);
lexfail:
    hf->c1 = z->n_cols;
    if (!rc && hf->c1 > hf->c0) {
        /* the copy's name, template header and trailing parameters */
        char *tp = NULL;
        struct hk_buf b;
        hk_buf_init(&b, 4096);
        for (size_t c = hf->c0; c < hf->c1 && !rc; c++)
            rc = hk_buf_printf(&b, "%stypename HK_C%zu", c == hf->c0 ? "" : ", ", c);
        tp = rc ? NULL : hk_buf_steal(&b);
        rc = rc ? rc : tp ? HK_OK : HK_ENOMEM;
        if (!rc && g->template_params) {
            size_t k = 0;
            while (k < ts.n && !rwl_tok_is(&ts, k, "<"))
                k++;
            size_t close = k < ts.n ? rwl_match_close(&ts, k) : ts.n;
            rc = close < ts.n ? rwl_edits_add_owned(&hf->es, ts.t[close].start, ts.t[close].start,
                                                    hk_asprintf(", %s", tp))
                              : HK_EINVAL;
        } else if (!rc) {
            rc = rwl_edits_add_owned(&hf->es, g->span.start_byte, g->span.start_byte, hk_asprintf("template <%s>\n", tp));
        }
        hk_free(tp);
        rc = rc ? rc : rwl_edits_add(&hf->es, g->name_span.end_byte, g->name_span.end_byte, "_hk");
        size_t po = 0;
        while (po < ts.n && ts.t[po].start < g->name_span.end_byte)
            po++;
        size_t pc = po < ts.n && rwl_tok_is(&ts, po, "(") ? rwl_match_close(&ts, po) : ts.n;
        struct hk_buf pb;
        hk_buf_init(&pb, 4096);
        for (size_t c = hf->c0; c < hf->c1 && !rc; c++)
            rc = hk_buf_printf(&pb, "%sHK_C%zu hk_c%zu", c == hf->c0 && pc == po + 1 ? "" : ", ", c, c);
        rc = rc ? rc : pc < ts.n ? rwl_edits_add_owned(&hf->es, ts.t[pc].start, ts.t[pc].start, hk_buf_steal(&pb))
                                 : HK_EINVAL;
        hk_buf_free(&pb);
        if (rc == HK_EINVAL) {
            rc = HK_OK;
            snprintf(z->why, sizeof z->why, EN(RW_HZ_PARAMS), g->name,
                     rwl_line_at(z->text, g->name_span.start_byte));
        }
        *hfunc = (size_t)(hf - z->funcs);
        rwl_toks_free(&ts);
        return rc;
    }
drop:
    /* g and the copies its calls asked for (none when it computes nothing) */
    rollback(z, z->n_cols, self);
    rwl_toks_free(&ts);
    return rc;
}

/* Is the kernel's pointer parameter at declaration p a table nothing writes, moved only by
 * values the same for the whole block? Every use in the body ts is a read `p[...]`, a
 * `p += E;` / `p -= E;` with E of kernel parameters nothing writes and literals, or an
 * argument `p + X` / `p` to a function of the file whose parameter points to const. */
static bool table_pointer(const hz *z, const rw_toks *ts, const char *p)
{
    for (size_t k = 0; k < ts->n; k++) {
        if (!rwl_tok_is_ident(ts, k, p) || !rwl_is_use(ts, k))
            continue;
        if (rwl_tok_is(ts, k + 1, "[")) {
            size_t c = rwl_match_close(ts, k + 1);
            if (c >= ts->n || rwl_tok_is_assign_op(ts, c + 1) || rwl_tok_is(ts, c + 1, "++") ||
                rwl_tok_is(ts, c + 1, "--") || rwl_tok_is(ts, k - 1, "&"))
                return false;
            continue;
        }
        if (rwl_tok_is(ts, k + 1, "+=") || rwl_tok_is(ts, k + 1, "-=")) {
            size_t e = rwl_stmt_end(ts, k, ts->n);
            for (size_t j = k + 2; j + 1 < e; j++) {
                if (ts->t[j].kind != T_IDENT)
                    continue;
                bool ok = false;
                if (rwl_tok_is_ident(ts, j, "blockIdx") || rwl_tok_is_ident(ts, j, "gridDim") ||
                    rwl_tok_is_ident(ts, j, "blockDim") || rwl_tok_is(ts, j - 1, "."))
                    ok = true;
                for (size_t pi = 0; !ok && pi < z->kf->n_params; pi++)
                    ok = z->kf->params[pi].pointer_depth == 0 && rwl_tok_is_ident(ts, j, z->kf->params[pi].name);
                if (!ok) {
                    /* a local set once from the block's index: `int bs = blockIdx.y;` */
                    for (size_t d = 0; d < ts->n && !ok; d++)
                        if (rwl_same_tok(ts, d, j) && rwl_declared_here(ts, d) && rwl_tok_is(ts, d + 1, "=") &&
                            !written_in(ts, d, d + 1, ts->n)) {
                            size_t de = rwl_stmt_end(ts, d, ts->n);
                            ok = true;
                            for (size_t q = d + 2; q + 1 < de && ok; q++)
                                ok = ts->t[q].kind != T_IDENT || rwl_tok_is_ident(ts, q, "blockIdx") ||
                                     rwl_tok_is_ident(ts, q, "gridDim") || rwl_tok_is_ident(ts, q, "blockDim") ||
                                     rwl_tok_is(ts, q - 1, ".");
                            ok = ok && !rwl_tok_is(ts, d + 2, ",");
                        }
                }
                for (size_t q = 0; ok && q < ts->n; q++)
                    if (rwl_same_tok(ts, q, j) && rwl_is_use(ts, q) && !rwl_declared_here(ts, q) &&
                        rwl_scalar_written(ts, q))
                        ok = false;
                if (!ok)
                    return false;
            }
            continue;
        }
        /* an argument: p or p + X, to a parameter that points to const */
        size_t q = k;
        while (q > 0 && !rwl_tok_is(ts, q - 1, "(") && !rwl_tok_is(ts, q - 1, ","))
            q--;
        if (q == 0 || (!rwl_tok_is(ts, k + 1, "+") && !rwl_tok_is(ts, k + 1, ",") && !rwl_tok_is(ts, k + 1, ")")))
            return false;
        /* the call's name before its '(' */
        size_t o = q - 1;
        int dep = 0;
        while (o > 0 && !(dep == 0 && rwl_tok_is(ts, o, "("))) {
            dep += rwl_tok_is(ts, o, ")");
            dep -= rwl_tok_is(ts, o, "(");
            o--;
        }
        const an_function *g = o > 0 ? callee(z, ts, o - 1) : NULL;
        if (!g)
            return false;
        size_t arg = 0;
        dep = 0;
        for (size_t j = o + 1; j < q; j++) {
            dep += rwl_tok_is(ts, j, "(") || rwl_tok_is(ts, j, "[");
            dep -= rwl_tok_is(ts, j, ")") || rwl_tok_is(ts, j, "]");
            arg += dep == 0 && rwl_tok_is(ts, j, ",");
        }
        if (arg >= g->n_params || !g->params[arg].is_const || g->params[arg].pointer_depth != 1)
            return false;
    }
    return true;
}

static void hz_free(hz *z)
{
    for (size_t i = 0; i < z->n_funcs; i++)
        rwl_edits_free(&z->funcs[i].es);
    for (size_t c = 0; c < z->n_cols; c++)
        hk_free(z->col_type[c]);
    z->n_funcs = z->n_cols = 0;
}

/* The kernel's text with the values hoisted: *out (new) and the loader's code *stage (new);
 * both NULL with z->why set when nothing is hoisted. */
static int hoist_text(hz *z, char **out, char **stage)
{
    *out = *stage = NULL;
    const an_function *f = z->kf;
    rw_toks ts = {0};
    rw_edits es = {0};
    struct hk_buf sb;
    hk_buf_init(&sb, RW_TEXT_MAX);
    int rc = rwl_lex(z->text, f->body_span.start_byte, f->body_span.end_byte, &ts);
    for (size_t k = 0; !rc && k < ts.n; k++)
        if (ts.t[k].kind == T_IDENT && ts.t[k].end - ts.t[k].start >= 4 && !memcmp(z->text + ts.t[k].start, "hk_", 3)) {
            rwl_refuse(z->why, sizeof z->why, &ts, z->text, k, "statement", EN(RW_HZ_NAME),
                       (int)(ts.t[k].end - ts.t[k].start), z->text + ts.t[k].start);
            goto out;
        }
    /* the values the same for every thread: scalar parameters nothing writes, tables */
    hz_scope ku = {0};
    for (size_t pi = 0; pi < f->n_params; pi++) {
        const an_param *p = &f->params[pi];
        if (!p->name || !p->name[0])
            continue;
        bool w = false;
        for (size_t k = 0; k < ts.n && !w; k++)
            w = rwl_tok_is_ident(&ts, k, p->name) && rwl_is_use(&ts, k) && rwl_scalar_written(&ts, k);
        if (p->pointer_depth == 0 && !w)
            scope_add(&ku, p->name, strlen(p->name), p->elem_type ? p->elem_type : "", false);
        else if (p->pointer_depth == 1 && table_pointer(z, &ts, p->name))
            scope_add(&ku, p->name, strlen(p->name), p->elem_type ? p->elem_type : "", true);
    }
    /* the first counted loop `for (TYPE v = ...; ...) { ... }` whose steps hoist a value */
    int first_loop = 0;
    for (size_t k = 1; !rc && k + 2 < ts.n && !z->n_cols && !z->why[0]; k++) {
        if (!rwl_tok_is_ident(&ts, k, "for") || !rwl_tok_is(&ts, k + 1, "("))
            continue;
        size_t hc = rwl_match_close(&ts, k + 1), v = 0;
        for (size_t j = k + 3; j < hc && !rwl_tok_is(&ts, j, ";"); j++)
            if (ts.t[j].kind == T_IDENT && rwl_tok_is(&ts, j + 1, "=") &&
                (rwl_is_type_word(&ts, j - 1) || ts.t[j - 1].kind == T_IDENT))
                v = j;
        if (!v || hc + 1 >= ts.n)
            continue;
        /* its body's statements [ba, bc): a block's, or the one statement */
        bool braced = rwl_tok_is(&ts, hc + 1, "{");
        size_t ba = braced ? hc + 2 : hc + 1;
        size_t bc = braced ? rwl_match_close(&ts, hc + 1) : rwl_stmt_end(&ts, hc + 1, ts.n);
        if (bc > ts.n)
            continue;
        if (!first_loop)
            first_loop = rwl_line_at(z->text, ts.t[k].start);
        hz_scope u = ku;
        char *ct = plain_type(&ts, k + 2, v);
        if (!ct) {
            rc = HK_ENOMEM;
            break;
        }
        bool ok = scope_add(&u, z->text + ts.t[v].start, ts.t[v].end - ts.t[v].start, ct, false);
        hk_free(ct);
        if (!ok || written_in(&ts, v, hc + 1, bc))
            continue;
        /* a table moved inside the loop is not where the loader reads it */
        for (size_t i = 0; i < u.n; i++)
            for (size_t j = ba; u.v[i].pointer && j < bc; j++)
                if (rwl_tok_is_ident(&ts, j, u.v[i].name) && rwl_is_use(&ts, j) && rwl_scalar_written(&ts, j))
                    u.v[i].name[0] = '\0';
        bool reads = false;
        hk_buf_reset(&sb);
        rc = scan_block(z, &ts, ba, bc, &u, 0, &sb, &es, &reads);
        if (!rc && !z->n_cols && !z->why[0]) {
            for (size_t i = 0; i < z->n_funcs; i++)
                rwl_edits_free(&z->funcs[i].es);
            z->n_funcs = 0;
            rwl_edits_free(&es);
        }
    }
    if (rc || z->why[0])
        goto out;
    if (!z->n_cols) {
        if (z->soft[0])
            snprintf(z->why, sizeof z->why, "%s", z->soft);
        else if (first_loop)
            snprintf(z->why, sizeof z->why, EN(RW_HZ_NO_MATH),
                     first_loop);
        else
            snprintf(z->why, sizeof z->why, EN(RW_HZ_NO_LOOP),
                     rwl_line_at(z->text, f->body_span.start_byte));
        goto out;
    }
    /* the helpers' copies, each after its original */
    for (size_t i = 0; i < z->n_funcs && !rc; i++) {
        const an_function *g = z->funcs[i].f;
        rw_edits *ge = &z->funcs[i].es;
        for (size_t e = 0; e < ge->n; e++) {
            ge->e[e].start -= g->span.start_byte;
            ge->e[e].end -= g->span.start_byte;
        }
        char *copy = NULL;
        size_t cl;
        rc = rwl_edits_apply(z->text + g->span.start_byte, g->span.end_byte - g->span.start_byte, ge, &copy, &cl);
        if (!rc)
            rc = rwl_edits_add_owned(&es, g->span.end_byte, g->span.end_byte, hk_asprintf("\n\n%s", copy));
        hk_free(copy);
    }
    if (!rc) {
        size_t ol;
        rc = rwl_edits_apply(z->text, z->len, &es, out, &ol);
    }
    if (!rc && !(*stage = hk_buf_steal(&sb)))
        rc = HK_ENOMEM;
out:
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    hk_buf_free(&sb);
    return rc;
}

static int rw_table_hoist(const rw_context *ctx, int tile, int unroll, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    hz z = {.text = ctx->text, .len = ctx->len, .m = ctx->m, .kf = f};
    char *text = NULL, *stage = NULL;
    an_model *m2 = NULL;
    rw_result r2;
    memset(&r2, 0, sizeof r2);
    if ((rc = hoist_text(&z, &text, &stage)))
        goto out;
    if (!text) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "table_hoist", f->name, z.why));
        goto out;
    }
    if ((rc = an_analyze(text, strlen(text), &m2)))
        goto out;
    long k = an_model_find_kernel(m2, f->name);
    if (k < 0) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_HZ_LOST), f->name,
                                                 rwl_line_at(ctx->text, f->body_span.start_byte)));
        goto out;
    }
    rw_tile_columns cols = {.n = z.n_cols, .staging = stage};
    char names[RW_TILE_MAX_COLUMNS][16];
    for (size_t c = 0; c < z.n_cols; c++) {
        snprintf(names[c], sizeof names[c], "hk_c%zu", c);
        cols.name[c] = names[c];
        cols.type[c] = z.col_type[c];
    }
    rw_context c2 = *ctx;
    c2.text = text;
    c2.len = strlen(text);
    c2.m = m2;
    c2.kernel = (size_t)k;
    if ((rc = rw_tiles_with_columns(&c2, tile, unroll, &cols, &r2)))
        goto out;
    if (!r2.applicable) {
        /* uniform_tiles' reason on the original, whose lines are the user's (the hoisted text
         * has the helpers' copies inserted); on the hoisted text only when the original tiles */
        rw_result r3;
        if ((rc = rw_tiles_with_columns(ctx, tile, unroll, NULL, &r3)))
            goto out;
        const char *d = !r3.applicable && r3.description ? r3.description : r2.description ? r2.description : "";
        const char *colon = strstr(d, ": ");
        /* hoisted or as it is: one sentence each */
        rc = rwl_not_applicable(out, r3.applicable ? hk_asprintf(EN(RW_HZ_ONCE_HOISTED), f->name, colon ? colon + 2 : d)
                                                   : hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "table_hoist", f->name,
                                                                 colon ? colon + 2 : d));
        rw_result_free(&r3);
        goto out;
    }
    rc = rw_result_adopt(out, &r2,
                         /* per number, with the helpers' copies or without: one sentence each */
                         hk_asprintf(z.n_funcs ? (z.n_cols > 1 ? EN(RW_HZ_DESC_N_HELPERS) : EN(RW_HZ_DESC_1_HELPERS))
                                               : z.n_cols > 1 ? EN(RW_HZ_DESC_N) : EN(RW_HZ_DESC_1),
                                     r2.description ? r2.description : "", z.n_cols));
out:
    rw_result_free(&r2);
    an_model_free(m2);
    hk_free(text);
    hk_free(stage);
    hz_free(&z);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static int emit_table_hoist(const rw_context *c, const int *p, rw_result *out)
{
    int rc = rw_table_hoist(c, p[0], p[1], out);
    if (rc == HK_OK && out->applicable)
        out->keeps_launch = false;
    return rc;
}

const rw_descriptor rw_table_hoist_desc = {
    .name = "table_hoist",
    .summary = "an all-pairs loop over a table every thread reads alike, whose steps compute math of the element " /* i18n: not for people */
               "only: uniform_tiles' tiles plus those values, computed once per block and element (exact)",
    .params = rw_tiles_params, /* uniform_tiles' tile and unroll */
    .n_params = HK_ARRAY_LEN(rw_tiles_params),
    .flags = RW_ALGORITHM,
    .emit = emit_table_hoist,
};
