/* Evidence from tool output: SASS instruction counts per kernel (cuobjdump --dump-sass),
 * Nsight Compute metrics (ncu --csv) and the roofline position. The parsers read line by
 * line and never trust the text: unknown lines are skipped, numbers are range-checked,
 * and every growing array has a cap. */
#include "episode/evidence.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compile/compile.h"
#include "core/hk.h"

/* ------------------------------------------------------------------------------------
 * small text helpers
 * ---------------------------------------------------------------------------------- */

/* Next line from p up to end: sets ls, le (line without its newline) and advances p. */
static bool next_line(const char **p, const char *end, const char **ls, const char **le)
{
    if (*p >= end)
        return false;
    const char *s = *p, *nl = memchr(s, '\n', (size_t)(end - s));
    const char *e = nl ? nl : end;
    *p = nl ? nl + 1 : end;
    if (e > s && e[-1] == '\r')
        e--;
    *ls = s;
    *le = e;
    return true;
}

static const char *skip_space(const char *s, const char *e)
{
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    return s;
}

/* Finds needle in [s, e), or NULL. */
static const char *find_in(const char *s, const char *e, const char *needle)
{
    size_t n = strlen(needle);
    for (; s + n <= e; s++)
        if (memcmp(s, needle, n) == 0)
            return s;
    return NULL;
}

/* ------------------------------------------------------------------------------------
 * SASS
 * ---------------------------------------------------------------------------------- */

static void sass_clear(evidence_sass *s)
{
    hk_free(s->function);
    hk_free(s->kernel);
    hk_free(s->arch);
    memset(s, 0, sizeof *s);
}

void evidence_sass_list_free(evidence_sass_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        sass_clear(&l->items[i]);
    hk_free(l->items);
    l->items = NULL;
    l->n = 0;
}

/* Width index of a load/store from its modifiers (".E.128.CONSTANT" -> 3). */
static int access_width(const char *mods, const char *end)
{
    int w = 1;
    while (mods < end) {
        const char *m = mods + 1, *dot = memchr(m, '.', (size_t)(end - m));
        const char *me = dot ? dot : end;
        size_t n = (size_t)(me - m);
        if ((n == 2 && (!memcmp(m, "U8", 2) || !memcmp(m, "S8", 2))) ||
            (n == 3 && (!memcmp(m, "U16", 3) || !memcmp(m, "S16", 3))))
            w = 0;
        else if (n == 2 && !memcmp(m, "64", 2))
            w = 2;
        else if (n == 3 && !memcmp(m, "128", 3))
            w = 3;
        else if (n == 3 && !memcmp(m, "256", 3))
            w = 4;
        mods = me;
    }
    return w;
}

static bool has_mod(const char *mods, const char *end, const char *name)
{
    size_t n = strlen(name);
    while (mods < end) {
        const char *m = mods + 1, *dot = memchr(m, '.', (size_t)(end - m));
        const char *me = dot ? dot : end;
        if ((size_t)(me - m) == n && !memcmp(m, name, n))
            return true;
        mods = me;
    }
    return false;
}

static bool op_is(const char *op, size_t n, const char *name)
{
    return strlen(name) == n && memcmp(op, name, n) == 0;
}

