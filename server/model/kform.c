/* The kernel model's memory (one arena per model) and its algebra: atoms interned by
 * their canonical text, forms kept canonical by every operation, so that equal
 * computations give equal forms whatever their spelling. */
#include "model/kmodel_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/hk.h"

_Noreturn void km__fail(km_kernel *k, int rc)
{
    k->fail_rc = rc;
    longjmp(*k->fail, 1);
}

void *km__alloc(km_kernel *k, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (n == 0)
        n = sizeof(max_align_t);
    km_block *b = k->arena;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 16384 ? n : 16384;
        b = hk_malloc(sizeof(*b) + cap);
        if (!b)
            km__fail(k, HK_ENOMEM);
        b->next = k->arena;
        b->used = 0;
        b->cap = cap;
        k->arena = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    return p;
}

char *km__strndup(km_kernel *k, const char *s, size_t n)
{
    char *p = km__alloc(k, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *km__strdup(km_kernel *k, const char *s)
{
    return km__strndup(k, s, strlen(s));
}

void *km__push(km_kernel *k, km_vec *v, size_t sz)
{
    size_t max = v == &k->atoms ? KM_ATOMS_MAX : KM_ITEMS_MAX;
    if (v->n >= max)
        km__fail(k, HK_ETOOBIG);
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 16;
        void *p = hk_realloc(v->v, cap * sz);
        if (!p)
            km__fail(k, HK_ENOMEM);
        v->v = p;
        v->cap = cap;
    }
    void *item = (char *)v->v + v->n++ * sz;
    memset(item, 0, sz);
    return item;
}

void km__vecs_free(km_kernel *k)
{
    km_vec *all[] = {&k->atoms, &k->params, &k->loops, &k->accesses, &k->guards, &k->accs,
                     &k->updates, &k->locals, &k->sites};
    for (size_t i = 0; i < HK_ARRAY_LEN(all); i++) {
        hk_free(all[i]->v);
        all[i]->v = NULL;
        all[i]->n = all[i]->cap = 0;
    }
}

const km_atom *km__atom_at(const km_kernel *k, uint32_t id)
{
    return (const km_atom *)k->atoms.v + id;
}

/* proto->text may be k->scratch: it is copied into the arena before anything can fail
 * here, and the failure exit frees it when the copy itself fails. */
uint32_t km__atom(km_kernel *k, const km_atom *proto)
{
    const km_atom *as = k->atoms.v;
    for (size_t i = 0; i < k->atoms.n; i++)
        if (strcmp(as[i].text, proto->text) == 0)
            return (uint32_t)i;
    km_atom *a = km__push(k, &k->atoms, sizeof(km_atom));
    *a = *proto;
    a->text = km__strdup(k, proto->text);
    return (uint32_t)(k->atoms.n - 1);
}

/* ---- canonical order ------------------------------------------------------------- */

static int cmp_atoms(const km_kernel *k, uint32_t a, uint32_t b)
{
    return a == b ? 0 : strcmp(km__atom_at(k, a)->text, km__atom_at(k, b)->text);
}

/* Constant last; otherwise by the atoms' texts in order, a shorter product first. */
static int cmp_terms(const km_kernel *k, const km_term *a, const km_term *b)
{
    if (a->n == 0 || b->n == 0)
        return (a->n == 0) - (b->n == 0);
    for (uint32_t i = 0; i < a->n && i < b->n; i++) {
        int c = cmp_atoms(k, a->atoms[i], b->atoms[i]);
        if (c)
            return c;
    }
    return (int)a->n - (int)b->n;
}

static bool same_atoms(const km_term *a, const km_term *b)
{
    if (a->n != b->n)
        return false;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->atoms[i] != b->atoms[i])
            return false;
    return true;
}

