/* The tuning-knob proof (knob.h): every use of a tunable's name is put in one of a few
 * forms that cannot change what the kernel computes, or the tunable is refused with the
 * first use that could. The forms are deliberately few; an unknown form refuses, because
 * a refused knob costs a little speed while a wrong one reports a different computation as
 * a faster one. */
#include "search/knob.h"

#include "core/buf.h"
#include "core/hk.h"
#include "rewrites/rewrite_lex.h"
#include "core/i18n.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define KNOB_MAX_DEPTH 4     /* tunables and locals followed through each other */
#define KNOB_MAX_OPENERS 64  /* enclosing brackets looked at */
#define KNOB_MAX_LOOPS 32    /* enclosing for loops looked at */

/* Kinds of disproof, most telling first: the one reported is the first of the best kind. */
enum { P_LOOP = 1, P_SUBSCRIPT, P_COND, P_VALUE, P_ARRAY, P_HOST, P_OTHER };

typedef struct {
    const char *text;
    size_t len;
    const an_model *m;
    size_t kernel;
    rw_toks ts;
    int best;           /* kind of the reason kept, 0: none yet */
    uint32_t best_off;
    char *best_why;
    unsigned roles;
    bool coarsens;      /* some use spreads X * N + u over a thread's N elements */
    uint32_t coarsen_off;
    int rc;             /* HK_ENOMEM once an allocation failed */
} kctx;

/* A name under judgement: a tunable, or a local initialised from one. */
typedef struct {
    const char *name;
    const an_tunable *tun;  /* the tunable, or NULL for a local */
    bool is_block;          /* it is the block size: of the kernel searched for a tunable
                             * (other kernels are asked on their own), of its function for
                             * a local */
    bool block_derived;     /* computed from a block size: sizes a per-block array freely */
    uint32_t from, to;      /* bytes whose occurrences count */
    uint32_t skip0, skip1;  /* bytes that do not (its own definition) */
    const char *via;        /* "through X" or NULL */
    int depth;
} kname;

typedef struct {
    size_t kw, open, close, semi1, semi2, body0, body1, var;
} kloop;

static unsigned line_of(const kctx *c, uint32_t off)
{
    unsigned n = 1;
    for (uint32_t i = 0; i < off && i < c->len; i++)
        n += c->text[i] == '\n';
    return n;
}

static bool tis(const kctx *c, size_t k, const char *s) { return rwl_tok_is(&c->ts, k, s); }

static bool tident(const kctx *c, size_t k) { return k < c->ts.n && c->ts.t[k].kind == T_IDENT; }

static bool tname(const kctx *c, size_t k, const char *name)
{
    return rwl_tok_is_ident(&c->ts, k, name);
}

/* First token starting at or after byte. */
static size_t tok_at(const kctx *c, uint32_t byte)
{
    size_t lo = 0, hi = c->ts.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->ts.t[mid].start < byte)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static char *tok_str(const kctx *c, size_t k)
{
    return hk_strndup(c->text + c->ts.t[k].start, c->ts.t[k].end - c->ts.t[k].start);
}

/* Keeps the reason when it is of a better kind than the one kept (ties: the first). */
static void refuse(kctx *c, const kname *kn, int kind, uint32_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void refuse(kctx *c, const kname *kn, int kind, uint32_t off, const char *fmt, ...)
{
    /* a direct use tells more than one through a local or another tunable */
    kind += 10 * kn->depth;
    if (c->best && c->best <= kind)
        return;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char *why = kn->via ? hk_asprintf(EN(SRCH_KNOB_WHY_VIA), kn->via, what, line_of(c, off))
                        : hk_asprintf(EN(SRCH_KNOB_WHY), what, line_of(c, off));
    if (!why) {
        c->rc = HK_ENOMEM;
        return;
    }
    hk_free(c->best_why);
    c->best_why = why;
    c->best = kind;
    c->best_off = off;
}

/* Does s hold name as a whole identifier? */
static bool mentions(const char *s, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = s ? strstr(s, name) : NULL; p; p = strstr(p + 1, name)) {
        bool before = p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after)
            return true;
    }
    return false;
}

/* ---- loops ---- */

static bool parse_for(const kctx *c, size_t kw, size_t end, kloop *l)
{
    memset(l, 0, sizeof *l);
    if (!tname(c, kw, "for") || !tis(c, kw + 1, "("))
        return false;
    l->kw = kw;
    l->open = kw + 1;
    l->close = rwl_match_close(&c->ts, l->open);
    if (l->close >= end)
        return false;
    l->semi1 = l->semi2 = l->var = SIZE_MAX;
    int depth = 0;
    for (size_t j = l->open + 1; j < l->close; j++) {
        if (tis(c, j, "(") || tis(c, j, "[") || tis(c, j, "{"))
            depth++;
        else if (tis(c, j, ")") || tis(c, j, "]") || tis(c, j, "}"))
            depth--;
        else if (depth == 0 && tis(c, j, ";")) {
            if (l->semi1 == SIZE_MAX)
                l->semi1 = j;
            else if (l->semi2 == SIZE_MAX)
                l->semi2 = j;
        } else if (depth == 0 && l->semi1 == SIZE_MAX && l->var == SIZE_MAX && tis(c, j, "=") &&
                   tident(c, j - 1))
            l->var = j - 1;
    }
    if (l->semi2 == SIZE_MAX)
        return false;
    l->body0 = l->close + 1;
    l->body1 = rwl_stmt_end(&c->ts, l->body0, end);
    return true;
}

