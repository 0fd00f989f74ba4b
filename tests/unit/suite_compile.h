/* Helpers shared by the suite tests (test_engine_suite*.c, test_engine_rewrite_pattern):
 * listing files, loading a spec that must be clean, and generating + compiling harness
 * programs or candidate images with nvcc, two at a time, through the suite's compile cache
 * when the run has one (test_nvcc.h); compile_programs_batched checks many programs in few
 * nvcc runs (prog_batch.h), compile_batched the candidates' device-only images too. Test code only: cmocka asserts on every failure. Include after
 * cmocka.h, core/hk.h, measure/harness.h and spec/spec.h. */
#ifndef HK_TEST_SUITE_COMPILE_H
#define HK_TEST_SUITE_COMPILE_H

#include <glob.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prog_batch.h"
#include "test_nvcc.h" /* NVCC: through the suite's compile cache when the run has one */
#define SUITE_DIR HK_SOURCE_DIR "/bench/kernels"
#define CHEAT_DIR HK_SOURCE_DIR "/tests/gpu/cheats"
#define MAX_SPECS 256

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = hk_calloc(1, 1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (len)
        *len = n;
    return buf;
}

static inline size_t list(const char *pattern, char **out, size_t max)
{
    glob_t g;
    size_t n = 0;
    if (glob(pattern, 0, NULL, &g) == 0) {
        /* every file or none: a cap that dropped the last ones would leave them unchecked
         * without a word (80 cheats against a cap of 64 did, until session 42) */
        assert_true(g.gl_pathc <= max);
        for (size_t i = 0; i < g.gl_pathc && n < max; i++)
            out[n++] = hk_strdup(g.gl_pathv[i]);
        globfree(&g);
    }
    return n;
}

static inline spec *load_clean(const char *path)
{
    spec_diags d = { 0 };
    spec *s = NULL;
    int rc = spec_load(path, &s, &d);
    for (size_t i = 0; i < d.n; i++) {
        char *m = spec_diag_format(&d.items[i], path);
        fprintf(stderr, "%s\n", m ? m : "(no memory)");
        hk_free(m);
    }
    size_t n_diags = d.n;
    spec_diags_free(&d);
    assert_int_equal(rc, HK_OK);
    assert_int_equal(n_diags, 0); /* warnings count too: the suite is the worked example */
    return s;
}

/* ---- compiling: up to two nvcc at a time (the build machines have 2 cores) ---- */

/* What compile_jobs() builds of a job. A linked benchmark program costs about 10 s of CPU
 * (gcc on hk_harness.h's host code, then the link), its -cubin check about 2.5 s, an image
 * about 1 s (bench/results/2026-12-03-ci-cold.md). */
enum suite_build {
    /* the benchmark program (harness_generate with the candidate) as harness_nvcc_argv
     * builds it: an executable, link included */
    SUITE_PROGRAM,
    /* the same text and flags with -cubin: nvcc's front end parses and checks the whole
     * text, host code included (the spec's expressions in hk_setup, the typed launch's
     * static_assert on the parameter count), and the kernel's device code is compiled; only
     * gcc's pass over the host side and the link are left out */
    SUITE_PROGRAM_CUBIN,
    /* the candidate's device-only image as the referee builds it on CUDA (measure.c's
     * prepare_image: harness_module_generate, harness_cubin_argv with -Xptxas -v): what a
     * GPU run compiles of a candidate */
    SUITE_MODULE,
};

typedef struct {
    const spec *s;
    const char *source;   /* candidate file compiled into the harness */
    char *tag;
    pid_t pid;
    int status;
} job;

/* The candidate file a benchmark program includes, at a path the suite's compile cache keys
 * the same way in every run: a copy in dir, the folder of the program file nvcc is given
 * (tests/tools/nvcc_cache.c counts an absolute include in the folder of a file argument as
 * that folder, whatever its name, and any other absolute include as written: a candidate in
 * a test's own scratch folder, whose name differs between the plain and the ASan pass, made
 * the ASan pass compile the program again). A candidate with a quoted #include (its headers
 * are found from its own folder) or that cannot be read is used where it is. New string. */
