/* register_carry (issue 13): a per-thread strided array carried in registers across the
 * trips of an outer sequential loop. Exact (the same operations on the same values).
 *
 * The shape: an outer loop L (a loop over picks, time steps, iterations) holds an inner
 * loop `for (T k = E; k < N; k += S)` with E the thread's threadIdx.x, over which each
 * thread reads and writes a __restrict__ pointer parameter A only as A[k]. Every trip of L
 * then moves the same elements of A through memory again, each by the one thread that owns
 * it: mmcv's furthest point sampling re-reads and re-writes its 16 `temp` distances per
 * thread for each of its 2047 picks (64 KB a block per pick, a quarter of its traffic, and
 * with them its 196 KB of points no longer fit the SM's L1). When the thread's share is
 * bounded -- N <= CAP * S -- the elements can stay in a register array of CAP entries for
 * the whole of L: loaded once before it, written back once after it (only if the loop
 * writes A), and the inner loop becomes `for (c = 0; c < CAP; c++) { T k = E + c * S;
 * if (!(k < N)) break; body }`, fully unrolled, with A[k] read as hk_carry_A[c]; a thread
 * whose CAP trips are all in range (E + (CAP - 1) * S < N) takes a copy without the check,
 * one straight run whose loads can be issued together.
 *
 * Why it is the same: with E = threadIdx.x < blockDim.x <= S and a 1-D block, the k of
 * distinct (thread, c) differ, so no thread touches another's elements (A is __restrict__:
 * no other pointer reaches them in the kernel); k = E + c * S is the c-th value of the
 * original's k (no overflow: every value is below N + S, as the original's are), and the
 * loop stops at the first k >= N, which comes at c <= CAP since E + CAP * S >= N. The
 * check `S > 0 && blockDim.x <= S && blockDim.y == blockDim.z == 1 && N <= CAP * S` is
 * the same for every thread of the block (N and S are parameters, constants or locals
 * initialised from them, never written), so it is computed once before L and the block
 * takes one branch at each trip: the carried inner loop, or the original one unchanged. L
 * itself is kept once -- the load before it and the write-back after it under the
 * condition, only the inner loop versioned inside it -- so every statement of L outside the
 * inner loop (an argmax tree, its barriers, its shared reads and writes) appears once, as
 * in the original: the referee credits a race to the original only when each line it names
 * occurs no more often in the candidate (sanitize.c inherited()). Blocks are assumed
 * to own their elements of A, as in the original, where another block writing them would
 * race. Refused: an outer loop that can return or goto out (the write-back would be
 * skipped), A used in L other than as A[k] inside the inner loop, or anywhere in the kernel
 * other than as A[...] or moved (A += ...; a copy could reach the same elements), k written in the body
 * or declared outside the header, E, N or S written, S or N not uniform. */
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

#define CR_ARRAYS 4

static const char *const name = "register_carry";

typedef struct {
    const rw_toks *ts;
    const an_function *f;
    size_t fo, fo_body_a, fo_end;   /* the inner for: its token, body [a, end) */
    size_t ka, kb;                  /* the header's type tokens [ka, kb), k at kb */
    size_t ea, eb, na, nb, sa, sb;  /* E, N, S */
    size_t lo, lo_end;              /* the outer loop statement [lo, lo_end) */
    size_t arr[CR_ARRAYS];          /* the carried arrays' parameter indices */
    bool wr[CR_ARRAYS];             /* written in the loop */
    size_t n_arr;
} cr_shape;

static bool is_param(const an_function *f, const rw_toks *ts, size_t k, size_t *ix)
{
    if (ts->t[k].kind != T_IDENT)
        return false;
    size_t n = ts->t[k].end - ts->t[k].start;
    for (size_t i = 0; i < f->n_params; i++)
        if (strlen(f->params[i].name) == n && !memcmp(f->params[i].name, ts->text + ts->t[k].start, n)) {
            if (ix)
                *ix = i;
            return true;
        }
    return false;
}

/* The declaration `NAME = ...` of the local at k before token before, or ts->n. */
static size_t local_decl(const rw_toks *ts, size_t k, size_t before)
{
    for (size_t i = 0; i < before; i++)
        if (rwl_same_tok(ts, i, k) && rwl_is_use(ts, i) && rwl_tok_is(ts, i + 1, "=") && rwl_declared_here(ts, i))
            return i;
    return ts->n;
}

