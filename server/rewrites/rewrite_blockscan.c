/* block_scan (issue 13: "a scan with bank conflicts"): a per-block prefix sum in a __shared__
 * array, written as a log-step loop of __syncthreads()-separated passes, becomes a
 * warp-shuffle scan: __shfl_up_sync inclusive scan inside each warp, the warps' totals in a
 * small __shared__ array that one warp scans, each thread adding its warp's prefix. Two
 * spellings are read, token by token, with every name taken from the kernel:
 *   - Hillis-Steele over two buffers (GPU Gems 3, ch. 39):
 *       for (U off = 1; off < blockDim.x; off <<= 1) {
 *           pout = 1 - pout; pin = 1 - pout;
 *           if (t >= off) S[pout * BD + t] = S[pin * BD + t] + S[pin * BD + t - off];
 *           else          S[pout * BD + t] = S[pin * BD + t];
 *           __syncthreads();
 *       }
 *     an inclusive scan of the blockDim.x elements S[pout0 * BD + t] (pout0: pout before
 *     the loop) left in S[pout * BD + t]. The buffer flags still toggle as before (a loop
 *     of the same trip count without the passes), so pout ends the same; the other buffer
 *     is not filled, so every later mention of S must read S[pout * BD + t] (refused
 *     otherwise).
 *   - the work-efficient up-sweep/down-sweep (Blelloch) over 2 * N elements, N threads,
 *     thread 0 reading the total at S[2N - 1] and setting it to 0 between the sweeps: an
 *     exclusive scan, each thread owning S[2t] and S[2t + 1]. Here thread t's pair sum is
 *     scanned; S[2t] gets the exclusive prefix P (lane 0 of a warp takes the warps' prefix
 *     as it is, lane 0 of warp 0 a 0: no `+ 0` that would turn -0.0 into +0.0) and
 *     S[2t + 1] gets P + S[2t]. No subtraction anywhere (a float exclusive value is never
 *     inclusive minus own). Thread 0's statements between the sweeps run as written after
 *     S[2N - 1] was set to the block's total, so a block total written to block_sums is
 *     the same value (reassociated for floats); their 0 is overwritten, as the down-sweep
 *     overwrites it.
 *   - (session 50) Hillis-Steele in one buffer: each pass reads S[t - off] into a temporary
 *     (0 below the first), a barrier, adds it to S[t], a barrier (read_hs1); the elements end
 *     as the passes leave them, so nothing after or around the loop needs a proof. The warp
 *     scan starts with a barrier: where the passes put theirs first, the elements' stores
 *     just before the loop (by any thread) are ordered by it alone.
 *   - (session 50) a value scan in a __device__ function the kernel calls, directly or
 *     through up to four calls: the array laid out as zeros and values, then Kogge-Stone
 *     passes (SHOC's scanLocalMem, cuda-samples' scan1Inclusive); the function's passes are
 *     replaced in place under a test the whole block takes at once (read_fn_scan and
 *     emit_fn_scan below say which spellings, and why that is sound for every caller).
 * Why it is sound: the elements each thread reads first and writes last are the original's
 * (thread t reads its own inputs after the same barriers and writes the final elements the
 * original's last pass writes, then a barrier), so any later read sees the same element.
 * Integer sums (int, unsigned, long long, size_t ...) wrap modulo 2^n whatever the order:
 * bit-exact. Float and double sums are reassociated (a different tree of additions): like
 * block_reduce, that is judged by the fp64 shadow (docs/accuracy.md), not bit for bit.
 * The new code runs under a run-time test that the block is 1-D and a multiple of 32 threads
 * (the up-sweep's: exactly N threads), voted by the whole block (__syncthreads_count equal to
 * blockDim.x: a thread that returned before the scan does not vote, so a partial block, whose
 * last warp the full-mask shuffles would name with lanes missing, keeps the original; session
 * 50); any other block runs the original loops, so the text is correct under every launch; a spec whose block fails the test is refused (nothing to
 * gain). The warps are groups of 32 lanes (width 32), also on a 64-lane AMD wavefront.
 * Refused, with the construct and its line: a loop that differs from these passes (another
 * operator than +, a conditional pass, other indices), an index that is not a local set
 * once to threadIdx.x, an element type the shuffles do not take, the array used other than
 * by subscript (`&S[i]`, `S + i`, passed), a later read of the scanned array elsewhere than
 * the final buffer's own element (Hillis-Steele), sweep sizes that are not N and 2N (N a
 * power of two, 32..1024), anything between the sweeps but reads of S[2N - 1] and its 0,
 * a sweep stride not set to 1 just before the up-sweep or used after the down-sweep, and a
 * down-sweep temporary of another type than the elements (`int a = S[aj];` over floats: the
 * original truncates every partial sum it moves). */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "analysis/analysis.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"
#include "spec/spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

static const char name[] = "block_scan";

/* ---- a token pattern matcher ----
 * A pattern is tokens separated by blanks: a literal token matches itself; `$x` one
 * identifier, bound to x (the same text wherever x appears again); `?x` a balanced run of
 * tokens up to the next literal token of the pattern (the same text again when bound);
 * `%x` a declaration's type: the identifiers before the last one of a run of identifiers
 * (`unsigned int off`: x is `unsigned int`, and the pattern goes on at `off`). */
#define BS_BINDS 24
typedef struct {
    char name[8];
    size_t a, b;
} bs_bind;

typedef struct {
    bs_bind b[BS_BINDS];
    size_t n;
    size_t fail; /* the farthest token the match reached (for the refusal) */
} bs_binds;

static const bs_bind *bind_get(const bs_binds *B, const char *nm)
{
    for (size_t i = 0; i < B->n; i++)
        if (!strcmp(B->b[i].name, nm))
            return &B->b[i];
    return NULL;
}

static bool same_run(const rw_toks *ts, size_t a, size_t b, size_t c, size_t d)
{
    if (b - a != d - c)
        return false;
    for (size_t i = 0; i < b - a; i++)
        if (!rwl_same_tok(ts, a + i, c + i))
            return false;
    return true;
}

/* bind nm to [a, b), or check it against its binding */
static bool bind_put(bs_binds *B, const rw_toks *ts, const char *nm, size_t a, size_t b)
{
    const bs_bind *o = bind_get(B, nm);
    if (o)
        return same_run(ts, o->a, o->b, a, b);
    if (B->n >= BS_BINDS)
        return false;
    bs_bind *n = &B->b[B->n++];
    snprintf(n->name, sizeof n->name, "%s", nm);
    n->a = a, n->b = b;
    return true;
}

/* Matches pat at token k (not past end): the token after the match, or 0 (no match; B->fail
 * the farthest token reached). */
static size_t pmatch(const rw_toks *ts, size_t k, size_t end, const char *pat, bs_binds *B)
{
    char p[1024];
    snprintf(p, sizeof p, "%s", pat);
    char *words[128];
    size_t nw = 0;
    for (char *s = strtok(p, " "); s && nw < 128; s = strtok(NULL, " "))
        words[nw++] = s;
    for (size_t w = 0; w < nw; w++) {
        if (k > B->fail)
            B->fail = k;
        if (k >= end)
            return 0;
        const char *x = words[w];
        if (x[0] == '$' && x[1]) {
            if (ts->t[k].kind != T_IDENT || !bind_put(B, ts, x + 1, k, k + 1))
                return 0;
            k++;
        } else if (x[0] == '?' && x[1]) {
            const char *stop = w + 1 < nw ? words[w + 1] : NULL;
            size_t q = k;
            int depth = 0;
            while (q < end) {
                if (depth == 0 && stop && rwl_tok_is(ts, q, stop))
                    break;
                if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "{"))
                    depth++;
                else if (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]") || rwl_tok_is(ts, q, "}")) {
                    if (--depth < 0)
                        break;
                } else if (depth == 0 && rwl_tok_is(ts, q, ";"))
                    break;
                q++;
            }
            if (q == k || !bind_put(B, ts, x + 1, k, q))
                return 0;
            k = q;
        } else if (x[0] == '%' && x[1]) {
            size_t q = k;
            while (q < end && ts->t[q].kind == T_IDENT)
                q++;
            if (q < k + 2 || !bind_put(B, ts, x + 1, k, q - 1))
                return 0;
            k = q - 1;
        } else {
            if (!rwl_tok_is(ts, k, x))
                return 0;
            k++;
        }
    }
    return k;
}

static char *run_text(const char *text, const rw_toks *ts, size_t a, size_t b)
{
    if (a >= b)
        return hk_strdup("");
    return hk_strndup(text + ts->t[a].start, ts->t[b - 1].end - ts->t[a].start);
}

/* ---- what the matchers found ---- */
typedef struct {
    bool blelloch;
    bool inplace;            /* Hillis-Steele in one buffer (session 50) */
    char op;                 /* '+'; Hillis-Steele over two buffers also 'M' max, 'm' min */
    size_t arr;              /* the array's name in its declaration */
    size_t a, b;             /* the tokens replaced: [a, b) */
    bs_binds B;
    long long n;             /* Blelloch: N (threads), elements 2N */
    size_t mid_a, mid_b;     /* Blelloch: thread 0's statement between the sweeps, `if` on */
} bs_scan;

/* The element types the shuffles take, and the type they are shuffled as. */
static const char *shuffle_type(const char *t, bool *is_float)
{
    static const struct {
        const char *t, *as;
        bool f;
    } ok[] = {
        {"int", "int", false}, {"signed", "int", false}, {"signed int", "int", false},
        {"int32_t", "int", false}, {"unsigned", "unsigned int", false},
        {"unsigned int", "unsigned int", false}, {"uint32_t", "unsigned int", false},
        {"uint", "unsigned int", false}, {"long long", "long long", false},
        {"long long int", "long long", false}, {"int64_t", "long long", false}, /* i18n: not for people */
        {"unsigned long long", "unsigned long long", false}, /* i18n: not for people */
        {"unsigned long long int", "unsigned long long", false}, /* i18n: not for people */
        {"uint64_t", "unsigned long long", false}, {"size_t", "unsigned long long", false}, /* i18n: not for people */
        {"float", "float", true}, {"double", "double", true},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(ok); i++)
        if (!strcmp(ok[i].t, t)) {
            *is_float = ok[i].f;
            return ok[i].as;
        }
    return NULL;
}

