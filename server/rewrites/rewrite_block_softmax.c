/* block_online_softmax (issue 13, session 44): a softmax written one block per row -- the
 * row's maximum by a block-strided loop and a shared-memory tree, exp(x - max) stored and
 * summed (or summed as recomputed) by a second loop and tree, then exp / sum written -- becomes
 * one pass per thread keeping a running (max, sum) pair, one block reduction of the pairs
 * (warp shuffles, one shared slot per warp) and one write pass: 2 row reads and 1 row write an
 * element where llm.c's softmax_forward_kernel2 makes 4 reads and 2 writes.
 *
 * A registry entry of its own, not a form of online_softmax: online_softmax reads a
 * thread-per-row kernel (rwp_read_rows) and relaunches it a warp per row; this one reads
 * block-strided loops and barrier trees and keeps the kernel's own launch (a block per row).
 *
 * The shape, top-level statements of the body in this order (any other statement refuses
 * with its line):
 *   declarations (tid = threadIdx.x, bs = blockDim.x, x = inp + OFF, shared arrays, m = -inf)
 *   for (T i = tid; i < N; i += bs) m = fmaxf(m, X);      (any rwl_minmax_update spelling)
 *   S[tid] = m; for (s = bs / 2; s > 0; s /= 2) { __syncthreads(); if (tid < s) S[tid] =
 *     fmaxf(S[tid], S[tid + s]); } __syncthreads(); float r = S[0];
 *   for (...) Y = expf(X - r);  [x = out + OFF;]  float sum = 0; for (...) sum += Y;
 *     or: float sum = 0; for (...) sum += expf(X - r);
 *   the same tree with + for sum -> t;  [float inv = 1.0f / t;]
 *   for (...) Y = Y / t;  (Y /= t, Y * inv, Y * (1.0f / t), or expf(X - r) / t ...)
 * X = inp[OFF + i] (or x[i] with x = inp + OFF), Y = out[OFF + i], one OFF for the block
 * (no thread index in it), float elements, expf / __expf / exp.
 *
 * Why the same, up to the sum's order: the halving tree over a power-of-two block leaves the
 * block's maximum (fmaxf: NaN elements skipped) and the block's sum in S[0]; with a running
 * pair (m, s), s = sum of exp(x - m) over the elements seen, a larger element x rescales s by
 * exp(m - x) before adding exp(0); pairs combine as fmaxf of the maxima and the sums rescaled
 * to it. So the final s is the row's sum of exp(x - M) reassociated (and each term a product
 * of two exps instead of one: a few ulp), M exactly the original's maximum, and the write pass
 * recomputes the stored exp(x - M) bit for bit. Not bit-identical: the spec's tolerance
 * applies. The original's special values are kept: an element -inf is skipped (it adds
 * exp(-inf - M) = 0, and skipping it keeps a -inf running maximum from making exp(-inf + inf)
 * NaN); a NaN element makes s NaN (exp(NaN - m)) as it makes the original's sum NaN; a +inf
 * element makes s NaN (exp(inf - inf)) as the original's exp(inf - inf); an all -inf row
 * ends with M = -inf, s = 0 and writes exp(NaN) / 0 = NaN as the original writes NaN / NaN.
 * A block that is not 1-D, not a power of two (the halving tree then misses elements), not a
 * multiple of 32 or over 1024 threads takes the original body (a test the whole block
 * shares), and so does a launch passing a kept store's buffer (a store of the block's results
 * for the caller, moved to just before the write pass) as the input or the output. The input
 * passed as the output is the same in both forms: each thread reads its elements before it
 * writes them. Blocks are assumed to own their rows (as store_forward and register_carry do). */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "spec/spec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define BS_NAMES 32
#define BS_STMTS 128
#define BS_CANON 1024
#define BS_KEPT 8

static const char *const name = "block_online_softmax";

typedef struct {
    char name[PT_NAME];
    char buf[PT_NAME];     /* pointer alias: the parameter it points into */
    char off[PT_EXPR];     /* and its offset (canonical) */
    char off_text[PT_EXPR];/* as written */
    bool uniform;          /* the initializer does not read the thread index */
    bool tid, bdim;        /* = threadIdx.x, = blockDim.x */
    bool alias;
    bool is_float;         /* declared `float` (no pointer) */
    char init[PT_EXPR];    /* its initializer, canonical */
    char init_text[PT_EXPR];/* and as written */
} bs_local;

typedef struct {
    const rw_toks *ts;
    const char *text;
    size_t len;            /* of text */
    const an_function *f;
    size_t st[BS_STMTS + 1], n_st;
    bs_local loc[BS_NAMES];
    size_t n_loc;
    /* roles (names as written; "" unset) */
    char m[PT_NAME], r[PT_NAME], s[PT_NAME], t[PT_NAME], v[PT_NAME], var[PT_NAME], k[PT_NAME], sh[PT_NAME];
    char off[PT_EXPR];     /* the row offset, canonical ("" unset) */
    char off_text[PT_EXPR];/* as first written */
    char off_sq[PT_EXPR];  /* squeezed, outer parentheses off */
    bool have_off;
    char in[PT_NAME], out[PT_NAME];
    char bound[PT_EXPR], bound_text[PT_EXPR];
    char vtype[PT_NAME];   /* the loop variable's type */
    char start_text[PT_EXPR], step_text[PT_EXPR];
    char exp_fn[16];
    char m_init[PT_EXPR];  /* the running maximum's initial value as written */
    size_t kept[BS_KEPT];  /* statements kept: stores of the maximum or the sum the caller reads */
    char kept_buf[BS_KEPT][PT_NAME]; /* the buffer each writes */
    char kept_idx[BS_KEPT][PT_EXPR]; /* and its element's index as written */
    size_t n_kept;
    bool bad_access;       /* canon met an access that is not this thread's element */
    size_t bad_tok;
    char why[600];
} bs_state;

static bs_local *local_named(bs_state *s, const char *nm)
{
    for (size_t i = 0; i < s->n_loc; i++)
        if (strcmp(s->loc[i].name, nm) == 0)
            return &s->loc[i];
    return NULL;
}

static void cat(char *out, size_t n, const char *s)
{
    size_t l = strlen(out);
    if (l + 1 < n)
        snprintf(out + l, n - l, "%s", s);
}

/* Strips one pair of parentheses around the whole of c. */
static void strip_parens(char *c)
{
    size_t n = strlen(c);
    if (n < 2 || c[0] != '(' || c[n - 1] != ')')
        return;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        depth += c[i] == '(' ? 1 : c[i] == ')' ? -1 : 0;
        if (depth == 0 && i + 1 < n)
            return;
    }
    memmove(c, c + 1, n - 2);
    c[n - 2] = 0;
}

static void canon(bs_state *s, size_t a, size_t b, char *out, size_t n);
static bool uniform_text(bs_state *s, size_t a, size_t b);

/* The canonical text of an element access NAME[a..b) (index tokens [a, b)): "@P" when it
 * is this thread's element of row buffer P at the block's row offset; records the offset. */
static bool element(bs_state *s, size_t nk, size_t a, size_t b, char *out, size_t n)
{
    const rw_toks *ts = s->ts;
    char nm[PT_NAME], idx[PT_EXPR];
    rwp_tok_copy(ts, nk, nm, sizeof nm);
    canon(s, a, b, idx, sizeof idx);
    bs_local *l = local_named(s, nm);
    char buf[PT_NAME] = "", off[PT_EXPR] = "", off_text[PT_EXPR] = "";
    if (l && l->alias) {
        if (strcmp(idx, "$i") != 0)
            return false;
        snprintf(buf, sizeof buf, "%s", l->buf);
        snprintf(off, sizeof off, "%s", l->off);
        snprintf(off_text, sizeof off_text, "%s", l->off_text);
    } else if (rwp_param_by_name(s->f, nm)) {
        size_t L = strlen(idx), ra, rb;
        if (L > 3 && strcmp(idx + L - 3, "+$i") == 0 && b >= a + 3 && rwl_tok_is_ident(s->ts, b - 1, s->var) &&
            rwl_tok_is(s->ts, b - 2, "+")) {
            idx[L - 3] = 0;
            snprintf(off, sizeof off, "%s", idx);
            ra = a;
            rb = b - 2;
        } else if (strncmp(idx, "$i+", 3) == 0 && b >= a + 3 && rwl_tok_is_ident(s->ts, a, s->var) &&
                   rwl_tok_is(s->ts, a + 1, "+")) {
            snprintf(off, sizeof off, "%s", idx + 3);
            ra = a + 2;
            rb = b;
        } else
            return false;
        /* OFF must be one operand of the `+`: `c ? a : b + i` or `k << 2 + i` is not OFF + i,
         * nor is `i + a - b` (i + a) - b */
        if (rwl_has_loose_op(s->ts, ra, rb) || !uniform_text(s, ra, rb))
            return false;
        if (ra == a + 2)
            for (size_t q = ra; q < rb; q++)
                if (rwl_tok_is(s->ts, q, "+") || rwl_tok_is(s->ts, q, "-"))
                    return false;
        strip_parens(off);
        char *t = rwl_tok_text(s->ts, ra, rb);
        snprintf(off_text, sizeof off_text, "%s", t ? t : "");
        hk_free(t);
        snprintf(buf, sizeof buf, "%s", nm);
    } else
        return false;
    if (strstr(off, "$i") || strstr(off, "$t") || strchr(off, '@'))
        return false;
    /* the same offset everywhere, also as written (squeezed): casts kept, so a 64-bit offset
     * and a 32-bit one are two offsets */
    char sq[PT_EXPR];
    rwl_squeeze(off_text, sq, sizeof sq);
    strip_parens(sq);
    if (!s->have_off) {
        s->have_off = true;
        snprintf(s->off, sizeof s->off, "%s", off);
        snprintf(s->off_text, sizeof s->off_text, "%s", off_text);
        snprintf(s->off_sq, sizeof s->off_sq, "%s", sq);
    } else if (strcmp(s->off, off) != 0 || strcmp(s->off_sq, sq) != 0)
        return false;
    snprintf(out, n, "@%s", buf);
    return true;
}

