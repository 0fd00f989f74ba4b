/* warp_row_tree (issue 13, session 42): a block-per-row reduction -- each block sums its
 * row (blockIdx.x) over a block-stride loop into a register, stores it at S[threadIdx.x],
 * and a shared-memory tree over the block leaves the row's sum in S[0], which the code
 * after the tree reads (llm.c's rstd_kernel and mean_kernel: a block of 512 for a row of
 * 768) -- becomes one warp per row: blockDim.x / 32 rows per block, the block-stride loop
 * over the warp's 32 lanes, the tree as five __shfl_xor_sync steps, no barrier.
 *
 * Why it computes the same rows. The statements before the store read the thread only as
 * the start of one block-stride loop `for (i = tid; i < n; i += B)` (B blockDim.x, or a
 * parameter the spec passes equal to it: rw_spec_block_x_param) and the block size only as
 * its step, n the same for the whole block; so the B threads together visit every i in
 * [0, n) exactly once for any B, each adding its terms to a sum from 0 (the model's
 * accumulator, updated nowhere else), and the tree (block_reduce's recognition: the whole
 * block, a sum) adds the B partial sums into S[0]. The code after the tree reads S[0] and
 * the thread only as `tid == 0`. A virtual block of 32 lanes therefore computes the same
 * row with the terms summed in another order (a float sum may differ in its last bits, as
 * block_reduce's does), every lane holding the total after the xor butterfly, so `S[0]`
 * becomes that register and `tid == 0` lane 0. Block b's warp w takes row
 * b * (blockDim.x / 32) + w in a loop over the rows (stride gridDim.x * blockDim.x / 32),
 * so any launch whose rows are bounded right covers each original block index once: the
 * bound is a parameter the spec passes equal to the grid along x at every size set (the
 * search then divides the grid by the spec's block / 32, rw_result.grid_divisor), else
 * gridDim.x under the kernel's own launch (keeps_launch: the blocks past the rows' exit at
 * once). A whole warp takes one row at a time, so its shuffles see 32 active lanes; the
 * spec's block must be a multiple of 32 at every size set. */
#include "rewrites/rewrite_pattern.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"
#include "spec/expr.h"
#include "spec/spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

static const char *const name = "warp row tree"; /* i18n: not for people */

#define WRT_NAMES 8

typedef struct {
    const rw_context *c;
    const an_function *f;
    rw_toks ts;
    km_kernel *k;
    const char *bx[WRT_NAMES];   /* parameters that are blockDim.x */
    size_t n_bx;
    char bconst[WRT_NAMES][64];  /* named constants equal to the spec's block (block_consts) */
    size_t n_bconst;
    char tids[WRT_NAMES][64];    /* locals declared `= threadIdx.x;` */
    size_t n_tids;
    char arr[64];                /* the tree's array S */
    char acc[64];                /* the register stored at S[tid] */
    char ty[96];                 /* S's element type */
    size_t loop_a, loop_b;       /* the block-stride loop's tokens */
    char why[700];
} wrt;

static bool is_tid(const wrt *w, size_t k)
{
    if (rwl_builtin_x(&w->ts, k, "threadIdx"))
        return true;
    for (size_t i = 0; i < w->n_tids; i++)
        if (rwl_tok_is_ident(&w->ts, k, w->tids[i]) && rwl_is_use(&w->ts, k))
            return true;
    return false;
}

static bool is_bsize(const wrt *w, size_t k)
{
    if (rwl_builtin_x(&w->ts, k, "blockDim"))
        return true;
    for (size_t i = 0; i < w->n_bx; i++)
        if (rwl_tok_is_ident(&w->ts, k, w->bx[i]) && rwl_is_use(&w->ts, k))
            return true;
    for (size_t i = 0; i < w->n_bconst; i++)
        if (rwl_tok_is_ident(&w->ts, k, w->bconst[i]) && rwl_is_use(&w->ts, k))
            return true;
    return false;
}

/* Named constants equal to the spec's block along x at every size set (b0): a macro or
 * file-scope constant the model knows the value of, or a template parameter whose argument
 * (the search's, else the spec's) is that number: the block size as the kernel spells it
 * (`#define BLOCK 512` with a block of 512, `template <int BS>` at <512>). */