/* Counts one instruction: op[0..n) is the opcode, mods..mend its ".X.Y" modifiers. */
static void sass_count(evidence_sass *s, const char *op, size_t n, const char *mods, const char *mend)
{
    if (op_is(op, n, "NOP"))
        return;
    s->total++;
    /* Generic LD/ST (address space unknown to the compiler) almost always reach global
     * memory in kernels: counted with the global ones. */
    if (op_is(op, n, "LDG") || op_is(op, n, "LD")) {
        s->ldg[access_width(mods, mend)]++;
        if (has_mod(mods, mend, "CONSTANT"))
            s->ldg_constant++;
    } else if (op_is(op, n, "STG") || op_is(op, n, "ST")) {
        s->stg[access_width(mods, mend)]++;
    } else if (op_is(op, n, "LDGSTS")) {
        s->ldgsts++;
    } else if (op_is(op, n, "UBLKCP") || op_is(op, n, "UTMALDG") || op_is(op, n, "UTMASTG") ||
               op_is(op, n, "UBLKRED") || op_is(op, n, "UTMAREDG")) {
        s->tma++;
    } else if (op_is(op, n, "LDS")) {
        s->lds++;
    } else if (op_is(op, n, "STS")) {
        s->sts++;
    } else if (op_is(op, n, "LDSM")) {
        s->ldsm++;
    } else if (op_is(op, n, "LDL")) {
        s->ldl++;
    } else if (op_is(op, n, "STL")) {
        s->stl++;
    } else if (op_is(op, n, "ATOM") || op_is(op, n, "ATOMG") || op_is(op, n, "RED") ||
               op_is(op, n, "REDG")) {
        s->atom_global++;
    } else if (op_is(op, n, "ATOMS")) {
        s->atom_shared++;
    } else if (n >= 3 && find_in(op, op + n, "MMA")) {
        s->tensor++;
    } else if (op_is(op, n, "FFMA") || op_is(op, n, "FFMA2")) {
        s->ffma++;
    } else if (op_is(op, n, "FADD") || op_is(op, n, "FADD2")) {
        s->fadd++;
    } else if (op_is(op, n, "FMUL") || op_is(op, n, "FMUL2")) {
        s->fmul++;
    } else if (op_is(op, n, "MUFU")) {
        s->mufu++;
    } else if (op_is(op, n, "DFMA")) {
        s->dfma++;
    } else if (op_is(op, n, "DADD")) {
        s->dadd++;
    } else if (op_is(op, n, "DMUL")) {
        s->dmul++;
    } else if (op_is(op, n, "HFMA2")) {
        s->hfma2++;
    } else if (op_is(op, n, "BAR")) {
        s->bar++;
    } else if (op_is(op, n, "SHFL")) {
        s->shfl++;
    } else if (op_is(op, n, "BRA") || op_is(op, n, "BRX") || op_is(op, n, "JMP") ||
               op_is(op, n, "JMX")) {
        s->branch++;
    }
}

/* An instruction line is: an address comment ("/" "*0a30*" "/"), an optional '{' (dual
 * issue on old architectures), an optional predicate guard (@P0, @!P1, @!UPT), the
 * opcode with its modifiers, the operands, ';' and the encoding comment. Encoding-only
 * lines (a comment holding "0x000fe4...") have no address and are skipped. */
static bool sass_instruction(const char *s, const char *e, const char **op, size_t *n,
                             const char **mods, const char **mend)
{
    s = skip_space(s, e);
    if (e - s < 5 || s[0] != '/' || s[1] != '*')
        return false;
    const char *a = s + 2;
    while (a < e && isxdigit((unsigned char)*a))
        a++;
    if (a == s + 2 || e - a < 2 || a[0] != '*' || a[1] != '/')
        return false;
    const char *p = skip_space(a + 2, e);
    if (p < e && *p == '{')
        p = skip_space(p + 1, e);
    if (p < e && *p == '@') { /* predicate guard: @P0, @!P1, @!UPT */
        while (p < e && *p != ' ' && *p != '\t')
            p++;
        p = skip_space(p, e);
    }
    const char *o = p;
    while (p < e && (isalnum((unsigned char)*p) || *p == '_'))
        p++;
    if (p == o)
        return false;
    *op = o;
    *n = (size_t)(p - o);
    *mods = p;
    while (p < e && (*p == '.' || isalnum((unsigned char)*p) || *p == '_'))
        p++;
    *mend = p;
    return true;
}

