/* coalesced_columns (issue 13): a column reduction written as one block per output column
 * (block b owns out[b], its threads stride down the rows, a shared tree, thread 0 stores)
 * becomes a block per 32 adjacent columns whose lanes read along a row. Recognized from the
 * kernel model (server/model/): the accesses' affine forms, the accumulator, the tree's
 * shared accesses and the one store, not from the kernel's spelling. */
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"
#include "spec/expr.h"
#include "spec/spec.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

/* Columns per block (issue 13, session 36): at most 32 (one warp's lanes along a row), at
 * least a 32-byte sector of the input's elements (8 floats, 16 halves or bf16, 4 doubles),
 * so each row's strip of a block is still whole sectors: narrower strips give the grid more
 * blocks without losing coalescing. */
#define CS_COLS 32
#define CS_COLS_MIN 4   /* the narrowest strip: a sector of 8-byte elements */
#define CS_SECTOR 32
/* Row splits across blocks (an accumulating store only): at most 32 per column strip. */
#define CS_SPLITS 32

/* The body: column strips of $W columns (threadIdx.x % $W the column, threadIdx.x / $W a
 * slice of rows), each block one (strip, split) item of the launch's grid. With splits
 * ($SPLIT "true": the store accumulates, so partial sums may be added) the grid's blocks
 * beyond the strips share a strip's rows: block b takes strip b % strips and the b / strips
 * -th of the (grid - 1 - strip) / strips + 1 equal row ranges of that strip, and adds its
 * partial total atomically (the original's store when a strip has one split). Without, a
 * block takes whole strips, strip-strided over the grid. Any grid and block up to 1024. */
static const char tpl_cols[] =
    "{\n" /* i18n: not for people */
    "    // hk rewrite: coalesced columns. A block sums $W adjacent columns: threadIdx.x % $W is\n"
    "    // the column (the lanes of a warp read neighbouring elements of a row, whole 32-byte\n"
    "    // sectors), threadIdx.x / $W the first row of a slice of rows; the slices' partial sums\n"
    "    // are added in shared memory and one thread per column stores.$SPLITDOC\n"
    "    const long long hk_rows = (long long)($R);\n"
    "    const long long hk_cols = (long long)($C);\n"
    "    const unsigned int hk_w = $Wu;\n"
    "    const unsigned int hk_groups = blockDim.x >= hk_w ? blockDim.x / hk_w : 1u;\n"
    "    const bool hk_split_rows = $SPLIT;\n"
    "    __shared__ $ACC hk_part[1024];\n"
    "    if (hk_cols <= 0)\n"
    "        return;\n"
    "    const long long hk_strips = (hk_cols + hk_w - 1) / hk_w, hk_grid = gridDim.x;\n"
    "    const long long hk_items = hk_split_rows && hk_grid > hk_strips ? hk_grid : hk_strips;\n"
    "    for (long long hk_item = blockIdx.x; hk_item < hk_items; hk_item += hk_grid) {\n"
    "        const long long hk_strip = hk_item % hk_strips, hk_split = hk_item / hk_strips;\n"
    "        const long long hk_nsplit = hk_items > hk_strips ? (hk_grid - 1 - hk_strip) / hk_strips + 1 : 1;\n"
    "        const long long hk_r0 = hk_rows * hk_split / hk_nsplit, hk_r1 = hk_rows * (hk_split + 1) / hk_nsplit;\n"
    "        for (unsigned int hk_slot = threadIdx.x; hk_slot < hk_w * hk_groups; hk_slot += blockDim.x) {\n"
    "            const unsigned int hk_lane = hk_slot % hk_w, hk_g = hk_slot / hk_w;\n"
    "            const long long hk_col = hk_strip * hk_w + hk_lane;\n"
    "            $ACC hk_s = 0;\n"
    "            if (hk_col < hk_cols) {\n"
    "                auto *hk_p = $IN + ((hk_r0 + hk_g) * hk_cols + hk_col);\n"
    "                const long long hk_step = (long long)hk_groups * hk_cols;\n"
    "                // independent loads: several rows in flight per thread\n"
    "                #pragma unroll 8\n"
    "                for (long long hk_r = hk_r0 + hk_g; hk_r < hk_r1; hk_r += hk_groups, hk_p += hk_step)\n"
    "                    hk_s += ($ACC)(*hk_p);\n"
    "            }\n"
    "            hk_part[hk_slot] = hk_s;\n"
    "        }\n"
    "        __syncthreads();\n"
    "        for (unsigned int hk_l = threadIdx.x; hk_l < hk_w; hk_l += blockDim.x) {\n"
    "            const long long hk_col = hk_strip * hk_w + hk_l;\n"
    "            $ACC hk_total = hk_part[hk_l];\n"
    "            for (unsigned int hk_g = 1; hk_g < hk_groups; hk_g++)\n"
    "                hk_total += hk_part[hk_g * hk_w + hk_l];\n"
    "            if (hk_col < hk_cols) {\n"
    "                if (hk_nsplit == 1)\n"
    "                    $STORE\n"
    "$ATOMIC"
    "            }\n"
    "        }\n"
    "        __syncthreads();   // hk_part is reused by the block's next item\n"
    "    }\n"
    "}";

