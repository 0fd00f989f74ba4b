/* Engine v2 rewrites (memory access, loops, arithmetic): vectorize, read-only loads,
 * unroll, fast math. The token scanner, the edit list and the re-analysing finish step
 * follow rewrite.c's (copied, as those helpers are static there): edits are collected
 * against the original text inside the model's spans, applied in one pass, re-analysed. */
#include "rewrites/rewrite_mem.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/log.h"
#include "model/kmodel.h"
#include "spec/infer.h"
#include "spec/spec.h"
#include "core/i18n.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* ------------------------------------------------------------------ tokens */

/* ------------------------------------------------------------------ edits */

/* ------------------------------------------------------------------ results */

/* ------------------------------------------------------------------ write scan */

/* ------------------------------------------------------------------ statements */

/* ------------------------------------------------------------------ shared helpers */

/* Indentation (spaces and tabs) of the line holding byte pos, copied into ind. */
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

static bool tok_eq(const rw_toks *ts, size_t k, const char *s, size_t l)
{
    return k < ts->n && ts->t[k].end - ts->t[k].start == l && memcmp(ts->text + ts->t[k].start, s, l) == 0;
}

static bool tok_member_or_scope(const rw_toks *ts, size_t k)
{
    return k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->") || rwl_tok_is(ts, k - 1, "::"));
}

static long param_named(const an_function *f, const rw_toks *ts, size_t k)
{
    if (k >= ts->n || ts->t[k].kind != T_IDENT)
        return -1;
    for (size_t p = 0; p < f->n_params; p++)
        if (f->params[p].name && *f->params[p].name &&
            tok_eq(ts, k, f->params[p].name, strlen(f->params[p].name)))
            return (long)p;
    return -1;
}

/* ------------------------------------------------------------------ vectorize */

typedef struct {
    const char *names[4];   /* spellings of the element type (an_param.elem_type) */
    int size;               /* bytes */
    const char *vec2, *vec4;/* CUDA vector types of 2 and 4 lanes, NULL when none */
    bool bit16;             /* 16-bit: 4 and 8 lanes travel in uint2 / uint4 carriers */
} vec_elem;

static const vec_elem vec_elems[] = {
    {{"float"}, 4, "float2", "float4", false},
    {{"double"}, 8, "double2", NULL, false},
    {{"int", "int32_t", "signed", "signed int"}, 4, "int2", "int4", false},
    {{"unsigned", "unsigned int", "uint32_t"}, 4, "uint2", "uint4", false},
    {{"__half", "half"}, 2, "__half2", NULL, true},
    {{"__nv_bfloat16", "nv_bfloat16"}, 2, "__nv_bfloat162", NULL, true},
};

static const vec_elem *vec_elem_of(const char *elem)
{
    for (size_t i = 0; elem && i < HK_ARRAY_LEN(vec_elems); i++)
        for (size_t j = 0; j < 4 && vec_elems[i].names[j]; j++)
            if (strcmp(elem, vec_elems[i].names[j]) == 0)
                return &vec_elems[i];
    return NULL;
}

/* The next `typedef T name;` or `using name = T;` of name at or after token *k (moved to
 * its `typedef`/`using`): T's words in spelled ("" when T is not all identifiers: a
 * pointer, template or qualified type), *simple when T is one word. False at the end. */
static bool typedef_next(const rw_toks *ts, size_t *k, const char *name, char *spelled, size_t size,
                         bool *simple)
{
    size_t nl = strlen(name);
    for (; *k < ts->n; (*k)++) {
        size_t a, b, i = *k;   /* [a, b): the aliased type's tokens */
        if (rwl_tok_is_ident(ts, i, "typedef")) {
            size_t j = i + 1;
            while (j < ts->n && !rwl_tok_is(ts, j, ";") && !rwl_tok_is(ts, j, "{"))
                j++;
            if (j >= ts->n || !rwl_tok_is(ts, j, ";") || j < i + 3 || !tok_eq(ts, j - 1, name, nl))
                continue;
            a = i + 1;
            b = j - 1;
        } else if (rwl_tok_is_ident(ts, i, "using") && i + 3 < ts->n && tok_eq(ts, i + 1, name, nl) &&
                   rwl_tok_is(ts, i + 2, "=")) {
            size_t j = i + 3;
            while (j < ts->n && !rwl_tok_is(ts, j, ";"))
                j++;
            if (j >= ts->n || j == i + 3)
                continue;
            a = i + 3;
            b = j;
        } else {
            continue;
        }
        spelled[0] = '\0';
        *simple = b == a + 1;
        for (size_t q = a; q < b; q++) {
            size_t l = ts->t[q].end - ts->t[q].start, have = strlen(spelled);
            if (ts->t[q].kind != T_IDENT || have + l + 2 > size) {
                spelled[0] = '\0';
                break;
            }
            snprintf(spelled + have, size - have, "%s%.*s", have ? " " : "", (int)l, ts->text + ts->t[q].start);
        }
        return true;
    }
    return false;
}

/* What the file's `typedef T name;` / `using name = T;` declarations make of name: the
 * vectorizable type all of them agree on (followed through up to 4 typedefs), or NULL.
 * Declarations in an #if branch that a build without -D flags leaves out (by the file's
 * own #defines: llm.c's `#define ENABLE_BF16` picks floatX's bf16 branch) are skipped,
 * and *by_branch says one was. *ambiguous: the ones left disagree or name something else
 * (floatX with no branch decided: the vector width would depend on the build, refused). */
static const vec_elem *typedef_elem(const rw_toks *ts, size_t len, const char *name, int depth, bool *ambiguous,
                                    bool *by_branch)
{
    const vec_elem *found = NULL;
    char spelled[64];
    bool simple;
    for (size_t k = 0; depth > 0 && typedef_next(ts, &k, name, spelled, sizeof spelled, &simple); k++) {
        if (spec_pp_active(ts->text, len, ts->t[k].start) == 0) {
            *by_branch = true;
            continue;
        }
        if (!*spelled) {
            *ambiguous = true;   /* a pointer, template or qualified type: not an element */
            return NULL;
        }
        const vec_elem *e = vec_elem_of(spelled);
        if (!e && simple)
            e = typedef_elem(ts, len, spelled, depth - 1, ambiguous, by_branch);
        if (!e || (found && found != e)) {
            *ambiguous = true;
            return NULL;
        }
        found = e;
    }
    return found;
}

/* The element type of a parameter: a built-in spelling, else resolved through the file's
 * typedefs when they are unambiguous (*by_branch: once the #if branches a build without
 * -D flags leaves out are skipped). NULL with *why set otherwise. */
static const vec_elem *param_elem(const char *text, size_t len, const char *elem, char **why, bool *by_branch,
                                  int *rc)
{
    const vec_elem *e = vec_elem_of(elem);
    if (e || !elem || !*elem)
        return e;
    rw_toks all = {0};
    bool ambiguous = false;
    if ((*rc = rwl_lex(text, 0, (uint32_t)len, &all))) {
        rwl_toks_free(&all);
        return NULL;
    }
    e = typedef_elem(&all, len, elem, 4, &ambiguous, by_branch);
    rwl_toks_free(&all);
    if (!e && ambiguous &&
        !(*why = hk_asprintf(EN(RW_MEM_TYPEDEFS_DISAGREE), elem)))
        *rc = HK_ENOMEM;
    return e;
}

/* One pointer parameter the per-element code touches. */
typedef struct {
    size_t param;
    const char *name;
    const char *elem;       /* as the parameter spells it */
    bool read, written;
    bool store_only;        /* never read; every write is a top-level `p[i] = ...;` */
    bool carrier;           /* lanes through an element pointer into a uint2/uint4 */
    bool by_branch;         /* element type from a typedef's #if branch: size asserted */
    bool by_template;       /* element type a template parameter, the spec's argument: the
                             * vector path only where its size is that argument's */
    const vec_elem *ve;     /* the element type, typedefs resolved */
    char vtype[32];
    int vbytes;
    char vname[96];         /* its vector's name: hk_<name>, with '_' added while that is a
                             * name the form declares (a pointer v: hk_v is the loop's) */
} vec_ptr;

/* An access p[s * i + k] in the per-element code (p[i]: s 1, k 0). */
typedef struct {
    size_t tok;             /* the pointer's name */
    size_t close;           /* the subscript's ']' */
    long k;                 /* element k of the index's s */
    size_t ptr;             /* index into the vec_ptr array */
    bool write, read;
    size_t stmt_end;        /* a write takes effect at the end of its statement (this ';') */
} vec_site;

#define VEC_MAX_PTRS 32
#define VEC_MAX_SITES 256

static const char *const lane_member[] = {".x", ".y", ".z", ".w"};

static const char *const sync_words[] = {
    "__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
    "__syncwarp", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
    "__ballot_sync", "__any_sync", "__all_sync", "__activemask", "sync", "__threadfence",
    "__shared__", "asm", "static", "__nanosleep"};

/* Why the per-element code [a, b) cannot be repeated once per lane, or NULL. */
static const char *lane_problem(const rw_toks *ts, size_t a, size_t b)
{
    for (size_t k = a; k < b; k++) {
        if (ts->t[k].kind != T_IDENT)
            continue;
        for (size_t w = 0; w < HK_ARRAY_LEN(sync_words); w++)
            if (rwl_tok_is_ident(ts, k, sync_words[w]))
                return EN(RW_MEM_SYNC_SHARED);
        size_t l = ts->t[k].end - ts->t[k].start;
        if (l >= 6 && memcmp(ts->text + ts->t[k].start, "atomic", 6) == 0)
            return EN(RW_MEM_ATOMIC);
        if (rwl_tok_is_ident(ts, k, "return") || rwl_tok_is_ident(ts, k, "goto") ||
            rwl_tok_is_ident(ts, k, "break") || rwl_tok_is_ident(ts, k, "continue"))
            return EN(RW_MEM_EARLY_EXIT);
    }
    return NULL;
}

/* Without a bounds check the data's end is known only as the grid's: the per-element code
 * [a, b) must then run whole for every element, since a condition might mean that memory
 * ends before the grid does (the vector form loads every lane). Why not, or NULL. */
static const char *conditional_problem(const rw_toks *ts, size_t a, size_t b)
{
    static const char *const words[] = {"if", "switch", "for", "while", "do"};
    for (size_t k = a; k < b; k++) {
        for (size_t w = 0; w < HK_ARRAY_LEN(words); w++)
            if (rwl_tok_is_ident(ts, k, words[w]))
                return EN(RW_MEM_UNCONDITIONAL);
        if (rwl_tok_is(ts, k, "?") || rwl_tok_is(ts, k, "&&") || rwl_tok_is(ts, k, "||"))
            return EN(RW_MEM_UNCONDITIONAL);
    }
    return NULL;
}

/* Is the identifier at k declared or visible outside the per-element code: a parameter, or
 * a name that occurs in the kernel body before the loop region [first, region)? */
static bool outer_name(const rw_toks *ts, size_t k, const an_function *f, size_t first, size_t region)
{
    if (rwp_param_named(f, ts, k))
        return true;
    for (size_t q = first; q < region; q++)
        if (ts->t[q].kind == T_IDENT && rwl_same_tok(ts, q, k))
            return true;
    return false;
}


/* The shape: an index, its start and stride, the bound, and the per-element code. */
typedef struct {
    size_t idx_tok;
    char idx[128];
    char *type;              /* index type text, e.g. "int", "size_t" */
    char *init;              /* start formula as written */
    size_t ba, bb;           /* bound tokens */
    size_t body_a, body_b;   /* per-element statements (braces of a block stripped) */
    size_t region;           /* first token of the replaced region */
    uint32_t repl_start, repl_end;
    size_t hoist_a, hoist_b; /* declarations between the index and its check (moved above) */
    bool prologue;           /* other statements before the grid-stride loop (kept there) */
    bool model_loop;         /* the model read the for loop as grid-stride along x */
    bool whole_grid;         /* no bounds check: the elements are the grid's threads */
    bool grid_y;             /* the index is linear over a 2-D grid of 1-D blocks */
    const char *form;
} vec_shape;

static void vec_shape_free(vec_shape *s)
{
    hk_free(s->type);
    hk_free(s->init);
}

/* Drops parentheses around a product in a compacted index ("threadIdx.x+(blockIdx.x*
 * blockDim.x)"): a product binds tighter than the sum around it, so they change nothing. */
static void drop_product_parens(char *c)
{
    for (char *o = strchr(c, '('); o; o = strchr(c, '(')) {
        char *e = o + 1;
        while (*e && *e != ')' && *e != '(' && !strchr("+-/%<>&|^?:,", *e))
            e++;
        if (*e != ')')
            return;
        memmove(e, e + 1, strlen(e + 1) + 1);
        memmove(o, o + 1, strlen(o + 1) + 1);
    }
}

/* The value of `[const] T name = threadIdx.x;` (or blockIdx.x, blockDim.x) declared in the
 * body tokens [1, before) when name is never assigned in the body, else NULL. */
static const char *index_temp(const rw_toks *ts, size_t before, size_t k)
{
    static const char *const builtins[] = {"threadIdx", "blockIdx", "blockDim"};
    const char *s = ts->text + ts->t[k].start;
    size_t l = ts->t[k].end - ts->t[k].start;
    for (size_t q = 0; q < ts->n; q++)
        if (tok_eq(ts, q, s, l) && (rwl_tok_is_assign_op(ts, q + 1) || rwl_tok_is(ts, q + 1, "++") ||
                                    rwl_tok_is(ts, q + 1, "--") || (q > 0 && (rwl_tok_is(ts, q - 1, "++") ||
                                                                               rwl_tok_is(ts, q - 1, "--") ||
                                                                               rwl_tok_is(ts, q - 1, "&")))) &&
            !(q + 5 < ts->n && q > 0 && rwl_is_type_word(ts, q - 1) && rwl_tok_is(ts, q + 1, "=") &&
              rwl_tok_is(ts, q + 3, ".") && rwl_tok_is(ts, q + 5, ";")))
            return NULL;   /* changed after its declaration (or its address taken) */
    for (size_t q = 2; q + 5 < before; q++) {
        if (!tok_eq(ts, q, s, l) || !rwl_is_type_word(ts, q - 1) || !rwl_tok_is(ts, q + 1, "=") ||
            !rwl_tok_is(ts, q + 3, ".") || !rwl_tok_is_ident(ts, q + 4, "x") || !rwl_tok_is(ts, q + 5, ";"))
            continue;
        size_t t = q - 1;
        while (t > 1 && rwl_is_type_word(ts, t - 1))
            t--;
        if (rwl_tok_is_ident(ts, t - 1, "const"))
            t--;
        if (!rwl_tok_is(ts, t - 1, ";") && !rwl_tok_is(ts, t - 1, "{") && !rwl_tok_is(ts, t - 1, "}"))
            continue;   /* not a statement of its own */
        int depth = 0;
        for (size_t d = 0; d < t; d++)
            depth += rwl_tok_is(ts, d, "{") - rwl_tok_is(ts, d, "}");
        if (depth != 1)
            continue;   /* in a block of its own, out of scope at the index */
        bool narrow = false;   /* `short bid = blockIdx.x;` may not hold the value */
        for (size_t w = t; w < q; w++)
            narrow |= rwl_tok_is_ident(ts, w, "short") || rwl_tok_is_ident(ts, w, "char") ||
                      rwl_tok_is_ident(ts, w, "bool") || rwl_tok_is_ident(ts, w, "float") ||
                      rwl_tok_is_ident(ts, w, "double");
        if (narrow)
            continue;
        for (size_t b = 0; b < HK_ARRAY_LEN(builtins); b++)
            if (rwl_tok_is_ident(ts, q + 2, builtins[b]))
                return b == 0 ? "threadIdx.x" : b == 1 ? "blockIdx.x" : "blockDim.x";
    }
    return NULL;
}

/* The compacted index formula of tokens [a, b) with index temporaries (`int tid =
 * threadIdx.x;`) replaced by what they hold, in out; false when a name is not one. */
static bool index_through_temps(const rw_toks *ts, size_t a, size_t b, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = a; k < b; k++) {
        const char *v = NULL;
        if (ts->t[k].kind == T_IDENT && !(k > a && rwl_tok_is(ts, k - 1, ".")) && !rwl_tok_is(ts, k + 1, ".") &&
            !(v = index_temp(ts, a, k)))
            return false;
        int l = v ? (int)strlen(v) : (int)(ts->t[k].end - ts->t[k].start);
        if (n + (size_t)l + 1 >= size)
            return false;
        memcpy(out + n, v ? v : ts->text + ts->t[k].start, (size_t)l);
        n += (size_t)l;
        out[n] = '\0';
    }
    return true;
}

/* `[const] TYPE name = <1D index formula>` in tokens [a, b)? Fills idx_tok, type, init.
 * The formula as the file spells it (`blockIdx.x * blockDim.x + threadIdx.x`, through
 * `int tid = threadIdx.x;`), or any other spelling the kernel model km (may be NULL) reads
 * as that index (in_for: a grid-stride loop's declaration). */
static bool index_decl(const rw_toks *ts, size_t a, size_t b, const km_kernel *km, bool in_for, vec_shape *sh,
                       int *rc)
{
    size_t k = a;
    if (rwl_tok_is_ident(ts, k, "const"))
        k++;
    size_t tstart = k;
    while (k < b && rwl_is_type_word(ts, k))
        k++;
    if (k == tstart || k + 2 >= b || ts->t[k].kind != T_IDENT || !rwl_tok_is(ts, k + 1, "="))
        return false;
    char c[256];
    rwl_compact_index(ts, k + 2, b, c, sizeof c);
    drop_product_parens(c);
    if (!rwl_is_index_formula(c) &&
        !(index_through_temps(ts, k + 2, b, c, sizeof c) && (drop_product_parens(c), rwl_is_index_formula(c)))) {
        /* the model ignores declared types: an index, or a temporary it is computed from,
         * too narrow for a block index stays refused */
        if (!rwp_model_index_decl(km, ts, tstart, k, b, in_for, in_for ? NULL : &sh->grid_y))
            return false;
    }
    sh->idx_tok = k;
    snprintf(sh->idx, sizeof sh->idx, "%.*s", (int)(ts->t[k].end - ts->t[k].start),
             ts->text + ts->t[k].start);
    if (!(sh->type = rwl_tok_text(ts, tstart, k)) || !(sh->init = rwl_tok_text(ts, k + 2, b)))
        *rc = HK_ENOMEM;
    return true;
}

