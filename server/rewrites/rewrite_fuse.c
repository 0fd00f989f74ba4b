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
 * F) must still fill the GPU.
 *
 * Tiles (session 41): a tile kernel stages its loads through stores, `tile[ty][tx] = J[...]`,
 * often in phases behind barriers (rodinia srad: north/south, a barrier, west/east, a barrier,
 * the centre). The prologue therefore runs on past a store to an element or scalar of a static
 * top-level __shared__ array of the kernel and past a top-level statement that is a barrier
 * alone; it stops at a store to global memory or through a pointer, an atomic, a store to an
 * extern __shared__ array (sized by the launch, which is kept), a nested __shared__ or a
 * barrier in a branch or loop, and is cut after its last statement that loads from global
 * memory. Exact: every __shared__ name the copied part touches is declared once more per
 * further copy and renamed in that copy (statements and rest), so a copy writes only its own
 * locals and tiles; a global load cannot read a __shared__ array (another address space), so
 * running the copies' statements interleaved, before the earlier copies' rests, reads what
 * each block read; a barrier passed once by all copies is, for each copy, a barrier between
 * its statements before and after it (the order within a copy is the original); a tile a
 * block-free statement wrote would be one for all copies, so the split moves back to such a
 * statement. A parameter or block-free local written from the split on gets its own copy per
 * block at the split (`auto NAME_hkj = NAME;`), so no copy sees another's writes. The fused
 * axis is y where the body reads only blockIdx.y, or both and the spec's grid is longer
 * along y. Shared memory: the copies' tiles must fit a block (48 KB static; 64 KB on gfx9),
 * and with a device, F x the working blocks an SM then holds must exceed the blocks it held:
 * otherwise no more loads are in flight per SM and the rewrite cannot gain.
 *
 * A stored value loaded ahead (session 45): where the statement that ends the prologue is a
 * store into the block's dynamic shared memory, `S[tid] = E;`, and E loads only from pointer
 * parameters or local pointers computed from them, writes nothing and reads no shared memory
 * (hoisted_store), E runs with the
 * copied part, `auto hk_fb_sJ = E;` per block, and each block's rest starts with the store of
 * hk_fb_sJ: cuda-samples' reduce0-2, whose one load per thread is such a store's value, had
 * nothing to issue together before. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

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
    char ax;                     /* the fused axis: 'x' or 'y' */
    size_t rnames[FB_MAX_NAMES]; /* names also suffixed per copy: the __shared__ tiles the copied
                                  * part touches, parameters and block-free locals written from the
                                  * split on */
    size_t n_rnames;
    size_t shn[FB_MAX_NAMES];    /* the names the top-level __shared__ declarations declare */
    size_t shn_st[FB_MAX_NAMES]; /* ... the top-level statement declaring each */
    bool shn_ext[FB_MAX_NAMES];  /* ... extern (sized by the launch: one per block, never copied) */
    size_t n_shn;
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

/* `blockIdx . AX` at k (AX "x" or "y"). */
static bool block_ax(const rw_toks *ts, size_t k, char ax)
{
    char a[2] = {ax, 0};
    return rwl_tok_is_ident(ts, k, "blockIdx") && rwl_tok_is(ts, k + 1, ".") && rwl_tok_is(ts, k + 2, a);
}

/* The index of name token k among the top-level __shared__ names, or -1. */
static long shn_index(const fb_state *s, size_t k)
{
    if (s->ts.t[k].kind != T_IDENT || !rwl_is_use(&s->ts, k))
        return -1;
    for (size_t i = 0; i < s->n_shn; i++)
        if (rwl_same_tok(&s->ts, k, s->shn[i]))
            return (long)i;
    return -1;
}

/* The token a subscript chain ending at token t (`]`) applies to: `tile` of `tile[i][j]`
 * (SIZE_MAX when the brackets do not balance after lo). */
static size_t subscript_base(const rw_toks *ts, size_t t, size_t lo)
{
    while (t > lo && rwl_tok_is(ts, t, "]")) {
        int depth = 0;
        size_t q = t;
        for (;; q--) {
            depth += rwl_tok_is(ts, q, "]");
            depth -= rwl_tok_is(ts, q, "[");
            if (depth == 0)
                break;
            if (q <= lo)
                return SIZE_MAX;
        }
        t = q - 1;
    }
    return t;
}

/* Is statement [a, b) a barrier of the whole block alone: `__syncthreads();`, `NS::sync(g);`,
 * `g.sync();`, `__syncwarp();`? Passed once by the copies together, it is each copy's barrier:
 * every copy's statements before it stay before it and those after it after it. */
static bool plain_barrier(const rw_toks *ts, size_t a, size_t b)
{
    if (b == a + 6 && ts->t[a].kind == T_IDENT && rwl_tok_is(ts, a + 1, ".") && rwl_tok_is(ts, a + 2, "sync") &&
        rwl_tok_is(ts, a + 3, "(") && rwl_tok_is(ts, a + 4, ")") && rwl_tok_is(ts, a + 5, ";"))
        return true;
    size_t q = a;
    while (q + 1 < b && ts->t[q].kind == T_IDENT && rwl_tok_is(ts, q + 1, "::"))
        q += 2;
    if (!(rwl_tok_is(ts, q, "__syncthreads") || rwl_tok_is(ts, q, "sync") || rwl_tok_is(ts, q, "__syncwarp")) ||
        !rwl_tok_is(ts, q + 1, "("))
        return false;
    size_t r = q + 2;
    if (r < b && ts->t[r].kind == T_IDENT && rwl_tok_is(ts, r + 1, ")") && !rwl_tok_is(ts, q, "__syncthreads"))
        r++;
    return r + 2 == b && rwl_tok_is(ts, r, ")") && rwl_tok_is(ts, r + 1, ";");
}

/* Does name token q (a top-level __shared__ name) get written there: `s = `, `s[i][j] op=`,
 * `++s[i]`? */
static bool shared_written(const rw_toks *ts, size_t q, size_t b)
{
    if (rwl_scalar_written(ts, q))
        return true;
    size_t e = q + 1;
    while (e < b && rwl_tok_is(ts, e, "[")) {
        size_t c = rwl_match_close(ts, e);
        if (c >= b)
            return false;
        e = c + 1;
    }
    return e > q + 1 && e < b &&
           ((rwl_tok_is_assign_op(ts, e) && !rwl_tok_is(ts, e, "==")) || rwl_tok_is(ts, e, "++") ||
            rwl_tok_is(ts, e, "--") || (q > 0 && (rwl_tok_is(ts, q - 1, "++") || rwl_tok_is(ts, q - 1, "--"))));
}

/* Is token q a load from memory other than the kernel's top-level __shared__ arrays: a
 * subscript of anything else, a dereference, `->`, __ldg? */
static bool load_tok(const fb_state *s, size_t q)
{
    const rw_toks *ts = &s->ts;
    if ((rwl_tok_is(ts, q, "*") && rwl_unary_position(ts, q)) || rwl_tok_is(ts, q, "->") ||
        rwl_tok_is(ts, q, "__ldg"))
        return true;
    if (!rwl_tok_is(ts, q, "[") || q == 0)
        return false;
    size_t base = subscript_base(ts, q - 1, 0);
    return base == SIZE_MAX || shn_index(s, base) < 0;
}

