/* fused_blocks (issue 13): a block that loads a few words per thread and then works on them
 * behind barriers (cuda-samples' reduce3: two loads per thread, then a shared-memory tree
 * and one partial per block) keeps few loads in flight: 2,048 resident threads x 8 bytes
 * is 16 KB per SM, under what HBM needs in flight, and a block's slot carries no load at
 * all while its tree runs. More threads per SM cannot be had; more loads per thread can.
 *
 * The rewrite lets block b = F*q run the F consecutive blocks b .. b+F-1 (those below
 * gridDim.x); the others return at once. The body's prologue -- its top-level statements
 * up to the first store to memory or barrier -- is split where it first reads blockIdx.x:
 * the part before (block-free: `tid = threadIdx.x`, a shared pointer) runs once, the part
 * from there (the block's indices and its loads) runs F times, copy j with blockIdx.x read
 * as min(b + j, gridDim.x - 1) and its locals renamed, statement by statement (each
 * statement for the F blocks in turn), so the F blocks' loads are issued before any of
 * them is waited for. (A loop of that part is copied whole per block, one after another:
 * its trips wait as they did; straight-line loads gain most.) The split moves back to the
 * declaration of a local the copied part writes (a sum started at 0 before blockIdx.x is
 * read belongs to each block). Then the rest of the body runs F times in turn, copy j
 * under `b + j < gridDim.x` with its own locals and blockIdx.x as b + j, a __syncthreads()
 * between copies. The launch is the spec's own (rw_result.keeps_launch).
 *
 * Why it is exact: every block b + j < gridDim.x runs the original statements with the
 * original values (same threadIdx, blockDim, gridDim, blockIdx.x = b + j): its prologue
 * copy writes nothing but its own locals and calls only pure functions, so running it
 * early, or a clamped copy for a block past the grid (the last block's prologue again: its
 * loads are that block's, in bounds as they were), changes nothing; its rest runs as the
 * block's own did. The blocks of one batch run one after another, which is one of the
 * schedules CUDA already allows (no order among blocks); the barrier between copies keeps
 * a copy's shared-memory writes after the previous copy's reads. What no schedule allows
 * is refused: a block waiting on another (a while/do loop after the prologue, volatile,
 * asm, grid groups), a return or goto (it would end the whole batch), blockIdx other than
 * .x/.y/.z, a macro or function of the file that reads blockIdx (its reads could not be
 * renamed), calls in the prologue that may write memory (they would run once for the batch
 * or again for a clamped copy), a parameter or a block-free local written from the split
 * on (the copies would share it, each seeing the writes of the ones before: parboil's mriq
 * steps its kGlobalIndex parameter), __shared__ declarations initialised, or nested and
 * larger than 1024 elements of literal size (each copy gets its own: small ones are taken,
 * so that block_reduce's output fuses too). The first (block-free) part may call only pure
 * functions, cooperative groups' this_thread_block / tiled_partition, and default
 * constructions of a struct of the file that declares no constructor and assigns nothing
 * (cuda-samples' SharedMemory<T>()). With a spec and a device, the working blocks (one in
 * F) must still fill the GPU. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "analysis/analysis.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "spec/expr.h"
#include "spec/spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define FB_MAX_STMTS 512
#define FB_MAX_NAMES 128

typedef struct {
    const char *text;
    size_t len;
    const an_model *m;
    const an_function *f;
    rw_toks ts;
    size_t st[FB_MAX_STMTS + 1]; /* top-level statements: [st[i], st[i + 1]) */
    size_t n_st;
    size_t dnames[FB_MAX_NAMES]; /* tokens of the names the copied part declares */
    size_t n_dnames;
    size_t bdep[FB_MAX_NAMES];   /* those whose value depends on the block (blockIdx.x) */
    size_t n_bdep;
    size_t keep[8];              /* names copy_range leaves unsuffixed (a jammed loop's counters) */
    size_t n_keep;
} fb_state;

static bool is_barrier(const rw_toks *ts, size_t k)
{
    static const char *const bars[] = {"__syncthreads", "__syncthreads_or", "__syncthreads_and",
                                       "__syncthreads_count", "__syncwarp", "sync", "__threadfence",
                                       "__threadfence_block", "__barrier_sync"};
    for (size_t i = 0; i < HK_ARRAY_LEN(bars); i++)
        if (rwl_tok_is(ts, k, bars[i]))
            return true;
    return false;
}

/* `blockIdx . x` at k. */
static bool block_x(const rw_toks *ts, size_t k)
{
    return rwl_tok_is_ident(ts, k, "blockIdx") && rwl_tok_is(ts, k + 1, ".") && rwl_tok_is(ts, k + 2, "x");
}

