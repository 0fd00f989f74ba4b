/* Module data that nothing writes, read from a PTX text (ptxdata.h). Two walks over the same
 * statements: the first notes every `.global` / `.const` variable the module defines and its
 * initializer's bytes, the second looks at every mention of such a name and keeps a variable
 * only when each one is the address of a plain `ld` or its own declaration (or a `mov.u64` of
 * a .const's address; REF18: of a .global's in a function body, when a third walk over those
 * bodies, pd_prove, shows the registers holding it read only as load addresses). */
#include "measure/ptxdata.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hk.h"

#define PD_MAX_STMT ((size_t)16 << 20)      /* bytes of one statement (an initializer) kept */
#define PD_MAX_VAR_BYTES ((size_t)1 << 16)  /* one variable's bytes kept (a constant bank) */
#define PD_MAX_BYTES ((size_t)8 << 20)      /* all the variables' bytes kept */
#define PD_MAX_VARS 65536                   /* variables noted; past it nothing is known */

typedef struct {
    char *name;
    bool konst;     /* .const, else .global */
    bool bad;       /* could be written, or not understood: never read as known */
    long decl;      /* the index of its declaring statement */
    size_t size;    /* bytes */
    uint8_t *bytes; /* its initial bytes (NULL: not kept) */
    uint8_t *known; /* per byte: 1 when bytes[i] is the initializer's */
    bool fn;        /* not a variable: a function's name (.entry / .func), noted to see whether
                     * anything but its own header mentions it (bad: something does) */
    bool entry;     /* fn: an .entry */
    long nst;       /* plain `st` statements whose address is [name] / [name+K] */
    long stfn;      /* the function (its entry in v) holding them all; -1: none yet */
    bool allowed;   /* ptxdata_allow: at this launch none of those stores runs */
    int nvals;      /* ptxdata_allow_values: at this launch the stores that can run write the
                     * whole variable with one of these values (0: not so) */
    int64_t vals[PTXDATA_VALS];
    bool every;     /* each of those values and the initializer may be what a launch holds
                     * (every store behind a branch on data); else only when they are all one */
    bool cover;     /* ptxdata_allow_cover: a load in stfn's body past line cover_line reads
                     * cover_val (the initializer unseen there) */
    long cover_line;
    int64_t cover_val;
    bool movg;      /* (REF18) a .global whose address a function's `mov.u64 %rd, NAME` takes:
                     * known only where pd_prove shows every use of it a load's address */
    bool prove;     /* fn: a body holding such a mov (the third walk reads it) */
} pd_var;

struct ptxdata {
    pd_var *v;
    long n, cap;
    long *hash; /* open addressing over v, hashcap slots, -1: empty */
    long hashcap;
    size_t kept;
    bool over; /* a statement past PD_MAX_STMT, or too many variables: nothing known */
    long curfn; /* the second walk: the function whose body it is in (-1: outside) */
    char **fst; /* the third walk: the statements of the body being read (pd_prove) */
    long nfst, capfst;
    size_t fbytes;
    bool fover; /* the body past PD_MAX_BYTES: nothing proved */
};

/* ---- the variables ---- */

static unsigned long pd_hash(const char *s, size_t n)
{
    unsigned long h = 5381;
    for (size_t i = 0; i < n; i++)
        h = h * 33 + (unsigned char)s[i];
    return h;
}

static long pd_find(const ptxdata *d, const char *s, size_t n)
{
    if (!d || !d->hashcap)
        return -1;
    unsigned long i = pd_hash(s, n) % (unsigned long)d->hashcap;
    while (d->hash[i] >= 0) {
        const char *nm = d->v[d->hash[i]].name;
        if (!strncmp(nm, s, n) && !nm[n])
            return d->hash[i];
        i = (i + 1) % (unsigned long)d->hashcap;
    }
    return -1;
}

/* A new variable named name (not yet there). NULL: out of memory. */
static pd_var *pd_add(ptxdata *d, const char *name)
{
    if ((d->n + 1) * 2 >= d->hashcap) {
        long nc = d->hashcap ? d->hashcap * 2 : 64;
        long *h = hk_malloc((size_t)nc * sizeof *h);
        if (!h)
            return NULL;
        for (long i = 0; i < nc; i++)
            h[i] = -1;
        for (long k = 0; k < d->n; k++) {
            unsigned long i = pd_hash(d->v[k].name, strlen(d->v[k].name)) % (unsigned long)nc;
            while (h[i] >= 0)
                i = (i + 1) % (unsigned long)nc;
            h[i] = k;
        }
        hk_free(d->hash);
        d->hash = h;
        d->hashcap = nc;
    }
    if (d->n == d->cap) {
        long nc = d->cap ? d->cap * 2 : 16;
        pd_var *q = hk_realloc(d->v, (size_t)nc * sizeof *q);
        if (!q)
            return NULL;
        d->v = q;
        d->cap = nc;
    }
    pd_var *v = &d->v[d->n];
    memset(v, 0, sizeof *v);
    v->stfn = -1;
    if (!(v->name = hk_strdup(name)))
        return NULL;
    unsigned long i = pd_hash(name, strlen(name)) % (unsigned long)d->hashcap;
    while (d->hash[i] >= 0)
        i = (i + 1) % (unsigned long)d->hashcap;
    d->hash[i] = d->n++;
    return v;
}

static void pd_drop_bytes(ptxdata *d, pd_var *v)
{
    if (v->bytes)
        d->kept -= v->size;
    hk_free(v->bytes);
    hk_free(v->known);
    v->bytes = v->known = NULL;
}

/* ---- reading statements ---- */

