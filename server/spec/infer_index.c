/* Spec inference, the kernel's index math (spec/infer.c is the entry): the textual scan
 * of indices and bounds checks, buffer counts from the subscripts and from the kernel
 * model's index forms, how pointer parameters are used (read, written, moved), and the
 * data-dependent subscripts and gathers. */
#include "spec/infer_int.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool sk_in_comment(const char *t, size_t s, size_t e, size_t at)
{
    for (size_t i = s; i < at;) {
        size_t j = sk_skip_lexeme(t, e, i);
        if (j == i) {
            i++;
            continue;
        }
        if (at < j)
            return true;
        i = j;
    }
    return false;
}

static bool rw_element_arg(const char *t, size_t s, size_t e, size_t i, size_t wl, size_t b);
static bool rw_element_ref(const char *t, size_t s, size_t e, size_t i, size_t wl, size_t b);
static int sk_pointer_use_at(const char *t, size_t s, size_t e, const char *name, bool args);

/* 0: written only (output); 1: read too (inout); 2: elements are atomic targets
 * (accumulators); 3: the pointer itself is one (a single accumulator, count 1). */
int sk_pointer_use(const char *t, size_t s, size_t e, const char *name)
{
    return sk_pointer_use_at(t, s, e, name, true);
}

/* sk_pointer_use; without args, an element passed to a call (f(name[i])) or bound to a
 * reference (T &r = name[i]) is no read here: the callee or the reference's uses say what
 * it is (sk_pointer_role follows them). */
static int sk_pointer_use_at(const char *t, size_t s, size_t e, const char *name, bool args)
{
    size_t wl = strlen(name);
    int use = 0;
    if (!*name)
        return 0;
    for (size_t i = s; i + wl <= e; i++) {
        if (!sk_word_at(t, e, i, name, wl) || sk_in_comment(t, s, e, i))
            continue;
        /* inside atomicXxx( ... name ... ) as the first argument */
        size_t b = i;
        while (b > s && (isspace((unsigned char)t[b - 1]) || t[b - 1] == '&' || t[b - 1] == '('))
            b--;
        size_t w = b;
        while (w > s && (isalnum((unsigned char)t[w - 1]) || t[w - 1] == '_'))
            w--;
        size_t j = i + wl;
        while (j < e && isspace((unsigned char)t[j]))
            j++;
        if (b - w > 6 && strncmp(t + w, "atomic", 6) == 0)
            return j < e && t[j] == ',' ? 3 : 2; /* atomicAdd(out, v): a single accumulator */
        if (j >= e || t[j] != '[')
            continue;
        size_t a = i;
        while (a > s && isspace((unsigned char)t[a - 1]))
            a--;
        if (a > s && t[a - 1] == '&' && !(a > s + 1 && t[a - 2] == '&'))
            continue; /* &name[i]: an address, not a read */
        if (!args && (rw_element_arg(t, s, e, i, wl, a) || rw_element_ref(t, s, e, i, wl, a)))
            continue;
        int depth = 0;
        for (; j < e; j++) {
            depth += t[j] == '[';
            depth -= t[j] == ']';
            if (depth == 0)
                break;
        }
        j++;
        while (j < e && isspace((unsigned char)t[j]))
            j++;
        bool plain_assign = j + 1 < e && t[j] == '=' && t[j + 1] != '=';
        if (!plain_assign)
            use = 1;
    }
    return use;
}

/* ---- the kernel's index math ---- */

void kf_free(kfacts *f)
{
    for (size_t i = 0; i < f->n_idx; i++)
        hk_free(f->idx[i].bound);
}

/* The text [s, e) with the matching close of an opener at s - 1: the index of the first
 * depth-0 stop character at or after s (or e). */
size_t kf_expr_end(const char *t, size_t s, size_t e, const char *stops)
{
    int depth = 0;
    for (size_t i = s; i < e; i++) {
        char c = t[i];
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (depth == 0)
                return i;
            depth--;
        } else if (depth == 0) {
            if (strchr(stops, c))
                return i;
            if ((c == '&' && i + 1 < e && t[i + 1] == '&') || (c == '|' && i + 1 < e && t[i + 1] == '|'))
                return i;
        }
    }
    return e;
}

static bool kf_has(const char *t, size_t s, size_t e, const char *w)
{
    size_t wl = strlen(w);
    for (size_t i = s; i + wl <= e; i++)
        if (!memcmp(t + i, w, wl))
            return true;
    return false;
}

static kf_index *kf_find(kfacts *f, const char *name)
{
    for (size_t i = 0; i < f->n_idx; i++)
        if (!strcmp(f->idx[i].name, name))
            return &f->idx[i];
    return NULL;
}

/* The value of word (a literal, a #define/constexpr constant or a template parameter the
 * launch gives) when it is an integer in [1, 1024], else 0. */
static long long kf_word_value(const skel *k, const char *word)
{
    if (!word[0] || !strncmp(word, "blockDim", 8))
        return 0;
    const char *v = word;
    if (!isdigit((unsigned char)word[0]))
        v = sk_tunable_value(k, word);
    if (!v) /* a template parameter's value (from the launch or an instantiation) */
        v = sk_mapped(k, word);
    char *end = NULL;
    long long n = v ? strtoll(v, &end, 10) : 0;
    return v && end && (*end == '\0' || strchr("uUlL", *end)) && n >= 1 && n <= 1024 ? n : 0;
}

/* ` * WORD` at t[*at, e) (spaces allowed around the '*'): whether a '*' follows; WORD into
 * word (empty when none); *at moves past WORD, or past the spaces when no '*' follows. */
static bool kf_factor_after(const char *t, size_t *at, size_t e, char *word, size_t cap)
{
    size_t j = *at;
    word[0] = '\0';
    while (j < e && isspace((unsigned char)t[j]))
        j++;
    *at = j;
    if (j >= e || t[j] != '*')
        return false;
    j++;
    while (j < e && isspace((unsigned char)t[j]))
        j++;
    size_t w = 0;
    while (j < e && w + 1 < cap && (isalnum((unsigned char)t[j]) || t[j] == '_'))
        word[w++] = t[j++];
    word[w] = '\0';
    *at = j;
    return true;
}

/* `WORD * ` ending at t[p] within t[s, p) (spaces allowed around the '*'): WORD into word;
 * false (word empty) when no '*' comes before p. */
static bool kf_factor_before(const char *t, size_t s, size_t p, char *word, size_t cap)
{
    word[0] = '\0';
    while (p > s && isspace((unsigned char)t[p - 1]))
        p--;
    if (p <= s || t[p - 1] != '*')
        return false;
    p--;
    while (p > s && isspace((unsigned char)t[p - 1]))
        p--;
    size_t w = p;
    while (w > s && (isalnum((unsigned char)t[w - 1]) || t[w - 1] == '_'))
        w--;
    snprintf(word, cap, "%.*s", (int)(p - w), t + w);
    return true;
}

/* What multiplies the parenthesised groups around t[a, z) within t[s, e): `(... a ...) * W`
 * or `W * (...)`, outward group by group (`(blockIdx.x * STEPS - HALO) * WIDTH`: WIDTH),
 * each W a value kf_word_value knows; 1 when none. A group that is a call's arguments
 * (`min(...)`) ends the walk. */
static long long kf_group_factor(const skel *k, const char *t, size_t s, size_t e, size_t a, size_t z)
{
    long long f = 1;
    for (int guard = 0; guard < 8; guard++) {
        int depth = 0;
        size_t o = a;
        while (o > s) {
            char c = t[o - 1];
            if (c == ')' || c == ']')
                depth++;
            else if ((c == '(' || c == '[') && depth-- == 0)
                break;
            o--;
        }
        if (o <= s || t[o - 1] != '(')
            return f;
        size_t before = o - 1; /* the '(' */
        size_t c = before;
        while (c > s && isspace((unsigned char)t[c - 1]))
            c--;
        if (c > s && (isalnum((unsigned char)t[c - 1]) || t[c - 1] == '_'))
            return f; /* a call's arguments */
        size_t close = kf_expr_end(t, z, e, "");
        if (close >= e || t[close] != ')')
            return f;
        char word[64];
        size_t j = close + 1;
        if (!kf_factor_after(t, &j, e, word, sizeof word))
            kf_factor_before(t, s, c, word, sizeof word);
        long long n = kf_word_value(k, word);
        if (!n || f * n > (1LL << 20))
            return f;
        f *= n;
        a = before;
        z = close + 1;
    }
    return f;
}

/* A literal (or a #define/constexpr constant) multiplying blockIdx.D where blockDim.D
 * would be, times what multiplies the groups around that product: the block size the
 * kernel assumes, or a multiple of it when each thread covers several elements that far
 * apart (cuda-samples' convolution rows: `(blockIdx.x * STEPS - HALO) * WIDTH`). */
static long long kf_fixed_factor(const skel *k, const char *t, size_t s, size_t e)
{
    static const char *const bi[3] = { "blockIdx.x", "blockIdx.y", "blockIdx.z" };
    for (int d = 0; d < 1; d++) {
        size_t wl = strlen(bi[d]);
        for (size_t i = s; i + wl <= e; i++) {
            if (memcmp(t + i, bi[d], wl))
                continue;
            /* blockIdx.x * LIT or LIT * blockIdx.x */
            char word[64];
            size_t j = i + wl;
            if (!kf_factor_after(t, &j, e, word, sizeof word))
                kf_factor_before(t, s, i, word, sizeof word);
            long long n = kf_word_value(k, word);
            if (n) {
                size_t lo = i < j ? i : j, hi = i < j ? j : i + wl;
                long long g = kf_group_factor(k, t, s, e, lo, hi);
                return n * g <= 1024 ? n * g : n;
            }
        }
    }
    return 0;
}