/* Bound of `idx < B` / `B > idx` in [a, b) (ba/bb), or why not. */
static const char *bound_of(const rw_toks *ts, size_t a, size_t b, const char *idx, size_t *ba,
                            size_t *bb, bool *less)
{
    *less = false;
    if (rwl_tok_is_ident(ts, a, idx) && (rwl_tok_is(ts, a + 1, "<") || rwl_tok_is(ts, a + 1, ">="))) {
        *less = rwl_tok_is(ts, a + 1, "<");
        *ba = a + 2;
        *bb = b;
    } else if (b >= a + 2 && rwl_tok_is_ident(ts, b - 1, idx) &&
               (rwl_tok_is(ts, b - 2, ">") || rwl_tok_is(ts, b - 2, "<="))) {
        *less = rwl_tok_is(ts, b - 2, ">");
        *ba = a;
        *bb = b - 2;
    } else {
        return EN(RW_MEM_CHECK_NOT_PLAIN);
    }
    if (*ba >= *bb)
        return EN(RW_MEM_CHECK_NO_BOUND);
    for (size_t k = *ba; k < *bb; k++)
        if (rwl_tok_is_ident(ts, k, idx) || rwl_tok_is_assign_op(ts, k) || rwl_tok_is(ts, k, "++") ||
            rwl_tok_is(ts, k, "--") || rwl_tok_is(ts, k, "&&") || rwl_tok_is(ts, k, "||") || rwl_tok_is(ts, k, "?") ||
            rwl_tok_is(ts, k, "<") || rwl_tok_is(ts, k, ">") || rwl_tok_is(ts, k, "<=") || rwl_tok_is(ts, k, ">=") ||
            rwl_tok_is(ts, k, "==") || rwl_tok_is(ts, k, "!="))
            return EN(RW_MEM_BOUND_NOT_SIMPLE);
    return NULL;
}

/* Finds the elementwise shape in the body tokens (ts[0] '{', ts[end] '}'); km (may be
 * NULL) reads index spellings the text matching does not know. */
static const char *find_shape(const rw_toks *ts, size_t end, const km_kernel *km, vec_shape *sh, int *rc)
{
    size_t s = 1;
    size_t hn[16], n_hn = 0;
    bool prologue = false;   /* statements other than plain declarations before the index */
    while (s < end) {
        size_t e = rwl_stmt_end(ts, s, end);
        if (rwl_tok_is_ident(ts, s, "for") && rwl_tok_is(ts, s + 1, "(")) {
            size_t close = rwl_match_close(ts, s + 1);
            if (close >= end)
                return "unbalanced for-loop header";
            size_t semi[2], ns = 0;
            int depth = 0;
            for (size_t k = s + 2; k < close; k++) {
                if (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "[") || rwl_tok_is(ts, k, "{"))
                    depth++;
                else if (rwl_tok_is(ts, k, ")") || rwl_tok_is(ts, k, "]") || rwl_tok_is(ts, k, "}"))
                    depth--;
                else if (depth == 0 && rwl_tok_is(ts, k, ";") && ns < 2)
                    semi[ns++] = k;
            }
            bool idx_ok = ns == 2 && index_decl(ts, s + 2, semi[0], km, true, sh, rc);
            if (!idx_ok && prologue)
                return EN(RW_MEM_NO_INDEX);
            if (!idx_ok)
                return EN(RW_MEM_LOOP_FORM);
            if (*rc)
                return NULL;
            bool less;
            const char *why = bound_of(ts, semi[0] + 1, semi[1], sh->idx, &sh->ba, &sh->bb, &less);
            if (why)
                return why;
            if (!less)
                return EN(RW_MEM_LOOP_COND);
            char c[256];
            /* the step as spelled, or as the model reads it (`i += stride` with `int stride =
             * gridDim.x * blockDim.x;`, `i = i + ...`) */
            sh->model_loop = rwp_model_index_decl(km, ts, sh->idx_tok, sh->idx_tok, semi[0], true, NULL);
            rwl_compact_index(ts, semi[1] + 3, close, c, sizeof c);
            if (!sh->model_loop &&
                (!rwl_tok_is_ident(ts, semi[1] + 1, sh->idx) || !rwl_tok_is(ts, semi[1] + 2, "+=") ||
                 (strcmp(c, "gridDim.x*blockDim.x") != 0 && strcmp(c, "blockDim.x*gridDim.x") != 0)))
                return EN(RW_MEM_LOOP_STEP);
            if (e != end)
                return EN(RW_MEM_AFTER_LOOP);
            sh->body_a = close + 1;
            sh->body_b = e;
            sh->region = s;
            sh->repl_start = ts->t[s].start;
            sh->repl_end = ts->t[e - 1].end;
            sh->hoist_a = sh->hoist_b = s;
            sh->form = "grid-stride loop";
            sh->prologue = prologue;
            return NULL;
        }
        if (rwl_tok_is(ts, e - 1, ";") && index_decl(ts, s, e - 1, km, false, sh, rc)) {
            if (*rc)
                return NULL;
            sh->region = s;
            break;
        }
        /* Other statements may come before a grid-stride loop (invariant_table's block that
         * fills a __shared__ table, its __syncthreads()): they run once per thread, before
         * the loop and unchanged. A jump could enter or skip the loop: not accepted. */
        if (!rwl_is_hoistable_decl(ts, s, e, "", hn, &n_hn, HK_ARRAY_LEN(hn))) {
            /* a label is `name:` starting a statement (not `c ? a : b`, nor `case`/`default`) */
            for (size_t k = s; k < e; k++)
                if (rwl_tok_is_ident(ts, k, "goto") ||
                    (rwl_tok_is(ts, k, ":") && k > s && ts->t[k - 1].kind == T_IDENT &&
                     !rwl_tok_is_ident(ts, k - 1, "default") &&
                     (k - 1 == s || rwl_tok_is(ts, k - 2, ";") || rwl_tok_is(ts, k - 2, "{") ||
                      rwl_tok_is(ts, k - 2, "}"))))
                    return EN(RW_MEM_GOTO_BEFORE_LOOP);
            prologue = true;
        }
        s = e;
    }
    if (prologue)
        return EN(RW_MEM_NO_INDEX);
    if (s >= end)
        return EN(RW_MEM_NO_INDEX_TOP);
    size_t decl_end = rwl_stmt_end(ts, s, end);
    size_t ifs = decl_end;
    sh->hoist_a = decl_end;
    n_hn = 0;
    while (ifs < end && rwl_is_hoistable_decl(ts, ifs, rwl_stmt_end(ts, ifs, end), sh->idx, hn, &n_hn,
                                          HK_ARRAY_LEN(hn)))
        ifs = rwl_stmt_end(ts, ifs, end);
    sh->hoist_b = ifs;
    if (!rwl_tok_is_ident(ts, ifs, "if") || !rwl_tok_is(ts, ifs + 1, "(")) {
        /* no bounds check (shoc's triad: the launch covers the data exactly): every thread of
         * the grid handles its element, so the elements are [0, gridDim.x * blockDim.x) and
         * the rest of the body is the per-element code */
        bool uses_index = false;   /* a statement that is neither hoistable nor the check */
        for (size_t k = ifs; k < rwl_stmt_end(ts, ifs, end) && !uses_index; k++)
            uses_index = rwl_tok_is_ident(ts, k, sh->idx);
        if (uses_index && ifs < end && rwl_tok_is_ident(ts, rwl_stmt_end(ts, ifs, end), "if"))
            return EN(RW_MEM_STMT_USES_INDEX);
        if (decl_end >= end || conditional_problem(ts, decl_end, end))
            return EN(RW_MEM_NO_CHECK_AFTER_INDEX);
        sh->whole_grid = true;
        sh->hoist_a = sh->hoist_b = decl_end;
        sh->ba = sh->bb = 0;
        sh->body_a = decl_end;
        sh->body_b = end;
        sh->repl_start = ts->t[s].start;
        sh->repl_end = ts->t[end - 1].end;
        sh->form = EN(RW_MEM_NO_CHECK);
        return NULL;
    }
    size_t cclose = rwl_match_close(ts, ifs + 1);
    if (cclose >= end)
        return "unbalanced condition";
    size_t if_end = rwl_stmt_end(ts, ifs, end);
    size_t then_start = cclose + 1, then_end = rwl_stmt_end(ts, then_start, end);
    if (then_end != if_end)
        return EN(RW_ROWS_CHECK_ELSE);
    bool less;
    const char *why = bound_of(ts, ifs + 2, cclose, sh->idx, &sh->ba, &sh->bb, &less);
    if (why)
        return why;
    sh->repl_start = ts->t[s].start;
    if (less) {
        if (if_end != end)
            return EN(RW_MEM_AFTER_CHECK);
        sh->body_a = then_start;
        sh->body_b = then_end;
        sh->repl_end = ts->t[if_end - 1].end;
        sh->form = "if (i < n)";
        return NULL;
    }
    bool ret = (rwl_tok_is_ident(ts, then_start, "return") && rwl_tok_is(ts, then_start + 1, ";") &&
                then_end == then_start + 2) ||
               (rwl_tok_is(ts, then_start, "{") && rwl_tok_is_ident(ts, then_start + 1, "return") &&
                rwl_tok_is(ts, then_start + 2, ";") && rwl_tok_is(ts, then_start + 3, "}") &&
                then_end == then_start + 4);
    if (!ret)
        return EN(RW_MEM_NOT_PLAIN_RETURN);
    if (if_end >= end)
        return EN(RW_MEM_NOTHING_AFTER_CHECK);
    sh->body_a = if_end;
    sh->body_b = end;
    sh->repl_end = ts->t[end - 1].end;
    sh->form = "if (i >= n) return";
    return NULL;
}

/* A local of the per-element code that names element s * i + k of the index i
 * (`long e = pair * 2;`), usable in subscripts after its declaration. */
typedef struct {
    size_t name_tok;        /* the declared name */
    size_t decl_a, decl_b;  /* the declaration statement (tokens) */
    long s, k;
    bool drop;              /* only used in subscripts: left out of the lanes' copies */
} vec_alias;

#define VEC_MAX_ALIASES 8
#define VEC_LINEAR_MAX (1L << 20)

/* Is token k a non-negative integer literal (decimal or hex, u/l suffixes)? Its value in *v. */
static bool int_literal(const rw_toks *ts, size_t k, long *v)
{
    if (k >= ts->n || ts->t[k].kind != T_NUMBER)
        return false;
    char buf[32];
    size_t l = ts->t[k].end - ts->t[k].start;
    if (l >= sizeof buf)
        return false;
    memcpy(buf, ts->text + ts->t[k].start, l);
    buf[l] = '\0';
    char *end;
    unsigned long long x = strtoull(buf, &end, 0);
    while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
        end++;
    if (*end || x > (unsigned long long)VEC_LINEAR_MAX)
        return false;
    *v = (long)x;
    return true;
}

/* Is alias a usable at token pos (after its declaration)? */
static const vec_alias *alias_at(const rw_toks *ts, size_t pos, const vec_alias *al, size_t n_al)
{
    if (ts->t[pos].kind != T_IDENT || tok_member_or_scope(ts, pos))
        return NULL;
    for (size_t a = 0; a < n_al; a++)
        if (pos >= al[a].decl_b &&
            tok_eq(ts, pos, ts->text + ts->t[al[a].name_tok].start,
                   ts->t[al[a].name_tok].end - ts->t[al[a].name_tok].start))
            return &al[a];
    return NULL;
}

/* Tokens [a, b) as s * idx + k: sums and products of the index, its aliases and integer
 * literals, with parentheses and casts to integer types (a product needs a constant
 * factor). Anything else (a minus, a division, another variable): false. */
static bool linear_of(const rw_toks *ts, size_t a, size_t b, const char *idx, const vec_alias *al,
                      size_t n_al, int depth, long *s, long *k)
{
    if (depth > 16)
        return false;
    while (a + 1 < b && rwl_tok_is(ts, a, "(") && rwl_match_close(ts, a) == b - 1) {
        a++;
        b--;
    }
    if (a >= b)
        return false;
    size_t plus = b, times = b;
    for (size_t q = a; q < b; q++) {
        if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[")) {
            size_t c = rwl_match_close(ts, q);
            if (c >= b)
                return false;
            q = c;
            continue;
        }
        if (ts->t[q].kind != T_PUNCT)
            continue;
        if (rwl_tok_is(ts, q, "+") && q > a)
            plus = q;
        else if (rwl_tok_is(ts, q, "*") && q > a)
            times = q;
        else
            return false;
    }
    long s1, k1, s2, k2;
    if (plus < b || times < b) {
        size_t op = plus < b ? plus : times;
        if (!linear_of(ts, a, op, idx, al, n_al, depth + 1, &s1, &k1) ||
            !linear_of(ts, op + 1, b, idx, al, n_al, depth + 1, &s2, &k2))
            return false;
        if (op == plus) {
            *s = s1 + s2;
            *k = k1 + k2;
        } else if (s1 == 0) {
            *s = k1 * s2;
            *k = k1 * k2;
        } else if (s2 == 0) {
            *s = s1 * k2;
            *k = k1 * k2;
        } else {
            return false;
        }
        return *s <= VEC_LINEAR_MAX && *k <= VEC_LINEAR_MAX;
    }
    if (rwl_tok_is(ts, a, "(")) {   /* a cast to an integer type */
        size_t c = rwl_match_close(ts, a);
        if (c >= b - 1 || c == a + 1)
            return false;
        for (size_t q = a + 1; q < c; q++)
            if (!rwl_is_type_word(ts, q) || rwl_tok_is_ident(ts, q, "auto"))
                return false;
        return linear_of(ts, c + 1, b, idx, al, n_al, depth + 1, s, k);
    }
    if (b != a + 1)
        return false;
    if (int_literal(ts, a, k)) {
        *s = 0;
        return true;
    }
    if (rwl_tok_is_ident(ts, a, idx) && !tok_member_or_scope(ts, a)) {
        *s = 1;
        *k = 0;
        return true;
    }
    const vec_alias *v = alias_at(ts, a, al, n_al);
    if (!v)
        return false;
    *s = v->s;
    *k = v->k;
    return true;
}

/* Does a type spelled by tokens [a, b) (or the index type text t) hold 64 bits? */
static bool wide_type_toks(const rw_toks *ts, size_t a, size_t b)
{
    static const char *const wide[] = {"long", "size_t", "int64_t", "uint64_t", "ptrdiff_t", "auto"};
    for (size_t q = a; q < b; q++)
        for (size_t w = 0; w < HK_ARRAY_LEN(wide); w++)
            if (rwl_tok_is_ident(ts, q, wide[w]))
                return true;
    return false;
}

static bool wide_type_text(const char *t)
{
    return strstr(t, "long") || strstr(t, "size_t") || strstr(t, "int64") || strstr(t, "ptrdiff");
}

/* The aliases of the index among the top-level statements of the per-element code [ia, ib)
 * (top marks statement starts): `[const] T name = <linear in i>;` with T an integer type
 * at least as wide as the index's, the name never assigned, its address never taken and
 * never declared again. Fills al (at most VEC_MAX_ALIASES). */
static size_t find_aliases(const rw_toks *ts, size_t ia, size_t ib, const bool *top, const vec_shape *sh,
                           vec_alias *al)
{
    size_t n = 0;
    for (size_t st = ia; st < ib && n < VEC_MAX_ALIASES; st = rwl_stmt_end(ts, st, ib)) {
        if (!top[st])
            continue;
        size_t e = rwl_stmt_end(ts, st, ib), q = st;
        if (rwl_tok_is_ident(ts, q, "const"))
            q++;
        size_t ta = q;
        while (q < e && rwl_is_type_word(ts, q))
            q++;
        if (q == ta || q + 3 > e || ts->t[q].kind != T_IDENT || !rwl_tok_is(ts, q + 1, "=") ||
            !rwl_tok_is(ts, e - 1, ";"))
            continue;
        if (wide_type_text(sh->type) && !wide_type_toks(ts, ta, q))
            continue;   /* a narrower alias would wrap where the index does not */
        long s, k;
        if (!linear_of(ts, q + 2, e - 1, sh->idx, al, n, 0, &s, &k) || s < 1)
            continue;
        /* the name keeps its value: no write, no address, no second declaration */
        size_t nl = ts->t[q].end - ts->t[q].start;
        const char *nm = ts->text + ts->t[q].start;
        bool ok = true;
        for (size_t r = ia; r < ib && ok; r++) {
            if (r == q || !tok_eq(ts, r, nm, nl) || ts->t[r].kind != T_IDENT || tok_member_or_scope(ts, r))
                continue;
            if (rwl_tok_is_assign_op(ts, r + 1) || rwl_tok_is(ts, r + 1, "++") || rwl_tok_is(ts, r + 1, "--") ||
                (r > 0 && (rwl_tok_is(ts, r - 1, "++") || rwl_tok_is(ts, r - 1, "--") ||
                           (rwl_tok_is(ts, r - 1, "&") && rwl_unary_position(ts, r - 1)))) ||
                (r > 0 && ts->t[r - 1].kind == T_IDENT && !rwl_tok_is_ident(ts, r - 1, "return")))
                ok = false;
        }
        if (!ok)
            continue;
        al[n].name_tok = q;
        al[n].decl_a = st;
        al[n].decl_b = e;
        al[n].s = s;
        al[n].k = k;
        al[n].drop = false;
        n++;
    }
    return n;
}