/* The value of a small integer constant expression in tokens [a, b): numbers, + - * / ( ),
 * << and names #defined (object-like) to such expressions (depth-limited). false when not. */
static bool const_value(const char *text, size_t len, const rw_toks *ts, size_t a, size_t b, long long *v, int depth);

static bool define_value(const char *text, size_t len, const rw_toks *ts, size_t k, long long *v, int depth)
{
    if (depth > 4)
        return false;
    size_t at = 0, da, db;
    size_t nl = ts->t[k].end - ts->t[k].start;
    const char *nm = text + ts->t[k].start;
    bool found = false;
    long long val = 0;
    while (rwl_next_define(text, len, &at, nm, nl, &da, &db)) {
        if (da + nl < db && text[da + nl] == '(')
            return false; /* function-like */
        rw_toks dt = {0};
        if (rwl_lex(text, (uint32_t)(da + nl), (uint32_t)db, &dt) != HK_OK) {
            rwl_toks_free(&dt);
            return false;
        }
        long long x;
        bool ok = dt.n > 0 && const_value(text, len, &dt, 0, dt.n, &x, depth + 1);
        rwl_toks_free(&dt);
        if (!ok || (found && x != val))
            return false; /* two definitions that differ */
        found = true;
        val = x;
    }
    *v = val;
    return found;
}

/* precedence climbing over [*k, b) */
static bool cv_expr(const char *text, size_t len, const rw_toks *ts, size_t *k, size_t b, int prec, long long *v,
                    int depth)
{
    long long x;
    if (*k >= b)
        return false;
    if (rwl_tok_is(ts, *k, "(")) {
        size_t c = rwl_match_close(ts, *k);
        if (c >= b || !const_value(text, len, ts, *k + 1, c, &x, depth))
            return false;
        *k = c + 1;
    } else if (ts->t[*k].kind == T_NUMBER) {
        char num[32];
        size_t n = ts->t[*k].end - ts->t[*k].start;
        if (n >= sizeof num)
            return false;
        memcpy(num, text + ts->t[*k].start, n);
        num[n] = 0;
        char *e;
        x = strtoll(num, &e, 0);
        while (*e == 'u' || *e == 'U' || *e == 'l' || *e == 'L')
            e++;
        if (*e)
            return false;
        (*k)++;
    } else if (ts->t[*k].kind == T_IDENT) {
        if (!define_value(text, len, ts, *k, &x, depth))
            return false;
        (*k)++;
    } else
        return false;
    for (;;) {
        int p;
        if (*k >= b)
            break;
        if (rwl_tok_is(ts, *k, "*") || rwl_tok_is(ts, *k, "/"))
            p = 3;
        else if (rwl_tok_is(ts, *k, "+") || rwl_tok_is(ts, *k, "-"))
            p = 2;
        else if (rwl_tok_is(ts, *k, "<<"))
            p = 1;
        else
            return false;
        if (p <= prec)
            break;
        char op = ts->text[ts->t[*k].start];
        (*k)++;
        long long y;
        if (!cv_expr(text, len, ts, k, b, p, &y, depth))
            return false;
        if (x > (1LL << 40) || y > (1LL << 40) || x < -(1LL << 40) || y < -(1LL << 40))
            return false;
        switch (op) {
        case '*': x *= y; break;
        case '/': if (!y) return false; x /= y; break;
        case '+': x += y; break;
        case '-': x -= y; break;
        default: if (y < 0 || y > 30) return false; x <<= y; break;
        }
    }
    *v = x;
    return true;
}

static bool const_value(const char *text, size_t len, const rw_toks *ts, size_t a, size_t b, long long *v, int depth)
{
    size_t k = a;
    return cv_expr(text, len, ts, &k, b, 0, v, depth) && k == b;
}

/* ---- the two loops ---- */

static const char pat_hs[] =
    "for ( %ty $off = 1 ; $off < ?bd ; $off <<= 1 ) { " /* i18n: not for people */
    "$po = 1 - $po ; $pi = 1 - $po ; "
    "if ( $t >= $off ) $S [ $po * ?bd + $t ] = $S [ $pi * ?bd + $t ] + $S [ $pi * ?bd + $t - $off ] ; "
    "else $S [ $po * ?bd + $t ] = $S [ $pi * ?bd + $t ] ; "
    "__syncthreads ( ) ; }";

/* the same passes of a maximum or minimum (session 50): `$fn` is max or min, the arguments
 * in either order */
static const char *const pat_hs_mm[] = {
    "for ( %ty $off = 1 ; $off < ?bd ; $off <<= 1 ) { " /* i18n: not for people */
    "$po = 1 - $po ; $pi = 1 - $po ; "
    "if ( $t >= $off ) $S [ $po * ?bd + $t ] = $fn ( $S [ $pi * ?bd + $t ] , $S [ $pi * ?bd + $t - $off ] ) ; "
    "else $S [ $po * ?bd + $t ] = $S [ $pi * ?bd + $t ] ; "
    "__syncthreads ( ) ; }",
    "for ( %ty $off = 1 ; $off < ?bd ; $off <<= 1 ) { " /* i18n: not for people */
    "$po = 1 - $po ; $pi = 1 - $po ; "
    "if ( $t >= $off ) $S [ $po * ?bd + $t ] = $fn ( $S [ $pi * ?bd + $t - $off ] , $S [ $pi * ?bd + $t ] ) ; "
    "else $S [ $po * ?bd + $t ] = $S [ $pi * ?bd + $t ] ; "
    "__syncthreads ( ) ; }",
};

static const char pat_up[] =
    "for ( %ty $d = ?n ; $d > 0 ; $d >>= 1 ) { __syncthreads ( ) ; " /* i18n: not for people */
    "if ( $t < $d ) { %ta $ai = $off * ( 2 * $t + 1 ) - 1 ; %tb $bi = $off * ( 2 * $t + 2 ) - 1 ; "
    "$S [ $bi ] += $S [ $ai ] ; } $off *= 2 ; }";

static const char pat_down[] =
    "for ( %tz $e = 1 ; $e < ?m ; $e *= 2 ) { $off >>= 1 ; __syncthreads ( ) ; " /* i18n: not for people */
    "if ( $t < $e ) { %tc $aj = $off * ( 2 * $t + 1 ) - 1 ; %td $bj = $off * ( 2 * $t + 2 ) - 1 ; "
    "%tv $a = $S [ $aj ] ; $S [ $aj ] = $S [ $bj ] ; $S [ $bj ] += $a ; } }";

typedef struct {
    const char *text;
    size_t len;
    const rw_toks *ts;
    char why[700];
} bs_state;

static int tok_line(const bs_state *s, size_t k)
{
    return rwl_line_at(s->text, s->ts->t[k < s->ts->n ? k : s->ts->n - 1].start);
}

/* Is name (token k's text) a local declared once as `= threadIdx.x` and never written? */
static bool thread_index(const bs_state *s, size_t k)
{
    const rw_toks *ts = s->ts;
    size_t decl = ts->n;
    for (size_t q = 0; q < ts->n; q++)
        if (rwl_same_tok(ts, q, k) && rwl_is_use(ts, q) && rwl_declared_here(ts, q)) {
            if (decl < ts->n)
                return false; /* declared twice: shadowed somewhere */
            decl = q;
        }
    if (decl >= ts->n || !rwl_tok_is(ts, decl + 1, "=") || !rwl_builtin_x(ts, decl + 2, "threadIdx") ||
        !(rwl_tok_is(ts, decl + 5, ";") || rwl_tok_is(ts, decl + 5, ",")))
        return false;
    return !rwl_written_elsewhere(ts, decl, decl);
}

/* the literal zeros a sum starts from */
static const char *const zeros[] = {"0", "0u", "0U", "0.0f", "0.f", "0.0F", "0.0", NULL};

/* Is [a, b) one token, one of words (NULL-terminated)? */
static bool one_of(const rw_toks *ts, size_t a, size_t b, const char *const *words)
{
    if (b != a + 1)
        return false;
    for (size_t i = 0; words[i]; i++)
        if (rwl_tok_is(ts, a, words[i]))
            return true;
    return false;
}

/* The refusal of a loop that did not match: the farthest token reached. */
static void refuse_shape(bs_state *s, size_t loop, const char *arr, size_t fail)
{
    if (s->why[0])
        return;
    char *t = run_text(s->text, s->ts, fail, fail + 1);
    snprintf(s->why, sizeof s->why, EN(RW_BSC_SHAPE), tok_line(s, loop), arr, t ? t : "?", tok_line(s, fail));
    hk_free(t);
}

/* Does the loop at k look like a scan pass over array S (a for whose body has a
 * __syncthreads and mentions S)? */
static bool log_step_loop(const rw_toks *ts, size_t k, size_t arr)
{
    if (!rwl_tok_is(ts, k, "for") || !rwl_tok_is(ts, k + 1, "("))
        return false;
    size_t c = rwl_match_close(ts, k + 1);
    if (c >= ts->n)
        return false;
    bool step = false;
    for (size_t q = k + 2; q < c; q++)
        step |= rwl_tok_is(ts, q, "<<=") || rwl_tok_is(ts, q, ">>=") || rwl_tok_is(ts, q, "*=") ||
                rwl_tok_is(ts, q, "/=");
    size_t e = rwl_stmt_end(ts, c + 1, ts->n);
    bool sync = false, uses = false;
    for (size_t q = c + 1; q < e; q++) {
        sync |= rwl_tok_is_ident(ts, q, "__syncthreads");
        uses |= rwl_same_tok(ts, q, arr);
    }
    return step && sync && uses;
}

/* Every mention of S from token `from` on is `S [ po * bd + t ]` (Hillis-Steele), or any
 * subscript (Blelloch: every element is final); and everywhere S is subscripted. */
