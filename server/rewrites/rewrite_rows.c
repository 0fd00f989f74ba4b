/* The warp-per-row rewrite (rewrite_rows.h). A token scan reads the kernel body into its
 * parts (declarations, row index, guard, row statements, column loops), checks every rule
 * that keeps the lanes of a warp independent, and renders a new body from source slices of
 * the old one; the result is re-analysed by rwl_finish. */
#include "rewrites/rewrite_rows.h"
#include "rewrites/rewrite_accum.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"

#include "model/kmodel.h"
#include "spec/expr.h"
#include "spec/spec.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* The kernels this rewrite targets are a few statements; a larger body is not one, and the
 * cap keeps a huge kernel from costing time. */
#define RR_MAX_TOKENS 20000u
#define RR_NAME 128
#define RR_MAX_NAMES 96       /* row names, loop locals, stored pointers */
#define RR_MAX_STMTS 96       /* top-level statements of the row body */
#define RR_MAX_RED 16         /* reductions in one loop */
#define RR_INDEX 512          /* compact index text of a store */
#define RR_MAX_ACC 32         /* memory accesses in one vectorized column loop */
#define RR_MAX_VEC 12         /* distinct float4 streams (base addresses) in one loop */

/* ------------------------------------------------------------------ names */

/* Why a per-row scalar has its value (sum reductions need a zero start). */
enum rr_state {
    RR_ZERO,      /* declared with a zero initializer, not written since */
    RR_SET,       /* declared with another initializer, or without one */
    RR_WRITTEN,   /* assigned at row level after its declaration */
    RR_REDUCED,   /* summed in an earlier loop */
    RR_HOISTED,   /* declared before the guard and read by the bound: must not change */
};

typedef struct {
    char name[RR_NAME];
    enum rr_state state;
    bool shuffles;        /* scalar type __shfl_xor_sync takes */
    bool row_dep;         /* may depend on the row (declared in the row body, or from r) */
    bool c_dep;           /* loop locals: depends on the column */
    bool ptr;             /* a pointer or an array (its uses are memory accesses) */
    bool fptr;            /* a pointer to float (`[const] float *p`): may be read as float4 */
    char num;             /* 'f' float, 'd' double, 'i' an integer: a select max/min's combine */
} rr_name;

typedef struct {
    rr_name v[RR_MAX_NAMES];
    size_t n;
} rr_names;

static rr_name *names_find(rr_names *s, const char *name)
{
    for (size_t i = s->n; i-- > 0;)   /* latest declaration first */
        if (strcmp(s->v[i].name, name) == 0)
            return &s->v[i];
    return NULL;
}

static rr_name *names_find_tok(rr_names *s, const rw_toks *ts, size_t k)
{
    if (k >= ts->n || ts->t[k].kind != T_IDENT)
        return NULL;
    for (size_t i = s->n; i-- > 0;)
        if (rwl_tok_is(ts, k, s->v[i].name))
            return &s->v[i];
    return NULL;
}

static rr_name *names_add(rr_names *s, const rw_toks *ts, size_t k)
{
    if (s->n >= RR_MAX_NAMES)
        return NULL;
    rr_name *v = &s->v[s->n++];
    memset(v, 0, sizeof *v);
    size_t l = ts->t[k].end - ts->t[k].start;
    if (l >= RR_NAME)
        l = RR_NAME - 1;
    memcpy(v->name, ts->text + ts->t[k].start, l);
    v->name[l] = '\0';
    return v;
}

/* ------------------------------------------------------------------ token helpers */

static bool is_ident(const rw_toks *ts, size_t k)
{
    return k < ts->n && ts->t[k].kind == T_IDENT;
}

static bool mentions(const rw_toks *ts, size_t a, size_t b, const char *name)
{
    for (size_t k = a; k < b && k < ts->n; k++)
        if (rwl_is_use(ts, k) && rwl_tok_is(ts, k, name))
            return true;
    return false;
}

static size_t count_uses(const rw_toks *ts, size_t a, size_t b, const char *name)
{
    size_t n = 0;
    for (size_t k = a; k < b && k < ts->n; k++)
        if (rwl_is_use(ts, k) && rwl_tok_is(ts, k, name))
            n++;
    return n;
}

/* Does [a, b) mention a name of s with flag row_dep (want_c: c_dep)? */
static bool mentions_flagged(const rw_toks *ts, size_t a, size_t b, rr_names *s, bool want_c)
{
    for (size_t k = a; k < b && k < ts->n; k++) {
        if (!rwl_is_use(ts, k))
            continue;
        rr_name *v = names_find_tok(s, ts, k);
        if (v && (want_c ? v->c_dep : v->row_dep))
            return true;
    }
    return false;
}

static bool has_prefix(const rw_toks *ts, size_t k, const char *p)
{
    size_t l = strlen(p);
    return is_ident(ts, k) && ts->t[k].end - ts->t[k].start >= l && memcmp(ts->text + ts->t[k].start, p, l) == 0;
}

/* The first token in [a, b) this rewrite cannot keep per lane, with the reason, or NULL.
 * The index declaration [ia, ib) may use the thread and block indices. */
static const char *forbidden(const rw_toks *ts, size_t a, size_t b, size_t ia, size_t ib)
{
    static const struct {
        const char *word;
        enum hk_msg why;
    } words[] = {
        {"__syncthreads", HK_MSG_RW_ROWS_SYNCTHREADS},
        {"__syncwarp", HK_MSG_RW_ROWS_SYNCWARP},
        {"__shared__", HK_MSG_RW_ROWS_SHARED},
        {"asm", HK_MSG_RW_ROWS_ASM},
        {"goto", HK_MSG_RW_ROWS_GOTO},
        {"break", HK_MSG_RW_ROWS_BREAK},
        {"switch", HK_MSG_RW_ROWS_SWITCH},
        {"while", HK_MSG_RW_ROWS_WHILE},
        {"do", HK_MSG_RW_ROWS_DO},
        {"static", HK_MSG_RW_ROWS_STATIC},
        {"extern", HK_MSG_RW_ROWS_EXTERN},
        {"gridDim", HK_MSG_RW_ROWS_GRIDDIM},
        {"warpSize", HK_MSG_RW_ROWS_WARPSIZE},
        {"this_thread_block", HK_MSG_RW_ROWS_COOP},
        {"cooperative_groups", HK_MSG_RW_ROWS_COOP},
    };
    static const struct {
        const char *prefix;
        enum hk_msg why;
    } prefixes[] = {
        {"atomic", HK_MSG_RW_ROWS_ATOMICS},
        {"__shfl", HK_MSG_RW_ROWS_SHUFFLES},
        {"__ballot", HK_MSG_RW_ROWS_VOTES},
        {"__any", HK_MSG_RW_ROWS_VOTES},
        {"__all", HK_MSG_RW_ROWS_VOTES},
        {"__activemask", HK_MSG_RW_ROWS_PER_WARP},
        {"__reduce", HK_MSG_RW_ROWS_REDUCES},
        {"__match", HK_MSG_RW_ROWS_MATCHES},
        {"__threadfence", HK_MSG_RW_ROWS_THREADFENCE},
    };
    for (size_t k = a; k < b && k < ts->n; k++) {
        if (!is_ident(ts, k))
            continue;
        for (size_t i = 0; i < HK_ARRAY_LEN(words); i++)
            if (rwl_tok_is(ts, k, words[i].word))
                return hk_tr_in(HK_LANG_EN, words[i].why);
        for (size_t i = 0; i < HK_ARRAY_LEN(prefixes); i++)
            if (has_prefix(ts, k, prefixes[i].prefix))
                return hk_tr_in(HK_LANG_EN, prefixes[i].why);
        if ((k < ia || k >= ib) && (rwl_tok_is(ts, k, "threadIdx") || rwl_tok_is(ts, k, "blockIdx") ||
                                    rwl_tok_is(ts, k, "blockDim")))
            return EN(RW_ROWS_THREAD_BUILTINS);
    }
    return NULL;
}

/* Is [a, b) a zero literal, casts and parentheses aside (`0`, `0.0f`, `(float)0`, `0u`)? */
static bool is_zero(const rw_toks *ts, size_t a, size_t b)
{
    size_t num = ts->n, n = 0;
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "const") ||
            rwl_tok_is(ts, k, "float") || rwl_tok_is(ts, k, "double") || rwl_is_type_word(ts, k))
            continue;
        num = k;
        n++;
    }
    if (n != 1 || ts->t[num].kind != T_NUMBER)
        return false;
    char buf[64];
    size_t l = ts->t[num].end - ts->t[num].start;
    if (l >= sizeof buf)
        return false;
    memcpy(buf, ts->text + ts->t[num].start, l);
    buf[l] = '\0';
    if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
        return strtoull(buf, NULL, 16) == 0 && strspn(buf + 2, "0uUlL") == l - 2;
    while (l > 0 && strchr("fFuUlL", buf[l - 1]))
        buf[--l] = '\0';
    char *end;
    double v = strtod(buf, &end);
    return l > 0 && *end == '\0' && v == 0.0;
}

/* Types a warp shuffle takes (float, double and the integers of 32 and 64 bits). */
static bool shuffle_type(const rw_toks *ts, size_t a, size_t name)
{
    static const char *const ok[] = {"float", "double", "int", "unsigned", "signed", "long", "size_t",
                                     "int32_t", "uint32_t", "int64_t", "uint64_t", "const"};
    size_t n = 0;
    for (size_t k = a; k < name; k++) {
        bool w = false;
        for (size_t i = 0; i < HK_ARRAY_LEN(ok) && !w; i++)
            w = rwl_tok_is(ts, k, ok[i]);
        if (!w)
            return false;   /* a pointer, an array, a vector or 16-bit type */
        n += !rwl_tok_is(ts, k, "const");
    }
    return n > 0;
}

/* `*` or a qualifier between a base type and a declared name. */
static bool is_ptr_qual(const rw_toks *ts, size_t k)
{
    return rwl_tok_is(ts, k, "*") || rwl_tok_is(ts, k, "const") || rwl_tok_is(ts, k, "__restrict__") ||
           rwl_tok_is(ts, k, "__restrict");
}

/* Is name token k, declared by the declaration starting at a whose first name is first,
 * exactly one level of pointer to float? The base type is [a, first) without its trailing
 * `*`s and qualifiers; k's own stars are those right before it. */
static bool float_ptr_decl(const rw_toks *ts, size_t a, size_t first, size_t k)
{
    size_t stars = 0, nfloat = 0;
    for (size_t j = k; j > a && is_ptr_qual(ts, j - 1); j--)
        stars += rwl_tok_is(ts, j - 1, "*");
    if (stars != 1)
        return false;
    size_t base_end = first;
    while (base_end > a && is_ptr_qual(ts, base_end - 1))
        base_end--;
    for (size_t q = a; q < base_end; q++) {
        if (rwl_tok_is(ts, q, "float"))
            nfloat++;
        else if (!rwl_tok_is(ts, q, "const"))
            return false;
    }
    return nfloat == 1;
}

/* ------------------------------------------------------------------ the scan */

typedef struct {
    size_t a, b;          /* whole statement */
    char kind;            /* 'd' declaration, 'a' scalar assignment, 's' lane-0 store, 'l' loop */
    /* loops */
    size_t var;           /* token of the loop variable */
    size_t type_a;        /* its type: tokens [type_a, var) */
    size_t cond_a, cond_b;/* the condition `c < COLS` */
    size_t start;         /* the first column, a decimal constant token; 0 when it is 0 */
    size_t body_a;        /* first token of the loop's statement */
    size_t red[RR_MAX_RED];   /* reductions after this loop: the accumulator's target token */
    size_t red_a[RR_MAX_RED], red_b[RR_MAX_RED]; /* the reduction's statement */
    char red_fn[RR_MAX_RED][16]; /* "" sum, else the max/min function of the combine */
    bool red_sel[RR_MAX_RED];    /* an if or ?: max/min (its branch is the reduction's own) */
    size_t n_red;
    bool shared_mem;      /* touches memory another column loop stores or reads (stored here or there) */
    /* the float4 path (vec true): every access in the body is P[E + c] of a float pointer,
     * acc[i] its tokens [p, close] and stream (distinct P and E) */
    bool vec;
    char novec[RR_NAME * 2 + 96]; /* why the loop stays scalar only */
    bool c_used;          /* the body uses c besides the indices */
    struct {
        size_t p, close;  /* `P` ... `]` */
        size_t stream;
        bool store;
    } acc[RR_MAX_ACC];
    size_t n_acc;
    struct {
        size_t p;         /* the pointer's token (first access) */
        size_t ea, eb;    /* E's tokens, empty for P[c] */
        bool load, store;
        bool rmw;         /* read after a store or updated in place (`P[c] /= s`): every
                           * access goes through hk_sN, loaded first when load */
    } vs[RR_MAX_VEC];
    size_t n_vs;
} rr_stmt;

typedef struct {
    size_t base;          /* token of the pointer name */
    char index[RR_INDEX]; /* compact index text */
    bool in_loop;
    bool local_index;     /* the index names a loop-local variable */
    size_t loop_a, loop_b;/* the loop it is in */
} rr_store;

typedef struct {
    const rw_toks *ts;
    const an_function *f;
    size_t idx_a, idx_b, idx_name;   /* the index declaration and its name token */
    size_t bound_a, bound_b;         /* ROWS */
    size_t pre[RR_MAX_STMTS][2];     /* declarations before the guard (not the index) */
    bool pre_hoist[RR_MAX_STMTS];    /* needed by ROWS: emitted before the row loop */
    size_t n_pre;
    size_t body_a, body_b;
    rr_stmt st[RR_MAX_STMTS];
    size_t n_st;
    rr_names rows;                   /* per-row scalars and pointers */
    rr_names locals;                 /* the current loop's locals */
    rr_store stores[RR_MAX_NAMES];
    size_t n_stores;
    size_t decl_tok[2 * RR_MAX_NAMES]; /* tokens that are declared names (not uses) */
    size_t n_decl_tok;
    size_t n_loops, n_reductions, n_lane0, n_vec;
    char why[512];
    /* the lane-0 statements' re-reads (lane0_access) */
    bool acc_lines;                  /* the text has register accumulators' lines added */
    char reread[256];                /* the per-row locations lane 0 reads back, `P[I]`, ... */
} rr_scan;

/* A declaration's type [a, name) that is a type parameter of the kernel's template alone
 * (`T acc = 0;`, `const T m = ...`; session 48): a shuffle takes it where the launch
 * instantiates it with a type __shfl_xor_sync takes (float, double, the integers, __half);
 * any other instantiation does not compile, and the combine is the accumulator's own
 * `decltype` (a sum's `+=`, a max or min's `max`/`min`). */
