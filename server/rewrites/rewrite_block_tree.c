/* block_reduce's tree path (issue 13): a shared-memory tree reduction over one block,
 * recognized from the kernel model by what it computes -- a geometric loop that combines
 * a __shared__ array S with itself at an offset of the loop's variable, after every
 * thread stored its value at S[threadIdx.x], with only S[0] read after it -- is replaced
 * in place by warp shuffles (one __shared__ slot per warp) that leave the same block
 * result in S[0]. The code before the tree (how each thread gets its value) and after it
 * (what the block writes: a per-block partial, a mean, an atomic) is kept as written, so
 * the kernel's outputs and launch are the original's; only the order of the combination
 * changes. Any spelling of the tree: halving (`s = blockDim.x / 2; s > 0; s >>= 1`,
 * `if (tid < s)`), interleaved (`s = 1; s < blockDim.x; s *= 2` with `tid % (2*s) == 0`
 * or `index = 2*s*tid`), temporaries, a macro or template block size, sum, max or min.
 * Session 47: also one tree inside a loop over rows that the block's threads run alike (a
 * block per row), its slots stored again in every iteration (rows_checks). */
#include "rewrites/rewrite_pattern.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

static const char *const name = "block reduce";

/* The replacement of the tree loop. PT_WARP's names over the 1-D block; the second stage
 * combines only the hk_nwarps slots that exist, so no identity value is needed (any T
 * with + or <, >: a template T too). */
static const char tpl_tree[] =
    "{\n" /* i18n: not for people */
    "        // hk rewrite: block_reduce. The shared-memory tree over $S[0 .. blockDim.x) as\n"
    "        // warp shuffles, one shared slot per warp; $S[0] holds the block's $OP as before.\n"
    "        const unsigned int hk_tid = threadIdx.x, hk_nthreads = blockDim.x;\n"
    PT_WARP
    "        $T hk_acc = $S[hk_tid];\n"
    "        __shared__ $T hk_part[32];\n"
    RD_SHFL("        ", "hk_width")
    "        if (hk_lane == 0)\n" /* i18n: not for people */
    "            hk_part[hk_warp] = hk_acc;\n"
    "        __syncthreads();\n"
    "        if (hk_warp == 0) {\n"
    "            hk_acc = hk_part[min(hk_lane, hk_nwarps - 1u)];\n"
    RD_SHFL("            ", "hk_nwarps")
    "            if (hk_lane == 0) {\n"
    "                $S[0] = hk_acc;$CARRY\n"
    "            }\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }";

/* What the model says about the tree. */
typedef struct {
    const km_loop *loop;
    size_t loop_ix;
    const km_access *comb;   /* the combining write S[w] (op)= S[w + s] */
    const char *array;
    enum km_op op;
    uint32_t tid;            /* atom id of threadIdx.x */
    bool pair;               /* the loop writes two arrays: a (value, index) tree? */
    const char *carry;       /* a register carry (`S[w] = acc = acc + S[w + s]`): its name */
    uint32_t carry_atom;     /* its $acc atom */
    const char *block_param; /* refused: the kernel parameter the tree loop runs over
                              * instead of blockDim.x (tree_covers_block), or NULL */
    uint32_t rows_store;     /* a tree in a row loop (rows_checks): the line of the first
                              * store of every thread's slot before the tree, else 0 */
    uint32_t rows_bcast;     /* ... the last line after the tree where a thread other than
                              * thread 0 reads the array, or 0 */
} bt_tree;

/* Is f exactly the one atom id (coefficient 1)? */
static bool form_is_atom(km_form f, uint32_t id)
{
    return f.n == 1 && f.t[0].coef == 1 && f.t[0].n == 1 && f.t[0].atoms[0] == id;
}

/* Is b exactly a + atom (the forms are canonical: term by term)? */
static bool form_plus_atom(km_form a, km_form b, uint32_t atom)
{
    if (b.n != a.n + 1)
        return false;
    bool extra = false;
    for (uint32_t i = 0, j = 0; j < b.n; j++) {
        if (i < a.n && km_term_equal(&a.t[i], &b.t[j])) {
            i++;
            continue;
        }
        if (extra || b.t[j].coef != 1 || b.t[j].n != 1 || b.t[j].atoms[0] != atom)
            return false;
        extra = true;
    }
    return extra;
}

/* The combination a WRITE S[w] = v spells: v = S[w] + S[w + s] (sum), or a call of a
 * max/min function of the two. KM_OP_NONE when it is something else. */
static enum km_op write_op(const km_kernel *k, const km_access *w, uint32_t var)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    km_form v = w->value;
    bool own = false, other = false;
    if (v.n == 2) {
        for (uint32_t i = 0; i < 2; i++) {
            const km_term *t = &v.t[i];
            if (t->coef != 1 || t->n != 1 || at[t->atoms[0]].kind != KM_ATOM_READ ||
                strcmp(at[t->atoms[0]].name, w->buffer) != 0)
                return KM_OP_NONE;
            km_form ix = at[t->atoms[0]].args[0];
            own |= km_form_equal(ix, w->index);
            other |= form_plus_atom(w->index, ix, var);
        }
        return own && other ? KM_OP_SUM : KM_OP_NONE;
    }
    if (v.n != 1 || v.t[0].coef != 1 || v.t[0].n != 1)
        return KM_OP_NONE;
    const km_atom *c = &at[v.t[0].atoms[0]];
    if (c->kind != KM_ATOM_OPAQUE || strcmp(c->op, "call") != 0 || c->n_args != 2 || !c->name)
        return KM_OP_NONE;
    for (uint32_t i = 0; i < 2; i++) {
        km_form a = c->args[i];
        if (a.n != 1 || a.t[0].n != 1 || a.t[0].coef != 1 || at[a.t[0].atoms[0]].kind != KM_ATOM_READ ||
            strcmp(at[a.t[0].atoms[0]].name, w->buffer) != 0)
            return KM_OP_NONE;
        km_form ix = at[a.t[0].atoms[0]].args[0];
        own |= km_form_equal(ix, w->index);
        other |= form_plus_atom(w->index, ix, var);
    }
    if (!own || !other)
        return KM_OP_NONE;
    static const char *const mx[] = {"max", "fmaxf", "fmax", "__hmax", "std::max"};
    static const char *const mn[] = {"min", "fminf", "fmin", "__hmin", "std::min"};
    for (size_t i = 0; i < HK_ARRAY_LEN(mx); i++) {
        if (strcmp(c->name, mx[i]) == 0)
            return KM_OP_MAX;
        if (strcmp(c->name, mn[i]) == 0)
            return KM_OP_MIN;
    }
    return KM_OP_NONE;
}

static bool in_loop(const km_access *a, size_t l)
{
    for (uint32_t j = 0; j < a->n_loops; j++)
        if (a->loops[j] == l)
            return true;
    return false;
}

static bool same_guards(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
    if (na != nb)
        return false;
    for (uint32_t i = 0; i < na; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* A tree combined through a register carry (cuda-samples' reduce3 onwards): each thread
 * keeps its slot's value in an accumulator acc, stored to S[tid] before the tree, and a
 * level is `acc = acc + S[w + s]; S[w] = acc;` (or `S[w] = acc = acc + S[w + s]`, or a
 * max/min), so the store's value is the accumulator itself. acc equals S[w] at every level
 * (only thread w writes S[w], always from acc), so the level is S[w] op= S[w + s]: the
 * operation, or KM_OP_NONE with the reason in why. Checked from the model: the write's
 * value is acc alone; the one update of acc inside the tree loop combines S[w + s] by a sum,
 * max or min under the write's own guards, before it; acc was last stored to S[tid] before
 * the tree with no update of it after that store but the tree's. How acc is used after the
 * tree is the caller's to check (the text's, rw_block_tree_form). */
static enum km_op carry_op(const km_kernel *k, bt_tree *t, char *why, size_t n)
{
    const km_access *w = t->comb;
    size_t na, nacc, nu, nx;
    const km_atom *at = km_atoms(k, &na);
    const km_accumulator *accs = km_accumulators(k, &nacc);
    const km_acc_update *us = km_acc_updates(k, &nu);
    const km_access *as = km_accesses(k, &nx);
    uint32_t s = t->loop->counter;
    if (w->mode != KM_WRITE || w->value.n != 1 || w->value.t[0].coef != 1 || w->value.t[0].n != 1 ||
        at[w->value.t[0].atoms[0]].kind != KM_ATOM_ACC)
        return KM_OP_NONE;
    uint32_t atom = w->value.t[0].atoms[0];
    long ai = at[atom].loop;
    if (ai < 0 || (size_t)ai >= nacc)
        return KM_OP_NONE;
    const char *acc = accs[ai].name;
    /* the store before the tree: S[tid] = acc, the last store of S there */
    const km_access *store = NULL;
    for (size_t i = 0; i < nx; i++) {
        const km_access *a = &as[i];
        if (strcmp(a->buffer, t->array) != 0 || a->mode == KM_READ || a->line >= t->loop->line || in_loop(a, t->loop_ix))
            continue;
        store = a->value.n == 1 && a->value.t[0].coef == 1 && a->value.t[0].n == 1 && a->value.t[0].atoms[0] == atom &&
                form_is_atom(a->index, t->tid) ? a : NULL;
    }
    if (!store) {
        snprintf(why, n, EN(RW_BT_CARRY_LAST),
                 w->line, acc, t->array, t->loop->line, t->array, acc);
        return KM_OP_NONE;
    }
    enum km_op op = KM_OP_NONE;
    uint32_t in_tree = 0;
    for (size_t i = 0; i < nu; i++) {
        const km_acc_update *u = &us[i];
        if (u->acc != (uint32_t)ai)
            continue;
        bool inside = false;
        for (uint32_t j = 0; j < u->n_loops; j++)
            inside |= u->loops[j] == t->loop_ix;
        if (!inside) {
            if (u->line >= store->line) {
                snprintf(why, n, EN(RW_BT_CARRY_OUTSIDE),
                         u->line, acc, t->array, store->line);
                return KM_OP_NONE;
            }
            continue;
        }
        in_tree++;
        const km_term *v = u->operand.n == 1 ? &u->operand.t[0] : NULL;
        bool slot = v && v->coef == 1 && v->n == 1 && at[v->atoms[0]].kind == KM_ATOM_READ &&
                    strcmp(at[v->atoms[0]].name, t->array) == 0 && form_plus_atom(w->index, at[v->atoms[0]].args[0], s);
        if (!slot || (u->op != KM_OP_SUM && u->op != KM_OP_MAX && u->op != KM_OP_MIN) || u->line > w->line ||
            !same_guards(u->guards, u->n_guards, w->guards, w->n_guards)) {
            snprintf(why, n, EN(RW_BT_CARRY_NOT_OP),
                     u->line, acc, acc, t->array, t->loop->var ? t->loop->var : "s", t->array, w->line);
            return KM_OP_NONE;
        }
        op = u->op;
    }
    if (in_tree != 1) {
        snprintf(why, n, EN(RW_BT_CARRY_TIMES), w->line, acc, in_tree);
        return KM_OP_NONE;
    }
    t->carry = acc;
    t->carry_atom = atom;
    return op;
}

/* Does the model read f as blockDim.x (or a named constant: the block size the tree
 * assumes, as a template or macro) divided by 2 / the block size itself? */
static bool is_block_size(const km_kernel *k, km_form f, uint32_t bdx, bool half)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    if (f.n != 1 || f.t[0].coef != 1 || f.t[0].n != 1)
        return false;
    const km_atom *a = &at[f.t[0].atoms[0]];
    if (!half)
        return f.t[0].atoms[0] == bdx || a->kind == KM_ATOM_CONST;
    if (a->kind == KM_ATOM_CONST)   /* a named half size, or a folded blockSize / 2 */
        return true;
    int64_t two;
    return a->kind == KM_ATOM_OPAQUE && (strcmp(a->op, "/") == 0 || strcmp(a->op, ">>") == 0) &&
           a->n_args == 2 && is_block_size(k, a->args[0], bdx, false) && km_form_value(k, a->args[1], &two) &&
           two == (strcmp(a->op, "/") == 0 ? 2 : 1);
}

/* The name of the first scalar kernel parameter f mentions (also inside operations), or
 * NULL. */
static const char *form_param(const km_kernel *k, km_form f)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *a = &at[f.t[i].atoms[j]];
            if (a->kind == KM_ATOM_PARAM)
                return a->name;
            for (uint32_t c = 0; a->kind == KM_ATOM_OPAQUE && c < a->n_args; c++) {
                const char *p = form_param(k, a->args[c]);
                if (p)
                    return p;
            }
        }
    return NULL;
}

/* Does the loop run the whole tree: s from the half block size down to 1, or from 1 up to
 * below the block size? The reason (with the line) in why otherwise; *param (may be NULL)
 * then gets the kernel parameter the loop runs over instead of blockDim.x (llm.c's
 * `block_size / 2`), if any: the caller says why it is not read as the block size. */
static const char *tree_covers_block(const km_kernel *k, const km_loop *lp, uint32_t bdx, char *why, size_t n,
                                     const char **param)
{
    int64_t v;
    /* down to 1: `s > 0`, `s != 0`, or `s >= 1` (the same test on the integer the loop
     * halves: llm.c's matmul_backward_bias_kernel1 spells it so) */
    bool down_cmp = lp->cmp && (!strcmp(lp->cmp, ">") || !strcmp(lp->cmp, "!=") || !strcmp(lp->cmp, ">="));
    bool down = down_cmp && km_form_value(k, lp->bound, &v) && v == (strcmp(lp->cmp, ">=") == 0 ? 1 : 0) &&
                is_block_size(k, lp->start, bdx, true);
    bool down32 = lp->cmp && (!strcmp(lp->cmp, ">") || !strcmp(lp->cmp, ">=")) && km_form_value(k, lp->bound, &v) &&
                  v > (strcmp(lp->cmp, ">=") == 0 ? 1 : 0);
    bool up = lp->cmp && !strcmp(lp->cmp, "<") && km_form_value(k, lp->start, &v) && v == 1 &&
              is_block_size(k, lp->bound, bdx, false);
    if (down || up)
        return NULL;
    if (down32) {
        snprintf(why, n, EN(RW_BT_STOPS_EARLY), lp->line);
    } else {
        snprintf(why, n, EN(RW_BT_NOT_WHOLE), lp->line);
        if (param && !(*param = form_param(k, lp->start)))
            *param = form_param(k, lp->bound);
    }
    return why;
}

