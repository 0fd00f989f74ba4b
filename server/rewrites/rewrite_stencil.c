/* stencil_window (rewrite_stencil.h): thread coarsening along the slowest axis with a
 * register window (the "2.5-D" form). Driven by the kernel model: the class says stencil,
 * the forms say how the thread's coordinate reaches the kernel, and the read sites say
 * which subscripts are the output's element plus a constant offset. The body itself is
 * kept: it runs K times as K virtual threads, so guards, borders and early returns keep
 * their meaning without being understood. */
#include "rewrites/rewrite_stencil.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_recognize.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kclass.h"
#include "model/kmodel.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define SW_RADIUS_MAX 4   /* rows a read may lie above or below the output */
#define SW_COLS_MAX 16    /* distinct in-row offsets of one input */
#define SW_BUFS_MAX 4     /* inputs with a window */
#define SW_SITES_MAX 128
#define SW_TERMS 24

static const char *const axis_names[] = {"x", "y", "z"};

/* A sum of terms in no particular order (offsets and strides built here, off the arena). */
typedef struct {
    km_term t[SW_TERMS];
    uint32_t n;
} sw_terms;

static bool same_atoms(const km_term *a, const km_term *b)
{
    return a->n == b->n && (a->n == 0 || memcmp(a->atoms, b->atoms, a->n * sizeof a->atoms[0]) == 0);
}

/* l += scale * t, merging equal products; false when l is full. */
static bool terms_add(sw_terms *l, const km_term *t, int64_t scale)
{
    int64_t c = t->coef * scale;
    for (uint32_t i = 0; c && i < l->n; i++)
        if (same_atoms(&l->t[i], t)) {
            if ((l->t[i].coef += c) == 0)
                l->t[i] = l->t[--l->n];
            return true;
        }
    if (!c)
        return true;
    if (l->n == SW_TERMS)
        return false;
    l->t[l->n] = *t;
    l->t[l->n++].coef = c;
    return true;
}

static bool terms_add_form(sw_terms *l, km_form f, int64_t scale)
{
    for (uint32_t i = 0; i < f.n; i++)
        if (!terms_add(l, &f.t[i], scale))
            return false;
    return true;
}

static bool terms_equal(const sw_terms *a, const sw_terms *b)
{
    if (a->n != b->n)
        return false;
    for (uint32_t i = 0; i < a->n; i++) {
        bool found = false;
        for (uint32_t j = 0; j < b->n && !found; j++)
            found = same_atoms(&a->t[i], &b->t[j]) && a->t[i].coef == b->t[j].coef;
        if (!found)
            return false;
    }
    return true;
}

/* The slow axis and the builtins that carry its coordinate. */
typedef struct {
    int axis;            /* 1 (y) or 2 (z) */
    bool by_thread;      /* the block extends along it: blockIdx*blockDim+threadIdx */
    int64_t tile;        /* > 1: by thread, but spelled blockIdx*TILE+threadIdx with TILE a
                          * constant (a macro of known value, a literal) and no blockDim on
                          * the axis: exact only for blocks TILE long along it */
    uint32_t tid, bid, bdim, gdim;
    bool has_tid, has_bid, has_bdim, has_gdim;
} sw_axis;

static bool axis_atoms(const km_kernel *k, int a, sw_axis *ax)
{
    ax->axis = a;
    ax->has_tid = km_builtin_atom(k, KM_ATOM_THREAD_IDX, a, &ax->tid);
    ax->has_bid = km_builtin_atom(k, KM_ATOM_BLOCK_IDX, a, &ax->bid);
    ax->has_bdim = km_builtin_atom(k, KM_ATOM_BLOCK_DIM, a, &ax->bdim);
    ax->has_gdim = km_builtin_atom(k, KM_ATOM_GRID_DIM, a, &ax->gdim);
    return ax->has_tid || ax->has_bid;
}

static unsigned count_atom(const km_term *t, bool has, uint32_t id)
{
    unsigned n = 0;
    for (uint32_t i = 0; has && i < t->n; i++)
        n += t->atoms[i] == id;
    return n;
}

/* t's atoms without one occurrence of each of drop[0..nd) (sorted order kept). */
static uint32_t strip(const km_term *t, const uint32_t *drop, unsigned nd, uint32_t *out)
{
    bool used[4] = {false};
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        bool skip = false;
        for (unsigned d = 0; d < nd && !skip; d++)
            if (!used[d] && t->atoms[i] == drop[d])
                used[d] = skip = true;
        if (!skip)
            out[n++] = t->atoms[i];
    }
    return n;
}

/* Is there a term u of f with t's coefficient and t's atoms less from[] plus to[]? */
static bool has_partner(km_form f, const km_term *t, const uint32_t *from, unsigned nf,
                        const uint32_t *to, unsigned nt)
{
    uint32_t want[KM_DEGREE_MAX], got[KM_DEGREE_MAX];
    uint32_t nw = strip(t, from, nf, want);
    for (uint32_t i = 0; i < f.n; i++) {
        const km_term *u = &f.t[i];
        if (u->coef != t->coef || u->n != nw + nt)
            continue;
        bool all = true;
        for (unsigned d = 0; d < nt; d++)
            all &= count_atom(u, true, to[d]) >= 1;
        if (all && strip(u, to, nt, got) == nw && (nw == 0 || !memcmp(got, want, nw * sizeof *got)))
            return true;
    }
    return false;
}

/* With the block extending along the axis: does f (and every operand inside it) see the
 * axis only as blockIdx*blockDim+threadIdx? Then running it as a thread of a block K times
 * taller is running it at another coordinate, nothing else. */
static bool only_global(const km_kernel *k, km_form f, const sw_axis *ax)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    uint32_t bb[2] = {ax->bid, ax->bdim}, tt[1] = {ax->tid};
    for (uint32_t i = 0; i < f.n; i++) {
        const km_term *t = &f.t[i];
        for (uint32_t j = 0; j < t->n; j++) {
            const km_atom *a = &at[t->atoms[j]];
            for (uint32_t g = 0; g < a->n_args; g++)
                if (!only_global(k, a->args[g], ax))
                    return false;
        }
        unsigned nt = count_atom(t, ax->has_tid, ax->tid), nb = count_atom(t, ax->has_bid, ax->bid),
                 nd = count_atom(t, ax->has_bdim, ax->bdim), ng = count_atom(t, ax->has_gdim, ax->gdim);
        if (ng)
            return false;
        if (!nt && !nb && !nd)
            continue;
        if (nt == 1 && !nb && !nd) {
            if (!has_partner(f, t, tt, 1, bb, 2))
                return false;
        } else if (!nt && nb == 1 && nd == 1) {
            if (!has_partner(f, t, bb, 2, tt, 1))
                return false;
        } else {
            return false;
        }
    }
    return true;
}

/* Session 48 (spatial): the tiled spelling's check, `blockIdx.y * TILE_WIDTH + threadIdx.y`
 * (textbook convolutions and stencils size the block by a macro): f (and every operand
 * inside it) sees the axis only as blockIdx*tile+threadIdx, with the named constants of known
 * value multiplied into the coefficients first, and never through blockDim or gridDim. A
 * block of tile threads along the axis makes that the global index, so running it as a
 * thread of a block K times taller, blockIdx -> blockIdx*K and threadIdx -> threadIdx*K+k,
 * is running it at another coordinate, as only_global says of the blockDim spelling. */
static bool only_tiled(const km_kernel *k, km_form f, const sw_axis *ax)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    sw_terms l = {.n = 0};
    for (uint32_t i = 0; i < f.n; i++) {
        const km_term *t = &f.t[i];
        km_term r = {.coef = t->coef};
        for (uint32_t j = 0; j < t->n; j++) {
            const km_atom *a = &at[t->atoms[j]];
            for (uint32_t g = 0; g < a->n_args; g++)
                if (!only_tiled(k, a->args[g], ax))
                    return false;
            if (a->kind == KM_ATOM_CONST && a->has_value)
                r.coef *= a->value;
            else
                r.atoms[r.n++] = t->atoms[j];
        }
        if (!terms_add(&l, &r, 1))
            return false;
    }
    for (uint32_t i = 0; i < l.n; i++) {
        const km_term *t = &l.t[i];
        unsigned nt = count_atom(t, ax->has_tid, ax->tid), nb = count_atom(t, ax->has_bid, ax->bid),
                 nd = count_atom(t, ax->has_bdim, ax->bdim), ng = count_atom(t, ax->has_gdim, ax->gdim);
        if (nd || ng)
            return false;
        if (!nt && !nb)
            continue;
        if (nt + nb != 1 || (nb && t->coef % ax->tile))
            return false;
        /* the partner: the same product with the other builtin, coefficient x tile (/ tile) */
        km_term want = {.coef = nt ? t->coef * ax->tile : t->coef / ax->tile};
        uint32_t from = nt ? ax->tid : ax->bid, to = nt ? ax->bid : ax->tid;
        want.n = strip(t, &from, 1, want.atoms);
        want.atoms[want.n++] = to;
        bool found = false;
        for (uint32_t j = 0; j < l.n && !found; j++) {
            /* the same atoms as a multiset (a term's own order is not the id's) */
            const km_term *u = &l.t[j];
            found = u->coef == want.coef && u->n == want.n;
            for (uint32_t q = 0; q < want.n && found; q++)
                found = count_atom(u, true, want.atoms[q]) == count_atom(&want, true, want.atoms[q]);
        }
        if (!found)
            return false;
    }
    return true;
}

