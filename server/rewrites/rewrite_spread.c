/* spread_lanes (issue 13, session 48): one thread per row with an inner loop of independent
 * iterations (PolyBench's covariance and correlation: a thread per j1, a loop j2 over
 * [j1, m), each iteration a sum over i stored at out[j1][j2] and its mirror out[j2][j1]).
 * m threads are too few (2048 is under one warp per SM on an H100) and the triangle makes
 * them uneven. The rewrite spreads the loop over G lanes: the grid along x is G times the
 * spec's (rw_result.grid_multiplier), the original thread is t = g / G of the global thread
 * g and its lane g % G; the index statement gives t, the loop runs J from START + lane step
 * G, and the statements before the loop that store run on lane 0 only (declarations run on
 * every lane). Each iteration of each original thread runs exactly once, by the same
 * statements in the same order (each sum keeps its order): bit-identical.
 *
 * What it proves, from the text (tokens of the kernel body), else refuses with the line:
 *  - shape: `T IDX = blockIdx.x * blockDim.x + threadIdx.x;` first (its four spellings),
 *    then `if (IDX < N) { ... }` as the body's last statement or `if (IDX >= N) return;`,
 *    N a name the kernel never writes; in the guarded region declarations and stores, then
 *    `for (T J = START; J < N; J++) { ... }` last (START IDX, IDX + c or c, c a number):
 *    so 0 <= IDX < N and 0 <= J < N in every iteration (IDX is a thread id);
 *  - the iterations write disjoint elements: every store in the loop is `A[X * N + Y]`
 *    (casts allowed, `Y + X * N`, `N * X`), X and Y each IDX or J, J among them; with
 *    0 <= X, Y < N the element names the pair (X, Y), and two pairs over {IDX, J}, {IDX, J'}
 *    that each contain the loop's index are equal only when J == J' (the mirrored store
 *    out[J][IDX] meets out[IDX][J] only at J == IDX, one iteration). Stores go to one array;
 *    the kernel reads it nowhere and uses it in no other way;
 *  - a store before the loop is lane 0's: only `A[IDX * N + IDX] = ...;` with the loop
 *    starting at IDX + c, c >= 1, so no iteration meets it;
 *  - no state carried across iterations: a name written in the loop must be declared in its
 *    body and nowhere before it (a parameter neither); the loop's index is not written in
 *    the body; no break (but a nested loop's or switch's), return or goto in it; no `->` and no unary `*` anywhere (a store the
 *    scan cannot see), every call a pure math function, no macro of the file named;
 *  - nothing after the loop (it could read the loop's results, which other lanes compute,
 *    and no barrier reaches across blocks);
 *  - the launch is read only in the index statement (threadIdx, blockIdx, blockDim,
 *    gridDim elsewhere: the lanes share one original thread), and nothing ties threads
 *    (barriers, atomics, shared memory, warp operations, fences, asm).
 * Assumed, as the original's correctness assumes it: the inputs the loop reads do not alias
 * the output (the arrays are parameters; a run-time range test is not emitted), the index
 * arithmetic does not overflow (it is the original's), and the launch has fewer than 2^31
 * threads along x so IDX is non-negative. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

typedef struct {
    const char *text;
    const rw_toks *ts;
    size_t idx;   /* token of IDX's declared name */
    size_t bound; /* token of N in the guard */
    size_t j;     /* token of J's declared name (0 before the loop is found) */
    size_t arr;   /* token of the stored array's name (0: none yet) */
} sp_state;

static bool tok_same_text(const rw_toks *ts, size_t a, size_t b)
{
    return rwl_same_tok(ts, a, b);
}

static bool tok_eq(const rw_toks *ts, size_t k, const char *s)
{
    return k < ts->n && rwl_tok_is(ts, k, s);
}

