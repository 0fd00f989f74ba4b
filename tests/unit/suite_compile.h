/* Helpers shared by the suite tests (test_engine_suite*.c): listing files, loading a
 * spec that must be clean, and generating + compiling harness programs with nvcc, two
 * at a time, through the suite's compile cache when the run has one (test_nvcc.h). Test
 * code only: cmocka asserts on every failure. Include after cmocka.h, core/hk.h,
 * measure/harness.h and spec/spec.h. */
#ifndef HK_TEST_SUITE_COMPILE_H
#define HK_TEST_SUITE_COMPILE_H

#include <glob.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_nvcc.h" /* NVCC: through the suite's compile cache when the run has one */
#define SUITE_DIR HK_SOURCE_DIR "/bench/kernels"
#define CHEAT_DIR HK_SOURCE_DIR "/tests/gpu/cheats"
#define MAX_SPECS 64

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

static size_t list(const char *pattern, char **out, size_t max)
{
    glob_t g;
    size_t n = 0;
    if (glob(pattern, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc && n < max; i++)
            out[n++] = hk_strdup(g.gl_pathv[i]);
        globfree(&g);
    }
    return n;
}

static spec *load_clean(const char *path)
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

typedef struct {
    const spec *s;
    const char *source;   /* candidate file compiled into the harness */
    char *tag;
    pid_t pid;
    int status;
} job;

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

/* Generates and compiles every job's harness; prints nvcc's output for each failure and
 * returns how many failed. */
static int compile_jobs(job *jobs, size_t n)
{
    char dir[] = "/tmp/hk_suite_test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    size_t running = 0;
    for (size_t j = 0; j < n; j++) {
        char *cu = hk_asprintf("%s/%s.cu", dir, jobs[j].tag);
        char *exe = hk_asprintf("%s/%s", dir, jobs[j].tag);
        char *log = hk_asprintf("%s/%s.log", dir, jobs[j].tag);
        assert_true(cu && exe && log);
        assert_int_equal(harness_write(jobs[j].s, jobs[j].source, cu), HK_OK);
        char **argv = NULL;
        assert_int_equal(harness_nvcc_argv(jobs[j].s, NVCC, "sm_90", HK_SOURCE_DIR "/include",
                                           NULL, cu, exe, &argv), HK_OK);
        if (running == 2) {
            wait_one(jobs, j);
            running--;
        }
        jobs[j].status = -2;
        jobs[j].pid = spawn(argv, log);
        running++;
        harness_argv_free(argv);
        hk_free(cu);
        hk_free(exe);
        hk_free(log);
    }
    for (; running > 0; running--)
        wait_one(jobs, n);
    int failures = 0;
    for (size_t j = 0; j < n; j++) {
        char *exe = hk_asprintf("%s/%s", dir, jobs[j].tag);
        char *log = hk_asprintf("%s/%s.log", dir, jobs[j].tag);
        assert_true(exe && log);
        if (jobs[j].status != 0 || access(exe, X_OK) != 0) {
            char *text = slurp(log, NULL);
            fprintf(stderr, "nvcc failed (%d) for %s:\n%s\n", jobs[j].status, jobs[j].tag,
                    text ? text : "");
            hk_free(text);
            failures++;
        }
        hk_free(exe);
        hk_free(log);
    }
    char *cmd = hk_asprintf("rm -rf '%s'", dir);
    if (failures == 0 && (!cmd || system(cmd) != 0)) /* kept on failure, for a look */
        fprintf(stderr, "could not remove %s\n", dir);
    hk_free(cmd);
    return failures;
}

#endif
