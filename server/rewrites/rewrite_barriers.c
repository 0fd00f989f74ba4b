/* merge_barriers: a kernel that fills several shared-memory tiles in stages, with a
 * `__syncthreads()` after each stage (Rodinia's srad: north and south halo rows; barrier;
 * west and east halo columns; barrier; the centre tile; barrier; compute), makes every warp
 * wait at each barrier for the slowest load of the stage before it issues the next stage's
 * loads: one memory round trip per stage, in series, before any work. When the stages write
 * different arrays and neither reads what the other writes, the barrier between them orders
 * nothing: removing it lets a thread issue all the stages' loads together (one round trip),
 * and the results are the same, bit for bit.
 *
 * The rule. The top-level statements of the kernel's body are split at its top-level
 * `__syncthreads();` statements into regions. A barrier B between the region before it (R1,
 * everything since the last barrier kept) and the region after it (R2, up to the next
 * barrier) is removed when no thread of the block can observe the difference:
 *   - no __shared__ variable written in R1 is read or written in R2, and none read in R1 is
 *     written in R2 (reads on both sides are fine);
 *   - no other memory (global, through a pointer, an atomic, a call that may write) is written
 *     in one region and read or written in the other: a barrier orders a block's global
 *     accesses too;
 *   - neither region holds another synchronization (a barrier or warp sync inside a statement,
 *     a fence, asm), a goto, a shared variable whose address escapes (passed on, &s[i]), a
 *     call the scan cannot read (not a math function, not a function of the file without
 *     barriers or __shared__ of its own), or a macro that is not a constant or a pure
 *     expression.
 * The regions merge as barriers go (greedily, front to back), so each decision is against
 * the whole stretch between the barriers that stay. Registers and thread-private arrays do
 * not matter: a thread runs its own statements in the same order either way. An early
 * `return` needs nothing: a thread that leaves does fewer accesses, and the other threads'
 * accesses are what the rule checks.
 *
 * What it refuses: no top-level __syncthreads();, every barrier needed (the array that needs
 * it, with its line), a __shared__ variable declared outside any function (its accesses from
 * other functions are not read). */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "analysis/analysis.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define MB_MAX_SHARED 64
#define MB_MAX_PRIVATE 64
#define MB_MAX_BARRIERS 256

typedef struct {
    size_t tok[MB_MAX_SHARED]; /* the declared name's token */
    bool array[MB_MAX_SHARED]; /* declared with [] (a use without a subscript escapes) */
    bool pointer[MB_MAX_SHARED]; /* a pointer kept in shared memory: what it points at is not read */
    bool extern_[MB_MAX_SHARED]; /* declared `extern __shared__` */
    size_t bit[MB_MAX_SHARED]; /* the bit its accesses set: every `extern __shared__` array is
                                * the same dynamic shared memory, so they share the first's */
    size_t n;
} names;

/* What one region does (a summary over its tokens). */
typedef struct {
    uint64_t rd, wr, esc;   /* bit i: shared variable i read, written, its address escapes */
    bool gr, gw;            /* other memory read, written */
    size_t gw_tok;          /* the first token that writes other memory */
    bool opaque;            /* something the rule cannot see through */
    char why[256];          /* why opaque: "CONSTRUCT at line N: ..." */
} region;

static long name_index(const rw_toks *ts, const names *ns, size_t k)
{
    for (size_t i = 0; i < ns->n; i++)
        if (rwl_same_tok(ts, ns->tok[i], k))
            return (long)i;
    return -1;
}

static bool tok_in(const rw_toks *ts, size_t k, const char *const *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rwl_tok_is_ident(ts, k, words[i]))
            return true;
    return false;
}

static bool tok_prefix(const rw_toks *ts, size_t k, const char *prefix)
{
    size_t l = strlen(prefix);
    return ts->t[k].kind == T_IDENT && ts->t[k].end - ts->t[k].start >= l &&
           !memcmp(ts->text + ts->t[k].start, prefix, l);
}

static const char *const sync_words[] = {"__syncthreads", "__syncthreads_count", "__syncthreads_or",
                                         "__syncthreads_and", "__syncwarp", "sync", "__barrier_sync",
                                         "barrier", "arrive", "wait", "__threadfence",
                                         "__threadfence_block", "__threadfence_system", "asm",
                                         "__asm__", "goto", "grid_group", "this_grid"};

