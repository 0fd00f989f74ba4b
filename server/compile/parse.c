/* Reading what nvcc, ptxas, cudafe, the host gcc and hipcc/clang print into
 * diagnostics and per-kernel resource usage. Line formats are taken from real output
 * (tests/data/compile/ holds it); anything unrecognised is skipped, never an error. */
#include "compile/compile.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/hk.h"

#define CC_MAX_DIAGS 2000     /* a file with more errors than this is not worth more */
#define CC_MAX_RES 4096
#define CC_MAX_LINE 8192      /* longer lines are cut (template names can be huge) */

const char *cc_backend_name(enum cc_backend b) { return b == CC_DCU ? "dcu" : "nvidia"; }

bool cc_path_is_hip(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n >= 4 && strcmp(path + n - 4, ".hip") == 0;
}

enum cc_backend cc_backend_of_path(const char *path)
{
    return cc_path_is_hip(path) ? CC_DCU : CC_NVIDIA;
}

const char *cc_compiler_label(enum cc_backend b) { return b == CC_DCU ? "hipcc" : "nvcc"; }

bool cc_target_is_dcu(const char *t)
{
    return t && (!strncmp(t, "dcu", 3) || !strncmp(t, "amd", 3) || !strncmp(t, "gfx", 3));
}

bool cc_resource_spills(const cc_resource *r)
{
    return r->spill_stores > 0 || r->spill_loads > 0 || r->vgpr_spills > 0 || r->sgpr_spills > 0;
}

static void diag_free(cc_diag *d)
{
    hk_free(d->file);
    hk_free(d->message);
    hk_free(d->kernel);
}

static void res_free(cc_resource *r)
{
    hk_free(r->kernel);
    hk_free(r->base_name);
    hk_free(r->mangled);
    hk_free(r->arch);
}

void cc_result_free(cc_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_diags; i++)
        diag_free(&r->diags[i]);
    for (size_t i = 0; i < r->n_res; i++)
        res_free(&r->res[i]);
    hk_free(r->diags);
    hk_free(r->res);
    hk_free(r->output);
    memset(r, 0, sizeof *r);
}

/* State carried across lines of one output. */
struct pstate {
    cc_result *r;
    long entry;       /* resource index of the last "Compiling entry function", or -1 */
    long props;       /* resource index of the last "Function properties for", or -1 */
    long last_diag;   /* index of the last located diagnostic, or -1 (for notes) */
};

/* ---- small string helpers over (p, n) line slices ---- */

static bool starts(const char *p, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(p, prefix, k) == 0;
}

static const char *find(const char *p, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; k <= n && i <= n - k; i++)
        if (memcmp(p + i, needle, k) == 0)
            return p + i;
    return NULL;
}

/* Reads a non-negative decimal at *p (bounded by end), advancing; -1 if none. */
static long read_num(const char **p, const char *end)
{
    const char *s = *p;
    long v = 0;
    if (s >= end || !isdigit((unsigned char)*s))
        return -1;
    while (s < end && isdigit((unsigned char)*s)) {
        if (v < 100000000L)
            v = v * 10 + (*s - '0');
        s++;
    }
    *p = s;
    return v;
}

static int clamp_int(long v) { return v < 0 ? 0 : v > 1000000000L ? 1000000000 : (int)v; }

/* ---- building the result ---- */

static int add_diag(struct pstate *st, const char *file, size_t file_len, long line, long col,
                    enum cc_severity sev, const char *msg, size_t msg_len, const char *kernel)
{
    cc_result *r = st->r;
    /* Trim trailing blanks so host and device copies of one message compare equal. */
    while (msg_len && isspace((unsigned char)msg[msg_len - 1]))
        msg_len--;
    for (size_t i = 0; i < r->n_diags; i++) {
        const cc_diag *d = &r->diags[i];
        bool same_file = file ? (d->file && strlen(d->file) == file_len &&
                                 memcmp(d->file, file, file_len) == 0)
                              : d->file == NULL;
        if (same_file && d->line == line && d->col == col && d->severity == sev &&
            strlen(d->message) == msg_len && memcmp(d->message, msg, msg_len) == 0) {
            if (file)
                st->last_diag = (long)i;
            return HK_OK;
        }
    }
    if (r->n_diags >= CC_MAX_DIAGS)
        return HK_OK;
    cc_diag *nd = hk_realloc(r->diags, (r->n_diags + 1) * sizeof *nd);
    if (!nd)
        return HK_ENOMEM;
    r->diags = nd;
    cc_diag d = {0};
    d.line = clamp_int(line);
    d.col = clamp_int(col);
    d.severity = sev;
    d.message = hk_strndup(msg, msg_len);
    d.file = file ? hk_strndup(file, file_len) : NULL;
    d.kernel = kernel ? hk_strdup(kernel) : NULL;
    if (!d.message || (file && !d.file) || (kernel && !d.kernel)) {
        diag_free(&d);
        return HK_ENOMEM;
    }
    r->diags[r->n_diags] = d;
    if (file)
        st->last_diag = (long)r->n_diags;
    r->n_diags++;
    return HK_OK;
}

