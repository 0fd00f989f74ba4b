/* vectorize_2d (issue 13, session 49): a 2-D elementwise kernel -- x index c over the columns,
 * y index r over the rows, both bounded, every global access the row's element P[r * C + c],
 * the column's P[c], or one the same along the row (P[r], a scalar) -- gets vector loads and
 * stores along its row: each thread takes W consecutive columns (the grid divided by W along
 * x, rw_result.grid_divisor; a grid-stride loop over the row's vectors, so any grid covers
 * the row), one vector per row-contiguous or per-column pointer, the per-element code once
 * per lane with the lane's own c and the original arithmetic in its order (bit-identical).
 * The vector path runs when C % W == 0 and every vectorized pointer's base is aligned to its
 * vector (each row's start then is too); otherwise the original per-element code runs in a
 * scalar loop over the row. The two indices, the bounds and the stores are found in the text
 * (rewrite_lex.h); which element each read and store names is the kernel model's index form
 * (any spelling it reads: temporaries, casts, unsigned and 64-bit types, macros, helpers).
 * Refused besides: a vectorized read under a condition (an if's branch, after `?`, `&&` or
 * `||`: the vector load would read for every lane what the original may never read, a null
 * `bias` or a buffer of fewer rows), and a name declared outside the per-element code written
 * in it, or passed whole to a reference parameter of a function of the file (every lane's
 * copy would write it again: `acc += x[e]` would sum the lanes), and a
 * pointer read both at the row's element and at the column's (one vector per pointer), and a
 * declaration before the bounds check that reads threadIdx.x, blockIdx.x or gridDim.x other
 * than through c (`int odd = threadIdx.x & 1;`: a lane's column was another thread's, and
 * the grid along x is divided).
 * layernorm's normalize pass (tests/data/probes/rd_ln_norm.cu) is the case it was built for. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

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

#define V2_MAX_DECLS 32
#define V2_MAX_PTRS 16
#define V2_MAX_CUTS 128
#define V2_TERMS 64

enum v2_class { V2_UNIFORM, V2_ROW, V2_COL, V2_OTHER };

/* A top-level declaration before the bounds check. */
typedef struct {
    size_t a, b;      /* its tokens, ';' included */
    size_t name;      /* the declared name's token */
    bool x_dep;       /* depends on the x index: copied into every lane */
    size_t ta, te;    /* the statement's type (and the first declarator's `*`s) */
    bool plain;       /* the declarator has nothing of its own before its name */
} v2_decl;

/* A buffer the per-element code touches through a vector: a pointer parameter. */
typedef struct {
    const an_param *p;
    bool row, col;    /* read (or stored) at the row's element / at the column */
    bool stored;
    size_t store_seq; /* its store's place among the stores (the text's order) */
    bool loaded;      /* a vectorized read of it */
    const char *vtype;/* float4, int2, __half2 ... */
    int vbytes;
} v2_ptr;

/* A byte range of the per-element code a lane's copy replaces by a vector component. */
typedef struct {
    uint32_t start, end;
    size_t ptr;
    bool store;
} v2_cut;

typedef struct {
    const char *text;
    const rw_toks *ts;
    const an_function *f;
    const an_model *m;
    km_kernel *km;
    v2_decl decl[V2_MAX_DECLS];
    size_t n_decl;
    long cx, ry;              /* the index declarations (into decl) */
    size_t bnd[2][2];         /* bound tokens [a, b) of r (0) and c (1) */
    km_form cform;            /* c's bound as the model reads it */
    size_t ba, bb;            /* the per-element code's tokens */
    size_t region_a;          /* first token the new block replaces (the bounds check) */
    v2_ptr ptr[V2_MAX_PTRS];
    size_t n_ptr;
    v2_cut cut[V2_MAX_CUTS];
    size_t n_cut;
    size_t n_stores;          /* stores read so far (v2_ptr.store_seq) */
    char *noalias;            /* run-time terms: pointers read after a store to another */
    bool oom;                 /* an allocation failed while reading (not a refusal) */
} v2;

static bool is_coord_word(const rw_toks *ts, size_t k)
{
    return rwl_tok_is_ident(ts, k, "threadIdx") || rwl_tok_is_ident(ts, k, "blockIdx") ||
           rwl_tok_is_ident(ts, k, "blockDim") || rwl_tok_is_ident(ts, k, "gridDim");
}

static bool member_or_scope(const rw_toks *ts, size_t k)
{
    return k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->") || rwl_tok_is(ts, k - 1, "::"));
}

static bool same_name(const v2 *g, size_t k, size_t name)
{
    return k < g->ts->n && g->ts->t[k].kind == T_IDENT && !member_or_scope(g->ts, k) && rwl_same_tok(g->ts, k, name);
}

/* The declaration (into decl) whose name token k names, or -1. */
static long decl_named(const v2 *g, size_t k)
{
    for (size_t i = g->n_decl; i-- > 0;)
        if (g->decl[i].name < k && same_name(g, k, g->decl[i].name))
            return (long)i;
    return -1;
}

static const an_param *param_of(const v2 *g, const char *name)
{
    for (size_t i = 0; i < g->f->n_params; i++)
        if (g->f->params[i].name && strcmp(g->f->params[i].name, name) == 0)
            return &g->f->params[i];
    return NULL;
}

/* The model's local of that name declared on that line (the last such), or NULL. */
static const km_local *model_local(const v2 *g, size_t name_tok)
{
    size_t n;
    const km_local *l = km_locals(g->km, &n);
    const rw_toks *ts = g->ts;
    size_t nl = ts->t[name_tok].end - ts->t[name_tok].start;
    uint32_t line = (uint32_t)rwl_line_at(g->text, ts->t[name_tok].start);
    const km_local *found = NULL;
    for (size_t i = 0; i < n; i++)
        if (l[i].name && strlen(l[i].name) == nl && !memcmp(l[i].name, g->text + ts->t[name_tok].start, nl) &&
            l[i].line == line)
            found = &l[i];
    return found;
}

/* ------------------------------------------------------------------ the index forms */

/* f without the terms that hold atom a (copied into buf, cap terms). */
static bool form_without(km_form f, uint32_t a, km_term *buf, uint32_t cap, km_form *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f.n; i++) {
        bool has = false;
        for (uint32_t j = 0; j < f.t[i].n; j++)
            has |= f.t[i].atoms[j] == a;
        if (has)
            continue;
        if (n == cap)
            return false;
        buf[n++] = f.t[i];
    }
    *out = (km_form){buf, n};
    return true;
}

/* Is the coefficient of a in f exactly the form want (a held once in each of those terms)? */
static bool coefficient_is(const km_kernel *k, km_form f, uint32_t a, km_form want)
{
    km_term t[V2_TERMS];
    uint32_t n;
    if (!km_form_coefficient(k, f, a, t, V2_TERMS, &n))
        return false;
    return km_form_equal((km_form){t, n}, want);
}

/* Does f mention the thread's x coordinate (threadIdx.x, blockIdx.x), also inside reads and
 * opaque atoms? */
static bool x_dependent(const km_kernel *k, km_form f)
{
    return km_form_mentions_kind(k, f, KM_ATOM_THREAD_IDX, 0) || km_form_mentions_kind(k, f, KM_ATOM_BLOCK_IDX, 0);
}

