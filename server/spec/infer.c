/* Spec inference (docs/bench-spec.md "Optimize without a spec"): the harness-form spec of
 * a kernel from its signature, its index math (which elements each thread touches, the
 * bounds checks, grid-stride loops, a block size the math hard-codes) and the host code
 * at its launch site (the launch's grid and arguments, cudaMalloc sizes, vector sizes,
 * template arguments). Every guess is recorded with where it came from; a guess that
 * cannot be checked becomes a doubt, and a caller runs nothing on a spec with doubts. */
#include "spec/infer.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "core/buf.h"
#include "core/hk.h"
#include "model/kclass.h"
#include "model/kmodel.h"
#include "spec/expr.h"
#include "spec/spec.h"

#define INFER_MAX_SOURCE ((size_t)16 << 20)

static const char *const launch_vars[] = { "block_x", "block_y", "block_z", "sm_count" };

static bool is_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

static bool is_kernel_name(const char *s)
{
    if (!s || !*s)
        return false;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == ':'))
            return false;
    return isalpha((unsigned char)*s) || *s == '_' || *s == ':';
}

#define SK_MAX_VARS (2 * HK_MAX_ARGS) /* every integer parameter, and launcher names */
#define SK_MAX_MAP 64
#define SK_MAX_NOTES 32
#define SK_MAX_TEXT 1024

typedef struct {
    const an_model *m;
    const char *text;     /* whole source */
    size_t len;
    /* The text holding the launch site: the kernel's own file, or a sibling file of the
     * same project when the kernel's has none (site_text then differs from text). */
    const an_model *site_m;
    const char *site_text;
    size_t site_len;
    const char *site_file;  /* for notes; NULL: the kernel's file */
    uint32_t body_start;  /* caller body in site_text, for launcher locals; 0/0 when none */
    uint32_t body_end;
    char *vars[SK_MAX_VARS];  /* size variables found so far (owned) */
    size_t n_vars;
    /* Names translated to fixed spec text (owned both): a kernel parameter to its launch
     * value, an index variable to its largest value. Consulted before anything else. */
    char *map_from[SK_MAX_MAP], *map_to[SK_MAX_MAP];
    size_t n_map;
    /* Launcher names kept as size variables (borrowed from the model's launch args). */
    const char *keep[SK_MAX_VARS];
    size_t n_keep;
    char *notes[SK_MAX_NOTES], *doubts[SK_MAX_NOTES]; /* owned */
    size_t n_notes, n_doubts;
    const char *file;         /* for "main.cu:42" in notes */
    const km_kernel *km;      /* the kernel model (borrowed), or NULL when it was not built */
    bool grid_known[3];       /* the launch fixes grid dimension d in sizes alone (sk_map_grid) */
    bool threads_known[3];    /* the spec's threads along d are known in sizes (sk_map_threads) */
    long long block_known[3]; /* the spec's block, once chosen (0 before) */
    bool nomem;
} skel;

static bool word_at(const char *t, size_t len, size_t i, const char *w, size_t wl)
{
    if (i + wl > len || memcmp(t + i, w, wl) != 0)
        return false;
    if (i > 0 && (isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_'))
        return false;
    return i + wl == len || !(isalnum((unsigned char)t[i + wl]) || t[i + wl] == '_');
}

/* Text of the last `name = EXPR;` or `dim3 name(ARGS)` in the caller body: a new string
 * ("dim3(ARGS)" for the latter) or NULL. */
static char *sk_dim3_members(skel *k, const char *name, char *base, size_t base_at);
static size_t sk_split_dims(const char *t, char **parts);
static size_t kf_expr_end(const char *t, size_t s, size_t e, const char *stops);

static char *sk_local_init(skel *k, const char *name)
{
    size_t wl = strlen(name);
    char *found = NULL;
    size_t found_at = k->body_start;
    for (size_t i = k->body_start; i + wl < k->body_end; i++) {
        if (!word_at(k->site_text, k->body_end, i, name, wl))
            continue;
        size_t j = i + wl;
        while (j < k->body_end && isspace((unsigned char)k->site_text[j]))
            j++;
        char open = j < k->body_end ? k->site_text[j] : 0;
        bool assign = open == '=' && j + 1 < k->body_end && k->site_text[j + 1] != '=';
        bool ctor = open == '(' || open == '{';
        if (!assign && !ctor)
            continue;
        /* a constructor only counts after the word dim3, or after a comma in a statement
         * that starts with it (dim3 grid(a, b), threads(c, d);) */
        if (ctor) {
            size_t b = i;
            while (b > k->body_start && isspace((unsigned char)k->site_text[b - 1]))
                b--;
            bool after_dim3 = b >= k->body_start + 4 && word_at(k->site_text, k->body_end, b - 4, "dim3", 4);
            if (!after_dim3 && b > k->body_start && k->site_text[b - 1] == ',') {
                size_t st = b - 1;
                int depth = 0;
                while (st > k->body_start) {
                    char c = k->site_text[st - 1];
                    depth += (c == ')') - (c == '(');
                    if (depth == 0 && (c == ';' || c == '{' || c == '}'))
                        break;
                    st--;
                }
                while (st < b && isspace((unsigned char)k->site_text[st]))
                    st++;
                after_dim3 = depth == 0 && word_at(k->site_text, k->body_end, st, "dim3", 4);
            }
            if (!after_dim3)
                continue;
        }
        size_t s = j + 1, e = s;
        int depth = 0;
        for (; e < k->body_end; e++) {
            char c = k->site_text[e];
            if (c == '(' || c == '{' || c == '[')
                depth++;
            else if (c == ')' || c == '}' || c == ']') {
                if (depth == 0)
                    break;
                depth--;
            } else if ((c == ';' || (c == ',' && assign)) && depth == 0)
                break; /* int M = 512, N = 384: M's ends at the comma */
        }
        if (e >= k->body_end || e - s > SK_MAX_TEXT)
            continue;
        hk_free(found);
        found = ctor ? hk_asprintf("dim3(%.*s)", (int)(e - s), k->site_text + s)
                     : hk_strndup(k->site_text + s, e - s);
        found_at = e;
        if (!found)
            k->nomem = true;
    }
    return sk_dim3_members(k, name, found, found_at);
}

/* Whether the caller body declares name with the type word type (dim3 name; dim3 name(...);
 * dim3 a, name), or the caller takes it as a parameter of that type. */
static bool sk_declared_as(const skel *k, const char *name, const char *type)
{
    size_t tl = strlen(type);
    size_t wl = strlen(name);
    for (size_t i = k->body_start; i + wl < k->body_end; i++) {
        if (!word_at(k->site_text, k->body_end, i, name, wl))
            continue;
        /* back over the declarators before it in the same statement to its type */
        size_t b = i;
        int depth = 0;
        while (b > k->body_start) {
            char c = k->site_text[b - 1];
            depth += (c == ')') - (c == '(');
            if (depth == 0 && (c == ';' || c == '{' || c == '}'))
                break;
            b--;
        }
        /* forward over blank space and the comments between the statements */
        for (;;) {
            while (b < i && isspace((unsigned char)k->site_text[b]))
                b++;
            if (b + 1 < i && k->site_text[b] == '/' && k->site_text[b + 1] == '/') {
                while (b < i && k->site_text[b] != '\n')
                    b++;
            } else if (b + 1 < i && k->site_text[b] == '/' && k->site_text[b + 1] == '*') {
                for (b += 2; b + 1 < i && !(k->site_text[b] == '*' && k->site_text[b + 1] == '/'); b++)
                    ;
                b += 2;
            } else {
                break;
            }
        }
        if (word_at(k->site_text, k->body_end, b, type, tl))
            return true;
    }
    /* or a parameter of the launcher (void run(..., dim3 grid)) */
    for (size_t f = 0; k->site_m && k->body_end > k->body_start && f < k->site_m->n_funcs; f++) {
        const an_function *cf = &k->site_m->funcs[f];
        if (cf->body_span.start_byte != k->body_start)
            continue;
        for (size_t i = 0; i < cf->n_params; i++)
            if (cf->params[i].name && !strcmp(cf->params[i].name, name) && cf->params[i].elem_type &&
                !strcmp(cf->params[i].elem_type, type) && cf->params[i].pointer_depth == 0)
                return true;
    }
    return false;
}

static bool sk_declared_dim3(const skel *k, const char *name)
{
    return sk_declared_as(k, name, "dim3");
}

/* A member of a launcher's cudaDeviceProp (prop.maxThreadsPerBlock, prop.maxGridSize[0])
 * whose value every GPU that CUDA 12 builds for shares (compute capability 5.0 and up):
 * the launch sizes written with it are those values on any device. chain is "prop.member";
 * index the subscript after it (-1: none). Its value, or -1 for any other chain. */
static long long sk_device_prop(const skel *k, const char *chain, int index)
{
    static const struct {
        const char *member;
        long long value[3]; /* by subscript; value[0] for a scalar member */
        bool array;
    } props[] = {
        { "maxThreadsPerBlock", { 1024 }, false },
        { "warpSize", { 32 }, false },
        { "maxThreadsDim", { 1024, 1024, 64 }, true },
        { "maxGridSize", { 2147483647, 65535, 65535 }, true },
    };
    const char *dot = strchr(chain, '.');
    if (!dot || strchr(dot + 1, '.') || strstr(chain, "->") || dot - chain >= 64)
        return -1;
    char base[64];
    memcpy(base, chain, (size_t)(dot - chain));
    base[dot - chain] = '\0';
    for (size_t i = 0; i < HK_ARRAY_LEN(props); i++) {
        if (strcmp(dot + 1, props[i].member) != 0 || props[i].array != (index >= 0) || index > 2)
            continue;
        return sk_declared_as(k, base, "cudaDeviceProp") ? props[i].value[index < 0 ? 0 : index] : -1;
    }
    return -1;
}

/* A dim3 set member by member (dim3 grid; grid.x = (n + 255) / 256; grid.y = m;): base (the
 * declaration's dims, "dim3(...)", or NULL for dim3 name;) with every `name.x/y/z = EXPR;`
 * after base_at put in, as "dim3(X, Y, Z)". base unchanged when there is no such
 * assignment; NULL (base freed) when one cannot be read as the launch sees it: a member
 * set twice, or set inside a branch or a loop (deeper than the launch, or right after an
 * if/else). */
static char *sk_dim3_members(skel *k, const char *name, char *base, size_t base_at)
{
    const char *t = k->site_text;
    size_t wl = strlen(name), end = k->body_end;
    char *member[3] = { 0 };
    bool any = false, bad = false;
    int launch_depth = 0;
    for (size_t i = k->body_start; i < end; i++)
        launch_depth += (t[i] == '{') - (t[i] == '}');
    int depth = 0;
    for (size_t i = k->body_start; i + wl + 2 < end && !bad; i++) {
        depth += (t[i] == '{') - (t[i] == '}');
        if (i < base_at || !word_at(t, end, i, name, wl) || t[i + wl] != '.' ||
            !strchr("xyz", t[i + wl + 1]) || isalnum((unsigned char)t[i + wl + 2]) || t[i + wl + 2] == '_')
            continue;
        size_t j = i + wl + 2;
        while (j < end && isspace((unsigned char)t[j]))
            j++;
        if (j + 1 >= end || t[j] != '=' || t[j + 1] == '=')
            continue;
        int d = t[i + wl + 1] - 'x';
        size_t st = i;
        while (st > k->body_start && isspace((unsigned char)t[st - 1]))
            st--;
        bool statement = st == k->body_start || t[st - 1] == ';' || t[st - 1] == '{' || t[st - 1] == '}';
        bool after_else = st >= k->body_start + 4 && word_at(t, end, st - 4, "else", 4);
        size_t e = kf_expr_end(t, j + 1, end, ";");
        if (member[d] || !statement || after_else || depth != launch_depth || e >= end || e - j > SK_MAX_TEXT) {
            bad = true;
            break;
        }
        if (!(member[d] = hk_strndup(t + j + 1, e - j - 1)))
            k->nomem = true;
        any = true;
    }
    char *out = base;
    if (bad) {
        hk_free(base);
        out = NULL;
    } else if (any && (base || sk_declared_dim3(k, name))) {
        char *parts[3] = { 0 };
        size_t np = base ? sk_split_dims(base, parts) : 0;
        out = hk_asprintf("dim3(%s, %s, %s)", member[0] ? member[0] : np > 0 ? parts[0] : "1",
                          member[1] ? member[1] : np > 1 ? parts[1] : "1",
                          member[2] ? member[2] : np > 2 ? parts[2] : "1");
        if (!out)
            k->nomem = true;
        for (size_t d = 0; d < 3; d++)
            hk_free(parts[d]);
        hk_free(base);
    }
    for (int d = 0; d < 3; d++)
        hk_free(member[d]);
    return out;
}

/* A #define or constexpr of the kernel's file, else of the launch site's. */
static const char *sk_tunable_value(const skel *k, const char *name)
{
    const an_model *ms[2] = { k->m, k->site_m };
    for (size_t m = 0; m < 2; m++)
        for (size_t i = 0; ms[m] && (m == 0 || ms[1] != ms[0]) && i < ms[m]->n_tunables; i++) {
            const an_tunable *t = &ms[m]->tunables[i];
            if (t->kind != AN_TUNE_TEMPLATE && t->value && strcmp(t->name, name) == 0)
                return t->value;
        }
    return NULL;
}

static const char *sk_mapped(const skel *k, const char *name)
{
    for (size_t i = 0; i < k->n_map; i++)
        if (!strcmp(k->map_from[i], name))
            return k->map_to[i];
    return NULL;
}

static bool sk_kept(const skel *k, const char *name)
{
    for (size_t i = 0; i < k->n_keep; i++)
        if (!strcmp(k->keep[i], name))
            return true;
    return false;
}

static bool sk_is_type_word(const char *w, size_t n)
{
    static const char *const types[] = { "int", "long", "unsigned", "signed", "short", "size_t",
                                         "float", "double", "char", "int64_t", "int32_t",
                                         "uint32_t", "uint64_t", "const" };
    for (size_t i = 0; i < HK_ARRAY_LEN(types); i++)
        if (strlen(types[i]) == n && memcmp(types[i], w, n) == 0)
            return true;
    return false;
}

/* The value text of an object-like `#define name VALUE` in the launch's or the kernel's
 * text (comments and line continuations not followed), as a new string, or NULL. */
static char *sk_define_text(const skel *k, const char *name)
{
    const char *texts[2] = { k->site_text, k->text };
    size_t lens[2] = { k->site_len, k->len };
    size_t nl = strlen(name);
    for (int i = 0; i < 2; i++) {
        const char *t = texts[i];
        for (const char *p = t; t && (p = strstr(p, "#define")) != NULL && (size_t)(p - t) < lens[i]; p += 7) {
            const char *q = p + 7;
            while (*q == ' ' || *q == '\t')
                q++;
            if (strncmp(q, name, nl) || isalnum((unsigned char)q[nl]) || q[nl] == '_' || q[nl] == '(')
                continue;
            q += nl;
            const char *e = q;
            while (*e && *e != '\n' && !(e[0] == '/' && (e[1] == '/' || e[1] == '*')))
                e++;
            while (q < e && isspace((unsigned char)*q))
                q++;
            while (e > q && isspace((unsigned char)e[-1]))
                e--;
            if (e > q && e[-1] != '\\' && (size_t)(e - q) < SK_MAX_TEXT)
                return hk_strndup(q, (size_t)(e - q));
        }
    }
    return NULL;
}

/* t (n bytes) without blank space and without parentheses around the whole, into out. */
static bool sk_bare(const char *t, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)t[i])) {
            if (o + 1 >= cap)
                return false;
            out[o++] = t[i];
        }
    out[o] = '\0';
    while (o >= 2 && out[0] == '(' && out[o - 1] == ')') {
        int depth = 0;
        bool whole = true;
        for (size_t i = 0; i + 1 < o && whole; i++) {
            depth += (out[i] == '(') - (out[i] == ')');
            whole = depth > 0;
        }
        if (!whole)
            break;
        memmove(out, out + 1, o - 2);
        o -= 2;
        out[o] = '\0';
    }
    return o > 0;
}

/* Whether t[s, e) is one operand: a name, a number, a call f(...) or a parenthesised
 * whole, with no operator outside parentheses. */
static bool sk_one_operand(const char *t, size_t s, size_t e)
{
    if (s >= e)
        return false;
    size_t i = s;
    while (i < e && (isalnum((unsigned char)t[i]) || t[i] == '_' || t[i] == '.'))
        i++;
    if (i == e)
        return true;
    if (t[i] != '(')
        return false;
    int depth = 0;
    for (size_t j = i; j < e; j++) {
        depth += (t[j] == '(') - (t[j] == ')');
        if (depth == 0)
            return j + 1 == e;
    }
    return false;
}

/* t with the parentheses around a lone operand dropped ((n) to n, ((f(x))) to f(x), not
 * f(n)), in place: what a macro's expansion leaves around each argument. */
static void sk_tidy_parens(char *t)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (char *o = strchr(t, '('); o; o = strchr(o + 1, '(')) {
            if (o > t && (isalnum((unsigned char)o[-1]) || o[-1] == '_'))
                continue; /* a call's parentheses */
            int depth = 0;
            char *c = o;
            for (; *c; c++) {
                depth += (*c == '(') - (*c == ')');
                if (depth == 0)
                    break;
            }
            if (!*c || !sk_one_operand(t, (size_t)(o + 1 - t), (size_t)(c - t)))
                continue;
            memmove(c, c + 1, strlen(c + 1) + 1);
            memmove(o, o + 1, strlen(o + 1) + 1);
            changed = true;
            break;
        }
    }
}

/* A macro body `A < B ? A : B` (or >, <=, >=, either order of the choices) is min(A, B)
 * or max(A, B): a new string, else NULL. The expression language has no ?:, and this is
 * how programs without std::min spell it. */
static char *sk_ternary_minmax(const char *body, size_t n)
{
    char all[SK_MAX_TEXT + 1];
    if (!sk_bare(body, n, all, sizeof all))
        return NULL;
    size_t q = 0, col = 0, cmp = 0, len = strlen(all);
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = all[i];
        depth += (ch == '(') - (ch == ')');
        if (depth)
            continue;
        if (ch == '?' && !q)
            q = i;
        else if (ch == ':' && q && !col)
            col = i;
        else if ((ch == '<' || ch == '>') && !q && !cmp && i > 0 && all[i + 1] != ch && all[i - 1] != ch && all[i - 1] != '-')
            cmp = i;
        else if (ch == '?' || ch == ':' || ((ch == '<' || ch == '>') && !q))
            return NULL; /* nested, chained or a shift */
    }
    if (!q || !col || !cmp)
        return NULL;
    bool less = all[cmp] == '<';
    size_t rs = cmp + 1 + (all[cmp + 1] == '=');
    char a[SK_MAX_TEXT + 1], b[SK_MAX_TEXT + 1], x[SK_MAX_TEXT + 1], y[SK_MAX_TEXT + 1];
    if (!sk_bare(all, cmp, a, sizeof a) || !sk_bare(all + rs, q - rs, b, sizeof b) ||
        !sk_bare(all + q + 1, col - q - 1, x, sizeof x) || !sk_bare(all + col + 1, len - col - 1, y, sizeof y))
        return NULL;
    bool first = !strcmp(x, a) && !strcmp(y, b), swapped = !strcmp(x, b) && !strcmp(y, a);
    if (!first && !swapped)
        return NULL;
    /* A < B ? A : B is the smaller; A > B ? A : B the larger */
    return hk_asprintf("%s(%s, %s)", less == first ? "min" : "max", a, b);
}

/* A call of a one-line function-like `#define name(a, b) BODY` of the launch's or the
 * kernel's text (Rodinia's ceilDiv, mmcv's DIVUP) at c + open (the '('), as BODY with each
 * parameter replaced by its argument in parentheses: a new string, with *end past the
 * closing ')'. NULL when there is no such macro, the call is not closed, the argument
 * count differs or BODY uses # or ## (a name made of text the translation cannot follow). */
static char *sk_macro_call(skel *k, const char *name, const char *c, size_t open, size_t *end)
{
    const char *texts[2] = { k->site_text, k->text };
    size_t lens[2] = { k->site_len, k->len };
    size_t nl = strlen(name), n = strlen(c);
    /* the call's arguments, split at top-level commas */
    const char *arg[8];
    size_t arg_len[8], na = 0, s = open + 1, e = s;
    int depth = 0;
    for (; e < n; e++) {
        char ch = c[e];
        if (ch == '(' || ch == '[')
            depth++;
        else if ((ch == ')' || ch == ']') && depth > 0)
            depth--;
        else if ((ch == ',' || ch == ')') && depth == 0) {
            if (na == HK_ARRAY_LEN(arg))
                return NULL;
            arg[na] = c + s;
            arg_len[na++] = e - s;
            s = e + 1;
            if (ch == ')')
                break;
        }
    }
    if (e >= n)
        return NULL;
    for (int i = 0; i < 2; i++) {
        const char *t = texts[i];
        if (!t || (i == 1 && texts[1] == texts[0]))
            continue;
        for (const char *p = t; (p = strstr(p, "#define")) != NULL && (size_t)(p - t) < lens[i]; p += 7) {
            const char *q = p + 7;
            while (*q == ' ' || *q == '\t')
                q++;
            if (strncmp(q, name, nl) || q[nl] != '(')
                continue;
            /* the parameter list */
            const char *par[8];
            size_t par_len[8], np = 0;
            const char *r = q + nl + 1;
            bool bad = false;
            for (;;) {
                while (*r == ' ' || *r == '\t')
                    r++;
                const char *ps = r;
                while (isalnum((unsigned char)*r) || *r == '_')
                    r++;
                if (r == ps || np == HK_ARRAY_LEN(par)) {
                    bad = r != ps || *r != ')' || np != 0; /* name() takes none */
                    break;
                }
                par[np] = ps;
                par_len[np++] = (size_t)(r - ps);
                while (*r == ' ' || *r == '\t')
                    r++;
                if (*r == ',') {
                    r++;
                    continue;
                }
                bad = *r != ')';
                break;
            }
            if (bad || *r != ')')
                continue;
            bool no_args = na == 1 && strspn(arg[0], " \t") == arg_len[0];
            if (np != na && !(np == 0 && no_args))
                return NULL;
            const char *body = r + 1, *be = body;
            while (*be && *be != '\n' && !(be[0] == '/' && (be[1] == '/' || be[1] == '*')))
                be++;
            while (body < be && isspace((unsigned char)*body))
                body++;
            while (be > body && isspace((unsigned char)be[-1]))
                be--;
            if (be == body || be[-1] == '\\' || (size_t)(be - body) > SK_MAX_TEXT || memchr(body, '#', (size_t)(be - body)))
                return NULL;
            char *minmax = sk_ternary_minmax(body, (size_t)(be - body));
            if (minmax) {
                body = minmax;
                be = minmax + strlen(minmax);
            }
            struct hk_buf b;
            hk_buf_init(&b, 4 * SK_MAX_TEXT);
            bool ok = true;
            for (const char *x = body; x < be && ok;) {
                if (isalpha((unsigned char)*x) || *x == '_') {
                    const char *ws = x;
                    while (x < be && (isalnum((unsigned char)*x) || *x == '_'))
                        x++;
                    size_t w = (size_t)(x - ws), a = 0;
                    while (a < np && !(par_len[a] == w && !memcmp(par[a], ws, w)))
                        a++;
                    ok = a < np ? hk_buf_printf(&b, "(%.*s)", (int)arg_len[a], arg[a]) == HK_OK
                                : hk_buf_append(&b, ws, w) == HK_OK;
                } else {
                    ok = hk_buf_append(&b, x, 1) == HK_OK;
                    x++;
                }
            }
            char *out = ok && b.len <= SK_MAX_TEXT ? hk_strndup(b.data, b.len) : NULL;
            hk_buf_free(&b);
            hk_free(minmax);
            if (!out && ok)
                k->nomem = true;
            if (out)
                *end = e + 1;
            return out;
        }
    }
    return NULL;
}

/* ---- constants with shifts ---- */

typedef struct {
    const char *s;
    bool bad;
} cfold;

static long long cf_expr(cfold *f, int level);

static void cf_ws(cfold *f)
{
    while (isspace((unsigned char)*f->s))
        f->s++;
}

static long long cf_primary(cfold *f)
{
    cf_ws(f);
    if (*f->s == '(') {
        f->s++;
        long long v = cf_expr(f, 0);
        cf_ws(f);
        if (*f->s != ')')
            f->bad = true;
        else
            f->s++;
        return v;
    }
    if (*f->s == '-') {
        f->s++;
        return -cf_primary(f);
    }
    if (!isdigit((unsigned char)*f->s)) {
        f->bad = true;
        return 0;
    }
    char *end;
    long long v = strtoll(f->s, &end, 10);
    f->s = end;
    return v;
}

