/* register_threshold (issue 13): a per-thread array element that a loop's guard compares
 * against on every trip, kept in a register instead of re-read from local memory.
 *
 * The shape: a local array A (per thread: no __shared__, static, extern or volatile) and a
 * loop L in which A appears only (a) as `A[c]`, c an integer literal, read in the
 * condition of an `if` (a guard), and (b) anywhere inside such a guard's then-branch. mmcv's
 * knn keeps the k nearest in a max-heap `float best_dist[100]` that reheap() reorders
 * through a pointer with a run-time k, so the array lives in local memory, and its scan
 * `if (d2 < best_dist[0]) { best_dist[0] = d2; ...; reheap(best_dist, best_idx, k); }`
 * reloads the root from local memory at every point (sm_90 SASS: one LDL a point, whose
 * latency is the scan's critical path once the points come from shared memory: the
 * compiler cannot keep it in a register across the conditional stores through a pointer).
 *
 * The rewrite: `T hk_thr_A_c = A[c];` just before L (L wrapped in braces with it when L is
 * the body of an if/else/for/label), every `A[c]` of a guard's condition read as
 * hk_thr_A_c, and `hk_thr_A_c = A[c];` appended at the end of every guard's then-branch.
 *
 * Why it is the same: at every evaluation of a guard's condition hk_thr_A_c equals A[c].
 * It does when L starts (nothing runs between the copy and L). Within L, A is written only
 * inside then-branches (A appears nowhere else in L, and, when A's address leaves in a
 * call or a copy anywhere in the kernel, L calls no function of the file or unknown
 * function outside the then-branches that could write through it), and a then-branch can
 * only end by falling off its end -- where the copy is refreshed -- or by leaving the
 * kernel (`return`): a break, continue or goto that leaves it is refused. So every guard
 * reads the value the original reads, the branches go the same way, and everything else is
 * the original's text: bit for bit, ties and NaN included (the copy is the element's own
 * value). The copy before L reads A[c] once more than the original does when L runs no
 * trip; c is within the array (below its literal size, else 0), and that value is unused.
 *
 * Refused with the construct and line: no local array read at a literal index in an if's
 * condition inside a loop; A used in the loop outside a guard's condition and then-branch;
 * the guard's condition writes or calls a non-pure function; a break/continue/goto
 * leaving a then-branch; a 2-D array, an index past the literal size; __shared__, static,
 * extern or volatile arrays; a later declarator (`float a, b[4]`); A escaping and a call of
 * a file or unknown function in L outside the then-branches. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

static const char *const name = "register_threshold";

#define RT_GUARDS 16
#define RT_SLOTS 4

typedef struct {
    size_t if_tok, ca, cb;   /* the if, its condition (a, b): the parentheses' inside */
    size_t ta, tb;           /* the then-branch [ta, tb) */
} rt_guard;

typedef struct {
    const rw_toks *ts;
    size_t decl;             /* A's declared name token */
    size_t sa;               /* A's declaration statement's first token */
    long size;               /* the literal size, or -1 */
    bool escapes;            /* A's address leaves: a call argument, a copy, & */
    size_t lo, lo_end;       /* the loop */
    rt_guard g[RT_GUARDS];
    size_t n_g;
    long slot[RT_SLOTS];     /* the distinct literal indices read by the guards */
    size_t n_slot;
} rt_shape;

static bool same_name(const rw_toks *ts, size_t k, size_t name_tok)
{
    return ts->t[k].kind == T_IDENT && rwl_same_tok(ts, k, name_tok) && rwl_is_use(ts, k);
}

/* The blanks that start the line holding byte b of text (at most 64). */
static int indent_of(const char *text, size_t b, const char **at)
{
    size_t a = b;
    while (a > 0 && text[a - 1] != '\n')
        a--;
    size_t e = a;
    while (e < b && (text[e] == ' ' || text[e] == '\t') && e - a < 64)
        e++;
    *at = text + a;
    return (int)(e - a);
}

/* The first token of the statement holding token k (after the previous ; { } or the kernel
 * body's start). */
