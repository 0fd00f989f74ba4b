/* km_build: one walk over the kernel's tree-sitter tree. Statements are walked in order
 * with an environment of locals (each substituted by its definition, or kept as a loop
 * variable, accumulator or unfollowed variable by what a first pass saw done to it),
 * a stack of loops and a stack of guards; every expression is evaluated into a form,
 * and evaluating a subscript records the access. Macros are expanded by parsing their
 * value on its own and evaluating it in the caller's environment, as the preprocessor
 * would; a statement macro that opens a loop (CUDA_1D_KERNEL_LOOP(i, n) { ... }) is parsed
 * with its arguments put in and walked as that loop around the braces that follow it.
 * A call of a __device__ function of the text walks its body at the call, in an
 * environment of its parameters bound to the argument forms (inline_call). */
#include "model/kmodel_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tree_sitter/api.h>

#include "analysis/analysis.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

const TSLanguage *tree_sitter_cuda(void);

/* a sentence of the message table in English: why the model cannot be built is stored
 * (`hkls rewrites --json`, a rewrite's refusal) and said again where shown */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define KB_DEPTH_MAX 200     /* expression/statement nesting the walk follows */
#define KB_MACRO_DEPTH_MAX 16
#define KB_LOOPS_MAX 64
#define KB_SNIPPET_MAX (64u << 10)   /* a loop macro's replacement with its arguments */
#define KB_CALL_DEPTH_MAX 8  /* __device__ calls followed inside one another */

enum ent_kind { E_VALUE, E_LOOP, E_ACC, E_VAR, E_POINTER, E_ARRAY };

typedef struct {
    const char *name;
    enum ent_kind kind;
    km_form form;          /* VALUE/LOOP/ACC/VAR: the value; POINTER: offset */
    const char *base;      /* POINTER: buffer; ARRAY: its own name */
    enum km_space space;
    const km_form *dims;   /* ARRAY: declared extents, outermost first */
    uint32_t n_dims;
    long acc;              /* ACC: accumulator index */
    int scope;
    bool induct;           /* POINTER/VALUE: an induction variable (induction_ok): stepped
                            * by loop-invariant amounts, its value at the top of a loop's
                            * iteration put in when the loop opens (for_loop) */
} ent;

typedef struct {
    const char *name;
    const char *value;     /* trimmed text; "" when none */
    const char **params;
    uint32_t n_params;
    bool function;
    uint32_t at;           /* byte offset of the definition */
    TSTree *tree;          /* value parsed on its own, on first use */
    char *snippet;
} macro;

/* A statement that calls a macro opening a loop, `CUDA_1D_KERNEL_LOOP(i, n) { body }`
 * with `#define CUDA_1D_KERNEL_LOOP(i, n) for (int i = ...; i < (n); ...)`: the
 * replacement with the arguments put in, followed by a placeholder statement for the
 * body, parsed on its own. Found by the first pass (scan), walked by the second. */
typedef struct {
    uint32_t at;           /* start byte of the call in the kernel text */
    TSTree *tree;          /* NULL: not a loop macro (the statement is walked as before) */
    const char *snippet;
    TSNode loop;           /* the snippet's outermost for_statement */
    TSNode body;           /* the compound statement after the call, in the kernel text */
    int n_loops;           /* loops the snippet opens around the placeholder */
    uint32_t line;         /* of the call */
} mloop;

/* What the first pass saw done to a local name. */
typedef struct {
    const char *name;
    uint32_t n_mut;
    bool plain;            /* an assignment that does not read the name (x = e) */
    int max_depth;         /* deepest loop nesting of a mutation */
    bool indexes;          /* appears in a subscript: an index, never an accumulator */
    bool stepped;          /* the step of a while loop (not in n_mut: the loop counts it),
                            * which still moves a pointer */
} mut;

typedef struct {
    uint32_t id;
    int scope;
} gstack;

typedef struct {
    km_kernel *k;
    const char *text;
    const an_model *am;
    an_model *own_am;      /* km_build's, freed at its exit */
    TSTree *tree;
    const an_function *f;
    long fi;
    TSParser *parser;
    km_vec env, macros, muts, gs, mloops;
    long body_of;          /* b->mloops entry whose snippet is being walked, or -1 */
    uint32_t loops[KB_LOOPS_MAX];
    uint32_t n_loops;
    int scope;
    int depth;
    int macro_depth;
    int quiet;             /* >0: evaluate without recording accesses */
    int plain;             /* >0: a misread `<` leaf is its builtin (misread_less) */
    uint32_t line;         /* line of the statement being walked */
    TSNode skip;           /* a statement the walk leaves out (a while loop's step) */
    size_t env_floor;      /* env_find looks no lower: a callee sees only its own names */
    size_t muts_floor;     /* mut_find likewise: the callee's first pass is above it */
    long calls[KB_CALL_DEPTH_MAX];   /* the __device__ functions being walked, outermost
                                      * first (b->f is the innermost) */
    int n_calls;
    km_form ret;           /* the value of the callee's last return walked */
    uint32_t n_ret, n_exits; /* its returns walked, its early exits (guards) */
    uint32_t n_lcount, n_gcount, n_vars;
    /* Pointer parameters moved once (km_param's moved_at), by parameter index: the
     * "$var" atom standing for the move, the offset, and whether the move was read
     * (move_state: 0 not a candidate, 1 candidate, 2 read, 3 refused). */
    uint8_t *move_state;
    uint32_t *move_atom;
    km_form *move_off;
    const km_launch_facts *facts; /* km_build_with's, or NULL */
    /* Session 48: the kernel's parameters declared as arrays of arrays (`float A[N][M]`,
     * `float (*A)[M]`): their extents, outermost first (the first may be empty), so that
     * A[i][j] is the element i * M + j (param_dims). */
    struct { const char *name; const km_form *dims; uint32_t n_dims; } pdims[8];
    uint32_t n_pdims;
} kb;

/* ---- small helpers -------------------------------------------------------------- */

static bool is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

static TSNode field(TSNode n, const char *name)
{
    return ts_node_child_by_field_name(n, name, (uint32_t)strlen(name));
}

static const char *op_of(TSNode n)
{
    TSNode o = field(n, "operator");
    return ts_node_is_null(o) ? "" : ts_node_type(o);
}

/* Arena copy of the node's text. */
static char *ntext(kb *b, const char *src, TSNode n)
{
    uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    return km__strndup(b->k, src + s, e - s);
}

/* Node text with whitespace dropped (for names of literals and for comparing lvalues). */
static char *nsqueeze(kb *b, const char *src, TSNode n)
{
    uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    char *o = km__alloc(b->k, e - s + 1);
    size_t m = 0;
    for (uint32_t i = s; i < e; i++)
        if (!isspace((unsigned char)src[i]))
            o[m++] = src[i];
    o[m] = 0;
    return o;
}

static bool name_is(const char *src, TSNode n, const char *s)
{
    uint32_t a = ts_node_start_byte(n), e = ts_node_end_byte(n);
    size_t l = strlen(s);
    return e - a == l && memcmp(src + a, s, l) == 0;
}

/* The kernel line of n: its own, or for text parsed on its own (a macro's value) and for
 * a callee's body, the line of the statement (the call) in the kernel. */
