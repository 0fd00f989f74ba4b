/* What rewrites ask of a built kernel model, and its canonical dump. Read-only. */
#include "model/kmodel_int.h"

#include <string.h>

#include "core/buf.h"
#include "core/hk.h"

const char *km_name(const km_kernel *k)
{
    return k->name;
}

#define VEC(T, field)                     \
    do {                                  \
        *n = k->field.n;                  \
        return (const T *)k->field.v;     \
    } while (0)

const km_atom *km_atoms(const km_kernel *k, size_t *n) { VEC(km_atom, atoms); }
const km_param *km_params(const km_kernel *k, size_t *n) { VEC(km_param, params); }
const km_loop *km_loops(const km_kernel *k, size_t *n) { VEC(km_loop, loops); }
const km_access *km_accesses(const km_kernel *k, size_t *n) { VEC(km_access, accesses); }
const km_guard *km_guards(const km_kernel *k, size_t *n) { VEC(km_guard, guards); }
const km_accumulator *km_accumulators(const km_kernel *k, size_t *n) { VEC(km_accumulator, accs); }
const km_acc_update *km_acc_updates(const km_kernel *k, size_t *n) { VEC(km_acc_update, updates); }
const km_local *km_locals(const km_kernel *k, size_t *n) { VEC(km_local, locals); }
const km_read_site *km_read_sites(const km_kernel *k, size_t *n) { VEC(km_read_site, sites); }

size_t km_barriers(const km_kernel *k)
{
    return k->barriers;
}

const char *km_op_name(enum km_op op)
{
    switch (op) {
    case KM_OP_NONE: return "none";
    case KM_OP_SUM: return "sum";
    case KM_OP_PRODUCT: return "product";
    case KM_OP_MAX: return "max";
    case KM_OP_MIN: return "min";
    case KM_OP_EXCHANGE: return "exchange";
    case KM_OP_BITWISE: return "bitwise";
    case KM_OP_OTHER: return "other";
    }
    return "?";
}

/* ---- queries --------------------------------------------------------------------- */

enum km_stride km_access_stride_tx(const km_kernel *k, const km_access *a, int64_t *stride)
{
    if (stride)
        *stride = 0;
    uint32_t tx;
    if (!km_builtin_atom(k, KM_ATOM_THREAD_IDX, 0, &tx) || !km_form_mentions(k, a->element, tx))
        return KM_STRIDE_BROADCAST;
    uint64_t coef = 0;
    bool known = true, any = false;
    for (uint32_t i = 0; i < a->element.n; i++) {
        const km_term *t = &a->element.t[i];
        uint32_t hits = 0;
        bool term_known = true;
        uint64_t p = (uint64_t)t->coef;
        for (uint32_t j = 0; j < t->n; j++) {
            if (t->atoms[j] == tx) {
                hits++;
                continue;
            }
            const km_atom *at = km__atom_at(k, t->atoms[j]);
            km_term single = {.coef = 1, .n = 1, .atoms = {t->atoms[j]}};
            if (km_form_mentions(k, (km_form){&single, 1}, tx))
                return KM_STRIDE_UNKNOWN;   /* threadIdx.x inside i / n, A[tx], ... */
            if (at->kind == KM_ATOM_CONST && at->has_value)
                p *= (uint64_t)at->value;
            else
                term_known = false;
        }
        if (hits > 1)
            return KM_STRIDE_UNKNOWN;
        if (hits == 1) {
            coef += p;
            known &= term_known;
            any = true;
        }
    }
    if (!any)
        return KM_STRIDE_BROADCAST;
    if (known && coef == 1)
        return KM_STRIDE_CONTIGUOUS;
    if (known && coef == 0)
        return KM_STRIDE_BROADCAST;
    if (known && stride)
        *stride = (int64_t)coef;
    return KM_STRIDE_STRIDED;
}

bool km_access_invariant_in(const km_kernel *k, const km_access *a, size_t loop)
{
    if (loop >= k->loops.n)
        return false;
    bool in = false;
    for (uint32_t i = 0; i < a->n_loops; i++)
        in |= a->loops[i] == loop;
    const km_loop *l = (const km_loop *)k->loops.v + loop;
    return in && !km_form_mentions(k, a->index, l->counter);
}