/* The tile of the output element e along the axis: e holds c * threadIdx and c * tile *
 * blockIdx (named constants of known value multiplied in) and nothing of blockDim: tile, or 0. */
static int64_t element_tile(const km_kernel *k, km_form e, const sw_axis *ax)
{
    if (!ax->has_tid || !ax->has_bid || ax->has_bdim)
        return 0;
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    int64_t ct = 0, cb = 0;
    for (uint32_t i = 0; i < e.n; i++) {
        int64_t c = e.t[i].coef;
        bool t = false, b = false;
        for (uint32_t j = 0; j < e.t[i].n; j++) {
            const km_atom *a = &at[e.t[i].atoms[j]];
            if (e.t[i].atoms[j] == ax->tid)
                t = true;
            else if (e.t[i].atoms[j] == ax->bid)
                b = true;
            else if (a->kind == KM_ATOM_CONST && a->has_value)
                c *= a->value;
        }
        if (t && !b && !ct)
            ct = c;
        else if (b && !t && !cb)
            cb = c;
    }
    if (ct <= 0 || cb <= 0 || cb % ct || cb / ct < 2 || cb / ct > 1024)
        return 0;
    return cb / ct;
}

/* The coordinate's own atom: threadIdx.a when the block extends along a, else blockIdx.a. */
static uint32_t coord_atom(const sw_axis *ax)
{
    return ax->by_thread ? ax->tid : ax->bid;
}

/* Does guard g bound the coordinate from above by something no thread changes? */
static bool bounds_axis(const km_kernel *k, const km_guard *g, const sw_axis *ax)
{
    if (!g->op || (strcmp(g->op, "<") && strcmp(g->op, "<=")))
        return false;
    if (km_form_mentions_kind(k, g->rhs, KM_ATOM_THREAD_IDX, -1) ||
        km_form_mentions_kind(k, g->rhs, KM_ATOM_BLOCK_IDX, -1))
        return false;
    uint32_t c = coord_atom(ax);
    for (uint32_t i = 0; i < g->lhs.n; i++)
        if (g->lhs.t[i].n == 1 && g->lhs.t[i].atoms[0] == c && g->lhs.t[i].coef > 0)
            return true;
    return false;
}

/* One read site the window serves. */
typedef struct {
    uint32_t start, end;
    int buf;             /* index in the window's inputs */
    int row;             /* rows below the output (dy + radius after the radius is known) */
    int col;
} sw_site;

typedef struct {
    const char *name;    /* the parameter's, in the caller's analysis model */
    char type[64];
    sw_terms cols[SW_COLS_MAX];
    int n_cols;
} sw_input;

typedef struct {
    sw_axis ax;
    sw_input in[SW_BUFS_MAX];
    int n_in;
    sw_site sites[SW_SITES_MAX];
    int n_sites;
    int radius;
    bool cutoff;         /* some access has no bound on the coordinate: skip the virtual
                          * threads the launched grid does not hold */
    uint32_t cutoff_line;
    const char *class_name;   /* static (km_class_name) */
    uint32_t line;
} sw_plan;

/* The slow-axis stride S of element e (e = coordinate * S + rest), or false. */
static bool slow_stride(const km_kernel *k, km_form e, const sw_axis *ax, sw_terms *s)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    uint32_t c = coord_atom(ax);
    s->n = 0;
    for (uint32_t i = 0; i < e.n; i++) {
        if (count_atom(&e.t[i], true, c) != 1)
            continue;
        km_term r = {.coef = e.t[i].coef};
        r.n = strip(&e.t[i], &c, 1, r.atoms);
        for (uint32_t j = 0; j < r.n; j++) {
            enum km_atom_kind kd = at[r.atoms[j]].kind;
            if (kd != KM_ATOM_PARAM && kd != KM_ATOM_CONST)
                return false;
        }
        if (!terms_add(s, &r, 1))
            return false;
    }
    return s->n > 0;
}

/* d = dy * S + rest with rest free of S's products: dy (|dy| <= SW_RADIUS_MAX) and rest. */
static bool split_offset(const sw_terms *d, const sw_terms *s, int *dy, sw_terms *rest)
{
    bool s_const = true;
    int64_t sv = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->t[i].n)
            s_const = false;
        else
            sv = s->t[i].coef;
    }
    static const int order[] = {0, -1, 1, -2, 2, -3, 3, -4, 4};
    for (size_t o = 0; o < HK_ARRAY_LEN(order); o++) {
        sw_terms r = *d;
        bool ok = true;
        for (uint32_t i = 0; i < s->n && ok; i++)
            ok = terms_add(&r, &s->t[i], -order[o]);
        for (uint32_t i = 0; i < r.n && ok; i++) {
            if (s_const) {
                int64_t v = r.t[i].n ? 0 : r.t[i].coef;
                ok = !r.t[i].n && 2 * (v < 0 ? -v : v) < (sv < 0 ? -sv : sv);
            } else {
                for (uint32_t j = 0; j < s->n && ok; j++)
                    ok = !(s->t[j].n && same_atoms(&r.t[i], &s->t[j]));
            }
        }
        if (ok) {
            *dy = order[o];
            *rest = r;
            return true;
        }
    }
    return false;
}

/* Only scalar parameters and named constants in f: an offset no thread changes. */
static bool offset_atoms(const km_kernel *k, const sw_terms *d)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    for (uint32_t i = 0; i < d->n; i++)
        for (uint32_t j = 0; j < d->t[i].n; j++) {
            enum km_atom_kind kd = at[d->t[i].atoms[j]].kind;
            if (kd != KM_ATOM_PARAM && kd != KM_ATOM_CONST)
                return false;
        }
    return true;
}

/* d with every operation on named constants of known value (`MASK_DIM / 2`, an opaque atom
 * km_form_value works out) multiplied into its term's coefficient, so that
 * `(row - MASK_DIM / 2 + 1) * N` reads as row offset -1; plain names stay names (the slow
 * stride S is matched by name). False when o is full. */
static bool fold_ops(const km_kernel *k, const sw_terms *d, sw_terms *o)
{
    size_t na;
    const km_atom *at = km_atoms(k, &na);
    o->n = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        km_term r = {.coef = d->t[i].coef};
        for (uint32_t j = 0; j < d->t[i].n; j++) {
            uint32_t id = d->t[i].atoms[j];
            km_term one = {.coef = 1, .n = 1, .atoms = {id}};
            int64_t v;
            if (at[id].kind == KM_ATOM_OPAQUE && km_form_value(k, (km_form){&one, 1}, &v))
                r.coef *= v;
            else
                r.atoms[r.n++] = id;
        }
        if (!terms_add(o, &r, 1))
            return false;
    }
    return true;
}

static const km_param *param_named(const km_kernel *k, const char *name)
{
    size_t np;
    const km_param *ps = km_params(k, &np);
    for (size_t i = 0; i < np; i++)
        if (ps[i].name && !strcmp(ps[i].name, name))
            return &ps[i];
    return NULL;
}

/* Adds the site to the plan when it reads an input at the output's element plus a
 * constant offset; other reads stay plain loads. */
static void plan_site(const km_kernel *k, const an_function *f, const km_read_site *rs, km_form e,
                      const sw_terms *s, sw_plan *p)
{
    const km_param *kp = param_named(k, rs->buffer);
    const an_param *ap = rwp_param_by_name(f, rs->buffer);
    /* an array of arrays (`float A[N][M]`, `float (*A)[M]`): the model linearises A[i][j]
     * with the declared extents, and its element type is the window's; an array of pointers
     * (`float *A[N]`) is not one (its rows are opaque to the model: no offset) */
    bool rows = ap && ap->pointer_depth > 1 && ap->type && strchr(ap->type, '[') &&
                (!strchr(ap->type, '*') || strstr(ap->type, "(*"));
    if (rs->ambiguous || rs->n_loops || !kp || !kp->pointer || kp->written || !ap ||
        (ap->pointer_depth != 1 && !rows) || p->n_sites == SW_SITES_MAX)
        return;
    sw_terms raw = {.n = 0}, d, rest;
    int dy;
    if (!terms_add_form(&raw, rs->index, 1) || !terms_add_form(&raw, e, -1) || !fold_ops(k, &raw, &d) ||
        !offset_atoms(k, &d) ||
        !split_offset(&d, s, &dy, &rest))
        return;
    int b = 0;
    while (b < p->n_in && strcmp(p->in[b].name, rs->buffer))
        b++;
    if (b == p->n_in) {
        if (p->n_in == SW_BUFS_MAX)
            return;
        p->in[b].name = ap->name;   /* the caller's model: k's names die with plan_of */
        p->in[b].n_cols = 0;
        if (rows)
            snprintf(p->in[b].type, sizeof p->in[b].type, "%s", ap->elem_type ? ap->elem_type : "");
        else
            rwp_pointee_type(ap, p->in[b].type, sizeof p->in[b].type);
        if (!rwp_scalar_type(p->in[b].type))
            return;
        p->n_in++;
    }
    sw_input *in = &p->in[b];
    int c = 0;
    while (c < in->n_cols && !terms_equal(&in->cols[c], &rest))
        c++;
    if (c == in->n_cols) {
        if (c == SW_COLS_MAX)
            return;
        in->cols[in->n_cols++] = rest;
    }
    p->sites[p->n_sites++] = (sw_site){rs->start, rs->end, b, dy, c};
    if ((dy < 0 ? -dy : dy) > p->radius)
        p->radius = dy < 0 ? -dy : dy;
}