static bool template_scalar(const rr_scan *s, size_t a, size_t name)
{
    size_t n = 0, t = 0;
    for (size_t k = a; k < name; k++) {
        if (rwl_tok_is(s->ts, k, "const"))
            continue;
        n++;
        t = k;
    }
    return n == 1 && s->ts->t[t].kind == T_IDENT && rwl_template_type_param(s->f->template_params, s->ts, t);
}

static const char *fail(rr_scan *s, const char *fmt, const char *arg)
{
    snprintf(s->why, sizeof s->why, fmt, arg ? arg : "");
    return s->why;
}

static const char *fail2(rr_scan *s, const char *fmt, const char *a1, const char *a2)
{
    snprintf(s->why, sizeof s->why, fmt, a1, a2);
    return s->why;
}

static const char *tok_str(const rr_scan *s, size_t k, char *buf, size_t size)
{
    size_t l = k < s->ts->n ? s->ts->t[k].end - s->ts->t[k].start : 0;
    if (l >= size)
        l = size - 1;
    memcpy(buf, s->ts->text + (k < s->ts->n ? s->ts->t[k].start : 0), l);
    buf[l] = '\0';
    return buf;
}

/* A declaration [a, b): names go to set with their properties. row_dep forces the row flag;
 * otherwise a name is row-dependent when its statement mentions the row index or a
 * row-dependent name. c_dep likewise for loop locals (mentions of the column variable). */
static const char *read_decl(rr_scan *s, size_t a, size_t b, rr_names *set, bool row_dep, size_t cvar)
{
    const rw_toks *ts = s->ts;
    size_t names[RR_MAX_NAMES], nn = 0;
    if (!rwl_is_hoistable_decl(ts, a, b, "", names, &nn, RR_MAX_NAMES))
        return NULL;   /* not a declaration: the caller decides */
    bool dep = row_dep || mentions(ts, a, b, tok_str(s, s->idx_name, (char[RR_NAME]){0}, RR_NAME)) ||
               mentions_flagged(ts, a, b, &s->rows, false);
    bool cdep = cvar < ts->n && (mentions(ts, a, b, tok_str(s, cvar, (char[RR_NAME]){0}, RR_NAME)) ||
                                 mentions_flagged(ts, a, b, &s->locals, true));
    size_t type_end = names[0];
    for (size_t i = 0; i < nn; i++) {
        size_t k = names[i];
        /* the initializer: after `=`, up to the next top-level ',' or the ';' */
        size_t ia = k + 1, ib = k + 1;
        bool ptr = false;   /* `float *p`, `float *__restrict__ p`, `float *const p` */
        for (size_t j = k; j > a && is_ptr_qual(ts, j - 1); j--)
            ptr |= rwl_tok_is(ts, j - 1, "*");
        bool array = rwl_tok_is(ts, k + 1, "[");
        if (rwl_tok_is(ts, k + 1, "=")) {
            ia = ib = k + 2;
            int depth = 0;
            while (ib < b - 1) {
                if (rwl_tok_is(ts, ib, "(") || rwl_tok_is(ts, ib, "[") || rwl_tok_is(ts, ib, "{"))
                    depth++;
                else if (rwl_tok_is(ts, ib, ")") || rwl_tok_is(ts, ib, "]") || rwl_tok_is(ts, ib, "}"))
                    depth--;
                else if (depth == 0 && rwl_tok_is(ts, ib, ","))
                    break;
                ib++;
            }
        }
        rr_name *v = names_add(set, ts, k);
        if (s->n_decl_tok < HK_ARRAY_LEN(s->decl_tok))
            s->decl_tok[s->n_decl_tok++] = k;
        else
            v = NULL;
        if (!v)
            return fail(s, EN(RW_ROWS_TOO_MANY_NAMES), NULL);
        v->state = ib > ia && is_zero(ts, ia, ib) ? RR_ZERO : RR_SET;
        v->shuffles = !ptr && !array && (shuffle_type(ts, a, type_end) || template_scalar(s, a, type_end));
        v->ptr = ptr || array;
        v->fptr = ptr && !array && float_ptr_decl(ts, a, names[0], k);
        v->num = 'i';
        for (size_t q = a; q < type_end; q++)
            if (rwl_tok_is(ts, q, "double"))
                v->num = 'd';
            else if (rwl_tok_is(ts, q, "float") && v->num != 'd')
                v->num = 'f';
        v->row_dep = dep;
        v->c_dep = cdep;
    }
    return "";   /* a declaration, accepted */
}

/* The lvalue of an assignment [a, op): a name (returns 'n'), a subscript `p[i]` with
 * optional `.member`s (returns 's', the index range in *ia, *ib), or 0. */
static char lvalue(const rw_toks *ts, size_t a, size_t op, size_t *ia, size_t *ib)
{
    if (!is_ident(ts, a))
        return 0;
    if (op == a + 1)
        return 'n';
    if (!rwl_tok_is(ts, a + 1, "["))
        return 0;
    size_t c = rwl_match_close(ts, a + 1);
    if (c >= op)
        return 0;
    *ia = a + 2;
    *ib = c;
    for (size_t k = c + 1; k < op; k += 2)
        if (!rwl_tok_is(ts, k, ".") || !is_ident(ts, k + 1) || k + 1 >= op)
            return 0;
    return 's';
}

/* The top-level assignment operator of expression statement [a, b), or b. */
static size_t assign_op(const rw_toks *ts, size_t a, size_t b)
{
    int depth = 0;
    for (size_t k = a; k < b; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "["))
            depth++;
        else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]"))
            depth--;
        else if (depth == 0 && rwl_tok_is_assign_op(ts, k))
            return k;
    }
    return b;
}

static const char *add_store(rr_scan *s, size_t base, size_t ia, size_t ib, const rr_stmt *loop)
{
    if (s->n_stores >= RR_MAX_NAMES)
        return fail(s, EN(RW_ROWS_TOO_MANY_STORES), NULL);
    rr_store *st = &s->stores[s->n_stores++];
    st->base = base;
    st->in_loop = loop != NULL;
    st->loop_a = loop ? loop->a : 0;
    st->loop_b = loop ? loop->b : 0;
    st->local_index = false;
    for (size_t k = ia; k < ib && loop; k++)
        st->local_index |= rwl_is_use(s->ts, k) && names_find_tok(&s->locals, s->ts, k) != NULL;
    rwl_compact_index(s->ts, ia, ib, st->index, sizeof st->index);
    return NULL;
}

/* Is [a, b) (the right-hand side of `acc = ...`) `acc + E`? (Maxima and minima are
 * rwl_minmax_update's.) */
static bool sum_rhs(const rw_toks *ts, size_t a, size_t b, const char *acc)
{
    if (!rwl_tok_is(ts, a, acc) || !rwl_tok_is(ts, a + 1, "+") || b <= a + 2 || mentions(ts, a + 2, b, acc))
        return false;
    /* `acc + E` with nothing binding tighter than + after E's start: E's own top-level
     * operators all bind at least as tight as + or are + / -, which keep the sum */
    int depth = 0;
    for (size_t k = a + 2; k < b; k++) {
        if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "["))
            depth++;
        else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]"))
            depth--;
        else if (depth == 0 && (rwl_tok_is(ts, k, "?") || rwl_tok_is(ts, k, "<") || rwl_tok_is(ts, k, ">") ||
                                rwl_tok_is(ts, k, "<=") || rwl_tok_is(ts, k, ">=") || rwl_tok_is(ts, k, "==") ||
                                rwl_tok_is(ts, k, "!=") || rwl_tok_is(ts, k, "&&") || rwl_tok_is(ts, k, "||") ||
                                rwl_tok_is(ts, k, "&") || rwl_tok_is(ts, k, "|") || rwl_tok_is(ts, k, "^") ||
                                rwl_tok_is(ts, k, "<<") || rwl_tok_is(ts, k, ">>") || rwl_tok_is(ts, k, ",")))
            return false;
    }
    return true;
}

/* Records the reduction of row variable at token acc (statement [a, b)) in loop st: fn ""
 * for a sum, else the function that combines the lanes' maxima or minima. NULL or why it
 * is not one the warp can combine. */
static const char *add_reduction(rr_scan *s, rr_stmt *st, size_t acc, size_t a, size_t b, const char *fn,
                                 bool sel)
{
    const rw_toks *ts = s->ts;
    char nm[RR_NAME];
    tok_str(s, acc, nm, sizeof nm);
    rr_name *v = names_find_tok(&s->rows, ts, acc);
    if (!v)
        return fail(s, EN(RW_ROWS_REDUCED_NOT_VAR), nm);
    if (!v->shuffles)
        return fail(s, EN(RW_ROWS_ACC_NOT_SHUFFLE), nm);
    if (v->state == RR_HOISTED)
        return fail(s, EN(RW_ROWS_ACC_IN_CHECK), nm);
    if (!fn[0]) {
        if (v->state == RR_SET)
            return fail(s, EN(RW_ROWS_ACC_NOT_ZERO), nm);
        if (v->state == RR_WRITTEN)
            return fail(s, EN(RW_ROWS_ACC_CHANGED), nm);
        if (v->state == RR_REDUCED)
            return fail(s, EN(RW_ROWS_ACC_EARLIER), nm);
    }
    if (sel) {
        /* the if and ?: forms combine by type (rwl_minmax_update says why fmaxf is exact) */
        bool mx = strcmp(fn, "max") == 0;
        fn = v->num == 'f' ? (mx ? "fmaxf" : "fminf") : v->num == 'd' ? (mx ? "fmax" : "fmin") : (mx ? "max" : "min");
    }
    for (size_t i = 0; i < st->n_red; i++)
        if (rwl_tok_is(ts, st->red[i], nm))
            return fail(s, EN(RW_ROWS_ACC_ELSEWHERE), nm);
    if (st->n_red >= RR_MAX_RED)
        return fail(s, EN(RW_ROWS_TOO_MANY_REDUCTIONS), NULL);
    st->red[st->n_red] = acc;
    st->red_a[st->n_red] = a;
    st->red_b[st->n_red] = b;
    st->red_sel[st->n_red] = sel;
    snprintf(st->red_fn[st->n_red], sizeof st->red_fn[0], "%s", fn);
    st->n_red++;
    return NULL;
}

/* Checks statement [a, b) inside column loop st (variable cvar), recursively. */
static const char *loop_stmt(rr_scan *s, rr_stmt *st, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    char nm[RR_NAME];
    if (a >= b)
        return NULL;
    if (rwl_tok_is(ts, a, ";"))
        return NULL;
    if (rwl_tok_is(ts, a, "{")) {
        size_t c = rwl_match_close(ts, a);
        for (size_t k = a + 1; k < c;) {
            size_t e = rwl_stmt_end(ts, k, c);
            const char *why = loop_stmt(s, st, k, e);
            if (why)
                return why;
            k = e;
        }
        return NULL;
    }
    /* a running maximum or minimum of a row variable, in any spelling (also `if (x > m) m = x;`) */
    rwl_minmax mm;
    if (rwl_minmax_update(ts, a, b, &mm) && !names_find_tok(&s->locals, ts, mm.acc) &&
        !rwl_same_tok(ts, mm.acc, st->var)) {
        bool sel = !mm.fn[0];
        return add_reduction(s, st, mm.acc, a, b, sel ? (mm.max ? "max" : "min") : mm.fn, sel);
    }
    if (rwl_tok_is(ts, a, "if") && rwl_tok_is(ts, a + 1, "(")) {
        size_t c = rwl_match_close(ts, a + 1);
        if (c >= b)
            return fail(s, EN(RW_ROWS_UNBALANCED_COND), NULL);
        if (rwl_writes_any(ts, a + 2, c))
            return fail(s, EN(RW_ROWS_COND_CHANGES), NULL);
        size_t e = rwl_stmt_end(ts, c + 1, b);
        const char *why = loop_stmt(s, st, c + 1, e);
        if (why)
            return why;
        if (rwl_tok_is(ts, e, "else"))
            return loop_stmt(s, st, e + 1, b);
        return e == b ? NULL : fail(s, EN(RW_ROWS_UNEXPECTED_STMT), NULL);
    }
    if (rwl_tok_is(ts, a, "continue") && b == a + 2)
        return NULL;
    if (rwl_tok_is(ts, a, "for"))
        return fail(s, EN(RW_ROWS_NESTED_LOOP), NULL);
    if (rwl_tok_is(ts, a, "return"))
        return fail(s, EN(RW_ROWS_LOOP_RETURNS), NULL);
    const char *d = read_decl(s, a, b, &s->locals, true, st->var);
    if (d)
        return *d ? d : NULL;
    if (!rwl_tok_is(ts, b - 1, ";"))
        return fail(s, EN(RW_ROWS_UNEXPECTED_STMT), NULL);
    size_t op = assign_op(ts, a, b - 1);
    size_t ia = 0, ib = 0;
    char lv = op < b - 1 ? lvalue(ts, a, op, &ia, &ib) : 0;
    if (!lv)
        return fail(s, EN(RW_ROWS_STMT_KIND),
                    tok_str(s, a, nm, sizeof nm));
    if (rwl_writes_any(ts, op + 1, b - 1) || (lv == 's' && rwl_writes_any(ts, ia, ib)))
        return fail(s, EN(RW_ROWS_SECOND_VAR), NULL);
    if (lv == 's') {
        rr_name *loc = names_find_tok(&s->locals, ts, a);
        if (loc)
            return NULL;   /* the loop's own array */
        if (!mentions(ts, ia, ib, tok_str(s, st->var, nm, sizeof nm)) && !mentions_flagged(ts, ia, ib, &s->locals, true))
            return fail(s, EN(RW_ROWS_STORE_NO_COLUMN),
                        tok_str(s, a, nm, sizeof nm));
        return add_store(s, a, ia, ib, st);
    }
    /* a name */
    tok_str(s, a, nm, sizeof nm);
    if (names_find_tok(&s->locals, ts, a))
        return NULL;
    if (a == st->var || rwl_tok_is(ts, a, tok_str(s, st->var, (char[RR_NAME]){0}, RR_NAME)))
        return fail(s, EN(RW_ROWS_LOOP_CHANGES_VAR), nm);
    if ((rwl_tok_is(ts, op, "+=") || rwl_tok_is(ts, op, "-=")) && !mentions(ts, op + 1, b - 1, nm))
        return add_reduction(s, st, a, a, b, "", false);
    if (rwl_tok_is(ts, op, "=") && sum_rhs(ts, op + 1, b - 1, nm))
        return add_reduction(s, st, a, a, b, "", false);
    return fail(s, EN(RW_ROWS_WRITES_ROW_VAR), nm);
}

/* ------------------------------------------------------------------ the float4 path */

/* Is the name at k a pointer to float: a row-level declaration (the latest first) or a
 * kernel parameter? *is_ptr: a pointer or array of any type. */