/* `for ([int] v = 0; v < NAME; v++)` (also ++v, v += 1). */
static bool count_loop(const kctx *c, const kloop *l, const char *name)
{
    if (l->var == SIZE_MAX || !tis(c, l->semi1 - 1, "0") || !tis(c, l->semi1 - 2, "="))
        return false;
    size_t a = l->semi1 + 1;
    char *v = tok_str(c, l->var);
    if (!v)
        return false;
    bool ok = l->semi2 == a + 3 && tname(c, a, v) && tis(c, a + 1, "<") && tname(c, a + 2, name);
    size_t s = l->semi2 + 1, n = l->close - s;
    ok = ok && ((n == 2 && ((tname(c, s, v) && tis(c, s + 1, "++")) ||
                            (tis(c, s, "++") && tname(c, s + 1, v)))) ||
                (n == 3 && tname(c, s, v) && tis(c, s + 1, "+=") && tis(c, s + 2, "1")));
    hk_free(v);
    return ok;
}

/* A loop that covers a range in steps of NAME: `v += NAME` as its step, or a count of
 * tiles `v < (K + NAME - 1) / NAME` in its condition. */
static bool strip_loop(const kctx *c, const kloop *l, const char *name)
{
    for (size_t j = l->semi2 + 1; j + 1 < l->close; j++)
        if (tis(c, j, "+=") && tname(c, j + 1, name) && j + 2 == l->close)
            return true;
    for (size_t j = l->semi1 + 1; j + 1 < l->semi2; j++)
        if (tis(c, j, "/") && tname(c, j + 1, name))
            return true;
    return false;
}

/* The for loops of function body [b0, b1) whose header or body holds token k, outermost
 * first; *n of them. */
static void loops_around(const kctx *c, size_t b0, size_t b1, size_t k, kloop *out, size_t *n)
{
    *n = 0;
    for (size_t j = b0; j < k && j < b1 && *n < KNOB_MAX_LOOPS; j++) {
        kloop l;
        if (tname(c, j, "for") && parse_for(c, j, b1, &l) && k > l.open && k < l.body1)
            out[(*n)++] = l;
    }
}

static bool same_tok(const kctx *c, size_t a, size_t b)
{
    size_t la = c->ts.t[a].end - c->ts.t[a].start, lb = c->ts.t[b].end - c->ts.t[b].start;
    return la == lb && !memcmp(c->text + c->ts.t[a].start, c->text + c->ts.t[b].start, la);
}

/* Is the loop variable of an enclosing count loop over NAME spelled at token k? */
static bool count_var_at(const kctx *c, const kloop *ls, size_t n, size_t k, const char *name)
{
    for (size_t i = 0; i < n && tident(c, k); i++)
        if (ls[i].var != SIZE_MAX && k >= ls[i].body0 && same_tok(c, k, ls[i].var) &&
            count_loop(c, &ls[i], name))
            return true;
    return false;
}

/* The array subscripted at '[' token open: the identifier before it and its [..] groups. */
static size_t array_of(const kctx *c, size_t open, size_t b0)
{
    size_t j = open;
    while (j > b0 && tis(c, j - 1, "]")) {
        int depth = 0;
        size_t i = j - 1;
        for (;; i--) {
            if (tis(c, i, "]"))
                depth++;
            else if (tis(c, i, "[") && --depth == 0)
                break;
            if (i == b0)
                return SIZE_MAX;
        }
        j = i;
    }
    return j > b0 && tident(c, j - 1) ? j - 1 : SIZE_MAX;
}

static bool is_shared_name(const an_function *f, const kctx *c, size_t k)
{
    for (size_t i = 0; i < f->n_shared; i++) {
        size_t n = strlen(f->shared[i].name);
        if (c->ts.t[k].end - c->ts.t[k].start == n &&
            !memcmp(c->text + c->ts.t[k].start, f->shared[i].name, n))
            return true;
    }
    return false;
}

/* The first array subscripted with the loop's variable in its body (or SIZE_MAX), and
 * whether every such array is a __shared__ one of f. */
static size_t loop_reads(const kctx *c, const an_function *f, const kloop *l, size_t b0,
                         bool *shared_only)
{
    size_t first = SIZE_MAX;
    *shared_only = true;
    if (l->var == SIZE_MAX)
        return first;
    for (size_t j = l->body0; j < l->body1; j++) {
        if (!tis(c, j, "["))
            continue;
        size_t close = rwl_match_close(&c->ts, j);
        bool uses = false;
        for (size_t i = j + 1; i < close && i < l->body1 && !uses; i++)
            uses = tident(c, i) && same_tok(c, i, l->var);
        if (!uses)
            continue;
        size_t a = array_of(c, j, b0);
        if (a == SIZE_MAX)
            continue;
        if (first == SIZE_MAX)
            first = a;
        if (!is_shared_name(f, c, a))
            *shared_only = false;
    }
    return first;
}

/* ---- statements ---- */

static bool decl_word(const kctx *c, size_t k)
{
    static const char *const w[] = {"float", "double", "bool", "char", "half", "__half",
                                    "__nv_bfloat16", "float2", "float4", "int2", "int4", "dim3",
                                    "const", "constexpr", "static", "volatile", "register",
                                    "__shared__", "unsigned", "signed"};
    if (rwl_is_type_word(&c->ts, k))
        return true;
    for (size_t i = 0; i < HK_ARRAY_LEN(w); i++)
        if (tname(c, k, w[i]))
            return true;
    return false;
}

static bool float_word(const kctx *c, size_t k)
{
    static const char *const w[] = {"float", "double", "half", "__half", "__nv_bfloat16",
                                    "float2", "float4", "double2"};
    for (size_t i = 0; i < HK_ARRAY_LEN(w); i++)
        if (tname(c, k, w[i]))
            return true;
    return false;
}