static const char *const not_calls[] = {"if", "for", "while", "switch", "return", "sizeof", "alignof",
                                        "decltype", "else", "do", "case"};

/* Does the value of a #define of name[0, nl) in text name one of the kernel's __shared__
 * variables (sh, their names in kts), directly or through the macros it names, depth deep? */
static bool macro_names_shared(const char *text, size_t len, const char *name, size_t nl, const rw_toks *kts,
                               const names *sh, int depth)
{
    size_t at = 0, a, b;
    bool hit = false;
    while (!hit && rwl_next_define(text, len, &at, name, nl, &a, &b)) {
        rw_toks mt = {0};
        if (depth <= 0 || rwl_lex(text, (uint32_t)(a + nl), (uint32_t)b, &mt) != HK_OK) {
            rwl_toks_free(&mt);
            return true;
        }
        for (size_t q = 0; q < mt.n && !hit; q++) {
            if (mt.t[q].kind != T_IDENT)
                continue;
            const char *w = mt.text + mt.t[q].start;
            size_t wl = mt.t[q].end - mt.t[q].start;
            for (size_t i = 0; i < sh->n && !hit; i++)
                hit = kts->t[sh->tok[i]].end - kts->t[sh->tok[i]].start == wl &&
                      !memcmp(kts->text + kts->t[sh->tok[i]].start, w, wl);
            if (!hit && !(wl == nl && !memcmp(w, name, nl)))
                hit = macro_names_shared(text, len, w, wl, kts, sh, depth - 1);
        }
        rwl_toks_free(&mt);
    }
    return hit;
}

/* A #define of the token at k in text: harmless when object-like with a value that neither
 * synchronizes nor touches memory, or a pure function-like macro (rwl_pure_function_macro),
 * and in either case its value names none of the kernel's __shared__ variables (sh, named
 * in kts; NULL: not asked). */
static bool macro_harmless(const char *text, size_t len, const rw_toks *ts, size_t k, bool *defined,
                           const rw_toks *kts, const names *sh)
{
    const char *name = ts->text + ts->t[k].start;
    size_t nl = ts->t[k].end - ts->t[k].start;
    size_t at = 0, a, b;
    *defined = false;
    bool ok = true;
    while (ok && rwl_next_define(text, len, &at, name, nl, &a, &b)) {
        *defined = true;
        if (a + nl < b && text[a + nl] == '(') {
            ok = rwl_pure_function_macro(text, len, name, nl, 4);
            break;
        }
        rw_toks mt = {0};
        if (rwl_lex(text, (uint32_t)(a + nl), (uint32_t)b, &mt) != HK_OK)
            return false;
        for (size_t q = 0; q < mt.n && ok; q++)
            ok = !(rwl_tok_is_assign_op(&mt, q) || rwl_tok_is(&mt, q, "++") || rwl_tok_is(&mt, q, "--") ||
                   rwl_tok_is(&mt, q, "[") || rwl_tok_is(&mt, q, ";") || rwl_tok_is(&mt, q, "(") ||
                   rwl_tok_is(&mt, q, "->") || tok_in(&mt, q, sync_words, HK_ARRAY_LEN(sync_words)));
        rwl_toks_free(&mt);
    }
    if (ok && *defined && sh && sh->n && macro_names_shared(text, len, name, nl, kts, sh, 4))
        ok = false;
    return ok;
}

/* One past the subscripts and member accesses after the name at k: `s[i][j].x`. */
static size_t access_end(const rw_toks *ts, size_t k, size_t end)
{
    size_t j = k + 1;
    for (;;) {
        if (j < end && rwl_tok_is(ts, j, "[")) {
            size_t c = rwl_match_close(ts, j);
            if (c >= end)
                return end;
            j = c + 1;
        } else if (j + 1 < end && rwl_tok_is(ts, j, ".") && ts->t[j + 1].kind == T_IDENT) {
            j += 2;
        } else {
            return j;
        }
    }
}

typedef struct {
    const char *text;
    size_t len;
    const an_model *m;
    const an_function *f;
    const rw_toks *ts;
    const names *sh, *priv;
} scan_ctx;

static void opaque(const scan_ctx *c, region *r, size_t k, const char *construct, const char *what)
{
    if (r->opaque)
        return;
    r->opaque = true;
    rwl_refuse(r->why, sizeof r->why, c->ts, c->text, k, construct, "%s", what);
}