static bool float_pointer(rr_scan *s, size_t k, bool *is_ptr)
{
    rr_name *v = names_find_tok(&s->rows, s->ts, k);
    if (v) {
        *is_ptr = v->ptr;
        return v->fptr;
    }
    for (size_t i = 0; i < s->f->n_params; i++) {
        const an_param *pa = &s->f->params[i];
        if (pa->name && pa->name[0] && rwl_tok_is(s->ts, k, pa->name)) {
            *is_ptr = pa->pointer_depth > 0;
            return pa->pointer_depth == 1 && pa->elem_type && strcmp(pa->elem_type, "float") == 0;
        }
    }
    *is_ptr = false;
    return false;
}

/* Is the index [a, b) `E + c`, `c + E` or `c` (parentheses around it aside), with E free
 * of c, of the loop's locals and of subscripts, and built only of operators that bind at
 * least as tight as + (so `E + c` is E's value plus c)? E's tokens to [*ea, *eb), empty
 * for `c`. */
static bool base_plus_c(rr_scan *s, const rr_stmt *st, size_t a, size_t b, size_t *ea, size_t *eb)
{
    const rw_toks *ts = s->ts;
    char var[RR_NAME];
    tok_str(s, st->var, var, sizeof var);
    while (b > a + 2 && rwl_tok_is(ts, a, "(") && rwl_match_close(ts, a) == b - 1) {
        a++;
        b--;
    }
    if (b == a + 1 && rwl_tok_is(ts, a, var)) {
        *ea = *eb = a;
        return true;
    }
    if (b < a + 3)
        return false;
    if (rwl_tok_is(ts, b - 1, var) && rwl_tok_is(ts, b - 2, "+")) {
        *ea = a;
        *eb = b - 2;
    } else if (rwl_tok_is(ts, a, var) && rwl_tok_is(ts, a + 1, "+")) {
        *ea = a + 2;
        *eb = b;
    } else {
        return false;
    }
    static const char *const ok[] = {"+", "-", "*", "/", "%", "!", "~", ".", "->"};
    int depth = 0;
    for (size_t k = *ea; k < *eb; k++) {
        if (rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "{"))
            return false;
        if (rwl_is_use(ts, k) && (rwl_tok_is(ts, k, var) || names_find_tok(&s->locals, ts, k)))
            return false;
        if (rwl_tok_is(ts, k, "static_cast") && rwl_tok_is(ts, k + 1, "<")) {
            size_t c = rwl_match_close(ts, k + 1);
            if (c >= *eb)
                return false;
            k = c;
            continue;
        }
        if (rwl_tok_is(ts, k, "(")) {
            depth++;
            continue;
        }
        if (rwl_tok_is(ts, k, ")")) {
            if (--depth < 0)
                return false;
            continue;
        }
        if (depth > 0 || ts->t[k].kind != T_PUNCT)
            continue;
        bool fine = false;
        for (size_t i = 0; i < HK_ARRAY_LEN(ok) && !fine; i++)
            fine = rwl_tok_is(ts, k, ok[i]);
        if (!fine)
            return false;
    }
    return depth == 0;
}

/* The first token of the statement of body [a, ...) that holds token k: k itself when k
 * starts one (after `{`, `}` or `;`, or at a). */
static size_t a_stmt(const rw_toks *ts, size_t a, size_t k)
{
    size_t q = k;
    while (q > a && !rwl_tok_is(ts, q - 1, ";") && !rwl_tok_is(ts, q - 1, "{") && !rwl_tok_is(ts, q - 1, "}"))
        q--;
    return q;
}

/* Decides whether column loop st (body [a, b), already accepted for the scalar path) also
 * gets the float4 path: st->vec and its accesses and streams, or st->novec with the
 * reason. Every memory access of the body must be a load `P[E + c]` or a statement-level
 * store `P[E + c] = ...;` through a pointer to float, E row-invariant; the body must not
 * branch, since the four components' loads are issued together and their stores are
 * collected into one float4 store. */
static void vec_check(rr_scan *s, rr_stmt *st, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    char nm[RR_NAME], var[RR_NAME];
    size_t store_end[RR_MAX_VEC];
    tok_str(s, st->var, var, sizeof var);
    st->vec = false;
    st->n_acc = st->n_vs = 0;
#define NOVEC(...)                                                                             \
    do {                                                                                       \
        snprintf(st->novec, sizeof st->novec, __VA_ARGS__);                                    \
        return;                                                                                \
    } while (0)
    for (size_t k = a; k < b; k++) {
        if (!rwl_tok_is(ts, k, "if") && !rwl_tok_is(ts, k, "?") && !rwl_tok_is(ts, k, "&&") &&
            !rwl_tok_is(ts, k, "||") && !rwl_tok_is(ts, k, "continue"))
            continue;
        /* the one branch of `if (x > m) m = x;` or `m = x > m ? x : m` only picks a register
         * value: each component keeps it, and the loads before it stay unconditional (any
         * other branch in the statement, inside x, keeps the loop scalar) */
        bool own = false;
        for (size_t i = 0; i < st->n_red && !own; i++) {
            if (!st->red_sel[i] || k < st->red_a[i] || k >= st->red_b[i])
                continue;
            size_t n_branch = 0;
            for (size_t q = st->red_a[i]; q < st->red_b[i]; q++)
                n_branch += rwl_tok_is(ts, q, "if") || rwl_tok_is(ts, q, "?") || rwl_tok_is(ts, q, "&&") ||
                            rwl_tok_is(ts, q, "||");
            own = n_branch == 1;
        }
        if (!own)
            NOVEC(EN(RW_ROWS_NOVEC_BRANCHES),
                  tok_str(s, k, nm, sizeof nm));
    }
    for (size_t k = a; k < b; k++) {
        if (!rwl_is_use(ts, k))
            continue;
        tok_str(s, k, nm, sizeof nm);
        rr_name *loc = names_find_tok(&s->locals, ts, k);
        if (loc) {
            if (loc->ptr)
                NOVEC(EN(RW_ROWS_NOVEC_LOCAL_PTR), nm);
            continue;
        }
        bool isp = false, fl = float_pointer(s, k, &isp);
        if (!rwl_tok_is(ts, k + 1, "[")) {
            if (isp)
                NOVEC(EN(RW_ROWS_NOVEC_PTR), nm);
            continue;
        }
        if (!fl)
            NOVEC(EN(RW_ROWS_NOVEC_NOT_FLOAT), nm);
        size_t close = rwl_match_close(ts, k + 1), ea, eb;
        if (close >= b)
            NOVEC(EN(RW_ROWS_NOVEC_SUBSCRIPT), nm);
        if (!base_plus_c(s, st, k + 2, close, &ea, &eb))
            NOVEC(EN(RW_ROWS_NOVEC_INDEX), nm, var);
        /* `x[c + 1]`: a neighbour read (stencil-like); its base is 4 bytes off the row's, so
         * the two are never aligned together and the float4 path would be dead code */
        size_t la = ea, lb = eb;
        while (lb > la + 2 && rwl_tok_is(ts, la, "(") && rwl_match_close(ts, la) == lb - 1) {
            la++;
            lb--;
        }
        if (lb == la + 1 && ts->t[la].kind == T_NUMBER)
            NOVEC(EN(RW_ROWS_NOVEC_SHIFT), nm);
        bool store = rwl_tok_is(ts, close + 1, "=");
        /* `P[E + c] /= s;`: read, then stored (a statement-level update: loop_stmt took it) */
        bool update = !store && rwl_tok_is_assign_op(ts, close + 1) && k == a_stmt(ts, a, k);
        if (!store && !update && (rwl_tok_is_assign_op(ts, close + 1) || rwl_tok_is(ts, close + 1, "++") ||
                       rwl_tok_is(ts, close + 1, "--") || rwl_tok_is(ts, close + 1, "[") ||
                       rwl_tok_is(ts, close + 1, ".") || rwl_tok_is(ts, close + 1, "->") ||
                       (k > a && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--") ||
                                  (rwl_tok_is(ts, k - 1, "&") && rwl_unary_position(ts, k - 1))))))
            NOVEC(EN(RW_ROWS_NOVEC_UPDATED), nm);
        /* the stream: the same pointer and the same base text */
        char idx[RR_INDEX], idx2[RR_INDEX], pn[RR_NAME];
        rwl_compact_index(ts, ea, eb, idx, sizeof idx);
        size_t v;
        for (v = 0; v < st->n_vs; v++) {
            rwl_compact_index(ts, st->vs[v].ea, st->vs[v].eb, idx2, sizeof idx2);
            if (!strcmp(tok_str(s, st->vs[v].p, pn, sizeof pn), nm) && !strcmp(idx, idx2))
                break;
        }
        if (v == st->n_vs) {
            if (st->n_vs >= RR_MAX_VEC)
                NOVEC(EN(RW_ROWS_NOVEC_ROWS), RR_MAX_VEC);
            st->vs[v].p = k;
            st->vs[v].ea = ea;
            st->vs[v].eb = eb;
            st->vs[v].load = st->vs[v].store = st->vs[v].rmw = false;
            store_end[v] = ts->n;
            st->n_vs++;
        }
        if (!store) {
            /* the float4 is loaded before any component runs; a read after a store reads
             * the component stored (hk_sN), as the scalar loop reads its own store */
            if (k >= store_end[v])
                st->vs[v].rmw = true;
            else
                st->vs[v].load = true;
        }
        if (store || update) {
            st->vs[v].store = true;
            st->vs[v].rmw |= update;
            size_t e = rwl_stmt_end(ts, k, b);
            if (e < store_end[v])
                store_end[v] = e;
        }
        if (st->n_acc >= RR_MAX_ACC)
            NOVEC(EN(RW_ROWS_NOVEC_ACCESSES), RR_MAX_ACC);
        st->acc[st->n_acc].p = k;
        st->acc[st->n_acc].close = close;
        st->acc[st->n_acc].stream = v;
        st->acc[st->n_acc].store = store || update;
        st->n_acc++;
        k = close;
    }
    if (!st->n_acc)
        NOVEC(EN(RW_ROWS_NOVEC_NO_MEMORY), "");
#undef NOVEC
    /* c itself: declared in a component only where the body uses it besides the indices */
    st->c_used = count_uses(ts, a, b, var) > st->n_acc;
    st->vec = true;
}

/* A decimal integer constant (digits alone, no suffix, not octal): a loop's first column. */
static bool decimal_start(const rw_toks *ts, size_t k)
{
    if (k >= ts->n || ts->t[k].kind != T_NUMBER)
        return false;
    const rw_tok *t = &ts->t[k];
    if (t->end - t->start > 9 || (t->end - t->start > 1 && ts->text[t->start] == '0'))
        return false;
    for (uint32_t p = t->start; p < t->end; p++)
        if (ts->text[p] < '0' || ts->text[p] > '9')
            return false;
    return true;
}

/* A column loop `for (T c = S; c < COLS; c++ | ++c | c += 1) S` at [a, b), S 0 or a decimal
 * constant (session 48: a row's max started from its first element, `for (c = 1; ...)`;
 * lane l takes S + l, S + l + W, ...: the columns S..COLS-1 once each, so a sum, max or min
 * over them is the loop's; the float4 path, which counts columns from 0, stays off). */
static const char *read_loop(rr_scan *s, rr_stmt *st, size_t a, size_t b)
{
    const rw_toks *ts = s->ts;
    size_t c = rwl_match_close(ts, a + 1);
    if (!rwl_tok_is(ts, a + 1, "(") || c >= b)
        return fail(s, EN(RW_ROWS_UNBALANCED_HEADER), NULL);
    size_t q = a + 2;
    while (q < c && (rwl_is_type_word(ts, q) || rwl_tok_is(ts, q, "unsigned")))
        q++;
    if (q == a + 2)
        return fail(s, EN(RW_ROWS_NO_COLUMN_VAR), NULL);
    char var[RR_NAME], want1[RR_NAME + 4], want2[RR_NAME + 4], want3[RR_NAME + 8], step[RR_INDEX];
    tok_str(s, q, var, sizeof var);
    if (!is_ident(ts, q) || !rwl_tok_is(ts, q + 1, "=") ||
        !(is_zero(ts, q + 2, q + 3) || decimal_start(ts, q + 2)) || !rwl_tok_is(ts, q + 3, ";"))
        return fail(s, EN(RW_ROWS_NOT_COLUMN_LOOP), NULL);
    size_t semi = q + 4;
    while (semi < c && !rwl_tok_is(ts, semi, ";"))
        semi++;
    if (semi >= c)
        return fail(s, EN(RW_ROWS_NOT_COLUMN_LOOP), NULL);
    /* c < COLS, the bound free of c and of side effects */
    if (!rwl_tok_is(ts, q + 4, var) || !rwl_tok_is(ts, q + 5, "<") || semi <= q + 6 ||
        mentions(ts, q + 6, semi, var) || rwl_writes_any(ts, q + 6, semi))
        return fail(s, EN(RW_ROWS_NOT_COLS_COND), NULL);
    for (size_t k = q + 6; k < semi; k++)
        if (rwl_tok_is(ts, k, "&&") || rwl_tok_is(ts, k, "||") || rwl_tok_is(ts, k, "?") || rwl_tok_is(ts, k, ","))
            return fail(s, EN(RW_ROWS_NOT_COLS_COND), NULL);
    rwl_compact_index(ts, semi + 1, c, step, sizeof step);
    snprintf(want1, sizeof want1, "%s++", var);
    snprintf(want2, sizeof want2, "++%s", var);
    snprintf(want3, sizeof want3, "%s+=1", var);
    if (strcmp(step, want1) && strcmp(step, want2) && strcmp(step, want3))
        return fail(s, EN(RW_ROWS_NOT_STEP_ONE), NULL);
    st->kind = 'l';
    st->var = q;
    st->start = is_zero(ts, q + 2, q + 3) ? 0 : q + 2;
    st->type_a = a + 2;
    st->cond_a = q + 4;
    st->cond_b = semi;
    st->body_a = c + 1;
    s->locals.n = 0;
    const char *why = loop_stmt(s, st, c + 1, b);
    if (why)
        return why;
    /* each accumulator appears only in its reduction */
    for (size_t i = 0; i < st->n_red; i++) {
        char nm[RR_NAME];
        tok_str(s, st->red[i], nm, sizeof nm);
        /* its own statement mentions it once (`acc += E`), twice (`acc = acc + E`) or three
         * times (`if (x > acc) acc = x;`) */
        if (count_uses(ts, c + 1, b, nm) != count_uses(ts, st->red_a[i], st->red_b[i], nm))
            return fail(s, EN(RW_ROWS_ACC_ELSEWHERE), nm);
        /* after any reduction every lane holds the combined value: a later sum into it
         * would add that value once per lane */
        rr_name *v = names_find(&s->rows, nm);
        if (v)
            v->state = RR_REDUCED;
    }
    vec_check(s, st, c + 1, b);
    if (st->vec && st->start) {
        st->vec = false;
        char sv[16];
        snprintf(st->novec, sizeof st->novec, EN(RW_ROWS_NOVEC_START), tok_str(s, st->start, sv, sizeof sv));
    }
    s->n_loops++;
    s->n_reductions += st->n_red;
    s->n_vec += st->vec;
    return NULL;
}