void kf_scan(skel *k, const an_function *f, kfacts *kf)
{
    const char *t = k->text;
    size_t s = f->body_span.start_byte, e = f->body_span.end_byte <= k->len ? f->body_span.end_byte : k->len;
    static const char *const dims = "xyz";
    for (int d = 0; d < 3; d++) {
        char b[16], th[16];
        snprintf(b, sizeof b, "blockIdx.%c", dims[d]);
        snprintf(th, sizeof th, "threadIdx.%c", dims[d]);
        kf->uses_dim[d] = kf_has(t, s, e, b) || kf_has(t, s, e, th);
    }
    kf->grid_stride = kf_has(t, s, e, "gridDim");
    /* index variables: NAME = INIT with INIT over blockIdx/threadIdx, and loop counters */
    for (size_t i = s; i < e && kf->n_idx < KF_MAX_INDEX; i++) {
        if (!(isalpha((unsigned char)t[i]) || t[i] == '_') ||
            (i > s && (isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_' || t[i - 1] == '.' || t[i - 1] == '>')))
            continue;
        size_t ne = i;
        while (ne < e && (isalnum((unsigned char)t[ne]) || t[ne] == '_'))
            ne++;
        size_t j = ne;
        while (j < e && isspace((unsigned char)t[j]))
            j++;
        if (j + 1 >= e || t[j] != '=' || t[j + 1] == '=' || ne - i >= sizeof kf->idx[0].name) {
            i = ne - 1;
            continue;
        }
        size_t is = j + 1, ie = kf_expr_end(t, is, e, ";,");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(ne - i), t + i);
        if (kf_find(kf, name)) {
            i = ne - 1;
            continue;
        }
        int dim = -1, n_dims = 0;
        bool has_b = false, has_t = false;
        for (int d = 0; d < 3; d++) {
            char b[16], th[16];
            snprintf(b, sizeof b, "blockIdx.%c", dims[d]);
            snprintf(th, sizeof th, "threadIdx.%c", dims[d]);
            bool hb = kf_has(t, is, ie, b), ht = kf_has(t, is, ie, th);
            if (hb || ht) {
                dim = d;
                n_dims++;
                has_b |= hb;
                has_t |= ht;
            }
        }
        /* a for-loop counter: `for (int k = 0; k < K; ...)` */
        size_t b = i;
        while (b > s && (isalnum((unsigned char)t[b - 1]) || t[b - 1] == '_' || isspace((unsigned char)t[b - 1])))
            b--;
        bool loop = b >= s + 4 && t[b - 1] == '(' && kf_has(t, b - 5 > s ? b - 5 : s, b, "for");
        kf_index *x = &kf->idx[kf->n_idx];
        if (n_dims == 1 && has_b) {
            snprintf(x->name, sizeof x->name, "%s", name);
            x->dim = dim;
            x->kind = has_t ? IX_THREAD : IX_BLOCK;
            kf->n_idx++;
            x->line = sk_line(k, is);
            if (has_t && !kf_has(t, is, ie, "blockDim")) {
                long long ff = dim == 0 ? kf_fixed_factor(k, t, is, ie) : 0;
                x->odd_stride = ff == 0 || (kf->fixed_block && ff != kf->fixed_block);
                if (ff && !kf->fixed_block) {
                    kf->fixed_block = ff;
                    kf->fixed_line = x->line;
                    kf->fixed_why = hk_tr(HK_MSG_INF_FRAG_MULTIPLIES);
                }
            }
        } else if (loop && n_dims == 0) {
            snprintf(x->name, sizeof x->name, "%s", name);
            x->dim = -1;
            x->kind = IX_LOOP;
            kf->n_idx++;
        }
        i = ne - 1;
    }
    /* bounds: the first `v < B`, `v <= B` or `v >= B` of each index variable */
    for (size_t n = 0; n < kf->n_idx && !k->nomem; n++) {
        kf_index *x = &kf->idx[n];
        size_t wl = strlen(x->name);
        for (size_t i = s; i + wl < e && !x->bound; i++) {
            if (!sk_word_at(t, e, i, x->name, wl))
                continue;
            size_t j = i + wl;
            while (j < e && isspace((unsigned char)t[j]))
                j++;
            bool le = false;
            if (j + 1 < e && t[j] == '<' && t[j + 1] != '<') {
                le = t[j + 1] == '=';
                j += le ? 2 : 1;
            } else if (j + 1 < e && t[j] == '>' && t[j + 1] == '=') {
                j += 2;
            } else {
                continue;
            }
            size_t be = kf_expr_end(t, j, e, ";,?");
            while (j < be && isspace((unsigned char)t[j]))
                j++;
            while (be > j && isspace((unsigned char)t[be - 1]))
                be--;
            if (be == j || be - j > SK_MAX_TEXT)
                continue;
            x->bound = le ? hk_asprintf("(%.*s) + 1", (int)(be - j), t + j)
                          : hk_strndup(t + j, be - j);
            x->bound_line = sk_line(k, i);
            if (!x->bound)
                k->nomem = true;
            else if (x->kind != IX_LOOP)
                kf->bounds_checked = true;
        }
    }
}

/* The bound of an index variable in spec terms (kernel parameters replaced by their launch
 * values), or NULL. New string. */
char *kf_bound_spec(skel *k, const kf_index *x)
{
    return x->bound ? sk_translate(k, x->bound, 0) : NULL;
}

/* Only size variables (and numbers) in a spec expression. */
static int kf_var_known_cb(const char *name, void *ctx)
{
    skel *k = ctx;
    for (size_t i = 0; i < k->n_vars; i++)
        if (!strcmp(k->vars[i], name))
            return 0;
    return 1;
}

bool kf_only_sizes(skel *k, const char *t)
{
    expr *e = NULL;
    if (!t || expr_parse(t, &e, NULL, 0) != HK_OK)
        return false;
    int rc = expr_foreach_var(e, kf_var_known_cb, k);
    expr_free(e);
    return rc == 0;
}

/* A size variable already, or a launcher name the launch passes as an integer argument
 * (kept as one before the sizes are collected). */
static int kf_var_sized_cb(const char *name, void *ctx)
{
    skel *k = ctx;
    for (size_t i = 0; i < k->n_keep; i++)
        if (!strcmp(k->keep[i], name))
            return 0;
    return kf_var_known_cb(name, ctx);
}

/* Whether the spec text t (a launch's block, translated) names size variables and nothing
 * else: a block that grows with the problem. */
bool sk_sized_block(skel *k, const char *t)
{
    expr *e = NULL;
    expr_value v;
    if (!t || expr_parse(t, &e, NULL, 0) != HK_OK)
        return false;
    bool sized = expr_eval(e, NULL, 0, &v, NULL, 0) != HK_OK && expr_foreach_var(e, kf_var_sized_cb, k) == 0;
    expr_free(e);
    return sized;
}

/* ---- buffer counts ---- */

/* Count of pointer parameter name from its subscripts in the body: every index variable
 * replaced by its largest value (bound - 1), the largest subscript plus one. New string,
 * or NULL when one subscript cannot be bounded. */
char *kf_count_from_index(skel *k, const an_function *f, kfacts *kf, const char *name)
{
    const char *t = k->text;
    size_t s = f->body_span.start_byte, e = f->body_span.end_byte <= k->len ? f->body_span.end_byte : k->len;
    size_t wl = strlen(name), base_map = k->n_map;
    char *res = NULL;
    bool ok = true, any = false;
    for (size_t n = 0; n < kf->n_idx; n++) {
        char *b = kf_bound_spec(k, &kf->idx[n]);
        if (b) {
            char *mx = hk_asprintf("%s - 1", b);
            sk_map(k, kf->idx[n].name, mx);
            hk_free(mx);
        }
        hk_free(b);
    }
    for (size_t i = s; ok && i + wl < e; i++) {
        if (!sk_word_at(t, e, i, name, wl) || (i > s && (t[i - 1] == '.' || t[i - 1] == '>')))
            continue;
        size_t j = i + wl;
        while (j < e && isspace((unsigned char)t[j]))
            j++;
        if (j >= e || t[j] != '[') {
            /* the pointer itself, passed on or offset: its extent is not in this body */
            size_t jj = j;
            ok = jj < e && (t[jj] == ')' || t[jj] == ',' || t[jj] == ';') ? false : ok;
            continue;
        }
        size_t ie = kf_expr_end(t, j + 1, e, "");
        char *sub = hk_strndup(t + j + 1, ie - j - 1);
        char *c = NULL;
        /* The largest index put in the subscript gives its largest value only when the
         * subscript grows with it: out[n - 1 - i] at i = n - 1 is element 0, out[i % 7]
         * wraps. Any other operation is left to the kernel model (kc_count). */
        if (sub && sub[strcspn(sub, "-%&|^~?<>!")]) {
            hk_free(sub);
            ok = false;
            break;
        }
        if (sub) {
            /* x[i] with i < n: n elements, said as n */
            char one[64];
            if (sscanf(sub, " %63[A-Za-z0-9_] %c", one, one + 63) == 1 && kf_find(kf, one) &&
                kf_find(kf, one)->bound && kf_find(kf, one)->kind != IX_BLOCK) {
                char *b = kf_bound_spec(k, kf_find(kf, one));
                if (b && kf_only_sizes(k, b))
                    c = b;
                else
                    hk_free(b);
            }
        }
        if (!c) {
            char *tr = sub ? sk_translate(k, sub, 0) : NULL;
            if (tr && kf_only_sizes(k, tr))
                c = hk_asprintf("%s + 1", tr);
            hk_free(tr);
        }
        hk_free(sub);
        if (!c) {
            ok = false;
            break;
        }
        if (res && (!strcmp(res, c) || strstr(res, c))) {
            hk_free(c);
            continue;
        }
        if (!c) {
            k->nomem = true;
            ok = false;
            break;
        }
        char *m = res ? hk_asprintf("max(%s, %s)", res, c) : hk_strdup(c);
        hk_free(c);
        hk_free(res);
        res = m;
        any = true;
        if (!res || strlen(res) > SK_MAX_TEXT) {
            ok = false;
            break;
        }
    }
    while (k->n_map > base_map) {
        k->n_map--;
        hk_free(k->map_from[k->n_map]);
        hk_free(k->map_to[k->n_map]);
    }
    if (!ok || !any) {
        hk_free(res);
        return NULL;
    }
    return res;
}

/* ---- the kernel model: index forms followed through temporaries ----
 * The textual scan above sees `C[row * N + col]` but not `C[idx]` with idx computed
 * earlier; the model's forms have every temporary substituted (docs/model.md). */

#define KC_TERMS 64

#define KC_BOUNDS 16

typedef struct {
    km_term t[KC_TERMS];
    size_t n;
} kc_poly;

static bool kc_form_sized_at(const km_kernel *km, km_form f, int depth);

/* A size: a scalar parameter or a named constant, or a division, rounded-up division or
 * remainder of sizes by sizes (carafe's `width / scale_factor`, `(kernel_size - 1) / 2`,
 * the trip count ceil_div(wA, BLOCK_SIZE) of cuda-samples' matrixMul tile loop
 * `for (a = aBegin; a <= aBegin + wA - 1; a += BLOCK_SIZE)`): the same for every thread. */
static bool kc_size_atom_at(const km_kernel *km, uint32_t id, int depth)
{
    size_t n = 0;
    const km_atom *a = km_atoms(km, &n);
    if (id >= n)
        return false;
    if (a[id].kind == KM_ATOM_PARAM || a[id].kind == KM_ATOM_CONST)
        return true;
    return a[id].kind == KM_ATOM_OPAQUE && a[id].op &&
           (!strcmp(a[id].op, "/") || !strcmp(a[id].op, "%") || !strcmp(a[id].op, "ceildiv")) &&
           a[id].n_args == 2 && a[id].args[1].n && depth < 4 && kc_form_sized_at(km, a[id].args[0], depth + 1) &&
           kc_form_sized_at(km, a[id].args[1], depth + 1);
}

static bool kc_size_atom(const km_kernel *km, uint32_t id)
{
    return kc_size_atom_at(km, id, 0);
}

static bool kc_term_sized_at(const km_kernel *km, const km_term *t, int depth)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (!kc_size_atom_at(km, t->atoms[i], depth))
            return false;
    return true;
}

static bool kc_term_sized(const km_kernel *km, const km_term *t)
{
    return kc_term_sized_at(km, t, 0);
}

static bool kc_form_sized_at(const km_kernel *km, km_form f, int depth)
{
    for (uint32_t i = 0; i < f.n; i++)
        if (!kc_term_sized_at(km, &f.t[i], depth))
            return false;
    return true;
}

static bool kc_form_sized(const km_kernel *km, km_form f)
{
    return kc_form_sized_at(km, f, 0);
}

typedef struct kc_limits kc_limits;

/* The value a constant the model does not know (a template parameter) takes in the spec:
 * the launch's template argument the skeleton maps its name to (BLOCK_SIZE = 32). False
 * when lim (may be NULL) has no skeleton or the mapped text is no integer. */
static bool kc_const_value(const kc_limits *lim, const char *name, long long *v);

/* Whether size atom id is never negative when every size is at least 1: a parameter or
 * constant (a template parameter whose launch argument lim's skeleton knows), or x / d,
 * ceil_div(x, d) and x % d with d's terms positive and x a sum of such atoms with positive
 * coefficients less at most 1 (kernel_size - 1). A multiplier of a bound must be. */
static bool kc_size_nonneg(const km_kernel *km, const kc_limits *lim, uint32_t id, int depth)
{
    size_t n = 0;
    const km_atom *a = km_atoms(km, &n);
    if (id >= n || depth > 4)
        return false;
    long long mapped = -1;
    if (a[id].kind == KM_ATOM_CONST && !a[id].has_value && a[id].name && kc_const_value(lim, a[id].name, &mapped))
        return mapped >= 0;
    if (a[id].kind == KM_ATOM_PARAM || (a[id].kind == KM_ATOM_CONST && (!a[id].has_value || a[id].value >= 0)))
        return a[id].kind == KM_ATOM_PARAM || a[id].has_value; /* an unknown constant may be negative */
    if (a[id].kind != KM_ATOM_OPAQUE || a[id].n_args != 2)
        return false;
    int64_t constant = 0;
    bool positive = false;
    for (int g = 0; g < 2; g++)
        for (uint32_t i = 0; i < a[id].args[g].n; i++) {
            const km_term *t = &a[id].args[g].t[i];
            if (t->n == 0 && g == 0) {
                constant += t->coef;
                continue;
            }
            if (t->coef <= 0)
                return false;
            for (uint32_t j = 0; j < t->n; j++)
                if (!kc_size_nonneg(km, lim, t->atoms[j], depth + 1))
                    return false;
            positive |= g == 0;
        }
    /* d: positive terms only (a constant d is a term with no atoms, coefficient > 0) */
    return constant >= 0 || (positive && constant >= -1);
}

/* Every atom of term t is a size that is never negative (kc_size_nonneg). */
static bool kc_term_nonneg(const km_kernel *km, const kc_limits *lim, const km_term *t)
{
    for (uint32_t j = 0; j < t->n; j++)
        if (!kc_size_nonneg(km, lim, t->atoms[j], 0))
            return false;
    return true;
}

/* Same atoms, as multisets. */
static bool kc_same_atoms(const km_term *a, const km_term *b)
{
    if (a->n != b->n)
        return false;
    bool used[KM_DEGREE_MAX] = { 0 };
    for (uint32_t i = 0; i < a->n; i++) {
        uint32_t j = 0;
        while (j < b->n && (used[j] || b->atoms[j] != a->atoms[i]))
            j++;
        if (j == b->n)
            return false;
        used[j] = true;
    }
    return true;
}

/* p += coef * m * x (m a monomial). False when a product is too long or p too big. */
static bool kc_add(kc_poly *p, const km_term *m, const km_term *x, int64_t coef)
{
    km_term t = { .coef = coef * m->coef * x->coef, .n = m->n + x->n };
    if (t.n > KM_DEGREE_MAX)
        return false;
    memcpy(t.atoms, m->atoms, m->n * sizeof *t.atoms);
    memcpy(t.atoms + m->n, x->atoms, x->n * sizeof *t.atoms);
    for (size_t i = 0; i < p->n; i++)
        if (kc_same_atoms(&p->t[i], &t)) {
            p->t[i].coef += t.coef;
            if (p->t[i].coef == 0)
                p->t[i] = p->t[--p->n];
            return true;
        }
    if (p->n == KC_TERMS)
        return false;
    p->t[p->n++] = t;
    return true;
}

/* m with t == m * g (coefficient and atoms), m positive and made of sizes only. */
static bool kc_divide(const km_kernel *km, const kc_limits *lim, const km_term *t, const km_term *g, km_term *m)
{
    if (g->coef <= 0 || t->coef <= 0 || t->coef % g->coef || g->n > t->n)
        return false;
    bool used[KM_DEGREE_MAX] = { 0 };
    for (uint32_t i = 0; i < g->n; i++) {
        uint32_t j = 0;
        while (j < t->n && (used[j] || t->atoms[j] != g->atoms[i]))
            j++;
        if (j == t->n)
            return false;
        used[j] = true;
    }
    m->coef = t->coef / g->coef;
    m->n = 0;
    for (uint32_t j = 0; j < t->n; j++)
        if (!used[j])
            m->atoms[m->n++] = t->atoms[j];
    for (uint32_t j = 0; j < m->n; j++)
        if (!kc_size_nonneg(km, lim, m->atoms[j], 0))
            return false;
    return kc_term_sized(km, m);
}

/* Kernel-terms C text of sized terms: parameters by name, constants by value when known. */
static bool kc_print(const km_kernel *km, const km_term *t, size_t n, struct hk_buf *b)
{
    size_t na = 0;
    const km_atom *atoms = km_atoms(km, &na);
    if (n == 0)
        return hk_buf_appends(b, "0") == HK_OK;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        int64_t c = t[i].coef;
        ok &= hk_buf_appends(b, i == 0 ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ")) == HK_OK;
        c = c < 0 ? -c : c;
        if (c != 1 || t[i].n == 0)
            ok &= hk_buf_printf(b, "%lld%s", (long long)c, t[i].n ? " * " : "") == HK_OK;
        for (uint32_t j = 0; j < t[i].n && ok; j++) {
            const km_atom *a = &atoms[t[i].atoms[j]];
            if (a->kind == KM_ATOM_CONST && a->has_value)
                ok &= hk_buf_printf(b, "%s%lld", j ? " * " : "", (long long)a->value) == HK_OK;
            else if (a->name && (a->kind == KM_ATOM_PARAM || a->kind == KM_ATOM_CONST))
                ok &= hk_buf_printf(b, "%s%s", j ? " * " : "", a->name) == HK_OK;
            else if (kc_size_atom(km, t[i].atoms[j]) && !strcmp(a->op, "ceildiv"))
                /* ((x) + (d) - 1) / (d): sk_translate reads no call of ceil_div (a launcher's
                 * own ceil_div(N, block_size) is its macro or inline function) */
                ok &= hk_buf_appends(b, j ? " * (((" : "(((") == HK_OK &&
                      kc_print(km, a->args[0].t, a->args[0].n, b) && hk_buf_appends(b, ") + (") == HK_OK &&
                      kc_print(km, a->args[1].t, a->args[1].n, b) && hk_buf_appends(b, ") - 1) / (") == HK_OK &&
                      kc_print(km, a->args[1].t, a->args[1].n, b) && hk_buf_appends(b, "))") == HK_OK;
            else if (kc_size_atom(km, t[i].atoms[j])) /* (x) / (d), (x) % (d) of sizes */
                ok &= hk_buf_appends(b, j ? " * ((" : "((") == HK_OK &&
                      kc_print(km, a->args[0].t, a->args[0].n, b) &&
                      hk_buf_printf(b, ") %s (", a->op) == HK_OK && kc_print(km, a->args[1].t, a->args[1].n, b) &&
                      hk_buf_appends(b, "))") == HK_OK;
            else
                ok = false;
        }
    }
    return ok;
}

typedef struct {
    km_form lhs, rhs;  /* lhs < rhs (rhs + 1 when le) */
    bool le;
    km_term counter;   /* a loop's: lhs is this one term */
    km_term own[8];    /* a loop variable's form (start + step * counter): lhs's terms */
    km_term last;      /* its last value plus one, when the loop's numbers are constants */
    km_term sized[8];  /* a bound's terms made of sizes, when the others moved to lhs */
} kc_bound;

/* Bounds known besides the access's guards and loops. */
struct kc_limits {
    const skel *k;         /* the skeleton, whose template arguments give constants the
                            * model does not know (kc_const_value); may be NULL */
    const kc_bound *extra; /* a read value below a limit (kg_gathers), or NULL */
    bool grid[3];          /* blockIdx.d is below the launch's grid dimension d, which the
                            * skeleton maps from kc_grid_names[d] (sk_map_grid) */
    bool threads[3];       /* the global thread index along d is below the threads the
                            * spec launches along d, kc_thread_names[d] (sk_map_threads) */
    long long block[3];    /* the block the spec launches (threadIdx.d < block[d]); 0:
                            * not known */
};

static bool kc_const_value(const kc_limits *lim, const char *name, long long *v)
{
    const char *t = lim && lim->k ? sk_mapped(lim->k, name) : NULL;
    char *end = NULL;
    if (!t || !*t)
        return false;
    long long x = strtoll(t, &end, 10);
    if (end == t || *end)
        return false;
    *v = x;
    return true;
}

const char *const kc_grid_names[3] = { "hk_grid_x", "hk_grid_y", "hk_grid_z" };

const char *const kc_thread_names[3] = { "hk_threads_x", "hk_threads_y", "hk_threads_z" };

/* The largest element of one access plus one, in kernel terms: its element form written
 * as sum m_i * lhs_i + rest over the guards and loops in force (lhs_i < rhs_i), each m_i a
 * positive product of sizes and rest made of sizes, is at most sum m_i * (rhs_i - 1) +
 * rest. False when the form does not split that way (an unguarded thread index, a read
 * value, a / or %). extra (may be NULL) is one more bound in force: a read value known to
 * stay below a limit (kg_gathers). */
static bool kc_form_extent(const km_kernel *km, const km_access *a, km_form form, const kc_limits *lim,
                           int depth, struct hk_buf *b);

/* The largest value of term t, when t is m * (x % d) or m * (x / d) with m a positive
 * product of sizes and d made of sizes: m * (d - 1), or m * (max x / d) with x bounded as
 * the access's subscript is (kc_form_extent); an upper bound for any x, as d >= 1. The
 * text of that bound appended to b after " + ". False for any other term. */
static bool kc_divmod_term(const km_kernel *km, const km_access *a, const km_term *t, const kc_limits *lim,
                           int depth, struct hk_buf *b)
{
    size_t na = 0;
    const km_atom *atoms = km_atoms(km, &na);
    long op_at = -1;
    for (uint32_t j = 0; j < t->n; j++) {
        const km_atom *x = t->atoms[j] < na ? &atoms[t->atoms[j]] : NULL;
        if (!x)
            return false;
        if (kc_size_atom(km, t->atoms[j]))
            continue;
        if (op_at >= 0 || x->kind != KM_ATOM_OPAQUE || !x->op || x->n_args != 2 ||
            (strcmp(x->op, "/") != 0 && strcmp(x->op, "%") != 0) || !kc_form_sized(km, x->args[1]) ||
            !x->args[1].n)
            return false;
        op_at = j;
    }
    if (op_at < 0 || t->coef <= 0 || depth <= 0)
        return false;
    const km_atom *x = &atoms[t->atoms[op_at]];
    for (uint32_t j = 0; j < x->args[1].n; j++)
        if (x->args[1].t[j].coef <= 0)
            return false; /* d >= 1 needs every term of it positive (sizes are) */
    km_term m = { .coef = t->coef, .n = 0 };
    for (uint32_t j = 0; j < t->n; j++)
        if ((long)j != op_at)
            m.atoms[m.n++] = t->atoms[j];
    if (!kc_term_nonneg(km, lim, &m))
        return false;
    bool ok = hk_buf_appends(b, " + (") == HK_OK && kc_print(km, &m, 1, b) &&
              hk_buf_appends(b, ") * ((") == HK_OK;
    if (!strcmp(x->op, "%"))
        return ok && kc_print(km, x->args[1].t, x->args[1].n, b) && hk_buf_appends(b, ") - 1)") == HK_OK;
    /* max x = its extent - 1 */
    return ok && hk_buf_appends(b, "(") == HK_OK && kc_form_extent(km, a, x->args[0], lim, depth - 1, b) &&
           hk_buf_appends(b, ") - 1) / (") == HK_OK && kc_print(km, x->args[1].t, x->args[1].n, b) &&
           hk_buf_appends(b, "))") == HK_OK;
}

static bool kc_access_extent(const km_kernel *km, const km_access *a, const kc_limits *lim,
                             struct hk_buf *b)
{
    return kc_form_extent(km, a, a->has_entry_element ? a->entry_element : a->element, lim, 2, b);
}

/* Term t as m * X.d, with m a positive product of sizes and X the builtin of kind (blockIdx
 * or gridDim) along a dimension d that the launch fixes: " + (m) * (grid_d<suffix>)" appended
 * to b. False for any other term. */
static bool kc_launch_term(const km_kernel *km, const km_term *t, const kc_limits *lim,
                           enum km_atom_kind kind, const char *suffix, struct hk_buf *b)
{
    size_t na = 0;
    const km_atom *atoms = km_atoms(km, &na);
    long at = -1;
    for (uint32_t j = 0; j < t->n; j++) {
        if (kc_size_atom(km, t->atoms[j]))
            continue;
        const km_atom *x = t->atoms[j] < na ? &atoms[t->atoms[j]] : NULL;
        if (at >= 0 || !x || x->kind != kind || x->axis < 0 || x->axis > 2 || !lim->grid[x->axis])
            return false;
        at = j;
    }
    if (at < 0 || t->coef <= 0)
        return false;
    km_term m = { .coef = t->coef, .n = 0 };
    for (uint32_t j = 0; j < t->n; j++)
        if ((long)j != at)
            m.atoms[m.n++] = t->atoms[j];
    if (!kc_term_nonneg(km, lim, &m))
        return false;
    return hk_buf_appends(b, " + (") == HK_OK && kc_print(km, &m, 1, b) &&
           hk_buf_printf(b, ") * (%s%s)", kc_grid_names[atoms[t->atoms[at]].axis], suffix) == HK_OK;
}

/* The largest value of term t when t is m * blockIdx.d and the launch fixes grid dimension
 * d: m * (grid_d - 1). A block index no guard bounds (out[blockIdx.x] written by thread 0)
 * is below the grid it runs in. */
static bool kc_block_term(const km_kernel *km, const km_term *t, const kc_limits *lim, struct hk_buf *b)
{
    return kc_launch_term(km, t, lim, KM_ATOM_BLOCK_IDX, " - 1", b);
}

/* A term m * gridDim.d where the spec's grid along d is known (srad's last row,
 * cols * BLOCK * (gridDim.y - 1)): its value. */
static bool kc_grid_dim_term(const km_kernel *km, const km_term *t, const kc_limits *lim, struct hk_buf *b)
{
    return kc_launch_term(km, t, lim, KM_ATOM_GRID_DIM, "", b);
}

/* Whether term t is m * x with m a positive product of sizes (into *m) and x the builtin
 * atoms one (kind a) or two (kinds a and b) along one axis (into *axis). */
static bool kc_builtin_term(const km_kernel *km, const kc_limits *lim, const km_term *t, enum km_atom_kind a,
                            int b, km_term *m, int *axis)
{
    size_t na = 0;
    const km_atom *atoms = km_atoms(km, &na);
    bool seen_a = false, seen_b = b < 0;
    int ax = -1;
    *m = (km_term){ .coef = t->coef, .n = 0 };
    for (uint32_t j = 0; j < t->n; j++) {
        if (kc_size_atom(km, t->atoms[j])) {
            m->atoms[m->n++] = t->atoms[j];
            continue;
        }
        const km_atom *x = t->atoms[j] < na ? &atoms[t->atoms[j]] : NULL;
        if (!x || x->axis < 0 || x->axis > 2 || (ax >= 0 && x->axis != ax))
            return false;
        ax = x->axis;
        if (x->kind == a && !seen_a)
            seen_a = true;
        else if (b >= 0 && x->kind == (enum km_atom_kind)b && !seen_b)
            seen_b = true;
        else
            return false;
    }
    *axis = ax;
    return seen_a && seen_b && t->coef > 0 && kc_term_nonneg(km, lim, m);
}

/* Whether term t is m * blockIdx.d * blockDim.d (kc_builtin_term), or m * B * blockIdx.d
 * with B the block the spec launches along d, a literal factor of the coefficient or a
 * constant of that value (a template parameter the launch sets to it: matrixMul's
 * `BLOCK_SIZE * bx` beside `tx`, a kernel whose index math fixes its block, `blockIdx.x *
 * 256`): the thread's block times the block's width either way. m into *m, d into *axis. */
static bool kc_block_index_term(const km_kernel *km, const kc_limits *lim, const km_term *t, km_term *m, int *axis)
{
    if (kc_builtin_term(km, lim, t, KM_ATOM_BLOCK_IDX, KM_ATOM_BLOCK_DIM, m, axis))
        return true;
    if (!lim || !kc_builtin_term(km, lim, t, KM_ATOM_BLOCK_IDX, -1, m, axis))
        return false;
    long long bd = lim->block[*axis];
    if (bd < 2) /* a block of 1 along d: any factor would do, and none is the block's */
        return false;
    if (m->coef % bd == 0) {
        m->coef /= bd;
        return true;
    }
    size_t na = 0;
    const km_atom *atoms = km_atoms(km, &na);
    for (uint32_t j = 0; j < m->n; j++) {
        const km_atom *x = m->atoms[j] < na ? &atoms[m->atoms[j]] : NULL;
        long long v = -1;
        if (!x || x->kind != KM_ATOM_CONST ||
            !(x->has_value ? (v = x->value, true) : x->name && kc_const_value(lim, x->name, &v)) || v != bd)
            continue;
        m->atoms[j] = m->atoms[--m->n];
        return true;
    }
    return false;
}

/* The largest value of the global thread index along an axis in p, where no guard bounds
 * it: m * threadIdx.d plus, when the term is there too, m * blockIdx.d * blockDim.d (or
 * m * B * blockIdx.d with B the launched block, kc_block_index_term). With
 * both, at most m * (threads_d - 1) (the threads the spec launches along d); with the
 * thread index alone, m * (block_d - 1). The terms are taken out of p (term at is one of
 * them) and the bound appended to b after " + ". False for any other term, and when a
 * guard in force on access a mentions the index along d (one the split could not use). */
static bool kc_thread_term(const km_kernel *km, const km_access *a, kc_poly *p, size_t at, const kc_limits *lim,
                           struct hk_buf *b)
{
    km_term m, m2;
    int d = -1, d2 = -1;
    long other = -1;
    size_t tid_at = at;
    if (kc_block_index_term(km, lim, &p->t[at], &m, &d)) {
        for (size_t i = 0; i < p->n && other < 0; i++)
            if (kc_builtin_term(km, lim, &p->t[i], KM_ATOM_THREAD_IDX, -1, &m2, &d2) && d2 == d &&
                m2.coef == m.coef && kc_same_atoms(&m, &m2))
                other = (long)i;
        if (other < 0)
            return false;
        tid_at = (size_t)other;
    } else if (kc_builtin_term(km, lim, &p->t[at], KM_ATOM_THREAD_IDX, -1, &m, &d)) {
        for (size_t i = 0; i < p->n && other < 0; i++)
            if (kc_block_index_term(km, lim, &p->t[i], &m2, &d2) && d2 == d &&
                m2.coef == m.coef && kc_same_atoms(&m, &m2))
                other = (long)i;
    } else {
        return false;
    }
    /* a guard on the thread index that the split could not use (`pair < tokens * heads *
     * (dim / 2)`) stops threads short of the launch: threads * m would count elements no
     * thread writes */
    size_t ng = 0;
    const km_guard *guards = km_guards(km, &ng);
    for (uint32_t i = 0; i < a->n_guards; i++) {
        const km_guard *g = &guards[a->guards[i]];
        if (km_form_mentions_kind(km, g->lhs, KM_ATOM_THREAD_IDX, d) ||
            km_form_mentions_kind(km, g->rhs, KM_ATOM_THREAD_IDX, d) ||
            km_form_mentions_kind(km, g->lhs, KM_ATOM_BLOCK_IDX, d) ||
            km_form_mentions_kind(km, g->rhs, KM_ATOM_BLOCK_IDX, d))
            return false;
    }
    bool ok;
    if (other >= 0) {
        if (!lim->threads[d])
            return false;
        ok = hk_buf_appends(b, " + (") == HK_OK && kc_print(km, &m, 1, b) &&
             hk_buf_printf(b, ") * (%s - 1)", kc_thread_names[d]) == HK_OK;
        size_t hi = (size_t)other > at ? (size_t)other : at, lo = (size_t)other > at ? at : (size_t)other;
        p->t[hi] = p->t[--p->n];
        p->t[lo] = p->t[--p->n];
    } else {
        if (lim->block[d] < 1)
            return false;
        ok = hk_buf_appends(b, " + (") == HK_OK && kc_print(km, &m, 1, b) &&
             hk_buf_printf(b, ") * %lld", lim->block[d] - 1) == HK_OK;
        p->t[tid_at] = p->t[--p->n];
    }
    return ok;
}

/* Is atom id a grid-stride loop's counter ($G), or does it hold one in its operands? */
static bool kc_grid_counter(const km_kernel *km, uint32_t id)
{
    size_t na = 0, nl = 0;
    const km_atom *atoms = km_atoms(km, &na);
    const km_loop *loops = km_loops(km, &nl);
    return id < na && atoms[id].kind == KM_ATOM_LOOP && atoms[id].loop >= 0 && (size_t)atoms[id].loop < nl &&
           loops[atoms[id].loop].kind == KM_LOOP_GRID_STRIDE;
}

static bool kc_form_mentions_grid(const km_kernel *km, km_form f, int depth);

static bool kc_atom_mentions_grid(const km_kernel *km, uint32_t id, int depth)
{
    size_t na = 0;
    const km_atom *atoms = km_atoms(km, &na);
    if (id >= na || depth > 16)
        return id < na;  /* too deep: taken as mentioning one (no translation) */
    if (kc_grid_counter(km, id))
        return true;
    for (uint32_t i = 0; i < atoms[id].n_args; i++)
        if (kc_form_mentions_grid(km, atoms[id].args[i], depth + 1))
            return true;
    return false;
}

static bool kc_form_mentions_grid(const km_kernel *km, km_form f, int depth)
{
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++)
            if (kc_atom_mentions_grid(km, f.t[i].atoms[j], depth))
                return true;
    return false;
}

static bool kc_form_at_entry(const km_kernel *km, km_form e, km_form g, int depth);

/* Is atom e (no grid counter in it) atom g with every grid-stride counter at 0? The
 * value read at, or the division of, the element a thread handles first. */
static bool kc_atom_at_entry(const km_kernel *km, uint32_t e, uint32_t g, int depth)
{
    size_t na = 0;
    const km_atom *atoms = km_atoms(km, &na);
    if (e == g)
        return true;
    if (e >= na || g >= na || depth > 16)
        return false;
    const km_atom *x = &atoms[e], *y = &atoms[g];
    if (x->kind != y->kind || (x->kind != KM_ATOM_READ && x->kind != KM_ATOM_OPAQUE) ||
        x->n_args != y->n_args || !x->name != !y->name || (x->name && strcmp(x->name, y->name)) ||
        !x->op != !y->op || (x->op && strcmp(x->op, y->op)))
        return false;
    for (uint32_t i = 0; i < x->n_args; i++)
        if (!kc_form_at_entry(km, x->args[i], y->args[i], depth + 1))
            return false;
    return true;
}

/* Form e is form g with its grid-stride counters at 0: g's terms that hold a counter
 * gone, the others matched one to one with e's (same coefficient, atoms at entry). */
static bool kc_form_at_entry(const km_kernel *km, km_form e, km_form g, int depth)
{
    bool used[KC_TERMS] = { 0 };
    uint32_t kept = 0;
    if (e.n > KC_TERMS)
        return false;
    for (uint32_t i = 0; i < g.n; i++) {
        bool gone = false;
        for (uint32_t j = 0; j < g.t[i].n && !gone; j++)
            gone = kc_grid_counter(km, g.t[i].atoms[j]);
        if (gone)
            continue;
        kept++;
        bool found = false;
        for (uint32_t q = 0; q < e.n && !found; q++) {
            if (used[q] || e.t[q].coef != g.t[i].coef || e.t[q].n != g.t[i].n)
                continue;
            bool taken[KM_DEGREE_MAX] = { 0 }, all = true;
            for (uint32_t j = 0; j < g.t[i].n && all; j++) {
                uint32_t m = 0;
                while (m < e.t[q].n && (taken[m] || !kc_atom_at_entry(km, e.t[q].atoms[m], g.t[i].atoms[j], depth)))
                    m++;
                all = m < e.t[q].n;
                if (all)
                    taken[m] = true;
            }
            if (all)
                used[q] = found = true;
        }
        if (!found)
            return false;
    }
    return kept == e.n;
}

/* A guard's lhs at the thread's first element, into x->own: access forms are elements
 * (grid-stride counters at 0) while a guard inside a grid-stride loop holds its counter
 * (tin_shift's `now_t = i + shift[f(index)]` checked against t_size); the guard holds at
 * every pass, so at the first too, where each value read or division is the element
 * form's atom. Terms with a counter are 0 there. False when an atom has no element-form
 * twin in the model or the terms do not fit. */
static bool kc_guard_at_entry(const km_kernel *km, km_form lhs, kc_bound *x)
{
    size_t na = 0;
    km_atoms(km, &na);
    uint32_t n = 0;
    for (uint32_t i = 0; i < lhs.n; i++) {
        km_term t = lhs.t[i];
        bool gone = false;
        for (uint32_t j = 0; j < t.n && !gone; j++)
            gone = kc_grid_counter(km, t.atoms[j]);
        if (gone)
            continue;
        for (uint32_t j = 0; j < t.n; j++) {
            if (!kc_atom_mentions_grid(km, t.atoms[j], 0))
                continue;
            uint32_t twin = UINT32_MAX;
            for (uint32_t c = 0; c < na && twin == UINT32_MAX; c++)
                if (c != t.atoms[j] && !kc_atom_mentions_grid(km, c, 0) && kc_atom_at_entry(km, c, t.atoms[j], 0))
                    twin = c;
            if (twin == UINT32_MAX)
                return false;
            t.atoms[j] = twin;
        }
        if (n == HK_ARRAY_LEN(x->own))
            return false;
        x->own[n++] = t;
    }
    x->lhs = (km_form){ .t = x->own, .n = n };
    return n > 0;
}

/* Would taking m * lhs out of p leave no new unbounded term: each term of m * lhs that is
 * not made of sizes already in p with its coefficient? (`i < t_size` from the loop, not
 * `i + shift[..] < t_size` from a guard, splits `i * hw` when no shift term is there.) */
static bool kc_split_cancels(const km_kernel *km, const kc_poly *p, const km_term *m, km_form lhs)
{
    for (uint32_t q = 0; q < lhs.n; q++) {
        km_term t = { .coef = m->coef * lhs.t[q].coef, .n = m->n + lhs.t[q].n };
        if (t.n > KM_DEGREE_MAX)
            return false;
        memcpy(t.atoms, m->atoms, m->n * sizeof *t.atoms);
        memcpy(t.atoms + m->n, lhs.t[q].atoms, lhs.t[q].n * sizeof *t.atoms);
        if (kc_term_sized(km, &t))
            continue;
        bool there = false;
        for (size_t i = 0; i < p->n && !there; i++)
            there = p->t[i].coef == t.coef && kc_same_atoms(&p->t[i], &t);
        if (!there)
            return false;
    }
    return true;
}

/* kc_access_extent of any form under the access's guards and loops (depth: how many
 * divisions deep kc_divmod_term may look). */