enum km_step km_access_loop_step(const km_kernel *k, const km_access *a)
{
    if (!a->n_loops || a->loops[a->n_loops - 1] >= k->loops.n)
        return KM_STEP_NONE;
    uint32_t counter = ((const km_loop *)k->loops.v)[a->loops[a->n_loops - 1]].counter;
    unsigned terms = 0;
    bool unit = false;
    for (uint32_t t = 0; t < a->index.n; t++) {
        bool has = false;
        for (uint32_t q = 0; q < a->index.t[t].n; q++)
            has |= a->index.t[t].atoms[q] == counter;
        if (!has)
            continue;
        terms++;
        unit = a->index.t[t].n == 1 && (a->index.t[t].coef == 1 || a->index.t[t].coef == -1);
    }
    if (!terms)
        return km_form_mentions(k, a->index, counter) ? KM_STEP_OTHER : KM_STEP_NONE;
    return terms == 1 && unit ? KM_STEP_UNIT : KM_STEP_OTHER;
}

bool km_sliding_window(const km_kernel *k, const km_access **first)
{
    const km_access *as = k->accesses.v, *one = NULL;
    bool walk = false;
    for (size_t i = 0; i < k->accesses.n; i++) {
        const km_access *a = &as[i];
        if (a->space != KM_SPACE_GLOBAL || a->mode != KM_READ ||
            km_access_stride_tx(k, a, NULL) != KM_STRIDE_CONTIGUOUS)
            continue;
        enum km_step st = km_access_loop_step(k, a);
        if (st == KM_STEP_UNIT && !one)
            one = a;
        walk |= st == KM_STEP_OTHER;
    }
    if (first)
        *first = one;
    return one && !walk;
}

static bool pointer_param(const km_kernel *k, const char *name)
{
    size_t n;
    const km_param *ps = km_params(k, &n);
    for (size_t i = 0; i < n; i++)
        if (ps[i].pointer && strcmp(ps[i].name, name) == 0)
            return true;
    return false;
}

static bool share_loop(const km_access *a, const km_access *b)
{
    for (uint32_t i = 0; i < a->n_loops; i++)
        for (uint32_t j = 0; j < b->n_loops; j++)
            if (a->loops[i] == b->loops[j])
                return true;
    return false;
}

bool km_loop_store_beside_load(const km_kernel *k, const km_access **store,
                               const km_access **load)
{
    const km_access *as = k->accesses.v;
    for (size_t i = 0; i < k->accesses.n; i++) {
        const km_access *w = &as[i];
        if (w->space != KM_SPACE_GLOBAL || w->mode == KM_READ || !w->n_loops ||
            !pointer_param(k, w->buffer))
            continue;
        for (size_t j = 0; j < k->accesses.n; j++) {
            const km_access *r = &as[j];
            if (r->space != KM_SPACE_GLOBAL || r->mode != KM_READ ||
                strcmp(r->buffer, w->buffer) == 0 || !share_loop(w, r) ||
                !pointer_param(k, r->buffer))
                continue;
            if (store)
                *store = w;
            if (load)
                *load = r;
            return true;
        }
    }
    return false;
}

const km_access *km_output_map(const km_kernel *k, const char *buffer)
{
    const km_access *as = k->accesses.v;
    for (size_t i = 0; i < k->accesses.n; i++)
        if (as[i].mode != KM_READ && as[i].space == KM_SPACE_GLOBAL &&
            strcmp(as[i].buffer, buffer) == 0)
            return &as[i];
    return NULL;
}

static bool combining(enum km_op op)
{
    return op == KM_OP_SUM || op == KM_OP_PRODUCT || op == KM_OP_MAX || op == KM_OP_MIN ||
           op == KM_OP_BITWISE;
}

bool km_is_reduction(const km_kernel *k, enum km_op *op)
{
    const km_accumulator *ac = k->accs.v;
    for (size_t i = 0; i < k->accs.n; i++)
        if (ac[i].loop >= 0 && combining(ac[i].op)) {
            if (op)
                *op = ac[i].op;
            return true;
        }
    const km_access *as = k->accesses.v;
    for (size_t i = 0; i < k->accesses.n; i++) {
        const km_access *a = &as[i];
        if (a->mode != KM_RMW || !combining(a->op))
            continue;
        bool across = a->atomic ||
                      (a->n_loops > 0 && km_access_invariant_in(k, a, a->loops[a->n_loops - 1]));
        if (across) {
            if (op)
                *op = a->op;
            return true;
        }
    }
    return false;
}

