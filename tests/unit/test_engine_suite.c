/* The kernel suite's bench specs (bench/kernels/NAME.bench.json): every spec loads
 * through spec_load without errors or warnings, keeps the harness rules (seeds, sizes,
 * distributions, a ragged size, formulas, a size bigger than an H200's L2), names a
 * kernel its source defines, and its generated benchmark program compiles with nvcc
 * -arch=sm_90 -cubin (the front end checks the generated host code, the same the launcher
 * holds, and the typed launch; the kernel's device code is built), so the GPU run never
 * fails on a spec mistake. The suite's programs are checked in one nvcc run, each in a
 * namespace of its own (suite_compile.h compile_programs_batched; issue 14: CI time), and
 * one at a time when that run fails, so that a failure names its spec. The README
 * example's program is built whole, linked: that the host side also goes through gcc and
 * the link is the same for every spec, and the episode tests build launchers whole. The cheats against these specs are compiled by
 * test_engine_suite_cheats.c (split to keep each test under its timeout). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "core/hk.h"
#include "measure/harness.h"
#include "spec/spec.h"
#include "suite_compile.h"

#define H200_L2_BYTES (60.0 * 1024 * 1024)

/* The ten kernels issue 3 asks for; the suite must hold each (more are welcome). */
static const char *const required[] = { "vector_add", "saxpy",  "reduce_sum", "transpose",
                                        "stencil2d",  "histogram", "softmax", "layernorm",
                                        "rope_forward", "sgemm" };

static double eval_or_fail(const spec *s, const expr *e, size_t k, const char *what)
{
    expr_value v;
    char err[256] = "";
    int rc = spec_eval(s, e, k, 132, &v, err, sizeof err);
    if (rc != HK_OK)
        fprintf(stderr, "%s: %s of size %zu: %s\n", s->kernel, what, k, err);
    assert_int_equal(rc, HK_OK);
    return expr_value_double(v);
}

/* Every spec: loads cleanly, follows the harness rules, names a kernel of its source. */
static void specs_load_and_follow_rules(void **state)
{
    char *paths[MAX_SPECS];
    size_t n = list(SUITE_DIR "/*.bench.json", paths, MAX_SPECS);
    assert_true(n >= HK_ARRAY_LEN(required));
    bool seen[HK_ARRAY_LEN(required)] = { false };
    for (size_t i = 0; i < n; i++) {
        fprintf(stderr, "checking %s\n", paths[i]);
        spec *s = load_clean(paths[i]);
        assert_int_equal(s->form, SPEC_FORM_HARNESS);
        assert_true(s->n_seeds >= 5);
        assert_true(s->n_sizes >= 2);
        assert_true(s->n_dists >= 2);
        assert_non_null(s->bytes); /* every suite kernel has a roofline position */
        /* The largest size moves more than the L2 holds, so DRAM is what is measured. */
        double most = 0;
        for (size_t k = 0; k < s->n_sizes; k++) {
            double b = eval_or_fail(s, s->bytes, k, "bytes");
            assert_true(b > 0);
            if (b > most)
                most = b;
            if (s->flops)
                assert_true(eval_or_fail(s, s->flops, k, "flops") > 0);
        }
        if (most < H200_L2_BYTES)
            fprintf(stderr, "%s: largest size moves %.0f bytes, less than an H200's L2\n",
                    s->kernel, most);
        assert_true(most >= H200_L2_BYTES);
        /* Outputs are never compared with a looser bound than 1e-3 relative. */
        for (size_t a = 0; a < s->n_args; a++)
            if (s->args[a].kind == HK_ARG_OUTPUT || s->args[a].kind == HK_ARG_INOUT)
                assert_true(s->args[a].tol.rtol <= 1e-3 && s->args[a].tol.l2 <= 1e-3);
        /* The kernel is defined in the source the spec names. */
        size_t len = 0;
        char *text = slurp(s->source_path, &len);
        assert_non_null(text);
        an_model *m = NULL;
        assert_int_equal(an_analyze(text, len, &m), HK_OK);
        long ki = an_model_find_kernel(m, s->kernel);
        if (ki < 0)
            fprintf(stderr, "%s: no kernel %s in %s\n", paths[i], s->kernel, s->source_path);
        assert_true(ki >= 0);
        assert_int_equal(m->funcs[ki].n_params, s->n_args);
        an_model_free(m);
        hk_free(text);
        for (size_t r = 0; r < HK_ARRAY_LEN(required); r++)
            seen[r] |= strcmp(required[r], s->kernel) == 0;
        spec_free(s);
        hk_free(paths[i]);
    }
    for (size_t r = 0; r < HK_ARRAY_LEN(required); r++) {
        if (!seen[r])
            fprintf(stderr, "no spec for the suite kernel %s\n", required[r]);
        assert_true(seen[r]);
    }
}