/* Is token q of ts the name of a call the scan must follow (not a keyword, a type's cast, a
 * pure math function, a shuffle or a make_ constructor)? */
static bool followed_call(const rw_toks *ts, size_t q, size_t end, size_t *open)
{
    *open = q + 1;
    if (rwl_tok_is(ts, *open, "<")) {
        size_t cl = rwl_match_close(ts, *open);
        if (cl < end && rwl_tok_is(ts, cl + 1, "("))
            *open = cl + 1;
    }
    return ts->t[q].kind == T_IDENT && *open < end && rwl_tok_is(ts, *open, "(") &&
           !tok_in(ts, q, not_calls, HK_ARRAY_LEN(not_calls)) && !rwl_is_type_word(ts, q) &&
           !rwl_pure_call_name(ts, q) && !tok_prefix(ts, q, "__shfl") && !tok_prefix(ts, q, "make_") &&
           !(q > 0 && rwl_tok_is(ts, q - 1, "::"));
}

/* Does function g of the file (and what it calls, depth functions deep) synchronize, have
 * __shared__ memory of its own, or call what the scan cannot read? */
static bool callee_opaque(const scan_ctx *c, const an_function *g, int depth)
{
    rw_toks gt = {0};
    if (depth <= 0 || g->body_span.end_byte <= g->body_span.start_byte ||
        rwl_lex(c->text, g->body_span.start_byte, g->body_span.end_byte, &gt) != HK_OK) {
        rwl_toks_free(&gt);
        return true;
    }
    bool bad = false;
    for (size_t q = 0; q < gt.n && !bad; q++) {
        size_t open;
        if (tok_in(&gt, q, sync_words, HK_ARRAY_LEN(sync_words)) || rwl_tok_is_ident(&gt, q, "__shared__")) {
            bad = true;
        } else if (followed_call(&gt, q, gt.n, &open)) {
            const an_function *h = rwl_callee(c->m, g, &gt, q);
            bool defined = false;
            bad = h ? h != c->f && callee_opaque(c, h, depth - 1)
                    : !(macro_harmless(c->text, c->len, &gt, q, &defined, NULL, NULL) && defined);
        }
    }
    rwl_toks_free(&gt);
    return bad;
}

/* A function of the file, called from a region: what its body may do. */
static void callee_effects(const scan_ctx *c, region *r, size_t k, const an_function *g)
{
    if (callee_opaque(c, g, 4))
        opaque(c, r, k, "call", EN(RW_MB_CALLEE));
    /* it may read and write whatever its pointer arguments reach */
    r->gr = true;
    if (!r->gw)
        r->gw_tok = k;
    r->gw = true;
}