static bool is_window_class(enum km_class_kind kd)
{
    return kd == KM_CLASS_STENCIL || kd == KM_CLASS_CONVOLUTION || kd == KM_CLASS_POOLING;
}

/* The model's half of applicability: the plan, or the reason (with its line) in why. */
static int plan_of(const char *text, size_t len, const an_function *f, sw_plan *p, char *why,
                   size_t n)
{
    km_kernel *k = NULL;
    km_class c;
    memset(p, 0, sizeof *p);
    int rc = rw_model_classify(text, len, f->name, &k, &c, why, n);
    if (rc || !k)
        return rc;
    size_t na, ng, nsites;
    const km_access *as = km_accesses(k, &na);
    const km_guard *gs = km_guards(k, &ng);
    const km_read_site *rs = km_read_sites(k, &nsites);
    if (!is_window_class(c.kind)) {
        if (is_window_class(c.near))
            snprintf(why, n, "line %u: %s", c.why_line, c.why);
        else
            snprintf(why, n, EN(RW_ST_MODEL_CLASS),
                     km_class_name(c.kind));
        goto out;
    }
    p->class_name = km_class_name(c.kind);
    p->line = c.line;
    for (size_t i = 0; i < na; i++)
        for (uint32_t j = 0; j < c.n_in; j++)
            if (as[i].mode == KM_READ && strcmp(as[i].buffer, c.in[j]) == 0 &&
                km_form_mentions_kind(k, as[i].index, KM_ATOM_READ, -1)) {
                /* RoIPool's bins: where the window lies is data */
                snprintf(why, n, EN(RW_ST_WINDOW_FROM_MEMORY), as[i].line, as[i].buffer);
                goto out;
            }
    if (km_barriers(k)) {
        snprintf(why, n, EN(RW_ST_SYNCTHREADS));
        goto out;
    }
    for (size_t i = 0; i < na; i++)
        if (as[i].space == KM_SPACE_SHARED) {
            snprintf(why, n, EN(RW_ST_SHARED), as[i].line, as[i].buffer);
            goto out;
        }
    const km_access *w = c.out ? km_output_map(k, c.out) : NULL;
    if (!w) {
        snprintf(why, n, EN(RW_ST_NO_WRITE), c.line);
        goto out;
    }
    int a = 2;
    while (a > 0 && !(axis_atoms(k, a, &p->ax) &&
                      (km_form_mentions(k, w->element, p->ax.tid) && p->ax.has_tid ?
                           true : p->ax.has_bid && km_form_mentions(k, w->element, p->ax.bid))))
        a--;
    if (a == 0) {
        snprintf(why, n, EN(RW_ST_X_ONLY), w->line);
        goto out;
    }
    p->ax.by_thread = p->ax.has_tid && km_form_mentions(k, w->element, p->ax.tid);
    const char *an = axis_names[a];
    /* blockIdx * TILE + threadIdx: checked as that spelling throughout */
    p->ax.tile = p->ax.by_thread ? element_tile(k, w->element, &p->ax) : 0;
    if (p->ax.tile) {
        for (size_t i = 0; i < na; i++)
            if (!only_tiled(k, as[i].index, &p->ax) || !only_tiled(k, as[i].value, &p->ax)) {
                snprintf(why, n, EN(RW_ST_ACCESS_INDEX),
                         as[i].line, as[i].buffer, an, an, an, an, an, an);
                goto out;
            }
        for (size_t i = 0; i < ng; i++)
            if (!only_tiled(k, gs[i].lhs, &p->ax) || !only_tiled(k, gs[i].rhs, &p->ax)) {
                snprintf(why, n, EN(RW_ST_COND_INDEX), gs[i].line, an,
                         an, an, an);
                goto out;
            }
    } else if (p->ax.by_thread) {
        for (size_t i = 0; i < na; i++)
            if (!only_global(k, as[i].index, &p->ax) || !only_global(k, as[i].value, &p->ax)) {
                snprintf(why, n, EN(RW_ST_ACCESS_INDEX),
                         as[i].line, as[i].buffer, an, an, an, an, an, an);
                goto out;
            }
        for (size_t i = 0; i < ng; i++)
            if (!only_global(k, gs[i].lhs, &p->ax) || !only_global(k, gs[i].rhs, &p->ax)) {
                snprintf(why, n, EN(RW_ST_COND_INDEX), gs[i].line, an,
                         an, an, an);
                goto out;
            }
    }
    for (size_t i = 0; i < na; i++) {
        if (as[i].space != KM_SPACE_GLOBAL)
            continue;
        bool bounded = false;
        for (uint32_t g = 0; g < as[i].n_guards && !bounded; g++)
            bounded = bounds_axis(k, &gs[as[i].guards[g]], &p->ax);
        /* no bound: the virtual threads past the launched grid are skipped instead, which
         * ties the result to the spec's grid (it can no longer shrink) */
        if (!bounded && !p->cutoff) {
            p->cutoff = true;
            p->cutoff_line = as[i].line;
        }
    }
    sw_terms s;
    if (!slow_stride(k, w->element, &p->ax, &s)) {
        snprintf(why, n, EN(RW_ST_ELEMENT_FORM), w->line, an);
        goto out;
    }
    for (size_t i = 0; i < nsites; i++)
        plan_site(k, f, &rs[i], w->element, &s, p);
    bool reuse = false;
    for (int i = 0; i < p->n_sites && !reuse; i++)
        for (int j = 0; j < p->n_sites && !reuse; j++)
            reuse = p->sites[i].buf == p->sites[j].buf && p->sites[i].col == p->sites[j].col &&
                    p->sites[i].row != p->sites[j].row;
    if (!reuse) {
        bool loop = false;
        for (size_t i = 0; i < nsites; i++)
            if (rs[i].n_loops)
                loop = true;
        snprintf(why, n, loop ? EN(RW_ST_NO_OFFSETS_LOOP) : EN(RW_ST_NO_OFFSETS), w->line, an);
        goto out;
    }
    for (int i = 0; i < p->n_sites; i++)
        p->sites[i].row += p->radius;
out:
    km_free(k);
    return rc;
}

/* ---- the text's half: what the model followed that a token edit of the body cannot see */

static const char *const builtins[] = {"threadIdx", "blockIdx", "blockDim", "gridDim",
                                       "hipThreadIdx", "hipBlockIdx", "hipBlockDim", "hipGridDim",
                                       NULL};

static bool mentions_builtin(const char *s, size_t n)
{
    for (size_t i = 0; builtins[i]; i++) {
        size_t l = strlen(builtins[i]);
        for (size_t j = 0; j + l <= n; j++)
            if (!memcmp(s + j, builtins[i], l))
                return true;
    }
    return false;
}

/* The first body token naming a macro or __device__ function whose text spells a thread
 * builtin: the body's coordinate would then not be the one the edit changes. */
static const char *hidden_builtin(const char *text, size_t len, const an_model *m,
                                  const rw_toks *ts, size_t *at)
{
    static char name[128];
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e += text[e] == '\\' && e + 1 < len ? 2 : 1;
        size_t p = i;
        while (p < e && (text[p] == ' ' || text[p] == '\t'))
            p++;
        if (p < e && text[p] == '#') {
            p++;
            while (p < e && (text[p] == ' ' || text[p] == '\t'))
                p++;
            if (e - p > 7 && !strncmp(text + p, "define", 6) && mentions_builtin(text + p, e - p)) {
                p += 6;
                while (p < e && (text[p] == ' ' || text[p] == '\t'))
                    p++;
                size_t q = p;
                while (q < e && (text[q] == '_' || isalnum((unsigned char)text[q])))
                    q++;
                snprintf(name, sizeof name, "%.*s", (int)(q - p), text + p);
                for (size_t k = 0; name[0] && k < ts->n; k++)
                    if (rwl_tok_is(ts, k, name)) {
                        *at = ts->t[k].start;
                        return name;
                    }
            }
        }
        i = e + 1;
    }
    for (size_t fi = 0; fi < m->n_funcs; fi++) {
        const an_function *g = &m->funcs[fi];
        if (g->kind != AN_DEVICE_FUNC ||
            !mentions_builtin(text + g->body_span.start_byte,
                              g->body_span.end_byte - g->body_span.start_byte))
            continue;
        for (size_t k = 0; k < ts->n; k++)
            if (rwl_tok_is(ts, k, g->name)) {
                *at = ts->t[k].start;
                snprintf(name, sizeof name, "%s", g->name);
                return name;
            }
    }
    return NULL;
}

/* ---- the emitter ---- */

/* The replacement of builtin tokens ts[i..] that make the virtual thread hk_k, or NULL;
 * *used gets the tokens it covers. */
