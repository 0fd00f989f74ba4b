/* Command-form measurement: private workspace copy, kernel swap, the user's build and run
 * commands through the runner, correctness gated on exit status and PASS/FAIL output, and
 * the named kernel's device time read from the CUPTI records libhk_cupti.so writes. The
 * program's wall clock is recorded for the report but never used as the time. */
#include "measure/cmdform.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "compile/compile.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "core/log.h"

#define COPY_MAX_DEPTH 128
#define RECORDS_MAX_PIDS 4096
#define RECORDS_MAX_NAMES 256   /* distinct matched names kept */
#define OUTPUT_QUOTE_LINES 12   /* output lines quoted in a failed run's details */
#define BUILD_QUOTE_LINES 20    /* compiler lines quoted for a failed build */
#define MIN_RUN_TIMEOUT_MS 1000
#define CUPTI_BUILD_TIMEOUT_MS 120000

static const char *const default_skip[] = { ".git", ".hg", ".svn", "build", "build-*", "build_*",
                                            "cmake-build-*", "__pycache__", ".cache", NULL };

static const char *const status_names[] = {
    [CMDFORM_OK] = "ok",
    [CMDFORM_WORKSPACE_ERROR] = "workspace_error",
    [CMDFORM_SWAP_ERROR] = "swap_error",
    [CMDFORM_BUILD_ERROR] = "build_error",
    [CMDFORM_BUILD_TIMEOUT] = "build_timeout",
    [CMDFORM_RUN_FAILED] = "run_failed",
    [CMDFORM_RUN_CRASHED] = "run_crashed",
    [CMDFORM_RUN_TIMEOUT] = "run_timeout",
    [CMDFORM_FAIL_OUTPUT] = "fail_output",
    [CMDFORM_NO_PASS_OUTPUT] = "no_pass_output",
    [CMDFORM_RESOURCE_LIMIT] = "resource_limit",
    [CMDFORM_NO_CUPTI] = "no_cupti",
    [CMDFORM_NOT_LAUNCHED] = "not_launched",
    [CMDFORM_RECORDS_ERROR] = "records_error",
    [CMDFORM_HOST_CODE] = "host_code",
};

const char *cmdform_status_name(enum cmdform_status st)
{
    if ((unsigned)st < HK_ARRAY_LEN(status_names) && status_names[st])
        return status_names[st];
    return "unknown";
}

enum measure_reason cmdform_status_reason(enum cmdform_status st)
{
    switch (st) {
    case CMDFORM_OK: return MEASURE_OK;
    case CMDFORM_BUILD_ERROR:
    case CMDFORM_BUILD_TIMEOUT: return MEASURE_COMPILE_ERROR;
    case CMDFORM_RUN_FAILED:
    case CMDFORM_FAIL_OUTPUT:
    case CMDFORM_NO_PASS_OUTPUT: return MEASURE_WRONG_ANSWER;
    case CMDFORM_RUN_CRASHED: return MEASURE_CRASH;
    case CMDFORM_RUN_TIMEOUT: return MEASURE_TIMEOUT;
    case CMDFORM_RESOURCE_LIMIT: return MEASURE_RESOURCE_LIMIT;
    case CMDFORM_NO_CUPTI: return MEASURE_NO_GPU;
    case CMDFORM_HOST_CODE: return MEASURE_HOST_CODE;
    default: return MEASURE_HARNESS_ERROR;
    }
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool stopped(const cmdform_options *o)
{
    return o && o->stop && *o->stop;
}

/* A details sentence, capped at CMDFORM_MAX_DETAILS (the store keeps it). */
/* A sentence of the message table in English: what this file writes is stored with the
 * version or the episode and said again in the user's language where it is shown
 * (hk_tr_said, docs/i18n.md). */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

static char *sentence(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *sentence(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *out = hk_strndup(s, n > CMDFORM_MAX_DETAILS ? CMDFORM_MAX_DETAILS : n);
    free(s); /* from vasprintf: libc's allocator, not the seam */
    return out;
}

/* ---- workspace copy ---- */

bool cmdform_skipped(const cmdform_options *o, const char *name)
{
    const char *const *pats = o && o->skip ? o->skip : default_skip;
    for (size_t i = 0; pats[i]; i++)
        if (fnmatch(pats[i], name, FNM_PERIOD) == 0 || strcmp(pats[i], name) == 0)
            return true;
    return false;
}

typedef struct {
    const cmdform_options *o;
    uint64_t max_bytes, bytes;
    size_t max_files, files;
    char *why;
} copy_ctx;

static int copy_fail(copy_ctx *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int copy_fail(copy_ctx *c, int rc, const char *fmt, ...)
{
    if (!c->why) {
        va_list ap;
        va_start(ap, fmt);
        char *s = NULL;
        if (vasprintf(&s, fmt, ap) >= 0 && s) {
            c->why = hk_strdup(s);
            free(s);
        }
        va_end(ap);
    }
    return rc;
}

static int copy_file(copy_ctx *c, const char *src, const char *dst, const struct stat *st)
{
    int rc = HK_OK, in = -1, outfd = -1;
    char buf[1 << 16];
    if ((in = open(src, O_RDONLY | O_CLOEXEC)) < 0) {
        rc = copy_fail(c, HK_EIO, EN(CF_CANNOT_READ), src, strerror(errno));
        goto out;
    }
    /* owner read/write always: the swap rewrites a copied file and cleanup removes them all */
    mode_t mode = (st->st_mode & 07777) | S_IRUSR | S_IWUSR;
    if ((outfd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)) < 0) {
        rc = copy_fail(c, HK_EIO, EN(CF_CANNOT_CREATE), dst, strerror(errno));
        goto out;
    }
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = copy_fail(c, HK_EIO, EN(CF_CANNOT_READ), src, strerror(errno));
            goto out;
        }
        if (n == 0)
            break;
        c->bytes += (uint64_t)n;
        if (c->bytes > c->max_bytes) { /* the file grew since stat */
            rc = copy_fail(c, HK_ETOOBIG, EN(CF_WS_OVER),
                           (unsigned long long)c->max_bytes, src);
            goto out;
        }
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(outfd, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                rc = copy_fail(c, HK_EIO, EN(CF_CANNOT_WRITE), dst, strerror(errno));
                goto out;
            }
            off += w;
        }
    }
    /* times kept, so a make-style build sees the same up-to-date files as in the original */
    struct timespec ts[2] = { st->st_atim, st->st_mtim };
    futimens(outfd, ts);
out:
    if (in >= 0)
        close(in);
    if (outfd >= 0 && close(outfd) != 0 && rc == HK_OK)
        rc = copy_fail(c, HK_EIO, EN(CF_CANNOT_WRITE), dst, strerror(errno));
    return rc;
}

static int copy_dir(copy_ctx *c, const char *src, const char *dst, mode_t mode, int depth)
{
    int rc = HK_OK;
    DIR *d = NULL;
    char *s = NULL, *t = NULL;
    if (depth > COPY_MAX_DEPTH)
        return copy_fail(c, HK_ETOOBIG, EN(CF_TOO_DEEP),
                         COPY_MAX_DEPTH, src);
    if (mkdir(dst, (mode & 07777) | S_IRWXU) != 0)
        return copy_fail(c, HK_EIO, EN(CF_CANNOT_CREATE), dst, strerror(errno));
    if (!(d = opendir(src)))
        return copy_fail(c, HK_EIO, EN(CF_CANNOT_READ_DIR), src, strerror(errno));
    struct dirent *de;
    while ((errno = 0, de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || cmdform_skipped(c->o, de->d_name))
            continue;
        hk_free(s);
        hk_free(t);
        s = hk_asprintf("%s/%s", src, de->d_name);
        t = hk_asprintf("%s/%s", dst, de->d_name);
        if (!s || !t) {
            rc = HK_ENOMEM;
            goto out;
        }
        struct stat st;
        if (lstat(s, &st) != 0) {
            rc = copy_fail(c, HK_EIO, EN(CF_CANNOT_STAT), s, strerror(errno));
            goto out;
        }
        if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
            if (++c->files > c->max_files) {
                rc = copy_fail(c, HK_ETOOBIG, EN(CF_TOO_MANY_FILES),
                               c->max_files, s);
                goto out;
            }
        }
        if (S_ISDIR(st.st_mode)) {
            if ((rc = copy_dir(c, s, t, st.st_mode, depth + 1)))
                goto out;
        } else if (S_ISREG(st.st_mode)) {
            if ((uint64_t)st.st_size > c->max_bytes - c->bytes) {
                rc = copy_fail(c, HK_ETOOBIG,
                               EN(CF_WS_OVER_FILE),
                               (unsigned long long)c->max_bytes, s, (long long)st.st_size);
                goto out;
            }
            if ((rc = copy_file(c, s, t, &st)))
                goto out;
        } else if (S_ISLNK(st.st_mode)) {
            /* links are copied as links: a relative one still points inside the copy */
            char target[PATH_MAX];
            ssize_t n = readlink(s, target, sizeof target - 1);
            if (n < 0) {
                rc = copy_fail(c, HK_EIO, EN(CF_CANNOT_READ_LINK), s, strerror(errno));
                goto out;
            }
            target[n] = 0;
            if (symlink(target, t) != 0) {
                rc = copy_fail(c, HK_EIO, EN(CF_CANNOT_CREATE_LINK), t, strerror(errno));
                goto out;
            }
        }
        /* sockets, fifos and devices are not part of a source tree: left out */
    }
    if (errno != 0)
        rc = copy_fail(c, HK_EIO, EN(CF_CANNOT_READ_DIR), src, strerror(errno));
