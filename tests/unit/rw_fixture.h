/* Fixtures shared by the rewrite unit tests: a scratch directory per test binary, a source
 * text with its analysis model, the allocation-failure loop, and a shell command's output.
 * Include after <cmocka.h>, "core/hk.h", "analysis/analysis.h" and "rewrites/rewrite.h";
 * CMake defines HK_BINARY_DIR for the tests. */
#ifndef HK_TESTS_RW_FIXTURE_H
#define HK_TESTS_RW_FIXTURE_H

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The test binary's scratch directory (rwf_setup makes it, rwf_teardown removes it). */
static char tmpdir[512];

/* Checks the grammar and makes tmpdir under the build directory, named after tag. 0 or -1
 * (a cmocka group setup's result). */
static inline int rwf_setup(const char *tag)
{
    const char *why;
    if (an_grammar_check(&why) != HK_OK)
        return -1;
    snprintf(tmpdir, sizeof tmpdir, "%s/test-%s-XXXXXX", HK_BINARY_DIR, tag);
    return mkdtemp(tmpdir) ? 0 : -1;
}

static inline int rwf_teardown(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A whole file as a NUL-terminated string (malloc'd); fails the test when unreadable. */
static inline char *rwf_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        print_message("cannot open %s\n", path);
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    assert_non_null(t);
    assert_int_equal(fread(t, 1, (size_t)n, f), (size_t)n);
    t[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return t;
}

/* The file rel under tests/data as a NUL-terminated string (malloc'd). */
static inline char *rwf_data_file(const char *rel)
{
    char path[900];
    snprintf(path, sizeof path, "%s/%s", HK_TEST_DATA, rel);
    return rwf_read_file(path, NULL);
}

/* Writes text to path (created or truncated); fails the test when it cannot. */
static inline void rwf_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        print_message("cannot write %s\n", path);
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

typedef struct {
    char *text;   /* malloc'd */
    size_t len;
    an_model *m;
} fixture;

/* fx gets a copy of text and its model, which must have no errors. */
static inline void load_text(const char *text, fixture *fx)
{
    fx->len = strlen(text);
    fx->text = malloc(fx->len + 1);
    assert_non_null(fx->text);
    memcpy(fx->text, text, fx->len + 1);
    assert_int_equal(an_analyze(fx->text, fx->len, &fx->m), HK_OK);
    assert_false(fx->m->has_errors);
}

static inline void load_path(const char *path, fixture *fx)
{
    char *t = rwf_read_file(path, NULL);
    load_text(t, fx);
    free(t);
}

/* The wild suite's kernel source bench/wild/src/ID.cu (ignored by git: bench/wild/extract.sh
 * puts it there) as a NUL-terminated string (malloc'd; its length in *len when len is not
 * NULL): NULL, with a note that the test (or case) is skipped, when it is not extracted. For
 * the tests that hand the text to a rewrite or an emulator, which analyze it themselves. */
static inline char *rwf_wild_text(const char *id, size_t *len)
{
    char path[700];
    snprintf(path, sizeof path, HK_TEST_DATA "/../../bench/wild/src/%s.cu", id);
    if (access(path, R_OK) != 0) {
        print_message("note: %s is not extracted (bench/wild/extract.sh), skipped\n", path);
        return NULL;
    }
    return rwf_read_file(path, len);
}

/* The same source read and analyzed into fx: false, with the same note, when it is not
 * extracted. */
static inline bool rwf_load_wild(const char *id, fixture *fx)
{
    fx->text = rwf_wild_text(id, &fx->len);
    if (!fx->text)
        return false;
    assert_int_equal(an_analyze(fx->text, fx->len, &fx->m), HK_OK);
    return true;
}

static inline void unload(fixture *fx)
{
    an_model_free(fx->m);
    free(fx->text);
}

/* The index of kernel name in fx's model; fails the test when there is none. */
static inline size_t kernel(const fixture *fx, const char *name)
{
    long k = an_model_find_kernel(fx->m, name);
    if (k < 0)
        print_message("no kernel %s\n", name);
    assert_true(k >= 0);
    return (size_t)k;
}

/* A rewrite of kernel k of fx, the call under test for rwf_survives_alloc_failures. */
typedef int (*rwf_rewrite)(const fixture *fx, size_t k, rw_result *r);

/* Fails the n-th allocation of call for n = 1, 2, ... until it succeeds: every failure must
 * be HK_ENOMEM and leave no allocation behind. */
static inline void rwf_survives_alloc_failures(const fixture *fx, size_t k, rwf_rewrite call)
{
    long live = hk_alloc_live();
    bool done = false;
    for (long n = 1; n < 100000 && !done; n++) {
        rw_result r;
        hk_alloc_fail_after(n);
        int rc = call(fx, k, &r);
        hk_alloc_fail_after(0);
        rw_result_free(&r);
        assert_int_equal(hk_alloc_live(), live);
        if (rc == HK_OK)
            done = true;
        else
            assert_int_equal(rc, HK_ENOMEM);
    }
    assert_true(done);
}

#ifdef HK_REWRITES_REGISTRY_H
/* A refusal a registry rewrite must give on one kernel of a source: the construct and its
 * line, and words the reason holds. */
typedef struct {
    const char *kernel, *construct;
    int line;
    const char *words;
} rwf_refusal;

/* Each case of cases (n of them) on kernels of src: rewrite (by its registry name, default
 * parameters) refuses through rw_applies with the construct, line and words, and the driver
 * rw_apply refuses too. Every mismatch is printed; the test fails after all are tried. Only
 * where rewrites/registry.h was included first. */
static inline void rwf_expect_refusals(const char *src, const char *rewrite, const rwf_refusal *cases, size_t n)
{
    fixture fx;
    load_text(src, &fx);
    const rw_descriptor *d = rw_find(rewrite);
    assert_non_null(d);
    int failures = 0;
    for (size_t i = 0; i < n; i++) {
        const rwf_refusal *c = &cases[i];
        rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, c->kernel)};
        rw_refusal why;
        assert_int_equal(rw_applies(d, &ctx, NULL, &why), HK_OK);
        if (why.line != c->line || strcmp(why.construct, c->construct) || !strstr(why.reason, c->words)) {
            print_error("%s: wanted %s at line %d (\"%s\"), got \"%s\" line %d: %s\n", c->kernel, c->construct,
                        c->line, c->words, why.construct, why.line, why.reason);
            failures++;
        }
        rw_result r;
        assert_int_equal(rw_apply(d, &ctx, NULL, &r, NULL), HK_OK);
        assert_false(r.applicable);
        rw_result_free(&r);
    }
    unload(&fx);
    assert_int_equal(failures, 0);
}
#endif