bool km_form_is_global_index(const km_kernel *k, km_form f, int axis)
{
    uint32_t bd, bi, ti;
    if (!km_builtin_atom(k, KM_ATOM_BLOCK_DIM, axis, &bd) ||
        !km_builtin_atom(k, KM_ATOM_BLOCK_IDX, axis, &bi) ||
        !km_builtin_atom(k, KM_ATOM_THREAD_IDX, axis, &ti) || f.n != 2)
        return false;
    bool prod = false, tid = false;
    for (uint32_t i = 0; i < 2; i++) {
        const km_term *t = &f.t[i];
        if (t->coef != 1)
            return false;
        if (t->n == 2 && ((t->atoms[0] == bd && t->atoms[1] == bi) ||
                          (t->atoms[0] == bi && t->atoms[1] == bd)))
            prod = true;
        else if (t->n == 1 && t->atoms[0] == ti)
            tid = true;
    }
    return prod && tid;
}

/* ---- the dump -------------------------------------------------------------------- */

static const char *loop_kind(enum km_loop_kind kind)
{
    switch (kind) {
    case KM_LOOP_AFFINE: return "affine";
    case KM_LOOP_GRID_STRIDE: return "grid-stride";
    case KM_LOOP_BLOCK_STRIDE: return "block-stride";
    case KM_LOOP_GEOMETRIC: return "geometric";
    case KM_LOOP_OTHER: return "other";
    }
    return "?";
}

static bool grid_loop(const km_kernel *k, uint32_t i)
{
    return ((const km_loop *)k->loops.v)[i].kind == KM_LOOP_GRID_STRIDE;
}

/* The loop's name in the dump: L<n> counting the loops shown. */
static int loop_ref(const km_kernel *k, unsigned flags, long i, struct hk_buf *b)
{
    if (i < 0 || ((flags & KM_DUMP_ELEMENTS) && grid_loop(k, (uint32_t)i)))
        return hk_buf_appends(b, "-");
    long n = 0;
    for (long j = 0; j < i; j++)
        n += !((flags & KM_DUMP_ELEMENTS) && grid_loop(k, (uint32_t)j));
    return hk_buf_printf(b, "L%ld", n);
}

static int ids(const km_kernel *k, unsigned flags, const char *label, const uint32_t *v,
               uint32_t n, bool loops, struct hk_buf *b)
{
    int rc = hk_buf_printf(b, " %s=", label);
    bool any = false;
    for (uint32_t i = 0; rc == HK_OK && i < n; i++) {
        if (loops && (flags & KM_DUMP_ELEMENTS) && grid_loop(k, v[i]))
            continue;
        if (any)
            rc = hk_buf_appends(b, ",");
        if (!rc)
            rc = loops ? loop_ref(k, flags, v[i], b) : hk_buf_printf(b, "g%u", v[i]);
        any = true;
    }
    if (!rc && !any)
        rc = hk_buf_appends(b, "-");
    return rc;
}

static const char *mode_name(enum km_mode m)
{
    return m == KM_READ ? "read" : m == KM_WRITE ? "write" : "rmw";
}

static const char *space_name(enum km_space s)
{
    return s == KM_SPACE_GLOBAL ? "global" : s == KM_SPACE_SHARED ? "shared"
                                           : s == KM_SPACE_LOCAL ? "local" : "other";
}

static int dump_access(const km_kernel *k, unsigned flags, const km_access *a, struct hk_buf *b)
{
    int rc = hk_buf_printf(b, "access %s %s %s[", mode_name(a->mode), space_name(a->space),
                           a->buffer);
    if (!rc)
        rc = km_form_print(k, (flags & KM_DUMP_ELEMENTS) ? a->element : a->index, b);
    if (!rc)
        rc = hk_buf_appends(b, "]");
    if (!rc && a->atomic)
        rc = hk_buf_appends(b, " atomic");
    if (!rc && a->mode == KM_RMW)
        rc = hk_buf_printf(b, " op=%s", km_op_name(a->op));
    if (!rc)
        rc = ids(k, flags, "loops", a->loops, a->n_loops, true, b);
    if (!rc)
        rc = ids(k, flags, "guards", a->guards, a->n_guards, false, b);
    if (!rc) {
        int64_t s;
        enum km_stride st = km_access_stride_tx(k, a, &s);
        static const char *const names[] = {"broadcast", "contiguous", "strided", "unknown"};
        rc = hk_buf_printf(b, " tx=%s", names[st]);
        if (!rc && st == KM_STRIDE_STRIDED && s)
            rc = hk_buf_printf(b, "(%lld)", (long long)s);
    }
    if (!rc) {   /* reuse: loops whose iterations touch the same element */
        uint32_t inv[64], ni = 0;
        for (uint32_t i = 0; i < a->n_loops && ni < 64; i++)
            if (km_access_invariant_in(k, a, a->loops[i]))
                inv[ni++] = a->loops[i];
        rc = ids(k, flags, "reuse", inv, ni, true, b);
    }
    if (!rc && a->mode != KM_READ) {
        rc = hk_buf_appends(b, " value=");
        if (!rc)
            rc = km_form_print(k, (flags & KM_DUMP_ELEMENTS) ? a->element_value : a->value, b);
    }
    if (!rc)
        rc = hk_buf_appends(b, "\n");
    return rc;
}