/* Start of the simple statement holding k: after the `;`, `{` or `}` before it, past any
 * `if (...)`, `for (...)`, `while (...)`, `else`, `do` heads. */
static size_t stmt_start(const kctx *c, size_t b0, size_t k)
{
    size_t s = b0;
    int depth = 0;
    for (size_t j = k; j-- > b0;) {
        if (tis(c, j, ")") || tis(c, j, "]"))
            depth++;
        else if (tis(c, j, "(") || tis(c, j, "["))
            depth -= depth > 0;
        else if (depth == 0 && (tis(c, j, ";") || tis(c, j, "{") || tis(c, j, "}"))) {
            s = j + 1;
            break;
        }
    }
    for (;;) {
        if ((tname(c, s, "if") || tname(c, s, "for") || tname(c, s, "while") ||
             tname(c, s, "switch")) && tis(c, s + 1, "(")) {
            size_t close = rwl_match_close(&c->ts, s + 1);
            if (close >= k)
                break;
            s = close + 1;
        } else if ((tname(c, s, "else") || tname(c, s, "do")) && s < k) {
            s++;
        } else {
            break;
        }
    }
    return s;
}

/* In a declaration statement starting at s, the declarator whose initializer holds k:
 * its name token, or SIZE_MAX. *floating: the declared type is a floating one. */
static size_t declarator_of(const kctx *c, size_t s, size_t k, bool *floating)
{
    *floating = false;
    if (!decl_word(c, s) && !(tident(c, s) && tident(c, s + 1)))
        return SIZE_MAX;
    size_t j = s, var = SIZE_MAX;
    while (j < k && (decl_word(c, j) || (tident(c, j) && tident(c, j + 1)) || tis(c, j, "*"))) {
        *floating |= float_word(c, j);
        j++;
    }
    int depth = 0;
    bool in_init = false;
    for (; j < k; j++) {
        if (tis(c, j, "(") || tis(c, j, "[") || tis(c, j, "{")) {
            if (depth == 0 && !in_init && var != SIZE_MAX && !tis(c, j, "["))
                in_init = true;
            depth++;
        } else if (tis(c, j, ")") || tis(c, j, "]") || tis(c, j, "}")) {
            depth--;
        } else if (depth == 0 && tis(c, j, ",")) {
            in_init = false;
            var = SIZE_MAX;
        } else if (depth == 0 && tis(c, j, "=")) {
            in_init = true;
        } else if (depth == 0 && !in_init && tident(c, j)) {
            var = j;
        }
    }
    return in_init ? var : SIZE_MAX;
}

/* ---- the judgement ---- */

static void judge_name(kctx *c, const kname *kn);
static bool block_size_of(kctx *c, const an_tunable *t, size_t kernel);
static bool block_name_of(kctx *c, size_t kernel, const char *name);

/* A local initialised as `B = (...) * N;` whose every use is `B + u`, u counting 0..N-1:
 * the first of a thread's N consecutive elements. */
static bool coarsen_base(const kctx *c, size_t b0, size_t b1, size_t var, const char *name)
{
    size_t e = rwl_stmt_end(&c->ts, var, b1);
    if (!(e >= 3 && tis(c, e - 1, ";") && tname(c, e - 2, name) && tis(c, e - 3, "*") &&
          tis(c, var + 1, "=")))
        return false;
    bool any = false;
    for (size_t j = e; j < b1; j++) {
        if (!tident(c, j) || !same_tok(c, j, var))
            continue;
        kloop ls[KNOB_MAX_LOOPS];
        size_t n = 0;
        loops_around(c, b0, b1, j, ls, &n);
        if (!(tis(c, j + 1, "+") && count_var_at(c, ls, n, j + 2, name)) ||
            (j > 0 && (tis(c, j - 1, "*") || tis(c, j - 1, "/"))))
            return false;
        any = true;
    }
    return any;
}

/* `for (v = 0; v < N; v += S)` with S a block dimension (blockDim.y, or a name the launches
 * give the block): the block's threads walk a tile of N rows together. */
static bool block_walk(kctx *c, const kloop *l, const char *name)
{
    if (l->var == SIZE_MAX || !tis(c, l->semi1 - 1, "0") || l->semi2 != l->semi1 + 4 ||
        !same_tok(c, l->semi1 + 1, l->var) || !tis(c, l->semi1 + 2, "<") ||
        !tname(c, l->semi1 + 3, name))
        return false;
    size_t s = l->semi2 + 1;
    if (!same_tok(c, s, l->var) || !tis(c, s + 1, "+="))
        return false;
    if (l->close == s + 5 && tname(c, s + 2, "blockDim") && tis(c, s + 3, "."))
        return true;
    if (l->close != s + 3 || !tident(c, s + 2))
        return false;
    char *step = tok_str(c, s + 2);
    bool ok = step && block_name_of(c, c->kernel, step);
    hk_free(step);
    return ok;
}

/* Judges the uses of the local declared (or assigned) at token var, from there to the end
 * of the function body ending at byte end. */