out:
    hk_free(s);
    hk_free(t);
    if (d)
        closedir(d);
    return rc;
}

int cmdform_copy_tree(const char *src_dir, const char *dst_dir, const cmdform_options *o,
                      uint64_t *bytes, size_t *files, char **why)
{
    copy_ctx c = { .o = o };
    c.max_bytes = o && o->copy_max_bytes ? o->copy_max_bytes : CMDFORM_COPY_MAX_BYTES;
    c.max_files = o && o->copy_max_files ? o->copy_max_files : CMDFORM_COPY_MAX_FILES;
    int rc = HK_OK;
    char *real_src = NULL, *parent = NULL, *real_parent = NULL;
    if (why)
        *why = NULL;
    if (!src_dir || !dst_dir) {
        rc = HK_EINVAL;
        goto out;
    }
    struct stat st;
    if (stat(src_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        rc = copy_fail(&c, HK_ENOENT, EN(CF_NOT_DIR), src_dir);
        goto out;
    }
    /* the copy must not land inside the tree it copies (it would copy itself) */
    real_src = realpath(src_dir, NULL);
    const char *slash = strrchr(dst_dir, '/');
    parent = slash ? hk_strndup(dst_dir, slash == dst_dir ? 1 : (size_t)(slash - dst_dir)) : hk_strdup(".");
    if (!parent) {
        rc = HK_ENOMEM;
        goto out;
    }
    real_parent = realpath(parent, NULL);
    if (!real_src || !real_parent) {
        rc = copy_fail(&c, HK_ENOENT, EN(CF_CANNOT_RESOLVE_EITHER), src_dir, parent, strerror(errno));
        goto out;
    }
    size_t ls = strlen(real_src);
    if (!strncmp(real_parent, real_src, ls) && (real_parent[ls] == '/' || real_parent[ls] == 0)) {
        rc = copy_fail(&c, HK_EINVAL, EN(CF_COPY_INSIDE), dst_dir, src_dir);
        goto out;
    }
    rc = copy_dir(&c, src_dir, dst_dir, st.st_mode, 0);
out:
    free(real_src); /* realpath: libc's allocator */
    free(real_parent);
    hk_free(parent);
    if (bytes)
        *bytes = c.bytes;
    if (files)
        *files = c.files;
    if (why && rc != HK_OK && rc != HK_ENOMEM)
        *why = c.why ? c.why : hk_strdup(hk_strerror(rc));
    else
        hk_free(c.why);
    return rc;
}

/* ---- kernel swap ---- */

/* s without template arguments ("k<256, float>" -> "k"): new string or NULL. */
static char *strip_template_args(const char *s)
{
    struct hk_buf b;
    hk_buf_init(&b, strlen(s) + 1);
    int depth = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '<')
            depth++;
        else if (*p == '>' && depth > 0)
            depth--;
        else if (depth == 0 && hk_buf_append(&b, p, 1)) {
            hk_buf_free(&b);
            return NULL;
        }
    }
    char *out = hk_buf_steal(&b);
    return out ? out : hk_strdup("");
}

static const char *unqualified(const char *s)
{
    const char *p = strrchr(s, ':');
    return p ? p + 1 : s;
}

/* Does a function or record name (either may be qualified, with template arguments) name
 * kernel? Qualified kernels must match in full; a bare one matches the last component. */
static bool name_matches(const char *name, const char *kernel)
{
    char *a = strip_template_args(name), *b = strip_template_args(kernel);
    bool ok = false;
    if (a && b) {
        while (*a && a[0] == ':' && a[1] == ':')
            memmove(a, a + 2, strlen(a + 2) + 1);
        if (strstr(b, "::"))
            ok = strcmp(a, b) == 0;
        else
            ok = strcmp(unqualified(a), b) == 0;
    }
    hk_free(a);
    hk_free(b);
    return ok;
}

/* Index of the first definition (with a body) of kernel in m, or -1. */
static long find_definition(const an_model *m, const char *kernel)
{
    for (size_t i = 0; i < m->n_funcs; i++) {
        const an_function *f = &m->funcs[i];
        if (f->kind == AN_KERNEL && f->body_span.end_byte > f->body_span.start_byte &&
            name_matches(f->name, kernel))
            return (long)i;
    }
    return -1;
}

/* Span of kernel's definition in text, or HK_ENOENT with a sentence naming where. */
static int kernel_span(const char *text, size_t len, const char *kernel, const char *where,
                       an_span *span, char **why)
{
    an_model *m = NULL;
    int rc = an_analyze(text, len, &m);
    if (rc) {
        if (rc != HK_ENOMEM)
            *why = sentence(EN(CF_CANNOT_ANALYSE), where, hk_strerror(rc));
        return rc == HK_ENOMEM ? rc : HK_ENOENT;
    }
    long k = find_definition(m, kernel);
    if (k < 0) {
        size_t n_kernels = 0;
        for (size_t i = 0; i < m->n_funcs; i++)
            n_kernels += m->funcs[i].kind == AN_KERNEL;
        *why = sentence(n_kernels == 1 ? EN(CF_NO_DEFINITION_ONE) : EN(CF_NO_DEFINITION), where,
                        kernel, n_kernels, m->has_errors ? EN(CF_SYNTAX_ERRORS) : "");
        rc = HK_ENOENT;
    } else {
        *span = m->funcs[k].span;
    }
    an_model_free(m);
    return rc;
}

int cmdform_swap_kernel(const char *text, size_t len, const char *kernel, const char *cand,
                        size_t clen, char **out, size_t *out_len, char **why)
{
    *out = NULL;
    *out_len = 0;
    *why = NULL;
    an_span s, cs;
    int rc = kernel_span(text, len, kernel, EN(CF_WHERE_SOURCE), &s, why);
    if (rc)
        return rc;
    if ((rc = kernel_span(cand, clen, kernel, EN(CF_WHERE_CANDIDATE), &cs, why)))
        return rc;
    if (s.end_byte > len || cs.end_byte > clen || s.start_byte > s.end_byte || cs.start_byte > cs.end_byte)
        return HK_ERANGE; /* the analysis promises spans inside the text */
    size_t kept = len - (s.end_byte - s.start_byte), piece = cs.end_byte - cs.start_byte;
    if (kept + piece > AN_TEXT_MAX_BYTES)
        return HK_ETOOBIG;
    char *t = hk_malloc(kept + piece + 1);
    if (!t)
        return HK_ENOMEM;
    memcpy(t, text, s.start_byte);
    memcpy(t + s.start_byte, cand + cs.start_byte, piece);
    memcpy(t + s.start_byte + piece, text + s.end_byte, len - s.end_byte);
    t[kept + piece] = 0;
    *out = t;
    *out_len = kept + piece;
    return HK_OK;
}

/* 1-based line of offset off in text, and that line (at most 200 bytes) as a new string. */
static char *quote_line(const char *text, size_t len, size_t off, unsigned *line)
{
    unsigned n = 1;
    size_t s = 0;
    for (size_t i = 0; i < off && i < len; i++)
        if (text[i] == '\n') {
            n++;
            s = i + 1;
        }
    size_t e = s;
    while (e < len && text[e] != '\n' && text[e] != '\r')
        e++;
    *line = n;
    return hk_strndup(text + s, e - s > 200 ? 200 : e - s);
}

/* Length of the common prefix of a and b. */
static size_t common_prefix(const char *a, size_t na, const char *b, size_t nb)
{
    size_t i = 0;
    while (i < na && i < nb && a[i] == b[i])
        i++;
    return i;
}

/* The next directive of text[a, b) from *at: a logical line (one no backslash-newline
 * continues) whose first token, past blanks and block comments, is '#', "%:" or "??=", or a
 * _Pragma operator anywhere. *d, *dl: where it starts and how long its first physical line
 * is. false when there is none. Strings and line comments are not read apart: a '#' at the
 * start of a line inside a raw string counts too, which only makes the check stricter. */