/* What element index form f names: the row's r * C + c, the column's c, one the same along
 * the row (no x coordinate), or another (a neighbour, a gather, another row length). */
static enum v2_class classify(const v2 *g, km_form f)
{
    const km_kernel *k = g->km;
    uint32_t tx, bx, dx, ty, by, dy;
    if (!x_dependent(k, f))
        return V2_UNIFORM;
    if (!km_builtin_atom(k, KM_ATOM_THREAD_IDX, 0, &tx) || !km_builtin_atom(k, KM_ATOM_BLOCK_IDX, 0, &bx) ||
        !km_builtin_atom(k, KM_ATOM_BLOCK_DIM, 0, &dx))
        return V2_OTHER;
    km_term one = {1, 0, {0}}, dxt = {1, 1, {dx}};
    if (!coefficient_is(k, f, tx, (km_form){&one, 1}) || !coefficient_is(k, f, bx, (km_form){&dxt, 1}))
        return V2_OTHER;
    km_term b1[V2_TERMS], b2[V2_TERMS];
    km_form rest, rest2;
    if (!form_without(f, tx, b1, V2_TERMS, &rest) || !form_without(rest, bx, b2, V2_TERMS, &rest2))
        return V2_OTHER;
    if (x_dependent(k, rest2))
        return V2_OTHER;
    if (rest2.n == 0)
        return V2_COL;
    if (!km_builtin_atom(k, KM_ATOM_THREAD_IDX, 1, &ty) || !km_builtin_atom(k, KM_ATOM_BLOCK_IDX, 1, &by) ||
        !km_builtin_atom(k, KM_ATOM_BLOCK_DIM, 1, &dy) || g->cform.n == 0)
        return V2_OTHER;
    /* rest2 == C * threadIdx.y + C * blockDim.y * blockIdx.y, nothing else */
    if (rest2.n != 2 * g->cform.n || !coefficient_is(k, rest2, ty, g->cform))
        return V2_OTHER;
    km_term t[V2_TERMS];
    uint32_t n;
    if (!km_form_coefficient(k, rest2, by, t, V2_TERMS, &n) || n != g->cform.n ||
        !coefficient_is(k, (km_form){t, n}, dy, g->cform))
        return V2_OTHER;
    return V2_ROW;
}

/* ------------------------------------------------------------------ the shape */

/* Reads the declarations before the bounds check, from token 1 up to the first statement
 * that is not one; *at gets that statement's first token. */
static bool read_prologue(v2 *g, size_t *at, char *why, size_t nwhy)
{
    const rw_toks *ts = g->ts;
    size_t end = ts->n - 1, k = 1;
    g->cx = g->ry = -1;
    while (k < end && rwl_starts_declaration(ts, k)) {
        size_t e = rwl_stmt_end(ts, k, end);
        if (e <= k || !rwl_tok_is(ts, e - 1, ";"))
            break;
        /* each declarator [da, q): `name = value` (the first one after the type) */
        size_t da = k, first_name = ts->n, n_here = 0;
        bool other_x_dep = false;
        int d = 0;
        for (size_t q = k; q < e; q++) {
            if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "{"))
                d++;
            else if (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]") || rwl_tok_is(ts, q, "}"))
                d--;
            if (!(q == e - 1 || (d == 0 && rwl_tok_is(ts, q, ","))))
                continue;
            size_t eq = ts->n;
            int dd = 0;
            for (size_t r = da; r < q && eq == ts->n; r++) {
                if (rwl_tok_is(ts, r, "(") || rwl_tok_is(ts, r, "[") || rwl_tok_is(ts, r, "{"))
                    dd++;
                else if (rwl_tok_is(ts, r, ")") || rwl_tok_is(ts, r, "]") || rwl_tok_is(ts, r, "}"))
                    dd--;
                else if (dd == 0 && rwl_tok_is(ts, r, "="))
                    eq = r;
            }
            if (eq == ts->n || eq == da || ts->t[eq - 1].kind != T_IDENT)
                return rwl_refuse(why, nwhy, ts, g->text, da, "declaration", "%s", EN(RW_V2D_DECL_NO_VALUE));
            size_t name = eq - 1;
            if (first_name == ts->n)
                first_name = name;
            if (g->n_decl == V2_MAX_DECLS)
                return rwl_refuse(why, nwhy, ts, g->text, k, "declaration", "%s", EN(RW_V2D_DECLS_MANY));
            /* nothing read or changed before the bounds check (the indices themselves may
             * come from a helper or a macro the model reads), and whether it moves along x */
            const km_local *ml = model_local(g, name);
            bool is_x = ml && ml->kind == KM_LOCAL_VALUE && km_form_is_global_index(g->km, ml->form, 0) && g->cx < 0;
            bool is_y = !is_x && ml && ml->kind == KM_LOCAL_VALUE && km_form_is_global_index(g->km, ml->form, 1) &&
                        g->ry < 0;
            bool x_dep = is_x;
            for (size_t r = eq + 1; r < q && !is_x && !is_y; r++) {
                if (rwl_tok_is(ts, r, "[") || rwl_tok_is(ts, r, "->") || rwl_tok_is_assign_op(ts, r) ||
                    rwl_tok_is(ts, r, "++") || rwl_tok_is(ts, r, "--") ||
                    (rwl_tok_is(ts, r, "*") && rwl_unary_position(ts, r)) ||
                    (ts->t[r].kind == T_IDENT && rwl_tok_is(ts, r + 1, "(") && !rwl_is_type_word(ts, r) &&
                     !rwl_pure_call_name(ts, r) && !rwl_tok_is_ident(ts, r, "sizeof")))
                    return rwl_refuse(why, nwhy, ts, g->text, r, "declaration", EN(RW_V2D_DECL_READS),
                                      (int)(ts->t[name].end - ts->t[name].start), g->text + ts->t[name].start);
                /* the thread's x coordinate read directly (not through c): a lane's column
                 * was another thread's in the original, and the grid along x is divided */
                if ((rwl_tok_is_ident(ts, r, "threadIdx") || rwl_tok_is_ident(ts, r, "blockIdx") ||
                     rwl_tok_is_ident(ts, r, "gridDim")) &&
                    rwl_tok_is(ts, r + 1, ".") && rwl_tok_is_ident(ts, r + 2, "x"))
                    return rwl_refuse(why, nwhy, ts, g->text, r, "declaration", EN(RW_V2D_DECL_COORD),
                                      (int)(ts->t[name].end - ts->t[name].start), g->text + ts->t[name].start);
                long dn = decl_named(g, r);
                if (dn >= 0 && g->decl[dn].x_dep)
                    x_dep = true;
            }
            /* the same through a macro or a helper the model reads: x-dependent to the model,
             * with no x-dependent name in its text */
            if (!is_x && !is_y && !x_dep && ml && ml->kind == KM_LOCAL_VALUE && x_dependent(g->km, ml->form))
                return rwl_refuse(why, nwhy, ts, g->text, name, "declaration", EN(RW_V2D_DECL_COORD),
                                  (int)(ts->t[name].end - ts->t[name].start), g->text + ts->t[name].start);
            /* c's type: the statement's type words (a later declarator's own `*` makes a
             * pointer, never the index) */
            g->decl[g->n_decl] = (v2_decl){k, e, name, x_dep, k, first_name, da == k || da == name};
            if (is_x)
                g->cx = (long)g->n_decl;
            else if (is_y)
                g->ry = (long)g->n_decl;
            other_x_dep |= x_dep && !is_x;
            g->n_decl++;
            n_here++;
            da = q + 1;
        }
        /* an x-dependent temporary is declared again in every lane: a statement of its own */
        if (n_here > 1 && other_x_dep)
            return rwl_refuse(why, nwhy, ts, g->text, k, "declaration", "%s", EN(RW_V2D_DECLARATORS));
        k = e;
    }
    *at = k;
    uint32_t line = (uint32_t)rwl_line_at(g->text, ts->t[0].start);
    if (g->cx < 0) {
        snprintf(why, nwhy, EN(RW_V2D_NO_X), line);
        return false;
    }
    if (g->ry < 0) {
        snprintf(why, nwhy, EN(RW_V2D_NO_Y), line);
        return false;
    }
    return true;
}

