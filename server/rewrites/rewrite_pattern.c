/* Structural pattern rewrites (rewrite_pattern.h). A token scanner reads the kernel body
 * into its "guard shape" (the 1D/2D index declarations, the bounds check, the guarded
 * statements); each rewrite matches its pattern on that shape and renders a new body from
 * a template, which replaces the old body. The result is re-analysed: a rewrite never hands
 * back code that no longer parses. */
#include "rewrites/rewrite_pattern.h"
#include "rewrites/rewrite_lex.h"

#include "core/buf.h"
#include "core/hk.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PT_TEXT_MAX AN_TEXT_MAX_BYTES
/* The bodies these rewrites recognize are a few statements: a body of more tokens is not
 * one of the patterns, and the cap keeps a huge kernel from costing time. */
#define PT_MAX_TOKENS 20000u
#define PT_NAME 128
#define PT_EXPR 512

/* ------------------------------------------------------------------ tokens */

/* The kernel body's tokens (rwl_lex); a body of more than PT_MAX_TOKENS tokens is not
 * one of the patterns: HK_ETOOBIG. */
static int lex_body(const char *text, uint32_t start, uint32_t end, rw_toks *ts)
{
    int rc = rwl_lex(text, start, end, ts);
    if (rc == HK_OK && ts->n > PT_MAX_TOKENS)
        rc = HK_ETOOBIG;
    return rc;
}

static bool tok_ident(const rw_toks *ts, size_t k)
{
    return k < ts->n && ts->t[k].kind == T_IDENT;
}

/* Copies token k's text into out (truncated to size). */
static void tok_copy(const rw_toks *ts, size_t k, char *out, size_t size)
{
    size_t l = k < ts->n ? ts->t[k].end - ts->t[k].start : 0;
    if (l >= size)
        l = size - 1;
    memcpy(out, ts->text + (k < ts->n ? ts->t[k].start : 0), l);
    out[l] = '\0';
}

static const char *const type_words[] = {
    "int", "unsigned", "signed", "long", "short", "size_t", "ptrdiff_t", "int64_t", "uint64_t",
    "int32_t", "uint32_t", "char", "auto", "float", "double", "bool", "half", "__half",
    "__nv_bfloat16", "uint8_t", "int8_t", "uint16_t", "int16_t"};

/* A builtin scalar type name, floating types included (rwl_is_type_word knows only the
 * integer ones a loop index takes). */
static bool pt_is_type_word(const rw_toks *ts, size_t k)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(type_words); i++)
        if (rwl_tok_is(ts, k, type_words[i]))
            return true;
    return false;
}

/* Compact text of tokens [a, b): no spaces, casts to builtin types dropped, parentheses
 * around one token or one member access dropped, static_cast<T>(x) read as (x). Enough to
 * compare index formulas written in different styles. Truncates silently (a truncated
 * formula simply does not match). */
static void compact(const rw_toks *ts, size_t a, size_t b, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = a; k < b && k < ts->n; k++) {
        if (rwl_tok_is(ts, k, "(")) {
            size_t j = k + 1;
            while (j < b && (pt_is_type_word(ts, j) || rwl_tok_is(ts, j, "const")))
                j++;
            if (j > k + 1 && rwl_tok_is(ts, j, ")")) {
                k = j;   /* a cast */
                continue;
            }
            size_t c = rwl_match_close(ts, k);
            bool single = c == k + 2 || (c == k + 4 && (rwl_tok_is(ts, k + 2, ".") || rwl_tok_is(ts, k + 2, "->")));
            if (c < b && single) {
                for (size_t q = k + 1; q < c; q++) {
                    size_t l = ts->t[q].end - ts->t[q].start;
                    if (n + l + 1 >= size)
                        return;
                    memcpy(out + n, ts->text + ts->t[q].start, l);
                    n += l;
                }
                out[n] = '\0';
                k = c;
                continue;
            }
        }
        if (rwl_tok_is(ts, k, "static_cast") && rwl_tok_is(ts, k + 1, "<")) {
            size_t j = k + 2;
            while (j < b && !rwl_tok_is(ts, j, ">"))
                j++;
            if (j < b) {
                k = j;
                continue;
            }
        }
        size_t l = ts->t[k].end - ts->t[k].start;
        if (n + l + 1 >= size)
            return;
        memcpy(out + n, ts->text + ts->t[k].start, l);
        n += l;
        out[n] = '\0';
    }
}