/* Is NAME (token k) a struct or class of the file without a constructor of its own: a
 * default construction `NAME()` / `NAME<T>()` of it runs no code? */
static bool plain_struct(const fb_state *s, size_t k)
{
    char nm[128];
    size_t nl = s->ts.t[k].end - s->ts.t[k].start;
    if (nl >= sizeof nm)
        return false;
    memcpy(nm, s->text + s->ts.t[k].start, nl);
    nm[nl] = 0;
    bool found = false, ok = true;
    rw_toks ft = {0};
    if (rwl_lex(s->text, 0, (uint32_t)s->len, &ft))
        return false;
    for (size_t q = 0; q + 1 < ft.n && ok; q++) {
        if (!(rwl_tok_is(&ft, q, "struct") || rwl_tok_is(&ft, q, "class")) || !rwl_tok_is(&ft, q + 1, nm))
            continue;
        size_t o = q + 2;
        while (o < ft.n && !rwl_tok_is(&ft, o, "{") && !rwl_tok_is(&ft, o, ";"))
            o++;
        if (o >= ft.n || rwl_tok_is(&ft, o, ";"))
            continue; /* a declaration only */
        found = true;
        size_t c = rwl_match_close(&ft, o);
        for (size_t r = o + 1; r + 1 < c && r < ft.n; r++)
            if (rwl_tok_is(&ft, r, nm) && rwl_tok_is(&ft, r + 1, "("))
                ok = false; /* a constructor of its own */
        if (c < ft.n && rwl_writes_any(&ft, o + 1, c))
            ok = false; /* its operators write something */
    }
    rwl_toks_free(&ft);
    return found && ok;
}

/* May the call whose name is token k (followed by `(` or template arguments) run early,
 * twice or once for the batch? Pure functions, casts, reader functions of the file,
 * cooperative groups' handles, a default construction of a plain struct. */
static bool harmless_call(const fb_state *s, size_t k, size_t paren)
{
    const rw_toks *ts = &s->ts;
    if (rwl_pure_call_name(ts, k) || rwl_is_type_word(ts, k))
        return true;
    if (rwl_tok_is(ts, k, "this_thread_block") || rwl_tok_is(ts, k, "tiled_partition") ||
        rwl_tok_is(ts, k, "sizeof"))
        return true;
    if (rwl_reader_call(s->m, s->text, s->f, ts, k))
        return true;
    if (paren + 1 < ts->n && rwl_tok_is(ts, paren + 1, ")") && plain_struct(s, k))
        return true;
    return false;
}

/* Does the statement [a, b) write memory (a store through a subscript, a dereference or a
 * member of something not declared in the body) or hold a barrier? Local scalars written
 * are not stores. *at gets the token. */
static bool stores_or_waits(const fb_state *s, size_t a, size_t b, size_t *at)
{
    const rw_toks *ts = &s->ts;
    for (size_t q = a; q < b; q++) {
        if (ts->t[q].kind == T_IDENT && is_barrier(ts, q) && rwl_tok_is(ts, q + 1, "(")) {
            *at = q;
            return true;
        }
        if (rwl_tok_is(ts, q, "__shared__") || rwl_tok_is(ts, q, "atomicAdd") ||
            (ts->t[q].kind == T_IDENT && !strncmp(ts->text + ts->t[q].start, "atomic", 6))) {
            *at = q;
            return true;
        }
        bool asg = rwl_tok_is_assign_op(ts, q) && !rwl_tok_is(ts, q, "==");
        bool inc = rwl_tok_is(ts, q, "++") || rwl_tok_is(ts, q, "--");
        if (!asg && !inc)
            continue;
        if (asg) {
            /* the target ends just before the operator: `x =` (a local or a declarator) is
             * no store; `p[i] =`, `*p =`, `s.f =` / `p->f =` are */
            size_t t = q - 1;
            if (rwl_tok_is(ts, t, "]") || rwl_tok_is(ts, t, ")")) {
                *at = q;
                return true;
            }
            if (ts->t[t].kind == T_IDENT && t > a &&
                (rwl_tok_is(ts, t - 1, ".") || rwl_tok_is(ts, t - 1, "->") ||
                 (rwl_tok_is(ts, t - 1, "*") && rwl_unary_position(ts, t - 1)))) {
                *at = q;
                return true;
            }
        } else {
            size_t t = (q + 1 < b && ts->t[q + 1].kind == T_IDENT) ? q + 1 : q - 1;
            if (ts->t[t].kind != T_IDENT || rwl_tok_is(ts, t + 1, "[") || rwl_tok_is(ts, t - 1, "*") ||
                rwl_tok_is(ts, t - 1, ".") || rwl_tok_is(ts, t - 1, "->")) {
                *at = q;
                return true;
            }
        }
    }
    return false;
}