int km_dump(const km_kernel *k, unsigned flags, struct hk_buf *b)
{
    int rc = hk_buf_printf(b, "kernel %s\n", k->name);
    const km_param *ps = k->params.v;
    for (size_t i = 0; rc == HK_OK && i < k->params.n; i++) {
        if (ps[i].pointer)
            rc = hk_buf_printf(b, "param %s: %s*%s%s%s\n", ps[i].name, ps[i].elem_type,
                               ps[i].is_const ? " const" : "", ps[i].read ? " read" : "",
                               ps[i].written ? " written" : "");
        else
            rc = hk_buf_printf(b, "param %s: scalar\n", ps[i].name);
    }
    const km_local *ls = k->locals.v;
    for (size_t i = 0; rc == HK_OK && i < k->locals.n; i++) {
        if (ls[i].kind != KM_LOCAL_ARRAY)
            continue;
        rc = hk_buf_printf(b, "array %s %s [", ls[i].name, space_name(ls[i].space));
        if (!rc)
            rc = ls[i].form.n || ls[i].space != KM_SPACE_SHARED ? km_form_print(k, ls[i].form, b)
                                                                : hk_buf_appends(b, "extern");
        if (!rc)
            rc = hk_buf_appends(b, "]\n");
    }
    const km_loop *lp = k->loops.v;
    for (size_t i = 0; rc == HK_OK && i < k->loops.n; i++) {
        if ((flags & KM_DUMP_ELEMENTS) && lp[i].kind == KM_LOOP_GRID_STRIDE)
            continue;
        rc = hk_buf_appends(b, "loop ");
        if (!rc)
            rc = loop_ref(k, flags, (long)i, b);
        if (!rc)
            rc = hk_buf_printf(b, " %s %s", loop_kind(lp[i].kind),
                               ((const km_atom *)k->atoms.v)[lp[i].counter].text);
        if (!rc && lp[i].kind != KM_LOOP_OTHER) {
            rc = hk_buf_appends(b, " start=");
            if (!rc)
                rc = km_form_print(k, lp[i].start, b);
            if (!rc && lp[i].kind != KM_LOOP_GEOMETRIC) {
                rc = hk_buf_appends(b, " step=");
                if (!rc)
                    rc = km_form_print(k, lp[i].step, b);
            }
            if (!rc && lp[i].cmp) {
                rc = hk_buf_printf(b, " while %s ", lp[i].cmp);
                if (!rc)
                    rc = km_form_print(k, lp[i].bound, b);
            }
            if (!rc && lp[i].has_trip) {
                rc = hk_buf_appends(b, " trip=");
                if (!rc)
                    rc = km_form_print(k, lp[i].trip, b);
            }
        }
        if (!rc) {
            rc = hk_buf_appends(b, " in=");
            if (!rc)
                rc = loop_ref(k, flags, lp[i].parent, b);
        }
        if (!rc)
            rc = hk_buf_appends(b, "\n");
    }
    const km_guard *gs = k->guards.v;
    for (size_t i = 0; rc == HK_OK && i < k->guards.n; i++) {
        rc = hk_buf_printf(b, "guard g%zu: ", i);
        if (!rc)
            rc = km_form_print(k, gs[i].lhs, b);
        if (!rc)
            rc = hk_buf_printf(b, " %s ", gs[i].op);
        if (!rc)
            rc = km_form_print(k, gs[i].rhs, b);
        if (!rc)
            rc = hk_buf_appends(b, "\n");
    }
    const km_accumulator *ac = k->accs.v;
    for (size_t i = 0; rc == HK_OK && i < k->accs.n; i++) {
        rc = hk_buf_printf(b, "acc $acc%zu: %s init=", i, /* i18n: not for people (km_dump) */
                           km_op_name(ac[i].op));
        if (!rc)
            rc = km_form_print(k, ac[i].init, b);
        if (!rc)
            rc = hk_buf_appends(b, " operand=");
        if (!rc)
            rc = km_form_print(k, (flags & KM_DUMP_ELEMENTS) ? ac[i].element_operand
                                                             : ac[i].operand, b);
        if (!rc)
            rc = hk_buf_appends(b, " loop=");
        if (!rc)
            rc = loop_ref(k, flags, ac[i].loop, b);
        if (!rc)
            rc = hk_buf_printf(b, " updates=%u\n", ac[i].n_updates);
    }
    const km_access *as = k->accesses.v;
    for (size_t i = 0; rc == HK_OK && i < k->accesses.n; i++)
        rc = dump_access(k, flags, &as[i], b);
    for (size_t i = 0; rc == HK_OK && i < k->params.n; i++) {
        const km_access *o = ps[i].pointer ? km_output_map(k, ps[i].name) : NULL;
        if (!o)
            continue;
        rc = hk_buf_printf(b, "out %s[", o->buffer);
        if (!rc)
            rc = km_form_print(k, o->element, b);
        if (!rc)
            rc = hk_buf_appends(b, "]");
        if (!rc)
            rc = ids(k, flags, "loops", o->loops, o->n_loops, true, b);
        if (!rc)
            rc = hk_buf_appends(b, "\n");
    }
    if (!rc)
        rc = hk_buf_printf(b, "barriers %zu\n", k->barriers);
    return rc;
}