static void judge_local(kctx *c, const kname *kn, size_t var, uint32_t end, bool floating,
                        bool blk, uint32_t off)
{
    char *v = tok_str(c, var);
    if (!v) {
        c->rc = HK_ENOMEM;
        return;
    }
    if (floating) {
        refuse(c, kn, P_VALUE, off, EN(SRCH_KNOB_INITIALISES), v);
    } else if (kn->depth >= KNOB_MAX_DEPTH) {
        refuse(c, kn, P_OTHER, off, EN(SRCH_KNOB_TOO_DEEP), v);
    } else if (strcmp(v, kn->name)) {
        char via[300];
        if (kn->via)
            snprintf(via, sizeof via, EN(SRCH_KNOB_VIA_MORE), kn->via, v);
        else
            snprintf(via, sizeof via, EN(SRCH_KNOB_VIA), v);
        kname d = {.name = v, .is_block = blk, .block_derived = kn->block_derived || blk,
                   .from = c->ts.t[var].end, .to = end, .via = via, .depth = kn->depth + 1};
        judge_name(c, &d);
    }
    hk_free(v);
}

/* hipBlockIdx_x, _y or _z at token k. */
static bool hip_block_idx(const kctx *c, size_t k)
{
    return tname(c, k, "hipBlockIdx_x") || tname(c, k, "hipBlockIdx_y") ||
           tname(c, k, "hipBlockIdx_z");
}