/* Does identifier name occur as a token in [a, b) (not as a member after . or ->)? */
static bool mentions(const rw_toks *ts, size_t a, size_t b, const char *name)
{
    for (size_t k = a; k < b && k < ts->n; k++)
        if (tok_ident(ts, k) && rwl_tok_is(ts, k, name) &&
            !(k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->"))))
            return true;
    return false;
}

/* Does [a, b) change anything (assignment, ++/--), call an atomic or synchronize? */
static bool has_side_effects(const rw_toks *ts, size_t a, size_t b)
{
    for (size_t k = a; k < b && k < ts->n; k++) {
        if (rwl_tok_is_assign_op(ts, k) || rwl_tok_is(ts, k, "++") || rwl_tok_is(ts, k, "--"))
            return true;
        if (tok_ident(ts, k) && (ts->t[k].end - ts->t[k].start > 6) &&
            (memcmp(ts->text + ts->t[k].start, "atomic", 6) == 0 ||
             memcmp(ts->text + ts->t[k].start, "__sync", 6) == 0))
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------ guard shape */

/* The index formulas rewrites start from: blockIdx.A * blockDim.A + threadIdx.A in any
 * operand order, casts dropped. Returns the axis ('x', 'y') or 0. */
static char index_axis(const char *c, bool batch)
{
    static const char *const forms[] = {
        "blockIdx.%c*blockDim.%c+threadIdx.%c", "blockDim.%c*blockIdx.%c+threadIdx.%c",
        "threadIdx.%c+blockIdx.%c*blockDim.%c", "threadIdx.%c+blockDim.%c*blockIdx.%c"};
    /* batch (the BLAS matcher only): a z index, the whole-block `blockIdx.z` of a batched
     * kernel included; the other rewrites keep to x and y */
    if (batch && strcmp(c, "blockIdx.z") == 0)
        return 'z';
    for (char axis = 'x'; axis <= (batch ? 'z' : 'y'); axis++)
        for (size_t i = 0; i < HK_ARRAY_LEN(forms); i++) {
            char f[64];
            snprintf(f, sizeof f, forms[i], axis, axis, axis);
            if (strcmp(c, f) == 0)
                return axis;
        }
    return 0;
}

typedef struct {
    char name[PT_NAME];
    char type[PT_NAME];   /* declared type, e.g. "int", "const int", "long" */
    char axis;            /* 'x' or 'y' */
    size_t bound_a, bound_b; /* token range of the bound expression */
    char bound[PT_EXPR];  /* its text */
} pt_index;

typedef struct {
    pt_index idx[3];
    size_t n_idx;
    size_t pre_a, pre_b;   /* other statements between the index declarations and the guard */
    size_t body_a, body_b; /* the guarded statements (braces of a block stripped) */
    bool early_return;     /* `if (i >= n) return;` form */
    size_t end;            /* index of the body's closing brace */
} pt_shape;

static pt_index *shape_index(pt_shape *s, const rw_toks *ts, size_t k)
{
    for (size_t i = 0; i < s->n_idx; i++)
        if (rwl_tok_is(ts, k, s->idx[i].name))
            return &s->idx[i];
    return NULL;
}

/* One comparison term [a, b) of a guard: `idx OP bound` or `bound OP' idx`. want_lt: the
 * if-block form (idx < bound), else the early-return form (idx >= bound). */
static bool guard_term(pt_shape *s, const rw_toks *ts, size_t a, size_t b, bool want_lt)
{
    while (b > a + 2 && rwl_tok_is(ts, a, "(") && rwl_match_close(ts, a) == b - 1) {
        a++;
        b--;
    }
    if (b < a + 3)
        return false;
    pt_index *ix = NULL;
    size_t ba, bb;
    if ((ix = shape_index(s, ts, a)) && rwl_tok_is(ts, a + 1, want_lt ? "<" : ">=")) {
        ba = a + 2;
        bb = b;
    } else if ((ix = shape_index(s, ts, b - 1)) && rwl_tok_is(ts, b - 2, want_lt ? ">" : "<=")) {
        ba = a;
        bb = b - 2;
    } else {
        return false;
    }
    if (ix->bound_b > ix->bound_a || ba >= bb)
        return false;   /* two bounds for one index, or none */
    for (size_t k = ba; k < bb; k++)
        if (shape_index(s, ts, k) || rwl_tok_is(ts, k, "<") || rwl_tok_is(ts, k, ">") || rwl_tok_is(ts, k, "<=") ||
            rwl_tok_is(ts, k, ">=") || rwl_tok_is(ts, k, "==") || rwl_tok_is(ts, k, "!=") || rwl_tok_is(ts, k, "&&") ||
            rwl_tok_is(ts, k, "||") || rwl_tok_is(ts, k, "?"))
            return false;
    if (has_side_effects(ts, ba, bb))
        return false;
    ix->bound_a = ba;
    ix->bound_b = bb;
    char *t = rwl_tok_text(ts, ba, bb);
    if (!t)
        return false;
    snprintf(ix->bound, sizeof ix->bound, "%s", t);
    hk_free(t);
    return true;
}

/* Reads the body's guard shape; NULL, or the reason the body is not of that shape.
 * batch: a third index along z may be declared (and bounded) too. */
static const char *read_shape_ex(const rw_toks *ts, pt_shape *s, bool batch)
{
    memset(s, 0, sizeof *s);
    if (ts->n < 2 || !rwl_tok_is(ts, 0, "{") || rwl_match_close(ts, 0) != ts->n - 1)
        return "the kernel body could not be read";
    size_t end = ts->n - 1;
    s->end = end;
    size_t k = 1;
    /* index declarations, then other plain declarations, up to the guard */
    s->pre_a = s->pre_b = 0;
    while (k < end && !rwl_tok_is(ts, k, "if")) {
        size_t e = rwl_stmt_end(ts, k, end);
        size_t q = k;
        if (rwl_tok_is(ts, q, "const"))
            q++;
        size_t tstart = q;
        while (q < e && pt_is_type_word(ts, q))
            q++;
        char c[PT_EXPR];
        if (q > tstart && q + 2 < e && tok_ident(ts, q) && rwl_tok_is(ts, q + 1, "=") && rwl_tok_is(ts, e - 1, ";")) {
            compact(ts, q + 2, e - 1, c, sizeof c);
            char axis = index_axis(c, batch);
            if (axis && s->n_idx < (batch ? 3u : 2u) && s->pre_b == 0) {
                pt_index *ix = &s->idx[s->n_idx++];
                tok_copy(ts, q, ix->name, sizeof ix->name);
                char *ty = rwl_tok_text(ts, k, q);
                if (!ty)
                    return "out of memory";
                snprintf(ix->type, sizeof ix->type, "%s", ty);
                hk_free(ty);
                ix->axis = axis;
                k = e;
                continue;
            }
        }
        if (s->n_idx == 0)
            return "the body does not start with an index declaration such as "
                   "`int i = blockIdx.x * blockDim.x + threadIdx.x;`";
        if (q == tstart || !rwl_tok_is(ts, e - 1, ";"))
            return "a statement that is not a declaration comes before the bounds check";
        if (s->pre_b == 0)
            s->pre_a = k;
        s->pre_b = e;
        k = e;
    }
    if (s->n_idx == 0)
        return "the body does not start with an index declaration such as "
               "`int i = blockIdx.x * blockDim.x + threadIdx.x;`";
    for (size_t i = 0; i < s->n_idx; i++)
        for (size_t j = i + 1; j < s->n_idx; j++)
            if (s->idx[i].axis == s->idx[j].axis)
                return "two index declarations of the same axis";
    if (!rwl_tok_is(ts, k, "if") || !rwl_tok_is(ts, k + 1, "("))
        return "no bounds check `if (i < n)` or `if (i >= n) return;` after the index declarations";
    size_t cc = rwl_match_close(ts, k + 1);
    if (cc >= end)
        return "unbalanced bounds check";
    size_t then_a = cc + 1, then_b = rwl_stmt_end(ts, then_a, end);
    if (rwl_tok_is(ts, then_b, "else"))
        return "the bounds check has an else branch";
    bool ret = (rwl_tok_is(ts, then_a, "return") && rwl_tok_is(ts, then_a + 1, ";") && then_b == then_a + 2) ||
               (rwl_tok_is(ts, then_a, "{") && rwl_tok_is(ts, then_a + 1, "return") &&
                rwl_tok_is(ts, then_a + 2, ";") && then_b == then_a + 4);
    s->early_return = ret;
    /* split the condition at top-level && (block form) or || (early return) */
    const char *sep = ret ? "||" : "&&";
    size_t a = k + 2;
    int depth = 0;
    for (size_t q = k + 2; q <= cc; q++) {
        if (q < cc && (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[")))
            depth++;
        else if (q < cc && (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]")))
            depth--;
        if (q == cc || (depth == 0 && rwl_tok_is(ts, q, sep))) {
            if (!guard_term(s, ts, a, q, !ret))
                return ret ? "the early return is not `if (i >= n) return;` (one `>=` per index, "
                             "joined by ||)"
                           : "the bounds check is not `if (i < n)` (one `<` per index, joined by &&)";
            a = q + 1;
        }
        if (depth == 0 && (rwl_tok_is(ts, q, ret ? "&&" : "||")))
            return "the bounds check mixes && and ||";
    }
    for (size_t i = 0; i < s->n_idx; i++)
        if (s->idx[i].bound_b == 0)
            return "an index has no bound in the bounds check";
    if (ret) {
        s->body_a = then_b;
        s->body_b = end;
    } else {
        if (then_b != end)
            return "statements follow the bounds check block";
        if (rwl_tok_is(ts, then_a, "{")) {
            s->body_a = then_a + 1;
            s->body_b = then_b - 1;
        } else {
            s->body_a = then_a;
            s->body_b = then_b;
        }
    }
    if (s->body_a >= s->body_b)
        return "nothing is guarded by the bounds check";
    return NULL;
}

static const char *read_shape(const rw_toks *ts, pt_shape *s)
{
    return read_shape_ex(ts, s, false);
}

static const pt_index *shape_axis(const pt_shape *s, char axis)
{
    for (size_t i = 0; i < s->n_idx; i++)
        if (s->idx[i].axis == axis)
            return &s->idx[i];
    return NULL;
}

/* ------------------------------------------------------------------ parameters */

static const an_param *param_named(const an_function *f, const rw_toks *ts, size_t k)
{
    if (!tok_ident(ts, k))
        return NULL;
    for (size_t i = 0; i < f->n_params; i++)
        if (f->params[i].name && rwl_tok_is(ts, k, f->params[i].name))
            return &f->params[i];
    return NULL;
}

static const an_param *param_by_name(const an_function *f, const char *name)
{
    for (size_t i = 0; i < f->n_params; i++)
        if (f->params[i].name && strcmp(f->params[i].name, name) == 0)
            return &f->params[i];
    return NULL;
}

/* The canonical spelling of a scalar element type this module generates code for, or
 * NULL. elem is an_param.elem_type; type the full declared type (for "unsigned int"
 * spellings whose elem_type the analysis may shorten). */
static const char *scalar_type(const char *elem)
{
    static const char *const map[][2] = {
        {"float", "float"}, {"double", "double"}, {"int", "int"}, {"signed", "int"},
        {"signed int", "int"}, {"unsigned", "unsigned int"}, {"unsigned int", "unsigned int"},
        {"uint32_t", "unsigned int"}, {"int32_t", "int"}, {"long long", "long long"},
        {"long long int", "long long"}, {"unsigned long long", "unsigned long long"},
        {"unsigned long long int", "unsigned long long"}};
    if (!elem)
        return NULL;
    for (size_t i = 0; i < HK_ARRAY_LEN(map); i++)
        if (strcmp(elem, map[i][0]) == 0)
            return map[i][1];
    return NULL;
}

/* elem type of a pointer parameter read from its full type text (the analysis' elem_type
 * drops "unsigned" in some spellings): the type with const, volatile, __restrict__ and '*'
 * removed, words joined by one space. */
static void pointee_type(const an_param *p, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    const char *s = p->type ? p->type : "";
    while (*s) {
        while (*s && (isspace((unsigned char)*s) || *s == '*'))
            s++;
        const char *w = s;
        while (*s && !isspace((unsigned char)*s) && *s != '*')
            s++;
        size_t l = (size_t)(s - w);
        if (l == 0)
            continue;
        if ((l == 5 && memcmp(w, "const", 5) == 0) || (l == 8 && memcmp(w, "volatile", 8) == 0) ||
            (l == 12 && memcmp(w, "__restrict__", 12) == 0) || (l == 10 && memcmp(w, "__restrict", 10) == 0) ||
            (l == 8 && memcmp(w, "restrict", 8) == 0))
            continue;
        if (n && n + 1 < size)
            out[n++] = ' ';
        for (size_t i = 0; i < l && n + 1 < size; i++)
            out[n++] = w[i];
        out[n] = '\0';
    }
}

/* ------------------------------------------------------------------ rendering */

static int not_applicable(rw_result *out, const char *rewrite, const an_function *f, const char *why)
{
    out->applicable = false;
    out->description = hk_asprintf("%s not applicable to kernel %s: %s", rewrite, f->name, why);
    return out->description ? HK_OK : HK_ENOMEM;
}

/* Replaces f's body with the text in body (a whole compound statement), re-analyses and
 * fills out. Takes ownership of desc. */
static int replace_body(const char *text, size_t len, const an_model *m, const an_function *f,
                        const char *body, char *desc, rw_result *out)
{
    if (!desc)
        return HK_ENOMEM;
    size_t bl = strlen(body);
    uint32_t s = f->body_span.start_byte, e = f->body_span.end_byte;
    size_t nl = len - (e - s) + bl;
    an_model *nm = NULL;
    int rc;
    if (nl > PT_TEXT_MAX) {
        hk_free(desc);
        return HK_ETOOBIG;
    }
    char *nt = hk_malloc(nl + 1);
    if (!nt) {
        hk_free(desc);
        return HK_ENOMEM;
    }
    memcpy(nt, text, s);
    memcpy(nt + s, body, bl);
    memcpy(nt + s + bl, text + e, len - e);
    nt[nl] = '\0';
    if ((rc = an_analyze(nt, nl, &nm))) {
        hk_free(nt);
        hk_free(desc);
        return rc;
    }
    bool ok = !(nm->has_errors && !m->has_errors) && an_model_find_kernel(nm, f->name) >= 0;
    an_model_free(nm);
    if (!ok) {
        hk_free(nt);
        out->applicable = false;
        out->description = hk_asprintf("rewrite refused, its result does not parse cleanly: %s", desc);
        hk_free(desc);
        return out->description ? HK_EPARSE : HK_ENOMEM;
    }
    out->applicable = true;
    out->text = nt;
    out->len = nl;
    out->description = desc;
    return HK_OK;
}

/* Lines every generated body starts with: the linear thread index over x, y, z and the
 * block's thread count, so any block shape works. */
#define PT_THREADS                                                                           \
    "    const unsigned int hk_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n" \
    "    const unsigned int hk_nthreads = blockDim.x * blockDim.y * blockDim.z;\n"

/* Warp bookkeeping for shuffles that stay correct in a partial last warp: hk_width lanes
 * exist in this warp, hk_mask names them. */
/* Groups of 32 lanes, also on a 64-lane HIP wavefront (two groups per wavefront): a
 * broadcast from a group's lane 0 passes width 32, or on HIP it would read lane 0 of the
 * wavefront, the other group's value for the upper half. */
#define PT_WARP                                                                              \
    "    const unsigned int hk_lane = hk_tid & 31u, hk_warp = hk_tid >> 5;\n"                 \
    "    const unsigned int hk_nwarps = (hk_nthreads + 31u) >> 5;\n"                          \
    "    const unsigned int hk_width = min(hk_nthreads - (hk_warp << 5), 32u);\n" \
    "    const unsigned int hk_mask = hk_width == 32u ? 0xffffffffu : (1u << hk_width) - 1u;\n"

/* ------------------------------------------------------------------ tiled transpose */

/* Is compact text c the row-major index `ROW * STRIDE + COL` in one of its orders? */
static bool is_rowmajor(const char *c, const char *row, const char *stride, const char *col)
{
    char f[4][3 * PT_EXPR];
    snprintf(f[0], sizeof f[0], "%s*%s+%s", row, stride, col);
    snprintf(f[1], sizeof f[1], "%s*%s+%s", stride, row, col);
    snprintf(f[2], sizeof f[2], "%s+%s*%s", col, row, stride);
    snprintf(f[3], sizeof f[3], "%s+%s*%s", col, stride, row);
    for (int i = 0; i < 4; i++)
        if (strcmp(c, f[i]) == 0)
            return true;
    return false;
}

/* Compact text of a bound, parenthesized when it is not one token (so `r*(w+1)+c`
 * compares right). */
static void bound_compact(const rw_toks *ts, const pt_index *ix, char *out, size_t size)
{
    char c[PT_EXPR];
    compact(ts, ix->bound_a, ix->bound_b, c, sizeof c);
    /* a truncated bound only fails to match */
    if (snprintf(out, size, ix->bound_b - ix->bound_a == 1 ? "%s" : "(%s)", c) >= (int)size)
        out[0] = '\0';
}

static const char tpl_transpose[] =
    "{\n"
    "    // hk rewrite: shared-memory tiled transpose. Each block walks output tiles\n"
    "    // (grid-stride); all its threads copy a tile in (coalesced rows of the input),\n"
    "    // then out of the padded tile (coalesced rows of the output).\n"
    "    constexpr int HK_TILE = $TILE;\n"
    "    constexpr unsigned int HK_TPB = 256;\n"
    "    __shared__ $T hk_tile[HK_TILE][HK_TILE + 1];\n"
    PT_THREADS
    "    const long long hk_w = ($W), hk_h = ($H);\n"
    "    const long long hk_tiles_x = (hk_w + HK_TILE - 1) / HK_TILE;\n"
    "    const long long hk_tiles = hk_tiles_x * ((hk_h + HK_TILE - 1) / HK_TILE);\n"
    "    const long long hk_blocks = (long long)gridDim.x * gridDim.y * gridDim.z;\n"
    "    for (long long hk_t = blockIdx.x + (long long)gridDim.x * (blockIdx.y + (long long)gridDim.y * blockIdx.z);\n"
    "         hk_t < hk_tiles; hk_t += hk_blocks) {\n"
    "        const long long hk_x0 = (hk_t % hk_tiles_x) * HK_TILE, hk_y0 = (hk_t / hk_tiles_x) * HK_TILE;\n"
    "        // a tile inside the matrix, read by blocks of HK_TPB threads: no bounds checks and a\n"
    "        // fixed trip count, so the unrolled loops issue all their loads (stores) at once\n"
    "        const bool hk_fast = hk_x0 + HK_TILE <= hk_w && hk_y0 + HK_TILE <= hk_h &&\n"
    "                             hk_nthreads == HK_TPB && (HK_TILE * HK_TILE) % HK_TPB == 0;\n"
    "        if (hk_fast) {\n"
    "            #pragma unroll\n"
    "            for (int hk_k = 0; hk_k < HK_TILE * HK_TILE / HK_TPB; hk_k++) {\n"
    "                const unsigned int hk_e = hk_tid + hk_k * HK_TPB;\n"
    "                hk_tile[hk_e / HK_TILE][hk_e % HK_TILE] =\n"
    "                    $IN[(size_t)(hk_y0 + hk_e / HK_TILE) * hk_w + hk_x0 + hk_e % HK_TILE];\n"
    "            }\n"
    "        } else {\n"
    "            for (unsigned int hk_e = hk_tid; hk_e < HK_TILE * HK_TILE; hk_e += hk_nthreads) {\n"
    "                const int hk_ty = hk_e / HK_TILE, hk_tx = hk_e % HK_TILE;\n"
    "                const long long hk_x = hk_x0 + hk_tx, hk_y = hk_y0 + hk_ty;\n"
    "                if (hk_x < hk_w && hk_y < hk_h)\n"
    "                    hk_tile[hk_ty][hk_tx] = $IN[(size_t)hk_y * hk_w + hk_x];\n"
    "            }\n"
    "        }\n"
    "        __syncthreads();\n"
    "        if (hk_fast) {\n"
    "            #pragma unroll\n"
    "            for (int hk_k = 0; hk_k < HK_TILE * HK_TILE / HK_TPB; hk_k++) {\n"
    "                const unsigned int hk_e = hk_tid + hk_k * HK_TPB;\n"
    "                $OUT[(size_t)(hk_x0 + hk_e / HK_TILE) * hk_h + hk_y0 + hk_e % HK_TILE] =\n"
    "                    hk_tile[hk_e % HK_TILE][hk_e / HK_TILE];\n"
    "            }\n"
    "        } else {\n"
    "            for (unsigned int hk_e = hk_tid; hk_e < HK_TILE * HK_TILE; hk_e += hk_nthreads) {\n"
    "                const int hk_ty = hk_e / HK_TILE, hk_tx = hk_e % HK_TILE;\n"
    "                const long long hk_x = hk_x0 + hk_ty, hk_y = hk_y0 + hk_tx;\n"
    "                if (hk_x < hk_w && hk_y < hk_h)\n"
    "                    $OUT[(size_t)hk_x * hk_h + hk_y] = hk_tile[hk_tx][hk_ty];\n"
    "            }\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }\n"
    "}";

int rw_tiled_transpose(const char *text, size_t len, const an_model *m, size_t kernel, int tile,
                       rw_result *out)
{
    static const char *const name = "tiled transpose";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (tile < 8 || tile > 64 || tile % 8)
        return HK_EINVAL;
    rw_toks ts = {0};
    pt_shape s;
    struct hk_buf b;
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *why = NULL;
    if ((rc = lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG) {
            rc = not_applicable(out, name, f, "the body is far larger than a transpose");
        }
        goto out;
    }
    if ((why = read_shape(&ts, &s)))
        goto na;
    const pt_index *ix = shape_axis(&s, 'x'), *iy = shape_axis(&s, 'y');
    if (s.n_idx != 2 || !ix || !iy) {
        why = "it is not a 2D kernel (indices from .x and .y)";
        goto na;
    }
    if (s.pre_b > s.pre_a) {
        why = "statements besides the index declarations come before the bounds check";
        goto na;
    }
    /* the guarded body: exactly `OUT[E1] = IN[E2];` */
    size_t a = s.body_a, e = s.body_b;
    const an_param *po = param_named(f, &ts, a), *pi = NULL;
    size_t c1 = rwl_tok_is(&ts, a + 1, "[") ? rwl_match_close(&ts, a + 1) : ts.n;
    if (po && c1 < e && rwl_tok_is(&ts, c1 + 1, "="))
        pi = param_named(f, &ts, c1 + 2);
    size_t c2 = pi && rwl_tok_is(&ts, c1 + 3, "[") ? rwl_match_close(&ts, c1 + 3) : ts.n;
    if (!po || !pi || c2 + 2 != e || !rwl_tok_is(&ts, c2 + 1, ";") || po == pi ||
        po->pointer_depth != 1 || pi->pointer_depth != 1) {
        why = "the guarded statement is not one copy `out[...] = in[...];` between two pointer parameters";
        goto na;
    }
    char e1[PT_EXPR], e2[PT_EXPR], wc[PT_EXPR], hc[PT_EXPR];
    compact(&ts, a + 2, c1, e1, sizeof e1);
    compact(&ts, c1 + 4, c2, e2, sizeof e2);
    bound_compact(&ts, ix, wc, sizeof wc);
    bound_compact(&ts, iy, hc, sizeof hc);
    if (!is_rowmajor(e2, iy->name, wc, ix->name)) {
        why = "the read is not in[y * W + x] (y and x the .y and .x indices, W the bound of x)";
        goto na;
    }
    if (!is_rowmajor(e1, ix->name, hc, iy->name)) {
        why = strcmp(e1, e2) == 0 ? "it is a copy, not a transpose"
                                  : "the write is not out[x * H + y] (H the bound of y)";
        goto na;
    }
    char ti[PT_EXPR], to[PT_EXPR], tile_s[16];
    pointee_type(pi, ti, sizeof ti);
    pointee_type(po, to, sizeof to);
    if (strcmp(ti, to) != 0 || !*ti) {
        why = "the input and output element types differ";
        goto na;
    }
    snprintf(tile_s, sizeof tile_s, "%d", tile);
    const char *kv[] = {"TILE", tile_s, "T", ti, "W", ix->bound, "H", iy->bound, "IN", pi->name,
                        "OUT", po->name, NULL};
    if ((rc = rwl_render(&b, tpl_transpose, kv)))
        goto out;
    char *desc = hk_asprintf("kernel %s: shared-memory tiled transpose %s -> %s, tile [%d][%d + 1] "
                             "(HK_TILE), grid-stride over tiles, any block shape",
                             f->name, pi->name, po->name, tile, tile);
    rc = replace_body(text, len, m, f, b.data, desc, out);
    goto out;
na:
    rc = not_applicable(out, name, f, why);
out:
    hk_buf_free(&b);
    rwl_toks_free(&ts);
    return rc;
}

/* ------------------------------------------------------------------ 1D helpers */

/* The loop head that replaces a 1D guard, up to and including its opening brace:
 *     for (long long hk_i = <index>; hk_i < (N); hk_i += <stride>) { const TYPE i = (TYPE)hk_i;
 * The loop counts in 64 bits whatever the index's type, so `i + stride` cannot overflow
 * near the bound; the body still sees the index under its own name and type. blocks: the
 * number of blocks along x that share the work ("gridDim.x", or "hk_blocks" when the body
 * lets surplus blocks leave). */
/* The grid-stride loop head over ix's range; first (NULL: none) is added to where each
 * thread starts, for a loop that takes over where a vector loop stopped. */
static char *grid_stride_head(const pt_index *ix, const char *blocks, const char *first)
{
    const char *t = ix->type;
    if (strncmp(t, "const ", 6) == 0)
        t += 6;
    return hk_asprintf("for (long long hk_i = %s%s(long long)blockIdx.x * blockDim.x + threadIdx.x; "
                       "hk_i < (long long)(%s); hk_i += (long long)%s * blockDim.x) {\n"
                       "        const %s %s = (%s)hk_i;",
                       first ? first : "", first ? " + " : "", ix->bound, blocks, t, ix->name, t);
}

/* Lines that let blocks past HK_MAX_BLOCKS (along x) leave at once: the others cover every
 * element by grid-stride, so fewer, fuller blocks mean fewer atomics or merges. The test is
 * uniform over the block, so no thread skips a __syncthreads the others reach. */
#define PT_MAX_BLOCKS                                                                        \
    "    constexpr int HK_MAX_BLOCKS = $MAXBLOCKS;\n"                                         \
    "    const unsigned int hk_blocks = min(gridDim.x, (unsigned int)HK_MAX_BLOCKS);\n" \
    "    if (blockIdx.x >= hk_blocks)\n"                                                     \
    "        return;\n"

/* A call `NAME(ARG0, ARG1)` at tokens [a, e) ending with ';': fills the argument token
 * ranges. false when it is not such a call with exactly two arguments. */
static bool call2(const rw_toks *ts, size_t a, size_t e, size_t *a0, size_t *b0, size_t *a1, size_t *b1)
{
    if (!tok_ident(ts, a) || !rwl_tok_is(ts, a + 1, "("))
        return false;
    size_t c = rwl_match_close(ts, a + 1);
    if (c + 2 != e || !rwl_tok_is(ts, c + 1, ";"))
        return false;
    int depth = 0;
    size_t comma = 0;
    for (size_t k = a + 2; k < c; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "{"))
            depth++;
        else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]") || rwl_tok_is(ts, k, "}"))
            depth--;
        else if (depth == 0 && rwl_tok_is(ts, k, ",")) {
            if (comma)
                return false;
            comma = k;
        }
    }
    if (!comma || comma == a + 2 || comma + 1 >= c)
        return false;
    *a0 = a + 2;
    *b0 = comma;
    *a1 = comma + 1;
    *b1 = c;
    return true;
}

/* An atomic target [a, b): `P`, `&P[K]` or `P + K` with P a non-const pointer parameter.
 * Returns P (borrowed) and the element offset text range [*ka, *kb) (empty for `P`). */
static const an_param *atomic_target(const an_function *f, const rw_toks *ts, size_t a, size_t b,
                                     size_t *ka, size_t *kb)
{
    const an_param *p = NULL;
    *ka = *kb = 0;
    if (b == a + 1) {
        p = param_named(f, ts, a);
    } else if (rwl_tok_is(ts, a, "&") && (p = param_named(f, ts, a + 1)) && rwl_tok_is(ts, a + 2, "[") &&
               rwl_match_close(ts, a + 2) == b - 1) {
        *ka = a + 3;
        *kb = b - 1;
    } else if ((p = param_named(f, ts, a)) && rwl_tok_is(ts, a + 1, "+") && b > a + 2) {
        *ka = a + 2;
        *kb = b;
    } else {
        return NULL;
    }
    if (!p || p->pointer_depth != 1 || p->is_const)
        return NULL;
    if (*kb > *ka && has_side_effects(ts, *ka, *kb))
        return NULL;
    return p;
}

/* ------------------------------------------------------------------ warp reduce */

enum pt_op { PT_SUM, PT_MAX, PT_MIN };

static const char *reduce_identity(enum pt_op op, const char *t)
{
    static const char *const tab[][3] = {
        /* type, max identity, min identity */
        {"float", "-__int_as_float(0x7f800000)", "__int_as_float(0x7f800000)"},
        {"double", "-__longlong_as_double(0x7ff0000000000000LL)", "__longlong_as_double(0x7ff0000000000000LL)"},
        {"int", "(-2147483647 - 1)", "2147483647"},
        {"unsigned int", "0u", "0xffffffffu"},
        {"long long", "(-9223372036854775807LL - 1)", "9223372036854775807LL"},
        {"unsigned long long", "0ull", "0xffffffffffffffffull"}};
    if (op == PT_SUM)
        return "0";
    for (size_t i = 0; i < HK_ARRAY_LEN(tab); i++)
        if (strcmp(t, tab[i][0]) == 0)
            return tab[i][op == PT_MAX ? 1 : 2];
    return NULL;
}

static const char tpl_reduce[] =
    "{\n"
    "    // hk rewrite: warp-shuffle reduction. Grid-stride accumulation in a register,\n"
    "    // __shfl_down_sync within each warp, one shared slot per warp, one atomic per block.\n"
    PT_MAX_BLOCKS
    "    $T hk_acc = $IDENT;\n"
    "$VEC"
    "    // several loads in flight per thread: the loop is latency-bound otherwise\n"
    "    #pragma unroll 4\n"
    "    $HEAD\n"
    "        $ACCUM\n"
    "    }\n"
    PT_THREADS
    PT_WARP
    "    __shared__ $T hk_part[32];\n"
    "    for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n"
    "        const $T hk_o = __shfl_down_sync(hk_mask, hk_acc, hk_off);\n"
    "        if (hk_lane + hk_off < hk_width)\n"
    "            $COMBINE;\n"
    "    }\n"
    "    if (hk_lane == 0)\n"
    "        hk_part[hk_warp] = hk_acc;\n"
    "    __syncthreads();\n"
    "    if (hk_warp == 0) {\n"
    "        hk_acc = (hk_lane < hk_nwarps) ? hk_part[hk_lane] : $IDENT;\n"
    "        for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n"
    "            const $T hk_o = __shfl_down_sync(hk_mask, hk_acc, hk_off);\n"
    "            if (hk_lane + hk_off < hk_width)\n"
    "                $COMBINE;\n"
    "        }\n"
    "        if (hk_lane == 0)\n"
    "            $ATOMIC($TARGET, hk_acc);\n"
    "    }\n"
    "}";

/* What a reduction kernel is made of, found by one of the two matchers below. */
typedef struct {
    enum pt_op op;
    const char *atomic;       /* "atomicAdd", ... */
    const an_param *target;   /* the accumulator's pointer parameter */
    char *target_text;        /* the atomic's first argument as written */
    char *expr;               /* the value one index contributes */
    char *cond;               /* a condition on that contribution, or NULL */
    const pt_index *ix;
} pt_reduce;

static void reduce_free(pt_reduce *r)
{
    hk_free(r->target_text);
    hk_free(r->expr);
    hk_free(r->cond);
}

static bool atomic_name(const rw_toks *ts, size_t k, pt_reduce *r)
{
    if (rwl_tok_is(ts, k, "atomicAdd"))
        r->op = PT_SUM;
    else if (rwl_tok_is(ts, k, "atomicMax"))
        r->op = PT_MAX;
    else if (rwl_tok_is(ts, k, "atomicMin"))
        r->op = PT_MIN;
    else
        return false;
    r->atomic = r->op == PT_SUM ? "atomicAdd" : r->op == PT_MAX ? "atomicMax" : "atomicMin";
    return true;
}

/* `[if (COND)] atomicX(TARGET, EXPR);` guarded by a 1D bounds check. NULL or why not. */
static const char *match_atomic_reduce(const an_function *f, const rw_toks *ts, const pt_shape *s,
                                       pt_reduce *r)
{
    if (s->n_idx != 1 || s->idx[0].axis != 'x')
        return "the kernel does not have one 1D index over x";
    if (s->pre_b > s->pre_a)
        return "statements besides the index declaration come before the bounds check";
    size_t a = s->body_a, e = s->body_b;
    if (rwl_tok_is(ts, a, "{") && rwl_match_close(ts, a) == e - 1) {
        a++;
        e--;
    }
    size_t ca = 0, cb = 0;
    if (rwl_tok_is(ts, a, "if") && rwl_tok_is(ts, a + 1, "(")) {
        size_t c = rwl_match_close(ts, a + 1);
        if (c >= e || rwl_stmt_end(ts, a, e) != e || rwl_tok_is(ts, rwl_stmt_end(ts, c + 1, e), "else"))
            return "the guarded statement is not one atomic";
        ca = a + 2;
        cb = c;
        a = c + 1;
        if (rwl_tok_is(ts, a, "{") && rwl_match_close(ts, a) == e - 1) {
            a++;
            e--;
        }
        if (has_side_effects(ts, ca, cb))
            return "the condition has side effects";
    }
    if (!atomic_name(ts, a, r))
        return "the guarded statement is not atomicAdd/atomicMax/atomicMin";
    size_t a0, b0, a1, b1, ka, kb;
    if (!call2(ts, a, e, &a0, &b0, &a1, &b1))
        return "the guarded statement is not one two-argument atomic call";
    if (!(r->target = atomic_target(f, ts, a0, b0, &ka, &kb)))
        return "the atomic's target is not a pointer parameter (`out`, `&out[k]`, `out + k`)";
    if (mentions(ts, a0, b0, s->idx[0].name))
        return "the atomic's target depends on the index: a scatter (histogram?), not a reduction";
    for (size_t k = a0; k < b0; k++)
        if (tok_ident(ts, k) && !param_named(f, ts, k) && !(k > 0 && rwl_tok_is(ts, k - 1, ".")))
            return "the atomic's target uses a local variable";
    if (has_side_effects(ts, a1, b1))
        return "the atomic's value has side effects";
    if (!(r->target_text = rwl_tok_text(ts, a0, b0)) || !(r->expr = rwl_tok_text(ts, a1, b1)) ||
        (cb > ca && !(r->cond = rwl_tok_text(ts, ca, cb))))
        return "out of memory";
    r->ix = &s->idx[0];
    return NULL;
}

/* The shared-memory tree form:
 *     __shared__ T sdata[N];
 *     unsigned tid = threadIdx.x; int i = <1D index>;       (either order)
 *     sdata[tid] = (i < n) ? EXPR : 0;
 *     __syncthreads();
 *     for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
 *         if (tid < s) sdata[tid] += sdata[tid + s];
 *         __syncthreads();
 *     }
 *     if (tid == 0) atomicAdd(TARGET, sdata[0]);
 * It has no guard shape, so it is read statement by statement. NULL or why not. */
static const char *match_tree_reduce(const an_function *f, const rw_toks *ts, pt_shape *s,
                                     pt_reduce *r)
{
    if (f->n_shared != 1)
        return "no shared-memory tree (one __shared__ array) and no per-thread atomic";
    char sh[PT_NAME], tid[PT_NAME] = "", c[PT_EXPR];
    snprintf(sh, sizeof sh, "%s", f->shared[0].name);
    size_t end = ts->n - 1, k = 1;
    memset(s, 0, sizeof *s);
    bool loop = false, load = false, sync_after_load = false, final = false;
    while (k < end) {
        size_t e = rwl_stmt_end(ts, k, end);
        size_t q = k;
        if (rwl_tok_is(ts, q, "__shared__")) {
            k = e;
            continue;
        }
        if (rwl_tok_is(ts, q, "const"))
            q++;
        size_t tstart = q;
        while (q < e && pt_is_type_word(ts, q))
            q++;
        if (!load && q > tstart && tok_ident(ts, q) && rwl_tok_is(ts, q + 1, "=") && rwl_tok_is(ts, e - 1, ";")) {
            compact(ts, q + 2, e - 1, c, sizeof c);
            if (strcmp(c, "threadIdx.x") == 0) {
                tok_copy(ts, q, tid, sizeof tid);
                k = e;
                continue;
            }
            if (index_axis(c, false) == 'x' && s->n_idx == 0) {
                pt_index *ix = &s->idx[s->n_idx++];
                tok_copy(ts, q, ix->name, sizeof ix->name);
                char *ty = rwl_tok_text(ts, k, q);
                if (!ty)
                    return "out of memory";
                snprintf(ix->type, sizeof ix->type, "%s", ty);
                hk_free(ty);
                ix->axis = 'x';
                k = e;
                continue;
            }
            return "a declaration in the tree reduction is not the thread or element index";
        }
        if (!load) {
            /* sdata[tid] = (i < n) ? EXPR : 0; */
            if (!*tid || s->n_idx != 1 || !rwl_tok_is(ts, k, sh) || !rwl_tok_is(ts, k + 1, "[") ||
                !rwl_tok_is(ts, k + 2, tid) || !rwl_tok_is(ts, k + 3, "]") || !rwl_tok_is(ts, k + 4, "="))
                return "the shared array is not loaded with `sdata[tid] = i < n ? value : 0;`";
            size_t a = k + 5, b = e - 1;
            size_t qm = b, colon = b;
            int depth = 0;
            for (size_t j = a; j < b; j++) {
                if (rwl_tok_is(ts, j, "(") || rwl_tok_is(ts, j, "["))
                    depth++;
                else if (rwl_tok_is(ts, j, ")") || rwl_tok_is(ts, j, "]"))
                    depth--;
                else if (depth == 0 && rwl_tok_is(ts, j, "?") && qm == b)
                    qm = j;
                else if (depth == 0 && rwl_tok_is(ts, j, ":") && qm < b)
                    colon = j;
            }
            if (qm == b || colon == b || !guard_term(s, ts, a, qm, true) ||
                !(colon + 2 == b && (rwl_tok_is(ts, colon + 1, "0") || rwl_tok_is(ts, colon + 1, "0.0f") ||
                                     rwl_tok_is(ts, colon + 1, "0.0") || rwl_tok_is(ts, colon + 1, "0.f") ||
                                     rwl_tok_is(ts, colon + 1, "0u"))))
                return "the shared array is not loaded with `sdata[tid] = i < n ? value : 0;`";
            if (has_side_effects(ts, qm + 1, colon) || mentions(ts, qm + 1, colon, sh))
                return "the loaded value has side effects";
            if (!(r->expr = rwl_tok_text(ts, qm + 1, colon)))
                return "out of memory";
            load = true;
            k = e;
            continue;
        }
        if (rwl_tok_is(ts, k, "__syncthreads") && !loop) {
            sync_after_load = true;
            k = e;
            continue;
        }
        if (rwl_tok_is(ts, k, "for") && !loop && sync_after_load) {
            /* for (T s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sh[tid] += sh[tid + s];
             * __syncthreads(); } -- compared in compact form, the step variable named V */
            size_t v = k + 2;
            while (pt_is_type_word(ts, v))
                v++;
            char var[PT_NAME], want[4 * PT_NAME + 256];
            tok_copy(ts, v, var, sizeof var);
            compact(ts, v, e, c, sizeof c);
            int w1 = snprintf(want, sizeof want,
                              "%s=blockDim.x/2;%s>0;%s>>=1){if(%s<%s)%s[%s]+=%s[%s+%s];__syncthreads();}",
                              var, var, var, tid, var, sh, tid, sh, tid, var);
            char want2[sizeof want];
            int w2 = snprintf(want2, sizeof want2,
                              "%s=blockDim.x/2;%s>0;%s>>=1){if(%s<%s){%s[%s]+=%s[%s+%s];}__syncthreads();}",
                              var, var, var, tid, var, sh, tid, sh, tid, var);
            if (!tok_ident(ts, v) || w1 >= (int)sizeof want || w2 >= (int)sizeof want2 ||
                (strcmp(c, want) != 0 && strcmp(c, want2) != 0))
                return "the loop is not the tree `for (s = blockDim.x / 2; s > 0; s >>= 1) "
                       "{ if (tid < s) sdata[tid] += sdata[tid + s]; __syncthreads(); }`";
            loop = true;
            k = e;
            continue;
        }
        if (rwl_tok_is(ts, k, "if") && loop && !final) {
            /* if (tid == 0) atomicAdd(TARGET, sdata[0]); */
            compact(ts, k, k + 7, c, sizeof c);
            char want[2 * PT_NAME + 16];
            snprintf(want, sizeof want, "if(%s==0)", tid);
            size_t a = k + 6;
            if (rwl_tok_is(ts, a, "{"))
                a++;
            size_t stop = rwl_tok_is(ts, k + 6, "{") ? e - 1 : e;
            size_t a0, b0, a1, b1, ka, kb;
            char v[PT_EXPR], vw[PT_NAME + 8];
            if (strncmp(c, want, strlen(want)) != 0 || !atomic_name(ts, a, r) ||
                !call2(ts, a, stop, &a0, &b0, &a1, &b1))
                return "the block result is not written with `if (tid == 0) atomicAdd(out, sdata[0]);` "
                       "(a per-block partial output depends on the grid: not rewritten)";
            compact(ts, a1, b1, v, sizeof v);
            snprintf(vw, sizeof vw, "%s[0]", sh);
            if (r->op != PT_SUM || strcmp(v, vw) != 0 ||
                !(r->target = atomic_target(f, ts, a0, b0, &ka, &kb)) ||
                mentions(ts, a0, b0, s->idx[0].name) || mentions(ts, a0, b0, tid))
                return "the block result is not `atomicAdd(out, sdata[0])`";
            if (!(r->target_text = rwl_tok_text(ts, a0, b0)))
                return "out of memory";
            final = true;
            k = e;
            continue;
        }
        return "a statement outside the tree-reduction pattern";
    }
    if (!final)
        return "the tree reduction does not end with one atomic per block";
    r->ix = &s->idx[0];
    return NULL;
}

/* The float4 loop of a float sum whose contribution reads only `P[i]` (P float pointer
 * parameters, i the element index, e.g. `in[i]` or `a[i] * b[i]`): each thread loads 16 bytes
 * of every P per step, four contributions from the four components, while the scalar loop
 * after it (started at *first) takes the last n % 4 elements -- or all of them when some P
 * is not 16-byte aligned. Returns the lines (new string) and sets *first, or NULL with
 * *first NULL when the contribution reads anything else; *nomem on allocation failure. */
#define PT_VEC_ARRAYS 4
static char *reduce_vec_loop(const an_function *f, const pt_reduce *r, const char *ty, const char **first,
                             bool *nomem)
{
    *first = NULL;
    *nomem = false;
    if (r->op != PT_SUM || r->cond || strcmp(ty, "float") != 0)
        return NULL;
    rw_toks ts = {0};
    struct hk_buf comp[4];
    char *loads = NULL, *align = NULL, *res = NULL;
    const an_param *arr[PT_VEC_ARRAYS];
    size_t n_arr = 0;
    bool ok = false;
    for (int c = 0; c < 4; c++)
        hk_buf_init(&comp[c], PT_EXPR);
    int rc = rwl_lex(r->expr, 0, (uint32_t)strlen(r->expr), &ts);
    if (rc) {
        *nomem = rc == HK_ENOMEM;
        goto out;
    }
    static const char lane[4] = {'x', 'y', 'z', 'w'};
    uint32_t prev = 0;
    for (size_t k = 0; k < ts.n; k++) {
        const an_param *p = param_named(f, &ts, k);
        bool load = p && p->pointer_depth == 1 && rwl_tok_is(&ts, k + 1, "[") &&
                    rwl_tok_is(&ts, k + 2, r->ix->name) && rwl_tok_is(&ts, k + 3, "]") &&
                    !(k > 0 && (rwl_tok_is(&ts, k - 1, ".") || rwl_tok_is(&ts, k - 1, "->")));
        if (!load) {
            if (rwl_tok_is(&ts, k, r->ix->name))
                goto out;   /* the index used other than as P[i] */
            continue;
        }
        char t[PT_EXPR];
        pointee_type(p, t, sizeof t);
        if (strcmp(t, "float") != 0)
            goto out;
        size_t a = 0;
        while (a < n_arr && arr[a] != p)
            a++;
        if (a == n_arr) {
            if (n_arr == PT_VEC_ARRAYS)
                goto out;
            arr[n_arr++] = p;
        }
        for (int c = 0; c < 4; c++) {
            char q[32];
            snprintf(q, sizeof q, "hk_q%zu.%c", a, lane[c]);
            if ((rc = hk_buf_append(&comp[c], r->expr + prev, ts.t[k].start - prev)) ||
                (rc = hk_buf_append(&comp[c], q, strlen(q))))
                goto fail;   /* HK_ETOOBIG: a contribution too long to repeat four times */
        }
        prev = ts.t[k + 3].end;
        k += 3;
    }
    if (n_arr == 0)
        goto out;
    for (int c = 0; c < 4; c++)
        if ((rc = hk_buf_append(&comp[c], r->expr + prev, strlen(r->expr) - prev)))
            goto fail;
    for (size_t a = 0; a < n_arr; a++) {
        char *l = hk_asprintf("%s        const float4 hk_q%zu = reinterpret_cast<const float4 *>(%s)[hk_v];\n",
                              loads ? loads : "", a, arr[a]->name);
        char *g = hk_asprintf("%s%sreinterpret_cast<unsigned long long>(%s)", align ? align : "",
                              align ? " | " : "", arr[a]->name);
        hk_free(loads);
        hk_free(align);
        loads = l;
        align = g;
        if (!l || !g)
            goto oom;
    }
    res = hk_asprintf("    // 16-byte loads when every array is 16-byte aligned; the loop below takes the rest\n"
                      "    const long long hk_n4 = ((%s) & 15) == 0 && (long long)(%s) > 0 ? (long long)(%s) / 4 : 0;\n"
                      "    #pragma unroll 4\n"
                      "    for (long long hk_v = (long long)blockIdx.x * blockDim.x + threadIdx.x; hk_v < hk_n4;\n"
                      "         hk_v += (long long)hk_blocks * blockDim.x) {\n"
                      "%s"
                      "        hk_acc += (float)(%s) + (float)(%s) + (float)(%s) + (float)(%s);\n"
                      "    }\n",
                      align, r->ix->bound, r->ix->bound, loads, comp[0].data, comp[1].data, comp[2].data,
                      comp[3].data);
    if (!res)
        goto oom;
    *first = "hk_n4 * 4";
    ok = true;
    goto out;
fail:
    if (rc != HK_ENOMEM)
        goto out;
oom:
    *nomem = true;
out:
    if (!ok) {
        hk_free(res);
        res = NULL;
    }
    hk_free(loads);
    hk_free(align);
    for (int c = 0; c < 4; c++)
        hk_buf_free(&comp[c]);
    rwl_toks_free(&ts);
    return res;
}

int rw_warp_reduce(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    static const char *const name = "warp reduce";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    pt_shape s;
    pt_reduce r = {0};
    struct hk_buf b;
    char *head = NULL, *accum = NULL, *combine = NULL, *vec = NULL;
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *why = NULL;
    bool tree = false;
    if ((rc = lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG)
            rc = not_applicable(out, name, f, "the body is far larger than a reduction");
        goto out;
    }
    if ((why = read_shape(&ts, &s))) {
        const char *shape_why = why;
        reduce_free(&r);
        memset(&r, 0, sizeof r);
        why = match_tree_reduce(f, &ts, &s, &r);
        if (why && f->n_shared == 0)
            why = shape_why;
        tree = !why;
    } else {
        why = match_atomic_reduce(f, &ts, &s, &r);
    }
    if (why)
        goto na;
    char t[PT_EXPR];
    pointee_type(r.target, t, sizeof t);
    const char *ty = scalar_type(t), *ident = ty ? reduce_identity(r.op, ty) : NULL;
    if (!ty || !ident) {
        why = "the accumulator type is not float, double, int, unsigned, long long or "
              "unsigned long long";
        goto na;
    }
    const char *first = NULL;
    bool vec_nomem = false;
    vec = reduce_vec_loop(f, &r, ty, &first, &vec_nomem);
    if (vec_nomem || !(head = grid_stride_head(r.ix, "hk_blocks", first)))
        goto nomem;
    if (r.op == PT_SUM) {
        accum = hk_asprintf("%s%s%shk_acc += (%s)(%s);", r.cond ? "if (" : "", r.cond ? r.cond : "",
                            r.cond ? ") " : "", ty, r.expr);
        combine = hk_strdup("hk_acc += hk_o");
    } else {
        const char *cmp = r.op == PT_MAX ? ">" : "<";
        accum = hk_asprintf("%s%s%s{ const %s hk_v = (%s)(%s); if (hk_v %s hk_acc) hk_acc = hk_v; }",
                            r.cond ? "if (" : "", r.cond ? r.cond : "", r.cond ? ") " : "", ty, ty,
                            r.expr, cmp);
        combine = hk_asprintf("hk_acc = (hk_o %s hk_acc) ? hk_o : hk_acc", cmp);
    }
    if (!accum || !combine)
        goto nomem;
    const char *kv[] = {"MAXBLOCKS", "1024", "T", ty, "IDENT", ident, "VEC", vec ? vec : "", "HEAD", head,
                        "ACCUM", accum, "COMBINE", combine, "ATOMIC", r.atomic, "TARGET", r.target_text, NULL};
    if ((rc = rwl_render(&b, tpl_reduce, kv)))
        goto out;
    char *desc = hk_asprintf("kernel %s: %s reduction (%s) -> grid-stride register accumulation%s, "
                             "__shfl_down_sync warp reduction, one shared slot per warp, one %s "
                             "per block",
                             f->name, ty, tree ? "shared-memory tree" : "per-thread atomics",
                             vec ? " (float4 loads when aligned)" : "", r.atomic);
    rc = replace_body(text, len, m, f, b.data, desc, out);
    goto out;
nomem:
    rc = HK_ENOMEM;
    goto out;
na:
    rc = not_applicable(out, name, f, why);
out:
    reduce_free(&r);
    hk_free(vec);
    hk_free(head);
    hk_free(accum);
    hk_free(combine);
    hk_buf_free(&b);
    rwl_toks_free(&ts);
    return rc;
}

/* ------------------------------------------------------------------ privatized histogram */

/* Shared memory the private histogram may take: leaves room for other blocks on the SM. */
#define PT_HIST_SHARED_MAX 32768

static const char tpl_hist[] =
    "{\n"
    "    // hk rewrite: privatized histogram. Each block counts into shared memory, then adds\n"
    "    // its non-zero bins to the global histogram (one atomic per bin per block). A bin\n"
    "    // outside [0, HK_BINS) goes to global memory directly.\n"
    PT_MAX_BLOCKS
    "    constexpr int HK_BINS = $BINS;\n"
    "    __shared__ $T hk_hist[HK_BINS];\n"
    PT_THREADS
    "    for (unsigned int hk_b = hk_tid; hk_b < HK_BINS; hk_b += hk_nthreads)\n"
    "        hk_hist[hk_b] = 0;\n"
    "    __syncthreads();\n"
    "    // several loads in flight per thread: the loop is latency-bound otherwise\n"
    "    #pragma unroll 4\n"
    "    $HEAD\n"
    "        const long long hk_bin = (long long)($BIN);\n"
    "        if (hk_bin >= 0 && hk_bin < HK_BINS)\n"
    "            atomicAdd(&hk_hist[hk_bin], ($T)($VAL));\n"
    "        else\n"
    "            atomicAdd(&$H[hk_bin], ($T)($VAL));\n"
    "    }\n"
    "    __syncthreads();\n"
    "    for (unsigned int hk_b = hk_tid; hk_b < HK_BINS; hk_b += hk_nthreads)\n"
    "        if (hk_hist[hk_b] != ($T)0)\n"
    "            atomicAdd(&$H[hk_b], hk_hist[hk_b]);\n"
    "}";

/* Infers a bin count from the bin expression [a, b), or 0. */
static long infer_bins(const an_model *m, const an_function *f, const rw_toks *ts, size_t a, size_t b)
{
    /* ARR[...] with an 8-bit unsigned element type */
    if (b > a + 2) {
        const an_param *p = param_named(f, ts, a);
        if (p && p->pointer_depth == 1 && rwl_tok_is(ts, a + 1, "[") && rwl_match_close(ts, a + 1) == b - 1) {
            char t[PT_EXPR];
            pointee_type(p, t, sizeof t);
            if (strcmp(t, "unsigned char") == 0 || strcmp(t, "uint8_t") == 0 ||
                strcmp(t, "unsigned __int8") == 0)
                return 256;
        }
    }
    /* ... % K at the top level, K a literal or a constant */
    if (b >= a + 3 && rwl_tok_is(ts, b - 2, "%")) {
        int depth = 0;
        for (size_t k = a; k < b - 2; k++) {
            if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "["))
                depth++;
            else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]"))
                depth--;
            else if (depth == 0 && (rwl_tok_is(ts, k, "+") || rwl_tok_is(ts, k, "-") || rwl_tok_is(ts, k, "?")))
                return 0;   /* `x + y % K` binds as x + (y % K) */
        }
        char v[PT_EXPR];
        tok_copy(ts, b - 1, v, sizeof v);
        const char *num = NULL;
        if (ts->t[b - 1].kind == T_NUMBER) {
            num = v;
        } else {
            for (size_t i = 0; i < m->n_tunables; i++)
                if (strcmp(m->tunables[i].name, v) == 0 && m->tunables[i].kind != AN_TUNE_TEMPLATE &&
                    m->tunables[i].value)
                    num = m->tunables[i].value;
        }
        if (num) {
            char *endp;
            long k = strtol(num, &endp, 0);
            while (*endp == 'u' || *endp == 'U' || *endp == 'l' || *endp == 'L')
                endp++;
            if (*endp == '\0' && k > 0)
                return k;
        }
    }
    return 0;
}

/* true for the 8-bit element types whose value rwp_hist.bytes promises (the bin is the
 * element's value, signed or not, as the compiler converts it). */
static bool byte_type(const char *t)
{
    static const char *const names[] = {"unsigned char", "uint8_t", "unsigned __int8", "char",
                                        "signed char", "int8_t"};
    for (size_t i = 0; i < HK_ARRAY_LEN(names); i++)
        if (strcmp(t, names[i]) == 0)
            return true;
    return false;
}

/* Copies s into out (size bytes); false when it does not fit. */
static bool copy_fits(char *out, size_t size, const char *s)
{
    size_t l = strlen(s);
    if (l >= size)
        return false;
    memcpy(out, s, l + 1);
    return true;
}

int rwp_match_histogram(const char *text, size_t len, const an_model *m, size_t kernel, int bins,
                        rwp_hist *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    if (why && why_size)
        why[0] = '\0';
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (!why || why_size == 0 || bins < 0 || bins > PT_HIST_SHARED_MAX)
        return HK_EINVAL;
    rw_toks ts = {0};
    pt_shape s;
    char *bin = NULL, *val = NULL;
    const char *w = NULL;
    if ((rc = lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG) {
            rc = HK_OK;
            w = "the body is far larger than a histogram";
        }
        goto out;
    }
    if ((w = read_shape(&ts, &s)))
        goto out;
    if (s.n_idx != 1 || s.idx[0].axis != 'x') {
        w = "the kernel does not have one 1D index over x";
        goto out;
    }
    if (s.pre_b > s.pre_a) {
        w = "statements besides the index declaration come before the bounds check";
        goto out;
    }
    size_t a = s.body_a, e = s.body_b;
    if (rwl_tok_is(&ts, a, "{") && rwl_match_close(&ts, a) == e - 1) {
        a++;
        e--;
    }
    size_t a0, b0, a1, b1, ka, kb;
    const an_param *h = NULL;
    if (!rwl_tok_is(&ts, a, "atomicAdd") || !call2(&ts, a, e, &a0, &b0, &a1, &b1)) {
        w = "the guarded statement is not one atomicAdd(&hist[bin], value)";
        goto out;
    }
    if (!(h = atomic_target(f, &ts, a0, b0, &ka, &kb)) || kb <= ka) {
        w = "the atomic's target is not `&hist[bin]` or `hist + bin` with hist a pointer parameter";
        goto out;
    }
    if (!mentions(&ts, ka, kb, s.idx[0].name)) {
        w = "the bin does not depend on the index: a reduction, not a histogram";
        goto out;
    }
    for (size_t k = ka; k < kb; k++)
        if (tok_ident(&ts, k) && !param_named(f, &ts, k) && !rwl_tok_is(&ts, k, s.idx[0].name) &&
            !(k > 0 && rwl_tok_is(&ts, k - 1, ".")) && !(k + 1 < kb && rwl_tok_is(&ts, k + 1, "(")) &&
            !pt_is_type_word(&ts, k)) {
            bool tunable = false;
            for (size_t i = 0; i < m->n_tunables && !tunable; i++)
                tunable = rwl_tok_is(&ts, k, m->tunables[i].name);
            if (!tunable) {
                w = "the bin expression uses a local variable";
                goto out;
            }
        }
    if (has_side_effects(&ts, a1, b1) || mentions(&ts, a1, b1, h->name)) {
        w = "the added value has side effects or reads the histogram";
        goto out;
    }
    char t[PT_EXPR];
    pointee_type(h, t, sizeof t);
    const char *ty = scalar_type(t);
    if (!ty) {
        w = "the counter type is not unsigned int, int, unsigned long long, float or double";
        goto out;
    }
    if (!(bin = rwl_tok_text(&ts, ka, kb)) || !(val = rwl_tok_text(&ts, a1, b1))) {
        rc = HK_ENOMEM;
        goto out;
    }
    const char *it = s.idx[0].type;
    if (strncmp(it, "const ", 6) == 0)
        it += 6;
    if (!copy_fits(out->bin, sizeof out->bin, bin) || !copy_fits(out->value, sizeof out->value, val) ||
        !copy_fits(out->index, sizeof out->index, s.idx[0].name) ||
        !copy_fits(out->index_type, sizeof out->index_type, it) ||
        !copy_fits(out->bound, sizeof out->bound, s.idx[0].bound)) {
        w = "the bin, value or bound expression is too long";
        goto out;
    }
    snprintf(out->type, sizeof out->type, "%s", ty);
    out->hist = h;
    long nb = bins ? bins : infer_bins(m, f, &ts, ka, kb);
    out->guessed = nb == 0;
    out->given = bins != 0;
    out->bins = nb ? nb : 256;
    /* the byte path: the bin is exactly P[index], P a pointer to an 8-bit type */
    if (kb == ka + 4 && rwl_tok_is(&ts, ka + 1, "[") && rwl_tok_is(&ts, ka + 2, s.idx[0].name) &&
        rwl_tok_is(&ts, ka + 3, "]")) {
        const an_param *p = param_named(f, &ts, ka);
        if (p && p->pointer_depth == 1) {
            char bt[PT_EXPR];
            pointee_type(p, bt, sizeof bt);
            if (byte_type(bt)) {
                out->bytes = p;
                snprintf(out->byte_type, sizeof out->byte_type, "%s", bt);
            }
        }
    }
out:
    if (w && rc == HK_OK) {
        snprintf(why, why_size, "%s", w);
        out->hist = out->bytes = NULL;
    }
    hk_free(bin);
    hk_free(val);
    rwl_toks_free(&ts);
    return rc;
}

int rw_privatized_histogram(const char *text, size_t len, const an_model *m, size_t kernel,
                            int bins, rw_result *out)
{
    static const char *const name = "privatized histogram";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (bins < 0 || bins > PT_HIST_SHARED_MAX)
        return HK_EINVAL;
    rwp_hist g;
    char reason[256];
    struct hk_buf b;
    char *head = NULL;
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *why = NULL;
    if ((rc = rwp_match_histogram(text, len, m, kernel, bins, &g, reason, sizeof reason)))
        goto out;
    if (reason[0]) {
        why = reason;
        goto na;
    }
    if (strcmp(g.type, "long long") == 0) {
        why = "the counter type is not unsigned int, int, unsigned long long, float or double";
        goto na;
    }
    long nb = g.bins;
    size_t esize = strcmp(g.type, "double") == 0 || strcmp(g.type, "unsigned long long") == 0 ? 8 : 4;
    if ((size_t)nb * esize > PT_HIST_SHARED_MAX) {
        why = "the bin count does not fit the shared-memory budget (32 KiB)";
        goto na;
    }
    char nbs[32];
    snprintf(nbs, sizeof nbs, "%ld", nb);
    pt_index ix;
    memset(&ix, 0, sizeof ix);
    if (!copy_fits(ix.name, sizeof ix.name, g.index) || !copy_fits(ix.type, sizeof ix.type, g.index_type) ||
        !copy_fits(ix.bound, sizeof ix.bound, g.bound)) {
        why = "the index or bound expression is too long";   /* cannot happen: they came from a pt_index */
        goto na;
    }
    if (!(head = grid_stride_head(&ix, "hk_blocks", NULL)))
        goto nomem;
    const char *kv[] = {"MAXBLOCKS", "1024", "BINS", nbs, "T", g.type, "HEAD", head, "BIN", g.bin, "VAL", g.value,
                        "H", g.hist->name, NULL};
    if ((rc = rwl_render(&b, tpl_hist, kv)))
        goto out;
    char *desc = hk_asprintf("kernel %s: privatized histogram of %s, %ld shared %s counters per block "
                             "(HK_BINS, %s), one atomic per bin per block, grid-stride over %s",
                             f->name, g.hist->name, nb, g.type,
                             g.given ? "given" : g.guessed ? "a guess: other bins go to global memory" : "inferred",
                             g.index);
    rc = replace_body(text, len, m, f, b.data, desc, out);
    goto out;
nomem:
    rc = HK_ENOMEM;
    goto out;
na:
    rc = not_applicable(out, name, f, why);
out:
    hk_free(head);
    hk_buf_free(&b);
    return rc;
}

/* ------------------------------------------------------------------ row-wise kernels */

/* A one-thread-per-row kernel read statement by statement: row pointers (`x = in + r * cols`),
 * scalar locals, column loops `for (int c = 0; c < COLS; c++) ONE_STATEMENT`, and scalar
 * updates between them. Statements are compared in a canonical text: element reads of the
 * input become X, element writes of the output Y, the column variable c, the column count
 * N, named locals their role letter, other per-column vectors @name; casts and spaces go. */

#define PT_ROW_STMTS 16
#define PT_ROW_NAMES 24

typedef struct {
    char name[PT_NAME];
    char canon[PT_NAME];
} pt_name;

typedef struct {
    const an_function *f;
    const rw_toks *ts;
    const pt_index *row;           /* the row index */
    char cols[PT_EXPR];            /* column bound as written */
    char cols_c[PT_EXPR];          /* its compact form */
    const an_param *in, *out;
    pt_name names[PT_ROW_NAMES];   /* aliases and role names */
    size_t n_names;
    /* statements of the row body in order: kind 'l' loop (body range), 'd' scalar
     * declaration, 'u' other statement */
    struct {
        char kind;
        size_t a, b;               /* whole statement */
        size_t ba, bb;             /* loop body */
        char var[PT_NAME];         /* loop variable */
    } st[PT_ROW_STMTS];
    size_t n_st;
} pt_rows;

static const char *rows_lookup(const pt_rows *rw, const rw_toks *ts, size_t k)
{
    for (size_t i = 0; i < rw->n_names; i++)
        if (rwl_tok_is(ts, k, rw->names[i].name))
            return rw->names[i].canon;
    return NULL;
}

static bool rows_name(pt_rows *rw, const char *name, const char *canon)
{
    if (rw->n_names >= PT_ROW_NAMES)
        return false;
    snprintf(rw->names[rw->n_names].name, PT_NAME, "%s", name);
    snprintf(rw->names[rw->n_names].canon, PT_NAME, "%s", canon);
    rw->n_names++;
    return true;
}

/* Appends s to out[*n] (bounded). */
static void put(char *out, size_t size, size_t *n, const char *s, size_t l)
{
    if (*n + l + 1 >= size) {
        *n = size;   /* overflow: the canonical text cannot match anything */
        return;
    }
    memcpy(out + *n, s, l);
    *n += l;
    out[*n] = '\0';
}

/* The canonical text of tokens [a, b) with loop variable var (see above). */
static void rows_canon(const pt_rows *rw, size_t a, size_t b, const char *var, char *out, size_t size)
{
    const rw_toks *ts = rw->ts;
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = a; k < b && n < size; k++) {
        if (rwl_tok_is(ts, k, "(")) {
            size_t j = k + 1;
            while (j < b && (pt_is_type_word(ts, j) || rwl_tok_is(ts, j, "const")))
                j++;
            if (j > k + 1 && rwl_tok_is(ts, j, ")")) {
                k = j;   /* cast */
                continue;
            }
        }
        if (tok_ident(ts, k) && rwl_tok_is(ts, k + 1, "[")) {
            size_t c = rwl_match_close(ts, k + 1);
            const char *alias = rows_lookup(rw, ts, k);
            const an_param *p = param_named(rw->f, ts, k);
            char inner[PT_EXPR];
            compact(ts, k + 2, c, inner, sizeof inner);
            const char *role = NULL;
            char at[PT_NAME + 1];
            if (c < b && alias && (strcmp(alias, "X") == 0 || strcmp(alias, "Y") == 0) &&
                strcmp(inner, var) == 0)
                role = alias;
            else if (c < b && p && (p == rw->in || p == rw->out) &&
                     is_rowmajor(inner, rw->row->name, rw->cols_c, var))
                role = p == rw->in ? "X" : "Y";
            else if (c < b && p && p->pointer_depth == 1 && strcmp(inner, var) == 0) {
                snprintf(at, sizeof at, "@%s", p->name);
                role = at;
            }
            if (role) {
                put(out, size, &n, role, strlen(role));
                k = c;
                continue;
            }
        }
        const char *t = ts->text + ts->t[k].start;
        size_t l = ts->t[k].end - ts->t[k].start;
        const char *canon = rows_lookup(rw, ts, k);
        if (tok_ident(ts, k) && rwl_tok_is(ts, k, var))
            put(out, size, &n, "c", 1);
        else if (tok_ident(ts, k) && strcmp(rw->cols_c, "") != 0 && rwl_tok_is(ts, k, rw->cols_c))
            put(out, size, &n, "N", 1);
        else if (tok_ident(ts, k) && canon)
            put(out, size, &n, canon, strlen(canon));
        else
            put(out, size, &n, t, l);
    }
    if (n >= size)
        out[0] = '\0';
}