/* ---- flat indices split into coordinates (permutations) ------------------------------ */

static bool is_one(km_form f)
{
    return f.n == 1 && f.t[0].n == 0 && f.t[0].coef == 1;
}

/* Is f exactly atom a alone? */
static bool form_is_atom(km_form f, uint32_t *a)
{
    if (f.n != 1 || f.t[0].n != 1 || f.t[0].coef != 1)
        return false;
    *a = f.t[0].atoms[0];
    return true;
}

bool km_atom_coordinate(const km_kernel *k, uint32_t a, km_form g, km_form *stride, km_form *extent)
{
    static const km_term one = {.coef = 1, .n = 0};
    const km_atom *at = km__atom_at(k, a);
    if (at->kind != KM_ATOM_OPAQUE || !at->op || at->n_args != 2)
        return false;
    if (strcmp(at->op, "/") == 0) {
        if (!km_form_equal(at->args[0], g) || is_one(at->args[1]))
            return false;
        *stride = at->args[1];
        *extent = (km_form){.t = NULL, .n = 0};
        return true;
    }
    if (strcmp(at->op, "%") != 0)
        return false;
    *extent = at->args[1];
    if (km_form_equal(at->args[0], g)) {
        *stride = (km_form){.t = &one, .n = 1};
        return true;
    }
    uint32_t q;
    if (!form_is_atom(at->args[0], &q))
        return false;
    const km_atom *qa = km__atom_at(k, q);
    if (qa->kind != KM_ATOM_OPAQUE || !qa->op || strcmp(qa->op, "/") != 0 || qa->n_args != 2 ||
        !km_form_equal(qa->args[0], g))
        return false;
    *stride = qa->args[1];
    return true;
}

bool km_form_coefficient(const km_kernel *k, km_form f, uint32_t a, km_term *t, uint32_t cap,
                         uint32_t *n)
{
    *n = 0;
    for (uint32_t i = 0; i < f.n; i++) {
        uint32_t seen = 0;
        km_term r = {.coef = f.t[i].coef, .n = 0};
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            if (f.t[i].atoms[j] == a)
                seen++;
            else
                r.atoms[r.n++] = f.t[i].atoms[j];
        }
        if (seen == 0)
            continue;
        if (seen > 1 || *n == cap)
            return false;
        t[(*n)++] = r;
    }
    km__canon(k, t, n);
    return true;
}