/* Canonical text of tokens [a, b): no spaces, threadIdx.x and its locals `$t`, blockDim.x and
 * its locals `$b`, the roles `$m $r $s $u $v $i $k $S`, row element accesses `@P`, casts to
 * builtin types dropped. An access through a row pointer that is not this thread's element
 * sets bad_access. */
static void canon(bs_state *s, size_t a, size_t b, char *out, size_t n)
{
    const rw_toks *ts = s->ts;
    out[0] = 0;
    for (size_t k = a; k < b; k++) {
        char w[PT_NAME];
        if (k + 2 < b + 0 && rwl_tok_is(ts, k + 1, ".") && (rwl_tok_is_ident(ts, k, "threadIdx") ||
                                                             rwl_tok_is_ident(ts, k, "blockDim")) &&
            rwl_tok_is_ident(ts, k + 2, "x")) {
            cat(out, n, rwl_tok_is_ident(ts, k, "threadIdx") ? "$t" : "$b");
            k += 2;
            continue;
        }
        /* `(float)` and `(const float)` casts of the float values: a no-op; any other cast
         * (`(int)`, `(half)`, `(double)`) changes the value and stays, so no pattern matches */
        if (rwl_tok_is(ts, k, "(") && k + 1 < b && rwp_is_type_word(ts, k + 1)) {
            size_t q = k + 1;
            bool only_float = true;
            while (q < b && (rwp_is_type_word(ts, q) || rwl_tok_is_ident(ts, q, "const"))) {
                only_float &= rwl_tok_is_ident(ts, q, "float") || rwl_tok_is_ident(ts, q, "const");
                q++;
            }
            if (q < b && rwl_tok_is(ts, q, ")") && only_float) {
                k = q;
                continue;
            }
        }
        rwp_tok_copy(ts, k, w, sizeof w);
        if (rwp_tok_ident(ts, k) && !(k > a && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->")))) {
            bs_local *l = local_named(s, w);
            if (k + 1 < b && rwl_tok_is(ts, k + 1, "[") &&
                ((l && l->alias) || (!l && rwp_param_by_name(s->f, w)))) {
                size_t c = rwl_match_close(ts, k + 1);
                char e[PT_EXPR];
                if (c >= b || !element(s, k, k + 2, c, e, sizeof e)) {
                    if (!s->bad_access) {
                        s->bad_access = true;
                        s->bad_tok = k;
                    }
                    cat(out, n, "@?");
                    k = c < b ? c : b;
                    continue;
                }
                cat(out, n, e);
                k = c;
                continue;
            }
            const char *role = NULL;
            if (s->m[0] && strcmp(w, s->m) == 0) role = "$m";
            else if (s->r[0] && strcmp(w, s->r) == 0) role = "$r";
            else if (s->s[0] && strcmp(w, s->s) == 0) role = "$s";
            else if (s->t[0] && strcmp(w, s->t) == 0) role = "$u";
            else if (s->v[0] && strcmp(w, s->v) == 0) role = "$v";
            else if (s->var[0] && strcmp(w, s->var) == 0) role = "$i";
            else if (s->k[0] && strcmp(w, s->k) == 0) role = "$k";
            else if (s->sh[0] && strcmp(w, s->sh) == 0) role = "$S";
            else if (l && l->tid) role = "$t";
            else if (l && l->bdim) role = "$b";
            if (role) {
                cat(out, n, role);
                continue;
            }
        }
        cat(out, n, w);
    }
}

/* Is the canonical text c free of the thread index and of locals that read it? */
/* Is the name at k a macro of the file whose text reads the thread index (threadIdx, a lane
 * id) or memory, or calls what is not pure -- or again such a macro, up to depth deep? Its
 * value then differs between the block's threads or may change between the passes (session
 * 46: `#define ROWOFF ((threadIdx.x / 64) * C)` as a row offset applied). */
static bool macro_varies(const bs_state *s, const rw_toks *ts, size_t k, int depth)
{
    size_t nl = ts->t[k].end - ts->t[k].start, at = 0, a, b;
    bool v = false;
    while (!v && rwl_next_define(s->text, s->len, &at, ts->text + ts->t[k].start, nl, &a, &b)) {
        if (depth <= 0)
            return true;
        rw_toks mt = {0};
        if (rwl_lex(s->text, (uint32_t)(a + nl), (uint32_t)b, &mt) != HK_OK) {
            rwl_toks_free(&mt);
            return true;
        }
        size_t q0 = s->text[a + nl] == '(' && mt.n ? rwl_match_close(&mt, 0) + 1 : 0;   /* a parameter list */
        for (size_t q = q0; q < mt.n && !v; q++) {
            if (rwl_tok_is_ident(&mt, q, "threadIdx") || rwl_tok_is_ident(&mt, q, "laneid") ||
                rwl_reads_memory(&mt, q, q + 1 < mt.n ? q + 1 : mt.n))
                v = true;
            else if (mt.t[q].kind == T_IDENT && q + 1 < mt.n && rwl_tok_is(&mt, q + 1, "(") &&
                     !rwl_pure_call_name(&mt, q) && !rwp_is_type_word(&mt, q))
                v = !rwl_pure_function_macro(s->text, s->len, s->text + mt.t[q].start,
                                             mt.t[q].end - mt.t[q].start, depth);
            else if (mt.t[q].kind == T_IDENT && (mt.t[q].end - mt.t[q].start != nl ||
                                                 memcmp(s->text + mt.t[q].start, ts->text + ts->t[k].start, nl)))
                v = macro_varies(s, &mt, q, depth - 1);
        }
        rwl_toks_free(&mt);
    }
    return v;
}

static bool uniform_text(bs_state *s, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is_ident(ts, k, "threadIdx") || rwl_tok_is_ident(ts, k, "laneid") ||
            rwl_reads_memory(ts, k, k + 2 < b ? k + 2 : b))
            return false;   /* memory may change between the passes */
        if (rwp_tok_ident(ts, k)) {
            char w[PT_NAME];
            rwp_tok_copy(ts, k, w, sizeof w);
            bs_local *l = local_named(s, w);
            if (l && !l->uniform)
                return false;
            if (rwl_tok_is(ts, k + 1, "(") && !rwl_pure_call_name(ts, k))
                return false;
            if (!l && !rwp_param_by_name(s->f, w) && macro_varies(s, ts, k, 4))
                return false;
        }
    }
    return true;
}

/* Is the type word at k one that cannot hold every thread index, block size or half of it
 * (up to 1024), or not an integer at all: `unsigned char t = threadIdx.x` names thread
 * t % 256, `char s = blockDim.x / 2` stops the tree at once for blocks of 256 (session 46)? */
static bool narrow_word(const rw_toks *ts, size_t k)
{
    static const char *const narrow[] = {"char", "short", "bool", "float", "double", "half", "__half",
                                         "int8_t", "uint8_t", "int16_t", "uint16_t", "__nv_bfloat16"};
    for (size_t i = 0; i < HK_ARRAY_LEN(narrow); i++)
        if (rwl_tok_is_ident(ts, k, narrow[i]))
            return true;
    return false;
}