static int sass_begin(evidence_sass_list *l, size_t *cap, const char *name, size_t name_len,
                      const char *arch)
{
    if (l->n >= EVIDENCE_MAX_KERNELS)
        return HK_ETOOBIG;
    if (l->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        evidence_sass *v = hk_realloc(l->items, nc * sizeof *v);
        if (!v)
            return HK_ENOMEM;
        l->items = v;
        *cap = nc;
    }
    evidence_sass *s = &l->items[l->n];
    memset(s, 0, sizeof *s);
    s->function = hk_strndup(name, name_len);
    s->arch = hk_strdup(arch);
    if (!s->function || !s->arch) {
        sass_clear(s);
        return HK_ENOMEM;
    }
    char *base = NULL;
    int rc = cc_demangle(s->function, NULL, &base);
    if (rc == HK_ENOMEM) {
        sass_clear(s);
        return HK_ENOMEM;
    }
    s->kernel = rc == HK_OK && base && *base ? base : hk_strdup(s->function);
    if (s->kernel != base)
        hk_free(base);
    if (!s->kernel) {
        sass_clear(s);
        return HK_ENOMEM;
    }
    l->n++;
    return HK_OK;
}

int evidence_sass_parse(const char *text, size_t len, evidence_sass_list *out)
{
    if (!text || !out)
        return HK_EINVAL;
    if (len > EVIDENCE_MAX_TEXT)
        return HK_ETOOBIG;
    size_t cap = 0;
    char arch[32] = "";
    const char *p = text, *end = text + len, *ls, *le;
    evidence_sass *cur = NULL;
    int rc = HK_OK;
    while (rc == HK_OK && next_line(&p, end, &ls, &le)) {
        const char *f = find_in(ls, le, "code for sm_");
        if (f) {
            const char *a = f + strlen("code for "), *ae = a;
            while (ae < le && (isalnum((unsigned char)*ae) || *ae == '_') && ae - a < 31)
                ae++;
            memcpy(arch, a, (size_t)(ae - a));
            arch[ae - a] = '\0';
            continue;
        }
        const char *t = skip_space(ls, le);
        if (le - t > 8 && !memcmp(t, "Function", 8)) {
            const char *c = skip_space(t + 8, le);
            if (c < le && *c == ':') {
                const char *name = skip_space(c + 1, le), *ne = le;
                while (ne > name && isspace((unsigned char)ne[-1]))
                    ne--;
                if (ne > name) {
                    rc = sass_begin(out, &cap, name, (size_t)(ne - name), arch);
                    cur = rc == HK_OK ? &out->items[out->n - 1] : NULL;
                }
                continue;
            }
        }
        const char *op, *mods, *mend;
        size_t n;
        if (cur && sass_instruction(ls, le, &op, &n, &mods, &mend))
            sass_count(cur, op, n, mods, mend);
    }
    if (rc == HK_OK && out->n == 0)
        rc = HK_EPARSE;
    return rc;
}

const evidence_sass *evidence_sass_find(const evidence_sass_list *l, const char *kernel,
                                        const char *arch)
{
    if (!l || !kernel)
        return NULL;
    for (size_t i = 0; i < l->n; i++) {
        const evidence_sass *s = &l->items[i];
        if (arch && strcmp(arch, s->arch) != 0)
            continue;
        if (!strcmp(s->kernel, kernel) || !strcmp(s->function, kernel))
            return s;
    }
    return NULL;
}

/* Sets key to a new value, reporting allocation failure (jansson's _new setters steal
 * the value even on failure). */
