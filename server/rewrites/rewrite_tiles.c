/* uniform_tiles: an all-pairs loop (one query per thread, every thread walking the same
 * reference points: mmcv's three_nn, knn, ball_query) reads its reference set through a
 * __shared__ tile loaded once per block, cooperatively and coalesced, instead of once per
 * thread; the per-thread code keeps its order of updates, so the results are bit for bit
 * the original's. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_tiles.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* Why: in such a loop every thread of a block loads the same element in the same iteration
 * (`known[k * 3 + 0]`, an index free of threadIdx): each warp issues its own load of it, so
 * a block of 512 threads reads the reference set 16 times through L1, and each iteration
 * waits on a global load before its compare-and-swap chain. A tile of T elements per staged
 * read, loaded by the block (element l by thread l) between two barriers, turns those into
 * shared-memory broadcasts, and a full tile is a loop of constant trip count that unrolls.
 *
 * Barriers need every thread of the block, so the thread's body is rewritten around them:
 * an early `if (i >= n) return;` (or an `if (i < n) { ... }` body, or the bound of a
 * grid-stride loop, whose iterations become block-uniform) becomes a flag hk_on; a thread
 * that is off still loads and syncs but does not compute or store; statements before the
 * loop that read memory run only when on (a declaration keeps its name: `T x = hk_on ?
 * (init) : T()`), the code after the loop runs under `if (hk_on)`. A `break` of the loop
 * (ball_query stops at nsample neighbours) sets a second flag that skips the remaining
 * tiles' compute; the block leaves the tile loop when no thread needs more
 * (__syncthreads_or). What the original reads in the loop only under a condition is not
 * staged (the tile would load what the original never touches), and a staged index may
 * only use names whose value every thread has where the tile is loaded. */

#define UT_MAX_STAGED 16
#define UT_MAX_PREFIX 64

typedef struct {
    uint32_t start, end;   /* the read's bytes */
    char *text;            /* its source text (owned) */
    char *squeezed;        /* whitespace-free, for sharing one tile (owned) */
    int tile;              /* the tile it reads */
    bool column;           /* a computed column (rw_tile_columns): loaded by its staging code */
    size_t col;            /* which one */
} ut_site;

typedef struct {
    const char *text;
    const rw_toks *ts;
    const km_kernel *km;
    const an_function *f;
    char why[600];
} ut_scan;

static bool tok_is(const ut_scan *s, size_t k, const char *w) { return rwl_tok_is(s->ts, k, w); }

#define TXT(s, k) (int)((s)->ts->t[k].end - (s)->ts->t[k].start), (s)->text + (s)->ts->t[k].start

/* ---- uniform forms ---- */

/* Is f the same for every thread of a block: no thread index, no value read from memory,
 * no local the model does not follow, no accumulator? Loop counters are allowed (the loops
 * that enclose the all-pairs loop run in step across the block once rewritten). */
static bool form_uniform(const km_kernel *km, km_form f)
{
    size_t n_atoms;
    const km_atom *atoms = km_atoms(km, &n_atoms);
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            uint32_t a = f.t[i].atoms[j];
            if (a >= n_atoms)
                return false;
            const km_atom *at = &atoms[a];
            switch (at->kind) {
            case KM_ATOM_THREAD_IDX:
            case KM_ATOM_ACC:
            case KM_ATOM_VAR:
            case KM_ATOM_READ:
            case KM_ATOM_NAME:
                return false;
            case KM_ATOM_OPAQUE:
                if (at->op && !strcmp(at->op, "call"))
                    return false;
                for (uint32_t o = 0; o < at->n_args; o++)
                    if (!form_uniform(km, at->args[o]))
                        return false;
                break;
            default:
                break;
            }
        }
    return true;
}

/* ---- token helpers ---- */

/* Is [a, b) free of memory reads and side effects (subscripts, dereferences, ->, ++/--,
 * assignments, calls other than pure ones and casts)? */
static bool pure_expr(const ut_scan *s, size_t a, size_t b)
{
    for (size_t k = a; k < b; k++) {
        if (tok_is(s, k, "[") || tok_is(s, k, "->") || tok_is(s, k, "++") || tok_is(s, k, "--") ||
            rwl_tok_is_assign_op(s->ts, k))
            return false;
        if (tok_is(s, k, "*") && rwl_unary_position(s->ts, k))
            return false;
        if (s->ts->t[k].kind == T_IDENT && k + 1 < b && tok_is(s, k + 1, "(") && !rwl_pure_call_name(s->ts, k) &&
            !rwl_is_type_word(s->ts, k) && !tok_is(s, k, "sizeof"))
            return false;
    }
    return true;
}

/* First token in [a, b) equal to w that is not inside a nested loop or switch of [a, b)
 * (for `break`: one that leaves the loop [a, b) is the body of), or b. With any_depth,
 * the first anywhere. */
static size_t find_jump(const ut_scan *s, size_t a, size_t b, const char *w, bool any_depth)
{
    for (size_t k = a; k < b; k++) {
        if (!any_depth && (tok_is(s, k, "for") || tok_is(s, k, "while") || tok_is(s, k, "switch") ||
                           tok_is(s, k, "do"))) {
            /* skip the nested statement: header then body */
            size_t e = k + 1;
            if (!tok_is(s, k, "do")) {
                if (!tok_is(s, e, "("))
                    continue;
                e = rwl_match_close(s->ts, e) + 1;
            }
            size_t end = rwl_stmt_end(s->ts, e, b);
            if (tok_is(s, k, "do")) {   /* do S while (c); */
                if (tok_is(s, end, "while") && tok_is(s, end + 1, "(")) {
                    end = rwl_match_close(s->ts, end + 1) + 1;
                    if (tok_is(s, end, ";"))
                        end++;
                }
            }
            k = end - 1;
            continue;
        }
        if (tok_is(s, k, w))
            return k;
    }
    return b;
}

/* Does name (token k's text) occur in [a, b) as a use that writes it, or as declared there? */
static bool name_written_in(const ut_scan *s, size_t name_tok, size_t a, size_t b)
{
    for (size_t k = a; k < b; k++) {
        if (!rwl_same_tok(s->ts, k, name_tok) || !rwl_is_use(s->ts, k))
            continue;
        if (rwl_scalar_written(s->ts, k))
            return true;
        /* a declaration of the name: a type word or identifier just before it */
        if (k > a && (rwl_is_type_word(s->ts, k - 1) || tok_is(s, k - 1, "*")) &&
            (tok_is(s, k + 1, "=") || tok_is(s, k + 1, ";") || tok_is(s, k + 1, ",") || tok_is(s, k + 1, "[")))
            return true;
        if (k > a && s->ts->t[k - 1].kind == T_IDENT && !tok_is(s, k - 1, "return") &&
            (tok_is(s, k + 1, "=") || tok_is(s, k + 1, ";") || tok_is(s, k + 1, ",")))
            return true;
    }
    return false;
}

/* The statement starting at k declares: `[const|static|volatile] TYPE [*] name ...` where
 * TYPE is a type word sequence or one identifier (a typedef, a template parameter). *tend
 * gets the token after the type (before any `*`). */
static bool declaration_at(const ut_scan *s, size_t k, size_t end, size_t *tend)
{
    size_t t = k;
    while (t < end && (tok_is(s, t, "const") || tok_is(s, t, "volatile") || tok_is(s, t, "register")))
        t++;
    size_t t0 = t;
    while (t < end && rwl_is_type_word(s->ts, t))
        t++;
    if (t == t0) {
        if (t < end && s->ts->t[t].kind == T_IDENT && !tok_is(s, t, "return") && !tok_is(s, t, "if") &&
            !tok_is(s, t, "for") && !tok_is(s, t, "while") && !tok_is(s, t, "do") && !tok_is(s, t, "switch"))
            t++;
        else
            return false;
        if (tok_is(s, t, "<")) {   /* a template type: vec<T> */
            size_t c = rwl_match_close(s->ts, t);
            if (c >= end)
                return false;
            t = c + 1;
        }
    }
    while (t < end && (tok_is(s, t, "const") || tok_is(s, t, "__restrict__")))
        t++;
    size_t d = t;
    while (d < end && tok_is(s, d, "*"))
        d++;
    if (d >= end || s->ts->t[d].kind != T_IDENT || d + 1 >= end)
        return false;
    if (!(tok_is(s, d + 1, "=") || tok_is(s, d + 1, ";") || tok_is(s, d + 1, ",") || tok_is(s, d + 1, "[")))
        return false;
    *tend = t;
    return true;
}

/* `if ( C ) W ;` or `if ( C ) { W ; }` with W one of return/continue: true with the
 * condition's tokens [*ca, *cb). */
static bool if_jump(const ut_scan *s, size_t a, size_t e, const char *w, size_t *ca, size_t *cb)
{
    if (!tok_is(s, a, "if") || !tok_is(s, a + 1, "("))
        return false;
    size_t c = rwl_match_close(s->ts, a + 1);
    if (c >= e)
        return false;
    size_t k = c + 1;
    bool brace = tok_is(s, k, "{");
    if (brace)
        k++;
    if (!tok_is(s, k, w) || !tok_is(s, k + 1, ";"))
        return false;
    k += 2;
    if (brace && !tok_is(s, k++, "}"))
        return false;
    if (k != e)
        return false;
    *ca = a + 2;
    *cb = c;
    return true;
}