/* With s > 1 elements per index (p[s * i + k]): why the accesses cannot become one vector
 * per pointer (the reason, formatted into buf), or NULL. The width must hold whole indices;
 * a written pointer must store each of its s elements exactly once per index, as a
 * top-level statement (the vector store writes all of them); a pointer only read must read
 * all s (the vector load must not reach elements the kernel never reads). */
static const char *strided_problem(const vec_site *sites, size_t n_sites, const vec_ptr *ptrs,
                                   size_t n_ptrs, const bool *top, long s, int width,
                                   const char *idx, char *buf, size_t size)
{
    if (s == 1)
        return NULL;
    if (width % s) {
        snprintf(buf, size, EN(RW_MEM_WIDTH_MULTIPLE), width, s);
        return buf;
    }
    for (size_t p = 0; p < n_ptrs; p++) {
        const vec_ptr *vp = &ptrs[p];
        unsigned seen = 0, writes[4] = {0};
        for (size_t t = 0; t < n_sites; t++) {
            if (sites[t].ptr != p)
                continue;
            seen |= 1u << sites[t].k;
            if (!sites[t].write)
                continue;
            writes[sites[t].k]++;
            if (!top[sites[t].tok]) {
                snprintf(buf, size, EN(RW_MEM_WRITTEN_NESTED),
                         vp->name, s, idx, sites[t].k, s);
                return buf;
            }
        }
        for (long k = 0; k < s; k++) {
            if (vp->written && writes[k] != 1) {
                snprintf(buf, size, writes[k] ? EN(RW_MEM_WRITTEN_TWICE) : EN(RW_MEM_NEVER_WRITTEN),
                         vp->name, s, idx, k, s);
                return buf;
            }
            if (!vp->written && !(seen & (1u << k))) {
                snprintf(buf, size, EN(RW_MEM_READS_SOME), vp->name, s, vp->name, s, idx, k);
                return buf;
            }
        }
    }
    return NULL;
}

/* Appends src[0, n) to b with extra spaces after every newline that starts a non-empty line
 * (the copied code moves some levels deeper). */
static int append_shifted(struct hk_buf *b, const char *src, size_t n, int extra)
{
    static const char spaces[] = "                                ";
    size_t from = 0;
    for (size_t q = 0; q < n; q++) {
        if (src[q] != '\n' || q + 1 >= n || src[q + 1] == '\n')
            continue;
        int rc = hk_buf_append(b, src + from, q + 1 - from);
        if (!rc)
            rc = hk_buf_append(b, spaces, (size_t)extra < sizeof spaces - 1 ? (size_t)extra : sizeof spaces - 1);
        if (rc)
            return rc;
        from = q + 1;
    }
    return hk_buf_append(b, src + from, n - from);
}

/* Appends `for (T i = start; i < hk_n; i += hk_stride) { per-element code }` at indent+8. */
static int append_scalar_loop(struct hk_buf *b, const rw_toks *ts, const vec_shape *sh,
                              const char *ind, const char *start)
{
    uint32_t bs = ts->t[sh->body_a].start, be = ts->t[sh->body_b - 1].end;
    bool braced = rwl_tok_is(ts, sh->body_a, "{") && rwl_match_close(ts, sh->body_a) == sh->body_b - 1;
    int rc = hk_buf_printf(b, "%s        for (%s %s = %s; %s < hk_n; %s += hk_stride) ", ind, sh->type,
                           sh->idx, start, sh->idx, sh->idx);
    if (!rc && !braced)
        rc = hk_buf_printf(b, "{\n%s            ", ind);
    if (!rc)
        rc = append_shifted(b, ts->text + bs, be - bs, braced ? 8 : 12);
    if (!rc && !braced)
        rc = hk_buf_printf(b, "\n%s        }", ind);
    if (!rc)
        rc = hk_buf_appends(b, "\n");
    return rc;
}

/* A byte range of the per-element code that a lane's copy replaces: an access (site, by
 * its vector component) or an alias declaration left out (site -1). */
typedef struct {
    uint32_t a, b;
    long site;
} vec_cut;

/* Appends text[from, to) to b with the cuts applied for index l of the vector: an access
 * p[s * i + k] becomes component s * l + k of p's vector. */
static int append_lane(struct hk_buf *b, const rw_toks *ts, uint32_t from, uint32_t to,
                       const vec_cut *cuts, size_t n_cuts, const vec_site *sites,
                       const vec_ptr *ptrs, long s, int l, int shift)
{
    int rc;
    for (size_t c = 0; c < n_cuts; c++) {
        if (cuts[c].a < from || cuts[c].a >= to)
            continue;
        if ((rc = append_shifted(b, ts->text + from, cuts[c].a - from, shift)))
            return rc;
        if (cuts[c].site >= 0) {
            const vec_site *st = &sites[cuts[c].site];
            const vec_ptr *p = &ptrs[st->ptr];
            long comp = s * l + st->k;
            if (p->carrier)
                rc = hk_buf_printf(b, "%s_e[%ld]", p->vname, comp);
            else
                rc = hk_buf_printf(b, "%s%s", p->vname, lane_member[comp]);
            if (rc)
                return rc;
        }
        from = cuts[c].b;
    }
    return append_shifted(b, ts->text + from, to - from, shift);
}

/* ------------------------------------------------ vectorize: reads at another index */

static bool in_ldg(const rw_toks *ts, size_t k);
static bool launch_aliases(const an_model *m, const an_function *f, size_t a, size_t b);

/* A read of a pointer the kernel never writes at an index other than the thread's own
 * (`bias[i % h]`, `target[n]` with `int n = i / c;`, `table[idx[i]]`, `scale[0]`): it stays
 * a scalar load in each lane's copy of the per-element code, with that lane's index. */
typedef struct {
    size_t tok;             /* the pointer's name */
    size_t param;
    bool own;               /* at the thread's own index (an element type with no vector) */
} vec_gather;

/* Functions a subscripted element may be passed to by value (never by reference). */
static const char *const by_value_calls[] = {
    "expf", "exp", "__expf", "logf", "log", "__logf", "log1pf", "sqrtf", "sqrt", "rsqrtf",
    "fabsf", "fabs", "abs", "fmaxf", "fminf", "max", "min", "tanhf", "tanh", "powf", "pow",
    "sinf", "cosf", "erff", "erf", "__ldg", "__half2float", "__bfloat162float", "__float2half",
    "__float2bfloat16", "static_cast"};

/* Is the token range (k) a whole argument of a call to a function not known to take it by
 * value: `f(p[j])`, `f(a, p[j], b)`? first and last are the argument's tokens. */
static bool argument_of_call(const rw_toks *ts, size_t first, size_t last)
{
    if (first == 0 || !(rwl_tok_is(ts, last + 1, ")") || rwl_tok_is(ts, last + 1, ",")))
        return false;
    size_t o = first - 1;   /* the call's '(' */
    if (rwl_tok_is(ts, o, ",")) {
        int depth = 0;
        for (; o > 0; o--) {
            if (rwl_tok_is(ts, o, ")") || rwl_tok_is(ts, o, "]"))
                depth++;
            else if ((rwl_tok_is(ts, o, "(") || rwl_tok_is(ts, o, "[")) && depth-- == 0)
                break;
        }
    }
    if (!rwl_tok_is(ts, o, "(") || o == 0 || ts->t[o - 1].kind != T_IDENT)
        return false;
    static const char *const keywords[] = {"if", "while", "switch", "for", "return", "sizeof"};
    for (size_t w = 0; w < HK_ARRAY_LEN(keywords); w++)
        if (rwl_tok_is_ident(ts, o - 1, keywords[w]))
            return false;
    for (size_t w = 0; w < HK_ARRAY_LEN(by_value_calls); w++)
        if (rwl_tok_is_ident(ts, o - 1, by_value_calls[w]))
            return false;
    return true;
}

/* Is token k inside a for, while or do statement of the per-element code [a, b)? */
static bool in_loop_of(const rw_toks *ts, size_t a, size_t b, size_t k)
{
    for (size_t q = a; q < k; q++)
        if ((rwl_tok_is_ident(ts, q, "for") || rwl_tok_is_ident(ts, q, "while") ||
             rwl_tok_is_ident(ts, q, "do")) && k < rwl_stmt_end(ts, q, b))
            return true;
    return false;
}

static bool null_word(const rw_toks *ts, size_t k)
{
    long v;
    return rwl_tok_is_ident(ts, k, "NULL") || rwl_tok_is_ident(ts, k, "nullptr") ||
           (int_literal(ts, k, &v) && v == 0);
}

/* Why pointer parameter pp may not be read per lane at another index: every use of it in
 * the body tokens [a, b) must only read it (`p[j]` as a value, `*p`, `__ldg(&p[j])`, a test
 * against NULL), so no store, atomic, pointer copy, offset or address can write its
 * elements behind the vector form's back. The refusal's sentence for it (the phrase in the
 * "statement at line N: pointer P is used other than ..." sentence), with its token in *at,
 * or HK_MSG_COUNT. */
static enum hk_msg gather_problem(const rw_toks *ts, size_t a, size_t b, const an_param *pp, size_t *at)
{
    size_t nl = strlen(pp->name);
    for (size_t k = a; k < b; k++) {
        if (ts->t[k].kind != T_IDENT || !tok_eq(ts, k, pp->name, nl) || tok_member_or_scope(ts, k))
            continue;
        *at = k;
        if (pp->pointer_depth != 1)
            return HK_MSG_RW_MEM_GATHER_PTR_PTR;
        bool pre_write = k > 0 && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--"));
        if (rwl_tok_is(ts, k + 1, "[")) {
            size_t close = rwl_match_close(ts, k + 1);
            if (close >= b)
                return HK_MSG_RW_MEM_GATHER_UNBALANCED;
            if (pre_write || rwl_tok_is_assign_op(ts, close + 1) || rwl_tok_is(ts, close + 1, "++") ||
                rwl_tok_is(ts, close + 1, "--"))
                return HK_MSG_RW_MEM_GATHER_WRITTEN;
            if (rwl_tok_is(ts, close + 1, ".") || rwl_tok_is(ts, close + 1, "->") ||
                rwl_tok_is(ts, close + 1, "["))
                return HK_MSG_RW_MEM_GATHER_MEMBER;
            if (k > 0 && rwl_tok_is(ts, k - 1, "&") && rwl_unary_position(ts, k - 1)) {
                if (in_ldg(ts, k) && rwl_tok_is(ts, close + 1, ")"))
                    continue;
                return HK_MSG_RW_MEM_GATHER_ADDRESS;
            }
            if (!pp->is_const && argument_of_call(ts, k, close))
                return HK_MSG_RW_MEM_GATHER_PASSED;
            continue;
        }
        if (k > 0 && rwl_tok_is(ts, k - 1, "*") && rwl_unary_position(ts, k - 1)) {
            if (rwl_tok_is_assign_op(ts, k + 1) || rwl_tok_is(ts, k + 1, "++") || rwl_tok_is(ts, k + 1, "--") ||
                (k > 1 && (rwl_tok_is(ts, k - 2, "++") || rwl_tok_is(ts, k - 2, "--"))))
                return HK_MSG_RW_MEM_GATHER_WRITTEN;
            if (k > 1 && rwl_tok_is(ts, k - 2, "&"))
                return HK_MSG_RW_MEM_GATHER_ADDRESS;
            if (rwl_tok_is(ts, k + 1, ".") || rwl_tok_is(ts, k + 1, "->"))
                return HK_MSG_RW_MEM_GATHER_MEMBER;
            if (!pp->is_const && argument_of_call(ts, k - 1, k))
                return HK_MSG_RW_MEM_GATHER_PASSED;
            continue;
        }
        /* the pointer's value only tested: `p != NULL`, `NULL == p`, `!p`, `if (p)` */
        if (((rwl_tok_is(ts, k + 1, "==") || rwl_tok_is(ts, k + 1, "!=")) && null_word(ts, k + 2)) ||
            (k > 1 && (rwl_tok_is(ts, k - 1, "==") || rwl_tok_is(ts, k - 1, "!=")) && null_word(ts, k - 2)) ||
            (k > 0 && rwl_tok_is(ts, k - 1, "!")) ||
            (k > 1 && rwl_tok_is(ts, k - 1, "(") && rwl_tok_is_ident(ts, k - 2, "if") && rwl_tok_is(ts, k + 1, ")")))
            continue;
        return HK_MSG_RW_MEM_GATHER_AS_POINTER;
    }
    return HK_MSG_COUNT;
}

/* rewrite_mem.h */
const char *rw_template_arg_of(const an_function *f, const char *elem, const char *const *targs, size_t n_targs)
{
    const char *t = f->template_params ? strchr(f->template_params, '<') : NULL;
    size_t el = elem ? strlen(elem) : 0;
    if (!t || !el || !targs)
        return NULL;
    size_t j = 0;
    int depth = 0;
    const char *last = NULL;   /* the last identifier of the parameter so far */
    size_t last_len = 0;
    bool in_default = false;
    for (const char *c = t + 1; *c; c++) {
        if (*c == '<' || *c == '(') {
            depth++;
        } else if ((*c == '>' || *c == ')') && depth > 0) {
            depth--;
        } else if (depth == 0 && (*c == ',' || *c == '>')) {
            if (last && last_len == el && memcmp(last, elem, el) == 0)
                return j < n_targs ? targs[j] : NULL;
            if (*c == '>')
                return NULL;
            j++;
            last = NULL;
            in_default = false;
        } else if (depth == 0 && *c == '=') {
            in_default = true;
        } else if (depth == 0 && !in_default && (isalpha((unsigned char)*c) || *c == '_') &&
                   (c == t + 1 || !(isalnum((unsigned char)c[-1]) || c[-1] == '_'))) {
            last = c;
            last_len = 0;
            while (isalnum((unsigned char)last[last_len]) || last[last_len] == '_')
                last_len++;
        }
    }
    return NULL;
}

/* Fills vp's vector type for width lanes (ve, vtype, vbytes, carrier, by_branch,
 * by_template); targ: the spec's template argument for its element type, or NULL. When it
 * has none, *why is the reason (new string). HK_ENOMEM. */
static int vec_type_of(const char *text, size_t len, vec_ptr *vp, int width, const char *targ, char **why)
{
    bool by_branch = false;
    int rc = HK_OK;
    const vec_elem *e = targ ? vec_elem_of(targ) : param_elem(text, len, vp->elem, why, &by_branch, &rc);
    if (rc || (!e && *why))
        return rc;
    if (!e) {
        *why = targ ? hk_asprintf(EN(RW_MEM_ELEM_TYPE_SPEC), vp->name, vp->elem, targ)
                    : hk_asprintf(EN(RW_MEM_ELEM_TYPE), vp->name, vp->elem);
        return *why ? HK_OK : HK_ENOMEM;
    }
    const char *vt = width == 2 ? e->vec2 : width == 4 ? e->vec4 : NULL;
    int bytes = e->size * width;
    if (by_branch || targ) {
        /* the type is its #if branch's only in a build without -D flags, or the spec's
         * template argument only in its instantiation: the lanes travel as bytes and are
         * read through the parameter's own spelling; a static_assert stops a build whose
         * branch names a type of another size, and an instantiation with a type of another
         * size takes the scalar loop */
        const char *c = bytes == 4 ? "unsigned int" : bytes == 8 ? "uint2" : bytes == 16 ? "uint4" : NULL;
        if (!c) {
            *why = hk_asprintf(targ ? EN(RW_MEM_NO_CARRIER_TEMPLATE) : EN(RW_MEM_NO_CARRIER_BRANCH), vp->elem,
                               e->names[0], bytes, width);
            return *why ? HK_OK : HK_ENOMEM;
        }
        snprintf(vp->vtype, sizeof vp->vtype, "%s", c);
        vp->carrier = true;
        vp->by_branch = by_branch;
        vp->by_template = targ != NULL;
    } else if (vt) {
        snprintf(vp->vtype, sizeof vp->vtype, "%s", vt);
    } else if (e->bit16 && (width == 4 || width == 8)) {
        snprintf(vp->vtype, sizeof vp->vtype, "%s", width == 4 ? "uint2" : "uint4");
        vp->carrier = true;
    } else {
        *why = hk_asprintf(e->vec4 ? EN(RW_MEM_NO_VECTOR_24) : e->bit16 ? EN(RW_MEM_NO_VECTOR_248) : EN(RW_MEM_NO_VECTOR_2),
                           vp->elem, width, vp->name);
        return *why ? HK_OK : HK_ENOMEM;
    }
    vp->ve = e;
    vp->vbytes = bytes;
    return HK_OK;
}

/* ------------------------------------------------ vectorize: the rewrite */

/* Adds "(const void *)w != (const void *)r" as a line of *terms, once per pair (in either
 * order): the vector form's guard then sends an in-place call of a kernel that reads r
 * after writing w in the same element (both may alias: neither is __restrict__) to the
 * scalar loop. */
static int noalias_term(struct hk_buf *terms, const char *w, const char *r)
{
    char t[2][320];
    snprintf(t[0], sizeof t[0], "(const void *)%s != (const void *)%s", w, r); /* i18n: not for people */
    snprintf(t[1], sizeof t[1], "(const void *)%s != (const void *)%s", r, w); /* i18n: not for people */
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(t[k]);
        for (size_t a = 0; a + n <= terms->len; a++)
            if ((a == 0 || terms->data[a - 1] == '\n') && !memcmp(terms->data + a, t[k], n) &&
                (a + n == terms->len || terms->data[a + n] == '\n'))
                return HK_OK;
    }
    return hk_buf_printf(terms, "%s\n", t[0]);
}