/* Sorts, merges and drops zeros in place; returns the form (terms now owned by it). */
static km_form normalize(km_kernel *k, km_term *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)   /* atoms of each term: insertion sort */
        for (uint32_t a = 1; a < t[i].n; a++)
            for (uint32_t b = a; b > 0 && cmp_atoms(k, t[i].atoms[b - 1], t[i].atoms[b]) > 0; b--) {
                uint32_t s = t[i].atoms[b];
                t[i].atoms[b] = t[i].atoms[b - 1];
                t[i].atoms[b - 1] = s;
            }
    for (uint32_t a = 1; a < n; a++)
        for (uint32_t b = a; b > 0 && cmp_terms(k, &t[b - 1], &t[b]) > 0; b--) {
            km_term s = t[b];
            t[b] = t[b - 1];
            t[b - 1] = s;
        }
    uint32_t out = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (out > 0 && same_atoms(&t[out - 1], &t[i])) {
            /* wrapping, like the kernel's own integer arithmetic */
            t[out - 1].coef = (int64_t)((uint64_t)t[out - 1].coef + (uint64_t)t[i].coef);
            continue;
        }
        t[out++] = t[i];
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < out; i++)
        if (t[i].coef != 0)
            t[m++] = t[i];
    km_form f = {t, m};
    if (m > KM_TERMS_MAX)
        return km__opaque(k, "big", NULL, &f, 1);
    return f;
}

void km__canon(const km_kernel *k, km_term *t, uint32_t *n)
{
    /* normalize() without the opaque fallback: a caller-owned array never grows */
    for (uint32_t i = 0; i < *n; i++)
        for (uint32_t a = 1; a < t[i].n; a++)
            for (uint32_t b = a; b > 0 && cmp_atoms(k, t[i].atoms[b - 1], t[i].atoms[b]) > 0; b--) {
                uint32_t s = t[i].atoms[b];
                t[i].atoms[b] = t[i].atoms[b - 1];
                t[i].atoms[b - 1] = s;
            }
    for (uint32_t a = 1; a < *n; a++)
        for (uint32_t b = a; b > 0 && cmp_terms(k, &t[b - 1], &t[b]) > 0; b--) {
            km_term s = t[b];
            t[b] = t[b - 1];
            t[b - 1] = s;
        }
    uint32_t out = 0;
    for (uint32_t i = 0; i < *n; i++) {
        if (out > 0 && same_atoms(&t[out - 1], &t[i])) {
            t[out - 1].coef = (int64_t)((uint64_t)t[out - 1].coef + (uint64_t)t[i].coef);
            continue;
        }
        t[out++] = t[i];
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < out; i++)
        if (t[i].coef != 0)
            t[m++] = t[i];
    *n = m;
}

km_form km__const(km_kernel *k, int64_t c)
{
    if (c == 0)
        return (km_form){NULL, 0};
    km_term *t = km__alloc(k, sizeof(*t));
    memset(t, 0, sizeof(*t));
    t->coef = c;
    return (km_form){t, 1};
}

km_form km__of_atom(km_kernel *k, uint32_t id)
{
    km_term *t = km__alloc(k, sizeof(*t));
    memset(t, 0, sizeof(*t));
    t->coef = 1;
    t->n = 1;
    t->atoms[0] = id;
    return (km_form){t, 1};
}

km_form km__add(km_kernel *k, km_form a, km_form b)
{
    uint32_t n = a.n + b.n;
    km_term *t = km__alloc(k, sizeof(*t) * (n ? n : 1));
    if (a.n)
        memcpy(t, a.t, sizeof(*t) * a.n);
    if (b.n)
        memcpy(t + a.n, b.t, sizeof(*t) * b.n);
    return normalize(k, t, n);
}

km_form km__scale(km_kernel *k, km_form a, int64_t c)
{
    km_term *t = km__alloc(k, sizeof(*t) * (a.n ? a.n : 1));
    for (uint32_t i = 0; i < a.n; i++) {
        t[i] = a.t[i];
        t[i].coef = (int64_t)((uint64_t)t[i].coef * (uint64_t)c);
    }
    return normalize(k, t, a.n);
}

km_form km__sub(km_kernel *k, km_form a, km_form b)
{
    return km__add(k, a, km__scale(k, b, -1));
}