static const char *virtual_builtin(const rw_toks *ts, size_t i, const sw_axis *ax, bool cutoff,
                                   int kk, char *buf, size_t n, size_t *used)
{
    const char *an = axis_names[ax->axis];
    char hip[32];
    *used = 0;
    static const char *const cuda[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
    static const char *const hipn[] = {"hipThreadIdx_", "hipBlockIdx_", "hipBlockDim_", "hipGridDim_"};
    for (int b = 0; b < 4; b++) {
        char word[48];
        if (rwl_tok_is(ts, i, cuda[b]) && rwl_tok_is(ts, i + 1, ".") && rwl_tok_is(ts, i + 2, an)) {
            snprintf(word, sizeof word, "%s.%s", cuda[b], an);
            *used = 3;
        } else if (snprintf(hip, sizeof hip, "%s%s", hipn[b], an), rwl_tok_is(ts, i, hip)) {
            snprintf(word, sizeof word, "%s", hip);
            *used = 1;
        } else {
            continue;
        }
        /* by thread: threadIdx -> threadIdx*K+k, blockDim -> blockDim*K;
         * by block:  blockIdx  -> blockIdx*K+k,  gridDim  -> gridDim*K;
         * tiled:     threadIdx -> threadIdx*K+k, blockIdx -> blockIdx*K (blockIdx*TILE*K:
         *            a block of TILE threads covers TILE*K rows) */
        bool index = ax->by_thread ? b == 0 : b == 1,
             extent = ax->by_thread ? b == 2 : b == 3 && !cutoff;
        if (ax->tile && b == 1)
            snprintf(buf, n, "(%s * %d)", word, kk);
        else if (index)
            snprintf(buf, n, "(%s * %d + hk_k)", word, kk);
        else if (extent)
            snprintf(buf, n, "(%s * %d)", word, kk);
        else
            snprintf(buf, n, "%s", word);
        return buf;
    }
    return NULL;
}

static int emit_window_body(const char *text, const rw_toks *ts, size_t first, size_t last,
                            const sw_plan *p, int kk, bool returns, bool hip, struct hk_buf *b)
{
    int rows = kk + 2 * p->radius;
    int rc = hk_buf_printf(b, "{\n    // hk rewrite: stencil_window: each thread computes %d outputs " /* i18n: not for people */
                           "along %s (virtual thread hk_k of a %s %d times %s), every input "
                           "element read once into registers\n", kk, axis_names[p->ax.axis],
                           p->ax.by_thread ? "block" : "grid", kk,
                           p->ax.by_thread ? "taller" : "longer");
    for (int i = 0; !rc && i < p->n_in; i++)
        rc = hk_buf_printf(b, "    %s hk_win_%s[%d][%d];\n    bool hk_has_%s[%d][%d] = {};\n",
                           p->in[i].type, p->in[i].name, rows, p->in[i].n_cols, p->in[i].name, rows,
                           p->in[i].n_cols);
    const char *an = axis_names[p->ax.axis];
    /* the tiled spelling is the global index only for blocks of TILE along the axis: any
     * other block fails loudly rather than computing other rows (the spec's block is); HIP
     * has no __trap, its device abort() ends the launch. The target is chosen here, not by
     * an #if in the text: the referee refuses a conditional directive the baseline does not
     * have (host_code), which rejected every tiled window on the H100 in session 48 */
    if (!rc && p->ax.tile)
        rc = hk_buf_printf(b, "    if (blockDim.%s != %lld) {   // written for blockIdx.%s * %lld + " /* i18n: not for people */
                           "threadIdx.%s: blocks of %lld along %s\n        %s;\n    }\n",
                           an, (long long)p->ax.tile, an, (long long)p->ax.tile, an, (long long)p->ax.tile, an,
                           hip ? "abort()" : "__trap()");
    if (!rc)
        rc = hk_buf_printf(b, "#pragma unroll\n    for (int hk_k = 0; hk_k < %d; hk_k++) {\n", kk); /* i18n: not for people */
    if (!rc && p->cutoff && p->ax.by_thread)
        rc = hk_buf_printf(b, "        if ((blockIdx.%s * blockDim.%s + threadIdx.%s) * %d + hk_k >= " /* i18n: not for people */
                           "gridDim.%s * blockDim.%s)\n            break;   // past the launched grid\n",
                           an, an, an, kk, an, an);
    else if (!rc && p->cutoff)
        rc = hk_buf_printf(b, "        if (blockIdx.%s * %d + hk_k >= gridDim.%s)\n            break;   " /* i18n: not for people */
                           "// past the launched grid\n", an, kk, an);
    /* the original body, token by token, the text between tokens kept as it was */
    const sw_site *open = NULL;
    int open_row = 0, open_col = 0;
    uint32_t at = ts->t[first].start;
    for (size_t i = first; !rc && i <= last; i++) {
        if ((rc = hk_buf_append(b, text + at, ts->t[i].start - at)))
            break;
        for (int s = 0; !open && s < p->n_sites; s++)
            if (p->sites[s].start == ts->t[i].start) {
                open = &p->sites[s];
                const char *nm = p->in[open->buf].name;
                /* (has ? win : ((has |= true) ? (win = READ) : win)): no comma operator,
                 * which the grammar misreads inside a conditional */
                rc = hk_buf_printf(b, "(hk_has_%s[hk_k + %d][%d] ? hk_win_%s[hk_k + %d][%d] : "
                                   "((hk_has_%s[hk_k + %d][%d] |= true) ? (hk_win_%s[hk_k + %d][%d] = ",
                                   nm, open->row, open->col, nm, open->row, open->col, nm,
                                   open->row, open->col, nm, open->row, open->col);
                open_row = open->row;
                open_col = open->col;
            }
        char rep[96];
        size_t used = 0;
        const char *v = rc ? NULL : virtual_builtin(ts, i, &p->ax, p->cutoff, kk, rep, sizeof rep, &used);
        if (v) {
            rc = hk_buf_appends(b, v);
            i += used - 1;
        } else if (!rc && returns && rwl_tok_is(ts, i, "return")) {
            rc = hk_buf_appends(b, "goto hk_stencil_next");
        } else if (!rc) {
            rc = hk_buf_append(b, text + ts->t[i].start, ts->t[i].end - ts->t[i].start);
        }
        at = ts->t[i].end;
        if (!rc && open && ts->t[i].end == open->end) {
            rc = hk_buf_printf(b, ") : hk_win_%s[hk_k + %d][%d]))", p->in[open->buf].name,
                               open_row, open_col);
            open = NULL;
        }
    }
    if (!rc)
        rc = hk_buf_printf(b, "%s    }\n}", returns ? "\n    hk_stencil_next:;\n" : "\n");
    return rc;
}

static int window_of(const char *text, size_t len, const an_model *m, size_t kernel, int kk, bool hip,
                     rw_result *out)
{
    static const char *const name = "stencil window";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (kk < 2 || kk > 16)
        return HK_EINVAL;
    rw_toks ts = {0};
    struct hk_buf b;
    hk_buf_init(&b, 1u << 20);
    sw_plan *p = hk_calloc(1, sizeof *p);
    char why[768];
    if (!p) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = plan_of(text, len, f, p, why, sizeof why)))
        goto out;
    if (why[0]) {
        rc = rwp_not_applicable(out, name, f, why);
        goto out;
    }
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    size_t at = 0;
    const char *hidden = hidden_builtin(text, len, m, &ts, &at);
    if (hidden) {
        int line = 1;
        for (size_t i = 0; i < at; i++)
            line += text[i] == '\n';
        snprintf(why, sizeof why, EN(RW_ST_OUT_OF_SIGHT), line, hidden);
        rc = rwp_not_applicable(out, name, f, why);
        goto out;
    }
    if (ts.n < 3) {
        rc = rwp_not_applicable(out, name, f, EN(RW_ST_EMPTY));
        goto out;
    }
    bool returns = false;
    for (size_t i = 1; i + 1 < ts.n; i++)
        returns |= rwl_tok_is(&ts, i, "return");
    /* the body between its braces: tokens 1 .. n-2 */
    if ((rc = emit_window_body(text, &ts, 0, ts.n - 1, p, kk, returns, hip, &b)))
        goto out;
    int ncols = 0;
    for (int i = 0; i < p->n_in; i++)
        ncols += p->in[i].n_cols;
    /* one sentence with the spec's grid kept, one with the grid that may shrink */
    char *desc = p->cutoff ? hk_asprintf(EN(RW_ST_DESC_KEEP_GRID), f->name, p->class_name, kk, axis_names[p->ax.axis],
                                         kk, p->radius, p->n_in, kk + 2 * p->radius, ncols, p->cutoff_line,
                                         axis_names[p->ax.axis])
                           : hk_asprintf(EN(RW_ST_DESC_SHRINK), f->name, p->class_name, kk, axis_names[p->ax.axis],
                                         kk, p->radius, p->n_in, kk + 2 * p->radius, ncols, axis_names[p->ax.axis],
                                         kk);
    if (!desc) {
        rc = HK_ENOMEM;
        goto out;
    }
    rc = rwp_replace_body(text, len, m, f, b.data, desc, out);
    /* the gain needs the grid divided along the axis; a cut-off body is exact only under
     * the launched grid, so it asks for none */
    if (rc == HK_OK && out->applicable && !p->cutoff) {
        out->grid_divisor = (unsigned)kk;
        out->grid_axis = (unsigned)p->ax.axis;
    }
out:
    hk_free(p);
    hk_buf_free(&b);
    rwl_toks_free(&ts);
    return rc;
}