static bool uses_ok(bs_state *s, const bs_scan *sc, const char *arr)
{
    const rw_toks *ts = s->ts;
    for (size_t q = 0; q < ts->n; q++) {
        if (q == sc->arr || !rwl_same_tok(ts, q, sc->arr) || !rwl_is_use(ts, q))
            continue;
        if (!rwl_tok_is(ts, q + 1, "[") || (q > 0 && rwl_tok_is(ts, q - 1, "&"))) {
            snprintf(s->why, sizeof s->why, EN(RW_BSC_ALIAS), tok_line(s, q), arr);
            return false;
        }
        if (sc->blelloch || q < sc->b)
            continue;
        bs_binds B = sc->B;
        static const char want[] = "[ $po * ?bd + $t ]";
        size_t e = pmatch(ts, q + 1, ts->n, want, &B);
        if (!e || !rwl_tok_is(ts, e - 1, "]") || rwl_match_close(ts, q + 1) != e - 1) {
            size_t c = rwl_match_close(ts, q + 1);
            char *got = run_text(s->text, ts, q, c < ts->n ? c + 1 : q + 1);
            const bs_bind *po = bind_get(&sc->B, "po"), *bd = bind_get(&sc->B, "bd"), *t = bind_get(&sc->B, "t");
            char *a = run_text(s->text, ts, po->a, po->b), *b = run_text(s->text, ts, bd->a, bd->b),
                 *c2 = run_text(s->text, ts, t->a, t->b);
            char w[200];
            snprintf(w, sizeof w, "%s[%s * %s + %s]", arr, a ? a : "?", b ? b : "?", c2 ? c2 : "?");
            snprintf(s->why, sizeof s->why, EN(RW_BSC_AFTER), tok_line(s, q), arr, got ? got : "?", w);
            hk_free(got), hk_free(a), hk_free(b), hk_free(c2);
            return false;
        }
    }
    return true;
}

/* Hillis-Steele at loop k over array token arr. */
static bool read_hs(bs_state *s, size_t k, bs_scan *sc, const char *arr)
{
    const rw_toks *ts = s->ts;
    memset(&sc->B, 0, sizeof sc->B);
    if (!bind_put(&sc->B, ts, "S", sc->arr, sc->arr + 1))
        return false;
    size_t e = pmatch(ts, k, ts->n, pat_hs, &sc->B);
    sc->op = '+';
    for (size_t i = 0; !e && i < HK_ARRAY_LEN(pat_hs_mm); i++) {
        bs_binds C = {0};
        bind_put(&C, ts, "S", sc->arr, sc->arr + 1);
        size_t x = pmatch(ts, k, ts->n, pat_hs_mm[i], &C);
        const bs_bind *fn = x ? bind_get(&C, "fn") : NULL;
        if (fn && (rwl_tok_is(ts, fn->a, "max") || rwl_tok_is(ts, fn->a, "min"))) {
            e = x, sc->B = C;
            sc->op = rwl_tok_is(ts, fn->a, "max") ? 'M' : 'm';
        } else if (C.fail > sc->B.fail)
            sc->B.fail = C.fail;
    }
    if (!e) {
        refuse_shape(s, k, arr, sc->B.fail);
        return false;
    }
    const bs_bind *bd = bind_get(&sc->B, "bd"), *t = bind_get(&sc->B, "t");
    if (bd->b - bd->a != 3 || !rwl_builtin_x(ts, bd->a, "blockDim")) {
        refuse_shape(s, k, arr, bd->a);
        return false;
    }
    if (!thread_index(s, t->a)) {
        char *tn = run_text(s->text, ts, t->a, t->b);
        snprintf(s->why, sizeof s->why, EN(RW_BSC_TID), tok_line(s, k), arr, tn ? tn : "?");
        hk_free(tn);
        return false;
    }
    /* inside a loop, a read before the scan in the text runs after it in time (the next
     * trip), and may read the buffer the warp scan does not fill */
    for (size_t q = 0; q < k; q++)
        if ((rwl_tok_is_ident(ts, q, "for") || rwl_tok_is_ident(ts, q, "while") || rwl_tok_is_ident(ts, q, "do")) &&
            rwl_stmt_end(ts, q, ts->n) > k) {
            snprintf(s->why, sizeof s->why, EN(RW_BSC_NESTED), tok_line(s, q), arr, tok_line(s, k), arr);
            return false;
        }
    const bs_bind *po = bind_get(&sc->B, "po");
    for (size_t q = e; q < ts->n; q++)
        if (rwl_same_tok(ts, q, po->a) && rwl_is_use(ts, q) && rwl_scalar_written(ts, q)) {
            char *pn = run_text(s->text, ts, po->a, po->b);
            snprintf(s->why, sizeof s->why, EN(RW_BSC_FLAG), tok_line(s, q), pn ? pn : "?", arr);
            hk_free(pn);
            return false;
        }
    sc->blelloch = false;
    sc->a = k, sc->b = e;
    return uses_ok(s, sc, arr);
}


/* Hillis-Steele in one buffer at loop k (session 50): each pass reads the element `off`
 * below into a temporary (0 below the first), a barrier, adds it to its own element, and a
 * barrier before the next pass's read (at the end of the pass or at its start):
 *   for (U off = 1; off < blockDim.x; off <<= 1 (or *= 2)) {
 *       [__syncthreads();] T v = t >= off ? S[t - off] : 0;   (or T v = 0; if (t >= off) v = S[t - off];)
 *       __syncthreads(); S[t] += v; [__syncthreads();]
 *   }
 * an inclusive scan of S[0 .. blockDim.x) in place. After it the elements hold what the passes
 * leave, whatever reads them later or wherever the loop sits; the warp scan stores the same
 * and a barrier. false, why untouched, when the loop is not this spelling; false with why set
 * when it is and something is refused. */
static bool read_hs1(bs_state *s, size_t k, bs_scan *sc, const char *arr)
{
    const rw_toks *ts = s->ts;
    static const char *const steps[] = {"$off <<= 1", "$off *= 2"}; /* i18n: not for people */
    static const char *const reads[] = {
        "%tv $v = $t >= $off ? $S [ $t - $off ] : ?z ;",                     /* i18n: not for people */
        "%tv $v = ?z ; if ( $t >= $off ) $v = $S [ $t - $off ] ;",           /* i18n: not for people */
        "%tv $v = ?z ; if ( $t >= $off ) { $v = $S [ $t - $off ] ; }",       /* i18n: not for people */
    };
    size_t e = 0;
    for (size_t st = 0; st < 2 && !e; st++)
        for (size_t r = 0; r < HK_ARRAY_LEN(reads) && !e; r++)
            for (int first = 0; first < 2 && !e; first++) {
                char p[1024];
                snprintf(p, sizeof p,
                         "for ( %%ty $off = 1 ; $off < ?bd ; %s ) { %s%s __syncthreads ( ) ; $S [ $t ] += $v ; %s}", /* i18n: not for people */
                         steps[st], first ? "__syncthreads ( ) ; " : "", reads[r],
                         first ? "" : "__syncthreads ( ) ; ");
                memset(&sc->B, 0, sizeof sc->B);
                if (!bind_put(&sc->B, ts, "S", sc->arr, sc->arr + 1))
                    return false;
                e = pmatch(ts, k, ts->n, p, &sc->B);
            }
    if (!e)
        return false;
    const bs_bind *bd = bind_get(&sc->B, "bd"), *t = bind_get(&sc->B, "t"), *z = bind_get(&sc->B, "z");
    if (bd->b - bd->a != 3 || !rwl_builtin_x(ts, bd->a, "blockDim") || !one_of(ts, z->a, z->b, zeros)) {
        refuse_shape(s, k, arr, bd->b - bd->a != 3 || !rwl_builtin_x(ts, bd->a, "blockDim") ? bd->a : z->a);
        return false;
    }
    if (!thread_index(s, t->a)) {
        char *tn = run_text(s->text, ts, t->a, t->b);
        snprintf(s->why, sizeof s->why, EN(RW_BSC_TID), tok_line(s, k), arr, tn ? tn : "?");
        hk_free(tn);
        return false;
    }
    sc->blelloch = false;
    sc->inplace = true;
    sc->a = k, sc->b = e;
    return true;
}