/* Demangles into kernel/base_name, falling back to the mangled name itself. */
static int fill_names(const char *mangled, char **kernel, char **base)
{
    int rc = cc_demangle(mangled, kernel, base);
    if (rc == HK_EPARSE) {
        *kernel = hk_strdup(mangled);
        *base = hk_strdup(mangled);
        if (!*kernel || !*base) {
            hk_free(*kernel);
            hk_free(*base);
            *kernel = *base = NULL;
            return HK_ENOMEM;
        }
        return HK_OK;
    }
    return rc;
}

/* Appends a resource record for mangled (and arch, may be NULL); index in *idx. */
static int add_res(struct pstate *st, const char *mangled, size_t mlen, const char *arch,
                   size_t alen, long *idx)
{
    cc_result *r = st->r;
    *idx = -1;
    if (r->n_res >= CC_MAX_RES)
        return HK_OK;
    cc_resource *nr = hk_realloc(r->res, (r->n_res + 1) * sizeof *nr);
    if (!nr)
        return HK_ENOMEM;
    r->res = nr;
    cc_resource x = {0};
    x.mangled = hk_strndup(mangled, mlen);
    x.arch = arch ? hk_strndup(arch, alen) : NULL;
    if (!x.mangled || (arch && !x.arch) || fill_names(x.mangled, &x.kernel, &x.base_name)) {
        res_free(&x);
        return HK_ENOMEM;
    }
    r->res[r->n_res] = x;
    *idx = (long)r->n_res++;
    return HK_OK;
}

/* The bare identifier of the first '...'-quoted mangled name in the line, or NULL. */
static char *quoted_kernel(const char *p, size_t n)
{
    const char *q = memchr(p, '\'', n);
    if (!q)
        return NULL;
    const char *e = memchr(q + 1, '\'', (size_t)(p + n - q - 1));
    if (!e || e == q + 1)
        return NULL;
    char *m = hk_strndup(q + 1, (size_t)(e - q - 1));
    if (!m)
        return NULL;
    char *k = NULL;
    if (cc_demangle(m, NULL, &k) != HK_OK)
        k = NULL;
    hk_free(m);
    return k;
}

/* ---- nvcc / ptxas ---- */

/* "ptxas info    : Used 12 registers, used 1 barriers, 4096 bytes smem, 372 bytes cmem[0]" */
static void parse_used(cc_resource *x, const char *p, const char *end)
{
    while (p < end) {
        while (p < end && (*p == ' ' || *p == ','))
            p++;
        const char *item = p;
        while (p < end && *p != ',')
            p++;
        size_t n = (size_t)(p - item);
        const char *s = item;
        if (starts(s, n, "Used ") || starts(s, n, "used ")) {
            s += 5;
            long v = read_num(&s, item + n);
            if (v >= 0 && starts(s, (size_t)(item + n - s), " register"))
                x->registers = clamp_int(v);
            else if (v >= 0 && starts(s, (size_t)(item + n - s), " barrier"))
                x->barriers = clamp_int(v);
            continue;
        }
        long v = read_num(&s, item + n);
        size_t rest = (size_t)(item + n - s);
        if (v < 0)
            continue;
        if (starts(s, rest, " bytes smem"))
            x->smem_static = clamp_int(v);
        else if (starts(s, rest, " bytes cmem[0]"))
            x->cmem = clamp_int(v);
    }
}