static char *stable_candidate(const char *dir, const job *j)
{
    char *inc = NULL, *und = NULL;
    bool plain = pb_scan(j->source, &inc, &und);
    hk_free(inc);
    hk_free(und);
    if (!plain) {
        char *same = hk_strdup(j->source);
        assert_non_null(same);
        return same;
    }
    size_t len = 0;
    char *text = slurp(j->source, &len);
    assert_non_null(text);
    char *copy = hk_asprintf("%s/%s.cand.cu", dir, j->tag);
    assert_non_null(copy);
    FILE *f = fopen(copy, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    hk_free(text);
    return copy;
}

/* argv with "-cubin" after the compiler and the libraries (-lNAME) left out; new array of
 * borrowed strings (hk_free the array only). */
static char **cubin_form(char **argv)
{
    size_t n = 0;
    while (argv[n])
        n++;
    char **v = hk_calloc(n + 2, sizeof *v);
    assert_non_null(v);
    size_t k = 0;
    v[k++] = argv[0];
    v[k++] = "-cubin";
    for (size_t i = 1; i < n; i++)
        if (strncmp(argv[i], "-l", 2) != 0 || !strcmp(argv[i], "-lineinfo"))
            v[k++] = argv[i];
    return v;
}

static pid_t spawn(char **argv, const char *log)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *f = freopen(log, "w", stdout);
        if (!f || dup2(fileno(stdout), 2) < 0)
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static void wait_one(job *jobs, size_t n)
{
    int st = 0;
    pid_t pid = wait(&st);
    assert_true(pid > 0);
    for (size_t i = 0; i < n; i++)
        if (jobs[i].pid == pid) {
            jobs[i].status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
            jobs[i].pid = 0;
        }
}

/* wait_one over parallel arrays (the batched builds): the child that ends sets its status
 * (its exit code, -1 when a signal ended it) and its pid to 0 */
static void reap_one(pid_t *pids, int *status, size_t n)
{
    int st = 0;
    pid_t pid = wait(&st);
    assert_true(pid > 0);
    for (size_t i = 0; i < n; i++)
        if (pids[i] == pid) {
            status[i] = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
            pids[i] = 0;
        }
}

/* The file a job builds: DIR/TAG, or DIR/TAG.cubin; new string. */
static char *job_output(const char *dir, const job *j, enum suite_build how)
{
    char *out = how == SUITE_PROGRAM ? hk_asprintf("%s/%s", dir, j->tag)
                                     : hk_asprintf("%s/%s.cubin", dir, j->tag);
    assert_non_null(out);
    return out;
}

/* Generates and builds every job as `how` says; prints nvcc's output for each failure and
 * returns how many failed. */
static int compile_jobs(job *jobs, size_t n, enum suite_build how)
{
    char dir[] = "/tmp/hk_suite_test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    size_t running = 0;
    for (size_t j = 0; j < n; j++) {
        char *cu = hk_asprintf("%s/%s.cu", dir, jobs[j].tag);
        char *out = job_output(dir, &jobs[j], how);
        char *log = hk_asprintf("%s/%s.log", dir, jobs[j].tag);
        assert_true(cu && log);
        char **argv = NULL, **run = NULL;
        if (how == SUITE_MODULE) {
            static const char *const ptxas_v[] = { "-Xptxas", "-v", NULL };
            char *text = NULL;
            assert_int_equal(harness_module_generate(jobs[j].s, jobs[j].source, &text), HK_OK);
            FILE *f = fopen(cu, "wb");
            assert_non_null(f);
            assert_int_equal(fputs(text, f) >= 0, 1);
            assert_int_equal(fclose(f), 0);
            hk_free(text);
            assert_int_equal(harness_cubin_argv(jobs[j].s, NVCC, "sm_90", ptxas_v, cu, out,
                                                &argv), HK_OK);
        } else {
            char *cand = stable_candidate(dir, &jobs[j]);
            assert_int_equal(harness_write(jobs[j].s, cand, cu), HK_OK);
            hk_free(cand);
            assert_int_equal(harness_nvcc_argv(jobs[j].s, NVCC, "sm_90",
                                               HK_SOURCE_DIR "/include", NULL, cu, out, &argv),
                             HK_OK);
        }
        if (how == SUITE_PROGRAM_CUBIN)
            run = cubin_form(argv);
        if (running == 2) {
            wait_one(jobs, j);
            running--;
        }
        jobs[j].status = -2;
        jobs[j].pid = spawn(run ? run : argv, log);
        running++;
        hk_free(run);
        harness_argv_free(argv);
        hk_free(cu);
        hk_free(out);
        hk_free(log);
    }
    for (; running > 0; running--)
        wait_one(jobs, n);
    int failures = 0;
    for (size_t j = 0; j < n; j++) {
        char *out = job_output(dir, &jobs[j], how);
        char *log = hk_asprintf("%s/%s.log", dir, jobs[j].tag);
        assert_non_null(log);
        if (jobs[j].status != 0 || access(out, how == SUITE_PROGRAM ? X_OK : R_OK) != 0) {
            char *text = slurp(log, NULL);
            fprintf(stderr, "nvcc failed (%d) for %s:\n%s\n", jobs[j].status, jobs[j].tag,
                    text ? text : "");
            hk_free(text);
            failures++;
        }
        hk_free(out);
        hk_free(log);
    }
    char *cmd = hk_asprintf("rm -rf '%s'", dir);
    if (failures == 0 && (!cmd || system(cmd) != 0)) /* kept on failure, for a look */
        fprintf(stderr, "could not remove %s\n", dir);
    hk_free(cmd);
    return failures;
}

/* Whether the n bytes at b hold needle. */
static inline bool bytes_have(const char *b, size_t n, const char *needle)
{
    return memmem(b, n, needle, strlen(needle)) != NULL;
}

/* Whether jobs a and b are built with the same flags (the spec's compile flags and include
 * folders): only then can they share a batch. */
static inline bool same_flags(const job *a, const job *b)
{
    const spec *x = a->s, *y = b->s;
    bool same = x->n_compile_flags == y->n_compile_flags && x->n_include_dirs == y->n_include_dirs;
    for (size_t i = 0; same && i < x->n_compile_flags; i++)
        same = !strcmp(x->compile_flags[i], y->compile_flags[i]);
    for (size_t i = 0; same && i < x->n_include_dirs; i++)
        same = !strcmp(x->include_dirs[i], y->include_dirs[i]);
    return same;
}

/* The whole file at path (*len bytes), or NULL when it is missing or empty; hk_free. */
static inline char *read_all(const char *path, size_t *len)
{
    char *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (f && fseek(f, 0, SEEK_END) == 0 && ftell(f) > 0) {
        *len = (size_t)ftell(f);
        buf = hk_malloc(*len);
        assert_non_null(buf);
        rewind(f);
        assert_int_equal(fread(buf, 1, *len, f), *len);
    }
    if (f)
        fclose(f);
    return buf;
}

/* Whether the file at path holds needle (false when it cannot be read). */
static inline bool file_has(const char *path, const char *needle)
{
    size_t len = 0;
    char *text = read_all(path, &len);
    bool has = text && bytes_have(text, len, needle);
    hk_free(text);
    return has;
}

/* Issue 14 (CI time): the jobs built as `how` says, in few nvcc runs:
 * - SUITE_PROGRAM_CUBIN: the benchmark programs, as SUITE_PROGRAM_CUBIN checks them: the
 *   programs whose candidates include the same system headers (and whose specs give the
 *   same flags) form one translation unit (prog_batch.h: each generated file verbatim in a
 *   namespace hk_sb_K of its own, after hk_harness.h), compiled with -cubin: the front end
 *   checks every program's host text, its spec's expressions and its typed launch, and
 *   every kernel's device code is compiled;
 * - SUITE_MODULE: the candidates' device-only images, as the referee builds them
 *   (harness_cubin_argv with -Xptxas -v): the candidate files themselves, grouped the same
 *   way, each in a namespace hk_sm_K, compiled with the referee's flags. A candidate whose
 *   spec names template arguments (its image instantiates the kernel: harness_module_generate)
 *   or that declares anything extern "C" (one entity whatever its namespace) is built alone.
 * The cubin must hold each job's kernel in its namespace. A group of one, a candidate with
 * a quoted #include, and every job of a batch that fails or lacks a kernel are built alone
 * (compile_jobs), so a failure names its job. Returns how many failed. */
static inline int compile_batched(job *jobs, size_t n, enum suite_build how)
{
    assert_true(how == SUITE_PROGRAM_CUBIN || how == SUITE_MODULE);
    bool module = how == SUITE_MODULE;
    const char *prefix = module ? "hk_sm" : "hk_sb";
    assert_true(n <= MAX_SPECS);
    char *inc[MAX_SPECS], *und[MAX_SPECS];
    size_t leader[MAX_SPECS], members[MAX_SPECS];
    for (size_t j = 0; j < n; j++) {
        members[j] = 0;
        leader[j] = j;
        if (!pb_scan(jobs[j].source, &inc[j], &und[j]))
            continue; /* inc[j] NULL: alone */
        if (module && (jobs[j].s->n_template_args || file_has(jobs[j].source, "extern \"C\""))) {
            hk_free(inc[j]);
            hk_free(und[j]);
            inc[j] = und[j] = NULL;
            continue;
        }
        for (size_t i = 0; i < j; i++)
            if (inc[i] && leader[i] == i && same_flags(&jobs[i], &jobs[j]) &&
                !strcmp(inc[i], inc[j])) {
                leader[j] = i;
                break;
            }
        members[leader[j]]++;
    }
    char dir[] = "/tmp/hk_suite_batch.XXXXXX";
    assert_non_null(mkdtemp(dir));
    /* the batches: leaders of two or more; up to two nvcc at a time */
    size_t lead[MAX_SPECS], n_lead = 0;
    pid_t pids[MAX_SPECS];
    int status[MAX_SPECS];
    size_t running = 0;
    for (size_t g = 0; g < n; g++) {
        if (!inc[g] || leader[g] != g || members[g] < 2)
            continue;
        const char *files[MAX_SPECS];
        char *undefs[MAX_SPECS], *owned[MAX_SPECS];
        size_t m = 0;
        for (size_t j = g; j < n; j++)
            if (inc[j] && leader[j] == g) {
                if (module) { /* the candidate itself, by its full path */
                    owned[m] = hk_strdup(jobs[j].source);
                    assert_non_null(owned[m]);
                    files[m] = owned[m];
                } else {
                    owned[m] = hk_asprintf("%s/%s.cu", dir, jobs[j].tag);
                    assert_non_null(owned[m]);
                    char *cand = stable_candidate(dir, &jobs[j]);
                    assert_int_equal(harness_write(jobs[j].s, cand, owned[m]), HK_OK);
                    hk_free(cand);
                    files[m] = strrchr(owned[m], '/') + 1;
                }
                undefs[m++] = und[j];
            }
        char *cu = hk_asprintf("%s/batch-%zu.cu", dir, g);
        char *out = hk_asprintf("%s/batch-%zu.cubin", dir, g);
        char *log = hk_asprintf("%s/batch-%zu.log", dir, g);
        assert_true(cu && out && log);
        FILE *f = fopen(cu, "wb");
        assert_non_null(f);
        pb_write(f, prefix, module ? NULL : "hk_harness.h", inc[g], files, undefs, m);
        assert_int_equal(fclose(f), 0);
        for (size_t k = 0; k < m; k++)
            hk_free(owned[k]);
        char **argv = NULL, **run = NULL;
        if (module) {
            static const char *const ptxas_v[] = { "-Xptxas", "-v", NULL };
            assert_int_equal(harness_cubin_argv(jobs[g].s, NVCC, "sm_90", ptxas_v, cu, out, &argv),
                             HK_OK);
        } else {
            assert_int_equal(harness_nvcc_argv(jobs[g].s, NVCC, "sm_90", HK_SOURCE_DIR "/include",
                                               NULL, cu, out, &argv),
                             HK_OK);
            run = cubin_form(argv);
        }
        if (running == 2) {
            reap_one(pids, status, n_lead);
            running--;
        }
        pids[n_lead] = spawn(run ? run : argv, log);
        status[n_lead] = -2;
        lead[n_lead++] = g;
        running++;
        hk_free(run);
        harness_argv_free(argv);
        hk_free(cu);
        hk_free(out);
        hk_free(log);
    }
    for (; running > 0; running--)
        reap_one(pids, status, n_lead);
    /* a batch that failed, or lacks a kernel: its programs go alone too */
    bool alone[MAX_SPECS];
    for (size_t j = 0; j < n; j++)
        alone[j] = !inc[j] || members[leader[j]] < 2;
    bool kept = false;
    for (size_t b = 0; b < n_lead; b++) {
        size_t g = lead[b], len = 0;
        char *out = hk_asprintf("%s/batch-%zu.cubin", dir, g);
        char *log = hk_asprintf("%s/batch-%zu.log", dir, g);
        assert_true(out && log);
        char *cubin = status[b] == 0 ? read_all(out, &len) : NULL;
        bool ok = cubin != NULL;
        /* each program's kernel in its namespace: <len>hk_sb_K<len>NAME (NAME: the kernel's
         * first component) in the mangled names */
        for (size_t j = g, k = 0; ok && j < n; j++) {
            if (!inc[j] || leader[j] != g)
                continue;
            const char *kn = jobs[j].s->kernel, *colon = strstr(kn, "::");
            int klen = colon ? (int)(colon - kn) : (int)strlen(kn);
            char ns[32];
            snprintf(ns, sizeof ns, "%s_%zu", prefix, ++k);
            char *name = hk_asprintf("%zu%s%d%.*s", strlen(ns), ns, klen, klen, kn);
            assert_non_null(name);
            if (!bytes_have(cubin, len, name)) {
                fprintf(stderr, "the batch's cubin holds no %s (%s's kernel)\n", name, jobs[j].tag);
                ok = false;
            }
            hk_free(name);
        }
        hk_free(cubin);
        if (!ok) {
            char *text = slurp(log, NULL);
            fprintf(stderr, "the batch of %zu %s (%s's includes) failed (nvcc %d); each is "
                            "compiled alone:\n%s\n",
                    members[g], module ? "images" : "programs", jobs[g].tag, status[b],
                    text ? text : "");
            hk_free(text);
            for (size_t j = g; j < n; j++)
                alone[j] = alone[j] || (inc[j] && leader[j] == g);
            kept = true;
        }
        hk_free(out);
        hk_free(log);
    }
    job rest[MAX_SPECS];
    size_t n_rest = 0;
    for (size_t j = 0; j < n; j++)
        if (alone[j])
            rest[n_rest++] = jobs[j];
    int failures = n_rest ? compile_jobs(rest, n_rest, how) : 0;
    for (size_t j = 0; j < n; j++) {
        hk_free(inc[j]);
        hk_free(und[j]);
    }
    char *cmd = hk_asprintf("rm -rf '%s'", dir);
    if (!kept && (!cmd || system(cmd) != 0)) /* kept on failure, for a look */
        fprintf(stderr, "could not remove %s\n", dir);
    hk_free(cmd);
    return failures;
}

/* The benchmark programs of jobs checked in few nvcc runs (compile_batched). */
static inline int compile_programs_batched(job *jobs, size_t n)
{
    return compile_batched(jobs, n, SUITE_PROGRAM_CUBIN);
}

#endif