/* What the model says the kernel is. */
typedef struct {
    char in[PT_NAME], out[PT_NAME];   /* the matrix read, the column totals written */
    char acc_type[PT_NAME];           /* the accumulator's declared type */
    char out_type[PT_NAME];           /* out's element type as declared */
    char rows[PT_EXPR], cols[PT_EXPR];/* R and C as C text over the kernel's parameters */
    bool add;                         /* the store adds to out[b] (`+=`, `= out[b] + ...`) */
    uint32_t line;                    /* the store's line */
} cs_match;

static const km_atom *atom_of(const km_kernel *k, uint32_t id)
{
    size_t n;
    const km_atom *a = km_atoms(k, &n);
    return id < n ? &a[id] : NULL;
}

/* f is one atom with coefficient 1: that atom, else NULL. */
static const km_atom *lone_atom(const km_kernel *k, km_form f)
{
    if (f.n != 1 || f.t[0].coef != 1 || f.t[0].n != 1)
        return NULL;
    return atom_of(k, f.t[0].atoms[0]);
}

static bool is_builtin(const km_atom *a, enum km_atom_kind kind)
{
    return a && a->kind == kind && a->axis == 0;
}

/* A value conversion that keeps a sum a sum: a cast `(T)(x)` or a float/half/bf16
 * conversion function of one argument. */
static bool is_conversion(const km_atom *a)
{
    static const char *const fns[] = {"__bfloat162float", "__half2float", "__float2half", "__float2half_rn",
                                      "__float2bfloat16", "__float2bfloat16_rn", "__float2bfloat16_rz",
                                      "__double2float_rn", "__float2half_rz"};
    if (!a || a->kind != KM_ATOM_OPAQUE || !a->op || strcmp(a->op, "call") != 0 || a->n_args != 1 || !a->name)
        return false;
    if (a->name[0] == '(')
        return true;
    for (size_t i = 0; i < HK_ARRAY_LEN(fns); i++)
        if (strcmp(a->name, fns[i]) == 0)
            return true;
    return false;
}

/* f with conversions around it taken off. */
static km_form unconverted(const km_kernel *k, km_form f)
{
    for (int depth = 0; depth < 4; depth++) {
        const km_atom *a = lone_atom(k, f);
        if (!is_conversion(a))
            break;
        f = a->args[0];
    }
    return f;
}

/* Is f the read buffer[0] / buffer[blockIdx.x] (which: 0 zero, 1 the block's column)? */
static bool is_read_of(const km_kernel *k, km_form f, const char *buffer, int which)
{
    const km_atom *a = lone_atom(k, unconverted(k, f));
    if (!a || a->kind != KM_ATOM_READ || !a->name || strcmp(a->name, buffer) != 0 || a->n_args != 1)
        return false;
    if (which == 0)
        return a->args[0].n == 0;
    return is_builtin(lone_atom(k, a->args[0]), KM_ATOM_BLOCK_IDX);
}

/* Is f `threadIdx.x + s`, s the tree loop's variable (atom s)? */
static bool is_partner(const km_kernel *k, km_form f, uint32_t s)
{
    if (f.n != 2)
        return false;
    bool tx = false, sv = false;
    for (uint32_t i = 0; i < 2; i++) {
        if (f.t[i].coef != 1 || f.t[i].n != 1)
            return false;
        tx |= is_builtin(atom_of(k, f.t[i].atoms[0]), KM_ATOM_THREAD_IDX);
        sv |= f.t[i].atoms[0] == s;
    }
    return tx && sv;
}

/* Is g `threadIdx.x == 0`? */
static bool is_thread0(const km_kernel *k, const km_guard *g)
{
    if (strcmp(g->op, "==") != 0)
        return false;
    return (is_builtin(lone_atom(k, g->lhs), KM_ATOM_THREAD_IDX) && g->rhs.n == 0) ||
           (is_builtin(lone_atom(k, g->rhs), KM_ATOM_THREAD_IDX) && g->lhs.n == 0);
}

/* Does f hold only parameters, named constants and numbers (a size the launch fixes)? */
static bool is_size(const km_kernel *k, km_form f)
{
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *a = atom_of(k, f.t[i].atoms[j]);
            if (!a)
                return false;
            if (a->kind == KM_ATOM_PARAM || a->kind == KM_ATOM_CONST)
                continue;
            if (a->kind == KM_ATOM_OPAQUE && a->op && (!strcmp(a->op, "/") || !strcmp(a->op, "%")) &&
                a->n_args == 2 && is_size(k, a->args[0]) && is_size(k, a->args[1]))
                continue;
            return false;
        }
    return true;
}

/* C text of f (a size), into out; false when it cannot be written or does not fit. */
static bool size_text(const km_kernel *k, km_form f, char *out, size_t n)
{
    struct hk_buf b;
    hk_buf_init(&b, n - 1);
    km_form none = {0};
    bool ok = km_form_print_c(k, f, none, NULL, NULL, &b) == HK_OK && b.data;
    if (ok)
        snprintf(out, n, "%s", b.data);
    hk_buf_free(&b);
    return ok;
}

/* The declared type of the accumulator name declared at line (1-based) of text: the words
 * before the name on that line, `const` dropped. false when they are not a plain scalar type. */
