/* split_grid_partials: a kernel whose fixed grid of G blocks each reduce a grid-stride
 * loop to one partial (`out[blockIdx.x]`, SHOC's reduce<float, 256>: 64 blocks of 256 over
 * 2^25 floats) has too few loads in flight to reach the memory roofline, and its output
 * count fixes the grid: no rewrite that adds blocks per element applies. The rewrite gives
 * each original block b S blocks (a launch of G * S): part s takes every S-th step of b's
 * grid-stride loop, reduces it with the kernel's own block reduction into a scratch
 * partial, and the last part of b to finish (an atomic ticket) combines the S partials in
 * the fixed order s = 0..S-1 with the loop's own combine and writes out[b]. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

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

/* Why it is exact (up to a float sum's order). Every blockIdx.x of the body becomes b =
 * blockIdx.x / S and every gridDim.x the original grid G, so each of b's S parts runs the
 * original block b's code, except the grid-stride loop: the original visits start + k *
 * STEP (k = 0, 1, ... while below the bound), part s visits start + (s + j * S) * STEP,
 * the k with k mod S == s. The parts' sets are disjoint and their union is the original's,
 * whatever S and the trip count (a part whose first index is past the bound runs no
 * iteration and keeps its initial state). The loop only combines into per-thread state
 * with one operation op (+, max or min: the model's accumulators and read-modify-writes
 * in the loop; nothing else carried); for + the state starts at 0, for max/min at
 * anything (they are idempotent: the initial value counted S times is counted once).
 * What follows the loop combines the threads' states with the same op into the stored
 * value (a shared slot every later write of which is an op-update, or an accumulator of
 * op), so part s stores op over its iterations, and op over the S parts is op over all of
 * b's iterations: the original's value, for integers bit for bit, for a float sum in
 * another order (the spec's tolerance judges). The only global write is that one store,
 * so running the rest of the body S times changes nothing else. The ticket: every part
 * writes its partial, fences (__threadfence: visible device-wide before the ticket), and
 * thread 0 draws atomicAdd(ticket[b]); the part that draws S - 1 is the last, fences,
 * reads the S partials through volatile loads (from L2, not a stale L1 line) and resets ticket[b] and
 * its S partials to 0, which the kernel boundary orders before the next launch: a launch leaves
 * the scratch as the module loader gave it (the referee rejects a candidate whose launch leaves a
 * __device__ variable changed, launch_state: docs/referee.md). A launch of fewer than 2 * G
 * blocks runs S = 1: exactly the original (the scratch and the ticket unused). */

#define GS_SMAX 32

typedef struct {
    const char *text;
    size_t len;
    const an_model *m;
    const an_function *f;
    rw_toks ts;               /* the kernel body's tokens: [0] its '{', [n - 1] its '}' */
    km_kernel *km;
    char why[700];
} gs_scan;

typedef struct {
    long loop;                /* index in km_loops */
    bool is_for;
    size_t kw;                /* `for` or `while` */
    size_t var;               /* a token naming the index */
    size_t start_a, start_b;  /* for: the init's expression */
    size_t step_a, step_b;    /* the step's expression (`i += STEP`) */
    size_t body_a, body_b;    /* the loop's body statement */
    size_t stmt_b;            /* one past the whole loop */
} gs_loop;

#define refuse(s, k, ...) rwl_refuse((s)->why, sizeof (s)->why, &(s)->ts, (s)->text, (k), __VA_ARGS__)

static int line_of(const gs_scan *s, size_t k)
{
    return rwl_line_at(s->text, s->ts.t[k < s->ts.n ? k : s->ts.n - 1].start);
}

/* Appends tokens [a, b) with the text between them, blockIdx.x written as hk_gs_b and
 * gridDim.x as hk_gs_G. */
static int put_subst(struct hk_buf *h, const gs_scan *s, size_t a, size_t b)
{
    const rw_toks *ts = &s->ts;
    int rc = HK_OK;
    for (size_t q = a; q < b && !rc; q++) {
        if (q > a)
            rc = hk_buf_append(h, s->text + ts->t[q - 1].end, ts->t[q].start - ts->t[q - 1].end);
        if (rc)
            break;
        if (q + 2 < b && (rwl_builtin_x(ts, q, "blockIdx") || rwl_builtin_x(ts, q, "gridDim"))) {
            rc = hk_buf_appends(h, rwl_tok_is_ident(ts, q, "blockIdx") ? "hk_gs_b" : "hk_gs_G");
            q += 2;
        } else {
            rc = hk_buf_append(h, s->text + ts->t[q].start, ts->t[q].end - ts->t[q].start);
        }
    }
    return rc;
}

static char *subst_text(const gs_scan *s, size_t a, size_t b)
{
    struct hk_buf h;
    hk_buf_init(&h, RW_TEXT_MAX);
    if (put_subst(&h, s, a, b)) {
        hk_buf_free(&h);
        return NULL;
    }
    if (!h.data)
        return hk_strdup("");
    return h.data;
}