static int put(json_t *o, const char *key, json_t *v)
{
    return v && json_object_set_new(o, key, v) == 0 ? HK_OK : HK_ENOMEM;
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

int evidence_sass_json(const evidence_sass *s, json_t **out)
{
    *out = NULL;
    json_t *o = json_object();
    if (!o)
        return HK_ENOMEM;
    static const char *const widths[5] = { "8_16", "32", "64", "128", "256" };
    static const double bits[5] = { 12, 32, 64, 128, 256 }; /* 8/16 counted as their mean */
    int rc = put(o, "kernel", json_string(s->kernel));
    rc = rc ? rc : put(o, "function", json_string(s->function));
    rc = rc ? rc : put(o, "arch", json_string(s->arch));
    rc = rc ? rc : put(o, "instructions", json_integer(s->total));
    long loads = 0;
    double load_bits = 0;
    for (int w = 0; rc == HK_OK && w < 5; w++) {
        char k[32];
        snprintf(k, sizeof k, "ldg_%s", widths[w]);
        rc = put(o, k, json_integer(s->ldg[w]));
        snprintf(k, sizeof k, "stg_%s", widths[w]);
        rc = rc ? rc : put(o, k, json_integer(s->stg[w]));
        loads += s->ldg[w];
        load_bits += bits[w] * (double)s->ldg[w];
    }
    const struct {
        const char *key;
        long v;
    } counts[] = {
        { "ldg_constant", s->ldg_constant }, { "ldgsts", s->ldgsts }, { "tma", s->tma },
        { "lds", s->lds }, { "sts", s->sts }, { "ldsm", s->ldsm }, { "ldl", s->ldl },
        { "stl", s->stl }, { "atom_global", s->atom_global }, { "atom_shared", s->atom_shared },
        { "tensor", s->tensor }, { "ffma", s->ffma }, { "fadd", s->fadd }, { "fmul", s->fmul },
        { "mufu", s->mufu }, { "dfma", s->dfma }, { "dadd", s->dadd }, { "dmul", s->dmul },
        { "hfma2", s->hfma2 }, { "bar", s->bar }, { "shfl", s->shfl }, { "branch", s->branch },
    };
    for (size_t i = 0; rc == HK_OK && i < HK_ARRAY_LEN(counts); i++)
        rc = put(o, counts[i].key, json_integer(counts[i].v));
    rc = rc ? rc : put(o, "global_load_bits_avg", loads ? json_real(load_bits / (double)loads) : json_null());
    /* Local loads/stores are spills or local arrays; ptxas's evidence says which, under
     * "spills". One name for two facts made a report say both "spills false" and "true". */
    rc = rc ? rc : put(o, "local_memory", json_boolean(s->ldl + s->stl > 0));
    if (rc) {
        json_decref(o);
        return rc;
    }
    *out = o;
    return HK_OK;
}

/* ------------------------------------------------------------------------------------
 * argv builders
 * ---------------------------------------------------------------------------------- */

void evidence_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        hk_free(*a);
    hk_free(argv);
}

/* New argv from n strings (NULL entries are not allowed). */
static int argv_from(const char *const *items, size_t n, char ***out)
{
    *out = NULL;
    char **v = hk_calloc(n + 1, sizeof *v);
    if (!v)
        return HK_ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (!(v[i] = hk_strdup(items[i]))) {
            evidence_argv_free(v);
            return HK_ENOMEM;
        }
    *out = v;
    return HK_OK;
}

int evidence_cuobjdump_argv(const char *cuobjdump, const char *binary, char ***argv)
{
    if (!argv)
        return HK_EINVAL;
    *argv = NULL;
    if (!binary)
        return HK_EINVAL;
    const char *items[] = { cuobjdump ? cuobjdump : "cuobjdump", "--dump-sass", binary };
    return argv_from(items, HK_ARRAY_LEN(items), argv);
}