km_form km__mul(km_kernel *k, km_form a, km_form b)
{
    uint64_t n = (uint64_t)a.n * b.n;
    if (n > KM_TERMS_MAX * 4) {
        km_form args[2] = {a, b};
        return km__opaque(k, "*", NULL, args, 2);
    }
    km_term *t = km__alloc(k, sizeof(*t) * (n ? n : 1));
    uint32_t m = 0;
    for (uint32_t i = 0; i < a.n; i++)
        for (uint32_t j = 0; j < b.n; j++) {
            if (a.t[i].n + b.t[j].n > KM_DEGREE_MAX) {
                km_form args[2] = {a, b};
                return km__opaque(k, "*", NULL, args, 2);
            }
            km_term *r = &t[m++];
            memset(r, 0, sizeof(*r));
            r->coef = (int64_t)((uint64_t)a.t[i].coef * (uint64_t)b.t[j].coef);
            r->n = a.t[i].n + b.t[j].n;
            memcpy(r->atoms, a.t[i].atoms, sizeof(uint32_t) * a.t[i].n);
            memcpy(r->atoms + a.t[i].n, b.t[j].atoms, sizeof(uint32_t) * b.t[j].n);
        }
    return normalize(k, t, m);
}

bool km__is_const(km_form f, int64_t *c)
{
    if (f.n == 0) {
        *c = 0;
        return true;
    }
    if (f.n == 1 && f.t[0].n == 0) {
        *c = f.t[0].coef;
        return true;
    }
    return false;
}

/* ---- printing -------------------------------------------------------------------- */

int km__term_sign(struct hk_buf *b, int64_t coef, bool first, uint64_t *mag)
{
    bool neg = coef < 0;
    *mag = neg ? (uint64_t)0 - (uint64_t)coef : (uint64_t)coef;
    if (!first)
        return hk_buf_appends(b, neg ? " - " : " + ");
    return neg ? hk_buf_appends(b, "-") : HK_OK;
}

static int print_term(const km_kernel *k, const km_term *t, bool first, struct hk_buf *b)
{
    uint64_t mag;
    int rc = km__term_sign(b, t->coef, first, &mag);
    if (rc)
        return rc;
    if (t->n == 0 || mag != 1)
        rc = hk_buf_printf(b, "%llu%s", (unsigned long long)mag, t->n ? "*" : "");
    for (uint32_t i = 0; rc == HK_OK && i < t->n; i++)
        rc = hk_buf_printf(b, "%s%s", i ? "*" : "", km__atom_at(k, t->atoms[i])->text);
    return rc;
}

int km_form_print(const km_kernel *k, km_form f, struct hk_buf *b)
{
    if (f.n == 0)
        return hk_buf_appends(b, "0");
    int rc = HK_OK;
    for (uint32_t i = 0; rc == HK_OK && i < f.n; i++)
        rc = print_term(k, &f.t[i], i == 0, b);
    return rc;
}

void km__form_text(const km_kernel *k, km_form f, char *out, size_t size)
{
    struct hk_buf b;
    hk_buf_init(&b, size > 1 ? size - 1 : 0);
    km_form_print(k, f, &b);
    size_t n = b.len < size ? b.len : size - 1;
    if (b.data)
        memcpy(out, b.data, n);
    out[n] = 0;
    hk_buf_free(&b);
}

/* ---- opaque atoms ---------------------------------------------------------------- */

static bool commutative(const char *op)
{
    static const char *const ops[] = {"max", "min", "==", "!=", "&", "|", "^", "&&", "||"};
    for (size_t i = 0; i < HK_ARRAY_LEN(ops); i++)
        if (strcmp(op, ops[i]) == 0)
            return true;
    return false;
}

static bool simple(km_form f)
{
    return f.n == 0 || (f.n == 1 && (f.t[0].n == 0 || (f.t[0].n == 1 && f.t[0].coef == 1)));
}

/* Canonical text of one operand into b: parenthesised unless a single atom or constant. */
static int print_arg(const km_kernel *k, km_form f, bool paren, struct hk_buf *b)
{
    int rc = HK_OK;
    paren = paren && !simple(f);
    if (paren)
        rc = hk_buf_appends(b, "(");
    if (!rc)
        rc = km_form_print(k, f, b);
    if (!rc && paren)
        rc = hk_buf_appends(b, ")");
    return rc;
}