static bool next_directive(const char *t, size_t a, size_t b, size_t *at, size_t *d, size_t *dl)
{
    for (size_t i = *at; i < b; i++) {
        bool start = i == a;
        if (!start && t[i - 1] == '\n') {
            size_t k = i - 1;
            while (k > a && (t[k - 1] == '\r' || t[k - 1] == ' ' || t[k - 1] == '\t'))
                k--;
            start = !(k > a && t[k - 1] == '\\');
        }
        size_t j = i;
        if (!start) {
            if (b - i >= 7 && !memcmp(t + i, "_Pragma", 7) && (i == a || !(isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_')))
                j = i; /* the operator: a pragma with no '#' */
            else
                continue;
        } else {
            for (;;) {
                while (j < b && (t[j] == ' ' || t[j] == '\t'))
                    j++;
                if (b - j >= 2 && t[j] == '/' && t[j + 1] == '*') {
                    const char *e = memmem(t + j + 2, b - j - 2, "*/", 2);
                    j = e ? (size_t)(e - t) + 2 : b;
                    continue;
                }
                break;
            }
            if (!(j < b && (t[j] == '#' || (b - j >= 2 && !memcmp(t + j, "%:", 2)) ||
                            (b - j >= 3 && !memcmp(t + j, "?\?=", 3)) ||
                            (b - j >= 7 && !memcmp(t + j, "_Pragma", 7)))))
                continue;
        }
        size_t e = j;
        while (e < b && t[e] != '\n' && t[e] != '\r')
            e++;
        *d = j;
        *dl = e - j;
        *at = e;
        return true;
    }
    *at = b;
    return false;
}

/* Whether directive line l (n bytes) is #pragma unroll / nounroll, which changes nothing
 * outside the loop it precedes. */
static bool harmless_directive(const char *l, size_t n)
{
    size_t i = 0;
    if (n && l[0] == '#')
        i = 1;
    else if (n >= 2 && !memcmp(l, "%:", 2))
        i = 2;
    else
        return false;
    while (i < n && (l[i] == ' ' || l[i] == '\t'))
        i++;
    if (n - i < 6 || memcmp(l + i, "pragma", 6) != 0)
        return false;
    i += 6;
    while (i < n && (l[i] == ' ' || l[i] == '\t'))
        i++;
    return (n - i >= 6 && !memcmp(l + i, "unroll", 6)) || (n - i >= 8 && !memcmp(l + i, "nounroll", 8));
}

/* A preprocessor directive inside the candidate's definition that the original's definition
 * does not have, as the same line: a #define, #undef, #include, #line or pragma there acts
 * on everything after it in the file, the program's own check included (`#undef RADIUS` /
 * `#define RADIUS 3` inside the kernel's body passed the byte comparison outside it). */
static int directive_in_kernel(const char *base, an_span s, const char *cand, an_span cs,
                               const char *kernel, unsigned *line, char **why)
{
    size_t at = cs.start_byte, d, dl;
    while (next_directive(cand, cs.start_byte, cs.end_byte, &at, &d, &dl)) {
        if (harmless_directive(cand + d, dl))
            continue;
        bool known = false;
        size_t bat = s.start_byte, bd, bdl;
        while (!known && next_directive(base, s.start_byte, s.end_byte, &bat, &bd, &bdl))
            known = bdl == dl && !memcmp(base + bd, cand + d, dl);
        if (known)
            continue;
        unsigned n = 1;
        for (size_t i = 0; i < d; i++)
            n += cand[i] == '\n';
        *line = n;
        char *text = hk_strndup(cand + d, dl > 200 ? 200 : dl);
        *why = text ? sentence(EN(CF_PP_LINE), kernel, n, text) : NULL;
        hk_free(text);
        return *why ? HK_OK : HK_ENOMEM;
    }
    return HK_OK;
}

static size_t splice_skip(const char *t, size_t i, size_t b)
{
    /* the end of a backslash-newline at t[i] (blanks allowed between), else i */
    if (t[i] != '\\')
        return i;
    size_t k = i + 1;
    while (k < b && (t[k] == ' ' || t[k] == '\t'))
        k++;
    if (k < b && t[k] == '\r')
        k++;
    return k < b && t[k] == '\n' ? k + 1 : i;
}

/* How often the text t[a, b) closes a brace group at bracket depth 0, as the compiler reads
 * it: backslash-newline splices undone first (blanks before the newline too), comments,
 * string and character literals (prefixed, raw) and pp-numbers (digit separators) skipped,
 * `<%` `%>` (and the trigraphs `??<` `??>`) read as braces, parentheses and brackets (`<:`
 * `:>`) counted so that a brace inside a parameter list is not the body. *tail: whether
 * anything but blanks and comments follows the last close. A kernel's definition closes
 * once, at its end; HK_ENOMEM. */
static int definition_closes(const char *t, size_t a, size_t b, size_t *closes, bool *tail,
                             size_t *first)
{
    *closes = 0;
    *tail = false;
    *first = b;
    size_t first_u = (size_t)-1;
    char *u = hk_malloc(b - a + 1);
    if (!u)
        return HK_ENOMEM;
    size_t n = 0;
    for (size_t i = a; i < b;) {
        size_t k = splice_skip(t, i, b);
        if (k != i) {
            i = k;
            continue;
        }
        u[n++] = t[i++];
    }
    long brace = 0, other = 0;
    bool after = false;
    for (size_t i = 0; i < n;) {
        char c = u[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
            i++;
            continue;
        }
        if (c == '/' && i + 1 < n && u[i + 1] == '/') {
            while (i < n && u[i] != '\n')
                i++;
            continue;
        }
        if (c == '/' && i + 1 < n && u[i + 1] == '*') {
            const char *e = memmem(u + i + 2, n - i - 2, "*/", 2);
            i = e ? (size_t)(e - u) + 2 : n;
            continue;
        }
        *tail = after; /* a token after the last close */
        if (isalpha((unsigned char)c) || c == '_') {
            size_t s0 = i;
            while (i < n && (isalnum((unsigned char)u[i]) || u[i] == '_'))
                i++;
            size_t L = i - s0;
            bool raw = i < n && u[i] == '"' && L <= 3 && u[i - 1] == 'R' &&
                       (L == 1 || (L == 2 && strchr("uUL", u[s0])) || (L == 3 && u[s0] == 'u' && u[s0 + 1] == '8'));
            if (raw) { /* R"delim( ... )delim" */
                size_t d0 = i + 1, d = d0;
                while (d < n && u[d] != '(' && d - d0 < 17)
                    d++;
                size_t dl = d - d0;
                size_t k = d + 1;
                for (; k < n; k++)
                    if (u[k] == ')' && k + 1 + dl < n && !memcmp(u + k + 1, u + d0, dl) && u[k + 1 + dl] == '"')
                        break;
                i = k < n ? k + dl + 2 : n;
            }
            continue;
        }
        if (isdigit((unsigned char)c) || (c == '.' && i + 1 < n && isdigit((unsigned char)u[i + 1]))) {
            i++;
            while (i < n) {
                if ((u[i] == 'e' || u[i] == 'E' || u[i] == 'p' || u[i] == 'P') && i + 1 < n &&
                    (u[i + 1] == '+' || u[i + 1] == '-'))
                    i += 2;
                else if (u[i] == '\'' && i + 1 < n && (isalnum((unsigned char)u[i + 1]) || u[i + 1] == '_'))
                    i += 2;
                else if (isalnum((unsigned char)u[i]) || u[i] == '_' || u[i] == '.')
                    i++;
                else
                    break;
            }
            continue;
        }
        if (c == '"' || c == '\'') {
            i++;
            while (i < n && u[i] != c && u[i] != '\n')
                i += u[i] == '\\' && i + 1 < n ? 2 : 1;
            i++;
            continue;
        }
        int open = 0; /* +1 a brace opens, -1 one closes; 2 / -2 another bracket */
        size_t w = 1;
        if (c == '{')
            open = 1;
        else if (c == '}')
            open = -1;
        else if (c == '<' && i + 1 < n && u[i + 1] == '%')
            open = 1, w = 2;
        else if (c == '%' && i + 1 < n && u[i + 1] == '>')
            open = -1, w = 2;
        else if (c == '?' && i + 2 < n && u[i + 1] == '?' && (u[i + 2] == '<' || u[i + 2] == '>'))
            open = u[i + 2] == '<' ? 1 : -1, w = 3;
        else if (c == '(' || c == '[' || (c == '<' && i + 1 < n && u[i + 1] == ':'))
            open = 2, w = c == '<' ? 2 : 1;
        else if (c == ')' || c == ']' || (c == ':' && i + 1 < n && u[i + 1] == '>'))
            open = -2, w = c == ':' ? 2 : 1;
        if (open == 1)
            brace++;
        else if (open == -1 && --brace == 0 && other == 0) {
            if (!(*closes)++)
                first_u = i;
            after = true;
            *tail = false;
        } else if (open == 2)
            other++;
        else if (open == -2)
            other--;
        i += w;
    }
    hk_free(u);
    if (first_u != (size_t)-1) /* back to an offset of t: the same walk, counting */
        for (size_t i = a, m = 0; i < b;) {
            size_t k = splice_skip(t, i, b);
            if (k != i) {
                i = k;
                continue;
            }
            if (m++ == first_u) {
                *first = i;
                break;
            }
            i++;
        }
    return HK_OK;
}

/* The definition's span is the analysis's (tree-sitter), which knows no digraphs: a body
 * ending in `%>` (the compiler's `}`), then host code (a printf that prints "PASS" for the
 * program's own "FAIL" line, an atexit handler that turns its failing exit into 0), then a
 * function opened with `<%` that the original's `}` closes, kept every byte outside the span
 * and every directive inside it the original's (session 38). So the candidate's definition, as
 * the compiler reads it, must be one definition ending where the analysis's span ends: its body closes once at bracket depth 0 (no more often than the
 * original's does), with nothing after it. A `%>` or `??>` that ends the body early, with
 * anything after it (a `__host__ __device__ printf`, which the host-code rule takes for device
 * code), is refused at the line of that close. */
static int ends_early(const char *base, an_span s, const char *cand, an_span cs, const char *kernel,
                      unsigned *line, char **why)
{
    size_t bc = 0, cc = 0, bfirst, first;
    bool btail = false, ctail = false;
    int rc = definition_closes(base, s.start_byte, s.end_byte, &bc, &btail, &bfirst);
    if (!rc)
        rc = definition_closes(cand, cs.start_byte, cs.end_byte, &cc, &ctail, &first);
    if (rc || ((cc <= 1 || cc <= bc) && (!ctail || btail)))
        return rc;
    /* first: the first close at depth 0, where the compiler's definition ends */
    unsigned n = 1;
    for (size_t i = 0; i < first; i++)
        n += cand[i] == '\n';
    *line = n;
    char *text = quote_line(cand, cs.end_byte, first, &n);
    if (!text)
        return HK_ENOMEM;
    *why = sentence(EN(CF_ENDS_EARLY), kernel, *line, text);
    hk_free(text);
    return *why ? HK_OK : HK_ENOMEM;
}

int cmdform_check_outside_kernel(const char *base, size_t blen, const char *cand, size_t clen,
                                 const char *kernel, unsigned *line, char **why)
{
    *line = 0;
    *why = NULL;
    an_span s, cs;
    int rc = kernel_span(base, blen, kernel, EN(CF_WHERE_ORIGINAL), &s, why);
    if (rc == HK_OK)
        rc = kernel_span(cand, clen, kernel, EN(CF_WHERE_CANDIDATE), &cs, why);
    if (rc)
        return rc;
    if (s.end_byte > blen || cs.end_byte > clen || s.start_byte > s.end_byte || cs.start_byte > cs.end_byte)
        return HK_ERANGE; /* the analysis promises spans inside the text */
    /* the first difference before the definition, else the first one after it, from the
     * start of its line; when the rest of the region is the original's without those
     * lines, the candidate dropped them (the original's line is quoted), else it changed
     * or added the line (its own is quoted) */
    size_t pb = s.start_byte, pc = cs.start_byte;
    size_t i = common_prefix(base, pb, cand, pc);
    size_t boff, coff, rb, rc_len;
    if (i < pb || i < pc) {
        boff = coff = i;
        rb = pb;
        rc_len = pc;
    } else {
        size_t sb = blen - s.end_byte, sc = clen - cs.end_byte;
        size_t j = common_prefix(base + s.end_byte, sb, cand + cs.end_byte, sc);
        if (j == sb && j == sc) {
            rc = directive_in_kernel(base, s, cand, cs, kernel, line, why);
            if (rc || *line)
                return rc;
            return ends_early(base, s, cand, cs, kernel, line, why);
        }
        boff = s.end_byte + j;
        coff = cs.end_byte + j;
        rb = blen;
        rc_len = clen;
    }
    while (boff > 0 && coff > 0 && base[boff - 1] != '\n') {
        boff--;
        coff--;
    }
    size_t nb = rb - boff, nc = rc_len - coff;
    bool dropped = nb > nc && base[boff + (nb - nc) - 1] == '\n' &&
                   !memcmp(base + boff + (nb - nc), cand + coff, nc);
    char *text = dropped ? quote_line(base, blen, boff, line) : quote_line(cand, clen, coff, line);
    if (!text)
        return HK_ENOMEM;
    if (dropped)
        *why = sentence(EN(CF_DROPS_LINE),
                        *line, kernel, text);
    else
        *why = sentence(EN(CF_CHANGES_LINE), *line, kernel, text);
    hk_free(text);
    return *why ? HK_OK : HK_ENOMEM;
}

/* ---- records ---- */

/* The function name in a demangled signature: "void ns::k<256, float>(int, float*)" ->
 * "ns::k", "(anonymous namespace)::k(int)" -> "(anonymous namespace)::k". */
static char *base_from_demangled(const char *d)
{
    char *t = strip_template_args(d);
    if (!t)
        return NULL;
    size_t n = strlen(t);
    while (n > 0 && t[n - 1] == ' ')
        t[--n] = 0;
    if (n > 0 && t[n - 1] == ')') { /* cut the parameter list: the '(' matching the last ')' */
        int depth = 0;
        for (size_t i = n; i-- > 0;) {
            if (t[i] == ')')
                depth++;
            else if (t[i] == '(' && --depth == 0) {
                t[i] = 0;
                break;
            }
        }
    }
    const char *start = t; /* after the return type: the last space outside parentheses */
    int depth = 0;
    for (const char *p = t; *p; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')')
            depth--;
        else if (*p == ' ' && depth == 0 && p[1])
            start = p + 1;
    }
    char *r = hk_strdup(start);
    hk_free(t);
    return r;
}

/* The kernel's name from a record: our demangler's reading of the mangled name, else the
 * library's "demangled" field, else a name that is already a signature, else the name as
 * written (extern "C"). */
static char *record_base(const char *name, const char *demangled)
{
    char *qualified = NULL;
    if (name[0] == '_' && name[1] == 'Z' && cc_demangle(name, &qualified, NULL) == HK_OK)
        return qualified;
    if (demangled && demangled[0])
        return base_from_demangled(demangled);
    if (strchr(name, '('))
        return base_from_demangled(name);
    return hk_strdup(name);
}

typedef struct {
    long long pid;
    bool init, exit;
} pid_state;

static pid_state *pid_get(pid_state *ps, size_t *n, long long pid)
{
    for (size_t i = 0; i < *n; i++)
        if (ps[i].pid == pid)
            return &ps[i];
    if (*n >= RECORDS_MAX_PIDS)
        return NULL;
    ps[*n] = (pid_state){ .pid = pid };
    return &ps[(*n)++];
}

static int read_file(const char *path, size_t max, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? HK_ENOENT : HK_EIO;
    struct hk_buf b;
    hk_buf_init(&b, max);
    char chunk[1 << 16];
    int rc = HK_OK;
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        if ((rc = hk_buf_append(&b, chunk, n)))
            break;
    if (rc == HK_OK && ferror(f))
        rc = HK_EIO;
    fclose(f);
    if (rc) {
        hk_buf_free(&b);
        return rc;
    }
    *len = b.len;
    *text = hk_buf_steal(&b);
    if (!*text)
        *text = hk_strdup("");
    return *text ? HK_OK : HK_ENOMEM;
}

static bool has_name(char **names, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], s))
            return true;
    return false;
}