static uint32_t line_of(kb *b, const char *src, TSNode n)
{
    return src == b->text && b->n_calls == 0 ? ts_node_start_point(n).row + 1 : b->line;
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

static km_form literal(kb *b, const char *text)
{
    km_atom p = {.kind = KM_ATOM_LITERAL, .text = text, .axis = -1, .loop = -1};
    return km__of_atom(b->k, km__atom(b->k, &p));
}

static km_form named(kb *b, enum km_atom_kind kind, const char *name, int axis)
{
    km_atom p = {.kind = kind, .text = name, .name = name, .axis = axis, .loop = -1};
    return km__of_atom(b->k, km__atom(b->k, &p));
}

/* Integer literal value (suffixes u, l dropped); false for floats and others. */
static bool parse_int(const char *s, int64_t *v)
{
    while (*s == '(')
        s++;
    if (!isdigit((unsigned char)*s))
        return false;
    char *end;
    unsigned long long x = strtoull(s, &end, 0);
    while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
        end++;
    while (*end == ')')
        end++;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return false;
    *v = (int64_t)x;
    return true;
}

/* ---- environment ---------------------------------------------------------------- */

static ent *env_find(kb *b, const char *name)
{
    ent *e = b->env.v;
    for (size_t i = b->env.n; i > b->env_floor; i--)
        if (strcmp(e[i - 1].name, name) == 0)
            return &e[i - 1];
    return NULL;
}

static ent *env_push(kb *b, const char *name, enum ent_kind kind)
{
    ent *e = km__push(b->k, &b->env, sizeof(ent));
    e->name = name;
    e->kind = kind;
    e->scope = b->scope;
    e->acc = -1;
    return e;
}

static void enter(kb *b)
{
    b->scope++;
}

static void leave(kb *b)
{
    b->scope--;
    ent *e = b->env.v;
    while (b->env.n > 0 && e[b->env.n - 1].scope > b->scope)
        b->env.n--;
    gstack *g = b->gs.v;
    while (b->gs.n > 0 && g[b->gs.n - 1].scope > b->scope)
        b->gs.n--;
}

static const mut *mut_find(kb *b, const char *name)
{
    const mut *m = b->muts.v;
    for (size_t i = b->muts_floor; i < b->muts.n; i++)
        if (strcmp(m[i].name, name) == 0)
            return &m[i];
    return NULL;
}

static const macro *macro_find(kb *b, const char *name)
{
    const macro *m = b->macros.v, *best = NULL;
    uint32_t at = b->f->span.start_byte;
    for (size_t i = 0; i < b->macros.n; i++)   /* the last definition before the kernel */
        if (strcmp(m[i].name, name) == 0 && (!best || m[i].at < at))
            best = &m[i];
    return best;
}

static const an_param *param_find(kb *b, const char *name)
{
    for (size_t i = 0; i < b->f->n_params; i++)
        if (strcmp(b->f->params[i].name, name) == 0)
            return &b->f->params[i];
    return NULL;
}

static km_local *local_push(kb *b, const char *name, enum km_local_kind kind, km_form f,
                            uint32_t line)
{
    km_local *l = km__push(b->k, &b->k->locals, sizeof(km_local));
    l->name = name;
    l->kind = kind;
    l->form = f;
    l->line = line;
    return l;
}

static km_form fresh_var(kb *b)
{
    char t[32];
    snprintf(t, sizeof(t), "$var%u", b->n_vars++);
    km_atom p = {.kind = KM_ATOM_VAR, .text = t, .axis = -1, .loop = -1};
    return km__of_atom(b->k, km__atom(b->k, &p));
}

/* ---- accesses and guards -------------------------------------------------------- */

static const uint32_t *copy_ids(kb *b, const uint32_t *ids, uint32_t n)
{
    uint32_t *o = km__alloc(b->k, sizeof(uint32_t) * (n ? n : 1));
    if (n)
        memcpy(o, ids, sizeof(uint32_t) * n);
    return o;
}

static bool same_ids(const uint32_t *a, uint32_t na, const uint32_t *c, uint32_t nc)
{
    return na == nc && (na == 0 || memcmp(a, c, sizeof(uint32_t) * na) == 0);
}

/* The guards in force, outermost first, each once: into g (cap ids); the count. */
static uint32_t guards_in_force(const kb *b, uint32_t *g, uint32_t cap)
{
    uint32_t ng = 0;
    const gstack *gs = b->gs.v;
    for (size_t i = 0; i < b->gs.n && ng < cap; i++) {
        bool dup = false;
        for (uint32_t j = 0; j < ng; j++)
            dup |= g[j] == gs[i].id;
        if (!dup)
            g[ng++] = gs[i].id;
    }
    return ng;
}

static void record(kb *b, const char *base, enum km_space space, enum km_mode mode,
                   bool atomic, enum km_op op, km_form index, km_form value, uint32_t line)
{
    if (b->quiet)
        return;
    uint32_t g[KM_ITEMS_MAX / 16];
    uint32_t ng = guards_in_force(b, g, HK_ARRAY_LEN(g));
    if (mode == KM_READ) {   /* the same element read again in the same place: once */
        const km_access *as = b->k->accesses.v;
        for (size_t i = 0; i < b->k->accesses.n; i++)
            if (as[i].mode == KM_READ && strcmp(as[i].buffer, base) == 0 &&
                km_form_equal(as[i].index, index) &&
                same_ids(as[i].loops, as[i].n_loops, b->loops, b->n_loops) &&
                same_ids(as[i].guards, as[i].n_guards, g, ng)) {
                /* unless the buffer was written since: the read after the write sees
                 * another value, and its place in the list says so (a tree that reads a
                 * slot after updating it) */
                bool written = false;
                for (size_t j = i + 1; j < b->k->accesses.n && !written; j++)
                    written = as[j].mode != KM_READ && strcmp(as[j].buffer, base) == 0;
                if (!written)
                    return;
            }
    }
    km_access *a = km__push(b->k, &b->k->accesses, sizeof(km_access));
    a->buffer = base;
    a->space = space;
    a->mode = mode;
    a->atomic = atomic;
    a->op = op;
    a->index = index;
    a->element = km__drop_grid_counters(b->k, index);
    a->value = value;
    a->loops = copy_ids(b, b->loops, b->n_loops);
    a->n_loops = b->n_loops;
    a->guards = copy_ids(b, g, ng);
    a->n_guards = ng;
    a->line = line;
}

static void guard_push(kb *b, km_form lhs, const char *op, km_form rhs, uint32_t line)
{
    km_guard *gd = b->k->guards.v;
    size_t id = b->k->guards.n;
    for (size_t i = 0; i < b->k->guards.n; i++)
        if (strcmp(gd[i].op, op) == 0 && km_form_equal(gd[i].lhs, lhs) &&
            km_form_equal(gd[i].rhs, rhs)) {
            id = i;
            break;
        }
    if (id == b->k->guards.n) {
        km_guard *g = km__push(b->k, &b->k->guards, sizeof(km_guard));
        g->lhs = lhs;
        g->rhs = rhs;
        g->op = op;
        g->line = line;
    }
    gstack *s = km__push(b->k, &b->gs, sizeof(gstack));
    s->id = (uint32_t)id;
    s->scope = b->scope;
}

/* ---- expressions ---------------------------------------------------------------- */

static km_form eval(kb *b, const char *src, TSNode n);
static km_form eval_plain(kb *b, const char *src, TSNode n);
static void walk(kb *b, const char *src, TSNode n);

static TSNode first_named(TSNode n)
{
    return ts_node_named_child_count(n) ? ts_node_named_child(n, 0) : (TSNode){0};
}

static TSNode unparen(TSNode n)
{
    while (is(n, "parenthesized_expression") || is(n, "condition_clause")) {
        TSNode v = field(n, "value");
        n = ts_node_is_null(v) ? first_named(n) : v;
    }
    return n;
}

/* Do nodes a and b of src spell the same text, whitespace aside? */
static bool same_node_text(const char *src, TSNode a, TSNode b)
{
    uint32_t i = ts_node_start_byte(a), ie = ts_node_end_byte(a);
    uint32_t j = ts_node_start_byte(b), je = ts_node_end_byte(b);
    for (;;) {
        while (i < ie && isspace((unsigned char)src[i]))
            i++;
        while (j < je && isspace((unsigned char)src[j]))
            j++;
        if (i == ie || j == je)
            return i == ie && j == je;
        if (src[i++] != src[j++])
            return false;
    }
}

/* Does n mention the identifier spelled as node id? */
static bool mentions_name_n(const char *src, TSNode n, TSNode id, int depth)
{
    if (ts_node_is_null(n) || depth > 64)
        return false;
    if (is(n, "identifier") && same_node_text(src, n, id))
        return true;
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
        if (mentions_name_n(src, ts_node_named_child(n, i), id, depth + 1))
            return true;
    return false;
}

/* Does n hold an assignment, ++/-- or a call (a value read twice must be the same)? */
static bool has_effects(TSNode n, int depth)
{
    if (ts_node_is_null(n) || depth > 64)
        return false;
    if (is(n, "assignment_expression") || is(n, "update_expression") || is(n, "call_expression"))
        return true;
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
        if (has_effects(ts_node_named_child(n, i), depth + 1))
            return true;
    return false;
}

/* A running maximum or minimum kept by a comparison (session 48): `if (v > m) m = v;` (also
 * `m < v`, `>=`, `<=`, the assignment braced alone, no else), v free of m and of effects.
 * *x is m's identifier node, *v the value, *mx true for a maximum. The same update as
 * `m = max(m, v)` for the model's classes (which value a NaN or a tie keeps is the
 * rewrites' concern: rwl_minmax_update). */
static bool select_minmax(const char *src, TSNode n, TSNode *x, TSNode *v, bool *mx)
{
    if (!is(n, "if_statement") || !ts_node_is_null(field(n, "alternative")))
        return false;
    TSNode c = field(n, "consequence");
    if (is(c, "compound_statement")) {
        if (ts_node_named_child_count(c) != 1)
            return false;
        c = ts_node_named_child(c, 0);
    }
    if (!is(c, "expression_statement"))
        return false;
    TSNode a = first_named(c), cond = unparen(field(n, "condition"));
    if (!is(a, "assignment_expression") || strcmp(op_of(a), "=") != 0 || !is(cond, "binary_expression"))
        return false;
    TSNode l = unparen(field(a, "left")), r = field(a, "right");
    if (!is(l, "identifier") || has_effects(r, 0) || mentions_name_n(src, r, l, 0))
        return false;
    const char *op = op_of(cond);
    bool gt = strcmp(op, ">") == 0 || strcmp(op, ">=") == 0, lt = strcmp(op, "<") == 0 || strcmp(op, "<=") == 0;
    TSNode p = unparen(field(cond, "left")), q = unparen(field(cond, "right"));
    if (!gt && !lt)
        return false;
    if (same_node_text(src, p, r) && same_node_text(src, q, l))
        *mx = gt;   /* v > m */
    else if (same_node_text(src, p, l) && same_node_text(src, q, r))
        *mx = lt;   /* m < v */
    else
        return false;
    *x = l;
    *v = r;
    return true;
}

/* tree-sitter-cuda reads `threadIdx.x < n` as the start of a template method call
 * (x<n ...>, with a MISSING '>'), and `i + threadIdx.x < n` as i + (that). The leaf on the
 * right spine of n that holds such a misread, if any. */
static bool misread_less(const char *src, TSNode n, TSNode *leaf)
{
    static const char *const objs[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
    while (is(n, "binary_expression"))
        n = field(n, "right");
    if (!is(n, "field_expression") || !is(field(n, "field"), "template_method"))
        return false;
    TSNode a = field(n, "argument");
    for (size_t i = 0; i < HK_ARRAY_LEN(objs); i++)
        if (is(a, "identifier") && name_is(src, a, objs[i])) {
            *leaf = n;
            return true;
        }
    return false;
}

static bool builtin(kb *b, const char *src, TSNode n, km_form *out)
{
    if (is(n, "field_expression") && is(field(n, "field"), "template_method")) {
        /* the misread leaf: argument . name */
        static const char *const objs[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
        static const enum km_atom_kind kinds[] = {KM_ATOM_THREAD_IDX, KM_ATOM_BLOCK_IDX,
                                                  KM_ATOM_BLOCK_DIM, KM_ATOM_GRID_DIM};
        TSNode a = field(n, "argument"), nm = field(field(n, "field"), "name");
        for (int i = 0; i < 4; i++)
            for (int ax = 0; ax < 3; ax++) {
                char f[2] = {"xyz"[ax], 0}, t[32];
                if (name_is(src, a, objs[i]) && name_is(src, nm, f)) {
                    snprintf(t, sizeof(t), "%s.%c", objs[i], "xyz"[ax]);
                    *out = named(b, kinds[i], km__strdup(b->k, t), ax);
                    return true;
                }
            }
        return false;
    }
    static const char *const objs[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
    static const enum km_atom_kind kinds[] = {KM_ATOM_THREAD_IDX, KM_ATOM_BLOCK_IDX,
                                              KM_ATOM_BLOCK_DIM, KM_ATOM_GRID_DIM};
    static const char *const hip[] = {"hipThreadIdx_", "hipBlockIdx_", "hipBlockDim_",
                                      "hipGridDim_"};
    char *t = nsqueeze(b, src, n);
    for (int i = 0; i < 4; i++)
        for (int ax = 0; ax < 3; ax++) {
            char a[32], h[32];
            snprintf(a, sizeof(a), "%s.%c", objs[i], "xyz"[ax]);
            snprintf(h, sizeof(h), "%s%c", hip[i], "xyz"[ax]);
            if (strcmp(t, a) == 0 || strcmp(t, h) == 0) {
                *out = named(b, kinds[i], km__strdup(b->k, a), ax);
                return true;
            }
        }
    return false;
}

static km_form expand(kb *b, const macro *m, const km_form *args, uint32_t n_args,
                      uint32_t line);
static bool target(kb *b, const char *src, TSNode n, const char **base, enum km_space *space,
                   km_form *index);

/* A named integer constant (template parameter, file-scope constexpr) or a macro. */
static bool constant(kb *b, const char *name, km_form *out, uint32_t line)
{
    for (size_t i = 0; i < b->am->n_tunables; i++) {
        const an_tunable *t = &b->am->tunables[i];
        bool mine = (t->kind == AN_TUNE_TEMPLATE && t->owner == b->fi) ||
                    (t->kind == AN_TUNE_CONSTEXPR && t->owner == -1);
        if (!mine || strcmp(t->name, name) != 0)
            continue;
        int64_t v;
        bool known = t->value && parse_int(t->value, &v);
        if (t->kind == AN_TUNE_CONSTEXPR && !known && t->value)
            break;   /* registered as a macro by km_build */
        km_atom p = {.kind = KM_ATOM_CONST, .text = name, .name = name, .axis = -1,
                     .loop = -1, .has_value = known, .value = known ? v : 0};
        *out = km__of_atom(b->k, km__atom(b->k, &p));
        return true;
    }
    const macro *m = macro_find(b, name);
    if (m && !m->function) {
        int64_t v;
        if (parse_int(m->value, &v)) {
            km_atom p = {.kind = KM_ATOM_CONST, .text = name, .name = name, .axis = -1,
                         .loop = -1, .has_value = true, .value = v};
            *out = km__of_atom(b->k, km__atom(b->k, &p));
        } else {
            *out = expand(b, m, NULL, 0, line);
        }
        return true;
    }
    return false;
}

/* blockDim.{x,y,z} (axis) as the atom builtin() gives it. */
static void builtin_named(kb *b, enum km_atom_kind kind, int axis, km_form *out)
{
    static const char *const objs[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
    char t[32];
    snprintf(t, sizeof(t), "%s.%c", objs[kind - KM_ATOM_THREAD_IDX], "xyz"[axis]);
    *out = named(b, kind, km__strdup(b->k, t), axis);
}

/* Is the scalar parameter name one the caller's launch facts bind to blockDim.x, and never
 * assigned in the kernel (its value at every use is the one the launch passed)? */
static bool block_x_param(kb *b, const char *name)
{
    const km_launch_facts *lf = b->facts;
    if (!lf || b->n_calls)   /* a callee's parameter of the same name is another variable */
        return false;
    const mut *mu = mut_find(b, name);
    if (mu && (mu->n_mut || mu->stepped))
        return false;
    for (size_t i = 0; i < lf->n_block_x_params; i++)
        if (lf->block_x_params[i] && strcmp(lf->block_x_params[i], name) == 0)
            return true;
    return false;
}

static km_form ident(kb *b, const char *src, TSNode n)
{
    char *name = ntext(b, src, n);
    ent *e = env_find(b, name);
    if (e) {
        if (e->kind == E_POINTER || e->kind == E_ARRAY)
            return literal(b, name);
        return e->form;
    }
    const an_param *p = param_find(b, name);
    if (p && !p->pointer_depth && block_x_param(b, name)) {
        km_form c;
        builtin_named(b, KM_ATOM_BLOCK_DIM, 0, &c);
        return c;
    }
    if (p)
        return p->pointer_depth ? literal(b, name) : named(b, KM_ATOM_PARAM, name, -1);
    km_form c;
    if (constant(b, name, &c, line_of(b, src, n)))
        return c;
    if (strcmp(name, "true") == 0)
        return km__const(b->k, 1);
    if (strcmp(name, "false") == 0 || strcmp(name, "NULL") == 0 || strcmp(name, "nullptr") == 0)
        return km__const(b->k, 0);
    if (builtin(b, src, n, &c))
        return c;
    return named(b, KM_ATOM_NAME, name, -1);
}

static km_form number(kb *b, const char *src, TSNode n)
{
    char *t = ntext(b, src, n);
    int64_t v;
    if (parse_int(t, &v))
        return km__const(b->k, v);
    /* A float: an integral value is that integer (0.0f, 0.f and 0 initialise alike). */
    char *end;
    double d = strtod(t, &end);
    if (end != t && d == (double)(int64_t)d && d > -9e15 && d < 9e15)
        return km__const(b->k, (int64_t)d);
    char buf[64];
    if (end != t)
        snprintf(buf, sizeof(buf), "%.9g", d);
    else
        snprintf(buf, sizeof(buf), "%.60s", t);
    return literal(b, buf);
}

/* Does a definition named name[0, len) (a struct, class or function, also under a
 * template, a preprocessor conditional, a namespace or extern "C") among the children of
 * scope declare __shared__ memory? */
static bool defines_shared(const char *src, TSNode scope, const char *name, uint32_t len, int depth)
{
    if (depth > 8)
        return false;
    for (uint32_t i = 0; i < ts_node_named_child_count(scope); i++) {
        TSNode d = ts_node_named_child(scope, i);
        if (is(d, "preproc_ifdef") || is(d, "preproc_if") || is(d, "preproc_else") || is(d, "preproc_elif") ||
            is(d, "template_declaration") || is(d, "declaration_list") || is(d, "linkage_specification")) {
            if (defines_shared(src, d, name, len, depth + 1))
                return true;
            continue;
        }
        if (is(d, "namespace_definition")) {
            if (defines_shared(src, field(d, "body"), name, len, depth + 1))
                return true;
            continue;
        }
        TSNode id = is(d, "function_definition") ? field(field(d, "declarator"), "declarator") : field(d, "name");
        if (!(is(d, "struct_specifier") || is(d, "class_specifier") || is(d, "function_definition")) ||
            ts_node_is_null(id) || ts_node_end_byte(id) - ts_node_start_byte(id) != len ||
            memcmp(src + ts_node_start_byte(id), name, len) != 0)
            continue;
        for (uint32_t k = ts_node_start_byte(d); k + 10 <= ts_node_end_byte(d); k++)
            if (memcmp(src + k, "__shared__", 10) == 0)
                return true;
    }
    return false;
}

/* Is n a call of a helper defined in the file whose definition declares __shared__
 * memory (defines_shared)? That is how dynamic shared memory of a template type is
 * reached (cuda-samples' `SharedMemory<T>()`, whose conversion operator returns an extern
 * __shared__ array). */
static bool shared_helper(kb *b, const char *src, TSNode n)
{
    n = unparen(n);
    while (is(n, "cast_expression"))
        n = unparen(field(n, "value"));
    if (!is(n, "call_expression") || ts_node_named_child_count(field(n, "arguments")) != 0 || src != b->text)
        return false;
    TSNode fn = field(n, "function");
    if (is(fn, "template_function"))
        fn = field(fn, "name");
    if (!is(fn, "identifier"))
        return false;
    uint32_t fs = ts_node_start_byte(fn);
    return defines_shared(src, ts_tree_root_node(b->tree), src + fs, ts_node_end_byte(fn) - fs, 0);
}

/* Bytes of a scalar or vector element type named t (no qualifiers, no spaces), 0 when not
 * known (a template parameter, a struct). */
static long elem_bytes(const char *t)
{
    static const struct {
        const char *name;
        long bytes;
    } types[] = {
        { "char", 1 }, { "signedchar", 1 }, { "unsignedchar", 1 }, { "int8_t", 1 }, { "uint8_t", 1 },
        { "bool", 1 }, { "short", 2 }, { "unsignedshort", 2 }, { "int16_t", 2 }, { "uint16_t", 2 },
        { "half", 2 }, { "__half", 2 }, { "__nv_bfloat16", 2 }, { "float", 4 }, { "int", 4 },
        { "unsigned", 4 }, { "unsignedint", 4 }, { "int32_t", 4 }, { "uint32_t", 4 }, { "half2", 4 },
        { "__half2", 4 }, { "__nv_bfloat162", 4 }, { "double", 8 }, { "longlong", 8 },
        { "unsignedlonglong", 8 }, { "int64_t", 8 }, { "uint64_t", 8 }, { "size_t", 8 },
        { "float2", 8 }, { "int2", 8 }, { "uint2", 8 }, { "float3", 12 }, { "int3", 12 },
        { "float4", 16 }, { "int4", 16 }, { "uint4", 16 }, { "double2", 16 }, { "longlong2", 16 },
        { "double4", 32 },
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(types); i++)
        if (strcmp(t, types[i].name) == 0)
            return types[i].bytes;
    return 0;
}

/* t (n bytes) without qualifiers, template brackets and blank space, into out (cap bytes). */
static void bare_type(const char *t, size_t n, char *out, size_t cap)
{
    size_t m = 0;
    for (size_t i = 0; i < n && m + 1 < cap;) {
        if (isalpha((unsigned char)t[i]) || t[i] == '_') {
            size_t e = i;
            while (e < n && (isalnum((unsigned char)t[e]) || t[e] == '_'))
                e++;
            size_t wl = e - i;
            bool qual = (wl == 5 && !memcmp(t + i, "const", 5)) || (wl == 8 && !memcmp(t + i, "volatile", 8)) ||
                        (wl == 12 && !memcmp(t + i, "__restrict__", 12)) || (wl == 10 && !memcmp(t + i, "__restrict", 10));
            for (size_t j = i; !qual && j < e && m + 1 < cap; j++)
                out[m++] = t[j];
            i = e;
        } else {
            if (!isspace((unsigned char)t[i]) && t[i] != '<' && t[i] != '>')
                out[m++] = t[i];
            i++;
        }
    }
    out[m] = 0;
}

/* A cast of a pointer into global parameter base to the pointer type spelled by node ty
 * (`(const float4 *)p`, `reinterpret_cast<const float4 *>(p)`): does a subscript through it
 * still count elements of base? Only when the pointee is base's element type or one of
 * the same size; a wider one (float4 over float: p[i] is elements 4i to 4i+3) or one whose
 * size is not known (a template parameter) is not followed, so no access is placed at a
 * wrong element. Any other base (shared, local arrays) keeps the cast as before. */
static bool cast_keeps_unit(kb *b, const char *src, TSNode ty, const char *base, enum km_space space)
{
    if (space != KM_SPACE_GLOBAL || !base || ts_node_is_null(ty))
        return true;
    size_t np = b->k->params.n;
    km_param *ps = b->k->params.v;
    km_param *p = NULL;
    for (size_t i = 0; i < np && !p; i++)
        if (ps[i].pointer && ps[i].name && strcmp(ps[i].name, base) == 0)
            p = &ps[i];
    if (!p || !p->elem_type)
        return true;
    char to[96], from[96];
    uint32_t s = ts_node_start_byte(ty), e = ts_node_end_byte(ty);
    bare_type(src + s, e - s, to, sizeof to);
    bare_type(p->elem_type, strlen(p->elem_type), from, sizeof from);
    size_t tl = strlen(to);
    bool keeps = false;
    if (tl >= 2 && to[tl - 1] == '*' && to[tl - 2] != '*') {   /* a pointer to elements */
        to[tl - 1] = 0;
        long tb = elem_bytes(to), fb = elem_bytes(from);
        keeps = strcmp(to, from) == 0 || !strcmp(to, "void") || (tb && tb == fb);
    }
    if (!keeps && !p->recast_at)
        p->recast_at = line_of(b, src, ty);
    return keeps;
}

/* Pointer expression -> (buffer, space, element offset). */
static bool pointer(kb *b, const char *src, TSNode n, const char **base, enum km_space *space,
                    km_form *off)
{
    n = unparen(n);
    if (is(n, "identifier")) {
        char *name = ntext(b, src, n);
        ent *e = env_find(b, name);
        if (e && (e->kind == E_POINTER || e->kind == E_ARRAY)) {
            *base = e->base;
            *space = e->space;
            *off = e->kind == E_POINTER ? e->form : (km_form){0};
            return true;
        }
        const an_param *p = e ? NULL : param_find(b, name);
        if (p && p->pointer_depth > 0) {
            *base = p->name;
            *space = KM_SPACE_GLOBAL;
            *off = (km_form){0};
            return true;
        }
        return false;
    }
    if (is(n, "cast_expression"))
        return pointer(b, src, field(n, "value"), base, space, off) &&
               cast_keeps_unit(b, src, field(n, "type"), *base, *space);
    if (is(n, "call_expression") && is(field(n, "function"), "template_function")) {
        TSNode args = field(n, "arguments"), fn = field(n, "function"), nm = field(fn, "name");
        bool cast = name_is(src, nm, "reinterpret_cast") || name_is(src, nm, "static_cast") ||
                    name_is(src, nm, "const_cast");
        return ts_node_named_child_count(args) == 1 &&
               pointer(b, src, ts_node_named_child(args, 0), base, space, off) &&
               (!cast || cast_keeps_unit(b, src, field(fn, "arguments"), *base, *space));
    }
    if (is(n, "binary_expression")) {
        const char *op = op_of(n);
        TSNode l = field(n, "left"), r = field(n, "right");
        if (strcmp(op, "+") == 0 || strcmp(op, "-") == 0) {
            if (pointer(b, src, l, base, space, off)) {
                km_form o = eval(b, src, r);
                *off = op[0] == '+' ? km__add(b->k, *off, o) : km__sub(b->k, *off, o);
                return true;
            }
            if (op[0] == '+' && pointer(b, src, r, base, space, off)) {
                *off = km__add(b->k, *off, eval(b, src, l));
                return true;
            }
        }
        return false;
    }
    if (is(n, "pointer_expression") && strcmp(op_of(n), "&") == 0) {
        TSNode a = unparen(field(n, "argument"));
        if (!is(a, "subscript_expression"))
            return false;
        /* &A[i] is A + i */
        return target(b, src, a, base, space, off);
    }
    return false;
}

static TSNode subscript_index(TSNode n)
{
    TSNode i = field(n, "indices");
    if (ts_node_is_null(i))
        i = field(n, "index");
    if (is(i, "subscript_argument_list"))
        i = first_named(i);
    return i;
}

/* The element an lvalue/rvalue subscript or dereference names. */
static bool target(kb *b, const char *src, TSNode n, const char **base, enum km_space *space,
                   km_form *index)
{
    n = unparen(n);
    if (is(n, "pointer_expression") && strcmp(op_of(n), "*") == 0) {
        if (!pointer(b, src, field(n, "argument"), base, space, index))
            return false;
        *index = km__recombine(b->k, *index);
        return true;
    }
    if (!is(n, "subscript_expression"))
        return false;
    TSNode idx[8];
    uint32_t ni = 0;
    while (is(n, "subscript_expression") && ni < HK_ARRAY_LEN(idx)) {
        idx[ni++] = subscript_index(n);
        n = unparen(field(n, "argument"));
    }
    km_form off;
    if (!pointer(b, src, n, base, space, &off))
        return false;
    ent *e = is(n, "identifier") ? env_find(b, ntext(b, src, n)) : NULL;
    const km_form *dims = e && e->kind == E_ARRAY ? e->dims : NULL;
    uint32_t n_dims = dims ? e->n_dims : 0;
    /* a parameter of the kernel's own (not a callee's, not shadowed) declared as an array
     * of arrays */
    for (uint32_t p = 0; !e && b->n_calls == 0 && is(n, "identifier") && p < b->n_pdims; p++)
        if (strcmp(b->pdims[p].name, ntext(b, src, n)) == 0) {
            dims = b->pdims[p].dims;
            n_dims = b->pdims[p].n_dims;
        }
    /* idx[] runs innermost dimension first; linearise with the declared extents. */
    km_form lin = {0};
    for (uint32_t i = ni; i > 0; i--) {
        uint32_t d = ni - i;   /* dimension number, outermost 0 */
        km_form x = eval(b, src, idx[i - 1]);
        if (d > 0) {
            if (dims && d < n_dims && dims[d].n)
                lin = km__mul(b->k, lin, dims[d]);
            else
                lin = km__opaque(b->k, "[]", NULL, &lin, 1);
        }
        lin = km__add(b->k, lin, x);
    }
    *index = km__recombine(b->k, km__add(b->k, off, lin));
    return true;
}

/* The read's site, when it is spelled in the kernel's own text (km_read_site). */
static void site(kb *b, const char *src, TSNode n, const char *base, km_form index)
{
    if (b->quiet || src != b->text || b->n_calls != 0 || b->macro_depth != 0)
        return;
    uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    km_read_site *v = b->k->sites.v;
    for (size_t i = 0; i < b->k->sites.n; i++)
        if (v[i].start == s && v[i].end == e) {
            v[i].ambiguous |= !km_form_equal(v[i].index, index);
            return;
        }
    km_read_site *r = km__push(b->k, &b->k->sites, sizeof(km_read_site));
    r->start = s;
    r->end = e;
    r->buffer = base;
    r->index = index;
    r->loops = copy_ids(b, b->loops, b->n_loops);
    r->n_loops = b->n_loops;
}

static km_form read_at(kb *b, const char *src, TSNode n)
{
    const char *base;
    enum km_space space;
    km_form index;
    if (!target(b, src, n, &base, &space, &index)) {
        /* An element of something the model does not resolve: keep its text. */
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
            (void)eval(b, src, ts_node_named_child(n, i));
        return literal(b, nsqueeze(b, src, n));
    }
    record(b, base, space, KM_READ, false, KM_OP_NONE, index, (km_form){0}, line_of(b, src, n));
    site(b, src, n, base, index);
    return km__read_atom(b->k, base, index);
}

/* x op= r as a form. */
static km_form combine(kb *b, km_form x, const char *op, km_form r)
{
    if (strcmp(op, "+=") == 0)
        return km__add(b->k, x, r);
    if (strcmp(op, "-=") == 0)
        return km__sub(b->k, x, r);
    if (strcmp(op, "*=") == 0)
        return km__mul(b->k, x, r);
    if (strcmp(op, "=") == 0)
        return r;
    char o[4] = {0};
    memcpy(o, op, strlen(op) - 1 < 3 ? strlen(op) - 1 : 3);
    km_form args[2] = {x, r};
    return km__opaque(b->k, o, NULL, args, 2);
}

/* What x = r does to x: a sum, product, max or min with an operand not mentioning x. */
static enum km_op classify(kb *b, uint32_t x, km_form r, km_form *operand)
{
    km_form xf = km__of_atom(b->k, x);
    if (!km_form_mentions(b->k, r, x)) {
        *operand = r;
        return KM_OP_EXCHANGE;
    }
    km_form d = km__sub(b->k, r, xf);
    if (!km_form_mentions(b->k, d, x)) {
        *operand = d;
        return KM_OP_SUM;
    }
    if (r.n == 1) {
        const km_term *t = &r.t[0];
        if (t->n == 1 && km__atom_at(b->k, t->atoms[0])->kind == KM_ATOM_OPAQUE) {
            const km_atom *a = km__atom_at(b->k, t->atoms[0]);
            bool mx = strcmp(a->op, "max") == 0, mn = strcmp(a->op, "min") == 0;
            if ((mx || mn) && a->n_args == 2 && t->coef == 1) {
                for (int i = 0; i < 2; i++)
                    if (km_form_equal(a->args[i], xf) &&
                        !km_form_mentions(b->k, a->args[1 - i], x)) {
                        *operand = a->args[1 - i];
                        return mx ? KM_OP_MAX : KM_OP_MIN;
                    }
            }
        }
        uint32_t hits = 0;
        km_term q = *t;
        q.n = 0;
        for (uint32_t i = 0; i < t->n; i++) {
            if (t->atoms[i] == x && hits++ == 0)
                continue;
            q.atoms[q.n++] = t->atoms[i];
        }
        if (hits == 1) {
            km_term *c = km__alloc(b->k, sizeof(km_term));
            *c = q;
            km_form rest = km__add(b->k, (km_form){c, 1}, (km_form){0});
            if (!km_form_mentions(b->k, rest, x)) {
                *operand = rest;
                return KM_OP_PRODUCT;
            }
        }
    }
    *operand = r;
    return KM_OP_OTHER;
}

static void acc_update(kb *b, ent *e, km_form r, uint32_t line)
{
    km_accumulator *a = (km_accumulator *)b->k->accs.v + e->acc;
    uint32_t x = e->form.t[0].atoms[0];
    km_form operand;
    enum km_op op = classify(b, x, r, &operand);
    if (op == KM_OP_EXCHANGE)
        op = KM_OP_OTHER;
    if (!b->quiet) {   /* each update once, where it is (as record lists accesses) */
        uint32_t g[KM_ITEMS_MAX / 16];
        uint32_t ng = guards_in_force(b, g, HK_ARRAY_LEN(g));
        km_acc_update *u = km__push(b->k, &b->k->updates, sizeof(km_acc_update));
        u->acc = (uint32_t)e->acc;
        u->op = op;
        u->operand = operand;
        u->loops = copy_ids(b, b->loops, b->n_loops);
        u->n_loops = b->n_loops;
        u->guards = copy_ids(b, g, ng);
        u->n_guards = ng;
        u->line = line;
    }
    if (a->n_updates++ == 0) {
        a->op = op;
        a->operand = operand;
        a->loop = b->n_loops ? (long)b->loops[b->n_loops - 1] : -1;
    } else if (a->op != op) {
        a->op = KM_OP_OTHER;
    }
}

/* Is the statement of assignment n run whenever the code around it is: inside nothing
 * but statement blocks and loops (no if, switch, ?:, comma or loop header)? */
static bool unconditional(TSNode n)
{
    TSNode p = ts_node_parent(n);
    if (!is(p, "expression_statement"))
        return false;
    for (p = ts_node_parent(p); !ts_node_is_null(p); p = ts_node_parent(p)) {
        if (is(p, "function_definition"))
            return true;
        if (!is(p, "compound_statement") && !is(p, "for_statement"))
            return false;
    }
    return false;
}

/* `p += off` of a pointer parameter moved once (b->move_state): its offset, read when the
 * move is unconditional, outside every loop but grid-stride ones, and off does not
 * mention p. A move walked twice (a loop body walked again) must agree. */
static void move_param(kb *b, const char *src, TSNode n, const char *name, const ent *e,
                       const char *op, km_form rv)
{
    if (!b->move_state || b->n_calls || src != b->text)
        return;
    for (size_t i = 0; i < b->f->n_params; i++) {
        if (strcmp(b->f->params[i].name, name) != 0 || !b->move_state[i])
            continue;
        if (e->form.n != 1 || e->form.t[0].n != 1 || e->form.t[0].coef != 1 ||
            e->form.t[0].atoms[0] != b->move_atom[i] || !e->base || strcmp(e->base, name) != 0)
            return;   /* a local of the same name */
        bool ok = strcmp(op, "+=") == 0 && unconditional(n) &&
                  !km_form_mentions(b->k, rv, b->move_atom[i]);
        const km_loop *ls = b->k->loops.v;
        bool in_gs = false;
        for (uint32_t j = 0; ok && j < b->n_loops; j++) {
            ok = ls[b->loops[j]].kind == KM_LOOP_GRID_STRIDE;
            in_gs = true;
        }
        km_form off = km__drop_grid_counters(b->k, rv);
        km_param *q = (km_param *)b->k->params.v + i;
        uint32_t line = line_of(b, src, n);
        if (ok && b->move_state[i] == 2)
            ok = q->moved_at == line && km_form_equal(b->move_off[i], off);
        if (!ok) {
            b->move_state[i] = 3;
            q->moved_at = 0;
            return;
        }
        if (b->move_state[i] == 1) {
            b->move_state[i] = 2;
            b->move_off[i] = off;
            q->moved_at = line;
            q->moved_in_grid_stride = in_gs;
        }
        return;
    }
}

/* f with atom replaced by the form by (atom at most once in a term, never inside an
 * opaque atom's operands); false when it is not that simple. */
static bool subst_atom(kb *b, km_form f, uint32_t atom, km_form by, km_form *out)
{
    km_form r = {0};
    for (uint32_t i = 0; i < f.n; i++) {
        const km_term *t = &f.t[i];
        km_form term = km__const(b->k, t->coef);
        int seen = 0;
        for (uint32_t j = 0; j < t->n; j++) {
            if (t->atoms[j] == atom) {
                seen++;
                term = km__mul(b->k, term, by);
                continue;
            }
            km_form x = km__of_atom(b->k, t->atoms[j]);
            if (km_form_mentions(b->k, x, atom))
                return false;
            term = km__mul(b->k, term, x);
        }
        if (seen > 1)
            return false;
        r = km__add(b->k, r, term);
    }
    *out = r;
    return true;
}

/* `x op= c` on a local the model does not follow, inside a loop: a geometric step (x *= c,
 * x <<= c, x >>= c, x /= c, c a constant >= 1) marks the innermost loop in its km_local. */
static void var_step(kb *b, const ent *e, const char *op, km_form rv)
{
    int64_t c;
    bool shift = !strcmp(op, "<<=") || !strcmp(op, ">>=");
    if (!(shift || !strcmp(op, "*=") || !strcmp(op, "/=")) || !km_form_value(b->k, rv, &c) ||
        c < (shift ? 1 : 2) || (shift && c > 30))
        return;
    uint32_t l = b->loops[b->n_loops - 1];
    km_local *ls = b->k->locals.v;
    for (size_t i = b->k->locals.n; l < 64 && i-- > 0;)
        if (ls[i].kind == KM_LOCAL_VAR && !strcmp(ls[i].name, e->name) &&
            km_form_equal(ls[i].form, e->form)) {
            ls[i].geometric_in |= (uint64_t)1 << l;
            return;
        }
}

static km_form assign(kb *b, const char *src, TSNode n)
{
    TSNode l = unparen(field(n, "left")), r = field(n, "right");
    const char *op = op_of(n);
    uint32_t line = line_of(b, src, n);
    if (is(l, "identifier")) {
        km_form rv = eval(b, src, r);   /* first: evaluating may grow the environment */
        ent *e = env_find(b, ntext(b, src, l));
        if (!e)
            return rv;
        if (e->kind == E_ACC) {
            km_form nv = combine(b, e->form, op, rv);
            acc_update(b, e, nv, line);
            return e->form;
        }
        if (e->kind == E_VALUE) {
            e->form = combine(b, e->form, op, rv);
            return e->form;
        }
        if (e->kind == E_VAR && b->n_loops && !b->quiet)
            var_step(b, e, op, rv);
        if (e->kind == E_POINTER && e->induct) {
            const char *base;
            enum km_space space;
            km_form off;
            if (strcmp(op, "+=") == 0) {
                e->form = km__add(b->k, e->form, rv);
            } else if (strcmp(op, "-=") == 0) {
                e->form = km__sub(b->k, e->form, rv);
            } else {
                b->quiet++;   /* p = p + s: rv above recorded what s reads */
                bool ok = strcmp(op, "=") == 0 && pointer(b, src, r, &base, &space, &off);
                b->quiet--;
                e = env_find(b, ntext(b, src, l));
                if (ok && base == e->base)
                    e->form = off;
                else
                    e->form = fresh_var(b);
            }
            return rv;
        }
        if (e->kind == E_POINTER)
            move_param(b, src, n, ntext(b, src, l), e, op, rv);
        return rv;
    }
    const char *base;
    enum km_space space;
    km_form index;
    if (!target(b, src, l, &base, &space, &index)) {
        (void)eval(b, src, l);
        return eval(b, src, r);
    }
    size_t before = b->k->accesses.n;
    km_form rv = eval(b, src, r);
    km_form old = km__read_atom(b->k, base, index);
    enum km_mode mode = KM_WRITE;
    enum km_op kop = KM_OP_NONE;
    km_form value = rv;
    if (strcmp(op, "=") != 0) {
        mode = KM_RMW;
        kop = classify(b, old.t[0].atoms[0], combine(b, old, op, rv), &value);
    } else {
        km_access *as = b->k->accesses.v;
        for (size_t i = before; i < b->k->accesses.n; i++)
            if (as[i].mode == KM_READ && strcmp(as[i].buffer, base) == 0 &&
                km_form_equal(as[i].index, index)) {
                memmove(&as[i], &as[i + 1], (b->k->accesses.n - i - 1) * sizeof(*as));
                b->k->accesses.n--;
                mode = KM_RMW;
                kop = classify(b, old.t[0].atoms[0], rv, &value);
                break;
            }
    }
    record(b, base, space, mode, false, kop, index, value, line);
    return value;
}

static km_form update(kb *b, const char *src, TSNode n)
{
    TSNode a = unparen(field(n, "argument"));
    bool inc = strcmp(op_of(n), "++") == 0;
    km_form one = km__const(b->k, inc ? 1 : -1);
    if (is(a, "identifier")) {
        ent *e = env_find(b, ntext(b, src, a));
        if (e && e->kind == E_ACC)
            acc_update(b, e, km__add(b->k, e->form, one), line_of(b, src, n));
        else if (e && (e->kind == E_VALUE || (e->kind == E_POINTER && e->induct)))
            e->form = km__add(b->k, e->form, one);
        return e ? e->form : literal(b, nsqueeze(b, src, n));
    }
    const char *base;
    enum km_space space;
    km_form index;
    if (target(b, src, a, &base, &space, &index))
        record(b, base, space, KM_RMW, false, KM_OP_SUM, index, one, line_of(b, src, n));
    return literal(b, nsqueeze(b, src, n));
}

static enum km_op atomic_op(const char *name)
{
    static const struct { const char *prefix; enum km_op op; } rows[] = {
        {"atomicAdd", KM_OP_SUM}, {"atomicSub", KM_OP_SUM}, {"atomicMax", KM_OP_MAX},
        {"atomicMin", KM_OP_MIN}, {"atomicExch", KM_OP_EXCHANGE}, {"atomicCAS", KM_OP_OTHER},
        {"atomicAnd", KM_OP_BITWISE}, {"atomicOr", KM_OP_BITWISE}, {"atomicXor", KM_OP_BITWISE},
        {"atomicInc", KM_OP_OTHER}, {"atomicDec", KM_OP_OTHER}, {"unsafeAtomicAdd", KM_OP_SUM},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(rows); i++) {
        size_t l = strlen(rows[i].prefix);
        if (strncmp(name, rows[i].prefix, l) == 0 && (name[l] == 0 || name[l] == '_'))
            return rows[i].op;
    }
    return KM_OP_NONE;
}

static bool inline_call(kb *b, const char *src, TSNode n, km_form *out);
static bool fits24(kb *b, km_form f);

static km_form call(kb *b, const char *src, TSNode n)
{
    TSNode fn = field(n, "function"), args = field(n, "arguments");
    uint32_t na = ts_node_named_child_count(args);
    uint32_t line = line_of(b, src, n);
    if (is(fn, "template_function")) {
        TSNode nm = field(fn, "name");
        if ((name_is(src, nm, "static_cast") || name_is(src, nm, "reinterpret_cast") ||
             name_is(src, nm, "const_cast")) && na == 1)
            return eval(b, src, ts_node_named_child(args, 0));
    }
    char *name = nsqueeze(b, src, fn);
    if (is(fn, "identifier")) {
        const macro *m = macro_find(b, name);
        if (m && m->function && m->n_params == na) {
            km_form *av = km__alloc(b->k, sizeof(km_form) * (na ? na : 1));
            for (uint32_t i = 0; i < na; i++)
                av[i] = eval(b, src, ts_node_named_child(args, i));
            return expand(b, m, av, na, line);
        }
        enum km_op aop = atomic_op(name);
        if (aop != KM_OP_NONE && na >= 1) {
            const char *base;
            enum km_space space;
            km_form index;
            km_form v = na >= 2 ? eval(b, src, ts_node_named_child(args, na - 1)) : (km_form){0};
            if (strncmp(name, "atomicSub", 9) == 0)
                v = km__scale(b->k, v, -1);
            if (pointer(b, src, ts_node_named_child(args, 0), &base, &space, &index))
                record(b, base, space, KM_RMW, true, aop, km__recombine(b->k, index), v, line);
            return literal(b, nsqueeze(b, src, n));
        }
        if (strncmp(name, "__syncthreads", 13) == 0) {
            if (!b->quiet)
                b->k->barriers++;
            return (km_form){0};
        }
        if (strcmp(name, "__ldg") == 0 && na == 1) {
            const char *base;
            enum km_space space;
            km_form index;
            if (pointer(b, src, ts_node_named_child(args, 0), &base, &space, &index)) {
                index = km__recombine(b->k, index);
                record(b, base, space, KM_READ, false, KM_OP_NONE, index, (km_form){0}, line);
                site(b, src, n, base, index);
                return km__read_atom(b->k, base, index);
            }
        }
    }
    km_form inl;
    if (inline_call(b, src, n, &inl))
        return inl;
    km_form av[8];
    uint32_t m = na < 8 ? na : 8;
    for (uint32_t i = 0; i < na; i++) {
        km_form v = eval(b, src, ts_node_named_child(args, i));
        if (i < m)
            av[i] = v;
    }
    static const char *const fma[] = {"fmaf", "fma", "__fmaf_rn", "__fma_rn", "__fmaf_ieee_rn"};
    static const char *const add[] = {"__fadd_rn", "__dadd_rn"};
    static const char *const mul[] = {"__fmul_rn", "__dmul_rn"};
    static const char *const mx[] = {"max", "fmaxf", "fmax", "__hmax", "std::max", "::max"};
    static const char *const mn[] = {"min", "fminf", "fmin", "__hmin", "std::min", "::min"};
    if (m == 3 && in_list(name, fma, HK_ARRAY_LEN(fma)))
        return km__add(b->k, km__mul(b->k, av[0], av[1]), av[2]);
    if (m == 2 && in_list(name, add, HK_ARRAY_LEN(add)))
        return km__add(b->k, av[0], av[1]);
    if (m == 2 && in_list(name, mul, HK_ARRAY_LEN(mul)))
        return km__mul(b->k, av[0], av[1]);
    static const char *const mul24[] = {"__umul24", "__mul24"};
    if (m == 2 && in_list(name, mul24, HK_ARRAY_LEN(mul24)) && fits24(b, av[0]) && fits24(b, av[1]))
        return km__mul(b->k, av[0], av[1]);
    if (m == 2 && in_list(name, mx, HK_ARRAY_LEN(mx)))
        return km__opaque(b->k, "max", NULL, av, 2);
    if (m == 2 && in_list(name, mn, HK_ARRAY_LEN(mn)))
        return km__opaque(b->k, "min", NULL, av, 2);
    return km__opaque(b->k, "call", name, av, m);
}

static km_form ident(kb *b, const char *src, TSNode n);

/* The right operand of a misread `<`: the template argument text. */
static km_form misread_rhs(kb *b, const char *src, TSNode leaf)
{
    TSNode args = field(field(leaf, "field"), "arguments");
    TSNode d = first_named(args);
    if (is(d, "type_descriptor"))
        d = first_named(d);
    if (is(d, "type_identifier"))
        return ident(b, src, d);
    return ts_node_is_null(d) ? (km_form){0} : eval(b, src, d);
}

/* Does f fit __umul24's (unsigned) or __mul24's (signed) 24-bit operand, so that the call
 * is the plain product? A literal in [0, 2^23), a builtin id or dim (threadIdx and blockDim
 * are at most 1024, the y and z grid ids and dims at most 65535), a named constant of known
 * value in range. blockIdx.x and gridDim.x may reach 2^31 - 1 on the hardware; a kernel
 * that passes them to __umul24 (cuda-samples' UMUL) is written for grids of fewer than
 * 2^23 blocks, and is read so: the product is what its author computes. */
static bool fits24(kb *b, km_form f)
{
    if (f.n == 0)
        return true;
    if (f.n != 1)
        return false;
    const km_term *t = &f.t[0];
    if (t->coef < 0 || t->coef >= (1 << 23))
        return false;
    if (t->n == 0)
        return true;
    if (t->n != 1 || t->coef != 1)
        return false;
    const km_atom *a = km__atom_at(b->k, t->atoms[0]);
    switch (a->kind) {
    case KM_ATOM_THREAD_IDX:
    case KM_ATOM_BLOCK_IDX:
    case KM_ATOM_BLOCK_DIM:
    case KM_ATOM_GRID_DIM:
        return true;
    case KM_ATOM_CONST:
        return a->has_value && a->value >= 0 && a->value < (1 << 23);
    default:
        return false;
    }
}

/* Is f a sum of products of thread and block ids, dims and loop counters with positive
 * coefficients (never negative)? */
static bool nonnegative(kb *b, km_form f)
{
    for (uint32_t i = 0; i < f.n; i++) {
        if (f.t[i].coef < 0)
            return false;
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            enum km_atom_kind kd = km__atom_at(b->k, f.t[i].atoms[j])->kind;
            if (kd != KM_ATOM_THREAD_IDX && kd != KM_ATOM_BLOCK_IDX &&
                kd != KM_ATOM_BLOCK_DIM && kd != KM_ATOM_GRID_DIM && kd != KM_ATOM_LOOP)
                return false;
        }
    }
    return true;
}

/* Does a guard in force say 0 <= l < r? l is x or x / d (then x < d*r is asked), x a
 * nonnegative form: `if (i < N*C*H*W)` makes the outermost coordinate's `% N` of a
 * split index a no-op, (i / (C*H*W)) % N is i / (C*H*W). */
static bool below(kb *b, km_form l, km_form r)
{
    km_form x = l, bound = r;
    if (l.n == 1 && l.t[0].n == 1 && l.t[0].coef == 1) {
        const km_atom *a = km__atom_at(b->k, l.t[0].atoms[0]);
        if (a->kind == KM_ATOM_OPAQUE && strcmp(a->op, "/") == 0 && a->n_args == 2) {
            x = a->args[0];
            bound = km__mul(b->k, a->args[1], r);
        }
    }
    if (!nonnegative(b, x))
        return false;
    const gstack *gs = b->gs.v;
    const km_guard *gd = b->k->guards.v;
    for (size_t i = 0; i < b->gs.n; i++) {
        const km_guard *g = &gd[gs[i].id];
        if (strcmp(g->op, "<") == 0 && km_form_equal(g->lhs, x) && km_form_equal(g->rhs, bound))
            return true;
    }
    return false;
}

static km_form binary(kb *b, const char *src, TSNode n)
{
    TSNode leaf;
    if (!b->plain && misread_less(src, n, &leaf)) {
        km_form a[2] = {eval_plain(b, src, n), misread_rhs(b, src, leaf)};
        return km__opaque(b->k, "<", NULL, a, 2);
    }
    const char *op = op_of(n);
    km_form l = eval(b, src, field(n, "left"));
    km_form r = eval(b, src, field(n, "right"));
    int64_t c;
    if (strcmp(op, "+") == 0)
        return km__add(b->k, l, r);
    if (strcmp(op, "-") == 0)
        return km__sub(b->k, l, r);
    if (strcmp(op, "*") == 0)
        return km__mul(b->k, l, r);
    if (strcmp(op, "<<") == 0 && km__is_const(r, &c) && c >= 0 && c < 62)
        return km__scale(b->k, l, (int64_t)1 << c);
    if ((strcmp(op, "/") == 0 || strcmp(op, "%") == 0) && below(b, l, r))
        return op[0] == '/' ? (km_form){0} : l;   /* 0 <= l < r */
    if (strcmp(op, "/") == 0)
        return km__div(b->k, l, r);
    if (strcmp(op, "%") == 0)
        return km__mod(b->k, l, r);
    km_form args[2] = {l, r};
    /* a > b is b < a, so comparisons have one spelling */
    if (strcmp(op, ">") == 0 || strcmp(op, ">=") == 0) {
        km_form s[2] = {r, l};
        return km__opaque(b->k, op[1] ? "<=" : "<", NULL, s, 2);
    }
    return km__opaque(b->k, op, NULL, args, 2);
}

/* n with its misread leaf taken as the builtin alone (the left side of the `<`). */
static km_form eval_plain(kb *b, const char *src, TSNode n)
{
    b->plain++;
    km_form r = eval(b, src, n);
    b->plain--;
    return r;
}

static km_form eval(kb *b, const char *src, TSNode n)
{
    if (ts_node_is_null(n))
        return (km_form){0};
    if (b->depth > KB_DEPTH_MAX)
        return literal(b, "$deep");
    b->depth++;
    km_form r;
    const char *t = ts_node_type(n);
    if (strcmp(t, "number_literal") == 0) {
        r = number(b, src, n);
    } else if (strcmp(t, "identifier") == 0) {
        r = ident(b, src, n);
    } else if (strcmp(t, "true") == 0) {
        r = km__const(b->k, 1);
    } else if (strcmp(t, "false") == 0 || strcmp(t, "null") == 0 || strcmp(t, "nullptr") == 0) {
        r = (km_form){0};
    } else if (strcmp(t, "field_expression") == 0) {
        TSNode leaf;
        if (!b->plain && misread_less(src, n, &leaf)) {
            km_form a[2] = {eval_plain(b, src, n), misread_rhs(b, src, leaf)};
            r = km__opaque(b->k, "<", NULL, a, 2);
        } else if (!builtin(b, src, n, &r)) {
            (void)eval(b, src, field(n, "argument"));
            r = literal(b, nsqueeze(b, src, n));
        }
    } else if (strcmp(t, "parenthesized_expression") == 0 || strcmp(t, "condition_clause") == 0) {
        r = eval(b, src, unparen(n));
    } else if (strcmp(t, "cast_expression") == 0) {
        r = eval(b, src, field(n, "value"));
    } else if (strcmp(t, "call_expression") == 0) {
        r = call(b, src, n);
    } else if (strcmp(t, "binary_expression") == 0) {
        r = binary(b, src, n);
    } else if (strcmp(t, "unary_expression") == 0) {
        const char *op = op_of(n);
        km_form a = eval(b, src, field(n, "argument"));
        if (strcmp(op, "-") == 0)
            r = km__scale(b->k, a, -1);
        else if (strcmp(op, "+") == 0)
            r = a;
        else
            r = km__opaque(b->k, op, NULL, &a, 1);
    } else if (strcmp(t, "subscript_expression") == 0) {
        r = read_at(b, src, n);
    } else if (strcmp(t, "pointer_expression") == 0) {
        if (strcmp(op_of(n), "*") == 0) {
            r = read_at(b, src, n);
        } else {
            const char *base;
            enum km_space space;
            km_form off;
            if (pointer(b, src, n, &base, &space, &off)) {
                km_form a = km__read_atom(b->k, base, off);
                r = km__opaque(b->k, "&", NULL, &a, 1);
            } else {
                r = literal(b, nsqueeze(b, src, n));
            }
        }
    } else if (strcmp(t, "conditional_expression") == 0) {
        km_form a[3] = {eval(b, src, field(n, "condition")), eval(b, src, field(n, "consequence")),
                        eval(b, src, field(n, "alternative"))};
        r = km__opaque(b->k, "?:", NULL, a, 3);
    } else if (strcmp(t, "assignment_expression") == 0) {
        r = assign(b, src, n);
    } else if (strcmp(t, "update_expression") == 0) {
        r = update(b, src, n);
    } else if (strcmp(t, "comma_expression") == 0) {
        (void)eval(b, src, field(n, "left"));
        r = eval(b, src, field(n, "right"));
    } else {
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
            (void)eval(b, src, ts_node_named_child(n, i));
        r = literal(b, nsqueeze(b, src, n));
    }
    b->depth--;
    return r;
}

/* Parses a macro's value on its own (once) and evaluates it with its parameters bound. */
static km_form expand(kb *b, const macro *cm, const km_form *args, uint32_t n_args,
                      uint32_t line)
{
    macro *m = (macro *)cm;
    if (!m->value[0])
        return (km_form){0};
    if (b->macro_depth >= KB_MACRO_DEPTH_MAX)
        return literal(b, m->name);
    if (!m->tree) {
        /* `(_i)+x` would parse as a cast of +x to a type _i: a parameter in parentheses
         * becomes `((_i))`, which is never a cast (Index3D(_nx,_ny,_i,_j,_k) in Parboil) */
        size_t vl = strlen(m->value);
        m->snippet = km__alloc(b->k, 3 * vl + 32);
        char *o = m->snippet + sprintf(m->snippet, "int km__v = (");
        for (size_t i = 0; i < vl;) {
            size_t s = i + 1, e;
            while (m->value[i] == '(' && isspace((unsigned char)m->value[s]))
                s++;
            e = s;
            while (m->value[i] == '(' && (isalnum((unsigned char)m->value[e]) || m->value[e] == '_'))
                e++;
            size_t t = e;
            while (e > s && isspace((unsigned char)m->value[t]))
                t++;
            bool param = false;
            for (uint32_t p = 0; e > s && m->value[t] == ')' && p < m->n_params; p++)
                param |= strlen(m->params[p]) == e - s &&
                         memcmp(m->params[p], m->value + s, e - s) == 0;
            if (param) {
                o += sprintf(o, "((%.*s))", (int)(e - s), m->value + s);
                i = t + 1;
            } else {
                *o++ = m->value[i++];
            }
        }
        strcpy(o, ");\n");
        m->tree = ts_parser_parse_string(b->parser, NULL, m->snippet, (uint32_t)strlen(m->snippet));
        if (!m->tree)
            return literal(b, m->name);
    }
    TSNode root = ts_tree_root_node(m->tree);
    TSNode decl = first_named(root);
    TSNode init = is(decl, "declaration") ? field(decl, "declarator") : (TSNode){0};
    TSNode val = is(init, "init_declarator") ? field(init, "value") : (TSNode){0};
    if (ts_node_is_null(val) || ts_node_has_error(root))
        return literal(b, m->name);
    uint32_t saved = b->line;
    b->line = line;
    b->macro_depth++;
    enter(b);
    for (uint32_t i = 0; i < n_args && i < m->n_params; i++)
        env_push(b, m->params[i], E_VALUE)->form = args[i];
    /* Macro parameters hide locals of the same name; nothing else is in scope of the
     * macro but what the caller sees, as with the preprocessor. */
    km_form r = eval(b, m->snippet, val);
    leave(b);
    b->macro_depth--;
    b->line = saved;
    return r;
}

/* ---- conditions ------------------------------------------------------------------ */

static void guards(kb *b, const char *src, TSNode n, bool neg, uint32_t line)
{
    n = unparen(n);
    const char *op = is(n, "binary_expression") || is(n, "unary_expression") ? op_of(n) : "";
    if (is(n, "unary_expression") && strcmp(op, "!") == 0) {
        guards(b, src, field(n, "argument"), !neg, line);
        return;
    }
    if ((strcmp(op, "&&") == 0 && !neg) || (strcmp(op, "||") == 0 && neg)) {
        guards(b, src, field(n, "left"), neg, line);
        guards(b, src, field(n, "right"), neg, line);
        return;
    }
    static const char *const rel[] = {"<", "<=", ">", ">=", "==", "!="};
    TSNode leaf;
    bool misread = misread_less(src, n, &leaf);
    if (misread || (is(n, "binary_expression") && in_list(op, rel, HK_ARRAY_LEN(rel)))) {
        km_form l, r;
        if (misread) {
            l = eval_plain(b, src, n);
            r = misread_rhs(b, src, leaf);
            op = "<";
        } else {
            l = eval(b, src, field(n, "left"));
            r = eval(b, src, field(n, "right"));
        }
        /* to l < r, l <= r, l == r, l != r, negation applied */
        bool swap = op[0] == '>';
        bool strict = strcmp(op, "<") == 0 || strcmp(op, ">") == 0;
        if (op[0] == '=' || op[0] == '!') {
            bool eq = (op[0] == '=') != neg;
            char tl[KM_TEXT_MAX], tr[KM_TEXT_MAX];   /* symmetric: operands in text order */
            km__form_text(b->k, l, tl, sizeof(tl));
            km__form_text(b->k, r, tr, sizeof(tr));
            bool sw = strcmp(tl, tr) > 0;
            guard_push(b, sw ? r : l, eq ? "==" : "!=", sw ? l : r, line);
            return;
        }
        if (neg) {   /* !(l < r) is r <= l */
            swap = !swap;
            strict = !strict;
        }
        guard_push(b, swap ? r : l, strict ? "<" : "<=", swap ? l : r, line);
        return;
    }
    km_form c = eval(b, src, n);
    guard_push(b, c, neg ? "false" : "true", (km_form){0}, line);
}

/* ---- statements ------------------------------------------------------------------ */

static bool is_exit(TSNode n)
{
    /* `{ return; }`, comments aside (`{  // out of range` on the if's line) */
    if (is(n, "compound_statement")) {
        TSNode only = n;
        uint32_t k = 0;
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
            TSNode c = ts_node_named_child(n, i);
            if (!is(c, "comment")) {
                only = c;
                k++;
            }
        }
        if (k != 1)
            return false;
        n = only;
    }
    return is(n, "return_statement") || is(n, "continue_statement");
}

static TSNode declarator_name(TSNode d, bool *ptr, TSNode *sizes, uint32_t *n_sizes)
{
    *n_sizes = 0;
    *ptr = false;
    for (;;) {
        if (is(d, "pointer_declarator") || is(d, "reference_declarator")) {
            *ptr |= is(d, "pointer_declarator");
            d = is(d, "pointer_declarator") ? field(d, "declarator") : first_named(d);
        } else if (is(d, "array_declarator")) {
            if (*n_sizes < 8)
                sizes[(*n_sizes)++] = field(d, "size");
            d = field(d, "declarator");
        } else if (is(d, "parenthesized_declarator") || is(d, "attributed_declarator")) {
            d = first_named(d);
        } else {
            return d;
        }
    }
}

/* Session 48 (spatial): the extents of the kernel's parameters declared as arrays of arrays,
 * `float A[N][M]` (a pointer to rows of M: A[i][j] is element i * M + j) or `float (*A)[M]`,
 * from the definition's declarators; without them `A[i - 1][j]` was an opaque row and its
 * offset lost. An array of pointers (`float *A[N]`) is not one. */
static void param_dims(kb *b, const char *src, TSNode body)
{
    TSNode fn = ts_node_parent(body);
    if (ts_node_is_null(fn) || !is(fn, "function_definition"))
        return;
    TSNode d = field(fn, "declarator");
    while (!ts_node_is_null(d) && !is(d, "function_declarator")) {
        if (is(d, "pointer_declarator") || is(d, "reference_declarator") || is(d, "attributed_declarator") ||
            is(d, "parenthesized_declarator"))
            d = is(d, "pointer_declarator") ? field(d, "declarator") : first_named(d);
        else
            return;
    }
    TSNode pl = ts_node_is_null(d) ? d : field(d, "parameters");
    for (uint32_t i = 0; !ts_node_is_null(pl) && i < ts_node_named_child_count(pl); i++) {
        TSNode p = ts_node_named_child(pl, i);
        if (!is(p, "parameter_declaration") || b->n_pdims == HK_ARRAY_LEN(b->pdims))
            continue;
        TSNode x = field(p, "declarator"), sizes[8];
        uint32_t ns = 0;
        while (!ts_node_is_null(x) && is(x, "array_declarator") && ns < HK_ARRAY_LEN(sizes)) {
            sizes[ns++] = field(x, "size");   /* innermost first */
            x = field(x, "declarator");
        }
        bool outer = false;   /* (*A)[M]: one more extent, outermost, unknown */
        if (ns && !ts_node_is_null(x) && is(x, "parenthesized_declarator")) {
            TSNode y = first_named(x);
            if (!ts_node_is_null(y) && is(y, "pointer_declarator")) {
                outer = true;
                x = field(y, "declarator");
            }
        }
        if (ts_node_is_null(x) || !is(x, "identifier") || ns + outer < 2)
            continue;
        uint32_t nd = ns + outer;
        km_form *dims = km__alloc(b->k, sizeof(km_form) * nd);
        dims[0] = (km_form){0};
        for (uint32_t j = 0; j < ns; j++) {
            TSNode sz = sizes[ns - 1 - j];
            dims[outer + j] = ts_node_is_null(sz) ? (km_form){0} : eval(b, src, sz);
        }
        b->pdims[b->n_pdims].name = ntext(b, src, x);
        b->pdims[b->n_pdims].dims = dims;
        b->pdims[b->n_pdims++].n_dims = nd;
    }
}

static bool induction_ok(kb *b, const char *src, TSNode decl, const char *name);

static void declaration(kb *b, const char *src, TSNode n)
{
    bool shared = false;
    for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
        TSNode c = ts_node_child(n, i);
        if ((is(c, "type_qualifier") || is(c, "storage_class_specifier") ||
             is(c, "attribute_specifier")) && name_is(src, c, "__shared__"))
            shared = true;
    }
    static const char *const decls[] = {"init_declarator", "identifier", "pointer_declarator",
                                        "array_declarator", "reference_declarator",
                                        "parenthesized_declarator", "attributed_declarator"};
    TSNode type = field(n, "type");
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
        TSNode d = ts_node_named_child(n, i), value = {0};
        if (ts_node_eq(d, type) || !in_list(ts_node_type(d), decls, HK_ARRAY_LEN(decls)))
            continue;
        if (is(d, "init_declarator")) {
            value = field(d, "value");
            d = field(d, "declarator");
        }
        bool ptr;
        TSNode sizes[8];
        uint32_t ns;
        TSNode id = declarator_name(d, &ptr, sizes, &ns);
        if (!is(id, "identifier"))
            continue;
        char *name = ntext(b, src, id);
        uint32_t line = line_of(b, src, n);
        const mut *mu = mut_find(b, name);
        if (ns > 0) {
            km_form *dims = km__alloc(b->k, sizeof(km_form) * ns);
            km_form count = km__const(b->k, 1);
            bool open = false;
            for (uint32_t j = 0; j < ns; j++) {   /* sizes[] runs innermost first */
                TSNode s = sizes[ns - 1 - j];
                open |= ts_node_is_null(s);
                dims[j] = ts_node_is_null(s) ? (km_form){0} : eval(b, src, s);
                count = km__mul(b->k, count, dims[j]);
            }
            ent *e = env_push(b, name, E_ARRAY);
            e->base = name;
            e->space = shared ? KM_SPACE_SHARED : KM_SPACE_LOCAL;
            e->dims = dims;
            e->n_dims = ns;
            km_local *l = local_push(b, name, KM_LOCAL_ARRAY, open ? (km_form){0} : count, line);
            l->space = e->space;
            if (!ts_node_is_null(value))
                (void)eval(b, src, value);
            continue;
        }
        if (ptr) {
            const char *base;
            enum km_space space;
            km_form off;
            if (!ts_node_is_null(value) && pointer(b, src, value, &base, &space, &off)) {
                bool moved = mu && (mu->n_mut || mu->stepped);
                bool induct = moved && !mu->stepped && induction_ok(b, src, n, name);
                ent *e = env_push(b, name, E_POINTER);
                e->base = base;
                e->space = space;
                e->form = moved && !induct ? fresh_var(b) : off;
                e->induct = induct;
                local_push(b, name, KM_LOCAL_POINTER, e->form, line)->base = base;
            } else if (!ts_node_is_null(value) && !(mu && (mu->n_mut || mu->stepped)) &&
                       shared_helper(b, src, value)) {
                /* dynamic shared memory through a helper (T *s = SharedMemory<T>()):
                 * the local is the shared array */
                ent *e = env_push(b, name, E_POINTER);
                e->base = name;
                e->space = KM_SPACE_SHARED;
                e->form = (km_form){0};
                local_push(b, name, KM_LOCAL_POINTER, e->form, line)->base = name;
            } else {
                if (!ts_node_is_null(value))
                    (void)eval(b, src, value);
                env_push(b, name, E_VAR)->form = fresh_var(b);
            }
            continue;
        }
        int depth = (int)b->n_loops;
        km_form v = ts_node_is_null(value) ? (km_form){0} : eval(b, src, value);
        if (mu && mu->n_mut && mu->max_depth > depth && !mu->plain && !mu->indexes) {
            km_accumulator *a = km__push(b->k, &b->k->accs, sizeof(km_accumulator));
            long ai = (long)b->k->accs.n - 1;
            char t[32];
            snprintf(t, sizeof(t), "$acc%ld", ai);
            km_atom p = {.kind = KM_ATOM_ACC, .text = t, .axis = -1, .loop = ai};
            a->name = name;
            a->init = v;
            a->loop = -1;
            a->line = line;
            ent *e = env_push(b, name, E_ACC);
            e->acc = ai;
            e->form = km__of_atom(b->k, km__atom(b->k, &p));
            local_push(b, name, KM_LOCAL_ACC, e->form, line);
        } else if (mu && mu->n_mut && mu->max_depth > depth && mu->indexes && !mu->stepped &&
                   !ts_node_is_null(value) && induction_ok(b, src, n, name)) {
            /* an index stepped through loops (`int o = base; ... out[o] = v; o += s;`) */
            ent *e = env_push(b, name, E_VALUE);
            e->form = v;
            e->induct = true;
            local_push(b, name, KM_LOCAL_VALUE, e->form, line);
        } else if (mu && mu->n_mut && mu->max_depth > depth) {
            ent *e = env_push(b, name, E_VAR);
            e->form = fresh_var(b);
            local_push(b, name, KM_LOCAL_VAR, e->form, line);
        } else {
            /* never changed, or changed only in straight-line code: followed in order */
            ent *e = env_push(b, name, E_VALUE);
            e->form = ts_node_is_null(value) ? fresh_var(b) : v;
            local_push(b, name, KM_LOCAL_VALUE, e->form, line);
        }
    }
}

/* ---- statement macros that open a loop ------------------------------------------- */

#define KB_BODY "km__body"   /* the placeholder statement the body is walked in place of */

/* The next named sibling of n's child i that is not a comment, or a null node. */
static TSNode next_statement(TSNode n, uint32_t i)
{
    for (uint32_t j = i + 1; j < ts_node_named_child_count(n); j++)
        if (!is(ts_node_named_child(n, j), "comment"))
            return ts_node_named_child(n, j);
    return (TSNode){0};
}

/* `NAME(args) { ... }` in the kernel text: tree-sitter reads it as a function definition
 * without a type (NAME(a, b) its declarator, the braces its body) when every argument
 * could be a parameter declaration, else as a call statement missing its `;` followed by
 * a compound statement (next). The macro's name, argument list and body; false for any
 * other statement. */
static bool loop_call(const char *src, TSNode n, TSNode next, TSNode *name, TSNode *args,
                      TSNode *body)
{
    if (is(n, "function_definition") && ts_node_is_null(field(n, "type"))) {
        TSNode d = field(n, "declarator");
        *name = field(d, "declarator");
        *args = field(d, "parameters");
        *body = field(n, "body");
        return is(d, "function_declarator") && is(*name, "identifier") &&
               is(*body, "compound_statement");
    }
    if (!is(n, "expression_statement") || !is(next, "compound_statement") ||
        ts_node_named_child_count(n) != 1)
        return false;
    TSNode c = ts_node_named_child(n, 0);
    uint32_t e = ts_node_end_byte(n);
    *name = field(c, "function");
    *args = field(c, "arguments");
    *body = next;
    return is(c, "call_expression") && is(*name, "identifier") && src[e - 1] != ';';
}

/* The replacement text of m with the arguments (arg[i], len[i] bytes) put in for its
 * parameters, token by token as the preprocessor does (literals are copied as they are),
 * into out when not NULL; the length. */
static size_t substitute(const macro *m, const char *const *arg, const size_t *len, char *out)
{
    const char *v = m->value;
    size_t o = 0;
    for (size_t i = 0; v[i];) {
        if (isalpha((unsigned char)v[i]) || v[i] == '_') {
            size_t e = i;
            while (isalnum((unsigned char)v[e]) || v[e] == '_')
                e++;
            uint32_t p = 0;
            while (p < m->n_params &&
                   (strlen(m->params[p]) != e - i || memcmp(m->params[p], v + i, e - i) != 0))
                p++;
            const char *s = p < m->n_params ? arg[p] : v + i;
            size_t l = p < m->n_params ? len[p] : e - i;
            if (out)
                memcpy(out + o, s, l);
            o += l;
            i = e;
            continue;
        }
        size_t e = i + 1;
        if (v[i] == '"' || v[i] == '\'') {
            while (v[e] && v[e] != v[i])
                e += v[e] == '\\' && v[e + 1] ? 2 : 1;
            if (v[e])
                e++;
        }
        if (out)
            memcpy(out + o, v + i, e - i);
        o += e - i;
        i = e;
    }
    return o;
}

/* The placeholder statement under n (the for_statement of a loop macro's snippet) and the
 * loops around it; how many placeholders there are in *found. */
static void find_body(const char *src, TSNode n, int loops, int depth, int *found,
                      int *body_loops)
{
    if (ts_node_is_null(n) || depth > KB_DEPTH_MAX)
        return;
    if (is(n, "expression_statement") && ts_node_named_child_count(n) == 1 &&
        is(first_named(n), "identifier") && name_is(src, first_named(n), KB_BODY)) {
        ++*found;
        *body_loops = loops;
        return;
    }
    if (is(n, "for_statement") || is(n, "while_statement") || is(n, "do_statement"))
        loops++;
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
        find_body(src, ts_node_named_child(n, i), loops, depth + 1, found, body_loops);
}

/* Statement n of the kernel text (next: the statement after it) as a loop macro: the index
 * of its entry in b->mloops, made (and parsed) on first sight, or -1 when n is not a call
 * of a function-like macro whose replacement is a for statement around the braces that
 * follow the call. *body gets the compound statement. */
static long loop_macro(kb *b, TSNode n, TSNode next, TSNode *body)
{
    TSNode name, args;
    if (!loop_call(b->text, n, next, &name, &args, body))
        return -1;
    uint32_t at = ts_node_start_byte(n);
    mloop *ml = b->mloops.v;
    for (size_t i = 0; i < b->mloops.n; i++)
        if (ml[i].at == at)
            return ml[i].tree ? (long)i : -1;
    const macro *m = macro_find(b, ntext(b, b->text, name));
    if (!m || !m->function || strncmp(m->value, "for", 3) != 0 ||
        isalnum((unsigned char)m->value[3]) || m->value[3] == '_' || strchr(m->value, '#'))
        return -1;   /* # and ## would need the preprocessor's token pasting */
    uint32_t na = 0, nc = ts_node_named_child_count(args);
    const char **arg = km__alloc(b->k, sizeof(char *) * (nc ? nc : 1));
    size_t *len = km__alloc(b->k, sizeof(size_t) * (nc ? nc : 1));
    for (uint32_t i = 0; i < nc; i++) {
        TSNode a = ts_node_named_child(args, i);
        if (is(a, "comment"))
            continue;
        arg[na] = b->text + ts_node_start_byte(a);
        len[na++] = ts_node_end_byte(a) - ts_node_start_byte(a);
    }
    if (na != m->n_params)
        return -1;
    ml = km__push(b->k, &b->mloops, sizeof(mloop));
    long mi = (long)b->mloops.n - 1;
    ml->at = at;
    ml->line = ts_node_start_point(n).row + 1;
    static const char head[] = "void km__f(void) {\n", tail[] = "\n" KB_BODY ";\n}\n";
    size_t sl = substitute(m, arg, len, NULL);
    if (sl > KB_SNIPPET_MAX)
        return -1;
    char *s = km__alloc(b->k, sizeof(head) + sl + sizeof(tail));
    memcpy(s, head, sizeof(head) - 1);
    substitute(m, arg, len, s + sizeof(head) - 1);
    memcpy(s + sizeof(head) - 1 + sl, tail, sizeof(tail));
    TSTree *tree = ts_parser_parse_string(b->parser, NULL, s, (uint32_t)strlen(s));
    if (!tree)
        return -1;
    ml = (mloop *)b->mloops.v + mi;
    ml->tree = tree;   /* freed with the others at km_build's exit */
    TSNode root = ts_tree_root_node(tree), fbody = field(first_named(root), "body"), loop = {0};
    uint32_t stmts = 0;
    for (uint32_t i = 0; i < ts_node_named_child_count(fbody); i++)
        if (!is(ts_node_named_child(fbody, i), "comment")) {
            loop = ts_node_named_child(fbody, i);
            stmts++;
        }
    int found = 0;
    if (!ts_node_has_error(root) && stmts == 1 && is(loop, "for_statement"))
        find_body(s, loop, 0, 0, &found, &ml->n_loops);
    if (found != 1) {
        ts_tree_delete(tree);
        ml->tree = NULL;
        return -1;
    }
    ml->snippet = s;
    ml->loop = loop;
    ml->body = *body;
    return mi;
}

/* Walks loop macro mi: its snippet's for statement, with the body in the placeholder's
 * place (walk). The header's lines are the call's. */
static void loop_macro_walk(kb *b, long mi)
{
    const mloop *ml = (const mloop *)b->mloops.v + mi;
    long outer = b->body_of;
    uint32_t line = b->line;
    b->body_of = mi;
    if (b->n_calls == 0)
        b->line = ml->line;
    walk(b, ml->snippet, ml->loop);
    b->body_of = outer;
    b->line = line;
}

/* A counted loop's header: `v cmp bound` and v's step. */
typedef struct {
    const char *var;       /* NULL: not a counted loop */
    km_form start, step, bound;
    const char *cmp;       /* NULL when the condition is not `v cmp bound` */
    bool affine;           /* the step is v += s, v -= s, v++, v--, v = v + s */
} loop_head;

/* cond as `var cmp bound` (either side): h->cmp and h->bound. */
static void loop_cond(kb *b, const char *src, TSNode cond, loop_head *h)
{
    static const char *const rel[] = {"<", "<=", ">", ">=", "!="};
    static const char *const flip[] = {">", ">=", "<", "<=", "!="};
    cond = unparen(cond);
    if (!h->var || !is(cond, "binary_expression"))
        return;
    const char *op = op_of(cond);
    TSNode l = unparen(field(cond, "left")), r = unparen(field(cond, "right"));
    for (size_t i = 0; i < HK_ARRAY_LEN(rel); i++) {
        if (strcmp(op, rel[i]) != 0)
            continue;
        if (is(l, "identifier") && name_is(src, l, h->var)) {
            h->cmp = rel[i];
            h->bound = eval(b, src, field(cond, "right"));
        } else if (is(r, "identifier") && name_is(src, r, h->var)) {
            h->cmp = flip[i];
            h->bound = eval(b, src, field(cond, "left"));
        }
    }
}

/* upd as an affine step of var (v++, v += s, v = v + s): h->step and h->affine. */
static void loop_step(kb *b, const char *src, TSNode upd, loop_head *h)
{
    const char *var = h->var;
    if (var && is(upd, "update_expression") && name_is(src, unparen(field(upd, "argument")), var)) {
        h->step = km__const(b->k, strcmp(op_of(upd), "++") == 0 ? 1 : -1);
        h->affine = true;
    } else if (var && is(upd, "assignment_expression") &&
               name_is(src, unparen(field(upd, "left")), var)) {
        const char *op = op_of(upd);
        TSNode r = field(upd, "right");
        if (strcmp(op, "+=") == 0 || strcmp(op, "-=") == 0) {
            h->step = eval(b, src, r);
            if (op[0] == '-')
                h->step = km__scale(b->k, h->step, -1);
            h->affine = true;
        } else if (strcmp(op, "=") == 0 && is(unparen(r), "binary_expression") &&
                   strcmp(op_of(unparen(r)), "+") == 0) {
            TSNode rl = unparen(field(unparen(r), "left")), rr = field(unparen(r), "right");
            if (is(rl, "identifier") && name_is(src, rl, var)) {
                h->step = eval(b, src, rr);
                h->affine = true;
            }
        }
    }
}

static enum km_loop_kind loop_kind(kb *b, const loop_head *h)
{
    enum km_loop_kind kind = !h->var || !h->cmp ? KM_LOOP_OTHER
                             : h->affine        ? KM_LOOP_AFFINE
                                                : KM_LOOP_GEOMETRIC;
    if (kind == KM_LOOP_AFFINE)
        for (int a = 0; a < 3; a++) {
            uint32_t bd, gd;
            if (!km_form_mentions_kind(b->k, h->start, KM_ATOM_THREAD_IDX, a) ||
                !km_builtin_atom(b->k, KM_ATOM_BLOCK_DIM, a, &bd))
                continue;
            km_form bdf = km__of_atom(b->k, bd);
            if (km_builtin_atom(b->k, KM_ATOM_GRID_DIM, a, &gd) &&
                km_form_equal(h->step, km__mul(b->k, bdf, km__of_atom(b->k, gd))))
                kind = KM_LOOP_GRID_STRIDE;
            else if (km_form_equal(h->step, bdf))
                kind = KM_LOOP_BLOCK_STRIDE;
        }
    return kind;
}

/* The width W >= 2 of an affine loop read as a grid-stride loop of width W along an axis
 * (km_loop.grid_width): step W * blockDim.a * gridDim.a, start W * blockDim.a * blockIdx.a
 * + threadIdx.a + terms free of blockIdx.a (and of the other grid builtins of a). 0 when
 * it is not one. */
static uint32_t loop_grid_width(kb *b, const loop_head *h, int *axis)
{
    *axis = -1;
    for (int a = 0; a < 3; a++) {
        uint32_t bd, gd, bi, ti;
        if (!km_builtin_atom(b->k, KM_ATOM_BLOCK_DIM, a, &bd) || !km_builtin_atom(b->k, KM_ATOM_GRID_DIM, a, &gd) ||
            !km_builtin_atom(b->k, KM_ATOM_BLOCK_IDX, a, &bi) || !km_builtin_atom(b->k, KM_ATOM_THREAD_IDX, a, &ti))
            continue;
        km_form bdf = km__of_atom(b->k, bd);
        km_form unit = km__mul(b->k, bdf, km__of_atom(b->k, gd));
        if (h->step.n != 1 || unit.n != 1 || h->step.t[0].n != unit.t[0].n ||
            memcmp(h->step.t[0].atoms, unit.t[0].atoms, unit.t[0].n * sizeof unit.t[0].atoms[0]) != 0 ||
            h->step.t[0].coef < 2 || h->step.t[0].coef > 1024)
            continue;
        int64_t w = h->step.t[0].coef;
        /* start: exactly one term holds blockIdx.a, w * blockDim.a * blockIdx.a; one term
         * is threadIdx.a with coefficient 1; no other term mentions a grid builtin of a */
        km_form want_b = km__scale(b->k, km__mul(b->k, bdf, km__of_atom(b->k, bi)), w);
        bool has_b = false, has_t = false, other = false;
        for (uint32_t q = 0; q < h->start.n; q++) {
            km_form one = {.t = &h->start.t[q], .n = 1};
            if (km_form_equal(one, want_b))
                has_b = true;
            else if (km_form_equal(one, km__of_atom(b->k, ti)))
                has_t = true;
            else if (km_form_mentions(b->k, one, bi) || km_form_mentions(b->k, one, gd) ||
                     km_form_mentions(b->k, one, ti))
                other = true;
        }
        if (has_b && has_t && !other) {
            *axis = a;
            return (uint32_t)w;
        }
    }
    return 0;
}

/* Iterations of an affine loop: (bound - start) / step by the comparison. */
static bool loop_trip(kb *b, const loop_head *h, km_form *trip)
{
    int64_t c = 0;
    const char *cmp = h->cmp;
    km_form span = km__sub(b->k, h->bound, h->start);
    bool cst = km__is_const(h->step, &c);
    if (cst && c == 1 && (strcmp(cmp, "<") == 0 || strcmp(cmp, "!=") == 0))
        *trip = span;
    else if (cst && c == 1 && strcmp(cmp, "<=") == 0)
        *trip = km__add(b->k, span, km__const(b->k, 1));
    else if (cst && c == -1 && strcmp(cmp, ">") == 0)
        *trip = km__scale(b->k, span, -1);
    else if (cst && c == -1 && strcmp(cmp, ">=") == 0)
        *trip = km__add(b->k, km__scale(b->k, span, -1), km__const(b->k, 1));
    else if ((!cst || c > 1) && strcmp(cmp, "<") == 0) {
        km_form a[2] = {span, h->step};
        *trip = km__opaque(b->k, "ceildiv", NULL, a, 2);
    } else if ((!cst || c > 1) && strcmp(cmp, "<=") == 0) {
        km_form a[2] = {km__add(b->k, span, km__const(b->k, 1)), h->step};
        *trip = km__opaque(b->k, "ceildiv", NULL, a, 2);
    } else
        return false;
    return true;
}

/* Records the loop h opens at line, binds its variable in the current scope and enters
 * it; guard: whether a grid-stride loop's first element is checked against the bound
 * (a for or while tests it before the first iteration, a do does not). The loop's kind. */
static enum km_loop_kind loop_open(kb *b, const loop_head *h, uint32_t line, bool guard)
{
    enum km_loop_kind kind = loop_kind(b, h);
    char ct[32];
    if (kind == KM_LOOP_GRID_STRIDE)
        snprintf(ct, sizeof(ct), "$G%u", b->n_gcount++);
    else
        snprintf(ct, sizeof(ct), "$L%u", b->n_lcount++);
    km_loop *lp = km__push(b->k, &b->k->loops, sizeof(km_loop));
    uint32_t li = (uint32_t)(b->k->loops.n - 1);
    km_atom p = {.kind = KM_ATOM_LOOP, .text = ct, .axis = -1, .loop = li};
    uint32_t counter = km__atom(b->k, &p);
    lp = (km_loop *)b->k->loops.v + li;
    lp->kind = kind;
    lp->counter = counter;
    lp->var = h->var;
    lp->start = h->start;
    lp->step = h->step;
    lp->bound = h->bound;
    lp->cmp = h->cmp;
    lp->parent = b->n_loops ? (long)b->loops[b->n_loops - 1] : -1;
    lp->line = line;
    lp->grid_axis = -1;
    if (kind == KM_LOOP_AFFINE) {
        int ax = -1;
        uint32_t w = loop_grid_width(b, h, &ax);
        lp = (km_loop *)b->k->loops.v + li;
        lp->grid_width = w;
        lp->grid_axis = ax;
    }
    km_form cf = km__of_atom(b->k, counter);
    bool counted = kind != KM_LOOP_GEOMETRIC && kind != KM_LOOP_OTHER;
    km_form vf = counted ? km__add(b->k, h->start, km__mul(b->k, h->step, cf)) : cf;
    km_form trip = {0};
    bool has_trip = counted && loop_trip(b, h, &trip);
    lp = (km_loop *)b->k->loops.v + li;
    lp->trip = trip;
    lp->has_trip = has_trip;
    if (h->var) {
        ent *e = env_push(b, h->var, E_LOOP);
        e->form = vf;
        local_push(b, h->var, KM_LOCAL_LOOP_VAR, vf, line);
    }
    if (guard && kind == KM_LOOP_GRID_STRIDE &&
        (strcmp(h->cmp, "<") == 0 || strcmp(h->cmp, "<=") == 0))
        guard_push(b, h->start, h->cmp, h->bound, line);   /* the element form's bound */
    if (b->n_loops < KB_LOOPS_MAX)
        b->loops[b->n_loops++] = li;
    return kind;
}

static bool mentions_name(const char *src, TSNode n, const char *name, int depth);

/* Variables a for loop declares and steps beside its counted one: `for (int a = a0, b = b0;
 * a <= e; a += s, b += t)` (cuda-samples' matrixMul walks A and B so). */
#define KB_SIDE_VARS 4
typedef struct {
    const char *var[KB_SIDE_VARS];
    km_form start[KB_SIDE_VARS], step[KB_SIDE_VARS];
    uint32_t n;
} side_vars;

/* The parts of a comma expression, left to right, into parts (at most cap); false when
 * there are more. */
static bool comma_parts(TSNode e, TSNode *parts, uint32_t cap, uint32_t *n, int depth)
{
    e = unparen(e);
    if (depth > 8)
        return false;
    if (!is(e, "comma_expression")) {
        if (*n >= cap)
            return false;
        parts[(*n)++] = e;
        return true;
    }
    return comma_parts(field(e, "left"), parts, cap, n, depth + 1) &&
           comma_parts(field(e, "right"), parts, cap, n, depth + 1);
}

/* A declaration of two or more plain variables, each stepped affinely by one part of upd
 * and assigned nowhere else: h gets the one the condition tests, sv the others. False
 * (nothing evaluated) for any other header, which the caller reads the usual way. */
static bool for_side_vars(kb *b, const char *src, TSNode init, TSNode cond, TSNode upd, loop_head *h,
                          side_vars *sv)
{
    const char *names[KB_SIDE_VARS + 1];
    TSNode values[KB_SIDE_VARS + 1], parts[KB_SIDE_VARS + 1];
    uint32_t nn = 0, np = 0;
    if (!is(init, "declaration") || !is(unparen(upd), "comma_expression"))
        return false;
    TSNode type = field(init, "type");
    for (uint32_t i = 0; i < ts_node_named_child_count(init); i++) {
        TSNode d = ts_node_named_child(init, i);
        if (ts_node_eq(d, type) || is(d, "type_qualifier") || is(d, "storage_class_specifier"))
            continue;
        if (!is(d, "init_declarator") || !is(field(d, "declarator"), "identifier") || nn > KB_SIDE_VARS)
            return false;
        names[nn] = ntext(b, src, field(d, "declarator"));
        values[nn++] = field(d, "value");
    }
    if (nn < 2 || !comma_parts(upd, parts, KB_SIDE_VARS + 1, &np, 0) || np != nn)
        return false;
    /* each variable: no other's name in its start, one affine step, no other assignment */
    loop_head hs[KB_SIDE_VARS + 1];
    long primary = -1;
    for (uint32_t v = 0; v < nn; v++) {
        for (uint32_t w = 0; w < nn; w++)
            if (mentions_name(src, values[v], names[w], 0))
                return false;
        /* a condition over two of them (i < j with j stepped too) has no fixed bound */
        for (uint32_t w = 0; w < nn; w++)
            if (w != v && mentions_name(src, cond, names[w], 0) && mentions_name(src, cond, names[v], 0))
                return false;
        /* scan() skips the first declarator's step in upd (it takes it for the loop's
         * variable) and counts the others' */
        const mut *mu = mut_find(b, names[v]);
        if ((mu ? mu->n_mut : 0) != (v == 0 ? 0u : 1u) || (mu && mu->stepped))
            return false;
        uint32_t steps = 0;
        for (uint32_t p = 0; p < np; p++) {
            loop_head t = {.var = names[v]};
            b->quiet++;
            loop_step(b, src, parts[p], &t);
            b->quiet--;
            if (t.affine) {
                hs[v] = t;
                steps++;
            }
        }
        if (steps != 1)
            return false;
        loop_head t = {.var = names[v]};
        b->quiet++;
        loop_cond(b, src, cond, &t);
        b->quiet--;
        if (t.cmp && primary < 0)
            primary = (long)v;
    }
    if (primary < 0)
        return false;
    sv->n = 0;
    for (uint32_t v = 0; v < nn; v++) {
        km_form start = eval(b, src, values[v]);
        if ((long)v == primary) {
            h->var = names[v];
            h->start = start;
            h->step = hs[v].step;
            h->affine = true;
        } else {
            sv->var[sv->n] = names[v];
            sv->start[sv->n] = start;
            sv->step[sv->n++] = hs[v].step;
        }
    }
    return true;
}

/* ---- induction variables: locals stepped by loop-invariant amounts ------------- */

/* Is n a step of name: `name += e`, `name -= e`, `name = name + e` (or `- e`), `++name`,
 * `name--` ...? *amount gets e (a null node for ++ and --), *sign +1 or -1. */
static bool step_of(const char *src, TSNode n, const char *name, TSNode *amount, int *sign)
{
    n = unparen(n);
    if (is(n, "update_expression")) {
        TSNode a = unparen(field(n, "argument"));
        if (!is(a, "identifier") || !name_is(src, a, name))
            return false;
        *amount = (TSNode){0};
        *sign = strcmp(op_of(n), "++") == 0 ? 1 : -1;
        return true;
    }
    if (!is(n, "assignment_expression"))
        return false;
    TSNode l = unparen(field(n, "left")), r = unparen(field(n, "right"));
    if (!is(l, "identifier") || !name_is(src, l, name))
        return false;
    const char *op = op_of(n);
    if (strcmp(op, "+=") == 0 || strcmp(op, "-=") == 0) {
        *amount = r;
        *sign = op[0] == '+' ? 1 : -1;
        return true;
    }
    if (strcmp(op, "=") == 0 && is(r, "binary_expression") &&
        (strcmp(op_of(r), "+") == 0 || strcmp(op_of(r), "-") == 0)) {
        TSNode rl = unparen(field(r, "left"));
        if (is(rl, "identifier") && name_is(src, rl, name)) {
            *amount = field(r, "right");
            *sign = strcmp(op_of(r), "+") == 0 ? 1 : -1;
            return true;
        }
    }
    return false;
}

/* A break, continue or goto anywhere in n. */
static bool has_jump(TSNode n, int depth)
{
    if (ts_node_is_null(n) || depth > KB_DEPTH_MAX)
        return false;
    if (is(n, "break_statement") || is(n, "continue_statement") || is(n, "goto_statement"))
        return true;
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
        if (has_jump(ts_node_named_child(n, i), depth + 1))
            return true;
    return false;
}

/* Does declaration n declare name? */
static bool declares(const char *src, TSNode n, const char *name)
{
    TSNode type = field(n, "type");
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
        TSNode d = ts_node_named_child(n, i), sizes[8];
        if (ts_node_eq(d, type))
            continue;
        if (is(d, "init_declarator"))
            d = field(d, "declarator");
        bool ptr;
        uint32_t ns;
        TSNode id = declarator_name(d, &ptr, sizes, &ns);
        if (is(id, "identifier") && name_is(src, id, name))
            return true;
    }
    return false;
}