/* Is f exactly c * atom + add (add a constant, 0 for none)? */
static bool form_scaled(km_form f, int64_t c, uint32_t atom, int64_t add)
{
    uint32_t want = add ? 2 : 1;
    if (f.n != want || f.t[0].coef != c || f.t[0].n != 1 || f.t[0].atoms[0] != atom)
        return false;
    return !add || (f.t[1].n == 0 && f.t[1].coef == add);
}

/* The guard that makes a doubling tree combine the right pairs: with the write at
 * S[tid], `tid % (2*s) == 0` or `(tid & (2*s - 1)) == 0`; with the write at S[2*s*tid],
 * `2*s*tid < blockDim.x` (or the block-size constant). */
static bool interleaved_guard(const km_kernel *k, const km_guard *g, km_form widx, uint32_t tid, uint32_t s,
                              uint32_t bdx)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    if (widx.n == 1 && widx.t[0].coef == 2 && widx.t[0].n == 2 &&
        ((widx.t[0].atoms[0] == s && widx.t[0].atoms[1] == tid) || (widx.t[0].atoms[0] == tid && widx.t[0].atoms[1] == s)))
        return !strcmp(g->op, "<") && km_form_equal(g->lhs, widx) && is_block_size(k, g->rhs, bdx, false);
    if (!form_is_atom(widx, tid) || strcmp(g->op, "==") != 0)
        return false;
    km_form x = g->lhs.n == 0 ? g->rhs : g->rhs.n == 0 ? g->lhs : (km_form){0};
    if (x.n != 1 || x.t[0].coef != 1 || x.t[0].n != 1)
        return false;
    const km_atom *o = &at[x.t[0].atoms[0]];
    if (o->kind != KM_ATOM_OPAQUE || o->n_args != 2)
        return false;
    if (!strcmp(o->op, "%"))
        return form_is_atom(o->args[0], tid) && form_scaled(o->args[1], 2, s, 0);
    /* & is kept with its operands in canonical order */
    return !strcmp(o->op, "&") && ((form_is_atom(o->args[0], tid) && form_scaled(o->args[1], 2, s, -1)) ||
                                   (form_is_atom(o->args[1], tid) && form_scaled(o->args[0], 2, s, -1)));
}

/* Does f depend only on what every thread of a block shares (parameters, named constants,
 * blockIdx, blockDim, gridDim, literals), also inside operations? */
static bool form_uniform(const km_kernel *k, km_form f)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *a = &at[f.t[i].atoms[j]];
            switch (a->kind) {
            case KM_ATOM_PARAM:
            case KM_ATOM_CONST:
            case KM_ATOM_BLOCK_IDX:
            case KM_ATOM_BLOCK_DIM:
            case KM_ATOM_GRID_DIM:
            case KM_ATOM_LITERAL:
                break;
            case KM_ATOM_OPAQUE:
                if (!strcmp(a->op, "call"))   /* a function may read anything */
                    return false;
                for (uint32_t c = 0; c < a->n_args; c++)
                    if (!form_uniform(k, a->args[c]))
                        return false;
                break;
            default:
                return false;
            }
        }
    return true;
}

/* A guard the whole block takes alike: its threads leave or stay together. */
static bool guard_uniform(const km_kernel *k, const km_guard *g)
{
    return form_uniform(k, g->lhs) && form_uniform(k, g->rhs);
}

/* Is gd, a guard on tree t's write inside its loop, the one that picks which slots take
 * part in a level: the halving tree's `tid < s`, the interleaved tree's `tid % (2*s) == 0`
 * or, with the write at S[2*s*tid], `2*s*tid < blockDim.x`? (bdx: blockDim.x's atom.) */
static bool part_guard(const km_kernel *k, const bt_tree *t, const km_guard *gd, uint32_t bdx)
{
    const km_access *w = t->comb;
    uint32_t s = t->loop->counter;
    bool halving = t->loop->cmp && strcmp(t->loop->cmp, "<") != 0;
    if (halving)
        return form_is_atom(w->index, t->tid) && !strcmp(gd->op, "<") && form_is_atom(gd->lhs, t->tid) &&
               form_is_atom(gd->rhs, s);
    return interleaved_guard(k, gd, w->index, t->tid, s, bdx);
}

/* Session 47: does every thread of a block run loop lp alike -- the same iterations, its
 * start, bound and step the block's own (`r = blockIdx.x; r < rows; r += gridDim.x`, a
 * block per row)? Then a tree inside it is one block-level reduction per iteration, every
 * thread reaching it each time. (Jumps out of an iteration are the text's check:
 * rows_text_checks.) */
static bool rows_alike(const km_kernel *k, const km_loop *lp)
{
    return lp->kind == KM_LOOP_AFFINE && lp->cmp && lp->var && form_uniform(k, lp->start) &&
           form_uniform(k, lp->bound) && form_uniform(k, lp->step);
}

/* Is a, an access of tree t's array inside the row loop rows (index rows_ix) before the
 * tree, a store every thread makes of its own slot in every iteration: S[threadIdx.x] = v
 * at the loop's own level (no inner loop), under no condition of its own inside the loop
 * (one the block shares would still skip iterations: the slots would keep the last tree's
 * partial results, which the rewrite does not leave) and none that differs between
 * threads outside it? (A `switch` or an expression's own condition is the text's check:
 * rows_text_checks.) */
static bool rows_restore(const km_kernel *k, const bt_tree *t, const km_access *a, const km_loop *rows,
                         size_t rows_ix)
{
    size_t ng;
    const km_guard *gs = km_guards(k, &ng);
    if (a->mode != KM_WRITE || a->n_loops != 1 || a->loops[0] != rows_ix || a->line >= t->loop->line ||
        !form_is_atom(a->index, t->tid))
        return false;
    for (uint32_t g = 0; g < a->n_guards; g++)
        if (!guard_uniform(k, &gs[a->guards[g]]) || gs[a->guards[g]].line >= rows->line)
            return false;
    return true;
}

/* Session 47: the checks of a tree inside a row loop rows (index rows_ix; rows_alike, and
 * the only loop around the tree) that the tree's own checks do not make. The rewrite
 * leaves S[0] as the block's result and the other slots as they were before the tree
 * (the original: its partial results), so the next iteration must not see them: every
 * thread stores its slot again in the loop before the tree (rows_restore), and no access
 * of S in the loop reads before the first such store. Thread 0 then writes S[0] in the next
 * iteration: a read of S after the tree by any other thread needs a barrier between it and
 * that store (rows_text_checks finds it; here the last such read's line goes to
 * t->rows_bcast, 0 for none). NULL, or the reason in why. */
static bool guard_thread0(const km_guard *g, uint32_t tid);

static const char *rows_checks(const km_kernel *k, bt_tree *t, const km_loop *rows, size_t rows_ix, char *why,
                               size_t n)
{
    size_t na, ng;
    const km_access *as = km_accesses(k, &na);
    const km_guard *gs = km_guards(k, &ng);
    uint32_t first = 0;
    for (size_t i = 0; i < na; i++)
        if (!strcmp(as[i].buffer, t->array) && rows_restore(k, t, &as[i], rows, rows_ix) && (!first || as[i].line < first))
            first = as[i].line;
    if (!first) {
        snprintf(why, n, EN(RW_BT_ROWS_NOT_RESTORED), t->loop->line, rows->line, t->array);
        return why;
    }
    t->rows_store = first;
    t->rows_bcast = 0;
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &as[i];
        if (strcmp(a->buffer, t->array) != 0 || !in_loop(a, rows_ix) || in_loop(a, t->loop_ix) || a->mode == KM_WRITE)
            continue;
        if (a->line < first) {
            snprintf(why, n, EN(RW_BT_ROWS_READ_BEFORE), a->line, t->array, rows->line);
            return why;
        }
        if (a->line <= t->loop->line)
            continue;
        bool t0 = false;
        for (uint32_t g = 0; g < a->n_guards; g++)
            t0 |= guard_thread0(&gs[a->guards[g]], t->tid);
        if (!t0 && a->line > t->rows_bcast)
            t->rows_bcast = a->line;
    }
    return NULL;
}

/* The one shared tree of the kernel and its checks: NULL, or the reason in why. (A called
 * __device__ function's accesses are the model's at the call's line: checked as well.) */
static const char *tree_checks(const km_kernel *k, bt_tree *t, const bt_tree *prev, const bt_tree *next, char *why,
                               size_t n);

static const char *find_tree(const km_kernel *k, bt_tree *t, char *why, size_t n)
{
    size_t nl, na;
    const km_loop *ls = km_loops(k, &nl);
    const km_access *as = km_accesses(k, &na);
    memset(t, 0, sizeof *t);
    for (size_t l = 0; l < nl; l++) {
        if (ls[l].kind != KM_LOOP_GEOMETRIC)
            continue;
        for (size_t i = 0; i < na; i++) {
            const km_access *a = &as[i];
            if (!in_loop(a, l) || a->space == KM_SPACE_GLOBAL || a->mode == KM_READ)
                continue;
            if (t->comb && t->comb != a) {
                snprintf(why, n, EN(RW_BT_TWO_ARRAYS), a->line, ls[l].line, t->array,
                         a->buffer);
                t->pair = true;   /* rw_block_tree reads it as a pair tree (find_pair) */
                return why;
            }
            t->comb = a;
            t->loop = &ls[l];
            t->loop_ix = l;
            t->array = a->buffer;
        }
    }
    if (!t->comb)
        return RW_NO_TREE;
    return tree_checks(k, t, NULL, NULL, why, n);
}

/* The checks of one tree t (its loop, write and array set): NULL, or the reason in why.
 * prev and next (may be NULL) are the trees of the same array before and after it in a
 * kernel of several trees (find_trees): accesses of the array before prev's loop or from
 * next's loop on are theirs to check. Between t and next slot 0 alone is read (after t the
 * rewrite leaves the other slots as they were before it, the original its intermediate
 * results), and before next each thread stores its own slot again (at least one such store
 * at the top level, under no guard that differs between threads; next's check). */
static const char *tree_checks(const km_kernel *k, bt_tree *t, const bt_tree *prev, const bt_tree *next, char *why,
                               size_t n)
{
    size_t nl, na, ng;
    const km_loop *ls = km_loops(k, &nl);
    const km_access *as = km_accesses(k, &na);
    const km_guard *gs = km_guards(k, &ng);
    const km_access *w = t->comb;
    uint32_t s = t->loop->counter, bdx;
    /* scalarProd's tree over more slots than threads: each thread combines several slots
     * in a loop inside a level (`for (i = tid; i < s; i += blockDim.x)`), named here */
    for (uint32_t j = 0; j < w->n_loops; j++)
        if (ls[w->loops[j]].parent == (long)t->loop_ix) {
            snprintf(why, n, EN(RW_BT_SLOTS_LOOP), w->line, ls[w->loops[j]].line);
            return why;
        }
    /* session 47: a tree inside a loop (a block per row): rows_checks below */
    const km_loop *rows = t->loop->parent >= 0 ? &ls[t->loop->parent] : NULL;
    size_t rows_ix = rows ? (size_t)t->loop->parent : 0;
    if (rows && (prev || next || rows->parent >= 0)) {
        snprintf(why, n, EN(RW_BT_IN_LOOP), t->loop->line, rows->line);
        return why;
    }
    if (rows && !rows_alike(k, rows)) {
        snprintf(why, n, EN(RW_BT_ROWS_NOT_ALIKE), t->loop->line, rows->line);
        return why;
    }
    if (!km_builtin_atom(k, KM_ATOM_THREAD_IDX, 0, &t->tid)) {
        snprintf(why, n, EN(RW_BT_NOT_TX), w->line);
        return why;
    }
    if (!km_builtin_atom(k, KM_ATOM_BLOCK_DIM, 0, &bdx))
        bdx = UINT32_MAX;   /* the tree's size is a named constant only */
    uint32_t other;
    if (km_builtin_atom(k, KM_ATOM_THREAD_IDX, 1, &other) || km_builtin_atom(k, KM_ATOM_THREAD_IDX, 2, &other)) {
        snprintf(why, n, EN(RW_BT_YZ), w->line);
        return why;
    }
    if (tree_covers_block(k, t->loop, bdx, why, n, &t->block_param))
        return why;
    /* every thread of the block must reach the shuffles: no guard (an early return, an
     * if around the tree) may be in force at the tree, but one the whole block takes alike
     * (`if (m <= 0) return;` on a parameter) */
    for (uint32_t g = 0; g < w->n_guards; g++) {
        const km_guard *gd = &gs[w->guards[g]];
        if (gd->line < t->loop->line && !guard_uniform(k, gd)) {
            snprintf(why, n, EN(RW_BT_COND_BEFORE), gd->line, t->loop->line);
            return why;
        }
    }
    /* the combination: S[w] op= S[w + s], directly or through a register carry */
    t->op = w->mode == KM_RMW ? w->op : write_op(k, w, s);
    if (t->op == KM_OP_NONE && w->mode == KM_WRITE) {
        char cw[400] = "";
        t->op = carry_op(k, t, cw, sizeof cw);
        if (cw[0]) {
            snprintf(why, n, "%s", cw);
            return why;
        }
    }
    if (w->mode == KM_RMW) {
        size_t nat;
        const km_atom *at = km_atoms(k, &nat);
        const km_term *v = w->value.n == 1 ? &w->value.t[0] : NULL;
        if (!v || v->coef != 1 || v->n != 1 || at[v->atoms[0]].kind != KM_ATOM_READ ||
            strcmp(at[v->atoms[0]].name, w->buffer) != 0 || !form_plus_atom(w->index, at[v->atoms[0]].args[0], s))
            t->op = KM_OP_NONE;
    }
    if (t->op != KM_OP_SUM && t->op != KM_OP_MAX && t->op != KM_OP_MIN) {
        snprintf(why, n, EN(RW_BT_UPDATE_NOT), w->line, t->array, t->array, t->array, t->loop->var ? t->loop->var : "s");
        return why;
    }
    if (rows && t->carry) {
        snprintf(why, n, EN(RW_BT_ROWS_CARRY), w->line, t->carry, rows->line);
        return why;
    }
    /* which element takes part: the halving tree's `tid < s`, the interleaved tree's
     * `tid % (2*s) == 0` or `w = 2*s*tid` with `w < blockDim.x` */
    bool guarded = false;
    for (uint32_t g = 0; g < w->n_guards; g++) {
        const km_guard *gd = &gs[w->guards[g]];
        if (gd->line >= t->loop->line && part_guard(k, t, gd, bdx))
            guarded = true;
    }
    if (!guarded) {
        snprintf(why, n, EN(RW_BT_NO_GUARD), w->line);
        return why;
    }
    /* before the tree each thread writes its own slot; after it only S[0] is read */
    bool restored = false;
    if (rows && rows_checks(k, t, rows, rows_ix, why, n))
        return why;
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &as[i];
        if (strcmp(a->buffer, t->array) != 0 || a == w || in_loop(a, t->loop_ix))
            continue;
        if (prev && (a->line < prev->loop->line || in_loop(a, prev->loop_ix)))
            continue;   /* the previous tree's phase */
        if (next && (a->line >= next->loop->line || in_loop(a, next->loop_ix)))
            continue;   /* the next tree's */
        if (a->line < t->loop->line) {
            if (a->mode != KM_READ && !form_is_atom(a->index, t->tid)) {
                snprintf(why, n, EN(RW_BT_WRITTEN_OTHER), a->line, t->array);
                return why;
            }
            if (prev && a->mode == KM_WRITE && a->n_loops == 0) {
                bool alike = true;
                for (uint32_t g = 0; g < a->n_guards; g++)
                    alike &= guard_uniform(k, &gs[a->guards[g]]);
                restored |= alike;
            }
            continue;
        }
        if (next && a->mode != KM_READ)
            continue;   /* the next tree's inputs, checked as such there */
        if (a->mode != KM_READ || a->index.n != 0) {
            snprintf(why, n, a->mode == KM_READ ? EN(RW_BT_READ_AFTER_SUMS) : EN(RW_BT_WRITTEN_AFTER_SUMS), a->line,
                     t->array, t->array);
            return why;
        }
    }
    if (prev && !restored) {
        snprintf(why, n, EN(RW_BT_NOT_RESTORED), t->loop->line, t->array, t->array, prev->loop->line);
        return why;
    }
    return NULL;
}