/* One comparison [a, b) of an index with its bound, `i < B` / `B > i` (want_less) or
 * `i >= B` / `B <= i`, into g->bnd. */
static bool comparison(v2 *g, size_t a, size_t b, bool want_less, char *why, size_t nwhy)
{
    const rw_toks *ts = g->ts;
    while (a + 1 < b && rwl_tok_is(ts, a, "(") && rwl_match_close(ts, a) == b - 1) {
        a++;
        b--;
    }
    const char *lt = want_less ? "<" : ">=", *gt = want_less ? ">" : "<=";
    size_t idx[2] = {g->decl[g->ry].name, g->decl[g->cx].name};
    int i = -1;
    size_t ba = 0, bb = 0;
    for (int w = 0; w < 2 && i < 0; w++) {
        if (same_name(g, a, idx[w]) && rwl_tok_is(ts, a + 1, lt)) {
            i = w;
            ba = a + 2;
            bb = b;
        } else if (b >= a + 2 && same_name(g, b - 1, idx[w]) && rwl_tok_is(ts, b - 2, gt)) {
            i = w;
            ba = a;
            bb = b - 2;
        }
    }
    if (i < 0 || ba >= bb)
        return rwl_refuse(why, nwhy, ts, g->text, a, "bounds check", "%s", EN(RW_V2D_GUARD_NOT_PLAIN));
    if (g->bnd[i][0] != g->bnd[i][1])
        return rwl_refuse(why, nwhy, ts, g->text, a, "bounds check", "%s", EN(RW_V2D_GUARD_NOT_PLAIN));
    for (size_t k = ba; k < bb; k++) {
        long d = decl_named(g, k);
        if (is_coord_word(ts, k) || (d >= 0 && (g->decl[d].x_dep || d == g->ry)) || rwl_tok_is(ts, k, "[") ||
            rwl_tok_is(ts, k, "->") || rwl_tok_is_assign_op(ts, k) || rwl_tok_is(ts, k, "++") ||
            rwl_tok_is(ts, k, "--") || rwl_tok_is(ts, k, "?") || rwl_tok_is(ts, k, "&&") || rwl_tok_is(ts, k, "||") ||
            (rwl_tok_is(ts, k, "*") && (k == ba || rwl_unary_position(ts, k))) ||
            (rwl_tok_is(ts, k, "(") && k > ba && ts->t[k - 1].kind == T_IDENT && !rwl_is_type_word(ts, k - 1)))
            return rwl_refuse(why, nwhy, ts, g->text, k, "bounds check", EN(RW_V2D_BOUND),
                              (int)(ts->t[bb - 1].end - ts->t[ba].start), g->text + ts->t[ba].start);
    }
    g->bnd[i][0] = ba;
    g->bnd[i][1] = bb;
    return true;
}

/* Splits condition [a, b) at its top-level sep ("&&" or "||") into comparisons. */
static bool condition(v2 *g, size_t a, size_t b, bool want_less, char *why, size_t nwhy)
{
    const rw_toks *ts = g->ts;
    const char *sep = want_less ? "&&" : "||";
    for (size_t pa = a;;) {
        size_t k = rwl_next_logic_op(ts, pa, b);
        if (k < b && !rwl_tok_is(ts, k, sep))
            return rwl_refuse(why, nwhy, ts, g->text, k, "bounds check", "%s", EN(RW_V2D_GUARD_NOT_PLAIN));
        if (!comparison(g, pa, k, want_less, why, nwhy))
            return false;
        if (k >= b)
            break;
        pa = k + 1;
    }
    return true;
}

/* The bounds check from token k on: early returns then the per-element code to the end, or
 * one `if (r < N && c < C)` without else as the last statement. */
static bool read_guard(v2 *g, size_t k, char *why, size_t nwhy)
{
    const rw_toks *ts = g->ts;
    size_t end = ts->n - 1;
    g->region_a = k;
    memset(g->bnd, 0, sizeof g->bnd);
    size_t cc;
    bool returns = false;
    while (k < end) {
        size_t e = rwl_stmt_end(ts, k, end);
        if (!rwl_return_guard(ts, k, e, &cc))
            break;
        if (!condition(g, k + 2, cc, false, why, nwhy))
            return false;
        returns = true;
        k = e;
    }
    if (returns) {
        g->ba = k;
        g->bb = end;
    } else {
        size_t e = k < end ? rwl_stmt_end(ts, k, end) : end;
        if (k >= end || e != end || !rwl_tok_is_ident(ts, k, "if") || !rwl_tok_is(ts, k + 1, "(") ||
            (cc = rwl_match_close(ts, k + 1)) >= e)
            return rwl_refuse(why, nwhy, ts, g->text, k < end ? k : 0, "statement", "%s", EN(RW_V2D_NO_GUARD));
        size_t s = cc + 1, se = rwl_stmt_end(ts, s, end);
        if (se != e)   /* an else */
            return rwl_refuse(why, nwhy, ts, g->text, se, "bounds check", "%s", EN(RW_V2D_NO_GUARD));
        if (!condition(g, k + 2, cc, true, why, nwhy))
            return false;
        if (rwl_tok_is(ts, s, "{")) {
            g->ba = s + 1;
            g->bb = e - 1;
        } else {
            g->ba = s;
            g->bb = e;
        }
    }
    if (g->bnd[0][0] == g->bnd[0][1] || g->bnd[1][0] == g->bnd[1][1])
        return rwl_refuse(why, nwhy, ts, g->text, g->region_a, "bounds check", "%s", EN(RW_V2D_ONE_BOUND));
    if (g->ba >= g->bb)
        return rwl_refuse(why, nwhy, ts, g->text, g->region_a, "bounds check", "%s", EN(RW_V2D_NO_STORE));
    /* c's bound as the model reads it: the guard `c < C` in force */
    size_t ng;
    const km_guard *gd = km_guards(g->km, &ng);
    for (size_t i = 0; i < ng; i++)
        if (gd[i].op && strcmp(gd[i].op, "<") == 0 && km_form_is_global_index(g->km, gd[i].lhs, 0)) {
            g->cform = gd[i].rhs;
            break;
        }
    if (g->cform.n == 0)
        return rwl_refuse(why, nwhy, ts, g->text, g->bnd[1][0], "bounds check", "%s", EN(RW_V2D_GUARD_NOT_PLAIN));
    return true;
}

