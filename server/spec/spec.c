/* Bench-spec parsing and validation. jansson parses the JSON but keeps no positions of
 * values, so spec_locate() re-scans the text for a field's JSON path to give every
 * diagnostic a line. Validation collects all problems instead of stopping at the
 * first, and evaluates every expression for every size set so a spec that passes
 * here cannot fail later on arithmetic. */
#include "spec/spec.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/hk.h"
#include "core/i18n.h"

#define MAX_BUFFER_BYTES (64LL << 30) /* one buffer larger than this is surely a typo */
#define VALIDATION_SM_COUNT 132       /* sm_count assumed when checking grids without a device */

/* ------------------------------------------------------------------------------------
 * Locating a JSON path in the text
 * ---------------------------------------------------------------------------------- */

typedef struct {
    const char *s;
    size_t n, i;
} scan;

static void sc_ws(scan *c)
{
    while (c->i < c->n && isspace((unsigned char)c->s[c->i]))
        c->i++;
}

/* At a quote: moves past the string; start and len give its raw contents. */
static bool sc_string(scan *c, const char **start, size_t *len)
{
    if (c->i >= c->n || c->s[c->i] != '"')
        return false;
    size_t b = ++c->i;
    while (c->i < c->n && c->s[c->i] != '"')
        c->i += c->s[c->i] == '\\' ? 2 : 1;
    if (c->i >= c->n)
        return false;
    *start = c->s + b;
    *len = c->i - b;
    c->i++;
    return true;
}

static bool sc_skip_value(scan *c, int depth)
{
    sc_ws(c);
    if (c->i >= c->n || depth > 256)
        return false;
    char ch = c->s[c->i];
    if (ch == '"') {
        const char *st;
        size_t ln;
        return sc_string(c, &st, &ln);
    }
    if (ch == '{' || ch == '[') {
        char close = ch == '{' ? '}' : ']';
        c->i++;
        sc_ws(c);
        if (c->i < c->n && c->s[c->i] == close) {
            c->i++;
            return true;
        }
        for (;;) {
            if (ch == '{') {
                const char *st;
                size_t ln;
                sc_ws(c);
                if (!sc_string(c, &st, &ln))
                    return false;
                sc_ws(c);
                if (c->i >= c->n || c->s[c->i] != ':')
                    return false;
                c->i++;
            }
            if (!sc_skip_value(c, depth + 1))
                return false;
            sc_ws(c);
            if (c->i >= c->n)
                return false;
            if (c->s[c->i] == ',') {
                c->i++;
                continue;
            }
            if (c->s[c->i] == close) {
                c->i++;
                return true;
            }
            return false;
        }
    }
    while (c->i < c->n && !strchr(",]} \t\r\n", c->s[c->i]))
        c->i++;
    return true;
}

typedef struct {
    bool is_index;
    const char *key;
    size_t key_len;
    long index;
} path_seg;

/* At a value; follows segs and records in *best the start of the deepest match. */
static void sc_follow(scan *c, const path_seg *segs, size_t n_segs, size_t *best)
{
    sc_ws(c);
    if (c->i >= c->n)
        return;
    *best = c->i;
    if (n_segs == 0)
        return;
    char ch = c->s[c->i];
    if (segs->is_index && ch == '[') {
        c->i++;
        sc_ws(c);
        if (c->i < c->n && c->s[c->i] == ']')
            return;
        for (long k = 0;; k++) {
            if (k == segs->index) {
                sc_follow(c, segs + 1, n_segs - 1, best);
                return;
            }
            if (!sc_skip_value(c, 0))
                return;
            sc_ws(c);
            if (c->i >= c->n || c->s[c->i] != ',')
                return;
            c->i++;
        }
    }
    if (!segs->is_index && ch == '{') {
        c->i++;
        for (;;) {
            sc_ws(c);
            const char *st;
            size_t ln;
            size_t key_at = c->i;
            if (!sc_string(c, &st, &ln))
                return;
            sc_ws(c);
            if (c->i >= c->n || c->s[c->i] != ':')
                return;
            c->i++;
            if (ln == segs->key_len && memcmp(st, segs->key, ln) == 0) {
                *best = key_at;
                sc_follow(c, segs + 1, n_segs - 1, best);
                if (n_segs == 1)
                    *best = key_at; /* the member's line is where its key is */
                return;
            }
            if (!sc_skip_value(c, 0))
                return;
            sc_ws(c);
            if (c->i >= c->n || c->s[c->i] != ',')
                return;
            c->i++;
        }
    }
}

int spec_locate(const char *text, size_t len, const char *path, int *line)
{
    path_seg segs[32];
    size_t n = 0;
    const char *p = path ? path : "";
    *line = 1;
    while (*p) {
        if (n == HK_ARRAY_LEN(segs))
            return HK_EPARSE;
        if (*p == '[') {
            char *end = NULL;
            long idx = strtol(p + 1, &end, 10);
            if (end == p + 1 || *end != ']' || idx < 0)
                return HK_EPARSE;
            segs[n++] = (path_seg){ .is_index = true, .index = idx };
            p = end + 1;
        } else {
            if (*p == '.')
                p++;
            size_t k = strcspn(p, ".[");
            if (k == 0)
                return HK_EPARSE;
            segs[n++] = (path_seg){ .is_index = false, .key = p, .key_len = k };
            p += k;
        }
    }
    scan c = { .s = text, .n = len, .i = 0 };
    size_t best = 0;
    sc_follow(&c, segs, n, &best);
    int l = 1;
    for (size_t i = 0; i < best && i < len; i++)
        l += text[i] == '\n';
    *line = l;
    return HK_OK;
}

/* ------------------------------------------------------------------------------------
 * Diagnostics
 * ---------------------------------------------------------------------------------- */

typedef struct {
    const char *text;
    size_t len;
    spec_diags *d;
    int rc;          /* HK_ENOMEM once an allocation failed */
} pctx;

/* A diagnostic whose text is ready (a message built elsewhere, such as a distribution's). */
static void diag_text(pctx *c, enum spec_severity sev, const char *path, const char *msg);

/* A diagnostic in the current language: id is an HK_MSG_SPEC_* row, a format (F) with
 * its arguments or plain text (M) without (docs/i18n.md). */
static void diag(pctx *c, enum spec_severity sev, const char *path, enum hk_msg id, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, id);
    hk_vtr_into(msg, sizeof msg, id, ap);
    va_end(ap);
    diag_text(c, sev, path, msg);
}

static void diag_text(pctx *c, enum spec_severity sev, const char *path, const char *msg)
{
    spec_diags *d = c->d;
    if (sev == SPEC_ERROR)
        d->n_errors++;
    if (d->n >= SPEC_MAX_DIAGS)
        return;
    spec_diag *items = hk_realloc(d->items, (d->n + 1) * sizeof *items);
    if (!items) {
        c->rc = HK_ENOMEM;
        return;
    }
    d->items = items;
    spec_diag *x = &items[d->n];
    x->severity = sev;
    x->path = hk_strdup(path ? path : "");
    x->message = hk_strdup(msg);
    x->line = 0;
    if (!x->path || !x->message) {
        hk_free(x->path);
        hk_free(x->message);
        c->rc = HK_ENOMEM;
        return;
    }
    if (c->text)
        spec_locate(c->text, c->len, x->path, &x->line);
    d->n++;
}

void spec_diags_free(spec_diags *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++) {
        hk_free(d->items[i].path);
        hk_free(d->items[i].message);
    }
    hk_free(d->items);
    d->items = NULL;
    d->n = d->n_errors = 0;
}

char *spec_diag_format(const spec_diag *d, const char *file)
{
    /* the same words in every language (problem matchers read them); through the table
     * so that a stored English line is read back (hk_tr_said) with its message said */
    const char *f = file ? file : "spec";
    bool err = d->severity == SPEC_ERROR;
    if (d->path[0])
        return hk_trf(err ? HK_MSG_SPEC_DIAG_ERROR_PATH : HK_MSG_SPEC_DIAG_WARNING_PATH, f,
                      d->line, d->path, d->message);
    return hk_trf(err ? HK_MSG_SPEC_DIAG_ERROR : HK_MSG_SPEC_DIAG_WARNING, f, d->line,
                  d->message);
}

/* ------------------------------------------------------------------------------------
 * Small helpers
 * ---------------------------------------------------------------------------------- */

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 99;
    size_t row[41];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t sub = prev + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            size_t best = sub < row[j] + 1 ? sub : row[j] + 1;
            row[j] = best < row[j - 1] + 1 ? best : row[j - 1] + 1;
            prev = cur;
        }
    }
    return row[lb];
}