/* Reads the row body [a, b) of a one-thread-per-row kernel. NULL or why not. */
static const char *read_rows(pt_rows *rw, const pt_shape *s)
{
    const rw_toks *ts = rw->ts;
    const an_function *f = rw->f;
    if (s->n_idx != 1 || s->idx[0].axis != 'x')
        return "the kernel does not have one 1D row index over x";
    if (s->pre_b > s->pre_a)
        return "statements besides the index declaration come before the bounds check";
    rw->row = &s->idx[0];
    size_t k = s->body_a;
    while (k < s->body_b) {
        size_t e = rwl_stmt_end(ts, k, s->body_b);
        if (rw->n_st >= PT_ROW_STMTS)
            return "the row body has more statements than the pattern";
        size_t i = rw->n_st++;
        rw->st[i].a = k;
        rw->st[i].b = e;
        if (rwl_tok_is(ts, k, "for")) {
            /* for (int c = 0; c < COLS; c++) */
            size_t c = rwl_match_close(ts, k + 1), q = k + 2;
            while (q < c && pt_is_type_word(ts, q))
                q++;
            char var[PT_NAME];
            tok_copy(ts, q, var, sizeof var);
            if (c >= e || q == k + 2 || !tok_ident(ts, q) || !rwl_tok_is(ts, q + 1, "=") ||
                !rwl_tok_is(ts, q + 2, "0") || !rwl_tok_is(ts, q + 3, ";") || !rwl_tok_is(ts, q + 4, var) ||
                !rwl_tok_is(ts, q + 5, "<"))
                return "a loop is not `for (int c = 0; c < cols; c++)`";
            size_t semi = q + 6;
            while (semi < c && !rwl_tok_is(ts, semi, ";"))
                semi++;
            char bound[PT_EXPR], step[PT_EXPR], want1[PT_NAME + 4], want2[PT_NAME + 4], want3[PT_NAME + 8];
            compact(ts, q + 6, semi, bound, sizeof bound);
            compact(ts, semi + 1, c, step, sizeof step);
            snprintf(want1, sizeof want1, "%s++", var);
            snprintf(want2, sizeof want2, "++%s", var);
            snprintf(want3, sizeof want3, "%s+=1", var);
            if (semi >= c || (strcmp(step, want1) != 0 && strcmp(step, want2) != 0 && strcmp(step, want3) != 0))
                return "a loop does not step its column by one";
            if (!*rw->cols_c) {
                char *bt = rwl_tok_text(ts, q + 6, semi);
                if (!bt)
                    return "out of memory";
                snprintf(rw->cols, sizeof rw->cols, "%s", bt);
                hk_free(bt);
                snprintf(rw->cols_c, sizeof rw->cols_c, "%s", bound);
            } else if (strcmp(rw->cols_c, bound) != 0) {
                return "the column loops have different bounds";
            }
            size_t ba = c + 1, bb = e;
            if (rwl_tok_is(ts, ba, "{") && rwl_match_close(ts, ba) == bb - 1) {
                ba++;
                bb--;
            }
            rw->st[i].kind = 'l';
            rw->st[i].ba = ba;
            rw->st[i].bb = bb;
            snprintf(rw->st[i].var, sizeof rw->st[i].var, "%s", var);
            for (size_t j = ba; j < bb; j++)
                if (rwl_tok_is(ts, j, "for") || rwl_tok_is(ts, j, "while") || rwl_tok_is(ts, j, "return") ||
                    rwl_tok_is(ts, j, "__syncthreads"))
                    return "a column loop holds a nested loop, a return or a barrier";
        } else if (rwl_tok_is(ts, e - 1, ";") && (rwl_tok_is(ts, k, "const") || pt_is_type_word(ts, k))) {
            rw->st[i].kind = 'd';
        } else {
            rw->st[i].kind = 'u';
        }
        k = e;
    }
    if (!*rw->cols_c)
        return "no column loop";
    /* row pointers: [const] float *x = P + r * cols; (or &P[r * cols]) */
    for (size_t i = 0; i < rw->n_st; i++) {
        size_t a = rw->st[i].a, b = rw->st[i].b;
        if (rw->st[i].kind != 'd')
            continue;
        size_t q = a;
        while (q < b && (rwl_tok_is(ts, q, "const") || pt_is_type_word(ts, q)))
            q++;
        if (!rwl_tok_is(ts, q, "*"))
            continue;
        const an_param *p = NULL;
        char c[PT_EXPR], want[4][3 * PT_EXPR];
        if (tok_ident(ts, q + 1) && rwl_tok_is(ts, q + 2, "=")) {
            compact(ts, q + 3, b - 1, c, sizeof c);
            for (size_t j = 0; j < f->n_params && !p; j++) {
                const an_param *pp = &f->params[j];
                if (pp->pointer_depth != 1 || !pp->name)
                    continue;
                snprintf(want[0], sizeof want[0], "%s+%s*%s", pp->name, rw->row->name, rw->cols_c);
                snprintf(want[1], sizeof want[1], "%s+%s*%s", pp->name, rw->cols_c, rw->row->name);
                snprintf(want[2], sizeof want[2], "&%s[%s*%s]", pp->name, rw->row->name, rw->cols_c);
                snprintf(want[3], sizeof want[3], "&%s[%s*%s]", pp->name, rw->cols_c, rw->row->name);
                for (int w = 0; w < 4; w++)
                    if (strcmp(c, want[w]) == 0)
                        p = pp;
            }
        }
        if (!p)
            return "a pointer declared in the row body is not `param + row * cols`";
        char nm[PT_NAME];
        tok_copy(ts, q + 1, nm, sizeof nm);
        /* which role it has is decided below, once input and output are known */
        if (!rows_name(rw, nm, p->name))
            return "too many names";
        rw->st[i].kind = 'p';
    }
    /* the output: the pointer written in the last loop; the input: read in the first */
    size_t last = rw->n_st, first = rw->n_st;
    for (size_t i = 0; i < rw->n_st; i++)
        if (rw->st[i].kind == 'l') {
            if (first == rw->n_st)
                first = i;
            last = i;
        }
    size_t wa = rw->st[last].ba;
    char base[PT_NAME];
    tok_copy(ts, wa, base, sizeof base);
    const char *aliased = rows_lookup(rw, ts, wa);
    rw->out = param_by_name(f, aliased ? aliased : base);
    if (!rw->out || !rwl_tok_is(ts, wa + 1, "["))
        return "the last column loop does not write an element of a pointer parameter";
    for (size_t j = rw->st[first].ba; j < rw->st[first].bb && !rw->in; j++) {
        if (!tok_ident(ts, j) || !rwl_tok_is(ts, j + 1, "["))
            continue;
        char nm[PT_NAME];
        tok_copy(ts, j, nm, sizeof nm);
        const char *al = rows_lookup(rw, ts, j);
        const an_param *p = param_by_name(f, al ? al : nm);
        if (p && p != rw->out)
            rw->in = p;
    }
    if (!rw->in)
        return "the first column loop does not read an input row";
    /* aliases of in/out become X/Y; other aliases make the pattern unknown */
    for (size_t i = 0; i < rw->n_names; i++) {
        if (strcmp(rw->names[i].canon, rw->in->name) == 0)
            snprintf(rw->names[i].canon, PT_NAME, "X");
        else if (strcmp(rw->names[i].canon, rw->out->name) == 0)
            snprintf(rw->names[i].canon, PT_NAME, "Y");
        else
            return "a row pointer into a third matrix";
    }
    char t[PT_EXPR];
    pointee_type(rw->in, t, sizeof t);
    if (strcmp(t, "float") != 0)
        return "the input is not float";
    pointee_type(rw->out, t, sizeof t);
    if (strcmp(t, "float") != 0)
        return "the output is not float";
    return NULL;
}

