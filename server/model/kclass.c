/* km_classify: names what a kernel computes from its model, by what the accesses,
 * accumulators and loops do rather than how the source spells them. Recognizers run from
 * the most specific to the most general; each either fits, passes, or records the first
 * near miss (the construct and its line) that the caller reports when nothing fits. */
#include "model/kclass.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kmodel_int.h"

/* a sentence of the message table in English: the near miss is stored (`hkls rewrites
 * --json`, a rewrite's refusal quotes it) and said again where shown (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

typedef struct {
    const km_kernel *k;
    km_class *c;
    const km_atom *atoms;
    size_t n_atoms;
    const km_access *as;
    size_t n_as;
    const km_accumulator *acs;
    size_t n_acs;
    const km_loop *loops;
    size_t n_loops;
    const km_guard *gs;
    size_t n_gs;
    const char *only_out;   /* km_classify_product: the product must write this buffer */
} cx;

enum { NO, FIT };

/* ---- small forms ------------------------------------------------------------------- */

km_form km_cform_view(const km_cform *c)
{
    return (km_form){c->t, c->n};
}

static bool cf_push(km_cform *o, const km_term *t)
{
    if (o->n >= KM_CFORM_TERMS)
        return false;
    o->t[o->n++] = *t;
    return true;
}

static bool grid_counter(const cx *x, uint32_t id)
{
    const km_atom *a = &x->atoms[id];
    return a->kind == KM_ATOM_LOOP && a->loop >= 0 && (size_t)a->loop < x->n_loops &&
           x->loops[a->loop].kind == KM_LOOP_GRID_STRIDE;
}

/* Copy of f with terms holding a grid-stride counter dropped (the thread's first
 * element); false when it does not fit. */
static bool cf_from(const cx *x, km_form f, km_cform *o)
{
    memset(o, 0, sizeof(*o));
    o->known = true;
    for (uint32_t i = 0; i < f.n; i++) {
        bool grid = false;
        for (uint32_t j = 0; j < f.t[i].n; j++)
            grid |= grid_counter(x, f.t[i].atoms[j]);
        if (!grid && !cf_push(o, &f.t[i]))
            return false;
    }
    return true;
}

static bool cf_is_const(const km_cform *f, int64_t v)
{
    if (v == 0)
        return f->n == 0;
    return f->n == 1 && f->t[0].n == 0 && f->t[0].coef == v;
}

static bool cf_equal(const km_cform *a, const km_cform *b)
{
    return km_form_equal(km_cform_view(a), km_cform_view(b));
}

/* The n terms t, put in canonical order, as the known cform o: false when more than
 * KM_CFORM_TERMS remain. */
static bool cf_store(const cx *x, km_term *t, uint32_t n, km_cform *o)
{
    km__canon(x->k, t, &n);
    if (n > KM_CFORM_TERMS)
        return false;
    memset(o, 0, sizeof(*o));
    o->known = true;
    o->n = n;
    memcpy(o->t, t, n * sizeof(km_term));
    return true;
}

/* a - b into o. */
static bool cf_sub(const cx *x, const km_cform *a, const km_cform *b, km_cform *o)
{
    km_term t[2 * KM_CFORM_TERMS];
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->n; i++)
        t[n++] = a->t[i];
    for (uint32_t i = 0; i < b->n; i++) {
        t[n] = b->t[i];
        t[n++].coef = -b->t[i].coef;
    }
    return cf_store(x, t, n, o);
}

static bool atom_mentions_kind(const cx *x, uint32_t id, enum km_atom_kind kind)
{
    km_term t = {.coef = 1, .n = 1, .atoms = {id}};
    return km_form_mentions_kind(x->k, (km_form){&t, 1}, kind, -1);
}

/* f = coef * atom + rest with atom in no other place: false when it is squared or inside
 * a non-affine operation. */
static bool linear_in(const cx *x, const km_cform *f, uint32_t atom, km_cform *coef,
                      km_cform *rest)
{
    memset(coef, 0, sizeof(*coef));
    memset(rest, 0, sizeof(*rest));
    coef->known = rest->known = true;
    for (uint32_t i = 0; i < f->n; i++) {
        km_term t = f->t[i], r = {.coef = t.coef};
        uint32_t hits = 0;
        for (uint32_t j = 0; j < t.n; j++) {
            if (t.atoms[j] == atom) {
                hits++;
                continue;
            }
            km_term one = {.coef = 1, .n = 1, .atoms = {t.atoms[j]}};
            if (km_form_mentions(x->k, (km_form){&one, 1}, atom))
                return false;
            r.atoms[r.n++] = t.atoms[j];
        }
        if (hits > 1)
            return false;
        if (!cf_push(hits ? coef : rest, hits ? &r : &t))
            return false;
    }
    uint32_t n = coef->n;
    km__canon(x->k, coef->t, &n);
    coef->n = n;
    return true;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* f = fac * quot with fac the largest common product of atoms (and coefficient gcd). */
static bool factor_out(const cx *x, const km_cform *f, km_cform *fac, km_cform *quot)
{
    if (f->n == 0)
        return false;
    km_term common = f->t[0];
    common.coef = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        common.coef = gcd64(common.coef, f->t[i].coef);
        km_term keep = {.n = 0};
        bool used[KM_DEGREE_MAX] = {false};
        for (uint32_t a = 0; a < common.n; a++)
            for (uint32_t b = 0; b < f->t[i].n; b++)
                if (!used[b] && f->t[i].atoms[b] == common.atoms[a]) {
                    used[b] = true;
                    keep.atoms[keep.n++] = common.atoms[a];
                    break;
                }
        common.n = keep.n;
        memcpy(common.atoms, keep.atoms, sizeof(keep.atoms));
    }
    if (common.coef == 0)
        common.coef = 1;
    memset(fac, 0, sizeof(*fac));
    memset(quot, 0, sizeof(*quot));
    fac->known = quot->known = true;
    cf_push(fac, &common);
    for (uint32_t i = 0; i < f->n; i++) {
        km_term t = f->t[i], q = {.coef = t.coef / common.coef};
        bool used[KM_DEGREE_MAX] = {false};
        for (uint32_t a = 0; a < common.n; a++)
            for (uint32_t b = 0; b < t.n; b++)
                if (!used[b] && t.atoms[b] == common.atoms[a]) {
                    used[b] = true;
                    break;
                }
        for (uint32_t b = 0; b < t.n; b++)
            if (!used[b])
                q.atoms[q.n++] = t.atoms[b];
        cf_push(quot, &q);
    }
    uint32_t n = quot->n;
    km__canon(x->k, quot->t, &n);
    quot->n = n;
    return true;
}

/* ---- what atoms are ---------------------------------------------------------------- */

/* An atom that tells threads or iterations apart: a thread/block id, a loop counter
 * other than skip, an unfollowed local, or an operation over one of them (i / n). */
static bool id_atom(const cx *x, uint32_t id, uint32_t skip)
{
    const km_atom *a = &x->atoms[id];
    if (id == skip)
        return false;
    switch (a->kind) {
    case KM_ATOM_THREAD_IDX:
    case KM_ATOM_BLOCK_IDX:
    case KM_ATOM_LOOP:
    case KM_ATOM_VAR:
        return true;
    case KM_ATOM_OPAQUE:
        return atom_mentions_kind(x, id, KM_ATOM_THREAD_IDX) ||
               atom_mentions_kind(x, id, KM_ATOM_BLOCK_IDX) ||
               atom_mentions_kind(x, id, KM_ATOM_LOOP);
    default:
        return false;
    }
}

#define IDS_MAX 16
typedef struct {
    uint32_t v[IDS_MAX];
    uint32_t n;
} idset;

static void ids_add(idset *s, uint32_t id)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->v[i] == id)
            return;
    if (s->n < IDS_MAX)
        s->v[s->n++] = id;
}

static bool ids_has(const idset *s, uint32_t id)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->v[i] == id)
            return true;
    return false;
}

static void ids_of_term(const cx *x, const km_term *t, uint32_t skip, idset *s)
{
    for (uint32_t j = 0; j < t->n; j++)
        if (id_atom(x, t->atoms[j], skip))
            ids_add(s, t->atoms[j]);
}

static idset ids_of(const cx *x, const km_cform *f, uint32_t skip)
{
    idset s = {.n = 0};
    for (uint32_t i = 0; i < f->n; i++)
        ids_of_term(x, &f->t[i], skip, &s);
    return s;
}

static bool thread_free(const cx *x, km_form f)
{
    return !km_form_mentions_kind(x->k, f, KM_ATOM_THREAD_IDX, -1) &&
           !km_form_mentions_kind(x->k, f, KM_ATOM_BLOCK_IDX, -1);
}

/* Thread axis mentioned by f (x first), or -1. */
static int axis_of(const cx *x, km_form f)
{
    for (int a = 0; a < 3; a++)
        if (km_form_mentions_kind(x->k, f, KM_ATOM_THREAD_IDX, a))
            return a;
    return -1;
}

static bool scalar_atom(const cx *x, uint32_t id)
{
    enum km_atom_kind kd = x->atoms[id].kind;
    return kd == KM_ATOM_PARAM || kd == KM_ATOM_CONST || kd == KM_ATOM_LITERAL;
}

static uint32_t acc_atom(const cx *x, size_t acc, bool *ok)
{
    for (size_t i = 0; i < x->n_atoms; i++)
        if (x->atoms[i].kind == KM_ATOM_ACC && x->atoms[i].loop == (long)acc) {
            *ok = true;
            return (uint32_t)i;
        }
    *ok = false;
    return 0;
}

static bool mentions_acc(const cx *x, km_form f, size_t acc)
{
    bool ok;
    uint32_t id = acc_atom(x, acc, &ok);
    return ok && km_form_mentions(x->k, f, id);
}

/* Does f call one of names (anywhere inside)? */
static bool calls(const cx *x, km_form f, const char *const *names, int depth)
{
    if (depth > 16)
        return false;
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *a = &x->atoms[f.t[i].atoms[j]];
            if (a->kind != KM_ATOM_OPAQUE && a->kind != KM_ATOM_READ)
                continue;
            if (a->kind == KM_ATOM_OPAQUE && a->name && strcmp(a->op, "call") == 0)
                for (const char *const *n = names; *n; n++)
                    if (strcmp(a->name, *n) == 0)
                        return true;
            for (uint32_t g = 0; g < a->n_args; g++)
                if (calls(x, a->args[g], names, depth + 1))
                    return true;
        }
    return false;
}

/* Does f use op (e.g. "/") on something that mentions atom? */
static bool op_over(const cx *x, km_form f, const char *op, uint32_t atom, int depth)
{
    if (depth > 16)
        return false;
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *a = &x->atoms[f.t[i].atoms[j]];
            if (a->kind != KM_ATOM_OPAQUE)
                continue;
            if (strcmp(a->op, op) == 0 && a->n_args > 0 && km_form_mentions(x->k, a->args[0], atom))
                return true;
            for (uint32_t g = 0; g < a->n_args; g++)
                if (op_over(x, a->args[g], op, atom, depth + 1))
                    return true;
        }
    return false;
}

static const char *const EXP[] = {"expf", "exp", "__expf", "exp2f", "hexp", NULL};
static const char *const SQRT[] = {"sqrtf", "sqrt", "rsqrtf", "rsqrt", "__frsqrt_rn",
                                   "__fsqrt_rn", "hsqrt", "hrsqrt", NULL};
static const char *const SHFL_UP[] = {"__shfl_up_sync", "__shfl_up", NULL};

/* Line of the access that reads buffer at index (0 when not found). */
static uint32_t read_line(const cx *x, const char *buffer, km_form index)
{
    for (size_t i = 0; i < x->n_as; i++)
        if (strcmp(x->as[i].buffer, buffer) == 0 && km_form_equal(x->as[i].index, index))
            return x->as[i].line;
    return 0;
}

static const km_access *first_global_write(const cx *x)
{
    for (size_t i = 0; i < x->n_as; i++)
        if (x->as[i].mode != KM_READ && x->as[i].space == KM_SPACE_GLOBAL)
            return &x->as[i];
    return NULL;
}

static bool is_global_param(const cx *x, const char *name)
{
    size_t n;
    const km_param *ps = km_params(x->k, &n);
    for (size_t i = 0; i < n; i++)
        if (ps[i].pointer && strcmp(ps[i].name, name) == 0)
            return true;
    return false;
}

static int param_pos(const cx *x, const char *name)
{
    size_t n;
    const km_param *ps = km_params(x->k, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(ps[i].name, name) == 0)
            return (int)i;
    return 1 << 20;
}

static void add_in(km_class *c, const char *name)
{
    for (uint32_t i = 0; i < c->n_in; i++)
        if (strcmp(c->in[i], name) == 0)
            return;
    if (c->n_in < KM_CLASS_IN_MAX)
        c->in[c->n_in++] = name;
}

/* Buffers read anywhere in f (READ atoms, also inside operations). */
static void reads_in(const cx *x, km_form f, km_class *c, int depth)
{
    if (depth > 16)
        return;
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *a = &x->atoms[f.t[i].atoms[j]];
            if (a->kind == KM_ATOM_READ && is_global_param(x, a->name))
                add_in(c, a->name);
            if (a->kind == KM_ATOM_READ || a->kind == KM_ATOM_OPAQUE)
                for (uint32_t g = 0; g < a->n_args; g++)
                    reads_in(x, a->args[g], c, depth + 1);
        }
}

static void near(cx *x, enum km_class_kind kind, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void near(cx *x, enum km_class_kind kind, uint32_t line, const char *fmt, ...)
{
    if (x->c->near != KM_CLASS_NONE)
        return;
    x->c->near = kind;
    x->c->why_line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->c->why, sizeof(x->c->why), fmt, ap);
    va_end(ap);
}

static void text(const cx *x, km_form f, char *out, size_t n)
{
    km__form_text(x->k, f, out, n);
}

/* Guard `lhs < bound` on the index I: bound into *o. */
static void bound_of(const cx *x, const km_cform *i, km_cform *o)
{
    memset(o, 0, sizeof(*o));
    for (size_t g = 0; g < x->n_gs; g++)
        if (strcmp(x->gs[g].op, "<") == 0 && km_form_equal(x->gs[g].lhs, km_cform_view(i)) &&
            cf_from(x, x->gs[g].rhs, o))
            return;
    /* I a loop counter: the loop's trip */
    if (i->n == 1 && i->t[0].coef == 1 && i->t[0].n == 1) {
        const km_atom *a = &x->atoms[i->t[0].atoms[0]];
        if (a->kind == KM_ATOM_LOOP && a->loop >= 0 && x->loops[a->loop].has_trip &&
            cf_from(x, x->loops[a->loop].trip, o))
            return;
    }
    memset(o, 0, sizeof(*o));
}

/* ---- histogram --------------------------------------------------------------------- */

/* The count B of a clamp's upper operand `B - 1` (`min(b, nbins - 1)`): B a positive
 * constant, or one parameter or named constant; false otherwise. */