/* Reports every key of obj not in allowed (NULL-terminated), with a "did you mean". */
static void check_keys(pctx *c, json_t *obj, const char *path, const char *const *allowed)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        bool ok = false;
        const char *near = NULL;
        size_t near_d = 3;
        for (const char *const *a = allowed; *a; a++) {
            if (strcmp(*a, key) == 0)
                ok = true;
            size_t dist = edit_distance(*a, key);
            if (dist < near_d) {
                near_d = dist;
                near = *a;
            }
        }
        if (ok)
            continue;
        char p[256];
        snprintf(p, sizeof p, "%s%s%s", path, path[0] ? "." : "", key);
        if (near)
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_UNKNOWN_FIELD_NEAR, near);
        else
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_UNKNOWN_FIELD);
    }
}

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
    /* identifiers, optionally qualified (ns::kernel) */
    if (!s || !*s)
        return false;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == ':'))
            return false;
    return isalpha((unsigned char)*s) || *s == '_' || *s == ':';
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return hk_tr(HK_MSG_SPEC_T_OBJECT);
    case JSON_ARRAY: return hk_tr(HK_MSG_SPEC_T_ARRAY);
    case JSON_STRING: return hk_tr(HK_MSG_SPEC_T_STRING);
    case JSON_INTEGER: return hk_tr(HK_MSG_SPEC_T_INTEGER);
    case JSON_REAL: return hk_tr(HK_MSG_SPEC_T_NUMBER);
    case JSON_TRUE:
    case JSON_FALSE: return hk_tr(HK_MSG_SPEC_T_BOOLEAN);
    default: return hk_tr(HK_MSG_SPEC_T_NULL);
    }
}

/* Member key of obj as a string: NULL when absent (error if required) or not a string. */
static const char *get_string(pctx *c, json_t *obj, const char *base, const char *key, bool required)
{
    json_t *v = json_object_get(obj, key);
    char p[256];
    snprintf(p, sizeof p, "%s%s%s", base, base[0] ? "." : "", key);
    if (!v) {
        if (required)
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_MISSING);
        return NULL;
    }
    if (!json_is_string(v)) {
        diag(c, SPEC_ERROR, p, HK_MSG_SPEC_EXPECTED_STRING_GOT, type_name(v));
        return NULL;
    }
    if (json_string_length(v) == 0) {
        diag(c, SPEC_ERROR, p, HK_MSG_SPEC_EMPTY_STRING);
        return NULL;
    }
    return json_string_value(v);
}

static char *dup_or_fail(pctx *c, const char *s)
{
    if (!s)
        return NULL;
    char *d = hk_strdup(s);
    if (!d)
        c->rc = HK_ENOMEM;
    return d;
}

/* ------------------------------------------------------------------------------------
 * dtypes, distributions, tolerances
 * ---------------------------------------------------------------------------------- */

static const struct { const char *name; int dt; } dtype_names[] = {
    { "float", HK_DT_F32 }, { "float32", HK_DT_F32 }, { "fp32", HK_DT_F32 }, { "f32", HK_DT_F32 },
    { "double", HK_DT_F64 }, { "float64", HK_DT_F64 }, { "fp64", HK_DT_F64 }, { "f64", HK_DT_F64 },
    { "half", HK_DT_F16 }, { "float16", HK_DT_F16 }, { "fp16", HK_DT_F16 }, { "__half", HK_DT_F16 },
    { "bfloat16", HK_DT_BF16 }, { "bf16", HK_DT_BF16 }, { "__nv_bfloat16", HK_DT_BF16 },
    { "nv_bfloat16", HK_DT_BF16 },
    { "int8", HK_DT_I8 }, { "int8_t", HK_DT_I8 }, { "signed char", HK_DT_I8 }, { "char", HK_DT_I8 },
    { "int16", HK_DT_I16 }, { "int16_t", HK_DT_I16 }, { "short", HK_DT_I16 },
    { "int32", HK_DT_I32 }, { "int32_t", HK_DT_I32 }, { "int", HK_DT_I32 },
    { "int64", HK_DT_I64 }, { "int64_t", HK_DT_I64 }, { "long long", HK_DT_I64 }, { "long", HK_DT_I64 },
    { "uint8", HK_DT_U8 }, { "uint8_t", HK_DT_U8 }, { "unsigned char", HK_DT_U8 },
    { "uint16", HK_DT_U16 }, { "uint16_t", HK_DT_U16 }, { "unsigned short", HK_DT_U16 },
    { "uint32", HK_DT_U32 }, { "uint32_t", HK_DT_U32 }, { "unsigned", HK_DT_U32 },
    { "unsigned int", HK_DT_U32 },
    { "uint64", HK_DT_U64 }, { "uint64_t", HK_DT_U64 }, { "unsigned long long", HK_DT_U64 }, /* i18n: not for people (C types) */
    { "unsigned long", HK_DT_U64 }, { "size_t", HK_DT_U64 },
};

int spec_dtype_parse(const char *name, int *dtype)
{
    for (size_t i = 0; name && i < HK_ARRAY_LEN(dtype_names); i++) {
        if (strcmp(dtype_names[i].name, name) == 0) {
            *dtype = dtype_names[i].dt;
            return HK_OK;
        }
    }
    return HK_EINVAL;
}

bool spec_dist_is_referee(const spec *s, size_t d)
{
    return s && d < s->n_dists && s->n_referee_dists <= s->n_dists &&
           d >= s->n_dists - s->n_referee_dists;
}

bool spec_dist_is_grid(const spec *s, size_t d)
{
    return spec_dist_is_referee(s, d) && s->dists[d].kind == HK_DIST_GRID;
}

spec_tolerance spec_default_tolerance(int dtype)
{
    switch (dtype) {
    case HK_DT_F32: return (spec_tolerance){ .rtol = 1e-4, .atol = 1e-5, .l2 = 1e-5 };
    case HK_DT_F64: return (spec_tolerance){ .rtol = 1e-10, .atol = 1e-12, .l2 = 1e-12 };
    case HK_DT_F16: return (spec_tolerance){ .rtol = 1e-2, .atol = 1e-3, .l2 = 1e-3 };
    case HK_DT_BF16: return (spec_tolerance){ .rtol = 2e-2, .atol = 1e-2, .l2 = 1e-2 };
    default: return (spec_tolerance){ 0, 0, 0 };
    }
}

/* err gets the message id (an HK_MSG_SPEC_* format) in the current language. */
static void set_err(char *err, size_t errlen, enum hk_msg id, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, id);
    hk_vtr_into(err, errlen, id, ap);
    va_end(ap);
}

int spec_dist_parse(const char *text, hk_dist *out, char *err, size_t errlen)
{
    static const struct { const char *name; int kind; int nargs; } kinds[] = {
        { "uniform", HK_DIST_UNIFORM, 2 }, { "normal", HK_DIST_NORMAL, 2 },
        { "int", HK_DIST_INT, 2 }, { "ones_sparse", HK_DIST_ONES_SPARSE, 1 },
        { "zeros", HK_DIST_ZEROS, 0 }, { "grid", HK_DIST_GRID, 2 },
    };
    char name[32];
    size_t k = 0;
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    while ((isalnum((unsigned char)*p) || *p == '_') && k + 1 < sizeof name)
        name[k++] = *p++;
    name[k] = '\0';
    int kind = 0, nargs = 0;
    for (size_t i = 0; i < HK_ARRAY_LEN(kinds); i++)
        if (strcmp(kinds[i].name, name) == 0) {
            kind = kinds[i].kind;
            nargs = kinds[i].nargs;
        }
    if (!kind) {
        set_err(err, errlen, HK_MSG_SPEC_DIST_UNKNOWN, text);
        return HK_EINVAL;
    }
    double a[2] = { 0, 0 };
    int got = 0;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '(') {
        p++;
        for (;;) {
            while (isspace((unsigned char)*p))
                p++;
            if (*p == ')' && got == 0) {
                p++;
                break;
            }
            char *end = NULL;
            errno = 0;
            double v = strtod(p, &end);
            if (end == p || errno == ERANGE || !isfinite(v) || got >= 2) {
                set_err(err, errlen, HK_MSG_SPEC_DIST_BAD_NUMBER, text);
                return HK_EINVAL;
            }
            a[got++] = v;
            p = end;
            while (isspace((unsigned char)*p))
                p++;
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p == ')') {
                p++;
                break;
            }
            set_err(err, errlen, HK_MSG_SPEC_DIST_EXPECTED_COMMA, text);
            return HK_EINVAL;
        }
    }
    while (isspace((unsigned char)*p))
        p++;
    if (*p) {
        set_err(err, errlen, HK_MSG_SPEC_DIST_TRAILING, text);
        return HK_EINVAL;
    }
    if (got != nargs) {
        set_err(err, errlen, nargs == 1 ? HK_MSG_SPEC_DIST_NARGS_ONE : HK_MSG_SPEC_DIST_NARGS, text, name,
                nargs);
        return HK_EINVAL;
    }
    *out = (hk_dist){ .kind = kind, .a = a[0], .b = a[1] };
    switch (kind) {
    case HK_DIST_UNIFORM:
    case HK_DIST_GRID:
        if (!(a[0] < a[1])) {
            set_err(err, errlen, HK_MSG_SPEC_DIST_UNIFORM, text);
            return HK_EINVAL;
        }
        break;
    case HK_DIST_NORMAL:
        if (!(a[1] > 0)) {
            set_err(err, errlen, HK_MSG_SPEC_DIST_NORMAL, text);
            return HK_EINVAL;
        }
        break;
    case HK_DIST_INT:
        if (a[0] != floor(a[0]) || a[1] != floor(a[1]) || !(a[0] < a[1])) {
            set_err(err, errlen, HK_MSG_SPEC_DIST_INT, text);
            return HK_EINVAL;
        }
        break;
    case HK_DIST_ONES_SPARSE:
        if (!(a[0] > 0 && a[0] < 1)) {
            set_err(err, errlen, HK_MSG_SPEC_DIST_SPARSE, text);
            return HK_EINVAL;
        }
        break;
    }
    return HK_OK;
}