/* The one grid-stride loop along x (plain, or of width W >= 2), at the body's top level. */
static bool find_grid_loop(gs_scan *s, gs_loop *L)
{
    size_t nl = 0;
    const km_loop *lp = km_loops(s->km, &nl);
    long found = -1;
    for (size_t i = 0; i < nl; i++) {
        bool gs = (lp[i].kind == KM_LOOP_GRID_STRIDE && km_form_mentions_kind(s->km, lp[i].start, KM_ATOM_THREAD_IDX, 0) &&
                   km_form_mentions_kind(s->km, lp[i].step, KM_ATOM_GRID_DIM, 0)) ||
                  (lp[i].kind == KM_LOOP_AFFINE && lp[i].grid_width >= 2 && lp[i].grid_axis == 0);
        if (!gs)
            continue;
        if (found >= 0) {
            snprintf(s->why, sizeof s->why, EN(RW_GS_SECOND_LOOP), lp[i].line, lp[found].line);
            return false;
        }
        found = (long)i;
    }
    if (found < 0)
        return refuse(s, 1, "kernel body", EN(RW_GS_NO_GRID_LOOP_X));
    if (lp[found].parent >= 0) {
        snprintf(s->why, sizeof s->why, EN(RW_GS_INSIDE_LOOP), lp[found].line);
        return false;
    }
    L->loop = found;
    const rw_toks *ts = &s->ts;
    size_t kw = 0;
    for (size_t k = 1; k + 1 < ts->n && !kw; k++)
        if ((rwl_tok_is_ident(ts, k, "for") || rwl_tok_is_ident(ts, k, "while")) && rwl_tok_is(ts, k + 1, "(") &&
            (uint32_t)line_of(s, k) == lp[found].line)
            kw = k;
    if (!kw) {
        snprintf(s->why, sizeof s->why, EN(RW_GS_NOT_OWN_TEXT),
                 lp[found].line);
        return false;
    }
    /* at the body's top level */
    size_t depth = 0;
    for (size_t k = 1; k < kw; k++) {
        depth += rwl_tok_is(ts, k, "{") || rwl_tok_is(ts, k, "(");
        depth -= rwl_tok_is(ts, k, "}") || rwl_tok_is(ts, k, ")");
    }
    if (depth != 0)
        return refuse(s, kw, "loop", EN(RW_GS_NOT_TOP_LEVEL));
    L->kw = kw;
    L->is_for = rwl_tok_is_ident(ts, kw, "for");
    size_t open = kw + 1, close = rwl_match_close(ts, open);
    if (close + 1 >= ts->n)
        return refuse(s, kw, "loop", EN(RW_GS_HEADER_UNBALANCED));
    L->body_a = close + 1;
    L->body_b = rwl_stmt_end(ts, close + 1, ts->n - 1);
    L->stmt_b = L->body_b;
    const char *var = lp[found].var;
    size_t vl = var ? strlen(var) : 0;
#define IS_VAR(q) (ts->t[q].kind == T_IDENT && ts->t[q].end - ts->t[q].start == vl && \
                   !memcmp(ts->text + ts->t[q].start, var, vl))
    if (!vl)
        return refuse(s, kw, "loop", EN(RW_GS_NO_INDEX));
    if (L->is_for) {
        size_t s2 = 0, s3 = 0;
        for (size_t q = open + 1, d = 0; q < close; q++) {
            d += rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[");
            d -= rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]");
            if (d == 0 && rwl_tok_is(ts, q, ";"))
                (s2 ? &s3 : &s2)[0] = q;
        }
        if (!s2 || !s3)
            return refuse(s, kw, "loop", EN(RW_GS_NOT_INIT_COND_STEP));
        size_t eq = open + 1;
        while (eq < s2 && !rwl_tok_is(ts, eq, "="))
            eq++;
        if (eq >= s2 || !IS_VAR(eq - 1) || eq + 1 >= s2)
            return refuse(s, kw, "loop", EN(RW_GS_INIT_NOT));
        for (size_t q = eq + 1, d = 0; q < s2; q++) {
            d += rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[");
            d -= rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]");
            if (d == 0 && rwl_tok_is(ts, q, ","))
                return refuse(s, kw, "loop", EN(RW_GS_INIT_MORE));
        }
        L->var = eq - 1;
        L->start_a = eq + 1;
        L->start_b = s2;
        if (IS_VAR(s3 + 1) && rwl_tok_is(ts, s3 + 2, "+=") && s3 + 3 < close) {
            L->step_a = s3 + 3;
            L->step_b = close;
        } else {
            return refuse(s, kw, "loop", EN(RW_GS_STEP_NOT));
        }
    } else {
        /* while (i < n) { ...; i += STEP; } */
        if (!rwl_tok_is(ts, L->body_a, "{"))
            return refuse(s, kw, "loop", EN(RW_GS_WHILE_NOT_BLOCK));
        size_t rb = rwl_match_close(ts, L->body_a);
        if (rb >= ts->n || rb < L->body_a + 4 || !rwl_tok_is(ts, rb - 1, ";"))
            return refuse(s, kw, "loop", EN(RW_GS_WHILE_NO_STEP));
        size_t a = rb - 1;
        while (a > L->body_a + 1 && !rwl_tok_is(ts, a - 1, ";") && !rwl_tok_is(ts, a - 1, "{") &&
               !rwl_tok_is(ts, a - 1, "}"))
            a--;
        if (!IS_VAR(a) || !rwl_tok_is(ts, a + 1, "+=") || a + 2 >= rb - 1)
            return refuse(s, kw, "loop", EN(RW_GS_WHILE_NO_STEP));
        L->var = a;
        L->step_a = a + 2;
        L->step_b = rb - 1;
        /* the step is written again before the loop: the names it reads are declared there */
        for (size_t q = L->step_a; q < L->step_b; q++)
            for (size_t d = L->body_a; ts->t[q].kind == T_IDENT && d < rb; d++)
                if (rwl_same_tok(ts, d, q) && rwl_is_use(ts, d) && rwl_declared_here(ts, d))
                    return refuse(s, d, "statement", EN(RW_GS_STEP_READS_INNER));
    }
    for (size_t q = L->step_a, d = 0; q < L->step_b; q++) {
        d += rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[");
        d -= rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]");
        if (d == 0 && rwl_tok_is(ts, q, ","))
            return refuse(s, kw, "loop", EN(RW_GS_STEP_MORE));
    }
    for (size_t q = L->step_a; q < L->step_b; q++)
        if (IS_VAR(q) || rwl_tok_is(ts, q, "?") ||
            (ts->t[q].kind == T_IDENT && rwl_tok_is(ts, q + 1, "(") && !rwl_pure_call_name(ts, q) &&
             !rwl_is_type_word(ts, q)))
            return refuse(s, kw, "loop", EN(RW_GS_STEP_MORE));
#undef IS_VAR
    /* the step's form: uniform over the block and the loop */
    const km_loop *m = &lp[found];
    if (km_form_mentions_kind(s->km, m->step, KM_ATOM_THREAD_IDX, -1) ||
        km_form_mentions_kind(s->km, m->step, KM_ATOM_READ, -1) || km_form_mentions_kind(s->km, m->step, KM_ATOM_VAR, -1) ||
        km_form_mentions_kind(s->km, m->step, KM_ATOM_ACC, -1) || km_form_mentions_kind(s->km, m->step, KM_ATOM_LOOP, -1))
        return refuse(s, kw, "loop", EN(RW_GS_STEP_DIFFERS));
    /* names the step or the bound read are not written in the loop (but the index's own step) */
    for (size_t q = L->body_a; q < L->body_b; q++) {
        if (ts->t[q].kind != T_IDENT || !rwl_is_use(ts, q) || !rwl_scalar_written(ts, q) || q == L->var)
            continue;
        for (size_t r = L->step_a; r < L->step_b; r++)
            if (rwl_same_tok(ts, q, r))
                return refuse(s, q, "statement", EN(RW_GS_CHANGES_STEP_NAME));
    }
    return true;
}