static void block_consts(wrt *w, unsigned b0)
{
    size_t na;
    const km_atom *at = km_atoms(w->k, &na);
    for (size_t i = 0; i < na && w->n_bconst < WRT_NAMES; i++)
        if (at[i].kind == KM_ATOM_CONST && at[i].has_value && at[i].value == (int64_t)b0 && at[i].name)
            snprintf(w->bconst[w->n_bconst++], sizeof w->bconst[0], "%s", at[i].name);
    const char *const *args = w->c->template_args;
    size_t nargs = w->c->n_template_args;
    if (!args && w->c->spec) {
        args = (const char *const *)w->c->spec->template_args;
        nargs = w->c->spec->n_template_args;
    }
    for (size_t i = 0; i < na && w->n_bconst < WRT_NAMES; i++) {
        if (at[i].kind != KM_ATOM_CONST || at[i].has_value || !at[i].name || !w->f->template_params)
            continue;
        long ti = rw_template_param_index(w->f->template_params, at[i].name);
        char *end = NULL;
        long v = ti >= 0 && (size_t)ti < nargs && args[ti] ? strtol(args[ti], &end, 10) : -1;
        if (end && *end == 0 && v == (long)b0)
            snprintf(w->bconst[w->n_bconst++], sizeof w->bconst[0], "%s", at[i].name);
    }
}

static size_t tok_span(const wrt *w, size_t k)   /* tokens of the name at k: NAME . x is 3 */
{
    return rwl_tok_is(&w->ts, k + 1, ".") ? 3 : 1;
}

static unsigned line_of(const wrt *w, size_t k)
{
    return (unsigned)rwl_line_at(w->c->text, w->ts.t[k < w->ts.n ? k : w->ts.n - 1].start);
}

/* Sets the refusal "line N: ..." (msg with the line of token k and what) unless one is set. */
static bool refuse(wrt *w, size_t k, enum hk_msg id, const char *what)
{
    if (!w->why[0])
        snprintf(w->why, sizeof w->why, hk_tr_in(HK_LANG_EN, id), line_of(w, k), what);
    return false;
}

/* The text of tokens [a, b) into out (n bytes), for a refusal. */
static const char *toks(const wrt *w, size_t a, size_t b, char *out, size_t n)
{
    out[0] = 0;
    for (size_t k = a; k < b && k < w->ts.n; k++) {
        size_t u = strlen(out);
        snprintf(out + u, n - u, "%.*s", (int)(w->ts.t[k].end - w->ts.t[k].start), w->ts.text + w->ts.t[k].start);
    }
    return out;
}

/* The spec's block along x at every size set: a multiple of 32, 1 along y and z. Its value
 * at set 0 in *b0; *same when every set has it. */
static bool spec_block_warps(const struct spec *sp, unsigned *b0, bool *same)
{
    if (!sp || sp->form != SPEC_FORM_HARNESS || !sp->block[0] || sp->n_sizes == 0)
        return false;
    *same = true;
    for (size_t k = 0; k < sp->n_sizes; k++)
        for (int d = 0; d < 3; d++) {
            expr_value v = {.i = 1};
            if (sp->block[d] && (spec_eval(sp, sp->block[d], k, 132, &v, NULL, 0) != HK_OK || v.is_float))
                return false;
            if (d == 0 && (v.i < 32 || v.i > 1024 || v.i % 32))
                return false;
            if (d > 0 && v.i != 1)
                return false;
            if (d == 0 && k == 0)
                *b0 = (unsigned)v.i;
            else if (d == 0 && (unsigned)v.i != *b0)
                *same = false;
        }
    return true;
}

/* A scalar parameter the spec passes equal to its grid along x at every size set (and two
 * SM counts): the row count of a one-block-per-row launch. Its name, or NULL. */
static const char *grid_param(const struct spec *sp, const an_function *f)
{
    if (!sp || sp->form != SPEC_FORM_HARNESS || !sp->grid[0] || sp->n_args != f->n_params)
        return NULL;
    for (size_t i = 0; i < f->n_params; i++) {
        const spec_arg *a = &sp->args[i];
        if (f->params[i].pointer_depth || a->kind != HK_ARG_SCALAR || !a->value)
            continue;
        bool all = true;
        static const long long sms[] = {1, 132};
        for (size_t k = 0; all && k < sp->n_sizes; k++)
            for (size_t s = 0; all && s < 2; s++) {
                expr_value v, g;
                all = spec_eval(sp, a->value, k, sms[s], &v, NULL, 0) == HK_OK &&
                      spec_eval(sp, sp->grid[0], k, sms[s], &g, NULL, 0) == HK_OK && !v.is_float && !g.is_float &&
                      v.i == g.i && v.i > 0;
            }
        if (all)
            return f->params[i].name;
    }
    return NULL;
}