/* Declares the scalar local of statement i (a `float NAME = INIT;`) under canon; returns its
 * canonical init text in init. false when it is not such a declaration. */
static bool rows_decl(pt_rows *rw, size_t i, const char *canon, char *init, size_t size)
{
    const rw_toks *ts = rw->ts;
    size_t a = rw->st[i].a, b = rw->st[i].b;
    if (rw->st[i].kind != 'd' || !rwl_tok_is(ts, a, "float") || !tok_ident(ts, a + 1) || !rwl_tok_is(ts, a + 2, "="))
        return false;
    char nm[PT_NAME];
    tok_copy(ts, a + 1, nm, sizeof nm);
    if (!rows_name(rw, nm, canon))
        return false;
    rows_canon(rw, a + 3, b - 1, "", init, size);
    return true;
}

/* The canonical text of loop statement i (its body), or of any statement i. */
static void rows_stmt(const pt_rows *rw, size_t i, char *out, size_t size)
{
    if (rw->st[i].kind == 'l')
        rows_canon(rw, rw->st[i].ba, rw->st[i].bb, rw->st[i].var, out, size);
    else
        rows_canon(rw, rw->st[i].a, rw->st[i].b, "", out, size);
}

static bool one_of(const char *s, const char *const *set)
{
    for (size_t i = 0; set[i]; i++)
        if (strcmp(s, set[i]) == 0)
            return true;
    return false;
}