static bool is_zero_literal(const rw_toks *ts, size_t k)
{
    if (ts->t[k].kind == T_IDENT)
        return false;
    char b[40];
    size_t n = ts->t[k].end - ts->t[k].start;
    if (n == 0 || n >= sizeof b)
        return false;
    memcpy(b, ts->text + ts->t[k].start, n);
    b[n] = '\0';
    char *e = NULL;
    double v = strtod(b, &e);
    return e != b && v == 0.0 && (!*e || !strcmp(e, "f") || !strcmp(e, "F") || !strcmp(e, "u") || !strcmp(e, "U"));
}

/* The statement around token k: [*a, *b) with *b its ';'. */
static void stmt_around(const rw_toks *ts, size_t k, size_t *a, size_t *b)
{
    size_t q = k;
    while (q > 1 && !rwl_tok_is(ts, q - 1, ";") && !rwl_tok_is(ts, q - 1, "{") && !rwl_tok_is(ts, q - 1, "}"))
        q--;
    *a = q;
    for (q = k; q < ts->n - 1 && !rwl_tok_is(ts, q, ";"); q++)
        ;
    *b = q;
}

/* Where the model does not follow the per-thread state (a shared array reached through a
 * pointer local: SHOC's `volatile T *sdata = shared.getPointer()`), the tokens: the loop
 * writes one array X declared in the body only as `X[...] += v;` (a sum), X is __shared__ or
 * a pointer local whose initialiser names no kernel parameter (so no global buffer the
 * kernel was given), before the loop X is only set to 0 (`X[...] = 0;`), after it only
 * `X[...] += ...`. The token of X's first write in the loop into *slot. */
static bool token_slot(gs_scan *s, const gs_loop *L, size_t *slot)
{
    const rw_toks *ts = &s->ts;
    size_t x = 0;
    for (size_t k = L->body_a; k < L->body_b; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k) || rwl_same_tok(ts, k, L->var) ||
            rwl_tok_is(ts, k + 1, "(") || rwl_is_type_word(ts, k))
            continue;
        bool local = false;
        for (size_t d = L->body_a; d <= k && !local; d++)
            local = rwl_same_tok(ts, d, k) && rwl_is_use(ts, d) && rwl_declared_here(ts, d);
        if (local || !(rwl_scalar_written(ts, k) || (rwl_tok_is(ts, k + 1, "[") && rwl_occurrence_writes(ts, k))))
            continue;
        size_t rb = rwl_tok_is(ts, k + 1, "[") ? rwl_match_close(ts, k + 1) : ts->n;
        if (rb >= ts->n || !rwl_tok_is(ts, rb + 1, "+="))
            return refuse(s, k, "statement", EN(RW_GS_WRITES_OTHER_THAN),
                          (int)(ts->t[k].end - ts->t[k].start), ts->text + ts->t[k].start,
                          (int)(ts->t[k].end - ts->t[k].start), ts->text + ts->t[k].start);
        if (x && !rwl_same_tok(ts, x, k))
            return refuse(s, k, "statement", EN(RW_GS_MORE_THAN_ONE_ARRAY));
        if (!x)
            x = k;
    }
    if (!x)
        return refuse(s, L->kw, "loop", EN(RW_GS_NO_COMBINE_FULL));
    size_t ndecl = 0;
    for (size_t d = 1; d + 1 < ts->n; d++) {
        if (!rwl_same_tok(ts, d, x) || !rwl_is_use(ts, d))
            continue;
        size_t a, b;
        stmt_around(ts, d, &a, &b);
        bool decl = rwl_declared_here(ts, d);
        if (!decl && d > a + 1) {   /* `volatile T *x = ...`: qualifiers, a type name, stars */
            decl = true;
            for (size_t q = a; q < d && decl; q++)
                decl = ts->t[q].kind == T_IDENT || rwl_tok_is(ts, q, "*");
            decl = decl && (rwl_tok_is(ts, d + 1, "=") || rwl_tok_is(ts, d + 1, "[") || rwl_tok_is(ts, d + 1, ";"));
        }
        if (decl) {
            ndecl++;
            bool shared = false, names_param = false, init = false;
            for (size_t q = a; q < b; q++) {
                shared |= rwl_tok_is_ident(ts, q, "__shared__");
                init |= q > d && rwl_tok_is(ts, q, "=");
                for (size_t p = 0; q > d && ts->t[q].kind == T_IDENT && p < s->f->n_params; p++)
                    names_param |= s->f->params[p].name &&
                                   strlen(s->f->params[p].name) == ts->t[q].end - ts->t[q].start &&
                                   !memcmp(s->f->params[p].name, ts->text + ts->t[q].start, ts->t[q].end - ts->t[q].start);
            }
            if (!shared && (!init || names_param))
                return refuse(s, d, "statement", EN(RW_GS_MAY_WRITE_GLOBAL),
                              (int)(ts->t[d].end - ts->t[d].start), ts->text + ts->t[d].start);
            d = b;
            continue;
        }
        if (d >= L->body_a && d < L->body_b)
            continue;
        size_t rb = rwl_tok_is(ts, d + 1, "[") ? rwl_match_close(ts, d + 1) : ts->n;
        bool writes = rb < ts->n ? rwl_tok_is_assign_op(ts, rb + 1) : rwl_occurrence_writes(ts, d);
        if (!writes && rb < ts->n)
            continue;
        if (rb < ts->n && d < L->kw && rwl_tok_is(ts, rb + 1, "=") && is_zero_literal(ts, rb + 2) &&
            rwl_tok_is(ts, rb + 3, ";"))
            continue;
        if (rb + 3 < ts->n && d > L->kw && rwl_tok_is(ts, rb + 1, "+=") && rwl_same_tok(ts, rb + 2, d) &&
            rwl_tok_is(ts, rb + 3, "[") && rwl_match_close(ts, rb + 3) + 1 < ts->n &&
            rwl_tok_is(ts, rwl_match_close(ts, rb + 3) + 1, ";"))
            continue;   /* the tree: `X[a] += X[b];` */
        return refuse(s, d, "statement", EN(RW_GS_WRITTEN_NOT_ZERO_SUM),
                      (int)(ts->t[d].end - ts->t[d].start), ts->text + ts->t[d].start);
    }
    if (!ndecl)
        return refuse(s, x, "statement", EN(RW_GS_NOT_DECLARED), (int)(ts->t[x].end - ts->t[x].start),
                      ts->text + ts->t[x].start);
    *slot = x;
    return true;
}