/* Up-sweep/down-sweep starting at loop k. */
static bool read_blelloch(bs_state *s, size_t k, bs_scan *sc, const char *arr)
{
    const rw_toks *ts = s->ts;
    memset(&sc->B, 0, sizeof sc->B);
    if (!bind_put(&sc->B, ts, "S", sc->arr, sc->arr + 1))
        return false;
    size_t e = pmatch(ts, k, ts->n, pat_up, &sc->B);
    if (!e) {
        refuse_shape(s, k, arr, sc->B.fail);
        return false;
    }
    /* thread 0's statement: `if ( t == 0 ) { ... }` or `if ( t == 0 ) STATEMENT`; its tokens
     * [m, mc), the down-sweep at `next` */
    size_t m = pmatch(ts, e, ts->n, "if ( $t == 0 )", &sc->B), mc = ts->n, next = ts->n;
    if (m && rwl_tok_is(ts, m, "{")) {
        mc = rwl_match_close(ts, m);
        next = mc + 1;
        m++;
    } else if (m && m < ts->n && !rwl_tok_is(ts, m, ";")) {
        mc = next = rwl_stmt_end(ts, m, ts->n);
        if (rwl_tok_is_ident(ts, m, "if") || rwl_tok_is_ident(ts, m, "for") || rwl_tok_is_ident(ts, m, "while") ||
            rwl_tok_is_ident(ts, m, "do") || rwl_tok_is_ident(ts, m, "switch"))
            mc = next = ts->n; /* one plain statement only */
    }
    if (!m || mc >= ts->n) {
        refuse_shape(s, k, arr, m ? m : sc->B.fail);
        return false;
    }
    size_t d = pmatch(ts, next, ts->n, pat_down, &sc->B);
    if (!d) {
        refuse_shape(s, k, arr, sc->B.fail);
        return false;
    }
    const bs_bind *t = bind_get(&sc->B, "t"), *nb = bind_get(&sc->B, "n"), *mb = bind_get(&sc->B, "m"),
                  *off = bind_get(&sc->B, "off");
    if (!thread_index(s, t->a)) {
        char *tn = run_text(s->text, ts, t->a, t->b);
        snprintf(s->why, sizeof s->why, EN(RW_BSC_TID), tok_line(s, k), arr, tn ? tn : "?");
        hk_free(tn);
        return false;
    }
    long long n, mm;
    if (!const_value(s->text, s->len, ts, nb->a, nb->b, &n, 0) ||
        !const_value(s->text, s->len, ts, mb->a, mb->b, &mm, 0) || mm != 2 * n || n < 32 || n > 1024 ||
        (n & (n - 1))) {
        char *a = run_text(s->text, ts, nb->a, nb->b), *b = run_text(s->text, ts, mb->a, mb->b);
        snprintf(s->why, sizeof s->why, EN(RW_BSC_SIZE), tok_line(s, k), a ? a : "?", b ? b : "?");
        hk_free(a), hk_free(b);
        return false;
    }
    /* the stride: its last mention before the up-sweep is `off = 1` (an assignment or a
     * declarator, `;` or `,` after it) in a plain statement of the up-sweep's own block (no
     * `}` of a lower depth between them, not under an if or a loop), and it is not mentioned
     * after the down-sweep. (The sweeps bring it back to 1; the warp scan leaves it at 1.) */
    size_t j = k;
    while (j > 0 && !rwl_same_tok(ts, j - 1, off->a))
        j--;
    bool set = j > 0 && rwl_tok_is(ts, j, "=") && rwl_tok_is(ts, j + 1, "1") &&
               (rwl_tok_is(ts, j + 2, ";") || rwl_tok_is(ts, j + 2, ","));
    if (set) {
        int depth = 0, lowest = 0;
        for (size_t q = j; q < k; q++) {
            if (rwl_tok_is(ts, q, "{") || rwl_tok_is(ts, q, "("))
                depth++;
            else if (rwl_tok_is(ts, q, "}") || rwl_tok_is(ts, q, ")"))
                depth--;
            if (depth < lowest)
                lowest = depth;
        }
        size_t st = j - 1;
        while (st > 0 && !rwl_tok_is(ts, st - 1, ";") && !rwl_tok_is(ts, st - 1, "{") && !rwl_tok_is(ts, st - 1, "}"))
            st--;
        set = depth == 0 && lowest == 0 && !rwl_tok_is_ident(ts, st, "if") && !rwl_tok_is_ident(ts, st, "else") &&
              !rwl_tok_is_ident(ts, st, "for") && !rwl_tok_is_ident(ts, st, "while") &&
              !rwl_tok_is_ident(ts, st, "do") && !rwl_tok_is_ident(ts, st, "case");
    }
    for (size_t q = d; q < ts->n && set; q++)
        set = !rwl_same_tok(ts, q, off->a);
    if (!set) {
        char *o = run_text(s->text, ts, off->a, off->b);
        snprintf(s->why, sizeof s->why, EN(RW_BSC_STRIDE), tok_line(s, j > 0 ? j - 1 : k), o ? o : "?");
        hk_free(o);
        return false;
    }
    /* between the sweeps: reads of S[2N - 1] (any other subscript of S refused) and one
     * statement `S [ 2N - 1 ] = 0 ;`, no call that could reach S (it is not passed: uses_ok) */
    size_t nzero = 0;
    for (size_t q = m; q < mc; q++) {
        /* the stride, a jump or a barrier there would change the down-sweep */
        if (rwl_same_tok(ts, q, off->a) || rwl_tok_is_ident(ts, q, "return") || rwl_tok_is_ident(ts, q, "goto") ||
            rwl_tok_is_ident(ts, q, "break") || rwl_tok_is_ident(ts, q, "continue") ||
            rwl_tok_is_ident(ts, q, "__syncthreads")) {
            size_t se = rwl_stmt_end(ts, q, mc);
            char *st = run_text(s->text, ts, q, se);
            char last[32];
            snprintf(last, sizeof last, "%lld", 2 * n - 1);
            snprintf(s->why, sizeof s->why, EN(RW_BSC_MIDDLE), tok_line(s, q), arr, last, st ? st : "?");
            hk_free(st);
            return false;
        }
        if (!rwl_same_tok(ts, q, sc->arr))
            continue;
        size_t c = rwl_match_close(ts, q + 1);
        long long ix;
        bool ok = rwl_tok_is(ts, q + 1, "[") && c < mc &&
                  const_value(s->text, s->len, ts, q + 2, c, &ix, 0) && ix == 2 * n - 1;
        if (ok && rwl_tok_is(ts, c + 1, "=")) {
            size_t z = c + 2;
            ok = rwl_tok_is(ts, z + 1, ";") &&
                 (rwl_tok_is(ts, z, "0") || rwl_tok_is(ts, z, "0.0f") || rwl_tok_is(ts, z, "0.f") ||
                  rwl_tok_is(ts, z, "0.0") || rwl_tok_is(ts, z, "0.0F"));
            nzero++;
        } else if (ok)
            ok = !rwl_tok_is_assign_op(ts, c + 1) && !rwl_tok_is(ts, c + 1, "++") &&
                 !rwl_tok_is(ts, c + 1, "--") && !rwl_tok_is(ts, q - 1, "++") && !rwl_tok_is(ts, q - 1, "--");
        if (!ok || nzero > 1) {
            size_t se = rwl_stmt_end(ts, q, mc);
            char *st = run_text(s->text, ts, q, se);
            char last[32];
            snprintf(last, sizeof last, "%lld", 2 * n - 1);
            snprintf(s->why, sizeof s->why, EN(RW_BSC_MIDDLE), tok_line(s, q), arr, last, st ? st : "?");
            hk_free(st);
            return false;
        }
    }
    if (nzero != 1) {
        char last[32];
        snprintf(last, sizeof last, "%lld", 2 * n - 1);
        snprintf(s->why, sizeof s->why, EN(RW_BSC_MIDDLE), tok_line(s, m), arr, last, "");
        return false;
    }
    sc->blelloch = true;
    sc->n = n;
    sc->a = k, sc->b = d;
    sc->mid_a = e, sc->mid_b = next;
    return uses_ok(s, sc, arr);
}

/* ---- a scan in a __device__ function (session 50) ----
 * A value scan: a __device__ function that lays out a shared array S as zeros and values
 * (each thread storing 0 at S[I] and its value at S[I + L], I its index) and then runs the
 * Kogge-Stone passes over the values, each pass reading below, a barrier, writing its own
 * element (SHOC's scanLocalMem, cuda-samples' scan1Inclusive, our rd_scan_devfn_*):
 *   whole:     %ti I = threadIdx.x;                              S[I] = 0; I += L; S[I] = v;
 *   segments:  %ti I = 2 * threadIdx.x - (threadIdx.x & (L - 1)); S[I] = 0; I += L; S[I] = v;
 * then [barrier] [T t;] and the passes, one of
 *   for (o = 1; o < L; o <<= 1) { barrier; T t = S[I] + S[I - o]; barrier; S[I] = t; }
 *   for (o = 1; o < L; o <<= 1) { [T] t = S[I - o]; barrier; S[I] += t; barrier; }
 *   t = S[I - K]; barrier; S[I] += t; barrier;   for K = 1, 2, 4 ... each bare or under
 *                                                `if (L > K) { ... }` (SHOC's unrolled form)
 * Only the passes are replaced: after them the original leaves S[I] the inclusive prefix
 * of v over its segment of L threads and the zeros untouched; the new code stores the same
 * S[I] and a barrier, so whatever the function does after (SHOC's `return S[I - 1]`, the
 * exclusive value) reads the same memory. The new code runs under a test taken by the
 * whole block at once (__syncthreads_count equal to blockDim.x, so every thread takes the same
 * side, and a block with a thread that exited before the call keeps the original): a 1-D block
 * of whole warps; L a power of two, at least 2, that is blockDim.x (whole) or divides it
 * (segments), the same for every thread; S shared memory (__isShared) and the same pointer
 * for every thread (thread 0's copy in a __shared__ variable). Otherwise the original passes
 * run. The function is changed in place, for every caller: the test makes it sound for any
 * of them (an argument each thread passes differently, a call not made by the whole block
 * with L >= 2, where the original's barriers are already undefined). Integers bit-exact;
 * floats reassociated across warps (the fp64 shadow judges). */

typedef struct {
    const an_function *g;
    rw_toks ts;      /* g's definition, signature and body */
    size_t body;     /* the body's `{` */
    size_t a, b;     /* the passes: [a, b) */
    bs_binds B;      /* S, i, L, t (and the barrier's names) */
    bool seg;        /* the segmented layout */
    bool loop;       /* the passes are a loop */
    long long kmax;  /* unrolled: the last pass's K; kbare: the last unconditional one */
    long long kbare;
    char T[64];      /* the elements' type, as the parameter spells it */
    const char *U;   /* the type they are shuffled as; NULL for a template type parameter */
    bool fl;         /* floating point (or a template type: the fp64 shadow judges) */
} bs_fn;

/* The barrier spellings a pass may use (the function's own names bound as cg, cta). */
static const char *const fn_bars[] = {"__syncthreads ( ) ;", "$cg :: sync ( $cta ) ;", /* i18n: not for people */
                                      "$cta . sync ( ) ;"};

/* pat with every BAR replaced by bar */
static void with_bar(char *out, size_t n, const char *pat, const char *bar)
{
    size_t o = 0;
    for (const char *p = pat; *p && o + 1 < n;) {
        if (!strncmp(p, "BAR", 3)) {
            int w = snprintf(out + o, n - o, "%s", bar);
            o += w > 0 ? (size_t)w : 0;
            p += 3;
        } else
            out[o++] = *p++;
    }
    out[o < n ? o : n - 1] = 0;
}

/* pmatch of pat (BAR: each barrier spelling in turn) */
static size_t pmatch_bar(const rw_toks *ts, size_t k, size_t end, const char *pat, bs_binds *B)
{
    size_t fail = B->fail;
    for (size_t i = 0; i < HK_ARRAY_LEN(fn_bars); i++) {
        char p[1024];
        with_bar(p, sizeof p, pat, fn_bars[i]);
        bs_binds C = *B;
        size_t e = pmatch(ts, k, end, p, &C);
        if (C.fail > fail)
            fail = C.fail;
        if (e) {
            *B = C;
            B->fail = fail;
            return e;
        }
    }
    B->fail = fail;
    return 0;
}


static char *bind_text(const char *text, const bs_fn *F, const char *nm)
{
    const bs_bind *x = bind_get(&F->B, nm);
    return x ? run_text(text, &F->ts, x->a, x->b) : hk_strdup("?");
}

/* The declared type of parameter nm (token k of the signature is a mention): the element
 * type of a pointer or array parameter, cv-qualifiers and __restrict__ dropped; false when
 * nm is not such a parameter. */