static bool kc_form_extent(const km_kernel *km, const km_access *a, km_form form, const kc_limits *lim,
                           int depth, struct hk_buf *b)
{
    size_t ng = 0, nl = 0;
    const km_guard *guards = km_guards(km, &ng);
    const km_loop *loops = km_loops(km, &nl);
    kc_bound bd[KC_BOUNDS];
    size_t nb = 0;
    for (uint32_t i = 0; i < a->n_guards && nb < KC_BOUNDS; i++) {
        const km_guard *g = &guards[a->guards[i]];
        bool lt = !strcmp(g->op, "<"), le = !strcmp(g->op, "<=");
        if (!(lt || le) || !kc_form_sized(km, g->rhs) || kc_form_sized(km, g->lhs))
            continue;
        bd[nb] = (kc_bound){ .lhs = g->lhs, .rhs = g->rhs, .le = le };
        if (!kc_form_mentions_grid(km, g->lhs, 0) || kc_guard_at_entry(km, g->lhs, &bd[nb]))
            nb++;
    }
    for (uint32_t i = 0; i < a->n_loops && nb < KC_BOUNDS; i++) {
        const km_loop *l = &loops[a->loops[i]];
        if (l->kind != KM_LOOP_AFFINE || !l->has_trip || !kc_form_sized(km, l->trip))
            continue;
        kc_bound *x = &bd[nb++];
        *x = (kc_bound){ .rhs = l->trip, .counter = { .coef = 1, .n = 1, .atoms = { l->counter } } };
        x->lhs = (km_form){ .t = &x->counter, .n = 1 };
    }
    /* a loop whose trip is no size (for (k = threadIdx.x; k < n; k += 256)): its variable,
     * start + step * counter, is below its bound inside the body */
    for (uint32_t i = 0; i < a->n_loops && nb < KC_BOUNDS; i++) {
        const km_loop *l = &loops[a->loops[i]];
        bool lt = l->cmp && !strcmp(l->cmp, "<"), le = l->cmp && !strcmp(l->cmp, "<=");
        if ((l->kind != KM_LOOP_AFFINE && l->kind != KM_LOOP_BLOCK_STRIDE) || (!lt && !le) ||
            (l->has_trip && kc_form_sized(km, l->trip)) || !kc_form_sized(km, l->bound) ||
            l->start.n + l->step.n > HK_ARRAY_LEN(bd[0].own) || !l->step.n)
            continue;
        kc_bound *x = &bd[nb];
        *x = (kc_bound){ .rhs = l->bound, .le = le };
        bool fits = true;
        uint32_t n = 0;
        for (uint32_t j = 0; j < l->start.n; j++)
            x->own[n++] = l->start.t[j];
        for (uint32_t j = 0; j < l->step.n && fits; j++) {
            km_term t = l->step.t[j];
            fits = t.n < KM_DEGREE_MAX;
            if (fits)
                t.atoms[t.n++] = l->counter;
            x->own[n++] = t;
        }
        if (!fits)
            continue;
        x->lhs = (km_form){ .t = x->own, .n = n };
        /* constant start, step and bound: the variable's last value is start + step * q,
         * below the bound by less than a step (for (i = 0; i < 32; i += 16) ends at 16, not
         * 31: a count past it would be an output never written) */
        int64_t v0, dv, hi;
        if (km_form_value(km, l->start, &v0) && km_form_value(km, l->step, &dv) &&
            km_form_value(km, l->bound, &hi) && dv > 0 && v0 >= 0 && hi > v0 && hi < ((int64_t)1 << 40)) {
            int64_t top = le ? hi : hi - 1;
            x->last = (km_term){ .coef = v0 + dv * ((top - v0) / dv) + 1, .n = 0 };
            x->rhs = (km_form){ .t = &x->last, .n = 1 };
            x->le = false;
        }
        nb++;
    }
    /* a loop whose bound moves with the thread (psamask's window, `for (hidx = hstart;
     * hidx < hend; ..)` with hend = min(h_mask, h_feature + half_h_mask - h)), or with an
     * outer loop's tile (chamfer's staging loop, `j < 2 * (min(m, k2 + 512) - k2)`): the
     * bound is c * min(A, B) plus other terms R, c > 0, so the variable is below c * A + R
     * and below c * B + R; each, its terms that are no size taken to the left (hidx + h <
     * h_feature + half_h_mask; j + 2 * k2 < 2 * m, where k2 cancels), read at the thread's
     * first element */
    for (uint32_t i = 0; i < a->n_loops && nb < KC_BOUNDS; i++) {
        const km_loop *l = &loops[a->loops[i]];
        bool lt = l->cmp && !strcmp(l->cmp, "<"), le = l->cmp && !strcmp(l->cmp, "<=");
        if ((l->kind != KM_LOOP_AFFINE && l->kind != KM_LOOP_BLOCK_STRIDE) || (!lt && !le) || !l->step.n ||
            !l->bound.n || (l->has_trip && kc_form_sized(km, l->trip)) || kc_form_sized(km, l->bound))
            continue;
        size_t na = 0;
        const km_atom *atoms = km_atoms(km, &na);
        long min_at = -1;
        bool two = false;
        for (uint32_t j = 0; j < l->bound.n; j++) {
            const km_term *bt = &l->bound.t[j];
            if (bt->n == 1 && bt->coef > 0 && bt->atoms[0] < na && atoms[bt->atoms[0]].kind == KM_ATOM_OPAQUE &&
                atoms[bt->atoms[0]].op && !strcmp(atoms[bt->atoms[0]].op, "min") &&
                atoms[bt->atoms[0]].n_args == 2) {
                two |= min_at >= 0;
                min_at = (long)j;
            }
        }
        if (min_at < 0 || two)
            continue;
        const km_atom *mn = &atoms[l->bound.t[min_at].atoms[0]];
        km_term scale = { .coef = l->bound.t[min_at].coef, .n = 0 };
        km_term one = { .coef = 1, .n = 0 };
        for (size_t pc = 0; pc < 2 && nb < KC_BOUNDS; pc++) {
            kc_poly lhs = { .n = 0 }, sized = { .n = 0 };
            bool fits = true;
            for (uint32_t j = 0; j < l->start.n && fits; j++)
                fits = kc_add(&lhs, &one, &l->start.t[j], 1);
            for (uint32_t j = 0; j < l->step.n && fits; j++) {
                km_term t = l->step.t[j];
                fits = t.n < KM_DEGREE_MAX;
                if (fits) {
                    t.atoms[t.n++] = l->counter;
                    fits = kc_add(&lhs, &one, &t, 1);
                }
            }
            /* the bound's other terms, then the piece's, c times */
            for (int part = 0; part < 2 && fits; part++) {
                km_form f = part ? mn->args[pc] : l->bound;
                const km_term *m = part ? &scale : &one;
                for (uint32_t j = 0; j < f.n && fits; j++) {
                    if (!part && (long)j == min_at)
                        continue;
                    km_term t = f.t[j];
                    if (kc_term_sized(km, &t))
                        fits = kc_add(&sized, m, &t, 1);
                    else
                        fits = kc_add(&lhs, m, &t, -1);
                }
            }
            kc_bound *x = &bd[nb];
            *x = (kc_bound){ .le = le };
            if (!fits || !lhs.n || sized.n > HK_ARRAY_LEN(x->sized) ||
                !kc_guard_at_entry(km, (km_form){ .t = lhs.t, .n = (uint32_t)lhs.n }, x))
                continue;
            memcpy(x->sized, sized.t, sized.n * sizeof *sized.t);
            x->rhs = (km_form){ .t = x->sized, .n = (uint32_t)sized.n };
            nb++;
        }
    }
    if (lim && lim->extra && nb < KC_BOUNDS)
        bd[nb++] = *lim->extra;
    kc_poly rest = { .n = 0 };
    km_term one = { .coef = 1, .n = 0 };
    struct hk_buf divmod; /* " + bound" of each x / d and x % d term */
    hk_buf_init(&divmod, SK_MAX_TEXT);
    bool ok = true;
    for (uint32_t i = 0; i < form.n && ok; i++)
        ok = kc_add(&rest, &one, &form.t[i], 1);
    kc_poly mult[KC_BOUNDS];
    for (size_t i = 0; i < nb; i++)
        mult[i].n = 0;
    for (int step = 0; ok && step < 2 * KC_TERMS; step++) {
        size_t at = rest.n;
        for (size_t i = 0; i < rest.n && at == rest.n; i++)
            if (!kc_term_sized(km, &rest.t[i]))
                at = i;
        if (at == rest.n)
            break; /* only sizes left */
        km_term t = rest.t[at], m;
        bool split = false;
        /* a bound whose other terms are all there first (psamask's h of `hidx + h <
         * h_feature + half_h_mask` is a remainder that goes with hidx), then x / d and
         * x % d on their own, then any bound */
        for (int exact = 1; exact >= 0 && !split; exact--) {
        if (!exact) {
            struct hk_buf one_term;
            hk_buf_init(&one_term, SK_MAX_TEXT);
            if (kc_divmod_term(km, a, &t, lim, depth, &one_term)) {
                ok &= one_term.data && hk_buf_appends(&divmod, one_term.data) == HK_OK;
                rest.t[at] = rest.t[--rest.n];
                split = true;
            }
            hk_buf_free(&one_term);
        }
        /* of the bounds that split t exactly, the one over the most terms: a tile loop's
         * counter `k2 < ceil_div(m, 512)` and its staging loop's `j + 2 * k2 < 2 * m` both
         * split k2's term, the second exactly to 2 * m, the first rounded up to the tile */
        size_t pick = nb;
        km_term pick_m = { 0 };
        for (size_t i = 0; i < nb && (exact || pick == nb); i++)
            for (uint32_t j = 0; j < bd[i].lhs.n && (exact || pick == nb); j++) {
                if (kc_term_sized(km, &bd[i].lhs.t[j]) || !kc_divide(km, lim, &t, &bd[i].lhs.t[j], &m) ||
                    (exact && !kc_split_cancels(km, &rest, &m, bd[i].lhs)))
                    continue;
                if (pick == nb || bd[i].lhs.n > bd[pick].lhs.n) {
                    pick = i;
                    pick_m = m;
                }
            }
        if (!split && pick < nb) {
            for (uint32_t q = 0; q < bd[pick].lhs.n; q++)
                ok &= kc_add(&rest, &pick_m, &bd[pick].lhs.t[q], -1);
            ok &= kc_add(&mult[pick], &one, &pick_m, 1);
            split = true;
        }
        }
        if (!split && lim && kc_block_term(km, &t, lim, &divmod)) {
            rest.t[at] = rest.t[--rest.n];
            split = true;
        }
        if (!split && lim && kc_grid_dim_term(km, &t, lim, &divmod)) {
            rest.t[at] = rest.t[--rest.n];
            split = true;
        }
        if (!split && lim && kc_thread_term(km, a, &rest, at, lim, &divmod))
            split = true;
        ok &= split;
    }
    for (size_t i = 0; i < rest.n; i++)
        ok &= kc_term_sized(km, &rest.t[i]);
    ok &= hk_buf_appends(b, "(") == HK_OK;
    bool any = false;
    for (size_t i = 0; i < nb && ok; i++) {
        if (!mult[i].n)
            continue;
        bool unit = mult[i].n == 1 && mult[i].t[0].n == 0 && mult[i].t[0].coef == 1;
        ok &= hk_buf_appends(b, any ? " + " : "") == HK_OK;
        if (!unit)
            ok &= hk_buf_appends(b, "(") == HK_OK && kc_print(km, mult[i].t, mult[i].n, b) &&
                  hk_buf_appends(b, ") * ") == HK_OK;
        ok &= hk_buf_appends(b, "(") == HK_OK && kc_print(km, bd[i].rhs.t, bd[i].rhs.n, b);
        ok &= hk_buf_appends(b, bd[i].le ? ")" : " - 1)") == HK_OK;
        any = true;
    }
    if (rest.n) {
        ok &= hk_buf_appends(b, any ? " + (" : "(") == HK_OK && kc_print(km, rest.t, rest.n, b);
        ok &= hk_buf_appends(b, ")") == HK_OK;
    }
    ok &= hk_buf_appends(b, any || rest.n ? ")" : "0)") == HK_OK;
    if (ok && divmod.data)
        ok &= hk_buf_appends(b, divmod.data) == HK_OK;
    ok &= hk_buf_appends(b, " + 1") == HK_OK;
    hk_buf_free(&divmod);
    return ok;
}

/* Does form f hold min(..) or max(..) of something that is no size (a window's edge that
 * moves with the thread)? */
static bool kc_clipped(const km_kernel *km, km_form f)
{
    size_t na = 0;
    const km_atom *atoms = km_atoms(km, &na);
    for (uint32_t i = 0; i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            const km_atom *x = f.t[i].atoms[j] < na ? &atoms[f.t[i].atoms[j]] : NULL;
            if (!x || x->kind != KM_ATOM_OPAQUE || !x->op || (strcmp(x->op, "min") && strcmp(x->op, "max")))
                continue;
            for (uint32_t g = 0; g < x->n_args; g++)
                if (!kc_form_sized(km, x->args[g]))
                    return true;
        }
    return false;
}

int kc_window_writes(const km_kernel *km, const char *name)
{
    size_t na = 0, nl = 0;
    const km_access *a = km ? km_accesses(km, &na) : NULL;
    const km_loop *l = km ? km_loops(km, &nl) : NULL;
    int line = 0;
    for (size_t i = 0; i < na; i++) {
        if (strcmp(a[i].buffer, name) != 0 || a[i].mode == KM_READ)
            continue;
        bool clipped = false;
        for (uint32_t j = 0; j < a[i].n_loops && !clipped; j++) {
            const km_loop *x = a[i].loops[j] < nl ? &l[a[i].loops[j]] : NULL;
            clipped = x && x->kind == KM_LOOP_AFFINE && (kc_clipped(km, x->start) || kc_clipped(km, x->bound));
        }
        if (!clipped)
            return 0;
        if (!line)
            line = (int)a[i].line;
    }
    return line;
}

int kc_window_reads(const km_kernel *km, const char *name)
{
    size_t na = 0, nl = 0, ng = 0;
    const km_access *a = km ? km_accesses(km, &na) : NULL;
    const km_loop *l = km ? km_loops(km, &nl) : NULL;
    const km_guard *g = km ? km_guards(km, &ng) : NULL;
    int line = 0;
    for (size_t i = 0; i < na; i++) {
        if (a[i].space != KM_SPACE_GLOBAL || !a[i].buffer || strcmp(a[i].buffer, name) != 0)
            continue;
        bool clipped = false;
        for (uint32_t j = 0; j < a[i].n_loops && !clipped; j++) {
            const km_loop *x = a[i].loops[j] < nl ? &l[a[i].loops[j]] : NULL;
            if (!x || x->kind == KM_LOOP_GRID_STRIDE)
                continue;
            clipped = x->kind == KM_LOOP_AFFINE && (kc_clipped(km, x->start) || kc_clipped(km, x->bound));
            for (uint32_t q = 0; q < a[i].n_guards && !clipped; q++) {
                const km_guard *c = a[i].guards[q] < ng ? &g[a[i].guards[q]] : NULL;
                /* a guard on values read from memory (or locals the model does not follow)
                 * lets some data through every iteration: the kernel can touch it all */
                clipped = c && (km_form_mentions(km, c->lhs, x->counter) || km_form_mentions(km, c->rhs, x->counter)) &&
                          !km_form_mentions_kind(km, c->lhs, KM_ATOM_READ, -1) &&
                          !km_form_mentions_kind(km, c->rhs, KM_ATOM_READ, -1) &&
                          !km_form_mentions_kind(km, c->lhs, KM_ATOM_VAR, -1) &&
                          !km_form_mentions_kind(km, c->rhs, KM_ATOM_VAR, -1);
            }
        }
        if (!clipped) /* this access spans the count's elements: the buffer is touched */
            return 0;
        if (!line)
            line = (int)a[i].line;
    }
    return line;
}

int kc_gather_reads(const km_kernel *km, const char *name, bool *strided)
{
    *strided = false;
    size_t na = 0, nl = 0;
    const km_access *a = km ? km_accesses(km, &na) : NULL;
    const km_loop *l = km ? km_loops(km, &nl) : NULL;
    int reads = 0;
    for (size_t i = 0; i < na; i++) {
        if (!a[i].buffer || strcmp(a[i].buffer, name) != 0)
            continue;
        /* a write, a read in a loop of the thread (its trips multiply it) or one at a
         * subscript the model places (it spans the count with the grid): not a gather. A
         * grid-stride loop hands each launched element one pass: it reads once per element */
        bool own_loop = false;
        for (uint32_t j = 0; j < a[i].n_loops && !own_loop; j++)
            own_loop = a[i].loops[j] >= nl || l[a[i].loops[j]].kind != KM_LOOP_GRID_STRIDE;
        if (a[i].space != KM_SPACE_GLOBAL || a[i].mode != KM_READ || own_loop ||
            !km_form_mentions_kind(km, a[i].index, KM_ATOM_READ, -1))
            return 0;
        reads++;
        *strided |= a[i].n_loops > 0;
    }
    return reads;
}

/* The line where parameter name is moved once (km_param's moved_at), else 0. */
static uint32_t kc_moved_param(const km_kernel *km, const char *name)
{
    size_t n = 0;
    const km_param *ps = km_params(km, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ps[i].name, name))
            return ps[i].moved_at;
    return 0;
}

/* Does the model place every access of parameter name, moved once? A move inside a
 * grid-stride loop adds up over its iterations: exact only when the grid gives every
 * thread one iteration (stride_grid: the grid is the loop bound's). */
int kc_data_guarded_writes(const km_kernel *km, const char *name, bool *by_local)
{
    size_t na = 0, ng = 0;
    const km_access *a = km ? km_accesses(km, &na) : NULL;
    const km_guard *g = km ? km_guards(km, &ng) : NULL;
    int line = 0;
    bool local = false;
    for (size_t i = 0; i < na; i++) {
        if (strcmp(a[i].buffer, name) != 0 || a[i].mode == KM_READ)
            continue;
        bool data = false, var = false;
        for (uint32_t j = 0; j < a[i].n_guards && !data; j++) {
            uint32_t q = a[i].guards[j];
            if (q >= ng)
                continue;
            data = km_form_mentions_kind(km, g[q].lhs, KM_ATOM_READ, -1) ||
                   km_form_mentions_kind(km, g[q].rhs, KM_ATOM_READ, -1);
            /* a local the model does not follow (a flag set in a loop from a device
             * function's answer): it may be data, so it may leave elements unwritten */
            var |= km_form_mentions_kind(km, g[q].lhs, KM_ATOM_VAR, -1) ||
                   km_form_mentions_kind(km, g[q].rhs, KM_ATOM_VAR, -1);
        }
        if (!data && !var)
            return 0;
        local |= !data;
        if (!line)
            line = (int)a[i].line;
    }
    if (by_local)
        *by_local = line && local;
    return line;
}

bool kc_moved_once(const skel *k, const char *name, bool stride_grid)
{
    if (!k->km)
        return false;
    size_t n = 0;
    const km_param *ps = km_params(k->km, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ps[i].name, name))
            return ps[i].moved_at && (!ps[i].moved_in_grid_stride || stride_grid);
    return false;
}

static size_t kh_skip_ws(const char *t, size_t i, size_t e)
{
    while (i < e && isspace((unsigned char)t[i]))
        i++;
    return i;
}

/* At byte i of t: `if (c >= X) break;` or `if (c == X) { break; }` for the counter c (cl
 * bytes). The end of the statement, and X's text in bound (cap bytes); 0 when it is not. */
static size_t kh_break_check(const char *t, size_t i, size_t e, const char *c, size_t cl, char *bound,
                             size_t cap)
{
    i = kh_skip_ws(t, i, e);
    if (!sk_word_at(t, e, i, "if", 2))
        return 0;
    i = kh_skip_ws(t, i + 2, e);
    if (i >= e || t[i] != '(')
        return 0;
    i = kh_skip_ws(t, i + 1, e);
    if (!sk_word_at(t, e, i, c, cl))
        return 0;
    i = kh_skip_ws(t, i + cl, e);
    if (i + 1 >= e || !((t[i] == '>' || t[i] == '=') && t[i + 1] == '='))
        return 0;
    size_t xs = kh_skip_ws(t, i + 2, e), xe = xs;
    while (xe < e && (isalnum((unsigned char)t[xe]) || t[xe] == '_'))
        xe++;
    if (xe == xs || xe - xs >= cap)
        return 0;
    memcpy(bound, t + xs, xe - xs);
    bound[xe - xs] = '\0';
    i = kh_skip_ws(t, xe, e);
    if (i >= e || t[i] != ')')
        return 0;
    i = kh_skip_ws(t, i + 1, e);
    bool brace = i < e && t[i] == '{';
    if (brace)
        i = kh_skip_ws(t, i + 1, e);
    if (!sk_word_at(t, e, i, "break", 5))
        return 0;
    i = kh_skip_ws(t, i + 5, e);
    if (i >= e || t[i] != ';')
        return 0;
    i++;
    if (brace) {
        i = kh_skip_ws(t, i, e);
        if (i >= e || t[i] != '}')
            return 0;
        i++;
    }
    return i;
}

bool kf_hit_counter(const char *t, size_t s, size_t e, const char *c, char *bound, size_t cap)
{
    size_t cl = strlen(c), first_inc = 0, skip_to = 0;
    bool init = false;
    bound[0] = '\0';
    for (size_t i = s; i + cl <= e; i++) {
        if (i < skip_to || !sk_word_at(t, e, i, c, cl))
            continue;
        size_t b = i;
        while (b > s && isspace((unsigned char)t[b - 1]))
            b--;
        size_t a = kh_skip_ws(t, i + cl, e);
        bool pre_inc = b >= s + 2 && t[b - 1] == '+' && t[b - 2] == '+';
        bool post_inc = a + 1 < e && t[a] == '+' && t[a + 1] == '+';
        bool add_one = a + 1 < e && t[a] == '+' && t[a + 1] == '=';
        if (add_one) {
            size_t v = kh_skip_ws(t, a + 2, e);
            add_one = v + 1 < e && t[v] == '1' && !isalnum((unsigned char)t[v + 1]);
            if (!add_one)
                return false; /* c += anything else */
        }
        if (!init) {
            /* its first appearance sets it to zero: `int c = 0;` */
            size_t z = a < e && t[a] == '=' ? kh_skip_ws(t, a + 1, e) : e;
            if (z + 1 >= e || t[z] != '0' || (t[z + 1] != ';' && t[z + 1] != ',' && !isspace((unsigned char)t[z + 1])))
                return false;
            init = true;
            continue;
        }
        if (pre_inc || post_inc || add_one) {
            /* every step is ++c; and right after it `if (c >= N) break;` */
            size_t end = a;
            while (end < e && t[end] != ';')
                end++;
            char x[64];
            size_t after = end < e ? kh_break_check(t, end + 1, e, c, cl, x, sizeof x) : 0;
            if (!after || (bound[0] && strcmp(bound, x) != 0) || strlen(x) >= cap)
                return false;
            snprintf(bound, cap, "%s", x);
            if (!first_inc)
                first_inc = i;
            skip_to = after;
            continue;
        }
        /* any other write of it, or a use after the first step (outside the loop that
         * checks it), and the bound says nothing */
        bool assign = a < e && t[a] == '=' && !(a + 1 < e && t[a + 1] == '=');
        bool dec = (b >= s + 2 && t[b - 1] == '-' && t[b - 2] == '-') || (a + 1 < e && t[a] == '-' && t[a + 1] == '-') ||
                   (a + 1 < e && strchr("-*/%<>|&^", t[a]) && t[a + 1] == '=');
        if (assign || dec || first_inc)
            return false;
    }
    return init && first_inc && bound[0];
}

/* A local the model does not follow that counts hits (kf_hit_counter): the bound that
 * keeps it below the check's limit at every use, from the model's guard on it. */
static bool kc_hit_counter_bound(skel *k, kc_bound *out)
{
    long fi = k->m ? an_model_find_kernel(k->m, km_name(k->km)) : -1;
    if (fi < 0)
        return false;
    const an_function *f = &k->m->funcs[fi];
    size_t s = f->body_span.start_byte, e = f->body_span.end_byte <= k->len ? f->body_span.end_byte : k->len;
    size_t nl = 0, ng = 0;
    const km_local *l = km_locals(k->km, &nl);
    const km_guard *g = km_guards(k->km, &ng);
    for (size_t i = 0; i < nl; i++) {
        char bound[64];
        if (l[i].kind != KM_LOCAL_VAR || l[i].form.n != 1 || l[i].form.t[0].coef != 1 || l[i].form.t[0].n != 1 ||
            !kf_hit_counter(k->text, s, e, l[i].name, bound, sizeof bound))
            continue;
        for (size_t j = 0; j < ng; j++) {
            bool on_rhs = km_form_equal(g[j].rhs, l[i].form) && kc_form_sized(k->km, g[j].lhs) &&
                          (!strcmp(g[j].op, "<=") || !strcmp(g[j].op, "=="));
            bool on_lhs = km_form_equal(g[j].lhs, l[i].form) && kc_form_sized(k->km, g[j].rhs) &&
                          (!strcmp(g[j].op, ">=") || !strcmp(g[j].op, "=="));
            km_form lim = on_rhs ? g[j].lhs : g[j].rhs;
            /* the guard of that check, not another one on it (`if (cnt == 0)`): its limit is
             * the check's N, a parameter or constant by name, or a number */
            size_t na = 0;
            const km_atom *at = km_atoms(k->km, &na);
            int64_t v;
            char *endp = NULL;
            long long num = strtoll(bound, &endp, 10);
            bool same = (on_rhs || on_lhs) &&
                        ((endp && *endp == '\0' && km_form_value(k->km, lim, &v) && v == num && num > 0) ||
                         (lim.n == 1 && lim.t[0].coef == 1 && lim.t[0].n == 1 && lim.t[0].atoms[0] < na &&
                          at[lim.t[0].atoms[0]].name && !strcmp(at[lim.t[0].atoms[0]].name, bound)));
            if (!same)
                continue;
            *out = (kc_bound){ .lhs = l[i].form, .rhs = lim, .le = false };
            return true;
        }
    }
    return false;
}

static bool kg_read_term(const km_kernel *km, km_form f, uint32_t *read, uint32_t *at);
static bool kg_radix(const km_kernel *km, km_form f, uint32_t at, uint32_t *radix);
static bool kg_compared(const km_kernel *km, const char *buffer, uint32_t *radix);
static bool kg_index_input(skel *k, const an_function *f, int q, size_t bs, size_t be);
static bool km_form_reads(const km_kernel *km, km_form f, int depth);
static int kg_pointer_param(const an_function *f, const char *name);

/* The bound a gather's read value is below, when access a subscripts with that value as the
 * lowest digit of a mixed-radix number (kg_radix: points[b * n + idx[i]], so 0 <= idx[i] <
 * n) or alone as a class label the kernel compares with a remainder by R (kg_compared:
 * weight[t] with t == index % num_classes) or another gather's digit reads the same buffer,
 * and the value is read from an integer input
 * of the kernel: kg_gathers gives that
 * input the distribution int(0, R - 1), R the radix at each size set (or its smallest
 * value over the sets, where two radixes bound one input), so the harness keeps the
 * promise. *out's lhs is the read value, its rhs the radix (a size); both point into *out.
 * False for any other access. */
static bool kc_gather_bound(skel *k, const km_access *a, kc_bound *out)
{
    long fi = k->m ? an_model_find_kernel(k->m, km_name(k->km)) : -1;
    if (fi < 0 || a->mode != KM_READ)
        return false;
    const an_function *f = &k->m->funcs[fi];
    size_t bs = f->body_span.start_byte, be = f->body_span.end_byte <= k->len ? f->body_span.end_byte : k->len;
    size_t na = 0;
    const km_atom *atoms = km_atoms(k->km, &na);
    km_form el = a->has_entry_element ? a->entry_element : a->element;
    uint32_t read = 0, at = 0, radix = 0;
    if (!kg_read_term(k->km, el, &read, &at) || read >= na || !atoms[read].name)
        return false;
    bool ranged = kg_radix(k->km, el, at, &radix) || kg_compared(k->km, atoms[read].name, &radix);
    /* else a digit of another subscript reads from the same buffer: the harness fills all
     * of it below the smallest such radix (softmax[n * C + label] beside weight[label]) */
    size_t n = 0;
    const km_access *ac = km_accesses(k->km, &n);
    for (size_t i = 0; i < n && !ranged; i++) {
        km_form other = ac[i].has_entry_element ? ac[i].entry_element : ac[i].element;
        uint32_t read2 = 0, at2 = 0;
        ranged = ac[i].space == KM_SPACE_GLOBAL && kg_read_term(k->km, other, &read2, &at2) && read2 < na &&
                 atoms[read2].name && !strcmp(atoms[read2].name, atoms[read].name) &&
                 kg_radix(k->km, other, at2, &radix);
    }
    if (!ranged || radix >= na)
        return false;
    int q = kg_pointer_param(f, atoms[read].name);
    char *r = q >= 0 && kg_index_input(k, f, q, bs, be) ? sk_translate(k, atoms[radix].name, 0) : NULL;
    bool sized = r && kf_only_sizes(k, r);
    hk_free(r);
    if (!sized)
        return false;
    *out = (kc_bound){ .counter = { .coef = 1, .n = 1, .atoms = { read } },
                       .last = { .coef = 1, .n = 1, .atoms = { radix } } };
    out->lhs = (km_form){ .t = &out->counter, .n = 1 };
    out->rhs = (km_form){ .t = &out->last, .n = 1 };
    return true;
}