/* Is tokens [a, b) a cast `( type words )`? */
static bool is_cast(const rw_toks *ts, size_t a, size_t b)
{
    if (b < a + 3 || !tok_eq(ts, a, "(") || !tok_eq(ts, b - 1, ")"))
        return false;
    for (size_t k = a + 1; k + 1 < b; k++)
        if (!rwl_is_type_word(ts, k))
            return false;
    return true;
}

/* Index tokens [a, b) read as X * N + Y: the token indices of X, N, Y (casts skipped). */
static bool index_pair(const sp_state *s, size_t a, size_t b, size_t *x, size_t *y)
{
    const rw_toks *ts = s->ts;
    size_t v[8], nv = 0;
    for (size_t k = a; k < b;) {
        if (tok_eq(ts, k, "(")) {
            size_t c = rwl_match_close(ts, k);
            if (c >= b || !is_cast(ts, k, c + 1))
                return false;
            k = c + 1;
            continue;
        }
        if (nv == 8)
            return false;
        v[nv++] = k++;
    }
    if (nv != 5)
        return false;
    /* the operator layouts: P * Q + R, R + P * Q */
    size_t p, q, r;
    if (tok_eq(ts, v[1], "*") && tok_eq(ts, v[3], "+"))
        p = v[0], q = v[2], r = v[4];
    else if (tok_eq(ts, v[1], "+") && tok_eq(ts, v[3], "*"))
        r = v[0], p = v[2], q = v[4];
    else
        return false;
    size_t row;
    if (tok_same_text(ts, q, s->bound))
        row = p;
    else if (tok_same_text(ts, p, s->bound))
        row = q;
    else
        return false;
    bool row_ok = tok_same_text(ts, row, s->idx) || tok_same_text(ts, row, s->j);
    bool col_ok = tok_same_text(ts, r, s->idx) || tok_same_text(ts, r, s->j);
    if (!row_ok || !col_ok)
        return false;
    *x = row;
    *y = r;
    return true;
}

/* Is the name at token k declared as an array (`T name[...]`) at some token of [a, b)? */
static bool local_array_in(const rw_toks *ts, size_t a, size_t b, size_t k)
{
    for (size_t d = a; d < b; d++)
        if (d != k && ts->t[d].kind == T_IDENT && rwl_same_tok(ts, d, k) && rwl_declared_here(ts, d) &&
            tok_eq(ts, d + 1, "[") && !(d > 0 && (tok_eq(ts, d - 1, "*") || tok_eq(ts, d - 1, "&"))))
            return true;
    return false;
}

/* A store statement [a, b) `A [ I ] = E ;` (plain `=`): the tokens of A and I's bracket. */
static bool store_stmt(const rw_toks *ts, size_t a, size_t b, size_t *ob, size_t *cb)
{
    if (b < a + 6 || ts->t[a].kind != T_IDENT || !tok_eq(ts, a + 1, "["))
        return false;
    size_t c = rwl_match_close(ts, a + 1);
    if (c >= b || !tok_eq(ts, c + 1, "=") || !tok_eq(ts, b - 1, ";"))
        return false;
    *ob = a + 1;
    *cb = c;
    return true;
}