/* Inside the body of the kernel or a device function fi. */
static void judge_device(kctx *c, const kname *kn, long fi, size_t k)
{
    const an_function *f = &c->m->funcs[fi];
    size_t b0 = tok_at(c, f->body_span.start_byte), b1 = tok_at(c, f->body_span.end_byte);
    uint32_t off = c->ts.t[k].start;
    bool blk = !kn->tun || (size_t)fi == c->kernel
                   ? kn->is_block
                   : f->kind == AN_KERNEL && block_size_of(c, kn->tun, (size_t)fi);
    const char *name = kn->name;

    /* blockIdx.x * BLOCK (HIP: hipBlockIdx_x): the block's first index, blockDim in all but
     * spelling */
    if (blk && ((k >= 4 && tis(c, k - 1, "*") && tis(c, k - 3, ".") && tname(c, k - 4, "blockIdx")) ||
                (tis(c, k + 1, "*") && tname(c, k + 2, "blockIdx")) ||
                (k >= 2 && tis(c, k - 1, "*") && hip_block_idx(c, k - 2)) ||
                (tis(c, k + 1, "*") && hip_block_idx(c, k + 2)))) {
        c->roles |= KNOB_BLOCK;
        return;
    }
    kloop ls[KNOB_MAX_LOOPS];
    size_t nl = 0;
    loops_around(c, b0, b1, k, ls, &nl);
    /* X * N + u, u counting 0..N-1: the N consecutive elements of X, whatever N is */
    if (k >= 1 && tis(c, k - 1, "*") && tis(c, k + 1, "+") && count_var_at(c, ls, nl, k + 2, name)) {
        c->roles |= KNOB_UNROLL;
        if (!c->coarsens)
            c->coarsen_off = off;
        c->coarsens = true;
        return;
    }
    /* in a for header */
    for (size_t i = nl; i-- > 0;) {
        const kloop *h = &ls[i];
        if (!(k > h->open && k < h->close))
            continue;
        if (k > h->semi1 && k < h->semi2 && count_loop(c, h, name)) {
            for (size_t o = 0; o < i; o++)
                if (strip_loop(c, &ls[o], name)) { /* the tile loop of a strip */
                    c->roles |= KNOB_TILE;
                    return;
                }
            /* a pure unroll: u only forms X * N + u or indexes a register array of N */
            bool pure = h->var != SIZE_MAX, any = false;
            for (size_t j = h->body0; j < h->body1 && pure; j++) {
                if (!tident(c, j) || !same_tok(c, j, h->var))
                    continue;
                any = true;
                bool term = j >= 3 && tis(c, j - 1, "+") && tname(c, j - 2, name) && tis(c, j - 3, "*");
                bool base = j >= 2 && tis(c, j - 1, "+") && tident(c, j - 2) && !tis(c, j - 3, "*") &&
                            !tis(c, j - 3, "/");
                if (base) { /* B + u, B the first of the thread's elements */
                    size_t d = SIZE_MAX;
                    for (size_t q = b0 + 1; q + 1 < j && d == SIZE_MAX; q++)
                        if (same_tok(c, q, j - 2) && tis(c, q + 1, "=") && decl_word(c, q - 1))
                            d = q;
                    base = d != SIZE_MAX && coarsen_base(c, b0, b1, d, name);
                }
                bool reg = tis(c, j - 1, "[") && tis(c, j + 1, "]");
                pure = term || base || reg;
            }
            if (pure && any) {
                c->roles |= KNOB_UNROLL;
                return;
            }
        }
        if (strip_loop(c, h, name) && k > h->semi1) {
            bool inner = false;
            for (size_t j = h->body0; j < h->body1 && !inner; j++) {
                kloop in;
                inner = tname(c, j, "for") && parse_for(c, j, h->body1, &in) && count_loop(c, &in, name);
            }
            if (blk || inner) {
                c->roles |= inner ? KNOB_TILE : KNOB_BLOCK;
                return;
            }
        }
        if (blk && (size_t)fi == c->kernel && k > h->semi1 && k < h->semi2 && block_walk(c, h, name)) {
            c->roles |= KNOB_TILE;
            return;
        }
        bool shared_only;
        size_t a = loop_reads(c, f, h, b0, &shared_only);
        if (blk && shared_only) { /* a tree over the block's shared tile */
            c->roles |= KNOB_BLOCK;
            return;
        }
        if (a != SIZE_MAX)
            refuse(c, kn, P_LOOP, off, EN(SRCH_KNOB_LOOP_BOUND_READS),
                   (int)(c->ts.t[a].end - c->ts.t[a].start), c->text + c->ts.t[a].start);
        else
            refuse(c, kn, P_LOOP, off, EN(SRCH_KNOB_LOOP_BOUND));
        return;
    }
    /* the brackets around it, innermost first */
    int depth = 0;
    for (size_t j = k; j-- > b0;) {
        if (tis(c, j, ")") || tis(c, j, "]") || tis(c, j, "}")) {
            depth++;
            continue;
        }
        if (!(tis(c, j, "(") || tis(c, j, "[") || tis(c, j, "{")))
            continue;
        if (depth > 0) {
            depth--;
            continue;
        }
        if (tis(c, j, "{"))
            break;
        if (tis(c, j, "[")) {
            size_t a = array_of(c, j, b0);
            int an = a == SIZE_MAX ? 1 : (int)(c->ts.t[a].end - c->ts.t[a].start);
            const char *as = a == SIZE_MAX ? "?" : c->text + c->ts.t[a].start;
            bool shared_decl = false;
            for (size_t i = 0; i < f->n_shared; i++)
                shared_decl |= off >= f->shared[i].span.start_byte && off < f->shared[i].span.end_byte;
            size_t s = stmt_start(c, b0, j);
            bool floating;
            bool local_decl = !shared_decl && a != SIZE_MAX && decl_word(c, s) &&
                              declarator_of(c, s, a + 1, &floating) == SIZE_MAX;
            if (shared_decl) {
                bool strip = false;
                for (size_t i = b0; i < b1 && !strip; i++) {
                    kloop l;
                    strip = tname(c, i, "for") && parse_for(c, i, b1, &l) && strip_loop(c, &l, name);
                }
                if (blk || strip || kn->block_derived) {
                    c->roles |= blk || kn->block_derived ? KNOB_BLOCK : KNOB_TILE;
                    return;
                }
                refuse(c, kn, P_ARRAY, off, EN(SRCH_KNOB_SIZES_SHARED),
                       an, as);
                return;
            }
            if (local_decl) {
                /* a register array of N: every other use must be [u], u counting 0..N-1 */
                for (size_t i = b0; i < b1; i++) {
                    if (i == a || !tident(c, i) || !same_tok(c, i, a))
                        continue;
                    kloop li[KNOB_MAX_LOOPS];
                    size_t ni = 0;
                    loops_around(c, b0, b1, i, li, &ni);
                    if (!(tis(c, i + 1, "[") && tis(c, i + 3, "]") && count_var_at(c, li, ni, i + 2, name))) {
                        refuse(c, kn, P_ARRAY, c->ts.t[i].start,
                               EN(SRCH_KNOB_SIZES_ARRAY),
                               an, as, name);
                        return;
                    }
                }
                c->roles |= KNOB_UNROLL;
                return;
            }
            if (blk) {
                c->roles |= KNOB_BLOCK;
                return;
            }
            /* t * N with t counting tiles of N */
            size_t v = tis(c, k - 1, "*") ? k - 2 : tis(c, k + 1, "*") ? k + 2 : SIZE_MAX;
            for (size_t i = 0; v != SIZE_MAX && tident(c, v) && i < nl; i++)
                if (ls[i].var != SIZE_MAX && same_tok(c, v, ls[i].var) && strip_loop(c, &ls[i], name)) {
                    c->roles |= KNOB_TILE;
                    return;
                }
            refuse(c, kn, P_SUBSCRIPT, off, EN(SRCH_KNOB_SUBSCRIPT), an, as);
            return;
        }
        /* "(" */
        if (tname(c, j - 1, "if") || tname(c, j - 1, "while") || tname(c, j - 1, "switch")) {
            if (blk) {
                c->roles |= KNOB_BLOCK;
                return;
            }
            refuse(c, kn, P_COND, off, EN(SRCH_KNOB_CONDITION),
                   (int)(c->ts.t[j - 1].end - c->ts.t[j - 1].start), c->text + c->ts.t[j - 1].start);
            return;
        }
        if (j > b0 && tident(c, j - 1) && !tname(c, j - 1, "return") && !tname(c, j - 1, "min") &&
            !tname(c, j - 1, "max") && !tname(c, j - 1, "umin") && !tname(c, j - 1, "umax") &&
            !decl_word(c, j - 1)) {
            bool floating;
            size_t s = stmt_start(c, b0, j);
            if (declarator_of(c, s, j, &floating) == j - 1 || tname(c, s, "dim3"))
                break; /* `int v(...)`: an initializer, judged below */
            refuse(c, kn, P_VALUE, off, "passed to %.*s()",
                   (int)(c->ts.t[j - 1].end - c->ts.t[j - 1].start), c->text + c->ts.t[j - 1].start);
            return;
        }
    }
    /* the statement */
    size_t s = stmt_start(c, b0, k);
    if (tname(c, s, "return")) {
        refuse(c, kn, P_VALUE, off, EN(SRCH_KNOB_RETURNED));
        return;
    }
    bool floating;
    size_t var = declarator_of(c, s, k, &floating);
    if (var != SIZE_MAX && !floating && coarsen_base(c, b0, b1, var, name)) {
        c->roles |= KNOB_UNROLL;
        if (!c->coarsens)
            c->coarsen_off = off;
        c->coarsens = true;
        return;
    }
    if (var != SIZE_MAX) {
        judge_local(c, kn, var, f->body_span.end_byte, floating, blk, off);
        return;
    }
    if (tident(c, s) && rwl_tok_is_assign_op(&c->ts, s + 1) && k > s + 1) {
        bool fl = false;
        for (size_t i = b0; i + 1 < b1 && !fl; i++)
            fl = float_word(c, i) && tident(c, i + 1) && same_tok(c, i + 1, s);
        judge_local(c, kn, s, f->body_span.end_byte, fl, blk, off);
        return;
    }
    for (size_t i = s; i < k; i++)
        if (rwl_tok_is_assign_op(&c->ts, i)) {
            size_t a = tident(c, s) ? s : s + 1;
            refuse(c, kn, P_VALUE, off, EN(SRCH_KNOB_STORED),
                   (int)(c->ts.t[a].end - c->ts.t[a].start), c->text + c->ts.t[a].start);
            return;
        }
    refuse(c, kn, P_VALUE, off, EN(SRCH_KNOB_EXPRESSION));
}