/* Does text[a, b) name the launch, a barrier or shared memory, which a rewrite of the body's
 * own tokens would not see? */
static bool mentions_launch(const char *t, size_t a, size_t b)
{
    static const char *const words[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "hipThreadIdx_",
                                         "hipBlockIdx_", "hipBlockDim_", "hipGridDim_", "__syncthreads",
                                         "__syncwarp", "__shared__", "this_thread_block", "__shfl"}; /* i18n: not for people */
    for (size_t i = 0; i < HK_ARRAY_LEN(words); i++) {
        size_t n = strlen(words[i]);
        for (size_t j = a; j + n <= b; j++)
            if (!memcmp(t + j, words[i], n))
                return true;
    }
    return false;
}

/* The name at k reads the launch out of sight: a macro whose definition names it, a call of a
 * function of the file whose body does, or a HIP builtin. */
static bool hidden_launch_use(const wrt *w, size_t k)
{
    const rw_toks *ts = &w->ts;
    if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
        return false;
    const char *nm = ts->text + ts->t[k].start;
    size_t nl = ts->t[k].end - ts->t[k].start;
    if (mentions_launch(nm, 0, nl) && (nl < 3 || memcmp(nm, "hk_", 3) != 0) &&
        !(rwl_tok_is(ts, k + 1, ".") && (rwl_tok_is_ident(ts, k, "threadIdx") || rwl_tok_is_ident(ts, k, "blockIdx") ||
                                          rwl_tok_is_ident(ts, k, "blockDim") || rwl_tok_is_ident(ts, k, "gridDim"))))
        return true;   /* hipThreadIdx_x and the like */
    size_t at = 0, a, b;
    while (rwl_next_define(w->c->text, w->c->len, &at, nm, nl, &a, &b))
        if (mentions_launch(w->c->text, a + nl, b))
            return true;
    const an_function *g = rwl_callee(w->c->m, w->f, ts, k);
    return g && g->body_span.end_byte <= w->c->len &&
           mentions_launch(w->c->text, g->body_span.start_byte, g->body_span.end_byte);
}

/* The top-level statement [a, e) is `[const] T name = threadIdx.x;`: its name recorded. */
static bool tid_decl(wrt *w, size_t a, size_t e)
{
    size_t q = a;
    if (rwl_tok_is(&w->ts, q, "const"))
        q++;
    size_t t0 = q;
    while (q < e && rwl_is_type_word(&w->ts, q))
        q++;
    if (q == t0 || q + 6 != e || w->ts.t[q].kind != T_IDENT || !rwl_tok_is(&w->ts, q + 1, "=") ||
        !rwl_builtin_x(&w->ts, q + 2, "threadIdx") || !rwl_tok_is(&w->ts, e - 1, ";") || w->n_tids >= WRT_NAMES)
        return false;
    snprintf(w->tids[w->n_tids++], sizeof w->tids[0], "%.*s", (int)(w->ts.t[q].end - w->ts.t[q].start),
             w->ts.text + w->ts.t[q].start);
    return true;
}

/* S's declaration [a, e): `[extern] __shared__ T S[...];` of one name. Its type into w->ty. */
static bool shared_decl(wrt *w, size_t a, size_t e)
{
    size_t q = a;
    if (rwl_tok_is(&w->ts, q, "extern"))
        q++;
    if (!rwl_tok_is(&w->ts, q, "__shared__"))
        return false;
    q++;
    size_t t0 = q;
    while (q < e && w->ts.t[q].kind == T_IDENT && !rwl_tok_is_ident(&w->ts, q, w->arr))
        q++;
    if (q == t0 || !rwl_tok_is_ident(&w->ts, q, w->arr) || !rwl_tok_is(&w->ts, q + 1, "["))
        return false;
    size_t c = rwl_match_close(&w->ts, q + 1);
    if (c + 2 != e || !rwl_tok_is(&w->ts, c + 1, ";"))
        return false;
    char t[96] = "";
    for (size_t j = t0; j < q; j++) {
        if (rwl_tok_is(&w->ts, j, "volatile"))
            continue;
        size_t u = strlen(t);
        snprintf(t + u, sizeof t - u, "%s%.*s", u ? " " : "", (int)(w->ts.t[j].end - w->ts.t[j].start),
                 w->ts.text + w->ts.t[j].start);
    }
    snprintf(w->ty, sizeof w->ty, "%s", t);
    return w->ty[0] != 0;
}