/* The row's max (hk_m) and sum (hk_s) across the lanes of a warp, then broadcast from lane 0
 * to all of them; ind is the indentation of the emitted lines. */
#define PT_WARP_MAX(ind)                                                                     \
    ind "for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n"                       \
    ind "    const float hk_o = __shfl_down_sync(hk_mask, hk_m, hk_off);\n"                   \
    ind "    if (hk_lane + hk_off < hk_width)\n"                                              \
    ind "        hk_m = fmaxf(hk_m, hk_o);\n"                                                 \
    ind "}\n"                                                                                 \
    ind "hk_m = __shfl_sync(hk_mask, hk_m, 0, 32);\n"
#define PT_WARP_SUM(ind)                                                                     \
    ind "for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n"                       \
    ind "    const float hk_o = __shfl_down_sync(hk_mask, hk_s, hk_off);\n"                   \
    ind "    if (hk_lane + hk_off < hk_width)\n"                                              \
    ind "        hk_s += hk_o;\n"                                                             \
    ind "}\n"                                                                                 \
    ind "hk_s = __shfl_sync(hk_mask, hk_s, 0, 32);\n"

static const char tpl_softmax[] =
    "{\n"
    "    // hk rewrite: one warp per row (rows grid-strided over the warps). A row that fits in\n"
    "    // HK_ROW_VEC float4 per lane is read once into registers: its max, its sum of exp and\n"
    "    // the output all come from there. A longer or unaligned row takes three passes (max,\n"
    "    // sum of exp, write); their re-reads of the row just read hit L2. Each pass has\n"
    "    // independent iterations, so loads and exps overlap (an online max/sum would chain\n"
    "    // every exp behind the previous one).\n"
    PT_THREADS
    PT_WARP
    "    constexpr int HK_ROW_VEC = 8;\n"
    "    const float hk_ninf = -__int_as_float(0x7f800000);\n"
    "    const long long hk_cols = ($COLS);\n"
    "    for (long long hk_row = (long long)blockIdx.x * hk_nwarps + hk_warp; hk_row < ($ROWS);\n"
    "         hk_row += (long long)gridDim.x * hk_nwarps) {\n"
    "        const float *hk_x = $IN + hk_row * hk_cols;\n"
    "        float *hk_y = $OUT + hk_row * hk_cols;\n"
    "        const bool hk_vec = (hk_cols & 3) == 0 &&\n"
    "            ((reinterpret_cast<unsigned long long>(hk_x) | reinterpret_cast<unsigned long long>(hk_y)) & 15) == 0;\n"
    "        float hk_m = hk_ninf, hk_s = 0.0f;\n"
    "        if (hk_vec && hk_cols / 4 <= (long long)hk_width * HK_ROW_VEC) {\n"
    "            float4 hk_r[HK_ROW_VEC];\n"
    "            #pragma unroll\n"
    "            for (int hk_k = 0; hk_k < HK_ROW_VEC; hk_k++) {\n"
    "                const long long hk_c = hk_lane + (long long)hk_k * hk_width;\n"
    "                if (hk_c < hk_cols / 4) {\n"
    "                    hk_r[hk_k] = reinterpret_cast<const float4 *>(hk_x)[hk_c];\n"
    "                    hk_m = fmaxf(hk_m, fmaxf(fmaxf(hk_r[hk_k].x, hk_r[hk_k].y), fmaxf(hk_r[hk_k].z, hk_r[hk_k].w)));\n"
    "                }\n"
    "            }\n"
    PT_WARP_MAX("            ")
    "            #pragma unroll\n"
    "            for (int hk_k = 0; hk_k < HK_ROW_VEC; hk_k++) {\n"
    "                if (hk_lane + (long long)hk_k * hk_width < hk_cols / 4) {\n"
    "                    hk_r[hk_k].x = $EXP(hk_r[hk_k].x - hk_m);\n"
    "                    hk_r[hk_k].y = $EXP(hk_r[hk_k].y - hk_m);\n"
    "                    hk_r[hk_k].z = $EXP(hk_r[hk_k].z - hk_m);\n"
    "                    hk_r[hk_k].w = $EXP(hk_r[hk_k].w - hk_m);\n"
    "                    hk_s += (hk_r[hk_k].x + hk_r[hk_k].y) + (hk_r[hk_k].z + hk_r[hk_k].w);\n"
    "                }\n"
    "            }\n"
    PT_WARP_SUM("            ")
    "            const float hk_inv = 1.0f / hk_s;\n"
    "            #pragma unroll\n"
    "            for (int hk_k = 0; hk_k < HK_ROW_VEC; hk_k++) {\n"
    "                const long long hk_c = hk_lane + (long long)hk_k * hk_width;\n"
    "                if (hk_c < hk_cols / 4) {\n"
    "                    float4 hk_q = hk_r[hk_k];\n"
    "                    hk_q.x *= hk_inv;\n"
    "                    hk_q.y *= hk_inv;\n"
    "                    hk_q.z *= hk_inv;\n"
    "                    hk_q.w *= hk_inv;\n"
    "                    reinterpret_cast<float4 *>(hk_y)[hk_c] = hk_q;\n"
    "                }\n"
    "            }\n"
    "            continue;\n"
    "        }\n"
    "        if (hk_vec) {\n"
    "            #pragma unroll 4\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols / 4; hk_c += hk_width) {\n"
    "                const float4 hk_q = reinterpret_cast<const float4 *>(hk_x)[hk_c];\n"
    "                hk_m = fmaxf(hk_m, fmaxf(fmaxf(hk_q.x, hk_q.y), fmaxf(hk_q.z, hk_q.w)));\n"
    "            }\n"
    "        } else {\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols; hk_c += hk_width)\n"
    "                hk_m = fmaxf(hk_m, hk_x[hk_c]);\n"
    "        }\n"
    PT_WARP_MAX("        ")
    "        if (hk_vec) {\n"
    "            #pragma unroll 4\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols / 4; hk_c += hk_width) {\n"
    "                const float4 hk_q = reinterpret_cast<const float4 *>(hk_x)[hk_c];\n"
    "                hk_s += ($EXP(hk_q.x - hk_m) + $EXP(hk_q.y - hk_m)) + ($EXP(hk_q.z - hk_m) + $EXP(hk_q.w - hk_m));\n"
    "            }\n"
    "        } else {\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols; hk_c += hk_width)\n"
    "                hk_s += $EXP(hk_x[hk_c] - hk_m);\n"
    "        }\n"
    PT_WARP_SUM("        ")
    "        const float hk_inv = 1.0f / hk_s;\n"
    "        if (hk_vec) {\n"
    "            #pragma unroll 4\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols / 4; hk_c += hk_width) {\n"
    "                float4 hk_q = reinterpret_cast<const float4 *>(hk_x)[hk_c];\n"
    "                hk_q.x = $EXP(hk_q.x - hk_m) * hk_inv;\n"
    "                hk_q.y = $EXP(hk_q.y - hk_m) * hk_inv;\n"
    "                hk_q.z = $EXP(hk_q.z - hk_m) * hk_inv;\n"
    "                hk_q.w = $EXP(hk_q.w - hk_m) * hk_inv;\n"
    "                reinterpret_cast<float4 *>(hk_y)[hk_c] = hk_q;\n"
    "            }\n"
    "        } else {\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols; hk_c += hk_width)\n"
    "                hk_y[hk_c] = $EXP(hk_x[hk_c] - hk_m) * hk_inv;\n"
    "        }\n"
    "    }\n"
    "}";

int rw_online_softmax(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    static const char *const name = "online softmax";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    pt_shape s;
    pt_rows rw;
    struct hk_buf b;
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *why = NULL, *expf_name = "expf";
    if ((rc = lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG)
            rc = not_applicable(out, name, f, "the body is far larger than a softmax");
        goto out;
    }
    if ((why = read_shape(&ts, &s)))
        goto na;
    memset(&rw, 0, sizeof rw);
    rw.f = f;
    rw.ts = &ts;
    if ((why = read_rows(&rw, &s)))
        goto na;
    /* float m = <-inf>; loop max; float s = 0; loop sum; [float inv = 1 / s;] loop write */
    static const char *const ninf[] = {"-INFINITY", "-FLT_MAX", "-1e30f", "-1e38f", "-3.402823466e+38f",
                                       "-HUGE_VALF", "-__int_as_float(0x7f800000)", NULL};
    static const char *const zero[] = {"0.0f", "0.f", "0", "0.0", NULL};
    static const char *const lmax[] = {"m=fmaxf(m,X);", "m=fmaxf(X,m);", "m=max(m,X);", "m=max(X,m);",
                                       "m=fmax(m,X);", "m=fmax(X,m);", "if(X>m)m=X;", "if(m<X)m=X;",
                                       "m=X>m?X:m;", "m=(X>m)?X:m;", NULL};
    static const char *const lsum[] = {"s+=expf(X-m);", "s+=__expf(X-m);", "s+=exp(X-m);", "s=s+expf(X-m);",
                                       "s=s+__expf(X-m);", "s=s+exp(X-m);", NULL};
    static const char *const lout[] = {"Y=expf(X-m)/s;", "Y=__expf(X-m)/s;", "Y=exp(X-m)/s;",
                                       "Y=expf(X-m)*i;", "Y=__expf(X-m)*i;", "Y=exp(X-m)*i;",
                                       "Y=expf(X-m)*(1.0f/s);", NULL};
    static const char *const linv[] = {"1.0f/s", "1.f/s", "1/s", NULL};
    size_t i = 0;
    char c[PT_EXPR];
    while (i < rw.n_st && rw.st[i].kind == 'p')
        i++;
    if (i >= rw.n_st || !rows_decl(&rw, i, "m", c, sizeof c) || !one_of(c, ninf)) {
        why = "the row body does not start with a running maximum `float m = -INFINITY;`";
        goto na;
    }
    i++;
    char st[PT_EXPR];
    if (i >= rw.n_st || rw.st[i].kind != 'l' || (rows_stmt(&rw, i, st, sizeof st), !one_of(st, lmax))) {
        why = "the first column loop is not a maximum `m = fmaxf(m, x[c])`";
        goto na;
    }
    i++;
    if (i >= rw.n_st || !rows_decl(&rw, i, "s", c, sizeof c) || !one_of(c, zero)) {
        why = "no sum `float s = 0.0f;` after the maximum";
        goto na;
    }
    i++;
    if (i >= rw.n_st || rw.st[i].kind != 'l' || (rows_stmt(&rw, i, st, sizeof st), !one_of(st, lsum))) {
        why = "the second column loop is not a sum `s += expf(x[c] - m)`";
        goto na;
    }
    if (strstr(st, "__expf"))
        expf_name = "__expf";
    i++;
    if (i < rw.n_st && rw.st[i].kind == 'd') {
        if (!rows_decl(&rw, i, "i", c, sizeof c) || !one_of(c, linv)) {
            why = "a declaration other than `float inv = 1.0f / s;` before the write loop";
            goto na;
        }
        i++;
    }
    if (i + 1 != rw.n_st || rw.st[i].kind != 'l' || (rows_stmt(&rw, i, st, sizeof st), !one_of(st, lout))) {
        why = "the last statement is not the write loop `y[c] = expf(x[c] - m) / s`";
        goto na;
    }
    const char *kv[] = {"COLS", rw.cols, "ROWS", rw.row->bound, "IN", rw.in->name, "OUT", rw.out->name,
                        "EXP", expf_name, NULL};
    if ((rc = rwl_render(&b, tpl_softmax, kv)))
        goto out;
    char *desc = hk_asprintf("kernel %s: softmax rows of %s -> %s with one warp per row, the row kept in "
                             "registers when it fits (else max, sum and write passes), %s, shuffle "
                             "reductions, float4 when cols %% 4 == 0",
                             f->name, rw.in->name, rw.out->name, expf_name);
    rc = replace_body(text, len, m, f, b.data, desc, out);
    goto out;
na:
    rc = not_applicable(out, name, f, why);
out:
    hk_buf_free(&b);
    rwl_toks_free(&ts);
    return rc;
}