/* The loop's body: no exit, barrier, global atomic, and no state carried but the index and
 * the combines the model reads; the combine's operation into *op. */
static bool check_loop_body(gs_scan *s, const gs_loop *L, enum km_op *op, size_t *slot)
{
    *slot = 0;
    const rw_toks *ts = &s->ts;
    size_t nl = 0, na = 0, nacc = 0;
    (void)km_loops(s->km, &nl);
    const km_access *acc = km_accesses(s->km, &na);
    const km_accumulator *ac = km_accumulators(s->km, &nacc);
    for (size_t k = L->body_a; k < L->body_b; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
            continue;
        const char *t = ts->text + ts->t[k].start;
        if (rwl_tok_is_ident(ts, k, "break") || rwl_tok_is_ident(ts, k, "goto") || rwl_tok_is_ident(ts, k, "return"))
            return refuse(s, k, "statement", EN(RW_GS_TRIP_DEPENDS));
        if (!strncmp(t, "__sync", 6) || !strncmp(t, "__threadfence", 13))
            return refuse(s, k, "__syncthreads", EN(RW_GS_BARRIER_IN_LOOP));
        if (!strncmp(t, "__shfl", 6) || !strncmp(t, "__ballot", 8) || !strncmp(t, "__reduce", 8))
            return refuse(s, k, "warp intrinsic", EN(RW_GS_WARP_IN_LOOP));
        if (rwl_tok_is(ts, k + 1, "(")) {
            const an_function *g = rwl_callee(s->m, s->f, &s->ts, k);
            if (g && rwl_mentions_grid(s->text + g->body_span.start_byte, g->body_span.end_byte - g->body_span.start_byte))
                return refuse(s, k, "call", EN(RW_GS_CALL_READS_GRID), (int)(ts->t[k].end - ts->t[k].start), t);
        }
    }
    enum km_op want = KM_OP_NONE;
    bool mixed = false;
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &acc[i];
        bool in = false;
        for (uint32_t q = 0; q < a->n_loops; q++)
            in |= (long)a->loops[q] == L->loop;
        if (!in || a->mode == KM_READ)
            continue;
        if (a->space == KM_SPACE_GLOBAL || a->atomic) {
            /* with an atomic or without: one sentence each */
            snprintf(s->why, sizeof s->why, a->atomic ? EN(RW_GS_LOOP_WRITES_ATOMIC) : EN(RW_GS_LOOP_WRITES), a->line,
                     a->buffer ? a->buffer : EN(RW_C_MEMORY));
            return false;
        }
        if (a->mode != KM_RMW || (want != KM_OP_NONE && a->op != want)) {
            mixed = true;
            snprintf(s->why, sizeof s->why, EN(RW_GS_LOOP_WRITES_OTHER), a->line, a->buffer ? a->buffer : EN(RW_C_MEMORY));
            return false;
        }
        want = a->op;
    }
    for (size_t i = 0; i < nacc; i++) {
        const km_accumulator *c = &ac[i];
        bool in = false;
        for (long l = c->loop; l >= 0 && (size_t)l < nl; l = km_loops(s->km, &nl)[l].parent)
            in |= l == L->loop;
        if (!in)
            continue;
        if (want != KM_OP_NONE && c->op != want)
            mixed = true;
        want = c->op;
    }
    if (want == KM_OP_NONE && !mixed) {
        if (!token_slot(s, L, slot))
            return false;
        want = KM_OP_SUM;
    }
    if (mixed || (want != KM_OP_SUM && want != KM_OP_MAX && want != KM_OP_MIN))
        return refuse(s, L->kw, "loop", EN(RW_GS_NO_COMBINE_OP), want == KM_OP_NONE ? EN(RW_GS_NO_COMBINE) : km_op_name(want));
    /* scalars written in the loop and declared outside it: the index and the accumulators */
    for (size_t k = L->body_a; k < L->body_b; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k) || !rwl_scalar_written(ts, k) || rwl_same_tok(ts, k, L->var))
            continue;
        bool local = false;
        for (size_t d = L->body_a; d < k && !local; d++)
            local = rwl_same_tok(ts, d, k) && rwl_is_use(ts, d) && rwl_declared_here(ts, d);
        bool accu = false;
        for (size_t i = 0; i < nacc && !accu && !local; i++)
            accu = ac[i].name && strlen(ac[i].name) == ts->t[k].end - ts->t[k].start &&
                   !memcmp(ac[i].name, ts->text + ts->t[k].start, strlen(ac[i].name)) && ac[i].op == want;
        if (!local && !accu)
            return refuse(s, k, "statement", EN(RW_GS_CARRIED), (int)(ts->t[k].end - ts->t[k].start),
                          ts->text + ts->t[k].start);
    }
    *op = want;
    return true;
}

static bool zero_form(const km_kernel *k, km_form f)
{
    if (f.n == 0)
        return true;
    size_t na = 0;
    const km_atom *at = km_atoms(k, &na);
    if (f.n != 1 || f.t[0].coef != 1 || f.t[0].n != 1 || f.t[0].atoms[0] >= na)
        return false;
    const km_atom *a = &at[f.t[0].atoms[0]];
    if (a->kind != KM_ATOM_LITERAL || !a->text)
        return false;
    char *e = NULL;
    double v = strtod(a->text, &e);
    return e != a->text && v == 0.0 && (!*e || !strcmp(e, "f") || !strcmp(e, "F"));
}

/* Does f read only buffer name (one atom, the read of an element of it)? */
static bool reads_only(const km_kernel *k, km_form f, const char *name)
{
    size_t natoms = 0;
    const km_atom *at = km_atoms(k, &natoms);
    if (f.n != 1 || f.t[0].coef != 1 || f.t[0].n != 1 || f.t[0].atoms[0] >= natoms)
        return false;
    const km_atom *a = &at[f.t[0].atoms[0]];
    return a->kind == KM_ATOM_READ && a->name && name && !strcmp(a->name, name);
}

/* After the grid-stride loop, accumulator name is written only by a warp combine of
 * itself: `name += __shfl_*_sync(mask, name, ...)` for a sum, `name = max(name,
 * __shfl_*_sync(mask, name, ...))` (max, fmaxf, min, fminf) for max/min. Anything else
 * (`name += in[0]`) would be counted once per part. */