/* The most trees of one kernel block_reduce rewrites together. */
#define BT_MAX_TREES 8

/* Several trees in one block (session 43: llm.c's softmax_forward_kernel2, a row's maximum
 * then its sum over one shared buffer; layernorm's mean then variance): every shared store
 * inside a geometric loop lies in exactly one such loop, and that loop holds no other
 * shared store, and at least two loops hold one. The trees, their loop, write and array
 * set, in the order of their loops' lines, into t[0 .. n); 0 when the kernel is not of
 * that form (find_tree then reads it, with its own reasons: one tree, a pair tree, nested
 * loops). */
static size_t tree_loops(const km_kernel *k, bt_tree *t, size_t cap)
{
    size_t nl, na, nt = 0;
    const km_loop *ls = km_loops(k, &nl);
    const km_access *as = km_accesses(k, &na);
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &as[i];
        if (a->space == KM_SPACE_GLOBAL || a->mode == KM_READ)
            continue;
        long which = -1;
        for (size_t l = 0; l < nl; l++) {
            if (ls[l].kind != KM_LOOP_GEOMETRIC || !in_loop(a, l))
                continue;
            if (which >= 0)
                return 0;   /* geometric loops nested */
            which = (long)l;
        }
        if (which < 0)
            continue;
        for (size_t j = 0; j < nt; j++)
            if (t[j].loop_ix == (size_t)which)
                return 0;   /* two stores in one loop: a pair tree, or two arrays at once */
        if (nt == cap)
            return 0;
        memset(&t[nt], 0, sizeof t[nt]);
        t[nt].comb = a;
        t[nt].loop = &ls[which];
        t[nt].loop_ix = (size_t)which;
        t[nt].array = a->buffer;
        nt++;
    }
    if (nt < 2)
        return 0;
    for (size_t i = 1; i < nt; i++)   /* by the loop's line */
        for (size_t j = i; j > 0 && t[j].loop->line < t[j - 1].loop->line; j--) {
            bt_tree x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return nt;
}

/* The checks of every tree of t[0 .. nt) (tree_loops), each with the trees of its array
 * before and after it: NULL, or the first reason in why; *bad gets the tree refused. */
static const char *trees_checks(const km_kernel *k, bt_tree *t, size_t nt, size_t *bad, char *why, size_t n)
{
    for (size_t i = 0; i < nt; i++) {
        const bt_tree *prev = NULL, *next = NULL;
        for (size_t j = i; j-- > 0;)
            if (!strcmp(t[j].array, t[i].array)) {
                prev = &t[j];
                break;
            }
        for (size_t j = i + 1; j < nt; j++)
            if (!strcmp(t[j].array, t[i].array)) {
                next = &t[j];
                break;
            }
        *bad = i;
        if (tree_checks(k, &t[i], prev, next, why, n))
            return why;
        if (t[i].carry) {
            /* thread 0's carry after the tree: carry_uses_ok reads every use to the end of
             * the body, which holds the next tree too */
            snprintf(why, n, EN(RW_BT_MULTI_CARRY), t[i].comb->line, t[i].carry, (unsigned)nt);
            return why;
        }
    }
    return NULL;
}

/* Is g `threadIdx.x == 0` (either side)? */
static bool guard_thread0(const km_guard *g, uint32_t tid)
{
    return !strcmp(g->op, "==") && ((g->lhs.n == 0 && form_is_atom(g->rhs, tid)) ||
                                    (g->rhs.n == 0 && form_is_atom(g->lhs, tid)));
}

/* A register carry is the block's result after the tree in thread 0 only (the others hold
 * partial sums there, which the rewrite does not make): every use of its name after the
 * tree loop (tokens from b on) must be in a line whose accesses that read it all run under
 * `threadIdx.x == 0`, and there must be such an access. NULL, or the reason in why. */
static const char *carry_uses_ok(const km_kernel *k, const bt_tree *t, const char *text, const rw_toks *ts,
                                 size_t b, char *why, size_t n)
{
    size_t na, ng;
    const km_access *as = km_accesses(k, &na);
    const km_guard *gs = km_guards(k, &ng);
    for (size_t j = b; j < ts->n; j++) {
        if (!rwl_tok_is_ident(ts, j, t->carry))
            continue;
        uint32_t line = (uint32_t)rwl_line_at(text, ts->t[j].start);
        bool seen = false, all0 = true;
        for (size_t i = 0; i < na; i++) {
            const km_access *a = &as[i];
            if (a->line != line || !(km_form_mentions(k, a->value, t->carry_atom) ||
                                     km_form_mentions(k, a->index, t->carry_atom)))
                continue;
            seen = true;
            bool g0 = false;
            for (uint32_t g = 0; g < a->n_guards; g++)
                g0 |= guard_thread0(&gs[a->guards[g]], t->tid);
            all0 &= g0;
        }
        if (!seen || !all0) {
            snprintf(why, n, EN(RW_BT_CARRY_USED), line, t->carry, t->carry);
            return why;
        }
    }
    return NULL;
}

/* The loop statement at line: tokens [*a, *b) of the body. false when none. */
static bool loop_tokens(const char *text, const rw_toks *ts, uint32_t line, size_t *a, size_t *b)
{
    for (size_t k = 0; k < ts->n; k++) {
        if (!(rwl_tok_is(ts, k, "for") || rwl_tok_is(ts, k, "while") || rwl_tok_is(ts, k, "do")) ||
            (uint32_t)rwl_line_at(text, ts->t[k].start) != line)
            continue;
        *a = k;
        *b = rwl_stmt_end(ts, k, ts->n - 1);
        if (rwl_tok_is(ts, k, "do") && rwl_tok_is(ts, *b, "while"))   /* do {...} while (c); */
            *b = rwl_stmt_end(ts, *b, ts->n - 1);
        return *b > k;
    }
    return false;
}

/* The element type of array as declared in the body (`__shared__ T S[N]`, `extern
 * __shared__ T S[]`, `T *S = ...`, a later declarator `__shared__ T A[N], S[N]`): the type
 * words before the (first) name, qualifiers dropped. */
static bool array_type(const rw_toks *ts, const char *array, char *out, size_t n)
{
    for (size_t k = 1; k < ts->n; k++) {
        if (!rwl_tok_is_ident(ts, k, array) ||
            !(rwl_tok_is(ts, k + 1, "[") || rwl_tok_is(ts, k + 1, "=") || rwl_tok_is(ts, k + 1, ";") ||
              rwl_tok_is(ts, k + 1, ",")))
            continue;
        size_t decl = k;
        if (rwl_tok_is(ts, k - 1, ",")) {
            /* a later declarator: the type is the first declarator's, whose name is the
             * statement's first identifier followed by `[`, `=`, `,` or `;` */
            size_t st = k - 1;
            while (st > 0 && !rwl_tok_is(ts, st - 1, ";") && !rwl_tok_is(ts, st - 1, "{") &&
                   !rwl_tok_is(ts, st - 1, "}"))
                st--;
            size_t d = st;
            while (d < k && !(ts->t[d].kind == T_IDENT &&
                              (rwl_tok_is(ts, d + 1, "[") || rwl_tok_is(ts, d + 1, "=") ||
                               rwl_tok_is(ts, d + 1, ",") || rwl_tok_is(ts, d + 1, ";"))))
                d++;
            if (d == k)
                continue;
            decl = d;
        }
        /* a declaration statement: everything from the statement's start to the name is
         * its type (a template parameter T or a qualified name too) */
        size_t a = decl;
        while (a > 0 && !rwl_tok_is(ts, a - 1, ";") && !rwl_tok_is(ts, a - 1, "{") && !rwl_tok_is(ts, a - 1, "}") &&
               (ts->t[a - 1].kind == T_IDENT || rwl_tok_is(ts, a - 1, "*") || rwl_tok_is(ts, a - 1, "::") ||
                rwl_tok_is(ts, a - 1, "<") || rwl_tok_is(ts, a - 1, ">")))
            a--;
        if (a == decl || !(a == 0 || rwl_tok_is(ts, a - 1, ";") || rwl_tok_is(ts, a - 1, "{") ||
                           rwl_tok_is(ts, a - 1, "}")))
            continue;
        out[0] = '\0';
        for (size_t j = a; j < decl; j++) {
            if (rwl_tok_is(ts, j, "*") || rwl_tok_is(ts, j, "__shared__") || rwl_tok_is(ts, j, "extern") ||
                rwl_tok_is(ts, j, "volatile") || rwl_tok_is(ts, j, "const") || rwl_tok_is(ts, j, "static"))
                continue;
            size_t used = strlen(out);
            bool glue = used == 0 || rwl_tok_is(ts, j, "::") || rwl_tok_is(ts, j, "<") || rwl_tok_is(ts, j, ">") ||
                        rwl_tok_is(ts, j - 1, "::") || rwl_tok_is(ts, j - 1, "<");
            snprintf(out + used, n - used, "%s%.*s", glue ? "" : " ", (int)(ts->t[j].end - ts->t[j].start),
                     ts->text + ts->t[j].start);
        }
        return out[0] != '\0';
    }
    return false;
}

/* Where the replacement of the loop whose first token starts at byte at begins: at a
 * `#pragma unroll` line right before it (it would otherwise stand before a block), else
 * at the loop. */
static size_t edit_start(const char *text, size_t at)
{
    size_t e = at;
    while (e > 0 && (text[e - 1] == ' ' || text[e - 1] == '\t'))
        e--;
    if (e == 0 || text[e - 1] != '\n')
        return at;
    size_t ls = e - 1;   /* the previous line: [ls, e - 1) */
    while (ls > 0 && text[ls - 1] != '\n')
        ls--;
    size_t hash = ls;
    while (hash < e && (text[hash] == ' ' || text[hash] == '\t'))
        hash++;
    size_t a = hash;
    if (strncmp(text + a, "#pragma", 7) != 0)
        return at;
    a += 7;
    while (a < e && (text[a] == ' ' || text[a] == '\t'))
        a++;
    if (strncmp(text + a, "unroll", 6) != 0)
        return at;
    for (size_t c = a + 6; c < e - 1; c++)   /* `#pragma unroll` or `#pragma unroll N`, nothing else */
        if (text[c] == '/' || text[c] == '\\' || text[c] == '"')
            return at;
    return hash;
}

/* Is the barrier the tree needs between its levels in the loop's tokens [a, b)? */
static bool has_barrier(const rw_toks *ts, size_t a, size_t b)
{
    for (size_t k = a; k < b; k++)
        if (rwl_tok_is(ts, k, "__syncthreads") || rwl_tok_is(ts, k, "sync") || rwl_tok_is(ts, k, "barrier"))
            return true;
    return false;
}

#define TOK_OF(ts, k) (int)((ts)->t[k].end - (ts)->t[k].start), (ts)->text + (ts)->t[k].start

/* The token opening the `[` ... `]` that closes at k. */
static size_t open_of(const rw_toks *ts, size_t k)
{
    int depth = 0;
    for (size_t q = k + 1; q-- > 0;) {
        depth += rwl_tok_is(ts, q, "]");
        depth -= rwl_tok_is(ts, q, "[");
        if (depth == 0)
            return q;
    }
    return 0;
}

/* The name a write ending at token e (the token before its operator) writes: e itself, or
 * the name before its subscripts (`S[w]`, `A[i][j]`); SIZE_MAX when it is none (`*p`,
 * `(x)`, `s.f`). */
static size_t written_name(const rw_toks *ts, size_t a, size_t e)
{
    while (e > a && rwl_tok_is(ts, e, "]"))
        e = open_of(ts, e) - 1;
    if (e <= a || ts->t[e].kind != T_IDENT || rwl_tok_is(ts, e - 1, ".") || rwl_tok_is(ts, e - 1, "->"))
        return SIZE_MAX;
    return e;
}