km_form km__opaque(km_kernel *k, const char *op, const char *name, const km_form *args,
                   uint32_t n_args)
{
    km_form *own = km__alloc(k, sizeof(km_form) * (n_args ? n_args : 1));
    for (uint32_t i = 0; i < n_args; i++)
        own[i] = args[i];
    struct hk_buf b;
    hk_buf_init(&b, KM_TEXT_MAX);
    int rc = HK_OK;
    if (commutative(op)) {   /* sort operands by their text */
        char ta[KM_TEXT_MAX], tb[KM_TEXT_MAX];
        for (uint32_t a = 1; a < n_args; a++)
            for (uint32_t c = a; c > 0; c--) {
                km__form_text(k, own[c - 1], ta, KM_TEXT_MAX);
                km__form_text(k, own[c], tb, KM_TEXT_MAX);
                if (strcmp(ta, tb) <= 0)
                    break;
                km_form s = own[c];
                own[c] = own[c - 1];
                own[c - 1] = s;
            }
    }
    bool fn = strcmp(op, "call") == 0 || strcmp(op, "max") == 0 || strcmp(op, "min") == 0 ||
              strcmp(op, "ceildiv") == 0 || strcmp(op, "big") == 0;
    if (fn) {
        rc = hk_buf_printf(&b, "%s(", name ? name : op);
        for (uint32_t i = 0; rc == HK_OK && i < n_args; i++) {
            if (i)
                rc = hk_buf_appends(&b, ", ");
            if (!rc)
                rc = km_form_print(k, own[i], &b);
        }
        if (!rc)
            rc = hk_buf_appends(&b, ")");
    } else if (strcmp(op, "?:") == 0 && n_args == 3) {
        rc = hk_buf_appends(&b, "(");
        for (uint32_t i = 0; rc == HK_OK && i < 3; i++) {
            if (i)
                rc = hk_buf_appends(&b, i == 1 ? " ? " : " : ");
            if (!rc)
                rc = print_arg(k, own[i], true, &b);
        }
        if (!rc)
            rc = hk_buf_appends(&b, ")");
    } else if (n_args == 1) {
        rc = hk_buf_appends(&b, op);
        if (!rc)
            rc = print_arg(k, own[0], true, &b);
    } else {
        rc = hk_buf_appends(&b, "(");
        for (uint32_t i = 0; rc == HK_OK && i < n_args; i++) {
            if (i)
                rc = hk_buf_printf(&b, " %s ", op);
            if (!rc)
                rc = print_arg(k, own[i], true, &b);
        }
        if (!rc)
            rc = hk_buf_appends(&b, ")");
    }
    if (rc == HK_ETOOBIG) {   /* too long to name: an unknown of its own */
        hk_buf_free(&b);
        return km__unnamed(k);
    }
    if (rc) {
        hk_buf_free(&b);
        km__fail(k, rc);
    }
    k->scratch = b.data;
    km_atom proto = {.kind = KM_ATOM_OPAQUE, .text = b.data, .op = km__strdup(k, op),
                     .name = name ? km__strdup(k, name) : NULL, .args = own,
                     .n_args = n_args, .axis = -1, .loop = -1};
    uint32_t id = km__atom(k, &proto);
    k->scratch = NULL;
    hk_buf_free(&b);
    return km__of_atom(k, id);
}

km_form km__unnamed(km_kernel *k)
{
    char t[32];
    snprintf(t, sizeof(t), "$big%u", k->n_unnamed++);
    km_atom p = {.kind = KM_ATOM_VAR, .text = t, .axis = -1, .loop = -1};
    return km__of_atom(k, km__atom(k, &p));
}