static void harnesses_compile_with_nvcc(void **state)
{
    if (access(NVCC, X_OK) != 0)
        skip();
    char *paths[MAX_SPECS];
    size_t n = list(SUITE_DIR "/*.bench.json", paths, MAX_SPECS);
    assert_true(n >= HK_ARRAY_LEN(required));
    job jobs[MAX_SPECS];
    memset(jobs, 0, sizeof jobs);
    spec *loaded[MAX_SPECS];
    for (size_t i = 0; i < n; i++) {
        loaded[i] = load_clean(paths[i]);
        jobs[i].s = loaded[i];
        jobs[i].source = loaded[i]->source_path;
        jobs[i].tag = hk_strdup(loaded[i]->kernel);
        assert_non_null(jobs[i].tag);
    }
    int failures = compile_programs_batched(jobs, n);
    for (size_t i = 0; i < n; i++) {
        hk_free(jobs[i].tag);
        spec_free(loaded[i]);
        hk_free(paths[i]);
    }
    assert_int_equal(failures, 0);
}

/* The README demo (examples/saxpy.bench.json) follows the same rules, and its program
 * builds whole: compiled, host side included, and linked. */
static void example_spec_loads_and_compiles(void **state)
{
    spec *s = load_clean(HK_SOURCE_DIR "/examples/saxpy.bench.json");
    assert_true(s->n_seeds >= 5 && s->n_sizes >= 2 && s->n_dists >= 2);
    assert_non_null(s->bytes);
    assert_non_null(s->flops);
    if (access(NVCC, X_OK) != 0) {
        spec_free(s);
        skip();
    }
    job j;
    memset(&j, 0, sizeof j);
    j.s = s;
    j.source = s->source_path;
    j.tag = hk_strdup("example_saxpy");
    assert_non_null(j.tag);
    int failures = compile_jobs(&j, 1, SUITE_PROGRAM); /* whole, linked */
    hk_free(j.tag);
    spec_free(s);
    assert_int_equal(failures, 0);
}

/* The test can fail: a spec whose only size is a multiple of the block, with too few
 * seeds, is refused with messages naming the fields. */
static void a_bad_suite_spec_is_refused(void **state)
{
    const char *text =
        "{\"kernel\": \"vector_add\", \"source\": \"" SUITE_DIR "/vector_add.cu\",\n"
        " \"sizes\": [{\"n\": 1024}],\n"
        " \"args\": [{\"name\": \"a\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},\n"
        "          {\"name\": \"b\", \"kind\": \"input\", \"dtype\": \"float\", \"count\": \"n\"},\n"
        "          {\"name\": \"c\", \"kind\": \"output\", \"dtype\": \"float\", \"count\": \"n\"},\n"
        "          {\"name\": \"n\", \"kind\": \"scalar\", \"dtype\": \"int\", \"value\": \"n\"}],\n"
        " \"launch\": {\"grid\": \"ceil_div(n, block_x)\", \"block\": 256},\n"
        " \"seeds\": [1, 2]}\n";
    spec_diags d = { 0 };
    spec *s = NULL;
    assert_int_equal(spec_parse(text, strlen(text), NULL, &s, &d), HK_EPARSE);
    assert_null(s);
    bool sizes = false, seeds = false;
    for (size_t i = 0; i < d.n; i++) {
        sizes |= strcmp(d.items[i].path, "sizes") == 0 && d.items[i].line == 2;
        seeds |= strcmp(d.items[i].path, "seeds") == 0 && d.items[i].line == 8;
    }
    assert_true(sizes);
    assert_true(seeds);
    spec_diags_free(&d);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(specs_load_and_follow_rules),
        cmocka_unit_test(a_bad_suite_spec_is_refused),
        cmocka_unit_test(example_spec_loads_and_compiles),
        cmocka_unit_test(harnesses_compile_with_nvcc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