static char *tok_text(const ut_scan *s, size_t a, size_t b)
{
    if (a >= b)
        return hk_strdup("");
    return hk_asprintf("%.*s", (int)(s->ts->t[b - 1].end - s->ts->t[a].start), s->text + s->ts->t[a].start);
}

/* Text of tokens [a, b) of ts (over its own text) with every use of identifier from
 * replaced by to. */
static int text_replacing(const rw_toks *ts, size_t a, size_t b, const char *from, const char *to,
                          struct hk_buf *out)
{
    int rc = HK_OK;
    uint32_t at = a < b ? ts->t[a].start : 0;
    for (size_t k = a; k < b && !rc; k++) {
        if (ts->t[k].kind == T_IDENT && rwl_tok_is(ts, k, from) && rwl_is_use(ts, k)) {
            rc = hk_buf_append(out, ts->text + at, ts->t[k].start - at);
            if (!rc)
                rc = hk_buf_appends(out, to);
            at = ts->t[k].end;
        }
    }
    if (!rc && a < b)
        rc = hk_buf_append(out, ts->text + at, ts->t[b - 1].end - at);
    return rc;
}

/* ---- loop macros (CUDA_1D_KERNEL_LOOP(i, n) { ... }) ---- */

/* The for-loop header a function-like macro named ts[k] expands to with the arguments of
 * the call at k + 1, as new text (owned), or NULL when the file has no such #define whose
 * replacement is a `for (...)`. */
static char *macro_for_header(const ut_scan *s, size_t k, size_t close)
{
    char name[128];
    snprintf(name, sizeof name, "%.*s", TXT(s, k));
    /* the last #define of name before the kernel */
    const char *def = NULL;
    for (const char *p = s->text; p < s->text + s->f->span.start_byte; p++) {
        if (*p != '#' || (p > s->text && p[-1] != '\n' && p[-1] != ' ' && p[-1] != '\t'))
            continue;
        const char *q = p + 1;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, "define", 6))
            continue;
        q += 6;
        while (*q == ' ' || *q == '\t')
            q++;
        size_t nl = strlen(name);
        if (!strncmp(q, name, nl) && q[nl] == '(')
            def = q + nl;
    }
    if (!def)
        return NULL;
    /* parameters */
    const char *pe = strchr(def, ')');
    if (!pe)
        return NULL;
    char params[8][64];
    size_t n_params = 0;
    for (const char *p = def + 1; p < pe && n_params < 8;) {
        while (p < pe && (*p == ' ' || *p == ','))
            p++;
        const char *st = p;
        while (p < pe && *p != ',' && *p != ' ')
            p++;
        if (p > st && (size_t)(p - st) < 64)
            snprintf(params[n_params++], 64, "%.*s", (int)(p - st), st);
    }
    /* the replacement, continuation lines joined */
    struct hk_buf rep;
    hk_buf_init(&rep, 1 << 16);
    for (const char *p = pe + 1; *p && *p != '\n'; p++) {
        if (*p == '\\' && p[1] == '\n') {
            p++;
            if (hk_buf_appends(&rep, " "))
                goto fail;
            continue;
        }
        if (hk_buf_append(&rep, p, 1))
            goto fail;
    }
    if (hk_buf_append(&rep, "", 1))
        goto fail;
    /* arguments of the call */
    char *args[8] = {0};
    size_t n_args = 0, st = k + 2;
    int depth = 0;
    for (size_t j = k + 2; j <= close && n_args < 8; j++) {
        if (tok_is(s, j, "(") || tok_is(s, j, "["))
            depth++;
        else if ((tok_is(s, j, ")") || tok_is(s, j, "]")) && j < close)
            depth--;
        if ((tok_is(s, j, ",") && depth == 0) || j == close) {
            args[n_args++] = tok_text(s, st, j);
            st = j + 1;
        }
    }
    char *res = NULL;
    if (n_args == n_params) {
        rw_toks rt = {0};
        struct hk_buf out;
        hk_buf_init(&out, 1 << 16);
        bool ok = rwl_lex(rep.data, 0, (uint32_t)strlen(rep.data), &rt) == HK_OK && rt.n > 0 &&
                  rwl_tok_is(&rt, 0, "for");
        uint32_t at = 0;
        for (size_t j = 0; ok && j < rt.n; j++) {
            for (size_t p = 0; p < n_params; p++)
                if (rt.t[j].kind == T_IDENT && rwl_tok_is(&rt, j, params[p])) {
                    ok = !hk_buf_append(&out, rep.data + at, rt.t[j].start - at) && !hk_buf_printf(&out, "%s", args[p]);
                    at = rt.t[j].end;
                    break;
                }
        }
        if (ok && !hk_buf_appends(&out, rep.data + at) && !hk_buf_append(&out, "", 1))
            res = hk_buf_steal(&out);
        hk_buf_free(&out);
        rwl_toks_free(&rt);
    }
    for (size_t i = 0; i < n_args; i++)
        hk_free(args[i]);
    hk_buf_free(&rep);
    return res;
fail:
    hk_buf_free(&rep);
    return NULL;
}

/* A grid-stride header `for (TYPE v = E0; COND; STEP)` (lexed in hts over its own text)
 * rewritten so that its iterations are the block's: `for (TYPE hk_base = (E0) -
 * threadIdx.x; COND[v:=hk_base]; STEP[v:=hk_base]) { TYPE v = hk_base + threadIdx.x;
 * bool hk_on = COND;`, appended to b. false when the header is not of that shape. */
static bool block_stride_header(const rw_toks *hts, const char *var, struct hk_buf *b)
{
    if (!rwl_tok_is(hts, 0, "for") || !rwl_tok_is(hts, 1, "("))
        return false;
    size_t close = rwl_match_close(hts, 1);
    if (close >= hts->n)
        return false;
    size_t s1 = 0, s2 = 0;
    for (size_t k = 2; k < close; k++) {
        if (rwl_tok_is(hts, k, "(") || rwl_tok_is(hts, k, "[")) {
            k = rwl_match_close(hts, k);
            continue;
        }
        if (rwl_tok_is(hts, k, ";"))
            *(s1 ? &s2 : &s1) = k;
    }
    if (!s1 || !s2)
        return false;
    /* TYPE v = E0 */
    size_t eq = 0;
    for (size_t k = 2; k < s1; k++)
        if (rwl_tok_is(hts, k, "=")) {
            eq = k;
            break;
        }
    if (!eq || eq < 4 || !rwl_tok_is(hts, eq - 1, var))
        return false;
    /* the step writes v once, by += or = v + */
    if (!(rwl_tok_is(hts, s2 + 1, var) && (rwl_tok_is(hts, s2 + 2, "+=") || rwl_tok_is(hts, s2 + 2, "="))))
        return false;
    int rc = hk_buf_appends(b, "for (");
    rc = rc ? rc : hk_buf_append(b, hts->text + hts->t[2].start, hts->t[eq - 1].start - hts->t[2].start);
    rc = rc ? rc : hk_buf_printf(b, "hk_base = (%.*s) - threadIdx.x; ",
                                 (int)(hts->t[s1 - 1].end - hts->t[eq + 1].start), hts->text + hts->t[eq + 1].start);
    rc = rc ? rc : text_replacing(hts, s1 + 1, s2, var, "hk_base", b);
    rc = rc ? rc : hk_buf_appends(b, "; ");
    rc = rc ? rc : text_replacing(hts, s2 + 1, close, var, "hk_base", b);
    rc = rc ? rc : hk_buf_appends(b, ") {\n    ");
    rc = rc ? rc : hk_buf_append(b, hts->text + hts->t[2].start, hts->t[eq - 1].start - hts->t[2].start);
    rc = rc ? rc : hk_buf_printf(b, "%s = hk_base + threadIdx.x;\n    bool hk_on = ", var);
    rc = rc ? rc : hk_buf_append(b, hts->text + hts->t[s1 + 1].start, hts->t[s2 - 1].end - hts->t[s1 + 1].start);
    rc = rc ? rc : hk_buf_appends(b, ";");
    return rc == HK_OK;
}

/* ---- the rewrite ---- */

enum ut_region { UT_KERNEL, UT_IF, UT_GRID_STRIDE };

/* The first `for` on line ln: its header's closing parenthesis (*hc) and the end of its
 * body statement (*be). False when there is none or the header does not close. */
static bool for_body_at(const ut_scan *s, int ln, size_t *hc, size_t *be)
{
    const rw_toks *ts = s->ts;
    for (size_t k = 0; k + 1 < ts->n; k++) {
        if (!tok_is(s, k, "for") || !tok_is(s, k + 1, "(") || rwl_line_at(s->text, ts->t[k].start) != ln)
            continue;
        *hc = rwl_match_close(ts, k + 1);
        if (*hc + 1 >= ts->n)
            return false;
        *be = rwl_stmt_end(ts, *hc + 1, ts->n - 1);
        return true;
    }
    return false;
}

/* The loop whose `for` is on line ln passes a pointer parameter moved by its counter var
 * to a call (`check(pts, boxes + k * 7)`): the reads that move with the counter are in the
 * callee, which the staging does not follow. why gets the call and its line. */