km_form km__read_atom(km_kernel *k, const char *buffer, km_form index)
{
    struct hk_buf b;
    hk_buf_init(&b, KM_TEXT_MAX);
    int rc = hk_buf_printf(&b, "%s[", buffer);
    if (!rc)
        rc = km_form_print(k, index, &b);
    if (!rc)
        rc = hk_buf_appends(&b, "]");
    if (rc == HK_ETOOBIG) {
        hk_buf_free(&b);
        return km__unnamed(k);
    }
    if (rc) {
        hk_buf_free(&b);
        km__fail(k, rc);
    }
    k->scratch = b.data;
    km_form *arg = km__alloc(k, sizeof(km_form));
    *arg = index;
    km_atom proto = {.kind = KM_ATOM_READ, .text = b.data, .name = km__strdup(k, buffer),
                     .args = arg, .n_args = 1, .axis = -1, .loop = -1};
    uint32_t id = km__atom(k, &proto);
    k->scratch = NULL;
    hk_buf_free(&b);
    return km__of_atom(k, id);
}

/* ---- integer division and remainder ------------------------------------------------ */

static bool opaque_op(const km_kernel *k, km_form f, const char *op, const km_atom **out)
{
    if (f.n != 1 || f.t[0].n != 1 || f.t[0].coef != 1)
        return false;
    const km_atom *a = km__atom_at(k, f.t[0].atoms[0]);
    if (a->kind != KM_ATOM_OPAQUE || strcmp(a->op, op) != 0 || a->n_args != 2)
        return false;
    *out = a;
    return true;
}

/* D / d as one product when d's coefficient and atoms divide D's (both single terms):
 * true and *out (`N1 * K` / `K` is N1). */
static bool monomial_quotient(km_kernel *k, km_form D, km_form d, km_form *out)
{
    if (D.n != 1 || d.n != 1 || d.t[0].coef == 0 || D.t[0].coef % d.t[0].coef != 0)
        return false;
    km_term q = {.coef = D.t[0].coef / d.t[0].coef, .n = 0};
    bool used[KM_DEGREE_MAX] = {false};
    for (uint32_t i = 0; i < d.t[0].n; i++) {
        uint32_t j = 0;
        while (j < D.t[0].n && (used[j] || D.t[0].atoms[j] != d.t[0].atoms[i]))
            j++;
        if (j == D.t[0].n)
            return false;
        used[j] = true;
    }
    km_form r = km__const(k, q.coef);
    for (uint32_t j = 0; j < D.t[0].n; j++)
        if (!used[j])
            r = km__mul(k, r, km__of_atom(k, D.t[0].atoms[j]));
    *out = r;
    return true;
}

km_form km__div(km_kernel *k, km_form x, km_form d)
{
    int64_t a, c;
    if (km__is_const(d, &c) && c == 1)
        return x;
    if (km__is_const(x, &a) && km__is_const(d, &c) && c != 0)
        return km__const(k, a / c);
    const km_atom *q;
    if (opaque_op(k, x, "/", &q)) {   /* (y / a) / d is y / (a*d), truncating or not */
        km_form y = q->args[0], ad = km__mul(k, q->args[1], d);
        return km__div(k, y, ad);
    }
    /* (y % (a*d)) / d is (y / d) % a for any nonzero a and d, negative y included (C's
     * truncation: y % (a*d) keeps y's sign, and so does every step after): one digit of a
     * mixed-radix split, `i % (N1 * K) / K` spelled as `(i / K) % N1`. */
    km_form quot;
    if (opaque_op(k, x, "%", &q)) {
        km_form y = q->args[0], D = q->args[1];   /* copies: the atom table may move below */
        if (monomial_quotient(k, D, d, &quot)) {
            if (km__is_const(quot, &c) && (c == 1 || c == -1))
                return km__const(k, 0);   /* |y % d| < |d| */
            return km__mod(k, km__div(k, y, d), quot);
        }
    }
    km_form args[2] = {x, d};
    return km__opaque(k, "/", NULL, args, 2);
}

km_form km__mod(km_kernel *k, km_form x, km_form d)
{
    int64_t a, c;
    if (km__is_const(x, &a) && km__is_const(d, &c) && c != 0)
        return km__const(k, a % c);
    /* (y % (a*d)) % d is y % d for any nonzero a and d (both keep y's sign): a digit taken
     * from a coarser remainder, `rest = i % (O * N * K); k = rest % K` */
    const km_atom *q;
    km_form quot;
    if (opaque_op(k, x, "%", &q)) {
        km_form y = q->args[0], D = q->args[1];   /* copies: the atom table may move below */
        if (monomial_quotient(k, D, d, &quot))
            return km__mod(k, y, d);
    }
    km_form args[2] = {x, d};
    return km__opaque(k, "%", NULL, args, 2);
}