/* Is [a, b) the thread's x index: threadIdx.x, or a local initialised to it and never
 * written again? */
static bool is_thread_x(const rw_toks *ts, size_t a, size_t b, size_t before)
{
    if (b - a == 3 && rwl_builtin_x(ts, a, "threadIdx"))
        return true;
    if (b - a != 1 || ts->t[a].kind != T_IDENT)
        return false;
    size_t d = local_decl(ts, a, before);
    if (d >= ts->n || rwl_written_elsewhere(ts, d, d))
        return false;
    size_t e = rwl_stmt_end(ts, d, ts->n);
    /* `tid = threadIdx.x;` or `tid = threadIdx.x,` */
    return d + 5 <= e && rwl_builtin_x(ts, d + 2, "threadIdx") &&
           (rwl_tok_is(ts, d + 5, ";") || rwl_tok_is(ts, d + 5, ","));
}

/* Is [a, b) the same for every thread of the block and unchanged by the kernel: a number,
 * blockDim.x, a parameter never written, or a local never written again initialised to
 * one of those (a template or macro constant as a plain name counts as a number). */
static bool is_uniform(const cr_shape *s, size_t a, size_t b, size_t before, int depth)
{
    const rw_toks *ts = s->ts;
    if (b - a == 3 && rwl_builtin_x(ts, a, "blockDim"))
        return true;
    if (b - a != 1)
        return false;
    if (ts->t[a].kind == T_NUMBER)
        return true;
    if (ts->t[a].kind != T_IDENT)
        return false;
    if (is_param(s->f, ts, a, NULL))
        return !rwl_written_elsewhere(ts, a, ts->n);
    size_t d = local_decl(ts, a, before);
    if (d >= ts->n)   /* no local of that name: a template parameter or a named constant */
        return !rwl_written_elsewhere(ts, a, ts->n);
    if (rwl_written_elsewhere(ts, d, d) || depth > 2)
        return false;
    size_t e = d + 2;
    while (e < ts->n && !rwl_tok_is(ts, e, ";") && !rwl_tok_is(ts, e, ","))
        e++;
    return is_uniform(s, d + 2, e, d, depth + 1);
}

/* The end of the statement at i (a for/while/do or any other). */
static size_t stmt_end(const rw_toks *ts, size_t i, size_t end)
{
    return rwl_stmt_end(ts, i, end);
}

/* The header of the for at i: `for ( TYPE k = E ; k < N ; k += S )`. */
static bool parse_inner(cr_shape *s, size_t i, char *why, size_t n)
{
    const rw_toks *ts = s->ts;
    if (!rwl_tok_is(ts, i + 1, "("))
        return false;
    size_t close = rwl_match_close(ts, i + 1);
    if (close >= ts->n)
        return false;
    size_t semi1 = i + 2;
    while (semi1 < close && !rwl_tok_is(ts, semi1, ";"))
        semi1++;
    size_t eq = i + 2;
    while (eq < semi1 && !rwl_tok_is(ts, eq, "="))
        eq++;
    if (eq >= semi1 || eq < i + 4)   /* a type and a name before `=` */
        return false;
    s->ka = i + 2;
    s->kb = eq - 1;
    s->ea = eq + 1;
    s->eb = semi1;
    size_t semi2 = semi1 + 1;
    while (semi2 < close && !rwl_tok_is(ts, semi2, ";"))
        semi2++;
    if (semi2 >= close || !rwl_same_tok(ts, semi1 + 1, s->kb) || !rwl_tok_is(ts, semi1 + 2, "<"))
        return false;
    s->na = semi1 + 3;
    s->nb = semi2;
    if (!rwl_same_tok(ts, semi2 + 1, s->kb) || !rwl_tok_is(ts, semi2 + 2, "+="))
        return false;
    s->sa = semi2 + 3;
    s->sb = close;
    if (!is_thread_x(ts, s->ea, s->eb, i))
        return rwl_refuse(why, n, ts, ts->text, i, "block-strided loop",
                          EN(RW_CR_START));
    s->fo = i;
    s->fo_body_a = close + 1;
    s->fo_end = stmt_end(ts, close + 1, ts->n);
    return true;
}