static bool acc_after_loop_ok(const gs_scan *s, const gs_loop *L, enum km_op op, const char *name)
{
    const rw_toks *ts = &s->ts;
    size_t nl = name ? strlen(name) : 0;
    if (!nl)
        return false;
    for (size_t k = L->stmt_b; k + 1 < ts->n; k++) {
        if (ts->t[k].kind != T_IDENT || ts->t[k].end - ts->t[k].start != nl ||
            memcmp(ts->text + ts->t[k].start, name, nl) || !rwl_is_use(ts, k) || !rwl_scalar_written(ts, k))
            continue;
        size_t sh = 0;
        if (op == KM_OP_SUM && rwl_tok_is(ts, k + 1, "+="))
            sh = k + 2;
        else if (op != KM_OP_SUM && rwl_tok_is(ts, k + 1, "=") && k + 6 < ts->n &&
                 (rwl_tok_is_ident(ts, k + 2, op == KM_OP_MAX ? "max" : "min") ||
                  rwl_tok_is_ident(ts, k + 2, op == KM_OP_MAX ? "fmaxf" : "fminf")) &&
                 rwl_tok_is(ts, k + 3, "(") && rwl_same_tok(ts, k + 4, k) && rwl_tok_is(ts, k + 5, ","))
            sh = k + 6;
        if (!sh || sh + 2 >= ts->n || strncmp(ts->text + ts->t[sh].start, "__shfl", 6) || !rwl_tok_is(ts, sh + 1, "("))
            return false;
        size_t close = rwl_match_close(ts, sh + 1), c1 = 0;
        for (size_t q = sh + 2, d = 0; q < close && !c1; q++) {
            d += rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[");
            d -= rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]");
            if (d == 0 && rwl_tok_is(ts, q, ","))
                c1 = q;
        }
        if (!c1 || !rwl_same_tok(ts, c1 + 1, k) || !(rwl_tok_is(ts, c1 + 2, ",") || rwl_tok_is(ts, c1 + 2, ")")))
            return false;
        size_t end = close + 1 + (op != KM_OP_SUM);
        if (end >= ts->n || !rwl_tok_is(ts, end, ";"))
            return false;
    }
    return true;
}

/* Is f the running value of an accumulator of op updated in the grid-stride loop (for a
 * sum, one that starts at 0: *bad_init otherwise)? */
static bool acc_of_loop(const gs_scan *s, const gs_loop *L, enum km_op op, km_form f, bool *bad_init)
{
    size_t natoms = 0, nacc = 0, nl = 0;
    const km_atom *at = km_atoms(s->km, &natoms);
    const km_accumulator *ac = km_accumulators(s->km, &nacc);
    const km_loop *lp = km_loops(s->km, &nl);
    if (f.n != 1 || f.t[0].coef != 1 || f.t[0].n != 1 || f.t[0].atoms[0] >= natoms)
        return false;
    const km_atom *a = &at[f.t[0].atoms[0]];
    if (a->kind != KM_ATOM_ACC || a->loop < 0 || (size_t)a->loop >= nacc || ac[a->loop].op != op)
        return false;
    bool in = false;
    for (long l = ac[a->loop].loop; l >= 0 && (size_t)l < nl; l = lp[l].parent)
        in |= l == L->loop;
    if (!in)
        return false;
    if (op == KM_OP_SUM && !zero_form(s->km, ac[a->loop].init)) {
        *bad_init = true;
        return false;
    }
    return acc_after_loop_ok(s, L, op, ac[a->loop].name);
}

/* The per-block result: the kernel's only global write, out[blockIdx.x] outside the loop,
 * in the body's last top-level statement, of a value that is op over the threads' states.
 * Its token range [*sa, *sb) (`out [ ... ] = v ;`), the buffer's token *buf, the value's
 * range [*va, *vb). */
