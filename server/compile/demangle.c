/* Itanium C++ ABI demangling of kernel names, only as far as display needs: the
 * (qualified) name and its template arguments, never the parameter list. ptxas and
 * clang print mangled entry names; the editor wants "reduce<256>" and "reduce".
 * Output follows c++filt's spelling ("float const*", "> >", "4u") so both agree. */
#include "compile/compile.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/hk.h"

#define DM_MAX_SUBS 64
#define DM_MAX_DEPTH 32
#define DM_MAX_OUT 4096

struct dm {
    const char *p, *end;
    int depth;
    bool failed;
    bool nomem;                /* failed for lack of memory, not for odd input */
    char *subs[DM_MAX_SUBS];   /* substitution candidates, in order (S_, S0_, S1_, ...) */
    int n_subs;
    char *targs[DM_MAX_SUBS];  /* the function's own template arguments, for T_ */
    int n_targs;
    char *base;                /* last unqualified name seen at the top level */
};

static char dm_peek(const struct dm *d, size_t k)
{
    return d->p + k < d->end ? d->p[k] : '\0';
}

static bool dm_eat(struct dm *d, char c)
{
    if (dm_peek(d, 0) != c)
        return false;
    d->p++;
    return true;
}

static void dm_fail(struct dm *d) { d->failed = true; }

static void dm_oom(struct dm *d)
{
    d->nomem = true;
    d->failed = true;
}

static void dm_add_sub(struct dm *d, const char *s)
{
    if (d->failed)
        return;
    if (d->n_subs >= DM_MAX_SUBS) {
        dm_fail(d);
        return;
    }
    char *c = hk_strdup(s);
    if (!c) {
        dm_oom(d);
        return;
    }
    d->subs[d->n_subs++] = c;
}

/* Appends s to b, failing the parse on a cap or allocation error. */
static void dm_put(struct dm *d, struct hk_buf *b, const char *s)
{
    if (d->failed)
        return;
    int rc = hk_buf_appends(b, s);
    if (rc == HK_ENOMEM)
        dm_oom(d);
    else if (rc)
        dm_fail(d);
}

static const char *dm_str(const struct hk_buf *b) { return b->data ? b->data : ""; }

/* <number> ::= [n] <decimal>; returns false when no digit follows. */
static bool dm_number(struct dm *d, long *out, bool allow_neg)
{
    bool neg = allow_neg && dm_eat(d, 'n');
    if (!isdigit((unsigned char)dm_peek(d, 0)))
        return false;
    long v = 0;
    while (isdigit((unsigned char)dm_peek(d, 0))) {
        if (v > 100000000L)
            return false;
        v = v * 10 + (*d->p++ - '0');
    }
    *out = neg ? -v : v;
    return true;
}

/* <seq-id> _ for S and T: "_" is 0, "<base36>_" is n+1. */
static bool dm_seq_id(struct dm *d, int *out)
{
    if (dm_eat(d, '_')) {
        *out = 0;
        return true;
    }
    long v = 0;
    int digits = 0;
    for (;;) {
        char c = dm_peek(d, 0);
        if (isdigit((unsigned char)c))
            v = v * 36 + (c - '0');
        else if (c >= 'A' && c <= 'Z')
            v = v * 36 + (c - 'A' + 10);
        else
            break;
        d->p++;
        if (++digits > 6)
            return false;
    }
    if (!digits || !dm_eat(d, '_'))
        return false;
    *out = (int)v + 1;
    return true;
}

/* <source-name> ::= <length> <identifier>; anonymous namespaces read like c++filt. */
static void dm_source_name(struct dm *d, struct hk_buf *out)
{
    long n;
    if (!dm_number(d, &n, false) || n <= 0 || n > d->end - d->p) {
        dm_fail(d);
        return;
    }
    if (n >= 11 && strncmp(d->p, "_GLOBAL__N", 10) == 0) {
        dm_put(d, out, "(anonymous namespace)");
    } else if (!d->failed) {
        int rc = hk_buf_append(out, d->p, (size_t)n);
        if (rc == HK_ENOMEM)
            dm_oom(d);
        else if (rc)
            dm_fail(d);
    }
    d->p += n;
}

static void dm_type(struct dm *d, struct hk_buf *out);

static void dm_close_angle(struct dm *d, struct hk_buf *out)
{
    if (out->len && out->data[out->len - 1] == '>')
        dm_put(d, out, " ");
    dm_put(d, out, ">");
}