/* Integer inputs without a dist of their own: a spread-out range the type can hold. */
static hk_dist default_int_dist(int dt)
{
    switch (dt) {
    case HK_DT_U8: return (hk_dist){ HK_DIST_INT, 0, 255 };
    case HK_DT_I8: return (hk_dist){ HK_DIST_INT, -128, 127 };
    case HK_DT_U16:
    case HK_DT_U32:
    case HK_DT_U64: return (hk_dist){ HK_DIST_INT, 0, 1000 };
    default: return (hk_dist){ HK_DIST_INT, -1000, 1000 };
    }
}

/* ------------------------------------------------------------------------------------
 * Expressions in the spec
 * ---------------------------------------------------------------------------------- */

static const char *const launch_vars[] = { "block_x", "block_y", "block_z", "sm_count" };

typedef struct {
    pctx *c;
    const spec *s;
    const char *path;
    bool allow_launch_vars;
    bool bad;
} var_check;

static int check_var_cb(const char *name, void *ctx)
{
    var_check *v = ctx;
    for (size_t i = 0; i < v->s->n_size_names; i++)
        if (strcmp(v->s->size_names[i], name) == 0)
            return 0;
    for (size_t i = 0; i < HK_ARRAY_LEN(launch_vars); i++) {
        if (strcmp(launch_vars[i], name) == 0) {
            if (v->allow_launch_vars)
                return 0;
            diag(v->c, SPEC_ERROR, v->path, HK_MSG_SPEC_LAUNCH_VAR_ONLY,
                 name);
            v->bad = true;
            return 1;
        }
    }
    char names[256] = "";
    for (size_t i = 0; i < v->s->n_size_names && strlen(names) < 200; i++) {
        strcat(names, i ? ", " : "");
        strncat(names, v->s->size_names[i], 40);
    }
    diag(v->c, SPEC_ERROR, v->path, HK_MSG_SPEC_UNKNOWN_VAR, name,
         names[0] ? names : hk_tr(HK_MSG_SPEC_NONE),
         v->allow_launch_vars ? hk_tr(HK_MSG_SPEC_LAUNCH_VARS) : "");
    v->bad = true;
    return 1;
}

/* An expression member: a JSON number or a string in the expression language. NULL
 * with a diagnostic when it is missing (and required), malformed or uses unknown vars. */
static expr *get_expr(pctx *c, const spec *s, json_t *v, const char *path, bool allow_launch)
{
    expr *e = NULL;
    char err[200];
    int rc;
    if (json_is_integer(v))
        rc = expr_from_number(0, json_integer_value(v), false, &e);
    else if (json_is_real(v))
        rc = expr_from_number(json_real_value(v), 0, true, &e);
    else if (json_is_string(v))
        rc = expr_parse(json_string_value(v), &e, err, sizeof err);
    else {
        diag(c, SPEC_ERROR, path, HK_MSG_SPEC_EXPECTED_EXPR_GOT, type_name(v));
        return NULL;
    }
    if (rc == HK_ENOMEM) {
        c->rc = HK_ENOMEM;
        return NULL;
    }
    if (rc != HK_OK) {
        diag(c, SPEC_ERROR, path, HK_MSG_SPEC_BAD_EXPR,
             json_is_string(v) ? json_string_value(v) : "", json_is_string(v) ? err : hk_tr(HK_MSG_SPEC_NOT_FINITE));
        return NULL;
    }
    var_check vc = { .c = c, .s = s, .path = path, .allow_launch_vars = allow_launch };
    expr_foreach_var(e, check_var_cb, &vc);
    if (vc.bad) {
        expr_free(e);
        return NULL;
    }
    return e;
}

size_t spec_size_vars(const spec *s, size_t k, const long long *block, long long sm_count,
                      expr_var *vars)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_size_names; i++)
        vars[n++] = (expr_var){ .name = s->size_names[i],
                                .value = { .i = s->size_values[k * s->n_size_names + i] } };
    long long b[3] = { 1, 1, 1 };
    if (block) {
        memcpy(b, block, sizeof b);
    } else {
        for (int d = 0; d < 3; d++) {
            expr_value v;
            if (s->block[d] && expr_eval(s->block[d], vars, n, &v, NULL, 0) == HK_OK && !v.is_float)
                b[d] = v.i;
        }
    }
    for (int d = 0; d < 3; d++)
        vars[n + d] = (expr_var){ .name = launch_vars[d], .value = { .i = b[d] } };
    vars[n + 3] = (expr_var){ .name = launch_vars[3], .value = { .i = sm_count } };
    return n + 4;
}

int spec_eval(const spec *s, const expr *e, size_t k, long long sm_count, expr_value *out,
              char *err, size_t errlen)
{
    if (k >= s->n_sizes) {
        set_err(err, errlen, HK_MSG_SPEC_NO_SIZE_SET, k);
        return HK_EINVAL;
    }
    /* most specs have a handful of size variables; a long list (deformable im2col has 17)
     * gets its table from the heap */
    expr_var stack[32], *vars = stack;
    if (s->n_size_names + 4 > HK_ARRAY_LEN(stack) && !(vars = hk_calloc(s->n_size_names + 4, sizeof *vars))) {
        set_err(err, errlen, HK_MSG_SPEC_OUT_OF_MEMORY);
        return HK_ENOMEM;
    }
    size_t n = spec_size_vars(s, k, NULL, sm_count, vars);
    int rc = expr_eval(e, vars, n, out, err, errlen);
    if (vars != stack)
        hk_free(vars);
    return rc;
}

/* Evaluates e for every size set; reports the first failure or a value outside
 * [lo, hi] (integers required unless allow_float). */
static bool eval_all(pctx *c, const spec *s, const expr *e, const char *path, long long lo,
                     long long hi, bool allow_float, const char *what)
{
    for (size_t k = 0; k < s->n_sizes; k++) {
        expr_value v;
        char err[200];
        if (spec_eval(s, e, k, VALIDATION_SM_COUNT, &v, err, sizeof err) != HK_OK) {
            diag(c, SPEC_ERROR, path, HK_MSG_SPEC_EVAL_FAILED, expr_text(e), k, err);
            return false;
        }
        if (v.is_float && !allow_float) {
            diag(c, SPEC_ERROR, path, HK_MSG_SPEC_FLOAT_EXPR,
                 expr_text(e), what);
            return false;
        }
        double x = expr_value_double(v);
        if (x < (double)lo || x > (double)hi) {
            diag(c, SPEC_ERROR, path, HK_MSG_SPEC_OUT_OF_RANGE,
                 expr_text(e), k, x, what, lo, hi);
            return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------------------------------
 * The parser proper
 * ---------------------------------------------------------------------------------- */

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        hk_free(v[i]);
    hk_free(v);
}

void spec_free(spec *s)
{
    if (s) {
        free_strv(s->include_dirs, s->n_include_dirs);
        free_strv(s->inferred, s->n_inferred);
    }
    if (!s)
        return;
    hk_free(s->name);
    hk_free(s->kernel);
    hk_free(s->source);
    hk_free(s->source_path);
    hk_free(s->dir);
    free_strv(s->template_args, s->n_template_args);
    free_strv(s->compile_flags, s->n_compile_flags);
    free_strv(s->size_names, s->n_size_names);
    hk_free(s->size_values);
    for (size_t i = 0; s->args && i < s->n_args; i++) {
        hk_free(s->args[i].name);
        expr_free(s->args[i].count);
        expr_free(s->args[i].value);
        hk_free(s->args[i].dists);
        expr_free(s->args[i].dist_lo);
        expr_free(s->args[i].dist_hi);
    }
    hk_free(s->args);
    for (size_t i = 0; s->consts && i < s->n_consts; i++) {
        hk_free(s->consts[i].name);
        expr_free(s->consts[i].count);
        hk_free(s->consts[i].dists);
    }
    hk_free(s->consts);
    for (int d = 0; d < 3; d++) {
        expr_free(s->grid[d]);
        expr_free(s->block[d]);
    }
    expr_free(s->shmem);
    expr_free(s->flops);
    expr_free(s->bytes);
    hk_free(s->seeds);
    hk_free(s->dists);
    free_strv(s->dist_texts, s->n_dists);
    hk_free(s->build);
    hk_free(s->run);
    hk_free(s->workdir);
    hk_free(s->pass_regex);
    hk_free(s->fail_regex);
    hk_free(s->cupti_injection);
    hk_free(s);
}

/* An array of strings (numbers become their text). */
static void parse_strv(pctx *c, json_t *v, const char *path, char ***out, size_t *n_out,
                       bool flags)
{
    if (!v)
        return;
    if (!json_is_array(v)) {
        diag(c, SPEC_ERROR, path, HK_MSG_SPEC_EXPECTED_ARRAY_GOT, type_name(v));
        return;
    }
    size_t n = json_array_size(v);
    if (n > 64) {
        diag(c, SPEC_ERROR, path, HK_MSG_SPEC_MORE_THAN_64);
        return;
    }
    char **strv = hk_calloc(n ? n : 1, sizeof *strv);
    if (!strv) {
        c->rc = HK_ENOMEM;
        return;
    }
    size_t idx;
    json_t *x;
    json_array_foreach(v, idx, x) {
        char p[256];
        snprintf(p, sizeof p, "%s[%zu]", path, idx);
        if (json_is_string(x) && json_string_length(x) > 0)
            strv[idx] = hk_strdup(json_string_value(x));
        else if (json_is_integer(x) && !flags)
            strv[idx] = hk_asprintf("%lld", (long long)json_integer_value(x));
        else {
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_EXPECTED_NONEMPTY_GOT, flags ? "" : hk_tr(HK_MSG_SPEC_OR_INTEGER),
                 type_name(x));
            continue;
        }
        if (!strv[idx])
            c->rc = HK_ENOMEM;
        else if (flags && strv[idx][0] != '-')
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_FLAG_DASH, strv[idx]);
        else if (!flags && strpbrk(strv[idx], ";{}\"\n"))
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_NOT_TEMPLATE_ARG, strv[idx]);
    }
    *out = strv;
    *n_out = n;
}