static int vectorize_once(const char *text, size_t len, const an_model *m, size_t kernel,
                          int width, const char *const *targs, size_t n_targs, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (width != 2 && width != 4 && width != 8)
        return HK_EINVAL;
    rw_toks ts = {0};
    rw_edits es = {0};
    vec_shape sh;
    memset(&sh, 0, sizeof sh);
    vec_ptr ptrs[VEC_MAX_PTRS];
    vec_site sites[VEC_MAX_SITES];
    vec_alias als[VEC_MAX_ALIASES];
    vec_gather gathers[VEC_MAX_SITES];
    size_t n_ptrs = 0, n_sites = 0, n_als = 0, n_gathers = 0;
    bool *top = NULL, *in_site = NULL;
    long elem_stride = 0;   /* elements per index of every access (p[s * i + k]), 0: none yet */
    char why_buf[512];
    const char *stride_ptr = NULL;
    struct hk_buf b, names, gnames, noalias;
    hk_buf_init(&b, RW_TEXT_MAX);
    hk_buf_init(&names, 4096);
    hk_buf_init(&gnames, 4096);
    hk_buf_init(&noalias, 4096);
    char *bound = NULL, *why_alloc = NULL;
    const char *why = NULL;
    km_kernel *km = NULL;
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    /* the kernel model reads index spellings the text matching does not; a kernel it cannot
     * build (HK_ENOMEM aside) is matched by its text alone */
    if ((rc = km_build(text, len, f->name, &km, NULL, 0)) && rc != HK_ENOMEM)
        rc = HK_OK;
    if (rc)
        goto out;
    if (ts.n < 2 || !rwl_tok_is(&ts, 0, "{") || !rwl_tok_is(&ts, ts.n - 1, "}")) {
        why = EN(RW_ROWS_BODY_UNREADABLE);
        goto na;
    }
    size_t end = ts.n - 1;
    for (size_t k = 0; k < end; k++)
        if (rwl_tok_is_ident(&ts, k, "hk_nv")) {
            why = EN(RW_MEM_ALREADY);
            goto na;
        }
    if ((why = find_shape(&ts, end, km, &sh, &rc)) || rc)
        goto na_or_fail;
    /* the per-element statements, without the braces of a block */
    size_t ia = sh.body_a, ib = sh.body_b;
    if (rwl_tok_is(&ts, ia, "{") && rwl_match_close(&ts, ia) == ib - 1) {
        ia++;
        ib--;
    }
    if (ia >= ib) {
        why = EN(RW_MEM_EMPTY);
        goto na;
    }
    /* the declarations hoisted above the loop count as before it */
    size_t before = sh.hoist_b > sh.region ? sh.hoist_b : sh.region;
    if ((why = lane_problem(&ts, ia, ib)) ||
        (why = rwp_thread_coordinate_problem(&ts, ia, ib, km, before, sh.idx)))
        goto na;

    /* top-level statement starts, for the store-only test */
    top = hk_calloc(ts.n, sizeof *top);
    in_site = hk_calloc(ts.n, sizeof *in_site);
    if (!top || !in_site) {
        rc = HK_ENOMEM;
        goto out;
    }
    for (size_t s = ia; s < ib; s = rwl_stmt_end(&ts, s, ib))
        top[s] = true;
    n_als = find_aliases(&ts, ia, ib, top, &sh, als);
    bool idx_other_use = false;
    for (size_t k = ia; k < ib && !why; k++) {
        if (ts.t[k].kind != T_IDENT || tok_member_or_scope(&ts, k))
            continue;
        bool assigned = rwl_tok_is_assign_op(&ts, k + 1) || rwl_tok_is(&ts, k + 1, "++") ||
                        rwl_tok_is(&ts, k + 1, "--") ||
                        (k > 0 && (rwl_tok_is(&ts, k - 1, "++") || rwl_tok_is(&ts, k - 1, "--")));
        if (rwl_tok_is_ident(&ts, k, sh.idx)) {
            if (assigned || (k > 0 && rwl_tok_is(&ts, k - 1, "&") && rwl_unary_position(&ts, k - 1)))
                why = EN(RW_MEM_CHANGES_INDEX);
            continue;   /* other uses: idx_other_use, once the aliases kept are known */
        }
        long p = param_named(f, &ts, k);
        if (p >= 0 && f->params[p].pointer_depth >= 1) {
            const an_param *pp = &f->params[p];
            size_t close = rwl_tok_is(&ts, k + 1, "[") ? rwl_match_close(&ts, k + 1) : ts.n;
            long as = 0, ak = 0;
            if (close >= ib || !linear_of(&ts, k + 2, close, sh.idx, als, n_als, 0, &as, &ak) || as < 1 ||
                (as == 1 && ak != 0)) {
                /* another index: a pointer only ever read is read per lane, as written (the
                 * scan goes on inside its subscript, whose accesses are the thread's own) */
                size_t at = k;
                enum hk_msg gwhy = gather_problem(&ts, 1, end, pp, &at);
                if (gwhy == HK_MSG_COUNT && in_loop_of(&ts, ia, ib, k)) {
                    why_alloc = hk_asprintf(EN(RW_MEM_READ_IN_LOOP), pp->name);
                    break;
                }
                if (gwhy == HK_MSG_COUNT) {
                    if (n_gathers == VEC_MAX_SITES) {
                        why = EN(RW_MEM_TOO_MANY_ACCESSES);
                        break;
                    }
                    gathers[n_gathers++] = (vec_gather){k, (size_t)p, false};
                    continue;
                }
                /* construct and line first: the registry's locator reads them from there */
                why_alloc = hk_asprintf(hk_tr_in(HK_LANG_EN, gwhy), rwl_line_at(text, ts.t[at].start), pp->name,
                                        pp->name, sh.idx, pp->name, sh.idx);
                break;
            }
            char acc[200];
            if (as == 1)
                snprintf(acc, sizeof acc, "%s[%s]", pp->name, sh.idx);
            else
                snprintf(acc, sizeof acc, "%s[%ld * %s + %ld]", pp->name, as, sh.idx, ak);
            if (as != 1 && as != 2 && as != 4) {
                why_alloc = hk_asprintf(EN(RW_MEM_STEPS), acc, as);
                break;
            }
            if (ak >= as) {
                why_alloc = hk_asprintf(EN(RW_MEM_REACHES_PAST), acc, as);
                break;
            }
            if (elem_stride && as != elem_stride) {
                why_alloc = hk_asprintf(EN(RW_MEM_STRIDES_DIFFER), stride_ptr,
                                        elem_stride, pp->name, as);
                break;
            }
            elem_stride = as;
            stride_ptr = pp->name;
            if ((k > 0 && rwl_tok_is(&ts, k - 1, "&") && rwl_unary_position(&ts, k - 1)) ||
                rwl_tok_is(&ts, close + 1, ".") || rwl_tok_is(&ts, close + 1, "->") ||
                rwl_tok_is(&ts, close + 1, "[")) {
                why_alloc = hk_asprintf(EN(RW_MEM_ADDRESS_TAKEN), acc);
                break;
            }
            if (pp->pointer_depth != 1) {
                why_alloc = hk_asprintf(EN(RW_MEM_PTR_PTR), pp->name);
                break;
            }
            size_t pi = 0;
            while (pi < n_ptrs && ptrs[pi].param != (size_t)p)
                pi++;
            if (pi == n_ptrs) {
                if (n_ptrs == VEC_MAX_PTRS) {
                    why = EN(RW_MEM_TOO_MANY_PTRS);
                    break;
                }
                memset(&ptrs[pi], 0, sizeof ptrs[pi]);
                ptrs[pi].param = (size_t)p;
                ptrs[pi].name = pp->name;
                ptrs[pi].elem = pp->elem_type ? pp->elem_type : "";
                ptrs[pi].store_only = true;
                n_ptrs++;
            }
            if (n_sites == VEC_MAX_SITES) {
                why = EN(RW_MEM_TOO_MANY_ACCESSES);
                break;
            }
            vec_site *st = &sites[n_sites++];
            st->tok = k;
            st->close = close;
            st->k = ak;
            st->ptr = pi;
            bool pre = k > 0 && (rwl_tok_is(&ts, k - 1, "++") || rwl_tok_is(&ts, k - 1, "--"));
            st->write = pre || rwl_tok_is_assign_op(&ts, close + 1) || rwl_tok_is(&ts, close + 1, "++") ||
                        rwl_tok_is(&ts, close + 1, "--");
            st->read = !(rwl_tok_is(&ts, close + 1, "=") && !pre);
            st->stmt_end = k;
            while (st->stmt_end < ib && !rwl_tok_is(&ts, st->stmt_end, ";"))
                st->stmt_end++;
            ptrs[pi].read |= st->read;
            ptrs[pi].written |= st->write;
            if (st->read || !top[k] || !rwl_tok_is(&ts, close + 1, "="))
                ptrs[pi].store_only = false;
            for (size_t q = k; q <= close; q++)
                in_site[q] = true;
            k = close;
            continue;
        }
        if (assigned && !rwp_declared_at(&ts, k, ia) && (outer_name(&ts, k, f, 1, sh.region) ||
                         outer_name(&ts, k, f, sh.hoist_a, sh.hoist_b))) {
            why_alloc = hk_asprintf(EN(RW_MEM_UPDATES_OUTSIDE),
                                    (int)(ts.t[k].end - ts.t[k].start), text + ts.t[k].start);
            break;
        }
    }
    if (why_alloc)
        goto na_alloc;
    if (why)
        goto na;
    /* a pointer only ever read whose elements have no vector type here (int64_t, a template
     * type the spec does not give) is read per lane at the thread's index, as written */
    for (size_t p = 0; p < n_ptrs;) {
        vec_ptr probe = ptrs[p];
        size_t at;
        if (ptrs[p].written || gather_problem(&ts, 1, end, &f->params[ptrs[p].param], &at) != HK_MSG_COUNT) {
            p++;
            continue;
        }
        if ((rc = vec_type_of(text, len, &probe, width, rw_template_arg_of(f, probe.elem, targs, n_targs),
                              &why_alloc)))
            goto out;
        if (!why_alloc) {
            p++;
            continue;
        }
        hk_free(why_alloc);
        why_alloc = NULL;
        size_t kept = 0;
        for (size_t t = 0; t < n_sites; t++) {
            if (sites[t].ptr != p) {
                sites[kept] = sites[t];
                sites[kept].ptr -= sites[kept].ptr > p;
                kept++;
                continue;
            }
            if (n_gathers == VEC_MAX_SITES) {
                why = EN(RW_MEM_TOO_MANY_ACCESSES);
                goto na;
            }
            gathers[n_gathers++] = (vec_gather){sites[t].tok, ptrs[p].param, true};
            for (size_t q = sites[t].tok; q <= sites[t].close; q++)
                in_site[q] = false;
        }
        n_sites = kept;
        memmove(&ptrs[p], &ptrs[p + 1], (n_ptrs - p - 1) * sizeof ptrs[0]);
        n_ptrs--;   /* p now names the next pointer */
    }
    if (n_sites == 0)
        elem_stride = 0;
    const long S = elem_stride ? elem_stride : 1;
    if ((why = strided_problem(sites, n_sites, ptrs, n_ptrs, top, S, width, sh.idx, why_buf,
                               sizeof why_buf)))
        goto na;
    /* an alias used only in the subscripts replaced is left out of the lanes (the scalar
     * loops keep it); the index is declared per lane when anything else still uses it */
    for (size_t a = 0; a < n_als; a++) {
        const rw_tok *nt = &ts.t[als[a].name_tok];
        als[a].drop = true;
        for (size_t q = als[a].decl_b; q < ib && als[a].drop; q++)
            if (!in_site[q] && tok_eq(&ts, q, text + nt->start, nt->end - nt->start))
                als[a].drop = false;
    }
    for (size_t k = ia; k < ib && !idx_other_use; k++) {
        if (in_site[k] || !rwl_tok_is_ident(&ts, k, sh.idx) || tok_member_or_scope(&ts, k))
            continue;
        bool dropped = false;
        for (size_t a = 0; a < n_als && !dropped; a++)
            dropped = als[a].drop && k >= als[a].decl_a && k < als[a].decl_b;
        idx_other_use = !dropped;
    }
    bool any_written = false;
    for (size_t p = 0; p < n_ptrs; p++)
        any_written |= ptrs[p].written;
    if (!any_written) {
        why = EN(RW_MEM_NO_WRITE);
        goto na;
    }
    /* vector types */
    for (size_t p = 0; p < n_ptrs; p++) {
        if ((rc = vec_type_of(text, len, &ptrs[p], width, rw_template_arg_of(f, ptrs[p].elem, targs, n_targs),
                              &why_alloc)))
            goto out;
        if (why_alloc)
            goto na_alloc;
    }
    /* the vectors' names: none may be one the form declares, nor another's */
    for (size_t p = 0; p < n_ptrs; p++) {
        static const char *const fixed[] = {"hk_start", "hk_stride", "hk_n", "hk_v", "hk_nv"};
        int n = snprintf(ptrs[p].vname, sizeof ptrs[p].vname, "hk_%s", ptrs[p].name);
        if (n < 0 || (size_t)n >= sizeof ptrs[p].vname - 2) {
            why = EN(RW_MEM_NAME_TOO_LONG);
            goto na;
        }
        for (bool taken = true; taken;) {
            taken = false;
            char e[sizeof ptrs[p].vname + 2];
            snprintf(e, sizeof e, "%s_e", ptrs[p].vname);
            for (size_t i = 0; i < HK_ARRAY_LEN(fixed) && !taken; i++)
                taken = !strcmp(ptrs[p].vname, fixed[i]) || !strcmp(e, fixed[i]);
            for (size_t q = 0; q < p && !taken; q++) {
                char qe[sizeof ptrs[q].vname + 2];
                snprintf(qe, sizeof qe, "%s_e", ptrs[q].vname);
                taken = !strcmp(ptrs[p].vname, ptrs[q].vname) || !strcmp(ptrs[p].vname, qe) ||
                        !strcmp(e, ptrs[q].vname);
            }
            if (taken && (size_t)n + 1 >= sizeof ptrs[p].vname - 2) {
                why = EN(RW_MEM_NAME_TOO_LONG);
                goto na;
            }
            if (taken)
                ptrs[p].vname[n++] = '_', ptrs[p].vname[n] = '\0';
        }
    }
    /* the names the vector form declares must not hide ones the per-element code or the
     * bound uses (a prologue's, say) */
    for (size_t k = ia; k < ib || (k >= ib && k - ib < sh.bb - sh.ba); k++) {
        size_t q = k < ib ? k : sh.ba + (k - ib);
        if (ts.t[q].kind != T_IDENT || ts.t[q].end - ts.t[q].start < 4 ||
            memcmp(text + ts.t[q].start, "hk_", 3) != 0)
            continue;
        static const char *const fixed[] = {"hk_start", "hk_stride", "hk_n", "hk_v", "hk_nv"};
        bool clash = false;
        for (size_t i = 0; i < HK_ARRAY_LEN(fixed) && !clash; i++)
            clash = rwl_tok_is_ident(&ts, q, fixed[i]);
        for (size_t p = 0; p < n_ptrs && !clash; p++) {
            char nm[sizeof ptrs[p].vname + 2];
            snprintf(nm, sizeof nm, "%s_e", ptrs[p].vname);
            clash = rwl_tok_is_ident(&ts, q, ptrs[p].vname) || rwl_tok_is_ident(&ts, q, nm);
        }
        if (clash) {
            why_alloc = hk_asprintf(EN(RW_MEM_NAME_CLASH),
                                    (int)(ts.t[q].end - ts.t[q].start), text + ts.t[q].start);
            goto na_alloc;
        }
    }
    /* a read of p after a write of q in the same element: stale if they alias */
    for (size_t w = 0; w < n_sites; w++) {
        if (!sites[w].write)
            continue;
        for (size_t r = 0; r < n_sites; r++) {
            const vec_ptr *pw = &ptrs[sites[w].ptr], *pr = &ptrs[sites[r].ptr];
            if (!sites[r].read || sites[r].ptr == sites[w].ptr || sites[r].tok <= sites[w].stmt_end)
                continue;
            if (strcmp(pw->elem, pr->elem) != 0 && pw->ve != pr->ve)
                continue;   /* float and its typedef floatX may alias; float and int may not */
            if (f->params[pw->param].is_restrict || f->params[pr->param].is_restrict)
                continue;
            if ((rc = noalias_term(&noalias, pw->name, pr->name)))
                goto out;
        }
        /* the same for a read at the thread's index left a scalar load */
        for (size_t g = 0; g < n_gathers; g++) {
            const vec_ptr *pw = &ptrs[sites[w].ptr];
            const an_param *gp = &f->params[gathers[g].param];
            const char *ge = gp->elem_type ? gp->elem_type : "";
            if (!gathers[g].own || gathers[g].tok <= sites[w].stmt_end || gathers[g].param == pw->param ||
                (strcmp(pw->elem, ge) != 0 && vec_elem_of(ge) != pw->ve) ||
                f->params[pw->param].is_restrict || gp->is_restrict)
                continue;
            if ((rc = noalias_term(&noalias, pw->name, gp->name)))
                goto out;
        }
    }
    /* A read at another index of a pointer that aliases a written one would read an element
     * another thread of the original writes (a race there) unless that element is the
     * thread's own, which a kernel spells p[i]: so only a launch of the file that passes
     * both the same pointer refuses. */
    for (size_t g = 0; g < n_gathers; g++) {
        bool again = false;
        for (size_t h = 0; h < g && !again; h++)
            again = gathers[h].param == gathers[g].param;
        if (again)
            continue;
        if ((rc = hk_buf_printf(&gnames, "%s%s", gnames.len ? ", " : "", f->params[gathers[g].param].name)))
            goto out;
        for (size_t p = 0; p < n_ptrs; p++)
            if (ptrs[p].written && launch_aliases(m, f, gathers[g].param, ptrs[p].param)) {
                why_alloc = hk_asprintf(EN(RW_MEM_LAUNCH_ALIAS),
                                        f->params[gathers[g].param].name, ptrs[p].name);
                goto na_alloc;
            }
    }

    /* ---- the new code ---- */
    char ind[64];
    line_indent(text, ts.t[sh.region].start, ind, sizeof ind);
    const char *T = sh.type;
    bool plain = !strcmp(T, "int") || !strcmp(T, "unsigned") || !strcmp(T, "unsigned int") ||
                 !strcmp(T, "auto");
    char stride[160];
    /* every thread of the grid once: over a 2-D grid of 1-D blocks the rows too */
    snprintf(stride, sizeof stride, "%s%s%sgridDim.x * %sblockDim.x", plain ? "" : "(",
             plain ? "" : T, plain ? "" : ")", sh.grid_y ? "gridDim.y * " : "");
    /* without a bounds check the grid's threads are the elements: the bound is the stride */
    if (!(bound = sh.whole_grid ? hk_strdup(stride) : rwl_tok_text(&ts, sh.ba, sh.bb))) {
        rc = HK_ENOMEM;
        goto out;
    }
    const char *first_vt = ptrs[0].vtype;
    for (size_t p = 0; p < n_ptrs; p++)
        if (!ptrs[p].carrier)
            first_vt = ptrs[p].vtype;
    for (size_t p = 0; p < n_ptrs; p++)
        if ((rc = hk_buf_printf(&names, "%s%s", p ? ", " : "", ptrs[p].name)))
            goto out;
    if (sh.hoist_b > sh.hoist_a)
        rc = hk_buf_printf(&b, "%.*s\n%s", (int)(ts.t[sh.hoist_b - 1].end - ts.t[sh.hoist_a].start),
                           text + ts.t[sh.hoist_a].start, ind);
    if (rc)
        goto out;
    const int per = width / (int)S;   /* indices per vector */
    if (S > 1)
        rc = hk_buf_printf(&b, "// hk vectorize: %d-wide loads/stores (%s), %d %s of %ld elements each,\n" /* i18n: not for people */
                               "%s// over a grid-stride loop, a scalar tail, and the scalar loop when a\n"
                               "%s// pointer is not aligned to its vector\n%s",
                           width, first_vt, per, per == 1 ? "index" : "indices", S, ind, ind, ind);
    else
        rc = hk_buf_printf(&b, "// hk vectorize: %d-wide loads/stores (%s) over a grid-stride loop, a " /* i18n: not for people */
                               "scalar tail, and the\n%s// scalar loop when a pointer is not aligned "
                               "to its vector\n%s", width, first_vt, ind, ind);
    if (!rc)
        rc = hk_buf_printf(&b, "{\n");
    for (size_t p = 0; p < n_ptrs && !rc; p++) {
        bool again = false;   /* one assert per type */
        for (size_t q = 0; q < p && !again; q++)
            again = ptrs[q].by_branch && strcmp(ptrs[q].elem, ptrs[p].elem) == 0;
        if (ptrs[p].by_branch && !again)
            rc = hk_buf_printf(&b, "%s    static_assert(sizeof(%s) == %d, \"hk vectorize: %s was read as its " /* i18n: not for people */
                                   "#if branch's %s\");\n", ind, ptrs[p].elem, ptrs[p].ve->size,
                               ptrs[p].elem, ptrs[p].ve->names[0]);
    }
    if (!rc)
        rc = hk_buf_printf(&b,
        "%s    const %s hk_start = %s;\n" /* i18n: not for people */
        "%s    const %s hk_stride = %s;\n"
        "%s    const auto hk_n = %s;\n"
        "%s    if (",
        ind, T, sh.init, ind, T, stride, ind, bound, ind);
    size_t terms = 0;   /* a template type of another size than the spec's: the scalar loop */
    for (size_t p = 0; p < n_ptrs && !rc; p++) {
        bool again = false;
        for (size_t q = 0; q < p && !again; q++)
            again = ptrs[q].by_template && strcmp(ptrs[q].elem, ptrs[p].elem) == 0;
        if (ptrs[p].by_template && !again)
            rc = hk_buf_printf(&b, "%s%s%ssizeof(%s) == %d", terms ? " &&\n" : "", terms ? ind : "",
                               terms ? "        " : "", ptrs[p].elem, ptrs[p].ve->size);
        terms += ptrs[p].by_template && !again;
    }
    for (size_t p = 0; p < n_ptrs && !rc; p++, terms++)
        rc = hk_buf_printf(&b, "%s%s%sreinterpret_cast<unsigned long long>(%s) %% %d == 0", /* i18n: not for people */
                           terms ? " &&\n" : "", terms ? ind : "", terms ? "        " : "", ptrs[p].name,
                           ptrs[p].vbytes);
    /* an in-place call (a written pointer passed again as one read after the write) takes
     * the scalar loop, which reads what the element's own write left, as the original does */
    for (size_t k = 0, a = 0; k <= noalias.len && !rc; k++) {
        if (k < noalias.len && noalias.data[k] != '\n')
            continue;
        if (k > a)
            rc = hk_buf_printf(&b, " &&\n%s        %.*s", ind, (int)(k - a), noalias.data + a);
        a = k + 1;
    }
    if (rc)
        goto out;
    /* continuation lines of the alignment test line up under the first */
    rc = hk_buf_printf(&b, ") {\n%s        const auto hk_nv = hk_n / %d;\n" /* i18n: not for people */
                           "%s        for (%s hk_v = hk_start; hk_v < hk_nv; hk_v += hk_stride) {\n",
                       ind, per, ind, T);
    for (size_t p = 0; p < n_ptrs && !rc; p++) {
        const vec_ptr *vp = &ptrs[p];
        bool load = !vp->store_only;
        if (load)
            rc = hk_buf_printf(&b, "%s            %s%s %s = reinterpret_cast<const %s *>(%s)[hk_v];\n",
                               ind, vp->written ? "" : "const ", vp->vtype, vp->vname, vp->vtype,
                               vp->name);
        else
            rc = hk_buf_printf(&b, "%s            %s %s;\n", ind, vp->vtype, vp->vname);
        if (!rc && vp->carrier)
            rc = hk_buf_printf(&b, "%s            %s%s *%s_e = reinterpret_cast<%s%s *>(&%s);\n",
                               ind, vp->written ? "" : "const ", vp->elem, vp->vname,
                               vp->written ? "" : "const ", vp->elem, vp->vname);
    }
    uint32_t from = ts.t[ia].start, to = ts.t[ib - 1].end;
    /* the lanes' cuts in text order: the accesses, and the aliases left out (with their
     * line when they stand alone on it) */
    vec_cut cuts[VEC_MAX_SITES + VEC_MAX_ALIASES];
    size_t n_cuts = 0;
    for (size_t t = 0; t < n_sites; t++)
        cuts[n_cuts++] = (vec_cut){ts.t[sites[t].tok].start, ts.t[sites[t].close].end, (long)t};
    for (size_t a = 0; a < n_als; a++) {
        if (!als[a].drop)
            continue;
        uint32_t ca = ts.t[als[a].decl_a].start, cb = ts.t[als[a].decl_b - 1].end;
        uint32_t la = ca;
        while (la > 0 && (text[la - 1] == ' ' || text[la - 1] == '\t'))
            la--;
        uint32_t lb = cb;
        while (lb < to && (text[lb] == ' ' || text[lb] == '\t' || text[lb] == '\r'))
            lb++;
        if (ca == from) {           /* the first statement: the lane starts at the next one */
            while (lb < to && isspace((unsigned char)text[lb]))
                lb++;
            cb = lb;
        } else if (la > from && text[la - 1] == '\n' && lb < to && text[lb] == '\n') {
            ca = la - 1;   /* its line from the newline before: the next line keeps its shift */
            cb = lb;
        }
        cuts[n_cuts++] = (vec_cut){ca, cb, -1};
    }
    for (size_t c = 1; c < n_cuts; c++)   /* insertion sort by position */
        for (size_t d = c; d > 0 && cuts[d - 1].a > cuts[d].a; d--) {
            vec_cut tmp = cuts[d];
            cuts[d] = cuts[d - 1];
            cuts[d - 1] = tmp;
        }
    for (int l = 0; l < per && !rc; l++) {
        if (idx_other_use)
            rc = hk_buf_printf(&b, "%s            {\n%s                const %s %s = hk_v * %d + %d;\n"
                                   "%s                ", ind, ind, T, sh.idx, per, l, ind);
        else
            rc = hk_buf_printf(&b, "%s            {\n%s                ", ind, ind);
        if (!rc)
            rc = append_lane(&b, &ts, from, to, cuts, n_cuts, sites, ptrs, S, l,
                             ia > sh.body_a ? 12 : 16);
        if (!rc)
            rc = hk_buf_printf(&b, "\n%s            }\n", ind);
    }
    for (size_t p = 0; p < n_ptrs && !rc; p++)
        if (ptrs[p].written)
            rc = hk_buf_printf(&b, "%s            reinterpret_cast<%s *>(%s)[hk_v] = %s;\n", ind,
                               ptrs[p].vtype, ptrs[p].name, ptrs[p].vname);
    if (rc)
        goto out;
    /* the scalar loops run the original per-element code as written */
    char start_tail[64];
    snprintf(start_tail, sizeof start_tail, "hk_nv * %d + hk_start", per);
    if ((rc = hk_buf_printf(&b, "%s        }\n", ind)) ||
        (rc = append_scalar_loop(&b, &ts, &sh, ind, start_tail)) ||
        (rc = hk_buf_printf(&b, "%s    } else {\n", ind)) ||
        (rc = append_scalar_loop(&b, &ts, &sh, ind, "hk_start")) ||
        (rc = hk_buf_printf(&b, "%s    }\n%s}", ind, ind)))
        goto out;
    char *repl = hk_buf_steal(&b);
    if ((rc = rwl_edits_add_owned(&es, sh.repl_start, sh.repl_end, repl)))
        goto out;
    char *desc, gather_note[800] = "";
    size_t gl = 0;
    if (n_gathers)
        gl = (size_t)snprintf(gather_note, sizeof gather_note, EN(RW_MEM_GATHER_NOTE),
                              gnames.data);
    for (size_t p = 0; p < n_ptrs && gl < sizeof gather_note; p++)
        if (ptrs[p].by_template) {
            gl += (size_t)snprintf(gather_note + gl, sizeof gather_note - gl, EN(RW_MEM_TEMPLATE_NOTE), ptrs[p].elem,
                                   ptrs[p].ve->names[0], ptrs[p].elem, ptrs[p].ve->size);
            break;
        }
    if (S > 1 || sh.prologue) {
        /* one sentence per plural of index and with or without a prologue */
        static const enum hk_msg dm[2][2] = {{HK_MSG_RW_MEM_DESC_INDEX, HK_MSG_RW_MEM_DESC_INDEX_PROLOGUE},
                                             {HK_MSG_RW_MEM_DESC_INDICES, HK_MSG_RW_MEM_DESC_INDICES_PROLOGUE}};
        desc = hk_asprintf(hk_tr_in(HK_LANG_EN, dm[per != 1][sh.prologue != 0]), f->name, width, names.data, per, S,
                           sh.form, gather_note);
    } else
        desc = hk_asprintf(EN(RW_MEM_DESC), f->name, width, names.data, sh.form, gather_note);
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    if (rc == HK_OK && out->applicable)
        out->keeps_grid = sh.whole_grid;   /* its bound is the grid: no other grid */
    goto out;
na_or_fail:
    if (rc)
        goto out;
    goto na;
na_alloc:
    if (!why_alloc) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "vectorize", f->name, why_alloc));
    goto out;