/* Runs cmd through the shell; its output (up to size - 1 bytes) in out, its exit status. */
static inline int run_cmd(const char *cmd, char *out, size_t size)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, size - 1, p);
    out[n] = '\0';
    return pclose(p);
}

#ifdef NVCC
#include "runners/runner.h"
#include "nvcc_batch.h"

/* Queues text's compile check with nvcc -arch=sm_90 -cubin -std=c++17 (tag names the file
 * DIR/TAG.cu in tmpdir); says so and returns without nvcc. Device code only, as the tests'
 * other compile checks of emitted text: nvcc's front end still parses and checks all of it,
 * host functions included (an undefined name in host code fails as under -c:
 * test_engine_rewrite_suite shows it), but no host compiler runs, which was half of each
 * check's time. The queued texts are compiled by rwf_nvcc_queued, the last test of every
 * test binary that queues any, in few nvcc runs (nvcc_batch.h: texts that can share a
 * translation unit share one, each in a namespace of its own; a batch that fails is
 * compiled again one text at a time, and only a text that fails alone fails the test, with
 * nvcc's messages on it): most of a small compile is nvcc parsing its own headers (issue 14).
 * Only where test_nvcc.h (NVCC) was included first; the test links hk_runners. */
static inline bool rwf_nvcc_tag_queued(const char *tag)
{
    for (size_t i = 0; i < nvb_n_jobs; i++)
        if (!strcmp(nvb_jobs[i].name, tag))
            return true;
    return false;
}

/* A test binary that queued texts and never ran rwf_nvcc_queued would pass without their
 * compile checks: at exit, a queue still holding texts fails the binary. */
static inline void rwf_nvcc_unchecked_at_exit(void)
{
    if (nvb_n_jobs) {
        fprintf(stderr, "error: %zu queued compile check(s) never ran (the test binary lists no "
                "cmocka_unit_test(rwf_nvcc_queued) last)\n", nvb_n_jobs);
        _exit(1);
    }
}

static inline void rwf_nvcc_queue(const char *text, const char *tag, bool strict)
{
    static bool armed;
    if (!armed && atexit(rwf_nvcc_unchecked_at_exit) == 0)
        armed = true;
    if (access(NVCC, X_OK) != 0) {
        print_message("note: no nvcc at %s, compile check of %s skipped\n", NVCC, tag);
        return;
    }
    /* a tag already queued (a test checking two texts under one name): the second is
     * TAG_2 (then _3, ...), so that each text keeps a file of its own and both are checked */
    char name[256];
    snprintf(name, sizeof name, "%s", tag);
    for (int k = 2; rwf_nvcc_tag_queued(name); k++)
        snprintf(name, sizeof name, "%.200s_%d", tag, k);
    if (strict)
        nvb_add_strict(tmpdir, name, text, strlen(text));
    else
        nvb_add(tmpdir, name, text, strlen(text));
}

