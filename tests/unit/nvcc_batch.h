/* Compile checks of many generated CUDA texts in few nvcc runs, for the tests that make
 * dozens of them (test_engine_rewrite_mem, test_engine_rewrite_suite, and every test's
 * rwf_nvcc_compiles: rw_fixture.h). Test code only:
 * include after cmocka.h, core/hk.h, runners/runner.h and test_nvcc.h (NVCC).
 *
 * Each text is written to DIR/NAME.cu. nvb_compile_all() checks that every one compiles
 * with nvcc -arch=sm_90 -cubin -std=c++17, device code only: nvcc's front end still parses and checks
 * the whole text, host functions included (an undefined name in host code fails as under
 * -c), but no host compiler runs and no object is written that nobody links. Most of a
 * small compile is nvcc parsing its own headers, so texts that can share a translation
 * unit are compiled together, each in a namespace of its own (nvb_write_batch), in one
 * nvcc run instead of one each; bench/results/2026-12-02-ci-time.md has the figures.
 *
 * A batch never passes a text that fails alone: a text shares one only when its own
 * #include lines are exactly the batch's (no header reaches it from another text) and come
 * before any other directive, and its #if lines are balanced; macros it defines are
 * undefined after it; after each text, markers declared at its start and end must both
 * be found at file scope, so a brace, comment or string left open by one text and closed
 * by the next fails the batch. A batch that fails is compiled again one text at a time, and
 * only the texts that fail alone fail the test (with nvcc's messages on them).
 *
 * A text queued with nvb_add_strict fails on any nvcc warning too (a test that fails on
 * warnings: test_engine_rewrite_rows). Its batch is still one nvcc run; when that run says
 * "warning" anywhere, every strict text of it is compiled again alone, and a strict text
 * whose own run warns fails, named, with nvcc's messages (a warning in the batch names its
 * text's file too: each text has its own #line). Strict texts share batches only with
 * strict texts, so that a text allowed to warn does not send the strict ones beside it to
 * be compiled alone (test_engine_rewrite_grid2d: 9 texts in 8 runs, now 2). A strict text with a #pragma line other
 * than #pragma unroll (one that could silence a warning for the texts after it) is
 * compiled alone.
 *
 * A text queued with nvb_add_ptx is compiled to PTX (nvcc -arch=sm_90 -ptx -std=c++17)
 * instead, and its own PTX is what the test reads (nvb_ptx, or the check it queued with the
 * text, run by nvb_compile_all). PTX texts share batches only with PTX texts, under the same
 * rules, and each text's PTX is cut back out of the batch's (nvb_ptx_split): the module's
 * header (.version, .target, .address_size), then, in the batch's order, every top-level
 * statement (a .entry or .func with its body, a prototype, a .global/.shared/.const
 * variable) whose name holds the text's namespace (mangled: 8hk_nvb_K or 9hk_nvb_KK), and
 * the statements of no text's namespace (what the shared headers define: math library
 * functions, their tables, vprintf's prototype, string constants) that the text's own
 * statements name, directly or through each other; a statement of no namespace that no
 * text names goes to every text, as each text's own compile would emit it. A comment line
 * between statements ("// .globl NAME") goes to the text its name is of, else to every text. So a pattern
 * never matches another text's code. A batch whose PTX has an entry of no text's namespace
 * (an extern "C" kernel keeps its name inside a namespace) or a statement it cannot read is
 * not cut, and so is one with another top-level directive (.file, .section: debug
 * information): each of its texts is compiled to PTX alone. nvcc's code for a function does not
 * depend on the other functions of its translation unit (the namespace changes only the
 * names): bench/results/2026-12-06-ci-time-s39.md compares the cut PTX with each text's own
 * compile. */
#ifndef HK_TEST_NVCC_BATCH_H
#define HK_TEST_NVCC_BATCH_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NVB_MAX_JOBS 512
#define NVB_MAX_PER_BATCH 64