static int spread_lanes(const rw_context *ctx, int G, rw_result *out)
{
    const char *text = ctx->text;
    size_t len = ctx->len;
    *out = (rw_result){0};
    const an_function *f;
    int rc = rwl_check_kernel(text, len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    km_kernel *km = NULL;
    rw_edits es = {0};
    char why[640] = "";
    if ((rc = rwl_open_body(text, len, f, true, &ts, &km, why, sizeof why)))
        goto out;
    if (why[0])
        goto refused;
    size_t n = ts.n;
    if (n < 3 || !rwl_tok_is(&ts, 0, "{") || !rwl_tok_is(&ts, n - 1, "}")) {
        rwl_refuse(why, sizeof why, &ts, text, 0, "kernel body", "%s", EN(RW_SL_NO_ID));
        goto refused;
    }
    sp_state s = {.text = text, .ts = &ts};
    /* 1. T IDX = <global thread id>; */
    size_t a0 = 1, b0 = 0, eq = rwl_global_id_decl(&ts, text, a0, n - 1, &b0, why, sizeof why);
    if (!eq)
        goto refused;
    s.idx = eq - 1;
    if (rwl_written_elsewhere(&ts, s.idx, s.idx)) {
        size_t l = ts.t[s.idx].end - ts.t[s.idx].start;
        rwl_refuse(why, sizeof why, &ts, text, s.idx, "thread index", EN(RW_SL_CARRIED), (int)l, text + ts.t[s.idx].start);
        goto refused;
    }
    if (!rwl_scan_untied(text, len, &ts, eq + 1, b0, NULL, why, sizeof why))
        goto refused;
    /* 2. the guard */
    size_t g0 = b0, ra, rb; /* the guarded region's statements [ra, rb) */
    bool guard_ok = false;
    if (tok_eq(&ts, g0, "if") && tok_eq(&ts, g0 + 1, "(") && tok_eq(&ts, g0 + 5, ")") &&
        rwl_same_tok(&ts, g0 + 2, s.idx) && ts.t[g0 + 4].kind == T_IDENT) {
        s.bound = g0 + 4;
        if (tok_eq(&ts, g0 + 3, "<") && tok_eq(&ts, g0 + 6, "{")) {
            size_t c = rwl_match_close(&ts, g0 + 6);
            if (c + 1 == n - 1) { /* the body's last statement */
                ra = g0 + 7;
                rb = c;
                guard_ok = true;
            }
        } else if (tok_eq(&ts, g0 + 3, ">=") && tok_eq(&ts, g0 + 6, "return") && tok_eq(&ts, g0 + 7, ";")) {
            ra = g0 + 8;
            rb = n - 1;
            guard_ok = true;
        }
    }
    if (guard_ok)
        for (size_t q = 0; q < n; q++)
            if (ts.t[q].kind == T_IDENT && rwl_same_tok(&ts, q, s.bound) && rwl_is_use(&ts, q) &&
                (rwl_scalar_written(&ts, q) || rwl_declared_here(&ts, q)))
                guard_ok = false;
    if (!guard_ok) {
        rwl_refuse(why, sizeof why, &ts, text, g0, "guard", "%s", EN(RW_SL_NO_GUARD));
        goto refused;
    }
    /* 3. the region: declarations and stores, then the loop, last */
    size_t fa = 0, fb = 0;
    for (size_t q = ra; q < rb;) {
        size_t e = rwl_stmt_end(&ts, q, rb);
        if (tok_eq(&ts, q, "for")) {
            fa = q;
            fb = e;
            if (e < rb) {
                rwl_refuse(why, sizeof why, &ts, text, e, "statement", "%s", EN(RW_SL_AFTER));
                goto refused;
            }
            break;
        }
        q = e;
    }
    if (!fa) {
        rwl_refuse(why, sizeof why, &ts, text, ra < n ? ra : g0, "loop", "%s", EN(RW_SL_NO_LOOP));
        goto refused;
    }
    /* for ( TYPE J = START ; J < N ; J ++ ) { */
    size_t p = fa + 1, jd = 0;
    bool loop_ok = tok_eq(&ts, p, "(");
    size_t k = p + 1;
    while (loop_ok && k < fb && rwl_is_type_word(&ts, k))
        k++;
    if (loop_ok && k > p + 1 && ts.t[k].kind == T_IDENT && tok_eq(&ts, k + 1, "=")) {
        jd = k;
    } else
        loop_ok = false;
    size_t st_a = 0, st_b = 0, semi = 0;
    long start_c = -1; /* the number added to IDX, or -2 when START is a number alone */
    if (loop_ok) {
        st_a = jd + 2;
        for (semi = st_a; semi < fb && !rwl_tok_is(&ts, semi, ";"); semi++)
            ;
        st_b = semi;
        if (st_b == st_a + 1 && rwl_same_tok(&ts, st_a, s.idx))
            start_c = 0;
        else if (st_b == st_a + 3 && rwl_same_tok(&ts, st_a, s.idx) && tok_eq(&ts, st_a + 1, "+") &&
                 ts.t[st_a + 2].kind == T_NUMBER)
            start_c = strtol(text + ts.t[st_a + 2].start, NULL, 10);
        else if (st_b == st_a + 1 && ts.t[st_a].kind == T_NUMBER)
            start_c = -2;
        /* the number is a plain decimal */
        if (start_c != 0 && st_b > st_a) {
            size_t nk = st_b - 1;
            for (uint32_t c = ts.t[nk].start; c < ts.t[nk].end; c++)
                if (text[c] < '0' || text[c] > '9')
                    start_c = -1;
        }
        if (start_c == -1)
            loop_ok = false;
    }
    size_t lb = 0, inc = 0;
    if (loop_ok) {
        size_t q = semi + 1;
        loop_ok = rwl_same_tok(&ts, q, jd) && tok_eq(&ts, q + 1, "<") && rwl_same_tok(&ts, q + 2, s.bound) &&
                  tok_eq(&ts, q + 3, ";") &&
                  ((rwl_same_tok(&ts, q + 4, jd) && tok_eq(&ts, q + 5, "++") && tok_eq(&ts, q + 6, ")") &&
                    (inc = q + 4, lb = q + 7)) ||
                   (tok_eq(&ts, q + 4, "++") && rwl_same_tok(&ts, q + 5, jd) && tok_eq(&ts, q + 6, ")") &&
                    (inc = q + 4, lb = q + 7))) &&
                  tok_eq(&ts, lb, "{") && rwl_match_close(&ts, lb) + 1 == fb;
    }
    if (!loop_ok) {
        rwl_refuse(why, sizeof why, &ts, text, fa, "loop", "%s", EN(RW_SL_NO_LOOP));
        goto refused;
    }
    s.j = jd;
    size_t rbr = fb - 1; /* the body's '}' */
    /* 4. the loop body */
    for (size_t q = lb + 1; q < rbr; q++) {
        const char *c = text + ts.t[q].start;
        int l = (int)(ts.t[q].end - ts.t[q].start);
        if (rwl_tok_is(&ts, q, "break") || rwl_tok_is(&ts, q, "return") || rwl_tok_is(&ts, q, "goto")) {
            if (rwl_tok_is(&ts, q, "break") && rwl_in_nested(&ts, lb + 1, rbr, q, true))
                continue;
            rwl_refuse(why, sizeof why, &ts, text, q, "jump", EN(RW_SL_JUMP), l, c);
            goto refused;
        }
        if (ts.t[q].kind != T_IDENT || !rwl_is_use(&ts, q) || tok_eq(&ts, q + 1, "["))
            continue;
        if (rwl_same_tok(&ts, q, jd) && rwl_scalar_written(&ts, q)) {
            rwl_refuse(why, sizeof why, &ts, text, q, "loop index", EN(RW_SL_CARRIED), l, c);
            goto refused;
        }
        if (rwl_scalar_written(&ts, q) && !rwl_declared_here(&ts, q) &&
            (!rwl_declared_in(&ts, lb + 1, q + 1, q) || rwl_declared_in(&ts, 0, lb, q) || rwl_is_param(f, &ts, q))) {
            rwl_refuse(why, sizeof why, &ts, text, q, "carried value", EN(RW_SL_CARRIED), l, c);
            goto refused;
        }
    }
    /* arrays written: stores in the loop (top-level statements of its body, or nested
     * ones) and before it; all to one array declared nowhere in the kernel */
    for (size_t q = 1; q + 1 < n; q++) {
        if (ts.t[q].kind != T_IDENT || !tok_eq(&ts, q + 1, "[") || !rwl_is_use(&ts, q))
            continue;
        size_t c = rwl_match_close(&ts, q + 1);
        if (c >= n || !rwl_tok_is_assign_op(&ts, c + 1))
            continue;
        if (q > lb && q < rbr && local_array_in(&ts, lb + 1, q, q) && !rwl_declared_in(&ts, 0, lb, q) &&
            !rwl_is_param(f, &ts, q))
            continue; /* a local array of the iteration (`float t[2];`; a pointer is not one) */
        const char *nm = text + ts.t[q].start;
        int l = (int)(ts.t[q].end - ts.t[q].start);
        if (!rwl_tok_is(&ts, c + 1, "=") || (s.arr && !rwl_same_tok(&ts, q, s.arr)) || !rwl_is_param(f, &ts, q)) {
            rwl_refuse(why, sizeof why, &ts, text, q, "store", "%s", EN(RW_SL_STORE));
            goto refused;
        }
        s.arr = q;
        (void)nm;
        (void)l;
    }
    if (!s.arr) {
        rwl_refuse(why, sizeof why, &ts, text, lb, "loop", "%s", EN(RW_SL_STORE));
        goto refused;
    }
    /* every occurrence of the array: a store's target, nothing else */
    for (size_t q = 0; q < n; q++) {
        if (ts.t[q].kind != T_IDENT || !rwl_same_tok(&ts, q, s.arr) || !rwl_is_use(&ts, q))
            continue;
        size_t c = tok_eq(&ts, q + 1, "[") ? rwl_match_close(&ts, q + 1) : n;
        if (c >= n || !rwl_tok_is(&ts, c + 1, "=")) {
            int l = (int)(ts.t[q].end - ts.t[q].start);
            rwl_refuse(why, sizeof why, &ts, text, q, "output", EN(RW_SL_READS_OUT), l, text + ts.t[q].start);
            goto refused;
        }
        size_t x, y;
        if (q > lb && q < rbr) {
            /* in the loop: the element is the pair (X, Y), the loop's index among them */
            if (!index_pair(&s, q + 2, c, &x, &y) || (!rwl_same_tok(&ts, x, jd) && !rwl_same_tok(&ts, y, jd))) {
                rwl_refuse(why, sizeof why, &ts, text, q, "store", "%s", EN(RW_SL_STORE));
                goto refused;
            }
        } else if (q >= ra && q < fa) {
            /* before the loop: a top-level statement A[IDX * N + IDX] = E; of the region,
             * the loop starting past IDX */
            size_t e = rwl_stmt_end(&ts, q, fa);
            size_t ob, cb;
            bool top = false;
            for (size_t r = ra; r < fa;) {
                size_t re = rwl_stmt_end(&ts, r, fa);
                if (r == q)
                    top = true;
                r = re;
            }
            if (!top || !store_stmt(&ts, q, e, &ob, &cb) || !index_pair(&s, q + 2, c, &x, &y) ||
                !rwl_same_tok(&ts, x, s.idx) || !rwl_same_tok(&ts, y, s.idx) || start_c < 1) {
                rwl_refuse(why, sizeof why, &ts, text, q, "statement", "%s", EN(RW_SL_PRE));
                goto refused;
            }
        } else {
            rwl_refuse(why, sizeof why, &ts, text, q, "store", "%s", EN(RW_SL_PRE));
            goto refused;
        }
    }
    /* the region's statements before the loop: declarations (every lane) and stores (lane 0) */
    for (size_t q = ra; q < fa;) {
        size_t e = rwl_stmt_end(&ts, q, fa);
        size_t ob, cb;
        if (rwl_same_tok(&ts, q, s.arr) && store_stmt(&ts, q, e, &ob, &cb)) {
            char ind[64];
            rwl_line_indent(text, ts.t[q].start, ind, sizeof ind);
            if ((rc = rwl_edits_add(&es, ts.t[q].start, ts.t[q].start, "if (hk_sp_lane == 0u) { ")) ||
                (rc = rwl_edits_add(&es, ts.t[e - 1].end, ts.t[e - 1].end, " }")))
                goto out;
        } else if (!rwl_starts_declaration(&ts, q) || rwl_tok_is(&ts, q, "return")) {
            rwl_refuse(why, sizeof why, &ts, text, q, "statement", "%s", EN(RW_SL_PRE));
            goto refused;
        } else {
            /* a declaration: its initializers write nothing */
            for (size_t r = q; r < e; r++)
                if ((rwl_tok_is_assign_op(&ts, r) && !rwl_tok_is(&ts, r, "=")) || rwl_tok_is(&ts, r, "++") ||
                    rwl_tok_is(&ts, r, "--")) {
                    rwl_refuse(why, sizeof why, &ts, text, r, "statement", "%s", EN(RW_SL_PRE));
                    goto refused;
                }
        }
        q = e;
    }
    /* the edits: the index statement, the lane, the loop's start and step */
    char *repl = hk_asprintf("(unsigned)(((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / %du)", /* i18n: not for people */
                             G);
    if (!repl) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_edits_add_owned(&es, ts.t[eq + 1].start, ts.t[b0 - 2].end, repl)))
        goto out;
    repl = hk_asprintf("\n    const unsigned hk_sp_lane = (unsigned)(((unsigned long long)blockIdx.x * blockDim.x + " /* i18n: not for people */
                       "threadIdx.x) %% %du); /* hk spread_lanes: %d lanes share each original thread's loop */",
                       G, G);
    if (!repl) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_edits_add_owned(&es, ts.t[b0 - 1].end, ts.t[b0 - 1].end, repl)))
        goto out;
    char *ty = rwl_tok_text(&ts, p + 1, jd);
    char *st = rwl_tok_text(&ts, st_a, st_b);
    if (!ty || !st) {
        free(ty);
        free(st);
        rc = HK_ENOMEM;
        goto out;
    }
    repl = hk_asprintf("(%s) + (%s)hk_sp_lane", st, ty);
    free(ty);
    free(st);
    if (!repl) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_edits_add_owned(&es, ts.t[st_a].start, ts.t[st_b - 1].end, repl)))
        goto out;
    char *jn = rwl_tok_text(&ts, jd, jd + 1);
    if (!jn) {
        rc = HK_ENOMEM;
        goto out;
    }
    repl = hk_asprintf("%s += %d", jn, G);
    if (!repl) {
        free(jn);
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_edits_add_owned(&es, ts.t[inc].start, ts.t[inc + 1].end, repl))) {
        free(jn);
        goto out;
    }
    char *d = hk_asprintf(EN(RW_SL_DESC), f->name, jn, G, G, G, jn, G);
    free(jn);
    rc = rwl_finish(text, len, ctx->m, f->name, &es, d, out);
    if (rc == HK_OK && out->applicable) {
        out->grid_multiplier = (unsigned)G;
        out->grid_axis = 0;
    }
    goto out;
refused:
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "spread_lanes", f->name,
                                             why[0] ? why : EN(RW_NO_REASON)));
out:
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    km_free(km);
    return rc;
}

static const rw_param spread_params[] = {
    {.name = "lanes", .type = RW_PARAM_INT, .min = 2, .max = 32, .def = 8},
};

static int emit_spread_lanes(const rw_context *c, const int *p, rw_result *out)
{
    return spread_lanes(c, p[0], out);
}

const rw_descriptor rw_spread_lanes_desc = {
    .name = "spread_lanes",
    .summary = "a thread's loop of independent iterations spread over G lanes (grid x G)", /* i18n: not for people (no listing reads it) */
    .params = spread_params,
    .n_params = HK_ARRAY_LEN(spread_params),
    .flags = RW_ALGORITHM,
    .emit = emit_spread_lanes,
};