static bool find_store(gs_scan *s, const gs_loop *L, enum km_op op, size_t slot, size_t *sa, size_t *sb, size_t *va, size_t *vb)
{
    const rw_toks *ts = &s->ts;
    size_t na = 0, nacc = 0, natoms = 0;
    const km_access *acc = km_accesses(s->km, &na);
    const km_accumulator *ac = km_accumulators(s->km, &nacc);
    const km_atom *at = km_atoms(s->km, &natoms);
    const km_access *st = NULL;
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &acc[i];
        if (a->space != KM_SPACE_GLOBAL || a->mode == KM_READ)
            continue;
        if (a->atomic || a->mode == KM_RMW) {
            snprintf(s->why, sizeof s->why, EN(RW_GS_ATOMIC_ACROSS), a->line, a->buffer ? a->buffer : "memory");
            return false;
        }
        if (st) {
            snprintf(s->why, sizeof s->why, EN(RW_GS_SECOND_STORE), a->line, st->line);
            return false;
        }
        st = a;
    }
    if (!st || !st->buffer)
        return refuse(s, 1, "kernel body", EN(RW_GS_NO_RESULT));
    for (size_t i = 0; i < na; i++)
        if (acc[i].space == KM_SPACE_GLOBAL && acc[i].mode == KM_READ && acc[i].buffer && !strcmp(acc[i].buffer, st->buffer)) {
            snprintf(s->why, sizeof s->why, EN(RW_GS_READS_WRITTEN), acc[i].line, st->buffer);
            return false;
        }
    uint32_t bi;
    if (!km_builtin_atom(s->km, KM_ATOM_BLOCK_IDX, 0, &bi) || st->index.n != 1 || st->index.t[0].coef != 1 ||
        st->index.t[0].n != 1 || st->index.t[0].atoms[0] != bi) {
        snprintf(s->why, sizeof s->why, EN(RW_GS_NOT_AT_BLOCKIDX), st->line, st->buffer);
        return false;
    }
    if (st->n_loops) {
        snprintf(s->why, sizeof s->why, EN(RW_GS_RESULT_IN_LOOP), st->line);
        return false;
    }
    /* the value: a single atom, the read of a slot only op-updated after the loop, or an
     * accumulator of op (the slot the tokens read: checked below) */
    if (slot) {
    } else if (st->value.n != 1 || st->value.t[0].coef != 1 || st->value.t[0].n != 1 || st->value.t[0].atoms[0] >= natoms) {
        snprintf(s->why, sizeof s->why, EN(RW_GS_NOT_STATE_ALONE),
                 st->line);
        return false;
    }
    const km_atom *v = slot ? NULL : &at[st->value.t[0].atoms[0]];
    size_t nl = 0;
    const km_loop *lp = km_loops(s->km, &nl);
    uint32_t loop_line = lp[L->loop].line;
    if (!v) {
    } else if (v->kind == KM_ATOM_ACC) {
        if (v->loop < 0 || (size_t)v->loop >= nacc || ac[v->loop].op != op ||
            (op == KM_OP_SUM && !zero_form(s->km, ac[v->loop].init)) || !acc_after_loop_ok(s, L, op, ac[v->loop].name)) {
            /* a sum's accumulator starts at 0: one sentence each */
            snprintf(s->why, sizeof s->why, op == KM_OP_SUM ? EN(RW_GS_NOT_ACC_ZERO) : EN(RW_GS_NOT_ACC), st->line,
                     km_op_name(op));
            return false;
        }
    } else if (v->kind == KM_ATOM_READ && v->name) {
        bool updated = false, bad_init = false;
        for (size_t i = 0; i < na; i++) {
            const km_access *a = &acc[i];
            if (!a->buffer || strcmp(a->buffer, v->name) || a->mode == KM_READ)
                continue;
            if (a->space == KM_SPACE_GLOBAL)
                return refuse(s, 1, "store", EN(RW_GS_STORED_FROM_GLOBAL));
            bool in_loop = false;
            for (uint32_t q = 0; q < a->n_loops; q++)
                in_loop |= (long)a->loops[q] == L->loop;
            if (in_loop) {
                updated = true;
                continue;
            }
            if (a->line < loop_line) {
                /* its initial state: 0 for a sum; max/min take any */
                if (a->mode == KM_WRITE && (op != KM_OP_SUM || zero_form(s->km, a->value)))
                    continue;
            } else if (a->mode == KM_RMW && a->op == op && !a->atomic && reads_only(s->km, a->value, v->name)) {
                continue;   /* the tree: the slot combined with another slot */
            } else if (a->mode == KM_WRITE && acc_of_loop(s, L, op, a->value, &bad_init)) {
                updated = true;   /* the thread's state of the loop, put into the slot */
                continue;
            }
            if (bad_init) {
                snprintf(s->why, sizeof s->why, EN(RW_GS_SUM_NOT_ZERO), a->line, v->name);
                return false;
            }
            snprintf(s->why, sizeof s->why, op == KM_OP_SUM ? EN(RW_GS_WRITTEN_OTHER_ZERO) : EN(RW_GS_WRITTEN_OTHER),
                     a->line, v->name, km_op_name(op));
            return false;
        }
        if (!updated) {
            snprintf(s->why, sizeof s->why, EN(RW_GS_NOT_WHAT_COMBINES), st->line, v->name);
            return false;
        }
    } else {
        snprintf(s->why, sizeof s->why, EN(RW_GS_NOT_STATE_ALONE),
                 st->line);
        return false;
    }
    /* its tokens: `buf [ ... ] = ... ;` on its line */
    size_t bl = strlen(st->buffer), found = 0, nfound = 0;
    for (size_t k = L->stmt_b; k + 1 < ts->n; k++)
        if (ts->t[k].kind == T_IDENT && ts->t[k].end - ts->t[k].start == bl &&
            !memcmp(ts->text + ts->t[k].start, st->buffer, bl) && rwl_tok_is(ts, k + 1, "[") &&
            (uint32_t)line_of(s, k) == st->line) {
            size_t rb = rwl_match_close(ts, k + 1);
            if (rb + 1 < ts->n && rwl_tok_is(ts, rb + 1, "="))
                found = k, nfound++;
        }
    if (nfound != 1) {
        snprintf(s->why, sizeof s->why, EN(RW_GS_NOT_ONE_STORE),
                 st->line, st->buffer);
        return false;
    }
    size_t rb = rwl_match_close(ts, found + 1), e = rb + 2;
    for (size_t d = 0; e < ts->n - 1; e++) {
        d += rwl_tok_is(ts, e, "(") || rwl_tok_is(ts, e, "[") || rwl_tok_is(ts, e, "{");
        if (d == 0 && rwl_tok_is(ts, e, ";"))
            break;
        d -= rwl_tok_is(ts, e, ")") || rwl_tok_is(ts, e, "]") || rwl_tok_is(ts, e, "}");
    }
    if (e >= ts->n - 1 || (found > 0 && !rwl_tok_is(ts, found - 1, ";") && !rwl_tok_is(ts, found - 1, "{") &&
                           !rwl_tok_is(ts, found - 1, "}") && !rwl_tok_is(ts, found - 1, ")") &&
                           !rwl_tok_is_ident(ts, found - 1, "else")))
        return refuse(s, found, "store", EN(RW_GS_STORE_NOT_OWN_STMT));
    if (slot && (!rwl_same_tok(ts, rb + 2, slot) || !rwl_tok_is(ts, rb + 3, "[") ||
                 rwl_match_close(ts, rb + 3) + 1 != e))
        return refuse(s, found, "store", EN(RW_GS_NOT_ELEMENT_OF_SUM),
                      (int)(ts->t[slot].end - ts->t[slot].start), ts->text + ts->t[slot].start);
    /* the last top-level statement holds it */
    size_t k = 1, last = 1;
    while (k < ts->n - 1) {
        last = k;
        k = rwl_stmt_end(ts, k, ts->n - 1);
    }
    if (found < last)
        return refuse(s, found, "store", EN(RW_GS_CODE_FOLLOWS));
    *sa = found;
    *sb = e + 1;
    *va = rb + 2;
    *vb = e;
    return true;
}

/* The whole body: blockIdx and gridDim only as .x (all rewritten), no return (the
 * epilogue's barriers), callees that read neither. */