static bool pd_ident(int c)
{
    return isalnum(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

/* An integer literal as PTX writes one (decimal, 0x hex, octal, 0f/0d float bits, a trailing
 * U, a sign). */
bool ptxdata_int(const char *s, size_t n, int64_t *out)
{
    char tmp[64];
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (!n || n >= sizeof tmp)
        return false;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    const char *p = tmp;
    bool neg = false;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if (!isdigit((unsigned char)*p))
        return false;
    char *end;
    unsigned long long v;
    errno = 0;
    if (p[0] == '0' && (p[1] == 'f' || p[1] == 'F' || p[1] == 'd' || p[1] == 'D') && p[2])
        v = strtoull(p + 2, &end, 16);
    else
        v = strtoull(p, &end, 0);
    if (errno || end == p)
        return false;
    if (*end == 'U' || *end == 'u')
        end++;
    if (*end)
        return false;
    *out = neg ? (int64_t)(0 - (uint64_t)v) : (int64_t)v;
    return true;
}

/* s past a leading label (`NAME:`) and guard (`@%p` / `@!%p`). */
static const char *pd_skip_head(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    const char *p = s;
    while (*p && pd_ident((unsigned char)*p) && *p != '.')
        p++;
    if (p > s && *p == ':' && p[1] != ':') {
        s = p + 1;
        while (isspace((unsigned char)*s))
            s++;
    }
    if (*s == '@') {
        while (*s && !isspace((unsigned char)*s))
            s++;
        while (isspace((unsigned char)*s))
            s++;
    }
    return s;
}

/* The element size of a declaration's type word (".u32": 4), 0: not an integer or float
 * type of one element. */
static int pd_type_bytes(const char *w, size_t n)
{
    static const struct {
        const char *t;
        int b;
    } types[] = {{".b8", 1},  {".u8", 1},  {".s8", 1},  {".b16", 2}, {".u16", 2}, {".s16", 2},
                 {".f16", 2}, {".bf16", 2}, {".b32", 4}, {".u32", 4}, {".s32", 4}, {".f32", 4},
                 {".b64", 8}, {".u64", 8}, {".s64", 8}, {".f64", 8}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strlen(types[i].t) == n && !strncmp(types[i].t, w, n))
            return types[i].b;
    return 0;
}

/* The initializer's elements (braces flattened) into v's bytes, the elements it leaves out
 * zero; more elements than declared leave every byte unknown, an element that is not an
 * integer literal (an address, `generic(x)`) its own bytes. */
static void pd_init(ptxdata *d, pd_var *v, int elem, const char *init)
{
    size_t nelem = v->size / (size_t)elem, k = 0;
    const char *p = init;
    bool any = false;
    while (*p) {
        while (*p == '{' || *p == '}' || isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        const char *e = p;
        int depth = 0;
        while (*e && (depth || (*e != ',' && *e != '{' && *e != '}'))) {
            if (*e == '(')
                depth++;
            else if (*e == ')' && depth)
                depth--;
            e++;
        }
        if (k >= nelem) {
            any = true;
            k++;
            break;
        }
        int64_t x;
        if (ptxdata_int(p, (size_t)(e - p), &x))
            for (int b = 0; b < elem; b++) {
                v->bytes[k * (size_t)elem + (size_t)b] = (uint8_t)((uint64_t)x >> (8 * b));
                v->known[k * (size_t)elem + (size_t)b] = 1;
            }
        k++;
        any = true;
        p = e;
        while (*p == '}' || isspace((unsigned char)*p))
            p++;
        if (*p == ',')
            p++;
    }
    if (!any || k > nelem) {
        pd_drop_bytes(d, v); /* more than declared: not a text ptxas takes */
        return;
    }
    /* fewer: the rest is zero, as in C; nvcc relies on it (`__constant__ int t[4] = {7, 7,
     * 0, 7}` is written `.b8 t[16] = {7, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 7}`) */
    memset(v->known + k * (size_t)elem, 1, (nelem - k) * (size_t)elem);
}

/* A function's header (`.visible .entry NAME(...)`, `.func (.param ...) NAME(...)`, a
 * prototype too): its name (*name, *len) and whether it is an .entry. false: not one. */
static bool pd_fn_header(const char *s, const char **name, size_t *len, bool *entry)
{
    const char *w = NULL;
    for (const char *p = s; *p && *p != '(';) {
        while (isspace((unsigned char)*p))
            p++;
        const char *q = p;
        while (*q && !isspace((unsigned char)*q) && *q != '(')
            q++;
        if ((q - p == 6 && !strncmp(p, ".entry", 6)) || (q - p == 5 && !strncmp(p, ".func", 5))) {
            w = q;
            *entry = q - p == 6;
            break;
        }
        if (*p != '.')
            return false; /* a statement, not a header */
        p = q;
    }
    if (!w)
        return false;
    while (isspace((unsigned char)*w))
        w++;
    if (*w == '(') { /* .func (.param ...) NAME */
        int depth = 0;
        for (; *w; w++) {
            if (*w == '(')
                depth++;
            else if (*w == ')' && --depth == 0) {
                w++;
                break;
            }
        }
        while (isspace((unsigned char)*w))
            w++;
    }
    const char *e = w;
    while (*e && pd_ident((unsigned char)*e) && *e != '.')
        e++;
    if (e == w)
        return false;
    *name = w;
    *len = (size_t)(e - w);
    return true;
}

/* First walk: a function's header (its name noted, see pd_var.fn), a `.global` / `.const`
 * declaration. */
static int pd_declare(ptxdata *d, long idx, char *s)
{
    s = (char *)pd_skip_head(s);
    if (*s != '.')
        return HK_OK;
    {
        const char *fname;
        size_t fl;
        bool entry = false;
        if (pd_fn_header(s, &fname, &fl, &entry)) {
            char name[256];
            if (fl >= sizeof name)
                return HK_OK;
            memcpy(name, fname, fl);
            name[fl] = '\0';
            long at = pd_find(d, name, fl);
            if (at >= 0) { /* a prototype then its definition, or a name shared */
                d->v[at].bad = true;
                pd_drop_bytes(d, &d->v[at]);
                return HK_OK;
            }
            if (d->n >= PD_MAX_VARS) {
                d->over = true;
                return HK_OK;
            }
            pd_var *v = pd_add(d, name);
            if (!v)
                return HK_ENOMEM;
            v->fn = true;
            v->entry = entry;
            v->decl = idx;
            return HK_OK;
        }
    }
    char *init = strchr(s, '=');
    if (init)
        *init++ = '\0';
    bool global = false, konst = false, bad = false, align = false;
    int elem = 0;
    char *decl = NULL;
    for (char *p = s; *p;) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        char *w = p;
        int depth = 0;
        while (*p && (depth || !isspace((unsigned char)*p))) {
            if (*p == '(')
                depth++;
            else if (*p == ')' && depth)
                depth--;
            p++;
        }
        size_t n = (size_t)(p - w);
        if (*w != '.') {
            if (align) {
                align = false;
                continue;
            }
            decl = w; /* the declarators: the rest */
            break;
        }
        if (n == 7 && !strncmp(w, ".global", 7))
            global = true;
        else if (n == 6 && !strncmp(w, ".const", 6))
            konst = true;
        else if (n == 6 && !strncmp(w, ".align", 6))
            align = true;
        else if (n == 8 && !strncmp(w, ".visible", 8))
            ;
        else if (pd_type_bytes(w, n))
            elem = pd_type_bytes(w, n);
        else
            bad = true; /* .extern .weak .common .attribute(...) .v4 .texref ...: not ours */
    }
    if ((!global && !konst) || !decl)
        return HK_OK;
    if (global && konst)
        bad = true;
    if (strchr(decl, ','))
        bad = true; /* several declarators: noted below, none known */
    for (char *p = decl; *p;) {
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
        char *nm = p;
        while (*p && pd_ident((unsigned char)*p) && *p != '.')
            p++;
        size_t nl = (size_t)(p - nm);
        if (!nl)
            break;
        size_t size = (size_t)elem;
        bool vbad = bad || !elem;
        while (*p && *p != ',') {
            if (isspace((unsigned char)*p)) {
                p++;
                continue;
            }
            if (*p != '[') {
                vbad = true;
                p++;
                continue;
            }
            char *e = strchr(p, ']');
            int64_t dim;
            if (!e || !ptxdata_int(p + 1, (size_t)(e - p - 1), &dim) || dim <= 0 ||
                (int64_t)size > ((int64_t)1 << 40) / dim) {
                vbad = true; /* unsized, or past any image */
                p = e ? e + 1 : p + strlen(p);
                continue;
            }
            size *= (size_t)dim;
            p = e + 1;
        }
        char name[256];
        if (nl >= sizeof name)
            continue; /* no mention can name it in a form this reads as a load */
        memcpy(name, nm, nl);
        name[nl] = '\0';
        long at = pd_find(d, name, nl);
        if (at >= 0) { /* declared twice (a scope's own, an .extern then the definition) */
            d->v[at].bad = true;
            pd_drop_bytes(d, &d->v[at]);
            continue;
        }
        if (d->n >= PD_MAX_VARS) {
            d->over = true;
            return HK_OK;
        }
        pd_var *v = pd_add(d, name);
        if (!v)
            return HK_ENOMEM;
        v->konst = konst;
        v->bad = vbad;
        v->decl = idx;
        v->size = size;
        if (vbad || size > PD_MAX_VAR_BYTES || d->kept + size > PD_MAX_BYTES)
            continue; /* its bytes not kept: a load of it stays unknown */
        v->bytes = hk_calloc(size ? size : 1, 1);
        v->known = hk_calloc(size ? size : 1, 1);
        if (!v->bytes || !v->known)
            return HK_ENOMEM;
        d->kept += size;
        if (init)
            pd_init(d, v, elem, init);
        else
            memset(v->known, 1, size); /* zero-initialised module data */
    }
    return HK_OK;
}

/* Second walk: every mention of a noted name that is not the address of an `ld` (`[name]`,
 * `[name+K]`) nor its own declaration's name makes it bad; the address of a plain `st` is
 * counted (nst) with its function (stfn; stores in two functions, or outside one: bad). A
 * function's name mentioned anywhere but its own header makes it bad (called, or its address
 * taken: a device-side launch). Returns the function whose header this is, -1: none. */
static long pd_mentions(ptxdata *d, long idx, const char *s)
{
    const char *h = pd_skip_head(s);
    /* an ld: its address operand (the second), when it is [NAME] or [NAME+K]; a st: its
     * first */
    const char *ok_at = NULL, *st_at = NULL;
    bool is_st = !strncmp(h, "st", 2) && (h[2] == '.' || isspace((unsigned char)h[2]));
    if (is_st || (!strncmp(h, "ld", 2) && (h[2] == '.' || isspace((unsigned char)h[2])))) {
        const char *p = h;
        while (*p && !isspace((unsigned char)*p))
            p++;
        int op = 0, depth = 0;
        const char *a = NULL, *b = NULL;
        for (const char *q = p; *q; q++) {
            if (*q == '[' || *q == '(' || *q == '{')
                depth++;
            else if ((*q == ']' || *q == ')' || *q == '}') && depth)
                depth--;
            else if (*q == ',' && !depth) {
                if (++op == 1)
                    a = q + 1;
                else if (op == 2)
                    b = q;
            }
        }
        if (is_st && a) { /* the first operand: from the op's end to the first comma */
            b = a - 1;
            a = p;
        }
        if (a) {
            if (!b)
                b = a + strlen(a);
            while (a < b && isspace((unsigned char)*a))
                a++;
            while (b > a && isspace((unsigned char)b[-1]))
                b--;
            if (b - a >= 3 && *a == '[' && b[-1] == ']') {
                const char *n0 = a + 1;
                while (isspace((unsigned char)*n0))
                    n0++;
                const char *n1 = n0;
                while (n1 < b - 1 && pd_ident((unsigned char)*n1) && *n1 != '.')
                    n1++;
                const char *r = n1;
                while (isspace((unsigned char)*r))
                    r++;
                int64_t off;
                if (n1 > n0 && (r == b - 1 || (*r == '+' && ptxdata_int(r + 1, (size_t)(b - 1 - r - 1), &off)))) {
                    if (is_st)
                        st_at = n0;
                    else
                        ok_at = n0;
                }
            }
        }
    }
    /* (REF17) `mov.u64 %rd, NAME` / `mov.b64`: the address of a .const variable taken into a
     * register (a table read at an index: ld.const [%rd]); no kernel writes the constant
     * space, so the variable's bytes stay its initializer's */
    const char *mov_at = NULL;
    if (!strncmp(h, "mov.u64", 7) || !strncmp(h, "mov.b64", 7)) {
        const char *q = h + 7, *c = NULL;
        if (isspace((unsigned char)*q)) {
            while (*q && *q != ',' && *q != '[' && *q != '{')
                q++;
            c = *q == ',' ? q + 1 : NULL;
        }
        while (c && isspace((unsigned char)*c))
            c++;
        const char *e = c;
        while (e && *e && pd_ident((unsigned char)*e) && *e != '.')
            e++;
        while (e && isspace((unsigned char)*e))
            e++;
        if (c && e > c && !isdigit((unsigned char)*c) && *c != '%' && (!*e || *e == ';'))
            mov_at = c;
    }
    bool own = false;
    long header = -1;
    for (const char *p = s; *p;) {
        if (!pd_ident((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *t = p;
        while (*p && pd_ident((unsigned char)*p))
            p++;
        if (isdigit((unsigned char)*t))
            continue;
        long k = pd_find(d, t, (size_t)(p - t));
        if (k < 0 || (t == ok_at && !d->v[k].fn) ||
            (t == mov_at && !d->v[k].fn && d->v[k].konst))
            continue;
        if (t == mov_at && !d->v[k].fn && d->curfn >= 0) { /* (REF18) a .global: pd_prove */
            d->v[k].movg = true;
            d->v[d->curfn].prove = true;
            continue;
        }
        if (d->v[k].decl == idx && !own) {
            own = true; /* the declaration's own name (its first mention there) */
            if (d->v[k].fn)
                header = k;
            continue;
        }
        if (t == st_at && !d->v[k].fn) {
            pd_var *v = &d->v[k];
            if (d->curfn < 0 || (v->stfn >= 0 && v->stfn != d->curfn))
                v->bad = true;
            v->stfn = d->curfn;
            v->nst++;
            continue;
        }
        d->v[k].bad = true;
    }
    return header;
}

/* ---- (REF18) a .global's address in registers: only loads read through it ---- */

#define PD_MAX_TAINT 256

/* A statement's opcode (its first word, after a label and a guard) and its operands, split at
 * the commas outside brackets, braces and parentheses, trimmed; false: more than cap. */
static bool pd_split(char *s, char **op, char **ops, int cap, int *n)
{
    s = (char *)pd_skip_head(s);
    *op = s;
    while (*s && !isspace((unsigned char)*s))
        s++;
    *n = 0;
    if (!*s)
        return true;
    *s++ = '\0';
    while (*s) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s)
            break;
        if (*n == cap)
            return false;
        char *a = s;
        int depth = 0;
        while (*s && (depth || *s != ',')) {
            if (*s == '[' || *s == '(' || *s == '{')
                depth++;
            else if ((*s == ']' || *s == ')' || *s == '}') && depth)
                depth--;
            s++;
        }
        char *e = s;
        if (*s)
            *s++ = '\0';
        while (e > a && isspace((unsigned char)e[-1]))
            *--e = '\0';
        ops[(*n)++] = a;
    }
    return true;
}

static bool pd_is_reg(const char *o)
{
    if (*o != '%' || !o[1])
        return false;
    for (const char *p = o + 1; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '$'))
            return false;
    return true;
}

static long pd_taint_find(char (*t)[64], long nt, const char *o, size_t n)
{
    for (long i = 0; i < nt; i++)
        if (strlen(t[i]) == n && !strncmp(t[i], o, n))
            return i;
    return -1;
}

/* The opcode's base (before its first dot) is one of the list. */
static bool pd_base_in(const char *op, const char *const *list)
{
    size_t n = strcspn(op, ".");
    for (int i = 0; list[i]; i++)
        if (strlen(list[i]) == n && !strncmp(op, list[i], n))
            return true;
    return false;
}

/* The body just read (d->fst) holds `mov.u64 %rd, NAME` of .globals (movg): the registers
 * holding such an address (tainted: the mov's destination, and the destination of a
 * `mov.u64/.b64`, `cvta{.to}.global.u64` of one or of an `add.s64/.u64` of one and any other
 * operand, and (REF20) of a `selp.b64/.u64` of one or two as its values) must each be read only as a load's address (`ld`/`ldu` at `[%t]` or `[%t+K]`) or
 * by those moves and adds -- a register may also be the destination of a statement whose first
 * operand surely is one (ld, mov, arithmetic, atom: its old value); any other mention of it
 * (a store's address or value, an atomic's address, a call's argument, a compare, a
 * conversion, a second tainted operand of an add, a vector) fails: true where none does.
 * Flow-insensitive (every statement, to a fixed point): so no store, atomic or call of the
 * module can reach the variable through this body. */
static bool pd_prove_one(ptxdata *d, long var)
{
    static const char *const dests[] = {"ld", "ldu", "mov", "add", "sub", "mul", "mad", "cvt",
                                        "cvta", "and", "or", "xor", "not", "shl", "shr",
                                        "selp", "min", "max", "neg", "abs", "rem", "div",
                                        "bfe", "bfi", "prmt", "shf", "popc", "clz", "brev",
                                        "lop3", "atom", "sad", NULL};
    static const size_t TL = 64;
    char (*taint)[64] = hk_malloc(PD_MAX_TAINT * sizeof *taint);
    long nt = 0;
    bool ok = taint && !d->fover;
    for (long i = 0; i < d->nfst && ok; i++)
        ok = strlen(d->fst[i]) < 4096;
    char *ops[8], *op;
    int n;
    char buf[4096];
    /* the seeds */
    for (long i = 0; i < d->nfst && ok; i++) {
        if (strlen(d->fst[i]) >= sizeof buf)
            continue;
        strcpy(buf, d->fst[i]);
        if (!pd_split(buf, &op, ops, 8, &n) || n != 2 ||
            (strcmp(op, "mov.u64") && strcmp(op, "mov.b64")))
            continue;
        long k = pd_find(d, ops[1], strlen(ops[1]));
        if (k != var)
            continue;
        if (!pd_is_reg(ops[0]) || nt == PD_MAX_TAINT || strlen(ops[0]) >= TL)
            ok = false;
        else if (pd_taint_find(taint, nt, ops[0], strlen(ops[0])) < 0)
            strcpy(taint[nt++], ops[0]);
    }
    /* the uses, to a fixed point */
    for (bool grew = true; grew && ok;) {
        grew = false;
        for (long i = 0; i < d->nfst && ok; i++) {
            const char *st = d->fst[i];
            if (*pd_skip_head(st) == '.')
                continue; /* a declaration (.reg): no use */
            bool any = false;
            for (const char *p = st; *p && !any; p++)
                if (*p == '%') {
                    size_t l = 1;
                    while (isalnum((unsigned char)p[l]) || p[l] == '_' || p[l] == '$')
                        l++;
                    any = pd_taint_find(taint, nt, p, l) >= 0;
                    p += l - 1;
                }
            if (!any)
                continue;
            if (strlen(st) >= sizeof buf || !pd_split(strcpy(buf, st), &op, ops, 8, &n) || !n) {
                ok = false;
                break;
            }
            /* which operands name a tainted register (exactly, or inside) */
            bool exact[8] = {0}, inside[8] = {0};
            for (int j = 0; j < n; j++) {
                exact[j] = pd_taint_find(taint, nt, ops[j], strlen(ops[j])) >= 0;
                for (const char *p = ops[j]; *p && !exact[j]; p++)
                    if (*p == '%') {
                        size_t l = 1;
                        while (isalnum((unsigned char)p[l]) || p[l] == '_' || p[l] == '$')
                            l++;
                        if (pd_taint_find(taint, nt, p, l) >= 0)
                            inside[j] = true;
                        p += l - 1;
                    }
            }
            int from = -1; /* the tainted source a move or an add copies into ops[0] */
            bool mv = (!strcmp(op, "mov.u64") || !strcmp(op, "mov.b64") ||
                       !strcmp(op, "cvta.to.global.u64") || !strcmp(op, "cvta.global.u64")) &&
                      n == 2;
            bool ad = (!strcmp(op, "add.s64") || !strcmp(op, "add.u64")) && n == 3;
            /* (REF20) `selp.b64 / .u64 %d, %a, %b, %p`: %d holds %a or %b, a tainted one or
             * both (the predicate is not an address) */
            bool sl = (!strcmp(op, "selp.b64") || !strcmp(op, "selp.u64")) && n == 4;
            bool ld = pd_base_in(op, (const char *const[]){"ld", "ldu", NULL}) && n == 2;
            for (int j = 1; j < n; j++) {
                if (inside[j] && ld && j == 1) {
                    /* [%t] or [%t+K] */
                    const char *a = ops[1];
                    size_t l = strlen(a);
                    const char *r = a + 1;
                    while (isspace((unsigned char)*r))
                        r++;
                    size_t rl = 1;
                    while (isalnum((unsigned char)r[rl]) || r[rl] == '_' || r[rl] == '$')
                        rl++;
                    const char *q = r + rl;
                    while (isspace((unsigned char)*q))
                        q++;
                    int64_t off;
                    if (a[0] == '[' && a[l - 1] == ']' && *r == '%' &&
                        pd_taint_find(taint, nt, r, rl) >= 0 &&
                        (q == a + l - 1 ||
                         (*q == '+' && ptxdata_int(q + 1, (size_t)(a + l - 1 - (q + 1)), &off))))
                        continue;
                    ok = false;
                } else if (exact[j] && (mv || ad) && from < 0) {
                    from = j;
                } else if (exact[j] && sl && j <= 2) {
                    from = from < 0 ? j : from;
                } else if (exact[j] || inside[j]) {
                    ok = false; /* any other read: a second tainted add operand too */
                }
            }
            if (!ok)
                break;
            if (inside[0] && !exact[0])
                ok = ld; /* a vector a load writes may hold a tainted name */
            if (exact[0] && from < 0 && !pd_base_in(op, dests))
                ok = false; /* its first operand may be read, not written */
            if (ok && from > 0) {
                if (!pd_is_reg(ops[0]) || strlen(ops[0]) >= TL)
                    ok = false;
                else if (pd_taint_find(taint, nt, ops[0], strlen(ops[0])) < 0) {
                    if (nt == PD_MAX_TAINT) {
                        ok = false;
                    } else {
                        strcpy(taint[nt++], ops[0]);
                        grew = true;
                    }
                }
            }
        }
    }
    hk_free(taint);
    return ok;
}

/* pd_prove_one for each variable whose address the body moves (each on its own: another
 * variable's address reaching a store says nothing of this one's); where it fails, the
 * variable is unknown. */
static void pd_prove(ptxdata *d)
{
    char buf[4096], *ops[8], *op;
    int n;
    long seen[16], nseen = 0; /* variables already proved in this body */
    for (long i = 0; i < d->nfst; i++) {
        if (strlen(d->fst[i]) >= sizeof buf)
            continue;
        strcpy(buf, d->fst[i]);
        if (pd_split(buf, &op, ops, 8, &n) && n == 2 &&
            (!strcmp(op, "mov.u64") || !strcmp(op, "mov.b64"))) {
            long k = pd_find(d, ops[1], strlen(ops[1]));
            bool again = false;
            for (long j = 0; j < nseen && !again; j++)
                again = seen[j] == k;
            if (k < 0 || d->v[k].fn || !d->v[k].movg || d->v[k].bad || again)
                continue;
            if (nseen < 16)
                seen[nseen++] = k;
            if (!pd_prove_one(d, k))
                d->v[k].bad = true;
        }
    }
}

static void pd_fst_clear(ptxdata *d)
{
    for (long i = 0; i < d->nfst; i++)
        hk_free(d->fst[i]);
    d->nfst = 0;
    d->fbytes = 0;
    d->fover = false;
}

/* The third walk: statement s of a body pd_prove reads, kept. HK_OK, HK_ENOMEM. */
static int pd_fst_add(ptxdata *d, const char *s)
{
    size_t l = strlen(s);
    if (d->fover || d->fbytes + l > PD_MAX_BYTES) {
        d->fover = true;
        return HK_OK;
    }
    if (d->nfst == d->capfst) {
        long nc = d->capfst ? d->capfst * 2 : 256;
        char **q = hk_realloc(d->fst, (size_t)nc * sizeof *q);
        if (!q)
            return HK_ENOMEM;
        d->fst = q;
        d->capfst = nc;
    }
    if (!(d->fst[d->nfst] = hk_strdup(s)))
        return HK_ENOMEM;
    d->nfst++;
    d->fbytes += l;
    return HK_OK;
}

/* ---- the walk ---- */

typedef struct {
    const char *text;
    size_t len, at;
    FILE *fp;
    int back; /* a character pushed back, -1: none */
} pd_src;

static int pd_get(pd_src *src)
{
    if (src->back >= 0) {
        int c = src->back;
        src->back = -1;
        return c;
    }
    if (src->fp)
        return getc(src->fp);
    return src->at < src->len ? (unsigned char)src->text[src->at++] : EOF;
}

/* Whether the piece so far (n bytes of buf) is a directive that ends at its line's end
 * (no `;`): the module's header, .file and .loc, a function's performance directives. */
static bool line_directive(const char *buf, size_t n)
{
    static const char *const dirs[] = {".version", ".target", ".address_size", ".file", ".loc",
                                       ".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm",
                                       ".maxnreg", ".reqnctapercluster", ".maxclusterrank",
                                       ".explicitcluster", ".noreturn", NULL};
    size_t i = 0;
    while (i < n && buf[i] == ' ')
        i++;
    size_t j = i; /* (REF19) a label before it (`$L__BB0_10:` then `.loc 1 51 9` on the next
                   * line, nvcc's -lineinfo): the label and the directive end at the line's end,
                   * not joined to the statement after them */
    while (j < n && pd_ident((unsigned char)buf[j]) && buf[j] != '.')
        j++;
    if (j > i && j < n && buf[j] == ':' && (j + 1 == n || buf[j + 1] != ':')) {
        i = j + 1;
        while (i < n && buf[i] == ' ')
            i++;
    }
    if (i == n || buf[i] != '.')
        return false;
    for (int k = 0; dirs[k]; k++) {
        size_t l = strlen(dirs[k]);
        if (n - i >= l && !strncmp(buf + i, dirs[k], l) && (n - i == l || buf[i + l] == ' '))
            return true;
    }
    return false;
}

/* Statements of the text, one per `;` (and per `{` / `}` outside an initializer, which a
 * body's scopes and a vector operand split into harmless pieces), comments and strings left
 * out, and per line for the directives that end there (line_directive), each handed to
 * the pass's reader with its index. */
static int pd_walk(ptxdata *d, pd_src *src, int pass)
{
    char *buf = NULL;
    size_t n = 0, cap = 0;
    long idx = 0;
    int depth = 0, braces = 0, rc = HK_OK;
    int fdepth = 0;     /* `{` minus `}` cut outside initializers: 1 in a function's body */
    long pending = -1;  /* the function whose header came last, at fdepth 0 */
    bool eq = false;
    d->curfn = -1;
    for (;;) {
        int c = pd_get(src);
        bool end = c == EOF;
        if (c == '/') {
            int c2 = pd_get(src);
            if (c2 == '/') {
                while ((c = pd_get(src)) != EOF && c != '\n')
                    ;
                c = c == EOF ? ' ' : '\n'; /* the line still ends */
            } else if (c2 == '*') {
                int prev = 0;
                while ((c = pd_get(src)) != EOF && !(prev == '*' && c == '/'))
                    prev = c;
                c = ' ';
            } else {
                src->back = c2;
            }
        } else if (c == '"') {
            while ((c = pd_get(src)) != EOF && c != '"')
                ;
            c = ' ';
        }
        if (c == '#') { /* a preprocessor line (#define ...): names this walk does not expand;
                         * ptxas 13 refuses one, but nothing is read as known past it */
            d->over = true;
            goto out;
        }
        bool cut = end;
        int cutc = 0; /* '{' or '}' when one cut the piece */
        if (c == '\n' && !depth && !braces && line_directive(buf, n))
            cut = true; /* `.version 8.8`, `.loc 1 2 3` ...: a line's end ends them */
        else if (!end) {
            if (c == ';' && !depth && !braces)
                cut = true;
            else if (c == '{' && !eq)
                cut = true, cutc = '{';
            else if (c == '}' && !braces)
                cut = true, cutc = '}';
            else {
                if (c == '{')
                    braces++;
                else if (c == '}')
                    braces--;
                else if (c == '[' || c == '(')
                    depth++;
                else if ((c == ']' || c == ')') && depth)
                    depth--;
                else if (c == '=')
                    eq = true;
                if (n + 2 > cap) {
                    if (cap >= PD_MAX_STMT) {
                        d->over = true;
                        goto out;
                    }
                    size_t nc = cap ? cap * 2 : 4096;
                    char *q = hk_realloc(buf, nc);
                    if (!q) {
                        rc = HK_ENOMEM;
                        goto out;
                    }
                    buf = q;
                    cap = nc;
                }
                buf[n++] = (char)(c == '\n' || c == '\r' || c == '\t' ? ' ' : c);
            }
        }
        if (cut) {
            size_t i = 0;
            while (i < n && buf[i] == ' ')
                i++;
            if (i < n) {
                buf[n] = '\0';
                if (pass == 1) {
                    rc = pd_declare(d, idx, buf + i);
                } else if (pass == 3) {
                    const char *fnm;
                    size_t fl;
                    bool fe;
                    long h = -1;
                    if (!fdepth && pd_fn_header(buf + i, &fnm, &fl, &fe) &&
                        (h = pd_find(d, fnm, fl)) >= 0 && (!d->v[h].fn || d->v[h].decl != idx))
                        h = -1;
                    if (!fdepth)
                        pending = h; /* as the second walk's pd_mentions finds it */
                    if (d->curfn >= 0 && d->v[d->curfn].prove)
                        rc = pd_fst_add(d, buf + i);
                } else {
                    long h = pd_mentions(d, idx, buf + i);
                    if (!fdepth)
                        pending = h;
                }
                idx++;
                if (rc || d->over)
                    goto out;
            } else if (!fdepth && cutc != '{') {
                pending = -1;
            }
            if (cutc == '{' && !fdepth++) {
                d->curfn = pending; /* a body starts: its function's, or -1 */
                pending = -1;
            } else if (cutc == '}' && fdepth > 0 && !--fdepth) {
                if (pass == 3 && d->curfn >= 0 && d->v[d->curfn].prove) {
                    pd_prove(d);
                    pd_fst_clear(d);
                }
                d->curfn = -1;
            }
            n = 0;
            depth = braces = 0;
            eq = false;
        }
        if (end)
            break;
    }
out:
    hk_free(buf);
    return rc;
}

static int pd_finish(ptxdata *d, const char *const *filled, int nfilled)
{
    for (int i = 0; i < nfilled; i++) {
        long k = filled[i] ? pd_find(d, filled[i], strlen(filled[i])) : -1;
        if (k >= 0)
            d->v[k].bad = true; /* the launcher writes it (a spec's constant) */
    }
    for (long k = 0; k < d->n; k++)
        if (d->v[k].bad || d->over)
            pd_drop_bytes(d, &d->v[k]);
    return HK_OK;
}

static int pd_read(pd_src *src, FILE *fp, const char *const *filled, int nfilled, ptxdata **out)
{
    *out = NULL;
    ptxdata *d = hk_calloc(1, sizeof *d);
    if (!d)
        return HK_ENOMEM;
    int rc = pd_walk(d, src, 1);
    bool vars = false;
    for (long k = 0; k < d->n && !vars; k++)
        vars = !d->v[k].fn;
    if (rc == HK_OK && !d->over && vars) { /* no variable: nothing to look for */
        if (fp) {
            rewind(fp);
            src->back = -1;
        } else {
            src->at = 0;
            src->back = -1;
        }
        rc = pd_walk(d, src, 2);
    }
    bool third = false; /* (REF18) a .global's address moved into a register: prove it */
    for (long k = 0; k < d->n && !third; k++)
        third = d->v[k].movg && !d->v[k].bad;
    if (rc == HK_OK && !d->over && third) {
        if (fp) {
            rewind(fp);
            src->back = -1;
        } else {
            src->at = 0;
            src->back = -1;
        }
        rc = pd_walk(d, src, 3);
        if (rc == HK_OK && d->nfst) /* a body never closed */
            pd_prove(d);
        for (long k = 0; k < d->n; k++) /* a body not read to its end */
            if (d->v[k].movg && (rc || d->over))
                d->v[k].bad = true;
        pd_fst_clear(d);
    }
    if (rc == HK_OK && fp && ferror(fp))
        rc = HK_EIO;
    if (rc == HK_OK)
        rc = pd_finish(d, filled, nfilled);
    if (rc) {
        ptxdata_free(d);
        return rc;
    }
    *out = d;
    return HK_OK;
}

int ptxdata_read(const char *text, size_t len, const char *const *filled, int nfilled,
                 ptxdata **out)
{
    pd_src src = {text, len, 0, NULL, -1};
    return pd_read(&src, NULL, filled, nfilled, out);
}

int ptxdata_read_file(const char *path, const char *const *filled, int nfilled, ptxdata **out)
{
    *out = NULL;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return errno == ENOENT ? HK_ENOENT : HK_EIO;
    pd_src src = {NULL, 0, 0, fp, -1};
    int rc = pd_read(&src, fp, filled, nfilled, out);
    fclose(fp);
    return rc;
}

bool ptxdata_load(const ptxdata *d, const char *name, int64_t off, bool konst, int bytes,
                  bool sgn, int64_t *v)
{
    long k = pd_find(d, name, strlen(name));
    if (k < 0 || d->over || (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8))
        return false;
    const pd_var *x = &d->v[k];
    if (x->bad || x->fn || (x->nst && !x->allowed) || x->konst != konst || !x->bytes || off < 0 ||
        (uint64_t)off > x->size ||
        x->size - (size_t)off < (size_t)bytes)
        return false;
    uint64_t r = 0;
    for (int b = bytes - 1; b >= 0; b--) {
        if (!x->known[(size_t)off + (size_t)b])
            return false;
        r = r << 8 | x->bytes[(size_t)off + (size_t)b];
    }
    if (sgn && bytes < 8 && (r >> (8 * bytes - 1)) & 1)
        r |= ~0ull << (8 * bytes);
    *v = (int64_t)r;
    return true;
}

void ptxdata_counts(const ptxdata *d, long *defined, long *known)
{
    *defined = *known = 0;
    for (long k = 0; d && k < d->n; k++) {
        const pd_var *x = &d->v[k];
        if (x->fn)
            continue;
        (*defined)++;
        if (!d->over && !x->bad && x->bytes && (!x->nst || x->allowed))
            (*known)++;
    }
}

bool ptxdata_stored(const ptxdata *d, long k, const char **name, const char **entry, long *nst)
{
    if (!d || d->over || k < 0 || k >= d->n)
        return false;
    const pd_var *x = &d->v[k];
    if (x->fn || x->bad || !x->bytes || !x->nst || x->allowed || x->stfn < 0 ||
        x->stfn >= d->n)
        return false;
    const pd_var *f = &d->v[x->stfn];
    if (!f->fn || !f->entry || f->bad)
        return false; /* a device function (called from anywhere), or an entry named elsewhere */
    *name = x->name;
    *entry = f->name;
    *nst = x->nst;
    return true;
}

long ptxdata_names(const ptxdata *d)
{
    return d ? d->n : 0;
}

void ptxdata_allow(ptxdata *d, const char *name)
{
    long k = d ? pd_find(d, name, strlen(name)) : -1;
    if (k >= 0 && !d->v[k].fn)
        d->v[k].allowed = true;
}

void ptxdata_allow_values(ptxdata *d, const char *name, const int64_t *vals, int n, bool every)
{
    long k = d ? pd_find(d, name, strlen(name)) : -1;
    if (k < 0 || d->v[k].fn || d->v[k].allowed || n < 1 || n > PTXDATA_VALS)
        return;
    d->v[k].nvals = n;
    d->v[k].every = every;
    memcpy(d->v[k].vals, vals, (size_t)n * sizeof *vals);
}

void ptxdata_allow_cover(ptxdata *d, const char *name, long line, int64_t val)
{
    long k = d ? pd_find(d, name, strlen(name)) : -1;
    if (k < 0 || d->v[k].fn || d->v[k].allowed || d->v[k].stfn < 0)
        return;
    d->v[k].cover = true;
    d->v[k].cover_line = line;
    d->v[k].cover_val = val;
}

bool ptxdata_size(const ptxdata *d, const char *name, size_t *size)
{
    long k = d ? pd_find(d, name, strlen(name)) : -1;
    if (k < 0 || d->over || d->v[k].fn || d->v[k].bad || !d->v[k].bytes)
        return false;
    *size = d->v[k].size;
    return true;
}

/* The value `bytes` bytes at off give, read from the image img (size bytes, known per byte
 * where known is not NULL): false where one is unknown or outside. */
static bool pd_read_at(const uint8_t *img, const uint8_t *known, size_t size, int64_t off,
                       int bytes, bool sgn, int64_t *v)
{
    if (off < 0 || (uint64_t)off > size || size - (size_t)off < (size_t)bytes)
        return false;
    uint64_t r = 0;
    for (int b = bytes - 1; b >= 0; b--) {
        if (known && !known[(size_t)off + (size_t)b])
            return false;
        r = r << 8 | img[(size_t)off + (size_t)b];
    }
    if (sgn && bytes < 8 && (r >> (8 * bytes - 1)) & 1)
        r |= ~0ull << (8 * bytes);
    *v = (int64_t)r;
    return true;
}

int ptxdata_load_values(const ptxdata *d, const char *name, int64_t off, bool konst, int bytes,
                        bool sgn, int64_t *out, int cap)
{
    if (cap < 1)
        return 0;
    if (ptxdata_load(d, name, off, konst, bytes, sgn, out))
        return 1;
    long k = pd_find(d, name, strlen(name));
    if (k < 0 || d->over || (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8))
        return 0;
    const pd_var *x = &d->v[k];
    if (x->bad || x->fn || !x->nst || x->allowed || !x->nvals || x->konst != konst ||
        !x->bytes || x->size > 8)
        return 0;
    int n = 0;
    for (int i = -1; i < x->nvals; i++) {
        if (n > 1 && !x->every)
            return 0; /* two values, not each possible for all the image says */
        uint8_t img[8];
        int64_t v;
        if (i < 0) { /* the initializer: no store has run yet */
            if (!pd_read_at(x->bytes, x->known, x->size, off, bytes, sgn, &v))
                return 0;
        } else {
            for (size_t b = 0; b < x->size; b++)
                img[b] = (uint8_t)((uint64_t)x->vals[i] >> (8 * b));
            if (!pd_read_at(img, NULL, x->size, off, bytes, sgn, &v))
                return 0;
        }
        bool seen = false;
        for (int j = 0; j < n && !seen; j++)
            seen = out[j] == v;
        if (seen)
            continue;
        if (n == cap)
            return 0;
        out[n++] = v;
    }
    return n > 1 && !x->every ? 0 : n;
}

int ptxdata_load_values_at(const ptxdata *d, const char *name, int64_t off, bool konst,
                           int bytes, bool sgn, const char *fn, long line, int64_t *out, int cap)
{
    long k = d && fn ? pd_find(d, name, strlen(name)) : -1;
    if (k >= 0 && cap >= 1 && !d->over && (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8)) {
        const pd_var *x = &d->v[k];
        if (x->cover && !x->bad && !x->fn && !x->allowed && !konst && !x->konst &&
            x->bytes && x->size <= 8 && x->stfn >= 0 && x->stfn < d->n &&
            !strcmp(d->v[x->stfn].name, fn) && line > x->cover_line) {
            uint8_t img[8];
            for (size_t b = 0; b < x->size; b++)
                img[b] = (uint8_t)((uint64_t)x->cover_val >> (8 * b));
            if (pd_read_at(img, NULL, x->size, off, bytes, sgn, out))
                return 1;
            return 0;
        }
    }
    return ptxdata_load_values(d, name, off, konst, bytes, sgn, out, cap);
}

void ptxdata_free(ptxdata *d)
{
    if (!d)
        return;
    for (long k = 0; k < d->n; k++) {
        hk_free(d->v[k].name);
        hk_free(d->v[k].bytes);
        hk_free(d->v[k].known);
    }
    hk_free(d->v);
    hk_free(d->hash);
    pd_fst_clear(d);
    hk_free(d->fst);
    hk_free(d);
}