int evidence_ncu_argv(const char *ncu, const char *kernel, int launches,
                      const char *const *prog_argv, char ***argv)
{
    if (!argv)
        return HK_EINVAL;
    *argv = NULL;
    if (!prog_argv || !prog_argv[0])
        return HK_EINVAL;
    size_t np = 0;
    while (prog_argv[np])
        np++;
    char count[32];
    snprintf(count, sizeof count, "%d", launches > 0 ? launches : 1);
    const char *head[12];
    size_t n = 0;
    head[n++] = ncu ? ncu : "ncu";
    /* --clock-control none: measure at the clocks the benchmark saw, not ncu's locked
     * base clocks. The kernel filter matches the function name without parameters or
     * template arguments (ncu's default --kernel-name-base function). */
    head[n++] = "--clock-control";
    head[n++] = "none";
    head[n++] = "--csv";
    head[n++] = "--metrics";
    head[n++] = EVIDENCE_NCU_METRICS;
    if (kernel) {
        head[n++] = "--kernel-name";
        head[n++] = kernel;
    }
    head[n++] = "--launch-count";
    head[n++] = count;
    const char **all = hk_calloc(n + np, sizeof *all);
    if (!all)
        return HK_ENOMEM;
    memcpy(all, head, n * sizeof *all);
    memcpy(all + n, prog_argv, np * sizeof *all);
    int rc = argv_from(all, n + np, argv);
    hk_free(all);
    return rc;
}

/* ------------------------------------------------------------------------------------
 * Nsight Compute CSV
 * ---------------------------------------------------------------------------------- */

#define NCU_MAX_FIELDS 64
#define NCU_MAX_FIELD 4096

typedef struct {
    char *f[NCU_MAX_FIELDS];
    size_t n;
} csv_row;

static void row_free(csv_row *r)
{
    for (size_t i = 0; i < r->n; i++)
        hk_free(r->f[i]);
    r->n = 0;
}

/* Splits one CSV line ("a","b,c","d""e") into fields. HK_OK, HK_EPARSE (unterminated
 * quote, too many or too long fields), HK_ENOMEM. */
static int csv_split(const char *s, const char *e, csv_row *r)
{
    r->n = 0;
    char buf[NCU_MAX_FIELD];
    while (s <= e) {
        size_t n = 0;
        if (s < e && *s == '"') {
            s++;
            for (;;) {
                if (s >= e)
                    return HK_EPARSE;
                if (*s == '"') {
                    if (s + 1 < e && s[1] == '"') {
                        s++;
                    } else {
                        s++;
                        break;
                    }
                }
                if (n + 1 >= sizeof buf)
                    return HK_EPARSE;
                buf[n++] = *s++;
            }
        } else {
            while (s < e && *s != ',') {
                if (n + 1 >= sizeof buf)
                    return HK_EPARSE;
                buf[n++] = *s++;
            }
        }
        buf[n] = '\0';
        if (r->n >= NCU_MAX_FIELDS)
            return HK_EPARSE;
        if (!(r->f[r->n] = hk_strdup(buf)))
            return HK_ENOMEM;
        r->n++;
        if (s >= e)
            break;
        if (*s != ',')
            return HK_EPARSE;
        s++;
        if (s == e) { /* trailing comma: one more empty field */
            if (r->n >= NCU_MAX_FIELDS)
                return HK_EPARSE;
            if (!(r->f[r->n] = hk_strdup("")))
                return HK_ENOMEM;
            r->n++;
            break;
        }
    }
    return HK_OK;
}

static int col(const csv_row *h, const char *name)
{
    for (size_t i = 0; i < h->n; i++)
        if (!strcmp(h->f[i], name))
            return (int)i;
    return -1;
}

/* Base name of an ncu kernel name: "void ns::k<256>(const float *, int)" -> "k". */
static void ncu_base(const char *name, char *out, size_t outlen)
{
    const char *e = name;
    int depth = 0;
    while (*e && !(depth == 0 && (*e == '(' || *e == '<'))) {
        if (*e == '<')
            depth++;
        else if (*e == '>')
            depth--;
        e++;
    }
    while (e > name && e[-1] == ' ')
        e--;
    const char *b = e;
    while (b > name && b[-1] != ' ' && b[-1] != ':' && b[-1] != '*' && b[-1] != '&')
        b--;
    size_t n = (size_t)(e - b);
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, b, n);
    out[n] = '\0';
}