static bool refuse(bs_state *s, size_t k, const char *construct, const char *msg)
{
    return rwl_refuse(s->why, sizeof s->why, s->ts, s->text, k, construct, "%s", msg);
}

/* A declaration statement [a, b) of the prologue: records thread-index, block-size and
 * row-pointer locals. */
static bool prologue_decl(bs_state *s, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    size_t k = a;
    bool shared = false;
    while (k < b && (rwl_tok_is_ident(ts, k, "const") || rwl_tok_is_ident(ts, k, "extern") ||
                     rwl_tok_is_ident(ts, k, "__shared__") || rwl_tok_is_ident(ts, k, "volatile") ||
                     rwl_tok_is_ident(ts, k, "static"))) {
        shared |= rwl_tok_is_ident(ts, k, "__shared__");
        k++;
    }
    if (k >= b || !rwp_is_type_word(ts, k))
        return false;
    bool is_float = rwl_tok_is_ident(ts, k, "float"), narrow = false;
    while (k < b && (rwp_is_type_word(ts, k) || rwl_tok_is_ident(ts, k, "const"))) {
        is_float &= rwl_tok_is_ident(ts, k, "float") || rwl_tok_is_ident(ts, k, "const");
        narrow |= narrow_word(ts, k);
        k++;
    }
    bool ptr = false;
    while (k < b && (rwl_tok_is(ts, k, "*") || rwl_tok_is_ident(ts, k, "__restrict__") ||
                     rwl_tok_is_ident(ts, k, "const"))) {
        ptr |= rwl_tok_is(ts, k, "*");
        k++;
    }
    if (k >= b || !rwp_tok_ident(ts, k) || s->n_loc >= BS_NAMES)
        return false;
    bs_local *l = &s->loc[s->n_loc];
    memset(l, 0, sizeof *l);
    rwp_tok_copy(ts, k, l->name, sizeof l->name);
    if (rwp_param_by_name(s->f, l->name) || local_named(s, l->name))
        return false;   /* a name that hides another: refuse rather than guess */
    size_t nk = k++;
    (void)nk;
    if (shared) {
        /* `[extern] __shared__ T S[...];` : nothing else */
        if (k < b && rwl_tok_is(ts, k, "[")) {
            size_t c = rwl_match_close(ts, k);
            if (c + 2 == b && rwl_tok_is(ts, c + 1, ";")) {
                l->uniform = true;
                l->is_float = is_float && !ptr;   /* a tree's array: its slots hold the values as float */
                s->n_loc++;
                return true;
            }
        }
        return false;
    }
    if (k + 1 >= b || !rwl_tok_is(ts, k, "=") || !rwl_tok_is(ts, b - 1, ";"))
        return false;
    size_t ia = k + 1, ib = b - 1;
    if (rwp_has_side_effects(ts, ia, ib))
        return false;
    for (size_t q = ia; q < ib; q++)
        if (rwl_tok_is(ts, q, "[") || (rwp_tok_ident(ts, q) && rwl_tok_is(ts, q + 1, "(") && !rwl_pure_call_name(ts, q) &&
                                        !rwp_is_type_word(ts, q)))
            return false;   /* a load or a call: not a plain local */
    char c[PT_EXPR];
    canon(s, ia, ib, c, sizeof c);
    l->uniform = uniform_text(s, ia, ib) && !strstr(c, "$t");
    l->tid = strcmp(c, "$t") == 0 && !narrow;   /* a narrow copy is another value (narrow_word) */
    l->bdim = strcmp(c, "$b") == 0 && !narrow;
    l->is_float = is_float && !ptr;
    snprintf(l->init, sizeof l->init, "%s", c);
    char *it = rwl_tok_text(ts, ia, ib);
    snprintf(l->init_text, sizeof l->init_text, "%s", it ? it : "");
    hk_free(it);
    if (ptr) {
        /* x = P + OFF (or P) */
        const an_param *p = ia < ib && rwp_tok_ident(ts, ia) ? rwp_param_named(s->f, ts, ia) : NULL;
        if (!p || p->pointer_depth != 1)
            return false;
        if (ia + 1 == ib) {
            l->off[0] = 0;
        } else if (rwl_tok_is(ts, ia + 1, "+") && l->uniform) {
            canon(s, ia + 2, ib, l->off, sizeof l->off);
            strip_parens(l->off);
            char *t = rwl_tok_text(ts, ia + 2, ib);
            snprintf(l->off_text, sizeof l->off_text, "%s", t ? t : "");
            hk_free(t);
        } else
            return false;
        snprintf(l->buf, sizeof l->buf, "%s", p->name);
        l->alias = true;
    }
    s->n_loc++;
    return true;
}

/* Statement i: `x = P + OFF;` re-pointing a row pointer. */
static bool repoint(bs_state *s, size_t i)
{
    const rw_toks *ts = s->ts;
    size_t a = s->st[i], b = s->st[i + 1];
    if (b - a < 4 || !rwp_tok_ident(ts, a) || !rwl_tok_is(ts, a + 1, "=") || !rwl_tok_is(ts, b - 1, ";"))
        return false;
    char nm[PT_NAME];
    rwp_tok_copy(ts, a, nm, sizeof nm);
    bs_local *l = local_named(s, nm);
    if (!l || !l->alias)
        return false;
    size_t ia = a + 2, ib = b - 1;
    const an_param *p = rwp_tok_ident(ts, ia) ? rwp_param_named(s->f, ts, ia) : NULL;
    if (!p || p->pointer_depth != 1 || !uniform_text(s, ia, ib) || rwp_has_side_effects(ts, ia, ib))
        return false;
    if (ia + 1 == ib) {
        l->off[0] = 0;
        l->off_text[0] = 0;
    } else if (rwl_tok_is(ts, ia + 1, "+")) {
        canon(s, ia + 2, ib, l->off, sizeof l->off);
        strip_parens(l->off);
        char *t = rwl_tok_text(ts, ia + 2, ib);
        snprintf(l->off_text, sizeof l->off_text, "%s", t ? t : "");
        hk_free(t);
    } else
        return false;
    snprintf(l->buf, sizeof l->buf, "%s", p->name);
    return true;
}

/* Statement i `__syncthreads();`. */
static bool is_barrier(const bs_state *s, size_t i)
{
    return rwl_barrier_stmt(s->ts, s->st[i], s->st[i + 1]);
}

/* Statement i a declaration `float NAME = INIT;`: NAME into nm, INIT's canonical text. */
static bool float_decl(bs_state *s, size_t i, char *nm, size_t nn, char *init, size_t ni)
{
    const rw_toks *ts = s->ts;
    size_t a = s->st[i], b = s->st[i + 1];
    if (rwl_tok_is_ident(ts, a, "const"))
        a++;
    if (b - a < 5 || !rwl_tok_is_ident(ts, a, "float") || !rwp_tok_ident(ts, a + 1) || !rwl_tok_is(ts, a + 2, "=") ||
        !rwl_tok_is(ts, b - 1, ";"))
        return false;
    rwp_tok_copy(ts, a + 1, nm, nn);
    if (rwp_param_by_name(s->f, nm) || local_named(s, nm))
        return false;
    canon(s, a + 3, b - 1, init, ni);
    return true;
}

/* Statement i a row loop `for (T v = tid; v < N; v += bs)`: the body's tokens [*ba, *bb)
 * (braces and a single statement inside them removed). The first one sets the bound, the
 * rest must repeat it. */