static size_t stmt_start(const rw_toks *ts, size_t k)
{
    size_t i = k;
    while (i > 0 && !rwl_tok_is(ts, i - 1, ";") && !rwl_tok_is(ts, i - 1, "{") && !rwl_tok_is(ts, i - 1, "}"))
        i--;
    return i;
}

/* The then-branch of the if at k: [*ta, *tb), its condition's inside [*ca, *cb). */
static bool parse_if(const rw_toks *ts, size_t k, size_t end, size_t *ca, size_t *cb, size_t *ta, size_t *tb)
{
    if (!rwl_tok_is(ts, k, "if") || !rwl_tok_is(ts, k + 1, "("))
        return false;
    size_t close = rwl_match_close(ts, k + 1);
    if (close >= end)
        return false;
    *ca = k + 2;
    *cb = close;
    *ta = close + 1;
    *tb = rwl_stmt_end(ts, close + 1, end);
    return *tb <= end && *tb > *ta;
}

/* Is [a, b) free of writes and of calls that are not pure (math, conversions)? */
static bool pure_span(const rw_toks *ts, size_t a, size_t b, size_t *bad)
{
    for (size_t i = a; i < b; i++) {
        if (rwl_tok_is(ts, i, "++") || rwl_tok_is(ts, i, "--") || rwl_tok_is_assign_op(ts, i)) {
            *bad = i;
            return false;
        }
        if (ts->t[i].kind == T_IDENT && i + 1 < b && rwl_tok_is(ts, i + 1, "(") && !rwl_pure_call_name(ts, i) &&
            !rwl_is_type_word(ts, i)) {
            *bad = i;
            return false;
        }
    }
    return true;
}

/* A call at k that cannot reach a thread's local array: a pure function, a cast, or a CUDA
 * built-in (`__syncthreads_or`, `__shfl_sync`: names the compiler owns, which take no
 * pointer the kernel made). */
static bool harmless_call(const rw_toks *ts, size_t k)
{
    if (rwl_pure_call_name(ts, k) || rwl_is_type_word(ts, k))
        return true;
    const char *s = ts->text + ts->t[k].start;
    size_t n = ts->t[k].end - ts->t[k].start;
    if (n > 2 && s[0] == '_' && s[1] == '_')
        return true;
    static const char *const kw[] = {"if", "for", "while", "switch", "return", "sizeof", "alignas", "decltype"};
    for (size_t i = 0; i < HK_ARRAY_LEN(kw); i++)
        if (strlen(kw[i]) == n && !memcmp(kw[i], s, n))
            return true;
    return false;
}

/* Does loop [lo, lo_end) qualify for array s->decl? Fills the guards and slots. why gets
 * the first refusal (with its construct and line). */