/* The first call in [a, b) that may write memory, or b. */
static size_t first_unsafe_call(const fb_state *s, size_t a, size_t b)
{
    const rw_toks *ts = &s->ts;
    for (size_t q = a; q < b; q++) {
        if (ts->t[q].kind != T_IDENT || (q > a && (rwl_tok_is(ts, q - 1, ".") || rwl_tok_is(ts, q - 1, "->"))))
            continue;
        size_t p = rwl_call_paren(ts, q);
        if (!p || p >= b)
            continue;
        if (rwl_tok_is(ts, q, "if") || rwl_tok_is(ts, q, "for") || rwl_tok_is(ts, q, "while") ||
            rwl_tok_is(ts, q, "switch") || rwl_tok_is(ts, q, "return"))
            continue;
        if (!harmless_call(s, q, p))
            return q;
    }
    return b;
}

/* Is token q a name declared there (not a type word of the declaration: `const float *x`
 * declares x, `unsigned int i` declares i)? */
static bool declared_name(const rw_toks *ts, size_t q)
{
    if (ts->t[q].kind != T_IDENT || rwl_is_type_word(ts, q) || !rwl_declared_here(ts, q))
        return false;
    static const char *const after[] = {"=", ";", ",", "[", ")", ":", "{"};
    for (size_t i = 0; i < HK_ARRAY_LEN(after); i++)
        if (rwl_tok_is(ts, q + 1, after[i]))
            return true;
    return false;
}

/* Is name token k one of the copied part's declared names? */
static bool is_dname(const fb_state *s, size_t k)
{
    for (size_t i = 0; i < s->n_dnames; i++)
        if (rwl_same_tok(&s->ts, k, s->dnames[i]))
            return true;
    return false;
}

/* Appends tokens [a, b) of the body with the text between them, blockIdx.x replaced by vb
 * (NULL: kept) and the copied names suffixed by sfx (NULL: kept). */
static int copy_range(const fb_state *s, size_t a, size_t b, const char *vb, const char *sfx, struct hk_buf *o)
{
    const rw_toks *ts = &s->ts;
    int rc = HK_OK;
    for (size_t q = a; q < b && !rc; q++) {
        if (q > a)
            rc = hk_buf_append(o, s->text + ts->t[q - 1].end, ts->t[q].start - ts->t[q - 1].end);
        if (rc)
            break;
        if (vb && block_x(ts, q)) {
            rc = hk_buf_appends(o, vb);
            q += 2;
            continue;
        }
        rc = hk_buf_append(o, s->text + ts->t[q].start, ts->t[q].end - ts->t[q].start);
        bool kept = false;
        for (size_t k = 0; k < s->n_keep && !kept; k++)
            kept = rwl_same_tok(ts, q, s->keep[k]);
        if (!rc && sfx && !kept && ts->t[q].kind == T_IDENT && rwl_is_use(ts, q) && is_dname(s, q))
            rc = hk_buf_appends(o, sfx);
    }
    return rc;
}

static bool in_set(const rw_toks *ts, const size_t *set, size_t n, size_t q)
{
    for (size_t i = 0; i < n; i++)
        if (rwl_same_tok(ts, q, set[i]))
            return true;
    return false;
}

/* Does [a, b) read the block index or a name whose value depends on it? */
static bool reads_block(const fb_state *s, size_t a, size_t b)
{
    for (size_t q = a; q < b; q++)
        if (block_x(&s->ts, q) ||
            (s->ts.t[q].kind == T_IDENT && rwl_is_use(&s->ts, q) && in_set(&s->ts, s->bdep, s->n_bdep, q)))
            return true;
    return false;
}

/* Adds the names [a, b) declares or writes to the block-dependent ones. */
static void mark_written(fb_state *s, size_t a, size_t b)
{
    for (size_t q = a; q < b && s->n_bdep < FB_MAX_NAMES; q++)
        if (s->ts.t[q].kind == T_IDENT && rwl_is_use(&s->ts, q) &&
            (declared_name(&s->ts, q) || rwl_scalar_written(&s->ts, q)) && !in_set(&s->ts, s->bdep, s->n_bdep, q))
            s->bdep[s->n_bdep++] = q;
}

/* A top-level `for (H) B` of the copied part whose trips are the same in every copy: H reads
 * neither the block index nor a block-dependent name and writes only the names its init
 * declares, B writes none of H's names and has no break or continue (its own loops' are
 * its own). Then the F copies' bodies can share one loop: each copy's body runs on the
 * trips it ran on, in order, beside the others' (which touch other locals and only read
 * memory). *hb, *he: H's tokens; *ba, *bb: B's (inside its braces). */