static void parse_sizes(pctx *c, spec *s, json_t *root)
{
    json_t *v = json_object_get(root, "sizes");
    if (!v) {
        diag(c, SPEC_ERROR, "sizes", HK_MSG_SPEC_SIZES_MISSING, SPEC_MIN_SIZES);
        return;
    }
    if (!json_is_array(v)) {
        diag(c, SPEC_ERROR, "sizes", HK_MSG_SPEC_SIZES_NOT_ARRAY, type_name(v));
        return;
    }
    size_t n = json_array_size(v);
    if (n < SPEC_MIN_SIZES || n > SPEC_MAX_SIZES) {
        diag(c, SPEC_ERROR, "sizes", HK_MSG_SPEC_SIZES_COUNT, SPEC_MIN_SIZES, SPEC_MAX_SIZES, n);
        return;
    }
    json_t *first = json_array_get(v, 0);
    if (!json_is_object(first) || json_object_size(first) == 0 || json_object_size(first) > SPEC_MAX_SIZE_VARS) {
        diag(c, SPEC_ERROR, "sizes[0]", HK_MSG_SPEC_SIZES_FIRST,
             SPEC_MAX_SIZE_VARS);
        return;
    }
    size_t nv = json_object_size(first);
    s->size_names = hk_calloc(nv, sizeof *s->size_names);
    s->size_values = hk_calloc(n * nv, sizeof *s->size_values);
    if (!s->size_names || !s->size_values) {
        c->rc = HK_ENOMEM;
        return;
    }
    const char *key;
    json_t *x;
    json_object_foreach(first, key, x) {
        char p[256];
        snprintf(p, sizeof p, "sizes[0].%s", key);
        if (!is_identifier(key)) {
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_SIZE_VAR_IDENT);
            continue;
        }
        bool reserved = false;
        for (size_t i = 0; i < HK_ARRAY_LEN(launch_vars); i++)
            reserved |= strcmp(launch_vars[i], key) == 0;
        if (reserved) {
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_SIZE_VAR_RESERVED, key);
            continue;
        }
        if (!(s->size_names[s->n_size_names] = hk_strdup(key))) {
            c->rc = HK_ENOMEM;
            return;
        }
        s->n_size_names++;
    }
    if (s->n_size_names != nv)
        return;
    s->n_sizes = n;
    size_t k;
    json_t *set;
    json_array_foreach(v, k, set) {
        char p[256];
        snprintf(p, sizeof p, "sizes[%zu]", k);
        if (!json_is_object(set)) {
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_EXPECTED_OBJECT_GOT, type_name(set));
            continue;
        }
        json_object_foreach(set, key, x) {
            bool known = false;
            for (size_t i = 0; i < nv; i++)
                known |= strcmp(s->size_names[i], key) == 0;
            if (!known) {
                char q[300];
                snprintf(q, sizeof q, "%s.%s", p, key);
                diag(c, SPEC_ERROR, q, HK_MSG_SPEC_SIZE_VAR_UNDEFINED);
            }
        }
        for (size_t i = 0; i < nv; i++) {
            json_t *val = json_object_get(set, s->size_names[i]);
            char q[300];
            snprintf(q, sizeof q, "%s.%s", p, s->size_names[i]);
            if (!val) {
                diag(c, SPEC_ERROR, p, HK_MSG_SPEC_SIZE_VAR_MISSING, s->size_names[i]);
                continue;
            }
            if (!json_is_integer(val) || json_integer_value(val) < 1 ||
                json_integer_value(val) > (1LL << 40)) {
                diag(c, SPEC_ERROR, q, HK_MSG_SPEC_SIZE_VALUE,
                     json_is_integer(val) ? hk_tr(HK_MSG_SPEC_ONE_OUTSIDE) : type_name(val));
                continue;
            }
            s->size_values[k * nv + i] = json_integer_value(val);
        }
    }
}

/* Grid or block: one expression or an array of 1-3. */
static void parse_dims(pctx *c, spec *s, json_t *v, const char *path, expr **dims, bool allow_launch)
{
    size_t n = json_is_array(v) ? json_array_size(v) : 1;
    if (json_is_array(v) && (n < 1 || n > 3)) {
        diag(c, SPEC_ERROR, path, HK_MSG_SPEC_DIMS, n);
        return;
    }
    for (size_t d = 0; d < n; d++) {
        json_t *x = json_is_array(v) ? json_array_get(v, d) : v;
        char p[256];
        if (json_is_array(v))
            snprintf(p, sizeof p, "%s[%zu]", path, d);
        else
            snprintf(p, sizeof p, "%s", path);
        dims[d] = get_expr(c, s, x, p, allow_launch);
    }
    for (size_t d = n; d < 3; d++)
        if (expr_from_number(0, 1, false, &dims[d]) != HK_OK)
            c->rc = HK_ENOMEM;
}

static void parse_launch(pctx *c, spec *s, json_t *root)
{
    static const char *const keys[] = { "grid", "block", "shmem", NULL };
    json_t *l = json_object_get(root, "launch");
    if (!l) {
        diag(c, SPEC_ERROR, "launch", HK_MSG_SPEC_LAUNCH_MISSING);
        return;
    }
    if (!json_is_object(l)) {
        diag(c, SPEC_ERROR, "launch", HK_MSG_SPEC_EXPECTED_OBJECT_GOT, type_name(l));
        return;
    }
    check_keys(c, l, "launch", keys);
    json_t *g = json_object_get(l, "grid"), *b = json_object_get(l, "block");
    if (!g)
        diag(c, SPEC_ERROR, "launch.grid", HK_MSG_SPEC_MISSING);
    if (!b)
        diag(c, SPEC_ERROR, "launch.block", HK_MSG_SPEC_MISSING);
    if (!g || !b || s->n_sizes == 0)
        return;
    parse_dims(c, s, b, "launch.block", s->block, false);
    if (!s->block[0] || !s->block[1] || !s->block[2])
        return;
    bool block_ok = true;
    static const long long block_max[3] = { 1024, 1024, 64 };
    for (int d = 0; d < 3; d++) {
        char p[64] = "launch.block";
        if (json_is_array(b))
            snprintf(p, sizeof p, "launch.block[%d]", d);
        block_ok &= eval_all(c, s, s->block[d], p, 1, block_max[d], false, hk_tr(HK_MSG_SPEC_WHAT_BLOCK_DIM));
    }
    for (size_t k = 0; block_ok && k < s->n_sizes; k++) {
        long long t = 1;
        for (int d = 0; d < 3; d++) {
            expr_value v;
            spec_eval(s, s->block[d], k, VALIDATION_SM_COUNT, &v, NULL, 0);
            t *= v.i;
        }
        if (t > 1024) {
            diag(c, SPEC_ERROR, "launch.block", HK_MSG_SPEC_BLOCK_THREADS, t, k);
            block_ok = false;
        }
    }
    if (!block_ok)
        return;
    parse_dims(c, s, g, "launch.grid", s->grid, true);
    static const long long grid_max[3] = { 2147483647LL, 65535, 65535 };
    for (int d = 0; d < 3; d++) {
        char p[64] = "launch.grid";
        if (json_is_array(g))
            snprintf(p, sizeof p, "launch.grid[%d]", d);
        if (s->grid[d])
            eval_all(c, s, s->grid[d], p, 1, grid_max[d], false, hk_tr(HK_MSG_SPEC_WHAT_GRID_DIM));
    }
    json_t *sh = json_object_get(l, "shmem");
    if (sh && (s->shmem = get_expr(c, s, sh, "launch.shmem", true)) != NULL)
        eval_all(c, s, s->shmem, "launch.shmem", 0, 227 * 1024, false, hk_tr(HK_MSG_SPEC_WHAT_SHMEM));

    /* The rule "one size is not a multiple of the block size": look at the size
     * variables each grid dimension divides by its block dimension. */
    bool any_var = false, ragged = false;
    for (size_t k = 0; k < s->n_sizes && s->grid[0] && s->grid[1] && s->grid[2]; k++) {
        for (int d = 0; d < 3; d++) {
            expr_value bv;
            spec_eval(s, s->block[d], k, VALIDATION_SM_COUNT, &bv, NULL, 0);
            for (size_t i = 0; i < s->n_size_names; i++) {
                if (bv.i <= 1 || !expr_uses(s->grid[d], s->size_names[i]))
                    continue;
                any_var = true;
                if (s->size_values[k * s->n_size_names + i] % bv.i != 0)
                    ragged = true;
            }
        }
    }
    if (any_var && !ragged && !s->exact_sizes)
        diag(c, SPEC_WARNING, "sizes", HK_MSG_SPEC_NO_RAGGED);
}