/* "    0 bytes stack frame, 804 bytes spill stores, 880 bytes spill loads" */
static bool parse_frame(cc_resource *x, const char *p, const char *end)
{
    while (p < end && *p == ' ')
        p++;
    long stack = read_num(&p, end);
    if (stack < 0 || !starts(p, (size_t)(end - p), " bytes stack frame, ")) /* i18n: not for people (ptxas's words, read) */
        return false;
    p += strlen(" bytes stack frame, "); /* i18n: not for people */
    long st = read_num(&p, end);
    if (st < 0 || !starts(p, (size_t)(end - p), " bytes spill stores, ")) /* i18n: not for people */
        return false;
    p += strlen(" bytes spill stores, "); /* i18n: not for people */
    long ld = read_num(&p, end);
    if (ld < 0)
        return false;
    if (x) {
        x->stack = clamp_int(stack);
        x->spill_stores = clamp_int(st);
        x->spill_loads = clamp_int(ld);
    }
    return true;
}

/* nvcc front end: "file.cu(12): error: msg", "file.cu(4): warning #177-D: msg".
 * Returns true when the line was one. */
static int parse_cudafe(struct pstate *st, const char *p, size_t n, bool *matched)
{
    static const struct { const char *tag; enum cc_severity sev; } tags[] = {
        {"): error", CC_ERROR}, {"): catastrophic error", CC_ERROR},
        {"): internal error", CC_ERROR}, {"): warning", CC_WARNING}, {"): remark", CC_NOTE},
    };
    *matched = false;
    const char *open = NULL;
    for (size_t k = 0; k < HK_ARRAY_LEN(tags) && !open; k++) {
        const char *t = find(p, n, tags[k].tag);
        if (!t)
            continue;
        /* Walk back over digits to the '(' that starts the line number. */
        const char *d = t;
        while (d > p && isdigit((unsigned char)d[-1]))
            d--;
        if (d == t || d == p || d[-1] != '(')
            continue;
        const char *s = d;
        long line = read_num(&s, t);
        const char *after = t + strlen(tags[k].tag);
        const char *end = p + n;
        char num[32] = "";
        if (after < end && *after == ' ' && after + 1 < end && after[1] == '#') {
            /* " #177-D" */
            const char *ns = after + 1, *ne = ns;
            while (ne < end && *ne != ':' && ne - ns < 30)
                ne++;
            memcpy(num, ns, (size_t)(ne - ns));
            num[ne - ns] = '\0';
            after = ne;
        }
        if (after >= end || *after != ':')
            continue;
        after++;
        while (after < end && *after == ' ')
            after++;
        open = d - 1;
        *matched = true;
        char *msg = num[0] ? hk_asprintf("%.*s [%s]", (int)(end - after), after, num)
                           : hk_strndup(after, (size_t)(end - after));
        if (!msg)
            return HK_ENOMEM;
        int rc = add_diag(st, p, (size_t)(open - p), line, 0, tags[k].sev, msg, strlen(msg),
                          NULL);
        hk_free(msg);
        return rc;
    }
    return HK_OK;
}

/* "          detected during instantiation of "..." at line 13 [of FILE]" and the
 * multi-line "detected during:\n  instantiation of ... at line 13" form: a note at the
 * instantiation, attached to the file of the error it explains. */
static int parse_instantiation(struct pstate *st, const char *p, size_t n, bool *matched)
{
    *matched = false;
    const char *s = p, *end = p + n;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s == p || st->last_diag < 0)
        return HK_OK;
    size_t rest = (size_t)(end - s);
    if (starts(s, rest, "detected during "))
        s += strlen("detected during ");
    rest = (size_t)(end - s);
    if (!starts(s, rest, "instantiation of ") && !starts(s, rest, "implicit generation of ")) /* i18n: not for people (nvcc's words, read) */
        return HK_OK;
    const char *at = NULL;
    for (const char *q = find(s, rest, " at line "); q; q = find(q + 1, (size_t)(end - q - 1), " at line "))
        at = q;
    if (!at)
        return HK_OK;
    const char *num = at + strlen(" at line ");
    long line = read_num(&num, end);
    if (line <= 0)
        return HK_OK;
    const char *file = st->r->diags[st->last_diag].file;
    size_t flen = file ? strlen(file) : 0;
    if (starts(num, (size_t)(end - num), " of ")) {
        file = num + 4;
        flen = (size_t)(end - file);
        if (flen >= 2 && file[0] == '"' && file[flen - 1] == '"') {
            file++;
            flen -= 2;
        }
    }
    *matched = true;
    long keep = st->last_diag;
    char *f = file ? hk_strndup(file, flen) : NULL;
    if (file && !f)
        return HK_ENOMEM;
    int rc = add_diag(st, f, flen, line, 0, CC_NOTE, s, (size_t)(at - s), NULL);
    hk_free(f);
    st->last_diag = keep; /* further notes still explain the same error */
    return rc;
}