/* Summarises tokens [a, b) of the body into r. */
static void scan_region(const scan_ctx *c, size_t a, size_t b, region *r)
{
    const rw_toks *ts = c->ts;
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is_ident(ts, k, "__shared__")) {   /* a declaration, no access */
            k = rwl_stmt_end(ts, k, b) - 1;
            continue;
        }
        if (tok_in(ts, k, sync_words, HK_ARRAY_LEN(sync_words))) {   /* block.sync() too */
            opaque(c, r, k, "barrier", EN(RW_MB_INSIDE_STMT));
            continue;
        }
        if (rwl_tok_is(ts, k, "->")) {
            r->gr = true;
            if (!r->gw)
                r->gw_tok = k;
            r->gw = true;   /* a member through a pointer: may be written */
            continue;
        }
        if (rwl_tok_is(ts, k, "*") && rwl_unary_position(ts, k)) {
            r->gr = true;
            if (!r->gw)
                r->gw_tok = k;
            r->gw = true;   /* a dereference: may be written */
            continue;
        }
        if (ts->t[k].kind == T_IDENT && !rwl_is_use(ts, k) && rwl_tok_is(ts, k + 1, "(")) {
            opaque(c, r, k, "call", EN(RW_MB_MEMBER_CALL));
            continue;
        }
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
            continue;
        if (tok_prefix(ts, k, "atomic")) {
            r->gr = true;
            if (!r->gw)
                r->gw_tok = k;
            r->gw = true;
            continue;
        }
        long si = name_index(ts, c->sh, k);
        if (si >= 0 && c->sh->pointer[si]) {
            opaque(c, r, k, "__shared__ array", EN(RW_MB_SHARED_POINTER));
            continue;
        }
        if (si >= 0) {
            uint64_t bit = 1ull << c->sh->bit[si];
            size_t j = access_end(ts, k, b);
            bool addr = k > 0 && rwl_tok_is(ts, k - 1, "&") && rwl_unary_position(ts, k - 1);
            bool pre = k > 0 && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--"));
            bool post = j < b && (rwl_tok_is(ts, j, "++") || rwl_tok_is(ts, j, "--"));
            if (addr || (c->sh->array[si] && !rwl_tok_is(ts, k + 1, "["))) {
                r->esc |= bit;
                if (!r->opaque)
                    rwl_refuse(r->why, sizeof r->why, ts, c->text, k, "__shared__ array", "%s",
                               EN(RW_MB_ADDRESS));
                r->opaque = true;
            } else if (j < b && rwl_tok_is(ts, j, "=")) {
                r->wr |= bit;
            } else if (pre || post || (j < b && rwl_tok_is_assign_op(ts, j))) {
                r->wr |= bit;
                r->rd |= bit;
            } else {
                r->rd |= bit;
            }
            continue;
        }
        if (name_index(ts, c->priv, k) >= 0)
            continue;   /* a thread's own array */
        /* a call? (`f(`, `f<T>(`) */
        size_t open;
        if (followed_call(ts, k, b, &open)) {
            const an_function *g = rwl_callee(c->m, c->f, ts, k);
            bool defined = false;
            if (g) {
                callee_effects(c, r, k, g);
            } else if (!macro_harmless(c->text, c->len, ts, k, &defined, ts, c->sh) || !defined) {
                char what[160];
                snprintf(what, sizeof what, EN(RW_MB_CALL),
                         (int)(ts->t[k].end - ts->t[k].start), ts->text + ts->t[k].start);
                opaque(c, r, k, "call", what);
            }
            continue;
        }
        bool defined = false;
        if (!macro_harmless(c->text, c->len, ts, k, &defined, ts, c->sh) && defined) {
            opaque(c, r, k, "macro", EN(RW_MB_MACRO));
            continue;
        }
        if (rwl_tok_is(ts, k + 1, "[")) {   /* other memory: a parameter, a pointer, a global */
            size_t j = access_end(ts, k, b);
            bool incdec = (j < b && (rwl_tok_is(ts, j, "++") || rwl_tok_is(ts, j, "--"))) ||
                          (k > 0 && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--")));
            bool addr = k > 0 && rwl_tok_is(ts, k - 1, "&") && rwl_unary_position(ts, k - 1);
            if (incdec || addr || (j < b && rwl_tok_is_assign_op(ts, j))) {
                if (!r->gw)
                    r->gw_tok = k;
                r->gw = true;
            }
            r->gr = true;
        }
    }
}

/* The shared variable both regions' accesses conflict on (-1: none), or -2 for other memory. */
static long conflict(const region *x, const region *y)
{
    uint64_t c = (x->wr & (y->rd | y->wr)) | (x->rd & y->wr) | x->esc | y->esc;
    if (c) {
        long i = 0;
        while (!(c & 1)) {
            c >>= 1;
            i++;
        }
        return i;
    }
    if ((x->gw && (y->gr || y->gw)) || (x->gr && y->gw))
        return -2;
    return -1;
}

/* Collects the __shared__ variables declared in [a, b) into sh, and the thread-private
 * arrays (declared with [], not __shared__) into priv. false when there are too many. */