static bool decl_type(const char *text, size_t len, uint32_t line, const char *name, char *out, size_t n)
{
    static const char *const types[] = {"float", "double", "int", "unsigned int", "unsigned", "long",
                                        "long long", "unsigned long long", "unsigned long", "size_t"}; /* i18n: not for people */
    size_t p = 0;
    for (uint32_t l = 1; l < line && p < len; p++)
        if (text[p] == '\n')
            l++;
    size_t e = p;
    while (e < len && text[e] != '\n')
        e++;
    size_t nl = strlen(name);
    for (size_t q = p; q + nl <= e; q++) {
        if (memcmp(text + q, name, nl) != 0 || (q > p && (isalnum((unsigned char)text[q - 1]) || text[q - 1] == '_')) ||
            (q + nl < e && (isalnum((unsigned char)text[q + nl]) || text[q + nl] == '_')))
            continue;
        char words[PT_NAME];
        size_t w = 0;
        bool space = false;
        for (size_t r = p; r < q && w + 2 < sizeof words; r++) {
            if (isspace((unsigned char)text[r])) {
                space = w > 0;
                continue;
            }
            if (space)
                words[w++] = ' ';
            space = false;
            words[w++] = text[r];
        }
        words[w] = '\0';
        const char *t = words;
        if (strncmp(t, "const ", 6) == 0)
            t += 6;
        for (size_t i = 0; i < HK_ARRAY_LEN(types); i++)
            if (strcmp(t, types[i]) == 0) {
                snprintf(out, n, "%s", t);
                return true;
            }
        return false;
    }
    return false;
}

/* Is the tree loop's start half the block (blockDim.x / 2, blockDim.x >> 1) or half the
 * shared array's extent (a fixed-size array walked from its middle)? */
static bool tree_start(const km_kernel *k, const km_loop *lp, km_form extent)
{
    const km_atom *a = lone_atom(k, lp->start);
    if (a && a->kind == KM_ATOM_OPAQUE && a->op && a->n_args == 2 &&
        (!strcmp(a->op, "/") || !strcmp(a->op, ">>"))) {
        int64_t d;
        if (!km_form_value(k, a->args[1], &d) || d != (strcmp(a->op, "/") == 0 ? 2 : 1))
            return false;
        if (is_builtin(lone_atom(k, a->args[0]), KM_ATOM_BLOCK_DIM))
            return true;
        int64_t e, h;
        return extent.n && km_form_value(k, extent, &e) && km_form_value(k, a->args[0], &h) && e == h;
    }
    int64_t s, e;
    return extent.n && km_form_value(k, lp->start, &s) && km_form_value(k, extent, &e) && e == 2 * s;
}

/* Does the loop run while its variable is positive (> 0, >= 1, != 0)? */
static bool tree_end(const km_kernel *k, const km_loop *lp)
{
    int64_t v = 0;
    if (!lp->cmp || (lp->bound.n && !km_form_value(k, lp->bound, &v)))
        return false;
    return (!strcmp(lp->cmp, ">") && v == 0) || (!strcmp(lp->cmp, ">=") && v == 1) ||
           (!strcmp(lp->cmp, "!=") && v == 0);
}

#define REFUSE(...)                                                                          \
    do {                                                                                     \
        snprintf(why, n, __VA_ARGS__);                                                       \
        goto out;                                                                            \
    } while (0)

/* The model's reading of kernel f: HK_OK with t filled and why[0] == '\0' when it is a
 * column reduction of the class, else HK_OK with the reason (a line and the construct) in
 * why; HK_ENOMEM. */
