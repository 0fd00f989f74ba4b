/* Spec inference, the launcher's text (spec/infer.c is the entry): launch arguments,
 * grids, blocks and allocations translated into spec terms through launcher locals,
 * #defines, function-like macros and device limits; typedefs, template arguments, the
 * launcher's asserts and the kernel's __constant__ data. */
#include "spec/infer_int.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const launch_vars[] = { "block_x", "block_y", "block_z", "sm_count" };

bool sk_is_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

bool sk_is_kernel_name(const char *s)
{
    if (!s || !*s)
        return false;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == ':'))
            return false;
    return isalpha((unsigned char)*s) || *s == '_' || *s == ':';
}

bool sk_word_at(const char *t, size_t len, size_t i, const char *w, size_t wl)
{
    if (i + wl > len || memcmp(t + i, w, wl) != 0)
        return false;
    if (i > 0 && (isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_'))
        return false;
    return i + wl == len || !(isalnum((unsigned char)t[i + wl]) || t[i + wl] == '_');
}

static char *sk_dim3_members(skel *k, const char *name, char *base, size_t base_at);

/* Text of the last `name = EXPR;` or `dim3 name(ARGS)` in the caller body: a new string
 * ("dim3(ARGS)" for the latter) or NULL. */
char *sk_local_init(skel *k, const char *name)
{
    size_t wl = strlen(name);
    char *found = NULL;
    size_t found_at = k->body_start;
    for (size_t i = k->body_start; i + wl < k->body_end; i++) {
        if (!sk_word_at(k->site_text, k->body_end, i, name, wl))
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
            bool after_dim3 = b >= k->body_start + 4 && sk_word_at(k->site_text, k->body_end, b - 4, "dim3", 4);
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
                /* the statement starts after blank space and comments (a comment line above
                 * it is common) */
                for (;;) {
                    while (st < b && isspace((unsigned char)k->site_text[st]))
                        st++;
                    if (st + 1 < b && k->site_text[st] == '/' && k->site_text[st + 1] == '/') {
                        while (st < b && k->site_text[st] != '\n')
                            st++;
                    } else if (st + 1 < b && k->site_text[st] == '/' && k->site_text[st + 1] == '*') {
                        for (st += 2; st + 1 < b && !(k->site_text[st] == '*' && k->site_text[st + 1] == '/'); st++)
                            ;
                        st += 2;
                    } else {
                        break;
                    }
                }
                after_dim3 = depth == 0 && st < b && sk_word_at(k->site_text, k->body_end, st, "dim3", 4);
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

/* The first byte of t that is no blank space. */
static const char *sk_ws(const char *t)
{
    while (*t && isspace((unsigned char)*t))
        t++;
    return t;
}

bool sk_numel_of(skel *k, const char *name, char *tensor, size_t cap)
{
    char *init = k->site_text ? sk_local_init(k, name) : NULL;
    bool ok = false;
    const char *c = init ? sk_ws(init) : NULL;
    size_t n = 0;
    while (c && (isalnum((unsigned char)c[n]) || c[n] == '_'))
        n++;
    if (c && n && n < cap && !isdigit((unsigned char)c[0])) {
        const char *r = sk_ws(c + n);
        if (*r == '.') {
            r = sk_ws(r + 1);
            if (!strncmp(r, "numel", 5) && !(isalnum((unsigned char)r[5]) || r[5] == '_')) {
                r = sk_ws(r + 5);
                if (*r == '(') {
                    r = sk_ws(r + 1);
                    ok = *r == ')' && !*sk_ws(r + 1);
                }
            }
        }
        if (ok) {
            memcpy(tensor, c, n);
            tensor[n] = '\0';
        }
    }
    hk_free(init);
    return ok;
}

bool sk_product_local(skel *k, const an_launch *site, const char *name)
{
    char *init = k->site_text ? sk_local_init(k, name) : NULL;
    size_t words = 0;
    bool ok = init != NULL, passed = false;
    for (const char *c = init; ok && *c;) {
        if (isalpha((unsigned char)*c) || *c == '_') {
            const char *s = c;
            while (isalnum((unsigned char)*c) || *c == '_')
                c++;
            words++;
            size_t wl = (size_t)(c - s);
            ok = !(wl == strlen(name) && !strncmp(s, name, wl));
            for (size_t a = 0; a < site->n_args && !passed; a++)
                passed = strlen(site->args[a]) == wl && !strncmp(site->args[a], s, wl);
        } else {
            ok = isspace((unsigned char)*c) || *c == '*' || *c == '(' || *c == ')';
            c++;
        }
    }
    hk_free(init);
    return ok && passed && words >= 2;
}

bool sk_passes_data_of(const char *arg, const char *tensor)
{
    size_t n = strlen(tensor);
    const char *c = arg ? sk_ws(arg) : NULL;
    if (!c || !n || strncmp(c, tensor, n) != 0 || isalnum((unsigned char)c[n]) || c[n] == '_')
        return false;
    c = sk_ws(c + n);
    if (*c != '.')
        return false;
    c = sk_ws(c + 1);
    /* data_ptr<T>() or data<T>(), and nothing added after it */
    return !strncmp(c, "data", 4) && !strchr(c, '+') && !strchr(c, '-');
}

/* Whether the caller body declares name with the type word type (dim3 name; dim3 name(...);
 * dim3 a, name), or the caller takes it as a parameter of that type. */
static bool sk_declared_as(const skel *k, const char *name, const char *type)
{
    size_t tl = strlen(type);
    size_t wl = strlen(name);
    for (size_t i = k->body_start; i + wl < k->body_end; i++) {
        if (!sk_word_at(k->site_text, k->body_end, i, name, wl))
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
        if (sk_word_at(k->site_text, k->body_end, b, type, tl))
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

/* A member x, y or z of a dim3 parameter of the launcher (cuda-samples' matrixMul:
 * MatrixMultiply(..., const dim3 &dimsA, ...) launches over dimsA.y / threads.y): a value
 * its caller passes, a size as an integer parameter of the launcher is; its size name
 * (base_member, mapped from the chain from then on). A member of a dim3 of the body is the
 * launcher text its declaration gives it (untranslated). A new string, or NULL for any
 * other chain. */
static char *sk_dim3_param_member(skel *k, const char *chain)
{
    const char *dot = strchr(chain, '.');
    if (!dot || strchr(dot + 1, '.') || strstr(chain, "->") || dot - chain >= 64 ||
        (strcmp(dot + 1, "x") && strcmp(dot + 1, "y") && strcmp(dot + 1, "z")))
        return NULL;
    char base[64];
    memcpy(base, chain, (size_t)(dot - chain));
    base[dot - chain] = '\0';
    const char *t = k->site_text;
    size_t lo = k->body_start;
    if (!t || !sk_is_identifier(base) || lo == 0 || lo > k->site_len)
        return NULL;
    /* a dim3 of the body (dim3 dimsC(dimsB.x, dimsA.y, 1)): the part its member is, as
     * written (a member left out is 1) */
    if (sk_declared_dim3(k, base)) {
        char *init = sk_local_init(k, base);
        char *parts[3] = { 0 };
        size_t np = init && !strncmp(init, "dim3(", 5) ? sk_split_dims(init, parts) : 0;
        int m = dot[1] - 'x';
        char *res = np ? (size_t)m < np ? hk_strdup(parts[m]) : hk_strdup("1") : NULL;
        for (size_t d = 0; d < 3; d++)
            hk_free(parts[d]);
        hk_free(init);
        if (res || np)
            return res;
    }
    /* the parameter list: the parentheses right before the body's brace */
    size_t close = lo;
    while (close > 0 && t[close] != '{')
        close--;
    while (close > 0 && isspace((unsigned char)t[close - 1]))
        close--;
    if (close == 0 || t[close - 1] != ')')
        return NULL;
    size_t open = close - 1;
    for (int d = 0; open > 0;) {
        open--;
        d += (t[open] == ')') - (t[open] == '(');
        if (d < 0)
            break;
    }
    if (t[open] != '(')
        return NULL;
    size_t bl = strlen(base);
    bool found = false;
    for (size_t i = open + 1; i + 4 < close && !found; i++) {
        if (!sk_word_at(t, close, i, "dim3", 4))
            continue;
        size_t j = i + 4;
        while (j < close && (isspace((unsigned char)t[j]) || t[j] == '&'))
            j++;
        if (!sk_word_at(t, close, j, base, bl))
            continue;
        j += bl;
        while (j < close && isspace((unsigned char)t[j]))
            j++;
        found = j < close && (t[j] == ',' || t[j] == ')');
    }
    if (!found)
        return NULL;
    char *name = hk_asprintf("%s_%s", base, dot + 1);
    if (!name)
        return NULL;
    sk_map(k, chain, name);
    sk_note(k, HK_MSG_INF_DIM3_MEMBER,
            chain, base, name);
    return name;
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
        if (i < base_at || !sk_word_at(t, end, i, name, wl) || t[i + wl] != '.' ||
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
        bool after_else = st >= k->body_start + 4 && sk_word_at(t, end, st - 4, "else", 4);
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
const char *sk_tunable_value(const skel *k, const char *name)
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

const char *sk_mapped(const skel *k, const char *name)
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
bool sk_bare(const char *t, size_t n, char *out, size_t cap)
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

/* The arguments of the call whose '(' is at c[open], split at top-level commas, into arg
 * and arg_len (at most max); the index of the closing ')', or n when the call is not closed
 * or has more than max arguments. */
static size_t sk_call_args(const char *c, size_t n, size_t open, const char **arg, size_t *arg_len, size_t max,
                           size_t *na)
{
    size_t s = open + 1, e = s;
    int depth = 0;
    *na = 0;
    for (; e < n; e++) {
        char ch = c[e];
        if (ch == '(' || ch == '[')
            depth++;
        else if ((ch == ')' || ch == ']') && depth > 0)
            depth--;
        else if ((ch == ',' || ch == ')') && depth == 0) {
            if (*na == max)
                return n;
            arg[*na] = c + s;
            arg_len[(*na)++] = e - s;
            s = e + 1;
            if (ch == ')')
                return e;
        }
    }
    return n;
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
    const char *arg[8];
    size_t arg_len[8], na = 0, e = sk_call_args(c, n, open, arg, arg_len, HK_ARRAY_LEN(arg), &na);
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

static bool sk_bare_words(const char *t, size_t n, char *out, size_t cap);

/* A call of a host function of the launch's or the kernel's text whose body is straight
 * integer code (mmcv's `inline int GET_BLOCKS(const int N, const int num_threads =
 * THREADS_PER_BLOCK) { int optimal = (N + num_threads - 1) / num_threads; int most = 4096;
 * return min(optimal, most); }`) at c + open: its return expression with the locals'
 * initialisers and the arguments (defaults for those left out) put in, parenthesised; a
 * new string with *end past the call's ')'. NULL when there is no such definition or the
 * body holds anything but integer locals and one return. */
static char *sk_inline_call(skel *k, const char *name, const char *c, size_t open, size_t *end)
{
    const char *texts[2] = { k->site_text, k->text };
    size_t lens[2] = { k->site_len, k->len };
    size_t nl = strlen(name), n = strlen(c);
    const char *arg[8];
    size_t arg_len[8], na = 0, e = sk_call_args(c, n, open, arg, arg_len, HK_ARRAY_LEN(arg), &na);
    if (e >= n)
        return NULL;
    if (na == 1 && strspn(arg[0], " \t") == arg_len[0])
        na = 0;
    static const char *const int_types[] = { "int", "long", "unsigned", "size_t", "int64_t", "uint32_t" };
    for (int ti = 0; ti < 2; ti++) {
        const char *t = texts[ti];
        size_t len = lens[ti];
        if (!t || (ti == 1 && texts[1] == texts[0]))
            continue;
        for (size_t i = 0; i + nl < len; i++) {
            if (!sk_word_at(t, len, i, name, nl))
                continue;
            /* an integer return type before the name, a parameter list and a body after */
            size_t b = i;
            while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t'))
                b--;
            size_t ws = b;
            while (ws > 0 && (isalnum((unsigned char)t[ws - 1]) || t[ws - 1] == '_'))
                ws--;
            bool int_ret = false;
            for (size_t q = 0; q < HK_ARRAY_LEN(int_types) && !int_ret; q++)
                int_ret = b - ws == strlen(int_types[q]) && !memcmp(t + ws, int_types[q], b - ws);
            size_t p = i + nl;
            while (p < len && isspace((unsigned char)t[p]))
                p++;
            if (!int_ret || p >= len || t[p] != '(')
                continue;
            size_t pe = p;
            for (int dp = 0; pe < len; pe++) {
                dp += (t[pe] == '(') - (t[pe] == ')');
                if (dp == 0)
                    break;
            }
            size_t bo = pe + 1;
            while (bo < len && isspace((unsigned char)t[bo]))
                bo++;
            if (pe >= len || bo >= len || t[bo] != '{')
                continue;
            size_t be = bo + 1;
            while (be < len && t[be] != '}' && t[be] != '{')
                be++;
            if (be >= len || t[be] != '}' || be - bo > SK_MAX_TEXT)
                return NULL; /* nested blocks: not straight code */
            /* parameters: [const] TYPE name [= default] */
            char pname[8][64];
            const char *pdef[8];
            size_t pdef_len[8], np = 0;
            int pdepth = 0;
            for (size_t q = p + 1, st = q; q <= pe; q++) {
                if (q < pe) {
                    pdepth += (t[q] == '(') - (t[q] == ')');
                    if (t[q] != ',' || pdepth != 0)
                        continue;
                }
                if (np == 8)
                    return NULL; /* more parameters than read: one would stay a bare name */
                size_t eq = st;
                while (eq < q && t[eq] != '=')
                    eq++;
                size_t ne = eq;
                while (ne > st && isspace((unsigned char)t[ne - 1]))
                    ne--;
                size_t ns = ne;
                while (ns > st && (isalnum((unsigned char)t[ns - 1]) || t[ns - 1] == '_'))
                    ns--;
                if (ns == ne || ne - ns >= sizeof pname[0])
                    return NULL;
                memcpy(pname[np], t + ns, ne - ns);
                pname[np][ne - ns] = '\0';
                pdef[np] = eq < q ? t + eq + 1 : NULL;
                pdef_len[np++] = eq < q ? q - eq - 1 : 0;
                st = q + 1;
            }
            if (na > np)
                return NULL;
            /* the body: TYPE local = EXPR; ... return EXPR; */
            char lname[8][64], *lval[8] = { 0 };
            size_t nloc = 0;
            char *result = NULL;
            bool bad = false;
            for (size_t q = bo + 1, st = q; q < be && !bad; q++) {
                if (t[q] != ';')
                    continue;
                char stmt[SK_MAX_TEXT + 1];
                if (!sk_bare_words(t + st, q - st, stmt, sizeof stmt)) {
                    bad = true;
                    break;
                }
                st = q + 1;
                if (!strncmp(stmt, "return ", 7) || !strncmp(stmt, "return(", 7)) {
                    result = hk_strdup(stmt + 6);
                    break;
                }
                char *eq = strchr(stmt, '=');
                char *nm_end = eq;
                while (nm_end && nm_end > stmt && nm_end[-1] == ' ')
                    nm_end--;
                char *nm = nm_end;
                while (nm && nm > stmt && (isalnum((unsigned char)nm[-1]) || nm[-1] == '_'))
                    nm--;
                bool int_local = false;
                const char *decl = !strncmp(stmt, "const ", 6) ? stmt + 6 : stmt;
                for (size_t w = 0; nm && w < HK_ARRAY_LEN(int_types) && !int_local; w++) {
                    size_t tl = strlen(int_types[w]);
                    int_local = !strncmp(decl, int_types[w], tl) && decl[tl] == ' ';
                }
                if (!eq || eq[1] == '=' || !int_local || nm == nm_end || nloc == 8 || (size_t)(nm_end - nm) >= 64) {
                    bad = true;
                    break;
                }
                memcpy(lname[nloc], nm, (size_t)(nm_end - nm));
                lname[nloc][nm_end - nm] = '\0';
                lval[nloc++] = hk_strdup(eq + 1);
            }
            /* put the locals in, last first, then the parameters */
            struct hk_buf out;
            hk_buf_init(&out, 4 * SK_MAX_TEXT);
            char *cur = result;
            for (int pass = 0; cur && !bad && pass <= (int)nloc; pass++) {
                /* pass < nloc: local nloc-1-pass; pass == nloc: the parameters */
                hk_buf_reset(&out);
                bool fine = true;
                for (const char *x = cur; *x && fine;) {
                    if (isalpha((unsigned char)*x) || *x == '_') {
                        const char *ws2 = x;
                        while (isalnum((unsigned char)*x) || *x == '_')
                            x++;
                        size_t w = (size_t)(x - ws2);
                        const char *rep = NULL;
                        size_t rep_len = 0;
                        if (pass < (int)nloc) {
                            size_t l = nloc - 1 - (size_t)pass;
                            if (strlen(lname[l]) == w && !memcmp(lname[l], ws2, w)) {
                                rep = lval[l];
                                rep_len = strlen(lval[l]);
                            }
                        } else {
                            for (size_t a = 0; a < np && !rep; a++)
                                if (strlen(pname[a]) == w && !memcmp(pname[a], ws2, w)) {
                                    rep = a < na ? arg[a] : pdef[a];
                                    rep_len = a < na ? arg_len[a] : pdef_len[a];
                                    fine = rep != NULL;
                                }
                        }
                        fine = fine && (rep ? hk_buf_printf(&out, "(%.*s)", (int)rep_len, rep) == HK_OK
                                            : hk_buf_append(&out, ws2, w) == HK_OK);
                    } else {
                        fine = hk_buf_append(&out, x, 1) == HK_OK;
                        x++;
                    }
                }
                char *next = fine && out.data ? hk_strndup(out.data, out.len) : NULL;
                hk_free(cur);
                cur = next;
            }
            hk_buf_free(&out);
            for (size_t l = 0; l < nloc; l++)
                hk_free(lval[l]);
            if (bad || !cur || strlen(cur) > SK_MAX_TEXT) {
                hk_free(cur);
                return NULL;
            }
            *end = e + 1;
            return cur;
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

char *sk_translate(skel *k, const char *c, int depth)
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
                    /* each operand on its own, so that (x + b - 1) / b in one reads as ceil_div */
                    size_t q = j + 1, st = q;
                    int dp = 0;
                    ok = hk_buf_printf(&b, "%s(", name) == HK_OK;
                    for (; ok && q < n; q++) {
                        char ch2 = c[q];
                        if (ch2 == '(' || ch2 == '[')
                            dp++;
                        else if ((ch2 == ')' || ch2 == ']') && dp > 0)
                            dp--;
                        else if ((ch2 == ',' || ch2 == ')') && dp == 0) {
                            char *arg = hk_strndup(c + st, q - st);
                            char *ta = arg ? sk_translate(k, arg, depth + 1) : NULL;
                            ok = ta && hk_buf_printf(&b, "%s%s", ta, ch2 == ',' ? ", " : ")") == HK_OK;
                            hk_free(arg);
                            hk_free(ta);
                            st = q + 1;
                            if (ch2 == ')')
                                break;
                        }
                    }
                    ok &= q < n;
                    i = q + 1;
                    continue;
                }
                size_t after = 0;
                char *body = sk_macro_call(k, name, c, j, &after);
                if (!body)
                    body = sk_inline_call(k, name, c, j, &after);
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
                char *member = !as && q <= n && sub < 0 ? sk_dim3_param_member(k, chain) : NULL;
                if (member) {
                    char *tm = sk_is_identifier(member) && sk_mapped(k, chain) ? NULL
                                                                                : sk_translate(k, member, depth + 1);
                    ok = hk_buf_printf(&b, tm ? "(%s)" : "%s", tm ? tm : member) == HK_OK &&
                         (tm || sk_mapped(k, chain));
                    hk_free(tm);
                    hk_free(member);
                    i = q;
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
                bool simple = !mapped || sk_is_identifier(mapped) || strspn(mapped, "0123456789") == strlen(mapped);
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
bool sk_mentions_tunable(const skel *k, const char *text)
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
size_t sk_split_dims(const char *t, char **parts)
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

void sk_add_var(skel *k, const char *name)
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

void sk_collect(skel *k, const char *t)
{
    expr *e = NULL;
    if (t && expr_parse(t, &e, NULL, 0) == HK_OK) {
        expr_foreach_var(e, sk_collect_cb, k);
        expr_free(e);
    }
}

/* "(X + 255) / 256" or "(X + 256 - 1) / 256" with 256 the block size -> "ceil_div(X, block_v)". */
char *sk_ceil_div(const char *t, long long block, const char *bvar)
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

/* A dimension as JSON: an integer when it is one, else the expression string. */
static json_t *sk_dim_json(const char *d)
{
    char *end = NULL;
    long long v = strtoll(d, &end, 10);
    return *d && !*end ? json_integer(v) : json_string(d);
}

json_t *sk_dims_json(char **dims, size_t n)
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
    if (!strcmp(elem, "unsigned long long int") || !strcmp(elem, "long long int")) /* i18n: not for people (C types) */
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
const char *sk_dtype(const char *elem, char **type_params, size_t n_tp, int *width)
{
    const char *dt = sk_dtype_or_null(elem, type_params, n_tp, width);
    return dt ? dt : "float";
}

bool sk_dtype_known(const char *elem)
{
    int width;
    return sk_dtype_or_null(elem, NULL, 0, &width) != NULL;
}

double sk_float_default(const char *name)
{
    if (!strcmp(name, "eps") || !strcmp(name, "epsilon"))
        return 1e-5;
    if (!strcmp(name, "base") || !strcmp(name, "theta"))
        return 10000.0;
    if (!strcmp(name, "beta"))
        return 0.5;
    if (!strcmp(name, "scale"))
        return 0.125;
    /* the low end of a range (min_radius, min_val, minval): 0, so that its max_ partner at
     * 1.5 leaves a range to fall in (mmcv's ball query with both at 1.5 finds no point) */
    if (!strncmp(name, "min", 3) && (name[3] == '_' || name[3] == 'V' || name[3] == 'v' || name[3] == 'R' ||
                                    name[3] == 'r'))
        return 0.0;
    return 1.5;
}

bool sk_dim_like(const char *v)
{
    return strstr(v, "dim") || !strcmp(v, "d") || !strcmp(v, "D") || !strcmp(v, "hd");
}

/* ---- what the skeleton guessed ---- */

static void sk_list_add(skel *k, char **list, size_t *n, const char *text)
{
    if (*n == SK_MAX_NOTES)
        return;
    char *s = hk_strdup(text);
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

/* msg's format in the process's language (a Chinese character is three bytes: the buffer
 * is twice what an English note needs), cut at a whole character when it is too long */
static void sk_list(skel *k, char **list, size_t *n, enum hk_msg msg, va_list ap)
{
    char tmp[1024];
    int len = vsnprintf(tmp, sizeof tmp, hk_tr(msg), ap);
    if (len >= (int)sizeof tmp)
        hk_utf8_trim(tmp);
    sk_list_add(k, list, n, tmp);
}

void sk_note(skel *k, enum hk_msg msg, ...)
{
    va_list ap;
    va_start(ap, msg);
    sk_list(k, k->notes, &k->n_notes, msg, ap);
    va_end(ap);
}

void sk_doubt(skel *k, enum hk_msg msg, ...)
{
    va_list ap;
    va_start(ap, msg);
    sk_list(k, k->doubts, &k->n_doubts, msg, ap);
    va_end(ap);
}

void sk_doubt_text(skel *k, const char *text)
{
    sk_list_add(k, k->doubts, &k->n_doubts, text);
}

int sk_line(const skel *k, size_t byte)
{
    int line = 1;
    for (size_t i = 0; i < byte && i < k->len; i++)
        line += k->text[i] == '\n';
    return line;
}

/* The line of a byte of the launch site's text. */
int sk_site_line(const skel *k, size_t byte)
{
    int line = 1;
    for (size_t i = 0; i < byte && i < k->site_len; i++)
        line += k->site_text[i] == '\n';
    return line;
}

void sk_map(skel *k, const char *from, const char *to)
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

long sk_type_size(const char *t)
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
char *sk_host_text(skel *k, const char *c, long elem_size, const char *elem)
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
                    if (!sk_word_at(k->site_text, k->body_end, p, vname, vl))
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
        if (!sk_word_at(t, k->body_end, i, name, wl))
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
            if (sk_word_at(t, e, i, fns[f], l))
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
        if (bytes && sscanf(bytes, " %63[A-Za-z0-9_] %c", word, (char[2]){0}) == 1 && sk_is_identifier(word)) {
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
        if (!sk_word_at(t, k->body_end, i, name, wl))
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
char *sk_count_from_host(skel *k, const char *arg, long elem_size, const char *elem, int *line)
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

/* Spec expression text evaluated at one size set (a JSON object of integers). */
bool sk_eval_at(const char *text, const json_t *set, long long *v)
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
size_t sk_launcher_asserts(skel *k, sk_assert_cmp *out, size_t cap)
{
    size_t n = 0;
    const char *t = k->site_text;
    for (size_t i = k->body_start; t && i + 7 < k->body_end && n < cap; i++) {
        if (!sk_word_at(t, k->body_end, i, "assert", 6))
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
int sk_assert_holds(const sk_assert_cmp *c, const json_t *set)
{
    long long l, r;
    if (!sk_eval_at(c->lhs, set, &l) || !sk_eval_at(c->rhs, set, &r))
        return -1;
    const char *op = c->op;
    bool ok = !strcmp(op, "<") ? l < r : !strcmp(op, "<=") ? l <= r : !strcmp(op, ">") ? l > r
            : !strcmp(op, ">=") ? l >= r : !strcmp(op, "==") ? l == r : l != r;
    return ok;
}

/* The C of an assert that size variable var is a multiple of a constant: var % C == 0 or
 * 0 == var % C (cuda-samples' assert(imageW % (STEPS * BLOCKDIM_X) == 0)); 0 for any other
 * comparison or a C below 2. */
long long sk_assert_multiple(const sk_assert_cmp *c, const char *var)
{
    if (strcmp(c->op, "=="))
        return 0;
    const char *side = NULL, *zero = NULL;
    size_t vl = strlen(var);
    for (int k = 0; k < 2 && !side; k++) {
        const char *x = k ? c->rhs : c->lhs, *o = k ? c->lhs : c->rhs;
        while (*x == ' ' || *x == '(')
            x++;
        if (!strncmp(x, var, vl) && !(isalnum((unsigned char)x[vl]) || x[vl] == '_')) {
            const char *p = x + vl;
            while (*p == ' ' || *p == ')')
                p++;
            if (*p == '%') {
                side = p + 1;
                zero = o;
            }
        }
    }
    /* the divisor one operand (a word or a parenthesised group) up to the end: w % 4 + 1
     * == 0 says something else */
    if (side) {
        while (*side == ' ')
            side++;
        size_t end = 0;
        if (*side == '(') {
            int depth = 0;
            for (end = 0; side[end]; end++) {
                depth += (side[end] == '(') - (side[end] == ')');
                if (depth == 0)
                    break;
            }
            end += side[end] != '\0';
        } else {
            while (isalnum((unsigned char)side[end]) || side[end] == '_')
                end++;
        }
        while (side[end] == ' ')
            end++;
        if (end == 0 || side[end] != '\0')
            side = NULL;
    }
    long long m = 0, z = 1;
    json_t *none = json_object();
    bool ok = side && none && sk_eval_at(side, none, &m) && sk_eval_at(zero, none, &z);
    json_decref(none);
    return ok && z == 0 && m >= 2 && m <= (1LL << 20) ? m : 0;
}

/* The largest value of size variable var that comparison c allows (var <= C, var < C,
 * C >= var, C > var with C a constant), or -1. */
long long sk_assert_upper(const sk_assert_cmp *c, const char *var)
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

size_t sk_skip_lexeme(const char *t, size_t len, size_t i)
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
                        if (sk_word_at(k->text, e, i, m->funcs[b].name, strlen(m->funcs[b].name))) {
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
            if (sk_word_at(k->text, e, i, word, wl))
                return true;
    }
    return false;
}

/* The "constants" of the spec: every file-scope __constant__ variable the kernel reads that
 * its declaration does not initialise (the program fills it with cudaMemcpyToSymbol; the
 * harness fills it like an input, in baseline and candidate alike), with its element type
 * and count from the declaration. A new array (NULL on ENOMEM); what could not be read is a
 * doubt and left out. */
json_t *sk_constants(skel *k, const an_function *f)
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
            sk_note(k, HK_MSG_INF_CONST_TABLE, f->name, d->name, d->line);
            continue;
        }
        if (d->unnameable) {
            sk_doubt(k, HK_MSG_INF_CONST_STATIC, f->name, d->name,
                     d->line);
            continue;
        }
        char elem[96], plain[96];
        int width = 1;
        sk_resolve_type(k, d->type, plain, sizeof plain);
        /* a table of structs of like fields (Parboil mri-q's kValues of four floats) is that
         * many elements of the field type per entry: bytes the harness fills like a vector's
         * (a single struct stays a doubt: its fields are settings more often than data) */
        if (d->dims[0] == '[')
            sk_resolve_pointee(k, d->type, elem, sizeof elem);
        else
            snprintf(elem, sizeof elem, "%s", plain);
        const char *dt = sk_dtype_or_null(elem, NULL, 0, &width);
        if (dt && strcmp(plain, elem) != 0)
            sk_note(k, HK_MSG_INF_CONST_STRUCT, d->name, plain, elem);
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
            sk_doubt(k, HK_MSG_INF_CONST_TYPE, f->name, d->name,
                     d->line, d->type[0] ? d->type : "?");
            continue;
        }
        if (!hk_dtype_is_float(dtc)) {
            /* integers in a table are offsets, indices or sizes more often than data: random
             * ones would read out of bounds or loop for ever */
            sk_doubt(k, HK_MSG_INF_CONST_INT, f->name, d->name, d->line);
            continue;
        }
        if (!sized || count * (long long)hk_dtype_size(dtc) > SPEC_CONSTANT_BYTES) {
            sk_doubt(k, HK_MSG_INF_CONST_SIZE, d->name, f->name, d->line);
            continue;
        }
        bytes += count * (long long)hk_dtype_size(dtc);
        if (bytes > SPEC_CONSTANT_BYTES || used == SPEC_MAX_CONSTANTS) {
            sk_doubt(k, HK_MSG_INF_CONST_TOO_MUCH,
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
        sk_note(k, HK_MSG_INF_CONST_FILLED, d->name, count, dt, d->line);
    }
    return list;
}

/* Splits "<256, float>" (or a template parameter list's defaults) at depth-0 commas into
 * up to cap new strings. */
size_t sk_split_targs(const char *t, char **out, size_t cap)
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
char *sk_instantiation(const char *t, size_t len, const char *kernel, size_t *at)
{
    size_t kl = strlen(kernel);
    for (size_t i = 0; t && i + 8 < len; i++) {
        if (!sk_word_at(t, len, i, "template", 8))
            continue;
        size_t j = i + 8;
        while (j < len && isspace((unsigned char)t[j]))
            j++;
        if (j >= len || t[j] == '<') /* a template declaration, not an instantiation */
            continue;
        size_t end = kf_expr_end(t, j, len, ";");
        for (size_t q = j; q + kl < end; q++) {
            if (!sk_word_at(t, end, q, kernel, kl))
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

/* The template arguments of a call of fn that spells them (`RunTest<float>(name, db)`: SHOC
 * instantiates its launcher per type this way), from byte *at on: a new string "<...>" or
 * NULL; *at set to the call's byte. A declaration or definition (`void RunTest(`) has none. */
static char *sk_call_targs(const char *t, size_t len, const char *fn, size_t *at)
{
    size_t fl = strlen(fn);
    for (size_t i = *at; t && i + fl < len; i++) {
        if (!sk_word_at(t, len, i, fn, fl))
            continue;
        size_t o = i + fl;
        while (o < len && isspace((unsigned char)t[o]))
            o++;
        if (o >= len || t[o] != '<')
            continue;
        int depth = 0;
        size_t c = o;
        for (; c < len && c - o <= SK_MAX_TEXT; c++) {
            depth += (t[c] == '<') - (t[c] == '>');
            if (depth == 0 || t[c] == ';' || t[c] == '{' || t[c] == '}')
                break;
        }
        if (c >= len || t[c] != '>' || c - o > SK_MAX_TEXT)
            continue;
        size_t q = c + 1;
        while (q < len && isspace((unsigned char)t[q]))
            q++;
        if (q >= len || t[q] != '(')
            continue;
        *at = i;
        return hk_strndup(t + o, c - o + 1);
    }
    return NULL;
}

/* The name a template parameter declares: the last word before its default (`unsigned int
 * threads = 256` is threads, `typename T` is T). False when there is none. */
bool sk_tparam_name(const char *decl, char *out, size_t cap)
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
const char *sk_launcher_float(const skel *k, const an_launch *site, const char *name, int *line)
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
    /* or a call that names the arguments: `RunTest<float>(...)` instantiates it as well */
    for (size_t at = 0; pos >= 0 && !found && at < k->site_len; at++) {
        char *inst = sk_call_targs(k->site_text, k->site_len, cf->name, &at);
        if (!inst)
            break;
        char *args[16] = { 0 };
        size_t na = sk_split_targs(inst, args, HK_ARRAY_LEN(args));
        if ((size_t)pos < na && args[pos] && !strcmp(args[pos], "float")) {
            found = cf->name;
            *line = sk_site_line(k, at);
        }
        for (size_t i = 0; i < na; i++)
            hk_free(args[i]);
        hk_free(inst);
    }
    return found;
}

/* The launch under `case V:` of `switch (B)` with B its block's text (mmcv's furthest
 * point sampling launches k<1024><<<b, n_threads>>> in case 1024 of switch (n_threads)):
 * true and *v = V (1 to 1024). The case must be the last label before the launch, with no
 * break between them. */
bool sk_switch_case(skel *k, const an_launch *site, long long *v)
{
    const char *t = k->site_text;
    size_t at = site->span.start_byte, lo = k->body_start;
    if (!t || !site->block || at > k->site_len || at <= lo)
        return false;
    char blk[128];
    if (sscanf(site->block, " %127[A-Za-z0-9_] ", blk) != 1 || strlen(blk) != strlen(site->block) ||
        !sk_is_identifier(blk))
        return false;
    size_t c = at;
    for (;;) {
        if (c <= lo)
            return false;
        c--;
        if (sk_word_at(t, at, c, "break", 5) || sk_word_at(t, at, c, "default", 7) || sk_word_at(t, at, c, "switch", 6))
            return false;
        if (sk_word_at(t, at, c, "case", 4))
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
    while (sw > lo && !sk_word_at(t, c, sw, "switch", 6))
        sw--;
    if (!sk_word_at(t, c, sw, "switch", 6))
        return false;
    char on[128];
    if (sscanf(t + sw + 6, " ( %127[A-Za-z0-9_] )", on) != 1 || strcmp(on, blk) != 0)
        return false;
    *v = ev.i;
    return true;
}

/* The launch in the then-branch of `if (X == V)` (or `V == X`) whose block is X, or a dim3
 * every part of which is X or a constant (cuda-samples' matrixMul: `dim3 threads(block_size,
 * block_size)` launched as k<16><<<grid, threads>>> under `if (block_size == 16) {`): the
 * launch runs with X = V. The branch is the innermost block around the launch (or the
 * statement right after the condition), opened right after the condition's parenthesis;
 * an else-branch or a loop in between says nothing. dims gets each dimension (1 to 1024,
 * 1024 threads at most in all); returns how many (0 when the rule does not apply). */
size_t sk_if_block(skel *k, const an_launch *site, long long *dims)
{
    const char *t = k->site_text;
    size_t at = site->span.start_byte, lo = k->body_start;
    if (!t || !site->block || at > k->site_len || at <= lo)
        return 0;
    /* `if (X == V) k<<<...>>>(...);`, else the innermost unclosed brace before the launch */
    size_t close = at;
    while (close > lo && isspace((unsigned char)t[close - 1]))
        close--;
    if (close > lo && t[close - 1] != ')') {
        size_t c = at;
        int depth = 0;
        while (c > lo) {
            c--;
            if (t[c] == '}')
                depth++;
            else if (t[c] == '{' && depth-- == 0)
                break;
        }
        if (t[c] != '{')
            return 0;
        close = c;
        while (close > lo && isspace((unsigned char)t[close - 1]))
            close--;
    }
    if (close <= lo || t[close - 1] != ')')
        return 0;
    size_t open = close - 1;
    for (int d = 0; open > lo;) {
        open--;
        d += (t[open] == ')') - (t[open] == '(');
        if (d < 0)
            break;
    }
    if (t[open] != '(')
        return 0;
    size_t kw = open;
    while (kw > lo && isspace((unsigned char)t[kw - 1]))
        kw--;
    if (kw < lo + 2 || !sk_word_at(t, kw, kw - 2, "if", 2))
        return 0;
    char a[128], b[128];
    int used = 0;
    char cond[300];
    size_t cl = close - 1 - (open + 1);
    if (cl >= sizeof cond)
        return 0;
    memcpy(cond, t + open + 1, cl);
    cond[cl] = '\0';
    if (sscanf(cond, " %127[A-Za-z0-9_] == %127[A-Za-z0-9_] %n", a, b, &used) != 2 || (size_t)used != cl)
        return 0;
    const char *var = isdigit((unsigned char)a[0]) ? b : a, *val = var == a ? b : a;
    char *end = NULL;
    long long v = strtoll(val, &end, 0);
    if (!sk_is_identifier(var) || !end || *end || v < 1 || v > 1024)
        return 0;
    /* the block: X itself, or a dim3 of X and constants */
    size_t n = 0;
    char blk[128];
    if (sscanf(site->block, " %127[A-Za-z0-9_] ", blk) == 1 && !strcmp(blk, var)) {
        dims[0] = v;
        return 1;
    }
    if (!sk_is_identifier(site->block))
        return 0;
    char *init = sk_local_init(k, site->block);
    char *parts[3] = { 0 };
    size_t np = init && !strncmp(init, "dim3(", 5) ? sk_split_dims(init, parts) : 0;
    long long threads = 1;
    bool has_var = false, ok = np > 0;
    for (size_t d = 0; d < np && ok; d++) {
        char part[128];
        long long x = 0;
        ok = parts[d] && sscanf(parts[d], " %127[A-Za-z0-9_] ", part) == 1;
        if (ok && !strcmp(part, var)) {
            x = v;
            has_var = true;
        } else if (ok) {
            x = strtoll(part, &end, 0);
            ok = end && !*end && x >= 1 && x <= 1024;
        }
        threads *= x;
        dims[d] = x;
        n = d + 1;
    }
    for (size_t d = 0; d < 3; d++)
        hk_free(parts[d]);
    hk_free(init);
    return ok && has_var && threads <= 1024 ? n : 0;
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
        if (!sk_word_at(t, len, i, name, nl))
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
            if (i - b > 8 && sk_word_at(t, len, b, "typedef", 7))
                snprintf(ty, sizeof ty, "%.*s", (int)(i - b - 8), t + b + 8);
            st = b;
        } else if (j < len && t[j] == '=' && i >= 6 && sk_word_at(t, len, i - 6, "using", 5)) {
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
        if (!sk_word_at(t, len, i, name, nl))
            continue;
        size_t open = 0, close = 0;
        size_t j = i + nl;
        while (j < len && isspace((unsigned char)t[j]))
            j++;
        if (j < len && t[j] == '{' && i >= 7 && sk_word_at(t, len, i - 7, "struct", 6)) {
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
                bool is_struct = sk_word_at(t, len, h, "struct", 6) && we - h == 6;
                bool is_typedef = sk_word_at(t, len, h, "typedef", 7) && we - h == 7;
                if (w == 0 && !is_struct)
                    continue; /* the tag */
                if (is_typedef)
                    break;
                typedef_struct = is_struct && w < 2 && h < we;
            }
            if (!typedef_struct || !sk_word_at(t, len, h, "typedef", 7))
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

void sk_resolve_type(const skel *k, const char *elem, char *cur, size_t n)
{
    char next[96];
    snprintf(cur, n, "%s", elem);
    for (int i = 0; i < 4 && !sk_dtype_known(cur) && sk_typedef(k->text, k->len, cur, next, sizeof next); i++)
        snprintf(cur, n, "%s", next);
}

/* The element type of a buffer: as sk_resolve_type, and a struct of like fields as the
 * vector of them (sk_struct_vector), whose elements the harness generates and compares. A
 * scalar or a __constant__ of such a struct is not one (its bytes are no buffer). */
void sk_resolve_pointee(const skel *k, const char *elem, char *cur, size_t n)
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
const char *sk_dispatch_macro(const skel *k, size_t site)
{
    static const char *const macros[] = { "AT_DISPATCH_FLOATING_TYPES_AND_HALF",
                                          "AT_DISPATCH_FLOATING_TYPES_AND2",
                                          "AT_DISPATCH_FLOATING_TYPES_AND", "AT_DISPATCH_FLOATING_TYPES" };
    const char *t = k->site_text;
    for (size_t i = site; t && i-- > k->body_start;) {
        for (size_t m = 0; m < HK_ARRAY_LEN(macros); m++) {
            size_t l = strlen(macros[m]);
            if (!sk_word_at(t, site, i, macros[m], l))
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

/* Where the body of the function holding launch l starts in t (len bytes): its caller's
 * body, or, for a launch the analysis left at file scope (broken code around it: tree-sitter
 * reads `if (grid.x < 1)` as a template argument list and loses the whole function), the
 * outermost brace before it that opens a function body (`) {`), found by counting braces
 * in the text from the end of the last function the model knows before it, string and
 * character literals and comments skipped. False when there is none. */
bool sk_site_body(const an_model *m, const char *t, size_t len, const an_launch *l, uint32_t *start)
{
    if (l->caller >= 0 && (size_t)l->caller < m->n_funcs) {
        *start = m->funcs[l->caller].body_span.start_byte;
        return true;
    }
    size_t at = l->span.start_byte, from = 0;
    if (!t || at > len)
        return false;
    for (size_t i = 0; i < m->n_funcs; i++)
        if (m->funcs[i].span.end_byte <= at && m->funcs[i].span.end_byte > from)
            from = m->funcs[i].span.end_byte;
    size_t open[64];
    size_t depth = 0;
    for (size_t i = from; i < at; i++) {
        char c = t[i];
        if (c == '"' || c == '\'') {
            for (i++; i < at && t[i] != c && t[i] != '\n'; i++)
                if (t[i] == '\\')
                    i++;
        } else if (c == '/' && i + 1 < at && t[i + 1] == '/') {
            while (i + 1 < at && t[i + 1] != '\n')
                i++;
        } else if (c == '/' && i + 1 < at && t[i + 1] == '*') {
            for (i += 2; i + 1 < at && !(t[i] == '*' && t[i + 1] == '/'); i++)
                ;
            i++;
        } else if (c == '#') {
            /* a preprocessor line: its braces (if any) are not code */
            size_t b = i;
            while (b > from && (t[b - 1] == ' ' || t[b - 1] == '\t'))
                b--;
            if (b == from || t[b - 1] == '\n')
                while (i + 1 < at && !(t[i + 1] == '\n' && t[i] != '\\'))
                    i++;
        } else if (c == '{') {
            if (depth < HK_ARRAY_LEN(open))
                open[depth] = i;
            depth++;
        } else if (c == '}' && depth > 0) {
            depth--;
        }
    }
    for (size_t d = 0; d < depth && d < HK_ARRAY_LEN(open); d++) {
        size_t b = open[d];
        while (b > from && isspace((unsigned char)t[b - 1]))
            b--;
        if (b > from && t[b - 1] == ')') {
            *start = (uint32_t)open[d];
            return true;
        }
    }
    return false;
}

/* The first launch of f in m that passes as many arguments as f takes (a launch of another
 * kernel of the same name, in a sibling file, would not). */
/* Whether the body of the function holding launch l (in t, len bytes) makes the function
 * pointer the launch calls point at kernel: `void (*p)(...)` declared there, and
 * `p = &kernel;` or `p = kernel;` before the launch (cuda-samples' transpose picks its
 * kernel in a switch and launches them all with one grid). */
static bool sk_pointer_launch(const an_model *m, const char *t, size_t len, const an_launch *l,
                              const char *kernel)
{
    uint32_t body = 0;
    if (!t || l->template_args || !sk_is_identifier(l->kernel) || !sk_site_body(m, t, len, l, &body))
        return false;
    size_t s = body, e = l->span.start_byte < len ? l->span.start_byte : len;
    const char *p = l->kernel;
    size_t pl = strlen(p), kl = strlen(kernel);
    bool declared = false, assigned = false;
    for (size_t i = s; i + pl < e; i++) {
        if (!sk_word_at(t, e, i, p, pl))
            continue;
        size_t b = i, j = i + pl;
        while (b > s && isspace((unsigned char)t[b - 1]))
            b--;
        while (j < e && isspace((unsigned char)t[j]))
            j++;
        /* (*p)( : the declaration of a function pointer */
        if (b >= s + 2 && t[b - 1] == '*' && j < e && t[j] == ')') {
            size_t q = b - 1;
            while (q > s && isspace((unsigned char)t[q - 1]))
                q--;
            declared |= q > s && t[q - 1] == '(';
            continue;
        }
        /* p = &kernel; or p = kernel; */
        if (j + 1 < e && t[j] == '=' && t[j + 1] != '=') {
            size_t q = j + 1;
            while (q < e && isspace((unsigned char)t[q]))
                q++;
            if (q < e && t[q] == '&')
                q++;
            while (q < e && isspace((unsigned char)t[q]))
                q++;
            size_t r = q + kl;
            while (r < e && isspace((unsigned char)t[r]))
                r++;
            assigned |= sk_word_at(t, e, q, kernel, kl) && r < e && t[r] == ';';
        }
    }
    return declared && assigned;
}

/* ---- the branch the program takes ---- */

/* Byte just past the blank space before byte i of t, not below lo. */
static size_t sk_back_ws(const char *t, size_t lo, size_t i)
{
    while (i > lo && isspace((unsigned char)t[i - 1]))
        i--;
    return i;
}

/* The '(' that opens the parenthesis closed at byte close - 1, or SIZE_MAX. */
static size_t sk_open_paren(const char *t, size_t lo, size_t close)
{
    if (close <= lo || t[close - 1] != ')')
        return SIZE_MAX;
    size_t open = close - 1;
    for (int d = 0; open > lo;) {
        open--;
        d += (t[open] == ')') - (t[open] == '(');
        if (d < 0)
            return open;
    }
    return SIZE_MAX;
}

/* The '{' that opens the block closed by the '}' at byte close, or SIZE_MAX. */
static size_t sk_open_brace(const char *t, size_t lo, size_t close)
{
    for (int d = 0; close > lo;) {
        close--;
        d += (t[close] == '}') - (t[close] == '{');
        if (d < 0)
            return close;
    }
    return SIZE_MAX;
}

/* The value of integer name (an argument's text) inside function body [bs, be) of t: a
 * literal, or a local initialised with one (`int block_size = 32;`) that nothing else in
 * the body assigns, steps or takes the address of. */
static bool sk_local_constant(const char *t, size_t bs, size_t be, const char *name, long long *v)
{
    char *end = NULL;
    long long x = strtoll(name, &end, 0);
    if (end != name && !*end) {
        *v = x;
        return true;
    }
    if (!sk_is_identifier(name))
        return false;
    size_t nl = strlen(name);
    int inits = 0;
    for (size_t i = bs; i + nl <= be; i++) {
        if (!sk_word_at(t, be, i, name, nl))
            continue;
        size_t b = sk_back_ws(t, bs, i), j = i + nl;
        while (j < be && isspace((unsigned char)t[j]))
            j++;
        if ((b > bs && t[b - 1] == '&' && (b < bs + 2 || t[b - 2] != '&')) ||
            (b > bs + 1 && (t[b - 1] == '+' || t[b - 1] == '-') && t[b - 2] == t[b - 1]) ||
            (j + 1 < be && (t[j] == '+' || t[j] == '-') && t[j + 1] == t[j]) ||
            (j + 1 < be && strchr("+-*/%&|^<>", t[j]) && t[j + 1] == '=' && !(t[j] == '<' || t[j] == '>')))
            return false; /* &name, ++name, name++, name += ... */
        if (j + 1 < be && t[j] == '=' && t[j + 1] != '=') {
            /* an assignment: only `int name = LITERAL;` once */
            bool typed = b > bs && (isalnum((unsigned char)t[b - 1]) || t[b - 1] == '_');
            size_t q = j + 1;
            while (q < be && isspace((unsigned char)t[q]))
                q++;
            long long y = strtoll(t + q, &end, 0);
            if (!typed || end == t + q)
                return false;
            while (end < t + be && isspace((unsigned char)*end))
                end++;
            if (end >= t + be || *end != ';')
                return false;
            x = y;
            inits++;
        }
    }
    if (inits != 1)
        return false;
    *v = x;
    return true;
}

bool sk_site_branch(const an_model *m, const char *t, size_t len, const an_launch *l, sk_branch *br)
{
    memset(br, 0, sizeof *br);
    if (!m || !t || l->caller < 0 || (size_t)l->caller >= m->n_funcs)
        return false;
    const an_function *f = &m->funcs[l->caller];
    size_t lo = f->body_span.start_byte, at = l->span.start_byte;
    if (at > len || at <= lo)
        return false;
    /* `if (C) k<<<..>>>(..);`, `if (C) { .. k<<<..>>>(..); .. }` or its `else { .. }` */
    bool in_else = false;
    size_t close = sk_back_ws(t, lo, at);
    if (close > lo && t[close - 1] != ')') {
        size_t c = at;
        for (int depth = 0; c > lo;) {
            c--;
            if (t[c] == '}')
                depth++;
            else if (t[c] == '{' && depth-- == 0)
                break;
        }
        if (t[c] != '{')
            return false;
        close = sk_back_ws(t, lo, c);
        if (close >= lo + 4 && sk_word_at(t, close, close - 4, "else", 4)) {
            size_t rb = sk_back_ws(t, lo, close - 4);
            size_t ob = rb > lo && t[rb - 1] == '}' ? sk_open_brace(t, lo, rb - 1) : SIZE_MAX;
            if (ob == SIZE_MAX)
                return false;
            close = sk_back_ws(t, lo, ob);
            in_else = true;
        }
    }
    size_t open = sk_open_paren(t, lo, close);
    if (open == SIZE_MAX)
        return false;
    size_t kw = sk_back_ws(t, lo, open);
    if (kw < lo + 2 || !sk_word_at(t, kw, kw - 2, "if", 2) || kw - 2 < lo ||
        (kw - 2 > lo && (isalnum((unsigned char)t[kw - 3]) || t[kw - 3] == '_')))
        return false;
    size_t before_if = sk_back_ws(t, lo, kw - 2);
    if (before_if >= lo + 4 && sk_word_at(t, before_if, before_if - 4, "else", 4))
        return false; /* `else if (..)`: whether it runs depends on the conditions before too */
    char a[64], b[64], op[3] = "";
    int used = 0;
    char cond[200];
    size_t cl = close - 1 - (open + 1);
    if (cl >= sizeof cond)
        return false;
    memcpy(cond, t + open + 1, cl);
    cond[cl] = '\0';
    if (sscanf(cond, " %63[A-Za-z0-9_] %2[=!] %63[A-Za-z0-9_] %n", a, op, b, &used) != 3 || (size_t)used != cl ||
        op[1] != '=' || (op[0] != '=' && op[0] != '!'))
        return false;
    bool a_param = false, b_param = false;
    size_t pi = 0;
    for (size_t i = 0; i < f->n_params; i++) {
        if (f->params[i].pointer_depth > 0 || !f->params[i].name)
            continue;
        if (!strcmp(f->params[i].name, a) && !a_param && !b_param) {
            a_param = true;
            pi = i;
        } else if (!strcmp(f->params[i].name, b) && !a_param && !b_param) {
            b_param = true;
            pi = i;
        }
    }
    char *end = NULL;
    long long cmp = strtoll(a_param ? b : a, &end, 0);
    if ((!a_param && !b_param) || !end || *end || end == (a_param ? b : a))
        return false;
    /* every call of the launcher in the file passes that parameter the same constant */
    const char *fn = f->name;
    size_t fl = fn ? strlen(fn) : 0;
    long long value = 0;
    int calls = 0;
    for (size_t i = 0; fl && i + fl <= len; i++) {
        if (!sk_word_at(t, len, i, fn, fl) || (i >= f->name_span.start_byte && i < f->name_span.end_byte))
            continue;
        size_t j = i + fl;
        while (j < len && isspace((unsigned char)t[j]))
            j++;
        if (j >= len || t[j] != '(')
            continue;
        /* the function making the call: the outermost brace open before it (the analysis
         * lists only the functions that launch kernels, not main) */
        size_t gs = SIZE_MAX, ge = SIZE_MAX;
        for (size_t q = i, depth = 0; q > 0;) {
            q--;
            if (t[q] == '}')
                depth++;
            else if (t[q] == '{' && depth > 0)
                depth--;
            else if (t[q] == '{')
                gs = q;
        }
        for (size_t q = gs == SIZE_MAX ? len : gs, depth = 0; q < len; q++) {
            depth += (t[q] == '{') - (t[q] == '}');
            if (depth == 0) {
                ge = q;
                break;
            }
        }
        if (gs == SIZE_MAX || ge == SIZE_MAX)
            continue; /* a declaration or a mention outside any body */
        size_t arg = j + 1, argn = 0, e = arg;
        bool found = false;
        for (int d = 0; e < len; e++) {
            char ch = t[e];
            if (ch == '(' || ch == '[' || ch == '{')
                d++;
            else if ((ch == ')' || ch == ']' || ch == '}') && d > 0)
                d--;
            else if ((ch == ',' || ch == ')') && d == 0) {
                if (argn == pi) {
                    found = true;
                    break;
                }
                if (ch == ')')
                    break;
                argn++;
                arg = e + 1;
            }
        }
        char text[64];
        long long v = 0;
        if (!found || !sk_bare(t + arg, e - arg, text, sizeof text) ||
            !sk_local_constant(t, gs, ge, text, &v) ||
            (calls && v != value))
            return false;
        value = v;
        calls++;
    }
    if (!calls)
        return false;
    snprintf(br->param, sizeof br->param, "%s", f->params[pi].name);
    snprintf(br->launcher, sizeof br->launcher, "%s", fn);
    br->value = value;
    br->calls = calls;
    bool holds = op[0] == '=' ? value == cmp : value != cmp;
    br->taken = in_else ? !holds : holds;
    return true;
}

const an_launch *sk_find_site(const an_model *m, const char *text, size_t len, const char *kernel,
                              size_t n_params)
{
    /* the first launch whose branch the program takes: one under `if (block_size == 16)`
     * whose launcher every call passes block_size = 32 is not it (cuda-samples' matrixMul
     * launches <16> there and <32> in the else) */
    const an_launch *first = NULL;
    for (size_t i = 0; m && i < m->n_launches; i++) {
        const an_launch *l = &m->launches[i];
        const char *colon = strrchr(l->kernel, ':');
        const char *base = colon ? colon + 1 : l->kernel;
        if ((!strcmp(l->kernel, kernel) || !strcmp(base, kernel)) && l->n_args == n_params) {
            sk_branch br;
            if (!sk_site_branch(m, text, len, l, &br) || br.taken)
                return l;
            if (!first)
                first = l;
        }
    }
    if (first)
        return first;
    for (size_t i = 0; m && i < m->n_launches; i++) {
        const an_launch *l = &m->launches[i];
        if (l->n_args == n_params && sk_pointer_launch(m, text, len, l, kernel))
            return l;
    }
    return NULL;
}