/* Issue 13: the tree loop [a, b) is replaced whole by the rendered trees, so whatever else
 * it does would be dropped (`levels++`, `last = S[w + s]`). What it may hold: the trees'
 * update stores (a write of arrays[0 .. na)[...]), the counter var's step (a for loop's
 * step, which halving_step checks; in a while or do loop, wherever it is), a register
 * carry written with the update (carry, or NULL; carry_uses_ok checks its uses), barriers,
 * and locals of one iteration (declared in the loop, so nothing after it sees them). A
 * write of anything else, a call that may write (unless calls: a pair tree's __device__
 * combine, which the model reads inline and find_pair checks) and a jump or a loop inside
 * are refused
 * (into why, n bytes: "CONSTRUCT at line N: ..."); a read the trees do not combine then
 * feeds only a local, a condition or an update, which the model's checks see. NULL when
 * the loop holds nothing else. */
static const char *loop_extra(const char *text, const rw_toks *ts, size_t a, size_t b, const char *const *arrays,
                              size_t na, const char *carry, const char *var, bool calls, char *why, size_t n)
{
    static const char *const barriers[] = {"__syncthreads", "__syncwarp", "sync", "barrier", "__threadfence_block",
                                           "__threadfence"};
    static const char *const kw[] = {"if", "for", "while", "switch", "sizeof", "return", "do"};
    static const char *const jumps[] = {"return", "break", "continue", "goto", "for", "while", "do", "switch"};
    char r[400] = "";
    unsigned line = (unsigned)rwl_line_at(text, ts->t[a].start);
    bool is_for = rwl_tok_is(ts, a, "for"), is_do = rwl_tok_is(ts, a, "do");
    /* a for loop's start and step: its header but the condition */
    size_t init_b = a, step_a = b, step_b = b;
    if (is_for && rwl_tok_is(ts, a + 1, "(")) {
        size_t hc = rwl_match_close(ts, a + 1), semis = 0;
        int depth = 0;
        for (size_t q = a + 2; q < hc && q < b; q++) {
            depth += rwl_tok_is(ts, q, "(") || rwl_tok_is(ts, q, "[");
            depth -= rwl_tok_is(ts, q, ")") || rwl_tok_is(ts, q, "]");
            if (!depth && rwl_tok_is(ts, q, ";") && ++semis == 1)
                init_b = q;
            else if (!depth && rwl_tok_is(ts, q, ";") && semis == 2)
                step_a = q + 1, step_b = hc;
        }
    }
    for (size_t q = a; q < b && !r[0]; q++) {
        bool in_step = (q >= step_a && q < step_b) || (q > a && q < init_b);
        if (q > a) {
            bool do_end = is_do && rwl_tok_is(ts, q, "while") && rwl_stmt_end(ts, q, b) >= b;
            for (size_t i = 0; i < HK_ARRAY_LEN(jumps) && !do_end; i++)
                if (rwl_tok_is_ident(ts, q, jumps[i]))
                    rwl_refuse(r, sizeof r, ts, text, q, "statement", EN(RW_BT_LOOP_STMT), line, TOK_OF(ts, q));
        }
        if (ts->t[q].kind == T_IDENT && rwl_tok_is(ts, q + 1, "(") && q + 1 < b) {
            bool ok = rwl_pure_call_name(ts, q) || rwl_is_type_word(ts, q);
            for (size_t i = 0; i < HK_ARRAY_LEN(barriers) && !ok; i++)
                ok = rwl_tok_is_ident(ts, q, barriers[i]);
            for (size_t i = 0; i < HK_ARRAY_LEN(kw) && !ok; i++)
                ok = rwl_tok_is_ident(ts, q, kw[i]);
            if (!ok && !calls)
                rwl_refuse(r, sizeof r, ts, text, q, "call", EN(RW_BT_LOOP_CALL), line, TOK_OF(ts, q));
            continue;
        }
        bool assign = rwl_tok_is_assign_op(ts, q), step = rwl_tok_is(ts, q, "++") || rwl_tok_is(ts, q, "--");
        if (!assign && !step)
            continue;
        size_t w = SIZE_MAX;
        if (assign || (q > a && (ts->t[q - 1].kind == T_IDENT || rwl_tok_is(ts, q - 1, "]"))))
            w = written_name(ts, a, q - 1);   /* x = .., x op= .., x++ */
        else if (q + 1 < b && ts->t[q + 1].kind == T_IDENT)
            w = q + 1;                        /* ++x (++S[w] counts as no update) */
        bool ok = false;
        if (w != SIZE_MAX) {
            for (size_t i = 0; i < na && !ok && assign; i++)
                ok = rwl_tok_is_ident(ts, w, arrays[i]) && rwl_tok_is(ts, w + 1, "[");
            ok |= carry && assign && rwl_tok_is_ident(ts, w, carry);
            ok |= var && rwl_tok_is_ident(ts, w, var) && (in_step || !is_for);
            ok |= assign && rwl_tok_is(ts, q, "=") && rwl_declared_here(ts, w);
        }
        size_t at = w != SIZE_MAX ? w : q;
        if (!ok)
            rwl_refuse(r, sizeof r, ts, text, at, "write", EN(RW_BT_LOOP_WRITE), line, TOK_OF(ts, at));
    }
    if (!r[0])
        return NULL;
    snprintf(why, n, "%s", r);
    return why;
}

/* ---- pair trees: (value, index) through a __device__ combine or inline selects -------
 *
 * A tree of two arrays V (values) and I (indices), each level combining slot t with slot
 * t + s into slot t by an argmax or argmin: V[t] = max(V[t], V[t+s]) (or a select, or a
 * copy under `V[t+s] > V[t]`) and I[t] = the index of the side chosen. Which index wins
 * among equal values depends on the order of the combination: the halving tree over B
 * slots combines, first, slots B/2 apart, so the slots reduced together before the last
 * five levels are a, a + W, a + 2W, ... (W = B/32), not the 32 slots of a warp. The
 * rewrite keeps that order exactly: warp a takes slots a + W*m (lane m) through a shared
 * transpose, its shuffles (offsets 16 .. 1) are the tree's levels 16W .. W, and the
 * first warp's shuffles over the W warp results are the levels W/2 .. 1. Every combine
 * gets the same two operands in the same roles (the lower slot's pair first) as in the
 * tree, so V[0] and I[0] are the tree's for every input: ties, NaNs and signed zeros
 * included, whatever the tie rule.
 *
 * The transpose is made in V and I themselves (after the tree only V[0] and I[0] are read:
 * find_pair checks it): each thread reads its own slot, a barrier, then stores it at slot
 * s ^ (s >> 5), where warp a's lane m reads slot a + W*m back. The xor only changes bits
 * below log2(W) (s >> 5 < W), so it is a permutation of [0, B); a warp of writers (s = 32q
 * + l) hits banks l ^ q and a warp of readers banks ((W*m) % 32) | (a ^ (W*m >> 5)), both
 * 32 distinct banks. A padded copy ([32][33] of each array: 8.4 KB for float + int) cost one
 * barrier less but moved the wild FPS to the next shared-memory carveout (16.9 KB a block,
 * two blocks of 1024 threads resident by registers: 64 KB instead of 32 KB of the SM's
 * 256 KB, so L1 192 KB, less than its 196 KB of points): measured 0.84x in sessions 22 and
 * 26 where the key form, 256 B more, measured 1.01x. */

static const char tpl_pair[] =
    "{\n" /* i18n: not for people */
    "        // hk rewrite: block_reduce. The shared-memory $WHAT tree over $V/$I[0 .. blockDim.x) as\n"
    "        // warp shuffles in the tree's own order (so ties pick the same index): warp a takes\n"
    "        // slots a, a + W, a + 2W, ... (W warps), which the tree combines first; $V[0] and\n"
    "        // $I[0] hold what the tree left there.\n"
    "        const unsigned int hk_tid = threadIdx.x, hk_nthreads = blockDim.x;\n"
    PT_WARP
    "        __shared__ $TV hk_wv[32];\n" /* i18n: not for people */
    "        __shared__ $TI hk_wi[32];\n"
    "        {   // the transpose in $V/$I themselves: slot s moves to s ^ (s >> 5)\n"
    "            const $TV hk_mv = $V[hk_tid];\n"
    "            const $TI hk_mi = $I[hk_tid];\n"
    "            __syncthreads();   // every slot read before any is overwritten\n"
    "            $V[hk_tid ^ (hk_tid >> 5)] = hk_mv;\n"
    "            $I[hk_tid ^ (hk_tid >> 5)] = hk_mi;\n"
    "        }\n"
    "        __syncthreads();\n"
    "        const unsigned int hk_at = hk_warp + hk_nwarps * hk_lane;   // the tree's order\n"
    "        $TV hk_v = $V[hk_at ^ (hk_at >> 5)];\n"
    "        $TI hk_i = $I[hk_at ^ (hk_at >> 5)];\n"
    "        for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n"
    "            const $TV hk_ov = __shfl_down_sync(hk_mask, hk_v, hk_off);\n"
    "            const $TI hk_oi = __shfl_down_sync(hk_mask, hk_i, hk_off);\n"
    "            if (hk_lane + hk_off < hk_width) {\n"
    "$COMBINE"
    "            }\n"
    "        }\n"
    "        if (hk_lane == 0) {\n"
    "            hk_wv[hk_warp] = hk_v;\n"
    "            hk_wi[hk_warp] = hk_i;\n"
    "        }\n"
    "        __syncthreads();\n"
    "        if (hk_warp == 0) {\n"
    "            hk_v = hk_wv[min(hk_lane, hk_nwarps - 1u)];\n"
    "            hk_i = hk_wi[min(hk_lane, hk_nwarps - 1u)];\n"
    "            for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n"
    "                const $TV hk_ov = __shfl_down_sync(hk_mask, hk_v, hk_off);\n"
    "                const $TI hk_oi = __shfl_down_sync(hk_mask, hk_i, hk_off);\n"
    "                if (hk_lane + hk_off < hk_nwarps) {\n"
    "$COMBINE"
    "                }\n"
    "            }\n"
    "            if (hk_lane == 0) {\n"
    "                $V[0] = hk_v;\n"
    "                $I[0] = hk_i;\n"
    "            }\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }";

/* The pair tree's key form (block_reduce's parameter key = 1). In the halving tree over
 * B = 2^L slots, level s = 2^j (j = L-1 .. 0) combines slot a < s with a + s, and after it
 * slot a holds the combination of the slots congruent to a modulo s. So slot 0 ends with
 * combine(slot 0's class, slot 1's class) at s = 1, where the classes are the slots whose
 * bit 0 is 0 and 1; within each, the level s = 2 decided by bit 1, and so on: the tree
 * decides on bit 0 first, then bit 1, ..., bit L-1. When the combine keeps the lower slot
 * unless the upper one's value is strictly better (ties to the lower slot), the value's
 * winner among equal best values is therefore the slot with bit 0 clear if any, then bit 1
 * clear, ...: the slot of smallest bit-reversed index brev(slot). (Ties to the upper slot:
 * the largest brev(slot).) The tree's index is thus the one of the slot maximising
 *     key = ord(value) << 32 | (~brev(slot) or brev(slot)),
 * where ord maps the value's order (max, or min by ~) onto unsigned order: a total order,
 * so any order of combination (xor shuffles in a warp, one shared stage over the warps)
 * finds it. ord: a float's bits with the sign bit flipped if positive, all bits flipped if
 * negative, after -0.0 is made +0.0 (equal under > and <, they tie by slot as in the
 * tree); an int's bits with the sign flipped. The one difference: NaN, which > and < do not
 * order (the tree's result then depends on where the NaN sits), is ordered here by its bits
 * (a positive NaN above +inf). I[0] is the winning slot's I, V[0] its V (equal to what the
 * tree left there but for the sign of a zero when +0 and -0 tie). Two barriers instead of
 * one per level, and no transpose; 32-bit values only. */
static const char tpl_pair_key[] =
    "{\n" /* i18n: not for people */
    "        // hk rewrite: block_reduce (key form). The shared-memory $WHAT tree over $V/$I[0 ..\n"
    "        // blockDim.x) as one max of a 64-bit key: the value's order in the high word, the\n"
    "        // slot's tie rank in the halving tree ($RANK) in the low word; $V[0] and\n"
    "        // $I[0] take the winning slot's pair (NaN values: ordered by their bits).\n"
    "        const unsigned int hk_tid = threadIdx.x, hk_nthreads = blockDim.x;\n"
    PT_WARP
    "        __shared__ unsigned long long hk_wk[32];\n" /* i18n: not for people */
    "        unsigned long long hk_k;\n"
    "        {\n"
    "            $TV hk_x = $V[hk_tid];\n"
    "$ORD"
    "            hk_k = ((unsigned long long)hk_o << 32) | (unsigned long long)($RANKX(hk_tid));\n"
    "        }\n"
    "        for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n"
    "            const unsigned long long hk_ok = __shfl_xor_sync(hk_mask, hk_k, hk_off);\n"
    "            if ((hk_lane ^ hk_off) < hk_width && hk_ok > hk_k)\n"
    "                hk_k = hk_ok;\n"
    "        }\n"
    "        if (hk_lane == 0)\n"
    "            hk_wk[hk_warp] = hk_k;\n"
    "        __syncthreads();\n"
        "        if (hk_warp == 0) {\n"
    "            hk_k = hk_lane < hk_nwarps ? hk_wk[hk_lane] : 0ull;\n"
    "            for (unsigned int hk_off = 16; hk_off > 0; hk_off >>= 1) {\n"
    "                const unsigned long long hk_ok = __shfl_xor_sync(hk_mask, hk_k, hk_off);\n"
    "                if ((hk_lane ^ hk_off) < hk_width && hk_ok > hk_k)\n"
    "                    hk_k = hk_ok;\n"
    "            }\n"
    "        }\n"
    "        if (hk_tid == 0) {\n"
    "            const unsigned int hk_slot = __brev($UNRANK(unsigned int)hk_k);\n"
    "            const $TV hk_bv = $V[hk_slot];\n"
    "            const $TI hk_bi = $I[hk_slot];\n"
    "            $V[0] = hk_bv;\n"
    "            $I[0] = hk_bi;\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }";