static bool jammable(fb_state *s, size_t i, size_t *ha, size_t *he, size_t *ba, size_t *bb)
{
    const rw_toks *ts = &s->ts;
    size_t a = s->st[i], b = s->st[i + 1];
    if (!rwl_tok_is(ts, a, "for") || !rwl_tok_is(ts, a + 1, "("))
        return false;
    size_t close = rwl_match_close(ts, a + 1);
    if (close >= b)
        return false;
    *ha = a + 2;
    *he = close;
    if (reads_block(s, *ha, *he))
        return false;
    size_t semi = *ha;
    while (semi < *he && !rwl_tok_is(ts, semi, ";"))
        semi++;
    s->n_keep = 0;
    for (size_t q = *ha; q < *he; q++) {
        if (ts->t[q].kind != T_IDENT || !rwl_is_use(ts, q))
            continue;
        if (q < semi && declared_name(ts, q)) {
            if (s->n_keep >= HK_ARRAY_LEN(s->keep))
                return false;
            s->keep[s->n_keep++] = q;
        } else if (rwl_scalar_written(ts, q) && !in_set(ts, s->keep, s->n_keep, q)) {
            return false;
        }
    }
    if (!s->n_keep)
        return false;
    *ba = close + 1;
    *bb = b;
    if (rwl_tok_is(ts, *ba, "{") && rwl_match_close(ts, *ba) == b - 1) {
        (*ba)++;
        (*bb)--;
    }
    for (size_t q = *ba; q < *bb; q++) {
        if ((rwl_tok_is(ts, q, "break") || rwl_tok_is(ts, q, "continue")) && !rwl_in_nested(ts, *ba, *bb, q, true))
            return false;
        if (ts->t[q].kind != T_IDENT || !rwl_is_use(ts, q) || !rwl_scalar_written(ts, q))
            continue;
        for (size_t r = *ha; r < *he; r++)
            if (ts->t[r].kind == T_IDENT && rwl_same_tok(ts, q, r))
                return false;
    }
    return true;
}

/* Appends top-level statement i (copy_range's replacements) on lines of its own, with the
 * lines before it that hold no token (comments, `#pragma unroll`: a pragma stays with its
 * loop) and its indentation. */
static int emit_gap(const fb_state *s, size_t i, struct hk_buf *o)
{
    const rw_toks *ts = &s->ts;
    size_t a = s->st[i];
    const char *gap = s->text + ts->t[a - 1].end, *end = s->text + ts->t[a].start;
    const char *nl = memchr(gap, '\n', (size_t)(end - gap));
    return nl ? hk_buf_append(o, nl + 1, (size_t)(end - nl - 1)) : hk_buf_appends(o, "    ");
}

static int emit_stmt(const fb_state *s, size_t i, const char *vb, const char *sfx, struct hk_buf *o)
{
    int rc = emit_gap(s, i, o);
    if (!rc)
        rc = copy_range(s, s->st[i], s->st[i + 1], vb, sfx, o);
    if (!rc)
        rc = hk_buf_appends(o, "\n");
    return rc;
}

