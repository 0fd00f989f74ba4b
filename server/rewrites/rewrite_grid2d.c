/* rw_grid_stride_2d (rewrite_grid2d.h): finds the two thread indices and the bounds check of
 * a 2-D elementwise kernel with the shared token scanner (rewrite_lex.h), reads which index
 * is contiguous from the subscripts, and writes one grid-stride loop with that index fastest:
 * flat with float4 for elementwise code, register windows over 4 x HK_ROWS units for
 * stencils (their subscripts read as (s + ds) * W + (f + df)), strips of rows otherwise.
 * Edits against the original text, applied and re-analysed by rwl_finish. */
#include "rewrites/rewrite_grid2d.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define G2_MAX_ALIASES 64
#define G2_MAX_DECLS 16
#define G2_MAX_DEPTH 16

/* How an expression depends on the two indices: bit 1 is index 0, bit 2 index 1. u: added
 * unscaled (the address moves by one element per step of that index); s: multiplied by
 * something (a row length); bad: used in a way this cannot read (r * c, f(r), idx[r], r / 2). */
typedef struct {
    unsigned u, s;
    bool bad;
} g2_cls;

/* A local `T x = <expression of the indices>` (or `T *x = A + r * W`): uses of x count as
 * that expression. */
typedef struct {
    size_t tok;     /* the declared name */
    g2_cls cls;
    size_t ia, ib;  /* its initializer's tokens */
} g2_alias;

typedef struct {
    const rw_toks *ts;
    const an_function *f;
    size_t decl_tok[2];          /* first token of each index declaration */
    size_t decl_end[2];          /* one past its ';' */
    size_t name_tok[2];
    size_t init_a[2], init_b[2]; /* the index formula */
    char axis[2];                /* 'x' or 'y' */
    char *type[2];               /* the declared type without const ("int", "size_t") */
    size_t ba[2], bb[2];         /* bound tokens; ba == bb: no bound yet */
    g2_alias al[G2_MAX_ALIASES];
    size_t n_al;
} g2;

static void g2_free(g2 *g)
{
    hk_free(g->type[0]);
    hk_free(g->type[1]);
}

static size_t tok_len(const rw_toks *ts, size_t k)
{
    return ts->t[k].end - ts->t[k].start;
}

static bool member_or_scope(const rw_toks *ts, size_t k)
{
    return k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->") || rwl_tok_is(ts, k - 1, "::"));
}

/* Index (0/1) the identifier at k names, or -1. */
static int index_at(const g2 *g, size_t k)
{
    if (k >= g->ts->n || g->ts->t[k].kind != T_IDENT || member_or_scope(g->ts, k))
        return -1;
    for (int i = 0; i < 2; i++)
        if (rwl_same_tok(g->ts, k, g->name_tok[i]))
            return i;
    return -1;
}

/* The latest alias of the identifier at k declared before k, or NULL. */
static const g2_alias *alias_at(const g2 *g, size_t k)
{
    if (k >= g->ts->n || g->ts->t[k].kind != T_IDENT || member_or_scope(g->ts, k))
        return NULL;
    for (size_t i = g->n_al; i-- > 0;)
        if (g->al[i].tok < k && rwl_same_tok(g->ts, k, g->al[i].tok))
            return &g->al[i];
    return NULL;
}

/* Does [a, b) mention an index or an alias of one? */
static bool mentions(const g2 *g, size_t a, size_t b)
{
    for (size_t k = a; k < b; k++)
        if (index_at(g, k) >= 0 || alias_at(g, k))
            return true;
    return false;
}

static g2_cls cls_bad(void)
{
    return (g2_cls){0, 0, true};
}

/* Joins the classes of two parts of one sum; an index both scaled and unscaled is unread. */
static g2_cls cls_join(g2_cls a, g2_cls b)
{
    a.u |= b.u;
    a.s |= b.s;
    a.bad |= b.bad || (a.u & a.s);
    return a;
}

/* Start of the bracket group closing at k (backwards), or ts->n. */
static size_t match_open(const rw_toks *ts, size_t k)
{
    const char *open = rwl_tok_is(ts, k, ")") ? "(" : rwl_tok_is(ts, k, "]") ? "[" : NULL;
    if (!open)
        return ts->n;
    const char *close = *open == '(' ? ")" : "]";
    int depth = 0;
    for (size_t i = k + 1; i-- > 0;) {
        if (rwl_tok_is(ts, i, close))
            depth++;
        else if (rwl_tok_is(ts, i, open) && --depth == 0)
            return i;
    }
    return ts->n;
}

static g2_cls cls_expr(const g2 *g, size_t a, size_t b, int depth);

/* One operand of a product; *group: it is a parenthesized sum or an alias (whose fast
 * index survives a multiplication by a constant stride, as in `(r * W + c) * 2`). */
/* The first token of [a, b) after the casts in front: `(int)`, `(unsigned long)`, `(const
 * T)` (type words only) and `static_cast<...>(` whose parenthesis closes at b - 1 (the
 * argument then starts at that parenthesis). */
static size_t skip_int_casts(const rw_toks *ts, size_t a, size_t b)
{
    for (;;) {
        if (a < b && rwl_tok_is(ts, a, "(")) {
            size_t j = a + 1;
            while (j < b && (rwl_is_type_word(ts, j) || rwl_tok_is_ident(ts, j, "const")))
                j++;
            if (j > a + 1 && j + 1 < b && rwl_tok_is(ts, j, ")")) {
                a = j + 1;
                continue;
            }
        }
        if (a + 1 < b && rwl_tok_is_ident(ts, a, "static_cast") && rwl_tok_is(ts, a + 1, "<")) {
            size_t c = rwl_match_close(ts, a + 1);
            if (c + 1 < b && rwl_tok_is(ts, c + 1, "(") && rwl_match_close(ts, c + 1) == b - 1) {
                a = c + 1;
                continue;
            }
        }
        return a;
    }
}

static g2_cls cls_factor(const g2 *g, size_t a, size_t b, int depth, bool *group)
{
    const rw_toks *ts = g->ts;
    *group = false;
    a = skip_int_casts(ts, a, b);
    if (a >= b)
        return (g2_cls){0, 0, false};
    if (b == a + 1) {
        int i = index_at(g, a);
        if (i >= 0)
            return (g2_cls){1u << i, 0, false};
        const g2_alias *al = alias_at(g, a);
        if (al) {
            *group = true;
            return al->cls;
        }
        return (g2_cls){0, 0, false};
    }
    if (rwl_tok_is(ts, a, "(") && rwl_match_close(ts, a) == b - 1) {
        *group = true;
        return cls_expr(g, a + 1, b - 1, depth + 1);
    }
    /* a call, a member, a subscript, a unary operator: fine only without the indices */
    return mentions(g, a, b) ? cls_bad() : (g2_cls){0, 0, false};
}

/* A product or quotient [a, b) of factors (a leading unary sign dropped). */
static g2_cls cls_term(const g2 *g, size_t a, size_t b, int depth)
{
    const rw_toks *ts = g->ts;
    while (a < b && (rwl_tok_is(ts, a, "-") || rwl_tok_is(ts, a, "+")))
        a++;
    if (a >= b)
        return mentions(g, a, b) ? cls_bad() : (g2_cls){0, 0, false};
    g2_cls found = {0, 0, false};
    size_t n_factors = 0, n_indexed = 0;
    bool found_group = false, divided = false;
    size_t fa = a;
    int d = 0;
    for (size_t k = a; k <= b; k++) {
        if (k < b) {
            if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "{"))
                d++;
            else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]") || rwl_tok_is(ts, k, "}"))
                d--;
            if (d != 0 || k == fa ||
                !(rwl_tok_is(ts, k, "*") || rwl_tok_is(ts, k, "/") || rwl_tok_is(ts, k, "%")))
                continue;
            /* a quotient or remainder of an index (r / 2, (r * W) % n) is no address step */
            divided |= !rwl_tok_is(ts, k, "*");
        }
        bool grp;
        g2_cls c = cls_factor(g, fa, k, depth, &grp);
        n_factors++;
        if (c.u || c.s || c.bad) {
            n_indexed++;
            found = c;
            found_group = grp;
        }
        fa = k + 1;
    }
    if (n_indexed == 0)
        return found;
    if (n_indexed > 1 || divided || found.bad)
        return cls_bad();
    if (n_factors == 1 || (found_group && found.u && found.s))
        return found;
    return (g2_cls){0, found.u | found.s, false};   /* scaled by a stride */
}

/* A sum of terms [a, b). */
static g2_cls cls_expr(const g2 *g, size_t a, size_t b, int depth)
{
    const rw_toks *ts = g->ts;
    if (depth > G2_MAX_DEPTH)
        return cls_bad();
    while (a + 1 < b && rwl_tok_is(ts, a, "(") && rwl_match_close(ts, a) == b - 1) {
        a++;
        b--;
    }
    g2_cls acc = {0, 0, false};
    size_t ta = a;
    int d = 0;
    for (size_t k = a; k <= b; k++) {
        if (k < b) {
            if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "{")) {
                d++;
                continue;
            }
            if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]") || rwl_tok_is(ts, k, "}")) {
                d--;
                continue;
            }
            if (d != 0 || ts->t[k].kind != T_PUNCT)
                continue;
            bool split = (rwl_tok_is(ts, k, "+") || rwl_tok_is(ts, k, "-")) && k > ta &&
                         !rwl_unary_position(ts, k);
            if (!split) {
                /* products, members and unary signs belong to a term; any other operator
                 * (shift, ternary, comparison, bitwise) is not an address formula */
                if (rwl_tok_is(ts, k, "*") || rwl_tok_is(ts, k, "/") || rwl_tok_is(ts, k, "%") ||
                    rwl_tok_is(ts, k, ".") || rwl_tok_is(ts, k, "->") || rwl_tok_is(ts, k, "::") ||
                    rwl_tok_is(ts, k, "+") || rwl_tok_is(ts, k, "-"))
                    continue;
                return mentions(g, a, b) ? cls_bad() : (g2_cls){0, 0, false};
            }
        }
        acc = cls_join(acc, cls_term(g, ta, k, depth));
        ta = k + 1;
    }
    return acc;
}

/* ------------------------------------------------------------------ shape */

static bool is_coord(const rw_toks *ts, size_t k)
{
    return rwl_tok_is_ident(ts, k, "threadIdx") || rwl_tok_is_ident(ts, k, "blockIdx") ||
           rwl_tok_is_ident(ts, k, "blockDim") || rwl_tok_is_ident(ts, k, "gridDim");
}

/* `[const] TYPE name = <index formula of one axis>;` in [a, e)? Returns the axis ('x', 'y',
 * 'z') or 0; fills slot i of g. */
static char index_decl(const rw_toks *ts, size_t a, size_t e, g2 *g, int i, int *rc)
{
    size_t k = a;
    if (rwl_tok_is_ident(ts, k, "const"))
        k++;
    size_t tstart = k;
    while (k < e && rwl_is_type_word(ts, k))
        k++;
    if (k == tstart || k + 2 >= e || ts->t[k].kind != T_IDENT || !rwl_tok_is(ts, k + 1, "=") ||
        !rwl_tok_is(ts, e - 1, ";"))
        return 0;
    char c[256];
    rwl_compact_index(ts, k + 2, e - 1, c, sizeof c);
    static const char *const forms[] = {"blockIdx.?*blockDim.?+threadIdx.?", "blockDim.?*blockIdx.?+threadIdx.?",
                                        "threadIdx.?+blockIdx.?*blockDim.?", "threadIdx.?+blockDim.?*blockIdx.?"};
    char axis = 0;
    for (const char *ax = "xyz"; *ax && !axis; ax++)
        for (size_t f = 0; f < HK_ARRAY_LEN(forms) && !axis; f++) {
            char want[64];
            snprintf(want, sizeof want, "%s", forms[f]);
            for (char *q = want; *q; q++)
                if (*q == '?')
                    *q = *ax;
            if (strcmp(c, want) == 0)
                axis = *ax;
        }
    if (!axis || i > 1)
        return axis;
    g->decl_tok[i] = a;
    g->decl_end[i] = e;
    g->name_tok[i] = k;
    g->init_a[i] = k + 2;
    g->init_b[i] = e - 1;
    g->axis[i] = axis;
    if (!(g->type[i] = rwl_tok_text(ts, tstart, k)))
        *rc = HK_ENOMEM;
    return axis;
}