static int push_name(char ***names, size_t *n, const char *s)
{
    if (has_name(*names, *n, s) || *n >= RECORDS_MAX_NAMES)
        return HK_OK;
    char *c = hk_strdup(s);
    char **v = c ? hk_realloc(*names, (*n + 1) * sizeof **names) : NULL;
    if (!v) {
        hk_free(c);
        return HK_ENOMEM;
    }
    v[(*n)++] = c;
    *names = v;
    return HK_OK;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        hk_free(names[i]);
    hk_free(names);
}

int cmdform_records_read(const char *path, const char *kernel, cmdform_run *run, char ***names,
                         size_t *n_names, enum cmdform_status *status, char **why)
{
    return cmdform_records_read_nonce(path, kernel, NULL, run, names, n_names, status, why);
}

int cmdform_records_read_nonce(const char *path, const char *kernel, const char *nonce,
                               cmdform_run *run, char ***names, size_t *n_names,
                               enum cmdform_status *status, char **why)
{
    *status = CMDFORM_OK;
    *why = NULL;
    run->kernel_ms = 0;
    run->launches = run->processes = run->other_kernels = 0;
    char *text = NULL, *err_msg = NULL, *base = NULL;
    char **others = NULL;   /* other kernels' names, for the not-launched sentence */
    size_t n_others = 0, len = 0, n_pids = 0;
    pid_state *pids = NULL;
    json_t *j = NULL;
    uint64_t total_ns = 0, dropped = 0;
    long long error_pid = 0;
    int rc = read_file(path, CMDFORM_RECORDS_MAX_BYTES, &text, &len);
    if (rc == HK_ENOENT || rc == HK_EIO) {
        *status = CMDFORM_NO_CUPTI;
        *why = sentence(EN(CF_NO_RECORDS),
                        path);
        rc = *why ? HK_OK : HK_ENOMEM;
        goto out;
    }
    if (rc == HK_ETOOBIG) {
        *status = CMDFORM_RECORDS_ERROR;
        *why = sentence(EN(CF_RECORDS_TOO_BIG), path, CMDFORM_RECORDS_MAX_BYTES);
        rc = *why ? HK_OK : HK_ENOMEM;
        goto out;
    }
    if (rc)
        goto out;
    if (!(pids = hk_calloc(RECORDS_MAX_PIDS, sizeof *pids))) {
        rc = HK_ENOMEM;
        goto out;
    }
    size_t line_no = 0;
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        const char *line = text + pos;
        size_t ll = end - pos;
        pos = end + 1;
        line_no++;
        if (ll == 0)
            continue;
        json_error_t jerr;
        json_decref(j);
        j = json_loadb(line, ll, JSON_REJECT_DUPLICATES, &jerr);
        const char *ev = j ? json_string_value(json_object_get(j, "event")) : NULL;
        json_t *jpid = j ? json_object_get(j, "pid") : NULL;
        if (!ev || !json_is_integer(jpid)) {
            *status = CMDFORM_RECORDS_ERROR;
            *why = j ? sentence(EN(CF_NOT_RECORD_LINE), path, line_no)
                     : sentence(EN(CF_NOT_RECORD_LINE_WHY), path, line_no, jerr.text);
            goto done;
        }
        if (nonce) {
            /* the injection library of this run stamps every line with the nonce it took
             * (and removed) from its environment: a line without it was written by
             * something else, or by an earlier run */
            const char *nn = json_string_value(json_object_get(j, "nonce"));
            if (!nn || strcmp(nn, nonce) != 0) {
                *status = CMDFORM_RECORDS_ERROR;
                *why = sentence(EN(CF_NO_NONCE),
                                path, line_no);
                goto done;
            }
        }
        pid_state *ps = pid_get(pids, &n_pids, json_integer_value(jpid));
        if (!ps) {
            *status = CMDFORM_RECORDS_ERROR;
            *why = sentence(EN(CF_TOO_MANY_PIDS), path, RECORDS_MAX_PIDS);
            goto done;
        }
        if (!strcmp(ev, "init")) {
            ps->init = true;
        } else if (!strcmp(ev, "exit")) {
            ps->exit = true;
            json_t *d = json_object_get(j, "dropped");
            if (json_is_integer(d) && json_integer_value(d) > 0)
                dropped += (uint64_t)json_integer_value(d);
        } else if (!strcmp(ev, "error")) {
            if (!err_msg) {
                const char *m = json_string_value(json_object_get(j, "message"));
                if (!(err_msg = hk_strdup(m ? m : "unknown error"))) {
                    rc = HK_ENOMEM;
                    goto out;
                }
                error_pid = ps->pid;
            }
        } else if (!strcmp(ev, "kernel")) {
            const char *name = json_string_value(json_object_get(j, "name"));
            const char *dem = json_string_value(json_object_get(j, "demangled"));
            json_t *js = json_object_get(j, "start"), *je = json_object_get(j, "end");
            if (!name || !json_is_integer(js) || !json_is_integer(je)) {
                *status = CMDFORM_RECORDS_ERROR;
                *why = sentence(EN(CF_RECORD_INCOMPLETE), path, line_no);
                goto done;
            }
            if (!ps->init) {
                *status = CMDFORM_RECORDS_ERROR;
                *why = sentence(EN(CF_RECORD_BEFORE_INIT), path,
                                line_no, ps->pid);
                goto done;
            }
            long long s0 = json_integer_value(js), e0 = json_integer_value(je);
            if (e0 < s0 || s0 < 0) {
                *status = CMDFORM_RECORDS_ERROR;
                *why = sentence(EN(CF_RECORD_ENDS_FIRST), path,
                                line_no, name, e0, s0);
                goto done;
            }
            hk_free(base);
            if (!(base = record_base(name, dem))) {
                rc = HK_ENOMEM;
                goto out;
            }
            if (name_matches(base, kernel)) {
                total_ns += (uint64_t)(e0 - s0);
                run->launches++;
                if (names && (rc = push_name(names, n_names, name)))
                    goto out;
            } else {
                run->other_kernels++;
                if ((rc = push_name(&others, &n_others, base)))
                    goto out;
            }
        }
        /* other events are for later versions of the library: ignored */
    }
    for (size_t i = 0; i < n_pids; i++)
        run->processes += pids[i].init;
    if (run->processes == 0) {
        *status = CMDFORM_NO_CUPTI;
        *why = sentence(EN(CF_NO_INIT), path);
        goto done;
    }
    if (err_msg) {
        *status = CMDFORM_NO_CUPTI;
        *why = sentence(EN(CF_CUPTI_FAILED), error_pid, err_msg);
        goto done;
    }
    if (dropped) {
        *status = CMDFORM_RECORDS_ERROR;
        *why = sentence(EN(CF_CUPTI_DROPPED),
                        (unsigned long long)dropped);
        goto done;
    }
    for (size_t i = 0; i < n_pids; i++) {
        if (pids[i].init && !pids[i].exit) {
            *status = CMDFORM_RECORDS_ERROR;
            *why = sentence(EN(CF_NO_EXIT),
                            pids[i].pid, path);
            goto done;
        }
    }
    if (run->launches == 0) {
        struct hk_buf b;
        hk_buf_init(&b, 600);
        for (size_t i = 0; i < n_others && b.len < 500; i++)
            hk_buf_printf(&b, "%s%s", i ? ", " : "", others[i]);
        *status = CMDFORM_NOT_LAUNCHED;
        if (run->other_kernels)
            *why = sentence(run->other_kernels == 1 ? EN(CF_NOT_LAUNCHED_ONE) : EN(CF_NOT_LAUNCHED),
                            kernel, run->other_kernels, b.data ? b.data : "");
        else
            *why = sentence(EN(CF_NOT_LAUNCHED_NONE), kernel);
        hk_buf_free(&b);
        goto done;
    }
    run->kernel_ms = (double)total_ns / 1e6;