/* Where token k lies in launch li: 0 the configuration, 1 a kernel argument, 2 a template
 * argument of the kernel. */
static int launch_region(const kctx *c, const an_launch *l, size_t k)
{
    size_t a = tok_at(c, l->span.start_byte), b = tok_at(c, l->span.end_byte);
    if (l->form == AN_LAUNCH_CHEVRON) {
        size_t open = SIZE_MAX, close = SIZE_MAX;
        for (size_t j = a; j + 1 < b; j++) {
            if (open == SIZE_MAX && tis(c, j, "<<") && tis(c, j + 1, "<"))
                open = j;
            else if (open != SIZE_MAX && tis(c, j, ">>") && tis(c, j + 1, ">")) {
                close = j;
                break;
            }
        }
        if (open == SIZE_MAX || close == SIZE_MAX)
            return 1;
        return k < open ? 2 : k < close ? 0 : 1;
    }
    /* hipLaunchKernelGGL(k, grid, block, shmem, stream, args...);
     * cudaLaunchKernel(k, grid, block, args, shmem, stream) */
    size_t open = a;
    while (open < b && !tis(c, open, "("))
        open++;
    int arg = 0, depth = 0;
    for (size_t j = open + 1; j < k && j < b; j++) {
        if (tis(c, j, "(") || tis(c, j, "[") || tis(c, j, "{"))
            depth++;
        else if (tis(c, j, ")") || tis(c, j, "]") || tis(c, j, "}"))
            depth--;
        else if (depth == 0 && tis(c, j, ","))
            arg++;
    }
    if (l->form == AN_LAUNCH_HIP)
        return arg >= 1 && arg <= 4 ? 0 : 1;
    return arg == 1 || arg == 2 || arg == 4 || arg == 5 ? 0 : 1;
}

static void judge_host(kctx *c, const kname *kn, long fi, size_t k)
{
    const an_function *f = &c->m->funcs[fi];
    uint32_t off = c->ts.t[k].start;
    long li = an_model_launch_at(c->m, off);
    if (li >= 0) {
        const an_launch *l = &c->m->launches[li];
        int r = launch_region(c, l, k);
        if (r == 0) {
            c->roles |= KNOB_LAUNCH;
            return;
        }
        refuse(c, kn, P_VALUE, off, r == 1 ? EN(SRCH_KNOB_KERNEL_ARG)
                                           : EN(SRCH_KNOB_TEMPLATE_ARG), l->kernel);
        return;
    }
    size_t b0 = tok_at(c, f->body_span.start_byte);
    size_t s = stmt_start(c, b0, k);
    bool floating;
    size_t var = declarator_of(c, s, k, &floating);
    if (var == SIZE_MAX && tident(c, s) && tis(c, s + 1, "=") && k > s + 1)
        var = s;
    if (var != SIZE_MAX) {
        judge_local(c, kn, var, f->body_span.end_byte, false, false, off);
        return;
    }
    char *line = NULL;
    {
        uint32_t a = off, e = off;
        while (a > 0 && c->text[a - 1] != '\n')
            a--;
        while (e < c->len && c->text[e] != '\n')
            e++;
        while (a < e && isspace((unsigned char)c->text[a]))
            a++;
        line = hk_strndup(c->text + a, e - a > 120 ? 120 : e - a);
    }
    refuse(c, kn, P_HOST, off, EN(SRCH_KNOB_HOST),
           line ? line : "");
    hk_free(line);
}

/* Every identifier occurrence of kn->name in its byte range. */
static void judge_name(kctx *c, const kname *kn)
{
    size_t k0 = tok_at(c, kn->from);
    for (size_t k = k0; k < c->ts.n && c->ts.t[k].start < kn->to && c->rc == HK_OK; k++) {
        uint32_t off = c->ts.t[k].start;
        if (!tname(c, k, kn->name) || (off >= kn->skip0 && off < kn->skip1))
            continue;
        if (k > 0 && (tis(c, k - 1, ".") || tis(c, k - 1, "->")))
            continue; /* a member of that name */
        /* inside another tunable's value: judged through that tunable */
        bool in_value = false;
        for (size_t i = 0; i < c->m->n_tunables && !in_value; i++) {
            const an_tunable *t = &c->m->tunables[i];
            in_value = off >= t->span.start_byte && off < t->span.end_byte;
        }
        if (in_value)
            continue;
        long fi = an_model_function_at(c->m, off);
        const an_function *f = fi >= 0 ? &c->m->funcs[fi] : NULL;
        if (f && off >= f->body_span.start_byte && off < f->body_span.end_byte) {
            if (f->kind == AN_LAUNCHER)
                judge_host(c, kn, fi, k);
            else
                judge_device(c, kn, fi, k);
            continue;
        }
        if (f) {
            /* the declaration part: __launch_bounds__(N) is the launch's */
            bool lb = false;
            for (size_t j = k; j-- > 0 && !lb && c->ts.t[j].start >= f->span.start_byte;)
                lb = tname(c, j, "__launch_bounds__");
            if (lb && off < f->name_span.start_byte) {
                c->roles |= KNOB_LAUNCH;
                continue;
            }
            refuse(c, kn, P_OTHER, off, EN(SRCH_KNOB_DECLARATION), f->name);
            continue;
        }
        /* static_assert(N % 32 == 0, ...) only stops a build */
        bool sa = false;
        for (size_t j = k; j-- > 0 && !sa && !tis(c, j, ";") && !tis(c, j, "}");)
            sa = tname(c, j, "static_assert");
        if (sa)
            continue;
        refuse(c, kn, P_HOST, off, EN(SRCH_KNOB_OUTSIDE));
    }
}