static void parse_tolerance(pctx *c, json_t *v, const char *path, spec_tolerance *t)
{
    static const char *const keys[] = { "rtol", "atol", "l2", NULL };
    if (!v)
        return;
    if (!json_is_object(v)) {
        diag(c, SPEC_ERROR, path, HK_MSG_SPEC_TOL_NOT_OBJECT,
             type_name(v));
        return;
    }
    check_keys(c, v, path, keys);
    double *dst[3] = { &t->rtol, &t->atol, &t->l2 };
    for (int i = 0; i < 3; i++) {
        json_t *x = json_object_get(v, keys[i]);
        if (!x)
            continue;
        char p[256];
        snprintf(p, sizeof p, "%s.%s", path, keys[i]);
        if (!json_is_number(x) || json_number_value(x) < 0 || json_number_value(x) > 1e6)
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_EXPECTED_NONNEG);
        else
            *dst[i] = json_number_value(x);
    }
}

static void parse_distributions(pctx *c, spec *s, json_t *root)
{
    static const char *const defaults[] = { "uniform(-1,1)", "normal(0,1)", "uniform(0,100)" };
    json_t *v = json_object_get(root, "distributions");
    size_t n = HK_ARRAY_LEN(defaults);
    if (v) {
        if (!json_is_array(v)) {
            diag(c, SPEC_ERROR, "distributions", HK_MSG_SPEC_DISTS_NOT_ARRAY, type_name(v));
            return;
        }
        n = json_array_size(v);
        if (n < SPEC_MIN_DISTS || n > SPEC_MAX_DISTS) {
            diag(c, SPEC_ERROR, "distributions", HK_MSG_SPEC_DISTS_COUNT,
                 SPEC_MIN_DISTS, SPEC_MAX_DISTS, n);
            return;
        }
    }
    s->dists = hk_calloc(n, sizeof *s->dists);
    s->dist_texts = hk_calloc(n, sizeof *s->dist_texts);
    if (!s->dists || !s->dist_texts) {
        c->rc = HK_ENOMEM;
        return;
    }
    s->n_dists = n;
    for (size_t i = 0; i < n; i++) {
        char p[64], err[200];
        snprintf(p, sizeof p, "distributions[%zu]", i);
        json_t *x = v ? json_array_get(v, i) : NULL;
        const char *t = v ? json_string_value(x) : defaults[i];
        if (!t) {
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_DIST_NOT_STRING, type_name(x));
            continue;
        }
        if (spec_dist_parse(t, &s->dists[i], err, sizeof err) != HK_OK)
            diag_text(c, SPEC_ERROR, p, err);
        else if (s->dists[i].kind == HK_DIST_ZEROS)
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_ZEROS_DISTS);
        if (!(s->dist_texts[i] = hk_strdup(t)))
            c->rc = HK_ENOMEM;
    }
}

/* A distribution whose bounds are expressions of the size variables: "int(0, n - 1)" for an
 * index buffer into n elements at every size set, where a number would hold for one size
 * only. Returns 0 when every bound is a number (the caller parses text as usual), 1 with
 * a->dist_lo / dist_hi set (NULL for a numeric bound) and *out the first size set's
 * distribution, -1 after a diagnostic. Each size set's distribution passes the same checks
 * as a written one. */
static int parse_dist_bounds(pctx *c, spec *s, spec_arg *a, const char *text, const char *path,
                             hk_dist *out)
{
    const char *open = strchr(text, '('), *close = strrchr(text, ')');
    if (!open || !close || close < open)
        return 0;
    char name[32];
    size_t nlen = (size_t)(open - text);
    while (nlen && isspace((unsigned char)text[nlen - 1]))
        nlen--;
    if (nlen == 0 || nlen >= sizeof name)
        return 0;
    memcpy(name, text, nlen);
    name[nlen] = '\0';
    /* the bounds: split at the commas outside parentheses (min(a, b) is one bound) */
    char bound[2][EXPR_MAX_TEXT];
    size_t nb = 0, len = 0;
    int depth = 0;
    for (const char *q = open + 1; q < close; q++) {
        if (*q == ',' && depth == 0) {
            if (nb == 1)
                return 0; /* three bounds: spec_dist_parse says what is wrong */
            bound[nb++][len] = '\0';
            len = 0;
            continue;
        }
        depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
        if (len + 1 >= sizeof bound[0])
            return 0;
        bound[nb][len++] = *q;
    }
    bound[nb++][len] = '\0';
    if (nb == 1 && strspn(bound[0], " \t\r\n") == strlen(bound[0]))
        return 0; /* "zeros()": no bounds at all */
    expr *e[2] = { NULL, NULL };
    double num_bound[2] = { 0, 0 };
    bool any = false, failed = false;
    for (size_t i = 0; i < nb && !failed; i++) {
        char *end;
        const char *b = bound[i];
        while (isspace((unsigned char)*b))
            b++;
        errno = 0;
        num_bound[i] = strtod(b, &end);
        while (isspace((unsigned char)*end))
            end++;
        if (end != b && *end == '\0' && errno == 0)
            continue; /* a number */
        json_t *js = json_string(b);
        if (!js)
            c->rc = HK_ENOMEM;
        else if ((e[i] = get_expr(c, s, js, path, false)) != NULL)
            any = true;
        json_decref(js);
        failed = !e[i];
    }
    if (failed || !any) {
        expr_free(e[0]);
        expr_free(e[1]);
        return failed ? -1 : 0;
    }
    for (size_t k = 0; k < s->n_sizes; k++) {
        double v[2];
        for (size_t i = 0; i < nb; i++) {
            if (!e[i]) {
                v[i] = num_bound[i];
                continue;
            }
            expr_value ev;
            char err[200];
            if (spec_eval(s, e[i], k, VALIDATION_SM_COUNT, &ev, err, sizeof err) != HK_OK) {
                diag(c, SPEC_ERROR, path, HK_MSG_SPEC_EVAL_FAILED, expr_text(e[i]), k, err);
                expr_free(e[0]);
                expr_free(e[1]);
                return -1;
            }
            v[i] = expr_value_double(ev);
        }
        char num[128], err[200];
        if (nb == 2)
            snprintf(num, sizeof num, "%s(%.17g,%.17g)", name, v[0], v[1]);
        else
            snprintf(num, sizeof num, "%s(%.17g)", name, v[0]);
        hk_dist d;
        if (spec_dist_parse(num, &d, err, sizeof err) != HK_OK) {
            diag(c, SPEC_ERROR, path, HK_MSG_SPEC_DIST_AT_SIZE, k, num, err);
            expr_free(e[0]);
            expr_free(e[1]);
            return -1;
        }
        if (k == 0)
            *out = d;
    }
    a->dist_lo = e[0];
    a->dist_hi = e[1];
    return 1;
}

static void parse_arg_dist(pctx *c, spec *s, spec_arg *a, json_t *v, const char *path)
{
    a->dists = hk_calloc(s->n_dists ? s->n_dists : 1, sizeof *a->dists);
    if (!a->dists) {
        c->rc = HK_ENOMEM;
        return;
    }
    a->n_dists = s->n_dists;
    char err[200];
    if (!v) {
        for (size_t i = 0; i < s->n_dists; i++)
            a->dists[i] = hk_dtype_is_float(a->dtype) ? s->dists[i] : default_int_dist(a->dtype);
        return;
    }
    if (json_is_string(v)) {
        hk_dist d;
        int bounds = parse_dist_bounds(c, s, a, json_string_value(v), path, &d);
        if (bounds < 0)
            return;
        if (bounds == 0 && spec_dist_parse(json_string_value(v), &d, err, sizeof err) != HK_OK) {
            diag_text(c, SPEC_ERROR, path, err);
            return;
        }
        if (d.kind == HK_DIST_ZEROS && a->kind != HK_ARG_INOUT) {
            diag(c, SPEC_ERROR, path, HK_MSG_SPEC_ZEROS_INPUT);
            return;
        }
        if (!hk_dtype_is_float(a->dtype) && (d.kind == HK_DIST_UNIFORM || d.kind == HK_DIST_NORMAL) &&
            fabs(d.b - d.a) < 4)
            diag(c, SPEC_WARNING, path, HK_MSG_SPEC_NARROW_INT_DIST, hk_dtype_name(a->dtype));
        for (size_t i = 0; i < s->n_dists; i++)
            a->dists[i] = d;
        return;
    }
    if (!json_is_array(v) || json_array_size(v) != s->n_dists) {
        diag(c, SPEC_ERROR, path, HK_MSG_SPEC_ARG_DIST_SHAPE, s->n_dists);
        return;
    }
    for (size_t i = 0; i < s->n_dists; i++) {
        char p[300];
        snprintf(p, sizeof p, "%s[%zu]", path, i);
        const char *t = json_string_value(json_array_get(v, i));
        if (!t || spec_dist_parse(t, &a->dists[i], err, sizeof err) != HK_OK)
            diag_text(c, SPEC_ERROR, p, t ? err : hk_tr(HK_MSG_SPEC_EXPECTED_DIST_STRING));
        else if (a->dists[i].kind == HK_DIST_ZEROS && a->kind != HK_ARG_INOUT)
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_ZEROS_ONLY_INOUT);
    }
}