/* ---- filter loops ----
 * A convolution written with loops over its filter (`for (int i = -R; i <= R; i++) for
 * (int j ...) s += in[(y + i) * w + x + j] * mask[...]`) reads at offsets the plan cannot
 * see through the loops. When their trip counts are constants the kernel model evaluates
 * (literals, #defines, constexprs), the loops are unrolled in the text first: one copy of
 * the body per value of the counter, each in braces, the counter replaced by its value.
 * The plan then sees the offsets. Only loops that declare their counter, step it by one
 * and hold no break, continue, return or goto, at most SW_UNROLL_TRIP iterations each and
 * SW_UNROLL_COPIES copies of the innermost body in all. */
#define SW_UNROLL_TRIP 16
#define SW_UNROLL_COPIES 81
#define SW_UNROLL_PASSES 4

/* The km loop of the `for` at token k (line line, counter var), or NULL. */
static const km_loop *loop_at(const km_loop *loops, size_t nl, uint32_t line, const char *var)
{
    for (size_t i = 0; i < nl; i++)
        if (loops[i].line == line && loops[i].var && !strcmp(loops[i].var, var))
            return &loops[i];
    return NULL;
}

/* Is "item" one of the ", "-separated items of what? */
static bool listed(const struct hk_buf *what, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = what->len ? what->data : NULL; p; p = strstr(p, ", "), p = p ? p + 2 : NULL)
        if (!strncmp(p, item, n) && (p[n] == '\0' || p[n] == ','))
            return true;
    return false;
}

/* One pass over kernel's body in text: unrolls the outermost loops that qualify. *out the
 * new text (NULL when nothing qualified); *copies multiplied by the largest trip unrolled.
 * The loops one pass unrolls lie side by side (the copies of one inner loop that the pass
 * before made, or separate nests), none inside another: each multiplies only its own part of
 * the body, so the copies of the innermost body grow by the largest trip, not by the
 * product of them all (a 5 x 5 filter is 25 copies, unrolled as i, then the five copies of
 * the j loop). */
static int unroll_pass(const char *text, size_t len, const char *kernel, char **out, size_t *out_len,
                       long *copies, struct hk_buf *what)
{
    *out = NULL;
    an_model *m = NULL;
    km_kernel *k = NULL;
    rw_toks ts = {0};
    rw_edits es = {0};
    struct hk_buf b;
    hk_buf_init(&b, 4096);
    int rc = an_analyze(text, len, &m);
    if (rc)
        goto out;
    long fi = an_model_find_kernel(m, kernel);
    if (fi < 0 || (rc = km_build(text, len, kernel, &k, NULL, 0))) {
        rc = rc == HK_ENOMEM ? rc : HK_OK;
        goto out;
    }
    const an_function *f = &m->funcs[fi];
    if ((rc = rwl_lex(text, f->body_span.start_byte, f->body_span.end_byte, &ts)))
        goto out;
    size_t nl = 0;
    const km_loop *loops = km_loops(k, &nl);
    uint32_t line = 1;
    size_t line_at = 0;
    long base = *copies, grow = 1;
    for (size_t t = 0; t < ts.n && !rc; t++) {
        if (!rwl_tok_is(&ts, t, "for") || !rwl_tok_is(&ts, t + 1, "("))
            continue;
        for (; line_at < ts.t[t].start; line_at++)
            line += text[line_at] == '\n';
        size_t hc = rwl_match_close(&ts, t + 1);
        if (hc >= ts.n)
            break;
        size_t fend = rwl_stmt_end(&ts, hc + 1, ts.n);
        /* `for (TYPE VAR = ...`: the counter is declared here */
        size_t eq = t + 2;
        while (eq < hc && !rwl_tok_is(&ts, eq, "=") && !rwl_tok_is(&ts, eq, ";"))
            eq++;
        char var[64] = "";
        if (eq < hc && rwl_tok_is(&ts, eq, "=") && eq >= t + 4 && rwl_is_type_word(&ts, eq - 2) &&
            ts.t[eq - 1].end - ts.t[eq - 1].start < sizeof var)
            snprintf(var, sizeof var, "%.*s", (int)(ts.t[eq - 1].end - ts.t[eq - 1].start),
                     text + ts.t[eq - 1].start);
        const km_loop *lp = var[0] ? loop_at(loops, nl, line, var) : NULL;
        int64_t trip = 0, start = 0, step = 0;
        bool ok = lp && lp->kind == KM_LOOP_AFFINE && lp->has_trip && km_form_value(k, lp->trip, &trip) &&
                  km_form_value(k, lp->start, &start) && km_form_value(k, lp->step, &step) && step == 1 &&
                  trip >= 1 && trip <= SW_UNROLL_TRIP && base * trip <= SW_UNROLL_COPIES;
        for (size_t q = hc + 1; q < fend && ok; q++) {
            ok = !rwl_tok_is(&ts, q, "break") && !rwl_tok_is(&ts, q, "continue") &&
                 !rwl_tok_is(&ts, q, "return") && !rwl_tok_is(&ts, q, "goto");
            if (ok && rwl_is_use(&ts, q) && rwl_tok_is(&ts, q, var))
                ok = !rwl_scalar_written(&ts, q);
        }
        if (!ok)
            continue;   /* an inner loop may still qualify */
        hk_buf_reset(&b);
        rc = hk_buf_printf(&b, "{ /* hk: the loop over %s = %lld..%lld, unrolled */\n", var, /* i18n: not for people */
                           (long long)start, (long long)(start + trip - 1));
        for (int64_t v = start; !rc && v < start + trip; v++) {
            rc = hk_buf_appends(&b, "{ ");
            uint32_t prev = ts.t[hc + 1].start;
            for (size_t q = hc + 1; q < fend && !rc; q++) {
                if (!rwl_is_use(&ts, q) || !rwl_tok_is(&ts, q, var))
                    continue;
                rc = hk_buf_printf(&b, "%.*s(%lld)", (int)(ts.t[q].start - prev), text + prev, (long long)v);
                prev = ts.t[q].end;
            }
            if (!rc)
                rc = hk_buf_printf(&b, "%.*s }\n", (int)(ts.t[fend - 1].end - prev), text + prev);
        }
        if (!rc)
            rc = hk_buf_appends(&b, "}");
        /* a `#pragma unroll` right before the loop goes with it: before a block it is only
         * a warning (nvcc #20058-D) */
        uint32_t from = ts.t[t].start;
        if (t > 0) {
            const char *gap = text + ts.t[t - 1].end, *pr = NULL;
            for (const char *q = gap; q < text + ts.t[t].start; q++)
                if (!strncmp(q, "#pragma", 7))
                    pr = q;
            const char *w = pr ? pr + 7 : NULL;
            while (w && (*w == ' ' || *w == '\t'))
                w++;
            if (w && !strncmp(w, "unroll", 6))
                from = (uint32_t)(pr - text);
        }
        if (!rc)
            rc = rwl_edits_add(&es, from, ts.t[fend - 1].end, b.data);
        char item[96];
        snprintf(item, sizeof item, "%s (%lld)", var, (long long)trip);
        if (!rc && !listed(what, item))
            rc = hk_buf_printf(what, "%s%s", what->len ? ", " : "", item);
        if (trip > grow)
            grow = trip;
        t = fend - 1;   /* its inner loops: next pass, on the unrolled text */
    }
    *copies = base * grow;
    if (!rc && es.n)
        rc = rwl_edits_apply(text, len, &es, out, out_len);
out:
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    hk_buf_free(&b);
    km_free(k);
    an_model_free(m);
    return rc;
}

/* The text with kernel's filter loops unrolled (above); *out NULL when none qualified. */
static int unroll_filter_loops(const char *text, size_t len, const char *kernel, char **out,
                               size_t *out_len, struct hk_buf *what)
{
    *out = NULL;
    char *cur = NULL;
    size_t cur_len = len;
    long copies = 1;
    int rc = HK_OK;
    for (int pass = 0; pass < SW_UNROLL_PASSES && !rc; pass++) {
        char *next = NULL;
        size_t next_len = 0;
        rc = unroll_pass(cur ? cur : text, cur ? cur_len : len, kernel, &next, &next_len, &copies, what);
        if (rc || !next)
            break;
        hk_free(cur);
        cur = next;
        cur_len = next_len;
    }
    if (rc) {
        hk_free(cur);
        return rc;
    }
    *out = cur;
    *out_len = cur_len;
    return HK_OK;
}

int rw_stencil_window(const char *text, size_t len, const an_model *m, size_t kernel, int kk,
                      rw_result *out)
{
    return rw_stencil_window_for(text, len, m, kernel, kk, false, out);
}