static bool call_moves_with(const ut_scan *s, const km_param *params, size_t n_params, int ln, const char *var,
                            char *why, size_t n)
{
    const rw_toks *ts = s->ts;
    size_t hc, be;
    if (!for_body_at(s, ln, &hc, &be))
        return false;
    for (size_t c = hc + 1; c + 1 < be; c++) {
        if (ts->t[c].kind != T_IDENT || !tok_is(s, c + 1, "(") || rwl_is_type_word(ts, c) ||
            rwl_pure_call_name(ts, c) || tok_is(s, c, "if") || tok_is(s, c, "for") || tok_is(s, c, "while") ||
            tok_is(s, c, "switch") || tok_is(s, c, "sizeof"))
            continue;
        size_t cc = rwl_match_close(ts, c + 1);
        bool counter = false, pointer = false;
        for (size_t a = c + 2; a < cc && a < be; a++) {
            counter |= tok_is(s, a, var) && rwl_is_use(ts, a);
            for (size_t p = 0; p < n_params; p++)
                pointer |= params[p].pointer && params[p].name && tok_is(s, a, params[p].name) &&
                           rwl_is_use(ts, a);
        }
        if (counter && pointer) {
            snprintf(why, n, EN(RW_TL_CALL_READS),
                     var, TXT(s, c), rwl_line_at(s->text, ts->t[c].start));
            return true;
        }
    }
    return false;
}

/* Does the body of the `for` on line ln use a computed column (a value the block stages like
 * a read that moves with the counter)? */
static bool loop_reads_column(const ut_scan *s, int ln, const rw_tile_columns *cols)
{
    size_t hc, be;
    if (!for_body_at(s, ln, &hc, &be))
        return false;
    for (size_t j = hc + 1; j < be; j++)
        for (size_t c = 0; c < cols->n; c++)
            if (tok_is(s, j, cols->name[c]))
                return true;
    return false;
}

static const char *const reserved[] = {
    "hk_on", "hk_done", "hk_base", "hk_k0", "hk_l", "hk_j", "hk_g", "hk_u", "hk_full", "hk_tile0", "hk_tile1",
    "hk_tile2", "hk_tile3", "hk_tile4", "hk_tile5", "hk_tile6", "hk_tile7", "hk_tile8", "hk_tile9",
    "hk_tile10", "hk_tile11", "hk_tile12", "hk_tile13", "hk_tile14", "hk_tile15", "hk_r0", "hk_r1", "hk_r2",
    "hk_r3", "hk_r4", "hk_r5", "hk_r6", "hk_r7", "hk_r8", "hk_r9", "hk_r10", "hk_r11", "hk_r12", "hk_r13",
    "hk_r14", "hk_r15",
};