/* The innermost for/while/do around token i, or ts->n. */
static size_t enclosing_loop(const rw_toks *ts, size_t i)
{
    size_t best = ts->n;
    for (size_t j = 0; j < i; j++) {
        if (!rwl_tok_is(ts, j, "for") && !rwl_tok_is(ts, j, "while") && !rwl_tok_is(ts, j, "do"))
            continue;
        if (rwl_tok_is(ts, j, "while") && j > 0 && rwl_tok_is(ts, j - 1, "}"))
            continue;   /* a do-while's tail, seen at its do */
        size_t e = stmt_end(ts, j, ts->n);
        if (e > i)
            best = j;
    }
    return best;
}

/* The arrays of the loop: __restrict__ pointer parameters used in [lo, lo_end) only as
 * A[k] inside the inner loop's body. */
static void find_arrays(cr_shape *s)
{
    const rw_toks *ts = s->ts;
    s->n_arr = 0;
    for (size_t p = 0; p < s->f->n_params && s->n_arr < CR_ARRAYS; p++) {
        const an_param *pa = &s->f->params[p];
        if (pa->pointer_depth != 1 || !pa->is_restrict || !pa->elem_type || !pa->name[0])
            continue;
        bool ok = true, any = false, wr = false;
        for (size_t i = 0; i < ts->n && ok; i++) {
            if (ts->t[i].kind != T_IDENT || strlen(pa->name) != ts->t[i].end - ts->t[i].start ||
                memcmp(pa->name, ts->text + ts->t[i].start, ts->t[i].end - ts->t[i].start) || !rwl_is_use(ts, i))
                continue;
            /* outside the loop: elements (A[...]) or the pointer moved (A += ...); a copy
             * (`p = A`, a call's argument) could reach the carried elements another way */
            if (i < s->lo || i >= s->lo_end) {
                ok = rwl_tok_is(ts, i + 1, "[") || rwl_tok_is(ts, i + 1, "+=") || rwl_tok_is(ts, i + 1, "-=");
                continue;
            }
            ok = i > s->fo_body_a && i < s->fo_end && i + 3 < ts->n && rwl_tok_is(ts, i + 1, "[") &&
                 rwl_same_tok(ts, i + 2, s->kb) &&
                 rwl_tok_is(ts, i + 3, "]");
            any = true;
            wr |= rwl_occurrence_writes(ts, i);
        }
        if (ok && any) {
            s->arr[s->n_arr] = p;
            s->wr[s->n_arr++] = wr;
        }
    }
}

/* Does [a, b) name a warp or block collective (a barrier, a shuffle, a vote, a match, a
 * warp reduction, cooperative groups)? Threads that take different copies of the code
 * could not meet in it. */
static bool collective(const rw_toks *ts, size_t a, size_t b)
{
    static const char *const prefix[] = {"__shfl", "__ballot", "__any", "__all", "__activemask", "__match",
                                         "__reduce", "__barrier", "cooperative_groups", "tiled_partition",
                                         "this_thread_block", "coalesced_threads", "cg"};
    for (size_t k = a; k < b; k++) {
        if (ts->t[k].kind != T_IDENT)
            continue;
        size_t n = ts->t[k].end - ts->t[k].start;
        const char *w = ts->text + ts->t[k].start;
        for (size_t i = 0; i + 4 <= n; i++)
            if (!memcmp(w + i, "sync", 4))
                return true;
        for (size_t p = 0; p < HK_ARRAY_LEN(prefix); p++) {
            size_t pl = strlen(prefix[p]);
            if (n >= pl && !memcmp(w, prefix[p], pl) && (strcmp(prefix[p], "cg") || n == 2))
                return true;
        }
    }
    return false;
}

/* Text of tokens [a, b) as written (original spacing). */
static char *span_text(const rw_toks *ts, size_t a, size_t b)
{
    return hk_strndup(ts->text + ts->t[a].start, ts->t[b - 1].end - ts->t[a].start);
}