int rw_stencil_window_for(const char *text, size_t len, const an_model *m, size_t kernel, int kk,
                          bool hip, rw_result *out)
{
    int rc = window_of(text, len, m, kernel, kk, hip, out);
    if (rc || out->applicable)
        return rc;
    /* refused: with the filter loops unrolled, the offsets may be in sight */
    const an_function *f = &m->funcs[kernel];
    char *un = NULL;
    size_t un_len = 0;
    an_model *m2 = NULL;
    rw_result r2;
    memset(&r2, 0, sizeof r2);
    struct hk_buf what;
    hk_buf_init(&what, 128);
    if ((rc = unroll_filter_loops(text, len, f->name, &un, &un_len, &what)) || !un)
        goto out;
    if ((rc = an_analyze(un, un_len, &m2)))
        goto out;
    long k2 = an_model_find_kernel(m2, f->name);
    if (k2 < 0 || (rc = window_of(un, un_len, m2, (size_t)k2, kk, hip, &r2)))
        goto out;
    if (r2.applicable) {
        if ((rc = rw_result_adopt(out, &r2, hk_asprintf(EN(RW_ST_UNROLLED_FIRST),
                                                        r2.description, what.data))))
            goto out;
    } else if (r2.description) {   /* what still stops it, once unrolled */
        char *d = hk_asprintf(EN(RW_ST_UNROLLED_WITH), out->description,
                              what.data, r2.description);
        if (!d) {
            rc = HK_ENOMEM;
            goto out;
        }
        hk_free(out->description);
        out->description = d;
    }
out:
    rw_result_free(&r2);
    an_model_free(m2);
    hk_free(un);
    hk_buf_free(&what);
    if (rc == HK_ENOMEM) {
        rw_result_free(out);
        memset(out, 0, sizeof *out);
    }
    return rc == HK_ENOMEM ? rc : HK_OK;
}

/* ---- registry descriptor (registry.h) ---- */
static const rw_param stencil_window_params[] = {
    {.name = "outputs_per_thread", .type = RW_PARAM_ENUM, .values = {2, 4, 8, 16}, .n_values = 4,
     .def = 8},
};

static int emit_stencil_window(const rw_context *c, const int *p, rw_result *out)
{
    return rw_stencil_window_for(c->text, c->len, c->m, c->kernel, p[0], c->hip, out);
}

const rw_descriptor rw_stencil_window_desc = {
    .name = "stencil_window",
    .summary = "a stencil computes K outputs per thread along its slowest axis from a register " /* i18n: not for people */
               "window",
    .params = stencil_window_params,
    .n_params = HK_ARRAY_LEN(stencil_window_params),
    .flags = RW_ALGORITHM,
    .emit = emit_stencil_window,
};

/* ---- stencil_tile_1d (issue 13): a 1-D stencil's window from a per-block shared tile ----
 *
 * The form: the body is `T i = blockIdx.x * blockDim.x + threadIdx.x;` (any order of the
 * sum and product) and one `if (GUARD) BODY`, nothing else; GUARD is comparisons of i with
 * bounds free of i (names, numbers, arithmetic, casts: no memory, no calls) joined by &&,
 * one of them i >= L (or i > L - 1) with L a number or a macro of one no smaller than the
 * radius; every read of the input IN (a pointer parameter never written) is IN[i + v] or
 * IN[v + i] in a loop `for (int v = -R; v <= R; v++)` at the top of BODY whose body holds no
 * control flow, no calls but pure math, and no memory writes, the read outside every operand
 * of ?:, && and ||; nothing before the loops of the largest R leaves or loops or calls, and no
 * memory is written before the last such loop ends.
 *
 * The rewrite: before the if, every thread evaluates GUARD (the same expression, the same
 * types, at the same point: its operands are not written in between); the block's active
 * threads are an interval [lo, hi] of threadIdx.x (each conjunct is monotone in i, and i is
 * blockIdx.x * blockDim.x + threadIdx.x without wrap while the block's last index + R is
 * below 2^31, which the block checks); the block loads IN[base + lo - R .. base + hi + R]
 * into a shared tile (exactly the elements its active threads read, each once, coalesced),
 * synchronises, and each read IN[i + v] becomes tile[threadIdx.x + R + v]. Blocks of more than
 * one row (blockDim.y or .z > 1) and blocks past 2^31 - R take the original reads (a uniform
 * flag). Why exact: every thread reads in the original what the tile holds, IN is never
 * written by the kernel, and each thread's writes come after all its reads (a write by
 * another thread to an aliased element races in the original too). The barriers are reached
 * by every thread: they stand before the if, at the body's top level. */

#define T1_R_MAX 16
#define T1_TILE_B 1024

/* The value of a number token or of a macro whose text is one number (0 when neither). */
static long t1_const(const char *text, size_t len, const rw_toks *ts, size_t k)
{
    if (ts->t[k].kind == T_NUMBER) {
        char *e;
        long v = strtol(text + ts->t[k].start, &e, 10);
        return e == text + ts->t[k].end ? v : 0;
    }
    if (ts->t[k].kind != T_IDENT)
        return 0;
    size_t at = 0, a, b;
    const char *nm = text + ts->t[k].start;
    size_t nl = ts->t[k].end - ts->t[k].start;
    if (!rwl_next_define(text, len, &at, nm, nl, &a, &b))
        return 0;
    const char *p = text + a + nl;
    while (p < text + b && (*p == ' ' || *p == '\t'))
        p++;
    char *e;
    long v = strtol(p, &e, 10);
    if (e == p)
        return 0;
    while (e < text + b && isspace((unsigned char)*e))
        e++;
    return e == text + b ? v : 0;
}

/* Is [a, b) a bound free of the index: numbers, names (not idx, not called), arithmetic, casts? */
static bool t1_bound(const char *text, size_t len, const rw_toks *ts, size_t a, size_t b, size_t idx)
{
    static const char *const ok[] = {"+", "-", "*", "/", "%", "(", ")"};
    if (a >= b)
        return false;
    for (size_t q = a; q < b; q++) {
        if (ts->t[q].kind == T_NUMBER)
            continue;
        if (ts->t[q].kind == T_IDENT) {
            if (rwl_same_tok(ts, q, idx) || rwl_tok_is_ident(ts, q, "sizeof"))
                return false;
            if (q + 1 < b && rwl_tok_is(ts, q + 1, "(") && !rwl_is_type_word(ts, q))
                return false;
            /* a macro: only one whose text is a number (another could hide the index) */
            size_t at = 0, ma, mb;
            if (rwl_next_define(text, len, &at, text + ts->t[q].start, ts->t[q].end - ts->t[q].start, &ma, &mb) &&
                t1_const(text, len, ts, q) == 0)
                return false;
            continue;
        }
        bool good = false;
        for (size_t i = 0; i < HK_ARRAY_LEN(ok) && !good; i++)
            good = rwl_tok_is(ts, q, ok[i]);
        if (!good || (rwl_tok_is(ts, q, "*") && rwl_unary_position(ts, q)))
            return false;
    }
    return true;
}

/* Is token k outside every operand of ?:, && and || in [a, b)? */
static bool t1_unconditional(const rw_toks *ts, size_t a, size_t b, size_t k)
{
    for (size_t q = a; q < b; q++) {
        if (!(rwl_tok_is(ts, q, "?") || rwl_tok_is(ts, q, "&&") || rwl_tok_is(ts, q, "||")))
            continue;
        /* q's innermost group: the nearest unmatched ( or [ before it */
        int depth = 0;
        size_t open = a;
        bool grouped = false;
        for (size_t p = q; p-- > a;) {
            if (rwl_tok_is(ts, p, ")") || rwl_tok_is(ts, p, "]"))
                depth++;
            else if (rwl_tok_is(ts, p, "(") || rwl_tok_is(ts, p, "[")) {
                if (depth-- == 0) {
                    open = p;
                    grouped = true;
                    break;
                }
            }
        }
        if (!grouped)
            return false;   /* at the statement's level: the whole statement is conditional */
        size_t close = rwl_match_close(ts, open);
        if (open < k && k < close)
            return false;
    }
    return true;
}

typedef struct {
    size_t a, b;     /* the loop statement */
    size_t var;      /* the loop variable's declaration */
    long r;
} t1_loop;

/* Is [q, ...) `for (int v = -R; v <= R; v++)` (++v, v += 1)? Its variable and R. */
static bool t1_tap_header(const char *text, size_t len, const rw_toks *ts, size_t q, size_t end,
                          t1_loop *l)
{
    if (!rwl_tok_is_ident(ts, q, "for") || !rwl_tok_is(ts, q + 1, "("))
        return false;
    size_t close = rwl_match_close(ts, q + 1);
    if (close >= end)
        return false;
    size_t p = q + 2;
    if (!rwl_tok_is_ident(ts, p, "int"))
        return false;
    size_t v = p + 1;
    if (ts->t[v].kind != T_IDENT || !rwl_tok_is(ts, v + 1, "=") || !rwl_tok_is(ts, v + 2, "-"))
        return false;
    long r = t1_const(text, len, ts, v + 3);
    if (r < 1 || r > T1_R_MAX || !rwl_tok_is(ts, v + 4, ";") || !rwl_same_tok(ts, v + 5, v) ||
        !rwl_tok_is(ts, v + 6, "<=") || t1_const(text, len, ts, v + 7) != r ||
        !rwl_tok_is(ts, v + 8, ";"))
        return false;
    size_t s = v + 9;
    bool step = (rwl_same_tok(ts, s, v) && rwl_tok_is(ts, s + 1, "++") && s + 2 == close) ||
                (rwl_tok_is(ts, s, "++") && rwl_same_tok(ts, s + 1, v) && s + 2 == close) ||
                (rwl_same_tok(ts, s, v) && rwl_tok_is(ts, s + 1, "+=") && rwl_tok_is(ts, s + 2, "1") &&
                 s + 3 == close);
    if (!step)
        return false;
    l->a = q;
    l->b = rwl_stmt_end(ts, q, end);
    l->var = v;
    l->r = r;
    return true;
}