static bool scan_body(gs_scan *s)
{
    const rw_toks *ts = &s->ts;
    for (size_t k = 1; k + 1 < ts->n; k++) {
        if (ts->t[k].kind != T_IDENT || !rwl_is_use(ts, k))
            continue;
        if ((rwl_tok_is_ident(ts, k, "blockIdx") || rwl_tok_is_ident(ts, k, "gridDim")) &&
            !rwl_builtin_x(ts, k, rwl_tok_is_ident(ts, k, "blockIdx") ? "blockIdx" : "gridDim"))
            return refuse(s, k, "statement", EN(RW_GS_OTHER_THAN_X),
                          rwl_tok_is_ident(ts, k, "blockIdx") ? "blockIdx" : "gridDim");
        if (!strncmp(ts->text + ts->t[k].start, "hipBlockIdx", 11) || !strncmp(ts->text + ts->t[k].start, "hipGridDim", 10))
            return refuse(s, k, "statement", EN(RW_GS_HIP_BUILTINS));
        if (rwl_tok_is_ident(ts, k, "return"))
            return refuse(s, k, "return", EN(RW_GS_RETURN));
        if (rwl_tok_is_ident(ts, k, "this_grid") || rwl_tok_is_ident(ts, k, "grid_group"))
            return refuse(s, k, "call", EN(RW_GS_GRID_GROUP));
        if (rwl_tok_is(ts, k + 1, "(")) {
            const an_function *g = rwl_callee(s->m, s->f, &s->ts, k);
            if (g && rwl_mentions_grid(s->text + g->body_span.start_byte, g->body_span.end_byte - g->body_span.start_byte))
                return refuse(s, k, "call", EN(RW_SPL_CALL_READS_GRID),
                              (int)(ts->t[k].end - ts->t[k].start), ts->text + ts->t[k].start);
        }
    }
    return true;
}

/* The spec's grid: a constant, 1-D, the same at every size set. */
static bool spec_grid(gs_scan *s, const rw_context *ctx, long long *G)
{
    const spec *sp = ctx->spec;
    if (!sp || !sp->grid[0])
        return refuse(s, 1, "launch", EN(RW_GS_NO_SPEC_LAUNCH));
    char err[200];
    *G = 0;
    for (size_t k = 0; k < (sp->n_sizes ? sp->n_sizes : 1); k++) {
        expr_value g;
        if (spec_eval(sp, sp->grid[0], k, 132, &g, err, sizeof err) || g.is_float || g.i < 1 || g.i > 65535)
            return refuse(s, 1, "launch", EN(RW_GS_GRID_NOT_EVAL));
        if (*G && g.i != *G)
            return refuse(s, 1, "launch", EN(RW_GS_GRID_CHANGES), *G, (long long)g.i);
        *G = g.i;
        for (int d = 1; d < 3; d++) {
            expr_value o;
            if (sp->grid[d] && (spec_eval(sp, sp->grid[d], k, 132, &o, err, sizeof err) || o.is_float || o.i != 1))
                return refuse(s, 1, "launch", EN(RW_GS_GRID_NOT_1D));
        }
    }
    /* the grid must not depend on the device either */
    expr_value g2;
    if (spec_eval(sp, sp->grid[0], 0, 114, &g2, err, sizeof err) || g2.is_float || g2.i != *G)
        return refuse(s, 1, "launch", EN(RW_GS_GRID_ON_SMS));
    return true;
}