/* The store [a, e): `S[tid] = acc;`, acc a name: recorded in w->acc. */
static bool tree_store(wrt *w, size_t a, size_t e)
{
    if (!rwl_tok_is_ident(&w->ts, a, w->arr) || !rwl_tok_is(&w->ts, a + 1, "["))
        return false;
    size_t c = rwl_match_close(&w->ts, a + 1);
    if (c >= e || !is_tid(w, a + 2) || a + 2 + tok_span(w, a + 2) != c || !rwl_tok_is(&w->ts, c + 1, "=") ||
        c + 4 != e || w->ts.t[c + 2].kind != T_IDENT || !rwl_tok_is(&w->ts, e - 1, ";"))
        return false;
    snprintf(w->acc, sizeof w->acc, "%.*s", (int)(w->ts.t[c + 2].end - w->ts.t[c + 2].start),
             w->ts.text + w->ts.t[c + 2].start);
    return true;
}

/* Is the top-level statement [a, e) the block-stride loop `for (T i = TID; ...; i += B)`,
 * with the model's KM_LOOP_BLOCK_STRIDE at its line? Its header's init and step tokens. */
static bool block_loop(wrt *w, size_t a, size_t e, size_t *init, size_t *step)
{
    if (!rwl_tok_is(&w->ts, a, "for") || !rwl_tok_is(&w->ts, a + 1, "("))
        return false;
    size_t c = rwl_match_close(&w->ts, a + 1);
    if (c >= e)
        return false;
    *init = *step = 0;
    for (size_t k = a + 2; k < c; k++) {
        if (is_tid(w, k) && k > 0 && rwl_tok_is(&w->ts, k - 1, "=") && rwl_tok_is(&w->ts, k + tok_span(w, k), ";"))
            *init = k;
        if (is_bsize(w, k) && k > 0 && rwl_tok_is(&w->ts, k - 1, "+=") && k + tok_span(w, k) == c)
            *step = k;
    }
    if (!*init || !*step || *init < 2 || *step < 2)
        return false;
    /* one variable: `i = TID;`, `i < ...;`, `i += B` */
    size_t v = *init - 2, semi = *init + tok_span(w, *init);
    if (w->ts.t[v].kind != T_IDENT || !rwl_same_tok(&w->ts, v, semi + 1) || !rwl_tok_is(&w->ts, semi + 2, "<") ||
        !rwl_same_tok(&w->ts, v, *step - 2))
        return false;
    size_t nl;
    const km_loop *ls = km_loops(w->k, &nl);
    for (size_t l = 0; l < nl; l++)
        if (ls[l].line == line_of(w, a) && ls[l].parent < 0 && ls[l].cmp && !strcmp(ls[l].cmp, "<") &&
            (ls[l].kind == KM_LOOP_BLOCK_STRIDE || ls[l].kind == KM_LOOP_AFFINE)) {
            w->loop_a = a;
            w->loop_b = e;
            return true;
        }
    return false;
}

/* Does the block-stride loop [w->loop_a, w->loop_b) write a name other than the accumulator
 * that lives past an iteration (declared outside its body, or its own variable)? A count of
 * the thread's elements (`cnt++`) is its block's share, which a warp's lane does not have.
 * The token of the first such write, or 0. */
static size_t loop_writes_outer(const wrt *w)
{
    const rw_toks *ts = &w->ts;
    size_t open = w->loop_a + 1, close = rwl_match_close(ts, open);
    for (size_t k = open + 1; k < w->loop_b; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k) || !rwl_scalar_written(ts, k) ||
            rwl_tok_is_ident(ts, k, w->acc))
            continue;
        if (k < close && rwl_same_tok(ts, k, open + 1 + (rwl_is_type_word(ts, open + 1) ? 1 : 0)))
            continue;   /* the header's own step of its variable */
        bool local = false;   /* declared in the loop's body: `T name` (`T *name`) here or before */
        for (size_t j = close + 1; j <= k && !local; j++) {
            size_t t = j;
            while (t > close + 1 && rwl_tok_is(ts, t - 1, "*"))
                t--;
            /* two names in a row are a declaration, but after a statement word */
            local = rwl_same_tok(ts, j, k) && t > close + 1 && ts->t[t - 1].kind == T_IDENT &&
                    !rwl_tok_is(ts, t - 1, "return") && !rwl_tok_is(ts, t - 1, "else") &&
                    !rwl_tok_is(ts, t - 1, "case") && !rwl_tok_is(ts, t - 1, "goto") &&
                    !rwl_tok_is(ts, t - 1, "sizeof") && !rwl_tok_is(ts, t - 1, "do");
        }
        if (!local)
            return k;
    }
    return 0;
}