static bool clamp_count(const cx *x, km_form top, km_cform *o)
{
    km_cform f;
    if (!cf_from(x, top, &f))
        return false;
    bool had = false;
    for (uint32_t i = 0; i < f.n; i++)
        if (f.t[i].n == 0) {
            f.t[i].coef += 1;
            had = true;
            if (f.t[i].coef == 0) {
                f.t[i] = f.t[--f.n];
            }
            break;
        }
    if (!had) {
        km_term one = {.coef = 1, .n = 0};
        if (!cf_push(&f, &one))
            return false;
    }
    if (f.n == 1 && f.t[0].n == 0 && f.t[0].coef > 0) {
        *o = f;
        return true;
    }
    if (f.n != 1 || f.t[0].n != 1 || f.t[0].coef != 1)
        return false;
    const km_atom *a = &x->atoms[f.t[0].atoms[0]];
    if (a->kind != KM_ATOM_PARAM && a->kind != KM_ATOM_CONST)
        return false;
    *o = f;
    return true;
}

/* Is buffer a pointer parameter of 8-bit unsigned elements (`unsigned char`, `uint8_t`,
 * qualifiers aside)? Its values are 0..255. */
static bool byte_buffer(const cx *x, const char *buffer)
{
    size_t n;
    const km_param *ps = km_params(x->k, &n);
    for (size_t i = 0; buffer && i < n; i++) {
        if (!ps[i].name || strcmp(ps[i].name, buffer) != 0)
            continue;
        if (!ps[i].pointer || !ps[i].elem_type)
            return false;
        char t[64];
        size_t m = 0;
        for (const char *q = ps[i].elem_type; *q && m + 1 < sizeof t;) {
            while (*q == ' ' || *q == '\t')
                q++;
            size_t w = 0;
            while (q[w] && q[w] != ' ' && q[w] != '\t')
                w++;
            if (w && !((w == 5 && !strncmp(q, "const", 5)) || (w == 8 && !strncmp(q, "volatile", 8)) ||
                       (w == 12 && !strncmp(q, "__restrict__", 12)) || (w == 10 && !strncmp(q, "__restrict", 10)))) {
                if (m && m + 1 < sizeof t)
                    t[m++] = ' ';
                for (size_t j = 0; j < w && m + 1 < sizeof t; j++)
                    t[m++] = q[j];
            }
            q += w;
        }
        t[m] = 0;
        return !strcmp(t, "unsigned char") || !strcmp(t, "uint8_t");
    }
    return false;
}

static int try_histogram(cx *x)
{
    km_class *c = x->c;
    for (size_t i = 0; i < x->n_as; i++) {
        const km_access *a = &x->as[i];
        if (a->mode != KM_RMW || a->op != KM_OP_SUM ||
            !km_form_mentions_kind(x->k, a->index, KM_ATOM_READ, -1))
            continue;
        if (!a->atomic) {
            char t[128];
            text(x, a->index, t, sizeof(t));
            near(x, KM_CLASS_HISTOGRAM, a->line,
                 EN(KM_HIST_NOT_ATOMIC), a->buffer, t);
            continue;
        }
        c->kind = KM_CLASS_HISTOGRAM;
        c->out = a->buffer;
        c->line = a->line;
        reads_in(x, a->index, c, 0);
        int64_t one;
        c->weighted = !(km__is_const(a->element_value, &one) && one == 1);
        c->privatized = a->space == KM_SPACE_SHARED;
        /* bins: h % NBINS, or the extent of the privatized array */
        if (a->index.n == 1 && a->index.t[0].n == 1) {
            const km_atom *h = &x->atoms[a->index.t[0].atoms[0]];
            if (h->kind == KM_ATOM_OPAQUE && strcmp(h->op, "%") == 0 && h->n_args == 2)
                cf_from(x, h->args[1], &c->bins);
        }
        /* or a guard on the bin itself: `if (v >= 0 && v < nbins) atomicAdd(&h[v], 1)`
         * (a bincount whose range is a parameter) */
        for (uint32_t g = 0; !c->bins.known && g < a->n_guards; g++) {
            const km_guard *gd = &x->gs[a->guards[g]];
            if (strcmp(gd->op, "<") == 0 && km_form_equal(gd->lhs, a->index))
                cf_from(x, gd->rhs, &c->bins);
        }
        /* or the bin's own range (session 48): a byte read from memory (`bins[data[i]]` with
         * data unsigned char or uint8_t: 256 bins), a mask `h & (2^k - 1)` (2^k bins), or a
         * clamp to the last bin `min(h, B - 1)` (B bins) */
        if (!c->bins.known && a->index.n == 1 && a->index.t[0].n == 1 && a->index.t[0].coef == 1) {
            const km_atom *h = &x->atoms[a->index.t[0].atoms[0]];
            int64_t m = 0;
            if (h->kind == KM_ATOM_READ && byte_buffer(x, h->name))
                m = 255;
            else if (h->kind == KM_ATOM_OPAQUE && h->op && strcmp(h->op, "&") == 0 && h->n_args == 2)
                for (int s = 0; s < 2 && !m; s++)
                    if (!km__is_const(h->args[s], &m) || m <= 0 || m >= ((int64_t)1 << 40) || (m & (m + 1)) != 0)
                        m = 0;
            if (m) {
                memset(&c->bins, 0, sizeof c->bins);
                c->bins.known = true;
                c->bins.n = 1;
                c->bins.t[0].coef = m + 1;
            }
            /* a clamp to the last bin, `min(b, nbins - 1)` (either operand order) */
            if (!m && h->kind == KM_ATOM_OPAQUE && h->op && strcmp(h->op, "min") == 0 && h->n_args == 2)
                for (int s = 0; s < 2 && !c->bins.known; s++)
                    if (!clamp_count(x, h->args[s], &c->bins))
                        memset(&c->bins, 0, sizeof c->bins);
        }
        if (!c->bins.known && c->privatized) {
            size_t n;
            const km_local *ls = km_locals(x->k, &n);
            for (size_t l = 0; l < n; l++)
                if (ls[l].kind == KM_LOCAL_ARRAY && strcmp(ls[l].name, a->buffer) == 0 &&
                    ls[l].form.n)
                    cf_from(x, ls[l].form, &c->bins);
        }
        if (c->privatized)   /* the global bins are what the kernel produces */
            for (size_t j = 0; j < x->n_as; j++)
                if (x->as[j].mode != KM_READ && x->as[j].space == KM_SPACE_GLOBAL) {
                    c->out = x->as[j].buffer;
                    break;
                }
        return FIT;
    }
    return NO;
}

/* ---- scans and tree reductions ----------------------------------------------------- */

/* Does f mention the counter of geometric loop l, or a local that loop steps geometrically
 * beside its counter (km_local.geometric_in: `offset *= 2` in a loop counting with d)? */
static bool mentions_geometric(const cx *x, km_form f, size_t l)
{
    if (km_form_mentions(x->k, f, x->loops[l].counter))
        return true;
    size_t n;
    const km_local *ls = km_locals(x->k, &n);
    for (size_t i = 0; l < 64 && i < n; i++)
        if (ls[i].kind == KM_LOCAL_VAR && (ls[i].geometric_in >> l & 1) && ls[i].form.n == 1 &&
            ls[i].form.t[0].n == 1 && km_form_mentions(x->k, f, ls[i].form.t[0].atoms[0]))
            return true;
    return false;
}

/* A geometric loop combining a __shared__ array with itself at an offset of the loop's
 * variable (or of a local it steps geometrically): a tree. */
static const km_access *shared_tree(const cx *x, const km_loop **lp)
{
    for (size_t l = 0; l < x->n_loops; l++) {
        if (x->loops[l].kind != KM_LOOP_GEOMETRIC)
            continue;
        for (size_t i = 0; i < x->n_as; i++) {
            const km_access *a = &x->as[i];
            bool in = false;
            for (uint32_t j = 0; j < a->n_loops; j++)
                in |= a->loops[j] == l;
            if (!in || a->space != KM_SPACE_SHARED || a->mode == KM_READ)
                continue;
            /* the combined value reads the same array at an index with the loop variable */
            for (size_t r = 0; r < x->n_as; r++) {
                const km_access *b = &x->as[r];
                if (b->mode != KM_READ || strcmp(b->buffer, a->buffer) != 0 || b->line != a->line)
                    continue;
                if (mentions_geometric(x, b->index, l) || mentions_geometric(x, a->index, l)) {
                    *lp = &x->loops[l];
                    return a;
                }
            }
        }
    }
    return NULL;
}

static bool reads_shared_at_thread(const cx *x, km_form f, const char *array, int depth)
{
    if (depth > 16)
        return false;
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *a = &x->atoms[f.t[i].atoms[j]];
            if (a->kind == KM_ATOM_READ && strcmp(a->name, array) == 0 && a->n_args &&
                !thread_free(x, a->args[0]))
                return true;
            if (a->kind == KM_ATOM_OPAQUE || a->kind == KM_ATOM_READ)
                for (uint32_t g = 0; g < a->n_args; g++)
                    if (reads_shared_at_thread(x, a->args[g], array, depth + 1))
                        return true;
        }
    return false;
}

static int try_scan(cx *x)
{
    km_class *c = x->c;
    /* serial: a running sum written out inside the loop that accumulates it */
    for (size_t i = 0; i < x->n_acs; i++) {
        const km_accumulator *ac = &x->acs[i];
        if (ac->op != KM_OP_SUM || ac->loop < 0)
            continue;
        uint32_t ctr = x->loops[ac->loop].counter;
        if (calls(x, ac->operand, SHFL_UP, 0)) {
            c->kind = KM_CLASS_SCAN;
            c->how = KM_HOW_TREE;
            c->line = ac->line;
            const km_access *w = first_global_write(x);
            c->out = w ? w->buffer : NULL;
            return FIT;
        }
        for (size_t j = 0; j < x->n_as; j++) {
            const km_access *w = &x->as[j];
            bool in = false;
            for (uint32_t l = 0; l < w->n_loops; l++)
                in |= w->loops[l] == (uint32_t)ac->loop;
            if (!in || w->mode == KM_READ || w->space != KM_SPACE_GLOBAL ||
                !mentions_acc(x, w->value, i) || !km_form_mentions(x->k, w->index, ctr))
                continue;
            c->kind = KM_CLASS_SCAN;
            c->how = KM_HOW_SERIAL;
            c->out = w->buffer;
            c->line = w->line;
            reads_in(x, ac->operand, c, 0);
            return FIT;
        }
    }
    /* shared: a tree whose result every thread writes out at its own element */
    const km_loop *lp = NULL;
    const km_access *t = shared_tree(x, &lp);
    if (!t)
        return NO;
    for (size_t j = 0; j < x->n_as; j++) {
        const km_access *w = &x->as[j];
        if (w->mode == KM_READ || w->space != KM_SPACE_GLOBAL || w->line <= lp->line ||
            !reads_shared_at_thread(x, w->value, t->buffer, 0))
            continue;
        c->kind = KM_CLASS_SCAN;
        c->how = KM_HOW_TREE;
        c->out = w->buffer;
        c->line = w->line;
        for (size_t r = 0; r < x->n_as; r++)
            if (x->as[r].mode == KM_READ && x->as[r].space == KM_SPACE_GLOBAL)
                add_in(c, x->as[r].buffer);
        return FIT;
    }
    return NO;
}

/* ---- GEMM and GEMV ----------------------------------------------------------------- */

typedef struct {
    const char *buf;
    km_form index;          /* as the model has it (for lines) */
    km_cform s, rest;       /* index = s*k + rest */
    idset ids;
} operand;

/* i-part and j-part of C's index: terms whose ids are all the operand's. */
static bool split_by(const cx *x, const km_cform *f, const idset *mine, const idset *other,
                     km_cform *part, km_cform *restp)
{
    memset(part, 0, sizeof(*part));
    memset(restp, 0, sizeof(*restp));
    part->known = restp->known = true;
    for (uint32_t i = 0; i < f->n; i++) {
        idset s = {.n = 0};
        ids_of_term(x, &f->t[i], UINT32_MAX, &s);
        bool all_mine = s.n > 0, any_other = false;
        for (uint32_t j = 0; j < s.n; j++) {
            all_mine &= ids_has(mine, s.v[j]);
            any_other |= ids_has(other, s.v[j]);
        }
        if (!cf_push(all_mine && !any_other ? part : restp, &f->t[i]))
            return false;
    }
    return true;
}

/* A GEMV's second sum (gesummv: y[i] = alpha*sum_j A[i,j]*x[j] + beta*sum_j B[i,j]*x[j]; or
 * A x + B z): accumulator a2 sums in the first one's loop, from the same start, as often,
 * a product of two reads besides scalar factors (each sum's own factor is its own alpha):
 * one at the first matrix read's index and one at the first vector read's, each of a global
 * parameter other than the output. Sets c->in[2], c->in[3] to that matrix and vector
 * (n_in 4; the same buffers as in[0], in[1] where the sum reuses them). false otherwise. */
static bool second_sum(cx *x, size_t acc, size_t a2)
{
    km_class *c = x->c;
    if (c->kind != KM_CLASS_GEMV || c->n_in != 2 || a2 >= x->n_acs || a2 == acc)
        return false;
    const km_accumulator *p = &x->acs[acc], *q = &x->acs[a2];
    if (q->op != KM_OP_SUM || q->loop != p->loop || q->n_updates != p->n_updates ||
        !km_form_equal(q->init, p->init) || p->element_operand.n != 1 || q->element_operand.n != 1)
        return false;
    /* the two reads of each product, in[0]'s and in[1]'s first */
    const km_atom *rp[2] = {NULL, NULL}, *rq[2] = {NULL, NULL};
    uint32_t np = 0, nq = 0;
    const km_term *tp = &p->element_operand.t[0], *tq = &q->element_operand.t[0];
    for (uint32_t i = 0; i < tp->n; i++) {
        const km_atom *a = &x->atoms[tp->atoms[i]];
        if (scalar_atom(x, tp->atoms[i]))
            continue;
        if (a->kind != KM_ATOM_READ || a->n_args != 1 || np == 2)
            return false;
        rp[np++] = a;
    }
    for (uint32_t i = 0; i < tq->n; i++) {
        const km_atom *a = &x->atoms[tq->atoms[i]];
        if (scalar_atom(x, tq->atoms[i]))
            continue;
        if (a->kind != KM_ATOM_READ || a->n_args != 1 || nq == 2 || !is_global_param(x, a->name) ||
            strcmp(a->name, c->out) == 0)
            return false;
        rq[nq++] = a;
    }
    if (np != 2 || nq != 2 || km_form_equal(rp[0]->args[0], rp[1]->args[0]))
        return false;
    if (strcmp(rp[0]->name, c->in[0]) != 0) {
        const km_atom *t = rp[0];
        rp[0] = rp[1];
        rp[1] = t;
    }
    if (strcmp(rp[0]->name, c->in[0]) != 0 || strcmp(rp[1]->name, c->in[1]) != 0)
        return false;
    if (!km_form_equal(rq[0]->args[0], rp[0]->args[0])) {
        const km_atom *t = rq[0];
        rq[0] = rq[1];
        rq[1] = t;
    }
    if (!km_form_equal(rq[0]->args[0], rp[0]->args[0]) || !km_form_equal(rq[1]->args[0], rp[1]->args[0]))
        return false;
    c->in[2] = rq[0]->name;
    c->in[3] = rq[1]->name;
    c->n_in = 4;
    return true;
}