static int gs_kernel(const rw_context *ctx, int S, rw_result *out)
{
    if (!out || !ctx || S < 2 || S > GS_SMAX)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    gs_scan s = {.text = ctx->text, .len = ctx->len, .m = ctx->m, .f = f};
    rw_edits es = {0};
    struct hk_buf h;
    hk_buf_init(&h, RW_TEXT_MAX);
    char *step = NULL, *idx = NULL, *val = NULL;
    if ((rc = rwl_open_body(ctx->text, ctx->len, f, true, &s.ts, &s.km, s.why, sizeof s.why)))
        goto out;
    if (s.why[0])
        goto refused;
    gs_loop L = {0};
    enum km_op op = KM_OP_NONE;
    size_t sa = 0, sb = 0, va = 0, vb = 0, slot = 0;
    long long G = 0;
    if (!scan_body(&s) || !find_grid_loop(&s, &L) || !check_loop_body(&s, &L, &op, &slot) ||
        !find_store(&s, &L, op, slot, &sa, &sb, &va, &vb) || !spec_grid(&s, ctx, &G))
        goto refused;
    const rw_toks *ts = &s.ts;
    if (!(step = subst_text(&s, L.step_a, L.step_b)) || !(idx = subst_text(&s, sa + 2, rwl_match_close(ts, sa + 1))) ||
        !(val = subst_text(&s, va, vb))) {
        rc = HK_ENOMEM;
        goto out;
    }
    char kn[96];
    snprintf(kn, sizeof kn, "%s", f->name);
    for (char *c = kn; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
            *c = '_';
    const char *buf_tok = ts->text + ts->t[sa].start;
    int bl = (int)(ts->t[sa].end - ts->t[sa].start);
    /* the scratch, before the kernel (its template line, if any) */
    size_t fstart = f->span.start_byte;
    while (fstart > 0 && ctx->text[fstart - 1] != '\n')
        fstart--;
    rc = hk_buf_printf(&h, "/* hk: split_grid_partials scratch: S = %d parts per block of the spec's grid of %lld */\n" /* i18n: not for people */
                           "__device__ unsigned long long hk_gs_part_%s[%lld];\n"
                           "__device__ unsigned int hk_gs_ticket_%s[%lld];\n",
                       S, G, kn, G * S, kn, G);
    if (!rc)
        rc = rwl_edits_add(&es, (uint32_t)fstart, (uint32_t)fstart, h.data);
    hk_buf_reset(&h);
    /* the prologue */
    if (!rc)
        rc = hk_buf_printf(&h, "\n    /* hk: split_grid_partials: S parts of each block b of the original grid of G; " /* i18n: not for people */
                               "fewer than 2 * G blocks: S = 1, the original */\n"
                               "    const unsigned int hk_gs_S = gridDim.x >= 2u * %lldu ? (gridDim.x / %lldu < %du ? "
                               "gridDim.x / %lldu : %du) : 1u;\n"
                               "    const unsigned int hk_gs_G = hk_gs_S > 1u ? %lldu : gridDim.x;\n"
                               "    if (blockIdx.x >= hk_gs_G * hk_gs_S)\n"
                               "        return;\n"
                               "    const unsigned int hk_gs_b = blockIdx.x / hk_gs_S, hk_gs_s = blockIdx.x %% hk_gs_S;\n",
                           G, G, S, G, S, G);
    if (!rc)
        rc = rwl_edits_add(&es, ts->t[0].end, ts->t[0].end, h.data);
    hk_buf_reset(&h);
    /* blockIdx.x and gridDim.x everywhere but the ranges written whole below */
    for (size_t q = 1; q + 2 < ts->n && !rc; q++) {
        if ((q >= L.step_a && q < L.step_b) || (q >= sa && q < sb))
            continue;
        if (rwl_builtin_x(ts, q, "blockIdx") || rwl_builtin_x(ts, q, "gridDim")) {
            rc = rwl_edits_add(&es, ts->t[q].start, ts->t[q + 2].end,
                               rwl_tok_is_ident(ts, q, "blockIdx") ? "hk_gs_b" : "hk_gs_G");
            q += 2;
        }
    }
    /* the loop: part s starts s steps later and steps S times as far */
    if (!rc)
        rc = rwl_edits_add_owned(&es, ts->t[L.step_a].start, ts->t[L.step_b - 1].end,
                                 hk_asprintf("hk_gs_S * (%s)", step));
    if (!rc && L.is_for) {
        rc = rwl_edits_add(&es, ts->t[L.start_a].start, ts->t[L.start_a].start, "(");
        if (!rc)
            rc = rwl_edits_add_owned(&es, ts->t[L.start_b - 1].end, ts->t[L.start_b - 1].end,
                                     hk_asprintf(") + hk_gs_s * (%s)", step));
    } else if (!rc) {
        rc = rwl_edits_add_owned(&es, ts->t[L.kw].start, ts->t[L.kw].start,
                                 hk_asprintf("%.*s += hk_gs_s * (%s); /* hk: this part's first step */\n    ", /* i18n: not for people */
                                             (int)(ts->t[L.var].end - ts->t[L.var].start),
                                             ts->text + ts->t[L.var].start, step));
    }
    /* the store: into this part's partial */
    if (!rc)
        rc = rwl_edits_add_owned(&es, ts->t[sa].start, ts->t[sb - 1].end,
                                 hk_asprintf("{ if (hk_gs_S == 1u) %.*s[%s] = %s; else " /* i18n: not for people */
                                             "reinterpret_cast<decltype(&%.*s[0])>(hk_gs_part_%s)[(%s) * %du + hk_gs_s] = "
                                             "%s; }",
                                             bl, buf_tok, idx, val, bl, buf_tok, kn, idx, S, val));
    /* the epilogue: the ticket, and the last part's combine in s order */
    const char *comb = op == KM_OP_SUM ? "hk_gs_acc = hk_gs_acc + hk_gs_v;"
                       : op == KM_OP_MAX ? "hk_gs_acc = hk_gs_v > hk_gs_acc ? hk_gs_v : hk_gs_acc;"
                                         : "hk_gs_acc = hk_gs_v < hk_gs_acc ? hk_gs_v : hk_gs_acc;";
    if (!rc)
        rc = hk_buf_printf(
            &h,
            "    /* hk: split_grid_partials: the last part of b to finish combines the S partials in s order */\n" /* i18n: not for people */
            "    if (hk_gs_S > 1u) {\n"
            "        static_assert(sizeof(%.*s[0]) <= sizeof(unsigned long long), \"partial wider than 8 bytes\");\n"
            "        __shared__ unsigned int hk_gs_last;\n"
            "        __threadfence();\n"
            "        __syncthreads();\n"
            "        if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)\n"
            "            hk_gs_last = atomicAdd(&hk_gs_ticket_%s[hk_gs_b], 1u) == hk_gs_S - 1u;\n"
            "        __syncthreads();\n"
            "        if (hk_gs_last && threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {\n"
            "            __threadfence();\n"
            "            const volatile auto *hk_gs_p = reinterpret_cast<decltype(&%.*s[0])>(hk_gs_part_%s) + hk_gs_b * %du;\n"
            "            auto hk_gs_acc = hk_gs_p[0];\n"
            "            for (unsigned int hk_gs_q = 1u; hk_gs_q < hk_gs_S; hk_gs_q++) {\n"
            "                const auto hk_gs_v = hk_gs_p[hk_gs_q];\n"
            "                %s\n"
            "            }\n"
            "            %.*s[hk_gs_b] = hk_gs_acc;\n"
            "            auto *hk_gs_z = reinterpret_cast<decltype(&%.*s[0])>(hk_gs_part_%s) + hk_gs_b * %du;\n"
            "            for (unsigned int hk_gs_q = 0u; hk_gs_q < hk_gs_S; hk_gs_q++)\n"
            "                hk_gs_z[hk_gs_q] = {};\n"
            "            hk_gs_ticket_%s[hk_gs_b] = 0u;\n"
            "        }\n"
            "    }\n",
            bl, buf_tok, kn, bl, buf_tok, kn, S, comb, bl, buf_tok, bl, buf_tok, kn, S, kn);
    if (!rc)
        rc = rwl_edits_add(&es, ts->t[ts->n - 1].start, ts->t[ts->n - 1].start, h.data);
    if (rc)
        goto out;
    /* a float sum is reordered: one sentence with the note, one without */
    char *desc = hk_asprintf(op == KM_OP_SUM ? EN(RW_GS_DESC_SUM) : EN(RW_GS_DESC),
                             f->name, G, S, G * S, line_of(&s, L.kw), km_op_name(op), bl, buf_tok, 2 * G);
    rc = rwl_finish(ctx->text, ctx->len, ctx->m, f->name, &es, desc, out);
    goto out;
refused:
    if (!rc)
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "split_grid_partials", f->name, s.why));
out:
    hk_free(step);
    hk_free(idx);
    hk_free(val);
    hk_buf_free(&h);
    rwl_edits_free(&es);
    km_free(s.km);
    rwl_toks_free(&s.ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static const rw_param gs_params[] = {
    {.name = "parts", .type = RW_PARAM_ENUM, .values = {8, 2, 3, 4, 16, 32}, .n_values = 6, .def = 8},
};

static int emit_gs(const rw_context *c, const int *p, rw_result *out)
{
    return gs_kernel(c, p[0], out);
}

const rw_descriptor rw_split_grid_partials_desc = {
    .name = "split_grid_partials",
    .summary = "a fixed grid of per-block partial reductions over a grid-stride loop runs on S times the blocks: " /* i18n: not for people */
               "each block's loop split over S parts, the last part combining their partials",
    .params = gs_params,
    .n_params = 1,
    /* planned with the pattern rewrites: the kernel it fits (a grid fixed by its outputs)
     * has no rewrite that adds blocks, and its gain is the loads in flight of S times the
     * blocks */
    .flags = RW_ALGORITHM,
    .emit = emit_gs,
    /* the JSON's "grid", English; hkls rewrites says it through the table's RW_GS_LAUNCH
     * (test_core_i18n reads this very text back) */
    .launch = "the spec's grid times S (a skill's blocks_per_sm; below twice the spec's grid it runs the original)", /* i18n: not for people */
};