static void parse_args(pctx *c, spec *s, json_t *root, const spec_tolerance *top_tol,
                       const bool top_tol_set[3])
{
    static const char *const keys[] = { "name", "kind", "dtype", "count", "value", "dist", "tolerance", NULL };
    json_t *v = json_object_get(root, "args");
    if (!v) {
        diag(c, SPEC_ERROR, "args", HK_MSG_SPEC_ARGS_MISSING);
        return;
    }
    if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > HK_MAX_ARGS) {
        diag(c, SPEC_ERROR, "args", HK_MSG_SPEC_ARGS_SHAPE,
             HK_MAX_ARGS);
        return;
    }
    size_t n = json_array_size(v);
    s->args = hk_calloc(n, sizeof *s->args);
    if (!s->args) {
        c->rc = HK_ENOMEM;
        return;
    }
    s->n_args = n;
    size_t n_out = 0;
    for (size_t i = 0; i < n && c->rc == HK_OK; i++) {
        spec_arg *a = &s->args[i];
        json_t *o = json_array_get(v, i);
        char p[64], q[128];
        snprintf(p, sizeof p, "args[%zu]", i);
        if (!json_is_object(o)) {
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_ARG_NOT_OBJECT, type_name(o));
            continue;
        }
        check_keys(c, o, p, keys);
        const char *name = get_string(c, o, p, "name", false);
        a->name = name ? hk_strdup(name) : hk_asprintf("arg%zu", i);
        if (!a->name)
            c->rc = HK_ENOMEM;
        const char *kind = get_string(c, o, p, "kind", true);
        a->kind = HK_ARG_SCALAR;
        bool kind_ok = true;
        if (kind) {
            if (!strcmp(kind, "scalar")) a->kind = HK_ARG_SCALAR;
            else if (!strcmp(kind, "input")) a->kind = HK_ARG_INPUT;
            else if (!strcmp(kind, "output")) a->kind = HK_ARG_OUTPUT;
            else if (!strcmp(kind, "inout")) a->kind = HK_ARG_INOUT;
            else {
                snprintf(q, sizeof q, "%s.kind", p);
                diag(c, SPEC_ERROR, q, HK_MSG_SPEC_ARG_KIND, kind);
                kind_ok = false;
            }
        } else {
            kind_ok = false;
        }
        const char *dt = get_string(c, o, p, "dtype", true);
        a->dtype = HK_DT_F32;
        if (dt && spec_dtype_parse(dt, &a->dtype) != HK_OK) {
            snprintf(q, sizeof q, "%s.dtype", p);
            diag(c, SPEC_ERROR, q, HK_MSG_SPEC_UNKNOWN_DTYPE, dt);
        }
        if (!kind_ok)
            continue;
        json_t *count = json_object_get(o, "count"), *value = json_object_get(o, "value");
        json_t *dist = json_object_get(o, "dist"), *tol = json_object_get(o, "tolerance");
        if (a->kind == HK_ARG_SCALAR) {
            snprintf(q, sizeof q, "%s.value", p);
            if (!value) {
                diag(c, SPEC_ERROR, q, HK_MSG_SPEC_SCALAR_VALUE_MISSING);
            } else if ((a->value = get_expr(c, s, value, q, false)) != NULL) {
                if (!hk_dtype_is_float(a->dtype) && expr_is_float(a->value))
                    diag(c, SPEC_ERROR, q, HK_MSG_SPEC_SCALAR_FLOAT,
                         expr_text(a->value), hk_dtype_name(a->dtype));
                else
                    eval_all(c, s, a->value, q, LLONG_MIN, LLONG_MAX, true, hk_tr(HK_MSG_SPEC_WHAT_VALUE));
            }
            if (count) {
                snprintf(q, sizeof q, "%s.count", p);
                diag(c, SPEC_ERROR, q, HK_MSG_SPEC_SCALAR_COUNT);
            }
            if (dist) {
                snprintf(q, sizeof q, "%s.dist", p);
                diag(c, SPEC_ERROR, q, HK_MSG_SPEC_SCALAR_DIST);
            }
            if (tol) {
                snprintf(q, sizeof q, "%s.tolerance", p);
                diag(c, SPEC_ERROR, q, HK_MSG_SPEC_TOL_ONLY_OUTPUTS);
            }
            continue;
        }
        snprintf(q, sizeof q, "%s.count", p);
        if (!count) {
            diag(c, SPEC_ERROR, q, HK_MSG_SPEC_BUFFER_COUNT_MISSING);
        } else if ((a->count = get_expr(c, s, count, q, false)) != NULL &&
                   eval_all(c, s, a->count, q, 1, MAX_BUFFER_BYTES, false, hk_tr(HK_MSG_SPEC_WHAT_COUNT))) {
            for (size_t k = 0; k < s->n_sizes; k++) {
                expr_value ev;
                spec_eval(s, a->count, k, VALIDATION_SM_COUNT, &ev, NULL, 0);
                if (ev.i > MAX_BUFFER_BYTES / (long long)hk_dtype_size(a->dtype)) {
                    diag(c, SPEC_ERROR, q, HK_MSG_SPEC_BUFFER_TOO_BIG,
                         expr_text(a->count), k, ev.i);
                    break;
                }
            }
        }
        if (value) {
            snprintf(q, sizeof q, "%s.value", p);
            diag(c, SPEC_ERROR, q, HK_MSG_SPEC_BUFFER_VALUE);
        }
        snprintf(q, sizeof q, "%s.dist", p);
        if (a->kind == HK_ARG_OUTPUT) {
            if (dist)
                diag(c, SPEC_ERROR, q, HK_MSG_SPEC_OUTPUT_DIST);
        } else {
            parse_arg_dist(c, s, a, dist, q);
        }
        if (a->kind == HK_ARG_OUTPUT || a->kind == HK_ARG_INOUT) {
            n_out++;
            a->tol = spec_default_tolerance(a->dtype);
            if (top_tol_set[0]) a->tol.rtol = top_tol->rtol;
            if (top_tol_set[1]) a->tol.atol = top_tol->atol;
            if (top_tol_set[2]) a->tol.l2 = top_tol->l2;
            snprintf(q, sizeof q, "%s.tolerance", p);
            parse_tolerance(c, tol, q, &a->tol);
        } else if (tol) {
            snprintf(q, sizeof q, "%s.tolerance", p);
            diag(c, SPEC_ERROR, q, HK_MSG_SPEC_TOL_ONLY_OUTPUTS);
        }
    }
    if (n_out == 0)
        diag(c, SPEC_ERROR, "args", HK_MSG_SPEC_NO_OUTPUT);
}

/* A __constant__ variable's name as declared: an identifier, or one qualified by its
 * namespaces (ns::table). */
static bool is_symbol_name(const char *s)
{
    if (!s || !*s || strlen(s) > 200)
        return false;
    for (const char *p = s;;) {
        size_t n = 0;
        if (!(isalpha((unsigned char)p[0]) || p[0] == '_'))
            return false;
        while (isalnum((unsigned char)p[n]) || p[n] == '_')
            n++;
        p += n;
        if (!*p)
            return true;
        if (p[0] != ':' || p[1] != ':')
            return false;
        p += 2;
    }
}

/* "constants": the __constant__ arrays the kernel reads, which the program fills (with
 * cudaMemcpyToSymbol); the harness fills them like inputs. Each holds at most the device's
 * constant bank, and so do all of them together. */