static int gemm_epilogue(cx *x, const km_access *w, size_t acc)
{
    km_class *c = x->c;
    bool ok;
    uint32_t id = acc_atom(x, acc, &ok);
    km_form v = w->element_value;
    if (w->mode == KM_RMW && w->op == KM_OP_SUM) {
        c->beta = true;
        c->accumulate = true;
    }
    for (uint32_t i = 0; i < v.n; i++) {
        const km_term *t = &v.t[i];
        uint32_t hits = 0, sums2 = 0;
        bool scalars = true, old_c = false;
        long a2 = -1;
        for (uint32_t j = 0; j < t->n; j++) {
            const km_atom *a = &x->atoms[t->atoms[j]];
            if (t->atoms[j] == id)
                hits++;
            else if (a->kind == KM_ATOM_READ && strcmp(a->name, w->buffer) == 0 &&
                     km_form_equal(a->args[0], w->index))
                old_c = true;
            else if (a->kind == KM_ATOM_ACC && a->loop >= 0 && c->kind == KM_CLASS_GEMV) {
                sums2++;
                a2 = a->loop;
            } else if (!scalar_atom(x, t->atoms[j]))
                scalars = false;
        }
        char tt[160];
        text(x, (km_form){t, 1}, tt, sizeof(tt));
        if (hits == 1 && !old_c && scalars && !sums2) {
            c->alpha |= t->coef != 1 || t->n > 1;
        } else if (hits == 0 && !old_c && scalars && sums2 == 1 && second_sum(x, acc, (size_t)a2)) {
            c->alpha = true;   /* two scaled sums: the library computes them as two calls */
        } else if (hits == 0 && old_c && scalars && !sums2) {
            c->beta = true;
        } else {
            near(x, c->kind, w->line, EN(KM_EPILOGUE_TERM), km_class_name(c->kind), tt, w->buffer, w->buffer);
            return NO;
        }
    }
    return FIT;
}

/* ---- shared-memory tiles seen through ---------------------------------------------- */

/* t / d for one-term d: false when d's coefficient or atoms do not divide t. */
static bool term_div(const km_term *t, const km_term *d, km_term *q)
{
    if (d->coef == 0 || t->coef % d->coef != 0)
        return false;
    *q = (km_term){.coef = t->coef / d->coef};
    bool used[KM_DEGREE_MAX] = {false};
    for (uint32_t a = 0; a < d->n; a++) {
        bool found = false;
        for (uint32_t b = 0; b < t->n && !found; b++)
            if (!used[b] && t->atoms[b] == d->atoms[a])
                used[b] = found = true;
        if (!found)
            return false;
    }
    for (uint32_t b = 0; b < t->n; b++)
        if (!used[b])
            q->atoms[q->n++] = t->atoms[b];
    return true;
}

/* f with atom from renamed to atom to (a thread id replaced by a loop counter); false when
 * from also sits inside an operation or a read, where renaming cannot reach. */
static bool cf_rename(const cx *x, const km_cform *f, uint32_t from, uint32_t to, km_cform *o)
{
    *o = *f;
    for (uint32_t i = 0; i < o->n; i++)
        for (uint32_t j = 0; j < o->t[i].n; j++) {
            if (o->t[i].atoms[j] == from) {
                o->t[i].atoms[j] = to;
                continue;
            }
            km_term one = {.coef = 1, .n = 1, .atoms = {o->t[i].atoms[j]}};
            if (km_form_mentions(x->k, (km_form){&one, 1}, from))
                return false;
        }
    uint32_t n = o->n;
    km__canon(x->k, o->t, &n);
    o->n = n;
    return true;
}

/* Is f the single atom id (coefficient 1)? */
static bool cf_is_atom(const km_cform *f, uint32_t id)
{
    return f->n == 1 && f->t[0].coef == 1 && f->t[0].n == 1 && f->t[0].atoms[0] == id;
}

/* The thread id atom of f when f is exactly threadIdx.a; -1 otherwise (*axis gets a). */
static long cf_thread(const cx *x, const km_cform *f, int *axis)
{
    if (f->n != 1 || f->t[0].coef != 1 || f->t[0].n != 1 ||
        x->atoms[f->t[0].atoms[0]].kind != KM_ATOM_THREAD_IDX)
        return -1;
    *axis = x->atoms[f->t[0].atoms[0]].axis;
    return (long)f->t[0].atoms[0];
}

/* What a shared tile read `S[R]` inside the k loop (counter kc, `inner`) holds: the kernel
 * fills S once per iteration of the tile loop T (inner's parent) with `S[E*ty + tx] =
 * G[g(ty, tx, ...)]`, one element per thread, so S[R] with R = E*ty' + tx' is G[g] at the
 * thread (ty', tx'). One of ty', tx' is kc running over the whole tile (0 .. E-1 along a
 * row, 0 .. rows-1 down a column), the other the reader's own thread id on the writer's
 * axis. Proved from the index forms alone; *gbuf, *gidx get G and g with that thread id
 * replaced by kc; tile_block[axis] the block extent the tile needs (the kernel is only
 * correct when the launch's block is the tile). NO with a near miss otherwise. */
static int see_through(cx *x, const char *sbuf, km_form sread, const km_loop *inner,
                       const char **gbuf, km_cform *gidx)
{
    km_class *c = x->c;
    char tt[160];
    const km_access *w = NULL;
    for (size_t i = 0; i < x->n_as; i++) {
        const km_access *a = &x->as[i];
        if (a->mode == KM_READ || strcmp(a->buffer, sbuf) != 0)
            continue;
        if (w || a->mode != KM_WRITE) {
            near(x, KM_CLASS_GEMM, a->line, EN(KM_TILE_WRITTEN_TWICE), sbuf, a->line);
            return NO;
        }
        w = a;
    }
    if (!w || w->space != KM_SPACE_SHARED) {
        near(x, KM_CLASS_GEMM, inner->line, EN(KM_TILE_NOT_SHARED), sbuf, inner->line);
        return NO;
    }
    km_form v = w->element_value;
    const km_atom *g = v.n == 1 && v.t[0].n == 1 && v.t[0].coef == 1
                           ? &x->atoms[v.t[0].atoms[0]] : NULL;
    if (!g || g->kind != KM_ATOM_READ || !is_global_param(x, g->name)) {
        text(x, v, tt, sizeof(tt));
        near(x, KM_CLASS_GEMM, w->line, EN(KM_TILE_FILLED_WITH), sbuf, tt);
        return NO;
    }
    /* filled in the tile loop, outside the k loop, unconditionally */
    long tl = inner->parent;
    if (tl < 0 || !w->n_loops || w->loops[w->n_loops - 1] != (uint32_t)tl || w->n_guards) {
        near(x, KM_CLASS_GEMM, w->line, w->n_guards ? EN(KM_TILE_NOT_ONCE_GUARDED) : EN(KM_TILE_NOT_ONCE), sbuf,
             inner->line);
        return NO;
    }
    if (w->line >= inner->line) {
        near(x, KM_CLASS_GEMM, w->line, EN(KM_TILE_FILLED_AFTER), sbuf, w->line, inner->line);
        return NO;
    }
    /* the fill: S[E*threadIdx.r + threadIdx.c] */
    km_cform ws, E = {.known = true}, rows = {.known = true};
    if (!cf_from(x, w->index, &ws))
        return NO;
    long col_t = -1, row_t = -1;
    int col_ax = -1, row_ax = -1;
    for (uint32_t i = 0; i < ws.n; i++) {
        const km_term *t = &ws.t[i];
        km_term rest = {.coef = t->coef};
        long th = -1;
        for (uint32_t j = 0; j < t->n; j++) {
            const km_atom *a = &x->atoms[t->atoms[j]];
            if (a->kind == KM_ATOM_THREAD_IDX && th < 0)
                th = (long)t->atoms[j];
            else if (scalar_atom(x, t->atoms[j]))
                rest.atoms[rest.n++] = t->atoms[j];
            else
                th = -2;
        }
        if (th >= 0 && rest.n == 0 && rest.coef == 1 && col_t < 0) {
            col_t = th;
            col_ax = x->atoms[th].axis;
        } else if (th >= 0 && row_t < 0 && (rest.n || rest.coef > 1)) {
            row_t = th;
            row_ax = x->atoms[th].axis;
            E.n = 1;
            E.t[0] = rest;
        } else {
            col_t = -3;
            break;
        }
    }
    if (col_t < 0 || row_t < 0 || col_ax == row_ax) {
        text(x, w->index, tt, sizeof(tt));
        near(x, KM_CLASS_GEMM, w->line, EN(KM_TILE_FILLED_AT), sbuf, sbuf, tt);
        return NO;
    }
    /* the tile's rows: its declared size over E */
    size_t nl;
    const km_local *ls = km_locals(x->k, &nl);
    for (size_t l = 0; l < nl; l++) {
        km_cform cnt;
        if (ls[l].kind == KM_LOCAL_ARRAY && strcmp(ls[l].name, sbuf) == 0 &&
            cf_from(x, ls[l].form, &cnt) && cnt.n == 1 && term_div(&cnt.t[0], &E.t[0], &rows.t[0]))
            rows.n = 1;
    }
    if (!rows.n) {
        near(x, KM_CLASS_GEMM, w->line, EN(KM_TILE_SIZE_NOT_MULTIPLE), sbuf);
        return NO;
    }
    /* the read: S[E*ty' + tx'] */
    km_cform rs, ty = {.known = true}, tx = {.known = true};
    if (!cf_from(x, sread, &rs))
        return NO;
    for (uint32_t i = 0; i < rs.n; i++) {
        km_term q;
        if (term_div(&rs.t[i], &E.t[0], &q) ? !cf_push(&ty, &q) : !cf_push(&tx, &rs.t[i]))
            return NO;
    }
    uint32_t kc = inner->counter;
    int ax = -1;
    long th = -1;
    bool k_col = cf_is_atom(&tx, kc), k_row = cf_is_atom(&ty, kc);
    if (k_col)
        th = cf_thread(x, &ty, &ax);
    else if (k_row)
        th = cf_thread(x, &tx, &ax);
    text(x, sread, tt, sizeof(tt));
    if (th < 0 || th != (k_col ? row_t : col_t)) {
        near(x, KM_CLASS_GEMM, read_line(x, sbuf, sread), EN(KM_TILE_ELEMENT), sbuf, tt);
        return NO;
    }
    /* k runs over the whole tile: 0, 1, ... E-1 (a row) or rows-1 (a column) */
    km_cform trip, start, step;
    int64_t one;
    if (!inner->has_trip || !cf_from(x, inner->trip, &trip) || !cf_from(x, inner->start, &start) ||
        !cf_from(x, inner->step, &step) || start.n || !km__is_const(km_cform_view(&step), &one) ||
        one != 1 || !cf_equal(&trip, k_col ? &E : &rows)) {
        near(x, KM_CLASS_GEMM, inner->line, k_col ? EN(KM_K_LOOP_NOT_WHOLE_ROW) : EN(KM_K_LOOP_NOT_WHOLE_ROWS),
             inner->line, sbuf);
        return NO;
    }
    if (km_barriers(x->k) < 2) {
        near(x, KM_CLASS_GEMM, inner->line, EN(KM_TILE_NO_SYNC), sbuf);
        return NO;
    }
    km_cform gw;
    if (!cf_from(x, g->args[0], &gw) ||
        !cf_rename(x, &gw, k_col ? (uint32_t)col_t : (uint32_t)row_t, kc, gidx)) {
        text(x, g->args[0], tt, sizeof(tt));
        near(x, KM_CLASS_GEMM, w->line, EN(KM_TILE_FILL_NOT_AFFINE), g->name, tt, sbuf);
        return NO;
    }
    /* the launch's block must be the tile: E along the column axis, rows along the other */
    const km_cform *need[2] = {&E, &rows};
    int axes[2] = {col_ax, row_ax};
    for (int i = 0; i < 2; i++) {
        km_cform *tb = &c->tile_block[axes[i]];
        if (tb->known && !cf_equal(tb, need[i])) {
            near(x, KM_CLASS_GEMM, w->line, EN(KM_TILE_BLOCKS_DIFFER), "xyz"[axes[i]]);
            return NO;
        }
        *tb = *need[i];
    }
    *gbuf = g->name;
    return FIT;
}

/* The tile loop T around the k loop: each operand seen through its tile moves by a whole
 * tile per iteration of T (its k step times the k loop's trip), so T and k together run
 * k' = T*trip + k over 0 .. trips*trip - 1 with nothing skipped or read twice. T's term
 * leaves each operand's rest; *K gets trips*trip. The sum must be kept across T: C is
 * written after T, from an accumulator T does not restart. */
static int tile_steps(cx *x, operand *op, const km_loop *inner, km_cform *K)
{
    const km_loop *T = &x->loops[inner->parent];
    uint32_t tc = T->counter;
    km_cform tt, kt;
    if (!T->has_trip || !inner->has_trip || !cf_from(x, T->trip, &tt) ||
        !cf_from(x, inner->trip, &kt) || tt.n == 0 || kt.n != 1) {
        near(x, KM_CLASS_GEMM, T->line, EN(KM_TILE_NO_TRIP), T->line, inner->line);
        return NO;
    }
    for (uint32_t i = 0; i < tt.n; i++)
        if (kt.t[0].n + tt.t[i].n > KM_DEGREE_MAX)
            return NO;
    for (int r = 0; r < 2; r++) {
        km_cform coef, rest, want = {.known = true};
        if (op[r].s.n == 1 && op[r].s.t[0].n + kt.t[0].n > KM_DEGREE_MAX)
            return NO;
        if (!linear_in(x, &op[r].rest, tc, &coef, &rest) || op[r].s.n != 1) {
            near(x, KM_CLASS_GEMM, T->line, EN(KM_TILE_INDEX_NOT_AFFINE), op[r].buf, T->line);
            return NO;
        }
        km_term m = op[r].s.t[0];
        for (uint32_t j = 0; j < kt.t[0].n && m.n < KM_DEGREE_MAX; j++)
            m.atoms[m.n++] = kt.t[0].atoms[j];
        m.coef *= kt.t[0].coef;
        cf_push(&want, &m);
        uint32_t n = want.n;
        km__canon(x->k, want.t, &n);
        want.n = n;
        if (!cf_equal(&coef, &want)) {
            char a[160], b[160];
            text(x, km_cform_view(&coef), a, sizeof(a));
            text(x, km_cform_view(&want), b, sizeof(b));
            near(x, KM_CLASS_GEMM, T->line, EN(KM_TILE_MOVES), T->line,
                 op[r].buf, coef.n ? a : "0", b);
            return NO;
        }
        op[r].rest = rest;
    }
    /* K = trips * trip */
    memset(K, 0, sizeof(*K));
    K->known = true;
    for (uint32_t i = 0; i < tt.n; i++) {
        km_term kk = tt.t[i];
        for (uint32_t j = 0; j < kt.t[0].n; j++)
            kk.atoms[kk.n++] = kt.t[0].atoms[j];
        kk.coef *= kt.t[0].coef;
        cf_push(K, &kk);
    }
    uint32_t n = K->n;
    km__canon(x->k, K->t, &n);
    K->n = n;
    return FIT;
}