/* Preprocessor lines that mention name: `#pragma unroll N` is an unroll; a macro or a
 * condition that uses it is not followed. Lines of tunables' own definitions are skipped
 * (their values are judged through the tunable). */
static void judge_directives(kctx *c, const kname *kn)
{
    const char *t = c->text;
    for (size_t i = 0; i < c->len;) {
        size_t e = i;
        while (e < c->len && (t[e] != '\n' || (e > i && t[e - 1] == '\\')))
            e++;
        size_t p = i;
        while (p < e && (t[p] == ' ' || t[p] == '\t'))
            p++;
        if (p < e && t[p] == '#') {
            char *line = hk_strndup(t + p, e - p);
            if (!line) {
                c->rc = HK_ENOMEM;
                return;
            }
            bool own = false;
            for (size_t j = 0; j < c->m->n_tunables && !own; j++)
                own = c->m->tunables[j].kind == AN_TUNE_DEFINE &&
                      p >= c->m->tunables[j].span.start_byte && p < c->m->tunables[j].span.end_byte;
            const char *d = line + 1;
            while (*d == ' ' || *d == '\t')
                d++;
            if (!own && mentions(line, kn->name)) {
                if (!strncmp(d, "pragma", 6) && strstr(d, "unroll"))
                    c->roles |= KNOB_UNROLL;
                else if (!strncmp(d, "undef", 5))
                    ;
                else if (!strncmp(d, "define", 6))
                    refuse(c, kn, P_OTHER, (uint32_t)p, EN(SRCH_KNOB_MACRO));
                else
                    refuse(c, kn, P_OTHER, (uint32_t)p, EN(SRCH_KNOB_DIRECTIVE));
            }
            hk_free(line);
        }
        i = e + 1;
    }
}

/* Does block expression text b (of a launch in function caller) name want as one of its
 * dimensions: `want`, `dim3(want, ...)`, or a local `dim3 v(want, ...)` / `int v = want`? */