typedef struct {
    char name[256];
    char path[1024];    /* DIR/NAME.cu, the text alone */
    char *text;         /* malloc'd */
    char *includes;     /* its #include lines in order, malloc'd; NULL: compiled alone */
    char *undefs;       /* "#undef M\n" for each macro it defines, malloc'd */
    bool batched;
    bool strict;        /* a warning fails it too (nvb_add_strict) */
    bool failed;        /* failed alone (after nvb_check_all) */
    bool ptx;           /* compiled to PTX, not a cubin (nvb_add_ptx) */
    char *ptx_text;     /* its own PTX after nvb_check_all (malloc'd), NULL when it failed */
    void (*ptx_check)(const char *name, const char *ptx, const void *arg); /* run on ptx_text */
    const void *ptx_arg;
} nvb_job;

static nvb_job nvb_jobs[NVB_MAX_JOBS];
static size_t nvb_n_jobs;

/* The directive on line (after '#' and blanks), or NULL when line is not one. */
static const char *nvb_directive(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line != '#')
        return NULL;
    line++;
    while (*line == ' ' || *line == '\t')
        line++;
    return line;
}

static bool nvb_is(const char *dir, const char *word)
{
    size_t n = strlen(word);
    return !strncmp(dir, word, n) && (dir[n] == ' ' || dir[n] == '\t' || dir[n] == '\n' ||
                                      dir[n] == '\0' || dir[n] == '<' || dir[n] == '"');
}

/* Fills j->includes and j->undefs from j->text, or leaves includes NULL when the text must
 * be compiled alone (see the head of this file). */