/* L <type> <value> E, after the L. */
static void dm_literal(struct dm *d, struct hk_buf *out)
{
    static const struct { char code; const char *prefix, *suffix; } kinds[] = {
        {'i', "", ""}, {'j', "", "u"}, {'l', "", "l"}, {'m', "", "ul"},
        {'x', "", "ll"}, {'y', "", "ull"}, {'s', "(short)", ""},
        {'t', "(unsigned short)", ""}, {'c', "(char)", ""}, {'a', "(signed char)", ""},
        {'h', "(unsigned char)", ""},
    };
    char code = dm_peek(d, 0);
    if (code == 'b') {
        d->p++;
        long v;
        if (!dm_number(d, &v, false) || v > 1 || !dm_eat(d, 'E')) {
            dm_fail(d);
            return;
        }
        dm_put(d, out, v ? "true" : "false");
        return;
    }
    for (size_t k = 0; k < HK_ARRAY_LEN(kinds); k++) {
        if (kinds[k].code != code)
            continue;
        d->p++;
        long v;
        if (!dm_number(d, &v, true) || !dm_eat(d, 'E')) {
            dm_fail(d);
            return;
        }
        char num[32];
        snprintf(num, sizeof num, "%ld", v);
        dm_put(d, out, kinds[k].prefix);
        dm_put(d, out, num);
        dm_put(d, out, kinds[k].suffix);
        return;
    }
    dm_fail(d); /* floats, external names, nullptr: not needed for kernel names */
}

/* <template-args> ::= I <template-arg>+ E, after the I. keep: record them for T_. */
static void dm_template_args(struct dm *d, struct hk_buf *out, bool keep)
{
    if (++d->depth > DM_MAX_DEPTH) {
        dm_fail(d);
        return;
    }
    dm_put(d, out, "<");
    bool first = true;
    while (!d->failed && !dm_eat(d, 'E')) {
        if (d->p >= d->end) {
            dm_fail(d);
            break;
        }
        bool pack = dm_eat(d, 'J'); /* argument pack: its elements inline */
        do {
            if (pack && dm_eat(d, 'E'))
                break;
            struct hk_buf arg;
            hk_buf_init(&arg, DM_MAX_OUT);
            if (dm_eat(d, 'L'))
                dm_literal(d, &arg);
            else if (dm_peek(d, 0) == 'X')
                dm_fail(d); /* expressions: not decoded */
            else
                dm_type(d, &arg);
            if (!d->failed) {
                if (!first)
                    dm_put(d, out, ", ");
                dm_put(d, out, dm_str(&arg));
                first = false;
                if (keep && d->n_targs < DM_MAX_SUBS) {
                    char *c = hk_strdup(dm_str(&arg));
                    if (!c)
                        dm_oom(d);
                    else
                        d->targs[d->n_targs++] = c;
                }
            }
            hk_buf_free(&arg);
        } while (pack && !d->failed);
    }
    dm_close_angle(d, out);
    d->depth--;
}

/* S_ / Sn_ / St / Sa / Ss ..., after the S. */
static void dm_substitution(struct dm *d, struct hk_buf *out, bool *is_std_prefix)
{
    static const struct { char c; const char *s; } abbrev[] = {
        {'a', "std::allocator"}, {'b', "std::basic_string"}, {'s', "std::string"},
        {'i', "std::istream"}, {'o', "std::ostream"}, {'d', "std::iostream"},
    };
    *is_std_prefix = false;
    if (dm_eat(d, 't')) {
        *is_std_prefix = true;
        dm_put(d, out, "std");
        return;
    }
    for (size_t k = 0; k < HK_ARRAY_LEN(abbrev); k++) {
        if (dm_eat(d, abbrev[k].c)) {
            dm_put(d, out, abbrev[k].s);
            return;
        }
    }
    int id;
    if (!dm_seq_id(d, &id) || id >= d->n_subs) {
        dm_fail(d);
        return;
    }
    dm_put(d, out, d->subs[id]);
}

/* Components of a nested name up to E (after N and qualifiers). function: the complete
 * name is the function's, so it is not a substitution candidate. */