static int tiles_core(const rw_context *ctx, int tile, int unroll, const rw_tile_columns *cols, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    const char *text = ctx->text;
    rw_toks ts = {0};
    rw_edits es = {0};
    km_kernel *km = NULL;
    ut_site sites[UT_MAX_STAGED];
    size_t n_sites = 0, n_tiles = 0;
    char *tile_type[UT_MAX_STAGED] = {0};
    char *hdr = NULL;
    rw_toks hts = {0};
    struct hk_buf b, body, body_full;
    hk_buf_init(&b, RW_TEXT_MAX);
    hk_buf_init(&body, RW_TEXT_MAX);
    hk_buf_init(&body_full, RW_TEXT_MAX);
    ut_scan sc = {.text = text, .ts = &ts, .f = f};
    ut_scan *s = &sc;
    int line_body = rwl_line_at(text, f->body_span.start_byte);
#define REFUSE(...)                                                                                     \
    do {                                                                                                \
        char why_[700];                                                                                 \
        snprintf(why_, sizeof why_, __VA_ARGS__);                                                       \
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "uniform_tiles", f->name, why_)); \
        goto out;                                                                                       \
    } while (0)

    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    char kwhy[300];
    if ((rc = km_build(text, ctx->len, f->name, &km, kwhy, sizeof kwhy)) == HK_ENOMEM)
        goto out;
    if (rc) {
        rc = HK_OK;
        REFUSE(EN(RW_TL_MODEL), line_body, kwhy);
    }
    s->km = km;
    for (size_t k = 0; k < ts.n; k++) {
        if (tok_is(s, k, "__syncthreads") || tok_is(s, k, "__syncthreads_or") || tok_is(s, k, "__syncthreads_and") ||
            tok_is(s, k, "__syncthreads_count"))
            REFUSE(EN(RW_TL_SYNCS), rwl_line_at(text, ts.t[k].start));
        if (tok_is(s, k, "threadIdx") && tok_is(s, k + 1, ".") && !tok_is(s, k + 2, "x"))
            REFUSE(EN(RW_TL_THREAD_X),
                   rwl_line_at(text, ts.t[k].start), TXT(s, k + 2));
        for (size_t r = 0; r < HK_ARRAY_LEN(reserved); r++)
            if (tok_is(s, k, reserved[r]))
                REFUSE(EN(RW_TL_NAME_USED), rwl_line_at(text, ts.t[k].start),
                       reserved[r]);
    }
    if (km_barriers(km))
        REFUSE(EN(RW_TL_SYNCS_BLOCK), line_body);

    size_t n_loops, n_rs, n_acc, n_params;
    const km_loop *loops = km_loops(km, &n_loops);
    const km_read_site *rs = km_read_sites(km, &n_rs);
    const km_access *acc = km_accesses(km, &n_acc);
    const km_param *params = km_params(km, &n_params);

    /* ---- the all-pairs loop: a counted loop of uniform trip whose body reads an element
     * that depends on its counter and on nothing per thread ---- */
    char first_why[400] = "", own_why[400] = "", call_why[300];
    long L = -1;
    size_t lf = 0;           /* its `for` token */
    for (size_t li = 0; li < n_loops && L < 0; li++) {
        const km_loop *lp = &loops[li];
        int64_t step;
        int ln = (int)lp->line;
        const char *why = NULL;
        if (lp->kind != KM_LOOP_AFFINE || !lp->var)
            why = EN(RW_TL_NOT_COUNTED);
        else if (!km_form_value(km, lp->step, &step) || step != 1)
            why = EN(RW_TL_STEP_NOT_ONE);
        else if (!lp->cmp || (strcmp(lp->cmp, "<") && strcmp(lp->cmp, "<=")))
            why = EN(RW_TL_COND_NOT_LT);
        else if (!form_uniform(km, lp->start) || !form_uniform(km, lp->bound))
            why = EN(RW_TL_TRIPS_VARY);
        if (!why) {
            bool any = false;
            for (size_t r = 0; r < n_rs && !any; r++)
                any = rs[r].n_loops && rs[r].loops[rs[r].n_loops - 1] == li && !rs[r].ambiguous &&
                      km_form_mentions(km, rs[r].index, lp->counter);
            /* a call that reads the table refuses here, so that its reads are brought into the
             * text and staged too (rw_tiles_with_columns' second try); with none, the computed
             * columns alone make the loop one to stage */
            if (!any && call_moves_with(s, params, n_params, ln, lp->var, call_why, sizeof call_why))
                why = call_why;
            else if (!any && !(cols && loop_reads_column(s, ln, cols)))
                why = EN(RW_TL_NO_MOVING_READ);
        }
        if (!why) {
            /* the `for` token on its line that declares its variable */
            for (size_t k = 1; k + 4 < ts.n; k++)
                if (tok_is(s, k, "for") && tok_is(s, k + 1, "(") && rwl_line_at(text, ts.t[k].start) == ln) {
                    size_t c = rwl_match_close(&ts, k + 1);
                    for (size_t j = k + 2; j + 1 < c; j++)
                        if (tok_is(s, j, lp->var) && tok_is(s, j + 1, "=") && j > k + 2 &&
                            (rwl_is_type_word(&ts, j - 1) || ts.t[j - 1].kind == T_IDENT)) {
                            lf = k;
                            break;
                        }
                    if (lf)
                        break;
                }
            if (!lf)
                why = EN(RW_TL_NOT_DECL_FOR);
        }
        if (why) {
            /* the thread's own loop over its queries (grid- or block-stride) is never the
             * all-pairs loop: a reason of a counted loop says more, when there is one */
            bool own = lp->kind == KM_LOOP_GRID_STRIDE || lp->kind == KM_LOOP_BLOCK_STRIDE;
            char *slot = own ? own_why : first_why;
            if (!slot[0])
                snprintf(slot, sizeof first_why, EN(RW_TL_LOOP_WHY), ln, why);
            continue;
        }
        L = (long)li;
    }
    if (L < 0)
        REFUSE("%s", first_why[0] ? first_why
                     : own_why[0] ? own_why
                                  : EN(RW_TL_NO_LOOP));
    const km_loop *lp = &loops[L];

    /* the loop's parts: for ( TYPE k = S ; COND ; STEP ) BODY */
    size_t hc = rwl_match_close(&ts, lf + 1);
    size_t semi1 = 0, semi2 = 0;
    for (size_t k = lf + 2; k < hc; k++) {
        if (tok_is(s, k, "(") || tok_is(s, k, "[")) {
            k = rwl_match_close(&ts, k);
            continue;
        }
        if (tok_is(s, k, ";"))
            *(semi1 ? &semi2 : &semi1) = k;
    }
    if (!semi1 || !semi2 || hc >= ts.n)
        REFUSE(EN(RW_TL_HEADER), lp->line);
    size_t vtok = 0;
    for (size_t k = lf + 2; k < semi1; k++)
        if (tok_is(s, k, lp->var) && tok_is(s, k + 1, "="))
            vtok = k;
    if (!vtok || find_jump(s, lf + 2, vtok, ",", true) < vtok)
        REFUSE(EN(RW_TL_INIT), lp->line, lp->var);
    size_t bs = hc + 1, be = rwl_stmt_end(&ts, bs, ts.n - 1);
    if (find_jump(s, bs, be, "return", true) < be || find_jump(s, bs, be, "goto", true) < be)
        REFUSE(EN(RW_TL_BODY_LEAVES),
               rwl_line_at(text, ts.t[find_jump(s, bs, be, "return", true) < be ? find_jump(s, bs, be, "return", true)
                                                                                : find_jump(s, bs, be, "goto", true)]
                                      .start));
    for (size_t k = bs; k < be; k++)
        if (rwl_same_tok(&ts, k, vtok) && rwl_is_use(&ts, k) && rwl_scalar_written(&ts, k))
            REFUSE(EN(RW_TL_CHANGES_COUNTER), lp->line, lp->var,
                   rwl_line_at(text, ts.t[k].start));

    /* ---- the thread's body around it: the block that holds the loop ---- */
    size_t ob = 0;
    {
        size_t stack[256], depth = 0;
        for (size_t k = 0; k < lf; k++) {
            if (tok_is(s, k, "{")) {
                if (depth == HK_ARRAY_LEN(stack))
                    REFUSE(EN(RW_TL_NESTED), lp->line);
                stack[depth++] = k;
            } else if (tok_is(s, k, "}") && depth)
                depth--;
        }
        if (!depth)
            REFUSE(EN(RW_TL_NOT_IN_BODY), lp->line);
        ob = stack[depth - 1];
        /* the loop must be a statement of that block, not of an if or loop without braces */
        size_t k = ob + 1;
        while (k < lf)
            k = rwl_stmt_end(&ts, k, ts.n - 1);
        if (k != lf)
            REFUSE(EN(RW_TL_NOT_THREAD_STMT), lp->line);
    }
    size_t oc = rwl_match_close(&ts, ob);
    if (oc >= ts.n)
        REFUSE(EN(RW_TL_BRACES), lp->line);
    enum ut_region region;
    size_t head = ob;   /* first token of what owns the block (if, for, macro) */
    if (ob == 0) {
        region = UT_KERNEL;
        if (lp->parent >= 0)
            REFUSE(EN(RW_TL_IN_LOOP), lp->line);
    } else if (tok_is(s, ob - 1, ")")) {
        size_t op = ob - 1;
        /* its `(` */
        int d = 0;
        for (size_t k = ob - 1; k > 0; k--) {
            if (tok_is(s, k, ")"))
                d++;
            else if (tok_is(s, k, "(") && --d == 0) {
                op = k;
                break;
            }
        }
        if (op == ob - 1 || op == 0)
            REFUSE(EN(RW_TL_NOT_THREAD_STMT), lp->line);
        head = op - 1;
        if (tok_is(s, head, "if")) {
            region = UT_IF;
            size_t k = 1;
            while (k < head)
                k = rwl_stmt_end(&ts, k, ts.n - 1);
            if (k != head || lp->parent >= 0)
                REFUSE(EN(RW_TL_IF_NOT_STMT),
                       rwl_line_at(text, ts.t[head].start));
            if (tok_is(s, oc + 1, "else"))
                REFUSE(EN(RW_TL_IF_ELSE),
                       rwl_line_at(text, ts.t[head].start));
        } else {
            region = UT_GRID_STRIDE;
            if (lp->parent < 0 || loops[lp->parent].kind != KM_LOOP_GRID_STRIDE)
                REFUSE(EN(RW_TL_IN_OTHER_LOOP),
                       lp->line);
            const km_loop *gl = &loops[lp->parent];
            if (!gl->var || !gl->cmp || strcmp(gl->cmp, "<") || !form_uniform(km, gl->bound) ||
                !form_uniform(km, gl->step))
                REFUSE(EN(RW_TL_GS_NOT_UNIFORM), gl->line);
            /* start = uniform + threadIdx.x */
            uint32_t tx;
            km_term tt[8];
            uint32_t nt = 0;
            if (!km_builtin_atom(km, KM_ATOM_THREAD_IDX, 0, &tx) ||
                !km_form_coefficient(km, gl->start, tx, tt, 8, &nt) || nt != 1 || tt[0].n != 0 || tt[0].coef != 1)
                REFUSE(EN(RW_TL_GS_START), gl->line);
            size_t k = 1;
            while (k < head)
                k = rwl_stmt_end(&ts, k, ts.n - 1);
            if (k != head)
                REFUSE(EN(RW_TL_GS_NOT_STMT),
                       rwl_line_at(text, ts.t[head].start));
            if (tok_is(s, head, "for")) {
                hdr = tok_text(s, head, ob);
            } else if (ts.t[head].kind == T_IDENT) {
                hdr = macro_for_header(s, head, ob - 1);
                if (!hdr)
                    REFUSE(EN(RW_TL_GS_MACRO),
                           rwl_line_at(text, ts.t[head].start), TXT(s, head));
            } else {
                REFUSE(EN(RW_TL_NOT_THREAD_STMT), lp->line);
            }
            if (!hdr) {
                rc = HK_ENOMEM;
                goto out;
            }
            if ((rc = rwl_lex(hdr, 0, (uint32_t)strlen(hdr), &hts)))
                goto out;
            if (!block_stride_header(&hts, gl->var, &b))
                REFUSE(EN(RW_TL_GS_HEADER),
                       rwl_line_at(text, ts.t[head].start), gl->var, gl->var, gl->var);
            /* the grid-stride index may not change in the body */
            for (size_t j = ob + 1; j < oc; j++)
                if (tok_is(s, j, gl->var) && rwl_is_use(&ts, j) && rwl_scalar_written(&ts, j))
                    REFUSE(EN(RW_TL_GS_CHANGES),
                           rwl_line_at(text, ts.t[head].start), gl->var, rwl_line_at(text, ts.t[j].start));
            /* the new header replaces the old one with its brace */
            if ((rc = rwl_edits_add_owned(&es, ts.t[head].start, ts.t[ob].end, hk_buf_steal(&b))))
                goto out;
            hk_buf_reset(&b);
        }
    } else {
        REFUSE(EN(RW_TL_NOT_THREAD_STMT), lp->line);
    }
    if (region != UT_KERNEL) {
        /* a thread that left before the if or the grid-stride loop would miss the barriers */
        size_t j = find_jump(s, 1, head, "return", true);
        if (j < head)
            REFUSE(EN(RW_TL_RETURN_BEFORE), rwl_line_at(text, ts.t[j].start));
    }
    if (region == UT_IF) {
        /* `if (C) {` -> `{ bool hk_on = (C);` */
        size_t op = head + 1, cp = rwl_match_close(&ts, op);
        char *r = hk_asprintf("{\n    bool hk_on = (%.*s);", (int)(ts.t[cp - 1].end - ts.t[op + 1].start),
                              text + ts.t[op + 1].start);
        if ((rc = r ? rwl_edits_add_owned(&es, ts.t[head].start, ts.t[ob].end, r) : HK_ENOMEM))
            goto out;
    } else if (region == UT_KERNEL) {
        if ((rc = rwl_edits_add(&es, ts.t[0].end, ts.t[0].end, "\n    bool hk_on = true;")))
            goto out;
    }

    /* ---- the statements before the loop ---- */
    size_t guarded_from = region == UT_KERNEL ? SIZE_MAX : ob + 1;   /* statements from here run under hk_on */
    size_t pre_a[UT_MAX_PREFIX], pre_e[UT_MAX_PREFIX];
    bool pre_guarded[UT_MAX_PREFIX];
    size_t n_pre = 0;
    for (size_t a = ob + 1; a < lf;) {
        size_t e = rwl_stmt_end(&ts, a, oc);
        if (n_pre == UT_MAX_PREFIX)
            REFUSE(EN(RW_TL_MORE_STMTS), rwl_line_at(text, ts.t[a].start),
                   UT_MAX_PREFIX);
        size_t ca, cb, tend;
        int ln = rwl_line_at(text, ts.t[a].start);
        pre_a[n_pre] = a;
        pre_e[n_pre] = e;
        pre_guarded[n_pre] = false;
        if (if_jump(s, a, e, "return", &ca, &cb)) {
            bool uniform = false;
            size_t n_g;
            const km_guard *g = km_guards(km, &n_g);
            size_t on_line = 0;
            for (size_t i = 0; i < n_g; i++)
                if ((int)g[i].line == ln) {
                    on_line++;
                    uniform = form_uniform(km, g[i].lhs) && form_uniform(km, g[i].rhs);
                }
            uniform = uniform && on_line == 1 && pure_expr(s, ca, cb);
            if (region == UT_GRID_STRIDE && !uniform)
                REFUSE(EN(RW_TL_RETURN_GS), ln);
            if (region != UT_GRID_STRIDE) {
                /* the thread stops computing here, but stays for the barriers */
                char *r = hk_asprintf("if (hk_on && (%.*s)) hk_on = false;",
                                      (int)(ts.t[cb - 1].end - ts.t[ca].start), text + ts.t[ca].start);
                if ((rc = r ? rwl_edits_add_owned(&es, ts.t[a].start, ts.t[e - 1].end, r) : HK_ENOMEM))
                    goto out;
                if (guarded_from == SIZE_MAX)
                    guarded_from = a;
            }
        } else if (region == UT_GRID_STRIDE && if_jump(s, a, e, "continue", &ca, &cb)) {
            char *r = hk_asprintf("if (hk_on && (%.*s)) hk_on = false;", (int)(ts.t[cb - 1].end - ts.t[ca].start),
                                  text + ts.t[ca].start);
            if ((rc = r ? rwl_edits_add_owned(&es, ts.t[a].start, ts.t[e - 1].end, r) : HK_ENOMEM))
                goto out;
        } else {
            size_t j;
            if ((j = find_jump(s, a, e, "return", true)) < e || (j = find_jump(s, a, e, "goto", true)) < e ||
                (j = find_jump(s, a, e, "continue", false)) < e || (j = find_jump(s, a, e, "break", false)) < e)
                REFUSE(EN(RW_TL_MAY_LEAVE), ln,
                       TXT(s, j), rwl_line_at(text, ts.t[j].start));
            bool guarded = a >= guarded_from;
            if (guarded && declaration_at(s, a, e, &tend)) {
                if (tok_is(s, a, "static") || tok_is(s, a, "auto") || tok_is(s, a, "__shared__") ||
                    tok_is(s, tend - 1, "auto"))
                    REFUSE(EN(RW_TL_DECL_UNGUARDED), ln);
                /* each declarator's initializer that reads: `hk_on ? (init) : (TYPE)0` */
                char *type = tok_text(s, a, tend);
                if (!type) {
                    rc = HK_ENOMEM;
                    goto out;
                }
                size_t d = tend;
                while (d < e - 1 && !rc) {
                    size_t de = d;
                    int depth = 0;
                    while (de < e - 1) {
                        if (tok_is(s, de, "(") || tok_is(s, de, "[") || tok_is(s, de, "{"))
                            depth++;
                        else if (tok_is(s, de, ")") || tok_is(s, de, "]") || tok_is(s, de, "}"))
                            depth--;
                        else if (depth == 0 && tok_is(s, de, ","))
                            break;
                        de++;
                    }
                    size_t eq = d;
                    while (eq < de && !tok_is(s, eq, "="))
                        eq++;
                    if (eq < de && !pure_expr(s, eq + 1, de)) {
                        bool ptr = tok_is(s, d, "*");
                        if (tok_is(s, eq + 1, "{") || find_jump(s, d, eq, "[", true) < eq) {
                            hk_free(type);
                            REFUSE(EN(RW_TL_ARRAY_INIT), ln);
                        }
                        /* the value an off thread holds: `T()` for a one-word type (a struct
                         * too), `(unsigned int)0` for a builtin of several words */
                        size_t w = a;
                        while (w < tend && (tok_is(s, w, "const") || tok_is(s, w, "volatile") ||
                                            tok_is(s, w, "register")))
                            w++;
                        char *r = !ptr && tend == w + 1
                                      ? hk_asprintf("hk_on ? (%.*s) : %.*s()", (int)(ts.t[de - 1].end - ts.t[eq + 1].start),
                                                    text + ts.t[eq + 1].start, TXT(s, w))
                                      : hk_asprintf("hk_on ? (%.*s) : (%s%s)0",
                                                    (int)(ts.t[de - 1].end - ts.t[eq + 1].start),
                                                    text + ts.t[eq + 1].start, type, ptr ? " *" : "");
                        rc = r ? rwl_edits_add_owned(&es, ts.t[eq + 1].start, ts.t[de - 1].end, r) : HK_ENOMEM;
                        pre_guarded[n_pre] = true;
                    }
                    d = de + 1;
                }
                hk_free(type);
                if (rc)
                    goto out;
            } else if (guarded) {
                /* a pointer moved by a pure offset stays (every thread needs the moved base) */
                bool move = false;
                if (ts.t[a].kind == T_IDENT && (tok_is(s, a + 1, "+=") || tok_is(s, a + 1, "-=")) &&
                    pure_expr(s, a + 2, e - 1))
                    for (size_t p = 0; p < n_params; p++)
                        if (params[p].pointer && tok_is(s, a, params[p].name))
                            move = true;
                if (!move) {
                    pre_guarded[n_pre] = true;
                    if ((rc = rwl_edits_add(&es, ts.t[a].start, ts.t[a].start, "if (hk_on) { ")) ||
                        (rc = rwl_edits_add(&es, ts.t[e - 1].end, ts.t[e - 1].end, " }")))
                        goto out;
                }
            }
        }
        n_pre++;
        a = e;
    }

    /* ---- the statements after it: under hk_on ---- */
    size_t sa = be, se = oc;
    {
        size_t j;
        if (region == UT_GRID_STRIDE &&
            ((j = find_jump(s, sa, se, "return", true)) < se || (j = find_jump(s, sa, se, "goto", true)) < se ||
             (j = find_jump(s, sa, se, "break", false)) < se))
            REFUSE(EN(RW_TL_LEAVES_AFTER), TXT(s, j), rwl_line_at(text, ts.t[j].start));
        if (sa < se) {
            if ((rc = rwl_edits_add(&es, ts.t[sa - 1].end, ts.t[sa - 1].end, "\n    if (hk_on) {")) ||
                (rc = rwl_edits_add(&es, ts.t[se - 1].end, ts.t[se - 1].end, "\n    }")))
                goto out;
        }
    }

    /* ---- the loop's start and bound: the same in every thread at the tile loop ---- */
    for (size_t j = vtok + 2; j < semi2; j++) {
        if (ts.t[j].kind != T_IDENT || !rwl_is_use(&ts, j) || rwl_same_tok(&ts, j, vtok))
            continue;
        for (size_t p = 0; p < n_pre; p++)
            if (pre_guarded[p] && name_written_in(s, j, pre_a[p], pre_e[p]))
                REFUSE(EN(RW_TL_BOUND_SOME), lp->line,
                       TXT(s, j), rwl_line_at(text, ts.t[pre_a[p]].start));
    }

    /* ---- the staged reads ---- */
    for (size_t r = 0; r < n_rs; r++) {
        const km_read_site *site = &rs[r];
        if (!site->n_loops || site->loops[site->n_loops - 1] != (uint32_t)L || site->ambiguous ||
            !km_form_mentions(km, site->index, lp->counter))
            continue;
        if (site->start < ts.t[bs].start || site->end > ts.t[be - 1].end)
            continue;
        int ln = rwl_line_at(text, site->start);
        /* uniform: the index, or for a parameter moved once, the index from its entry */
        km_form idx = site->index;
        for (size_t i = 0; i < n_acc; i++)
            if (acc[i].mode == KM_READ && acc[i].line == (uint32_t)ln && !strcmp(acc[i].buffer, site->buffer) &&
                km_form_equal(acc[i].index, site->index) && acc[i].has_entry_element)
                idx = acc[i].entry_element;
        if (!form_uniform(km, idx))
            continue;   /* a per-thread read: left as it is */
        const km_param *bp = NULL;
        for (size_t p = 0; p < n_params; p++)
            if (params[p].pointer && !strcmp(params[p].name, site->buffer))
                bp = &params[p];
        if (!bp || bp->written)
            REFUSE(bp ? EN(RW_TL_WRITTEN) : EN(RW_TL_NOT_PARAM), lp->line, site->buffer, ln);
        /* the read's tokens, at the top level of a plain statement of the body, unconditional */
        size_t ka = bs, kb;
        while (ka < be && ts.t[ka].start < site->start)
            ka++;
        for (kb = ka; kb < be && ts.t[kb].end <= site->end; kb++)
            ;
        if (ka >= be || ts.t[ka].start != site->start)
            continue;
        size_t st = tok_is(s, bs, "{") ? bs + 1 : bs;
        while (st < be) {
            size_t e = rwl_stmt_end(&ts, st, be);
            if (ka < e)
                break;
            st = e;
        }
        bool plain = !(tok_is(s, st, "if") || tok_is(s, st, "for") || tok_is(s, st, "while") || tok_is(s, st, "do") ||
                       tok_is(s, st, "switch") || tok_is(s, st, "{"));
        for (size_t j = st; plain && j < ka; j++)
            if (tok_is(s, j, "?") || tok_is(s, j, "&&") || tok_is(s, j, "||"))
                plain = false;
        if (!plain)
            REFUSE(EN(RW_TL_CONDITIONAL), lp->line, site->buffer, ln);
        /* its names must hold the same value in every thread where the tile is loaded */
        for (size_t j = ka; j < kb; j++) {
            if (ts.t[j].kind != T_IDENT || !rwl_is_use(&ts, j) || rwl_same_tok(&ts, j, vtok))
                continue;
            if (name_written_in(s, j, bs, be))
                REFUSE(EN(RW_TL_INDEX_BODY), lp->line,
                       site->buffer, ln, TXT(s, j));
            for (size_t p = 0; p < n_pre; p++)
                if (pre_guarded[p] && name_written_in(s, j, pre_a[p], pre_e[p]))
                    REFUSE(EN(RW_TL_INDEX_SOME), lp->line, site->buffer, ln, TXT(s, j), rwl_line_at(text, ts.t[pre_a[p]].start));
            if (name_written_in(s, j, sa, se))
                REFUSE(EN(RW_TL_INDEX_AFTER),
                       lp->line, site->buffer, ln, TXT(s, j));
        }
        if (n_sites == UT_MAX_STAGED)
            REFUSE(EN(RW_TL_MORE_READS), lp->line, UT_MAX_STAGED);
        ut_site *u = &sites[n_sites];
        memset(u, 0, sizeof *u);
        u->start = site->start;
        u->end = site->end;
        u->text = hk_asprintf("%.*s", (int)(site->end - site->start), text + site->start);
        u->squeezed = u->text ? hk_malloc(strlen(u->text) + 1) : NULL;
        n_sites++;
        if (!u->squeezed) {
            rc = HK_ENOMEM;
            goto out;
        }
        rwl_squeeze(u->text, u->squeezed, strlen(u->text) + 1);
        u->tile = -1;
        for (size_t o = 0; o + 1 < n_sites; o++)
            if (!strcmp(sites[o].squeezed, u->squeezed))
                u->tile = sites[o].tile;
        if (u->tile < 0) {
            u->tile = (int)n_tiles;
            /* the element type, qualifiers dropped */
            struct hk_buf tb;
            hk_buf_init(&tb, 256);
            const char *et = bp->elem_type;
            rw_toks tt = {0};
            if ((rc = rwl_lex(et, 0, (uint32_t)strlen(et), &tt))) {
                hk_buf_free(&tb);
                goto out;
            }
            for (size_t j = 0; j < tt.n && !rc; j++)
                if (!rwl_tok_is(&tt, j, "const") && !rwl_tok_is(&tt, j, "volatile") &&
                    !rwl_tok_is(&tt, j, "__restrict__"))
                    rc = hk_buf_printf(&tb, "%s%.*s", tb.len ? " " : "", (int)(tt.t[j].end - tt.t[j].start),
                                       et + tt.t[j].start);
            rwl_toks_free(&tt);
            if (!rc && !tb.len)
                rc = hk_buf_appends(&tb, "float");
            tile_type[n_tiles++] = rc ? NULL : hk_buf_steal(&tb);
            hk_buf_free(&tb);
            if (rc || !tile_type[n_tiles - 1]) {
                rc = rc ? rc : HK_ENOMEM;
                goto out;
            }
        }
    }
    /* ---- computed columns: each use of a column's name in the body reads its tile ---- */
    for (size_t c = 0; cols && c < cols->n; c++) {
        bool used = false;
        for (size_t k = bs; k < be && !rc; k++) {
            if (!tok_is(s, k, cols->name[c]))
                continue;
            if (n_sites == UT_MAX_STAGED)
                REFUSE(EN(RW_TL_MORE_READS_VALUES), lp->line, UT_MAX_STAGED);
            ut_site *u = &sites[n_sites++];
            memset(u, 0, sizeof *u);
            u->start = ts.t[k].start;
            u->end = ts.t[k].end;
            u->column = true;
            u->col = c;
            u->tile = used ? (int)n_tiles - 1 : (int)n_tiles;
            if (!used) {
                if (!(tile_type[n_tiles++] = hk_strdup(cols->type[c]))) {
                    rc = HK_ENOMEM;
                    goto out;
                }
                used = true;
            }
        }
        if (!used)
            REFUSE(EN(RW_TL_VALUE_UNREAD), lp->line, cols->name[c]);
    }
    if (!n_tiles)
        REFUSE(EN(RW_TL_NO_UNIFORM_READ), lp->line);

    /* ---- the loop's body with the staged reads from the tile, its breaks flagged ---- */
    bool has_break = false;
    {
        size_t a = bs, e = be;
        uint32_t at = ts.t[a].start;
        /* the breaks that leave this loop: outside every loop or switch nested in its body */
        size_t brk[64], n_brk = 0;
        for (size_t j = tok_is(s, a, "{") ? a + 1 : a; (j = find_jump(s, j, e, "break", false)) < e; j++) {
            if (n_brk == HK_ARRAY_LEN(brk))
                REFUSE(EN(RW_TL_BREAKS),
                       rwl_line_at(text, ts.t[j].start));
            brk[n_brk++] = j;
        }
        /* pass 0: the body as the tile's loop runs it (hk_tileN[hk_j]); pass 1: as a full
         * tile's unrolled group runs it, from registers loaded together (hk_rN[hk_u]) */
        for (int pass = 0; pass < 2 && !rc; pass++) {
            struct hk_buf *out_b = pass ? &body_full : &body;
            at = ts.t[a].start;
            for (size_t k = a; k < e && !rc; k++) {
                for (size_t u = 0; u < n_sites; u++)
                    if (ts.t[k].start == sites[u].start) {
                        rc = hk_buf_append(out_b, text + at, sites[u].start - at);
                        rc = rc ? rc : hk_buf_printf(out_b, pass ? "hk_r%d[hk_u]" : "hk_tile%d[hk_j]", sites[u].tile);
                        at = sites[u].end;
                        while (k + 1 < e && ts.t[k + 1].start < sites[u].end)
                            k++;
                        break;
                    }
                bool leaves = false;
                for (size_t j = 0; j < n_brk; j++)
                    leaves = leaves || brk[j] == k;
                if (k < e && leaves) {
                    has_break = true;
                    rc = rc ? rc : hk_buf_append(out_b, text + at, ts.t[k].start - at);
                    rc = rc ? rc : hk_buf_appends(out_b, "{ hk_done = true; break; }");
                    at = ts.t[k].end;
                    if (tok_is(s, k + 1, ";"))
                        at = ts.t[++k].end;
                }
            }
            rc = rc ? rc : hk_buf_append(out_b, text + at, ts.t[e - 1].end - at);
            rc = rc ? rc : hk_buf_append(out_b, "", 1);
        }
        if (rc)
            goto out;
    }

    /* ---- the tiled loop ---- */
    {
        char *ctype = tok_text(s, lf + 2, vtok);   /* TYPE of the counter */
        char *start = tok_text(s, vtok + 2, semi1);
        char *cond = tok_text(s, semi1 + 1, semi2);
        struct hk_buf c0;
        hk_buf_init(&c0, 1 << 16);
        rc = (!ctype || !start || !cond) ? HK_ENOMEM : text_replacing(&ts, semi1 + 1, semi2, lp->var, "hk_k0", &c0);
        rc = rc ? rc : hk_buf_append(&c0, "", 1);
        const char *v = lp->var;
        rc = rc ? rc : hk_buf_appends(&b, "{\n");
        for (size_t t = 0; t < n_tiles && !rc; t++)
            rc = hk_buf_printf(&b, "    alignas(16) __shared__ %s hk_tile%zu[%d];\n", tile_type[t], t, tile);
        rc = rc ? rc : hk_buf_printf(&b,
                                     "    bool hk_done = false;\n" /* i18n: not for people */
                                     "    if (__syncthreads_or(hk_on))\n"
                                     "    for (%s hk_k0 = %s; %s; hk_k0 += %d) {\n"
                                     "      for (int hk_l = (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
                                     "threadIdx.z)); hk_l < %d; hk_l += (int)(blockDim.x * blockDim.y * blockDim.z)) {\n"
                                     "        %s %s = hk_k0 + hk_l;\n"
                                     "        if (%s) {\n",
                                     ctype, start, c0.data, tile, tile, ctype, v, cond);
        bool done_tile[UT_MAX_STAGED] = {0};
        for (size_t u = 0; u < n_sites && !rc; u++) {
            if (done_tile[sites[u].tile] || sites[u].column)
                continue;
            done_tile[sites[u].tile] = true;
            rc = hk_buf_printf(&b, "          hk_tile%d[hk_l] = %s;\n", sites[u].tile, sites[u].text);
        }
        if (cols && cols->n && !rc) {
            /* the values every thread computed alike, once per element by its loader */
            rc = hk_buf_appends(&b, "          {\n");
            for (size_t c = 0; c < cols->n && !rc; c++)
                rc = hk_buf_printf(&b, "            %s %s;\n", cols->type[c], cols->name[c]);
            /* the staging code, indented as the loader's body */
            for (const char *l = cols->staging; *l && !rc;) {
                const char *nl = strchr(l, '\n');
                size_t n = nl ? (size_t)(nl - l) : strlen(l);
                rc = hk_buf_printf(&b, "            %.*s\n", (int)n, l);
                l += n + (nl != NULL);
            }
            for (size_t c = 0; c < cols->n && !rc; c++)
                for (size_t u = 0; u < n_sites && !rc; u++)
                    if (sites[u].column && sites[u].col == c) {
                        rc = hk_buf_printf(&b, "            hk_tile%d[hk_l] = %s;\n", sites[u].tile, cols->name[c]);
                        break;
                    }
            rc = rc ? rc : hk_buf_appends(&b, "          }\n");
        }
        rc = rc ? rc : hk_buf_printf(&b,
                                     "        }\n"
                                     "      }\n"
                                     "      __syncthreads();\n"
                                     "      if (hk_on && !hk_done) {\n");
        if (unroll > 1) {
            /* a full tile: groups of unroll points, their staged values loaded together (one
             * 16-byte shared load per tile and group of four floats), then the body per point */
            rc = rc ? rc : hk_buf_printf(&b,
                                         "        bool hk_full;\n" /* i18n: not for people */
                                         "        { %s %s = hk_k0 + (%d - 1); hk_full = (%s); }\n"
                                         "        if (hk_full) {\n"
                                         "          for (int hk_g = 0; hk_g < %d; hk_g += %d) {\n",
                                         ctype, v, tile, cond, tile, unroll);
            for (size_t t = 0; t < n_tiles && !rc; t++)
                rc = hk_buf_printf(&b, "            %s hk_r%zu[%d];\n", tile_type[t], t, unroll);
            rc = rc ? rc : hk_buf_printf(&b, "#pragma unroll\n" /* i18n: not for people */
                                             "            for (int hk_u = 0; hk_u < %d; ++hk_u) {\n", unroll);
            for (size_t t = 0; t < n_tiles && !rc; t++)
                rc = hk_buf_printf(&b, "              hk_r%zu[hk_u] = hk_tile%zu[hk_g + hk_u];\n", t, t);
            rc = rc ? rc : hk_buf_printf(&b,
                                         "            }\n" /* i18n: not for people */
                                         "#pragma unroll\n"
                                         "            for (int hk_u = 0; hk_u < %d; ++hk_u) {\n"
                                         "              %s %s = hk_k0 + (hk_g + hk_u);\n"
                                         "              %s\n"
                                         "            }\n"
                                         "%s"
                                         "          }\n"
                                         "        } else\n",
                                         unroll, ctype, v, body_full.data,
                                         has_break ? "            if (hk_done)\n              break;\n" : "");
        }
        rc = rc ? rc : hk_buf_printf(&b,
                                     "        for (int hk_j = 0; hk_j < %d; ++hk_j) {\n" /* i18n: not for people */
                                     "          %s %s = hk_k0 + hk_j;\n"
                                     "          if (!(%s))\n"
                                     "            break;\n"
                                     "          %s\n"
                                     "        }\n"
                                     "      }\n"
                                     "      if (!__syncthreads_or(hk_on && !hk_done))\n"
                                     "        break;\n"
                                     "    }\n"
                                     "    }",
                                     tile, ctype, v, cond, body.data);
        hk_free(ctype);
        hk_free(start);
        hk_free(cond);
        hk_buf_free(&c0);
        if (rc)
            goto out;
        if ((rc = rwl_edits_add_owned(&es, ts.t[lf].start, ts.t[be - 1].end, hk_buf_steal(&b))))
            goto out;
    }
    (void)has_break;
    /* what the barriers' flag follows, with or without the loop's break: one sentence each */
    const char *shape = region == UT_GRID_STRIDE ? (has_break ? EN(RW_TL_SHAPE_GS_BREAK) : EN(RW_TL_SHAPE_GS))
                        : region == UT_IF        ? (has_break ? EN(RW_TL_SHAPE_IF_BREAK) : EN(RW_TL_SHAPE_IF))
                        : has_break              ? EN(RW_TL_SHAPE_RETURNS_BREAK)
                                                 : EN(RW_TL_SHAPE_RETURNS);
    char *desc = hk_asprintf(n_tiles > 1 ? EN(RW_TL_DESC_N) : EN(RW_TL_DESC_1), f->name, lp->line, n_tiles, tile,
                             unroll, shape);
    rc = rwl_finish(text, ctx->len, ctx->m, f->name, &es, desc, out);
    for (size_t t = 0; t < n_tiles; t++)
        hk_free(tile_type[t]);
    n_tiles = 0;
