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
 * or `index = 2*s*tid`), temporaries, a macro or template block size, sum, max or min. */
#include "rewrites/rewrite_pattern.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "model/kmodel.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const name = "block reduce";

/* The replacement of the tree loop. PT_WARP's names over the 1-D block; the second stage
 * combines only the hk_nwarps slots that exist, so no identity value is needed (any T
 * with + or <, >: a template T too). */
static const char tpl_tree[] =
    "{\n"
    "        // hk rewrite: block_reduce. The shared-memory tree over $S[0 .. blockDim.x) as\n"
    "        // warp shuffles, one shared slot per warp; $S[0] holds the block's $OP as before.\n"
    "        const unsigned int hk_tid = threadIdx.x, hk_nthreads = blockDim.x;\n"
    PT_WARP
    "        $T hk_acc = $S[hk_tid];\n"
    "        __shared__ $T hk_part[32];\n"
    RD_SHFL("        ", "hk_width")
    "        if (hk_lane == 0)\n"
    "            hk_part[hk_warp] = hk_acc;\n"
    "        __syncthreads();\n"
    "        if (hk_warp == 0) {\n"
    "            hk_acc = hk_part[min(hk_lane, hk_nwarps - 1u)];\n"
    RD_SHFL("            ", "hk_nwarps")
    "            if (hk_lane == 0)\n"
    "                $S[0] = hk_acc;\n"
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

/* Does the loop run the whole tree: s from the half block size down to 1, or from 1 up to
 * below the block size? The reason (with the line) in why otherwise. */