na:
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "vectorize", f->name, why));
out:
    hk_free(top);
    hk_free(in_site);
    hk_free(why_alloc);
    hk_free(bound);
    km_free(km);
    hk_buf_free(&b);
    hk_buf_free(&names);
    hk_buf_free(&gnames);
    hk_buf_free(&noalias);
    vec_shape_free(&sh);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ------------------------------------------------ vectorize: a 1D loop macro expanded */

/* The body of the one `#define name(p0, p1) for (...)` in the file, continuations blanked,
 * in a new string (*params: its two parameter names), or NULL: no such macro, more than
 * one definition, an #undef, other than two parameters, or # / ## in the body. */
static char *loop_macro_body(const char *text, size_t len, const char *name, char params[2][64],
                              int *rc)
{
    size_t nl = strlen(name);
    char *body = NULL;
    int defs = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '#' || (i > 0 && text[i - 1] != '\n' && !isspace((unsigned char)text[i - 1])))
            continue;
        size_t j = i + 1;
        while (j < len && (text[j] == ' ' || text[j] == '\t'))
            j++;
        bool undef = len - j > 5 && memcmp(text + j, "undef", 5) == 0;
        if (!undef && !(len - j > 6 && memcmp(text + j, "define", 6) == 0))
            continue;
        j += undef ? 5 : 6;
        while (j < len && (text[j] == ' ' || text[j] == '\t'))
            j++;
        if (len - j <= nl || memcmp(text + j, name, nl) != 0 ||
            isalnum((unsigned char)text[j + nl]) || text[j + nl] == '_')
            continue;
        if (undef || ++defs > 1 || text[j + nl] != '(') {
            hk_free(body);
            return NULL;
        }
        size_t e = j;   /* end of the logical line */
        while (e < len && text[e] != '\n')
            e += text[e] == '\\' && e + 1 < len && text[e + 1] == '\n' ? 2 : 1;
        if (!(body = hk_malloc(e - j + 1))) {
            *rc = HK_ENOMEM;
            return NULL;
        }
        memcpy(body, text + j, e - j);
        body[e - j] = '\0';
        for (char *c = body; *c; c++)
            if (c[0] == '\\' && c[1] == '\n')
                c[0] = c[1] = ' ';
    }
    if (!body)
        return NULL;
    /* "name(p0, p1) body": the parameters, then the body from after ')' */
    char *open = body + nl, *close = strchr(open, ')');
    int used = -1;
    if (!close || strchr(close, '#') ||
        sscanf(open, "( %63[A-Za-z0-9_] , %63[A-Za-z0-9_] )%n", params[0], params[1], &used) != 2 ||
        open + used != close + 1) {
        hk_free(body);
        return NULL;
    }
    memmove(body, close + 1, strlen(close + 1) + 1);
    return body;
}

/* The expansion of `name(args)` (tokens [k, close]) by the macro body: parameters
 * replaced by the arguments' text, as the preprocessor does. NULL (rc 0) when the call
 * does not have two plain arguments or the body is not a `for (...)` header. */
static char *expand_loop_macro(const rw_toks *ts, size_t k, size_t close, const char *body,
                               char params[2][64], int *rc)
{
    size_t comma = 0;
    int depth = 0;
    for (size_t q = k + 2; q < close; q++) {
        depth += rwl_tok_is(ts, q, "(") - rwl_tok_is(ts, q, ")");
        if (depth == 0 && rwl_tok_is(ts, q, ",")) {
            if (comma)
                return NULL;
            comma = q;
        }
    }
    if (!comma || comma == k + 2 || comma + 1 == close)
        return NULL;
    rw_toks bt = {0};
    char *args[2] = {rwl_tok_text(ts, k + 2, comma), rwl_tok_text(ts, comma + 1, close)};
    struct hk_buf b;
    hk_buf_init(&b, RW_TEXT_MAX);
    char *res = NULL;
    if (!args[0] || !args[1] || (*rc = rwl_lex(body, 0, (uint32_t)strlen(body), &bt))) {
        *rc = *rc ? *rc : HK_ENOMEM;
        goto out;
    }
    if (bt.n < 2 || !rwl_tok_is_ident(&bt, 0, "for") || rwl_match_close(&bt, 1) != bt.n - 1)
        goto out;
    for (size_t q = 0; q < bt.n && !*rc; q++) {
        const char *tx = body + bt.t[q].start;
        int l = (int)(bt.t[q].end - bt.t[q].start);
        for (int p = 0; p < 2 && bt.t[q].kind == T_IDENT; p++)
            if ((size_t)l == strlen(params[p]) && memcmp(tx, params[p], (size_t)l) == 0) {
                tx = args[p];
                l = (int)strlen(args[p]);
            }
        *rc = hk_buf_printf(&b, "%.*s ", l, tx);
    }
    if (!*rc && !(res = hk_buf_steal(&b)))
        *rc = HK_ENOMEM;
out:
    hk_buf_free(&b);
    rwl_toks_free(&bt);
    hk_free(args[0]);
    hk_free(args[1]);
    return res;
}

/* The text with the kernel's first top-level `MACRO(i, n) { ... }` replaced by the macro's
 * `for (...)` expansion (mmcv's CUDA_1D_KERNEL_LOOP), or NULL (rc 0) when there is none. */
static char *expand_kernel_loop_macro(const char *text, size_t len, const an_function *f,
                                      size_t *new_len, char **macro, int *rc)
{
    rw_toks ts = {0};
    char *res = NULL, *body = NULL, *exp = NULL;
    if ((*rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)) || ts.n < 2)
        goto out;
    for (size_t s = 1; s + 1 < ts.n; s = rwl_stmt_end(&ts, s, ts.n - 1)) {
        if (ts.t[s].kind != T_IDENT || !rwl_tok_is(&ts, s + 1, "(") || rwl_tok_is_ident(&ts, s, "for") ||
            rwl_tok_is_ident(&ts, s, "if") || rwl_tok_is_ident(&ts, s, "while") ||
            rwl_tok_is_ident(&ts, s, "switch"))
            continue;
        size_t close = rwl_match_close(&ts, s + 1);
        if (close + 1 >= ts.n || !rwl_tok_is(&ts, close + 1, "{"))
            continue;
        char params[2][64];
        if (!(*macro = rwl_tok_text(&ts, s, s + 1))) {
            *rc = HK_ENOMEM;
            goto out;
        }
        if (!(body = loop_macro_body(text, len, *macro, params, rc)) ||
            !(exp = expand_loop_macro(&ts, s, close, body, params, rc)))
            goto out;
        size_t a = ts.t[s].start, z = ts.t[close].end, xl = strlen(exp), el = xl;
        for (size_t c = a; c < z; c++)
            el += text[c] == '\n';   /* the call's line breaks kept after it: lines stay put */
        *new_len = len - (z - a) + el;
        if (!(res = hk_malloc(*new_len + 1))) {
            *rc = HK_ENOMEM;
            goto out;
        }
        memcpy(res, text, a);
        memcpy(res + a, exp, xl);
        memset(res + a + xl, '\n', el - xl);
        memcpy(res + a + el, text + z, len - z);
        res[*new_len] = '\0';
        goto out;
    }