static void dm_nested(struct dm *d, struct hk_buf *out, bool function)
{
    bool have = false;
    while (!d->failed) {
        char c = dm_peek(d, 0);
        if (c == 'E') {
            d->p++;
            break;
        }
        if (c == '\0') {
            dm_fail(d);
            break;
        }
        if (c == 'I') {
            if (!have) {
                dm_fail(d);
                break;
            }
            d->p++;
            dm_template_args(d, out, function);
        } else if (c == 'S') {
            d->p++;
            bool std_prefix;
            if (have)
                dm_put(d, out, "::");
            dm_substitution(d, out, &std_prefix);
            have = true;
            continue; /* a substitution is not a new candidate */
        } else if (c == 'T') {
            d->p++;
            int id;
            if (!dm_seq_id(d, &id) || id >= d->n_targs) {
                dm_fail(d);
                break;
            }
            dm_put(d, out, d->targs[id]);
        } else if (isdigit((unsigned char)c) || c == 'L') {
            dm_eat(d, 'L');
            if (have)
                dm_put(d, out, "::");
            size_t start = out->len;
            dm_source_name(d, out);
            if (function && !d->failed) {
                hk_free(d->base);
                d->base = hk_strdup(dm_str(out) + start);
                if (!d->base)
                    dm_oom(d);
            }
        } else {
            dm_fail(d); /* constructors, unnamed types, lambdas: not kernel names */
            break;
        }
        have = true;
        /* Every prefix is a candidate; the complete name is one only for a type. */
        if (!d->failed && (!function || dm_peek(d, 0) != 'E'))
            dm_add_sub(d, dm_str(out));
    }
}

static void dm_builtin(struct dm *d, struct hk_buf *out, bool *ok)
{
    static const struct { const char *code; const char *name; } b[] = {
        {"v", "void"}, {"w", "wchar_t"}, {"b", "bool"}, {"c", "char"}, {"a", "signed char"},
        {"h", "unsigned char"}, {"s", "short"}, {"t", "unsigned short"}, {"i", "int"},
        {"j", "unsigned int"}, {"l", "long"}, {"m", "unsigned long"}, {"x", "long long"},
        {"y", "unsigned long long"}, {"n", "__int128"}, {"o", "unsigned __int128"}, /* i18n: not for people (C types) */
        {"f", "float"}, {"d", "double"}, {"e", "long double"}, {"g", "__float128"},
        {"z", "..."}, {"Dh", "half"}, {"DF16_", "_Float16"}, {"Ds", "char16_t"},
        {"Di", "char32_t"}, {"Du", "char8_t"}, {"Dn", "decltype(nullptr)"},
    };
    *ok = false;
    for (size_t k = 0; k < HK_ARRAY_LEN(b); k++) {
        size_t n = strlen(b[k].code);
        if ((size_t)(d->end - d->p) >= n && strncmp(d->p, b[k].code, n) == 0) {
            d->p += n;
            dm_put(d, out, b[k].name);
            *ok = true;
            return;
        }
    }
}

static void dm_type(struct dm *d, struct hk_buf *out)
{
    if (++d->depth > DM_MAX_DEPTH) {
        dm_fail(d);
        return;
    }
    char c = dm_peek(d, 0);
    struct hk_buf inner;
    hk_buf_init(&inner, DM_MAX_OUT);
    bool builtin = false;
    if (c == 'K' || c == 'V' || c == 'r') {
        /* CV-qualifiers print after the type, in c++filt's order: "float const". */
        const char *q = c == 'K' ? " const" : c == 'V' ? " volatile" : " restrict";
        d->p++;
        dm_type(d, &inner);
        dm_put(d, out, dm_str(&inner));
        dm_put(d, out, q);
        dm_add_sub(d, dm_str(out));
    } else if (c == 'P' || c == 'R' || c == 'O') {
        d->p++;
        dm_type(d, &inner);
        dm_put(d, out, dm_str(&inner));
        dm_put(d, out, c == 'P' ? "*" : c == 'R' ? "&" : "&&");
        dm_add_sub(d, dm_str(out));
    } else if (c == 'N') {
        d->p++;
        while (dm_peek(d, 0) == 'K' || dm_peek(d, 0) == 'V' || dm_peek(d, 0) == 'r')
            d->p++;
        dm_nested(d, out, false);
    } else if (c == 'S') {
        d->p++;
        bool std_prefix;
        dm_substitution(d, out, &std_prefix);
        if (std_prefix) {
            /* St <unqualified-name>: std::name is a new candidate. */
            dm_put(d, out, "::");
            dm_source_name(d, out);
            dm_add_sub(d, dm_str(out));
        }
        if (dm_eat(d, 'I')) {
            dm_template_args(d, out, false);
            dm_add_sub(d, dm_str(out));
        }
    } else if (c == 'T') {
        d->p++;
        int id;
        if (!dm_seq_id(d, &id) || id >= d->n_targs)
            dm_fail(d);
        else
            dm_put(d, out, d->targs[id]);
        dm_add_sub(d, dm_str(out));
        if (dm_eat(d, 'I')) {
            dm_template_args(d, out, false);
            dm_add_sub(d, dm_str(out));
        }
    } else if (isdigit((unsigned char)c)) {
        dm_source_name(d, out);
        dm_add_sub(d, dm_str(out));
        if (dm_eat(d, 'I')) {
            dm_template_args(d, out, false);
            dm_add_sub(d, dm_str(out));
        }
    } else {
        dm_builtin(d, out, &builtin);
        if (!builtin)
            dm_fail(d); /* arrays, function types, vectors, member pointers */
    }
    hk_buf_free(&inner);
    d->depth--;
}