static const char *tree_covers_block(const km_kernel *k, const km_loop *lp, uint32_t bdx, char *why, size_t n)
{
    int64_t v;
    bool down = lp->cmp && (!strcmp(lp->cmp, ">") || !strcmp(lp->cmp, "!=")) && km_form_value(k, lp->bound, &v) &&
                v == 0 && is_block_size(k, lp->start, bdx, true);
    bool down32 = lp->cmp && !strcmp(lp->cmp, ">") && km_form_value(k, lp->bound, &v) && v > 0;
    bool up = lp->cmp && !strcmp(lp->cmp, "<") && km_form_value(k, lp->start, &v) && v == 1 &&
              is_block_size(k, lp->bound, bdx, false);
    if (down || up)
        return NULL;
    if (down32)
        snprintf(why, n, "line %u: the tree loop stops before one element (an unrolled last warp follows): "
                 "only a loop down to s > 0 or up to blockDim.x is read as the whole tree", lp->line);
    else
        snprintf(why, n, "line %u: the tree loop does not run from blockDim.x / 2 down to 1 or from 1 up to "
                 "blockDim.x: not read as a reduction of the whole block", lp->line);
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

/* The one shared tree of the kernel and its checks: NULL, or the reason in why. (A called
 * __device__ function's accesses are the model's at the call's line: checked as well.) */
static const char *find_tree(const km_kernel *k, bt_tree *t, char *why, size_t n)
{
    size_t nl, na, ng;
    const km_loop *ls = km_loops(k, &nl);
    const km_access *as = km_accesses(k, &na);
    const km_guard *gs = km_guards(k, &ng);
    memset(t, 0, sizeof *t);
    for (size_t l = 0; l < nl; l++) {
        if (ls[l].kind != KM_LOOP_GEOMETRIC)
            continue;
        for (size_t i = 0; i < na; i++) {
            const km_access *a = &as[i];
            if (!in_loop(a, l) || a->space == KM_SPACE_GLOBAL || a->mode == KM_READ)
                continue;
            if (t->comb && t->comb != a) {
                snprintf(why, n, "line %u: the tree loop (line %u) combines %s and also %s (an argmax, or two "
                         "sums at once): only a tree of one array is rewritten", a->line, ls[l].line, t->array,
                         a->buffer);
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
    const km_access *w = t->comb;
    uint32_t s = t->loop->counter, bdx;
    if (t->loop->parent >= 0) {
        snprintf(why, n, "line %u: the tree loop is inside another loop (line %u)", t->loop->line,
                 ls[t->loop->parent].line);
        return why;
    }
    if (!km_builtin_atom(k, KM_ATOM_THREAD_IDX, 0, &t->tid)) {
        snprintf(why, n, "line %u: the tree is not indexed by threadIdx.x", w->line);
        return why;
    }
    if (!km_builtin_atom(k, KM_ATOM_BLOCK_DIM, 0, &bdx))
        bdx = UINT32_MAX;   /* the tree's size is a named constant only */
    uint32_t other;
    if (km_builtin_atom(k, KM_ATOM_THREAD_IDX, 1, &other) || km_builtin_atom(k, KM_ATOM_THREAD_IDX, 2, &other)) {
        snprintf(why, n, "line %u: the kernel uses threadIdx.y or threadIdx.z: the tree's element is not "
                 "read as the thread's place in a 1-D block", w->line);
        return why;
    }
    if (tree_covers_block(k, t->loop, bdx, why, n))
        return why;
    /* every thread of the block must reach the shuffles: no guard (an early return, an
     * if around the tree) may be in force at the tree */
    for (uint32_t g = 0; g < w->n_guards; g++) {
        const km_guard *gd = &gs[w->guards[g]];
        if (gd->line < t->loop->line) {
            snprintf(why, n, "line %u: a condition (an early return or an if) before the tree at line %u is in "
                     "force at it: threads that left cannot take part in warp shuffles", gd->line, t->loop->line);
            return why;
        }
    }
    /* the combination: S[w] op= S[w + s] */
    t->op = w->mode == KM_RMW ? w->op : write_op(k, w, s);
    if (w->mode == KM_RMW) {
        size_t nat;
        const km_atom *at = km_atoms(k, &nat);
        const km_term *v = w->value.n == 1 ? &w->value.t[0] : NULL;
        if (!v || v->coef != 1 || v->n != 1 || at[v->atoms[0]].kind != KM_ATOM_READ ||
            strcmp(at[v->atoms[0]].name, w->buffer) != 0 || !form_plus_atom(w->index, at[v->atoms[0]].args[0], s))
            t->op = KM_OP_NONE;
    }
    if (t->op != KM_OP_SUM && t->op != KM_OP_MAX && t->op != KM_OP_MIN) {
        snprintf(why, n, "line %u: the tree's update of %s is not %s[w] combined with %s[w + %s] by a sum, max "
                 "or min", w->line, t->array, t->array, t->array, t->loop->var ? t->loop->var : "s");
        return why;
    }
    /* which element takes part: the halving tree's `tid < s`, the interleaved tree's
     * `tid % (2*s) == 0` or `w = 2*s*tid` with `w < blockDim.x` */
    bool halving = t->loop->cmp && strcmp(t->loop->cmp, "<") != 0;
    bool guarded = false;
    for (uint32_t g = 0; g < w->n_guards; g++) {
        const km_guard *gd = &gs[w->guards[g]];
        if (gd->line < t->loop->line)
            continue;
        if (halving && form_is_atom(w->index, t->tid) && !strcmp(gd->op, "<") && form_is_atom(gd->lhs, t->tid) &&
            form_is_atom(gd->rhs, s))
            guarded = true;
        if (!halving && interleaved_guard(k, gd, w->index, t->tid, s, bdx))
            guarded = true;
    }
    if (!guarded) {
        snprintf(why, n, "line %u: the tree's update has no guard that picks the combining threads (`tid < s`, "
                 "`tid %% (2*s) == 0`, `index < blockDim.x`)", w->line);
        return why;
    }
    /* before the tree each thread writes its own slot; after it only S[0] is read */
    for (size_t i = 0; i < na; i++) {
        const km_access *a = &as[i];
        if (strcmp(a->buffer, t->array) != 0 || a == w || in_loop(a, t->loop_ix))
            continue;
        if (a->line < t->loop->line) {
            if (a->mode != KM_READ && !form_is_atom(a->index, t->tid)) {
                snprintf(why, n, "line %u: %s is written at another index than threadIdx.x before the tree: "
                         "the tree's inputs are not one value per thread", a->line, t->array);
                return why;
            }
            continue;
        }
        if (a->mode != KM_READ || a->index.n != 0) {
            snprintf(why, n, "line %u: %s is %s after the tree at another place than %s[0]: the other slots "
                     "hold the tree's intermediate sums", a->line, t->array, a->mode == KM_READ ? "read" : "written",
                     t->array);
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
 * __shared__ T S[]`, `T *S = ...`): the type words before the name, qualifiers dropped. */
static bool array_type(const rw_toks *ts, const char *array, char *out, size_t n)
{
    for (size_t k = 1; k < ts->n; k++) {
        if (!rwl_tok_is_ident(ts, k, array) ||
            !(rwl_tok_is(ts, k + 1, "[") || rwl_tok_is(ts, k + 1, "=") || rwl_tok_is(ts, k + 1, ";")))
            continue;
        /* a declaration statement: everything from the statement's start to the name is
         * its type (a template parameter T or a qualified name too) */
        size_t a = k;
        while (a > 0 && !rwl_tok_is(ts, a - 1, ";") && !rwl_tok_is(ts, a - 1, "{") && !rwl_tok_is(ts, a - 1, "}") &&
               (ts->t[a - 1].kind == T_IDENT || rwl_tok_is(ts, a - 1, "*") || rwl_tok_is(ts, a - 1, "::") ||
                rwl_tok_is(ts, a - 1, "<") || rwl_tok_is(ts, a - 1, ">")))
            a--;
        if (a == k || !(a == 0 || rwl_tok_is(ts, a - 1, ";") || rwl_tok_is(ts, a - 1, "{") ||
                        rwl_tok_is(ts, a - 1, "}")))
            continue;
        out[0] = '\0';
        for (size_t j = a; j < k; j++) {
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

/* Is the barrier the tree needs between its levels in the loop's tokens [a, b)? */
static bool has_barrier(const rw_toks *ts, size_t a, size_t b)
{
    for (size_t k = a; k < b; k++)
        if (rwl_tok_is(ts, k, "__syncthreads") || rwl_tok_is(ts, k, "sync") || rwl_tok_is(ts, k, "barrier"))
            return true;
    return false;
}

int rw_block_tree(const char *text, size_t len, const an_model *m, size_t kernel, rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    km_kernel *k = NULL;
    char why[512] = "", ty[128], combine[96];
    rw_toks ts = {0};
    rw_edits es = {0};
    struct hk_buf b;
    hk_buf_init(&b, PT_TEXT_MAX);
    bt_tree t;
    size_t la = 0, lb = 0;
    rc = km_build(text, len, f->name, &k, why, sizeof why);
    if (rc == HK_ENOMEM)
        goto out;
    if (rc) {
        char w2[600];
        snprintf(w2, sizeof w2, "the kernel model cannot be built: %s", why);
        rc = rwp_not_applicable(out, name, f, w2);
        goto out;
    }
    const char *w = find_tree(k, &t, why, sizeof why);
    if (!w) {
        if ((rc = rwp_lex_body(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
            goto out;
        if (!loop_tokens(text, &ts, t.loop->line, &la, &lb))
            snprintf(why, sizeof why, "line %u: the tree loop's statement is not in the kernel's own text",
                     t.loop->line), w = why;
        else if (!has_barrier(&ts, la, lb))
            snprintf(why, sizeof why, "line %u: the tree loop has no barrier between its levels (a warp-"
                     "synchronous tree is not rewritten)", t.loop->line), w = why;
        else if (!array_type(&ts, t.array, ty, sizeof ty))
            snprintf(why, sizeof why, "line %u: the declaration of %s is not found in the kernel", t.comb->line,
                     t.array), w = why;
    }
    if (w) {
        rc = rwp_not_applicable(out, name, f, w);
        goto out;
    }
    const char *opname = t.op == KM_OP_SUM ? "sum" : t.op == KM_OP_MAX ? "maximum" : "minimum";
    if (t.op == KM_OP_SUM)
        snprintf(combine, sizeof combine, "hk_acc += hk_o");
    else
        snprintf(combine, sizeof combine, "hk_acc = (hk_o %s hk_acc) ? hk_o : hk_acc", t.op == KM_OP_MAX ? ">" : "<");
    const char *kv[] = {"S", t.array, "T", ty, "OP", opname, "COMBINE", combine, NULL};
    if ((rc = rwl_render(&b, tpl_tree, kv)))
        goto out;
    char *repl = hk_strdup(b.data);
    if (!repl || (rc = rwl_edits_add_owned(&es, ts.t[la].start, ts.t[lb - 1].end, repl))) {
        rc = rc ? rc : HK_ENOMEM;
        goto out;
    }
    char *desc = hk_asprintf("kernel %s: shared-memory tree %s of %s (%s, loop at line %u) -> warp shuffles, "
                             "one shared slot per warp; %s[0] holds the block's result as before, the code before "
                             "and after the tree is unchanged (same outputs, same per-block partials, same launch); "
                             "the order of the combination changes%s; assumes a power-of-two 1-D block as the "
                             "tree does", f->name, opname, t.array, ty, t.loop->line, t.array,
                             t.op == KM_OP_SUM ? " (a float sum may differ in its last bits)" : "");
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
    km_free(k);
    return rc;
}