/* level 0: << >>; 1: + -; 2: * / % (C's precedence) */
static long long cf_expr(cfold *f, int level)
{
    long long a = level == 2 ? cf_primary(f) : cf_expr(f, level + 1);
    for (;;) {
        cf_ws(f);
        char c = *f->s;
        bool shift = level == 0 && (c == '<' || c == '>') && f->s[1] == c;
        bool sum = level == 1 && (c == '+' || c == '-');
        bool prod = level == 2 && (c == '*' || c == '/' || c == '%');
        if (f->bad || !(shift || sum || prod))
            return a;
        f->s += shift ? 2 : 1;
        long long b = level == 2 ? cf_primary(f) : cf_expr(f, level + 1);
        if (shift && (b < 0 || b > 62 || a < 0)) {
            f->bad = true;
            return 0;
        }
        if ((prod && c != '*' && b == 0) || f->bad) {
            f->bad = true;
            return 0;
        }
        long long r = 0;
        bool ovf = false;
        if (shift)
            ovf = c == '<' && (a > (LLONG_MAX >> b)), r = c == '<' ? a << b : a >> b;
        else if (c == '+')
            ovf = __builtin_add_overflow(a, b, &r);
        else if (c == '-')
            ovf = __builtin_sub_overflow(a, b, &r);
        else if (c == '*')
            ovf = __builtin_mul_overflow(a, b, &r);
        else
            r = c == '/' ? a / b : a % b;
        if (ovf) {
            f->bad = true;
            return 0;
        }
        a = r;
    }
}

/* The value of t, integers and + - * / % << >> only. */
static bool sk_fold_shifts(const char *t, long long *v)
{
    cfold f = { .s = t };
    *v = cf_expr(&f, 0);
    cf_ws(&f);
    return !f.bad && *f.s == '\0';
}

/* Translates a C expression from a launch into the spec language: casts and literal
 * suffixes dropped, #define/constexpr constants and launcher locals substituted. A new
 * string, or NULL when the text uses anything else (calls, members, ternaries). */
/* s without its spaces and one pair of enclosing parentheses, into out (cap bytes). */
static bool ci_strip(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)s[i])) {
            if (o + 1 >= cap)
                return false;
            out[o++] = s[i];
        }
    out[o] = '\0';
    if (o >= 2 && out[0] == '(' && out[o - 1] == ')') {
        int depth = 0;
        for (size_t i = 0; i < o; i++) {
            depth += (out[i] == '(') - (out[i] == ')');
            if (depth == 0 && i < o - 1)
                return true; /* (a)+(b): the parentheses do not enclose it all */
        }
        memmove(out, out + 1, o - 2);
        out[o - 2] = '\0';
    }
    return true;
}

/* The top-level position of op (a one-character operator) in s, or -1; -2 when there
 * are several. */
static long ci_split(const char *s, char op)
{
    int depth = 0;
    long at = -1;
    for (size_t i = 0; s[i]; i++) {
        depth += (s[i] == '(') - (s[i] == ')');
        if (depth == 0 && s[i] == op) {
            if (at >= 0)
                return -2;
            at = (long)i;
        }
    }
    return at;
}

/* C's round-up division spelled with a remainder test, `X / B + (X % B ? 1 : 0)`,
 * `(X/B) + (!(X%B ? 0 : 1))` (Rodinia's gaussian), `X / B + (X % B != 0)`: true, and X
 * and B (new strings) in *xo and *bo; false for any other text. */
static bool sk_ceil_idiom(const char *c, char **xo, char **bo)
{
    char all[SK_MAX_TEXT + 1], left[SK_MAX_TEXT + 1], right[SK_MAX_TEXT + 1], x[SK_MAX_TEXT + 1],
        bb[SK_MAX_TEXT + 1];
    size_t n = strlen(c);
    if (n > SK_MAX_TEXT || !ci_strip(c, n, all, sizeof all))
        return false;
    /* (x + b - 1) / b */
    long div = ci_split(all, '/');
    if (div > 0 && ci_strip(all, (size_t)div, left, sizeof left) &&
        ci_strip(all + div + 1, strlen(all + div + 1), bb, sizeof bb)) {
        size_t ll = strlen(left);
        long last_plus = -1;
        int depth = 0;
        for (size_t i = 0; ll > 2 && i < ll - 2; i++) {
            depth += (left[i] == '(') - (left[i] == ')');
            if (depth == 0 && left[i] == '+')
                last_plus = (long)i;
            else if (depth == 0 && left[i] == '-' && i > 0)
                last_plus = -2; /* x - y + b - 1 is fine, b - y - 1 is not */
        }
        if (ll > 2 && !strcmp(left + ll - 2, "-1") && last_plus > 0 &&
            ci_strip(left + last_plus + 1, ll - 2 - (size_t)last_plus - 1, right, sizeof right) &&
            !strcmp(right, bb) && ci_strip(left, (size_t)last_plus, x, sizeof x)) {
            *xo = hk_strdup(x);
            *bo = hk_strdup(bb);
            return *xo && *bo;
        }
    }
    long plus = ci_split(all, '+');
    if (plus <= 0 || !ci_strip(all, (size_t)plus, left, sizeof left) ||
        !ci_strip(all + plus + 1, strlen(all + plus + 1), right, sizeof right))
        return false;
    long slash = ci_split(left, '/');
    if (slash <= 0 || strchr(left + slash + 1, '/') || (size_t)slash >= sizeof x)
        return false;
    snprintf(x, sizeof x, "%.*s", (int)slash, left);
    snprintf(bb, sizeof bb, "%s", left + slash + 1);
    static const char *const forms[] = { "!(%s%%%s?0:1)", "%s%%%s?1:0", "(%s%%%s)?1:0", "%s%%%s!=0",
                                         "(%s%%%s)!=0", "%s%%%s>0", "(%s%%%s)>0", "!!(%s%%%s)" };
    char want[3 * SK_MAX_TEXT + 16];
    for (size_t i = 0; i < HK_ARRAY_LEN(forms); i++) {
        snprintf(want, sizeof want, forms[i], x, bb);
        if (!strcmp(want, right)) {
            *xo = hk_strdup(x);
            *bo = hk_strdup(bb);
            return *xo && *bo;
        }
    }
    return false;
}

static char *sk_translate(skel *k, const char *c, int depth)
{
    if (!c || depth > 16 || strlen(c) > SK_MAX_TEXT)
        return NULL;
    char *ix = NULL, *ib = NULL;
    if (sk_ceil_idiom(c, &ix, &ib)) {
        char *tx = sk_translate(k, ix, depth + 1), *tb = sk_translate(k, ib, depth + 1);
        char *r = tx && tb ? hk_asprintf("ceil_div(%s, %s)", tx, tb) : NULL;
        hk_free(ix);
        hk_free(ib);
        hk_free(tx);
        hk_free(tb);
        return r;
    }
    hk_free(ix);
    hk_free(ib);
    struct hk_buf b;
    hk_buf_init(&b, 4 * SK_MAX_TEXT);
    size_t n = strlen(c);
    bool ok = true;
    for (size_t i = 0; i < n && ok;) {
        char ch = c[i];
        if (isspace((unsigned char)ch)) {
            i++;
            continue;
        }
        if (isdigit((unsigned char)ch) || (ch == '.' && isdigit((unsigned char)c[i + 1]))) {
            if (ch == '0' && (c[i + 1] == 'x' || c[i + 1] == 'X')) {
                ok = false;
                break;
            }
            size_t s = i;
            while (i < n && (isdigit((unsigned char)c[i]) || c[i] == '.' ||
                             ((c[i] == 'e' || c[i] == 'E') && i + 1 < n &&
                              (isdigit((unsigned char)c[i + 1]) || c[i + 1] == '-' || c[i + 1] == '+')) ||
                             ((c[i] == '-' || c[i] == '+') && (c[i - 1] == 'e' || c[i - 1] == 'E'))))
                i++;
            ok = hk_buf_append(&b, c + s, i - s) == HK_OK;
            while (i < n && strchr("uUlLfF", c[i]))
                i++;
            continue;
        }
        if (isalpha((unsigned char)ch) || ch == '_') {
            size_t s = i;
            while (i < n && (isalnum((unsigned char)c[i]) || c[i] == '_'))
                i++;
            char name[128];
            if (i - s >= sizeof name) {
                ok = false;
                break;
            }
            memcpy(name, c + s, i - s);
            name[i - s] = '\0';
            size_t j = i;
            while (j < n && isspace((unsigned char)c[j]))
                j++;
            if (j < n && c[j] == '(') {
                if (!strcmp(name, "min") || !strcmp(name, "max")) {
                    ok = hk_buf_appends(&b, name) == HK_OK;
                    continue;
                }
                size_t after = 0;
                char *body = sk_macro_call(k, name, c, j, &after);
                char bare[SK_MAX_TEXT + 1];
                /* without its outer parentheses, so that (x + b - 1) / b reads as ceil_div */
                char *t = body && sk_bare(body, strlen(body), bare, sizeof bare) ? sk_translate(k, bare, depth + 1)
                                                                                 : NULL;
                if (t)
                    sk_tidy_parens(t);
                ok = t && hk_buf_printf(&b, sk_one_operand(t, 0, strlen(t)) ? "%s" : "(%s)", t) == HK_OK;
                hk_free(body);
                hk_free(t);
                i = after;
                continue;
            }
            if (j < n && (c[j] == '.' || (c[j] == '-' && c[j + 1] == '>'))) {
                /* s.n, p->batch: a launch argument's text stands for the kernel parameter
                 * it is passed as (sk_map); any other member is not read */
                char chain[256];
                size_t q = i, cl = (size_t)snprintf(chain, sizeof chain, "%s", name);
                for (;;) {
                    size_t r = q;
                    while (r < n && isspace((unsigned char)c[r]))
                        r++;
                    size_t arrow = r + 1 < n && c[r] == '-' && c[r + 1] == '>' ? 2 : r < n && c[r] == '.' ? 1 : 0;
                    if (!arrow)
                        break;
                    r += arrow;
                    while (r < n && isspace((unsigned char)c[r]))
                        r++;
                    size_t ms = r;
                    while (r < n && (isalnum((unsigned char)c[r]) || c[r] == '_'))
                        r++;
                    if (r == ms || cl + (r - ms) + 3 >= sizeof chain) {
                        q = n + 1;
                        break;
                    }
                    cl += (size_t)snprintf(chain + cl, sizeof chain - cl, "%s%.*s", arrow == 2 ? "->" : ".",
                                           (int)(r - ms), c + ms);
                    q = r;
                }
                const char *as = q <= n ? sk_mapped(k, chain) : NULL;
                /* a device limit (prop.maxGridSize[0]) with its one subscript */
                int sub = -1;
                size_t r = q;
                while (r < n && isspace((unsigned char)c[r]))
                    r++;
                if (!as && q <= n && r + 2 < n && c[r] == '[' && isdigit((unsigned char)c[r + 1]) && c[r + 2] == ']') {
                    sub = c[r + 1] - '0';
                    r += 3;
                }
                long long prop = !as && q <= n ? sk_device_prop(k, chain, sub) : -1;
                if (prop >= 0) {
                    ok = hk_buf_printf(&b, "%lld", prop) == HK_OK;
                    i = sub >= 0 ? r : q;
                    continue;
                }
                ok = as && hk_buf_printf(&b, "%s", as) == HK_OK;
                i = q;
                continue;
            }
            if (j < n && c[j] == '[') {
                ok = false;
                break;
            }
            const char *mapped = sk_mapped(k, name);
            if (mapped || sk_kept(k, name)) {
                bool simple = !mapped || is_identifier(mapped) || strspn(mapped, "0123456789") == strlen(mapped);
                ok = hk_buf_printf(&b, simple ? "%s" : "(%s)", mapped ? mapped : name) == HK_OK;
                continue;
            }
            const char *tv = sk_tunable_value(k, name);
            char *local = tv ? NULL : sk_local_init(k, name);
            if (!tv && !local)
                local = sk_define_text(k, name);
            const char *sub = tv ? tv : local;
            if (sub) {
                char *t = strncmp(sub, "dim3(", 5) == 0 ? NULL : sk_translate(k, sub, depth + 1);
                ok = t && hk_buf_printf(&b, "(%s)", t) == HK_OK;
                hk_free(t);
            } else {
                /* a launcher's dim3 is never a size, whatever its members hold */
                ok = !sk_declared_dim3(k, name) && hk_buf_appends(&b, name) == HK_OK;
            }
            hk_free(local);
            continue;
        }
        if (ch == '(') {
            /* a cast: (int), (size_t), (unsigned long) ... */
            size_t j = i + 1;
            bool all_types = true, any = false;
            while (j < n && c[j] != ')') {
                while (j < n && isspace((unsigned char)c[j]))
                    j++;
                size_t s = j;
                while (j < n && (isalnum((unsigned char)c[j]) || c[j] == '_'))
                    j++;
                if (j == s) {
                    all_types = false;
                    break;
                }
                any = true;
                all_types &= sk_is_type_word(c + s, j - s);
                while (j < n && isspace((unsigned char)c[j]))
                    j++;
            }
            if (any && all_types && j < n && c[j] == ')') {
                i = j + 1;
                continue;
            }
        }
        if ((ch == '<' || ch == '>') && i + 1 < n && c[i + 1] == ch) {
            /* a shift: the spec language has none; kept for sk_fold_shifts */
            ok = hk_buf_append(&b, c + i, 2) == HK_OK;
            i += 2;
            continue;
        }
        if (strchr("+-*/%(),", ch)) {
            ok = hk_buf_append(&b, &ch, 1) == HK_OK;
            if (ch == ',')
                ok = ok && hk_buf_appends(&b, " ") == HK_OK;
            i++;
            continue;
        }
        ok = false;
    }
    char *out = ok ? hk_buf_steal(&b) : NULL;
    hk_buf_free(&b);
    if (out && (strstr(out, "<<") || strstr(out, ">>"))) {
        /* #define WARP_SIZE (1U << LOG2_WARP_SIZE): a constant with shifts is its value */
        long long v;
        char *folded = sk_fold_shifts(out, &v) ? hk_asprintf("%lld", v) : NULL;
        hk_free(out);
        out = folded;
    }
    expr *e = NULL;
    if (!out || expr_parse(out, &e, NULL, 0) != HK_OK) {
        hk_free(out);
        return NULL;
    }
    expr_free(e);
    return out;
}

static bool pp_defined(const char *t, size_t len, const char *name, size_t nl);

/* Whether text names a #define or constexpr constant of the kernel's or the launch's file. */
static bool sk_mentions_tunable(const skel *k, const char *text)
{
    for (const char *p = text; p && *p;) {
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *q = p;
            while (isalnum((unsigned char)*q) || *q == '_')
                q++;
            char w[128];
            snprintf(w, sizeof w, "%.*s", (int)(q - p), p);
            if (sk_tunable_value(k, w) || pp_defined(k->text, k->len, w, strlen(w)) ||
                (k->site_text && pp_defined(k->site_text, k->site_len, w, strlen(w))))
                return true;
            p = q;
        } else {
            p++;
        }
    }
    return false;
}

/* Splits "dim3(a, b)" into its parts (new strings); anything else is one part. */
static size_t sk_split_dims(const char *t, char **parts)
{
    while (isspace((unsigned char)*t))
        t++;
    if (strncmp(t, "dim3", 4) != 0 || (t[4] != '(' && t[4] != '{')) {
        parts[0] = hk_strdup(t);
        return parts[0] ? 1 : 0;
    }
    const char *p = t + 5;
    size_t n = 0;
    int depth = 0;
    const char *s = p;
    for (; *p && n < 3; p++) {
        if (*p == '(' || *p == '{')
            depth++;
        else if ((*p == ')' || *p == '}') && depth > 0)
            depth--;
        else if ((*p == ',' && depth == 0) || ((*p == ')' || *p == '}') && depth == 0)) {
            parts[n] = hk_strndup(s, (size_t)(p - s));
            if (!parts[n])
                break;
            n++;
            s = p + 1;
            if (*p != ',')
                break;
        }
    }
    return n;
}

static void sk_add_var(skel *k, const char *name)
{
    for (size_t i = 0; i < k->n_vars; i++)
        if (!strcmp(k->vars[i], name))
            return;
    for (size_t i = 0; i < HK_ARRAY_LEN(launch_vars); i++)
        if (!strcmp(launch_vars[i], name))
            return;
    if (k->n_vars == SK_MAX_VARS)
        return;
    if (!(k->vars[k->n_vars] = hk_strdup(name)))
        k->nomem = true;
    else
        k->n_vars++;
}

static int sk_collect_cb(const char *name, void *ctx)
{
    sk_add_var(ctx, name);
    return 0;
}

static void sk_collect(skel *k, const char *t)
{
    expr *e = NULL;
    if (t && expr_parse(t, &e, NULL, 0) == HK_OK) {
        expr_foreach_var(e, sk_collect_cb, k);
        expr_free(e);
    }
}

/* "(X + 255) / 256" or "(X + 256 - 1) / 256" with 256 the block size -> "ceil_div(X, block_v)". */
static char *sk_ceil_div(const char *t, long long block, const char *bvar)
{
    char c[SK_MAX_TEXT * 4 + 1];
    size_t n = 0;
    for (const char *p = t; *p && n + 1 < sizeof c; p++)
        if (!isspace((unsigned char)*p))
            c[n++] = *p;
    c[n] = '\0';
    if (c[0] != '(')
        return NULL;
    int depth = 0;
    size_t close = 0;
    for (size_t i = 0; i < n; i++) {
        depth += c[i] == '(';
        depth -= c[i] == ')';
        if (depth == 0) {
            close = i;
            break;
        }
    }
    char *end = NULL;
    if (close == 0 || c[close + 1] != '/' || strtoll(c + close + 2, &end, 10) != block || *end)
        return NULL;
    c[close] = '\0';
    char *inner = c + 1;
    char tail1[48], tail2[48];
    snprintf(tail1, sizeof tail1, "+%lld", block - 1);
    snprintf(tail2, sizeof tail2, "+%lld-1", block);
    size_t il = strlen(inner);
    for (int v = 0; v < 2; v++) {
        const char *tail = v ? tail2 : tail1;
        size_t tl = strlen(tail);
        if (il > tl && strcmp(inner + il - tl, tail) == 0) {
            /* the X part must stand alone: no lower-precedence operator at depth 0 after it */
            inner[il - tl] = '\0';
            expr *e = NULL;
            if (expr_parse(inner, &e, NULL, 0) != HK_OK)
                return NULL;
            expr_free(e);
            return hk_asprintf("ceil_div(%s, %s)", inner, bvar);
        }
    }
    return NULL;
}

/* 0: written only (output); 1: read too (inout); 2: elements are atomic targets
 * (accumulators); 3: the pointer itself is one (a single accumulator, count 1). */