/* The multiple c of g that f holds (every term of g, times c): true and *c, else false. */
static bool holds_multiple(km_form f, km_form g, int64_t *c)
{
    if (g.n == 0 || f.n < g.n)
        return false;
    int64_t m = 0;
    for (uint32_t i = 0; i < g.n; i++) {
        bool found = false;
        for (uint32_t j = 0; j < f.n && !found; j++) {
            if (f.t[j].n != g.t[i].n || memcmp(f.t[j].atoms, g.t[i].atoms, f.t[j].n * sizeof(uint32_t)) != 0)
                continue;
            if (g.t[i].coef == 0 || f.t[j].coef % g.t[i].coef != 0)
                return false;
            int64_t q = f.t[j].coef / g.t[i].coef;
            if (m != 0 && q != m)
                return false;
            m = q;
            found = true;
        }
        if (!found)
            return false;
    }
    *c = m;
    return m != 0;
}

static int print_c(const km_kernel *k, km_form f, km_form g, const char *name, const char *cast,
                   struct hk_buf *b);

static int print_c_atom(const km_kernel *k, uint32_t id, km_form g, const char *name, const char *cast,
                        struct hk_buf *b)
{
    const km_atom *a = km__atom_at(k, id);
    switch (a->kind) {
    case KM_ATOM_PARAM:
    case KM_ATOM_CONST:
        return a->name ? hk_buf_appends(b, a->name) : HK_EUNSUPPORTED;
    case KM_ATOM_OPAQUE:
        if (a->op && a->n_args == 2 && (strcmp(a->op, "/") == 0 || strcmp(a->op, "%") == 0)) {
            int rc = hk_buf_appends(b, "((");
            if (!rc)
                rc = print_c(k, a->args[0], g, name, cast, b);
            if (!rc)
                rc = hk_buf_printf(b, ") %s (", a->op);
            if (!rc)
                rc = print_c(k, a->args[1], g, name, cast, b);
            return rc ? rc : hk_buf_appends(b, "))");
        }
        return HK_EUNSUPPORTED;
    default:
        return HK_EUNSUPPORTED;
    }
}

static int print_c_term(const km_kernel *k, const km_term *t, bool first, km_form g, const char *name,
                        const char *cast, const char *g_name, struct hk_buf *b)
{
    uint64_t mag;
    int rc = km__term_sign(b, t->coef, first, &mag);
    size_t factors = t->n + (g_name ? 1 : 0) + (mag != 1 || (t->n == 0 && !g_name) ? 1 : 0);
    if (!rc && cast && factors > 1)
        rc = hk_buf_appends(b, cast);
    bool any = false;
    if (!rc && (mag != 1 || (t->n == 0 && !g_name))) {
        rc = hk_buf_printf(b, "%llu", (unsigned long long)mag);
        any = true;
    }
    if (!rc && g_name) {
        rc = hk_buf_printf(b, "%s%s", any ? "*" : "", g_name);
        any = true;
    }
    for (uint32_t i = 0; rc == HK_OK && i < t->n; i++) {
        if (any)
            rc = hk_buf_appends(b, "*");
        if (!rc)
            rc = print_c_atom(k, t->atoms[i], g, name, cast, b);
        any = true;
    }
    return rc;
}

static int print_c(const km_kernel *k, km_form f, km_form g, const char *name, const char *cast,
                   struct hk_buf *b)
{
    if (f.n == 0)
        return hk_buf_appends(b, "0");
    int64_t c = 0;
    bool skip[64] = {false};
    if (f.n > 64)
        return HK_EUNSUPPORTED;
    bool first = true;
    int rc = HK_OK;
    if (holds_multiple(f, g, &c)) {
        for (uint32_t i = 0; i < g.n; i++)
            for (uint32_t j = 0; j < f.n; j++)
                if (f.t[j].n == g.t[i].n && memcmp(f.t[j].atoms, g.t[i].atoms, f.t[j].n * sizeof(uint32_t)) == 0)
                    skip[j] = true;
        km_term t = {.coef = c, .n = 0};
        rc = print_c_term(k, &t, true, g, name, cast, name, b);
        first = false;
    }
    for (uint32_t i = 0; rc == HK_OK && i < f.n; i++) {
        if (skip[i])
            continue;
        rc = print_c_term(k, &f.t[i], first, g, name, cast, NULL, b);
        first = false;
    }
    return rc;
}

int km_form_print_c(const km_kernel *k, km_form f, km_form g, const char *name, const char *cast,
                    struct hk_buf *b)
{
    return print_c(k, f, g, name, cast, b);
}