static const char *const t1_banned[] = {"if", "for", "while", "do", "switch", "break", "continue",
                                        "return", "goto", "asm", "__syncthreads", "__shared__",
                                        "__syncwarp", "throw"};

static const char *t1_banned_in(const rw_toks *ts, size_t a, size_t b, size_t *at)
{
    for (size_t q = a; q < b; q++)
        for (size_t i = 0; i < HK_ARRAY_LEN(t1_banned); i++)
            if (rwl_tok_is_ident(ts, q, t1_banned[i])) {
                *at = q;
                return t1_banned[i];
            }
    return NULL;
}

/* A call in [a, b) that is not pure math or a cast (its token, or b). */
static size_t t1_call_in(const rw_toks *ts, size_t a, size_t b)
{
    for (size_t q = a; q + 1 < b; q++)
        if (ts->t[q].kind == T_IDENT && rwl_tok_is(ts, q + 1, "(") && !rwl_is_type_word(ts, q) &&
            !rwl_pure_call_name(ts, q))
            return q;
    return b;
}

static int rw_stencil_tile_1d(const char *text, size_t len, const an_model *m, size_t kernel,
                              rw_result *out)
{
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    rw_toks ts = {0};
    rw_edits es = {0};
    char why[512] = "";
    char *gtext = NULL, *ety = NULL;
    t1_loop loops[8];
    size_t nloops = 0;
    uint32_t bs = f->body_span.start_byte, be = f->body_span.end_byte;
    if ((rc = rwl_lex(text, bs, be, &ts)))
        goto out;
    size_t a = 0, b = ts.n;
    if (b >= 2 && rwl_tok_is(&ts, 0, "{") && rwl_tok_is(&ts, b - 1, "}"))
        a = 1, b--;
    /* 1: T i = blockIdx.x * blockDim.x + threadIdx.x; */
    size_t q = a;
    while (q < b && rwl_is_type_word(&ts, q))
        q++;
    size_t idx = q, s1 = a < b ? rwl_stmt_end(&ts, a, b) : b;
    bool shape = q > a && q < b && ts.t[idx].kind == T_IDENT && rwl_tok_is(&ts, idx + 1, "=") &&
                 s1 <= b && s1 > idx + 2;
    if (shape) {
        char *e = rwl_tok_text(&ts, idx + 2, s1 - 1), sq[128];
        if (!e) {
            rc = HK_ENOMEM;
            goto out;
        }
        rwl_squeeze(e, sq, sizeof sq);
        hk_free(e);
        shape = !strcmp(sq, "blockIdx.x*blockDim.x+threadIdx.x") ||
                !strcmp(sq, "blockDim.x*blockIdx.x+threadIdx.x") ||
                !strcmp(sq, "threadIdx.x+blockIdx.x*blockDim.x") ||
                !strcmp(sq, "threadIdx.x+blockDim.x*blockIdx.x");
    }
    /* 2: if (GUARD) BODY, the last statement */
    size_t gi = s1;
    shape = shape && gi < b && rwl_tok_is_ident(&ts, gi, "if") && rwl_tok_is(&ts, gi + 1, "(") &&
            rwl_stmt_end(&ts, gi, b) == b;
    size_t gc = shape ? rwl_match_close(&ts, gi + 1) : b;
    shape = shape && gc + 1 < b;
    for (size_t k = gc + 1; shape && k < b; k++)
        if (rwl_tok_is_ident(&ts, k, "else"))
            shape = false;
    /* the index's type holds blockIdx.x * blockDim.x + threadIdx.x below 2^31 exactly */
    for (size_t k = a; shape && k < idx; k++) {
        static const char *const ok[] = {"const", "int", "unsigned", "signed", "long", "size_t",
                                         "auto", "int64_t", "uint64_t", "uint32_t", "int32_t"};
        bool good = false;
        for (size_t w = 0; w < HK_ARRAY_LEN(ok) && !good; w++)
            good = rwl_tok_is_ident(&ts, k, ok[w]);
        shape = good;
    }
    if (shape && memmem(text + bs, be - bs, "hk_t1_", 6))
        shape = false;   /* rewritten before */
    if (!shape) {
        rwl_refuse(why, sizeof why, &ts, text, a, "statement", EN(RW_T1_SHAPE));
        goto refuse;
    }
    for (size_t k = a; k < b; k++)
        if (rwl_same_tok(&ts, k, idx) && k != idx && rwl_scalar_written(&ts, k)) {
            rwl_refuse(why, sizeof why, &ts, text, k, "index", EN(RW_T1_SHAPE));
            goto refuse;
        }
    /* the guard: conjuncts i OP bound; one lower bound L */
    long lower = -1;
    for (size_t c = gi + 2; c < gc;) {
        size_t e = c;
        int depth = 0;
        while (e < gc && !(depth == 0 && rwl_tok_is(&ts, e, "&&"))) {
            if (rwl_tok_is(&ts, e, "(")) depth++;
            if (rwl_tok_is(&ts, e, ")")) depth--;
            e++;
        }
        bool ok = e > c + 2;
        /* `i + K` (K a non-negative constant) is as monotone as i: no wrap below 2^31 */
        size_t sh = ok && rwl_same_tok(&ts, c, idx) && rwl_tok_is(&ts, c + 1, "+") && c + 3 < e &&
                            (ts.t[c + 2].kind == T_NUMBER || ts.t[c + 2].kind == T_IDENT) &&
                            (t1_const(text, len, &ts, c + 2) > 0 || rwl_tok_is(&ts, c + 2, "0"))
                        ? 2 : 0;
        if (ok && rwl_same_tok(&ts, c, idx)) {
            bool ge = rwl_tok_is(&ts, c + 1 + sh, ">="), gt = rwl_tok_is(&ts, c + 1 + sh, ">");
            ok = (ge || gt || rwl_tok_is(&ts, c + 1 + sh, "<") || rwl_tok_is(&ts, c + 1 + sh, "<=")) &&
                 t1_bound(text, len, &ts, c + 2 + sh, e, idx);
            if (ok && !sh && (ge || gt) && e == c + 3) {
                long v = t1_const(text, len, &ts, c + 2);
                if (v > 0 && v + (gt ? 1 : 0) > lower)
                    lower = v + (gt ? 1 : 0);
            }
        } else if (ok && rwl_same_tok(&ts, e - 1, idx)) {
            size_t op = e - 2;
            bool le = rwl_tok_is(&ts, op, "<="), lt = rwl_tok_is(&ts, op, "<");
            ok = (le || lt || rwl_tok_is(&ts, op, ">") || rwl_tok_is(&ts, op, ">=")) &&
                 t1_bound(text, len, &ts, c, op, idx);
            if (ok && (le || lt) && op == c + 1) {
                long v = t1_const(text, len, &ts, c);
                if (v > 0 && v + (lt ? 1 : 0) > lower)
                    lower = v + (lt ? 1 : 0);
            }
        } else
            ok = false;
        if (!ok) {
            rwl_refuse(why, sizeof why, &ts, text, c, "guard", EN(RW_T1_GUARD), 0L);
            goto refuse;
        }
        c = e + 1;
    }
    /* the guarded body: its top-level statements */
    size_t ba = gc + 1, bb = b;
    if (rwl_tok_is(&ts, ba, "{"))
        ba++, bb--;
    for (size_t k = ba; k < bb;) {
        size_t e = rwl_stmt_end(&ts, k, bb);
        t1_loop l;
        if (nloops < HK_ARRAY_LEN(loops) && t1_tap_header(text, len, &ts, k, bb, &l) && l.b == e)
            loops[nloops++] = l;
        if (e <= k)
            break;
        k = e;
    }
    long r = 0;
    size_t rloop = 0, last = 0;
    for (size_t i = 0; i < nloops; i++) {
        if (loops[i].r > r)
            r = loops[i].r, rloop = i;
        last = i;
    }
    /* the input: the pointer parameter read as IN[i + v] */
    const an_param *in = NULL;
    for (size_t i = 0; i < nloops && !in; i++)
        for (size_t k = loops[i].a; k + 4 < loops[i].b && !in; k++)
            if (ts.t[k].kind == T_IDENT && rwl_tok_is(&ts, k + 1, "[") &&
                ((rwl_same_tok(&ts, k + 2, idx) && rwl_tok_is(&ts, k + 3, "+") &&
                  rwl_same_tok(&ts, k + 4, loops[i].var)) ||
                 (rwl_same_tok(&ts, k + 2, loops[i].var) && rwl_tok_is(&ts, k + 3, "+") &&
                  rwl_same_tok(&ts, k + 4, idx))) &&
                rwl_tok_is(&ts, k + 5, "]"))
                for (size_t p = 0; p < f->n_params; p++)
                    if (f->params[p].pointer_depth == 1 &&
                        strlen(f->params[p].name) == ts.t[k].end - ts.t[k].start &&
                        !memcmp(f->params[p].name, text + ts.t[k].start, ts.t[k].end - ts.t[k].start))
                        in = &f->params[p];
    if (!in) {
        rc = rwl_not_applicable_to(out, "stencil_tile_1d", f->name, HK_MSG_RW_T1_NONE);
        goto out;
    }
    if (lower < r) {
        rwl_refuse(why, sizeof why, &ts, text, gi, "guard", EN(RW_T1_GUARD), r);
        goto refuse;
    }
    if (strstr(in->type, "volatile")) {
        rwl_refuse(why, sizeof why, &ts, text, a, "parameter", EN(RW_T1_READ), in->name, in->name);
        goto refuse;
    }
    /* every occurrence of IN: a tap read in a tap loop, never written */
    size_t nl = strlen(in->name);
    for (size_t k = a; k < b; k++) {
        if (ts.t[k].kind != T_IDENT || ts.t[k].end - ts.t[k].start != nl ||
            memcmp(text + ts.t[k].start, in->name, nl))
            continue;
        bool tap = false;
        for (size_t i = 0; i < nloops && !tap; i++) {
            const t1_loop *l = &loops[i];
            size_t v = l->var;
            tap = k > l->a && k < l->b && rwl_tok_is(&ts, k + 1, "[") && rwl_tok_is(&ts, k + 5, "]") &&
                  ((rwl_same_tok(&ts, k + 2, idx) && rwl_tok_is(&ts, k + 3, "+") && rwl_same_tok(&ts, k + 4, v)) ||
                   (rwl_same_tok(&ts, k + 2, v) && rwl_tok_is(&ts, k + 3, "+") && rwl_same_tok(&ts, k + 4, idx))) &&
                  !rwl_occurrence_writes(&ts, k);
            if (tap) {
                size_t hc = rwl_match_close(&ts, l->a + 1), at;
                if (t1_banned_in(&ts, hc + 1, l->b, &at) || t1_call_in(&ts, hc + 1, l->b) < l->b ||
                    !t1_unconditional(&ts, hc + 1, l->b, k))
                    tap = false;
                for (size_t p = hc + 1; tap && p < l->b; p++)
                    if ((rwl_same_tok(&ts, p, v) || rwl_same_tok(&ts, p, idx)) &&
                        (rwl_scalar_written(&ts, p) || rwl_declared_here(&ts, p)))
                        tap = false;   /* written or shadowed */
            }
        }
        if (!tap) {
            rwl_refuse(why, sizeof why, &ts, text, k, "read", EN(RW_T1_READ), in->name, in->name);
            goto refuse;
        }
    }
    /* before the widest loop: no control flow or calls; no memory write before the last ends */
    {
        size_t at = 0;
        const char *w = t1_banned_in(&ts, ba, loops[rloop].a, &at);
        size_t call = t1_call_in(&ts, ba, loops[rloop].a);
        if (!w && call < loops[rloop].a)
            w = "call", at = call;
        for (size_t p = ba; !w && p < loops[last].b; p++) {
            bool inc = rwl_tok_is(&ts, p, "++") || rwl_tok_is(&ts, p, "--");
            if (!inc && !rwl_tok_is_assign_op(&ts, p))
                continue;
            /* the target must be a plain name (a scalar), not memory */
            bool post = p > ba && ts.t[p - 1].kind == T_IDENT &&
                        !(p >= ba + 2 && (rwl_tok_is(&ts, p - 2, ".") || rwl_tok_is(&ts, p - 2, "->") ||
                                          (rwl_tok_is(&ts, p - 2, "*") && rwl_unary_position(&ts, p - 2))));
            bool pre = inc && p + 1 < loops[last].b && ts.t[p + 1].kind == T_IDENT &&
                       !rwl_tok_is(&ts, p + 2, "[") && !rwl_tok_is(&ts, p + 2, ".") &&
                       !rwl_tok_is(&ts, p + 2, "->");
            if (!post && !pre)
                w = "write", at = p;
        }
        for (size_t p = ba; !w && p < loops[last].b; p++) {
            if (ts.t[p].kind != T_IDENT)
                continue;
            if (rwl_same_tok(&ts, p, idx) && rwl_declared_here(&ts, p))
                w = "declaration", at = p;   /* the index shadowed */
            const char *hid = w ? NULL : rwl_macro_text_word(text, len, text + ts.t[p].start,
                                                             ts.t[p].end - ts.t[p].start, t1_banned,
                                                             HK_ARRAY_LEN(t1_banned), 4);
            if (hid)
                w = hid, at = p;
        }
        if (w) {
            rwl_refuse(why, sizeof why, &ts, text, at, w, EN(RW_T1_BODY), w);
            goto refuse;
        }
        for (size_t k = ba; k < bb; k++)
            if (rwl_tok_is_ident(&ts, k, "__syncthreads") || rwl_tok_is_ident(&ts, k, "__shared__") ||
                rwl_tok_is_ident(&ts, k, "goto") || rwl_tok_is_ident(&ts, k, "asm")) {
                rwl_refuse(why, sizeof why, &ts, text, k, "statement", EN(RW_T1_BODY), "barrier");
                goto refuse;
            }
    }
    /* the edits */
    ety = hk_strdup(in->elem_type);
    gtext = rwl_tok_text(&ts, gi + 2, gc);
    if (!ety || !gtext) {
        rc = HK_ENOMEM;
        goto out;
    }
    {
        char *idn = rwl_tok_text(&ts, idx, idx + 1);
        char *pre = idn ? hk_asprintf(
            "\n    // hk rewrite (stencil_tile_1d): the block's reads of %s[%s + v], |v| <= %ld, from one\n" /* i18n: not for people */
            "    // shared tile loaded once (exactly the elements its guarded threads read)\n"
            "    __shared__ %s hk_t1_tile[%d + 2 * %ld];\n"
            "    __shared__ unsigned char hk_t1_act[%d];\n"
            "    __shared__ int hk_t1_lo, hk_t1_hi;\n"
            "    const bool hk_t1_use = blockDim.y == 1 && blockDim.z == 1 && blockDim.x <= %d &&\n"
            "        (unsigned long long)blockIdx.x * blockDim.x + blockDim.x + %ld <= 0x7fffffffull;\n"
            "    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) { hk_t1_lo = 0; hk_t1_hi = -1; }\n"
            "    const bool hk_t1_on = hk_t1_use && (%s);\n"
            "    if (hk_t1_use) hk_t1_act[threadIdx.x] = hk_t1_on;\n"
            "    __syncthreads();\n"
            "    // the guarded threads are one run of threadIdx.x (each comparison is monotone in %s):\n"
            "    // its first and last thread name it\n"
            "    if (hk_t1_on && (threadIdx.x == 0 || !hk_t1_act[threadIdx.x - 1])) hk_t1_lo = (int)threadIdx.x;\n"
            "    if (hk_t1_on && (threadIdx.x + 1 == blockDim.x || !hk_t1_act[threadIdx.x + 1])) hk_t1_hi = (int)threadIdx.x;\n"
            "    __syncthreads();\n"
            "    if (hk_t1_use && hk_t1_hi >= 0)\n"
            "        for (int hk_t1_k = (int)threadIdx.x; hk_t1_k <= hk_t1_hi - hk_t1_lo + 2 * %ld; hk_t1_k += (int)blockDim.x)\n"
            "            hk_t1_tile[hk_t1_lo + hk_t1_k] = %s[(long long)blockIdx.x * blockDim.x + hk_t1_lo - %ld + hk_t1_k];\n"
            "    __syncthreads();\n    ",
            in->name, idn, r, ety, T1_TILE_B, r, T1_TILE_B, T1_TILE_B, r, gtext, idn, r, in->name, r) : NULL;
        hk_free(idn);
        if (!pre || (rc = rwl_edits_add_owned(&es, ts.t[gi].start, ts.t[gi].start, pre))) {
            rc = rc ? rc : HK_ENOMEM;
            goto out;
        }
    }
    for (size_t i = 0; i < nloops; i++)
        for (size_t k = loops[i].a; k < loops[i].b; k++) {
            if (ts.t[k].kind != T_IDENT || ts.t[k].end - ts.t[k].start != nl ||
                memcmp(text + ts.t[k].start, in->name, nl) || !rwl_tok_is(&ts, k + 1, "["))
                continue;
            char *orig = rwl_tok_text(&ts, k, k + 6), *vn = rwl_tok_text(&ts, loops[i].var, loops[i].var + 1);
            char *rep = orig && vn ? hk_asprintf("(hk_t1_use ? hk_t1_tile[(int)threadIdx.x + %ld + %s] : %s)",
                                                 r, vn, orig) : NULL;
            hk_free(orig);
            hk_free(vn);
            if (!rep || (rc = rwl_edits_add_owned(&es, ts.t[k].start, ts.t[k + 5].end, rep))) {
                rc = rc ? rc : HK_ENOMEM;
                goto out;
            }
        }
    rc = rwl_finish(text, len, m, f->name, &es,
                    hk_asprintf(EN(RW_T1_DESC), f->name, in->name, r, r), out);
    goto out;
refuse:
    rc = rwp_not_applicable(out, "stencil_tile_1d", f, why);
out:
    hk_free(gtext);
    hk_free(ety);
    rwl_edits_free(&es);
    rwl_toks_free(&ts);
    return rc;
}

static int emit_stencil_tile_1d(const rw_context *c, const int *p, rw_result *out)
{
    (void)p;
    return rw_stencil_tile_1d(c->text, c->len, c->m, c->kernel, out);
}

const rw_descriptor rw_stencil_tile_1d_desc = {
    .name = "stencil_tile_1d",
    .summary = "a 1-D stencil reads its window from a per-block shared tile with halo", /* i18n: not for people */
    .flags = RW_ALGORITHM,
    .emit = emit_stencil_tile_1d,
};