/* sum over loop L of operand (one term) combined into C at w; acc the accumulator or -1
 * when C is updated in the loop itself. */
static int product(cx *x, km_form operand_f, size_t L, const km_access *w, long acc)
{
    km_class *c = x->c;
    const km_loop *lp = &x->loops[L];
    if (operand_f.n != 1 || lp->kind != KM_LOOP_AFFINE)
        return NO;
    const km_term *t = &operand_f.t[0];
    operand op[2];
    uint32_t nr = 0;
    bool alpha = t->coef != 1, scalars = true, shared = false;
    for (uint32_t j = 0; j < t->n; j++) {
        const km_atom *a = &x->atoms[t->atoms[j]];
        if (a->kind == KM_ATOM_READ) {
            if (nr == 2)
                return NO;
            op[nr].buf = a->name;
            op[nr].index = a->args[0];
            shared |= !is_global_param(x, a->name);
            nr++;
        } else if (scalar_atom(x, t->atoms[j])) {
            alpha = true;
        } else {
            scalars = false;
        }
    }
    if (nr != 2 || !scalars)
        return NO;
    if (strcmp(op[0].buf, op[1].buf) == 0 && km_form_equal(op[0].index, op[1].index))
        return NO;   /* a sum of squares */
    int64_t step;
    if (!km__is_const(lp->step, &step) || step != 1) {
        near(x, KM_CLASS_GEMM, lp->line, EN(KM_K_LOOP_STEP), lp->line);
        return NO;
    }
    uint32_t kc = lp->counter;
    bool seen = false;
    for (int r = 0; r < 2; r++) {
        km_cform idx;
        /* a __shared__ tile: the global element it holds; a tile that is not seen through
         * stays a product of tiles (shared_tiles, which no library call replaces) */
        if (!is_global_param(x, op[r].buf) &&
            see_through(x, op[r].buf, op[r].index, lp, &op[r].buf, &idx) == FIT)
            seen = true;
        else if (!cf_from(x, op[r].index, &idx))
            return NO;
        if (!linear_in(x, &idx, kc, &op[r].s, &op[r].rest)) {
            char tt[160];
            text(x, op[r].index, tt, sizeof(tt));
            near(x, KM_CLASS_GEMM, read_line(x, op[r].buf, op[r].index),
                 EN(KM_K_NOT_AFFINE),
                 op[r].buf, tt, lp->var ? lp->var : "?", lp->line);
            return NO;
        }
        if (op[r].s.n == 0)
            return NO;   /* one factor does not move with k: a scaled reduction */
    }
    km_cform ktrip = {.known = false};
    if (seen && tile_steps(x, op, lp, &ktrip) != FIT)
        return NO;
    for (uint32_t l = 0; seen && l < w->n_loops; l++)
        if (w->loops[l] == (uint32_t)lp->parent) {
            near(x, KM_CLASS_GEMM, w->line, EN(KM_WRITTEN_IN_TILE_LOOP), w->buffer, x->loops[lp->parent].line);
            return NO;
        }
    for (int r = 0; r < 2; r++)
        op[r].ids = ids_of(x, &op[r].rest, kc);
    km_cform ce;
    if (!cf_from(x, w->element, &ce))
        return NO;
    idset cids = ids_of(x, &ce, UINT32_MAX);
    bool share[2];
    for (int r = 0; r < 2; r++) {
        share[r] = false;
        for (uint32_t j = 0; j < op[r].ids.n; j++)
            share[r] |= ids_has(&cids, op[r].ids.v[j]);
    }
    if (!share[0] && !share[1])
        return NO;   /* a dot product */
    c->out = w->buffer;
    c->line = w->line;
    c->alpha = alpha;
    c->shared_tiles = shared;
    c->tiles_seen = seen;
    if (seen)
        c->k = ktrip;
    else if (lp->has_trip)
        cf_from(x, lp->trip, &c->k);
    if (share[0] && share[1]) {
        /* GEMM: A is the operand named first among the parameters */
        int a = param_pos(x, op[0].buf) <= param_pos(x, op[1].buf) ? 0 : 1, b = 1 - a;
        km_cform ip, jp, r1, r2, fi, I, fj, J;
        if (!split_by(x, &ce, &op[a].ids, &op[b].ids, &ip, &r1) ||
            !split_by(x, &r1, &op[b].ids, &op[a].ids, &jp, &r2) ||
            !factor_out(x, &ip, &fi, &I) || !factor_out(x, &jp, &fj, &J))
            return NO;
        c->batch_c = r2;
        bool one_i = cf_is_const(&fi, 1), one_j = cf_is_const(&fj, 1);
        char tt[160];
        text(x, w->index, tt, sizeof(tt));
        if (one_i == one_j) {
            near(x, KM_CLASS_GEMM, w->line, EN(KM_ROWS_COLUMNS),
                 w->buffer, tt);
            return NO;
        }
        c->col_major = one_i;
        c->ldc = one_i ? fj : fi;
        /* A[i,k]: rest = fa*I + batch */
        km_cform pa, ba, fa, qa, pb, bb, fb, qb;
        if (!split_by(x, &op[a].rest, &op[a].ids, &op[b].ids, &pa, &ba) ||
            !split_by(x, &op[b].rest, &op[b].ids, &op[a].ids, &pb, &bb) ||
            !factor_out(x, &pa, &fa, &qa) || !factor_out(x, &pb, &fb, &qb))
            return NO;
        if (!cf_equal(&qa, &I) || !cf_equal(&qb, &J)) {
            const operand *bad = !cf_equal(&qa, &I) ? &op[a] : &op[b];
            text(x, bad->index, tt, sizeof(tt));
            near(x, KM_CLASS_GEMM, read_line(x, bad->buf, bad->index),
                 bad == &op[a] ? EN(KM_NOT_INDEX_ROWS) : EN(KM_NOT_INDEX_COLUMNS), bad->buf, tt,
                 w->buffer, w->buffer);
            return NO;
        }
        bool sa1 = cf_is_const(&op[a].s, 1), fa1 = cf_is_const(&fa, 1);
        bool sb1 = cf_is_const(&op[b].s, 1), fb1 = cf_is_const(&fb, 1);
        if (sa1 == fa1 || sb1 == fb1) {
            const operand *bad = sa1 == fa1 ? &op[a] : &op[b];
            text(x, bad->index, tt, sizeof(tt));
            near(x, KM_CLASS_GEMM, read_line(x, bad->buf, bad->index),
                 EN(KM_NO_LEADING_DIM), bad->buf, tt);
            return NO;
        }
        c->kind = KM_CLASS_GEMM;
        c->in[0] = op[a].buf;
        c->in[1] = op[b].buf;
        c->n_in = 2;
        c->lda = sa1 ? fa : op[a].s;
        c->ldb = sb1 ? fb : op[b].s;
        c->trans_a = c->col_major ? sa1 : fa1;
        c->trans_b = c->col_major ? fb1 : sb1;
        c->batch_a = ba;
        c->batch_b = bb;
        c->batched = ba.n || bb.n || r2.n;
        bound_of(x, &I, &c->m);
        bound_of(x, &J, &c->n);
        c->row_axis = axis_of(x, km_cform_view(&I));
        c->col_axis = axis_of(x, km_cform_view(&J));
        c->row_index = I;
        c->col_index = J;
    } else {
        /* GEMV: the matrix shares C's index, the vector moves with k only */
        int a = share[0] ? 0 : 1, v = 1 - a;
        km_cform ip, bc, fi, I, pa, ba, fa, qa;
        idset none = {.n = 0};
        if (!split_by(x, &ce, &op[a].ids, &none, &ip, &bc) || !factor_out(x, &ip, &fi, &I) ||
            !split_by(x, &op[a].rest, &op[a].ids, &none, &pa, &ba) ||
            !factor_out(x, &pa, &fa, &qa))
            return NO;
        idset vb = ids_of(x, &op[v].rest, kc);
        if (vb.n || !cf_equal(&qa, &I) || ids_of(x, &ba, kc).n)
            return NO;   /* a window (convolution) or something else */
        bool s1 = cf_is_const(&op[a].s, 1), f1 = cf_is_const(&fa, 1);
        int64_t small;
        if (s1 == f1 || (s1 && km__is_const(km_cform_view(&fa), &small)))
            return NO;   /* overlapping rows: a sliding window */
        c->kind = KM_CLASS_GEMV;
        c->in[0] = op[a].buf;
        c->in[1] = op[v].buf;
        c->n_in = 2;
        c->by_columns = f1;
        c->lda = s1 ? fa : op[a].s;
        c->ldb = op[v].s;    /* x's increment */
        c->ldc = fi;         /* y's increment */
        c->batch_a = ba;
        c->batch_b = op[v].rest;
        c->batch_c = bc;
        c->batched = ba.n || bc.n;
        bound_of(x, &I, &c->m);
        c->n = c->k;
        c->row_axis = axis_of(x, km_cform_view(&I));
        c->col_axis = -1;
        c->row_index = I;
    }
    if (acc >= 0)
        return gemm_epilogue(x, w, (size_t)acc);
    c->accumulate = c->beta = true;
    return FIT;
}

static int try_product(cx *x)
{
    km_class saved = *x->c;
    for (size_t i = 0; i < x->n_acs; i++) {
        const km_accumulator *ac = &x->acs[i];
        if (ac->op != KM_OP_SUM || ac->loop < 0)
            continue;
        for (size_t j = 0; j < x->n_as; j++) {
            const km_access *w = &x->as[j];
            if (w->mode == KM_READ || w->space != KM_SPACE_GLOBAL ||
                !mentions_acc(x, w->element_value, i) || (x->only_out && strcmp(w->buffer, x->only_out) != 0))
                continue;
            if (product(x, ac->element_operand, (size_t)ac->loop, w, (long)i) == FIT)
                return FIT;
            enum km_class_kind nk = x->c->near;
            char why[256];
            uint32_t wl = x->c->why_line;
            memcpy(why, x->c->why, sizeof(why));
            *x->c = saved;
            if (saved.near == KM_CLASS_NONE && nk != KM_CLASS_NONE) {
                x->c->near = nk;
                x->c->why_line = wl;
                memcpy(x->c->why, why, sizeof(why));
            }
            saved = *x->c;
            break;
        }
    }
    /* C[i,j] += alpha*A*B inside the k loop */
    for (size_t j = 0; j < x->n_as; j++) {
        const km_access *w = &x->as[j];
        if (w->mode != KM_RMW || w->op != KM_OP_SUM || w->space != KM_SPACE_GLOBAL ||
            w->atomic || !w->n_loops || (x->only_out && strcmp(w->buffer, x->only_out) != 0))
            continue;
        size_t L = w->loops[w->n_loops - 1];
        if (!km_access_invariant_in(x->k, w, L))
            continue;
        if (product(x, w->element_value, L, w, -1) == FIT)
            return FIT;
        enum km_class_kind nk = x->c->near;
        char why[256];
        uint32_t wl = x->c->why_line;
        memcpy(why, x->c->why, sizeof(why));
        *x->c = saved;
        if (saved.near == KM_CLASS_NONE && nk != KM_CLASS_NONE) {
            x->c->near = nk;
            x->c->why_line = wl;
            memcpy(x->c->why, why, sizeof(why));
        }
        saved = *x->c;
    }
    return NO;
}

/* ---- softmax and norms ------------------------------------------------------------- */

/* Does the sum's operand read back an element the same loop wrote with an exponential
 * (out[j] = expf(x[j] - m); sum += out[j])? */
static bool exp_stored(const cx *x, const km_accumulator *ac)
{
    km_form o = ac->operand;
    if (o.n != 1 || o.t[0].n != 1 || x->atoms[o.t[0].atoms[0]].kind != KM_ATOM_READ)
        return false;
    const km_atom *r = &x->atoms[o.t[0].atoms[0]];
    for (size_t j = 0; j < x->n_as; j++) {
        const km_access *w = &x->as[j];
        if (w->mode != KM_READ && strcmp(w->buffer, r->name) == 0 &&
            km_form_equal(w->index, r->args[0]) && calls(x, w->value, EXP, 0))
            return true;
    }
    return false;
}

/* A maximum kept by `if (x[j] > m) m = x[j];`: a guard comparing an unfollowed local
 * with a read, inside a loop. */
static bool conditional_max(const cx *x)
{
    for (size_t g = 0; g < x->n_gs; g++) {
        const km_guard *gd = &x->gs[g];
        if (strcmp(gd->op, "<") != 0 || gd->lhs.n != 1 || gd->lhs.t[0].n != 1)
            continue;
        if (x->atoms[gd->lhs.t[0].atoms[0]].kind == KM_ATOM_VAR &&
            km_form_mentions_kind(x->k, gd->rhs, KM_ATOM_READ, -1))
            return true;
    }
    return false;
}

/* Is the exponential in f taken of something minus a value read from global memory at an
 * index the loop (counter ctr) does not move: a row's maximum stored by an earlier kernel
 * (a softmax in two kernels: `expf(x[r * C + c] - row_max[r])`)? */
static bool exp_shift_read(const cx *x, km_form f, uint32_t ctr, int depth)
{
    if (depth > 16)
        return false;
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *a = &x->atoms[f.t[i].atoms[j]];
            if (a->kind != KM_ATOM_OPAQUE && a->kind != KM_ATOM_READ)
                continue;
            bool is_exp = false;
            if (a->kind == KM_ATOM_OPAQUE && a->name && strcmp(a->op, "call") == 0)
                for (const char *const *n = EXP; *n && !is_exp; n++)
                    is_exp = strcmp(a->name, *n) == 0;
            if (is_exp && a->n_args >= 1) {
                km_form g = a->args[0];
                for (uint32_t t = 0; t < g.n; t++) {
                    if (g.t[t].coef >= 0 || g.t[t].n != 1)
                        continue;
                    const km_atom *r = &x->atoms[g.t[t].atoms[0]];
                    if (r->kind == KM_ATOM_READ && r->n_args && is_global_param(x, r->name) &&
                        !km_form_mentions(x->k, r->args[0], ctr) &&
                        !km_form_mentions_kind(x->k, r->args[0], KM_ATOM_READ, -1))
                        return true;
                }
            }
            for (uint32_t g = 0; g < a->n_args; g++)
                if (exp_shift_read(x, a->args[g], ctr, depth + 1))
                    return true;
        }
    return false;
}