/* ---- values a local takes through shared memory ----
 * Furthest point sampling reads dataset[old * 3] with `old = dists_i[0]`, and every value
 * the block stores in dists_i is a point index k of `for (k = tid; k < n; k += stride)`
 * (or 0, or another element of dists_i): old stays below n. The bounds are exclusive upper
 * bounds made of sizes, as forms of the model (a loop's bound) or a constant. */

#define KV_DEPTH 8

typedef struct {
    km_form bound;      /* value < bound, when !constant */
    int64_t constant;   /* value < constant, when constant */
    bool constant_only;
    bool any;           /* some value seen (a self-reference adds none) */
} kv_range;

/* r joined with value < (x's bound or constant): false when the two do not compare (two
 * different sizes). A constant of at most 1 is below any size (sizes are at least 1). */
static bool kv_join(const km_kernel *km, kv_range *r, const kv_range *x)
{
    if (!x->any)
        return true;
    if (!r->any) {
        *r = *x;
        return true;
    }
    if (r->constant_only && x->constant_only) {
        r->constant = r->constant > x->constant ? r->constant : x->constant;
        return true;
    }
    if (!r->constant_only && !x->constant_only)
        return km_form_equal(r->bound, x->bound);
    const kv_range *c = r->constant_only ? r : x, *f = r->constant_only ? x : r;
    if (c->constant > 1)
        return false;
    for (uint32_t i = 0; i < f->bound.n; i++)
        if (f->bound.t[i].coef <= 0 || !kc_term_sized(km, &f->bound.t[i]) || !kc_term_nonneg(km, NULL, &f->bound.t[i]))
            return false; /* not surely at least 1 */
    *r = *f;
    return true;
}

static bool kv_form(const km_kernel *km, km_form f, long loop, uint32_t self, const char **seen, size_t n_seen,
                    int depth, kv_range *r);

/* The values the kernel stores in shared array name (every write's value). */
static bool kv_shared(const km_kernel *km, const char *name, const char **seen, size_t n_seen, int depth,
                      kv_range *r)
{
    for (size_t i = 0; i < n_seen; i++)
        if (!strcmp(seen[i], name))
            return true; /* a copy of its own elements adds no value */
    if (n_seen >= KV_DEPTH)
        return false;
    const char *inner[KV_DEPTH];
    for (size_t i = 0; i < n_seen; i++)
        inner[i] = seen[i];
    inner[n_seen] = name;
    size_t n = 0;
    const km_access *ac = km_accesses(km, &n);
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (!ac[i].buffer || strcmp(ac[i].buffer, name))
            continue;
        /* a read-modify-write whose value is the whole new value (op OTHER: `d[a] = c ?
         * d[b] : d[a]`), or the larger or smaller of the old one and its operand, keeps
         * to the values stored; a sum or an atomic does not */
        if (ac[i].space != KM_SPACE_SHARED || ac[i].atomic ||
            (ac[i].mode == KM_RMW && ac[i].op != KM_OP_OTHER && ac[i].op != KM_OP_MAX && ac[i].op != KM_OP_MIN))
            return false;
        if (ac[i].mode == KM_READ)
            continue;
        kv_range x = { .any = false };
        long loop = ac[i].n_loops ? (long)ac[i].loops[ac[i].n_loops - 1] : -1;
        if (!kv_form(km, ac[i].value, loop, UINT32_MAX, inner, n_seen + 1, depth + 1, &x) || !kv_join(km, r, &x))
            return false;
        any = true;
    }
    return any;
}

/* Whether form f is the variable of loop l or of a loop enclosing it (start + step *
 * counter, step positive) whose bound is made of sizes and compared with <: its bound. */
static bool kv_loop_var(const km_kernel *km, km_form f, long l, kv_range *r)
{
    size_t nl = 0;
    const km_loop *loops = km_loops(km, &nl);
    for (; l >= 0 && (size_t)l < nl; l = loops[l].parent) {
        const km_loop *x = &loops[l];
        if ((x->kind != KM_LOOP_AFFINE && x->kind != KM_LOOP_BLOCK_STRIDE) || !x->cmp || strcmp(x->cmp, "<") ||
            !x->bound.n || !kc_form_sized(km, x->bound) || !x->step.n || x->start.n + x->step.n > KC_TERMS)
            continue;
        kc_poly v = { .n = 0 };
        km_term one = { .coef = 1, .n = 0 }, ctr = { .coef = 1, .n = 1, .atoms = { x->counter } };
        bool ok = true, positive = true;
        for (uint32_t j = 0; j < x->start.n && ok; j++)
            ok = kc_add(&v, &one, &x->start.t[j], 1);
        for (uint32_t j = 0; j < x->step.n && ok; j++) {
            positive &= x->step.t[j].coef > 0;
            ok = kc_add(&v, &ctr, &x->step.t[j], 1);
        }
        if (!ok || !positive || v.n != f.n)
            continue;
        bool same = true;
        for (uint32_t j = 0; j < f.n && same; j++) {
            bool found = false;
            for (size_t q = 0; q < v.n && !found; q++)
                found = v.t[q].coef == f.t[j].coef && kc_same_atoms(&v.t[q], &f.t[j]);
            same = found;
        }
        if (same) {
            *r = (kv_range){ .bound = x->bound, .any = true };
            return true;
        }
    }
    return false;
}

/* The values form f can take (stored inside loop, -1 for none): a constant, a loop's
 * variable, c ? a : b, an accumulator (its start and what it takes in; self is the one
 * being followed), a read of a shared array. */
static bool kv_form(const km_kernel *km, km_form f, long loop, uint32_t self, const char **seen, size_t n_seen,
                    int depth, kv_range *r)
{
    if (depth > KV_DEPTH)
        return false;
    int64_t c = 0;
    if (!f.n || (f.n == 1 && f.t[0].n == 0)) {
        c = f.n ? f.t[0].coef : 0;
        if (c < 0)
            return false; /* a negative subscript: not a count's business, and no bound */
        *r = (kv_range){ .constant = c + 1, .constant_only = true, .any = true };
        return true;
    }
    size_t na = 0, nacc = 0;
    const km_atom *atoms = km_atoms(km, &na);
    const km_accumulator *accs = km_accumulators(km, &nacc);
    if (f.n == 1 && f.t[0].n == 1 && f.t[0].coef == 1 && f.t[0].atoms[0] < na) {
        uint32_t id = f.t[0].atoms[0];
        const km_atom *a = &atoms[id];
        if (id == self) {
            *r = (kv_range){ .any = false };
            return true;
        }
        if (a->kind == KM_ATOM_OPAQUE && a->op && !strcmp(a->op, "?:") && a->n_args == 3) {
            kv_range x = { .any = false }, y = { .any = false };
            *r = (kv_range){ .any = false };
            return kv_form(km, a->args[1], loop, self, seen, n_seen, depth + 1, &x) &&
                   kv_form(km, a->args[2], loop, self, seen, n_seen, depth + 1, &y) && kv_join(km, r, &x) &&
                   kv_join(km, r, &y);
        }
        if (a->kind == KM_ATOM_ACC && a->loop >= 0 && (size_t)a->loop < nacc) {
            const km_accumulator *acc = &accs[a->loop];
            kv_range x = { .any = false }, y = { .any = false };
            *r = (kv_range){ .any = false };
            return acc->n_updates == 1 && kv_form(km, acc->init, -1, id, seen, n_seen, depth + 1, &x) &&
                   kv_form(km, acc->operand, acc->loop, id, seen, n_seen, depth + 1, &y) && kv_join(km, r, &x) &&
                   kv_join(km, r, &y);
        }
        if (a->kind == KM_ATOM_READ && a->name) {
            size_t nlo = 0;
            const km_local *lo = km_locals(km, &nlo);
            for (size_t i = 0; i < nlo; i++)
                if (lo[i].kind == KM_LOCAL_ARRAY && lo[i].space == KM_SPACE_SHARED && !strcmp(lo[i].name, a->name)) {
                    *r = (kv_range){ .any = false };
                    return kv_shared(km, a->name, seen, n_seen, depth, r);
                }
            return false;
        }
    }
    return kv_loop_var(km, f, loop, r);
}

/* Whether byte i of t starts a statement that assigns the word at i: `name = ...`
 * (not ==), `name += ...`, `++name`, `name++`. *plain: a plain `=`, its value's text at
 * *value (up to the ';'). */
static bool kv_assignment(const char *t, size_t s, size_t e, size_t i, size_t nl, bool *plain, size_t *value)
{
    size_t b = i, j = i + nl;
    while (b > s && isspace((unsigned char)t[b - 1]))
        b--;
    while (j < e && isspace((unsigned char)t[j]))
        j++;
    *plain = false;
    if ((b > s + 1 && (t[b - 1] == '+' || t[b - 1] == '-') && t[b - 2] == t[b - 1]) ||
        (b > s && t[b - 1] == '&' && (b < s + 2 || t[b - 2] != '&')))
        return true; /* ++name, &name: changed some other way */
    if (j + 1 < e && (t[j] == '+' || t[j] == '-') && t[j + 1] == t[j])
        return true;
    if (j + 1 < e && strchr("+-*/%&|^", t[j]) && t[j + 1] == '=')
        return true;
    if (j + 2 < e && (t[j] == '<' || t[j] == '>') && t[j + 1] == t[j] && t[j + 2] == '=')
        return true;
    if (j + 1 < e && t[j] == '=' && t[j + 1] != '=') {
        *plain = true;
        *value = j + 1;
        return true;
    }
    return false;
}

/* When local name of the kernel's body [s, e) is set only to integer constants and to
 * elements of shared arrays (`int old = 0; ... old = dists_i[0];`), the values those
 * arrays hold bound it: into *r. */
static bool kv_local(const skel *k, size_t s, size_t e, const char *name, kv_range *r)
{
    const char *t = k->text;
    size_t nl = strlen(name);
    size_t nlo = 0;
    const km_local *lo = km_locals(k->km, &nlo);
    int sets = 0;
    *r = (kv_range){ .any = false };
    for (size_t i = s; i + nl <= e; i++) {
        bool plain = false;
        size_t v = 0;
        if (!sk_word_at(t, e, i, name, nl) || !kv_assignment(t, s, e, i, nl, &plain, &v))
            continue;
        if (!plain)
            return false;
        size_t end = kf_expr_end(t, v, e, ";,)");
        char value[128];
        if (end >= e || t[end] != ';' || !sk_bare(t + v, end - v, value, sizeof value))
            return false;
        char *stop = NULL;
        long long c = strtoll(value, &stop, 0);
        kv_range x = { .any = false };
        if (stop != value && !*stop && c >= 0) {
            x = (kv_range){ .constant = c + 1, .constant_only = true, .any = true };
        } else {
            char arr[64];
            int used = 0;
            if (sscanf(value, "%63[A-Za-z0-9_][%*[^]]]%n", arr, &used) != 1 || (size_t)used != strlen(value))
                return false;
            bool shared = false;
            for (size_t q = 0; q < nlo && !shared; q++)
                shared = lo[q].kind == KM_LOCAL_ARRAY && lo[q].space == KM_SPACE_SHARED && !strcmp(lo[q].name, arr);
            if (!shared || !kv_shared(k->km, arr, NULL, 0, 0, &x))
                return false;
        }
        if (!kv_join(k->km, r, &x))
            return false;
        sets++;
        i += nl;
    }
    return sets > 0 && r->any;
}

static bool kc_ranged_bound(skel *k, uint32_t id, const char *what, const kv_range *r, kc_bound *out);

/* A bound for the one local the model does not follow ("$var") in access a's subscript,
 * from the values it is set to (kv_local): into *out, whose lhs is that atom. */
static bool kc_local_bound(skel *k, const km_access *a, kc_bound *out)
{
    long fi = k->m ? an_model_find_kernel(k->m, km_name(k->km)) : -1;
    if (fi < 0)
        return false;
    const an_function *f = &k->m->funcs[fi];
    size_t bs = f->body_span.start_byte, be = f->body_span.end_byte <= k->len ? f->body_span.end_byte : k->len;
    size_t na = 0, nlo = 0;
    const km_atom *atoms = km_atoms(k->km, &na);
    const km_local *lo = km_locals(k->km, &nlo);
    km_form el = a->has_entry_element ? a->entry_element : a->element;
    for (size_t i = 0; i < nlo; i++) {
        if (lo[i].kind != KM_LOCAL_VAR || lo[i].form.n != 1 || lo[i].form.t[0].n != 1 ||
            lo[i].form.t[0].coef != 1)
            continue;
        uint32_t id = lo[i].form.t[0].atoms[0];
        if (id >= na || atoms[id].kind != KM_ATOM_VAR || !km_form_mentions(k->km, el, id))
            continue;
        kv_range r;
        if (!kv_local(k, bs, be, lo[i].name, &r) || r.constant_only)
            return false;
        return kc_ranged_bound(k, id, lo[i].name, &r, out);
    }
    /* or a shared array's element read in the subscript itself (`dataset[pick[0] * 3]`) */
    for (uint32_t t = 0; t < el.n; t++)
        for (uint32_t j = 0; j < el.t[t].n; j++) {
            uint32_t id = el.t[t].atoms[j];
            if (id >= na || atoms[id].kind != KM_ATOM_READ || !atoms[id].name)
                continue;
            bool shared = false;
            for (size_t q = 0; q < nlo && !shared; q++)
                shared = lo[q].kind == KM_LOCAL_ARRAY && lo[q].space == KM_SPACE_SHARED &&
                         !strcmp(lo[q].name, atoms[id].name);
            kv_range r = { .any = false };
            if (!shared || !kv_shared(k->km, atoms[id].name, NULL, 0, 0, &r) || !r.any || r.constant_only)
                return false;
            return kc_ranged_bound(k, id, atoms[id].text, &r, out);
        }
    return false;
}

/* *out: atom id (named what in notes) below r's bound. */
static bool kc_ranged_bound(skel *k, uint32_t id, const char *what, const kv_range *r, kc_bound *out)
{
    *out = (kc_bound){ .counter = { .coef = 1, .n = 1, .atoms = { id } }, .rhs = r->bound };
    out->lhs = (km_form){ .t = &out->counter, .n = 1 };
    struct hk_buf b;
    hk_buf_init(&b, SK_MAX_TEXT);
    char *tr = kc_print(k->km, r->bound.t, r->bound.n, &b) && b.data ? sk_translate(k, b.data, 0) : NULL;
    sk_note(k, HK_MSG_INF_STAYS_BELOW, what, tr ? tr : "?");
    hk_free(tr);
    hk_buf_free(&b);
    return true;
}

/* Count of buffer from the model: the largest element any global access of it can reach,
 * plus one, in spec terms (kernel parameters replaced by their launch values). A gather
 * whose read value is a digit below a size (kc_gather_bound) reaches that size minus one.
 * New string, or NULL when one access cannot be bounded or the kernel has no model. */
static char *kc_reach(skel *k, const char *buffer, bool writes_only)
{
    if (!k->km)
        return NULL;
    size_t n = 0;
    const km_access *acc = km_accesses(k->km, &n);
    char *res = NULL;
    kc_bound hits;
    bool have_hits = kc_hit_counter_bound(k, &hits);
    for (size_t i = 0; i < n; i++) {
        if (acc[i].space != KM_SPACE_GLOBAL || !acc[i].buffer || strcmp(acc[i].buffer, buffer))
            continue;
        if (writes_only && acc[i].mode == KM_READ)
            continue;
        if (acc[i].has_entry_element != (kc_moved_param(k->km, buffer) != 0)) {
            hk_free(res); /* an access of a moved parameter the model could not place */
            return NULL;
        }
        struct hk_buf b;
        hk_buf_init(&b, SK_MAX_TEXT);
        kc_limits lim = { .k = k, .extra = NULL };
        kc_bound gathered;
        if (have_hits && km_form_mentions(k->km, acc[i].index, hits.lhs.t[0].atoms[0]))
            lim.extra = &hits;
        else if (km_form_reads(k->km, acc[i].index, 4) && kc_gather_bound(k, &acc[i], &gathered))
            lim.extra = &gathered;
        else if (kc_local_bound(k, &acc[i], &gathered))
            lim.extra = &gathered;
        memcpy(lim.grid, k->grid_known, sizeof lim.grid);
        memcpy(lim.threads, k->threads_known, sizeof lim.threads);
        memcpy(lim.block, k->block_known, sizeof lim.block);
        char *tr = kc_access_extent(k->km, &acc[i], &lim, &b) && b.data ? sk_translate(k, b.data, 0) : NULL;
        hk_buf_free(&b);
        if (!tr || !kf_only_sizes(k, tr)) {
            hk_free(tr);
            hk_free(res);
            return NULL;
        }
        if (res && strcmp(res, tr) != 0) {
            char *m = hk_asprintf("max(%s, %s)", res, tr);
            hk_free(tr);
            tr = m;
        } else if (res) {
            hk_free(tr);
            continue;
        }
        hk_free(res);
        res = tr;
        if (!res || strlen(res) > SK_MAX_TEXT) {
            hk_free(res);
            return NULL;
        }
    }
    return res; /* NULL when no access names buffer */
}

char *kc_count(skel *k, const char *buffer)
{
    return kc_reach(k, buffer, false);
}

/* Like kc_count, over the writes (stores and read-modify-writes) of buffer alone: one past
 * the highest element any thread can write, an upper bound. New string or NULL. */
char *kc_write_reach(skel *k, const char *buffer)
{
    return kc_reach(k, buffer, true);
}

/* The exclusive bound (spec terms, sizes only) that the first guard `X < B` or `X <= B` of
 * the model compares, X accepted by is_index (given axis d); *line gets the guard's line.
 * New string or NULL. */
static char *kc_guard_bound(skel *k, bool (*is_index)(const km_kernel *, km_form, int), int d, int *line)
{
    if (!k->km)
        return NULL;
    size_t n = 0;
    const km_guard *g = km_guards(k->km, &n);
    for (size_t i = 0; i < n; i++) {
        bool le = !strcmp(g[i].op, "<=");
        if ((strcmp(g[i].op, "<") && !le) || !is_index(k->km, g[i].lhs, d) || !kc_form_sized(k->km, g[i].rhs))
            continue;
        struct hk_buf b;
        hk_buf_init(&b, SK_MAX_TEXT);
        bool ok = hk_buf_appends(&b, "(") == HK_OK && kc_print(k->km, g[i].rhs.t, g[i].rhs.n, &b) &&
                  hk_buf_appends(&b, le ? ") + 1" : ")") == HK_OK;
        char *tr = ok && b.data ? sk_translate(k, b.data, 0) : NULL;
        hk_buf_free(&b);
        if (tr && kf_only_sizes(k, tr)) {
            *line = (int)g[i].line;
            return tr;
        }
        hk_free(tr);
    }
    return NULL;
}

/* The exclusive bound (spec terms) of the global thread index along axis d that a guard of
 * the model compares, e.g. `if (idx < n)` with idx = blockIdx.x * blockDim.x + threadIdx.x
 * computed through temporaries; *line gets the guard's line. New string or NULL. */
char *kc_axis_bound(skel *k, int d, int *line)
{
    return kc_guard_bound(k, km_form_is_global_index, d, line);
}

/* Is f exactly blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x, the
 * global thread index of a 2-D grid laid out flat (Rodinia's nn splits its blocks over y
 * when they pass the x limit)? Its threads then number each index below blockDim.x *
 * gridDim.x * gridDim.y exactly once, whatever the grid's shape. */
static bool kc_form_is_flat_index(const km_kernel *km, km_form f)
{
    uint32_t bdx, gdx, bx, by, tx;
    if (!km_builtin_atom(km, KM_ATOM_BLOCK_DIM, 0, &bdx) || !km_builtin_atom(km, KM_ATOM_GRID_DIM, 0, &gdx) ||
        !km_builtin_atom(km, KM_ATOM_BLOCK_IDX, 0, &bx) || !km_builtin_atom(km, KM_ATOM_BLOCK_IDX, 1, &by) ||
        !km_builtin_atom(km, KM_ATOM_THREAD_IDX, 0, &tx) || f.n != 3)
        return false;
    const uint32_t want[3][3] = { { bdx, gdx, by }, { bdx, bx, 0 }, { tx, 0, 0 } };
    const uint32_t want_n[3] = { 3, 2, 1 };
    bool seen[3] = { false, false, false };
    for (uint32_t i = 0; i < 3; i++) {
        const km_term *t = &f.t[i];
        if (t->coef != 1)
            return false;
        for (int w = 0; w < 3; w++) {
            if (seen[w] || t->n != want_n[w])
                continue;
            bool all = true;
            for (uint32_t a = 0; a < want_n[w] && all; a++) {
                bool found = false;
                for (uint32_t b = 0; b < t->n; b++)
                    found |= t->atoms[b] == want[w][a];
                all = found;
            }
            if (all) {
                seen[w] = true;
                break;
            }
        }
    }
    return seen[0] && seen[1] && seen[2];
}

/* the flat index's form, for kc_guard_bound (the axis is not used) */
static bool kc_flat_index_at(const km_kernel *km, km_form f, int axis)
{
    (void)axis;
    return kc_form_is_flat_index(km, f);
}

char *kc_flat_bound(skel *k, int *line)
{
    return kc_guard_bound(k, kc_flat_index_at, 0, line);
}

uint32_t kc_grid_dim_write(const skel *k, const an_function *f, const char **buffer)
{
    size_t n = 0;
    const km_access *a = k->km ? km_accesses(k->km, &n) : NULL;
    if (kc_grid_steps(k))
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i].space != KM_SPACE_GLOBAL || a[i].mode == KM_READ || !a[i].buffer ||
            !km_form_mentions_kind(k->km, a[i].element, KM_ATOM_GRID_DIM, -1) ||
            kc_form_is_flat_index(k->km, a[i].element))
            continue;
        bool param = false;
        for (size_t p = 0; p < f->n_params && !param; p++)
            param = f->params[p].pointer_depth > 0 && !strcmp(f->params[p].name, a[i].buffer);
        if (!param)
            continue;
        *buffer = a[i].buffer;
        return a[i].line ? a[i].line : 1;
    }
    return 0;
}

/* The bound of the outermost grid-stride loops (for (i = tid; i < bound; i += stride)) in
 * spec terms, when made of size variables only: the elements the grid covers (mmcv's
 * CUDA_1D_KERNEL_LOOP(i, nthreads) gives nthreads; loops over n and n * m on two branches,
 * as in bbox_overlaps, give max(n, n * m), so neither runs on a grid sized for the other).
 * *line gets the first one's line. New string, or NULL when no such loop has a sized bound. */
char *kc_stride_bound(skel *k, int *line)
{
    if (!k->km)
        return NULL;
    size_t n = 0;
    const km_loop *l = km_loops(k->km, &n);
    char *res = NULL;
    for (size_t i = 0; i < n; i++) {
        /* along x: the axis a 1D grid, or the x of a grid whose y and z the bounds size */
        if (l[i].kind != KM_LOOP_GRID_STRIDE || l[i].parent != -1 ||
            !km_form_mentions_kind(k->km, l[i].start, KM_ATOM_THREAD_IDX, 0))
            continue;
        bool le = l[i].cmp && !strcmp(l[i].cmp, "<=");
        char *tr = NULL;
        if (l[i].cmp && (!strcmp(l[i].cmp, "<") || le) && kc_form_sized(k->km, l[i].bound)) {
            struct hk_buf b;
            hk_buf_init(&b, SK_MAX_TEXT);
            bool ok = hk_buf_appends(&b, "(") == HK_OK &&
                      kc_print(k->km, l[i].bound.t, l[i].bound.n, &b) &&
                      hk_buf_appends(&b, le ? ") + 1" : ")") == HK_OK;
            tr = ok && b.data ? sk_translate(k, b.data, 0) : NULL;
            hk_buf_free(&b);
        }
        if (!tr || !kf_only_sizes(k, tr)) {   /* covered by any grid: sized by the others */
            hk_free(tr);
            continue;
        }
        if (!res) {
            *line = (int)l[i].line;
            res = tr;
            continue;
        }
        if (strcmp(res, tr) != 0) {
            char *m = strlen(res) + strlen(tr) < SK_MAX_TEXT ? hk_asprintf("max(%s, %s)", res, tr)
                                                             : NULL;
            hk_free(res);
            res = m;
        }
        hk_free(tr);
        if (!res)
            return NULL;
    }
    return res;
}

/* A sized form's value with every scalar parameter set to a number drawn from its name and
 * seed (named constants at their values): two forms whose values keep one ratio at several
 * seeds are one a multiple of the other. False for a form with any other atom. */
static bool kc_eval_seeded(const km_kernel *km, const km_term *t, uint32_t n, unsigned seed, int64_t *v)
{
    size_t na = 0;
    const km_atom *atoms = km_atoms(km, &na);
    int64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t p = t[i].coef;
        for (uint32_t j = 0; j < t[i].n; j++) {
            const km_atom *a = t[i].atoms[j] < na ? &atoms[t[i].atoms[j]] : NULL;
            if (a && a->kind == KM_ATOM_CONST && a->has_value) {
                p *= a->value;
            } else if (a && a->kind == KM_ATOM_PARAM && a->name) {
                uint32_t h = 2166136261u ^ seed;
                for (const char *c = a->name; *c; c++)
                    h = (h ^ (unsigned char)*c) * 16777619u;
                p *= 3 + (int64_t)(h % 251);
            } else {
                return false;
            }
        }
        sum += p;
    }
    *v = sum;
    return true;
}

bool kc_grid_steps(const skel *k)
{
    size_t n = 0;
    const km_loop *l = k->km ? km_loops(k->km, &n) : NULL;
    for (size_t i = 0; i < n; i++)
        if (l[i].kind == KM_LOOP_GRID_STRIDE || km_form_mentions_kind(k->km, l[i].step, KM_ATOM_GRID_DIM, -1))
            return true;
    return !k->km;
}

/* Does the model list a grid-stride loop (gridDim in the text may be a last block's test)? */
bool kc_has_grid_stride(const skel *k)
{
    size_t n = 0;
    const km_loop *l = k->km ? km_loops(k->km, &n) : NULL;
    for (size_t i = 0; i < n; i++)
        if (l[i].kind == KM_LOOP_GRID_STRIDE)
            return true;
    return !k->km;
}