static int sk_pointer_use(const char *t, size_t s, size_t e, const char *name)
{
    size_t wl = strlen(name);
    int use = 0;
    if (!*name)
        return 0;
    for (size_t i = s; i + wl <= e; i++) {
        if (!word_at(t, e, i, name, wl))
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

/* A dimension as JSON: an integer when it is one, else the expression string. */
static json_t *sk_dim_json(const char *d)
{
    char *end = NULL;
    long long v = strtoll(d, &end, 10);
    return *d && !*end ? json_integer(v) : json_string(d);
}

static json_t *sk_dims_json(char **dims, size_t n)
{
    if (n == 1)
        return sk_dim_json(dims[0]);
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, sk_dim_json(dims[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* dtype name for an element type (T mapped through the template's type parameters),
 * and the vector width for float4 and friends. */
static const char *sk_dtype_or_null(const char *elem, char **type_params, size_t n_tp, int *width)
{
    *width = 1;
    if (!strcmp(elem, "bool")) /* one byte, like uint8 */
        return "uint8";
    for (size_t i = 0; i < n_tp; i++)
        if (!strcmp(type_params[i], elem))
            return "float";
    int dt;
    if (spec_dtype_parse(elem, &dt) == HK_OK)
        return hk_dtype_name(dt);
    if (!strcmp(elem, "unsigned long long int") || !strcmp(elem, "long long int"))
        return !strncmp(elem, "unsigned", 8) ? "uint64" : "int64";
    size_t l = strlen(elem);
    if (l > 1 && isdigit((unsigned char)elem[l - 1])) {
        char base[64];
        snprintf(base, sizeof base, "%.*s", (int)(l - 1), elem);
        static const struct { const char *vec, *dt; } vecs[] = {
            { "float", "float" }, { "double", "double" }, { "int", "int32" }, { "uint", "uint32" },
            { "half", "half" }, { "__half", "half" }, { "char", "int8" }, { "uchar", "uint8" },
            { "short", "int16" }, { "longlong", "int64" }, { "__nv_bfloat16", "bfloat16" },
        };
        for (size_t i = 0; i < HK_ARRAY_LEN(vecs); i++)
            if (!strcmp(vecs[i].vec, base)) {
                *width = elem[l - 1] - '0';
                return vecs[i].dt;
            }
    }
    return NULL;
}

/* The spec dtype of a C element type; "float" for one the harness does not know (a struct,
 * an unresolved template parameter): sk_dtype_known says which. */
static const char *sk_dtype(const char *elem, char **type_params, size_t n_tp, int *width)
{
    const char *dt = sk_dtype_or_null(elem, type_params, n_tp, width);
    return dt ? dt : "float";
}

static bool sk_dtype_known(const char *elem)
{
    int width;
    return sk_dtype_or_null(elem, NULL, 0, &width) != NULL;
}

static double sk_float_default(const char *name)
{
    if (!strcmp(name, "eps") || !strcmp(name, "epsilon"))
        return 1e-5;
    if (!strcmp(name, "base") || !strcmp(name, "theta"))
        return 10000.0;
    if (!strcmp(name, "beta"))
        return 0.5;
    if (!strcmp(name, "scale"))
        return 0.125;
    return 1.5;
}

static bool sk_dim_like(const char *v)
{
    return strstr(v, "dim") || !strcmp(v, "d") || !strcmp(v, "D") || !strcmp(v, "hd");
}


/* ---- what the skeleton guessed ---- */

static void sk_list(skel *k, char **list, size_t *n, const char *fmt, va_list ap)
{
    if (*n == SK_MAX_NOTES)
        return;
    char tmp[512];
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    char *s = hk_strdup(tmp);
    if (!s) {
        k->nomem = true;
        return;
    }
    /* a note is one plain line: the spec keeps it as a string of its "inferred" list */
    for (char *p = s; *p; p++)
        if (strchr(";{}\"\n", *p))
            *p = *p == '"' ? '\'' : ' ';
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(list[i], s)) {
            hk_free(s);
            return;
        }
    list[(*n)++] = s;
}

static void sk_note(skel *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sk_note(skel *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sk_list(k, k->notes, &k->n_notes, fmt, ap);
    va_end(ap);
}

static void sk_doubt(skel *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sk_doubt(skel *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sk_list(k, k->doubts, &k->n_doubts, fmt, ap);
    va_end(ap);
}

static int sk_line(const skel *k, size_t byte)
{
    int line = 1;
    for (size_t i = 0; i < byte && i < k->len; i++)
        line += k->text[i] == '\n';
    return line;
}

/* The line of a byte of the launch site's text. */
static int sk_site_line(const skel *k, size_t byte)
{
    int line = 1;
    for (size_t i = 0; i < byte && i < k->site_len; i++)
        line += k->site_text[i] == '\n';
    return line;
}

static void sk_map(skel *k, const char *from, const char *to)
{
    if (k->n_map == SK_MAX_MAP || !from || !to)
        return;
    k->map_from[k->n_map] = hk_strdup(from);
    k->map_to[k->n_map] = hk_strdup(to);
    if (!k->map_from[k->n_map] || !k->map_to[k->n_map]) {
        hk_free(k->map_from[k->n_map]);
        hk_free(k->map_to[k->n_map]);
        k->nomem = true;
        return;
    }
    k->n_map++;
}

/* ---- the kernel's index math ---- */

#define KF_MAX_INDEX 32

enum { IX_THREAD, IX_BLOCK, IX_LOOP };

typedef struct {
    char name[64];
    int dim;            /* 0..2 (x, y, z); -1 for a loop counter */
    int kind;           /* IX_* */
    char *bound;        /* C text (kernel terms) of the exclusive bound, or NULL */
    int bound_line;
    /* IX_THREAD whose block index is scaled by something other than blockDim or the one
     * constant the block is pinned at (blockIdx.x * tile + threadIdx.x): its bound says
     * nothing about how many blocks cover it */
    bool odd_stride;
    int line;
} kf_index;

typedef struct {
    kf_index idx[KF_MAX_INDEX];
    size_t n_idx;
    bool uses_dim[3];    /* blockIdx/threadIdx in that dimension */
    bool grid_stride;    /* gridDim appears: the kernel loops over the grid */
    bool bounds_checked; /* a thread or block index is compared with a bound */
    long long fixed_block; /* block size the index math hard-codes (blockIdx.x * 256), or 0 */
    int fixed_line;
    const char *fixed_why;
} kfacts;

static void kf_free(kfacts *f)
{
    for (size_t i = 0; i < f->n_idx; i++)
        hk_free(f->idx[i].bound);
}

/* The text [s, e) with the matching close of an opener at s - 1: the index of the first
 * depth-0 stop character at or after s (or e). */
static size_t kf_expr_end(const char *t, size_t s, size_t e, const char *stops)
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

/* A literal (or a #define/constexpr constant) multiplying blockIdx.D where blockDim.D
 * would be: the block size the kernel assumes. */
static long long kf_fixed_factor(const skel *k, const char *t, size_t s, size_t e)
{
    static const char *const bi[3] = { "blockIdx.x", "blockIdx.y", "blockIdx.z" };
    for (int d = 0; d < 1; d++) {
        size_t wl = strlen(bi[d]);
        for (size_t i = s; i + wl <= e; i++) {
            if (memcmp(t + i, bi[d], wl))
                continue;
            /* blockIdx.x * LIT or LIT * blockIdx.x */
            size_t j = i + wl;
            while (j < e && isspace((unsigned char)t[j]))
                j++;
            char word[64] = "";
            if (j < e && t[j] == '*') {
                j++;
                while (j < e && isspace((unsigned char)t[j]))
                    j++;
                size_t w = 0;
                while (j < e && w + 1 < sizeof word && (isalnum((unsigned char)t[j]) || t[j] == '_'))
                    word[w++] = t[j++];
                word[w] = '\0';
            } else {
                size_t b = i;
                while (b > s && isspace((unsigned char)t[b - 1]))
                    b--;
                if (b > s && t[b - 1] == '*') {
                    b--;
                    while (b > s && isspace((unsigned char)t[b - 1]))
                        b--;
                    size_t w = b;
                    while (w > s && (isalnum((unsigned char)t[w - 1]) || t[w - 1] == '_'))
                        w--;
                    snprintf(word, sizeof word, "%.*s", (int)(b - w), t + w);
                }
            }
            if (!word[0] || !strncmp(word, "blockDim", 8))
                continue;
            const char *v = word;
            if (!isdigit((unsigned char)word[0]))
                v = sk_tunable_value(k, word);
            if (!v) /* a template parameter's value (from the launch or an instantiation) */
                v = sk_mapped(k, word);
            char *end = NULL;
            long long n = v ? strtoll(v, &end, 10) : 0;
            if (v && end && (*end == '\0' || strchr("uUlL", *end)) && n >= 1 && n <= 1024)
                return n;
        }
    }
    return 0;
}

static void kf_scan(skel *k, const an_function *f, kfacts *kf)
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
                    kf->fixed_why = "the index math multiplies blockIdx.x by it";
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
            if (!word_at(t, e, i, x->name, wl))
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
static char *kf_bound_spec(skel *k, const kf_index *x)
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

static bool kf_only_sizes(skel *k, const char *t)
{
    expr *e = NULL;
    if (!t || expr_parse(t, &e, NULL, 0) != HK_OK)
        return false;
    int rc = expr_foreach_var(e, kf_var_known_cb, k);
    expr_free(e);
    return rc == 0;
}

/* ---- buffer counts ---- */

/* Count of pointer parameter name from its subscripts in the body: every index variable
 * replaced by its largest value (bound - 1), the largest subscript plus one. New string,
 * or NULL when one subscript cannot be bounded. */
static char *kf_count_from_index(skel *k, const an_function *f, kfacts *kf, const char *name)
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
        if (!word_at(t, e, i, name, wl) || (i > s && (t[i - 1] == '.' || t[i - 1] == '>')))
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

/* A size: a scalar parameter or a named constant, the same for every thread. */
static bool kc_size_atom(const km_kernel *km, uint32_t id)
{
    size_t n = 0;
    const km_atom *a = km_atoms(km, &n);
    return id < n && (a[id].kind == KM_ATOM_PARAM || a[id].kind == KM_ATOM_CONST);
}

static bool kc_term_sized(const km_kernel *km, const km_term *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (!kc_size_atom(km, t->atoms[i]))
            return false;
    return true;
}

static bool kc_form_sized(const km_kernel *km, km_form f)
{
    for (uint32_t i = 0; i < f.n; i++)
        if (!kc_term_sized(km, &f.t[i]))
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
static bool kc_divide(const km_kernel *km, const km_term *t, const km_term *g, km_term *m)
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
} kc_bound;

/* Bounds known besides the access's guards and loops. */
typedef struct {
    const kc_bound *extra; /* a read value below a limit (kg_gathers), or NULL */
    bool grid[3];          /* blockIdx.d is below the launch's grid dimension d, which the
                            * skeleton maps from kc_grid_names[d] (sk_map_grid) */
    bool threads[3];       /* the global thread index along d is below the threads the
                            * spec launches along d, kc_thread_names[d] (sk_map_threads) */
    long long block[3];    /* the block the spec launches (threadIdx.d < block[d]); 0:
                            * not known */
} kc_limits;

static const char *const kc_grid_names[3] = { "hk_grid_x", "hk_grid_y", "hk_grid_z" };
static const char *const kc_thread_names[3] = { "hk_threads_x", "hk_threads_y", "hk_threads_z" };

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
static bool kc_builtin_term(const km_kernel *km, const km_term *t, enum km_atom_kind a, int b, km_term *m,
                            int *axis)
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
    return seen_a && seen_b && t->coef > 0;
}

/* The largest value of the global thread index along an axis in p, where no guard bounds
 * it: m * threadIdx.d plus, when the term is there too, m * blockIdx.d * blockDim.d. With
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
    if (kc_builtin_term(km, &p->t[at], KM_ATOM_BLOCK_IDX, KM_ATOM_BLOCK_DIM, &m, &d)) {
        for (size_t i = 0; i < p->n && other < 0; i++)
            if (kc_builtin_term(km, &p->t[i], KM_ATOM_THREAD_IDX, -1, &m2, &d2) && d2 == d &&
                m2.coef == m.coef && kc_same_atoms(&m, &m2))
                other = (long)i;
        if (other < 0)
            return false;
        tid_at = (size_t)other;
    } else if (kc_builtin_term(km, &p->t[at], KM_ATOM_THREAD_IDX, -1, &m, &d)) {
        for (size_t i = 0; i < p->n && other < 0; i++)
            if (kc_builtin_term(km, &p->t[i], KM_ATOM_BLOCK_IDX, KM_ATOM_BLOCK_DIM, &m2, &d2) && d2 == d &&
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
        if ((lt || le) && kc_form_sized(km, g->rhs) && !kc_form_sized(km, g->lhs))
            bd[nb++] = (kc_bound){ .lhs = g->lhs, .rhs = g->rhs, .le = le };
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
        nb++;
    }
    if (lim && lim->extra && nb < KC_BOUNDS)
        bd[nb++] = *lim->extra;
    kc_poly rest = { .n = 0 };
    km_term one = { .coef = 1, .n = 0 };
    struct hk_buf divmod; /* " + bound" of each x / d and x % d term */
    hk_buf_init(&divmod, SK_MAX_TEXT);
    bool ok = true;
    for (uint32_t i = 0; i < form.n && ok; i++) {
        struct hk_buf one_term;
        hk_buf_init(&one_term, SK_MAX_TEXT);
        if (kc_divmod_term(km, a, &form.t[i], lim, depth, &one_term))
            ok = one_term.data && hk_buf_appends(&divmod, one_term.data) == HK_OK;
        else
            ok = kc_add(&rest, &one, &form.t[i], 1);
        hk_buf_free(&one_term);
    }
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
        for (size_t i = 0; i < nb && !split; i++)
            for (uint32_t j = 0; j < bd[i].lhs.n && !split; j++) {
                if (kc_term_sized(km, &bd[i].lhs.t[j]) || !kc_divide(km, &t, &bd[i].lhs.t[j], &m))
                    continue;
                for (uint32_t q = 0; q < bd[i].lhs.n; q++)
                    ok &= kc_add(&rest, &m, &bd[i].lhs.t[q], -1);
                ok &= kc_add(&mult[i], &one, &m, 1);
                split = true;
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
static bool kc_moved_once(const skel *k, const char *name, bool stride_grid)
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

/* Count of buffer from the model: the largest element any global access of it can reach,
 * plus one, in spec terms (kernel parameters replaced by their launch values). New
 * string, or NULL when one access cannot be bounded or the kernel has no model. */
static char *kc_count(skel *k, const char *buffer)
{
    if (!k->km)
        return NULL;
    size_t n = 0;
    const km_access *acc = km_accesses(k->km, &n);
    char *res = NULL;
    for (size_t i = 0; i < n; i++) {
        if (acc[i].space != KM_SPACE_GLOBAL || !acc[i].buffer || strcmp(acc[i].buffer, buffer))
            continue;
        if (acc[i].has_entry_element != (kc_moved_param(k->km, buffer) != 0)) {
            hk_free(res); /* an access of a moved parameter the model could not place */
            return NULL;
        }
        struct hk_buf b;
        hk_buf_init(&b, SK_MAX_TEXT);
        kc_limits lim = { .extra = NULL };
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

/* The exclusive bound (spec terms) of the global thread index along axis d that a guard of
 * the model compares, e.g. `if (idx < n)` with idx = blockIdx.x * blockDim.x + threadIdx.x
 * computed through temporaries; *line gets the guard's line. New string or NULL. */
static char *kc_axis_bound(skel *k, int d, int *line)
{
    if (!k->km)
        return NULL;
    size_t n = 0;
    const km_guard *g = km_guards(k->km, &n);
    for (size_t i = 0; i < n; i++) {
        bool le = !strcmp(g[i].op, "<=");
        if ((strcmp(g[i].op, "<") && !le) || !km_form_is_global_index(k->km, g[i].lhs, d) ||
            !kc_form_sized(k->km, g[i].rhs))
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

/* The bound of the outermost grid-stride loops (for (i = tid; i < bound; i += stride)) in
 * spec terms, when made of size variables only: the elements the grid covers (mmcv's
 * CUDA_1D_KERNEL_LOOP(i, nthreads) gives nthreads; loops over n and n * m on two branches,
 * as in bbox_overlaps, give max(n, n * m), so neither runs on a grid sized for the other).
 * *line gets the first one's line. New string, or NULL when no such loop has a sized bound. */
static char *kc_stride_bound(skel *k, int *line)
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

/* Does the model list a grid-stride loop (gridDim in the text may be a last block's test)? */
static bool kc_has_grid_stride(const skel *k)
{
    size_t n = 0;
    const km_loop *l = k->km ? km_loops(k->km, &n) : NULL;
    for (size_t i = 0; i < n; i++)
        if (l[i].kind == KM_LOOP_GRID_STRIDE)
            return true;
    return !k->km;
}

/* How a 2-D kernel without bounds checks tiles a matrix (kc_row_tiles). */
typedef struct {
    long long cx, cy; /* the block the index math assumes along x (when bx) and y */
    bool bx;          /* blockIdx.x in the index: tiles side by side; else one block wide */
    char *stride;     /* the row stride S in spec terms (new) */
    bool store;       /* one of the writes stores to an output (not an inout) */
} kc_rows;

/* Does every write of the kernel that moves with threadIdx.y or blockIdx.y store row
 * (cy * blockIdx.y + threadIdx.y) of a matrix of row stride S, at column (cx * blockIdx.x)
 * + threadIdx.x, plus sized terms: S * (cy*by + ty) + cx*bx + tx + rest? Rodinia's srad
 * and backprop, cuda-samples' matrixMul write so. With such a write the rows a grid covers
 * are the grid's to choose (one size of the kernel's that it never reads) and the counts
 * follow it; the columns are S when the tiles go side by side. */
static bool kc_row_tiles(skel *k, const an_function *f, kc_rows *r)
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
 * GEMV's 2*M*N, an elementwise kernel's operations per element times the output's
 * count (counts: the spec text of each parameter's count, by parameter index). New
 * string and a note, or NULL. */
static char *kc_flops(skel *k, const an_function *f, char *const *counts, const bool *count_sure)
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
        bool ok = hk_buf_appends(&b, "2") == HK_OK;
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
            sk_note(k, "flops: 2 per multiply-add of the %s the kernel model recognises (%s)",
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
                    sk_note(k, "flops: %ld per element of %s, from the value the kernel model "
                            "shows it stores", ops, c.out);
            }
    }
    if (res && !kf_only_sizes(k, res)) {
        hk_free(res);
        res = NULL;
    }
    return res;
}

static long sk_type_size(const char *t)
{
    static const struct { const char *name; long size; } sizes[] = {
        { "float", 4 }, { "double", 8 }, { "int", 4 }, { "unsigned", 4 }, { "unsigned int", 4 },
        { "half", 2 }, { "__half", 2 }, { "__nv_bfloat16", 2 }, { "char", 1 }, { "unsigned char", 1 },
        { "uint8_t", 1 }, { "int8_t", 1 }, { "short", 2 }, { "int16_t", 2 }, { "uint16_t", 2 },
        { "int32_t", 4 }, { "uint32_t", 4 }, { "long", 8 }, { "long long", 8 }, { "int64_t", 8 },
        { "uint64_t", 8 }, { "size_t", 8 }, { "float2", 8 }, { "float4", 16 }, { "double2", 16 },
        { "int2", 8 }, { "int4", 16 },
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(sizes); i++)
        if (!strcmp(sizes[i].name, t))
            return sizes[i].size;
    return 0;
}

/* Replaces sizeof(T) by its size and NAME.size() by a vector's constructor argument in
 * host text. New string or NULL when a sizeof cannot be resolved. */
static void sk_resolve_type(const skel *k, const char *elem, char *cur, size_t n);
static void sk_resolve_pointee(const skel *k, const char *elem, char *cur, size_t n);

static char *sk_host_text(skel *k, const char *c, long elem_size, const char *elem)
{
    struct hk_buf b;
    hk_buf_init(&b, 4 * SK_MAX_TEXT);
    size_t n = strlen(c);
    bool ok = true;
    for (size_t i = 0; i < n && ok;) {
        if (!strncmp(c + i, "sizeof", 6) && (i == 0 || !(isalnum((unsigned char)c[i - 1]) || c[i - 1] == '_'))) {
            size_t j = i + 6;
            while (j < n && isspace((unsigned char)c[j]))
                j++;
            if (j >= n || c[j] != '(') {
                ok = false;
                break;
            }
            size_t ce = kf_expr_end(c, j + 1, n, "");
            char inner[128];
            snprintf(inner, sizeof inner, "%.*s", (int)(ce - j - 1), c + j + 1);
            long sz = sk_type_size(inner);
            char resolved[96];
            sk_resolve_pointee(k, inner, resolved, sizeof resolved); /* sizeof(uint), a typedef */
            if (!sz)
                sz = sk_type_size(resolved);
            if (!sz && (!strcmp(inner, elem) || !strcmp(resolved, elem) || strchr(inner, '[') ||
                        strchr(inner, '*')))
                sz = elem_size; /* sizeof(T), sizeof(x[0]), sizeof(*x) */
            if (!sz) {
                ok = false;
                break;
            }
            ok = hk_buf_printf(&b, "%ld", sz) == HK_OK;
            i = ce + 1;
            continue;
        }
        /* NAME.size() of a std::vector<...> NAME(EXPR) */
        if (isalpha((unsigned char)c[i]) || c[i] == '_') {
            size_t j = i;
            while (j < n && (isalnum((unsigned char)c[j]) || c[j] == '_'))
                j++;
            if (!strncmp(c + j, ".size()", 7)) {
                char vname[64];
                snprintf(vname, sizeof vname, "%.*s", (int)(j - i), c + i);
                char *init = sk_local_init(k, vname);
                bool vec = init && !strncmp(init, "dim3(", 5) == 0 && false;
                (void)vec;
                hk_free(init);
                /* find "NAME(" after a template close in the caller */
                size_t vl = strlen(vname);
                char *arg = NULL;
                for (size_t p = k->body_start; p + vl < k->body_end && !arg; p++) {
                    if (!word_at(k->site_text, k->body_end, p, vname, vl))
                        continue;
                    size_t q = p;
                    while (q > k->body_start && isspace((unsigned char)k->site_text[q - 1]))
                        q--;
                    size_t r = p + vl;
                    if (q == k->body_start || k->site_text[q - 1] != '>' || r >= k->body_end ||
                        (k->site_text[r] != '(' && k->site_text[r] != '{'))
                        continue;
                    size_t re = kf_expr_end(k->site_text, r + 1, k->body_end, ",");
                    arg = hk_strndup(k->site_text + r + 1, re - r - 1);
                }
                ok = arg && hk_buf_printf(&b, "(%s)", arg) == HK_OK;
                hk_free(arg);
                i = j + 7;
                continue;
            }
            ok = hk_buf_append(&b, c + i, j - i) == HK_OK;
            i = j;
            continue;
        }
        ok = hk_buf_append(&b, c + i, 1) == HK_OK;
        i++;
    }
    char *out = ok ? hk_buf_steal(&b) : NULL;
    hk_buf_free(&b);
    return out;
}

/* The launch argument's variable: "d_x" for d_x, (float *)d_x, d_x.data(),
 * thrust::raw_pointer_cast(d_x.data()). New string or NULL. */
static char *sk_arg_name(const char *a)
{
    const char *p = a;
    const char *rp = strstr(p, "raw_pointer_cast(");
    if (rp)
        p = rp + 17;
    while (*p == '(' || isspace((unsigned char)*p)) {
        if (*p == '(') {
            const char *close = strchr(p, ')');
            /* a cast */
            if (close && strchr(p, '*') && strchr(p, '*') < close) {
                p = close + 1;
                continue;
            }
        }
        p++;
    }
    const char *s = p;
    while (isalnum((unsigned char)*p) || *p == '_')
        p++;
    if (p == s)
        return NULL;
    const char *rest = p;
    if (!strncmp(rest, ".data()", 7))
        rest += 7;
    while (*rest == ')' || isspace((unsigned char)*rest))
        rest++;
    return *rest ? NULL : hk_strndup(s, (size_t)(p - s));
}

/* BYTES / size as a count: "N*4" or "4*N" (N a product) is N, anything else
 * "(BYTES) / size". New string. */
static char *sk_div_size(const char *bytes, long size)
{
    char sz[24];
    int sl = snprintf(sz, sizeof sz, "%ld", size);
    size_t n = strlen(bytes);
    const char *rest = NULL;
    size_t rl = 0;
    if (n > (size_t)sl + 1 && !strcmp(bytes + n - sl, sz) && bytes[n - sl - 1] == '*' &&
        !isdigit((unsigned char)bytes[n - sl - 2])) {
        rest = bytes;
        rl = n - (size_t)sl - 1;
    } else if (n > (size_t)sl + 1 && !strncmp(bytes, sz, (size_t)sl) && bytes[sl] == '*') {
        rest = bytes + sl + 1;
        rl = n - (size_t)sl - 1;
    }
    int depth = 0;
    for (size_t i = 0; rest && i < rl; i++) {
        depth += rest[i] == '(';
        depth -= rest[i] == ')';
        if (depth == 0 && (rest[i] == '+' || rest[i] == '-' || rest[i] == '/' || rest[i] == '%'))
            rest = NULL;
    }
    return rest ? hk_strndup(rest, rl) : hk_asprintf("(%s) / %ld", bytes, size);
}

/* The value of a local of the caller that holds an allocation's size (`size_t bytes = n *
 * sizeof(float); cudaMalloc(&d, bytes)`): the initialiser of its one assignment, when it
 * is before byte at and nothing else changes it (no other =, op=, ++, --, nor &name).
 * New string or NULL. */
static char *sk_size_local(const skel *k, const char *name, size_t at)
{
    size_t wl = strlen(name);
    const char *t = k->site_text;
    size_t s = 0, e = 0;
    int sets = 0;
    for (size_t i = k->body_start; i + wl < k->body_end && sets < 2; i++) {
        if (!word_at(t, k->body_end, i, name, wl))
            continue;
        size_t b = i;
        while (b > k->body_start && isspace((unsigned char)t[b - 1]))
            b--;
        if (b > k->body_start && (t[b - 1] == '&' || (b >= k->body_start + 2 &&
                                   (t[b - 1] == '+' || t[b - 1] == '-') && t[b - 2] == t[b - 1]))) {
            sets += 2; /* &name, ++name, --name */
            continue;
        }
        size_t j = i + wl;
        while (j < k->body_end && isspace((unsigned char)t[j]))
            j++;
        if (j + 1 >= k->body_end)
            continue;
        char c = t[j], d = t[j + 1];
        if (c == '=' && d != '=') {
            sets++;
            s = j + 1;
            e = kf_expr_end(t, s, k->body_end, ",;");
        } else if ((strchr("+-*/%&|^", c) && d == '=') || (c == '<' && d == '<') || (c == '>' && d == '>') ||
                   ((c == '+' || c == '-') && d == c)) {
            sets += 2;
        }
    }
    if (sets != 1 || e >= k->body_end || e > at || e - s > SK_MAX_TEXT)
        return NULL;
    while (s < e && isspace((unsigned char)t[s]))
        s++;
    while (e > s && isspace((unsigned char)t[e - 1]))
        e--;
    return e > s ? hk_strndup(t + s, e - s) : NULL;
}

/* Count of the buffer passed as launch argument arg, from the host code before the launch:
 * cudaMalloc/hipMalloc(&arg, BYTES) or a vector's size. New string or NULL; *line set. */
/* The allocations of name in [s, e) of the launch's text: how many there are, and the
 * count (BYTES / elem_size in spec terms, *line set) of the first one whose size
 * translates; into *res (new string) when res is not NULL. */
static int sk_mallocs(skel *k, const char *name, size_t s, size_t e, long elem_size, const char *elem,
                      bool constant_only, char **res, int *line)
{
    static const char *const fns[] = { "cudaMalloc", "hipMalloc", "cudaMallocManaged", "hipMallocManaged" };
    const char *t = k->site_text;
    int n = 0;
    for (size_t i = s; i < e; i++) {
        size_t fl = 0;
        for (size_t f = 0; f < HK_ARRAY_LEN(fns); f++) {
            size_t l = strlen(fns[f]);
            if (word_at(t, e, i, fns[f], l))
                fl = l;
        }
        if (!fl)
            continue;
        size_t j = i + fl;
        while (j < e && isspace((unsigned char)t[j]))
            j++;
        if (j >= e || t[j] != '(')
            continue;
        size_t a1 = kf_expr_end(t, j + 1, e, ",");
        if (a1 >= e || t[a1] != ',')
            continue;
        size_t a2 = kf_expr_end(t, a1 + 1, e, ",");
        /* the first argument names the pointer: &d_x, (void **)&d_x, reinterpret_cast<...>(&d_x) */
        char first[256];
        snprintf(first, sizeof first, "%.*s", (int)(a1 - j - 1), t + j + 1);
        char *amp = strrchr(first, '&');
        if (!amp)
            continue;
        char *nm = amp + 1;
        while (isspace((unsigned char)*nm))
            nm++;
        size_t nl = 0;
        while (isalnum((unsigned char)nm[nl]) || nm[nl] == '_')
            nl++;
        if (nl != strlen(name) || strncmp(nm, name, nl))
            continue;
        n++;
        if (!res || *res)
            continue;
        char *bytes = hk_strndup(t + a1 + 1, a2 - a1 - 1);
        char word[64];
        if (bytes && sscanf(bytes, " %63[A-Za-z0-9_] %c", word, (char[2]){0}) == 1 && is_identifier(word)) {
            char *v = sk_size_local(k, word, i);
            if (v) {
                hk_free(bytes);
                bytes = v;
            }
        }
        char *host = bytes ? sk_host_text(k, bytes, elem_size, elem) : NULL;
        char *tr = host ? sk_translate(k, host, 0) : NULL;
        expr *x = NULL;
        expr_value v;
        bool constant = tr && expr_parse(tr, &x, NULL, 0) == HK_OK && expr_eval(x, NULL, 0, &v, NULL, 0) == HK_OK;
        expr_free(x);
        if (tr && (constant || (!constant_only && kf_only_sizes(k, tr)))) {
            *res = sk_div_size(tr, elem_size);
            *line = sk_site_line(k, i);
        }
        hk_free(tr);
        hk_free(host);
        hk_free(bytes);
    }
    return n;
}

/* Whether the caller body declares name (a local pointer: `float *name`). */
static bool sk_declared_locally(const skel *k, const char *name)
{
    size_t wl = strlen(name);
    const char *t = k->site_text;
    for (size_t i = k->body_start; i + wl <= k->body_end; i++) {
        if (!word_at(t, k->body_end, i, name, wl))
            continue;
        size_t b = i;
        while (b > k->body_start && isspace((unsigned char)t[b - 1]))
            b--;
        if (b > k->body_start && (t[b - 1] == '*' || isalnum((unsigned char)t[b - 1]) || t[b - 1] == '_' ||
                                  t[b - 1] == '>'))
            return true;
    }
    return false;
}

/* Count of the buffer passed as launch argument arg, from the host code: cudaMalloc/
 * hipMalloc(&arg, BYTES) or a vector's size in the caller before the launch; for a
 * file-scope pointer (not declared in the caller), its one allocation anywhere in the file
 * (an init function's), when the size is a constant there: that function's own names
 * mean nothing at the launch. New string or NULL; *line set. */
static char *sk_count_from_host(skel *k, const char *arg, long elem_size, const char *elem, int *line)
{
    char *name = arg ? sk_arg_name(arg) : NULL;
    char *res = NULL;
    if (!name || !elem_size)
        goto out;
    sk_mallocs(k, name, k->body_start, k->body_end, elem_size, elem, false, &res, line);
    if (!res && k->body_end > k->body_start && !sk_declared_locally(k, name) &&
        sk_mallocs(k, name, 0, k->site_len, elem_size, elem, true, NULL, line) == 1)
        sk_mallocs(k, name, 0, k->site_len, elem_size, elem, true, &res, line);
out:
    hk_free(name);
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

static bool sk_load_call(const char *t, size_t s, size_t a)
{
    return sk_intrinsic_call(t, s, a, true);
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
        if (!word_at(t, e, at, name, wl) ||
            (at > s && (t[at - 1] == '.' || t[at - 1] == '>' || (not_deref && t[at - 1] == '*'))))
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

/* The local pointer that the use of a pointer at byte at (t, body from s) initialises:
 * `T *q = name ...;` with name first after the '=', the statement a declaration of q alone.
 * Its name into out (cap bytes), or false. */
static bool sk_pointer_init_of(const char *t, size_t s, size_t at, char *out, size_t cap)
{
    size_t b = at;
    while (b > s && isspace((unsigned char)t[b - 1]))
        b--;
    if (b <= s || t[b - 1] != '=' || (b >= s + 2 && strchr("=!<>+-*/%&|^", t[b - 2])))
        return false;
    b--;
    while (b > s && isspace((unsigned char)t[b - 1]))
        b--;
    size_t ne = b;
    while (b > s && (isalnum((unsigned char)t[b - 1]) || t[b - 1] == '_'))
        b--;
    size_t ns = b;
    while (b > s && isspace((unsigned char)t[b - 1]))
        b--;
    if (ns == ne || ne - ns >= cap || b <= s || t[b - 1] != '*')
        return false;
    b--;
    /* the type: words alone back to the statement's start, on the declarator's line (a
     * comment on the line before is no part of it) */
    size_t words = 0;
    for (;;) {
        while (b > s && (t[b - 1] == ' ' || t[b - 1] == '\t'))
            b--;
        if (b == s || t[b - 1] == ';' || t[b - 1] == '{' || t[b - 1] == '}' || t[b - 1] == '\n')
            break;
        size_t we = b;
        while (b > s && (isalnum((unsigned char)t[b - 1]) || t[b - 1] == '_' || t[b - 1] == ':'))
            b--;
        if (b == we)
            return false;
        if (we - b == 6 && !memcmp(t + b, "return", 6))
            return false;
        words++;
    }
    if (!words)
        return false;
    memcpy(out, t + ns, ne - ns);
    out[ne - ns] = '\0';
    return true;
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
    static const char *const keywords[] = { "return", "else", "do" };
    for (size_t k = 0; k < HK_ARRAY_LEN(keywords); k++)
        if (we - b == strlen(keywords[k]) && !memcmp(t + b, keywords[k], we - b))
            return false;
    return b < we;
}

static bool sk_pointer_written_at(const char *t, size_t s, size_t e, const char *name, int depth);

/* 0: never written; 1: written; the atomic cases count as written. */
static bool sk_pointer_written(const char *t, size_t s, size_t e, const char *name)
{
    return sk_pointer_written_at(t, s, e, name, 0);
}

static bool sk_pointer_written_at(const char *t, size_t s, size_t e, const char *name, int depth)
{
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
                return true;
            continue;
        }
        /* T *q = name + off;: written only where q is (one level of such locals followed) */
        char local[64];
        if (j < e && (t[j] == ';' || t[j] == '+' || t[j] == '-') && depth < 2 &&
            sk_pointer_init_of(t, s, i, local, sizeof local) && strcmp(local, name) != 0) {
            size_t stmt_end = kf_expr_end(t, j, e, ";");
            bool plain = true; /* the rest of the initialiser only reads */
            for (size_t q = j; q < stmt_end && plain; q++)
                plain = !(t[q] == '=' || (q + 1 < stmt_end && ((t[q] == '+' && t[q + 1] == '+') ||
                                                                (t[q] == '-' && t[q + 1] == '-'))));
            if (plain && !sk_pointer_written_at(t, s, e, local, depth + 1))
                continue;
            return true;
        }
        /* passed to a call, or its address taken, or offset into another pointer: the
         * callee may write it */
        if (j < e && (t[j] == ',' || t[j] == ')' || t[j] == '+' || t[j] == '-'))
            return true;
        bool subscripted = j < e && t[j] == '[';
        if (!subscripted && b > s && (t[b - 1] == '&' || t[b - 1] == '='))
            return true;
        /* c ? name : other, and the address of an element (float *o = &name[r * n]): another
         * pointer that may be written; only a load intrinsic's argument is not */
        if (!subscripted && b > s && (t[b - 1] == '?' || (t[b - 1] == ':' && !(b > s + 1 && t[b - 2] == ':'))))
            return true;
        if (subscripted && b > s && t[b - 1] == '&' && !(b > s + 1 && t[b - 2] == '&')) {
            size_t call = sk_enclosing_paren(t, s, b - 1);
            if (call == (size_t)-1 || !sk_load_call(t, s, call))
                return true;
        }
        if (b > s && t[b - 1] == '*' && !sk_pointer_declared_at(t, s, i)) {
            /* *name = ... */
            size_t q = j;
            if (q + 1 < e && t[q] == '=' && t[q + 1] != '=')
                return true;
        }
        if (j >= e || t[j] != '[')
            continue;
        size_t close = kf_expr_end(t, j + 1, e, "");
        size_t q = close + 1;
        while (q < e && isspace((unsigned char)t[q]))
            q++;
        if (q + 1 < e && ((t[q] == '=' && t[q + 1] != '=') || (strchr("+-*/%&|^", t[q]) && t[q + 1] == '=') ||
                          (t[q] == '+' && t[q + 1] == '+') || (t[q] == '-' && t[q + 1] == '-') ||
                          ((t[q] == '<' || t[q] == '>') && t[q + 1] == t[q] && q + 2 < e && t[q + 2] == '=')))
            return true;
        if (b >= s + 2 && ((t[b - 1] == '+' && t[b - 2] == '+') || (t[b - 1] == '-' && t[b - 2] == '-')))
            return true;
    }
    return false;
}

/* Where the body moves the pointer itself (name += off, name = ..., ++name): its subscripts
 * are then relative to a place they do not show, so they cannot give its count. The byte
 * of the first such statement, or 0 when there is none. */
static size_t sk_pointer_moved(const char *t, size_t s, size_t e, const char *name)
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
static size_t sk_pointer_derived(const char *t, size_t s, size_t e, const char *name)
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
static bool kc_accesses_resolved(const km_kernel *km, const an_function *f)
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
static uint32_t km_gather_line(const km_kernel *km, const an_function *f)
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

/* Spec expression text evaluated at one size set (a JSON object of integers). */
static bool sk_eval_at(const char *text, const json_t *set, long long *v)
{
    size_t n = json_object_size(set), i = 0;
    expr_var *vars = hk_calloc(n + 1, sizeof *vars);
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)set, key, val) {
        if (vars && i < n) {
            vars[i].name = key;
            vars[i++].value = (expr_value){ .i = json_integer_value(val) };
        }
    }
    expr *e = NULL;
    expr_value r;
    bool ok = vars && text && expr_parse(text, &e, NULL, 0) == HK_OK &&
              expr_eval(e, vars, i, &r, NULL, 0) == HK_OK && !r.is_float;
    if (ok)
        *v = r.i;
    expr_free(e);
    hk_free(vars);
    return ok;
}

/* ---- the launcher's asserts ---- */

#define SK_MAX_ASSERTS 32

/* One comparison an assert in the launcher makes (a conjunct of assert(a && b)), in spec
 * terms: both sides translated over the size variables. */
typedef struct {
    char *lhs, *rhs; /* owned */
    char op[3];      /* "<", "<=", ">", ">=", "==", "!=" */
    int line;
} sk_assert_cmp;

/* The top-level comparison of c (blank space and outer parentheses gone): its operator
 * into op and its byte, or -1 when there is none or more than one (a << b, p->n are none). */
static long sk_comparison(const char *c, char op[3])
{
    long at = -1;
    int depth = 0;
    for (size_t i = 0; c[i]; i++) {
        char ch = c[i];
        depth += (ch == '(' || ch == '[') - (ch == ')' || ch == ']');
        if (depth)
            continue;
        bool two = c[i + 1] == '=';
        bool cmp = (ch == '<' || ch == '>') ? c[i + 1] != ch && (i == 0 || (c[i - 1] != ch && c[i - 1] != '-'))
                                            : (ch == '=' || ch == '!') && two && (i == 0 || !strchr("<>=!", c[i - 1]));
        if (!cmp)
            continue;
        if (at >= 0)
            return -1;
        at = (long)i;
        op[0] = ch;
        op[1] = two ? '=' : '\0';
        op[2] = '\0';
        i += two;
    }
    return at;
}

/* The comparisons of the asserts in the launcher body before the launch, each conjunct of
 * assert(a && b) one; an assert with || at its top level, or a side that does not
 * translate, gives none. Into out (at most cap), their number returned. */
static size_t sk_launcher_asserts(skel *k, sk_assert_cmp *out, size_t cap)
{
    size_t n = 0;
    const char *t = k->site_text;
    for (size_t i = k->body_start; t && i + 7 < k->body_end && n < cap; i++) {
        if (!word_at(t, k->body_end, i, "assert", 6))
            continue;
        size_t j = i + 6;
        while (j < k->body_end && isspace((unsigned char)t[j]))
            j++;
        if (j >= k->body_end || t[j] != '(')
            continue;
        size_t close = j;
        for (int depth = 0; close < k->body_end; close++) {
            depth += (t[close] == '(') - (t[close] == ')');
            if (depth == 0)
                break;
        }
        if (close >= k->body_end || close - j - 1 > SK_MAX_TEXT)
            continue;
        char all[SK_MAX_TEXT + 1];
        if (!sk_bare(t + j + 1, close - j - 1, all, sizeof all))
            continue;
        /* the conjuncts, at top-level && (an || anywhere there makes none sure) */
        size_t starts[16], ends[16], nc = 0, st = 0;
        int depth = 0;
        bool any_or = false;
        size_t al = strlen(all);
        for (size_t q = 0; q <= al && nc < HK_ARRAY_LEN(starts); q++) {
            if (q < al) {
                depth += (all[q] == '(') - (all[q] == ')');
                any_or |= depth == 0 && all[q] == '|' && all[q + 1] == '|';
            }
            if (q == al || (depth == 0 && all[q] == '&' && all[q + 1] == '&')) {
                starts[nc] = st;
                ends[nc++] = q;
                st = q + 2;
                q++;
            }
        }
        for (size_t c = 0; c < nc && !any_or && n < cap; c++) {
            char part[SK_MAX_TEXT + 1], l[SK_MAX_TEXT + 1], r[SK_MAX_TEXT + 1];
            char op[3];
            long at;
            if (!sk_bare(all + starts[c], ends[c] - starts[c], part, sizeof part) ||
                (at = sk_comparison(part, op)) <= 0 || !sk_bare(part, (size_t)at, l, sizeof l) ||
                !sk_bare(part + at + strlen(op), strlen(part + at + strlen(op)), r, sizeof r))
                continue;
            char *tl = sk_translate(k, l, 0), *tr = sk_translate(k, r, 0);
            if (tl && tr) {
                out[n].lhs = tl;
                out[n].rhs = tr;
                memcpy(out[n].op, op, sizeof op);
                out[n++].line = sk_site_line(k, i);
            } else {
                hk_free(tl);
                hk_free(tr);
            }
        }
        i = close;
    }
    return n;
}

/* Whether comparison c holds at the sizes of set: 1 yes, 0 no, -1 cannot say (a side
 * names something that is no size). */
static int sk_assert_holds(const sk_assert_cmp *c, const json_t *set)
{
    long long l, r;
    if (!sk_eval_at(c->lhs, set, &l) || !sk_eval_at(c->rhs, set, &r))
        return -1;
    const char *op = c->op;
    bool ok = !strcmp(op, "<") ? l < r : !strcmp(op, "<=") ? l <= r : !strcmp(op, ">") ? l > r
            : !strcmp(op, ">=") ? l >= r : !strcmp(op, "==") ? l == r : l != r;
    return ok;
}

/* The largest value of size variable var that comparison c allows (var <= C, var < C,
 * C >= var, C > var with C a constant), or -1. */
static long long sk_assert_upper(const sk_assert_cmp *c, const char *var)
{
    const char *other = NULL;
    bool below = false, strict = c->op[1] == '\0';
    if (!strcmp(c->lhs, var) && c->op[0] == '<') {
        other = c->rhs;
        below = true;
    } else if (!strcmp(c->rhs, var) && c->op[0] == '>') {
        other = c->lhs;
        below = true;
    }
    long long v;
    json_t *none = json_object();
    bool ok = below && other && none && sk_eval_at(other, none, &v);
    json_decref(none);
    if (!ok || c->op[0] == '=' || c->op[0] == '!')
        return -1;
    v -= strict;
    return v >= 1 ? v : -1;
}

/* Whether every scalar parameter form f mentions (operands of its operations too) is
 * passed a number or a size variable that bounded fixes (>= 0): a subscript through them
 * then takes the values the program is written for. */
static bool kc_params_bounded(const skel *k, const an_function *f, km_form form, char *const *scal,
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
    bool written = !f->params[q].is_const &&
                   (sk_pointer_use(k->text, bs, be, qn) >= 2 || sk_pointer_written(k->text, bs, be, qn));
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
 * size set with the value read (atom read) below limit. */
static bool kg_inside(skel *k, const km_access *a, uint32_t read, long long limit, const char *count,
                      const json_t *const *sets, size_t n_sets)
{
    km_term counter = { .coef = 1, .n = 1, .atoms = { read } };
    km_term bound = { .coef = limit, .n = 0 };
    kc_bound extra = { .lhs = { .t = &counter, .n = 1 }, .rhs = { .t = &bound, .n = 1 } };
    kc_limits lim = { .extra = &extra };
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
 * subscript. Then every gather of f must read one such value alone (kg_read_term) and,
 * with that value below its limit, stay inside its buffer (kg_inside).
 * On success limit[q] is Q's limit (0 for a buffer that is no index) and *line the
 * first gather's line; false (limits unusable) when one gather is not such, Q is not an
 * integer input, a limit is below 2 (a constant input), or the textual scan's gather
 * (text_line, 0 for none) is none of the model's. */
static bool kg_gathers(skel *k, const an_function *f, size_t bs, size_t be, char *const *counts,
                       const json_t *const *sets, size_t n_sets, int text_line, long long *limit, int *line,
                       bool *compared)
{
    const km_kernel *km = k->km;
    size_t n = 0, na = 0;
    const km_access *ac = km ? km_accesses(km, &n) : NULL;
    const km_atom *atoms = km ? km_atoms(km, &na) : NULL;
    if (!ac)
        return false;
    for (size_t p = 0; p < HK_MAX_ARGS; p++) {
        limit[p] = 0;
        compared[p] = false;
    }
    *line = 0;
    bool any = false, seen_text = text_line == 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            int dest = kg_pointer_param(f, ac[i].buffer);
            if (dest < 0 || !km_form_reads(km, ac[i].index, 4))
                continue;
            /* the element form, as kc_access_extent reads it (grid-stride counters at 0:
             * the read value there is another atom than in the index) */
            uint32_t read = 0, at = 0, radix = 0;
            km_form el = ac[i].has_entry_element ? ac[i].entry_element : ac[i].element;
            if (!kg_read_term(km, el, &read, &at))
                return false;
            int q = kg_pointer_param(f, atoms[read].name);
            if (q < 0 || (pass == 0 && !kg_index_input(k, f, q, bs, be)))
                return false;
            if (pass == 0) {
                bool digit = kg_radix(km, el, at, &radix);
                bool cmp = !digit && kg_compared(km, atoms[read].name, &radix);
                if ((digit || cmp) && !kg_lower_limit(k, atoms[radix].name, sets, n_sets, &limit[q]))
                    return false;
                compared[q] |= cmp;
                continue;
            }
            /* no subscript says how far Q's values go, or one leaves its buffer */
            if (!limit[q] || !kg_inside(k, &ac[i], read, limit[q], counts[dest], sets, n_sets))
                return false;
            if (!*line)
                *line = (int)ac[i].line;
            seen_text |= (int)ac[i].line == text_line;
            any = true;
        }
    return any && seen_text;
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
            if (word_at(t, e, i, n, nl) && (i == s || t[i - 1] != '.')) {
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
            if (word_at(t, e, i, names[k], strlen(names[k])))
                return true;
    return false;
}

/* A subscript of a pointer parameter whose index is a value read from a buffer (P[Q[i]],
 * or label = target[i]; P[label]): the generated inputs are random, not valid indices,
 * so such a kernel reads out of bounds. The byte of the first such subscript, or 0. */
static size_t sk_gather(const char *t, size_t s, size_t e, const an_function *f)
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

/* ---- __constant__ inputs ---- */

/* One file-scope __constant__ declarator the kernel reads. */
typedef struct {
    char name[160];    /* as a spec names it: the identifier, ns::name inside namespaces */
    char type[96];     /* element type as declared, qualifiers dropped */
    char dims[256];    /* the declarator's brackets as written ("[5][5]"); "" for a scalar */
    int line;
    bool initialised;  /* = {...}: the image carries its values; not an input */
    bool unnameable;   /* static inside a namespace, or in an anonymous one: its symbol has a
                        * name private to the file (hk_constant_symbol) */
    bool unsized;      /* extern, or [] */
} sk_constdecl;

#define SK_MAX_CONST_DECLS 32
#define SK_NS_DEPTH 16

/* Past a comment, string or character literal starting at t[i] (the index after it), or i
 * when none starts there. */
static size_t sk_skip_lexeme(const char *t, size_t len, size_t i)
{
    if (t[i] == '/' && i + 1 < len && t[i + 1] == '/') {
        const char *nl = memchr(t + i, '\n', len - i);
        return nl ? (size_t)(nl - t) : len;
    }
    if (t[i] == '/' && i + 1 < len && t[i + 1] == '*') {
        for (size_t j = i + 2; j + 1 < len; j++)
            if (t[j] == '*' && t[j + 1] == '/')
                return j + 2;
        return len;
    }
    if (t[i] == '"' || t[i] == '\'') {
        size_t j = i + 1;
        while (j < len && t[j] != t[i] && t[j] != '\n')
            j += t[j] == '\\' ? 2 : 1;
        return j < len ? j + 1 : len;
    }
    return i;
}

static bool sk_is_qualifier(const char *w, size_t n)
{
    static const char *const q[] = { "static", "extern", "const", "volatile", "__constant__",
                                     "__device__", "__restrict__", "inline", "constexpr",
                                     "__managed__" };
    for (size_t i = 0; i < HK_ARRAY_LEN(q); i++)
        if (strlen(q[i]) == n && !memcmp(q[i], w, n))
            return true;
    return false;
}

/* The declarators of the declaration t[s, e) that holds __constant__, appended to out. ns
 * is the enclosing namespace path ("a::b", "" at file scope); anon: inside an anonymous
 * namespace. */
static void sk_const_declaration(const skel *k, size_t s, size_t e, const char *ns, bool anon,
                                 sk_constdecl *out, size_t *n, size_t cap)
{
    const char *t = k->text;
    char type[96] = "";
    bool is_static = false, is_extern = false, named = false;
    for (size_t i = s; i < e && *n < cap;) {
        size_t j = sk_skip_lexeme(t, e, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (!(isalpha((unsigned char)t[i]) || t[i] == '_')) {
            i++;
            continue;
        }
        size_t we = i;
        while (we < e && (isalnum((unsigned char)t[we]) || t[we] == '_'))
            we++;
        size_t after = we;
        while (after < e && isspace((unsigned char)t[after]))
            after++;
        bool declarator = after >= e || strchr("[=;,{", t[after]);
        if (!declarator || (!named && !type[0])) { /* a type word or a qualifier */
            if (we - i == 6 && !memcmp(t + i, "static", 6))
                is_static = true;
            else if (we - i == 6 && !memcmp(t + i, "extern", 6))
                is_extern = true;
            else if (!sk_is_qualifier(t + i, we - i) && strlen(type) + (we - i) + 2 < sizeof type)
                snprintf(type + strlen(type), sizeof type - strlen(type), "%s%.*s", type[0] ? " " : "",
                         (int)(we - i), t + i);
            i = we;
            continue;
        }
        /* NAME [dims] [= init | {init}] then ',' or ';' */
        sk_constdecl *d = &out[(*n)++];
        memset(d, 0, sizeof *d);
        snprintf(d->name, sizeof d->name, "%s%s%.*s", ns, ns[0] ? "::" : "", (int)(we - i), t + i);
        snprintf(d->type, sizeof d->type, "%s", type);
        d->line = sk_line(k, i);
        d->unnameable = anon || (is_static && ns[0]);
        d->unsized = is_extern;
        named = true;
        size_t q = after;
        while (q < e && t[q] == '[') {
            size_t close = kf_expr_end(t, q + 1, e, "");
            if (close >= e)
                break;
            bool empty = true;
            for (size_t c = q + 1; c < close; c++)
                empty &= isspace((unsigned char)t[c]) != 0;
            d->unsized |= empty;
            size_t dl = strlen(d->dims);
            if (dl + (close + 1 - q) < sizeof d->dims)
                snprintf(d->dims + dl, sizeof d->dims - dl, "%.*s", (int)(close + 1 - q), t + q);
            else
                d->unsized = true;
            q = close + 1;
            while (q < e && isspace((unsigned char)t[q]))
                q++;
        }
        d->initialised = q < e && (t[q] == '=' || t[q] == '{');
        i = kf_expr_end(t, q, e, ",;");
        if (i < e && t[i] == ',')
            i++;
    }
}

/* The file-scope __constant__ declarations of the kernel's text (comments, strings and
 * preprocessor lines skipped; namespaces followed), into out. */
static size_t sk_const_decls(const skel *k, sk_constdecl *out, size_t cap)
{
    const char *t = k->text;
    size_t len = k->len, n = 0;
    char ns[SK_NS_DEPTH][64];
    int kind[64]; /* per open brace: 0 other, 1 named namespace, 2 anonymous, 3 extern "C" */
    int depth = 0, pending = 0;   /* pending: the next '{' opens namespace kind 1 or 2 */
    char pending_name[64] = "";
    size_t stmt = 0;              /* where the current file-scope statement starts */
    for (size_t i = 0; i < len && n < cap;) {
        size_t j = sk_skip_lexeme(t, len, i);
        if (j != i) {
            if (t[i] == '"' && depth >= 0)
                pending = pending ? pending : 3; /* extern "C" { */
            i = j;
            continue;
        }
        char c = t[i];
        if (c == '#' && (i == 0 || t[i - 1] == '\n' || isspace((unsigned char)t[i - 1]))) {
            while (i < len && t[i] != '\n')
                i += t[i] == '\\' && i + 1 < len ? 2 : 1;
            stmt = i;
            continue;
        }
        bool file_scope = true;
        for (int d = 0; d < depth && d < 64; d++)
            file_scope &= kind[d] != 0;
        if (c == '{' || c == '}' || c == ';') {
            if (c == '{') {
                if (depth < 64)
                    kind[depth] = file_scope ? pending : 0;
                if (depth < 64 && kind[depth] == 1 && depth < SK_NS_DEPTH)
                    snprintf(ns[depth], sizeof ns[0], "%s", pending_name);
                depth++;
            } else if (c == '}' && depth > 0) {
                depth--;
            }
            pending = 0;
            stmt = i + 1;
            i++;
            continue;
        }
        if (!(isalpha((unsigned char)c) || c == '_') ||
            (i > 0 && (isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_'))) {
            i++;
            continue;
        }
        size_t we = i;
        while (we < len && (isalnum((unsigned char)t[we]) || t[we] == '_'))
            we++;
        if (file_scope && we - i == 9 && !memcmp(t + i, "namespace", 9)) {
            size_t p = we;
            while (p < len && isspace((unsigned char)t[p]))
                p++;
            size_t ne = p;
            while (ne < len && (isalnum((unsigned char)t[ne]) || t[ne] == '_'))
                ne++;
            pending = ne > p ? 1 : 2;
            snprintf(pending_name, sizeof pending_name, "%.*s", (int)(ne - p), t + p);
        } else if (file_scope && we - i == 12 && !memcmp(t + i, "__constant__", 12)) {
            char path[200] = "";
            bool anon = false;
            for (int d = 0; d < depth && d < SK_NS_DEPTH; d++) {
                anon |= kind[d] == 2;
                size_t at = strlen(path), nl = strnlen(ns[d], sizeof ns[0]);
                if (kind[d] == 1 && at + nl + 3 < sizeof path) {
                    if (at) {
                        memcpy(path + at, "::", 2);
                        at += 2;
                    }
                    memcpy(path + at, ns[d], nl);
                    path[at + nl] = '\0';
                }
            }
            size_t end = kf_expr_end(t, we, len, ";");
            sk_const_declaration(k, stmt, end, path, anon, out, &n, cap);
            i = end;
            continue;
        }
        i = we;
    }
    return n;
}

/* Whether a function body of m reached from the kernel (itself, and the __device__
 * functions it calls, four calls deep) names word. */
static bool sk_reached_mentions(const skel *k, const an_function *f, const char *word)
{
    const an_model *m = k->m;
    bool reached[256] = { 0 };
    size_t nf = m->n_funcs < 256 ? m->n_funcs : 256;
    long self = f - m->funcs;
    if (self >= 0 && (size_t)self < nf)
        reached[self] = true;
    for (int round = 0; round < 4; round++)
        for (size_t a = 0; a < nf; a++) {
            if (!reached[a])
                continue;
            const an_function *g = &m->funcs[a];
            size_t s = g->body_span.start_byte, e = g->body_span.end_byte <= k->len ? g->body_span.end_byte : k->len;
            for (size_t b = 0; b < nf; b++)
                if (!reached[b] && m->funcs[b].kind == AN_DEVICE_FUNC && m->funcs[b].name[0])
                    for (size_t i = s; i + strlen(m->funcs[b].name) <= e; i++)
                        if (word_at(k->text, e, i, m->funcs[b].name, strlen(m->funcs[b].name))) {
                            reached[b] = true;
                            break;
                        }
        }
    size_t wl = strlen(word);
    for (size_t a = 0; a < nf; a++) {
        if (!reached[a])
            continue;
        const an_function *g = &m->funcs[a];
        size_t s = g->body_span.start_byte, e = g->body_span.end_byte <= k->len ? g->body_span.end_byte : k->len;
        for (size_t i = s; i + wl <= e; i++)
            if (word_at(k->text, e, i, word, wl))
                return true;
    }
    return false;
}

/* The "constants" of the spec: every file-scope __constant__ variable the kernel reads that
 * its declaration does not initialise (the program fills it with cudaMemcpyToSymbol; the
 * harness fills it like an input, in baseline and candidate alike), with its element type
 * and count from the declaration. A new array (NULL on ENOMEM); what could not be read is a
 * doubt and left out. */
static json_t *sk_constants(skel *k, const an_function *f)
{
    sk_constdecl decls[SK_MAX_CONST_DECLS];
    size_t n = sk_const_decls(k, decls, HK_ARRAY_LEN(decls));
    json_t *list = json_array();
    long long bytes = 0;
    size_t used = 0;
    for (size_t i = 0; list && i < n; i++) {
        sk_constdecl *d = &decls[i];
        const char *ident = strrchr(d->name, ':');
        ident = ident ? ident + 1 : d->name;
        if (!sk_reached_mentions(k, f, ident))
            continue;
        if (d->initialised) {
            sk_note(k, "%s reads the __constant__ table %s, initialised in its declaration at line %d: "
                    "its values come with the kernel image", f->name, d->name, d->line);
            continue;
        }
        if (d->unnameable) {
            sk_doubt(k, "%s reads the __constant__ array %s (line %d), declared static inside a namespace "
                     "or in an anonymous one: its symbol in the kernel image has a name private to the "
                     "file, which the harness cannot fill (use a command-form spec)", f->name, d->name,
                     d->line);
            continue;
        }
        char elem[96];
        int width = 1;
        sk_resolve_type(k, d->type, elem, sizeof elem);
        const char *dt = sk_dtype_or_null(elem, NULL, 0, &width);
        int dtc = HK_DT_F32;
        if (dt)
            spec_dtype_parse(dt, &dtc);
        long long count = width;
        bool sized = !d->unsized;
        for (char *p = d->dims; sized && *p == '[';) {
            size_t close = kf_expr_end(p, 1, strlen(p), "");
            char dim[256];
            snprintf(dim, sizeof dim, "%.*s", (int)(close - 1), p + 1);
            char *tr = sk_translate(k, dim, 0);
            expr *e = NULL;
            expr_value v;
            sized = tr && expr_parse(tr, &e, NULL, 0) == HK_OK && expr_eval(e, NULL, 0, &v, NULL, 0) == HK_OK &&
                    !v.is_float && v.i >= 1 && v.i <= SPEC_CONSTANT_BYTES;
            if (sized)
                count *= v.i;
            expr_free(e);
            hk_free(tr);
            p += close + 1;
        }
        if (!dt) {
            sk_doubt(k, "%s reads the __constant__ %s (line %d) of type %s, which the generated harness "
                     "does not know: it cannot fill it (use a command-form spec)", f->name, d->name,
                     d->line, d->type[0] ? d->type : "?");
            continue;
        }
        if (!hk_dtype_is_float(dtc)) {
            /* integers in a table are offsets, indices or sizes more often than data: random
             * ones would read out of bounds or loop for ever */
            sk_doubt(k, "%s reads the integer __constant__ %s (line %d): the harness would fill it "
                     "with random integers, which are not valid offsets or sizes (give it a dist "
                     "in the spec's \"constants\" by hand)", f->name, d->name, d->line);
            continue;
        }
        if (!sized || count * (long long)hk_dtype_size(dtc) > SPEC_CONSTANT_BYTES) {
            sk_doubt(k, "the size of the __constant__ array %s that %s reads (line %d) could not be "
                     "read from its declaration", d->name, f->name, d->line);
            continue;
        }
        bytes += count * (long long)hk_dtype_size(dtc);
        if (bytes > SPEC_CONSTANT_BYTES || used == SPEC_MAX_CONSTANTS) {
            sk_doubt(k, "%s reads more __constant__ data than one spec fills (%d arrays, %d bytes)",
                     f->name, SPEC_MAX_CONSTANTS, SPEC_CONSTANT_BYTES);
            break;
        }
        json_t *c = json_object();
        bool ok = c && json_object_set_new(c, "name", json_string(d->name)) == 0 &&
                  json_object_set_new(c, "dtype", json_string(dt)) == 0 &&
                  json_object_set_new(c, "count", json_integer(count)) == 0 &&
                  json_array_append_new(list, c) == 0;
        if (!ok) {
            json_decref(list);
            return NULL;
        }
        used++;
        sk_note(k, "__constant__ %s: %lld %s from its declaration at line %d, filled like an input "
                "(the program sets it with cudaMemcpyToSymbol)", d->name, count, dt, d->line);
    }
    return list;
}

/* ---- the skeleton ---- */

enum { GRID_SITE, GRID_BOUNDS, GRID_FLAT };

typedef struct {
    char *need[3];      /* blocks each grid dimension needs (spec text), or NULL */
    bool unknown[3];    /* the dimension is used and nothing says how far it goes */
    bool grid_stride;
} sk_cover;

static void sk_cover_free(sk_cover *c)
{
    for (int d = 0; d < 3; d++)
        hk_free(c->need[d]);
    memset(c, 0, sizeof *c);
}

static void sk_free(skel *k)
{
    for (size_t i = 0; i < k->n_vars; i++)
        hk_free(k->vars[i]);
    for (size_t i = 0; i < k->n_map; i++) {
        hk_free(k->map_from[i]);
        hk_free(k->map_to[i]);
    }
    for (size_t i = 0; i < k->n_notes; i++)
        hk_free(k->notes[i]);
    for (size_t i = 0; i < k->n_doubts; i++)
        hk_free(k->doubts[i]);
    memset(k, 0, sizeof *k);
}

/* Splits "<256, float>" (or a template parameter list's defaults) at depth-0 commas into
 * up to cap new strings. */
static size_t sk_split_targs(const char *t, char **out, size_t cap)
{
    const char *p = strchr(t, '<'), *e = strrchr(t, '>');
    size_t n = 0;
    while (p && e && p < e && n < cap) {
        p++;
        const char *c = p;
        int depth = 0;
        while (c < e && !(*c == ',' && depth == 0)) {
            depth += *c == '<' || *c == '(';
            depth -= *c == '>' || *c == ')';
            c++;
        }
        while (p < c && isspace((unsigned char)*p))
            p++;
        const char *ce = c;
        while (ce > p && isspace((unsigned char)ce[-1]))
            ce--;
        out[n++] = hk_strndup(p, (size_t)(ce - p));
        p = c;
        if (p >= e)
            break;
    }
    return n;
}

/* The template arguments of an explicit instantiation of kernel in t
 * ("template __global__ void k<float, 128>(const float *, ...);"): a new string "<...>", or
 * NULL; *at set to its byte. A program instantiates what it runs, so these are as good as a
 * launch site's. */
static char *sk_instantiation(const char *t, size_t len, const char *kernel, size_t *at)
{
    size_t kl = strlen(kernel);
    for (size_t i = 0; t && i + 8 < len; i++) {
        if (!word_at(t, len, i, "template", 8))
            continue;
        size_t j = i + 8;
        while (j < len && isspace((unsigned char)t[j]))
            j++;
        if (j >= len || t[j] == '<') /* a template declaration, not an instantiation */
            continue;
        size_t end = kf_expr_end(t, j, len, ";");
        for (size_t q = j; q + kl < end; q++) {
            if (!word_at(t, end, q, kernel, kl))
                continue;
            size_t o = q + kl;
            while (o < end && isspace((unsigned char)t[o]))
                o++;
            if (o >= end || t[o] != '<')
                break;
            int depth = 0;
            size_t c = o;
            for (; c < end; c++) {
                depth += t[c] == '<';
                depth -= t[c] == '>';
                if (depth == 0)
                    break;
            }
            if (c >= end || c - o > SK_MAX_TEXT)
                break;
            *at = i;
            return hk_strndup(t + o, c - o + 1);
        }
    }
    return NULL;
}

/* The name a template parameter declares: the last word before its default (`unsigned int
 * threads = 256` is threads, `typename T` is T). False when there is none. */
static bool sk_tparam_name(const char *decl, char *out, size_t cap)
{
    const char *eq = strchr(decl, '=');
    size_t e = eq ? (size_t)(eq - decl) : strlen(decl);
    while (e > 0 && !(isalnum((unsigned char)decl[e - 1]) || decl[e - 1] == '_'))
        e--;
    size_t b = e;
    while (b > 0 && (isalnum((unsigned char)decl[b - 1]) || decl[b - 1] == '_'))
        b--;
    if (e == b || e - b >= cap || b == 0)
        return false; /* a lone word is a keyword or type, not a name (`class`) */
    memcpy(out, decl + b, e - b);
    out[e - b] = '\0';
    return true;
}

/* When the launch passes name, a type parameter of the template function that launches
 * (cuda-samples' `template <class T> void reduce(...)` launching reduce0<T>), and an
 * explicit instantiation of that function gives float there (`template void
 * reduce<float>(...)`): the launcher's name (borrowed), *line that instantiation's line
 * in the site's file. NULL otherwise. */
static const char *sk_launcher_float(const skel *k, const an_launch *site, const char *name, int *line)
{
    const an_model *sm = k->site_m;
    if (!sm || site->caller < 0 || (size_t)site->caller >= sm->n_funcs)
        return NULL;
    const an_function *cf = &sm->funcs[site->caller];
    if (!cf->template_params || !cf->name)
        return NULL;
    char *decl[16] = { 0 };
    size_t nd = sk_split_targs(cf->template_params, decl, HK_ARRAY_LEN(decl));
    long pos = -1;
    for (size_t i = 0; i < nd; i++) {
        char kw[32] = "", nm[64] = "";
        if (decl[i] && sscanf(decl[i], "%31s", kw) == 1 && sk_tparam_name(decl[i], nm, sizeof nm) &&
            (!strcmp(kw, "typename") || !strcmp(kw, "class")) && !strcmp(nm, name))
            pos = (long)i;
        hk_free(decl[i]);
    }
    const char *found = NULL;
    for (size_t off = 0; pos >= 0 && off < k->site_len && !found;) {
        size_t at = 0;
        char *inst = sk_instantiation(k->site_text + off, k->site_len - off, cf->name, &at);
        if (!inst)
            break;
        char *args[16] = { 0 };
        size_t na = sk_split_targs(inst, args, HK_ARRAY_LEN(args));
        if ((size_t)pos < na && args[pos] && !strcmp(args[pos], "float")) {
            found = cf->name;
            *line = sk_site_line(k, off + at);
        }
        for (size_t i = 0; i < na; i++)
            hk_free(args[i]);
        hk_free(inst);
        off += at + 8;
    }
    return found;
}

/* The launch under `case V:` of `switch (B)` with B its block's text (mmcv's furthest
 * point sampling launches k<1024><<<b, n_threads>>> in case 1024 of switch (n_threads)):
 * true and *v = V (1 to 1024). The case must be the last label before the launch, with no
 * break between them. */
static bool sk_switch_case(skel *k, const an_launch *site, long long *v)
{
    const char *t = k->site_text;
    size_t at = site->span.start_byte, lo = k->body_start;
    if (!t || !site->block || at > k->site_len || at <= lo)
        return false;
    char blk[128];
    if (sscanf(site->block, " %127[A-Za-z0-9_] ", blk) != 1 || strlen(blk) != strlen(site->block) ||
        !is_identifier(blk))
        return false;
    size_t c = at;
    for (;;) {
        if (c <= lo)
            return false;
        c--;
        if (word_at(t, at, c, "break", 5) || word_at(t, at, c, "default", 7) || word_at(t, at, c, "switch", 6))
            return false;
        if (word_at(t, at, c, "case", 4))
            break;
    }
    char val[64];
    int used = 0;
    if (sscanf(t + c + 4, " %63[A-Za-z0-9_] :%n", val, &used) != 1 || !used)
        return false;
    char *tr = sk_translate(k, val, 0);
    expr *e = NULL;
    expr_value ev;
    bool ok = tr && expr_parse(tr, &e, NULL, 0) == HK_OK && expr_eval(e, NULL, 0, &ev, NULL, 0) == HK_OK &&
              !ev.is_float && ev.i >= 1 && ev.i <= 1024;
    expr_free(e);
    hk_free(tr);
    if (!ok)
        return false;
    size_t sw = c; /* the switch this case belongs to: the nearest one before it */
    while (sw > lo && !word_at(t, c, sw, "switch", 6))
        sw--;
    if (!word_at(t, c, sw, "switch", 6))
        return false;
    char on[128];
    if (sscanf(t + sw + 6, " ( %127[A-Za-z0-9_] )", on) != 1 || strcmp(on, blk) != 0)
        return false;
    *v = ev.i;
    return true;
}

/* ---- typedefs ---- */

/* Whether `#define name` appears in the first len bytes of t (before the directive that
 * asks: an include guard's #ifndef comes before its #define). */
static bool pp_defined(const char *t, size_t len, const char *name, size_t nl)
{
    for (const char *p = t; (p = strstr(p, "#define")) != NULL && (size_t)(p - t) < len; p += 7) {
        const char *q = p + 7;
        while (*q == ' ' || *q == '\t')
            q++;
        if (!strncmp(q, name, nl) && !(isalnum((unsigned char)q[nl]) || q[nl] == '_'))
            return true;
    }
    return false;
}

/* A preprocessor condition this file can decide: defined(X), defined X, !defined(X) (X
 * decided by whether the text #defines it). 1 true, 0 false, -1 cannot say. */
static int pp_cond(const char *t, size_t len, const char *c, const char *e)
{
    while (c < e && isspace((unsigned char)*c))
        c++;
    bool neg = c < e && *c == '!';
    c += neg;
    if ((size_t)(e - c) < 8 || strncmp(c, "defined", 7))
        return -1;
    c += 7;
    while (c < e && (isspace((unsigned char)*c) || *c == '('))
        c++;
    const char *n = c;
    while (c < e && (isalnum((unsigned char)*c) || *c == '_'))
        c++;
    size_t nl = (size_t)(c - n);
    while (c < e && (isspace((unsigned char)*c) || *c == ')'))
        c++;
    if (!nl || c != e)
        return -1;
    return pp_defined(t, len, n, nl) != neg;
}

/* Tracks #if/#ifdef/#ifndef/#elif/#else/#endif before at; conditions other than defined()
 * are not decided (infer.h). */
int spec_pp_active(const char *t, size_t len, size_t at)
{
    enum { DEPTH = 32 };
    int state[DEPTH], taken[DEPTH]; /* per level: branch now 1/0/-1; a branch was taken 1/0/-1 */
    int d = 0;
    for (size_t i = 0; i < at && i < len; i++) {
        if (t[i] != '#' || (i > 0 && t[i - 1] != '\n' && !isspace((unsigned char)t[i - 1])))
            continue;
        const char *p = t + i + 1, *eol = memchr(p, '\n', len - i - 1);
        if (!eol)
            eol = t + len;
        while (p < eol && isspace((unsigned char)*p))
            p++;
        const char *ce = eol;
        const char *cm = p;
        while (cm + 1 < eol && !(cm[0] == '/' && (cm[1] == '/' || cm[1] == '*')))
            cm++;
        if (cm + 1 < eol)
            ce = cm;
        while (ce > p && isspace((unsigned char)ce[-1]))
            ce--;
        int v = -2;
        if (!strncmp(p, "ifdef", 5) || !strncmp(p, "ifndef", 6)) {
            bool nd = p[2] == 'n';
            const char *n = p + (nd ? 6 : 5);
            while (n < ce && isspace((unsigned char)*n))
                n++;
            v = pp_defined(t, i, n, (size_t)(ce - n)) != nd;
        } else if (!strncmp(p, "if", 2) && isspace((unsigned char)p[2])) {
            v = pp_cond(t, i, p + 2, ce);
        }
        if (v != -2) {
            if (d < DEPTH) {
                state[d] = v;
                taken[d] = v;
            }
            d++;
        } else if (!strncmp(p, "elif", 4) && d > 0 && d <= DEPTH) {
            int c = pp_cond(t, i, p + 4, ce);
            int was = taken[d - 1];
            state[d - 1] = was == 1 ? 0 : was == 0 ? c : -1;
            taken[d - 1] = was == 1 || c == 1 ? 1 : was == 0 && c == 0 ? 0 : -1;
        } else if (!strncmp(p, "else", 4) && d > 0 && d <= DEPTH) {
            int was = taken[d - 1];
            state[d - 1] = was == -1 ? -1 : !was;
            taken[d - 1] = 1;
        } else if (!strncmp(p, "endif", 5) && d > 0) {
            d--;
        }
        i = (size_t)(eol - t);
    }
    int r = 1;
    for (int l = 0; l < d && l < DEPTH; l++)
        r = state[l] == 0 ? 0 : r == 0 ? 0 : state[l] == -1 ? -1 : r;
    return d > DEPTH ? -1 : r;
}

/* What the typedef or using-alias name stands for in t, in a build without -D flags:
 * into out (false when name has no such definition, or those that may be compiled
 * disagree). */
static bool sk_typedef(const char *t, size_t len, const char *name, char *out, size_t outlen)
{
    size_t nl = strlen(name);
    bool found = false, ambiguous = false;
    for (size_t i = 0; t && i + nl < len && !ambiguous; i++) {
        if (!word_at(t, len, i, name, nl))
            continue;
        char ty[96] = "";
        size_t st = i;
        /* typedef TYPE name; */
        size_t j = i + nl;
        while (j < len && isspace((unsigned char)t[j]))
            j++;
        if (j < len && t[j] == ';') {
            size_t b = i;
            while (b > 0 && t[b - 1] != ';' && t[b - 1] != '\n' && t[b - 1] != '{' && t[b - 1] != '}')
                b--;
            while (b < i && isspace((unsigned char)t[b]))
                b++;
            if (i - b > 8 && word_at(t, len, b, "typedef", 7))
                snprintf(ty, sizeof ty, "%.*s", (int)(i - b - 8), t + b + 8);
            st = b;
        } else if (j < len && t[j] == '=' && i >= 6 && word_at(t, len, i - 6, "using", 5)) {
            /* using name = TYPE; */
            size_t e = kf_expr_end(t, j + 1, len, ";");
            snprintf(ty, sizeof ty, "%.*s", (int)(e - j - 1), t + j + 1);
        }
        char *a = ty, *z = ty + strlen(ty);
        while (*a && isspace((unsigned char)*a))
            a++;
        while (z > a && isspace((unsigned char)z[-1]))
            *--z = '\0';
        if (!*a || strpbrk(a, "()<>*&[{"))
            continue;
        int on = spec_pp_active(t, len, st);
        if (on == 0)
            continue;
        if (found && strcmp(out, a) != 0)
            ambiguous = true;
        snprintf(out, outlen, "%s", a);
        found = true;
    }
    return found && !ambiguous;
}

/* elem with the typedefs of the kernel's file followed (at most four deep), into cur. */
/* The words of t (n bytes) one space apart, into out; false when there are none. */
static bool sk_bare_words(const char *t, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (isspace((unsigned char)t[i])) {
            i++;
            continue;
        }
        size_t s = i;
        while (i < n && !isspace((unsigned char)t[i]))
            i++;
        if (o + (o > 0) + (i - s) + 1 > cap)
            return false;
        if (o)
            out[o++] = ' ';
        memcpy(out + o, t + s, i - s);
        o += i - s;
    }
    out[o] = '\0';
    return o > 0;
}

/* A struct of t (struct name {...}; or typedef struct [tag] {...} name;) whose members are
 * 2 to 9 plain fields of one type the harness knows as a vector (float lat, lng;): that
 * vector's name (float2) into out, so it is passed as that many elements of the type. A
 * struct with arrays, bit fields, nested types, mixed or padded members is not one. */
static bool sk_struct_vector(const char *t, size_t len, const char *name, char *out, size_t outlen)
{
    static const struct { const char *c, *vec; } bases[] = {
        { "float", "float" }, { "double", "double" }, { "int", "int" }, { "unsigned int", "uint" },
    };
    size_t nl = strlen(name);
    for (size_t i = 0; t && i + nl < len; i++) {
        if (!word_at(t, len, i, name, nl))
            continue;
        size_t open = 0, close = 0;
        size_t j = i + nl;
        while (j < len && isspace((unsigned char)t[j]))
            j++;
        if (j < len && t[j] == '{' && i >= 7 && word_at(t, len, i - 7, "struct", 6)) {
            open = j; /* struct name { ... } */
            int depth = 0;
            for (close = j; close < len; close++) {
                depth += (t[close] == '{') - (t[close] == '}');
                if (depth == 0)
                    break;
            }
        } else if (j < len && t[j] == ';') {
            /* typedef struct [tag] { ... } name; */
            size_t b = i;
            while (b > 0 && isspace((unsigned char)t[b - 1]))
                b--;
            if (b == 0 || t[b - 1] != '}')
                continue;
            close = b - 1;
            int depth = 0;
            for (open = close + 1; open-- > 0;) {
                depth += (t[open] == '}') - (t[open] == '{');
                if (depth == 0)
                    break;
            }
            if (depth != 0)
                continue;
            /* back over [tag] struct typedef */
            size_t h = open;
            bool typedef_struct = true;
            for (int w = 0; w < 3 && typedef_struct; w++) {
                while (h > 0 && isspace((unsigned char)t[h - 1]))
                    h--;
                size_t we = h;
                while (h > 0 && (isalnum((unsigned char)t[h - 1]) || t[h - 1] == '_'))
                    h--;
                bool is_struct = word_at(t, len, h, "struct", 6) && we - h == 6;
                bool is_typedef = word_at(t, len, h, "typedef", 7) && we - h == 7;
                if (w == 0 && !is_struct)
                    continue; /* the tag */
                if (is_typedef)
                    break;
                typedef_struct = is_struct && w < 2 && h < we;
            }
            if (!typedef_struct || !word_at(t, len, h, "typedef", 7))
                continue;
        } else {
            continue;
        }
        if (close >= len || close <= open || spec_pp_active(t, len, open) == 0)
            continue;
        /* members: TYPE a, b; statements, one TYPE for all */
        char body[512];
        size_t bl = close - open - 1;
        if (bl >= sizeof body || memchr(t + open + 1, '#', bl))
            return false;
        memcpy(body, t + open + 1, bl);
        body[bl] = '\0';
        if (strpbrk(body, "[]():{}<>*&=/"))
            return false;
        const char *base = NULL;
        int fields = 0;
        char *stmt = body;
        for (char *semi; (semi = strchr(stmt, ';')) != NULL; stmt = semi + 1) {
            *semi = '\0';
            char *comma = strchr(stmt, ',');
            char *last = comma ? comma : stmt + strlen(stmt);
            /* the type is the words before the first declarator's name */
            char *name_end = last;
            while (name_end > stmt && isspace((unsigned char)name_end[-1]))
                name_end--;
            char *name_start = name_end;
            while (name_start > stmt && (isalnum((unsigned char)name_start[-1]) || name_start[-1] == '_'))
                name_start--;
            char type[64];
            if (!sk_bare_words(stmt, (size_t)(name_start - stmt), type, sizeof type))
                return false;
            const char *vec = NULL;
            for (size_t b = 0; b < HK_ARRAY_LEN(bases) && !vec; b++)
                if (!strcmp(bases[b].c, type))
                    vec = bases[b].vec;
            if (!vec || (base && strcmp(base, vec) != 0) || name_start == name_end)
                return false;
            base = vec;
            fields++;
            for (char *c = comma; c; c = strchr(c + 1, ','))
                fields++;
        }
        for (const char *r = stmt; *r; r++)
            if (!isspace((unsigned char)*r))
                return false; /* text after the last ';' */
        if (!base || fields < 2 || fields > 9)
            return false;
        snprintf(out, outlen, "%s%d", base, fields);
        return true;
    }
    return false;
}

static void sk_resolve_type(const skel *k, const char *elem, char *cur, size_t n)
{
    char next[96];
    snprintf(cur, n, "%s", elem);
    for (int i = 0; i < 4 && !sk_dtype_known(cur) && sk_typedef(k->text, k->len, cur, next, sizeof next); i++)
        snprintf(cur, n, "%s", next);
}

/* The element type of a buffer: as sk_resolve_type, and a struct of like fields as the
 * vector of them (sk_struct_vector), whose elements the harness generates and compares. A
 * scalar or a __constant__ of such a struct is not one (its bytes are no buffer). */
static void sk_resolve_pointee(const skel *k, const char *elem, char *cur, size_t n)
{
    char next[96];
    sk_resolve_type(k, elem, cur, n);
    if (!sk_dtype_known(cur) && (sk_struct_vector(k->text, k->len, cur, next, sizeof next) ||
                                 sk_struct_vector(k->site_text, k->site_len, cur, next, sizeof next)))
        snprintf(cur, n, "%s", next);
}

/* PyTorch's AT_DISPATCH_FLOATING_TYPES* macros run their lambda once per floating type,
 * each time with scalar_t that type; float is always one of them. The macro whose
 * still-open call holds the launch at byte site (in the caller body of the launch's text),
 * or NULL. */
static const char *sk_dispatch_macro(const skel *k, size_t site)
{
    static const char *const macros[] = { "AT_DISPATCH_FLOATING_TYPES_AND_HALF",
                                          "AT_DISPATCH_FLOATING_TYPES_AND2",
                                          "AT_DISPATCH_FLOATING_TYPES_AND", "AT_DISPATCH_FLOATING_TYPES" };
    const char *t = k->site_text;
    for (size_t i = site; t && i-- > k->body_start;) {
        for (size_t m = 0; m < HK_ARRAY_LEN(macros); m++) {
            size_t l = strlen(macros[m]);
            if (!word_at(t, site, i, macros[m], l))
                continue;
            size_t j = i + l;
            while (j < site && isspace((unsigned char)t[j]))
                j++;
            int depth = 0;
            for (size_t q = j; q < site; q++)
                depth += (t[q] == '(') - (t[q] == ')');
            return j < site && t[j] == '(' && depth > 0 ? macros[m] : NULL;
        }
    }
    return NULL;
}

/* The first launch of f in m that passes as many arguments as f takes (a launch of another
 * kernel of the same name, in a sibling file, would not). */
static const an_launch *sk_find_site(const an_model *m, const char *kernel, size_t n_params)
{
    for (size_t i = 0; m && i < m->n_launches; i++) {
        const an_launch *l = &m->launches[i];
        const char *colon = strrchr(l->kernel, ':');
        const char *base = colon ? colon + 1 : l->kernel;
        if ((!strcmp(l->kernel, kernel) || !strcmp(base, kernel)) && l->n_args == n_params)
            return l;
    }
    return NULL;
}

/* The launch's grid dimensions that are sizes alone (channels, not ceil_div(n, block_x),
 * which the search changes with the block) become what kc_grid_names stand for, so that an
 * unguarded blockIdx in a subscript is bounded by them (kc_block_term). A dimension the
 * launch leaves out is 1. */
static void sk_map_grid(skel *k, char **grid, size_t n_grid)
{
    for (size_t d = 0; d < 3; d++) {
        const char *g = d < n_grid ? grid[d] : "1";
        if (!g || !kf_only_sizes(k, g))
            continue;
        char *paren = hk_asprintf("(%s)", g);
        sk_map(k, kc_grid_names[d], paren);
        k->grid_known[d] = paren != NULL && !k->nomem;
        hk_free(paren);
    }
}

/* Whether spec text t is made of size variables and block_x/y/z (at the block's values
 * it must also evaluate with the sizes: kf_only_sizes on it with the block put in). */
static bool sk_sizes_or_block(skel *k, const char *t, const long long *block)
{
    static const char *const bn[3] = { "block_x", "block_y", "block_z" };
    struct hk_buf b;
    hk_buf_init(&b, SK_MAX_TEXT);
    bool ok = true;
    for (size_t i = 0, n = strlen(t); i < n && ok;) {
        size_t w = 0;
        for (size_t q = 0; q < 3 && !w; q++)
            if (word_at(t, n, i, bn[q], 7))
                w = q + 1;
        ok = w ? hk_buf_printf(&b, "%lld", block[w - 1] ? block[w - 1] : 1) == HK_OK
               : hk_buf_append(&b, t + i, 1) == HK_OK;
        i += w ? 7 : 1;
    }
    ok = ok && b.data && kf_only_sizes(k, b.data);
    hk_buf_free(&b);
    return ok;
}

/* The launch's dynamic shared memory in spec terms: its text, through a launcher local
 * (`int smem = threads * sizeof(T)`), sizeof(tname) as tsize bytes, the launcher variable
 * that is the block's x (`dim3 block(threads, 1, 1)`) as block_x, and a conditional
 * (`threads <= 32 ? 2 * threads * sizeof(T) : threads * sizeof(T)`) as the larger of its
 * branches (more shared memory than the kernel uses is safe). New string or NULL. */
static char *sk_shmem(skel *k, const an_launch *site, long tsize, const char *tname)
{
    char *text = is_identifier(site->shmem) ? sk_local_init(k, site->shmem) : NULL;
    const char *src = text ? text : site->shmem;
    size_t base_map = k->n_map;
    /* the block's x member when it is a launcher variable */
    char *braw = site->block ? (is_identifier(site->block) ? sk_local_init(k, site->block) : NULL) : NULL;
    const char *bsrc = braw ? braw : site->block;
    char *parts[3] = { 0 };
    if (bsrc && sk_split_dims(bsrc, parts) >= 1 && parts[0] && is_identifier(parts[0]) && !sk_mapped(k, parts[0]))
        sk_map(k, parts[0], "block_x");
    for (size_t d = 0; d < 3; d++)
        hk_free(parts[d]);
    hk_free(braw);
    char *res = NULL;
    /* a top-level c ? a : b: the larger of a and b */
    size_t n = strlen(src), q = 0, colon = 0;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        depth += (src[i] == '(') - (src[i] == ')');
        if (depth == 0 && src[i] == '?' && !q)
            q = i;
        else if (depth == 0 && src[i] == ':' && q && !colon)
            colon = i;
    }
    char *branch[2] = { NULL, NULL };
    if (q && colon > q) {
        branch[0] = hk_strndup(src + q + 1, colon - q - 1);
        branch[1] = hk_strdup(src + colon + 1);
    } else {
        branch[0] = hk_strdup(src);
    }
    char *tr[2] = { NULL, NULL };
    bool ok = branch[0] != NULL;
    for (int b = 0; b < 2 && ok && branch[b]; b++) {
        char *host = sk_host_text(k, branch[b], tsize, tname);
        tr[b] = host ? sk_translate(k, host, 0) : NULL;
        hk_free(host);
        ok = tr[b] != NULL;
    }
    if (ok)
        res = tr[1] ? hk_asprintf("max(%s, %s)", tr[0], tr[1]) : hk_strdup(tr[0]);
    for (int b = 0; b < 2; b++) {
        hk_free(branch[b]);
        hk_free(tr[b]);
    }
    while (k->n_map > base_map) {
        k->n_map--;
        hk_free(k->map_from[k->n_map]);
        hk_free(k->map_to[k->n_map]);
    }
    hk_free(text);
    return res;
}

/* The line of a shared access whose array is no local of a known size (extern
 * __shared__ T s[], or a SharedMemory<T>() helper's pointer): the bytes come from the
 * launch. 0 when every shared array has its declared size (or the kernel has no model). */
static int sk_dynamic_shared(const skel *k, const an_function *f)
{
    /* extern __shared__ in the body itself, whatever the model made of its uses */
    uint32_t bs = f->body_span.start_byte, be = f->body_span.end_byte <= k->len ? f->body_span.end_byte : (uint32_t)k->len;
    for (uint32_t i = bs; i + 6 < be; i++)
        if (word_at(k->text, be, i, "extern", 6)) {
            uint32_t j = i + 6;
            for (;;) { /* extern volatile __shared__ float s[] */
                while (j < be && isspace((unsigned char)k->text[j]))
                    j++;
                if (word_at(k->text, be, j, "volatile", 8))
                    j += 8;
                else if (word_at(k->text, be, j, "const", 5))
                    j += 5;
                else
                    break;
            }
            if (word_at(k->text, be, j, "__shared__", 10))
                return sk_line(k, i);
        }
    if (!k->km)
        return 0;
    size_t na = 0, nl = 0;
    const km_access *ac = km_accesses(k->km, &na);
    const km_local *ls = km_locals(k->km, &nl);
    for (size_t j = 0; j < nl; j++) /* an extern array in a __device__ helper it calls */
        if (ls[j].kind == KM_LOCAL_ARRAY && ls[j].space == KM_SPACE_SHARED && ls[j].form.n == 0)
            return (int)ls[j].line;
    for (size_t i = 0; i < na; i++) {
        if (ac[i].space != KM_SPACE_SHARED || !ac[i].buffer)
            continue;
        for (size_t j = 0; j < nl; j++)
            if (ls[j].name && !strcmp(ls[j].name, ac[i].buffer) &&
                ((ls[j].kind == KM_LOCAL_ARRAY && ls[j].form.n == 0) ||
                 (ls[j].kind == KM_LOCAL_POINTER && ls[j].base && !strcmp(ls[j].base, ls[j].name))))
                return (int)ac[i].line;
    }
    return 0;
}

/* Whether size variable name is subtracted in a grid dimension's text (`Size - t - 1`),
 * or in the blocks a bounds check needs: a '-' then name as a word. */
static bool sk_subtracted(const char *name, char *const *grid, size_t n_grid)
{
    size_t nl = strlen(name);
    for (size_t d = 0; d < n_grid; d++) {
        const char *g = grid[d];
        for (size_t i = 0, n = g ? strlen(g) : 0; i < n; i++) {
            if (g[i] != '-')
                continue;
            size_t j = i + 1;
            while (j < n && (g[j] == ' ' || g[j] == '('))
                j++;
            if (word_at(g, n, j, name, nl))
                return true;
        }
    }
    return false;
}

/* The threads the spec launches along each axis, grid[d] (block_x... put in as the block's
 * numbers) times block[d], mapped from kc_thread_names[d] where that is sizes alone. */
static void sk_map_threads(skel *k, char *const *grid, size_t n_grid, const long long *block, size_t n_block)
{
    static const char *const bnames[3] = { "block_x", "block_y", "block_z" };
    for (size_t d = 0; d < 3; d++) {
        const char *g = d < n_grid && grid[d] ? grid[d] : "1";
        long long bv = d < n_block ? block[d] : 1;
        struct hk_buf b;
        hk_buf_init(&b, SK_MAX_TEXT);
        bool ok = hk_buf_appends(&b, "((") == HK_OK;
        for (size_t i = 0, n = strlen(g); i < n && ok;) {
            size_t w = 0;
            for (size_t q = 0; q < 3 && !w; q++)
                if (word_at(g, n, i, bnames[q], 7))
                    w = q + 1;
            if (w) {
                ok = hk_buf_printf(&b, "%lld", w - 1 < n_block ? block[w - 1] : 1) == HK_OK;
                i += 7;
            } else {
                ok = hk_buf_append(&b, g + i, 1) == HK_OK;
                i++;
            }
        }
        ok = ok && hk_buf_printf(&b, ") * %lld)", bv) == HK_OK && b.data;
        if (ok && kf_only_sizes(k, b.data)) {
            sk_map(k, kc_thread_names[d], b.data);
            k->threads_known[d] = !k->nomem;
        }
        hk_buf_free(&b);
    }
}

static int sk_build(const an_model *m, long kernel, skel *k, const char *source, int grid_mode,
                    sk_cover *cover, json_t **out)
{
    *out = NULL;
    const an_function *f = &m->funcs[kernel];
    const char *text = k->text;
    size_t len = k->len;
    if (!k->site_m) {
        k->site_m = m;
        k->site_text = text;
        k->site_len = len;
    }
    const an_model *sm = k->site_m;
    const an_launch *site = sk_find_site(sm, f->name, f->n_params);
    if (site && site->caller >= 0 && (size_t)site->caller < sm->n_funcs && k->site_text) {
        const an_function *cf = &sm->funcs[site->caller];
        k->body_start = cf->body_span.start_byte;
        k->body_end = site->span.start_byte < k->site_len ? site->span.start_byte : (uint32_t)k->site_len;
    }
    int site_line = site ? (int)site->span.start_row + 1 : 0;
    const char *file = k->site_file ? k->site_file : k->file ? k->file : source;
    int rc = HK_OK;
    json_t *root = NULL;
    kfacts kf = { 0 };
    char *block[3] = { 0 }, *grid[3] = { 0 }, *scal[HK_MAX_ARGS] = { 0 }, *counts[HK_MAX_ARGS] = { 0 };
    char *tparams[16] = { 0 }, *tactual[16] = { 0 }, *targs[16] = { 0 };
    size_t n_block = 0, n_grid = 0, n_tp = 0, n_ta = 0;
    long long block_val[3] = { 1, 1, 1 };
    bool count_sure[HK_MAX_ARGS] = { 0 };
    bool count_host[HK_MAX_ARGS] = { 0 }; /* from the host's allocation, not from the grid */
    int derived_line[HK_MAX_ARGS] = { 0 }; /* a pointer made from it the count cannot follow */
    long long program[SK_MAX_VARS];
    bool have_program[SK_MAX_VARS] = { 0 };
    kc_rows rows = { 0 };   /* the rows a 2-D kernel writes, when their grid is guessed */
    char *rows_size = NULL; /* the size they go to */

    /* template arguments: the launch site's, else defaults (types float, values 128) */
    char *site_targs[16] = { 0 };
    size_t n_site_targs = site && site->template_args
                              ? sk_split_targs(site->template_args, site_targs, HK_ARRAY_LEN(site_targs))
                              : 0;
    char targ_from[PATH_MAX + 48];
    snprintf(targ_from, sizeof targ_from, "the launch site at %s:%d", file, site_line);
    if (!n_site_targs && f->template_params) {
        size_t at = 0;
        bool own = true;
        char *inst = sk_instantiation(text, len, f->name, &at);
        if (!inst && k->site_text != text) {
            own = false;
            inst = sk_instantiation(k->site_text, k->site_len, f->name, &at);
        }
        if (inst) {
            n_site_targs = sk_split_targs(inst, site_targs, HK_ARRAY_LEN(site_targs));
            snprintf(targ_from, sizeof targ_from, "the explicit instantiation at %s:%d",
                     own ? (k->file ? k->file : source) : file, own ? sk_line(k, at) : sk_site_line(k, at));
        }
        hk_free(inst);
    }
    if (f->template_params) {
        char *decl[16] = { 0 };
        size_t nd = sk_split_targs(f->template_params, decl, HK_ARRAY_LEN(decl));
        for (size_t i = 0; i < nd && n_ta < HK_ARRAY_LEN(targs); i++) {
            char *eq = decl[i] ? strchr(decl[i], '=') : NULL;
            char kw[32] = "", nm[64] = "";
            if (decl[i]) {
                sscanf(decl[i], "%31s", kw);
                sk_tparam_name(decl[i], nm, sizeof nm);
            }
            bool type = !strcmp(kw, "typename") || !strcmp(kw, "class");
            const char *given = i < n_site_targs ? site_targs[i] : NULL;
            const char *dispatch = type && given && site && !strcmp(given, "scalar_t")
                                       ? sk_dispatch_macro(k, site->span.start_byte)
                                       : NULL;
            int launcher_line = 0;
            const char *launcher = type && given && site && !dispatch
                                       ? sk_launcher_float(k, site, given, &launcher_line)
                                       : NULL;
            if (dispatch || launcher)
                given = "float";
            const char *val = given;
            if (!val && eq) {
                char *v = eq + 1;
                while (isspace((unsigned char)*v))
                    v++;
                val = v;
            }
            if (!val)
                val = type ? "float" : "128";
            char *tr = type ? NULL : sk_translate(k, val, 0);
            expr *e = NULL;
            expr_value v;
            if (tr && expr_parse(tr, &e, NULL, 0) == HK_OK && expr_eval(e, NULL, 0, &v, NULL, 0) == HK_OK &&
                !v.is_float)
                targs[n_ta] = hk_asprintf("%lld", v.i);
            else
                targs[n_ta] = hk_strdup(val);
            expr_free(e);
            hk_free(tr);
            if (!given)
                sk_doubt(k, "template argument %s of %s is not given by a launch site or an explicit "
                         "instantiation: guessed %s", nm[0] ? nm : "?",
                         f->name, targs[n_ta] ? targs[n_ta] : "?");
            else if (dispatch)
                sk_note(k, "template argument %s = float: %s is scalar_t inside %s at %s:%d, which "
                        "instantiates it for float among others", nm[0] ? nm : "?", nm[0] ? nm : "?",
                        dispatch, file, site_line);
            else if (launcher)
                sk_note(k, "template argument %s = float: the launch at %s:%d passes %s, a type "
                        "parameter of its launcher %s, which the explicit instantiation at line %d "
                        "instantiates for float", nm[0] ? nm : "?", file, site_line,
                        i < n_site_targs ? site_targs[i] : "?", launcher, launcher_line);
            else
                sk_note(k, "template argument %s = %s from %s", nm[0] ? nm : "?", given, targ_from);
            if (type && nm[0] && n_tp < HK_ARRAY_LEN(tparams)) {
                tparams[n_tp] = hk_strdup(nm);
                tactual[n_tp++] = hk_strdup(targs[n_ta] ? targs[n_ta] : "float");
            } else if (!type && nm[0] && targs[n_ta]) {
                sk_map(k, nm, targs[n_ta]); /* BLOCK in the index math is this value */
            }
            n_ta++;
        }
        for (size_t i = 0; i < nd; i++)
            hk_free(decl[i]);
    }
    for (size_t i = 0; i < n_site_targs; i++)
        hk_free(site_targs[i]);

    /* integer arguments at the launch that are plain launcher variables stay variables */
    for (size_t i = 0; site && i < f->n_params && i < site->n_args && k->n_keep < SK_MAX_VARS; i++) {
        const an_param *p = &f->params[i];
        int dt;
        if (p->pointer_depth == 0 && spec_dtype_parse(p->elem_type, &dt) == HK_OK && !hk_dtype_is_float(dt) &&
            is_identifier(site->args[i]) && !sk_tunable_value(k, site->args[i]))
            k->keep[k->n_keep++] = site->args[i];
    }

    /* block: from the launch when it translates to constants, else 256 (16x16 for 2D) */
    bool site_block_unread = false;
    if (site && site->block) {
        char *t = sk_translate(k, site->block, 0);
        char *raw = t ? NULL : sk_local_init(k, site->block);
        const char *dims_src = t ? t : raw ? raw : site->block;
        char *parts[3] = { 0 };
        size_t np = sk_split_dims(dims_src, parts);
        for (size_t d = 0; d < np; d++) {
            char *pt = sk_translate(k, parts[d], 0);
            expr *e = NULL;
            expr_value v;
            if (pt && expr_parse(pt, &e, NULL, 0) == HK_OK && expr_eval(e, NULL, 0, &v, NULL, 0) == HK_OK &&
                !v.is_float && v.i >= 1 && v.i <= 1024) {
                block_val[d] = v.i;
                n_block = d + 1;
            } else {
                n_block = 0;
                np = 0;
            }
            expr_free(e);
            hk_free(pt);
        }
        for (size_t d = 0; d < 3; d++)
            hk_free(parts[d]);
        /* a block the program fixes at compile time (a #define, a constexpr) that did not
         * translate; a runtime one (a launcher's block_size) the kernel cannot assume */
        site_block_unread = n_block == 0 && sk_mentions_tunable(k, raw ? raw : site->block);
        hk_free(t);
        hk_free(raw);
        long long case_val = 0;
        if (n_block)
            sk_note(k, "block from the launch site at %s:%d", file, site_line);
        else if (sk_switch_case(k, site, &case_val)) {
            /* switch (n_threads) { case 1024: k<1024><<<b, n_threads>>> ...: the launch
             * runs with that value (a kernel templated on its block needs it) */
            block_val[0] = case_val;
            block_val[1] = block_val[2] = 1;
            n_block = 1;
            site_block_unread = false;
            sk_note(k, "block %lld: the launch at %s:%d is under `case %lld:` of a switch on its block %s",
                    case_val, file, site_line, case_val, site->block);
        }
    }
    /* an integer argument passed as a member (s.n, p->batch) is that parameter wherever the
     * launcher writes it (grid, allocations) */
    for (size_t i = 0; site && i < f->n_params && i < site->n_args; i++) {
        const an_param *p = &f->params[i];
        int dt;
        char chain[256];
        size_t cl = 0;
        for (const char *c = site->args[i]; *c && cl + 1 < sizeof chain; c++)
            if (!isspace((unsigned char)*c))
                chain[cl++] = *c;
        chain[cl] = '\0';
        bool member = (strchr(chain, '.') || strstr(chain, "->")) &&
                      strspn(chain, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.->") == cl &&
                      !isdigit((unsigned char)chain[0]);
        if (member && p->pointer_depth == 0 && p->name[0] && is_identifier(p->name) &&
            spec_dtype_parse(p->elem_type, &dt) == HK_OK && !hk_dtype_is_float(dt)) {
            sk_map(k, chain, p->name);
            sk_note(k, "%s passed as %s at %s:%d: that text in the launcher is the size %s", p->name,
                    site->args[i], file, site_line, p->name);
        }
    }
    /* scalars: values from the launch arguments; integer ones define size variables */
    for (size_t i = 0; i < f->n_params; i++) {
        const an_param *p = &f->params[i];
        if (p->pointer_depth > 0)
            continue;
        int dt = HK_DT_F32;
        char scalar_type[96];
        sk_resolve_type(k, p->elem_type, scalar_type, sizeof scalar_type);
        bool is_int = spec_dtype_parse(scalar_type, &dt) == HK_OK && !hk_dtype_is_float(dt);
        const char *arg = site && i < site->n_args ? site->args[i] : NULL;
        if (!strcmp(p->elem_type, "bool")) {
            /* a flag, never a size: true only when the launch says so. False is the common
             * default of such flags (mmcv's aligned=False, whose branch writes every output) */
            bool on = arg && (!strcmp(arg, "true") || !strcmp(arg, "1"));
            scal[i] = hk_strdup(on ? "1" : "0");
            if (!arg)
                sk_note(k, "flag %s set to false (no launch site gives it)", p->name[0] ? p->name : "?");
            continue;
        }
        char *t = arg ? sk_translate(k, arg, 0) : NULL;
        if (is_int) {
            if (!t && p->name[0] && is_identifier(p->name))
                t = hk_strdup(p->name);
            if (t) {
                sk_collect(k, t);
                scal[i] = t;
            }
        } else {
            expr *e = NULL;
            expr_value v;
            if (t && expr_parse(t, &e, NULL, 0) == HK_OK && expr_eval(e, NULL, 0, &v, NULL, 0) == HK_OK)
                scal[i] = hk_asprintf("%.9g", expr_value_double(v));
            expr_free(e);
            hk_free(t);
        }
    }
    /* the program's own values of the size variables (int n = 1 << 20 is not one) */
    for (size_t i = 0; i < k->n_vars; i++) {
        size_t saved = k->n_keep;
        k->n_keep = 0;
        char *t = sk_translate(k, k->vars[i], 0);
        k->n_keep = saved;
        expr *e = NULL;
        expr_value v;
        if (t && strcmp(t, k->vars[i]) != 0 && expr_parse(t, &e, NULL, 0) == HK_OK &&
            expr_eval(e, NULL, 0, &v, NULL, 0) == HK_OK && !v.is_float && v.i >= 1 && v.i <= (1LL << 31)) {
            program[i] = v.i;
            have_program[i] = true;
        }
        expr_free(e);
        hk_free(t);
    }
    /* kernel parameters read in the body are their launch values */
    for (size_t i = 0; i < f->n_params; i++)
        if (scal[i] && f->params[i].name[0] && f->params[i].pointer_depth == 0)
            sk_map(k, f->params[i].name, scal[i]);

    size_t n_block_read = n_block; /* the launch's block, when it could be read */
    /* the index math: dimensions used, bounds, grid-stride, a block size it hard-codes */
    kf_scan(k, f, &kf);
    if (!kf.grid_stride && k->km) { /* a grid-stride loop written by a macro the text hides */
        size_t nl = 0;
        const km_loop *l = km_loops(k->km, &nl);
        for (size_t i = 0; i < nl; i++)
            kf.grid_stride |= l[i].kind == KM_LOOP_GRID_STRIDE;
    }
    cover->grid_stride = kf.grid_stride;
    long long pinned = 0;
    if (kf.fixed_block) {
        pinned = kf.fixed_block;
        sk_note(k, "block pinned at %lld: %s (line %d)", pinned, kf.fixed_why, kf.fixed_line);
    } else if (f->launch_bounds) {
        char *lb = hk_strdup(f->launch_bounds);
        if (lb)
            lb[strcspn(lb, ",")] = '\0';
        char *tr = lb ? sk_translate(k, lb, 0) : NULL;
        expr *e = NULL;
        expr_value v;
        if (tr && expr_parse(tr, &e, NULL, 0) == HK_OK && expr_eval(e, NULL, 0, &v, NULL, 0) == HK_OK &&
            !v.is_float && v.i >= 1 && v.i <= 1024) {
            long long threads = block_val[0] * block_val[1] * block_val[2];
            if (!n_block || threads > v.i) {
                n_block = 1;
                block_val[0] = v.i;
                block_val[1] = block_val[2] = 1;
            }
            pinned = -1; /* the block is fixed as launched */
            sk_note(k, "block pinned: the kernel declares __launch_bounds__(%s)", f->launch_bounds);
        }
        expr_free(e);
        hk_free(tr);
        hk_free(lb);
    }
    if (pinned > 0 && (!n_block || block_val[0] != pinned)) {
        if (n_block && block_val[0] != pinned)
            sk_doubt(k, "the launch at %s:%d uses a block of %lld but the index math assumes %lld",
                     file, site_line, block_val[0], pinned);
        n_block = n_block ? n_block : 1;
        block_val[0] = pinned;
    }
    if (n_block == 0 && site_block_unread)
        /* the program launches one block size, which the kernel may assume (a shared table
         * per warp, a loop over a fixed count): another one is not a guess to run on */
        sk_doubt(k, "the block %s of the launch at %s:%d could not be read: guessed %s", site->block, file,
                 site_line, kf.uses_dim[1] ? "16 x 16" : "256");
    if (n_block == 0) {
        bool two = kf.uses_dim[1];
        n_block = two ? 2 : 1;
        block_val[0] = two ? 16 : 256;
        block_val[1] = two ? 16 : 1;
    }

    static const char *const bvars[3] = { "block_x", "block_y", "block_z" };
    char bvar_lit[3][24];
    const char *bvar[3];
    for (int d = 0; d < 3; d++) {
        snprintf(bvar_lit[d], sizeof bvar_lit[d], "%lld", block_val[d]);
        bvar[d] = pinned ? bvar_lit[d] : bvars[d];
    }

    /* what each grid dimension must cover, from the bounds checks */
    char *derived[3] = { 0 };
    int odd_line[3] = { 0 };
    for (size_t n = 0; n < kf.n_idx; n++)
        if (kf.idx[n].odd_stride && kf.idx[n].dim >= 0 && !odd_line[kf.idx[n].dim])
            odd_line[kf.idx[n].dim] = kf.idx[n].line;
    for (int d = 0; d < 3; d++) {
        if (!kf.uses_dim[d] || odd_line[d])
            continue;
        bool seen = false;
        for (size_t n = 0; n < kf.n_idx && !derived[d]; n++) {
            kf_index *x = &kf.idx[n];
            if (x->dim != d)
                continue;
            seen = true;
            char *b = kf_bound_spec(k, x);
            if (b && kf_only_sizes(k, b)) {
                derived[d] = x->kind == IX_THREAD ? hk_asprintf("ceil_div(%s, %s)", b, bvar[d]) : hk_strdup(b);
                cover->need[d] = x->kind == IX_THREAD ? hk_asprintf("ceil_div(%s, %lld)", b, block_val[d])
                                                      : hk_strdup(b);
                if (grid_mode == GRID_BOUNDS)
                    sk_note(k, "grid %c from the bounds check on %s at line %d", "xyz"[d], x->name, x->bound_line);
            }
            hk_free(b);
        }
        int gline = 0;
        char *mb = !derived[d] ? kc_axis_bound(k, d, &gline) : NULL;
        if (mb) {
            kf.bounds_checked = true; /* a guard the textual scan did not see */
            derived[d] = hk_asprintf("ceil_div(%s, %s)", mb, bvar[d]);
            cover->need[d] = hk_asprintf("ceil_div(%s, %lld)", mb, block_val[d]);
            if (grid_mode == GRID_BOUNDS)
                sk_note(k, "grid %c from the bounds check at line %d (the kernel model's global "
                        "index)", "xyz"[d], gline);
            hk_free(mb);
        }
        (void)seen;
        if (!cover->need[d] && !kf.grid_stride)
            cover->unknown[d] = true;
    }

    /* grid: the launch's (in spec terms), or the one the bounds imply */
    if (grid_mode == GRID_SITE && site && site->grid) {
        /* the launcher variable that is the block (threads = min(prop.maxThreadsPerBlock,
         * 256)) stands for it in the grid: ceil_div(n, threads) follows a block the search
         * changes */
        size_t base_map = k->n_map;
        if (n_block_read == 1 && site->block && is_identifier(site->block) && !sk_mapped(k, site->block) &&
            !sk_tunable_value(k, site->block))
            sk_map(k, site->block, bvar[0]);
        char *raw = sk_local_init(k, site->grid);
        char *parts[3] = { 0 };
        size_t np = sk_split_dims(raw && !strncmp(raw, "dim3(", 5) ? raw : site->grid, parts);
        bool ok = np > 0;
        for (size_t d = 0; d < np; d++) {
            grid[d] = sk_translate(k, parts[d], 0);
            ok &= grid[d] != NULL;
        }
        while (k->n_map > base_map) {
            k->n_map--;
            hk_free(k->map_from[k->n_map]);
            hk_free(k->map_to[k->n_map]);
        }
        for (size_t d = 0; ok && d < np; d++)
            sk_collect(k, grid[d]); /* a launcher name in the grid is a size too */
        n_grid = ok ? np : 0;
        for (size_t d = 0; d < 3; d++)
            hk_free(parts[d]);
        hk_free(raw);
        if (!ok)
            for (size_t d = 0; d < 3; d++) {
                hk_free(grid[d]);
                grid[d] = NULL;
            }
        for (size_t d = 0; d < n_grid; d++) {
            char *cd = sk_ceil_div(grid[d], block_val[d], bvar[d]);
            if (cd) {
                hk_free(grid[d]);
                grid[d] = cd;
            }
        }
        if (n_grid)
            sk_note(k, "grid from the launch site at %s:%d", file, site_line);
    }
    bool site_grid = n_grid > 0;
    if (site_grid)
        sk_map_grid(k, grid, n_grid);
    if (grid_mode == GRID_BOUNDS || (grid_mode == GRID_SITE && n_grid == 0)) {
        size_t nd = 0;
        for (int d = 0; d < 3; d++)
            if (derived[d] || kf.uses_dim[d])
                nd = (size_t)d + 1;
        bool ok = nd > 0;
        for (size_t d = 0; d < nd && ok; d++)
            ok = derived[d] || !kf.uses_dim[d];
        if (ok) {
            for (size_t d = 0; d < nd; d++)
                grid[d] = derived[d] ? hk_strdup(derived[d]) : hk_strdup("1");
            n_grid = nd;
            if (grid_mode == GRID_SITE)
                for (size_t d = 0; d < nd; d++)
                    if (derived[d])
                        sk_note(k, "grid %c from the bounds checks of the index math", "xyz"[d]);
        }
    }
    int stride_line = 0;
    bool guessed_grid = false;
    char *stride_bound = NULL;
    bool stride_grid = false; /* the grid is a grid-stride loop's bound: one iteration each */
    if (!site_grid && n_grid > 1 && kf.grid_stride && grid[0] && !strcmp(grid[0], "1") &&
        (stride_bound = kc_stride_bound(k, &stride_line))) {
        /* a grid-stride loop along x beside bounds-checked y and z (planes of blockIdx.y,
         * .z): one thread per element of its bound, as for a 1D grid, not one block */
        hk_free(grid[0]);
        grid[0] = hk_asprintf("ceil_div(%s, %s)", stride_bound, bvar[0]);
        sk_note(k, "grid x over %s: the bound of the grid-stride loop at line %d", stride_bound,
                stride_line);
        stride_grid = true;
        hk_free(stride_bound);
        stride_bound = NULL;
    }
    /* A 2-D kernel without bounds checks that writes rows of a matrix (kc_row_tiles): the
     * columns are its row stride, the rows one size the kernel never reads (the grid's to
     * choose); the counts then follow the grid, or the guess stays a doubt (below). */
    if (n_grid == 0 && !site_grid && kf.uses_dim[1] && !kf.uses_dim[2] && !kf.bounds_checked &&
        !kc_has_grid_stride(k) && pinned >= 0 && kc_row_tiles(k, f, &rows) &&
        (!pinned || (rows.bx && rows.cx == pinned)) &&
        (!n_block_read || (block_val[1] == rows.cy && (!rows.bx || block_val[0] == rows.cx)))) {
        uint32_t fs = f->body_span.start_byte, fe = f->body_span.end_byte <= len ? f->body_span.end_byte
                                                                                  : (uint32_t)len;
        int found = 0;
        for (size_t i = 0; i < f->n_params; i++) {
            const an_param *p = &f->params[i];
            int dt;
            size_t nl = strlen(p->name);
            bool unread = p->pointer_depth == 0 && nl && spec_dtype_parse(p->elem_type, &dt) == HK_OK &&
                          !hk_dtype_is_float(dt) && scal[i] && !strcmp(scal[i], p->name);
            for (size_t at = fs; unread && at < fe; at++)
                unread = !word_at(text, fe, at, p->name, nl);
            for (size_t at = 0, sl = strlen(rows.stride); unread && at < sl; at++)
                unread = !word_at(rows.stride, sl, at, p->name, nl);
            if (unread && found++ == 0)
                rows_size = hk_strdup(p->name);
        }
        if (found != 1) {
            hk_free(rows_size);
            rows_size = NULL;
        }
    }
    if (rows_size) {
        block_val[0] = rows.bx ? rows.cx : n_block ? block_val[0] : 16;
        block_val[1] = rows.cy;
        block_val[2] = 1;
        n_block = 2;
        grid[0] = rows.bx ? hk_asprintf("ceil_div(%s, %lld)", rows.stride, rows.cx) : hk_strdup("1");
        grid[1] = hk_asprintf("ceil_div(%s, %lld)", rows_size, rows.cy);
        n_grid = 2;
        sk_map_grid(k, grid, n_grid);
        sk_note(k, "grid %s x %s, block %lld x %lld: %s writes rows of stride %s at %lld * blockIdx.y + "
                "threadIdx.y%s, and never reads %s (the rows launched)", grid[0] ? grid[0] : "?",
                grid[1] ? grid[1] : "?", block_val[0], block_val[1], f->name, rows.stride, rows.cy,
                rows.bx ? ", tiles side by side across it" : ", one block wide", rows_size);
    }
    for (int d = 0; d < 3; d++)
        hk_free(derived[d]);
    if (k->n_vars == 0)
        sk_add_var(k, "n");

    /* buffer counts: the host's allocation, else the index math, else a guess */
    char product[512] = "";
    for (size_t i = 0; i < k->n_vars && strlen(product) < 400; i++) {
        strcat(product, i ? " * " : "");
        strncat(product, k->vars[i], 60);
    }
    if (n_grid == 0 && kf.grid_stride && !kf.uses_dim[1] && !kf.uses_dim[2] &&
        (stride_bound = kc_stride_bound(k, &stride_line))) {
        /* a grid-stride loop covers its bound with any grid: one thread per element */
        n_grid = 1;
        grid[0] = hk_asprintf("ceil_div(%s, %s)", stride_bound, bvar[0]);
        sk_note(k, "grid over %s: the bound of the grid-stride loop at line %d", stride_bound,
                stride_line);
        stride_grid = true;
    }
    hk_free(stride_bound);
    if (n_grid == 0) {
        n_grid = 1;
        grid[0] = hk_asprintf("ceil_div(%s, %s)", k->n_vars == 1 ? k->vars[0] : product, bvar[0]);
        if (n_block > 1 && !pinned) {
            n_block = 1;
            block_val[0] = 256;
        }
        if (kf.uses_dim[1] || kf.uses_dim[2] || (kf.uses_dim[0] && !kf.grid_stride && !cover->need[0]))
            guessed_grid = true; /* a doubt, unless the counts follow the grid (below) */
    }
    for (int d = 0; d < 3 && !site_grid && !kf.grid_stride && !rows_size; d++)
        if (odd_line[d])
            sk_doubt(k, "the index at line %d scales blockIdx.%c by neither blockDim.%c nor a constant: "
                     "how many blocks cover the outputs is not known", odd_line[d], "xyz"[d], "xyz"[d]);
    for (size_t d = 0; d < n_block; d++)
        block[d] = hk_asprintf("%lld", block_val[d]);
    for (size_t d = 0; d < n_block; d++)
        k->block_known[d] = block_val[d];
    for (size_t d = n_block; d < 3; d++)
        k->block_known[d] = 1;
    sk_map_threads(k, grid, n_grid, block_val, n_block);
    const an_function *fn = f;
    uint32_t bs = fn->body_span.start_byte, be = fn->body_span.end_byte <= len ? fn->body_span.end_byte : (uint32_t)len;
    for (size_t i = 0; i < f->n_params && i < HK_MAX_ARGS; i++) {
        const an_param *p = &f->params[i];
        if (p->pointer_depth == 0)
            continue;
        int width = 1;
        const char *elem = p->elem_type;
        for (size_t t = 0; t < n_tp; t++)
            if (!strcmp(tparams[t], elem) && tactual[t])
                elem = tactual[t];
        char elem_buf[96];
        sk_resolve_pointee(k, elem, elem_buf, sizeof elem_buf);
        elem = elem_buf;
        long esize = sk_type_size(elem);
        const char *dt = sk_dtype(elem, NULL, 0, &width);
        int dtc = HK_DT_F32;
        spec_dtype_parse(dt, &dtc);
        long dsize = (long)hk_dtype_size(dtc);
        int line = 0;
        const char *arg = site && i < site->n_args ? site->args[i] : NULL;
        char *c = sk_count_from_host(k, arg, esize ? esize : dsize * width, elem, &line);
        size_t moved = sk_pointer_moved(text, bs, be, p->name);
        size_t made_at = sk_pointer_derived(text, bs, be, p->name);
        if (c) {
            count_host[i] = true;
            if (k->site_file)
                sk_note(k, "count of %s from its allocation at %s:%d", p->name, k->site_file, line);
            else
                sk_note(k, "count of %s from its allocation at line %d", p->name, line);
        } else if (moved && kc_moved_once(k, p->name, stride_grid) && kc_accesses_resolved(k->km, f) &&
                   (c = kc_count(k, p->name)) != NULL) {
            sk_note(k, "count of %s from the kernel model's index forms in %s (its move at line %d "
                    "put in)", p->name, f->name, sk_line(k, moved));
        } else if (moved) {
            sk_note(k, "%s is moved at line %d (its subscripts are relative to that): no count "
                    "from the index math", p->name, sk_line(k, moved));
        } else if (made_at) {
            /* its own subscripts miss what the pointer made from it reaches: only the
             * model, when it followed every such pointer, gives the count */
            if (kc_accesses_resolved(k->km, f) && (c = kc_count(k, p->name)) != NULL)
                sk_note(k, "count of %s from the kernel model's index forms in %s (the pointer made "
                        "from it at line %d followed)", p->name, f->name, sk_line(k, made_at));
            else
                derived_line[i] = sk_line(k, made_at);
        } else if ((c = kf_count_from_index(k, f, &kf, p->name)) != NULL) {
            sk_note(k, "count of %s from its subscripts in %s", p->name, f->name);
        } else if ((c = kc_count(k, p->name)) != NULL) {
            sk_note(k, "count of %s from the kernel model's index forms in %s (temporaries followed)",
                    p->name, f->name);
        }
        if (c) {
            count_sure[i] = true;
            if (width > 1) {
                char *w = hk_asprintf("(%s) * %d", c, width);
                hk_free(c);
                c = w;
            }
        } else {
            c = width > 1 ? hk_asprintf("%s * %d", product, width) : hk_strdup(product);
        }
        (void)bs;
        (void)be;
        counts[i] = c;
    }
    if (k->nomem)
        goto nomem;
    if (guessed_grid) {
        /* A 1D kernel without bounds checks runs on any grid: when the model bounds every
         * buffer by the threads launched (out[gid] with gid below them), the counts follow
         * the guess and nothing is left unsized. Otherwise the guess is a doubt. */
        bool follows = !kf.uses_dim[1] && !kf.uses_dim[2] && k->threads_known[0] && !kf.bounds_checked &&
                       !odd_line[0];
        for (size_t i = 0; i < f->n_params && i < HK_MAX_ARGS && follows; i++)
            follows = f->params[i].pointer_depth == 0 || count_sure[i];
        if (follows)
            sk_note(k, "grid guessed over %s: %s has no bounds check, and every count follows the "
                    "threads it launches", k->n_vars == 1 ? k->vars[0] : product, f->name);
        else
            sk_doubt(k, "no launch site or bounds check says how many blocks %s needs: guessed a 1D grid over %s",
                     f->name, k->n_vars == 1 ? k->vars[0] : product);
    }
    if (rows_size) {
        /* the rows are the grid's to choose only when every buffer is counted from it (an
         * allocation of the program's need not hold the rows guessed) */
        bool follows = true;
        for (size_t i = 0; i < f->n_params && i < HK_MAX_ARGS && follows; i++)
            follows = f->params[i].pointer_depth == 0 || (count_sure[i] && !count_host[i]);
        if (!follows)
            sk_doubt(k, "no launch site or bounds check says how many blocks %s needs: guessed a 2D grid of "
                     "%s x %s", f->name, grid[0] ? grid[0] : "?", grid[1] ? grid[1] : "?");
    }

    bool ok = true;
    root = json_object();
    json_t *args = json_array(), *sizes = json_array(), *launch = json_object();
    json_t *s0 = json_object(), *s1 = json_object();
    if (!root || !args || !sizes || !launch || !s0 || !s1) {
        json_decref(args);
        json_decref(sizes);
        json_decref(launch);
        json_decref(s0);
        json_decref(s1);
        goto nomem;
    }
    /* A kernel with bounds checks gets a ragged first set (not a multiple of any block
     * size); one without keeps to multiples of its block. The program's own sizes, where
     * the launcher sets them, are the second set. Distinct values per variable so swapped
     * dimensions show. */
    static const long long first[3][3] = { { 1000003 }, { 1000, 1003 }, { 67, 99, 131 } };
    static const long long second[3][3] = { { 16777216 }, { 2048, 4096 }, { 128, 256, 512 } };
    /* gridDim without a grid-stride loop (srad's last row of blocks) leaves the sizes whole */
    bool ragged = kf.bounds_checked || (kf.grid_stride && !rows_size);
    bool all_program = k->n_vars > 0;
    for (size_t i = 0; i < k->n_vars; i++)
        all_program &= have_program[i];
    /* The launcher's asserts: a size it bounds by a constant (assert(len <= MAX_LEN)) is
     * invented no larger: the program is written for every value up to it (a shared array
     * sized for the largest). Every assert that reads sizes alone is checked at both sets
     * below, the lower bounds too. */
    sk_assert_cmp asserts[SK_MAX_ASSERTS];
    size_t n_asserts = site && k->site_text ? sk_launcher_asserts(k, asserts, SK_MAX_ASSERTS) : 0;
    long long bounded[SK_MAX_VARS];
    int bounded_line[SK_MAX_VARS] = { 0 };
    for (size_t i = 0; i < k->n_vars; i++) {
        bounded[i] = -1;
        for (size_t c = 0; c < n_asserts; c++) {
            long long hi = sk_assert_upper(&asserts[c], k->vars[i]);
            if (hi > 0 && (bounded[i] < 0 || hi < bounded[i])) {
                bounded[i] = hi;
                bounded_line[i] = asserts[c].line;
            }
        }
    }
    for (size_t i = 0; i < k->n_vars; i++) {
        long long a = 13 + 2 * (long long)i, b = 32;
        if (k->n_vars <= 3) {
            a = first[k->n_vars - 1][i];
            b = second[k->n_vars - 1][i];
        }
        if (k->n_vars > 1 && (sk_subtracted(k->vars[i], grid, n_grid) || sk_subtracted(k->vars[i], cover->need, 3))) {
            /* an offset taken off a bound (Rodinia's Fan2: gid < Size - 1 - t): small,
             * so the bound stays positive at every set */
            a = 1;
            b = 3;
        } else if (k->n_vars > 1 && sk_dim_like(k->vars[i])) {
            a = 64;
            b = 128;
        }
        if (!ragged) {
            long long unit = block_val[0] * block_val[1];
            a = b;
            b = 2 * b;
            if (unit > 1 && a % unit)
                a = (a / unit + 1) * unit;
            if (unit > 1 && b % unit)
                b = (b / unit + 1) * unit;
        }
        if (all_program && have_program[i]) {
            if (ragged)
                b = program[i];
            else {
                a = program[i];
                b = 2 * program[i];
            }
        } else if (bounded[i] > 0 && (a > bounded[i] || b > bounded[i])) {
            a = a < bounded[i] ? a : bounded[i];
            b = b < bounded[i] ? b : bounded[i];
            sk_note(k, "size %s at most %lld: the largest the assert at %s:%d allows", k->vars[i], bounded[i],
                    file, bounded_line[i]);
        }
        ok &= json_object_set_new(s0, k->vars[i], json_integer(a)) == 0;
        ok &= json_object_set_new(s1, k->vars[i], json_integer(b)) == 0;
    }
    if (!all_program && k->km) {
        /* a shared array has the extent the kernel declares; a subscript of it that a
         * scalar parameter moves (cuda-samples' scan: pos + size) stays inside only for
         * the values the program passes, which invented sizes need not be */
        size_t na = 0;
        const km_access *ac = km_accesses(k->km, &na);
        for (size_t i = 0; i < na; i++)
            if (ac[i].space == KM_SPACE_SHARED && km_form_mentions_kind(k->km, ac[i].index, KM_ATOM_PARAM, -1) &&
                !kc_params_bounded(k, f, ac[i].index, scal, bounded, 0)) {
                sk_doubt(k, "the shared-memory subscript at line %u depends on a scalar parameter, whose "
                         "value is invented: it may leave the shared array (give the sizes the program uses)",
                         ac[i].line);
                break;
            }
    }
    for (size_t c = 0; c < n_asserts; c++) {
        for (int set = 0; set < 2; set++)
            if (sk_assert_holds(&asserts[c], set ? s1 : s0) == 0) {
                sk_doubt(k, "sizes[%d] break the assert at %s:%d (%s %s %s): the program does not run "
                         "with them", set, file, asserts[c].line, asserts[c].lhs, asserts[c].op, asserts[c].rhs);
                break;
            }
        hk_free(asserts[c].lhs);
        hk_free(asserts[c].rhs);
    }
    if (all_program)
        sk_note(k, "sizes from the launch site at %s:%d", file, site_line);
    else
        sk_note(k, "sizes invented: %s", ragged ? "one set not a multiple of the block" : "multiples of the block");
    if (!ragged)
        sk_note(k, "no bounds check in %s: every size a multiple of the block", f->name);
    for (int set = 0; rows_size && set < 2; set++) {
        /* rows S apart hold the columns written only when those are at most S: else two
         * threads write one element */
        long long stride = 0, cols = 0;
        char *width = rows.bx ? hk_asprintf("ceil_div(%s, %lld) * %lld", rows.stride, rows.cx, rows.cx)
                              : hk_asprintf("%lld", block_val[0]);
        if (!sk_eval_at(rows.stride, set ? s1 : s0, &stride) || !sk_eval_at(width, set ? s1 : s0, &cols) ||
            cols > stride) {
            sk_doubt(k, "%s writes rows %s apart, %s elements wide at sizes[%d]: rows may overlap",
                     f->name, rows.stride, width ? width : "?", set);
            set = 2;
        } else if (rows.store && cols < stride) {
            /* an output's elements between the rows would stay unwritten */
            sk_doubt(k, "%s stores rows %s apart, %s elements wide at sizes[%d]: the elements "
                     "between them are never written", f->name, rows.stride, width ? width : "?", set);
            set = 2;
        }
        hk_free(width);
    }
    ok &= json_array_append_new(sizes, s0) == 0;
    ok &= json_array_append_new(sizes, s1) == 0;

    size_t gather = sk_gather(text, bs, be, f);
    uint32_t gather_line = gather ? (uint32_t)sk_line(k, gather) : km_gather_line(k->km, f);
    long long index_limit[HK_MAX_ARGS] = { 0 };
    const json_t *const size_sets[2] = { s0, s1 };
    int kg_line = 0;
    bool index_compared[HK_MAX_ARGS] = { 0 };
    if (gather_line && kg_gathers(k, f, bs, be, counts, size_sets, 2, gather ? (int)gather_line : 0,
                                  index_limit, &kg_line, index_compared)) {
        for (size_t i = 0; i < f->n_params && i < HK_MAX_ARGS; i++)
            if (index_limit[i] && index_compared[i])
                sk_note(k, "values of %s in [0, %lld]: the kernel compares them with a remainder by a "
                        "size (a class label), and every subscript they feed (line %d) stays inside its "
                        "buffer at every size set", f->params[i].name, index_limit[i] - 1, kg_line);
            else if (index_limit[i])
                sk_note(k, "values of %s in [0, %lld]: it is the lowest digit of a subscript whose other "
                        "terms are multiples of a size (line %d), and every subscript it feeds stays "
                        "inside its buffer at every size set", f->params[i].name, index_limit[i] - 1, kg_line);
    } else if (gather_line) {
        for (size_t i = 0; i < HK_MAX_ARGS; i++)
            index_limit[i] = 0;
        sk_doubt(k, "the subscript at line %u is a value read from a buffer: the generated inputs "
                 "are not valid indices (give that input an int(lo,hi) distribution)", gather_line);
    }
    /* __constant__ data the program sets with cudaMemcpyToSymbol: inputs the harness fills */
    json_t *constants = sk_constants(k, f);
    if (!constants)
        k->nomem = true;

    bool any_output = false;
    char bytes[1024] = "";
    bool bytes_ok = true;
    for (size_t i = 0; i < f->n_params; i++) {
        const an_param *p = &f->params[i];
        json_t *a = json_object();
        if (!a) {
            ok = false;
            break;
        }
        ok &= json_object_set_new(a, "name", json_string(p->name[0] ? p->name : "arg")) == 0;
        int width = 1;
        const char *elem = p->elem_type;
        for (size_t t = 0; t < n_tp; t++)
            if (!strcmp(tparams[t], elem) && tactual[t])
                elem = tactual[t];
        char elem_buf[96];
        sk_resolve_type(k, elem, elem_buf, sizeof elem_buf);
        if (p->pointer_depth > 0 && !sk_dtype_known(elem_buf)) {
            char plain[96];
            snprintf(plain, sizeof plain, "%s", elem_buf);
            sk_resolve_pointee(k, elem, elem_buf, sizeof elem_buf);
            if (sk_dtype_known(elem_buf))
                sk_note(k, "%s points to %s, a struct of like fields: passed as %s", p->name, plain, elem_buf);
        }
        elem = elem_buf;
        const char *dt = sk_dtype(elem, NULL, 0, &width);
        if (!sk_dtype_known(elem))
            sk_doubt(k, "%s is of type %s, which the generated harness does not know: passed as float",
                     p->name[0] ? p->name : "?", elem);
        if (p->pointer_depth > 0) {
            int use = p->is_const ? -1 : sk_pointer_use(text, bs, be, p->name);
            bool written = !p->is_const && (use >= 2 || sk_pointer_written(text, bs, be, p->name));
            const char *kind = use < 0 || !written ? "input" : use == 0 ? "output" : "inout";
            if (use >= 0 && !written)
                sk_note(k, "%s is never written: an input", p->name);
            any_output |= strcmp(kind, "input") != 0;
            ok &= json_object_set_new(a, "kind", json_string(kind)) == 0;
            ok &= json_object_set_new(a, "dtype", json_string(dt)) == 0;
            const char *cnt = use == 3 ? "1" : counts[i];
            if (use != 3 && !count_sure[i] && derived_line[i])
                /* an input too: a guess short of what the other pointer reads would read
                 * past the buffer */
                sk_doubt(k, "%s is used through another pointer made from it at line %d: how many "
                         "elements that reaches is not known (guessed %s)", p->name, derived_line[i],
                         cnt ? cnt : "?");
            else if (use != 3 && !count_sure[i] && strcmp(kind, "input") != 0)
                sk_doubt(k, "how many elements %s has is not in the index math or the host code: guessed %s",
                         p->name, cnt ? cnt : "?");
            else if (use != 3 && !count_sure[i])
                sk_note(k, "count of %s guessed as %s", p->name, cnt ? cnt : "?");
            ok &= json_object_set_new(a, "count", json_string(cnt ? cnt : "1")) == 0;
            if (use >= 2)
                ok &= json_object_set_new(a, "dist", json_string("zeros")) == 0;
            else if (i < HK_MAX_ARGS && index_limit[i]) {
                char d[64];
                snprintf(d, sizeof d, "int(0,%lld)", index_limit[i] - 1);
                ok &= json_object_set_new(a, "dist", json_string(d)) == 0;
            }
            int dtc = HK_DT_F32;
            spec_dtype_parse(dt, &dtc);
            size_t bl = strlen(bytes);
            if (!count_sure[i] && use != 3)
                bytes_ok = false;
            else if ((size_t)snprintf(bytes + bl, sizeof bytes - bl, "%s%d * (%s)", bl ? " + " : "",
                                      (int)hk_dtype_size(dtc) * (!strcmp(kind, "inout") ? 2 : 1),
                                      cnt ? cnt : "1") >= sizeof bytes - bl)
                bytes_ok = false; /* cut short, it would be no expression (long counts: srad's) */
        } else {
            ok &= json_object_set_new(a, "kind", json_string("scalar")) == 0;
            int dtc = HK_DT_F32;
            spec_dtype_parse(dt, &dtc);
            ok &= json_object_set_new(a, "dtype", json_string(dt)) == 0;
            if (scal[i] && !hk_dtype_is_float(dtc))
                ok &= json_object_set_new(a, "value", json_string(scal[i])) == 0;
            else if (!hk_dtype_is_float(dtc))
                ok &= json_object_set_new(a, "value", json_integer(1)) == 0;
            else
                ok &= json_object_set_new(a, "value", json_real(scal[i] ? atof(scal[i]) : sk_float_default(p->name))) == 0;
            if (!scal[i])
                sk_note(k, "value of %s invented (no launch site gives it)", p->name[0] ? p->name : "?");
        }
        ok &= json_array_append_new(args, a) == 0;
    }
    if (!any_output)
        sk_doubt(k, "%s writes none of its pointers that the body shows: nothing to compare", f->name);

    ok &= json_object_set_new(root, "name", json_string(f->name)) == 0;
    ok &= json_object_set_new(root, "description",
                        json_string("Inferred by hkls from the kernel's index math and its launch site; "
                                    "\"inferred\" says what was guessed and from where.")) == 0;
    ok &= json_object_set_new(root, "kernel", json_string(f->name)) == 0;
    ok &= json_object_set_new(root, "source", json_string(source)) == 0;
    if (n_ta) {
        json_t *ta = json_array();
        for (size_t i = 0; ta && i < n_ta; i++)
            ok &= json_array_append_new(ta, json_string(targs[i] ? targs[i] : "128")) == 0;
        ok &= json_object_set_new(root, "template_args", ta) == 0;
    }
    ok &= json_object_set_new(root, "sizes", sizes) == 0;
    ok &= json_object_set_new(root, "args", args) == 0;
    if (json_array_size(constants))
        ok &= json_object_set_new(root, "constants", json_incref(constants)) == 0;
    json_decref(constants);
    constants = NULL;
    ok &= json_object_set_new(launch, "grid", sk_dims_json(grid, n_grid)) == 0;
    ok &= json_object_set_new(launch, "block", sk_dims_json(block, n_block)) == 0;
    int dyn_line = sk_dynamic_shared(k, f);
    if (dyn_line) {
        /* extern __shared__ (or a SharedMemory<T>() helper) has the bytes the launch
         * gives: without them every shared access is out of bounds */
        long tsize = n_tp ? sk_type_size(tactual[0]) : 0;
        char *sh = site && site->shmem ? sk_shmem(k, site, tsize, n_tp ? tparams[0] : "") : NULL;
        expr *x = NULL;
        expr_value v;
        bool constant = sh && expr_parse(sh, &x, NULL, 0) == HK_OK && expr_eval(x, NULL, 0, &v, NULL, 0) == HK_OK &&
                        !v.is_float && v.i > 0;
        expr_free(x);
        if (constant || (sh && sk_sizes_or_block(k, sh, block_val))) {
            ok &= json_object_set_new(launch, "shmem", constant ? json_integer(v.i) : json_string(sh)) == 0;
            sk_note(k, "dynamic shared memory from the launch site at %s:%d", file, site_line);
        } else {
            sk_doubt(k, "%s uses dynamic shared memory (line %d) and %s: how many bytes it needs is not known",
                     f->name, dyn_line, site && site->shmem ? "the launch's size could not be read" : "no launch gives its size");
        }
        hk_free(sh);
    }
    ok &= json_object_set_new(root, "launch", launch) == 0;
    if (bytes_ok && bytes[0]) {
        ok &= json_object_set_new(root, "bytes", json_string(bytes)) == 0;
        sk_note(k, "bytes: every buffer moved once (inouts twice)");
    }
    char *flops = kc_flops(k, f, counts, count_sure);
    if (flops)
        ok &= json_object_set_new(root, "flops", json_string(flops)) == 0;
    hk_free(flops);
    if (!ragged)
        ok &= json_object_set_new(root, "exact_sizes", json_true()) == 0;
    json_t *seeds = json_array();
    for (int i = 1; seeds && i <= SPEC_MIN_SEEDS; i++)
        ok &= json_array_append_new(seeds, json_integer(i)) == 0;
    ok &= json_object_set_new(root, "seeds", seeds) == 0;
    json_t *dists = json_array();
    ok &= json_array_append_new(dists, json_string("uniform(-1,1)")) == 0;
    ok &= json_array_append_new(dists, json_string("normal(0,1)")) == 0;
    ok &= json_array_append_new(dists, json_string("uniform(0,100)")) == 0;
    ok &= json_object_set_new(root, "distributions", dists) == 0;
    /* A failed setter frees the value it was given (NULL included): ok tracks them all. */
    if (!ok || k->nomem)
        goto nomem;
    *out = root;
    root = NULL;
    goto out;
nomem:
    rc = HK_ENOMEM;
out:
    json_decref(root);
    kf_free(&kf);
    hk_free(rows.stride);
    hk_free(rows_size);
    for (size_t i = 0; i < 3; i++) {
        hk_free(block[i]);
        hk_free(grid[i]);
    }
    for (size_t i = 0; i < HK_MAX_ARGS; i++) {
        hk_free(scal[i]);
        hk_free(counts[i]);
    }
    for (size_t i = 0; i < HK_ARRAY_LEN(tparams); i++) {
        hk_free(tparams[i]);
        hk_free(tactual[i]);
        hk_free(targs[i]);
    }
    return rc;
}

/* ---- checking and choosing ---- */

/* Every size set: each grid dimension launches at least the blocks its bounds need. */
static bool sk_covers(const spec *sp, const sk_cover *c, char *why, size_t whylen)
{
    if (c->grid_stride)
        return true;
    for (size_t k = 0; k < sp->n_sizes; k++)
        for (int d = 0; d < 3; d++) {
            if (!c->need[d])
                continue;
            expr *e = NULL;
            expr_value need, got;
            expr_var *vars = hk_calloc(sp->n_size_names + 4, sizeof *vars);
            size_t nv = vars ? spec_size_vars(sp, k, NULL, 132, vars) : 0;
            bool bad = !vars || expr_parse(c->need[d], &e, NULL, 0) != HK_OK ||
                       expr_eval(e, vars, nv, &need, NULL, 0) != HK_OK ||
                       spec_eval(sp, sp->grid[d], k, 132, &got, NULL, 0) != HK_OK;
            hk_free(vars);
            if (bad) {
                expr_free(e);
                snprintf(why, whylen, "cannot evaluate the blocks grid %c needs", "xyz"[d]);
                return false;
            }
            expr_free(e);
            if (got.i < need.i) {
                snprintf(why, whylen, "the grid's %c dimension launches %lld blocks at sizes[%zu] where "
                         "the bounds checks need %lld", "xyz"[d], got.i, k, need.i);
                return false;
            }
        }
    return true;
}

static char **sk_steal_list(char **items, size_t *n, size_t *out_n)
{
    *out_n = 0;
    if (!*n)
        return NULL;
    char **v = hk_calloc(*n, sizeof *v);
    if (!v)
        return NULL;
    memcpy(v, items, *n * sizeof *v);
    *out_n = *n;
    *n = 0;
    return v;
}

void spec_inference_free(spec_inference *inf)
{
    if (!inf)
        return;
    json_decref(inf->spec);
    for (size_t i = 0; i < inf->n_notes; i++)
        hk_free(inf->notes[i]);
    for (size_t i = 0; i < inf->n_doubts; i++)
        hk_free(inf->doubts[i]);
    hk_free(inf->notes);
    hk_free(inf->doubts);
    memset(inf, 0, sizeof *inf);
}

/* A launch site found in another file than the kernel's (all borrowed). */
typedef struct {
    const an_model *m;
    const char *text;
    size_t len;
    const char *label; /* its path, relative to the kernel's directory when under it */
} infer_site;

/* The inference on an analysed text: tries the launch site's grid, then the grid the
 * bounds checks imply, then a flat one; the first that validates (at spec_path, or as
 * text when NULL) and covers every element the bounds name wins. */
static int infer_model(const an_model *m, long kernel, const char *text, size_t len, const char *source,
                       const char *file_label, const infer_site *ext, const char *spec_path,
                       spec_inference *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (err && errlen)
        err[0] = '\0';
    if (!m || kernel < 0 || (size_t)kernel >= m->n_funcs || m->funcs[kernel].kind != AN_KERNEL)
        return HK_EINVAL;
    const an_function *f = &m->funcs[kernel];
    bool writable = false;
    for (size_t i = 0; i < f->n_params; i++)
        writable |= f->params[i].pointer_depth > 0 && !f->params[i].is_const;
    if (f->n_params == 0 || !writable) {
        if (err)
            snprintf(err, errlen, "kernel %s has %s: a generated harness would have nothing to compare; "
                     "use a command-form spec (docs/bench-spec.md)", f->name,
                     f->n_params == 0 ? "no parameters" : "no pointer parameter it can write");
        return HK_EUNSUPPORTED;
    }
    if (f->n_params > HK_MAX_ARGS || !is_kernel_name(f->name)) {
        if (err)
            snprintf(err, errlen, "kernel %s has %zu parameters; the generated harness passes at most %d: "
                     "use a command-form spec", f->name, f->n_params, HK_MAX_ARGS);
        return HK_EUNSUPPORTED;
    }
    char last_why[512] = "";
    /* The model follows index math through temporaries; without one (a parse it cannot
     * read) the textual scan alone decides. */
    km_kernel *km = NULL;
    if (km_build(text, len, f->name, &km, NULL, 0) != HK_OK)
        km = NULL;
    int rc = HK_EUNSUPPORTED;
    for (int mode = GRID_SITE; mode <= GRID_FLAT; mode++) {
        skel k = { .m = m, .text = text, .len = len, .file = file_label, .km = km };
        if (ext) {
            k.site_m = ext->m;
            k.site_text = ext->text;
            k.site_len = ext->len;
            k.site_file = ext->label;
        }
        sk_cover cover = { 0 };
        json_t *root = NULL;
        rc = sk_build(m, kernel, &k, source, mode, &cover, &root);
        if (rc != HK_OK) {
            sk_cover_free(&cover);
            sk_free(&k);
            goto out;
        }
        json_t *inferred = json_array();
        for (size_t i = 0; inferred && i < k.n_notes; i++)
            json_array_append_new(inferred, json_string(k.notes[i]));
        if (!inferred || json_object_set_new(root, "inferred", inferred) != 0) {
            json_decref(root);
            sk_cover_free(&cover);
            sk_free(&k);
            rc = HK_ENOMEM;
            goto out;
        }
        char *dump = json_dumps(root, 0);
        spec_diags d = { 0 };
        spec *sp = NULL;
        rc = dump ? spec_parse(dump, strlen(dump), spec_path, &sp, &d) : HK_ENOMEM;
        hk_free(dump);
        bool covers = rc == HK_OK && sk_covers(sp, &cover, last_why, sizeof last_why);
        if (rc != HK_OK && d.n)
            snprintf(last_why, sizeof last_why, "%s: %s", d.items[0].path, d.items[0].message);
        spec_free(sp);
        spec_diags_free(&d);
        sk_cover_free(&cover);
        if (rc == HK_ENOMEM) {
            json_decref(root);
            sk_free(&k);
            goto out;
        }
        if (rc == HK_OK && (covers || mode == GRID_FLAT)) {
            if (!covers)
                sk_doubt(&k, "%s", last_why);
            if (k.nomem) {
                json_decref(root);
                sk_free(&k);
                rc = HK_ENOMEM;
                goto out;
            }
            out->spec = root;
            out->notes = sk_steal_list(k.notes, &k.n_notes, &out->n_notes);
            out->doubts = sk_steal_list(k.doubts, &k.n_doubts, &out->n_doubts);
            sk_free(&k);
            rc = HK_OK;
            goto out;
        }
        /* keep the reasons of the last attempt for the refusal */
        if (mode == GRID_FLAT && err) {
            size_t at = (size_t)snprintf(err, errlen, "no spec for %s validates: %s", f->name, last_why);
            for (size_t i = 0; i < k.n_doubts && at < errlen; i++)
                at += (size_t)snprintf(err + at, errlen - at, "; %s", k.doubts[i]);
        }
        json_decref(root);
        sk_free(&k);
        rc = HK_EUNSUPPORTED;
    }
out:
    km_free(km);
    return rc;
}

int spec_skeleton(const an_model *m, long kernel, const char *text, size_t len, const char *source,
                  json_t **out)
{
    *out = NULL;
    spec_inference inf;
    int rc = infer_model(m, kernel, text, len, source, source, NULL, NULL, &inf, NULL, 0);
    if (rc == HK_OK) {
        *out = json_incref(inf.spec);
        spec_inference_free(&inf);
    }
    return rc;
}

/* ---- files ---- */


/* "source" as the spec at spec_path writes it: relative to its directory when the source
 * lies under it, else absolute. New string. */
static char *source_for(const char *file, const char *spec_path)
{
    char src_real[PATH_MAX], dir_real[PATH_MAX];
    if (!realpath(file, src_real))
        return hk_strdup(file);
    char *dir = hk_strdup(spec_path ? spec_path : "./x");
    if (!dir)
        return NULL;
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    const char *d = slash ? (dir[0] ? dir : "/") : ".";
    char *res = NULL;
    if (realpath(d, dir_real)) {
        size_t dl = strlen(dir_real);
        if (strncmp(src_real, dir_real, dl) == 0 && src_real[dl] == '/')
            res = hk_strdup(src_real + dl + 1);
    }
    if (!res)
        res = hk_strdup(src_real);
    hk_free(dir);
    return res;
}

/* ---- a launch site in another file of the project ---- */

/* A kernel header's launch often lives in a sibling .cu. The search reads the kernel's
 * directory tree, then, inside a project (a folder up to SIB_ROOT_UP levels above holds
 * .git, compile_commands.json, CMakeLists.txt, Makefile, setup.py or pyproject.toml), its
 * parent's and grandparent's, never above that project's root; outside a project (a loose
 * file in /tmp) only its own folder. In name order, at most SIB_MAX_FILES files of the
 * extensions below, SIB_MAX_DEPTH deep, the first 512 entries of a folder; the first file
 * with a launch of the kernel that passes as many arguments as it takes wins. Hidden
 * folders are skipped. */
#define SIB_MAX_FILES 2000
#define SIB_MAX_DEPTH 6
#define SIB_LEVELS 3
#define SIB_ROOT_UP 8

typedef struct {
    const char *kernel;
    size_t n_params;
    const char *self;  /* the kernel's own file (real path): not searched again */
    const char *skip;  /* a folder already searched (real path), or NULL */
    size_t files;
    char *path;        /* found: real path, text and model (owned) */
    char *text;
    size_t len;
    an_model *m;
} sib_search;

static bool sib_source_name(const char *name)
{
    static const char *const exts[] = { ".cu", ".cuh", ".hip", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp" };
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < HK_ARRAY_LEN(exts); i++)
        if (!strcmp(dot, exts[i]))
            return true;
    return false;
}

/* The file at path, when it holds a launch of the kernel: kept in s. */
static void sib_try_file(sib_search *s, const char *path)
{
    size_t len = 0;
    char *text = NULL;
    (void)hk_read_file(path, INFER_MAX_SOURCE, &text, &len); /* NULL: skipped */
    an_model *m = NULL;
    /* cheap filter before a parse: the name and a launch form */
    if (!text || !strstr(text, s->kernel) ||
        (!strstr(text, "<<<") && !strstr(text, "LaunchKernel")) || an_analyze(text, len, &m) != HK_OK ||
        !sk_find_site(m, s->kernel, s->n_params)) {
        an_model_free(m);
        hk_free(text);
        return;
    }
    s->path = hk_strdup(path);
    s->text = text;
    s->len = len;
    s->m = m;
}

static int sib_name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sib_walk(sib_search *s, const char *dir, int depth)
{
    if (s->m || depth > SIB_MAX_DEPTH || (s->skip && !strcmp(dir, s->skip)))
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    char *names[512];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < HK_ARRAY_LEN(names))
        if (e->d_name[0] != '.' && (names[n] = hk_strdup(e->d_name)) != NULL)
            n++;
    closedir(d);
    qsort(names, n, sizeof *names, sib_name_cmp);
    for (size_t i = 0; i < n; i++) {
        char *p = hk_asprintf("%s/%s", dir, names[i]);
        struct stat st;
        if (p && !s->m && s->files < SIB_MAX_FILES && stat(p, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                sib_walk(s, p, depth + 1);
            } else if (S_ISREG(st.st_mode) && sib_source_name(names[i]) && strcmp(p, s->self) != 0 &&
                       (size_t)st.st_size <= INFER_MAX_SOURCE) {
                s->files++;
                sib_try_file(s, p);
            }
        }
        hk_free(p);
        hk_free(names[i]);
    }
}

/* Searches the project around the kernel's file (real path self) for a launch site. */
static void sib_find(sib_search *s, const char *self)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", self);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return;
    *slash = '\0';
    /* how far up the project's root is; none: this folder alone */
    static const char *const markers[] = { ".git", "compile_commands.json", "CMakeLists.txt", "Makefile",
                                           "setup.py", "pyproject.toml" };
    int root_up = -1;
    char up[PATH_MAX];
    snprintf(up, sizeof up, "%s", dir);
    for (int l = 0; l <= SIB_ROOT_UP && root_up < 0 && up[0]; l++) {
        for (size_t i = 0; i < HK_ARRAY_LEN(markers) && root_up < 0; i++) {
            char mk[PATH_MAX + 32];
            snprintf(mk, sizeof mk, "%s/%s", up, markers[i]);
            if (access(mk, F_OK) == 0)
                root_up = l;
        }
        char *sl = strrchr(up, '/');
        if (!sl || sl == up)
            break;
        *sl = '\0';
    }
    int levels = root_up < 0 ? 1 : root_up + 1 < SIB_LEVELS ? root_up + 1 : SIB_LEVELS;
    char prev[PATH_MAX] = "";
    for (int level = 0; level < levels && dir[0] && !s->m; level++) {
        s->skip = prev[0] ? prev : NULL;
        sib_walk(s, dir, 0);
        if (!(slash = strrchr(dir, '/')) || slash == dir)
            break;
        snprintf(prev, sizeof prev, "%s", dir);
        *slash = '\0';
    }
}

int spec_infer(const char *path, const char *kernel, const char *spec_path, spec_inference *out,
               char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    size_t len = 0;
    char *text = NULL, *src = NULL, *label = NULL;
    an_model *m = NULL;
    sib_search sib = { 0 };
    /* grown as it is read (a 16 MiB buffer per file read cost the sibling search dearly
     * under ASan: tens of thousands of mmap/madvise calls in test_spec_infer) */
    int rc = hk_read_file(path, INFER_MAX_SOURCE, &text, &len);
    if (rc) {
        if (err)
            snprintf(err, errlen, "cannot read %s: %s", path,
                     rc == HK_ETOOBIG ? "larger than 16 MiB" : hk_strerror(rc));
        goto out;
    }
    if ((rc = an_analyze(text, len, &m)) != HK_OK) {
        if (err)
            snprintf(err, errlen, "cannot analyse %s: %s", path, hk_strerror(rc));
        goto out;
    }
    long k = an_model_find_kernel(m, kernel);
    if (k < 0) {
        rc = HK_ENOENT;
        if (err)
            snprintf(err, errlen, "no kernel '%s' in %s", kernel, path);
        goto out;
    }
    if (!(src = source_for(path, spec_path))) {
        rc = HK_ENOMEM;
        goto out;
    }
    infer_site ext = { 0 };
    char self[PATH_MAX];
    const an_function *f = &m->funcs[k];
    if (!sk_find_site(m, f->name, f->n_params) && realpath(path, self)) {
        sib.kernel = f->name;
        sib.n_params = f->n_params;
        sib.self = self;
        sib_find(&sib, self);
        if (sib.m) {
            /* named from the kernel's folder, as a user would look for it */
            size_t dl = (size_t)(strrchr(self, '/') - self);
            bool under = !strncmp(sib.path, self, dl) && sib.path[dl] == '/';
            label = hk_strdup(under ? sib.path + dl + 1 : sib.path);
            ext = (infer_site){ .m = sib.m, .text = sib.text, .len = sib.len, .label = label };
        }
    }
    const char *slash = strrchr(path, '/');
    rc = infer_model(m, k, text, len, src, slash ? slash + 1 : path, sib.m && label ? &ext : NULL, spec_path,
                     out, err, errlen);
out:
    an_model_free(sib.m);
    hk_free(sib.text);
    hk_free(sib.path);
    hk_free(label);
    an_model_free(m);
    hk_free(src);
    hk_free(text);
    return rc;
}

int spec_infer_save(const spec_inference *inf, const char *spec_path, bool replace)
{
    char *dump = json_dumps(inf->spec, JSON_INDENT(2));
    if (!dump)
        return HK_ENOMEM;
    int rc = HK_OK;
    int fd = open(spec_path, O_WRONLY | O_CREAT | O_CLOEXEC | (replace ? O_TRUNC : O_EXCL), 0644);
    if (fd < 0) {
        rc = HK_EIO;
        goto out;
    }
    size_t n = strlen(dump), at = 0;
    while (at < n) {
        ssize_t w = write(fd, dump + at, n - at);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        at += (size_t)w;
    }
    int saved = errno;
    bool bad = at < n || write(fd, "\n", 1) != 1;
    if (close(fd) != 0)
        bad = true;
    if (bad) {
        unlink(spec_path);
        errno = saved;
        rc = HK_EIO;
    }
out:
    hk_free(dump);
    return rc;
}

/* ---- where a kernel's spec lives ---- */

char *spec_default_path(const char *path, const char *kernel)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    return hk_asprintf("%.*s%.*s.%s.bench.json", (int)(base - path), path, (int)stem, base, kernel);
}

char *spec_find(const char *path, const char *kernel)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char *cands[3] = { spec_default_path(path, kernel),
                       hk_asprintf("%.*s%s.bench.json", (int)(base - path), path, kernel),
                       hk_asprintf("%.*s%.*s.bench.json", (int)(base - path), path, (int)stem, base) };
    char *found = NULL;
    for (int i = 0; i < 3; i++) {
        if (!found && cands[i] && access(cands[i], R_OK) == 0)
            found = cands[i];
        else
            hk_free(cands[i]);
    }
    return found;
}