static void parse_constants(pctx *c, spec *s, json_t *root)
{
    static const char *const keys[] = { "name", "dtype", "count", "dist", NULL };
    json_t *v = json_object_get(root, "constants");
    if (!v)
        return;
    if (!json_is_array(v) || json_array_size(v) > SPEC_MAX_CONSTANTS) {
        diag(c, SPEC_ERROR, "constants", HK_MSG_SPEC_CONSTS_SHAPE, SPEC_MAX_CONSTANTS);
        return;
    }
    size_t n = json_array_size(v);
    if (n == 0)
        return;
    if (!(s->consts = hk_calloc(n, sizeof *s->consts))) {
        c->rc = HK_ENOMEM;
        return;
    }
    s->n_consts = n;
    long long total[SPEC_MAX_SIZES] = { 0 };
    for (size_t i = 0; i < n && c->rc == HK_OK; i++) {
        spec_arg *a = &s->consts[i];
        json_t *o = json_array_get(v, i);
        char p[64], q[128];
        snprintf(p, sizeof p, "constants[%zu]", i);
        a->kind = HK_ARG_INPUT;
        a->dtype = HK_DT_F32;
        if (!json_is_object(o)) {
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_CONST_NOT_OBJECT, type_name(o));
            continue;
        }
        check_keys(c, o, p, keys);
        const char *name = get_string(c, o, p, "name", true);
        snprintf(q, sizeof q, "%s.name", p);
        if (name && !is_symbol_name(name))
            diag(c, SPEC_ERROR, q, HK_MSG_SPEC_CONST_NAME, name);
        for (size_t j = 0; name && j < i; j++)
            if (s->consts[j].name && !strcmp(s->consts[j].name, name))
                diag(c, SPEC_ERROR, q, HK_MSG_SPEC_CONST_DUP, name, j);
        a->name = hk_strdup(name ? name : "?");
        if (!a->name)
            c->rc = HK_ENOMEM;
        const char *dt = get_string(c, o, p, "dtype", true);
        bool dtype_ok = dt && spec_dtype_parse(dt, &a->dtype) == HK_OK;
        if (dt && !dtype_ok) {
            snprintf(q, sizeof q, "%s.dtype", p);
            diag(c, SPEC_ERROR, q, HK_MSG_SPEC_UNKNOWN_DTYPE, dt);
        }
        json_t *count = json_object_get(o, "count");
        snprintf(q, sizeof q, "%s.count", p);
        long long most = SPEC_CONSTANT_BYTES / (long long)hk_dtype_size(a->dtype);
        if (!count)
            diag(c, SPEC_ERROR, q, HK_MSG_SPEC_CONST_COUNT_MISSING);
        else if ((a->count = get_expr(c, s, count, q, false)) != NULL && dtype_ok &&
                 eval_all(c, s, a->count, q, 1, most, false,
                          hk_tr(HK_MSG_SPEC_WHAT_CONST_COUNT)))
            for (size_t k = 0; k < s->n_sizes; k++) {
                expr_value ev;
                spec_eval(s, a->count, k, VALIDATION_SM_COUNT, &ev, NULL, 0);
                total[k] += ev.i * (long long)hk_dtype_size(a->dtype);
            }
        snprintf(q, sizeof q, "%s.dist", p);
        parse_arg_dist(c, s, a, json_object_get(o, "dist"), q);
    }
    for (size_t k = 0; k < s->n_sizes && c->rc == HK_OK; k++)
        if (total[k] > SPEC_CONSTANT_BYTES) {
            diag(c, SPEC_ERROR, "constants", HK_MSG_SPEC_CONSTS_TOO_BIG, total[k], k, SPEC_CONSTANT_BYTES);
            break;
        }
}

static void parse_seeds(pctx *c, spec *s, json_t *root)
{
    json_t *v = json_object_get(root, "seeds");
    size_t n = v ? json_array_size(v) : SPEC_MIN_SEEDS;
    if (v && (!json_is_array(v) || n < SPEC_MIN_SEEDS || n > SPEC_MAX_SEEDS)) {
        diag(c, SPEC_ERROR, "seeds", HK_MSG_SPEC_SEEDS_SHAPE, SPEC_MIN_SEEDS,
             SPEC_MAX_SEEDS, json_is_array(v) ? hk_tr(HK_MSG_SPEC_TOO_FEW_SEEDS) : "");
        return;
    }
    s->seeds = hk_calloc(n, sizeof *s->seeds);
    if (!s->seeds) {
        c->rc = HK_ENOMEM;
        return;
    }
    s->n_seeds = n;
    for (size_t i = 0; i < n; i++) {
        if (!v) {
            s->seeds[i] = (long long)i + 1;
            continue;
        }
        json_t *x = json_array_get(v, i);
        char p[64];
        snprintf(p, sizeof p, "seeds[%zu]", i);
        if (!json_is_integer(x) || json_integer_value(x) < 0) {
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_EXPECTED_NONNEG_INT);
            continue;
        }
        s->seeds[i] = json_integer_value(x);
        for (size_t j = 0; j < i; j++)
            if (s->seeds[j] == s->seeds[i])
                diag(c, SPEC_ERROR, p, HK_MSG_SPEC_SEED_REPEATS, s->seeds[i], j);
    }
}

static char *dir_of(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!slash)
        return hk_strdup(".");
    if (slash == path)
        return hk_strdup("/");
    return hk_strndup(path, (size_t)(slash - path));
}

static void parse_common(pctx *c, spec *s, json_t *root, const char *spec_path)
{
    const char *name = get_string(c, root, "", "name", false);
    s->name = dup_or_fail(c, name);
    const char *kernel = get_string(c, root, "", "kernel", true);
    if (kernel && !is_kernel_name(kernel))
        diag(c, SPEC_ERROR, "kernel", HK_MSG_SPEC_NOT_KERNEL_NAME, kernel);
    s->kernel = dup_or_fail(c, kernel);
    const char *src = get_string(c, root, "", "source", true);
    s->source = dup_or_fail(c, src);
    if (src) {
        s->source_path = src[0] == '/' ? hk_strdup(src) : hk_asprintf("%s/%s", s->dir, src);
        if (!s->source_path)
            c->rc = HK_ENOMEM;
        else if (spec_path && access(s->source_path, R_OK) != 0)
            diag(c, SPEC_ERROR, "source", HK_MSG_SPEC_CANNOT_READ_ERRNO, s->source_path, strerror(errno));
    }
    json_t *d = json_object_get(root, "description");
    if (d && !json_is_string(d))
        diag(c, SPEC_ERROR, "description", HK_MSG_SPEC_EXPECTED_STRING);
}

static void parse_command(pctx *c, spec *s, json_t *root, const char *spec_path)
{
    static const char *const keys[] = { "form", "name", "description", "kernel", "source", "build",
                                        "run", "workdir", "pass_regex", "fail_regex", "timeout_s", NULL };
    check_keys(c, root, "", keys);
    parse_common(c, s, root, spec_path);
    s->build = dup_or_fail(c, get_string(c, root, "", "build", false));
    s->run = dup_or_fail(c, get_string(c, root, "", "run", true));
    const char *wd = get_string(c, root, "", "workdir", false);
    if (wd)
        s->workdir = wd[0] == '/' ? hk_strdup(wd) : hk_asprintf("%s/%s", s->dir, wd);
    else
        s->workdir = hk_strdup(s->dir);
    if (!s->workdir)
        c->rc = HK_ENOMEM;
    else if (spec_path && access(s->workdir, X_OK) != 0)
        diag(c, SPEC_ERROR, wd ? "workdir" : "", HK_MSG_SPEC_WORKDIR, s->workdir,
             strerror(errno));
    const char *rx_keys[2] = { "pass_regex", "fail_regex" };
    char **rx_dst[2] = { &s->pass_regex, &s->fail_regex };
    for (int i = 0; i < 2; i++) {
        const char *rx = get_string(c, root, "", rx_keys[i], false);
        if (!rx)
            continue;
        regex_t re;
        int rc = regcomp(&re, rx, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char err[200];
            regerror(rc, &re, err, sizeof err);
            diag(c, SPEC_ERROR, rx_keys[i], HK_MSG_SPEC_BAD_REGEX, rx, err);
            continue;
        }
        regfree(&re);
        *rx_dst[i] = dup_or_fail(c, rx);
    }
    s->timeout_s = 600;
    json_t *t = json_object_get(root, "timeout_s");
    if (t) {
        if (!json_is_number(t) || json_number_value(t) <= 0 || json_number_value(t) > 86400)
            diag(c, SPEC_ERROR, "timeout_s", HK_MSG_SPEC_TIMEOUT);
        else
            s->timeout_s = json_number_value(t);
    }
}

/* A relative -I names a directory next to the spec, wherever the engine compiles from;
 * the spec's and the source's directories are searched too (a candidate is compiled
 * from a copy, where the kernel's own "reference.h" is not), then the spec's
 * "include_dirs" (relative to the spec's folder; inference takes them from the project's
 * compile_commands.json). Unlike compile_flags these name folders only, so an untrusted
 * folder's spec may carry them (the editor's compile.includePaths rule). */