/* Queues text's compile to PTX (nvcc -arch=sm_90 -ptx -std=c++17; nvb_add_ptx: in few
 * nvcc runs with the other queued PTX texts, each text's own PTX cut back out of its batch's),
 * as file TAG.cu in tmpdir (TAG_2... when taken); rwf_nvcc_queued compiles it and runs check
 * on its PTX with arg (which must live until then), after every queued text compiled.
 * strict: a warning fails it too (nvb_add_strict). Says so and returns without nvcc. */
static inline void rwf_nvcc_ptx_queue(const char *text, const char *tag, bool strict,
                                      void (*check)(const char *name, const char *ptx, const void *arg),
                                      const void *arg)
{
    static bool armed;
    if (!armed && atexit(rwf_nvcc_unchecked_at_exit) == 0)
        armed = true;
    if (access(NVCC, X_OK) != 0) {
        print_message("note: no nvcc at %s, PTX check of %s skipped\n", NVCC, tag);
        return;
    }
    char name[256];
    snprintf(name, sizeof name, "%s", tag);
    for (int k = 2; rwf_nvcc_tag_queued(name); k++)
        snprintf(name, sizeof name, "%.200s_%d", tag, k);
    nvb_add_ptx(tmpdir, name, text, strlen(text), strict, check, arg);
}

static inline void rwf_nvcc_ptx(const char *text, const char *tag,
                                void (*check)(const char *name, const char *ptx, const void *arg),
                                const void *arg)
{
    rwf_nvcc_ptx_queue(text, tag, false, check, arg);
}

/* What a text's PTX must hold and lack (substrings; NULL ends each list): the arg of
 * rwf_ptx_has_lacks. */
typedef struct {
    const char *has[4], *lacks[4];
} rwf_ptx_want;

/* A check for rwf_nvcc_ptx: arg is a rwf_ptx_want. */
static inline void rwf_ptx_has_lacks(const char *name, const char *ptx, const void *arg)
{
    const rwf_ptx_want *w = arg;
    for (size_t i = 0; i < 4 && w->has[i]; i++) {
        if (!strstr(ptx, w->has[i]))
            print_message("%s: no `%s` in its PTX\n", name, w->has[i]);
        assert_non_null(strstr(ptx, w->has[i]));
    }
    for (size_t i = 0; i < 4 && w->lacks[i]; i++) {
        if (strstr(ptx, w->lacks[i]))
            print_message("%s: `%s` in its PTX, expected none\n", name, w->lacks[i]);
        assert_null(strstr(ptx, w->lacks[i]));
    }
}

/* A check for rwf_nvcc_ptx: arg is a NULL-terminated array of extended regular expressions
 * (as grep -E reads them, line by line), each of which must match the text's PTX. */
static inline void rwf_ptx_matches(const char *name, const char *ptx, const void *arg)
{
    for (const char *const *want = arg; *want; want++) {
        regex_t re;
        assert_int_equal(regcomp(&re, *want, REG_EXTENDED | REG_NEWLINE | REG_NOSUB), 0);
        int st = regexec(&re, ptx, 0, NULL, 0);
        regfree(&re);
        if (st != 0)
            print_message("no `%s` in the PTX of %s\n", *want, name);
        assert_int_equal(st, 0);
    }
}

static inline void rwf_nvcc_compiles(const char *text, const char *tag)
{
    rwf_nvcc_queue(text, tag, false);
}

/* rwf_nvcc_compiles, and any nvcc warning on text fails the test too, naming tag
 * (nvb_add_strict). */
static inline void rwf_nvcc_compiles_strict(const char *text, const char *tag)
{
    rwf_nvcc_queue(text, tag, true);
}

/* The test that compiles every text rwf_nvcc_compiles queued in this test binary: listed
 * last in its tests (cmocka_unit_test(rwf_nvcc_queued)). Fails when a text fails alone,
 * printing nvcc's messages and the text (nvb_compile_all). */
static inline void rwf_nvcc_queued(void **state)
{
    (void)state;
    nvb_compile_all(tmpdir);
}

/* rwf_nvcc_compiles of a rewrite's text followed by inst (the explicit instantiations a
 * template kernel needs before it emits code), as file PREFIX_NAME. */
static inline void rwf_nvcc_compiles_with(const rw_result *r, const char *inst, const char *prefix, const char *name)
{
    size_t n = r->len + strlen(inst) + 1;
    char tag[128], *full = malloc(n);
    assert_non_null(full);
    snprintf(full, n, "%.*s%s", (int)r->len, r->text, inst);
    snprintf(tag, sizeof tag, "%s_%s", prefix, name);
    rwf_nvcc_compiles(full, tag);
    free(full);
}
#endif

#endif