static int try_softmax(cx *x)
{
    km_class *c = x->c;
    long mx = -1, sm = -1;
    for (size_t i = 0; i < x->n_acs; i++) {
        const km_accumulator *ac = &x->acs[i];
        if (ac->loop < 0)
            continue;
        if (ac->op == KM_OP_MAX && mx < 0)
            mx = (long)i;
        if ((ac->op == KM_OP_SUM || ac->op == KM_OP_OTHER) && sm < 0 &&
            (calls(x, ac->operand, EXP, 0) || exp_stored(x, ac)))
            sm = (long)i;
    }
    if (sm < 0)
        return NO;
    bool has_max = mx >= 0 || conditional_max(x) ||
                   exp_shift_read(x, x->acs[sm].operand, x->loops[x->acs[sm].loop].counter, 0);
    for (size_t j = 0; j < x->n_as; j++) {
        const km_access *w = &x->as[j];
        if (w->mode == KM_READ || w->space != KM_SPACE_GLOBAL ||
            !mentions_acc(x, w->value, (size_t)sm))
            continue;
        if (!has_max) {
            near(x, KM_CLASS_SOFTMAX, x->acs[sm].line,
                 EN(KM_SOFTMAX_NO_MAX),
                 x->acs[sm].line);
            return NO;
        }
        c->kind = KM_CLASS_SOFTMAX;
        c->out = w->buffer;
        c->line = w->line;
        c->axis = KM_AXIS_ROW;
        c->how = KM_HOW_LOOP;
        c->passes = mx >= 0 && x->acs[mx].loop == x->acs[sm].loop ? 1 : 2;
        for (size_t r = 0; r < x->n_as; r++)
            if (x->as[r].mode == KM_READ && x->as[r].space == KM_SPACE_GLOBAL &&
                strcmp(x->as[r].buffer, c->out) != 0)
                add_in(c, x->as[r].buffer);
        return FIT;
    }
    return NO;
}

static int try_norm(cx *x)
{
    km_class *c = x->c;
    for (size_t j = 0; j < x->n_as; j++) {
        const km_access *w = &x->as[j];
        if (w->mode == KM_READ || w->space != KM_SPACE_GLOBAL || !calls(x, w->value, SQRT, 0))
            continue;
        /* the normalised value reads an input, and sums over it make the statistics */
        km_class probe = {.n_in = 0};
        reads_in(x, w->value, &probe, 0);
        if (!probe.n_in)
            continue;
        /* the root of the output's own element (`std[j] = sqrtf(std[j] / n)` after summing
         * into std[j]): the end of a reduction into a global element, nothing normalised */
        if (probe.n_in == 1 && strcmp(probe.in[0], w->buffer) == 0)
            continue;
        unsigned loops = 0;
        long last = -2;
        bool mean = false, any = false;
        for (size_t i = 0; i < x->n_acs; i++) {
            const km_accumulator *ac = &x->acs[i];
            if ((ac->op != KM_OP_SUM && ac->op != KM_OP_OTHER) || ac->loop < 0 ||
                !mentions_acc(x, w->value, i))
                continue;
            any = true;
            if (ac->loop != last)
                loops++;
            last = ac->loop;
            /* a mean: the sum of the plain input (not of squares) */
            km_form o = ac->operand;
            if (o.n == 1 && o.t[0].n == 1 && x->atoms[o.t[0].atoms[0]].kind == KM_ATOM_READ)
                mean = true;
        }
        /* without sums here, the statistics come from other buffers read per row or
         * channel (a normalise pass): an element-wise square root is not a norm */
        bool stats = false;
        for (size_t r = 0; r < x->n_as && !any; r++) {
            const km_access *ra = &x->as[r];
            stats |= ra->mode == KM_READ && ra->space == KM_SPACE_GLOBAL &&
                     ra->line >= w->line - 8 && ra->line <= w->line &&
                     !thread_free(x, ra->element) && !km_form_equal(ra->element, w->element);
        }
        if (!any && !stats) {
            if (x->n_acs)
                near(x, KM_CLASS_NORM, w->line, EN(KM_NORM_SQRT_NOTHING), w->buffer);
            continue;
        }
        c->kind = KM_CLASS_NORM;
        c->out = w->buffer;
        c->line = w->line;
        c->axis = KM_AXIS_ROW;
        c->how = any ? KM_HOW_LOOP : KM_HOW_NONE;
        c->passes = loops;
        c->rms = any && !mean;
        for (uint32_t i = 0; i < probe.n_in; i++)
            add_in(c, probe.in[i]);
        return FIT;
    }
    return NO;
}

/* ---- windows: convolution, pooling, stencils --------------------------------------- */

static const km_access *write_of_acc(const cx *x, size_t acc)
{
    for (size_t j = 0; j < x->n_as; j++)
        if (x->as[j].mode != KM_READ && x->as[j].space == KM_SPACE_GLOBAL &&
            mentions_acc(x, x->as[j].element_value, acc))
            return &x->as[j];
    return NULL;
}

/* The most trips of a loop of taps over coefficients: a small constant bound (a stencil's
 * or filter's radius), not a data-sized range. */
#define KM_TAPS_MAX 64

/* Session 47 (issue 13): does the value accumulated in loop l (a local declared at line
 * decl, or 0 for a global element: loops from l outwards while the element stays put in
 * them, rmw) reduce over a small constant range only? Every loop it is accumulated across
 * -- l and the loops around it opened after the declaration (for a global element: that
 * its index does not move with) -- counts a known constant trip of at most KM_TAPS_MAX;
 * grid- and block-stride loops are data-sized. A tap loop over coefficients
 * (`value += stencil[i] * (...)` for i up to the radius) is then no reduction: a
 * reduction combines elements or threads, a range the data sizes. */
static bool small_range(const cx *x, long l, uint32_t decl, const km_access *rmw)
{
    bool any = false;
    for (; l >= 0; l = x->loops[l].parent) {
        const km_loop *lp = &x->loops[l];
        if (rmw ? !km_access_invariant_in(x->k, rmw, (size_t)l) : lp->line < decl)
            break;
        int64_t trip;
        if (lp->kind == KM_LOOP_GRID_STRIDE || lp->kind == KM_LOOP_BLOCK_STRIDE || !lp->has_trip ||
            !km_form_value(x->k, lp->trip, &trip) || trip <= 0 || trip > KM_TAPS_MAX)
            return false;
        any = true;
    }
    return any;
}

/* Loops nested from the accumulator's loop outwards that the read's index moves with. */
static unsigned window_loops(const cx *x, const km_accumulator *ac, km_form index)
{
    unsigned n = 0;
    for (long l = ac->loop; l >= 0; l = x->loops[l].parent)
        if (km_form_mentions(x->k, index, x->loops[l].counter) &&
            x->loops[l].kind != KM_LOOP_GRID_STRIDE)
            n++;
    return n;
}

/* Offsets of a window read from the thread's element: the read with every window loop
 * counter at each of its values, when the trips are small constants. */
static void window_offsets_cf(cx *x, const km_accumulator *ac, const km_cform *we, km_form index,
                              const km_cform *idx_in);

static void window_offsets(cx *x, const km_accumulator *ac, const km_access *w, km_form index)
{
    km_cform idx, we;
    if (!cf_from(x, index, &idx))
        return;
    bool have_we = cf_from(x, w->element, &we);
    window_offsets_cf(x, ac, have_we ? &we : NULL, index, &idx);
}

/* window_offsets from the forms as cforms: the read's index idx_in (index itself for the
 * loops it mentions) and the centre element we (NULL: none). */
static void window_offsets_cf(cx *x, const km_accumulator *ac, const km_cform *we, km_form index,
                              const km_cform *idx_in)
{
    km_class *c = x->c;
    km_cform idx = *idx_in, base;
    /* the center: the read with every counter at 0 */
    km_cform off0 = idx;
    int64_t trips[4];
    uint32_t ctr[4];
    km_cform coef[4];
    unsigned n = 0;
    for (long l = ac->loop; l >= 0 && n < 4; l = x->loops[l].parent) {
        if (!km_form_mentions(x->k, index, x->loops[l].counter))
            continue;
        km_cform rest;
        if (!x->loops[l].has_trip || !km_form_value(x->k, x->loops[l].trip, &trips[n]) ||
            !linear_in(x, &off0, x->loops[l].counter, &coef[n], &rest))
            return;
        ctr[n] = x->loops[l].counter;
        off0 = rest;
        n++;
    }
    (void)ctr;
    if (!we || !cf_sub(x, &off0, we, &base) || !thread_free(x, km_cform_view(&base))) {
        /* different shapes: offsets from the window's first element */
        memset(&base, 0, sizeof(base));
        base.known = true;
    }
    int64_t total = 1;
    for (unsigned i = 0; i < n; i++)
        total *= trips[i];
    if (total <= 0 || total > (int64_t)(KM_CLASS_OFFSETS_MAX - c->n_offsets))   /* room after those there */
        return;
    for (int64_t e = 0; e < total; e++) {
        km_cform o = base;
        int64_t r = e;
        for (unsigned i = 0; i < n; i++) {
            int64_t v = r % trips[i];
            r /= trips[i];
            for (uint32_t t = 0; t < coef[i].n && v; t++) {
                km_term tt = coef[i].t[t];
                tt.coef *= v;
                if (!cf_push(&o, &tt))
                    return;
            }
        }
        uint32_t m = o.n;
        km__canon(x->k, o.t, &m);
        o.n = m;
        int64_t v;   /* -RADIUS + 1 with RADIUS known: -2 */
        if (km_form_value(x->k, km_cform_view(&o), &v)) {
            memset(&o, 0, sizeof(o));
            o.known = true;
            km_term t = {.coef = v};
            if (v)
                cf_push(&o, &t);
        }
        c->offsets[c->n_offsets++] = o;
    }
}

static void offsets_shape(cx *x)
{
    km_class *c = x->c;
    uint32_t keys[8][KM_DEGREE_MAX + 1];
    unsigned nk = 0;
    c->radius = 0;
    for (uint32_t i = 0; i < c->n_offsets; i++)
        for (uint32_t t = 0; t < c->offsets[i].n; t++) {
            const km_term *tt = &c->offsets[i].t[t];
            int64_t a = tt->coef < 0 ? -tt->coef : tt->coef;
            if (a > c->radius)
                c->radius = a;
            if (tt->n == 0)
                continue;
            bool seen = false;
            for (unsigned k = 0; k < nk; k++)
                seen |= keys[k][0] == tt->n && memcmp(&keys[k][1], tt->atoms,
                                                      tt->n * sizeof(uint32_t)) == 0;
            if (!seen && nk < 8) {
                keys[nk][0] = tt->n;
                memcpy(&keys[nk][1], tt->atoms, tt->n * sizeof(uint32_t));
                nk++;
            }
        }
    if (!c->dims)
        c->dims = 1 + nk;
}

/* f as a cform with every named constant of known value multiplied into its term's
 * coefficient (`(ty - i) * (k_blockDimX + 2 * RADIUS) + tx` has 9 terms with the names,
 * 4 without): false when more than KM_CFORM_TERMS terms remain. */
static bool cf_folded(const cx *x, km_form f, km_cform *o)
{
    km_term t[64];
    uint32_t n = 0;
    if (f.n > 64)
        return false;
    for (uint32_t i = 0; i < f.n; i++) {
        km_term r = {.coef = f.t[i].coef};
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *a = &x->atoms[f.t[i].atoms[j]];
            if (a->kind == KM_ATOM_CONST && a->has_value)
                r.coef *= a->value;
            else
                r.atoms[r.n++] = f.t[i].atoms[j];
        }
        t[n++] = r;
    }
    return cf_store(x, t, n, o);
}

/* Session 47 (issue 13): a weighted stencil, `value += c[i] * (in[e - i] + in[e + i])`
 * (FDTD3d's `stencil[i] * (infront[i-1] + behind[i-1] + tile[ty-i][tx] + ...)`): a sum of
 * several terms over a small constant range of taps (small_range), every term reading
 * something that moves with the taps, and the reads that also move with the thread (its
 * neighbours) all of one array -- the stencil's input; the rest are coefficients or the
 * thread's own registers. The class is a stencil over that array (over a __shared__ tile:
 * the kernel's global reads are its inputs), its offsets those of each neighbour read. */
static bool weighted_window(cx *x, const km_accumulator *ac, const km_access *w)
{
    km_class *c = x->c;
    if (!small_range(x, ac->loop, ac->line, NULL))
        return false;
    km_form o = ac->element_operand;
    const km_atom *nb[KM_CLASS_OFFSETS_MAX];
    uint32_t nn = 0;
    for (uint32_t t = 0; t < o.n; t++) {
        bool taps = false;
        for (uint32_t j = 0; j < o.t[t].n; j++) {
            const km_atom *a = &x->atoms[o.t[t].atoms[j]];
            if (a->kind != KM_ATOM_READ || !a->n_args || !window_loops(x, ac, a->args[0]))
                continue;
            taps = true;
            if (thread_free(x, a->args[0]))
                continue;   /* a coefficient, or the thread's own register queue */
            if (km_form_mentions_kind(x->k, a->args[0], KM_ATOM_READ, -1) ||
                (nn && strcmp(nb[0]->name, a->name) != 0))
                return false;   /* a gather, or neighbours of two arrays */
            bool dup = false;
            for (uint32_t q = 0; q < nn; q++)
                dup |= nb[q] == a;
            if (!dup && nn < KM_CLASS_OFFSETS_MAX)
                nb[nn++] = a;
        }
        if (!taps)
            return false;   /* a term the taps do not move: not a window of them */
    }
    if (!nn)
        return false;
    c->kind = KM_CLASS_STENCIL;
    c->out = w->buffer;
    c->line = w->line;
    c->dims = 0;
    /* the centre: an access of the array at the thread's own element, from which every
     * neighbour read lies a constant plus the taps away (`tile[l]` beside `tile[l - i]`;
     * FDTD's `tile[ty][tx] = current`), the nearest such (the least sum of those
     * constants: not a halo store `tile[ty - R][tx]`); else the output element, as for
     * one read */
    const km_access *center = w;
    int64_t best = INT64_MAX;
    for (size_t j = 0; j < x->n_as; j++) {
        const km_access *a = &x->as[j];
        km_cform ai, ri, d;
        if (strcmp(a->buffer, nb[0]->name) != 0 || !cf_folded(x, a->element, &ai))
            continue;
        bool all = true;
        int64_t far = 0;
        for (uint32_t q = 0; q < nn && all; q++) {
            all = cf_folded(x, nb[q]->args[0], &ri) && cf_sub(x, &ri, &ai, &d);
            for (uint32_t t = 0; t < d.n && all; t++) {
                bool tap = false;
                for (long l = ac->loop; l >= 0 && !tap; l = x->loops[l].parent)
                    for (uint32_t m = 0; m < d.t[t].n; m++)
                        tap |= d.t[t].atoms[m] == x->loops[l].counter;
                all = tap || d.t[t].n == 0;
                if (all && d.t[t].n == 0)
                    far += d.t[t].coef < 0 ? -d.t[t].coef : d.t[t].coef;
            }
        }
        if (all && far < best) {
            center = a;
            best = far;
        }
    }
    if (is_global_param(x, nb[0]->name)) {
        add_in(c, nb[0]->name);
    } else {
        for (size_t j = 0; j < x->n_as; j++)
            if (x->as[j].mode == KM_READ && x->as[j].space == KM_SPACE_GLOBAL)
                add_in(c, x->as[j].buffer);
    }
    c->n_offsets = 0;
    km_cform ce;
    bool have_ce = cf_folded(x, center->element, &ce);
    for (uint32_t q = 0; q < nn; q++) {
        uint32_t from = c->n_offsets;
        km_cform ri;
        if (cf_folded(x, nb[q]->args[0], &ri))
            window_offsets_cf(x, ac, have_ce ? &ce : NULL, nb[q]->args[0], &ri);
        /* keep each offset once */
        uint32_t keep = from;
        for (uint32_t e = from; e < c->n_offsets; e++) {
            bool dup = false;
            for (uint32_t f = 0; f < keep && !dup; f++)
                dup = cf_equal(&c->offsets[f], &c->offsets[e]);
            if (!dup)
                c->offsets[keep++] = c->offsets[e];
        }
        c->n_offsets = keep;
    }
    offsets_shape(x);
    return true;
}