out:
    for (size_t t = 0; t < n_tiles; t++)
        hk_free(tile_type[t]);
    for (size_t u = 0; u < n_sites; u++) {
        hk_free(sites[u].text);
        hk_free(sites[u].squeezed);
    }
    hk_free(hdr);
    rwl_toks_free(&hts);
    hk_buf_free(&b);
    hk_buf_free(&body);
    hk_buf_free(&body_full);
    rwl_edits_free(&es);
    km_free(km);
    rwl_toks_free(&ts);
    return rc;
#undef REFUSE
}

/* ---- reads inside a called function ---- */

#define UT_MAX_OFFSETS 32

/* Reads the callee g's parameter q (index pi) makes: every use of q in g's body is a read
 * `q[C]` (C an integer literal below UT_MAX_OFFSETS) in the body's straight-line prefix,
 * before any if, loop, switch, return, ?:, && or || (so that each is read whenever g is
 * called). The offsets in used[] and *fits true; *fits false when any use is otherwise
 * (written, offset, passed on, read under a condition) or there is none. HK_OK or
 * HK_ENOMEM. */
static int callee_reads(const char *text, const an_function *g, size_t pi, bool used[UT_MAX_OFFSETS], bool *fits)
{
    *fits = false;
    if (pi >= g->n_params || !g->params[pi].name || !g->params[pi].name[0] || g->params[pi].pointer_depth != 1 ||
        g->body_span.end_byte <= g->body_span.start_byte)
        return HK_OK;
    const char *q = g->params[pi].name;
    rw_toks ts = {0};
    int rc = rwl_lex(text, g->body_span.start_byte, g->body_span.end_byte, &ts);
    if (rc)
        return rc == HK_ENOMEM ? rc : HK_OK;
    bool ok = true, any = false, straight = true;
    memset(used, 0, UT_MAX_OFFSETS * sizeof used[0]);
    for (size_t k = 1; k + 1 < ts.n && ok; k++) {
        if (rwl_tok_is_ident(&ts, k, "if") || rwl_tok_is_ident(&ts, k, "for") || rwl_tok_is_ident(&ts, k, "while") ||
            rwl_tok_is_ident(&ts, k, "do") || rwl_tok_is_ident(&ts, k, "switch") ||
            rwl_tok_is_ident(&ts, k, "return") || rwl_tok_is_ident(&ts, k, "goto") || rwl_tok_is(&ts, k, "?") ||
            rwl_tok_is(&ts, k, "&&") || rwl_tok_is(&ts, k, "||"))
            straight = false;
        if (!rwl_tok_is_ident(&ts, k, q) || !rwl_is_use(&ts, k))
            continue;
        /* q [ C ] read: not written, not its address taken */
        ok = straight && k + 3 < ts.n && rwl_tok_is(&ts, k + 1, "[") && ts.t[k + 2].kind == T_NUMBER &&
             rwl_tok_is(&ts, k + 3, "]") && !rwl_tok_is_assign_op(&ts, k + 4) && !rwl_tok_is(&ts, k + 4, "++") &&
             !rwl_tok_is(&ts, k + 4, "--") && !rwl_tok_is(&ts, k - 1, "&") && !rwl_tok_is(&ts, k - 1, "++") &&
             !rwl_tok_is(&ts, k - 1, "--");
        if (!ok)
            break;
        char num[16];
        size_t nl = ts.t[k + 2].end - ts.t[k + 2].start;
        snprintf(num, sizeof num, "%.*s", (int)(nl < sizeof num ? nl : sizeof num - 1), text + ts.t[k + 2].start);
        char *end;
        long c = strtol(num, &end, 0);
        ok = *end == '\0' && c >= 0 && c < UT_MAX_OFFSETS;
        if (ok)
            used[c] = any = true;
    }
    rwl_toks_free(&ts);
    *fits = ok && any;
    return HK_OK;
}