/* Matches canonical text s against pattern p where %G and %B each match one "@name" (a
 * per-column vector); the names go to g and b (without the @). */
static bool match_affine(const char *s, const char *p, char *g, char *b, size_t size)
{
    while (*p) {
        if (p[0] == '%' && (p[1] == 'G' || p[1] == 'B')) {
            if (*s != '@')
                return false;
            const char *e = ++s;
            while (isalnum((unsigned char)*e) || *e == '_')
                e++;
            char *dst = p[1] == 'G' ? g : b;
            snprintf(dst, size, "%.*s", (int)(e - s), s);
            s = e;
            p += 2;
            continue;
        }
        if (*s != *p)
            return false;
        s++;
        p++;
    }
    return *s == '\0';
}

static const char tpl_layernorm[] =
    "{\n"
    "    // hk rewrite: one warp per row (rows grid-strided over the warps): shuffle sums for\n"
    "    // the mean, then for the centred variance (the same two-pass arithmetic), then the\n"
    "    // write pass; float4 when the row length is a multiple of 4 and rows are aligned.\n"
    PT_THREADS
    PT_WARP
    "    const long long hk_cols = ($COLS);\n"
    "    for (long long hk_row = (long long)blockIdx.x * hk_nwarps + hk_warp; hk_row < ($ROWS);\n"
    "         hk_row += (long long)gridDim.x * hk_nwarps) {\n"
    "        const float *hk_x = $IN + hk_row * hk_cols;\n"
    "        float *hk_y = $OUT + hk_row * hk_cols;\n"
    "        const bool hk_vec = (hk_cols & 3) == 0 &&\n"
    "            ((reinterpret_cast<unsigned long long>(hk_x) | reinterpret_cast<unsigned long long>(hk_y)$ALIGN) & 15) == 0;\n"
    "        float hk_sum = 0.0f;\n"
    "        if (hk_vec) {\n"
    "            #pragma unroll 4\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols / 4; hk_c += hk_width) {\n"
    "                const float4 hk_q = reinterpret_cast<const float4 *>(hk_x)[hk_c];\n"
    "                hk_sum += hk_q.x + hk_q.y + hk_q.z + hk_q.w;\n"
    "            }\n"
    "        } else {\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols; hk_c += hk_width)\n"
    "                hk_sum += hk_x[hk_c];\n"
    "        }\n"
    "        for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n"
    "            const float hk_o = __shfl_down_sync(hk_mask, hk_sum, hk_off);\n"
    "            if (hk_lane + hk_off < hk_width)\n"
    "                hk_sum += hk_o;\n"
    "        }\n"
    "        const float hk_mean = __shfl_sync(hk_mask, hk_sum, 0, 32) / (float)hk_cols;\n"
    "        float hk_sq = 0.0f;\n"
    "        if (hk_vec) {\n"
    "            #pragma unroll 4\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols / 4; hk_c += hk_width) {\n"
    "                const float4 hk_q = reinterpret_cast<const float4 *>(hk_x)[hk_c];\n"
    "                hk_sq += (hk_q.x - hk_mean) * (hk_q.x - hk_mean) + (hk_q.y - hk_mean) * (hk_q.y - hk_mean) +\n"
    "                         (hk_q.z - hk_mean) * (hk_q.z - hk_mean) + (hk_q.w - hk_mean) * (hk_q.w - hk_mean);\n"
    "            }\n"
    "        } else {\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols; hk_c += hk_width)\n"
    "                hk_sq += (hk_x[hk_c] - hk_mean) * (hk_x[hk_c] - hk_mean);\n"
    "        }\n"
    "        for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n"
    "            const float hk_o = __shfl_down_sync(hk_mask, hk_sq, hk_off);\n"
    "            if (hk_lane + hk_off < hk_width)\n"
    "                hk_sq += hk_o;\n"
    "        }\n"
    "        const float hk_var = __shfl_sync(hk_mask, hk_sq, 0, 32) / (float)hk_cols;\n"
    "        const float hk_rstd = $RSTD;\n"
    "        if (hk_vec) {\n"
    "            #pragma unroll 4\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols / 4; hk_c += hk_width) {\n"
    "                float4 hk_q = reinterpret_cast<const float4 *>(hk_x)[hk_c];\n"
    "$VLOADS"
    "                hk_q.x = $VX;\n"
    "                hk_q.y = $VY;\n"
    "                hk_q.z = $VZ;\n"
    "                hk_q.w = $VW;\n"
    "                reinterpret_cast<float4 *>(hk_y)[hk_c] = hk_q;\n"
    "            }\n"
    "        } else {\n"
    "            for (long long hk_c = hk_lane; hk_c < hk_cols; hk_c += hk_width)\n"
    "                hk_y[hk_c] = $SCALAR;\n"
    "        }\n"
    "    }\n"
    "}";

int rw_online_layernorm(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    static const char *const name = "online layernorm";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    pt_shape s;
    pt_rows rw;
    struct hk_buf b;
    char *rstd = NULL, *align = NULL, *vloads = NULL, *scalar = NULL, *vc[4] = {NULL, NULL, NULL, NULL};
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *why = NULL;
    if ((rc = lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG)
            rc = not_applicable(out, name, f, "the body is far larger than a layernorm");
        goto out;
    }
    if ((why = read_shape(&ts, &s)))
        goto na;
    memset(&rw, 0, sizeof rw);
    rw.f = f;
    rw.ts = &ts;
    if ((why = read_rows(&rw, &s)))
        goto na;
    static const char *const zero[] = {"0.0f", "0.f", "0", "0.0", NULL};
    static const char *const lsum[] = {"a+=X;", "a=a+X;", NULL};
    static const char *const mdiv[] = {"a/=N;", "a=a/N;", "a*=1.0f/N;", "a=a*(1.0f/N);", NULL};
    static const char *const lvar[] = {"v+=(X-a)*(X-a);", "v=v+(X-a)*(X-a);", NULL};
    static const char *const vdiv[] = {"v/=N;", "v=v/N;", "v*=1.0f/N;", "v=v*(1.0f/N);", NULL};
    static const char *const affine[] = {"(X-a)*r*%G+%B", "%G*(X-a)*r+%B", "(X-a)*%G*r+%B",
                                         "((X-a)*r)*%G+%B", "%G*((X-a)*r)+%B", "%B+(X-a)*r*%G",
                                         "(X-a)*r*%G", "%G*(X-a)*r", "(X-a)*r+%B", "(X-a)*r", NULL};
    size_t i = 0;
    char c[PT_EXPR], st[PT_EXPR];
    while (i < rw.n_st && rw.st[i].kind == 'p')
        i++;
    if (i >= rw.n_st || !rows_decl(&rw, i, "a", c, sizeof c) || !one_of(c, zero)) {
        why = "the row body does not start with a sum for the mean `float mean = 0.0f;`";
        goto na;
    }
    i++;
    if (i >= rw.n_st || rw.st[i].kind != 'l' || (rows_stmt(&rw, i, st, sizeof st), !one_of(st, lsum))) {
        why = "the first column loop is not the sum `mean += x[c]`";
        goto na;
    }
    i++;
    if (i >= rw.n_st || rw.st[i].kind != 'u' || (rows_stmt(&rw, i, st, sizeof st), !one_of(st, mdiv))) {
        why = "the sum is not divided by the column count (`mean /= cols;`)";
        goto na;
    }
    i++;
    if (i >= rw.n_st || !rows_decl(&rw, i, "v", c, sizeof c) || !one_of(c, zero)) {
        why = "no variance sum `float var = 0.0f;` after the mean";
        goto na;
    }
    i++;
    if (i >= rw.n_st || rw.st[i].kind != 'l' || (rows_stmt(&rw, i, st, sizeof st), !one_of(st, lvar))) {
        why = "the second column loop is not `var += (x[c] - mean) * (x[c] - mean)`";
        goto na;
    }
    i++;
    if (i >= rw.n_st || rw.st[i].kind != 'u' || (rows_stmt(&rw, i, st, sizeof st), !one_of(st, vdiv))) {
        why = "the variance sum is not divided by the column count (`var /= cols;`)";
        goto na;
    }
    i++;
    /* float inv = 1.0f / sqrtf(var + EPS); or rsqrtf(var + EPS), EPS a scalar parameter or
     * a literal */
    if (i >= rw.n_st || !rows_decl(&rw, i, "r", c, sizeof c)) {
        why = "no `float inv = 1.0f / sqrtf(var + eps);` before the write loop";
        goto na;
    }
    {
        const char *inner = NULL;
        bool rs = false;
        if (strncmp(c, "1.0f/sqrtf(v+", 13) == 0)
            inner = c + 13;
        else if (strncmp(c, "rsqrtf(v+", 9) == 0)
            inner = c + 9, rs = true;
        size_t il = inner ? strlen(inner) : 0;
        char eps[PT_NAME] = "";
        if (il >= 2 && inner[il - 1] == ')')
            snprintf(eps, sizeof eps, "%.*s", (int)(il - 1), inner);
        const an_param *pe = *eps ? param_by_name(f, eps) : NULL;
        bool literal = *eps && (isdigit((unsigned char)eps[0]) || eps[0] == '.');
        for (const char *q = eps; literal && *q; q++)
            literal = isalnum((unsigned char)*q) || *q == '.' || *q == '-' || *q == '+';
        if (!inner || !((pe && pe->pointer_depth == 0) || literal)) {
            why = "the inverse deviation is not `1.0f / sqrtf(var + eps)` or `rsqrtf(var + eps)` with "
                  "eps a parameter or a literal";
            goto na;
        }
        rstd = rs ? hk_asprintf("rsqrtf(hk_var + (%s))", eps) : hk_asprintf("1.0f / sqrtf(hk_var + (%s))", eps);
        if (!rstd)
            goto nomem;
    }
    i++;
    if (i + 1 != rw.n_st || rw.st[i].kind != 'l') {
        why = "the last statement is not the write loop";
        goto na;
    }
    rows_stmt(&rw, i, st, sizeof st);
    char g[PT_NAME] = "", be[PT_NAME] = "";
    size_t sl = strlen(st);
    bool ok = sl > 3 && strncmp(st, "Y=", 2) == 0 && st[sl - 1] == ';';
    if (ok) {
        st[sl - 1] = '\0';
        ok = false;
        for (size_t q = 0; affine[q] && !ok; q++) {
            g[0] = be[0] = '\0';
            ok = match_affine(st + 2, affine[q], g, be, sizeof g);
        }
    }
    const an_param *pg = *g ? param_by_name(f, g) : NULL, *pb = *be ? param_by_name(f, be) : NULL;
    if (!ok || (*g && !pg) || (*be && !pb) || (pg && pg == pb) || pg == rw.in || pg == rw.out ||
        pb == rw.in || pb == rw.out) {
        why = "the write loop is not `y[c] = (x[c] - mean) * inv [* gamma[c]] [+ beta[c]]`";
        goto na;
    }
    char t[PT_EXPR];
    if ((pg && (pointee_type(pg, t, sizeof t), strcmp(t, "float") != 0)) ||
        (pb && (pointee_type(pb, t, sizeof t), strcmp(t, "float") != 0))) {
        why = "gamma or beta is not float";
        goto na;
    }
    static const char comp[4] = {'x', 'y', 'z', 'w'};
    align = hk_asprintf("%s%s%s%s%s%s", pg ? " | reinterpret_cast<unsigned long long>(" : "", pg ? pg->name : "",
                        pg ? ")" : "", pb ? " | reinterpret_cast<unsigned long long>(" : "", pb ? pb->name : "",
                        pb ? ")" : "");
    vloads = hk_asprintf("%s%s%s%s%s%s", pg ? "                const float4 hk_g = reinterpret_cast<const float4 *>(" : "",
                         pg ? pg->name : "", pg ? ")[hk_c];\n" : "",
                         pb ? "                const float4 hk_b = reinterpret_cast<const float4 *>(" : "",
                         pb ? pb->name : "", pb ? ")[hk_c];\n" : "");
    scalar = hk_asprintf("(hk_x[hk_c] - hk_mean) * hk_rstd%s%s%s%s%s%s", pg ? " * " : "", pg ? pg->name : "",
                         pg ? "[hk_c]" : "", pb ? " + " : "", pb ? pb->name : "", pb ? "[hk_c]" : "");
    for (int q = 0; q < 4; q++)
        vc[q] = hk_asprintf("(hk_q.%c - hk_mean) * hk_rstd%s%c%s%c", comp[q], pg ? " * hk_g." : "",
                            pg ? comp[q] : ' ', pb ? " + hk_b." : "", pb ? comp[q] : ' ');
    if (!align || !vloads || !scalar || !vc[0] || !vc[1] || !vc[2] || !vc[3])
        goto nomem;
    const char *kv[] = {"COLS", rw.cols, "ROWS", rw.row->bound, "IN", rw.in->name, "OUT", rw.out->name,
                        "ALIGN", align, "RSTD", rstd, "VLOADS", vloads, "VX", vc[0], "VY", vc[1],
                        "VZ", vc[2], "VW", vc[3], "SCALAR", scalar, NULL};
    if ((rc = rwl_render(&b, tpl_layernorm, kv)))
        goto out;
    char *desc = hk_asprintf("kernel %s: layernorm rows of %s -> %s%s%s%s%s with one warp per row, "
                             "shuffle sums for mean and centred variance, float4 when cols %% 4 == 0",
                             f->name, rw.in->name, rw.out->name, pg ? ", gamma " : "", pg ? pg->name : "",
                             pb ? ", beta " : "", pb ? pb->name : "");
    rc = replace_body(text, len, m, f, b.data, desc, out);
    goto out;
nomem:
    rc = HK_ENOMEM;
    goto out;
na:
    rc = not_applicable(out, name, f, why);
out:
    hk_free(rstd);
    hk_free(align);
    hk_free(vloads);
    hk_free(scalar);
    for (int q = 0; q < 4; q++)
        hk_free(vc[q]);
    hk_buf_free(&b);
    rwl_toks_free(&ts);
    return rc;
}

/* ------------------------------------------------------------------ tiled GEMM */

/* Fetches the k slice starting at K0 of the A and B tiles into registers hk_ra / hk_rb
 * (zero outside the matrices); consecutive threads read consecutive addresses. IND: the
 * indentation of the generated lines. */
#define PT_GEMM_FETCH(IND, K0)                                                                       \
    IND "#pragma unroll\n"                                                           \
    IND "for (int hk_l = 0; hk_l < HK_LA; hk_l++) {\n"                               \
    IND "    const int hk_e = hk_tid + hk_l * HK_THREADS;\n"                         \
    IND "    const long long hk_gr = hk_row0 + hk_e / HK_BK, hk_gk = (" K0 ") + hk_e % HK_BK;\n" \
    IND "    hk_ra[hk_l] = (hk_gr < hk_m && hk_gk < hk_k) ? $A[(size_t)hk_gr * ($LDA) + hk_gk] : ($T)0;\n" \
    IND "}\n"                                                                        \
    IND "#pragma unroll\n"                                                           \
    IND "for (int hk_l = 0; hk_l < HK_LB; hk_l++) {\n"                               \
    IND "    const int hk_e = hk_tid + hk_l * HK_THREADS;\n"                         \
    IND "    const long long hk_gk = (" K0 ") + hk_e / HK_BN, hk_gc = hk_col0 + hk_e % HK_BN;\n" \
    IND "    hk_rb[hk_l] = (hk_gk < hk_k && hk_gc < hk_n) ? $B[(size_t)hk_gk * ($LDB) + hk_gc] : ($T)0;\n" \
    IND "}\n"