/* ------------------------------------------------------------------ the per-element code */

static const char *const lane_words[] = {
    "__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "__syncwarp",
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__shfl", "__shfl_up",
    "__shfl_down", "__shfl_xor", "__ballot_sync", "__ballot", "__any_sync", "__all_sync",
    "__match_any_sync", "__match_all_sync", "__reduce_add_sync", "__activemask", "__threadfence",
    "__threadfence_block", "__shared__", "asm", "static", "volatile", "__nanosleep", "cooperative_groups",
    "this_thread_block", "tiled_partition", "grid_group"};

static const char *vec_type(const char *elem, int width, int *bytes)
{
    static const struct {
        const char *elem, *v2, *v4;
        int size;
    } tab[] = {
        {"float", "float2", "float4", 4},
        {"int", "int2", "int4", 4},
        {"unsigned", "uint2", "uint4", 4},
        {"unsigned int", "uint2", "uint4", 4},
        {"double", "double2", NULL, 8},
        {"__half", "__half2", NULL, 2},
        {"half", "__half2", NULL, 2},
        {"__nv_bfloat16", "__nv_bfloat162", NULL, 2},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(tab); i++)
        if (elem && strcmp(elem, tab[i].elem) == 0) {
            const char *v = width == 2 ? tab[i].v2 : width == 4 ? tab[i].v4 : NULL;
            *bytes = tab[i].size * width;
            return v;
        }
    return NULL;
}

static long ptr_slot(v2 *g, const an_param *p)
{
    for (size_t i = 0; i < g->n_ptr; i++)
        if (g->ptr[i].p == p)
            return (long)i;
    if (g->n_ptr == V2_MAX_PTRS)
        return -1;
    g->ptr[g->n_ptr] = (v2_ptr){.p = p};
    return (long)g->n_ptr++;
}

static bool add_cut(v2 *g, uint32_t s, uint32_t e, size_t ptr, bool store)
{
    if (g->n_cut == V2_MAX_CUTS)
        return false;
    g->cut[g->n_cut++] = (v2_cut){s, e, ptr, store};
    return true;
}

/* The buffer a subscripted name at k names: a pointer parameter, or a local pointer of the
 * prologue into one (the model's base). NULL for anything else (a local array). */
static const an_param *buffer_at(const v2 *g, size_t k)
{
    const rw_toks *ts = g->ts;
    if (ts->t[k].kind != T_IDENT || member_or_scope(ts, k))
        return NULL;
    const an_param *p = rwp_param_named(g->f, ts, k);
    if (p)
        return p->pointer_depth > 0 ? p : NULL;
    long d = decl_named(g, k);
    if (d < 0)
        return NULL;
    const km_local *ml = model_local(g, g->decl[d].name);
    return ml && ml->kind == KM_LOCAL_POINTER && ml->base ? param_of(g, ml->base) : NULL;
}

/* Is the lvalue starting at the name at k written there: `x = `, `x.m += `, `x[i]++`, `++x`,
 * `&x` (members, subscripts and `->` followed to the operator)? */
static bool lvalue_written(const rw_toks *ts, size_t k, size_t end)
{
    if (k > 0 && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--") ||
                  (rwl_tok_is(ts, k - 1, "&") && rwl_unary_position(ts, k - 1))))
        return true;
    size_t q = k + 1;
    for (;;) {
        if (q + 1 < end && (rwl_tok_is(ts, q, ".") || rwl_tok_is(ts, q, "->")) && ts->t[q + 1].kind == T_IDENT)
            q += 2;
        else if (q < end && rwl_tok_is(ts, q, "[")) {
            size_t c = rwl_match_close(ts, q);
            if (c >= end)
                return false;
            q = c + 1;
        } else
            break;
    }
    return q < end && (rwl_tok_is_assign_op(ts, q) || rwl_tok_is(ts, q, "++") || rwl_tok_is(ts, q, "--"));
}

/* Is token k of the per-element code [a, b) evaluated only under a condition: in an if's
 * branch (or under switch, else, a loop), or after a `?`, `&&` or `||` of its own
 * expression (the second or third operand of ?:, the right operand of && or ||)? Such a
 * read may not happen at all in the original (`has_bias ? bias[c] : 0` with bias NULL, a
 * buffer of fewer rows), so a vector load made for every lane would read what it never
 * read. */
static bool conditional_at(const rw_toks *ts, size_t a, size_t b, size_t k)
{
    size_t s = a;
    while (s < b) {
        size_t e = rwl_stmt_end(ts, s, b);
        if (e <= s)
            return true;
        if (k >= e) {
            s = e;
            continue;
        }
        if (rwl_tok_is(ts, s, "{")) {
            size_t c = rwl_match_close(ts, s);
            return c >= b || k >= c ? true : conditional_at(ts, s + 1, c, k);
        }
        if (rwl_tok_is_ident(ts, s, "if") && rwl_tok_is(ts, s + 1, "(")) {
            size_t c = rwl_match_close(ts, s + 1);
            if (c >= e || k >= c)
                return true; /* a branch */
            s = s + 2;       /* the condition: an expression of its own */
        } else if (rwl_tok_is_ident(ts, s, "else") || rwl_tok_is_ident(ts, s, "switch") ||
                   rwl_tok_is_ident(ts, s, "case") || rwl_tok_is_ident(ts, s, "default") ||
                   rwl_tok_is_ident(ts, s, "for") || rwl_tok_is_ident(ts, s, "while") ||
                   rwl_tok_is_ident(ts, s, "do"))
            return true;
        /* back from k to s: a ?, && or || of k's own level or an enclosing one */
        int lvl = 0;
        for (size_t q = k; q-- > s;) {
            if (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]") || rwl_tok_is(ts, q, "}"))
                lvl++;
            else if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "{")) {
                if (lvl > 0)
                    lvl--;
            } else if (lvl == 0 && (rwl_tok_is(ts, q, "?") || rwl_tok_is(ts, q, "&&") || rwl_tok_is(ts, q, "||")))
                return true;
        }
        return false;
    }
    return true;
}

/* Is the name at k a whole argument of a call to a function of the file whose parameter
 * there is a reference (`bump(acc)` with `void bump(float &a)`): written through it? */
static bool passed_by_reference(const v2 *g, size_t k, size_t a)
{
    const rw_toks *ts = g->ts;
    if (k <= a || !(rwl_tok_is(ts, k - 1, "(") || rwl_tok_is(ts, k - 1, ",")) ||
        !(rwl_tok_is(ts, k + 1, ")") || rwl_tok_is(ts, k + 1, ",")))
        return false;
    /* back to the call's `(`, counting the arguments before k */
    size_t arg = 0, q = k;
    int depth = 0;
    while (q > a) {
        q--;
        if (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]") || rwl_tok_is(ts, q, "}"))
            depth++;
        else if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "{")) {
            if (depth-- == 0)
                break;
        } else if (depth == 0 && rwl_tok_is(ts, q, ","))
            arg++;
    }
    if (!rwl_tok_is(ts, q, "(") || q == 0 || ts->t[q - 1].kind != T_IDENT)
        return false;
    size_t nl = ts->t[q - 1].end - ts->t[q - 1].start;
    const char *nm = g->text + ts->t[q - 1].start;
    for (size_t i = 0; g->m && i < g->m->n_funcs; i++) {
        const an_function *fn = &g->m->funcs[i];
        if (!fn->name || strlen(fn->name) != nl || memcmp(fn->name, nm, nl))
            continue;
        if (arg < fn->n_params && fn->params[arg].type && strchr(fn->params[arg].type, '&'))
            return true;
    }
    return false;
}