static void nvb_scan(nvb_job *j)
{
    char *inc = NULL, *und = NULL;
    size_t inc_len = 0, und_len = 0;
    FILE *fi = open_memstream(&inc, &inc_len), *fu = open_memstream(&und, &und_len);
    assert_true(fi && fu);
    bool other_directive = false, ok = true;
    long depth = 0;
    for (const char *line = j->text; line && *line;) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        const char *d = nvb_directive(line);
        if (d && nvb_is(d, "include")) {
            /* only <system> headers, and only before any other directive */
            const char *q = d + 7;
            while (*q == ' ' || *q == '\t')
                q++;
            ok = ok && !other_directive && *q == '<';
            fprintf(fi, "%.*s\n", len, line);
        } else if (d && *d) {
            other_directive = true;
            if (nvb_is(d, "if") || nvb_is(d, "ifdef") || nvb_is(d, "ifndef"))
                depth++;
            else if (nvb_is(d, "endif"))
                depth--;
            else if (nvb_is(d, "define")) {
                const char *m = d + 6;
                while (*m == ' ' || *m == '\t')
                    m++;
                size_t ml = strspn(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                      "0123456789_");
                if (ml)
                    fprintf(fu, "#undef %.*s\n", (int)ml, m);
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    fclose(fi);
    fclose(fu);
    j->undefs = und;
    if (ok && depth == 0) {
        j->includes = inc;
    } else {
        free(inc);
        j->includes = NULL;
    }
}

/* Writes text as DIR/NAME.cu and queues its compile check. */
static void nvb_add(const char *dir, const char *name, const char *text, size_t len)
{
    assert_true(nvb_n_jobs < NVB_MAX_JOBS);
    nvb_job *j = &nvb_jobs[nvb_n_jobs++];
    memset(j, 0, sizeof *j);
    snprintf(j->name, sizeof j->name, "%s", name);
    snprintf(j->path, sizeof j->path, "%s/%s.cu", dir, name);
    FILE *f = fopen(j->path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
    j->text = malloc(len + 1);
    assert_non_null(j->text);
    memcpy(j->text, text, len);
    j->text[len] = '\0';
    nvb_scan(j);
}

/* Writes the batch of the jobs at idx[0..n) to path: their shared #include lines, then each
 * text in namespace hk_nvb_K with #line naming its own file, its macros undefined after it,
 * and the file-scope check of its markers. */
static void nvb_write_batch(const char *path, const size_t *idx, size_t n)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s", nvb_jobs[idx[0]].includes);
    for (size_t k = 0; k < n; k++) {
        const nvb_job *j = &nvb_jobs[idx[k]];
        const char *base = strrchr(j->path, '/');
        fprintf(f, "namespace hk_nvb_%zu { int hk_nvb_begin; }\nnamespace hk_nvb_%zu {\n"
                   "#line 1 \"%s\"\n%s\n}\n%s",
                k, k, base ? base + 1 : j->path, j->text, j->undefs);
        fprintf(f, "namespace hk_nvb_%zu { int hk_nvb_end; }\n"
                   "static_assert(sizeof(::hk_nvb_%zu::hk_nvb_begin) + "
                   "sizeof(::hk_nvb_%zu::hk_nvb_end) > 0, \"text %zu ends at file scope\");\n",
                k, k, k, k);
    }
    assert_int_equal(fclose(f), 0);
}

/* nvb_add, and any nvcc warning on the text fails it too (see the head of this file). */
static inline void nvb_add_strict(const char *dir, const char *name, const char *text, size_t len)
{
    nvb_add(dir, name, text, len);
    nvb_job *j = &nvb_jobs[nvb_n_jobs - 1];
    j->strict = true;
    for (const char *line = j->text; line && *line;) {
        const char *d = nvb_directive(line);
        if (d && nvb_is(d, "pragma")) {
            /* #pragma unroll [N] acts on the loop after it; any other could reach the next
             * texts (nv_diag_suppress, diagnostic push, ...) */
            const char *q = d + 6;
            while (*q == ' ' || *q == '\t')
                q++;
            const char *w = "unroll";
            if (strncmp(q, w, strlen(w)) || (q[6] && !strchr(" \t\n(", q[6]))) {
                free(j->includes);
                j->includes = NULL;
                break;
            }
        }
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : NULL;
    }
}

/* Queues text's compile to PTX (see the head of this file); strict: a warning fails it too
 * (as nvb_add_strict). check (may be NULL) runs on the text's own PTX after the compile
 * (nvb_compile_all), with arg: it asserts what the test wants of the PTX. */
static inline void nvb_add_ptx(const char *dir, const char *name, const char *text, size_t len, bool strict,
                               void (*check)(const char *name, const char *ptx, const void *arg), const void *arg)
{
    if (strict)
        nvb_add_strict(dir, name, text, len);
    else
        nvb_add(dir, name, text, len);
    nvb_job *j = &nvb_jobs[nvb_n_jobs - 1];
    j->ptx = true;
    j->ptx_check = check;
    j->ptx_arg = arg;
}

/* The PTX of the queued text NAME after nvb_check_all, or NULL (not queued, or it failed). */
static inline const char *nvb_ptx(const char *name)
{
    for (size_t i = 0; i < nvb_n_jobs; i++)
        if (!strcmp(nvb_jobs[i].name, name))
            return nvb_jobs[i].ptx_text;
    return NULL;
}

/* ---- cutting one text's PTX out of a batch's ---- */

typedef struct {
    const char *start, *end; /* the statement's lines */
    char name[512];          /* the symbol it declares or defines; "" for a loose line */
    int text;                /* the batch position K of the namespace in its name, -1: none */
    bool entry;              /* a .entry */
} nvb_stmt;

static bool nvb_symch(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* The symbol a statement's first line declares: the last name before its first unmatched
 * '(' or its '[', ';', '=' (a return value's "(...)" before the name skipped). */
static void nvb_stmt_name(const char *line, const char *eol, char *name, size_t cap)
{
    const char *last = NULL, *last_end = NULL;
    for (const char *p = line; p < eol; p++) {
        if (*p == '(') {
            const char *close = memchr(p, ')', (size_t)(eol - p));
            if (!close)
                break;
            p = close; /* (.param ... func_retval0) */
            continue;
        }
        if (*p == '[' || *p == ';' || *p == '=')
            break;
        if (nvb_symch(*p) && (p == line || !nvb_symch(p[-1]))) {
            const char *q = p;
            while (q < eol && nvb_symch(*q))
                q++;
            last = p;
            last_end = q;
            p = q - 1;
        }
    }
    size_t n = last ? (size_t)(last_end - last) : 0;
    if (n >= cap)
        n = cap - 1;
    memcpy(name, last ? last : "", n);
    name[n] = '\0';
}

/* The batch position K of the namespace hk_nvb_K in name (as mangled: its length, 8 or 9,
 * then hk_nvb_ and K's digits), or -1; -2 when name holds two different ones. */
static int nvb_name_text(const char *name)
{
    int found = -1;
    for (const char *p = strstr(name, "hk_nvb_"); p; p = strstr(p + 1, "hk_nvb_")) {
        if (p == name || (p[-1] != '8' && p[-1] != '9'))
            continue;
        int digits = p[-1] - '0' - 7, k = 0;
        bool ok = true;
        for (int i = 0; i < digits; i++) {
            char c = p[7 + i];
            ok = ok && c >= '0' && c <= '9';
            k = k * 10 + (ok ? c - '0' : 0);
        }
        if (!ok || (digits == 2 && p[7] == '0'))
            continue;
        if (found >= 0 && found != k)
            return -2;
        found = k;
    }
    return found;
}

/* Whether the statement's lines name sym as a whole symbol. */
static bool nvb_stmt_names(const nvb_stmt *st, const char *sym)
{
    size_t n = strlen(sym);
    if (!n)
        return false;
    for (const char *p = st->start; p < st->end; p++) {
        p = memmem(p, (size_t)(st->end - p), sym, n);
        if (!p)
            return false;
        if ((p == st->start || !nvb_symch(p[-1])) && (p + n >= st->end || !nvb_symch(p[n])))
            return true;
    }
    return false;
}

/* Cuts the PTX of each of the n texts out of the batch's ptx (see the head of this file):
 * out[k] malloc'd. false (nothing cut) when a statement cannot be read or an entry belongs to
 * no text. */
static bool nvb_ptx_split(const char *ptx, size_t n, char **out)
{
    size_t cap = 64, ns = 0;
    nvb_stmt *st = malloc(cap * sizeof *st);
    assert_non_null(st);
    const char *header_end = NULL, *cur = NULL;
    bool in_body = false, ok = true;
    nvb_stmt *s = NULL;
    for (const char *line = ptx; *line && ok;) {
        const char *nl = strchr(line, '\n');
        const char *eol = nl ? nl : line + strlen(line), *next = nl ? nl + 1 : eol;
        size_t len = (size_t)(eol - line);
        if (!header_end) {
            /* the header: comments, .version, .target, then .address_size */
            if (!strncmp(line, ".address_size", 13))
                header_end = next;
            else if (*line == '.' && strncmp(line, ".version", 8) && strncmp(line, ".target", 7))
                ok = false;
            line = next;
            continue;
        }
        if (!cur) {
            if (ns == cap) {
                cap *= 2;
                st = realloc(st, cap * sizeof *st);
                assert_non_null(st);
            }
            s = &st[ns++];
            memset(s, 0, sizeof *s);
            s->start = line;
            if (*line != '.') {
                /* a loose line (blank, comment: "// .globl NAME", "// NAME has been
                 * demoted"): the text of the namespace it names, else every text */
                char buf[512];
                snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), line);
                s->text = nvb_name_text(buf);
                s->end = next;
                ok = s->text != -2 && s->text < (int)n;
                line = next;
                continue;
            }
            /* only the statements read here; any other directive (.file, .section: debug
             * information; .alias, .pragma) is refused */
            static const char *const kinds[] = {".visible ", ".extern ", ".weak ", ".entry ",
                                                ".func ", ".global ", ".const ", ".shared "};
            bool known = false;
            for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
                known = known || !strncmp(line, kinds[i], strlen(kinds[i]));
            if (!known) {
                ok = false;
                break;
            }
            nvb_stmt_name(line, eol, s->name, sizeof s->name);
            s->text = nvb_name_text(s->name);
            const char *e = strstr(line, ".entry ");
            s->entry = e && e < eol;
            ok = s->name[0] && s->text != -2 && s->text < (int)n;
            cur = line;
            in_body = false;
        }
        /* a statement ends with its body's closing brace, or without a body at a line
         * that is not a parameter's and ends with ';' */
        if (len == 1 && *line == '{')
            in_body = true;
        else if (in_body && len == 1 && *line == '}')
            cur = NULL;
        else if (!in_body && *line != ' ' && *line != '\t' && len && eol[-1] == ';')
            cur = NULL;
        if (!cur)
            s->end = next;
        line = next;
    }
    if (cur || !header_end)
        ok = false;
    for (size_t i = 0; i < ns && ok; i++)
        ok = !(st[i].entry && st[i].text < 0);
    if (!ok) {
        free(st);
        return false;
    }
    /* which texts each statement goes to: a text's own, then what they name, to a fixpoint */
    bool *to = calloc(ns * (n ? n : 1), sizeof *to);
    assert_non_null(to);
    for (size_t i = 0; i < ns; i++)
        if (st[i].text >= 0)
            to[i * n + (size_t)st[i].text] = true;
    for (bool grew = true; grew;) {
        grew = false;
        for (size_t i = 0; i < ns; i++) {
            if (st[i].text >= 0)
                continue;
            for (size_t k = 0; k < n; k++) {
                if (to[i * n + k])
                    continue;
                for (size_t j = 0; j < ns; j++)
                    if (j != i && to[j * n + k] && nvb_stmt_names(&st[j], st[i].name)) {
                        to[i * n + k] = grew = true;
                        break;
                    }
            }
        }
    }
    for (size_t i = 0; i < ns; i++) {
        bool any = false;
        for (size_t k = 0; k < n; k++)
            any = any || to[i * n + k];
        for (size_t k = 0; k < n && !any; k++)
            to[i * n + k] = true; /* named by no text: every text's own compile has it */
    }
    for (size_t k = 0; k < n; k++) {
        char *buf = NULL;
        size_t blen = 0;
        FILE *f = open_memstream(&buf, &blen);
        assert_non_null(f);
        fwrite(ptx, 1, (size_t)(header_end - ptx), f);
        for (size_t i = 0; i < ns; i++)
            if (to[i * n + k])
                fwrite(st[i].start, 1, (size_t)(st[i].end - st[i].start), f);
        assert_int_equal(fclose(f), 0);
        out[k] = buf;
    }
    free(to);
    free(st);
    return true;
}

/* The file at path, malloc'd, or NULL. */
static char *nvb_read(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, got, m);
    fclose(f);
    assert_int_equal(fclose(m), 0);
    return buf;
}

/* Whether a run's output (stdout or stderr) holds a warning, as the tests' single compiles
 * that fail on warnings look for one. */
static bool nvb_warned(const runner_result *r)
{
    return (r->out && strstr(r->out, "warning")) || (r->err && strstr(r->err, "warning"));
}

typedef struct {
    char path[1024];
    size_t first, n; /* into the batch's index list */
} nvb_unit;

static size_t nvb_runs; /* nvcc runs of the last nvb_compile_all */

static void nvb_submit(runner_pool *p, const char *dir, const char *src, void *tag, bool ptx)
{
    char out[1040];
    snprintf(out, sizeof out, "%s.%s", src, ptx ? "ptx" : "cubin");
    /* -std=c++17: nvcc 12 and 13's default, given as the tests' single compiles give it */
    const char *argv[] = {NVCC, "-arch=sm_90", ptx ? "-ptx" : "-cubin", "-std=c++17", "-o", out, src, NULL};
    runner_spec s = {.argv = argv, .cwd = dir, .timeout_ms = 300000,
                     .isolation = RUNNER_ISO_NONE};
    assert_int_equal(runner_pool_submit(p, &s, tag), HK_OK);
    nvb_runs++;
}

/* A job compiled alone. */
static void nvb_submit_job(runner_pool *p, const char *dir, nvb_job *j)
{
    nvb_submit(p, dir, j->path, j, j->ptx);
}

/* Groups the batchable texts by their #include lines and strictness, in queue order, into
 * units (at most NVB_MAX_PER_BATCH texts each, their indexes in order[]) and writes each
 * unit's batch. */
static size_t nvb_plan(const char *dir, nvb_unit *units, size_t *order)
{
    size_t n_order = 0, n_units = 0;
    for (size_t i = 0; i < nvb_n_jobs; i++) {
        nvb_job *j = &nvb_jobs[i];
        if (!j->includes || j->batched)
            continue;
        nvb_unit *u = &units[n_units];
        u->first = n_order;
        u->n = 0;
        for (size_t k = i; k < nvb_n_jobs && u->n < NVB_MAX_PER_BATCH; k++) {
            nvb_job *o = &nvb_jobs[k];
            if (o->includes && !o->batched && o->strict == j->strict && o->ptx == j->ptx &&
                !strcmp(o->includes, j->includes)) {
                o->batched = true;
                order[n_order++] = k;
                u->n++;
            }
        }
        snprintf(u->path, sizeof u->path, "%s/nvb_batch_%zu.cu", dir, n_units);
        nvb_write_batch(u->path, order + u->first, u->n);
        n_units++;
    }
    return n_units;
}

/* Compiles every queued text (see the head of this file), two nvcc at a time, and returns
 * how many failed alone (their failed flag set, nvcc's messages printed); -1 without nvcc.
 * The texts stay queued until nvb_reset(). */
static long nvb_check_all(const char *dir)
{
    nvb_runs = 0;
    if (access(NVCC, X_OK) != 0)
        return -1;
    static size_t order[NVB_MAX_JOBS];
    static nvb_unit units[NVB_MAX_JOBS];
    size_t n_units = nvb_plan(dir, units, order);
    runner_pool *p;
    assert_int_equal(runner_pool_new(2, &p), HK_OK);
    for (size_t u = 0; u < n_units; u++)
        nvb_submit(p, dir, units[u].path, &units[u], nvb_jobs[order[units[u].first]].ptx);
    for (size_t i = 0; i < nvb_n_jobs; i++)
        if (!nvb_jobs[i].batched)
            nvb_submit_job(p, dir, &nvb_jobs[i]);
    long failed = 0;
    void *tag;
    runner_result r;
    while (runner_pool_wait(p, -1, &tag, &r) == HK_OK) {
        bool ok = r.error == HK_OK && r.exit_code == 0;
        bool is_unit = false; /* a batch, or one text alone */
        for (size_t u = 0; u < n_units && !is_unit; u++)
            is_unit = tag == (void *)&units[u];
        if (is_unit && !ok) {
            /* the batch failed: each of its texts alone decides */
            const nvb_unit *u = tag;
            print_message("the batch %s of %zu texts failed; each is compiled alone:\n%s\n",
                          u->path, u->n, r.err);
            for (size_t k = 0; k < u->n; k++)
                nvb_submit_job(p, dir, &nvb_jobs[order[u->first + k]]);
        } else if (is_unit && nvb_warned(&r) && nvb_jobs[order[((const nvb_unit *)tag)->first]].strict) {
            /* the batch compiled but warned: each strict text of it alone decides */
            const nvb_unit *u = tag;
            size_t n_strict = 0;
            for (size_t k = 0; k < u->n; k++)
                n_strict += nvb_jobs[order[u->first + k]].strict;
            if (n_strict)
                print_message("the batch %s of %zu texts warned; its %zu strict texts are compiled "
                              "alone:\n%s%s\n", u->path, u->n, n_strict, r.out, r.err);
            for (size_t k = 0; k < u->n; k++)
                if (nvb_jobs[order[u->first + k]].strict)
                    nvb_submit_job(p, dir, &nvb_jobs[order[u->first + k]]);
        } else if (is_unit && nvb_jobs[order[((const nvb_unit *)tag)->first]].ptx) {
            /* a PTX batch that compiled: each text's PTX cut out of it, or each compiled
             * alone when it cannot be */
            const nvb_unit *u = tag;
            char path[1100], *cut[NVB_MAX_PER_BATCH];
            snprintf(path, sizeof path, "%s.ptx", u->path);
            char *ptx = nvb_read(path);
            assert_non_null(ptx);
            if (nvb_ptx_split(ptx, u->n, cut)) {
                for (size_t k = 0; k < u->n; k++)
                    nvb_jobs[order[u->first + k]].ptx_text = cut[k];
            } else {
                print_message("the PTX of the batch %s cannot be cut per text; each is compiled alone\n",
                              u->path);
                for (size_t k = 0; k < u->n; k++)
                    nvb_submit_job(p, dir, &nvb_jobs[order[u->first + k]]);
            }
            free(ptx);
        } else if (!is_unit && !ok) {
            nvb_job *j = tag;
            j->failed = true;
            failed++;
            print_message("nvcc failed on %s (exit %d):\n%s\n", j->name, r.exit_code, r.err);
        } else if (!is_unit && ((nvb_job *)tag)->strict && nvb_warned(&r)) {
            nvb_job *j = tag;
            j->failed = true;
            failed++;
            print_message("nvcc warned on %s (a warning fails it):\n%s%s\n", j->name, r.out, r.err);
        } else if (!is_unit && ((nvb_job *)tag)->ptx) {
            nvb_job *j = tag;
            char path[1100];
            snprintf(path, sizeof path, "%s.ptx", j->path);
            free(j->ptx_text);
            j->ptx_text = nvb_read(path);
            assert_non_null(j->ptx_text);
        }
        runner_result_free(&r);
    }
    runner_pool_free(p);
    size_t n_ptx = 0;
    for (size_t i = 0; i < nvb_n_jobs; i++)
        n_ptx += nvb_jobs[i].ptx;
    if (n_ptx)
        print_message("%zu texts compiled with nvcc -arch=sm_90 (%zu -cubin, %zu -ptx) in %zu nvcc runs, "
                      "%ld failed\n", nvb_n_jobs, nvb_n_jobs - n_ptx, n_ptx, nvb_runs, failed);
    else
        print_message("%zu texts compiled with nvcc -arch=sm_90 -cubin in %zu nvcc runs, %ld failed\n",
                      nvb_n_jobs, nvb_runs, failed);
    return failed;
}

/* Drops the queued texts. */
static void nvb_reset(void)
{
    for (size_t i = 0; i < nvb_n_jobs; i++) {
        free(nvb_jobs[i].text);
        free(nvb_jobs[i].includes);
        free(nvb_jobs[i].undefs);
        free(nvb_jobs[i].ptx_text);
    }
    nvb_n_jobs = 0;
}

/* Every queued text must compile (nvb_check_all; a text that fails is printed after nvcc's
 * messages on it); says so and drops them without nvcc. */
static void nvb_compile_all(const char *dir)
{
    size_t n = nvb_n_jobs;
    long failed = nvb_check_all(dir);
    for (size_t i = 0; i < nvb_n_jobs; i++)
        if (nvb_jobs[i].failed)
            print_message("the text of %s:\n%s\n---\n", nvb_jobs[i].name, nvb_jobs[i].text);
    /* each PTX text's own PTX kept beside it (DIR/NAME.cu.ptx); the checks run once the
     * queue is dropped (a check that fails ends the test, and the queue must not look
     * unchecked then) */
    static struct {
        char name[256];
        char *ptx;
        void (*check)(const char *name, const char *ptx, const void *arg);
        const void *arg;
    } checks[NVB_MAX_JOBS];
    size_t n_checks = 0;
    for (size_t i = 0; i < nvb_n_jobs && failed == 0; i++) {
        nvb_job *j = &nvb_jobs[i];
        if (!j->ptx)
            continue;
        assert_non_null(j->ptx_text);
        char path[1100];
        snprintf(path, sizeof path, "%s.ptx", j->path);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(j->ptx_text, f);
        assert_int_equal(fclose(f), 0);
        if (!j->ptx_check)
            continue;
        snprintf(checks[n_checks].name, sizeof checks[n_checks].name, "%s", j->name);
        checks[n_checks].ptx = j->ptx_text;
        checks[n_checks].check = j->ptx_check;
        checks[n_checks].arg = j->ptx_arg;
        j->ptx_text = NULL;
        n_checks++;
    }
    nvb_reset();
    for (size_t i = 0; i < n_checks; i++) {
        checks[i].check(checks[i].name, checks[i].ptx, checks[i].arg);
        free(checks[i].ptx);
    }
    if (failed < 0)
        print_message("note: no nvcc at %s: %zu compile checks skipped\n", NVCC, n);
    assert_true(failed <= 0);
}

#endif