static void anchor_includes(pctx *c, spec *s, json_t *root)
{
    for (size_t i = 0; i < s->n_compile_flags && c->rc == HK_OK; i++) {
        char *f = s->compile_flags[i];
        if (!f || strncmp(f, "-I", 2) != 0 || !f[2] || f[2] == '/')
            continue;
        char *abs = hk_asprintf("-I%s/%s", s->dir, f + 2);
        if (!abs) {
            c->rc = HK_ENOMEM;
            return;
        }
        hk_free(f);
        s->compile_flags[i] = abs;
    }
    for (size_t i = 0; i + 1 < s->n_compile_flags && c->rc == HK_OK; i++) {
        char *f = s->compile_flags[i];
        if (!f || strcmp(f, "-I") != 0 || !s->compile_flags[i + 1] || s->compile_flags[i + 1][0] == '/')
            continue;
        char *abs = hk_asprintf("%s/%s", s->dir, s->compile_flags[i + 1]);
        if (!abs) {
            c->rc = HK_ENOMEM;
            return;
        }
        hk_free(s->compile_flags[i + 1]);
        s->compile_flags[i + 1] = abs;
    }
    const char *dirs[2] = { s->dir, NULL };
    char *src_dir = s->source_path ? dir_of(s->source_path) : NULL;
    if (src_dir && strcmp(src_dir, s->dir) != 0)
        dirs[1] = src_dir;
    json_t *extra = json_object_get(root, "include_dirs");
    size_t n_extra = json_array_size(extra);
    if (extra && !json_is_array(extra)) {
        diag(c, SPEC_ERROR, "include_dirs", HK_MSG_SPEC_INCLUDE_DIRS_SHAPE, type_name(extra));
    } else if (n_extra > 64) {
        diag(c, SPEC_ERROR, "include_dirs", HK_MSG_SPEC_MORE_THAN_64);
        n_extra = 0;
    }
    if (!(s->include_dirs = hk_calloc(2 + n_extra, sizeof *s->include_dirs)))
        c->rc = HK_ENOMEM;
    for (size_t i = 0; i < 2 && dirs[i] && c->rc == HK_OK; i++) {
        if (!(s->include_dirs[s->n_include_dirs] = hk_strdup(dirs[i])))
            c->rc = HK_ENOMEM;
        else
            s->n_include_dirs++;
    }
    hk_free(src_dir);
    for (size_t i = 0; i < n_extra && c->rc == HK_OK; i++) {
        json_t *x = json_array_get(extra, i);
        char p[64];
        snprintf(p, sizeof p, "include_dirs[%zu]", i);
        const char *d = json_string_value(x);
        if (!d || !*d) {
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_INCLUDE_DIR_NOT_STRING, type_name(x));
            continue;
        }
        char *abs = d[0] == '/' ? hk_strdup(d) : hk_asprintf("%s/%s", s->dir, d);
        struct stat st;
        if (!abs) {
            c->rc = HK_ENOMEM;
        } else if (stat(abs, &st) != 0 || !S_ISDIR(st.st_mode)) {
            diag(c, SPEC_ERROR, p, HK_MSG_SPEC_NOT_A_FOLDER, abs);
            hk_free(abs);
        } else {
            s->include_dirs[s->n_include_dirs++] = abs;
        }
    }
}

static void parse_harness(pctx *c, spec *s, json_t *root, const char *spec_path)
{
    static const char *const keys[] = { "form", "name", "description", "kernel", "source",
                                        "template_args", "compile_flags", "sizes", "args", "launch",
                                        "tolerance", "flops", "bytes", "seeds", "distributions",
                                        "inferred", "exact_sizes", "constants", "include_dirs", NULL };
    check_keys(c, root, "", keys);
    parse_common(c, s, root, spec_path);
    parse_strv(c, json_object_get(root, "inferred"), "inferred", &s->inferred, &s->n_inferred,
               false);
    json_t *ex = json_object_get(root, "exact_sizes");
    if (ex && !json_is_boolean(ex))
        diag(c, SPEC_ERROR, "exact_sizes", HK_MSG_SPEC_EXPECTED_BOOL_GOT, type_name(ex));
    s->exact_sizes = json_is_true(ex);
    parse_strv(c, json_object_get(root, "template_args"), "template_args", &s->template_args,
               &s->n_template_args, false);
    parse_strv(c, json_object_get(root, "compile_flags"), "compile_flags", &s->compile_flags,
               &s->n_compile_flags, true);
    anchor_includes(c, s, root);
    parse_sizes(c, s, root);
    parse_seeds(c, s, root);
    parse_distributions(c, s, root);
    if (s->n_sizes == 0 || c->rc != HK_OK)
        return; /* everything below is checked against the sizes */
    parse_launch(c, s, root);
    if (c->rc != HK_OK)
        return;
    spec_tolerance top = { 0, 0, 0 };
    bool top_set[3] = { false, false, false };
    json_t *tol = json_object_get(root, "tolerance");
    if (tol) {
        top = (spec_tolerance){ -1, -1, -1 };
        parse_tolerance(c, tol, "tolerance", &top);
        top_set[0] = top.rtol >= 0;
        top_set[1] = top.atol >= 0;
        top_set[2] = top.l2 >= 0;
    }
    parse_args(c, s, root, &top, top_set);
    if (c->rc != HK_OK)
        return;
    parse_constants(c, s, root);
    if (c->rc != HK_OK)
        return;
    const char *fk[2] = { "flops", "bytes" };
    expr **fd[2] = { &s->flops, &s->bytes };
    for (int i = 0; i < 2; i++) {
        json_t *x = json_object_get(root, fk[i]);
        if (x && (*fd[i] = get_expr(c, s, x, fk[i], false)) != NULL)
            eval_all(c, s, *fd[i], fk[i], 0, LLONG_MAX, true, fk[i]);
    }
}

int spec_parse(const char *text, size_t len, const char *spec_path, spec **out, spec_diags *diags)
{
    *out = NULL;
    pctx c = { .text = text, .len = len, .d = diags, .rc = HK_OK };
    if (len > SPEC_MAX_BYTES) {
        c.text = NULL;
        diag(&c, SPEC_ERROR, "", HK_MSG_SPEC_TOO_LARGE, SPEC_MAX_BYTES);
        return HK_ETOOBIG;
    }
    size_t errors_before = diags->n_errors, first_diag = diags->n;
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    spec *s = NULL;
    if (!root) {
        diag(&c, SPEC_ERROR, "", HK_MSG_SPEC_BAD_JSON, jerr.text, jerr.column);
        if (diags->n && diags->items[diags->n - 1].path[0] == '\0')
            diags->items[diags->n - 1].line = jerr.line > 0 ? jerr.line : 1;
        return c.rc == HK_ENOMEM ? HK_ENOMEM : HK_EPARSE;
    }
    if (!json_is_object(root)) {
        diag(&c, SPEC_ERROR, "", HK_MSG_SPEC_NOT_OBJECT);
        goto out;
    }
    s = hk_calloc(1, sizeof *s);
    if (!s || !(s->dir = dir_of(spec_path))) {
        c.rc = HK_ENOMEM;
        goto out;
    }
    /* Relative to the working directory of this process, which a sandboxed build or
     * run does not share: anchor it now. */
    if (spec_path && s->dir[0] != '/') {
        char *abs = realpath(s->dir, NULL);
        if (abs) {
            char *own = hk_strdup(abs);
            free(abs);
            if (!own) {
                c.rc = HK_ENOMEM;
                goto out;
            }
            hk_free(s->dir);
            s->dir = own;
        }
    }
    const char *form = get_string(&c, root, "", "form", false);
    if (form && strcmp(form, "harness") && strcmp(form, "command")) {
        diag(&c, SPEC_ERROR, "form", HK_MSG_SPEC_FORM, form);
        goto out;
    }
    bool command = form ? strcmp(form, "command") == 0
                        : (json_object_get(root, "run") || json_object_get(root, "build"));
    s->form = command ? SPEC_FORM_COMMAND : SPEC_FORM_HARNESS;
    if (command)
        parse_command(&c, s, root, spec_path);
    else
        parse_harness(&c, s, root, spec_path);
out:
    json_decref(root);
    /* Report in file order (stable: the parser's order within a line). */
    for (size_t i = first_diag + 1; i < diags->n; i++) {
        spec_diag x = diags->items[i];
        size_t j = i;
        for (; j > first_diag && diags->items[j - 1].line > x.line; j--)
            diags->items[j] = diags->items[j - 1];
        diags->items[j] = x;
    }
    if (c.rc == HK_ENOMEM) {
        spec_free(s);
        return HK_ENOMEM;
    }
    if (diags->n_errors > errors_before || !s) {
        spec_free(s);
        return HK_EPARSE;
    }
    *out = s;
    return HK_OK;
}

int spec_load(const char *path, spec **out, spec_diags *diags)
{
    *out = NULL;
    pctx c = { .d = diags };
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        diag(&c, SPEC_ERROR, "", HK_MSG_SPEC_CANNOT_OPEN, path, strerror(e));
        return e == ENOENT ? HK_ENOENT : HK_EIO;
    }
    char *buf = hk_malloc(SPEC_MAX_BYTES + 1);
    if (!buf) {
        fclose(f);
        return HK_ENOMEM;
    }
    size_t n = fread(buf, 1, SPEC_MAX_BYTES + 1, f);
    bool err = ferror(f);
    fclose(f);
    int rc;
    if (err) {
        diag(&c, SPEC_ERROR, "", HK_MSG_SPEC_CANNOT_READ, path);
        rc = HK_EIO;
    } else {
        rc = spec_parse(buf, n, path, out, diags);
    }
    hk_free(buf);
    return rc;
}

int spec_floor_ms(const spec *s, size_t k, double peak_bytes_per_s, double peak_flops,
                  double *floor_ms, bool *has_floor)
{
    *floor_ms = 0;
    *has_floor = false;
    const expr *e[2] = { s->bytes, s->flops };
    double peak[2] = { peak_bytes_per_s, peak_flops };
    for (int i = 0; i < 2; i++) {
        if (!e[i] || peak[i] <= 0)
            continue;
        expr_value v;
        if (spec_eval(s, e[i], k, VALIDATION_SM_COUNT, &v, NULL, 0) != HK_OK)
            return HK_EINVAL;
        double ms = expr_value_double(v) / peak[i] * 1e3;
        if (ms > *floor_ms)
            *floor_ms = ms;
        *has_floor = true;
    }
    return HK_OK;
}

int spec_set_cupti(spec *s, const char *path)
{
    char *p = hk_strdup(path);
    if (!p)
        return HK_ENOMEM;
    hk_free(s->cupti_injection);
    s->cupti_injection = p;
    return HK_OK;
}