static bool collect_names(const rw_toks *ts, size_t a, size_t b, names *sh, names *priv)
{
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is_ident(ts, k, "__shared__")) {
            size_t e = rwl_stmt_end(ts, k, b);
            bool ext = k > a && rwl_tok_is_ident(ts, k - 1, "extern"), star = false;
            int depth = 0;
            for (size_t q = k + 1; q < e; q++) {
                if (rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "{"))
                    depth++;
                else if (rwl_tok_is(ts, q, "]") || rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "}"))
                    depth--;
                else if (depth == 0 && rwl_tok_is(ts, q, "*"))
                    star = true;
                else if (depth == 0 && ts->t[q].kind == T_IDENT && !rwl_is_type_word(ts, q) && q + 1 < e &&
                         (rwl_tok_is(ts, q + 1, "[") || rwl_tok_is(ts, q + 1, ";") ||
                          rwl_tok_is(ts, q + 1, ",") || rwl_tok_is(ts, q + 1, "="))) {
                    if (sh->n == MB_MAX_SHARED)
                        return false;
                    sh->array[sh->n] = rwl_tok_is(ts, q + 1, "[");
                    sh->pointer[sh->n] = star;
                    sh->bit[sh->n] = sh->n;
                    for (size_t o = 0; ext && o < sh->n; o++)
                        if (sh->extern_[o]) {
                            sh->bit[sh->n] = sh->bit[o];
                            break;
                        }
                    sh->extern_[sh->n] = ext;
                    sh->tok[sh->n++] = q;
                    star = false;
                }
            }
            k = e - 1;
            continue;
        }
        if (ts->t[k].kind == T_IDENT && rwl_tok_is(ts, k + 1, "[") && rwl_declared_here(ts, k)) {
            if (priv->n == MB_MAX_PRIVATE)
                return false;
            priv->array[priv->n] = true;
            priv->tok[priv->n++] = k;
        }
    }
    /* a private array that shares a name with a shared one (another scope) is not private */
    for (size_t i = 0; i < priv->n; i++)
        for (size_t j = 0; j < sh->n; j++)
            if (rwl_same_tok(ts, priv->tok[i], sh->tok[j])) {
                priv->tok[i--] = priv->tok[--priv->n];
                break;
            }
    return true;
}

/* Is the statement [i, e) exactly `__syncthreads();`? */
static bool plain_barrier(const rw_toks *ts, size_t i, size_t e)
{
    return e == i + 4 && rwl_tok_is_ident(ts, i, "__syncthreads") && rwl_tok_is(ts, i + 1, "(") &&
           rwl_tok_is(ts, i + 2, ")") && rwl_tok_is(ts, i + 3, ";");
}

static void name_list(const rw_toks *ts, const names *sh, uint64_t set, char *out, size_t n)
{
    size_t w = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sh->n && w + 1 < n; i++)
        if (set & (1ull << sh->bit[i])) {
            int c = snprintf(out + w, n - w, "%s%.*s", w ? ", " : "",
                             (int)(ts->t[sh->tok[i]].end - ts->t[sh->tok[i]].start),
                             ts->text + ts->t[sh->tok[i]].start);
            if (c < 0)
                break;
            w += (size_t)c < n - w ? (size_t)c : n - w - 1;
        }
    if (!out[0])
        snprintf(out, n, "%s", EN(RW_MB_NO_SHARED));
}