static bool loop_fits(rt_shape *s, size_t lo, size_t lo_end, const char *text, char *why, size_t n)
{
    const rw_toks *ts = s->ts;
    s->n_g = 0;
    s->n_slot = 0;
    if (s->decl >= lo && s->decl < lo_end)
        return rwl_refuse(why, n, ts, text, lo, "loop", "%s", EN(RW_RT_DECLARED_INSIDE));
    /* the guards: ifs of L whose condition mentions A, not inside another guard's branch */
    for (size_t i = lo; i < lo_end; i++) {
        size_t ca, cb, ta, tb;
        if (!parse_if(ts, i, lo_end, &ca, &cb, &ta, &tb))
            continue;
        bool inside = false;
        for (size_t g = 0; g < s->n_g && !inside; g++)
            inside = i >= s->g[g].ta && i < s->g[g].tb;
        bool mentions = false;
        for (size_t j = ca; j < cb && !mentions; j++)
            mentions = same_name(ts, j, s->decl);
        if (inside || !mentions)
            continue;
        if (s->n_g == RT_GUARDS)
            return rwl_refuse(why, n, ts, text, i, EN(RW_C_GUARD), EN(RW_RT_MORE_GUARDS), RT_GUARDS);
        size_t bad;
        if (!pure_span(ts, ca, cb, &bad))
            return rwl_refuse(why, n, ts, text, bad, EN(RW_C_GUARD_CONDITION), "%s",
                              EN(RW_RT_COND_WRITES));
        for (size_t j = ca; j < cb; j++) {
            if (!same_name(ts, j, s->decl))
                continue;
            if (!rwl_tok_is(ts, j + 1, "[") || ts->t[j + 2].kind != T_NUMBER || !rwl_tok_is(ts, j + 3, "]") ||
                rwl_tok_is(ts, j + 4, "[") || (j > 0 && rwl_tok_is(ts, j - 1, "&")))
                return rwl_refuse(why, n, ts, text, j, EN(RW_C_GUARD_CONDITION), "%s",
                                  EN(RW_RT_NOT_LITERAL));
            char num[32];
            size_t nl = ts->t[j + 2].end - ts->t[j + 2].start;
            if (nl >= sizeof num)
                return rwl_refuse(why, n, ts, text, j, EN(RW_C_GUARD_CONDITION), "%s", EN(RW_RT_INDEX_LONG));
            memcpy(num, text + ts->t[j + 2].start, nl);
            num[nl] = 0;
            char *e;
            long c = strtol(num, &e, 0);
            while (*e == 'u' || *e == 'U' || *e == 'l' || *e == 'L')
                e++;
            if (*e || c < 0 || (s->size >= 0 ? c >= s->size : c != 0))
                return rwl_refuse(why, n, ts, text, j, EN(RW_C_GUARD_CONDITION),
                                  EN(RW_RT_INDEX_OUTSIDE), num);
            bool have = false;
            for (size_t q = 0; q < s->n_slot && !have; q++)
                have = s->slot[q] == c;
            if (!have) {
                if (s->n_slot == RT_SLOTS)
                    return rwl_refuse(why, n, ts, text, j, EN(RW_C_GUARD_CONDITION), EN(RW_RT_MORE_ELEMENTS), RT_SLOTS);
                s->slot[s->n_slot++] = c;
            }
        }
        /* the then-branch ends only at its end or by leaving the kernel */
        for (size_t j = ta; j < tb; j++) {
            bool jump = rwl_tok_is(ts, j, "break") || rwl_tok_is(ts, j, "continue");
            if (rwl_tok_is(ts, j, "goto") || (jump && !rwl_in_nested(ts, ta, tb, j, true)))
                return rwl_refuse(why, n, ts, text, j, "jump", EN(RW_RT_LEAVES), (int)(ts->t[j].end - ts->t[j].start), text + ts->t[j].start,
                                  rwl_line_at(text, ts->t[i].start));
        }
        s->g[s->n_g++] = (rt_guard){.if_tok = i, .ca = ca, .cb = cb, .ta = ta, .tb = tb};
    }
    if (!s->n_g)
        return rwl_refuse(why, n, ts, text, lo, "loop", "%s", EN(RW_RT_NO_IF_IN_LOOP));
    /* every other occurrence of A in L lies in a then-branch; calls outside them harmless
     * when A's address leaves somewhere */
    for (size_t i = lo; i < lo_end; i++) {
        bool in_branch = false, in_cond = false;
        for (size_t g = 0; g < s->n_g; g++) {
            in_branch |= i >= s->g[g].ta && i < s->g[g].tb;
            in_cond |= i >= s->g[g].ca && i < s->g[g].cb;
        }
        if (in_branch || in_cond)
            continue;
        if (same_name(ts, i, s->decl))
            return rwl_refuse(why, n, ts, text, i, EN(RW_C_ARRAY_USE), "%s",
                              EN(RW_RT_USED_OUTSIDE));
        if (s->escapes && ts->t[i].kind == T_IDENT && rwl_tok_is(ts, i + 1, "(") && !harmless_call(ts, i))
            return rwl_refuse(why, n, ts, text, i, "call", "%s",
                              EN(RW_RT_CALL_WRITES));
    }
    s->lo = lo;
    s->lo_end = lo_end;
    return true;
}