/* The kernel f with the reads of one call in a counted loop brought into its own text:
 * a statement `... g(..., P + X, ...) ...;` of the loop's body block, where P is a pointer
 * parameter of the kernel, X a pure expression of the loop's counter and g a function of
 * the model that only reads its parameter at constant offsets C (callee_reads), becomes
 * `T hk_ua[N]; hk_ua[C] = P[(X) + C]; ...  ... g(..., hk_ua, ...) ...;` (also for
 * `X + P` and `&P[X]`). The same elements are read, at the same trip, before the same
 * call, which reads each of them whenever it is called; then uniform_tiles sees them.
 * New text in *out (NULL when no such call), *line the call's line. */
static int inline_call_reads(const rw_context *ctx, const an_function *f, char **out, int *line)
{
    const char *text = ctx->text;
    rw_toks ts = {0};
    struct hk_buf b;
    hk_buf_init(&b, RW_TEXT_MAX);
    *out = NULL;
    int rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts);
    for (size_t k = 1; !rc && !*out && k + 2 < ts.n; k++) {
        if (!rwl_tok_is_ident(&ts, k, "for") || !rwl_tok_is(&ts, k + 1, "("))
            continue;
        /* its counter: `TYPE v =` in the header's init */
        size_t hc = rwl_match_close(&ts, k + 1), v = 0;
        for (size_t j = k + 3; j < hc && !rwl_tok_is(&ts, j, ";"); j++)
            if (ts.t[j].kind == T_IDENT && rwl_tok_is(&ts, j + 1, "=") &&
                (rwl_is_type_word(&ts, j - 1) || ts.t[j - 1].kind == T_IDENT))
                v = j;
        if (!v || hc + 1 >= ts.n || !rwl_tok_is(&ts, hc + 1, "{"))
            continue;
        size_t bc = rwl_match_close(&ts, hc + 1);
        for (size_t st = hc + 2; !rc && !*out && st < bc;) {
            size_t se = rwl_stmt_end(&ts, st, bc);
            bool plain = !(rwl_tok_is_ident(&ts, st, "if") || rwl_tok_is_ident(&ts, st, "for") ||
                           rwl_tok_is_ident(&ts, st, "while") || rwl_tok_is_ident(&ts, st, "do") ||
                           rwl_tok_is_ident(&ts, st, "switch") || rwl_tok_is(&ts, st, "{") ||
                           rwl_tok_is_ident(&ts, st, "return"));
            for (size_t c = st; plain && !*out && c + 1 < se; c++) {
                if (rwl_tok_is(&ts, c, "?") || rwl_tok_is(&ts, c, "&&") || rwl_tok_is(&ts, c, "||"))
                    break;   /* a call after these may not run */
                if (rwl_tok_is(&ts, c, "++") || rwl_tok_is(&ts, c, "--"))
                    break;   /* the argument may not have the value it has at the statement's start */
                if (ts.t[c].kind != T_IDENT || !rwl_tok_is(&ts, c + 1, "(") || rwl_is_type_word(&ts, c))
                    continue;
                const an_function *g = NULL;
                size_t nl = ts.t[c].end - ts.t[c].start;
                for (size_t fi = 0; fi < ctx->m->n_funcs && !g; fi++)
                    if (ctx->m->funcs[fi].name && strlen(ctx->m->funcs[fi].name) == nl &&
                        !memcmp(ctx->m->funcs[fi].name, text + ts.t[c].start, nl) && &ctx->m->funcs[fi] != f)
                        g = &ctx->m->funcs[fi];
                size_t cc = rwl_match_close(&ts, c + 1);
                if (!g && !rwl_pure_call_name(&ts, c))
                    break;   /* a call before this one may change what its argument reads */
                if (!g || cc >= se)
                    continue;
                /* each argument [a, e) */
                size_t a = c + 2, arg = 0;
                while (!*out && !rc && a < cc) {
                    size_t e = a;
                    int depth = 0;
                    while (e < cc && !(depth == 0 && rwl_tok_is(&ts, e, ","))) {
                        depth += rwl_tok_is(&ts, e, "(") || rwl_tok_is(&ts, e, "[");
                        depth -= rwl_tok_is(&ts, e, ")") || rwl_tok_is(&ts, e, "]");
                        e++;
                    }
                    /* P + X, X + P or &P[X]: P the pointer parameter, [xa, xb) X */
                    size_t pt = 0, xa = 0, xb = 0;
                    if (e - a >= 4 && rwl_tok_is(&ts, a, "&") && rwl_tok_is(&ts, a + 2, "[") &&
                        rwl_match_close(&ts, a + 2) == e - 1)
                        pt = a + 1, xa = a + 3, xb = e - 1;
                    else if (e - a >= 3 && rwl_tok_is(&ts, a + 1, "+"))
                        pt = a, xa = a + 2, xb = e;
                    else if (e - a >= 3 && rwl_tok_is(&ts, e - 2, "+"))
                        pt = e - 1, xa = a, xb = e - 2;
                    const an_param *kp = NULL;
                    for (size_t pi = 0; pt && pi < f->n_params && !kp; pi++)
                        if (f->params[pi].pointer_depth == 1 && f->params[pi].name &&
                            rwl_tok_is_ident(&ts, pt, f->params[pi].name))
                            kp = &f->params[pi];
                    bool counter = false, pure = kp != NULL;
                    for (size_t x = xa; pure && x < xb; x++) {
                        counter |= rwl_same_tok(&ts, x, v) && rwl_is_use(&ts, x);
                        pure = !rwl_tok_is(&ts, x, "++") && !rwl_tok_is(&ts, x, "--") && !rwl_tok_is_assign_op(&ts, x) &&
                               !rwl_tok_is(&ts, x, "(") && !rwl_tok_is(&ts, x, "[") && !rwl_tok_is(&ts, x, "+") &&
                               !rwl_tok_is(&ts, x, "-");   /* one product: `k * 7` (a sum would
                                                            * be read as P + k ... ) */
                    }
                    bool used[UT_MAX_OFFSETS], fits = false;
                    if (kp && pure && counter && (rc = callee_reads(text, g, arg, used, &fits)))
                        break;
                    if (fits) {
                        int last = 0;
                        for (int o = 0; o < UT_MAX_OFFSETS; o++)
                            if (used[o])
                                last = o;
                        uint32_t s0 = ts.t[st].start;
                        rc = hk_buf_append(&b, text, s0);
                        rc = rc ? rc : hk_buf_printf(&b, "%s hk_ua[%d];", kp->elem_type, last + 1);
                        for (int o = 0; o < UT_MAX_OFFSETS && !rc; o++)
                            if (used[o])
                                rc = hk_buf_printf(&b, " hk_ua[%d] = %s[(%.*s) + %d];", o, kp->name,
                                                   (int)(ts.t[xb - 1].end - ts.t[xa].start), text + ts.t[xa].start, o);
                        /* the statement again on a line of its own, as indented */
                        uint32_t ls = s0;
                        while (ls > 0 && text[ls - 1] != '\n')
                            ls--;
                        rc = rc ? rc : hk_buf_appends(&b, "\n");
                        for (uint32_t w = ls; w < s0 && !rc; w++)
                            rc = hk_buf_append(&b, text[w] == '\t' ? "\t" : " ", 1);
                        rc = rc ? rc : hk_buf_append(&b, text + s0, ts.t[a].start - s0);
                        rc = rc ? rc : hk_buf_appends(&b, "hk_ua");
                        rc = rc ? rc : hk_buf_append(&b, text + ts.t[e - 1].end, ctx->len - ts.t[e - 1].end);
                        if (!rc && !(*out = hk_buf_steal(&b)))
                            rc = HK_ENOMEM;
                        *line = rwl_line_at(text, ts.t[c].start);
                    }
                    a = e + 1;
                    arg++;
                }
                if (!*out)
                    break;   /* a call before the next one may change what its argument reads */
            }
            st = se;
        }
    }
    rwl_toks_free(&ts);
    hk_buf_free(&b);
    return rc;
}