out:
    hk_free(body);
    hk_free(exp);
    rwl_toks_free(&ts);
    return res;
}

/* The text with the kernel's top-level `T i = <1D index>; while (i < n) { ...;
 * i += gridDim.x * blockDim.x; }` written as the for loop it is (the step the last
 * statement, the index changed nowhere else, no continue: the two run the same steps), or
 * NULL (rc 0) when there is none. */
static char *while_as_for(const char *text, size_t len, const an_function *f, size_t *new_len, int *rc)
{
    rw_toks ts = {0};
    vec_shape sh;
    memset(&sh, 0, sizeof sh);
    struct hk_buf b;
    hk_buf_init(&b, RW_TEXT_MAX);
    char *res = NULL;
    if ((*rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)) || ts.n < 2)
        goto out;
    size_t end = ts.n - 1, d = 1, e = 0;
    for (; d < end; d = e) {
        e = rwl_stmt_end(&ts, d, end);
        vec_shape_free(&sh);
        memset(&sh, 0, sizeof sh);
        if (rwl_tok_is(&ts, e - 1, ";") && index_decl(&ts, d, e - 1, NULL, false, &sh, rc))
            break;
    }
    if (*rc || d >= end || !rwl_tok_is_ident(&ts, e, "while") || !rwl_tok_is(&ts, e + 1, "("))
        goto out;
    size_t cclose = rwl_match_close(&ts, e + 1), bopen = cclose + 1;
    if (cclose >= end || !rwl_tok_is(&ts, bopen, "{"))
        goto out;
    size_t bclose = rwl_match_close(&ts, bopen), last = bopen + 1;
    if (bclose >= end || last >= bclose)
        goto out;
    for (size_t q = last; q < bclose; q = rwl_stmt_end(&ts, q, bclose))
        last = q;
    char c[256];
    rwl_compact_index(&ts, last + 2, bclose - 1, c, sizeof c);
    if (!rwl_tok_is_ident(&ts, last, sh.idx) || !rwl_tok_is(&ts, last + 1, "+=") ||
        !rwl_tok_is(&ts, bclose - 1, ";") ||
        (strcmp(c, "gridDim.x*blockDim.x") != 0 && strcmp(c, "blockDim.x*gridDim.x") != 0))
        goto out;
    for (size_t q = e + 2; q < last; q++)
        if (rwl_tok_is_ident(&ts, q, "continue") ||
            (rwl_tok_is_ident(&ts, q, sh.idx) && !tok_member_or_scope(&ts, q) &&
             (rwl_tok_is_assign_op(&ts, q + 1) || rwl_tok_is(&ts, q + 1, "++") || rwl_tok_is(&ts, q + 1, "--") ||
              rwl_tok_is(&ts, q - 1, "++") || rwl_tok_is(&ts, q - 1, "--") || rwl_tok_is(&ts, q - 1, "&"))))
            goto out;
    const rw_tok *t = ts.t;
    *rc = hk_buf_printf(&b, "%.*sfor (%.*s; %.*s; %.*s) {%.*s}%.*s", (int)t[d].start, text,
                        (int)(t[e - 1].start - t[d].start), text + t[d].start,
                        (int)(t[cclose - 1].end - t[e + 2].start), text + t[e + 2].start,
                        (int)(t[bclose - 2].end - t[last].start), text + t[last].start,
                        (int)(t[last].start - t[bopen].end), text + t[bopen].end,
                        (int)(len - t[bclose].end), text + t[bclose].end);
    if (!*rc) {
        *new_len = b.len;
        if (!(res = hk_buf_steal(&b)))
            *rc = HK_ENOMEM;
    }
out:
    hk_buf_free(&b);
    vec_shape_free(&sh);
    rwl_toks_free(&ts);
    return res;
}

/* vectorize_once on ntext (the kernel normalised: `what` says how), into *out when that
 * applies or says more than the refusal of the spelling. Takes ntext. */
static int vectorize_normalised(char *ntext, size_t nlen, const char *name, int width, const char *const *targs,
                                size_t n_targs, const char *what, rw_result *out)
{
    an_model *nm = NULL;
    rw_result r2 = {0};
    int rc = an_analyze(ntext, nlen, &nm);
    if (rc) {
        rc = rc == HK_ENOMEM ? rc : HK_OK;   /* not read: the spelling's refusal stands */
        goto out;
    }
    long nk = an_model_find_kernel(nm, name);
    if (nk < 0 || (rc = vectorize_once(ntext, nlen, nm, (size_t)nk, width, targs, n_targs, &r2)))
        goto out;
    rc = rw_result_adopt(out, &r2, hk_asprintf("%s (%s)", r2.description, what));
out:
    rw_result_free(&r2);
    an_model_free(nm);
    hk_free(ntext);
    return rc;
}

int rw_vectorize(const char *text, size_t len, const an_model *m, size_t kernel, int width,
                 rw_result *out)
{
    return rw_vectorize_targs(text, len, m, kernel, width, NULL, 0, out);
}

int rw_vectorize_targs(const char *text, size_t len, const an_model *m, size_t kernel, int width,
                       const char *const *targs, size_t n_targs, rw_result *out)
{
    int rc = vectorize_once(text, len, m, kernel, width, targs, n_targs, out);
    if (rc || out->applicable)
        return rc;
    /* other spellings of the loop, normalised to the for loop the checks above read: a
     * loop macro's expansion (the preprocessor's own, so the code is the same), a while
     * loop written as the for loop it is */
    const an_function *f = &m->funcs[kernel];
    size_t nlen = 0;
    char *macro = NULL, *what = NULL;
    char *ntext = expand_kernel_loop_macro(text, len, f, &nlen, &macro, &rc);
    if (!rc && ntext) {
        if (!(what = hk_asprintf(EN(RW_MEM_MACRO_EXPANDED), macro))) {
            rc = HK_ENOMEM;
        } else {
            rc = vectorize_normalised(ntext, nlen, f->name, width, targs, n_targs, what, out);
            ntext = NULL;   /* taken */
        }
    } else if (!rc && (ntext = while_as_for(text, len, f, &nlen, &rc))) {
        rc = vectorize_normalised(ntext, nlen, f->name, width, targs, n_targs,
                                  EN(RW_MEM_WHILE_AS_FOR), out);
        ntext = NULL;
    }
    hk_free(ntext);
    hk_free(what);
    hk_free(macro);
    return rc;
}

/* ------------------------------------------------------------------ read-only loads */

/* Element types __ldg has an overload for (sm_35 and later; the 16-bit ones through
 * cuda_fp16.h / cuda_bf16.h, which a kernel using them includes). */
static const char *const ldg_types[] = {
    "char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned",
    "unsigned int", "long", "unsigned long", "long long", "unsigned long long", "float", "double", /* i18n: not for people */
    "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
    "size_t", "char2", "char4", "uchar2", "uchar4", "short2", "short4", "ushort2", "ushort4",
    "int2", "int4", "uint2", "uint4", "longlong2", "ulonglong2", "float2", "float4", "double2",
    "__half", "half", "__half2", "half2", "__nv_bfloat16", "nv_bfloat16", "__nv_bfloat162",
    "nv_bfloat162"};

static bool ldg_type(const char *t)
{
    for (size_t i = 0; t && i < HK_ARRAY_LEN(ldg_types); i++)
        if (strcmp(t, ldg_types[i]) == 0)
            return true;
    return false;
}

/* Does every `typedef`/`using` of name in the file (whichever #if branch a build takes:
 * llm.c's floatX is bf16, half or float, each with an __ldg overload) name a type __ldg
 * has an overload for, followed through up to depth typedefs? False when there is none. */
static bool typedef_ldg(const rw_toks *ts, const char *name, int depth)
{
    char spelled[64];
    bool simple, any = false;
    for (size_t k = 0; depth > 0 && typedef_next(ts, &k, name, spelled, sizeof spelled, &simple); k++) {
        if (!*spelled || !(ldg_type(spelled) || (simple && typedef_ldg(ts, spelled, depth - 1))))
            return false;
        any = true;
    }
    return any;
}

/* An element type __ldg takes: a builtin spelling, or a typedef of the file that is one
 * in every branch (typedef_ldg). *rc: HK_ENOMEM. */
static bool ldg_elem(const char *text, size_t len, const char *elem, int *rc)
{
    if (ldg_type(elem))
        return true;
    if (!elem || !*elem)
        return false;
    rw_toks all = {0};
    bool ok = !(*rc = rwl_lex(text, 0, (uint32_t)len, &all)) && typedef_ldg(&all, elem, 4);
    rwl_toks_free(&all);
    return ok;
}

/* Is the occurrence at k already inside __ldg(&p...) or __ldg(p...)? */
static bool in_ldg(const rw_toks *ts, size_t k)
{
    if (k >= 3 && rwl_tok_is(ts, k - 1, "&") && rwl_tok_is(ts, k - 2, "(") && rwl_tok_is_ident(ts, k - 3, "__ldg"))
        return true;
    return k >= 2 && rwl_tok_is(ts, k - 1, "(") && rwl_tok_is_ident(ts, k - 2, "__ldg");
}

/* Does a launch of f in the file pass param a's expression to param b as well? */
static bool launch_aliases(const an_model *m, const an_function *f, size_t a, size_t b)
{
    for (size_t l = 0; l < m->n_launches; l++) {
        const an_launch *la = &m->launches[l];
        if (!la->kernel || la->form == AN_LAUNCH_CUDA_API || la->n_args != f->n_params)
            continue;
        const char *short_name = strrchr(la->kernel, ':');
        short_name = short_name ? short_name + 1 : la->kernel;
        if (strcmp(short_name, f->name) != 0)
            continue;
        char x[512], y[512];
        rwl_squeeze(la->args[a], x, sizeof x);
        rwl_squeeze(la->args[b], y, sizeof y);
        if (strcmp(x, y) == 0)
            return true;
    }
    return false;
}