static bool global_load_in(const fb_state *s, size_t a, size_t b)
{
    for (size_t q = a; q < b; q++)
        if (load_tok(s, q))
            return true;
    return false;
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

/* Is token k a type parameter of the kernel's template (`template <typename T>`: T)? */
static bool type_param(const fb_state *s, size_t k)
{
    const char *tp = s->f ? s->f->template_params : NULL;
    const char *nm = s->ts.text + s->ts.t[k].start;
    size_t nl = s->ts.t[k].end - s->ts.t[k].start;
    for (const char *p = tp; p && *p; p++) {
        size_t kw = !strncmp(p, "typename", 8) ? 8 : !strncmp(p, "class", 5) ? 5 : 0;
        if (!kw || (p > tp && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z'))))
            continue;
        const char *q = p + kw;
        while (*q == ' ')
            q++;
        char e = q[nl];
        if (!strncmp(q, nm, nl) && !(e == '_' || (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9')))
            return true;
    }
    return false;
}

/* May the call whose name is token k (followed by `(` or template arguments) run early,
 * twice or once for the batch? Pure functions, casts (C++'s named casts, a functional cast
 * to a type parameter of the kernel, `T(0)`, and since session 52 to an arithmetic type,
 * `float(x)`, rwl_is_cast_word, too: a conversion writes no memory), reader
 * functions of the file, cooperative groups' handles, a default construction of a plain
 * struct. */
static bool harmless_call(const fb_state *s, size_t k, size_t paren)
{
    const rw_toks *ts = &s->ts;
    if (rwl_pure_call_name(ts, k) || rwl_is_cast_word(ts, k))
        return true;
    if (rwl_tok_is(ts, k, "static_cast") || rwl_tok_is(ts, k, "reinterpret_cast") ||
        rwl_tok_is(ts, k, "const_cast") || (paren == k + 1 && type_param(s, k)))
        return true;
    if (rwl_tok_is(ts, k, "this_thread_block") || rwl_tok_is(ts, k, "tiled_partition") ||
        rwl_tok_is(ts, k, "sizeof"))
        return true;
    if (rwl_reader_call(s->m, s->text, s->f, ts, k))
        return true;
    /* a function-like macro of the file whose value touches no memory (rodinia's IN_RANGE) */
    if (rwl_pure_function_macro(s->text, s->len, ts->text + ts->t[k].start, ts->t[k].end - ts->t[k].start, 2))
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
            if (rwl_tok_is(ts, t, "]")) {
                /* an element of a static top-level __shared__ array of the kernel: a tile the
                 * block stages, which no global load can read (another address space); each
                 * copy gets its own */
                size_t base = subscript_base(ts, t, a);
                long k = base == SIZE_MAX ? -1 : shn_index(s, base);
                if (k >= 0 && !s->shn_ext[k] &&
                    !(base > a && (rwl_tok_is(ts, base - 1, "*") || rwl_tok_is(ts, base - 1, "&"))))
                    continue;
            }
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

/* Is the lambda introducer `[...]` at q (its `]` followed by `(`, `{` or `mutable`)? */
static bool lambda_at(const rw_toks *ts, size_t q)
{
    if (!rwl_tok_is(ts, q, "["))
        return false;
    size_t cl = rwl_match_close(ts, q);
    if (cl + 1 >= ts->n)
        return false;
    if (q > 0 && (ts->t[q - 1].kind == T_IDENT || rwl_tok_is(ts, q - 1, ")") || rwl_tok_is(ts, q - 1, "]")))
        return false;   /* a subscript */
    return rwl_tok_is(ts, cl + 1, "(") || rwl_tok_is(ts, cl + 1, "{") || rwl_tok_is_ident(ts, cl + 1, "mutable");
}

/* Is the name at k a macro of the file whose replacement text assigns (`=`, `+=`, ...,
 * `++`, `--`)? The locals it writes are written where no scan of names sees them. */
static bool macro_assigns(const char *text, size_t len, const rw_toks *ts, size_t k)
{
    size_t nl = ts->t[k].end - ts->t[k].start, at = 0, a, b;
    bool w = false;
    while (!w && rwl_next_define(text, len, &at, ts->text + ts->t[k].start, nl, &a, &b)) {
        rw_toks mt = {0};
        if (rwl_lex(text, (uint32_t)(a + nl), (uint32_t)b, &mt) != HK_OK) {
            rwl_toks_free(&mt);
            return true;
        }
        for (size_t q = 0; q < mt.n && !w; q++)
            w = (rwl_tok_is_assign_op(&mt, q) && !rwl_tok_is(&mt, q, "==")) || rwl_tok_is(&mt, q, "++") ||
                rwl_tok_is(&mt, q, "--");
        rwl_toks_free(&mt);
    }
    return w;
}

/* The declaration of the name at k among tokens [1, end): its declarator's token, or 0. */
static size_t decl_before(const rw_toks *ts, size_t k, size_t end)
{
    for (size_t r = 1; r < end; r++)
        if (rwl_same_tok(ts, r, k) && rwl_declared_here(ts, r))
            return r;
    return 0;
}

/* A cooperative groups handle (`cg::thread_block cta`, a tile): calls take it and change no
 * value of it a copy would need. */
static bool cg_handle_decl(const rw_toks *ts, size_t d)
{
    for (size_t r = d; r-- > 1;) {
        if (rwl_tok_is(ts, r, ";") || rwl_tok_is(ts, r, "{") || rwl_tok_is(ts, r, "}"))
            break;
        if (rwl_tok_is_ident(ts, r, "thread_block") || rwl_tok_is_ident(ts, r, "thread_block_tile") ||
            rwl_tok_is_ident(ts, r, "coalesced_group") || rwl_tok_is_ident(ts, r, "thread_group"))
            return true;
    }
    return false;
}

/* Is the name at k a whole argument of a call, `f(.., k, ..)`: the call's name token into
 * *callee and the argument's index into *arg? */
static bool call_argument(const rw_toks *ts, size_t k, size_t *callee, size_t *arg)
{
    if (!(rwl_tok_is(ts, k - 1, "(") || rwl_tok_is(ts, k - 1, ",")) ||
        !(rwl_tok_is(ts, k + 1, ")") || rwl_tok_is(ts, k + 1, ",")))
        return false;
    size_t n = 0, q = k;
    for (int depth = 0; q-- > 1;) {
        depth += rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]") || rwl_tok_is(ts, q, "}");
        if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "{")) {
            if (depth-- == 0)
                break;
        }
        if (depth == 0 && rwl_tok_is(ts, q, ","))
            n++;
    }
    if (q == 0 || !rwl_tok_is(ts, q, "("))
        return false;
    size_t c = q - 1;
    if (rwl_tok_is(ts, c, ">")) {   /* f<A>(..) */
        for (int depth = 0; c > 0; c--) {
            depth += rwl_tok_is(ts, c, ">") - rwl_tok_is(ts, c, "<");
            if (depth == 0)
                break;
        }
        c = c > 0 ? c - 1 : 0;
    }
    if (ts->t[c].kind != T_IDENT)
        return false;
    *callee = c;
    *arg = n;
    return true;
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

/* Is name token k one of the other names each copy has its own of (rnames)? */
static bool is_rname(const fb_state *s, size_t k)
{
    for (size_t i = 0; i < s->n_rnames; i++)
        if (rwl_same_tok(&s->ts, k, s->rnames[i]))
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
        if (vb && block_ax(ts, q, s->ax)) {
            rc = hk_buf_appends(o, vb);
            q += 2;
            continue;
        }
        rc = hk_buf_append(o, s->text + ts->t[q].start, ts->t[q].end - ts->t[q].start);
        bool kept = false;
        for (size_t k = 0; k < s->n_keep && !kept; k++)
            kept = rwl_same_tok(ts, q, s->keep[k]);
        if (!rc && sfx && !kept && ts->t[q].kind == T_IDENT && rwl_is_use(ts, q) &&
            (is_dname(s, q) || is_rname(s, q)))
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
        if (block_ax(&s->ts, q, s->ax) ||
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

/* The value of the integer constant expression [a, b) of the file's text, object-like macros
 * of the file expanded (a macro defined more than once -- under #if -- counts when every
 * definition that evaluates gives one value: srad's `BLOCK_SIZE`, whose other definitions
 * name macros only a command line defines). false when it cannot be known. */
static bool fb_eval(const rw_context *c, size_t a, size_t b, int depth, long long *v)
{
    if (depth > 8)
        return false;
    rw_toks tt = {0};
    struct hk_buf e;
    hk_buf_init(&e, 4096);
    bool ok = !rwl_lex(c->text, (uint32_t)a, (uint32_t)b, &tt) && tt.n > 0;
    for (size_t q = 0; q < tt.n && ok; q++) {
        const char *t = c->text + tt.t[q].start;
        size_t nl = tt.t[q].end - tt.t[q].start;
        if (tt.t[q].kind != T_IDENT) {
            ok = !hk_buf_append(&e, t, nl) && !hk_buf_appends(&e, " ");
            continue;
        }
        size_t at = 0, da, db;
        bool have = false;
        long long val = 0;
        while (ok && rwl_next_define(c->text, c->len, &at, t, nl, &da, &db)) {
            long long dv;
            if (c->text[da + nl] == '(')
                ok = false; /* function-like */
            else if (fb_eval(c, da + nl, db, depth + 1, &dv)) {
                if (have && dv != val)
                    ok = false;
                have = true;
                val = dv;
            }
            at = db;
        }
        ok = ok && have && !hk_buf_printf(&e, "(%lld) ", val);
    }
    rwl_toks_free(&tt);
    expr *x = NULL;
    expr_value r;
    if (ok && e.len && expr_parse(e.data, &x, NULL, 0) == HK_OK && expr_eval(x, NULL, 0, &r, NULL, 0) == HK_OK &&
        !r.is_float)
        *v = r.i;
    else
        ok = false;
    expr_free(x);
    hk_buf_free(&e);
    return ok;
}

/* The trip count of `for (H)`, H = tokens [ha, he): `T i = A; i < B; i++` (or `<=`, `++i`,
 * `i += 1`) with A and B constant (fb_eval); -1 when not known. */
static long long for_trips(const rw_context *c, const fb_state *s, size_t ha, size_t he)
{
    const rw_toks *ts = &s->ts;
    size_t s1 = ha, s2;
    while (s1 < he && !rwl_tok_is(ts, s1, ";"))
        s1++;
    s2 = s1 + 1;
    while (s2 < he && !rwl_tok_is(ts, s2, ";"))
        s2++;
    if (s2 >= he)
        return -1;
    size_t eq = ha;
    while (eq < s1 && !rwl_tok_is(ts, eq, "="))
        eq++;
    if (eq + 1 >= s1 || eq < ha + 1 || ts->t[eq - 1].kind != T_IDENT)
        return -1;
    size_t iv = eq - 1;
    bool le = rwl_tok_is(ts, s1 + 2, "<=");
    if (!rwl_same_tok(ts, s1 + 1, iv) || !(rwl_tok_is(ts, s1 + 2, "<") || le) || s1 + 3 >= s2)
        return -1;
    bool step = (s2 + 3 == he && rwl_same_tok(ts, s2 + 1, iv) && rwl_tok_is(ts, s2 + 2, "++")) ||
                (s2 + 3 == he && rwl_tok_is(ts, s2 + 1, "++") && rwl_same_tok(ts, s2 + 2, iv)) ||
                (s2 + 4 == he && rwl_same_tok(ts, s2 + 1, iv) && rwl_tok_is(ts, s2 + 2, "+=") &&
                 rwl_tok_is(ts, s2 + 3, "1"));
    long long a, b;
    if (!step || !fb_eval(c, ts->t[eq + 1].start, ts->t[s1 - 1].end, 0, &a) ||
        !fb_eval(c, ts->t[s1 + 3].start, ts->t[s2 - 1].end, 0, &b))
        return -1;
    long long n = b - a + (le ? 1 : 0);
    return n > 0 ? n : 0;
}

/* Global loads a thread issues in [a, b), each for-loop's body counted its trip count
 * times (a loop of unknown trips, a while or do: -1). Both arms of a branch count: an upper
 * bound. */
static long long loads_in(const rw_context *c, const fb_state *s, size_t a, size_t b)
{
    const rw_toks *ts = &s->ts;
    long long n = 0;
    for (size_t q = a; q < b; q++) {
        if (rwl_tok_is(ts, q, "while") || rwl_tok_is(ts, q, "do"))
            return -1;
        if (rwl_tok_is(ts, q, "for") && rwl_tok_is(ts, q + 1, "(")) {
            size_t close = rwl_match_close(ts, q + 1);
            if (close >= b)
                return -1;
            size_t be = rwl_stmt_end(ts, close + 1, b);
            long long trips = for_trips(c, s, q + 2, close), inner = loads_in(c, s, close + 1, be);
            if (trips < 0 || inner < 0)
                return -1;
            n += trips * inner;
            q = be - 1;
            continue;
        }
        n += load_tok(s, q);
    }
    return n;
}

/* Bytes of the top-level __shared__ name shn[i] (its element type's size times its literal or
 * macro dimensions), or -1 when not known (a template type, a dimension of a parameter). */
static long long shn_bytes(const rw_context *c, const fb_state *s, size_t i)
{
    const rw_toks *ts = &s->ts;
    size_t k = s->shn[i], a = s->st[s->shn_st[i]];
    if (s->shn_ext[i])
        return -1;
    static const struct {
        const char *w;
        int n;
    } sizes[] = {{"char", 1}, {"bool", 1}, {"int8_t", 1}, {"uint8_t", 1}, {"short", 2}, {"half", 2},
                 {"__half", 2}, {"__nv_bfloat16", 2}, {"int16_t", 2}, {"uint16_t", 2}, {"int", 4},
                 {"unsigned", 4}, {"float", 4}, {"int32_t", 4}, {"uint32_t", 4}, {"double", 8},
                 {"long", 8}, {"size_t", 8}, {"int64_t", 8}, {"uint64_t", 8}, {"float2", 8},
                 {"int2", 8}, {"float4", 16}, {"int4", 16}, {"double2", 16}};
    long long elem = -1;
    /* the statement's type: its words up to the first declared name */
    for (size_t q = a; q < s->st[s->shn_st[i] + 1] && elem < 0; q++) {
        if (shn_index(s, q) >= 0)
            break;
        for (size_t w = 0; w < HK_ARRAY_LEN(sizes); w++)
            if (rwl_tok_is(ts, q, sizes[w].w))
                elem = sizes[w].n;
    }
    if (elem < 0)
        return -1;
    long long n = elem;
    for (size_t q = k + 1; q < ts->n && rwl_tok_is(ts, q, "[");) {
        size_t cl = rwl_match_close(ts, q);
        long long d;
        if (cl >= ts->n || cl == q + 1 || !fb_eval(c, ts->t[q + 1].start, ts->t[cl - 1].end, 0, &d) || d < 1 ||
            d > (1 << 20))
            return -1;
        n *= d;
        q = cl + 1;
    }
    return n;
}

/* Is name token k (a use) a pointer into the block's dynamic shared memory that stays so:
 * a top-level extern __shared__ array, or a local declared before token lim, in a statement
 * that names such an array or default-constructs a plain struct of the file (cuda-samples'
 * `T *sdata = SharedMemory<T>();`), and never written after its declaration? */
static bool shared_target(const fb_state *s, size_t k, size_t lim)
{
    const rw_toks *ts = &s->ts;
    long x = shn_index(s, k);
    if (x >= 0)
        return s->shn_ext[x];
    if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
        return false;
    size_t decl = SIZE_MAX;
    for (size_t r = 1; r < lim; r++)
        if (rwl_same_tok(ts, r, k) && rwl_is_use(ts, r) && declared_name(ts, r)) {
            if (decl != SIZE_MAX)
                return false; /* declared twice: which one the store names is not followed */
            decl = r;
        }
    if (decl == SIZE_MAX || rwl_tok_is(ts, decl + 1, "[") || !rwl_tok_is(ts, decl - 1, "*"))
        return false;
    for (size_t q = 1; q + 1 < ts->n; q++)
        if (q != decl && rwl_same_tok(ts, q, k) && rwl_is_use(ts, q) && rwl_scalar_written(ts, q))
            return false;
    size_t i = 0;
    while (i + 1 < s->n_st && s->st[i + 1] <= decl)
        i++;
    for (size_t q = s->st[i]; q < s->st[i + 1]; q++) {
        long e = shn_index(s, q);
        if (e >= 0 && s->shn_ext[e])
            return true;
        if (ts->t[q].kind == T_IDENT && rwl_is_use(ts, q)) {
            size_t p = rwl_call_paren(ts, q);
            if (p && p + 1 < s->st[i + 1] && rwl_tok_is(ts, p + 1, ")") && plain_struct(s, q))
                return true;
        }
    }
    return false;
}

/* Do the tokens [a, b) compute an offset without touching memory: no subscript, dereference,
 * member through a pointer, write, or call other than harmless ones? */
static bool plain_offset(const fb_state *s, size_t a, size_t b)
{
    const rw_toks *ts = &s->ts;
    for (size_t q = a; q < b; q++)
        if (rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "->") || rwl_tok_is(ts, q, "++") ||
            rwl_tok_is(ts, q, "--") || (rwl_tok_is_assign_op(ts, q) && !rwl_tok_is(ts, q, "==")) ||
            (rwl_tok_is(ts, q, "*") && rwl_unary_position(ts, q)) || shn_index(s, q) >= 0)
            return false;
    return first_unsafe_call(s, a, b) >= b;
}

/* Is name token k (a use) a pointer into global memory: a pointer parameter, or a local
 * pointer declared once before token lim as `T *p = P;`, `= P + e;`, `= P - e;` or
 * `= &P[e];` with P such a pointer (pointer arithmetic stays inside P's allocation) and e
 * touching no memory, never written after its declaration? */
static bool global_pointer(const fb_state *s, size_t k, size_t lim, int depth)
{
    const rw_toks *ts = &s->ts;
    if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k) || shn_index(s, k) >= 0 || depth > 4)
        return false;
    const an_param *pa = rwp_param_named(s->f, ts, k);
    if (pa)
        return pa->pointer_depth >= 1;
    size_t decl = SIZE_MAX;
    for (size_t r = 1; r < lim; r++)
        if (rwl_same_tok(ts, r, k) && rwl_is_use(ts, r) && declared_name(ts, r)) {
            if (decl != SIZE_MAX)
                return false;
            decl = r;
        }
    if (decl == SIZE_MAX || !rwl_tok_is(ts, decl - 1, "*") || !rwl_tok_is(ts, decl + 1, "="))
        return false;
    /* written, or its address taken (`&p[i]` takes an element's: not a write of p) */
    for (size_t q = 1; q + 1 < ts->n; q++)
        if (q != decl && rwl_same_tok(ts, q, k) && rwl_is_use(ts, q) && rwl_scalar_written(ts, q) &&
            !(rwl_tok_is(ts, q - 1, "&") && rwl_tok_is(ts, q + 1, "[")))
            return false;
    size_t a = decl + 2, e = a;
    for (int d = 0; e < ts->n && !(d == 0 && (rwl_tok_is(ts, e, ";") || rwl_tok_is(ts, e, ","))); e++) {
        d += rwl_tok_is(ts, e, "(") || rwl_tok_is(ts, e, "[") || rwl_tok_is(ts, e, "{");
        d -= rwl_tok_is(ts, e, ")") || rwl_tok_is(ts, e, "]") || rwl_tok_is(ts, e, "}");
    }
    if (e >= ts->n || e == a)
        return false;
    if (rwl_tok_is(ts, a, "&")) { /* &P[e] */
        if (!rwl_tok_is(ts, a + 2, "[") || rwl_match_close(ts, a + 2) + 1 != e)
            return false;
        return global_pointer(s, a + 1, decl, depth + 1) && plain_offset(s, a + 3, e - 1);
    }
    if (!global_pointer(s, a, decl, depth + 1))
        return false;
    return e == a + 1 || ((rwl_tok_is(ts, a + 1, "+") || rwl_tok_is(ts, a + 1, "-")) && plain_offset(s, a + 2, e));
}

/* Statement i (the store that ends the prologue) as `S[...] = E;`: a store into the block's
 * dynamic shared memory (shared_target, subscripts free of loads, calls and writes) of a value
 * E that loads from memory only through subscripts of (or __ldg on) pointer parameters or
 * local pointers computed from them (global_pointer) -- global memory, which no statement
 * before the store writes -- and writes nothing, calls only
 * harmless functions, reads no __shared__ name. Then E can be evaluated for every copy ahead
 * of the copies' rests (into a register of the copy's own), the store itself staying at the
 * head of each copy's rest: the reduction's first load (`sdata[tid] = (i < n) ? g_idata[i] :
 * 0;`, cuda-samples' reduce0-2) joins the loads in flight. *eq gets the `=`; lim: the split's
 * first token (S a local pointer must be declared before it). */
static bool hoisted_store(const fb_state *s, size_t i, size_t lim, size_t *eq)
{
    const rw_toks *ts = &s->ts;
    size_t a = s->st[i], b = s->st[i + 1];
    if (b < a + 4 || !rwl_tok_is(ts, b - 1, ";") || ts->t[a].kind != T_IDENT)
        return false;
    size_t e = a + 1;
    while (e < b && rwl_tok_is(ts, e, "[")) {
        size_t cl = rwl_match_close(ts, e);
        if (cl >= b)
            return false;
        e = cl + 1;
    }
    if (e == a + 1 || !rwl_tok_is(ts, e, "=") || !shared_target(s, a, lim))
        return false;
    for (size_t q = a; q < b - 1; q++) {
        if (q == e)
            continue;
        if ((rwl_tok_is_assign_op(ts, q) && !rwl_tok_is(ts, q, "==")) || rwl_tok_is(ts, q, "++") ||
            rwl_tok_is(ts, q, "--") || rwl_tok_is(ts, q, "__shared__") ||
            (ts->t[q].kind == T_IDENT && (is_barrier(ts, q) || !strncmp(ts->text + ts->t[q].start, "atomic", 6))))
            return false;
        bool chain = false; /* the store's own subscripts' brackets */
        for (size_t r = a + 1; r < e && !chain; r = rwl_match_close(ts, r) + 1)
            chain = r == q;
        if (q > a && q < e && !chain)
            if (load_tok(s, q) || rwl_tok_is(ts, q, "->") || shn_index(s, q) >= 0 ||
                (rwl_tok_is(ts, q, "*") && rwl_unary_position(ts, q)) ||
                (ts->t[q].kind == T_IDENT && rwl_call_paren(ts, q)))
                return false;
    }
    bool loads = false;
    for (size_t q = e + 1; q < b - 1; q++) {
        if (shn_index(s, q) >= 0 || rwl_tok_is(ts, q, "->") ||
            (rwl_tok_is(ts, q, "*") && rwl_unary_position(ts, q)) || rwl_same_tok(ts, q, a))
            return false;
        if (rwl_tok_is(ts, q, "__ldg") && rwl_tok_is(ts, q + 1, "(")) {
            /* a load of global memory by definition; its argument is an address */
            size_t cl = rwl_match_close(ts, q + 1);
            if (cl >= b - 1)
                return false;
            for (size_t r = q + 2; r < cl; r++)
                if (shn_index(s, r) >= 0 || rwl_tok_is(ts, r, "->") || rwl_same_tok(ts, r, a) ||
                    (rwl_tok_is(ts, r, "*") && rwl_unary_position(ts, r)))
                    return false;
            loads = true;
            q = cl;
            continue;
        }
        if (!rwl_tok_is(ts, q, "["))
            continue;
        /* a load: an element of a pointer parameter (global memory: a launch passes no other)
         * or of a local pointer computed from one (global_pointer) */
        size_t base = subscript_base(ts, q - 1, e + 1);
        if (base == SIZE_MAX || !global_pointer(s, base, a, 0) || rwl_tok_is(ts, base - 1, "&") ||
            (rwl_tok_is(ts, base - 1, "*") && rwl_unary_position(ts, base - 1)))
            return false;
        loads = true;
    }
    if (!loads || first_unsafe_call(s, e + 1, b - 1) < b - 1)
        return false;
    *eq = e;
    return true;
}

/* The spec's grid along dimension d (0 x, 1 y, 2 z) at its first size set: *v, or false. */
static bool spec_grid(const rw_context *c, int d, long long *v)
{
    const struct spec *sp = c->spec;
    expr_value g;
    if (!sp || !sp->n_sizes)
        return false;
    if (!sp->grid[d]) {
        *v = 1;
        return d > 0 && sp->grid[0];
    }
    if (spec_eval(sp, sp->grid[d], 0, c->sm_count, &g, NULL, 0) != HK_OK || g.is_float || g.i < 1)
        return false;
    *v = g.i;
    return true;
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
/* a refusal naming the identifier at k */
#define REFUSE_NAMED(msg, k)                                                                       \
    do {                                                                                           \
        char *nm_ = rwl_tok_text(ts, (k), (k) + 1);                                                \
        rc = nm_ ? rwl_not_applicable_to(out, "fused_blocks", kn, (msg), LINE(k), nm_) : HK_ENOMEM; \
        hk_free(nm_);                                                                              \
        goto out;                                                                                  \
    } while (0)
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
            REFUSE_NAMED(HK_MSG_RW_FB_MACRO, q);
        }
        if (ts->t[q].kind == T_IDENT && rwl_is_use(ts, q)) {   /* the same words in a macro's text (session 46) */
            const char *mw = rwl_macro_text_word(c->text, c->len, c->text + ts->t[q].start, ts->t[q].end - ts->t[q].start,
                                                 stop, HK_ARRAY_LEN(stop), 4);
            if (mw)
                REFUSE(HK_MSG_RW_FB_FORBIDDEN, mw, LINE(q), mw);
        }
        if (ts->t[q].kind == T_IDENT && rwl_call_paren(ts, q)) {
            const an_function *g = rwl_callee(c->m, f, ts, q);
            if (g && rwl_mentions_grid(c->text + g->body_span.start_byte,
                                       g->body_span.end_byte - g->body_span.start_byte)) {
                REFUSE_NAMED(HK_MSG_RW_FB_CALLEE, q);
            }
        }
    }

    /* the fused axis: the block index the body reads; both read, the longer grid of the spec
     * (rodinia's backprop kernels run along y, srad's and SHOC's stencils on 2-D grids) */
    {
        bool rx = false, ry = false;
        for (size_t q = 1; q + 2 < ts->n; q++) {
            rx = rx || block_ax(ts, q, 'x');
            ry = ry || block_ax(ts, q, 'y');
        }
        long long gx, gy;
        s.ax = (ry && !rx) || (rx && ry && spec_grid(c, 0, &gx) && spec_grid(c, 1, &gy) && gy > gx) ? 'y' : 'x';
    }
    const char ax = s.ax;

    /* the body's top-level statements */
    for (size_t q = 1; q + 1 < ts->n;) {
        if (s.n_st >= FB_MAX_STMTS)
            REFUSE(HK_MSG_RW_FB_NO_BLOCK, LINE(0));
        s.st[s.n_st++] = q;
        size_t e = rwl_stmt_end(ts, q, ts->n - 1);
        q = e > q ? e : q + 1;
    }
    s.st[s.n_st] = ts->n - 1;

    /* the top-level __shared__ declarations, set aside (emitted once, and once per further
     * copy for the tiles the copied part touches), and the names they declare */
    bool shared_top[FB_MAX_STMTS] = {false}, barrier[FB_MAX_STMTS] = {false};
    for (size_t i = 0; i < s.n_st; i++) {
        size_t a = s.st[i], b = s.st[i + 1];
        /* a declaration `[extern|static] __shared__ ...` */
        bool ext = rwl_tok_is(ts, a, "extern");
        bool sh = rwl_tok_is(ts, a, "__shared__") ||
                  ((ext || rwl_tok_is(ts, a, "static")) && rwl_tok_is(ts, a + 1, "__shared__"));
        barrier[i] = plain_barrier(ts, a, b);
        if (!sh)
            continue;
        for (size_t q = a; q < b; q++)
            if (rwl_tok_is(ts, q, "=") || rwl_tok_is(ts, q, "{"))
                REFUSE(HK_MSG_RW_FB_SHARED, LINE(a));
        shared_top[i] = true;
        for (size_t q = a + 1, depth = 0; q < b; q++) {
            depth += rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "(");
            depth -= rwl_tok_is(ts, q, "]") || rwl_tok_is(ts, q, ")");
            if (depth || ts->t[q].kind != T_IDENT || rwl_is_type_word(ts, q) ||
                !(rwl_tok_is(ts, q + 1, "[") || rwl_tok_is(ts, q + 1, ";") || rwl_tok_is(ts, q + 1, ",")))
                continue;
            if (s.n_shn >= FB_MAX_NAMES)
                REFUSE(HK_MSG_RW_FB_SHARED, LINE(a));
            s.shn_st[s.n_shn] = i;
            s.shn_ext[s.n_shn] = ext;
            s.shn[s.n_shn++] = q;
        }
    }

    /* the prologue: the statements up to the first store to memory other than a static
     * top-level __shared__ array (a tile the block stages: no global load reads it), atomic,
     * nested __shared__ declaration or barrier other than a top-level statement of its own */
    size_t split = SIZE_MAX, pmax = s.n_st, at = 0;
    for (size_t i = 0; i < s.n_st && pmax == s.n_st; i++) {
        if (shared_top[i] || barrier[i])
            continue;
        if (stores_or_waits(&s, s.st[i], s.st[i + 1], &at)) {
            pmax = i;
            break;
        }
        if (split == SIZE_MAX)
            for (size_t q = s.st[i]; q < s.st[i + 1]; q++)
                if (block_ax(ts, q, ax))
                    split = i;
    }
    /* the store that ends it, `S[tid] = E;` into the block's dynamic shared memory with E
     * loading from pointer parameters (session 45: cuda-samples' reduce0-2 load their one
     * element per thread so): E is copied too, into a register per block, and the store
     * heads each block's rest (hoisted_store's proof) */
    size_t hv_eq = 0;
    bool hoist = pmax < s.n_st && hoisted_store(&s, pmax, s.st[split == SIZE_MAX ? pmax : split], &hv_eq);
    if (hoist && split == SIZE_MAX) {
        for (size_t q = hv_eq + 1; q < s.st[pmax + 1]; q++)
            if (block_ax(ts, q, ax))
                split = pmax;
        hoist = split != SIZE_MAX;
    }
    if (split == SIZE_MAX)
        REFUSE(HK_MSG_RW_FB_NO_BLOCK, LINE(pmax < s.n_st ? s.st[pmax] : 0));
    /* it ends after its last statement that loads from global memory (tiles filled and read
     * after that gain nothing from being copied: they stay with each block's rest), or with
     * a hoisted store's value, before that store */
    size_t pend = split;
    for (size_t i = split; i < pmax; i++)
        if (!shared_top[i] && !barrier[i] && global_load_in(&s, s.st[i], s.st[i + 1]))
            pend = i + 1;
    if (hoist)
        pend = pmax;
    else if (pend == split)
        REFUSE(HK_MSG_RW_FB_NO_LOAD, LINE(s.st[split]));
    /* the split moves back to the declaration of a local declared before it and written from
     * it on (a sum started at 0 before blockIdx is read belongs to each block), and to any
     * statement before it that writes a __shared__ name (a tile's earlier contents are the
     * block's own, or the block-free part would fill one tile for all the copies) */
    for (bool moved = true; moved;) {
        moved = false;
        for (size_t i = 0; i < split && !moved; i++) {
            if (shared_top[i])
                continue;
            for (size_t r = s.st[i]; r < s.st[i + 1] && !moved; r++) {
                long k = shn_index(&s, r);
                if (k >= 0 && shared_written(ts, r, s.st[i + 1])) {
                    split = i;
                    moved = true;
                }
                /* a tile the copied part touches, named before it (`float *p = tile;`): that
                 * statement names each copy's own tile only when it is copied too */
                for (size_t j = split; k >= 0 && !s.shn_ext[k] && j < pend && !moved; j++)
                    for (size_t q = s.st[j]; q < s.st[j + 1] && !shared_top[j] && !moved; q++)
                        if (rwl_is_use(ts, q) && rwl_same_tok(ts, q, r)) {
                            split = i;
                            moved = true;
                        }
                if (moved || !declared_name(ts, r))
                    continue;
                /* a local array is the block's own wherever it is used later (its elements
                 * may be written through a subscript, which no copy could share) */
                bool arr = rwl_tok_is(ts, r + 1, "[");
                for (size_t q = s.st[split]; q < (arr ? ts->n - 1 : s.st[pend]) && !moved; q++)
                    if (rwl_same_tok(ts, q, r) && rwl_is_use(ts, q) && (arr || rwl_scalar_written(ts, q))) {
                        split = i;
                        moved = true;
                    }
            }
        }
    }
    /* the __shared__ names the copied part touches: one per copy (each block stages its own
     * tile), with every name of their declarations */
    for (size_t i = split; i < pend; i++)
        for (size_t q = s.st[i]; q < s.st[i + 1] && !shared_top[i]; q++) {
            long k = shn_index(&s, q);
            if (k < 0 || is_rname(&s, q))
                continue;
            if (s.shn_ext[k]) /* read only here (a store stops the prologue): one for all */
                continue;
            for (size_t j = 0; j < s.n_shn; j++)
                if (s.shn_st[j] == s.shn_st[k] && !is_rname(&s, s.shn[j]) && s.n_rnames < FB_MAX_NAMES)
                    s.rnames[s.n_rnames++] = s.shn[j];
        }
    size_t n_shared_copied = s.n_rnames;
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
    /* calls before the end of the copied part: run once for the batch (before the split) or
     * again per copy (after it), so none may write (the top-level barriers are passed once) */
    for (size_t i = 0; i < pend; i++) {
        if (barrier[i] || shared_top[i])
            continue;
        size_t q = first_unsafe_call(&s, s.st[i], s.st[i + 1]);
        if (q < s.st[i + 1]) {
            REFUSE_NAMED(HK_MSG_RW_FB_IMPURE, q);
        }
    }
    /* the copied part's declared names; none may be read before the split, be a parameter,
     * or be declared twice at the top of it */
    for (size_t i = split; i < pend; i++) {
        if (shared_top[i])
            continue;
        for (size_t q = s.st[i]; q < s.st[i + 1]; q++) {
            if (!declared_name(ts, q))
                continue;
            if (s.n_dnames >= FB_MAX_NAMES)
                REFUSE(HK_MSG_RW_FB_NAME, LINE(q), "?");
            if (is_dname(&s, q))
                continue; /* declared again (a second loop's counter): renamed alike */
            /* a reference (`float &r = x;`): each copy's would name what the original names,
             * a block-free local or a parameter's element shared by all copies */
            if (rwl_tok_is(ts, q - 1, "&") && !rwl_tok_is(ts, q + 1, "(")) {
                REFUSE_NAMED(HK_MSG_RW_FB_REFERENCE, q);
            }
            bool clash = is_rname(&s, q) || rwp_param_named(f, ts, q);
            for (size_t r = 1; r < s.st[split] && !clash; r++)
                if (rwl_same_tok(ts, r, q))
                    clash = true;
            if (clash) {
                REFUSE_NAMED(HK_MSG_RW_FB_NAME, q);
            }
            s.dnames[s.n_dnames++] = q;
        }
    }
    /* a parameter, or a local of the part kept once, written from the split on (cs_conv_rows'
     * `d_Src += ...`): each copy gets its own, `auto NAME_hkj = NAME;` at the split, so that
     * none sees another's writes; a local array or reference cannot be copied so */
    size_t first_rp = s.n_rnames;
    for (size_t q = s.st[split]; q + 1 < ts->n; q++) {
        if (ts->t[q].kind != T_IDENT || !rwl_is_use(ts, q) || is_dname(&s, q) || is_rname(&s, q) ||
            shn_index(&s, q) >= 0 || !rwl_scalar_written(ts, q))
            continue;
        const an_param *pa = rwp_param_named(f, ts, q);
        bool param = pa != NULL, local = false, plain = !(pa && pa->type && strchr(pa->type, '&'));
        for (size_t r = 1; r < s.st[split] && !param; r++)
            if (rwl_same_tok(ts, r, q) && declared_name(ts, r)) {
                local = true;
                if (rwl_tok_is(ts, r + 1, "[") || rwl_tok_is(ts, r - 1, "&"))
                    plain = false;
            }
        if (!param && !local)
            continue; /* declared in the rest */
        if (!plain || s.n_rnames >= FB_MAX_NAMES) {
            REFUSE_NAMED(HK_MSG_RW_FB_SHARED_LOCAL, q);
        }
        s.rnames[s.n_rnames++] = q;
    }
    /* session 46 (issue 13): a block-free local reached other than by its name -- a
     * reference or a pointer to it set before the split (`float &r = acc;`, `p = &acc`), a
     * lambda of the block-free part (capturing it), a member written or a method called
     * (`st.s += v`), or the local passed to a call that may take it by reference (`inc(acc,
     * v)`) -- is one object for all copies, whose writes no scan of its name sees */
    for (size_t q = 1; q + 1 < ts->n; q++) {
        size_t sp = s.st[split];
        if (q < sp) {
            if (lambda_at(ts, q))
                REFUSE_NAMED(HK_MSG_RW_FB_OTHER_NAME, q >= 2 && rwl_tok_is(ts, q - 1, "=") ? q - 2 : q);
            if (rwl_tok_is(ts, q, "&") && rwl_unary_position(ts, q) && ts->t[q + 1].kind == T_IDENT &&
                shn_index(&s, q + 1) < 0 && decl_before(ts, q + 1, sp))
                REFUSE_NAMED(HK_MSG_RW_FB_OTHER_NAME, q + 1);
            if (declared_name(ts, q) && (rwl_tok_is(ts, q - 1, "&") || rwl_tok_is(ts, q - 1, "&&")))
                for (size_t r = sp; r + 1 < ts->n; r++)
                    if (rwl_same_tok(ts, r, q) && rwl_is_use(ts, r))
                        REFUSE_NAMED(HK_MSG_RW_FB_OTHER_NAME, r);
            continue;
        }
        if (ts->t[q].kind != T_IDENT || !rwl_is_use(ts, q) || is_dname(&s, q) || shn_index(&s, q) >= 0)
            continue;
        if (macro_assigns(c->text, c->len, ts, q))   /* `#define ACC tmp += v` */
            REFUSE_NAMED(HK_MSG_RW_FB_MACRO_WRITES, q);
        size_t d = decl_before(ts, q, sp);
        const an_param *pa = rwp_param_named(f, ts, q);
        if (!d && !(pa && pa->pointer_depth == 0))
            continue;   /* declared in the rest, or a pointer parameter (what it points to is memory) */
        if (rwl_tok_is(ts, q + 1, ".") && ts->t[q + 2].kind == T_IDENT && !(d && cg_handle_decl(ts, d))) {
            size_t m = q + 3;
            bool w = rwl_tok_is(ts, m, "(") || rwl_tok_is(ts, m, "[") || rwl_tok_is(ts, m, ".") ||
                     (rwl_tok_is_assign_op(ts, m) && !rwl_tok_is(ts, m, "==")) || rwl_tok_is(ts, m, "++") ||
                     rwl_tok_is(ts, m, "--") || rwl_tok_is(ts, q - 1, "++") || rwl_tok_is(ts, q - 1, "--") ||
                     (rwl_tok_is(ts, q - 1, "&") && rwl_unary_position(ts, q - 1));
            if (w)
                REFUSE_NAMED(HK_MSG_RW_FB_OTHER_NAME, q);
        }
        size_t callee, arg;
        if (call_argument(ts, q, &callee, &arg) && !(d && cg_handle_decl(ts, d))) {
            size_t p = rwl_call_paren(ts, callee);
            if (p && (rwl_tok_is(ts, callee, "if") || rwl_tok_is(ts, callee, "for") || rwl_tok_is(ts, callee, "while") ||
                      rwl_tok_is(ts, callee, "switch") || rwl_tok_is(ts, callee, "return") || harmless_call(&s, callee, p)))
                continue;
            const an_function *g = rwl_callee(c->m, f, ts, callee);
            bool by_value = g && arg < g->n_params && g->params[arg].type && !strchr(g->params[arg].type, '&');
            if (!by_value)
                REFUSE_NAMED(HK_MSG_RW_FB_OTHER_NAME, q);
        }
    }
    /* shared memory: the copies' tiles must fit a block, and with a spec and a device the
     * copies must put more loads in flight per SM than the blocks did: F working blocks' worth
     * each, fewer of them resident when their tiles take the SM's shared memory. Then the
     * working blocks (one in F along the axis) must still fill the GPU. */
    long long s0 = 0, sr = 0;
    bool sizes_known = true;
    for (size_t i = 0; i < s.n_shn; i++) {
        if (s.shn_ext[i])
            continue;
        long long nb = shn_bytes(c, &s, i);
        if (nb < 0) {
            sizes_known = false;
            continue;
        }
        s0 += nb;
        for (size_t r = 0; r < n_shared_copied; r++)
            if (rwl_same_tok(ts, s.rnames[r], s.shn[i]))
                sr += nb;
    }
    long long s1 = s0 + (long long)(blocks - 1) * sr;
    size_t sh_line_tok = n_shared_copied ? s.rnames[0] : 0;
    for (size_t i = 0; i < s.n_shn && n_shared_copied; i++)
        if (rwl_same_tok(ts, s.shn[i], s.rnames[0]))
            sh_line_tok = s.shn[i];
    long long block_limit = c->hip ? 65536 : 49152; /* static shared memory a block may declare */
    if (sr > 0 && sizes_known && s1 > block_limit)
        REFUSE(HK_MSG_RW_FB_SMEM, LINE(sh_line_tok), blocks, s1, block_limit);
    {
        const struct spec *sp = c->spec;
        expr_value b;
        long long g[3];
        if (sp && sp->n_sizes && sp->block[0] && c->sm_count > 0 && c->warps_per_sm > 0 && spec_grid(c, 0, &g[0]) &&
            spec_grid(c, 1, &g[1]) && spec_grid(c, 2, &g[2]) &&
            spec_eval(sp, sp->block[0], 0, c->sm_count, &b, NULL, 0) == HK_OK && !b.is_float && b.i > 0) {
            long long threads = b.i;
            for (int d = 1; d < 3; d++) {
                expr_value e;
                if (sp->block[d] && spec_eval(sp, sp->block[d], 0, c->sm_count, &e, NULL, 0) == HK_OK &&
                    !e.is_float && e.i > 0)
                    threads *= e.i;
            }
            long long per_sm = (long long)c->warps_per_sm * 32 / threads;
            if (per_sm < 1)
                per_sm = 1;
            if (per_sm > 32) /* resident blocks per SM at most (sm_80/sm_90) */
                per_sm = 32;
            long long fused_sm = per_sm;
            if (sr > 0 && sizes_known) {
                /* an SM's shared memory: 228 KB on the H100/H200 (an A100's 164 KB would hold
                 * fewer), 64 KB LDS on a gfx9 CU; 1 KB reserved per block on NVIDIA */
                long long cap = c->hip ? 65536 : 233472, res = c->hip ? 0 : 1024;
                long long r0 = cap / (s0 + res), r1 = cap / (s1 + res);
                long long base_sm = per_sm < r0 ? per_sm : r0;
                fused_sm = per_sm < r1 ? per_sm : r1;
                if ((long long)blocks * fused_sm <= base_sm)
                    REFUSE(HK_MSG_RW_FB_GAIN, LINE(sh_line_tok), blocks, s1, fused_sm, base_sm, cap / 1024, blocks,
                           fused_sm, base_sm);
            }
            /* loads in flight already: the blocks an SM held, each thread's global loads of
             * the copied part between two of its barriers (the most of any such phase, 4
             * bytes each). At 64 KB per SM or more -- over 2.5x what HBM needs by Little's
             * law (H100: 3.35 TB/s x ~0.7 us / 132 SMs, about 18 KB; H200 about 25 KB) --
             * more copies put nothing more to use (cs_conv_rows: 32 blocks of 64 threads,
             * 10 loads each: 80 KB) */
            {
                long long phase = 0, most = 0;
                bool known = true;
                for (size_t i = split; i < pend && known; i++) {
                    if (barrier[i]) {
                        phase = 0;
                        continue;
                    }
                    if (shared_top[i])
                        continue;
                    long long n = loads_in(c, &s, s.st[i], s.st[i + 1]);
                    known = n >= 0;
                    phase += n;
                    most = phase > most ? phase : most;
                }
                if (hoist && known) {
                    long long n = loads_in(c, &s, hv_eq + 1, s.st[pmax + 1] - 1);
                    known = n >= 0;
                    phase += n;
                    most = phase > most ? phase : most;
                }
                long long base_sm = per_sm;
                if (sizes_known && !c->hip && s0 + 1024 > 0 && 233472 / (s0 + 1024) < base_sm)
                    base_sm = 233472 / (s0 + 1024);
                long long flight = base_sm * threads * most * 4;
                if (known && flight >= 65536)
                    REFUSE(HK_MSG_RW_FB_FLIGHT, LINE(s.st[split]), base_sm, threads, most, flight / 1024);
            }
            int ai = ax == 'y' ? 1 : 0;
            long long total = g[0] * g[1] * g[2];
            long long working = (g[ai] + blocks - 1) / blocks * (total / g[ai]);
            long long resident = (long long)c->sm_count * (fused_sm > 0 ? fused_sm : 1);
            if (working < resident)
                REFUSE(HK_MSG_RW_FB_WAVE, rwl_line_at(c->text, f->span.start_byte), total, blocks, working, resident,
                       c->sm_count);
        }
    }
    /* after the prologue: no loop that could wait on another block */
    for (size_t q = s.st[pend < s.n_st ? pend : s.n_st]; q + 1 < ts->n; q++) {
        if (rwl_tok_is(ts, q, "while") || rwl_tok_is(ts, q, "do"))
            REFUSE(HK_MSG_RW_FB_LOOP, LINE(q));
        static const char *const waits[] = {"while", "do"};
        if (ts->t[q].kind == T_IDENT && rwl_is_use(ts, q) &&
            rwl_macro_text_word(c->text, c->len, c->text + ts->t[q].start, ts->t[q].end - ts->t[q].start, waits,
                                HK_ARRAY_LEN(waits), 4))
            REFUSE(HK_MSG_RW_FB_LOOP, LINE(q));
        /* a `for` spinning on memory (session 46): no condition, or one calling an atomic */
        if (rwl_tok_is(ts, q, "for") && rwl_tok_is(ts, q + 1, "(")) {
            size_t cl = rwl_match_close(ts, q + 1), h1 = q + 2;
            for (int depth = 0; h1 < cl && !(depth == 0 && rwl_tok_is(ts, h1, ";")); h1++)
                depth += (rwl_tok_is(ts, h1, "(") || rwl_tok_is(ts, h1, "{")) - (rwl_tok_is(ts, h1, ")") || rwl_tok_is(ts, h1, "}"));
            bool spin = h1 + 1 < cl && rwl_tok_is(ts, h1 + 1, ";");
            for (size_t r = h1 + 1; r < cl && !spin && !rwl_tok_is(ts, r, ";"); r++)
                spin = ts->t[r].kind == T_IDENT && !strncmp(ts->text + ts->t[r].start, "atomic", 6);
            if (spin)
                REFUSE(HK_MSG_RW_FB_LOOP, LINE(q));
        }
    }

    /* the new body */
    int F = blocks;
    int first_line = LINE(s.st[split]), last_line = LINE(s.st[hoist ? pmax + 1 : pend] - 1);
    if ((rc = hk_buf_printf(&o,
                            "{\n    // hk rewrite: fused_blocks. Block b = %d*q along %c runs blocks b .. b+%d (those below gridDim.%c),\n" /* i18n: not for people */
                                "    // the others return at once: the code from the first read of blockIdx.%c to the last load\n"
                                "    // before the first store to global memory runs for all %d first (their loads in flight\n"
                                "    // together, each with its own __shared__ tiles), then each block's rest in turn, a barrier\n"
                                "    // between. Each block computes what it did before.\n"
                                "    if (blockIdx.%c %% %du != 0u)\n        return;\n",
                            F, ax, F - 1, ax, ax, F, ax, (unsigned)F)))
        goto out;
    /* the block-free statements as written, then the shared declarations once, and again per
     * further copy for the tiles the copied part touches */
    for (size_t i = 0; i < s.n_st && !rc; i++) {
        if (!(i < split || shared_top[i]))
            continue;
        rc = emit_stmt(&s, i, NULL, NULL, &o);
        bool copied = false;
        for (size_t r = 0; r < n_shared_copied && shared_top[i]; r++)
            for (size_t q = s.st[i]; q < s.st[i + 1]; q++)
                copied = copied || (rwl_same_tok(ts, q, s.rnames[r]) && shn_index(&s, q) >= 0);
        for (int j = 1; j < F && !rc && copied; j++) {
            char sfx[32];
            snprintf(sfx, sizeof sfx, "_hk%d", j);
            rc = emit_stmt(&s, i, NULL, sfx, &o);
        }
    }
    for (int j = 1; j < F && !rc; j++)
        rc = hk_buf_printf(&o, /* i18n: not for people */ "    const unsigned int hk_fb_v%d = min(blockIdx.%c + %du, gridDim.%c - 1u);\n", j,
                           ax, (unsigned)j, ax);
    for (size_t r = first_rp; r < s.n_rnames && !rc; r++)
        for (int j = 1; j < F && !rc; j++) {
            char *nm = rwl_tok_text(ts, s.rnames[r], s.rnames[r] + 1);
            if (!nm) {
                rc = HK_ENOMEM;
                break;
            }
            rc = hk_buf_printf(&o, /* i18n: not for people */ "    auto %s_hk%d = %s; // block b+%d's own\n", nm, j, nm, j);
            hk_free(nm);
        }
    /* statement by statement, each for the F blocks in turn: a statement's loads for all F
     * stand together, ahead of the arithmetic that waits for them (the copies share no
     * local or tile they write, so any interleaving of them computes the same); a top-level
     * barrier once, for all of them */
    if (!rc)
        rc = hk_buf_printf(&o, /* i18n: not for people */ "    // blocks b .. b+%d: their indices and loads, each statement for the %d in turn\n"
                           "    // (a block past the grid computes the last block's again; its rest does not run)\n", F - 1, F);
    int jammed = 0;
    for (size_t i = split; i < pend && !rc; i++) {
        if (shared_top[i])
            continue;
        if (barrier[i]) {
            rc = emit_stmt(&s, i, NULL, NULL, &o);
            continue;
        }
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
    /* the hoisted store's value, for the F blocks in turn (each into a register of its own) */
    for (int j = 0; j < F && !rc && hoist; j++) {
        char vb[32], sfx[32];
        snprintf(vb, sizeof vb, "hk_fb_v%d", j);
        snprintf(sfx, sizeof sfx, "_hk%d", j);
        if (!j)
            rc = hk_buf_appends(&o, /* i18n: not for people */ "    // the value each block stores first into shared memory, loaded ahead of the blocks' rests\n");
        if (!rc)
            rc = hk_buf_printf(&o, /* i18n: not for people */ "    auto hk_fb_s%d = ", j);
        if (!rc)
            rc = copy_range(&s, hv_eq + 1, s.st[pmax + 1] - 1, j ? vb : NULL, j ? sfx : NULL, &o);
        if (!rc)
            rc = hk_buf_appends(&o, ";\n");
    }
    for (int j = 0; j < F && !rc; j++) {
        char vb[32], sfx[32];
        snprintf(vb, sizeof vb, "(blockIdx.%c + %du)", ax, (unsigned)j);
        snprintf(sfx, sizeof sfx, "_hk%d", j);
        if (j)
            rc = hk_buf_printf(&o, "    __syncthreads();\n    if (blockIdx.%c + %du < gridDim.%c) {\n", ax, (unsigned)j, ax);
        else
            rc = hk_buf_appends(&o, "    {\n");
        for (size_t i = pend; i < s.n_st && !rc; i++) {
            if (shared_top[i])
                continue;
            if (hoist && i == pmax) {
                /* the store, of the value loaded ahead */
                rc = emit_gap(&s, i, &o);
                if (!rc)
                    rc = copy_range(&s, s.st[i], hv_eq, j ? vb : NULL, j ? sfx : NULL, &o);
                if (!rc)
                    rc = hk_buf_printf(&o, " = hk_fb_s%d;\n", j);
                continue;
            }
            rc = emit_stmt(&s, i, j ? vb : NULL, j ? sfx : NULL, &o);
        }
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
    char *d = hk_asprintf(EN(RW_FB_DESC), f->name, F, ax, ax, first_line, last_line, F);
    rc = rwl_finish(c->text, c->len, c->m, f->name, &es, d, out);
    if (!rc && out->applicable)
        out->keeps_launch = true;
#undef REFUSE
#undef REFUSE_NAMED
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
    .summary = "F consecutive blocks (along x or y) run by one, their loads before the first global store " /* i18n: not for people */
               "issued together, staged __shared__ tiles one per block: more bytes in flight per SM, exact",
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