static int match_columns(const char *text, size_t len, const an_function *f, cs_match *t, char *why, size_t n)
{
    km_kernel *k = NULL;
    km_class c;
    why[0] = '\0';
    memset(t, 0, sizeof *t);
    int rc = rw_model_classify(text, len, f->name, &k, &c, why, n);
    if (rc || !k)
        return rc;
    size_t na, nl, ng, nacc, nat, np;
    const km_access *as = km_accesses(k, &na);
    const km_loop *lps = km_loops(k, &nl);
    const km_guard *gs = km_guards(k, &ng);
    const km_accumulator *acc = km_accumulators(k, &nacc);
    const km_atom *atoms = km_atoms(k, &nat);
    const km_param *ps = km_params(k, &np);
    /* one axis: a block of threads along x per column */
    uint32_t body_line = f->body_span.start_row + 1;
    for (size_t i = 0; i < nat; i++)
        if ((atoms[i].kind == KM_ATOM_THREAD_IDX || atoms[i].kind == KM_ATOM_BLOCK_IDX ||
             atoms[i].kind == KM_ATOM_BLOCK_DIM) && atoms[i].axis != 0)
            REFUSE(EN(RW_CS_NOT_X),
                   body_line, atoms[i].text);
    for (size_t i = 0; i < nat; i++) {
        if (atoms[i].kind != KM_ATOM_GRID_DIM)
            continue;
        for (size_t l = 0; l < nl; l++)   /* where the grid is read: a grid-stride loop */
            if (lps[l].kind == KM_LOOP_GRID_STRIDE)
                REFUSE(EN(RW_CS_GRID_STRIDE), lps[l].line, atoms[i].text);
        REFUSE(EN(RW_CS_GRID_SIZE),
               body_line, atoms[i].text);
    }
    /* the one store: out[blockIdx.x] by thread 0 */
    const km_access *st = NULL;
    for (size_t i = 0; i < na; i++) {
        if (as[i].space != KM_SPACE_GLOBAL || as[i].mode == KM_READ)
            continue;
        if (st) {   /* name the store that is not thread 0's total */
            const km_access *o = &as[i];
            if (!(o->n_guards == 1 && is_thread0(k, &gs[o->guards[0]])))
                st = o;
            REFUSE(EN(RW_CS_STORE_BESIDE),
                   st->line, st->buffer);
        }
        st = &as[i];
    }
    if (!st)
        REFUSE(EN(RW_CS_NO_STORE), body_line);
    if (st->atomic)
        REFUSE(EN(RW_CS_ATOMIC), st->line, st->buffer);
    if (!is_builtin(lone_atom(k, st->index), KM_ATOM_BLOCK_IDX))
        REFUSE(EN(RW_CS_STORE_NOT_COLUMN),
               st->line, st->buffer);
    if (st->n_guards != 1 || !is_thread0(k, &gs[st->guards[0]]) || st->n_loops)
        REFUSE(EN(RW_CS_STORE_NOT_THREAD0), st->line, st->buffer);
    snprintf(t->out, sizeof t->out, "%s", st->buffer);
    t->line = st->line;
    /* the accumulator: a sum of one global read over a block-stride loop */
    const km_accumulator *a = NULL;
    for (size_t i = 0; i < nacc; i++) {
        if (a)
            REFUSE(EN(RW_CS_SECOND_ACC), acc[i].line, acc[i].name);
        a = &acc[i];
    }
    if (!a)
        REFUSE(EN(RW_CS_NO_ACC), st->line);
    if (a->n_updates != 1)
        REFUSE(EN(RW_CS_ACC_SEVERAL), a->line, a->name);
    if (a->op != KM_OP_SUM)
        REFUSE(EN(RW_CS_ACC_OP), a->line, a->name, km_op_name(a->op));
    int64_t init;
    if (a->init.n && (!km_form_value(k, a->init, &init) || init != 0))
        REFUSE(EN(RW_CS_ACC_START), a->line, a->name);
    if (a->loop < 0 || (size_t)a->loop >= nl)
        REFUSE(EN(RW_CS_ACC_NO_LOOP), a->line, a->name);
    const km_loop *rl = &lps[a->loop];
    if (rl->kind != KM_LOOP_BLOCK_STRIDE || rl->parent >= 0 || !rl->cmp || strcmp(rl->cmp, "<") != 0 ||
        !is_builtin(lone_atom(k, rl->start), KM_ATOM_THREAD_IDX) ||
        !is_builtin(lone_atom(k, rl->step), KM_ATOM_BLOCK_DIM))
        REFUSE(EN(RW_CS_ROWS_LOOP),
               rl->line);
    if (!is_size(k, rl->bound) || !size_text(k, rl->bound, t->rows, sizeof t->rows))
        REFUSE(EN(RW_CS_ROWS_BOUND),
               rl->line);
    const km_atom *rd = lone_atom(k, unconverted(k, a->operand));
    if (!rd || rd->kind != KM_ATOM_READ || !rd->name || rd->n_args != 1)
        REFUSE(EN(RW_CS_ACC_MORE),
               a->line,
               a->name);
    snprintf(t->in, sizeof t->in, "%s", rd->name);
    /* the read's index: C * i + blockIdx.x, i = threadIdx.x + blockDim.x * $L */
    km_form ix = rd->args[0];
    uint32_t tx, bx, bdx;
    if (!km_builtin_atom(k, KM_ATOM_THREAD_IDX, 0, &tx) || !km_builtin_atom(k, KM_ATOM_BLOCK_IDX, 0, &bx) ||
        !km_builtin_atom(k, KM_ATOM_BLOCK_DIM, 0, &bdx))
        REFUSE(EN(RW_CS_LOAD_NOT_INDEXED), a->line, t->in);
    km_term ct[16], lt[16], lct[16], bt[4];
    uint32_t nct = 0, nlt = 0, nlct = 0, nbt = 0;
    bool affine = km_form_coefficient(k, ix, tx, ct, 16, &nct) && nct &&
                  km_form_coefficient(k, ix, rl->counter, lt, 16, &nlt) &&
                  km_form_coefficient(k, (km_form){lt, nlt}, bdx, lct, 16, &nlct) &&
                  km_form_coefficient(k, ix, bx, bt, 4, &nbt);
    km_form C = {ct, nct};
    if (!affine || !is_size(k, C) || !km_form_equal(C, (km_form){lct, nlct}) || nlct != nlt || nbt != 1 ||
        bt[0].n != 0 || bt[0].coef != 1 || ix.n != 2 * nct + 1)
        REFUSE(EN(RW_CS_LOAD_NOT_COLUMN), a->line, t->in, t->in);
    if (!size_text(k, C, t->cols, sizeof t->cols))
        REFUSE(EN(RW_CS_STRIDE), a->line, t->in);
    /* every access: the column's reads, the tree's shared ones, the store (and its read) */
    const char *tree = NULL;
    for (size_t i = 0; i < na; i++) {
        const km_access *x = &as[i];
        if (x == st)
            continue;
        if (x->space == KM_SPACE_GLOBAL) {
            bool col = strcmp(x->buffer, t->in) == 0 && x->mode == KM_READ && km_form_equal(x->index, ix) &&
                       x->n_loops == 1 && x->loops[0] == (uint32_t)a->loop && x->n_guards == 0;
            bool old = strcmp(x->buffer, t->out) == 0 && x->mode == KM_READ &&
                       is_builtin(lone_atom(k, x->index), KM_ATOM_BLOCK_IDX);
            if (!col && !old)
                REFUSE(EN(RW_CS_OTHER_READ),
                       x->line, x->buffer,
                       x->buffer);
            continue;
        }
        if (x->space != KM_SPACE_SHARED)
            REFUSE(EN(RW_CS_LOCAL_ARRAY), x->line, x->buffer);
        if (tree && strcmp(tree, x->buffer) != 0)
            REFUSE(EN(RW_CS_SECOND_SHARED), x->line, x->buffer);
        tree = x->buffer;
    }
    if (!tree)
        REFUSE(EN(RW_CS_NO_TREE), a->line);
    /* the tree: S[tx] = acc; S[tx] += S[tx + s] in a halving loop under tx < s; S[0] stored */
    size_t nloc;
    const km_local *loc = km_locals(k, &nloc);
    km_form extent = {0};
    for (size_t i = 0; i < nloc; i++)
        if (loc[i].kind == KM_LOCAL_ARRAY && strcmp(loc[i].name, tree) == 0)
            extent = loc[i].form;
    bool filled = false, combined = false;
    for (size_t i = 0; i < na; i++) {
        const km_access *x = &as[i];
        if (x->space != KM_SPACE_SHARED)
            continue;
        bool at_tx = is_builtin(lone_atom(k, x->index), KM_ATOM_THREAD_IDX);
        if (x->mode == KM_WRITE && at_tx && !x->n_loops && !x->n_guards) {
            const km_atom *v = lone_atom(k, x->value);
            if (!v || v->kind != KM_ATOM_ACC)
                REFUSE(EN(RW_CS_NOT_GIVEN), x->line, tree);
            filled = true;
            continue;
        }
        if (x->mode == KM_READ && x->index.n == 0 && !x->n_loops)
            continue;   /* S[0], the total: the store's value says how it is used */
        if (x->n_loops != 1 || lps[x->loops[0]].kind != KM_LOOP_GEOMETRIC)
            REFUSE(EN(RW_CS_OUTSIDE_TREE), x->line, tree);
        const km_loop *tl = &lps[x->loops[0]];
        if (!tree_start(k, tl, extent) || !tree_end(k, tl))
            REFUSE(EN(RW_CS_TREE_RANGE), tl->line, tree);
        if (x->n_guards != 1 || strcmp(gs[x->guards[0]].op, "<") != 0 ||
            !is_builtin(lone_atom(k, gs[x->guards[0]].lhs), KM_ATOM_THREAD_IDX) ||
            !km_form_mentions(k, gs[x->guards[0]].rhs, tl->counter))
            REFUSE(EN(RW_CS_TREE_GUARD), x->line);
        if (x->mode == KM_RMW) {
            if (!at_tx || x->op != KM_OP_SUM)
                REFUSE(EN(RW_CS_TREE_OP),
                       x->line, tree, km_op_name(x->op));
            const km_atom *v = lone_atom(k, x->value);
            if (!v || v->kind != KM_ATOM_READ || !v->name || strcmp(v->name, tree) != 0 || v->n_args != 1 ||
                !is_partner(k, v->args[0], tl->counter))
                REFUSE(EN(RW_CS_TREE_ADD), x->line, tree, tree);
            combined = true;
        } else if (x->mode != KM_READ) {
            REFUSE(EN(RW_CS_TREE_WRITTEN), x->line, tree);
        } else if (!is_partner(k, x->index, tl->counter)) {
            REFUSE(EN(RW_CS_TREE_READ), x->line, tree);
        }
    }
    if (!filled || !combined)
        REFUSE(EN(RW_CS_NOT_TREE), a->line, tree);
    /* the store's value: S[0], or out[b] + S[0] */
    km_form v = unconverted(k, st->value);
    if (st->mode == KM_RMW && st->op == KM_OP_SUM && is_read_of(k, v, tree, 0)) {
        t->add = true;
    } else if (st->mode == KM_WRITE && is_read_of(k, v, tree, 0)) {
        t->add = false;
    } else if ((st->op == KM_OP_OTHER || st->mode == KM_WRITE) && v.n == 2 && v.t[0].coef == 1 && v.t[0].n == 1 &&
               v.t[1].coef == 1 && v.t[1].n == 1 &&
               ((is_read_of(k, (km_form){&v.t[0], 1}, tree, 0) && is_read_of(k, (km_form){&v.t[1], 1}, t->out, 1)) ||
                (is_read_of(k, (km_form){&v.t[1], 1}, tree, 0) && is_read_of(k, (km_form){&v.t[0], 1}, t->out, 1)))) {
        t->add = true;
    } else {
        REFUSE(EN(RW_CS_NOT_TOTAL), st->line, t->out, tree, tree);
    }
    /* pointers moved or read through another element size: their accesses are not all known */
    for (size_t i = 0; i < np; i++)
        if (ps[i].pointer && (ps[i].moved_at || ps[i].recast_at))
            REFUSE(EN(RW_CS_POINTER),
                   ps[i].moved_at ? ps[i].moved_at
                   : ps[i].recast_at, ps[i].name);
    if (!decl_type(text, len, a->line, a->name, t->acc_type, sizeof t->acc_type))
        REFUSE(EN(RW_CS_ACC_TYPE),
               a->line,
               a->name);
out:
    km_free(k);
    return rc;
}