static int fused_blocks(const rw_context *c, int blocks, rw_result *out)
{
    memset(out, 0, sizeof *out);
    fb_state s = {.text = c->text, .len = c->len, .m = c->m};
    int rc = rwl_check_kernel(c->text, c->len, c->m, c->kernel, &s.f);
    if (rc)
        return rc;
    const an_function *f = s.f;
    struct hk_buf o;
    hk_buf_init(&o, RW_TEXT_MAX);
    rw_edits es = {0};
    const char *kn = f->name;
#define REFUSE(...)                                                                                \
    do {                                                                                           \
        rc = rwl_not_applicable_to(out, "fused_blocks", kn, __VA_ARGS__);                          \
        goto out;                                                                                  \
    } while (0)
#define LINE(k) rwl_line_at(c->text, s.ts.t[(k)].start)
    if ((rc = rwl_lex(c->text, f->body_span.start_byte, f->body_span.end_byte, &s.ts)))
        goto out;
    const rw_toks *ts = &s.ts;
    if (ts->n < 3 || !rwl_tok_is(ts, 0, "{"))
        REFUSE(HK_MSG_RW_LEX_BODY_EMPTY, rwl_line_at(c->text, f->body_span.start_byte));

    /* what no order of blocks in one block allows, anywhere in the body */
    for (size_t q = 1; q + 1 < ts->n; q++) {
        static const char *const stop[] = {"return", "goto", "volatile", "asm", "this_grid", "grid_group",
                                           "group_index", "block_index", "block_rank", "hk_fb_v1"};
        for (size_t i = 0; i < HK_ARRAY_LEN(stop); i++)
            if (rwl_tok_is(ts, q, stop[i]))
                REFUSE(HK_MSG_RW_FB_FORBIDDEN, stop[i], LINE(q), stop[i]);
        if (rwl_tok_is(ts, q, "blockIdx") &&
            !(rwl_tok_is(ts, q + 1, ".") &&
              (rwl_tok_is(ts, q + 2, "x") || rwl_tok_is(ts, q + 2, "y") || rwl_tok_is(ts, q + 2, "z"))))
            REFUSE(HK_MSG_RW_FB_BLOCKIDX, LINE(q));
        if (ts->t[q].kind == T_IDENT && !strncmp(c->text + ts->t[q].start, "hipBlockIdx", 11))
            REFUSE(HK_MSG_RW_FB_BLOCKIDX, LINE(q));
        if (ts->t[q].kind == T_IDENT && rwl_is_use(ts, q) && !rwl_tok_is(ts, q, "blockIdx") &&
            !rwl_tok_is(ts, q, "gridDim") &&
            rwl_macro_mentions_grid(c->text, c->len, c->text + ts->t[q].start, ts->t[q].end - ts->t[q].start)) {
            char *nm = rwl_tok_text(ts, q, q + 1);
            if (!nm) {
                rc = HK_ENOMEM;
                goto out;
            }
            rc = rwl_not_applicable_to(out, "fused_blocks", kn, HK_MSG_RW_FB_MACRO, LINE(q), nm);
            hk_free(nm);
            goto out;
        }
        if (ts->t[q].kind == T_IDENT && rwl_call_paren(ts, q)) {
            const an_function *g = rwl_callee(c->m, f, ts, q);
            if (g && rwl_mentions_grid(c->text + g->body_span.start_byte,
                                       g->body_span.end_byte - g->body_span.start_byte)) {
                char *nm = rwl_tok_text(ts, q, q + 1);
                if (!nm) {
                    rc = HK_ENOMEM;
                    goto out;
                }
                rc = rwl_not_applicable_to(out, "fused_blocks", kn, HK_MSG_RW_FB_CALLEE, LINE(q), nm);
                hk_free(nm);
                goto out;
            }
        }
    }

    /* the body's top-level statements */
    for (size_t q = 1; q + 1 < ts->n;) {
        if (s.n_st >= FB_MAX_STMTS)
            REFUSE(HK_MSG_RW_FB_NO_BLOCK, LINE(0));
        s.st[s.n_st++] = q;
        size_t e = rwl_stmt_end(ts, q, ts->n - 1);
        q = e > q ? e : q + 1;
    }
    s.st[s.n_st] = ts->n - 1;

    /* the prologue: statements up to the first store or barrier; shared declarations at
     * the top level are set aside (hoisted once) */
    size_t split = SIZE_MAX, pend = s.n_st, at = 0;
    bool shared_top[FB_MAX_STMTS] = {false};
    for (size_t i = 0; i < s.n_st; i++) {
        size_t a = s.st[i], b = s.st[i + 1];
        /* a declaration `[extern|static] __shared__ ...` */
        bool sh = rwl_tok_is(ts, a, "__shared__") ||
                  ((rwl_tok_is(ts, a, "extern") || rwl_tok_is(ts, a, "static")) && rwl_tok_is(ts, a + 1, "__shared__"));
        if (sh) {
            bool init = false;
            for (size_t q = a; q < b; q++)
                if (rwl_tok_is(ts, q, "=") || rwl_tok_is(ts, q, "{"))
                    init = true;
            if (init)
                REFUSE(HK_MSG_RW_FB_SHARED, LINE(a));
            shared_top[i] = true;
            continue;
        }
        if (pend == s.n_st && stores_or_waits(&s, a, b, &at))
            pend = i;
        if (pend == s.n_st && split == SIZE_MAX)
            for (size_t q = a; q < b; q++)
                if (block_x(ts, q))
                    split = i;
    }
    if (split == SIZE_MAX || split >= pend)
        REFUSE(HK_MSG_RW_FB_NO_BLOCK, LINE(pend < s.n_st ? s.st[pend] : 0));
    /* a local declared before the split and written after it (a sum started at 0 that a
     * grid-stride loop adds to) is the block's own: the copies start at its declaration */
    for (bool moved = true; moved;) {
        moved = false;
        for (size_t i = 0; i < split && !moved; i++) {
            if (shared_top[i])
                continue;
            for (size_t r = s.st[i]; r < s.st[i + 1] && !moved; r++) {
                if (!declared_name(ts, r))
                    continue;
                for (size_t q = s.st[split]; q < s.st[pend] && !moved; q++)
                    if (rwl_same_tok(ts, q, r) && rwl_is_use(ts, q) && rwl_scalar_written(ts, q)) {
                        split = i;
                        moved = true;
                    }
            }
        }
    }
    /* a __shared__ declared in a nested block of the rest is one per copy: correct (each
     * copy's scope has its own), and cheap only when small: literal dimensions of at most
     * 1024 elements together (block_reduce's `__shared__ T hk_part[32]`, so that the two
     * stack), no initializer, never in the copied part */
    for (size_t i = 0; i < s.n_st; i++) {
        if (shared_top[i])
            continue;
        for (size_t q = s.st[i]; q < s.st[i + 1]; q++) {
            if (!rwl_tok_is(ts, q, "__shared__"))
                continue;
            bool small = i >= pend;
            long long elems = 1;
            size_t e = q;
            while (e < s.st[i + 1] && !rwl_tok_is(ts, e, ";"))
                e++;
            for (size_t r = q; r < e && small; r++) {
                if (rwl_tok_is(ts, r, "=") || rwl_tok_is(ts, r, "extern") || rwl_tok_is(ts, r, "{"))
                    small = false;
                else if (rwl_tok_is(ts, r, "[")) {
                    if (!(r + 2 < e && ts->t[r + 1].kind == T_NUMBER && rwl_tok_is(ts, r + 2, "]")))
                        small = false;
                    else
                        elems *= strtoll(c->text + ts->t[r + 1].start, NULL, 0);
                }
            }
            if (!small || elems > 1024 || elems < 1)
                REFUSE(HK_MSG_RW_FB_SHARED, LINE(q));
        }
    }
    /* calls before the first store: run once for the batch (before the split) or again per
     * copy (after it), so none may write */
    {
        size_t q = first_unsafe_call(&s, s.st[0], s.st[pend]);
        if (q < s.st[pend]) {
            char *nm = rwl_tok_text(ts, q, q + 1);
            if (!nm) {
                rc = HK_ENOMEM;
                goto out;
            }
            rc = rwl_not_applicable_to(out, "fused_blocks", kn, HK_MSG_RW_FB_IMPURE, LINE(q), nm);
            hk_free(nm);
            goto out;
        }
    }
    /* the copied part's declared names; none may be read before the split, be a parameter,
     * or be declared twice at the top of it */
    bool loads = false;
    for (size_t i = split; i < pend; i++) {
        if (shared_top[i])
            continue;
        for (size_t q = s.st[i]; q < s.st[i + 1]; q++) {
            if (rwl_tok_is(ts, q, "[") || (rwl_tok_is(ts, q, "*") && rwl_unary_position(ts, q)) ||
                rwl_tok_is(ts, q, "->") || rwl_tok_is(ts, q, "__ldg"))
                loads = true;
            if (!declared_name(ts, q))
                continue;
            if (s.n_dnames >= FB_MAX_NAMES)
                REFUSE(HK_MSG_RW_FB_NAME, LINE(q), "?");
            if (is_dname(&s, q))
                continue; /* declared again (a second loop's counter): renamed alike */
            bool clash = false;
            for (size_t p = 0; p < f->n_params && !clash; p++)
                if (f->params[p].name && strlen(f->params[p].name) == ts->t[q].end - ts->t[q].start &&
                    !memcmp(f->params[p].name, c->text + ts->t[q].start, ts->t[q].end - ts->t[q].start))
                    clash = true;
            for (size_t r = 1; r < s.st[split] && !clash; r++)
                if (rwl_same_tok(ts, r, q))
                    clash = true;
            if (clash) {
                char *nm = rwl_tok_text(ts, q, q + 1);
                if (!nm) {
                    rc = HK_ENOMEM;
                    goto out;
                }
                rc = rwl_not_applicable_to(out, "fused_blocks", kn, HK_MSG_RW_FB_NAME, LINE(q), nm);
                hk_free(nm);
                goto out;
            }
            s.dnames[s.n_dnames++] = q;
        }
    }
    if (!loads)
        REFUSE(HK_MSG_RW_FB_NO_LOAD, LINE(s.st[split]));
    /* with a spec and a device: the working blocks (one in F) must still fill the GPU */
    {
        const struct spec *sp = c->spec;
        expr_value g, b;
        if (sp && sp->n_sizes && sp->grid[0] && sp->block[0] && c->sm_count > 0 && c->warps_per_sm > 0 &&
            spec_eval(sp, sp->grid[0], 0, c->sm_count, &g, NULL, 0) == HK_OK && !g.is_float && g.i > 0 &&
            spec_eval(sp, sp->block[0], 0, c->sm_count, &b, NULL, 0) == HK_OK && !b.is_float && b.i > 0) {
            long long threads = b.i;
            for (int d = 1; d < 3; d++) {
                expr_value e;
                if (sp->block[d] && spec_eval(sp, sp->block[d], 0, c->sm_count, &e, NULL, 0) == HK_OK &&
                    !e.is_float && e.i > 0)
                    threads *= e.i;
            }
            long long per_sm = (long long)c->warps_per_sm * 32 / threads;
            long long resident = (long long)c->sm_count * (per_sm > 0 ? per_sm : 1);
            long long working = (g.i + blocks - 1) / blocks;
            if (working < resident)
                REFUSE(HK_MSG_RW_FB_WAVE, rwl_line_at(c->text, f->span.start_byte), (long long)g.i, blocks,
                       working, resident, c->sm_count);
        }
    }
    /* a parameter, or a local of the part kept once, written from the split on: the F
     * copies would share it, each seeing the writes of the copies before it */
    for (size_t q = s.st[split]; q + 1 < ts->n; q++) {
        if (ts->t[q].kind != T_IDENT || !rwl_is_use(ts, q) || is_dname(&s, q) || !rwl_scalar_written(ts, q))
            continue;
        bool shared_name = false;
        for (size_t p = 0; p < f->n_params && !shared_name; p++)
            if (f->params[p].name && strlen(f->params[p].name) == ts->t[q].end - ts->t[q].start &&
                !memcmp(f->params[p].name, c->text + ts->t[q].start, ts->t[q].end - ts->t[q].start))
                shared_name = true;
        for (size_t r = 1; r < s.st[split] && !shared_name; r++)
            if (rwl_same_tok(ts, r, q) && declared_name(ts, r))
                shared_name = true;
        if (!shared_name)
            continue;
        char *nm = rwl_tok_text(ts, q, q + 1);
        if (!nm) {
            rc = HK_ENOMEM;
            goto out;
        }
        rc = rwl_not_applicable_to(out, "fused_blocks", kn, HK_MSG_RW_FB_SHARED_LOCAL, LINE(q), nm);
        hk_free(nm);
        goto out;
    }
    /* after the prologue: no loop that could wait on another block */
    for (size_t q = s.st[pend < s.n_st ? pend : s.n_st]; q + 1 < ts->n; q++)
        if (rwl_tok_is(ts, q, "while") || rwl_tok_is(ts, q, "do"))
            REFUSE(HK_MSG_RW_FB_LOOP, LINE(q));

    /* the new body */
    int F = blocks;
    int first_line = LINE(s.st[split]), last_line = LINE(s.st[pend] - 1);
    if ((rc = hk_buf_printf(&o,
                            "{\n    // hk rewrite: fused_blocks. Block b = %d*q runs blocks b .. b+%d (those below gridDim.x),\n" /* i18n: not for people */
                                "    // the others return at once: the code before the first store or barrier that reads\n"
                                "    // blockIdx.x runs for all %d first (their loads in flight together), then each\n"
                                "    // block's rest in turn, a barrier between. Each block computes what it did before.\n"
                                "    if (blockIdx.x %% %du != 0u)\n        return;\n",
                            F, F - 1, F, (unsigned)F)))
        goto out;
    /* the block-free statements as written, then the later shared declarations once */
    for (size_t i = 0; i < s.n_st && !rc; i++)
        if (i < split || shared_top[i])
            rc = emit_stmt(&s, i, NULL, NULL, &o);
    for (int j = 1; j < F && !rc; j++)
        rc = hk_buf_printf(&o, /* i18n: not for people */ "    const unsigned int hk_fb_v%d = min(blockIdx.x + %du, gridDim.x - 1u);\n", j,
                           (unsigned)j);
    /* statement by statement, each for the F blocks in turn: a statement's loads for all F
     * stand together, ahead of the arithmetic that waits for them (the copies share no
     * local they write, so any interleaving of them computes the same) */
    rc = hk_buf_printf(&o, /* i18n: not for people */ "    // blocks b .. b+%d: their indices and loads, each statement for the %d in turn\n"
                       "    // (a block past the grid computes the last block's again; its rest does not run)\n", F - 1, F);
    int jammed = 0;
    for (size_t i = split; i < pend && !rc; i++) {
        if (shared_top[i])
            continue;
        size_t ha, he, ba, bb;
        if (F > 1 && jammable(&s, i, &ha, &he, &ba, &bb)) {
            /* one loop, its body for the F blocks in turn (jammable's proof) */
            jammed++;
            rc = hk_buf_appends(&o, /* i18n: not for people */ "    // one loop for the blocks: its trips do not depend on the block\n");
            if (!rc)
                rc = emit_gap(&s, i, &o);
            if (!rc)
                rc = hk_buf_appends(&o, "for (");
            if (!rc)
                rc = copy_range(&s, ha, he, NULL, NULL, &o);
            if (!rc)
                rc = hk_buf_appends(&o, ") {\n");
            for (int j = 0; j < F && !rc; j++) {
                char vb[32], sfx[32];
                snprintf(vb, sizeof vb, "hk_fb_v%d", j);
                snprintf(sfx, sizeof sfx, "_hk%d", j);
                rc = hk_buf_appends(&o, "        {\n        ");
                if (!rc && ba < bb)
                    rc = copy_range(&s, ba, bb, j ? vb : NULL, j ? sfx : NULL, &o);
                if (!rc)
                    rc = hk_buf_appends(&o, "\n        }\n");
            }
            if (!rc)
                rc = hk_buf_appends(&o, "    }\n");
            s.n_keep = 0;
            mark_written(&s, s.st[i], s.st[i + 1]);
            continue;
        }
        s.n_keep = 0;
        if (reads_block(&s, s.st[i], s.st[i + 1]))
            mark_written(&s, s.st[i], s.st[i + 1]);
        for (int j = 0; j < F && !rc; j++) {
            char vb[32], sfx[32];
            snprintf(vb, sizeof vb, "hk_fb_v%d", j);
            snprintf(sfx, sizeof sfx, "_hk%d", j);
            rc = emit_stmt(&s, i, j ? vb : NULL, j ? sfx : NULL, &o);
        }
    }
    for (int j = 0; j < F && !rc; j++) {
        char vb[32], sfx[32];
        snprintf(vb, sizeof vb, "(blockIdx.x + %du)", (unsigned)j);
        snprintf(sfx, sizeof sfx, "_hk%d", j);
        if (j)
            rc = hk_buf_printf(&o, "    __syncthreads();\n    if (blockIdx.x + %du < gridDim.x) {\n", (unsigned)j);
        else
            rc = hk_buf_appends(&o, "    {\n");
        for (size_t i = pend; i < s.n_st && !rc; i++)
            if (!shared_top[i])
                rc = emit_stmt(&s, i, j ? vb : NULL, j ? sfx : NULL, &o);
        if (!rc)
            rc = hk_buf_appends(&o, "    }\n");
    }
    if (!rc)
        rc = hk_buf_appends(&o, "}");
    if (rc)
        goto out;
    char *body = hk_buf_steal(&o);
    if (!body) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_edits_add_owned(&es, f->body_span.start_byte, f->body_span.end_byte, body)))
        goto out;
    char *d = hk_asprintf(EN(RW_FB_DESC), f->name, F, first_line, last_line, F);
    rc = rwl_finish(c->text, c->len, c->m, f->name, &es, d, out);
    if (!rc && out->applicable)
        out->keeps_launch = true;