/* Reads the per-element code: every memory use a vector component or left as it is. */
static bool read_body(v2 *g, int width, char *why, size_t nwhy)
{
    const rw_toks *ts = g->ts;
    const char *text = g->text;
    size_t nrs, na;
    const km_read_site *rs = km_read_sites(g->km, &nrs);
    const km_access *ac = km_accesses(g->km, &na);
    uint32_t body_from = ts->t[g->ba].start, body_to = ts->t[g->bb - 1].end;
    size_t first_store_end = ts->n;   /* one past the first store statement */
    size_t cur_end = 0;               /* one past the store statement being read */
    long cur_slot = -1;               /* its pointer */
    for (size_t k = g->ba; k < g->bb; k++) {
        if (ts->t[k].kind != T_IDENT)
            continue;
        const char *w = text + ts->t[k].start;
        size_t l = ts->t[k].end - ts->t[k].start;
        for (size_t i = 0; i < HK_ARRAY_LEN(lane_words); i++)
            if (rwl_tok_is_ident(ts, k, lane_words[i]))
                return rwl_refuse(why, nwhy, ts, text, k, "statement", EN(RW_V2D_ELEM_SYNC), (int)l, w);
        if (l >= 6 && !memcmp(w, "atomic", 6))
            return rwl_refuse(why, nwhy, ts, text, k, "atomic", EN(RW_V2D_ELEM_SYNC), (int)l, w);
        if (rwl_tok_is_ident(ts, k, "return") || rwl_tok_is_ident(ts, k, "goto") || rwl_tok_is_ident(ts, k, "break") ||
            rwl_tok_is_ident(ts, k, "continue"))
            return rwl_refuse(why, nwhy, ts, text, k, "statement", EN(RW_V2D_ELEM_JUMP), (int)l, w);
        if (rwl_tok_is_ident(ts, k, "for") || rwl_tok_is_ident(ts, k, "while") || rwl_tok_is_ident(ts, k, "do"))
            return rwl_refuse(why, nwhy, ts, text, k, "loop", "%s", EN(RW_V2D_ELEM_LOOP));
        if (is_coord_word(ts, k))
            return rwl_refuse(why, nwhy, ts, text, k, "thread index", EN(RW_V2D_ELEM_COORDS), (int)l, w);
        if (l > 3 && !memcmp(w, "hk_", 3))
            return rwl_refuse(why, nwhy, ts, text, k, "name", EN(RW_V2D_HK_NAME), (int)l, w);
        const an_param *p = buffer_at(g, k);
        if (!p) {
            const an_param *q = rwp_param_named(g->f, ts, k);
            if (q && q->pointer_depth > 0 && !member_or_scope(ts, k))
                return rwl_refuse(why, nwhy, ts, text, k, "pointer", EN(RW_V2D_POINTER_USE), (int)l, w);
            /* a name from outside the per-element code written in it (a parameter, a prologue
             * local the lanes share): each lane's copy, and each trip of the loops over the
             * row, would write it again (`acc += x[e]` sums the lanes). The prologue's
             * x-dependent temporaries are declared again in every lane's copy. */
            if (rwl_is_use(ts, k) && !member_or_scope(ts, k) &&
                (lvalue_written(ts, k, g->bb) || passed_by_reference(g, k, g->ba))) {
                bool inside = false;
                for (size_t q2 = g->ba; q2 <= k && !inside; q2++)
                    inside = rwl_same_tok(ts, q2, k) && rwl_is_use(ts, q2) && rwl_declared_here(ts, q2);
                long d = decl_named(g, k);
                if (!inside && !(d >= 0 && g->decl[d].x_dep))
                    return rwl_refuse(why, nwhy, ts, text, k, "statement", EN(RW_V2D_OUTER_WRITE), (int)l, w);
            }
            continue;
        }
        if (!rwl_tok_is(ts, k + 1, "["))
            return rwl_refuse(why, nwhy, ts, text, k, "pointer", EN(RW_V2D_POINTER_USE), (int)l, w);
        size_t cl = rwl_match_close(ts, k + 1);
        if (cl >= g->bb)
            return rwl_refuse(why, nwhy, ts, text, k, "pointer", EN(RW_V2D_POINTER_USE), (int)l, w);
        long slot = ptr_slot(g, p);
        if (slot < 0)
            return rwl_refuse(why, nwhy, ts, text, k, "pointer", "%s", EN(RW_V2D_PTRS_MANY));
        v2_ptr *vp = &g->ptr[slot];
        bool prefix_op = k > 0 && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--"));
        bool address = k > 0 && rwl_tok_is(ts, k - 1, "&") && rwl_unary_position(ts, k - 1);
        bool ldg = address && k >= 3 && rwl_tok_is(ts, k - 2, "(") && rwl_tok_is_ident(ts, k - 3, "__ldg") &&
                   rwl_tok_is(ts, cl + 1, ")");
        if (address && !ldg)
            return rwl_refuse(why, nwhy, ts, text, k, "pointer", EN(RW_V2D_POINTER_USE), (int)l, w);
        if (rwl_tok_is(ts, cl + 1, "=")) {
            /* a store: a top-level statement `P[...] = value;` of the per-element code */
            size_t s = g->ba;
            while (s < g->bb && rwl_stmt_end(ts, s, g->bb) <= k)
                s = rwl_stmt_end(ts, s, g->bb);
            if (s != k)
                return rwl_refuse(why, nwhy, ts, text, k, "store", EN(RW_V2D_STORE_NESTED), (int)l, w);
            if (vp->stored)
                return rwl_refuse(why, nwhy, ts, text, k, "store", EN(RW_V2D_STORE_TWICE), (int)l, w);
            /* its element: the model's one write of that buffer */
            const km_access *wa = NULL;
            for (size_t i = 0; i < na; i++)
                if ((ac[i].mode != KM_READ) && ac[i].buffer && strcmp(ac[i].buffer, p->name) == 0) {
                    /* `x[e] = f(x[e])` is one read-modify-write to the model: a plain store here */
                    if (wa || ac[i].atomic || ac[i].space != KM_SPACE_GLOBAL)
                        return rwl_refuse(why, nwhy, ts, text, k, "store", EN(RW_V2D_STORE_TWICE), (int)l, w);
                    wa = &ac[i];
                }
            if (!wa || classify(g, wa->index) != V2_ROW)
                return rwl_refuse(why, nwhy, ts, text, k, "store", EN(RW_V2D_STORE_FORM), (int)l, w);
            vp->stored = vp->row = true;
            vp->store_seq = g->n_stores++;
            if (!add_cut(g, ts->t[k].start, ts->t[cl].end, (size_t)slot, true))
                return rwl_refuse(why, nwhy, ts, text, k, "store", "%s", EN(RW_V2D_PTRS_MANY));
            size_t se = rwl_stmt_end(ts, s, g->bb);
            if (first_store_end == ts->n)
                first_store_end = se;
            cur_end = se;
            cur_slot = slot;
            k = cl;
            continue;
        }
        if (rwl_tok_is_assign_op(ts, cl + 1) || rwl_tok_is(ts, cl + 1, "++") || rwl_tok_is(ts, cl + 1, "--") || prefix_op)
            return rwl_refuse(why, nwhy, ts, text, k, "store", EN(RW_V2D_STORE_COMPOUND), (int)l, w);
        /* a read: its site in the model */
        const km_read_site *site = NULL;
        for (size_t i = 0; i < nrs; i++)
            if (rs[i].start <= ts->t[k].start && ts->t[cl].end <= rs[i].end && rs[i].start >= body_from &&
                rs[i].end <= body_to)
                if (!site || rs[i].end - rs[i].start < site->end - site->start)
                    site = &rs[i];
        if (!site || site->ambiguous || !site->buffer || strcmp(site->buffer, p->name) != 0)
            return rwl_refuse(why, nwhy, ts, text, k, "read", EN(RW_V2D_READ_NO_SITE), (int)l, w);
        enum v2_class c = classify(g, site->index);
        if (c == V2_OTHER)
            return rwl_refuse(why, nwhy, ts, text, k, "read", EN(RW_V2D_READ_FORM), (int)l, w);
        if (c != V2_UNIFORM && conditional_at(ts, g->ba, g->bb, k))
            return rwl_refuse(why, nwhy, ts, text, k, "read", EN(RW_V2D_READ_COND), (int)l, w);
        /* the value of a store reads before it stores: `x[e] = x[e] * g[c];`, `o2[e] = in[e]` */
        bool own = k < cur_end;
        bool after_store = first_store_end != ts->n && k >= first_store_end;
        if (c != V2_UNIFORM) {
            /* a store of this buffer already seen: the read comes after it (unless it is
             * that store's own value, at the row's element) */
            if (vp->stored && !(own && cur_slot == slot && c == V2_ROW))
                return rwl_refuse(why, nwhy, ts, text, k, "read", EN(RW_V2D_WRITTEN_READ), (int)l, w);
            /* one vector per pointer, at the row's element or at the column's: a pointer read
             * at both (`inp[r * C + c] - inp[c]`, row 0 of the same buffer) would give both
             * reads the one vector */
            if ((c == V2_ROW && vp->col) || (c == V2_COL && vp->row))
                return rwl_refuse(why, nwhy, ts, text, k, "read", EN(RW_V2D_ROW_AND_COL), (int)l, w);
            if (c == V2_ROW)
                vp->row = true;
            else
                vp->col = true;
            vp->loaded = true;
            if (!add_cut(g, site->start, site->end, (size_t)slot, false))
                return rwl_refuse(why, nwhy, ts, text, k, "read", "%s", EN(RW_V2D_PTRS_MANY));
            if (after_store) {
                for (size_t i = 0; i < g->n_ptr; i++)
                    if (g->ptr[i].stored && (long)i != slot && !(own && (long)i == cur_slot)) {
                        char *t = hk_asprintf("%s%s(const void *)%s != (const void *)%s", g->noalias ? g->noalias : "",
                                              g->noalias ? " && " : "", g->ptr[i].p->name, p->name); /* i18n: not for people */
                        if (!t) {
                            g->oom = true;
                            return false;
                        }
                        hk_free(g->noalias);
                        g->noalias = t;
                    }
            }
            /* the site is one component now: nothing inside it is read again */
            while (k + 1 < g->bb && ts->t[k + 1].start < site->end)
                k++;
        } else if (vp->stored) {
            return rwl_refuse(why, nwhy, ts, text, k, "read", EN(RW_V2D_WRITTEN_READ), (int)l, w);
        }
    }
    /* pointers read at the row's or the column's element, never stored, nor read uniformly
     * when stored; stores at the row only */
    bool any_store = false;
    for (size_t i = 0; i < g->n_ptr; i++) {
        v2_ptr *vp = &g->ptr[i];
        any_store |= vp->stored;
        if (vp->stored && vp->col)
            return rwl_refuse(why, nwhy, ts, text, g->ba, "read", EN(RW_V2D_WRITTEN_READ),
                              (int)strlen(vp->p->name), vp->p->name);
        if ((vp->stored || vp->loaded) && !(vp->vtype = vec_type(vp->p->elem_type, width, &vp->vbytes)))
            return rwl_refuse(why, nwhy, ts, text, g->ba, "pointer", EN(RW_V2D_NO_VECTOR), vp->p->name,
                              vp->p->elem_type ? vp->p->elem_type : "?", width);
    }
    if (!any_store)
        return rwl_refuse(why, nwhy, ts, text, g->ba, "statement", "%s", EN(RW_V2D_NO_STORE));
    /* stored buffers read uniformly or at the column elsewhere (an RMW of another row) */
    for (size_t i = 0; i < nrs; i++)
        if (rs[i].start >= body_from && rs[i].end <= body_to && rs[i].buffer)
            for (size_t j = 0; j < g->n_ptr; j++)
                if (g->ptr[j].stored && strcmp(g->ptr[j].p->name, rs[i].buffer) == 0 &&
                    classify(g, rs[i].index) != V2_ROW)
                    return rwl_refuse(why, nwhy, ts, text, g->ba, "read", EN(RW_V2D_WRITTEN_READ),
                                      (int)strlen(rs[i].buffer), rs[i].buffer);
    /* what the model sees and the text does not: shared or atomic accesses, reads through a
     * macro or a called function, accesses before the bounds check */
    uint32_t guard_line = (uint32_t)rwl_line_at(text, ts->t[g->region_a].start);
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &ac[i];
        if (a->space == KM_SPACE_LOCAL)
            continue;
        if (a->space != KM_SPACE_GLOBAL || a->atomic || a->line < guard_line)
            return rwl_refuse(why, nwhy, ts, text, g->ba, "access", EN(RW_V2D_MODEL_ACCESS), a->line,
                              a->buffer ? a->buffer : "?");
        if (a->mode != KM_READ) {
            bool stored = false;
            for (size_t j = 0; j < g->n_ptr; j++)
                stored |= g->ptr[j].stored && a->buffer && !strcmp(g->ptr[j].p->name, a->buffer);
            if (!stored)
                return rwl_refuse(why, nwhy, ts, text, g->ba, "access", EN(RW_V2D_MODEL_ACCESS), a->line,
                                  a->buffer ? a->buffer : "?");
            continue;
        }
        bool seen = false;
        for (size_t j = 0; j < nrs && !seen; j++)
            seen = rs[j].start >= body_from && rs[j].end <= body_to && rs[j].buffer && a->buffer &&
                   !strcmp(rs[j].buffer, a->buffer) && km_form_equal(rs[j].index, a->index);
        if (!seen)
            return rwl_refuse(why, nwhy, ts, text, g->ba, "access", EN(RW_V2D_MODEL_ACCESS), a->line,
                              a->buffer ? a->buffer : "?");
    }
    size_t np;
    const km_param *kp = km_params(g->km, &np);
    for (size_t i = 0; i < np; i++)
        if (kp[i].moved_at || kp[i].recast_at)
            for (size_t j = 0; j < g->n_ptr; j++)
                if (!strcmp(g->ptr[j].p->name, kp[i].name))
                    return rwl_refuse(why, nwhy, ts, text, g->ba, "pointer", EN(RW_V2D_POINTER_USE),
                                      (int)strlen(kp[i].name), kp[i].name);
    return true;
}