/* uniform_tiles on the kernel, or, when it refuses and a counted loop reads its elements
 * inside a call (mmcv's `check_pt_in_box3d(pts, boxes + k * 7, ...)`), on the kernel with
 * that call's reads brought into its text (inline_call_reads); the original's refusal when
 * that does not apply either. */
int rw_tiles_with_columns(const rw_context *ctx, int tile, int unroll, const rw_tile_columns *cols, rw_result *out)
{
    int rc = tiles_core(ctx, tile, unroll, cols, out);
    if (rc || out->applicable)
        return rc;
    const an_function *f;
    if ((rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f)))
        return rc;
    char *text = NULL;
    int line = 0;
    an_model *m2 = NULL;
    rw_result r2;
    memset(&r2, 0, sizeof r2);
    /* the local the copy declares must be a new name */
    for (uint32_t b = f->body_span.start_byte; b + 5 <= f->body_span.end_byte; b++)
        if (!memcmp(ctx->text + b, "hk_ua", 5))
            goto out;
    if ((rc = inline_call_reads(ctx, f, &text, &line)) || !text)
        goto out;
    if ((rc = an_analyze(text, strlen(text), &m2)))
        goto out;
    long k = an_model_find_kernel(m2, f->name);
    if (k < 0)
        goto out;
    rw_context c2 = *ctx;
    c2.text = text;
    c2.len = strlen(text);
    c2.m = m2;
    c2.kernel = (size_t)k;
    if ((rc = tiles_core(&c2, tile, unroll, cols, &r2)) || !r2.applicable)
        goto out;
    rc = rw_result_adopt(out, &r2,
                         hk_asprintf(EN(RW_TL_CALL_COPIED),
                                     r2.description ? r2.description : "", line));