/* Reads one comparison [a, b) of an index with its bound: `i < B` / `B > i` (want_less) or
 * `i >= B` / `B <= i`. Why not, or NULL with the bound stored in g. */
static const char *comparison(const rw_toks *ts, size_t a, size_t b, g2 *g, bool want_less)
{
    while (a + 1 < b && rwl_tok_is(ts, a, "(") && rwl_match_close(ts, a) == b - 1) {
        a++;
        b--;
    }
    const char *lt = want_less ? "<" : ">=", *gt = want_less ? ">" : "<=";
    int i;
    size_t ba, bb;
    if ((i = index_at(g, a)) >= 0 && rwl_tok_is(ts, a + 1, lt)) {
        ba = a + 2;
        bb = b;
    } else if (b >= a + 2 && (i = index_at(g, b - 1)) >= 0 && rwl_tok_is(ts, b - 2, gt)) {
        ba = a;
        bb = b - 2;
    } else {
        return want_less ? EN(RW_G2_BC_NOT_PLAIN)
                         : EN(RW_G2_GUARD_NOT_PLAIN);
    }
    if (ba >= bb)
        return EN(RW_G2_NO_BOUND);
    if (g->ba[i] != g->bb[i])
        return EN(RW_G2_BOUNDED_TWICE);
    for (size_t k = ba; k < bb; k++) {
        if (index_at(g, k) >= 0 || is_coord(ts, k))
            return EN(RW_G2_BOUND_DEPENDS);
        if (rwl_tok_is_assign_op(ts, k) || rwl_tok_is(ts, k, "++") || rwl_tok_is(ts, k, "--") ||
            rwl_tok_is(ts, k, "&&") || rwl_tok_is(ts, k, "||") || rwl_tok_is(ts, k, "?") ||
            rwl_tok_is(ts, k, "<") || rwl_tok_is(ts, k, ">") || rwl_tok_is(ts, k, "<=") ||
            rwl_tok_is(ts, k, ">=") || rwl_tok_is(ts, k, "==") || rwl_tok_is(ts, k, "!="))
            return EN(RW_G2_BOUND_NOT_SIMPLE);
        /* the bound is now read once, before the loop: it must not read memory the body
         * may write, nor call anything */
        if (rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "->") ||
            (rwl_tok_is(ts, k, "(") && k > ba && ts->t[k - 1].kind == T_IDENT &&
             !rwl_tok_is_ident(ts, k - 1, "sizeof")) ||
            (rwl_tok_is(ts, k, "*") && (k == ba || rwl_unary_position(ts, k))))
            return EN(RW_G2_BOUND_READS_MEM);
    }
    g->ba[i] = ba;
    g->bb[i] = bb;
    return NULL;
}

/* Splits condition [a, b) at the top-level sep ("&&" or "||") into comparisons. */
static const char *condition(const rw_toks *ts, size_t a, size_t b, g2 *g, bool want_less)
{
    const char *sep = want_less ? "&&" : "||";
    for (size_t pa = a;;) {
        size_t k = rwl_next_logic_op(ts, pa, b);
        if (k < b && !rwl_tok_is(ts, k, sep))
            return want_less ? EN(RW_G2_BC_MIXES) : EN(RW_G2_GUARD_MIXES);
        const char *why = comparison(ts, pa, k, g, want_less);
        if (why)
            return why;
        if (k >= b)
            break;
        pa = k + 1;
    }
    return NULL;
}

static const char *const lane_words[] = {
    "__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
    "__syncwarp", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
    "__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__ballot_sync", "__ballot",
    "__any_sync", "__all_sync", "__match_any_sync", "__match_all_sync", "__reduce_add_sync",
    "__activemask", "sync", "grid_group", "thread_block", "tiled_partition", "__threadfence",
    "__threadfence_block", "__shared__", "asm", "static", "__nanosleep", "__lane_id",
    "__laneid", "__builtin_amdgcn_ds_bpermute"};

/* Why the per-element code [a, b) cannot run in any order on any thread, or NULL. */
static const char *element_problem(const rw_toks *ts, size_t a, size_t b)
{
    for (size_t k = a; k < b; k++) {
        if (ts->t[k].kind != T_IDENT)
            continue;
        for (size_t w = 0; w < HK_ARRAY_LEN(lane_words); w++)
            if (rwl_tok_is_ident(ts, k, lane_words[w]))
                return EN(RW_G2_ELEM_SYNC);
        if (tok_len(ts, k) >= 6 && memcmp(ts->text + ts->t[k].start, "atomic", 6) == 0)
            return EN(RW_G2_ELEM_ATOMIC);
        /* `return;` ends this element only: it becomes `continue;` (no loop inside, below) */
        if (rwl_tok_is_ident(ts, k, "return") && !rwl_tok_is(ts, k + 1, ";"))
            return EN(RW_G2_ELEM_RETURNS);
        if (rwl_tok_is_ident(ts, k, "goto") || rwl_tok_is_ident(ts, k, "break") ||
            rwl_tok_is_ident(ts, k, "continue"))
            return EN(RW_G2_ELEM_JUMPS);
        if (rwl_tok_is_ident(ts, k, "for") || rwl_tok_is_ident(ts, k, "while") || rwl_tok_is_ident(ts, k, "do"))
            return EN(RW_G2_ELEM_LOOPS);
        if (is_coord(ts, k))
            return EN(RW_G2_ELEM_COORDS);
    }
    return NULL;
}