/* ------------------------------------------------------------------ output */

/* Appends text[from, to) with the cuts inside it replaced by lane l's component (l < 0: no
 * cuts, the original code). */
static int append_cut(const v2 *g, struct hk_buf *b, uint32_t from, uint32_t to, int l)
{
    static const char lane[4] = {'x', 'y', 'z', 'w'};
    uint32_t q = from;
    int rc = HK_OK;
    while (q < to && !rc) {
        const v2_cut *next = NULL;
        if (l >= 0)
            for (size_t i = 0; i < g->n_cut; i++)
                if (g->cut[i].start >= q && g->cut[i].end <= to && (!next || g->cut[i].start < next->start))
                    next = &g->cut[i];
        if (!next)
            return hk_buf_append(b, g->text + q, to - q);
        rc = hk_buf_append(b, g->text + q, next->start - q);
        if (!rc)
            rc = hk_buf_printf(b, "hk_%s_%s.%c", next->store ? "st" : "ld", g->ptr[next->ptr].p->name, lane[l]);
        q = next->end;
    }
    return rc;
}

/* Appends t[0, n) with every line after the first moved from indentation orig to ind
 * (deeper lines stay deeper by as much; blank lines stay empty). */
static int append_reindented(struct hk_buf *b, const char *t, size_t n, size_t orig, const char *ind)
{
    int rc = HK_OK;
    size_t q = 0;
    bool first = true;
    while (q < n && !rc) {
        size_t e = q;
        while (e < n && t[e] != '\n')
            e++;
        if (!first) {
            size_t s = q, k = 0;
            while (s < e && k < orig && (t[s] == ' ' || t[s] == '\t')) {
                s++;
                k++;
            }
            if (s < e)
                rc = hk_buf_appends(b, ind);
            q = s;
        }
        if (!rc)
            rc = hk_buf_append(b, t + q, e - q);
        if (!rc && e < n)
            rc = hk_buf_appends(b, "\n");
        q = e + 1;
        first = false;
    }
    return rc;
}