/* The loops of [0, ts->n) enclosing token k, innermost first, in out (at most cap). */
static size_t loops_around(const rw_toks *ts, size_t k, size_t *out, size_t cap)
{
    size_t n = 0;
    for (size_t j = k; j-- > 0 && n < cap;) {
        if (!rwl_tok_is(ts, j, "for") && !rwl_tok_is(ts, j, "while") && !rwl_tok_is(ts, j, "do"))
            continue;
        if (rwl_tok_is(ts, j, "while") && j > 0 && rwl_tok_is(ts, j - 1, "}"))
            continue;   /* a do-while's tail, seen at its do */
        size_t e = rwl_stmt_end(ts, j, ts->n);
        if (e > k)
            out[n++] = j;
    }
    return n;
}

/* Is the array declared at name token d one this rewrite may cache? Sets sa, size. */
static bool array_decl(rt_shape *s, size_t d, const char *text, char *why, size_t n)
{
    const rw_toks *ts = s->ts;
    if (!rwl_tok_is(ts, d + 1, "[") || !rwl_declared_here(ts, d))
        return false;
    size_t close = rwl_match_close(ts, d + 1);
    if (close >= ts->n)
        return false;
    size_t sa = stmt_start(ts, d);
    if (rwl_tok_is(ts, d - 1, ",") || rwl_tok_is(ts, d - 1, "*") || rwl_tok_is(ts, d - 1, "&"))
        return rwl_refuse(why, n, ts, text, d, EN(RW_C_ARRAY_DECLARATION), "%s",
                          EN(RW_RT_LATER_DECLARATOR));
    for (size_t i = sa; i < d; i++)
        if (rwl_tok_is(ts, i, "__shared__") || rwl_tok_is(ts, i, "static") || rwl_tok_is(ts, i, "extern") ||
            rwl_tok_is(ts, i, "volatile") || rwl_tok_is(ts, i, "__constant__") || rwl_tok_is(ts, i, "for") ||
            rwl_tok_is(ts, i, "(") || rwl_tok_is(ts, i, "typedef"))
            return rwl_refuse(why, n, ts, text, i, EN(RW_C_ARRAY_DECLARATION), "%s",
                              EN(RW_RT_NOT_PLAIN));
    if (rwl_tok_is(ts, close + 1, "["))
        return rwl_refuse(why, n, ts, text, d, EN(RW_C_ARRAY_DECLARATION), "%s", EN(RW_RT_MULTI_DIM));
    s->decl = d;
    s->sa = sa;
    s->size = -1;
    if (close == d + 3 && ts->t[d + 2].kind == T_NUMBER) {
        char num[32];
        size_t nl = ts->t[d + 2].end - ts->t[d + 2].start;
        if (nl < sizeof num) {
            memcpy(num, text + ts->t[d + 2].start, nl);
            num[nl] = 0;
            s->size = strtol(num, NULL, 0);
        }
    }
    /* does its address leave: any use other than A[...] (a call's argument, a copy, &A[i]) */
    s->escapes = false;
    for (size_t i = 0; i < ts->n && !s->escapes; i++)
        if (i != d && same_name(ts, i, d))
            s->escapes = !rwl_tok_is(ts, i + 1, "[") || (i > 0 && rwl_tok_is(ts, i - 1, "&"));
    return true;
}