/* What the model says about a pair tree. */
typedef struct {
    const km_loop *loop;
    size_t loop_ix;
    const km_access *wv, *wi;  /* the writes V[t] = ..., I[t] = ... */
    const char *v, *i;         /* the arrays' names */
    km_form own, other;        /* t and t + s */
    uint32_t tid, var, size;   /* atoms: threadIdx.x, the loop's variable, the named size (or UINT32_MAX) */
    uint32_t bdx;
    int dir;                   /* +1 argmax, -1 argmin */
    bool ties_upper;           /* equal values take the upper slot's index */
    char combine[1024];        /* the combine on registers hk_v, hk_i with hk_ov, hk_oi */
} bt_pair;

/* Atom values for ev_form: the thread, the loop variable, the block size. */
typedef struct {
    const bt_pair *p;
    int64_t tid, var, b;
} bt_env;

/* The value of f under env: false when f holds an atom other than threadIdx.x, the loop's
 * variable, the block size (blockDim.x or the one named size) and integer operations. */
static bool ev_form(const km_kernel *k, km_form f, const bt_env *e, int64_t *out)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    int64_t sum = 0;
    for (uint32_t i = 0; i < f.n; i++) {
        int64_t prod = f.t[i].coef;
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            uint32_t id = f.t[i].atoms[j];
            const km_atom *a = &at[id];
            int64_t v, x, y;
            if (id == e->p->tid)
                v = e->tid;
            else if (id == e->p->var)
                v = e->var;
            else if (id == e->p->bdx || id == e->p->size)
                v = e->b;
            else if (a->kind == KM_ATOM_OPAQUE && a->n_args == 2 && ev_form(k, a->args[0], e, &x) &&
                     ev_form(k, a->args[1], e, &y)) {
                if (!strcmp(a->op, "/") && y > 0)
                    v = x / y;
                else if (!strcmp(a->op, "%") && y > 0)
                    v = x % y;
                else if (!strcmp(a->op, ">>") && y >= 0 && y < 32)
                    v = x >> y;
                else if (!strcmp(a->op, "<<") && y >= 0 && y < 32)
                    v = x << y;
                else if (!strcmp(a->op, "&"))
                    v = x & y;
                else
                    return false;
            } else
                return false;
            prod *= v;
        }
        sum += prod;
    }
    *out = sum;
    return true;
}

/* Is guard g true under env? -1 when it cannot be evaluated. */
static int ev_guard(const km_kernel *k, const km_guard *g, const bt_env *e)
{
    int64_t l, r;
    if (!strcmp(g->op, "true") || !ev_form(k, g->lhs, e, &l) || !ev_form(k, g->rhs, e, &r))
        return -1;
    if (!strcmp(g->op, "<"))
        return l < r;
    if (!strcmp(g->op, "<="))
        return l <= r;
    if (!strcmp(g->op, "=="))
        return l == r;
    if (!strcmp(g->op, "!="))
        return l != r;
    return -1;
}

/* Does f read V or I (a guard on the values: the argmax's comparison)? */
static bool reads_pair(const km_kernel *k, km_form f, const bt_pair *p)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *a = &at[f.t[i].atoms[j]];
            if (a->kind == KM_ATOM_READ && (!strcmp(a->name, p->v) || !strcmp(a->name, p->i)))
                return true;
            for (uint32_t c = 0; c < a->n_args; c++)
                if (reads_pair(k, a->args[c], p))
                    return true;
        }
    return false;
}

/* Which of the four slots f is (exactly one read atom): 'v' V[t], 'V' V[t+s], 'i' I[t],
 * 'I' I[t+s]; 0 otherwise. */
static char slot_of(const km_kernel *k, km_form f, const bt_pair *p)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    if (f.n != 1 || f.t[0].coef != 1 || f.t[0].n != 1)
        return 0;
    const km_atom *a = &at[f.t[0].atoms[0]];
    if (a->kind != KM_ATOM_READ)
        return 0;
    bool own = km_form_equal(a->args[0], p->own), other = km_form_equal(a->args[0], p->other);
    if (!own && !other)
        return 0;
    if (!strcmp(a->name, p->v))
        return own ? 'v' : 'V';
    if (!strcmp(a->name, p->i))
        return own ? 'i' : 'I';
    return 0;
}

static const char *reg_of(char slot)
{
    return slot == 'v' ? "hk_v" : slot == 'V' ? "hk_ov" : slot == 'i' ? "hk_i" : "hk_oi";
}

/* f written in registers (the four slots as hk_v, hk_ov, hk_i, hk_oi) into b: a slot, a
 * constant, max/min, a select or a comparison of such. HK_OK; HK_EINVAL for anything
 * else; HK_ENOMEM, HK_ETOOBIG from b. */
static int print_reg(const km_kernel *k, km_form f, const bt_pair *p, struct hk_buf *b)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    char sl = slot_of(k, f, p);
    if (sl)
        return hk_buf_appends(b, reg_of(sl));
    if (f.n == 1 && f.t[0].n == 0)
        return hk_buf_printf(b, "%lld", (long long)f.t[0].coef);
    if (f.n != 1 || f.t[0].coef != 1 || f.t[0].n != 1)
        return HK_EINVAL;
    const km_atom *a = &at[f.t[0].atoms[0]];
    if (a->kind != KM_ATOM_OPAQUE)
        return HK_EINVAL;
    bool fn = !strcmp(a->op, "max") || !strcmp(a->op, "min");
    bool cmp = !strcmp(a->op, "<") || !strcmp(a->op, "<=") || !strcmp(a->op, "==") || !strcmp(a->op, "!=");
    int rc;
    if ((fn || cmp) && a->n_args == 2) {
        if ((rc = hk_buf_printf(b, "%s(", fn ? a->op : "")) || (rc = print_reg(k, a->args[0], p, b)) ||
            (rc = hk_buf_printf(b, fn ? ", " : " %s ", a->op)) || (rc = print_reg(k, a->args[1], p, b)))
            return rc;
        return hk_buf_appends(b, ")");
    }
    if (!strcmp(a->op, "?:") && a->n_args == 3) {
        if ((rc = hk_buf_appends(b, "(")) || (rc = print_reg(k, a->args[0], p, b)) ||
            (rc = hk_buf_appends(b, " ? ")) || (rc = print_reg(k, a->args[1], p, b)) ||
            (rc = hk_buf_appends(b, " : ")) || (rc = print_reg(k, a->args[2], p, b)))
            return rc;
        return hk_buf_appends(b, ")");
    }
    return HK_EINVAL;
}

/* The direction of a choice between the own and the other slot of one array: taken is
 * the other's when `l op r` holds (other_if_true) or fails. +1 when the other side is
 * taken for a larger value (argmax), -1 for a smaller one (argmin), 0 when the comparison
 * is not of V[t] and V[t+s] by < or <=. *upper: equal values take the other (upper) side. */
static int choice_dir(const km_kernel *k, const bt_pair *p, const char *op, km_form l, km_form r,
                      bool other_if_true, bool *upper)
{
    char a = slot_of(k, l, p), c = slot_of(k, r, p);
    bool strict = !strcmp(op, "<");
    if ((!strict && strcmp(op, "<=") != 0) || !((a == 'v' && c == 'V') || (a == 'V' && c == 'v')))
        return 0;
    /* other taken iff own < other (max) / other < own (min), or the negation */
    int d = a == 'v' ? +1 : -1;
    if (!other_if_true) {   /* other taken iff !(l op r): r op' l */
        d = -d;
        strict = !strict;
    }
    *upper = !strict;
    return d;
}

/* The direction of one write: X[t] = E under the extra guard cmp (NULL: none). 0 when it
 * is not a choice between X[t] and X[t+s] by a comparison of V[t] and V[t+s] (or a max/min
 * for V). */
static int write_dir(const km_kernel *k, const bt_pair *p, const km_access *w, const km_guard *cmp, bool *upper)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    bool isv = w == p->wv;
    char own = isv ? 'v' : 'i', oth = isv ? 'V' : 'I';
    char sl = slot_of(k, w->value, p);
    if (cmp)   /* if (V[t] < V[t+s]) X[t] = X[t+s]; */
        return sl == oth ? choice_dir(k, p, cmp->op, cmp->lhs, cmp->rhs, true, upper) : 0;
    if (w->value.n != 1 || w->value.t[0].coef != 1 || w->value.t[0].n != 1)
        return 0;
    const km_atom *a = &at[w->value.t[0].atoms[0]];
    if (a->kind != KM_ATOM_OPAQUE)
        return 0;
    if (isv && (!strcmp(a->op, "max") || !strcmp(a->op, "min")) && a->n_args == 2) {
        char x = slot_of(k, a->args[0], p), y = slot_of(k, a->args[1], p);
        if (!((x == 'v' && y == 'V') || (x == 'V' && y == 'v')))
            return 0;
        *upper = false;   /* the value is the same either way */
        return a->op[1] == 'a' ? +1 : -1;
    }
    if (strcmp(a->op, "?:") != 0 || a->n_args != 3)
        return 0;
    char th = slot_of(k, a->args[1], p), el = slot_of(k, a->args[2], p);
    const km_form *c = &a->args[0];
    if (c->n != 1 || c->t[0].coef != 1 || c->t[0].n != 1 || !((th == own && el == oth) || (th == oth && el == own)))
        return 0;
    const km_atom *ca = &at[c->t[0].atoms[0]];
    if (ca->kind != KM_ATOM_OPAQUE || ca->n_args != 2)
        return 0;
    return choice_dir(k, p, ca->op, ca->args[0], ca->args[1], th == oth, upper);
}

/* Does the loop step its variable by halving (or, doubling, by doubling), once: `v >>= 1`,
 * `v /= 2`, `v = v >> 1`, `v = v / 2` (`v <<= 1`, `v *= 2`, `v = v << 1`, `v = v * 2`,
 * `v += v`), and no other assignment to it after the for's first clause? The model reads
 * any other step of `v cmp bound` as geometric too (`s >>= 2`), whose levels are no tree's. */
static bool halving_step(const rw_toks *ts, size_t a, size_t b, const char *var, bool doubling)
{
    size_t k = a;
    if (rwl_tok_is(ts, a, "for")) {   /* past the initialisation */
        while (k < b && !rwl_tok_is(ts, k, ";"))
            k++;
    }
    const char *sh = doubling ? "<<=" : ">>=", *mul = doubling ? "*=" : "/=", *shb = doubling ? "<<" : ">>",
               *mulb = doubling ? "*" : "/";
    int steps = 0;
    for (; k < b; k++) {
        if (!rwl_tok_is_ident(ts, k, var))
            continue;
        bool pre = k > a && (rwl_tok_is(ts, k - 1, "++") || rwl_tok_is(ts, k - 1, "--"));
        bool post = rwl_tok_is(ts, k + 1, "++") || rwl_tok_is(ts, k + 1, "--");
        bool asg = rwl_writes_any(ts, k + 1, k + 2) && !post;
        if (pre || post)
            return false;
        if (!asg)
            continue;
        if ((rwl_tok_is(ts, k + 1, sh) && rwl_tok_is(ts, k + 2, "1")) ||
            (rwl_tok_is(ts, k + 1, mul) && rwl_tok_is(ts, k + 2, "2")) ||
            (doubling && rwl_tok_is(ts, k + 1, "+=") && rwl_tok_is_ident(ts, k + 2, var)) ||
            (rwl_tok_is(ts, k + 1, "=") && rwl_tok_is_ident(ts, k + 2, var) &&
             ((rwl_tok_is(ts, k + 3, shb) && rwl_tok_is(ts, k + 4, "1")) ||
              (rwl_tok_is(ts, k + 3, mulb) && rwl_tok_is(ts, k + 4, "2")))))
            steps++;
        else
            return false;
    }
    return steps == 1;
}

/* Does the loop, for a block of b threads, run the halving tree: the levels whose guards
 * let any thread combine are s = b/2, b/4, ..., 1 in that order, at each exactly the
 * threads t < s, each combining t with t + s? Evaluated level by level and thread by
 * thread on the model's forms (guards that compare values are the combine's, not the
 * tree's). */
static bool halving_for(const km_kernel *k, const bt_pair *p, int64_t b, const km_guard *const *gs, size_t ng)
{
    bt_env e = {.p = p, .b = b};
    int64_t v, bound;
    if (!ev_form(k, p->loop->start, &e, &v) || !ev_form(k, p->loop->bound, &e, &bound) || v <= 0)
        return false;
    int64_t want = b / 2;   /* the next level the tree needs */
    for (int it = 0; it < 64; it++) {
        const char *c = p->loop->cmp;
        bool run = !strcmp(c, ">") ? v > bound : !strcmp(c, ">=") ? v >= bound : !strcmp(c, "!=") ? v != bound
                 : !strcmp(c, "<") ? v < bound : !strcmp(c, "<=") ? v <= bound : false;
        if (!run)
            return want == 0;
        if (v == 0)
            return false;   /* it would not end */
        e.var = v;
        int64_t s;
        e.tid = 0;
        if (!ev_form(k, p->other, &e, &s))
            return false;
        int64_t first = -1, n = 0;
        for (int64_t t = 0; t < b; t++) {
            e.tid = t;
            int64_t o;
            if (!ev_form(k, p->other, &e, &o) || o != t + s)
                return false;
            bool in = true;
            for (size_t g = 0; g < ng && in; g++) {
                int r = ev_guard(k, gs[g], &e);
                if (r < 0)
                    return false;
                in = r == 1;
            }
            if (!in)
                continue;
            if (first < 0)
                first = t;
            n++;
            if (t != n - 1 || t + s >= b)   /* not the prefix t < s, or out of the block */
                return false;
        }
        if (n > 0 && (first != 0 || n != want || s != want))
            return false;
        if (n > 0)
            want /= 2;
        v >>= 1;
    }
    return false;
}

/* The size atom of the tree: the one named constant its loop, offset and guards mention
 * (a template or macro block size), else UINT32_MAX; false when they mention two. */