/* One element's code: c declared with value cval, the prologue's x-dependent temporaries
 * again, then the per-element code (lane l's cuts, or none for l < 0). */
static int append_element(const v2 *g, struct hk_buf *b, const char *ctype, const char *cval, int l, const char *ind)
{
    const rw_toks *ts = g->ts;
    const v2_decl *cd = &g->decl[g->cx];
    int nl = (int)(ts->t[cd->name].end - ts->t[cd->name].start);
    const char *nm = g->text + ts->t[cd->name].start;
    int rc = hk_buf_printf(b, "%s{\n%s    const %s %.*s = (%s)(%s);\n%s    (void)%.*s;\n", ind, ind, ctype, nl, nm,
                           ctype, cval, ind, nl, nm);
    for (size_t i = 0; i < g->n_decl && !rc; i++)
        if (g->decl[i].x_dep && (long)i != g->cx) {
            rc = hk_buf_printf(b, "%s    ", ind);
            if (!rc)
                rc = append_cut(g, b, ts->t[g->decl[i].a].start, ts->t[g->decl[i].b - 1].end, -1);
            if (!rc)
                rc = hk_buf_appends(b, "\n");
        }
    if (!rc)
        rc = hk_buf_printf(b, "%s    ", ind);
    struct hk_buf t;
    hk_buf_init(&t, RW_TEXT_MAX);
    if (!rc)
        rc = append_cut(g, &t, ts->t[g->ba].start, ts->t[g->bb - 1].end, l);
    char orig[64], in4[96];
    rwl_line_indent(g->text, ts->t[g->ba].start, orig, sizeof orig);
    snprintf(in4, sizeof in4, "%s    ", ind);
    if (!rc && t.data)
        rc = append_reindented(b, t.data, t.len, strlen(orig), in4);
    hk_buf_free(&t);
    if (!rc)
        rc = hk_buf_printf(b, "\n%s}\n", ind);
    return rc;
}