static const char tpl_gemm[] =
    "{\n"
    "    // hk rewrite: shared-memory tiled GEMM with register blocking. A block of HK_THREADS\n"
    "    // threads walks output tiles HK_BM x HK_BN (grid-stride); each thread computes\n"
    "    // HK_TM x HK_TN outputs from HK_BK-deep slices of A and B staged in shared memory\n"
    "    // (zero-padded at the edges). Other block sizes take the simple path at the end.\n"
    "    constexpr int HK_BM = $BM;\n"
    "    constexpr int HK_BN = $BN;\n"
    "    constexpr int HK_BK = $BK;\n"
    "    constexpr int HK_TM = HK_BM / 16;\n"
    "    constexpr int HK_TN = HK_BN / 16;\n"
    "    constexpr int HK_THREADS = (HK_BM / HK_TM) * (HK_BN / HK_TN);\n"
    "    constexpr int HK_LA = HK_BM * HK_BK / HK_THREADS;\n"
    "    constexpr int HK_LB = HK_BK * HK_BN / HK_THREADS;\n"
    "    // thread t owns rows t*TM/2 .. +TM/2-1 in each half of the tile (likewise columns):\n"
    "    // its shared reads are contiguous runs (vector loads), a quarter-warp's runs are\n"
    "    // adjacent (no bank conflicts), and its outputs are coalesced runs.\n"
    "#define HK_ROW_OF(t, i) ((t) * (HK_TM / 2) + (i) % (HK_TM / 2) + (i) / (HK_TM / 2) * (HK_BM / 2))\n"
    "#define HK_COL_OF(t, j) ((t) * (HK_TN / 2) + (j) % (HK_TN / 2) + (j) / (HK_TN / 2) * (HK_BN / 2))\n"
    PT_THREADS
    "    const long long hk_m = ($M), hk_n = ($N), hk_k = ($K);\n"
    "    const long long hk_block = blockIdx.x + (long long)gridDim.x * (blockIdx.y + (long long)gridDim.y * blockIdx.z);\n"
    "    const long long hk_blocks = (long long)gridDim.x * gridDim.y * gridDim.z;\n"
    "    if (hk_nthreads == HK_THREADS) {\n"
    "        // $V storage: rows of the tiles start 16-byte aligned, for vector reads\n"
    "        __shared__ $V hk_as_v[HK_BK * (HK_BM + 4) / $VW];\n"
    "        __shared__ $V hk_bs_v[HK_BK * (HK_BN + 4) / $VW];\n"
    "        $T (*hk_as)[HK_BM + 4] = reinterpret_cast<$T (*)[HK_BM + 4]>(hk_as_v);\n"
    "        $T (*hk_bs)[HK_BN + 4] = reinterpret_cast<$T (*)[HK_BN + 4]>(hk_bs_v);\n"
    "        const int hk_tx = hk_tid % (HK_BN / HK_TN), hk_ty = hk_tid / (HK_BN / HK_TN);\n"
    "        const long long hk_tiles_n = (hk_n + HK_BN - 1) / HK_BN;\n"
    "        const long long hk_tiles = hk_tiles_n * ((hk_m + HK_BM - 1) / HK_BM);\n"
    "        for (long long hk_t = hk_block; hk_t < hk_tiles; hk_t += hk_blocks) {\n"
    "            const long long hk_row0 = (hk_t / hk_tiles_n) * HK_BM, hk_col0 = (hk_t % hk_tiles_n) * HK_BN;\n"
    "            $T hk_acc[HK_TM][HK_TN];\n"
    "            #pragma unroll\n"
    "            for (int hk_i = 0; hk_i < HK_TM; hk_i++) {\n"
    "                #pragma unroll\n"
    "                for (int hk_j = 0; hk_j < HK_TN; hk_j++)\n"
    "                    hk_acc[hk_i][hk_j] = ($T)0;\n"
    "            }\n"
    "            // the next k slice is fetched into registers while this one is computed\n"
    "            $T hk_ra[HK_LA], hk_rb[HK_LB];\n"
    PT_GEMM_FETCH("            ", "0")
    "            for (long long hk_k0 = 0; hk_k0 < hk_k; hk_k0 += HK_BK) {\n"
    "                #pragma unroll\n"
    "                for (int hk_l = 0; hk_l < HK_LA; hk_l++) {\n"
    "                    const int hk_e = hk_tid + hk_l * HK_THREADS;\n"
    "                    hk_as[hk_e % HK_BK][hk_e / HK_BK] = hk_ra[hk_l];\n"
    "                }\n"
    "                #pragma unroll\n"
    "                for (int hk_l = 0; hk_l < HK_LB; hk_l++) {\n"
    "                    const int hk_e = hk_tid + hk_l * HK_THREADS;\n"
    "                    hk_bs[hk_e / HK_BN][hk_e % HK_BN] = hk_rb[hk_l];\n"
    "                }\n"
    "                __syncthreads();\n"
    "                if (hk_k0 + HK_BK < hk_k) {\n"
    PT_GEMM_FETCH("                    ", "hk_k0 + HK_BK")
    "                }\n"
    "                #pragma unroll\n"
    "                for (int hk_kk = 0; hk_kk < HK_BK; hk_kk++) {\n"
    "                    $T hk_a[HK_TM], hk_b[HK_TN];\n"
    "$LOADS"
    "                    #pragma unroll\n"
    "                    for (int hk_i = 0; hk_i < HK_TM; hk_i++) {\n"
    "                        #pragma unroll\n"
    "                        for (int hk_j = 0; hk_j < HK_TN; hk_j++)\n"
    "                            hk_acc[hk_i][hk_j] += hk_a[hk_i] * hk_b[hk_j];\n"
    "                    }\n"
    "                }\n"
    "                __syncthreads();\n"
    "            }\n"
    "            #pragma unroll\n"
    "            for (int hk_i = 0; hk_i < HK_TM; hk_i++) {\n"
    "                #pragma unroll\n"
    "                for (int hk_j = 0; hk_j < HK_TN; hk_j++) {\n"
    "                    const long long hk_gr = hk_row0 + HK_ROW_OF(hk_ty, hk_i);\n"
    "                    const long long hk_gc = hk_col0 + HK_COL_OF(hk_tx, hk_j);\n"
    "                    if (hk_gr < hk_m && hk_gc < hk_n) {\n"
    "                        const $RT $ROW = ($RT)hk_gr;\n"
    "                        const $CT $COL = ($CT)hk_gc;\n"
    "                        $T $ACC = hk_acc[hk_i][hk_j];\n"
    "                        $EPILOGUE\n"
    "                    }\n"
    "                }\n"
    "            }\n"
    "        }\n"
    "#undef HK_ROW_OF\n"
    "#undef HK_COL_OF\n"
    "    } else {\n"
    "        for (long long hk_e = hk_block * hk_nthreads + hk_tid; hk_e < hk_m * hk_n; hk_e += hk_blocks * hk_nthreads) {\n"
    "            const $RT $ROW = ($RT)(hk_e / hk_n);\n"
    "            const $CT $COL = ($CT)(hk_e % hk_n);\n"
    "            $T $ACC = ($T)0;\n"
    "            for (long long hk_kk = 0; hk_kk < hk_k; hk_kk++)\n"
    "                $ACC += $A[(size_t)$ROW * ($LDA) + hk_kk] * $B[(size_t)hk_kk * ($LDB) + $COL];\n"
    "            $EPILOGUE\n"
    "        }\n"
    "    }\n"
    "}";

/* The stride in compact index c = `ROW * LD + K` (any order of the sum and the product):
 * copies LD into ld. false when c has another shape. */
static bool leading_dim(const char *c, const char *row, const char *k, char *ld, size_t size)
{
    size_t cl = strlen(c), rl = strlen(row), kl = strlen(k);
    char prod[PT_EXPR];
    if (cl > kl + 1 && c[cl - kl - 1] == '+' && strcmp(c + cl - kl, k) == 0)
        snprintf(prod, sizeof prod, "%.*s", (int)(cl - kl - 1), c);
    else if (cl > kl + 1 && strncmp(c, k, kl) == 0 && c[kl] == '+')
        snprintf(prod, sizeof prod, "%s", c + kl + 1);
    else
        return false;
    size_t pl = strlen(prod);
    if (pl > rl + 1 && strncmp(prod, row, rl) == 0 && prod[rl] == '*')
        snprintf(ld, size, "%s", prod + rl + 1);
    else if (pl > rl + 1 && prod[pl - rl - 1] == '*' && strcmp(prod + pl - rl, row) == 0)
        snprintf(ld, size, "%.*s", (int)(pl - rl - 1), prod);
    else
        return false;
    /* the stride must be a product-free operand: `a*b+c` split the wrong way gives garbage */
    for (const char *q = ld; *q; q++)
        if (*q == '+' || *q == '-' || *q == '?' || *q == ',' || *q == '*' || *q == '/')
            return false;
    return *ld != '\0';
}

static bool is_zero_literal(const rw_toks *ts, size_t a, size_t b)
{
    return b == a + 1 &&
           (rwl_tok_is(ts, a, "0") || rwl_tok_is(ts, a, "0.0f") || rwl_tok_is(ts, a, "0.f") || rwl_tok_is(ts, a, "0.0") ||
            rwl_tok_is(ts, a, "0."));
}

/* A pointer the k loop reads through: with aliases allowed (the BLAS matcher), a local
 * declared at the top of the guarded body as `[const] T *a = P + OFFSET;` stands for
 * pointer parameter P moved by OFFSET (a batched GEMM's matrix). */
typedef struct {
    char name[PT_NAME];
    const an_param *p;
    char off[PT_EXPR];   /* compact OFFSET */
} pt_alias;

#define PT_MAX_ALIASES 4

/* The accumulator and k loop of a naive GEMM / GEMV (match_gemm_loop). */
typedef struct {
    char t[PT_NAME];               /* accumulator type: float or double */
    char acc[PT_NAME], kv[PT_NAME];
    char kb[PT_EXPR];              /* the k loop's bound, as written */
    const an_param *pa, *pb;       /* the two operands, in the product's order */
    const pt_alias *aa, *ab;       /* the alias each was read through, or NULL */
    char ia[PT_EXPR], ib[PT_EXPR]; /* compact index of each */
    size_t end;                    /* token after the k loop: the epilogue starts there */
} pt_gemm_loop;

static const an_param *loop_operand(const an_function *f, const rw_toks *ts, size_t k, const pt_alias *al,
                                    size_t n_al, const pt_alias **which)
{
    *which = NULL;
    for (size_t i = 0; i < n_al; i++)
        if (rwl_tok_is(ts, k, al[i].name)) {
            *which = &al[i];
            return al[i].p;
        }
    return param_named(f, ts, k);
}

/* Matches `T acc = 0; for (int k = 0; k < K; k++) acc += P1[...] * P2[...];` at token a
 * (statements end at end); the operands are pointer parameters or one of the n_al aliases.
 * NULL and g filled, or the reason it does not match. Shared by rw_tiled_gemm and
 * rwp_match_blas, so both recognize exactly one GEMM loop. */
static const char *match_gemm_loop(const an_function *f, const rw_toks *ts, size_t a, size_t end,
                                   const pt_alias *al, size_t n_al, pt_gemm_loop *g)
{
    memset(g, 0, sizeof *g);
    /* T acc = 0; */
    size_t k = a, e = rwl_stmt_end(ts, k, end);
    if (!(rwl_tok_is(ts, k, "float") || rwl_tok_is(ts, k, "double")) || !tok_ident(ts, k + 1) ||
        !rwl_tok_is(ts, k + 2, "=") || !rwl_tok_is(ts, e - 1, ";") || !is_zero_literal(ts, k + 3, e - 1))
        return "the guarded body does not start with an accumulator `float acc = 0.0f;`";
    tok_copy(ts, k, g->t, sizeof g->t);
    tok_copy(ts, k + 1, g->acc, sizeof g->acc);
    /* for (int kk = 0; kk < K; kk++) acc += A[row * LDA + kk] * B[kk * LDB + col]; */
    k = e;
    e = rwl_stmt_end(ts, k, end);
    size_t q = k + 2;
    while (q < e && pt_is_type_word(ts, q))
        q++;
    tok_copy(ts, q, g->kv, sizeof g->kv);
    size_t cl = rwl_tok_is(ts, k, "for") ? rwl_match_close(ts, k + 1) : ts->n;
    if (cl >= e || q == k + 2 || !rwl_tok_is(ts, q + 1, "=") || !rwl_tok_is(ts, q + 2, "0") ||
        !rwl_tok_is(ts, q + 3, ";") || !rwl_tok_is(ts, q + 4, g->kv) || !rwl_tok_is(ts, q + 5, "<"))
        return "the accumulator is not followed by `for (int k = 0; k < K; k++)`";
    size_t semi = q + 6;
    while (semi < cl && !rwl_tok_is(ts, semi, ";"))
        semi++;
    char step[PT_EXPR], want[PT_NAME + 8], want2[PT_NAME + 8];
    compact(ts, semi + 1, cl, step, sizeof step);
    snprintf(want, sizeof want, "%s++", g->kv);
    snprintf(want2, sizeof want2, "++%s", g->kv);
    if (semi >= cl || (strcmp(step, want) != 0 && strcmp(step, want2) != 0) || has_side_effects(ts, q + 6, semi))
        return "the k loop does not step by one to a fixed bound";
    char *kb = rwl_tok_text(ts, q + 6, semi);
    if (!kb)
        return "out of memory";
    bool fits = strlen(kb) < sizeof g->kb;
    snprintf(g->kb, sizeof g->kb, "%s", kb);
    hk_free(kb);
    if (!fits)
        return "the k loop's bound is too long";
    size_t ba = cl + 1, bb = e;
    if (rwl_tok_is(ts, ba, "{") && rwl_match_close(ts, ba) == bb - 1) {
        ba++;
        bb--;
    }
    /* acc += P1[...] * P2[...]; (or acc = acc + ...) */
    size_t p1 = ts->n;
    if (rwl_tok_is(ts, ba, g->acc) && rwl_tok_is(ts, ba + 1, "+="))
        p1 = ba + 2;
    else if (rwl_tok_is(ts, ba, g->acc) && rwl_tok_is(ts, ba + 1, "=") && rwl_tok_is(ts, ba + 2, g->acc) &&
             rwl_tok_is(ts, ba + 3, "+"))
        p1 = ba + 4;
    g->pa = p1 < bb ? loop_operand(f, ts, p1, al, n_al, &g->aa) : NULL;
    size_t c1 = g->pa && rwl_tok_is(ts, p1 + 1, "[") ? rwl_match_close(ts, p1 + 1) : ts->n, c2 = ts->n;
    if (c1 < bb && rwl_tok_is(ts, c1 + 1, "*") && (g->pb = loop_operand(f, ts, c1 + 2, al, n_al, &g->ab)) &&
        rwl_tok_is(ts, c1 + 3, "["))
        c2 = rwl_match_close(ts, c1 + 3);
    if (!g->pa || !g->pb || c2 + 2 != bb || !rwl_tok_is(ts, c2 + 1, ";"))
        return "the k loop is not `acc += A[...] * B[...];` over two pointer parameters";
    compact(ts, p1 + 2, c1, g->ia, sizeof g->ia);
    compact(ts, c1 + 4, c2, g->ib, sizeof g->ib);
    g->end = e;
    return NULL;
}

int rw_tiled_gemm(const char *text, size_t len, const an_model *m, size_t kernel, int tile_m, int tile_n,
                  int tile_k, rw_result *out)
{
    static const char *const name = "tiled GEMM";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if ((tile_m != 32 && tile_m != 64 && tile_m != 128) || (tile_n != 32 && tile_n != 64 && tile_n != 128) ||
        (tile_k != 8 && tile_k != 16 && tile_k != 32))
        return HK_EINVAL;
    rw_toks ts = {0};
    pt_shape s;
    struct hk_buf b;
    char *epi = NULL;
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *why = NULL;
    if ((rc = lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG)
            rc = not_applicable(out, name, f, "the body is far larger than a GEMM");
        goto out;
    }
    if ((why = read_shape(&ts, &s)))
        goto na;
    const pt_index *icol = shape_axis(&s, 'x'), *irow = shape_axis(&s, 'y');
    if (s.n_idx != 2 || !icol || !irow) {
        why = "it is not a 2D kernel (row from .y, column from .x)";
        goto na;
    }
    if (s.pre_b > s.pre_a) {
        why = "statements besides the index declarations come before the bounds check";
        goto na;
    }
    pt_gemm_loop g;
    if ((why = match_gemm_loop(f, &ts, s.body_a, s.body_b, NULL, 0, &g))) {
        if (strcmp(why, "out of memory") == 0)
            goto nomem;
        goto na;
    }
    const an_param *pa = g.pa, *pb = g.pb;
    const char *t = g.t, *acc = g.acc, *kv_name = g.kv;
    size_t e = g.end;
    char ia[PT_EXPR], ib[PT_EXPR], lda[PT_EXPR], ldb[PT_EXPR], ta[PT_EXPR], tb[PT_EXPR];
    snprintf(ia, sizeof ia, "%s", g.ia);
    snprintf(ib, sizeof ib, "%s", g.ib);
    if (!leading_dim(ia, irow->name, kv_name, lda, sizeof lda)) {
        /* B[...] * A[...]: swap */
        const an_param *tp = pa;
        pa = pb;
        pb = tp;
        char tmp[PT_EXPR];
        snprintf(tmp, sizeof tmp, "%s", ia);
        snprintf(ia, sizeof ia, "%s", ib);
        snprintf(ib, sizeof ib, "%s", tmp);
        if (!leading_dim(ia, irow->name, kv_name, lda, sizeof lda)) {
            why = "A is not read as A[row * lda + k] (row-major, row from .y)";
            goto na;
        }
    }
    if (!leading_dim(ib, kv_name, icol->name, ldb, sizeof ldb)) {
        why = "B is not read as B[k * ldb + col] (row-major, col from .x)";
        goto na;
    }
    pointee_type(pa, ta, sizeof ta);
    pointee_type(pb, tb, sizeof tb);
    if (strcmp(ta, t) != 0 || strcmp(tb, t) != 0) {
        why = "A, B and the accumulator do not share one type (float or double)";
        goto na;
    }
    /* the epilogue: the statements after the loop, kept verbatim */
    size_t ea = e, eb = s.body_b;
    if (ea >= eb) {
        why = "nothing is written after the k loop";
        goto na;
    }
    bool writes = false;
    for (size_t j = ea; j < eb; j++) {
        if (rwl_tok_is(&ts, j, "for") || rwl_tok_is(&ts, j, "while") || rwl_tok_is(&ts, j, "do") || rwl_tok_is(&ts, j, "return") ||
            rwl_tok_is(&ts, j, "goto") || rwl_tok_is(&ts, j, "__syncthreads") || rwl_tok_is(&ts, j, kv_name)) {
            why = "the statements after the k loop hold a loop, a return, a barrier or the k index";
            goto na;
        }
        if (tok_ident(&ts, j) && !(j > 0 && (rwl_tok_is(&ts, j - 1, ".") || rwl_tok_is(&ts, j - 1, "->"))) &&
            !rwl_tok_is(&ts, j + 1, "(") && !param_named(f, &ts, j) && !rwl_tok_is(&ts, j, acc) &&
            !rwl_tok_is(&ts, j, irow->name) && !rwl_tok_is(&ts, j, icol->name) && !pt_is_type_word(&ts, j) &&
            !rwl_tok_is(&ts, j, "const") && !rwl_tok_is(&ts, j, "if") && !rwl_tok_is(&ts, j, "else")) {
            bool tunable = false;
            for (size_t i = 0; i < m->n_tunables && !tunable; i++)
                tunable = rwl_tok_is(&ts, j, m->tunables[i].name);
            if (!tunable) {
                why = "the statements after the k loop use a local variable";
                goto na;
            }
        }
        if (param_named(f, &ts, j) && param_named(f, &ts, j)->pointer_depth == 1 && rwl_tok_is(&ts, j + 1, "["))
            writes = true;
    }
    if (!writes) {
        why = "the statements after the k loop write no pointer parameter";
        goto na;
    }
    if (!(epi = rwl_tok_text(&ts, ea, eb)))
        goto nomem;
    /* shared reads: vector loads of TM/2 (TN/2) consecutive values when that run is a
     * multiple of the vector width, else one value at a time */
    bool dbl = strcmp(t, "double") == 0;
    int vw = dbl ? 2 : 4;
    const char *vt = dbl ? "double2" : "float4";
    struct hk_buf lb;
    hk_buf_init(&lb, 8192);
    static const char *const comp = "xyzw";
    for (int ab = 0; ab < 2 && rc == HK_OK; ab++) {
        int half = (ab == 0 ? tile_m : tile_n) / 16 / 2;
        const char *arr = ab == 0 ? "hk_as" : "hk_bs", *dst = ab == 0 ? "hk_a" : "hk_b";
        const char *t_ = ab == 0 ? "hk_ty" : "hk_tx", *tm = ab == 0 ? "HK_TM" : "HK_TN";
        const char *bmn = ab == 0 ? "HK_BM" : "HK_BN", *of = ab == 0 ? "HK_ROW_OF" : "HK_COL_OF";
        if (half % vw == 0) {
            rc = hk_buf_printf(&lb,
                               "                    #pragma unroll\n"
                               "                    for (int hk_h = 0; hk_h < 2; hk_h++) {\n"
                               "                        #pragma unroll\n"
                               "                        for (int hk_q = 0; hk_q < %s / 2; hk_q += %d) {\n"
                               "                            const %s hk_v = *reinterpret_cast<const %s *>(&%s[hk_kk][%s * (%s / 2) + hk_q + hk_h * (%s / 2)]);\n",
                               tm, vw, vt, vt, arr, t_, tm, bmn);
            for (int c4 = 0; c4 < vw && rc == HK_OK; c4++)
                rc = hk_buf_printf(&lb, "                            %s[hk_h * (%s / 2) + hk_q + %d] = hk_v.%c;\n",
                                   dst, tm, c4, comp[c4]);
            if (rc == HK_OK)
                rc = hk_buf_appends(&lb, "                        }\n"
                                         "                    }\n");
        } else {
            rc = hk_buf_printf(&lb,
                               "                    #pragma unroll\n"
                               "                    for (int hk_i = 0; hk_i < %s; hk_i++)\n"
                               "                        %s[hk_i] = %s[hk_kk][%s(%s, hk_i)];\n",
                               tm, dst, arr, of, t_);
        }
    }
    if (rc) {
        hk_buf_free(&lb);
        goto out;
    }
    char vws[8];
    snprintf(vws, sizeof vws, "%d", vw);
    char rt[PT_NAME], ct[PT_NAME], bm[16], bn[16], bk[16];
    snprintf(rt, sizeof rt, "%s", strncmp(irow->type, "const ", 6) == 0 ? irow->type + 6 : irow->type);
    snprintf(ct, sizeof ct, "%s", strncmp(icol->type, "const ", 6) == 0 ? icol->type + 6 : icol->type);
    snprintf(bm, sizeof bm, "%d", tile_m);
    snprintf(bn, sizeof bn, "%d", tile_n);
    snprintf(bk, sizeof bk, "%d", tile_k);
    const char *kv[] = {"BM", bm, "BN", bn, "BK", bk, "T", t, "M", irow->bound, "N", icol->bound, "K", g.kb,
                        "A", pa->name, "B", pb->name, "LDA", lda, "LDB", ldb, "RT", rt, "CT", ct,
                        "ROW", irow->name, "COL", icol->name, "ACC", acc, "EPILOGUE", epi, "V", vt,
                        "VW", vws, "LOADS", lb.data, NULL};
    rc = rwl_render(&b, tpl_gemm, kv);
    hk_buf_free(&lb);
    if (rc)
        goto out;
    char *desc = hk_asprintf("kernel %s: tiled %s GEMM %s x %s, tiles %dx%dx%d (HK_BM, HK_BN, HK_BK) in shared "
                             "memory, %dx%d outputs per thread for blocks of 256 threads, grid-stride over tiles; "
                             "epilogue kept",
                             f->name, t, pa->name, pb->name, tile_m, tile_n, tile_k, tile_m / 16, tile_n / 16);
    rc = replace_body(text, len, m, f, b.data, desc, out);
    goto out;
nomem:
    rc = HK_ENOMEM;
    goto out;
na:
    rc = not_applicable(out, name, f, why);
out:
    hk_free(epi);
    hk_buf_free(&b);
    rwl_toks_free(&ts);
    return rc;
}