/* The row index declaration at [a, e)? Its name token goes to *name. */
static bool index_decl(const rw_toks *ts, size_t a, size_t e, size_t *name)
{
    size_t q = a;
    if (rwl_tok_is(ts, q, "const"))
        q++;
    size_t t0 = q;
    while (q < e && (rwl_is_type_word(ts, q) || rwl_tok_is(ts, q, "unsigned")))
        q++;
    if (q == t0 || !is_ident(ts, q) || !rwl_tok_is(ts, q + 1, "=") || !rwl_tok_is(ts, e - 1, ";"))
        return false;
    char c[256];
    rwl_compact_index(ts, q + 2, e - 1, c, sizeof c);
    if (!rwl_is_index_formula(c))
        return false;
    *name = q;
    return true;
}

/* One comparison `r >= B` / `B <= r` (early return) or `r < B` / `B > r` (block) over
 * [a, b). */
static bool guard_cond(rr_scan *s, size_t a, size_t b, bool early)
{
    const rw_toks *ts = s->ts;
    while (b > a + 2 && rwl_tok_is(ts, a, "(") && rwl_match_close(ts, a) == b - 1) {
        a++;
        b--;
    }
    char r[RR_NAME];
    tok_str(s, s->idx_name, r, sizeof r);
    size_t ba, bb;
    if (rwl_tok_is(ts, a, r) && rwl_tok_is(ts, a + 1, early ? ">=" : "<")) {
        ba = a + 2;
        bb = b;
    } else if (b > a + 2 && rwl_tok_is(ts, b - 1, r) && rwl_tok_is(ts, b - 2, early ? "<=" : ">")) {
        ba = a;
        bb = b - 2;
    } else {
        return false;
    }
    if (ba >= bb || mentions(ts, ba, bb, r) || rwl_writes_any(ts, ba, bb))
        return false;
    for (size_t k = ba; k < bb; k++)
        if (rwl_tok_is(ts, k, "<") || rwl_tok_is(ts, k, ">") || rwl_tok_is(ts, k, "<=") || rwl_tok_is(ts, k, ">=") ||
            rwl_tok_is(ts, k, "==") || rwl_tok_is(ts, k, "!=") || rwl_tok_is(ts, k, "&&") ||
            rwl_tok_is(ts, k, "||") || rwl_tok_is(ts, k, "?"))
            return false;
    s->bound_a = ba;
    s->bound_b = bb;
    return true;
}

/* ------------------------------------------------------------------ lane-0 re-reads */

/* Is the newline at text[p] one that rwa_accumulate_body added: after a declaration
 * `T hk_accK = 0;` or before a flush `P[I] += hk_accK;`? (Only when the scanned text has
 * them: the kernel's own text has no hk_ names.) */
static bool added_newline(const char *text, size_t p)
{
    size_t e = p;
    while (e > 0 && (text[e - 1] == ' ' || text[e - 1] == '\t'))
        e--;
    static const char zero[] = " = 0;", flush[] = "+= hk_acc";
    size_t z = sizeof zero - 1, q;
    if (e >= z && !memcmp(text + e - z, zero, z)) {
        for (q = e - z; q > 0 && text[q - 1] >= '0' && text[q - 1] <= '9'; q--)
            ;
        if (q < e - z && q >= 6 && !memcmp(text + q - 6, "hk_acc", 6))
            return true;
    }
    for (q = p + 1; text[q] && text[q] != '\n'; q++)   /* the next line only */
        if (!strncmp(text + q, flush, sizeof flush - 1))
            return true;
    return false;
}

/* The line of token k in the kernel's own text: lines the register accumulators added to
 * the scanned text are not counted. */
static unsigned src_line(const rr_scan *s, size_t k)
{
    const char *t = s->ts->text;
    unsigned line = 1;
    for (size_t p = 0; k < s->ts->n && p < s->ts->t[k].start; p++)
        if (t[p] == '\n' && !(s->acc_lines && added_newline(t, p)))
            line++;
    return line;
}

/* s->why = the sentence id ("`P[I]`, stored by lane 0 at line L, ...": w's pointer, index and
 * line, then the arguments given); returns it. In lane0_access, which declares nm0. */
#define REFUSE_STORE(id, ...)                                                                  \
    (snprintf(s->why, sizeof s->why, EN(id), tok_str(s, w->base, nm0, sizeof nm0), w->index,     \
              src_line(s, w->base), __VA_ARGS__),                                               \
     s->why)

/* Lane 0 alone runs the row-level statements that store to memory (kind 's'), each after
 * the column loops before it and their warp combines (every lane then holds each total),
 * in the original order. So lane 0 may access again what such a statement stores: read it
 * back (PolyBench's gesummv, `tmp[i] += hk_acc0; y[i] += hk_acc1;` then `y[i] = alpha *
 * tmp[i] + beta * y[i];`) or store it again; no other lane touches it, and program order
 * orders lane 0's own accesses. Token j, a use of w's pointer other than the target of a
 * lane-0 store, passes when it is `P[I]` with w's index I, inside a lane-0 statement, and I
 * reads no memory, calls nothing and names nothing the row body changes (so the text names
 * one element throughout). NULL, or the reason with the construct and its line. */
static const char *lane0_access(rr_scan *s, const rr_store *w, size_t j)
{
    const rw_toks *ts = s->ts;
    const rr_stmt *in = NULL;
    for (size_t i = 0; i < s->n_st && !in; i++)
        if (s->st[i].a <= j && j < s->st[i].b)
            in = &s->st[i];
    char nm0[RR_NAME];
    if (!in || in->kind != 's')
        return in && in->kind == 'l' ? REFUSE_STORE(RW_ROWS_L0_IN_COLUMN_LOOP, src_line(s, j))
                                     : REFUSE_STORE(RW_ROWS_L0_IN_ROW_STMT, src_line(s, j));
    if (!rwl_tok_is(ts, j + 1, "["))
        return REFUSE_STORE(RW_ROWS_L0_NOT_SUBSCRIPT, src_line(s, j));
    size_t c = rwl_match_close(ts, j + 1);
    char idx[RR_INDEX], nm[RR_NAME];
    rwl_compact_index(ts, j + 2, c, idx, sizeof idx);
    if (c >= in->b || strcmp(idx, w->index) != 0)
        return REFUSE_STORE(RW_ROWS_L0_OTHER_INDEX, idx, src_line(s, j));
    for (size_t t = j + 2; t < c; t++) {
        if (rwl_tok_is(ts, t, "[") || (is_ident(ts, t) && !rwl_is_type_word(ts, t) && rwl_tok_is(ts, t + 1, "(")))
            return REFUSE_STORE(RW_ROWS_L0_INDEX_READS, src_line(s, j), tok_str(s, t, nm, sizeof nm));
        if (!is_ident(ts, t) || !rwl_is_use(ts, t))
            continue;
        for (size_t q = s->body_a; q < s->body_b; q++) {
            bool declared = false;
            for (size_t d = 0; d < s->n_decl_tok && !declared; d++)
                declared = s->decl_tok[d] == q;
            if (!declared && rwl_is_use(ts, q) && rwl_same_tok(ts, q, t) && rwl_scalar_written(ts, q))
                return REFUSE_STORE(RW_ROWS_L0_INDEX_CHANGES, src_line(s, j), tok_str(s, t, nm, sizeof nm),
                                    src_line(s, q));
        }
    }
    char one[RR_NAME + 112];
    snprintf(one, sizeof one, "`%s[%.100s]`", tok_str(s, w->base, nm, sizeof nm), w->index);
    size_t l = strlen(s->reread);
    if (!strstr(s->reread, one) && l + strlen(one) + 3 < sizeof s->reread)
        snprintf(s->reread + l, sizeof s->reread - l, "%s%s", l ? ", " : "", one);
    return NULL;
}

/* The column loop of the row body that holds token k, or NULL. */
static rr_stmt *loop_at(rr_scan *s, size_t k)
{
    for (size_t i = 0; i < s->n_st; i++)
        if (s->st[i].kind == 'l' && k >= s->st[i].a && k < s->st[i].b)
            return &s->st[i];
    return NULL;
}