static bool thread_atom(const cx *x, uint32_t id);

/* Session 47 (issue 13): is atom p, a size (a scalar parameter, or a named constant of
 * unknown value), the stride of something that moves in the output element we -- some
 * term of we holds p and a thread or block index (heat_2d's `y * nx + x`: nx strides y),
 * a loop counter (a column filter's row loop: `od[y * w + x]`) or another value the model
 * does not take for a size (a local it does not follow, a value read from memory)? */
static bool strided_by_thread(const cx *x, const km_cform *we, uint32_t p)
{
    for (uint32_t t = 0; t < we->n; t++) {
        bool has_p = false, moves = false;
        for (uint32_t a = 0; a < we->t[t].n; a++) {
            uint32_t id = we->t[t].atoms[a];
            enum km_atom_kind kd = x->atoms[id].kind;
            has_p |= id == p;
            moves |= thread_atom(x, id) || (kd != KM_ATOM_PARAM && kd != KM_ATOM_CONST && kd != KM_ATOM_LITERAL &&
                                            kd != KM_ATOM_BLOCK_DIM && kd != KM_ATOM_GRID_DIM);
        }
        if (has_p && moves)
            return true;
    }
    return false;
}

/* The offset d of a read from the output element we without its plane terms: a term that
 * is a multiple of a size that strides nothing moving in we (strided_by_thread) (Rodinia CFD's
 * `variables[i + VAR_DENSITY*nelr]` beside `variables[i + (VAR_MOMENTUM+0)*nelr]`: the
 * planes of a structure of arrays, nelr apart) picks another array, not a neighbour; the
 * rest is the offset within the plane. */
static void strip_planes(const cx *x, const km_cform *we, km_cform *d)
{
    uint32_t keep = 0;
    for (uint32_t t = 0; t < d->n; t++) {
        /* a plane term: it holds a size, and none of its sizes strides what moves (`r * w`,
         * r rows of a row stride w the output walks, is a neighbour) */
        bool size = false, stride = false;
        for (uint32_t a = 0; a < d->t[t].n && !stride; a++) {
            uint32_t id = d->t[t].atoms[a];
            const km_atom *at = &x->atoms[id];
            if (at->kind == KM_ATOM_PARAM || (at->kind == KM_ATOM_CONST && !at->has_value)) {
                size = true;
                stride = strided_by_thread(x, we, id);
            }
        }
        bool plane = size && !stride;
        if (!plane)
            d->t[keep++] = d->t[t];
    }
    d->n = keep;
}

static int try_window(cx *x)
{
    km_class *c = x->c;
    for (size_t i = 0; i < x->n_acs; i++) {
        const km_accumulator *ac = &x->acs[i];
        if (ac->loop < 0 || x->loops[ac->loop].kind == KM_LOOP_GRID_STRIDE ||
            x->loops[ac->loop].kind == KM_LOOP_BLOCK_STRIDE)
            continue;
        const km_access *w = write_of_acc(x, i);
        if (!w)
            continue;
        km_form o = ac->element_operand;
        if (o.n > 1 && ac->op == KM_OP_SUM && weighted_window(x, ac, w))
            return FIT;
        if (o.n != 1)
            continue;
        const km_atom *rd[2];
        uint32_t nr = 0;
        for (uint32_t j = 0; j < o.t[0].n; j++) {
            const km_atom *a = &x->atoms[o.t[0].atoms[j]];
            if (a->kind == KM_ATOM_READ && nr < 2)
                rd[nr++] = a;
        }
        if (nr == 2 && (ac->op == KM_OP_SUM)) {
            /* convolution: one read moves with the thread and the window, the other (the
             * filter) with the window only */
            int f = thread_free(x, rd[0]->args[0]) ? 0 : 1, in = 1 - f;
            if (!thread_free(x, rd[f]->args[0]) || thread_free(x, rd[in]->args[0]) ||
                !window_loops(x, ac, rd[f]->args[0]) || !window_loops(x, ac, rd[in]->args[0]))
                continue;
            /* a row picked through a value read from memory (table[idx[i] * M + m]) is a
             * gather, not a window around the output element */
            if (km_form_mentions_kind(x->k, rd[in]->args[0], KM_ATOM_READ, -1))
                continue;
            c->kind = KM_CLASS_CONVOLUTION;
            c->out = w->buffer;
            c->line = w->line;
            c->filter = rd[f]->name;
            add_in(c, rd[in]->name);
            add_in(c, rd[f]->name);
            c->dims = window_loops(x, ac, rd[in]->args[0]);
            window_offsets(x, ac, w, rd[in]->args[0]);
            offsets_shape(x);
            return FIT;
        }
        if (nr != 1 || thread_free(x, rd[0]->args[0]))
            continue;
        unsigned wl = window_loops(x, ac, rd[0]->args[0]);
        if (!wl)
            continue;
        bool ok;
        uint32_t aid = acc_atom(x, i, &ok);
        bool divided = ok && op_over(x, w->element_value, "/", aid, 0);
        if (ac->op == KM_OP_MAX || ac->op == KM_OP_MIN || (ac->op == KM_OP_SUM && divided)) {
            /* one loop over a whole row is a per-row reduction, not a window */
            if (wl == 1)   /* one loop: a reduction along a row or column */
                continue;
            c->kind = KM_CLASS_POOLING;
            c->reduce = ac->op == KM_OP_MAX ? KM_REDUCE_MAX
                        : ac->op == KM_OP_MIN ? KM_REDUCE_MIN : KM_REDUCE_MEAN;
        } else if (ac->op == KM_OP_SUM && !divided) {
            /* a sum over a small constant window of one array: a stencil */
            int64_t trip;
            const km_loop *lp = &x->loops[ac->loop];
            if (!lp->has_trip || !km_form_value(x->k, lp->trip, &trip) || trip > 64)
                continue;
            c->kind = KM_CLASS_STENCIL;
        } else {
            continue;
        }
        c->out = w->buffer;
        c->line = w->line;
        if (is_global_param(x, rd[0]->name))
            add_in(c, rd[0]->name);
        c->dims = c->kind == KM_CLASS_POOLING ? wl : 0;
        /* a stencil over a __shared__ tile: offsets from the thread's slot in the tile */
        const km_access *center = w;
        if (c->kind == KM_CLASS_STENCIL && !is_global_param(x, rd[0]->name)) {
            for (size_t j = 0; j < x->n_as; j++)
                if (x->as[j].mode == KM_WRITE && strcmp(x->as[j].buffer, rd[0]->name) == 0) {
                    center = &x->as[j];
                    break;
                }
            for (size_t j = 0; j < x->n_as; j++)
                if (x->as[j].mode == KM_READ && x->as[j].space == KM_SPACE_GLOBAL)
                    add_in(c, x->as[j].buffer);
        }
        window_offsets(x, ac, center, rd[0]->args[0]);
        offsets_shape(x);
        return FIT;
    }
    /* a max (min) kept by `if (v > m) { m = v; ... }`, an argmax beside it: m is a local
     * the model does not follow (assigned under a condition), bounded by the guard m < v
     * of a read that moves with two or more window loops; the output stores m. Max
     * pooling with its indices (mmcv's RoIPool, whose windows are read from the rois). */
    for (size_t j = 0; j < x->n_as; j++) {
        const km_access *w = &x->as[j];
        km_form v = w->element_value;
        if (w->mode != KM_WRITE || w->space != KM_SPACE_GLOBAL || v.n != 1 || v.t[0].n != 1 ||
            v.t[0].coef != 1 || x->atoms[v.t[0].atoms[0]].kind != KM_ATOM_VAR ||
            thread_free(x, w->element))
            continue;
        uint32_t m = v.t[0].atoms[0];
        for (size_t g = 0; g < x->n_gs; g++) {
            const km_guard *gd = &x->gs[g];
            if (strcmp(gd->op, "<") != 0 || gd->lhs.n != 1 || gd->rhs.n != 1 || gd->lhs.t[0].n != 1 ||
                gd->rhs.t[0].n != 1 || gd->lhs.t[0].coef != 1 || gd->rhs.t[0].coef != 1)
                continue;
            uint32_t l = gd->lhs.t[0].atoms[0], r = gd->rhs.t[0].atoms[0];
            bool is_max = l == m && x->atoms[r].kind == KM_ATOM_READ;
            bool is_min = r == m && x->atoms[l].kind == KM_ATOM_READ;
            if (!is_max && !is_min)
                continue;
            const km_atom *rd = &x->atoms[is_max ? r : l];
            if (!rd->n_args || !is_global_param(x, rd->name) || thread_free(x, rd->args[0]))
                continue;
            unsigned wl = 0;
            for (size_t q = 0; q < x->n_loops; q++)
                if (x->loops[q].kind != KM_LOOP_GRID_STRIDE &&
                    km_form_mentions(x->k, rd->args[0], x->loops[q].counter))
                    wl++;
            if (wl < 2)
                continue;   /* one loop: a row's max, not a window */
            c->kind = KM_CLASS_POOLING;
            c->reduce = is_max ? KM_REDUCE_MAX : KM_REDUCE_MIN;
            c->out = w->buffer;
            c->line = w->line;
            c->dims = wl;
            add_in(c, rd->name);
            return FIT;
        }
    }
    /* explicit stencils: out[e] = f(in[e + d0], in[e + d1], ...) */
    for (size_t j = 0; j < x->n_as; j++) {
        const km_access *w = &x->as[j];
        if (w->mode == KM_READ || w->space != KM_SPACE_GLOBAL)
            continue;
        km_form v = w->element_value;
        km_cform we;
        if (!cf_from(x, w->element, &we) || thread_free(x, w->element))
            continue;
        /* reads of one buffer whose indices differ from the output's by constants */
        for (size_t r = 0; r < x->n_as; r++) {
            const km_access *ra = &x->as[r];
            if (ra->mode != KM_READ || ra->space != KM_SPACE_GLOBAL)
                continue;
            km_class probe = *c;
            probe.n_offsets = 0;
            for (size_t q = 0; q < x->n_as; q++) {
                const km_access *qa = &x->as[q];
                if (qa->mode != KM_READ || strcmp(qa->buffer, ra->buffer) != 0 ||
                    qa->n_loops != w->n_loops)
                    continue;
                km_cform qi, d;
                if (!cf_from(x, qa->element, &qi) || !cf_sub(x, &qi, &we, &d) ||
                    !thread_free(x, km_cform_view(&d)) ||
                    km_form_mentions_kind(x->k, km_cform_view(&d), KM_ATOM_READ, -1))
                    continue;
                strip_planes(x, &we, &d);
                bool dup = false;
                for (uint32_t e = 0; e < probe.n_offsets; e++)
                    dup |= cf_equal(&probe.offsets[e], &d);
                if (!dup && probe.n_offsets < KM_CLASS_OFFSETS_MAX)
                    probe.offsets[probe.n_offsets++] = d;
            }
            if (probe.n_offsets < 3)
                continue;
            (void)v;
            *c = probe;
            c->kind = KM_CLASS_STENCIL;
            c->out = w->buffer;
            c->line = w->line;
            add_in(c, ra->buffer);
            offsets_shape(x);
            return FIT;
        }
    }
    return NO;
}

/* ---- reductions -------------------------------------------------------------------- */

static enum km_reduce reduce_of(enum km_op op)
{
    return op == KM_OP_MAX ? KM_REDUCE_MAX : op == KM_OP_MIN ? KM_REDUCE_MIN : KM_REDUCE_SUM;
}

static bool squared_read(const cx *x, km_form f)
{
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t a = 0; a < f.t[i].n; a++)
            for (uint32_t b = a + 1; b < f.t[i].n; b++)
                if (f.t[i].atoms[a] == f.t[i].atoms[b] &&
                    x->atoms[f.t[i].atoms[a]].kind == KM_ATOM_READ)
                    return true;
    return false;
}

/* Is array a __shared__ array of the kernel? */
static bool shared_array(const cx *x, const char *array)
{
    size_t n;
    const km_local *ls = km_locals(x->k, &n);
    for (size_t i = 0; i < n; i++)
        if (ls[i].kind == KM_LOCAL_ARRAY && ls[i].space == KM_SPACE_SHARED && strcmp(ls[i].name, array) == 0)
            return true;
    return false;
}

/* Does the accumulator sum products of two __shared__ arrays that both move with its loop
 * (As[ty][k] * Bs[k][tx])? That is the inner product of a tiled matrix product, not a
 * reduction of the input: *a and *b get the two arrays. */
static bool tile_product(const cx *x, const km_accumulator *ac, const char **a, const char **b)
{
    uint32_t ctr = x->loops[ac->loop].counter;
    for (uint32_t t = 0; t < ac->operand.n; t++) {
        const km_term *tm = &ac->operand.t[t];
        const char *first = NULL;
        for (uint32_t j = 0; j < tm->n; j++) {
            const km_atom *r = &x->atoms[tm->atoms[j]];
            if (r->kind != KM_ATOM_READ || !r->n_args || !shared_array(x, r->name) ||
                !km_form_mentions(x->k, r->args[0], ctr))
                continue;
            if (first && strcmp(first, r->name) != 0) {
                *a = first;
                *b = r->name;
                return true;
            }
            first = r->name;
        }
    }
    return false;
}

/* Is atom id a coordinate of the thread: a thread or block id, or an operation over one
 * (`i / (K*N)`, `i % K`)? */
static bool thread_atom(const cx *x, uint32_t id)
{
    enum km_atom_kind kd = x->atoms[id].kind;
    if (kd == KM_ATOM_THREAD_IDX || kd == KM_ATOM_BLOCK_IDX)
        return true;
    return kd == KM_ATOM_OPAQUE && (atom_mentions_kind(x, id, KM_ATOM_THREAD_IDX) ||
                                    atom_mentions_kind(x, id, KM_ATOM_BLOCK_IDX));
}

/* Does some term of f hold atom id itself (not inside another atom)? */
static bool top_has(km_form f, uint32_t id)
{
    for (uint32_t t = 0; t < f.n; t++)
        for (uint32_t a = 0; a < f.t[t].n; a++)
            if (f.t[t].atoms[a] == id)
                return true;
    return false;
}

#define COORDS_MAX 24
typedef struct {
    uint32_t v[COORDS_MAX];
    uint32_t n;
} coords;