/* Is the identifier at k changed there (assigned, ++/--, address taken)? */
static bool changed_at(const rw_toks *ts, size_t k)
{
    if (rwl_tok_is_assign_op(ts, k + 1) || rwl_tok_is(ts, k + 1, "++") || rwl_tok_is(ts, k + 1, "--"))
        return true;
    if (k > 0 && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--")))
        return true;
    if (k > 0 && rwl_tok_is(ts, k - 1, "&") && rwl_unary_position(ts, k - 1))
        return true;
    /* s.x = ...: a member of it */
    size_t q = k + 1;
    bool member = false;
    while ((rwl_tok_is(ts, q, ".") && q + 1 < ts->n && ts->t[q + 1].kind == T_IDENT)) {
        q += 2;
        member = true;
    }
    return member && (rwl_tok_is_assign_op(ts, q) || rwl_tok_is(ts, q, "++") || rwl_tok_is(ts, q, "--"));
}

/* Is the identifier at k a declaration `T x = ...` / `T *x = ...` (with an initializer)? */
static bool declares_at(const rw_toks *ts, size_t k)
{
    if (k < 1 || ts->t[k].kind != T_IDENT || !rwl_tok_is(ts, k + 1, "="))
        return false;
    size_t p = k - 1;
    while (p > 0 && (rwl_tok_is(ts, p, "*") || rwl_tok_is(ts, p, "&")) )
        p--;
    if (ts->t[p].kind != T_IDENT)
        return false;
    static const char *const not_types[] = {"return", "else", "case", "goto", "sizeof", "do"};
    for (size_t i = 0; i < HK_ARRAY_LEN(not_types); i++)
        if (rwl_tok_is_ident(ts, p, not_types[i]))
            return false;
    return true;
}

/* Is the identifier at k a parameter of f, or a name in tokens [a, b)? */
static bool outer_name(const rw_toks *ts, size_t k, const an_function *f, size_t a, size_t b)
{
    if (rwp_param_named(f, ts, k))
        return true;
    for (size_t q = a; q < b; q++)
        if (ts->t[q].kind == T_IDENT && rwl_same_tok(ts, q, k))
            return true;
    return false;
}

/* ------------------------------------------------------------------ output */

static void line_indent(const char *text, uint32_t pos, char *ind, size_t size)
{
    uint32_t ls = pos;
    while (ls > 0 && text[ls - 1] != '\n')
        ls--;
    size_t n = 0;
    while (ls + n < pos && (text[ls + n] == ' ' || text[ls + n] == '\t') && n + 1 < size) {
        ind[n] = text[ls + n];
        n++;
    }
    ind[n] = '\0';
}

/* Appends text[from, to) (from at the first character of a line's code) with every further
 * line moved from the first line's indentation to ind: indentation deeper than the first
 * line's stays deeper by the same amount. */
static int append_reindented(struct hk_buf *b, const char *text, uint32_t from, uint32_t to, const char *ind)
{
    char orig[128];
    line_indent(text, from, orig, sizeof orig);
    size_t ol = strlen(orig);
    int rc = HK_OK;
    uint32_t q = from;
    bool first = true;
    while (q < to && !rc) {
        uint32_t e = q;
        while (e < to && text[e] != '\n')
            e++;
        if (!first) {
            uint32_t s = q, n = 0;
            while (s < e && n < ol && (text[s] == ' ' || text[s] == '\t')) {
                s++;
                n++;
            }
            if (s < e)   /* blank lines stay empty */
                rc = hk_buf_appends(b, ind);
            q = s;
        }
        if (!rc)
            rc = hk_buf_append(b, text + q, e - q);
        if (!rc && e < to)
            rc = hk_buf_appends(b, "\n");
        q = e + 1;
        first = false;
    }
    return rc;
}

/* Appends the per-element code text[from, to) reindented to ind, its `return;` statements
 * (tokens [a, b)) turned into `continue;`: the loop's next element, what the return meant. */
static int append_body(struct hk_buf *b, const rw_toks *ts, const char *text, uint32_t from, uint32_t to,
                       size_t a, size_t bt, const char *ind)
{
    uint32_t ls = from;
    while (ls > 0 && text[ls - 1] != '\n')
        ls--;
    struct hk_buf t;
    hk_buf_init(&t, RW_TEXT_MAX);
    uint32_t q = ls;
    int rc = HK_OK;
    for (size_t k = a; k < bt && !rc; k++) {
        if (!rwl_tok_is_ident(ts, k, "return") || ts->t[k].start < from || ts->t[k].end > to)
            continue;
        rc = hk_buf_append(&t, text + q, ts->t[k].start - q);
        if (!rc)
            rc = hk_buf_appends(&t, "continue");
        q = ts->t[k].end;
    }
    if (!rc)
        rc = hk_buf_append(&t, text + q, to - q);
    if (!rc && t.data)
        rc = append_reindented(b, t.data, from - ls, (uint32_t)t.len, ind);
    hk_buf_free(&t);
    return rc;
}

/* `(long long)(B)`, or `(long long)B` for one token. */
static char *bound_text(const rw_toks *ts, size_t a, size_t b)
{
    char *t = rwl_tok_text(ts, a, b);
    if (!t)
        return NULL;
    char *r = hk_asprintf(b == a + 1 ? "(long long)%s" : "(long long)(%s)", t);
    hk_free(t);
    return r;
}

/* The index variable's declared type for `const T name = (T)hk_x;`; decltype of the formula
 * for auto. */
static char *index_type(const g2 *g, int i)
{
    if (strcmp(g->type[i], "auto") != 0)
        return hk_strdup(g->type[i]);
    char *init = rwl_tok_text(g->ts, g->init_a[i], g->init_b[i]);
    if (!init)
        return NULL;
    char *t = hk_asprintf("decltype(%s)", init);
    hk_free(init);
    return t;
}

/* ------------------------------------------------------------------ contiguous elements */

/* The flat thread index hk_tid and the thread count hk_nthreads over x, y and z of the grid
 * and the block, indented by ind + 4. */
static int thread_index_lines(struct hk_buf *b, const char *ind)
{
    return hk_buf_printf(b,
        "%s    const long long hk_tid =\n" /* i18n: not for people */
        "%s        (((long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) *\n"
        "%s            ((long long)blockDim.x * blockDim.y * blockDim.z) +\n"
        "%s        ((long long)threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;\n"
        "%s    const long long hk_nthreads =\n"
        "%s        (long long)gridDim.x * gridDim.y * gridDim.z * blockDim.x * blockDim.y * blockDim.z;\n",
        ind, ind, ind, ind, ind, ind);
}



#define G2_FLAT_ARRAYS 6
#define G2_SUB 512

/* A float array parameter read or written as p[SUB]. */
static const an_param *float_array(const g2 *g, size_t k)
{
    if (g->ts->t[k].kind != T_IDENT || member_or_scope(g->ts, k) || !rwl_tok_is(g->ts, k + 1, "["))
        return NULL;
    for (size_t i = 0; i < g->f->n_params; i++) {
        const an_param *p = &g->f->params[i];
        if (p->name && rwl_tok_is(g->ts, k, p->name))
            return p->pointer_depth == 1 && p->elem_type && strcmp(p->elem_type, "float") == 0 ? p : NULL;
    }
    return NULL;
}

/* Is c exactly the text a o1 b o2 d? */
static bool is_joined(const char *c, const char *a, char o1, const char *b, char o2, const char *d)
{
    size_t la = strlen(a), lb = strlen(b);
    return strncmp(c, a, la) == 0 && c[la] == o1 && strncmp(c + la + 1, b, lb) == 0 && c[la + 1 + lb] == o2 &&
           strcmp(c + la + lb + 2, d) == 0;
}

/* Is compact text c the flat index of element (s, f) in rows of nf: s*nf+f in one of its
 * orders? */
static bool flat_index(const char *c, const char *sn, const char *fn, const char *nf)
{
    char head[2 * G2_SUB];
    if (is_joined(c, sn, '*', nf, '+', fn) || is_joined(c, nf, '*', sn, '+', fn))
        return true;
    /* f+s*nf, f+nf*s */
    size_t lf = strlen(fn);
    if (strncmp(c, fn, lf) != 0 || c[lf] != '+')
        return false;
    snprintf(head, sizeof head, "%s", c + lf + 1);
    size_t ls = strlen(sn), ln = strlen(nf);
    return (strncmp(head, sn, ls) == 0 && head[ls] == '*' && strcmp(head + ls + 1, nf) == 0) ||
           (strncmp(head, nf, ln) == 0 && head[ln] == '*' && strcmp(head + ln + 1, sn) == 0);
}

/* The elementwise case of a contiguous 2-D range: the per-element code is one store
 * `P[s * NF + f] = EXPR;` where every use of the two indices is a float array subscript of
 * exactly that element (NF the fast bound). Then the (s, f) pairs are just the elements
 * 0 .. NS * NF - 1 in memory order, and one flat loop runs over them four at a time
 * (float4, when every array is 16-byte aligned), then one at a time for the rest. Writes
 * the new block into b and sets *done; leaves b alone with *done false when the code is
 * anything else (the general loop is then written). */
static int flat_elements(const g2 *g, const char *text, size_t body_a, size_t body_b, int fi, int si,
                         const char *bnd_s, const char *bnd_f, const char *ind, struct hk_buf *b, bool *done)
{
    const rw_toks *ts = g->ts;
    *done = false;
    if (body_b < body_a + 6 || !rwl_tok_is(ts, body_b - 1, ";") || rwl_stmt_end(ts, body_a, body_b) != body_b)
        return HK_OK;
    const an_param *dst = float_array(g, body_a);
    size_t close = dst ? rwl_match_close(ts, body_a + 1) : ts->n;
    if (!dst || close >= body_b || !rwl_tok_is(ts, close + 1, "="))
        return HK_OK;
    char sub[G2_SUB], nf[G2_SUB], sn[128], fn[128];
    rwl_compact_index(ts, body_a + 2, close, sub, sizeof sub);
    rwl_compact_index(ts, g->ba[fi], g->bb[fi], nf, sizeof nf);
    snprintf(sn, sizeof sn, "%.*s", (int)tok_len(ts, g->name_tok[si]), text + ts->t[g->name_tok[si]].start);
    snprintf(fn, sizeof fn, "%.*s", (int)tok_len(ts, g->name_tok[fi]), text + ts->t[g->name_tok[fi]].start);
    if (!flat_index(sub, sn, fn, nf))
        return HK_OK;
    /* every array access of the element, and no other use of the indices or of arrays */
    const an_param *arr[G2_FLAT_ARRAYS];
    size_t n_arr = 0, acc[2 * G2_FLAT_ARRAYS][3], n_acc = 0;   /* array slot, '[' and ']' */
    for (size_t k = body_a; k < body_b - 1; k++) {
        if (ts->t[k].kind != T_IDENT || member_or_scope(ts, k))
            continue;
        if (tok_len(ts, k) > 3 && memcmp(text + ts->t[k].start, "hk_", 3) == 0)
            return HK_OK;   /* a name the new code could shadow */
        if (index_at(g, k) >= 0 || alias_at(g, k))
            return HK_OK;   /* an index outside an element subscript */
        const an_param *p = float_array(g, k);
        if (!p) {
            for (size_t i = 0; i < g->f->n_params; i++)
                if (g->f->params[i].name && g->f->params[i].pointer_depth > 0 &&
                    rwl_tok_is(ts, k, g->f->params[i].name))
                    return HK_OK;   /* a pointer used another way */
            continue;
        }
        size_t cl = rwl_match_close(ts, k + 1);
        char c[G2_SUB];
        if (cl >= body_b || n_acc == HK_ARRAY_LEN(acc))
            return HK_OK;
        rwl_compact_index(ts, k + 2, cl, c, sizeof c);
        if (!flat_index(c, sn, fn, nf))
            return HK_OK;   /* another element: a stencil, not elementwise */
        size_t a = 0;
        while (a < n_arr && arr[a] != p)
            a++;
        if (a == n_arr) {
            if (n_arr == G2_FLAT_ARRAYS)
                return HK_OK;
            arr[n_arr++] = p;
        }
        acc[n_acc][0] = a;
        acc[n_acc][1] = k;
        acc[n_acc][2] = cl;
        n_acc++;
        k = cl;
    }
    /* the four lanes of the stored value, and the one-element statement */
    static const char lane[4] = {'x', 'y', 'z', 'w'};
    struct hk_buf v[4], one, loads, align;
    for (int c = 0; c < 4; c++)
        hk_buf_init(&v[c], RW_TEXT_MAX);
    hk_buf_init(&one, RW_TEXT_MAX);
    hk_buf_init(&loads, RW_TEXT_MAX);
    hk_buf_init(&align, RW_TEXT_MAX);
    int rc = HK_OK;
    uint32_t from = ts->t[close + 2].start, q1 = ts->t[body_a].start;
    for (size_t i = 0; i < n_acc && !rc; i++) {
        size_t k = acc[i][1], cl = acc[i][2];
        rc = hk_buf_append(&one, text + q1, ts->t[k + 2].start - q1);
        if (!rc)
            rc = hk_buf_appends(&one, "hk_e");
        q1 = ts->t[cl].start;
        if (k == body_a)
            continue;   /* the store */
        for (int c = 0; c < 4 && !rc; c++) {
            rc = hk_buf_append(&v[c], text + from, ts->t[k].start - from);
            if (!rc)
                rc = hk_buf_printf(&v[c], "hk_q%zu.%c", acc[i][0], lane[c]);
        }
        from = ts->t[cl].end;
    }
    uint32_t stop = ts->t[body_b - 1].start;
    for (int c = 0; c < 4 && !rc; c++)
        rc = hk_buf_append(&v[c], text + from, stop - from);
    if (!rc)
        rc = hk_buf_append(&one, text + q1, ts->t[body_b - 1].end - q1);
    for (size_t a = 0; a < n_arr && !rc; a++) {
        rc = hk_buf_printf(&align, "%sreinterpret_cast<unsigned long long>(%s)", a ? " | " : "", arr[a]->name); /* i18n: not for people */
        if (!rc && arr[a] != dst)
            rc = hk_buf_printf(&loads, "%s            const float4 hk_q%zu = reinterpret_cast<const float4 *>(%s)[hk_v];\n",
                               ind, a, arr[a]->name);
    }
    /* the destination is also read (in place): load it too */
    for (size_t i = 0; i < n_acc && !rc; i++)
        if (acc[i][1] != body_a && arr[acc[i][0]] == dst) {
            rc = hk_buf_printf(&loads, "%s            const float4 hk_q%zu = reinterpret_cast<const float4 *>(%s)[hk_v];\n",
                               ind, acc[i][0], dst->name);
            break;
        }
    if (rc)
        goto out;
    rc = hk_buf_printf(b,
        "// hk grid_stride_2d: the (%s, %s) elements are contiguous (every access is element\n" /* i18n: not for people */
        "%s// %s), so one flat grid-stride loop runs over all of them in memory order, four at\n"
        "%s// a time (float4) when every array is 16-byte aligned, then one at a time; any grid\n"
        "%s{\n"
        "%s    const long long hk_ns = %s, hk_nf = %s;\n",
        sn, fn, ind, sub, ind, ind, ind, bnd_s, bnd_f);
    if (!rc)
        rc = thread_index_lines(b, ind);
    if (!rc)
        rc = hk_buf_printf(b,
        "%s    if (hk_ns > 0 && hk_nf > 0) {\n" /* i18n: not for people */
        "%s        const long long hk_n = hk_ns * hk_nf;\n"
        "%s        const long long hk_n4 = ((%s) & 15) == 0 ? hk_n / 4 : 0;\n"
        "%s        for (long long hk_v = hk_tid; hk_v < hk_n4; hk_v += hk_nthreads) {\n"
        "%s"
        "%s            float4 hk_w;\n"
        "%s            hk_w.x = %s;\n"
        "%s            hk_w.y = %s;\n"
        "%s            hk_w.z = %s;\n"
        "%s            hk_w.w = %s;\n"
        "%s            reinterpret_cast<float4 *>(%s)[hk_v] = hk_w;\n"
        "%s        }\n"
        "%s        for (long long hk_e = hk_n4 * 4 + hk_tid; hk_e < hk_n; hk_e += hk_nthreads)\n"
        "%s            %s\n"
        "%s    }\n"
        "%s}",
        ind, ind, ind, align.data, ind, loads.data ? loads.data : "", ind, ind, v[0].data, ind, v[1].data,
        ind, v[2].data, ind, v[3].data, ind, dst->name, ind, ind, ind, one.data, ind, ind);
    if (!rc)
        *done = true;
out:
    for (int c = 0; c < 4; c++)
        hk_buf_free(&v[c]);
    hk_buf_free(&one);
    hk_buf_free(&loads);
    hk_buf_free(&align);
    return rc == HK_ETOOBIG ? HK_OK : rc;
}

/* ------------------------------------------------------------------ stencil windows */

#define G2_WIN_ARRAYS 6
#define G2_WIN_ACC 64
#define G2_WIN_REPS (2 * G2_WIN_ACC)
#define G2_WIN_REACH 2         /* the largest |ds| and |df| a window covers */
#define G2_WIN_COEF 1000000LL  /* larger coefficients: not an address this reads */

/* An integer expression of the indices as c[0] + c[1] s + c[2] f + c[3] W + c[4] s W (s, f
 * the slow and fast index, W the fast bound); bad when it is anything else. */
enum { L_ONE, L_S, L_F, L_W, L_SW, L_N };
typedef struct {
    long long c[L_N];
    bool bad;
} g2_lin;

typedef struct {
    const g2 *g;
    int si, fi;
    size_t wa, wb;   /* the fast bound's tokens */
} g2_linc;

static g2_lin lin_bad(void)
{
    g2_lin l = {{0}, true};
    return l;
}

static g2_lin lin_one(int mono, long long v)
{
    g2_lin l = {{0}, false};
    l.c[mono] = v;
    return l;
}

static bool lin_big(const g2_lin *l)
{
    for (int i = 0; i < L_N; i++)
        if (l->c[i] > G2_WIN_COEF || l->c[i] < -G2_WIN_COEF)
            return true;
    return false;
}

/* The monomial of the product of two, or -1 (s * s, f * W, ...: not an address of the grid). */
static int mono_mul(int a, int b)
{
    if (a == L_ONE)
        return b;
    if (b == L_ONE)
        return a;
    return (a == L_S && b == L_W) || (a == L_W && b == L_S) ? L_SW : -1;
}

static g2_lin lin_mul(g2_lin p, g2_lin q)
{
    if (p.bad || q.bad || lin_big(&p) || lin_big(&q))
        return lin_bad();
    g2_lin r = {{0}, false};
    for (int i = 0; i < L_N; i++)
        for (int j = 0; j < L_N; j++) {
            if (!p.c[i] || !q.c[j])
                continue;
            int m = mono_mul(i, j);
            if (m < 0)
                return lin_bad();
            r.c[m] += p.c[i] * q.c[j];
        }
    return lin_big(&r) ? lin_bad() : r;
}

static g2_lin lin_expr(const g2_linc *c, size_t a, size_t b, int depth);

/* One operand of a product: an integer literal, an index, the fast bound, an alias of an
 * index expression, or a parenthesized sum (casts to integer types in front dropped). */
static g2_lin lin_factor(const g2_linc *c, size_t a, size_t b, int depth)
{
    const rw_toks *ts = c->g->ts;
    a = skip_int_casts(ts, a, b);
    if (a >= b)
        return lin_bad();
    if (c->wb - c->wa == b - a) {   /* the fast bound, token for token */
        size_t i = 0;
        while (i < b - a && rwl_same_tok(ts, a + i, c->wa + i))
            i++;
        if (i == b - a)
            return lin_one(L_W, 1);
    }
    if (b == a + 1) {
        if (ts->t[a].kind == T_NUMBER) {
            char num[32];
            size_t l = tok_len(ts, a);
            if (l >= sizeof num)
                return lin_bad();
            memcpy(num, ts->text + ts->t[a].start, l);
            num[l] = '\0';
            char *end;
            unsigned long long v = strtoull(num, &end, 0);
            while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
                end++;
            if (*end || v > (unsigned long long)G2_WIN_COEF)
                return lin_bad();   /* a floating literal, or a huge one */
            return lin_one(L_ONE, (long long)v);
        }
        int i = index_at(c->g, a);
        if (i >= 0)
            return lin_one(i == c->si ? L_S : L_F, 1);
        const g2_alias *al = alias_at(c->g, a);
        if (al && !al->cls.bad)
            return lin_expr(c, al->ia, al->ib, depth + 1);
        return lin_bad();
    }
    if (rwl_tok_is(ts, a, "(") && rwl_match_close(ts, a) == b - 1)
        return lin_expr(c, a + 1, b - 1, depth + 1);
    return lin_bad();
}

/* A product [a, b) of factors, with leading unary signs. */
static g2_lin lin_term(const g2_linc *c, size_t a, size_t b, int depth)
{
    const rw_toks *ts = c->g->ts;
    bool neg = false;
    while (a < b && (rwl_tok_is(ts, a, "-") || rwl_tok_is(ts, a, "+"))) {
        neg ^= rwl_tok_is(ts, a, "-");
        a++;
    }
    if (a >= b)
        return lin_bad();
    g2_lin acc = lin_one(L_ONE, 1);
    size_t fa = a;
    int d = 0;
    for (size_t k = a; k <= b; k++) {
        if (k < b) {
            if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "{"))
                d++;
            else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]") || rwl_tok_is(ts, k, "}"))
                d--;
            if (d != 0 || k == fa || !(rwl_tok_is(ts, k, "*") || rwl_tok_is(ts, k, "/") || rwl_tok_is(ts, k, "%")))
                continue;
            if (!rwl_tok_is(ts, k, "*"))
                return lin_bad();   /* r / 2, i % w: no fixed neighbour */
        }
        acc = lin_mul(acc, lin_factor(c, fa, k, depth));
        if (acc.bad)
            return acc;
        fa = k + 1;
    }
    if (neg)
        for (int i = 0; i < L_N; i++)
            acc.c[i] = -acc.c[i];
    return acc;
}