/* gcc/clang style "file:12:5: error: msg" (column optional). sev_out: set when matched. */
static bool split_gnu(const char *p, size_t n, const char **file_end, long *line, long *col,
                      enum cc_severity *sev, bool *remark, const char **msg)
{
    static const struct { const char *tag; enum cc_severity sev; bool remark; } tags[] = {
        {" fatal error: ", CC_ERROR, false}, {" error: ", CC_ERROR, false},
        {" warning: ", CC_WARNING, false}, {" note: ", CC_NOTE, false},
        {" remark: ", CC_NOTE, true},
    };
    const char *end = p + n;
    for (size_t k = 0; k < HK_ARRAY_LEN(tags); k++) {
        const char *t = find(p, n, tags[k].tag);
        if (!t || t == p || t[-1] != ':')
            continue;
        /* Before ": tag" comes ":LINE" or ":LINE:COL". */
        const char *q = t - 1;
        const char *d = q;
        while (d > p && isdigit((unsigned char)d[-1]))
            d--;
        if (d == q || d == p || d[-1] != ':')
            continue;
        const char *s = d;
        long a = read_num(&s, q);
        const char *fe = d - 1;
        long b = -1;
        const char *d2 = fe;
        while (d2 > p && isdigit((unsigned char)d2[-1]))
            d2--;
        if (d2 != fe && d2 > p && d2[-1] == ':') {
            const char *s2 = d2;
            b = read_num(&s2, fe);
            fe = d2 - 1;
        }
        if (fe == p)
            continue;
        *file_end = fe;
        if (b >= 0) {
            *line = b;
            *col = a;
        } else {
            *line = a;
            *col = 0;
        }
        *sev = tags[k].sev;
        *remark = tags[k].remark;
        *msg = t + strlen(tags[k].tag);
        if (*msg > end)
            *msg = end;
        return true;
    }
    return false;
}

/* "nvcc fatal   : msg", "ptxas error   : msg", "clang: error: msg": tool messages
 * with no location. */
static int parse_tool_line(struct pstate *st, const char *p, size_t n, bool *matched)
{
    static const char *tools[] = {"nvcc", "ptxas", "nvlink", "cicc", "clang++", "clang",
                                  "hipcc", "lld", "ld.lld", "fatbinary", "cudafe++"};
    *matched = false;
    const char *end = p + n;
    for (size_t k = 0; k < HK_ARRAY_LEN(tools); k++) {
        size_t tl = strlen(tools[k]);
        if (!starts(p, n, tools[k]))
            continue;
        const char *s = p + tl;
        if (s < end && *s == '-') /* clang-15 */
            while (s < end && (*s == '-' || isdigit((unsigned char)*s)))
                s++;
        const char *word = s;
        while (word < end && *word == ' ')
            word++;
        if (word < end && *word == ':') { /* "clang: error: msg" */
            word++;
            while (word < end && *word == ' ')
                word++;
        }
        enum cc_severity sev;
        const char *w = word;
        size_t rest = (size_t)(end - w);
        if (starts(w, rest, "fatal"))
            sev = CC_ERROR, w += 5;
        else if (starts(w, rest, "error"))
            sev = CC_ERROR, w += 5;
        else if (starts(w, rest, "warning"))
            sev = CC_WARNING, w += 7;
        else
            return HK_OK; /* "ptxas info", or not a tool line */
        while (w < end && *w == ' ')
            w++;
        if (w >= end || *w != ':')
            return HK_OK;
        w++;
        while (w < end && *w == ' ')
            w++;
        *matched = true;
        char *kernel = NULL;
        if (k == 1) /* ptxas names the entry function: place it on the kernel */
            kernel = quoted_kernel(w, (size_t)(end - w));
        char *msg = hk_asprintf("%s: %.*s", tools[k], (int)(end - w), w);
        int rc = msg ? add_diag(st, NULL, 0, 0, 0, sev, msg, strlen(msg), kernel) : HK_ENOMEM;
        hk_free(msg);
        hk_free(kernel);
        return rc;
    }
    return HK_OK;
}