/* Reads the whole body: declarations, index, guard, row statements. NULL or the reason. */
static const char *scan(rr_scan *s)
{
    const rw_toks *ts = s->ts;
    if (ts->n < 2 || !rwl_tok_is(ts, 0, "{") || rwl_match_close(ts, 0) != ts->n - 1)
        return EN(RW_ROWS_BODY_UNREADABLE);
    size_t end = ts->n - 1, k = 1;
    bool have_idx = false;
    char r[RR_NAME] = "";
    while (k < end && !rwl_tok_is(ts, k, "if")) {
        size_t e = rwl_stmt_end(ts, k, end), nm;
        if (!have_idx && index_decl(ts, k, e, &nm)) {
            have_idx = true;
            s->idx_a = k;
            s->idx_b = e;
            s->idx_name = nm;
            tok_str(s, nm, r, sizeof r);
            k = e;
            continue;
        }
        if (s->n_pre >= RR_MAX_STMTS)
            return EN(RW_ROWS_TOO_MANY_PRE_DECLS);
        size_t names[RR_MAX_NAMES], nn = 0;
        if (!rwl_is_hoistable_decl(ts, k, e, "", names, &nn, RR_MAX_NAMES))
            return EN(RW_ROWS_PRE_NOT_DECL);
        s->pre[s->n_pre][0] = k;
        s->pre[s->n_pre][1] = e;
        s->n_pre++;
        k = e;
    }
    if (!have_idx)
        return EN(RW_ROWS_NO_ROW_INDEX);
    const char *why = forbidden(ts, 1, end, s->idx_a, s->idx_b);
    if (why)
        return why;
    if (!rwl_tok_is(ts, k, "if") || !rwl_tok_is(ts, k + 1, "("))
        return EN(RW_ROWS_NO_BOUNDS_CHECK);
    size_t cc = rwl_match_close(ts, k + 1);
    if (cc >= end)
        return EN(RW_ROWS_UNBALANCED_CHECK);
    size_t then_a = cc + 1, then_b = rwl_stmt_end(ts, then_a, end);
    if (rwl_tok_is(ts, then_b, "else"))
        return EN(RW_ROWS_CHECK_ELSE);
    bool early = (rwl_tok_is(ts, then_a, "return") && rwl_tok_is(ts, then_a + 1, ";") && then_b == then_a + 2) ||
                 (rwl_tok_is(ts, then_a, "{") && rwl_tok_is(ts, then_a + 1, "return") &&
                  rwl_tok_is(ts, then_a + 2, ";") && then_b == then_a + 4);
    if (!guard_cond(s, k + 2, cc, early))
        return early ? EN(RW_ROWS_EARLY_RETURN_FORM)
                     : EN(RW_ROWS_CHECK_FORM);
    if (early) {
        s->body_a = then_b;
        s->body_b = end;
    } else {
        if (then_b != end)
            return EN(RW_ROWS_STMTS_AFTER_CHECK);
        s->body_a = rwl_tok_is(ts, then_a, "{") ? then_a + 1 : then_a;
        s->body_b = rwl_tok_is(ts, then_a, "{") ? then_b - 1 : then_b;
    }
    for (size_t j = s->body_a; j < s->body_b; j++)
        if (rwl_tok_is(ts, j, "return"))
            return EN(RW_ROWS_ROW_RETURNS);
    /* declarations before the guard: those the bound reads (transitively) stay before the
     * row loop, the others move into it (they may be per-row accumulators) */
    for (size_t i = s->n_pre; i-- > 0;) {
        size_t a = s->pre[i][0], b = s->pre[i][1];
        size_t names[RR_MAX_NAMES], nn = 0;
        rwl_is_hoistable_decl(ts, a, b, "", names, &nn, RR_MAX_NAMES);
        bool need = false;
        for (size_t q = 0; q < nn && !need; q++) {
            char nm[RR_NAME];
            tok_str(s, names[q], nm, sizeof nm);
            need = mentions(ts, s->bound_a, s->bound_b, nm);
            for (size_t j = i + 1; j < s->n_pre && !need; j++)
                need = s->pre_hoist[j] && mentions(ts, s->pre[j][0], s->pre[j][1], nm);
        }
        s->pre_hoist[i] = need;
    }
    for (size_t i = 0; i < s->n_pre; i++) {
        size_t a = s->pre[i][0], b = s->pre[i][1];
        bool after_idx = a > s->idx_a;
        if (s->pre_hoist[i] && after_idx && mentions(ts, a, b, r))
            return EN(RW_ROWS_CHECK_DEPENDS);
        size_t first = s->rows.n;
        const char *d = read_decl(s, a, b, &s->rows, false, ts->n);
        if (d && *d)
            return d;
        for (size_t q = first; q < s->rows.n; q++)
            if (s->pre_hoist[i])
                s->rows.v[q].state = RR_HOISTED;
    }
    /* row statements */
    for (k = s->body_a; k < s->body_b;) {
        size_t e = rwl_stmt_end(ts, k, s->body_b);
        if (s->n_st >= RR_MAX_STMTS)
            return EN(RW_ROWS_TOO_MANY_STMTS);
        rr_stmt *st = &s->st[s->n_st++];
        memset(st, 0, sizeof *st);
        st->a = k;
        st->b = e;
        char nm[RR_NAME];
        if (rwl_tok_is(ts, k, "for")) {
            if ((why = read_loop(s, st, k, e)))
                return why;
        } else if (rwl_tok_is(ts, k, ";")) {
            st->kind = 'd';
        } else if ((why = read_decl(s, k, e, &s->rows, true, ts->n))) {
            if (*why)
                return why;
            st->kind = 'd';
        } else {
            size_t op = rwl_tok_is(ts, e - 1, ";") ? assign_op(ts, k, e - 1) : e;
            size_t ia = 0, ib = 0;
            char lv = op < e - 1 ? lvalue(ts, k, op, &ia, &ib) : 0;
            if (!lv)
                return fail(s, EN(RW_ROWS_ROW_STMT_KIND), tok_str(s, k, nm, sizeof nm));
            if (rwl_writes_any(ts, op + 1, e - 1) || (lv == 's' && rwl_writes_any(ts, ia, ib)))
                return EN(RW_ROWS_ROW_SECOND_VAR);
            if (lv == 'n') {
                rr_name *v = names_find_tok(&s->rows, ts, k);
                if (v && v->state == RR_HOISTED)
                    return fail(s, EN(RW_ROWS_CHANGES_CHECKED), tok_str(s, k, nm, sizeof nm));
                if (rwl_tok_is(ts, k, r))
                    return EN(RW_ROWS_CHANGES_ROW_INDEX);
                if (v)
                    v->state = RR_WRITTEN;
                st->kind = 'a';
            } else {
                if (!mentions(ts, ia, ib, r) && !mentions_flagged(ts, ia, ib, &s->rows, false) &&
                    !mentions_flagged(ts, k, k + 1, &s->rows, false))
                    return fail(s, EN(RW_ROWS_STORE_NO_ROW),
                                tok_str(s, k, nm, sizeof nm));
                if ((why = add_store(s, k, ia, ib, NULL)))
                    return why;
                st->kind = 's';
                s->n_lane0++;
            }
        }
        k = e;
    }
    if (!s->n_loops)
        return EN(RW_ROWS_NO_COLUMN_LOOP);
    /* memory a lane writes is touched elsewhere only at the same index (so by the same
     * lane); a lane-0 store's location is not touched again at all */
    for (size_t i = 0; i < s->n_stores; i++) {
        const rr_store *w = &s->stores[i];
        char nm[RR_NAME];
        tok_str(s, w->base, nm, sizeof nm);
        for (size_t j = s->body_a; j < s->body_b; j++) {
            if (j == w->base || !rwl_is_use(ts, j) || !rwl_tok_is(ts, j, nm))
                continue;
            bool declared = false;
            for (size_t q = 0; q < s->n_decl_tok && !declared; q++)
                declared = s->decl_tok[q] == j;
            if (declared)
                continue;   /* `float *y = out + r * cols;` declares it */
            bool other_store = false;
            for (size_t q = 0; q < s->n_stores; q++)
                if (s->stores[q].base == j && !w->in_loop && !s->stores[q].in_loop)
                    other_store = true;   /* another lane-0 store: lane 0 owns both */
            if (other_store)
                continue;
            if (!w->in_loop) {   /* lane 0 reads back what it stored, or refused */
                const char *bad = lane0_access(s, w, j);
                if (bad)
                    return bad;
                continue;
            }
            rr_stmt *there = loop_at(s, j);
            if (!there)
                return fail(s, EN(RW_ROWS_STORED_OUTSIDE), nm);
            char idx[RR_INDEX];
            if (!rwl_tok_is(ts, j + 1, "["))
                return fail(s, EN(RW_ROWS_STORED_NOT_SUBSCRIPT), nm);
            size_t c = rwl_match_close(ts, j + 1);
            rwl_compact_index(ts, j + 2, c, idx, sizeof idx);
            if (strcmp(idx, w->index) != 0)
                return fail(s, EN(RW_ROWS_STORED_OTHER_INDEX), nm);
            /* the same text names another element where a loop-local variable in it is
             * defined differently in another loop */
            if (w->local_index && (j < w->loop_a || j >= w->loop_b))
                return fail(s, EN(RW_ROWS_STORED_LOCAL_INDEX), nm);
            /* the same index in another column loop (llm.c's softmax: `out_row[j] = ...;` then
             * `out_row[j] /= sum;`): lane c % width owns column c in every scalar lane loop,
             * but the float4 path gives a lane four columns and the tail others, and it is
             * chosen per loop; both loops keep the scalar lane map */
            if (there->a != w->loop_a) {
                /* the same text names the same element in both loops only when no name in
                 * it (the pointer included) changes at the row level or in a reduction;
                 * where one is assigned is not tracked, so any such name refuses */
                for (size_t q = j; q < c; q++) {
                    rr_name *v = rwl_is_use(ts, q) ? names_find_tok(&s->rows, ts, q) : NULL;
                    if (v && (v->state == RR_WRITTEN || v->state == RR_REDUCED))
                        return fail2(s, EN(RW_ROWS_STORED_CHANGED_INDEX), nm, v->name);
                }
                there->shared_mem = true;
                loop_at(s, w->loop_a)->shared_mem = true;
            }
        }
        for (size_t p = 0; p < s->n_pre; p++)
            if (mentions(ts, s->pre[p][0], s->pre[p][1], nm))
                return fail(s, EN(RW_ROWS_STORED_BEFORE_CHECK), nm);
    }
    /* Loops that share memory (shared_mem) must give every lane the same columns: all take
     * the float4 path under one condition (every base of all of them aligned, the same
     * bound), or all keep the scalar lane map. The condition is evaluated at each loop, so
     * its names must be declared before the first of them and never change. */
    enum hk_msg group_why = HK_MSG_COUNT; /* the sentence for the loops sharing memory */
    size_t first = ts->n;
    char bound[RR_INDEX] = "", other[RR_INDEX];
    for (size_t i = 0; i < s->n_st && group_why == HK_MSG_COUNT; i++) {
        rr_stmt *st = &s->st[i];
        if (st->kind != 'l' || !st->shared_mem)
            continue;
        rwl_compact_index(ts, st->cond_a + 2, st->cond_b, other, sizeof other);
        if (!st->vec)
            group_why = HK_MSG_RW_ROWS_SHARES_SCALAR;
        else if (first != ts->n && strcmp(bound, other) != 0)
            group_why = HK_MSG_RW_ROWS_SHARES_BOUNDS;
        if (first == ts->n) {
            first = st->a;
            snprintf(bound, sizeof bound, "%s", other);
        }
    }
    for (size_t i = 0; i < s->n_st && group_why == HK_MSG_COUNT; i++) {
        rr_stmt *st = &s->st[i];
        if (st->kind != 'l' || !st->shared_mem)
            continue;
        for (size_t v = 0; v <= st->n_vs && group_why == HK_MSG_COUNT; v++) {
            size_t a = v < st->n_vs ? st->vs[v].p : st->cond_a + 2;
            size_t e = v < st->n_vs ? (st->vs[v].ea == st->vs[v].eb ? a + 1 : st->vs[v].eb) : st->cond_b;
            for (size_t t = a; t < e && group_why == HK_MSG_COUNT; t++) {
                rr_name *n = rwl_is_use(ts, t) ? names_find_tok(&s->rows, ts, t) : NULL;
                if (!n)
                    continue;
                if (n->state == RR_WRITTEN || n->state == RR_REDUCED)
                    group_why = HK_MSG_RW_ROWS_SHARES_CHANGES;
                for (size_t q = 0; q < s->n_decl_tok && group_why == HK_MSG_COUNT; q++)
                    if (s->decl_tok[q] >= first && rwl_same_tok(ts, s->decl_tok[q], t))
                        group_why = HK_MSG_RW_ROWS_SHARES_DECLARED_AFTER;
            }
        }
    }
    /* and the same first column (the scalar lane maps of S and 0 differ) */
    const rr_stmt *first_shared = NULL;
    for (size_t i = 0; i < s->n_st; i++) {
        const rr_stmt *st = &s->st[i];
        if (st->kind != 'l' || !st->shared_mem)
            continue;
        if (!first_shared)
            first_shared = st;
        else if ((first_shared->start == 0) != (st->start == 0) ||
                 (st->start && !rwl_same_tok(ts, st->start, first_shared->start)))
            return fail(s, EN(RW_ROWS_SHARES_START), NULL);
    }
    for (size_t i = 0; i < s->n_st && group_why != HK_MSG_COUNT; i++) {
        rr_stmt *st = &s->st[i];
        if (st->kind != 'l' || !st->shared_mem || !st->vec)
            continue;
        st->vec = false;
        s->n_vec--;
        snprintf(st->novec, sizeof st->novec, "%s", hk_tr_in(HK_LANG_EN, group_why));
    }
    return NULL;
}

/* ------------------------------------------------------------------ rendering */

/* Appends the source text of tokens [a, b). */
static int put_src(struct hk_buf *b, const rw_toks *ts, size_t a, size_t z)
{
    if (a >= z)
        return HK_OK;
    return hk_buf_append(b, ts->text + ts->t[a].start, ts->t[z - 1].end - ts->t[a].start);
}

/* `for (T c = START; c < COLS; c += (T)hk_width) BODY` with START = `(T)` pre, the type,
 * post; ind is the indentation of the line the loop starts on. */
static int render_lane_loop(const rr_scan *s, const rr_stmt *st, struct hk_buf *b, const char *pre,
                            const char *post, const char *ind)
{
    const rw_toks *ts = s->ts;
    int rc;
    if ((rc = hk_buf_appends(b, "for (")) || (rc = put_src(b, ts, st->type_a, st->var + 1)) ||
        (rc = hk_buf_printf(b, " = %s", pre)) || (rc = put_src(b, ts, st->type_a, st->var)) ||
        (rc = hk_buf_printf(b, "%s; ", post)) || (rc = put_src(b, ts, st->cond_a, st->cond_b)) ||
        (rc = hk_buf_appends(b, "; ")) || (rc = put_src(b, ts, st->var, st->var + 1)) ||
        (rc = hk_buf_appends(b, " += (")) || (rc = put_src(b, ts, st->type_a, st->var)) ||
        (rc = hk_buf_printf(b, ")hk_width)\n%s%s", ind, rwl_tok_is(ts, st->body_a, "{") ? "" : "    ")))
        return rc;
    return put_src(b, ts, st->body_a, st->b);
}

/* The base address `(&P[E])` or `(P)` of stream v. */
static int put_base(const rr_scan *s, const rr_stmt *st, size_t v, struct hk_buf *b)
{
    int rc;
    size_t p = st->vs[v].p;
    if (st->vs[v].ea == st->vs[v].eb)
        return (rc = hk_buf_appends(b, "(")) || (rc = put_src(b, s->ts, p, p + 1)) ? rc : hk_buf_appends(b, ")");
    if ((rc = hk_buf_appends(b, "(&")) || (rc = put_src(b, s->ts, p, p + 1)) || (rc = hk_buf_appends(b, "[")) ||
        (rc = put_src(b, s->ts, st->vs[v].ea, st->vs[v].eb)))
        return rc;
    return hk_buf_appends(b, "])");
}

/* The body of loop st for component k (0..3 of a float4): the source with each access
 * replaced by its float4's component. */
static int put_component(const rr_scan *s, const rr_stmt *st, int k, struct hk_buf *b)
{
    const rw_toks *ts = s->ts;
    static const char comp[] = "xyzw";
    int rc;
    uint32_t at = ts->t[st->body_a].start;
    for (size_t i = 0; i < st->n_acc; i++) {
        uint32_t from = ts->t[st->acc[i].p].start;
        if ((rc = hk_buf_append(b, ts->text + at, from - at)) ||
            (rc = hk_buf_printf(b, "hk_%c%zu.%c", st->acc[i].store || st->vs[st->acc[i].stream].rmw ? 's' : 'v',
                                st->acc[i].stream, comp[k])))
            return rc;
        at = ts->t[st->acc[i].close].end;
    }
    return hk_buf_append(b, ts->text + at, ts->t[st->b - 1].end - at);
}

/* A column loop with the float4 path (column loop number no of the row body, from 1):
 *   hk_vecN = every stream's base address is 16-byte aligned
 *   if (hk_vecN) { float4 loop over COLS / 4 (body once per component), scalar tail }
 *   else { the scalar lane loop } */