done:
    rc = (*status != CMDFORM_OK && !*why) ? HK_ENOMEM : HK_OK;
out:
    json_decref(j);
    hk_free(text);
    hk_free(err_msg);
    hk_free(base);
    hk_free(pids);
    free_names(others, n_others);
    return rc;
}

/* ---- gating ---- */

/* The line of text containing offset off (without its newline), as a new string. */
static char *line_at(const char *text, size_t off)
{
    const char *s = text + off;
    while (s > text && s[-1] != '\n')
        s--;
    const char *e = strchr(text + off, '\n');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    return hk_strndup(s, n > 300 ? 300 : n);
}

/* The last max_lines lines of text (new string). */
static char *last_lines(const char *text, unsigned max_lines)
{
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
        n--;
    size_t start = n;
    unsigned lines = 0;
    while (start > 0 && lines < max_lines) {
        start--;
        if (text[start] == '\n' && ++lines == max_lines) {
            start++;
            break;
        }
    }
    size_t len = n - start;
    if (len > 2000) { /* one enormous line */
        start = n - 2000;
        len = 2000;
    }
    return hk_strndup(text + start, len);
}

/* Output quoted in details: the tails of stdout and stderr. */
static char *output_quote(const runner_result *r)
{
    char *o = last_lines(r->out ? r->out : "", OUTPUT_QUOTE_LINES);
    char *e = last_lines(r->err ? r->err : "", OUTPUT_QUOTE_LINES);
    char *q = NULL;
    if (o && e)
        q = sentence("%s%s%s%s%s%s", o[0] ? "\nstdout:\n" : "", o, e[0] ? "\nstderr:\n" : "", e,
                     !o[0] && !e[0] ? EN(CF_NO_OUTPUT) : "",
                     r->out_truncated || r->err_truncated ? EN(CF_OUTPUT_TRUNCATED) : "");
    hk_free(o);
    hk_free(e);
    return q;
}

/* Matches rx against both streams; *hit gets the first matching line (new string). */
static int regex_search(const char *rx, const runner_result *r, bool *found, char **hit)
{
    *found = false;
    *hit = NULL;
    regex_t re;
    if (regcomp(&re, rx, REG_EXTENDED | REG_NEWLINE) != 0)
        return HK_EINVAL;
    const char *streams[2] = { r->out ? r->out : "", r->err ? r->err : "" };
    int rc = HK_OK;
    for (int i = 0; i < 2 && !*found; i++) {
        regmatch_t m;
        if (regexec(&re, streams[i], 1, &m, 0) == 0) {
            *found = true;
            if (!(*hit = line_at(streams[i], (size_t)m.rm_so)))
                rc = HK_ENOMEM;
        }
    }
    regfree(&re);
    return rc;
}

/* Is a shell's exit status that of a child killed by a crash signal? */
static bool shell_signal(int exit_code)
{
    switch (exit_code - 128) {
    case SIGSEGV: case SIGBUS: case SIGABRT: case SIGFPE: case SIGILL: case SIGKILL: case SIGTRAP:
        return true;
    default:
        return false;
    }
}

int cmdform_gate(const spec *s, const runner_result *r, enum cmdform_status *status, char **why)
{
    *status = CMDFORM_OK;
    *why = NULL;
    char *quote = NULL, *fail_line = NULL, *pass_line = NULL;
    bool fail_found = false, pass_found = false;
    int rc = HK_OK;
    if (s->fail_regex && (rc = regex_search(s->fail_regex, r, &fail_found, &fail_line)))
        goto out;
    if (s->pass_regex && (rc = regex_search(s->pass_regex, r, &pass_found, &pass_line)))
        goto out;
    if (!(quote = output_quote(r))) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (r->error) {
        *status = CMDFORM_RUN_FAILED;
        *why = sentence(EN(CF_RUN_NOT_STARTED), hk_strerror(r->error));
    } else if (r->timed_out) {
        *status = CMDFORM_RUN_TIMEOUT;
        *why = sentence(EN(CF_RUN_TIME_LIMIT), r->wall_ms, quote);
    } else if (r->cpu_limit_hit || r->file_limit_hit || r->memory_limit_hit) {
        *status = CMDFORM_RESOURCE_LIMIT;
        *why = sentence(r->cpu_limit_hit    ? EN(CF_RUN_CPU_LIMIT)
                        : r->file_limit_hit ? EN(CF_RUN_FILE_LIMIT)
                                            : EN(CF_RUN_MEMORY_LIMIT),
                        quote);
    } else if (r->term_signal) {
        *status = CMDFORM_RUN_CRASHED;
        *why = sentence(EN(CF_RUN_SIGNAL), r->term_signal, hk_signal_words(r->term_signal), quote);
    } else if (shell_signal(r->exit_code)) {
        /* the run command goes through /bin/sh, which reports a child killed by signal N
         * as status 128 + N */
        int sig = r->exit_code - 128;
        *status = CMDFORM_RUN_CRASHED;
        *why = sentence(EN(CF_PROGRAM_SIGNAL), sig, hk_signal_words(sig), r->exit_code, quote);
    } else if (r->exit_code != 0) {
        *status = CMDFORM_RUN_FAILED;
        *why = fail_line ? sentence(EN(CF_RUN_EXIT_PRINTED), r->exit_code, fail_line, quote)
                         : sentence(EN(CF_RUN_EXIT), r->exit_code, quote);
    } else if (fail_found) {
        *status = CMDFORM_FAIL_OUTPUT;
        *why = sentence(EN(CF_FAIL_REGEX), s->fail_regex,
                        fail_line, quote);
    } else if (s->pass_regex && !pass_found) {
        *status = CMDFORM_NO_PASS_OUTPUT;
        *why = sentence(EN(CF_NO_PASS), s->pass_regex, quote);
    }
    if (*status != CMDFORM_OK && !*why)
        rc = HK_ENOMEM;
out:
    hk_free(quote);
    hk_free(fail_line);
    hk_free(pass_line);
    return rc;
}