/* Is name declared, assigned or stepped anywhere inside n (a loop: then its value may
 * differ between the loop's iterations)? */
static bool varies_in(const char *src, TSNode n, const char *name, int depth)
{
    if (ts_node_is_null(n) || depth > KB_DEPTH_MAX)
        return true;
    if (is(n, "declaration") && declares(src, n, name))
        return true;
    if (is(n, "assignment_expression") || is(n, "update_expression")) {
        TSNode l = unparen(field(n, is(n, "assignment_expression") ? "left" : "argument"));
        if (is(l, "identifier") && name_is(src, l, name))
            return true;
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
        if (varies_in(src, ts_node_named_child(n, i), name, depth + 1))
            return true;
    return false;
}

/* Does expression e keep its value through every iteration of loop (no identifier in it
 * varies there, no call) and not mention self (skip: a name e may mention, the header's
 * own variable)? */
static bool invariant_in(const char *src, TSNode e, TSNode loop, const char *self, const char *skip,
                         int depth)
{
    if (ts_node_is_null(e))
        return true;
    if (depth > KB_DEPTH_MAX || is(e, "call_expression"))
        return false;   /* a call is walked (a __device__ body): not evaluated ahead */
    if (is(e, "identifier")) {
        char name[128];
        uint32_t a = ts_node_start_byte(e), z = ts_node_end_byte(e);
        if (z - a >= sizeof name)
            return false;
        memcpy(name, src + a, z - a);
        name[z - a] = '\0';
        if (strcmp(name, self) == 0)
            return false;
        return (skip && strcmp(name, skip) == 0) || !varies_in(src, loop, name, 0);
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(e); i++)
        if (!invariant_in(src, ts_node_named_child(e, i), loop, self, skip, depth + 1))
            return false;
    return true;
}

/* The variable a for loop's header declares or assigns first, or NULL. */
static const char *header_var(kb *b, const char *src, TSNode loop)
{
    TSNode init = field(loop, "initializer");
    if (is(init, "declaration")) {
        TSNode d = field(init, "declarator");
        if (is(d, "init_declarator") && is(field(d, "declarator"), "identifier"))
            return ntext(b, src, field(d, "declarator"));
    } else if (is(init, "assignment_expression") && is(unparen(field(init, "left")), "identifier")) {
        return ntext(b, src, unparen(field(init, "left")));
    }
    return NULL;
}

/* Step n of name, below scope: is it run once on every iteration of each loop between
 * them (each a for loop reached through its body and blocks only: no if, while, do or
 * switch between, no break, continue or goto in it), by an amount that does not vary in
 * the outermost of them, whose inner loops' headers do not vary there either (so a loop's
 * iteration moves name by the same amount each time)? */
static bool step_placed(kb *b, const char *src, TSNode n, TSNode scope, TSNode amount, const char *name)
{
    TSNode st = ts_node_parent(n), loops[KB_LOOPS_MAX];
    uint32_t nl = 0;
    if (!is(st, "expression_statement"))
        return false;
    for (TSNode c = st; !ts_node_eq(c, scope);) {
        TSNode p = ts_node_parent(c);
        if (ts_node_is_null(p))
            return false;
        if (is(p, "for_statement")) {
            if (!ts_node_eq(field(p, "body"), c) || nl == KB_LOOPS_MAX || has_jump(field(p, "body"), 0))
                return false;
            loops[nl++] = p;
        } else if (!is(p, "compound_statement")) {
            return false;
        }
        c = p;
    }
    if (nl == 0)   /* straight-line: followed in order */
        return invariant_in(src, amount, st, name, NULL, 0);
    TSNode outer = loops[nl - 1];
    if (!invariant_in(src, amount, outer, name, NULL, 0))
        return false;
    for (uint32_t i = 0; i + 1 < nl; i++) {
        const char *v = header_var(b, src, loops[i]);
        if (!v || !invariant_in(src, field(loops[i], "condition"), outer, name, v, 0) ||
            !invariant_in(src, field(loops[i], "update"), outer, name, v, 0) ||
            !invariant_in(src, field(loops[i], "initializer"), outer, name, v, 0))
            return false;
    }
    return true;
}

static bool induction_scan(kb *b, const char *src, TSNode n, TSNode scope, TSNode decl, const char *name,
                           int depth)
{
    if (depth > KB_DEPTH_MAX)
        return false;
    if (ts_node_end_byte(n) <= ts_node_end_byte(decl))
        return true;   /* the declaration and what comes before it */
    if (is(n, "declaration") && declares(src, n, name))
        return false;  /* declared again: another variable */
    if (is(n, "pointer_expression") && strcmp(op_of(n), "&") == 0) {
        TSNode a = unparen(field(n, "argument"));
        if (is(a, "identifier") && name_is(src, a, name))
            return false;  /* its address taken: changed where the walk cannot see */
    }
    if (is(n, "assignment_expression") || is(n, "update_expression")) {
        TSNode l = unparen(field(n, is(n, "assignment_expression") ? "left" : "argument"));
        if (is(l, "identifier") && name_is(src, l, name)) {
            TSNode amount;
            int sign;
            return step_of(src, n, name, &amount, &sign) && step_placed(b, src, n, scope, amount, name);
        }
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
        if (!induction_scan(b, src, ts_node_named_child(n, i), scope, decl, name, depth + 1))
            return false;
    return true;
}

/* Is the local name, declared by statement decl in a block, an induction variable: every
 * change of it after decl a step (step_of) placed as step_placed says, its address never
 * taken, the name not declared again in the block? A walked pointer (`T *p = base + off;
 * for (...) for (...) { *p = v; p += s; }`, mmcv's im2col) then has an affine index. */
static bool induction_ok(kb *b, const char *src, TSNode decl, const char *name)
{
    TSNode scope = ts_node_parent(decl);
    if (src != b->text || b->n_calls || !is(scope, "compound_statement"))
        return false;
    return induction_scan(b, src, scope, scope, decl, name, 0);
}

/* What one iteration of a loop whose body is n adds to the induction variable name: its
 * steps, a nested for loop's times that loop's trip. *ok false when a nested loop's trip
 * is not known. Evaluated quietly (no access recorded), in the environment at the loop's
 * head: induction_ok checked that nothing it reads varies in the loop. */
static km_form body_delta(kb *b, const char *src, TSNode n, const char *name, bool *ok, int depth)
{
    km_form d = {0};
    if (!*ok || ts_node_is_null(n) || depth > KB_DEPTH_MAX)
        return d;
    if (is(n, "compound_statement")) {
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
            d = km__add(b->k, d, body_delta(b, src, ts_node_named_child(n, i), name, ok, depth + 1));
        return d;
    }
    if (is(n, "expression_statement")) {
        TSNode e = first_named(n), amount;
        int sign;
        if (ts_node_is_null(e) || !step_of(src, e, name, &amount, &sign))
            return d;
        b->quiet++;
        km_form a = ts_node_is_null(amount) ? km__const(b->k, 1) : eval(b, src, amount);
        b->quiet--;
        return km__scale(b->k, a, sign);
    }
    if (!is(n, "for_statement"))
        return d;   /* induction_ok: no step anywhere else */
    km_form inner = body_delta(b, src, field(n, "body"), name, ok, depth + 1);
    if (!*ok || inner.n == 0)
        return d;
    loop_head h = {.var = header_var(b, src, n)};
    TSNode init = field(n, "initializer");
    b->quiet++;
    if (h.var && is(init, "declaration"))
        h.start = eval(b, src, field(field(init, "declarator"), "value"));
    else if (h.var)
        h.start = eval(b, src, field(init, "right"));
    loop_cond(b, src, unparen(field(n, "condition")), &h);
    loop_step(b, src, field(n, "update"), &h);
    b->quiet--;
    km_form trip;
    if (!h.var || !h.cmp || !h.affine || !loop_trip(b, &h, &trip)) {
        *ok = false;
        return d;
    }
    return km__mul(b->k, inner, trip);
}

/* for (v = start; v cmp bound; step) body */
static void for_loop(kb *b, const char *src, TSNode n)
{
    TSNode init = field(n, "initializer"), cond = unparen(field(n, "condition")),
           upd = field(n, "update"), body = field(n, "body");
    uint32_t line = line_of(b, src, n);
    enter(b);
    loop_head h = {0};
    side_vars sv = {.n = 0};
    if (for_side_vars(b, src, init, cond, upd, &h, &sv)) {
        /* the counted variable and its companions: bound below, once the loop is open */
    } else if (is(init, "declaration")) {
        TSNode d = field(init, "declarator");
        if (is(d, "init_declarator") && is(field(d, "declarator"), "identifier")) {
            h.var = ntext(b, src, field(d, "declarator"));
            h.start = eval(b, src, field(d, "value"));
        } else {
            declaration(b, src, init);
        }
    } else if (is(init, "assignment_expression") && is(field(init, "left"), "identifier") &&
               strcmp(op_of(init), "=") == 0) {
        h.var = ntext(b, src, field(init, "left"));
        h.start = eval(b, src, field(init, "right"));
    } else if (!ts_node_is_null(init)) {
        (void)eval(b, src, init);
    }
    loop_cond(b, src, cond, &h);
    if (!sv.n)
        loop_step(b, src, upd, &h);
    enum km_loop_kind kind = loop_open(b, &h, line, true);
    if (sv.n) {
        /* each companion is its start plus its step per iteration of the counted one */
        const km_loop *lp = (const km_loop *)b->k->loops.v + b->loops[b->n_loops - 1];
        bool counted = kind != KM_LOOP_GEOMETRIC && kind != KM_LOOP_OTHER;
        km_form cf = km__of_atom(b->k, lp->counter);
        for (uint32_t v = 0; v < sv.n; v++) {
            ent *e = env_push(b, sv.var[v], counted ? E_LOOP : E_VAR);
            e->form = counted ? km__add(b->k, sv.start[v], km__mul(b->k, sv.step[v], cf)) : fresh_var(b);
            local_push(b, sv.var[v], counted ? KM_LOCAL_LOOP_VAR : KM_LOCAL_VAR, e->form, line);
        }
    }
    if (kind == KM_LOOP_OTHER && !ts_node_is_null(cond))
        (void)eval(b, src, cond);
    /* induction variables the body steps: at the top of iteration c, entry + c * delta */
    struct {
        size_t at;
        km_form entry, delta;
    } iv[8];
    uint32_t niv = 0;
    const long li = (long)b->loops[b->n_loops - 1];
    bool counted = kind != KM_LOOP_GEOMETRIC && kind != KM_LOOP_OTHER;
    for (size_t i = b->env_floor; i < b->env.n; i++) {
        if (!((ent *)b->env.v)[i].induct)
            continue;
        bool ok = true;
        km_form d = body_delta(b, src, body, ((ent *)b->env.v)[i].name, &ok, 0);
        ent *e = (ent *)b->env.v + i;
        if (ok && d.n == 0)
            continue;
        if (!ok || !counted || niv == HK_ARRAY_LEN(iv)) {
            e->induct = false;
            e->form = fresh_var(b);
            continue;
        }
        const km_loop *lp = (const km_loop *)b->k->loops.v + li;
        iv[niv].at = i;
        iv[niv].entry = e->form;
        iv[niv++].delta = d;
        e->form = km__add(b->k, e->form, km__mul(b->k, d, km__of_atom(b->k, lp->counter)));
    }
    walk(b, src, body);
    for (uint32_t i = 0; i < niv; i++) {
        /* after the loop: entry + trip * delta */
        const km_loop *lp = (const km_loop *)b->k->loops.v + li;
        km_form after = lp->has_trip ? km__add(b->k, iv[i].entry, km__mul(b->k, iv[i].delta, lp->trip))
                                     : fresh_var(b);
        ((ent *)b->env.v)[iv[i].at].form = after;
    }
    if (!ts_node_is_null(upd) && !h.affine && kind != KM_LOOP_GEOMETRIC) {
        b->quiet++;
        (void)eval(b, src, upd);
        b->quiet--;
    }
    b->n_loops--;
    leave(b);
}

static void other_loop(kb *b, const char *src, TSNode n)
{
    loop_head h = {0};
    (void)loop_open(b, &h, line_of(b, src, n), false);
    enter(b);
    (void)eval(b, src, field(n, "condition"));
    walk(b, src, field(n, "body"));
    leave(b);
    b->n_loops--;
}

/* A `continue` of loop body n (not of a loop nested in it). */
static bool has_continue(TSNode n, int depth)
{
    if (ts_node_is_null(n) || depth > KB_DEPTH_MAX)
        return false;
    if (is(n, "continue_statement"))
        return true;
    if (depth > 0 && (is(n, "for_statement") || is(n, "while_statement") ||
                      is(n, "do_statement")))
        return false;
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
        if (has_continue(ts_node_named_child(n, i), depth + 1))
            return true;
    return false;
}

/* A while or do loop that is a for loop written out: `while (v cmp bound) { ...; step; }`
 * with step (v += s, v++, v = v + s, v >>= 1 ...) the body's last statement and no
 * `continue` that would skip it. *var gets v's identifier, *upd the step's statement. */
static bool while_counted(const char *src, TSNode n, TSNode *var, TSNode *upd)
{
    TSNode cond = unparen(field(n, "condition")), body = field(n, "body");
    if (!is(cond, "binary_expression") || !is(body, "compound_statement"))
        return false;
    static const char *const rel[] = {"<", "<=", ">", ">=", "!="};
    if (!in_list(op_of(cond), rel, HK_ARRAY_LEN(rel)))
        return false;
    TSNode last = {0};
    for (uint32_t i = 0; i < ts_node_named_child_count(body); i++)
        if (!is(ts_node_named_child(body, i), "comment"))
            last = ts_node_named_child(body, i);
    if (!is(last, "expression_statement") || ts_node_named_child_count(last) != 1)
        return false;
    TSNode e = first_named(last), v;
    if (is(e, "update_expression"))
        v = unparen(field(e, "argument"));
    else if (is(e, "assignment_expression"))
        v = unparen(field(e, "left"));
    else
        return false;
    TSNode l = unparen(field(cond, "left")), r = unparen(field(cond, "right"));
    bool on_left = is(l, "identifier") && ts_node_end_byte(l) - ts_node_start_byte(l) ==
                   ts_node_end_byte(v) - ts_node_start_byte(v) &&
                   memcmp(src + ts_node_start_byte(l), src + ts_node_start_byte(v),
                          ts_node_end_byte(v) - ts_node_start_byte(v)) == 0;
    bool on_right = is(r, "identifier") && ts_node_end_byte(r) - ts_node_start_byte(r) ==
                    ts_node_end_byte(v) - ts_node_start_byte(v) &&
                    memcmp(src + ts_node_start_byte(r), src + ts_node_start_byte(v),
                           ts_node_end_byte(v) - ts_node_start_byte(v)) == 0;
    if (!is(v, "identifier") || (!on_left && !on_right) || has_continue(body, 0))
        return false;
    *var = v;
    *upd = last;
    return true;
}

/* Is n (an assignment or update) the step statement of a counted while/do loop? */
static bool is_while_step(const char *src, TSNode n)
{
    TSNode st = ts_node_parent(n), body = ts_node_parent(st), loop = ts_node_parent(body);
    TSNode var, upd;
    return is(st, "expression_statement") &&
           (is(loop, "while_statement") || is(loop, "do_statement")) &&
           while_counted(src, loop, &var, &upd) && ts_node_eq(upd, st);
}

/* while (cond) body / do body while (cond): a counted loop (while_counted) whose variable
 * the model follows gets the record of the for loop it spells, starting from the
 * variable's value before the loop; any other is kind `other`. */
static void while_loop(kb *b, const char *src, TSNode n)
{
    TSNode var, upd, body = field(n, "body"), cond = field(n, "condition");
    bool is_do = is(n, "do_statement");
    uint32_t line = line_of(b, src, n);
    ent *outer = NULL;
    if (while_counted(src, n, &var, &upd))
        outer = env_find(b, ntext(b, src, var));
    if (!outer || outer->kind != E_VALUE) {
        other_loop(b, src, n);
        return;
    }
    loop_head h = {.var = outer->name, .start = outer->form};
    size_t oi = (size_t)(outer - (ent *)b->env.v);
    enter(b);
    loop_cond(b, src, cond, &h);
    loop_step(b, src, first_named(upd), &h);
    enum km_loop_kind kind = loop_open(b, &h, line, !is_do);
    if (kind == KM_LOOP_OTHER)
        (void)eval(b, src, cond);
    TSNode skip = b->skip;
    if (h.affine || kind == KM_LOOP_GEOMETRIC)
        b->skip = upd;   /* the step is the loop's, not a statement of its body */
    walk(b, src, body);
    b->skip = skip;
    b->n_loops--;
    leave(b);
    /* after the loop the variable holds whatever ended it */
    ent *e = (ent *)b->env.v + oi;
    e->kind = E_VAR;
    e->form = fresh_var(b);
}

/* A copy of the environment (in the arena), to walk both branches of an if from it. */
static ent *env_save(kb *b)
{
    ent *s = km__alloc(b->k, sizeof(ent) * (b->env.n ? b->env.n : 1));
    if (b->env.n)
        memcpy(s, b->env.v, sizeof(ent) * b->env.n);
    return s;
}

/* Is f's text short enough to be an operand of a `?:` atom, whose text (of both
 * branches) is capped at KM_TEXT_MAX? Chains of ifs would double it each time. */
static bool small(kb *b, km_form f)
{
    char t[KM_TEXT_MAX / 4];
    km__form_text(b->k, f, t, sizeof(t));
    return strlen(t) + 1 < sizeof(t);
}

/* After an if: a local that its branches left with different values holds
 * (cond ? then : else); one they left of different kinds is no longer followed. The
 * current environment is the else branch's (or the state before the if, without one). */
static void env_merge(kb *b, const char *src, TSNode cond, const ent *then, size_t n0)
{
    km_form c = {0};
    bool have_c = false;
    for (size_t i = 0; i < n0 && i < b->env.n; i++) {
        ent *e = (ent *)b->env.v + i;
        if (e->kind == then[i].kind && km_form_equal(e->form, then[i].form))
            continue;
        if (e->kind == E_VALUE && then[i].kind == E_VALUE && small(b, e->form) &&
            small(b, then[i].form)) {
            if (!have_c) {
                b->quiet++;
                c = eval(b, src, cond);
                b->quiet--;
                have_c = true;
                e = (ent *)b->env.v + i;
            }
            km_form a[3] = {c, then[i].form, e->form};
            km_form v = km__opaque(b->k, "?:", NULL, a, 3);
            ((ent *)b->env.v)[i].form = v;
        } else if (e->kind == E_POINTER && then[i].kind == E_POINTER &&
                   e->base == then[i].base) {
            km_form v = fresh_var(b);
            ((ent *)b->env.v)[i].form = v;
        } else if (e->kind != E_ACC && e->kind != E_ARRAY) {
            km_form v = fresh_var(b);
            e = (ent *)b->env.v + i;
            e->kind = E_VAR;
            e->form = v;
        }
    }
}

/* `if (v > m) m = v;` of an accumulator m (select_minmax): walked as `m = max(m, v)`, v
 * evaluated once (the condition reads nothing else). false when n is not one. */
static bool select_acc(kb *b, const char *src, TSNode n)
{
    TSNode x, v;
    bool mx;
    if (!select_minmax(src, n, &x, &v, &mx))
        return false;
    ent *e = env_find(b, ntext(b, src, x));
    if (!e || e->kind != E_ACC)
        return false;
    km_form args[2] = {e->form, eval(b, src, v)};
    e = env_find(b, ntext(b, src, x));   /* evaluating may grow the environment */
    acc_update(b, e, km__opaque(b->k, mx ? "max" : "min", NULL, args, 2), line_of(b, src, n));
    return true;
}

static void walk(kb *b, const char *src, TSNode n)
{
    if (ts_node_is_null(n) || b->depth > KB_DEPTH_MAX || ts_node_eq(n, b->skip))
        return;
    b->depth++;
    const char *t = ts_node_type(n);
    if (src == b->text && b->n_calls == 0)
        b->line = ts_node_start_point(n).row + 1;
    if (strcmp(t, "compound_statement") == 0) {
        enter(b);
        uint32_t skip = 0;   /* the braces a loop macro took as its body */
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
            TSNode c = ts_node_named_child(n, i), body;
            long mi = src == b->text ? loop_macro(b, c, next_statement(n, i), &body) : -1;
            if (ts_node_start_byte(c) < skip)
                continue;
            if (mi >= 0) {
                loop_macro_walk(b, mi);
                skip = ts_node_end_byte(body);
            } else {
                walk(b, src, c);
            }
        }
        leave(b);
    } else if (strcmp(t, "declaration") == 0) {
        declaration(b, src, n);
    } else if (src != b->text && b->body_of >= 0 && strcmp(t, "expression_statement") == 0 &&
               is(first_named(n), "identifier") && name_is(src, first_named(n), KB_BODY)) {
        walk(b, b->text, ((const mloop *)b->mloops.v)[b->body_of].body);
    } else if (strcmp(t, "return_statement") == 0 && b->n_calls > 0) {
        TSNode v = first_named(n);
        b->ret = ts_node_is_null(v) ? (km_form){0} : eval(b, src, v);
        b->n_ret++;
    } else if (strcmp(t, "expression_statement") == 0 || strcmp(t, "return_statement") == 0) {
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
            (void)eval(b, src, ts_node_named_child(n, i));
    } else if (strcmp(t, "if_statement") == 0 && select_acc(b, src, n)) {
        /* a running max/min by a comparison: the accumulator's update, unguarded */
    } else if (strcmp(t, "if_statement") == 0) {
        TSNode cond = field(n, "condition"), cons = field(n, "consequence"),
               alt = field(n, "alternative");
        if (is(alt, "else_clause"))
            alt = first_named(alt);
        uint32_t line = b->line;
        if (is_exit(cons) && ts_node_is_null(alt)) {
            guards(b, src, cond, true, line);   /* holds for the rest of this block */
            b->n_exits++;
        } else {
            size_t n0 = b->env.n;
            ent *before = env_save(b), *then;
            enter(b);
            guards(b, src, cond, false, line);
            walk(b, src, cons);
            leave(b);
            then = env_save(b);
            if (n0) /* an empty environment has no array yet (b->env.v NULL) */
                memcpy(b->env.v, before, n0 * sizeof(ent));
            if (!ts_node_is_null(alt)) {
                enter(b);
                b->quiet++;
                guards(b, src, cond, true, line);
                b->quiet--;
                walk(b, src, alt);
                leave(b);
            }
            env_merge(b, src, cond, then, n0);
        }
    } else if (strcmp(t, "for_statement") == 0) {
        for_loop(b, src, n);
    } else if (strcmp(t, "while_statement") == 0 || strcmp(t, "do_statement") == 0) {
        while_loop(b, src, n);
    } else if (strcmp(t, "comment") == 0 || strcmp(t, "break_statement") == 0 ||
               strcmp(t, "continue_statement") == 0 || strncmp(t, "preproc", 7) == 0) {
        /* nothing */
    } else if (strstr(t, "statement") || strcmp(t, "case_statement") == 0) {
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
            walk(b, src, ts_node_named_child(n, i));
    } else {
        (void)eval(b, src, n);
    }
    b->depth--;
}

/* ---- first pass: what is done to each local name -------------------------------- */

static bool mentions_name(const char *src, TSNode n, const char *name, int depth)
{
    if (depth > KB_DEPTH_MAX)
        return false;
    if (is(n, "identifier") && name_is(src, n, name))
        return true;
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
        if (mentions_name(src, ts_node_named_child(n, i), name, depth + 1))
            return true;
    return false;
}

static mut *mut_get(kb *b, const char *name)
{
    mut *m = (mut *)mut_find(b, name);
    if (!m) {
        m = km__push(b->k, &b->muts, sizeof(mut));
        m->name = name;
    }
    return m;
}

/* Every identifier under n is used as an index. */
static void mark_index(kb *b, TSNode n, int depth)
{
    if (depth > KB_DEPTH_MAX)
        return;
    if (is(n, "identifier"))
        mut_get(b, ntext(b, b->text, n))->indexes = true;
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
        mark_index(b, ts_node_named_child(n, i), depth + 1);
}

static void note_mut(kb *b, const char *name, bool plain, int depth)
{
    mut *m = mut_get(b, name);
    m->n_mut++;
    m->plain |= plain;
    if (depth > m->max_depth)
        m->max_depth = depth;
}

static void scan(kb *b, TSNode n, int loops, int depth, const char *skip_var)
{
    const char *src = b->text;
    if (ts_node_is_null(n) || depth > KB_DEPTH_MAX)
        return;
    if (is(n, "for_statement")) {
        TSNode init = field(n, "initializer"), upd = field(n, "update");
        const char *var = NULL;
        if (is(init, "declaration") && is(field(init, "declarator"), "init_declarator"))
            var = ntext(b, src, field(field(init, "declarator"), "declarator"));
        else if (is(init, "assignment_expression"))
            var = ntext(b, src, field(init, "left"));
        if (!is(init, "assignment_expression"))
            scan(b, init, loops, depth + 1, NULL);
        scan(b, field(n, "condition"), loops + 1, depth + 1, NULL);
        scan(b, upd, loops + 1, depth + 1, var);
        scan(b, field(n, "body"), loops + 1, depth + 1, NULL);
        return;
    }
    if (is(n, "while_statement") || is(n, "do_statement")) {
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
            scan(b, ts_node_named_child(n, i), loops + 1, depth + 1, NULL);
        return;
    }
    if (is(n, "compound_statement")) {   /* a loop macro's body is inside its loops */
        uint32_t skip = 0;
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
            TSNode c = ts_node_named_child(n, i), body;
            long mi = loop_macro(b, c, next_statement(n, i), &body);
            if (ts_node_start_byte(c) < skip)
                continue;
            if (mi >= 0) {
                scan(b, body, loops + ((const mloop *)b->mloops.v)[mi].n_loops, depth + 1, NULL);
                skip = ts_node_end_byte(body);
            } else {
                scan(b, c, loops, depth + 1, skip_var);
            }
        }
        return;
    }
    TSNode sx, sv;
    bool smx;
    if (select_minmax(src, n, &sx, &sv, &smx)) {
        /* m = max(m, v): reads m (select_acc); the condition only repeats v and m */
        note_mut(b, ntext(b, src, sx), false, loops);
        scan(b, sv, loops, depth + 1, skip_var);
        return;
    }
    if (is(n, "subscript_expression"))
        mark_index(b, subscript_index(n), depth + 1);
    if (is(n, "assignment_expression") || is(n, "update_expression")) {
        bool asg = is(n, "assignment_expression");
        TSNode l = unparen(field(n, asg ? "left" : "argument"));
        if (is(l, "identifier") && is_while_step(src, n)) {
            mut_get(b, ntext(b, src, l))->stepped = true;
        } else if (is(l, "identifier") && !(skip_var && name_is(src, l, skip_var))) {
            char *name = ntext(b, src, l);
            const char *op = asg ? op_of(n) : "++";
            /* `x /= e` reads x as `x *= e` does (a mean's `sum /= count` after the sum's loop) */
            bool self = !asg || strcmp(op, "+=") == 0 || strcmp(op, "-=") == 0 ||
                        strcmp(op, "*=") == 0 || strcmp(op, "/=") == 0 ||
                        (strcmp(op, "=") == 0 && mentions_name(src, field(n, "right"), name, 0));
            note_mut(b, name, !self, loops);
        }
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
        scan(b, ts_node_named_child(n, i), loops, depth + 1, skip_var);
}

static void collect_macros(kb *b, TSNode n, int depth)
{
    if (depth > 64)
        return;
    bool fn = is(n, "preproc_function_def");
    if (is(n, "preproc_def") || fn) {
        macro *m = km__push(b->k, &b->macros, sizeof(macro));
        m->name = ntext(b, b->text, field(n, "name"));
        m->at = ts_node_start_byte(n);
        m->function = fn;
        TSNode v = field(n, "value");
        if (ts_node_is_null(v)) {
            m->value = "";
        } else {   /* the value, continuations joined, trimmed */
            char *s = ntext(b, b->text, v);
            for (char *p = s; *p; p++)
                if (*p == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n')))
                    *p = ' ';
            /* comments are no part of the value (`#define HEIGHT 16 // rows`: the
             * grammar's value runs to the end of the line) */
            for (char *p = s, q = 0; *p; p++) {
                if (q) {
                    if (*p == '\\' && p[1])
                        p++;
                    else if (*p == q)
                        q = 0;
                } else if (*p == '"' || *p == '\'') {
                    q = *p;
                } else if (p[0] == '/' && p[1] == '/') {
                    *p = 0;
                    break;
                } else if (p[0] == '/' && p[1] == '*') {
                    char *e = strstr(p + 2, "*/");
                    char *end = e ? e + 2 : p + strlen(p);
                    while (p < end)
                        *p++ = ' ';
                    p--;
                }
            }
            while (*s && isspace((unsigned char)*s))
                s++;
            size_t l = strlen(s);
            while (l > 0 && isspace((unsigned char)s[l - 1]))
                s[--l] = 0;
            m->value = s;
        }
        if (fn) {
            TSNode ps = field(n, "parameters");
            uint32_t np = ts_node_named_child_count(ps);
            m->params = km__alloc(b->k, sizeof(char *) * (np ? np : 1));
            for (uint32_t i = 0; i < np; i++)
                m->params[m->n_params++] = ntext(b, b->text, ts_node_named_child(ps, i));
        }
        return;
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
        collect_macros(b, ts_node_named_child(n, i), depth + 1);
}

/* ---- calls of __device__ functions ------------------------------------------------ */

/* The compound statement of function f's body in the kernel text, or a null node. */
static TSNode body_of(kb *b, const an_function *f)
{
    if (f->body_span.start_byte == f->body_span.end_byte)
        return (TSNode){0};
    TSNode n = ts_node_descendant_for_byte_range(ts_tree_root_node(b->tree),
                                                 f->body_span.start_byte,
                                                 f->body_span.end_byte);
    while (!ts_node_is_null(n) && !is(n, "compound_statement"))
        n = ts_node_parent(n);
    return n;
}

static bool same_text(const char *text, an_span a, an_span c)
{
    uint32_t n = a.end_byte - a.start_byte;
    return n == c.end_byte - c.start_byte && memcmp(text + a.start_byte, text + c.start_byte, n) == 0;
}

/* The __device__ function of the text named name with na parameters and a body; -1 when
 * there is none, or several that differ (overloads the model cannot tell apart). Copies
 * of one definition (in the branches of an #ifdef) are one function. */
static long device_func(kb *b, const char *name, uint32_t na)
{
    long found = -1;
    for (size_t i = 0; i < b->am->n_funcs; i++) {
        const an_function *f = &b->am->funcs[i];
        if (f->kind != AN_DEVICE_FUNC || strcmp(f->name, name) != 0 || f->n_params != na ||
            f->body_span.start_byte == f->body_span.end_byte)
            continue;
        if (found >= 0 && !same_text(b->text, f->span, b->am->funcs[found].span))
            return -1;
        if (found < 0)
            found = (long)i;
    }
    return found;
}

/* Binds parameter p of the callee to argument a (caller's src and environment): a pointer
 * to the buffer and offset it points at (`input + off` binds p to input at off), a value
 * to its form. Pushed above the caller's names (they are below env_floor by then). */
typedef struct {
    enum ent_kind kind;
    km_form form;
    const char *base;
    enum km_space space;
} binding;

static binding bind_arg(kb *b, const char *src, const an_param *p, TSNode a)
{
    binding r = {.kind = E_VALUE};
    if (p->pointer_depth > 0) {
        if (pointer(b, src, a, &r.base, &r.space, &r.form)) {
            r.kind = E_POINTER;
            return r;
        }
        (void)eval(b, src, a);
        r.kind = E_VAR;
        r.form = fresh_var(b);
        return r;
    }
    r.form = eval(b, src, a);
    return r;
}

/* A call of a __device__ function of the text (n: call_expression) walked as if its body
 * were written at the call: its accesses, loops and guards join the kernel's, its
 * parameters bound to the arguments (bind_arg), the caller's guards and loops around it.
 * *out gets the value of its one return (when it has no early exit), else the opaque call
 * of the argument forms. False (nothing evaluated) when the callee is not such a
 * function, is being walked already (recursion) or the calls are KB_CALL_DEPTH_MAX
 * deep. A caller's local passed to a reference parameter is no longer followed. */
/* What walking a callee changes in the builder, put back at the call's end. */
typedef struct {
    const an_function *f;
    long fi;
    size_t env_floor, muts_floor;
    km_form ret;
    uint32_t n_ret, n_exits, line;
} callee_saved;

/* Enters callee fi (its body at body) at call n: its own view (its first pass above the
 * caller's, none of the caller's names), its parameters bound to bs. */
static void callee_enter(kb *b, const char *src, TSNode n, long fi, TSNode body,
                         const binding *bs, callee_saved *sv)
{
    const an_function *f = &b->am->funcs[fi];
    *sv = (callee_saved){b->f, b->fi, b->env_floor, b->muts_floor, b->ret, b->n_ret,
                         b->n_exits, b->line};
    b->line = line_of(b, src, n);   /* what the callee records is at the call */
    b->muts_floor = b->muts.n;
    b->calls[b->n_calls++] = fi;
    b->f = f;
    b->fi = fi;
    b->ret = (km_form){0};
    b->n_ret = b->n_exits = 0;
    scan(b, body, (int)b->n_loops, 0, NULL);
    enter(b);
    b->env_floor = b->env.n;
    for (size_t i = 0; i < f->n_params; i++) {
        const an_param *p = &f->params[i];
        if (!p->name[0])
            continue;
        const mut *mu = mut_find(b, p->name);
        bool moved = mu && (mu->n_mut || (mu->stepped && bs[i].kind == E_POINTER));
        ent *e = env_push(b, p->name, bs[i].kind);
        e->form = bs[i].form;
        e->base = bs[i].base;
        e->space = bs[i].space;
        if (moved && bs[i].kind == E_POINTER) {
            e->form = fresh_var(b);
        } else if (moved && mu->max_depth > (int)b->n_loops) {
            e->kind = E_VAR;   /* changed in a loop of the callee: not followed */
            e->form = fresh_var(b);
        }
    }
}

/* Leaves the callee; true when its value is its one return (no early exit). */
static bool callee_leave(kb *b, const callee_saved *sv)
{
    leave(b);
    bool one = b->n_ret == 1 && b->n_exits == 0;
    b->muts.n = b->muts_floor;
    b->muts_floor = sv->muts_floor;
    b->env_floor = sv->env_floor;
    b->f = sv->f;
    b->fi = sv->fi;
    b->n_ret = sv->n_ret;
    b->n_exits = sv->n_exits;
    b->line = sv->line;
    b->n_calls--;
    return one;
}

/* A caller's local passed to a reference parameter of f is no longer followed. */
static void unfollow_references(kb *b, const char *src, const an_function *f, TSNode args)
{
    for (uint32_t i = 0; i < ts_node_named_child_count(args) && i < f->n_params; i++) {
        TSNode a = unparen(ts_node_named_child(args, i));
        if (!is(a, "identifier") || !strchr(f->params[i].type, '&'))
            continue;
        ent *e = env_find(b, ntext(b, src, a));
        if (!e || (e->kind != E_VALUE && e->kind != E_VAR))
            continue;
        size_t at = (size_t)(e - (ent *)b->env.v);
        km_form v = fresh_var(b);
        e = (ent *)b->env.v + at;
        e->kind = E_VAR;
        e->form = v;
    }
}

/* A call of a __device__ function of the text (n: call_expression) walked as if its body
 * were written at the call: its accesses, loops and guards join the kernel's, its
 * parameters bound to the arguments (bind_arg), the caller's guards and loops around it.
 * *out gets the value of its one return (when it has no early exit), else the opaque call
 * of the argument forms. False (nothing evaluated) when the callee is not such a
 * function, is being walked already (recursion) or the calls are KB_CALL_DEPTH_MAX
 * deep. */
static bool inline_call(kb *b, const char *src, TSNode n, km_form *out)
{
    TSNode fn = field(n, "function"), args = field(n, "arguments");
    if (is(fn, "template_function"))
        fn = field(fn, "name");
    if (!is(fn, "identifier") || b->n_calls >= KB_CALL_DEPTH_MAX)
        return false;
    uint32_t na = ts_node_named_child_count(args);
    char *name = ntext(b, src, fn);
    long fi = device_func(b, name, na);
    for (int i = 0; fi >= 0 && i < b->n_calls; i++)
        if (b->calls[i] == fi)
            return false;
    TSNode body = fi >= 0 ? body_of(b, &b->am->funcs[fi]) : (TSNode){0};
    if (ts_node_is_null(body))
        return false;
    const an_function *f = &b->am->funcs[fi];
    binding *bs = km__alloc(b->k, sizeof(binding) * (na ? na : 1));
    km_form *av = km__alloc(b->k, sizeof(km_form) * (na ? na : 1));
    for (uint32_t i = 0; i < na; i++) {
        TSNode a = ts_node_named_child(args, i);
        bs[i] = bind_arg(b, src, &f->params[i], a);
        if (bs[i].kind == E_POINTER) {   /* its text for the opaque value */
            b->quiet++;
            av[i] = eval(b, src, a);
            b->quiet--;
        } else {
            av[i] = bs[i].form;
        }
    }
    callee_saved sv;
    callee_enter(b, src, n, fi, body, bs, &sv);
    walk(b, b->text, body);
    km_form value = b->ret;
    bool one = callee_leave(b, &sv);
    b->ret = sv.ret;
    unfollow_references(b, src, f, args);
    *out = one ? value : km__opaque(b->k, "call", name, av, na < 8 ? na : 8);
    return true;
}

/* ---- the entry point ------------------------------------------------------------- */

static void set_why(char *why, size_t why_n, const char *fmt, const char *arg)
{
    if (why && why_n)
        snprintf(why, why_n, fmt, arg);
}

int km_build(const char *text, size_t len, const char *kernel, km_kernel **out, char *why,
             size_t why_n)
{
    return km_build_with(text, len, kernel, NULL, out, why, why_n);
}

int km_build_with(const char *text, size_t len, const char *kernel, const km_launch_facts *facts,
                  km_kernel **out, char *why, size_t why_n)
{
    *out = NULL;
    if (why && why_n)
        why[0] = 0;
    if (len > AN_TEXT_MAX_BYTES) {
        set_why(why, why_n, "%s", EN(KM_TOO_BIG_TEXT));
        return HK_ETOOBIG;
    }
    const char *gwhy;
    int rc = an_grammar_check(&gwhy);
    if (rc) {
        set_why(why, why_n, "%s", gwhy);
        return rc;
    }
    /* Everything the failure exit frees lives on the heap, not in locals that a longjmp
     * could leave stale. */
    jmp_buf fail;
    km_kernel *k = hk_calloc(1, sizeof(*k));
    kb *bp = hk_calloc(1, sizeof(*bp));
    if (!k || !bp) {
        hk_free(k);
        hk_free(bp);
        return HK_ENOMEM;
    }
    k->fail = &fail;
    bp->k = k;
    bp->text = text;
    bp->body_of = -1;
    bp->facts = facts;
    if (setjmp(fail)) {
        rc = k->fail_rc;
        set_why(why, why_n, "%s", rc == HK_ETOOBIG ? EN(KM_OVER_CAPS)
                                                   : hk_strerror(rc));
        goto out;
    }
    k->name = hk_strdup(kernel);
    if (!k->name)
        km__fail(k, HK_ENOMEM);
    rc = an_analyze(text, len, &bp->own_am);
    if (rc) {
        set_why(why, why_n, EN(KM_NOT_ANALYSED), hk_strerror(rc));
        goto out;
    }
    const an_model *am = bp->own_am;
    long fi = an_model_find_kernel(am, kernel);
    if (fi < 0 || am->funcs[fi].kind != AN_KERNEL) {
        rc = HK_ENOENT;
        set_why(why, why_n, EN(KM_NO_KERNEL), kernel);
        goto out;
    }
    bp->am = am;
    bp->fi = fi;
    bp->f = &am->funcs[fi];
    bp->parser = ts_parser_new();
    if (!bp->parser || !ts_parser_set_language(bp->parser, tree_sitter_cuda()))
        km__fail(k, HK_ENOMEM);
    bp->tree = ts_parser_parse_string(bp->parser, NULL, text, (uint32_t)len);
    if (!bp->tree) {
        rc = HK_EPARSE;
        set_why(why, why_n, "%s", EN(KM_PARSER_REFUSED));
        goto out;
    }
    kb *b = bp;
    TSNode root = ts_tree_root_node(b->tree);
    TSNode body = ts_node_descendant_for_byte_range(root, b->f->body_span.start_byte,
                                                    b->f->body_span.end_byte);
    while (!ts_node_is_null(body) && !is(body, "compound_statement"))
        body = ts_node_parent(body);
    if (ts_node_is_null(body) || b->f->body_span.start_byte == b->f->body_span.end_byte) {
        rc = HK_EPARSE;
        set_why(why, why_n, EN(KM_NO_BODY), kernel);
        goto out;
    }
    collect_macros(b, root, 0);
    for (size_t i = 0; i < am->n_tunables; i++) {   /* constexpr N = <expression> */
        const an_tunable *t = &am->tunables[i];
        int64_t v;
        if (t->kind == AN_TUNE_CONSTEXPR && t->owner == -1 && t->value &&
            !parse_int(t->value, &v)) {
            macro *m = km__push(k, &b->macros, sizeof(macro));
            m->name = km__strdup(k, t->name);
            m->value = km__strdup(k, t->value);
        }
    }
    for (size_t i = 0; i < b->f->n_params; i++) {
        const an_param *p = &b->f->params[i];
        km_param *q = km__push(k, &k->params, sizeof(km_param));
        q->name = km__strdup(k, p->name);
        q->pointer = p->pointer_depth > 0;
        q->elem_type = km__strdup(k, p->elem_type ? p->elem_type : "");
        q->is_const = p->is_const;
    }
    b->quiet++;   /* the extents' own evaluation records nothing */
    param_dims(b, text, body);
    b->quiet--;
    scan(b, body, 0, 0, NULL);
    /* A pointer parameter the kernel moves (p += off, p++; mmcv's three_interpolate moves
     * out by the batch and channel) no longer points at element 0: its accesses get an
     * unknown offset, as a moved local pointer's do, so no count is read off them. */
    size_t np = b->f->n_params ? b->f->n_params : 1;
    b->move_state = km__alloc(k, np);
    memset(b->move_state, 0, np);
    b->move_atom = km__alloc(k, np * sizeof(uint32_t));
    b->move_off = km__alloc(k, np * sizeof(km_form));
    for (size_t i = 0; i < b->f->n_params; i++) {
        const an_param *p = &b->f->params[i];
        const mut *mu = mut_find(b, p->name);
        if (p->pointer_depth > 0 && mu && (mu->n_mut || mu->stepped)) {
            ent *e = env_push(b, p->name, E_POINTER);
            e->base = p->name;
            e->space = KM_SPACE_GLOBAL;
            e->form = fresh_var(b);
            if (mu->n_mut == 1 && !mu->stepped) {
                b->move_state[i] = 1;
                b->move_atom[i] = e->form.t[0].atoms[0];
            }
        }
    }
    walk(b, text, body);
    /* the elements of a parameter moved once, counted from where it pointed at entry:
     * the offset before the move is 0, after it the move's */
    for (size_t i = 0; i < b->f->n_params; i++) {
        if (b->move_state[i] != 2)
            continue;
        const km_param *q = (const km_param *)k->params.v + i;
        for (size_t j = 0; j < k->accesses.n; j++) {
            km_access *a = (km_access *)k->accesses.v + j;
            if (strcmp(a->buffer, q->name) != 0 || a->line == q->moved_at)
                continue;
            km_form by = a->line > q->moved_at ? b->move_off[i] : (km_form){0};
            a->has_entry_element = subst_atom(b, a->element, b->move_atom[i], by, &a->entry_element) &&
                                   !km_form_mentions(k, a->entry_element, b->move_atom[i]);
        }
    }
    /* params read / written, from the accesses */
    km_param *ps = k->params.v;
    const km_access *as = k->accesses.v;
    for (size_t i = 0; i < k->params.n; i++)
        for (size_t j = 0; j < k->accesses.n; j++)
            if (strcmp(as[j].buffer, ps[i].name) == 0) {
                ps[i].read |= as[j].mode != KM_WRITE;
                ps[i].written |= as[j].mode != KM_READ;
            }
    for (size_t j = 0; j < k->accesses.n; j++) {
        km_access *a = (km_access *)k->accesses.v + j;
        a->element_value = km__drop_grid_counters(k, a->value);
    }
    for (size_t j = 0; j < k->accs.n; j++) {
        km_accumulator *a = (km_accumulator *)k->accs.v + j;
        a->element_operand = km__drop_grid_counters(k, a->operand);
    }
    /* names point into the analysis model, which is freed below: copy them */
    for (size_t j = 0; j < k->accesses.n; j++)
        ((km_access *)k->accesses.v)[j].buffer = km__strdup(k, as[j].buffer);
    for (size_t j = 0; j < k->sites.n; j++) {
        km_read_site *r = (km_read_site *)k->sites.v + j;
        if (r->buffer)
            r->buffer = km__strdup(k, r->buffer);
    }
    for (size_t j = 0; j < k->locals.n; j++) {
        km_local *l = (km_local *)k->locals.v + j;
        if (l->base)
            l->base = km__strdup(k, l->base);
    }
    for (size_t j = 0; j < k->atoms.n; j++) {
        km_atom *a = (km_atom *)k->atoms.v + j;
        if (a->name)
            a->name = km__strdup(k, a->name);
    }
    rc = HK_OK;
out:
    {
        macro *ms = bp->macros.v;
        for (size_t i = 0; i < bp->macros.n; i++)
            if (ms[i].tree)
                ts_tree_delete(ms[i].tree);
        mloop *ml = bp->mloops.v;
        for (size_t i = 0; i < bp->mloops.n; i++)
            if (ml[i].tree)
                ts_tree_delete(ml[i].tree);
    }
    hk_free(bp->mloops.v);
    hk_free(bp->env.v);
    hk_free(bp->macros.v);
    hk_free(bp->muts.v);
    hk_free(bp->gs.v);
    if (bp->tree)
        ts_tree_delete(bp->tree);
    if (bp->parser)
        ts_parser_delete(bp->parser);
    an_model_free(bp->own_am);
    hk_free(bp);
    hk_free(k->scratch);
    k->scratch = NULL;
    k->fail = NULL;
    if (rc) {
        km_free(k);
        return rc;
    }
    *out = k;
    return HK_OK;
}

void km_free(km_kernel *k)
{
    if (!k)
        return;
    km__vecs_free(k);
    while (k->arena) {
        km_block *n = k->arena->next;
        hk_free(k->arena);
        k->arena = n;
    }
    hk_free(k->name);
    hk_free(k);
}