/* A metric value: thousands separators dropped; "n/a" and junk are NAN. */
static double ncu_value(const char *v)
{
    char buf[64];
    size_t n = 0;
    for (; *v && n + 1 < sizeof buf; v++)
        if (*v != ',' && *v != ' ')
            buf[n++] = *v;
    buf[n] = '\0';
    if (!n)
        return NAN;
    char *end = NULL;
    double d = strtod(buf, &end);
    return end && *end == '\0' && isfinite(d) ? d : NAN;
}

enum { NCU_DRAM, NCU_SM, NCU_OCC, NCU_DUR, NCU_N };

static int ncu_metric(const char *name)
{
    static const struct {
        const char *name;
        int which;
    } names[] = {
        { "dram__throughput.avg.pct_of_peak_sustained_elapsed", NCU_DRAM },
        { "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", NCU_DRAM },
        { "DRAM Throughput", NCU_DRAM },
        { "sm__throughput.avg.pct_of_peak_sustained_elapsed", NCU_SM },
        { "Compute (SM) Throughput", NCU_SM },
        { "SM Throughput", NCU_SM },
        { "sm__warps_active.avg.pct_of_peak_sustained_active", NCU_OCC },
        { "Achieved Occupancy", NCU_OCC },
        { "gpu__time_duration.sum", NCU_DUR },
        { "Duration", NCU_DUR },
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(names); i++)
        if (!strcmp(names[i].name, name))
            return names[i].which;
    return -1;
}

/* Milliseconds per unit of a duration; NAN for an unknown unit. */
static double duration_scale(const char *unit)
{
    if (!strcmp(unit, "nsecond") || !strcmp(unit, "ns"))
        return 1e-6;
    if (!strcmp(unit, "usecond") || !strcmp(unit, "us"))
        return 1e-3;
    if (!strcmp(unit, "msecond") || !strcmp(unit, "ms"))
        return 1.0;
    if (!strcmp(unit, "second") || !strcmp(unit, "s"))
        return 1e3;
    return NAN;
}

void evidence_ncu_clear(evidence_ncu *n)
{
    if (!n)
        return;
    hk_free(n->kernel);
    memset(n, 0, sizeof *n);
}

/* The last launch id seen per metric, so that a launch counts once per metric. */
typedef struct {
    double sum[NCU_N];
    int count[NCU_N];
    char last_id[NCU_N][32];
    char ids[32];
    int launches;
} ncu_acc;