/* Top-level factors that are `/` or `%` atoms, counted with repetition; *mods gets the
 * `%` ones. */
static uint32_t divmods(const km_kernel *k, km_form f, uint32_t *mods)
{
    uint32_t n = 0;
    *mods = 0;
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *a = km__atom_at(k, f.t[i].atoms[j]);
            if (a->kind != KM_ATOM_OPAQUE || a->n_args != 2)
                continue;
            bool mod = strcmp(a->op, "%") == 0;
            n += mod || strcmp(a->op, "/") == 0;
            *mods += mod;
        }
    return n;
}

km_form km__recombine(km_kernel *k, km_form f)
{
    uint32_t mods, before = divmods(k, f, &mods);
    if (mods == 0)
        return f;
    km_form e = {0};
    for (uint32_t i = 0; i < f.n; i++) {
        km_form prod = km__const(k, f.t[i].coef);
        km_term t = f.t[i];   /* a copy: the atom table may move below */
        for (uint32_t j = 0; j < t.n; j++) {
            const km_atom *a = km__atom_at(k, t.atoms[j]);
            km_form af;
            if (a->kind == KM_ATOM_OPAQUE && a->n_args == 2 && strcmp(a->op, "%") == 0) {
                km_form x = a->args[0], d = a->args[1];   /* x % d = x - d*(x / d) */
                af = km__sub(k, x, km__mul(k, d, km__div(k, x, d)));
            } else {
                af = km__of_atom(k, t.atoms[j]);
            }
            prod = km__mul(k, prod, af);
        }
        e = km__add(k, e, prod);
    }
    uint32_t after = divmods(k, e, &mods);
    bool better = e.n <= f.n && after <= before && (e.n < f.n || after < before);
    return better ? e : f;
}

static bool grid_counter(const km_atom *a)
{
    return a->kind == KM_ATOM_LOOP && a->text[1] == 'G';
}

static bool mentions_grid(const km_kernel *k, km_form f, int depth);

static bool atom_mentions_grid(const km_kernel *k, uint32_t id, int depth)
{
    const km_atom *a = km__atom_at(k, id);
    if (grid_counter(a))
        return true;
    for (uint32_t i = 0; depth < 64 && i < a->n_args; i++)
        if (mentions_grid(k, a->args[i], depth + 1))
            return true;
    return false;
}

static bool mentions_grid(const km_kernel *k, km_form f, int depth)
{
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++)
            if (atom_mentions_grid(k, f.t[i].atoms[j], depth))
                return true;
    return false;
}

static km_form drop(km_kernel *k, km_form f, int depth);

/* The atom with grid counters at 0 inside its operands. */
static uint32_t drop_atom(km_kernel *k, uint32_t id, int depth)
{
    const km_atom *a = km__atom_at(k, id);
    if (depth > 64 || !a->n_args || !atom_mentions_grid(k, id, depth))
        return id;
    km_form args[16];
    uint32_t n = a->n_args < 16 ? a->n_args : 16;
    for (uint32_t i = 0; i < n; i++)
        args[i] = drop(k, km__atom_at(k, id)->args[i], depth + 1);
    a = km__atom_at(k, id);   /* the table may have moved */
    km_form r = a->kind == KM_ATOM_READ ? km__read_atom(k, a->name, args[0])
                                        : km__opaque(k, a->op, a->name, args, n);
    return r.t[0].atoms[0];
}

static km_form drop(km_kernel *k, km_form f, int depth)
{
    km_term *t = km__alloc(k, sizeof(*t) * (f.n ? f.n : 1));
    uint32_t m = 0;
    for (uint32_t i = 0; i < f.n; i++) {
        bool gone = false;
        km_term r = f.t[i];
        for (uint32_t j = 0; j < r.n && !gone; j++) {
            if (grid_counter(km__atom_at(k, r.atoms[j])))
                gone = true;
            else
                r.atoms[j] = drop_atom(k, r.atoms[j], depth);
        }
        if (!gone)
            t[m++] = r;
    }
    return normalize(k, t, m);
}