out:
    rw_result_free(&r2);
    an_model_free(m2);
    hk_free(text);
    /* a text that does not analyze keeps the original's refusal; memory does not */
    return rc == HK_ENOMEM ? rc : HK_OK;
}

/* ---- registry descriptor (registry.h) ---- */

const rw_param rw_tiles_params[2] = {
    {.name = "tile", .type = RW_PARAM_ENUM, .values = {128, 256, 512, 1024}, .n_values = 4, .def = 256},
    {.name = "unroll", .type = RW_PARAM_ENUM, .values = {1, 2, 4, 8}, .n_values = 4, .def = 4},
};

static int emit_uniform_tiles(const rw_context *c, const int *p, rw_result *out)
{
    int rc = rw_tiles_with_columns(c, p[0], p[1], NULL, out);
    if (rc == HK_OK && out->applicable)
        out->keeps_launch = false;
    return rc;
}

const rw_descriptor rw_uniform_tiles_desc = {
    .name = "uniform_tiles",
    .summary = "an all-pairs loop whose reads are the same for every thread of the block reads them through " /* i18n: not for people */
               "__shared__ tiles loaded once per block (exact: same updates, same order)",
    .params = rw_tiles_params,
    .n_params = HK_ARRAY_LEN(rw_tiles_params),
    .flags = RW_ALGORITHM,
    .emit = emit_uniform_tiles,
};