static bool fn_param_elem(const char *text, const bs_fn *F, size_t nm, char *T, size_t n)
{
    const rw_toks *ts = &F->ts;
    for (size_t k = 0; k < F->body; k++) {
        if (!rwl_same_tok(ts, k, nm) ||
            !(rwl_tok_is(ts, k + 1, ",") || rwl_tok_is(ts, k + 1, ")") || rwl_tok_is(ts, k + 1, "[")))
            continue;
        size_t q = k;
        bool ptr = rwl_tok_is(ts, k + 1, "[");
        while (q > 0 && (rwl_tok_is(ts, q - 1, "*") || ts->t[q - 1].kind == T_IDENT)) {
            q--;
            if (rwl_tok_is(ts, q, "*")) {
                if (ptr)
                    return false; /* a pointer to pointers */
                ptr = true;
            }
        }
        if (!ptr || !(rwl_tok_is(ts, q - 1, "(") || rwl_tok_is(ts, q - 1, ",")))
            return false;
        T[0] = 0;
        for (size_t j = q; j < k; j++) {
            if (ts->t[j].kind != T_IDENT || rwl_tok_is(ts, j, "volatile") || rwl_tok_is(ts, j, "const") ||
                rwl_tok_is(ts, j, "__restrict__") || rwl_tok_is(ts, j, "__restrict"))
                continue;
            size_t l = strlen(T);
            snprintf(T + l, n - l, "%s%.*s", l ? " " : "", (int)(ts->t[j].end - ts->t[j].start),
                     text + ts->t[j].start);
        }
        return T[0] != 0;
    }
    return false;
}

/* Is the barrier bound as cg/cta the block's (cta a parameter declared thread_block, cg the
 * namespace cg or cooperative_groups), or unbound (__syncthreads)? */
static bool fn_bar_ok(const bs_fn *F)
{
    const bs_bind *cg = bind_get(&F->B, "cg"), *cta = bind_get(&F->B, "cta");
    if (cg && !rwl_tok_is(&F->ts, cg->a, "cg") && !rwl_tok_is(&F->ts, cg->a, "cooperative_groups"))
        return false;
    if (!cta)
        return true;
    for (size_t k = 1; k < F->body; k++)
        if (rwl_same_tok(&F->ts, k, cta->a) && rwl_tok_is(&F->ts, k - 1, "thread_block") &&
            (rwl_tok_is(&F->ts, k + 1, ",") || rwl_tok_is(&F->ts, k + 1, ")")))
            return true;
    return false;
}

static const char *const index_types[] = {"int", "unsigned", "unsigned int", "uint", "size_t", "long", "long long", /* i18n: not for people */
                                          "unsigned long", "unsigned long long", "int32_t", "uint32_t", /* i18n: not for people */
                                          "int64_t", "uint64_t", NULL};

static bool in_list(const char *s, const char *const *l)
{
    for (size_t i = 0; l[i]; i++)
        if (!strcmp(s, l[i]))
            return true;
    return false;
}

/* Reads the value scan in F->g's body. true: F filled. false: why set when the layout was
 * found and something after it is refused (else the function is not a value scan). */
static bool read_fn_scan(bs_state *s, bs_fn *F)
{
    const rw_toks *ts = &F->ts;
    static const char pro_whole[] = "%ti $i = threadIdx . x ; $S [ $i ] = ?z ; $i += ?L ; $S [ $i ] = ?v ;"; /* i18n: not for people */
    static const char pro_seg[] =
        "%ti $i = 2 * threadIdx . x - ( threadIdx . x & ( ?L - 1 ) ) ; $S [ $i ] = ?z ; $i += ?L ; " /* i18n: not for people */
        "$S [ $i ] = ?v ;";
    size_t end = rwl_match_close(ts, F->body);
    if (end >= ts->n)
        return false;
    /* a __host__ __device__ function: its host side could not hold the __shared__ test */
    for (size_t k = 0; k < F->body; k++)
        if (rwl_tok_is_ident(ts, k, "__host__"))
            return false;
    size_t p = 0, k0 = 0;
    for (size_t k = F->body + 1; k < end && !p; k++) {
        if (!(rwl_tok_is(ts, k - 1, "{") || rwl_tok_is(ts, k - 1, ";") || rwl_tok_is(ts, k - 1, "}")))
            continue;
        for (int seg = 0; seg < 2 && !p; seg++) {
            memset(&F->B, 0, sizeof F->B);
            p = pmatch(ts, k, end, seg ? pro_seg : pro_whole, &F->B);
            F->seg = seg;
            k0 = k;
        }
    }
    if (!p)
        return false;
    /* the layout's parts: an integer index, a literal 0, L one name or number or blockDim.x */
    const bs_bind *ti = bind_get(&F->B, "ti"), *z = bind_get(&F->B, "z"), *L = bind_get(&F->B, "L"),
                  *S = bind_get(&F->B, "S");
    char *tis = run_text(s->text, ts, ti->a, ti->b);
    bool ok = tis && in_list(tis, index_types) && one_of(ts, z->a, z->b, zeros) &&
              ((L->b == L->a + 1 && (ts->t[L->a].kind == T_IDENT || ts->t[L->a].kind == T_NUMBER)) ||
               (L->b == L->a + 3 && rwl_builtin_x(ts, L->a, "blockDim")));
    hk_free(tis);
    if (!ok)
        return false;
    /* L is not written in the body (the test reads it again after the passes) */
    for (size_t q = F->body; q < end && ts->t[L->a].kind == T_IDENT && L->b == L->a + 1; q++)
        if (rwl_same_tok(ts, q, L->a) && rwl_is_use(ts, q) &&
            (rwl_scalar_written(ts, q) || rwl_tok_is(ts, q - 1, "&"))) {
            char *ln = run_text(s->text, ts, L->a, L->b), *fn = hk_strdup(F->g->name);
            snprintf(s->why, sizeof s->why, EN(RW_BSC_FN_WRITTEN), tok_line(s, q), ln ? ln : "?", fn ? fn : "?");
            hk_free(ln), hk_free(fn);
            return false;
        }
    if (!fn_param_elem(s->text, F, S->a, F->T, sizeof F->T)) {
        char *sn = run_text(s->text, ts, S->a, S->b);
        snprintf(s->why, sizeof s->why, EN(RW_BSC_FN_PARAM), tok_line(s, k0), sn ? sn : "?", F->g->name);
        hk_free(sn);
        return false;
    }
    /* [barrier] [T t;] then the passes */
    bs_binds B0 = F->B;
    size_t q = pmatch_bar(ts, p, end, "BAR", &F->B);
    bool bar = q != 0;
    if (!bar)
        q = p, F->B = B0;
    B0 = F->B;
    size_t d = pmatch(ts, q, end, "%tt $t ;", &F->B);
    bool decl = d != 0;
    if (!decl)
        d = q, F->B = B0;
    size_t fail = F->B.fail;
    static const char *const loops[] = {
        "for ( %to $o = 1 ; $o < ?L ; $o <<= 1 ) { BAR %tt $t = $S [ $i ] + $S [ $i - $o ] ; BAR $S [ $i ] = $t ; }", /* i18n: not for people */
        "for ( %to $o = 1 ; $o < ?L ; $o *= 2 ) { BAR %tt $t = $S [ $i ] + $S [ $i - $o ] ; BAR $S [ $i ] = $t ; }", /* i18n: not for people */
        "for ( %to $o = 1 ; $o < ?L ; $o <<= 1 ) { %tt $t = $S [ $i - $o ] ; BAR $S [ $i ] += $t ; BAR }", /* i18n: not for people */
        "for ( %to $o = 1 ; $o < ?L ; $o *= 2 ) { %tt $t = $S [ $i - $o ] ; BAR $S [ $i ] += $t ; BAR }", /* i18n: not for people */
        "for ( %to $o = 1 ; $o < ?L ; $o <<= 1 ) { $t = $S [ $i - $o ] ; BAR $S [ $i ] += $t ; BAR }", /* i18n: not for people */
        "for ( %to $o = 1 ; $o < ?L ; $o *= 2 ) { $t = $S [ $i - $o ] ; BAR $S [ $i ] += $t ; BAR }", /* i18n: not for people */
    };
    size_t e = 0;
    for (size_t i = 0; i < HK_ARRAY_LEN(loops) && !e; i++) {
        /* the forms that read below before their first barrier need the layout's barrier;
         * the assignment forms a `T t;` before them */
        if ((i >= 2 && !bar) || (i >= 4) != decl)
            continue;
        bs_binds C = F->B;
        e = pmatch_bar(ts, d, end, loops[i], &C);
        if (C.fail > fail)
            fail = C.fail;
        if (e)
            F->B = C;
    }
    F->loop = e != 0;
    F->kmax = F->kbare = 0;
    if (!e && bar && decl) {
        /* unrolled: K = 1, 2, 4 ... bare or under `if (L > K)` */
        size_t at = d;
        for (long long K = 1; K <= 1024; K *= 2) {
            char unit[256], cond[400];
            snprintf(unit, sizeof unit, "$t = $S [ $i - %lld ] ; BAR $S [ $i ] += $t ; BAR", K); /* i18n: not for people */
            snprintf(cond, sizeof cond, "if ( ?L > %lld ) { %s }", K, unit); /* i18n: not for people */
            bs_binds C = F->B;
            size_t x = pmatch_bar(ts, at, end, unit, &C);
            if (C.fail > fail)
                fail = C.fail;
            if (x)
                F->kbare = K;
            else {
                C = F->B;
                x = pmatch_bar(ts, at, end, cond, &C);
                if (C.fail > fail)
                    fail = C.fail;
            }
            if (!x)
                break;
            F->B = C;
            F->kmax = K;
            at = x;
        }
        if (F->kmax)
            e = at;
    }
    if (e && rwl_tok_is(ts, e, "else"))
        fail = e, e = 0; /* `if (L > K) { pass } else ...`: not a pass */
    if (!e) {
        char *t = run_text(s->text, ts, fail < end ? fail : end, (fail < end ? fail : end) + 1);
        snprintf(s->why, sizeof s->why, EN(RW_BSC_FN_SHAPE), tok_line(s, d), F->g->name, t ? t : "?",
                 tok_line(s, fail < end ? fail : end));
        hk_free(t);
        return false;
    }
    if (!fn_bar_ok(F)) {
        snprintf(s->why, sizeof s->why, EN(RW_BSC_FN_SHAPE), tok_line(s, d), F->g->name, "sync", tok_line(s, d));
        return false;
    }
    /* the temporary: the elements' type (the original converts each partial sum through
     * it), and when declared before the passes, not read after them */
    const bs_bind *tt = bind_get(&F->B, "tt"), *tv = bind_get(&F->B, "t");
    char *tts = tt ? run_text(s->text, ts, tt->a, tt->b) : NULL;
    const char *tw = tts && !strncmp(tts, "const ", 6) ? tts + 6 : tts;
    if (tt && (!tw || strcmp(tw, F->T))) {
        char *tn = run_text(s->text, ts, tv->a, tv->b);
        snprintf(s->why, sizeof s->why, EN(RW_BSC_FN_TEMP), tok_line(s, tt->a), tn ? tn : "?", tw ? tw : "?", F->T);
        hk_free(tn), hk_free(tts);
        return false;
    }
    hk_free(tts);
    if (decl)
        for (size_t r = e; r < end; r++)
            if (rwl_same_tok(ts, r, tv->a)) {
                char *tn = run_text(s->text, ts, tv->a, tv->b);
                snprintf(s->why, sizeof s->why, EN(RW_BSC_FN_AFTER), tok_line(s, r), tn ? tn : "?", F->g->name);
                hk_free(tn);
                return false;
            }
    /* the elements' type: one the shuffles take, or the function's template type parameter */
    F->U = shuffle_type(F->T, &F->fl);
    if (!F->U) {
        bool tpl = false;
        for (size_t r = 0; r < F->body && !tpl; r++)
            tpl = ts->t[r].kind == T_IDENT &&
                  (size_t)(ts->t[r].end - ts->t[r].start) == strlen(F->T) &&
                  !memcmp(s->text + ts->t[r].start, F->T, strlen(F->T)) &&
                  rwl_template_type_param(F->g->template_params, ts, r);
        if (!tpl) {
            char *sn = run_text(s->text, ts, S->a, S->b);
            snprintf(s->why, sizeof s->why, EN(RW_BSC_FN_TYPE), tok_line(s, k0), sn ? sn : "?", F->T);
            hk_free(sn);
            return false;
        }
        F->fl = true; /* not known here: the fp64 shadow judges */
    }
    F->a = d, F->b = e;
    return true;
}