static int rw_merge_barriers(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks all = {0}, ts = {0};
    rw_edits es = {0};
    /* a __shared__ variable outside every function: other functions reach it unseen */
    if ((rc = rwl_lex(text, 0, (uint32_t)len, &all)))
        goto out;
    for (size_t k = 0; k < all.n; k++) {
        if (!rwl_tok_is_ident(&all, k, "__shared__"))
            continue;
        bool inside = false;
        for (size_t fi = 0; fi < m->n_funcs && !inside; fi++)
            inside = all.t[k].start >= m->funcs[fi].body_span.start_byte &&
                     all.t[k].start < m->funcs[fi].body_span.end_byte;
        if (!inside) {
            rc = rwl_not_applicable(out, hk_asprintf(EN(RW_MB_OUTSIDE), f->name,
                                                     rwl_line_at(text, all.t[k].start)));
            goto out;
        }
    }
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    if (ts.n < 2) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_MB_EMPTY), f->name,
                                                 rwl_line_at(text, f->body_span.start_byte)));
        goto out;
    }
    size_t end = ts.n - 1; /* the body's closing brace */
    names sh = {0}, priv = {0};
    if (!collect_names(&ts, 1, end, &sh, &priv)) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_MB_TOO_MANY_ARRAYS),
                                                 f->name, rwl_line_at(text, f->body_span.start_byte),
                                                 MB_MAX_SHARED));
        goto out;
    }
    /* the top-level barriers */
    size_t bar[MB_MAX_BARRIERS], nb = 0;
    for (size_t i = 1; i < end;) {
        size_t e = rwl_stmt_end(&ts, i, end);
        if (e <= i)
            break;
        if (plain_barrier(&ts, i, e)) {
            if (nb == MB_MAX_BARRIERS) {
                rc = rwl_not_applicable(out, hk_asprintf(EN(RW_MB_TOO_MANY_BARRIERS),
                                                         f->name, rwl_line_at(text, ts.t[i].start),
                                                         MB_MAX_BARRIERS));
                goto out;
            }
            bar[nb++] = i;
        }
        i = e;
    }
    if (!nb) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_MB_NO_BARRIER), f->name,
                                                 rwl_line_at(text, f->body_span.start_byte)));
        goto out;
    }
    scan_ctx c = {.text = text, .len = len, .m = m, .f = f, .ts = &ts, .sh = &sh, .priv = &priv};
    region cur = {0};
    scan_region(&c, 1, bar[0], &cur);
    size_t removed = 0;
    int lines[8];
    char kept_why[600] = "", merged[2][140] = {"", ""};   /* the first removed barrier's sides */
    for (size_t j = 0; j < nb; j++) {
        region next = {0};
        scan_region(&c, bar[j] + 4, j + 1 < nb ? bar[j + 1] : end, &next);
        long cf = cur.opaque || next.opaque ? -3 : conflict(&cur, &next);
        int line = rwl_line_at(text, ts.t[bar[j]].start);
        if (cf == -1) {
            if (removed < HK_ARRAY_LEN(lines))
                lines[removed] = line;
            if (!removed) {
                char a[140], b[140];
                name_list(&ts, &sh, cur.wr | cur.rd, a, sizeof a);
                name_list(&ts, &sh, next.wr | next.rd, b, sizeof b);
                snprintf(merged[0], sizeof merged[0], "%s", a);
                snprintf(merged[1], sizeof merged[1], "%s", b);
            }
            removed++;
            if ((rc = rwl_edits_add(&es, ts.t[bar[j]].start, ts.t[bar[j] + 3].end,
                                    "/* hk merge_barriers: no barrier needed here */"))) /* i18n: not for people */
                goto out;
            cur.rd |= next.rd;
            cur.wr |= next.wr;
            cur.esc |= next.esc;
            cur.gr |= next.gr;
            if (!cur.gw && next.gw)
                cur.gw_tok = next.gw_tok;
            cur.gw |= next.gw;
            continue;
        }
        if (!kept_why[0]) {
            if (cf == -3) {
                snprintf(kept_why, sizeof kept_why, "%s", cur.opaque ? cur.why : next.why);
            } else if (cf == -2) {
                size_t at = cur.gw ? cur.gw_tok : next.gw_tok;
                snprintf(kept_why, sizeof kept_why, EN(RW_MB_OTHER_MEMORY), line,
                         rwl_line_at(text, ts.t[at].start));
            } else {
                size_t ni = 0;
                while (ni + 1 < sh.n && sh.bit[ni] != (size_t)cf)
                    ni++;
                snprintf(kept_why, sizeof kept_why, EN(RW_MB_SHARED_CONFLICT), line,
                         (int)(ts.t[sh.tok[ni]].end - ts.t[sh.tok[ni]].start), ts.text + ts.t[sh.tok[ni]].start);
            }
        }
        cur = next;
    }
    if (!removed) {
        char *why = nb > 1 ? hk_asprintf(EN(RW_MB_ALL_NEEDED), kept_why) : hk_strdup(kept_why);
        rc = rwl_not_applicable(out, why ? hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "merge_barriers", f->name, why) : NULL);
        hk_free(why);
        goto out;
    }
    char at[80] = "";
    size_t w = 0;
    for (size_t i = 0; i < removed && i < HK_ARRAY_LEN(lines) && w + 1 < sizeof at; i++) {
        int n = snprintf(at + w, sizeof at - w, "%s%d", i ? ", " : "", lines[i]);
        if (n < 0)
            break;
        w += (size_t)n < sizeof at - w ? (size_t)n : sizeof at - w - 1;
    }
    /* one sentence per number: Chinese has no plural */
    char *d = hk_asprintf(removed == 1 ? EN(RW_MB_DESC_1) : EN(RW_MB_DESC_N), f->name, removed, nb, at, merged[0],
                          merged[1]);
    rc = rwl_finish(text, len, m, f->name, &es, d, out);
out:
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    rwl_toks_free(&all);
    return rc;
}

static int emit_merge_barriers(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_merge_barriers(c->text, c->len, c->m, c->kernel, out);
}

const rw_descriptor rw_merge_barriers_desc = {
    .name = "merge_barriers",
    .summary = "__syncthreads() between stages that touch different shared memory removed", /* i18n: not for people */
    .flags = 0,
    .emit = emit_merge_barriers,
};