char *cmdform_first_lines(const char *text, size_t len, unsigned max_lines)
{
    size_t start = 0;
    /* the first line that says "error" (nvcc, gcc, clang, make all do) */
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        if (memmem(text + pos, end - pos, "error", 5) || memmem(text + pos, end - pos, "Error", 5)) {
            start = pos;
            break;
        }
        pos = end + 1;
    }
    size_t end = start;
    for (unsigned lines = 0; end < len && lines < max_lines; lines++) {
        const char *nl = memchr(text + end, '\n', len - end);
        end = nl ? (size_t)(nl - text) + 1 : len;
    }
    while (end > start && (text[end - 1] == '\n' || text[end - 1] == '\r'))
        end--;
    if (end - start > CMDFORM_MAX_DETAILS - 200)
        end = start + CMDFORM_MAX_DETAILS - 200;
    return hk_strndup(text + start, end - start);
}

/* ---- the injection library ---- */

static bool readable(const char *p)
{
    return p && access(p, R_OK) == 0;
}

int cmdform_cupti_find(char **out)
{
    *out = NULL;
    const char *env = getenv("HK_CUPTI_LIB");
    if (env && env[0]) {
        if (!readable(env))
            return HK_ENOENT;
        return (*out = hk_strdup(env)) ? HK_OK : HK_ENOMEM;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return HK_ENOENT;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return HK_ENOENT;
    *slash = 0;
    const char *forms[] = { "%s/" CMDFORM_LIB_NAME, "%s/../lib/" CMDFORM_LIB_NAME };
    for (size_t i = 0; i < HK_ARRAY_LEN(forms); i++) {
        char *p = hk_asprintf(forms[i], exe);
        if (!p)
            return HK_ENOMEM;
        if (readable(p)) {
            *out = p;
            return HK_OK;
        }
        hk_free(p);
    }
    return HK_ENOENT;
}

const char *cmdform_cupti_source(void)
{
    return HK_SOURCE_DIR "/tools/cupti/hk_cupti.c";
}

/* The first of dir/suffix that exists, as a new string; NULL when none (or ENOMEM). */
static char *first_existing(const char *dir, const char *const *suffixes, const char *file)
{
    for (size_t i = 0; suffixes[i]; i++) {
        char *p = hk_asprintf("%s/%s/%s", dir, suffixes[i], file);
        if (p && readable(p)) {
            hk_free(p);
            return hk_asprintf("%s/%s", dir, suffixes[i]);
        }
        hk_free(p);
    }
    return NULL;
}

int cmdform_cupti_build(const char *src, const char *out_path, const char *cc, const char *cuda_home,
                        unsigned timeout_ms, char **log)
{
    static const char *const inc_dirs[] = { "include", "extras/CUPTI/include", "targets/x86_64-linux/include", NULL };
    static const char *const lib_dirs[] = { "lib64", "targets/x86_64-linux/lib", "extras/CUPTI/lib64", NULL };
    if (log)
        *log = NULL;
    if (!out_path)
        return HK_EINVAL;
    src = src ? src : cmdform_cupti_source();
    cc = cc ? cc : getenv("CC") && getenv("CC")[0] ? getenv("CC") : "cc";
    cuda_home = cuda_home ? cuda_home : getenv("CUDA_HOME") && getenv("CUDA_HOME")[0] ? getenv("CUDA_HOME") : "/usr/local/cuda";
    int rc = HK_OK;
    char *inc = NULL, *libdir = NULL, *iflag = NULL, *lflag = NULL, *rpath = NULL;
    runner_result r = { 0 };
    if (!readable(src)) {
        rc = HK_ENOENT;
        if (log)
            *log = sentence(EN(CF_CANNOT_READ_INJ_SRC), src);
        goto out;
    }
    inc = first_existing(cuda_home, inc_dirs, "cupti.h");
    libdir = first_existing(cuda_home, lib_dirs, "libcupti.so");
    if (!inc || !libdir) {
        rc = HK_ENOENT;
        if (log)
            *log = sentence(EN(CF_NO_CUPTI), cuda_home, !inc ? "cupti.h" : "libcupti.so");
        goto out;
    }
    iflag = hk_asprintf("-I%s", inc);
    lflag = hk_asprintf("-L%s", libdir);
    rpath = hk_asprintf("-Wl,-rpath,%s", libdir);
    if (!iflag || !lflag || !rpath) {
        rc = HK_ENOMEM;
        goto out;
    }
    const char *argv[] = { cc, "-std=c11", "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall",
                           "-Wextra", iflag, src, "-o", out_path, lflag, rpath, "-lcupti", "-ldl",
                           "-lpthread", NULL };
    runner_spec rs = { .argv = argv, .timeout_ms = timeout_ms ? timeout_ms : CUPTI_BUILD_TIMEOUT_MS,
                       /* our own source and compiler: no sandbox needed, and out_path may lie
                        * anywhere */
                       .isolation = RUNNER_ISO_NONE };
    rc = runner_run(&rs, &r);
    if (rc)
        goto out;
    if (r.timed_out)
        rc = HK_ETIMEDOUT;
    else if (r.exit_code != 0)
        rc = HK_ECHILD;
    if (log)
        *log = sentence("%s%s", r.err ? r.err : "", r.out ? r.out : "");
out:
    runner_result_free(&r);
    hk_free(inc);
    hk_free(libdir);
    hk_free(iflag);
    hk_free(lflag);
    hk_free(rpath);
    return rc;
}

/* ---- the whole measurement ---- */

void cmdform_result_clear(cmdform_result *r)
{
    if (!r)
        return;
    hk_free(r->details);
    hk_free(r->workspace);
    hk_free(r->runs);
    free_names(r->kernel_names, r->n_kernel_names);
    measure_timing_clear(&r->timing);
    memset(r, 0, sizeof *r);
}

/* Sets the outcome (first one wins) from a sentence that may be NULL (ENOMEM). */
static int set_status(cmdform_result *out, enum cmdform_status st, char *why)
{
    if (!why)
        return HK_ENOMEM;
    if (out->status == CMDFORM_OK && !out->details) {
        out->status = st;
        out->details = why;
    } else {
        hk_free(why);
    }
    return HK_OK;
}

static int write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return HK_EIO;
    bool ok = fwrite(text, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    return ok ? HK_OK : HK_EIO;
}

static int copy_lib(const char *src, const char *dst)
{
    char *text = NULL;
    size_t len = 0;
    int rc = read_file(src, (size_t)256 << 20, &text, &len);
    if (rc == HK_OK && (rc = write_text(dst, text, len)) == HK_OK && chmod(dst, 0755) != 0)
        rc = HK_EIO;
    hk_free(text);
    return rc;
}

/* A command through the runner, stoppably (measure_run_argv polls stop). Only a timed
 * command (the runs CUPTI times) holds the GPU lock, exclusively for the whole process:
 * CUPTI times every launch of the user's program, wherever it comes, so there is no timed
 * loop to narrow the lock to. The build does not hold it, so a slow build does not stall
 * other episodes' timing (issue 14). */
static int run_shell(const cmdform_options *o, const spec *s, const char *cmd, const char *cwd,
                     unsigned timeout_ms, const char *const *env_set, const char *const *writable,
                     bool timed, runner_result *r)
{
    const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    /* the spec's folder stays readable in the sandbox even when it lies under /tmp (where the
     * sandbox mounts a private tmpfs): its commands may name scripts next to it */
    const char *readable[] = { s->dir, NULL };
    runner_spec rs = {
        .argv = argv,
        .cwd = cwd,
        .env_set = env_set,
        .timeout_ms = timeout_ms,
        .output_max = o->output_max,
        .memory_max = o->memory_max,
        /* builds may query the GPU too (-arch=native, CMake's architecture detection) */
        .gpu = true,
        .isolation = o->isolation,
        .writable = writable,
        .readable = s->dir ? readable : NULL,
    };
    measure_opts mo = { .stop = o->stop, .untimed = !timed, .lock_wait_s = o->lock_wait_s };
    return measure_run_argv(&mo, &rs, r);
}

/* Median, quantiles and IQR/median spread of the runs' kernel times. */
static void summarize(cmdform_result *out)
{
    size_t n = out->n_runs;
    double *v = n ? hk_malloc(n * sizeof *v) : NULL;
    if (!v)
        return; /* stats stay as they were */
    for (size_t i = 0; i < n; i++)
        v[i] = out->runs[i].kernel_ms;
    for (size_t i = 1; i < n; i++) /* n is small: insertion sort */
        for (size_t k = i; k > 0 && v[k - 1] > v[k]; k--) {
            double t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
    measure_timing *t = &out->timing;
    t->median_ms = measure_quantile(v, n, 0.5);
    t->p10_ms = measure_quantile(v, n, 0.1);
    t->p90_ms = measure_quantile(v, n, 0.9);
    t->min_ms = v[0];
    out->max_ms = v[n - 1];
    t->spread = t->median_ms > 0 ? (measure_quantile(v, n, 0.75) - measure_quantile(v, n, 0.25)) / t->median_ms : 0;
    t->reps = (int)n;
    hk_free(v);
}

struct cmdform_ws {
    const spec *s;          /* borrowed */
    cmdform_options o;      /* borrowed pointers */
    char *root;             /* ROOT: the private directory */
    char *dir;              /* ROOT/<workdir's name>: the copy */
    char *cupti_dir;        /* ROOT/cupti: the library's copy and the records */
    char *lib_copy;
    char *env_lib;          /* "CUDA_INJECTION64_PATH=..." */
    unsigned run_timeout_ms;
    unsigned runs_done;     /* records files are numbered by it */
    size_t runs_cap;        /* of the result's runs array */
    bool keep;              /* the caller took the copy (cmdform_ws_keep) */
};

static void result_init(cmdform_result *out)
{
    memset(out, 0, sizeof *out);
    out->timing.median_ms = out->timing.p10_ms = out->timing.p90_ms = out->timing.min_ms = NAN;
    out->timing.spread = out->max_ms = NAN;
}

void cmdform_ws_free(cmdform_ws *w)
{
    if (!w)
        return;
    if (w->root && !w->keep)
        measure_rmtree(w->root);
    hk_free(w->root);
    hk_free(w->dir);
    hk_free(w->cupti_dir);
    hk_free(w->lib_copy);
    hk_free(w->env_lib);
    hk_free(w);
}

const char *cmdform_ws_dir(const cmdform_ws *w)
{
    return w->dir;
}

int cmdform_prepare(const spec *s, const char *kernel_text, size_t len, const cmdform_options *opts,
                    cmdform_ws **ws_out, cmdform_result *out)
{
    cmdform_options defaults = { 0 };
    const cmdform_options *o = opts ? opts : &defaults;
    *ws_out = NULL;
    result_init(out);
    if (!s || s->form != SPEC_FORM_COMMAND || !s->run || !s->kernel || !s->source_path || !s->workdir ||
        (kernel_text == NULL && len != 0) || o->runs > CMDFORM_MAX_RUNS)
        return HK_EINVAL;
    unsigned timeout_ms = o->timeout_ms ? o->timeout_ms
                          : s->timeout_s > 0 ? (unsigned)(s->timeout_s * 1000.0)
                                             : 600000u;
    int rc = HK_OK;
    cmdform_ws *w = NULL;
    char *lib = NULL, *real_wd = NULL, *real_src = NULL, *src_copy = NULL, *text = NULL, *swapped = NULL;
    char *why = NULL;
    runner_result r = { 0 };
    size_t text_len = 0, swapped_len = 0;

    if (!(w = hk_calloc(1, sizeof *w))) {
        rc = HK_ENOMEM;
        goto out;
    }
    w->s = s;
    w->o = *o;

    /* the injection library first: without it nothing can be timed */
    if (o->cupti_lib)
        lib = hk_strdup(o->cupti_lib);
    else if (s->cupti_injection)
        lib = hk_strdup(s->cupti_injection);
    else if ((rc = cmdform_cupti_find(&lib)) == HK_ENOENT)
        rc = HK_OK;
    if (rc)
        goto out;
    if (!lib || !readable(lib)) {
        rc = set_status(out, CMDFORM_NO_CUPTI,
                        lib ? sentence(EN(CF_INJ_UNREADABLE), lib)
                            : sentence("%s", EN(CF_NO_INJ)));
        goto out;
    }

    /* the source must be a file of the workdir, so that the copy holds it */
    real_wd = realpath(s->workdir, NULL);
    real_src = realpath(s->source_path, NULL);
    if (!real_wd || !real_src) {
        rc = set_status(out, CMDFORM_WORKSPACE_ERROR,
                        sentence(EN(CF_CANNOT_RESOLVE), !real_wd ? s->workdir : s->source_path, strerror(errno)));
        goto out;
    }
    size_t lw = strlen(real_wd);
    if (strncmp(real_src, real_wd, lw) != 0 || real_src[lw] != '/') {
        rc = set_status(out, CMDFORM_WORKSPACE_ERROR,
                        sentence(EN(CF_SOURCE_OUTSIDE), s->source_path, s->workdir));
        goto out;
    }
    const char *rel = real_src + lw + 1;
    for (const char *p = rel; *p;) { /* no component of rel may be skipped by the copy */
        size_t n = strcspn(p, "/");
        char *part = hk_strndup(p, n);
        if (!part) {
            rc = HK_ENOMEM;
            goto out;
        }
        bool skip = cmdform_skipped(o, part);
        if (skip)
            rc = set_status(out, CMDFORM_WORKSPACE_ERROR,
                            sentence(EN(CF_SOURCE_SKIPPED), rel, part));
        hk_free(part);
        if (skip)
            goto out;
        p += n + (p[n] == '/');
    }

    /* the private copy: ROOT/<workdir's name>/ and ROOT/cupti/ (records and the library,
     * both reachable inside the sandbox: the copy is the cwd, cupti/ a writable bind) */
    const char *tmp = o->tmp_dir ? o->tmp_dir : getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
    char *root = hk_asprintf("%s/hk-cmdform-XXXXXX", tmp);
    if (!root) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (!mkdtemp(root)) {
        rc = set_status(out, CMDFORM_WORKSPACE_ERROR, sentence(EN(CF_CANNOT_MKDIR), tmp, strerror(errno)));
        hk_free(root);
        goto out;
    }
    w->root = root;
    const char *wd_name = strrchr(real_wd, '/');
    wd_name = wd_name && wd_name[1] && strcmp(wd_name + 1, "cupti") ? wd_name + 1 : "workspace";
    w->dir = hk_asprintf("%s/%s", root, wd_name);
    w->cupti_dir = hk_asprintf("%s/cupti", root);
    w->lib_copy = hk_asprintf("%s/cupti/" CMDFORM_LIB_NAME, root);
    w->env_lib = w->lib_copy ? hk_asprintf("CUDA_INJECTION64_PATH=%s", w->lib_copy) : NULL;
    src_copy = w->dir ? hk_asprintf("%s/%s", w->dir, rel) : NULL;
    if (!w->dir || !w->cupti_dir || !w->lib_copy || !w->env_lib || !src_copy) {
        rc = HK_ENOMEM;
        goto out;
    }
    if (mkdir(w->cupti_dir, 0700) != 0 || copy_lib(lib, w->lib_copy) != HK_OK) {
        rc = set_status(out, CMDFORM_NO_CUPTI, sentence(EN(CF_CANNOT_COPY_INJ), lib, w->cupti_dir));
        goto out;
    }
    long t0 = now_ms();
    rc = cmdform_copy_tree(real_wd, w->dir, o, &out->copied_bytes, &out->copied_files, &why);
    out->copy_ms = now_ms() - t0;
    if (rc == HK_ENOMEM)
        goto out;
    if (rc) {
        rc = set_status(out, CMDFORM_WORKSPACE_ERROR, sentence(EN(CF_CANNOT_COPY_WS), why ? why : "?"));
        goto out;
    }
    if (stopped(o)) {
        rc = HK_ECANCELED;
        goto out;
    }

    /* the swap, in the copy only */
    if ((rc = read_file(src_copy, AN_TEXT_MAX_BYTES, &text, &text_len))) {
        if (rc != HK_ENOMEM)
            rc = set_status(out, CMDFORM_WORKSPACE_ERROR, sentence(EN(CF_CANNOT_READ), src_copy, hk_strerror(rc)));
        goto out;
    }
    an_span unused;
    hk_free(why);
    why = NULL;
    if (!kernel_text) {
        /* baseline: the file as it is, but the kernel must be there */
        rc = kernel_span(text, text_len, s->kernel, s->source_path, &unused, &why);
    } else if (o->candidate_is_file) {
        /* a whole file replaces the source: everything but the kernel's definition must be
         * the original's, or a constant the program's own check shares could change */
        unsigned line = 0;
        rc = cmdform_check_outside_kernel(text, text_len, kernel_text, len, s->kernel, &line, &why);
        if (rc == HK_OK && line) {
            rc = set_status(out, CMDFORM_HOST_CODE, why);
            why = NULL;
            goto out;
        }
        if (rc == HK_OK)
            rc = write_text(src_copy, kernel_text, len);
    } else {
        rc = cmdform_swap_kernel(text, text_len, s->kernel, kernel_text, len, &swapped, &swapped_len, &why);
        if (rc == HK_OK)
            rc = write_text(src_copy, swapped, swapped_len);
    }
    if (rc == HK_ENOMEM)
        goto out;
    if (rc) {
        rc = set_status(out, CMDFORM_SWAP_ERROR,
                        why ? sentence("%s", why) : sentence(EN(CF_CANNOT_SWAP), src_copy, hk_strerror(rc)));
        goto out;
    }

    /* build */
    long build_ms = 0;
    if (s->build && s->build[0]) {
        if ((rc = run_shell(o, s, s->build, w->dir, timeout_ms, NULL, NULL, false, &r)) == HK_ECANCELED || rc == HK_ENOMEM)
            goto out;
        build_ms = out->build_ms = r.wall_ms;
        out->isolation_words = r.isolation_words;
        if (r.error || rc) {
            rc = set_status(out, CMDFORM_BUILD_ERROR, sentence(EN(CF_BUILD_NOT_STARTED),
                                                               hk_strerror(r.error ? r.error : rc)));
            goto out;
        }
        if (r.timed_out) {
            rc = set_status(out, CMDFORM_BUILD_TIMEOUT,
                            sentence(EN(CF_BUILD_TIME_LIMIT), r.wall_ms, timeout_ms));
            goto out;
        }
        if (r.exit_code != 0 || r.term_signal) {
            bool err_has = r.err_len > 0;
            char *lines = cmdform_first_lines(err_has ? r.err : r.out, err_has ? r.err_len : r.out_len, BUILD_QUOTE_LINES);
            if (!lines) {
                rc = HK_ENOMEM;
                goto out;
            }
            if (r.term_signal)
                rc = set_status(out, CMDFORM_BUILD_ERROR,
                                sentence(EN(CF_BUILD_SIGNAL), r.term_signal, lines));
            else
                rc = set_status(out, CMDFORM_BUILD_ERROR,
                                sentence(EN(CF_BUILD_EXIT), r.exit_code, lines));
            hk_free(lines);
            goto out;
        }
    }
    w->run_timeout_ms = timeout_ms > build_ms + MIN_RUN_TIMEOUT_MS ? timeout_ms - (unsigned)build_ms : MIN_RUN_TIMEOUT_MS;
out:
    runner_result_free(&r);
    if (rc == HK_OK && out->status == CMDFORM_OK) {
        *ws_out = w;
    } else {
        if (w && w->root && o->keep_workspace && rc == HK_OK && w->dir) {
            /* a failed build is worth a look: keep it when asked */
            out->workspace = hk_strdup(w->dir);
            w->keep = out->workspace != NULL;
        }
        cmdform_ws_free(w);
    }
    hk_free(lib);
    free(real_wd); /* realpath: libc's allocator */
    free(real_src);
    hk_free(src_copy);
    hk_free(text);
    hk_free(swapped);
    hk_free(why);
    return rc;
}

int cmdform_run_once(cmdform_ws *w, cmdform_result *out)
{
    if (!w || !out || out->status != CMDFORM_OK || w->runs_done >= CMDFORM_MAX_RUNS)
        return HK_EINVAL;
    const cmdform_options *o = &w->o;
    int rc = HK_OK;
    char *records = NULL, *env_out = NULL, *env_nonce = NULL, *why = NULL;
    char nonce[40] = "";
    runner_result r = { 0 };
    unsigned i = w->runs_done++;
    if (out->n_runs == w->runs_cap) {
        size_t cap = w->runs_cap ? 2 * w->runs_cap : 8;
        cmdform_run *v = hk_realloc(out->runs, cap * sizeof *v);
        if (!v)
            return HK_ENOMEM;
        out->runs = v;
        w->runs_cap = cap;
    }
    records = hk_asprintf("%s/run_%u.jsonl", w->cupti_dir, i);
    env_out = records ? hk_asprintf("HK_CUPTI_OUT=%s", records) : NULL;
    if (!env_out) {
        rc = HK_ENOMEM;
        goto out;
    }
    {
        uint64_t r2[2] = { 0, 0 };
        if (getrandom(r2, sizeof r2, 0) != (ssize_t)sizeof r2) {
            rc = HK_EIO;
            goto out;
        }
        snprintf(nonce, sizeof nonce, "%016llx%016llx", (unsigned long long)r2[0],
                 (unsigned long long)r2[1]);
        if (!(env_nonce = hk_asprintf("HK_CUPTI_NONCE=%s", nonce))) {
            rc = HK_ENOMEM;
            goto out;
        }
    }
    unlink(records);
    const char *env_set[] = { w->env_lib, env_out, env_nonce, NULL };
    const char *writable[] = { w->cupti_dir, NULL };
    if ((rc = run_shell(o, w->s, w->s->run, w->dir, w->run_timeout_ms, env_set, writable, true, &r)) == HK_ECANCELED ||
        rc == HK_ENOMEM)
        goto out;
    rc = HK_OK;
    out->isolation_words = r.isolation_words;
    enum cmdform_status st;
    if ((rc = cmdform_gate(w->s, &r, &st, &why)))
        goto out;
    if (st != CMDFORM_OK) {
        /* a failing program that never loaded the library most likely had no GPU */
        struct stat rst;
        bool loaded = stat(records, &rst) == 0 && rst.st_size > 0;
        if (!loaded && (st == CMDFORM_RUN_FAILED || st == CMDFORM_RUN_CRASHED))
            rc = set_status(out, CMDFORM_NO_CUPTI,
                            sentence(EN(CF_RUN_N_NO_INJ), i + 1, why));
        else
            rc = set_status(out, st, sentence(EN(CF_RUN_N), i + 1, why));
        goto out;
    }
    cmdform_run *cr = &out->runs[out->n_runs];
    memset(cr, 0, sizeof *cr);
    hk_free(why);
    why = NULL;
    if ((rc = cmdform_records_read_nonce(records, w->s->kernel, nonce, cr, &out->kernel_names,
                                         &out->n_kernel_names, &st, &why)))
        goto out;
    if (st != CMDFORM_OK) {
        rc = set_status(out, st, sentence(EN(CF_RUN_N), i + 1, why));
        goto out;
    }
    cr->wall_ms = r.wall_ms;
    if (out->n_runs > 0 && cr->launches != out->runs[0].launches)
        HK_WARN("cmdform: %s: launches of %s differ between runs (%u, then %u)", w->s->source_path,
                w->s->kernel, out->runs[0].launches, cr->launches);
    out->n_runs++;
    summarize(out);
out:
    runner_result_free(&r);
    hk_free(records);
    hk_free(env_out);
    hk_free(env_nonce);
    hk_free(why);
    return rc;
}

bool cmdform_ws_keep(cmdform_ws *w, char **dir)
{
    *dir = w ? hk_strdup(w->dir) : NULL;
    if (*dir)
        w->keep = true;
    return *dir != NULL;
}

int cmdform_measure(const spec *s, const char *kernel_text, size_t len, const cmdform_options *opts,
                    cmdform_result *out)
{
    cmdform_options defaults = { 0 };
    const cmdform_options *o = opts ? opts : &defaults;
    unsigned runs = o->runs ? o->runs : CMDFORM_DEFAULT_RUNS;
    cmdform_ws *w = NULL;
    int rc = cmdform_prepare(s, kernel_text, len, o, &w, out);
    if (rc || !w)
        return rc; /* an outcome (out->status) or an error */
    for (unsigned i = 0; i < runs && rc == HK_OK && out->status == CMDFORM_OK; i++) {
        if (stopped(o))
            rc = HK_ECANCELED;
        else
            rc = cmdform_run_once(w, out);
    }
    if (rc == HK_OK && out->status != CMDFORM_OK) {
        /* an outcome other than ok keeps no runs: nothing was measured in full */
        hk_free(out->runs);
        out->runs = NULL;
        out->n_runs = 0;
        out->timing.median_ms = out->timing.p10_ms = out->timing.p90_ms = out->timing.min_ms = NAN;
        out->timing.spread = out->max_ms = NAN;
        out->timing.reps = 0;
    }
    if (rc == HK_OK && o->keep_workspace && !out->workspace && !cmdform_ws_keep(w, &out->workspace))
        rc = HK_ENOMEM;
    cmdform_ws_free(w);
    return rc;
}

json_t *cmdform_result_json(const cmdform_result *r)
{
    json_t *j = json_object(), *runs = json_array(), *names = json_array();
    if (!j || !runs || !names)
        goto fail;
    for (size_t i = 0; i < r->n_runs; i++) {
        const cmdform_run *cr = &r->runs[i];
        json_t *o = json_pack("{s:f, s:i, s:i, s:i, s:I}", "kernel_ms", cr->kernel_ms, "launches",
                              (int)cr->launches, "processes", (int)cr->processes, "other_kernels",
                              (int)cr->other_kernels, "wall_ms", (json_int_t)cr->wall_ms);
        if (!o || json_array_append_new(runs, o))
            goto fail;
    }
    for (size_t i = 0; i < r->n_kernel_names; i++)
        if (json_array_append_new(names, json_string(r->kernel_names[i])))
            goto fail;
    if (json_object_set_new(j, "status", json_string(cmdform_status_name(r->status))) ||
        json_object_set_new(j, "reason", json_string(measure_reason_name(cmdform_status_reason(r->status)))) ||
        json_object_set_new(j, "details", r->details ? json_string(r->details) : json_null()) ||
        json_object_set_new(j, "timer", json_string("cupti")) ||
        json_object_set_new(j, "runs", runs))
        goto fail_owned;
    runs = NULL;
    if (json_object_set_new(j, "kernel_names", names))
        goto fail_owned;
    names = NULL;
    const struct { const char *k; double v; } nums[] = {
        { "median_ms", r->timing.median_ms }, { "p10_ms", r->timing.p10_ms }, { "p90_ms", r->timing.p90_ms },
        { "min_ms", r->timing.min_ms }, { "max_ms", r->max_ms }, { "spread", r->timing.spread },
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(nums); i++)
        if (json_object_set_new(j, nums[i].k, isfinite(nums[i].v) ? json_real(nums[i].v) : json_null()))
            goto fail_owned;
    if (json_object_set_new(j, "build_ms", json_integer(r->build_ms)) ||
        json_object_set_new(j, "copy_ms", json_integer(r->copy_ms)) ||
        json_object_set_new(j, "copied_bytes", json_integer((json_int_t)r->copied_bytes)) ||
        json_object_set_new(j, "copied_files", json_integer((json_int_t)r->copied_files)) ||
        json_object_set_new(j, "isolation", r->isolation_words ? json_string(r->isolation_words) : json_null()))
        goto fail_owned;
    return j;
fail:
fail_owned:
    json_decref(j);
    json_decref(runs);
    json_decref(names);
    return NULL;
}