#undef REFUSE
#undef LINE
out:
    hk_buf_free(&o);
    rwl_edits_free(&es);
    rwl_toks_free(&s.ts);
    return rc;
}

static const rw_param fuse_params[] = {
    {.name = "blocks", .type = RW_PARAM_ENUM, .values = {4, 2, 8}, .n_values = 3, .def = 4},
};

static int emit_fused_blocks(const rw_context *c, const int *p, rw_result *out)
{
    return fused_blocks(c, p[0], out);
}

const rw_descriptor rw_fused_blocks_desc = {
    .name = "fused_blocks",
    .summary = "F consecutive blocks run by one, the loads before their first store or barrier " /* i18n: not for people */
               "issued together: more bytes in flight per SM, exact",
    .params = fuse_params,
    .n_params = HK_ARRAY_LEN(fuse_params),
    /* more loads in flight where nothing else of the pass gives them: planned after the
     * pass's other rewrites, as load_batching is. It stacks (RW_STACKS): it keeps the
     * launch, and block_reduce's output (its `hk_part[32]` taken per copy) is a text it
     * applies to; the two remove different costs, the barriers of a block's tree and the
     * few bytes of loads an SM has in flight (cs_reduce3: block_reduce then fused_blocks 4
     * measured 1.30x by verify-candidate, H100 session 39, fused_blocks alone 1.18x) */
    .flags = RW_VECTOR_FALLBACK | RW_STACKS,
    .emit = emit_fused_blocks,
};