static int emit(v2 *g, int width, const an_model *m, size_t len, rw_result *out, char *why, size_t nwhy)
{
    const rw_toks *ts = g->ts;
    const char *text = g->text;
    struct hk_buf b;
    hk_buf_init(&b, RW_TEXT_MAX);
    rw_edits es = {0};
    char *ctype = NULL, *rb = NULL, *cb = NULL, *rname = NULL, *cname = NULL;
    int rc = HK_OK;
    const v2_decl *cd = &g->decl[g->cx];
    /* c's declared type, const dropped; auto: decltype of its formula */
    size_t ta = cd->ta;
    if (rwl_tok_is_ident(ts, ta, "const"))
        ta++;
    size_t te = cd->te;
    if (!cd->plain) {
        rwl_refuse(why, nwhy, ts, text, cd->name, "declaration", "%s", EN(RW_V2D_DECL_NO_VALUE));
        return HK_OK;
    }
    for (size_t q = ta; q < te; q++)
        if (rwl_tok_is(ts, q, "*") || rwl_tok_is(ts, q, "&") || rwl_tok_is_ident(ts, q, "const")) {
            rwl_refuse(why, nwhy, ts, text, q, "declaration", "%s", EN(RW_V2D_DECL_NO_VALUE));
            return HK_OK;
        }
    if (te == ta + 1 && rwl_tok_is_ident(ts, ta, "auto"))
        ctype = hk_strdup("long long");
    else
        ctype = rwl_tok_text(ts, ta, te);
    rb = rwl_tok_text(ts, g->bnd[0][0], g->bnd[0][1]);
    cb = rwl_tok_text(ts, g->bnd[1][0], g->bnd[1][1]);
    rname = rwl_tok_text(ts, g->decl[g->ry].name, g->decl[g->ry].name + 1);
    cname = rwl_tok_text(ts, cd->name, cd->name + 1);
    if (!ctype || !rb || !cb || !rname || !cname) {
        rc = HK_ENOMEM;
        goto out;
    }
    char ind[64];
    rwl_line_indent(text, ts->t[g->region_a].start, ind, sizeof ind);
    /* the vectorized pointers, the vector path's condition */
    struct hk_buf cond;
    hk_buf_init(&cond, RW_TEXT_MAX);
    rc = hk_buf_printf(&cond, "hk_v2_cn %% %d == 0", width);
    for (size_t i = 0; i < g->n_ptr && !rc; i++)
        if (g->ptr[i].stored || g->ptr[i].loaded)
            rc = hk_buf_printf(&cond, " &&\n%s            reinterpret_cast<unsigned long long>(%s) %% %d == 0", ind,
                               g->ptr[i].p->name, g->ptr[i].vbytes); /* i18n: not for people */
    if (!rc && g->noalias)
        rc = hk_buf_printf(&cond, " &&\n%s            %s", ind, g->noalias);
    if (!rc)
        rc = hk_buf_printf(&b,
            "/* hk vectorize_2d: %d consecutive columns of the row per thread, one vector per pointer;\n" /* i18n: not for people */
            "%s   the original per-element code in a scalar loop when C %% %d != 0 or a pointer is unaligned */\n"
            "%s{\n"
            "%s    (void)%s;\n"
            "%s    const long long hk_v2_cn = (long long)(%s);\n"
            "%s    const long long hk_v2_t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
            "%s    const long long hk_v2_s = (long long)gridDim.x * blockDim.x;\n"
            "%s    if (%s < (%s)) {\n"
            "%s        const long long hk_v2_row = (long long)%s * hk_v2_cn;\n"
            "%s        (void)hk_v2_row;\n"
            "%s        if (%s) {\n"
            "%s            for (long long hk_v = hk_v2_t; hk_v < hk_v2_cn / %d; hk_v += hk_v2_s) {\n",
            width, ind, width, ind, ind, cname, ind, cb, ind, ind, ind, rname, rb, ind, rname, ind, ind, cond.data, ind, width);
    hk_buf_free(&cond);
    char ind2[80];
    snprintf(ind2, sizeof ind2, "%s                ", ind);
    for (size_t i = 0; i < g->n_ptr && !rc; i++) {
        const v2_ptr *vp = &g->ptr[i];
        if (vp->loaded)
            rc = hk_buf_printf(&b, "%sconst %s hk_ld_%s = reinterpret_cast<const %s *>(%s%s)[hk_v];\n", ind2,
                               vp->vtype, vp->p->name, vp->vtype, vp->p->name, vp->row ? " + hk_v2_row" : "");
        if (!rc && vp->stored)
            rc = hk_buf_printf(&b, "%s%s hk_st_%s;\n", ind2, vp->vtype, vp->p->name);
    }
    for (int l = 0; l < width && !rc; l++) {
        char cval[64];
        snprintf(cval, sizeof cval, "hk_v * %d + %d", width, l);
        rc = append_element(g, &b, ctype, cval, l, ind2);
    }
    /* the vector stores in the order of the store statements (not the pointers' first
     * mention): two outputs passed as one buffer keep the last store's value */
    for (size_t q = 0; q < g->n_stores && !rc; q++)
        for (size_t i = 0; i < g->n_ptr && !rc; i++)
            if (g->ptr[i].stored && g->ptr[i].store_seq == q)
                rc = hk_buf_printf(&b, "%sreinterpret_cast<%s *>(%s + hk_v2_row)[hk_v] = hk_st_%s;\n", ind2,
                                   g->ptr[i].vtype, g->ptr[i].p->name, g->ptr[i].p->name);
    if (!rc)
        rc = hk_buf_printf(&b,
            "%s            }\n" /* i18n: not for people */
            "%s        } else {\n"
            "%s            for (long long hk_e = hk_v2_t; hk_e < hk_v2_cn; hk_e += hk_v2_s)\n",
            ind, ind, ind);
    if (!rc)
        rc = append_element(g, &b, ctype, "hk_e", -1, ind2);
    if (!rc)
        rc = hk_buf_printf(&b, "%s        }\n%s    }\n%s}", ind, ind, ind);
    if (rc)
        goto out;
    if ((rc = rwl_edits_add(&es, ts->t[g->region_a].start, ts->t[ts->n - 2].end, b.data)))
        goto out;
    struct hk_buf names;
    hk_buf_init(&names, 4096);
    for (size_t i = 0; i < g->n_ptr && !rc; i++)
        if (g->ptr[i].stored || g->ptr[i].loaded)
            rc = hk_buf_printf(&names, "%s%s %s (%s)", names.len ? ", " : "", g->ptr[i].p->name, g->ptr[i].vtype,
                               g->ptr[i].stored ? "stored" : g->ptr[i].row ? "row" : "column"); /* i18n: not for people */
    char *d = rc ? NULL : hk_asprintf(EN(RW_V2D_DESC), g->f->name, width, names.data ? names.data : "", width, width);
    hk_buf_free(&names);
    if (rc)
        goto out;
    rc = rwl_finish(text, len, m, g->f->name, &es, d, out);
out:
    hk_free(ctype);
    hk_free(rb);
    hk_free(cb);
    hk_free(rname);
    hk_free(cname);
    hk_buf_free(&b);
    rwl_edits_free(&es);
    return rc;
}

int rw_vectorize_2d(const rw_context *ctx, int width, rw_result *out)
{
    const char *text = ctx->text;
    size_t len = ctx->len;
    *out = (rw_result){0};
    const an_function *f;
    int rc = rwl_check_kernel(text, len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    if (width != 2 && width != 4)
        return HK_EINVAL;
    rw_toks ts = {0};
    v2 g = {0};
    char why[640] = "";
    if ((rc = rwl_open_body(text, len, f, true, &ts, &g.km, why, sizeof why)))
        goto out;
    if (why[0])
        goto refused;
    g.text = text;
    g.ts = &ts;
    g.f = f;
    g.m = ctx->m;
    for (size_t k = 0; k < ts.n; k++)
        if (ts.t[k].kind == T_IDENT && ts.t[k].end - ts.t[k].start > 6 && !memcmp(text + ts.t[k].start, "hk_v2_", 6)) {
            rwl_refuse(why, sizeof why, &ts, text, k, "name", "%s", EN(RW_V2D_ALREADY));
            goto refused;
        }
    if (!ts.n || !rwl_tok_is(&ts, 0, "{") || !rwl_tok_is(&ts, ts.n - 1, "}")) {
        snprintf(why, sizeof why, EN(RW_V2D_NO_X), (uint32_t)rwl_line_at(text, f->body_span.start_byte));
        goto refused;
    }
    size_t at;
    if (!read_prologue(&g, &at, why, sizeof why) || !read_guard(&g, at, why, sizeof why) ||
        !read_body(&g, width, why, sizeof why)) {
        if (g.oom) {
            rc = HK_ENOMEM;
            goto out;
        }
        goto refused;
    }
    if (km_barriers(g.km)) {
        snprintf(why, sizeof why, EN(RW_V2D_MODEL_ACCESS), (uint32_t)rwl_line_at(text, f->body_span.start_byte),
                 "__syncthreads");
        goto refused;
    }
    if ((rc = emit(&g, width, ctx->m, len, out, why, sizeof why)))
        goto out;
    if (why[0])
        goto refused;
    if (out->applicable) {
        out->grid_divisor = (unsigned)width;
        out->grid_axis = 0;
    }
    goto out;
refused:
    rw_result_free(out);
    *out = (rw_result){0};
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "vectorize_2d", f->name,
                                             why[0] ? why : EN(RW_NO_REASON)));
out:
    hk_free(g.noalias);
    rwl_toks_free(&ts);
    km_free(g.km);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */
static int emit_vectorize_2d(const rw_context *c, const int *p, rw_result *out)
{
    return rw_vectorize_2d(c, p[0], out);
}

static const rw_param vectorize_2d_params[] = {
    {.name = "width", .type = RW_PARAM_ENUM, .values = {2, 4}, .n_values = 2, .def = 4},
};

const rw_descriptor rw_vectorize_2d_desc = {
    .name = "vectorize_2d",
    .summary = "a 2-D elementwise kernel gets vector loads and stores along its rows, W columns a thread", /* i18n: not for people */
    .params = vectorize_2d_params,
    .n_params = 1,
    .flags = RW_RESTRICT_FIRST,
    .emit = emit_vectorize_2d,
};