static bool row_loop(bs_state *s, size_t i, size_t *ba, size_t *bb)
{
    const rw_toks *ts = s->ts;
    size_t a = s->st[i], b = s->st[i + 1];
    if (!rwl_tok_is_ident(ts, a, "for") || !rwl_tok_is(ts, a + 1, "("))
        return refuse(s, a, "row loop", EN(RW_BS_LOOP));
    size_t close = rwl_match_close(ts, a + 1);
    size_t k = a + 2, t0 = k;
    while (k < close && (rwp_is_type_word(ts, k) || rwl_tok_is_ident(ts, k, "const")))
        k++;
    if (k == t0 || k >= close || !rwp_tok_ident(ts, k) || !rwl_tok_is(ts, k + 1, "="))
        return refuse(s, a, "row loop", EN(RW_BS_LOOP));
    char vtype[PT_NAME] = "";
    for (size_t q = t0; q < k; q++)
        if (narrow_word(ts, q))
            return refuse(s, q, "row loop", EN(RW_BS_NARROW));
    for (size_t q = t0; q < k; q++) {
        char w[PT_NAME];
        rwp_tok_copy(ts, q, w, sizeof w);
        if (vtype[0])
            cat(vtype, sizeof vtype, " ");
        cat(vtype, sizeof vtype, w);
    }
    rwp_tok_copy(ts, k, s->var, sizeof s->var);
    if (rwp_param_by_name(s->f, s->var) || local_named(s, s->var))
        return refuse(s, k, "row loop", EN(RW_BS_LOOP));
    size_t s1 = k + 2;
    size_t e1 = s1;
    while (e1 < close && !rwl_tok_is(ts, e1, ";"))
        e1++;
    size_t e2 = e1 + 1;
    while (e2 < close && !rwl_tok_is(ts, e2, ";"))
        e2++;
    if (e2 >= close)
        return refuse(s, a, "row loop", EN(RW_BS_LOOP));
    char st[PT_EXPR], cond[PT_EXPR], step[PT_EXPR];
    canon(s, s1, e1, st, sizeof st);
    canon(s, e1 + 1, e2, cond, sizeof cond);
    canon(s, e2 + 1, close, step, sizeof step);
    char bound[PT_EXPR] = "";
    size_t ba0 = 0, bb0 = 0;
    if (strncmp(cond, "$i<", 3) == 0 && !strstr(cond, "<=")) {
        snprintf(bound, sizeof bound, "%s", cond + 3);
        ba0 = e1 + 3;
        bb0 = e2;
    } else if (strlen(cond) > 3 && strcmp(cond + strlen(cond) - 3, ">$i") == 0 && !strstr(cond, ">=")) {
        snprintf(bound, sizeof bound, "%.*s", (int)(strlen(cond) - 3), cond);
        ba0 = e1 + 1;
        bb0 = e2 - 2;
    }
    if (strcmp(st, "$t") != 0 || !bound[0] || (strcmp(step, "$i+=$b") != 0 && strcmp(step, "$i=$i+$b") != 0 &&
                                               strcmp(step, "$i=$b+$i") != 0) ||
        !uniform_text(s, ba0, bb0) || strstr(bound, "$i") || strstr(bound, "@"))
        return refuse(s, a, "row loop", EN(RW_BS_LOOP));
    if (!s->bound[0]) {
        snprintf(s->bound, sizeof s->bound, "%s", bound);
        char *bt = rwl_tok_text(ts, ba0, bb0);
        char *st_t = rwl_tok_text(ts, s1, e1);
        char *sp_t = rwl_tok_text(ts, e2 + 1, close);
        snprintf(s->bound_text, sizeof s->bound_text, "%s", bt ? bt : "");
        snprintf(s->start_text, sizeof s->start_text, "%s", st_t ? st_t : "");
        snprintf(s->step_text, sizeof s->step_text, "%s", sp_t ? sp_t : "");
        hk_free(bt);
        hk_free(st_t);
        hk_free(sp_t);
        snprintf(s->vtype, sizeof s->vtype, "%s", vtype);
    } else if (strcmp(s->bound, bound) != 0)
        return refuse(s, a, "row loop", EN(RW_BS_LOOP));
    size_t x = close + 1, y = b;
    if (x < y && rwl_tok_is(ts, x, "{") && rwl_match_close(ts, x) == y - 1) {
        x++;
        y--;
    }
    if (x >= y || rwl_stmt_end(ts, x, y) != y)
        return refuse(s, x < b ? x : a, "loop body", EN(RW_BS_BODY));
    /* the loop variable is not written in the body */
    for (size_t q = x; q < y; q++)
        if (rwl_tok_is_ident(ts, q, s->var) &&
            (rwl_tok_is_assign_op(ts, q + 1) || rwl_tok_is(ts, q + 1, "++") || rwl_tok_is(ts, q + 1, "--") ||
             (q > 0 && (rwl_tok_is(ts, q - 1, "++") || rwl_tok_is(ts, q - 1, "--") || rwl_tok_is(ts, q - 1, "&")))))
            return refuse(s, q, "loop variable", EN(RW_BS_BODY));
    *ba = x;
    *bb = y;
    return true;
}

/* The body [a, b) canonical, with the loop variable set; false (refused) on a foreign access. */
static bool body_canon(bs_state *s, size_t a, size_t b, char *out, size_t n)
{
    s->bad_access = false;
    canon(s, a, b, out, n);
    if (s->bad_access)
        return refuse(s, s->bad_tok, "row access", EN(RW_BS_ACCESS));
    return true;
}

/* A halving shared-memory tree over the block of acc (role `$m` or `$s`), statements from *i:
 *   S[tid] = acc;  for (T k = bs / 2; k > 0; k /= 2) { __syncthreads(); if (tid < k) COMBINE; }
 *   __syncthreads();  float res = S[0];
 * (the barrier may close the loop body instead; COMBINE fmaxf/max-update for a maximum,
 * S[tid] += S[tid + k] for a sum). The result's name into res. */
static bool tree(bs_state *s, size_t *i, const char *acc_role, bool max, char *res, size_t nres)
{
    const rw_toks *ts = s->ts;
    size_t j = *i;
    if (j >= s->n_st)
        return refuse(s, ts->n - 1, "block tree", EN(RW_BS_TREE));
    size_t a = s->st[j], b = s->st[j + 1];
    /* S[tid] = acc; */
    if (b - a < 6 || !rwp_tok_ident(ts, a) || !rwl_tok_is(ts, a + 1, "["))
        return refuse(s, a, "block tree", EN(RW_BS_TREE));
    rwp_tok_copy(ts, a, s->sh, sizeof s->sh);
    bs_local *shl = local_named(s, s->sh);
    if (!shl || shl->alias || shl->tid || shl->bdim)
        return refuse(s, a, "block tree", EN(RW_BS_TREE));
    /* the slots must hold the values unchanged (session 46): an int, unsigned or half array
     * truncates or rounds the maximum and the sum the original divides by, which the pair
     * reduction keeps as float (a double array keeps more than the original's float) */
    if (!shl->is_float)
        return refuse(s, a, "block tree", EN(RW_BS_TREE_TYPE));
    char c[BS_CANON], want[64];
    canon(s, a, b, c, sizeof c);
    snprintf(want, sizeof want, "$S[$t]=%s;", acc_role);
    if (strcmp(c, want) != 0)
        return refuse(s, a, "block tree", EN(RW_BS_TREE));
    j++;
    while (j < s->n_st && is_barrier(s, j))
        j++;
    if (j >= s->n_st)
        return refuse(s, a, "block tree", EN(RW_BS_TREE));
    a = s->st[j];
    b = s->st[j + 1];
    if (!rwl_tok_is_ident(ts, a, "for") || !rwl_tok_is(ts, a + 1, "("))
        return refuse(s, a, "block tree", EN(RW_BS_TREE));
    size_t close = rwl_match_close(ts, a + 1);
    size_t k = a + 2;
    while (k < close && (rwp_is_type_word(ts, k) || rwl_tok_is_ident(ts, k, "const"))) {
        if (narrow_word(ts, k))
            return refuse(s, k, "block tree", EN(RW_BS_NARROW));
        k++;
    }
    if (k >= close || !rwp_tok_ident(ts, k))
        return refuse(s, a, "block tree", EN(RW_BS_TREE));
    rwp_tok_copy(ts, k, s->k, sizeof s->k);
    if (local_named(s, s->k) || rwp_param_by_name(s->f, s->k)) {
        s->k[0] = 0;
        return refuse(s, k, "block tree", EN(RW_BS_TREE));
    }
    char head[BS_CANON];
    canon(s, k, close, head, sizeof head);
    static const char *const heads[] = {
        "$k=$b/2;$k>0;$k/=2", "$k=$b/2;$k>=1;$k/=2", "$k=$b/2;$k>0;$k>>=1", "$k=$b/2;$k>=1;$k>>=1",
        "$k=$b>>1;$k>0;$k>>=1", "$k=$b>>1;$k>0;$k/=2", "$k=$b/2;0<$k;$k/=2", "$k=$b/2;0<$k;$k>>=1", NULL};
    if (!rwp_one_of(head, heads)) {
        s->k[0] = 0;
        return refuse(s, a, "block tree", EN(RW_BS_TREE));
    }
    size_t x = close + 1, y = b;
    if (!(x < y && rwl_tok_is(ts, x, "{") && rwl_match_close(ts, x) == y - 1)) {
        s->k[0] = 0;
        return refuse(s, a, "block tree", EN(RW_BS_TREE));
    }
    x++;
    y--;
    /* two statements: a barrier and `if (tid < k) COMBINE`, in either order */
    size_t m1 = rwl_stmt_end(ts, x, y);
    size_t m2 = m1 < y ? rwl_stmt_end(ts, m1, y) : y;
    bool ok = m2 == y && m1 < y;
    size_t ia = 0, ib = 0;
    bool sync_last = false;
    if (ok) {
        char p1[BS_CANON], p2[BS_CANON];
        canon(s, x, m1, p1, sizeof p1);
        canon(s, m1, y, p2, sizeof p2);
        if (strcmp(p1, "__syncthreads();") == 0 && rwl_tok_is_ident(ts, m1, "if")) {
            ia = m1;
            ib = y;
        } else if (rwl_tok_is_ident(ts, x, "if") && strcmp(p2, "__syncthreads();") == 0) {
            ia = x;
            ib = m1;
            sync_last = true;
        } else
            ok = false;
    }
    if (ok) {
        size_t cc = rwl_match_close(ts, ia + 1);
        char g[PT_EXPR];
        canon(s, ia + 2, cc, g, sizeof g);
        ok = (strcmp(g, "$t<$k") == 0 || strcmp(g, "$k>$t") == 0) && !rwl_tok_is_ident(ts, rwl_stmt_end(ts, ia, ib), "else");
        size_t u = cc + 1, v = ib;
        if (ok && rwl_tok_is(ts, u, "{") && rwl_match_close(ts, u) == v - 1) {
            u++;
            v--;
        }
        ok = ok && u < v && rwl_stmt_end(ts, u, v) == v;
        if (ok && max) {
            /* the element spellings of a maximum (fmaxf / max / fmax either order, the if and
             * ?: forms, as rwl_minmax_update reads them for scalars) */
            char cb[PT_EXPR];
            canon(s, u, v, cb, sizeof cb);
            static const char *const maxs[] = {
                "$S[$t]=fmaxf($S[$t],$S[$t+$k]);", "$S[$t]=fmaxf($S[$t+$k],$S[$t]);",
                "$S[$t]=fmax($S[$t],$S[$t+$k]);", "$S[$t]=fmax($S[$t+$k],$S[$t]);",
                "$S[$t]=max($S[$t],$S[$t+$k]);", "$S[$t]=max($S[$t+$k],$S[$t]);",
                "if($S[$t+$k]>$S[$t])$S[$t]=$S[$t+$k];", "if($S[$t+$k]>$S[$t]){$S[$t]=$S[$t+$k];}",
                "if($S[$t]<$S[$t+$k])$S[$t]=$S[$t+$k];", "if($S[$t]<$S[$t+$k]){$S[$t]=$S[$t+$k];}",
                "$S[$t]=$S[$t+$k]>$S[$t]?$S[$t+$k]:$S[$t];", "$S[$t]=$S[$t]<$S[$t+$k]?$S[$t+$k]:$S[$t];", NULL};
            ok = rwp_one_of(cb, maxs);
        } else if (ok) {
            char cb[PT_EXPR];
            canon(s, u, v, cb, sizeof cb);
            static const char *const sums[] = {"$S[$t]+=$S[$t+$k];", "$S[$t]+=$S[$k+$t];", "$S[$t]=$S[$t]+$S[$t+$k];",
                                               "$S[$t]=$S[$t]+$S[$k+$t];", NULL};
            ok = rwp_one_of(cb, sums);
        }
    }
    s->k[0] = 0;
    if (!ok)
        return refuse(s, a, "block tree", EN(RW_BS_TREE));
    j++;
    bool synced = sync_last;
    while (j < s->n_st && is_barrier(s, j)) {
        synced = true;
        j++;
    }
    char init[PT_EXPR];
    if (!synced || j >= s->n_st || !float_decl(s, j, res, nres, init, sizeof init) || strcmp(init, "$S[0]") != 0)
        return refuse(s, j < s->n_st ? s->st[j] : a, "block tree", EN(RW_BS_TREE));
    *i = j + 1;
    return true;
}