km_form km__drop_grid_counters(km_kernel *k, km_form f)
{
    return mentions_grid(k, f, 0) ? drop(k, f, 0) : f;
}

/* ---- public form queries ---------------------------------------------------------- */

bool km_term_equal(const km_term *a, const km_term *b)
{
    return a->coef == b->coef && same_atoms(a, b);
}

bool km_form_equal(km_form a, km_form b)
{
    if (a.n != b.n)
        return false;
    for (uint32_t i = 0; i < a.n; i++)
        if (a.t[i].coef != b.t[i].coef || !same_atoms(&a.t[i], &b.t[i]))
            return false;
    return true;
}

static bool atom_mentions(const km_kernel *k, uint32_t id, uint32_t target, int depth)
{
    if (id == target)
        return true;
    const km_atom *a = km__atom_at(k, id);
    if (depth > 64)
        return false;
    for (uint32_t i = 0; i < a->n_args; i++)
        for (uint32_t t = 0; t < a->args[i].n; t++)
            for (uint32_t j = 0; j < a->args[i].t[t].n; j++)
                if (atom_mentions(k, a->args[i].t[t].atoms[j], target, depth + 1))
                    return true;
    return false;
}

bool km_form_mentions(const km_kernel *k, km_form f, uint32_t atom)
{
    for (uint32_t t = 0; t < f.n; t++)
        for (uint32_t j = 0; j < f.t[t].n; j++)
            if (atom_mentions(k, f.t[t].atoms[j], atom, 0))
                return true;
    return false;
}

bool km_form_mentions_kind(const km_kernel *k, km_form f, enum km_atom_kind kind, int axis)
{
    for (size_t i = 0; i < k->atoms.n; i++) {
        const km_atom *a = km__atom_at(k, (uint32_t)i);
        if (a->kind == kind && (axis < 0 || a->axis == axis) &&
            km_form_mentions(k, f, (uint32_t)i))
            return true;
    }
    return false;
}

static bool form_value(const km_kernel *k, km_form f, int64_t *v, int depth);

/* The value of atom a: a named constant's known value, or C's `/` or `%` of two constant
 * operands (`MASK_DIM / 2` of a #define 5 is 2: truncated toward zero, as C does). */
static bool atom_value(const km_kernel *k, const km_atom *a, int64_t *v, int depth)
{
    if (a->kind == KM_ATOM_CONST && a->has_value) {
        *v = a->value;
        return true;
    }
    int64_t l, r;
    if (a->kind != KM_ATOM_OPAQUE || !a->op || a->n_args != 2 || depth > 8 ||
        (strcmp(a->op, "/") && strcmp(a->op, "%")) || !form_value(k, a->args[0], &l, depth + 1) ||
        !form_value(k, a->args[1], &r, depth + 1) || r == 0 || (l == INT64_MIN && r == -1))
        return false;
    *v = a->op[0] == '/' ? l / r : l % r;
    return true;
}

static bool form_value(const km_kernel *k, km_form f, int64_t *v, int depth)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < f.n; i++) {
        uint64_t p = (uint64_t)f.t[i].coef;
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            int64_t av;
            if (!atom_value(k, km__atom_at(k, f.t[i].atoms[j]), &av, depth))
                return false;
            p *= (uint64_t)av;
        }
        sum += p;
    }
    *v = (int64_t)sum;
    return true;
}

bool km_form_value(const km_kernel *k, km_form f, int64_t *v)
{
    return form_value(k, f, v, 0);
}

bool km_builtin_atom(const km_kernel *k, enum km_atom_kind kind, int axis, uint32_t *id)
{
    for (size_t i = 0; i < k->atoms.n; i++) {
        const km_atom *a = km__atom_at(k, (uint32_t)i);
        if (a->kind == kind && a->axis == axis) {
            *id = (uint32_t)i;
            return true;
        }
    }
    return false;
}