#undef REFUSE

/* The value of C text e at spec size set s, the kernel's integer scalar parameters bound to
 * the values the spec passes (a float scalar is no count). false when it cannot be evaluated. */
static bool eval_kernel_text(const spec *sp, const an_function *f, const char *e, size_t s, long long *out)
{
    expr *x = NULL;
    if (expr_parse(e, &x, NULL, 0) != HK_OK)
        return false;
    expr_var vars[64];
    size_t nv = 0;
    for (size_t i = 0; i < f->n_params && i < sp->n_args && nv < HK_ARRAY_LEN(vars); i++) {
        const spec_arg *sa = &sp->args[i];
        expr_value v;
        if (sa->kind != HK_ARG_SCALAR || !sa->value || hk_dtype_is_float(sa->dtype) || !f->params[i].name ||
            !f->params[i].name[0] ||
            spec_eval(sp, sa->value, s, 1, &v, NULL, 0) != HK_OK || v.is_float)
            continue;
        vars[nv].name = f->params[i].name;
        vars[nv++].value = v;
    }
    expr_value v;
    bool ok = expr_eval(x, vars, nv, &v, NULL, 0) == HK_OK && !v.is_float;
    expr_free(x);
    if (ok)
        *out = v.i;
    return ok;
}

/* With a harness spec: the launch must be one block per column (grid.x == C, y and z 1)
 * and one row of threads (block y and z 1) at every size set, and the rows readable. NULL
 * when it is, else the reason in why. */