static const char *exp_of(const char *c)
{
    if (strstr(c, "__expf("))
        return "__expf";
    if (strstr(c, "expf("))
        return "expf";
    if (strstr(c, "exp("))
        return "exp";
    return NULL;
}

/* Is c one of pattern set (with X = @in, Y = @out, E = the exponential call) after substitution? */
static bool matches(bs_state *s, const char *c, const char *const *pats)
{
    for (size_t i = 0; pats[i]; i++) {
        char w[BS_CANON] = "";
        for (const char *p = pats[i]; *p; p++) {
            char one[PT_NAME + 2] = {*p, 0};
            if (*p == 'X')
                snprintf(one, sizeof one, "@%s", s->in);
            else if (*p == 'Y')
                snprintf(one, sizeof one, "@%s", s->out);
            else if (*p == 'E')
                snprintf(one, sizeof one, "%s", s->exp_fn);
            cat(w, sizeof w, one);
        }
        if (strcmp(w, c) == 0)
            return true;
    }
    return false;
}

static bool float_param(bs_state *s, const char *nm)
{
    const an_param *p = rwp_param_by_name(s->f, nm);
    if (!p || p->pointer_depth != 1)
        return false;
    char t[PT_NAME];
    rwp_pointee_type(p, t, sizeof t);
    return strcmp(t, "float") == 0 || strcmp(t, "const float") == 0;
}

static const char *const ninf[] = {"-INFINITY", "-FLT_MAX", "-1e30f", "-1e38f", "-3.402823466e+38f", "-HUGE_VALF",
                                   "-__int_as_float(0x7f800000)", "-1.0f/0.0f", NULL};
static const char *const zero[] = {"0.0f", "0.f", "0", "0.0", NULL};

/* Tokens [a, b) of a kept store's index, value or condition: no memory read, no write, no call
 * that is not pure, names only of the block's results (max, sum, reciprocal), parameters,
 * block-uniform locals and, where tid_ok (a condition), the thread index. */
static bool kept_part_ok(bs_state *s, size_t a, size_t b, bool tid_ok)
{
    const rw_toks *ts = s->ts;
    if (a >= b || rwp_has_side_effects(ts, a, b))
        return false;
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "->") || (rwl_tok_is(ts, k, "*") && k == a))
            return false;
        if (!rwp_tok_ident(ts, k) || (k > a && rwl_tok_is(ts, k - 1, ".")))
            continue;
        char w[PT_NAME];
        rwp_tok_copy(ts, k, w, sizeof w);
        if (rwl_tok_is(ts, k + 1, "(")) {
            if (!rwl_pure_call_name(ts, k) && !rwp_is_type_word(ts, k))
                return false;
            continue;
        }
        if ((s->r[0] && !strcmp(w, s->r)) || (s->t[0] && !strcmp(w, s->t)) || (s->v[0] && !strcmp(w, s->v)))
            continue;
        if (rwp_is_type_word(ts, k) || !strcmp(w, "blockIdx") || !strcmp(w, "gridDim") || !strcmp(w, "blockDim"))
            continue;
        if (!strcmp(w, "threadIdx")) {
            if (tid_ok)
                continue;
            return false;
        }
        const an_param *p = rwp_param_by_name(s->f, w);
        if (p && p->pointer_depth == 0)
            continue;
        bs_local *l = local_named(s, w);
        if (l && !l->alias && (l->uniform || (tid_ok && l->tid)) && strcmp(w, s->m) && strcmp(w, s->s))
            continue;
        return false;
    }
    return true;
}

/* Statement i a store of the block's results the caller reads, kept as written:
 * `[if (COND)] P[E] = EXPR;` (braces allowed), P a pointer parameter (not a row buffer: checked
 * at the end), E and EXPR of the results and block-uniform values, COND of those and the thread
 * index (`if (tid == 0)`). */
static bool kept_store(bs_state *s, size_t i)
{
    const rw_toks *ts = s->ts;
    size_t a = s->st[i], b = s->st[i + 1];
    size_t ca = 0, cb = 0;
    if (rwl_tok_is_ident(ts, a, "if")) {
        size_t c = rwl_match_close(ts, a + 1);
        if (c >= b)
            return false;
        ca = a + 2;
        cb = c;
        a = c + 1;
        if (a < b && rwl_tok_is(ts, a, "{") && rwl_match_close(ts, a) == b - 1) {
            a++;
            b--;
        }
        if (rwl_stmt_end(ts, a, b) != b || rwl_tok_is_ident(ts, a, "else"))
            return false;
    }
    if (b - a < 6 || !rwp_tok_ident(ts, a) || !rwl_tok_is(ts, a + 1, "[") || !rwl_tok_is(ts, b - 1, ";") ||
        s->n_kept >= BS_KEPT)
        return false;
    char nm[PT_NAME];
    rwp_tok_copy(ts, a, nm, sizeof nm);
    const an_param *p = rwp_param_by_name(s->f, nm);
    size_t close = rwl_match_close(ts, a + 1);
    if (!p || p->pointer_depth != 1 || close + 2 >= b || !rwl_tok_is(ts, close + 1, "="))
        return false;
    if (!kept_part_ok(s, a + 2, close, false) || !kept_part_ok(s, close + 2, b - 1, false) ||
        (cb > ca && !kept_part_ok(s, ca, cb, true)))
        return false;
    s->kept[s->n_kept] = i;
    snprintf(s->kept_buf[s->n_kept], sizeof s->kept_buf[0], "%s", nm);
    s->n_kept++;
    return true;
}