/* The accumulator acc: a sum from 0 whose every update lies in the block-stride loop. */
static bool acc_is_loop_sum(wrt *w)
{
    size_t na, nu, nl;
    const km_accumulator *as = km_accumulators(w->k, &na);
    const km_acc_update *us = km_acc_updates(w->k, &nu);
    const km_loop *ls = km_loops(w->k, &nl);
    long loop = -1;
    for (size_t l = 0; l < nl; l++)
        if (ls[l].line == line_of(w, w->loop_a) && ls[l].parent < 0 &&
            (ls[l].kind == KM_LOOP_BLOCK_STRIDE || ls[l].kind == KM_LOOP_AFFINE))
            loop = (long)l;
    for (size_t i = 0; i < na; i++) {
        if (strcmp(as[i].name, w->acc) != 0)
            continue;
        if (as[i].op != KM_OP_SUM || as[i].init.n != 0 || loop < 0)
            return false;
        for (size_t u = 0; u < nu; u++) {
            if (us[u].acc != i)
                continue;
            bool in = false;
            for (uint32_t j = 0; j < us[u].n_loops; j++)
                in |= (long)us[u].loops[j] == loop;
            if (!in || us[u].op != KM_OP_SUM)
                return false;
        }
        return true;
    }
    return false;
}

static const char tpl_head[] =
    "{\n"
    "    // hk rewrite: warp_row_tree. One warp per row (block) of the original: blockDim.x / 32\n" /* i18n: not for people */
    "    // rows per block, the block-stride loop over the warp's lanes, the shared tree as\n"
    "    // __shfl_xor_sync steps (every lane gets the row's $OP), no barrier.\n"
    "    const unsigned int hk_lane = threadIdx.x & 31u, hk_rpb = blockDim.x >> 5;\n"
    "    for (unsigned int hk_row = blockIdx.x * hk_rpb + (threadIdx.x >> 5); hk_row < (unsigned int)($ROWS);\n"
    "         hk_row += gridDim.x * hk_rpb) {\n";

static const char tpl_tree[] =
    "for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1)   // the tree over 32 lanes\n" /* i18n: not for people */
    "        hk_v += __shfl_xor_sync(0xffffffffu, hk_v, hk_off, 32);";