/* Does every write of the kernel that moves with threadIdx.y or blockIdx.y store row
 * (cy * blockIdx.y + threadIdx.y) of a matrix of row stride S, at column (cx * blockIdx.x)
 * + threadIdx.x, plus sized terms: S * (cy*by + ty) + cx*bx + tx + rest? Rodinia's srad
 * and backprop, cuda-samples' matrixMul write so. With such a write the rows a grid covers
 * are the grid's to choose (one size of the kernel's that it never reads) and the counts
 * follow it; the columns are S when the tiles go side by side. */
bool kc_row_tiles(skel *k, const an_function *f, kc_rows *r)
{
    *r = (kc_rows){ 0 };
    if (!k->km)
        return false;
    const km_kernel *km = k->km;
    size_t na = 0, nacc = 0;
    const km_atom *atoms = km_atoms(km, &na);
    const km_access *acc = km_accesses(km, &nacc);
    uint32_t tid[2] = { UINT32_MAX, UINT32_MAX }, bid[2] = { UINT32_MAX, UINT32_MAX };
    for (size_t i = 0; i < na; i++) {
        if (atoms[i].axis < 0 || atoms[i].axis > 1)
            continue;
        if (atoms[i].kind == KM_ATOM_THREAD_IDX)
            tid[atoms[i].axis] = (uint32_t)i;
        else if (atoms[i].kind == KM_ATOM_BLOCK_IDX)
            bid[atoms[i].axis] = (uint32_t)i;
    }
    if (tid[0] == UINT32_MAX || tid[1] == UINT32_MAX || bid[1] == UINT32_MAX)
        return false;
    bool any = false;
    for (size_t i = 0; i < nacc; i++) {
        const km_access *a = &acc[i];
        if (a->space != KM_SPACE_GLOBAL || a->mode == KM_READ ||
            (!km_form_mentions(km, a->index, tid[1]) && !km_form_mentions(km, a->index, bid[1])))
            continue;
        /* each term a size, or a size times one of the four ids */
        for (uint32_t j = 0; j < a->index.n; j++) {
            int ids = 0;
            for (uint32_t q = 0; q < a->index.t[j].n; q++) {
                uint32_t id = a->index.t[j].atoms[q];
                if (id == tid[0] || id == tid[1] || id == bid[0] || id == bid[1])
                    ids++;
                else if (!kc_size_atom(km, id))
                    return false;
            }
            if (ids > 1)
                return false;
        }
        km_term cty[16], cby[16], ctx[4], cbx[4];
        uint32_t nty = 0, nby = 0, ntx = 0, nbx = 0;
        if (!km_form_coefficient(km, a->index, tid[1], cty, 16, &nty) || !nty ||
            !km_form_coefficient(km, a->index, bid[1], cby, 16, &nby) || !nby ||
            !km_form_coefficient(km, a->index, tid[0], ctx, 4, &ntx) ||
            (bid[0] != UINT32_MAX && !km_form_coefficient(km, a->index, bid[0], cbx, 4, &nbx)))
            return false;
        int64_t one = 0, cx = 0, cy = 0;
        if (!km_form_value(km, (km_form){ .t = ctx, .n = ntx }, &one) || one != 1 ||
            (nbx && (!km_form_value(km, (km_form){ .t = cbx, .n = nbx }, &cx) || cx < 1 || cx > 1024)))
            return false;
        /* the coefficient of blockIdx.y is cy times the row stride, at every seed */
        for (unsigned seed = 1; seed <= 3; seed++) {
            int64_t s = 0, b = 0;
            if (!kc_eval_seeded(km, cty, nty, seed, &s) || !kc_eval_seeded(km, cby, nby, seed, &b) || s <= 0 ||
                b % s != 0 || (seed > 1 && b / s != cy))
                return false;
            cy = b / s;
        }
        if (cy < 1 || cy > 1024)
            return false;
        struct hk_buf b;
        hk_buf_init(&b, SK_MAX_TEXT);
        bool ok = hk_buf_appends(&b, "(") == HK_OK && kc_print(km, cty, nty, &b) && hk_buf_appends(&b, ")") == HK_OK;
        char *s = ok && b.data ? sk_translate(k, b.data, 0) : NULL;
        hk_buf_free(&b);
        bool same = s && kf_only_sizes(k, s) &&
                    (!any || (!strcmp(s, r->stride) && r->cy == cy && r->bx == (nbx > 0) && r->cx == cx));
        if (!same) {
            hk_free(s);
            hk_free(r->stride);
            r->stride = NULL;
            return false;
        }
        if (!any)
            *r = (kc_rows){ .cx = cx, .cy = cy, .bx = nbx > 0, .stride = s };
        else
            hk_free(s);
        size_t fe = f->body_span.end_byte <= k->len ? f->body_span.end_byte : k->len;
        r->store |= a->mode == KM_WRITE && a->buffer && sk_pointer_use(k->text, f->body_span.start_byte, fe, a->buffer) == 0;
        any = true;
    }
    return any;
}

/* Floating-point operations in a value form: a product of a atoms with a coefficient
 * other than 1 is a multiplications, n terms add n - 1 times, an opaque operation (a
 * call, a division) is one more besides its operands'. Reads count nothing (their index is
 * integer math). */
static long kc_ops(const km_kernel *km, km_form f, int depth)
{
    size_t na = 0;
    const km_atom *atoms = km_atoms(km, &na);
    long ops = f.n > 1 ? (long)f.n - 1 : 0;
    for (uint32_t i = 0; i < f.n; i++) {
        const km_term *t = &f.t[i];
        ops += t->n ? (long)t->n - 1 + (t->coef != 1 && t->coef != -1) : 0;
        for (uint32_t j = 0; j < t->n && depth < 8; j++) {
            const km_atom *a = &atoms[t->atoms[j]];
            if (a->kind != KM_ATOM_OPAQUE)
                continue;
            ops++;
            for (uint32_t q = 0; q < a->n_args; q++)
                ops += kc_ops(km, a->args[q], depth + 1);
        }
    }
    return ops;
}

/* flops of one launch from what the model recognises, in spec terms: a GEMM's 2*M*N*K, a
 * GEMV's 2*M*N (4*M*N with a second matrix), an elementwise kernel's operations per element times the output's
 * count (counts: the spec text of each parameter's count, by parameter index). New
 * string and a note, or NULL. */
char *kc_flops(skel *k, const an_function *f, char *const *counts, const bool *count_sure)
{
    km_class c;
    if (!k->km || km_classify(k->km, &c) != HK_OK)
        return NULL;
    char *res = NULL;
    if ((c.kind == KM_CLASS_GEMM || c.kind == KM_CLASS_GEMV) && !c.batched) {
        const km_cform *dims[3] = { &c.m, &c.n, &c.k };
        size_t nd = c.kind == KM_CLASS_GEMM ? 3 : 2;
        struct hk_buf b;
        hk_buf_init(&b, SK_MAX_TEXT);
        /* a GEMV with a second sum (gesummv) multiplies and adds twice per element */
        bool ok = hk_buf_appends(&b, c.kind == KM_CLASS_GEMV && c.n_in == 4 ? "4" : "2") == HK_OK;
        for (size_t i = 0; i < nd && ok; i++) {
            if (!dims[i]->known)
                ok = false;
            km_form v = km_cform_view(dims[i]);
            ok = ok && kc_form_sized(k->km, v) && hk_buf_appends(&b, " * (") == HK_OK &&
                 kc_print(k->km, v.t, v.n, &b) && hk_buf_appends(&b, ")") == HK_OK;
        }
        res = ok && b.data ? sk_translate(k, b.data, 0) : NULL;
        hk_buf_free(&b);
        if (res && kf_only_sizes(k, res))
            sk_note(k, HK_MSG_INF_FLOPS_FMA,
                    km_class_name(c.kind), res);
    } else if (c.kind == KM_CLASS_ELEMENTWISE && c.streams_written == 1 && c.out) {
        const km_access *w = km_output_map(k->km, c.out);
        long ops = w ? kc_ops(k->km, w->element_value, 0) : 0;
        /* y[i] = a * x[i] + y[i] is an update: the combining add is one more */
        if (w && w->mode == KM_RMW && w->op != KM_OP_OTHER && w->op != KM_OP_NONE && w->op != KM_OP_EXCHANGE)
            ops++;
        for (size_t i = 0; ops > 0 && i < f->n_params && i < HK_MAX_ARGS; i++)
            if (!strcmp(f->params[i].name, c.out) && counts[i] && count_sure[i]) {
                res = hk_asprintf("%ld * (%s)", ops, counts[i]);
                if (res)
                    sk_note(k, HK_MSG_INF_FLOPS_ELEM, ops, c.out);
            }
    }
    if (res && !kf_only_sizes(k, res)) {
        hk_free(res);
        res = NULL;
    }
    return res;
}

/* Whether t[a] (an opening parenthesis) opens the argument list of an element intrinsic:
 * atomicXxx, __ldg and the cache-hinted loads and stores (loads_only: the loads). Their
 * pointer argument is one element (atomicAdd(&out[i], v)), not a new base. */
static bool sk_intrinsic_call(const char *t, size_t s, size_t a, bool loads_only)
{
    size_t w = a;
    while (w > s && isspace((unsigned char)t[w - 1]))
        w--;
    size_t b = w;
    while (b > s && (isalnum((unsigned char)t[b - 1]) || t[b - 1] == '_'))
        b--;
    static const char *const calls[] = { "__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv",
                                         "__stwb", "__stcg", "__stcs", "__stwt" };
    if (!loads_only && w - b > 6 && !strncmp(t + b, "atomic", 6))
        return true;
    for (size_t i = 0; i < (loads_only ? 6 : HK_ARRAY_LEN(calls)); i++)
        if (strlen(calls[i]) == w - b && !strncmp(t + b, calls[i], w - b))
            return true;
    return false;
}

/* The '(' whose argument list holds byte at, at depth 0 of it, or (size_t)-1 when at is not
 * inside one before the statement's start. */
static size_t sk_enclosing_paren(const char *t, size_t s, size_t at)
{
    int depth = 0;
    for (size_t i = at; i > s; i--) {
        char c = t[i - 1];
        if (c == ')' || c == ']')
            depth++;
        else if (c == '[')
            depth--;
        else if (c == '(') {
            if (depth == 0)
                return i - 1;
            depth--;
        } else if (depth == 0 && (c == ';' || c == '{' || c == '}'))
            break;
    }
    return (size_t)-1;
}

static bool sk_element_call(const char *t, size_t s, size_t a)
{
    return sk_intrinsic_call(t, s, a, false);
}

/* The next use of the word name in t[s, e) at or after *i that is not a member (.name,
 * ->name) nor, with not_deref, *name: true with *i its byte, *j the first byte after it and
 * its spaces, *b the first of the spaces before it. The one scan of the pointer checks
 * below (written, moved, derived). */
static bool sk_next_use(const char *t, size_t s, size_t e, const char *name, bool not_deref, size_t *i,
                        size_t *j, size_t *b)
{
    size_t wl = strlen(name);
    for (; *name && *i + wl <= e; (*i)++) {
        size_t at = *i;
        if (!sk_word_at(t, e, at, name, wl) ||
            (at > s && (t[at - 1] == '.' || t[at - 1] == '>' || (not_deref && t[at - 1] == '*'))) ||
            sk_in_comment(t, s, e, at))
            continue;
        *j = at + wl;
        while (*j < e && isspace((unsigned char)t[*j]))
            (*j)++;
        *b = at;
        while (*b > s && isspace((unsigned char)t[*b - 1]))
            (*b)--;
        return true;
    }
    return false;
}

/* The use of a pointer at byte at, with j the first byte after its name: the declaration
 * of a local pointer (T *name = ...), not a store through it. */
static bool sk_pointer_declared_at(const char *t, size_t s, size_t at)
{
    size_t b = at;
    while (b > s && isspace((unsigned char)t[b - 1]))
        b--;
    if (b <= s || t[b - 1] != '*')
        return false;
    b--;
    while (b > s && isspace((unsigned char)t[b - 1]))
        b--;
    size_t we = b;
    while (b > s && (isalnum((unsigned char)t[b - 1]) || t[b - 1] == '_'))
        b--;
    if (b < we && sk_in_comment(t, s, at, b))
        return false; /* a comment's last word, on the line above `*name = v` */
    static const char *const keywords[] = { "return", "else", "do" };
    for (size_t k = 0; k < HK_ARRAY_LEN(keywords); k++)
        if (we - b == strlen(keywords[k]) && !memcmp(t + b, keywords[k], we - b))
            return false;
    return b < we;
}

/* ---- pointer roles: the uses through the pointers made from a parameter ---- */

/* Locals and helpers followed within one another, at most. */
#define SK_ROLE_DEPTH 6

/* What the uses through other pointers add to sk_pointer_use's and the stores' answer. */
typedef struct {
    bool read, written, atomic;
} sk_uses;

typedef struct {
    const skel *k;
    const char *t;
    int depth;                       /* locals and helpers being followed */
    const char *names[SK_ROLE_DEPTH + 1]; /* the pointers being followed: a cycle adds nothing */
    long calls[SK_ROLE_DEPTH];       /* the helpers being walked: a recursion adds nothing */
    struct {                         /* and where each was called: what it returns is the call's */
        size_t s, e, a, z;           /* the caller's body, the call's text */
        const char *name;
        bool macro;                  /* a function-like macro's: its text is its value */
    } sites[SK_ROLE_DEPTH];
    int n_calls;
    sk_role *r;
} sk_role_walk;

static bool sk_pointer_written_at(sk_role_walk *w, size_t s, size_t e, const char *name, sk_uses *u);
static void sk_role_of(sk_role_walk *w, size_t s, size_t e, const char *name, sk_uses *u);

/* The last byte before at that is no blank and in no comment, at or after s; (size_t)-1
 * when none. */
static size_t rw_prev(const char *t, size_t s, size_t at)
{
    for (;;) {
        while (at > s && (isspace((unsigned char)t[at - 1]) || (t[at - 1] == '\\' && t[at] == '\n')))
            at--;
        if (at <= s)
            return (size_t)-1;
        size_t p = at - 1;
        if (t[p] == '/' && p > s && t[p - 1] == '*') { /* the end of a block comment */
            size_t o = p - 1;
            while (o > s && !(t[o - 1] == '/' && t[o] == '*'))
                o--;
            if (o == s)
                return p;
            at = o - 1;
            continue;
        }
        /* a line comment: "//" earlier on the line (outside a string) */
        size_t ls = p, slash = (size_t)-1;
        while (ls > s && t[ls - 1] != '\n')
            ls--;
        bool quoted = false;
        for (size_t i = ls; i < p; i++) {
            if (t[i] == '"' && (i == ls || t[i - 1] != '\\'))
                quoted = !quoted;
            else if (!quoted && t[i] == '/' && t[i + 1] == '/') {
                slash = i;
                break;
            }
        }
        if (slash == (size_t)-1)
            return p;
        at = slash;
    }
}

/* The first byte at or after at that is no blank and in no comment; e when none. */
static size_t rw_next(const char *t, size_t at, size_t e)
{
    for (;;) {
        while (at < e && (isspace((unsigned char)t[at]) || (t[at] == '\\' && at + 1 < e && t[at + 1] == '\n')))
            at++;
        size_t past = at < e ? sk_skip_lexeme(t, e, at) : at;
        if (past == at || t[at] == '"' || t[at] == '\'')
            return at;
        at = past; /* a comment */
    }
}

static bool rw_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The word ending at byte i (inclusive) is w. */
static bool rw_word_before(const char *t, size_t s, size_t i, const char *w)
{
    size_t n = strlen(w);
    return i + 1 >= s + n && !memcmp(t + i + 1 - n, w, n) && (i + 1 == s + n || !rw_ident_char(t[i - n]));
}

/* Whether t[i] ends an operand (a name, a literal, a closing bracket), so that an operator
 * after it is binary: `a & b`, not `&b`. */
static bool rw_operand_end(const char *t, size_t s, size_t i)
{
    if (i == (size_t)-1)
        return false;
    if (t[i] == ')' || t[i] == ']')
        return true;
    if (!rw_ident_char(t[i]))
        return false;
    return !rw_word_before(t, s, i, "return") && !rw_word_before(t, s, i, "case");
}

/* The opening bracket matching the closing one at c, scanning back to s; (size_t)-1 when
 * none. */
static size_t rw_open_of(const char *t, size_t s, size_t c)
{
    int depth = 0;
    for (size_t i = c + 1; i > s; i--) {
        char x = t[i - 1];
        if (x == ')' || x == ']' || x == '}')
            depth++;
        else if (x == '(' || x == '[' || x == '{') {
            if (--depth == 0)
                return i - 1;
        }
    }
    return (size_t)-1;
}

/* The name called by the '(' at c (template arguments skipped, the last part of a
 * qualified name): [*ns, *ne); false when no name stands there. */
static bool rw_callee(const char *t, size_t s, size_t c, size_t *ns, size_t *ne)
{
    size_t p = rw_prev(t, s, c);
    if (p != (size_t)-1 && t[p] == '>') {
        int depth = 0;
        for (;; p--) {
            depth += t[p] == '>';
            depth -= t[p] == '<';
            if (depth == 0 || p == s)
                break;
        }
        if (depth != 0)
            return false;
        p = rw_prev(t, s, p);
    }
    if (p == (size_t)-1 || !rw_ident_char(t[p]))
        return false;
    *ne = p + 1;
    while (p > s && rw_ident_char(t[p - 1]))
        p--;
    *ns = p;
    return !isdigit((unsigned char)t[p]);
}

/* Whether the '(' at c opens a call's arguments (a name or template before it), not
 * parentheses of an expression nor a statement's (if, while, for, switch, return, sizeof). */
static bool rw_is_call(const char *t, size_t s, size_t c)
{
    size_t ns, ne;
    if (!rw_callee(t, s, c, &ns, &ne))
        return false;
    static const char *const kw[] = { "if", "while", "for", "switch", "return", "sizeof", "do", "else" };
    for (size_t i = 0; i < HK_ARRAY_LEN(kw); i++)
        if (ne - ns == strlen(kw[i]) && !memcmp(t + ns, kw[i], ne - ns))
            return false;
    return true;
}

/* Whether the callee at [ns, ne) is the keyword w. */
static bool rw_named(const char *t, size_t ns, size_t ne, const char *w)
{
    return ne - ns == strlen(w) && !memcmp(t + ns, w, ne - ns);
}

/* Whether t[a, b) is a pointer type: names, qualifiers and template arguments ending in '*'
 * (the inside of a C cast `(float4 *)`). */
static bool rw_pointer_type(const char *t, size_t a, size_t b)
{
    bool named = false;
    size_t last = (size_t)-1;
    for (size_t i = a; i < b; i++) {
        char c = t[i];
        if (isspace((unsigned char)c))
            continue;
        if (!(rw_ident_char(c) || strchr("*:<>,&", c)))
            return false;
        named |= isalpha((unsigned char)c) || c == '_';
        last = i;
    }
    return named && last != (size_t)-1 && t[last] == '*';
}

/* Whether t[a, b) is a type without '*': names and qualifiers (`size_t`, `unsigned long`). */
static bool rw_type_name(const char *t, size_t a, size_t b)
{
    static const char *const types[] = { "size_t", "uintptr_t", "intptr_t", "ptrdiff_t", "long", "int",
                                         "unsigned", "uint64_t", "int64_t", "void", "bool" };
    size_t x = rw_next(t, a, b), y = b;
    while (y > x && isspace((unsigned char)t[y - 1]))
        y--;
    if (x == y)
        return false;
    for (size_t i = x; i < y; i++)
        if (!rw_ident_char(t[i]) && !isspace((unsigned char)t[i]) && t[i] != ':')
            return false;
    size_t ls = y;
    while (ls > x && rw_ident_char(t[ls - 1]))
        ls--;
    for (size_t i = 0; i < HK_ARRAY_LEN(types); i++)
        if (rw_named(t, ls, y, types[i]))
            return true;
    return false;
}

/* The end of the term that starts at i (an offset added to a pointer): the first byte at
 * depth 0 of a binary + or -, a comparison, an assignment, ?, :, &&, ||, &, |, ^, a comma,
 * a ';' or a closing bracket that opened before i. */
static size_t rw_term_end(const char *t, size_t i, size_t e)
{
    i = rw_next(t, i, e);
    while (i < e && (t[i] == '+' || t[i] == '-' || isspace((unsigned char)t[i])))
        i++; /* unary signs */
    int depth = 0;
    for (; i < e; i++) {
        char c = t[i];
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (depth-- == 0)
                return i;
        } else if (depth == 0) {
            if (c == '-' && i + 1 < e && t[i + 1] == '>') {
                i++;
                continue;
            }
            if (strchr("+-,;?:=<>&|^!", c))
                return i;
        }
    }
    return e;
}

/* The start of the term that ends before the binary operator at op: `off` in `off + p`. */
static size_t rw_term_start(const char *t, size_t s, size_t op)
{
    size_t i = op;
    for (;;) {
        size_t p = rw_prev(t, s, i);
        if (p == (size_t)-1)
            break;
        char c = t[p];
        if (c == ')' || c == ']') {
            size_t o = rw_open_of(t, s, p);
            if (o == (size_t)-1)
                break;
            i = o;
        } else if (rw_ident_char(c) || c == '.' || c == '*' || c == '/' || c == '%') {
            i = p;
        } else if (c == '>' && p > s && t[p - 1] == '-') {
            i = p - 1;
        } else if (c == ':' && p > s && t[p - 1] == ':') {
            i = p - 1;
        } else {
            break;
        }
    }
    return i;
}

/* Whether the ':' at c is a conditional's (a '?' before it at depth 0 in the statement). */
static bool rw_ternary_colon(const char *t, size_t s, size_t c)
{
    if ((c > s && t[c - 1] == ':') || t[c + 1] == ':')
        return false;
    int depth = 0;
    for (size_t i = c; i > s; i--) {
        char x = t[i - 1];
        if (x == ')' || x == ']')
            depth++;
        else if (x == '(' || x == '[') {
            if (depth-- == 0)
                return false;
        } else if (depth == 0 && (x == ';' || x == '{' || x == '}' || x == ','))
            return false;
        else if (depth == 0 && x == '?')
            return true;
    }
    return false;
}

/* The whole conditional expression around the '?' or ':' at op: [*a, *z). */
static void rw_conditional(const char *t, size_t s, size_t e, size_t op, size_t *a, size_t *z)
{
    int depth = 0;
    size_t i = op;
    for (; i > s; i--) {
        char x = t[i - 1];
        if (x == ')' || x == ']')
            depth++;
        else if (x == '(' || x == '[') {
            if (depth-- == 0)
                break;
        } else if (depth == 0 && (x == ';' || x == '{' || x == '}' || x == ',' ||
                                  (x == '=' && !(i >= s + 2 && strchr("=!<>", t[i - 2])) && t[i] != '=')))
            break;
        else if (depth == 0 && rw_word_before(t, s, i - 1, "return"))
            break;
    }
    *a = rw_next(t, i, op);
    *z = kf_expr_end(t, op + 1, e, ",;");
    while (*z > op && isspace((unsigned char)t[*z - 1]))
        (*z)--;
}

/* The local that `T *q = ...`, `auto q = ...` or `q = ...` sets, the '=' at eq: its name
 * into out (cap bytes), *decl whether it is declared there. False when what is set is no
 * plain name (a member, an element, a dereference). */
static bool rw_assigned_local(const char *t, size_t s, size_t eq, char *out, size_t cap, bool *decl)
{
    size_t ne = rw_prev(t, s, eq);
    if (ne == (size_t)-1 || !rw_ident_char(t[ne]))
        return false;
    size_t ns = ne;
    while (ns > s && rw_ident_char(t[ns - 1]))
        ns--;
    if (ne + 1 - ns >= cap || isdigit((unsigned char)t[ns]))
        return false;
    memcpy(out, t + ns, ne + 1 - ns);
    out[ne + 1 - ns] = '\0';
    /* back over the declarator's qualifiers: T *__restrict__ q */
    size_t p = rw_prev(t, s, ns);
    static const char *const quals[] = { "__restrict__", "__restrict", "restrict", "const", "volatile" };
    for (bool again = true; again && p != (size_t)-1;) {
        again = false;
        for (size_t i = 0; i < HK_ARRAY_LEN(quals); i++)
            if (rw_word_before(t, s, p, quals[i]) && p + 1 - strlen(quals[i]) > s) {
                p = rw_prev(t, s, p + 1 - strlen(quals[i]));
                again = true;
                break;
            }
    }
    *decl = p != (size_t)-1 && (t[p] == '*' || rw_word_before(t, s, p, "auto"));
    if (*decl)
        return true;
    return p == (size_t)-1 || t[p] == ';' || t[p] == '{' || t[p] == '}' || t[p] == ')' || t[p] == '(' ||
           t[p] == ',' || rw_word_before(t, s, p, "else") || rw_word_before(t, s, p, "do");
}

/* A use that cannot be followed: counted as a read and a write, the first one kept. */
static void rw_lost(sk_role_walk *w, size_t at, const char *t, size_t cs, size_t ce, sk_uses *u)
{
    u->read = u->written = true;
    if (w->r->lost_at)
        return;
    w->r->lost_at = at;
    size_t n = ce - cs < sizeof w->r->call ? ce - cs : sizeof w->r->call - 1;
    memcpy(w->r->call, t + cs, n);
    w->r->call[n] = '\0';
}

/* The role of helper parameter p (of the file's function fi, an element of the followed
 * pointer passed by reference when elem) in its body, into u. */
static void rw_helper(sk_role_walk *w, long fi, const an_param *p, bool elem, size_t at, sk_uses *u);

static void rw_follow(sk_role_walk *w, size_t s, size_t e, size_t a, size_t z, bool elem, const char *name,
                      sk_uses *u);

/* Walks the body [bs, be) of a helper or macro (id: the function's index, or -1 less the
 * byte of the macro's text) for its parameter pname, the followed pointer or (elem) an
 * element of it, into u. */
static void rw_walk(sk_role_walk *w, long id, size_t bs, size_t be, const char *pname, bool elem, size_t at,
                    sk_uses *u);

/* The function-like macro NAME (t[ns, ne)) #defined in t (len bytes): its text [*bs, *be)
 * and the name of its parameter arg into pn (cap bytes). 1 when found; 0 when no such
 * macro; -1 when it cannot be followed there (no parameter arg, ... or # on it). */