static int parse_ptxas_info(struct pstate *st, const char *p, size_t n, bool *matched)
{
    const char *end = p + n;
    *matched = false;
    if (!starts(p, n, "ptxas info"))
        return HK_OK;
    const char *s = memchr(p, ':', n);
    if (!s)
        return HK_OK;
    s++;
    while (s < end && *s == ' ')
        s++;
    size_t rest = (size_t)(end - s);
    *matched = true;
    if (starts(s, rest, "Compiling entry function '")) { /* i18n: not for people */
        const char *m = s + strlen("Compiling entry function '"); /* i18n: not for people */
        const char *me = memchr(m, '\'', (size_t)(end - m));
        if (!me)
            return HK_OK;
        const char *arch = NULL;
        size_t alen = 0;
        const char *f = find(me, (size_t)(end - me), " for '");
        if (f) {
            arch = f + 6;
            const char *ae = memchr(arch, '\'', (size_t)(end - arch));
            alen = ae ? (size_t)(ae - arch) : 0;
            if (!alen)
                arch = NULL;
        }
        long idx;
        int rc = add_res(st, m, (size_t)(me - m), arch, alen, &idx);
        st->entry = idx;
        st->props = -1;
        return rc;
    }
    if (starts(s, rest, "Function properties for ")) { /* i18n: not for people */
        const char *m = s + strlen("Function properties for "); /* i18n: not for people */
        size_t ml = (size_t)(end - m);
        while (ml && m[ml - 1] == ' ')
            ml--;
        /* Only entry functions are kernels; device functions' frames are skipped. */
        st->props = -1;
        for (size_t i = st->r->n_res; i-- > 0;) {
            const char *mg = st->r->res[i].mangled;
            if (strlen(mg) == ml && memcmp(mg, m, ml) == 0) {
                st->props = (long)i;
                break;
            }
        }
        return HK_OK;
    }
    if (starts(s, rest, "Used ") && st->entry >= 0) {
        parse_used(&st->r->res[st->entry], s, end);
        return HK_OK;
    }
    return HK_OK;
}

static int parse_nvidia_line(struct pstate *st, const char *p, size_t n)
{
    bool m;
    int rc = parse_ptxas_info(st, p, n, &m);
    if (rc || m)
        return rc;
    if (parse_frame(NULL, p, p + n)) {
        if (st->props >= 0)
            parse_frame(&st->r->res[st->props], p, p + n);
        return HK_OK;
    }
    rc = parse_tool_line(st, p, n, &m);
    if (rc || m)
        return rc;
    rc = parse_cudafe(st, p, n, &m);
    if (rc || m)
        return rc;
    rc = parse_instantiation(st, p, n, &m);
    if (rc || m)
        return rc;
    /* The host compiler (gcc) and preprocessor: "file.cu:4:2: error: msg". */
    const char *fe, *msg;
    long line, col;
    enum cc_severity sev;
    bool remark;
    if (split_gnu(p, n, &fe, &line, &col, &sev, &remark, &msg) && !remark)
        return add_diag(st, p, (size_t)(fe - p), line, col, sev, msg, (size_t)(p + n - msg), NULL);
    return HK_OK;
}

/* ---- hipcc / clang ---- */