static int register_threshold(const rw_context *c, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(c->text, c->len, c->m, c->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    char why[600] = "";
    char *type = NULL;
    struct hk_buf desc;
    hk_buf_init(&desc, 1024);
    if ((rc = rwp_lex_body(c->text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    rt_shape s = {.ts = &ts};
    bool found = false, any_array = false;
    for (size_t d = 0; d < ts.n && !found; d++) {
        if (ts.t[d].kind != T_IDENT || !rwl_tok_is(&ts, d + 1, "["))
            continue;
        rt_shape cand = {.ts = &ts};
        if (!array_decl(&cand, d, c->text, why, sizeof why))
            continue;
        any_array = true;
        /* the first if reading A in its condition inside a loop; its widest loop that fits */
        for (size_t i = d + 1; i < ts.n && !found; i++) {
            size_t ca, cb, ta, tb;
            if (!parse_if(&ts, i, ts.n, &ca, &cb, &ta, &tb))
                continue;
            bool mentions = false;
            for (size_t j = ca; j < cb && !mentions; j++)
                mentions = same_name(&ts, j, d);
            if (!mentions)
                continue;
            size_t loops[16];
            size_t nl = loops_around(&ts, i, loops, HK_ARRAY_LEN(loops));
            if (!nl) {
                rwl_refuse(why, sizeof why, &ts, c->text, i, EN(RW_C_GUARD), "%s", EN(RW_RT_NO_LOOP));
                continue;
            }
            for (size_t L = nl; L-- > 0 && !found;) {
                size_t lo = loops[L], lo_end = rwl_stmt_end(&ts, lo, ts.n);
                /* a wider loop's refusal is not the reason when a narrower one fits */
                char w2[600] = "";
                if (loop_fits(&cand, lo, lo_end, c->text, L == 0 ? why : w2, L == 0 ? sizeof why : sizeof w2)) {
                    s = cand;
                    found = true;
                }
            }
            /* the first guard decides this array; a later one sits in the same loops */
            break;
        }
    }
    if (!found) {
        if (!why[0])
            snprintf(why, sizeof why, any_array ? EN(RW_RT_NO_IF) : EN(RW_RT_NO_ARRAY),
                     rwl_line_at(c->text, f->body_span.start_byte));
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), name, f->name, why));
        goto out;
    }
    /* the element type: the declaration's tokens before the name, without const */
    {
        struct hk_buf tb;
        hk_buf_init(&tb, 128);
        for (size_t i = s.sa; i < s.decl && !rc; i++) {
            if (rwl_tok_is(&ts, i, "alignas") && rwl_tok_is(&ts, i + 1, "(")) {   /* alignas(N) */
                i = rwl_match_close(&ts, i + 1);
                continue;
            }
            if (rwl_tok_is(&ts, i, "const") || rwl_tok_is(&ts, i, "register"))
                continue;
            rc = hk_buf_printf(&tb, "%s%.*s", tb.len ? " " : "", (int)(ts.t[i].end - ts.t[i].start),
                               c->text + ts.t[i].start);
        }
        if (rc || !tb.len) {
            hk_buf_free(&tb);
            rc = rc ? rc : HK_EINVAL;
            goto out;
        }
        type = hk_buf_steal(&tb);
    }
    const char *A = c->text + ts.t[s.decl].start;
    int an = (int)(ts.t[s.decl].end - ts.t[s.decl].start);
    /* the copies before the loop (wrapped in braces unless the loop starts a statement) */
    bool plain = s.lo > 0 && (rwl_tok_is(&ts, s.lo - 1, ";") || rwl_tok_is(&ts, s.lo - 1, "{") ||
                              rwl_tok_is(&ts, s.lo - 1, "}"));
    {
        struct hk_buf pre;
        hk_buf_init(&pre, 512);
        const char *ind;
        int in = indent_of(c->text, ts.t[s.lo].start, &ind);
        rc = hk_buf_printf(&pre, "%s/* hk rewrite: register_threshold: %.*s's guarded element(s) kept in " /* i18n: not for people */
                                 "registers */\n%.*s", plain ? "" : "{ ", an, A, in, ind);
        for (size_t q = 0; q < s.n_slot && !rc; q++)
            rc = hk_buf_printf(&pre, "%s%s hk_thr_%.*s_%ld = %.*s[%ld];", q ? " " : "", type, an, A, s.slot[q], an, A,
                               s.slot[q]);
        if (!rc)
            rc = hk_buf_printf(&pre, "\n%.*s", in, ind);
        if (rc || (rc = rwl_edits_add_owned(&es, ts.t[s.lo].start, ts.t[s.lo].start, hk_buf_steal(&pre)))) {
            hk_buf_free(&pre);
            goto out;
        }
        if (!plain && (rc = rwl_edits_add(&es, ts.t[s.lo_end - 1].end, ts.t[s.lo_end - 1].end, " }")))
            goto out;
    }
    for (size_t g = 0; g < s.n_g; g++) {
        const rt_guard *G = &s.g[g];
        for (size_t j = G->ca; j < G->cb; j++) {
            if (!same_name(&ts, j, s.decl))
                continue;
            /* the slot's name by its value (0x0 and 0 are one slot) */
            long v = strtol(c->text + ts.t[j + 2].start, NULL, 0);
            char *rep = hk_asprintf("hk_thr_%.*s_%ld", an, A, v);
            if (!rep || (rc = rwl_edits_add_owned(&es, ts.t[j].start, ts.t[j + 3].end, rep))) {
                rc = rc ? rc : HK_ENOMEM;
                goto out;
            }
            j += 3;
        }
        /* the refresh at the then-branch's end */
        struct hk_buf ref;
        hk_buf_init(&ref, 256);
        /* braced: on a line of its own after the branch's last statement, indented as it */
        bool braced = rwl_tok_is(&ts, G->ta, "{") && G->tb >= G->ta + 3;
        const char *ind = "";
        int in = braced ? indent_of(c->text, ts.t[G->tb - 2].start, &ind) : 0;
        rc = braced ? hk_buf_printf(&ref, "\n%.*s", in, ind) : hk_buf_appends(&ref, " ");
        for (size_t q = 0; q < s.n_slot && !rc; q++)
            rc = hk_buf_printf(&ref, "%shk_thr_%.*s_%ld = %.*s[%ld];", q ? " " : "", an, A, s.slot[q], an, A,
                               s.slot[q]);
        if (!rc && !braced)
            rc = hk_buf_appends(&ref, " }");
        uint32_t at = braced ? ts.t[G->tb - 2].end : ts.t[G->tb - 1].end;
        if (rc || (rc = rwl_edits_add_owned(&es, at, at, hk_buf_steal(&ref)))) {
            hk_buf_free(&ref);
            goto out;
        }
        if (!braced && (rc = rwl_edits_add(&es, ts.t[G->ta].start, ts.t[G->ta].start, "{ ")))
            goto out;
    }
    /* the elements ("best[0], [1]": code), then the sentence around them */
    struct hk_buf el;
    hk_buf_init(&el, 256);
    rc = hk_buf_printf(&el, "%.*s[", an, A);
    for (size_t q = 0; q < s.n_slot && !rc; q++)
        rc = hk_buf_printf(&el, "%s%ld", q ? "], [" : "", s.slot[q]);
    if (!rc)
        rc = hk_buf_appends(&el, "]");
    if (!rc)
        rc = hk_buf_printf(&desc, EN(RW_RT_DESC), f->name, el.data, s.n_g, rwl_line_at(c->text, ts.t[s.lo].start),
                           an, A);
    hk_buf_free(&el);
    if (rc)
        goto out;
    rc = rwl_finish(c->text, c->len, c->m, f->name, &es, hk_buf_steal(&desc), out);
    out->keeps_launch = rc == HK_OK && out->applicable;
out:
    hk_free(type);
    hk_buf_free(&desc);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static int emit_register_threshold(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return register_threshold(c, out);
}

const rw_descriptor rw_register_threshold_desc = {
    .name = "register_threshold",
    .summary = "a local array's element that a loop's guard compares against (a heap's root: `if (d < best[0])`), " /* i18n: not for people */
               "written only under that guard, kept in a register refreshed at the guard's end (exact)",
    /* not RW_STACKS: on the texts it would stack on (uniform_tiles' and unroll_jam_scan's
     * unrolled groups) nvcc already keeps the root in a register between the compares (sm_90
     * SASS of the wild knn: one LDL after each reheap, none between points), so "A + this"
     * would be A's hot loop again; its gain is on a plain scan */
    .flags = 0,
    .emit = emit_register_threshold,
};