static int rw_macro(const char *t, size_t len, size_t ns, size_t ne, size_t arg, size_t *bs, size_t *be,
                    char *pn, size_t cap)
{
    size_t n = ne - ns;
    for (const char *d = t; (d = memmem(d, len - (size_t)(d - t), "#define", 7)) != NULL; d += 7) {
        size_t i = (size_t)(d - t) + 7;
        while (i < len && (t[i] == ' ' || t[i] == '\t'))
            i++;
        if (i + n >= len || memcmp(t + i, t + ns, n) || t[i + n] != '(')
            continue;
        /* the parameters */
        size_t p = i + n + 1, k = 0;
        bool got = false;
        while (p < len && t[p] != ')' && t[p] != '\n') {
            while (p < len && (t[p] == ' ' || t[p] == '\t' || t[p] == ','))
                p++;
            if (p < len && t[p] == ')')
                break;
            size_t q = p;
            while (q < len && rw_ident_char(t[q]))
                q++;
            if (q == p)
                return -1; /* ... or something else */
            if (k++ == arg) {
                if (q - p >= cap)
                    return -1;
                memcpy(pn, t + p, q - p);
                pn[q - p] = '\0';
                got = true;
            }
            p = q;
        }
        if (p >= len || t[p] != ')' || !got)
            return -1;
        *bs = p + 1;
        size_t end = *bs;
        while (end < len && !(t[end] == '\n' && t[end - 1] != '\\'))
            end++;
        *be = end;
        if (memchr(t + *bs, '#', end - *bs))
            return -1; /* # or ## */
        /* defined again (#ifdef branches, #undef): which one the build sees is not known */
        for (const char *d2 = t + end; (d2 = memmem(d2, len - (size_t)(d2 - t), "#define", 7)) != NULL; d2 += 7) {
            size_t j = (size_t)(d2 - t) + 7;
            while (j < len && (t[j] == ' ' || t[j] == '\t'))
                j++;
            if (j + n <= len && !memcmp(t + j, t + ns, n) && (j + n == len || !rw_ident_char(t[j + n])))
                return -1;
        }
        return 1;
    }
    return 0;
}

/* Whether the function t[ns, ne), not in the file, takes an element by value: CUDA's
 * intrinsics (__name), the math library in both precisions, min/max, conversions and
 * constructors of values. Any other (swap, cuda::atomic_ref's constructor, a header's
 * function taking T &) may store into it. */
static bool rw_by_value(const char *t, size_t ns, size_t ne)
{
    static const char *const names[] = {
        "min", "max", "abs", "fabs", "fabsf", "fmin", "fminf", "fmax", "fmaxf", "sqrt", "sqrtf", "rsqrt",
        "rsqrtf", "cbrt", "cbrtf", "exp", "expf", "exp2", "exp2f", "exp10", "exp10f", "expm1", "expm1f",
        "log", "logf", "log2", "log2f", "log10", "log10f", "log1p", "log1pf", "pow", "powf", "sin", "sinf",
        "cos", "cosf", "tan", "tanf", "asin", "asinf", "acos", "acosf", "atan", "atanf", "atan2", "atan2f",
        "sinh", "sinhf", "cosh", "coshf", "tanh", "tanhf", "asinh", "asinhf", "acosh", "acoshf", "atanh",
        "atanhf", "erf", "erff", "erfc", "erfcf", "erfinv", "erfinvf", "lgamma", "lgammaf", "tgamma",
        "tgammaf", "floor", "floorf", "ceil", "ceilf", "round", "roundf", "rint", "rintf", "trunc", "truncf",
        "lround", "lroundf", "llround", "llroundf", "lrint", "lrintf", "nearbyint", "nearbyintf", "fmod",
        "fmodf", "remainder", "remainderf", "fma", "fmaf", "hypot", "hypotf", "copysign", "copysignf",
        "isnan", "isinf", "isfinite", "signbit", "normcdf", "normcdff", "sinpi", "sinpif", "cospi", "cospif",
        "fdividef", "saturate", "float", "double", "int", "unsigned", "long", "short", "char", "bool",
        "size_t", "int64_t", "uint64_t", "int32_t", "uint32_t", "static_cast", "assert",
        "make_float2", "make_float3", "make_float4", "make_int2", "make_int3", "make_int4", "make_double2",
        "make_uint2", "make_uint4", "make_short2", "make_uchar4", "make_char4",
    };
    if (ne - ns > 2 && t[ns] == '_' && t[ns + 1] == '_')
        return true;
    for (size_t i = 0; i < HK_ARRAY_LEN(names); i++)
        if (rw_named(t, ns, ne, names[i]))
            return true;
    return false;
}

/* Name or element passed as argument arg of the call whose '(' is at c: what the callee
 * does with it, into u. */
static void rw_call_arg(sk_role_walk *w, size_t s, size_t e, size_t c, size_t at, bool elem, const char *name,
                        sk_uses *u)
{
    const char *t = w->t;
    size_t ns, ne;
    if (!rw_callee(t, s, c, &ns, &ne)) {
        rw_lost(w, at, t, 0, 0, u);
        return;
    }
    size_t arg = 0;
    int depth = 0;
    for (size_t i = c + 1; i < at; i++) {
        if (t[i] == '(' || t[i] == '[' || t[i] == '{')
            depth++;
        else if (t[i] == ')' || t[i] == ']' || t[i] == '}')
            depth--;
        else if (t[i] == ',' && depth == 0)
            arg++;
    }
    if (rw_named(t, ns, ne, "if") || rw_named(t, ns, ne, "while") || rw_named(t, ns, ne, "switch") ||
        rw_named(t, ns, ne, "sizeof") || rw_named(t, ns, ne, "printf")) {
        u->read |= elem; /* a pointer tested, measured or printed touches no element */
        return;
    }
    /* the element intrinsics: atomics store (their first argument), loads read, the
     * cache-hinted stores and memcpy/memset store (memcpy's second argument is read) */
    if (ne - ns > 6 && !memcmp(t + ns, "atomic", 6)) {
        if (elem) {
            u->read = true;
        } else if (arg == 0) {
            u->atomic = u->written = true;
        } else {
            rw_lost(w, at, t, ns, ne, u);
        }
        return;
    }
    static const char *const loads[] = { "__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv" };
    static const char *const stores[] = { "__stwb", "__stcg", "__stcs", "__stwt", "memset", "memcpy",
                                          "__builtin_memcpy", "__builtin_memset", "__pipeline_memcpy_async",
                                          "memcpy_async" };
    for (size_t i = 0; i < HK_ARRAY_LEN(loads); i++)
        if (rw_named(t, ns, ne, loads[i])) {
            u->read = true;
            return;
        }
    for (size_t i = 0; i < HK_ARRAY_LEN(stores); i++)
        if (rw_named(t, ns, ne, stores[i])) {
            if (elem || arg > 0)
                u->read = true;
            else
                u->written = true;
            return;
        }
    /* a __device__ function of the file, every overload that takes that many arguments */
    bool found = false;
    const an_model *m = w->k->m;
    for (size_t fi = 0; m && fi < m->n_funcs; fi++) {
        const an_function *f = &m->funcs[fi];
        const char *fname = strrchr(f->name, ':') ? strrchr(f->name, ':') + 1 : f->name;
        if (f->kind != AN_DEVICE_FUNC || f->body_span.end_byte <= f->body_span.start_byte ||
            f->body_span.end_byte > w->k->len || arg >= f->n_params || !rw_named(t, ns, ne, fname))
            continue;
        found = true;
        if (w->n_calls < SK_ROLE_DEPTH) {
            w->sites[w->n_calls].s = s;
            w->sites[w->n_calls].e = e;
            w->sites[w->n_calls].a = ns;
            w->sites[w->n_calls].z = kf_expr_end(t, c + 1, e, "") + 1;
            w->sites[w->n_calls].name = name;
            w->sites[w->n_calls].macro = false;
        }
        rw_helper(w, (long)fi, &f->params[arg], elem, at, u);
    }
    if (found)
        return;
    /* a function-like macro of the file: its parameter in its text */
    size_t mb = 0, me = 0;
    char pn[64];
    int mr = rw_macro(t, w->k->len, ns, ne, arg, &mb, &me, pn, sizeof pn);
    if (mr > 0 && w->n_calls < SK_ROLE_DEPTH) {
        w->sites[w->n_calls].s = s;
        w->sites[w->n_calls].e = e;
        w->sites[w->n_calls].a = ns;
        w->sites[w->n_calls].z = kf_expr_end(t, c + 1, e, "") + 1;
        w->sites[w->n_calls].name = name;
        w->sites[w->n_calls].macro = true;
        rw_walk(w, -1 - (long)mb, mb, me, pn, elem, at, u);
        return;
    }
    if (mr < 0) {
        rw_lost(w, at, t, ns, ne, u);
        return;
    }
    if (elem && rw_by_value(t, ns, ne))
        u->read = true; /* an element passed to a function known to take it by value */
    else
        rw_lost(w, at, t, ns, ne, u); /* swap(y[i], t), atomic_ref r(y[i]): may store */
}

/* Follows the expression t[a, z) of the body [s, e) outward to what uses it: a pointer made
 * from the one followed (name), or with elem one element it points at. What that use does
 * goes into u. */
static void rw_follow(sk_role_walk *w, size_t s, size_t e, size_t a, size_t z, bool elem, const char *name,
                      sk_uses *u)
{
    const char *t = w->t;
    size_t at = a;
    for (int steps = 0; steps < 64; steps++) {
        size_t pa = rw_prev(t, s, a), nz = rw_next(t, z, e);
        char P = pa != (size_t)-1 ? t[pa] : 0, N = nz < e ? t[nz] : 0, N1 = nz + 1 < e ? t[nz + 1] : 0;
        bool unary_before = pa != (size_t)-1 && !rw_operand_end(t, s, rw_prev(t, s, pa));
        if (pa == (size_t)-1 && nz >= e && w->n_calls > 0 && w->sites[w->n_calls - 1].macro) {
            /* the whole of a macro's text: its value, used where the macro is */
            int top = --w->n_calls;
            long id = w->calls[top];
            rw_follow(w, w->sites[top].s, w->sites[top].e, w->sites[top].a, w->sites[top].z, elem,
                      w->sites[top].name, u);
            w->calls[w->n_calls++] = id;
            return;
        }
        if (elem) {
            if (P == '&' && unary_before && !(pa > s && t[pa - 1] == '&')) {
                a = pa;
                elem = false; /* &element: a pointer again */
                continue;
            }
            if (N == '.' && nz + 1 < e && (isalpha((unsigned char)N1) || N1 == '_')) {
                for (z = nz + 1; z < e && rw_ident_char(t[z]); z++)
                    ;
                continue;
            }
            if (N == '[') {
                z = kf_expr_end(t, nz + 1, e, "") + 1;
                continue;
            }
            if (P == '(' && N == ')' && !rw_is_call(t, s, pa)) {
                a = pa;
                z = nz + 1;
                continue;
            }
            /* stored, updated, or read */
            bool pre = pa != (size_t)-1 && pa > s && (P == '+' || P == '-') && t[pa - 1] == P;
            if ((N == '=' && N1 != '=') || pre || ((N == '+' || N == '-') && N1 == N)) {
                u->written = true;
                u->read |= N != '=';
                return;
            }
            if ((strchr("+-*/%&|^", N) && N && N1 == '=') ||
                ((N == '<' || N == '>') && N1 == N && nz + 2 < e && t[nz + 2] == '=')) {
                u->read = u->written = true;
                return;
            }
            if ((P == '(' || P == ',') && (N == ')' || N == ',')) {
                size_t c = sk_enclosing_paren(t, s, a);
                if (c != (size_t)-1 && rw_is_call(t, s, c)) {
                    rw_call_arg(w, s, e, c, at, true, name, u);
                    return;
                }
            }
            if (P == '=' && !(pa > s && strchr("=!<>", t[pa - 1])) && (N == ';' || N == ',')) {
                /* T &r = element: r is the element (any other local is a copy: a read) */
                size_t re = rw_prev(t, s, pa), rs = re;
                while (rs != (size_t)-1 && rs > s && rw_ident_char(t[rs - 1]))
                    rs--;
                size_t amp = rs != (size_t)-1 && rw_ident_char(t[re]) ? rw_prev(t, s, rs) : (size_t)-1;
                if (amp != (size_t)-1 && t[amp] == '&' && rw_operand_end(t, s, rw_prev(t, s, amp)) &&
                    re + 1 - rs < 64) {
                    char ref[64];
                    memcpy(ref, t + rs, re + 1 - rs);
                    ref[re + 1 - rs] = '\0';
                    if (w->depth >= SK_ROLE_DEPTH) {
                        rw_lost(w, at, t, 0, 0, u);
                        return;
                    }
                    w->names[++w->depth] = NULL;
                    for (size_t i = nz, j, b; sk_next_use(t, s, e, ref, false, &i, &j, &b); i++)
                        rw_follow(w, s, e, i, i + strlen(ref), true, ref, u);
                    w->depth--;
                    return;
                }
            }
            u->read = true;
            return;
        }
        /* a pointer: what makes another one from it */
        if (N == '[') {
            z = kf_expr_end(t, nz + 1, e, "") + 1;
            elem = true;
            continue;
        }
        if (N == '-' && N1 == '>') {
            for (z = rw_next(t, nz + 2, e); z < e && rw_ident_char(t[z]); z++)
                ;
            elem = true;
            continue;
        }
        if (P == '*' && unary_before) {
            a = pa;
            elem = true;
            continue;
        }
        if (P == ')') {
            size_t o = rw_open_of(t, s, pa);
            if (o != (size_t)-1 && !rw_is_call(t, s, o) && rw_pointer_type(t, o + 1, pa)) {
                a = o; /* (T *)p */
                continue;
            }
            if (o != (size_t)-1 && !rw_is_call(t, s, o) && rw_type_name(t, o + 1, pa))
                return; /* (size_t)p: its address as a number (an alignment test) */
        }
        if (P == '(' && N == ')') {
            size_t q = rw_prev(t, s, pa);
            if (q != (size_t)-1 && t[q] == '>') {
                size_t ns, ne;
                if (rw_callee(t, s, pa, &ns, &ne) && ne - ns > 5 && !memcmp(t + ne - 5, "_cast", 5)) {
                    size_t lt = ne;
                    while (lt < q && t[lt] != '<')
                        lt++;
                    if (!rw_pointer_type(t, lt + 1, q))
                        return; /* reinterpret_cast<uintptr_t>(p): a number */
                    a = ns; /* reinterpret_cast<T *>(p) */
                    z = nz + 1;
                    continue;
                }
            } else if (!rw_is_call(t, s, pa) && !(q != (size_t)-1 && rw_ident_char(t[q]))) {
                a = pa; /* (p) */
                z = nz + 1;
                continue;
            }
        }
        if ((N == '+' || N == '-') && N1 != N && N1 != '=' && N1 != '>') {
            z = rw_term_end(t, nz + 1, e); /* p + off */
            continue;
        }
        if (P == '+' && !(pa > s && (t[pa - 1] == '+')) && !unary_before) {
            a = rw_term_start(t, s, pa); /* off + p */
            continue;
        }
        if (P == '?' || (P == ':' && rw_ternary_colon(t, s, pa))) {
            rw_conditional(t, s, e, pa, &a, &z); /* c ? p : q */
            continue;
        }
        if (N == '?' && (P == '(' || P == '!' || P == '&' || P == '|' || P == '=' || P == ',' || P == ';')) {
            /* p ? x : y tests the pointer */
            return;
        }
        break;
    }
    size_t pa = rw_prev(t, s, a), nz = rw_next(t, z, e);
    char P = pa != (size_t)-1 ? t[pa] : 0, N = nz < e ? t[nz] : 0, N1 = nz + 1 < e ? t[nz + 1] : 0;
    if (elem) { /* more than 64 steps */
        rw_lost(w, at, t, 0, 0, u);
        return;
    }
    /* kept in a local pointer: followed */
    char local[64];
    bool decl = false;
    if (P == '=' && !(pa > s && strchr("=!<>+-*/%&|^", t[pa - 1])) && (N == ';' || N == ',' || N == ')') &&
        rw_assigned_local(t, s, pa, local, sizeof local, &decl)) {
        if (!strcmp(local, name))
            return; /* p = p + off: the pointer moves, no element is touched */
        for (int d = 0; d <= w->depth; d++)
            if (w->names[d] && !strcmp(w->names[d], local))
                return; /* followed already */
        if (w->depth >= SK_ROLE_DEPTH) {
            rw_lost(w, at, t, 0, 0, u);
            return;
        }
        w->names[++w->depth] = local;
        sk_role_of(w, decl ? nz : s, e, local, u);
        w->depth--;
        return;
    }
    /* passed to a function */
    if ((P == '(' || P == ',') && (N == ')' || N == ',')) {
        size_t c = sk_enclosing_paren(t, s, a);
        if (c != (size_t)-1) {
            rw_call_arg(w, s, e, c, at, false, name, u);
            return;
        }
    }
    /* compared or tested: no element touched */
    if (((N == '=' || N == '!') && N1 == '=') || N == '<' || N == '>' || (N == '&' && N1 == '&') ||
        (N == '|' && N1 == '|') || (P == '=' && pa > s && strchr("=!", t[pa - 1])) || P == '<' || P == '>' ||
        P == '!' || (P == '&' && pa > s && t[pa - 1] == '&') || (P == '|' && pa > s && t[pa - 1] == '|'))
        return;
    if (P == '(' && N == ')') { /* if (p), while (p) */
        size_t ns, ne;
        if (rw_callee(t, s, pa, &ns, &ne) && (rw_named(t, ns, ne, "if") || rw_named(t, ns, ne, "while")))
            return;
    }
    if ((pa == (size_t)-1 || P == ';' || P == '{' || P == '}') && N == ';')
        return; /* p; alone */
    if (pa != (size_t)-1 && rw_word_before(t, s, pa, "return") && N == ';' && w->n_calls > 0) {
        /* returned by a helper: the call's value is the pointer, followed where it was made */
        int top = --w->n_calls;
        long fi = w->calls[top];
        rw_follow(w, w->sites[top].s, w->sites[top].e, w->sites[top].a, w->sites[top].z, false, w->sites[top].name, u);
        w->calls[w->n_calls++] = fi;
        return;
    }
    rw_lost(w, at, t, 0, 0, u);
}

/* Whether the body t[bs, be) may cast the const away from pointer parameter name: a
 * const_cast anywhere, or a pointer cast, `(float *)name`, `(T *)(name + i)`, of it. */
static bool rw_const_cast_away(const char *t, size_t bs, size_t be, const char *name)
{
    size_t nl = strlen(name);
    if (memmem(t + bs, be - bs, "const_cast", 10))
        return true;
    for (size_t i = bs; i + nl <= be; i++) {
        if (!sk_word_at(t, be, i, name, nl))
            continue;
        size_t p = i;
        while (p > bs && (isspace((unsigned char)t[p - 1]) || t[p - 1] == '('))
            p--;
        if (p > bs && t[p - 1] == ')') {
            p--;
            while (p > bs && isspace((unsigned char)t[p - 1]))
                p--;
            if (p > bs && t[p - 1] == '*')
                return true;
        }
    }
    return false;
}

static void rw_helper(sk_role_walk *w, long fi, const an_param *p, bool elem, size_t at, sk_uses *u)
{
    const an_function *f = &w->k->m->funcs[fi];
    if (!p->name[0])
        return; /* unnamed: not used */
    if (elem) {
        if (!strchr(p->type, '&') || p->is_const || p->pointer_depth > 0) {
            u->read = true; /* by value or a const reference */
            return;
        }
    } else if (p->pointer_depth > 0 && p->is_const &&
               !rw_const_cast_away(w->t, f->body_span.start_byte, f->body_span.end_byte, p->name)) {
        u->read = true; /* a pointer to const: the helper cannot store through it */
        return;
    }
    rw_walk(w, fi, f->body_span.start_byte, f->body_span.end_byte, p->name, elem, at, u);
}

static void rw_walk(sk_role_walk *w, long id, size_t bs, size_t be, const char *pname, bool elem, size_t at,
                    sk_uses *u)
{
    for (int i = 0; i < w->n_calls; i++)
        if (w->calls[i] == id)
            return; /* a recursion: its uses are the ones being walked */
    if (w->depth >= SK_ROLE_DEPTH || w->n_calls >= SK_ROLE_DEPTH) {
        rw_lost(w, at, w->t, 0, 0, u);
        return;
    }
    const char *saved[SK_ROLE_DEPTH + 1];
    memcpy(saved, w->names, sizeof saved);
    int saved_depth = w->depth;
    w->calls[w->n_calls++] = id;
    /* the callee's names are its own: the caller's locals are not followed there */
    for (int d = 0; d <= SK_ROLE_DEPTH; d++)
        w->names[d] = NULL;
    w->depth = saved_depth + 1;
    w->names[w->depth] = pname;
    if (elem) {
        for (size_t i = bs, j, b; sk_next_use(w->t, bs, be, pname, false, &i, &j, &b); i++)
            rw_follow(w, bs, be, i, i + strlen(pname), true, pname, u);
    } else {
        sk_role_of(w, bs, be, pname, u);
    }
    w->depth = saved_depth;
    memcpy(w->names, saved, sizeof saved);
    w->n_calls--;
}

/* The role of pointer name in [s, e): sk_pointer_use's and the stores of the body itself,
 * with the uses through other pointers, into u. */
static void rw_macro_uses(sk_role_walk *w, size_t s, size_t e, const char *name, sk_uses *u);

static void sk_role_of(sk_role_walk *w, size_t s, size_t e, const char *name, sk_uses *u)
{
    int use = sk_pointer_use_at(w->t, s, e, name, false);
    u->read |= use == 1;
    u->atomic |= use >= 2;
    u->written |= use >= 2;
    u->written |= sk_pointer_written_at(w, s, e, name, u);
    rw_macro_uses(w, s, e, name, u);
}

/* The macros of the file whose text names pointer name without taking it as a parameter
 * (#define STORE(v) y[i] = v): where one is used in [s, e), its text uses name there, so it
 * is walked like the body (within one another to SK_ROLE_DEPTH; deeper is lost). */
static void rw_macro_uses(sk_role_walk *w, size_t s, size_t e, const char *name, sk_uses *u)
{
    const char *t = w->t;
    size_t len = w->k->len, nl = strlen(name);
    if (!nl)
        return;
    for (const char *d = t; (d = memmem(d, len - (size_t)(d - t), "#define", 7)) != NULL; d += 7) {
        size_t i = (size_t)(d - t) + 7;
        while (i < len && (t[i] == ' ' || t[i] == '\t'))
            i++;
        size_t ns = i;
        while (i < len && rw_ident_char(t[i]))
            i++;
        size_t ne = i;
        if (ne == ns)
            continue;
        bool param = false;
        if (i < len && t[i] == '(') {
            for (i++; i < len && t[i] != ')' && t[i] != '\n'; i++)
                param |= sk_word_at(t, len, i, name, nl);
            i++;
        }
        size_t bs = i, be = i;
        while (be < len && !(t[be] == '\n' && t[be - 1] != '\\'))
            be++;
        if (param || bs >= be || (s < be && ns < e))
            continue; /* its own parameter, empty, or the text being walked */
        bool mentions = false, used = false;
        for (size_t j = bs; j + nl <= be && !mentions; j++)
            mentions = sk_word_at(t, be, j, name, nl);
        for (size_t j = s; mentions && j + (ne - ns) <= e && !used; j++)
            used = sk_word_at(t, e, j, t + ns, ne - ns) && !sk_in_comment(t, s, e, j);
        if (!used)
            continue;
        if (w->depth >= SK_ROLE_DEPTH) {
            rw_lost(w, s, t, ns, ne, u);
            continue;
        }
        w->depth++;
        w->names[w->depth] = NULL;
        sk_role_of(w, bs, be, name, u);
        w->depth--;
        /* the macro's value assigned where it is used (#define OUT(j) y[j], OUT(i) = v):
         * a store through name */
        for (size_t j = s; j + (ne - ns) <= e; j++) {
            if (!sk_word_at(t, e, j, t + ns, ne - ns) || sk_in_comment(t, s, e, j))
                continue;
            size_t z = rw_next(t, j + (ne - ns), e);
            if (z < e && t[z] == '(')
                z = rw_next(t, kf_expr_end(t, z + 1, e, "") + 1, e);
            char N = z < e ? t[z] : 0, N1 = z + 1 < e ? t[z + 1] : 0;
            if ((N == '=' && N1 != '=') || ((N == '+' || N == '-') && N1 == N) ||
                (N && strchr("+-*/%&|^", N) && N1 == '=')) {
                u->written = true;
                u->read |= N != '=';
            }
        }
    }
}

void sk_pointer_role(const skel *k, size_t s, size_t e, const char *name, sk_role *r)
{
    memset(r, 0, sizeof *r);
    sk_role_walk w = { .k = k, .t = k->text, .r = r };
    w.names[0] = name;
    sk_uses u = { 0 };
    r->use = sk_pointer_use_at(k->text, s, e, name, false);
    r->written = r->use >= 2 || sk_pointer_written_at(&w, s, e, name, &u);
    rw_macro_uses(&w, s, e, name, &u);
    r->written |= u.written;
    if (u.atomic && r->use < 2)
        r->use = 2;
    else if (u.read && r->use == 0)
        r->use = 1;
}

/* Whether the use of name at [i, j) (b: the first blank before it) is one of the body's own
 * that sk_pointer_use and the stores below read: a subscript, a dereference, a member, a
 * move of the pointer. Any other use makes another pointer from it, followed (rw_follow). */
static bool rw_direct(const char *t, size_t s, size_t e, size_t i, size_t wl, size_t b)
{
    size_t nz = rw_next(t, i + wl, e), pa = b > s ? b - 1 : (size_t)-1;
    char N = nz < e ? t[nz] : 0, N1 = nz + 1 < e ? t[nz + 1] : 0, P = pa != (size_t)-1 ? t[pa] : 0;
    bool unary_amp = P == '&' && !(pa > s && t[pa - 1] == '&') && !rw_operand_end(t, s, rw_prev(t, s, pa));
    if (N == '[' && !unary_amp)
        return true;
    if ((N == '-' && N1 == '>') || ((N == '+' || N == '-') && (N1 == N || N1 == '=')) || (N == '=' && N1 != '='))
        return true;
    if (pa != (size_t)-1 && pa > s && (P == '+' || P == '-') && t[pa - 1] == P)
        return true;
    return P == '*';
}

/* Whether the element name[...] at [i, ...) is passed to a call: then the callee may take it
 * by reference (followed), else sk_pointer_use has its read. */