/* The new passes for F: the whole-block test, the segmented warp scan, S[I] stored, a
 * barrier; the original passes otherwise. */
static int emit_fn_scan(const char *text, const bs_fn *F, struct hk_buf *b)
{
    const rw_toks *ts = &F->ts;
    char *S = bind_text(text, F, "S"), *I = bind_text(text, F, "i"), *L = bind_text(text, F, "L");
    char *orig = run_text(text, ts, F->a, F->b);
    int rc = HK_ENOMEM;
    if (!S || !I || !L || !orig)
        goto out;
    char cy[160], cw[160], lay[96], range[96] = "";
    /* the shuffles: cast to and from U for the known types, T's own overload for a template T */
    if (F->U) {
        snprintf(cy, sizeof cy, "(%s)__shfl_up_sync(0xffffffffu, (%s)hk_x, hk_d, 32)", F->T, F->U); /* i18n: not for people */
        snprintf(cw, sizeof cw, "(%s)__shfl_up_sync(0xffffffffu, (%s)hk_w, hk_d, 32)", F->T, F->U); /* i18n: not for people */
    } else {
        snprintf(cy, sizeof cy, "__shfl_up_sync(0xffffffffu, hk_x, hk_d, 32)"); /* i18n: not for people */
        snprintf(cw, sizeof cw, "__shfl_up_sync(0xffffffffu, hk_w, hk_d, 32)"); /* i18n: not for people */
    }
    if (F->seg)
        snprintf(lay, sizeof lay, "blockDim.x %% (unsigned int)(%s) == 0", L); /* i18n: not for people */
    else
        snprintf(lay, sizeof lay, "blockDim.x == (unsigned int)(%s)", L); /* i18n: not for people */
    if (!F->loop)
        snprintf(range, sizeof range, " && (%s) > %lld && (%s) <= %lld", L, F->kbare, L, 2 * F->kmax); /* i18n: not for people */
    rc = hk_buf_printf(
        b,
        "{\n" /* i18n: not for people */
        "        // hk rewrite: block_scan. The Kogge-Stone passes over %s as a warp-shuffle scan of\n"
        "        // each segment of %s threads, under a test the whole block takes at once: a 1-D\n"
        "        // block of whole warps, %s a power of two (%s), %s shared memory, both the same\n"
        "        // for every thread. %s[%s] ends as the passes leave it.\n"
        "        __shared__ const volatile void *hk_sp;\n"
        "        __shared__ long long hk_sl;\n"
        "        if ((%s) >= 2) {\n"
        "            if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {\n"
        "                hk_sp = (const volatile void *)%s;\n"
        "                hk_sl = (long long)(%s);\n"
        "            }\n"
        "            __syncthreads();\n"
        "        }\n"
        "        // every thread of the block votes yes (one that exited does not count)\n"
        "        if ((%s) >= 2 && __syncthreads_count(blockDim.y == 1 && blockDim.z == 1 && (blockDim.x & 31u) == 0 &&\n"
        "                                            ((%s) & ((%s) - 1)) == 0 && %s%s &&\n"
        "                                            __isShared((const void *)%s) && hk_sp == (const volatile void *)%s &&\n"
        "                                            hk_sl == (long long)(%s)) == (int)blockDim.x) {\n"
        "            %s hk_x = %s[%s];\n"
        "            const unsigned int hk_lane = threadIdx.x & 31u, hk_warp = threadIdx.x >> 5;\n"
        "            const unsigned int hk_L = (unsigned int)(%s);\n"
        "            for (unsigned int hk_d = 1; hk_d < 32u; hk_d <<= 1) {\n"
        "                const %s hk_y = %s;\n"
        "                if ((hk_lane & (hk_L - 1u)) >= hk_d)\n"
        "                    hk_x = hk_y + hk_x;\n"
        "            }\n"
        "            if (hk_L > 32u) {\n"
        "                __shared__ %s hk_wsum[32];\n"
        "                const unsigned int hk_nwarps = blockDim.x >> 5, hk_wps = hk_L >> 5;\n"
        "                if (hk_lane == 31u)\n"
        "                    hk_wsum[hk_warp] = hk_x;\n"
        "                __syncthreads();\n"
        "                if (hk_warp == 0) {\n"
        "                    %s hk_w = hk_wsum[hk_lane < hk_nwarps ? hk_lane : 0u];\n"
        "                    for (unsigned int hk_d = 1; hk_d < 32u; hk_d <<= 1) {\n"
        "                        const %s hk_y = %s;\n"
        "                        if ((hk_lane & (hk_wps - 1u)) >= hk_d)\n"
        "                            hk_w = hk_y + hk_w;\n"
        "                    }\n"
        "                    __syncwarp();\n"
        "                    if (hk_lane < hk_nwarps)\n"
        "                        hk_wsum[hk_lane] = hk_w;\n"
        "                }\n"
        "                __syncthreads();\n"
        "                if ((hk_warp & (hk_wps - 1u)) != 0u)\n"
        "                    hk_x = hk_wsum[hk_warp - 1] + hk_x;\n"
        "            }\n"
        "            %s[%s] = hk_x;\n"
        "            __syncthreads();\n"
        "        } else {\n"
        "            %s\n"
        "        }\n"
        "    }",
        S, L, L, F->seg ? "dividing blockDim.x" : "blockDim.x", S, S, I, /* i18n: not for people */
        L, S, L, L, L, L, lay, range, S, S, L, F->T, S, I, L, F->T, cy, F->T, F->T, F->T, cw, S, I, orig);
out:
    hk_free(S), hk_free(I), hk_free(L), hk_free(orig);
    return rc;
}

/* A value scan in a function kernel f calls (directly or through up to 4 calls): true with
 * *F filled (F->ts owned); false, why set to the first refusal of a function whose layout
 * was found, else left empty. */
static bool find_fn_scan(const char *text, size_t len, const an_model *m, const an_function *f, bs_fn *F,
                         char *why, size_t nwhy)
{
    const an_function *work[16] = {f};
    int depth[16] = {0};
    size_t nw = 1;
    for (size_t w = 0; w < nw; w++) {
        rw_toks ts = {0};
        if (rwl_lex(text, work[w]->body_span.start_byte, work[w]->body_span.end_byte, &ts) != HK_OK) {
            rwl_toks_free(&ts);
            continue;
        }
        for (size_t k = 0; k < ts.n; k++) {
            if (ts.t[k].kind != T_IDENT || !rwl_call_paren(&ts, k))
                continue;
            const an_function *g = rwl_callee(m, work[w], &ts, k);
            bool seen = !g || g->kind != AN_DEVICE_FUNC;
            for (size_t v = 0; v < nw && !seen; v++)
                seen = work[v] == g;
            if (seen || nw >= HK_ARRAY_LEN(work) || depth[w] >= 4)
                continue;
            work[nw] = g, depth[nw] = depth[w] + 1, nw++;
            memset(F, 0, sizeof *F);
            F->g = g;
            if (rwl_lex(text, g->span.start_byte, g->body_span.end_byte, &F->ts) != HK_OK) {
                rwl_toks_free(&F->ts);
                continue;
            }
            while (F->body < F->ts.n && F->ts.t[F->body].start < g->body_span.start_byte)
                F->body++;
            bs_state st = {.text = text, .len = len, .ts = &F->ts};
            if (F->body < F->ts.n && rwl_tok_is(&F->ts, F->body, "{") && read_fn_scan(&st, F)) {
                rwl_toks_free(&ts);
                return true;
            }
            if (st.why[0] && !why[0])
                snprintf(why, nwhy, "%s", st.why);
            rwl_toks_free(&F->ts);
        }
        rwl_toks_free(&ts);
    }
    memset(F, 0, sizeof *F);
    return false;
}

/* ---- the emitted text ---- */

/* The warp scan of hk_x (type T, shuffled as type U): hk_x ends as the block's inclusive
 * prefix of every thread's hk_x, hk_e (exclusive) when excl, hk_tot the block's total.
 * Under `if (1-D, whole warps)`: every lane of every warp exists. */