/* The statements from *i up to the next loop: barriers, re-pointed row pointers, stores kept
 * for the caller and at most one `float NAME = INIT;`, INIT one of inits, whose NAME goes into
 * role (role_n bytes, "" until then). false with the refusal at any other statement. */
static bool between_loops(bs_state *s, size_t *i, const char *const *inits, char *role, size_t role_n)
{
    const rw_toks *ts = s->ts;
    char nm[PT_NAME], init[PT_EXPR];
    while (*i < s->n_st && !rwl_tok_is_ident(ts, s->st[*i], "for")) {
        if (is_barrier(s, *i) || repoint(s, *i)) {
            (*i)++;
            continue;
        }
        if (!role[0] && float_decl(s, *i, nm, sizeof nm, init, sizeof init) && rwp_one_of(init, inits)) {
            snprintf(role, role_n, "%s", nm);
            (*i)++;
            continue;
        }
        if (kept_store(s, *i)) {
            (*i)++;
            continue;
        }
        return refuse(s, s->st[*i], "statement", EN(RW_BS_EXTRA));
    }
    return true;
}

/* The recognition; HK_OK with s->why "" when it applies. Fills the roles. */
static void recognize(bs_state *s, bool *inv_form, bool *stored)
{
    const rw_toks *ts = s->ts;
    size_t i = 0, ba, bb;
    char c[BS_CANON];
    /* prologue: declarations up to the first loop */
    while (i < s->n_st && !rwl_tok_is_ident(ts, s->st[i], "for")) {
        if (!prologue_decl(s, s->st[i], s->st[i + 1])) {
            refuse(s, s->st[i], "statement", EN(RW_BS_EXTRA));
            return;
        }
        i++;
    }
    if (i >= s->n_st) {
        refuse(s, ts->n - 1, "kernel body", EN(RW_BS_NO_MAX));
        return;
    }
    /* the maximum's loop */
    size_t L = i;
    if (!row_loop(s, i, &ba, &bb))
        return;
    rwl_minmax mm;
    if (!rwl_minmax_update(ts, ba, bb, &mm) || !mm.max) {
        refuse(s, s->st[L], "row loop", EN(RW_BS_NO_MAX));
        return;
    }
    rwp_tok_copy(ts, mm.acc, s->m, sizeof s->m);
    bs_local *ml = local_named(s, s->m);
    if (!ml || ml->alias || ml->tid || ml->bdim) {
        refuse(s, s->st[L], "row loop", EN(RW_BS_NO_MAX));
        return;
    }
    /* m declared `float m = -inf;` in the prologue */
    if (!ml->is_float || !rwp_one_of(ml->init, ninf)) {
        refuse(s, s->st[L], "row loop", EN(RW_BS_NO_MAX));
        return;
    }
    ml->uniform = false;
    snprintf(s->m_init, sizeof s->m_init, "%s", ml->init_text);
    if (!body_canon(s, mm.xa, mm.xb, c, sizeof c))
        return;
    if (c[0] != '@' || strchr(c + 1, '@') || !float_param(s, c + 1) || !s->m[0]) {
        refuse(s, s->st[L], "row loop", EN(RW_BS_NO_MAX));
        return;
    }
    snprintf(s->in, sizeof s->in, "%s", c + 1);
    i++;
    /* the maximum's tree */
    if (!tree(s, &i, "$m", true, s->r, sizeof s->r))
        return;
    while (i < s->n_st && is_barrier(s, i))
        i++;
    /* the exponentials: stored, or summed at once */
    *stored = false;
    if (i < s->n_st && rwl_tok_is_ident(ts, s->st[i], "for")) {
        L = i;
        if (!row_loop(s, i, &ba, &bb) || !body_canon(s, ba, bb, c, sizeof c))
            return;
        const char *e = exp_of(c);
        /* Y = E(X - r); with Y another float row buffer */
        bool ok = e && c[0] == '@';
        if (ok) {
            const char *eq = strchr(c, '=');
            ok = eq != NULL && (size_t)(eq - c) - 1 < sizeof s->out;
            if (ok) {
                snprintf(s->out, sizeof s->out, "%.*s", (int)(eq - c - 1), c + 1);
                snprintf(s->exp_fn, sizeof s->exp_fn, "%s", e);
                static const char *const pat[] = {"Y=E(X-$r);", NULL};
                ok = strcmp(s->out, s->in) != 0 && float_param(s, s->out) && matches(s, c, pat);
            }
        }
        if (!ok) {
            refuse(s, s->st[L], "row loop", EN(RW_BS_EXP));
            return;
        }
        *stored = true;
        i++;
    }
    /* barriers, re-pointed row pointers, the sum's declaration */
    if (!between_loops(s, &i, zero, s->s, sizeof s->s))
        return;
    if (i >= s->n_st) {
        refuse(s, ts->n - 1, "row loop", EN(RW_BS_SUM));
        return;
    }
    L = i;
    if (!row_loop(s, i, &ba, &bb))
        return;
    /* the sum: declared just before, or a `float sum = 0` of the declarations at the top
     * (nothing between writes it: every statement so far is one of the shape's) */
    bool declared = s->s[0] != 0, have_s = false;
    for (size_t q = 0; q <= s->n_loc && !have_s; q++) {
        if (declared && q > 0)
            break;   /* declared just before: only that name */
        if (!declared) {
            if (q == s->n_loc)
                break;
            const bs_local *l = &s->loc[q];
            if (!l->is_float || !rwp_one_of(l->init, zero) || strcmp(l->name, s->m) == 0)
                continue;
            snprintf(s->s, sizeof s->s, "%s", l->name);
        }
        if (!body_canon(s, ba, bb, c, sizeof c))
            return;
        bool ok;
        if (*stored) {
            static const char *const pat[] = {"$s+=Y;", "$s=$s+Y;", "$s=Y+$s;", NULL};
            ok = matches(s, c, pat);
        } else {
            const char *e = exp_of(c);
            if (e)
                snprintf(s->exp_fn, sizeof s->exp_fn, "%s", e);
            static const char *const pat[] = {"$s+=E(X-$r);", "$s=$s+E(X-$r);", "$s=E(X-$r)+$s;", NULL};
            ok = e && matches(s, c, pat);
        }
        have_s = ok;
        if (!ok && !declared)
            s->s[0] = 0;
    }
    if (!have_s) {
        refuse(s, s->st[L], "row loop", EN(RW_BS_SUM));
        return;
    }
    i++;
    if (!tree(s, &i, "$s", false, s->t, sizeof s->t))
        return;
    /* barriers, the reciprocal, re-pointed row pointers */
    static const char *const inv[] = {"1.0f/$u", "1.f/$u", "1/$u", "1.0/$u", NULL};
    if (!between_loops(s, &i, inv, s->v, sizeof s->v))
        return;
    if (i >= s->n_st) {
        refuse(s, ts->n - 1, "row loop", EN(RW_BS_WRITE));
        return;
    }
    L = i;
    if (!row_loop(s, i, &ba, &bb) || !body_canon(s, ba, bb, c, sizeof c))
        return;
    if (!s->out[0]) {
        /* the recomputed form: the output is the buffer written here */
        const char *eq = strchr(c, '=');
        if (c[0] == '@' && eq && (size_t)(eq - c) - 1 < sizeof s->out) {
            snprintf(s->out, sizeof s->out, "%.*s", (int)(eq - c - 1), c + 1);
            if (strcmp(s->out, s->in) == 0 || !float_param(s, s->out))
                s->out[0] = 0;
        }
    }
    static const char *const div_stored[] = {"Y=Y/$u;", "Y/=$u;", NULL};
    static const char *const mul_stored[] = {"Y=Y*$v;", "Y*=$v;", "Y=$v*Y;", "Y=Y*(1.0f/$u);", "Y*=(1.0f/$u);", NULL};
    static const char *const div_rec[] = {"Y=E(X-$r)/$u;", NULL};
    static const char *const mul_rec[] = {"Y=E(X-$r)*$v;", "Y=$v*E(X-$r);", "Y=E(X-$r)*(1.0f/$u);", NULL};
    bool ok = s->out[0] != 0;
    if (ok && *stored) {
        *inv_form = matches(s, c, mul_stored);
        ok = *inv_form || matches(s, c, div_stored);
    } else if (ok) {
        *inv_form = matches(s, c, mul_rec);
        ok = *inv_form || matches(s, c, div_rec);
    }
    if (!ok) {
        refuse(s, s->st[L], "row loop", EN(RW_BS_WRITE));
        return;
    }
    i++;
    while (i < s->n_st && (is_barrier(s, i) || kept_store(s, i)))
        i++;
    if (i < s->n_st) {
        refuse(s, s->st[i], "statement", EN(RW_BS_EXTRA));
        return;
    }
    /* a kept store's buffer is none of the row buffers */
    for (size_t q = 0; q < s->n_kept; q++)
        if (!strcmp(s->kept_buf[q], s->in) || !strcmp(s->kept_buf[q], s->out)) {
            refuse(s, s->st[s->kept[q]], "statement", EN(RW_BS_EXTRA));
            return;
        }
}