static bool rw_element_arg(const char *t, size_t s, size_t e, size_t i, size_t wl, size_t b)
{
    size_t nz = rw_next(t, i + wl, e), pa = b > s ? b - 1 : (size_t)-1;
    if (nz >= e || t[nz] != '[' || pa == (size_t)-1 || (t[pa] != '(' && t[pa] != ','))
        return false;
    size_t z = rw_next(t, kf_expr_end(t, nz + 1, e, "") + 1, e);
    return z < e && (t[z] == ')' || t[z] == ',');
}

/* Whether the element name[...] at [i, ...) initialises a reference, `T &r = name[i];`: r is
 * then the element (followed), sk_pointer_use has no read of it. */
static bool rw_element_ref(const char *t, size_t s, size_t e, size_t i, size_t wl, size_t b)
{
    size_t nz = rw_next(t, i + wl, e), pa = b > s ? b - 1 : (size_t)-1;
    if (nz >= e || t[nz] != '[' || pa == (size_t)-1 || t[pa] != '=' ||
        (pa > s && strchr("=!<>+-*/%&|^", t[pa - 1])))
        return false;
    size_t z = rw_next(t, kf_expr_end(t, nz + 1, e, "") + 1, e);
    if (z >= e || (t[z] != ';' && t[z] != ','))
        return false;
    size_t re = rw_prev(t, s, pa);
    if (re == (size_t)-1 || !rw_ident_char(t[re]))
        return false;
    size_t rs = re;
    while (rs > s && rw_ident_char(t[rs - 1]))
        rs--;
    size_t amp = rw_prev(t, s, rs);
    return amp != (size_t)-1 && t[amp] == '&' && rw_operand_end(t, s, rw_prev(t, s, amp));
}

static bool sk_pointer_written_at(sk_role_walk *w, size_t s, size_t e, const char *name, sk_uses *u)
{
    const char *t = w->t;
    size_t wl = strlen(name);
    bool written = false;
    for (size_t i = s, j, b; sk_next_use(t, s, e, name, false, &i, &j, &b); i++) {
        /* p->member: a store when assigned, else a read */
        if (j + 1 < e && t[j] == '-' && t[j + 1] == '>') {
            size_t q = j + 2;
            while (q < e && isspace((unsigned char)t[q]))
                q++;
            while (q < e && (isalnum((unsigned char)t[q]) || t[q] == '_'))
                q++;
            while (q < e && isspace((unsigned char)t[q]))
                q++;
            if (q + 1 < e && ((t[q] == '=' && t[q + 1] != '=') || (strchr("+-*/%&|^", t[q]) && t[q + 1] == '=') ||
                              (t[q] == '+' && t[q + 1] == '+') || (t[q] == '-' && t[q + 1] == '-')))
                written = true;
            continue;
        }
        if (rw_element_arg(t, s, e, i, wl, b) || rw_element_ref(t, s, e, i, wl, b)) {
            /* f(name[i]) and T &r = name[i]: what f or r does with the element */
            sk_uses v = { 0 };
            rw_follow(w, s, e, i, i + wl, false, name, &v);
            u->read |= v.read;
            u->atomic |= v.atomic;
            written |= v.written;
            continue;
        }
        if (!rw_direct(t, s, e, i, wl, b)) {
            /* another pointer made from name: where it goes */
            sk_uses v = { 0 };
            rw_follow(w, s, e, i, i + wl, false, name, &v);
            u->read |= v.read;
            u->atomic |= v.atomic;
            written |= v.written;
            continue;
        }
        /* name += off, name -= off, name++, name--: the pointer itself moves and no element
         * is stored (its later subscripts say which are); *name++ = v stores one */
        if (j + 1 < e && (t[j] == '+' || t[j] == '-') && (t[j + 1] == '=' || t[j + 1] == t[j])) {
            if (t[j + 1] == t[j] && b > s && t[b - 1] == '*') {
                size_t q = j + 2;
                while (q < e && isspace((unsigned char)t[q]))
                    q++;
                if (q + 1 < e && t[q] == '=' && t[q + 1] != '=')
                    written = true;
            }
            continue;
        }
        bool subscripted = j < e && t[j] == '[';
        if (b > s && t[b - 1] == '*' && !sk_pointer_declared_at(t, s, i)) {
            /* *name = ... */
            size_t q = j;
            if (q + 1 < e && t[q] == '=' && t[q + 1] != '=')
                written = true;
        }
        if (!subscripted)
            continue;
        size_t close = kf_expr_end(t, j + 1, e, "");
        size_t q = close + 1;
        while (q < e && isspace((unsigned char)t[q]))
            q++;
        if (q + 1 < e && ((t[q] == '=' && t[q + 1] != '=') || (strchr("+-*/%&|^", t[q]) && t[q + 1] == '=') ||
                          (t[q] == '+' && t[q + 1] == '+') || (t[q] == '-' && t[q + 1] == '-') ||
                          ((t[q] == '<' || t[q] == '>') && t[q + 1] == t[q] && q + 2 < e && t[q + 2] == '=')))
            written = true;
        if (b >= s + 2 && ((t[b - 1] == '+' && t[b - 2] == '+') || (t[b - 1] == '-' && t[b - 2] == '-')))
            written = true;
    }
    return written;
}

/* Where the body moves the pointer itself (name += off, name = ..., ++name): its subscripts
 * are then relative to a place they do not show, so they cannot give its count. The byte
 * of the first such statement, or 0 when there is none. */
size_t sk_pointer_moved(const char *t, size_t s, size_t e, const char *name)
{
    for (size_t i = s, j, b; sk_next_use(t, s, e, name, true, &i, &j, &b); i++) {
        bool after = j + 1 < e && ((t[j] == '=' && t[j + 1] != '=') || ((t[j] == '+' || t[j] == '-') &&
                                                                         (t[j + 1] == '=' || t[j + 1] == t[j])));
        bool before = b >= s + 2 && (t[b - 1] == '+' || t[b - 1] == '-') && t[b - 2] == t[b - 1];
        if (after || before)
            return i;
    }
    return 0;
}

/* Where the body makes another pointer from the pointer parameter name: name + off, off +
 * name, &name[i] (outside an element intrinsic), q = name, c ? name : other, or name passed
 * to a function. The elements reached through that pointer are not in name's own
 * subscripts, so those cannot give its count (float *hi = out + n; hi[i] = v writes past
 * every out[i]). The byte of the first such use, or 0. */
size_t sk_pointer_derived(const char *t, size_t s, size_t e, const char *name)
{
    for (size_t i = s, j, b; sk_next_use(t, s, e, name, false, &i, &j, &b); i++) {
        char next = j < e ? t[j] : 0, after = j + 1 < e ? t[j + 1] : 0;
        char prev = b > s ? t[b - 1] : 0, before = b > s + 1 ? t[b - 2] : 0;
        if (next == '[') {
            if (prev == '&' && before != '&') {
                size_t call = sk_enclosing_paren(t, s, b - 1);
                if (call == (size_t)-1 || !sk_element_call(t, s, call))
                    return i;
            }
            continue;
        }
        if ((next == '+' && after != '+' && after != '=') ||
            (next == '-' && after != '-' && after != '=' && after != '>'))
            return i;
        if (prev == '+' && before != '+')
            return i;
        if (prev == '=' && !strchr("=!<>", before))
            return i;
        if (prev == '?' || (prev == ':' && before != ':'))
            return i;
        if (next == ',' || next == ')') {
            size_t call = sk_enclosing_paren(t, s, i);
            if (call != (size_t)-1 && call > s && !sk_element_call(t, s, call)) {
                size_t w = call;
                while (w > s && isspace((unsigned char)t[w - 1]))
                    w--;
                if (w > s && (isalnum((unsigned char)t[w - 1]) || t[w - 1] == '_' || t[w - 1] == '>'))
                    return i; /* f(name, ...), or a template's f<T>(name) */
            }
        }
    }
    return 0;
}

/* Whether every global access the kernel model lists is to a pointer parameter: then it
 * followed every pointer made from one, and its per-buffer extents are whole. */
uint32_t kc_recast_line(const km_kernel *km, const char *name)
{
    size_t n = 0;
    const km_param *ps = km ? km_params(km, &n) : NULL;
    for (size_t i = 0; i < n; i++)
        if (ps[i].name && !strcmp(ps[i].name, name))
            return ps[i].recast_at;
    return 0;
}

bool kc_accesses_resolved(const km_kernel *km, const an_function *f)
{
    size_t n = 0;
    const km_access *ac = km ? km_accesses(km, &n) : NULL;
    if (!ac)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (ac[i].space != KM_SPACE_GLOBAL)
            continue;
        bool param = false;
        for (size_t p = 0; p < f->n_params && !param; p++)
            param = f->params[p].pointer_depth > 0 && ac[i].buffer && !strcmp(f->params[p].name, ac[i].buffer);
        if (!param)
            return false;
    }
    return true;
}

/* ---- data-dependent subscripts ---- */

/* Whether form f holds a value read from memory (a READ atom, or one inside an operation's
 * operands), looked for depth levels down. */
static bool km_form_reads(const km_kernel *km, km_form f, int depth)
{
    size_t na = 0;
    const km_atom *a = km_atoms(km, &na);
    for (uint32_t i = 0; depth > 0 && i < f.n; i++)
        for (uint32_t j = 0; j < f.t[i].n; j++) {
            uint32_t id = f.t[i].atoms[j];
            if (id >= na)
                continue;
            if (a[id].kind == KM_ATOM_READ)
                return true;
            for (uint32_t k = 0; a[id].kind == KM_ATOM_OPAQUE && k < a[id].n_args; k++)
                if (km_form_reads(km, a[id].args[k], depth - 1))
                    return true;
        }
    return false;
}

/* The model's view of a gather: an access to a pointer parameter whose index holds a value
 * read from memory, however it is spelled (through a pointer moved by it, `w = wte +
 * ix * C; w[i]`, which no subscript shows). Its line, or 0. */
uint32_t kc_gather_line(const km_kernel *km, const an_function *f)
{
    size_t n = 0;
    const km_access *ac = km ? km_accesses(km, &n) : NULL;
    for (size_t i = 0; i < n; i++) {
        bool param = false;
        for (size_t p = 0; p < f->n_params && !param; p++)
            param = f->params[p].pointer_depth > 0 && f->params[p].name &&
                    !strcmp(f->params[p].name, ac[i].buffer);
        if (param && km_form_reads(km, ac[i].index, 4))
            return ac[i].line;
    }
    return 0;
}

static int kg_pointer_param(const an_function *f, const char *name);

/* The same terms, as multisets (coefficients and atoms). */
static bool kc_same_terms(const km_term *a, uint32_t na, const km_term *b, uint32_t nb)
{
    bool used[8] = { 0 };
    if (na != nb || na > HK_ARRAY_LEN(used))
        return false;
    for (uint32_t i = 0; i < na; i++) {
        uint32_t j = 0;
        while (j < nb && (used[j] || b[j].coef != a[i].coef || !kc_same_atoms(&a[i], &b[j])))
            j++;
        if (j == nb)
            return false;
        used[j] = true;
    }
    return true;
}

/* Whether every term of access a's element that holds a value read from memory lies in a
 * part m * L of it (m a positive product of sizes) that guards in force bound on both
 * sides: L < X (or <=) with X made of sizes, and 0 <= L (or -1 < L), the guards read at
 * the thread's first element (kc_guard_at_entry). tin_shift's `now_t = i + shift[..]`
 * skipped unless 0 <= now_t < t_size. A read inside an operation (shift[..] % n: C's
 * remainder keeps the sign) or bounded on one side only is not. */
static bool kc_read_terms_guarded(const km_kernel *km, const km_access *a)
{
    size_t ng = 0;
    const km_guard *guards = km_guards(km, &ng);
    kc_bound up[KC_BOUNDS], low[KC_BOUNDS];
    size_t nu = 0, nlow = 0;
    for (uint32_t i = 0; i < a->n_guards; i++) {
        const km_guard *g = &guards[a->guards[i]];
        bool lt = !strcmp(g->op, "<"), le = !strcmp(g->op, "<=");
        int64_t c;
        if (!lt && !le)
            continue;
        if (nu < KC_BOUNDS && kc_form_sized(km, g->rhs) && !kc_form_sized(km, g->lhs) &&
            kc_guard_at_entry(km, g->lhs, &up[nu]))
            nu++;
        if (nlow < KC_BOUNDS && km_form_value(km, g->lhs, &c) && c == (le ? 0 : -1) &&
            kc_guard_at_entry(km, g->rhs, &low[nlow]))
            nlow++;
    }
    kc_poly rest = { .n = 0 };
    km_term one = { .coef = 1, .n = 0 };
    km_form el = a->has_entry_element ? a->entry_element : a->element;
    for (uint32_t i = 0; i < el.n; i++)
        if (!kc_add(&rest, &one, &el.t[i], 1))
            return false;
    for (int step = 0; step < KC_TERMS; step++) {
        size_t at = rest.n;
        for (size_t i = 0; i < rest.n && at == rest.n; i++) {
            km_form f1 = { .t = &rest.t[i], .n = 1 };
            if (km_form_reads(km, f1, 4))
                at = i;
        }
        if (at == rest.n)
            return true;
        km_term t = rest.t[at], m;
        size_t na = 0;
        const km_atom *atoms = km_atoms(km, &na);
        for (uint32_t j = 0; j < t.n; j++)
            if (t.atoms[j] >= na || atoms[t.atoms[j]].kind == KM_ATOM_OPAQUE)
                return false; /* a read inside an operation */
        bool split = false;
        for (size_t u = 0; u < nu && !split; u++) {
            bool lower = false;
            for (size_t l = 0; l < nlow && !lower; l++)
                lower = kc_same_terms(up[u].lhs.t, up[u].lhs.n, low[l].lhs.t, low[l].lhs.n);
            if (!lower)
                continue;
            for (uint32_t j = 0; j < up[u].lhs.n && !split; j++) {
                if (kc_term_sized(km, &up[u].lhs.t[j]) || !kc_divide(km, NULL, &t, &up[u].lhs.t[j], &m) ||
                    !kc_split_cancels(km, &rest, &m, up[u].lhs))
                    continue;
                for (uint32_t q = 0; q < up[u].lhs.n; q++)
                    if (!kc_add(&rest, &m, &up[u].lhs.t[q], -1))
                        return false;
                split = true;
            }
        }
        if (!split)
            return false;
    }
    return false;
}

uint32_t kc_gathers_guarded(skel *k, const an_function *f, char *const *counts, const bool *count_sure)
{
    size_t n = 0;
    const km_access *ac = k->km ? km_accesses(k->km, &n) : NULL;
    uint32_t line = 0;
    if (!ac || !kc_accesses_resolved(k->km, f))
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (ac[i].space != KM_SPACE_GLOBAL || !km_form_reads(k->km, ac[i].index, 4))
            continue;
        int p = kg_pointer_param(f, ac[i].buffer);
        if (p < 0 || p >= HK_MAX_ARGS || !counts[p] || !count_sure[p] || !kc_read_terms_guarded(k->km, &ac[i]))
            return 0;
        /* the count must be the model's, which bounds this access with those guards */
        char *c = kc_count(k, ac[i].buffer);
        bool same = c && !strcmp(c, counts[p]);
        hk_free(c);
        if (!same)
            return 0;
        if (!line)
            line = ac[i].line;
    }
    return line;
}

/* Whether the word w stands in t. */
static bool kn_mentions(const char *t, const char *w)
{
    size_t n = t ? strlen(t) : 0, wl = strlen(w);
    for (size_t i = 0; i + wl <= n; i++)
        if (sk_word_at(t, n, i, w, wl))
            return true;
    return false;
}

/* t with every word w replaced by (by): a new string, NULL on ENOMEM or when too long. */
static char *kn_replace(const char *t, const char *w, const char *by)
{
    struct hk_buf b;
    size_t n = strlen(t), wl = strlen(w);
    bool ok = true;
    hk_buf_init(&b, 4 * SK_MAX_TEXT);
    for (size_t i = 0; i < n && ok;) {
        if (sk_word_at(t, n, i, w, wl)) {
            ok = hk_buf_printf(&b, "(%s)", by) == HK_OK;
            i += wl;
        } else {
            ok = hk_buf_append(&b, t + i, 1) == HK_OK;
            i++;
        }
    }
    char *r = ok ? hk_buf_steal(&b) : NULL;
    hk_buf_free(&b);
    return r;
}

void sk_numel_sizes(skel *k, const an_function *f, const an_launch *site, char **scal, char *const *counts,
                    const bool *count_sure, char **grid, size_t n_grid, long long *program, bool *have_program)
{
    for (size_t i = 0; site && i < f->n_params && i < site->n_args && i < HK_MAX_ARGS; i++) {
        char tensor[64];
        const char *v = scal[i];
        if (f->params[i].pointer_depth || !v || !sk_is_identifier(v) || !sk_numel_of(k, v, tensor, sizeof tensor))
            continue;
        long j = -1;
        for (size_t q = 0; q < f->n_params && q < site->n_args && q < HK_MAX_ARGS && j < 0; q++)
            if (f->params[q].pointer_depth && sk_passes_data_of(site->args[q], tensor))
                j = (long)q;
        if (j < 0 || !count_sure[j] || !counts[j])
            continue;
        /* every count must be free of it (the buffer's own would be circular), and no
         * other scalar may be passed it */
        bool free_of = true;
        for (size_t q = 0; q < f->n_params && q < HK_MAX_ARGS && free_of; q++)
            free_of = !(f->params[q].pointer_depth ? kn_mentions(counts[q], v)
                                                   : q != i && kn_mentions(scal[q], v));
        size_t at = k->n_vars;
        for (size_t q = 0; q < k->n_vars; q++)
            if (!strcmp(k->vars[q], v))
                at = q;
        if (!free_of || at == k->n_vars)
            continue;
        char *g[3] = { NULL, NULL, NULL }, *value = hk_strdup(counts[j]);
        bool ok = value != NULL;
        for (size_t d = 0; d < n_grid && d < 3 && ok; d++)
            ok = grid[d] && (g[d] = kn_replace(grid[d], v, counts[j])) != NULL && strlen(g[d]) <= SK_MAX_TEXT;
        if (!ok) {
            for (size_t d = 0; d < 3; d++)
                hk_free(g[d]);
            hk_free(value);
            k->nomem |= !value;
            continue;
        }
        sk_note(k, HK_MSG_INF_NUMEL, v, tensor,
                f->params[j].name, counts[j]);
        for (size_t d = 0; d < n_grid && d < 3; d++) {
            hk_free(grid[d]);
            grid[d] = g[d];
        }
        /* the parameter's text in the index math (mapped at its launch value) follows */
        for (size_t m = 0; m < k->n_map; m++)
            if (!strcmp(k->map_to[m], v) && !strcmp(k->map_from[m], f->params[i].name)) {
                char *to = hk_strdup(value);
                if (!to) {
                    k->nomem = true;
                    continue;
                }
                hk_free(k->map_to[m]);
                k->map_to[m] = to;
            }
        char *old = scal[i];
        scal[i] = value;
        hk_free(k->vars[at]);
        for (size_t q = at; q + 1 < k->n_vars; q++) {
            k->vars[q] = k->vars[q + 1];
            program[q] = program[q + 1];
            have_program[q] = have_program[q + 1];
        }
        k->n_vars--;
        hk_free(old);
    }
}

/* ---- index buffers whose range the index math gives ---- */

static bool kg_term_has(const km_term *t, uint32_t atom)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (t->atoms[i] == atom)
            return true;
    return false;
}

/* The one term of index form f that holds a value read from memory, when that term is the
 * read value alone (coefficient 1: P[... + Q[i]]); its atom in *read. False when no term
 * or several read, or the read value is scaled, offset inside an operation, or cast. */
static bool kg_read_term(const km_kernel *km, km_form f, uint32_t *read, uint32_t *at)
{
    size_t na = 0;
    const km_atom *a = km_atoms(km, &na);
    bool found = false;
    for (uint32_t i = 0; i < f.n; i++) {
        km_form one = { .t = &f.t[i], .n = 1 };
        if (!km_form_reads(km, one, 4))
            continue;
        if (found || f.t[i].n != 1 || f.t[i].coef != 1 || f.t[i].atoms[0] >= na ||
            a[f.t[i].atoms[0]].kind != KM_ATOM_READ)
            return false;
        *read = f.t[i].atoms[0];
        *at = i;
        found = true;
    }
    return found;
}

/* The one term of index form f that holds a value read from memory, when that term is the
 * read value times one scalar parameter S (coefficient 1: wte[C * inp[i] + c], a row of a
 * table S wide): its atom in *read, S's in *scale. False otherwise (kg_read_term's cases). */
static bool kg_row_term(const km_kernel *km, km_form f, uint32_t *read, uint32_t *at, uint32_t *scale)
{
    size_t na = 0;
    const km_atom *a = km_atoms(km, &na);
    bool found = false;
    for (uint32_t i = 0; i < f.n; i++) {
        km_form one = { .t = &f.t[i], .n = 1 };
        if (!km_form_reads(km, one, 4))
            continue;
        const km_term *t = &f.t[i];
        if (found || t->n != 2 || t->coef != 1 || t->atoms[0] >= na || t->atoms[1] >= na)
            return false;
        int r = a[t->atoms[0]].kind == KM_ATOM_READ ? 0 : a[t->atoms[1]].kind == KM_ATOM_READ ? 1 : -1;
        if (r < 0 || a[t->atoms[1 - r]].kind != KM_ATOM_PARAM || !a[t->atoms[1 - r]].name)
            return false;
        *read = t->atoms[r];
        *scale = t->atoms[1 - r];
        *at = i;
        found = true;
    }
    return found;
}

/* The radix of the read value in f when f is a mixed-radix number whose lowest digit it
 * is: f = v + R * q, every term but v's a multiple of one scalar parameter R and no
 * constant term (points[b * n + idx[i]], softmax[i * C + label]). Code written so means
 * 0 <= v < R; a constant offset or a term without R gives no such reading. */
static bool kg_radix(const km_kernel *km, km_form f, uint32_t at, uint32_t *radix)
{
    size_t na = 0;
    const km_atom *a = km_atoms(km, &na);
    if (f.n < 2)
        return false;
    const km_term *other = &f.t[at == 0 ? 1 : 0];
    for (uint32_t j = 0; j < other->n; j++) {
        uint32_t r = other->atoms[j];
        if (r >= na || a[r].kind != KM_ATOM_PARAM || !a[r].name)
            continue;
        bool all = true;
        for (uint32_t i = 0; i < f.n && all; i++)
            all = i == at || kg_term_has(&f.t[i], r);
        if (all) {
            *radix = r;
            return true;
        }
    }
    return false;
}

/* The parameter R when the kernel compares a value read from buffer with a remainder by R
 * (`t = target[n]; flag = (t == index % num_classes)`: t is a class label, 0 <= t < R, as
 * the comparison is otherwise never true): true and *radix its atom. */
static bool kg_compared(const km_kernel *km, const char *buffer, uint32_t *radix)
{
    size_t na = 0;
    const km_atom *a = km_atoms(km, &na);
    for (size_t i = 0; buffer && i < na; i++) {
        if (a[i].kind != KM_ATOM_OPAQUE || !a[i].op || a[i].n_args != 2 ||
            (strcmp(a[i].op, "==") != 0 && strcmp(a[i].op, "!=") != 0))
            continue;
        for (int side = 0; side < 2; side++) {
            km_form r = a[i].args[side], m = a[i].args[1 - side];
            if (r.n != 1 || r.t[0].n != 1 || r.t[0].coef != 1 || m.n != 1 || m.t[0].n != 1 || m.t[0].coef != 1)
                continue;
            const km_atom *ra = &a[r.t[0].atoms[0]], *ma = &a[m.t[0].atoms[0]];
            if (ra->kind != KM_ATOM_READ || !ra->name || strcmp(ra->name, buffer) != 0 ||
                ma->kind != KM_ATOM_OPAQUE || !ma->op || strcmp(ma->op, "%") != 0 || ma->n_args != 2)
                continue;
            km_form d = ma->args[1];
            if (d.n != 1 || d.t[0].n != 1 || d.t[0].coef != 1 || a[d.t[0].atoms[0]].kind != KM_ATOM_PARAM ||
                !a[d.t[0].atoms[0]].name)
                continue;
            *radix = d.t[0].atoms[0];
            return true;
        }
    }
    return false;
}

/* The parameter R when the kernel checks a value read from buffer against it before using
 * it, `if (r < 0 || r >= R) continue;` (mmcv's assign_score_withk skips a neighbour index
 * past N0): guards `buffer[...] < R` and `0 <= buffer[...]` (or `<= R - 1`, `>= 0`) on one
 * element. Values past R would only send threads out of the kernel's work, so the input
 * gets int(0, R - 1) and a table it picks rows of has R rows. True and *radix its atom. */
static bool kg_guard_bound(const km_kernel *km, const char *buffer, uint32_t *radix)
{
    size_t ng = 0, na = 0;
    const km_guard *g = km_guards(km, &ng);
    const km_atom *a = km_atoms(km, &na);
    for (size_t i = 0; buffer && i < ng; i++) {
        if (strcmp(g[i].op, "<") != 0 || g[i].lhs.n != 1 || g[i].lhs.t[0].n != 1 || g[i].lhs.t[0].coef != 1 ||
            g[i].rhs.n != 1 || g[i].rhs.t[0].n != 1 || g[i].rhs.t[0].coef != 1)
            continue;
        uint32_t ra = g[i].lhs.t[0].atoms[0], pa = g[i].rhs.t[0].atoms[0];
        if (ra >= na || pa >= na || a[ra].kind != KM_ATOM_READ || !a[ra].name || strcmp(a[ra].name, buffer) != 0 ||
            a[pa].kind != KM_ATOM_PARAM || !a[pa].name)
            continue;
        /* and the same element at least 0: 0 <= buffer[...] */
        for (size_t j = 0; j < ng; j++) {
            bool lower = !strcmp(g[j].op, "<=") && g[j].lhs.n == 0 && g[j].rhs.n == 1 && g[j].rhs.t[0].n == 1 &&
                         g[j].rhs.t[0].coef == 1 && g[j].rhs.t[0].atoms[0] == ra;
            if (lower) {
                *radix = pa;
                return true;
            }
        }
    }
    return false;
}

/* Whether every scalar parameter form f mentions (operands of its operations too) is
 * passed a number or a size variable that bounded fixes (>= 0): a subscript through them
 * then takes the values the program is written for. */