static int emit_warp_scan(struct hk_buf *b, const char *T, const char *U, bool excl, char op)
{
    /* the combination of the lower value y and the own value x: a sum, a maximum, a minimum */
    char c1[40], c2[40], c3[40];
    const char *f = op == 'M' ? "max" : "min"; /* i18n: not for people */
    if (op == '+') {
        snprintf(c1, sizeof c1, "hk_y + hk_x"), snprintf(c2, sizeof c2, "hk_y + hk_w"); /* i18n: not for people */
        snprintf(c3, sizeof c3, "hk_p + hk_x"); /* i18n: not for people */
    } else {
        snprintf(c1, sizeof c1, "%s(hk_y, hk_x)", f), snprintf(c2, sizeof c2, "%s(hk_y, hk_w)", f); /* i18n: not for people */
        snprintf(c3, sizeof c3, "%s(hk_p, hk_x)", f); /* i18n: not for people */
    }
    char ex[320] = "";
    if (excl)
        snprintf(ex, sizeof ex,
                 "        // the exclusive value: the lane below's inclusive one, no subtraction\n" /* i18n: not for people */
                 "        hk_e = (%s)__shfl_up_sync(0xffffffffu, (%s)hk_x, 1, 32);\n",
                 T, U);
    return hk_buf_printf(
        b,
        "        const unsigned int hk_lane = threadIdx.x & 31u, hk_warp = threadIdx.x >> 5;\n" /* i18n: not for people */
        "        const unsigned int hk_nwarps = blockDim.x >> 5;\n"
        "        __shared__ %s hk_wsum[32];\n"
        "        for (unsigned int hk_d = 1; hk_d < 32u; hk_d <<= 1) {\n"
        "            const %s hk_y = (%s)__shfl_up_sync(0xffffffffu, (%s)hk_x, hk_d, 32);\n"
        "            if (hk_lane >= hk_d)\n"
        "                hk_x = %s;\n"
        "        }\n"
        "%s"
        "        if (hk_lane == 31u)\n"
        "            hk_wsum[hk_warp] = hk_x;\n"
        "        __syncthreads();\n"
        "        if (hk_warp == 0) {\n"
        "            %s hk_w = hk_wsum[hk_lane < hk_nwarps ? hk_lane : 0u];\n"
        "            for (unsigned int hk_d = 1; hk_d < 32u; hk_d <<= 1) {\n"
        "                const %s hk_y = (%s)__shfl_up_sync(0xffffffffu, (%s)hk_w, hk_d, 32);\n"
        "                if (hk_lane >= hk_d)\n"
        "                    hk_w = %s;\n"
        "            }\n"
        "            __syncwarp();\n"
        "            if (hk_lane < hk_nwarps)\n"
        "                hk_wsum[hk_lane] = hk_w;\n"
        "        }\n"
        "        __syncthreads();\n"
        "        if (hk_warp > 0) {\n"
        "            const %s hk_p = hk_wsum[hk_warp - 1];\n"
        "            hk_x = %s;\n"
        "%s"
        "        }\n",
        T, T, T, U, c1, ex, T, T, T, U, c2, T, c3,
        excl ? "            hk_e = hk_lane == 0 ? hk_p : hk_p + hk_e;\n" : "");
}

static int emit_scan(const bs_state *s, const bs_scan *sc, const char *T, const char *U, bool fl, struct hk_buf *b)
{
    const rw_toks *ts = s->ts;
    const char *text = s->text;
    char *orig = run_text(text, ts, sc->a, sc->b);
    char *S = run_text(text, ts, sc->arr, sc->arr + 1);
    const bs_bind *tb = bind_get(&sc->B, "t");
    char *t = run_text(text, ts, tb->a, tb->b);
    int rc = HK_ENOMEM;
    if (!orig || !S || !t)
        goto out;
    if (sc->inplace) {
        rc = hk_buf_printf(b,
                           "if (__syncthreads_count(blockDim.y == 1 && blockDim.z == 1 && (blockDim.x & 31u) == 0) == (int)blockDim.x) {\n" /* i18n: not for people */
                           "        // hk rewrite: block_scan. The in-place Hillis-Steele passes over %s as a\n"
                           "        // warp-shuffle inclusive scan; %s\n"
                           "        __syncthreads(); // the passes may start with it: the elements' stores before it\n"
                           "        %s hk_x = %s[%s];\n",
                           S, fl ? "floats reassociated (fp64 shadow)." /* i18n: not for people */ : "integers bit-exact.",
                           T, S, t);
        if (!rc)
            rc = emit_warp_scan(b, T, U, false, '+');
        if (!rc)
            rc = hk_buf_printf(b,
                               "        %s[%s] = hk_x;\n" /* i18n: not for people */
                               "        __syncthreads();\n"
                               "    } else %s",
                               S, t, orig);
        goto out;
    }
    if (!sc->blelloch) {
        const bs_bind *po = bind_get(&sc->B, "po"), *pi = bind_get(&sc->B, "pi"), *off = bind_get(&sc->B, "off"),
                      *ty = bind_get(&sc->B, "ty");
        char *P = run_text(text, ts, po->a, po->b), *Q = run_text(text, ts, pi->a, pi->b),
             *O = run_text(text, ts, off->a, off->b), *Y = run_text(text, ts, ty->a, ty->b);
        if (!P || !Q || !O || !Y) {
            hk_free(P), hk_free(Q), hk_free(O), hk_free(Y);
            goto out;
        }
        rc = hk_buf_printf(b,
                           "if (__syncthreads_count(blockDim.y == 1 && blockDim.z == 1 && (blockDim.x & 31u) == 0) == (int)blockDim.x) {\n" /* i18n: not for people */
                           "        // hk rewrite: block_scan. The Hillis-Steele passes over %s's two buffers as a\n"
                           "        // warp-shuffle inclusive scan; %s and %s toggle as the passes did.\n"
                           "        %s hk_x = %s[%s * blockDim.x + %s];\n"
                           "        for (%s %s = 1; %s < blockDim.x; %s <<= 1) {\n"
                           "            %s = 1 - %s;\n"
                           "            %s = 1 - %s;\n"
                           "        }\n",
                           S, P, Q, T, S, P, t, Y, O, O, O, P, P, Q, P);
        if (!rc)
            rc = emit_warp_scan(b, T, U, false, sc->op);
        if (!rc)
            rc = hk_buf_printf(b,
                               "        %s[%s * blockDim.x + %s] = hk_x;\n" /* i18n: not for people */
                               "        __syncthreads();\n"
                               "    } else %s",
                               S, P, t, orig);
        hk_free(P), hk_free(Q), hk_free(O), hk_free(Y);
        goto out;
    }
    char *mid = run_text(text, ts, sc->mid_a, sc->mid_b);
    if (!mid)
        goto out;
    rc = hk_buf_printf(b,
                       "if (__syncthreads_count(blockDim.y == 1 && blockDim.z == 1 && blockDim.x == %lldu) == (int)blockDim.x) {\n" /* i18n: not for people */
                       "        // hk rewrite: block_scan. The up-sweep/down-sweep over %s[0 .. %lld) as a\n"
                       "        // warp-shuffle scan of each thread's pair; %s\n"
                       "        __syncthreads();\n"
                       "        const %s hk_a0 = %s[2 * %s], hk_a1 = %s[2 * %s + 1];\n"
                       "        %s hk_x = hk_a0 + hk_a1, hk_e;\n",
                       sc->n, S, 2 * sc->n,
                       fl ? "floats reassociated (fp64 shadow)." /* i18n: not for people */ : "integers bit-exact.", T, S,
                       t, S, t, T);
    if (!rc)
        rc = emit_warp_scan(b, T, U, true, '+');
    if (!rc)
        rc = hk_buf_printf(b,
                           "        if (hk_warp == 0 && hk_lane == 0)\n" /* i18n: not for people */
                           "            hk_e = 0;\n"
                           "        // thread 0 between the sweeps, as written, with the block's total where the\n"
                           "        // up-sweep left it\n"
                           "        if (%s == 0)\n"
                           "            %s[%lld] = hk_wsum[hk_nwarps - 1];\n"
                           "        %s\n"
                           "        __syncthreads();\n"
                           "        %s[2 * %s] = hk_e;\n"
                           "        %s[2 * %s + 1] = hk_e + hk_a0;\n"
                           "    } else {\n"
                           "        %s\n"
                           "    }",
                           t, S, 2 * sc->n - 1, mid, S, t, S, t, orig);
    hk_free(mid);
out:
    hk_free(orig), hk_free(S), hk_free(t);
    return rc;
}

/* The spec's block: false (why set) when it is known and not 1-D with whole warps (or, for
 * the sweeps, not exactly n threads). */
static bool spec_block_ok(const rw_context *c, bs_state *s, long long n, int line)
{
    const spec *sp = c->spec;
    if (!sp || !sp->n_sizes)
        return true;
    for (size_t k = 0; k < sp->n_sizes; k++) {
        long long d[3] = {1, 1, 1};
        for (int i = 0; i < 3; i++) {
            if (!sp->block[i])
                continue;
            expr_value v;
            if (spec_eval(sp, sp->block[i], k, c->sm_count > 0 ? c->sm_count : 132, &v, NULL, 0) != HK_OK ||
                v.is_float)
                return true; /* not known here: the run-time test decides */
            d[i] = v.i;
        }
        if (d[1] != 1 || d[2] != 1 || d[0] <= 0 || d[0] > 1024 || d[0] % 32 || (n && d[0] != n)) {
            snprintf(s->why, sizeof s->why, EN(RW_BSC_BLOCK), line, d[0], d[1], d[2]);
            return false;
        }
    }
    return true;
}

