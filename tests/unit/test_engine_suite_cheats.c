/* The cheating candidates (tests/gpu/cheats/NAME.cu) against the suite's specs: each
 * names its expected rejection on its first line ("// expect: REASON", a reason the
 * harness really reports), defines a kernel of the suite, and its generated harness
 * compiles with nvcc -arch=sm_90 -- so on the GPU each one is rejected for what it does,
 * never for failing to build. */
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
#include "engine/harness.h"
#include "engine/measure.h"
#include "engine/spec.h"
#include "suite_compile.h"


/* Kernel name of a candidate file (its first __global__ function), new string. */
static char *candidate_kernel(const char *path)
{
    size_t len = 0;
    char *text = slurp(path, &len);
    assert_non_null(text);
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

static void cheats_expect_known_reasons(void **state)
{
    char *cheats[MAX_SPECS];
    size_t n = list(CHEAT_DIR "/*.cu", cheats, MAX_SPECS);
    assert_true(n >= 7);
    for (size_t c = 0; c < n; c++) {
        char *text = slurp(cheats[c], NULL);
        assert_non_null(text);
        char reason[64] = "";
        int got = sscanf(text, "// expect: %63s", reason);
        /* a rejection reason the referee really reports (measure.h's stable names) */
        bool known = false;
        for (int r = MEASURE_COMPILE_ERROR; got == 1 && r <= MEASURE_RESOURCE_LIMIT; r++)
            known |= strcmp(reason, measure_reason_name((enum measure_reason)r)) == 0;
        if (!known)
            fprintf(stderr, "%s: first line must be '// expect: REASON' with a known reason\n",
                    cheats[c]);
        assert_true(known);
        hk_free(text);
        hk_free(cheats[c]);
    }
}

static void cheats_compile_against_suite_specs(void **state)
{
    if (access(NVCC, X_OK) != 0)
        skip();
    char *specs[MAX_SPECS], *cheats[MAX_SPECS];
    size_t n_specs = list(SUITE_DIR "/*.bench.json", specs, MAX_SPECS);
    size_t n_cheats = list(CHEAT_DIR "/*.cu", cheats, MAX_SPECS);
    assert_true(n_specs >= 10);
    assert_true(n_cheats >= 7);
    spec *loaded[MAX_SPECS];
    for (size_t i = 0; i < n_specs; i++)
        loaded[i] = load_clean(specs[i]);
    job jobs[MAX_SPECS];
    memset(jobs, 0, sizeof jobs);
    for (size_t c = 0; c < n_cheats; c++) {
        char *k = candidate_kernel(cheats[c]);
        for (size_t i = 0; i < n_specs && !jobs[c].s; i++)
            if (!strcmp(loaded[i]->kernel, k))
                jobs[c].s = loaded[i];
        if (!jobs[c].s)
            fprintf(stderr, "%s: no suite spec for its kernel %s\n", cheats[c], k);
        assert_non_null(jobs[c].s);
        jobs[c].source = cheats[c];
        const char *base = strrchr(cheats[c], '/');
        jobs[c].tag = hk_asprintf("cheat_%s", base ? base + 1 : cheats[c]);
        assert_non_null(jobs[c].tag);
        char *dot = strrchr(jobs[c].tag, '.');
        if (dot)
            *dot = '\0';
        hk_free(k);
    }
    int failures = compile_jobs(jobs, n_cheats);
    for (size_t c = 0; c < n_cheats; c++) {
        hk_free(jobs[c].tag);
        hk_free(cheats[c]);
    }
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