/* The spec's block: 1-D, a multiple of 32 up to 1024 (else refused: 0 and why). */
static bool spec_block_ok(const rw_context *c, long long *bx)
{
    const spec *sp = c->spec;
    *bx = 0;
    if (!sp || !sp->n_sizes)
        return true;
    for (int d = 0; d < 3; d++) {
        if (!sp->block[d])
            continue;
        expr_value v;
        if (spec_eval(sp, sp->block[d], 0, c->sm_count > 0 ? c->sm_count : 132, &v, NULL, 0) != HK_OK || v.is_float)
            return true;   /* not known here: the run-time test decides */
        if (d == 0)
            *bx = v.i;
        else if (v.i != 1)
            return false;
    }
    return *bx == 0 || (*bx % 32 == 0 && *bx <= 1024 && *bx > 0);
}

static const char tpl_body[] =
    "{\n" /* i18n: not for people */
    "    // hk rewrite: block_online_softmax. One pass per thread keeps a running (max, sum of\n"
    "    // exp(x - max)) pair, the block combines the pairs (warp shuffles, one shared slot per\n"
    "    // warp), one pass writes exp(x - max) / sum: 2 row reads and 1 row write. The sum is\n"
    "    // reassociated (not bit-identical). A block that is not 1-D, or not a power of two\n"
    "    // multiple of 32 up to 1024 (the original's halving trees), runs the original body.\n"
    "    if (blockDim.y == 1 && blockDim.z == 1 && blockDim.x % 32u == 0 && blockDim.x <= 1024u &&\n"
    "        (blockDim.x & (blockDim.x - 1u)) == 0$KEPTTEST) {\n"
    "$PROLOGUE"
    "        const float hk_ninf = -__int_as_float(0x7f800000);\n"
    "        float hk_m = ($MINIT), hk_s = 0.0f;  // the original's start: its maximum exactly\n"
    "        // four loads in flight per thread; a slot past the row's end is -inf (skipped)\n"
    "        for (long long hk_i = $START; hk_i < (long long)($BOUND); hk_i += 4LL * blockDim.x) {\n"
    "            float hk_x[4];\n"
    "            #pragma unroll\n"
    "            for (int hk_u = 0; hk_u < 4; hk_u++) {\n"
    "                const long long hk_j = hk_i + (long long)hk_u * blockDim.x;\n"
    "                hk_x[hk_u] = hk_j < (long long)($BOUND) ? $IN[$OFFhk_j] : hk_ninf;\n"
    "            }\n"
    "            const float hk_c = fmaxf(fmaxf(hk_x[0], hk_x[1]), fmaxf(hk_x[2], hk_x[3]));  // NaN skipped\n"
    "            if (hk_c > hk_m) {\n"
    "                hk_s *= $EXP(hk_m - hk_c);\n"
    "                hk_m = hk_c;\n"
    "            }\n"
    "            #pragma unroll\n"
    "            for (int hk_u = 0; hk_u < 4; hk_u++)  // -inf adds exp(-inf - max) = 0; NaN, +inf: NaN\n"
    "                hk_s += hk_x[hk_u] == hk_ninf ? 0.0f : $EXP(hk_x[hk_u] - hk_m);\n"
    "        }\n"
    "        for (int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n"
    "            const float hk_om = __shfl_xor_sync(0xffffffffu, hk_m, hk_off, 32);\n"
    "            const float hk_os = __shfl_xor_sync(0xffffffffu, hk_s, hk_off, 32);\n"
    "            const float hk_mn = fmaxf(hk_m, hk_om);\n"
    "            hk_s = hk_mn == hk_ninf ? hk_s + hk_os\n"
    "                                    : __fmul_rn(hk_s, $EXP(hk_m - hk_mn)) + __fmul_rn(hk_os, $EXP(hk_om - hk_mn));\n"
    "            hk_m = hk_mn;\n"
    "        }\n"
    "        __shared__ float hk_pm[32], hk_ps[32];\n"
    "        if ((threadIdx.x & 31u) == 0) {\n"
    "            hk_pm[threadIdx.x >> 5] = hk_m;\n"
    "            hk_ps[threadIdx.x >> 5] = hk_s;\n"
    "        }\n"
    "        __syncthreads();\n"
    "        hk_m = ($MINIT);\n"
    "        hk_s = 0.0f;\n"
    "        for (unsigned int hk_w = 0; hk_w < blockDim.x >> 5; hk_w++) {\n"
    "            const float hk_om = hk_pm[hk_w], hk_os = hk_ps[hk_w];\n"
    "            const float hk_mn = fmaxf(hk_m, hk_om);\n"
    "            hk_s = hk_mn == hk_ninf ? hk_s + hk_os\n"
    "                                    : __fmul_rn(hk_s, $EXP(hk_m - hk_mn)) + __fmul_rn(hk_os, $EXP(hk_om - hk_mn));\n"
    "            hk_m = hk_mn;\n"
    "        }\n"
    "$WRITE"
    "    } else $ORIGINAL\n"
    "}";