static int register_carry(const rw_context *c, int cap, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(c->text, c->len, c->m, c->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    struct hk_buf b;
    hk_buf_init(&b, RW_TEXT_MAX);
    char why[600] = "";
    char *txt[8] = {0};
    if ((rc = rwp_lex_body(c->text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    cr_shape s = {.ts = &ts, .f = f};
    bool found = false;
    for (size_t i = 0; i < ts.n && !found; i++) {
        if (!rwl_tok_is(&ts, i, "for") || !parse_inner(&s, i, why, sizeof why))
            continue;
        s.lo = enclosing_loop(&ts, i);
        if (s.lo >= ts.n) {
            rwl_refuse(why, sizeof why, &ts, c->text, i, "block-strided loop",
                       EN(RW_CR_NO_OUTER));
            continue;
        }
        s.lo_end = stmt_end(&ts, s.lo, ts.n);
        if (!is_uniform(&s, s.na, s.nb, s.lo, 0) || !is_uniform(&s, s.sa, s.sb, s.lo, 0)) {
            rwl_refuse(why, sizeof why, &ts, c->text, i, "block-strided loop",
                       EN(RW_CR_BOUND));
            continue;
        }
        /* k not written in the body; no return or goto in the outer loop */
        bool bad = false;
        for (size_t j = s.fo_body_a; j < s.fo_end && !bad; j++)
            if (rwl_same_tok(&ts, j, s.kb) && rwl_is_use(&ts, j) && rwl_scalar_written(&ts, j))
                bad = !rwl_refuse(why, sizeof why, &ts, c->text, j, "loop variable",
                                  EN(RW_CR_VAR_WRITTEN));
        for (size_t j = s.lo; j < s.lo_end && !bad; j++)
            if (rwl_tok_is(&ts, j, "return") || rwl_tok_is(&ts, j, "goto"))
                bad = !rwl_refuse(why, sizeof why, &ts, c->text, j, "early exit",
                                  EN(RW_CR_LEAVES));
        if (bad)
            continue;
        find_arrays(&s);
        if (!s.n_arr) {
            rwl_refuse(why, sizeof why, &ts, c->text, i, "block-strided loop",
                       EN(RW_CR_NO_ARRAY));
            continue;
        }
        found = true;
    }
    if (!found) {
        if (!why[0])
            snprintf(why, sizeof why, "%s at line %d: %s", "kernel body", rwl_line_at(c->text, f->body_span.start_byte),
                     EN(RW_CR_NO_LOOP));
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), name, f->name, why));
        goto out;
    }
    char *E = span_text(&ts, s.ea, s.eb), *N = span_text(&ts, s.na, s.nb), *S = span_text(&ts, s.sa, s.sb),
         *KT = span_text(&ts, s.ka, s.kb), *K = span_text(&ts, s.kb, s.kb + 1);
    txt[0] = E, txt[1] = N, txt[2] = S, txt[3] = KT, txt[4] = K;
    if (!E || !N || !S || !KT || !K) {
        rc = HK_ENOMEM;
        goto out;
    }
    /* The loads and the write-back stand outside L, where E may not be declared yet (a
     * local of threadIdx.x declared in L): there they use threadIdx.x itself, its value. */
    const char *EO = s.eb - s.ea == 3 || local_decl(&ts, s.ea, s.lo) < ts.n ? E : "threadIdx.x";
    /* L kept once, its statements in place; only the inner loop is versioned. Every
     * statement of L outside the inner loop -- the tree, its barriers, the shared reads and
     * writes around them -- appears once in the rewrite, as in the original: the referee
     * credits a finding (a race) to the original only where each line it names occurs no
     * more often in the candidate than there (sanitize.c inherited()), and a racing
     * statement copied to a second place races on its own account. The carry condition is
     * uniform (N, S and the block shape), computed once before L:
     *   { const bool hk_carry_on = cond; T hk_carry_A[cap]; if (hk_carry_on) load;
     *     L with its inner loop as `if (hk_carry_on) { carried } else original`;
     *     if (hk_carry_on) write back; } */
    struct hk_buf l;
    hk_buf_init(&l, RW_TEXT_MAX);
    uint32_t at = ts.t[s.lo].start;
    rc = hk_buf_printf(&l, "{\n" /* i18n: not for people */
                           "    const bool hk_carry_on = (%s) > 0 && blockDim.x <= (unsigned int)(%s) && blockDim.y == 1 &&\n"
                           "        blockDim.z == 1 && (long long)(%s) <= %dLL * (long long)(%s);\n"
                           "    // hk rewrite: register_carry. Each thread's elements k = %s + c * %s (c < %d) of",
                       S, S, N, cap, S, E, S, cap);
    for (size_t a = 0; a < s.n_arr && !rc; a++)
        rc = hk_buf_printf(&l, " %s", f->params[s.arr[a]].name);
    if (!rc)
        rc = hk_buf_appends(&l, "\n    // stay in registers across the loop: loaded once, written back once after it.\n"); /* i18n: not for people */
    for (size_t a = 0; a < s.n_arr && !rc; a++) {
        const an_param *p = &f->params[s.arr[a]];
        rc = hk_buf_printf(&l, "    %s hk_carry_%s[%d];\n" /* i18n: not for people */
                               "    if (hk_carry_on) {\n#pragma unroll\n"
                               "        for (int hk_c = 0; hk_c < %d; hk_c++)\n"
                               "            if ((long long)(%s) + (long long)hk_c * (long long)(%s) < (long long)(%s))\n"
                               "                hk_carry_%s[hk_c] = %s[(%s) + hk_c * (%s)];\n"
                               "    }\n",
                           p->elem_type, p->name, cap, cap, EO, S, N, p->name, p->name, EO, S);
    }
    /* L up to the inner loop */
    if (!rc)
        rc = hk_buf_appends(&l, "    ");
    if (!rc)
        rc = hk_buf_append(&l, c->text + at, ts.t[s.fo].start - at);
    /* the inner loop's body with A[k] replaced */
    struct hk_buf bd;
    hk_buf_init(&bd, RW_TEXT_MAX);
    at = ts.t[s.fo_body_a].start;
    for (size_t j = s.fo_body_a; j < s.fo_end && !rc; j++) {
        size_t p;
        bool carried = false;
        for (size_t a = 0; a < s.n_arr && !carried; a++)
            carried = is_param(f, &ts, j, &p) && p == s.arr[a] && rwl_is_use(&ts, j);
        if (!carried)
            continue;
        rc = hk_buf_append(&bd, c->text + at, ts.t[j].start - at);
        if (!rc)
            rc = hk_buf_printf(&bd, "hk_carry_%s[hk_c]", f->params[p].name);
        at = ts.t[j + 3].end;
        j += 3;
    }
    if (!rc)
        rc = hk_buf_append(&bd, c->text + at, ts.t[s.fo_end - 1].end - at);
    if (!rc)
        rc = hk_buf_appends(&l, "if (hk_carry_on) {");
    /* A thread whose cap trips are all in range takes them with no check between them:
     * with the check (a branch a trip, the loop left at the first k >= N) each trip's loads
     * wait for the previous trip's work to issue, one trip in flight a warp; without it the
     * unrolled trips are one straight run whose loads the compiler can issue together. The
     * same trips in the same order (k rises with c), so exact. The branch differs between
     * threads: not taken when the body holds a warp or block collective. */
    bool split = !rc && !collective(&ts, s.fo_body_a, s.fo_end);
    if (!rc && split)
        rc = hk_buf_printf(&l, "\n        if ((long long)(%s) + %dLL * (long long)(%s) < (long long)(%s)) {\n" /* i18n: not for people */
                               "            // all %d trips of this thread in range: no check between them\n"
                               "#pragma unroll\n        for (int hk_c = 0; hk_c < %d; hk_c++) {\n"
                               "            %s %s = (%s) + hk_c * (%s);\n"
                               "            ",
                           E, cap - 1, S, N, cap, cap, KT, K, E, S);
    if (!rc && split && !(rc = hk_buf_append(&l, bd.data, bd.len)))
        rc = hk_buf_appends(&l, "\n        }\n        } else {");
    if (!rc)
        rc = hk_buf_printf(&l, "\n#pragma unroll\n        for (int hk_c = 0; hk_c < %d; hk_c++) {\n" /* i18n: not for people */
                               "            %s %s = (%s) + hk_c * (%s);\n"
                               "            if (!(%s < %s))\n"
                               "                break;\n"
                               "            ",
                           cap, KT, K, E, S, K, N);
    if (!rc)
        rc = hk_buf_append(&l, bd.data, bd.len);
    hk_buf_free(&bd);
    if (!rc)
        rc = hk_buf_appends(&l, split ? "\n        }\n        }\n        } else\n        " : "\n        }\n        } else\n        ");
    /* the original inner loop, then the rest of L */
    at = ts.t[s.fo].start;
    if (!rc)
        rc = hk_buf_append(&l, c->text + at, ts.t[s.lo_end - 1].end - at);
    for (size_t a = 0; a < s.n_arr && !rc; a++) {
        if (!s.wr[a])
            continue;
        const char *pn = f->params[s.arr[a]].name;
        rc = hk_buf_printf(&l, "\n    if (hk_carry_on) {\n#pragma unroll\n" /* i18n: not for people */
                               "        for (int hk_c = 0; hk_c < %d; hk_c++)\n"
                               "            if ((long long)(%s) + (long long)hk_c * (long long)(%s) < (long long)(%s))\n"
                               "                %s[(%s) + hk_c * (%s)] = hk_carry_%s[hk_c];\n"
                               "    }",
                           cap, EO, S, N, pn, EO, S, pn);
    }
    if (!rc)
        rc = hk_buf_appends(&l, "\n    }");
    if (rc) {
        hk_buf_free(&l);
        goto out;
    }
    if ((rc = rwl_edits_add_owned(&es, ts.t[s.lo].start, ts.t[s.lo_end - 1].end, hk_buf_steal(&l))))
        goto out;
    /* cap more registers a thread: without launch bounds ptxas may take more than a
     * 1024-thread block can have (65536 / 1024 = 64 on sm_90: the wild FPS takes 64, stacked
     * on block_reduce's key form 75, which no 1024-thread block can launch with). Bounded by
     * 1024, the most any launch has, it fits (spilling if it must) whatever block the
     * program picks at run time (mmcv's FPS takes opt_n_threads(n)); bounded by the spec's
     * block, a program launching more threads at sizes the spec does not name would fail
     * to launch, and unbounded, the carried registers could make a 1024-thread launch that
     * the original could make fail. */
    long long blk = f->launch_bounds ? 0 : 1024;
    char lb[64] = "";
    if (blk > 0 && blk <= 1024) {
        snprintf(lb, sizeof lb, "__launch_bounds__(%lld) ", blk);
        if ((rc = rwl_edits_add(&es, (uint32_t)f->name_span.start_byte, (uint32_t)f->name_span.start_byte, lb)))
            goto out;
    }
    struct hk_buf names;
    hk_buf_init(&names, 512);
    for (size_t a = 0; a < s.n_arr && !rc; a++)
        rc = hk_buf_printf(&names, s.wr[a] ? "%s%s" : EN(RW_CR_READ_ONLY), a ? ", " : "", f->params[s.arr[a]].name);
    char *desc = rc ? NULL
                    /* with the __launch_bounds__ it adds and without: one sentence each */
                    : hk_asprintf(lb[0] ? EN(RW_CR_DESC_LB) : EN(RW_CR_DESC),
                                  f->name, names.data ? names.data : "", rwl_line_at(c->text, ts.t[s.fo].start), E, N,
                                  S, cap, rwl_line_at(c->text, ts.t[s.lo].start), N, cap, S, S, lb);
    hk_buf_free(&names);
    if (!desc) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwl_finish(c->text, c->len, c->m, f->name, &es, desc, out);
    out->keeps_launch = rc == HK_OK && out->applicable;
out:
    for (size_t i = 0; i < HK_ARRAY_LEN(txt); i++)
        hk_free(txt[i]);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    hk_buf_free(&b);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static const rw_param cr_params[] = {
    {.name = "cap", .type = RW_PARAM_ENUM, .values = {8, 16, 32}, .n_values = 3, .def = 16},
};

static int emit_register_carry(const rw_context *c, const int *p, rw_result *out)
{
    return register_carry(c, p[0], out);
}

const rw_descriptor rw_register_carry_desc = {
    .name = "register_carry",
    .summary = "a thread's elements A[k] of a block-strided loop (k = threadIdx.x; k < N; k += S) inside an outer " /* i18n: not for people */
               "loop stay in registers across the outer loop when N <= cap * S (exact)",
    .params = cr_params,
    .n_params = HK_ARRAY_LEN(cr_params),
    /* it reshapes the loops of whatever text it is given and keeps that text's launch: on
     * a leader whose gain is elsewhere (block_reduce's tree: barriers) it removes the
     * memory traffic the leader left (RW_STACKS, search.c queue_stacks) */
    .flags = RW_STACKS,
    .emit = emit_register_carry,
};