/* ------------------------------------------------------------------ the BLAS view */

/* Splits compact c at sep ('+' or '*') outside brackets into at most max parts; 0 when
 * there are more, or an empty part. */
static size_t split_top(const char *c, char sep, char (*out)[PT_EXPR], size_t max)
{
    size_t n = 0, l = 0;
    int depth = 0;
    for (const char *p = c;; p++) {
        if (*p == '(' || *p == '[')
            depth++;
        else if (*p == ')' || *p == ']')
            depth--;
        if (*p == '\0' || (depth == 0 && *p == sep)) {
            if (n == max || l == 0)
                return 0;
            out[n][l] = '\0';
            n++;
            l = 0;
            if (*p == '\0')
                return n;
            continue;
        }
        if (l + 1 >= PT_EXPR || n == max)
            return 0;
        out[n][l++] = *p;
    }
}

/* Does compact c hold, outside brackets, an operator that binds looser than '*' or is not
 * a plain product/sum ('-', '/', '%', shifts, comparisons, '?', bit operators)? Such a
 * term is not read by split_top's product rule. */
static bool has_loose_op(const char *c)
{
    int depth = 0;
    for (const char *p = c; *p; p++) {
        if (*p == '(' || *p == '[')
            depth++;
        else if (*p == ')' || *p == ']')
            depth--;
        else if (depth == 0 && strchr("-/%<>?&|^=!,", *p))
            return true;
    }
    return false;
}

/* Does identifier name occur in compact c (as a whole identifier, not a member)? */
static bool names(const char *c, const char *name)
{
    size_t nl = strlen(name);
    for (const char *p = c; *p;) {
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *w = p;
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
            if ((size_t)(p - w) == nl && memcmp(w, name, nl) == 0 && !(w > c && w[-1] == '.'))
                return true;
        } else if (isdigit((unsigned char)*p)) {
            while (isalnum((unsigned char)*p) || *p == '.')
                p++;
        } else {
            p++;
        }
    }
    return false;
}

/* Reads compact c as the sum over vars of coef[i] * vars[i]: each var the factor of one
 * term, the other factors of that term its coefficient ("1" when alone), no other terms.
 * The last var may be absent when last_optional (coefficient "0"). Coefficients never
 * name a var. */
static bool affine_in(const char *c, const char *const *vars, size_t nv, bool last_optional,
                      char (*coef)[PT_EXPR])
{
    char terms[4][PT_EXPR], fac[8][PT_EXPR];
    size_t nt = split_top(c, '+', terms, 4);
    if (nt == 0 || nv > 4)
        return false;
    bool seen[4] = {false, false, false, false};
    for (size_t t = 0; t < nt; t++) {
        if (has_loose_op(terms[t]))
            return false;
        size_t nf = split_top(terms[t], '*', fac, 8);
        size_t hit = nv, at = nf;
        for (size_t f = 0; f < nf; f++)
            for (size_t v = 0; v < nv; v++)
                if (strcmp(fac[f], vars[v]) == 0) {
                    if (hit != nv)
                        return false;   /* two vars in one term: not affine */
                    hit = v;
                    at = f;
                }
        if (hit == nv || seen[hit])
            return false;
        seen[hit] = true;
        size_t l = 0;
        coef[hit][0] = '\0';
        for (size_t f = 0; f < nf; f++) {
            if (f == at)
                continue;
            for (size_t v = 0; v < nv; v++)
                if (names(fac[f], vars[v]))
                    return false;
            int w = snprintf(coef[hit] + l, PT_EXPR - l, "%s%s", l ? "*" : "", fac[f]);
            if (w < 0 || (size_t)w >= PT_EXPR - l)
                return false;
            l += (size_t)w;
        }
        if (l == 0)
            snprintf(coef[hit], PT_EXPR, "1");
    }
    for (size_t v = 0; v < nv; v++)
        if (!seen[v]) {
            if (!(last_optional && v == nv - 1))
                return false;
            snprintf(coef[v], PT_EXPR, "0");
        }
    return true;
}

/* Copies s into a field of RWP_EXPR bytes; false when it does not fit. */
static bool put_field(char *dst, const char *s)
{
    size_t l = strlen(s);
    if (l >= RWP_EXPR)
        return false;
    memcpy(dst, s, l + 1);
    return true;
}

/* One operand's row-major index: idx (compact, read through alias al or not) must be
 * sum(coef * vars) with unit stride on unit_var; the coefficient of ld_var goes to ld and
 * (batched: bvar non-NULL) the batch stride to stride. */
static bool operand_index(const char *idx, const pt_alias *al, const char *ld_var, const char *unit_var,
                          const char *bvar, char *ld, char *stride)
{
    char coef[3][PT_EXPR];
    const char *vars[3] = {ld_var, unit_var, bvar};
    if (!ld_var) {
        vars[0] = unit_var;
        vars[1] = bvar;
    }
    size_t nv = (ld_var ? 2 : 1);
    bool batch_in_index = bvar && !al;
    if (!affine_in(idx, vars, nv + (batch_in_index ? 1 : 0), batch_in_index, coef))
        return false;
    if (strcmp(coef[ld_var ? 1 : 0], "1") != 0)
        return false;
    if (ld_var && !put_field(ld, coef[0]))
        return false;
    if (!bvar)
        return !al || al->off[0] == '\0';
    if (batch_in_index)
        return put_field(stride, coef[nv]);
    /* through a local `T *a = P + b * STRIDE;` */
    char c2[1][PT_EXPR];
    const char *bv[1] = {bvar};
    return affine_in(al->off, bv, 1, false, c2) && put_field(stride, c2[0]);
}

int rwp_match_blas(const char *text, size_t len, const an_model *m, size_t kernel, rwp_blas *out, char *why,
                   size_t why_size)
{
    memset(out, 0, sizeof *out);
    if (why_size)
        why[0] = '\0';
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (!why || why_size == 0)
        return HK_EINVAL;
    rw_toks ts = {0};
    pt_shape s;
    pt_alias al[PT_MAX_ALIASES];
    size_t n_al = 0;
    const char *w = NULL;
    if ((rc = lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts))) {
        if (rc == HK_ETOOBIG) {
            rc = HK_OK;
            w = "the body is far larger than a GEMM";
        }
        goto out;
    }
    if ((w = read_shape_ex(&ts, &s, true)))
        goto out;
    const pt_index *icol = shape_axis(&s, 'x'), *irow = shape_axis(&s, 'y'), *ib = shape_axis(&s, 'z');
    if (s.n_idx == 1 && icol) {
        out->kind = RWP_BLAS_GEMV;
        irow = icol;   /* one thread per row of y */
        icol = NULL;
    } else if (s.n_idx == 2 && icol && irow) {
        out->kind = RWP_BLAS_GEMM;
    } else if (s.n_idx == 3 && icol && irow && ib) {
        out->kind = RWP_BLAS_GEMM_BATCHED;
    } else {
        w = "the indices are not a GEMM's (row from .y, column from .x, batch from .z) or a "
            "GEMV's (row from .x)";
        goto out;
    }
    if (s.pre_b > s.pre_a) {
        w = "statements besides the index declarations come before the bounds check";
        goto out;
    }
    /* batched: `[const] T *a = P + OFFSET;` locals at the top of the guarded body */
    size_t k = s.body_a;
    while (out->kind == RWP_BLAS_GEMM_BATCHED && k < s.body_b) {
        size_t e = rwl_stmt_end(&ts, k, s.body_b), q = k;
        if (rwl_tok_is(&ts, q, "const"))
            q++;
        if (!(rwl_tok_is(&ts, q, "float") || rwl_tok_is(&ts, q, "double")) || !rwl_tok_is(&ts, q + 1, "*"))
            break;
        q += 2;
        if (rwl_tok_is(&ts, q, "__restrict__"))
            q++;
        const an_param *p = param_named(f, &ts, q + 2);
        if (!tok_ident(&ts, q) || !rwl_tok_is(&ts, q + 1, "=") || !p || p->pointer_depth != 1 ||
            !rwl_tok_is(&ts, q + 3, "+") || !rwl_tok_is(&ts, e - 1, ";") || q + 4 >= e - 1 ||
            has_side_effects(&ts, q + 4, e - 1)) {
            w = "a statement before the accumulator is not `const float *a = A + b * STRIDE;`";
            goto out;
        }
        if (n_al == PT_MAX_ALIASES) {
            w = "more matrix locals than a batched GEMM has";
            goto out;
        }
        pt_alias *a = &al[n_al++];
        tok_copy(&ts, q, a->name, sizeof a->name);
        a->p = p;
        compact(&ts, q + 4, e - 1, a->off, sizeof a->off);
        k = e;
    }
    pt_gemm_loop g;
    if ((w = match_gemm_loop(f, &ts, k, s.body_b, al, n_al, &g)))
        goto out;
    const char *row = irow->name, *col = icol ? icol->name : NULL, *bv = ib ? ib->name : NULL;
    /* which operand is A: the one read along the row */
    const an_param *pa = g.pa, *pb = g.pb;
    const pt_alias *aa = g.aa, *ab = g.ab;
    const char *ia = g.ia, *ibx = g.ib;
    char stride_tmp[RWP_EXPR];
    if (!operand_index(ia, aa, row, g.kv, bv, out->lda, out->stride_a)) {
        pa = g.pb, pb = g.pa, aa = g.ab, ab = g.aa, ia = g.ib, ibx = g.ia;
        if (!operand_index(ia, aa, row, g.kv, bv, out->lda, out->stride_a)) {
            w = out->kind == RWP_BLAS_GEMV ? "A is not read as A[row * lda + j] (row-major, unit stride along j)"
                                           : "A is not read as A[row * lda + k] (row-major, unit stride along k)";
            goto out;
        }
    }
    if (out->kind == RWP_BLAS_GEMV) {
        if (!operand_index(ibx, ab, NULL, g.kv, NULL, NULL, stride_tmp)) {
            w = "x is not read as x[j] (unit stride)";
            goto out;
        }
    } else if (!operand_index(ibx, ab, g.kv, col, bv, out->ldb, out->stride_b)) {
        w = "B is not read as B[k * ldb + col] (row-major, unit stride along the column)";
        goto out;
    }
    /* the epilogue: exactly one statement, C[row * ldc + col] = [alpha *] acc [+ beta * C[same]]; */
    size_t ea = g.end, eb = s.body_b;
    const pt_alias *ac = NULL;
    const an_param *pc = ea < eb ? loop_operand(f, &ts, ea, al, n_al, &ac) : NULL;
    size_t cb = pc && rwl_tok_is(&ts, ea + 1, "[") ? rwl_match_close(&ts, ea + 1) : ts.n;
    if (ea >= eb || rwl_stmt_end(&ts, ea, eb) != eb || !pc || cb >= eb || !rwl_tok_is(&ts, cb + 1, "=") ||
        !rwl_tok_is(&ts, eb - 1, ";") || cb + 2 >= eb - 1) {
        w = "the k loop is not followed by exactly one store `C[...] = ...;` and nothing else";
        goto out;
    }
    if (pc == pa || pc == pb || pc->pointer_depth != 1 || pc->is_const) {
        w = "the result is not stored to a third, writable pointer parameter";
        goto out;
    }
    if (has_side_effects(&ts, cb + 2, eb - 1)) {
        w = "the stored value has a side effect";
        goto out;
    }
    char lhs[PT_EXPR], idx[PT_EXPR], rhs[PT_EXPR];
    compact(&ts, ea, cb + 1, lhs, sizeof lhs);
    compact(&ts, ea + 2, cb, idx, sizeof idx);
    compact(&ts, cb + 2, eb - 1, rhs, sizeof rhs);
    if (out->kind == RWP_BLAS_GEMV) {
        if (!operand_index(idx, ac, NULL, row, NULL, NULL, stride_tmp)) {
            w = "y is not written as y[row]";
            goto out;
        }
    } else if (!operand_index(idx, ac, row, col, bv, out->ldc, out->stride_c) ||
               (bv && strcmp(out->stride_c, "0") == 0)) {
        w = "C is not written as C[row * ldc + col] (row-major, one element per thread)";
        goto out;
    }
    /* rhs: terms alpha*acc and optionally beta*C[same] */
    char terms[2][PT_EXPR], fac[8][PT_EXPR];
    size_t nt = split_top(rhs, '+', terms, 2);
    bool have_alpha = false, have_beta = false;
    snprintf(out->beta, sizeof out->beta, "0");
    for (size_t t = 0; t < nt; t++) {
        size_t nf = has_loose_op(terms[t]) ? 0 : split_top(terms[t], '*', fac, 8);
        size_t at = nf;
        bool is_beta = false;
        for (size_t i = 0; i < nf; i++) {
            bool a = strcmp(fac[i], g.acc) == 0, b = strcmp(fac[i], lhs) == 0;
            if ((a || b) && at != nf) {
                at = nf + 1;   /* two of them in one term */
                break;
            }
            if (a || b) {
                at = i;
                is_beta = b;
            }
        }
        if (at >= nf || (is_beta ? have_beta : have_alpha)) {
            nt = 0;
            break;
        }
        char sc[PT_EXPR] = "";
        size_t l = 0;
        for (size_t i = 0; i < nf; i++) {
            if (i == at)
                continue;
            if (names(fac[i], g.acc) || names(fac[i], pc->name) || strchr(fac[i], '[') ||
                (ac && names(fac[i], ac->name))) {
                nt = 0;
                break;
            }
            int wr = snprintf(sc + l, sizeof sc - l, "%s%s", l ? "*" : "", fac[i]);
            if (wr < 0 || (size_t)wr >= sizeof sc - l) {
                nt = 0;
                break;
            }
            l += (size_t)wr;
        }
        if (nt == 0 || !put_field(is_beta ? out->beta : out->alpha, l ? sc : "1")) {
            nt = 0;
            break;
        }
        *(is_beta ? &have_beta : &have_alpha) = true;
    }
    if (nt == 0 || !have_alpha) {
        w = out->kind == RWP_BLAS_GEMV ? "the stored value is not `[alpha *] acc [+ beta * y[row]]`"
                                       : "the stored value is not `[alpha *] acc [+ beta * C[row * ldc + col]]`";
        goto out;
    }
    /* element types: the caller decides which it substitutes, but A, B and C must agree */
    char ta[PT_EXPR], tb[PT_EXPR], tc[PT_EXPR];
    pointee_type(pa, ta, sizeof ta);
    pointee_type(pb, tb, sizeof tb);
    pointee_type(pc, tc, sizeof tc);
    if (strcmp(ta, g.t) || strcmp(tb, g.t) || strcmp(tc, g.t)) {
        w = "the matrices and the accumulator do not share one element type";
        goto out;
    }
    out->a = pa;
    out->b = pb;
    out->c = pc;
    if (!put_field(out->type, g.t) || !put_field(out->m, irow->bound) ||
        !put_field(out->n, out->kind == RWP_BLAS_GEMV ? g.kb : icol->bound) ||
        !put_field(out->k, out->kind == RWP_BLAS_GEMV ? "" : g.kb) || !put_field(out->batch, ib ? ib->bound : "")) {
        w = "a size expression is too long";
        goto out;
    }
out:
    rwl_toks_free(&ts);
    if (rc == HK_OK && w) {
        if (strcmp(w, "out of memory") == 0)
            rc = HK_ENOMEM;
        snprintf(why, why_size, "%s", w);
        out->a = out->b = out->c = NULL;
    }
    return rc;
}