/* Scans the body; true with the edits in es when it is a block-per-row tree. */
static bool scan(wrt *w, unsigned tree_line, rw_edits *es, int *rc)
{
    const rw_toks *ts = &w->ts;
    size_t end = ts->n - 1, store = 0, barrier = 0, decl = 0;
    char what[160];
    /* the statements, in order: before the store (prefix), the store, its barrier, the
     * tree, after it (suffix) */
    int part = 0;   /* 0 prefix, 1 after the store, 2 after its barrier, 3 suffix */
    bool loop_seen = false;
    for (size_t a = 1; a < end;) {
        size_t e = rwl_stmt_end(ts, a, end);
        if (e <= a)
            return refuse(w, a, HK_MSG_RW_WRT_STMT, toks(w, a, a + 1, what, sizeof what));
        if (part == 2) {   /* the tree loop itself, block_reduce's */
            if (line_of(w, a) != tree_line ||
                !(rwl_tok_is(ts, a, "for") || rwl_tok_is(ts, a, "while") || rwl_tok_is(ts, a, "do")))
                return refuse(w, a, HK_MSG_RW_WRT_ORDER, w->arr);
            if (rwl_tok_is(ts, a, "do") && rwl_tok_is(ts, e, "while"))
                e = rwl_stmt_end(ts, e, end);
            char *tree = NULL;
            struct hk_buf b;
            hk_buf_init(&b, PT_TEXT_MAX);
            const char *kv[] = {NULL};
            if ((*rc = rwl_render(&b, tpl_tree, kv)) || !(tree = hk_strdup(b.data))) {
                *rc = *rc ? *rc : HK_ENOMEM;
                hk_buf_free(&b);
                return false;
            }
            hk_buf_free(&b);
            /* the store becomes the register, the barrier goes, the tree is the shuffles (a
             * `#pragma unroll` before the tree stays before a loop) */
            char *reg = hk_asprintf("%s hk_v = %s;", w->ty, w->acc); /* i18n: not for people */
            if (!reg) {
                hk_free(tree);
                *rc = HK_ENOMEM;
                return false;
            }
            if ((*rc = rwl_edits_add_owned(es, ts->t[store].start, ts->t[store + 5 + tok_span(w, store + 2)].end, reg)) ||
                (*rc = rwl_edits_add(es, ts->t[barrier].start, ts->t[barrier + 3].end, "")) ||
                (*rc = rwl_edits_add_owned(es, ts->t[a].start, ts->t[e - 1].end, tree)))
                return false;
            part = 3;
            a = e;
            continue;
        }
        if (shared_decl(w, a, e)) {
            decl = a;
            if ((*rc = rwl_edits_add(es, ts->t[a].start, ts->t[e - 1].end, "")))
                return false;
            a = e;
            continue;
        }
        if (part == 0 && tree_store(w, a, e)) {
            store = a;
            part = 1;
            a = e;
            continue;
        }
        if (part == 1) {
            if (!rwl_barrier_stmt(&w->ts, a, e))
                return refuse(w, a, HK_MSG_RW_WRT_ORDER, w->arr);
            barrier = a;
            part = 2;
            a = e;
            continue;
        }
        if (part == 3 && rwl_barrier_stmt(&w->ts, a, e)) {   /* a barrier after the tree: no block left */
            if ((*rc = rwl_edits_add(es, ts->t[a].start, ts->t[e - 1].end, "")))
                return false;
            a = e;
            continue;
        }
        if (part == 0 && tid_decl(w, a, e)) {   /* the lane now: the name keeps its uses' meaning */
            if ((*rc = rwl_edits_add(es, ts->t[e - 4].start, ts->t[e - 2].end, "hk_lane")))
                return false;
            a = e;
            continue;
        }
        size_t init = 0, step = 0;
        bool is_loop = part == 0 && block_loop(w, a, e, &init, &step);
        if (is_loop && loop_seen)
            return refuse(w, a, HK_MSG_RW_WRT_TWO_LOOPS, "for");
        loop_seen |= is_loop;
        for (size_t k = a; k < e; k++) {
            const char *sub = NULL;
            size_t span = 1;
            if (rwl_tok_is(ts, k, "return") || rwl_tok_is(ts, k, "goto") || rwl_tok_is(ts, k, "__syncthreads") ||
                rwl_tok_is(ts, k, "__syncwarp") || rwl_tok_is(ts, k, "asm") || rwl_tok_is(ts, k, "__shared__"))
                return refuse(w, k, HK_MSG_RW_WRT_STMT, toks(w, k, k + 1, what, sizeof what));
            if (hidden_launch_use(w, k))
                return refuse(w, k, HK_MSG_RW_WRT_HIDDEN, toks(w, k, k + 1, what, sizeof what));
            bool builtin = rwl_tok_is_ident(ts, k, "threadIdx") || rwl_tok_is_ident(ts, k, "blockIdx") ||
                           rwl_tok_is_ident(ts, k, "blockDim") || rwl_tok_is_ident(ts, k, "gridDim");
            if (builtin && rwl_is_use(ts, k) &&
                (!rwl_tok_is(ts, k + 1, ".") || !rwl_tok_is_ident(ts, k + 2, "x") || rwl_tok_is_ident(ts, k, "gridDim")))
                return refuse(w, k, HK_MSG_RW_WRT_USE, toks(w, k, k + 3, what, sizeof what));
            if (rwl_builtin_x(ts, k, "blockIdx")) {
                sub = "hk_row";
                span = 3;
            } else if (is_tid(w, k)) {
                span = tok_span(w, k);
                bool zero_test = part == 3 && ((rwl_tok_is(ts, k + span, "==") && rwl_tok_is(ts, k + span + 1, "0")) ||
                                               (k >= 2 && rwl_tok_is(ts, k - 1, "==") && rwl_tok_is(ts, k - 2, "0")));
                if (!(is_loop && k == init) && !zero_test)
                    return refuse(w, k, HK_MSG_RW_WRT_USE, toks(w, k, k + span, what, sizeof what));
                sub = "hk_lane";
            } else if (is_bsize(w, k)) {
                span = tok_span(w, k);
                if (!(is_loop && k == step))
                    return refuse(w, k, HK_MSG_RW_WRT_USE, toks(w, k, k + span, what, sizeof what));
                sub = span == 3 ? "32u" : "32";   /* blockDim.x is unsigned: so stays the step */
            } else if (rwl_tok_is_ident(ts, k, w->arr) && rwl_is_use(ts, k)) {
                if (part != 3 || !rwl_tok_is(ts, k + 1, "[") || !rwl_tok_is(ts, k + 2, "0") || !rwl_tok_is(ts, k + 3, "]"))
                    return refuse(w, k, HK_MSG_RW_WRT_ARRAY, w->arr);
                sub = "hk_v";
                span = 4;
            }
            if (sub) {
                if ((*rc = rwl_edits_add(es, ts->t[k].start, ts->t[k + span - 1].end, sub)))
                    return false;
                k += span - 1;
            }
        }
        a = e;
    }
    if (!store || !barrier || part != 3 || !decl)
        return refuse(w, store ? store : 1, HK_MSG_RW_WRT_ORDER, w->arr);
    if (!loop_seen || !acc_is_loop_sum(w))
        return refuse(w, store, HK_MSG_RW_WRT_ACC, w->acc);
    size_t outer = loop_writes_outer(w);
    if (outer)
        return refuse(w, outer, HK_MSG_RW_WRT_OUTER, toks(w, outer, outer + 1, what, sizeof what));
    /* the accumulator is the thread's share until the tree: read only by its loop's updates
     * and the store (its declaration aside) */
    for (size_t k = 1; k < end; k++) {
        bool decl_here = k > 0 && ts->t[k - 1].kind == T_IDENT && !rwl_tok_is(ts, k - 1, "return");
        if (!rwl_tok_is_ident(ts, k, w->acc) || !rwl_is_use(ts, k) || decl_here || (k > w->loop_a && k < w->loop_b) ||
            (k > store && k < store + 6 + tok_span(w, store + 2)))
            continue;
        return refuse(w, k, HK_MSG_RW_WRT_USE, w->acc);
    }
    return true;
}