bool kc_params_bounded(const skel *k, const an_function *f, km_form form, char *const *scal,
                       const long long *bounded, int depth)
{
    size_t na = 0;
    const km_atom *atoms = km_atoms(k->km, &na);
    if (depth > 4)
        return false;
    for (uint32_t t = 0; t < form.n; t++)
        for (uint32_t a = 0; a < form.t[t].n; a++) {
            uint32_t id = form.t[t].atoms[a];
            if (id >= na)
                return false;
            const km_atom *at = &atoms[id];
            if (at->kind == KM_ATOM_PARAM) {
                const char *val = NULL;
                for (size_t p = 0; p < f->n_params && !val; p++)
                    if (at->name && !strcmp(f->params[p].name, at->name))
                        val = scal[p] ? scal[p] : "";
                bool fixed = val && *val && strspn(val, "0123456789") == strlen(val);
                for (size_t v = 0; val && !fixed && v < k->n_vars; v++)
                    fixed = !strcmp(k->vars[v], val) && bounded[v] >= 0;
                if (!fixed)
                    return false;
            }
            for (uint32_t g = 0; g < at->n_args; g++)
                if (!kc_params_bounded(k, f, at->args[g], scal, bounded, depth + 1))
                    return false;
        }
    return true;
}

/* The parameter index of pointer parameter name in f, or -1. */
static int kg_pointer_param(const an_function *f, const char *name)
{
    for (size_t p = 0; name && p < f->n_params && p < HK_MAX_ARGS; p++)
        if (f->params[p].pointer_depth > 0 && !strcmp(f->params[p].name, name))
            return (int)p;
    return -1;
}

/* Whether pointer parameter q of f is an integer input: values the harness generates. */
static bool kg_index_input(skel *k, const an_function *f, int q, size_t bs, size_t be)
{
    int width = 1, dt = HK_DT_F32;
    char elem[96];
    sk_resolve_pointee(k, f->params[q].elem_type, elem, sizeof elem);
    const char *qn = f->params[q].name;
    sk_role role = { .use = -1 };
    if (!f->params[q].is_const)
        sk_pointer_role(k, bs, be, qn, &role);
    bool written = role.use >= 2 || role.written;
    return spec_dtype_parse(sk_dtype(elem, NULL, 0, &width), &dt) == HK_OK && !hk_dtype_is_float(dt) &&
           width == 1 && !written;
}

/* *limit lowered to the smallest value of kernel parameter radix over the size sets. False
 * when it is no size or below 2 somewhere (int(0, 0) would be a constant input). */
static bool kg_lower_limit(skel *k, const char *radix, const json_t *const *sets, size_t n_sets,
                           long long *limit)
{
    char *r = sk_translate(k, radix, 0);
    bool ok = r && kf_only_sizes(k, r);
    for (size_t s = 0; ok && s < n_sets; s++) {
        long long v = 0;
        ok = sk_eval_at(r, sets[s], &v) && v >= 2;
        if (ok && (!*limit || v < *limit))
            *limit = v;
    }
    hk_free(r);
    return ok;
}

/* Whether access a stays inside its buffer (count, what the harness allocates) at every
 * size set with the value read (atom read) below the radix (atom radix, a size: its value
 * at each set), or below limit where radix is UINT32_MAX. */
static bool kg_inside(skel *k, const km_access *a, uint32_t read, long long limit, uint32_t radix,
                      const char *count, const json_t *const *sets, size_t n_sets)
{
    km_term counter = { .coef = 1, .n = 1, .atoms = { read } };
    km_term bound = radix != UINT32_MAX ? (km_term){ .coef = 1, .n = 1, .atoms = { radix } }
                                        : (km_term){ .coef = limit, .n = 0 };
    kc_bound extra = { .lhs = { .t = &counter, .n = 1 }, .rhs = { .t = &bound, .n = 1 } };
    kc_limits lim = { .k = k, .extra = &extra };
    memcpy(lim.grid, k->grid_known, sizeof lim.grid);
    memcpy(lim.threads, k->threads_known, sizeof lim.threads);
    memcpy(lim.block, k->block_known, sizeof lim.block);
    struct hk_buf b;
    hk_buf_init(&b, SK_MAX_TEXT);
    char *ext = kc_access_extent(k->km, a, &lim, &b) && b.data ? sk_translate(k, b.data, 0) : NULL;
    hk_buf_free(&b);
    bool inside = ext && kf_only_sizes(k, ext) && count;
    for (size_t s = 0; inside && s < n_sets; s++) {
        long long need = 0, have = 0;
        inside = sk_eval_at(ext, sets[s], &need) && sk_eval_at(count, sets[s], &have) && need <= have;
    }
    hk_free(ext);
    return inside;
}

/* Index buffers whose values subscript other buffers (gathers), given a range from the
 * index math. First the limit of each index buffer Q: the smallest radix R (kg_radix),
 * over the size sets, of the gathers that read Q's value as the lowest digit of their
 * subscript, or KG_TABLE_ROWS where Q picks rows of a table (kg_row_term) that nothing
 * sizes (count_fixed[dest] false: no allocation of the program's): that table's count is then rows_count[dest] ("65536 * S", a new string), and all
 * its reads must pick rows. Then every gather of f must read one such value alone
 * (kg_read_term) or as a row and, with that value below its limit, stay inside its buffer
 * (kg_inside). On success limit[q] is Q's limit (0 for a buffer that is no index),
 * rows_count[] the counts of the tables (NULL for others) and *line the first gather's
 * line; false (limits unusable, rows_count all NULL) when one gather is not such, Q is not
 * an integer input, a limit is below 2 (a constant input), or the textual scan's gather
 * (text_line, 0 for none) is none of the model's. */
bool kg_gathers(skel *k, const an_function *f, size_t bs, size_t be, char *const *counts,
                const json_t *const *sets, size_t n_sets, int text_line, long long *limit, int *line,
                bool *compared, bool *checked, const bool *count_fixed, char **rows_count, char **limit_text)
{
    const km_kernel *km = k->km;
    size_t n = 0, na = 0;
    const km_access *ac = km ? km_accesses(km, &n) : NULL;
    const km_atom *atoms = km ? km_atoms(km, &na) : NULL;
    /* the size each index buffer's values stay below, where one alone bounds them all
     * (UINT32_MAX: none, or a table's fixed rows; KG_MIXED: two different sizes) */
    enum { KG_MIXED = UINT32_MAX - 1 };
    uint32_t lim_atom[HK_MAX_ARGS];
    for (size_t p = 0; p < HK_MAX_ARGS; p++) {
        limit[p] = 0;
        compared[p] = false;
        checked[p] = false;
        rows_count[p] = NULL;
        limit_text[p] = NULL;
        lim_atom[p] = UINT32_MAX;
    }
    if (!ac)
        return false;
    *line = 0;
    bool any = false, seen_text = text_line == 0, ok = true;
    for (int pass = 0; pass < 2 && ok; pass++)
        for (size_t i = 0; i < n && ok; i++) {
            int dest = kg_pointer_param(f, ac[i].buffer);
            if (dest < 0 || !km_form_reads(km, ac[i].index, 4)) {
                /* a table read by rows is read that way alone: its count is the rows' */
                ok = !(pass == 1 && dest >= 0 && dest < HK_MAX_ARGS && rows_count[dest] && ac[i].space == KM_SPACE_GLOBAL);
                continue;
            }
            /* the element form, as kc_access_extent reads it (grid-stride counters at 0:
             * the read value there is another atom than in the index) */
            uint32_t read = 0, at = 0, radix = 0, scale = 0;
            km_form el = ac[i].has_entry_element ? ac[i].entry_element : ac[i].element;
            bool row = false;
            if (!kg_read_term(km, el, &read, &at)) {
                ok = kg_row_term(km, el, &read, &at, &scale) && ac[i].mode == KM_READ && dest < HK_MAX_ARGS &&
                     !count_fixed[dest];
                row = true;
                if (!ok)
                    break;
            }
            int q = kg_pointer_param(f, atoms[read].name);
            if (q < 0 || (pass == 0 && !kg_index_input(k, f, q, bs, be))) {
                ok = false;
                break;
            }
            uint32_t guard_radix = 0;
            if (pass == 0 && row && kg_guard_bound(km, atoms[read].name, &guard_radix)) {
                /* Q's values pick rows of a table S wide, and the kernel skips a value past
                 * R: the table has R rows and Q's values stay below R */
                long long lim = 0;
                char *s_text = sk_translate(k, atoms[scale].name, 0);
                char *r_text = sk_translate(k, atoms[guard_radix].name, 0);
                char *c = s_text && r_text && kf_only_sizes(k, s_text) && kf_only_sizes(k, r_text)
                              ? hk_asprintf("%s * %s", r_text, s_text) : NULL;
                hk_free(s_text);
                hk_free(r_text);
                ok = c && kg_lower_limit(k, atoms[guard_radix].name, sets, n_sets, &lim) &&
                     (!rows_count[dest] || !strcmp(rows_count[dest], c)) && (!limit[q] || limit[q] == lim);
                hk_free(rows_count[dest]);
                rows_count[dest] = c;
                limit[q] = lim;
                lim_atom[q] = lim_atom[q] == UINT32_MAX || lim_atom[q] == guard_radix ? guard_radix : KG_MIXED;
                checked[q] = checked[dest] = true;
                continue;
            }
            if (pass == 0 && row) {
                /* Q's values pick rows of a table S wide that nothing in the kernel or its
                 * launcher sizes (a vocabulary): the table gets KG_TABLE_ROWS rows and Q's
                 * values stay below that; the check below sees every row read inside */
                char *s_text = sk_translate(k, atoms[scale].name, 0);
                char *c = s_text && kf_only_sizes(k, s_text) ? hk_asprintf("%d * %s", KG_TABLE_ROWS, s_text) : NULL;
                hk_free(s_text);
                ok = c && (!rows_count[dest] || !strcmp(rows_count[dest], c)) &&
                     (!limit[q] || limit[q] == KG_TABLE_ROWS);
                hk_free(rows_count[dest]);
                rows_count[dest] = c;
                limit[q] = KG_TABLE_ROWS;
                lim_atom[q] = KG_MIXED;
                continue;
            }
            if (pass == 0) {
                bool digit = kg_radix(km, el, at, &radix);
                bool cmp = !digit && kg_compared(km, atoms[read].name, &radix);
                if ((digit || cmp) && !kg_lower_limit(k, atoms[radix].name, sets, n_sets, &limit[q])) {
                    ok = false;
                    break;
                }
                if (digit || cmp)
                    lim_atom[q] = lim_atom[q] == UINT32_MAX || lim_atom[q] == radix ? radix : KG_MIXED;
                compared[q] |= cmp;
                continue;
            }
            /* no subscript says how far Q's values go, or one leaves its buffer: with one
             * size bounding Q's values, below that size at each set, else below the least */
            const char *count = row ? rows_count[dest] : counts[dest];
            uint32_t per_set = lim_atom[q] < na ? lim_atom[q] : UINT32_MAX;
            if (!limit[q] || !kg_inside(k, &ac[i], read, limit[q], per_set, count, sets, n_sets)) {
                ok = false;
                break;
            }
            if (!*line)
                *line = (int)ac[i].line;
            seen_text |= (int)ac[i].line == text_line;
            any = true;
        }
    if (ok && any && seen_text) {
        for (size_t p = 0; p < HK_MAX_ARGS; p++)
            if (limit[p] && lim_atom[p] < na)
                limit_text[p] = sk_translate(k, atoms[lim_atom[p]].name, 0);
        return true;
    }
    for (size_t p = 0; p < HK_MAX_ARGS; p++) {
        hk_free(rows_count[p]);
        rows_count[p] = NULL;
    }
    return false;
}

#define DD_MAX_NAMES 64

/* Whether t[s, e) reads an element of one of the pointer parameters of f (NAME[ ... ]). */
static bool dd_reads_buffer(const char *t, size_t s, size_t e, const an_function *f)
{
    for (size_t p = 0; p < f->n_params; p++) {
        const char *n = f->params[p].name;
        size_t nl = strlen(n);
        if (f->params[p].pointer_depth == 0 || !nl)
            continue;
        for (size_t i = s; i + nl < e; i++)
            if (sk_word_at(t, e, i, n, nl) && (i == s || t[i - 1] != '.')) {
                size_t j = i + nl;
                while (j < e && isspace((unsigned char)t[j]))
                    j++;
                if (j < e && t[j] == '[')
                    return true;
            }
    }
    return false;
}

static bool dd_mentions(const char *t, size_t s, size_t e, char names[][64], size_t n)
{
    for (size_t k = 0; k < n; k++)
        for (size_t i = s; i + strlen(names[k]) <= e; i++)
            /* a member (threadIdx.x, p->y) is not the local x or y read from a buffer */
            if (sk_word_at(t, e, i, names[k], strlen(names[k])) &&
                !(i > 0 && (t[i - 1] == '.' || (t[i - 1] == '>' && i > 1 && t[i - 2] == '-'))))
                return true;
    return false;
}

/* A subscript of a pointer parameter whose index is a value read from a buffer (P[Q[i]],
 * or label = target[i]; P[label]): the generated inputs are random, not valid indices,
 * so such a kernel reads out of bounds. The byte of the first such subscript, or 0. */
size_t sk_gather(const char *t, size_t s, size_t e, const an_function *f)
{
    char tainted[DD_MAX_NAMES][64];
    size_t nt = 0;
    /* locals assigned from a buffer read, then from those (two rounds follow a chain) */
    for (int round = 0; round < 2; round++)
        for (size_t i = s; i < e && nt < DD_MAX_NAMES; i++) {
            if (!(isalpha((unsigned char)t[i]) || t[i] == '_') ||
                (i > s && (isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_' || t[i - 1] == '.')))
                continue;
            size_t ne = i;
            while (ne < e && (isalnum((unsigned char)t[ne]) || t[ne] == '_'))
                ne++;
            size_t j = ne;
            while (j < e && isspace((unsigned char)t[j]))
                j++;
            if (j + 1 >= e || t[j] != '=' || t[j + 1] == '=' || ne - i >= 64) {
                i = ne;
                continue;
            }
            size_t ie = kf_expr_end(t, j + 1, e, ";,");
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(ne - i), t + i);
            bool known = false;
            for (size_t k = 0; k < nt; k++)
                known |= !strcmp(tainted[k], name);
            if (!known && (dd_reads_buffer(t, j + 1, ie, f) || dd_mentions(t, j + 1, ie, tainted, nt)))
                snprintf(tainted[nt++], sizeof tainted[0], "%s", name);
            i = ne;
        }
    /* a subscript of a pointer parameter using them (a __shared__ table the kernel sizes
     * itself, a histogram's bins, is not a buffer the harness allocates) */
    for (size_t i = s; i < e; i++) {
        if (t[i] != '[')
            continue;
        size_t b = i;
        while (b > s && isspace((unsigned char)t[b - 1]))
            b--;
        size_t w = b;
        while (w > s && (isalnum((unsigned char)t[w - 1]) || t[w - 1] == '_'))
            w--;
        bool param = false;
        for (size_t p = 0; p < f->n_params && w < b; p++)
            param |= f->params[p].pointer_depth > 0 && strlen(f->params[p].name) == b - w &&
                     !strncmp(f->params[p].name, t + w, b - w);
        if (!param)
            continue;
        size_t close = kf_expr_end(t, i + 1, e, "");
        if (close > e)
            break;
        if (dd_reads_buffer(t, i + 1, close, f) || dd_mentions(t, i + 1, close, tainted, nt))
            return i;
    }
    return 0;
}

/* ---- how far a shared subscript goes ---- */

/* A polynomial over the model's atoms with rational coefficients: the bounds below divide
 * by constants (ceil_div(m, 512) <= m / 512 + 511 / 512). */
#define KB_TERMS 48
#define KB_DEPTH 24
#define KB_STEPS 4096

typedef struct {
    double coef;
    uint32_t n;
    uint32_t atoms[KM_DEGREE_MAX];
} kb_term;

typedef struct {
    kb_term t[KB_TERMS];
    uint32_t n;
    bool full; /* a term did not fit: the polynomial is unusable */
} kb_poly;

static void kb_add(kb_poly *p, double coef, const uint32_t *atoms, uint32_t n)
{
    uint32_t sorted[KM_DEGREE_MAX];
    if (n > KM_DEGREE_MAX) {
        p->full = true;
        return;
    }
    if (n) /* a constant term passes no atoms (NULL) */
        memcpy(sorted, atoms, n * sizeof *atoms);
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            uint32_t x = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = x;
        }
    for (uint32_t i = 0; i < p->n; i++)
        if (p->t[i].n == n && !memcmp(p->t[i].atoms, sorted, n * sizeof *sorted)) {
            p->t[i].coef += coef;
            return;
        }
    if (p->n == KB_TERMS) {
        p->full = true;
        return;
    }
    p->t[p->n].coef = coef;
    p->t[p->n].n = n;
    memcpy(p->t[p->n].atoms, sorted, n * sizeof *sorted);
    p->n++;
}

/* p += scale * f */
static void kb_add_form(kb_poly *p, km_form f, double scale)
{
    for (uint32_t i = 0; i < f.n; i++)
        kb_add(p, scale * (double)f.t[i].coef, f.t[i].atoms, f.t[i].n);
}

/* The constant value of form f (CONST atoms put in, ~C too), when it has one. */
static bool kb_const(const km_kernel *km, km_form f, double *v)
{
    int64_t x;
    size_t na = 0;
    const km_atom *a = km_atoms(km, &na);
    if (km_form_value(km, f, &x)) {
        *v = (double)x;
        return true;
    }
    if (f.n == 1 && f.t[0].n == 1 && f.t[0].coef == 1 && f.t[0].atoms[0] < na) {
        const km_atom *at = &a[f.t[0].atoms[0]];
        if (at->kind == KM_ATOM_OPAQUE && at->op && !strcmp(at->op, "~") && at->n_args == 1 &&
            km_form_value(km, at->args[0], &x)) {
            *v = (double)~x;
            return true;
        }
    }
    return false;
}

static bool kb_bound(const km_kernel *km, const kb_poly *p, bool upper, int depth, int *steps, double *out);

/* The bound of rest + c * (f + add) in the direction upper. */
static bool kb_bound_with(const km_kernel *km, const kb_poly *rest, double c, const km_form *f, double add,
                          bool upper, int depth, int *steps, double *out)
{
    kb_poly *q = hk_malloc(sizeof *q);
    if (!q)
        return false;
    *q = *rest;
    if (f)
        kb_add_form(q, *f, c);
    kb_add(q, c * add, NULL, 0);
    bool ok = !q->full && kb_bound(km, q, upper, depth + 1, steps, out);
    hk_free(q);
    return ok;
}

/* A bound of p over every execution (upper: the largest value, else the smallest), when
 * substitution reaches a constant: named constants put in; then, one atom at a time, an
 * operation by its operands (min(x, y) <= x and <= y, x & ~(2^k - 1) between x - 2^k + 1
 * and x and >= 0 for x >= 0, x / d <= ceil_div(x, d) <= x / d + (d - 1) / d) and a loop
 * counter by 0 or its trip - 1 (a counter that no operation holds first), keeping the
 * rest symbolic so that terms cancel (2 * (end - start - 1) + 2 * start). An atom must stand alone in its terms (linear);
 * anything else (a parameter left over, a thread index, a value read) has no bound. */
static bool kb_bound(const km_kernel *km, const kb_poly *p, bool upper, int depth, int *steps, double *out)
{
    size_t na = 0, nl = 0;
    const km_atom *a = km_atoms(km, &na);
    const km_loop *loops = km_loops(km, &nl);
    if (depth > KB_DEPTH || p->full || --*steps < 0)
        return false; /* min/max branch: a budget keeps a long chain of them cheap */
    kb_poly *q = hk_malloc(sizeof *q);
    bool ok = false;
    if (!q)
        return false;
    q->n = 0;
    q->full = false;
    /* named constants with a value */
    for (uint32_t i = 0; i < p->n; i++) {
        double c = p->t[i].coef;
        uint32_t keep[KM_DEGREE_MAX], nk = 0;
        for (uint32_t j = 0; j < p->t[i].n; j++) {
            uint32_t id = p->t[i].atoms[j];
            if (id < na && a[id].kind == KM_ATOM_CONST && a[id].has_value)
                c *= (double)a[id].value;
            else
                keep[nk++] = id;
        }
        if (c != 0.0)
            kb_add(q, c, keep, nk);
    }
    double constant = 0;
    uint32_t pick = UINT32_MAX;
    /* Which atom first: a loop counter no operation of p holds (its trip may bring back
     * atoms of p, which then cancel), else an operation (a counter inside its operands
     * stays tied to the same counter outside), else any counter. */
    int rank = 0;
    bool unknown = false;
    for (uint32_t i = 0; i < q->n; i++) {
        if (q->t[i].n == 0) {
            constant += q->t[i].coef;
            continue;
        }
        if (q->t[i].coef == 0.0)
            continue;
        if (q->t[i].n != 1 || q->t[i].atoms[0] >= na)
            goto out; /* a product of unknowns */
        uint32_t id = q->t[i].atoms[0];
        const km_atom *at = &a[id];
        int r = at->kind == KM_ATOM_OPAQUE ? 2 : at->kind == KM_ATOM_LOOP ? 1 : 0;
        if (r == 0) {
            unknown = true; /* a size, a thread index, a value read: it may cancel later */
            continue;
        }
        if (r == 1) {
            bool held = false;
            for (uint32_t j = 0; j < q->n && !held; j++)
                for (uint32_t g = 0; q->t[j].n == 1 && q->t[j].atoms[0] < na && g < a[q->t[j].atoms[0]].n_args && !held;
                     g++)
                    held = km_form_mentions(km, a[q->t[j].atoms[0]].args[g], id);
            r = held ? 1 : 3;
        }
        if (r > rank) {
            rank = r;
            pick = id;
        }
    }
    if (pick == UINT32_MAX) {
        *out = constant;
        ok = !unknown;
        goto out;
    }
    /* the picked atom's coefficient, and the rest without it */
    double c = 0;
    kb_poly *rest = hk_malloc(sizeof *rest);
    if (!rest)
        goto out;
    rest->n = 0;
    rest->full = false;
    for (uint32_t i = 0; i < q->n; i++) {
        if (q->t[i].n == 1 && q->t[i].atoms[0] == pick)
            c += q->t[i].coef;
        else
            kb_add(rest, q->t[i].coef, q->t[i].atoms, q->t[i].n);
    }
    /* the atom's own direction: the total's, or the other when c < 0 */
    bool atom_up = (c > 0) == upper;
    const km_atom *at = &a[pick];
    double v0 = 0, v1 = 0, d = 0;
    if (c == 0.0) {
        ok = kb_bound(km, rest, upper, depth + 1, steps, out);
    } else if (at->kind == KM_ATOM_LOOP) {
        /* counter in [0, trip - 1] */
        if (at->loop >= 0 && (size_t)at->loop < nl && loops[at->loop].has_trip) {
            if (atom_up)
                ok = kb_bound_with(km, rest, c, &loops[at->loop].trip, -1, upper, depth, steps, out);
            else
                ok = kb_bound_with(km, rest, c, NULL, 0, upper, depth, steps, out);
        }
    } else if (at->op && (!strcmp(at->op, "min") || !strcmp(at->op, "max")) && at->n_args == 2) {
        /* P + c * min(x, y) is P + c * x or P + c * y */
        bool ok0 = kb_bound_with(km, rest, c, &at->args[0], 0, upper, depth, steps, &v0);
        bool ok1 = kb_bound_with(km, rest, c, &at->args[1], 0, upper, depth, steps, &v1);
        bool either = !strcmp(at->op, "min") == atom_up; /* one operand bounds it already */
        if (either && (ok0 || ok1)) {
            ok = true;
            *out = !ok0 ? v1 : !ok1 ? v0 : upper ? (v0 < v1 ? v0 : v1) : (v0 > v1 ? v0 : v1);
        } else if (!either && ok0 && ok1) {
            ok = true;
            *out = upper ? (v0 > v1 ? v0 : v1) : (v0 < v1 ? v0 : v1);
        }
    } else if (at->op && !strcmp(at->op, "&") && at->n_args == 2 && kb_const(km, at->args[1], &d) && d < 0 &&
               ((long long)-d & ((long long)-d - 1)) == 0) {
        /* x & ~(2^k - 1): x rounded down to a multiple of 2^k */
        double lo_x = 0;
        if (atom_up)
            ok = kb_bound_with(km, rest, c, &at->args[0], 0, upper, depth, steps, out);
        else if (kb_bound_with(km, &(kb_poly){ .n = 0 }, 1, &at->args[0], 0, false, depth, steps, &lo_x) && lo_x >= 0)
            ok = kb_bound_with(km, rest, c, NULL, 0, upper, depth, steps, out);
        else
            ok = kb_bound_with(km, rest, c, &at->args[0], d + 1, upper, depth, steps, out);
    } else if (at->op && !strcmp(at->op, "ceildiv") && at->n_args == 2 && kb_const(km, at->args[1], &d) && d > 0) {
        ok = kb_bound_with(km, rest, c / d, &at->args[0], atom_up ? d - 1 : 0, upper, depth, steps, out);
    }
    hk_free(rest);
out:
    hk_free(q);
    return ok;
}

/* Whether shared access a stays inside its array for every value of the sizes: its index
 * between constants (kb_bound) and below the array's element count. The bounds and the
 * count into *lo, *hi, *extent. */
bool kc_shared_inside(const km_kernel *km, const km_access *a, long long *lo, long long *hi, long long *extent)
{
    size_t nl = 0;
    const km_local *locals = km_locals(km, &nl);
    double ext = -1;
    for (size_t i = 0; i < nl; i++)
        if (locals[i].kind == KM_LOCAL_ARRAY && locals[i].name && a->buffer && !strcmp(locals[i].name, a->buffer) &&
            !kb_const(km, locals[i].form, &ext))
            return false;
    kb_poly *p = hk_malloc(sizeof *p);
    if (!p)
        return false;
    p->n = 0;
    p->full = false;
    kb_add_form(p, a->index, 1);
    double l = 0, h = 0;
    int steps_lo = KB_STEPS, steps_hi = KB_STEPS;
    bool ok = ext > 0 && !p->full && kb_bound(km, p, false, 0, &steps_lo, &l) && kb_bound(km, p, true, 0, &steps_hi, &h) &&
              l >= 0 && h < ext;
    hk_free(p);
    if (ok) {
        *lo = (long long)l;
        *hi = (long long)h;
        *extent = (long long)ext;
    }
    return ok;
}