static int block_scan(const rw_context *c, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(c->text, c->len, c->m, c->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    km_kernel *km = NULL;
    struct hk_buf body;
    hk_buf_init(&body, 4096);
    bs_state s = {.text = c->text, .len = c->len, .ts = &ts};
    if ((rc = rwl_open_body(c->text, c->len, f, true, &ts, &km, s.why, sizeof s.why)) || s.why[0])
        goto refuse;
    bs_scan sc = {0};
    bool found = false;
    char T[64] = "", arr[64] = "";
    for (size_t k = 0; k + 1 < ts.n && !found; k++) {
        if (!rwl_tok_is_ident(&ts, k, "__shared__"))
            continue;
        /* `[extern] __shared__ TYPE NAME [` */
        size_t q = k + 1;
        while (q < ts.n && ts.t[q].kind == T_IDENT)
            q++;
        if (q < k + 3 || !rwl_tok_is(&ts, q, "["))
            continue;
        size_t nm = q - 1;
        char *ty = run_text(c->text, &ts, k + 1, nm), *an = run_text(c->text, &ts, nm, nm + 1);
        snprintf(T, sizeof T, "%s", ty ? ty : "");
        snprintf(arr, sizeof arr, "%s", an ? an : "");
        hk_free(ty), hk_free(an);
        for (size_t l = nm + 1; l < ts.n && !found; l++) {
            if (!log_step_loop(&ts, l, nm))
                continue;
            sc = (bs_scan){.arr = nm};
            char save[sizeof s.why];
            memcpy(save, s.why, sizeof save);
            if (read_hs1(&s, l, &sc, arr)) {
                found = true;
                break;
            }
            if (strcmp(save, s.why))
                break; /* the in-place spelling, refused */
            sc = (bs_scan){.arr = nm};
            if (read_hs(&s, l, &sc, arr)) {
                found = true;
                break;
            }
            char hs_why[sizeof s.why];
            memcpy(hs_why, s.why, sizeof hs_why);
            memcpy(s.why, save, sizeof save);
            sc = (bs_scan){.arr = nm};
            if (read_blelloch(&s, l, &sc, arr)) {
                found = true;
                break;
            }
            /* the loop's own refusal: the spelling it got further into */
            if (!save[0] && hs_why[0] && sc.B.fail < l + 12)
                memcpy(s.why, hs_why, sizeof hs_why);
            break; /* one scan loop per array is looked at */
        }
    }
    if (!found) {
        /* a value scan in a function the kernel calls: that function's passes are replaced
         * (in place, sound for every caller: emit_fn_scan's test) */
        bs_fn F;
        char fwhy[sizeof s.why] = "";
        if (find_fn_scan(c->text, c->len, c->m, f, &F, fwhy, sizeof fwhy)) {
            bs_state fs = {.text = c->text, .len = c->len, .ts = &F.ts};
            int line = tok_line(&fs, F.a);
            if (c->hip) {
                /* the test's __isShared and cooperative groups' barrier are read for CUDA only */
                snprintf(s.why, sizeof s.why, EN(RW_BSC_FN_HIP), line, F.g->name);
                rwl_toks_free(&F.ts);
                goto refuse;
            }
            if (!spec_block_ok(c, &s, 0, line)) {
                rwl_toks_free(&F.ts);
                goto refuse;
            }
            rc = emit_fn_scan(c->text, &F, &body);
            char *repl = rc ? NULL : hk_strdup(body.data);
            if (!rc && (!repl || (rc = rwl_edits_add_owned(&es, F.ts.t[F.a].start, F.ts.t[F.b - 1].end, repl))))
                rc = rc ? rc : HK_ENOMEM;
            char *sn = bind_text(c->text, &F, "S");
            char *desc = rc ? NULL
                            : hk_asprintf(EN(RW_BSC_FN_DESC), f->name, F.g->name, sn ? sn : "?", line,
                                          F.seg ? EN(RW_BSC_FN_SEG) : EN(RW_BSC_FN_WHOLE),
                                          F.fl ? EN(RW_BSC_FLOAT) : EN(RW_BSC_EXACT));
            hk_free(sn);
            rwl_toks_free(&F.ts);
            if (rc) {
                hk_free(desc);
                goto out;
            }
            rc = rwl_finish(c->text, c->len, c->m, f->name, &es, desc, out);
            if (!rc && out->applicable)
                out->keeps_launch = true;
            goto out;
        }
        if (!s.why[0] && fwhy[0])
            snprintf(s.why, sizeof s.why, "%s", fwhy);
    }
    if (!found && !s.why[0]) {
        /* no scan loop in the body: one handed to a function (cuda-samples' scan1Inclusive,
         * SHOC's scanLocalMem) is named with its call */
        for (size_t k = 0; k + 1 < ts.n && !s.why[0]; k++) {
            if (!rwl_tok_is_ident(&ts, k, "__shared__"))
                continue;
            size_t q = k + 1;
            while (q < ts.n && ts.t[q].kind == T_IDENT)
                q++;
            if (q < k + 3 || !rwl_tok_is(&ts, q, "["))
                continue;
            for (size_t u = q; u < ts.n && !s.why[0]; u++) {
                if (!rwl_same_tok(&ts, u, q - 1) || rwl_tok_is(&ts, u + 1, "["))
                    continue;
                /* the call whose argument list holds it: back to the unmatched `(` */
                int depth = 0;
                size_t v = u;
                while (v > 0) {
                    v--;
                    if (rwl_tok_is(&ts, v, ")"))
                        depth++;
                    else if (rwl_tok_is(&ts, v, "(") && depth-- == 0)
                        break;
                }
                size_t fn = v > 0 ? v - 1 : 0;
                if (rwl_tok_is(&ts, fn, ">")) { /* template arguments */
                    int d = 0;
                    while (fn > 0) {
                        if (rwl_tok_is(&ts, fn, ">"))
                            d++;
                        else if (rwl_tok_is(&ts, fn, "<") && --d == 0)
                            break;
                        fn--;
                    }
                    fn = fn > 0 ? fn - 1 : 0;
                }
                if (!rwl_tok_is(&ts, v, "(") || ts.t[fn].kind != T_IDENT)
                    continue;
                char *an = run_text(c->text, &ts, q - 1, q), *fname = run_text(c->text, &ts, fn, fn + 1);
                snprintf(s.why, sizeof s.why, EN(RW_BSC_CALL), tok_line(&s, u), an ? an : "?", fname ? fname : "?");
                hk_free(an), hk_free(fname);
            }
        }
    }
    if (!found) {
        if (!s.why[0])
            snprintf(s.why, sizeof s.why, EN(RW_BSC_NO_SCAN), rwl_line_at(c->text, f->body_span.start_byte));
        goto refuse;
    }
    bool fl = false;
    const char *U = shuffle_type(T, &fl);
    if (!U) {
        snprintf(s.why, sizeof s.why, EN(RW_BSC_TYPE), tok_line(&s, sc.arr), arr, T);
        goto refuse;
    }
    if (sc.op == 'M' || sc.op == 'm') {
        /* a maximum or minimum: integers only (a float max/min of -0.0 and +0.0, or of a NaN,
         * depends on the order), and max/min CUDA's own, not the file's function or macro */
        const char *fn = sc.op == 'M' ? "max" : "min"; /* i18n: not for people */
        size_t at = 0, da, db;
        bool own = rwl_next_define(c->text, c->len, &at, fn, 3, &da, &db);
        for (size_t i = 0; i < c->m->n_funcs && !own; i++)
            own = !strcmp(c->m->funcs[i].name, fn);
        if (fl || own) {
            snprintf(s.why, sizeof s.why, EN(RW_BSC_MINMAX), tok_line(&s, sc.a), arr, fn, T);
            goto refuse;
        }
    }
    if (sc.blelloch || sc.inplace) {
        /* the down-sweep's (the in-place passes') temporary (`float a = S[aj];`): the original converts every partial
         * sum it moves through that type (an int over floats truncates, a float over ints
         * rounds); the warp scan keeps the elements' type, so the two must be one type */
        const bs_bind *tv = bind_get(&sc.B, "tv"), *av = bind_get(&sc.B, sc.inplace ? "v" : "a");
        char *tt = run_text(c->text, &ts, tv->a, tv->b), *an = run_text(c->text, &ts, av->a, av->b);
        if (!tt || !an) {
            hk_free(tt), hk_free(an);
            rc = HK_ENOMEM;
            goto out;
        }
        const char *tw = strncmp(tt, "const ", 6) ? tt : tt + 6;
        bool tf = false;
        const char *tu = shuffle_type(tw, &tf);
        if (strcmp(tw, "auto") && (!tu || strcmp(tu, U) || tf != fl)) {
            snprintf(s.why, sizeof s.why, sc.inplace ? EN(RW_BSC_FN_TEMP) : EN(RW_BSC_TEMP), tok_line(&s, tv->a), an,
                     tw, T);
            hk_free(tt), hk_free(an);
            goto refuse;
        }
        hk_free(tt), hk_free(an);
    }
    if (!spec_block_ok(c, &s, sc.blelloch ? sc.n : 0, tok_line(&s, sc.a)))
        goto refuse;
    if ((rc = emit_scan(&s, &sc, T, U, fl, &body)))
        goto out;
    char *repl = hk_strdup(body.data);
    if (!repl || (rc = rwl_edits_add_owned(&es, ts.t[sc.a].start, ts.t[sc.b - 1].end, repl))) {
        rc = rc ? rc : HK_ENOMEM;
        goto out;
    }
    char extra[48] = "";
    if (sc.blelloch)
        snprintf(extra, sizeof extra, " (blockDim.x == %lld)", sc.n);
    char *desc = hk_asprintf(EN(RW_BSC_DESC), f->name,
                             sc.blelloch  ? "up-sweep/down-sweep" /* i18n: not for people */
                             : sc.inplace ? "in-place Hillis-Steele" /* i18n: not for people */
                             : sc.op == 'M' ? "Hillis-Steele maximum" /* i18n: not for people */
                             : sc.op == 'm' ? "Hillis-Steele minimum" /* i18n: not for people */
                                            : "Hillis-Steele",
                             arr,
                             tok_line(&s, sc.a), extra, fl ? EN(RW_BSC_FLOAT) : EN(RW_BSC_EXACT));
    rc = rwl_finish(c->text, c->len, c->m, f->name, &es, desc, out);
    if (!rc && out->applicable)
        out->keeps_launch = true;
    goto out;
refuse:
    if (!rc)
        rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), name, f->name, s.why));
out:
    hk_buf_free(&body);
    km_free(km);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static int emit_block_scan(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return block_scan(c, out);
}

const rw_descriptor rw_block_scan_desc = {
    .name = "block_scan",
    .summary = "a per-block prefix sum (or integer max/min) in a __shared__ array (Hillis-Steele over one or two " /* i18n: not for people */
               "buffers, the up-sweep/down-sweep, or Kogge-Stone passes in a __device__ function the kernel calls): " /* i18n: not for people */
               "warp shuffles, one shared total per warp; integers exact",
    .flags = RW_ALGORITHM,
    .emit = emit_block_scan,
};