int evidence_ncu_parse(const char *text, size_t len, const char *kernel, evidence_ncu *out,
                       char **why)
{
    if (why)
        *why = NULL;
    if (!text || !out)
        return HK_EINVAL;
    memset(out, 0, sizeof *out);
    out->dram_pct = out->sm_pct = out->occupancy_pct = out->duration_ms = NAN;
    if (len > EVIDENCE_MAX_TEXT)
        return HK_ETOOBIG;
    const char *p = text, *end = text + len, *ls, *le;
    const char *first_error = NULL, *first_error_end = NULL;
    csv_row head = { .n = 0 }, row = { .n = 0 };
    bool have_head = false;
    int c_id = -1, c_kernel = -1, c_metric = -1, c_unit = -1, c_value = -1;
    ncu_acc acc;
    memset(&acc, 0, sizeof acc);
    char want[256] = "";
    if (kernel)
        snprintf(want, sizeof want, "%s", kernel);
    int rc = HK_OK;
    while (rc == HK_OK && next_line(&p, end, &ls, &le)) {
        const char *t = skip_space(ls, le);
        if (!first_error && le - t > 9 && !memcmp(t, "==ERROR==", 9)) {
            first_error = t;
            first_error_end = le;
        }
        if (t >= le || *t != '"')
            continue;
        row_free(&row);
        int r = csv_split(t, le, &row);
        if (r == HK_ENOMEM)
            rc = r;
        if (r != HK_OK)
            continue;
        if (row.n > 0 && !strcmp(row.f[0], "ID") && col(&row, "Metric Name") >= 0) {
            row_free(&head);
            head = row;
            row.n = 0;
            have_head = true;
            c_id = col(&head, "ID");
            c_kernel = col(&head, "Kernel Name");
            c_metric = col(&head, "Metric Name");
            c_unit = col(&head, "Metric Unit");
            c_value = col(&head, "Metric Value");
            continue;
        }
        if (!have_head || c_kernel < 0 || c_value < 0 || row.n != head.n)
            continue;
        char base[256];
        ncu_base(row.f[c_kernel], base, sizeof base);
        if (!want[0])
            snprintf(want, sizeof want, "%s", base);
        if (strcmp(base, want) != 0)
            continue;
        if (!out->kernel && !(out->kernel = hk_strdup(row.f[c_kernel]))) {
            rc = HK_ENOMEM;
            break;
        }
        const char *id = c_id >= 0 ? row.f[c_id] : "";
        if (acc.launches == 0 || strncmp(acc.ids, id, sizeof acc.ids - 1) != 0) {
            acc.launches++;
            snprintf(acc.ids, sizeof acc.ids, "%s", id);
        }
        int m = ncu_metric(row.f[c_metric]);
        if (m < 0)
            continue;
        double v = ncu_value(row.f[c_value]);
        if (m == NCU_DUR)
            v *= duration_scale(c_unit >= 0 ? row.f[c_unit] : "");
        if (!isfinite(v) || !strncmp(acc.last_id[m], id, sizeof acc.last_id[m] - 1) ||
            (m != NCU_DUR && (v < 0 || v > 1000)))
            continue;
        snprintf(acc.last_id[m], sizeof acc.last_id[m], "%s", id);
        acc.sum[m] += v;
        acc.count[m]++;
    }
    row_free(&row);
    row_free(&head);
    if (rc == HK_OK && !have_head) {
        rc = HK_EPARSE;
        if (why && first_error && !(*why = hk_strndup(first_error, (size_t)(first_error_end - first_error))))
            rc = HK_ENOMEM;
    } else if (rc == HK_OK && acc.launches == 0) {
        rc = HK_ENOENT;
    }
    if (rc != HK_OK) {
        evidence_ncu_clear(out);
        out->dram_pct = out->sm_pct = out->occupancy_pct = out->duration_ms = NAN;
        return rc;
    }
    double *dst[NCU_N] = { &out->dram_pct, &out->sm_pct, &out->occupancy_pct, &out->duration_ms };
    for (int m = 0; m < NCU_N; m++)
        *dst[m] = acc.count[m] ? acc.sum[m] / acc.count[m] : NAN;
    out->launches = acc.launches;
    return HK_OK;
}

int evidence_ncu_json(const evidence_ncu *n, json_t **out)
{
    *out = NULL;
    json_t *o = json_object();
    if (!o)
        return HK_ENOMEM;
    int rc = put(o, "kernel", n->kernel ? json_string(n->kernel) : json_null());
    rc = rc ? rc : put(o, "launches", json_integer(n->launches));
    rc = rc ? rc : put(o, "dram_throughput_pct", num_or_null(n->dram_pct));
    rc = rc ? rc : put(o, "sm_throughput_pct", num_or_null(n->sm_pct));
    rc = rc ? rc : put(o, "achieved_occupancy_pct", num_or_null(n->occupancy_pct));
    rc = rc ? rc : put(o, "duration_ms", num_or_null(n->duration_ms));
    if (rc) {
        json_decref(o);
        return rc;
    }
    *out = o;
    return HK_OK;
}

/* ------------------------------------------------------------------------------------
 * roofline
 * ---------------------------------------------------------------------------------- */

static bool usable(double v)
{
    return isfinite(v) && v > 0;
}