/* The tree's array and loop line from the model: the one __shared__ array written in a
 * top-level geometric loop, by a sum. */
static bool tree_of(wrt *w, unsigned *line)
{
    size_t na, nl;
    const km_access *as = km_accesses(w->k, &na);
    const km_loop *ls = km_loops(w->k, &nl);
    const char *arr = NULL;
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &as[i];
        if (a->space != KM_SPACE_SHARED || a->mode == KM_READ || a->n_loops != 1 ||
            ls[a->loops[0]].kind != KM_LOOP_GEOMETRIC)
            continue;
        if (arr && strcmp(arr, a->buffer) != 0) {
            snprintf(w->why, sizeof w->why, EN(RW_WRT_PAIR), a->line, arr, a->buffer);
            return false;
        }
        /* a sum: `S[w] += S[w + s]` or `S[w] = S[w] + S[w + s]` (block_reduce read the rest);
         * a max, a min or a register carry is not rewritten */
        if (!((a->mode == KM_RMW && a->op == KM_OP_SUM) || (a->mode == KM_WRITE && a->value.n == 2))) {
            snprintf(w->why, sizeof w->why, EN(RW_WRT_NOT_SUM), a->line, a->buffer);
            return false;
        }
        arr = a->buffer;
        *line = ls[a->loops[0]].line;
    }
    if (!arr)
        return false;
    snprintf(w->arr, sizeof w->arr, "%s", arr);
    return true;
}