/* The thread coordinates among f's own atoms into s; false when f holds an atom the
 * model does not follow (an unfollowed local, a value read from memory). */
static bool coords_of(const cx *x, km_form f, bool split_only, coords *s)
{
    for (uint32_t t = 0; t < f.n; t++)
        for (uint32_t a = 0; a < f.t[t].n; a++) {
            uint32_t id = f.t[t].atoms[a];
            enum km_atom_kind kd = x->atoms[id].kind;
            if (kd == KM_ATOM_VAR || kd == KM_ATOM_READ)
                return false;
            if (!thread_atom(x, id) || (split_only && kd != KM_ATOM_OPAQUE))
                continue;
            bool dup = false;
            for (uint32_t i = 0; i < s->n; i++)
                dup |= s->v[i] == id;
            if (!dup && s->n < COORDS_MAX)
                s->v[s->n++] = id;
        }
    return true;
}

static bool follows_all(km_form f, const coords *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (!top_has(f, s->v[i]))
            return false;
    return s->n > 0;
}

/* A loop accumulation into a per-thread output reduces many elements into few only when
 * its input is split among the outputs: some global read of the operand walks the loop,
 * is not gathered (no value read from memory in its index), and follows every thread
 * coordinate of the output element, so each output owns its own run of the input
 * (row_sum's in[r * cols + c]). An output written at the flat thread index whose
 * coordinates the kernel splits out with / and % (`b = i / (O * P)`, `o = i / P % O`)
 * has those coordinates, read from the other accesses. Otherwise the loop combines a few
 * terms gathered or shared by several outputs (PAConv's score assignment:
 * points[.. knn_idx[..] ..], and scores[b, n, k, m] read by every o): a map with an inner
 * loop, which no warp or block reduction speeds up. False then, with the first global read
 * that walks the loop in *read (NULL when there is none). */
static bool partitioned(const cx *x, const km_accumulator *ac, const km_access *w,
                        const km_atom **read)
{
    *read = NULL;
    coords out = {.n = 0}, split = {.n = 0};
    if (!coords_of(x, w->element, false, &out) || out.n == 0)
        return true;   /* an output the model does not follow: say nothing new */
    /* the coordinates the kernel splits the thread index into, wherever it indexes */
    for (size_t j = 0; j < x->n_as; j++)
        if (x->as[j].space == KM_SPACE_GLOBAL && !coords_of(x, x->as[j].element, true, &split))
            split.n = COORDS_MAX;   /* unknown: no split to compare with */
    if (split.n == COORDS_MAX)
        split.n = 0;
    uint32_t ctr = x->loops[ac->loop].counter;
    km_form op = ac->element_operand;
    for (uint32_t t = 0; t < op.n; t++)
        for (uint32_t a = 0; a < op.t[t].n; a++) {
            const km_atom *r = &x->atoms[op.t[t].atoms[a]];
            if (r->kind != KM_ATOM_READ || !r->n_args || !is_global_param(x, r->name) ||
                !km_form_mentions(x->k, r->args[0], ctr))
                continue;
            if (!*read)
                *read = r;
            if (km_form_mentions_kind(x->k, r->args[0], KM_ATOM_READ, -1))
                continue;   /* gathered */
            if (follows_all(r->args[0], &out) || follows_all(r->args[0], &split))
                return true;
        }
    return false;
}

/* A reduction's accumulator as try_reduction reads it: a local (`s += x[..]` in a loop,
 * its running value the atom "$acc<n>") or an element of a global buffer read, combined
 * and written back in a loop whose counter its index does not mention
 * (`mean[j] += x[i * M + j]`, its running value the read of mean[j]). Both spell the same
 * reduction into the same output: they give the same class. */
typedef struct {
    km_accumulator ac;        /* the local's, or one made up from the RMW (name: buffer) */
    long acc;                 /* index in km_accumulators, or -1 for a global element */
    const km_access *rmw;     /* the global element's update in the loop, or NULL */
    bool have_atom;
    uint32_t atom;            /* the running value */
} red_acc;

/* Does atom id belong to a loop's body walked by updates of the accumulator? A local's
 * updates outside its loop that come after it (`m = m / cols;` after the sum) finish the
 * value; the op is that of the updates inside the loop (OTHER when they disagree or one
 * comes elsewhere). */
static enum km_op loop_op(const cx *x, size_t acc, const km_accumulator *ac)
{
    size_t nu;
    const km_acc_update *us = km_acc_updates(x->k, &nu);
    enum km_op op = KM_OP_NONE;
    const km_loop *lp = &x->loops[ac->loop];
    for (size_t u = 0; u < nu; u++) {
        if (us[u].acc != acc)
            continue;
        bool in = false;
        for (uint32_t l = 0; l < us[u].n_loops; l++)
            in |= us[u].loops[l] == (uint32_t)ac->loop;
        if (!in) {
            if (us[u].line <= lp->line)
                return KM_OP_OTHER;
            continue;   /* a finishing update after the loop */
        }
        if (op != KM_OP_NONE && op != us[u].op)
            return KM_OP_OTHER;
        op = us[u].op;
    }
    return op == KM_OP_NONE ? ac->op : op;
}

/* The statistics a finished value says: divided (a mean), rooted (a deviation). For a
 * local, its writes and its updates after the loop; for a global element, the writes of
 * that element after the loop (`mean[j] /= n;`, `std[j] = sqrtf(std[j] / n);`). */
static void finish_of(const cx *x, const red_acc *ra, const km_access *w, bool *divided,
                      bool *rooted)
{
    *divided = *rooted = false;
    if (!ra->have_atom)
        return;
    if (w) {
        *divided |= op_over(x, w->element_value, "/", ra->atom, 0);
        *rooted |= calls(x, w->element_value, SQRT, 0);
    }
    if (ra->acc >= 0) {
        size_t nu;
        const km_acc_update *us = km_acc_updates(x->k, &nu);
        for (size_t u = 0; u < nu; u++) {
            bool in = false;
            for (uint32_t l = 0; l < us[u].n_loops; l++)
                in |= us[u].loops[l] == (uint32_t)ra->ac.loop;
            if (us[u].acc != (uint32_t)ra->acc || in)
                continue;
            *divided |= op_over(x, us[u].operand, "/", ra->atom, 0);
            *rooted |= calls(x, us[u].operand, SQRT, 0);
        }
        return;
    }
    for (size_t j = 0; j < x->n_as; j++) {
        const km_access *f = &x->as[j];
        if (f->mode == KM_READ || f == ra->rmw || strcmp(f->buffer, ra->rmw->buffer) != 0 ||
            !km_form_equal(f->index, ra->rmw->index) || f->line <= ra->rmw->line)
            continue;
        *divided |= op_over(x, f->element_value, "/", ra->atom, 0);
        *rooted |= calls(x, f->element_value, SQRT, 0);
    }
}

/* The write that holds a global element's result: the last write of that element after
 * its loop, or the update itself when nothing follows. */
static const km_access *result_of_rmw(const cx *x, const km_access *rmw)
{
    const km_access *w = rmw;
    for (size_t j = 0; j < x->n_as; j++) {
        const km_access *f = &x->as[j];
        if (f->mode != KM_READ && f != rmw && strcmp(f->buffer, rmw->buffer) == 0 &&
            km_form_equal(f->index, rmw->index) && f->line > w->line)
            w = f;
    }
    return w;
}

/* The reduction accumulators, locals first, into out (at most cap); their count. A global
 * element qualifies when it is updated by a sum, max or min (not atomically) inside an
 * affine loop whose counter its index does not mention, from a value that reads memory
 * and not the element itself. */
static size_t red_accs(const cx *x, red_acc *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < x->n_acs && n < cap; i++) {
        const km_accumulator *ac = &x->acs[i];
        if (ac->loop < 0)
            continue;
        red_acc *r = &out[n];
        *r = (red_acc){.ac = *ac, .acc = (long)i};
        r->ac.op = loop_op(x, i, ac);
        if (r->ac.op != KM_OP_SUM && r->ac.op != KM_OP_MAX && r->ac.op != KM_OP_MIN)
            continue;
        r->atom = acc_atom(x, i, &r->have_atom);
        n++;
    }
    for (size_t j = 0; j < x->n_as && n < cap; j++) {
        const km_access *a = &x->as[j];
        if (a->mode != KM_RMW || a->atomic || a->space != KM_SPACE_GLOBAL || !a->n_loops ||
            (a->op != KM_OP_SUM && a->op != KM_OP_MAX && a->op != KM_OP_MIN))
            continue;
        uint32_t L = a->loops[a->n_loops - 1];
        if (x->loops[L].kind != KM_LOOP_AFFINE || !km_access_invariant_in(x->k, a, L) ||
            !km_form_mentions_kind(x->k, a->value, KM_ATOM_READ, -1))
            continue;
        red_acc *r = &out[n];
        *r = (red_acc){.acc = -1, .rmw = a};
        r->ac = (km_accumulator){.name = a->buffer, .op = a->op, .operand = a->value,
                                 .element_operand = a->element_value, .loop = (long)L,
                                 .n_updates = 1, .line = a->line};
        for (size_t t = 0; t < x->n_atoms; t++)
            if (x->atoms[t].kind == KM_ATOM_READ && x->atoms[t].n_args &&
                strcmp(x->atoms[t].name, a->buffer) == 0 &&
                km_form_equal(x->atoms[t].args[0], a->index)) {
                r->have_atom = true;
                r->atom = (uint32_t)t;
                break;
            }
        if (r->have_atom && km_form_mentions(x->k, a->value, r->atom))
            continue;   /* the element feeds its own update: no plain reduction */
        n++;
    }
    return n;
}

static int try_reduction(cx *x)
{
    km_class *c = x->c;
    red_acc cand[32];
    size_t n_cand = red_accs(x, cand, sizeof(cand) / sizeof(cand[0]));
    for (size_t i = 0; i < n_cand; i++) {
        const km_accumulator *ac = &cand[i].ac;
        if (!km_form_mentions_kind(x->k, ac->operand, KM_ATOM_READ, -1) &&
            !km_form_mentions_kind(x->k, ac->operand, KM_ATOM_OPAQUE, -1))
            continue;
        /* session 47: a few taps of a constant bound (a stencil's coefficients) combine no
         * data-sized range: no reduction */
        if (small_range(x, ac->loop, ac->line, cand[i].rmw))
            continue;
        const char *ta, *tb;
        if (ac->op == KM_OP_SUM && tile_product(x, ac, &ta, &tb)) {
            near(x, KM_CLASS_GEMM, ac->line, EN(KM_TILED_PRODUCT), ac->name, ta, tb,
                 x->loops[ac->loop].line);
            continue;
        }
        const km_access *w = cand[i].acc >= 0 ? write_of_acc(x, (size_t)cand[i].acc)
                                              : result_of_rmw(x, cand[i].rmw);
        const km_loop *lp = &x->loops[ac->loop];
        c->kind = KM_CLASS_REDUCTION;
        c->reduce = reduce_of(ac->op);
        c->how = KM_HOW_LOOP;
        reads_in(x, ac->operand, c, 0);
        /* a shared tree or atomics finish per-thread partial sums */
        const km_loop *tl = NULL;
        if (shared_tree(x, &tl))
            c->how = KM_HOW_TREE;
        for (size_t j = 0; j < x->n_as; j++)
            if (x->as[j].atomic && x->as[j].space == KM_SPACE_GLOBAL) {
                c->how = KM_HOW_ATOMIC;
                if (!w)
                    w = &x->as[j];
            }
        if (!w)
            w = first_global_write(x);
        if (!w) {
            km_class keep = *c;
            *c = (km_class){.near = keep.near, .why_line = keep.why_line,
                            .row_axis = -1, .col_axis = -1};
            memcpy(c->why, keep.why, sizeof(c->why));
            continue;
        }
        c->out = w->buffer;
        c->line = w->line;
        if (lp->kind == KM_LOOP_GRID_STRIDE || lp->kind == KM_LOOP_BLOCK_STRIDE ||
            thread_free(x, w->element)) {
            c->axis = KM_AXIS_GLOBAL;
        } else {
            /* row: the read walks a row (stride 1 in the counter); column: it jumps rows */
            c->axis = KM_AXIS_ROW;
            for (uint32_t t = 0; t < ac->element_operand.n; t++)
                for (uint32_t a = 0; a < ac->element_operand.t[t].n; a++) {
                    const km_atom *r = &x->atoms[ac->element_operand.t[t].atoms[a]];
                    km_cform idx, s, rest;
                    if (r->kind != KM_ATOM_READ || !cf_from(x, r->args[0], &idx) ||
                        !linear_in(x, &idx, lp->counter, &s, &rest) || s.n == 0)
                        continue;
                    if (!cf_is_const(&s, 1))
                        c->axis = KM_AXIS_COLUMN;
                }
            const km_atom *r;
            if (c->how == KM_HOW_LOOP && !partitioned(x, ac, w, &r)) {
                uint32_t wline = w->line;
                const char *wbuf = w->buffer;
                km_class keep = *c;
                *c = (km_class){.near = keep.near, .why_line = keep.why_line,
                                .row_axis = -1, .col_axis = -1};
                memcpy(c->why, keep.why, sizeof(c->why));
                /* one sentence per reason (the table's): nothing global read, an input
                 * gathered, an input shared by outputs */
                if (!r)
                    near(x, KM_CLASS_REDUCTION, wline, EN(KM_MAP_NOTHING_GLOBAL), wbuf, ac->name,
                         lp->line);
                else
                    near(x, KM_CLASS_REDUCTION, wline,
                         km_form_mentions_kind(x->k, r->args[0], KM_ATOM_READ, -1)
                             ? EN(KM_MAP_GATHERED) : EN(KM_MAP_SHARED),
                         wbuf, ac->name, lp->line, r->name);
                continue;
            }
        }
        /* statistics: mean (divided), variance (squares, divided), std (square root) */
        bool divided, rooted;
        finish_of(x, &cand[i], w, &divided, &rooted);
        bool squares = squared_read(x, ac->element_operand);
        if (ac->op == KM_OP_SUM) {
            if (squares)
                c->reduce = rooted ? KM_REDUCE_STD : divided ? KM_REDUCE_VARIANCE : KM_REDUCE_SUMSQ;
            else if (rooted)
                c->reduce = KM_REDUCE_STD;
            else if (divided)
                c->reduce = KM_REDUCE_MEAN;
        }
        /* passes: the loops over the input that accumulate, locals' and global elements' */
        long last = -1;
        c->passes = 0;
        for (size_t j = 0; j < x->n_acs; j++)
            if (x->acs[j].loop >= 0 && x->acs[j].loop != last &&
                km_form_mentions_kind(x->k, x->acs[j].operand, KM_ATOM_READ, -1)) {
                c->passes++;
                last = x->acs[j].loop;
            }
        for (size_t j = 0; j < n_cand; j++)
            if (cand[j].acc < 0 && cand[j].ac.loop != last) {
                c->passes++;
                last = cand[j].ac.loop;
            }
        return FIT;
    }
    /* a shared-memory tree over one block's values */
    const km_loop *tl = NULL;
    const km_access *t = shared_tree(x, &tl);
    if (t) {
        c->kind = KM_CLASS_REDUCTION;
        c->reduce = reduce_of(t->op == KM_OP_NONE ? KM_OP_SUM : t->op);
        c->how = KM_HOW_TREE;
        c->axis = KM_AXIS_GLOBAL;
        c->passes = 1;
        const km_access *w = first_global_write(x);
        c->out = w ? w->buffer : NULL;
        c->line = w ? w->line : t->line;
        for (size_t r = 0; r < x->n_as; r++)
            if (x->as[r].mode == KM_READ && x->as[r].space == KM_SPACE_GLOBAL)
                add_in(c, x->as[r].buffer);
        return FIT;
    }
    /* atomics straight into the result */
    for (size_t j = 0; j < x->n_as; j++) {
        const km_access *a = &x->as[j];
        if (!a->atomic || (a->op != KM_OP_SUM && a->op != KM_OP_MAX && a->op != KM_OP_MIN))
            continue;
        c->kind = KM_CLASS_REDUCTION;
        c->reduce = reduce_of(a->op);
        c->how = KM_HOW_ATOMIC;
        c->out = a->buffer;
        c->line = a->line;
        c->passes = 1;
        c->axis = thread_free(x, a->element) ? KM_AXIS_GLOBAL
                  : km_access_stride_tx(x->k, a, NULL) == KM_STRIDE_CONTIGUOUS ? KM_AXIS_COLUMN
                                                                             : KM_AXIS_ROW;
        reads_in(x, a->value, c, 0);
        return FIT;
    }
    return NO;
}