static int block_online_softmax(const rw_context *c, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(c->text, c->len, c->m, c->kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    bs_state *s = NULL;
    struct hk_buf pro, wr, body, kt;
    hk_buf_init(&pro, RW_TEXT_MAX);
    hk_buf_init(&wr, RW_TEXT_MAX);
    hk_buf_init(&body, RW_TEXT_MAX);
    hk_buf_init(&kt, RW_TEXT_MAX);
    if ((rc = rwp_lex_body(c->text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG)
            rc = rwp_not_applicable(out, name, f, EN(RW_SM_BODY_LARGE));
        goto out;
    }
    s = hk_calloc(1, sizeof *s);
    if (!s) {
        rc = HK_ENOMEM;
        goto out;
    }
    s->ts = &ts;
    s->text = c->text;
    s->len = c->len;
    s->f = f;
    if (ts.n < 2) {
        refuse(s, 0, "kernel body", EN(RW_BS_NO_MAX));
        goto refuse;
    }
    for (size_t k = 1; k + 1 < ts.n;) {
        if (s->n_st >= BS_STMTS) {
            refuse(s, k, "kernel body", EN(RW_BS_EXTRA));
            goto refuse;
        }
        s->st[s->n_st++] = k;
        size_t e = rwl_stmt_end(&ts, k, ts.n - 1);
        k = e > k ? e : k + 1;
    }
    s->st[s->n_st] = ts.n - 1;
    bool inv_form = false, stored = false;
    recognize(s, &inv_form, &stored);
    if (s->why[0])
        goto refuse;
    long long bx = 0;
    if (!spec_block_ok(c, &bx)) {
        char msg[256];
        snprintf(msg, sizeof msg, EN(RW_BS_BLOCK), bx);
        refuse(s, 0, "launch", msg);
        goto refuse;
    }
    /* the prologue as written: the statements before the first row loop */
    size_t first_loop = 0;
    while (first_loop < s->n_st && !rwl_tok_is_ident(&ts, s->st[first_loop], "for"))
        first_loop++;
    for (size_t q = 0; q < first_loop && !rc; q++) {
        size_t a = s->st[q], b = s->st[q + 1];
        rc = hk_buf_printf(&pro, "        %.*s\n", (int)(ts.t[b - 1].end - ts.t[a].start), c->text + ts.t[a].start);
    }
    /* a store kept for the caller moves from its place (between the passes, or after the last)
     * to just before the write pass: a launch passing its buffer as a row buffer too, or a
     * pointer into one (it stores into the input before a pass reads it, or into the output
     * after the write pass), takes the original body. The test, one the whole block shares,
     * stands at the body's top: the stored element &P[E] (E block-uniform) must lie outside
     * the block's rows [IN + OFF, IN + OFF + N) and [OUT + OFF, OUT + OFF + N) (the loops run
     * from the thread index); a local named in E, OFF or N is not declared there: refused */
    for (size_t q = 0; q < s->n_kept; q++) {
        size_t ka = s->st[s->kept[q]], kb = s->st[s->kept[q] + 1];
        if (rwl_tok_is_ident(&ts, ka, "if"))
            ka = rwl_match_close(&ts, ka + 1) + 1;
        if (rwl_tok_is(&ts, ka, "{"))
            ka++;
        size_t kc = rwl_match_close(&ts, ka + 1);
        if (kc >= kb) {
            refuse(s, s->st[s->kept[q]], "statement", EN(RW_BS_EXTRA));
            goto refuse;
        }
        char *et = rwl_tok_text(&ts, ka + 2, kc);
        if (!et) {
            rc = HK_ENOMEM;
            goto out;
        }
        snprintf(s->kept_idx[q], sizeof s->kept_idx[q], "%s", et);
        hk_free(et);
        const char *texts[3] = {s->kept_idx[q], s->off_text, s->bound_text};
        for (int t = 0; t < 3; t++)
            for (const char *c0 = texts[t]; *c0; c0++) {
                if (!(isalpha((unsigned char)*c0) || *c0 == '_') ||
                    (c0 > texts[t] && (isalnum((unsigned char)c0[-1]) || c0[-1] == '_' || c0[-1] == '.')))
                    continue;
                size_t n = 0;
                while (isalnum((unsigned char)c0[n]) || c0[n] == '_')
                    n++;
                char id[PT_NAME];
                snprintf(id, sizeof id, "%.*s", (int)n, c0);
                if (rwp_param_by_name(s->f, id))
                    continue;
                for (size_t k = 1; k + 1 < ts.n; k++)
                    if (rwl_tok_is_ident(&ts, k, id) && rwl_declared_here(&ts, k)) {
                        char msg[256];
                        snprintf(msg, sizeof msg, EN(RW_BS_KEPT_LOCAL), id);
                        refuse(s, s->st[s->kept[q]], "statement", msg);
                        goto refuse;
                    }
            }
    }
    /* the input and the output: one buffer (in place: each thread reads its elements before it
     * writes them, in both), or rows apart. Rows overlapping at a shift (`out = inp + 32`) take
     * the original: its passes read back what a thread stored into the other row. Both rows
     * are at the one OFF, so the distance of the pointers tells, against N elements. */
    bool io_test = strcmp(s->in, s->out) != 0;
    for (const char *c0 = s->bound_text; io_test && *c0; c0++) {
        if (!(isalpha((unsigned char)*c0) || *c0 == '_') ||
            (c0 > s->bound_text && (isalnum((unsigned char)c0[-1]) || c0[-1] == '_' || c0[-1] == '.')))
            continue;
        size_t n = 0;
        while (isalnum((unsigned char)c0[n]) || c0[n] == '_')
            n++;
        char id[PT_NAME];
        snprintf(id, sizeof id, "%.*s", (int)n, c0);
        if (rwp_param_by_name(s->f, id))
            continue;
        for (size_t k = 1; k + 1 < ts.n; k++)
            if (rwl_tok_is_ident(&ts, k, id) && rwl_declared_here(&ts, k)) {
                char msg[256];
                snprintf(msg, sizeof msg, EN(RW_BS_KEPT_LOCAL), id);
                refuse(s, k, "declaration", msg);
                goto refuse;
            }
    }
    if (io_test)
        rc = hk_buf_printf(&kt, " &&\n        // the input and the output one buffer or rows apart (overlapping: the original)\n" /* i18n: not for people */
                                "        ((const void *)%s == (const void *)%s ||\n"
                                "         (const char *)(%s + (%s)) <= (const char *)%s || (const char *)(%s + (%s)) <= (const char *)%s)",
                           s->in, s->out, s->in, s->bound_text, s->out, s->out, s->bound_text, s->in);
    if (s->n_kept && !rc)
        rc = hk_buf_appends(&kt, " &&\n        // no element a store kept for the caller writes lies in the block's rows (the original)"); /* i18n: not for people */
    for (size_t q = 0; q < s->n_kept && !rc; q++) {
        bool seen = false;
        for (size_t o = 0; o < q; o++)
            seen |= !strcmp(s->kept_buf[o], s->kept_buf[q]) && !strcmp(s->kept_idx[o], s->kept_idx[q]);
        for (int b = 0; b < 2 && !seen && !rc; b++) {
            const char *rb = b ? s->out : s->in;
            char row[PT_EXPR + PT_NAME + 8];
            snprintf(row, sizeof row, s->off_text[0] ? "%s + (%s)" : "%s%s", rb, s->off_text);
            rc = hk_buf_printf(&kt, "\n        %s((const char *)(&%s[%s] + 1) <= (const char *)(%s) ||\n" /* i18n: not for people */
                                    "            (const char *)(%s + (%s)) <= (const char *)&%s[%s])",
                               q || b ? "&& " : "", s->kept_buf[q], s->kept_idx[q], row, row, s->bound_text,
                               s->kept_buf[q], s->kept_idx[q]);
        }
    }
    if (rc)
        goto out;
    char offp[PT_EXPR + 8] = "";
    if (s->off_text[0])
        snprintf(offp, sizeof offp, "(%s) + ", s->off_text);
    if (!rc)
        rc = hk_buf_printf(&wr, "%s", "");
    if (!rc && s->n_kept) {
        /* the stores of the block's results the caller reads, as written, over the results
         * under their own names (the maximum exact, the sum reassociated) */
        rc = hk_buf_printf(&wr, "        {\n            const float %s = hk_m;\n            const float %s = hk_s;\n", /* i18n: not for people */
                           s->r, s->t);
        if (!rc && s->v[0])
            rc = hk_buf_printf(&wr, "            const float %s = 1.0f / hk_s;\n", s->v);
        for (size_t q = 0; q < s->n_kept && !rc; q++) {
            size_t a = s->st[s->kept[q]], b = s->st[s->kept[q] + 1];
            rc = hk_buf_printf(&wr, "            %.*s\n", (int)(ts.t[b - 1].end - ts.t[a].start), c->text + ts.t[a].start);
        }
        if (!rc)
            rc = hk_buf_appends(&wr, "        }\n");
    }
    if (!rc && inv_form)
        rc = hk_buf_appends(&wr, "        const float hk_inv = 1.0f / hk_s;\n");
    if (!rc)
        rc = hk_buf_printf(&wr,
                           "        #pragma unroll 4\n" /* i18n: not for people */
                           "        for (%s %s = %s; %s < %s; %s)\n"
                           "            %s[%s%s] = %s(%s[%s%s] - hk_m) %s;\n",
                           s->vtype, s->var, s->start_text, s->var, s->bound_text, s->step_text, s->out, offp,
                           s->var, s->exp_fn, s->in, offp, s->var, inv_form ? "* hk_inv" : "/ hk_s");
    if (rc)
        goto out;
    char *orig = rwl_tok_text(&ts, 0, ts.n);
    const char *kv[] = {"PROLOGUE", pro.data ? pro.data : "", "VT", s->vtype, "V", s->var, "START", s->start_text,
                        "BOUND", s->bound_text, "STEP", s->step_text, "IN", s->in, "OFF", offp, "EXP", s->exp_fn,
                        "WRITE", wr.data ? wr.data : "", "MINIT", s->m_init, "ORIGINAL", orig ? orig : "",
                        "KEPTTEST", kt.data ? kt.data : "", NULL};
    if (!orig) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwl_render(&body, tpl_body, kv);
    hk_free(orig);
    if (rc)
        goto out;
    char *desc = hk_asprintf(EN(RW_BS_DESC), f->name, s->in, s->out, s->bound_text, stored ? 4 : 3, stored ? 2 : 1,
                             s->exp_fn);
    if (!desc) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwp_replace_body(c->text, c->len, c->m, f, body.data, desc, out);
    out->keeps_launch = rc == HK_OK && out->applicable;
    goto out;
refuse:
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), name, f->name, s->why));
out:
    hk_free(s);
    hk_buf_free(&pro);
    hk_buf_free(&wr);
    hk_buf_free(&body);
    hk_buf_free(&kt);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */
static int emit_block_online_softmax(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return block_online_softmax(c, out);
}

const rw_descriptor rw_block_online_softmax_desc = {
    .name = "block_online_softmax",
    .summary = "a block-per-row softmax (max loop + tree, exp pass, sum loop + tree, write) becomes one " /* i18n: not for people */
               "running (max, sum) pass, one block reduction of the pairs and one write pass: 2 row reads "
               "and 1 write (the sum reassociated)",
    .flags = RW_ALGORITHM,
    .emit = emit_block_online_softmax,
};