static int emit_warp_row_tree(const rw_context *c, const int *p, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(c->text, c->len, c->m, c->kernel, &f);
    if (rc)
        return rc;
    wrt *w = hk_calloc(1, sizeof *w);
    if (!w)
        return HK_ENOMEM;
    w->c = c;
    w->f = f;
    rw_edits es = {0};
    rw_result tr = {0};
    unsigned b0 = 0, tree_line = 0;
    bool same = false;
    if (!spec_block_warps(c->spec, &b0, &same)) {
        rc = rwl_not_applicable_to(out, name, f->name, HK_MSG_RW_WRT_SPEC_BLOCK,
                                   (unsigned)rwl_line_at(c->text, f->body_span.start_byte));
        goto out;
    }
    /* block_reduce's recognition of the tree: the whole block's, one array, a sum or other */
    if ((rc = rw_block_tree_spec(c->text, c->len, c->m, c->kernel, false, c->spec, &tr)))
        goto out;
    if (!tr.applicable) {
        const char *r = tr.description ? strstr(tr.description, ": ") : NULL;
        rc = rwl_not_applicable_to(out, name, f->name, HK_MSG_RW_WRT_NO_TREE, r ? r + 2 : "?");
        goto out;
    }
    w->n_bx = rw_spec_block_x_params(c->spec, f, w->bx, WRT_NAMES);
    km_launch_facts facts = {.block_x_params = w->bx, .n_block_x_params = w->n_bx};
    if ((rc = rwp_lex_body(c->text, f->body_span.start_byte, f->body_span.end_byte, &w->ts)))
        goto out;
    if ((rc = km_build_with(c->text, c->len, f->name, &facts, &w->k, w->why, sizeof w->why))) {
        if (rc == HK_ENOMEM)
            goto out;
        rc = rwl_not_applicable_to(out, name, f->name, HK_MSG_RW_MODEL_CANNOT_BUILD, w->why);
        goto out;
    }
    if (same)
        block_consts(w, b0);
    if (!tree_of(w, &tree_line) || w->ts.n < 3) {
        rc = w->why[0] ? rwp_not_applicable(out, name, f, w->why)
                       : rwl_not_applicable_to(out, name, f->name, HK_MSG_RW_WRT_NOT_TOP);
        goto out;
    }
    if (!scan(w, tree_line, &es, &rc)) {
        if (!rc)
            rc = rwp_not_applicable(out, name, f, w->why);
        goto out;
    }
    const char *rows = !p[0] && same ? grid_param(c->spec, f) : NULL;
    struct hk_buf b;
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *kv[] = {"OP", "sum", "ROWS", rows ? rows : "gridDim.x", NULL};
    char *head = NULL;
    if ((rc = rwl_render(&b, tpl_head, kv)) || !(head = hk_strdup(b.data))) {
        rc = rc ? rc : HK_ENOMEM;
        hk_buf_free(&b);
        goto out;
    }
    hk_buf_free(&b);
    const rw_toks *ts = &w->ts;
    if ((rc = rwl_edits_add_owned(&es, ts->t[0].start, ts->t[0].end, head)) ||
        (rc = rwl_edits_add(&es, ts->t[ts->n - 1].start, ts->t[ts->n - 1].end, "    }\n}")))
        goto out;
    char *desc = rows ? hk_asprintf(EN(RW_WRT_DESC_DIVIDED), f->name, tree_line, b0 / 32, b0, rows, b0 / 32)
                      : hk_asprintf(EN(RW_WRT_DESC_KEPT), f->name, tree_line, b0 / 32, b0, b0 / 32);
    if (!desc) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwl_finish(c->text, c->len, c->m, f->name, &es, desc, out);
    if (rc == HK_OK && out->applicable) {
        if (rows && b0 / 32 > 1) {
            out->grid_divisor = b0 / 32;
            out->grid_axis = 0;
        } else {
            out->keeps_launch = true;
        }
    }
out:
    rw_result_free(&tr);
    rwl_edits_free(&es);
    rwl_toks_free(&w->ts);
    km_free(w->k);
    hk_free(w);
    return rc;
}

/* keep_launch: 0 (the default) launches the spec's grid divided by the rows per block where
 * a scalar the spec passes equal to the grid bounds the rows; 1 keeps the kernel's launch
 * (rows bounded by gridDim.x), which verify-candidate can time under the spec's launch */
static const rw_param warp_row_tree_params[] = {
    {.name = "keep_launch", .type = RW_PARAM_BOOL, .def = 0, .optional = true},
};

const rw_descriptor rw_warp_row_tree_desc = {
    .name = "warp_row_tree",
    .params = warp_row_tree_params,
    .n_params = HK_ARRAY_LEN(warp_row_tree_params),
    .summary = "a block per row reduced by a shared tree: one warp per row, shuffles, no barrier", /* i18n: not for people */
    .flags = RW_ALGORITHM,
    .emit = emit_warp_row_tree,
};