/* <name> at the top of an <encoding>; fills d->base. */
static void dm_name(struct dm *d, struct hk_buf *out)
{
    char c = dm_peek(d, 0);
    if (c == 'N') {
        d->p++;
        while (dm_peek(d, 0) == 'K' || dm_peek(d, 0) == 'V' || dm_peek(d, 0) == 'r' ||
               dm_peek(d, 0) == 'R' || dm_peek(d, 0) == 'O')
            d->p++;
        dm_nested(d, out, true);
        return;
    }
    if (c == 'S' && dm_peek(d, 1) == 't') {
        d->p += 2;
        dm_put(d, out, "std::");
    }
    dm_eat(d, 'L'); /* internal linkage (static kernels) */
    if (!isdigit((unsigned char)dm_peek(d, 0))) {
        dm_fail(d);
        return;
    }
    size_t start = out->len;
    dm_source_name(d, out);
    if (d->failed)
        return;
    d->base = hk_strdup(dm_str(out) + start);
    if (!d->base) {
        dm_oom(d);
        return;
    }
    if (dm_eat(d, 'I')) {
        dm_add_sub(d, dm_str(out)); /* <unscoped-template-name> */
        dm_template_args(d, out, true);
    }
}

int cc_demangle(const char *mangled, char **qualified, char **base)
{
    int rc = HK_OK;
    struct dm d;
    memset(&d, 0, sizeof d);
    struct hk_buf out;
    hk_buf_init(&out, DM_MAX_OUT);
    char *q = NULL, *b = NULL;

    if (qualified)
        *qualified = NULL;
    if (base)
        *base = NULL;
    if (!mangled || !*mangled) {
        rc = HK_EPARSE;
        goto out;
    }
    if (strncmp(mangled, "_Z", 2) != 0) {
        /* extern "C" or already plain: the name is its own display form. */
        for (const char *s = mangled; *s; s++) {
            if (!isalnum((unsigned char)*s) && *s != '_' && *s != '$' && *s != '.') {
                rc = HK_EPARSE;
                goto out;
            }
        }
        q = hk_strdup(mangled);
        b = hk_strdup(mangled);
        if (!q || !b)
            rc = HK_ENOMEM;
        goto out;
    }
    d.p = mangled + 2;
    d.end = mangled + strlen(mangled);
    dm_name(&d, &out);
    /* What follows is the parameter list (or a clone suffix like ".1"): not decoded. */
    if (d.failed || !out.data || !d.base) {
        rc = d.nomem ? HK_ENOMEM : HK_EPARSE;
        goto out;
    }
    q = hk_buf_steal(&out);
    b = d.base;
    d.base = NULL;
out:
    for (int k = 0; k < d.n_subs; k++)
        hk_free(d.subs[k]);
    for (int k = 0; k < d.n_targs; k++)
        hk_free(d.targs[k]);
    hk_free(d.base);
    hk_buf_free(&out);
    if (rc == HK_OK) {
        if (qualified)
            *qualified = q;
        else
            hk_free(q);
        if (base)
            *base = b;
        else
            hk_free(b);
    } else {
        hk_free(q);
        hk_free(b);
    }
    return rc;
}