static const char *spec_fits(const rw_context *ctx, const an_function *f, const cs_match *t, char *why, size_t n)
{
    const spec *sp = ctx->spec;
    if (!sp || sp->form != SPEC_FORM_HARNESS)
        return NULL;
    for (size_t s = 0; s < sp->n_sizes; s++) {
        long long C, R, g[3], b[3];
        for (int d = 0; d < 3; d++) {
            expr_value v;
            if (spec_eval(sp, sp->grid[d], s, 1, &v, NULL, 0) != HK_OK || v.is_float ||
                spec_eval(sp, sp->block[d], s, 1, &v, NULL, 0) != HK_OK || v.is_float) {
                snprintf(why, n, EN(RW_CS_SPEC_EVAL),
                                 t->line, s + 1);
                return why;
            }
            spec_eval(sp, sp->grid[d], s, 1, &v, NULL, 0);
            g[d] = v.i;
            spec_eval(sp, sp->block[d], s, 1, &v, NULL, 0);
            b[d] = v.i;
        }
        if (!eval_kernel_text(sp, f, t->cols, s, &C)) {
            snprintf(why, n, EN(RW_CS_SPEC_COLS),
                             t->line, t->cols);
            return why;
        }
        if (!eval_kernel_text(sp, f, t->rows, s, &R)) {
            snprintf(why, n, EN(RW_CS_SPEC_ROWS),
                             t->line, t->rows);
            return why;
        }
        if (g[0] != C || g[1] != 1 || g[2] != 1 || b[1] != 1 || b[2] != 1) {
            snprintf(why, n, EN(RW_CS_SPEC_LAUNCH),
                     t->line, s + 1, g[0], g[1], g[2], b[0], b[1], b[2], t->cols, C);
            return why;
        }
    }
    return NULL;
}

/* Bytes of an element type as the kernel writes it; 0 when not known (a typedef). */
static long type_bytes(const char *t)
{
    static const struct {
        const char *name;
        long size;
    } sizes[] = {{"float", 4}, {"double", 8}, {"int", 4}, {"unsigned", 4}, {"unsigned int", 4},
                 {"__half", 2}, {"half", 2}, {"__nv_bfloat16", 2}, {"__hip_bfloat16", 2}, {"hip_bfloat16", 2},
                 {"nv_bfloat16", 2}, {"char", 1}, {"signed char", 1}, {"unsigned char", 1}, {"uint8_t", 1},
                 {"int8_t", 1}, {"short", 2}, {"unsigned short", 2}, {"int16_t", 2}, {"uint16_t", 2},
                 {"int32_t", 4}, {"uint32_t", 4}, {"long", 8}, {"long long", 8}, {"unsigned long long", 8}, /* i18n: not for people */
                 {"int64_t", 8}, {"uint64_t", 8}, {"size_t", 8}};
    if (strncmp(t, "const ", 6) == 0)
        t += 6;
    for (size_t i = 0; i < HK_ARRAY_LEN(sizes); i++)
        if (strcmp(sizes[i].name, t) == 0)
            return sizes[i].size;
    return 0;
}

/* Can the output's partial totals be added atomically, each exactly as the original's one
 * `out[c] += total` adds (atomicAdd of the element type itself)? 16-bit floats are left out:
 * every split would round out[c] to 16 bits once more. */
static bool atomic_type(const char *t)
{
    static const char *const ok[] = {"float", "double", "int", "unsigned int", "unsigned", "unsigned long long"}; /* i18n: not for people */
    for (size_t i = 0; i < HK_ARRAY_LEN(ok); i++)
        if (strcmp(t, ok[i]) == 0)
            return true;
    return false;
}

/* Blocks of the grid for C columns, W columns per strip and S splits: the spec's grid (C)
 * divided by W / S, or multiplied by S / W (both powers of two). */
static long long grid_blocks(long long C, int W, int S)
{
    return W >= S ? (C + W / S - 1) / (W / S) : C * (S / W);
}