static int render_vec_loop(const rr_scan *s, const rr_stmt *st, size_t no, struct hk_buf *b, bool peel)
{
    const rw_toks *ts = s->ts;
    int rc = 0;
    /* peel: the bases need only the same address mod 16 (a row of 50257 floats is 16-byte
     * aligned one row in four); the first hk_preN columns, up to the first base's 16-byte
     * boundary, run the scalar lane loop, then the float4 loop from there */
    const char *pv = peel ? " + hk_pre" : "";
#define R(x)                                                                                   \
    do {                                                                                       \
        if ((rc = (x)))                                                                        \
            return rc;                                                                         \
    } while (0)
    if (peel) {
        /* the reference: the first base of the first loop of its group, the same in each */
        const rr_stmt *ref = st;
        for (size_t i = 0; i < s->n_st && st->shared_mem; i++)
            if (s->st[i].kind == 'l' && s->st[i].shared_mem) {
                ref = &s->st[i];
                break;
            }
        R(hk_buf_printf(b, "const unsigned long long hk_r%zu = reinterpret_cast<unsigned long long>", no)); /* i18n: not for people */
        R(put_base(s, ref, 0, b));
        R(hk_buf_printf(b, ";\n        const bool hk_vec%zu = ((hk_r%zu & 3ull)", no, no));
    } else {
        R(hk_buf_printf(b, "const bool hk_vec%zu = ((", no));
    }
    /* loops sharing memory test every base of all of them, so they choose alike (scan) */
    bool first = true;
    for (size_t i = 0; i < s->n_st; i++) {
        const rr_stmt *o = &s->st[i];
        if (o != st && !(st->shared_mem && o->kind == 'l' && o->shared_mem))
            continue;
        for (size_t v = 0; v < o->n_vs; v++) {
            if (peel) {
                R(hk_buf_appends(b, " | ((reinterpret_cast<unsigned long long>")); /* i18n: not for people */
                R(put_base(s, o, v, b));
                R(hk_buf_printf(b, " ^ hk_r%zu) & 15ull)", no));
                continue;
            }
            R(hk_buf_appends(b, first ? "reinterpret_cast<unsigned long long>" : " | reinterpret_cast<unsigned long long>")); /* i18n: not for people */
            R(put_base(s, o, v, b));
            first = false;
        }
    }
    if (peel) {
        R(hk_buf_printf(b,
                        ") == 0ull;\n" /* i18n: not for people */
                        "        if (hk_vec%zu) {\n"
                        "            // float4: the columns up to the rows' 16-byte boundary on the scalar loop,\n"
                        "            // then four columns per lane and step, then the tail of the scalar loop\n"
                        "            ",
                        no));
        R(put_src(b, ts, st->type_a, st->var));
        R(hk_buf_appends(b, " hk_pre = ("));
        R(put_src(b, ts, st->type_a, st->var));
        R(hk_buf_printf(b, ")(((16ull - (hk_r%zu & 15ull)) & 15ull) >> 2);\n            if (hk_pre > (", no));
        R(put_src(b, ts, st->cond_a + 2, st->cond_b));
        R(hk_buf_appends(b, "))\n                hk_pre = ("));
        R(put_src(b, ts, st->cond_a + 2, st->cond_b));
        R(hk_buf_appends(b, ");\n            "));
        /* for (T c = (T)hk_lane; c < hk_pre; c += (T)hk_width) BODY */
        R(hk_buf_appends(b, "for ("));
        R(put_src(b, ts, st->type_a, st->var + 1));
        R(hk_buf_appends(b, " = ("));
        R(put_src(b, ts, st->type_a, st->var));
        R(hk_buf_appends(b, ")hk_lane; "));
        R(put_src(b, ts, st->var, st->var + 1));
        R(hk_buf_appends(b, " < hk_pre; "));
        R(put_src(b, ts, st->var, st->var + 1));
        R(hk_buf_appends(b, " += ("));
        R(put_src(b, ts, st->type_a, st->var));
        R(hk_buf_printf(b, ")hk_width)\n            %s", rwl_tok_is(ts, st->body_a, "{") ? "" : "    "));
        R(put_src(b, ts, st->body_a, st->b));
        R(hk_buf_appends(b, "\n            #pragma unroll 4\n            for (")); /* i18n: not for people */
    } else {
        R(hk_buf_printf(b,
                        ") & 15ull) == 0ull;\n" /* i18n: not for people */
                        "        if (hk_vec%zu) {\n"
                        "            // float4: four columns per lane and step (16-byte aligned rows); the\n"
                        "            // tail of COLS %% 4 columns and misaligned rows run the scalar loop\n"
                        "            #pragma unroll 4\n"
                        "            for (",
                        no));
    }
    R(put_src(b, ts, st->type_a, st->var));
    R(hk_buf_appends(b, " hk_c4 = ("));
    R(put_src(b, ts, st->type_a, st->var));
    R(hk_buf_appends(b, peel ? ")hk_lane; hk_c4 < ((" : ")hk_lane; hk_c4 < ("));
    R(put_src(b, ts, st->cond_a + 2, st->cond_b));
    R(hk_buf_appends(b, peel ? ") - hk_pre) / 4; hk_c4 += (" : ") / 4; hk_c4 += ("));
    R(put_src(b, ts, st->type_a, st->var));
    R(hk_buf_appends(b, ")hk_width) {\n"));
    for (size_t v = 0; v < st->n_vs; v++) {
        if (st->vs[v].load) {
            if (st->vs[v].rmw)
                R(hk_buf_printf(b, "                float4 hk_s%zu = reinterpret_cast<const float4 *>", v));
            else
                R(hk_buf_printf(b, "                const float4 hk_v%zu = reinterpret_cast<const float4 *>", v));
            R(hk_buf_appends(b, peel ? "(" : ""));
            R(put_base(s, st, v, b));
            R(hk_buf_printf(b, "%s%s[hk_c4];\n", pv, peel ? ")" : ""));
        }
        if (st->vs[v].store && !(st->vs[v].rmw && st->vs[v].load))
            R(hk_buf_printf(b, "                float4 hk_s%zu;\n", v));
    }
    /* a block body without c is its own component scope */
    bool wrap = st->c_used || !rwl_tok_is(ts, st->body_a, "{");
    for (int k = 0; k < 4; k++) {
        if (!wrap) {
            R(hk_buf_appends(b, "                "));
            R(put_component(s, st, k, b));
            R(hk_buf_appends(b, "\n"));
            continue;
        }
        R(hk_buf_appends(b, "                {\n"));
        if (st->c_used) {
            R(hk_buf_appends(b, "                    "));
            R(put_src(b, ts, st->type_a, st->var + 1));
            R(hk_buf_appends(b, " = ("));
            R(put_src(b, ts, st->type_a, st->var));
            R(hk_buf_printf(b, ")(%shk_c4 * 4 + %d);\n", peel ? "hk_pre + " : "", k));
        }
        R(hk_buf_appends(b, "                    "));
        R(put_component(s, st, k, b));
        R(hk_buf_appends(b, "\n                }\n"));
    }
    for (size_t v = 0; v < st->n_vs; v++)
        if (st->vs[v].store) {
            R(hk_buf_appends(b, peel ? "                reinterpret_cast<float4 *>(" : "                reinterpret_cast<float4 *>"));
            R(put_base(s, st, v, b));
            R(hk_buf_printf(b, "%s%s[hk_c4] = hk_s%zu;\n", pv, peel ? ")" : "", v));
        }
    R(hk_buf_appends(b, "            }\n            "));
    /* the tail starts at the first column past the float4s: (T)((COLS) / 4 * 4) + (T)hk_lane */
    struct hk_buf start;
    hk_buf_init(&start, RR_INDEX * 4);
    rc = hk_buf_appends(&start, peel ? "hk_pre + (" : "(");
    if (!rc)
        rc = hk_buf_append(&start, ts->text + ts->t[st->type_a].start, ts->t[st->var - 1].end - ts->t[st->type_a].start);
    if (!rc)
        rc = hk_buf_appends(&start, peel ? ")(((" : ")((");
    if (!rc)
        rc = hk_buf_append(&start, ts->text + ts->t[st->cond_a + 2].start,
                           ts->t[st->cond_b - 1].end - ts->t[st->cond_a + 2].start);
    if (!rc)
        rc = hk_buf_appends(&start, peel ? ") - hk_pre) / 4 * 4) + (" : ") / 4 * 4) + (");
    if (!rc)
        rc = render_lane_loop(s, st, b, start.data, ")hk_lane", "            ");
    hk_buf_free(&start);
    if (rc)
        return rc;
    R(hk_buf_appends(b, "\n        } else {\n            "));
    R(render_lane_loop(s, st, b, "(", ")hk_lane", "            "));
    R(hk_buf_appends(b, "\n        }\n"));
#undef R
    return HK_OK;
}

/* The block form's prologue (row_threads > 32): the whole block is the row's group, so the
 * column loops stride by every thread of the block (hk_lane, hk_width as in the warp form)
 * and a reduction is combined in three steps: the warp's butterfly (hk_wl, hk_ww, hk_mask:
 * the lanes of this warp), one shared slot per warp written by its lane 0, then every thread
 * folds the slots in warp order, so all of them hold the same total. */
static int render_block_head(const rr_scan *s, struct hk_buf *b, unsigned T)
{
    int rc;
    size_t slots = 0;
    for (size_t i = 0; i < s->n_st; i++)
        if (s->st[i].kind == 'l' && s->st[i].n_red > slots)
            slots = s->st[i].n_red;
    if ((rc = hk_buf_printf(b,
                            "{\n" /* i18n: not for people */
                            "    // hk rewrite (warp_rows, row_threads %u): one block per row, rows grid-strided over\n"
                            "    // the blocks; every thread of the block strides the columns (coalesced), per-row\n"
                            "    // reductions are combined by shuffles within each warp, then through one shared\n"
                            "    // slot per warp, and per-row results are stored by thread 0. Written for blocks of\n"
                            "    // %u threads; correct for any block of up to 1024.\n"
                            "    const unsigned int hk_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
                            "    const unsigned int hk_nthreads = blockDim.x * blockDim.y * blockDim.z;\n"
                            "    const unsigned int hk_lane = hk_tid, hk_width = hk_nthreads;\n",
                            T, T)))
        return rc;
    if (!s->n_reductions)
        return HK_OK;
    return hk_buf_printf(b,
                         "    // the warp of this thread, its lane, its lanes (the last warp may be partial), its mask\n" /* i18n: not for people */
                         "    const unsigned int hk_wl = hk_tid & 31u, hk_wid = hk_tid >> 5;\n"
                         "    const unsigned int hk_nw = (hk_nthreads + 31u) >> 5;\n"
                         "    const unsigned int hk_ww = min(hk_nthreads - (hk_wid << 5), 32u);\n"
                         "    const unsigned int hk_mask = hk_ww == 32u ? 0xffffffffu : (1u << hk_ww) - 1u;\n"
                         "    // one slot per warp (at most 32) for each reduction after one column loop; 8 bytes\n"
                         "    // hold any type a shuffle takes\n"
                         "    __shared__ unsigned long long hk_slot[%zu][32];\n",
                         slots);
}

/* The block form's combine of loop st's reductions: each warp's butterfly, lane 0 of each
 * warp writes its slot, a barrier, every thread folds the slots 0..hk_nw-1 in order (the
 * same order in every thread: one total), and a second barrier before the slots are reused.
 * Every thread of the block reaches both barriers: the row loop's trip count is the same in
 * all of them and the row body has no branch around a column loop. */
static int render_block_combine(const rr_scan *s, const rr_stmt *st, struct hk_buf *b)
{
    int rc = 0;
    for (size_t j = 0; j < st->n_red && !rc; j++) {
        char acc[RR_NAME];
        tok_str(s, st->red[j], acc, sizeof acc);
        const char *fn = st->red_fn[j];
        rc = hk_buf_printf(b,
                           "        for (unsigned int hk_off = 16u; hk_off > 0u; hk_off >>= 1) {\n" /* i18n: not for people */
                           "            const decltype(%s) hk_o = __shfl_xor_sync(hk_mask, %s, hk_off, 32);\n"
                           "            if ((hk_wl ^ hk_off) < hk_ww)\n",
                           acc, acc);
        if (!rc)
            rc = fn[0] ? hk_buf_printf(b, "                %s = %s(%s, hk_o);\n", acc, fn, acc)
                       : hk_buf_printf(b, "                %s += hk_o;\n", acc);
        if (!rc)
            rc = hk_buf_printf(b,
                               "        }\n"
                               "        if (hk_wl == 0u)\n"
                               "            reinterpret_cast<decltype(%s) *>(hk_slot[%zu])[hk_wid] = %s;\n",
                               acc, j, acc);
    }
    if (!rc)
        rc = hk_buf_appends(b, "        __syncthreads();\n");
    for (size_t j = 0; j < st->n_red && !rc; j++) {
        char acc[RR_NAME];
        tok_str(s, st->red[j], acc, sizeof acc);
        const char *fn = st->red_fn[j];
        rc = hk_buf_printf(b,
                           "        %s = reinterpret_cast<const decltype(%s) *>(hk_slot[%zu])[0];\n" /* i18n: not for people */
                           "        for (unsigned int hk_w = 1u; hk_w < hk_nw; hk_w++)\n",
                           acc, acc, j);
        if (!rc)
            rc = fn[0] ? hk_buf_printf(b, "            %s = %s(%s, reinterpret_cast<const decltype(%s) *>(hk_slot[%zu])[hk_w]);\n",
                                       acc, fn, acc, acc, j)
                       : hk_buf_printf(b, "            %s += reinterpret_cast<const decltype(%s) *>(hk_slot[%zu])[hk_w];\n",
                                       acc, acc, j);
    }
    if (!rc)
        rc = hk_buf_appends(b, "        __syncthreads();\n");
    return rc;
}

static int render(const rr_scan *s, struct hk_buf *b, unsigned T)
{
    const rw_toks *ts = s->ts;
    int rc = 0;
    size_t n_loop = 0;   /* numbered from 1 as in the description */
    const bool block = T > 32u;
#define R(x)                                                                                   \
    do {                                                                                       \
        if ((rc = (x)))                                                                        \
            return rc;                                                                         \
    } while (0)
    if (block)
        R(render_block_head(s, b, T));
    else
        R(hk_buf_appends(b,
                     "{\n" /* i18n: not for people */
                     "    // hk rewrite (warp_rows): one warp per row, rows grid-strided over all warps; the\n"
                     "    // lanes stride the columns (coalesced), per-row sums are combined by shuffles and\n"
                     "    // per-row results are stored by lane 0.\n"
                     "    const unsigned int hk_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
                     "    const unsigned int hk_nthreads = blockDim.x * blockDim.y * blockDim.z;\n"
                     "    const unsigned int hk_lane = hk_tid & 31u, hk_warp = hk_tid >> 5;\n"
                     "    const unsigned int hk_nwarps = (hk_nthreads + 31u) >> 5;\n"
                     "    // lanes of this warp (a block of e.g. 48 threads ends in a warp of 16) and their mask\n"
                     "    const unsigned int hk_width = min(hk_nthreads - (hk_warp << 5), 32u);\n"
                     "    const unsigned int hk_mask = hk_width == 32u ? 0xffffffffu : (1u << hk_width) - 1u;\n"));
    if (!s->n_reductions && !block)
        R(hk_buf_appends(b, "    (void)hk_mask;\n"));
    for (size_t i = 0; i < s->n_pre; i++)
        if (s->pre_hoist[i]) {
            R(hk_buf_appends(b, "    "));
            R(put_src(b, ts, s->pre[i][0], s->pre[i][1]));
            R(hk_buf_appends(b, "\n"));
        }
    if (block) {
        R(hk_buf_appends(b, "    for (long long hk_row = (long long)blockIdx.x; hk_row < (long long)(")); /* i18n: not for people */
        R(put_src(b, ts, s->bound_a, s->bound_b));
        R(hk_buf_appends(b, ");\n         hk_row += (long long)gridDim.x) {\n        "));
    } else {
        R(hk_buf_appends(b, "    for (long long hk_row = (long long)blockIdx.x * hk_nwarps + hk_warp; hk_row < (long long)(")); /* i18n: not for people */
        R(put_src(b, ts, s->bound_a, s->bound_b));
        R(hk_buf_appends(b, ");\n         hk_row += (long long)gridDim.x * hk_nwarps) {\n        "));
    }
    /* the row index, as declared, from the warp's row */
    R(put_src(b, ts, s->idx_a, s->idx_name + 1));
    R(hk_buf_appends(b, " = ("));
    size_t ty = rwl_tok_is(ts, s->idx_a, "const") ? s->idx_a + 1 : s->idx_a;
    R(put_src(b, ts, ty, s->idx_name));
    R(hk_buf_appends(b, ")hk_row;\n"));
    for (size_t i = 0; i < s->n_pre; i++)
        if (!s->pre_hoist[i]) {
            R(hk_buf_appends(b, "        "));
            R(put_src(b, ts, s->pre[i][0], s->pre[i][1]));
            R(hk_buf_appends(b, "\n"));
        }
    for (size_t i = 0; i < s->n_st; i++) {
        const rr_stmt *st = &s->st[i];
        R(hk_buf_appends(b, "        "));
        if (st->kind == 's') {
            R(hk_buf_appends(b, "if (hk_lane == 0u) {\n            "));
            R(put_src(b, ts, st->a, st->b));
            R(hk_buf_appends(b, "\n        }\n"));
            continue;
        }
        if (st->kind != 'l') {
            R(put_src(b, ts, st->a, st->b));
            R(hk_buf_appends(b, "\n"));
            continue;
        }
        n_loop++;
        if (st->vec) {
            R(render_vec_loop(s, st, n_loop, b, block));
        } else if (st->start) {
            /* for (T c = (T)hk_lane + S; c < COLS; c += (T)hk_width) BODY */
            char post[48];
            snprintf(post, sizeof post, ")hk_lane + %.*s", (int)(ts->t[st->start].end - ts->t[st->start].start),
                     ts->text + ts->t[st->start].start);
            R(render_lane_loop(s, st, b, "(", post, "        "));
            R(hk_buf_appends(b, "\n"));
        } else {
            /* for (T c = (T)hk_lane; c < COLS; c += (T)hk_width) BODY */
            R(render_lane_loop(s, st, b, "(", ")hk_lane", "        "));
            R(hk_buf_appends(b, "\n"));
        }
        if (block && st->n_red) {
            R(render_block_combine(s, st, b));
            continue;
        }
        for (size_t j = 0; j < st->n_red; j++) {
            char acc[RR_NAME];
            tok_str(s, st->red[j], acc, sizeof acc);
            const char *fn = st->red_fn[j];
            /* width 32 in the shuffles: on a 64-lane HIP wavefront the two halves are
             * separate warps of this body, and a xor below 32 stays within its half */
            R(hk_buf_printf(b,
                            "        for (unsigned int hk_off = 16u; hk_off > 0u; hk_off >>= 1) {\n" /* i18n: not for people */
                            "            const decltype(%s) hk_o = __shfl_xor_sync(hk_mask, %s, hk_off, 32);\n"
                            "            if ((hk_lane ^ hk_off) < hk_width)\n",
                            acc, acc));
            if (fn[0])
                R(hk_buf_printf(b, "                %s = %s(%s, hk_o);\n", acc, fn, acc));
            else
                R(hk_buf_printf(b, "                %s += hk_o;\n", acc));
            /* in a partial warp only lane 0's butterfly saw every lane (the skipped
             * partners are the lanes that do not exist) */
            R(hk_buf_printf(b,
                            "        }\n"
                            "        if (hk_width != 32u)\n"
                            "            %s = __shfl_sync(hk_mask, %s, 0, 32);\n",
                            acc, acc));
        }
    }
    R(hk_buf_appends(b, "    }\n}"));
#undef R
    return HK_OK;
}

