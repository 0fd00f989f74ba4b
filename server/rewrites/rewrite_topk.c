/* split_topk_scan: a grid-stride loop over queries whose body scans every item keeping the
 * K best by a strict-< cascade (mmcv's three_nn) gives each query P adjacent lanes of a
 * warp: lane `part` scans the items k = A + part, A + part + P, ..., and the P partial
 * top-K lists are merged by (value, lower index) with __shfl_xor_sync. An item loop whose
 * guarded update is no cascade (knn's heap, ball_query's counted break) takes the guarded
 * form: P items at a time, one a lane, the updates replayed in item order in every lane.
 * The grid grows by P along x (rw_result.grid_multiplier). */
#include "rewrites/registry.h"
#include "rewrites/rewrite_gridloop.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"
#include "rewrites/rewrite_scan.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* Why: three_nn gives each thread one query and scans all m items of its batch in one
 * dependent chain; b * n queries are too few threads to fill the GPU (8 x 16384 = 131K of
 * the H200's 270K), so the chain's latency is exposed. P lanes per query give P times the
 * threads and chains P times shorter.
 *
 * Why it is exact (notes/s23-designs/neighbour-search.md, section 3). The cascade
 *     if (d < B1) { shift B/I down from slot 1; B1 = d; I1 = k; }
 *     else if (d < B2) { shift from slot 2; B2 = d; I2 = k; } ... (K slots, no else)
 * with every slot starting at the same (S, I0) keeps, after items A..k, the K smallest of
 * the items seen with value < S under the order (value, index), sorted, padded with (S, I0):
 * item k has the largest index so far, strict < puts it after every kept entry of equal or
 * smaller value, which is its place under (value, index), and the entry pushed out of slot
 * K is the largest under that order. An item whose comparison is false everywhere (its
 * value NaN, or >= S) is never kept, in any part. So a part scanning a subset of the items
 * in index order holds the K smallest of its subset by (value, index), and merging the
 * parts' lists by (value, then lower index) gives the sequential list entry for entry:
 * the same values (each kept entry keeps its own bits: a -0/+0 tie is ordered by index, as
 * the sequence orders it) and the same indices. Entries of different parts never tie
 * (their indices differ); sentinels tie only with sentinels, which are all (S, I0), so both
 * lanes of a shuffle pair compute the same merged list. The comparison and the store must
 * convert the value alike: the state's type is the value's own or double.
 *
 * Which thread does what: thread t of the multiplied grid serves query t / P, as part
 * t % P; a block whose size is a multiple of P keeps each query's P lanes in one warp,
 * aligned, and the stride (blockDim.x * gridDim.x, a multiple of P) keeps them together on
 * every trip, so the loop's exit and an `if (...) return;` before the scan (whose values are
 * the query's, alike in its lanes) are uniform over the lanes a merge names. Under the
 * grid multiplied by P, query t / P on trip i is the original thread t / P's query on trip
 * i: the pointers the body advances in the loop (mmcv's `xyz += ...`) accumulate as in the
 * original. A block size not a multiple of P runs part 0 alone over all items (no merge). */

#define TK_SLOTS 8
#define TK_VALUES 16

typedef rwg_scan tk_scan;

typedef struct {
    /* the query loop */
    size_t q_a;                 /* its first token (the macro's name or `for`) */
    size_t qbody_a, qbody_b;    /* its body: [qbody_a] '{', [qbody_b - 1] '}' */
    size_t hdr_a, hdr_b;        /* a `for` header in the body's tokens, or both 0 (a macro) */
    rwg_header qh;              /* its counter and bound */
    /* the item loop */
    size_t l_a, l_b;
    size_t ktype_a, ktype_b, kv, start_a, start_b, n_a, n_b, body_a, body_b;
    size_t vals[TK_VALUES];     /* the value declarations' names */
    size_t n_vals;
    size_t casc;                /* the cascade's `if` */
    size_t d;                   /* the compared value's name (a value declaration) */
    size_t d_type_a, d_type_b;
    int K;
    size_t B[TK_SLOTS], I[TK_SLOTS];        /* the slots' value and index names */
    size_t b_type_a, b_type_b, i_type_a, i_type_b;
} tk_loop;

#define refuse(s, k, ...) rwl_refuse((s)->why, sizeof (s)->why, (s)->ts, (s)->text, (k), __VA_ARGS__)
#define SPAN(ts, a, b) (int)((ts)->t[(b) - 1].end - (ts)->t[a].start), (ts)->text + (ts)->t[a].start
#define TOK(ts, k) (int)((ts)->t[k].end - (ts)->t[k].start), (ts)->text + (ts)->t[k].start


static bool is_param(const tk_scan *s, size_t k)
{
    for (size_t p = 0; p < s->f->n_params; p++) {
        const char *nm = s->f->params[p].name;
        size_t l = strlen(nm);
        if (l && l == s->ts->t[k].end - s->ts->t[k].start && !memcmp(nm, s->text + s->ts->t[k].start, l))
            return true;
    }
    return false;
}

/* Is the name at k written anywhere in the kernel body? */
static bool written_anywhere(const rw_toks *ts, size_t k)
{
    for (size_t q = 1; q + 1 < ts->n; q++)
        if (rwg_is_name(ts, q, k) && rwl_scalar_written(ts, q))
            return true;
    return false;
}

/* ---- the query loop: `for (TYPE v = <thread index over x>; v < N; v += <grid stride>)`,
 * written so or through a loop macro (mmcv's CUDA_1D_KERNEL_LOOP) ---- */


/* Finds the query loop among the kernel body's top-level statements; what comes before it
 * may only declare or return; nothing may follow it. */
static bool find_query_loop(tk_scan *s, tk_loop *L)
{
    const rw_toks *ts = s->ts;
    size_t end = ts->n - 1;
    for (size_t q = 1; q < end;) {
        size_t e = rwg_stmt_end(ts, q, end);
        bool macro;
        if (rwg_loop_at(ts, q, end, &macro)) {
            if (!rwg_read_loop(s, "query loop", q, end, macro, &L->qh, &L->qbody_a, &L->qbody_b))
                return false;
            L->q_a = q;
            L->hdr_a = macro ? 0 : q;
            L->hdr_b = macro ? 0 : L->qbody_a;
            if (L->qbody_b < end)
                return refuse(s, L->qbody_b, EN(RW_TK_C_STMT_AFTER_QUERY),
                              EN(RW_TK_LANES_RUN_IT));
            return true;
        }
        /* before the loop: declarations and `if (C) return;` only */
        bool ret = rwl_tok_is(ts, q, "if") && rwl_tok_is(ts, rwl_match_close(ts, q + 1) + 1, "return");
        if (!rwl_starts_declaration(ts, q) && !ret)
            return refuse(s, q, EN(RW_TK_C_STMT_BEFORE_QUERY), EN(RW_TK_ONLY_DECLS_BEFORE));
        q = e;
    }
    return refuse(s, 0, "kernel body", EN(RW_TK_NO_QUERY_LOOP));
}

/* ---- the whole kernel: what the new thread mapping would change ---- */

static bool check_kernel(tk_scan *s, const tk_loop *L)
{
    const rw_toks *ts = s->ts;
    for (size_t k = 1; k + 1 < ts->n; k++) {
        if (L->hdr_b && k >= L->hdr_a && k < L->hdr_b)
            continue;
        if (ts->t[k].kind != T_IDENT)
            continue;
        const char *p = ts->text + ts->t[k].start;
        size_t l = ts->t[k].end - ts->t[k].start;
        if (l >= 5 && !memcmp(p, "hk_sp", 5))
            return refuse(s, k, "kernel body", EN(RW_TK_SPLIT_NAMES));
        if (!rwl_is_use(ts, k))
            continue;
        if (rwl_tok_is(ts, k, "threadIdx") || rwl_tok_is(ts, k, "blockDim") || rwl_tok_is(ts, k, "gridDim") ||
            rwl_tok_is(ts, k, "warpSize") || rwl_builtin_x(ts, k, "blockIdx"))
            return refuse(s, k, "thread index", EN(RW_TK_OUTSIDE_HEADER), TOK(ts, k));
        if (rwl_tok_is(ts, k, "__syncthreads") || rwl_tok_is(ts, k, "__syncwarp") || rwl_tok_is(ts, k, "__shared__") ||
            (l > 6 && !memcmp(p, "__shfl", 6)) || rwl_tok_is(ts, k, "__ballot_sync") ||
            rwl_tok_is(ts, k, "__any_sync") || rwl_tok_is(ts, k, "__all_sync") || rwl_tok_is(ts, k, "asm") ||
            rwl_tok_is(ts, k, "__activemask"))
            return refuse(s, k, "barrier", EN(RW_TK_BARRIER_WARP_SHARED), TOK(ts, k));
        if (l > 6 && !memcmp(p, "atomic", 6))
            return refuse(s, k, "atomic", EN(RW_TK_EACH_LANE), TOK(ts, k));
    }
    return true;
}

/* Does statement [a, b) store to memory other than a local array, or call a function that
 * may? */
static bool stores(tk_scan *s, size_t a, size_t b, bool before)
{
    const rw_toks *ts = s->ts;
    bool call;
    size_t k = rwg_first_store(ts, a, b, &call);
    if (k < b && call)
        return refuse(s, k, "call", before ? EN(RW_TK_CALL_BEFORE) : EN(RW_TK_CALL_VALUES), TOK(ts, k));
    if (k < b)
        return refuse(s, k, "store", before ? EN(RW_TK_STORE_BEFORE) : EN(RW_TK_STORE_VALUES), TOK(ts, k));
    return true;
}

/* ---- the item loop ---- */

/* `for (TYPE k = A; k < N; ++k | k++ | k += 1) { ... }` at q; false (no refusal) when the
 * statement is not a for loop whose braced body starts with a declaration. */
static bool item_header(const rw_toks *ts, size_t q, tk_loop *L)
{
    if (!rwl_tok_is(ts, q, "for") || !rwl_tok_is(ts, q + 1, "("))
        return false;
    size_t hc = rwl_match_close(ts, q + 1);
    if (hc + 2 >= ts->n || !rwl_tok_is(ts, hc + 1, "{") || !rwl_starts_declaration(ts, hc + 2))
        return false;
    rwg_counted c;
    if (!rwg_counted_header(ts, q, hc, false, &c))
        return false;
    L->ktype_a = c.type_a;
    L->ktype_b = c.type_b;
    L->kv = c.var;
    L->start_a = c.a_a;
    L->start_b = c.a_b;
    L->n_a = c.b_a;
    L->n_b = c.b_b;
    L->l_a = q;
    L->body_a = hc + 1;
    L->body_b = rwl_match_close(ts, hc + 1) + 1;
    L->l_b = L->body_b;
    return L->body_b <= ts->n;
}

/* The declaration of the name at k in [a, b): its type [*ta, *tb) (the statement's leading
 * words up to its first declarator) and initializer [*ia, *ib). */
static bool find_decl(const rw_toks *ts, size_t a, size_t b, size_t k, size_t *ta, size_t *tb, size_t *ia,
                      size_t *ib, size_t *at)
{
    for (size_t q = a; q < b;) {
        size_t e = rwl_stmt_end(ts, q, b);
        if (rwl_starts_declaration(ts, q))
            for (size_t d = q; d + 1 < e; d++) {
                if (rwl_tok_is(ts, d, "(") || rwl_tok_is(ts, d, "[") || rwl_tok_is(ts, d, "{")) {
                    d = rwl_match_close(ts, d);
                    continue;
                }
                if (!rwg_same_name(ts, d, k) || !rwl_declared_here(ts, d))
                    continue;
                if (!rwl_tok_is(ts, d + 1, "="))
                    return false;
                /* the first declarator's name: the word before the statement's first
                 * `=`, `,`, `;` or `[` (`long long i1 = 7`: both longs are the type) */
                size_t f = q;
                while (f < e && !rwl_tok_is(ts, f, "=") && !rwl_tok_is(ts, f, ",") && !rwl_tok_is(ts, f, ";") &&
                       !rwl_tok_is(ts, f, "["))
                    f++;
                if (f == q || f >= e)
                    return false;
                f--;
                while (f > q && rwl_tok_is(ts, f - 1, "*"))
                    f--;
                *ta = q;
                *tb = f;
                size_t z = d + 2;
                while (z < e - 1 && !rwl_tok_is(ts, z, ",")) {
                    if (rwl_tok_is(ts, z, "(") || rwl_tok_is(ts, z, "[") || rwl_tok_is(ts, z, "{"))
                        z = rwl_match_close(ts, z);
                    z++;
                }
                *ia = d + 2;
                *ib = z;
                *at = d;
                return *ib > *ia && *tb > *ta;
            }
        q = e;
    }
    return false;
}

/* The slot a name holds in the symbolic state of a cascade branch. */
typedef struct {
    size_t var;      /* the assigned name's token */
    size_t from;     /* the token whose value it holds: a name of the state, the value or the counter */
} tk_sym;

/* Runs the assignments of a branch [a, b) (`X = Y;` each, X and Y names) on a symbolic
 * state: sym[] holds, per assigned name, the name whose original value it ends with. */
static bool run_branch(tk_scan *s, size_t a, size_t b, tk_sym *sym, size_t *n_sym, size_t room)
{
    const rw_toks *ts = s->ts;
    if (rwl_tok_is(ts, a, "{")) {
        if (rwl_match_close(ts, a) + 1 != b)
            return refuse(s, a, "update", EN(RW_TK_NOT_BRACED));
        a++;
        b--;
    }
    *n_sym = 0;
    for (size_t q = a; q < b;) {
        if (!(q + 3 < b + 1 && ts->t[q].kind == T_IDENT && rwl_tok_is(ts, q + 1, "=") &&
              ts->t[q + 2].kind == T_IDENT && rwl_tok_is(ts, q + 3, ";")))
            return refuse(s, q, "update", EN(RW_TK_NOT_X_EQ_Y));
        size_t from = q + 2;
        for (size_t i = 0; i < *n_sym; i++)
            if (rwg_same_name(ts, sym[i].var, from)) {
                from = sym[i].from;
                break;
            }
        size_t i = 0;
        while (i < *n_sym && !rwg_same_name(ts, sym[i].var, q))
            i++;
        if (i == *n_sym) {
            if (i == room)
                return refuse(s, q, "update", EN(RW_TK_ASSIGNS_MORE), room);
            (*n_sym)++;
        }
        sym[i] = (tk_sym){.var = q, .from = from};
        q += 4;
    }
    return true;
}

static size_t sym_of(const rw_toks *ts, const tk_sym *sym, size_t n, size_t var)
{
    for (size_t i = 0; i < n; i++)
        if (rwg_same_name(ts, sym[i].var, var))
            return sym[i].from;
    return var;   /* unchanged */
}

/* Is the name at k (of tokens ts, the kernel's or a macro's) a macro of the file whose text
 * names a name of the state (a slot's value or index) or assigns -- or again such a macro, up
 * to depth deep? A value reading it reads the state (session 46: `#define B1V best1` in the
 * value applied: each part would compute its items' values against its own state). */
static bool macro_reads_state(const tk_scan *s, const tk_loop *L, const rw_toks *ts, size_t k, int depth)
{
    size_t nl = ts->t[k].end - ts->t[k].start, at = 0, a, b;
    bool bad = false;
    while (!bad && rwl_next_define(s->text, s->len, &at, ts->text + ts->t[k].start, nl, &a, &b)) {
        if (depth <= 0)
            return true;
        rw_toks mt = {0};
        if (rwl_lex(s->text, (uint32_t)(a + nl), (uint32_t)b, &mt) != HK_OK) {
            rwl_toks_free(&mt);
            return true;
        }
        for (size_t q = 0; q < mt.n && !bad; q++) {
            if ((rwl_tok_is_assign_op(&mt, q) && !rwl_tok_is(&mt, q, "==")) || rwl_tok_is(&mt, q, "++") ||
                rwl_tok_is(&mt, q, "--")) {
                bad = true;
                break;
            }
            if (mt.t[q].kind != T_IDENT)
                continue;
            size_t ml = mt.t[q].end - mt.t[q].start;
            for (int j = 0; j < L->K && !bad; j++)
                for (int w = 0; w < 2 && !bad; w++) {
                    size_t v = w ? L->I[j] : L->B[j];
                    bad = s->ts->t[v].end - s->ts->t[v].start == ml &&
                          !memcmp(s->ts->text + s->ts->t[v].start, s->text + mt.t[q].start, ml);
                }
            if (!bad && (ml != nl || memcmp(s->text + mt.t[q].start, ts->text + ts->t[k].start, nl)))
                bad = macro_reads_state(s, L, &mt, q, depth - 1);
        }
        rwl_toks_free(&mt);
    }
    return bad;
}

/* The cascade at c: `if (d < B1) {...} else if (d < B2) {...} ...` (or `B > d`), no final else. */
static bool read_cascade(tk_scan *s, tk_loop *L, size_t c, size_t end)
{
    const rw_toks *ts = s->ts;
    size_t conds[TK_SLOTS], br_a[TK_SLOTS], br_b[TK_SLOTS];
    int K = 0;
    for (size_t q = c;;) {
        if (!rwl_tok_is(ts, q, "if") || !rwl_tok_is(ts, q + 1, "("))
            return refuse(s, q, "update", EN(RW_TK_NOT_CASCADE));
        if (K == TK_SLOTS)
            return refuse(s, q, "update", EN(RW_TK_MORE_SLOTS), TK_SLOTS);
        size_t cc = rwl_match_close(ts, q + 1);
        if (cc != q + 5)
            return refuse(s, q + 2, "comparison", EN(RW_TK_NOT_TWO_NAMES_WHY));
        size_t dd, bb;
        if (rwl_tok_is(ts, q + 3, "<"))
            dd = q + 2, bb = q + 4;
        else if (rwl_tok_is(ts, q + 3, ">"))
            dd = q + 4, bb = q + 2;
        else
            return refuse(s, q + 3, "comparison", EN(RW_TK_NOT_STRICT),
                          TOK(ts, q + 3));
        if (ts->t[dd].kind != T_IDENT || ts->t[bb].kind != T_IDENT)
            return refuse(s, q + 2, "comparison", EN(RW_TK_NOT_TWO_NAMES));
        if (!K)
            L->d = dd;
        else if (!rwg_same_name(ts, dd, L->d))
            return refuse(s, dd, "comparison", EN(RW_TK_COMPARES_NOT_FIRST), TOK(ts, dd),
                          TOK(ts, L->d));
        conds[K] = q;
        L->B[K] = bb;
        br_a[K] = cc + 1;
        br_b[K] = rwl_stmt_end(ts, cc + 1, end);
        K++;
        size_t e = br_b[K - 1];
        if (e >= end)
            break;
        if (!rwl_tok_is(ts, e, "else"))
            return refuse(s, e, "loop body", EN(RW_TK_MORE_AFTER));
        if (!rwl_tok_is(ts, e + 1, "if"))
            return refuse(s, e, "else", EN(RW_TK_FINAL_ELSE));
        q = e + 1;
    }
    if (rwl_stmt_end(ts, c, end) != end)
        return refuse(s, c, "update", EN(RW_TK_NOT_LAST));
    L->K = K;
    bool dval = false;
    for (size_t i = 0; i < L->n_vals; i++)
        dval |= rwg_same_name(ts, L->vals[i], L->d);
    if (!dval)
        return refuse(s, L->d, "comparison", EN(RW_TK_NOT_VALUE_DECL), TOK(ts, L->d));
    /* each branch j: slot j gets (d, k), the slots after it shift down by one */
    tk_sym sym[2 * TK_SLOTS + 2];
    size_t n_sym;
    for (int j = 0; j < K; j++) {
        if (!run_branch(s, br_a[j], br_b[j], sym, &n_sym, HK_ARRAY_LEN(sym)))
            return false;
        size_t idx = SIZE_MAX;
        for (size_t i = 0; i < n_sym; i++)
            if (rwg_same_name(ts, sym[i].from, L->kv)) {
                if (idx != SIZE_MAX)
                    return refuse(s, sym[i].var, "update", EN(RW_TK_COUNTER_TWICE), TOK(ts, L->kv));
                idx = sym[i].var;
            }
        if (idx == SIZE_MAX)
            return refuse(s, conds[j], "update", EN(RW_TK_SLOT_NO_COUNTER), j + 1,
                          TOK(ts, L->kv));
        L->I[j] = idx;
    }
    for (int j = 0; j < K; j++)
        for (int i = 0; i < K; i++) {
            if ((i != j && (rwg_same_name(ts, L->B[i], L->B[j]) || rwg_same_name(ts, L->I[i], L->I[j]))) ||
                rwg_same_name(ts, L->B[i], L->I[j]) || rwg_same_name(ts, L->B[i], L->d) || rwg_same_name(ts, L->B[i], L->kv))
                return refuse(s, conds[j], "update", EN(RW_TK_SLOTS_NOT_DISTINCT));
        }
    for (int j = 0; j < K; j++) {
        if (!run_branch(s, br_a[j], br_b[j], sym, &n_sym, HK_ARRAY_LEN(sym)))
            return false;
        for (size_t i = 0; i < n_sym; i++) {
            bool mine = false;
            for (int t = j; t < K; t++)
                mine |= rwg_same_name(ts, sym[i].var, L->B[t]) || rwg_same_name(ts, sym[i].var, L->I[t]);
            if (!mine && !rwg_same_name(ts, sym[i].from, sym[i].var))
                return refuse(s, sym[i].var, "update", EN(RW_TK_NOT_SLOT_FROM), TOK(ts, sym[i].var), j + 1);
        }
        for (int t = j; t < K; t++) {
            size_t wb = t == j ? L->d : L->B[t - 1], wi = t == j ? L->kv : L->I[t - 1];
            if (!rwg_same_name(ts, sym_of(ts, sym, n_sym, L->B[t]), wb) ||
                !rwg_same_name(ts, sym_of(ts, sym, n_sym, L->I[t]), wi))
                return refuse(s, conds[j], "update", EN(RW_TK_BRANCH_SLOT), j + 1, t + 1,
                              TOK(ts, wb), TOK(ts, wi));
        }
    }
    return true;
}

/* The item loop among the query body's top-level statements, its values and cascade, and
 * the state's declarations before it. */
static bool read_item_loop(tk_scan *s, tk_loop *L)
{
    const rw_toks *ts = s->ts;
    size_t qa = L->qbody_a + 1, qe = L->qbody_b - 1;
    bool found = false;
    for (size_t q = qa; q < qe && !found; q = rwl_stmt_end(ts, q, qe))
        found = item_header(ts, q, L);
    if (!found)
        return refuse(s, L->qbody_a, "query loop", EN(RW_TK_NO_ITEM_LOOP));
    size_t ba = L->body_a + 1, be = L->body_b - 1;
    /* jumps first: an early exit after a count (ball_query) cannot be split */
    for (size_t k = ba; k < be; k++) {
        if (rwl_tok_is(ts, k, "break") && !rwg_in_inner_construct(ts, ba, be, k)) {
            /* the if it ends */
            size_t c = k;
            while (c > ba && !(rwl_tok_is(ts, c, "if") && rwl_stmt_end(ts, c, be) > k))
                c--;
            if (rwl_tok_is(ts, c, "if")) {
                size_t cc = rwl_match_close(ts, c + 1);
                return refuse(s, k, "break", EN(RW_TK_BREAK_COUNT), SPAN(ts, c + 2, cc));
            }
            return refuse(s, k, "break", EN(RW_TK_ENDS_EARLY));
        }
        if (rwl_tok_is(ts, k, "continue") && !rwg_in_inner_construct(ts, ba, be, k))
            return refuse(s, k, "continue", EN(RW_TK_CONTINUE));
        if (rwl_tok_is(ts, k, "return") || rwl_tok_is(ts, k, "goto"))
            return refuse(s, k, "jump", EN(RW_TK_LEAVES), TOK(ts, k));
    }
    /* calls that may write: a heap sifted by a callee (knn's reheap) */
    for (size_t k = ba; k < be; k++)
        if (ts->t[k].kind == T_IDENT && rwl_tok_is(ts, k + 1, "(") && !rwg_is_kw(ts, k) && !rwl_pure_call_name(ts, k) &&
            !rwl_is_type_word(ts, k))
            return refuse(s, k, "call", EN(RW_TK_CALLEE_REORDERS), TOK(ts, k));
    /* the value declarations */
    size_t q = ba;
    while (q < be && rwl_starts_declaration(ts, q)) {
        size_t e = rwl_stmt_end(ts, q, be);
        for (size_t d = q; d < e; d++) {
            if (rwl_tok_is(ts, d, "(") || rwl_tok_is(ts, d, "[") || rwl_tok_is(ts, d, "{")) {
                if (d > q && ts->t[d - 1].kind == T_IDENT && rwl_declared_here(ts, d - 1) && !rwl_tok_is(ts, d, "("))
                    return refuse(s, d, "value declaration", EN(RW_TK_ARRAY_VALUE));
                d = rwl_match_close(ts, d);
                continue;
            }
            if (ts->t[d].kind == T_IDENT && rwl_declared_here(ts, d)) {
                if (L->n_vals == TK_VALUES)
                    return refuse(s, d, "value declaration", EN(RW_TK_MORE_VALUES), TK_VALUES);
                L->vals[L->n_vals++] = d;
            }
        }
        q = e;
    }
    if (q >= be)
        return refuse(s, L->body_a, "item loop", EN(RW_TK_NO_UPDATE));
    if (!read_cascade(s, L, q, be))
        return false;
    /* the values read no state and write nothing */
    for (size_t k = ba; k < q; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
            continue;
        if (rwl_scalar_written(ts, k) && !(rwl_tok_is(ts, k + 1, "=") && rwl_declared_here(ts, k)))
            return refuse(s, k, "value declaration", "writes `%.*s`", TOK(ts, k));
        for (int j = 0; j < L->K; j++)
            if (rwg_same_name(ts, k, L->B[j]) || rwg_same_name(ts, k, L->I[j]))
                return refuse(s, k, "value declaration", EN(RW_TK_READS_STATE_NAME), TOK(ts, k));
        if (!is_param(s, k) && macro_reads_state(s, L, ts, k, 4))
            return refuse(s, k, "value declaration", EN(RW_TK_READS_STATE_NAME), TOK(ts, k));
    }
    if (!stores(s, ba, q, false))
        return false;
    /* the bound and the start read no state */
    for (size_t k = L->n_a; k < L->n_b; k++)
        for (int j = 0; j < L->K; j++)
            if (rwg_same_name(ts, k, L->B[j]) || rwg_same_name(ts, k, L->I[j]))
                return refuse(s, k, "loop bound", EN(RW_TK_READS_STATE));
    /* the state: declared in the query body before the loop, one start for all values and
     * one for all indices, constants or unwritten parameters, never written before the loop */
    char b0[128] = "", i0[128] = "", bt[128] = "", it[128] = "";
    for (int j = 0; j < L->K; j++)
        for (int w = 0; w < 2; w++) {
            size_t v = w ? L->I[j] : L->B[j], ta, tb, ia, ib, at;
            if (!find_decl(ts, qa, L->l_a, v, &ta, &tb, &ia, &ib, &at))
                return refuse(s, v, "state", EN(RW_TK_NO_START_VALUE), TOK(ts, v));
            for (size_t k = ia; k < ib; k++) {
                if (rwl_tok_is(ts, k, "[") || (ts->t[k].kind == T_IDENT && !is_param(s, k)) ||
                    (ts->t[k].kind == T_IDENT && written_anywhere(ts, k)))
                    return refuse(s, at, "state", EN(RW_TK_START_NOT_CONST), TOK(ts, v),
                                  SPAN(ts, ia, ib));
            }
            char init[128], type[128];
            rwg_compact(ts, ia, ib, init, sizeof init);
            rwg_compact(ts, ta, tb, type, sizeof type);
            char *want = w ? i0 : b0, *wt = w ? it : bt;
            if (!want[0]) {
                snprintf(want, 128, "%s", init);
                snprintf(wt, 128, "%s", type);
                if (w)
                    L->i_type_a = ta, L->i_type_b = tb;
                else
                    L->b_type_a = ta, L->b_type_b = tb;
            } else if (strcmp(want, init) || strcmp(wt, type))
                return refuse(s, at, "state", EN(RW_TK_START_NOT_FIRST), TOK(ts, v), wt, want);
            for (size_t k = ib; k < L->l_a; k++)
                if (rwg_is_name(ts, k, v) && rwl_scalar_written(ts, k))
                    return refuse(s, k, "state", EN(RW_TK_WRITTEN_BEFORE), TOK(ts, v));
        }
    /* the value's type: the state's own, or double (the comparison and the store then
     * convert it alike, exactly) */
    size_t ta, tb, ia, ib, at;
    size_t dd = SIZE_MAX;
    for (size_t i = 0; i < L->n_vals; i++)
        if (rwg_same_name(ts, L->vals[i], L->d))
            dd = L->vals[i];
    if (!find_decl(ts, ba, q, dd, &ta, &tb, &ia, &ib, &at))
        return refuse(s, dd, "value declaration", EN(RW_TK_NO_INIT), TOK(ts, dd));
    L->d_type_a = ta;
    L->d_type_b = tb;
    char dt[128];
    rwg_compact(ts, ta, tb, dt, sizeof dt);
    const char *dtn = strncmp(dt, "const", 5) ? dt : dt + 5;
    if (strcmp(bt, "double") && strcmp(bt, dtn))
        return refuse(s, L->B[0], "state", EN(RW_TK_TYPE_DIFFERS), TOK(ts, L->B[0]), bt, TOK(ts, L->d), dtn);
    char kt[128];
    rwg_compact(ts, L->ktype_a, L->ktype_b, kt, sizeof kt);
    if (strcmp(it, kt) && !(!strcmp(kt, "int") && (!strcmp(it, "long") || !strcmp(it, "longlong"))))
        return refuse(s, L->I[0], "state", EN(RW_TK_INDEX_TYPE), TOK(ts, L->I[0]), it, kt);
    return true;
}

/* The query body around the item loop: nothing before it stores, returns other than
 * `if (C) return;` or leaves the query; nothing after it leaves the query. */
static bool check_query_body(tk_scan *s, const tk_loop *L)
{
    const rw_toks *ts = s->ts;
    size_t qa = L->qbody_a + 1, qe = L->qbody_b - 1;
    for (size_t q = qa; q < L->l_a;) {
        size_t e = rwl_stmt_end(ts, q, L->l_a);
        bool ret = rwl_tok_is(ts, q, "if") && rwl_tok_is(ts, rwl_match_close(ts, q + 1) + 1, "return") &&
                   rwl_match_close(ts, q + 1) + 3 == e;
        if (ret) {
            for (size_t k = q + 2; k < rwl_match_close(ts, q + 1); k++)
                if (rwl_tok_is(ts, k, "[") || (rwl_tok_is(ts, k, "*") && rwl_unary_position(ts, k)) ||
                    (ts->t[k].kind == T_IDENT && rwl_tok_is(ts, k + 1, "(") && !rwl_pure_call_name(ts, k)))
                    return refuse(s, k, "return", EN(RW_TK_COND_READS_MEM));
        } else
            for (size_t k = q; k < e; k++)
                if ((rwl_tok_is(ts, k, "return") || rwl_tok_is(ts, k, "goto") ||
                     ((rwl_tok_is(ts, k, "break") || rwl_tok_is(ts, k, "continue")) &&
                      !rwg_in_inner_construct(ts, q, e, k))))
                    return refuse(s, k, "jump", EN(RW_TK_JUMP_BEFORE), TOK(ts, k));
        if (!stores(s, q, e, true))
            return false;
        q = e;
    }
    for (size_t k = L->l_b; k < qe; k++)
        if (rwl_tok_is(ts, k, "return") || rwl_tok_is(ts, k, "goto") ||
            ((rwl_tok_is(ts, k, "break") || rwl_tok_is(ts, k, "continue")) && !rwg_in_inner_construct(ts, L->l_b, qe, k)))
            return refuse(s, k, "jump", EN(RW_TK_JUMP_AFTER), TOK(ts, k));
    for (size_t k = qa; k < qe; k++)
        if (ts->t[k].kind == T_IDENT && rwl_is_use(ts, k) && rwl_tok_is(ts, k, L->qh.var) && rwl_scalar_written(ts, k))
            return refuse(s, k, "query loop", EN(RW_TK_COUNTER_WRITTEN), L->qh.var);
    return true;
}

/* ---- the guarded form: an item loop `{ VALUES; if (C) S }` whose update is not a cascade
 * (knn's heap sifted by a callee, ball_query's count with its break, `<=` ties) ----
 *
 * Why it is exact. The original runs, for k = A, A + 1, ...: VALUES(k); if C(k, state) then
 * S(k) (which may end the scan by a break). Group the items P at a time; lane p of the query
 * computes VALUES(g + p), which read nothing the loop body writes (rw_scan_read_item_loop),
 * so they are the values the original computes at that item whatever updates came before.
 * With the state as it stands after the items up to `from - 1`, the first lane j >= from
 * whose C holds is the next item the original updates: every item between has C false on
 * that same state (C is pure: it writes nothing, calls nothing that may write, reads only
 * the values, names and local arrays), so the original leaves the state as it is there.
 * Every lane then runs S(g + j) on lane j's values (shuffled, the same bits) and counter;
 * the lanes' states were equal before, so they are equal after: the state goes through the
 * original's updates in the original's order, in every lane. C is asked again on the new
 * state for the lanes after j. A break of S ends the scan for all the query's lanes at the
 * same item. Memory S stores to gets the same values in the same order from each lane; S
 * and C read no memory but the lane's own arrays, so no lane sees another's stores early,
 * the last store to each place is the sequential last value, and a __syncwarp over the
 * query's lanes after the loop makes the stores seen by what follows (part 0 runs it). Callees of S touch only
 * the lane's own arrays and scalars (no pointer of the kernel is handed to them, no
 * __device__ variable exists, no atomic, barrier, warp operation or thread index). */

#define TK_CALL_DEPTH 4

typedef struct {
    rw_scan_loop sl;
    size_t n_conds;
    size_t cond_a[TK_VALUES], cond_b[TK_VALUES];   /* each guard's tokens inside its parens */
    size_t shfl[RW_SCAN_VALUES];                    /* values the update statement reads */
    size_t n_shfl;
} tk_guard;

/* Is the name at k declared as a pointer in the kernel body (`const T *p = ...`)? */
static bool local_pointer(const rw_toks *ts, size_t k)
{
    for (size_t q = 2; q + 1 < ts->n; q++)
        if (rwg_same_name(ts, q, k) && rwl_tok_is(ts, q - 1, "*") && rwl_declared_here(ts, q))
            return true;
    return false;
}

/* Does the file declare a `__device__` (or `__managed__`) variable: a declaration whose
 * `__device__` is followed by `;`, `=` or `[` before any `(`? */
static int file_has_device_variable(const char *text, size_t len, bool *has)
{
    rw_toks ft = {0};
    int rc = rwl_lex(text, 0, (uint32_t)len, &ft);
    *has = false;
    for (size_t k = 0; !rc && k < ft.n && !*has; k++) {
        if (rwl_tok_is(&ft, k, "__managed__")) {
            *has = true;
            break;
        }
        if (!rwl_tok_is(&ft, k, "__device__"))
            continue;
        for (size_t q = k + 1; q < ft.n; q++) {
            if (rwl_tok_is(&ft, q, "(") || rwl_tok_is(&ft, q, "{"))
                break;
            if (rwl_tok_is(&ft, q, ";") || rwl_tok_is(&ft, q, "=") || rwl_tok_is(&ft, q, "[")) {
                *has = true;
                break;
            }
        }
    }
    rwl_toks_free(&ft);
    return rc;
}

/* What a callee of the update may not hold: each lane runs it. */
static bool lane_unsafe(const rw_toks *ts, size_t k)
{
    const char *p = ts->text + ts->t[k].start;
    size_t l = ts->t[k].end - ts->t[k].start;
    static const char *const words[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "__shared__",
                                        "volatile", "asm", "printf", "__syncthreads", "__syncwarp", "__activemask",
                                        "__ballot_sync", "__any_sync", "__all_sync", "__threadfence", "__trap",
                                        "clock", "clock64", "__nanosleep"};
    for (size_t i = 0; i < HK_ARRAY_LEN(words); i++)
        if (rwl_tok_is(ts, k, words[i]))
            return true;
    return (l > 6 && (!memcmp(p, "atomic", 6) || !memcmp(p, "__shfl", 6))) || (l > 13 && !memcmp(p, "__syncthreads", 13));
}

/* Checks the callee g of the update (the call's name at token at of the kernel's ts): no
 * lane-unsafe construct, calls only pure functions or functions of the file that qualify,
 * up to TK_CALL_DEPTH deep. */
static bool callee_ok(tk_scan *s, const an_model *m, const an_function *g, size_t at, int depth)
{
    const rw_toks *ts = s->ts;
    if (depth > TK_CALL_DEPTH)
        return refuse(s, at, "call", EN(RW_TK_G_CALL_DEPTH), TOK(ts, at), TK_CALL_DEPTH);
    rw_toks gt = {0};
    if (rwl_lex(s->text, g->body_span.start_byte, g->body_span.end_byte, &gt)) {
        s->oom = true;
        return false;
    }
    bool ok = true;
    for (size_t k = 0; ok && k < gt.n; k++) {
        if (gt.t[k].kind != T_IDENT)
            continue;
        if (lane_unsafe(&gt, k)) {
            ok = refuse(s, at, "call", EN(RW_TK_G_CALLEE_DOES), (int)strlen(g->name), g->name, TOK(&gt, k));
            break;
        }
        if (!rwl_tok_is(&gt, k + 1, "(") || rwg_is_kw(&gt, k) || rwl_is_type_word(&gt, k) || rwl_pure_call_name(&gt, k))
            continue;
        const an_function *h = rwl_callee(m, g, &gt, k);
        if (!h)
            ok = refuse(s, at, "call", EN(RW_TK_G_CALLEE_DOES), (int)strlen(g->name), g->name, TOK(&gt, k));
        else
            ok = callee_ok(s, m, h, at, depth + 1);
    }
    rwl_toks_free(&gt);
    return ok;
}

/* The if chain at [a, b): its guards into G; false with a refusal when it is not one. */
static bool read_guards(tk_scan *s, tk_guard *G, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    if (!rwl_tok_is(ts, a, "if") || !rwl_tok_is(ts, a + 1, "(") || rwl_stmt_end(ts, a, b) != b)
        return refuse(s, a, "update", EN(RW_TK_G_NOT_IF));
    for (size_t q = a;;) {
        if (!rwl_tok_is(ts, q, "if") || !rwl_tok_is(ts, q + 1, "("))
            return refuse(s, q, "else", EN(RW_TK_G_ELSE));
        if (G->n_conds == TK_VALUES)
            return refuse(s, q, "update", EN(RW_TK_MORE_SLOTS), TK_VALUES);
        size_t cc = rwl_match_close(ts, q + 1);
        if (cc >= b)
            return refuse(s, q, "update", EN(RW_TK_G_NOT_IF));
        G->cond_a[G->n_conds] = q + 2;
        G->cond_b[G->n_conds] = cc;
        G->n_conds++;
        size_t e = rwl_stmt_end(ts, cc + 1, b);
        if (e >= b)
            break;
        if (!rwl_tok_is(ts, e, "else"))
            return refuse(s, e, "update", EN(RW_TK_G_NOT_IF));
        q = e + 1;
    }
    /* the guards are pure: asked again for every item still ahead */
    for (size_t c = 0; c < G->n_conds; c++)
        for (size_t k = G->cond_a[c]; k < G->cond_b[c]; k++) {
            if (rwl_tok_is_assign_op(ts, k) || rwl_tok_is(ts, k, "++") || rwl_tok_is(ts, k, "--"))
                return refuse(s, k, "guard", EN(RW_TK_G_COND_WRITES), TOK(ts, k));
            if (ts->t[k].kind == T_IDENT && rwl_tok_is(ts, k + 1, "(") && !rwl_pure_call_name(ts, k) &&
                !rwl_is_type_word(ts, k) && !rwg_is_kw(ts, k))
                return refuse(s, k, "guard", EN(RW_TK_G_COND_CALLS), TOK(ts, k));
            if (rwl_tok_is(ts, k, "->") || (rwl_tok_is(ts, k, "*") && rwl_unary_position(ts, k)) ||
                (rwl_tok_is(ts, k, "[") && !(k > 0 && ts->t[k - 1].kind == T_IDENT && rwg_local_array(ts, k - 1))))
                return refuse(s, k, "guard", EN(RW_TK_G_COND_MEMORY), TOK(ts, k > 0 ? k - 1 : k));
        }
    return true;
}

/* The update statement [a, b): no jump out but its break and continue, memory read only
 * from buffers the kernel never writes, calls only to functions of the file that touch
 * the lane's own memory. */
static bool check_update(tk_scan *s, const an_model *m, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    bool has_call = false;
    size_t call_at = 0;
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is(ts, k, "return") || rwl_tok_is(ts, k, "goto"))
            return refuse(s, k, "jump", EN(RW_TK_LEAVES), TOK(ts, k));
        if (rwl_tok_is(ts, k, "switch"))
            return refuse(s, k, "switch", EN(RW_TK_G_SWITCH));
        if (rwl_tok_is(ts, k, "->") || (rwl_tok_is(ts, k, "*") && rwl_unary_position(ts, k)))
            return refuse(s, k, "update", EN(RW_TK_G_DEREF), TOK(ts, k));
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
            continue;
        if (rwl_tok_is(ts, k + 1, "[") && !rwg_local_array(ts, k)) {
            size_t cb = rwl_match_close(ts, k + 1);
            bool store = rwl_occurrence_writes(ts, k);
            if (store && cb + 1 < ts->n && !rwl_tok_is(ts, cb + 1, "=") &&
                (rwl_tok_is_assign_op(ts, cb + 1) || rwl_tok_is(ts, cb + 1, "++") || rwl_tok_is(ts, cb + 1, "--")))
                return refuse(s, k, "update", EN(RW_TK_G_RMW), TOK(ts, k));
            if (store && k > 0 && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--")))
                return refuse(s, k, "update", EN(RW_TK_G_RMW), TOK(ts, k));
            /* a read: the lanes are not in step between two ballots, so a lane may read a
             * place another lane has already stored to a later value (a store through a
             * local pointer may reach any buffer): the update reads the lane's own arrays only */
            if (!store)
                return refuse(s, k, "update", EN(RW_TK_G_READS_WRITTEN), TOK(ts, k));
        }
        if (!rwl_tok_is(ts, k + 1, "(") || rwg_is_kw(ts, k) || rwl_is_type_word(ts, k) || rwl_pure_call_name(ts, k))
            continue;
        const an_function *g = rwl_callee(m, s->f, ts, k);
        if (!g)
            return refuse(s, k, "call", EN(RW_TK_G_NO_CALLEE), TOK(ts, k));
        size_t cc = rwl_match_close(ts, k + 1);
        for (size_t q = k + 2; q < cc; q++) {
            if (ts->t[q].kind != T_IDENT || !rwl_is_use(ts, q))
                continue;
            const an_param *p = rwp_param_named(s->f, s->ts, q);
            if ((p && p->pointer_depth > 0) || (!p && local_pointer(ts, q)))
                return refuse(s, q, "call", EN(RW_TK_G_CALL_POINTER), TOK(ts, q), TOK(ts, k));
        }
        if (!callee_ok(s, m, g, k, 1))
            return false;
        if (!has_call)
            call_at = k;
        has_call = true;
    }
    if (has_call) {
        bool dv;
        if (file_has_device_variable(s->text, s->len, &dv)) {
            s->oom = true;
            return false;
        }
        if (dv)
            return refuse(s, call_at, "call", EN(RW_TK_G_DEVICE_VAR), TOK(ts, call_at));
    }
    return true;
}

/* Is the type [a, b) (compacted) one a warp shuffle carries: an arithmetic builtin or a
 * template type parameter of the kernel (instantiated with one)? */
static bool shuffle_type(const tk_scan *s, size_t a, size_t b, char *out, size_t n)
{
    const rw_toks *ts = s->ts;
    if (a < b && rwl_tok_is(ts, a, "const"))
        a++;
    rwg_compact(ts, a, b, out, n);
    static const char *const ok[] = {"float", "double", "int", "unsigned", "unsignedint", "long", "longlong",
                                     "unsignedlong", "unsignedlonglong", "longint", "int32_t", "uint32_t",
                                     "int64_t", "uint64_t", "size_t"};
    if (rwg_one_of(out, ok, HK_ARRAY_LEN(ok)))
        return true;
    if (b != a + 1 || ts->t[a].kind != T_IDENT || !s->f->template_params)
        return false;
    /* `typename T` or `class T` in the kernel's template line */
    const char *tp = s->f->template_params;
    size_t l = ts->t[a].end - ts->t[a].start;
    for (const char *p = tp; (p = strstr(p, out)); p += l) {
        bool start = p == tp || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                                  (p[-1] >= '0' && p[-1] <= '9'));
        char e = p[l];
        bool end = !(e == '_' || (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9'));
        if (!start || !end)
            continue;
        const char *w = p;
        while (w > tp && w[-1] == ' ')
            w--;
        if ((w - tp >= 8 && !memcmp(w - 8, "typename", 8)) || (w - tp >= 5 && !memcmp(w - 5, "class", 5)))
            return true;
    }
    return false;
}

static bool read_guarded(tk_scan *s, const an_model *m, tk_loop *L, tk_guard *G, bool hip)
{
    const rw_toks *ts = s->ts;
    size_t qa = L->qbody_a + 1, qe = L->qbody_b - 1;
    bool found = false;
    for (size_t q = qa; q < qe && !found; q = rwl_stmt_end(ts, q, qe))
        found = item_header(ts, q, L);
    if (!found)
        return refuse(s, L->qbody_a, "query loop", EN(RW_TK_NO_ITEM_LOOP));
    if (hip)
        return refuse(s, L->l_a, "item loop", EN(RW_TK_G_HIP));
    if (!rw_scan_read_item_loop(s->text, ts, s->f, L->l_a, false, &G->sl, s->why, sizeof s->why))
        return false;
    if (G->sl.upd_b != G->sl.body_b - 1)
        return refuse(s, G->sl.upd_a, "update", EN(RW_TK_G_NESTED));
    if (!read_guards(s, G, G->sl.upd_a, G->sl.upd_b) || !check_update(s, m, G->sl.upd_a, G->sl.upd_b))
        return false;
    for (size_t i = 0; i < G->sl.n_values; i++) {
        bool used = false;
        for (size_t k = G->sl.upd_a; k < G->sl.upd_b && !used; k++)
            used = rwg_is_name(ts, k, G->sl.value_name[i]);
        if (!used)
            continue;
        char ty[128];
        if (!shuffle_type(s, G->sl.value_type_a[i], G->sl.value_type_b[i], ty, sizeof ty))
            return refuse(s, G->sl.value_name[i], "value declaration", EN(RW_TK_G_VALUE_TYPE),
                          TOK(ts, G->sl.value_name[i]), ty);
        G->shfl[G->n_shfl++] = i;
    }
    return true;
}

/* The update statement's text with the item loop's own break and continue turned into
 * exits of the `do { } while (0)` it runs in. */
static int append_update(struct hk_buf *o, const tk_scan *s, const tk_guard *G)
{
    const rw_toks *ts = s->ts;
    size_t a = G->sl.upd_a, b = G->sl.upd_b;
    uint32_t at = ts->t[a].start;
    int rc = HK_OK;
    for (size_t k = a; k < b && !rc; k++) {
        bool brk = rwl_tok_is(ts, k, "break"), cont = rwl_tok_is(ts, k, "continue");
        if ((!brk && !cont) || rwg_in_inner_construct(ts, a, b, k))
            continue;
        rc = hk_buf_printf(o, "%.*s%s", (int)(ts->t[k].start - at), s->text + at,
                           brk ? "{ hk_sp_stop = true; break; }" : "break /* the item's continue */"); /* i18n: not for people */
        at = ts->t[k].end;
        if (!rc && brk && k + 1 < b && rwl_tok_is(ts, k + 1, ";"))
            at = ts->t[++k].end;   /* the block replaces `break;` */
    }
    if (!rc)
        rc = hk_buf_printf(o, "%.*s", (int)(ts->t[b - 1].end - at), s->text + at);
    return rc;
}

/* ---- the guards' reads of a local array at a literal index (knn's `d2 < best_dist[0]`):
 * kept in a register across the groups, as register_threshold keeps them in its loop.
 * Why the same: within the item loop the state is written only by the update S (the values
 * read nothing the body writes and call only functions that write their own locals, the
 * guards write nothing: rw_scan_read_item_loop, read_guards), S runs only in the replay
 * block, and the copy is read again right after it; before the first ballot it is read
 * where the item loop started. So every ballot sees A[c]'s current value, bit for bit, in
 * every lane. The original reloads it (an LDL a group: the array is local memory once a
 * callee indexes it at run time), on the chain of every group of items. ---- */

#define TK_CACHED 4

typedef struct {
    size_t name[TK_CACHED], index[TK_CACHED];   /* A's token and the literal's, per read */
    size_t n;
} tk_cached;

/* Is the name at k one plain local array of the kernel body, declared once, with one
 * dimension (its literal size in *size, else -1)? */
static bool local_array(const rw_toks *ts, size_t k, long *size)
{
    size_t found = SIZE_MAX;
    for (size_t d = 1; d + 1 < ts->n; d++) {
        if (!rwg_same_name(ts, d, k) || !rwl_tok_is(ts, d + 1, "[") || !rwl_declared_here(ts, d))
            continue;
        if (found != SIZE_MAX)
            return false;   /* two declarations: which one a read names is a scope question */
        found = d;
    }
    if (found == SIZE_MAX)
        return false;
    size_t d = found, sa = d;
    while (sa > 1 && !rwl_tok_is(ts, sa - 1, ";") && !rwl_tok_is(ts, sa - 1, "{") && !rwl_tok_is(ts, sa - 1, "}"))
        sa--;
    for (size_t i = sa; i < d; i++)
        if (rwl_tok_is(ts, i, "__shared__") || rwl_tok_is(ts, i, "static") || rwl_tok_is(ts, i, "extern") ||
            rwl_tok_is(ts, i, "volatile") || rwl_tok_is(ts, i, "__constant__") || rwl_tok_is(ts, i, "(") ||
            rwl_tok_is(ts, i, "typedef") || rwl_tok_is(ts, i, "*") || rwl_tok_is(ts, i, "&"))
            return false;
    size_t close = rwl_match_close(ts, d + 1);
    if (close + 1 >= ts->n || rwl_tok_is(ts, close + 1, "["))
        return false;
    *size = -1;
    if (close == d + 3 && ts->t[d + 2].kind == T_NUMBER)
        *size = strtol(ts->text + ts->t[d + 2].start, NULL, 10);
    return true;
}

/* Are the tokens at a and b the same text? */
static bool same_token(const rw_toks *ts, size_t a, size_t b)
{
    size_t l = ts->t[a].end - ts->t[a].start;
    return l == ts->t[b].end - ts->t[b].start && !memcmp(ts->text + ts->t[a].start, ts->text + ts->t[b].start, l);
}

/* The guards' reads `A[c]` (c a decimal literal within A) of local arrays the values do not
 * name; at most TK_CACHED, the rest stay as written. */
static void cached_reads(const tk_scan *s, const tk_guard *G, tk_cached *C)
{
    const rw_toks *ts = s->ts;
    C->n = 0;
    for (size_t c = 0; c < G->n_conds; c++)
        for (size_t k = G->cond_a[c]; k + 3 < G->cond_b[c] + 1 && C->n < TK_CACHED; k++) {
            if (ts->t[k].kind != T_IDENT || !rwl_tok_is(ts, k + 1, "[") || ts->t[k + 2].kind != T_NUMBER ||
                !rwl_tok_is(ts, k + 3, "]") || k + 3 >= G->cond_b[c])
                continue;
            if (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->") || rwl_tok_is(ts, k - 1, "::") ||
                rwl_tok_is(ts, k - 1, "&"))
                continue;
            const char *lit = ts->text + ts->t[k + 2].start;
            size_t ll = ts->t[k + 2].end - ts->t[k + 2].start;
            bool digits = ll > 0 && ll < 10 && (ll == 1 || lit[0] != '0');
            for (size_t i = 0; i < ll && digits; i++)
                digits = lit[i] >= '0' && lit[i] <= '9';
            long size;
            if (!digits || !local_array(ts, k, &size) || (size >= 0 && strtol(lit, NULL, 10) >= size))
                continue;
            bool named = false;   /* by a value: it stays as written */
            for (size_t v = G->sl.body_a + 1; v < G->sl.upd_a && !named; v++)
                named = rwg_same_name(ts, v, k);
            bool seen = false;
            for (size_t i = 0; i < C->n && !seen; i++)
                seen = rwg_same_name(ts, C->name[i], k) && same_token(ts, C->index[i], k + 2);
            if (named || seen)
                continue;
            C->name[C->n] = k;
            C->index[C->n++] = k + 2;
        }
}

/* Which cached read starts at token k, or -1. */
static int cached_at(const rw_toks *ts, const tk_cached *C, size_t k)
{
    if (ts->t[k].kind != T_IDENT || k + 3 >= ts->n || !rwl_tok_is(ts, k + 1, "[") ||
        !rwl_tok_is(ts, k + 3, "]") || rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->") ||
        rwl_tok_is(ts, k - 1, "::") || rwl_tok_is(ts, k - 1, "&"))
        return -1;
    for (size_t i = 0; i < C->n; i++)
        if (rwg_same_name(ts, C->name[i], k) && same_token(ts, C->index[i], k + 2))
            return (int)i;
    return -1;
}

/* The guard's text [a, b) with every cached read as its register, spacing kept. */
static int append_cond(struct hk_buf *o, const tk_scan *s, const tk_cached *C, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    uint32_t at = ts->t[a].start;
    int rc = HK_OK;
    for (size_t k = a; k + 3 < b && !rc; k++) {
        int i = cached_at(ts, C, k);
        if (i < 0)
            continue;
        rc = hk_buf_printf(o, "%.*shk_sp_r%d", (int)(ts->t[k].start - at), s->text + at, i); /* i18n: not for people */
        at = ts->t[k + 3].end;
        k += 3;
    }
    if (!rc)
        rc = hk_buf_printf(o, "%.*s", (int)(ts->t[b - 1].end - at), s->text + at);
    return rc;
}

/* The mask of a query's P lanes at lane 0 of its group: P low bits (a shift by 32 would be
 * undefined, so a warp's 32 lanes are written out). */
static const char *lanes_mask(int P)
{
    switch (P) {
    case 2: return "((1u << 2) - 1u)";      /* i18n: not for people */
    case 4: return "((1u << 4) - 1u)";      /* i18n: not for people */
    case 8: return "((1u << 8) - 1u)";      /* i18n: not for people */
    case 16: return "((1u << 16) - 1u)";    /* i18n: not for people */
    default: return "0xffffffffu";          /* i18n: not for people */
    }
}

static int emit_guarded(const tk_scan *s, const tk_loop *L, const tk_guard *G, int P, struct hk_buf *o)
{
    const rw_toks *ts = s->ts;
    const rw_scan_loop *sl = &G->sl;
    tk_cached C;
    cached_reads(s, G, &C);
    /* the copies, read where the item loop started, and their refresh after an update */
    struct hk_buf cache, refresh;
    hk_buf_init(&cache, RW_TEXT_MAX);
    hk_buf_init(&refresh, RW_TEXT_MAX);
    int rc = HK_OK;
    for (size_t i = 0; i < C.n && !rc; i++) {
        rc = hk_buf_printf(&cache, "    auto hk_sp_r%zu = %.*s[%.*s];   " /* i18n: not for people */
                                   "/* the guard's read, in a register: read again after every update */\n",
                           i, TOK(ts, C.name[i]), TOK(ts, C.index[i]));
        if (!rc)
            rc = hk_buf_printf(&refresh, "                hk_sp_r%zu = %.*s[%.*s];\n", i, TOK(ts, C.name[i]), /* i18n: not for people */
                               TOK(ts, C.index[i]));
    }
    if (rc)
        goto out;
    rc = hk_buf_printf(o, "{   /* hk: split_topk_scan, guarded form: the items in groups of %d, one a lane; " /* i18n: not for people */
                              "the lanes whose guard holds on the state as it stands, by ballot, first one first; "
                              "every lane runs that item's update on its values (shuffled) */\n"
                              "    const unsigned hk_sp_lane = (threadIdx.x + blockDim.x * (threadIdx.y + "
                              "blockDim.y * threadIdx.z)) %% 32u;\n"
                              "    const unsigned hk_sp_base = hk_sp_np > 1 ? (hk_sp_lane & ~%du) : hk_sp_lane;\n"
                              "    const unsigned hk_sp_gm = (hk_sp_np > 1 ? %s : 1u) << hk_sp_base;\n"
                              "    bool hk_sp_stop = false;\n"
                              "%s"
                              "    /* an item is in range when the original's test `k < N` holds for it in the counter's\n"
                              "     * own type (and the counter holds it): the same comparison, signedness included */\n"
                              "    for (long long hk_sp_g = (long long)(%.*s)(%.*s); hk_sp_part < hk_sp_np && !hk_sp_stop && "
                              "hk_sp_g == (long long)(%.*s)hk_sp_g && (%.*s)hk_sp_g < (%.*s); hk_sp_g += hk_sp_np) {\n"
                              "        const long long hk_sp_kk = hk_sp_g + hk_sp_part;\n"
                              "        const bool hk_sp_in = hk_sp_kk == (long long)(%.*s)hk_sp_kk && (%.*s)hk_sp_kk < (%.*s);\n"
                              "        %.*s %.*s = (%.*s)(hk_sp_in ? hk_sp_kk : hk_sp_g);\n        ",
                           P, P - 1, lanes_mask(P), cache.data ? cache.data : "", SPAN(ts, sl->type_a, sl->type_b),
                           SPAN(ts, sl->start_a, sl->start_b),
                           SPAN(ts, sl->type_a, sl->type_b), SPAN(ts, sl->type_a, sl->type_b), SPAN(ts, sl->n_a, sl->n_b),
                           SPAN(ts, sl->type_a, sl->type_b), SPAN(ts, sl->type_a, sl->type_b), SPAN(ts, sl->n_a, sl->n_b),
                           SPAN(ts, sl->type_a, sl->type_b), TOK(ts, sl->v), SPAN(ts, sl->type_a, sl->type_b));
    if (!rc)
        rc = hk_buf_printf(o, "%.*s\n", (int)(ts->t[sl->upd_a - 1].end - ts->t[sl->body_a + 1].start),
                           ts->text + ts->t[sl->body_a + 1].start);
    if (!rc)
        rc = hk_buf_printf(o, "        for (int hk_sp_from = 0;;) {\n" /* i18n: not for people */
                              "            const unsigned hk_sp_hit = __ballot_sync(hk_sp_gm, hk_sp_in && "
                              "hk_sp_part >= hk_sp_from && (");
    for (size_t c = 0; c < G->n_conds && !rc; c++) {
        rc = hk_buf_printf(o, "%s(", c ? " || " : "");
        if (!rc)
            rc = append_cond(o, s, &C, G->cond_a[c], G->cond_b[c]);
        if (!rc)
            rc = hk_buf_printf(o, ")");
    }
    if (!rc)
        rc = hk_buf_printf(o, ")) >> hk_sp_base & %s;\n" /* i18n: not for people */
                              "            if (!hk_sp_hit)\n"
                              "                break;\n"
                              "            const int hk_sp_j = __ffs((int)hk_sp_hit) - 1;\n",
                           P < 32 ? "((1u << hk_sp_np) - 1u)" : "(hk_sp_np > 1 ? 0xffffffffu : 1u)");
    for (size_t i = 0; i < G->n_shfl && !rc; i++) {
        size_t v = G->shfl[i], ta = sl->value_type_a[v];
        if (rwl_tok_is(ts, ta, "const"))
            ta++;
        rc = hk_buf_printf(o, "            const %.*s hk_sp_v%zu = __shfl_sync(hk_sp_gm, %.*s, (int)(hk_sp_base + hk_sp_j));\n",
                           SPAN(ts, ta, sl->value_type_b[v]), i, TOK(ts, sl->value_name[v]));
    }
    if (!rc)
        rc = hk_buf_printf(o, "            {\n                %.*s %.*s = (%.*s)(hk_sp_g + hk_sp_j);\n",
                           SPAN(ts, sl->type_a, sl->type_b), TOK(ts, sl->v), SPAN(ts, sl->type_a, sl->type_b));
    for (size_t i = 0; i < G->n_shfl && !rc; i++) {
        size_t v = G->shfl[i];
        rc = hk_buf_printf(o, "                %.*s %.*s = hk_sp_v%zu;\n", SPAN(ts, sl->value_type_a[v], sl->value_type_b[v]),
                           TOK(ts, sl->value_name[v]), i);
    }
    if (!rc)
        rc = hk_buf_printf(o, "                do {\n                    ");
    if (!rc)
        rc = append_update(o, s, G);
    if (!rc)
        rc = hk_buf_printf(o, "\n                } while (0);\n%s" /* i18n: not for people */
                              "            }\n"
                              "            if (hk_sp_stop)\n"
                              "                break;\n"
                              "            hk_sp_from = hk_sp_j + 1;\n"
                              "        }\n"
                              "    }\n"
                              "    __syncwarp(hk_sp_gm);   /* the lanes' stores seen by what follows (part 0) */\n"
                              "}", refresh.data ? refresh.data : "");
    (void)L;
out:
    hk_buf_free(&cache);
    hk_buf_free(&refresh);
    return rc;
}

/* ---- the text ---- */

static const char merge_helper[] =
    "/* hk: split_topk_scan: the lane's sorted top-K list (values v, indices ix) merged with its\n" /* i18n: not for people */
    " * partner's (the lane `off` away in the mask) into the K first by (value, lower index): each\n"
    " * entry's rank is its place in its own list plus the entries of the other list before it; both\n"
    " * lanes get the same list (entries of two parts never tie; sentinels are all alike). */\n"
    "template <int K, typename V, typename I>\n"
    "static __device__ __forceinline__ void hk_sp_merge(V *v, I *ix, unsigned mask, int off, int width)\n"
    "{\n"
    "    V ov[K], nv[K];\n"
    "    I oi[K], ni[K];\n"
    "    int pa[K], pb[K];\n"
    "#pragma unroll\n"
    "    for (int s = 0; s < K; s++) {\n"
    "$SHFL"
    "        pa[s] = s;\n"
    "        pb[s] = s;\n"
    "    }\n"
    "#pragma unroll\n"
    "    for (int s = 0; s < K; s++) {\n"
    "#pragma unroll\n"
    "        for (int t = 0; t < K; t++) {\n"
    "            const bool b_first = ov[t] < v[s] || (ov[t] == v[s] && oi[t] < ix[s]);\n"
    "            pa[s] += b_first;\n"
    "            pb[t] += !b_first;\n"
    "        }\n"
    "    }\n"
    "#pragma unroll\n"
    "    for (int r = 0; r < K; r++) {\n"
    "        nv[r] = v[0];\n"
    "        ni[r] = ix[0];\n"
    "#pragma unroll\n"
    "        for (int t = 0; t < K; t++) {\n"
    "            if (pa[t] == r) { nv[r] = v[t]; ni[r] = ix[t]; }\n"
    "            if (pb[t] == r) { nv[r] = ov[t]; ni[r] = oi[t]; }\n"
    "        }\n"
    "    }\n"
    "#pragma unroll\n"
    "    for (int r = 0; r < K; r++) {\n"
    "        v[r] = nv[r];\n"
    "        ix[r] = ni[r];\n"
    "    }\n"
    "}\n\n";

/* CUDA: the P lanes of the query by mask (the lanes that left the query loop are not named);
 * HIP: a wavefront of 64 without masks, the exchange kept inside segments of P lanes by the
 * width (xor offsets below P never leave a segment). */
static const char shfl_cuda[] =
    "        ov[s] = __shfl_xor_sync(mask, v[s], off, width);\n" /* i18n: not for people */
    "        oi[s] = __shfl_xor_sync(mask, ix[s], off, width);\n";
static const char shfl_hip[] =
    "        (void)mask;\n" /* i18n: not for people */
    "        ov[s] = __shfl_xor(v[s], off, width);\n"
    "        oi[s] = __shfl_xor(ix[s], off, width);\n";

static int emit(const tk_scan *s, const tk_loop *L, const tk_guard *G, int P, bool hip, rw_edits *es)
{
    const rw_toks *ts = s->ts;
    int rc;
    /* the helper before the kernel (its template line included): the merge's */
    struct hk_buf hb;
    hk_buf_init(&hb, 1 << 16);
    const char *const kv[] = {"SHFL", hip ? shfl_hip : shfl_cuda, NULL};
    rc = G ? HK_OK : rwl_render(&hb, merge_helper, kv);
    if (!rc && !G)
        rc = rwl_edits_add(es, s->f->span.start_byte, s->f->span.start_byte, hb.data);
    hk_buf_free(&hb);
    if (rc)
        return rc;
    /* the query loop's header */
    char *h = hk_asprintf("for (long long hk_sp_t = (long long)blockIdx.x * blockDim.x + threadIdx.x; " /* i18n: not for people */
                          "hk_sp_t / %d < (long long)(%s); hk_sp_t += (long long)blockDim.x * gridDim.x) {\n"
                          "    /* hk: split_topk_scan: query hk_sp_t / %d, part hk_sp_t %% %d of its items */\n"
                          "    %s %s = (%s)(hk_sp_t / %d);\n"
                          "    const int hk_sp_part = (int)(hk_sp_t %% %d);\n"
                          "    const int hk_sp_np = blockDim.x %% %d == 0 ? %d : 1;   /* P lanes in one warp, else part 0 alone */",
                          P, L->qh.bound, P, P, L->qh.type, L->qh.var, L->qh.type, P, P, P, P);
    if (!h)
        return HK_ENOMEM;
    if ((rc = rwl_edits_add_owned(es, ts->t[L->q_a].start, ts->t[L->qbody_a].end, h)))
        return rc;
    /* the item loop */
    if (G) {
        struct hk_buf go;
        hk_buf_init(&go, RW_TEXT_MAX);
        rc = emit_guarded(s, L, G, P, &go);
        if (!rc)
            rc = rwl_edits_add(es, ts->t[L->l_a].start, ts->t[L->l_b - 1].end, go.data);
        hk_buf_free(&go);
        if (rc)
            return rc;
        goto after;
    }
    char ktype[128], bt[128], it[128];
    snprintf(ktype, sizeof ktype, "%.*s", SPAN(ts, L->ktype_a, L->ktype_b));
    snprintf(bt, sizeof bt, "%.*s", SPAN(ts, L->b_type_a, L->b_type_b));
    snprintf(it, sizeof it, "%.*s", SPAN(ts, L->i_type_a, L->i_type_b));
    struct hk_buf o;
    hk_buf_init(&o, RW_TEXT_MAX);
    rc = hk_buf_printf(&o, "{   /* hk: split_topk_scan: items part, part + %d, ... of this query, then the %d lanes' " /* i18n: not for people */
                           "top-%d lists merged */\n"
                           "    for (long long hk_sp_k = (long long)(%.*s) + hk_sp_part; hk_sp_part < hk_sp_np && "
                           "hk_sp_k < (long long)(%.*s); hk_sp_k += hk_sp_np) {\n"
                           "        %s %.*s = (%s)hk_sp_k;\n        ",
                       P, P, L->K, SPAN(ts, L->start_a, L->start_b), SPAN(ts, L->n_a, L->n_b), ktype, TOK(ts, L->kv),
                       ktype);
    if (!rc)
        rc = hk_buf_printf(&o, "%.*s\n    }\n", (int)(ts->t[L->body_b - 2].end - ts->t[L->body_a + 1].start),
                           ts->text + ts->t[L->body_a + 1].start);
    if (!rc)
        rc = hk_buf_printf(&o, "    if (hk_sp_np > 1) {\n" /* i18n: not for people */
                               "        const unsigned hk_sp_lane = (threadIdx.x + blockDim.x * (threadIdx.y + "
                               "blockDim.y * threadIdx.z)) %% 32u;\n"
                               "        const unsigned hk_sp_mask = %s << (hk_sp_lane & ~%du);\n"
                               "        %s hk_sp_v[%d] = {",
                           lanes_mask(P), P - 1, bt, L->K);
    for (int j = 0; j < L->K && !rc; j++)
        rc = hk_buf_printf(&o, "%s%.*s", j ? ", " : "", TOK(ts, L->B[j]));
    if (!rc)
        rc = hk_buf_printf(&o, "};\n        %s hk_sp_i[%d] = {", it, L->K);
    for (int j = 0; j < L->K && !rc; j++)
        rc = hk_buf_printf(&o, "%s%.*s", j ? ", " : "", TOK(ts, L->I[j]));
    if (!rc)
        rc = hk_buf_printf(&o, "};\n"
                               "        for (int hk_sp_off = 1; hk_sp_off < %d; hk_sp_off <<= 1)\n"
                               "            hk_sp_merge<%d>(hk_sp_v, hk_sp_i, hk_sp_mask, hk_sp_off, %d);\n",
                           P, L->K, P);
    for (int j = 0; j < L->K && !rc; j++)
        rc = hk_buf_printf(&o, "        %.*s = hk_sp_v[%d];\n        %.*s = hk_sp_i[%d];\n", TOK(ts, L->B[j]), j,
                           TOK(ts, L->I[j]), j);
    if (!rc)
        rc = hk_buf_printf(&o, "    }\n}");
    if (!rc)
        rc = rwl_edits_add(es, ts->t[L->l_a].start, ts->t[L->l_b - 1].end, o.data);
    hk_buf_free(&o);
    if (rc)
        return rc;
after:
    /* what follows the loop: part 0 alone (every lane holds the merged state, or in the
     * guarded form the state every lane updated alike) */
    size_t qe = L->qbody_b - 1;
    if (L->l_b < qe) {
        if ((rc = rwl_edits_add(es, ts->t[L->l_b].start, ts->t[L->l_b].start, "if (hk_sp_part == 0) {\n    ")) ||
            (rc = rwl_edits_add(es, ts->t[qe - 1].end, ts->t[qe - 1].end, "\n    }")))
            return rc;
    }
    return HK_OK;
}

static int rw_split_topk_scan(const rw_context *ctx, int P, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    if (P != 2 && P != 4 && P != 8 && P != 16 && P != 32)
        return HK_EINVAL;
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    if ((rc = rwl_lex(ctx->text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    tk_scan s = {.text = ctx->text, .len = ctx->len, .ts = &ts, .f = f};
    tk_loop L;
    memset(&L, 0, sizeof L);
    tk_guard G;
    memset(&G, 0, sizeof G);
    bool guarded = false;
    if (ts.n < 3 || strstr(ctx->text, "hk_sp_merge"))
        refuse(&s, 0, "kernel body", "%s", ts.n < 3 ? EN(RW_EMPTY) : EN(RW_TK_SPLIT_FILE));
    else if (find_query_loop(&s, &L) && check_kernel(&s, &L)) {
        /* the cascade's merge first; where the update is no cascade (a heap a callee sifts,
         * a count with a break, `<=`), the guarded form */
        tk_loop L0 = L;
        bool ok = read_item_loop(&s, &L);
        if (!ok && !s.oom) {
            char cwhy[sizeof s.why];
            snprintf(cwhy, sizeof cwhy, "%s", s.why);
            s.why[0] = '\0';
            L = L0;
            memset(&G, 0, sizeof G);
            ok = guarded = read_guarded(&s, ctx->m, &L, &G, ctx->hip);
            if (!guarded && ctx->hip && !s.oom)   /* HIP: the cascade's reason says more */
                snprintf(s.why, sizeof s.why, "%s", cwhy);
        }
        if (ok && check_query_body(&s, &L))
            s.why[0] = '\0';
    }
    if (s.oom) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (s.why[0]) {
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "split_topk_scan", f->name, s.why));
        goto out;
    }
    if ((rc = emit(&s, &L, guarded ? &G : NULL, P, ctx->hip, &es)))
        goto out;
    char *desc = guarded
        ? hk_asprintf(G.sl.has_break ? EN(RW_TK_G_DESC) : EN(RW_TK_G_DESC_NB), f->name,
                      rwl_line_at(ctx->text, ts.t[L.q_a].start), P, rwl_line_at(ctx->text, ts.t[L.l_a].start),
                      P, P)
        : hk_asprintf(EN(RW_TK_DESC),
                             f->name, rwl_line_at(ctx->text, ts.t[L.q_a].start), P,
                             rwl_line_at(ctx->text, ts.t[L.l_a].start), P, L.K, TOK(&ts, L.B[0]), TOK(&ts, L.I[0]),
                             ctx->hip ? "__shfl_xor of width P" : "__shfl_xor_sync", P);
    rc = rwl_finish(ctx->text, ctx->len, ctx->m, f->name, &es, desc, out);
    if (rc == HK_OK && out->applicable) {
        out->grid_multiplier = (unsigned)P;
        out->grid_axis = 0;
    }
out:
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */
static const rw_param tk_params[] = {
    {.name = "parts", .type = RW_PARAM_ENUM, .values = {4, 2, 8, 16, 32}, .n_values = 5, .def = 4},
};

static int emit_split_topk_scan(const rw_context *c, const int *p, rw_result *out)
{
    return rw_split_topk_scan(c, p[0], out);
}

const rw_descriptor rw_split_topk_scan_desc = {
    .name = "split_topk_scan",
    .summary = "a per-query scan keeping the K best items by a strict-< cascade is split over P adjacent lanes, " /* i18n: not for people */
               "their lists merged by (value, lower index) with shuffles; another guarded update (a heap, a counted "
               "break) runs P items at a time, the lanes whose guard holds found by ballot and updated in item order "
               "in every lane (exact; grid x P)",
    .params = tk_params,
    .n_params = HK_ARRAY_LEN(tk_params),
    .flags = 0,
    .emit = emit_split_topk_scan,
    /* the JSON's "grid", English; hkls rewrites says it through the table's RW_TK_LAUNCH
     * (test_core_i18n reads this very text back) */
    .launch = "the spec's grid multiplied by `parts` along x", /* i18n: not for people */
};