/* ---- data movement and elementwise ------------------------------------------------- */

static bool nonaffine(const cx *x, km_form f)
{
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *a = &x->atoms[f.t[i].atoms[j]];
            if (a->kind == KM_ATOM_OPAQUE && (!strcmp(a->op, "/") || !strcmp(a->op, "%")))
                return true;
        }
    return false;
}

static int try_move(cx *x)
{
    km_class *c = x->c;
    for (size_t j = 0; j < x->n_as; j++) {
        const km_access *w = &x->as[j];
        km_form v = w->element_value;
        if (w->mode != KM_WRITE || w->space != KM_SPACE_GLOBAL || v.n != 1 || v.t[0].n != 1 ||
            v.t[0].coef != 1)
            continue;
        const km_atom *r = &x->atoms[v.t[0].atoms[0]];
        if (r->kind != KM_ATOM_READ)
            continue;
        km_form rin = r->args[0];
        const char *src = r->name;
        bool tiled = false;
        if (!is_global_param(x, r->name)) {
            /* through a __shared__ tile: the global read that filled it */
            for (size_t q = 0; q < x->n_as; q++) {
                const km_access *s = &x->as[q];
                km_form sv = s->element_value;
                if (s->mode != KM_WRITE || strcmp(s->buffer, r->name) != 0 || sv.n != 1 ||
                    sv.t[0].n != 1 || x->atoms[sv.t[0].atoms[0]].kind != KM_ATOM_READ)
                    continue;
                const km_atom *g = &x->atoms[sv.t[0].atoms[0]];
                /* filled from global memory: a shared array copied within itself (a
                 * scan's down-sweep, `temp[ai] = temp[bi]`) moves no input */
                if (!is_global_param(x, g->name))
                    continue;
                rin = g->args[0];
                src = g->name;
                tiled = true;
                break;
            }
            if (!tiled)
                continue;
        }
        if (km_form_equal(rin, w->index) || thread_free(x, rin) || thread_free(x, w->element))
            continue;
        const km_access *ra = NULL;
        for (size_t q = 0; q < x->n_as; q++)
            if (x->as[q].mode == KM_READ && strcmp(x->as[q].buffer, src) == 0 &&
                km_form_equal(x->as[q].index, rin))
                ra = &x->as[q];
        enum km_stride sw = km_access_stride_tx(x->k, w, NULL);
        enum km_stride sr = ra ? km_access_stride_tx(x->k, ra, NULL) : KM_STRIDE_UNKNOWN;
        c->out = w->buffer;
        c->line = w->line;
        add_in(c, src);
        c->in_map = ra ? ra->element : rin;
        c->out_map = w->element;
        c->shared_tiles = tiled;
        if (nonaffine(x, rin) || nonaffine(x, w->element))
            c->kind = KM_CLASS_PERMUTATION;
        else if (tiled || sw != sr)
            c->kind = KM_CLASS_TRANSPOSE;
        else {
            char a[128], b[128];
            text(x, w->element, a, sizeof(a));
            text(x, rin, b, sizeof(b));
            near(x, KM_CLASS_TRANSPOSE, w->line, EN(KM_SAME_STRIDE), w->buffer, a, src, b);
            km_class keep = *c;
            *c = (km_class){.near = keep.near, .why_line = keep.why_line,
                            .row_axis = -1, .col_axis = -1};
            memcpy(c->why, keep.why, sizeof(c->why));
            continue;
        }
        return FIT;
    }
    return NO;
}

static int try_elementwise(cx *x)
{
    km_class *c = x->c;
    const km_access *w0 = first_global_write(x);
    if (!w0 || thread_free(x, w0->element))
        return NO;
    /* streams: buffers read at the output element, buffers written */
    const char *wn[16];
    uint32_t nw = 0;
    for (size_t j = 0; j < x->n_as; j++) {
        const km_access *a = &x->as[j];
        if (a->space != KM_SPACE_GLOBAL)
            continue;
        for (uint32_t l = 0; l < a->n_loops; l++)
            if (x->loops[a->loops[l]].kind != KM_LOOP_GRID_STRIDE) {
                near(x, KM_CLASS_ELEMENTWISE, x->loops[a->loops[l]].line,
                     EN(KM_NOT_GRID_STRIDE),
                     a->buffer, x->loops[a->loops[l]].line);
                c->n_in = 0;
                return NO;
            }
        if (a->atomic) {
            c->n_in = 0;
            return NO;
        }
        if (a->mode == KM_READ) {
            if (km_form_equal(a->element, w0->element))
                add_in(c, a->buffer);
            continue;
        }
        bool dup = false;
        for (uint32_t i = 0; i < nw; i++)
            dup |= strcmp(wn[i], a->buffer) == 0;
        if (!dup && nw < 16)
            wn[nw++] = a->buffer;
    }
    c->streams_read = c->n_in;
    c->streams_written = nw;
    c->kind = KM_CLASS_ELEMENTWISE;
    c->out = w0->buffer;
    c->line = w0->line;
    size_t np;
    const km_param *ps = km_params(x->k, &np);
    for (size_t i = 0; i < np; i++)
        if (strcmp(ps[i].name, w0->buffer) == 0)
            c->elem_type = ps[i].elem_type;
    return FIT;
}

/* ---- the driver -------------------------------------------------------------------- */

int km_classify(const km_kernel *k, km_class *out)
{
    if (!k || !out)
        return HK_EINVAL;
    memset(out, 0, sizeof(*out));
    out->row_axis = out->col_axis = -1;
    cx x = {.k = k, .c = out};
    x.atoms = km_atoms(k, &x.n_atoms);
    x.as = km_accesses(k, &x.n_as);
    x.acs = km_accumulators(k, &x.n_acs);
    x.loops = km_loops(k, &x.n_loops);
    x.gs = km_guards(k, &x.n_gs);
    static int (*const steps[])(cx *) = {try_histogram, try_scan,  try_product,
                                          try_softmax,   try_norm,  try_window,
                                          try_reduction, try_move,  try_elementwise};
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        if (steps[i](&x) == FIT) {
            if (out->near == out->kind) {   /* a near miss of the class that then fit */
                out->near = KM_CLASS_NONE;
                out->why[0] = 0;
                out->why_line = 0;
            }
            return HK_OK;
        }
    }
    return HK_OK;
}

int km_classify_product(const km_kernel *k, const char *out_buffer, km_class *out)
{
    if (!k || !out_buffer || !out)
        return HK_EINVAL;
    memset(out, 0, sizeof(*out));
    out->row_axis = out->col_axis = -1;
    cx x = {.k = k, .c = out, .only_out = out_buffer};
    x.atoms = km_atoms(k, &x.n_atoms);
    x.as = km_accesses(k, &x.n_as);
    x.acs = km_accumulators(k, &x.n_acs);
    x.loops = km_loops(k, &x.n_loops);
    x.gs = km_guards(k, &x.n_gs);
    if (try_product(&x) == FIT && out->near == out->kind) {
        out->near = KM_CLASS_NONE;
        out->why[0] = 0;
        out->why_line = 0;
    }
    return HK_OK;
}

/* ---- names and printing ------------------------------------------------------------ */

const char *km_class_name(enum km_class_kind kind)
{
    static const char *const names[] = {"none",      "gemm",     "gemv",        "transpose",
                                        "permutation", "histogram", "reduction", "stencil",
                                        "convolution", "pooling",   "scan",      "norm",
                                        "softmax",     "elementwise"};
    return (size_t)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

const char *km_reduce_name(enum km_reduce r)
{
    static const char *const names[] = {"sum", "max", "min", "mean", "variance", "std", "sumsq"};
    return (size_t)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}

const char *km_axis_name(enum km_axis a)
{
    static const char *const names[] = {"none", "global", "row", "column"};
    return (size_t)a < sizeof(names) / sizeof(names[0]) ? names[a] : "?";
}

static const char *how_name(enum km_how h)
{
    static const char *const names[] = {"none", "loop", "atomic", "tree", "serial"};
    return (size_t)h < sizeof(names) / sizeof(names[0]) ? names[h] : "?";
}

static int pf(const km_kernel *k, struct hk_buf *b, const char *label, const km_cform *f)
{
    if (!f->known)
        return hk_buf_printf(b, " %s=?", label);
    int rc = hk_buf_printf(b, " %s=", label);
    return rc ? rc : km_form_print(k, km_cform_view(f), b);
}

int km_class_print(const km_kernel *k, const km_class *c, struct hk_buf *b)
{
    int rc = hk_buf_printf(b, "%s", km_class_name(c->kind));
    if (!rc && c->out)
        rc = hk_buf_printf(b, " out=%s", c->out);
    for (uint32_t i = 0; !rc && i < c->n_in; i++)
        rc = hk_buf_printf(b, "%s%s", i ? "," : " in=", c->in[i]);
    switch (c->kind) {
    case KM_CLASS_GEMM:
    case KM_CLASS_GEMV:
        if (!rc)
            rc = pf(k, b, "M", &c->m);
        if (!rc)
            rc = pf(k, b, c->kind == KM_CLASS_GEMM ? "N" : "N", &c->n);
        if (!rc && c->kind == KM_CLASS_GEMM)
            rc = pf(k, b, "K", &c->k);
        if (!rc)
            rc = pf(k, b, "lda", &c->lda);
        if (!rc)
            rc = pf(k, b, c->kind == KM_CLASS_GEMM ? "ldb" : "incx", &c->ldb);
        if (!rc)
            rc = pf(k, b, c->kind == KM_CLASS_GEMM ? "ldc" : "incy", &c->ldc);
        if (!rc && c->kind == KM_CLASS_GEMM)
            rc = hk_buf_printf(b, " %s%s%s", c->col_major ? "col-major" : "row-major",
                               c->trans_a ? " transA" : "", c->trans_b ? " transB" : "");
        if (!rc && c->kind == KM_CLASS_GEMV)
            rc = hk_buf_printf(b, " by-%s", c->by_columns ? "columns" : "rows");
        if (!rc)
            rc = hk_buf_printf(b, "%s%s%s%s row-axis=%d", c->alpha ? " alpha" : "",
                               c->beta ? " beta" : "", c->accumulate ? " +=" : "",
                               c->shared_tiles ? " shared-tiles" : "", c->row_axis);
        for (int a = 0; !rc && c->tiles_seen && a < 3; a++)
            if (c->tile_block[a].known)
                rc = pf(k, b, a == 0 ? "tile.x" : a == 1 ? "tile.y" : "tile.z", &c->tile_block[a]);
        if (!rc && c->batched) {
            rc = pf(k, b, "batchA", &c->batch_a);
            if (!rc)
                rc = pf(k, b, "batchB", &c->batch_b);
            if (!rc)
                rc = pf(k, b, "batchC", &c->batch_c);
        }
        break;
    case KM_CLASS_REDUCTION:
    case KM_CLASS_NORM:
    case KM_CLASS_SOFTMAX:
    case KM_CLASS_SCAN:
        if (!rc && c->kind == KM_CLASS_REDUCTION)
            rc = hk_buf_printf(b, " op=%s", km_reduce_name(c->reduce));
        if (!rc && c->kind == KM_CLASS_NORM)
            rc = hk_buf_printf(b, " %s", c->rms ? "rms" : "layer");
        if (!rc)
            rc = hk_buf_printf(b, " axis=%s how=%s passes=%u", /* i18n: not for people */
                               km_axis_name(c->axis),
                               how_name(c->how), c->passes);
        break;
    case KM_CLASS_TRANSPOSE:
    case KM_CLASS_PERMUTATION:
        if (!rc)
            rc = hk_buf_appends(b, " map=");
        if (!rc)
            rc = km_form_print(k, c->out_map, b);
        if (!rc)
            rc = hk_buf_appends(b, "<-");
        if (!rc)
            rc = km_form_print(k, c->in_map, b);
        if (!rc && c->shared_tiles)
            rc = hk_buf_appends(b, " shared-tiles");
        break;
    case KM_CLASS_HISTOGRAM:
        if (!rc)
            rc = pf(k, b, "bins", &c->bins);
        if (!rc)
            rc = hk_buf_printf(b, "%s%s", c->weighted ? " weighted" : "",
                               c->privatized ? " privatized" : "");
        break;
    case KM_CLASS_STENCIL:
    case KM_CLASS_CONVOLUTION:
    case KM_CLASS_POOLING:
        if (!rc && c->kind == KM_CLASS_POOLING)
            rc = hk_buf_printf(b, " op=%s", km_reduce_name(c->reduce));
        if (!rc)
            rc = hk_buf_printf(b, " dims=%u radius=%lld offsets=", /* i18n: not for people */
                               c->dims,
                               (long long)c->radius);
        for (uint32_t i = 0; !rc && i < c->n_offsets; i++) {
            if (i)
                rc = hk_buf_appends(b, ",");
            if (!rc)
                rc = km_form_print(k, km_cform_view(&c->offsets[i]), b);
        }
        break;
    case KM_CLASS_ELEMENTWISE:
        if (!rc)
            rc = hk_buf_printf(b, " streams=%u+%u type=%s", c->streams_read, c->streams_written,
                               c->elem_type ? c->elem_type : "?");
        break;
    default:
        break;
    }
    /* the near miss after " | ": English like the rest (`hkls rewrites` says it again) */
    if (!rc && c->near != KM_CLASS_NONE)
        rc = hk_buf_appends(b, " | ");
    if (!rc && c->near != KM_CLASS_NONE)
        rc = hk_buf_printf(b, EN(KM_SUMMARY_NEAR), km_class_name(c->near), c->why_line, c->why);
    return rc;
}