/* A thread-per-column kernel (`for (i ...) s += A[i * n + j];`, j the thread's index)
 * already reads coalesced: its lanes read neighbouring elements. A warp per "row" j would
 * have its lanes read n apart instead, slower than the original. *found, with the access in
 * what, when a global read inside a loop is contiguous along threadIdx.x but its index moves
 * with the innermost loop's counter by other than one element per iteration. HK_ENOMEM, or
 * HK_OK (also when there is no model: the scan's verdict stands). */
static int already_coalesced(const char *text, size_t len, const char *kernel, bool *found, char *what,
                             size_t wn, bool *window)
{
    *found = false;
    *window = false;
    km_kernel *k = NULL;
    int rc = km_build(text, len, kernel, &k, NULL, 0);
    if (rc)
        return rc == HK_ENOMEM ? rc : HK_OK;   /* no model: the scan's verdict stands */
    size_t na = 0;
    const km_access *acc = km_accesses(k, &na);
    for (size_t i = 0; i < na && !*found; i++) {
        const km_access *a = &acc[i];
        if (a->space != KM_SPACE_GLOBAL || a->mode != KM_READ ||
            km_access_stride_tx(k, a, NULL) != KM_STRIDE_CONTIGUOUS)
            continue;
        if (km_access_loop_step(k, a) == KM_STEP_OTHER) {
            *found = true;
            snprintf(what, wn, "%s at line %u", a->buffer, a->line);
        }
    }
    const km_access *w = NULL;
    if (!*found && (*window = km_sliding_window(k, &w)))
        snprintf(what, wn, "%s at line %u", w->buffer, w->line);
    km_free(k);
    return HK_OK;
}

/* ------------------------------------------------------------------ store elision */

/* Calls a recomputed value may make: pure math of the CUDA math API (float and double). */
static bool pure_call(const rw_toks *ts, size_t k)
{
    static const char *const ok[] = {"expf", "__expf", "exp", "exp2f", "exp2", "logf", "__logf", "log", "sqrtf",
                                     "sqrt", "rsqrtf", "rsqrt", "fabsf", "fabs", "fmaxf", "fminf", "fmax", "fmin",
                                     "tanhf", "tanh", "powf", "__powf", "pow", "fmaf", "fma", "__fdividef", "max",
                                     "min", "erff", "erf", "sinf", "cosf", "__sinf", "__cosf", "__frcp_rn"};
    for (size_t i = 0; i < HK_ARRAY_LEN(ok); i++)
        if (rwl_tok_is(ts, k, ok[i]))
            return true;
    return rwl_is_type_word(ts, k);   /* a functional cast, `float(x)` */
}

/* Is token q the declaration of a name (one of the scan's declared names)? */
static bool is_decl_tok(const rr_scan *s, size_t q)
{
    for (size_t d = 0; d < s->n_decl_tok; d++)
        if (s->decl_tok[d] == q)
            return true;
    return false;
}

/* The first top-level statement of loop st's braced body that starts at token k, or false. */
static bool top_stmt_of(const rr_scan *s, const rr_stmt *st, size_t k)
{
    const rw_toks *ts = s->ts;
    if (!rwl_tok_is(ts, st->body_a, "{"))
        return false;
    size_t c = rwl_match_close(ts, st->body_a);
    for (size_t q = st->body_a + 1; q < c;) {
        if (q == k)
            return true;
        size_t e = rwl_stmt_end(ts, q, c);
        if (e <= q)
            return false;
        q = e;
    }
    return false;
}

/* One store a later loop only updates in place (llm.c's softmax: `out_row[j] =
 * expf(inp_row[j] - maxval); sum += out_row[j];` then, after the sum's combine, `out_row[j]
 * /= (float)sum;`): the first loop keeps the value in a register instead of storing it, and
 * the update loop recomputes it, `out_row[j] = ((float)(expf(inp_row[j] - maxval))) /
 * ((float)sum);`. The same values, bit for bit: the stored float is recomputed from the same
 * operands (names the row body does not change after the store, memory it never stores, pure
 * math) and the update applies the same operation to it. One write and one read of every
 * row element less. Found into *edits (three text edits at most per pair; one pair). */
typedef struct {
    uint32_t a, b;   /* bytes of the text replaced */
    char *with;      /* owned */
} rr_edit;

static void edits_free(rr_edit *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        hk_free(e[i].with);
}

static char *slice(const rw_toks *ts, size_t a, size_t b)
{
    return hk_asprintf("%.*s", (int)(ts->t[b - 1].end - ts->t[a].start), ts->text + ts->t[a].start);
}

/* NULL when no pair is elided (why says why, for the description), else the count of edits in
 * e (sorted by position) and what in what. */
static size_t find_elision(rr_scan *s, rr_edit *e, char *what, size_t wn)
{
    const rw_toks *ts = s->ts;
    for (size_t i = 0; i < s->n_stores; i++) {
        const rr_store *w = &s->stores[i];
        if (!w->in_loop || w->local_index)
            continue;
        rr_stmt *A = loop_at(s, w->base);
        bool isp = false;
        if (!A || !float_pointer(s, w->base, &isp) || !top_stmt_of(s, A, w->base))
            continue;
        size_t close = rwl_match_close(ts, w->base + 1);
        if (close >= A->b || !rwl_tok_is(ts, close + 1, "="))
            continue;
        size_t se = rwl_stmt_end(ts, w->base, A->b), ea = close + 2, eb = se - 1;
        if (!rwl_tok_is(ts, eb, ";") || ea >= eb || rwl_writes_any(ts, ea, eb))
            continue;
        char nm[RR_NAME];
        tok_str(s, w->base, nm, sizeof nm);
        /* every other use of P: reads P[I] in A after the store, or one update in a later loop B */
        rr_stmt *B = NULL;
        size_t upd = 0, reads[RR_MAX_ACC], n_reads = 0;
        bool ok = true;
        for (size_t q = s->body_a; q < s->body_b && ok; q++) {
            if (q == w->base || !rwl_is_use(ts, q) || !rwl_tok_is(ts, q, nm) || is_decl_tok(s, q))
                continue;
            char idx[RR_INDEX] = "";
            size_t c = rwl_tok_is(ts, q + 1, "[") ? rwl_match_close(ts, q + 1) : ts->n;
            if (c < ts->n)
                rwl_compact_index(ts, q + 2, c, idx, sizeof idx);
            if (c >= ts->n || strcmp(idx, w->index) != 0) {
                ok = false;
                break;
            }
            rr_stmt *L = loop_at(s, q);
            if (L == A && q > se && !rwl_tok_is_assign_op(ts, c + 1) && !rwl_tok_is(ts, c + 1, "++") &&
                !rwl_tok_is(ts, c + 1, "--") && !(q > 0 && (rwl_tok_is(ts, q - 1, "++") || rwl_tok_is(ts, q - 1, "--") ||
                                                             rwl_tok_is(ts, q - 1, "&"))) &&
                n_reads < RR_MAX_ACC) {
                reads[n_reads++] = q;
            } else if (L && L != A && !B && L->a > A->a && top_stmt_of(s, L, q) &&
                       (rwl_tok_is(ts, c + 1, "/=") || rwl_tok_is(ts, c + 1, "*=") || rwl_tok_is(ts, c + 1, "+=") ||
                        rwl_tok_is(ts, c + 1, "-="))) {
                B = L;
                upd = q;
            } else {
                ok = false;
            }
        }
        if (!ok || !B)
            continue;
        size_t ue = rwl_stmt_end(ts, upd, B->b), uc = rwl_match_close(ts, upd + 1);
        if (!rwl_tok_is(ts, ue - 1, ";") || rwl_writes_any(ts, uc + 2, ue - 1))
            continue;
        /* the same loop header: the same columns in the same variable */
        char ha[RR_INDEX], hb[RR_INDEX];
        rwl_compact_index(ts, A->a, A->body_a, ha, sizeof ha);
        rwl_compact_index(ts, B->a, B->body_a, hb, sizeof hb);
        if (strcmp(ha, hb) != 0)
            continue;
        /* E: pure calls, no loop-local of A, no name written after the store up to B's end,
         * no memory the row body stores */
        for (size_t q = ea; q < eb && ok; q++) {
            if (!is_ident(ts, q) || !rwl_is_use(ts, q) || rwl_same_tok(ts, q, A->var))
                continue;
            if (rwl_tok_is(ts, q + 1, "(")) {
                ok = pure_call(ts, q);
                continue;
            }
            for (size_t d = 0; d < s->n_decl_tok && ok; d++)
                if (s->decl_tok[d] > A->a && s->decl_tok[d] < B->b && rwl_same_tok(ts, s->decl_tok[d], q))
                    ok = false;   /* a local of A, or a name declared again before B */
            for (size_t t = se; t < B->b && ok; t++)
                if (rwl_is_use(ts, t) && rwl_same_tok(ts, t, q) && rwl_scalar_written(ts, t))
                    ok = false;
            for (size_t t = 0; t < s->n_stores && ok; t++)
                if (rwl_same_tok(ts, s->stores[t].base, q))
                    ok = false;
        }
        if (!ok)
            continue;
        /* the edits, front to back: the store becomes a register, the reads read it, the
         * update recomputes it */
        size_t n = 0;
        char *E = slice(ts, ea, eb), *P = slice(ts, w->base, close + 1), *V = slice(ts, uc + 2, ue - 1);
        char op = ts->text[ts->t[uc + 1].start];
        if (!E || !P || !V) {
            hk_free(E);
            hk_free(P);
            hk_free(V);
            return 0;
        }
        e[n].a = ts->t[w->base].start;
        e[n].b = ts->t[se - 1].end;
        e[n++].with = hk_asprintf("const float hk_elided = (float)(%s);", E); /* i18n: not for people */
        for (size_t r = 0; r < n_reads; r++) {
            e[n].a = ts->t[reads[r]].start;
            e[n].b = ts->t[rwl_match_close(ts, reads[r] + 1)].end;
            e[n++].with = hk_strdup("hk_elided");
        }
        e[n].a = ts->t[upd].start;
        e[n].b = ts->t[ue - 1].end;
        e[n++].with = hk_asprintf("%s = ((float)(%s)) %c (%s);", P, E, op, V);
        snprintf(what, wn, EN(RW_ROWS_ELIDED), P, src_line(s, A->a), src_line(s, B->a));
        hk_free(E);
        hk_free(P);
        hk_free(V);
        for (size_t k = 0; k < n; k++)
            if (!e[k].with) {
                edits_free(e, n);
                return 0;
            }
        return n;
    }
    return 0;
}

/* The value of kernel text [a, b) (a bound such as `N` or `B * T`) at the spec's first size:
 * the kernel's scalar parameters take the values the spec passes them. false when the
 * text is not an expression of those (casts, calls, other names) or cannot be evaluated. */
static bool eval_at_spec(const rr_scan *s, const rw_context *ctx, size_t a, size_t b, long long *out)
{
    const spec *sp = ctx->spec;
    if (!sp || sp->form != SPEC_FORM_HARNESS || a >= b)
        return false;
    char text[RR_INDEX];
    size_t l = s->ts->t[b - 1].end - s->ts->t[a].start;
    if (l >= sizeof text)
        return false;
    memcpy(text, s->ts->text + s->ts->t[a].start, l);
    text[l] = '\0';
    expr *e = NULL;
    if (expr_parse(text, &e, NULL, 0) != HK_OK)
        return false;
    expr_var vars[64];
    size_t nv = 0;
    for (size_t i = 0; i < s->f->n_params && i < sp->n_args && nv < HK_ARRAY_LEN(vars); i++) {
        const spec_arg *sa = &sp->args[i];
        expr_value v;
        if (sa->kind != HK_ARG_SCALAR || !sa->value || !s->f->params[i].name ||
            spec_eval(sp, sa->value, 0, ctx->sm_count > 0 ? ctx->sm_count : 1, &v, NULL, 0) != HK_OK || v.is_float)
            continue;
        vars[nv].name = s->f->params[i].name;
        vars[nv].value = v;
        nv++;
    }
    /* declarations the bounds check reads, before it (llm.c's encoder: `int N = B * T;`) */
    char pre_names[8][RR_NAME];
    for (size_t i = 0, np = 0; i < s->n_pre && np < HK_ARRAY_LEN(pre_names) && nv < HK_ARRAY_LEN(vars); i++) {
        size_t names[4], nn = 0, pa = s->pre[i][0], pb = s->pre[i][1];
        if (!s->pre_hoist[i] || !rwl_is_hoistable_decl(s->ts, pa, pb, "", names, &nn, HK_ARRAY_LEN(names)) ||
            nn != 1 || !rwl_tok_is(s->ts, names[0] + 1, "=") || !rwl_tok_is(s->ts, pb - 1, ";") || names[0] + 2 >= pb - 1)
            continue;
        size_t il = s->ts->t[pb - 2].end - s->ts->t[names[0] + 2].start;
        char itext[RR_INDEX];
        expr *ie = NULL;
        expr_value iv;
        if (il >= sizeof itext)
            continue;
        memcpy(itext, s->ts->text + s->ts->t[names[0] + 2].start, il);
        itext[il] = '\0';
        if (expr_parse(itext, &ie, NULL, 0) != HK_OK)
            continue;
        bool good = expr_eval(ie, vars, nv, &iv, NULL, 0) == HK_OK && !iv.is_float;
        expr_free(ie);
        if (!good)
            continue;
        tok_str(s, names[0], pre_names[np], RR_NAME);
        vars[nv].name = pre_names[np++];
        vars[nv++].value = iv;
    }
    expr_value v;
    bool ok = expr_eval(e, vars, nv, &v, NULL, 0) == HK_OK && !v.is_float;
    expr_free(e);
    if (ok)
        *out = v.i;
    return ok;
}