/* The launch's shape for the strips: columns per block *W and row splits *S, from the
 * parameters (0: chosen here) and, for a choice, the spec's columns at its first size set and
 * the device's resident threads. What decided them goes into note, whether the rows are
 * split into *tail (a CS_TAIL_*; *tail_why: why not). NULL when the choice
 * holds, else the refusal in why. The rules:
 *  - W lies in [the input's sector width, 32]: 32 bytes of elements (8 floats, 16 bf16,
 *    4 doubles) still read whole sectors per row; an element size that is not known keeps 32;
 *  - S > 1 only for an accumulating store into a type atomicAdd adds as the original does;
 *  - chosen: from W = 32 down to the sector width, at each W the fewest splits (a power of
 *    two, at most 32, at least 8 rows per slice of a 1024-thread block: rows x W / 8192)
 *    whose grid fills one wave of 1024-thread blocks (SMs x resident threads per SM / 1024:
 *    264 on an H100), else those that add the most blocks; the first W whose grid fills the
 *    wave, else the sector width. Splits come before narrower strips: a block then still
 *    reads W x the element size contiguous bytes per row (64-128), at the cost of one
 *    atomicAdd per column per split;
 *  - without a spec (no columns known) the choice is W 32, S 1: the original's shape. */
/* What the description says after the launch note: nothing, the rows' split, or why the rows
 * are not split (a sentence each). */
enum { CS_TAIL_NONE, CS_TAIL_SPLIT, CS_TAIL_NOT_SPLIT };

static const char *launch_shape(const rw_context *ctx, const an_function *f, const cs_match *t, const an_param *ip,
                                const int *params, int *W, int *S, char *note, size_t nn, int *tail,
                                const char **tail_why, char *why, size_t n)
{
    const spec *sp = ctx->spec;
    long es = 0;
    size_t pi = (size_t)(ip - f->params);
    if (sp && pi < sp->n_args)
        es = (long)hk_dtype_size(sp->args[pi].dtype);
    if (!es) {
        char it[PT_NAME];
        rwp_pointee_type(ip, it, sizeof it);
        es = type_bytes(it);
    }
    int sector = es > 0 ? (int)(CS_SECTOR / es) : CS_COLS;
    if (sector < CS_COLS_MIN)
        sector = CS_COLS_MIN;
    if (sector > CS_COLS)
        sector = CS_COLS;
    bool can_split = t->add && atomic_type(t->out_type);
    const char *no_split = !t->add ? EN(RW_CS_STORE_IS_EQ)
                         : EN(RW_CS_TYPE_NOT_ATOMIC);
    note[0] = '\0';
    *tail = CS_TAIL_NONE;
    if (params[0] && params[0] < sector) {
        snprintf(why, n, es ? EN(RW_CS_NARROW) : EN(RW_CS_NARROW_UNKNOWN), t->line, params[0], t->in, sector);
        return why;
    }
    if (params[1] > 1 && !can_split) {
        snprintf(why, n, EN(RW_CS_SPLIT_REFUSED), t->line, params[1],
                 no_split);
        return why;
    }
    long long C = 0, R = 0;
    bool known = sp && sp->form == SPEC_FORM_HARNESS && sp->n_sizes && eval_kernel_text(sp, f, t->cols, 0, &C) &&
                 eval_kernel_text(sp, f, t->rows, 0, &R) && C > 0;
    long long sms = ctx->sm_count > 0 ? ctx->sm_count : 132;
    long long threads = ctx->warps_per_sm > 0 ? 32LL * ctx->warps_per_sm : 2048;
    long long wave = sms * threads / 1024;
    if (wave < 1)
        wave = 1;
    /* widest first; at each width the splits it allows; narrower only while the grid
     * stays short of the wave */
    for (int w = params[0] ? params[0] : CS_COLS; w >= (params[0] ? params[0] : sector); w /= 2) {
        *W = w;
        *S = params[1] ? params[1] : 1;
        if (!params[1] && known && can_split) {
            /* the fewest splits whose grid reaches the wave, else those that give it the
             * most blocks: the grid is the spec's columns divided (or multiplied) by W / S,
             * so a few columns gain blocks only at a multiple of W / S */
            long long most = R * w / 8192;
            for (int s = 2; s <= CS_SPLITS && s <= most && grid_blocks(C, w, *S) < wave; s *= 2)
                if (grid_blocks(C, w, s) > grid_blocks(C, w, *S))
                    *S = s;
        }
        if (!known || grid_blocks(C, w, *S) >= wave)
            break;
    }
    long long strips = known ? (C + *W - 1) / *W : 0;
    bool assumed = ctx->sm_count <= 0;
    if (known)
        snprintf(note, nn, params[0] ? (assumed ? EN(RW_CS_NOTE_PARAM_ASSUMED) : EN(RW_CS_NOTE_PARAM))
                                     : (assumed ? EN(RW_CS_NOTE_CHOSEN_ASSUMED) : EN(RW_CS_NOTE_CHOSEN)),
                 *W, sector, strips, C, grid_blocks(C, *W, *S), wave, sms);
    else
        snprintf(note, nn, params[0] ? EN(RW_CS_NOTE_PARAM_ONLY) : EN(RW_CS_NOTE_NO_SPEC), *W, sector);
    if (*S > 1) {
        *tail = CS_TAIL_SPLIT;
    } else if (!can_split && known && strips < wave) {
        *tail = CS_TAIL_NOT_SPLIT;
        *tail_why = no_split;
    }
    return NULL;
}

