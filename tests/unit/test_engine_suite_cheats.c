/* The cheating candidates (tests/gpu/cheats/NAME.cu) against the suite's specs: each
 * names its expected rejection on its first line ("// expect: REASON", or alternatives
 * "// expect: race|wrong_answer", each a reason the referee really reports), may name its
 * suite kernel on the second ("// kernel: NAME"; else its first kernel is the one), defines
 * that kernel, and its device-only image builds as the referee builds it on CUDA
 * (harness_module_generate, harness_cubin_argv: nvcc -cubin -arch=sm_90 -O3 -Xptxas -v; those
 * that can share a translation unit share one, each in a namespace of its own, and a batch
 * that fails is built again one image at a time: suite_compile.h compile_batched) --
 * so on the GPU each one is rejected for what it does, never for failing to build. The
 * exceptions are the cheats that expect "host_code" (refused before any compile, whether or
 * not their text builds) or "compile_error" (built with the referee's flags they cannot
 * build). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "core/hk.h"
#include "measure/harness.h"
#include "measure/measure.h"
#include "spec/spec.h"
#include "suite_compile.h"


/* Kernel name of a candidate file: its "// kernel: NAME" second line, else its first
 * __global__ function; new string. */
static char *candidate_kernel(const char *path)
{
    size_t len = 0;
    char *text = slurp(path, &len);
    assert_non_null(text);
    const char *second = strchr(text, '\n');
    char named[128] = "";
    if (second && sscanf(second + 1, "// kernel: %127[A-Za-z0-9_:]", named) == 1) {
        hk_free(text);
        return hk_strdup(named);
    }
    an_model *m = NULL;
    assert_int_equal(an_analyze(text, len, &m), HK_OK);
    char *name = NULL;
    for (size_t i = 0; i < m->n_funcs && !name; i++)
        if (m->funcs[i].kind == AN_KERNEL)
            name = hk_strdup(m->funcs[i].name);
    an_model_free(m);
    hk_free(text);
    assert_non_null(name);
    return name;
}

/* A rejection reason the referee really reports (measure.h's stable names). */
static bool known_reason(const char *name)
{
    for (int r = MEASURE_COMPILE_ERROR; r <= MEASURE_REASON_LAST; r++)
        if (strcmp(name, measure_reason_name((enum measure_reason)r)) == 0)
            return true;
    return false;
}

/* The expected reasons of a cheat's first line ("// expect: A" or "A|B"): true when there
 * is at least one and each is known; *count how many, *has (when not NULL) whether `want`
 * is among them. */
static bool expected_reasons(const char *text, const char *want, size_t *count, bool *has)
{
    char line[256] = "";
    *count = 0;
    if (has)
        *has = false;
    if (sscanf(text, "// expect: %255s", line) != 1)
        return false;
    for (char *save = NULL, *r = strtok_r(line, "|", &save); r; r = strtok_r(NULL, "|", &save)) {
        /* "not_faster" is a verdict, not a rejection reason: a cheat that exists only to buy
         * a speedup may list it (tests/gpu/cheats/README.md) */
        if (!known_reason(r) && strcmp(r, "not_faster") != 0)
            return false;
        (*count)++;
        if (has && want && !strcmp(r, want))
            *has = true;
    }
    return *count > 0;
}

static void cheats_expect_known_reasons(void **state)
{
    char *cheats[MAX_SPECS];
    size_t n = list(CHEAT_DIR "/*.cu", cheats, MAX_SPECS);
    assert_true(n >= 25);
    for (size_t c = 0; c < n; c++) {
        char *text = slurp(cheats[c], NULL);
        assert_non_null(text);
        size_t count = 0;
        bool ok = expected_reasons(text, NULL, &count, NULL);
        if (!ok)
            fprintf(stderr, "%s: first line must be '// expect: REASON[|REASON]' with known "
                            "reasons\n", cheats[c]);
        assert_true(ok);
        hk_free(text);
        hk_free(cheats[c]);
    }
}

/* Whether a cheat is judged before or by the compile: "host_code" (refused before any
 * compile, its text may not even build) or "compile_error"; or is written for a DCU alone
 * (`// target: dcu` on its third line: AMDGPU inline asm, which nvcc does not build;
 * gpu/cheats_cpu_dcu judges those with hipcc). */
static bool judged_before_running(const char *path)
{
    char *text = slurp(path, NULL);
    assert_non_null(text);
    size_t count = 0;
    bool host = false, compile = false;
    assert_true(expected_reasons(text, "host_code", &count, &host));
    assert_true(expected_reasons(text, "compile_error", &count, &compile));
    const char *l3 = text;
    for (int i = 0; i < 2 && l3; i++)
        l3 = (l3 = strchr(l3, '\n')) ? l3 + 1 : NULL;
    bool dcu = l3 && !strncmp(l3, "// target: dcu", 14);
    hk_free(text);
    return host || compile || dcu;
}

static void cheats_compile_against_suite_specs(void **state)
{
    if (access(NVCC, X_OK) != 0)
        skip();
    char *specs[MAX_SPECS], *cheats[MAX_SPECS];
    size_t n_specs = list(SUITE_DIR "/*.bench.json", specs, MAX_SPECS);
    size_t n_cheats = list(CHEAT_DIR "/*.cu", cheats, MAX_SPECS);
    assert_true(n_specs >= 10);
    assert_true(n_cheats >= 25);
    spec *loaded[MAX_SPECS];
    for (size_t i = 0; i < n_specs; i++)
        loaded[i] = load_clean(specs[i]);
    job jobs[MAX_SPECS];
    memset(jobs, 0, sizeof jobs);
    size_t n_jobs = 0;
    for (size_t c = 0; c < n_cheats; c++) {
        /* every cheat names a suite kernel, whether or not it is built here */
        char *k = candidate_kernel(cheats[c]);
        const spec *s = NULL;
        for (size_t i = 0; i < n_specs && !s; i++)
            if (!strcmp(loaded[i]->kernel, k))
                s = loaded[i];
        if (!s)
            fprintf(stderr, "%s: no suite spec for its kernel %s\n", cheats[c], k);
        assert_non_null(s);
        hk_free(k);
        if (judged_before_running(cheats[c]))
            continue;
        job *j = &jobs[n_jobs++];
        j->s = s;
        j->source = cheats[c];
        const char *base = strrchr(cheats[c], '/');
        j->tag = hk_asprintf("cheat_%s", base ? base + 1 : cheats[c]);
        assert_non_null(j->tag);
        char *dot = strrchr(j->tag, '.');
        if (dot)
            *dot = '\0';
    }
    int failures = compile_batched(jobs, n_jobs, SUITE_MODULE);
    for (size_t j = 0; j < n_jobs; j++)
        hk_free(jobs[j].tag);
    for (size_t c = 0; c < n_cheats; c++)
        hk_free(cheats[c]);
    for (size_t i = 0; i < n_specs; i++) {
        spec_free(loaded[i]);
        hk_free(specs[i]);
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cheats_expect_known_reasons),
        cmocka_unit_test(cheats_compile_against_suite_specs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