/* One "kernel-resource-usage" remark body, e.g. "    VGPRs: 24". */
static int parse_amd_remark(struct pstate *st, const char *file, size_t flen, long line,
                            const char *msg, const char *end)
{
    static const char tag[] = " [-Rpass-analysis=kernel-resource-usage]";
    size_t n = (size_t)(end - msg);
    const char *t = find(msg, n, tag);
    if (!t)
        return HK_OK; /* some other remark */
    end = t;
    while (msg < end && *msg == ' ')
        msg++;
    n = (size_t)(end - msg);
    (void)file;
    (void)flen;
    if (starts(msg, n, "Function Name: ")) {
        const char *m = msg + strlen("Function Name: ");
        long idx;
        int rc = add_res(st, m, (size_t)(end - m), NULL, 0, &idx);
        st->entry = idx;
        if (idx >= 0)
            st->r->res[idx].line = clamp_int(line);
        return rc;
    }
    if (st->entry < 0)
        return HK_OK;
    cc_resource *x = &st->r->res[st->entry];
    static const struct { const char *key; size_t off; } keys[] = {
        {"SGPRs: ", offsetof(cc_resource, sgprs)},
        {"VGPRs: ", offsetof(cc_resource, registers)},
        {"AGPRs: ", offsetof(cc_resource, agprs)},
        {"ScratchSize [bytes/lane]: ", offsetof(cc_resource, stack)},
        {"Occupancy [waves/SIMD]: ", offsetof(cc_resource, waves_per_simd)},
        {"SGPRs Spill: ", offsetof(cc_resource, sgpr_spills)},
        {"VGPRs Spill: ", offsetof(cc_resource, vgpr_spills)},
        {"LDS Size [bytes/block]: ", offsetof(cc_resource, smem_static)},
    };
    for (size_t k = 0; k < HK_ARRAY_LEN(keys); k++) {
        if (!starts(msg, n, keys[k].key))
            continue;
        const char *v = msg + strlen(keys[k].key);
        long val = read_num(&v, end);
        if (val >= 0)
            *(int *)((char *)x + keys[k].off) = clamp_int(val);
        break;
    }
    return HK_OK;
}

/* "remark: FILE:LINE:COL: msg": how clang prints a backend remark when the backend runs
 * apart from the front end (-save-temps, which the referee's DCU image build uses: no
 * source manager there). *file_end, *line, *msg as split_gnu. */
static bool split_backend_remark(const char *p, size_t n, const char **file_end, long *line,
                                 const char **msg)
{
    static const char tag[] = "remark: ";
    if (n <= sizeof tag - 1 || memcmp(p, tag, sizeof tag - 1) != 0)
        return false;
    const char *f = p + sizeof tag - 1, *end = p + n;
    for (const char *c = f; c < end; c++) {
        if (*c != ':' || c == f)
            continue;
        const char *d = c + 1, *l0 = d;
        while (d < end && isdigit((unsigned char)*d))
            d++;
        if (d == l0 || d >= end || *d != ':')
            continue;
        const char *e = d + 1, *c0 = e;
        while (e < end && isdigit((unsigned char)*e))
            e++;
        if (e == c0 || end - e < 2 || e[0] != ':' || e[1] != ' ')
            continue;
        const char *s = l0;
        *line = read_num(&s, d);
        *file_end = c;
        *msg = e + 2;
        return true;
    }
    return false;
}

static int parse_dcu_line(struct pstate *st, const char *p, size_t n)
{
    bool m;
    const char *fe, *msg;
    long line, col;
    enum cc_severity sev;
    bool remark;
    if (split_backend_remark(p, n, &fe, &line, &msg)) {
        const char *f = p + 8; /* after "remark: " */
        return parse_amd_remark(st, f, (size_t)(fe - f), line, msg, p + n);
    }
    if (split_gnu(p, n, &fe, &line, &col, &sev, &remark, &msg)) {
        if (remark)
            return parse_amd_remark(st, p, (size_t)(fe - p), line, msg, p + n);
        return add_diag(st, p, (size_t)(fe - p), line, col, sev, msg, (size_t)(p + n - msg), NULL);
    }
    return parse_tool_line(st, p, n, &m);
}

int cc_parse_output(enum cc_backend backend, const char *text, size_t len, cc_result *r)
{
    struct pstate st = {r, -1, -1, -1};
    const char *p = text, *end = text ? text + len : NULL;
    int rc = HK_OK;
    while (p && p < end && rc == HK_OK) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t n = (size_t)(le - p);
        if (n && p[n - 1] == '\r')
            n--;
        if (n > CC_MAX_LINE)
            n = CC_MAX_LINE;
        if (n && !memchr(p, '\0', n))
            rc = backend == CC_DCU ? parse_dcu_line(&st, p, n) : parse_nvidia_line(&st, p, n);
        p = nl ? nl + 1 : end;
    }
    return rc;
}