/* A sum [a, b) of terms. */
static g2_lin lin_expr(const g2_linc *c, size_t a, size_t b, int depth)
{
    const rw_toks *ts = c->g->ts;
    if (depth > G2_MAX_DEPTH || a >= b)
        return lin_bad();
    while (a + 1 < b && rwl_tok_is(ts, a, "(") && rwl_match_close(ts, a) == b - 1) {
        a++;
        b--;
    }
    g2_lin acc = {{0}, false};
    size_t ta = a;
    bool neg = false;
    int d = 0;
    for (size_t k = a; k <= b; k++) {
        if (k < b) {
            if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "{")) {
                d++;
                continue;
            }
            if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]") || rwl_tok_is(ts, k, "}")) {
                d--;
                continue;
            }
            if (d != 0 || ts->t[k].kind != T_PUNCT)
                continue;
            bool split = (rwl_tok_is(ts, k, "+") || rwl_tok_is(ts, k, "-")) && k > ta &&
                         !rwl_unary_position(ts, k);
            if (!split) {
                if (rwl_tok_is(ts, k, "*") || rwl_tok_is(ts, k, "/") || rwl_tok_is(ts, k, "%") ||
                    rwl_tok_is(ts, k, "+") || rwl_tok_is(ts, k, "-"))
                    continue;
                return lin_bad();
            }
        }
        g2_lin t = lin_term(c, ta, k, depth);
        if (t.bad)
            return t;
        for (int i = 0; i < L_N; i++)
            acc.c[i] += neg ? -t.c[i] : t.c[i];
        if (lin_big(&acc))
            return lin_bad();
        if (k < b)
            neg = rwl_tok_is(ts, k, "-");
        ta = k + 1;
    }
    return acc;
}

/* One read or write of a float array parameter at a neighbour of the current element. */
typedef struct {
    size_t k, cl;   /* the array's name and the subscript's ']' */
    size_t arr;
    int ds, df;
    bool write;
    size_t semi;    /* a write: the ';' that ends its statement */
} g2_wacc;

/* A float array parameter of the window form: how far its reads reach, whether it is
 * written (only at the element itself) and read. */
typedef struct {
    const an_param *p;
    int rs, rf;          /* the largest |ds| and |df| of its reads */
    bool read, written;
} g2_warr;

/* A piece of the per-element code replaced in the window form: bytes [s, e) become str. */
typedef struct {
    uint32_t s, e;
    char *str;
} g2_rep;

/* Appends text[from, to) (from at the first character of a line's code) reindented to ind,
 * with the replacements in reps (sorted, non-overlapping) that lie inside it applied. */
static int append_replaced(struct hk_buf *b, const char *text, uint32_t from, uint32_t to, const g2_rep *reps,
                           size_t n_reps, const char *ind)
{
    uint32_t ls = from;
    while (ls > 0 && text[ls - 1] != '\n')
        ls--;
    struct hk_buf t;
    hk_buf_init(&t, RW_TEXT_MAX);
    uint32_t q = ls;
    int rc = HK_OK;
    for (size_t i = 0; i < n_reps && !rc; i++) {
        if (reps[i].s < from || reps[i].e > to)
            continue;
        rc = hk_buf_append(&t, text + q, reps[i].s - q);
        if (!rc)
            rc = hk_buf_appends(&t, reps[i].str);
        q = reps[i].e;
    }
    if (!rc)
        rc = hk_buf_append(&t, text + q, to - q);
    if (!rc && t.data)
        rc = append_reindented(b, t.data, from - ls, (uint32_t)t.len, ind);
    hk_buf_free(&t);
    return rc;
}

/* Is the identifier at name used in tokens [a, b) outside the token spans [s0, s1]? */
static bool used_outside(const rw_toks *ts, size_t name, size_t a, size_t b, size_t (*spans)[2], size_t n_spans)
{
    for (size_t k = a; k < b; k++) {
        bool skip = false;
        for (size_t i = 0; i < n_spans && !skip; i++)
            skip = k >= spans[i][0] && k <= spans[i][1];
        if (!skip && k != name && ts->t[k].kind == T_IDENT && !member_or_scope(ts, k) && rwl_same_tok(ts, k, name))
            return true;
    }
    return false;
}

/* The per-element code of the window form: the moved declarations and the body with every
 * array access replaced by its register, `return` by `continue`, ind the indentation. */
static int append_point(struct hk_buf *b, const g2 *g, const char *text, size_t (*mid)[2],
                        const bool *per_elem, size_t n_mid, uint32_t copy_from, uint32_t copy_to,
                        const g2_rep *reps, size_t n_reps, const char *ind)
{
    const rw_toks *ts = g->ts;
    int rc = HK_OK;
    for (size_t d = 0; d < n_mid && !rc; d++) {
        if (!per_elem[d])
            continue;
        rc = hk_buf_appends(b, ind);
        if (!rc)
            rc = append_replaced(b, text, ts->t[mid[d][0]].start, ts->t[mid[d][1] - 1].end, reps, n_reps, ind);
        if (!rc)
            rc = hk_buf_appends(b, "\n");
    }
    if (!rc)
        rc = hk_buf_appends(b, ind);
    if (!rc)
        rc = append_replaced(b, text, copy_from, copy_to, reps, n_reps, ind);
    if (!rc)
        rc = hk_buf_appends(b, "\n");
    return rc;
}

/* The stencil case of a contiguous 2-D range: every use of a pointer parameter in the
 * per-element code (ranges: the moved declarations and the body) is a float array element
 * (s + ds) * W + (f + df), |ds|, |df| <= G2_WIN_REACH, in any spelling the index analysis
 * reads (aliases included), written only at the element itself, and some read is a
 * neighbour. Then the grid is cut into units of 4 fast x HK_ROWS slow positions; a unit
 * whose windows lie inside the grid loads each read array's window once into registers
 * (the 4 middle columns of a row as one float4 when the fast bound is a multiple of 4 and
 * every array 16-byte aligned) and evaluates the original code per point from them, its
 * stores staged and written 4 at a time; a unit at an edge of the grid runs the original
 * code per point (so no element outside the grid is read unless the original reads it).
 * Writes the new block into b, or leaves b alone and writes why not into why (why[0] is 0
 * when applied). */