int evidence_roofline_compute(double bytes, double flops, double time_ms,
                              double peak_bytes_per_s, double peak_flop_per_s,
                              evidence_roofline *out)
{
    evidence_roofline r = {
        .bytes = usable(bytes) ? bytes : NAN,
        .flops = usable(flops) ? flops : NAN,
        .time_ms = time_ms,
        .bytes_per_s = NAN, .flop_per_s = NAN,
        .peak_bytes_per_s = usable(peak_bytes_per_s) ? peak_bytes_per_s : NAN,
        .peak_flop_per_s = usable(peak_flop_per_s) ? peak_flop_per_s : NAN,
        .pct_of_peak_bandwidth = NAN, .pct_of_peak_flops = NAN,
        .intensity = NAN, .ridge = NAN, .compute_bound = false,
        .attainable_flop_per_s = NAN, .pct_of_bound = NAN, .floor_ms = NAN,
    };
    bool mem = usable(r.bytes) && usable(r.peak_bytes_per_s);
    bool comp = usable(r.flops) && usable(r.peak_flop_per_s);
    if (!usable(time_ms) || (!mem && !comp)) {
        *out = r;
        return HK_EINVAL;
    }
    double t = time_ms / 1e3;
    double floor_s = 0;
    if (usable(r.bytes)) {
        r.bytes_per_s = r.bytes / t;
        if (mem) {
            r.pct_of_peak_bandwidth = 100.0 * r.bytes_per_s / r.peak_bytes_per_s;
            floor_s = fmax(floor_s, r.bytes / r.peak_bytes_per_s);
        }
    }
    if (usable(r.flops)) {
        r.flop_per_s = r.flops / t;
        if (comp) {
            r.pct_of_peak_flops = 100.0 * r.flop_per_s / r.peak_flop_per_s;
            floor_s = fmax(floor_s, r.flops / r.peak_flop_per_s);
        }
    }
    if (usable(r.bytes) && usable(r.flops))
        r.intensity = r.flops / r.bytes;
    if (mem && comp) {
        r.ridge = r.peak_flop_per_s / r.peak_bytes_per_s;
        r.compute_bound = r.intensity >= r.ridge;
        r.attainable_flop_per_s = fmin(r.peak_flop_per_s, r.intensity * r.peak_bytes_per_s);
    } else {
        r.compute_bound = comp && !mem;
    }
    r.floor_ms = floor_s * 1e3;
    r.pct_of_bound = 100.0 * floor_s / t;
    *out = r;
    return HK_OK;
}

int evidence_roofline_json(const evidence_roofline *r, json_t **out)
{
    *out = NULL;
    json_t *o = json_object();
    if (!o)
        return HK_ENOMEM;
    bool known = isfinite(r->pct_of_bound);
    const struct {
        const char *key;
        double v;
    } nums[] = {
        { "bytes", r->bytes },
        { "flops", r->flops },
        { "time_ms", r->time_ms },
        { "bytes_per_s", r->bytes_per_s },
        { "flop_per_s", r->flop_per_s },
        { "peak_bytes_per_s", r->peak_bytes_per_s },
        { "peak_flop_per_s", r->peak_flop_per_s },
        { "pct_of_peak_bandwidth", r->pct_of_peak_bandwidth },
        { "pct_of_peak_flops", r->pct_of_peak_flops },
        { "intensity_flop_per_byte", r->intensity },
        { "ridge_flop_per_byte", r->ridge },
        { "attainable_flop_per_s", r->attainable_flop_per_s },
        { "pct_of_bound", r->pct_of_bound },
        { "floor_ms", r->floor_ms },
    };
    int rc = put(o, "bound", known ? json_string(r->compute_bound ? "compute" : "memory") : json_null());
    for (size_t i = 0; rc == HK_OK && i < HK_ARRAY_LEN(nums); i++)
        rc = put(o, nums[i].key, num_or_null(nums[i].v));
    if (rc) {
        json_decref(o);
        return rc;
    }
    *out = o;
    return HK_OK;
}