static bool size_atom(const km_kernel *k, km_form f, uint32_t *size)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            uint32_t id = f.t[i].atoms[j];
            if (at[id].kind == KM_ATOM_CONST) {
                if (*size != UINT32_MAX && *size != id)
                    return false;
                *size = id;
            }
            for (uint32_t c = 0; c < at[id].n_args; c++)
                if (!size_atom(k, at[id].args[c], size))
                    return false;
        }
    return true;
}

/* The guard of w, inside the loop, that compares values (the argmax's own), or NULL; the
 * others (the tree's) appended to tree[*nt]. false when two compare values. */
static bool split_guards(const km_kernel *k, const bt_pair *p, const km_access *w, const km_guard **cmp,
                         const km_guard **tree, size_t *nt, size_t cap)
{
    size_t ng;
    const km_guard *gs = km_guards(k, &ng);
    *cmp = NULL;
    *nt = 0;
    for (uint32_t g = 0; g < w->n_guards; g++) {
        const km_guard *gd = &gs[w->guards[g]];
        if (gd->line < p->loop->line)
            continue;
        if (reads_pair(k, gd->lhs, p) || reads_pair(k, gd->rhs, p)) {
            if (*cmp)
                return false;
            *cmp = gd;
        } else if (*nt < cap)
            tree[(*nt)++] = gd;
        else
            return false;
    }
    return true;
}

/* The pair tree of the kernel (the loop of t, whose two writes are w1 and w2) and its
 * checks: NULL, or the reason in why. */
static const char *find_pair(const km_kernel *k, const bt_tree *t, bt_pair *p, char *why, size_t n)
{
    size_t nl, na, ng;
    const km_loop *ls = km_loops(k, &nl);
    const km_access *as = km_accesses(k, &na);
    const km_guard *gs = km_guards(k, &ng);
    memset(p, 0, sizeof *p);
    p->loop = t->loop;
    p->loop_ix = t->loop_ix;
    if (!km_builtin_atom(k, KM_ATOM_THREAD_IDX, 0, &p->tid)) {
        snprintf(why, n, EN(RW_BT_NOT_TX), p->loop->line);
        return why;
    }
    p->var = t->loop->counter;
    p->size = UINT32_MAX;
    if (!km_builtin_atom(k, KM_ATOM_BLOCK_DIM, 0, &p->bdx))
        p->bdx = UINT32_MAX;
    uint32_t yz;
    if (km_builtin_atom(k, KM_ATOM_THREAD_IDX, 1, &yz) || km_builtin_atom(k, KM_ATOM_THREAD_IDX, 2, &yz)) {
        snprintf(why, n, EN(RW_BT_YZ), p->loop->line);
        return why;
    }
    const km_access *w[2] = {NULL, NULL};
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &as[i];
        if (!in_loop(a, p->loop_ix) || a->space == KM_SPACE_GLOBAL || a->mode == KM_READ)
            continue;
        if (a->mode != KM_WRITE || (w[0] && w[1]) || (w[0] && !strcmp(w[0]->buffer, a->buffer))) {
            snprintf(why, n, EN(RW_BT_PAIR_UPDATES), a->line, p->loop->line, a->buffer);
            return why;
        }
        w[w[0] ? 1 : 0] = a;
    }
    if (!w[0] || !w[1]) {
        snprintf(why, n, EN(RW_BT_TWO_LOOPS),
                 p->loop->line);
        return why;
    }
    /* which is the value and which the index: the assignment under which both stores are
     * the choices of one argmax or argmin */
    const km_guard *tree_g[2][16], *cmp[2];
    size_t nt[2];
    for (int swap = 0; swap < 2 && !p->dir; swap++) {
        p->wv = w[swap];
        p->wi = w[1 - swap];
        p->v = p->wv->buffer;
        p->i = p->wi->buffer;
        p->own = p->wv->index;
        if (!form_is_atom(p->wv->index, p->tid) || !form_is_atom(p->wi->index, p->tid)) {
            snprintf(why, n, EN(RW_BT_PAIR_STORES), p->wv->line,
                     p->v, p->i);
            return why;
        }
        /* the other slot: every read of V or I in the loop not at t (one index) */
        bool other = false, bad = false;
        for (size_t i = 0; i < na; i++) {
            const km_access *a = &as[i];
            if (!in_loop(a, p->loop_ix) || a->mode != KM_READ || (strcmp(a->buffer, p->v) && strcmp(a->buffer, p->i)) ||
                km_form_equal(a->index, p->own))
                continue;
            if (other && !km_form_equal(a->index, p->other))
                bad = true;
            p->other = a->index;
            other = true;
        }
        if (!other || bad) {
            snprintf(why, n, EN(RW_BT_PAIR_READS),
                     p->wv->line, p->loop->line, p->v, p->i);
            return why;
        }
        bool up_v = false, up_i = false;
        if (!split_guards(k, p, p->wv, &cmp[0], tree_g[0], &nt[0], 16) ||
            !split_guards(k, p, p->wi, &cmp[1], tree_g[1], &nt[1], 16))
            continue;
        int dv = write_dir(k, p, p->wv, cmp[0], &up_v), di = write_dir(k, p, p->wi, cmp[1], &up_i);
        if (dv && dv == di) {
            p->dir = dv;
            p->ties_upper = up_i;
        }
    }
    if (!p->dir) {
        snprintf(why, n, EN(RW_BT_NOT_ARG), w[0]->line, w[0]->buffer, w[1]->buffer);
        return why;
    }
    /* every thread of the block must reach the shuffles */
    for (uint32_t g = 0; g < p->wv->n_guards; g++) {
        const km_guard *gd = &gs[p->wv->guards[g]];
        if (gd->line < p->loop->line && !guard_uniform(k, gd)) {
            snprintf(why, n, EN(RW_BT_COND_BEFORE), gd->line, p->loop->line);
            return why;
        }
    }
    /* both stores under the same tree guards */
    bool same = nt[0] == nt[1];
    for (size_t g = 0; same && g < nt[0]; g++)
        same = tree_g[0][g] == tree_g[1][g];
    if (!same) {
        snprintf(why, n, EN(RW_BT_PAIR_CONDS), p->wi->line, p->v,
                 p->i);
        return why;
    }
    /* the block size the tree assumes: blockDim.x or one named constant */
    bool one = size_atom(k, p->loop->start, &p->size) && size_atom(k, p->loop->bound, &p->size) &&
               size_atom(k, p->other, &p->size);
    for (size_t g = 0; one && g < nt[0]; g++)
        one = size_atom(k, tree_g[0][g]->lhs, &p->size) && size_atom(k, tree_g[0][g]->rhs, &p->size);
    if (!one) {
        snprintf(why, n, EN(RW_BT_TWO_CONSTS),
                 p->loop->line);
        return why;
    }
    for (int64_t b = 2; b <= 1024; b *= 2)
        if (!halving_for(k, p, b, tree_g[0], nt[0])) {
            snprintf(why, n, EN(RW_BT_NOT_HALVING), p->loop->line, (long long)b, (long long)b / 2);
            return why;
        }
    /* inside the loop: V[t] and I[t] read before they are stored (t + s is no thread's
     * store at this level) */
    bool stored[2] = {false, false};
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &as[i];
        if (!in_loop(a, p->loop_ix) || (strcmp(a->buffer, p->v) && strcmp(a->buffer, p->i)))
            continue;
        int x = strcmp(a->buffer, p->v) ? 1 : 0;
        if (a->mode != KM_READ)
            stored[x] = true;
        else if (stored[x] && km_form_equal(a->index, p->own)) {
            snprintf(why, n, EN(RW_BT_READ_AFTER_STORE), a->line, a->buffer);
            return why;
        }
    }
    /* a loop around the tree: run by the whole block alike, and the tree's inputs stored
     * anew in each of its iterations */
    bool nested = p->loop->parent >= 0;
    for (long l = p->loop->parent; l >= 0; l = ls[l].parent)
        if (!form_uniform(k, ls[l].start) || !form_uniform(k, ls[l].bound) || !form_uniform(k, ls[l].step)) {
            snprintf(why, n, EN(RW_BT_LOOP_NOT_ALIKE),
                     ls[l].line, p->loop->line);
            return why;
        }
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &as[i];
        if ((strcmp(a->buffer, p->v) && strcmp(a->buffer, p->i)) || in_loop(a, p->loop_ix))
            continue;
        if (a->line < p->loop->line) {
            bool ok = a->mode == KM_WRITE && form_is_atom(a->index, p->tid);
            if (!nested && a->mode == KM_READ)
                ok = true;
            if (ok && nested) {   /* every thread stores its slot in each iteration */
                ok = a->n_loops + 1 == p->wv->n_loops &&
                     (a->n_loops == 0 || !memcmp(a->loops, p->wv->loops, sizeof *a->loops * a->n_loops));
                for (uint32_t g = 0; ok && g < a->n_guards; g++)
                    ok = guard_uniform(k, &gs[a->guards[g]]);
            }
            if (!ok) {
                snprintf(why, n, a->mode == KM_READ ? (nested ? EN(RW_BT_READ_BEFORE_LOOP) : EN(RW_BT_READ_BEFORE))
                                 : (nested ? EN(RW_BT_WRITTEN_BEFORE_LOOP) : EN(RW_BT_WRITTEN_BEFORE)),
                         a->line, a->buffer);
                return why;
            }
            continue;
        }
        if (a->mode != KM_READ || a->index.n != 0) {
            snprintf(why, n, a->mode == KM_READ ? EN(RW_BT_READ_AFTER_RESULTS) : EN(RW_BT_WRITTEN_AFTER_RESULTS),
                     a->line, a->buffer, a->buffer);
            return why;
        }
    }
    return NULL;
}

/* The combine on registers, indented by ind: each store's value (under its comparison, if
 * any) from the old hk_v, hk_ov, hk_i, hk_oi, then both taken at once. */
static int pair_combine(const km_kernel *k, const bt_pair *p, const char *tv, const char *ti, const char *ind,
                        struct hk_buf *b)
{
    const km_access *ws[2] = {p->wv, p->wi};
    const char *nv[2] = {"hk_nv", "hk_ni"};
    int rc = hk_buf_printf(b, "%s%s hk_nv = hk_v;\n%s%s hk_ni = hk_i;\n", ind, tv, ind, ti);
    for (int x = 0; x < 2 && !rc; x++) {
        const km_guard *cmp, *tg[16];
        size_t nt;
        if (!split_guards(k, p, ws[x], &cmp, tg, &nt, 16))
            return HK_EINVAL;
        rc = hk_buf_appends(b, ind);
        if (!rc && cmp && !(rc = hk_buf_appends(b, "if (")) && !(rc = print_reg(k, cmp->lhs, p, b)) &&
            !(rc = hk_buf_printf(b, " %s ", cmp->op)) && !(rc = print_reg(k, cmp->rhs, p, b)))
            rc = hk_buf_appends(b, ") ");
        if (!rc)
            rc = hk_buf_printf(b, "%s = ", nv[x]);
        if (!rc)
            rc = print_reg(k, ws[x]->value, p, b);
        if (!rc)
            rc = hk_buf_appends(b, ";\n");
    }
    if (!rc)
        rc = hk_buf_printf(b, "%shk_v = hk_nv;\n%shk_i = hk_ni;\n", ind, ind);
    return rc;
}

/* The key form of a pair tree (tpl_pair_key), or a refusal when the value is not 32 bits. */
static int pair_key(const char *text, size_t len, const an_model *m, const an_function *f, const bt_pair *p,
                    const char *tv, const char *ti, const char *what, const rw_toks *ts, size_t la, size_t lb,
                    rw_result *out)
{
    const bool fl = !strcmp(tv, "float"), sg = !strcmp(tv, "int") || !strcmp(tv, "signed int"),
               un = !strcmp(tv, "unsigned int") || !strcmp(tv, "unsigned");
    if (!fl && !sg && !un) {
        char why[300];
        snprintf(why, sizeof why, EN(RW_BT_KEY_TYPE), p->wv->line, tv);
        return rwp_not_applicable(out, name, f, why);
    }
    char ord[512];
    const char *ind = "            ";
    if (fl)
        snprintf(ord, sizeof ord,
                 "%sconst unsigned int hk_u = __float_as_uint(hk_x == 0.0f ? 0.0f : hk_x);   // -0.0 as +0.0\n" /* i18n: not for people */
                 "%sconst unsigned int hk_o = %s((hk_u & 0x80000000u) ? ~hk_u : (hk_u | 0x80000000u));\n",
                 ind, ind, p->dir > 0 ? "" : "~");
    else
        snprintf(ord, sizeof ord, "%sconst unsigned int hk_o = %s((unsigned int)hk_x%s);\n", ind, /* i18n: not for people */
                 p->dir > 0 ? "" : "~", sg ? " ^ 0x80000000u" : "");
    const char *rank = p->ties_upper ? "largest bit-reversed slot" : "smallest bit-reversed slot"; /* i18n: not for people */
    const char *kv[] = {"V", p->v, "I", p->i, "TV", tv, "TI", ti, "WHAT", what, "ORD", ord, "RANK", rank,
                        "RANKX", p->ties_upper ? "__brev" : "~__brev", "UNRANK", p->ties_upper ? "" : "~", NULL};
    struct hk_buf b;
    rw_edits es = {0};
    hk_buf_init(&b, PT_TEXT_MAX);
    int rc = rwl_render(&b, tpl_pair_key, kv);
    if (rc)
        goto out;
    char *repl = hk_strdup(b.data);
    if (!repl || (rc = rwl_edits_add_owned(&es, edit_start(text, ts->t[la].start), ts->t[lb - 1].end, repl))) {
        rc = rc ? rc : HK_ENOMEM;
        goto out;
    }
    /* one sentence per tie rank, with or without the named size */
    bool sized = p->size != UINT32_MAX;
    const char *dfmt = p->ties_upper ? (sized ? EN(RW_BT_DESC_KEY_LARGEST_SIZE) : EN(RW_BT_DESC_KEY_LARGEST))
                                     : (sized ? EN(RW_BT_DESC_KEY_SMALLEST_SIZE) : EN(RW_BT_DESC_KEY_SMALLEST));
    char *desc = hk_asprintf(dfmt, f->name, what, p->v, p->i, tv, ti, p->loop->line, p->v, p->i, p->v);
    if (!desc) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    out->keeps_launch = rc == HK_OK && out->applicable;
out:
    rwl_edits_free(&es);
    hk_buf_free(&b);
    return rc;
}