static int window_elements(const g2 *g, const char *text, size_t (*ranges)[2], size_t n_ranges,
                           size_t (*mid)[2], const bool *per_elem, size_t n_mid,
                           uint32_t copy_from, uint32_t copy_to, size_t body_a, size_t body_b, int fi,
                           int si, char *const *bnd, char *const *ty, const char *ind, struct hk_buf *b,
                           char *why, size_t why_size)
{
    const rw_toks *ts = g->ts;
    const an_function *f = g->f;
    g2_warr arr[G2_WIN_ARRAYS];
    g2_wacc acc[G2_WIN_ACC];
    g2_rep reps[G2_WIN_REPS];
    size_t n_arr = 0, n_acc = 0, n_reps = 0;
    bool neighbour = false;
    int rc = HK_OK;
    struct hk_buf point, edge, align, w;
    hk_buf_init(&w, RW_TEXT_MAX);
    hk_buf_init(&point, RW_TEXT_MAX);
    hk_buf_init(&edge, RW_TEXT_MAX);
    hk_buf_init(&align, RW_TEXT_MAX);
    memset(reps, 0, sizeof reps);
    (void)body_a;
    (void)body_b;
    why[0] = '\0';
    g2_linc lc = {g, si, fi, g->ba[fi], g->bb[fi]};

    /* ---- every pointer use: a float element at a neighbour */
    for (size_t r = 0; r < n_ranges; r++)
        for (size_t k = ranges[r][0]; k < ranges[r][1]; k++) {
            if (ts->t[k].kind != T_IDENT || member_or_scope(ts, k))
                continue;
            if (tok_len(ts, k) > 3 && (memcmp(text + ts->t[k].start, "hk_", 3) == 0 ||
                                       memcmp(text + ts->t[k].start, "HK_", 3) == 0)) {
                snprintf(why, why_size, EN(RW_G2_OWN_NAME),
                         (int)tok_len(ts, k), text + ts->t[k].start);
                goto out;
            }
            for (size_t i = 0; i < g->n_al; i++)
                if (g->al[i].tok == k && (rwl_tok_is(ts, k - 1, "*") || rwl_tok_is(ts, k - 1, "&"))) {
                    snprintf(why, why_size, EN(RW_G2_PTR_FROM_INDICES),
                             (int)tok_len(ts, k), text + ts->t[k].start);
                    goto out;
                }
            const an_param *p = NULL;
            for (size_t i = 0; i < f->n_params && !p; i++)
                if (f->params[i].name && f->params[i].pointer_depth > 0 && rwl_tok_is(ts, k, f->params[i].name))
                    p = &f->params[i];
            if (!p)
                continue;
            if (!float_array(g, k) || (k > 0 && rwl_tok_is(ts, k - 1, "&") && rwl_unary_position(ts, k - 1))) {
                snprintf(why, why_size, EN(RW_G2_NOT_FLOAT_ELEM), p->name);
                goto out;
            }
            size_t cl = rwl_match_close(ts, k + 1);
            if (cl >= ranges[r][1]) {
                snprintf(why, why_size, "%s", EN(RW_G2_UNBALANCED_BRACKETS));
                goto out;
            }
            g2_lin l = lin_expr(&lc, k + 2, cl, 0);
            if (l.bad || l.c[L_S] != 0 || l.c[L_SW] != 1 || l.c[L_F] != 1 || l.c[L_W] > G2_WIN_REACH ||
                l.c[L_W] < -G2_WIN_REACH || l.c[L_ONE] > G2_WIN_REACH || l.c[L_ONE] < -G2_WIN_REACH) {
                snprintf(why, why_size, EN(RW_G2_NOT_WINDOW_ELEM),
                         (int)(ts->t[cl].end - ts->t[k].start), text + ts->t[k].start, G2_WIN_REACH);
                goto out;
            }
            if (rwl_tok_is(ts, cl + 1, "[") || rwl_tok_is(ts, cl + 1, ".")) {
                snprintf(why, why_size, EN(RW_G2_INDEXED_FURTHER), p->name);
                goto out;
            }
            size_t a = 0;
            while (a < n_arr && arr[a].p != p)
                a++;
            if (a == n_arr) {
                if (n_arr == G2_WIN_ARRAYS) {
                    snprintf(why, why_size, EN(RW_G2_MORE_ARRAYS), G2_WIN_ARRAYS);
                    goto out;
                }
                arr[n_arr++] = (g2_warr){p, 0, 0, false, false};
            }
            if (n_acc == G2_WIN_ACC) {
                snprintf(why, why_size, EN(RW_G2_MORE_ACCESSES), G2_WIN_ACC);
                goto out;
            }
            bool wr = rwl_tok_is_assign_op(ts, cl + 1) || rwl_tok_is(ts, cl + 1, "++") ||
                     rwl_tok_is(ts, cl + 1, "--") || (k > 0 && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--")));
            bool rd = !wr || !rwl_tok_is(ts, cl + 1, "=");   /* a compound assignment reads too */
            size_t semi = 0;
            if (wr) {
                /* a statement of its own (`P[e] = v;`, also an if's or an else's), which
                 * becomes `{ written = true; register = v; }` */
                size_t pv = k - 1;
                bool stmt = rwl_tok_is(ts, pv, ";") || rwl_tok_is(ts, pv, "{") || rwl_tok_is(ts, pv, "}") ||
                            rwl_tok_is_ident(ts, pv, "else");
                if (!stmt && rwl_tok_is(ts, pv, ")")) {
                    size_t op = match_open(ts, pv);
                    stmt = op < ts->n && op > 0 && rwl_tok_is_ident(ts, op - 1, "if");
                }
                size_t se = stmt ? rwl_stmt_end(ts, k, ranges[r][1]) : ts->n;
                if (!stmt || se > ranges[r][1] || se <= cl || !rwl_tok_is(ts, se - 1, ";")) {
                    snprintf(why, why_size, EN(RW_G2_WRITTEN_IN_EXPR),
                             (int)(ts->t[cl].end - ts->t[k].start), text + ts->t[k].start);
                    goto out;
                }
                semi = se - 1;
            }
            acc[n_acc] = (g2_wacc){k, cl, a, (int)l.c[L_W], (int)l.c[L_ONE], wr, semi};
            n_acc++;
            if (wr) {
                arr[a].written = true;
                if (acc[n_acc - 1].ds || acc[n_acc - 1].df) {
                    snprintf(why, why_size, EN(RW_G2_WRITES_NEIGHBOUR),
                             (int)(ts->t[cl].end - ts->t[k].start), text + ts->t[k].start);
                    goto out;
                }
            }
            if (rd) {
                arr[a].read = true;
                int ads = l.c[L_W] < 0 ? (int)-l.c[L_W] : (int)l.c[L_W];
                int adf = l.c[L_ONE] < 0 ? (int)-l.c[L_ONE] : (int)l.c[L_ONE];
                arr[a].rs = ads > arr[a].rs ? ads : arr[a].rs;
                arr[a].rf = adf > arr[a].rf ? adf : arr[a].rf;
                neighbour |= ads || adf;
            }
            k = cl;
        }
    if (!neighbour) {
        snprintf(why, why_size, "%s", EN(RW_G2_NO_NEIGHBOUR_READ));
        goto out;
    }
    int reach_s = 0, reach_f = 0;
    for (size_t a = 0; a < n_arr; a++) {
        if (arr[a].written && (arr[a].rs || arr[a].rf)) {
            snprintf(why, why_size, EN(RW_G2_IN_PLACE), arr[a].p->name);
            goto out;
        }
        reach_s = arr[a].rs > reach_s ? arr[a].rs : reach_s;
        reach_f = arr[a].rf > reach_f ? arr[a].rf : reach_f;
    }

    /* ---- the replacements: registers, `continue`, and (void) for names left unused */
    for (size_t i = 0; i < n_acc && !rc; i++) {
        const g2_wacc *x = &acc[i];
        char *s;
        if (x->write) {
            if (n_reps + 2 > G2_WIN_REPS) {
                snprintf(why, why_size, "%s", EN(RW_G2_TOO_MANY_STMTS));
                goto out;
            }
            if (!(reps[n_reps].str = hk_strdup("; }"))) {
                rc = HK_ENOMEM;
                break;
            }
            reps[n_reps].s = ts->t[x->semi].start;
            reps[n_reps].e = ts->t[x->semi].end;
            n_reps++;
            s = hk_asprintf("{ hk_m%zu[hk_r][hk_c] = true; hk_o%zu[hk_r][hk_c]", x->arr, x->arr);
        }
        else if (arr[x->arr].written)
            s = hk_asprintf("hk_o%zu[hk_r][hk_c]", x->arr);
        else
            s = hk_asprintf("hk_a%zu[hk_r + %d][hk_c + %d]", x->arr, arr[x->arr].rs + x->ds,
                            arr[x->arr].rf + x->df);
        if (!s)
            rc = HK_ENOMEM;
        else
            reps[n_reps++] = (g2_rep){ts->t[x->k].start, ts->t[x->cl].end, s};
    }
    for (size_t r = 0; r < n_ranges && !rc; r++)
        for (size_t k = ranges[r][0]; k < ranges[r][1] && !rc; k++) {
            if (rwl_tok_is_ident(ts, k, "return")) {
                if (n_reps == G2_WIN_REPS) {
                    snprintf(why, why_size, "%s", EN(RW_G2_TOO_MANY_STMTS));
                    goto out;
                }
                if (!(reps[n_reps].str = hk_strdup("continue")))
                    rc = HK_ENOMEM;
                reps[n_reps].s = ts->t[k].start;
                reps[n_reps].e = ts->t[k].end;
                n_reps++;
                continue;
            }
        }
    /* the declarations of aliases every use of which is now a register (or another such
     * declaration) are dropped: nvcc warns about a variable set but not used, even after
     * `(void)name;`. Pure index arithmetic (their subscripts were read), so nothing else is
     * lost. Latest first, so that an alias used only by a dropped one goes too. */
    size_t spans[G2_WIN_ACC + G2_MAX_ALIASES][2], n_spans = 0;
    for (size_t i = 0; i < n_acc; i++) {
        spans[n_spans][0] = acc[i].k;
        spans[n_spans][1] = acc[i].cl;
        n_spans++;
    }
    size_t last = ranges[n_ranges - 1][1];
    for (size_t i = g->n_al; i-- > 0 && !rc;) {
        size_t k = g->al[i].tok;
        if (used_outside(ts, k, k + 1, last, spans, n_spans))
            continue;
        /* dropped only when its initializer is index arithmetic: no call, no assignment */
        bool pure = !g->al[i].cls.bad;
        for (size_t q = g->al[i].ia; q < g->al[i].ib && pure; q++)
            pure = !rwl_tok_is_assign_op(ts, q) && !rwl_tok_is(ts, q, "++") && !rwl_tok_is(ts, q, "--") &&
                   !(rwl_tok_is(ts, q, "(") && q > 0 && ts->t[q - 1].kind == T_IDENT &&
                     !rwl_is_type_word(ts, q - 1));
        if (!pure)
            continue;
        /* the statement `[const] T name = init;` with one declarator: [st, e] */
        size_t st = k, e = k;
        while (st > 0 && (rwl_is_type_word(ts, st - 1) || rwl_tok_is_ident(ts, st - 1, "const")))
            st--;
        bool alone = st < k && st > 0 &&
                     (rwl_tok_is(ts, st - 1, ";") || rwl_tok_is(ts, st - 1, "{") || rwl_tok_is(ts, st - 1, "}"));
        int d = 0;
        while (e < last && !(d == 0 && rwl_tok_is(ts, e, ";"))) {
            if (rwl_tok_is(ts, e, "(") || rwl_tok_is(ts, e, "[") || rwl_tok_is(ts, e, "{"))
                d++;
            else if (rwl_tok_is(ts, e, ")") || rwl_tok_is(ts, e, "]") || rwl_tok_is(ts, e, "}"))
                d--;
            else if (d == 0 && rwl_tok_is(ts, e, ","))
                alone = false;
            e++;
        }
        if (e >= last || n_reps == G2_WIN_REPS) {
            snprintf(why, why_size, EN(RW_G2_DECL_UNREADABLE), (int)tok_len(ts, k),
                     text + ts->t[k].start);
            goto out;
        }
        if (alone) {
            spans[n_spans][0] = st;
            spans[n_spans][1] = e;
            n_spans++;
            reps[n_reps].s = ts->t[st].start;
            reps[n_reps].str = hk_asprintf("/* %.*s: read from the registers */", (int)tok_len(ts, k), /* i18n: not for people */
                                           text + ts->t[k].start);
        } else {   /* one of several declarators: kept, `(void)` (nvcc may still warn) */
            reps[n_reps].s = ts->t[e].start;
            reps[n_reps].str = hk_asprintf("; (void)%.*s;", (int)tok_len(ts, k), text + ts->t[k].start);
        }
        reps[n_reps].e = ts->t[e].end;
        if (!reps[n_reps++].str)
            rc = HK_ENOMEM;
    }
    if (rc)
        goto out;
    /* sorted by position (insertion sort: a few dozen) */
    for (size_t i = 1; i < n_reps; i++)
        for (size_t j = i; j > 0 && reps[j - 1].s > reps[j].s; j--) {
            g2_rep t = reps[j];
            reps[j] = reps[j - 1];
            reps[j - 1] = t;
        }

    /* ---- the text */
    char in2[80], in3[96], pind[112];
    snprintf(in2, sizeof in2, "%s            ", ind);       /* the unit loop's body */
    snprintf(in3, sizeof in3, "%s    ", in2);               /* a branch of it */
    snprintf(pind, sizeof pind, "%s        ", in3);         /* a point */
    char sname[128], fname[128];
    snprintf(sname, sizeof sname, "%.*s", (int)tok_len(ts, g->name_tok[si]), text + ts->t[g->name_tok[si]].start);
    snprintf(fname, sizeof fname, "%.*s", (int)tok_len(ts, g->name_tok[fi]), text + ts->t[g->name_tok[fi]].start);
    bool s_used = false, f_used = false;
    for (size_t r = 0; r < n_ranges; r++) {
        s_used |= used_outside(ts, g->name_tok[si], ranges[r][0], ranges[r][1], spans, n_spans);
        f_used |= used_outside(ts, g->name_tok[fi], ranges[r][0], ranges[r][1], spans, n_spans);
    }
    for (size_t a = 0; a < n_arr && !rc; a++)
        rc = hk_buf_printf(&align, "%sreinterpret_cast<unsigned long long>(%s)", a ? " | " : "", arr[a].p->name); /* i18n: not for people */
    /* the point, from registers; an index every use of which is now a register is not
     * declared (nvcc would warn) */
    if (!rc && s_used)
        rc = hk_buf_printf(&point, "%sconst %s %s = (%s)(hk_s0 + hk_r);\n", pind, ty[si], sname, ty[si]);
    if (!rc && f_used)
        rc = hk_buf_printf(&point, "%sconst %s %s = (%s)(hk_f0 + hk_c);\n", pind, ty[fi], fname, ty[fi]);
    if (!rc)
        rc = append_point(&point, g, text, mid, per_elem, n_mid, copy_from, copy_to, reps, n_reps, pind);
    /* the point at an edge, from memory: the original code */
    if (!rc)
        rc = hk_buf_printf(&edge, "%sconst %s %s = (%s)hk_s;\n%sconst %s %s = (%s)hk_f;\n", pind, ty[si], sname,
                           ty[si], pind, ty[fi], fname, ty[fi]);
    if (!rc) {   /* only the `continue`s */
        g2_rep cont[G2_WIN_REPS];
        size_t nc = 0;
        for (size_t i = 0; i < n_reps; i++)
            if (!strcmp(reps[i].str, "continue"))
                cont[nc++] = reps[i];
        rc = append_point(&edge, g, text, mid, per_elem, n_mid, copy_from, copy_to, cont, nc, pind);
    }
    if (rc)
        goto out;

    rc = hk_buf_printf(&w,
        "// hk grid_stride_2d: a stencil on the (%s, %s) elements (every read is an element (%s + ds)\n" /* i18n: not for people */
        "%s// * W + (%s + df), |ds| <= %d and |df| <= %d, every write the element itself): each\n"
        "%s// thread takes units of 4 neighbouring %s by HK_ROWS %s, loads each array's window\n"
        "%s// around the unit once into registers (the 4 middle values of a row as one float4\n"
        "%s// when rows are 16-byte aligned), evaluates every point from them and stores 4 points\n"
        "%s// at a time; units at an edge of the grid run the original code per point; any grid\n"
        "%s// and block shape\n"
        "%s{\n"
        "%s    constexpr int HK_ROWS = 4;\n"
        "%s    const long long hk_ns = %s, hk_nf = %s;\n",
        sname, fname, sname, ind, fname, reach_s, reach_f, ind, fname, sname, ind, ind, ind, ind, ind,
        ind, ind, bnd[si], bnd[fi]);
    if (!rc)
        rc = thread_index_lines(&w, ind);
    if (!rc)
        rc = hk_buf_printf(&w,
        "%s    if (hk_ns > 0 && hk_nf > 0) {\n" /* i18n: not for people */
        "%s        const bool hk_vec = hk_nf %% 4 == 0 && ((%s) & 15) == 0;\n"
        "%s        const long long hk_nfu = (hk_nf + 3) / 4, hk_nsu = (hk_ns + HK_ROWS - 1) / HK_ROWS;\n"
        "%s        // threads side by side take neighbouring units along %s; each steps by the grid's\n"
        "%s        // hk_nthreads units (hk_dq rows of units and hk_dr units): no division per unit\n"
        "%s        const long long hk_dq = hk_nthreads / hk_nfu, hk_dr = hk_nthreads %% hk_nfu;\n"
        "%s        long long hk_fu = hk_tid %% hk_nfu, hk_su = hk_tid / hk_nfu;\n"
        "%s        while (hk_su < hk_nsu) {\n"
        "%s            const long long hk_f0 = hk_fu * 4, hk_s0 = hk_su * HK_ROWS;\n"
        "%s            if (hk_s0 >= %d && hk_s0 + HK_ROWS + %d <= hk_ns && hk_f0 >= %d && hk_f0 + %d <= hk_nf) {\n",
        ind, ind, align.data, ind, ind, fname, ind, ind, ind, ind, ind, ind, reach_s, reach_s, reach_f,
        4 + reach_f);
    for (size_t a = 0; a < n_arr && !rc; a++) {
        if (!arr[a].read)
            continue;
        int rs = arr[a].rs, rf = arr[a].rf;
        rc = hk_buf_printf(&w,
            "%s// %s: rows hk_s0 - %d .. hk_s0 + HK_ROWS - 1 + %d, columns hk_f0 - %d .. hk_f0 + 3 + %d\n" /* i18n: not for people */
            "%sfloat hk_a%zu[HK_ROWS + %d][%d];\n"
            "%s#pragma unroll\n"
            "%sfor (int hk_j = 0; hk_j < HK_ROWS + %d; hk_j++) {\n"
            "%s    const float *hk_p = %s + (hk_s0 + hk_j - %d) * hk_nf + hk_f0;\n"
            "%s    if (hk_vec) {\n"
            "%s        const float4 hk_q = *reinterpret_cast<const float4 *>(hk_p);\n"
            "%s        hk_a%zu[hk_j][%d] = hk_q.x;\n"
            "%s        hk_a%zu[hk_j][%d] = hk_q.y;\n"
            "%s        hk_a%zu[hk_j][%d] = hk_q.z;\n"
            "%s        hk_a%zu[hk_j][%d] = hk_q.w;\n"
            "%s    } else {\n"
            "%s        #pragma unroll\n"
            "%s        for (int hk_c = 0; hk_c < 4; hk_c++)\n"
            "%s            hk_a%zu[hk_j][%d + hk_c] = hk_p[hk_c];\n"
            "%s    }\n",
            in3, arr[a].p->name, rs, rs, rf, rf,
            in3, a, 2 * rs, 4 + 2 * rf,
            in3, in3, 2 * rs,
            in3, arr[a].p->name, rs,
            in3, in3,
            in3, a, rf, in3, a, rf + 1, in3, a, rf + 2, in3, a, rf + 3,
            in3, in3, in3, in3, a, rf, in3);
        if (!rc && rf)
            rc = hk_buf_printf(&w,
                "%s    #pragma unroll\n" /* i18n: not for people */
                "%s    for (int hk_c = 1; hk_c <= %d; hk_c++) {\n"
                "%s        hk_a%zu[hk_j][%d - hk_c] = hk_p[-hk_c];\n"
                "%s        hk_a%zu[hk_j][%d + hk_c] = hk_p[3 + hk_c];\n"
                "%s    }\n",
                in3, in3, rf, in3, a, rf, in3, a, rf + 3, in3);
        if (!rc)
            rc = hk_buf_printf(&w, "%s}\n", in3);
    }
    for (size_t a = 0; a < n_arr && !rc; a++) {
        if (!arr[a].written)
            continue;
        rc = hk_buf_printf(&w,
            "%s// %s: the points' values, and whether each was written\n" /* i18n: not for people */
            "%sfloat hk_o%zu[HK_ROWS][4] = {};\n"
            "%sbool hk_m%zu[HK_ROWS][4] = {};\n",
            in3, arr[a].p->name, in3, a, in3, a);
        if (!rc && arr[a].read)   /* read too (at the element itself): what memory holds */
            rc = hk_buf_printf(&w,
                "%s#pragma unroll\n" /* i18n: not for people */
                "%sfor (int hk_j = 0; hk_j < HK_ROWS; hk_j++) {\n"
                "%s    #pragma unroll\n"
                "%s    for (int hk_c = 0; hk_c < 4; hk_c++)\n"
                "%s        hk_o%zu[hk_j][hk_c] = hk_a%zu[hk_j][hk_c];\n"
                "%s}\n",
                in3, in3, in3, in3, in3, a, a, in3);
    }
    if (!rc)
        rc = hk_buf_printf(&w,
            "%s#pragma unroll\n" /* i18n: not for people */
            "%sfor (int hk_r = 0; hk_r < HK_ROWS; hk_r++) {\n"
            "%s    #pragma unroll\n"
            "%s    for (int hk_c = 0; hk_c < 4; hk_c++) {\n"
            "%s"
            "%s    }\n"
            "%s}\n",
            in3, in3, in3, in3, point.data, in3, in3);
    /* the float4 store indexes a float4 array (not *(float4 *)p): nvcc then keeps every
     * row's store one 16-byte store (with *(float4 *)p it split a row whose value came out
     * of a branch into 4 scalar stores) */
    for (size_t a = 0; a < n_arr && !rc; a++) {
        if (!arr[a].written)
            continue;
        rc = hk_buf_printf(&w,
            "%s#pragma unroll\n" /* i18n: not for people */
            "%sfor (int hk_r = 0; hk_r < HK_ROWS; hk_r++) {\n"
            "%s    float *hk_p = %s + (hk_s0 + hk_r) * hk_nf + hk_f0;\n"
            "%s    if (hk_vec && hk_m%zu[hk_r][0] && hk_m%zu[hk_r][1] && hk_m%zu[hk_r][2] && hk_m%zu[hk_r][3]) {\n"
            "%s        float4 hk_w;\n"
            "%s        hk_w.x = hk_o%zu[hk_r][0];\n"
            "%s        hk_w.y = hk_o%zu[hk_r][1];\n"
            "%s        hk_w.z = hk_o%zu[hk_r][2];\n"
            "%s        hk_w.w = hk_o%zu[hk_r][3];\n"
            "%s        reinterpret_cast<float4 *>(%s)[((hk_s0 + hk_r) * hk_nf + hk_f0) / 4] = hk_w;\n"
            "%s    } else {\n"
            "%s        #pragma unroll\n"
            "%s        for (int hk_c = 0; hk_c < 4; hk_c++)\n"
            "%s            if (hk_m%zu[hk_r][hk_c])\n"
            "%s                hk_p[hk_c] = hk_o%zu[hk_r][hk_c];\n"
            "%s    }\n"
            "%s}\n",
            in3, in3, in3, arr[a].p->name, in3, a, a, a, a, in3, in3, a, in3, a, in3, a, in3, a, in3,
            arr[a].p->name, in3, in3, in3, in3, a, in3, a, in3, in3);
    }
    if (!rc)
        rc = hk_buf_printf(&w,
            "%s} else {\n" /* i18n: not for people */
            "%s    // at an edge of the grid: each point of the unit that exists, from memory\n"
            "%s    for (long long hk_s = hk_s0; hk_s < hk_s0 + HK_ROWS && hk_s < hk_ns; hk_s++) {\n"
            "%s        for (long long hk_f = hk_f0; hk_f < hk_f0 + 4 && hk_f < hk_nf; hk_f++) {\n"
            "%s"
            "%s        }\n"
            "%s    }\n"
            "%s}\n"
            "%shk_fu += hk_dr;\n"
            "%shk_su += hk_dq;\n"
            "%sif (hk_fu >= hk_nfu) {\n"
            "%s    hk_fu -= hk_nfu;\n"
            "%s    hk_su++;\n"
            "%s}\n"
            "%s        }\n"
            "%s    }\n"
            "%s}",
            in2, in2, in2, in2, edge.data, in2, in2, in2, in2, in2, in2, in2, in2, in2, ind, ind, ind);
    if (!rc)
        rc = hk_buf_append(b, w.data, w.len);
out:
    for (size_t i = 0; i < n_reps; i++)
        hk_free(reps[i].str);
    hk_buf_free(&point);
    hk_buf_free(&edge);
    hk_buf_free(&align);
    hk_buf_free(&w);
    if (rc == HK_ETOOBIG) {
        snprintf(why, why_size, "%s", EN(RW_G2_WINDOW_TOO_LONG));
        rc = HK_OK;
    }
    return rc;
}

int rw_grid_stride_2d(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    g2 g;
    memset(&g, 0, sizeof g);
    struct hk_buf b;
    hk_buf_init(&b, RW_TEXT_MAX);
    char *why_alloc = NULL, *bnd[2] = {NULL, NULL}, *ty[2] = {NULL, NULL};
    const char *why = NULL;
    size_t mid[G2_MAX_DECLS][2], n_mid = 0;   /* declarations after the first index */
    bool per_elem[G2_MAX_DECLS] = {false};
    size_t mid_names[G2_MAX_DECLS * 4], n_mid_names = 0, name_owner[G2_MAX_DECLS * 4];

    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    g.ts = &ts;
    g.f = f;
    if (ts.n < 2 || !rwl_tok_is(&ts, 0, "{") || !rwl_tok_is(&ts, ts.n - 1, "}")) {
        why = EN(RW_ROWS_BODY_UNREADABLE);
        goto na;
    }
    size_t end = ts.n - 1;
    for (size_t k = 0; k < end; k++)
        if (rwl_tok_is_ident(&ts, k, "hk_tid") || rwl_tok_is_ident(&ts, k, "hk_nthreads")) {
            why = EN(RW_G2_ALREADY_FLAT);
            goto na;
        }
    static const char *const own_names[] = {"hk_ns", "hk_nf", "hk_units", "hk_u", "hk_s0", "hk_s1",
                                            "hk_s", "hk_f", "HK_STRIP"};
    for (size_t k = 0; k < end; k++)
        for (size_t w = 0; w < HK_ARRAY_LEN(own_names); w++)
            if (rwl_tok_is_ident(&ts, k, own_names[w])) {
                why_alloc = hk_asprintf(EN(RW_G2_NAME_TAKEN),
                                        own_names[w]);
                goto na_alloc;
            }
    for (size_t k = 0; k < end; k++)
        if (rwl_tok_is_ident(&ts, k, "__shared__")) {
            why = EN(RW_G2_SHARED);
            goto na;
        }

    /* ---- the top-level statements: [declarations] index [declarations] index [declarations] */
    size_t s = 1, n_idx = 0;
    while (s < end) {
        size_t e = rwl_stmt_end(&ts, s, end);
        char axis = index_decl(&ts, s, e, &g, (int)n_idx, &rc);
        if (rc)
            goto out;
        if (axis) {
            if (axis == 'z') {
                why = EN(RW_G2_Z_INDEX);
                goto na;
            }
            if (n_idx == 2) {
                why = EN(RW_G2_MORE_INDICES);
                goto na;
            }
            if (n_idx == 1 && g.axis[0] == axis) {
                why_alloc = hk_asprintf(EN(RW_G2_SAME_AXIS), axis);
                goto na_alloc;
            }
            n_idx++;
            s = e;
            continue;
        }
        size_t before = n_mid_names;
        if (!rwl_is_hoistable_decl(&ts, s, e, "", mid_names, &n_mid_names, HK_ARRAY_LEN(mid_names)))
            break;
        if (n_idx == 0) {   /* before the indices: stays where it is */
            n_mid_names = before;
        } else {
            if (n_mid == G2_MAX_DECLS) {
                why = EN(RW_G2_DECLS_BETWEEN);
                goto na;
            }
            for (size_t q = before; q < n_mid_names; q++)
                name_owner[q] = n_mid;
            mid[n_mid][0] = s;
            mid[n_mid][1] = e;
            n_mid++;
        }
        s = e;
    }
    if (n_idx == 0) {
        why = EN(RW_G2_NOT_2D);
        goto na;
    }
    if (n_idx == 1) {
        why_alloc = hk_asprintf(EN(RW_G2_ONE_INDEX),
                                (int)tok_len(&ts, g.name_tok[0]), text + ts.t[g.name_tok[0]].start,
                                g.axis[0]);
        goto na_alloc;
    }
    size_t region = g.decl_tok[0];
    /* threadIdx & co. only inside the two index formulas */
    for (size_t k = 1; k < end; k++)
        if (is_coord(&ts, k) && !(k >= g.init_a[0] && k < g.init_b[0]) &&
            !(k >= g.init_a[1] && k < g.init_b[1])) {
            why = EN(RW_G2_COORDS_OUTSIDE);
            goto na;
        }
    /* declarations that depend on an index (or on such a declaration) move into the loop */
    for (size_t d = 0; d < n_mid; d++) {
        for (size_t k = mid[d][0]; k < mid[d][1] && !per_elem[d]; k++) {
            if (index_at(&g, k) >= 0)
                per_elem[d] = true;
            for (size_t q = 0; q < n_mid_names && !per_elem[d]; q++)
                if (name_owner[q] < d && per_elem[name_owner[q]] && ts.t[k].kind == T_IDENT &&
                    !member_or_scope(&ts, k) && rwl_same_tok(&ts, k, mid_names[q]))
                    per_elem[d] = true;
        }
    }

    size_t n_per_elem = 0;
    for (size_t d = 0; d < n_mid; d++)
        n_per_elem += per_elem[d];

    /* ---- the bounds check */
    size_t body_a, body_b, cclose;
    uint32_t copy_from, copy_to, repl_end;
    const char *form;
    if (rwl_return_guard(&ts, s, rwl_stmt_end(&ts, s, end), &cclose)) {
        while (s < end && rwl_return_guard(&ts, s, rwl_stmt_end(&ts, s, end), &cclose)) {
            if ((why = condition(&ts, s + 2, cclose, &g, false)))
                goto na;
            s = rwl_stmt_end(&ts, s, end);
        }
        if (s >= end) {
            why = EN(RW_G2_NOTHING_FOLLOWS);
            goto na;
        }
        body_a = s;
        body_b = end;
        copy_from = ts.t[s].start;
        copy_to = ts.t[end].start;
        repl_end = 0;   /* the trimmed copy_to, below */
        form = "if (... >= ...) return";
    } else {
        if (!rwl_tok_is_ident(&ts, s, "if") || !rwl_tok_is(&ts, s + 1, "(")) {
            why = EN(RW_G2_NO_BOUNDS_CHECK);
            goto na;
        }
        cclose = rwl_match_close(&ts, s + 1);
        if (cclose >= end) {
            why = EN(RW_G2_UNBALANCED_COND);
            goto na;
        }
        size_t if_end = rwl_stmt_end(&ts, s, end);
        size_t then_end = rwl_stmt_end(&ts, cclose + 1, end);
        if (then_end != if_end) {
            why = EN(RW_G2_ELSE);
            goto na;
        }
        if (if_end != end) {
            why = EN(RW_G2_STMTS_FOLLOW);
            goto na;
        }
        if ((why = condition(&ts, s + 2, cclose, &g, true)))
            goto na;
        body_a = cclose + 1;
        body_b = then_end;
        repl_end = ts.t[then_end - 1].end;
        if (rwl_tok_is(&ts, body_a, "{")) {
            copy_from = ts.t[body_a].end;
            copy_to = ts.t[body_b - 1].start;
            body_a++;
            body_b--;
        } else {
            copy_from = ts.t[body_a].start;
            copy_to = ts.t[body_b - 1].end;
        }
        form = "if (... < ... && ...)";
    }
    while (copy_from < copy_to && isspace((unsigned char)text[copy_from]))
        copy_from++;
    while (copy_to > copy_from && isspace((unsigned char)text[copy_to - 1]))
        copy_to--;
    if (!repl_end)
        repl_end = copy_to;
    if (body_a >= body_b) {
        why = EN(RW_G2_ELEM_EMPTY);
        goto na;
    }
    if (g.ba[0] == g.bb[0] || g.ba[1] == g.bb[1]) {
        why = EN(RW_G2_NOT_BOTH_BOUNDED);
        goto na;
    }
    for (int i = 0; i < 2; i++)
        for (size_t k = g.ba[i]; k < g.bb[i]; k++)
            for (size_t q = 0; q < n_mid_names; q++)
                if (per_elem[name_owner[q]] && ts.t[k].kind == T_IDENT && rwl_same_tok(&ts, k, mid_names[q])) {
                    why = EN(RW_G2_BOUND_VIA_DECL);
                    goto na;
                }
    /* preprocessor lines in the code that is replaced would be lost */
    for (uint32_t q = ts.t[region].start; q < copy_from; q++) {
        if (text[q] != '#')
            continue;
        uint32_t p = q;
        while (p > 0 && (text[p - 1] == ' ' || text[p - 1] == '\t'))
            p--;
        if (p == 0 || text[p - 1] == '\n') {
            why = EN(RW_G2_PREPROCESSOR);
            goto na;
        }
    }

    /* ---- the per-element code: the moved declarations and the body */
    for (size_t d = 0; d < n_mid; d++)
        if (per_elem[d] && (why = element_problem(&ts, mid[d][0], mid[d][1])))
            goto na;
    if ((why = element_problem(&ts, body_a, body_b)))
        goto na;
    /* scan ranges: the moved declarations, then the body */
    size_t ranges[G2_MAX_DECLS + 1][2], n_ranges = 0;
    for (size_t d = 0; d < n_mid; d++)
        if (per_elem[d]) {
            ranges[n_ranges][0] = mid[d][0];
            ranges[n_ranges][1] = mid[d][1];
            n_ranges++;
        }
    ranges[n_ranges][0] = body_a;
    ranges[n_ranges][1] = body_b;
    n_ranges++;
    for (size_t r = 0; r < n_ranges; r++) {
        for (size_t k = ranges[r][0]; k < ranges[r][1]; k++) {
            if (ts.t[k].kind != T_IDENT || member_or_scope(&ts, k))
                continue;
            if (index_at(&g, k) >= 0) {
                if (changed_at(&ts, k)) {
                    why = EN(RW_G2_CHANGES_INDEX);
                    goto na;
                }
                continue;
            }
            if (!changed_at(&ts, k))
                continue;
            /* a hoisted declaration, one before the indices, or a parameter: state that
             * would now carry from one element to the next */
            bool outer = outer_name(&ts, k, f, 1, region);
            for (size_t q = 0; q < n_mid_names && !outer; q++)
                outer = !per_elem[name_owner[q]] && rwl_same_tok(&ts, k, mid_names[q]);
            if (outer) {
                why_alloc = hk_asprintf(EN(RW_G2_CARRIES_STATE),
                                        (int)tok_len(&ts, k), text + ts.t[k].start);
                goto na_alloc;
            }
        }
    }
    /* aliases: `T x = <expression of the indices>`, in order */
    for (size_t r = 0; r < n_ranges; r++)
        for (size_t k = ranges[r][0]; k < ranges[r][1]; k++) {
            if (!declares_at(&ts, k))
                continue;
            size_t e = k + 2;
            int d = 0;
            while (e < ranges[r][1] && !(d == 0 && (rwl_tok_is(&ts, e, ";") || rwl_tok_is(&ts, e, ",")))) {
                if (rwl_tok_is(&ts, e, "(") || rwl_tok_is(&ts, e, "[") || rwl_tok_is(&ts, e, "{"))
                    d++;
                else if (rwl_tok_is(&ts, e, ")") || rwl_tok_is(&ts, e, "]") || rwl_tok_is(&ts, e, "}"))
                    d--;
                e++;
            }
            if (!mentions(&g, k + 2, e))
                continue;
            if (g.n_al == G2_MAX_ALIASES) {
                why = EN(RW_G2_INDEX_DECLS);
                goto na;
            }
            g2_cls c = cls_expr(&g, k + 2, e, 0);
            /* changed later: its uses are not the formula any more */
            for (size_t q = e; q < body_b && !c.bad; q++)
                if (ts.t[q].kind == T_IDENT && !member_or_scope(&ts, q) && rwl_same_tok(&ts, q, k) &&
                    changed_at(&ts, q))
                    c = cls_bad();
            g.al[g.n_al++] = (g2_alias){k, c, k + 2, e};
        }

    /* ---- which index is contiguous: every access that combines both must agree */
    size_t votes[2] = {0, 0}, example[2] = {0, 0};
    for (size_t r = 0; r < n_ranges; r++)
        for (size_t k = ranges[r][0]; k < ranges[r][1]; k++) {
            g2_cls c = {0, 0, false};
            size_t a0 = k, last;
            if (rwl_tok_is(&ts, k, "[") && k > 0 &&
                (ts.t[k - 1].kind == T_IDENT || rwl_tok_is(&ts, k - 1, ")")) &&
                !rwl_tok_is(&ts, k - 1, "]")) {
                if (ts.t[k - 1].kind == T_IDENT) {
                    a0 = k - 1;
                    if (index_at(&g, k - 1) >= 0)
                        c = cls_bad();
                    else if (alias_at(&g, k - 1))
                        c = alias_at(&g, k - 1)->cls;
                } else {
                    a0 = match_open(&ts, k - 1);
                    if (a0 >= ts.n) {
                        why = EN(RW_G2_UNBALANCED_PARENS);
                        goto na;
                    }
                    if (a0 > 0 && ts.t[a0 - 1].kind == T_IDENT && mentions(&g, a0, k))
                        c = cls_bad();   /* f(...)[...] */
                    else
                        c = cls_expr(&g, a0 + 1, k - 1, 0);
                }
                size_t j = k;
                bool first = true;
                last = k;
                while (rwl_tok_is(&ts, j, "[")) {
                    size_t cl = rwl_match_close(&ts, j);
                    if (cl >= ts.n) {
                        why = EN(RW_G2_UNBALANCED_BRACKETS);
                        goto na;
                    }
                    if (!first)   /* A[e1][e2]: e1 strides whole rows */
                        c = (g2_cls){0, c.u | c.s, c.bad};
                    c = cls_join(c, cls_expr(&g, j + 1, cl, 0));
                    first = false;
                    last = cl;
                    j = cl + 1;
                }
            } else if (rwl_tok_is(&ts, k, "*") && rwl_unary_position(&ts, k) && k + 1 < ts.n &&
                       (rwl_tok_is(&ts, k + 1, "(") || alias_at(&g, k + 1))) {
                last = rwl_tok_is(&ts, k + 1, "(") ? rwl_match_close(&ts, k + 1) : k + 1;
                if (last >= ts.n) {
                    why = EN(RW_G2_UNBALANCED_PARENS);
                    goto na;
                }
                c = cls_expr(&g, k + 1, last + 1, 0);
            } else {
                continue;
            }
            unsigned bits = c.u | c.s;
            if (!c.bad && bits != 3)
                continue;   /* one index or none: a row or column vector, or a scalar */
            if (c.bad || c.u == 0 || c.u == 3) {
                why_alloc = hk_asprintf(EN(RW_G2_CANNOT_TELL),
                                        (int)(ts.t[last].end - ts.t[a0].start), text + ts.t[a0].start,
                                        c.bad ? EN(RW_G2_INDEX_OTHER) :
                                        c.u == 0 ? EN(RW_G2_BOTH_SCALED) : EN(RW_G2_BOTH_UNSCALED));
                goto na_alloc;
            }
            int fast = c.u == 1 ? 0 : 1;
            if (votes[fast]++ == 0)
                example[fast] = a0;
        }
    if (votes[0] == 0 && votes[1] == 0) {
        why = EN(RW_G2_NO_COMBINED);
        goto na;
    }
    if (votes[0] && votes[1]) {
        const rw_tok *e0 = &ts.t[example[0]], *e1 = &ts.t[example[1]];
        why_alloc = hk_asprintf(EN(RW_G2_MIXED),
                                (int)(e0->end - e0->start), text + e0->start,
                                (int)tok_len(&ts, g.name_tok[0]), text + ts.t[g.name_tok[0]].start,
                                (int)(e1->end - e1->start), text + e1->start,
                                (int)tok_len(&ts, g.name_tok[1]), text + ts.t[g.name_tok[1]].start);
        goto na_alloc;
    }
    int fi = votes[0] ? 0 : 1, si = 1 - fi;   /* fast and slow index */

    /* ---- the new code */
    char ind[64];
    line_indent(text, ts.t[region].start, ind, sizeof ind);
    for (int i = 0; i < 2; i++)
        if (!(bnd[i] = bound_text(&ts, g.ba[i], g.bb[i])) || !(ty[i] = index_type(&g, i))) {
            rc = HK_ENOMEM;
            goto out;
        }
    char fname[128], sname[128];
    snprintf(fname, sizeof fname, "%.*s", (int)tok_len(&ts, g.name_tok[fi]), text + ts.t[g.name_tok[fi]].start);
    snprintf(sname, sizeof sname, "%.*s", (int)tok_len(&ts, g.name_tok[si]), text + ts.t[g.name_tok[si]].start);
    for (size_t d = 0; d < n_mid && !rc; d++)
        if (!per_elem[d])
            rc = hk_buf_printf(&b, "%.*s\n%s", (int)(ts.t[mid[d][1] - 1].end - ts.t[mid[d][0]].start),
                               text + ts.t[mid[d][0]].start, ind);
    if (rc)
        goto out;
    bool flat = false;
    char win_why[256] = "";
    if (n_per_elem == 0 &&
        (rc = flat_elements(&g, text, body_a, body_b, fi, si, bnd[si], bnd[fi], ind, &b, &flat)))
        goto out;
    if (flat)
        goto edit;
    /* a stencil: register windows over units of 4 x HK_ROWS points */
    if ((rc = window_elements(&g, text, ranges, n_ranges, mid, per_elem, n_mid, copy_from, copy_to, body_a,
                              body_b, fi, si, bnd, ty, ind, &b, win_why, sizeof win_why)))
        goto out;
    if (!win_why[0])
        goto edit;
    rc = hk_buf_printf(&b,
        "// hk grid_stride_2d: the (%s, %s) elements in strips of HK_STRIP %s values; threads side\n" /* i18n: not for people */
        "%s// by side take neighbouring %s (contiguous in memory) and each walks its strip in\n"
        "%s// order, so rows read a step before (a stencil's neighbours) are still in L1; any grid\n"
        "%s// and block shape\n"
        "%s{\n"
        "%s    constexpr long long HK_STRIP = 16;\n"
        "%s    const long long hk_ns = %s, hk_nf = %s;\n",
        sname, fname, sname, ind, fname, ind, ind, ind, ind, ind, bnd[si], bnd[fi]);
    if (!rc)
        rc = thread_index_lines(&b, ind);
    if (!rc)
        rc = hk_buf_printf(&b,
        "%s    if (hk_ns > 0 && hk_nf > 0) {\n" /* i18n: not for people */
        "%s        // one division per strip, none per element\n"
        "%s        const long long hk_units = (hk_ns + HK_STRIP - 1) / HK_STRIP * hk_nf;\n"
        "%s        for (long long hk_u = hk_tid; hk_u < hk_units; hk_u += hk_nthreads) {\n"
        "%s            const long long hk_f = hk_u %% hk_nf, hk_s0 = hk_u / hk_nf * HK_STRIP;\n"
        "%s            const long long hk_s1 = hk_s0 + HK_STRIP < hk_ns ? hk_s0 + HK_STRIP : hk_ns;\n"
        "%s            for (long long hk_s = hk_s0; hk_s < hk_s1; hk_s++) {\n"
        "%s                const %s %s = (%s)hk_s;\n"
        "%s                const %s %s = (%s)hk_f;\n",
        ind, ind, ind, ind, ind, ind, ind, ind, ty[si], sname, ty[si], ind, ty[fi], fname, ty[fi]);
    if (rc)
        goto out;
    char inner[80];
    snprintf(inner, sizeof inner, "%s                ", ind);
    for (size_t d = 0; d < n_mid && !rc; d++)
        if (per_elem[d])
            rc = hk_buf_printf(&b, "%s%.*s\n", inner, (int)(ts.t[mid[d][1] - 1].end - ts.t[mid[d][0]].start),
                               text + ts.t[mid[d][0]].start);
    if (!rc)
        rc = hk_buf_appends(&b, inner);
    if (!rc)
        rc = append_body(&b, &ts, text, copy_from, copy_to, body_a, body_b, inner);
    if (!rc)
        rc = hk_buf_printf(&b, "\n%s            }\n%s        }\n%s    }\n%s}", ind, ind, ind, ind);
    if (rc)
        goto out;
edit:
    if ((rc = rwl_edits_add_owned(&es, ts.t[region].start, repl_end, hk_buf_steal(&b))))
        goto out;
    char *bs = rwl_tok_text(&ts, g.ba[si], g.bb[si]), *bf = rwl_tok_text(&ts, g.ba[fi], g.bb[fi]);
    /* one sentence per form: the flat loop, the register windows, the strips (with why the
     * windows could not be used) */
    char *desc = NULL;
    if (bs && bf && flat)
        desc = hk_asprintf(EN(RW_G2_DESC_FLAT), f->name, bs, bf, fname, g.axis[fi], sname, form);
    else if (bs && bf && !win_why[0])
        desc = hk_asprintf(EN(RW_G2_DESC_STENCIL), f->name, bs, bf, fname, g.axis[fi], sname, form);
    else if (bs && bf)
        desc = hk_asprintf(EN(RW_G2_DESC_STRIPS), f->name, bs, bf, fname, g.axis[fi], sname, form, win_why);
    hk_free(bs);
    hk_free(bf);
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    goto out;
na_alloc:
    if (!why_alloc) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "grid_stride_2d", f->name, why_alloc));
    goto out;
na:
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "grid_stride_2d", f->name, why));
out:
    hk_free(why_alloc);
    for (int i = 0; i < 2; i++) {
        hk_free(bnd[i]);
        hk_free(ty[i]);
    }
    hk_buf_free(&b);
    g2_free(&g);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptors (registry.h) ---- */
static int emit_grid_stride_2d(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_grid_stride_2d(c->text, c->len, c->m, c->kernel, out);
}

const rw_descriptor rw_grid_stride_2d_desc = {
    .name = "grid_stride_2d",
    .summary = "a 2-D elementwise kernel becomes one coalesced grid-stride loop", /* i18n: not for people */
    .flags = 0,
    .emit = emit_grid_stride_2d,
};