/* Whether a block of T threads per row fits the kernel at the spec's first size on the
 * device of ctx (NULL: it fits, or nothing is known to say otherwise). A block per row
 * pays two barriers per reduction and idles threads on a short row; it gains where a warp
 * per row cannot fill the GPU: rows fewer than the device's resident warps (SMs x warps
 * per SM), each row long enough to give every thread of the block a column. */
static const char *block_fit(const rr_scan *s, const rw_context *ctx, unsigned T, char *why, size_t n)
{
    long long rows = 0, cols = 0;
    const rr_stmt *loop = NULL;
    for (size_t i = 0; i < s->n_st && !loop; i++)
        if (s->st[i].kind == 'l')
            loop = &s->st[i];
    char rt[RR_INDEX] = "", ct[RR_INDEX] = "";
    rwl_compact_index(s->ts, s->bound_a, s->bound_b, rt, sizeof rt);
    if (ctx->sm_count > 0 && ctx->warps_per_sm > 0 && eval_at_spec(s, ctx, s->bound_a, s->bound_b, &rows)) {
        long long resident = (long long)ctx->sm_count * ctx->warps_per_sm;
        if (rows >= resident) {
            snprintf(why, n, EN(RW_ROWS_WARP_FILLS), src_line(s, s->bound_a), rt, rows, ctx->sm_count,
                     ctx->warps_per_sm, resident);
            return why;
        }
    }
    if (loop) {
        rwl_compact_index(s->ts, loop->cond_a + 2, loop->cond_b, ct, sizeof ct);
        if (eval_at_spec(s, ctx, loop->cond_a + 2, loop->cond_b, &cols) && cols < (long long)T) {
            snprintf(why, n, EN(RW_ROWS_FEW_COLUMNS), src_line(s, loop->a), ct, cols,
                     T);
            return why;
        }
    }
    return NULL;
}

/* text (len bytes) with f's body span replaced by body: a new string (hk_free), its length
 * in *n; NULL when out of memory. */
static char *body_replaced(const char *text, size_t len, const an_function *f, const char *body, size_t *n)
{
    uint32_t a = f->body_span.start_byte, e = f->body_span.end_byte;
    size_t nb = strlen(body);
    char *t = hk_malloc(a + nb + (len - e) + 1);
    if (!t)
        return NULL;
    memcpy(t, text, a);
    memcpy(t + a, body, nb);
    memcpy(t + a + nb, text + e, len - e);
    *n = a + nb + (len - e);
    t[*n] = '\0';
    return t;
}

static int rows_impl(const char *text, size_t len, const an_model *m, size_t kernel, unsigned T,
                     const rw_context *ctx, rw_result *out);

int rw_warp_rows(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    return rows_impl(text, len, m, kernel, 32u, NULL, out);
}

int rw_block_rows(const char *text, size_t len, const an_model *m, size_t kernel, unsigned row_threads,
                  rw_result *out)
{
    if (row_threads != 32u && row_threads != 64u && row_threads != 128u && row_threads != 256u &&
        row_threads != 512u && row_threads != 1024u) {
        if (out)
            memset(out, 0, sizeof *out);
        return HK_EINVAL;
    }
    return rows_impl(text, len, m, kernel, row_threads, NULL, out);
}

static int rows_impl(const char *text, size_t len, const an_model *m, size_t kernel, unsigned T,
                     const rw_context *ctx, rw_result *out)
{
    if (!out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0}, ts2 = {0};
    rw_edits es = {0};
    struct hk_buf b;
    hk_buf_init(&b, RW_TEXT_MAX);
    char first_why[1024], acc_what[256] = "", elided[512] = "";
    size_t acc_len_kept = 0;
    char *el_text = NULL;
    rw_toks ts3 = {0};
    char *acc_body = NULL, *acc_text = NULL, *lv_body = NULL, *lv_text = NULL;
    const char *base = text;   /* the text the scans read: loop counters declared in their loops */
    size_t base_len = len;
    an_function bf = *f;       /* f with base's body span */
    rr_scan *s = hk_calloc(1, sizeof *s);
    const char *why = NULL;
    if (!s) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    /* PolyBench's `int j; ... for (j = 0; ...)`: the counter declared in its loops first */
    if ((rc = rwa_loop_vars_body(text, f, &ts, &lv_body)))
        goto out;
    if (lv_body) {
        if (!(lv_text = body_replaced(text, len, f, lv_body, &base_len))) {
            rc = HK_ENOMEM;
            goto out;
        }
        base = lv_text;
        bf.body_span.end_byte = (uint32_t)(f->body_span.start_byte + strlen(lv_body));
        rwl_toks_free(&ts);
        memset(&ts, 0, sizeof ts);
        if ((rc = rwl_lex(base, bf.body_span.start_byte, bf.body_span.end_byte, &ts)))
            goto out;
    }
    if (ts.n > RR_MAX_TOKENS) {
        why = EN(RW_ROWS_BODY_LARGE);
        goto na;
    }
    s->ts = &ts;
    s->f = f;
    if ((why = scan(s))) {
        /* sums into memory inside the loops: with register accumulators, scan again */
        snprintf(first_why, sizeof first_why, "%s", why);
        why = first_why;
        if ((rc = rwa_accumulate_body(base, &bf, &ts, &acc_body, acc_what, sizeof acc_what)))
            goto out;
        if (!acc_body)
            goto na;
        size_t acc_len;
        if (!(acc_text = body_replaced(base, base_len, &bf, acc_body, &acc_len))) {
            rc = HK_ENOMEM;
            goto out;
        }
        acc_len_kept = acc_len;
        if ((rc = rwl_lex(acc_text, bf.body_span.start_byte,
                          (uint32_t)(bf.body_span.start_byte + strlen(acc_body)), &ts2)))
            goto out;
        memset(s, 0, sizeof *s);
        s->ts = &ts2;
        s->f = f;
        s->acc_lines = true;
        const char *why2 = scan(s);
        if (why2) {   /* the reason that is left once the sums are in registers */
            char was[sizeof first_why];
            memcpy(was, first_why, sizeof was);
            snprintf(first_why, sizeof first_why, EN(RW_ROWS_AND_SUMMED), was, acc_what, why2);
            goto na;
        }
    }
    char coalesced[RR_NAME + 32];
    bool column = false, window = false;
    if ((rc = already_coalesced(text, len, f->name, &column, coalesced, sizeof coalesced, &window)))
        goto out;
    if (window) {
        snprintf(first_why, sizeof first_why, EN(RW_ROWS_SLIDING_WINDOW), coalesced);
        why = first_why;
        goto na;
    }
    if (column) {
        snprintf(first_why, sizeof first_why, EN(RW_ROWS_ALREADY_COALESCED), coalesced);
        why = first_why;
        goto na;
    }
    if (T > 32u && ctx && (why = block_fit(s, ctx, T, first_why, sizeof first_why)))
        goto na;
    /* the block form: a store a later loop only updates in place is kept in a register */
    if (T > 32u) {
        rr_edit ed[RR_MAX_ACC + 2];
        size_t ne = find_elision(s, ed, elided, sizeof elided);
        if (ne) {
            const rw_toks *cur = s->ts;
            size_t cur_len = cur == &ts2 ? acc_len_kept : base_len;
            uint32_t body_a = bf.body_span.start_byte;
            uint32_t body_b = cur == &ts2 ? (uint32_t)(body_a + strlen(acc_body)) : bf.body_span.end_byte;
            struct hk_buf nb;
            hk_buf_init(&nb, RW_TEXT_MAX);
            uint32_t at = 0;
            rc = HK_OK;
            for (size_t i = 0; i < ne && !rc; i++) {
                rc = hk_buf_append(&nb, cur->text + at, ed[i].a - at);
                if (!rc)
                    rc = hk_buf_appends(&nb, ed[i].with);
                at = ed[i].b;
            }
            if (!rc)
                rc = hk_buf_append(&nb, cur->text + at, cur_len - at);
            size_t grow = rc ? 0 : nb.len - cur_len;
            edits_free(ed, ne);
            rr_scan *s3 = rc ? NULL : hk_calloc(1, sizeof *s3);
            if (!rc && !s3)
                rc = HK_ENOMEM;
            if (!rc && !(el_text = hk_strdup(nb.data)))
                rc = HK_ENOMEM;
            hk_buf_free(&nb);
            if (!rc)
                rc = rwl_lex(el_text, body_a, (uint32_t)(body_b + grow), &ts3);
            if (rc) {
                hk_free(s3);
                goto out;
            }
            s3->ts = &ts3;
            s3->f = f;
            s3->acc_lines = s->acc_lines;
            if (!scan(s3)) {
                hk_free(s);
                s = s3;
            } else {
                hk_free(s3);   /* keep the scan of the text as written */
                elided[0] = '\0';
            }
        }
    }
    if ((rc = render(s, &b, T)))
        goto out;
    char r[RR_NAME];
    tok_str(s, s->idx_name, r, sizeof r);
    /* which loops load float4, and why the others stay scalar */
    struct hk_buf vd;
    hk_buf_init(&vd, 4096);
    rc = hk_buf_printf(&vd, s->n_loops == 1 ? EN(RW_ROWS_FLOAT4_IN_LOOP) : EN(RW_ROWS_FLOAT4_IN_LOOPS), s->n_vec,
                       s->n_loops);
    for (size_t i = 0, no = 0; i < s->n_st && !rc; i++)
        if (s->st[i].kind == 'l' && ++no && !s->st[i].vec)
            rc = hk_buf_printf(&vd, EN(RW_ROWS_SCALAR_ONLY), no, s->st[i].novec);
    /* one sentence per form and plural: [block form][loops != 1][reductions != 1][stores != 1] */
    static const enum hk_msg descs[2][2][2][2] = {
        {{{HK_MSG_RW_ROWS_DESC_WARP_111, HK_MSG_RW_ROWS_DESC_WARP_11N},
          {HK_MSG_RW_ROWS_DESC_WARP_1N1, HK_MSG_RW_ROWS_DESC_WARP_1NN}},
         {{HK_MSG_RW_ROWS_DESC_WARP_N11, HK_MSG_RW_ROWS_DESC_WARP_N1N},
          {HK_MSG_RW_ROWS_DESC_WARP_NN1, HK_MSG_RW_ROWS_DESC_WARP_NNN}}},
        {{{HK_MSG_RW_ROWS_DESC_BLOCK_111, HK_MSG_RW_ROWS_DESC_BLOCK_11N},
          {HK_MSG_RW_ROWS_DESC_BLOCK_1N1, HK_MSG_RW_ROWS_DESC_BLOCK_1NN}},
         {{HK_MSG_RW_ROWS_DESC_BLOCK_N11, HK_MSG_RW_ROWS_DESC_BLOCK_N1N},
          {HK_MSG_RW_ROWS_DESC_BLOCK_NN1, HK_MSG_RW_ROWS_DESC_BLOCK_NNN}}},
    };
    const char *dfmt = hk_tr_in(HK_LANG_EN,
                                descs[T > 32u][s->n_loops != 1][s->n_reductions != 1][s->n_lane0 != 1]);
    char *desc = rc ? NULL
                 : T > 32u ? hk_asprintf(dfmt, f->name, r, T, s->n_loops, s->n_reductions, s->n_lane0, vd.data)
                           : hk_asprintf(dfmt, f->name, r, s->n_loops, s->n_reductions, s->n_lane0, vd.data);
    if (desc && acc_what[0]) {
        char *d2 = hk_asprintf(EN(RW_ROWS_SUMMED_IN_REGISTER), desc, acc_what);
        hk_free(desc);
        desc = d2;
    }
    if (desc && elided[0]) {
        char *d2 = hk_asprintf("%s; %s", desc, elided);
        hk_free(desc);
        desc = d2;
    }
    if (desc && s->reread[0]) {
        char *d2 = hk_asprintf(T > 32u ? EN(RW_ROWS_REREAD_BLOCK) : EN(RW_ROWS_REREAD_WARP), desc, s->reread);
        hk_free(desc);
        desc = d2;
    }
    hk_buf_free(&vd);
    if (!desc) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_edits_add(&es, f->body_span.start_byte, f->body_span.end_byte, b.data))) {
        hk_free(desc);
        goto out;
    }
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    goto out;
na:
    rc = rwl_not_applicable(out, T > 32u ? hk_asprintf(EN(RW_ROWS_NOT_APPLICABLE_T), T, f->name, why)
                                         : hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "warp_rows", f->name, why));
out:
    rwl_edits_free(&es);
    hk_buf_free(&b);
    rwl_toks_free(&ts);
    rwl_toks_free(&ts2);
    rwl_toks_free(&ts3);
    hk_free(el_text);
    hk_free(acc_body);
    hk_free(acc_text);
    hk_free(lv_body);
    hk_free(lv_text);
    hk_free(s);
    return rc;
}

/* ---- registry descriptors (registry.h) ---- */
static int emit_warp_rows(const rw_context *c, const int *p, rw_result *out)
{
    return rows_impl(c->text, c->len, c->m, c->kernel, p[0] > 0 ? (unsigned)p[0] : 32u, c, out);
}

/* row_threads > 32 is a block per row: its body is written for blocks of that many threads */
static unsigned block_warp_rows(const int *p)
{
    return p[0] > 32 ? (unsigned)p[0] : 0u;
}

static const rw_param warp_rows_params[] = {
    {.name = "row_threads", .type = RW_PARAM_ENUM, .values = {32, 64, 128, 256, 512, 1024}, .n_values = 6,
     .def = 32, .optional = true},
};

const rw_descriptor rw_warp_rows_desc = {
    .name = "warp_rows",
    .summary = "any thread-per-row kernel becomes a warp per row (row_threads 32) or a block per row", /* i18n: not for people */
    .params = warp_rows_params,
    .n_params = 1,
    .flags = RW_ALGORITHM,
    .emit = emit_warp_rows,
    .launch_block = block_warp_rows,
};