int rw_readonly_loads(const char *text, size_t len, const an_model *m, size_t kernel,
                      bool hip_target, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (hip_target)
        return rwl_not_applicable_to(out, "read-only loads", f->name, HK_MSG_RW_LDG_AMD);
    rw_toks ts = {0};
    rw_edits es = {0};
    struct hk_buf done, skipped;
    hk_buf_init(&done, 4096);
    hk_buf_init(&skipped, 4096);
    bool *written = NULL;
    size_t already = 0;
    if (!(written = hk_calloc(f->n_params + 1, sizeof *written))) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    /* which pointers are written (or escape): a __ldg(&p[..]) is a read, not an escape */
    for (size_t k = 0; k < ts.n; k++) {
        long p = param_named(f, &ts, k);
        if (p < 0 || f->params[p].pointer_depth < 1 || tok_member_or_scope(&ts, k) || in_ldg(&ts, k))
            continue;
        /* `p += off;` moves the pointer, the memory stays read-only (issue 13) */
        if (rwl_pointer_move(&ts, k))
            continue;
        if (rwl_occurrence_writes(&ts, k))
            written[p] = true;
    }
    for (size_t p = 0; p < f->n_params; p++) {
        const an_param *pp = &f->params[p];
        if (pp->pointer_depth != 1 || !pp->name || !*pp->name)
            continue;
        bool ldg = ldg_elem(text, len, pp->elem_type, &rc);
        if (rc)
            goto out;
        if (!ldg) {
            if ((rc = hk_buf_printf(&skipped, "%s%s (element type %s)", skipped.len ? ", " : "",
                                    pp->name, pp->elem_type ? pp->elem_type : "?")))
                goto out;
            continue;
        }
        if (written[p]) {
            if ((rc = hk_buf_printf(&skipped, EN(RW_LDG_SKIP_WRITTEN), skipped.len ? ", " : "",
                                    pp->name)))
                goto out;
            continue;
        }
        long alias = -1;
        for (size_t q = 0; q < f->n_params && alias < 0; q++)
            if (written[q] && launch_aliases(m, f, p, q))
                alias = (long)q;
        if (alias >= 0) {
            if ((rc = hk_buf_printf(&skipped, EN(RW_LDG_SKIP_ALIAS),
                                    skipped.len ? ", " : "", pp->name, f->params[alias].name)))
                goto out;
            continue;
        }
        size_t n = 0;
        for (size_t k = 0; k < ts.n; k++) {
            if (!tok_eq(&ts, k, pp->name, strlen(pp->name)) || ts.t[k].kind != T_IDENT ||
                tok_member_or_scope(&ts, k))
                continue;
            if (in_ldg(&ts, k)) {
                already++;
                continue;
            }
            if (rwl_tok_is(&ts, k + 1, "[")) {
                size_t close = rwl_match_close(&ts, k + 1);
                if (close >= ts.n)
                    continue;
                if ((rc = rwl_edits_add(&es, ts.t[k].start, ts.t[k].start, "__ldg(&")) ||
                    (rc = rwl_edits_add(&es, ts.t[close].end, ts.t[close].end, ")")))
                    goto out;
                n++;
            } else if (k > 0 && rwl_tok_is(&ts, k - 1, "*") && rwl_unary_position(&ts, k - 1)) {
                if ((rc = rwl_edits_add(&es, ts.t[k - 1].start, ts.t[k - 1].end, "__ldg(")) ||
                    (rc = rwl_edits_add(&es, ts.t[k].end, ts.t[k].end, ")")))
                    goto out;
                n++;
            }
        }
        if (n && (rc = hk_buf_printf(&done, "%s%s (%zu)", done.len ? ", " : "", pp->name, n)))
            goto out;
    }
    if (es.n == 0) {
        if (already)
            rc = rwl_not_applicable(out, skipped.len ? hk_asprintf(EN(RW_LDG_ALREADY_SKIPPED), f->name, skipped.data)
                                                     : hk_asprintf(EN(RW_LDG_ALREADY), f->name));
        else
            rc = skipped.len ? rwl_not_applicable_to(out, "read-only loads", f->name, HK_MSG_RW_LDG_NONE_SKIPPED,
                                                     skipped.data)
                             : rwl_not_applicable_to(out, "read-only loads", f->name, HK_MSG_RW_LDG_NONE);
        goto out;
    }
    char *desc = skipped.len ? hk_asprintf(EN(RW_LDG_DESC_SKIPPED), f->name, done.data, skipped.data)
                             : hk_asprintf(EN(RW_LDG_DESC), f->name, done.data);
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
out:
    hk_free(written);
    hk_buf_free(&done);
    hk_buf_free(&skipped);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ------------------------------------------------------------------ unroll */

/* Has the line above the one holding byte pos (blank lines skipped) an unroll pragma, and is
 * pos the first token of its line? */
static bool pragma_above(const char *text, uint32_t pos, bool *first_on_line)
{
    uint32_t p = pos;
    while (p > 0 && (text[p - 1] == ' ' || text[p - 1] == '\t'))
        p--;
    *first_on_line = p == 0 || text[p - 1] == '\n';
    if (!*first_on_line)
        return false;
    while (p > 0) {
        uint32_t le = p - 1;   /* the '\n' ending the previous line */
        uint32_t ls = le;
        while (ls > 0 && text[ls - 1] != '\n')
            ls--;
        uint32_t q = ls;
        while (q < le && (text[q] == ' ' || text[q] == '\t' || text[q] == '\r'))
            q++;
        if (q == le) {   /* blank line */
            p = ls;
            continue;
        }
        if (le - q < 7 || memcmp(text + q, "#pragma", 7) != 0)
            return false;
        for (uint32_t r = q + 7; r + 6 <= le; r++)
            if (memcmp(text + r, "unroll", 6) == 0 || memcmp(text + r, "nounroll", 8) == 0)
                return true;
        return false;
    }
    return false;
}

/* Are tokens [a, b) a compile-time integer expression (literals, tunables, the kernel's
 * template parameters, arithmetic)? */
static bool constant_expr(const rw_toks *ts, size_t a, size_t b, const an_model *m, size_t kernel)
{
    if (a >= b)
        return false;
    for (size_t k = a; k < b; k++) {
        const rw_tok *t = &ts->t[k];
        if (t->kind == T_NUMBER) {
            for (uint32_t q = t->start; q < t->end; q++)
                if (ts->text[q] == '.' || ((ts->text[q] == 'e' || ts->text[q] == 'E') &&
                                           !(t->end - t->start > 1 && ts->text[t->start + 1] == 'x')))
                    return false;
            continue;
        }
        if (t->kind == T_IDENT) {
            bool known = false;
            for (size_t i = 0; i < m->n_tunables && !known; i++) {
                const an_tunable *tu = &m->tunables[i];
                if (!tok_eq(ts, k, tu->name, strlen(tu->name)))
                    continue;
                known = tu->kind == AN_TUNE_TEMPLATE ? tu->owner == (long)kernel
                                                     : tu->owner < 0 || tu->owner == (long)kernel;
            }
            if (!known)
                return false;
            continue;
        }
        static const char *const ops[] = {"+", "-", "*", "/", "%", "(", ")", "<<", ">>"};
        bool op = false;
        for (size_t i = 0; i < HK_ARRAY_LEN(ops) && !op; i++)
            op = rwl_tok_is(ts, k, ops[i]);
        if (!op)
            return false;
    }
    return true;
}

/* Does the for-loop whose header is tokens (open, close) have a constant trip count? */
static bool constant_trip(const rw_toks *ts, size_t open, size_t close, const an_model *m, size_t kernel)
{
    size_t semi[2], ns = 0;
    int depth = 0;
    for (size_t k = open + 1; k < close; k++) {
        if (rwl_tok_is(ts, k, "("))
            depth++;
        else if (rwl_tok_is(ts, k, ")"))
            depth--;
        else if (depth == 0 && rwl_tok_is(ts, k, ";") && ns < 2)
            semi[ns++] = k;
    }
    if (ns != 2)
        return false;
    /* init: [const] [type words] v = A */
    size_t k = open + 1;
    while (k < semi[0] && (rwl_is_type_word(ts, k) || rwl_tok_is_ident(ts, k, "const")))
        k++;
    if (k + 2 > semi[0] || ts->t[k].kind != T_IDENT || !rwl_tok_is(ts, k + 1, "="))
        return false;
    size_t v = k;
    size_t vl = ts->t[v].end - ts->t[v].start;
    const char *vs = ts->text + ts->t[v].start;
    if (!constant_expr(ts, k + 2, semi[0], m, kernel))
        return false;
    /* condition: v OP B */
    size_t c = semi[0] + 1;
    if (!tok_eq(ts, c, vs, vl) ||
        !(rwl_tok_is(ts, c + 1, "<") || rwl_tok_is(ts, c + 1, "<=") || rwl_tok_is(ts, c + 1, ">") ||
          rwl_tok_is(ts, c + 1, ">=") || rwl_tok_is(ts, c + 1, "!=")) ||
        !constant_expr(ts, c + 2, semi[1], m, kernel))
        return false;
    /* step: v++, ++v, v--, --v, v += C, v -= C, v *= C */
    size_t s = semi[1] + 1;
    if (s + 2 == close && tok_eq(ts, s, vs, vl) && (rwl_tok_is(ts, s + 1, "++") || rwl_tok_is(ts, s + 1, "--")))
        return true;
    if (s + 2 == close && tok_eq(ts, s + 1, vs, vl) && (rwl_tok_is(ts, s, "++") || rwl_tok_is(ts, s, "--")))
        return true;
    return tok_eq(ts, s, vs, vl) &&
           (rwl_tok_is(ts, s + 1, "+=") || rwl_tok_is(ts, s + 1, "-=") || rwl_tok_is(ts, s + 1, "*=")) &&
           constant_expr(ts, s + 2, close, m, kernel);
}

int rw_unroll(const char *text, size_t len, const an_model *m, size_t kernel, int factor,
              rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (factor != 0 && (factor < 2 || factor > 64))
        return HK_EINVAL;
    rw_toks ts = {0};
    rw_edits es = {0};
    struct hk_buf lines, had, notconst;
    hk_buf_init(&lines, 4096);
    hk_buf_init(&had, 4096);
    hk_buf_init(&notconst, 4096);
    size_t n_for = 0;
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    size_t end = ts.n ? ts.n - 1 : 0;
    char pragma[40];
    if (factor)
        snprintf(pragma, sizeof pragma, "#pragma unroll %d", factor);
    else
        snprintf(pragma, sizeof pragma, "#pragma unroll");
    for (size_t k = 0; k < end; k++) {
        if (!rwl_tok_is_ident(&ts, k, "for") || !rwl_tok_is(&ts, k + 1, "("))
            continue;
        size_t close = rwl_match_close(&ts, k + 1);
        if (close >= end)
            continue;
        size_t body_end = rwl_stmt_end(&ts, close + 1, end);
        bool inner = true;
        for (size_t q = close + 1; q < body_end && inner; q++)
            inner = !(rwl_tok_is_ident(&ts, q, "for") || rwl_tok_is_ident(&ts, q, "while") ||
                      rwl_tok_is_ident(&ts, q, "do"));
        if (!inner)
            continue;
        n_for++;
        unsigned line = rwl_line_at(text, ts.t[k].start);
        bool first;
        if (pragma_above(text, ts.t[k].start, &first)) {
            if ((rc = hk_buf_printf(&had, "%s%u", had.len ? ", " : "", line)))
                goto out;
            continue;
        }
        if (factor == 0 && !constant_trip(&ts, k + 1, close, m, kernel)) {
            if ((rc = hk_buf_printf(&notconst, "%s%u", notconst.len ? ", " : "", line)))
                goto out;
            continue;
        }
        char ind[64];
        line_indent(text, ts.t[k].start, ind, sizeof ind);
        /* the loop as the lone statement of an if/else/while (`if (c) for ...`): a pragma
         * there is not a statement, so the loop gets braces around it and its pragma */
        bool lone = k > 0 && !rwl_tok_is(&ts, k - 1, ";") && !rwl_tok_is(&ts, k - 1, "{") &&
                    !rwl_tok_is(&ts, k - 1, "}") && !rwl_tok_is(&ts, k - 1, ":");
        char *ins;
        if (lone)
            ins = hk_asprintf("{\n%s%s\n%s", ind, pragma, ind);
        else if (first)
            ins = hk_asprintf("%s\n%s", pragma, ind);
        else
            ins = hk_asprintf("\n%s%s\n%s", ind, pragma, ind);
        if ((rc = rwl_edits_add_owned(&es, ts.t[k].start, ts.t[k].start, ins)))
            goto out;
        if (lone) {
            char *close_ins = hk_asprintf("\n%s}", ind);
            if ((rc = rwl_edits_add_owned(&es, ts.t[body_end - 1].end, ts.t[body_end - 1].end, close_ins)))
                goto out;
        }
        if ((rc = hk_buf_printf(&lines, "%s%u", lines.len ? ", " : "", line)))
            goto out;
    }
    if (es.n == 0) {
        char *why = n_for == 0 ? hk_strdup(EN(RW_UNROLL_NO_FOR))
                    : had.len && !notconst.len ? hk_asprintf(EN(RW_UNROLL_ALL_HAVE), had.data)
                                               : hk_asprintf(EN(RW_UNROLL_NOT_CONSTANT),
                                                             notconst.data ? notconst.data : "");
        rc = rwl_not_applicable(out, why ? hk_asprintf(EN(RW_NOT_APPLICABLE_TO), "unroll", f->name, why) : NULL);
        hk_free(why);
        goto out;
    }
    /* one sentence per plural, with or without loops that had a pragma and loops of a
     * trip count not constant */
    static const enum hk_msg um[2][2][2] = {
        {{HK_MSG_RW_UNROLL_DESC_1, HK_MSG_RW_UNROLL_DESC_1_N}, {HK_MSG_RW_UNROLL_DESC_1_H, HK_MSG_RW_UNROLL_DESC_1_HN}},
        {{HK_MSG_RW_UNROLL_DESC_S, HK_MSG_RW_UNROLL_DESC_S_N}, {HK_MSG_RW_UNROLL_DESC_S_H, HK_MSG_RW_UNROLL_DESC_S_HN}},
    };
    const char *ufmt = hk_tr_in(HK_LANG_EN, um[strchr(lines.data, ',') != NULL][had.len != 0][notconst.len != 0]);
    char *desc = had.len && notconst.len ? hk_asprintf(ufmt, f->name, pragma, lines.data, had.data, notconst.data)
                 : had.len              ? hk_asprintf(ufmt, f->name, pragma, lines.data, had.data)
                 : notconst.len         ? hk_asprintf(ufmt, f->name, pragma, lines.data, notconst.data)
                                        : hk_asprintf(ufmt, f->name, pragma, lines.data);
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
out:
    hk_buf_free(&lines);
    hk_buf_free(&had);
    hk_buf_free(&notconst);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ------------------------------------------------------------------ fast math */

static const char *const fast_calls[][2] = {
    {"expf", "__expf"}, {"logf", "__logf"}, {"sinf", "__sinf"}, {"cosf", "__cosf"},
    {"tanf", "__tanf"}, {"powf", "__powf"}, {"sincosf", "__sincosf"}, {"exp10f", "__exp10f"},
    {"log2f", "__log2f"}, {"log10f", "__log10f"}};

/* The C++ overloads of the same functions (CUDA's math headers and <cmath>): `sin(v)` on a
 * float v is sinf; taken only where every argument is typed float (a double, an integer or
 * an unknown argument calls the double function, whose intrinsic there is none). */
static const char *const fast_overloads[][2] = {
    {"exp", "__expf"}, {"log", "__logf"}, {"sin", "__sinf"}, {"cos", "__cosf"}, {"tan", "__tanf"},
    {"pow", "__powf"}, {"exp10", "__exp10f"}, {"log2", "__log2f"}, {"log10", "__log10f"}};

/* Calls whose result is a float or a double, for typing division operands. */
static const char *const float_funcs[] = {
    "expf", "logf", "sinf", "cosf", "tanf", "powf", "exp10f", "log2f", "log10f", "exp2f",
    "__expf", "__logf", "__sinf", "__cosf", "__tanf", "__powf", "__exp10f", "__log2f", "__log10f",
    "sqrtf", "rsqrtf", "cbrtf", "fabsf", "fmaxf", "fminf", "fmodf", "floorf", "ceilf", "truncf",
    "roundf", "rintf", "tanhf", "sinhf", "coshf", "atanf", "atan2f", "asinf", "acosf", "erff",
    "erfcf", "expm1f", "log1pf", "hypotf", "fmaf", "__fdividef", "__fmul_rn", "__fadd_rn",
    "__fsqrt_rn", "__frcp_rn", "__saturatef", "__half2float", "__bfloat162float",
    "__int2float_rn", "__uint2float_rn", "__low2float", "__high2float"};
static const char *const double_funcs[] = {
    "exp", "log", "sin", "cos", "tan", "pow", "sqrt", "rsqrt", "cbrt", "fabs", "fmax", "fmin",
    "fmod", "floor", "ceil", "trunc", "round", "tanh", "sinh", "cosh", "atan", "atan2", "erf",
    "exp2", "log2", "log10", "expm1", "log1p", "hypot", "fma", "__dmul_rn", "__dadd_rn"};

enum { FT_FLOAT = 1, FT_DOUBLE = 2, FT_UNKNOWN = 4, FT_INTEGER = 8 };

static bool in_list(const rw_toks *ts, size_t k, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rwl_tok_is_ident(ts, k, list[i]))
            return true;
    return false;
}

/* Names declared in the body as float, double or an integer type (first declarator and
 * those after commas at the same level, until the ';'). */
typedef struct {
    uint32_t *start, *len;   /* spans in the body text */
    char *kind;              /* FT_FLOAT, FT_DOUBLE, 0 for integers */
    size_t n, cap;
} fm_names;

static void fm_names_free(fm_names *nm)
{
    hk_free(nm->start);
    hk_free(nm->len);
    hk_free(nm->kind);
    memset(nm, 0, sizeof *nm);
}

static int fm_names_add(fm_names *nm, uint32_t start, uint32_t l, char kind)
{
    if (nm->n == nm->cap) {
        size_t cap = nm->cap ? nm->cap * 2 : 32;
        if (cap > 65536)
            return HK_ETOOBIG;
        uint32_t *s = hk_realloc(nm->start, cap * sizeof *s);
        if (!s)
            return HK_ENOMEM;
        nm->start = s;
        uint32_t *ln = hk_realloc(nm->len, cap * sizeof *ln);
        if (!ln)
            return HK_ENOMEM;
        nm->len = ln;
        char *kd = hk_realloc(nm->kind, cap);
        if (!kd)
            return HK_ENOMEM;
        nm->kind = kd;
        nm->cap = cap;
    }
    nm->start[nm->n] = start;
    nm->len[nm->n] = l;
    nm->kind[nm->n] = kind;
    nm->n++;
    return HK_OK;
}

static int fm_collect(const rw_toks *ts, fm_names *nm)
{
    int rc;
    for (size_t k = 0; k < ts->n; k++) {
        char kind;
        if (rwl_tok_is_ident(ts, k, "float"))
            kind = FT_FLOAT;
        else if (rwl_tok_is_ident(ts, k, "double"))
            kind = FT_DOUBLE;
        else if (rwl_is_type_word(ts, k) && !rwl_tok_is_ident(ts, k, "auto"))
            kind = 0;
        else
            continue;
        size_t q = k + 1;
        while (q < ts->n && (rwl_is_type_word(ts, q) || rwl_tok_is_ident(ts, q, "const")))
            q++;
        /* declarators: name [= init] {, name [= init]} ; */
        int depth = 0;
        bool expect = true;
        for (; q < ts->n; q++) {
            if (rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[") || rwl_tok_is(ts, q, "{"))
                depth++;
            else if (rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]") || rwl_tok_is(ts, q, "}")) {
                if (--depth < 0)
                    break;
            } else if (depth == 0 && rwl_tok_is(ts, q, ";"))
                break;
            else if (depth == 0 && rwl_tok_is(ts, q, ","))
                expect = true;
            else if (expect && depth == 0 && ts->t[q].kind == T_IDENT) {
                if ((rc = fm_names_add(nm, ts->t[q].start, ts->t[q].end - ts->t[q].start, kind)))
                    return rc;
                expect = false;
            } else if (expect && !rwl_tok_is(ts, q, "*") && !rwl_tok_is(ts, q, "&")) {
                break;   /* a cast or an expression, not a declaration */
            }
        }
    }
    return HK_OK;
}

/* Index of the bracket opening the one closing at k (")" or "]"), or ts->n. */
static size_t match_open(const rw_toks *ts, size_t k)
{
    const char *open = rwl_tok_is(ts, k, ")") ? "(" : rwl_tok_is(ts, k, "]") ? "[" : NULL;
    const char *close = rwl_tok_is(ts, k, ")") ? ")" : "]";
    if (!open)
        return ts->n;
    int depth = 0;
    for (size_t i = k + 1; i-- > 0;) {
        if (rwl_tok_is(ts, i, close))
            depth++;
        else if (rwl_tok_is(ts, i, open) && --depth == 0)
            return i;
    }
    return ts->n;
}

/* Is the parenthesized group (o, c) a cast? FT_INTEGER, FT_FLOAT, FT_DOUBLE, or -1 when
 * it is not a cast. */
static int cast_kind(const rw_toks *ts, size_t o, size_t c)
{
    if (c <= o + 1)
        return -1;
    int kind = FT_INTEGER;
    for (size_t k = o + 1; k < c; k++) {
        if (rwl_tok_is_ident(ts, k, "float"))
            kind = FT_FLOAT;
        else if (rwl_tok_is_ident(ts, k, "double"))
            kind = FT_DOUBLE;
        else if (!rwl_is_type_word(ts, k) && !rwl_tok_is_ident(ts, k, "const"))
            return -1;
    }
    return kind;
}

static const char *const not_callees[] = {"if", "while", "for", "switch", "return", "sizeof"};

/* Start of the postfix expression ending at token k (backwards), or ts->n. */
static size_t unit_back(const rw_toks *ts, size_t k)
{
    size_t start;
    if (k >= ts->n)
        return ts->n;
    if (rwl_tok_is(ts, k, ")")) {
        size_t o = match_open(ts, k);
        if (o >= ts->n)
            return ts->n;
        start = o;
        if (o > 0 && ts->t[o - 1].kind == T_IDENT) {
            if (in_list(ts, o - 1, not_callees, HK_ARRAY_LEN(not_callees)))
                return o;
            start = o - 1;
        } else if (o > 0 && rwl_tok_is(ts, o - 1, ">")) {
            return ts->n;   /* a template call: not followed */
        }
    } else if (rwl_tok_is(ts, k, "]")) {
        size_t o = match_open(ts, k);
        if (o == 0 || o >= ts->n)
            return ts->n;
        start = unit_back(ts, o - 1);
    } else if (ts->t[k].kind == T_IDENT || ts->t[k].kind == T_NUMBER) {
        start = k;
    } else {
        return ts->n;
    }
    if (start < ts->n && start >= 2 && (rwl_tok_is(ts, start - 1, ".") || rwl_tok_is(ts, start - 1, "->")))
        start = unit_back(ts, start - 2);
    return start;
}

/* First token of the left operand of the '/' at d, or ts->n. */
static size_t left_operand(const rw_toks *ts, size_t d, size_t lo)
{
    size_t k = d;
    for (;;) {
        if (k == 0 || k - 1 < lo)
            return ts->n;
        size_t start = unit_back(ts, k - 1);
        if (start >= ts->n || start < lo)
            return ts->n;
        for (;;) {   /* casts and unary operators in front */
            if (start > lo && rwl_tok_is(ts, start - 1, ")")) {
                size_t o = match_open(ts, start - 1);
                if (o < ts->n && o >= lo && cast_kind(ts, o, start - 1) > 0) {
                    start = o;
                    continue;
                }
            }
            if (start > lo && (rwl_tok_is(ts, start - 1, "-") || rwl_tok_is(ts, start - 1, "+") ||
                               rwl_tok_is(ts, start - 1, "!") || rwl_tok_is(ts, start - 1, "~")) &&
                rwl_unary_position(ts, start - 1)) {
                start--;
                continue;
            }
            break;
        }
        /* `a * b / c` is `(a * b) / c`: the chain of * / % belongs to the operand */
        if (start > lo + 1 && (rwl_tok_is(ts, start - 1, "*") || rwl_tok_is(ts, start - 1, "/") ||
                               rwl_tok_is(ts, start - 1, "%")) &&
            !rwl_unary_position(ts, start - 1)) {
            k = start - 1;
            continue;
        }
        return start;
    }
}

/* One past the last token of the right operand of the '/' at d, or ts->n. */
static size_t right_operand(const rw_toks *ts, size_t d, size_t hi)
{
    size_t k = d + 1;
    for (;;) {   /* unary operators and casts */
        if (k < hi && (rwl_tok_is(ts, k, "-") || rwl_tok_is(ts, k, "+") || rwl_tok_is(ts, k, "!") ||
                       rwl_tok_is(ts, k, "~"))) {
            k++;
            continue;
        }
        if (k < hi && rwl_tok_is(ts, k, "(")) {
            size_t c = rwl_match_close(ts, k);
            if (c < hi && cast_kind(ts, k, c) > 0) {
                k = c + 1;
                continue;
            }
        }
        break;
    }
    if (k >= hi)
        return ts->n;
    if (rwl_tok_is(ts, k, "(")) {
        k = rwl_match_close(ts, k);
    } else if (ts->t[k].kind == T_IDENT) {
        if (rwl_tok_is(ts, k + 1, "("))
            k = rwl_match_close(ts, k + 1);
    } else if (ts->t[k].kind != T_NUMBER) {
        return ts->n;
    }
    if (k >= hi)
        return ts->n;
    for (;;) {   /* postfix: [..], .member, ->member */
        if (rwl_tok_is(ts, k + 1, "[")) {
            k = rwl_match_close(ts, k + 1);
            if (k >= hi)
                return ts->n;
        } else if ((rwl_tok_is(ts, k + 1, ".") || rwl_tok_is(ts, k + 1, "->")) && k + 2 < hi &&
                   ts->t[k + 2].kind == T_IDENT) {
            k += 2;
        } else {
            break;
        }
    }
    if (rwl_tok_is(ts, k + 1, "++") || rwl_tok_is(ts, k + 1, "--"))
        return ts->n;
    return k + 1;
}

/* FT_* flags of the expression tokens [a, b). */
static int operand_type(const rw_toks *ts, size_t a, size_t b, const an_function *f,
                        const fm_names *nm)
{
    int fl = 0;
    for (size_t k = a; k < b; k++) {
        const rw_tok *t = &ts->t[k];
        if (t->kind == T_NUMBER) {
            bool hex = t->end - t->start > 1 && (ts->text[t->start + 1] == 'x' || ts->text[t->start + 1] == 'X');
            bool fp = false;
            for (uint32_t q = t->start; q < t->end && !hex; q++)
                fp |= ts->text[q] == '.' || ts->text[q] == 'e' || ts->text[q] == 'E';
            char last = ts->text[t->end - 1];
            if (fp)
                fl |= last == 'f' || last == 'F' ? FT_FLOAT : FT_DOUBLE;
            continue;
        }
        if (rwl_tok_is(ts, k, "(")) {
            size_t c = rwl_match_close(ts, k);
            if (c >= b)
                return FT_UNKNOWN;
            int ck = cast_kind(ts, k, c);
            if (ck == FT_FLOAT || ck == FT_DOUBLE) {
                fl |= ck;
                k = c;
            } else if (ck == FT_INTEGER) {
                /* an integer cast: the next operand is an integer whatever it holds */
                size_t nx = c + 1;
                if (rwl_tok_is(ts, nx, "("))
                    nx = rwl_match_close(ts, nx);
                else if (ts->t[nx].kind == T_IDENT && rwl_tok_is(ts, nx + 1, "("))
                    nx = rwl_match_close(ts, nx + 1);
                while (nx + 1 < b && rwl_tok_is(ts, nx + 1, "["))
                    nx = rwl_match_close(ts, nx + 1);
                k = nx;
            }
            continue;   /* a plain group: its tokens are typed one by one */
        }
        if (t->kind != T_IDENT)
            continue;
        if (k > 0 && (rwl_tok_is(ts, k - 1, ".") || rwl_tok_is(ts, k - 1, "->")))
            continue;   /* a member: typed by what it belongs to */
        if (rwl_tok_is(ts, k + 1, "(")) {
            if (in_list(ts, k, float_funcs, HK_ARRAY_LEN(float_funcs)))
                fl |= FT_FLOAT;
            else if (in_list(ts, k, double_funcs, HK_ARRAY_LEN(double_funcs)))
                fl |= FT_DOUBLE;
            else
                fl |= FT_UNKNOWN;
            size_t c = rwl_match_close(ts, k + 1);
            if (c >= b)
                return FT_UNKNOWN;
            k = c;
            continue;
        }
        if (rwl_tok_is_ident(ts, k, "threadIdx") || rwl_tok_is_ident(ts, k, "blockIdx") ||
            rwl_tok_is_ident(ts, k, "blockDim") || rwl_tok_is_ident(ts, k, "gridDim")) {
            k += 2;   /* .x */
            continue;
        }
        long p = param_named(f, ts, k);
        if (p >= 0) {
            const an_param *pp = &f->params[p];
            bool sub = rwl_tok_is(ts, k + 1, "[");
            const char *et = pp->elem_type ? pp->elem_type : "";
            if ((pp->pointer_depth == 0 || (pp->pointer_depth == 1 && sub)) &&
                !rwl_tok_is(ts, sub ? rwl_match_close(ts, k + 1) + 1 : k + 1, ".")) {
                if (!strcmp(et, "float"))
                    fl |= FT_FLOAT;
                else if (!strcmp(et, "double"))
                    fl |= FT_DOUBLE;
                else if (!vec_elem_of(et) && !ldg_type(et))
                    fl |= FT_UNKNOWN;
                else if (vec_elem_of(et) && vec_elem_of(et)->bit16)
                    fl |= FT_UNKNOWN;   /* half arithmetic: not a float division */
            } else {
                fl |= FT_UNKNOWN;
            }
            if (sub) {
                size_t c = rwl_match_close(ts, k + 1);
                if (c >= b)
                    return FT_UNKNOWN;
                k = c;
            }
            continue;
        }
        bool found = false;
        for (size_t i = nm->n; i-- > 0 && !found;)
            if (tok_eq(ts, k, ts->text + nm->start[i], nm->len[i])) {
                fl |= nm->kind[i];
                found = true;
            }
        if (!found && !rwl_tok_is_ident(ts, k, "sizeof"))
            fl |= FT_UNKNOWN;
        if (rwl_tok_is(ts, k + 1, "["))
            fl |= FT_UNKNOWN;
    }
    return fl & ~FT_INTEGER;
}

/* One pass over body (a NUL-terminated copy of the kernel body): every float division whose
 * operands do not overlap an earlier one's becomes __fdividef. New text in *next (NULL when
 * nothing changed); counts in *done and *skipped (on the first pass only). */
static int fm_division_pass(const char *body, size_t blen, const an_function *f, char **next,
                            size_t *nlen, size_t *done, size_t *skipped, bool count_skips)
{
    rw_toks ts = {0};
    rw_edits es = {0};
    fm_names nm = {0};
    *next = NULL;
    int rc = rwl_lex(body, 0, (uint32_t)blen, &ts);
    if (!rc)
        rc = fm_collect(&ts, &nm);
    if (rc)
        goto out;
    uint32_t taken_end = 0;
    for (size_t d = 1; d + 1 < ts.n; d++) {
        if (!rwl_tok_is(&ts, d, "/"))
            continue;
        size_t a = left_operand(&ts, d, 1), b = right_operand(&ts, d, ts.n - 1);
        if (a >= ts.n || b >= ts.n) {
            *skipped += count_skips;
            continue;
        }
        int ta = operand_type(&ts, a, d, f, &nm), tb = operand_type(&ts, d + 1, b, f, &nm);
        int t = ta | tb;
        if (!(t & FT_FLOAT) || (t & (FT_DOUBLE | FT_UNKNOWN))) {
            *skipped += count_skips;
            continue;
        }
        if (ts.t[a].start < taken_end)
            continue;   /* inside or across the previous one: the next pass takes it */
        char *repl = hk_asprintf("__fdividef(%.*s, %.*s)", (int)(ts.t[d - 1].end - ts.t[a].start),
                                 body + ts.t[a].start, (int)(ts.t[b - 1].end - ts.t[d + 1].start),
                                 body + ts.t[d + 1].start);
        if ((rc = rwl_edits_add_owned(&es, ts.t[a].start, ts.t[b - 1].end, repl)))
            goto out;
        taken_end = ts.t[b - 1].end;
        (*done)++;
    }
    if (es.n)
        rc = rwl_edits_apply(body, blen, &es, next, nlen);
out:
    fm_names_free(&nm);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* The call's arguments, from its "(" at open, are each typed float (operand_type: float and
 * nothing double, unknown or integer-only). */
static bool float_arguments(const rw_toks *ts, size_t open, const an_function *f, const fm_names *nm)
{
    size_t close = rwl_match_close(ts, open);
    if (close >= ts->n || close == open + 1)
        return false;
    size_t a = open + 1;
    for (size_t k = a; k <= close; k++) {
        if (k < close && (rwl_tok_is(ts, k, "(") || rwl_tok_is(ts, k, "["))) {
            k = rwl_match_close(ts, k);
            if (k >= close)
                return false;
            continue;
        }
        if (k < close && !rwl_tok_is(ts, k, ","))
            continue;
        int t = operand_type(ts, a, k, f, nm);
        if (a == k || !(t & FT_FLOAT) || (t & (FT_DOUBLE | FT_UNKNOWN)))
            return false;
        a = k + 1;
    }
    return true;
}

int rw_fast_math(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    struct hk_buf desc;
    hk_buf_init(&desc, 4096);
    char *body = NULL;
    size_t blen = 0, counts[HK_ARRAY_LEN(fast_calls)] = {0}, ocounts[HK_ARRAY_LEN(fast_overloads)] = {0};
    size_t divs = 0, skipped = 0, already = 0, oskipped = 0;
    fm_names nm = {0};
    uint32_t bs = f->body_span.start_byte, be = f->body_span.end_byte;
    if ((rc = rwl_lex(text, bs, be, &ts)) || (rc = fm_collect(&ts, &nm)))
        goto out;
    /* the calls: one token each */
    for (size_t k = 0; k < ts.n; k++) {
        if (ts.t[k].kind != T_IDENT || !rwl_tok_is(&ts, k + 1, "(") || tok_member_or_scope(&ts, k))
            continue;
        if (rwl_tok_is_ident(&ts, k, "__fdividef"))
            already++;
        for (size_t c = 0; c < HK_ARRAY_LEN(fast_calls); c++) {
            if (rwl_tok_is_ident(&ts, k, fast_calls[c][1]))
                already++;
            if (!rwl_tok_is_ident(&ts, k, fast_calls[c][0]))
                continue;
            if ((rc = rwl_edits_add(&es, ts.t[k].start - bs, ts.t[k].end - bs, fast_calls[c][1])))
                goto out;
            counts[c]++;
        }
        for (size_t c = 0; c < HK_ARRAY_LEN(fast_overloads); c++) {
            if (!rwl_tok_is_ident(&ts, k, fast_overloads[c][0]))
                continue;
            if (!float_arguments(&ts, k + 1, f, &nm)) {
                oskipped++;
                continue;
            }
            if ((rc = rwl_edits_add(&es, ts.t[k].start - bs, ts.t[k].end - bs, fast_overloads[c][1])))
                goto out;
            ocounts[c]++;
        }
    }
    char *btext = hk_strndup(text + bs, be - bs);
    if (!btext) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwl_edits_apply(btext, be - bs, &es, &body, &blen);
    hk_free(btext);
    if (rc)
        goto out;
    /* the divisions, a pass per nesting level (at most 16) */
    for (int pass = 0; pass < 16; pass++) {
        char *next = NULL;
        size_t nlen = 0, before = divs;
        if ((rc = fm_division_pass(body, blen, f, &next, &nlen, &divs, &skipped, pass == 0)))
            goto out;
        if (!next)
            break;
        hk_free(body);
        body = next;
        blen = nlen;
        if (divs == before)
            break;
    }
    for (size_t c = 0; c < HK_ARRAY_LEN(fast_calls); c++)
        if (counts[c] && (rc = hk_buf_printf(&desc, "%s%s -> %s (%zu)", desc.len ? ", " : "",
                                             fast_calls[c][0], fast_calls[c][1], counts[c])))
            goto out;
    for (size_t c = 0; c < HK_ARRAY_LEN(fast_overloads); c++)
        if (ocounts[c] && (rc = hk_buf_printf(&desc, "%s%s(float) -> %s (%zu)", desc.len ? ", " : "",
                                              fast_overloads[c][0], fast_overloads[c][1], ocounts[c])))
            goto out;
    if (divs && (rc = hk_buf_printf(&desc, "%s/ -> __fdividef (%zu)", desc.len ? ", " : "", divs)))
        goto out;
    if (!desc.len) {
        if (already)
            rc = rwl_not_applicable(out, hk_asprintf(skipped ? EN(RW_FM_ALREADY_LEFT) : EN(RW_FM_ALREADY), f->name));
        else
        {
            /* one sentence per kind of call or division left */
            static const enum hk_msg fm[2][2] = {{HK_MSG_RW_FM_NONE, HK_MSG_RW_FM_NONE_CALLS_LEFT},
                                                 {HK_MSG_RW_FM_NONE_DIVS_LEFT, HK_MSG_RW_FM_NONE_BOTH_LEFT}};
            rc = rwl_not_applicable_to(out, "fast math", f->name, fm[skipped != 0][oskipped != 0]);
        }
        goto out;
    }
    if (skipped && (rc = hk_buf_printf(&desc, skipped == 1 ? EN(RW_FM_DIV_LEFT) : EN(RW_FM_DIVS_LEFT), skipped)))
        goto out;
    if (oskipped && (rc = hk_buf_printf(&desc, oskipped == 1 ? EN(RW_FM_CALL_LEFT) : EN(RW_FM_CALLS_LEFT), oskipped)))
        goto out;
    rwl_edits_free(&es);
    rc = rwl_edits_add_owned(&es, bs, be, body);
    body = NULL;   /* the edit list owns it, also when adding failed */
    if (rc)
        goto out;
    char *d = hk_asprintf("kernel %s: %s", f->name, desc.data);
    rc = rwl_finish(text, len, m, f->name, &es, d, out);
out:
    fm_names_free(&nm);
    hk_free(body);
    hk_buf_free(&desc);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- registry descriptors (registry.h) ---- */
static const rw_param vectorize_params[] = {
    {.name = "width", .type = RW_PARAM_ENUM, .values = {2, 4, 8}, .n_values = 3, .def = 4},
};

static int emit_vectorize(const rw_context *c, const int *p, rw_result *out)
{
    const char *const *targs = c->template_args;
    size_t n_targs = c->n_template_args;
    if (!targs && c->spec) {
        targs = (const char *const *)c->spec->template_args;
        n_targs = c->spec->n_template_args;
    }
    int rc = rw_vectorize_targs(c->text, c->len, c->m, c->kernel, p[0], targs, n_targs, out);
    if (rc || !out->applicable || !out->keeps_grid || !c->spec)
        return rc;
    /* No bounds check: the elements are the launch's threads, [0, gridDim.x * blockDim.x)
     * under the spec's grid, which keeps every grid-stride thread but one of each width
     * idle (SHOC's triad 0.76x on an H200). The spec's launch in the kernel's parameters
     * counts the same elements under any grid: the search may then launch one wave. */
    static const char was[] = "const auto hk_n = gridDim.x * blockDim.x;"; /* i18n: not for people */
    char *at = out->text ? strstr(out->text, was) : NULL;
    if (!at || strstr(at + 1, was))
        return HK_OK;   /* a 2-D grid's rows, a typed index's cast, two copies: kept */
    char why[400];
    char *count = rw_spec_count_in_kernel_terms(c, why, sizeof why, &rc);
    if (rc || !count) {
        if (!rc)
            HK_DEBUG("vectorize: the spec's grid kept: %s", why);
        return rc == HK_ENOMEM ? rc : HK_OK;
    }
    size_t pre = (size_t)(at - out->text);
    char *text = hk_asprintf("%.*sconst auto hk_n = (unsigned int)(%s);%s", (int)pre, out->text, count, /* i18n: not for people */
                             at + strlen(was));
    char *note = hk_asprintf(EN(RW_MEM_COUNT_FROM_SPEC), count);
    char *desc = note ? hk_asprintf("%s (%s)", out->description ? out->description : "", note) : NULL;
    hk_free(count);
    hk_free(note);
    if (!text || !desc) {
        hk_free(text);
        hk_free(desc);
        return HK_ENOMEM;
    }
    hk_free(out->text);
    out->text = text;
    out->len = strlen(text);
    hk_free(out->description);
    out->description = desc;
    out->keeps_grid = false;
    return HK_OK;
}

const rw_descriptor rw_vectorize_desc = {
    .name = "vectorize",
    .summary = "float2/float4-wide loads and stores in a grid-stride loop", /* i18n: not for people */
    .params = vectorize_params,
    .n_params = HK_ARRAY_LEN(vectorize_params),
    .flags = RW_VECTOR_LOOP,
    .emit = emit_vectorize,
};

static int emit_readonly_loads(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_readonly_loads(c->text, c->len, c->m, c->kernel, c->hip, out);
}

const rw_descriptor rw_readonly_loads_desc = {
    .name = "readonly_loads",
    .summary = "__ldg for pointers the kernel only reads", /* i18n: not for people */
    .flags = RW_HINT,
    .emit = emit_readonly_loads,
};

static const rw_param unroll_params[] = {
    {.name = "factor", .type = RW_PARAM_INT, .min = 0, .max = 64, .def = 0},
};

static int emit_unroll(const rw_context *c, const int *p, rw_result *out)
{
    return rw_unroll(c->text, c->len, c->m, c->kernel, p[0], out);
}

const rw_descriptor rw_unroll_desc = {
    .name = "unroll",
    .summary = "#pragma unroll factor on constant-trip loops", /* i18n: not for people */
    .params = unroll_params,
    .n_params = HK_ARRAY_LEN(unroll_params),
    .flags = RW_TUNING,
    .emit = emit_unroll,
};

static int emit_fast_math(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_fast_math(c->text, c->len, c->m, c->kernel, out);
}

const rw_descriptor rw_fast_math_desc = {
    .name = "fast_math",
    .summary = "fast intrinsics for expf, logf, sinf, ... and divisions", /* i18n: not for people */
    .flags = 0,
    .emit = emit_fast_math,
};