static bool block_is(kctx *c, const char *b, const char *want, long caller, int depth)
{
    char sq[256], w[128];
    rwl_squeeze(b, sq, sizeof sq);
    rwl_squeeze(want, w, sizeof w);
    if (!strcmp(sq, w))
        return true;
    if (!strncmp(sq, "dim3(", 5) && sq[strlen(sq) - 1] == ')') {
        char *inner = sq + 5;
        inner[strlen(inner) - 1] = 0;
        char *save = NULL;
        for (char *part = strtok_r(inner, ",", &save); part; part = strtok_r(NULL, ",", &save))
            if (!strcmp(part, w))
                return true;
        return false;
    }
    if (depth > 0 || caller < 0)
        return false;
    for (const char *p = sq; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return false;
    const an_function *f = &c->m->funcs[caller];
    size_t b0 = tok_at(c, f->body_span.start_byte), b1 = tok_at(c, f->body_span.end_byte);
    for (size_t j = b0 + 1; j + 1 < b1; j++) {
        if (!tname(c, j, sq) || !decl_word(c, j - 1))
            continue;
        size_t a = j + 1, e;
        if (tis(c, a, "(") || tis(c, a, "{"))
            e = rwl_match_close(&c->ts, a), a++;
        else if (tis(c, a, "="))
            e = rwl_stmt_end(&c->ts, a, b1) - 1, a++;
        else
            continue;
        if (e >= b1 || e <= a)
            return false;
        /* each top-level component, or a dim3(...) value */
        int d = 0;
        size_t from = a;
        for (size_t i = a; i <= e; i++) {
            if (i < e && (tis(c, i, "(") || tis(c, i, "{")))
                d++;
            else if (i < e && (tis(c, i, ")") || tis(c, i, "}")))
                d--;
            if (i == e || (d == 0 && tis(c, i, ","))) {
                char *part = rwl_tok_text(&c->ts, from, i);
                bool hit = part && block_is(c, part, want, caller, depth + 1);
                hk_free(part);
                if (hit)
                    return true;
                from = i + 1;
            }
        }
        return false;
    }
    return false;
}

/* Is name (or, for a template parameter of the kernel, its argument at each launch) a
 * block dimension of every launch of kernel in the text (at least one)? */
static bool kernel_block_is(kctx *c, size_t kernel, const char *name, long targ)
{
    const an_function *k = &c->m->funcs[kernel];
    const char *kn = strrchr(k->name, ':') ? strrchr(k->name, ':') + 1 : k->name;
    size_t n = 0;
    for (size_t i = 0; i < c->m->n_launches; i++) {
        const an_launch *l = &c->m->launches[i];
        const char *ln = strrchr(l->kernel, ':') ? strrchr(l->kernel, ':') + 1 : l->kernel;
        if (strcmp(ln, kn))
            continue;
        n++;
        if (!l->block)
            return false;
        if (targ < 0) {
            if (!block_is(c, l->block, name, l->caller, 0))
                return false;
            continue;
        }
        /* k<256><<<g, 256>>>: the template argument is the block's */
        if (!l->template_args)
            return false;
        char sq[256];
        rwl_squeeze(l->template_args, sq, sizeof sq);
        char *p = sq + (sq[0] == '<'), *arg = NULL, *save = NULL;
        long idx = 0;
        for (char *part = strtok_r(p, ",>", &save); part; part = strtok_r(NULL, ",>", &save), idx++)
            if (idx == targ)
                arg = part;
        if (!arg || !block_is(c, l->block, arg, l->caller, 0))
            return false;
    }
    return n > 0;
}

static bool block_size_of(kctx *c, const an_tunable *t, size_t kernel)
{
    if (t->kind != AN_TUNE_TEMPLATE)
        return kernel_block_is(c, kernel, t->name, -1);
    if (t->owner != (long)kernel)
        return false;
    long targ = rw_template_param_index(c->m->funcs[kernel].template_params, t->name);
    return targ >= 0 && kernel_block_is(c, kernel, t->name, targ);
}

static bool block_name_of(kctx *c, size_t kernel, const char *name)
{
    return kernel_block_is(c, kernel, name, -1);
}

static void judge_tunable(kctx *c, size_t ti, bool linked, bool block_derived, const char *via,
                          int depth)
{
    const an_tunable *t = &c->m->tunables[ti];
    kname kn = {.name = t->name, .tun = t, .is_block = linked || block_size_of(c, t, c->kernel),
                .block_derived = block_derived, .from = 0,
                .to = (uint32_t)c->len, .skip0 = t->span.start_byte, .skip1 = t->span.end_byte,
                .via = via, .depth = depth};
    if (kn.is_block)
        c->roles |= KNOB_BLOCK;
    if (t->owner >= 0) { /* a template parameter or a local constexpr: its function only */
        kn.from = c->m->funcs[t->owner].span.start_byte;
        kn.to = c->m->funcs[t->owner].span.end_byte;
    } else {
        judge_directives(c, &kn);
    }
    judge_name(c, &kn);
    /* other tunables whose value mentions it: their uses are its uses */
    for (size_t i = 0; i < c->m->n_tunables && depth < KNOB_MAX_DEPTH && c->rc == HK_OK; i++) {
        const an_tunable *o = &c->m->tunables[i];
        if (i == ti || !mentions(o->value, t->name) ||
            (o->owner >= 0 && t->owner >= 0 && o->owner != t->owner))
            continue;
        char v[300];
        if (via)
            snprintf(v, sizeof v, EN(SRCH_KNOB_VIA_MORE), via, o->name);
        else
            snprintf(v, sizeof v, EN(SRCH_KNOB_VIA), o->name);
        judge_tunable(c, i, false, kn.is_block || block_derived, v, depth + 1);
    }
}

void knob_proof_clear(knob_proof *p)
{
    if (!p)
        return;
    hk_free(p->why);
    memset(p, 0, sizeof *p);
}

int knob_prove(const char *text, size_t len, const an_model *m, size_t kernel, size_t tunable,
               bool block_linked, knob_proof *out)
{
    memset(out, 0, sizeof *out);
    if (!text || !m || kernel >= m->n_funcs || m->funcs[kernel].kind != AN_KERNEL ||
        tunable >= m->n_tunables || len > RW_TEXT_MAX)
        return HK_EINVAL;
    kctx c = {.text = text, .len = len, .m = m, .kernel = kernel};
    int rc = rwl_lex(text, 0, (uint32_t)len, &c.ts);
    if (rc)
        goto out;
    judge_tunable(&c, tunable, block_linked, false, NULL, 0);
    if ((rc = c.rc))
        goto out;
    /* X * N + u covers the data only when the grid shrinks as N grows */
    if (c.coarsens && !(c.roles & KNOB_LAUNCH)) {
        kname kn = {.name = m->tunables[tunable].name};
        refuse(&c, &kn, P_OTHER, c.coarsen_off,
               EN(SRCH_KNOB_COARSEN_NO_GRID),
               kn.name);
        if ((rc = c.rc))
            goto out;
    }
    out->roles = c.roles;
    if (c.best) {
        out->line = line_of(&c, c.best_off);
        out->why = c.best_why;
        c.best_why = NULL;
    } else {
        struct hk_buf b;
        hk_buf_init(&b, 128);
        /* a list of the roles' words joined by ", " (hk_tr_said says each) */
        static const struct { unsigned f; enum hk_msg w; } words[] = {
            {KNOB_BLOCK, HK_MSG_SRCH_KNOB_ROLE_BLOCK}, {KNOB_TILE, HK_MSG_SRCH_KNOB_ROLE_TILE},
            {KNOB_UNROLL, HK_MSG_SRCH_KNOB_ROLE_UNROLL}, {KNOB_LAUNCH, HK_MSG_SRCH_KNOB_ROLE_LAUNCH}};
        for (size_t i = 0; i < HK_ARRAY_LEN(words) && !rc; i++)
            if (c.roles & words[i].f)
                rc = hk_buf_printf(&b, "%s%s", b.len ? ", " : "", hk_tr_in(HK_LANG_EN, words[i].w));
        if (!rc && !b.len)
            rc = hk_buf_appends(&b, EN(SRCH_KNOB_NOT_USED));
        out->why = rc ? NULL : hk_buf_steal(&b);
        if (!out->why) {
            hk_buf_free(&b);
            rc = HK_ENOMEM;
            goto out;
        }
        out->proven = true;
    }
out:
    rwl_toks_free(&c.ts);
    hk_free(c.best_why);
    if (rc)
        knob_proof_clear(out);
    return rc;
}