/* rw_block_tree's pair path: the kernel's model k holds a loop storing two arrays. */
static int rw_block_pair(const char *text, size_t len, const an_model *m, const an_function *f,
                         const km_kernel *k, const bt_tree *t, bool key, rw_result *out)
{
    char why[600] = "", tv[128], ti[128];
    rw_toks ts = {0};
    rw_edits es = {0};
    struct hk_buf b, c1, c2;
    hk_buf_init(&b, PT_TEXT_MAX);
    hk_buf_init(&c1, PT_TEXT_MAX);
    hk_buf_init(&c2, PT_TEXT_MAX);
    bt_pair p;
    size_t la = 0, lb = 0;
    int rc;
    const char *w = find_pair(k, t, &p, why, sizeof why);
    if (!w) {
        if ((rc = rwp_lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
            goto out;
        if (!loop_tokens(text, &ts, p.loop->line, &la, &lb))
            snprintf(why, sizeof why, EN(RW_BT_NOT_OWN_TEXT),
                     p.loop->line), w = why;
        else if (!has_barrier(&ts, la, lb))
            snprintf(why, sizeof why, EN(RW_BT_NO_BARRIER), p.loop->line), w = why;
        else if (!p.loop->var || !halving_step(&ts, la, lb, p.loop->var, false))
            snprintf(why, sizeof why, EN(RW_BT_NOT_HALVE_STEP), p.loop->line), w = why;
        else if (!array_type(&ts, p.v, tv, sizeof tv) || !array_type(&ts, p.i, ti, sizeof ti))
            snprintf(why, sizeof why, EN(RW_BT_DECLS_NOT_FOUND),
                     p.wv->line, p.v, p.i), w = why;
        else {
            const char *arrays[] = {p.v, p.i};
            w = loop_extra(text, &ts, la, lb, arrays, 2, NULL, p.loop->var, true, why, sizeof why);
        }
    }
    if (w) {
        rc = rwp_not_applicable(out, name, f, w);
        goto out;
    }
    if ((rc = pair_combine(k, &p, tv, ti, "                ", &c1)) ||
        (rc = pair_combine(k, &p, tv, ti, "                    ", &c2))) {
        if (rc == HK_EINVAL)
            rc = rwp_not_applicable(out, name, f, EN(RW_BT_COMBINE_REGS));
        goto out;
    }
    const char *what = p.dir > 0 ? "argmax" : "argmin";
    if (key) {
        rc = pair_key(text, len, m, f, &p, tv, ti, what, &ts, la, lb, out);
        goto out;
    }
    /* the two stages' combines differ only in their indentation */
    char *tpl = hk_strdup(tpl_pair);
    if (!tpl) {
        rc = HK_ENOMEM;
        goto out;
    }
    char *second = strstr(tpl, "$COMBINE");
    second = second ? strstr(second + 1, "$COMBINE") : NULL;
    if (second)
        memcpy(second, "$COMBIN2", 8);
    const char *kv[] = {"V", p.v, "I", p.i, "TV", tv, "TI", ti, "WHAT", what, "COMBINE", c1.data, "COMBIN2", c2.data,
                        NULL};
    rc = rwl_render(&b, tpl, kv);
    hk_free(tpl);
    if (rc)
        goto out;
    char *repl = hk_strdup(b.data);
    if (!repl || (rc = rwl_edits_add_owned(&es, edit_start(text, ts.t[la].start), ts.t[lb - 1].end, repl))) {
        rc = rc ? rc : HK_ENOMEM;
        goto out;
    }
    /* one sentence per tie side, with or without the named size */
    bool sized = p.size != UINT32_MAX;
    const char *dfmt = p.ties_upper ? (sized ? EN(RW_BT_DESC_PAIR_UPPER_SIZE) : EN(RW_BT_DESC_PAIR_UPPER))
                                    : (sized ? EN(RW_BT_DESC_PAIR_LOWER_SIZE) : EN(RW_BT_DESC_PAIR_LOWER));
    char *desc = hk_asprintf(dfmt, f->name, what, p.v, p.i, tv, ti, p.loop->line, p.v, p.i, p.v, p.i);
    if (!desc) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    out->keeps_launch = rc == HK_OK && out->applicable;
out:
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    hk_buf_free(&b);
    hk_buf_free(&c1);
    hk_buf_free(&c2);
    return rc;
}

/* The text checks of tree t in the body's tokens ts (its loop statement, a barrier in it,
 * the halving or doubling step, the array's declaration, thread 0's carry) and, when they
 * pass, its replacement added to es, the element type in ty: NULL, or the reason in why
 * (*rc an error code: HK_ENOMEM). */
/* tpl_tree for tree t of element type ty, appended to b: HK_OK or an error code. */
static int tree_render(const bt_tree *t, const char *ty, struct hk_buf *b)
{
    const char *opname = t->op == KM_OP_SUM ? "sum" : t->op == KM_OP_MAX ? "maximum" : "minimum";
    char combine[96], carry[200] = "";
    if (t->op == KM_OP_SUM)
        snprintf(combine, sizeof combine, "hk_acc += hk_o");
    else
        snprintf(combine, sizeof combine, "hk_acc = (hk_o %s hk_acc) ? hk_o : hk_acc", t->op == KM_OP_MAX ? ">" : "<");
    if (t->carry)   /* thread 0's carry ends as the block's result, as after the tree */
        snprintf(carry, sizeof carry, "\n                %s = hk_acc;   // the tree's register carry, as thread 0 " /* i18n: not for people */
                 "ended it", t->carry);
    const char *kv[] = {"S", t->array, "T", ty, "OP", opname, "COMBINE", combine, "CARRY", carry, NULL};
    return rwl_render(b, tpl_tree, kv);
}

/* Session 47: the text checks of a tree t inside a row loop (rows_checks passed). Every
 * thread must run every iteration to the tree's shuffles: no `return` or `goto` in the
 * row loop, no `break` or `continue` of its own (those of a loop or switch inside it are
 * theirs). When a thread other than thread 0 reads the array after the tree (line
 * t->rows_bcast), a barrier must stand in the row loop after that read or before the
 * slots' store (line t->rows_store), or thread 0's store in the next iteration could
 * overwrite S[0] before that read (the rewrite adds none; the original would race as well).
 * NULL, or the reason in why. */
static const char *rows_text_checks(const char *text, const km_kernel *k, const rw_toks *ts, const bt_tree *t,
                                    char *why, size_t n)
{
    size_t nl, ra = 0, rb = 0;
    const km_loop *ls = km_loops(k, &nl);
    const km_loop *rows = &ls[t->loop->parent];
    if (!loop_tokens(text, ts, rows->line, &ra, &rb)) {
        snprintf(why, n, EN(RW_BT_NOT_OWN_TEXT), rows->line);
        return why;
    }
    static const char *const own[] = {"break", "continue"}, *const any[] = {"return", "goto"};
    static const char *const nest[] = {"for", "while", "do", "switch"};
    bool barrier = !t->rows_bcast;
    for (size_t q = ra + 1; q < rb; q++) {
        uint32_t line = (uint32_t)rwl_line_at(text, ts->t[q].start);
        for (size_t i = 0; i < HK_ARRAY_LEN(any); i++)
            if (rwl_tok_is_ident(ts, q, any[i])) {
                snprintf(why, n, EN(RW_BT_ROWS_JUMP), line, any[i], rows->line);
                return why;
            }
        if (has_barrier(ts, q, q + 1) && line > rows->line && (line > t->rows_bcast || line < t->rows_store))
            barrier = true;
    }
    /* the row loop's own break and continue: skip the statements of loops and switches in
     * it (the loop's header first) */
    size_t body = ra + 1;
    if (rwl_tok_is(ts, ra, "for") || rwl_tok_is(ts, ra, "while"))
        body = rwl_match_close(ts, ra + 1) + 1;
    for (size_t q = body; q < rb; q++) {
        bool inner = false;
        for (size_t i = 0; i < HK_ARRAY_LEN(nest); i++)
            inner |= rwl_tok_is_ident(ts, q, nest[i]);
        if (inner) {
            size_t e = rwl_stmt_end(ts, q, rb);
            if (rwl_tok_is(ts, q, "do") && rwl_tok_is(ts, e, "while"))
                e = rwl_stmt_end(ts, e, rb);
            q = e > q ? e - 1 : q;
            continue;
        }
        for (size_t i = 0; i < HK_ARRAY_LEN(own); i++)
            if (rwl_tok_is_ident(ts, q, own[i])) {
                snprintf(why, n, EN(RW_BT_ROWS_JUMP), (unsigned)rwl_line_at(text, ts->t[q].start), own[i],
                         rows->line);
                return why;
            }
    }
    if (!barrier) {
        snprintf(why, n, EN(RW_BT_ROWS_NO_BARRIER), t->rows_bcast, t->array, rows->line);
        return why;
    }
    /* the slots' store (line t->rows_store) is a statement of the row loop's own body,
     * `S[...] = ...;`: not under an `if`, a `switch`'s case, a `&&` or `?:` of its own */
    bool restored = false;
    if (rwl_tok_is(ts, body, "{"))
        for (size_t q = body + 1; q < rb && !restored;) {
            size_t e = rwl_stmt_end(ts, q, rb);
            restored = rwl_tok_is_ident(ts, q, t->array) && rwl_tok_is(ts, q + 1, "[") &&
                       (uint32_t)rwl_line_at(text, ts->t[q].start) == t->rows_store;
            q = e > q ? e : q + 1;
        }
    if (!restored) {
        snprintf(why, n, EN(RW_BT_ROWS_NOT_RESTORED), t->loop->line, rows->line, t->array);
        return why;
    }
    return NULL;
}

static const char *tree_edit(const char *text, const km_kernel *k, const rw_toks *ts, const bt_tree *t, rw_edits *es,
                             char *ty, size_t nty, char *why, size_t n, int *rc)
{
    size_t la = 0, lb = 0;
    const char *w = NULL;
    *rc = HK_OK;
    if (!loop_tokens(text, ts, t->loop->line, &la, &lb))
        snprintf(why, n, EN(RW_BT_NOT_OWN_TEXT), t->loop->line), w = why;
    else if (!has_barrier(ts, la, lb))
        snprintf(why, n, EN(RW_BT_NO_BARRIER), t->loop->line), w = why;
    else if (!t->loop->var || !halving_step(ts, la, lb, t->loop->var, !strcmp(t->loop->cmp, "<")))
        snprintf(why, n, !strcmp(t->loop->cmp, "<") ? EN(RW_BT_NOT_DOUBLE) : EN(RW_BT_NOT_HALVE), t->loop->line),
            w = why;
    else if (!array_type(ts, t->array, ty, nty))
        snprintf(why, n, EN(RW_BT_DECL_NOT_FOUND), t->comb->line, t->array), w = why;
    else if (t->carry)
        w = carry_uses_ok(k, t, text, ts, lb, why, n);
    if (!w)
        w = loop_extra(text, ts, la, lb, &t->array, 1, t->carry, t->loop->var, false, why, n);
    if (!w && t->loop->parent >= 0)
        w = rows_text_checks(text, k, ts, t, why, n);
    if (w)
        return w;
    struct hk_buf b;
    hk_buf_init(&b, PT_TEXT_MAX);
    if ((*rc = tree_render(t, ty, &b))) {
        hk_buf_free(&b);
        return NULL;
    }
    char *repl = hk_strdup(b.data);
    hk_buf_free(&b);
    if (!repl || (*rc = rwl_edits_add_owned(es, edit_start(text, ts->t[la].start), ts->t[lb - 1].end, repl)))
        *rc = *rc ? *rc : HK_ENOMEM;
    return NULL;
}

int rw_block_tree(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    return rw_block_tree_form(text, len, m, kernel, false, out);
}

int rw_block_tree_form(const char *text, size_t len, const an_model *m, size_t kernel, bool key, rw_result *out)
{
    return rw_block_tree_spec(text, len, m, kernel, key, NULL, out);
}

/* The refusal of a tree loop over a kernel parameter (t->block_param) instead of
 * blockDim.x, with why the spec sp does not make that parameter the block size, into
 * why (n bytes). */
static void param_refusal(const an_function *f, const struct spec *sp, const bt_tree *t, char *why, size_t n)
{
    char because[300] = "";
    for (size_t i = 0; i < f->n_params; i++)
        if (!strcmp(f->params[i].name, t->block_param) &&
            rw_spec_block_x_param(sp, f, i, because, sizeof because))
            snprintf(because, sizeof because, EN(RW_BLOCK_PARAM_ASSIGNED), t->block_param);
    snprintf(why, n, EN(RW_BT_PARAM_BLOCK), t->loop->line, t->block_param, because);
}

/* The refusal when the trees' checks failed (w: their reason, why its text; t[bad] the tree
 * it names) or the kernel is the key form (key): into out, with the parameter's reason when
 * the tree's block size is a parameter. HK_OK, or the error of rwp_not_applicable. */
static int checks_refusal(const an_function *f, const struct spec *sp, const bt_tree *t,
                          size_t bad, const char *w, char *why, size_t nwhy, bool key,
                          rw_result *out)
{
    if (w && t[bad].block_param)
        param_refusal(f, sp, &t[bad], why, nwhy);
    char w2[700];
    if (key)
        snprintf(w2, sizeof w2, EN(RW_BT_KEY_PAIR), w ? w : EN(RW_BT_ONE_ARRAY_EACH));
    else
        snprintf(w2, sizeof w2, "%s", why);
    return rwp_not_applicable(out, name, f, w2);
}

/* rw_block_tree_spec's path for a kernel of several trees t[0 .. nt) (tree_loops): every
 * tree checked as block_reduce checks one (trees_checks: between two trees of one array,
 * each thread stores its slot again and slot 0 alone is read), then each loop replaced by
 * tpl_tree in place. Each replacement leaves S[0] as its tree did (the block's sum, max or
 * min) and the other slots as they were before it, which no code after it reads before its
 * thread stores the slot again; the code between the trees, its barriers and the launch are
 * the original's. */
static int rw_block_trees(const char *text, size_t len, const an_model *m, const an_function *f,
                          const km_kernel *k, const struct spec *sp, bool key, bt_tree *t, size_t nt,
                          rw_result *out)
{
    char why[512] = "", ty[128];
    rw_toks ts = {0};
    rw_edits es = {0};
    struct hk_buf list;
    hk_buf_init(&list, 512);
    size_t bad = 0;
    int rc = HK_OK;
    const char *w = trees_checks(k, t, nt, &bad, why, sizeof why);
    if (w || key) {
        rc = checks_refusal(f, sp, t, bad, w, why, sizeof why, key, out);
        goto out;
    }
    if ((rc = rwp_lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    for (size_t i = 0; i < nt; i++) {
        w = tree_edit(text, k, &ts, &t[i], &es, ty, sizeof ty, why, sizeof why, &rc);
        if (rc)
            goto out;
        if (w) {
            rc = rwp_not_applicable(out, name, f, w);
            goto out;
        }
        if ((rc = hk_buf_printf(&list, "%s%u", i ? ", " : "", t[i].loop->line)))   /* i18n: not for people */
            goto out;
    }
    bool sums = false;
    for (size_t i = 0; i < nt; i++)
        sums |= t[i].op == KM_OP_SUM;
    char *desc = hk_asprintf(sums ? EN(RW_BT_DESC_TREES_SUM) : EN(RW_BT_DESC_TREES), f->name, (unsigned)nt,
                             list.data);
    if (!desc) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    out->keeps_launch = rc == HK_OK && out->applicable;
out:
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    hk_buf_free(&list);
    return rc;
}

/* ---- trees of several arrays in one loop (session 46) --------------------------------
 *
 * One halving or doubling loop that combines S1[w] op= S1[w + s], S2[w] op= S2[w + s], ...
 * each array with itself alone, under nothing but the thread's part in the level: a sum
 * and a sum of squares (Rodinia SRAD's reduce), SyncBN's grad_weight and grad_bias sums
 * (mmcv), three gradients at once (mmcv's ms_deform_attn backward). Those are independent
 * trees that share their levels' barriers: no array's update reads another array, so each
 * array's slot 0 after the loop is its own tree's result. Each is checked as a tree of its
 * own (tree_checks: every thread's slot stored before, slot 0 alone read after), and the
 * loop is replaced by one tpl_tree per array in turn: each reads its own slots, which the
 * replacements before it left as they were, and leaves its slot 0 as its tree did. A loop
 * whose second store is not such an update (an argmax's index) is a pair tree's. */

/* Is w, in a tree loop whose counter is s, an update of its array by itself alone:
 * S[w] op= S[w + s], S[w] = S[w] + S[w + s] or fmaxf(S[w], S[w + s]) (a sum, max or min)? */
static bool own_update(const km_kernel *k, const km_access *w, uint32_t s)
{
    if (w->mode == KM_WRITE)
        return write_op(k, w, s) != KM_OP_NONE;
    if (w->mode != KM_RMW || (w->op != KM_OP_SUM && w->op != KM_OP_MAX && w->op != KM_OP_MIN))
        return false;
    size_t nat;
    const km_atom *at = km_atoms(k, &nat);
    const km_term *v = w->value.n == 1 ? &w->value.t[0] : NULL;
    return v && v->coef == 1 && v->n == 1 && at[v->atoms[0]].kind == KM_ATOM_READ &&
           strcmp(at[v->atoms[0]].name, w->buffer) == 0 && form_plus_atom(w->index, at[v->atoms[0]].args[0], s);
}

/* The trees of t0's loop (find_tree's, which found a second array there) when every shared
 * store in it updates its own array alone (own_update), one store per array: into t[0 ..
 * n), in the order of the stores; 0 when the loop is not of that form (a pair tree's). */
static size_t tuple_trees(const km_kernel *k, const bt_tree *t0, bt_tree *t, size_t cap)
{
    size_t na, nt = 0;
    const km_access *as = km_accesses(k, &na);
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &as[i];
        if (!in_loop(a, t0->loop_ix) || a->space == KM_SPACE_GLOBAL || a->mode == KM_READ)
            continue;
        if (nt == cap || !own_update(k, a, t0->loop->counter))
            return 0;
        for (size_t j = 0; j < nt; j++)
            if (!strcmp(t[j].array, a->buffer))
                return 0;   /* an array stored twice in a level */
        memset(&t[nt], 0, sizeof t[nt]);
        t[nt].comb = a;
        t[nt].loop = t0->loop;
        t[nt].loop_ix = t0->loop_ix;
        t[nt].array = a->buffer;
        nt++;
    }
    return nt >= 2 ? nt : 0;
}

/* The checks of the trees t[0 .. nt) of one loop (tuple_trees): each tree's own
 * (tree_checks), no condition inside the loop on a store but the thread's part in the
 * level (one on the data would tie the arrays together), and nothing else in the loop: its
 * reads are of the trees' arrays, at a store's slot or its partner's. NULL, or the reason
 * in why; *bad gets the tree refused. */
static const char *tuple_checks(const km_kernel *k, bt_tree *t, size_t nt, size_t *bad, char *why, size_t n)
{
    size_t na, ng;
    const km_access *as = km_accesses(k, &na);
    const km_guard *gs = km_guards(k, &ng);
    uint32_t bdx;
    if (!km_builtin_atom(k, KM_ATOM_BLOCK_DIM, 0, &bdx))
        bdx = UINT32_MAX;
    for (size_t i = 0; i < nt; i++) {
        *bad = i;
        if (tree_checks(k, &t[i], NULL, NULL, why, n))
            return why;
        const km_access *w = t[i].comb;
        for (uint32_t g = 0; g < w->n_guards; g++) {
            const km_guard *gd = &gs[w->guards[g]];
            if (gd->line >= t[i].loop->line && !part_guard(k, &t[i], gd, bdx)) {
                snprintf(why, n, EN(RW_BT_TUPLE_GUARD), gd->line, t[i].array, t[i].loop->line);
                return why;
            }
        }
    }
    *bad = 0;
    uint32_t s = t[0].loop->counter;
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &as[i];
        if (!in_loop(a, t[0].loop_ix))
            continue;
        bool ok = false;
        for (size_t j = 0; j < nt && !ok; j++)
            ok = a == t[j].comb ||
                 (a->mode == KM_READ && !strcmp(a->buffer, t[j].array) &&
                  (km_form_equal(a->index, t[j].comb->index) || form_plus_atom(t[j].comb->index, a->index, s)));
        if (!ok) {
            snprintf(why, n, EN(RW_BT_TUPLE_OTHER), a->line, t[0].loop->line, (unsigned)nt, a->buffer);
            return why;
        }
    }
    return NULL;
}

/* block_reduce for the trees t[0 .. nt) of one loop (tuple_trees): checked (tuple_checks),
 * then the loop replaced by tpl_tree for each array in turn, at the loop's indentation. */
static int rw_block_tuple(const char *text, size_t len, const an_model *m, const an_function *f,
                          const km_kernel *k, const struct spec *sp, bool key, bt_tree *t, size_t nt,
                          rw_result *out)
{
    char why[512] = "", ty[128];
    rw_toks ts = {0};
    rw_edits es = {0};
    struct hk_buf list, repl;
    hk_buf_init(&list, 256);
    hk_buf_init(&repl, PT_TEXT_MAX);
    size_t bad = 0, la = 0, lb = 0;
    int rc = HK_OK;
    const char *w = tuple_checks(k, t, nt, &bad, why, sizeof why);
    if (w || key) {
        rc = checks_refusal(f, sp, t, bad, w, why, sizeof why, key, out);
        goto out;
    }
    if ((rc = rwp_lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    if (!loop_tokens(text, &ts, t[0].loop->line, &la, &lb))
        snprintf(why, sizeof why, EN(RW_BT_NOT_OWN_TEXT), t[0].loop->line), w = why;
    else if (!has_barrier(&ts, la, lb))
        snprintf(why, sizeof why, EN(RW_BT_NO_BARRIER), t[0].loop->line), w = why;
    else if (!t[0].loop->var || !halving_step(&ts, la, lb, t[0].loop->var, !strcmp(t[0].loop->cmp, "<")))
        snprintf(why, sizeof why, !strcmp(t[0].loop->cmp, "<") ? EN(RW_BT_NOT_DOUBLE) : EN(RW_BT_NOT_HALVE),
                 t[0].loop->line), w = why;
    else {
        const char *arrays[BT_MAX_TREES];
        for (size_t i = 0; i < nt && i < BT_MAX_TREES; i++)
            arrays[i] = t[i].array;
        w = loop_extra(text, &ts, la, lb, arrays, nt < BT_MAX_TREES ? nt : BT_MAX_TREES, NULL, t[0].loop->var, false,
                       why, sizeof why);
    }
    if (w) {
        rc = rwp_not_applicable(out, name, f, w);
        goto out;
    }
    size_t at = edit_start(text, ts.t[la].start), ind = at;
    while (ind > 0 && (text[ind - 1] == ' ' || text[ind - 1] == '\t'))
        ind--;
    bool sums = false;
    for (size_t i = 0; i < nt; i++) {
        if (!array_type(&ts, t[i].array, ty, sizeof ty)) {
            snprintf(why, sizeof why, EN(RW_BT_DECL_NOT_FOUND), t[i].comb->line, t[i].array);
            rc = rwp_not_applicable(out, name, f, why);
            goto out;
        }
        if (i && ((rc = hk_buf_printf(&repl, "\n%.*s", (int)(at - ind), text + ind)) ||   /* the loop's indentation */
                  (rc = hk_buf_printf(&list, ", "))))
            goto out;
        if ((rc = tree_render(&t[i], ty, &repl)) || (rc = hk_buf_printf(&list, "%s", t[i].array)))
            goto out;
        sums |= t[i].op == KM_OP_SUM;
    }
    char *r = hk_strdup(repl.data);
    if (!r || (rc = rwl_edits_add_owned(&es, at, ts.t[lb - 1].end, r))) {
        rc = rc ? rc : HK_ENOMEM;
        goto out;
    }
    char *desc = hk_asprintf(sums ? EN(RW_BT_DESC_TUPLE_SUM) : EN(RW_BT_DESC_TUPLE), f->name, (unsigned)nt, list.data,
                             t[0].loop->line);
    if (!desc) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    out->keeps_launch = rc == HK_OK && out->applicable;
out:
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    hk_buf_free(&list);
    hk_buf_free(&repl);
    return rc;
}

int rw_block_tree_spec(const char *text, size_t len, const an_model *m, size_t kernel, bool key,
                       const struct spec *sp, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    km_kernel *k = NULL;
    char why[512] = "", ty[128];
    rw_toks ts = {0};
    rw_edits es = {0};
    bt_tree t, trees[BT_MAX_TREES];
    /* a parameter every launch passes equal to its block along x is blockDim.x to the
     * model (rw_spec_block_x_param proves it from the spec, km_build_with checks that the
     * kernel never assigns it): `block_size / 2` then starts the whole tree */
    const char *bx[8];
    km_launch_facts facts = {.block_x_params = bx,
                             .n_block_x_params = rw_spec_block_x_params(sp, f, bx, HK_ARRAY_LEN(bx))};
    rc = km_build_with(text, len, f->name, &facts, &k, why, sizeof why);
    if (rc == HK_ENOMEM)
        goto out;
    if (rc) {
        char w2[600];
        snprintf(w2, sizeof w2, EN(RW_MODEL_CANNOT_BUILD), why);
        rc = rwp_not_applicable(out, name, f, w2);
        goto out;
    }
    size_t nt = tree_loops(k, trees, BT_MAX_TREES);
    if (nt) {   /* several trees in one block */
        rc = rw_block_trees(text, len, m, f, k, sp, key, trees, nt, out);
        goto out;
    }
    const char *w = find_tree(k, &t, why, sizeof why);
    if (w && t.block_param && t.loop)
        param_refusal(f, sp, &t, why, sizeof why), w = why;
    if (w && t.pair) {   /* two arrays: trees of several arrays at once, or a (value, index) tree? */
        size_t nu = tuple_trees(k, &t, trees, BT_MAX_TREES);
        rc = nu ? rw_block_tuple(text, len, m, f, k, sp, key, trees, nu, out)
                : rw_block_pair(text, len, m, f, k, &t, key, out);
        goto out;
    }
    if (key) {
        char w2[700];
        snprintf(w2, sizeof w2, EN(RW_BT_KEY_PAIR),
                 w ? w : EN(RW_BT_ONE_ARRAY));
        rc = rwp_not_applicable(out, name, f, w2);
        goto out;
    }
    if (!w) {
        if ((rc = rwp_lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
            goto out;
        w = tree_edit(text, k, &ts, &t, &es, ty, sizeof ty, why, sizeof why, &rc);
        if (rc)
            goto out;
    }
    if (w) {
        rc = rwp_not_applicable(out, name, f, w);
        goto out;
    }
    /* one sentence per combination (a sum's may differ in its last bits), with or without
     * thread 0's register carry */
    const char *dfmt = t.op == KM_OP_SUM ? (t.carry ? EN(RW_BT_DESC_SUM_CARRY) : EN(RW_BT_DESC_SUM))
                       : t.op == KM_OP_MAX ? (t.carry ? EN(RW_BT_DESC_MAX_CARRY) : EN(RW_BT_DESC_MAX))
                                           : (t.carry ? EN(RW_BT_DESC_MIN_CARRY) : EN(RW_BT_DESC_MIN));
    char *desc = t.carry ? hk_asprintf(dfmt, f->name, t.array, ty, t.loop->line, t.array, t.carry)
                         : hk_asprintf(dfmt, f->name, t.array, ty, t.loop->line, t.array);
    if (!desc) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    out->keeps_launch = rc == HK_OK && out->applicable;
out:
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    km_free(k);
    return rc;
}