static int coalesced_columns(const rw_context *ctx, const int *params, rw_result *out)
{
    static const char *const name = "coalesced columns";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(ctx->text, ctx->len, ctx->m, ctx->kernel, &f);
    if (rc)
        return rc;
    cs_match t;
    char why[640];
    if ((rc = match_columns(ctx->text, ctx->len, f, &t, why, sizeof why)))
        return rc;
    if (!why[0])
        spec_fits(ctx, f, &t, why, sizeof why);
    if (why[0])
        return rwp_not_applicable(out, name, f, why);
    const an_param *op = rwp_param_by_name(f, t.out), *ip = rwp_param_by_name(f, t.in);
    if (!op || op->pointer_depth != 1 || !ip || ip->pointer_depth != 1) {
        snprintf(why, sizeof why, EN(RW_CS_NOT_POINTERS),
                                  t.line, t.in, t.out);
        return rwp_not_applicable(out, name, f, why);
    }
    rwp_pointee_type(op, t.out_type, sizeof t.out_type);
    int W = CS_COLS, S = 1;
    char note[512];
    int tail = CS_TAIL_NONE;
    const char *tail_why = "";
    if (launch_shape(ctx, f, &t, ip, params, &W, &S, note, sizeof note, &tail, &tail_why, why, sizeof why))
        return rwp_not_applicable(out, name, f, why);
    char store[5 * PT_NAME + 128], atomic[3 * PT_NAME + 128] = "";
    if (t.add)
        snprintf(store, sizeof store, "%s[hk_col] = (%s)((%s)%s[hk_col] + hk_total);", t.out, t.out_type, t.acc_type,
                 t.out);
    else
        snprintf(store, sizeof store, "%s[hk_col] = (%s)(hk_total);", t.out, t.out_type);
    if (S > 1)
        snprintf(atomic, sizeof atomic, "                else\n                    atomicAdd(&%s[hk_col], (%s)(hk_total));\n",
                 t.out, t.out_type);
    char w[16];
    snprintf(w, sizeof w, "%d", W);
    const char *splitdoc = S > 1 ? "\n    // Blocks beyond the strips split a strip's rows: each adds its partial totals\n" /* i18n: not for people */
                                   "    // atomically (the order of the additions changes from launch to launch)."
                                 : "";
    struct hk_buf b;
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *kv[] = {"R", t.rows, "C", t.cols, "ACC", t.acc_type, "IN", t.in, "STORE", store, "W", w,
                        "SPLIT", S > 1 ? "true" : "false", "SPLITDOC", splitdoc, "ATOMIC", atomic, NULL};
    if ((rc = rwl_render(&b, tpl_cols, kv)))
        goto out;
    char grid[64];
    if (W > S)
        snprintf(grid, sizeof grid, EN(RW_CS_GRID_DIV), W / S);
    else if (W < S)
        snprintf(grid, sizeof grid, EN(RW_CS_GRID_MUL), S / W);
    else
        snprintf(grid, sizeof grid, "%s", EN(RW_CS_GRID));
    /* a sentence for each: with or without a spec (then exact only under the original's
     * launch), and the rows split, not split (why) or neither said */
    char *desc;
    if (tail == CS_TAIL_SPLIT)
        desc = hk_asprintf(ctx->spec ? EN(RW_CS_DESC_SPLIT) : EN(RW_CS_DESC_NO_SPEC_SPLIT), f->name, W, t.in, t.rows,
                           t.cols, W, W, t.acc_type, t.add ? "+=" : "=", t.line, note, S, grid);
    else if (tail == CS_TAIL_NOT_SPLIT)
        desc = hk_asprintf(EN(RW_CS_DESC_NOT_SPLIT), f->name, W, t.in, t.rows, t.cols, W, W, t.acc_type,   /* a spec's */
                           t.add ? "+=" : "=", t.line, note, tail_why, grid);
    else
        desc = hk_asprintf(ctx->spec ? EN(RW_CS_DESC) : EN(RW_CS_DESC_NO_SPEC), f->name, W, t.in, t.rows, t.cols, W,
                           W, t.acc_type, t.add ? "+=" : "=", t.line, note, grid);
    if (!desc) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwp_replace_body(ctx->text, ctx->len, ctx->m, f, b.data, desc, out)) == HK_OK && out->applicable) {
        if (W > S)
            out->grid_divisor = (unsigned)(W / S);
        else if (W < S)
            out->grid_multiplier = (unsigned)(S / W);
        out->grid_axis = 0;
    }
out:
    hk_buf_free(&b);
    return rc;
}

/* ---- registry descriptor (registry.h) ---- */

static const rw_param coalesced_columns_params[] = {
    /* columns per block: 0 chooses (the widest that fills a wave, at least a sector) */
    {.name = "cols", .type = RW_PARAM_ENUM, .values = {0, 32, 16, 8, 4}, .n_values = 5, .def = 0},
    /* row splits per strip (accumulating stores only): 0 chooses, 1 none */
    {.name = "splits", .type = RW_PARAM_ENUM, .values = {0, 1, 2, 4, 8, 16, 32}, .n_values = 7, .def = 0},
};

static int emit_coalesced_columns(const rw_context *c, const int *p, rw_result *out)
{
    return coalesced_columns(c, p, out);
}

const rw_descriptor rw_coalesced_columns_desc = {
    .name = "coalesced_columns",
    .summary = "a column sum written as one block per column becomes a block per strip of 4-32 columns reading " /* i18n: not for people */
               "along rows, rows split over blocks where the store accumulates",
    .params = coalesced_columns_params,
    .n_params = HK_ARRAY_LEN(coalesced_columns_params),
    .flags = RW_ALGORITHM,
    .emit = emit_coalesced_columns,
};
